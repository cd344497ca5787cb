#!/usr/bin/env bash
# The CUDA backend's own `run` flags (--cudnn-api, --layout, --workspace-mb, declared by its
# descriptor): a bad value is a usage error naming the flag, the choice is recorded in the
# settings, and --resume refuses another value (a file written before --cudnn-api existed counts
# as graph). Runs on the CPU with the tiny test model: the flags only change GPU cases, so no GPU
# is needed to check how they are parsed and recorded. A build without the CUDA backend does not
# know them: each is refused as a flag of no backend in that build, and nothing is written.
set -euo pipefail
bin="$1"
tiny="$LAYERBENCH_SOURCE_DIR/tests/data/models/tiny.json"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fast=(--device cpu --model-file "$tiny" --model tiny --batch 1 --precision fp32 --pass fwd
      --max-time-per-point 0.05 --quiet --cpu-roofs skip)

source "$(dirname "${BASH_SOURCE[0]}")/lib/helpers.bash"

if ! "$bin" run --help | grep -q -- --cudnn-api; then
  for flag in "--cudnn-api legacy" "--layout nchw" "--workspace-mb 64"; do
    expect_rc 2 "$flag in a build without CUDA" "$bin" run "${fast[@]}" $flag -o "$work/bad.json"
    grep -q -- "${flag% *}: not a flag of .layerbench run. in this build (its backends: onednn" \
      "$work/err" || fail "$flag in a build without CUDA: the refusal does not say why"
    [ ! -e "$work/bad.json" ] || fail "a refused run wrote a results file"
  done
  echo "cudnn_api.sh: a build without CUDA refuses the CUDA flags; all checks passed"
  exit 0
fi

expect_rc 2 "bad --layout" "$bin" run "${fast[@]}" --layout chwn -o "$work/bad.json"
grep -q -- '--layout "chwn": not one of nhwc, nchw' "$work/err" || fail "bad --layout not explained"
expect_rc 2 "huge --workspace-mb" "$bin" run "${fast[@]}" --workspace-mb 1e9 -o "$work/bad.json"
grep -q -- "--workspace-mb 1000000000: not a number of MiB in \[0, 16777216\]" "$work/err" ||
  fail "huge --workspace-mb: bounds not named"
expect_rc 2 "bad --cudnn-api" "$bin" run "${fast[@]}" --cudnn-api nonsense -o "$work/bad.json"
grep -q -- "--cudnn-api" "$work/err" || fail "bad --cudnn-api: flag not named"
grep -q "nonsense" "$work/err" || fail "bad --cudnn-api: value not named"
[ ! -e "$work/bad.json" ] || fail "a refused run wrote a results file"

expect_rc 0 "default run" "$bin" run "${fast[@]}" -o "$work/graph.json"
[ "$(json "$work/graph.json" "d['settings']['cudnn_api']")" = graph ] || fail "default is not recorded as graph"
[ "$(json "$work/graph.json" "d['settings']['layout'], d['settings']['workspace_mb']")" = "nhwc 32.0" ] ||
  fail "default layout and workspace not recorded"
expect_rc 0 "legacy run" "$bin" run "${fast[@]}" --cudnn-api legacy --layout nchw --workspace-mb 64 \
  -o "$work/legacy.json"
[ "$(json "$work/legacy.json" "d['settings']['cudnn_api']")" = legacy ] || fail "legacy not recorded"
[ "$(json "$work/legacy.json" "d['settings']['layout'], d['settings']['workspace_mb']")" = "nchw 64.0" ] ||
  fail "--layout and --workspace-mb not recorded"

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
expect_rc 2 "resume nchw with nhwc" "$bin" run --resume "$work/legacy-unfinished.json" --layout nhwc
grep -q -- '--layout "nhwc" differs from the run being resumed ("nchw")' "$work/err" ||
  fail "resume refusal does not name --layout"
expect_rc 2 "resume 64 MiB with 32" "$bin" run --resume "$work/legacy-unfinished.json" --workspace-mb 32
grep -q -- "--workspace-mb 32.0 differs from the run being resumed (64.0)" "$work/err" ||
  fail "resume refusal does not name --workspace-mb"
expect_rc 2 "resume an old file with legacy" "$bin" run --resume "$work/old-unfinished.json" --cudnn-api legacy
grep -q -- "--cudnn-api" "$work/err" || fail "old-file resume refusal does not name --cudnn-api"
expect_rc 0 "resume an old file" "$bin" run --resume "$work/old-unfinished.json" --cudnn-api graph --quiet
[ "$(json "$work/old-unfinished.json" "d['status']")" = complete ] || fail "old file not completed"
expect_rc 0 "resume legacy" "$bin" run --resume "$work/legacy-unfinished.json" --cudnn-api legacy \
  --layout nchw --workspace-mb 64 --quiet
[ "$(json "$work/legacy-unfinished.json" "d['settings']['cudnn_api'], d['settings']['layout'], d['settings']['workspace_mb']")" = "legacy nchw 64.0" ] ||
  fail "resumed legacy file lost its settings"
echo "cudnn_api.sh: all checks passed"
