#!/usr/bin/env bash
# `layerbench run --backend`: two backends on one device (oneDNN and OpenBLAS on the CPU), each
# point recorded with its backend and keyed apart, model sums never mixed, a bad name exit 2,
# --resume of a two-backend run, and an old-format real results file (written before the flag)
# resumed with its one backend. Skipped (77) in a build without the OpenBLAS backend.
set -euo pipefail
bin="$1"
tiny="$LAYERBENCH_SOURCE_DIR/tests/data/models/tiny.json"
real="$LAYERBENCH_SOURCE_DIR/tests/python/fixtures/real"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fast=(--device cpu --model-file "$tiny" --model tiny --max-time-per-point 0.05 --quiet --cpu-roofs skip)

source "$(dirname "${BASH_SOURCE[0]}")/lib/helpers.bash"

if ! "$bin" --version | grep -q "^ *OpenBLAS "; then
  echo "skipped: this layerbench has no OpenBLAS backend"
  exit 77
fi

# Bad names: exit 2 naming the flag, the name and the backends this build knows.
expect_rc 2 "unknown backend" "$bin" run "${fast[@]}" --backend onednn,nosuch -o "$work/x.json"
grep -q -- "--backend" "$work/err" && grep -q "nosuch" "$work/err" || fail "bad --backend: flag or name not named"
grep -q "onednn, openblas" "$work/err" || fail "bad --backend: known backends not listed"
expect_rc 2 "empty backend item" "$bin" run "${fast[@]}" --backend onednn, -o "$work/x.json"
grep -q -- "--backend" "$work/err" || fail "empty --backend item: flag not named"
[ ! -e "$work/x.json" ] || fail "a refused run wrote a results file"
# A flag given twice: named with its values, in one line.
expect_rc 2 "--device twice" "$bin" run "${fast[@]}" --device gpu -o "$work/x.json"
[ "$(cat "$work/err")" = "layerbench run: --device given 2 times (cpu, gpu); give it once" ] \
  || { cat "$work/err" >&2; fail "--device twice: not said in one line"; }
# Backends that serve none of the devices asked for: both flags named, with the way out.
expect_rc 2 "CPU backends, GPU device" "$bin" run --backend onednn,openblas --device gpu \
  --quiet -o "$work/x.json"
grep -q -- "--backend onednn,openblas: runs on the CPU only, and --device gpu asks for a GPU" \
  "$work/err" || { cat "$work/err" >&2; fail "CPU backends on a GPU: flags not named"; }

# The plan: each backend of the device is a target of its own.
expect_rc 0 "dry run" "$bin" run "${fast[@]}" --batch 1 --precision fp32 --pass fwd --dry-run
[ "$(json "$work/out" "sorted(d['devices'])")" = "['cpu', 'cpu@openblas']" ] || fail "dry run: not one entry per backend"
expect_rc 0 "dry run, one backend" "$bin" run "${fast[@]}" --batch 1 --precision fp32 --backend openblas --dry-run
[ "$(json "$work/out" "sorted(d['devices'])")" = "['cpu@openblas']" ] || fail "dry run --backend openblas"

# Both backends (the default: every backend of the device): oneDNN measures the 4 ops, OpenBLAS
# the 2 GEMMs and records the 2 convolutions unsupported; the keys never collide.
expect_rc 0 "two backends" "$bin" run "${fast[@]}" --batch 1 --precision fp32 --pass fwd -o "$work/two.json"
[ "$(json "$work/two.json" "sorted((p['backend'], p['status']) for p in d['points'])")" = \
  "[('onednn', 'ok'), ('onednn', 'ok'), ('onednn', 'ok'), ('onednn', 'ok'), ('openblas', 'ok'), ('openblas', 'ok'), ('openblas', 'unsupported'), ('openblas', 'unsupported')]" ] \
  || fail "two backends: not 4 oneDNN points and 2 + 2 OpenBLAS ones"
json "$work/two.json" "[p['reason'] for p in d['points'] if p['status'] == 'unsupported']" | grep -q "no convolution" \
  || fail "OpenBLAS convolutions: reason missing"
[ "$(json "$work/two.json" "all(p['validation']['passed'] for p in d['points'] if p['status'] == 'ok')")" = True ] \
  || fail "two backends: an ok point not validated"
[ "$(json "$work/two.json" "sorted((r.get('backend', ''), r['status']) for r in d['models'])")" = \
  "[('', 'ok'), ('openblas', 'unsupported')]" ] || fail "model sums: one per backend, OpenBLAS's without convolutions"
[ "$(json "$work/two.json" "list(d['context']['devices'][0]['other_backends'])")" = "['openblas']" ] \
  || fail "context: OpenBLAS facts missing"
# Each backend's descriptor names its libraries for the report.
[ "$(json "$work/two.json" "[d['context']['backends'][b]['library_names'] for b in ('onednn', 'openblas')]")" = \
  "[{'onednn': 'oneDNN'}, {'openblas': 'OpenBLAS'}]" ] || fail "context.backends: library names missing"

# kill -9 in the middle of a two-backend training run; --resume measures the rest, each point once.
train=(--device cpu --model-file "$tiny" --model tiny --batch 1,2 --precision fp32 --pass train
       --backend onednn,openblas --max-time-per-point 0.2 --quiet --cpu-roofs skip)
"$bin" run "${train[@]}" -o "$work/killed.json" &
pid=$!
for _ in $(seq 1200); do  # bounded: 120 s (a sanitizer build on a busy machine is slow to start)
  [ -e "$work/killed.json.journal" ] && [ "$(wc -l < "$work/killed.json.journal")" -ge 6 ] && break
  sleep 0.1
done
kill -9 "$pid"; wait "$pid" 2>/dev/null || true
[ "$(json "$work/killed.json" "d['status']")" = incomplete ] || fail "killed run not marked incomplete"
expect_rc 2 "resume with another --backend" "$bin" run --resume "$work/killed.json" --backend onednn
grep -q -- "--backend" "$work/err" || fail "resume refusal does not name --backend"
expect_rc 0 "resume two backends" "$bin" run --resume "$work/killed.json" --quiet
[ "$(json "$work/killed.json" "d['status']")" = complete ] || fail "resumed run not complete"
# tiny train at 2 batches: 11 points per batch (the stem has no backward-data) per backend.
[ "$(json "$work/killed.json" "len(d['points'])")" = 44 ] || fail "resumed two-backend run does not hold 44 points"
[ "$(json "$work/killed.json" "len({(p['op'], p['batch'], p['pass'], p['backend']) for p in d['points']})")" = 44 ] \
  || fail "resumed two-backend run holds a point twice"

# An old-format real file (tests/python/fixtures/real, written before --backend: no "backends"
# setting, points keyed by device alone), moved to this build's machine identity: --resume
# measures the rest with the device's original backend only, as the run it continues did.
python3 - "$real/sigkill_train_4.json" "$work/two.json" "$work/old.json" "$tiny" <<'PY'
import json, shutil, sys
old, here, out, tiny = sys.argv[1:]
d = json.load(open(old))
assert "backends" not in d["settings"]
ctx = json.load(open(here))["context"]
for key in ("host", "libraries"):
    d["context"][key] = ctx[key]
d["context"]["devices"][0]["name"] = ctx["devices"][0]["name"]
d["settings"]["workloads"] = [tiny]  # the file names it relative to where it was run
json.dump(d, open(out, "w"))
shutil.copy(old + ".journal", out + ".journal")
PY
expect_rc 0 "resume an old-format file" "$bin" run --resume "$work/old.json" --quiet
[ "$(json "$work/old.json" "d['status']")" = complete ] || fail "old-format file not completed"
[ "$(json "$work/old.json" "sorted({p['backend'] for p in d['points']})")" = "['onednn']" ] \
  || fail "old-format file resumed with another backend than oneDNN"
[ "$(json "$work/old.json" "len(d['points'])")" = 11 ] || fail "old-format file: not 11 points once each"
echo "backend.sh: all checks passed"
