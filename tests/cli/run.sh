#!/usr/bin/env bash
# `layerbench run` as a user meets it: exit codes, the results file, kill -9 and --resume,
# Ctrl-C, and refusals. Uses the tiny test model (tests/data/models/tiny.json) to stay fast.
set -euo pipefail
bin="$1"
tiny="$LAYERBENCH_SOURCE_DIR/tests/data/models/tiny.json"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fast=(--device cpu --backend onednn --model-file "$tiny" --model tiny --max-time-per-point 0.05 --quiet --cpu-roofs skip)

source "$(dirname "${BASH_SOURCE[0]}")/lib/helpers.bash"

# Usage and input errors: exit 2 with the flag, value or file named.
expect_rc 2 "unknown flag" "$bin" run --bogus
grep -q "^layerbench run: --bogus: not a flag .*(\`layerbench run --help\` lists the flags)$" \
  "$work/err" || fail "unknown flag: not named with the pointer to --help"
expect_rc 2 "unknown subcommand" "$bin" frobnicate
grep -q "frobnicate (\`layerbench --help\` lists the flags)$" "$work/err" \
  || fail "unknown subcommand: not named with the pointer to --help"
[ "$(wc -l < "$work/err")" -eq 1 ] || fail "unknown subcommand: not one line (the whole usage?)"
expect_rc 2 "unknown model" "$bin" run "${fast[@]}" --model nosuchmodel -o "$work/x.json"
grep -q "nosuchmodel" "$work/err" || fail "unknown model not named"
expect_rc 2 "bad batch" "$bin" run "${fast[@]}" --batch 0 -o "$work/x.json"
grep -q -- "--batch" "$work/err" || fail "bad batch: flag not named"
echo '{"schema": "layerbench-model/1", "name": "bad", "ops": [' > "$work/bad.json"
expect_rc 2 "malformed model file" "$bin" run "${fast[@]}" --model-file "$work/bad.json" -o "$work/x.json"
grep -q "bad.json" "$work/err" || fail "malformed model file: file not named"
[ ! -e "$work/x.json" ] || fail "a refused run wrote a results file"

# A forward run: every fp32 point measured and validated, fp16 recorded unsupported (no CPU
# here runs oneDNN fp16), the file complete.
expect_rc 0 "tiny forward run" "$bin" run "${fast[@]}" --batch 1 --precision fp32 --pass fwd -o "$work/fwd.json"
[ "$(json "$work/fwd.json" "d['status']")" = complete ] || fail "fwd run not complete"
[ "$(json "$work/fwd.json" "sum(p['status']=='ok' and p['validation']['passed'] for p in d['points'])")" = 4 ] \
  || fail "fwd run: not 4 validated ok points"
[ "$(json "$work/fwd.json" "len(d['models'])")" -ge 1 ] || fail "no model sums"
[ ! -e "$work/fwd.json.journal" ] || fail "journal left after a complete run"

# Every memory-bound kind, forward and backward, measured and validated; the model sums say
# which estimate they are and share the time per kind group; only inference has a folded one.
memory=(--device cpu --model-file "$LAYERBENCH_SOURCE_DIR/tests/data/models/tiny_memory.json"
        --model tiny_memory --max-time-per-point 0.05 --quiet --cpu-roofs skip)
expect_rc 0 "memory-bound training run" "$bin" run "${memory[@]}" --batch 2 --precision fp32 --pass train -o "$work/memory.json"
# The conv's fwd and bwd_weights (the input layer), 9 memory-bound ops x 2 passes less the
# broadcast add's bwd_data, and batch norm's training forward.
[ "$(json "$work/memory.json" "sum(p['status']=='ok' and p['validation']['passed'] for p in d['points'])")" = 20 ] \
  || fail "memory-bound run: not 20 validated ok points"
python3 - "$work/memory.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
fwd, train = (next(r for r in d["models"] if r["pass"] == p) for p in ("fwd", "train"))
for r in (fwd, train):
    assert r["status"] == "ok" and r["estimate"] == "eager", r
    assert abs(sum(r["kind_share"].values()) - 1) < 1e-9, r["kind_share"]
    assert r["kind_ms"]["pooling"] > 0 and r["kind_ms"]["gemm"] == 0, r["kind_ms"]
assert train["folded"] is None
assert fwd["folded"]["estimate"] == "folded" and fwd["folded"]["folded_ops"] == ["bn"], fwd["folded"]
assert fwd["folded"]["time_ms"] < fwd["time_ms"]
PY

# Never overwrite a results file without --force.
expect_rc 2 "overwrite refused" "$bin" run "${fast[@]}" --batch 1 --precision fp32 --pass fwd -o "$work/fwd.json"
grep -q -- "--force" "$work/err" || fail "overwrite refusal does not mention --force"

# A requested GPU that is unusable: the doctor's reason, exit 1 (only where no GPU is usable).
if ! "$bin" doctor >/dev/null 2>&1; then
  expect_rc 1 "unusable GPU" "$bin" run --device gpu --model-file "$tiny" --model tiny --quiet -o "$work/gpu.json"
  grep -q "No usable GPU" "$work/err" || fail "unusable GPU: no doctor verdict"
fi

# kill -9 in the middle leaves a loadable incomplete file; --resume completes it.
train=(--device cpu --backend onednn --model-file "$tiny" --model tiny --batch 1,2,4 --precision fp32 --pass train
       --max-time-per-point 0.05 --rounds 1 --quiet --cpu-roofs skip)
"$bin" run "${train[@]}" -o "$work/killed.json" &
pid=$!
for _ in $(seq 1200); do  # bounded: 120 s (a sanitizer build on a busy machine is slow to start)
  [ -e "$work/killed.json.journal" ] && [ "$(wc -l < "$work/killed.json.journal")" -ge 4 ] && break
  sleep 0.1
done
kill -9 "$pid"; wait "$pid" 2>/dev/null || true
[ "$(json "$work/killed.json" "d['status']")" = incomplete ] || fail "killed run not marked incomplete"
expect_rc 2 "resume with other settings" "$bin" run --resume "$work/killed.json" --batch 8
grep -q -- "--batch" "$work/err" || fail "resume refusal does not name the differing flag"
python3 - "$work/killed.json" "$work/moved.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["context"]["host"] = "another-host"
json.dump(d, open(sys.argv[2], "w"))
PY
expect_rc 2 "resume on another machine" "$bin" run --resume "$work/moved.json"
grep -q "another machine" "$work/err" || fail "resume on another machine: not explained"
# Library versions: one the file recorded must be the same here; one it did not record (a library
# of a backend added since, which measured none of its points) is not compared.
python3 - "$work/killed.json" "$work" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
libraries = d["context"]["libraries"]
d["context"]["libraries"] = dict(libraries, onednn="0.0.1 (edited)")
json.dump(d, open(sys.argv[2] + "/other-onednn.json", "w"))
d["context"]["libraries"] = {k: v for k, v in libraries.items() if k != "onednn"}
json.dump(d, open(sys.argv[2] + "/no-onednn.json", "w"))
PY
expect_rc 2 "resume with another oneDNN" "$bin" run --resume "$work/other-onednn.json"
grep -q 'other-onednn.json: context.libraries: {.*"onednn":"0.0.1 (edited)".*another machine' \
  "$work/err" || fail "resume with another oneDNN: not explained with the file and field"
expect_rc 0 "resume a file without a library row" "$bin" run --resume "$work/no-onednn.json" --quiet
[ "$(json "$work/no-onednn.json" "d['status']")" = complete ] || fail "file without a library row not completed"
expect_rc 0 "resume" "$bin" run --resume "$work/killed.json" --quiet
[ "$(json "$work/killed.json" "d['status']")" = complete ] || fail "resumed run not complete"
# 3 batches x (4 fwd + 3 bwd_data + 4 bwd_weights): the input layer has no bwd_data.
[ "$(json "$work/killed.json" "len(d['points'])")" = 33 ] || fail "resumed run does not hold every point once"
expect_rc 2 "resume a complete file" "$bin" run --resume "$work/killed.json"

# Ctrl-C: the current point finishes or is abandoned, the file is written, exit 130.
"$bin" run "${train[@]}" -o "$work/int.json" &
pid=$!
for _ in $(seq 100); do [ -e "$work/int.json.journal" ] && break; sleep 0.1; done
kill -INT "$pid"
rc=0; wait "$pid" || rc=$?
[ "$rc" -eq 130 ] || fail "SIGINT: exit $rc, wanted 130"
[ "$(json "$work/int.json" "d['status']")" = interrupted ] || fail "interrupted run not marked"
echo "run.sh: all checks passed"
