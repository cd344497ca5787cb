#!/usr/bin/env bash
# Ctrl-C, SIGTERM and SIGKILL at seeded moments of real runs: exit 130, a loadable file whose
# points are all complete, and --resume finishing it. The matrix is in lib/signal_matrix.py.
set -euo pipefail
exec python3 "$(dirname "${BASH_SOURCE[0]}")/lib/signal_matrix.py" "$1"
