#!/usr/bin/env python3
"""The exported symbols of libfcd.so, the names in lib/fcd.map and the FCD_API
declarations of include/fcd/*.h must be the same set; the SONAME must follow
docs/abi-policy.md. usage: check_symbols.py LIBFCD_SO FCD_MAP INCLUDE_DIR VERSION"""
import glob, re, subprocess, sys

lib, mapfile, incdir, version = sys.argv[1:5]
out = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True,
                     check=True).stdout
exported = set()
for line in out.splitlines():
    parts = line.split()
    if len(parts) == 3 and parts[1] in "TDBRV":
        exported.add(parts[2].split("@")[0])

text = re.sub(r"/\*.*?\*/", "", open(mapfile).read(), flags=re.S)
mapped = set(re.findall(r"^\s*(fcd_\w+)\s*;", text, flags=re.M))

declared = set()
for h in glob.glob(incdir + "/*.h"):
    src = re.sub(r"/\*.*?\*/", "", open(h).read(), flags=re.S)
    for decl in re.findall(r"FCD_API\b([^;{]*?)\(", src, flags=re.S):
        m = re.search(r"(fcd_\w+)\s*$", decl.strip())
        if m:
            declared.add(m.group(1))

ok = True
for name, a, b in (("exported but not in fcd.map", exported, mapped),
                   ("in fcd.map but not exported", mapped, exported),
                   ("declared FCD_API but not in fcd.map", declared, mapped),
                   ("in fcd.map but not declared FCD_API", mapped, declared)):
    diff = sorted(a - b)
    if diff:
        ok = False
        print(f"{name}: {' '.join(diff)}")

dyn = subprocess.run(["readelf", "-d", lib], capture_output=True, text=True, check=True).stdout
m = re.search(r"Library soname: \[(.*?)\]", dyn)
major, minor = version.split(".")[:2]
want = f"libfcd.so.0.{minor}" if major == "0" else f"libfcd.so.{major}"
if not m or m.group(1) != want:
    ok = False
    print(f"SONAME is {m.group(1) if m else None}, the ABI policy says {want}")
print(f"{len(exported)} exported symbols, {len(mapped)} in fcd.map, {len(declared)} declared: "
      + ("consistent" if ok else "INCONSISTENT"))
sys.exit(0 if ok else 1)
