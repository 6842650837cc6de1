#!/bin/sh
# The GetFEM host (examples/hosts/getfem) run from a prefix install of fcd, as a user
# runs it: the build installed to a private staging prefix, Python told only where the
# prefix's site-packages are (no FCD_LIBRARY, no source tree on PYTHONPATH), the host on
# coarse meshes. It must load libfcd from the prefix and agree with GetFEM.
# usage: getfem_host_prefix.sh BUILD PREFIX SOURCE
. "$(dirname "$0")/stage.sh"
stage_host getfem "$@"
init=$(find "$P" -path '*/fcd/__init__.py' | head -n 1)
[ -n "$init" ] || { echo "the Python package was not installed under $P"; exit 1; }
site=$(dirname "$(dirname "$init")")
unset FCD_LIBRARY LD_LIBRARY_PATH
out=$(cd "$tmp" && PYTHONPATH="$site" /usr/bin/python3 host/getfem_host.py --quick \
      --out "$tmp/out" 2>&1)
rc=$?
echo "$out" | grep -v '^Trace'
[ $rc -eq 0 ] || { echo "the host failed ($rc)"; exit 1; }
echo "$out" | grep -q "^fcd .* from $P/" || { echo "libfcd was not loaded from $P"; exit 1; }
echo "$out" | grep -q "^agreement: yes" || { echo "fcd and GetFEM disagree"; exit 1; }
ls "$tmp/out"/pad2d-step*.vtu "$tmp/out"/pad3d-step*.vtu >/dev/null ||
  { echo "no VTU files written"; exit 1; }
echo "getfem host from the prefix: ok"
