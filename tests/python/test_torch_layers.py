"""scripts/torch_layers.py without PyTorch: the table, the argument handling and bad input.

The PyTorch timings written here are TEST DATA invented for the ratio arithmetic, not measurements.
"""
import importlib.util
import json

import pytest

from conftest import GPU_A, run_script


def gpu_ok_points():
    data = json.loads(GPU_A.read_text())
    return [p for p in data["points"] if p["device"].startswith("gpu") and p["status"] == "ok"]


def test_table_without_torch_lists_every_gpu_point():
    r = run_script("torch_layers.py", "table", GPU_A)
    assert r.returncode == 0, r.stderr
    data = json.loads(GPU_A.read_text())
    gpu = [p for p in data["points"] if p["device"].startswith("gpu")]
    lines = r.stdout.splitlines()
    assert lines[0].split()[:2] == ["layer", "pass"]
    assert f"{len(gpu)} GPU points" in r.stdout
    assert "no PyTorch timings given" in r.stdout
    # Every non-ok point shows its status and reason.
    assert any("unsupported" in line for line in lines)


def test_table_ratios_against_torch_timings(tmp_path):
    points = gpu_ok_points()[:3]
    # TEST DATA: PyTorch "took" exactly twice layerbench's time on each point.
    fake = {"torch": "test-data", "points": [
        {"model": p["model"], "op": p["op"], "batch": p["batch"], "precision": p["precision"],
         "pass": p["pass"], "status": "ok", "median_ms": 2 * p["timing"]["median_ms"], "reason": ""}
        for p in points]}
    torch_file = tmp_path / "torch.json"
    torch_file.write_text(json.dumps(fake))
    out = tmp_path / "table.txt"
    r = run_script("torch_layers.py", "table", GPU_A, "--torch", torch_file, "-o", out)
    assert r.returncode == 0, r.stderr
    assert r.stdout == ""
    text = out.read_text()
    assert text.count(" 0.500 ") == 3
    assert "3 compared: geometric-mean ratio 0.500, 3 within 3% of PyTorch or faster" in text


@pytest.mark.parametrize("args", [
    ["table"],
    ["measure", "x.json"],
    ["measure", "x.json", "-o", "y.json", "--max-time-per-point", "0"],
    ["measure", "x.json", "-o", "y.json", "--warmup", "0"],
    ["compare", "x.json"],
])
def test_bad_arguments_exit_2(args):
    r = run_script("torch_layers.py", *args)
    assert r.returncode == 2
    assert "error" in r.stderr


def test_missing_and_malformed_files_are_named(tmp_path):
    r = run_script("torch_layers.py", "table", tmp_path / "absent.json")
    assert r.returncode == 2
    assert "absent.json" in r.stderr and "not found" in r.stderr
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    r = run_script("torch_layers.py", "table", bad)
    assert r.returncode == 2 and "bad.json: not JSON" in r.stderr
    no_points = tmp_path / "empty.json"
    no_points.write_text("{}")
    r = run_script("torch_layers.py", "table", GPU_A, "--torch", no_points)
    assert r.returncode == 2 and "empty.json" in r.stderr


@pytest.mark.skipif(importlib.util.find_spec("torch") is not None, reason="PyTorch is installed here")
def test_measure_without_torch_says_so(tmp_path):
    r = run_script("torch_layers.py", "measure", GPU_A, "-o", tmp_path / "t.json")
    assert r.returncode == 1
    assert "PyTorch is not installed" in r.stderr
    assert not (tmp_path / "t.json").exists()
