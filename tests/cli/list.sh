# `layerbench list`: exit codes, the model totals in --json, and the errors for bad flags and
# bad model files. Usage: bash list.sh <layerbench binary>; env LAYERBENCH_SOURCE_DIR.
set -euo pipefail

bin="$1"
data="$LAYERBENCH_SOURCE_DIR/tests/data/models"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

source "$(dirname "${BASH_SOURCE[0]}")/lib/helpers.bash"

# expect_exit CODE ARGS...: runs list, keeps stdout/stderr in $work/out, $work/err.
expect_exit() { expect_rc "$1" "list ${*:2}" "$bin" list "${@:2}"; }
expect_err() { grep -qF -- "$1" "$work/err" || { cat "$work/err" >&2; fail "stderr lacks: $1"; }; }

# --- good runs ---
expect_exit 0
grep -q "FLOPs = 2 x multiply-adds" "$work/out" || fail "text output does not state the FLOP convention"
grep -q "total: 8.178 GFLOP per batch of 1" "$work/out" || fail "ResNet-50 total missing from text output"

# Forward totals per image against the reference figures (to 0.1%), and the op counts.
expect_exit 0 --json
python3 - "$work/out" <<'EOF'
import json, sys
listing = json.load(open(sys.argv[1]))
assert listing["flop_convention"] == "FLOPs = 2 x multiply-adds", listing["flop_convention"]
models = {m["model"]: m for m in listing["models"]}
assert sorted(models) == ["resnet50", "vit_b_16", "vit_l_16"], sorted(models)
for name, gflop in [("resnet50", 8.178), ("vit_b_16", 35.13), ("vit_l_16", 123.11)]:
    got = models[name]["totals"]["gflop_per_image"]
    assert abs(got - gflop) <= gflop * 1e-3, (name, got)
resnet = models["resnet50"]
assert resnet["totals"]["layers"] == 174 and resnet["totals"]["ops"] == 54, resnet["totals"]
convs = [p for p in resnet["points"] if p["kind"] == "conv"]
assert sum(p["count"] for p in convs) == 53 and len(convs) == 23
# The memory-bound layers in their own kinds: layers per kind, no FLOPs, their bytes.
layers = {}
for p in resnet["points"]:
    layers[p["kind"]] = layers.get(p["kind"], 0) + p["count"]
assert layers == {"conv": 53, "linear": 1, "batch_norm": 53, "eltwise": 49, "binary": 16,
                  "pool": 2}, layers
maxpool = next(p for p in resnet["points"] if p["kind"] == "pool" and "max" in p["op"])
assert maxpool["gflop"] == 0 and maxpool["intensity"] == 0, maxpool
assert maxpool["bytes"] == (64 * 112 * 112 + 64 * 56 * 56) * 4, maxpool["bytes"]
assert maxpool["shape"] == {"op": "max_pool", "dims": [1, 64, 112, 112], "window": 3,
                            "stride": 2, "pad": 1}, maxpool["shape"]
point = resnet["points"][0]
for field in ["model", "op", "kind", "layers", "count", "batch", "precision", "pass", "shape",
              "shape_text", "gflop", "bytes", "intensity", "memory_bytes"]:
    assert field in point, field
assert point["shape"]["p"] == 112 and point["shape"]["n"] == 1, point["shape"]
# The points' FLOPs times their counts add up to the totals.
for m in listing["models"]:
    assert abs(sum(p["gflop"] * p["count"] for p in m["points"]) - m["totals"]["gflop"]) < 1e-9
EOF

# Training step at batch 8 in bf16: three passes per conv/GEMM op, two for the input layer;
# fwd and bwd_data for the memory-bound ones, the broadcast position-embedding add fwd only.
expect_exit 0 --model vit_b_16 --batch 8 --precision bf16 --pass train --json
python3 - "$work/out" <<'EOF'
import json, sys
listing = json.load(open(sys.argv[1]))
(m,) = listing["models"]
assert listing["pass_set"] == "train" and listing["batch"] == 8
passes = [(p["op"], p["pass"]) for p in m["points"]]
assert ("patch_embed", "bwd_data") not in passes and ("patch_embed", "bwd_weights") in passes
assert len(passes) == 3 * 8 - 1 + 2 * 4 + 1, len(passes)
assert ("pos_embed_add", "bwd_data") not in passes and ("attn_softmax", "bwd_data") in passes
qkv = next(p for p in m["points"] if p["op"] == "qkv" and p["pass"] == "fwd")
assert qkv["shape"]["m"] == 197 * 8 and qkv["precision"] == "bf16" and qkv["batch"] == 8
assert qkv["memory_bytes"] == (197 * 8 * 768 + 2304 * 768 + 197 * 8 * 2304) * 2, qkv["memory_bytes"]
EOF

# A user model file next to the shipped models.
expect_exit 0 --model-file "$data/tiny.json" --model tiny resnet50
grep -q "^tiny: Tiny test model" "$work/out" || fail "user model not listed"
grep -q "^resnet50: " "$work/out" || fail "second --model value not listed"
# --workload, the flag's old name, is the same flag.
cp "$work/out" "$work/by_model_file"
expect_exit 0 --workload "$data/tiny.json" --model tiny resnet50
cmp -s "$work/out" "$work/by_model_file" || fail "--workload lists otherwise than --model-file"

# --- the suites `run --suite` takes (harness/plan/suites.cpp), as text and as JSON ---
expect_exit 0 --suites
grep -q "^quick (default): resnet50,vit_b_16; fwd; batches 1,8 on CPUs, 1,8 on GPUs; 2 rounds" \
  "$work/out" || { cat "$work/out" >&2; fail "list --suites: the quick suite's line"; }
expect_exit 0 --suites --json
python3 - "$work/out" <<'EOF'
import json, sys
suites = json.load(open(sys.argv[1]))["suites"]
assert [s["name"] for s in suites] == ["quick", "standard", "full"], suites
assert [s["default"] for s in suites] == [True, False, False], suites
full = suites[2]
assert full["sweep_until_oom"] and full["gpu_batches"][-1] == 4096 and full["models"] == [], full
for s in suites:
    assert 0 < s["min_time_per_point_s"] <= s["max_time_per_point_s"] and s["rounds"] >= 1, s
    assert s["passes"] and all(p in ("fwd", "train") for p in s["passes"]), s
EOF
expect_exit 2 --suites --batch 8
expect_err "--batch excludes --suites"

# --- bad flags: exit 2, message names the flag and value ---
expect_exit 2 --model nope
expect_err "--model nope: unknown model (known: resnet50, vit_b_16, vit_l_16)"
expect_exit 2 --precision fp64
expect_err "--precision fp64: unknown precision"
expect_exit 2 --pass backward
expect_err "--pass backward: unknown pass set"
expect_exit 2 --batch 0
expect_err "--batch 0: must be a positive integer"
expect_exit 2 --batch many
expect_err "--batch"
# conv1's output, 64x112x112 per image, passes 32-bit indexing above 2674 images.
expect_exit 0 --model resnet50 --batch 2674
expect_exit 2 --model resnet50 --batch 2675
expect_err "--batch 2675: resnet50 op conv7x7_3to64_s2_224: tensor y (2675 x 64 x 112 x 112)"

# --- bad model files: exit 2 with the loader's message ---
expect_exit 2 --model-file "$data/zero_stride.json"
expect_err "$data/zero_stride.json: ops[1].stride_h: must be a positive integer"
expect_exit 2 --model-file "$data/duplicate_key.json"
expect_err "$data/duplicate_key.json: ops[1]: duplicate key \"stride_h\""
expect_exit 2 --model-file "$data/malformed.json"
expect_err "$data/malformed.json: line 5: not valid JSON"
expect_exit 2 --model-file "$data/duplicate_model_name.json"
expect_err "$data/duplicate_model_name.json: name: model \"resnet50\" is already defined in "
expect_exit 2 --model-file "$work/missing.json"
expect_err "$work/missing.json: cannot be opened for reading"

echo "list: ok"
