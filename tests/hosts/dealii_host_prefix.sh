#!/bin/sh
# The deal.II host (examples/hosts/dealii) built and run from a prefix install of fcd, as
# a user builds it: the build installed to a private staging prefix, CMake told only
# that prefix (find_package(fcd), target fcd::fcd), the host run on its coarse mesh. It
# must link libfcd from the prefix, pass its own checks (fcd against deal.II's UMFPACK
# solve without friction, force balance and the friction law with it) and write its
# DataOut files.
# usage: dealii_host_prefix.sh BUILD PREFIX SOURCE
. "$(dirname "$0")/stage.sh"
stage_host dealii "$@"
unset LD_LIBRARY_PATH PKG_CONFIG_PATH
if ! CMAKE_PREFIX_PATH="$P" cmake -S "$tmp/host" -B "$tmp/b" -DCMAKE_BUILD_TYPE=Release \
     >"$tmp/cmake.log" 2>&1 || ! cmake --build "$tmp/b" >>"$tmp/cmake.log" 2>&1; then
  tail -n 30 "$tmp/cmake.log"
  echo "the deal.II host does not build against the prefix"
  exit 1
fi
lib=$(ldd "$tmp/b/dealii_host" | awk '/libfcd\.so/ {print $3}')
case "$lib" in
  "$P"/*) ;;
  *) echo "libfcd resolved to '$lib', not under $P"; exit 1 ;;
esac
out=$(cd "$tmp" && "$tmp/b/dealii_host" --quick --out "$tmp/out" 2>&1)
rc=$?
echo "$out"
[ $rc -eq 0 ] || { echo "the host failed ($rc)"; exit 1; }
echo "$out" | grep -q "^checks: [1-9][0-9]* passed, 0 failed" || { echo "no checks summary"; exit 1; }
for f in equilibrium.pvd equilibrium.vtu mode1.pvd mode1-0.vtu transient.pvd transient-0.vtu; do
  [ -s "$tmp/out/$f" ] || { echo "$f was not written"; exit 1; }
done
grep -q "<VTKFile" "$tmp/out/transient-0.vtu" || { echo "transient-0.vtu is not VTU"; exit 1; }
echo "deal.II host from the prefix: ok"
