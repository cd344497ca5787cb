#!/usr/bin/env bash
# Resource limits and special files: a file-size limit, an address-space limit, a tiny disk and
# FIFOs given as input files. Each ends with a message naming the file and the way out, or with
# the points that cannot get memory recorded as oom; none hangs or dies by a signal.
set -euo pipefail
bin="$(realpath "$1")"
tiny="$LAYERBENCH_SOURCE_DIR/tests/data/models/tiny.json"
source "$(dirname "${BASH_SOURCE[0]}")/lib/helpers.bash"
new_work_folder
run=(run --device cpu --model-file "$tiny" --model tiny --precision fp32 --max-time-per-point 0.02
     --quiet --cpu-roofs skip)
cases=0

# ulimit -f: the write that passes it fails with EFBIG (no SIGXFSZ death, exit 153): exit 1, the
# resume hint, no .tmp left, and the journal keeps the points.
for kb in 8 16 60; do
  expect_rc 1 "ulimit -f $kb" bash -c 'ulimit -f "$1"; shift; exec timeout 300 "$@"' _ "$kb" \
    "$bin" "${run[@]}" --batch 1,2 --pass train -o "$work/f$kb.json"
  grep -q "File too large" "$work/err" && grep -q -- "--resume $work/f$kb.json" "$work/err" \
    || fail "ulimit -f $kb: reason or resume hint missing"
  [ ! -e "$work/f$kb.json.tmp" ] || fail "ulimit -f $kb: a .tmp was left"
  cases=$((cases + 1))
done

# ulimit -n: a hard limit too low for Google Benchmark's start is refused with the fix (it used to
# die with only "Failed to read from file /sys/..."); a low soft limit alone is raised and runs.
# The soft limit is raised before anything else runs: under UBSan, whose checks open a pipe, a
# check on the signal thread found no descriptor left at 6 while the main thread held the others.
# (4 would show it every time, but leaves the dynamic loader no room where ctest holds one more.)
# The hard limit is 16, under the 32 a run needs: at 6 the same UBSan check, on a limit nothing
# can raise, still found none left now and then (twice in CI), a sanitizer's race, not ours.
expect_rc 1 "ulimit -n 16" bash -c 'ulimit -n 16; exec "$@"' _ "$bin" "${run[@]}" --batch 1 \
  --python none -o "$work/n.json"
grep -q "ulimit -n" "$work/err" || fail "ulimit -n 16: the limit and its fix not named"
expect_rc 0 "ulimit -Sn 6" bash -c 'ulimit -Sn 6; exec "$@"' _ "$bin" "${run[@]}" --batch 1 \
  --python none -o "$work/ns.json"
cases=$((cases + 2))

# ulimit -v: every point that cannot get memory is oom and the run completes. OpenBLAS's allocator
# would retry its failed buffer malloc forever; oneDNN 3.2 crashed 4 runs in 11 of these (SIGSEGV
# constructing on the null its operator new returns, an abort when an exception could not load
# the unwinder) until each point kept address space free for the libraries' own allocations, and
# failed a point whose output read-back ran out. The default backends (oneDNN and OpenBLAS), three
# times, and OpenBLAS alone.
if ! bash -c 'ulimit -v 1000000; exec "$@"' _ "$bin" --version >/dev/null 2>&1; then
  # AddressSanitizer reserves terabytes of shadow address space before main.
  echo "skipped ulimit -v: this build (a sanitizer build) cannot start under ulimit -v 1000000"
else
  # Every precision of the suite (FP32 and BF16): the crashes came once earlier points had used
  # up the address space.
  vrun=(run --device cpu --model-file "$tiny" --model tiny --batch 1,2 --pass train
        --max-time-per-point 0.05 --quiet)
  backends=("" "" "")
  if grep -q "OpenBLAS *compiled" <<<"$("$bin" --version)"; then
    backends+=(--backend=openblas)
  else
    echo "skipped ulimit -v with OpenBLAS alone: this build has no OpenBLAS backend"
  fi
  for i in "${!backends[@]}"; do
    what="ulimit -v 1000000 ${backends[$i]:-default backends} (run $((i + 1)))"
    expect_rc 0 "$what" bash -c 'ulimit -v 1000000; exec timeout 300 "$@"' _ "$bin" "${vrun[@]}" \
      ${backends[$i]:+"${backends[$i]}"} -o "$work/v$i.json"
    [ "$(json "$work/v$i.json" "d['status']")" = complete ] || fail "$what: run not complete"
    [ "$(json "$work/v$i.json" "sum(p['status'] == 'failed' for p in d['points'])")" = 0 ] \
      || fail "$what: a point failed instead of oom"
    [ "$(json "$work/v$i.json" "any(p['status'] == 'oom' for p in d['points'])")" = True ] \
      || fail "$what: no point recorded oom (the limit no longer binds: lower it)"
    cases=$((cases + 1))
  done
fi

# ulimit -v 200000 (KiB): room for the process and its libraries (it started at 100000 KiB
# neither OpenBLAS nor a run, on the AMD EPYC this was measured on) but not for an OpenBLAS worker
# thread's 128 MiB buffer, whose malloc OpenBLAS retried forever while exit() waited for it:
# --version and the doctor printed everything and never exited. Now each ends in bounded time,
# and a run that would start the worker exits 1 naming the limit and the way out.
if ! bash -c 'ulimit -v 1000000; exec "$@"' _ "$bin" --version >/dev/null 2>&1; then
  echo "skipped ulimit -v 200000: this build (a sanitizer build) cannot start under ulimit -v"
else
  for args in "--version" "doctor --python none" "doctor --json --python none"; do
    read -ra argv <<<"$args"
    rc=0
    bash -c 'ulimit -v 200000; exec timeout 60 "$@"' _ "$bin" "${argv[@]}" >/dev/null 2>&1 || rc=$?
    [ "$rc" -le 1 ] || fail "ulimit -v 200000 $args: exit $rc (124: still running after 60 s)"
    cases=$((cases + 1))
  done
  if [ "$(nproc)" -ge 2 ] && grep -q "OpenBLAS *compiled" <<<"$("$bin" --version)"; then
    expect_rc 1 "ulimit -v 200000 run" bash -c 'ulimit -v 200000; exec timeout 60 "$@"' _ \
      "$bin" "${run[@]}" --batch 1 --python none -o "$work/v200000.json"
    grep -q "OpenBLAS cannot start .*ulimit -v 200000 KiB.*--threads 1" "$work/err" \
      || fail "ulimit -v 200000 run: the limit and the way out not named"
    cases=$((cases + 1))
  else
    echo "skipped ulimit -v 200000 run: OpenBLAS starts no worker thread here (one processor)"
  fi
fi

# An 8 KB disk: the first results file does not fit; exit 1 saying what to do, nothing left.
mkdir -p "$work/tiny_disk"
if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o size=8k tmpfs "$work/tiny_disk" 2>/dev/null; then
  mounted="$work/tiny_disk"
  expect_rc 1 "8 KB disk" timeout 300 "$bin" "${run[@]}" --batch 1 --pass fwd -o "$work/tiny_disk/r.json"
  grep -q "No space left on device" "$work/err" && grep -q "run again" "$work/err" \
    || fail "8 KB disk: reason or way out missing"
  [ -z "$(ls -A "$work/tiny_disk")" ] || fail "8 KB disk: files left: $(ls "$work/tiny_disk")"
  umount "$work/tiny_disk" && mounted=""
  cases=$((cases + 1))
else
  echo "skipped the 8 KB disk: mounting a tmpfs needs root (uid $(id -u))"
fi

# A FIFO as every file argument of layerbench: refused naming it, not waited on (bounded).
mkfifo "$work/fifo.json"
for args in "list --model-file $work/fifo.json" "run --device cpu --model-file $work/fifo.json --dry-run" \
            "run --resume $work/fifo.json"; do
  read -ra argv <<<"$args"
  expect_rc 2 "$args" timeout 120 "$bin" "${argv[@]}"
  grep -q "fifo.json: .*\(FIFO\|not a regular file\)" "$work/err" || fail "$args: the FIFO not named"
  cases=$((cases + 1))
done
echo "limits.sh: all $cases checks passed"
