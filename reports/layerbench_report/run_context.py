"""The context and settings of a layerbench results file, checked as results_file.check reads
them (reports/results-schema.md): each field's type and range where the report prints or uses it.
"""
from __future__ import annotations

from layerbench_report.backend_roles import check_backend_roles, device_kinds
from layerbench_report.checked_json import Fields, quoted


def check_context(context: Fields) -> dict:
    """A results file's context: the backends' roles, the devices, the run's facts, libraries,
    machine state and doctor findings. Returns {id: device object}."""
    check_backend_roles(context)
    devices = _check_devices(context)
    _check_run_facts(context)
    check_scheduler(context)
    libraries = context.object("libraries", optional=False, nullable=False)
    for name in libraries.obj:
        libraries.text(name, nullable=True)
    _check_machine_state(context.object("machine_state"))
    doctor = context.object("doctor")
    if doctor:
        doctor.text("verdict", optional=True, nullable=True)
        doctor.text("python", optional=True, nullable=True)
        doctor.text("python_probe_error", optional=True, nullable=True)
        for framework in doctor.objects("frameworks", optional=True):
            for key in ("display", "version", "package"):
                framework.text(key)
            framework.text("verdict", nullable=True)
            framework.get("gpu_usable", bool)
    return devices


def _check_devices(context: Fields) -> dict:
    devices = {}
    kinds = device_kinds(context.obj)
    for d in context.objects("devices"):
        dev_id = d.text("id")
        if not dev_id:
            d.fail("id", "empty (a device needs an id its points can name)")
        if dev_id in devices:
            d.fail("id", f"{quoted(dev_id)} is used by another device too")
        d.text("kind", kinds)
        d.text("name")
        d.object("facts")
        peaks = d.object("peaks")
        for precision in peaks.obj if peaks else ():
            peak = peaks.object(precision, nullable=False)
            peak.number("tflops", positive=True, optional=True, nullable=True)
            peak.text("source", optional=True)
        energy = d.object("energy")
        if energy:
            energy.text("source", optional=True)
            energy.text("absent", optional=True)
            energy.array_of("packages", str)
        bandwidth = d.object("memory_bandwidth_gbps")
        if bandwidth:
            bandwidth.number("value", positive=True, optional=True, nullable=True)
            bandwidth.text("source", optional=True)
        devices[dev_id] = d.obj
    return devices


# The placement of a run or a doctor report under Slurm (harness/machine/slurm_placement.cpp).
SCHEDULER_FIELDS = ("name", "job_id", "array_job_id", "array_task_id", "node", "partition",
                    "target")


def check_scheduler(parent: Fields):
    """The "scheduler" object of a results file's context or of a doctor report: null, or its
    fields strings or null. The Slurm fleet matches files to targets and jobs by them."""
    scheduler = parent.object("scheduler")
    for key in SCHEDULER_FIELDS if scheduler else ():
        scheduler.text(key, optional=True, nullable=True)


def _check_run_facts(context: Fields):
    """The context's facts of the run that the report prints."""
    for key in ("host", "os", "command_line", "cache", "layerbench_version", "git_revision",
                "build_type", "compiler", "start_time", "end_time"):
        context.text(key, optional=True, nullable=True)
    context.get("seed", int, optional=True)
    for key in ("noise_target", "max_time_per_point_s"):
        context.number(key, optional=True, nullable=True)
    split = context.object("time_split")
    for key in split.obj if split else ():
        if key == "rounds":
            split.tally(key)
        else:
            split.number(key)


def canary(context: dict) -> dict:
    """The run's canary record (context.machine_state.canary, checked by _check_machine_state);
    {} in a run without one (GPU points only, a file from before it)."""
    return (context.get("machine_state") or {}).get("canary") or {}


def _check_machine_state(state):
    """context.machine_state: the machine as the run found and left it; null where the run could
    not read it, absent in files from before it."""
    if state is None:
        return
    state.count("processors", optional=True, nullable=True)
    state.count("threads", optional=True, nullable=True)
    state.text("cpu_governor", optional=True, nullable=True)
    state.text("transparent_huge_pages", optional=True, nullable=True)
    record = state.object("canary", nullable=False)
    if record is not None:
        for key in ("readings", "slow_readings", "memory_slow_readings"):
            record.tally(key)
        for key in ("slow_share", "slowest", "memory_slowest", "slow_above"):
            record.number(key, optional=True)
        for key in ("compute_unit_ms", "memory_unit_ms"):
            record.number(key, positive=True, optional=True)
    for when in ("start", "end"):
        reading = state.object(when)
        if reading is None:
            continue
        reading.tally("other_runnable", nullable=True)
        reading.number("load_average_1m", optional=True, nullable=True)
        reading.flag("cpu_busy", nullable=True)
        gpus = reading.object("gpus")
        for gpu in gpus.obj if gpus else ():
            record = gpus.object(gpu, optional=False, nullable=False)
            record.text("error", optional=True)
            for process in record.objects("other_processes", optional=True):
                process.get("pid", int, optional=True, nullable=True)
                process.number("used_bytes", optional=True, nullable=True)


# The run's settings the readers check by kind (reports/results-schema.md, "settings"); the
# others (the seed, the model files) they do not read.
SETTINGS_TEXTS = ("suite", "device", "precisions", "batches", "pass", "cache", "layout",
                  "cudnn_api", "timing", "sustained", "cpu_roofs", "backends", "algo",
                  "autotune_workspace")
SETTINGS_NUMBERS = ("max_time_per_point_s", "min_time_per_point_s", "noise_target",
                    "memory_limit_gb", "workspace_mb")


def check_settings(settings: Fields):
    settings.tally("rounds")
    settings.tally("threads")
    settings.tally("profile_runs")
    settings.flag("discard_throttled")
    for key in SETTINGS_TEXTS:
        settings.text(key, optional=True)
    for key in SETTINGS_NUMBERS:
        settings.number(key, optional=True, nullable=True)
    for key in ("models", "workloads"):
        settings.array_of(key, str)
    settings.object("model_files")
