"""The scripts run from any python3 as the README gives them: an interpreter without the report
package or matplotlib runs the script again through the project's .venv, and where there is none
to run it through, one line says how to make it."""
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

COMPLETE = ROOT / "tests/python/fixtures/real/complete.json"
VENV_PYTHON = ROOT / ".venv/bin/python"


def run(interpreter, script, *args, cwd):
    return subprocess.run([*interpreter, str(ROOT / "scripts" / script), *map(str, args)],
                          capture_output=True, text=True, cwd=cwd, timeout=300)


def other_python():
    """A python3 that is not the project's environment, or None."""
    for name in ("/usr/bin/python3", shutil.which("python3")):
        if name and Path(name).exists() and not Path(name).resolve().is_relative_to(ROOT):
            return name
    return None


@pytest.mark.skipif(not VENV_PYTHON.exists(), reason="no .venv: scripts/setup.sh makes it")
@pytest.mark.skipif(other_python() is None, reason="no python3 outside the project's .venv")
def test_a_script_run_by_another_python_runs_through_the_venv(tmp_path):
    proc = run([other_python(), "-S"], "report.py", COMPLETE, "-o", tmp_path / "report",
               cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "report" / "index.html").is_file()
    proc = run([other_python(), "-S"], "compare.py", COMPLETE, COMPLETE, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr


def test_without_a_venv_to_run_through_it_is_one_line(tmp_path):
    # The script in a tree of its own that has no .venv, run without site-packages.
    tree = tmp_path / "tree"
    (tree / "scripts").mkdir(parents=True)
    for name in ("report.py", "project_env.py"):
        shutil.copy(ROOT / "scripts" / name, tree / "scripts" / name)
    proc = subprocess.run([sys.executable, "-S", str(tree / "scripts/report.py"), str(COMPLETE),
                           "-o", str(tmp_path / "report")],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("report.py: ") and "has no layerbench_report, matplotlib" in lines[0]
    assert str(tree / ".venv/bin/python") in lines[0] and "scripts/setup.sh" in lines[0], lines
    assert not (tmp_path / "report").exists()
