#!/usr/bin/env python3
"""A GetFEM host for fcd: gmsh meshes a crowned polymer pad (E = 3 GPa), GetFEM assembles it, fcd
solves its frictional contact with a rigid plane along a press-then-shear path, and
GetFEM's own contact bricks solve the same problem beside it (fcd_getfem.py says how).

    getfem_host.py [--quick] [--out DIR]

Prints, per dimension and step, both codes' statuses, the largest difference of their
nodal contact forces, the discrete-law residuals of both answers and their solve times;
writes DIR/pad{2,3}d-*.vtu (GetFEM's own export: displacement, and the contact forces
of both codes) and, when gnuplot is there, DIR/getfem-host-traction.png, the 2D contact
pressure and shear traction of both codes along the pad after the press and after the
shear. Exits non-zero when the codes disagree or an answer violates the law.
"""
import argparse
import os
import shutil
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fcd_getfem as fg  # noqa: E402

MU, D, S = 0.3, 0.1, 0.05  # a polymer pad (E = 3 GPa) on steel; press 0.1 mm, shear 0.05
# fcd certifies its answers to 1e-8; GetFEM's Newton stops at a 1-norm residual of 1e-9
# relative to its load estimate, which on 22k dofs leaves nodal forces right to a few
# 1e-6 (the test, on small meshes, holds both to 1e-7)
AGREE, LAW, LAW_GF = 1e-5, 1e-7, 1e-5


def run(dim, h, out, steps_shear):
    msh = os.path.join(out, "pad%dd.msh" % dim)
    fg.mesh_pad(msh, dim, h)
    pad = fg.Pad(msh)
    print("%dD pad: %d nodes, %d dofs, %d contact nodes, element size %g mm"
          % (dim, pad.n // dim, pad.n, pad.nc, h))
    f, g = fg.FcdSolver(pad, MU), fg.GetfemBasic(pad, MU)
    path = [(D / 2, 0.0), (D, 0.0)] + [(D, S * k / steps_shear)
                                       for k in range(1, steps_shear + 1)]
    u_prev, ug_prev = np.zeros(pad.n), np.zeros(pad.n)
    ok, keep = True, {}
    print("  %-16s %-18s %9s %9s %9s %9s %9s" % ("step (d, s) mm", "open/stick/slip",
                                                "|dF|/F", "law fcd", "law gf", "fcd s",
                                                "getfem s"))
    for i, (d, s) in enumerate(path):
        u, _, status, tf = f.solve(d, s, u_prev)
        ug, tg, _ = g.solve(d, s, ug_prev)
        c = fg.compare(pad, MU, u, status, u_prev, ug, ug_prev)
        dF, same = c["force_difference"], c["same_status"]
        lf, lg = max(c["law_fcd"].values()), max(c["law_gf"].values())
        ok &= same and dF <= AGREE and lf <= LAW and lg <= LAW_GF and c["margin"] > 1
        counts = "%d/%d/%d" % (status.count("open"), status.count("stick"),
                               status.count("slip"))
        print("  (%.3f, %.4f)   %-13s%-5s %9.1e %9.1e %9.1e %9.4f %9.4f"
              % (d, s, counts, "" if same else " (!)", dF, lf, lg, tf, tg))
        F, Fg = pad.contact_forces(u), pad.contact_forces(ug)
        if i == 1:
            keep["press"] = (F, Fg)
        keep["shear"] = (F, Fg)
        u_prev, ug_prev = u, ug
        export(pad, out, "%dd-step%d" % (dim, i), u, F, Fg)
    return ok, pad, keep


def export(pad, out, tag, u, F, Fg):
    """GetFEM's own VTU export of the displacement and of both codes' contact forces
    (a nodal vector field, zero off the contact face)."""
    full, fullg = np.zeros(pad.n), np.zeros(pad.n)
    full[pad.cdofs.ravel()] = F.ravel()
    fullg[pad.cdofs.ravel()] = Fg.ravel()
    pad.mf.export_to_vtu(os.path.join(out, "pad%s.vtu" % tag), pad.mf, u, "displacement",
                         pad.mf, full, "contact_force_fcd", pad.mf, fullg,
                         "contact_force_getfem")


def plot(pad, keep, out):
    """Contact pressure and shear traction (force per node over its tributary length)
    along the 2D pad, fcd as points, GetFEM as lines."""
    if not shutil.which("gnuplot"):
        return None
    x = pad.cxyz[:, 0]
    order = np.argsort(x)
    xs = x[order]
    trib = np.gradient(xs)  # half the distance to each neighbour, summed
    dat = os.path.join(out, "getfem-host-traction.dat")
    with open(dat, "w") as fh:
        fh.write("# x_mm  p_fcd_press p_gf_press q_fcd_press q_gf_press "
                 "p_fcd_shear p_gf_shear q_fcd_shear q_gf_shear (N/mm per mm thickness)\n")
        cols = []
        for key in ("press", "shear"):
            F, Fg = keep[key]
            for A in (F, Fg):
                cols.append(A[order, 1] / trib)
            for A in (F, Fg):
                cols.append(A[order, 0] / trib)
        # reorder to p_fcd, p_gf, q_fcd, q_gf per stage
        for k in range(len(xs)):
            fh.write("%.6g %s\n" % (xs[k], " ".join("%.6g" % c[k] for c in cols)))
    png = os.path.join(out, "getfem-host-traction.png")
    script = """set terminal pngcairo size 900,520 font ',10'
set output '%s'
set xlabel 'x (mm)'; set ylabel 'traction (MPa)'; set key bottom right
set xrange [-4:4]
plot '%s' u 1:2 w p pt 7 ps 0.9 lc 1 t 'pressure after the press, fcd', \\
     '' u 1:3 w l lc 1 t 'GetFEM', \\
     '' u 1:6 w p pt 7 ps 0.9 lc 2 t 'pressure after the shear, fcd', \\
     '' u 1:7 w l lc 2 t 'GetFEM', \\
     '' u 1:8 w p pt 5 ps 0.9 lc 3 t 'shear traction after the shear, fcd', \\
     '' u 1:9 w l lc 3 t 'GetFEM'
""" % (png, dat)
    subprocess.run(["gnuplot"], input=script.encode(), check=True)
    return png


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="coarse meshes (CI)")
    ap.add_argument("--out", default="getfem-host", help="output directory")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    sizes = {2: 1.0, 3: 2.0} if a.quick else {2: 0.25, 3: 0.8}
    print("fcd %s from %s" % (fg.fcd.version(), fg.fcd.library_path))
    ok = True
    for dim in (2, 3):
        good, pad, keep = run(dim, sizes[dim], a.out, 3)
        ok &= good
        if dim == 2:
            png = plot(pad, keep, a.out)
            if png:
                print("  traction plot: %s" % png)
    print("agreement: %s" % ("yes" if ok else "NO"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
