#!/usr/bin/env bash
# Compiles the portable C++ for Windows with the MinGW-w64 cross compiler, so the _WIN32
# branches of the platform layer are compiled before a Windows user first builds them.
# MinGW is GCC: branches under _MSC_VER (the MSVC intrinsics in harness/platform.cpp and
# harness/measure/cpu_peak.cpp) stay unchecked here. No linking: CUDA is off and the oneDNN,
# Google Benchmark, CLI11 and nlohmann_json headers are used on their own.
# Exit 0: every file compiled without a warning; 1: one did not; 77: no cross compiler.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cxx=x86_64-w64-mingw32-g++-posix
skip_exit_code=77  # tests/CMakeLists.txt reports it as skipped

if ! command -v "$cxx" >/dev/null; then
  echo "skipped: no MinGW-w64 cross compiler ($cxx); scripts/setup.sh installs g++-mingw-w64-x86-64-posix"
  exit "$skip_exit_code"
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/include" "$work/generated" "$work/out"

# The header-only dependencies get a private include folder: /usr/include itself holds the
# Linux C library's headers, which must not stand in for MinGW's own. oneDNN 3's headers are the
# system's or those scripts/setup.sh unpacked (scripts/onednn-wheels.sh).
source "$ROOT/scripts/onednn-wheels.sh"
onednn_include="$(onednn_root)/include"
for header in /usr/include/{nlohmann,CLI,benchmark} "$onednn_include"/oneapi "$onednn_include"/dnnl*.h*; do
  if [ ! -e "$header" ]; then
    echo "error: $header is missing (scripts/setup.sh installs the header packages)" >&2
    exit 1
  fi
  ln -s "$header" "$work/include/"
done

# CMake makes build_info.hpp with configure_file(@ONLY); any value per @VAR@ compiles the same.
sed 's/@[A-Za-z0-9_]*@/windows-compile-check/g' "$ROOT/harness/build_info.hpp.in" \
  > "$work/generated/build_info.hpp"

# What CMake builds with LAYERBENCH_CUDA=OFF, the unit tests aside.
cd "$ROOT"
sources=(harness/*.cpp harness/*/*.cpp kernels/cuda/logic/*.cpp
         kernels/onednn/*.cpp bench/*.cpp)
# -c rather than -fsyntax-only: inline assembly and intrinsics are only checked at code
# generation. -Werror: a new warning in a branch Linux never compiles fails here, not on Windows.
flags=(-std=c++20 -Wall -Wextra -Werror -DLAYERBENCH_HAVE_CUDA=0 -DLAYERBENCH_HAVE_RUN=1
       -DLAYERBENCH_BENCHMARK_VERSION='"windows-compile-check"'
       -I"$ROOT" -I"$work/generated" -isystem "$work/include")

echo "compiler: $("$cxx" --version | head -n 1)"
compile() {  # source, index: the compiler's messages go to index.log, its verdict to index.status
  if "$cxx" "${flags[@]}" -c "$1" -o "$work/out/$2.o" > "$work/out/$2.log" 2>&1; then
    echo ok > "$work/out/$2.status"
  else
    echo failed > "$work/out/$2.status"
  fi
}
for i in "${!sources[@]}"; do
  echo "compiling ${sources[$i]}"
  compile "${sources[$i]}" "$i" &
  while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do wait -n || true; done
done
wait

failed=()
for i in "${!sources[@]}"; do
  if [ "$(cat "$work/out/$i.status")" != ok ]; then
    failed+=("${sources[$i]}")
    printf '\nFAILED: %s\n' "${sources[$i]}"
    cat "$work/out/$i.log"
  fi
done
echo
echo "windows compile check: ${#sources[@]} files, ${#failed[@]} failed"
[ ${#failed[@]} -eq 0 ] || { printf '  %s\n' "${failed[@]}"; exit 1; }
