# scripts/gpu-check.sh --dry-run: the GPU check's three commands, their plans (points from
# `layerbench run --dry-run`), estimates inside each command's budget and the session's, the files
# they send (at most 8), cuBLASLt and cuDNN found in PyTorch's pip packages when the toolkit lacks
# them, and bad usage refused. No GPU needed.
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

out="$(CUDA_HOME="$tmp/toolkit" PYTHONPATH="$tmp/site" LAYERBENCH_BINARY="$bin" \
       bash "$check" --dry-run all)" || { echo "$out" >&2; fail "--dry-run all failed"; }
expect() { grep -qE -- "$1" <<<"$out" || { echo "$out" >&2; fail "dry run lacks: $1"; }; }

expect "^== scripts/gpu-check.sh build$"
expect "^== scripts/gpu-check.sh measure$"
expect "^== scripts/gpu-check.sh torch$"
expect "^cuBLASLt: $tmp/site/nvidia/cu13/lib/libcublasLt.so.13 "
expect "^cuDNN: $tmp/site/nvidia/cu13/lib/libcudnn.so.9 \(CUDNN_ROOT $tmp/site/nvidia/cu13\)"
expect "GPU set-up assumed: [0-9]+ s per process, [0-9.]+ s per point"
# Every measure step's plan is the binary's own count for the same arguments.
for step in peak suite memory legacy; do expect "^   $step: layerbench run --device gpu "; done
suite_args="$(grep -oP '^   suite: layerbench run \K.*' <<<"$out")"
# shellcheck disable=SC2086
expected="$("$bin" run --dry-run --assume-usable-gpu $suite_args | python3 -c 'import json,sys; print(json.load(sys.stdin)["points"])')"
grep -A1 "^   suite:" <<<"$out" | grep -q "points $expected," ||
  { echo "$out" >&2; fail "the suite's points are not layerbench run --dry-run's $expected"; }

# Each command's estimate fits its budget, each budget 7 minutes, the session 15 minutes.
while read -r total budget; do
  [ "$total" -le "$budget" ] || fail "estimate $total s over the budget $budget s"
  [ "$budget" -le 420 ] || fail "a command's budget $budget s is over 7 minutes"
done < <(grep -oP 'estimated total \K[0-9]+ s of [0-9]+' <<<"$out" | sed 's/ s of / /')
[ "$(grep -c 'estimated total' <<<"$out")" = 3 ] || fail "not three estimates"
session="$(grep -oP '^session: .* = \K[0-9]+(?= s of 900 s)' <<<"$out")" || fail "no session total"
[ "$session" -le 900 ] || fail "the session's $session s are over 15 minutes"
files="$(grep -oP '^   files: \K.*' <<<"$out" | wc -w)"
[ "$files" -le 8 ] || fail "$files files back, at most 8 come back"

# One command alone; bad usage exits 2.
one="$(LAYERBENCH_BINARY="$bin" bash "$check" --dry-run measure)"
grep -q "^== scripts/gpu-check.sh measure$" <<<"$one" && ! grep -q "build$" <<<"$one" ||
  fail "--dry-run measure printed other commands"
expect_rc 2 "no command" bash "$check" --dry-run
expect_rc 2 "an unknown command" bash "$check" --dry-run bench
GPU_CHECK_MAX_TIME=abc expect_rc 2 "a max time that is no number" bash "$check" --dry-run all
grep -q "GPU_CHECK_MAX_TIME 'abc'" "$work/err" || fail "the bad max time is not named"
echo "gpu-check dry run: ok"
