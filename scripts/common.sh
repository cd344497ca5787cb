# Shared by scripts/*.sh: step reporting, the build directory and the virtual environment.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${LAYERBENCH_BUILD_DIR:-$ROOT/build}"
VENV="$ROOT/.venv"
PY="$VENV/bin/python"

# A compiler cache where one is installed (scripts/setup.sh --tests installs ccache): CMake takes
# these as every build tree's launchers when it first configures one, and paths under the tree
# are hashed relative to it, so a fresh clone reuses what another clone compiled.
use_compiler_cache() {
  command -v ccache >/dev/null && [ -z "${LAYERBENCH_NO_CCACHE:-}" ] || return 0
  export CCACHE_BASEDIR="$ROOT" CCACHE_NOHASHDIR=1
  for launcher in CMAKE_C_COMPILER_LAUNCHER CMAKE_CXX_COMPILER_LAUNCHER \
                  CMAKE_CUDA_COMPILER_LAUNCHER; do
    export "$launcher=${!launcher:-ccache}"
  done
}
use_compiler_cache

# Each step says when it began, in seconds since the script started: a log splits a run's wall
# time into its steps (set-up, build, tests, measuring) without a stopwatch.
step() { printf '\n== [%4d s] %s\n' "$SECONDS" "$*"; }
# Run a named step; on failure say which step failed and stop.
run_step() {
  local what="$1"; shift
  step "$what"
  if ! "$@"; then
    printf '\nFAILED: %s (command: %s)\n' "$what" "$*" >&2
    exit 1
  fi
}

# configure_and_build [TARGET...]: every target when none is named.
configure_and_build() {
  local generator=() targets=()
  use_compiler_cache  # again: the set-up step may have just installed it
  if [ ! -f "$BUILD_DIR/CMakeCache.txt" ] && command -v ninja >/dev/null; then generator=(-G Ninja); fi
  [ "$#" -eq 0 ] || targets=(--target "$@")
  run_step "configure ($BUILD_DIR)" cmake -S "$ROOT" -B "$BUILD_DIR" "${generator[@]}" \
    -DCMAKE_BUILD_TYPE="${CMAKE_BUILD_TYPE:-Release}" ${LAYERBENCH_CMAKE_ARGS:-}
  run_step "build${*:+ ($*)}" cmake --build "$BUILD_DIR" -j "$(nproc)" "${targets[@]}"
}

# The Windows cross build (preset windows-mingw, build-windows/): layerbench.exe, which the Wine
# test runs, and the run path's sources compiled for Windows. Skipped without MinGW-w64.
build_windows() {
  use_compiler_cache
  if ! command -v x86_64-w64-mingw32-g++-posix >/dev/null; then
    step "Windows cross build skipped: no MinGW-w64 (scripts/setup.sh installs it)"
    return
  fi
  run_step "configure (build-windows: MinGW-w64)" cmake --preset windows-mingw -S "$ROOT"
  run_step "Windows cross build" cmake --build "$ROOT/build-windows" -j "$(nproc)"
}
