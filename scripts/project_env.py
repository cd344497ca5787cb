"""Lets scripts/*.py run from any python3, as the README gives them: imported first, it puts this
tree's report package (reports/) on the import path, and require() turns a third-party package
missing from that interpreter into one line saying how to run the script through the project's
environment (.venv, made by scripts/setup.sh) instead of a traceback."""
import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "reports"))


def require(*packages):
    """Exits 1 naming the packages of `packages` that this interpreter cannot import."""
    missing = [name for name in packages if importlib.util.find_spec(name) is None]
    if not missing:
        return
    script = Path(sys.argv[0]).name
    print(f"{script}: {sys.executable} has no {', '.join(missing)}; run scripts/setup.sh once, "
          f"then {ROOT / '.venv/bin/python'} {sys.argv[0]} ...", file=sys.stderr)
    sys.exit(1)
