#!/bin/sh
# check_abi.sh ABIDIFF BASELINE LIBRARY HEADERS GENERATED_HEADERS
# Compares the built library's ABI (public types and functions, from its DWARF) with the
# committed baseline. Any difference fails: an incompatible one must not ship within a
# soversion, a compatible one (an added function) is recorded deliberately with
# scripts/update-abi.sh in the same commit that adds it (docs/abi-policy.md).
set -u
abidiff=$1 baseline=$2 lib=$3 hdr=$4 genhdr=$5
"$abidiff" --headers-dir2 "$hdr" --headers-dir2 "$genhdr" "$baseline" "$lib"
rc=$?
if [ $rc -ne 0 ]; then
  echo "abidiff exit status $rc: the ABI of $lib differs from $baseline."
  echo "If the change is intended and compatible, run scripts/update-abi.sh BUILDDIR and commit abi/."
  exit 1
fi
echo "ABI identical to $baseline"
