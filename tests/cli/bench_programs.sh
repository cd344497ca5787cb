#!/usr/bin/env bash
# The programs that set the harness against bare loops (bench/*_bench.cpp, built beside
# layerbench): bad input is exit 2 with one line naming the program, the flag and the text.
# They measure for a minute or more, so their measuring is not run here. Skipped (77) in a
# build without them.
set -euo pipefail
bin_dir="$(dirname "$1")"
source "$(dirname "${BASH_SOURCE[0]}")/lib/helpers.bash"
new_work_folder
programs=(onednn_overhead_bench onednn_elementwise_ceiling_bench onednn_batch_norm_bench
          gemm_openblas_bench)
[ -x "$bin_dir/${programs[0]}" ] || { echo "skipped: no bench programs beside $1"; exit 77; }
for program in "${programs[@]}"; do
  for bad in x -1 4097 2x ""; do
    expect_rc 2 "$program --threads '$bad'" "$bin_dir/$program" --threads "$bad"
    [ "$(cat "$work/err")" = "$program: --threads: '$bad' is not a thread count (0 to 4096)" ] \
      || { cat "$work/err" >&2; fail "$program --threads '$bad': not said in one line"; }
    [ ! -s "$work/out" ] || fail "$program --threads '$bad' measured something"
  done
  expect_rc 2 "$program --bogus" "$bin_dir/$program" --bogus
  grep -q "^$program: unknown argument '--bogus' (usage: \[--threads N\]" "$work/err" \
    || { cat "$work/err" >&2; fail "$program --bogus: not named"; }
done
