#!/usr/bin/env bash
# The tree's C++ and CUDA sources satisfy the committed .clang-format, so style stops drifting.
# Fix a failure with: clang-format -i FILE (the version scripts/setup.sh --tests installs).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
command -v clang-format >/dev/null || { echo "skipped: no clang-format (scripts/setup.sh --tests installs it)"; exit 77; }
cd "$root"
mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.cu' '*.h' '*.c' 2>/dev/null ||
                     find bench harness kernels tests -name '*.[ch]pp' -o -name '*.cu' -o -name '*.[ch]')
[ "${#files[@]}" -gt 100 ] || { echo "FAIL: found only ${#files[@]} source files"; exit 1; }
clang-format --dry-run --Werror "${files[@]}"
echo "ok: ${#files[@]} files satisfy .clang-format"

# Guards the check above against settings that check nothing: a line over 100 columns and a
# badly spaced declaration must be reported.
probe="$(mktemp -d)"; trap 'rm -rf "$probe"' EXIT
cp .clang-format "$probe/"
printf 'int  f( int x ){return x;}\nint g() { return %s; }\n' "$(printf '1 + %.0s' {1..40})1" \
  > "$probe/bad.cpp"
if clang-format --dry-run --Werror "$probe/bad.cpp" 2>/dev/null; then
  echo "FAIL: .clang-format accepted a badly formatted file"; exit 1
fi
