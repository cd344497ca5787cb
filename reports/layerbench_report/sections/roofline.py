"""Section: roofline."""
from __future__ import annotations

import statistics

from layerbench_report import results_file
from matplotlib.lines import Line2D

from layerbench_report.charts import legend_below, legend_order, log_scale, panel_grid
from layerbench_report.data import device_batch
from layerbench_report.markup import P, esc, table
from layerbench_report.style import PASS_MARKERS, PRECISION_COLOURS


def roof(device, precision, intensity):
    """(ceiling TFLOP/s at this intensity or None, bound: 'memory'/'compute'/why unknown)."""
    peak, bw = device.peak(precision), device.bandwidth()
    if peak is None:
        return None, f"unknown: no {P(precision)} peak"
    if bw is None:
        return peak[0], "unknown: no memory ceiling"
    memory_roof = bw[0] * intensity / 1e3  # GB/s x FLOP/byte = GFLOP/s; /1e3 -> TFLOP/s
    return (memory_roof, "memory") if memory_roof < peak[0] else (peak[0], "compute")


def render(data, model, charts) -> str:
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
        precs = [q for q in results_file.PRECISIONS if any(p["precision"] == q for p in pts)]
        handles += draw_device(ax, d, pts, precs, unknown)
        device_rows, device_summary = ceiling_rows(d, pts, precs,
                                                   device_batch(data, model, d))
        rows += device_rows
        summary += device_summary
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


def draw_device(ax, d, pts, precs, unknown) -> list:
    """One device's roofline panel: its compute peaks, memory ceiling and points; what the file
    lacks to draw a ceiling goes to `unknown`. Returns the legend handles."""
    xs = [p["intensity"] for p in pts]
    lo, hi = min(xs) / 2, max(xs) * 2
    bw = d.bandwidth()
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
    handles = [Line2D([], [], color=PRECISION_COLOURS[q], marker="o", linestyle="none",
                      label=P(q)) for q in precs]
    handles += [Line2D([], [], color="#555", marker=m, linestyle="none",
                       label=results_file.pass_name(pa)) for pa, m in PASS_MARKERS.items()
                if any(p["pass"] == pa for p in pts)]
    return handles


def ceiling_rows(d, pts, precs, batch) -> tuple:
    """(rows, summary) of one device's forward points at `batch` against their ceilings: a row
    per layer, a summary line per precision (how many layers each bound, the median share)."""
    rows, summary = [], []
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
    return rows, summary
