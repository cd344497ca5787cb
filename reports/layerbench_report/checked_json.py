"""Strict JSON for the results and framework timing readers: a document parsed with its
non-finite numbers kept as such (for every number field to refuse) and a key given twice
refused, and its fields read with their type and range checked. A problem raises
BadResultsFile naming the file and the field in one line.
"""
from __future__ import annotations

import json
import math
import os
import sys
from pathlib import Path


class BadResultsFile(Exception):
    """A file that is not a usable results file. str() is '<file>: <problem>'."""

    def __init__(self, path, problem: str):
        super().__init__(f"{path}: {problem}")
        self.path = str(path)
        self.problem = problem


def parse(path: Path, text: str, kind: str):
    """The document in text; kind (e.g. 'layerbench results file') is what its messages say the
    file is not."""
    stripped = text.strip()
    if not stripped:
        raise BadResultsFile(path, f"empty file: not a {kind}")
    if stripped[0] not in "{[":
        raise BadResultsFile(path, f"not JSON (does not start with '{{'): not a {kind}")
    try:
        return loads(text)
    except DuplicateKey as e:
        raise BadResultsFile(path, f"the key {quoted(e.args[0])} is given twice in one object "
                                   f"(which one counts would depend on the reader): not a usable "
                                   f"{kind}") from None
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
        raise BadResultsFile(path, f"not a {kind}: arrays or objects nested too deeply "
                                   "to read") from None


class DuplicateKey(ValueError):
    """An object of the document that gives one key twice."""


def _no_duplicate_keys(pairs):
    obj = {}
    for key, value in pairs:
        if key in obj:
            raise DuplicateKey(key)
        obj[key] = value
    return obj


def _integer(text):
    """An integer beyond a double's range reads as the infinity a double would hold."""
    value = int(text)
    return value if abs(value) <= sys.float_info.max else math.inf if value > 0 else -math.inf


def loads(text):
    """The document in text. NaN, Infinity and numbers beyond a double's range read as the
    non-finite floats they stand for, which every number field refuses: layerbench's writer
    (nlohmann_json) writes a non-finite number as null, so such a literal is never its own. A
    key given twice in one object raises DuplicateKey: a JSON reader keeps one of them, and
    which one differs between readers."""
    return json.loads(text, parse_int=_integer, object_pairs_hook=_no_duplicate_keys)


def quoted(text: str) -> str:
    """A value from the file, quoted for a one-line message (newlines and the like escaped)."""
    return "'" + json.dumps(text)[1:-1] + "'"


def json_words(value) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else "infinity (or a number beyond a double's range)"
    return "null" if value is None else type_words(type(value))


def is_of(value, types) -> bool:
    """isinstance(value, types), except that true/false is not a number: bool is an int to
    Python, never to JSON."""
    types = types if isinstance(types, tuple) else (types,)
    return isinstance(value, types) and (not isinstance(value, bool) or bool in types)


def type_words(types) -> str:
    words = {dict: "an object", list: "an array", str: "a string", int: "an integer",
             float: "a number", bool: "true/false", type(None): "null"}
    types = types if isinstance(types, tuple) else (types,)
    if types == (int, float):
        return "a number"
    return " or ".join(words.get(t, t.__name__) for t in types)


# The magnitudes a number read for the report may have (or be 0). A finite number can still make
# an infinite ratio or rate: 1 / 5e-324 is infinity. Within these bounds every ratio, product or
# reciprocal of two numbers, and sums of millions of them, stay far inside a double's range, so
# all the report computes and draws is finite. No time, rate or size measured comes near them.
SMALLEST, LARGEST = 1e-100, 1e100


class Fields:
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
        if not is_of(value, types):
            self.fail(key, f"expected {type_words(types)}, found {json_words(value)}")
        return value

    def text(self, key, choices=None, optional=False, nullable=False):
        value = self.get(key, str, optional, nullable)
        if choices is not None and value is not None and value not in choices:
            self.fail(key, f"unknown value {quoted(value)} (expected one of {', '.join(choices)})")
        return value

    def device(self, devices):
        """The id in "device", which must be one of the context's devices."""
        dev_id = self.text("device")
        if dev_id not in devices:
            self.fail("device", f"{quoted(dev_id)} is not in context.devices")
        return dev_id

    def count(self, key, optional=False, nullable=False):
        """A positive integer that fits the writer's int (a batch, a number of layers or steps)."""
        return self._integer(key, 1, "a positive integer below 2^31", optional, nullable)

    def tally(self, key, optional=True, nullable=False):
        """A count that may be 0 (samples, re-taken samples): an integer from 0 to 2^31."""
        return self._integer(key, 0, "an integer from 0 to 2^31", optional, nullable)

    def _integer(self, key, least, words, optional, nullable):
        value = self.get(key, int, optional, nullable)
        if value is not None and not least <= value < 2 ** 31:
            self.fail(key, f"must be {words}, is {value}")
        return value

    def number(self, key, positive=False, optional=False, nullable=False):
        """A finite number, >= 0 (or > 0 with positive), stored back as a float (the writer's
        double: a 30-digit integer would reach matplotlib as a Python object). NaN and infinity
        are refused, even where null is allowed."""
        if key in self.obj and self.obj[key] is None and not nullable:
            self.fail(key, "expected a finite number, found null")
        value = self.get(key, (int, float), optional, nullable)
        if value is None:
            return None
        self.obj[key] = self.finite(key, value, positive)
        return self.obj[key]

    def finite(self, key, value, positive=False) -> float:
        """value (a number of the field key) checked as number() checks it, as a float."""
        if not math.isfinite(value):
            self.fail(key, f"expected a finite number, found {json_words(value)}")
        if value <= 0 if positive else value < 0:
            self.fail(key, f"must be {'positive' if positive else '>= 0'}, is {value}")
        if value != 0 and not SMALLEST <= value <= LARGEST:
            self.fail(key, f"{value!r} is beyond what the report computes with (its ratios and "
                           f"rates would be infinite or 0): expected {'' if positive else '0 or '}"
                           f"{SMALLEST:g} to {LARGEST:g}")
        return float(value)

    def numbers(self, key, positive=False, optional=True):
        """A non-empty array of numbers, each as number() checks it (None where optional and
        absent or null)."""
        values = self.get(key, list, optional, nullable=optional)
        if values is None:
            return None
        if not values:
            self.fail(key, "an empty array (absent or null where there is nothing)")
        for i, v in enumerate(values):
            if not is_of(v, (int, float)):
                self.fail(f"{key}[{i}]", f"expected a number, found {json_words(v)}")
            values[i] = self.finite(f"{key}[{i}]", v, positive)
        return values

    def flag(self, key, optional=True, nullable=False):
        return self.get(key, bool, optional, nullable)

    def array_of(self, key, types, optional=True, nullable=True):
        """An array whose every element is of types (None where optional and absent)."""
        values = self.get(key, list, optional, nullable)
        for i, v in enumerate(values or []):
            if not is_of(v, types):
                self.fail(f"{key}[{i}]", f"expected {type_words(types)}, found {json_words(v)}")
        return values

    def texts(self, key, optional=True, nullable=True):
        """An object whose every value is a string (notes, absent readings)."""
        obj = self.object(key, optional, nullable)
        for name in obj.obj if obj else ():
            obj.text(name)
        return obj

    def object(self, key, optional=True, nullable=True):
        """The Fields of a nested object, or None where it may be absent or null."""
        value = self.get(key, dict, optional, nullable)
        return None if value is None else Fields(self.path, value, f"{self.where}{key}.")

    def objects(self, key, optional=False):
        """The Fields of each element of an array of objects ([] for an absent or null array
        where optional)."""
        items = self.get(key, list, optional, nullable=optional) or []
        out = []
        for i, item in enumerate(items):
            if not isinstance(item, dict):
                self.fail(f"{key}[{i}]", f"expected an object, found {json_words(item)}")
            out.append(Fields(self.path, item, f"{self.where}{key}[{i}]."))
        return out


def unique(path, items, key_of, array):
    """Raises when two items of an array share their identity: one would hide the other."""
    first = {}
    for i, item in enumerate(items):
        key = key_of(item)
        if key in first:
            shown = "/".join(quoted(k)[1:-1] if isinstance(k, str) else str(k) for k in key)
            raise BadResultsFile(path, f"{array}[{i}]: a second record of {shown} (first: "
                                       f"{array}[{first[key]}])")
        first[key] = i


def check_regular_file(path: Path):
    """Raises BadResultsFile unless PATH is a regular file (links followed): reading a FIFO
    would wait forever for a writer, and a folder or device is never a results file."""
    try:
        path.stat()
    except (FileNotFoundError, NotADirectoryError):
        if path.is_symlink():  # listed by ls, so "no such file" would puzzle
            raise BadResultsFile(path, f"a symbolic link to {os.readlink(path)}, which does "
                                       "not exist") from None
        raise BadResultsFile(path, "no such file") from None
    except OSError as e:  # a name too long for the file system, a folder without permission
        raise BadResultsFile(path, f"cannot be read: {e.strerror}") from None
    if path.is_dir():
        raise BadResultsFile(path, "is a directory, not a results file")
    if not path.is_file():
        kind = "a FIFO" if path.is_fifo() else "a device or socket"
        raise BadResultsFile(path, f"is {kind}, not a regular file")


def read_document(path, kind: str):
    """The JSON document in the file at PATH, read strictly (parse): kind (e.g. 'layerbench
    results file') is what its messages say the file is not. Raises BadResultsFile naming the
    file: not a regular file, unreadable, not UTF-8, not JSON, nested too deeply."""
    path = Path(path)
    check_regular_file(path)
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise BadResultsFile(path, f"cannot be read: {e.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise BadResultsFile(path, f"not UTF-8 text (byte 0x{raw[e.start]:02x} at offset "
                                   f"{e.start}): not a {kind}") from None
    return parse(path, text, kind)
