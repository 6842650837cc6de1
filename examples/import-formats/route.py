#!/usr/bin/python3
"""One model through every format fcd reads (docs/examples/import-formats.md).

Two elastic blocks of trilinear hexahedra stacked at z = 0.5 with a non-matching
interface (3 x 3 x 2 below, 4 x 4 x 2 above), node labels 1001.. below and 2001.. above,
the lower block's bottom held, a pressure on the upper block's top, dual mortar with
Coulomb friction across the interface named by the mesh. This program writes the stiffness
and mass in each matrix format (Matrix Market, Harwell-Boeing with an ANSYS .mapping,
Abaqus matrix input and coordinate, Nastran DMIG, Nastran OP4 ASCII and binary) and the
mesh in each mesh format (Gmsh MSH 4.1, Abaqus .inp, Nastran bulk data, VTK XML, legacy
VTK 5.1), then runs the program on each pair: `fcd info --nev 6`, `fcd equilibrium`,
`fcd stability` over a friction sweep. Every route must give the same numbers.

usage: route.py [--quick] --out DIR      (FCD_EXE names the program; default `fcd`)
"""
import itertools
import os
import struct
import subprocess
import sys

import numpy as np
import scipy.sparse as sp

E, NU, RHO, P, MU = 1e7, 0.3, 1000.0, 2e4, 0.3
HEX = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0],
                [0, 0, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1]])


def block(nx, nz, z0, label0):
    """Nodes (label, x, y, z) and hexahedra (labels, VTK's order) of a 1 x 1 x 0.5 block."""
    nodes, cells = [], []
    lab = lambda i, j, k: label0 + i + (nx + 1) * (j + (nx + 1) * k)
    for k in range(nz + 1):
        for j in range(nx + 1):
            for i in range(nx + 1):
                nodes.append((lab(i, j, k), i / nx, j / nx, z0 + 0.5 * k / nz))
    for k, j, i in itertools.product(range(nz), range(nx), range(nx)):
        cells.append([lab(i + a, j + b, k + c) for a, b, c in HEX])
    return nodes, cells


def elasticity():
    lam, G = E * NU / ((1 + NU) * (1 - 2 * NU)), E / (2 * (1 + NU))
    D = np.zeros((6, 6))
    D[:3, :3] = lam
    D[np.arange(3), np.arange(3)] += 2 * G
    D[np.arange(3, 6), np.arange(3, 6)] = G
    return D


def assemble(xyz, cells):
    """K and M of trilinear hexahedra (2 x 2 x 2 Gauss), consistent mass."""
    D, s, g = elasticity(), 2 * HEX - 1, np.array([-1, 1]) / np.sqrt(3)
    rows, cols, kv, mv = [], [], [], []
    for ids in cells:
        X = xyz[ids]
        Ke, Me = np.zeros((24, 24)), np.zeros((24, 24))
        for xi, eta, zeta in itertools.product(g, g, g):
            N = (1 + s[:, 0] * xi) * (1 + s[:, 1] * eta) * (1 + s[:, 2] * zeta) / 8
            dN = np.array([s[:, 0] * (1 + s[:, 1] * eta) * (1 + s[:, 2] * zeta),
                           s[:, 1] * (1 + s[:, 0] * xi) * (1 + s[:, 2] * zeta),
                           s[:, 2] * (1 + s[:, 0] * xi) * (1 + s[:, 1] * eta)]) / 8
            J = dN @ X
            dx = np.linalg.solve(J, dN)
            B = np.zeros((6, 24))
            for a in range(8):
                B[0, 3 * a], B[1, 3 * a + 1], B[2, 3 * a + 2] = dx[:, a]
                B[3, 3 * a], B[3, 3 * a + 1] = dx[1, a], dx[0, a]
                B[4, 3 * a + 1], B[4, 3 * a + 2] = dx[2, a], dx[1, a]
                B[5, 3 * a], B[5, 3 * a + 2] = dx[2, a], dx[0, a]
            w = np.linalg.det(J)
            Ke += B.T @ D @ B * w
            for c in range(3):
                Me[c::3, c::3] += RHO * np.outer(N, N) * w
        dofs = (3 * np.array(ids)[:, None] + np.arange(3)).reshape(-1)
        rows.append(np.repeat(dofs, 24))
        cols.append(np.tile(dofs, 24))
        kv.append(Ke.reshape(-1))
        mv.append(Me.reshape(-1))
    n = 3 * len(xyz)
    r, c = np.concatenate(rows), np.concatenate(cols)
    return (sp.csr_matrix((np.concatenate(kv), (r, c)), shape=(n, n)),
            sp.csr_matrix((np.concatenate(mv), (r, c)), shape=(n, n)))


def model():
    lo_n, lo_c = block(3, 2, 0.0, 1001)
    up_n, up_c = block(4, 2, 0.5, 2001)
    nodes = lo_n + up_n
    labels = np.array([n[0] for n in nodes])
    index = {l: p for p, l in enumerate(labels)}
    xyz = np.array([n[1:] for n in nodes])
    cells = [[index[l] for l in c] for c in lo_c + up_c]
    K, M = assemble(xyz, cells)
    return labels, xyz, cells, len(lo_c), K, M


def faces(xyz, cells, ncells_lower):
    """The four named faces, as (cell, corner list) quads turned outward."""
    out = {"lower_top": [], "upper_bottom": [], "upper_top": [], "lower_bottom": []}
    for e, c in enumerate(cells):
        lower = e < ncells_lower
        for name, loc, z in (("top", [4, 5, 6, 7], 1), ("bottom", [0, 3, 2, 1], 0)):
            f = [c[k] for k in loc]
            want = (0.5 if lower else 1.0) if z else (0.0 if lower else 0.5)
            if np.allclose(xyz[f, 2], want):
                out[("lower_" if lower else "upper_") + name].append(f)
    return out


# ---------------------------------------------------------------- matrix writers


def lower(A):
    T = sp.tril(A).tocoo()
    o = np.lexsort((T.row, T.col))
    return T.row[o], T.col[o], T.data[o]


def write_mm(path, A):
    r, c, v = lower(A)
    with open(path, "w") as f:
        f.write("%%%%MatrixMarket matrix coordinate real symmetric\n%d %d %d\n"
                % (A.shape[0], A.shape[0], len(v)))
        f.writelines("%d %d %.17g\n" % (i + 1, j + 1, x) for i, j, x in zip(r, c, v))


def fixed_cards(values, per, fmt, width):
    lines = []
    for k in range(0, len(values), per):
        lines.append("".join(fmt % x for x in values[k:k + per]).ljust(per * width) + "\n")
    return lines


def write_hb(path, A, labels):
    """Harwell-Boeing RSA with (8I10) pointers and indices, (3E26.18) values; and the
    .mapping ANSYS' HBMAT writes beside it (equation, node, dof name)."""
    r, c, v = lower(A)
    n = A.shape[0]
    ptr = np.searchsorted(c, np.arange(n + 1)) + 1
    pl, il, vl = (fixed_cards(ptr, 8, "%10d", 80), fixed_cards(r + 1, 8, "%10d", 80),
                  fixed_cards(v, 3, "%26.18E", 78))
    with open(path, "w") as f:
        f.write("%-72s%-8s\n" % ("two blocks, by route.py", "BLOCKS"))
        f.write("%14d%14d%14d%14d\n" % (len(pl) + len(il) + len(vl), len(pl), len(il), len(vl)))
        f.write("%-3s%11s%14d%14d%14d\n" % ("RSA", "", n, n, len(v)))
        f.write("%-16s%-16s%-20s\n" % ("(8I10)", "(8I10)", "(3E26.18)"))
        f.writelines(pl + il + vl)
    with open(os.path.splitext(path)[0] + ".mapping", "w") as f:
        f.write("Matrix Eqn   Node   DOF\n")
        for i in range(n):
            f.write("%10d %10d %6s\n" % (i + 1, labels[i // 3], ("UX", "UY", "UZ")[i % 3]))


def write_abaqus(path, A, labels):
    r, c, v = lower(A)
    with open(path, "w") as f:
        f.writelines("%d,%d, %d,%d, %.17e\n" % (labels[i // 3], i % 3 + 1, labels[j // 3],
                                                 j % 3 + 1, x) for i, j, x in zip(r, c, v))


def write_coordinate(path, A):
    r, c, v = lower(A)
    with open(path, "w") as f:
        f.writelines("%d,%d, %.17e\n" % (i + 1, j + 1, x) for i, j, x in zip(r, c, v))


def write_dmig(path, mats, labels):
    """A punch file of several matrices, large field, form 6, TIN 2, D exponents."""
    with open(path, "w") as f:
        for name, A in mats:
            r, c, v = lower(A)
            f.write("DMIG    %-8s       0       6       2       0%24d\n" % (name, A.shape[0]))
            for j in np.unique(c):
                f.write("DMIG*   %-16s%16d%16d\n" % (name, labels[j // 3], j % 3 + 1))
                for k in np.flatnonzero(c == j):
                    f.write("*       %16d%16d%s\n" % (labels[r[k] // 3], r[k] % 3 + 1,
                                                      ("%16.9E" % v[k]).replace("E", "D")))


def runs(rows):
    brk = np.flatnonzero(np.diff(rows) != 1) + 1
    return list(zip(np.r_[0, brk], np.r_[brk, len(rows)]))


def write_op4_ascii(path, mats):
    with open(path, "w") as f:
        for name, A in mats:
            r, c, v = lower(A)
            n = A.shape[0]
            f.write("%8d%8d%8d%8d%-8s1P,3E23.16\n" % (n, n, 6, 2, name))
            for j in range(n):
                k = np.flatnonzero(c == j)
                for a, b in runs(r[k]):
                    f.write("%8d%8d%8d\n" % (j + 1, r[k[a]] + 1, b - a))
                    f.writelines(fixed_cards(v[k[a:b]], 3, "%23.16E", 69))
            f.write("%8d%8d%8d\n%23.16E\n" % (n + 1, 1, 1, 1.0))


def write_op4_binary(path, mats):
    """Little-endian Fortran records, BIGMAT sparse columns: runs opened by (L + 1, row)."""
    rec = lambda b: struct.pack("<i", len(b)) + b + struct.pack("<i", len(b))
    with open(path, "wb") as f:
        for name, A in mats:
            r, c, v = lower(A)
            n = A.shape[0]
            f.write(rec(struct.pack("<4i", n, -n, 6, 2) + name.ljust(8).encode()))
            for j in range(n):
                k = np.flatnonzero(c == j)
                body = b"".join(struct.pack("<2i", 2 * (b - a) + 1, r[k[a]] + 1) +
                                v[k[a:b]].astype("<f8").tobytes() for a, b in runs(r[k]))
                f.write(rec(struct.pack("<3i", j + 1, 0, len(body) // 4) + body))
            f.write(rec(struct.pack("<3i", n + 1, 1, 2) + struct.pack("<d", 1.0)))


# ---------------------------------------------------------------- mesh writers

PHYS = {"lower_top": 3, "upper_bottom": 4, "upper_top": 5, "lower_bottom": 6}


def write_gmsh(path, labels, xyz, cells, fc):
    with open(path, "w") as f:
        f.write("$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$PhysicalNames\n%d\n" % len(PHYS))
        f.writelines('2 %d "%s"\n' % (t, n) for n, t in PHYS.items())
        f.write("$EndPhysicalNames\n$Entities\n0 0 %d 1\n" % len(PHYS))
        for n, t in PHYS.items():
            f.write("%d 0 0 0 1 1 1 1 %d 0\n" % (t, t))
        f.write("1 0 0 0 1 1 1 0 0\n$EndEntities\n")
        f.write("$Nodes\n1 %d %d %d\n3 1 0 %d\n" % (len(labels), labels.min(), labels.max(),
                                                     len(labels)))
        f.writelines("%d\n" % l for l in labels)
        f.writelines("%.17g %.17g %.17g\n" % tuple(p) for p in xyz)
        f.write("$EndNodes\n")
        nface = sum(len(v) for v in fc.values())
        f.write("$Elements\n%d %d 1 %d\n" % (len(PHYS) + 1, len(cells) + nface, len(cells) + nface))
        eid = 1
        for n, t in PHYS.items():
            f.write("2 %d 3 %d\n" % (t, len(fc[n])))
            for q in fc[n]:
                f.write("%d %s\n" % (eid, " ".join(str(labels[i]) for i in q)))
                eid += 1
        f.write("3 1 5 %d\n" % len(cells))
        for c in cells:
            f.write("%d %s\n" % (eid, " ".join(str(labels[i]) for i in c)))
            eid += 1
        f.write("$EndElements\n")


def write_inp(path, labels, xyz, cells, fc, ncells_lower):
    """Abaqus: the contact surfaces by element faces (S2 the top of a C3D8, S1 its bottom)."""
    with open(path, "w") as f:
        f.write("*HEADING\ntwo blocks, by route.py\n*NODE, NSET=NALL\n")
        f.writelines("%d, %.17g, %.17g, %.17g\n" % ((labels[p],) + tuple(xyz[p]))
                     for p in range(len(labels)))
        f.write("*ELEMENT, TYPE=C3D8, ELSET=LOWER\n")
        for e, c in enumerate(cells):
            if e == ncells_lower:
                f.write("*ELEMENT, TYPE=C3D8, ELSET=UPPER\n")
            f.write("%d, %s\n" % (e + 1, ", ".join(str(labels[i]) for i in c)))
        for name, face in (("lower_top", "S2"), ("upper_bottom", "S1"), ("upper_top", "S2"),
                           ("lower_bottom", "S1")):
            f.write("*SURFACE, NAME=%s, TYPE=ELEMENT\n" % name.upper())
            for e, c in enumerate(cells):
                hit = {"S2": [c[k] for k in (4, 5, 6, 7)], "S1": [c[k] for k in (0, 1, 2, 3)]}[face]
                if sorted(hit) in [sorted(q) for q in fc[name]]:
                    f.write("%d, %s\n" % (e + 1, face))


def write_bulk(path, labels, xyz, cells, fc):
    """Nastran: large-field GRIDs, CHEXA with continuations, CQUAD4 faces by property."""
    with open(path, "w") as f:
        f.write("$ two blocks, by route.py\nBEGIN BULK\n")
        for p in range(len(labels)):
            f.write("GRID*   %16d%16s%16.9E%16.9E\n*       %16.9E\n"
                    % (labels[p], "", xyz[p, 0], xyz[p, 1], xyz[p, 2]))
        eid = 1
        for c in cells:
            g = [labels[i] for i in c]
            f.write("CHEXA   %8d%8d%8d%8d%8d%8d%8d%8d+\n+       %8d%8d\n"
                    % ((eid, 1) + tuple(g)))
            eid += 1
        for n, t in PHYS.items():
            for q in fc[n]:
                f.write("CQUAD4  %8d%8d%8d%8d%8d%8d\n" % ((eid, t) + tuple(labels[i] for i in q)))
                eid += 1
        f.write("ENDDATA\n")


def write_vtu(path, xyz, cells, fc):
    quads = [(q, PHYS[n]) for n in PHYS for q in fc[n]]
    conn = [c for c in cells] + [q for q, _ in quads]
    with open(path, "w") as f:
        f.write('<?xml version="1.0"?>\n<VTKFile type="UnstructuredGrid" version="0.1" '
                'byte_order="LittleEndian">\n<UnstructuredGrid>\n<Piece NumberOfPoints="%d" '
                'NumberOfCells="%d">\n<CellData>\n<DataArray type="Int32" Name="physical" '
                'format="ascii">\n%s\n</DataArray>\n</CellData>\n<Points>\n<DataArray '
                'type="Float64" NumberOfComponents="3" format="ascii">\n%s\n</DataArray>\n'
                '</Points>\n<Cells>\n<DataArray type="Int64" Name="connectivity" format="ascii">'
                '\n%s\n</DataArray>\n<DataArray type="Int64" Name="offsets" format="ascii">\n%s\n'
                '</DataArray>\n<DataArray type="UInt8" Name="types" format="ascii">\n%s\n'
                '</DataArray>\n</Cells>\n</Piece>\n</UnstructuredGrid>\n</VTKFile>\n'
                % (len(xyz), len(conn), " ".join(["1"] * len(cells) + [str(t) for _, t in quads]),
                   "\n".join("%.17g %.17g %.17g" % tuple(p) for p in xyz),
                   "\n".join(" ".join(map(str, c)) for c in conn),
                   " ".join(str(x) for x in np.cumsum([len(c) for c in conn])),
                   " ".join(["12"] * len(cells) + ["9"] * len(quads))))


def write_vtk51(path, xyz, cells, fc):
    quads = [q for n in PHYS for q in fc[n]]
    conn = [c for c in cells] + quads
    off = np.r_[0, np.cumsum([len(c) for c in conn])]
    with open(path, "w") as f:
        f.write("# vtk DataFile Version 5.1\ntwo blocks\nASCII\nDATASET UNSTRUCTURED_GRID\n"
                "POINTS %d double\n" % len(xyz))
        f.writelines("%.17g %.17g %.17g\n" % tuple(p) for p in xyz)
        f.write("CELLS %d %d\nOFFSETS vtktypeint64\n%s\nCONNECTIVITY vtktypeint64\n%s\n"
                % (len(off), off[-1], " ".join(map(str, off)),
                   " ".join(str(i) for c in conn for i in c)))
        f.write("CELL_TYPES %d\n%s\n" % (len(conn), "\n".join(["12"] * len(cells) +
                                                               ["9"] * len(quads))))


# ---------------------------------------------------------------- the routes


def run(exe, args, cwd):
    r = subprocess.run([exe] + args, cwd=cwd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("route.py: fcd %s failed: %s" % (" ".join(args), r.stderr.strip()))
    return r.stdout


def main():
    quick = "--quick" in sys.argv
    out = sys.argv[sys.argv.index("--out") + 1]
    os.makedirs(out, exist_ok=True)
    exe = os.environ.get("FCD_EXE", "fcd")
    labels, xyz, cells, nlow, K, M = model()
    fc = faces(xyz, cells, nlow)
    j = lambda f: os.path.join(out, f)
    write_mm(j("K.mtx"), K)
    write_mm(j("M.mtx"), M)
    write_hb(j("K.rsa"), K, labels)
    write_hb(j("M.rsa"), M, labels)
    write_abaqus(j("blocks_STIF1.mtx"), K, labels)
    write_abaqus(j("blocks_MASS1.mtx"), M, labels)
    write_coordinate(j("K_coord.mtx"), K)
    write_coordinate(j("M_coord.mtx"), M)
    write_dmig(j("blocks.pch"), [("KAAX", K), ("MAAX", M)], labels)
    write_op4_ascii(j("blocks_ascii.op4"), [("KGG", K), ("MGG", M)])
    write_op4_binary(j("blocks.op4"), [("KGG", K), ("MGG", M)])
    write_gmsh(j("blocks.msh"), labels, xyz, cells, fc)
    write_inp(j("blocks.inp"), labels, xyz, cells, fc, nlow)
    write_bulk(j("blocks.bdf"), labels, xyz, cells, fc)
    write_vtu(j("blocks.vtu"), xyz, cells, fc)
    write_vtk51(j("blocks.vtk"), xyz, cells, fc)
    # supports: the lower block's bottom, and the four corners of the upper block's top
    # (a body held by contact alone would rest on the tenth digit of a DMIG file: the
    # rigid motions of a floating block are K's null space, which ten digits blur); a dof
    # index is 3 p + component, and both numberings agree
    fixed = [3 * p + a for p in range(len(xyz)) if labels[p] < 2000 and xyz[p, 2] == 0
             for a in range(3)]
    fixed += [3 * p + a for p in range(len(xyz)) if labels[p] > 2000 and xyz[p, 2] == 1.0
              and xyz[p, 0] in (0, 1) and xyz[p, 1] in (0, 1) for a in range(3)]
    open(j("fixed.txt"), "w").writelines("%d\n" % d for d in sorted(fixed))
    open(j("fixed_by_label.txt"), "w").writelines(
        "node %d %d\n" % (labels[d // 3], d % 3 + 1) for d in sorted(fixed))
    load = np.zeros(3 * len(xyz))
    for q in fc["upper_top"]:
        for i in q:
            load[3 * i + 2] -= P * (0.25 * 0.25) / 4
    open(j("load.txt"), "w").writelines("%.17g\n" % x for x in load)
    routes = [("Matrix Market", "K.mtx", "M.mtx", "blocks.vtk", "fixed.txt"),
              ("Harwell-Boeing + .mapping", "K.rsa", "M.rsa", "blocks.msh", "fixed_by_label.txt"),
              ("Abaqus matrix input", "blocks_STIF1.mtx", "blocks_MASS1.mtx", "blocks.inp",
               "fixed_by_label.txt"),
              ("Abaqus coordinate", "K_coord.mtx", "M_coord.mtx", "blocks.vtu", "fixed.txt"),
              ("Nastran DMIG", "blocks.pch:KAAX", "blocks.pch:MAAX", "blocks.bdf",
               "fixed_by_label.txt"),
              ("Nastran OP4 ASCII", "blocks_ascii.op4:KGG", "blocks_ascii.op4:MGG", "blocks.msh",
               "fixed.txt"),
              ("Nastran OP4 binary", "blocks.op4:KGG", "blocks.op4:MGG", "blocks.inp", "fixed.txt")]
    names = {".vtk": None, ".msh": ("upper_bottom", "lower_top"),
             ".inp": ("upper_bottom", "lower_top"), ".bdf": ("PID:4", "PID:3"),
             ".vtu": ("physical:4", "physical:3")}
    rows = []
    for title, k, m, mesh, fx in routes:
        ext = os.path.splitext(mesh)[1]
        if names[ext]:
            pair = "slave %s master %s" % names[ext]
        else:  # legacy VTK names nothing: the facets by node index
            ids = lambda fs: " ".join("%d %d %d %d" % tuple(q) for q in fs)
            pair = "slave %s master %s" % (ids(fc["upper_bottom"]), ids(fc["lower_top"]))
        cfile = "contacts_%s.txt" % ext[1:]
        open(j(cfile), "w").write("fcd-contacts 2\ndim 3\nsurface-pair dual-mortar %g %s\n"
                                  % (MU, pair))
        base = ["--mass", m, "--stiffness", k, "--fixed", fx]
        info = run(exe, ["info"] + base + ["--nev", "6"], out)
        freqs = [float(l.split()[-2]) for l in info.splitlines() if l.startswith("frequency")]
        eq = run(exe, ["equilibrium"] + base + ["--load", "load.txt", "--contacts", cfile,
                                                "--mesh", mesh, "--out", "state.csv",
                                                "--displacements", "u.txt"], out)
        u = np.loadtxt(j("u.txt"))
        st = open(j("state.csv")).read().splitlines()[1:]
        nstick = sum(1 for l in st if l.split(",")[1] == "stick")
        sweep = "0.1:0.5:3" if quick else "0.1:0.9:9"
        run(exe, ["stability"] + base + ["--load", "load.txt", "--contacts", cfile, "--mesh", mesh,
                                         "--state", "state.csv", "--mu-sweep", sweep, "--nev", "6",
                                         "--out", "chart.csv"], out)
        chart = np.genfromtxt(j("chart.csv"), delimiter=",", names=True, dtype=None,
                              encoding=None)
        fchart = sorted(chart["freq_hz"][chart["mu"] == chart["mu"].max()])[:3]
        rows.append((title, mesh, freqs[:3], -u[2::3].min(), nstick, len(st), fchart,
                     int(np.sum(chart["re"] > 0))))
    with open(j("results.md"), "w") as f:
        f.write("| matrices | mesh | f1 (Hz) | f2 (Hz) | f3 (Hz) | max settlement | stick of "
                "contacts | chart f1 at top mu (Hz) | unstable |\n|---|---|---|---|---|---|---|"
                "---|---|\n")
        for t, mesh, fr, w, ns, nc, fch, unst in rows:
            f.write("| %s | %s | %.6g | %.6g | %.6g | %.6e | %d of %d | %.6g | %d |\n"
                    % (t, mesh, fr[0], fr[1], fr[2], w, ns, nc, fch[0], unst))
    ref = rows[0]
    for r in rows[1:]:
        # every format holds 17 digits but DMIG's 16-character fields, which hold 10
        tol = 1e-7 if "DMIG" in r[0] else 1e-9
        assert np.allclose(r[2], ref[2], rtol=tol), (r[0], r[2], ref[2])
        assert abs(r[3] - ref[3]) <= tol * ref[3], (r[0], r[3], ref[3])
        assert r[4:6] == ref[4:6] and r[7] == ref[7], r[0]
        assert np.allclose(r[6], ref[6], rtol=tol), (r[0], r[6], ref[6])
    print(open(j("results.md")).read())


if __name__ == "__main__":
    main()
