#!/usr/bin/env python3
"""A mutation fuzzer of the Python readers: report.py and compare.py run on mutated copies of
real results files (reports/reference/, tests/python/fixtures/), for a bounded time.

    reports_fuzz.py [--seconds N] [--seed S] [--cases N] [--artifacts DIR] [--keep-going]

Each case mutates a seed file (a field deleted, its type changed, NaN, infinity, huge and tiny
numbers, an empty array or object, the same change made to every element of an array, a
duplicate key, bytes that are not UTF-8, the file cut short) and runs report.py or compare.py on
it in this process. Every run must end in exit 0 (1 for compare.py's --fail-above gate), or in
exit 2 with one line on stderr; an exception that escapes (a traceback) or another exit code
fails the fuzzer. The seed is printed first; a failure prints the case's number and mutations,
keeps its inputs in DIR and exits 1, so that `--seed S` replays it.
"""
from __future__ import annotations

import argparse
import contextlib
import copy
import io
import json
import math
import random
import shutil
import sys
import tempfile
import time
import traceback
from pathlib import Path

from layerbench_report import charts, cli, compare

ROOT = Path(__file__).resolve().parents[2]

# Charts are drawn in full but written at a low resolution, for more cases in the fuzzer's
# time: no input reaches the PNG encoding that the drawing did not meet first.
charts.DPI = 20

SEEDS = sorted([*ROOT.glob("reports/reference/*.json"),
                *ROOT.glob("tests/python/fixtures/*.json"),
                *ROOT.glob("tests/python/fixtures/real/*.json")])

# Values a field is replaced with: every JSON type, the non-finite numbers (json.dumps writes
# NaN and Infinity), the extremes of a double, negatives and text with a newline.
VALUES = [None, True, False, 0, -1, 1, 3, 2 ** 31, 10 ** 400, 0.0, -0.0, 1e-308, 5e-324, 1e308,
          -1e308, float("nan"), float("inf"), float("-inf"), "", "x", "3", "NaN", "two\nlines",
          [], [1], ["x"], [None], {}, {"x": 1}]
# The arrays of records a file has: a mutation of one field of every record (every point
# failed, no point with a shape) makes files that are well-formed but unusual.
RECORDS = (("points",), ("models",), ("boundaries",), ("context", "devices"))


def places(node, path=()):
    """Every path (a tuple of keys and indices) to a value inside the document."""
    yield path
    items = node.items() if isinstance(node, dict) else \
        enumerate(node) if isinstance(node, list) else ()
    for key, child in items:
        yield from places(child, path + (key,))


def at(doc, path):
    for key in path:
        doc = doc[key]
    return doc


def siblings(doc, path):
    """The paths of the same field in every element of the array the path goes through last
    (points[3].status -> points[*].status): the mutations of a whole kind of record."""
    for i in range(len(path) - 1, -1, -1):
        if isinstance(path[i], int):
            array, rest = at(doc, path[:i]), path[i + 1:]
            out = []
            for j in range(len(array)):
                with contextlib.suppress(KeyError, IndexError, TypeError):
                    at(array[j], rest)
                    out.append(path[:i] + (j,) + rest)
            return out
    return [path]


def replace(doc, path, value):
    if path:
        at(doc, path[:-1])[path[-1]] = copy.deepcopy(value)
        return doc
    return copy.deepcopy(value)


def delete(doc, path):
    parent = at(doc, path[:-1])
    del parent[path[-1]]


def name(path) -> str:
    return "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in path).lstrip(".") or "(top)"


# Objects whose keys are free text (a point's notes, a device's facts): their keys count as one
# field, so that the fields every point has are drawn as often as they matter.
FREE_FORM = ("notes", "facts", "absent", "libraries", "model_files", "kind_ms", "kind_share",
             "time_share", "gpus", "peaks", "backends", "library_names")


def field_name(path) -> str:
    """A path's field with its array indices left out (points[3].status -> points.status) and
    the keys of free-form objects as * (points[3].notes.layout -> points.notes.*)."""
    names = []
    for k in path:
        if not isinstance(k, int):
            names.append("*" if names and names[-1] in FREE_FORM else str(k))
    return ".".join(names)


def domains(seeds) -> dict:
    """{field name: its values} for the text and integer fields of a small set of values in the
    seed files (statuses, precisions, passes, device ids, batches), which a mutation mostly swaps
    for one another."""
    values = {}
    for seed in seeds:
        doc = json.loads(seed.read_bytes())
        for path in places(doc):
            value = at(doc, path)
            if isinstance(value, str) and len(value) < 24 or type(value) is int:
                values.setdefault(field_name(path), set()).add(value)
    return {k: sorted(v, key=repr) for k, v in values.items() if 1 < len(v) <= 16}


DOMAINS = domains(SEEDS)


def draw_path(rng, doc):
    """A place in the document to mutate. Half the time a field of one record of its arrays
    (points, models, ...), else any field; either way the field is drawn among field names,
    then among its places, so that a field found once (context.machine_state) is as likely as
    one in every point."""
    arrays = [r for r in RECORDS if isinstance(at_or_none(doc, r), list) and at(doc, r)]
    root = ()
    if arrays and rng.random() < 0.5:
        array = rng.choice(arrays)
        root = array + (rng.randrange(len(at(doc, array))),)
    by_field = {}
    for p in places(at(doc, root), root):
        by_field.setdefault(field_name(p), []).append(p)
    return rng.choice(by_field[rng.choice(sorted(by_field))])


def at_or_none(doc, path):
    try:
        return at(doc, path)
    except (KeyError, IndexError, TypeError):
        return None


def mutate_document(rng, doc, log):
    """One mutation of the parsed document (in place where it can; returns the new top)."""
    path = draw_path(rng, doc)
    target = at(doc, path)
    domain = DOMAINS.get(field_name(path))
    choice = rng.random()
    if choice < 0.15 and path:
        delete(doc, path)
        log.append(f"delete {name(path)}")
    elif choice < 0.25 and path:
        for p in reversed(siblings(doc, path)):
            delete(doc, p)
        log.append(f"delete every {name(path)}")
    elif choice < 0.5:
        value = rng.choice(domain if domain and rng.random() < 0.7 else VALUES)
        for p in siblings(doc, path):
            doc = replace(doc, p, value)
        log.append(f"set every {name(path)} to {value!r}")
    elif choice < 0.55 and isinstance(target, (list, dict)):
        doc = replace(doc, path, [] if isinstance(target, list) else {})
        log.append(f"empty {name(path)}")
    elif choice < 0.65 and isinstance(target, (int, float)) and not isinstance(target, bool):
        value = rng.choice([target * 1e300, target * 1e-300, -target, target + 0.5])
        doc = replace(doc, path, value)
        log.append(f"scale {name(path)} to {value!r}")
    elif choice < 0.75 and isinstance(target, list) and target:
        target.append(copy.deepcopy(rng.choice(target)))
        log.append(f"duplicate an element of {name(path)}")
    else:
        value = rng.choice(domain if domain and rng.random() < 0.5 else VALUES)
        doc = replace(doc, path, value)
        log.append(f"set {name(path)} to {value!r}")
    return doc


def mutate_bytes(rng, raw: bytes, log) -> bytes:
    """A mutation of the file's bytes: cut short, bytes that are not UTF-8, a duplicate key."""
    choice = rng.random()
    if choice < 0.4:
        cut = rng.randrange(len(raw))
        log.append(f"cut at byte {cut}")
        return raw[:cut]
    if choice < 0.7:
        at_byte = rng.randrange(len(raw))
        log.append(f"insert bytes 0xff 0xfe at {at_byte}")
        return raw[:at_byte] + b"\xff\xfe" + raw[at_byte:]
    opening = [i for i, b in enumerate(raw) if b == ord("{")]
    if not opening:
        return raw
    i = rng.choice(opening)
    closing = raw.find(b"\"", i + 1)
    end = raw.find(b"\"", closing + 1)
    key = raw[closing:end + 1]
    log.append(f"duplicate key {key.decode(errors='replace')} after byte {i}")
    return raw[:i + 1] + key + b": 1, " + raw[i + 1:]


def mutated_file(rng, seed: Path, out: Path, log) -> Path:
    raw = seed.read_bytes()
    log.append(f"from {seed.relative_to(ROOT)}")
    if rng.random() < 0.15:
        out.write_bytes(mutate_bytes(rng, raw, log))
        return out
    doc = json.loads(raw)
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        doc = mutate_document(rng, doc, log)
    out.write_text(json.dumps(doc))
    return out


def run(main, argv):
    """(exit code, stdout, stderr) of one in-process run."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 2 if e.code else 0
    return code, out.getvalue(), err.getvalue()


def case(rng, work: Path, log) -> str:
    """One fuzz case: the command line and the check of how it ended (raises AssertionError).
    Returns the tool and its exit code."""
    seed = rng.choice(SEEDS)
    mutated = mutated_file(rng, seed, work / "mutated.json", log)
    if rng.random() < 0.5:
        argv = [str(mutated), "-o", str(work / "report")]
        if rng.random() < 0.2:
            argv.insert(0, str(rng.choice(SEEDS)))
        tool, main, codes = "report.py", cli.main, (0, 2)
    else:
        base = rng.choice([seed, *SEEDS])
        pair = [str(base), str(mutated)] if rng.random() < 0.7 else [str(mutated), str(base)]
        argv = pair + rng.choice([[], [], ["--fail-above", "5"], ["--threshold", "1"],
                                  ["--more-new", str(mutated)], ["--more-base", str(base)]])
        tool, main, codes = "compare.py", compare.main, (0, 1, 2)
    log.append(f"{tool} {' '.join(argv)}")
    code, _, err = run(main, argv)
    lines = err.strip().splitlines()
    if code not in codes:
        raise AssertionError(f"exit {code}; stderr:\n{err}")
    if code == 2 and len(lines) != 1:
        raise AssertionError(f"exit 2 with {len(lines)} lines on stderr (expected one):\n{err}")
    return f"{tool} exit {code}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float,
                    help="how long to fuzz (default 60; with --cases, until they are done)")
    ap.add_argument("--seed", type=int, help="the random seed (default: from the clock)")
    ap.add_argument("--cases", type=int, help="stop after this many cases")
    ap.add_argument("--artifacts", type=Path, default=Path("reports-fuzz-artifacts"),
                    help="where a failing case's inputs are kept")
    ap.add_argument("--keep-going", action="store_true",
                    help="go on after a failure and list each distinct one at the end")
    args = ap.parse_args(argv)
    if args.seconds is None:
        args.seconds = math.inf if args.cases else 60
    seed = args.seed if args.seed is not None else time.time_ns() % 2 ** 32
    print(f"reports_fuzz: seed {seed} ({len(SEEDS)} seed files, {args.seconds:g} s)", flush=True)
    rng = random.Random(seed)
    start, n, codes, failures = time.monotonic(), 0, {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        while time.monotonic() - start < args.seconds and (args.cases is None or n < args.cases):
            n += 1
            log = []
            try:
                ending = case(rng, work, log)
            except Exception as e:  # noqa: BLE001 - any escape is what the fuzzer looks for
                kind = signature(e)
                if kind in failures:
                    continue
                failures[kind] = n
                kept = args.artifacts / f"case-{n}.json"
                args.artifacts.mkdir(parents=True, exist_ok=True)
                shutil.copy(work / "mutated.json", kept)
                detail = e.args[0] if isinstance(e, AssertionError) else traceback.format_exc()
                print(f"reports_fuzz: case {n} of seed {seed} failed ({kind}):\n  " +
                      "\n  ".join(log) + f"\n{detail}\ninput kept as {kept}; replay with "
                      f"--seed {seed} --cases {n}", file=sys.stderr, flush=True)
                if not args.keep_going:
                    return 1
                continue
            codes[ending] = codes.get(ending, 0) + 1
    print(f"reports_fuzz: {n} cases in {time.monotonic() - start:.0f} s "
          f"({', '.join(f'{v} {k}' for k, v in sorted(codes.items()))}), "
          + (f"{len(failures)} distinct failure(s): " + "; ".join(
              f"{k} (case {c})" for k, c in failures.items()) if failures else "no failure"))
    return 1 if failures else 0


def signature(e: Exception) -> str:
    """What tells two failures apart: the exception and where it was raised, or for a run that
    ended wrongly the way it ended."""
    if isinstance(e, AssertionError):
        return e.args[0].splitlines()[0] if e.args else "AssertionError"
    frame = traceback.extract_tb(e.__traceback__)[-1]
    return f"{type(e).__name__} at {Path(frame.filename).name}:{frame.lineno}"


if __name__ == "__main__":
    sys.exit(main())
