#!/usr/bin/env bash
# Set-up, configure, build and run every test (C++ through ctest, Python through pytest).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
run_step "set-up" "$ROOT/scripts/setup.sh" --tests
configure_and_build
run_step "C++ and command-line tests (ctest)" \
  ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$(nproc)" --timeout 600
if compgen -G "$ROOT/tests/python/test_*.py" >/dev/null; then
  run_step "Python tests (pytest)" env LAYERBENCH_BINARY="$BUILD_DIR/layerbench" \
    "$PY" -m pytest -q "$ROOT/tests/python"
fi
# Sanitizers and fuzzing (issue 12): its own build, build-asan/; LAYERBENCH_SKIP_SANITIZE=1 skips.
if [ "${LAYERBENCH_SKIP_SANITIZE:-0}" != 1 ]; then
  run_step "sanitizers and fuzzing (scripts/sanitize.sh)" "$ROOT/scripts/sanitize.sh"
fi
step "all tests passed"
