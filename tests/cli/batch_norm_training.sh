#!/usr/bin/env bash
# Batch norm's training forward through the real binary: a training run of ResNet-50's first
# batch norm measures fwd (inference), fwd_training and bwd_data, and each validates on the CPU;
# a forward run measures fwd alone.
set -euo pipefail
bin="$1"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
bn=(--model resnet50 --batch 1 --precision fp32 --device cpu --backend onednn
  --rounds 1 --max-time-per-point 0.05 --python none --quiet --cpu-roofs skip --benchmark_filter=/bn_64_56/)

source "$(dirname "${BASH_SOURCE[0]}")/lib/helpers.bash"

expect_rc 0 "batch norm training run" "$bin" run "${bn[@]}" --pass train -o "$work/train.json"
passes="$(json "$work/train.json" "' '.join(p['pass'] for p in d['points'])")"
[ "$passes" = "fwd fwd_training bwd_data" ] || fail "training run measured: $passes"
ok="$(json "$work/train.json" "sum(p['status'] == 'ok' and p['validation']['passed'] for p in d['points'])")"
[ "$ok" = 3 ] || fail "training run: $ok of 3 points ok and validated"

expect_rc 0 "batch norm forward run" "$bin" run "${bn[@]}" --pass fwd -o "$work/fwd.json"
passes="$(json "$work/fwd.json" "' '.join(p['pass'] for p in d['points'])")"
[ "$passes" = fwd ] || fail "forward run measured: $passes"
