#!/usr/bin/env python3
"""No function of lib/ or tools/ is longer than 100 lines (issue 21 set 150, issue 65
100): a function that long mixes ideas its readers have to separate; cut it at its phases. A definition starts at a line in column 0
that opens a brace after a parameter list and ends at the next "}" in column 0 (the
project's formatting). usage: function_length.py SOURCE_ROOT"""
import glob
import os
import re
import sys

LIMIT = 100
# drivers whose job is to read as an outline, held to less: none today
DRIVERS = {}
root = sys.argv[1]
long_ones = []
for path in sorted(glob.glob(os.path.join(root, "lib", "**", "*.c"), recursive=True) +
                   glob.glob(os.path.join(root, "tools", "*.c"))):
    lines = open(path, encoding="utf-8").read().splitlines()
    start = name = None
    for i, line in enumerate(lines):
        if start is None and re.match(r"^[a-z].*\)\s*\{$", line) and "(" in line:
            start, name = i, line
        elif start is None and re.match(r"^[a-z][^;]*\($", line) is None and \
                re.match(r"^\s+.*\)\s*\{$", line) and i > 0 and re.match(r"^[a-z]", lines[i - 1]) \
                and "(" in lines[i - 1] and not lines[i - 1].rstrip().endswith(";"):
            start, name = i - 1, lines[i - 1]
        elif start is not None and line == "}":
            n = i - start
            fname = re.search(r"(\w+)\s*\(", name)
            limit = DRIVERS.get(fname.group(1) if fname else "", LIMIT)
            if n > limit:
                long_ones.append((n, os.path.relpath(path, root), name.strip()[:70]))
            start = None
if long_ones:
    for n, path, name in sorted(long_ones, reverse=True):
        print(f"{path}: {n} lines: {name}")
    print(f"{len(long_ones)} functions longer than {LIMIT} lines (drivers: {DRIVERS})")
    sys.exit(1)
print(f"no function of lib/ or tools/ is longer than {LIMIT} lines")
