# oneDNN 3 from PyPI, for systems whose own oneDNN is older (Debian 12 ships 2.6.3): the wheels
# of oneDNN 3.2.0 built for the CPU alone on GNU OpenMP (docs/building-onednn.md). Sourced by
# setup.sh, gpu-prepare.sh and gpu-check.sh; CMakeLists.txt (and the Windows cross build's
# compile check, cmake/LayerbenchWindowsCompileCheck.cmake) look in ONEDNN_PREFIX by themselves.
ONEDNN_PREFIX="$ROOT/.onednn"
ONEDNN_VERSION=3.2.0
ONEDNN_WHEELS=(onednn-devel-cpu-gomp==2023.2.0 onednn-cpu-gomp==2023.2.0)

# The major version of the oneDNN in the system's include folder, 0 when there is none.
system_onednn_major() {
  local major
  major="$(sed -n 's/^#define DNNL_VERSION_MAJOR \([0-9]*\).*/\1/p' \
    /usr/include/oneapi/dnnl/dnnl_version.h 2>/dev/null || true)"
  echo "${major:-0}"
}

# Whether prefix $1 holds ONEDNN_VERSION, complete.
onednn_prefix_ready() {
  grep -qs "set(PACKAGE_VERSION \"$ONEDNN_VERSION\")" "$1/lib/cmake/dnnl/dnnl-config-version.cmake" &&
    [ -f "$1/lib/libdnnl.so.3" ]
}

# Downloads the wheels into folder $2 with the pip of Python $1 (needs the registry).
download_onednn_wheels() {
  "$1" -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: \
    -d "$2" "${ONEDNN_WHEELS[@]}"
}

# Unpacks the wheels of folder $1 into prefix $2 (include/, lib/, lib/cmake/dnnl/). A wheel is a
# zip archive: CMake unpacks it, so this needs neither pip nor unzip. Wheels cannot hold symbolic
# links, so the library comes as three identical 52 MiB files; the two names the loader and the
# linker look for become links to the one CMake's config names (libdnnl.so.3.2).
unpack_onednn_wheels() {
  local wheels prefix="$2" work real
  wheels="$(cd "$1" && pwd)"
  work="$(mktemp -d)"
  for wheel in "$wheels"/onednn_*.whl; do
    (cd "$work" && cmake -E tar xf "$wheel")
  done
  rm -rf "$prefix"
  mkdir -p "$prefix"
  cp -a "$work"/onednn_*.data/data/{include,lib} "$prefix/"
  rm -rf "$work"
  real="$(basename "$(ls "$prefix"/lib/libdnnl.so.3.*)")"
  ln -sfn "$real" "$prefix/lib/libdnnl.so.3"
  ln -sfn libdnnl.so.3 "$prefix/lib/libdnnl.so"
  onednn_prefix_ready "$prefix"
}

# The folder holding oneDNN 3's include/: the system's where it has oneDNN 3, else ONEDNN_PREFIX.
onednn_root() {
  if [ "$(system_onednn_major)" -ge 3 ]; then echo /usr; else echo "$ONEDNN_PREFIX"; fi
}
