#!/usr/bin/env bash
# Interleaved rounds: a 2-round run of the tiny model records each point's rounds, their medians
# and the spread between them, the figure being the median of the rounds'; a run killed once its first
# round is in the journal keeps every point, loadable and resumable; --rounds is checked.
set -euo pipefail
bin="$1"
tiny="$LAYERBENCH_SOURCE_DIR/tests/data/models/tiny.json"
source "$(dirname "${BASH_SOURCE[0]}")/lib/helpers.bash"
new_work_folder
# --algo heuristic: a later round's autotune on a busy machine may pick another implementation,
# and such a round is not counted (its note says so); the library's first choice is stable.
common=(--device cpu --backend onednn --model-file "$tiny" --model tiny --batch 1 --precision fp32
        --pass fwd --python none --algo heuristic --cpu-roofs skip)

expect_rc 2 "--rounds 0" "$bin" run "${common[@]}" --rounds 0 -o "$work/x.json"
grep -q -- "--rounds" "$work/err" || fail "--rounds 0: flag not named"

expect_rc 0 "2-round run" "$bin" run "${common[@]}" --rounds 2 --max-time-per-point 0.05 \
  -o "$work/two.json"
grep -q "in 2 rounds" "$work/err" || fail "2-round run: the rounds are not announced"
grep -q "^time: .* sampling" "$work/err" || fail "2-round run: no time split line"
python3 - "$work/two.json" <<'PY' || fail "2-round run: rounds not recorded as documented"
import json, statistics, sys
d = json.load(open(sys.argv[1]))
assert d["settings"]["rounds"] == 2, d["settings"]
split = d["context"]["time_split"]
assert split["rounds"] == 2 and split["sampling_s"] > 0 and split["validation_s"] > 0, split
ok = [p for p in d["points"] if p["status"] == "ok"]
assert len(ok) == 4, [p["op"] for p in d["points"]]
for p in ok:
    t = p["timing"]
    medians = t["round_medians_ms"]
    # 2 rounds, and up to 4 where the first ones disagree (extra rounds).
    assert 2 <= t["rounds"] <= 4 and len(medians) == t["rounds"], (t, p["notes"])
    assert isinstance(t["unstable"], bool), t
    # The median of the clean rounds' medians (all of them when none was); best_round, the
    # counted round nearest it (two rounds are equally near: either, to rounding). The
    # uncertainty: the larger of the noise and those counted rounds' spread.
    clean = [m for m, c in zip(medians, t["round_contended"]) if not c] or medians
    counted_spread = (max(clean) - min(clean)) / min(clean)
    assert abs(t["uncertainty"] - max(t["noise"], counted_spread)) < 1e-9, t
    figure = statistics.median(clean)
    best = medians[t["best_round"] - 1]
    assert best in clean, t
    assert all(abs(best - figure) <= abs(m - figure) + 1e-12 for m in clean), t
    assert t["contended"] == all(t["round_contended"]), t
    assert abs(t["median_ms"] - figure) < 1e-9, t
    spread = (max(medians) - min(medians)) / min(medians)
    assert abs(t["round_spread"] - spread) < 1e-9, t
PY

# More rounds than extra rounds go up to: every one of them is run.
expect_rc 0 "5-round run" "$bin" run "${common[@]}" --rounds 5 --max-time-per-point 0.01 \
  -o "$work/five.json"
python3 - "$work/five.json" <<'PY' || fail "5-round run: not 5 rounds"
import json, sys
ok = [p for p in json.load(open(sys.argv[1]))["points"] if p["status"] == "ok"]
assert ok and all(p["timing"]["rounds"] == 5 for p in ok), [p["timing"] for p in ok]
PY

# Killed after the first round: a long second round (3 points of 4 s) leaves time to kill it.
"$bin" run "${common[@]}" --rounds 3 --max-time-per-point 2 --noise-target 0.000001 \
  -o "$work/killed.json" 2>"$work/killed.err" &
pid=$!
for _ in $(seq 1200); do  # bounded: 120 s (a sanitizer build on a busy machine is slow)
  grep -q "round 2" "$work/killed.err" 2>/dev/null && break
  sleep 0.1
done
kill -9 "$pid"; wait "$pid" 2>/dev/null || true
grep -q "round 2" "$work/killed.err" || fail "the run never reached its second round"
python3 - "$work/killed.json" "$LAYERBENCH_SOURCE_DIR" <<'PY' || fail "killed run: points lost"
import sys
sys.path.insert(0, sys.argv[2] + "/reports")
from layerbench_report import results_file
f = results_file.load(sys.argv[1])
assert f.status == "incomplete", f.status
ok = [p for p in f.points if p["status"] == "ok"]
assert len(ok) == 4, [(p["op"], p["status"]) for p in f.points]
assert all(p["timing"]["rounds"] >= 1 for p in ok)
PY
# The C++ reader agrees: --resume finds every point measured and only finishes the file.
expect_rc 0 "resume of the killed run" "$bin" run --resume "$work/killed.json"
grep -q "4 points already in the file, 0 to go" "$work/err" ||
  fail "resume did not find the killed run's points: $(cat "$work/err")"
[ "$(json "$work/killed.json" "d['status']")" = complete ] || fail "resumed file not complete"
echo "rounds: ok"
