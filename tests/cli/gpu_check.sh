# scripts/gpu-check.sh without a GPU: its plan against the device's rules, its steps' estimates
# and point counts, the real run keeping to the plan, `take`, oneDNN restored from the carried
# wheels, cuDNN and cuBLASLt found in PyTorch's pip packages, bad usage refused.
# Usage: bash gpu_check.sh <layerbench binary>; env LAYERBENCH_SOURCE_DIR.
set -euo pipefail

bin="$1"
source "$(dirname "${BASH_SOURCE[0]}")/lib/helpers.bash"
check="$LAYERBENCH_SOURCE_DIR/scripts/gpu-check.sh"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
work="$tmp"

# A toolkit folder without cuBLASLt or cuDNN, and a stand-in of PyTorch's pip packages (test data:
# empty files named as the CUDA 13 wheels name them).
mkdir -p "$tmp/toolkit/lib64" "$tmp/site/nvidia/cu13/lib" "$tmp/site/nvidia/cu13/include"
touch "$tmp/site/nvidia/cu13/lib/libcublasLt.so.13" "$tmp/site/nvidia/cu13/lib/libcudnn.so.9"

out="$(CUDA_HOME="$tmp/toolkit" PYTHONPATH="$tmp/site" bash "$check" --dry-run all)" ||
  { echo "$out" >&2; fail "--dry-run all failed"; }
expect() { grep -qE -- "$1" <<<"$out" || { echo "$out" >&2; fail "dry run lacks: $1"; }; }

expect "^== call 1: scripts/gpu-check.sh check$"
expect "^== call 2: scripts/gpu-check.sh torch$"
expect "^cuBLASLt: $tmp/site/nvidia/cu13/lib/libcublasLt.so.13 "
expect "^cuDNN: $tmp/site/nvidia/cu13/lib/libcudnn.so.9 \(CUDNN_ROOT $tmp/site/nvidia/cu13\)"
expect "set-up [0-9]+ s per process, [0-9.]+ s per point"
expect "^end: give the machine back"

# The device's rules: two calls, each command's budget under 540 s, 8 files, 150 s unplanned.
calls="$(grep -oP '^calls: \K[0-9]+' <<<"$out")" || fail "no call count"
[ "$calls" -le 2 ] || fail "$calls calls, at most 2"
[ "$(grep -c '^== call ' <<<"$out")" = "$calls" ] || fail "the calls listed are not $calls"
files="$(grep -oP 'files back: \K[0-9]+(?= of 8)' <<<"$out")" || fail "no file count"
[ "$files" -le 8 ] || fail "$files files back, at most 8 come back"
[ "$(grep -oP '^   files: \K.*' <<<"$out" | wc -w)" = "$files" ] || fail "the files listed are not $files"
unplanned="$(grep -oP 'unplanned: \K-?[0-9]+' <<<"$out")" || fail "no unplanned seconds"
[ "$unplanned" -ge 150 ] || fail "$unplanned s unplanned, at least 150"
planned="$(grep -oP '= \K[0-9]+(?= s planned of 900 s)' <<<"$out")" || fail "no session total"
[ $((planned + unplanned)) = 900 ] || fail "planned $planned + unplanned $unplanned is not 900"

# Each call: every step's estimate (configure included) adds up to its total, within its budget,
# and its budget is under 540 s of command time.
awk '/^== call /{call=$3} /^   [a-z-]+ +estimate +[0-9]+ s/{sum[call]+=$3}
     /estimated total/{print call, sum[call], $3, $7}' <<<"$out" > "$tmp/totals"
[ "$(wc -l < "$tmp/totals")" = "$calls" ] || fail "not one estimated total per call"
while read -r call sum total budget; do
  [ "$sum" = "$total" ] || fail "call $call: its steps add up to $sum s, its total says $total s"
  [ "$total" -le "$budget" ] || fail "call $call: estimate $total s over its budget $budget s"
  [ "$budget" -lt 540 ] || fail "call $call: budget $budget s, not under 540 s"
done < "$tmp/totals"
grep -qE '^   configure +estimate +[1-9]' <<<"$out" || fail "configure is not a step with an estimate"

# Every measure step: one round, no framework probe, and the points layerbench counts for it. A
# build without CUDA (the sanitizer builds) does not know the CUDA backend's --cudnn-api, which
# does not change the count: it is left out there.
cuda_flags=1
"$bin" run --help | grep -q -- "--cudnn-api" || cuda_flags=0
for step in peak suite memory legacy; do
  line="$(grep -P "^   $step +estimate" <<<"$out")" || fail "no measure step $step"
  args="$(grep -oP 'layerbench run \K.*(?= \(points [0-9]+\)$)' <<<"$line")"
  points="$(grep -oP '\(points \K[0-9]+' <<<"$line")"
  grep -q -- "--rounds 1 --python none" <<<"$args" || fail "$step: not one round without probe"
  [ "$cuda_flags" = 1 ] || args="${args//--cudnn-api legacy/}"
  # shellcheck disable=SC2086
  counted="$("$bin" run --dry-run --assume-usable-gpu $args |
             python3 -c 'import json,sys; print(json.load(sys.stdin)["points"])')"
  [ "$points" = "$counted" ] || fail "$step: the plan says $points points, layerbench $counted"
done
grep -P '^   legacy ' <<<"$out" | grep -q -- "--model resnet50_convs .*--cudnn-api legacy" ||
  fail "the legacy step is not on ResNet-50's convolutions alone"

# The real run prints the plan the dry run printed, before it finds no GPU here.
plan() { sed -n '/^GPU check plan/,/^end: /p' <<<"$1"; }
real="$(PATH="/usr/bin:/bin" OUT="$tmp/device-out" LAYERBENCH_BUILD_DIR="$tmp/build" \
        bash "$check" check 2>/dev/null)" && fail "the real run passed without a GPU"
one="$(bash "$check" --dry-run check)"
[ -n "$(plan "$one")" ] && [ "$(plan "$real")" = "$(plan "$one")" ] ||
  { diff <(plan "$one") <(plan "$real") >&2; fail "the real run's plan is not the dry run's"; }
grep -q "^== call 1: scripts/gpu-check.sh check$" <<<"$one" && ! grep -q "call 2" <<<"$one" ||
  fail "--dry-run check printed the other call"

# take: call 1's results, from the files it sent back, into deps/gpu-check/ of a copy of the tree.
mkdir -p "$tmp/tree/scripts" "$tmp/sent" "$tmp/stage/measure"
cp "$check" "$tmp/tree/scripts/"
echo '{}' > "$tmp/stage/measure/suite.json"
tar -czf "$tmp/sent/check.tar.gz" -C "$tmp/stage" .
bash "$tmp/tree/scripts/gpu-check.sh" take "$tmp/sent" > /dev/null || fail "take failed"
[ -f "$tmp/tree/deps/gpu-check/measure/suite.json" ] || fail "take did not put suite.json in deps/"
expect_rc 1 "take from a folder without check.tar.gz" bash "$check" take "$tmp/stage"

# A carried deps/ holds the oneDNN wheels, not deps/onednn: call 1 unpacks them before anything
# needs a GPU (test data: a wheel of empty files named as oneDNN's are).
cp "$LAYERBENCH_SOURCE_DIR/scripts/onednn-wheels.sh" "$tmp/tree/scripts/"
mkdir -p "$tmp/tree/deps/root/usr" "$tmp/tree/deps/wheels"
python3 - "$tmp/tree/deps/wheels/onednn_cpu_gomp-2023.2.0-py2.py3-none-manylinux1_x86_64.whl" <<'PY'
import sys, zipfile
data = "onednn_cpu_gomp-2023.2.0.data/data/"
with zipfile.ZipFile(sys.argv[1], "w") as wheel:
    wheel.writestr(data + "include/dnnl.h", "")
    wheel.writestr(data + "lib/libdnnl.so.3.2", "")
    wheel.writestr(data + "lib/cmake/dnnl/dnnl-config-version.cmake", 'set(PACKAGE_VERSION "3.2.0")\n')
PY
PATH="/usr/bin:/bin" OUT="$tmp/device-out" LAYERBENCH_BUILD_DIR="$tmp/tree-build" \
  bash "$tmp/tree/scripts/gpu-check.sh" check > "$tmp/restore.log" 2>&1 &&
  fail "the real run passed without a GPU"
grep -q "onednn (estimate" "$tmp/restore.log" || { cat "$tmp/restore.log" >&2; fail "oneDNN not restored as a step"; }
[ -f "$tmp/tree/deps/onednn/lib/libdnnl.so.3" ] && [ -f "$tmp/tree/deps/onednn/include/dnnl.h" ] ||
  { cat "$tmp/restore.log" >&2; fail "deps/onednn not restored from deps/wheels"; }

# Bad usage exits 2.
expect_rc 2 "no command" bash "$check" --dry-run
expect_rc 2 "an unknown command" bash "$check" --dry-run bench
expect_rc 2 "take without a folder" bash "$check" take
expect_rc 2 "take as a dry run" bash "$check" --dry-run take "$tmp/sent"
expect_rc 2 "a real run of both calls in one command" bash "$check" all
GPU_CHECK_MAX_TIME=abc expect_rc 2 "a max time that is no number" bash "$check" --dry-run all
grep -q "GPU_CHECK_MAX_TIME 'abc'" "$work/err" || fail "the bad max time is not named"
echo "gpu-check dry run: ok"
