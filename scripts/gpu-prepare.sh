#!/usr/bin/env bash
# Gather what building layerbench needs on a GPU machine without a package registry: the Debian
# packages of its C++ dependencies, unpacked (not installed) into deps/root, and the oneDNN 3
# wheels (scripts/onednn-wheels.sh) into deps/wheels, which gpu-check.sh unpacks there. Run it
# where apt and pip can download (a Debian 12 machine like the development one).
#   scripts/gpu-prepare.sh [--verify]
#     --verify  also configure and build layerbench here against deps/root alone, and check that
#               CMake took every dependency from there.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEPS="$ROOT/deps"
source "$ROOT/scripts/onednn-wheels.sh"
# The device tool carries at most 64 MiB: the working tree (tracked and untracked files git does
# not ignore) and deps/ together.
LIMIT_MIB=64

verify=0
for arg in "$@"; do
  case "$arg" in
    --verify) verify=1 ;;
    *) echo "gpu-prepare.sh: unknown argument '$arg' (expected --verify)" >&2; exit 2 ;;
  esac
done

# The headers, CMake configs and libraries of the dependencies but oneDNN (Debian's is 2.x).
packages=(libbenchmark-dev libbenchmark1debian libgtest-dev googletest libcli11-dev
          nlohmann-json3-dev)
# libgomp (oneDNN's OpenMP) is unpacked apart: gpu-check.sh uses it only where the machine has
# none of its own, so that an older copy never shadows the system's.
fallback_packages=(libgomp1)

echo "== downloading ${#packages[@]} + ${#fallback_packages[@]} Debian packages"
rm -rf "$DEPS"
mkdir -p "$DEPS/debs" "$DEPS/root" "$DEPS/gomp"
( cd "$DEPS/debs" && apt-get download "${packages[@]}" "${fallback_packages[@]}" )

echo "== unpacking into deps/root (dpkg -x: nothing is installed)"
for pkg in "${packages[@]}"; do
  dpkg -x "$(ls "$DEPS"/debs/"${pkg}"_*.deb)" "$DEPS/root"
done
for pkg in "${fallback_packages[@]}"; do
  dpkg -x "$(ls "$DEPS"/debs/"${pkg}"_*.deb)" "$DEPS/gomp"
done
rm -rf "$DEPS/debs" "$DEPS/root/usr/share/doc" "$DEPS/root/usr/share/man" "$DEPS/gomp/usr/share"

# oneDNN 3 as wheels (39 MiB) rather than unpacked (52 MiB of library): only so does deps/ fit.
echo "== downloading the oneDNN $ONEDNN_VERSION wheels into deps/wheels"
python="$ROOT/.venv/bin/python"
[ -x "$python" ] || python=python3
download_onednn_wheels "$python" "$DEPS/wheels"
# Symbolic links (libbenchmark.so -> libbenchmark.so.1 ...) listed as "link target", so gpu-check.sh can
# recreate any that a copy to the GPU machine did not carry.
( cd "$DEPS" && find . -type l -printf '%p %l\n' ) > "$DEPS/SYMLINKS"
# Package versions, so a later reader knows what the GPU build used.
{
  for pkg in "${packages[@]}" "${fallback_packages[@]}"; do
    printf '%s %s\n' "$pkg" "$(apt-cache policy "$pkg" | awk '/Candidate:/ {print $2}')"
  done
  for wheel in "${ONEDNN_WHEELS[@]}"; do printf '%s (oneDNN %s)\n' "$wheel" "$ONEDNN_VERSION"; done
} > "$DEPS/VERSIONS"

deps_kib=$(du -sk "$DEPS" | cut -f1)
tree_kib=$(( $(cd "$ROOT" && git ls-files -z -co --exclude-standard |
                 xargs -0 stat -c %s 2>/dev/null | awk '{s += $1} END {print s + 0}') / 1024 ))
total_mib=$(( (deps_kib + tree_kib + 1023) / 1024 ))
echo "== deps/ $((deps_kib / 1024)) MiB + working tree $((tree_kib / 1024)) MiB = ${total_mib} MiB (limit ${LIMIT_MIB})"
if [ "$total_mib" -gt "$LIMIT_MIB" ]; then
  echo "FAILED: the working tree and deps/ are larger than ${LIMIT_MIB} MiB" >&2
  exit 1
fi

if [ "$verify" = 1 ]; then
  build="$ROOT/build-deps-check"
  echo "== verify: configure and build against deps/ alone ($build)"
  rm -rf "$build"
  # As gpu-check.sh does; removed after, since only the wheels travel.
  unpack_onednn_wheels "$DEPS/wheels" "$DEPS/onednn"
  cmake -S "$ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLAYERBENCH_CUDA=OFF \
    -DCMAKE_PREFIX_PATH="$DEPS/root/usr;$DEPS/onednn"
  # Every dependency's package config must come from deps/, not from this machine's /usr.
  bad=0
  for var in nlohmann_json_DIR CLI11_DIR benchmark_DIR dnnl_DIR GTest_DIR; do
    value=$(sed -n "s/^${var}:[A-Z]*=//p" "$build/CMakeCache.txt")
    case "$value" in
      "$DEPS"/*) echo "   $var = $value" ;;
      *) echo "FAILED: $var = '$value' is not under deps/" >&2; bad=1 ;;
    esac
  done
  [ "$bad" = 0 ] || exit 1
  cmake --build "$build" -j "$(nproc)" --target layerbench cuda_logic_test
  LD_LIBRARY_PATH="$DEPS/root/usr/lib/x86_64-linux-gnu" "$build/layerbench" --version
  "$build/tests/cuda_logic_test" --gtest_brief=1
  rm -rf "$DEPS/onednn"
  echo "== verify: ok"
fi
echo "== deps/ ready: carry deps/ to the GPU machine and run scripts/gpu-check.sh check there (then torch, optional)"
