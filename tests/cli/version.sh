# `layerbench --version`: layerbench's version and revision and every library's version.
# Usage: bash version.sh <layerbench binary>; env LAYERBENCH_SOURCE_DIR.
set -euo pipefail

bin="$1"
source "$(dirname "${BASH_SOURCE[0]}")/lib/helpers.bash"

out="$("$bin" --version)" || fail "--version exited $?"
expect() { grep -qE -- "$1" <<<"$out" || { echo "$out" >&2; fail "--version lacks: $1"; }; }

expect "^layerbench [0-9]+\.[0-9]+\.[0-9]+ \(git ([0-9a-f]{12}|unknown)\)"
expect "^  oneDNN +compiled [0-9]+\.[0-9]+\.[0-9]+, loaded [0-9]+\.[0-9]+\.[0-9]+ \(dispatches to [a-z0-9_]+\)"
expect "^  Google Benchmark "
expect "^  nlohmann_json +[0-9]+\.[0-9]+\.[0-9]+"
expect "^  CLI11 +[0-9]+\.[0-9]+\.[0-9]+"
# CUDA builds list the CUDA libraries; CPU-only builds say there are none.
if grep -q "^  CUDA runtime" <<<"$out"; then
  expect "^  cuDNN +compiled [0-9.]+, loaded [0-9.]+ \(built for CUDA [0-9]+\.[0-9]+\)"
  expect "^  cuBLAS +compiled [0-9.]+, loaded [0-9.]+"
else
  expect "^  CUDA +not used: CPU-only build"
fi
echo "version CLI: ok"
