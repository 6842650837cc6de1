#!/usr/bin/env python3
"""Rewrites lib/fcd.map from the FCD_API declarations of include/fcd/*.h: symbols already
in the map keep their version node; new ones go to the last node. The symbols test
(tests/foundation/check_symbols.py) checks the result. usage: scripts/update-map.py"""
import glob, os, re

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
mapfile = os.path.join(root, "lib", "fcd.map")
declared = []
for h in sorted(glob.glob(os.path.join(root, "include", "fcd", "*.h"))):
    src = re.sub(r"/\*.*?\*/", "", open(h).read(), flags=re.S)
    for decl in re.findall(r"FCD_API\b([^;{]*?)\(", src, flags=re.S):
        m = re.search(r"(fcd_\w+)\s*$", decl.strip())
        if m and m.group(1) not in declared:
            declared.append(m.group(1))
text = open(mapfile).read()
mapped = set(re.findall(r"^\s*(fcd_\w+)\s*;", re.sub(r"/\*.*?\*/", "", text, flags=re.S),
                        flags=re.M))
new = [d for d in declared if d not in mapped]
if new:
    # insert before the "local:" of the last node
    i = text.rindex("  local:")
    text = text[:i] + "".join("    %s;\n" % n for n in new) + text[i:]
    open(mapfile, "w").write(text)
print("added %d symbol(s): %s" % (len(new), " ".join(new)))
