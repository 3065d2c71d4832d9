#!/usr/bin/env bash
# The Python package as a user installs it: a wheel, built offline, then
# installed with pip into a fresh venv
# (Debian's NumPy and pytest seen through --system-site-packages); the
# pytest suite against that install, not the build tree; pip show and
# uninstall. Usage: python_package.sh SOURCE_DIR MELANGE_CLI PYTHON
set -euo pipefail
src=$1 cli=$2 python=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unset PYTHONPATH

"$python" -m venv --system-site-packages "$work/venv"
py="$work/venv/bin/python"
# A wheel, built once (the SIMD kernels, no CUDA), then installed as a user
# elsewhere installs it: no compiler at install time.
start=$(date +%s)
(cd "$src" && "$py" -m pip wheel --no-build-isolation --no-deps --no-input --quiet -w "$work/dist" .)
echo "ok    pip wheel built $(basename "$work"/dist/melange-*.whl) in $(( $(date +%s) - start )) s"
start=$(date +%s%N)
"$py" -m pip install --no-index --no-deps --no-input --quiet "$work"/dist/melange-*.whl
echo "ok    pip install of the wheel took $(( ($(date +%s%N) - start) / 1000000 )) ms"

cd "$work"  # away from the sources and the build tree
where=$("$py" -c 'import melange; print(melange.__file__)')
case $where in
  "$work/venv/"*) echo "ok    melange imports from the venv: $where" ;;
  *) echo "FAIL  melange imports from $where, not the venv"; exit 1 ;;
esac
want=$(sed -n 's/^project(melange VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
shown=$("$py" -m pip show melange | sed -n 's/^Version: //p')
module=$("$py" -c 'import melange; print(melange.__version__)')
[ "$shown" = "$want" ] && [ "$module" = "$want" ] || { echo "FAIL  versions: pip $shown, module $module, CMake $want"; exit 1; }
echo "ok    pip show melange: $shown, the CMake project's"

MELANGE_CLI=$cli "$py" -m pytest -q -p no:cacheprovider "$src/tests/python"

# The stubs pip installed, as a typed caller meets them.
"$py" "$src/examples/typed_use.py"
if "$py" -c 'import mypy' 2>/dev/null; then
  "$py" -m mypy --strict --no-incremental "$src/examples/typed_use.py"
  echo "ok    mypy --strict passes examples/typed_use.py against the installed stubs"
else
  echo "skip  mypy is not installed: the stubs were not checked"
fi

"$py" -m pip uninstall --yes --quiet melange
if "$py" -c 'import melange' 2>/dev/null; then echo "FAIL  melange still imports after pip uninstall"; exit 1; fi
echo "ok    pip uninstall removed it"
