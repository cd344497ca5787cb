#!/usr/bin/env bash
# The main job: set-up, build, check the machine, run the quick suite, write the HTML report.
# Extra arguments go to `layerbench run` (e.g. --suite standard, --device gpu).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
run_step "set-up" "$ROOT/scripts/setup.sh"
configure_and_build layerbench  # with the CUDA backend's plugin where CUDA is found; no tests

step "doctor"
"$BUILD_DIR/layerbench" doctor || true   # exit 1 only means "no usable GPU": the CPU still runs

results="$ROOT/results/$(hostname)-$(date -u +%Y%m%dT%H%M%SZ).json"
step "quick suite -> $results"
rc=0
"$BUILD_DIR/layerbench" run --suite quick -o "$results" "$@" || rc=$?
case "$rc" in
  0) ;;
  1) echo "note: some points failed (see the report's validation table); reporting them" >&2 ;;
  *) printf '\nFAILED: layerbench run exited %s\n' "$rc" >&2; exit 1 ;;
esac

run_step "report" "$PY" "$ROOT/scripts/report.py" "$results" -o "$ROOT/report"
step "done"
echo "Results: $results"
echo "Report:  $ROOT/report/index.html"
