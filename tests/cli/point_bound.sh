#!/usr/bin/env bash
# The point time bound (--point-timeout): a point past it is stopped between samples and recorded
# failed, and the run goes on; a point stuck inside a library call that never returns is recorded
# by the watchdog, the file finished interrupted with every point measured before it, exit 124,
# and --resume goes on past it. Bounded: the stuck case takes the 1 s bound and 30 s of grace.
set -euo pipefail
bin="$(realpath "$1")"
tiny="$LAYERBENCH_SOURCE_DIR/tests/data/models/tiny.json"
source "$(dirname "${BASH_SOURCE[0]}")/lib/helpers.bash"
new_work_folder
run=(run --device cpu --backend onednn --model-file "$tiny" --model tiny --precision fp32 --batch 1
     --pass fwd --max-time-per-point 0.02 --python none --quiet)
cases=0

for bad in 0 -1 abc 1e9; do
  expect_rc 2 "--point-timeout $bad" "$bin" "${run[@]}" --point-timeout "$bad" -o "$work/bad.json"
  grep -q -- "--point-timeout" "$work/err" || fail "--point-timeout $bad: the flag not named"
  cases=$((cases + 1))
done

# A bound shorter than any point's set-up: each point stops before its first sample, failed with
# the bound as its reason; the run completes (exit 1: failed points).
expect_rc 1 "a bound below the set-up" timeout 300 "$bin" "${run[@]}" --point-timeout 0.000001 \
  -o "$work/short.json"
[ "$(json "$work/short.json" "d['status']")" = complete ] || fail "short bound: run not complete"
[ "$(json "$work/short.json" "len(d['points']) == 4 and all(p['status'] == 'failed' and
     'exceeded the point time bound' in p['reason'] for p in d['points'])")" = True ] \
  || fail "short bound: not every point failed for its bound: $(cat "$work/short.json")"
cases=$((cases + 1))

if [ -z "${LAYERBENCH_STALL_LIBRARY:-}" ]; then
  echo "skipped the stuck point: this build has no oneDNN stand-in (LAYERBENCH_STALL_LIBRARY)"
else
  # oneDNN's matmul never returns (tests/cli/lib/stall_onednn.cpp): the convolutions stem and body
  # measure, the linear op proj hangs inside the call.
  out="$work/stuck.json"
  # Preloaded into layerbench alone: in a sanitizer build the stand-in needs the binary's
  # coverage symbols, which `timeout` lacks.
  expect_rc 124 "a point stuck in oneDNN" timeout 300 env LD_PRELOAD="$LAYERBENCH_STALL_LIBRARY" \
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
    "$bin" "${run[@]}" --point-timeout 1 -o "$out"
  grep -q "tiny/proj/b1/fp32/fwd/cpu did not return within 31 s" "$work/err" \
    && grep -q -- "--resume $out" "$work/err" || fail "stuck point: not named, or no resume hint"
  [ "$(json "$out" "d['status']")" = interrupted ] || fail "stuck point: file not interrupted"
  # stem and body are kept as measured: ok, or failed for the 1 s bound where a loaded host
  # slowed their set-up past it; neither outcome is this case's subject.
  [ "$(json "$out" "[(p['op'], p['status'] == 'ok' or 'exceeded the point time bound' in
       p['reason'], 'did not return' in p.get('reason', '')) for p in d['points']]")" = \
    "[('stem', True, False), ('body', True, False), ('proj', False, True)]" ] \
    || fail "stuck point: wanted stem and body measured, proj failed stuck: $(cat "$out")"
  cases=$((cases + 1))

  # --resume (the library no longer stalls) keeps proj as recorded, not retried, and measures mix.
  expect_rc 1 "--resume after a stuck point" timeout 300 "$bin" run --resume "$out" --python none \
    --quiet
  [ "$(json "$out" "d['status']")" = complete ] || fail "resume: not complete"
  [ "$(json "$out" "[(p['op'], p['status'], 'did not return' in p.get('reason', ''))
       for p in d['points'][2:]]")" = "[('proj', 'failed', True), ('mix', 'ok', False)]" ] \
    || fail "resume: proj retried or mix not measured: $(cat "$out")"
  cases=$((cases + 1))
fi
echo "point_bound.sh: all $cases checks passed"
