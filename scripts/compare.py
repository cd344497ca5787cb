#!/usr/bin/env python3
"""The command line of reports/layerbench_report/compare.py (its docstring says what it does)."""
import sys
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent
sys.path[:0] = [str(SCRIPTS), str(SCRIPTS.parent / "reports")]
from layerbench_report.compare import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
