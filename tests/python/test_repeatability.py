"""repeatability.py on copies of a real results file (fixtures/real/complete.json) with chosen
times: the figures it prints are the ones the copies were given."""
import json

import pytest

from conftest import ROOT, run_script, write_json

COMPLETE = ROOT / "tests/python/fixtures/real/complete.json"


def copy(tmp_path, name, point_factor=1.0, sum_factor=1.0, unstable=0, canary_ms=None):
    """complete.json with every timed point's median times point_factor, every model sum's rate
    times sum_factor, the first `unstable` timed points marked unstable and, given canary_ms,
    a canary of that quiet compute time in 10 readings, 2 of them slow (TEST DATA)."""
    doc = json.loads(COMPLETE.read_text())
    if canary_ms is not None:
        doc["context"].setdefault("machine_state", {})["canary"] = {
            "readings": 10, "slow_readings": 2, "memory_slow_readings": 0,
            "compute_unit_ms": canary_ms}
    timed = [p for p in doc["points"] if isinstance(p.get("timing"), dict)]
    for i, p in enumerate(timed):
        p["timing"]["median_ms"] *= point_factor
        p["timing"]["unstable"] = i < unstable
    for m in doc["models"]:
        if m["status"] == "ok":
            m["images_per_s"] *= sum_factor
    return write_json(tmp_path / name, doc)


def line_of(output, start):
    return next(line for line in output.splitlines() if line.startswith(start))


def test_the_figures_are_those_of_the_runs(tmp_path):
    runs = [copy(tmp_path, "a.json"), copy(tmp_path, "b.json", 1.2, 1.04, unstable=3),
            copy(tmp_path, "c.json", 1.2, 0.9, canary_ms=0.0975)]
    proc = run_script("repeatability.py", *runs)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    # Each sum's median is the first run's rate; the third is 10% under it, outside 5%.
    fp32_batch_1 = line_of(out, "tiny   cpu     FP32       fwd       1").split()
    assert fp32_batch_1[-2:] == ["10.0%", "no"]
    # Every point 20% slower from run 1 to 2, unchanged from 2 to 3.
    assert line_of(out, "1 -> 2").split()[3:6] == ["20.0%", "/", "20.0%"]
    assert line_of(out, "2 -> 3").split()[3:6] == ["0.0%", "/", "0.0%"]
    timed = len([p for p in json.loads(COMPLETE.read_text())["points"]
                 if isinstance(p.get("timing"), dict)])
    assert line_of(out, "2 -> 3").endswith(f"0 of {timed}")
    run_rows = [line_of(out, f"  {i}  ").split() for i in (1, 2, 3)]
    assert [row[3] for row in run_rows] == ["0", "3", "0"]  # unstable points
    assert run_rows[0][5:] == ["-", "-", "-"] and run_rows[2][5:] == ["0.0975", "20.0%", "0.0%"]


def test_within_sets_what_a_repeatable_sum_is(tmp_path):
    # Rates 1, 1 and 1.08 times the first: the median is the first, the third 8% over it.
    runs = [copy(tmp_path, "a.json"), copy(tmp_path, "b.json", point_factor=1.01),
            copy(tmp_path, "c.json", sum_factor=1.08)]
    for within, word in (("5", "no"), ("10", "yes")):
        proc = run_script("repeatability.py", *runs, "--within", within)
        assert proc.returncode == 0, proc.stderr
        assert line_of(proc.stdout, "tiny   cpu     FP32       fwd       1").split()[-1] == word


@pytest.mark.parametrize("args, problem", [
    ([COMPLETE], "at least two results files"),
    ([COMPLETE, COMPLETE], "given twice"),
    ([COMPLETE, ROOT / "README.md"], "README.md"),
    # A real run killed (SIGKILL) before its first point: nothing to compare.
    ([COMPLETE, COMPLETE.with_name("sigkill_0.json")], "holds no points"),
    ([COMPLETE, COMPLETE.with_name("complete_again.json"), "--within", "nan"], "--within"),
])
def test_bad_input_is_one_line_and_exit_2(args, problem):
    proc = run_script("repeatability.py", *args)
    assert proc.returncode == 2
    assert problem in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
