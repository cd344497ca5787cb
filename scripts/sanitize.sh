#!/usr/bin/env bash
# The sanitizer and fuzzing checks, run by `scripts/test.sh --all` (CI): the `asan` preset (clang,
# AddressSanitizer + UndefinedBehaviorSanitizer, leak checks on, CPU only) runs every unit and
# command-line test;
# the `tsan` preset runs the multi-threaded unit tests; then each libFuzzer target runs for
# FUZZ_SECONDS (default 60) from its seed corpus. Any sanitizer report, crash, leak, timeout
# (10 s per input) or out-of-memory (2 GB) fails; then the Python readers are fuzzed as long.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$ROOT"
ASAN_BUILD="$ROOT/build-asan"
FUZZ_SECONDS="${FUZZ_SECONDS:-60}"

run_step "configure (asan preset: clang, ASan + UBSan, CPU only)" cmake --preset asan
run_step "build (asan)" cmake --build --preset asan -j "$(nproc)"
# ctest --preset asan sets ASAN_OPTIONS/UBSAN_OPTIONS (CMakePresets.json): halt and abort on the
# first report. Three tests are left to the main build, for CI time (docs/building.md says why).
run_step "unit and command-line tests under ASan + UBSan" \
  ctest --preset asan -j "$(nproc)" --timeout 900 \
  -E '^(windows_wine_doctor|slurm\.fleet|cli\.signals)$'

# ThreadSanitizer on the tests whose code starts threads of its own: validate's reference
# workers, cpu_peak's and cpu_bandwidth's, the point watchdog, and the run loop, progress and
# results writer around them. oneDNN's OpenMP threads are left out: GNU OpenMP is not
# instrumented, so TSan takes its internal synchronisation for races (tried: onednn_backend_test
# fails on a "data race" inside the OpenMP runtime's own mutex at the first reorder, nothing of
# layerbench's).
tsan_tests=(validate_test cpu_peak_test cpu_bandwidth_test run_loop_test point_watchdog_test progress_test
  point_test)
run_step "configure (tsan preset: clang, ThreadSanitizer, CPU only)" cmake --preset tsan
run_step "build (tsan: ${tsan_tests[*]})" cmake --build --preset tsan -j "$(nproc)" --target "${tsan_tests[@]}"
for test in "${tsan_tests[@]}"; do
  run_step "$test under TSan" env TSAN_OPTIONS=halt_on_error=1:abort_on_error=1 \
    LAYERBENCH_DATA_DIR="$ROOT/build-tsan/share/layerbench" "$ROOT/build-tsan/tests/$test"
done

# A journaled results file as the results target reads it: the file, a separator line, the
# journal (results_file_fuzz.cpp).
journaled_seeds() {
  local out="$1" file
  for file in "$ROOT"/tests/python/fixtures/real/*.json; do
    [ -f "$file.journal" ] || continue
    { cat "$file"; printf '\n--journal--\n'; cat "$file.journal"; } > "$out/$(basename "$file")+journal"
  done
}

fuzz() {
  local target="$1" max_len="$2"; shift 2
  local work="$ASAN_BUILD/fuzz-work/$target" seeds=() regressions=()
  local run=(env ASAN_OPTIONS=detect_leaks=1 LAYERBENCH_DATA_DIR="$ASAN_BUILD/share/layerbench"
             "$ASAN_BUILD/tests/fuzz/$target" -timeout=10 -rss_limit_mb=2048)
  rm -rf "$work" && mkdir -p "$work/new" "$work/artifacts"
  # Inputs that once crashed the target, each replayed whole (fuzzing cuts inputs at max_len).
  for input in "$ROOT/tests/fuzz/regressions/$target"/*; do [ -f "$input" ] && regressions+=("$input"); done
  if [ ${#regressions[@]} -gt 0 ] && ! "${run[@]}" "${regressions[@]}" > "$work/log" 2>&1; then
    tail -n 60 "$work/log" >&2
    return 1
  fi
  [ "$target" = results_file_fuzz ] && journaled_seeds "$work/new"
  for dir in "$ROOT/tests/fuzz/corpus/$target" "$@"; do [ -d "$dir" ] && seeds+=("$dir"); done
  # New inputs go to the first folder (under the build), never into the source tree; a crash
  # is written to $work/artifacts and belongs in tests/fuzz/regressions/$target once fixed.
  if ! "${run[@]}" -max_total_time="$FUZZ_SECONDS" -max_len="$max_len" \
      -dict="$ROOT/tests/fuzz/json.dict" -print_final_stats=1 -artifact_prefix="$work/artifacts/" \
      "$work/new" "${seeds[@]}" > "$work/log" 2>&1; then
    tail -n 60 "$work/log" >&2
    echo "fuzzing $target failed; the input is in $work/artifacts/" >&2
    return 1
  fi
  grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb' "$work/log" || true
}
# max_len: above the largest seed of each (models 10 KB, real results files 25 KB).
run_step "fuzz the model-file loader (${FUZZ_SECONDS} s)" fuzz model_file_fuzz 16384 \
  "$ROOT/bench/models" "$ROOT/tests/data/models"
run_step "fuzz the results-file loader (${FUZZ_SECONDS} s)" fuzz results_file_fuzz 32768 \
  "$ROOT/tests/python/fixtures/real"
run_step "fuzz the flag and version parsers (${FUZZ_SECONDS} s)" fuzz text_parsers_fuzz 16384

# The Python readers fuzzed the same way: report.py and compare.py on mutated copies of the real
# results files (tests/fuzz/reports_fuzz.py). The seed is the commit's, printed, so a failure in
# CI replays with `--seed S --cases N`, and each commit fuzzes other cases.
reports_fuzz_seed=$(( 16#$(git -C "$ROOT" rev-parse --short=8 HEAD 2>/dev/null || echo 0) ))
run_step "fuzz report.py and compare.py (${FUZZ_SECONDS} s, seed $reports_fuzz_seed)" \
  "$PY" "$ROOT/tests/fuzz/reports_fuzz.py" --seconds "$FUZZ_SECONDS" --seed "$reports_fuzz_seed" \
  --artifacts "$ROOT/build/reports-fuzz-artifacts"
