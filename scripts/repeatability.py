#!/usr/bin/env python3
"""The command line of reports/layerbench_report/repeatability.py (its docstring says what it
does)."""
import sys

import project_env

project_env.require()
from layerbench_report.repeatability import main

if __name__ == "__main__":
    sys.exit(main())
