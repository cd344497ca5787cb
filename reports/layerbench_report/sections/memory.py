"""Section: batch scaling and memory."""
from __future__ import annotations

from layerbench_report import results_file
from matplotlib.lines import Line2D

from layerbench_report.charts import (
    batch_axis,
    legend_below,
    legend_order,
    log_scale,
    mark_not_ok,
    not_ok_slots,
    panel_grid,
    reserve_bottom,
    status_legend_handles,
)
from layerbench_report.markup import P, fmt_rate, note, table
from layerbench_report.style import ACCUMULATION_MARK, PASS_LINESTYLES, PRECISION_COLOURS


def render(data, model, charts) -> str:
    devices = data.devices_for(model)
    passes = data.record_passes(model)
    if not passes:
        return note("No model-level records (unfinished run): no batch-scaling chart.")
    fig, axes = panel_grid(len(devices))
    statuses, handles = set(), []
    for ax, d in zip(axes, devices):
        handles += draw_device(ax, data, model, d, passes, statuses)
    handles += status_legend_handles(statuses)
    if any(r.get("accumulation") for d, r in data.records if r["model"] == model):
        handles.append(Line2D([], [], marker=ACCUMULATION_MARK, markerfacecolor="none",
                              markersize=10, color="#333", linestyle="none",
                              label="gradient accumulation alternative"))
    legend_below(fig, sorted(handles, key=legend_order))
    parts = [charts.embed(fig, f"{model}: batch scaling and memory",
                          "Throughput against batch size. Dotted vertical lines: the first batch "
                          "that ran out of device memory. Hollow stars: the same batch reached "
                          "by gradient accumulation (k steps of the largest batch that fits).")]
    parts += boundary_tables(data, model)
    return "".join(parts)


def draw_device(ax, data, model, d, passes, statuses) -> list:
    """One device's panel: images/s against batch per precision and pass, the batches not
    measured ok marked (their statuses added to `statuses`), gradient accumulation's stand-ins
    and the first batch out of memory. Returns the legend handles."""
    batches, drawn, strip = set(), False, 0
    slots = not_ok_slots(data, model, d, passes)
    for pass_ in passes:
        recs = data.records_of(model, d, pass_, ok_only=False)
        for prec in results_file.PRECISIONS:
            ok = sorted((b, r["images_per_s"]) for (p, b), r in recs.items()
                        if p == prec and r["status"] == "ok" and r.get("images_per_s"))
            colour = PRECISION_COLOURS[prec]
            if ok:
                xs, ys = zip(*ok)
                batches.update(xs)
                drawn = True
                ax.plot(xs, ys, PASS_LINESTYLES[pass_], marker="o", color=colour,
                        label=f"{P(prec)} ({results_file.pass_name(pass_)})")
            for (p, b), r in recs.items():
                if p != prec or r["status"] == "ok":
                    continue
                batches.add(b)
                statuses.add(r["status"])
                strip = max(strip, mark_not_ok(ax, b, r["status"], colour, slots[prec]))
                acc = r.get("accumulation")
                if acc and acc.get("images_per_s"):
                    ax.plot([b], [acc["images_per_s"]], marker=ACCUMULATION_MARK, markersize=11,
                            markerfacecolor="none", markeredgecolor=colour, linestyle="none")
                    ax.annotate(f"{acc['steps']}×{acc['batch']} accum.",
                                (b, acc["images_per_s"]),
                                textcoords="offset points", xytext=(-6, 8), ha="right",
                                fontsize=8, color=colour)
    for bd, b in data.boundaries:
        if bd is d and b.get("model") == model and b.get("first_oom_batch"):
            colour = PRECISION_COLOURS.get(b.get("precision"), "#333")
            ax.axvline(b["first_oom_batch"], color=colour, linestyle=":", linewidth=1.5)
            ax.text(b["first_oom_batch"], 0.97, f" {P(b['precision'])} OOM ≥ "
                    f"{b['first_oom_batch']}", transform=ax.get_xaxis_transform(),
                    rotation=90, va="top", ha="right", fontsize=8, color=colour)
            batches.add(b["first_oom_batch"])
    if batches:
        batch_axis(ax, batches)
    if drawn:
        ax.set_yscale("log")
        reserve_bottom(ax, strip)
        log_scale(ax)
    else:
        ax.text(0.5, 0.5, "nothing measured ok", ha="center", transform=ax.transAxes,
                color="#777")
    ax.set_ylabel("images/s (model sum, log scale)")
    ax.set_title(f"{d.label}\nthroughput against batch, per precision")
    return ax.get_legend_handles_labels()[0]


def boundary_tables(data, model) -> list:
    """The out-of-memory boundary and gradient accumulation tables, or a note that no batch ran
    out of memory."""
    parts = []
    rows = []
    for d, b in data.boundaries:
        if b.get("model") == model:
            limit = b.get("memory_limit_bytes")
            rows.append([d.label, P(b.get("precision")), results_file.pass_name(b.get("pass")),
                         b.get("largest_fitting_batch"), b.get("first_oom_batch"),
                         f"{limit / 2**30:.1f} GiB" if limit else None])
    if rows:
        parts.append("<h4>Out-of-memory boundary</h4>" + table(
            ["device", "precision", "pass", "largest batch that fits", "first batch out of memory",
             "memory limit"], rows))
    acc_rows = []
    for d, r in data.records:
        acc = r.get("accumulation")
        if r["model"] == model and acc:
            acc_rows.append([d.label, P(r["precision"]), results_file.pass_name(r["pass"]),
                             r["batch"],
                             f"{acc['steps']} steps of batch {acc['batch']}",
                             fmt_rate(acc.get("images_per_s"))])
    if acc_rows:
        parts.append("<h4>Gradient accumulation instead</h4>" + table(
            ["device", "precision", "pass", "batch wanted", "reached by", "images/s"], acc_rows))
    if not rows and not acc_rows and not any(
            r["status"] == "oom" for d, r in data.records if r["model"] == model):
        parts.append(note("No batch ran out of memory in these files."))
    return parts
