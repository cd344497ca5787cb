#!/usr/bin/env bash
# layerbench across Slurm node types, then one report: see scripts/slurm/fleet.py (the logic)
# and docs/cluster.md. The project's Python if set up (.venv), else the system's.
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
python="$root/.venv/bin/python"
[ -x "$python" ] || python="$(command -v python3)" || { echo "fleet: python3 not found" >&2; exit 2; }
# fleet.py reads results through the report package; the system's Python has it only from here.
export PYTHONPATH="$root/reports${PYTHONPATH:+:$PYTHONPATH}"
exec "$python" "$root/scripts/slurm/fleet.py" "$@"
