#!/usr/bin/env bash
# Installs what is missing, then configures and builds melange into build/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
jobs=$(nproc 2>/dev/null || echo 2)
# The Python module is built for the interpreter that has NumPy: Debian's
# /usr/bin/python3 (the first python3 on PATH may be another one).
python=()
[ -x /usr/bin/python3 ] && python=(-DPython3_EXECUTABLE=/usr/bin/python3)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "${python[@]}" "$@"
cmake --build build -j"$jobs"
