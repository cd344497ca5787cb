#!/usr/bin/env bash
# Pre-emption on a busy CPU: with a busy loop of our own pinned to one core, a run at 2 threads
# must detect pre-empted samples, flag the points it could not measure clean `contended`, record
# the busy machine and warn once; a quiet run of the same points must flag none. Needs 2 logical
# processors and taskset; the quiet half needs a machine whose other load leaves a core free,
# and is skipped, saying so, when it does not.
set -euo pipefail
bin="$1"
work="$(mktemp -d)"
hog=""
cleanup() {
  if [ -n "$hog" ]; then kill "$hog" 2>/dev/null || true; wait "$hog" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
source "$(dirname "${BASH_SOURCE[0]}")/lib/helpers.bash"

if [ "$(nproc)" -lt 2 ] || ! command -v taskset >/dev/null; then
  echo "SKIP: needs 2 logical processors and taskset (have $(nproc))"
  exit 0
fi

# A build without OpenMP (the clang sanitizer build) cannot set oneDNN's thread count, and the
# test is about a run at 2 threads.
"$bin" run --device cpu --backend onednn --threads 2 --model-file \
  "$LAYERBENCH_SOURCE_DIR/tests/data/models/tiny.json" --model tiny --batch 1 \
  --precision fp32 --pass fwd --max-time-per-point 0.001 --quiet --python none \
  -o "$work/probe.json" >"$work/probe.out" 2>&1 || true
if grep -q "cannot set oneDNN's thread count" "$work/probe.out"; then
  echo "SKIP: this build cannot set oneDNN's thread count (no OpenMP)"
  exit 0
fi

# Test data: the tiny model plus one GEMM of about 2.1 GFLOP, whose samples span the scheduler's
# slice so that a lost core shows in every one (docs/measuring.md, "Busy machines", says why).
tiny="$LAYERBENCH_SOURCE_DIR/tests/data/models/tiny.json"
cat >"$work/long.json" <<'JSON'
{"schema": "layerbench-model/1", "name": "long", "title": "Long GEMM (test data)",
 "source": "layerbench test data: one made-up GEMM sized to take milliseconds",
 "input": {"channels": 3, "height": 8, "width": 8},
 "ops": [{"id": "gemm", "kind": "linear", "tokens": 1024, "in_features": 1024,
          "out_features": 1024, "layers": ["gemm"]}]}
JSON
common=(--device cpu --backend onednn --batch 1 --precision fp32 --pass fwd
        --max-time-per-point 0.3 --cpu-roofs skip)

run_both() {  # run_both THREADS NAME: the tiny model and the long GEMM into NAME-{tiny,long}.json
  expect_rc 0 "run at $1 threads (tiny)" "$bin" run "${common[@]}" --threads "$1" \
    --model-file "$tiny" --model tiny -o "$work/$2-tiny.json" --benchmark_out="$work/$2-gb.json"
  cp "$work/err" "$work/$2-tiny.err"
  expect_rc 0 "run at $1 threads (long)" "$bin" run "${common[@]}" --threads "$1" \
    --model-file "$work/long.json" --model long -o "$work/$2-long.json"
  cp "$work/err" "$work/$2-long.err"
}
count() {  # count NAME EXPR: sums EXPR over the timed points of both files
  local total=0 f
  for f in "$work/$1-tiny.json" "$work/$1-long.json"; do
    total=$((total + $(json "$f" "sum(int($2) for p in d['points'] if p.get('timing'))")))
  done
  echo "$total"
}

# Loaded: our own hog on processor 1, the run at 2 threads.
taskset -c 1 bash -c 'while :; do :; done' &
hog=$!
run_both 2 loaded
preempted=$(count loaded "p['timing']['preempted_samples']")
contended=$(count loaded "p['timing']['contended']")
echo "loaded: $preempted pre-empted samples, $contended contended points"
[ "$preempted" -gt 0 ] || fail "a hog on one of two cores: no pre-empted sample detected"
[ "$contended" -gt 0 ] || fail "a hog on one of two cores: no point flagged contended"
[ "$(json "$work/loaded-long.json" "d['context']['machine_state']['start']['cpu_busy']")" = True ] ||
  fail "loaded run: machine_state.start not busy"
[ "$(json "$work/loaded-long.json" "d['context']['machine_state']['threads']")" = 2 ] ||
  fail "loaded run: machine_state.threads is not 2"
[ "$(grep -c "warning: the machine was busy" "$work/loaded-long.err")" = 1 ] ||
  fail "loaded run: not exactly one busy warning"
grep -q -- "fewer --threads" "$work/loaded-long.err" || fail "busy warning does not say what to do"
[ "$(json "$work/loaded-long.json" "d['models'][0]['contended_points']")" -ge 1 ] ||
  fail "the model sum over a contended point does not say so"
# Google Benchmark's file: microseconds, and a cpu_time per sample (the whole point's CPU time
# would be hundreds of times the median sample's real time).
[ "$(json "$work/loaded-gb.json" "{b['time_unit'] for b in d['benchmarks']}")" = "{'us'}" ] ||
  fail "--benchmark_out: time unit is not microseconds"
[ "$(json "$work/loaded-gb.json" "all(0 < b['cpu_time'] < 20 * 2 * b['real_time'] for b in d['benchmarks'] if not b.get('error_occurred'))")" = True ] ||
  fail "--benchmark_out: cpu_time is not one sample's CPU time"
kill "$hog"; wait "$hog" 2>/dev/null || true; hog=""

# Quiet: only when the rest of the machine leaves a core free for 1 thread (other runnable tasks
# below 1, the least of five readings); retried once, since a shared machine's load comes and goes.
others() {
  local least=99 i n
  for i in 1 2 3 4 5; do
    n=$(( $(cut -d' ' -f4 /proc/loadavg | cut -d/ -f1) - 1 ))
    [ "$n" -lt "$least" ] && least=$n
    sleep 0.05
  done
  echo "$least"
}
for attempt in 1 2; do
  if [ "$(others)" -gt 0 ]; then
    echo "SKIP (quiet half): other programs keep this machine busy ($(cut -d' ' -f1-4 /proc/loadavg)); a quiet run cannot be asserted here"
    exit 0
  fi
  run_both 1 quiet
  quiet_contended=$(count quiet "p['timing']['contended']")
  [ "$quiet_contended" = 0 ] && { echo "quiet: no contended point (attempt $attempt)"; exit 0; }
  echo "quiet run attempt $attempt: $quiet_contended contended point(s); the machine's load: $(cat /proc/loadavg)"
done
fail "a quiet run at 1 thread flagged points contended twice"
