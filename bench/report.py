#!/usr/bin/env python3
"""Writes docs/performance.md from the logs of `bench/run` (stdout).

Each part of `bench/run` gives its own log; a part that was not run this time
(`bench/run --only ...`) gives none, and its section is kept as it stands in the page
given by --keep (the previous docs/performance.md), with the date it was measured.
Sections written by hand (bench/ON_PAPER.md, bench/PROFILE.md) are copied in as they
are. usage: report.py --mode full|quick [--keep OLD.md] [--contact CSV LOG] [--step LOG]
[--small LOG] [--dynamics LOG] [--stability DIR] [--lattice LOG] [--kinematics LOG]
[--distributed LOG] [--getfem LOG] [--import LOG] [--scale LOG] [--memory LOG]
[--durations LOG] [--date YYYY-MM-DD]
"""
import argparse, contextlib, csv, datetime, io, math, os, re, sys

here = os.path.dirname(os.path.abspath(__file__))
ap = argparse.ArgumentParser()
ap.add_argument("--mode", default="full")
ap.add_argument("--keep")
ap.add_argument("--contact", nargs=2, metavar=("CSV", "LOG"))
ap.add_argument("--small")
ap.add_argument("--step")
ap.add_argument("--dynamics")
ap.add_argument("--stability")
ap.add_argument("--lattice")
ap.add_argument("--kinematics")
ap.add_argument("--distributed")
ap.add_argument("--getfem")
ap.add_argument("--import", dest="import_", metavar="LOG")
ap.add_argument("--scale")
ap.add_argument("--memory")
ap.add_argument("--durations")
ap.add_argument("--date", default=datetime.date.today().isoformat())
args = ap.parse_args()
cpu = "unknown CPU"
try:
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
except OSError:
    pass
STAMP = "Measured by `bench/run` (mode: %s) on %s, %s, %d cores." % (
    args.mode.strip("-"), args.date, cpu, os.cpu_count() or 0)


def captured(fn, *a):
    """The text a section's printer writes, as a string."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        fn(*a)
    return buf.getvalue().strip("\n") + "\n"


def contact(csv_path, log_path):
    rows = list(csv.DictReader(open(csv_path)))
    summary = [l for l in open(log_path).read().splitlines()
               if l.startswith("solved by both") or l.startswith("ratio ")]
    print("## Contact solvers against Siconos 4.4\n")
    print(STAMP + "\n")
    print("Every problem of the benchmark set (`-Dbench_data=DIR`; fclib HDF5, Siconos and LMGC90) and of its")
    print("`siconos-dat/` directory (Siconos text format, read by Siconos and converted in the")
    print("bench). Tolerance 1e-8 on Siconos' residual (natural map over ||q||), zero initial")
    print("guess, each solver in its own process with a time cap, each solve repeated from zero")
    print("up to 1,000 times within 0.2 s and the fastest kept, on both sides alike. fcd's figure is `auto`, the")
    print("solver a user gets; its other solvers (fixed-point, nsgs, newton, admm, prox) are")
    print("information. The")
    print("peer is Siconos' whole portfolio of Debian's build (17 fc3d solvers, 4 fc2d; the GAMS")
    print("ones are not built), each at its defaults with one setting changed for all: the")
    print("iteration cap raised to 100,000 so that the time cap ends a slow run. Per problem")
    print("the peer's time is its fastest solver that reaches the tolerance, as judged by the")
    print("same residual function; the ratio is fcd auto's time over it.\n")
    print("| problem | dim | contacts | fcd best | fcd s | fcd auto s | Siconos best | Siconos s | ratio |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        def f(x):
            v = float(x)
            return "-" if math.isinf(v) or math.isnan(v) else "%.4g" % v
        auto = f(r["fcd_auto_seconds"]) + ("" if r["fcd_auto_ok"] == "1" else " (no)")
        print("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["problem"], r["dim"], r["contacts"], r["fcd_best"], f(r["fcd_seconds"]), auto,
            r["siconos_best"], f(r["siconos_seconds"]), f(r["ratio"])))
    print()
    for l in summary:
        print("    " + l)
    print("\nTargets: fcd auto over the peer's best at most 0.3 in geometric mean over")
    print("the problems both solve; at most 1.0x on every problem where the peer's best takes")
    print(">= 1 ms; auto reaching the tolerance on every problem.")

    # Dolan-More performance profile over every solver of both sides: for each problem the
    # best time of any solver; rho_s(tau) = share of problems solver s solves within tau
    # times that best. Unsolved (failed, timed out) counts as never.
    per_path = csv_path + ".solvers"
    if args.mode.strip("-") == "quick":
        print("\nThe per-solver success rates and performance profile need every solver's own")
        print("time, which quick mode does not measure (it stops a solver that cannot be its")
        print("side's best): `bench/run --only contact` measures them.")
    elif os.path.exists(per_path):
        per = list(csv.DictReader(open(per_path)))
        probs = sorted({r["problem"] for r in per})
        best = {}
        for r in per:
            if r["ok"] == "1":
                t = max(float(r["seconds"]), 1e-7)
                best[r["problem"]] = min(best.get(r["problem"], math.inf), t)
        solvers = []
        for r in per:
            key = (r["side"], r["solver"])
            if key not in solvers:
                solvers.append(key)
        taus = [1, 2, 4, 10, 100]
        print("\n### Success rates and performance profile\n")
        print("Each solver on each of the %d problems (same tolerance and time cap). Solved: share"
              % len(probs))
        print("that reaches the tolerance at all. rho(tau): share solved within tau times the best")
        print("time any solver of either side took on that problem (Dolan and More, 2002).\n")
        print("| side | solver | solved | " + " | ".join("rho(%g)" % t for t in taus) + " |")
        print("|---|---|---|" + "---|" * len(taus))
        for side, solver in solvers:
            mine = {r["problem"]: r for r in per if r["side"] == side and r["solver"] == solver}
            ok = [p for p in probs if p in mine and mine[p]["ok"] == "1"]
            cells = []
            for t in taus:
                n = sum(1 for p in ok if max(float(mine[p]["seconds"]), 1e-7) <= t * best[p])
                cells.append("%.2f" % (n / len(probs)))
            print("| %s | %s | %d/%d | %s |" % (side, solver, len(ok), len(probs), " | ".join(cells)))
        for side in ("fcd", "siconos"):
            solved = {r["problem"] for r in per if r["side"] == side and r["ok"] == "1"}
            print("\n%s, best of its solvers: %d of %d problems solved." % (
                "fcd" if side == "fcd" else "Siconos", len(solved), len(probs)), end="")
        print()



def small(small_log):
    print("## Contact problems of one and two contacts\n")
    print(STAMP + "\n")
    print("`bench/small_contact`: the contact solve of every step of a small model.")
    print("The pin on a flat of `fcd demo` (seed 000, Ex. 4.6; mu = 2.2, h = 1e-3) run onto")
    print("its limit cycle, then 10^5 steps of Moreau-Jean and of the modified theta method")
    print("(time per step, fastest of 10 blocks); and two local problems solved 10^5 times")
    print("from zero by fcd's default (auto) and by each 2D solver of Siconos 4.4 (nsgs, cpg,")
    print("lemke, enum; the fastest kept, both sides timed alike): the pin's contact in a")
    print("sliding step (W of Moreau-Jean's iteration matrix) and Siconos' own two-contact")
    print("slider-crank problem FC2D_SliderCrankLagrangian00000 (both tangential rows of W")
    print("alike). The ratios are fcd auto over Siconos' fastest. Counted by callgrind and")
    print("memcheck on 10^4 steps of the modified theta method (noise-free, unlike the times):")
    print("a step of the pin costs 7.3k instructions and no heap allocation, the pin's contact")
    print("problem 1.5k instructions a solve, the slider-crank's 6.1k (Siconos' enum: 11.5k).\n")
    for l in open(small_log).read().splitlines():
        print("    " + l)


def step(step_log):
    print("## Time integration: one step against one solve with the factor\n")
    print(STAMP + "\n")
    print("`bench/step_cost`: a plane-strain block of linear triangles (1 m x 1 m, 100 x 100")
    print("cells, 20,402 dofs, consistent mass, E = 1e7 Pa), its bottom row of 101 nodes on a")
    print("rigid floor (mu = 0.3), sliding at 0.5 m/s under gravity, Moreau-Jean, h = 1e-4 s.")
    print("The cost of one step (after the first, which factors the iteration matrix and forms")
    print("the Delassus operator of every contact once) over one CHOLMOD solve with the factor")
    print("of the same matrix, steps and solves alternating in blocks, fastest block of each.\n")
    lines = open(step_log).read().splitlines()
    for l in lines:
        print("    " + l)
    print("\nTargets: a step at most 1.5 solves, and a first step at most 10 beyond the")
    print("factorization. `first_step_beyond_factor_vs_solve`: the first step less what")
    print("CHOLMOD's own analysis and factorization of the same matrix take in the same run, in")
    print("solves (the Delassus operator of every contact, the ordering with the contact dofs")
    print("last, the union pattern of K and M, one step), each the fastest of five on fresh")
    print("copies of the model (system, contacts, integrator), alternating. The process' own")
    print("first step is on the line `the process' first`: it pays the first touch of every")
    print("page it allocates, which the factorization measured after it finds in the heap;")
    print("measured first in its process, that factorization takes 1.3 times as long.")
    if any(l.startswith("ratio output_every") for l in lines):
        print("\nThe `output:` line: what a ParaView time series (`fcd_series`) adds, on")
        print("the same block, in blocks of steps alternating with those above: a frame after")
        print("every step, and one every 10 steps, each frame a VTK XML file with the points,")
        print("the cells and eight point arrays (displacement, velocity, the contact fields),")
        print("raw appended binary, and its line in the collection; beside it one legacy ASCII")
        print("file of displacement, velocity and contact status (`fcd_mesh_write_vtk`). The")
        print("`output_every_*` ratios are the step with its frames over the step alone, the")
        print("block's last frame flushed within its time. The frames are written by the")
        print("series' own thread while the steps run (the default); `within_call` is the")
        print("same with `fcd_series_set_async(s, 0)`, the file written inside each call.")


def dynamics(dyn_log):
    print("## Time integration against Siconos 4.4 (MoreauJeanOSI)\n")
    print(STAMP + "\n")
    print("`bench/dynamics_vs_siconos.py`: two point masses on springs fall on a rigid floor")
    print("(e = 0.4, mu = 0.3), bounce, slide and stop; theta = 1/2. fcd through ctypes,")
    print("Siconos through its Python kernel; the same steps in one call on each side")
    print("(`fcd_integrator_advance`, `TimeStepping.run`), best of 5.\n")
    for l in open(dyn_log).read().splitlines():
        print("    " + l)



def stability(stab_dir):
    print("## Stability analysis against scipy\n")
    print(STAMP + "\n")
    print("`bench/stability_block`: a 3D elastic block (1 x 1 x 0.5 m, six linear tetrahedra")
    print("per cell, consistent mass, E = 1e7 Pa) held at the top, every bottom node slipping")
    print("along x on a rigid flat (mu = 0.3): the non-symmetric reduced pencil of that state,")
    print("the 20 eigenvalues nearest 60 Hz. fcd: reduction, SLEPc Krylov-Schur with")
    print("shift-and-invert, MUMPS LU, best of three solves. scipy 1.10 (Debian): the same")
    print("reduced matrices exported, SuperLU of K* - sigma M* and ARPACK `eigs` on")
    print("(K* - sigma M*)^-1 M* (M* is not symmetric, so `eigs`' generalized mode does not")
    print("apply), best of three. Loading excluded on both sides.\n")
    for f in ("fcd.txt", "scipy.txt", "ratio.txt"):
        for l in open(os.path.join(stab_dir, f)).read().splitlines():
            print("    " + l)
    print("\nTarget: at most 0.2 (issue 89).\n")
    print("### Time and memory against size\n")
    print("The whole analysis (reduction, necessary condition, eigen-solve), best of two, and")
    print("the LU factorization alone of the shifted operator it factors (MUMPS through")
    print("PETSc, as in the solve), against the number of dofs.\n")
    print("| dofs | reduced | serial s | LU alone s | serial MB | mpiexec -n 1 s | mpiexec -n 2 s "
          "| speed-up over -n 1 | over serial | rank-0 MB |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    rows = {}
    import re
    for l in open(os.path.join(stab_dir, "scaling.txt")).read().splitlines():
        kind, _, rest = l.partition(" ")
        m = re.search(r"dofs=(\d+) reduced=(\d+) seconds=([\d.]+) maxrss_mb=([\d.]+)", rest)
        if not m:
            continue
        fm = re.search(r"factor_seconds=([\d.]+)", rest)
        rows.setdefault(int(m.group(1)), {})[kind] = (int(m.group(2)), float(m.group(3)),
                                                      float(m.group(4)),
                                                      float(fm.group(1)) if fm else None)
    xs, ys, fx, fy = [], [], [], []
    for n in sorted(rows):
        s1 = rows[n].get("serial")
        s0 = rows[n].get("mpi1")
        s2 = rows[n].get("mpi2")
        lu = s1[3] if s1 and s1[3] is not None and s1[3] > 0 else None
        print("| %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            n, s1[0] if s1 else "-", "%.2f" % s1[1] if s1 else "-",
            "%.2f" % lu if lu else "-",
            "%.0f" % s1[2] if s1 else "-", "%.2f" % s0[1] if s0 else "-",
            "%.2f" % s2[1] if s2 else "-",
            "%.2f" % (s0[1] / s2[1]) if s0 and s2 and s2[1] > 0 else "-",
            "%.2f" % (s1[1] / s2[1]) if s1 and s2 and s2[1] > 0 else "-",
            "%.0f" % s2[2] if s2 else "-"))
        if s1:
            xs.append(math.log(n))
            ys.append(math.log(s1[1]))
        if lu:
            fx.append(math.log(n))
            fy.append(math.log(lu))

    def fit(xs, ys):
        mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
        return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    if len(xs) >= 2:
        print("\nFitted exponent (serial time ~ n^p): p = %.2f for the whole analysis" % fit(xs, ys),
              end="")
        if len(fx) >= 2:
            print(", p = %.2f for the LU factorization alone." % fit(fx, fy))
        else:
            print(".")
    print("\nThe speed-up columns are one solve, its LU distributed by MUMPS: over mpiexec -n 1")
    print("(one core: mpiexec binds the rank, and OpenBLAS runs one thread) and over the serial")
    print("run (OpenBLAS' threads on both cores). A friction sweep on")
    print("two ranks shares its coefficients out instead (each rank solves its own): the")
    print("chart's figures are in docs/distributed.md (\"The stability chart\"), the whole")
    print("pipeline's tables in docs/distributed-measurements.md.")



def lattice(lat_log):
    print("## Lattices: sparse catch-up against dense projections\n")
    print(STAMP + "\n")
    print("`bench/lattice_vs_dense`: the 10 x 15 softening lattice of seed 001 (section 6.1.1),")
    print("fcd's implicit catch-up (sparse active-set projections, CHOLMOD) against the same")
    print("scheme with dense projections (the dense Schur system by LAPACK Cholesky, which is")
    print("cheaper than the author's general dense QP, so the ratio is conservative), the same")
    print("steps from the same state: the paper's 1000 steps in full mode. Then")
    print("fcd's 1000-step run (`fcd lattice`), a 100 x 100 lattice near its first yield, and")
    print("a 40 x 40 one (20 x 20 in quick mode) swept from its elastic state at t = 1.30 to its")
    print("first complete failure, its top pulled at the 10 x 15 lattice's strain rate, with")
    print("the default iteration (a piece's fixed point solved once its active set holds) and")
    print("with Picard alone (`bench/lattice_vs_dense --to-break N N [picard]`).\n")
    for l in open(lat_log).read().splitlines():
        print("    " + l)
    print("\nThe dense side is the seed's Algorithm 2, Picard iterations alone; fcd's figure is its")
    print("default, which solves a piece's fixed point once its active set holds, so the ratio")
    print("counts the iteration as well as the sparse projections (the iteration counts are on")
    print("the first line; the `lattice_break` lines show the iteration's share alone).")
    print("\nTarget: at least 50x faster, i.e. a ratio of at most 0.02.")



KIN_TEXT = """`bench/kinematics_cost`, measured in the same run. First the cost of
pairing two non-matching surfaces: two tetrahedral blocks, the upper one's bottom of
10,000 slave nodes (100 x 100) on the lower one's top of 119 x 119 squares, their
dual-mortar and node-to-facet rows (`fcd_contact_set_add_surface_pair`) against one
CHOLMOD factorization of the model's stiffness, the factorization every analysis of the
model starts with. Then general rows against node rows on a conforming model (two
blocks of 16 x 16 x 4 cells with matching interfaces, 289 contacts as node pairs or as
the library's dual-mortar rows): one Moreau-Jean step with every contact pressed, and
the stability analysis of the sliding state (20 eigenvalues near 60 Hz by SLEPc),
mortar over pairs. Targets: the last two ratios at most 1.2.
"""


def kinematics(kin_log):
    print("## Non-matching meshes: the cost of mortar rows\n")
    print(STAMP + "\n")
    print(KIN_TEXT)
    for l in open(kin_log).read().splitlines():
        print("    " + l)



DIST_TEXT = """`bench/distributed_block`: the 3D block of `bench/block_model.h` (1 x 1 x
0.5 m, six linear tetrahedra per cell, E = 1e7 Pa), its top face held, every bottom node
sliding along +x on a rigid flat (mu = 0.3): the steady-sliding equilibrium, then 20
Moreau-Jean steps (h = 1e-4 s) from it. The first step (the factorization of the
iteration matrix and the Delassus operator) is timed apart; "a step" is the mean of
the other 19. The serial run is what a user gets by default (CHOLMOD, OpenBLAS'
threads on both cores); `mpiexec` binds each rank to a core, so `mpiexec -n 1` is the
one-core run the two-rank speed-up is measured against. Times are the largest over the
ranks, memory the largest rank's peak. docs/distributed.md sums up what the figures
mean; docs/distributed-measurements.md has the whole pipeline (the stability chart and
1,000 steps) and how each figure was taken.
"""
DIST_FIELDS = ("equilibrium_seconds", "first_step_seconds", "step_seconds", "maxrss_mb")


def distributed(dist_log):
    print("## Distributed: serial CHOLMOD against MUMPS on one and two ranks\n")
    print(STAMP + "\n")
    print(DIST_TEXT)
    # a line a run: KIND CELLS then the bench's own line, or a word saying it failed
    runs, label, order = {}, {}, []
    for l in open(dist_log).read().splitlines():
        fields = l.split(" ", 2)
        if len(fields) < 2:
            continue
        kind, cells, rest = fields[0], fields[1], fields[2] if len(fields) > 2 else ""
        m = re.search(r"dofs=(\d+) contacts=(\d+)", rest)
        f = dict(re.findall(r"(\w+)=([0-9.]+)", rest))
        ok = m and all(k in f for k in DIST_FIELDS)
        runs.setdefault(cells, {})[kind] = {k: float(f[k]) for k in DIST_FIELDS} if ok else None
        if m:
            label[cells] = "{:,} ({:,})".format(int(m.group(1)), int(m.group(2)))
        if cells not in order:
            order.append(cells)
    names = (("serial", "serial (default)"), ("mpi1", "mpiexec -n 1"), ("mpi2", "mpiexec -n 2"))
    print("| dofs (contacts) | run | equilibrium s | first step s | a step s | peak MB a rank |")
    print("|---|---|---|---|---|---|")
    for cells in order:
        size = label.get(cells, cells.replace(",", " x ") + " cells")
        for kind, name in names:
            r = runs[cells].get(kind, None)
            if r is None:
                print("| %s | %s | failed or timed out | | | |" % (size, name))
            else:
                print("| %s | %s | %.2f | %.2f | %.4f | %.0f |" % (
                    size, name, r["equilibrium_seconds"], r["first_step_seconds"],
                    r["step_seconds"], r["maxrss_mb"]))
    print("\nSpeed-up of two ranks (time of the other run over the two ranks' time):\n")
    print("| dofs (contacts) | over -n 1: equilibrium | first step | a step "
          "| over serial: equilibrium | first step | a step |")
    print("|---|---|---|---|---|---|---|")
    for cells in order:
        size = label.get(cells, cells.replace(",", " x ") + " cells")
        two, row = runs[cells].get("mpi2"), []
        for kind in ("mpi1", "serial"):
            base = runs[cells].get(kind)
            for k in DIST_FIELDS[:3]:
                ok = base and two and two[k] > 0
                row.append("%.2f" % (base[k] / two[k]) if ok else "-")
        print("| %s | %s |" % (size, " | ".join(row)))
    # the figures of the largest size that ran on both sides, as ratios (the two ranks'
    # time over the other run's), for the page's table of current figures
    for cells in reversed(order):
        two, one, ser = (runs[cells].get(k) for k in ("mpi2", "mpi1", "serial"))
        if two and one and ser:
            print("\nThe largest size's equilibrium, two ranks' time over the other run's:\n")
            print("    ratio equilibrium_2_ranks_vs_1 %.4f" % (
                two["equilibrium_seconds"] / one["equilibrium_seconds"]))
            print("    ratio equilibrium_2_ranks_vs_serial %.4f" % (
                two["equilibrium_seconds"] / ser["equilibrium_seconds"]))
            break
    print("\nTarget: a speed-up of at least 1.5 at two ranks for the equilibrium "
          "at 100k dofs\nand more (over `mpiexec -n 1`), a ratio of at most 0.667.")


def getfem(gf_log):
    print("## Contact against GetFEM's own bricks\n")
    print(STAMP + "\n")
    print("`bench/getfem_peer.py`: the press-then-shear path of examples/hosts/getfem on")
    print("GetFEM's own discretization, and two non-matching cases (the contact patch test,")
    print("a cylinder on a flat), each answer checked against the other side's before it is")
    print("timed; ratios T_fcd / T_getfem (docs/examples/getfem-host.md).\n")
    for l in open(gf_log).read().splitlines():
        print("    " + l)


def memory(mem_log, old_rows):
    print("## Peak memory per benchmark\n")
    print("Peak resident set of each benchmark process and its children (getrusage, through")
    print("GNU time), in MB. A benchmark that runs both sides in one process (contacts: each")
    print("solver in a child; lattices; step cost) reports the larger of the two. Rows of")
    print("benchmarks this run did not measure are kept from the run that did.\n")
    print("| benchmark | peak MB |")
    print("|---|---|")
    rows = dict(old_rows)
    for l in open(mem_log).read().splitlines() if mem_log else []:
        parts = l.split()
        if len(parts) == 2 and parts[1].isdigit():
            rows[parts[0]] = "%.0f (%s)" % (int(parts[1]) / 1024, args.date)
    for name, value in rows.items():
        print("| %s | %s |" % (name, value))


DURATIONS = "Duration of each part"
PART_ORDER = ["contact", "small", "step", "dynamics", "stability", "lattice", "kinematics",
              "getfem", "distributed", "import", "scale"]


def old_durations(old):
    """the previous page's durations: {part: {mode: "N s (date)"}}"""
    rows = {}
    for line in old.get(DURATIONS, "").splitlines():
        m = re.match(r"\| (\w+) \| (.*) \| (.*) \|$", line)
        if m and m.group(1) in PART_ORDER:
            rows[m.group(1)] = {"full": m.group(2).strip(), "quick": m.group(3).strip()}
    return rows


def durations(log, old_rows):
    """each part's wall time in full and in quick mode, this run's and the kept ones"""
    rows = {p: dict(v) for p, v in old_rows.items()}
    for l in open(log).read().splitlines() if log else []:
        f = l.split()
        if len(f) == 3 and f[0] in PART_ORDER and f[1] in ("full", "quick"):
            rows.setdefault(f[0], {"full": "-", "quick": "-"})[f[1]] = "%s s (%s)" % (
                f[2], args.date)
    print("## %s\n" % DURATIONS)
    print("Wall seconds of each part of `bench/run`, in full mode and in quick mode")
    print("(`--quick`), each with the date it was measured; a part this run did not measure")
    print("keeps its row. The total adds the rows as they stand, so it mixes dates when")
    print("they differ. Quick mode's target: every part in at most 5 minutes together.\n")
    print("| part | full | quick |")
    print("|---|---|---|")
    tot = {"full": 0.0, "quick": 0.0}
    whole = {"full": True, "quick": True}
    for p in PART_ORDER:
        if p not in rows:
            continue
        for mode in tot:
            m = re.match(r"([0-9.]+) s", rows[p].get(mode, "-"))
            if m:
                tot[mode] += float(m.group(1))
            else:
                whole[mode] = False
        print("| %s | %s | %s |" % (p, rows[p].get("full", "-"), rows[p].get("quick", "-")))
    have = {mode: any(re.match(r"[0-9.]+ s", rows[p].get(mode, "-")) for p in rows)
            for mode in tot}
    cell = {mode: ("%.0f s (%.1f min)%s" % (tot[mode], tot[mode] / 60,
                                            "" if whole[mode] else ", parts missing")
                   if have[mode] else "-") for mode in tot}
    print("| total | %s | %s |" % (cell["full"], cell["quick"]))


def old_sections(path):
    """The previous page's level-2 sections, by heading, and its memory table's rows."""
    sections, rows, head = {}, {}, None
    if path and os.path.exists(path):
        for line in open(path).read().splitlines(keepends=True):
            if line.startswith("## "):
                head = line[3:].strip()
                sections[head] = ""
            if head:
                sections[head] += line
    for line in sections.get("Peak memory per benchmark", "").splitlines():
        m = re.match(r"\| (\S+) \| (.+) \|$", line)
        if m and m.group(1) not in ("benchmark", "---"):
            rows[m.group(1)] = m.group(2)
    return sections, rows


# each part of bench/run: its section's heading, and the peer its ratios are against
PEERS = {
    "contact": "Siconos 4.4, the best of its 21 solvers per problem",
    "small": "Siconos 4.4's best solver on each problem",
    "step": "one solve with CHOLMOD's factor (no peer: the step's own floor)",
    "dynamics": "Siconos 4.4's MoreauJeanOSI",
    "stability": "scipy (ARPACK shift-and-invert, and LAPACK)",
    "lattice": "a dense QP per projection (the seed's Algorithm 2 as a QP)",
    "kinematics": "node-to-node pairs on matching meshes",
    "getfem": "GetFEM's own contact bricks",
    "distributed": "mpiexec -n 1 (one core), and the serial default (CHOLMOD on two threads)",
    "import": "scipy.io.mmread, scipy.io.hb_read; fcd's Matrix Market reader; dd iflag=direct",
    "scale": "the full model (fcd, the same process); step_over_floor: the reduced step's "
             "dense passes alone",
}
FIGURES = "Current figures"


def import_(log):
    print("## Reading engineers' matrix files\n")
    print(STAMP + "\n")
    print("`bench/import_bench.py`: one generated stiffness matrix (a 3D 7-point Laplacian, its")
    print("lower triangle) written in each format fcd reads, read by `fcd_matrix_file_read` (the")
    print("format told from the content; `bench/import_read`, best of 3). scipy's `mmread` and")
    print("`hb_read` read the Matrix Market and Harwell-Boeing files in the same run (best of 2).")
    print("The `_vs_fcd_mm` ratios are a format's read time over fcd's Matrix Market reader on")
    print("the same matrix (the files differ in size: Abaqus and DMIG write longer lines); the")
    print("OP4 ratio is the binary read over reading the file's bytes from the disk past the")
    print("page cache (`dd iflag=direct`).")
    print("`peak_over_storage` is the peak resident memory the read added over the triplets it")
    print("returns (two 64-bit indices and a double an entry, two dof bytes by label).\n")
    for l in open(log).read().splitlines():
        print("    " + l)
    print("\nTargets (issue 85): at least 150 MB/s for a text reader and within 1.5x of the")
    print("Matrix Market reader; binary OP4 at the disk's speed; peak memory at most 1.5x the")
    print("storage.\n")
    print("Where the time goes: lines are found by `memchr` in 64 KiB blocks; a number is read")
    print("in place, exactly: a decimal of up to 19 digits within 10^±27 is one IEEE operation")
    print("(Clinger's fast path), or one x87 64-bit operation whose result is kept only when it")
    print("cannot be a tie of two doubles (the digits %.17g writes), everything else going to")
    print("`strtod` (`tests/import/test_textio.c` checks 2.6 million numbers, ties included,")
    print("against it bit for bit); DMIG's large-field terms are read from their columns in")
    print("place; labelled dofs are counted by a bitmap of the label range; binary OP4 records")
    print("are read by the megabyte and their doubles copied as they are, the NaN and")
    print("one-triangle checks made on each run as it is copied. The disk's figure is the page")
    print("cache's bypass: the reader's own read goes through the page cache, so a ratio near 1")
    print("is the reader costing about what one copy of the file costs.")


def scale(log):
    """the brake at industrial sizes: each refinement's reduced model against its full one"""
    print("## The brake at industrial sizes\n")
    print(STAMP + "\n")
    print("`bench/brake_scale --refine R --relative --coarsen 2 --shape --modes 300 --full --mu")
    print("0.6,0.3,0.275,0.325,...,0.75 --full-chart 2 --steps 30000 --full-steps 300 --orbit`:")
    print("the brake with two pads of `bench/brake_pads.h` refined R times in every direction,")
    print("reduced (relative interface, every other pair kept and the others tied to them, the")
    print("pushed backs one coordinate, 300 fixed-interface modes), and the reduced model against")
    print("the full one in the same process: the steady sliding equilibrium at mu = 0.6, the")
    print("stability chart about it at 20 friction coefficients from 0.275 to 0.75 (the 60")
    print("eigenvalues nearest 3 kHz each, SLEPc on the full model, dense on the reduced one),")
    print("the 0.3 s transient (30,000 Moreau-Jean steps, modified theta, h = 1e-5) from the")
    print("equilibrium along the most unstable mode, and its limit cycle by shooting from the")
    print("transient's end (`fcd_periodic`, the transient's period as the guess; quick mode:")
    print("3,000 steps, the flutter's growth, and no orbit). The full model")
    print("does what fits the run's hours: the equilibrium, two of the coefficients (0.6 and")
    print("0.3) and 300 steps; its chart and its transient would take 20 solves and 30,000")
    print("steps of the times shown. Ratios are the reduced model's time over the full one's (a")
    print("solve, a step); the reduction's own time is a column. The process peak includes the")
    print("full model's runs. The pairs: at mu = 0.3 the least damped, at mu = 0.6 the most")
    print("unstable, the reduced model's nearest in frequency against the full one's. The")
    print("larger refinements (471,264 and 1,060,974 dofs) are measured by their own commands")
    print("(\"The brake refined in every direction\", below). The reduced step's dense floor is")
    print("what its dense arrays cost read once each, alone (`bench/dense_floor.h`: K, M and C")
    print("by fcd's products, the iteration matrix's factor forward and backward, the contacts'")
    print("Delassus operator W; `scale_step_over_floor`: the reduced step over it).\n")
    runs, cur = [], None
    for line in open(log).read().splitlines():
        if line.startswith("refine=") and "dofs=" in line:
            cur = {"head": dict(re.findall(r"(\w+)=([^ ]+)", line)), "eig": {}, "stab": {}}
            runs.append(cur)
        elif cur is None:
            continue
        elif line.startswith("reduction "):
            cur["red"] = dict(re.findall(r"(\w+)=([^ ]+)", line))
        elif line.startswith(("equilibrium ", "steps ", "chart ", "floor ")):
            w = line.split()
            cur.setdefault(w[0], {})[w[1]] = dict(re.findall(r"(\w+)=([^ ]+)", line))
        elif line.startswith("orbit ") and "status=" in line:
            w = line.split()
            cur.setdefault("orbit", {})[w[1]] = dict(re.findall(r"(\w+)=([^ ]+)", line))
        elif line.startswith("stability "):
            w = line.split()
            f = dict(re.findall(r"(\w+)=([^ ]+)", line))
            t, n = cur["stab"].get(w[1], (0.0, 0))
            cur["stab"][w[1]] = (t + float(f["seconds"]), n + 1)
        elif line.startswith("eig "):
            w = line.split()
            cur["eig"].setdefault((w[1], w[2]), []).append((float(w[3]), float(w[4])))
        elif "failed" in line:
            cur["failed"] = line
    print("| dofs | pairs | kept | reduction | process peak | equilibrium full / reduced | "
          "a stability solve full / reduced | chart (reduced) | step full / reduced | "
          "transient (reduced) | limit cycle (reduced) | mu = 0.3, least damped pair | "
          "mu = 0.6, most unstable pair |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    ratios = []
    for r in runs:
        h, red, n = r["head"], r.get("red", {}), r["head"]["dofs"]
        def pair(key, unit, fmt="%.2f"):
            d = r.get(key, {})
            f, q = d.get("full", {}), d.get("reduced", {})
            k = "ms_per_step" if key == "steps" else "seconds"
            if k in f and k in q:
                ratios.append("ratio scale_%s_%s %.3f" % (key, n, float(q[k]) / float(f[k])))
                return (fmt + " / " + fmt + " %s") % (float(f[k]), float(q[k]), unit)
            return "-"
        def lead(mu):
            full = sorted(r["eig"].get(("full", mu), []), key=lambda e: -e[0])
            redu = r["eig"].get(("reduced", mu), [])
            if not full or not redu:
                return "-"
            re_f, hz_f = full[0]
            re_r, hz_r = min(redu, key=lambda e: abs(e[1] - hz_f))
            return "%.2f Hz %+.3f %%, %.2f s^-1 %+.2f %%" % (
                hz_f, 100 * (hz_r - hz_f) / hz_f, re_f, 100 * (re_r - re_f) / abs(re_f))
        stab = "-"
        if "full" in r["stab"] and "reduced" in r["stab"]:
            (tf, nf), (tr, nr) = r["stab"]["full"], r["stab"]["reduced"]
            sf, sr = tf / nf, tr / nr
            ratios.append("ratio scale_stability_%s %.3f" % (n, sr / sf))
            stab = "%.2f / %.2f s" % (sf, sr)
        c = r.get("chart", {}).get("reduced")
        chart = "%s s (%s coefficients)" % (c["seconds"], c["coefficients"]) if c else "-"
        step = pair("steps", "ms", "%.1f")
        fl = r.get("floor", {}).get("reduced")
        if fl and step != "-":
            step += " (its dense floor %.2f ms)" % float(fl["floor_ms"])
            ratios.append("ratio scale_step_over_floor_%s %.2f" % (n, float(fl["step_over_floor"])))
        t = r.get("steps", {}).get("reduced")
        tran = "-"
        if t:
            tran = "%.0f s (%s steps), %.1f Hz" % (float(t["seconds"]), t["steps"],
                                                  float(t["hz"]))
        o = r.get("orbit", {}).get("reduced")
        orb = "-"
        if o:
            orb = "%.0f s, %s Newton iterations, %.1f Hz, residual %s" % (
                float(o["seconds"]), o["iterations"], float(o["hz"]), o["residual"])
            if o["status"] != "success":
                orb += " (not converged)"
        print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            "{:,}".format(int(n)), h.get("contacts", "-"), red.get("kept", "-"),
            (red["seconds"] + " s") if "seconds" in red else r.get("failed", "-"),
            (red["peak_gib"] + " GiB") if "peak_gib" in red else "-",
            pair("equilibrium", "s"), stab, chart, step, tran, orb,
            lead("0.300"), lead("0.600")))
    print()
    for l in ratios:
        print("    " + l)


def stamp_of(text):
    """(date, machine) of a section's 'Measured by' line, or None"""
    m = re.search(r"Measured by `bench/run` \(mode: \w+\) on (\S+), (.+?), (\d+) cores\.",
                  text)
    return (m.group(1), "%s, %s cores" % (m.group(2), m.group(3))) if m else None


def figure_rows(part, head, text):
    """the rows of the current-figures table for one section: one per ratio line"""
    st = stamp_of(text) or ("undated", "-")
    rows = []
    for m in re.finditer(r"^\s*ratio (\S+) (\S+)", text, re.M):
        rows.append((m.group(1), "| %s | %s | %s | %s | %s | %s | `bench/run --only %s` |"
                     % (m.group(1), m.group(2), head, PEERS.get(part, "-"), st[0], st[1], part)))
    return rows


def old_figure_rows(old):
    """the previous page's current-figures rows not written by bench/run's parts (figures
    measured by hand, with their own command), by name"""
    rows = {}
    for line in old.get(FIGURES, "").splitlines():
        m = re.match(r"\| (\S+) \|", line)
        if m and m.group(1) not in ("figure", "---") and "`bench/run --only" not in line:
            rows[m.group(1)] = line
    return rows


def figures_table(rows, hand):
    """the page's first section: every figure, its ratio, what and against whom, when
    and where, and the command that measures it again"""
    out = ["## %s\n" % FIGURES,
           "Ratios fcd / peer (below 1: fcd is faster), one row per figure; each section below",
           "says how it is measured. Rows of parts this run did not measure keep their date;",
           "rows measured by hand name their own command.\n",
           "| figure | ratio | what | against | measured | machine | reproduce |",
           "|---|---|---|---|---|---|---|"]
    out += [r for _, r in rows]
    out += list(hand.values())
    return "\n".join(out) + "\n"


def from_file(name):
    path = os.path.join(here, name)
    return open(path).read().strip("\n") + "\n" if os.path.exists(path) else None


def page():
    old, mem_rows = old_sections(args.keep)
    parts = [
        ("Contact solvers against Siconos 4.4", contact, args.contact, "contact"),
        ("Contact problems of one and two contacts", small, args.small, "small"),
        ("Time integration: one step against one solve with the factor", step, args.step,
         "step"),
        ("Time integration against Siconos 4.4 (MoreauJeanOSI)", dynamics, args.dynamics,
         "dynamics"),
        ("Stability analysis against scipy", stability, args.stability, "stability"),
        ("Lattices: sparse catch-up against dense projections", lattice, args.lattice,
         "lattice"),
        ("Non-matching meshes: the cost of mortar rows", kinematics, args.kinematics,
         "kinematics"),
        ("Contact against GetFEM's own bricks", getfem, args.getfem, "getfem"),
        ("Distributed: serial CHOLMOD against MUMPS on one and two ranks", distributed,
         args.distributed, "distributed"),
        ("Reading engineers' matrix files", import_, args.import_, "import"),
        ("The brake at industrial sizes", scale, args.scale, "scale"),
    ]
    out = ["# Performance\n\nWritten by `bench/run`. fcd and its peer run in the same "
           "invocation on the same\nmachine; figures are ratios fcd / peer (below 1: fcd is "
           "faster). The first table holds\nevery current figure with its date, machine and "
           "command; a section per benchmark\nfollows, saying what is measured and how. "
           "`bench/run --only PARTS` measures some\nparts and keeps the others as they were. "
           "How the figures were reached is in\nCHANGELOG.md and the history of this "
           "page.\n"]
    rows = []
    for head, fn, given, part in parts:
        text = None
        if given:
            text = captured(fn, *(given if isinstance(given, list) else [given]))
        elif head in old:
            text = old[head].strip("\n") + "\n"
            if "Measured by" not in text:
                lines = text.split("\n", 2)
                text = "\n".join([lines[0], "", "Kept from an earlier `bench/run` (that page "
                                  "did not date its sections).", ""] + lines[2:])
        if text:
            out.append(text)
            rows += figure_rows(part, head, text)
    out.insert(1, figures_table(rows, old_figure_rows(old)))
    text = from_file("ON_PAPER.md")
    if text:
        out.append(text)
    # sections written by hand in the page itself (the reduced models' measurements, made
    # by bench/reduced_brake runs of hours that bench/run does not repeat): kept as they are
    made = {h for h, _, _, _ in parts} | {"Peak memory per benchmark", FIGURES, DURATIONS}
    for name in ("ON_PAPER.md", "PROFILE.md"):
        t = from_file(name)
        if t and t.startswith("## "):
            made.add(t.split("\n", 1)[0][3:].strip())
    for head, text in old.items():
        if head not in made:
            out.append(text.strip("\n") + "\n")
    if args.memory or mem_rows:
        out.append(captured(memory, args.memory, mem_rows))
    dur_rows = old_durations(old)
    if args.durations or dur_rows:
        out.append(captured(durations, args.durations, dur_rows))
    text = from_file("PROFILE.md")
    if text:
        out.append(text)
    sys.stdout.write("\n".join(out))


page()
