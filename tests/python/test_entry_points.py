"""The scripts run from any python3 as the README gives them: the report package comes from this
tree, and a missing third-party package is one line saying how to run the script instead."""
import subprocess
import sys

from conftest import ROOT

COMPLETE = ROOT / "tests/python/fixtures/real/complete.json"


def run_without_site_packages(script, *args, cwd):
    # -S: no site-packages, as a system python3 without the project's packages.
    return subprocess.run([sys.executable, "-S", str(ROOT / "scripts" / script), *map(str, args)],
                          capture_output=True, text=True, cwd=cwd, timeout=120)


def test_compare_runs_from_a_bare_interpreter(tmp_path):
    proc = run_without_site_packages("compare.py", COMPLETE, COMPLETE, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "ModuleNotFoundError" not in proc.stderr


def test_a_missing_package_is_one_line_with_the_way_to_run_it(tmp_path):
    proc = run_without_site_packages("report.py", COMPLETE, "-o", tmp_path / "report",
                                     cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("report.py: ") and "has no matplotlib" in lines[0], lines
    assert str(ROOT / ".venv/bin/python") in lines[0] and "scripts/setup.sh" in lines[0], lines
    assert not (tmp_path / "report").exists()
