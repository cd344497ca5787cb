#!/usr/bin/env bash
# Faults around the results file: where it cannot be written, a full disk, two runs on one
# output, odd environments and damaged files given to --resume. Each must end with a message
# naming the file and what to do, the right exit code, and nothing measured lost.
set -euo pipefail
bin="$(realpath "$1")"
tiny="$LAYERBENCH_SOURCE_DIR/tests/data/models/tiny.json"
base=(--device cpu --model-file "$tiny" --model tiny --precision fp32 --quiet --cpu-roofs skip)
fast=("${base[@]}" --max-time-per-point 0.02)

source "$(dirname "${BASH_SOURCE[0]}")/lib/helpers.bash"
new_work_folder
chmod 755 "$work"  # the unwritable-folder cases run as nobody inside it

# Root writes through permission bits, so the unwritable-folder cases run as nobody when root.
as_user() {
  if [ "$(id -u)" -eq 0 ]; then setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; else "$@"; fi
}

# An unwritable folder, as -o and as the current directory of the default output path.
mkdir -p "$work/ro" && chmod 555 "$work/ro"
expect_rc 2 "output in a read-only folder" as_user "$bin" run "${fast[@]}" --batch 1 --pass fwd -o "$work/ro/x.json"
grep -q "$work/ro" "$work/err" && grep -q -- "-o" "$work/err" || fail "read-only folder: not named with the way out"
(cd "$work/ro" && expect_rc 2 "default output in a read-only current directory" \
  as_user "$bin" run "${fast[@]}" --batch 1 --pass fwd)
grep -q "results" "$work/err" && grep -q -- "-o" "$work/err" || fail "read-only cwd: folder or way out not named"
grep -qi "filesystem error" "$work/err" && fail "read-only cwd: a raw library message"

# A missing parent folder is made; a parent that is a file is refused.
expect_rc 0 "missing parent folders" "$bin" run "${fast[@]}" --batch 1 --pass fwd -o "$work/new/deeper/x.json"
[ "$(json "$work/new/deeper/x.json" "d['status']")" = complete ] || fail "missing parent: not complete"
touch "$work/plain"
expect_rc 2 "parent is a file" "$bin" run "${fast[@]}" --batch 1 --pass fwd -o "$work/plain/x.json"
grep -q "$work/plain" "$work/err" || fail "parent is a file: not named"

# Outputs that are not files: never replaced, even with --force.
expect_rc 2 "output is a device" "$bin" run "${fast[@]}" --batch 1 --pass fwd -o /dev/null --force
[ -c /dev/null ] || fail "/dev/null is no longer a character device"
grep -q "not a regular file" "$work/err" || fail "device output: not explained"
mkdir -p "$work/adir"
expect_rc 2 "output is a folder" "$bin" run "${fast[@]}" --batch 1 --pass fwd -o "$work/adir" --force
[ -d "$work/adir" ] || fail "a folder output was replaced"

# Links and special files planted beside the output are refused, naming them, and never
# written through: the journal, the temporary and the lock, each as a link to a victim file.
for beside in journal tmp lock; do
  echo victim > "$work/victim.txt"
  ln -sf "$work/victim.txt" "$work/link_$beside.json.$beside"
  expect_rc 2 "a link at the $beside" "$bin" run "${fast[@]}" --batch 1 --pass fwd -o "$work/link_$beside.json"
  [ "$(cat "$work/victim.txt")" = victim ] || fail "link at the $beside: its target was written"
  grep -q "link_$beside.json.$beside: is a symbolic link" "$work/err" || fail "link at the $beside: not named"
done
mkfifo "$work/fifo.json.journal"
expect_rc 2 "a FIFO at the journal" timeout 120 "$bin" run "${fast[@]}" --batch 1 --pass fwd -o "$work/fifo.json"
grep -q "fifo.json.journal: exists and is not a regular file" "$work/err" || fail "FIFO journal: not named"
# The output itself a link: /dev/stdout (a link to /proc/self/fd/1) is not replaced by a file.
expect_rc 2 "-o /dev/stdout --force" "$bin" run "${fast[@]}" --batch 1 --pass fwd -o /dev/stdout --force
[ -L /dev/stdout ] || fail "/dev/stdout is no longer a symbolic link"
grep -q "/dev/stdout: is a symbolic link" "$work/err" || fail "-o /dev/stdout: not explained"
ln -s "$work/victim.txt" "$work/linked.json"
expect_rc 2 "an output that is a link" "$bin" run "${fast[@]}" --batch 1 --pass fwd -o "$work/linked.json" --force
[ -L "$work/linked.json" ] && [ "$(cat "$work/victim.txt")" = victim ] || fail "a linked output was replaced"

# HOME unset changes nothing.
expect_rc 0 "HOME unset" env -u HOME "$bin" run "${fast[@]}" --batch 1 --pass fwd -o "$work/home.json"

# Two runs on one output: the second is refused with the first one's pid, even with --force,
# and the first completes undisturbed.
"$bin" run "${base[@]}" --batch 1,2 --pass train --max-time-per-point 0.3 -o "$work/shared.json" &
first=$!
for _ in $(seq 200); do [ -e "$work/shared.json.journal" ] && break; sleep 0.05; done
expect_rc 2 "second run on the same output" "$bin" run "${fast[@]}" --batch 1 --pass fwd -o "$work/shared.json" --force
grep -q "pid $first" "$work/err" || fail "second run: the first run's pid ($first) not named"
wait "$first" || fail "the first run did not end 0"
[ "$(json "$work/shared.json" "d['status']+' '+d['points'][0]['pass']")" = "complete fwd" ] || fail "the first run's file was disturbed"
[ "$(json "$work/shared.json" "d['settings']['pass']")" = train ] || fail "the second run's settings reached the file"

# A full disk mid-run: exit 1 (not 2: the input was fine), the way out named, no .tmp left,
# and every point in the file and journal; --resume on a roomier disk completes the run.
mkdir -p "$work/full"
if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o size=40k tmpfs "$work/full" 2>/dev/null; then
  mounted="$work/full"
  expect_rc 1 "full disk" "$bin" run "${fast[@]}" --batch 1,2,4 --pass train -o "$work/full/r.json"
  grep -q "No space left on device" "$work/err" || fail "full disk: the system's reason not given"
  grep -q -- "--resume $work/full/r.json" "$work/err" || fail "full disk: --resume not suggested"
  ls "$work/full" | grep -q '\.tmp$' && fail "full disk: a .tmp file was left"
  mkdir -p "$work/roomy" && cp "$work/full"/r.json* "$work/roomy/"
  umount "$work/full" && mounted=""
  expect_rc 0 "resume after the full disk" "$bin" run --resume "$work/roomy/r.json" --quiet
  [ "$(json "$work/roomy/r.json" "d['status']")" = complete ] || fail "full disk: resumed run not complete"
  # 3 batches x (4 fwd + 3 bwd_data + 4 bwd_weights), each once.
  [ "$(json "$work/roomy/r.json" "len({(p['op'],p['batch'],p['pass']) for p in d['points']})")" = 33 ] \
    || fail "full disk: the resumed file does not hold every point once"
else
  echo "skipped the full-disk case: mounting a small tmpfs needs root (uid $(id -u))"
fi

# Damaged files given to --resume: exit 2 naming the file and the field.
"$bin" run "${fast[@]}" --batch 1 --pass fwd -o "$work/good.json"
damage() {  # damage NAME PYTHON-STATEMENT-ON-d
  python3 - "$work/good.json" "$work/$1.json" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["status"] = "incomplete"
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
PY
}
damage no_context 'del d["context"]'
damage no_settings 'del d["settings"]'
damage settings_null 'd["settings"]["max_time_per_point_s"] = None'
damage threads_huge 'd["settings"]["threads"] = 10000'
damage duplicate 'd["points"].append(d["points"][0])'
damage negative 'd["points"][1]["timing"]["median_ms"] = -1.0'
damage nan_median 'd["points"][1]["timing"]["median_ms"] = None'
damage batch_zero 'd["points"][0]["batch"] = 0'
for case in "no_context:context" "no_settings:settings" "settings_null:max_time_per_point_s" \
            "threads_huge:--threads" "duplicate:appears twice" "negative:timing.median_ms" \
            "nan_median:timing.median_ms" "batch_zero:batch"; do
  name="${case%%:*}" field="${case#*:}"
  expect_rc 2 "--resume of a file with $name" "$bin" run --resume "$work/$name.json" --quiet
  grep -q "$name.json" "$work/err" && grep -qF -- "$field" "$work/err" \
    || fail "--resume $name: file or field ($field) not named"
done
# A journal that is a FIFO or a link: --resume refuses it, naming it, instead of waiting on it.
damage fifo_resume 'pass'
mkfifo "$work/fifo_resume.json.journal"
expect_rc 2 "--resume with a FIFO journal" timeout 120 "$bin" run --resume "$work/fifo_resume.json" --quiet
grep -q "fifo_resume.json.journal: is a FIFO" "$work/err" || fail "--resume FIFO journal: not named"
damage link_resume 'pass'
ln -s "$work/victim.txt" "$work/link_resume.json.journal"
expect_rc 2 "--resume with a linked journal" "$bin" run --resume "$work/link_resume.json" --quiet
grep -q "link_resume.json.journal: is a symbolic link" "$work/err" || fail "--resume linked journal: not named"
[ "$(cat "$work/victim.txt")" = victim ] || fail "--resume linked journal: its target was written"
expect_rc 2 "--resume of a folder" "$bin" run --resume "$work/adir"
grep -q "not a regular file" "$work/err" || fail "--resume of a folder: not explained"
echo "faults.sh: all checks passed"
