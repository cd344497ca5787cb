"""Section: precision (speed-up of each precision over FP32)."""
from __future__ import annotations

from layerbench_report import results_file
from matplotlib.ticker import FuncFormatter

from layerbench_report.charts import (
    PANELS_PER_ROW,
    batch_axis,
    layer_chart_height,
    layer_rows,
    legend_below,
    legend_order,
    mark_not_ok,
    not_ok_slots,
    panel_grid,
    reserve_bottom,
    status_legend_handles,
)
from layerbench_report.data import device_batch, precisions_of
from layerbench_report.layer_precisions import substitution_note
from layerbench_report.markup import P, note
from layerbench_report.uncertainty import ratio_range, record_uncertainty
from layerbench_report.style import PASS_LINESTYLES, PRECISION_COLOURS


def render(data, model, charts) -> str:
    devices = data.devices_for(model)
    # Memory-bound layers do no floating-point work: at 0 TFLOP/s they would read as unmeasured.
    # The bandwidth section shows them.
    with_flop = {p["op"] for _, p in data.points if p["model"] == model and p.get("gflop")}
    ops = [(op, n) for op, n in data.ops(model) if op in with_flop]
    if not ops:
        return note("No layer of this model does floating-point work to chart by TFLOP/s; the "
                    "bandwidth section shows them.")
    parts = []
    fig, axes = panel_grid(len(devices), layer_chart_height(ops))
    handles = []
    for k, (ax, d) in enumerate(zip(axes, devices)):
        batch = device_batch(data, model, d)
        if k % PANELS_PER_ROW:
            ax.set_yticklabels([])
        if batch is None:
            ax.set_title(f"{d.label}\nper-layer TFLOP/s, forward")
            ax.text(0.5, 0.5, "no point measured ok", ha="center", transform=ax.transAxes)
            continue
        series = [(P(prec), PRECISION_COLOURS[prec],
                   {p["op"]: p for p in data.points_of(model, d, prec, "fwd", batch)})
                  for prec in precisions_of(data, model, d)]
        handles += layer_rows(ax, ops, series, lambda p: p.get("tflops"), log=False)
        ax.set_xlabel("achieved TFLOP/s — higher is better")
        ax.set_title(f"{d.label}\nper-layer TFLOP/s, forward, batch {batch}")
    legend_below(fig, sorted(handles, key=legend_order))
    parts.append(charts.embed(fig, f"{model}: TFLOP/s per layer and precision",
                              "Achieved TFLOP/s (work / median time) for each layer shape and "
                              "precision, one panel per device at its largest FP32 batch. "
                              "Precisions that did not run are marked at the left edge; the table "
                              "of points not measured below gives the reasons. Memory-bound "
                              "layers (no FLOP) are in the bandwidth section."))
    parts.append(speedup_over_fp32(data, model, devices, charts))
    return "".join(parts)


def speedups(data, model, device, pass_):
    """{precision: [(batch, images/s ratio over FP32 at that batch, (low, high))]} for precisions
    but FP32; the range from both sums' uncertainties (uncertainty.py)."""
    recs = data.records_of(model, device, pass_)
    out = {}
    for (prec, b), r in sorted(recs.items()):
        if prec != "fp32" and ("fp32", b) in recs:
            fp32 = recs[("fp32", b)]
            ratio = r["images_per_s"] / fp32["images_per_s"]
            span = ratio_range(ratio, record_uncertainty(data, model, device, r),
                               record_uncertainty(data, model, device, fp32))
            out.setdefault(prec, []).append((b, ratio, span))
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
                xs, ys, spans = zip(*pts)
                batches.update(xs)
                ax.plot(xs, ys, PASS_LINESTYLES[pass_], marker="o", color=PRECISION_COLOURS[prec],
                        label=f"{P(prec)} ({results_file.pass_name(pass_)})")
                ax.fill_between(xs, [low for low, _ in spans], [high for _, high in spans],
                                color=PRECISION_COLOURS[prec], alpha=0.15, linewidth=0)
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
    substituted = substitution_note(r for d in comparable for pa in passes
                                    for r in data.records_of(model, d, pa).values())
    return charts.embed(fig, f"{model}: speed-up over FP32 against batch",
                        "Throughput of each precision divided by FP32 throughput at the same "
                        "batch and pass (solid: forward, dashed: training step); the shading is "
                        "the range both sums' uncertainties allow. Markers at the "
                        "bottom: batches where that precision was not measured or failed. Small "
                        "batches are often launch bound, where lower precision buys little.") + \
        (note(substituted) if substituted else "") + skipped
