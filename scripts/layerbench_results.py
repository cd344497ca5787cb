"""Loading and checking layerbench results files (schema in reports/results-schema.md).

Shared by report.py and compare.py. A file that cannot be used raises BadResultsFile whose
message names the file and the problem in one line; the scripts print it and exit 2.
"""
from __future__ import annotations

import json
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path

SCHEMA = "layerbench-results/1"
SCHEMA_FAMILY = "layerbench-results/"

PRECISIONS = ("fp32", "tf32", "fp16", "bf16", "fp8")
POINT_PASSES = ("fwd", "bwd_data", "bwd_weights")
MODEL_PASSES = ("fwd", "train")
STATUSES = ("ok", "unsupported", "oom", "failed")
# A model record is "incomplete" when some of its points were not reached (an unfinished run).
MODEL_STATUSES = STATUSES + ("incomplete",)
FILE_STATUSES = ("complete", "incomplete", "interrupted")

PRECISION_NAMES = {"fp32": "FP32", "tf32": "TF32", "fp16": "FP16", "bf16": "BF16", "fp8": "FP8"}
PASS_NAMES = {"fwd": "forward", "train": "training step", "bwd_data": "backward (data)",
              "bwd_weights": "backward (weights)"}
STATUS_NAMES = {"ok": "ok", "unsupported": "unsupported", "oom": "out of memory",
                "failed": "failed", "incomplete": "incomplete"}


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
        return _loads(text)
    except json.JSONDecodeError as e:
        # A document that stops in the middle (a run killed while writing, a partial copy)
        # fails at its very end or inside a string that never closes.
        if e.pos >= len(text.rstrip()) or e.msg.startswith("Unterminated string"):
            raise BadResultsFile(path, f"truncated: the JSON ends unexpectedly at line {e.lineno} "
                                       f"column {e.colno} ({len(text)} bytes); the file was cut "
                                       "short") from None
        raise BadResultsFile(path, f"not valid JSON: {e.msg} at line {e.lineno} column {e.colno}") \
            from None
    except ValueError as e:  # an integer too long for Python to convert
        raise BadResultsFile(path, f"not valid JSON: {e}") from None
    except RecursionError:
        raise BadResultsFile(path, "not a layerbench results file: arrays or objects nested too "
                                   "deeply to read") from None


def _non_finite_as_null(text):
    """NaN, Infinity and numbers too large for a double read as null: layerbench's writer
    (nlohmann_json) writes every non-finite number as null, so both spellings mean the same."""
    value = float(text)
    return value if math.isfinite(value) else None


def _integer(text):
    value = int(text)
    return value if abs(value) <= sys.float_info.max else None  # as a double: infinite


def _loads(text):
    return json.loads(text, parse_float=_non_finite_as_null, parse_int=_integer,
                      parse_constant=lambda _: None)


def _quoted(text: str) -> str:
    """A value from the file, quoted for a one-line message (newlines and the like escaped)."""
    return "'" + json.dumps(text)[1:-1] + "'"


def _json_words(value) -> str:
    return "null" if value is None else _type_words(type(value))


def _type_words(types) -> str:
    words = {dict: "an object", list: "an array", str: "a string", int: "an integer",
             float: "a number", bool: "true/false", type(None): "null"}
    types = types if isinstance(types, tuple) else (types,)
    if types == (int, float):
        return "a number"
    return " or ".join(words.get(t, t.__name__) for t in types)


class _Fields:
    """Reads the fields of one object of a file; a problem raises BadResultsFile naming the file
    and the field's path (e.g. 'points[12].timing.median_ms')."""

    def __init__(self, path, obj, where):
        self.path, self.obj, self.where = path, obj, where

    def fail(self, key, problem):
        raise BadResultsFile(self.path, f"{self.where}{key}: {problem}")

    def get(self, key, types, optional=False, nullable=False):
        if key not in self.obj:
            if optional:
                return None
            self.fail(key, "missing")
        value = self.obj[key]
        if value is None and nullable:
            return None
        types = types if isinstance(types, tuple) else (types,)
        if not isinstance(value, types) or isinstance(value, bool) and bool not in types:
            self.fail(key, f"expected {_type_words(types)}, found {_json_words(value)}")
        return value

    def text(self, key, choices=None, optional=False, nullable=False):
        value = self.get(key, str, optional, nullable)
        if choices is not None and value is not None and value not in choices:
            self.fail(key, f"unknown value {_quoted(value)} (expected one of {', '.join(choices)})")
        return value

    def device(self, devices):
        """The id in "device", which must be one of the context's devices."""
        dev_id = self.text("device")
        if dev_id not in devices:
            self.fail("device", f"{_quoted(dev_id)} is not in context.devices")
        return dev_id

    def count(self, key, optional=False, nullable=False):
        """A positive integer that fits the writer's int (a batch, a number of layers or steps)."""
        value = self.get(key, int, optional, nullable)
        if value is not None and not 1 <= value < 2 ** 31:
            self.fail(key, f"must be a positive integer below 2^31, is {value}")
        return value

    def number(self, key, positive=False, optional=False, nullable=False):
        """A finite number, >= 0 (or > 0 with positive), stored back as a float (the writer's
        double: a 30-digit integer would reach matplotlib as a Python object). Non-finite
        numbers read as null."""
        if key in self.obj and self.obj[key] is None and not nullable:
            self.fail(key, "expected a finite number, found null (NaN and infinity read as null)")
        value = self.get(key, (int, float), optional, nullable)
        if value is None:
            return None
        if value <= 0 if positive else value < 0:
            self.fail(key, f"must be {'positive' if positive else '>= 0'}, is {value}")
        self.obj[key] = float(value)
        return self.obj[key]

    def object(self, key, optional=True, nullable=True):
        """The _Fields of a nested object, or None where it may be absent or null."""
        value = self.get(key, dict, optional, nullable)
        return None if value is None else _Fields(self.path, value, f"{self.where}{key}.")

    def objects(self, key, optional=False):
        """The _Fields of each element of an array of objects ([] for an absent or null array
        where optional)."""
        items = self.get(key, list, optional, nullable=optional) or []
        out = []
        for i, item in enumerate(items):
            if not isinstance(item, dict):
                self.fail(f"{key}[{i}]", f"expected an object, found {_json_words(item)}")
            out.append(_Fields(self.path, item, f"{self.where}{key}[{i}]."))
        return out


def _check_devices(context: _Fields) -> dict:
    devices = {}
    for d in context.objects("devices"):
        dev_id = d.text("id")
        if dev_id in devices:
            d.fail("id", f"{_quoted(dev_id)} is used by another device too")
        d.text("kind", ("cpu", "gpu"))
        d.text("name")
        d.object("facts")
        peaks = d.object("peaks")
        for precision in peaks.obj if peaks else ():
            peak = peaks.object(precision, nullable=False)
            peak.number("tflops", positive=True, optional=True, nullable=True)
            peak.text("source", optional=True)
        bandwidth = d.object("memory_bandwidth_gbps")
        if bandwidth:
            bandwidth.number("value", positive=True, optional=True, nullable=True)
            bandwidth.text("source", optional=True)
        devices[dev_id] = d.obj
    return devices


def _check_point(path, where, p, devices):
    """where: the point's place, e.g. 'points[12]' or, in a journal, 'line 5: point'."""
    if not isinstance(p, dict):
        raise BadResultsFile(path, f"{where}: expected an object, found {_json_words(p)}")
    f = _Fields(path, p, f"{where}.")
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
    f.count("count", optional=True)
    for key in ("gflop", "bytes", "intensity", "tflops", "gbps"):
        f.number(key, optional=True, nullable=True)
    timing = f.object("timing", optional=status != "ok", nullable=status != "ok")
    if timing:  # a point that was timed has a usable median, whatever its status
        timing.number("median_ms", positive=True)
        timing.number("noise", optional=True, nullable=True)
    validation = f.object("validation")
    if validation:
        validation.number("rel_l2", optional=True, nullable=True)
        validation.number("tolerance", positive=True)
        validation.get("passed", bool)


def _check_model_record(r: _Fields, devices):
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
    accumulation = r.object("accumulation")
    if accumulation:
        accumulation.count("batch")
        accumulation.count("steps")
        accumulation.number("images_per_s", positive=True, optional=True, nullable=True)


def _check_boundary(b: _Fields, devices):
    b.text("model")
    b.device(devices)
    b.text("precision", PRECISIONS)
    b.text("pass", MODEL_PASSES)
    b.count("largest_fitting_batch", optional=True, nullable=True)
    b.count("first_oom_batch", optional=True, nullable=True)
    b.number("memory_limit_bytes", positive=True, optional=True, nullable=True)


def _unique(path, items, key_of, array):
    """Raises when two items of an array share their identity: one would hide the other."""
    first = {}
    for i, item in enumerate(items):
        key = key_of(item)
        if key in first:
            raise BadResultsFile(path, f"{array}[{i}]: a second record of "
                                       f"{'/'.join(map(str, key))} (first: {array}[{first[key]}])")
        first[key] = i


def check(path, data) -> ResultsFile:
    """Checks a parsed document; returns it wrapped. Raises BadResultsFile."""
    if not isinstance(data, dict):
        raise BadResultsFile(path, f"not a layerbench results file: the top level is "
                                   f"{_json_words(data)}, not an object")
    if "schema" not in data:
        raise BadResultsFile(path, 'not a layerbench results file: no "schema" field')
    schema = data["schema"]
    if not isinstance(schema, str) or not schema.startswith(SCHEMA_FAMILY):
        raise BadResultsFile(path, f"not a layerbench results file: schema is {json.dumps(schema)}")
    if schema != SCHEMA:
        raise BadResultsFile(path, f"unknown schema version {_quoted(schema)} (these scripts read "
                                   f"{SCHEMA}; update layerbench's scripts)")
    top = _Fields(path, data, "")
    top.text("status", FILE_STATUSES)
    context = top.object("context", optional=False, nullable=False)
    devices = _check_devices(context)
    libraries = context.object("libraries")
    for name in libraries.obj if libraries else ():
        libraries.text(name, nullable=True)
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
    points = top.get("points", list)
    for i, p in enumerate(points):
        _check_point(path, f"points[{i}]", p, devices)
    _unique(path, points, point_id, "points")
    # An unfinished run has written no model records or boundaries yet: absent or null is [].
    for r in top.objects("models", optional=True):
        _check_model_record(r, devices)
    for b in top.objects("boundaries", optional=True):
        _check_boundary(b, devices)
    for key in ("models", "boundaries"):
        data[key] = data.get(key) or []
    _unique(path, data["models"], lambda r: (
        r["model"], keyed_device(r["device"], r.get("backend")), r["precision"], r["batch"],
        r["pass"]), "models")
    return ResultsFile(Path(path), data, devices=devices)


# The backends that measured points before two backends could share a device; their points keep
# the device id alone in their identity (keyed_device in harness/results/point.cpp; "Point identity"
# in reports/results-schema.md), so older files still match.
ORIGINAL_BACKENDS = ("", "onednn", "cuda", "cudnn", "cublaslt")


def keyed_device(device: str, backend) -> str:
    """"cpu" for the device's original backend, "cpu@openblas" for another."""
    return device if (backend or "") in ORIGINAL_BACKENDS else f"{device}@{backend}"


def is_original_backend(item: dict) -> bool:
    """Whether a point or model record is of its device's original backend."""
    return (item.get("backend") or "") in ORIGINAL_BACKENDS


def point_id(p: dict) -> tuple:
    """A point's identity (the runner's Point::key): unique within a file, matched across files."""
    return (p["model"], p["op"], p["batch"], p["precision"], p["pass"],
            keyed_device(p["device"], p.get("backend")))


def _merge_journal(results: ResultsFile):
    """Adds the complete journal lines of an unfinished run, as the runner's loader does."""
    journal = Path(str(results.path) + ".journal")
    if results.status == "complete" or not journal.is_file():
        return
    seen = {point_id(p) for p in results.points}
    try:
        lines = journal.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError as e:
        raise BadResultsFile(journal, f"cannot be read: {e.strerror}") from None
    for number, line in enumerate(lines, 1):
        try:
            entry = _loads(line)
        except (ValueError, RecursionError):
            continue  # a line cut short by the kill
        p = entry.get("point") if isinstance(entry, dict) else None
        if not isinstance(p, dict):
            continue
        _check_point(journal, f"line {number}: point", p, results.devices)
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

