"""Loadable but malformed results files (copies of a real file with one field broken): report.py
and compare.py exit 2 with one line naming the file and the field, never a traceback; and no
regression gate passes on a value it cannot compare."""
import json

import pytest

from conftest import FIXTURES, read_fixture, run_script

from layerbench_report import compare
from layerbench_report import cli

REAL = FIXTURES / "real"
COMPLETE = REAL / "complete.json"


def first_ok(doc, key="points"):
    return next(i for i, x in enumerate(doc[key]) if x["status"] == "ok")


def set_median(value):
    def mutate(doc):
        i = first_ok(doc)
        doc["points"][i]["timing"]["median_ms"] = value
        return f"points[{i}].timing.median_ms"
    return mutate


def set_model(key, value):
    def mutate(doc):
        i = first_ok(doc, "models")
        doc["models"][i][key] = value
        return f"models[{i}].{key}"
    return mutate


def set_context(key, value):
    def mutate(doc):
        doc["context"][key] = value
        return f"context.{key}"
    return mutate


def set_peaks(doc):
    doc["context"]["devices"][0]["peaks"] = "0.1 TFLOP/s"
    return "context.devices[0].peaks: expected an object, found a string"


def zero_batch(doc):
    doc["points"][3]["batch"] = 0
    return "points[3].batch: must be a positive integer below 2^31, is 0"


def duplicate_point(doc):
    doc["points"].append(dict(doc["points"][0]))
    n = len(doc["points"]) - 1
    return f"points[{n}]: a second record of tiny/stem/1/fp32/fwd/cpu (first: points[0])"


NAN = float("nan")
INF = float("inf")
# (id, mutation returning the field (and problem) the message must name)
CASES = [
    ("libraries-string", set_context("libraries", "onednn 2.6.3"),
     "context.libraries: expected an object, found a string"),
    ("libraries-list", set_context("libraries", ["onednn"]),
     "context.libraries: expected an object, found an array"),
    ("peaks-string", set_peaks, ""),
    ("time_ms-NaN", set_model("time_ms", NAN), "expected a finite number, found NaN"),
    ("time_ms-zero", set_model("time_ms", 0), "must be positive, is 0"),
    ("median-NaN", set_median(NAN), "expected a finite number, found NaN"),
    ("median-null", set_median(None), "expected a finite number, found null"),
    ("median-Infinity", set_median(INF), "expected a finite number, found infinity"),
    ("median-minus-Infinity", set_median(-INF), "expected a finite number, found infinity"),
    ("median-1e400", set_median("1e400"), "expected a finite number, found infinity"),
    ("median-negative", set_median(-0.5), "must be positive, is -0.5"),
    ("median-zero", set_median(0), "must be positive, is 0"),
    # Finite, yet a rate of 1 / 5e-324 is infinite: the report's axes refused it (a traceback).
    ("median-denormal", set_median(5e-324), "5e-324 is beyond what the report computes with"),
    ("median-1e300", set_median(1e300), "1e+300 is beyond what the report computes with"),
    ("images_per_s-1e-200", set_model("images_per_s", 1e-200), "1e-200 is beyond"),
    ("batch-zero", zero_batch, ""),
    ("duplicate-point", duplicate_point, ""),
]


def write(tmp_path, doc, name="bad.json"):
    """json.dumps writes NaN and Infinity as the literals Python's json reads back; "1e400"
    is put in as a number too large for a double."""
    text = json.dumps(doc).replace('"1e400"', "1e400")
    path = tmp_path / name
    path.write_text(text)
    return path


def broken(tmp_path, mutate):
    doc = read_fixture(COMPLETE)
    field = mutate(doc)
    return write(tmp_path, doc), field


def assert_one_line(err, script, path, field, problem):
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"{script}: {path}: {field}"), lines[0]
    assert problem in lines[0]


@pytest.mark.parametrize("mutate, problem", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_report_names_the_broken_field(tmp_path, capsys, mutate, problem):
    path, field = broken(tmp_path, mutate)
    assert cli.main([str(path), "-o", str(tmp_path / "out")]) == 2
    assert_one_line(capsys.readouterr().err, "report.py", path, field, problem)
    assert not (tmp_path / "out" / "index.html").exists()


@pytest.mark.parametrize("mutate, problem", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_compare_names_the_broken_field(tmp_path, capsys, mutate, problem):
    path, field = broken(tmp_path, mutate)
    for args in ((path, COMPLETE), (COMPLETE, path)):
        assert compare.main([*map(str, args), "--fail-above", "5"]) == 2
        assert_one_line(capsys.readouterr().err, "compare.py", path, field, problem)


def test_the_gate_refuses_a_nan_median_in_new(tmp_path):
    """Once printed SLOWER and exited 0 with --fail-above 5: the gate was bypassed."""
    path, field = broken(tmp_path, set_median(NAN))
    assert "NaN" in path.read_text()
    proc = run_script("compare.py", COMPLETE, path, "--fail-above", "5")
    assert proc.returncode == 2, proc.stdout
    assert_one_line(proc.stderr, "compare.py", path, field, "expected a finite number")
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("case", ["libraries-string", "peaks-string", "time_ms-NaN"])
def test_report_process_exits_2_without_a_traceback(tmp_path, case):
    mutate, problem = next(c[1:] for c in CASES if c[0] == case)
    path, field = broken(tmp_path, mutate)
    proc = run_script("report.py", path, "-o", tmp_path / "out")
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert_one_line(proc.stderr, "report.py", path, field, problem)


def test_the_gate_fails_when_new_did_not_time_a_point_base_timed(tmp_path, capsys):
    doc = read_fixture(COMPLETE)
    i = first_ok(doc)
    doc["points"][i].update(status="oom", reason="out of memory", timing=None, tflops=None,
                            gbps=None, validation=None)
    new = write(tmp_path, doc, "new.json")
    assert compare.main([str(COMPLETE), str(new)]) == 0  # without a gate: listed, not judged
    capsys.readouterr()
    assert compare.main([str(COMPLETE), str(new), "--fail-above", "1e12"]) == 1
    out = capsys.readouterr().out
    p = doc["points"][i]
    assert "NOT COMPARED: 1 point(s) timed in BASE have no time in NEW" in out
    assert f"tiny {p['op']} batch {p['batch']} FP32 fwd on cpu: NEW oom" in out


def test_a_null_noise_reads_as_no_noise(tmp_path, capsys):
    """A null noise (the writer's spelling of a noise it could not compute) is no recorded noise:
    a 0 tolerance."""
    doc = read_fixture(COMPLETE)
    for p in doc["points"]:
        if p["timing"]:
            p["timing"]["noise"] = None
    path = write(tmp_path, doc)
    assert compare.main([str(path), str(path)]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()
            if line.startswith("tiny ") and "NOT TIMED" not in line]
    assert rows and all(cells[10] == "0.0%" for cells in rows)  # the "within" column


def test_a_nan_noise_is_refused(tmp_path, capsys):
    """NaN is never the writer's (it writes null): such a file was edited or corrupted."""
    doc = read_fixture(COMPLETE)
    p = next(p for p in doc["points"] if p["timing"])
    p["timing"]["noise"] = NAN
    path = write(tmp_path, doc)
    assert compare.main([str(path), str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "timing.noise: expected a finite number, found NaN" in err and "\n" not in err


@pytest.mark.parametrize("text, problem", [
    ("[" * 100000 + "]" * 100000, "nested too deeply"),
    ('{"schema": "layerbench-results/1", "seed": ' + "9" * 5000 + "}", "not valid JSON"),
    ('{"schema": "layerbench-results/1", "status": "ok\\nok"}', "status: unknown value 'ok\\nok'"),
], ids=["deeply-nested", "5000-digit-integer", "newline-in-a-value"])
def test_json_python_cannot_hold_is_bad_input(tmp_path, capsys, text, problem):
    """Python's json raises RecursionError and ValueError (not JSONDecodeError) on these; a value
    with a newline must not break the one-line message."""
    path = tmp_path / "odd.json"
    path.write_text(text)
    assert cli.main([str(path), "-o", str(tmp_path / "out")]) == 2
    assert_one_line(capsys.readouterr().err, "report.py", path, "", problem)


def test_a_30_digit_integer_time_is_drawn_as_a_number(tmp_path, capsys):
    """JSON integers have no size limit; one reached matplotlib as a Python object and failed
    (found by test_properties.py)."""
    doc = read_fixture(COMPLETE)
    for p in doc["points"]:
        if p["status"] == "ok":
            p["timing"]["median_ms"] = 10 ** 30
    path = write(tmp_path, doc)
    assert cli.main([str(path), "-o", str(tmp_path / "out")]) == 0, capsys.readouterr().err
    assert (tmp_path / "out" / "index.html").is_file()
