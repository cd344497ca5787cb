"""Section: CPU vs GPU."""
from __future__ import annotations

from layerbench_report import results_file

from layerbench_report.charts import (
    batch_axis,
    layer_chart_height,
    layer_rows,
    legend_below,
    log_scale,
    mark_not_ok,
    per_layer_batch,
    plt,
    reserve_bottom,
    status_legend_handles,
)
from layerbench_report.headline import best
from layerbench_report.layer_precisions import substitution_note
from layerbench_report.markup import P, note
from layerbench_report.uncertainty import noise, ratio_range, record_uncertainty


def render(data, model, charts) -> str:
    devices = data.devices_for(model)
    kinds = {d.kind for d in devices}
    parts = []
    if kinds == {"cpu"}:
        parts.append(note("No GPU results in these files: the charts show the CPU alone. Run "
                          "layerbench on a machine with an NVIDIA GPU to add the GPU."))
    elif "cpu" not in kinds:
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
        ref_dev = next((d for d in devices if d.kind == "cpu"), None) if kinds - {"cpu"} else None
        ref_dev = ref_dev or data.baseline_device(devices[0].kind, devices)
        ref = next((s for s in series if s[0] == ref_dev.label), None)
        others = [s for s in series if s is not ref]
        n = 2 if ref and others else 1
        fig, axes = plt.subplots(1, n, figsize=(13, layer_chart_height(ops)), squeeze=False)
        ax = axes[0][0]
        handles = layer_rows(ax, ops, series, results_file.median_ms)
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
                        ratio = results_file.median_ms(a) / results_file.median_ms(b)
                        ratios[op] = {"status": "ok", "ratio": ratio,
                                      "range": ratio_range(ratio, noise(a), noise(b))}
                    elif b and b["status"] != "ok":
                        ratios[op] = b
                ratio_series.append((label, colour, ratios))
            all_handles += layer_rows(ax2, ops, ratio_series, lambda p: p.get("ratio"),
                                      unit="×", range_of=lambda p: p.get("range"))
            ax2.axvline(1, color="black", linewidth=1)
            ax2.set_yticklabels([])
            ax2.set_xlabel(f"speed-up over {ref_dev.label} (× , log scale) — higher is better")
            ax2.set_title(f"Speed-up per layer vs {ref_dev.label}")
        legend_below(fig, all_handles)
        parts.append(charts.embed(
            fig, f"{model}: per-layer time and speed-up",
            f"Each row is one layer shape (×N: the model has N layers of that shape), timed alone "
            f"at batch {batch} in FP32; on the log scale the gap between two dots is the speed-up; "
            f"the bar behind a speed-up is the range both points' uncertainties allow. "
            f"Layers that were not measured are marked at the left edge (see the legend)."))
    parts.append(throughput_by_device(data, model, devices, charts))
    return "".join(parts)


def throughput_by_device(data, model, devices, charts) -> str:
    """Images/s against batch, one colour per device: FP32 solid, the device's fastest other
    precision dashed."""
    fig, ax = plt.subplots(figsize=(11, 4.6))
    batches, statuses, drawn, strip, shown = set(), set(), False, 0, []
    for d in devices:
        recs = data.records_of(model, d, "fwd")
        lead = best({k: v for k, v in recs.items() if k[0] != "fp32"})
        for prec, style in (("fp32", "-"), (lead["precision"] if lead else None, "--")):
            if prec is None:
                continue
            pts = sorted((b, r["images_per_s"], record_uncertainty(data, model, d, r))
                         for (p, b), r in recs.items() if p == prec)
            if pts:
                drawn = True
                shown += [r for (p, _), r in recs.items() if p == prec]
                xs, ys, us = zip(*pts)
                batches.update(xs)
                ax.plot(xs, ys, style, marker="o", color=d.colour, label=f"{d.label} — {P(prec)}")
                ax.fill_between(xs, [y / (1 + u) for y, u in zip(ys, us)],
                                [y * (1 + u) for y, u in zip(ys, us)], color=d.colour, alpha=0.15,
                                linewidth=0)
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
    ax.set_ylabel("images/s (model sum, log scale)")
    ax.set_title("Model throughput against batch size, per device (forward)")
    ax.legend(handles=ax.get_legend_handles_labels()[0] + status_legend_handles(statuses),
              loc="center left", bbox_to_anchor=(1.01, 0.5))
    return charts.embed(fig, f"{model}: images/s against batch per device",
                        "Images per second from the model sum ("
                        + "; ".join(data.model_sum_labels()) + "). "
                        "Solid: FP32; dashed: the device's fastest other precision; the shading "
                        "around a line is the sum's uncertainty. Markers at "
                        "the bottom: batches that were not measured (out of memory, unsupported) "
                        "or failed validation." + (" " + substitution_note(shown)).rstrip())
