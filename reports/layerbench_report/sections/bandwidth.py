"""Section: the memory-bound layers against the memory bandwidth. Their work is moving bytes
(FLOPs 0, not defined), so their roof is the device's bandwidth, not a point on the roofline."""
from __future__ import annotations

from layerbench_report import results_file
import matplotlib.pyplot as plt

from layerbench_report.markup import P, esc, fmt_ms, noise_text, note, table
from layerbench_report.op_kinds import COMPUTE_KINDS


def memory_bound_points(data, model):
    """{device: [point]} of the model's memory-bound points measured ok, in file order."""
    out = {}
    for d, p in data.points:
        if p["model"] == model and p.get("kind") not in COMPUTE_KINDS and p["status"] == "ok":
            out.setdefault(d, []).append(p)
    return out


def point_label(p) -> str:
    return f"{p['op']} · {results_file.pass_name(p['pass'])} · {P(p['precision'])} · b{p['batch']}"


def fraction_of(p, bandwidth):
    return p["gbps"] / bandwidth[0] if bandwidth and p.get("gbps") else None


def bandwidth_chart(charts, model, device, points, bandwidth):
    fig, ax = plt.subplots(figsize=(11, 1.4 + 0.24 * len(points)))
    ax.barh(range(len(points)), [p.get("gbps") or 0 for p in points], color=device.colour)
    ax.set_yticks(range(len(points)))
    ax.set_yticklabels([point_label(p) for p in points], fontsize=7)
    ax.set_ylim(len(points) - 0.5, -0.5)
    ax.set_xlabel("achieved GB/s (bytes read and written once / median time)")
    if bandwidth:
        ax.axvline(bandwidth[0], color="black", linestyle="--")
        ax.set_title(f"dashed: memory bandwidth {bandwidth[0]:.3g} GB/s ({bandwidth[1]})",
                     fontsize=8, loc="left")
    ax.grid(axis="y", visible=False)
    fig.tight_layout()
    return charts.embed(fig, f"{model}: memory-bound layers on {device.label}",
                        "Each bar is one memory-bound point's achieved bandwidth: the bytes its "
                        "tensors must move (each read and written once) over its median time. "
                        "The dashed line is the device's memory bandwidth (measured on a CPU by "
                        "a STREAM triad with the run's threads; a GPU's from the datasheet). "
                        "A bar beyond it ran from caches.")


def render(data, model, charts) -> str:
    by_device = memory_bound_points(data, model)
    if not by_device:
        return note("No memory-bound points (normalisation, activations, adds, pooling, softmax) "
                    "measured ok for this model in these files.")
    parts = []
    for device, points in by_device.items():
        bandwidth = device.bandwidth()
        parts.append(f"<h4>{esc(device.label)}</h4>")
        parts.append(bandwidth_chart(charts, model, device, points, bandwidth))
        rows = [[p["op"], p.get("kind"), results_file.pass_name(p["pass"]), P(p["precision"]),
                 p["batch"],
                 f"{p['bytes'] / 1e6:.3g}", fmt_ms(results_file.median_ms(p)),
                 noise_text(p),
                 f"{p['gbps']:.3g}" if p.get("gbps") else None,
                 f"{fraction_of(p, bandwidth):.0%}" if fraction_of(p, bandwidth) else None]
                for p in points]
        parts.append(table(["op", "kind", "pass", "precision", "batch", "MB moved", "median ms",
                            "noise, rounds", "GB/s", "of bandwidth"], rows))
        if not bandwidth:
            parts.append(note(f"{device.label}: memory bandwidth unknown, so no fraction is "
                              "given."))
    return "".join(parts)
