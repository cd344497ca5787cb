#!/usr/bin/env bash
# The Windows build of layerbench (preset windows-mingw), run under Wine: --version, list,
# doctor and doctor --json with test stand-in NVIDIA DLLs (standin_dll.c) along the DLL search
# order, and bad input. The build is made before the tests (scripts/test.sh), not here. Exit 0:
# every check passed; 1: one failed; 77: no MinGW-w64, no Wine (scripts/setup.sh installs both)
# or no Windows build. Env LAYERBENCH_WINDOWS_BUILD: the build folder (default build-windows,
# the preset's).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$ROOT/tests/cli/lib/helpers.bash"
skip_exit_code=77  # tests/CMakeLists.txt reports it as skipped
cc=x86_64-w64-mingw32-gcc-posix
# Debian's wine64 package installs the loader as /usr/lib/wine/wine64 (the `wine` package adds
# the wrapper on PATH).
wine="$(command -v wine64 || true)"
[ -n "$wine" ] || { [ -x /usr/lib/wine/wine64 ] && wine=/usr/lib/wine/wine64; }
if ! command -v "$cc" >/dev/null || ! command -v x86_64-w64-mingw32-g++-posix >/dev/null; then
  echo "skipped: no MinGW-w64 cross compiler ($cc); scripts/setup.sh installs g++-mingw-w64-x86-64-posix"
  exit "$skip_exit_code"
fi
if [ -z "$wine" ]; then
  echo "skipped: no Wine (wine64 or /usr/lib/wine/wine64); scripts/setup.sh installs wine64"
  exit "$skip_exit_code"
fi

started=$SECONDS
build="${LAYERBENCH_WINDOWS_BUILD:-$ROOT/build-windows}"
if [ ! -f "$build/layerbench.exe" ]; then
  echo "skipped: no $build/layerbench.exe; scripts/test.sh builds it, or by hand:" \
       "cmake --preset windows-mingw && cmake --build --preset windows-mingw"
  exit "$skip_exit_code"
fi

work="$(mktemp -d)"
export WINEPREFIX="$work/prefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
wineserver="$(dirname "$wine")/wineserver"
cleanup() {
  # The Wine server of this test's own prefix outlives the programs it ran.
  "$wineserver" -k 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
# Wine's own start and stop kept apart from the checks: the prefix is created up front and Wine
# left to finish with it (wineserver -w returns when its start-up programs are done and the
# server has exited), then one server serves every run (-p: it stays until the cleanup's -k)
# instead of one exiting 3 s after each program. Suspected, not reproduced: a CI run under load
# once got empty stdout from a run, as when a program meets Wine setting up or shutting down.
"$wine" wineboot --init >"$work/wineboot.log" 2>&1 ||
  { cat "$work/wineboot.log" >&2; fail "wineboot --init"; }
"$wineserver" -w
"$wineserver" -p

# The application folder: layerbench.exe with its data, as a Windows user unpacks it.
app="$work/app"
mkdir -p "$app"
cp "$build/layerbench.exe" "$app/"
cp -r "$build/share" "$app/"

winpath() { echo "Z:${1//\//\\}"; }  # Wine maps the Unix root to drive Z:

# standin FOLDER NAME KIND VERSION: builds a stand-in DLL (standin_dll.c) named NAME.
standin() {
  mkdir -p "$1"
  "$cc" -shared -O1 -o "$1/$2" "$ROOT/tests/windows/standin_dll.c" \
        "-DSTANDIN_$3" "-DSTANDIN_VERSION=$4"
}

# doctor_in CASE [DOCTOR ARGS...]: runs the Windows doctor with the stand-ins of $case_path on
# PATH (WINEPATH prepends to Wine's PATH); JSON in $work/CASE.json, exit code in $code.
code=0
wine_run() { code=0; "$wine" "$app/layerbench.exe" "$@" >"$work/out" 2>"$work/err" || code=$?; }
expect_code() { [ "$code" -eq "$1" ] || { cat "$work/out" "$work/err" >&2; fail "$2: exit $code, wanted $1"; }; }
expect_out() { grep -qF -- "$1" "$work/out" || { cat "$work/out" >&2; fail "stdout lacks: $1"; }; }
expect_err() { grep -qF -- "$1" "$work/err" || { cat "$work/err" >&2; fail "stderr lacks: $1"; }; }
check() {
  python3 - "$work/out" "$@" && return
  { echo "exit $code; stdout:"; cat "$work/out"; echo "stderr:"; cat "$work/err"; } >&2
  fail "JSON check failed (above)"
}

# --- --version, list, run and bad input, as on Linux ---
wine_run --version
expect_code 0 "--version"
expect_out "oneDNN            not in this build (LAYERBENCH_RUN=OFF)"
expect_out "run               not in this build: run needs Google Benchmark and oneDNN"
expect_out "CUDA              not used: CPU-only build"
wine_run --help
expect_code 0 "--help"
expect_out "Measure layers: not in this build"
wine_run run --suite quick
expect_code 2 "run"
expect_err "layerbench run: not in this build"
wine_run list --model resnet50 --batch 8
expect_code 0 "list"
expect_out "resnet50: ResNet-50 v1.5 at batch 8, fp32, forward"
wine_run list --json --model vit_b_16
expect_code 0 "list --json"
check <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert [m["model"] for m in d["models"]] == ["vit_b_16"] and d["models"][0]["points"], list(d)
PY
wine_run list --model nosuchmodel
expect_code 2 "list --model nosuchmodel"
expect_err "nosuchmodel"
wine_run --bogus
expect_code 2 "--bogus"
expect_err "--bogus"
wine_run doctor --for tensorflow==9.99
expect_code 2 "doctor --for tensorflow==9.99"
expect_err "--for: TensorFlow 9.99 is not in layerbench's table of tested builds"
wine_run doctor --for pytorch==2.1
expect_code 2 "doctor --for pytorch==2.1"
expect_err "unknown framework \"pytorch\""

# --- case 1: no NVIDIA DLL at all ---
wine_run doctor --json
expect_code 1 "doctor without NVIDIA DLLs"
check <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["os"] == "windows" and d["cuda_build"] is False, d["os"]
assert d["driver"]["loaded"] is False and d["driver"]["library"] == "nvcuda.dll", d["driver"]
assert d["windows_dlls"] == [], d["windows_dlls"]
diag = d["diagnosis"]
assert diag["reason"] == "NVIDIA driver not found (nvcuda.dll cannot be loaded)", diag["reason"]
assert any("C:\\Windows\\System32" in f for f in diag["fixes"]), diag["fixes"]
messages = [f["message"] for f in diag["findings"]]
assert any(m.startswith("no cuDNN DLL (cudnn64_*.dll) along the DLL search order") for m in messages), messages
assert d["cpu"]["threads"] > 0 and d["cpu"]["fma_peak_gflops"] > 0, d["cpu"]
PY
wine_run doctor
expect_code 1 "doctor (text) without NVIDIA DLLs"
expect_out "nvcuda.dll: not found"
expect_out "NVIDIA DLLs (search order: application folder, System32, Windows folder, current folder, PATH)"
expect_out "No usable GPU: NVIDIA driver not found (nvcuda.dll cannot be loaded)"

# --- case 2: a driver too old for the runtime: nvcuda.dll (in the application folder) supports
# CUDA 11.0, the CUDA 12.4 runtime cudart64_12.dll is on PATH. Versions are test data. ---
standin "$app" nvcuda.dll DRIVER 11000
standin "$work/cuda12/bin" cudart64_12.dll CUDART 12040
WINEPATH="$(winpath "$work/cuda12/bin")" wine_run doctor --json
expect_code 1 "doctor with a driver too old for the runtime"
check "$(winpath "$work/cuda12/bin")" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["driver"]["loaded"] is True and d["driver"]["max_cuda"] == "11.0", d["driver"]
assert d["driver"]["library"].lower().endswith("\\app\\nvcuda.dll"), d["driver"]
cudart = [x for x in d["windows_dlls"] if x["family"] == "cudart"]
assert cudart == [{"name": "cudart64_12.dll", "family": "cudart", "folder": sys.argv[2],
                   "origin": "PATH", "version": "12.4", "error": None}], cudart
driver_dll = [x for x in d["windows_dlls"] if x["family"] == "driver"][0]
assert driver_dll["origin"] == "application folder", driver_dll
diag = d["diagnosis"]
want = ("NVIDIA driver supports CUDA up to 11.0, too old for the CUDA 12.4 runtime "
        "cudart64_12.dll in " + sys.argv[2] + " (PATH)")
assert diag["reason"] == want, (diag["reason"], want)
assert "Update the NVIDIA driver: CUDA 12.4 needs driver >= 527.41, the Windows minimum for CUDA 12.x." in diag["fixes"], diag["fixes"]
PY
rm "$app/nvcuda.dll"

# --- case 3 (the seed case): TensorFlow 2.10 with the CUDA 11.2 runtime and cuBLAS on PATH
# but cudnn64_8.dll missing; the driver (System32 on a real machine, here the application
# folder) supports CUDA 12.2. ---
standin "$app" nvcuda.dll DRIVER 12020
standin "$work/cuda112/bin" cudart64_110.dll CUDART 11020
standin "$work/cuda112/bin" cublas64_11.dll CUBLAS 11,4,1
standin "$work/cuda112/bin" cublasLt64_11.dll CUBLASLT 11401
cuda112="$(winpath "$work/cuda112/bin")"
WINEPATH="$cuda112" wine_run doctor --json --for tensorflow==2.10
expect_code 1 "doctor --for tensorflow==2.10 without cuDNN"
check "$cuda112" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
folder = sys.argv[2] + " (PATH)"
fc = d["framework_check"]
rows = {c["item"]: c for c in fc["checks"]}
assert fc["all_ok"] is False, fc
assert rows["CUDA"]["ok"] and rows["CUDA"]["found"] == "11.2 (cudart64_110.dll in " + folder + ")", rows["CUDA"]
assert rows["cuDNN"]["ok"] is False and rows["cuDNN"]["found"] == "no cudnn64_*.dll along the DLL search order", rows["cuDNN"]
assert rows["NVIDIA driver"]["ok"] is True, rows["NVIDIA driver"]
assert rows["platform"]["ok"] is True and rows["platform"]["found"] == "native Windows", rows["platform"]
for name in ("cudart64_110.dll", "cublas64_11.dll", "cublasLt64_11.dll"):
    assert rows[name]["ok"] and rows[name]["found"] == folder, rows[name]
missing = rows["cudnn64_8.dll"]
assert missing["ok"] is False and missing["found"] == "not found along the DLL search order", missing
assert missing["note"] == "install cuDNN 8.1 for CUDA 11.x and put the folder holding cudnn64_8.dll on PATH", missing
versions = {x["name"]: x["version"] for x in d["windows_dlls"]}
assert versions == {"nvcuda.dll": None, "cudart64_110.dll": "11.2", "cublas64_11.dll": "11.4.1",
                    "cublasLt64_11.dll": "11.4.1"}, versions
PY
WINEPATH="$cuda112" wine_run doctor --for tensorflow==2.10
expect_code 1 "doctor --for tensorflow==2.10 (text)"
expect_out "MISMATCH cudnn64_8.dll: needs loaded by TensorFlow 2.10 by this name; found not found along the DLL search order"
expect_out "install cuDNN 8.1 for CUDA 11.x and put the folder holding cudnn64_8.dll on PATH"
expect_out "match    cudart64_110.dll"
# TensorFlow 2.11 and later have no GPU on native Windows: the doctor sends them to WSL2.
WINEPATH="$cuda112" wine_run doctor --json --for tensorflow==2.11
check <<'PY'
import json, sys
rows = {c["item"]: c for c in json.load(open(sys.argv[1]))["framework_check"]["checks"]}
assert rows["platform"]["ok"] is False and rows["platform"]["note"] == "run TensorFlow 2.11 inside WSL2 to use the GPU", rows["platform"]
assert "cudnn64_8.dll" not in rows, rows  # no native-Windows DLLs to name
PY

# --- case 4: DLLs found only through PATH, and the search order: cudnn64_8.dll only in a
# second PATH folder; a cudart64_110.dll reporting 11.8 in the application folder wins over the
# one on PATH; nvml.dll gives the driver's version (527.41, the facts' Windows minimum for
# CUDA 12.x, as test data). ---
standin "$app" cudart64_110.dll CUDART 11080
standin "$app" nvml.dll NVML '"527.41"'
standin "$work/cudnn81/bin" cudnn64_8.dll CUDNN 8100
cudnn81="$(winpath "$work/cudnn81/bin")"
WINEPATH="$cuda112;$cudnn81" wine_run doctor --json --for tensorflow==2.10
expect_code 1 "doctor with cuDNN on PATH (a CPU-only build still exits 1)"
check "$cuda112" "$cudnn81" "$(winpath "$app")" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
cuda112, cudnn81, app = sys.argv[2:5]
dlls = {x["name"]: x for x in d["windows_dlls"]}
assert dlls["cudnn64_8.dll"]["origin"] == "PATH" and dlls["cudnn64_8.dll"]["folder"] == cudnn81, dlls
assert dlls["cudnn64_8.dll"]["version"] == "8.1.0", dlls["cudnn64_8.dll"]
assert dlls["cudart64_110.dll"]["origin"] == "application folder" and dlls["cudart64_110.dll"]["folder"].lower() == app.lower(), dlls
assert dlls["cudart64_110.dll"]["version"] == "11.8", dlls["cudart64_110.dll"]
assert d["driver"]["version"] == "527.41" and d["driver"]["max_cuda"] == "12.2", d["driver"]
fc = d["framework_check"]
assert fc["all_ok"] is True, fc["checks"]
rows = {c["item"]: c for c in fc["checks"]}
assert rows["cudnn64_8.dll"]["found"] == cudnn81 + " (PATH)", rows["cudnn64_8.dll"]
assert rows["cuDNN"]["found"] == "8.1.0 (cudnn64_8.dll in " + cudnn81 + " (PATH))", rows["cuDNN"]
assert d["diagnosis"]["reason"] == "this layerbench was built without CUDA", d["diagnosis"]["reason"]
assert any("build layerbench with CUDA under Linux or WSL2" in f for f in d["diagnosis"]["fixes"]), d["diagnosis"]["fixes"]
PY

echo "windows doctor under Wine: ok ($((SECONDS - started)) s in all)"
