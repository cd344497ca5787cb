#!/usr/bin/env bash
# The GPU check, cut to fit the machine it gets: one warm GPU machine, at most 10 minutes a
# command, 15 minutes of device time in all (start-up included), at most 8 files back from $OUT,
# 64 MiB of working tree. It is three commands, run back to back on that one warm machine, each
# planned to end inside 7 minutes (--dry-run prints the plan and its estimate):
#
#   1. scripts/gpu-check.sh build    configure and build against deps/ (scripts/gpu-prepare.sh),
#                                    then the GPU tests (ctest -R '[Cc]uda').
#        files: build.tar.gz (configure and build logs, ctest's log), build-summary.txt
#   2. scripts/gpu-check.sh measure  layerbench on the GPU, in this order:
#        peak     one 8192^3 GEMM in fp16/bf16/fp8/tf32 against the datasheet peak
#        suite    resnet50 + vit_b_16, batch 32, tf32/bf16 (what training on the GPU runs), forward
#        memory   one of each memory-bound layer, batch 8, fp32/bf16, forward and backward
#        legacy   resnet50 batch 32 fp16 forward through the legacy cuDNN API
#        files: measure.tar.gz (results files, logs), measure-table.txt (layerbench's figures)
#   3. scripts/gpu-check.sh torch    PyTorch on the points step 2 measured (peak, suite, memory;
#                                    legacy has the suite's shapes), then resnet50 and vit_b_16 end
#                                    to end, batch 32, tf32/bf16, and the share of their
#                                    time layerbench's model estimate explains.
#        files: torch.tar.gz (timing files, report summary, logs), torch-table.txt
#
# When time runs short, the last steps of a command go first: each step runs under `timeout` with
# what is left of the command's 7 minutes, a step whose estimate no longer fits is skipped (and
# said so), and a step cut by its timeout keeps the points its results file already holds. So
# measure drops legacy, then memory, then the end of the suite; torch drops the end-to-end models
# and report first. Left out of the plan to fit: batch 1, fp32/fp16/fp8 layers (fp8 is in the
# peak check), backward passes of convolutions and GEMMs. Each step's files go to $OUT the moment it ends (the archive is rewritten), so
# a command killed from outside still returns what finished.
#
# Usage: scripts/gpu-check.sh [--dry-run] build|measure|torch|all
#   --dry-run  print each command, its steps' plans (points from `layerbench run --dry-run`),
#              estimated seconds and the files it would send; needs no GPU. The binary is
#              LAYERBENCH_BINARY, else the check's build, else build/layerbench.
# Environment: OUT (the folder whose files come back; default $BUILD/out), CUDNN_ROOT and
# CUBLASLT_LIBRARY (default: the toolkit's, else PyTorch's pip packages), CUDA_HOME (default: the
# folder above nvcc), GPU_CHECK_MAX_TIME (seconds per point, default 0.1). Results stay on the
# machine in $BUILD/gpu-check/ between the commands. Exit 1 if a step failed, 2 on bad usage.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${LAYERBENCH_BUILD_DIR:-$ROOT/build-gpu-check}"
DEPS="$ROOT/deps"
WORK="$BUILD/gpu-check"
MAX_TIME="${GPU_CHECK_MAX_TIME:-0.1}"
PYTHON="$(command -v python3 || true)"
# The system's Python has no .venv with the report package installed: the scripts import it from
# this tree.
export PYTHONPATH="$ROOT/reports${PYTHONPATH:+:$PYTHONPATH}"

# The time plan. A command's steps share its budget (budget_s); ARCHIVE_RESERVE_S is kept back
# for the last archive. The budgets and MACHINE_START_S (the device tool's "a minute or more" to
# start a machine, taken as 90 s) add up to the session's SESSION_BUDGET_S. The set-up costs below are ASSUMPTIONS, not measurements (no GPU run has been
# made yet): layerbench run --dry-run counts sampling only (2 x max time per point), so each
# process is taken to spend PROCESS_SETUP_S starting (CUDA context, cuDNN and cuBLASLt loading,
# importing PyTorch) and each point POINT_SETUP_S preparing (autotuning up to 8 candidates, cuDNN
# plans compiled at run time, validation on 16 cores). The first run's logs give the real figures.
SESSION_BUDGET_S=900
MACHINE_START_S=90
budget_s() {
  case "$1" in
    build) echo 300 ;;
    measure) echo 250 ;;
    torch) echo 240 ;;
  esac
}
ARCHIVE_RESERVE_S=10
PROCESS_SETUP_S=20
POINT_SETUP_S=0.5
# The build (layerbench and the GPU test programs only): the development machine's first full
# build takes about 3 minutes on 2 cores with a warm compiler cache; the GPU machine has 16 cores
# and no cache, taken as the same 180 s. The GPU tests: 110 s (both ASSUMPTIONS as above).
BUILD_ESTIMATE_S=180
GPU_TESTS_ESTIMATE_S=110

usage() { echo "usage: scripts/gpu-check.sh [--dry-run] build|measure|torch|all" >&2; exit 2; }
dry_run=0
what=""
for arg in "$@"; do
  case "$arg" in
    --dry-run) dry_run=1 ;;
    build|measure|torch|all) [ -z "$what" ] || usage; what="$arg" ;;
    *) echo "gpu-check.sh: unknown argument '$arg'" >&2; usage ;;
  esac
done
[ -n "$what" ] || usage
[[ "$MAX_TIME" =~ ^[0-9]+([.][0-9]+)?$ ]] ||
  { echo "gpu-check.sh: GPU_CHECK_MAX_TIME '$MAX_TIME' is not a number of seconds" >&2; exit 2; }

# --- the plans: layerbench run arguments per measure step, in run order (the last goes first) ---
MEASURE_STEPS=(peak suite memory legacy)
plan_args() {
  case "$1" in
    peak) echo "--workload $ROOT/bench/workloads/peak_gemm_8192.json --model peak_gemm_8192 --batch 1 --precision fp16,bf16,fp8,tf32 --pass fwd" ;;
    suite) echo "--model resnet50 --model vit_b_16 --batch 32 --precision tf32,bf16 --pass fwd" ;;
    memory) echo "--workload $ROOT/bench/workloads/memory_ops_check.json --model memory_ops_check --batch 8 --precision fp32,bf16 --pass train" ;;
    legacy) echo "--model resnet50 --batch 32 --precision fp16 --pass fwd --cudnn-api legacy" ;;
  esac
}
# PyTorch times the points of these measure steps.
TORCH_STEPS=(peak suite memory)
TORCH_MODELS_ARGS="--model resnet50,vit_b_16 --batch 32 --precision tf32,bf16 --pass fwd"
TORCH_MODEL_RUNS=4  # 2 models x 1 batch x 2 precisions
TORCH_MODEL_RUN_S=5  # per model run: building the model, warm-up and sampling (ASSUMPTION)

binary() {
  for b in "${LAYERBENCH_BINARY:-}" "$BUILD/layerbench" "$ROOT/build/layerbench"; do
    [ -n "$b" ] && [ -x "$b" ] && { echo "$b"; return 0; }
  done
  return 1
}
# Points of a measure step, from layerbench run --dry-run on the same plan.
plan_points() {
  local bin
  bin="$(binary)" || { echo "?"; return; }
  # shellcheck disable=SC2046
  "$bin" run --dry-run --assume-usable-gpu --device gpu $(plan_args "$1") \
    --max-time-per-point "$MAX_TIME" |
    "$PYTHON" -c 'import json, sys; print(json.load(sys.stdin)["points"])'
}
# Estimated seconds: one process start, then per point 2 x max time of sampling and the set-up.
estimate_s() {  # points
  awk -v n="$1" -v t="$MAX_TIME" -v p="$PROCESS_SETUP_S" -v s="$POINT_SETUP_S" \
    'BEGIN { if (n == "?") print "?"; else printf "%d\n", p + n * (2 * t + s) + 0.999 }'
}

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
print_plan() {
  local command="$1" total=0 points estimate
  echo "== scripts/gpu-check.sh $command"
  case "$command" in
    build)
      find_libraries
      echo "   configure + build      estimate ${BUILD_ESTIMATE_S} s (assumed)"
      echo "   ctest -R '[Cc]uda'     estimate ${GPU_TESTS_ESTIMATE_S} s (assumed)"
      total=$((BUILD_ESTIMATE_S + GPU_TESTS_ESTIMATE_S))
      echo "   files: build.tar.gz build-summary.txt" ;;
    measure)
      for step in "${MEASURE_STEPS[@]}"; do
        points="$(plan_points "$step")"
        estimate="$(estimate_s "$points")"
        echo "   $step: layerbench run --device gpu $(plan_args "$step") --max-time-per-point $MAX_TIME"
        echo "      points $points, estimate $estimate s"
        [ "$estimate" = "?" ] && total="?"
        [ "$total" != "?" ] && total=$((total + estimate))
      done
      echo "   files: measure.tar.gz measure-table.txt" ;;
    torch)
      for step in "${TORCH_STEPS[@]}"; do
        points="$(plan_points "$step")"
        estimate="$(estimate_s "$points")"
        echo "   torch $step: torch_layers.py measure $step.json --max-time-per-point $MAX_TIME"
        echo "      points at most $points, estimate $estimate s"
        [ "$estimate" = "?" ] && total="?"
        [ "$total" != "?" ] && total=$((total + estimate))
      done
      estimate=$((PROCESS_SETUP_S + TORCH_MODEL_RUNS * TORCH_MODEL_RUN_S))
      echo "   models: torch_models.py --device gpu $TORCH_MODELS_ARGS, then report.py"
      echo "      runs $TORCH_MODEL_RUNS, estimate $estimate s"
      [ "$total" != "?" ] && total=$((total + estimate))
      echo "   files: torch.tar.gz torch-table.txt" ;;
  esac
  echo "   estimated total ${total} s of $(budget_s "$command") s"
  [ "$total" = "?" ] || [ "$total" -le "$(budget_s "$command")" ] ||
    { echo "   OVER BUDGET: shorten the plan" >&2; return 1; }
}

if [ "$dry_run" = 1 ]; then
  echo "GPU set-up assumed: ${PROCESS_SETUP_S} s per process, ${POINT_SETUP_S} s per point (not measured)"
  echo "max time per point: ${MAX_TIME} s; files back: 6 of 8"
  session=$MACHINE_START_S
  for command in build measure torch; do session=$((session + $(budget_s "$command"))); done
  echo "session: machine start ${MACHINE_START_S} s (assumed) + budgets $(budget_s build) + $(budget_s measure) + $(budget_s torch) s = ${session} s of ${SESSION_BUDGET_S} s"
  status=0
  [ "$session" -le "$SESSION_BUDGET_S" ] || { echo "OVER THE SESSION'S BUDGET" >&2; status=1; }
  for command in build measure torch; do
    [ "$what" = all ] || [ "$what" = "$command" ] || continue
    print_plan "$command" || status=1
  done
  exit "$status"
fi

# --- the real run ---
OUT="${OUT:-$BUILD/out}"
# The libraries unpacked from deps/ (Google Benchmark and the like); libgomp from deps/ only where
# the system has none, so that an older copy never shadows the system's.
LIBS="$DEPS/root/usr/lib/x86_64-linux-gnu"
if ! ldconfig -p 2>/dev/null | grep -q 'libgomp.so.1 '; then LIBS="$LIBS:$DEPS/gomp/usr/lib/x86_64-linux-gnu"; fi
export LD_LIBRARY_PATH="$LIBS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
START=$SECONDS
failures=()
step() { printf '\n== [%3ds] %s\n' "$((SECONDS - START))" "$*"; }
die() { printf '\nFAILED: %s\n' "$*" >&2; exit 1; }
fail() { printf '\nFAILED: %s\n' "$1" >&2; failures+=("$1"); }
left_s() { echo $((BUDGET - ARCHIVE_RESERVE_S - (SECONDS - START))); }
# Runs a step under timeout with what is left of the budget, its output into `log`, or skips it
# when its estimate no longer fits. SIGINT first: layerbench then writes the points it has and
# stops.
timed() {  # name estimate_s log command...
  local name="$1" estimate="$2" log="$3"; shift 3
  local left
  left="$(left_s)"
  if [ "$left" -lt "$estimate" ]; then
    fail "$name skipped: ${left} s left, estimate ${estimate} s"
    return 1
  fi
  step "$name (estimate ${estimate} s, limit ${left} s)"
  timeout -s INT -k 15 "$left" "$@" > "$log" 2>&1
  local rc=$?
  [ "$rc" = 0 ] || fail "$name (exit $rc$([ "$rc" = 124 ] && echo ', timed out'))"
  return "$rc"
}
# Rewrites $OUT/<name>.tar.gz from the command's stage folder: called after every step.
send() {
  local name="$1"
  mkdir -p "$OUT"
  tar -czf "$OUT/$name.tar.gz.tmp" -C "$WORK/$name" . && mv "$OUT/$name.tar.gz.tmp" "$OUT/$name.tar.gz"
}
finish() {
  step "done in $((SECONDS - START)) s; files in $OUT: $(cd "$OUT" && ls | tr '\n' ' ')"
  if [ "${#failures[@]}" -gt 0 ]; then
    printf 'FAILED steps: %s\n' "${failures[*]}" >&2
    exit 1
  fi
}

run_build() {
  local stage="$WORK/build"
  rm -rf "$stage" && mkdir -p "$stage" "$OUT"
  step "preconditions"
  command -v nvidia-smi >/dev/null || die "nvidia-smi not found: no NVIDIA driver on this machine"
  nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv,noheader |
    tee "$stage/gpu.txt" || die "nvidia-smi cannot query the GPU"
  [ -x "$NVCC" ] || die "nvcc not found (PATH or /usr/local/cuda/bin)"
  command -v cmake >/dev/null || die "cmake not found"
  command -v ninja >/dev/null || die "ninja not found"
  [ -d "$DEPS/root/usr" ] && [ -d "$DEPS/wheels" ] ||
    die "deps/root or deps/wheels missing: run scripts/gpu-prepare.sh where packages can be downloaded, and carry deps/ along"
  # Symbolic links a copy may have dropped (deps/SYMLINKS lists them).
  if [ -f "$DEPS/SYMLINKS" ]; then
    while read -r link target; do
      [ -e "$DEPS/$link" ] || ln -sfn "$target" "$DEPS/$link"
    done < "$DEPS/SYMLINKS"
  fi
  # Build for this GPU only: compute capability "9.0" -> CMake architecture "90".
  local arch
  arch="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d ' .')"
  [[ "$arch" =~ ^[0-9]+$ ]] || die "cannot read the GPU's compute capability (got '$arch')"
  find_libraries | tee "$stage/libraries.txt"
  find_libraries > /dev/null  # again in this shell, for cudnn_args and cublaslt_args
  source "$ROOT/scripts/onednn-wheels.sh"
  local onednn="$DEPS/onednn"
  onednn_prefix_ready "$onednn" || unpack_onednn_wheels "$DEPS/wheels" "$onednn" ||
    die "cannot unpack the oneDNN wheels of deps/wheels into $onednn"

  timed "configure (CUDA architecture $arch)" 60 "$stage/configure.log" \
    cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLAYERBENCH_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES="$arch" -DCMAKE_CUDA_COMPILER="$NVCC" \
    -DCMAKE_PREFIX_PATH="$DEPS/root/usr;$onednn" "${cudnn_args[@]}" "${cublaslt_args[@]}"
  grep -E "layerbench:|Found GTest" "$stage/configure.log"
  send build
  local targets=(layerbench)
  for test in "$ROOT"/tests/unit/cuda_*_test.cpp; do targets+=("$(basename "$test" .cpp)"); done
  timed "build ($(nproc) jobs: ${targets[*]})" "$BUILD_ESTIMATE_S" "$stage/build.log" \
    cmake --build "$BUILD" -j "$(nproc)" --target "${targets[@]}" ||
    grep -E "error|Error" -A3 "$stage/build.log" | head -40
  send build
  [ -x "$BUILD/layerbench" ] || { finish; }
  # The driver is only ever opened at run time, by the binary and by its CUDA backend's plugin.
  for file in "$BUILD/layerbench" "$BUILD"/lib/layerbench/liblayerbench_cuda.so; do
    if ldd "$file" | grep -q 'libcuda\.so'; then fail "$file must not link libcuda"; fi
  done
  "$BUILD/layerbench" --version | tee -a "$stage/libraries.txt"
  grep -q "CUDA backend *loaded from" "$stage/libraries.txt" ||
    fail "the CUDA backend's plugin does not load (libraries.txt)"
  timed "GPU tests (ctest -R '[Cc]uda')" "$GPU_TESTS_ESTIMATE_S" "$stage/ctest.log" \
    ctest --test-dir "$BUILD" -R '[Cc]uda' --output-on-failure --timeout 120
  cp "$BUILD/Testing/Temporary/LastTest.log" "$stage/ctest-LastTest.log" 2>/dev/null
  { cat "$stage/gpu.txt" "$stage/libraries.txt"
    grep -E "tests passed|tests failed|\(Failed\)|\(Timeout\)|\*\*\*Skipped" "$stage/ctest.log"
  } > "$OUT/build-summary.txt"
  send build
}

run_measure() {
  local stage="$WORK/measure" bin="$BUILD/layerbench"
  [ -x "$bin" ] || die "no $bin: run scripts/gpu-check.sh build first on this machine"
  rm -rf "$stage" && mkdir -p "$stage" "$OUT"
  for name in "${MEASURE_STEPS[@]}"; do
    local estimate
    estimate="$(estimate_s "$(plan_points "$name")")"
    # shellcheck disable=SC2046
    timed "layerbench $name" "$estimate" "$stage/$name.log" "$bin" run --device gpu \
      $(plan_args "$name") --max-time-per-point "$MAX_TIME" --force -o "$stage/$name.json"
    if [ -f "$stage/$name.json" ]; then
      "$PYTHON" "$ROOT/scripts/torch_layers.py" table "$stage/$name.json" -o "$stage/$name-table.txt" &&
        { echo "## $name"; cat "$stage/$name-table.txt"; } >> "$OUT/measure-table.txt"
    fi
    send measure
  done
  [ -f "$OUT/measure-table.txt" ] && cat "$OUT/measure-table.txt"
}

run_torch() {
  local stage="$WORK/torch" measured="$WORK/measure"
  [ -d "$measured" ] || die "no $measured: run scripts/gpu-check.sh measure first on this machine"
  [ -n "$PYTHON" ] && "$PYTHON" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' ||
    die "PyTorch with CUDA is not available to ${PYTHON:-python3}"
  rm -rf "$stage" && mkdir -p "$stage" "$OUT"
  "$PYTHON" -c 'import torch; print("torch", torch.__version__, "cuDNN", torch.backends.cudnn.version())' |
    tee "$stage/torch-version.txt"
  for name in "${TORCH_STEPS[@]}"; do
    [ -f "$measured/$name.json" ] || { fail "torch $name skipped: no layerbench results"; continue; }
    local estimate torch_args=()
    estimate="$(estimate_s "$(plan_points "$name")")"
    timed "PyTorch $name" "$estimate" "$stage/$name.log" "$PYTHON" "$ROOT/scripts/torch_layers.py" \
      measure "$measured/$name.json" -o "$stage/$name-torch.json" --max-time-per-point "$MAX_TIME"
    [ -f "$stage/$name-torch.json" ] && torch_args=(--torch "$stage/$name-torch.json")
    "$PYTHON" "$ROOT/scripts/torch_layers.py" table "$measured/$name.json" "${torch_args[@]}" \
      -o "$stage/$name-table.txt" &&
      { echo "## $name"; cat "$stage/$name-table.txt"; } >> "$OUT/torch-table.txt"
    send torch
  done
  if [ -f "$measured/suite.json" ]; then
    # shellcheck disable=SC2086
    timed "PyTorch end to end" $((PROCESS_SETUP_S + TORCH_MODEL_RUNS * TORCH_MODEL_RUN_S)) \
      "$stage/models.log" "$PYTHON" "$ROOT/scripts/torch_models.py" --device gpu \
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
for command in build measure torch; do
  [ "$what" = all ] || [ "$what" = "$command" ] || continue
  START=$SECONDS
  BUDGET="$(budget_s "$command")"
  "run_$command"
done
finish
