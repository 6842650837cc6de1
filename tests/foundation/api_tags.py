#!/usr/bin/env python3
"""Every public function's documentation has @param for each parameter, @return for a
result, @since, and, for a function returning fcd_status, a @return naming exactly the
statuses the code can return (scripts/api_statuses.py: the names written in the
function and in what it calls). Issue 21. usage: api_tags.py SOURCE_ROOT"""
import glob
import os
import re
import sys

root = sys.argv[1]
sys.path.insert(0, os.path.join(root, "scripts"))
from api_statuses import statuses  # noqa: E402

code = statuses(root)
problems = []
count = 0
for path in sorted(glob.glob(os.path.join(root, "include", "fcd", "*.h"))):
    text = open(path, encoding="utf-8").read()
    for m in re.finditer(r"FCD_API\s+([^;{]*?)\b(fcd_\w+)\s*\(([^)]*)\)\s*;", text, re.S):
        ret, name, params = m.group(1).strip(), m.group(2), m.group(3)
        count += 1
        head = text[:m.start()].rstrip()
        if not head.endswith("*/"):
            problems.append(f"{name}: no documentation comment")
            continue
        doc = head[head.rfind("/**"):]
        where = f"{os.path.basename(path)}: {name}"
        for p in params.split(","):
            p = p.strip()
            if p in ("", "void"):
                continue
            pname = re.search(r"(\w+)\s*(\[\])?$", p).group(1)
            if not re.search(r"@param(\[\w+\])?\s+" + pname + r"\b", doc):
                problems.append(f"{where}: no @param {pname}")
        if "@since" not in doc:
            problems.append(f"{where}: no @since")
        if ret == "void":
            continue
        r = re.search(r"@return(.*?)(?=@\w+|\*/)", doc, re.S)
        if not r:
            problems.append(f"{where}: no @return")
            continue
        if ret == "fcd_status":
            documented = set(re.findall(r"\bFCD_E_\w+", r.group(1)))
            can = set(code.get(name, []))
            if name not in code:
                problems.append(f"{where}: not found in lib/ by scripts/api_statuses.py")
            for s in sorted(can - documented):
                problems.append(f"{where}: can return {s}, which its @return does not name")
            for s in sorted(documented - can):
                problems.append(f"{where}: @return names {s}, which the code cannot return")
if count < 100:
    problems.append(f"only {count} public functions found: the header parser is broken")
for p in problems:
    print(p)
print(f"{count} public functions, {len(problems)} documentation problems")
sys.exit(1 if problems else 0)
