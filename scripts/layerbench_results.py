"""Loading and checking layerbench results files (schema in reports/results-schema.md).

Shared by report.py and compare.py. A file that cannot be used raises BadResultsFile whose
message names the file and the problem in one line; the scripts print it and exit 2.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

SCHEMA = "layerbench-results/1"
SCHEMA_FAMILY = "layerbench-results/"

PRECISIONS = ("fp32", "tf32", "fp16", "bf16", "fp8")
POINT_PASSES = ("fwd", "bwd_data", "bwd_weights")
MODEL_PASSES = ("fwd", "train")
STATUSES = ("ok", "unsupported", "oom", "failed")
FILE_STATUSES = ("complete", "incomplete", "interrupted")

PRECISION_NAMES = {"fp32": "FP32", "tf32": "TF32", "fp16": "FP16", "bf16": "BF16", "fp8": "FP8"}
PASS_NAMES = {"fwd": "forward", "train": "training step", "bwd_data": "backward (data)",
              "bwd_weights": "backward (weights)"}
STATUS_NAMES = {"ok": "ok", "unsupported": "unsupported", "oom": "out of memory",
                "failed": "failed"}


class BadResultsFile(Exception):
    """A file that is not a usable results file. str() is '<file>: <problem>'."""

    def __init__(self, path, problem: str):
        super().__init__(f"{path}: {problem}")
        self.path = str(path)
        self.problem = problem


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
    def models(self) -> list:
        return self.data["models"]

    @property
    def boundaries(self) -> list:
        return self.data["boundaries"]


def _parse_json(path: Path, text: str):
    stripped = text.strip()
    if not stripped:
        raise BadResultsFile(path, "empty file: not a layerbench results file")
    if stripped[0] not in "{[":
        raise BadResultsFile(path, "not JSON (does not start with '{'): not a layerbench "
                                   "results file")
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        # A document that stops in the middle (a run killed while writing, a partial copy)
        # fails at its very end or inside a string that never closes.
        if e.pos >= len(text.rstrip()) or e.msg.startswith("Unterminated string"):
            raise BadResultsFile(path, f"truncated: the JSON ends unexpectedly at line {e.lineno} "
                                       f"column {e.colno} ({len(text)} bytes); the file was cut "
                                       "short") from None
        raise BadResultsFile(path, f"not valid JSON: {e.msg} at line {e.lineno} column {e.colno}") \
            from None


def _require(path, obj, key, types, where):
    if not isinstance(obj, dict) or key not in obj:
        raise BadResultsFile(path, f"{where}{key}: missing")
    value = obj[key]
    if not isinstance(value, types) or isinstance(value, bool) and bool not in _as_tuple(types):
        raise BadResultsFile(path, f"{where}{key}: expected {_type_words(types)}, "
                                   f"found {type(value).__name__}")
    return value


def _as_tuple(types):
    return types if isinstance(types, tuple) else (types,)


def _type_words(types) -> str:
    words = {dict: "an object", list: "an array", str: "a string", int: "an integer",
             float: "a number", bool: "true/false", type(None): "null"}
    return " or ".join(words.get(t, t.__name__) for t in _as_tuple(types))


def _check_devices(path, context) -> dict:
    devices = {}
    for i, d in enumerate(_require(path, context, "devices", list, "context.")):
        where = f"context.devices[{i}]."
        dev_id = _require(path, d, "id", str, where)
        kind = _require(path, d, "kind", str, where)
        if kind not in ("cpu", "gpu"):
            raise BadResultsFile(path, f"{where}kind: '{kind}' is neither 'cpu' nor 'gpu'")
        _require(path, d, "name", str, where)
        devices[dev_id] = d
    return devices


def _check_point(path, i, p, devices):
    where = f"points[{i}]."
    for key in ("model", "op", "precision", "pass", "device", "status"):
        _require(path, p, key, str, where)
    _require(path, p, "batch", int, where)
    if p["status"] not in STATUSES:
        raise BadResultsFile(path, f"{where}status: unknown value '{p['status']}'")
    if p["device"] not in devices:
        raise BadResultsFile(path, f"{where}device: '{p['device']}' is not in context.devices")
    timing = p.get("timing")
    if p["status"] == "ok":
        _require(path, p, "timing", dict, where)
        median = _require(path, timing, "median_ms", (int, float), where + "timing.")
        if median <= 0:
            raise BadResultsFile(path, f"{where}timing.median_ms: must be positive, is {median}")
    elif timing is not None and not isinstance(timing, dict):
        raise BadResultsFile(path, f"{where}timing: expected an object or null")


def check(path, data) -> ResultsFile:
    """Checks a parsed document; returns it wrapped. Raises BadResultsFile."""
    if not isinstance(data, dict):
        raise BadResultsFile(path, f"not a layerbench results file: the top level is "
                                   f"{_type_words(type(data))}, not an object")
    if "schema" not in data:
        raise BadResultsFile(path, 'not a layerbench results file: no "schema" field')
    schema = data["schema"]
    if not isinstance(schema, str) or not schema.startswith(SCHEMA_FAMILY):
        raise BadResultsFile(path, f"not a layerbench results file: schema is {json.dumps(schema)}")
    if schema != SCHEMA:
        raise BadResultsFile(path, f"unknown schema version '{schema}' (these scripts read "
                                   f"{SCHEMA}; update layerbench's scripts)")
    status = _require(path, data, "status", str, "")
    if status not in FILE_STATUSES:
        raise BadResultsFile(path, f"status: unknown value '{status}'")
    context = _require(path, data, "context", dict, "")
    devices = _check_devices(path, context)
    for i, p in enumerate(_require(path, data, "points", list, "")):
        _check_point(path, i, p, devices)
    # An unfinished run has written no model records or boundaries yet.
    for key in ("models", "boundaries"):
        if data.get(key) is None:
            data[key] = []
        elif not isinstance(data[key], list):
            raise BadResultsFile(path, f"{key}: expected an array")
    return ResultsFile(Path(path), data, devices=devices)


def point_id(p: dict) -> tuple:
    """A point's identity (the runner's Point::key): unique within a file, matched across files."""
    return (p["model"], p["op"], p["batch"], p["precision"], p["pass"], p["device"])


def _merge_journal(results: ResultsFile):
    """Adds the complete journal lines of an unfinished run, as the runner's loader does."""
    journal = Path(str(results.path) + ".journal")
    if results.status == "complete" or not journal.is_file():
        return
    seen = {point_id(p) for p in results.points}
    with open(journal, encoding="utf-8", errors="replace") as f:
        for line in f:
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line cut short by the kill
            p = entry.get("point") if isinstance(entry, dict) else None
            if not isinstance(p, dict):
                continue
            _check_point(journal, len(results.points), p, results.devices)
            if point_id(p) not in seen:
                seen.add(point_id(p))
                results.points.append(p)
                results.recovered_from_journal += 1


def load(path) -> ResultsFile:
    """Reads and checks one results file. Raises BadResultsFile naming the file."""
    path = Path(path)
    if not path.exists():
        raise BadResultsFile(path, "no such file")
    if path.is_dir():
        raise BadResultsFile(path, "is a directory, not a results file")
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise BadResultsFile(path, f"cannot be read: {e.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise BadResultsFile(path, "not JSON (not UTF-8 text): not a layerbench results file") \
            from None
    results = check(path, _parse_json(path, text))
    _merge_journal(results)
    return results


def load_all(paths, skip_bad: bool, warn) -> list:
    """Loads every file. A bad file raises, or with skip_bad is reported through warn(message)
    and left out. Raises BadResultsFile when no file is left."""
    loaded = []
    for p in paths:
        try:
            loaded.append(load(p))
        except BadResultsFile as e:
            if not skip_bad:
                raise
            warn(f"{e} (skipped)")
    if not loaded:
        raise BadResultsFile(", ".join(map(str, paths)) or "(none)", "no usable results file")
    return loaded


def median_ms(p: dict):
    t = p.get("timing")
    return t.get("median_ms") if isinstance(t, dict) else None


def noise(p: dict) -> float:
    t = p.get("timing")
    return float(t.get("noise") or 0.0) if isinstance(t, dict) else 0.0

