#!/usr/bin/env bash
# The GPU check, cut to fit a lent machine's rules in at most two device calls, each needing
# nothing the other left there: what each call runs, sends back and leaves out, and the time plan's
# assumptions, are in docs/gpu-check.md.
#   scripts/gpu-check.sh [--dry-run] check|torch   (one device call; --dry-run: the plan alone)
#   scripts/gpu-check.sh --dry-run all | take FOLDER
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${LAYERBENCH_BUILD_DIR:-$ROOT/build-gpu-check}"
DEPS="$ROOT/deps"
WORK="$BUILD/gpu-check"
TAKEN="$DEPS/gpu-check"
MAX_TIME="${GPU_CHECK_MAX_TIME:-0.1}"
PYTHON="$(command -v python3 || true)"
# The system's Python has no .venv with the report package installed: the scripts import it from
# this tree.
export PYTHONPATH="$ROOT/reports${PYTHONPATH:+:$PYTHONPATH}"

# --- the time plan (docs/gpu-check.md, "The time plan": the budget's parts, what the first runs on
# an H200 measured for each, and the margin kept above it) ---
SESSION_BUDGET_S=900
UNPLANNED_MIN_S=150
COMMAND_LIMIT_S=540
MACHINE_START_S=90
TRANSFER_S=15
ARCHIVE_RESERVE_S=10
PROCESS_SETUP_S=10
POINT_SETUP_S=0.5
# A layerbench GPU point's load window for its energy: one to two NVML energy-counter periods
# (docs/measuring.md, "Energy from a load window"), at the upper end here.
LOAD_WINDOW_S=0.2
# PyTorch's set-up per point is smaller (docs/gpu-check.md has what each step measured).
TORCH_POINT_SETUP_S=0.1
# The oneDNN restore, configure, build and GPU tests.
ONEDNN_RESTORE_S=10
CONFIGURE_S=15
BUILD_S=60
GPU_TESTS_S=45
CALLS=(check torch)
# The tests of the programs the build step makes: every test of tests/unit/cuda_*_test.cpp (their
# suites all name CUDA or NVML, or are the loader's ELF and folder tests) and the conformance
# test's CUDA instance, which runs every tiny-model problem on the GPU and validates it.
GPU_TESTS='[Cc]uda|Nvml|ElfTruncation|LibrarySearchFolders'

budget_s() {
  case "$1" in
    check) echo 480 ;;
    torch) echo 150 ;;
  esac
}
files_of() {
  case "$1" in
    check) echo "check.tar.gz check-summary.txt" ;;
    torch) echo "torch.tar.gz torch-table.txt" ;;
  esac
}

usage() {
  echo "usage: scripts/gpu-check.sh [--dry-run] check|torch|all | take FOLDER" >&2
  exit 2
}
dry_run=0
what=""
take_from=""
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  arg="${args[$i]}"
  case "$arg" in
    --dry-run) dry_run=1 ;;
    check|torch|all) [ -z "$what" ] || usage; what="$arg" ;;
    take)
      [ -z "$what" ] || usage
      what=take
      i=$((i + 1))
      take_from="${args[$i]:-}"
      [ -n "$take_from" ] || usage ;;
    *) echo "gpu-check.sh: unknown argument '$arg'" >&2; usage ;;
  esac
done
[ -n "$what" ] || usage
[ "$what" != take ] || [ "$dry_run" = 0 ] || usage
# A real run is one device call: both together would outrun a command's limit.
[ "$what" != all ] || [ "$dry_run" = 1 ] ||
  { echo "gpu-check.sh: a real run is one call, check or torch; all is for --dry-run" >&2; exit 2; }
[[ "$MAX_TIME" =~ ^[0-9]+([.][0-9]+)?$ ]] ||
  { echo "gpu-check.sh: GPU_CHECK_MAX_TIME '$MAX_TIME' is not a number of seconds" >&2; exit 2; }

if [ "$what" = take ]; then
  [ -f "$take_from/check.tar.gz" ] || { echo "gpu-check.sh: no $take_from/check.tar.gz" >&2; exit 1; }
  rm -rf "$TAKEN" && mkdir -p "$TAKEN"
  tar -xzf "$take_from/check.tar.gz" -C "$TAKEN" ./measure ||
    { echo "gpu-check.sh: $take_from/check.tar.gz holds no measure/ results" >&2; exit 1; }
  echo "call 1's results in $TAKEN/measure: $(cd "$TAKEN/measure" && ls ./*.json | tr '\n' ' ')"
  exit 0
fi

# --- the plans: layerbench run arguments per measure step, in run order (the last goes first) ---
MEASURE_STEPS=(peak suite memory legacy)
# One round, no framework probe: see the header.
RUN_FLAGS="--rounds 1 --python none"
plan_args() {
  case "$1" in
    peak) echo "--model-file $ROOT/bench/gpu_check_models/peak_gemm_8192.json --model peak_gemm_8192 --batch 1 --precision fp16,bf16,fp8,tf32 --pass fwd" ;;
    suite) echo "--model resnet50 --model vit_b_16 --batch 32 --precision fp32,tf32,fp16,bf16 --pass fwd" ;;
    memory) echo "--model-file $ROOT/bench/gpu_check_models/memory_ops_check.json --model memory_ops_check --batch 8 --precision fp32,bf16 --pass train" ;;
    legacy) echo "--model-file $ROOT/bench/gpu_check_models/resnet50_convs.json --model resnet50_convs --batch 32 --precision fp16 --pass fwd --cudnn-api legacy" ;;
  esac
}
# PyTorch times the points of these measure steps.
TORCH_STEPS=(suite memory)
TORCH_MODELS_ARGS="--model resnet50,vit_b_16 --batch 32 --precision bf16 --pass fwd"
TORCH_MODEL_RUNS=2  # 2 models x 1 batch x 1 precision
# Per model run: building the model, warm-up and sampling.
TORCH_MODEL_RUN_S=7
# Points of each measure step: `layerbench run --dry-run` on the step's arguments gives the same
# count (tests/cli/gpu_check.sh checks that), written here so that the plan is known before the
# build and on a machine without one.
plan_points() {
  case "$1" in
    peak) echo 4 ;;
    suite) echo 268 ;;
    memory) echo 36 ;;
    legacy) echo 23 ;;
  esac
}
# Estimated seconds of a layerbench or PyTorch process: its start, then per point 2 x max time of
# sampling and the set-up.
points_estimate_s() {  # points [per-point set-up, default POINT_SETUP_S]
  awk -v n="$1" -v t="$MAX_TIME" -v p="$PROCESS_SETUP_S" -v s="${2:-$POINT_SETUP_S}" \
    'BEGIN { printf "%d\n", p + n * (2 * t + s) + 0.999 }'
}
steps_of() {
  case "$1" in
    check) echo onednn configure build tests "${MEASURE_STEPS[@]}" ;;
    torch) for step in "${TORCH_STEPS[@]}"; do printf 'torch-%s ' "$step"; done; echo models ;;
  esac
}
step_estimate_s() {
  case "$1" in
    onednn) echo "$ONEDNN_RESTORE_S" ;;
    configure) echo "$CONFIGURE_S" ;;
    build) echo "$BUILD_S" ;;
    tests) echo "$GPU_TESTS_S" ;;
    torch-*) points_estimate_s "$(plan_points "${1#torch-}")" "$TORCH_POINT_SETUP_S" ;;
    models) echo $((PROCESS_SETUP_S + TORCH_MODEL_RUNS * TORCH_MODEL_RUN_S)) ;;
    *) points_estimate_s "$(plan_points "$1")" "$(awk -v s="$POINT_SETUP_S" -v w="$LOAD_WINDOW_S" 'BEGIN { print s + w }')" ;;
  esac
}
step_text() {
  case "$1" in
    onednn) echo "deps/onednn from deps/wheels where the carried deps/ lacks it" ;;
    configure) echo "cmake configure for this GPU's architecture" ;;
    build) echo "cmake --build: layerbench, tests/unit/cuda_*_test and the conformance test" ;;
    tests) echo "ctest -R '$GPU_TESTS'" ;;
    torch-*) echo "torch_layers.py measure on ${1#torch-}'s points (at most $(plan_points "${1#torch-}"))" ;;
    models) echo "torch_models.py --device gpu $TORCH_MODELS_ARGS ($TORCH_MODEL_RUNS runs), report.py" ;;
    *) echo "layerbench run --device gpu $(plan_args "$1") $RUN_FLAGS --max-time-per-point $MAX_TIME (points $(plan_points "$1"))" ;;
  esac
}
call_estimate_s() {
  local total=$ARCHIVE_RESERVE_S step
  for step in $(steps_of "$1"); do total=$((total + $(step_estimate_s "$step"))); done
  echo "$total"
}
session_planned_s() {
  local total=$MACHINE_START_S call
  for call in "${CALLS[@]}"; do total=$((total + TRANSFER_S + $(budget_s "$call"))); done
  echo "$total"
}
# The plan, as the dry run and the real run print it; status 1 when it does not fit.
print_plan() {  # calls to detail
  local status=0 n=0 call step planned files=0
  echo "GPU check plan, seconds of device time (estimates above what the first GPU runs took)"
  echo "max time per point ${MAX_TIME} s; set-up ${PROCESS_SETUP_S} s per process, ${POINT_SETUP_S} s per point (PyTorch ${TORCH_POINT_SETUP_S} s)"
  for call in "${CALLS[@]}"; do
    n=$((n + 1))
    files=$((files + $(wc -w <<<"$(files_of "$call")")))
    [[ " $* " == *" $call "* ]] || continue
    echo "== call $n: scripts/gpu-check.sh $call"
    for step in $(steps_of "$call"); do
      printf '   %-12s estimate %4d s  %s\n' "$step" "$(step_estimate_s "$step")" "$(step_text "$step")"
    done
    printf '   %-12s estimate %4d s\n' "archive" "$ARCHIVE_RESERVE_S"
    echo "   estimated total $(call_estimate_s "$call") s of budget $(budget_s "$call") s"
    echo "   files: $(files_of "$call")"
    [ "$(call_estimate_s "$call")" -le "$(budget_s "$call")" ] ||
      { echo "   OVER ITS BUDGET: shorten the plan" >&2; status=1; }
    [ "$(budget_s "$call")" -le "$COMMAND_LIMIT_S" ] ||
      { echo "   BUDGET OVER ${COMMAND_LIMIT_S} s a command" >&2; status=1; }
  done
  planned="$(session_planned_s)"
  echo "session: machine start ${MACHINE_START_S} s + ${#CALLS[@]} calls x transfers ${TRANSFER_S} s + budgets $(for c in "${CALLS[@]}"; do printf '%s ' "$(budget_s "$c")"; done)= ${planned} s planned of ${SESSION_BUDGET_S} s"
  echo "calls: ${#CALLS[@]}; command seconds: $(for c in "${CALLS[@]}"; do printf '%s ' "$(budget_s "$c")"; done)(limit ${COMMAND_LIMIT_S}); files back: ${files} of 8; unplanned: $((SESSION_BUDGET_S - planned)) s (at least ${UNPLANNED_MIN_S})"
  echo "end: give the machine back (the device tool's give_back) once the last call's files are in"
  [ $((SESSION_BUDGET_S - planned)) -ge "$UNPLANNED_MIN_S" ] ||
    { echo "LESS THAN ${UNPLANNED_MIN_S} s UNPLANNED" >&2; status=1; }
  [ "$files" -le 8 ] || { echo "MORE THAN 8 FILES BACK" >&2; status=1; }
  return "$status"
}
selected_calls() { if [ "$what" = all ]; then echo "${CALLS[@]}"; else echo "$what"; fi; }
# --- libraries: cuDNN and cuBLASLt from the toolkit, else from PyTorch's pip packages ---
NVCC="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)"
CUDA_HOME="${CUDA_HOME:-$(cd "$(dirname "$NVCC")/.." 2>/dev/null && pwd)}"
# The first file matching a glob (e.g. 'libcublasLt.so*') in the lib folders of PyTorch's pip
# packages: nvidia/cu13/lib for CUDA 13 wheels, nvidia/<library>/lib for older ones. Pip ships
# versioned names only (libcublasLt.so.13), hence the glob.
pip_nvidia_lib() {
  [ -n "$PYTHON" ] || return 1
  "$PYTHON" - "$1" 2>/dev/null <<'PY'
import glob, os, sys
try:
    import nvidia
except ImportError:
    sys.exit(1)
for folder in nvidia.__path__:
    for lib in sorted(glob.glob(os.path.join(folder, "*", "lib", sys.argv[1]))):
        print(lib)
        sys.exit(0)
sys.exit(1)
PY
}
find_libraries() {
  cudnn_args=()
  if [ -z "${CUDNN_ROOT:-}" ] && [ ! -f "$CUDA_HOME/include/cudnn_version.h" ]; then
    local lib
    lib="$(pip_nvidia_lib 'libcudnn.so*')" && CUDNN_ROOT="$(dirname "$(dirname "$lib")")"
  fi
  if [ -n "${CUDNN_ROOT:-}" ]; then
    local lib
    lib="$(ls "$CUDNN_ROOT"/lib/libcudnn.so* "$CUDNN_ROOT"/lib64/libcudnn.so* 2>/dev/null | head -1)"
    cudnn_args=(-DCUDNN_ROOT="$CUDNN_ROOT" -DCUDNN_INCLUDE_DIR="$CUDNN_ROOT/include" -DCUDNN_LIBRARY="$lib")
    echo "cuDNN: $lib (CUDNN_ROOT $CUDNN_ROOT)"
  else
    echo "cuDNN: the CUDA toolkit's ($CUDA_HOME)"
  fi
  cublaslt_args=()
  if [ -z "${CUBLASLT_LIBRARY:-}" ] && ! ls "$CUDA_HOME"/lib64/libcublasLt.so* >/dev/null 2>&1; then
    CUBLASLT_LIBRARY="$(pip_nvidia_lib 'libcublasLt.so*')" || CUBLASLT_LIBRARY=""
  fi
  if [ -n "${CUBLASLT_LIBRARY:-}" ]; then
    cublaslt_args=(-DCUBLASLT_LIBRARY="$CUBLASLT_LIBRARY")
    echo "cuBLASLt: $CUBLASLT_LIBRARY (PyTorch's pip package or CUBLASLT_LIBRARY)"
  else
    echo "cuBLASLt: the CUDA toolkit's ($CUDA_HOME)"
  fi
}

# --- dry run ---
if [ "$dry_run" = 1 ]; then
  # shellcheck disable=SC2046
  print_plan $(selected_calls) || exit 1
  case " $(selected_calls) " in *" check "*) find_libraries ;; esac
  exit 0
fi

# --- the real run ---
OUT="${OUT:-$BUILD/out}"
# The libraries unpacked from deps/ (Google Benchmark and the like); libgomp from deps/ only where
# the system has none, so that an older copy never shadows the system's.
LIBS="$DEPS/root/usr/lib/x86_64-linux-gnu:$DEPS/onednn/lib"
if ! ldconfig -p 2>/dev/null | grep -q 'libgomp.so.1 '; then LIBS="$LIBS:$DEPS/gomp/usr/lib/x86_64-linux-gnu"; fi
export LD_LIBRARY_PATH="$LIBS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
START=$SECONDS
failures=()
say() { printf '\n== [%3ds] %s\n' "$((SECONDS - START))" "$*"; }
die() { printf '\nFAILED: %s\n' "$*" >&2; exit 1; }
fail() { printf '\nFAILED: %s\n' "$1" >&2; failures+=("$1"); }
left_s() { echo $((BUDGET - ARCHIVE_RESERVE_S - (SECONDS - START))); }
# Runs plan step `name` under timeout with what is left of the budget, its output into `log`, or
# skips it when its planned estimate no longer fits. SIGINT first: layerbench then writes the
# points it has and stops.
timed() {  # name log command...
  local name="$1" log="$2" estimate left rc
  shift 2
  estimate="$(step_estimate_s "$name")"
  left="$(left_s)"
  if [ "$left" -lt "$estimate" ]; then
    fail "$name skipped: ${left} s left, estimate ${estimate} s"
    return 1
  fi
  say "$name (estimate ${estimate} s, limit ${left} s)"
  timeout -s INT -k 15 "$left" "$@" > "$log" 2>&1
  rc=$?
  [ "$rc" = 0 ] || fail "$name (exit $rc$([ "$rc" = 124 ] && echo ', timed out'))"
  return "$rc"
}
# Rewrites $OUT/<name>.tar.gz from the call's stage folder: called after every step.
send() {
  local name="$1"
  mkdir -p "$OUT"
  tar -czf "$OUT/$name.tar.gz.tmp" -C "$WORK/$name" . && mv "$OUT/$name.tar.gz.tmp" "$OUT/$name.tar.gz"
}
finish() {
  say "done in $((SECONDS - START)) s; files in $OUT: $(cd "$OUT" && ls | tr '\n' ' ')"
  if [ "${#failures[@]}" -gt 0 ]; then
    printf 'FAILED steps: %s\n' "${failures[*]}" >&2
    exit 1
  fi
}

run_check() {
  local stage="$WORK/check" bin="$BUILD/layerbench"
  rm -rf "$stage" && mkdir -p "$stage/measure" "$OUT"
  say "preconditions"
  [ -d "$DEPS/root/usr" ] && [ -d "$DEPS/wheels" ] ||
    die "deps/root or deps/wheels missing: run scripts/gpu-prepare.sh where packages can be downloaded, and carry deps/ along"
  # Symbolic links a copy may have dropped (deps/SYMLINKS lists them).
  if [ -f "$DEPS/SYMLINKS" ]; then
    while read -r link target; do
      [ -e "$DEPS/$link" ] || ln -sfn "$target" "$DEPS/$link"
    done < "$DEPS/SYMLINKS"
  fi
  # A carried deps/ replaces the machine's, so deps/onednn is there only if this tree unpacked it:
  # every call restores it rather than count on an earlier one.
  source "$ROOT/scripts/onednn-wheels.sh"
  local onednn="$DEPS/onednn"
  onednn_prefix_ready "$onednn" ||
    timed onednn "$stage/onednn.log" bash -c 'source "$0" && unpack_onednn_wheels "$1" "$2"' \
      "$ROOT/scripts/onednn-wheels.sh" "$DEPS/wheels" "$onednn" ||
    die "cannot unpack the oneDNN wheels of deps/wheels into $onednn"
  command -v nvidia-smi >/dev/null || die "nvidia-smi not found: no NVIDIA driver on this machine"
  nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv,noheader |
    tee "$stage/gpu.txt" || die "nvidia-smi cannot query the GPU"
  [ -x "$NVCC" ] || die "nvcc not found (PATH or /usr/local/cuda/bin)"
  command -v cmake >/dev/null || die "cmake not found"
  command -v ninja >/dev/null || die "ninja not found"
  # Build for this GPU only: compute capability "9.0" -> CMake architecture "90".
  local arch
  arch="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d ' .')"
  [[ "$arch" =~ ^[0-9]+$ ]] || die "cannot read the GPU's compute capability (got '$arch')"
  find_libraries | tee "$stage/libraries.txt"
  find_libraries > /dev/null  # again in this shell, for cudnn_args and cublaslt_args

  timed configure "$stage/configure.log" \
    cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLAYERBENCH_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES="$arch" -DCMAKE_CUDA_COMPILER="$NVCC" \
    -DCMAKE_PREFIX_PATH="$DEPS/root/usr;$onednn" "${cudnn_args[@]}" "${cublaslt_args[@]}"
  grep -E "layerbench:|Found GTest" "$stage/configure.log"
  send check
  local targets=(layerbench)
  for test in "$ROOT"/tests/unit/cuda_*_test.cpp; do targets+=("$(basename "$test" .cpp)"); done
  targets+=(backend_conformance_test)
  timed build "$stage/build.log" cmake --build "$BUILD" -j "$(nproc)" --target "${targets[@]}" ||
    grep -E "error|Error" -A3 "$stage/build.log" | head -40
  send check
  [ -x "$bin" ] || { finish; }
  # The driver is only ever opened at run time, by the binary and by its CUDA backend's plugin.
  for file in "$bin" "$BUILD"/lib/layerbench/liblayerbench_cuda.so; do
    if ldd "$file" | grep -q 'libcuda\.so'; then fail "$file must not link libcuda"; fi
  done
  "$bin" --version | tee -a "$stage/libraries.txt"
  grep -q "CUDA backend *loaded from" "$stage/libraries.txt" ||
    fail "the CUDA backend's plugin does not load (libraries.txt)"
  timed tests "$stage/ctest.log" \
    ctest --test-dir "$BUILD" -R "$GPU_TESTS" --output-on-failure --timeout 120
  cp "$BUILD/Testing/Temporary/LastTest.log" "$stage/ctest-LastTest.log" 2>/dev/null
  { cat "$stage/gpu.txt" "$stage/libraries.txt"
    grep -E "tests passed|tests failed|\(Failed\)|\(Timeout\)|\*\*\*Skipped" "$stage/ctest.log"
  } > "$OUT/check-summary.txt"
  send check

  for name in "${MEASURE_STEPS[@]}"; do
    # shellcheck disable=SC2046,SC2086
    timed "$name" "$stage/measure/$name.log" "$bin" run --device gpu $(plan_args "$name") \
      $RUN_FLAGS --max-time-per-point "$MAX_TIME" --force -o "$stage/measure/$name.json"
    if [ -f "$stage/measure/$name.json" ]; then
      "$PYTHON" "$ROOT/scripts/torch_layers.py" table "$stage/measure/$name.json" \
        -o "$stage/measure/$name-table.txt" &&
        { echo "## $name"; cat "$stage/measure/$name-table.txt"; } >> "$OUT/check-summary.txt"
    fi
    send check
  done
  cat "$OUT/check-summary.txt"
}

run_torch() {
  local stage="$WORK/torch" measured="$WORK/check/measure"
  # On the machine call 1 ran on, its results are still there; on a fresh one, deps/gpu-check/
  # holds them (`take`).
  [ -d "$measured" ] || measured="$TAKEN/measure"
  [ -d "$measured" ] ||
    die "no results of call 1: neither $WORK/check/measure nor $TAKEN/measure (scripts/gpu-check.sh take FOLDER)"
  [ -n "$PYTHON" ] && "$PYTHON" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' ||
    die "PyTorch with CUDA is not available to ${PYTHON:-python3}"
  rm -rf "$stage" && mkdir -p "$stage" "$OUT"
  "$PYTHON" -c 'import torch; print("torch", torch.__version__, "cuDNN", torch.backends.cudnn.version())' |
    tee "$stage/torch-version.txt"
  for name in "${TORCH_STEPS[@]}"; do
    [ -f "$measured/$name.json" ] || { fail "torch $name skipped: no layerbench results"; continue; }
    local torch_args=()
    timed "torch-$name" "$stage/$name.log" "$PYTHON" "$ROOT/scripts/torch_layers.py" \
      measure "$measured/$name.json" -o "$stage/$name-torch.json" --max-time-per-point "$MAX_TIME"
    [ -f "$stage/$name-torch.json" ] && torch_args=(--torch "$stage/$name-torch.json")
    "$PYTHON" "$ROOT/scripts/torch_layers.py" table "$measured/$name.json" "${torch_args[@]}" \
      -o "$stage/$name-table.txt" &&
      { echo "## $name"; cat "$stage/$name-table.txt"; } >> "$OUT/torch-table.txt"
    send torch
  done
  if [ -f "$measured/suite.json" ]; then
    # shellcheck disable=SC2086
    timed models "$stage/models.log" "$PYTHON" "$ROOT/scripts/torch_models.py" --device gpu \
      $TORCH_MODELS_ARGS --min-time "$MAX_TIME" --max-time "$MAX_TIME" -o "$stage/models-torch.json"
    if [ -f "$stage/models-torch.json" ]; then
      "$PYTHON" "$ROOT/scripts/report.py" "$measured/suite.json" --framework "$stage/models-torch.json" \
        -o "$stage/models-report" > "$stage/report.log" 2>&1 || fail "report with the explained share"
      # Only the summary travels: the report's figures would not fit the files that come back.
      [ -f "$stage/models-report/summary.md" ] && mv "$stage/models-report/summary.md" "$stage/models-summary.md"
      rm -rf "$stage/models-report"
    fi
    send torch
  fi
  [ -f "$OUT/torch-table.txt" ] && cat "$OUT/torch-table.txt"
}

mkdir -p "$WORK"
print_plan "$what" || exit 1
START=$SECONDS
BUDGET="$(budget_s "$what")"
"run_$what"
finish
