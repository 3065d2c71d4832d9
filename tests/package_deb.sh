#!/usr/bin/env bash
# The Debian package as a user installs it: `cpack -G DEB` in the build
# folder, its control fields (Depends from the shared libraries), then
# `dpkg -i` into a scratch root of its own (its own dpkg database: nothing
# of this machine's is touched), timed; from there `melange version`, a
# sample and an audit, the man page, completions, headers, CMake package and
# pkg-config file. Usage: package_deb.sh BUILD_DIR
set -euo pipefail
build=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

(cd "$build" && cpack -G DEB -B "$work/out" >"$work/cpack.log" 2>&1) || { cat "$work/cpack.log"; exit 1; }
deb=$(ls "$work"/out/melange_*.deb)
echo "ok    cpack -G DEB made $(basename "$deb") ($(du -k "$deb" | cut -f1) KiB)"
depends=$(dpkg-deb -f "$deb" Depends)
case $depends in
  *libc6*) echo "ok    Depends: $depends" ;;
  *) echo "FAIL  Depends names no shared library: '$depends'"; exit 1 ;;
esac
[ "$(dpkg-deb -f "$deb" Version)" = "$(sed -n 's/^project(melange VERSION \([0-9.]*\).*/\1/p' "$(dirname "$0")/../CMakeLists.txt")" ] ||
  { echo "FAIL  the package's version is not the CMake project's"; exit 1; }

root=$work/root
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
touch "$root/var/lib/dpkg/status"
start=$(date +%s%N)
dpkg --root="$root" --log=/dev/null --force-depends --force-not-root --force-script-chrootless -i "$deb" >"$work/dpkg.log" 2>&1 ||
  { cat "$work/dpkg.log"; exit 1; }
echo "ok    dpkg -i into a scratch root in $(( ($(date +%s%N) - start) / 1000000 )) ms"

melange=$root/usr/bin/melange
"$melange" version | head -1
"$melange" sample --n 8 --count 20000 --output "$work/decks.txt" >/dev/null
"$melange" audit "$work/decks.txt" --brief | tail -1 | grep -qx "verdict: PASS" ||
  { echo "FAIL  the installed melange's audit of fair decks did not PASS"; exit 1; }
echo "ok    the installed melange samples and audits (PASS)"
for f in usr/share/man/man1/melange.1 usr/share/bash-completion/completions/melange \
         usr/share/zsh/site-functions/_melange usr/share/fish/vendor_completions.d/melange.fish \
         usr/include/melange/engine.hpp; do
  [ -e "$root/$f" ] || { echo "FAIL  the package has no /$f"; exit 1; }
done
for f in cmake/melange/melangeConfig.cmake pkgconfig/melange.pc; do
  find "$root/usr/lib" -path "*/$f" | grep -q . || { echo "FAIL  the package has no /usr/lib/.../$f"; exit 1; }
done
if find "$root" -name 'melange.cpython-*' | grep -q .; then
  echo "FAIL  the package holds the Python module (the wheel's)"; exit 1
fi
echo "ok    man page, completions, headers, CMake package and pkg-config file; no Python module"
