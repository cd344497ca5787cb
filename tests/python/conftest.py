"""Shared helpers for the tests of scripts/report.py and scripts/compare.py.

The results files under fixtures/ are TEST DATA written by fixtures/make_fixtures.py: invented
numbers for invented devices ("Test GPU A (fixture)"), not measurements.
"""
import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "scripts"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
GPU_A = FIXTURES / "fixture_gpu_a.json"
GPU_B = FIXTURES / "fixture_gpu_b.json"
CPU_ONLY = FIXTURES / "fixture_cpu_only.json"

sys.path.insert(0, str(SCRIPTS))


def run_script(name, *args, timeout=300):
    """Runs scripts/<name> with this interpreter; returns the CompletedProcess (text)."""
    return subprocess.run([sys.executable, str(SCRIPTS / name), *map(str, args)],
                          capture_output=True, text=True, timeout=timeout)


def read_fixture(path):
    return copy.deepcopy(json.loads(Path(path).read_text()))


def write_json(path, doc):
    Path(path).write_text(json.dumps(doc))
    return Path(path)


@pytest.fixture(scope="session")
def fixture_report(tmp_path_factory):
    """The report of all three fixture files, rendered once per session."""
    out = tmp_path_factory.mktemp("fixture_report")
    proc = run_script("report.py", GPU_A, GPU_B, CPU_ONLY, "-o", out)
    assert proc.returncode == 0, proc.stderr
    return out
