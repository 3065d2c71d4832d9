#!/usr/bin/env bash
# Installs the Debian packages melange builds against; does nothing when all are present.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libgtest-dev libgmock-dev googletest libbenchmark-dev
  libxsimd-dev libcli11-dev nlohmann-json3-dev
  libboost-dev libboost-math-dev
  librandom123-dev librandom123-doc zlib1g-dev
  python3 python3-numpy python3-dev pybind11-dev python3-pytest python3-jsonschema libxml2-utils
  python3-venv python3-pip python3-setuptools python3-mypy python3-mpi4py
  clang libclang-rt-dev
  libopenmpi-dev openmpi-bin
  man-db zsh fish locales
  php-cli default-jdk-headless mono-mcs mono-runtime
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

cmd="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "setup: missing packages; run as root:" >&2
  echo "  apt-get update && $cmd" >&2
  exit 1
fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
$cmd
