"""TF32 and FP8 model sums as frameworks run them: the convolutions and GEMMs in TF32 (FP8), the
memory-bound layers in FP32 (BF16). The binary sums them so and states it per record
(layer_precisions); the report reads that statement and says it under the tables."""
import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT, write_json

from layerbench_report import cli, op_kinds, results_file
from layerbench_report.checked_json import BadResultsFile
from layerbench_report.data import Data
from layerbench_report.layer_precisions import point_precision, substitution_note
from layerbench_report.uncertainty import noise, record_uncertainty

PRECISIONS_FILE = ROOT / "reports" / "reference" / "gpu-check-20261204T1702Z-precisions.json"
TEST_BINARY = "layerbench_with_test_accelerator"
NOTE = "TF32: memory-bound layers in FP32, as frameworks run them."
# TF32 alone: the run has to plan the FP32 memory-bound points its sums take.
TF32_RUN = ["run", "--device", "auto", "--model-file",
            str(ROOT / "tests" / "data" / "models" / "tiny_memory.json"), "--model", "tiny_memory",
            "--batch", "2", "--precision", "tf32", "--pass", "fwd",
            "--max-time-per-point", "0.05", "--cpu-roofs", "skip", "--quiet"]


def is_matrix(p):
    return p["kind"] in op_kinds.COMPUTE_KINDS


def rule_sum_ms(doc, record):
    """count x median over the record's points: matrix kinds in its precision, memory-bound
    kinds in FP32 (the rule, for a TF32 record)."""
    return sum(p["count"] * p["timing"]["median_ms"] for p in doc["points"]
               if p["model"] == record["model"] and p["device"] == record["device"] and
               p["batch"] == record["batch"] and p["pass"] == "fwd" and
               p["precision"] == ("tf32" if is_matrix(p) else "fp32"))


@pytest.fixture(scope="module")
def tf32_run(tmp_path_factory):
    exe = Path(os.environ.get("LAYERBENCH_TEST_ACCELERATOR_BINARY")
               or ROOT / "build" / "tests" / TEST_BINARY)
    if not exe.is_file():
        pytest.skip(f"no {TEST_BINARY} at {exe}: build the tests, or set "
                    "LAYERBENCH_TEST_ACCELERATOR_BINARY")
    out = tmp_path_factory.mktemp("tf32") / "run.json"
    proc = subprocess.run([str(exe), *TF32_RUN, "-o", str(out)], capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out, json.loads(out.read_text(encoding="utf-8"))


def test_tf32_alone_plans_and_sums_the_fp32_memory_bound_layers(tf32_run):
    _, doc = tf32_run
    accel = [d["id"] for d in doc["context"]["devices"] if d["kind"] == "test_accelerator"]
    assert accel
    for dev in accel:
        mine = [p for p in doc["points"] if p["device"] == dev]
        fp32 = [p for p in mine if p["precision"] == "fp32"]
        # Every memory-bound op once in FP32, noted as planned for the TF32 sums; no FP32 conv.
        assert fp32 and all(not is_matrix(p) for p in fp32)
        assert {p["op"] for p in fp32} == {p["op"] for p in mine if not is_matrix(p)}
        assert {p["notes"].get("planned_for") for p in fp32} == {"tf32"}
        assert all("planned_for" not in p["notes"] for p in mine if p["precision"] == "tf32")
        records = [r for r in doc["models"] if r["device"] == dev]
        # The FP32 points make no FP32 sum of their own.
        assert [r["precision"] for r in records] == ["tf32"]
        r = records[0]
        assert r["status"] == "ok", r["reason"]
        assert r["layer_precisions"] == {p["kind"]: ("tf32" if is_matrix(p) else "fp32")
                                         for p in mine}
        assert r["time_ms"] == pytest.approx(rule_sum_ms(doc, r), rel=1e-9)


def test_the_report_says_where_the_memory_bound_layers_came_from(tf32_run, tmp_path):
    path, doc = tf32_run
    assert cli.main([str(path), "-o", str(tmp_path / "out")]) == 0
    page = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    assert NOTE in page
    # The same file with every layer stated in TF32 (as older files summed) says nothing of it.
    for r in doc["models"]:
        r["layer_precisions"] = {k: r["precision"] for k in r["layer_precisions"]}
    plain = write_json(tmp_path / "plain.json", doc)
    assert cli.main([str(plain), "-o", str(tmp_path / "plain")]) == 0
    assert NOTE not in (tmp_path / "plain" / "index.html").read_text(encoding="utf-8")


def test_a_tf32_sums_uncertainty_weighs_its_fp32_memory_bound_points():
    """On the real H200 file: a TF32 record stating FP32 memory-bound layers takes their
    uncertainty, each point weighted by its count x median, as the record's sum does."""
    doc = json.loads(PRECISIONS_FILE.read_text(encoding="utf-8"))
    layers = {p["kind"]: ("tf32" if is_matrix(p) else "fp32") for p in doc["points"]
              if p["model"] == "resnet50"}
    # The file's TF32 record is unsupported (written before the rule); the test states the rule.
    record = {"model": "resnet50", "device": "gpu:0", "precision": "tf32", "pass": "fwd",
              "batch": 32, "status": "ok", "layer_precisions": layers}
    data = Data([results_file.check(PRECISIONS_FILE, doc)])
    device = data.devices[0]
    summed = [p for p in doc["points"] if p["model"] == "resnet50" and p["batch"] == 32 and
              p["precision"] == layers[p["kind"]]]
    assert any(p["precision"] == "fp32" for p in summed)
    weights = [p["count"] * p["timing"]["median_ms"] for p in summed]
    expected = sum(w * noise(p) for w, p in zip(weights, summed)) / sum(weights)
    assert record_uncertainty(data, "resnet50", device, record) == pytest.approx(expected)
    assert point_precision(record, "batch_norm") == "fp32"
    assert point_precision(record, "conv") == "tf32"
    # Without the statement (an older file) every layer is the record's own precision.
    del record["layer_precisions"]
    assert point_precision(record, "batch_norm") == "tf32"
    assert substitution_note([record]) == ""


def test_substitution_note_once_per_precision():
    tf32 = {"precision": "tf32", "layer_precisions": {"conv": "tf32", "batch_norm": "fp32"}}
    fp8 = {"precision": "fp8", "layer_precisions": {"linear": "fp8", "layer_norm": "bf16"}}
    fp32 = {"precision": "fp32", "layer_precisions": {"conv": "fp32", "batch_norm": "fp32"}}
    assert substitution_note([fp8, tf32, tf32, fp32]) == (
        NOTE + " FP8: memory-bound layers in BF16, as frameworks run them.")
    assert substitution_note([fp32]) == ""


def test_a_layer_precision_that_is_no_precision_is_refused(tmp_path):
    doc = json.loads(PRECISIONS_FILE.read_text(encoding="utf-8"))
    doc["models"][0]["layer_precisions"] = {"conv": "fp64"}
    with pytest.raises(BadResultsFile, match=r"models\[0\]\.layer_precisions\.conv"):
        results_file.check(PRECISIONS_FILE, doc)
