#!/usr/bin/env python3
"""Turns layerbench results files into a self-contained HTML report.

    report.py RESULTS.json... -o DIR [--baseline FILE] [--skip-bad] [--not-measured FILE]

Writes DIR/index.html (charts embedded as PNG, no network needed), DIR/results.csv (one row per
point) and DIR/summary.md (the headline tables in Markdown). A file that is not a usable results
file stops the report with one line on stderr and exit code 2, or with --skip-bad is left out.
--not-measured lists targets of a Slurm fleet (scripts/slurm/fleet.py) that left no results, with
the reason.

The report itself is the package reports/layerbench_report/.
"""
import sys

import project_env

project_env.require("matplotlib")
from layerbench_report.cli import main

if __name__ == "__main__":
    sys.exit(main())
