"""A backend the report has never heard of, on a device type of its own, reaches every section.

fixtures/fixture_test_accelerator.json is TEST DATA (make_fixtures.py): "test_library" on two
"test_accelerator" devices, a second library on the first, and a CPU; its roles are in
context.backends, which is all the report may know of them. The same backend exists in C++ too
(tests/backends/test_accelerator, TEST DATA): the build's layerbench_with_test_accelerator
measures with it, and its real results file is reported here."""
import html
import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from conftest import FIXTURES, ROOT, read_fixture, write_json

from layerbench_report import cli, results_file
from layerbench_report.checked_json import BadResultsFile
from layerbench_report.sections import MODEL_SECTIONS

ACCELERATOR = FIXTURES / "fixture_test_accelerator.json"
DEVICE = "Test accelerator 0 (fixture)"
# Its subject is a framework's own run, which no framework makes on a test device.
NEEDS_A_FRAMEWORK = "Explained share: the estimate against a framework"
# Two libraries on one device: the fixture has them; the C++ test backend is one library.
NEEDS_TWO_LIBRARIES = "Library vs library on the same device"
TEST_BINARY = "layerbench_with_test_accelerator"
# Every memory-bound kind, two batches, and FP8, which the test backend refuses.
REAL_RUN = ["run", "--device", "auto", "--model-file",
            str(ROOT / "tests" / "data" / "models" / "tiny_memory.json"), "--model", "tiny_memory",
            "--batch", "1,2", "--precision", "fp32,bf16,fp8", "--pass", "fwd",
            "--max-time-per-point", "0.05", "--cpu-roofs", "skip", "--quiet"]


def sections(page):
    """{title: HTML} of the model sections, each from its heading to the next heading."""
    parts = re.split(r"<h3>(?:\d+\. )?([^<]+)</h3>", page)
    return {html.unescape(title): body for title, body in zip(parts[1::2], parts[2::2])}


def report_sections(doc, out):
    path = write_json(out.with_suffix(".json"), doc)
    assert cli.main([str(path), "-o", str(out)]) == 0
    return sections((out / "index.html").read_text(encoding="utf-8"))


def without_the_test_backend(doc):
    """The same file with the test backend's devices and points left out: the CPU alone."""
    def mine(item):
        return item["device"].startswith("test_accelerator")
    doc["context"]["devices"] = [d for d in doc["context"]["devices"] if d["kind"] == "cpu"]
    doc["points"] = [p for p in doc["points"] if not mine(p)]
    doc["models"] = [r for r in doc["models"] if not mine(r)]
    doc["boundaries"] = [b for b in doc["boundaries"] if not mine(b)]
    return doc


def test_its_points_reach_every_section(tmp_path):
    """Each section differs from the same file's without the test backend's points (charts show
    them as images, so the HTML is compared), and the tables name its device."""
    doc = read_fixture(ACCELERATOR)
    with_it = report_sections(doc, tmp_path / "with")
    without_it = report_sections(without_the_test_backend(doc), tmp_path / "without")
    for section in MODEL_SECTIONS:
        if section.title == NEEDS_A_FRAMEWORK:
            continue
        assert section.title in with_it, section.title
        assert with_it[section.title] != without_it[section.title], section.title
    assert DEVICE in with_it["Best throughput per device and precision"]
    # named as its descriptor names it; test_library_b gives no name and is shown as it is
    assert "Test Library A vs test_library_b" in with_it["Library vs library on the same device"]


def test_a_device_kind_no_backend_declares_is_refused(tmp_path):
    doc = read_fixture(ACCELERATOR)
    del doc["context"]["backends"]["test_library"]
    del doc["context"]["backends"]["test_library_b"]
    try:
        results_file.check(ACCELERATOR, doc)
    except BadResultsFile as e:
        assert "kind" in str(e) and "test_accelerator" in str(e)
    else:
        raise AssertionError("a device kind no backend declares was read")


def accelerator_binary():
    exe = Path(os.environ.get("LAYERBENCH_TEST_ACCELERATOR_BINARY")
               or ROOT / "build" / "tests" / TEST_BINARY)
    if not exe.is_file():
        pytest.skip(f"no {TEST_BINARY} at {exe}: build the tests, or set "
                    "LAYERBENCH_TEST_ACCELERATOR_BINARY")
    return exe


def test_its_doctor_verdict_comes_from_its_descriptor():
    """doctor names the test backend's devices usable, in its text and its JSON, beside the GPU's
    verdict, which this machine's NVIDIA stack gives whatever it is."""
    exe = accelerator_binary()
    args = [str(exe), "doctor", "--python", "none", "--cpu-peak", "skip"]
    text = subprocess.run(args, capture_output=True, text=True, timeout=300)
    report = json.loads(subprocess.run([*args, "--json"], capture_output=True, text=True,
                                       timeout=300).stdout)
    verdict = "test_accelerator ready: 2 devices (test data: the host's reference)"
    assert verdict in text.stdout.splitlines()
    devices = {d["kind"]: d for d in report["devices"]}
    assert set(devices) == {"gpu", "test_accelerator"}
    assert devices["test_accelerator"] == {"kind": "test_accelerator", "usable": [0, 1],
                                           "verdict": verdict, "fixes": []}
    assert devices["gpu"]["verdict"] == report["diagnosis"]["verdict"]
    # the GPU's verdict is the NVIDIA stack's, printed once
    assert text.stdout.splitlines().count(report["diagnosis"]["verdict"]) == 1


def test_points_of_a_real_run_reach_every_section(tmp_path):
    """The C++ test backend, registered by one line, measured by the real binary: its devices,
    roles and points are in the file and in every section one library can reach."""
    exe = accelerator_binary()
    out = tmp_path / "run.json"
    proc = subprocess.run([str(exe), *REAL_RUN, "-o", str(out)], capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    doc = json.loads(out.read_text(encoding="utf-8"))
    kinds = {d["id"]: d["kind"] for d in doc["context"]["devices"]}
    assert kinds == {"cpu": "cpu", "test_accelerator:0": "test_accelerator",
                     "test_accelerator:1": "test_accelerator"}
    assert doc["context"]["backends"]["test_library"]["device_type"] == "test_accelerator"
    # its process lists (the run's own process alone, left out) read through its descriptor
    for reading in ("start", "end"):
        assert doc["context"]["machine_state"][reading]["gpus"] == {
            f"test_accelerator:{i}": {"other_processes": []} for i in (0, 1)}, reading
    # name and peaks as its descriptor reads them from its facts; telemetry from its cases
    stated = "test data: a stated constant, no device's figure"
    for d in doc["context"]["devices"]:
        if d["kind"] != "test_accelerator":
            continue
        assert d["name"] == d["facts"]["name"] == f"Test accelerator {d['id'][-1]} (test data)"
        assert d["peaks"] == {p: {"tflops": 100.0, "source": stated}
                              for p in ("fp32", "tf32", "fp16", "bf16")}
        assert d["memory_bandwidth_gbps"] == {"value": 10000.0, "source": stated}
    mine = [p for p in doc["points"] if p["device"].startswith("test_accelerator")]
    assert {p["status"] for p in mine if p["precision"] != "fp8"} == {"ok"}
    assert all(p["validation"]["passed"] for p in mine if p["status"] == "ok")
    assert {p["telemetry"]["source"] for p in mine if p["status"] == "ok"} == {"test_data"}
    assert {(p["status"], p["reason"]) for p in mine if p["precision"] == "fp8"} == {
        ("unsupported", "the test accelerator (test data) stores no FP8")}

    with_it = report_sections(json.loads(out.read_text(encoding="utf-8")), tmp_path / "with")
    without_it = report_sections(without_the_test_backend(doc), tmp_path / "without")
    for section in MODEL_SECTIONS:
        if section.title in (NEEDS_A_FRAMEWORK, NEEDS_TWO_LIBRARIES):
            continue
        assert section.title in with_it, section.title
        assert with_it[section.title] != without_it[section.title], section.title
    assert "Test accelerator 1 (test data)" in with_it["Best throughput per device and precision"]
