#!/usr/bin/env python3
"""Turns layerbench results files into a self-contained HTML report.

    report.py RESULTS.json... -o DIR [--baseline FILE] [--skip-bad] [--not-measured FILE]

Writes DIR/index.html (charts embedded as PNG, no network needed), DIR/results.csv (one row per
point) and DIR/summary.md (the headline tables in Markdown). A file that is not a usable results
file stops the report with one line on stderr and exit code 2, or with --skip-bad is left out.
--not-measured lists targets of a Slurm fleet (scripts/slurm/fleet.py) that left no results, with
the reason.
"""
from __future__ import annotations

import argparse
import base64
import csv
import html
import io
import json
import statistics
import sys
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import layerbench_results as lr  # noqa: E402

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator  # noqa: E402

# One fixed colour per precision and per device, in every chart: precision colours where a chart
# compares precisions, device colours where it compares devices; the two sets do not overlap.
PRECISION_COLOURS = {"fp32": "#1f77b4", "tf32": "#17becf", "fp16": "#ff7f0e", "bf16": "#9467bd",
                     "fp8": "#d62728"}
CPU_COLOURS = ["#4d4d4d", "#8c564b", "#a6761d"]
GPU_COLOURS = ["#2ca02c", "#e7298a", "#1b9e77", "#b15928", "#66a61e"]
PASS_MARKERS = {"fwd": "o", "bwd_data": "s", "bwd_weights": "^"}
PASS_LINESTYLES = {"fwd": "-", "train": "--"}
NOT_OK_MARK = {"oom": "X", "unsupported": "s", "failed": "P"}
ACCUMULATION_MARK = "*"
DPI = 100

plt.rcParams.update({"font.size": 10, "axes.titlesize": 11, "axes.titleweight": "bold",
                     "axes.grid": True, "grid.alpha": 0.3, "axes.spines.top": False,
                     "axes.spines.right": False, "legend.fontsize": 9, "legend.framealpha": 0.9})


# ----------------------------------------------------------------------------------------------
# The merged data of all files

@dataclass(eq=False)
class Device:
    file: lr.ResultsFile
    id: str
    kind: str
    name: str
    label: str  # unique within the report
    info: dict  # the context's device object
    colour: str

    def peak(self, precision):
        """(TFLOP/s, source) or None."""
        p = (self.info.get("peaks") or {}).get(precision)
        return (float(p["tflops"]), p.get("source", "")) if p and p.get("tflops") else None

    def bandwidth(self):
        """(GB/s, source) or None."""
        b = self.info.get("memory_bandwidth_gbps")
        return (float(b["value"]), b.get("source", "")) if b and b.get("value") else None


class Data:
    def __init__(self, files, baseline_index=0):
        self.files = files
        self.devices = []
        by_kind = {"cpu": 0, "gpu": 0}
        for f in files:
            for dev_id, info in f.devices.items():
                palette = CPU_COLOURS if info["kind"] == "cpu" else GPU_COLOURS
                colour = palette[by_kind[info["kind"]] % len(palette)]
                by_kind[info["kind"]] += 1
                label = info["name"] + placement(f.context)
                self.devices.append(Device(f, dev_id, info["kind"], info["name"], label, info,
                                           colour))
        labels = [d.label for d in self.devices]
        for d in self.devices:
            if labels.count(d.label) > 1:
                d.label = f"{d.label} [{d.file.name}]"
        self._device = {(id(d.file), d.id): d for d in self.devices}
        self.points = [(self.device(f, p["device"]), p) for f in files for p in f.points]
        self.records = [(self.device(f, r["device"]), r) for f in files for r in f.models
                        if isinstance(r, dict) and r.get("device") in f.devices]
        self.boundaries = [(self.device(f, b["device"]), b) for f in files for b in f.boundaries
                           if isinstance(b, dict) and b.get("device") in f.devices]
        self.baseline = files[baseline_index] if files else None
        self.models = []
        for _, p in self.points:
            if p["model"] not in self.models:
                self.models.append(p["model"])
        self.titles = {r["model"]: r.get("title") or r["model"] for _, r in self.records}

    def device(self, f, dev_id) -> Device:
        return self._device[(id(f), dev_id)]

    def title(self, model):
        return self.titles.get(model, model)

    def devices_for(self, model):
        present = {id(d) for d, p in self.points if p["model"] == model}
        return [d for d in self.devices if id(d) in present]

    def points_of(self, model, device=None, precision=None, pass_=None, batch=None):
        return [p for d, p in self.points if p["model"] == model and
                (device is None or d is device) and (precision is None or p["precision"] ==
                precision) and (pass_ is None or p["pass"] == pass_) and
                (batch is None or p["batch"] == batch)]

    def records_of(self, model, device, pass_, ok_only=True):
        """{(precision, batch): record} of the model-level records."""
        out = {}
        for d, r in self.records:
            if d is device and r["model"] == model and r["pass"] == pass_ and \
                    (not ok_only or (r["status"] == "ok" and r.get("images_per_s"))):
                out[(r["precision"], r["batch"])] = r
        return out

    def record_passes(self, model):
        have = {r["pass"] for _, r in self.records if r["model"] == model}
        return [p for p in lr.MODEL_PASSES if p in have]

    def ops(self, model):
        """[(op, count)] in the order the file lists them."""
        out = {}
        for _, p in self.points:
            if p["model"] == model and p["op"] not in out:
                out[p["op"]] = p.get("count", 1)
        return list(out.items())

    def baseline_device(self, kind, devices):
        """The reference among `devices` of this kind: the baseline file's, else the first."""
        mine = [d for d in devices if d.kind == kind]
        return next((d for d in mine if d.file is self.baseline), mine[0] if mine else None)


def placement(context) -> str:
    """" (partition h100, node gpu017)" for a file measured under a scheduler, else ""."""
    s = context.get("scheduler")
    if not isinstance(s, dict):
        return ""
    where = [f"{k} {s[k]}" for k in ("partition", "node") if s.get(k)]
    return f" ({', '.join(where)})" if where else ""


NOT_MEASURED_SCHEMA = "layerbench-not-measured/1"


def load_not_measured(path):
    """The records of a fleet's not-measured file: [{target, job_id, node, partition, reason}].
    Raises lr.BadResultsFile naming the file and the problem."""
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as e:
        raise lr.BadResultsFile(path, f"cannot be read: {e.strerror}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise lr.BadResultsFile(path, f"not a not-measured file: {e}") from None
    if not isinstance(doc, dict) or doc.get("schema") != NOT_MEASURED_SCHEMA:
        raise lr.BadResultsFile(path, f'not a not-measured file: schema is not "{NOT_MEASURED_SCHEMA}"')
    records = doc.get("targets")
    if not isinstance(records, list) or not all(
            isinstance(r, dict) and isinstance(r.get("target"), str) and
            isinstance(r.get("reason"), str) for r in records):
        raise lr.BadResultsFile(path, "targets: expected an array of objects with target and reason")
    return records


# ----------------------------------------------------------------------------------------------
# Formatting

def esc(x) -> str:
    return html.escape(str(x))


class Raw(str):
    """A table cell that is already HTML."""


def fmt_rate(x) -> str:
    if x is None:
        return "–"
    return f"{x:,.0f}" if x >= 100 else f"{x:.3g}"


def fmt_ratio(x) -> str:
    return f"{x:.0f}×" if x >= 100 else f"{x:.1f}×" if x >= 1.95 else f"{x:.2f}×"


def fmt_ms(x) -> str:
    return "–" if x is None else f"{x:.4g}"


def P(p) -> str:  # noqa: N802 - reads like the unit it prints
    return lr.precision_name(p)


def status_pill(status, reason="") -> Raw:
    text = lr.STATUS_NAMES.get(status, status)
    title = f' title="{esc(reason)}"' if reason else ""
    return Raw(f'<span class="st st-{esc(status)}"{title}>{esc(text)}</span>')


def table(headers, rows, cls="") -> str:
    def cell(c):
        return c if isinstance(c, Raw) else esc("–" if c is None else c)
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    head = f"<thead><tr>{head}</tr></thead>" if any(headers) else ""
    body = "".join("<tr>" + "".join(f"<td>{cell(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f'<table class="{cls}">{head}<tbody>{body}</tbody></table>'


def md_table(headers, rows) -> str:
    def cell(c):
        return str("–" if c is None else c).replace("|", "\\|")
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(cell(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def note(text) -> str:
    return f'<p class="note">{esc(text)}</p>'


# ----------------------------------------------------------------------------------------------
# Charts

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
    return {prec: i for i, prec in enumerate(sorted(have, key=lr.precision_order))}


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
                   label=f"{lr.STATUS_NAMES[s]} (not measured, not zero)" if s != "failed"
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


def layer_rows(ax, ops, series, value_of, log=True, unit=""):
    """A dot plot: one row per op, one dot per series (label, colour, {op: point}) joined by a
    grey line, so the gap between dots reads as the ratio on a log axis. Failed points keep their
    dot, hollow; points that were not measured get their status marker at the left edge.
    Returns the legend handles."""
    values, statuses = [], set()
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
            elif p:
                xs, ys = marks.setdefault((i, p["status"]), ([], []))
                xs.append(0.012 + 0.022 * i)  # axes fraction: the left edge
                ys.append(j)
        if len(row) > 1:
            spans[0].extend([min(row), max(row), float("nan")])
            spans[1].extend([j, j, j])
        values += row
    ax.plot(*spans, color="#bbb", linewidth=2, zorder=0)
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
    for i, prec in enumerate(lr.PRECISIONS):
        if label.startswith(P(prec)):
            return i
    return len(lr.PRECISIONS)


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


# ----------------------------------------------------------------------------------------------
# 1. Headline

@dataclass
class Headline:
    sentences: list  # plain text
    cards: list      # (big figure, caption)


def availability(data, model, device, pass_):
    """{precision: why it has no ok model record} for the precisions without one."""
    missing = {}
    for prec in lr.PRECISIONS:
        recs = [r for d, r in data.records if d is device and r["model"] == model and
                r["pass"] == pass_ and r["precision"] == prec]
        if any(r["status"] == "ok" for r in recs):
            continue
        bad = recs or [p for p in data.points_of(model, device, prec) if p["status"] != "ok"]
        if bad:
            status, reason = bad[0]["status"], bad[0].get("reason", "")
            # A model record's reason starts with its status ("oom: conv1 fwd (conv1): ...").
            reason = reason.removeprefix(f"{status}: ")
            missing[prec] = lr.STATUS_NAMES[status] + (f" ({reason})" if reason else "")
        else:
            missing[prec] = "not measured"
    return missing


def missing_sentence(device, missing):
    if not missing:
        return f"All five precisions were measured on {device.label}."
    groups = {}
    for prec, why in missing.items():
        groups.setdefault(why, []).append(P(prec))
    parts = [f"{', '.join(precs)}: {why}" for why, precs in groups.items()]
    return f"Missing on {device.label}: " + "; ".join(parts) + "."


def best(records, precision=None):
    """The record with the highest images/s, optionally of one precision."""
    mine = [r for (p, _), r in records.items() if precision in (None, p)]
    return max(mine, key=lambda r: r["images_per_s"]) if mine else None


def headline(data, model) -> Headline:
    title = data.title(model)
    passes = data.record_passes(model)
    if not passes:
        return Headline([f"{title}: no model-level records in these files (an unfinished run "
                         "writes them only at the end), so there is no headline; the per-layer "
                         "charts below use the points."], [])
    pass_ = passes[0]
    what = f"{title} {lr.pass_name(pass_)}"
    devices = data.devices_for(model)
    gpus = [d for d in devices if d.kind == "gpu" and data.records_of(model, d, pass_)]
    cpus = [d for d in devices if d.kind == "cpu" and data.records_of(model, d, pass_)]
    out = Headline([], [])
    for g in gpus:
        recs = data.records_of(model, g, pass_)
        shared = [b for (p, b) in recs if p == "fp32" and
                  any(q != "fp32" and bb == b for (q, bb) in recs)]
        if shared:
            batch = max(shared)
            lead = max((r for (p, b), r in recs.items() if p != "fp32" and b == batch),
                       key=lambda r: r["images_per_s"])
            fp32 = recs[("fp32", batch)]
            ratio = lead["images_per_s"] / fp32["images_per_s"]
            text = (f"{what}, batch {batch}, on {g.label}: GPU {P(lead['precision'])} is "
                    f"{fmt_ratio(ratio)} faster than GPU FP32 ({fmt_rate(lead['images_per_s'])} vs "
                    f"{fmt_rate(fp32['images_per_s'])} images/s)")
            out.cards.append((fmt_ratio(ratio), f"GPU {P(lead['precision'])} vs GPU FP32 — "
                              f"{g.label}, batch {batch}"))
        else:
            lead = best(recs)
            batch = lead["batch"]
            text = (f"{what} on {g.label}: {fmt_rate(lead['images_per_s'])} images/s in "
                    f"{P(lead['precision'])} at batch {batch}")
            out.cards.append((fmt_rate(lead["images_per_s"]),
                              f"images/s, GPU {P(lead['precision'])} — {g.label}, batch {batch}"))
        # The CPU to compare with: the one measured with this GPU (same file), else the first.
        c = next((c for c in cpus if c.file is g.file), cpus[0] if cpus else None)
        if c is not None:
            crecs = data.records_of(model, c, pass_)
            ref = crecs.get(("fp32", batch)) or best(crecs, "fp32") or best(crecs)
            ratio = lead["images_per_s"] / ref["images_per_s"]
            same = ref["batch"] == batch
            text += (f"; {fmt_ratio(ratio)} {'faster than' if same else 'the throughput of'} CPU "
                     f"{P(ref['precision'])} on {c.label} ({fmt_rate(ref['images_per_s'])} images/s"
                     f"{'' if same else ' at batch ' + str(ref['batch'])})")
            out.cards.append((fmt_ratio(ratio), f"GPU {P(lead['precision'])} vs CPU "
                              f"{P(ref['precision'])} — {g.label} vs {c.label}"))
        if not cpus:
            text += "; no CPU results in these files to compare with"
        out.sentences.append(text + ".")
        out.sentences.append(missing_sentence(g, availability(data, model, g, pass_)))
    if not gpus:
        for c in cpus:
            crecs = data.records_of(model, c, pass_)
            ref = best(crecs, "fp32") or best(crecs)
            batches = sorted({b for (_, b) in crecs})
            out.sentences.append(
                f"{what} on {c.label} (CPU): {fmt_rate(ref['images_per_s'])} images/s in "
                f"{P(ref['precision'])} at batch {ref['batch']} (best of batches "
                f"{', '.join(map(str, batches))}; {fmt_ms(ref['time_ms'])} ms per batch).")
            out.cards.append((fmt_rate(ref["images_per_s"]),
                              f"images/s, CPU {P(ref['precision'])} — {c.label}, batch "
                              f"{ref['batch']}"))
            out.sentences.append(missing_sentence(c, availability(data, model, c, pass_)))
        out.sentences.append(
            "No GPU results are present in these files, so there is no GPU speed-up to show: run "
            "`layerbench run --device gpu` on a machine with an NVIDIA GPU and pass both files "
            "to report.py.")
    if not gpus and not cpus:
        out.sentences.append(f"{what}: no model-level record was measured ok on any device; "
                             "see the tables below for why.")
    return out


# ----------------------------------------------------------------------------------------------
# 2. CPU vs GPU (and, generally, device vs device per layer)

def section_devices(data, model, charts) -> str:
    devices = data.devices_for(model)
    kinds = {d.kind for d in devices}
    parts = []
    if kinds == {"cpu"}:
        parts.append(note("No GPU results in these files: the charts show the CPU alone. Run "
                          "layerbench on a machine with an NVIDIA GPU to add the GPU."))
    elif kinds == {"gpu"}:
        parts.append(note("No CPU results in these files: the charts compare what is present."))
    ops = data.ops(model)
    batch = per_layer_batch(data, model, devices, "fp32")
    if batch is None:
        parts.append(note("No FP32 forward point was measured ok, so there is no per-layer "
                          "device comparison."))
    else:
        series = [(d.label, d.colour,
                   {p["op"]: p for p in data.points_of(model, d, "fp32", "fwd", batch)})
                  for d in devices]
        series = [s for s in series if s[2]]
        ref_dev = next((d for d in devices if d.kind == "cpu"), None) if "gpu" in kinds else None
        ref_dev = ref_dev or data.baseline_device(devices[0].kind, devices)
        ref = next((s for s in series if s[0] == ref_dev.label), None)
        others = [s for s in series if s is not ref]
        n = 2 if ref and others else 1
        fig, axes = plt.subplots(1, n, figsize=(13, layer_chart_height(ops)), squeeze=False)
        ax = axes[0][0]
        handles = layer_rows(ax, ops, series, lr.median_ms)
        ax.set_xlabel("median time per layer (ms, log scale) — lower is better")
        ax.set_title(f"Per-layer time, FP32 forward, batch {batch}")
        all_handles = list(handles)
        if n == 2:
            ax2 = axes[0][1]
            ratio_series = []
            for label, colour, pts in others:
                ratios = {}
                for op, _ in ops:
                    a, b = ref[2].get(op), pts.get(op)
                    if a and b and a["status"] == "ok" and b["status"] == "ok":
                        ratios[op] = {"status": "ok", "ratio": lr.median_ms(a) / lr.median_ms(b)}
                    elif b and b["status"] != "ok":
                        ratios[op] = b
                ratio_series.append((label, colour, ratios))
            all_handles += layer_rows(ax2, ops, ratio_series, lambda p: p.get("ratio"),
                                      unit="×")
            ax2.axvline(1, color="black", linewidth=1)
            ax2.set_yticklabels([])
            ax2.set_xlabel(f"speed-up over {ref_dev.label} (× , log scale) — higher is better")
            ax2.set_title(f"Speed-up per layer vs {ref_dev.label}")
        legend_below(fig, all_handles)
        parts.append(charts.embed(
            fig, f"{model}: per-layer time and speed-up",
            f"Each row is one layer shape (×N: the model has N layers of that shape), timed alone "
            f"at batch {batch} in FP32; on the log scale the gap between two dots is the speed-up. "
            f"Layers that were not measured are marked at the left edge (see the legend)."))
    parts.append(throughput_by_device(data, model, devices, charts))
    return "".join(parts)


def throughput_by_device(data, model, devices, charts) -> str:
    """Images/s against batch, one colour per device: FP32 solid, the device's fastest other
    precision dashed."""
    fig, ax = plt.subplots(figsize=(11, 4.6))
    batches, statuses, drawn, strip = set(), set(), False, 0
    for d in devices:
        recs = data.records_of(model, d, "fwd")
        lead = best({k: v for k, v in recs.items() if k[0] != "fp32"})
        for prec, style in (("fp32", "-"), (lead["precision"] if lead else None, "--")):
            if prec is None:
                continue
            pts = sorted((b, r["images_per_s"]) for (p, b), r in recs.items() if p == prec)
            if pts:
                drawn = True
                xs, ys = zip(*pts)
                batches.update(xs)
                ax.plot(xs, ys, style, marker="o", color=d.colour, label=f"{d.label} — {P(prec)}")
        for (prec, b), r in data.records_of(model, d, "fwd", ok_only=False).items():
            if r["status"] != "ok" and prec in ("fp32", lead["precision"] if lead else "fp32"):
                strip = mark_not_ok(ax, b, r["status"], d.colour, 0)
                statuses.add(r["status"])
                batches.add(b)
    if not drawn:
        plt.close(fig)
        return note("No forward model-level record was measured ok: no throughput chart.")
    ax.set_yscale("log")
    reserve_bottom(ax, strip)
    log_scale(ax)
    batch_axis(ax, batches)
    ax.set_ylabel("images/s (layer sum, log scale)")
    ax.set_title("Model throughput against batch size, per device (forward)")
    ax.legend(handles=ax.get_legend_handles_labels()[0] + status_legend_handles(statuses),
              loc="center left", bbox_to_anchor=(1.01, 0.5))
    return charts.embed(fig, f"{model}: images/s against batch per device",
                        "Images per second from the layer sum (convolutions and GEMMs only). "
                        "Solid: FP32; dashed: the device's fastest other precision. Markers at "
                        "the bottom: batches that were not measured (out of memory, unsupported) "
                        "or failed validation.")


# ----------------------------------------------------------------------------------------------
# 3. Precision

def device_batch(data, model, device, pass_="fwd"):
    """The batch a device's per-layer charts use: the largest with ok FP32 points, else the
    largest with any ok point."""
    ok = [p for p in data.points_of(model, device, pass_=pass_) if p["status"] == "ok"]
    fp32 = [p["batch"] for p in ok if p["precision"] == "fp32"]
    return max(fp32) if fp32 else max((p["batch"] for p in ok), default=None)


def precisions_of(data, model, device):
    have = {p["precision"] for p in data.points_of(model, device)}
    return [p for p in lr.PRECISIONS if p in have]


def section_precision(data, model, charts) -> str:
    devices = data.devices_for(model)
    ops = data.ops(model)
    parts = []
    fig, axes = panel_grid(len(devices), layer_chart_height(ops))
    handles = []
    for k, (ax, d) in enumerate(zip(axes, devices)):
        batch = device_batch(data, model, d)
        series = [(P(prec), PRECISION_COLOURS[prec],
                   {p["op"]: p for p in data.points_of(model, d, prec, "fwd", batch)})
                  for prec in precisions_of(data, model, d)]
        handles += layer_rows(ax, ops, series, lambda p: p.get("tflops"), log=False)
        ax.set_xlabel("achieved TFLOP/s — higher is better")
        ax.set_title(f"{d.label}\nper-layer TFLOP/s, forward, batch {batch}")
        if k % PANELS_PER_ROW:
            ax.set_yticklabels([])
    legend_below(fig, sorted(handles, key=legend_order))
    parts.append(charts.embed(fig, f"{model}: TFLOP/s per layer and precision",
                              "Achieved TFLOP/s (work / median time) for each layer shape and "
                              "precision, one panel per device at its largest FP32 batch. "
                              "Precisions that did not run are marked at the left edge; the table "
                              "of points not measured below gives the reasons."))
    parts.append(speedup_over_fp32(data, model, devices, charts))
    return "".join(parts)


def speedups(data, model, device, pass_):
    """{precision: [(batch, images/s ratio over FP32 at that batch)]} for precisions but FP32."""
    recs = data.records_of(model, device, pass_)
    out = {}
    for (prec, b), r in sorted(recs.items()):
        if prec != "fp32" and ("fp32", b) in recs:
            out.setdefault(prec, []).append((b, r["images_per_s"] /
                                             recs[("fp32", b)]["images_per_s"]))
    return out


def speedup_over_fp32(data, model, devices, charts) -> str:
    passes = data.record_passes(model)
    comparable = [d for d in devices if any(speedups(data, model, d, pa) for pa in passes)]
    left_out = [d.label for d in devices if d not in comparable]
    skipped = note(f"No precision speed-up for {', '.join(left_out)}: FP32 and another precision "
                   "were not both measured ok at the same batch (see the table of points not "
                   "measured).") if left_out else ""
    if not comparable:
        return skipped
    fig, axes = panel_grid(len(comparable))
    handles = []
    for ax, d in zip(axes, comparable):
        batches, statuses, strip = set(), set(), 0
        slots = not_ok_slots(data, model, d, passes, skip="fp32")
        for pass_ in passes:
            for prec, pts in speedups(data, model, d, pass_).items():
                xs, ys = zip(*pts)
                batches.update(xs)
                ax.plot(xs, ys, PASS_LINESTYLES[pass_], marker="o", color=PRECISION_COLOURS[prec],
                        label=f"{P(prec)} ({lr.pass_name(pass_)})")
            for (prec, b), r in data.records_of(model, d, pass_, ok_only=False).items():
                if prec != "fp32" and r["status"] != "ok":
                    strip = max(strip, mark_not_ok(ax, b, r["status"], PRECISION_COLOURS[prec],
                                                   slots[prec]))
                    statuses.add(r["status"])
                    batches.add(b)
        ax.axhline(1, color=PRECISION_COLOURS["fp32"], linewidth=1.5, label="FP32 (= 1×)")
        batch_axis(ax, batches)
        ax.set_ylim(bottom=0)
        reserve_bottom(ax, strip)
        ax.set_title(f"{d.label}\nspeed-up over FP32 at the same batch")
        ax.set_ylabel("× FP32 throughput (images/s ratio)")
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}×" if v >= 0 else ""))
        handles += ax.get_legend_handles_labels()[0] + status_legend_handles(statuses)
    legend_below(fig, sorted(handles, key=legend_order))
    return charts.embed(fig, f"{model}: speed-up over FP32 against batch",
                        "Throughput of each precision divided by FP32 throughput at the same "
                        "batch and pass (solid: forward, dashed: training step). Markers at the "
                        "bottom: batches where that precision was not measured or failed. Small "
                        "batches are often launch bound, where lower precision buys little.") + \
        skipped


# ----------------------------------------------------------------------------------------------
# 4. Batch scaling and memory

def section_memory(data, model, charts) -> str:
    devices = data.devices_for(model)
    passes = data.record_passes(model)
    if not passes:
        return note("No model-level records (unfinished run): no batch-scaling chart.")
    fig, axes = panel_grid(len(devices))
    statuses, handles = set(), []
    for ax, d in zip(axes, devices):
        batches, drawn, strip = set(), False, 0
        slots = not_ok_slots(data, model, d, passes)
        for pass_ in passes:
            recs = data.records_of(model, d, pass_, ok_only=False)
            for prec in lr.PRECISIONS:
                ok = sorted((b, r["images_per_s"]) for (p, b), r in recs.items()
                            if p == prec and r["status"] == "ok" and r.get("images_per_s"))
                colour = PRECISION_COLOURS[prec]
                if ok:
                    xs, ys = zip(*ok)
                    batches.update(xs)
                    drawn = True
                    ax.plot(xs, ys, PASS_LINESTYLES[pass_], marker="o", color=colour,
                            label=f"{P(prec)} ({lr.pass_name(pass_)})")
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
        ax.set_ylabel("images/s (layer sum, log scale)")
        ax.set_title(f"{d.label}\nthroughput against batch, per precision")
        handles += ax.get_legend_handles_labels()[0]
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
    rows = []
    for d, b in data.boundaries:
        if b.get("model") == model:
            limit = b.get("memory_limit_bytes")
            rows.append([d.label, P(b.get("precision")), lr.pass_name(b.get("pass")),
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
            acc_rows.append([d.label, P(r["precision"]), lr.pass_name(r["pass"]), r["batch"],
                             f"{acc['steps']} steps of batch {acc['batch']}",
                             fmt_rate(acc.get("images_per_s"))])
    if acc_rows:
        parts.append("<h4>Gradient accumulation instead</h4>" + table(
            ["device", "precision", "pass", "batch wanted", "reached by", "images/s"], acc_rows))
    if not rows and not acc_rows and not any(
            r["status"] == "oom" for d, r in data.records if r["model"] == model):
        parts.append(note("No batch ran out of memory in these files."))
    return "".join(parts)


# ----------------------------------------------------------------------------------------------
# 5. Roofline

def roof(device, precision, intensity):
    """(ceiling TFLOP/s at this intensity or None, bound: 'memory'/'compute'/why unknown)."""
    peak, bw = device.peak(precision), device.bandwidth()
    if peak is None:
        return None, f"unknown: no {P(precision)} peak"
    if bw is None:
        return peak[0], "unknown: no memory ceiling"
    memory_roof = bw[0] * intensity / 1e3  # GB/s x FLOP/byte = GFLOP/s; /1e3 -> TFLOP/s
    return (memory_roof, "memory") if memory_roof < peak[0] else (peak[0], "compute")


def section_roofline(data, model, charts) -> str:
    devices = data.devices_for(model)
    fig, axes = panel_grid(len(devices), height=5.0)
    unknown, rows, summary, handles = [], [], [], []
    for ax, d in zip(axes, devices):
        pts = [p for p in data.points_of(model, d) if p["status"] == "ok" and p.get("tflops") and
               p.get("intensity")]
        if not pts:
            ax.text(0.5, 0.5, "no point measured ok", ha="center", transform=ax.transAxes)
            ax.set_title(d.label)
            continue
        xs = [p["intensity"] for p in pts]
        lo, hi = min(xs) / 2, max(xs) * 2
        bw = d.bandwidth()
        precs = [q for q in lr.PRECISIONS if any(p["precision"] == q for p in pts)]
        ceilings = {}  # peak -> the precisions sharing it (FP16 and BF16 usually do)
        for prec in precs:
            peak = d.peak(prec)
            if peak is None:
                unknown.append(f"{d.label}: no {P(prec)} peak in the file, so no {P(prec)} "
                               "compute ceiling is drawn")
            else:
                ceilings.setdefault(peak[0], []).append(prec)
        for peak, shared in ceilings.items():
            colour = PRECISION_COLOURS[shared[0]]
            ax.axhline(peak, color=colour, linestyle="--", linewidth=1)
            ax.text(hi, peak, f"{'/'.join(map(P, shared))} peak {peak:.3g}", color=colour,
                    fontsize=8, ha="right", va="bottom")
        for prec in precs:
            colour = PRECISION_COLOURS[prec]
            mine = [p for p in pts if p["precision"] == prec]
            for pass_, marker in PASS_MARKERS.items():
                sel = [p for p in mine if p["pass"] == pass_]
                if sel:
                    ax.scatter([p["intensity"] for p in sel], [p["tflops"] for p in sel],
                               color=colour, marker=marker, s=28, alpha=0.85, edgecolor="white",
                               linewidth=0.5)
        if bw is None:
            unknown.append(f"{d.label}: memory bandwidth unknown, so no memory ceiling is drawn "
                           "and no layer is called memory or compute bound")
            ax.text(0.02, 0.02, "memory bandwidth unknown:\nno memory ceiling drawn",
                    transform=ax.transAxes, fontsize=8, color="#a00")
        else:
            top = max([pk[0] for q in precs if (pk := d.peak(q))] + [p["tflops"] for p in pts])
            x_top = min(hi, top * 1e3 / bw[0])
            ax.plot([lo, x_top], [bw[0] * lo / 1e3, bw[0] * x_top / 1e3], color="black",
                    linewidth=1.2)
            ax.text(lo, bw[0] * lo / 1e3, f" memory {bw[0]:.3g} GB/s", fontsize=8, rotation=0,
                    va="bottom")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(lo, hi)
        log_scale(ax, "x")
        log_scale(ax)
        ax.set_xlabel("arithmetic intensity (FLOP/byte, minimum traffic)")
        ax.set_ylabel("achieved TFLOP/s")
        ax.set_title(f"{d.label}\nroofline: every measured point")
        handles += [Line2D([], [], color=PRECISION_COLOURS[q], marker="o", linestyle="none",
                           label=P(q)) for q in precs]
        handles += [Line2D([], [], color="#555", marker=m, linestyle="none",
                           label=lr.pass_name(pa)) for pa, m in PASS_MARKERS.items()
                    if any(p["pass"] == pa for p in pts)]
        batch = device_batch(data, model, d)
        for prec in precs:
            sel = [p for p in pts if p["precision"] == prec and p["pass"] == "fwd" and
                   p["batch"] == batch]
            fractions, bounds = [], {}
            for p in sel:
                ceiling, bound = roof(d, prec, p["intensity"])
                frac = p["tflops"] / ceiling if ceiling else None
                if frac is not None:
                    fractions.append(frac)
                bounds[bound] = bounds.get(bound, 0) + 1
                rows.append([d.label, p["op"], P(prec), batch, f"{p['intensity']:.1f}",
                             f"{p['tflops']:.3g}", f"{ceiling:.3g}" if ceiling else None,
                             f"{frac:.0%}" if frac is not None else None, bound])
            if sel:
                summary.append([d.label, P(prec), batch, ", ".join(
                    f"{n} {b}" + (" bound" if b in ("memory", "compute") else "")
                    for b, n in sorted(bounds.items())),
                    f"{statistics.median(fractions):.0%}" if fractions else None])
    handles.append(Line2D([], [], color="black", label="memory ceiling"))
    handles.append(Line2D([], [], color="#555", linestyle="--",
                          label="compute peak (colour: precision)"))
    legend_below(fig, sorted(handles, key=legend_order))
    parts = [charts.embed(fig, f"{model}: roofline",
                          "Each point is one measured layer (all batches, precisions and passes) "
                          "at its arithmetic intensity. The black slope is the memory ceiling "
                          "(bandwidth × intensity), dashed lines the compute peaks; a point under "
                          "the slope's part of the roof is memory bound. Peaks and bandwidth come "
                          "from the file's context with their source.")]
    if unknown:
        parts.append('<ul class="unknown">' + "".join(f"<li>{esc(u)}</li>" for u in unknown) +
                     "</ul>")
    if summary:
        parts.append(table(["device", "precision", "batch (forward)", "layers", "median share "
                            "of the roof"], summary))
        parts.append("<details><summary>Every forward layer against its ceiling</summary>" +
                     table(["device", "layer", "precision", "batch", "FLOP/byte", "TFLOP/s",
                            "ceiling TFLOP/s", "of ceiling", "bound"], rows, "small") +
                     "</details>")
    return "".join(parts)


# ----------------------------------------------------------------------------------------------
# 6. Device vs device of the same kind

def common_batch(recs_by_device, precision):
    """The largest batch every device measured ok in this precision, or None."""
    sets = [{b for (p, b), r in recs.items() if p == precision and r["status"] == "ok"}
            for recs in recs_by_device.values()]
    shared = set.intersection(*sets) if sets else set()
    return max(shared) if shared else None


def section_versus(data, model, charts) -> str:
    devices = data.devices_for(model)
    parts = []
    for kind in ("gpu", "cpu"):
        mine = [d for d in devices if d.kind == kind]
        if len(mine) < 2:
            continue
        base = data.baseline_device(kind, mine)
        passes = data.record_passes(model)
        word = kind.upper()
        parts.append(f"<h4>{word} vs {word}: reference {esc(base.label)} "
                     f"(from {esc(base.file.name)})</h4>")
        if not passes:
            parts.append(note("No model-level records to compare."))
            continue
        pass_ = passes[0]
        recs = {d: data.records_of(model, d, pass_, ok_only=False) for d in mine}
        groups = [(prec, common_batch(recs, prec)) for prec in lr.PRECISIONS]
        groups = [(prec, b) for prec, b in groups if b is not None]
        if groups:
            fig, ax = plt.subplots(figsize=(11, 4.2))
            width = 0.8 / len(mine)
            for i, d in enumerate(mine):
                xs = [j + (i - (len(mine) - 1) / 2) * width for j in range(len(groups))]
                ys = [recs[d][(prec, b)]["images_per_s"] for prec, b in groups]
                ax.bar(xs, ys, width=width * 0.92, color=d.colour, label=d.label)
                for x, y, (prec, b) in zip(xs, ys, groups):
                    ratio = y / recs[base][(prec, b)]["images_per_s"]
                    ax.text(x, y, fmt_ratio(ratio), ha="center", va="bottom", fontsize=8)
            ax.set_xticks(range(len(groups)))
            ax.set_xticklabels([f"{P(prec)}\nbatch {b}" for prec, b in groups])
            ax.set_ylabel("images/s (layer sum)")
            ax.set_title(f"{word} vs {word}, {lr.pass_name(pass_)}: throughput at the largest "
                         "batch every device ran (labels: × the reference)")
            ax.grid(axis="x", visible=False)
            ax.legend(loc="upper left")
            fig.tight_layout()
            parts.append(charts.embed(fig, f"{model}: {kind} vs {kind} throughput",
                                      f"Each group: one precision at the largest batch all "
                                      f"{word}s measured ok; numbers over the bars are relative "
                                      f"to {base.label}."))
        batches = sorted({b for r in recs.values() for (_, b) in r})
        precisions = sorted({p for r in recs.values() for (p, _) in r}, key=lr.precision_order)
        rows = []
        for prec in precisions:
            for d in mine:
                row = [P(prec), d.label]
                for b in batches:
                    r, ref = recs[d].get((prec, b)), recs[base].get((prec, b))
                    if r is None:
                        row.append("not measured")
                    elif r["status"] != "ok":
                        row.append(status_pill(r["status"], r.get("reason", "")))
                    elif ref is not None and ref["status"] == "ok":
                        row.append(f"{fmt_rate(r['images_per_s'])} "
                                   f"({fmt_ratio(r['images_per_s'] / ref['images_per_s'])})")
                    else:
                        row.append(fmt_rate(r["images_per_s"]))
                rows.append(row)
        parts.append(f"<p>Images/s, {esc(lr.pass_name(pass_))}, against batch size; in brackets "
                     f"relative to {esc(base.label)} at the same precision and batch:</p>" +
                     table(["precision", "device"] + [f"batch {b}" for b in batches], rows))
    if not parts:
        return note("Only one device of each kind in these files: nothing to set side by side. "
                    "Pass results files from other machines to compare devices.")
    return "".join(parts)


# ----------------------------------------------------------------------------------------------
# Points that were not measured, failed, and the environment

def section_not_ok(data, model) -> str:
    groups = {}
    for d, p in data.points:
        if p["model"] == model and p["status"] != "ok":
            key = (d.label, p["precision"], p["pass"], p["status"], p.get("reason", ""))
            g = groups.setdefault(key, (set(), set()))
            g[0].add(p["op"])
            g[1].add(p["batch"])
    if not groups:
        return note("Every point of this model was measured and validated ok.")
    n_ops = len(data.ops(model))
    rows = []
    for (label, prec, pass_, status, reason), (ops, batches) in sorted(
            groups.items(), key=lambda kv: (kv[0][0], lr.precision_order(kv[0][1]), kv[0][2])):
        layers = f"all {n_ops}" if len(ops) == n_ops else ", ".join(sorted(ops))
        rows.append([label, P(prec), lr.pass_name(pass_), status_pill(status), reason or None,
                     layers, ", ".join(map(str, sorted(batches)))])
    return table(["device", "precision", "pass", "status", "reason", "layers", "batches"], rows)


def validation_rows(data):
    """Per device and precision: the worst relative L2 error against its tolerance."""
    groups = {}
    for d, p in data.points:
        v = p.get("validation")
        if isinstance(v, dict) and v.get("rel_l2") is not None:
            groups.setdefault((d, p["precision"]), []).append((v, p))
    rows = []
    for (d, prec), items in sorted(groups.items(), key=lambda kv: (
            data.devices.index(kv[0][0]), lr.precision_order(kv[0][1]))):
        v, p = max(items, key=lambda vp: vp[0]["rel_l2"] / (vp[0].get("tolerance") or 1))
        failed = sum(1 for vv, _ in items if not vv.get("passed"))
        rows.append((d, prec, v, p, len(items), failed))
    return rows


def section_validation(data) -> str:
    rows = []
    for d, prec, v, p, n, failed in validation_rows(data):
        verdict = status_pill("ok") if failed == 0 else status_pill("failed")
        rows.append([d.label, P(prec), n, f"{v['rel_l2']:.2e}", f"{v.get('tolerance', 0):.0e}",
                     f"{p['model']} / {p['op']} / batch {p['batch']} / {lr.pass_name(p['pass'])}",
                     f"{failed} of {n}" if failed else "none", verdict])
    if not rows:
        return note("No validated points in these files.")
    return table(["device", "precision", "points validated", "worst rel. L2 error", "tolerance",
                  "worst point", "above tolerance", "verdict"], rows)


def section_environment(data) -> str:
    parts = []
    for f in data.files:
        c = f.context
        libs = c.get("libraries") or {}
        doctor = c.get("doctor") or {}
        rows = [["file", f.name + ("  (reference for comparisons)" if f is data.baseline else "")],
                ["status", f.status],
                ["layerbench", f"{c.get('layerbench_version', '?')} "
                 f"(git {c.get('git_revision', '?')}"
                 f", {c.get('build_type', '?')}, {c.get('compiler', '?')})"],
                ["host / OS", f"{c.get('host', '?')} / {c.get('os', '?')}"],
                ["command", c.get("command_line")],
                ["time (UTC)",
                 f"{c.get('start_time', '?')} → {c.get('end_time') or 'not finished'}"],
                ["cache mode", c.get("cache")],
                ["stopping rule", f"noise target {c.get('noise_target')}, at most "
                 f"{c.get('max_time_per_point_s')} s per point"],
                ["seed", c.get("seed")],
                ["libraries", ", ".join(f"{k} {v}" for k, v in libs.items()) or None],
                ["doctor", doctor.get("verdict")]]
        scheduler = c.get("scheduler")
        if isinstance(scheduler, dict):
            rows.append(["scheduler", f"{scheduler.get('name')} job {scheduler.get('job_id')}, "
                         f"node {scheduler.get('node')}, partition {scheduler.get('partition')}, "
                         f"fleet target {scheduler.get('target')}"])
        if f.recovered_from_journal:
            rows.append(["journal", f"{f.recovered_from_journal} points recovered from "
                         f"{f.name}.journal"])
        for dev_id, dev in f.devices.items():
            facts = ", ".join(f"{k}: {v}" for k, v in (dev.get("facts") or {}).items())
            peaks = "; ".join(f"{P(k)} {v.get('tflops')} TFLOP/s ({v.get('source', 'no source')})"
                              for k, v in (dev.get("peaks") or {}).items()) or "none"
            bw = dev.get("memory_bandwidth_gbps")
            bw_text = f"{bw.get('value')} GB/s ({bw.get('source', 'no source')})" if bw else \
                "unknown"
            rows.append([f"device {dev_id}",
                         f"{dev['name']} — {dev.get('backend', '?')}; {facts}"])
            rows.append([f"{dev_id} peaks", peaks])
            rows.append([f"{dev_id} memory bandwidth", bw_text])
        parts.append(table(["", ""], rows, "kv"))
    return "".join(parts)


# ----------------------------------------------------------------------------------------------
# The page, the CSV and the Markdown summary

def best_table(data, model):
    """Rows of device x pass, a column per precision: the best images/s and its batch."""
    rows = []
    for d in data.devices_for(model):
        for pass_ in data.record_passes(model):
            if not data.records_of(model, d, pass_, ok_only=False):
                continue  # this device did not run this pass at all
            recs = data.records_of(model, d, pass_)
            missing = availability(data, model, d, pass_)
            row = [d.label, lr.pass_name(pass_)]
            for prec in lr.PRECISIONS:
                r = best(recs, prec)
                row.append(f"{fmt_rate(r['images_per_s'])} (batch {r['batch']})" if r
                           else missing[prec].split(" (")[0])
            rows.append(row)
    return ["device", "pass"] + [f"{P(p)} images/s" for p in lr.PRECISIONS], rows


CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#222;
  background:#f6f7f9;line-height:1.45}
main{max-width:1320px;margin:0 auto;padding:0 24px 48px}
header{background:#1d2b3a;color:#fff;padding:18px 24px}
header h1{margin:0 0 4px;font-size:24px} header p{margin:0;color:#c8d3de;font-size:14px}
h2{border-bottom:2px solid #1d2b3a;padding-bottom:4px;margin-top:40px}
h3{margin-top:28px;color:#1d2b3a} h4{margin:18px 0 6px}
section.model{background:#fff;border-radius:8px;padding:4px 24px 20px;margin-top:28px;
  box-shadow:0 1px 3px rgba(0,0,0,.12)}
.banner{background:#fff3cd;border:1px solid #e0b100;border-left:6px solid #e0b100;
  padding:10px 16px;margin:16px 0;border-radius:4px;font-weight:600}
.banner.bad{background:#fde2e1;border-color:#c62828}
.glance{background:#fff;border-radius:8px;padding:8px 24px 16px;margin-top:20px;
  box-shadow:0 1px 3px rgba(0,0,0,.12)}
.cards{display:flex;flex-wrap:wrap;gap:12px;margin:10px 0}
.card{background:#eef4fb;border-radius:8px;padding:10px 16px;min-width:180px;max-width:300px}
.card b{display:block;font-size:30px;color:#0d47a1}
.card span{font-size:13px;color:#333}
.headline{font-size:16px;margin:6px 0}
figure{margin:12px 0} img.chart{max-width:100%;height:auto;display:block}
figcaption{font-size:13px;color:#555;margin-top:4px}
table{border-collapse:collapse;margin:8px 0 16px;font-size:13px;background:#fff}
th,td{border:1px solid #d5dae0;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#e9edf2} tbody tr:nth-child(even){background:#f8f9fb}
table.small{font-size:12px} table.kv td:first-child{font-weight:600;white-space:nowrap}
.st{display:inline-block;padding:1px 7px;border-radius:9px;font-size:12px;font-weight:600}
.st-ok{background:#d7f2dc;color:#1b5e20} .st-unsupported{background:#e4e4e4;color:#444}
.st-oom{background:#ffe0b2;color:#8a4b00} .st-failed{background:#ffcdd2;color:#b71c1c}
.st-incomplete{background:#fff3cd;color:#6b5200}
.note{color:#555;font-style:italic} ul.unknown{color:#8a1c1c;font-size:13px}
nav{font-size:14px;margin:12px 0} nav a{margin-right:14px}
details{margin:8px 0} summary{cursor:pointer;color:#0d47a1}
code{background:#eef0f3;padding:1px 4px;border-radius:3px}
"""

# Sets data-charts-rendered / data-charts-total on <body> once the page has loaded, and logs a
# console error naming any chart the browser could not decode (checked by the tests).
RENDER_CHECK = """<script>
window.addEventListener('load', function () {
  var imgs = Array.prototype.slice.call(document.images);
  var bad = imgs.filter(function (im) { return !(im.complete && im.naturalWidth > 0); });
  document.body.setAttribute('data-charts-total', String(imgs.length));
  document.body.setAttribute('data-charts-rendered', String(imgs.length - bad.length));
  if (bad.length) {
    console.error('layerbench report: charts not rendered: ' +
                  bad.map(function (im) { return im.alt; }).join('; '));
  }
});
</script>"""


NOTHING_MEASURED = "holds no points: nothing in it was measured"


def banners(data) -> str:
    out = []
    for f in data.files:
        if f.status != "complete":
            why = {"incomplete": "the run was still going or was killed",
                   "interrupted": "the run was stopped (Ctrl-C or SIGTERM)"}[f.status]
            n = f.recovered_from_journal
            extra = f"; {n} point{'' if n == 1 else 's'} recovered from its journal" \
                if n else ""
            out.append(f'<div class="banner">{esc(f.name)} is {esc(f.status.upper())}: {esc(why)}'
                       f"{esc(extra)}. Its results are partial: points and model totals that "
                       "were not reached are missing, not zero.</div>")
        if not f.points:
            out.append(f'<div class="banner">{esc(f.name)} {NOTHING_MEASURED}.</div>')
    return "".join(out)


def section_not_measured(not_measured) -> str:
    rows = [[r["target"], r.get("job_id"), r.get("node") or "—", r.get("partition") or "—",
             r["reason"]] for r in not_measured]
    return (f'<section id="not-measured"><h2>Not measured</h2>'
            f"{table(['target', 'job', 'node', 'partition', 'reason'], rows)}</section>")


def anchor(model) -> str:
    return "m-" + "".join(ch if ch.isalnum() else "-" for ch in model)


def render_html(data, heads, skipped, not_measured=()) -> tuple:
    charts = Charts()
    body = []
    for msg in skipped:
        body.append(f'<div class="banner bad">Left out: {esc(msg)}</div>')
    body.append(banners(data))
    if not_measured:
        body.append(section_not_measured(not_measured))
    nav = "".join(f'<a href="#{anchor(m)}">{esc(data.title(m))}</a>' for m in data.models)
    body.append(f'<nav>Models: {nav}<a href="#environment">Environment and validation</a></nav>')
    glance = ['<section class="glance"><h2>1. At a glance</h2>']
    for m in data.models:
        h = heads[m]
        cards = "".join(f"<div class=card><b>{esc(big)}</b><span>{esc(cap)}</span></div>"
                        for big, cap in h.cards)
        sentences = "".join(f'<p class="headline">{esc(s)}</p>' for s in h.sentences)
        glance.append(f"<h3>{esc(data.title(m))}</h3><div class=cards>{cards}</div>{sentences}")
    glance.append('<p class="note">Model figures are layer sums: convolutions and GEMMs only '
                  "(normalisation, activations, softmax, pooling and the optimizer are left out), "
                  "so they are upper bounds on what a framework reaches.</p></section>")
    body.append("".join(glance))
    for m in data.models:
        headers, rows = best_table(data, m)
        best_html = table(headers, rows) if rows else note(
            "No model-level records in these files: the sections below use the points.")
        body.append(
            f'<section class="model" id="{anchor(m)}"><h2>{esc(data.title(m))}</h2>'
            f"<h3>Best throughput per device and precision</h3>{best_html}"
            f"<h3>2. CPU vs GPU</h3>{section_devices(data, m, charts)}"
            f"<h3>3. Precision</h3>{section_precision(data, m, charts)}"
            f"<h3>4. Batch scaling and memory</h3>{section_memory(data, m, charts)}"
            f"<h3>5. Roofline</h3>{section_roofline(data, m, charts)}"
            f"<h3>6. Device vs device</h3>{section_versus(data, m, charts)}"
            f"<h3>Points not measured ok</h3>{section_not_ok(data, m)}</section>")
    body.append(f'<section id="environment"><h2>7. Environment and validation</h2>'
                f"<h3>Validation against the double-precision reference</h3>"
                f"{section_validation(data)}<h3>Files</h3>{section_environment(data)}</section>")
    files = ", ".join(f.name for f in data.files)
    generated = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    page = (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>layerbench report</title><style>{CSS}</style></head><body>"
            f"<header><h1>layerbench report</h1><p>{esc(files)} — generated {generated}</p>"
            f"</header><main>{''.join(body)}</main>{RENDER_CHECK}</body></html>")
    return page, charts.count


CSV_FIELDS = ["file", "model", "op", "kind", "count", "batch", "precision", "pass", "device",
              "device_name", "status", "reason", "median_ms", "noise", "samples", "tflops", "gbps",
              "gflop", "bytes", "intensity", "rel_l2", "tolerance", "validation_passed", "backend",
              "implementation", "shape_text"]


def write_csv(data, path):
    with open(path, "w", newline="", encoding="utf-8") as out:
        w = csv.writer(out)
        w.writerow(CSV_FIELDS)
        for d, p in data.points:
            t = p.get("timing") if isinstance(p.get("timing"), dict) else {}
            v = p.get("validation") if isinstance(p.get("validation"), dict) else {}
            w.writerow([d.file.name, p["model"], p["op"], p.get("kind"), p.get("count"),
                        p["batch"], p["precision"], p["pass"], p["device"], d.name, p["status"],
                        p.get("reason", ""), t.get("median_ms"), t.get("noise"), t.get("samples"),
                        p.get("tflops"), p.get("gbps"), p.get("gflop"), p.get("bytes"),
                        p.get("intensity"), v.get("rel_l2"), v.get("tolerance"), v.get("passed"),
                        p.get("backend"), p.get("implementation"), p.get("shape_text")])


def summary_markdown(data, heads, not_measured=()) -> str:
    out = ["# layerbench report", "", "Files: " + ", ".join(
        f"`{f.name}` ({f.status})" for f in data.files), ""]
    if not_measured:
        out += ["## Not measured", "", md_table(["target", "job", "reason"], [
            [r["target"], r.get("job_id"), r["reason"]] for r in not_measured]), ""]
    for f in data.files:
        if f.status != "complete":
            out += [f"> **{f.name} is {f.status}**: its results are partial.", ""]
        if not f.points:
            out += [f"> **{f.name}** {NOTHING_MEASURED}.", ""]
    for m in data.models:
        out += [f"## {data.title(m)}", ""]
        out += [f"- {s}" for s in heads[m].sentences] + [""]
        headers, rows = best_table(data, m)
        if rows:
            out += [md_table(headers, rows), ""]
    out += ["## Validation (worst relative L2 error per device and precision)", ""]
    out += [md_table(["device", "precision", "points", "worst rel. L2", "tolerance",
                      "above tolerance"],
                     [[d.label, P(prec), n, f"{v['rel_l2']:.2e}", f"{v.get('tolerance', 0):.0e}",
                       failed] for d, prec, v, p, n, failed in validation_rows(data)]), ""]
    out.append("Model figures are layer sums over convolutions and GEMMs only.")
    return "\n".join(out) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="HTML report from layerbench results files.")
    ap.add_argument("results", nargs="*", help="results files (layerbench run -o FILE)")
    ap.add_argument("-o", "--output", required=True, help="directory for index.html, results.csv "
                    "and summary.md")
    ap.add_argument("--baseline", help="the results file the others are normalised to "
                    "(default: the first)")
    ap.add_argument("--skip-bad", action="store_true", help="leave out files that cannot be read "
                    "instead of stopping")
    ap.add_argument("--not-measured", help="a Slurm fleet's list of targets that left no "
                    "results (scripts/slurm/fleet.py writes it)")
    args = ap.parse_args(argv)

    skipped = []

    def warn(msg):
        print(f"report.py: {msg}", file=sys.stderr)
        skipped.append(msg)

    try:
        not_measured = load_not_measured(args.not_measured) if args.not_measured else []
        # A fleet whose every target failed still gets a page that says why.
        files = lr.load_all(args.results, args.skip_bad, warn) \
            if args.results or not not_measured else []
    except lr.BadResultsFile as e:
        print(f"report.py: {e}", file=sys.stderr)
        return 2
    baseline_index = 0
    if args.baseline:
        wanted = Path(args.baseline).resolve()
        matches = [i for i, f in enumerate(files) if f.path.resolve() == wanted]
        if not matches:
            print(f"report.py: --baseline {args.baseline}: not one of the results files given",
                  file=sys.stderr)
            return 2
        baseline_index = matches[0]
    data = Data(files, baseline_index)
    out = Path(args.output)
    out.mkdir(parents=True, exist_ok=True)
    heads = {m: headline(data, m) for m in data.models}
    page, n_charts = render_html(data, heads, skipped, not_measured)
    (out / "index.html").write_text(page, encoding="utf-8")
    write_csv(data, out / "results.csv")
    (out / "summary.md").write_text(summary_markdown(data, heads, not_measured), encoding="utf-8")
    print(f"report.py: wrote {out / 'index.html'} ({n_charts} charts, {len(data.points)} points "
          f"from {len(files)} file(s)), results.csv and summary.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
