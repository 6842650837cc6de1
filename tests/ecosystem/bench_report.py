#!/usr/bin/env python3
"""bench/report.py writes docs/performance.md from the logs of the parts `bench/run`
measured, and keeps the other sections of the previous page as they were.

Checked on logs written here, whose figures are chosen so that every derived number has
one right value: the step section is rewritten from its log and dated; a section whose
part was not run is kept word for word and said to be undated; the distributed
speed-ups are the quotients of the log's times (3.0 / 2.0 = 1.50 over one rank, 1.2 /
2.0 = 0.60 over serial), a run that failed is named as failed, not dropped; the memory
table keeps the rows of benchmarks not run and replaces those that were; a section written
by hand in the page itself is kept; the step section explains its output figures; the
durations keep each part's cell of the mode not run and add up (300 + 4 + 11 = 315 s in
full mode; 60 + 7 = 67 s in quick mode, which lacks the distributed part).
usage: bench_report.py SOURCE_ROOT WORKDIR"""
import os
import subprocess
import sys

root, work = sys.argv[1:3]
os.makedirs(work, exist_ok=True)
fails = 0


def check(cond, what):
    global fails
    if not cond:
        fails += 1
        print("FAIL:", what)


def write(name, text):
    path = os.path.join(work, name)
    with open(path, "w") as f:
        f.write(text)
    return path


old = write("old.md", """# Performance

Generated long ago.

## Current figures

| figure | ratio | what | against | measured | machine | reproduce |
|---|---|---|---|---|---|---|
| step_vs_cholmod_solve | 9.999 | Time integration | x | 2020-01-01 | m | `bench/run --only step` |
| brake_transient_reduced | 0.108 | Reduced models | the full model | 2026-11-30 | m | `bench/reduced_brake --full` |

## Time integration: one step against one solve with the factor

    ratio step_vs_cholmod_solve 9.999

## Time integration against Siconos 4.4 (MoreauJeanOSI)

An old paragraph, kept word for word.

    ratio dynamics_vs_siconos 0.0652

## Reduced models: measured by hand

A section bench/run does not write, kept as it is.

## Peak memory per benchmark

| benchmark | peak MB |
|---|---|
| contact_vs_siconos | 3047 (2026-11-24, cap 10 s) |
| step_vs_cholmod_solve | 999 |

## Duration of each part

| part | full | quick |
|---|---|---|
| contact | 300 s (2030-05-05) | 60 s (2030-05-05) |
| step | 9 s (2030-05-05) | 7 s (2030-05-05) |
""")
step = write("step.txt", "step_cost: a line\n    ratio step_vs_cholmod_solve 2.345\n"
             "ratio output_every_step 1.250\nratio output_every_10 1.030\n")
dist = write("dist.txt", """\
serial 24,24,16 dofs=31875 contacts=625 ranks=1 (serial CHOLMOD) equilibrium_seconds=1.200 \
first_step_seconds=1.000 step_seconds=0.0500 maxrss_mb=480
mpi1 24,24,16 dofs=31875 contacts=625 ranks=1 equilibrium_seconds=3.000 \
first_step_seconds=2.000 step_seconds=0.1000 maxrss_mb=600
mpi2 24,24,16 dofs=31875 contacts=625 ranks=2 equilibrium_seconds=2.000 \
first_step_seconds=1.600 step_seconds=0.0800 maxrss_mb=400
serial 36,36,24 dofs=102675 contacts=1369 ranks=1 (serial CHOLMOD) equilibrium_seconds=5.5 \
first_step_seconds=5.6 step_seconds=0.3 maxrss_mb=2000
mpi1 36,36,24 failed or timed out
mpi2 36,36,24 failed or timed out
""")
mem = write("mem.txt", "step_vs_cholmod_solve 122880\n")
dur = write("dur.txt", "step full 4\ndistributed full 11\n")
out = subprocess.run(
    [sys.executable, os.path.join(root, "bench", "report.py"), "--mode", "full", "--keep", old,
     "--step", step, "--distributed", dist, "--memory", mem, "--durations", dur,
     "--date", "2031-01-02"],
    capture_output=True, text=True)
check(out.returncode == 0, "report.py exits 0 (%d: %s)" % (out.returncode, out.stderr[-500:]))
page = out.stdout
sections = {}
head = None
for line in page.splitlines():
    if line.startswith("## "):
        head = line[3:]
        sections[head] = []
    elif head:
        sections[head].append(line)
text = {k: "\n".join(v) for k, v in sections.items()}

s = text.get("Time integration: one step against one solve with the factor", "")
check("ratio step_vs_cholmod_solve 2.345" in s, "the step section has this run's figure")
check("9.999" not in s, "the step section's old figure is gone")
check("Measured by `bench/run` (mode: full) on 2031-01-02" in s, "the step section is dated")
check("ratio output_every_10 1.030" in s and "ParaView time series" in s,
      "the step section has the output figures, explained")
check(text.get("Reduced models: measured by hand", "").strip() ==
      "A section bench/run does not write, kept as it is.",
      "a section written by hand in the page is kept word for word")

d = text.get("Time integration against Siconos 4.4 (MoreauJeanOSI)", "")
check("An old paragraph, kept word for word." in d and "ratio dynamics_vs_siconos 0.0652" in d,
      "a section not run is kept")
check("Kept from an earlier `bench/run`" in d, "a kept undated section says so")

t = text.get("Distributed: serial CHOLMOD against MUMPS on one and two ranks", "")
check("| 31,875 (625) | mpiexec -n 2 | 2.00 | 1.60 | 0.0800 | 400 |" in t, "the two-rank row")
check("| 31,875 (625) | 1.50 | 1.25 | 1.25 | 0.60 | 0.62 | 0.62 |" in t,
      "the speed-ups are the quotients of the times")
check("| 102,675 (1,369) | mpiexec -n 1 | failed or timed out |" in t, "a failed run is named")
check("| 102,675 (1,369) | - | - | - | - | - | - |" in t, "no speed-up without both runs")

m = text.get("Peak memory per benchmark", "")
check("| contact_vs_siconos | 3047 (2026-11-24, cap 10 s) |" in m, "a row not measured is kept")
check("| step_vs_cholmod_solve | 120 (2031-01-02) |" in m, "a row measured is replaced")
check("999" not in m, "the replaced row's old figure is gone")

u = text.get("Duration of each part", "")
check("| contact | 300 s (2030-05-05) | 60 s (2030-05-05) |" in u, "a part not run keeps its row")
check("| step | 4 s (2031-01-02) | 7 s (2030-05-05) |" in u,
      "a part run replaces its mode's cell and keeps the other mode's")
check("| distributed | 11 s (2031-01-02) | - |" in u, "a part new to the table gets a row")
check("| total | 315 s (5.2 min) | 67 s (1.1 min), parts missing |" in u,
      "the totals add the rows, and say when a mode lacks a part")

f = text.get("Current figures", "")
check(list(sections)[0] == "Current figures", "the current figures come first")
check("| step_vs_cholmod_solve | 2.345 | Time integration: one step against one solve with the "
      "factor |" in f and "| 2031-01-02 |" in f and "`bench/run --only step` |" in f,
      "a figure measured this run, dated, with its command")
check("9.999" not in f, "the re-measured figure's old row is gone")
check("| dynamics_vs_siconos | 0.0652 | Time integration against Siconos 4.4 (MoreauJeanOSI) |"
      in f and "| undated | - | `bench/run --only dynamics` |" in f,
      "a figure of a section not run is kept, undated as its section")
check("| brake_transient_reduced | 0.108 | Reduced models | the full model | 2026-11-30 | m | "
      "`bench/reduced_brake --full` |" in f, "a figure measured by hand keeps its row")
check(any(k.startswith("Distributed: a 10-million-dof model") for k in sections),
      "the section written by hand (bench/ON_PAPER.md) is copied in")
check("Contact solvers against Siconos 4.4" not in sections,
      "a part neither run nor in the old page has no section")

print("%d failed" % fails)
sys.exit(1 if fails else 0)
