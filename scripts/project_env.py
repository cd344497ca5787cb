"""Lets scripts/*.py run from any python3, as the README gives them. Where the interpreter lacks
the report package (reports/) or a package a script needs, the script runs again through the
project's environment (.venv, which scripts/setup.sh makes with this tree's report package), or,
without one, says in one line how to make it, instead of a traceback."""
import importlib.util
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
VENV_PYTHON = VENV / "bin" / "python"


def require(*packages):
    """Returns when this interpreter can import the report package and `packages`."""
    missing = [name for name in ("layerbench_report", *packages)
               if importlib.util.find_spec(name) is None]
    if not missing:
        return
    if VENV_PYTHON.exists() and Path(sys.prefix).resolve() != VENV.resolve():
        os.execv(VENV_PYTHON, [str(VENV_PYTHON), *sys.argv])
    script = Path(sys.argv[0]).name
    print(f"{script}: {sys.executable} has no {', '.join(missing)}; run scripts/setup.sh once, "
          f"then {VENV_PYTHON} {sys.argv[0]} ...", file=sys.stderr)
    sys.exit(1)
