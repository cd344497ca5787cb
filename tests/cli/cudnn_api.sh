#!/usr/bin/env bash
# `layerbench run --cudnn-api graph|legacy`: a bad value is a usage error naming the flag, the
# choice is recorded in the settings, and --resume refuses another value (a file written before
# the flag existed counts as graph). Runs on the CPU with the tiny test model: the flag only
# changes GPU convolutions, so no GPU is needed to check how it is parsed and recorded.
set -euo pipefail
bin="$1"
tiny="$LAYERBENCH_SOURCE_DIR/tests/data/workloads/tiny.json"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fast=(--device cpu --workload "$tiny" --model tiny --batch 1 --precision fp32 --pass fwd
      --max-time-per-point 0.05 --quiet)

source "$(dirname "${BASH_SOURCE[0]}")/lib/helpers.bash"

expect_rc 2 "bad --cudnn-api" "$bin" run "${fast[@]}" --cudnn-api nonsense -o "$work/bad.json"
grep -q -- "--cudnn-api" "$work/err" || fail "bad --cudnn-api: flag not named"
grep -q "nonsense" "$work/err" || fail "bad --cudnn-api: value not named"
[ ! -e "$work/bad.json" ] || fail "a refused run wrote a results file"

expect_rc 0 "default run" "$bin" run "${fast[@]}" -o "$work/graph.json"
[ "$(json "$work/graph.json" "d['settings']['cudnn_api']")" = graph ] || fail "default is not recorded as graph"
expect_rc 0 "legacy run" "$bin" run "${fast[@]}" --cudnn-api legacy -o "$work/legacy.json"
[ "$(json "$work/legacy.json" "d['settings']['cudnn_api']")" = legacy ] || fail "legacy not recorded"

# Resuming: an unfinished legacy file refuses graph and accepts legacy; a file without the key
# (written before the flag existed) was measured through the graph API.
python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
d = json.load(open(f"{work}/legacy.json"))
d["status"] = "incomplete"
json.dump(d, open(f"{work}/legacy-unfinished.json", "w"))
d["settings"].pop("cudnn_api")
json.dump(d, open(f"{work}/old-unfinished.json", "w"))
PY
expect_rc 2 "resume legacy with graph" "$bin" run --resume "$work/legacy-unfinished.json" --cudnn-api graph
grep -q -- "--cudnn-api" "$work/err" || fail "resume refusal does not name --cudnn-api"
expect_rc 2 "resume an old file with legacy" "$bin" run --resume "$work/old-unfinished.json" --cudnn-api legacy
grep -q -- "--cudnn-api" "$work/err" || fail "old-file resume refusal does not name --cudnn-api"
expect_rc 0 "resume an old file" "$bin" run --resume "$work/old-unfinished.json" --cudnn-api graph --quiet
[ "$(json "$work/old-unfinished.json" "d['status']")" = complete ] || fail "old file not completed"
expect_rc 0 "resume legacy" "$bin" run --resume "$work/legacy-unfinished.json" --cudnn-api legacy --quiet
[ "$(json "$work/legacy-unfinished.json" "d['settings']['cudnn_api']")" = legacy ] || fail "resumed legacy file lost its setting"
echo "cudnn_api.sh: all checks passed"
