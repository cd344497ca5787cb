# Shared by scripts/*.sh: step reporting, the build directory and the virtual environment.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${LAYERBENCH_BUILD_DIR:-$ROOT/build}"
VENV="$ROOT/.venv"
PY="$VENV/bin/python"

step() { printf '\n== %s\n' "$*"; }
# Run a named step; on failure say which step failed and stop.
run_step() {
  local what="$1"; shift
  step "$what"
  if ! "$@"; then
    printf '\nFAILED: %s (command: %s)\n' "$what" "$*" >&2
    exit 1
  fi
}

configure_and_build() {
  local generator=()
  if [ ! -f "$BUILD_DIR/CMakeCache.txt" ] && command -v ninja >/dev/null; then generator=(-G Ninja); fi
  run_step "configure ($BUILD_DIR)" cmake -S "$ROOT" -B "$BUILD_DIR" "${generator[@]}" \
    -DCMAKE_BUILD_TYPE="${CMAKE_BUILD_TYPE:-Release}" ${LAYERBENCH_CMAKE_ARGS:-}
  run_step "build" cmake --build "$BUILD_DIR" -j "$(nproc)"
}
