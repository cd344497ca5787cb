"""Shared helpers for the tests of scripts/report.py and scripts/compare.py.

The results files under fixtures/ are TEST DATA written by fixtures/make_fixtures.py: invented
numbers for invented devices ("Test GPU A (fixture)"), not measurements.
"""
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "scripts"
REPORTS = ROOT / "reports"  # the report package's root, also pytest.ini's pythonpath
FIXTURES = Path(__file__).resolve().parent / "fixtures"
GPU_A = FIXTURES / "fixture_gpu_a.json"
GPU_B = FIXTURES / "fixture_gpu_b.json"
CPU_ONLY = FIXTURES / "fixture_cpu_only.json"


def run_script(name, *args, timeout=300, cwd=None):
    """Runs scripts/<name> with this interpreter and this tree's report package, in folder cwd
    (default: this process's); returns the CompletedProcess (text)."""
    path = os.pathsep.join(filter(None, [str(REPORTS), os.environ.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, str(SCRIPTS / name), *map(str, args)],
                          capture_output=True, text=True, timeout=timeout, cwd=cwd,
                          env={**os.environ, "PYTHONPATH": path})


def import_file(path):
    """Imports a script or helper that is not part of a package (an entry point under scripts/,
    a fixture writer) as a module, to test its functions."""
    spec = importlib.util.spec_from_file_location(Path(path).stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their class's module up there
    spec.loader.exec_module(module)
    return module


def read_fixture(path):
    """A fresh copy of a fixture file's document, free to change."""
    return json.loads(Path(path).read_text())


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


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
SCREENSHOT_DIR = ROOT / "report"  # ignored by git; screenshots are left here to look at


def chromium(profile_dir, *args, timeout=180):
    """Runs headless Chromium with its own profile; returns the CompletedProcess (text)."""
    cmd = [CHROMIUM, "--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars",
           f"--user-data-dir={profile_dir}", "--virtual-time-budget=10000", *map(str, args)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def screenshot(html, png, profile_dir, size=(1400, 4000)):
    """Saves a screenshot of a page and a copy under report/; returns the copy's path."""
    proc = chromium(profile_dir, f"--screenshot={png}", f"--window-size={size[0]},{size[1]}",
                    Path(html).resolve().as_uri())
    assert proc.returncode == 0 and Path(png).is_file(), proc.stderr[-2000:]
    SCREENSHOT_DIR.mkdir(exist_ok=True)
    copy_path = SCREENSHOT_DIR / Path(png).name
    shutil.copyfile(png, copy_path)
    return copy_path


def png_size(path):
    """(width, height) from a PNG's header."""
    data = Path(path).read_bytes()[:24]
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
