# The binary starts whatever CUDA library is on the library path: `layerbench` itself needs no
# cuDNN, cuBLAS or CUDA runtime (readelf NEEDED), and with a broken libcudnn.so.9 or
# libcublasLt.so.13 first on LD_LIBRARY_PATH (empty, truncated, another library's SONAME, without
# the symbols or the symbol versions layerbench needs) --version, list, doctor, doctor --json and
# a CPU run all work; the doctor names the broken file and the loader's message, exit 1.
# Usage: bash broken_libraries.sh <layerbench binary>; env LAYERBENCH_SOURCE_DIR.
set -euo pipefail

bin="$1"
source "$(dirname "${BASH_SOURCE[0]}")/lib/helpers.bash"
new_work_folder
tiny="$LAYERBENCH_SOURCE_DIR/tests/data/models/tiny.json"
library_path="${LD_LIBRARY_PATH:-}"

# --- the binary links none of the CUDA libraries: it loads them at run time ---
command -v readelf >/dev/null || fail "readelf not found (binutils)"
needed="$(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')"
[ -n "$needed" ] || fail "readelf lists no NEEDED entry for $bin"
if grep -E '^lib(cudnn|cublas|cublasLt|cudart|cuda)\.so' <<<"$needed"; then
  fail "$bin links a CUDA library at load time (above)"
fi

# The doctor on the clean library path says whether this build has the CUDA backend and where
# its plugin and the real libraries are.
"$bin" doctor --json --python none --cpu-peak skip >"$work/clean.json" || true
cuda_build="$(json "$work/clean.json" 'str(d["cuda_build"]).lower()')"
if [ "$cuda_build" = true ]; then
  plugin="$(json "$work/clean.json" 'd["cuda_plugin"]["path"] or ""')"
  [ -f "$plugin" ] || fail "doctor --json names no CUDA backend plugin file: '$plugin'"
  [ "$(json "$work/clean.json" 'd["cuda_plugin"]["loaded"]')" = True ] ||
    fail "the CUDA backend plugin does not load on the clean library path: $(json "$work/clean.json" 'd["cuda_plugin"]["error"]')"
  # The plugin is what links them (so the check above is not vacuous in a CUDA build).
  plugin_needed="$(readelf -d "$plugin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')"
  grep -q '^libcudnn\.so\.' <<<"$plugin_needed" || fail "$plugin does not need libcudnn"
  grep -q '^libcublasLt\.so\.' <<<"$plugin_needed" || fail "$plugin does not need libcublasLt"
  real_cublaslt="$(json "$work/clean.json" 'd["cublas"]["path"] or ""')"
else
  echo "CPU-only build: no CUDA library is loaded; the commands must start all the same"
  real_cublaslt=""
fi

# --- broken libraries, each case in its own folder put first on LD_LIBRARY_PATH ---
cat >"$work/stub.c" <<'EOF'
#include <stddef.h>
size_t cudnnGetVersion(void) { return 91300; }
size_t cudnnGetCudartVersion(void) { return 13000; }
size_t cublasLtGetVersion(void) { return 130100; }
size_t cublasLtGetCudartVersion(void) { return 13000; }
EOF
cat >"$work/empty.c" <<'EOF'
int not_a_cuda_library(void) { return 0; }
EOF
# Version nodes: the real libraries define one named after their soname; OLD_1.0 is another.
printf 'libcudnn.so.9 { global: *; };\n' >"$work/cudnn.map"
printf 'OLD_1.0 { global: *; };\n' >"$work/old.map"

cases=()
mkcase() { mkdir -p "$work/$1"; cases+=("$1"); }
mkcase empty_cudnn
: >"$work/empty_cudnn/libcudnn.so.9"
if [ -n "$real_cublaslt" ]; then
  mkcase truncated_cublaslt
  head -c 65536 "$real_cublaslt" >"$work/truncated_cublaslt/libcublasLt.so.13"
fi
mkcase wrong_soname_cudnn
gcc -shared -fPIC -Wl,-soname,libsomething.so.1 -o "$work/wrong_soname_cudnn/libcudnn.so.9" "$work/empty.c"
mkcase no_symbols_cublaslt
gcc -shared -fPIC -Wl,-soname,libcublasLt.so.13 -o "$work/no_symbols_cublaslt/libcublasLt.so.13" "$work/empty.c"
mkcase missing_symbols_cudnn  # the version functions, none of the rest
gcc -shared -fPIC -Wl,-soname,libcudnn.so.9 -Wl,--version-script="$work/cudnn.map" \
  -o "$work/missing_symbols_cudnn/libcudnn.so.9" "$work/stub.c"
mkcase wrong_versions_cublaslt  # its symbols under another version node
gcc -shared -fPIC -Wl,-soname,libcublasLt.so.13 -Wl,--version-script="$work/old.map" \
  -o "$work/wrong_versions_cublaslt/libcublasLt.so.13" "$work/stub.c"

for case in "${cases[@]}"; do
  broken="$(ls "$work/$case"/lib*)"
  export LD_LIBRARY_PATH="$work/$case${library_path:+:$library_path}"
  echo "== $case: $broken"

  expect_rc 0 "$case: --version" "$bin" --version
  expect_rc 0 "$case: list" "$bin" list --model-file "$tiny" --model tiny
  expect_rc 0 "$case: CPU run" "$bin" run --device cpu --backend onednn --python none --model-file "$tiny" --model tiny \
    --max-time-per-point 0.05 --quiet --batch 1 --precision fp32 --pass fwd -o "$work/$case.json"
  [ "$(json "$work/$case.json" 'd["status"]')" = complete ] || fail "$case: the CPU run is not complete"

  # The doctor: only the CPU is usable (exit 1); the broken file, the loader's message and the fix.
  expect_rc 1 "$case: doctor" "$bin" doctor --python none --cpu-peak skip
  if [ "$cuda_build" = true ]; then
    grep -qF "$broken" "$work/out" || { cat "$work/out" >&2; fail "$case: doctor does not name $broken"; }
  fi
  expect_rc 1 "$case: doctor --json" "$bin" doctor --json --python none --cpu-peak skip
  cp "$work/out" "$work/$case-doctor.json"
  if [ "$cuda_build" = true ]; then
    python3 - "$work/$case-doctor.json" "$broken" <<'PY' || fail "$case: doctor --json (above)"
import json, sys
d = json.load(open(sys.argv[1]))
broken = sys.argv[2]
diag = d["diagnosis"]
assert diag["gpu_usable"] is False, diag
# The loader's message, naming the broken file, is in the library's or the plugin's error ...
errors = [d["cudnn"]["error"], d["cublas"]["error"], d["cuda_plugin"]["error"]]
assert d["cuda_plugin"]["loaded"] is False, d["cuda_plugin"]
assert any(e and broken in e for e in errors) or any(
    broken == lib["path"] for lib in (d["cudnn"], d["cublas"])), (errors, d["cudnn"], d["cublas"])
# ... and an error finding names it, with a fix that says what to do with that file.
findings = [f for f in diag["findings"] if f["severity"] == "error" and broken in f["message"]]
assert findings, diag["findings"]
assert any(broken in fix and "LD_LIBRARY_PATH" in fix for f in findings for fix in f["fixes"]), findings
PY
  fi
done
export LD_LIBRARY_PATH="$library_path"
echo "ok: ${#cases[@]} broken libraries, 5 commands each"
