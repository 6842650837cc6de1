#!/usr/bin/env python3
"""Runs an example's quick run and compares the tables it writes (OUT/results.md, or the
FILE named in the marker: OUT/checks.md holds every named check of examples/common/
example.h) with the tables its page carries between the markers

    <!-- results: quick, rtol=R[, file=FILE][, unchecked=C1,C2...] -->
    ...the table...
    <!-- /results -->

A block marked `results: full` is compared with the full run (the program without
--quick, into OUT/full), which is run only when the page has such a block: pages use it
for the programs whose full run takes seconds.

so that a page cannot go stale: the table is the program's output, pasted. Cells that
parse as numbers (a trailing % allowed) must agree to the relative tolerance R stated in
the marker (round-off amplified by impacts moves the last printed digit between
builds); every other cell must be equal. The columns listed as unchecked (numbered from
1) are printed but not compared: a page uses it only for quantities its text shows to be
decided by round-off (beam-foundation's pressed-node counts moved from 18 to 25 of 41
between an Intel and an AMD machine), and says so. A page without the markers is only
run.

usage: check_page.py EXE PAGE OUTDIR            run and compare
       check_page.py EXE PAGE OUTDIR --update   run and rewrite the page's table
"""
import re
import subprocess
import sys

BEGIN = re.compile(r"<!-- results: (quick|full), rtol=([0-9.eE+-]+)(?:, file=([\w.-]+))?"
                   r"(?:, unchecked=([0-9,]+))? -->\n")
END = "<!-- /results -->"


def cells(table):
    rows = []
    for line in table.strip().splitlines():
        line = line.strip()
        if not line.startswith("|") or set(line) <= set("|-: "):
            continue
        rows.append([c.strip() for c in line.strip("|").split("|")])
    return rows


def number(s):
    try:
        return float(s.rstrip("%"))
    except ValueError:
        return None


def main():
    exe, page, out = sys.argv[1:4]
    update = "--update" in sys.argv[4:]
    rc = subprocess.call([exe, "--quick", "--out", out])
    if rc != 0:
        print(f"check_page: {exe} --quick exited with {rc}")
        return 1
    text = open(page, encoding="utf-8").read()
    if any(m.group(1) == "full" for m in BEGIN.finditer(text)):
        rc = subprocess.call([exe, "--out", f"{out}/full"])
        if rc != 0:
            print(f"check_page: {exe} (full run) exited with {rc}")
            return 1
    pos, status = 0, 0
    while True:
        m = BEGIN.search(text, pos)
        if not m:
            return status
        end = text.find(END, m.end())
        if end < 0:
            print(f"check_page: {page}: results block without its end marker")
            return 1
        run, name = m.group(1), m.group(3) or "results.md"
        where = out if run == "quick" else f"{out}/full"
        try:
            got = open(f"{where}/{name}", encoding="utf-8").read()
        except OSError as e:
            print(f"check_page: the program wrote no table {name}: {e}")
            return 1
        if update:
            text = text[: m.end()] + got.strip() + "\n" + text[end:]
            open(page, "w", encoding="utf-8").write(text)
            print(f"check_page: {page}: {name} of the {run} run updated")
            pos = m.end()
            continue
        free = {int(c) for c in m.group(4).split(",") if c} if m.group(4) else set()
        status |= compare(page, run, name, float(m.group(2)), free, text[m.end():end], got, exe,
                          where)
        pos = end


def compare(page, run, name, rtol, free, block, got, exe, out):
    want, have = cells(block), cells(got)
    bad = []
    if len(want) != len(have):
        bad.append(f"{len(want)} rows on the page, {len(have)} printed")
    for i, (rw, rh) in enumerate(zip(want, have)):
        if len(rw) != len(rh):
            bad.append(f"row {i + 1}: {len(rw)} cells on the page, {len(rh)} printed")
            continue
        for j, (cw, ch) in enumerate(zip(rw, rh)):
            if j + 1 in free:
                continue
            a, b = number(cw), number(ch)
            if a is not None and b is not None:
                if abs(a - b) > rtol * max(abs(a), abs(b)) and a != b:
                    bad.append(f"row {i + 1} column {j + 1}: page {cw}, program {ch}")
            elif cw != ch:
                bad.append(f"row {i + 1} column {j + 1}: page '{cw}', program '{ch}'")
    if bad:
        print(f"check_page: {page} is stale against the {run} run's {name} (rtol {rtol}):")
        for b in bad:
            print("  " + b)
        print(f"  the program's table ({out}/{name}):\n{got}")
        print(f"  rewrite with: {sys.argv[0]} {exe} {page} {sys.argv[3]} --update")
        return 1
    skipped = f", columns {sorted(free)} not compared" if free else ""
    print(f"check_page: {page}: {len(have)} rows of {name} agree with the {run} run "
          f"(rtol {rtol}{skipped})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
