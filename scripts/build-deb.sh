#!/bin/sh
# Builds fcd's Debian packages (libfcd0.1, libfcd-dev, fcd, python3-fcd) from the tree's
# files under version control, in a copy (a Debian build starts from a clean tree), with
# `dpkg-buildpackage -us -uc -b`; then checks them: lintian (no errors), and
# debian/tests/consumers (a C, a CMake and a Python consumer and the program, against the
# packages unpacked into a tree of their own). The packages land in OUTDIR.
# Needs: debhelper dh-python lintian (and the build dependencies of debian/control).
# usage: scripts/build-deb.sh [OUTDIR]      (default: build-deb)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/build-deb}
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/fcd"
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
  (cd "$top" && git ls-files -z --cached --others --exclude-standard |
    tar --null --ignore-failed-read -T - -cf - | tar -xf - -C "$work/fcd")
else # a tree without git: everything but build directories
  (cd "$top" && tar --exclude='./build*' --exclude='./prefix*' -cf - .) | tar -xf - -C "$work/fcd"
fi
(cd "$work/fcd" && dpkg-buildpackage -us -uc -b) > "$out/build.log" 2>&1 ||
  { tail -n 40 "$out/build.log"; echo "dpkg-buildpackage failed (log: $out/build.log)"; exit 1; }
rm -f "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo
cp "$work"/*.deb "$work"/*.changes "$work"/*.buildinfo "$out"/
ls "$out"/*.deb
lintian --fail-on error --suppress-tags-from-file /dev/null "$out"/*.changes ||
  { echo "lintian found errors"; exit 1; }
sh "$top/debian/tests/consumers" "$out"
