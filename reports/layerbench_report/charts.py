"""Figure helpers: embedding PNGs, axes, per-layer rows and legends."""
from __future__ import annotations

import base64
import io

from layerbench_report import results_file
import matplotlib

# No display: figures only become PNGs. Chosen before the first figure; compare.py, which shares
# the package, never imports matplotlib.
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.lines import Line2D
from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator

from layerbench_report.markup import P, esc
from layerbench_report.style import DPI, NOT_OK_MARK

plt.rcParams.update({"font.size": 10, "axes.titlesize": 11, "axes.titleweight": "bold",
                     "axes.grid": True, "grid.alpha": 0.3, "axes.spines.top": False,
                     "axes.spines.right": False, "legend.fontsize": 9, "legend.framealpha": 0.9})


class Charts:
    """Renders figures to embedded PNGs and counts them."""

    def __init__(self):
        self.count = 0

    def embed(self, fig, alt, caption) -> str:
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=DPI, bbox_inches="tight")
        plt.close(fig)
        self.count += 1
        data = base64.b64encode(buf.getvalue()).decode("ascii")
        return (f'<figure><img class="chart" alt="{esc(alt)}" src="data:image/png;base64,{data}">'
                f"<figcaption>{esc(caption)}</figcaption></figure>")


def plain_number(v, unit=""):
    return (f"{v:,.0f}" if v >= 1 else f"{v:g}") + unit


def log_scale(ax, which="y", unit=""):
    """A log axis labelled with plain numbers; call it once the axis limits are final. Over a
    range of many decades only the decades are marked (minor ticks dominate layout time); over a
    narrow range the 2 and 5 ticks are labelled too, so that the axis is never left bare."""
    (ax.set_yscale if which == "y" else ax.set_xscale)("log")
    axis = ax.yaxis if which == "y" else ax.xaxis
    lo, hi = ax.get_ylim() if which == "y" else ax.get_xlim()
    label = FuncFormatter(lambda v, _: plain_number(v, unit))
    axis.set_major_formatter(label)
    if lo > 0 and hi / lo < 100:
        axis.set_minor_locator(LogLocator(subs=(2, 5)))
        axis.set_minor_formatter(label)
    else:
        axis.set_minor_locator(NullLocator())


def batch_axis(ax, batches):
    ax.set_xscale("log", base=2)
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xticks(sorted(batches))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.set_xlabel("batch size (images)")


def mark_not_ok(ax, batch, status, colour, slot):
    """A non-measured batch on a line chart: a marker in a strip at the bottom of the axes (one
    row per slot), never a zero. Returns the height of the strip used, as a fraction of the axes."""
    y = 0.04 + 0.07 * slot
    ax.plot([batch], [y], marker=NOT_OK_MARK.get(status, "X"), color=colour,
            markersize=9, linestyle="none", transform=ax.get_xaxis_transform(), clip_on=False)
    return y + 0.05


def not_ok_slots(data, model, device, passes, skip=None):
    """{precision: marker row} for the precisions with model records not measured ok, so that
    each gets its own row in the strip at the bottom of a device's panel."""
    have = {p for pa in passes for (p, _), r in data.records_of(model, device, pa, False).items()
            if p != skip and r["status"] != "ok"}
    return {prec: i for i, prec in enumerate(sorted(have, key=results_file.precision_order))}


def reserve_bottom(ax, fraction):
    """Lowers the y limit so that no data falls in the bottom `fraction` of the axes, where the
    not-measured markers are. On a linear axis the room below zero gets no tick labels."""
    if fraction <= 0:
        return
    lo, hi = ax.get_ylim()
    if ax.get_yscale() == "log":
        ax.set_ylim(hi / (hi / lo) ** (1 / (1 - fraction)), hi)
    else:
        ax.set_ylim(hi - (hi - lo) / (1 - fraction), hi)


def status_legend_handles(statuses):
    return [Line2D([], [], marker=NOT_OK_MARK[s], color="#333", linestyle="none", markersize=8,
                   label=f"{results_file.STATUS_NAMES[s]} (not measured, not zero)" if s != "failed"
                   else "failed (see table)") for s in ("oom", "unsupported", "failed")
            if s in statuses]


PANELS_PER_ROW = 2  # per-device panels: two side by side stay readable at page width


def panel_grid(n, height=4.6):
    """One panel per device, PANELS_PER_ROW to a row; returns the figure and n axes."""
    cols = min(n, PANELS_PER_ROW)
    rows = -(-n // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(6.6 * cols if n > 1 else 10, height * rows),
                             squeeze=False)
    flat = [ax for row in axes for ax in row]
    for ax in flat[n:]:
        ax.set_visible(False)
    return fig, flat[:n]


def op_label(op, count):
    return f"{op} ×{count}" if count > 1 else op


def layer_rows(ax, ops, series, value_of, log=True, unit="", range_of=None):
    """A dot plot: one row per op, one dot per series (label, colour, {op: point}) joined by a
    grey line, so the gap between dots reads as the ratio on a log axis. Failed points keep their
    dot, hollow; points that were not measured get their status marker at the left edge.
    range_of(point) -> (low, high) or None draws each value's range as a bar in its colour.
    Returns the legend handles."""
    values, statuses = [], set()
    bars = {}  # series index -> ([x], [y]): each range as one segment of a broken line
    # One plot call per series and kind of mark: single-point lines by the thousand are slow.
    marks = {}  # (series index, "ok" / "failed" / status) -> ([x], [y])
    spans = ([], [])  # the grey line of each row, min to max, as one broken line
    for j, (op, _) in enumerate(ops):
        row = []
        for i, (label, colour, pts) in enumerate(series):
            p = pts.get(op)
            v = value_of(p) if p and p["status"] in ("ok", "failed") else None
            if v:
                row.append(v)
                xs, ys = marks.setdefault((i, p["status"]), ([], []))
                xs.append(v)
                ys.append(j)
                span = range_of(p) if range_of and p["status"] == "ok" else None
                if span:
                    bx, by = bars.setdefault(i, ([], []))
                    bx.extend([span[0], span[1], float("nan")])
                    by.extend([j, j, j])
            elif p:
                xs, ys = marks.setdefault((i, p["status"]), ([], []))
                xs.append(0.012 + 0.022 * i)  # axes fraction: the left edge
                ys.append(j)
        if len(row) > 1:
            spans[0].extend([min(row), max(row), float("nan")])
            spans[1].extend([j, j, j])
        values += row
    ax.plot(*spans, color="#bbb", linewidth=2, zorder=0)
    for i, (xs, ys) in bars.items():
        ax.plot(xs, ys, color=series[i][1], linewidth=3, alpha=0.45, zorder=1)
    for (i, status), (xs, ys) in marks.items():
        colour = series[i][1]
        statuses.add(status)
        if status == "ok":
            ax.plot(xs, ys, marker="o", markersize=8, linestyle="none", color=colour,
                    markeredgecolor=colour, markeredgewidth=0.5)
        elif status == "failed":
            ax.plot(xs, ys, marker="o", markersize=8, linestyle="none", markerfacecolor="white",
                    markeredgecolor=colour, markeredgewidth=2)
        else:
            ax.plot(xs, ys, marker=NOT_OK_MARK[status], markersize=8, color=colour,
                    linestyle="none", transform=ax.get_yaxis_transform(), clip_on=False)
    statuses.discard("ok")
    ax.set_yticks(range(len(ops)))
    ax.set_yticklabels([op_label(op, c) for op, c in ops])
    ax.set_ylim(len(ops) - 0.5, -0.5)  # first op on top
    if log and values:
        ax.set_xscale("log")
        ax.set_xlim(min(values) / 2.5, max(values) * 2)
        log_scale(ax, "x", unit)
    elif values:
        ax.set_xlim(-max(values) * 0.1, max(values) * 1.08)  # room for the status markers
    ax.grid(axis="y", linestyle=":")
    handles = [Line2D([], [], marker="o", markersize=8, color=colour, linestyle="none",
                      label=label) for label, colour, _ in series]
    if "failed" in statuses:
        handles.append(Line2D([], [], marker="o", markersize=8, markerfacecolor="white",
                              markeredgecolor="#333", markeredgewidth=2, linestyle="none",
                              label="failed validation (timing kept)"))
    return handles + status_legend_handles(statuses - {"failed"})


def legend_order(handle):
    """Legend entries by precision first (FP32 ... FP8), then the rest in their order."""
    label = handle.get_label()
    for i, prec in enumerate(results_file.PRECISIONS):
        if label.startswith(P(prec)):
            return i
    return len(results_file.PRECISIONS)


def legend_below(fig, handles):
    """One legend for the whole figure, under its panels (a colour means the same thing in every
    panel), then the layout."""
    unique = {}
    for h in handles:
        unique.setdefault(h.get_label(), h)
    ncol = max(1, min(4, len(unique)))
    rows = -(-len(unique) // ncol)
    fig.tight_layout(rect=(0, (0.2 + 0.23 * rows) / fig.get_figheight(), 1, 1))
    fig.legend(handles=list(unique.values()), loc="lower center", ncol=ncol, frameon=False)


def layer_chart_height(ops):
    return 1.9 + 0.34 * len(ops)


def per_layer_batch(data, model, devices, precision, pass_="fwd"):
    """The batch most of these devices measured with ok points (ties: the largest)."""
    counts = {}
    for d in devices:
        for b in {p["batch"] for p in data.points_of(model, d, precision, pass_)
                  if p["status"] == "ok"}:
            counts[b] = counts.get(b, 0) + 1
    return max(counts, key=lambda b: (counts[b], b)) if counts else None
