"""The report of a real CPU results file, measured here by `layerbench run` (ResNet-50 forward,
batch 1, FP32, a short time cap per point). Needs LAYERBENCH_BINARY (scripts/test.sh sets it)
or a build in build/."""
import csv
import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import CHROMIUM, ROOT, png_size, run_script, screenshot

from layerbench_report.markup import fmt_rate

RUN_ARGS = ["run", "--device", "cpu", "--model", "resnet50", "--batch", "1", "--precision", "fp32",
            "--pass", "fwd", "--max-time-per-point", "0.05", "--quiet"]


def binary():
    path = Path(os.environ.get("LAYERBENCH_BINARY") or ROOT / "build" / "layerbench")
    if not path.is_file():
        pytest.skip(f"no layerbench binary at {path}: build it, or set LAYERBENCH_BINARY")
    return path


@pytest.fixture(scope="module")
def cpu_results(tmp_path_factory):
    exe = binary()
    out = tmp_path_factory.mktemp("cpu_run") / "cpu.json"
    proc = subprocess.run([str(exe), *RUN_ARGS, "-o", str(out)], capture_output=True, text=True,
                          timeout=900)
    if proc.returncode != 0:
        pytest.fail(f"layerbench {' '.join(RUN_ARGS)} failed ({proc.returncode}):\n"
                    f"{proc.stderr[-3000:]}")
    return out


def test_report_of_a_real_cpu_run(cpu_results, tmp_path, capsys):
    doc = json.loads(cpu_results.read_text())
    assert doc["status"] == "complete"
    ok = [p for p in doc["points"] if p["status"] == "ok"]
    assert ok, "the run measured nothing"
    proc = run_script("report.py", cpu_results, "-o", tmp_path)
    assert proc.returncode == 0, proc.stderr
    page = (tmp_path / "index.html").read_text()
    summary = (tmp_path / "summary.md").read_text()
    # The headline states the measured CPU throughput and that no GPU results are present.
    record = next(r for r in doc["models"] if r["model"] == "resnet50" and r["pass"] == "fwd"
                  and r["precision"] == "fp32" and r["batch"] == 1)
    assert record["status"] == "ok", record
    figure = f"{fmt_rate(record['images_per_s'])} images/s in FP32 at batch 1"
    for text in (page, summary):
        assert "ResNet-50 v1.5 forward on" in text
        assert figure in text
        assert "No GPU results are present in these files" in text
    cpu = next(d for d in doc["context"]["devices"] if d["kind"] == "cpu")
    assert cpu["name"] in page
    with open(tmp_path / "results.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(doc["points"])
    assert {r["op"] for r in rows} == {p["op"] for p in doc["points"]}
    if CHROMIUM:
        shot = screenshot(tmp_path / "index.html", tmp_path / "report-cpu-run.png",
                          tmp_path / "profile")
        assert png_size(shot) == (1400, 4000)
        with capsys.disabled():
            print(f"\nscreenshot of the CPU run's report: {shot}")


def test_compare_a_real_run_with_itself(cpu_results):
    proc = run_script("compare.py", cpu_results, cpu_results, "--fail-above", "0")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    n = len(json.loads(cpu_results.read_text())["points"])
    timed = sum(1 for p in json.loads(cpu_results.read_text())["points"] if p["timing"])
    assert f"{n} points in both files: {timed} SAME" in proc.stdout
    # The canary the run really read: its quiet time on both sides, NEW/BASE 1.
    canary_ms = json.loads(cpu_results.read_text())["context"]["machine_state"]["canary"][
        "compute_unit_ms"]
    assert (f"read {canary_ms:.4f} ms in BASE and {canary_ms:.4f} ms in NEW: NEW/BASE 1.000"
            in proc.stdout), proc.stdout


def test_library_versions_are_recorded_once(cpu_results, tmp_path):
    """context.libraries has every library's version and no device's facts repeat one
    (reports/results-schema.md); the report shows them from there. Files written before this
    repeated them in the facts (tests/python/fixtures/real/) and still load."""
    doc = json.loads(cpu_results.read_text())
    libraries = doc["context"]["libraries"]
    assert libraries.get("onednn"), libraries
    for dev in doc["context"]["devices"]:
        repeated = [k for k in dev["facts"] if k in libraries or "version" in k
                    or k in ("cudnn", "cublaslt", "cuda_runtime")]
        assert not repeated, f"{dev['id']} repeats library versions in its facts: {repeated}"
    proc = run_script("report.py", cpu_results, "-o", tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert f"onednn {libraries['onednn']}" in (tmp_path / "index.html").read_text()
