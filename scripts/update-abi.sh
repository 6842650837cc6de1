#!/bin/sh
# update-abi.sh BUILDDIR: records the ABI of BUILDDIR's libfcd (built with debug info)
# as the baseline abi/libfcd.abi that the `abi` test compares against.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: update-abi.sh BUILDDIR}
lib=$(ls "$build"/lib/libfcd.so.*.*.* | head -n 1)
abidw --no-corpus-path --headers-dir "$top/include/fcd" --headers-dir "$build/include/fcd" \
  --out-file "$top/abi/libfcd.abi" "$lib"
echo "wrote $top/abi/libfcd.abi from $lib"
