#!/usr/bin/env python3
"""Compares two layerbench results files point by point.

    compare.py BASE.json NEW.json [--threshold PCT] [--fail-above PCT]

Prints what differs in the set-up (devices, library versions) first, then a table of the points
both files measured: both median times, NEW/BASE, and a verdict. SAME means the difference is
within the larger of the two points' recorded noise (or within --threshold PCT). Points found in
only one file are listed. With --fail-above the comparison is a gate that judges every point BASE
timed: such a point slower than PCT in NEW, or with no time in NEW (not measured, or not reached
by an unfinished run), fails it. Exit codes: 0 done, 1 the gate failed, 2 bad input.

The comparison itself is reports/layerbench_report/compare.py.
"""
import sys
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent
sys.path[:0] = [str(SCRIPTS), str(SCRIPTS.parent / "reports")]
from layerbench_report.compare import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
