"""Section: clocks, board power and work per joule: each GPU point's from NVML's readings around
its samples, each CPU point's energy where RAPL gave it (the point's "telemetry"), and the model
sums' images per joule; points a power or thermal cap throttled are marked."""
from __future__ import annotations

from layerbench_report import results_file

from layerbench_report.charts import plt
from layerbench_report.markup import P, esc, fmt_ms, fmt_rate, note, table
from layerbench_report.op_kinds import COMPUTE_KINDS


def telemetry_points(data, model):
    """{device: [point]} of the model's points measured ok with telemetry (NVML on a GPU, RAPL on
    a CPU), in file order."""
    out = {}
    for d, p in data.points:
        if p["model"] == model and p["status"] == "ok" and isinstance(p.get("telemetry"), dict):
            out.setdefault(d, []).append(p)
    return out


def energy_absent(device):
    """Why the file says this CPU has no energy figures (context.devices[].energy.absent), or
    None."""
    energy = device.info.get("energy")
    why = energy.get("absent") if isinstance(energy, dict) else None
    return why if isinstance(why, str) and why else None


def mhz_text(median, least):
    if median is None:
        return None
    return f"{median:.0f}" + (f" (min {least:.0f})" if least is not None and least < median else "")


def throttle_text(t) -> str:
    """How many of the point's kept samples a cap throttled (re-taken ones are not kept), and the
    clock-event reasons seen; "no" where none was."""
    reasons = ", ".join(t.get("clock_event_reasons") or [])
    retaken = int(t.get("retaken_samples") or 0)
    kept = int(t.get("throttled_samples") or 0) - retaken
    if kept > 0 or t.get("throttled"):
        text = f"throttled {max(kept, 0)} of {int(t.get('samples') or 0)}"
    elif retaken:
        text = f"no ({retaken} throttled re-taken)"
    else:
        text = "no"
    return text + (f" ({reasons})" if reasons else "")


def per_joule(value):
    return None if value is None else f"{value:.3g}"


# "power_integrated" is in files from before the load window (power integrated over the samples).
ENERGY_METHODS = {"energy_counter": "counter", "power_readings": "power × time",
                  "power_integrated": "power × time (samples)", "rapl_packages": "RAPL packages"}


def point_headers(gpu, with_gb):
    """A GPU point's row has its clocks, board power and throttling; a CPU point's (RAPL: energy
    only) has neither."""
    return (["op", "pass", "precision", "batch", "median ms", "TFLOP/s"] +
            (["SM MHz", "memory MHz", "board W"] if gpu else []) + ["GFLOP/J"] +
            (["GB/J"] if with_gb else []) + ["energy from"] + (["throttled"] if gpu else []))


def point_row(p, with_gb, gpu=True):
    t = p["telemetry"]
    power = t.get("power_median_w")
    row = [p["op"], results_file.pass_name(p["pass"]), P(p["precision"]), p["batch"],
           fmt_ms(results_file.median_ms(p)), fmt_rate(p.get("tflops"))]
    if gpu:
        row += [mhz_text(t.get("sm_clock_median_mhz"), t.get("sm_clock_min_mhz")),
                mhz_text(t.get("memory_clock_median_mhz"), None),
                None if power is None else f"{power:.0f}"]
    row.append(per_joule(t.get("gflop_per_joule")))
    if with_gb:
        row.append(per_joule(t.get("gb_per_joule")))
    row.append(ENERGY_METHODS.get(t.get("energy_method"), "absent"))
    return row + ([throttle_text(t)] if gpu else [])


def sums_table(data, model):
    """The model sums with an energy figure: images/s beside images per joule, and how many of
    the summed points a cap kept throttled."""
    rows = []
    for d, r in data.records:
        if r["model"] == model and r.get("images_per_joule") is not None:
            rows.append([d.label, results_file.pass_name(r["pass"]), P(r["precision"]),
                         r["batch"], fmt_rate(r.get("images_per_s")),
                         per_joule(r["images_per_joule"]), per_joule(r.get("energy_j")),
                         r.get("throttled_points") or 0])
    if not rows:
        return ""
    return ("<h4>Model sums per joule</h4>" +
            table(["device", "pass", "precision", "batch", "images/s", "images/J",
                   "J per batch", "throttled points"], rows))


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


def note_number(notes, key):
    """A number a point's notes hold as text, or None."""
    try:
        return float(notes[key])
    except (KeyError, TypeError, ValueError):
        return None


def sustained_table(by_device):
    """GEMM points run with --sustained on: burst and sustained TFLOP/s beside the device's peak
    for the precision (datasheet on a GPU), with the settled window's power and clock."""
    rows = []
    for d, points in by_device.items():
        for p in points:
            notes = p.get("notes") if isinstance(p.get("notes"), dict) else {}
            if not isinstance(notes.get("sustained"), str):
                continue
            peak = d.peak(p["precision"])
            rows.append([d.label, p["op"], P(p["precision"]), p["batch"],
                         fmt_rate(note_number(notes, "burst_tflops")),
                         fmt_rate(note_number(notes, "sustained_tflops")),
                         fmt_rate(peak[0]) if peak else None,
                         mhz_text(note_number(notes, "sustained_sm_mhz"), None),
                         mhz_text(note_number(notes, "sustained_power_w"), None),
                         notes["sustained"]])
    if not rows:
        return ""
    return ("<h4>Burst and sustained</h4>" +
            table(["device", "op", "precision", "batch", "burst TFLOP/s", "sustained TFLOP/s",
                   "peak TFLOP/s", "sustained SM MHz", "sustained W", "settling"], rows) +
            note("run --sustained on: the GEMM ran back to back until board power and SM clock "
                 "settled; burst is its first 5 s, sustained its last 5 s. The peak is the "
                 "device's for the precision (a GPU's from its datasheet)."))


def render(data, model, charts) -> str:
    by_device = telemetry_points(data, model)
    absent = "".join(note(f"{d.label}: no CPU energy, so no per-joule figures: {why}.")
                     for d in data.devices_for(model)
                     if d.kind == "cpu" and d not in by_device and (why := energy_absent(d)))
    if not by_device:
        return note("No point with energy figures (NVML on a GPU, RAPL on a CPU) for this model "
                    "in these files; files from before them lack them.") + absent
    gpus = {d: points for d, points in by_device.items() if d.kind == "gpu"}
    parts = [per_joule_chart(charts, model, gpus)] if len(gpus) > 1 else []
    parts.append(sums_table(data, model))
    parts.append(sustained_table(gpus))
    for device, points in by_device.items():
        gpu = device.kind == "gpu"
        with_gb = any(p.get("kind") not in COMPUTE_KINDS for p in points)
        parts.append(f"<h4>{esc(device.label)}</h4>")
        parts.append(table(point_headers(gpu, with_gb),
                           [point_row(p, with_gb, gpu) for p in points]))
    parts.append(absent)
    parts.append(note("Clocks and board power are NVML's readings between the samples (median; "
                      "min where lower); a sample is throttled where a power or thermal cap "
                      "held the clock around it. A GPU point's energy is the board's power "
                      "with the operation run back to back after the samples (NVML's energy "
                      "counter, or its power readings) times one run's time. A CPU point's "
                      "energy is its RAPL packages' over its sampling, the whole socket's. "
                      "Per joule: the point's work (or bytes) over one run's "
                      "energy; a model sum's images over the energy of its batch, Σ count × "
                      "joules per run."))
    return "".join(parts)
