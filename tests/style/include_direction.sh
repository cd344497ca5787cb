#!/usr/bin/env bash
# Includes run one way (docs/contributing.md, "The layout"): bench/ -> kernels/ -> harness/, and
# inside harness/ its rooms in the order below, each including only itself and the rooms before
# it (a room's sub-rooms count as the room). A file that includes against the direction fails
# here, naming the file, the include and the rule.
# Usage: bash include_direction.sh [ROOT]; with no ROOT, the tree and then a probe tree that
# breaks the rule, which must fail.
set -euo pipefail

# The harness rooms, lowest first. harness/ itself holds rooms only: a file there fails.
rooms=(os util api machine model plan results check measure doctor)

rank_of() {  # a path under harness/ -> its room's rank
  local rest="${1#harness/}" room i
  room="${rest%%/*}"
  [ "$room" = "$rest" ] && room=""
  for i in "${!rooms[@]}"; do [ "${rooms[$i]}" = "$room" ] && { echo "$i"; return; }; done
  echo "unknown"
}

check_tree() {  # root -> status 0 when every include keeps the direction
  local root="$1" bad=0 file inc line from to
  cd "$root"
  for file in harness/*; do
    [ -f "$file" ] || continue
    echo "FAIL: $file lies at harness/'s root, which holds rooms only (${rooms[*]})"
    bad=1
  done
  while IFS= read -r line; do
    file="${line%%:*}"
    inc="$(sed -E 's/.*#include "([^"]+)".*/\1/' <<<"${line#*:}")"
    case "$file:$inc" in
      harness/*:kernels/* | harness/*:bench/* | kernels/*:bench/*)
        echo "FAIL: $file includes $inc: includes run bench/ -> kernels/ -> harness/"
        bad=1; continue ;;
    esac
    [[ "$file" == harness/* && "$inc" == harness/* ]] || continue
    from="$(rank_of "$file")" to="$(rank_of "$inc")"
    if [ "$from" = unknown ] || [ "$to" = unknown ]; then
      echo "FAIL: $file includes $inc: a harness room not in tests/style/include_direction.sh's order"
      bad=1
    elif [ "$to" -gt "$from" ]; then
      echo "FAIL: $file includes $inc: harness/${rooms[$from]} may include only rooms before it" \
           "(${rooms[*]:0:$from}), not harness/${rooms[$to]}"
      bad=1
    fi
  done < <(grep -rn --include='*.cpp' --include='*.hpp' --include='*.cu' --include='*.in' \
             -E '^\s*#include "(harness|kernels|bench)/' harness kernels bench | cut -d: -f1,3-)
  return "$bad"
}

if [ $# -gt 0 ]; then
  check_tree "$1"
  exit
fi
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
( check_tree "$root" ) || exit 1
count="$(grep -rln --include='*.[ch]pp' '#include "harness/' "$root/harness" | wc -l)"
[ "$count" -gt 50 ] || { echo "FAIL: found only $count harness files with includes"; exit 1; }

# Guards the check against one that checks nothing: a room including a later one, harness/
# including kernels/ and a file at harness/'s root must each be reported.
probe="$(mktemp -d)"; trap 'rm -rf "$probe"' EXIT
mkdir -p "$probe/harness/plan" "$probe/harness/results" "$probe/kernels" "$probe/bench"
echo '#include "harness/results/point.hpp"' > "$probe/harness/plan/plan.cpp"
echo '#include "kernels/cuda/x.hpp"' > "$probe/harness/results/point.cpp"
touch "$probe/harness/loose.hpp"
out="$( (check_tree "$probe") || true)"
for expected in "harness/plan/plan.cpp includes harness/results/point.hpp" \
                "harness/results/point.cpp includes kernels/cuda/x.hpp" \
                "harness/loose.hpp lies at harness/'s root"; do
  [[ "$out" == *"$expected"* ]] || { echo "FAIL: the probe tree's '$expected' was not reported"; exit 1; }
done
echo "ok: $count harness files keep the include direction"
