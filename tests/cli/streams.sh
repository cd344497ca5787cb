#!/usr/bin/env bash
# Signals other than Ctrl-C and SIGTERM, and a standard output that is gone or full: a run stops
# after the current point with a loadable file marked interrupted and exit 130, never dying by the
# signal; a command whose output cannot be written says so and exits 1 instead of 0, except to a
# reader that has gone, which had what it wanted.
set -euo pipefail
bin="$(realpath "$1")"
tiny="$LAYERBENCH_SOURCE_DIR/tests/data/models/tiny.json"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/lib/helpers.bash"
run=(run --device cpu --model-file "$tiny" --model tiny --precision fp32 --batch 1,2 --pass train
     --max-time-per-point 0.05 --quiet --cpu-roofs skip)
cases=0

# A signal once two points are journaled: exit 130, the file interrupted, its points complete.
for sig in HUP QUIT USR1 USR2 ALRM; do
  out="$work/$sig.json"
  "$bin" "${run[@]}" -o "$out" 2>"$work/err" &  # not under timeout: the signal is for the run
  pid=$!
  for _ in $(seq 1200); do  # bounded: 120 s
    [ -f "$out.journal" ] && [ "$(wc -l <"$out.journal")" -ge 3 ] && break
    sleep 0.1
  done
  kill -"$sig" "$pid"
  for _ in $(seq 1200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done  # bounded: 120 s
  kill -0 "$pid" 2>/dev/null && { kill -KILL "$pid"; fail "SIG$sig: still running after 120 s"; }
  rc=0
  wait "$pid" || rc=$?
  [ "$rc" -eq 130 ] || { cat "$work/err" >&2; fail "SIG$sig: exit $rc, wanted 130"; }
  [ "$(json "$out" "d['status']")" = interrupted ] || fail "SIG$sig: file not marked interrupted"
  [ "$(json "$out" "len(d['points']) >= 2")" = True ] || fail "SIG$sig: the journaled points are not in the file"
  cases=$((cases + 1))
done

# A reader that has gone (`run | head -1`, here one that reads nothing): no SIGPIPE death (141),
# the run stops after the point as if interrupted.
set +o pipefail
timeout 300 "$bin" "${run[@]}" -o "$work/pipe.json" 2>"$work/err" | (exec true)
rc="${PIPESTATUS[0]}"
set -o pipefail
[ "$rc" -eq 130 ] || { cat "$work/err" >&2; fail "closed pipe: exit $rc, wanted 130"; }
[ "$(json "$work/pipe.json" "d['status']")" = interrupted ] || fail "closed pipe: file not interrupted"
grep -q "reader has gone" "$work/err" || fail "closed pipe: not explained"
cases=$((cases + 1))

# Standard output full or closed: exit 1 with a message, never 0 having written nothing.
check_stdout() {  # check_stdout DESCRIPTION REDIRECTION ARGS...
  local what="$1" redirect="$2" rc=0
  shift 2
  case "$redirect" in
    full) timeout 120 "$bin" "$@" >/dev/full 2>"$work/err" || rc=$? ;;
    closed) timeout 120 "$bin" "$@" >&- 2>"$work/err" || rc=$? ;;
  esac
  [ "$rc" -eq 1 ] || { cat "$work/err" >&2; fail "$what: exit $rc, wanted 1"; }
  grep -q "standard output could not be written" "$work/err" || fail "$what: no message"
  cases=$((cases + 1))
}
check_stdout "--version >/dev/full" full --version
check_stdout "--dry-run >/dev/full" full "${run[@]}" --dry-run
check_stdout "--dry-run >&-" closed "${run[@]}" --dry-run
check_stdout "list --json >&-" closed list --json
check_stdout "doctor --json >/dev/full" full doctor --json

# A reader that took what it wanted and went (`layerbench --version | head -1`): exit 0, nothing
# said. Here standard output is a pipe whose reader has closed before the first write, so the
# write fails every time (with `| head -1` it fails only when head is quicker).
gone_reader() {  # gone_reader ARGS...
  local rc=0
  python3 -c 'import os, subprocess, sys
r, w = os.pipe()
os.close(r)
sys.exit(subprocess.run(sys.argv[1:], stdout=w).returncode)' timeout 120 "$bin" "$@" \
    2>"$work/err" || rc=$?
  [ "$rc" -eq 0 ] || { cat "$work/err" >&2; fail "$* | a reader gone: exit $rc, wanted 0"; }
  [ ! -s "$work/err" ] || { cat "$work/err" >&2; fail "$* | a reader gone: said something"; }
  cases=$((cases + 1))
}
gone_reader --version
gone_reader list --json
gone_reader "${run[@]}" --dry-run
"$bin" --version | head -1 >/dev/null || fail "--version | head -1: exit $?, wanted 0"
cases=$((cases + 1))
echo "streams.sh: all $cases checks passed"
