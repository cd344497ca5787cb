# Shared by the command-line tests (sourced; not a test itself). expect_rc needs $work, a scratch folder.

fail() { echo "FAIL: $*" >&2; exit 1; }

# new_work_folder: a fresh scratch folder in $work, removed on exit after unmounting the file
# system a test mounted inside it and named in $mounted (a tiny or full disk), if any.
new_work_folder() {
  work="$(mktemp -d)"
  mounted=""
  trap '[ -z "$mounted" ] || umount "$mounted" 2>/dev/null || true; rm -rf "$work"' EXIT
}

# expect_rc CODE DESCRIPTION COMMAND...: runs the command with its output in $work/out and
# $work/err, and fails the test (showing both) unless it exits with CODE. Prints each case's
# wall time on stderr (callers capture stdout), so the test log shows where the time goes.
expect_rc() {
  local want="$1" what="$2"; shift 2
  local rc=0 start="$EPOCHREALTIME"
  "$@" >"$work/out" 2>"$work/err" || rc=$?
  awk -v a="$start" -v b="$EPOCHREALTIME" -v w="$what" 'BEGIN { printf "%7.2f s  %s\n", b - a, w }' >&2
  [ "$rc" -eq "$want" ] || { cat "$work/out" "$work/err" >&2; fail "$what: exit $rc, wanted $want"; }
}

# json FILE EXPR: prints a Python expression over the JSON document d.
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
