#!/usr/bin/env bash
# Installs what layerbench needs and is missing, idempotently: Debian packages (as root, else it
# prints the apt-get line), .venv with the report package, oneDNN 3 into .onednn where the system
# lacks it; --tests, --torch and --frameworks add more (docs/building.md says what and why).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
source "$ROOT/scripts/onednn-wheels.sh"

with_tests=0 with_torch=0 with_frameworks=0
for arg in "$@"; do
  case "$arg" in
    --tests) with_tests=1 ;;
    --torch) with_torch=1 ;;
    --frameworks) with_frameworks=1 ;;
    *) echo "setup.sh: unknown option $arg (expected --tests, --torch, --frameworks)" >&2; exit 2 ;;
  esac
done

debian_packages=(cmake g++ ninja-build git pkg-config libbenchmark-dev libgtest-dev libcli11-dev
  nlohmann-json3-dev libopenblas-dev python3 python3-venv chromium
  g++-mingw-w64-x86-64-posix)
# What only the tests need: clang for the sanitizer and fuzz builds, clang-format for the style
# check, Wine to run the Windows build, a real Slurm for the fleet, ccache for rebuilds.
if [ "$with_tests" = 1 ]; then
  debian_packages+=(clang clang-format libclang-rt-14-dev wine64 slurmctld slurmd slurm-client munge
    ccache)
fi

missing=()
for p in "${debian_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ]; then
    step "installing Debian packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}"
  else
    echo "layerbench needs these Debian packages; run:" >&2
    echo "  sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi

# Python: a virtual environment, refreshed only when requirements.txt changes.
stamp="$VENV/.requirements.sha256"
want="$(sha256sum "$ROOT/scripts/requirements.txt" | cut -d' ' -f1)"
if [ ! -x "$PY" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  step "installing Python packages into $VENV"
  python3 -m venv "$VENV"
  "$PY" -m pip install -q --disable-pip-version-check -r "$ROOT/scripts/requirements.txt"
  echo "$want" > "$stamp"
fi
# The report package (reports/pyproject.toml), editable: scripts/*.py import it from this tree.
# Keyed on its pyproject.toml, like the requirements above.
package_stamp="$VENV/.reports-package.sha256"
package_want="$(sha256sum "$ROOT/reports/pyproject.toml" | cut -d' ' -f1)"
if [ "$(cat "$package_stamp" 2>/dev/null)" != "$package_want" ]; then
  step "installing the report package (reports/) into $VENV, editable"
  "$PY" -m pip install -q --disable-pip-version-check -e "$ROOT/reports"
  echo "$package_want" > "$package_stamp"
fi
# oneDNN 3: the system's where it has one, else the PyPI build (scripts/onednn-wheels.sh).
if [ "$(system_onednn_major)" -lt 3 ] && ! onednn_prefix_ready "$ONEDNN_PREFIX"; then
  step "installing oneDNN $ONEDNN_VERSION from PyPI into $ONEDNN_PREFIX"
  wheels="$(mktemp -d)"
  download_onednn_wheels "$PY" "$wheels"
  unpack_onednn_wheels "$wheels" "$ONEDNN_PREFIX"
  rm -rf "$wheels"
fi
if [ "$with_torch" = 1 ] && ! "$PY" -c 'import torch, torchvision' 2>/dev/null; then
  step "installing PyTorch and torchvision into $VENV (scripts/requirements-torch.txt)"
  "$PY" -m pip install -q --disable-pip-version-check -r "$ROOT/scripts/requirements-torch.txt"
fi
if [ "$with_frameworks" = 1 ]; then
  for package in tensorflow-cpu tensorflow torch; do
    env_dir="$ROOT/.framework-venvs/$package"
    [ -x "$env_dir/bin/python" ] && "$env_dir/bin/python" -c "import ${package%-cpu}" 2>/dev/null && continue
    step "installing $package into $env_dir"
    python3 -m venv "$env_dir"
    "$env_dir/bin/python" -m pip install -q --disable-pip-version-check "$package"
  done
fi
if [ -d /usr/local/cuda ] && ! command -v nvcc >/dev/null; then
  echo "note: /usr/local/cuda exists but nvcc is not on PATH; CMake looks in /usr/local/cuda itself."
fi
