#!/usr/bin/env bash
# `layerbench run`'s flags read once at the boundary: each bad value is exit 2 with one line
# naming the flag (or, for a resumed file, the file and its settings field), and a relative
# --model-file is recorded so that --resume works from any folder.
set -euo pipefail
bin="$(realpath "$1")"
tiny="$LAYERBENCH_SOURCE_DIR/tests/data/models/tiny.json"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
plan=(--device cpu --backend onednn --model-file "$tiny" --model tiny --dry-run)

source "$(dirname "${BASH_SOURCE[0]}")/lib/helpers.bash"

# refused NAME FLAG-TEXT ARGS...: exit 2, one line on stderr, naming FLAG-TEXT.
refused() {
  local what="$1" named="$2"; shift 2
  expect_rc 2 "$what" "$bin" run "$@"
  [ "$(wc -l < "$work/err")" -eq 1 ] || { cat "$work/err" >&2; fail "$what: not one line"; }
  grep -qF -- "$named" "$work/err" || { cat "$work/err" >&2; fail "$what: $named not named"; }
}
refused "unreadable min_time" "--benchmark_min_time" "${plan[@]}" --benchmark_min_time=abc
refused "unknown benchmark flag" "--benchmark_frob" "${plan[@]}" --benchmark_frob=1
refused "negative seed" "--seed" "${plan[@]}" --seed -1
refused "seed past 2^64-1" "--seed" "${plan[@]}" --seed 18446744073709551616
refused "empty output" "--output" "${plan[@]}" -o ''
refused "empty batch" "--batch" "${plan[@]}" --batch ''
refused "empty precision" "--precision" "${plan[@]}" --precision ''
refused "folder as model file" "is a folder" --device cpu --model-file "$work" --model tiny --dry-run
# CLI11's own refusals are one line too, saying what the flag takes, never the whole usage.
refused "rounds not a number" "--rounds: 'abc' is not an integer (Visits of every point, 1 to 100)" \
  "${plan[@]}" --rounds abc
refused "rounds a fraction" "--rounds: '2.5' is not an integer" "${plan[@]}" --rounds 2.5
refused "threads not a number" "--threads: 'abc' is not an integer (CPU threads)" \
  "${plan[@]}" --threads abc
refused "no rounds" "--rounds 0: not a number of rounds from 1 to 100" "${plan[@]}" --rounds 0
refused "too many rounds" "--rounds 101: not a number of rounds from 1 to 100" \
  "${plan[@]}" --rounds 101
grep -qF "suite's" "$work/err" && fail "--rounds 101: a flag's refusal offers 0, which it refuses"
refused "PyTorch's GPU name" "--device: 'cuda:0': the GPU kind is gpu (gpu:0)" \
  --device cuda:0 --model-file "$tiny" --model tiny --dry-run
for args in "--suites junk" "--suites --model x"; do
  # shellcheck disable=SC2086 # the words are the flags
  expect_rc 2 "list $args" "$bin" list $args
  [ "$(wc -l < "$work/err")" -eq 1 ] || { cat "$work/err" >&2; fail "list $args: not one line"; }
  grep -qF "(\`layerbench list --help\` lists the flags)" "$work/err" \
    || fail "list $args: no pointer to --help"
done
expect_rc 0 "largest seed" "$bin" run "${plan[@]}" --seed 18446744073709551615
expect_rc 2 "unknown suite" "$bin" run "${plan[@]}" --suite huge
grep -qF -- "--suite: huge not in {" "$work/err" || { cat "$work/err" >&2; fail "unknown suite not named"; }

# Each suite's rounds, as `list --suites --json` gives them, are its runs'.
"$bin" list --suites --json > "$work/suites.json"
for suite in $(json "$work/suites.json" "' '.join(s['name'] for s in d['suites'])"); do
  expect_rc 0 "dry run of the $suite suite" "$bin" run "${plan[@]}" --suite "$suite"
  [ "$(json "$work/out" "d['rounds']")" = \
    "$(json "$work/suites.json" "next(s['rounds'] for s in d['suites'] if s['name'] == '$suite')")" ] \
    || fail "the $suite suite's rounds are not its dry run's"
done

# --workload, the model-file flag's old name, is the same flag.
expect_rc 0 "--model-file" "$bin" run "${plan[@]}"
cp "$work/out" "$work/by_model_file.json"
expect_rc 0 "--workload" "$bin" run --device cpu --backend onednn --workload "$tiny" --model tiny --dry-run
cmp -s "$work/out" "$work/by_model_file.json" || fail "--workload plans otherwise than --model-file"

# --dry-run counts what the run would measure: the points --benchmark_filter leaves (the last
# one given, as Google Benchmark reads them), and a filter that leaves none is refused.
fwd=(--batch 1,2 --precision fp32 --pass fwd)
planned() { expect_rc 0 "dry run $*" "$bin" run "${plan[@]}" "${fwd[@]}" "$@"; json "$work/out" "d['points']"; }
[ "$(planned)" = 8 ] || fail "dry run: not 8 points"
[ "$(planned --benchmark_filter=/b1/)" = 4 ] || fail "filtered dry run: not the 4 points of batch 1"
[ "$(planned --benchmark_filter=-/b1/)" = 4 ] || fail "negated filter in a dry run: not 4 points"
[ "$(planned --benchmark_filter=zzz --benchmark_filter=stem)" = 2 ] || fail "dry run: not the last filter's 2 points"
refused "dry run that filters out every point" "--benchmark_filter 'zzz': matches none" \
  "${plan[@]}" "${fwd[@]}" --benchmark_filter=zzz
refused "run that filters out every point" "--benchmark_filter 'zzz': matches none" \
  --device cpu --backend onednn --model-file "$tiny" --model tiny "${fwd[@]}" --quiet \
  --benchmark_filter=zzz -o "$work/filtered.json"
[ ! -e "$work/filtered.json" ] || fail "a run that filters out every point wrote a results file"

# A relative --model-file is stored absolute: --resume from another folder finds it.
cp "$tiny" "$work/tiny.json"
mkdir "$work/elsewhere"
(cd "$work" && "$bin" run --device cpu --backend onednn --model-file tiny.json --model tiny \
   --batch 1 --precision fp32 --pass fwd --max-time-per-point 0.01 --quiet --cpu-roofs skip -o run.json) \
  || fail "run with a relative --model-file"
[ "$(json "$work/run.json" "d['settings']['workloads'][0]")" = "$(realpath "$work/tiny.json")" ] \
  || fail "relative --model-file not stored absolute"
python3 - "$work/run.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["status"] = "incomplete"
d["points"] = d["points"][:1]
json.dump(d, open(sys.argv[1], "w"))
d["settings"]["batches"] = "abc"
json.dump(d, open(sys.argv[1].replace("run.json", "bad_batches.json"), "w"))
PY
(cd "$work/elsewhere" && "$bin" run --resume ../run.json --quiet) \
  || fail "--resume from another folder"
[ "$(json "$work/run.json" "d['status']")" = complete ] || fail "resumed run not complete"

# A resumed file's bad setting names the file and its field, not a flag the user never gave.
refused "resumed file with bad batches" "bad_batches.json: settings.batches" \
  --resume "$work/bad_batches.json" --quiet
echo "run_flags.sh: all checks passed"
