# `layerbench doctor`: the real verdict on this machine, exit codes, JSON validity, --for and
# usage errors. Usage: bash doctor.sh <layerbench binary>; env LAYERBENCH_SOURCE_DIR.
set -euo pipefail

bin="$1"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

source "$(dirname "${BASH_SOURCE[0]}")/lib/helpers.bash"

# run_doctor ARGS...: runs doctor, keeps stdout/stderr in $work/out, $work/err and the code in $code.
run_doctor() {
  code=0
  "$bin" doctor "$@" >"$work/out" 2>"$work/err" || code=$?
}
expect_out() { grep -qF -- "$1" "$work/out" || { cat "$work/out" >&2; fail "stdout lacks: $1"; }; }
expect_err() { grep -qF -- "$1" "$work/err" || { cat "$work/err" >&2; fail "stderr lacks: $1"; }; }

# --- JSON first: it says whether this machine has a driver, which decides what to expect ---
run_doctor --json
[[ "$code" == 0 || "$code" == 1 ]] || { cat "$work/err" >&2; fail "doctor --json exited $code"; }
python3 -m json.tool "$work/out" >/dev/null || fail "doctor --json is not valid JSON"
cp "$work/out" "$work/doctor.json"
read -r driver_loaded gpu_usable <<<"$(python3 - "$work/doctor.json" "$code" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
diag = d["diagnosis"]
# The exit code is the verdict: 0 when a GPU is ready, 1 when only the CPU can be used.
assert int(sys.argv[2]) == (0 if diag["gpu_usable"] else 1), (sys.argv[2], diag["gpu_usable"])
assert diag["verdict"].startswith("GPU ready: " if diag["gpu_usable"] else "No usable GPU: "), diag["verdict"]
if not diag["gpu_usable"]:
    assert diag["reason"] and diag["fixes"], diag
cpu = d["cpu"]
assert cpu["threads"] > 0 and cpu["fma_peak_gflops"] > 0, cpu
assert "FLOPs = 2 x" in cpu["fma_peak_method"], cpu["fma_peak_method"]
for key in ("CUDA_VISIBLE_DEVICES", "NVIDIA_TF32_OVERRIDE", "CUBLAS_WORKSPACE_CONFIG"):
    assert key in d["env"], key
print(str(d["driver"]["loaded"]).lower(), str(diag["gpu_usable"]).lower())
PY
)"

# --- text: the CPU section, the driver section, the verdict and the fixes ---
run_doctor
expect_out "CPU"
expect_out "cores / threads"
expect_out "FP32 FMA peak"
expect_out "NVIDIA driver"
if [[ "$driver_loaded" == false ]]; then
  [[ "$code" == 1 ]] || fail "doctor without a driver exited $code, expected 1"
  expect_out "libcuda.so.1: not found"
  expect_out "No usable GPU: NVIDIA driver not found"
  expect_out "How to fix:"
  expect_out "  1. Install the NVIDIA driver"
  python3 - "$work/doctor.json" <<'PY'
import json, sys
diag = json.load(open(sys.argv[1]))["diagnosis"]
assert diag["gpu_usable"] is False and diag["reason"].startswith("NVIDIA driver not found"), diag
PY
elif [[ "$gpu_usable" == true ]]; then
  [[ "$code" == 0 ]] || fail "doctor with a usable GPU exited $code"
  expect_out "GPU ready: "
fi

# --- --cpu-peak skip: no FMA microbenchmark, no peak line or field (the cases below need none) ---
run_doctor --cpu-peak skip
[[ "$code" == 0 || "$code" == 1 ]] || fail "doctor --cpu-peak skip exited $code"
expect_out "cores / threads"
! grep -qF "FP32 FMA peak" "$work/out" || fail "doctor --cpu-peak skip printed a peak"
run_doctor --json --cpu-peak skip
python3 -c 'import json, sys; c = json.load(open(sys.argv[1]))["cpu"]; assert not c.get("fma_peak_gflops") and c["fma_peak_method"] is None, c' "$work/out" \
  || fail "doctor --json --cpu-peak skip has a peak"
run_doctor --cpu-peak sometimes
[[ "$code" == 2 ]] || fail "doctor --cpu-peak sometimes exited $code, expected 2"
expect_err "--cpu-peak: sometimes not in {measure,skip}"

# --- backends: each backend this build has reports its library, loaded or with problem and fix ---
version="$("$bin" --version)"
expected_backends=()
grep -q "^ *oneDNN " <<<"$version" && expected_backends+=(onednn)
grep -q "^ *OpenBLAS " <<<"$version" && expected_backends+=(openblas)
run_doctor --cpu-peak skip
for backend in "${expected_backends[@]}"; do
  case "$backend" in
    onednn) expect_out "  onednn                    oneDNN compiled " ;;
    openblas) expect_out "  openblas                  OpenBLAS compiled " ;;
  esac
done
[[ ${#expected_backends[@]} == 0 ]] || expect_out $'\nBackends\n'
python3 - "$work/doctor.json" "${expected_backends[@]}" <<'PY'
import json, sys
backends = json.load(open(sys.argv[1]))["backends"]
assert [b["backend"] for b in backends] == sys.argv[2:], (backends, sys.argv[2:])
for b in backends:
    # Loaded with its version, or not loaded with the reason and what to do about it.
    assert (b["loaded"] and b["problem"] is None) or (b["problem"] and b["fix"]), b
    if b["backend"] == "openblas" and b["loaded"]:
        assert any(n.startswith("file: ") for n in b["notes"]), b
PY

# An empty CUDA_VISIBLE_DEVICES hides every GPU, and the doctor says so.
code=0
CUDA_VISIBLE_DEVICES= "$bin" doctor --json --cpu-peak skip >"$work/hidden.json" 2>"$work/err" || code=$?
[[ "$code" == 1 ]] || fail "doctor with CUDA_VISIBLE_DEVICES='' exited $code, expected 1"
python3 - "$work/hidden.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["env"]["CUDA_VISIBLE_DEVICES"] == "", d["env"]
assert any(f["message"] == 'CUDA_VISIBLE_DEVICES="" hides every GPU' and f["severity"] == "error"
           for f in d["diagnosis"]["findings"]), d["diagnosis"]["findings"]
PY

# --- --for tensorflow==X.Y ---
run_doctor --cpu-peak skip --for tensorflow==2.15
[[ "$code" == 0 || "$code" == 1 ]] || { cat "$work/err" >&2; fail "doctor --for tensorflow==2.15 exited $code"; }
expect_out "TensorFlow 2.15 was tested with CUDA 12.2, cuDNN 8.9 (Linux)"
expect_out "cuDNN: needs 8.9"
run_doctor --json --cpu-peak skip --for tensorflow==2.11.1
python3 - "$work/out" <<'PY'
import json, sys
check = json.load(open(sys.argv[1]))["framework_check"]
assert check["version"] == "2.11.1" and check["tested_with"] == "CUDA 11.2, cuDNN 8.1 (Linux)", check
platform = [c for c in check["checks"] if c["item"] == "platform"][0]
assert "native Windows GPU support ends at TensorFlow 2.10" in platform["required"], platform
PY

# --- usage errors: exit 2 with a message naming the problem ---
run_doctor --bogus
[[ "$code" == 2 ]] || fail "doctor --bogus exited $code, expected 2"
expect_err "--bogus"
run_doctor --for tensorflow==9.99
[[ "$code" == 2 ]] || fail "unknown TensorFlow version exited $code, expected 2"
expect_err "--for: TensorFlow 9.99 is not in layerbench's table of tested builds (known: 2.0 to 2.21)"
run_doctor --for tensorflow
[[ "$code" == 2 ]] || fail "--for without a version exited $code, expected 2"
expect_err "expected FRAMEWORK==VERSION"
run_doctor --for ''
[[ "$code" == 2 ]] || fail "--for '' exited $code, expected 2 (an unset variable is not 'no --for')"
expect_err "--for: empty value"
run_doctor --cpu-peak skip --for pytorch==2.1
[[ "$code" == 2 ]] || fail "--for pytorch exited $code, expected 2"
expect_err "unknown framework \"pytorch\""
[[ ! -s "$work/out" ]] || fail "a usage error printed a report"

echo "doctor CLI: ok"
