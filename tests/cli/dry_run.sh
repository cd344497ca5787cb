#!/usr/bin/env bash
# --dry-run plans the devices the run measures: on a machine whose GPU the doctor finds unusable,
# --device auto plans the CPU alone (the real run's results file holds the same keyed devices),
# and a GPU asked for by name is exit 1, as the run; --assume-usable-gpu plans one for another
# node; --assume-usable-gpu without --dry-run is exit 2.
set -euo pipefail
bin="$1"
tiny="$LAYERBENCH_SOURCE_DIR/tests/data/models/tiny.json"
source "$(dirname "${BASH_SOURCE[0]}")/lib/helpers.bash"
new_work_folder
plan=(--model-file "$tiny" --model tiny --batch 1 --precision fp32 --pass fwd --python none)

# The doctor's verdict (its exit code says whether a GPU is usable; the JSON says it too).
"$bin" doctor --json --python none >"$work/doctor.json" || true
gpu_usable="$(json "$work/doctor.json" 'd["diagnosis"]["gpu_usable"]')"

expect_rc 0 "dry run, auto" "$bin" run --dry-run "${plan[@]}"
cp "$work/out" "$work/dry.json"
if [ "$gpu_usable" = False ]; then  # the note says what the plan holds, not that points run
  grep -q "No usable GPU.*(CPU points only)" "$work/err" || fail "dry run: no CPU-only note"
fi
expect_rc 0 "real run, auto" "$bin" run "${plan[@]}" --rounds 1 --max-time-per-point 0.01 \
  --algo heuristic -o "$work/real.json"
python3 - "$work/dry.json" "$work/real.json" "$LAYERBENCH_SOURCE_DIR" "$gpu_usable" <<'PY' ||
import json, sys
sys.path.insert(0, sys.argv[3] + "/reports")
from layerbench_report import results_file
dry = json.load(open(sys.argv[1]))
real = results_file.load(sys.argv[2])
measured = {results_file.keyed_device(p["device"], p.get("backend")) for p in real.points}
assert set(dry["devices"]) == measured, (sorted(dry["devices"]), sorted(measured))
if sys.argv[4] == "False":
    assert not any(d.startswith("gpu") for d in dry["devices"]), dry["devices"]
    assert dry["gpu_verdict"].startswith("No usable GPU"), dry["gpu_verdict"]
    assert "planned only when the run would measure on it" in dry["formula"], dry["formula"]
PY
  fail "the dry run plans devices the run does not measure"

if [ "$gpu_usable" = False ]; then
  expect_rc 1 "dry run, --device gpu without a usable GPU" "$bin" run --dry-run "${plan[@]}" \
    --device gpu
  [ ! -s "$work/out" ] || fail "--device gpu: a plan printed for a GPU the run cannot use"
  grep -q "No usable GPU" "$work/err" || fail "--device gpu: the doctor's verdict not given"
fi
expect_rc 0 "dry run for a GPU node" "$bin" run --dry-run --assume-usable-gpu "${plan[@]}"
[ "$(json "$work/out" '"gpu:0" in d["devices"] and d["devices"]["gpu:0"]["points"] > 0')" = True ] ||
  fail "--assume-usable-gpu: no GPU planned"
expect_rc 2 "--assume-usable-gpu without --dry-run" "$bin" run --assume-usable-gpu "${plan[@]}"
grep -q -- "--assume-usable-gpu" "$work/err" || fail "--assume-usable-gpu: flag not named"
echo "dry_run: ok"
