#!/usr/bin/env bash
# The tests, in two tiers. `scripts/test.sh`: set-up, the release build, the Windows cross build,
# every unit and command-line test (ctest) and the Python tests (pytest): what a contributor runs
# before each commit. `scripts/test.sh --all` adds the sanitizer and fuzzing builds and their
# runs (scripts/sanitize.sh): what CI runs (.ci/run).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
all=0
for arg in "$@"; do
  case "$arg" in
    --all) all=1 ;;
    *) echo "test.sh: unknown option $arg (expected --all)" >&2; exit 2 ;;
  esac
done
run_step "set-up" "$ROOT/scripts/setup.sh" --tests
configure_and_build
build_windows
run_step "C++ and command-line tests (ctest)" \
  ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$(nproc)" --timeout 600
if compgen -G "$ROOT/tests/python/test_*.py" >/dev/null; then
  run_step "Python tests (pytest)" env LAYERBENCH_BINARY="$BUILD_DIR/layerbench" \
    LAYERBENCH_TEST_ACCELERATOR_BINARY="$BUILD_DIR/tests/layerbench_with_test_accelerator" \
    "$PY" -m pytest -q "$ROOT/tests/python"
fi
if [ "$all" = 1 ]; then
  run_step "sanitizers and fuzzing (scripts/sanitize.sh)" "$ROOT/scripts/sanitize.sh"
fi
step "all tests passed"
