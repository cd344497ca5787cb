#!/usr/bin/env bash
# Text that is not UTF-8 never ends a command in nlohmann's type_error: a model file that is not
# UTF-8 and a --model-file path that is not are exit 2 naming them; a results file name, a host
# name or an environment value that is not is written with U+FFFD, and the default output name
# stays one file in results/.
set -euo pipefail
bin="$(realpath "$1")"
tiny="$LAYERBENCH_SOURCE_DIR/tests/data/models/tiny.json"
source "$(dirname "${BASH_SOURCE[0]}")/lib/helpers.bash"
new_work_folder
fast=(--device cpu --backend onednn --model tiny --batch 1 --precision fp32 --pass fwd
      --max-time-per-point 0.01 --quiet --cpu-roofs skip)
no_type_error() { ! grep -q "type_error" "$work/err" || { cat "$work/err" >&2; fail "$1: nlohmann's type_error"; }; }

# A model file whose text is not UTF-8.
python3 - "$tiny" "$work/latin1.json" <<'PY'
import sys
open(sys.argv[2], "wb").write(open(sys.argv[1], "rb").read().replace(b'"Tiny', b'"T\xefny', 1))
PY
expect_rc 2 "model file not UTF-8" "$bin" run "${fast[@]}" --model-file "$work/latin1.json" --dry-run
grep -q "latin1.json: line 4: not valid JSON: .*UTF-8" "$work/err" || { cat "$work/err" >&2; fail "model file not UTF-8: not named"; }

# A --model-file path that is not UTF-8: the results file could not record it for --resume.
cp "$tiny" "$work/t"$'\xff'".json"
expect_rc 2 "--model-file path not UTF-8" "$bin" run "${fast[@]}" --model-file "$work/t"$'\xff'".json" -o "$work/w.json"
grep -q -- "--model-file: .*its path is not UTF-8" "$work/err" || { cat "$work/err" >&2; fail "--model-file path not UTF-8: not explained"; }
no_type_error "--model-file path not UTF-8"
[ ! -e "$work/w.json" ] || fail "a refused run wrote a results file"
expect_rc 0 "list --json of a path not UTF-8" "$bin" list --model-file "$work/t"$'\xff'".json" --model tiny --json
no_type_error "list --json"
json "$work/out" "d" > /dev/null || fail "list --json: not JSON"

# An output name that is not UTF-8: the run ends, its command line recorded with U+FFFD.
expect_rc 0 "-o not UTF-8" "$bin" run "${fast[@]}" --model-file "$tiny" -o "$work/o"$'\xff'".json"
no_type_error "-o not UTF-8"
[ "$(json "$work/o"$'\xff'".json" "d['status'], '\ufffd.json' in d['context']['command_line']")" = \
  "complete True" ] || fail "-o not UTF-8: not complete with the command line's U+FFFD"

# An environment value the doctor quotes.
rc=0; LD_LIBRARY_PATH="/opt/lib"$'\xff' "$bin" doctor --json >"$work/out" 2>"$work/err" || rc=$?
no_type_error "doctor --json"
json "$work/out" "d" > /dev/null || fail "doctor --json with an environment value not UTF-8: not JSON (exit $rc)"

# A host name that is not UTF-8 and holds a '/' (Linux allows both): needs a UTS namespace.
if unshare -u true 2>/dev/null; then
  mkdir "$work/cwd"
  (cd "$work/cwd" && unshare -u python3 - "$bin" "$tiny" "${fast[@]}" <<'PY') || fail "run on a host whose name is not UTF-8"
import socket, subprocess, sys
socket.sethostname(b"h\xffx/y")
sys.exit(subprocess.run([sys.argv[1], "run", "--model-file", sys.argv[2], *sys.argv[3:]]).returncode)
PY
  made=("$work/cwd/results/"*)
  [ "${#made[@]}" -eq 1 ] && [[ "$(basename "${made[0]}")" == h_x_y-*.json ]] \
    || fail "host name not UTF-8: output not results/h_x_y-TIME.json: ${made[*]}"
  [ "$(json "${made[0]}" "d['context']['host']")" = $'h\xef\xbf\xbdx/y' ] \
    || fail "host name not UTF-8: not recorded with U+FFFD"
else
  echo "utf8.sh: host-name check skipped: cannot make a UTS namespace here (unshare -u needs root)"
fi
echo "utf8.sh: all checks passed"
