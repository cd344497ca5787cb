"""The tree's Python satisfies the committed ruff settings (ruff.toml), so style stops drifting."""
import subprocess
import sys

from conftest import ROOT

RUFF_CONFIG = ROOT / "ruff.toml"


def ruff_check(*paths):
    # ruff comes from scripts/requirements.txt, installed beside this interpreter.
    return subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--config",
                           str(RUFF_CONFIG), *map(str, paths)], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)


def test_the_tree_satisfies_ruff():
    proc = ruff_check(ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_reports_what_the_settings_select(tmp_path):
    # Guards the test above against settings that check nothing.
    bad = tmp_path / "bad.py"
    bad.write_text("import os\n\nx = undefined_name  " + "#" * 100 + "\n")
    proc = ruff_check(bad)
    assert proc.returncode == 1
    for rule in ("F401", "F821", "E501"):
        assert rule in proc.stdout, proc.stdout
