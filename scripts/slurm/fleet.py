#!/usr/bin/env python3
"""layerbench on several kinds of cluster node through Slurm, then one report of them all.

    fleet.sh --targets "partition=a100;partition=h100,gres=gpu:h100:1" --suite standard --out DIR
             [--resume] [--dry-run] [--binary PATH] [--time-margin F] [--report-options OPTS]
             [-- MORE `layerbench run` FLAGS]

A target is a comma-separated list of sbatch options (key=value, as `sbatch --key=value`); targets
are separated by ';'. Each target becomes one exclusive one-node job running `layerbench doctor
--json` and `layerbench run` into DIR/results/; one report job (afterany: every target job) turns
DIR/results/ into DIR/report/. Slurm applies one resource request to every task of a job array,
and targets differ in exactly that (partition, gres), so each target is its own job.

Standard library only: it runs on login and compute nodes alike. The subcommands `job-resume-file`
and `job-report` are what the generated job scripts call; they are not meant to be typed.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import re
import shlex
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from layerbench_report import checked_json, results_file, run_context
from layerbench_report.command_line import (BadInput, Parser, check_folder_path, number,
                                            output_folder, pass_bytes_through, path_text)

ROOT = Path(__file__).resolve().parents[2]
# The job scripts run fleet.py with a Python that may lack the report package (the system's, or
# one whose environment sbatch did not pass on): they take it from this tree.
PYTHONPATH_LINE = (f'export PYTHONPATH={shlex.quote(str(ROOT / "reports"))}'
                   '${PYTHONPATH:+:$PYTHONPATH}')
NOT_MEASURED_SCHEMA = "layerbench-not-measured/1"

# Options the fleet sets itself in every target's job; a target giving them would fight it.
RESERVED_OPTIONS = {"job-name", "time", "exclusive", "output", "error", "dependency", "array",
                    "nodes", "ntasks", "wrap", "parsable", "chdir", "export", "hold"}
# `layerbench run` flags the fleet sets itself (file names, resumption, planning).
RESERVED_RUN_FLAGS = {"-o", "--output", "--resume", "--force", "--dry-run", "--assume-usable-gpu",
                      "--suite"}

# Time limits: the plan's estimate x a factor (--time-margin) + set-up per point + start-up; the
# set-up per point rounds up a measurement, the factor and start-up are chosen margins
# (docs/measuring.md, "Time estimates").
DEFAULT_TIME_MARGIN = 1.5
SETUP_S_PER_POINT = 2
STARTUP_ALLOWANCE_S = 300
REPORT_TIME_LIMIT_MIN = 30  # chosen: report.py over a fleet's files; --report-options time=...


class FleetError(BadInput):
    """Bad input: one line naming the flag, file or field; exit code 2."""


# ----------------------------------------------------------------------------------------------
# Targets

@dataclass(frozen=True)
class Target:
    text: str       # canonical "key=value,key=value": recorded as the results' provenance
    options: tuple  # ((key, value), ...) in the order given
    slug: str       # file-name part: the values, e.g. "h100_gpu-h100-1"

    def option(self, key):
        return next((v for k, v in self.options if k == key), None)


OPTION_KEY = re.compile(r"^[a-z][a-z0-9-]*$")

# The values sbatch checks itself, in the forms `man sbatch` gives: checked here so that no job
# is submitted before one of them is refused. Other options are Slurm's to judge.
SLURM_TIME = re.compile(r"^(\d+|\d+:\d+|\d+:\d+:\d+|\d+-\d+|\d+-\d+:\d+|\d+-\d+:\d+:\d+"
                        r"|infinite|unlimited)$", re.IGNORECASE)
SLURM_SIZE = re.compile(r"^\d+[KMGT]?$", re.IGNORECASE)
SLURM_COUNT = re.compile(r"^[1-9]\d*$")
VALUE_FORMATS = {
    "time": (SLURM_TIME, "a time limit: minutes, minutes:seconds, hours:minutes:seconds, "
                         "days-hours, days-hours:minutes or days-hours:minutes:seconds"),
    "mem": (SLURM_SIZE, "a size in megabytes, or with a K, M, G or T suffix"),
    "cpus-per-task": (SLURM_COUNT, "a positive integer"),
}
VALUE_FORMATS.update({"time-min": VALUE_FORMATS["time"], "mem-per-cpu": VALUE_FORMATS["mem"],
                      "mem-per-gpu": VALUE_FORMATS["mem"]})
VALUE_FORMATS.update({key: VALUE_FORMATS["cpus-per-task"] for key in (
    "cpus-per-gpu", "mincpus", "ntasks-per-node", "ntasks-per-core", "ntasks-per-socket",
    "threads-per-core", "cores-per-socket", "sockets-per-node")})


def slug_of(options) -> str:
    return "_".join(re.sub(r"[^A-Za-z0-9.]+", "-", v).strip("-") or "x" for _, v in options)


def parse_options(text: str, flag: str, reserved=RESERVED_OPTIONS) -> tuple:
    """'partition=h100,gres=gpu:h100:1' -> (('partition', 'h100'), ('gres', 'gpu:h100:1'))."""
    options = []
    for item in text.split(","):
        item = item.strip()
        key, sep, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not item or not sep or not value:
            raise FleetError(f"{flag}: '{item}' in '{text}' is not key=value (an sbatch option "
                             "without its leading --)")
        if not OPTION_KEY.match(key):
            raise FleetError(f"{flag}: '{key}' in '{text}' is not an sbatch long option name")
        if key in reserved:
            raise FleetError(f"{flag}: '{key}' in '{text}' is set by the fleet itself")
        if any(k == key for k, _ in options):
            raise FleetError(f"{flag}: '{key}' given twice in '{text}'")
        if any(c.isspace() or c in "'\"" for c in value):
            raise FleetError(f"{flag}: the value of '{key}' in '{text}' contains a space or quote")
        pattern, words = VALUE_FORMATS.get(key, (None, None))
        if pattern and not pattern.match(value):
            raise FleetError(f"{flag}: {key}={value} in '{text}': sbatch takes {words}")
        options.append((key, value))
    return tuple(options)


# The report job's files (jobs/report.sbatch, logs/report-<job>.out): no target may take its name.
REPORT_SLUG = "report"
# What a job adds to its target's file-name part: "-<node>-<job id>" and the longest suffix
# (".doctor.json", ".json.journal"). Node names are host names (at most 64 bytes, POSIX
# HOST_NAME_MAX); Slurm job ids, with an array task's, stay within 24 digits.
NAME_ADDED_BY_JOB = len("-") + 64 + len("-") + 24 + len(".json.journal")


def name_max(folder: Path) -> int:
    """The longest file name the file system of FOLDER (or its nearest existing parent) takes."""
    for part in [folder, *folder.parents]:
        if part.is_dir():
            try:
                return os.pathconf(part, "PC_NAME_MAX")
            except (OSError, ValueError):
                break
    return 255  # the limit of the common Linux file systems (ext4, XFS, Btrfs)


def parse_targets(text: str, name_limit: int = 255) -> list:
    """The targets of --targets; refused when two would write the same files (their file-name
    parts, after the characters a file name cannot hold are replaced, are equal, or one is the
    report's) or a file name would exceed name_limit bytes."""
    targets = []
    for part in text.split(";"):
        if not part.strip():
            raise FleetError(f"--targets: empty target in '{text}'")
        options = parse_options(part, "--targets")
        target = Target(",".join(f"{k}={v}" for k, v in options), options, slug_of(options))
        clash = next((t for t in targets if t.slug == target.slug), None)
        if clash:
            raise FleetError(f"--targets: '{clash.text}' and '{target.text}' would share the file "
                             f"name '{target.slug}'; make their values differ")
        if target.slug == REPORT_SLUG:
            raise FleetError(f"--targets: '{target.text}' would share the file name "
                             f"'{REPORT_SLUG}' of the report job; make its values differ")
        room = name_limit - NAME_ADDED_BY_JOB
        if len(target.slug.encode()) > room:
            raise FleetError(f"--targets: '{target.text[:60]}...' makes a file-name part of "
                             f"{len(target.slug.encode())} bytes; this file system takes "
                             f"{name_limit} per name, which leaves {room} for it")
        targets.append(target)
    return targets


def gpu_count(target: Target):
    """GPUs a target asks for per node (gres=gpu[:type][:N], gpus=/gpus-per-node=[type:]N);
    None when it asks for none."""
    for item in (target.option("gres") or "").split("+"):  # gres lists may be joined with '+'
        fields = item.split(":")
        if fields[0] == "gpu":
            return int(fields[-1]) if len(fields) > 1 and fields[-1].isdigit() else 1
    for key in ("gpus", "gpus-per-node"):
        value = target.option(key)
        if value:
            last = value.split(":")[-1]
            return int(last) if last.isdigit() else 1
    return None


# ----------------------------------------------------------------------------------------------
# Time limits from the plan's own estimate (`layerbench run --dry-run`)

def run_device(run_flags) -> str:
    """The --device the run flags give (layerbench's default: auto)."""
    for i, flag in enumerate(run_flags):
        if flag == "--device" and i + 1 < len(run_flags):
            return run_flags[i + 1]
        if flag.startswith("--device="):
            return flag.split("=", 1)[1]
    return "auto"


def wants_gpu(device: str) -> bool:
    return device != "cpu"


def node_plan(dry_run: dict, device: str, gpus) -> tuple:
    """(points, estimated seconds) of a node: the dry run plans one GPU (gpu:0) for --device
    auto/all, so every GPU the target gets adds that GPU's plan again (points run one after
    another)."""
    points, seconds = 0, 0.0
    for dev_id, e in dry_run["devices"].items():
        copies = (gpus or 1) if dev_id.startswith("gpu") and device in ("auto", "all") else 1
        points += copies * e["points"]
        seconds += copies * e["estimated_seconds"]
    return points, seconds


def check_dry_run(binary: Path, doc) -> dict:
    """The plan `run --dry-run` printed, checked: {"devices": {id: {"points": N,
    "estimated_seconds": S}}}, every count a non-negative integer, every time finite and >= 0,
    and at least one point in all (a plan of none measures nothing: a --benchmark_filter
    that matches no point, say). Raises FleetError."""
    where = f"--binary: {binary} run --dry-run printed"
    if not isinstance(doc, dict) or not isinstance(doc.get("devices"), dict):
        raise FleetError(f"{where} {checked_json.json_words(doc)}, not a plan with \"devices\" "
                         "(a layerbench of another version? rebuild it)")
    for dev_id, e in doc["devices"].items():
        points = e.get("points") if isinstance(e, dict) else None
        seconds = e.get("estimated_seconds") if isinstance(e, dict) else None
        if not isinstance(points, int) or isinstance(points, bool) or not 0 <= points < 2**53:
            raise FleetError(f"{where} devices.{dev_id!r}.points {json.dumps(points)}: expected "
                             "a count of points")
        if (not isinstance(seconds, (int, float)) or isinstance(seconds, bool)
                or not 0 <= seconds < math.inf):
            raise FleetError(f"{where} devices.{dev_id!r}.estimated_seconds "
                             f"{json.dumps(seconds)}: expected a finite number of seconds >= 0")
    if sum(e["points"] for e in doc["devices"].values()) == 0:
        raise FleetError("layerbench run flags: the plan has no point to measure (a "
                         "--benchmark_filter or --model that matches nothing?); no job written")
    return doc


# Slurm keeps a time limit in whole minutes in 32 bits; its two largest values mean "infinite"
# and "not set" (INFINITE and NO_VAL in slurm.h).
SLURM_MAX_MINUTES = 0xFFFFFFFD


def time_limit_minutes(points: int, estimate_s: float, margin: float) -> int:
    """(estimate x margin + points x set-up allowance + start-up allowance), in whole minutes."""
    seconds = estimate_s * margin + points * SETUP_S_PER_POINT + STARTUP_ALLOWANCE_S
    if not seconds / 60 <= SLURM_MAX_MINUTES:
        raise FleetError(f"--time-margin: a time limit of {estimate_s:g} s x {margin:g} + "
                         f"{points} points x {SETUP_S_PER_POINT} s is beyond what Slurm can set "
                         f"({SLURM_MAX_MINUTES} minutes); lower the margin or plan fewer points")
    return max(1, math.ceil(seconds / 60))


def what_failed(proc) -> str:
    """The message of a command that failed: its last line (layerbench's error is one line, after
    any warnings), or how it ended when it printed none."""
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    if not lines:
        ended = (f"was killed by signal {-proc.returncode}" if proc.returncode < 0 else
                 f"exited with code {proc.returncode}")
        return f"{ended} and printed no message"
    return lines[-1]


def dry_run_estimate(binary: Path, run_flags) -> dict:
    # The nodes' GPUs, not this login node's: planned as usable.
    cmd = [str(binary), "run", "--dry-run", "--assume-usable-gpu", *run_flags]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace",
                              timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise FleetError(f"--binary: {binary} run --dry-run failed: {e}") from None
    if proc.returncode != 0 and not proc.stderr.strip():
        # Not layerbench's refusal of a flag, which always names it: a binary that is no
        # layerbench (/bin/false), or one that crashed.
        raise FleetError(f"--binary: {binary} run --dry-run {what_failed(proc)}")
    if proc.returncode != 0:
        raise FleetError(f"layerbench run flags: {what_failed(proc)}")
    try:
        doc = checked_json.loads(proc.stdout)
    except (ValueError, RecursionError):
        raise FleetError(f"--binary: {binary} has no `run --dry-run` (rebuild it)") from None
    return check_dry_run(binary, doc)


# ----------------------------------------------------------------------------------------------
# Job scripts

def sbatch_lines(options) -> list:
    return [f"#SBATCH --{k}={v}" for k, v in options]


def q(x) -> str:
    return shlex.quote(str(x))


def sbatch_output(logs: Path, name: str) -> str:
    """--output's value for the job's log LOGS/NAME-<job id>.out, in double quotes (sbatch reads
    a quoted value with spaces as one), a % of the folder doubled (a lone % starts one of
    sbatch's file-name patterns such as %j)."""
    return '"' + str(logs).replace("%", "%%") + f'/{name}-%j.out"'


def check_out_path(out: Path):
    """--out goes into #SBATCH lines, which have no escape for a line break or a double quote."""
    bad = next((c for c in str(out) if c == '"' or not c.isprintable()), None)
    if bad is not None:
        raise FleetError(f"--out: {str(out)!r} contains {bad!r}, which an #SBATCH line cannot "
                         "hold; choose a folder without it")


def stem_expression(results_dir: Path, slug: str) -> str:
    """The results file's path without .json, evaluated in the job: <slug>-<node>-<job id>."""
    return f'{q(results_dir)}/{q(slug)}-"$SLURMD_NODENAME"-"$SLURM_JOB_ID"'


def job_script(target: Target, *, out: Path, binary: Path, python: str, run_flags,
               minutes: int, points: int, estimate_s: float, margin: float) -> str:
    results = out / "results"
    run = " ".join(q(x) for x in [binary, "run", *run_flags])
    lines = [
        "#!/bin/bash",
        f"# layerbench fleet target {target.text} (scripts/slurm/fleet.py). Time limit: the plan's",
        f"# estimate {estimate_s:.0f} s x {margin} + {points} points x {SETUP_S_PER_POINT} s set-up"
        f" + {STARTUP_ALLOWANCE_S} s start-up.",
        f"#SBATCH --job-name=layerbench-{target.slug}",
        *sbatch_lines(target.options),
        "#SBATCH --exclusive",
        "#SBATCH --nodes=1",
        "#SBATCH --ntasks=1",
        f"#SBATCH --time={minutes}",
        f"#SBATCH --output={sbatch_output(out / 'logs', target.slug)}",
        "set -u",
        PYTHONPATH_LINE,
        f"export LAYERBENCH_FLEET_TARGET={q(target.text)}",
        f"stem={stem_expression(results, target.slug)}",
        "# The doctor's verdict first: a node whose GPU is unusable still leaves its reason.",
        f'{q(binary)} doctor --json > "$stem.doctor.json"',
        "# An unfinished file of this target on this node (an earlier submission, a requeue).",
        f"previous=$({q(python)} {q(Path(__file__).resolve())} job-resume-file "
        f"--results {q(results)} --target {q(target.text)})",
        'if [ -n "$previous" ]; then',
        f'  exec {q(binary)} run --resume "$previous"',
        "fi",
        f'exec {run} -o "$stem.json"',
    ]
    return "\n".join(lines) + "\n"


def report_script(jobs, *, out: Path, python: str, device: str, report_options) -> str:
    """jobs: [(target text, job id)]; the report waits for every one of them to end."""
    options = list(report_options)
    if not any(k == "time" for k, _ in options):
        options.append(("time", str(REPORT_TIME_LIMIT_MIN)))
    dependency = ":".join(job for _, job in jobs)
    job_args = " ".join(f"--job {q(job)} {q(text)}" for text, job in jobs)
    lines = [
        "#!/bin/bash",
        "# layerbench fleet report (scripts/slurm/fleet.py): every file in results/ into report/.",
        "#SBATCH --job-name=layerbench-report",
        *sbatch_lines(options),
        *([f"#SBATCH --dependency=afterany:{dependency}"] if jobs else []),
        "#SBATCH --nodes=1",
        "#SBATCH --ntasks=1",
        f"#SBATCH --output={sbatch_output(out / 'logs', 'report')}",
        "set -u",
        PYTHONPATH_LINE,
        f"exec {q(python)} {q(Path(__file__).resolve())} job-report --out {q(out)} "
        f"--device {q(device)} {job_args}".rstrip(),
    ]
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------------------------
# Results directory

def is_results_name(path: Path) -> bool:
    return path.name.endswith(".json") and not path.name.endswith(".doctor.json")


def load_doctor_report(path: Path) -> dict:
    """A node's `layerbench doctor --json`, strictly: the fields the fleet reads (its placement
    and the diagnosis) have their types checked. Raises checked_json.BadResultsFile."""
    doc = checked_json.read_document(path, "doctor report")
    if not isinstance(doc, dict):
        raise checked_json.BadResultsFile(path, f"not a doctor report: the top level is "
                                                f"{checked_json.json_words(doc)}, not an object")
    top = checked_json.Fields(path, doc, "")
    run_context.check_scheduler(top)
    diagnosis = top.object("diagnosis")
    if diagnosis:
        diagnosis.get("gpu_usable", bool, optional=True)
        diagnosis.text("verdict", optional=True, nullable=True)
    return doc


def load_results_dir(results_dir: Path, warn):
    """(results files, doctor documents) found in DIR/results; unreadable files are warned about."""
    results, doctors = [], []
    for path in sorted(results_dir.glob("*.json")):
        try:
            if is_results_name(path):
                results.append(results_file.load(path))
            else:
                doctors.append(load_doctor_report(path))
        except checked_json.BadResultsFile as e:
            warn(str(e))
    return results, doctors


def scheduler_of(doc: dict) -> dict:
    s = doc.get("scheduler")
    return s if isinstance(s, dict) else {}


def target_of(results: results_file.ResultsFile):
    return scheduler_of(results.context).get("target")


def complete_targets(results) -> set:
    return {target_of(r) for r in results if r.status == "complete" and target_of(r)}


def pick_resume_file(results, target: str, host: str):
    """The newest unfinished results file of `target` measured on `host` (layerbench resumes on
    the same machine only), or None."""
    mine = [r for r in results if r.status != "complete" and target_of(r) == target and
            r.context.get("host") == host]
    return max(mine, key=lambda r: r.path.stat().st_mtime).path if mine else None


def job_state(job_id: str) -> dict:
    """Slurm's record of a job (`scontrol show job -o`): {'JobState': ..., 'Reason': ...}; empty
    once Slurm has forgotten it (MinJobAge) or where scontrol cannot be run."""
    try:
        proc = subprocess.run(["scontrol", "show", "job", "-o", job_id], capture_output=True,
                              text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return {}
    if proc.returncode != 0:
        return {}
    return dict(f.split("=", 1) for f in proc.stdout.split() if "=" in f)


def not_measured(jobs, results, doctors, device: str, state_of, logs_dir: Path) -> list:
    """A record for each target of `jobs` ([(target text, job id)]) that left no results file,
    and for each whose GPU was asked for (--device) but not measured; with the reason: the
    doctor's verdict where it says the GPU is unusable, else what Slurm says of the job."""
    records = []
    for target, job in jobs:
        mine = [r for r in results if target_of(r) == target]
        verdicts = [d for d in doctors if scheduler_of(d).get("target") == target and
                    str(scheduler_of(d).get("job_id")) == job]
        diagnosis = (verdicts[-1].get("diagnosis") or {}) if verdicts else {}
        where = scheduler_of(verdicts[-1]) if verdicts else {}
        record = {"target": target, "job_id": job, "node": where.get("node"),
                  "partition": where.get("partition")}
        if mine:
            if not wants_gpu(device) or any(d.get("kind") == "gpu" for r in mine
                                            for d in r.devices.values()):
                continue
            doctor = mine[-1].context.get("doctor") or {}
            reason = f"GPU not measured: {doctor.get('verdict') or 'no GPU in the results file'}"
            record.update(node=record["node"] or scheduler_of(mine[-1].context).get("node"),
                          partition=record["partition"] or
                          scheduler_of(mine[-1].context).get("partition"))
        elif wants_gpu(device) and diagnosis and not diagnosis.get("gpu_usable", True):
            reason = diagnosis.get("verdict") or "no usable GPU"
        else:
            state = state_of(job)
            record["node"] = record["node"] or (state.get("NodeList") if state.get("NodeList") not
                                                in (None, "(null)") else None)
            record["partition"] = record["partition"] or state.get("Partition")
            log = logs_dir / f"{slug_of(parse_options(target, 'job-report --job'))}-{job}.out"
            if state.get("JobState"):
                reason = (f"job {job} ended {state['JobState']} without a results file "
                          f"(reason {state.get('Reason', 'None')}; log {log})")
            else:
                reason = f"job {job} left no results file (log {log})"
        records.append({**record, "reason": reason})
    return records


# ----------------------------------------------------------------------------------------------
# Commands

def find_python() -> str:
    venv = ROOT / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


def refuse_unusable_file(message: str):
    """--resume cannot tell whether the target of a file it cannot read finished: it would
    submit that target again beside the file. The user decides."""
    raise FleetError(f"--resume: {message}; move it out of results/ (or repair it), then resume")


def submit(script: str, path: Path) -> str:
    try:
        # A run flag that is not UTF-8 (a file name in Latin-1) goes into the script as the
        # bytes it was given.
        path.write_text(script, encoding="utf-8", errors="surrogateescape")
    except OSError as e:
        raise FleetError(f"--out: {path}: cannot be written ({e.strerror})") from None
    try:
        proc = subprocess.run(["sbatch", "--parsable", str(path)], capture_output=True, text=True,
                              timeout=120)
    except OSError as e:
        raise FleetError(f"sbatch: {e.strerror}: fleet.sh submits through Slurm's sbatch") \
            from None
    except subprocess.TimeoutExpired:
        raise FleetError(f"sbatch {path}: no answer from Slurm in 120 s") from None
    if proc.returncode != 0:
        raise FleetError(f"sbatch {path}: {what_failed(proc)}")
    return proc.stdout.strip().split(";")[0]  # "<job id>[;<cluster>]"


def fleet_main(args) -> int:
    out = check_folder_path(Path(args.out).resolve(), "--out")
    check_out_path(out)
    targets = parse_targets(args.targets, name_max(out))
    report_options = parse_options(args.report_options, "--report-options",
                                   RESERVED_OPTIONS - {"time"}) if args.report_options else ()
    run_flags = args.run_flags[1:] if args.run_flags[:1] == ["--"] else args.run_flags
    for flag in run_flags:
        if flag.split("=", 1)[0] in RESERVED_RUN_FLAGS:
            raise FleetError(f"run flags: {flag.split('=', 1)[0]} is set by the fleet itself "
                             "(use --suite, --out and --resume of fleet.sh)")
    # The suites are the binary's own (`layerbench list --suites`): it checks the name, and
    # without --suite uses its default.
    run_flags = (["--suite", args.suite] if args.suite else []) + run_flags
    binary = Path(args.binary).resolve()
    if not binary.is_file():
        raise FleetError(f"--binary: {binary} not found (build layerbench first: scripts/test.sh, "
                         "or the manual build of docs/building.md)")
    results_dir = out / "results"
    device = run_device(run_flags)
    python = find_python()

    done = set()
    if results_dir.is_dir() and any(results_dir.glob("*.json")):
        if not args.resume:
            raise FleetError(f"--out: {results_dir} already holds results; --resume continues "
                             "that fleet, or choose another --out")
        results, _ = load_results_dir(results_dir, refuse_unusable_file)
        done = complete_targets(results)

    estimate = dry_run_estimate(binary, run_flags)
    scripts = []
    for t in targets:
        if t.text in done:
            print(f"{t.text}: complete in {results_dir}, not submitted again")
            continue
        points, estimate_s = node_plan(estimate, device, gpu_count(t))
        minutes = time_limit_minutes(points, estimate_s, args.time_margin)
        scripts.append((t, minutes, job_script(
            t, out=out, binary=binary, python=python, run_flags=run_flags,
            minutes=minutes, points=points, estimate_s=estimate_s, margin=args.time_margin)))

    if args.dry_run:
        for t, _, script in scripts:
            print(f"# ---- {out / 'jobs' / (t.slug + '.sbatch')}\n{script}")
        jobs = [(t.text, f"<job of {t.slug}>") for t, _, _ in scripts]
        print(f"# ---- {out / 'jobs' / 'report.sbatch'}\n" + report_script(
            jobs, out=out, python=python, device=device, report_options=report_options))
        return 0

    return submit_fleet(scripts, out=out, python=python, device=device,
                        report_options=report_options)


def submit_fleet(scripts, *, out, python, device, report_options) -> int:
    """Submits each target's job, then the report job that waits for them all."""
    for folder in (out, out / "results", out / "logs", out / "jobs"):
        output_folder(folder, "--out")
    jobs = []
    for t, minutes, script in scripts:
        try:
            job = submit(script, out / "jobs" / f"{t.slug}.sbatch")
        except FleetError as e:
            if not jobs:
                raise
            # Slurm refused what only it can judge (a partition it has not): the jobs
            # submitted so far would measure, but no report job would wait for them.
            ids = " ".join(j for _, j in jobs)
            raise FleetError(f"{e}; jobs {ids} of the targets before it are submitted and no "
                             f"report job: cancel them (scancel {ids}) and submit the fleet "
                             "again once this target is fixed") from None
        jobs.append((t.text, job))
        print(f"{t.text}: job {job} (time limit {minutes} min, log {out / 'logs'}/"
              f"{t.slug}-{job}.out)")
    report_path = out / "jobs" / "report.sbatch"
    try:
        report_job = submit(report_script(jobs, out=out, python=python, device=device,
                                          report_options=report_options), report_path)
    except FleetError as e:
        if not jobs:
            raise
        # The written script already waits for the target jobs: fixed, it is all that is missing.
        raise FleetError(f"{e}; the target jobs {', '.join(j for _, j in jobs)} are submitted: "
                         f"correct the #SBATCH lines of {report_path}, then submit the report "
                         f"job with: sbatch {q(report_path)}") from None
    after = f" after jobs {', '.join(j for _, j in jobs)} end" if jobs else ""
    print(f"report: job {report_job}{after}: {out / 'report' / 'index.html'}")
    return 0


def job_resume_file_main(args) -> int:
    results, _ = load_results_dir(Path(args.results),
                                  lambda m: print(f"fleet: {m}", file=sys.stderr))
    path = pick_resume_file(results, args.target, socket.gethostname())
    if path:
        print(path)
    return 0


def job_report_main(args) -> int:
    out = Path(args.out)
    results, doctors = load_results_dir(out / "results",
                                        lambda m: print(f"fleet: {m}", file=sys.stderr))
    jobs = [(text, job) for job, text in args.job]
    records = not_measured(jobs, results, doctors, args.device, job_state, out / "logs")
    report_dir = out / "report"
    report_dir.mkdir(parents=True, exist_ok=True)
    not_measured_file = report_dir / "not-measured.json"
    not_measured_file.write_text(json.dumps({"schema": NOT_MEASURED_SCHEMA, "targets": records},
                                            indent=2), encoding="utf-8")
    for r in records:
        print(f"not measured: {r['target']}: {r['reason']}")
    files = sorted(str(p) for p in (out / "results").glob("*.json") if is_results_name(p))
    cmd = [sys.executable, str(ROOT / "scripts" / "report.py"), *files, "--not-measured",
           str(not_measured_file), "--skip-bad", "-o", str(report_dir)]
    return subprocess.run(cmd).returncode


def parse_args(argv):
    if argv[:1] == ["job-resume-file"]:
        ap = Parser(prog="fleet.py job-resume-file")
        ap.add_argument("--results", required=True)
        ap.add_argument("--target", required=True)
        return job_resume_file_main, ap.parse_args(argv[1:])
    if argv[:1] == ["job-report"]:
        ap = Parser(prog="fleet.py job-report")
        ap.add_argument("--out", required=True)
        ap.add_argument("--device", required=True)
        ap.add_argument("--job", nargs=2, action="append", default=[],
                        metavar=("JOB_ID", "TARGET"))
        return job_report_main, ap.parse_args(argv[1:])
    ap = Parser(
        prog="fleet.sh", description="layerbench on several Slurm node types, then one report.",
        epilog="Flags after -- go to `layerbench run` (e.g. -- --device gpu --precision fp16).")
    ap.add_argument("--targets", required=True,
                    help="';'-separated targets, each ','-separated sbatch options, e.g. "
                         "\"partition=a100;partition=h100,gres=gpu:h100:1\"")
    ap.add_argument("--suite",
                    help="layerbench run --suite, one of `layerbench list --suites` (default: "
                         "run's default)")
    ap.add_argument("--out", required=True, type=path_text,
                    help="fleet directory on storage every node sees: results/, report/, logs/")
    ap.add_argument("--resume", action="store_true",
                    help="continue a fleet in --out: complete targets are not run again, "
                         "unfinished files are continued")
    ap.add_argument("--dry-run", action="store_true",
                    help="print the sbatch scripts instead of submitting them")
    ap.add_argument("--binary", default=str(ROOT / "build" / "layerbench"), type=path_text,
                    help="the layerbench binary, on shared storage (default build/layerbench)")
    ap.add_argument("--time-margin", type=number(float, minimum=1), default=DEFAULT_TIME_MARGIN,
                    help=f"time limit = estimate x this + {SETUP_S_PER_POINT} s per point + "
                         f"{STARTUP_ALLOWANCE_S} s (default {DEFAULT_TIME_MARGIN})")
    ap.add_argument("--report-options", default="",
                    help="sbatch options of the report job, e.g. \"partition=cpu\"")
    ap.add_argument("run_flags", nargs=argparse.REMAINDER)
    return fleet_main, ap.parse_args(argv)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    pass_bytes_through()
    try:
        command, args = parse_args(argv)
        return command(args)
    except BadInput as e:
        print(f"fleet: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
