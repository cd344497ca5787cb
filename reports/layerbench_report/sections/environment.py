"""The files' environment: devices, libraries, doctor findings."""
from __future__ import annotations

from layerbench_report.markup import P, note, table


def framework_rows(doctor) -> list:
    """The user's TensorFlow, PyTorch and JAX as the doctor judged them during the run: whether
    they could have used the GPU that was measured."""
    python = doctor.get("python")
    if doctor.get("python_probe_error"):
        return [["frameworks", f"not known: {doctor['python_probe_error']}"]]
    frameworks = doctor.get("frameworks") or []
    if python and not frameworks:
        return [["frameworks", f"none of TensorFlow, PyTorch, JAX installed in {python}"]]
    return [[f"{f['display']} ({python})",
             f"{f['display']} {f['version']}, package {f['package']}: "
             f"{'GPU usable' if f['gpu_usable'] else 'CPU only'} — {f.get('verdict')}"]
            for f in frameworks]


def section_environment(data) -> str:
    parts = [note(" ".join(data.merge_sentences()))] if data.merge_sentences() else []
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
        rows += framework_rows(doctor)
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
