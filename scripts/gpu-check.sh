#!/usr/bin/env bash
# One-shot GPU check on a Linux machine with an NVIDIA GPU, the CUDA toolkit, CMake, ninja and
# (optionally) Python with PyTorch, but no package registry: builds layerbench against the
# dependencies that scripts/gpu-prepare.sh unpacked into deps/, runs the GPU tests, runs a short
# GPU suite, an 8192^3 GEMM against the datasheet peak, ResNet-50 through the legacy cuDNN API and
# one of each memory-bound layer forward and backward, times the same layers through PyTorch
# where it is installed, and prints the tables; with PyTorch, also the same models end to end
# (scripts/torch_models.py) and the share of their time that layerbench's model estimate
# explains (report.py's summary.md; the report needs matplotlib).
#   scripts/gpu-check.sh
# Environment: CUDNN_ROOT (a cuDNN folder with include/ and lib/; default: the toolkit's own, else
# PyTorch's pip package), GPU_CHECK_MAX_TIME (seconds per point, default 0.25), OUT (a folder that
# receives the results too). Results always go to reports/reference/. Exit 1 if any step failed.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${LAYERBENCH_BUILD_DIR:-$ROOT/build-gpu-check}"
DEPS="$ROOT/deps"
REF="$ROOT/reports/reference"
MAX_TIME="${GPU_CHECK_MAX_TIME:-0.25}"
STAMP="$(date -u +%Y%m%dT%H%M%SZ)"
RESULTS="$REF/gpu-check-$STAMP.json"
TORCH_RESULTS="$REF/gpu-check-$STAMP-torch.json"
TABLE="$REF/gpu-check-$STAMP-table.txt"
PEAK_RESULTS="$REF/gpu-check-$STAMP-peak.json"
PEAK_TORCH="$REF/gpu-check-$STAMP-peak-torch.json"
PEAK_TABLE="$REF/gpu-check-$STAMP-peak-table.txt"
LEGACY_RESULTS="$REF/gpu-check-$STAMP-legacy.json"
LEGACY_TORCH="$REF/gpu-check-$STAMP-legacy-torch.json"
LEGACY_TABLE="$REF/gpu-check-$STAMP-legacy-table.txt"
TORCH_MODELS="$REF/gpu-check-$STAMP-torch-models.json"
MODELS_REPORT="$REF/gpu-check-$STAMP-models-report"
MEMORY_RESULTS="$REF/gpu-check-$STAMP-memory.json"
LOG_DIR="$BUILD/gpu-check-logs"
START=$SECONDS
failures=()

step() { printf '\n== [%3ds] %s\n' "$((SECONDS - START))" "$*"; }
die() { printf '\nFAILED: %s\n' "$*" >&2; exit 1; }
# Run a step whose failure is recorded but does not stop the check (the GPU time is precious:
# later steps still tell something).
soft() {
  local what="$1"; shift
  if ! "$@"; then
    printf '\nFAILED: %s\n' "$what" >&2
    failures+=("$what")
    return 1
  fi
}

step "preconditions"
command -v nvidia-smi >/dev/null || die "nvidia-smi not found: no NVIDIA driver on this machine"
nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv,noheader ||
  die "nvidia-smi cannot query the GPU"
NVCC="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)"
[ -x "$NVCC" ] || die "nvcc not found (PATH or /usr/local/cuda/bin)"
"$NVCC" --version | tail -1
command -v cmake >/dev/null || die "cmake not found"
command -v ninja >/dev/null || die "ninja not found"
[ -d "$DEPS/root/usr" ] && [ -d "$DEPS/wheels" ] ||
  die "deps/root or deps/wheels missing: run scripts/gpu-prepare.sh where packages can be downloaded, and copy deps/ along"
PYTHON="$(command -v python3 || true)"
# The system's Python has no .venv with the report package installed: the scripts import it from
# this tree.
export PYTHONPATH="$ROOT/reports${PYTHONPATH:+:$PYTHONPATH}"

# Symbolic links a copy may have dropped (deps/SYMLINKS lists them).
if [ -f "$DEPS/SYMLINKS" ]; then
  while read -r link target; do
    [ -e "$DEPS/$link" ] || ln -sfn "$target" "$DEPS/$link"
  done < "$DEPS/SYMLINKS"
fi

# Build for this GPU only: compute capability "9.0" -> CMake architecture "90".
ARCH="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d ' .')"
[[ "$ARCH" =~ ^[0-9]+$ ]] || die "cannot read the GPU's compute capability (got '$ARCH')"

# cuDNN: CUDNN_ROOT, else the toolkit's own, else the one PyTorch's pip packages carry. Pip ships
# only libcudnn.so.9 (no unversioned link), so the library file is named explicitly.
CUDA_HOME="$(cd "$(dirname "$NVCC")/.." && pwd)"
cudnn_args=()
if [ -z "${CUDNN_ROOT:-}" ] && [ ! -f "$CUDA_HOME/include/cudnn_version.h" ] && [ -n "$PYTHON" ]; then
  CUDNN_ROOT="$("$PYTHON" -c 'import nvidia.cudnn as m; print(list(m.__path__)[0])' 2>/dev/null || true)"
fi
if [ -n "${CUDNN_ROOT:-}" ]; then
  lib="$(ls "$CUDNN_ROOT"/lib/libcudnn.so* "$CUDNN_ROOT"/lib64/libcudnn.so* 2>/dev/null | head -1)"
  [ -f "$CUDNN_ROOT/include/cudnn_version.h" ] || die "no cudnn_version.h under $CUDNN_ROOT/include"
  [ -n "$lib" ] || die "no libcudnn.so* under $CUDNN_ROOT/lib"
  cudnn_args=(-DCUDNN_ROOT="$CUDNN_ROOT" -DCUDNN_INCLUDE_DIR="$CUDNN_ROOT/include" -DCUDNN_LIBRARY="$lib")
  echo "cuDNN from $CUDNN_ROOT ($lib)"
else
  echo "cuDNN from the CUDA toolkit ($CUDA_HOME)"
fi

# oneDNN 3 from its wheels (scripts/onednn-wheels.sh); the binary's run path finds it there.
source "$ROOT/scripts/onednn-wheels.sh"
ONEDNN="$DEPS/onednn"
onednn_prefix_ready "$ONEDNN" || unpack_onednn_wheels "$DEPS/wheels" "$ONEDNN" ||
  die "cannot unpack the oneDNN wheels of deps/wheels into $ONEDNN"

# The unpacked libraries; libgomp from deps only where the system has none.
LIBS="$DEPS/root/usr/lib/x86_64-linux-gnu"
if ! ldconfig -p 2>/dev/null | grep -q 'libgomp.so.1 '; then LIBS="$LIBS:$DEPS/gomp/usr/lib/x86_64-linux-gnu"; fi
export LD_LIBRARY_PATH="$LIBS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
mkdir -p "$LOG_DIR" "$REF"

step "configure ($BUILD, CUDA architecture $ARCH)"
cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLAYERBENCH_CUDA=ON \
  -DCMAKE_CUDA_ARCHITECTURES="$ARCH" -DCMAKE_CUDA_COMPILER="$NVCC" \
  -DCMAKE_PREFIX_PATH="$DEPS/root/usr;$ONEDNN" "${cudnn_args[@]}" > "$LOG_DIR/configure.log" 2>&1 ||
  { tail -40 "$LOG_DIR/configure.log"; die "configure (log: $LOG_DIR/configure.log)"; }
grep -E "layerbench:|Found GTest" "$LOG_DIR/configure.log"

step "build ($(nproc) jobs)"
cmake --build "$BUILD" -j "$(nproc)" > "$LOG_DIR/build.log" 2>&1 ||
  { grep -E "error|Error" -A3 "$LOG_DIR/build.log" | head -60; die "build (log: $LOG_DIR/build.log)"; }
tail -1 "$LOG_DIR/build.log"
BIN="$BUILD/layerbench"
if ldd "$BIN" | grep -q 'libcuda\.so'; then soft "layerbench must not link libcuda" false; fi
"$BIN" --version

step "GPU tests (ctest -R '[Cc]uda')"
soft "GPU tests" ctest --test-dir "$BUILD" -R '[Cc]uda' --output-on-failure --timeout 300

step "GPU suite: resnet50 + vit_b_16, batch 1 and 32, five precisions, forward ($MAX_TIME s per point)"
soft "layerbench run" "$BIN" run --device gpu --model resnet50 --model vit_b_16 --batch 1,32 \
  --precision fp32,tf32,fp16,bf16,fp8 --pass fwd --max-time-per-point "$MAX_TIME" --force -o "$RESULTS"

step "peak check: one 8192x8192x8192 GEMM, fp16/bf16/fp8/tf32 (target: fp16 at >= 75% of the datasheet dense peak)"
soft "layerbench peak run" "$BIN" run --device gpu --workload "$ROOT/bench/workloads/peak_gemm_8192.json" \
  --model peak_gemm_8192 --batch 1 --precision fp16,bf16,fp8,tf32 --pass fwd \
  --max-time-per-point "$MAX_TIME" --force -o "$PEAK_RESULTS"

step "legacy cuDNN API: resnet50 batch 32, fp32 and fp16, forward (--cudnn-api legacy)"
soft "layerbench legacy run" "$BIN" run --device gpu --model resnet50 --batch 32 --precision fp32,fp16 \
  --pass fwd --cudnn-api legacy --max-time-per-point "$MAX_TIME" --force -o "$LEGACY_RESULTS"

step "memory-bound layers: one of each (bench/workloads/memory_ops_check.json), batch 8, fp32/fp16/bf16, forward and training"
soft "layerbench memory-bound run" "$BIN" run --device gpu --workload "$ROOT/bench/workloads/memory_ops_check.json" \
  --model memory_ops_check --batch 8 --precision fp32,fp16,bf16 --pass train \
  --max-time-per-point "$MAX_TIME" --force -o "$MEMORY_RESULTS"

HAVE_TORCH=0
if [ -n "$PYTHON" ] && "$PYTHON" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  HAVE_TORCH=1
  step "PyTorch: $("$PYTHON" -c 'import torch; print(torch.__version__, "cuDNN", torch.backends.cudnn.version())')"
else
  step "PyTorch: not available with CUDA here; the tables have layerbench's figures only"
fi

# The same shapes through PyTorch (where it is there), then one table per results file.
compare() {
  local results="$1" torch_out="$2" table="$3" what="$4"
  [ -f "$results" ] || return 0
  local torch_args=()
  if [ "$HAVE_TORCH" = 1 ]; then
    step "PyTorch: $what"
    soft "PyTorch timing ($what)" "$PYTHON" "$ROOT/scripts/torch_layers.py" measure "$results" -o "$torch_out" \
      --max-time-per-point "$MAX_TIME" && torch_args=(--torch "$torch_out")
  fi
  step "table: $what"
  soft "table ($what)" "$PYTHON" "$ROOT/scripts/torch_layers.py" table "$results" "${torch_args[@]}" -o "$table"
  [ -f "$table" ] && cat "$table"
}
compare "$RESULTS" "$TORCH_RESULTS" "$TABLE" "resnet50 + vit_b_16"
compare "$PEAK_RESULTS" "$PEAK_TORCH" "$PEAK_TABLE" "8192^3 GEMM"
compare "$LEGACY_RESULTS" "$LEGACY_TORCH" "$LEGACY_TABLE" "resnet50 through the legacy cuDNN API"

# The model estimate against PyTorch end to end, same models, batches and precisions as the suite.
if [ "$HAVE_TORCH" = 1 ] && [ -f "$RESULTS" ]; then
  step "PyTorch end to end: resnet50 + vit_b_16, batch 1 and 32, fp32/tf32/fp16/bf16, forward"
  soft "PyTorch end to end" "$PYTHON" "$ROOT/scripts/torch_models.py" --device gpu \
    --model resnet50,vit_b_16 --batch 1,32 --precision fp32,tf32,fp16,bf16 --pass fwd \
    --min-time "$MAX_TIME" --max-time "$MAX_TIME" -o "$TORCH_MODELS"
  if [ -f "$TORCH_MODELS" ]; then
    step "explained share: layerbench's estimate over PyTorch's time ($MODELS_REPORT)"
    soft "report with the explained share" "$PYTHON" "$ROOT/scripts/report.py" "$RESULTS" \
      --framework "$TORCH_MODELS" -o "$MODELS_REPORT" &&
      awk '/^## /{print} /^Explained share/{on=1} on{print} on && /^$/ && ++blank == 2 {on=0; blank=0}' \
        "$MODELS_REPORT/summary.md"
  fi
fi

if [ -n "${OUT:-}" ]; then
  mkdir -p "$OUT"
  for f in "$RESULTS" "$TORCH_RESULTS" "$TABLE" "$PEAK_RESULTS" "$PEAK_TORCH" "$PEAK_TABLE" \
           "$LEGACY_RESULTS" "$LEGACY_TORCH" "$LEGACY_TABLE" "$MEMORY_RESULTS" "$TORCH_MODELS" \
           "$MODELS_REPORT/summary.md" "$LOG_DIR/build.log"; do
    [ -f "$f" ] && cp "$f" "$OUT/"
  done
  ctest_log="$BUILD/Testing/Temporary/LastTest.log"
  [ -f "$ctest_log" ] && cp "$ctest_log" "$OUT/ctest-LastTest.log"
fi

if [ -f "$RESULTS" ]; then
  step "done in $((SECONDS - START)) s; results in ${RESULTS#"$ROOT"/}"
else
  step "done in $((SECONDS - START)) s; no results file"
fi
if [ "${#failures[@]}" -gt 0 ]; then
  printf 'FAILED steps: %s\n' "${failures[*]}" >&2
  exit 1
fi
