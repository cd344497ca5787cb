"""Loading and checking layerbench results files (schema in reports/results-schema.md).

Shared by report.py and compare.py. A file that cannot be used raises BadResultsFile whose
message names the file and the problem in one line; the scripts print it and exit 2.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from layerbench_report import rounds
from layerbench_report.backend_roles import (is_primary_backend, keyed_device, point_id,
                                             primary_point_backends)
from layerbench_report.checked_json import (BadResultsFile, Fields, json_words, loads, quoted,
                                            read_document, unique)
from layerbench_report.op_kinds import COMPUTE_KINDS
from layerbench_report.point_measures import check_telemetry, check_timing
from layerbench_report.run_context import check_context, check_settings

SCHEMA = "layerbench-results/1"
SCHEMA_FAMILY = "layerbench-results/"

PRECISIONS = ("fp32", "tf32", "fp16", "bf16", "fp8")
POINT_PASSES = ("fwd", "fwd_training", "bwd_data", "bwd_weights")
MODEL_PASSES = ("fwd", "train")
STATUSES = ("ok", "unsupported", "oom", "failed")
# A model record is "incomplete" when some of its points were not reached (an unfinished run).
MODEL_STATUSES = STATUSES + ("incomplete",)
FILE_STATUSES = ("complete", "incomplete", "interrupted")

PRECISION_NAMES = {"fp32": "FP32", "tf32": "TF32", "fp16": "FP16", "bf16": "BF16", "fp8": "FP8"}
PASS_NAMES = {"fwd": "forward", "train": "training step", "fwd_training": "forward (training)",
              "bwd_data": "backward (data)", "bwd_weights": "backward (weights)"}
STATUS_NAMES = {"ok": "ok", "unsupported": "unsupported", "oom": "out of memory",
                "failed": "failed", "incomplete": "incomplete"}


def precision_name(p: str) -> str:
    return PRECISION_NAMES.get(p, p)


def pass_name(p: str) -> str:
    return PASS_NAMES.get(p, p)


def precision_order(p: str) -> int:
    return PRECISIONS.index(p) if p in PRECISIONS else len(PRECISIONS)


@dataclass
class ResultsFile:
    path: Path
    data: dict
    recovered_from_journal: int = 0  # points read from FILE.journal of an unfinished run
    devices: dict = field(default_factory=dict)  # id -> device object from the context

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def status(self) -> str:
        return self.data["status"]

    @property
    def context(self) -> dict:
        return self.data["context"]

    @property
    def points(self) -> list:
        return self.data["points"]

    @property
    def primary_backends(self) -> frozenset:
        return primary_point_backends(self.context)

    def is_primary(self, item: dict) -> bool:
        """Whether a point or model record of this file is of its device's primary backend."""
        return is_primary_backend(item, self.primary_backends)

    def point_id(self, p: dict) -> tuple:
        return point_id(p, self.primary_backends)

    @property
    def models(self) -> list:
        return self.data["models"]

    @property
    def boundaries(self) -> list:
        return self.data["boundaries"]


def _check_point(path, where, p, devices):
    """where: the point's place, e.g. 'points[12]' or, in a journal, 'line 5: point'."""
    if not isinstance(p, dict):
        raise BadResultsFile(path, f"{where}: expected an object, found {json_words(p)}")
    f = Fields(path, p, f"{where}.")
    for key in ("model", "op"):
        f.text(key)
    f.count("batch")
    f.text("precision", PRECISIONS)
    f.text("pass", POINT_PASSES)
    f.device(devices)
    f.text("backend", optional=True, nullable=True)
    status = f.text("status", STATUSES)
    f.text("reason", optional=True)
    f.text("kind", optional=True, nullable=True)
    f.count("count")
    # The work and bytes of the shape, whatever its status; the rates only where it was timed.
    f.number("gflop", positive=p.get("kind") in COMPUTE_KINDS)
    for key in ("bytes", "intensity"):
        f.number(key)
    for key in ("tflops", "gbps"):
        f.number(key, optional=True, nullable=True)
    f.text("implementation", optional=True)
    f.array_of("layers", str)
    f.texts("notes")
    f.object("shape", optional=False, nullable=False)
    f.text("shape_text", optional=True)
    timing = f.object("timing", optional=status != "ok", nullable=status != "ok")
    if timing:
        check_timing(timing)
    telemetry = f.object("telemetry")  # GPU points; absent in files from before it
    if telemetry:
        check_telemetry(telemetry)
    validation = f.object("validation")
    if validation:
        validation.number("rel_l2", optional=True, nullable=True)
        validation.number("max_abs", optional=True, nullable=True)
        validation.number("tolerance", positive=True)
        for key in ("checked_elements", "total_elements", "non_finite_elements",
                    "misassigned_windows"):
            validation.tally(key)
        validation.flag("passed", optional=False)


def _check_model_record(r: Fields, devices):
    r.text("model")
    r.text("title", optional=True, nullable=True)
    r.device(devices)
    r.text("backend", optional=True, nullable=True)
    r.text("precision", PRECISIONS)
    r.text("pass", MODEL_PASSES)
    r.count("batch")
    ok = r.text("status", MODEL_STATUSES) == "ok"
    r.text("reason", optional=True)
    # A record measured ok has its layer-sum time and rate; any other has neither.
    r.number("time_ms", positive=True, optional=not ok, nullable=not ok)
    r.number("images_per_s", positive=True, optional=not ok, nullable=not ok)
    r.number("images_per_joule", positive=True, optional=True, nullable=True)
    r.number("energy_j", positive=True, optional=True, nullable=True)
    # Op kind -> the precision its points were summed in; absent in files from before it.
    layers = r.object("layer_precisions")
    for kind in layers.obj if layers else ():
        layers.text(kind, PRECISIONS)
    accumulation = r.object("accumulation")
    if accumulation:
        accumulation.count("batch")
        accumulation.count("steps")
        accumulation.number("images_per_s", positive=True, optional=True, nullable=True)


def _check_boundary(b: Fields, devices):
    b.text("model")
    b.device(devices)
    b.text("precision", PRECISIONS)
    b.text("pass", MODEL_PASSES)
    b.count("largest_fitting_batch", optional=True, nullable=True)
    b.count("first_oom_batch", optional=True, nullable=True)
    b.number("memory_limit_bytes", positive=True, optional=True, nullable=True)


def check(path, data) -> ResultsFile:
    """Checks a parsed document; returns it wrapped. Raises BadResultsFile."""
    if not isinstance(data, dict):
        raise BadResultsFile(path, f"not a layerbench results file: the top level is "
                                   f"{json_words(data)}, not an object")
    if "schema" not in data:
        raise BadResultsFile(path, 'not a layerbench results file: no "schema" field')
    schema = data["schema"]
    if not isinstance(schema, str) or not schema.startswith(SCHEMA_FAMILY):
        raise BadResultsFile(path, f"not a layerbench results file: schema is {json.dumps(schema)}")
    if schema != SCHEMA:
        raise BadResultsFile(path, f"unknown schema version {quoted(schema)} (these scripts read "
                                   f"{SCHEMA}; update layerbench's scripts)")
    top = Fields(path, data, "")
    top.text("status", FILE_STATUSES)
    devices = check_context(top.object("context", optional=False, nullable=False))
    check_settings(top.object("settings", optional=False, nullable=False))
    primary = primary_point_backends(data["context"])
    points = top.get("points", list)
    for i, p in enumerate(points):
        _check_point(path, f"points[{i}]", p, devices)
    unique(path, points, lambda p: point_id(p, primary), "points")
    # An unfinished run has written no model records or boundaries yet: absent or null is [].
    for r in top.objects("models", optional=True):
        _check_model_record(r, devices)
    for b in top.objects("boundaries", optional=True):
        _check_boundary(b, devices)
    for key in ("models", "boundaries"):
        data[key] = data.get(key) or []
    unique(path, data["models"], lambda r: (
        r["model"], keyed_device(r["device"], r.get("backend"), primary), r["precision"],
        r["batch"], r["pass"]), "models")
    return ResultsFile(Path(path), data, devices=devices)


def _merge_journal(results: ResultsFile):
    """Adds the complete journal lines of an unfinished run, as the runner's loader does."""
    journal = Path(str(results.path) + ".journal")
    if results.status == "complete" or not journal.is_file():
        return
    seen = {point_id(p): i for i, p in enumerate(results.points)}
    try:
        lines = journal.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError as e:
        raise BadResultsFile(journal, f"cannot be read: {e.strerror}") from None
    for number, line in enumerate(lines, 1):
        try:
            entry = loads(line)
        except (ValueError, RecursionError):
            continue  # a line cut short by the kill
        p = entry.get("point") if isinstance(entry, dict) else None
        if not isinstance(p, dict):
            continue
        _check_point(journal, f"line {number}: point", p, results.devices)
        # A later line of a point (its next round's better figure) replaces the earlier one.
        if point_id(p) in seen:
            results.points[seen[point_id(p)]] = p
        else:
            seen[point_id(p)] = len(results.points)
            results.points.append(p)
            results.recovered_from_journal += 1


def load(path) -> ResultsFile:
    """Reads and checks one results file, each timed point's timing given its run's floor
    (rounds.RUN_FLOOR). Raises BadResultsFile naming the file."""
    results = check(path, read_document(path, "layerbench results file"))
    _merge_journal(results)
    floor = rounds.round_spread_floor(results.points)
    for p in results.points:
        if isinstance(p.get("timing"), dict):
            p["timing"][rounds.RUN_FLOOR] = floor
    return results


def repeated_run(results: ResultsFile, earlier) -> str:
    """How results repeats one of the earlier ResultsFiles (the same file under any path, or a
    copy with the same content), or "" when it is a run of its own."""
    same_file = next((f for f in earlier if f.path.resolve() == results.path.resolve()), None)
    if same_file:
        return f"given twice (first as {same_file.path})"
    same_content = next((f for f in earlier if f.data == results.data), None)
    return f"the same results as {same_content.path} (a copy)" if same_content else ""


def median_ms(p: dict):
    t = p.get("timing")
    return t.get("median_ms") if isinstance(t, dict) else None
