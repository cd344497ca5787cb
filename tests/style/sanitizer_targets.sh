#!/usr/bin/env bash
# Every unit test scripts/sanitize.sh hands to ThreadSanitizer exists, so a renamed test fails
# here, in scripts/test.sh, and not only in CI's sanitizer stage after a 10-minute build.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
list="$(sed -n '/^tsan_tests=(/,/)/p' "$root/scripts/sanitize.sh")"
[ -n "$list" ] || { echo "FAIL: no tsan_tests=(...) list in scripts/sanitize.sh"; exit 1; }
eval "$list"
[ "${#tsan_tests[@]}" -gt 0 ] || { echo "FAIL: scripts/sanitize.sh: tsan_tests is empty"; exit 1; }
missing=0
for test in "${tsan_tests[@]}"; do
  if [ ! -f "$root/tests/unit/$test.cpp" ]; then
    echo "FAIL: scripts/sanitize.sh tsan_tests names $test, but tests/unit/$test.cpp does not exist"
    missing=1
  fi
done
[ "$missing" -eq 0 ] || exit 1
echo "ok: ${#tsan_tests[@]} ThreadSanitizer targets exist: ${tsan_tests[*]}"
