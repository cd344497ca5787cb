"""A FIFO given as any file argument of the report tools is refused, naming it, instead of the
read waiting forever for a writer. Each run is bounded (timeout): a regression fails, never hangs.
"""
import os
import subprocess
import sys

import pytest

from conftest import GPU_A, REPORTS, SCRIPTS, run_script


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "fifo.json"
    os.mkfifo(path)
    return path


def assert_refused_naming(proc, fifo):
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert str(fifo) in proc.stderr and "not a regular file" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("where", ["results", "framework"])
def test_report_refuses_a_fifo(tmp_path, fifo, where):
    args = {"results": [GPU_A, fifo], "framework": [GPU_A, "--framework", fifo]}[where]
    proc = run_script("report.py", *args, "-o", tmp_path / "out", timeout=60)
    assert_refused_naming(proc, fifo)


@pytest.mark.parametrize("position", ["base", "new"])
def test_compare_refuses_a_fifo(fifo, position):
    args = (fifo, GPU_A) if position == "base" else (GPU_A, fifo)
    assert_refused_naming(run_script("compare.py", *args, timeout=60), fifo)


def test_fleet_skips_a_fifo_in_its_results_folder(tmp_path):
    """fleet.sh --resume and the report job read DIR/results: a FIFO there is warned about."""
    results = tmp_path / "results"
    results.mkdir()
    os.mkfifo(results / "alpha-node7-11.json")  # a results file's name
    os.mkfifo(results / "alpha-node7-11.doctor.json")  # a doctor report's name
    code = ("import pathlib, sys, fleet\n"
            "print(len(fleet.load_results_dir(pathlib.Path(sys.argv[1]), print)[0]))")
    proc = subprocess.run([sys.executable, "-c", code, str(results)], capture_output=True,
                          text=True, timeout=60, env={**os.environ, "PYTHONPATH": os.pathsep.join(
                              [str(SCRIPTS / "slurm"), str(SCRIPTS), str(REPORTS)])})
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 3 and lines[-1] == "0", proc.stdout  # two warnings, no results
    assert all("not a regular file" in line for line in lines[:2]), proc.stdout
