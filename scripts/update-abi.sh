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
# the Debian symbols file (debian/libfcd<soversion>.symbols) from lib/fcd.map, which the
# ecosystem test debian_packaging compares with it
/usr/bin/python3 - "$top" <<'PY'
import glob, os, re, sys
top = sys.argv[1]
fmap = open(os.path.join(top, "lib", "fcd.map")).read()
node = re.search(r"^(FCD_[0-9.]+)\s*\{", fmap, re.M).group(1)
syms = sorted(set(re.findall(r"^\s+(fcd_\w+);", fmap, re.M)))
path = glob.glob(os.path.join(top, "debian", "libfcd*.symbols"))[0]
head = open(path).readline()
with open(path, "w") as f:
    f.write(head)
    f.write(" %s@%s 0.1.0\n" % (node, node))
    f.writelines(" %s@%s 0.1.0\n" % (s, node) for s in syms)
print("wrote", path)
PY
