#!/bin/sh
# check-api-docs.sh DOXYGEN DOXYFILE OUTDIR: builds the API reference and fails, listing
# them, when Doxygen warns (an undocumented public function, type, member or macro).
set -eu
doxygen=$1
doxyfile=$2
out=$3
mkdir -p "$out"
rm -f "$out/warnings.txt"
"$doxygen" "$doxyfile" >/dev/null
if [ -s "$out/warnings.txt" ]; then
  echo "undocumented or badly documented public API:"
  cat "$out/warnings.txt"
  exit 1
fi
echo "API reference complete: no Doxygen warnings"
