#!/usr/bin/env python3
"""Runs the shell commands a documentation page shows and compares what they print
with what the page says, so that the page cannot go stale.

In the page:
- a fenced block preceded by a line ending in "`NAME`:" is a file: written to NAME in
  the work directory before any command runs;
- in a fenced block, a line starting with "$ " is a command (a trailing backslash
  continues it), run by sh in the work directory with the fcd program first on PATH;
  the lines after it, up to the next command or the block's end, are its output.

Each shown output line must match a line the command printed, in order (the program
may print more lines than the page shows). A "..." ends a line's comparison there, and
a line of just "..." matches nothing by itself. Numbers compare to a relative 1e-6
(the page rounds nothing it shows, but the last digit of a float may move between
builds); every other token must be equal. A command that exits non-zero fails.

usage: doc_commands.py PAGE FCD_PROGRAM WORKDIR
"""
import os
import re
import shutil
import subprocess
import sys

FENCE = re.compile(r"^\s*```")
NUM = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")


def blocks(text):
    """(label or None, [lines]) of every fenced block, in order"""
    lines = text.splitlines()
    out, i = [], 0
    while i < len(lines):
        if FENCE.match(lines[i]):
            indent = len(lines[i]) - len(lines[i].lstrip())
            label = None
            prev = lines[i - 1].strip() if i > 0 else ""
            m = re.search(r"`([\w.-]+)`:$", prev)
            if m:
                label = m.group(1)
            body = []
            i += 1
            while i < len(lines) and not FENCE.match(lines[i]):
                body.append(lines[i][indent:] if lines[i][:indent].strip() == "" else lines[i])
                i += 1
            out.append((label, body))
        i += 1
    return out


def tokens(line):
    return [t for t in re.split(r"[\s=,:()]+", line) if t]


def same(shown, got):
    cut = shown.find("...")
    if cut >= 0:
        shown = shown[:cut]
    a, b = tokens(shown), tokens(got)
    if cut >= 0:
        b = b[: len(a)]
        # a token cut by the ellipsis compares as a prefix
        if a and b and len(a) == len(b) and not shown.endswith((" ", "=")):
            if not b[-1].startswith(a[-1]):
                return False
            a, b = a[:-1], b[:-1]
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if NUM.match(x) and NUM.match(y):
            fx, fy = float(x), float(y)
            if abs(fx - fy) > 1e-6 * max(abs(fx), abs(fy)) and fx != fy:
                return False
        elif x != y:
            return False
    return True


def main():
    page, fcd, work = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    env = dict(os.environ)
    bindir = os.path.join(work, "bin")
    os.makedirs(bindir)
    os.symlink(os.path.abspath(fcd), os.path.join(bindir, "fcd"))
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    text = open(page, encoding="utf-8").read()
    bl = blocks(text)
    for label, body in bl:
        if label:
            with open(os.path.join(work, label), "w", encoding="utf-8") as f:
                f.write("\n".join(body) + "\n")
    bad = ncmd = 0
    for label, body in bl:
        if label:
            continue
        i = 0
        while i < len(body):
            if not body[i].startswith("$ "):
                i += 1
                continue
            cmd = body[i][2:]
            while cmd.endswith("\\") and i + 1 < len(body):
                i += 1
                cmd = cmd[:-1] + " " + body[i].strip()
            i += 1
            shown = []
            while i < len(body) and not body[i].startswith("$ "):
                shown.append(body[i])
                i += 1
            ncmd += 1
            r = subprocess.run(["sh", "-c", cmd], cwd=work, env=env, capture_output=True,
                               text=True, timeout=600)
            got = r.stdout.splitlines()
            if r.returncode != 0:
                print(f"FAIL: '{cmd}' exited {r.returncode}:\n{r.stderr}")
                bad += 1
                continue
            k = 0
            for line in shown:
                if line.strip() == "...":
                    continue
                while k < len(got) and not same(line, got[k]):
                    k += 1
                if k == len(got):
                    print(f"FAIL: '{cmd}': the page shows\n  {line}\nwhich the program did not "
                          f"print (in this order). It printed:\n  " + "\n  ".join(got))
                    bad += 1
                    break
                k += 1
    print(f"{page}: {ncmd} commands run, {bad} failed")
    return 1 if bad or ncmd == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
