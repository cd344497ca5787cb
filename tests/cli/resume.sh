#!/usr/bin/env bash
# `run --resume` continues a results file exactly or refuses: a changed or missing model file,
# an edited setting (out of range, out of its choices, or another plan), a point the plan would
# not measure or would measure otherwise, and a file that is not UTF-8 are each exit 2 with one
# line naming the file, the field (and the point's key) and saying to start a new file. A file
# written before the model files' hashes resumes when its points match the plan, and records them.
set -euo pipefail
bin="$(realpath "$1")"
source "$(dirname "${BASH_SOURCE[0]}")/lib/helpers.bash"
new_work_folder

# A model file of its own, so that it can be edited and removed.
cp "$LAYERBENCH_SOURCE_DIR/tests/data/models/tiny.json" "$work/tiny.json"
"$bin" run --device cpu --backend onednn --model-file "$work/tiny.json" --model tiny --batch 1,2 \
  --precision fp32 --pass fwd --max-time-per-point 0.01 --quiet --cpu-roofs skip -o "$work/done.json" \
  || fail "the run to resume"
[ "$(json "$work/done.json" "len(d['settings']['model_files']['tiny']['sha256'])")" = 64 ] \
  || fail "no model file hash recorded"
[ "$(json "$work/done.json" "d['settings']['model_files']['tiny']['sha256']")" = \
  "$(sha256sum "$work/tiny.json" | cut -d' ' -f1)" ] || fail "the recorded hash is not the file's SHA-256"

# edited NAME PYTHON: $work/NAME.json, the finished run cut back to an incomplete one of six
# points, then edited by PYTHON over its document d.
edited() {
  python3 - "$work/done.json" "$work/$1.json" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["status"] = "incomplete"
d["points"] = d["points"][:6]
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
PY
}

# refused NAME FIELD...: --resume of $work/NAME.json is exit 2, one line, naming the file, each
# FIELD and what to do; nothing is measured into it.
refused() {
  local name="$1"; shift
  local before; before="$(md5sum < "$work/$name.json")"
  expect_rc 2 "resume $name" "$bin" run --resume "$work/$name.json" --quiet
  [ "$(wc -l < "$work/err")" -eq 1 ] || { cat "$work/err" >&2; fail "resume $name: not one line"; }
  for named in "$name.json" "$@" "start a new results file"; do
    grep -qF -- "$named" "$work/err" || { cat "$work/err" >&2; fail "resume $name: '$named' not named"; }
  done
  [ "$(md5sum < "$work/$name.json")" = "$before" ] || fail "resume $name: the file was changed"
}

edited unchanged 'pass'
# The model file changed (an op's k 8 -> 16), then removed.
sed -i 's/"k": 8,/"k": 16,/' "$work/tiny.json"
refused unchanged "settings.model_files.tiny.sha256" "$work/tiny.json has changed"
mv "$work/tiny.json" "$work/moved.json"
refused unchanged "settings.workloads" "$work/tiny.json"
sed 's/"k": 16,/"k": 8,/' "$work/moved.json" > "$work/tiny.json"

# Settings out of range or of their choices, numbers checked before they are converted.
edited seed_negative 'd["settings"]["seed"] = -1'
refused seed_negative "settings.seed: must be a non-negative integer, is -1"
edited seed_huge 'd["settings"]["seed"] = 1e30'
refused seed_huge "settings.seed: must be a non-negative integer, is 1e+30"
edited threads_huge 'd["settings"]["threads"] = 1e30'
refused threads_huge "settings.threads"
edited pass_bwd 'd["settings"]["pass"] = "bwd"'
refused pass_bwd "settings.pass" "'bwd' is not fwd or train"
edited cache_bogus 'd["settings"]["cache"] = "bogus"'
refused cache_bogus "settings.cache"
edited suite_bogus 'd["settings"]["suite"] = "bogus"'
refused suite_bogus "settings.suite"
if [ "$(json "$work/done.json" "'layout' in d['settings']")" = True ]; then  # builds with CUDA
  edited layout_bogus 'd["settings"]["layout"] = "bogus"'
  refused layout_bogus "settings.layout"
fi
# Another plan: other models (a known one, an unknown one), other batches.
edited models_changed 'd["settings"]["models"] = ["resnet50"]'
refused models_changed "settings.model_files.tiny"
edited models_unknown 'd["settings"]["models"] = ["nosuch"]'
refused models_unknown "settings.models" "nosuch"
edited batches_changed 'd["settings"]["batches"] = "1"'
refused batches_changed "points[4] (tiny/stem/b2/fp32/fwd/cpu): batch: 2 is not in the plan"

# Points the plan would not measure, or not so: batch and precision outside the settings, the
# backend renamed, the device changed.
edited batch_16 'd["points"][1]["batch"] = 16'
refused batch_16 "points[1] (tiny/body/b16/fp32/fwd/cpu): batch: 16"
edited precision_bf16 'd["points"][1]["precision"] = "bf16"'
refused precision_bf16 "points[1] (tiny/body/b1/bf16/fwd/cpu): precision"
edited backend_upper 'd["points"][1]["backend"] = "ONEDNN"'
refused backend_upper "points[1] (tiny/body/b1/fp32/fwd/cpu@ONEDNN): backend"
for library in cuda cudnn; do
  edited "backend_$library" "d['points'][1]['backend'] = '$library'"
  refused "backend_$library" "points[1] (tiny/body/b1/fp32/fwd/cpu).backend: \"$library\""
done
edited backends_gpu 'd["settings"]["device"] = "gpu"'
refused backends_gpu "settings.backends (--backend) onednn: runs on the CPU only, and" \
  "settings.device (--device) gpu asks for a GPU alone"
edited device_empty 'd["points"][1]["device"] = ""'
refused device_empty "points[1] (tiny/body/b1/fp32/fwd/): device"
edited device_gpu 'd["points"][1]["device"] = "gpu:0"'
refused device_gpu "points[1] (tiny/body/b1/fp32/fwd/gpu:0): device"
edited device_keyed 'd["points"][1]["device"] = "cpu@openblas"'
refused device_keyed "points[1] (tiny/body/b1/fp32/fwd/cpu@openblas)"
edited shape_edited 'd["points"][1]["shape"]["k"] = 16'
refused shape_edited "points[1] (tiny/body/b1/fp32/fwd/cpu).shape"

# A status no run writes, and points no backend could have measured: an OpenBLAS convolution
# (the stem's oneDNN point relabelled, or a copy of it appended) recorded "ok".
edited status_done 'd["status"] = "done"'
refused status_done 'status: "done" is not a status layerbench writes'
edited status_missing 'del d["status"]'
refused status_missing "status: missing"
if grep -q "OpenBLAS *compiled" <<<"$("$bin" --version)"; then
  both='d["settings"]["backends"] = "onednn,openblas"'
  edited openblas_conv "$both; d['points'][0]['backend'] = 'openblas'"
  refused openblas_conv "points[0] (tiny/stem/b1/fp32/fwd/cpu@openblas).status: \"ok\" where" \
    "backend \"openblas\" records \"unsupported\": OpenBLAS has no convolution"
  edited openblas_copy "$both; d['points'].append(dict(d['points'][0], backend='openblas'))"
  refused openblas_copy "points[6] (tiny/stem/b1/fp32/fwd/cpu@openblas).status: \"ok\" where"
else
  echo "skipped the OpenBLAS convolution: this build has no OpenBLAS backend"
fi

# A dangling symbolic link: named as one, with where it points.
ln -s "$work/nowhere.json" "$work/dangling.json"
expect_rc 2 "resume a dangling link" "$bin" run --resume "$work/dangling.json" --quiet
grep -qF "dangling.json: a symbolic link to $work/nowhere.json, which does not exist" "$work/err" \
  || { cat "$work/err" >&2; fail "dangling link: not named as one"; }

# A results file that is not UTF-8 text.
edited not_utf8 'pass'
python3 - "$work/not_utf8.json" <<'PY'
import sys
path = sys.argv[1]
data = open(path, "rb").read().replace(b'"cold"', b'"c\xffold"', 1)
open(path, "wb").write(data)
PY
expect_rc 2 "resume a file that is not UTF-8" "$bin" run --resume "$work/not_utf8.json" --quiet
grep -q "not_utf8.json: line 1: not valid JSON: .*UTF-8" "$work/err" || { cat "$work/err" >&2; fail "not-UTF-8 file: not explained"; }

# A file written before the hashes: resumed when its points match the plan, with one line
# saying so, and from then on it records them.
edited old_format 'del d["settings"]["model_files"]'
expect_rc 0 "resume a file without model-file hashes" "$bin" run --resume "$work/old_format.json"
grep -q "before results files recorded their model files' hashes" "$work/err" \
  || { cat "$work/err" >&2; fail "old-format file: no note"; }
[ "$(json "$work/old_format.json" "d['status'], len(d['points'])")" = "complete 8" ] \
  || fail "old-format file: not completed with 8 points"
[ "$(json "$work/old_format.json" "d['settings']['model_files']['tiny']['sha256']")" = \
  "$(sha256sum "$work/tiny.json" | cut -d' ' -f1)" ] || fail "old-format file: hashes not recorded"
edited old_changed 'del d["settings"]["model_files"]; d["points"][1]["shape"]["k"] = 16'
refused old_changed "points[1] (tiny/body/b1/fp32/fwd/cpu).shape"

# And the exact continuation: the unchanged file resumes to the same 8 points.
expect_rc 0 "resume the unchanged file" "$bin" run --resume "$work/unchanged.json" --quiet
[ "$(json "$work/unchanged.json" "d['status'], len(d['points'])")" = "complete 8" ] \
  || fail "unchanged file: not completed with 8 points"
echo "resume.sh: all checks passed"
