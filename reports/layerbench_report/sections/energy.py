"""Section: the GPU points' clocks, board power and work per joule, from NVML's readings around
their samples (the point's "telemetry"); points a power or thermal cap throttled are marked."""
from __future__ import annotations

from layerbench_report import results_file

from layerbench_report.charts import plt
from layerbench_report.markup import P, esc, fmt_ms, fmt_rate, note, table

COMPUTE_KINDS = ("conv", "linear", "bmm")


def telemetry_points(data, model):
    """{device: [point]} of the model's points measured ok with telemetry (a GPU's, or any
    device whose backend reads its counters), in file order."""
    out = {}
    for d, p in data.points:
        if (p["model"] == model and p["status"] == "ok"
                and isinstance(p.get("telemetry"), dict)):
            out.setdefault(d, []).append(p)
    return out


def mhz_text(median, least):
    if median is None:
        return None
    return f"{median:.0f}" + (f" (min {least:.0f})" if least is not None and least < median else "")


def throttle_text(t) -> str:
    """"kept throttled" when --discard-throttled could not avoid it, else how many samples a cap
    throttled and the clock-event reasons seen."""
    reasons = ", ".join(t.get("clock_event_reasons") or [])
    count = int(t.get("throttled_samples") or 0)
    if t.get("throttled"):
        text = "kept throttled"
    elif count:
        text = f"throttled {count} of {int(t.get('samples') or 0)}"
    else:
        text = "no"
    return text + (f" ({reasons})" if reasons else "")


def point_row(p, with_gb):
    t = p["telemetry"]
    power = t.get("power_median_w")
    row = [p["op"], results_file.pass_name(p["pass"]), P(p["precision"]), p["batch"],
           fmt_ms(results_file.median_ms(p)), fmt_rate(p.get("tflops")),
           mhz_text(t.get("sm_clock_median_mhz"), t.get("sm_clock_min_mhz")),
           mhz_text(t.get("memory_clock_median_mhz"), None),
           None if power is None else f"{power:.0f}",
           None if t.get("gflop_per_joule") is None else f"{t['gflop_per_joule']:.3g}"]
    if with_gb:
        row.append(None if t.get("gb_per_joule") is None else f"{t['gb_per_joule']:.3g}")
    method = {"energy_counter": "counter", "power_integrated": "power × time"}
    row += [method.get(t.get("energy_method"), "absent"), throttle_text(t)]
    return row


def layer_sum_per_joule(points, precision, batch):
    """GFLOP per joule of the compute points at (precision, batch, forward): the layer sum's
    work over its energy, Σ count × gflop / Σ count × joules_per_run; None when any lacks one."""
    mine = [p for p in points if p["precision"] == precision and p["batch"] == batch
            and p["pass"] == "fwd" and p.get("kind") in COMPUTE_KINDS]
    if not mine or any(p["telemetry"].get("joules_per_run") is None for p in mine):
        return None
    work = sum(p["count"] * p["gflop"] for p in mine)
    return work / sum(p["count"] * p["telemetry"]["joules_per_run"] for p in mine)


def per_joule_chart(charts, model, by_device):
    devices = list(by_device)
    groups = []
    for prec in results_file.PRECISIONS:
        shared = set.intersection(*[{p["batch"] for p in by_device[d] if p["precision"] == prec}
                                    for d in devices])
        values = {d: layer_sum_per_joule(by_device[d], prec, max(shared)) for d in devices} \
            if shared else {}
        if values and all(v is not None for v in values.values()):
            groups.append((prec, max(shared), values))
    if not groups:
        return note("No precision and batch that every GPU measured with an energy figure.")
    fig, ax = plt.subplots(figsize=(11, 4))
    width = 0.8 / len(devices)
    for i, d in enumerate(devices):
        xs = [j + (i - (len(devices) - 1) / 2) * width for j in range(len(groups))]
        ax.bar(xs, [g[2][d] for g in groups], width=width * 0.92, color=d.colour, label=d.label)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels([f"{P(prec)}\nbatch {b}" for prec, b, _ in groups])
    ax.set_ylabel("GFLOP per joule (layer sum, forward)")
    ax.grid(axis="x", visible=False)
    ax.legend(loc="upper left")
    fig.tight_layout()
    return charts.embed(fig, f"{model}: GPU vs GPU work per joule",
                        "Each group: one precision at the largest batch every GPU measured; a bar "
                        "is the forward layer sum's work over its energy (Σ count × GFLOP / Σ "
                        "count × joules per run, a run's joules being the mean power over its "
                        "samples' NVML windows times its median time).")


def render(data, model, charts) -> str:
    by_device = telemetry_points(data, model)
    if not by_device:
        return note("No GPU point with NVML telemetry (clocks, power, energy) for this model in "
                    "these files; files from before it lack it.")
    parts = [per_joule_chart(charts, model, by_device)] if len(by_device) > 1 else []
    for device, points in by_device.items():
        with_gb = any(p.get("kind") not in COMPUTE_KINDS for p in points)
        parts.append(f"<h4>{esc(device.label)}</h4>")
        headers = ["op", "pass", "precision", "batch", "median ms", "TFLOP/s", "SM MHz",
                   "memory MHz", "board W", "GFLOP/J"] + (["GB/J"] if with_gb else []) + \
            ["energy from", "throttled"]
        parts.append(table(headers, [point_row(p, with_gb) for p in points]))
    parts.append(note("Clocks and board power are NVML's readings just before each sample was "
                      "enqueued and just after it finished (median; min where lower); a point "
                      "is throttled where a power or thermal cap held the clock during a "
                      "sample. Per joule: the point's work (or bytes) over one run's energy."))
    return "".join(parts)
