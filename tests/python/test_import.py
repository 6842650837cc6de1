"""fcd.MatrixFile and fcd.DofMap (docs/import.md) on real files of other programs
(tests/data/import/README.md), each checked against an independent reader: scipy's
Harwell-Boeing reader for the unsymmetric west0479, numpy reading the Abaqus beam's
comma-separated lines itself; and the program's --write-dofs."""
import os
import subprocess
import tempfile

import numpy as np
import pytest
import scipy.io

import fcd

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "import")
HERE = os.path.dirname(os.path.abspath(__file__))


def dense(m, n, dofmap=None):
    """the matrix as fcd set it on a system, column by column"""
    s = fcd.System(n)
    s.set_matrix_file("stiffness", m, dofmap)
    cols = []
    for j in range(n):
        e = np.zeros(n)
        e[j] = 1
        cols.append(s.apply("stiffness", e))
    return np.array(cols).T


def test_harwell_boeing_against_scipy():
    path = os.path.join(DATA, "west0479.rua")
    m = fcd.MatrixFile(path)
    info = m.info
    assert info["format"] == "harwell-boeing" and not info["symmetric"]
    assert (info["nrows"], info["ncols"], info["nnz"]) == (479, 479, 1910)
    ref = scipy.io.hb_read(path).toarray()
    got = dense(m, 479)
    assert np.max(np.abs(got - ref)) <= 1e-12 * np.max(np.abs(ref))


def test_abaqus_beam_against_numpy():
    k = fcd.MatrixFile(os.path.join(DATA, "abaqus_b33", "model_STIF1.mtx"))
    mm = fcd.MatrixFile(os.path.join(DATA, "abaqus_b33", "model_MASS1.mtx"))
    assert k.info["format"] == "abaqus-matrix" and k.info["labelled"] and k.info["symmetric"]
    dm = fcd.DofMap(k, mm)
    assert len(dm) == 14 and dm.pair(0) == (-1, 1) and dm.index(2, 6) == 13
    with pytest.raises(KeyError):
        dm.index(3, 1)
    # numpy's own reading: node, dof, node, dof, value; one triangle mirrored
    raw = np.loadtxt(os.path.join(DATA, "abaqus_b33", "model_STIF1.mtx"), delimiter=",")
    ref = np.zeros((14, 14))
    for a, b, c, d, v in raw:
        i, j = dm.index(int(a), int(b)), dm.index(int(c), int(d))
        ref[i, j] += v
        if i != j:
            ref[j, i] += v
    got = dense(k, 14, dm)
    assert np.max(np.abs(got - ref)) <= 1e-15 * np.max(np.abs(ref))
    # six rigid-body motions of a free beam
    w = np.linalg.eigvalsh(got)
    assert np.sum(np.abs(w) < 1e-9 * np.max(w)) == 6


def test_ansys_hbmat_and_its_mapping_against_ansys_export():
    """ANSYS' own files (tests/data/import/ansys: eight SOLID5 hexahedra, 27 nodes, no
    support, StiffMavansys.mac): HBMAT's Harwell-Boeing matrix with its .mapping, read
    by node and dof, equals the same stiffness that ANSYS' *EXPORT wrote as Matrix Market
    (read by scipy, the equations mapped by numpy's own reading of the .mapping) to the
    15 digits HBMAT prints, and K times each of the six rigid motions of the nodes that
    the macro places is zero."""
    d = os.path.join(DATA, "ansys")
    k = fcd.MatrixFile(os.path.join(d, "STIFF_ANSYS.hb"))
    info = k.info
    assert info["format"] == "harwell-boeing" and info["labelled"] and info["symmetric"]
    assert info["nnz"] == 1565
    dm = fcd.DofMap(k)
    assert len(dm) == 81
    got = dense(k, 81, dm)
    # the reference: ANSYS' Matrix Market export, equation i -> (node, dof) by the mapping
    names = {"UX": 1, "UY": 2, "UZ": 3}
    eq = {}
    with open(os.path.join(d, "STIFF_ANSYS.mapping")) as f:
        next(f)
        for line in f:
            e, node, dof = line.split()
            eq[int(e) - 1] = dm.index(int(node), names[dof])
    mm = scipy.io.mmread(os.path.join(d, "STIFF_ANSYS.mmf")).toarray()
    ref = np.zeros((81, 81))
    for i in range(81):
        for j in range(81):
            ref[eq[i], eq[j]] = mm[i, j]
    scale = np.max(np.abs(ref))
    assert np.max(np.abs(got - ref)) <= 1e-14 * scale
    # fcd's Matrix Market reader on ANSYS' export: scipy's matrix
    e = fcd.MatrixFile(os.path.join(d, "STIFF_ANSYS.mmf"))
    assert e.info["format"] == "matrix-market" and not e.info["labelled"]
    assert np.max(np.abs(dense(e, 81) - mm)) <= 1e-15 * scale
    # rigid motions of the nodes the macro places (N,label,x,y,z)
    xyz = {}
    with open(os.path.join(d, "StiffMavansys.mac")) as f:
        for line in f:
            if line.startswith("N,"):
                _, lab, x, y, z = line.strip().split(",")[:5]
                xyz[int(lab)] = np.array([float(x), float(y), float(z)])
    assert len(xyz) == 27
    for r in range(6):
        u = np.zeros(81)
        for lab, p in xyz.items():
            if r < 3:
                v = np.eye(3)[r]
            else:
                v = np.cross(np.eye(3)[r - 3], p)
            for c in range(3):
                u[dm.index(lab, c + 1)] = v[c]
        assert np.linalg.norm(got @ u) <= 1e-12 * scale * np.linalg.norm(u)
    # and nothing else is rigid: six zero eigenvalues, the seventh far from zero
    w = np.linalg.eigvalsh(got)
    assert np.sum(np.abs(w) < 1e-9 * np.max(w)) == 6


def test_abaqus_coordinate_both_layouts(tmp_path):
    """FORMAT=COORDINATE as Abaqus 2024 writes it (a shell element's stiffness seen in a
    public repository: `1 2  3.749985979900784e+08`, blanks between the fields, both
    triangles) and as older releases do (`1, 2, 3.74e+08`, one triangle): the same
    matrix, read as numpy reads the lines."""
    rng = np.random.default_rng(7)
    a = rng.standard_normal((24, 24))
    k = a @ a.T
    k[np.abs(k) < 0.5] = 0.0
    both, tri = tmp_path / "s4_STIF1.mtx", tmp_path / "old_STIF1.mtx"
    with open(both, "w") as f:
        for i in range(24):
            for j in range(24):
                if k[i, j] != 0:
                    f.write("%d %d % .15e\n" % (i + 1, j + 1, k[i, j]))
    with open(tri, "w") as f:
        for i in range(24):
            for j in range(i + 1):
                if k[i, j] != 0:
                    f.write("%d, %d, %.17e\n" % (i + 1, j + 1, k[i, j]))
    ref = np.zeros((24, 24))
    for i, j, v in np.loadtxt(both):
        ref[int(i) - 1, int(j) - 1] = v
    m1, m2 = fcd.MatrixFile(str(both)), fcd.MatrixFile(str(tri))
    assert m1.info["format"] == m2.info["format"] == "abaqus-coordinate"
    assert not m1.info["symmetric"] and m2.info["symmetric"]
    assert np.array_equal(dense(m1, 24), ref)
    assert np.max(np.abs(dense(m2, 24) - k)) == 0.0


def test_refusals():
    with pytest.raises(fcd.FcdError) as e:
        fcd.MatrixFile(os.path.join(DATA, "can_24.psa"))
    assert e.value.name == "FCD_E_UNSUPPORTED" and "pattern" in e.value.message
    with pytest.raises(fcd.FcdError) as e:
        fcd.MatrixFile(os.path.join(DATA, "bcsstk01.rsa") + ":KAAX")
    assert "BCSSTK01" in e.value.message
    with pytest.raises(ValueError):
        fcd.MatrixFile(os.path.join(DATA, "bcsstk01.rsa"), format="nastran-punch")
    with pytest.raises(TypeError):
        fcd.MatrixFile(3.5)
    k = fcd.MatrixFile(os.path.join(DATA, "abaqus_b33", "model_STIF1.mtx"))
    with pytest.raises(fcd.FcdError) as e:
        fcd.System(14).set_matrix_file("stiffness", k)
    assert "dof map" in e.value.message
    with pytest.raises(fcd.FcdError):
        fcd.DofMap(fcd.MatrixFile(os.path.join(DATA, "bcsstk01.rsa")))


def test_program_reads_labelled_matrices_and_writes_the_map():
    exe = os.environ.get("FCD_EXE", "fcd")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "dofs.txt")
        r = subprocess.run([exe, "info", "--mass",
                            os.path.join(DATA, "abaqus_b33", "model_MASS1.mtx"),
                            "--stiffness", os.path.join(DATA, "abaqus_b33", "model_STIF1.mtx"),
                            "--write-dofs", out], capture_output=True, text=True)
        # read and mapped; the beam's consistent mass of Abaqus' B33 is singular (three zero
        # eigenvalues, numpy agrees), which info reports with status 1
        assert "dofs: 14" in r.stdout and "mass SPD on free dofs: no" in r.stdout, r.stderr
        rows = [l.split() for l in open(out) if not l.startswith("#")]
        assert [(int(a), int(b), int(c)) for a, b, c in rows][:3] == [(0, -1, 1), (1, -1, 2),
                                                                      (2, 1, 1)]
        # an indexed model has no labels to map
        hb = os.path.join(DATA, "bcsstk01.rsa")
        r = subprocess.run([exe, "info", "--mass", hb, "--stiffness", hb, "--write-dofs", out],
                           capture_output=True, text=True)
        assert r.returncode == 1 and "by index" in r.stderr


def nastran_large_field(path, name):
    """numpy's own reading of a large-field DMIG matrix: 16-character fields after the
    8-character card name, D exponents; {(gi, ci, gj, cj): value}"""
    out, col, cur = {}, None, None
    for line in open(path):
        line = line.rstrip("\n")
        if line.startswith("DMIG*"):
            cur = line[8:24].strip()
            col = (int(line[24:40]), int(line[40:56])) if cur == name else None
        elif line.startswith("*") and col is not None:
            g, c = int(line[8:24]), int(line[24:40])
            out[(g, c) + col] = float(line[40:56].replace("D", "E"))
        elif not line.startswith("*"):
            col = None
    return out


def test_nastran_dmig_against_its_own_lines_and_lapack():
    pch = os.path.join(DATA, "nastran", "dmig.pch")
    k = fcd.MatrixFile(pch + ":KAAX")
    m = fcd.MatrixFile(pch + ":MAAX")
    assert k.info["format"] == "nastran-dmig" and k.info["symmetric"] and k.info["name"] == "KAAX"
    dm = fcd.DofMap(k, m)
    n = len(dm)
    assert n == 15
    for mat, name in ((k, "KAAX"), (m, "MAAX")):
        ref = np.zeros((n, n))
        for (gi, ci, gj, cj), v in nastran_large_field(pch, name).items():
            i, j = dm.index(gi, ci), dm.index(gj, cj)
            ref[i, j] += v
            if i != j:
                ref[j, i] += v
        got = dense(mat, n, dm)
        assert np.max(np.abs(got - ref)) <= 1e-15 * np.max(np.abs(ref))
    # the program's lowest frequencies against LAPACK's on numpy's own matrices
    import scipy.linalg
    K = dense(k, n, dm)
    M = np.zeros((n, n))
    for (gi, ci, gj, cj), v in nastran_large_field(pch, "MAAX").items():
        M[dm.index(gi, ci), dm.index(gj, cj)] += v
    w = scipy.linalg.eigh(K, M, eigvals_only=True)
    f_ref = np.sqrt(np.maximum(w, 0)) / (2 * np.pi)
    exe = os.environ.get("FCD_EXE", "fcd")
    r = subprocess.run([exe, "info", "--mass", pch + ":MAAX", "--stiffness", pch + ":KAAX",
                        "--nev", "4"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    f = [float(l.split(":")[1].split()[0]) for l in r.stdout.splitlines()
         if l.startswith("frequency")]
    assert len(f) == 4
    # a rigid-body mode first (zero to round-off on both sides), then three to the 9
    # significant digits the program prints
    assert f[0] < 1e-6 * f_ref[-1] and f_ref[0] < 1e-6 * f_ref[-1]
    assert np.allclose(f[1:], f_ref[1:4], rtol=1e-8, atol=0)
    # a file of several matrices needs a name, and says which it holds
    with pytest.raises(fcd.FcdError) as e:
        fcd.MatrixFile(pch)
    assert "KAAX, MAAX, BAAX, VAX, RVA, MUG1T" in e.value.message


def op4_binary_numpy(path):
    """numpy's own reading of a little-endian binary OP4 file of dense columns: Fortran
    records, a 24-byte header (columns, rows, form, type, name), then (column, row,
    words, values) records until a column past the last; {name: dense matrix}"""
    import struct
    data, pos, out = open(path, "rb").read(), 0, {}

    def record():
        nonlocal pos
        (n,) = struct.unpack_from("<i", data, pos)
        body = data[pos + 4:pos + 4 + n]
        pos += n + 8
        return body

    while pos < len(data):
        head = record()
        ncol, nrow, form, typ = struct.unpack_from("<4i", head)
        name = head[16:24].decode().strip()
        a = np.zeros((abs(nrow), ncol))
        while True:
            rec = record()
            col, row, nw = struct.unpack_from("<3i", rec)
            if col > ncol:
                break
            if typ in (1, 2):
                fmt = "<%dd" % (nw // 2) if typ == 2 else "<%df" % nw
                vals = struct.unpack_from(fmt, rec, 12)
                a[row - 1:row - 1 + len(vals), col - 1] = vals
        if typ in (1, 2):
            out[name] = a
    return out


def op4_dense(spec):
    m = fcd.MatrixFile(spec)
    i = m.info
    if i["nrows"] == i["ncols"]:
        return dense(m, i["nrows"])
    return None


def test_nastran_op4_text_binary_dense_sparse_bigmat_agree():
    nas = os.path.join(DATA, "nastran")
    ref = op4_binary_numpy(os.path.join(nas, "mat_b_dn.op4"))
    assert set(ref) == {"EYE10", "LOW", "RND1RS", "RND1RD", "NULL", "STRINGS"}
    assert np.array_equal(ref["EYE10"], np.eye(10))
    for name in ("EYE10", "RND1RS", "RND1RD"):
        for f in ("mat_t_dn", "mat_t_s1", "mat_t_s2", "mat_b_dn", "mat_b_s1", "mat_b_s2"):
            got = op4_dense(os.path.join(nas, f + ".op4") + ":" + name)
            # 17 digits in text, the same doubles (and floats) in binary: exactly equal
            assert np.array_equal(got, ref[name]), (f, name)
    # a complex one beside them is read past; asked for, it is refused by name
    with pytest.raises(fcd.FcdError) as e:
        fcd.MatrixFile(os.path.join(nas, "mat_t_s1.op4") + ":RND1CD")
    assert e.value.name == "FCD_E_UNSUPPORTED" and "complex" in e.value.message
    with pytest.raises(fcd.FcdError) as e:
        fcd.MatrixFile(os.path.join(nas, "mat_b_dn.op4"))
    assert "9 matrices" in e.value.message
    # the plate's stiffness: binary against its ASCII twin (10 digits printed), a free
    # plate's six rigid-body modes
    kb = op4_dense(os.path.join(nas, "testplate_kgg.op4"))
    ka = op4_dense(os.path.join(nas, "testplate_kgg_ascii.op4"))
    assert kb.shape == (726, 726)
    assert np.max(np.abs(ka - kb)) <= 1e-9 * np.max(np.abs(kb))
    assert np.max(np.abs(kb - kb.T)) == 0
    w = np.linalg.eigvalsh(kb)
    assert np.sum(np.abs(w) < 1e-12 * w[-1]) == 6


def test_fixed_dofs_and_loads_by_node_label():
    """The same supports given by index (from the written map) and by node label give the
    same frequencies; a load by node label is the vector with those entries; a label the
    matrices lack is named."""
    exe = os.environ.get("FCD_EXE", "fcd")
    pch = os.path.join(DATA, "nastran", "dmig.pch")
    base = [exe, "info", "--mass", pch + ":MAAX", "--stiffness", pch + ":KAAX", "--nev", "3"]
    with tempfile.TemporaryDirectory() as tmp:
        dofs = os.path.join(tmp, "dofs.txt")
        r = subprocess.run(base + ["--write-dofs", dofs], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        index = {(int(l.split()[1]), int(l.split()[2])): int(l.split()[0])
                 for l in open(dofs) if not l.startswith("#")}
        by_label = os.path.join(tmp, "fixed_label.txt")
        by_index = os.path.join(tmp, "fixed_index.txt")
        open(by_label, "w").write("node 101 1\nnode 309 1 0.0\n")
        open(by_index, "w").write("%d\n%d 0.0\n" % (index[(101, 1)], index[(309, 1)]))
        out = []
        for f in (by_label, by_index):
            r = subprocess.run(base + ["--fixed", f], capture_output=True, text=True)
            assert r.returncode == 0, r.stderr
            out.append([l for l in r.stdout.splitlines() if l.startswith("frequency")])
        assert out[0] == out[1] and len(out[0]) == 3
        assert "prescribed 2" in r.stdout
        bad = os.path.join(tmp, "bad.txt")
        open(bad, "w").write("node 999 1\n")
        r = subprocess.run(base + ["--fixed", bad], capture_output=True, text=True)
        assert r.returncode == 1 and "node 999 dof 1 is not a dof" in r.stderr
    # the library: a vector by node label, other entries zero
    k = fcd.MatrixFile(pch + ":KAAX")
    dm = fcd.DofMap(k)
    s = fcd.System(len(dm))
    s.set_dofmap(dm)
    with tempfile.TemporaryDirectory() as tmp:
        f = os.path.join(tmp, "load.txt")
        open(f, "w").write("# a load\nnode 102 1 2.5\nnode 309 1 -1\n")
        x = s.read_vector(f)
        want = np.zeros(len(dm))
        want[dm.index(102, 1)] = 2.5
        want[dm.index(309, 1)] = -1
        assert np.array_equal(x, want)
        open(f, "w").write("0.5\nnode 102 1 2.5\n")
        with pytest.raises(fcd.FcdError) as e:
            s.read_vector(f)
        assert "not both" in e.value.message
    s2 = fcd.System(len(dm))
    with tempfile.TemporaryDirectory() as tmp:
        f = os.path.join(tmp, "fixed.txt")
        open(f, "w").write("node 101 1\n")
        with pytest.raises(fcd.FcdError) as e:
            s2.read_fixed(f)
        assert "no dof map" in e.value.message


def test_contacts_and_monitor_by_node_label():
    """A contact line may give a node by label (`rigid node LABEL ...`, the node's dofs
    (LABEL, 1..dim) through the map) and --monitor LABEL:DOF: the Abaqus beam pressed on
    an obstacle at its free end gives the same equilibrium, and the same transient, as
    with the dof indices from the written map."""
    exe = os.environ.get("FCD_EXE", "fcd")
    d = os.path.join(DATA, "abaqus_b33")
    model = ["--mass", os.path.join(d, "model_MASS1.mtx"),
             "--stiffness", os.path.join(d, "model_STIF1.mtx")]
    with tempfile.TemporaryDirectory() as tmp:
        j = lambda f: os.path.join(tmp, f)
        # the beam's end nodes are 1 and 2 (its internal node -1 has dofs 1 and 2 only)
        root, tip = 1, 2
        open(j("fixed.txt"), "w").write("".join("node %d %d\n" % (root, k) for k in range(1, 7)))
        r = subprocess.run([exe, "info"] + model + ["--fixed", j("fixed.txt"), "--write-dofs",
                                                    j("dofs.txt")], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        index = {(int(l.split()[1]), int(l.split()[2])): int(l.split()[0])
                 for l in open(j("dofs.txt")) if not l.startswith("#")}
        open(j("load.txt"), "w").write("node %d 3 -100\n" % tip)
        frame = "0 0 -1  1 0 0  1e-6 0.3\n"
        open(j("c_label.txt"), "w").write("fcd-contacts 1\ndim 3\nrigid node %d  %s" % (tip, frame))
        open(j("c_index.txt"), "w").write("fcd-contacts 1\ndim 3\nrigid %d %d %d  %s" % (
            index[(tip, 1)], index[(tip, 2)], index[(tip, 3)], frame))
        out = {}
        for kind in ("label", "index"):
            r = subprocess.run([exe, "equilibrium"] + model +
                               ["--fixed", j("fixed.txt"), "--load", j("load.txt"),
                                "--contacts", j("c_%s.txt" % kind), "--out", j("s_%s.csv" % kind),
                                "--displacements", j("u_%s.txt" % kind)],
                               capture_output=True, text=True)
            assert r.returncode == 0, r.stderr
            mon = "%d:3" % tip if kind == "label" else str(index[(tip, 3)])
            r = subprocess.run([exe, "simulate"] + model +
                               ["--fixed", j("fixed.txt"), "--load", j("load.txt"),
                                "--contacts", j("c_%s.txt" % kind), "--dt", "1e-4",
                                "--t-end", "2e-3", "--monitor", mon,
                                "--out", j("h_%s.csv" % kind)], capture_output=True, text=True)
            assert r.returncode == 0, r.stderr
            out[kind] = (open(j("s_%s.csv" % kind)).read(), open(j("u_%s.txt" % kind)).read(),
                         open(j("h_%s.csv" % kind)).read().splitlines()[1:])
        assert out["label"] == out["index"]
        # the tip pressed onto the obstacle: closed at u_z = -gap, not open
        u = np.loadtxt(j("u_label.txt"))
        assert u[index[(tip, 3)]] == pytest.approx(-1e-6, rel=1e-6)
        assert open(j("s_label.csv")).read().splitlines()[1].split(",")[1] in ("stick", "slip")
        open(j("c_bad.txt"), "w").write("fcd-contacts 1\ndim 3\nrigid node 999 %s" % frame)
        r = subprocess.run([exe, "equilibrium"] + model +
                           ["--fixed", j("fixed.txt"), "--contacts", j("c_bad.txt"),
                            "--out", j("s.csv")], capture_output=True, text=True)
        assert r.returncode != 0 and "c_bad.txt:3: node 999 dof 1 is not a dof" in r.stderr
        r = subprocess.run([exe, "simulate"] + model +
                           ["--fixed", j("fixed.txt"), "--contacts", j("c_index.txt"),
                            "--dt", "1e-4", "--t-end", "1e-3", "--monitor", "999:3",
                            "--out", j("h.csv")], capture_output=True, text=True)
        assert r.returncode != 0 and "--monitor 999:3" in r.stderr


def test_long_dmig_columns_and_scipy_harwell_boeing(tmp_path):
    """A DMIG column of 300 terms keeps every term (a card once kept 160 fields and
    dropped the rest in silence); a Harwell-Boeing file written by scipy's hb_write, whose
    values are narrower than the E25.16 its header declares, reads to scipy's own reading
    bit for bit."""
    import scipy.io
    import scipy.sparse as sp
    n = 300
    rng = np.random.default_rng(7)
    A = rng.standard_normal((n, n))
    A = A + A.T + n * np.eye(n)
    lines = ["DMIG    KAAX           0       6       2       0%24d\n" % n]
    for j in range(n):
        lines.append("DMIG*   %-16s%16d%16d\n" % ("KAAX", j + 1, 1))
        for i in range(j, n):
            lines.append("*       %16d%16d%s\n" % (i + 1, 1, ("%16.9E" % A[i, j]).replace("E", "D")))
    (tmp_path / "big.pch").write_text("".join(lines))
    m = fcd.MatrixFile(str(tmp_path / "big.pch"))
    assert m.info["nnz"] == n * (n + 1) // 2
    dm = fcd.DofMap(m)
    s = fcd.System(len(dm))
    s.set_matrix_file("stiffness", m, dm)
    K = np.asarray(sp.csr_matrix(s.matrix("stiffness")).todense())
    want = np.array([[float(("%16.9E" % A[max(i, j), min(i, j)])) for j in range(n)]
                     for i in range(n)])
    assert np.array_equal(K, want)
    B = sp.random(200, 200, density=0.05, random_state=3, format="csc") + sp.identity(200)
    scipy.io.hb_write(str(tmp_path / "b.rua"), sp.csc_matrix(B))
    ref = scipy.io.hb_read(str(tmp_path / "b.rua")).toarray()
    h = fcd.MatrixFile(str(tmp_path / "b.rua"))
    s2 = fcd.System(200)
    s2.set_matrix_file("stiffness", h)
    got = np.asarray(sp.csr_matrix(s2.matrix("stiffness")).todense())
    assert np.array_equal(got, ref)


def test_every_matrix_format_gives_the_matrix_market_twin(tmp_path):
    """The route's writers (examples/import-formats/route.py) put one model's K in every
    matrix format; each reads back to the same matrix as its Matrix Market twin: bit for
    bit where the format keeps 17 digits, to DMIG's ten digits otherwise."""
    import importlib.util
    import scipy.io
    import scipy.sparse as sp
    spec = importlib.util.spec_from_file_location(
        "route", os.path.join(HERE, "..", "..", "examples", "import-formats", "route.py"))
    route = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(route)
    labels, xyz, cells, nlow, K, M = route.model()
    j = lambda f: str(tmp_path / f)
    route.write_mm(j("K.mtx"), K)
    route.write_hb(j("K.rsa"), K, labels)
    route.write_abaqus(j("K_STIF1.mtx"), K, labels)
    route.write_coordinate(j("K_coord.mtx"), K)
    route.write_dmig(j("K.pch"), [("KAAX", K)], labels)
    route.write_op4_ascii(j("K_ascii.op4"), [("KGG", K)])
    route.write_op4_binary(j("K.op4"), [("KGG", K)])
    ref = sp.csr_matrix(scipy.io.mmread(j("K.mtx")))
    for f, digits in (("K.rsa", None), ("K_STIF1.mtx", None), ("K_coord.mtx", None),
                      ("K.pch", 10), ("K_ascii.op4", None), ("K.op4", None)):
        m = fcd.MatrixFile(j(f))
        s = fcd.System(K.shape[0])
        if m.info["labelled"]:
            dm = fcd.DofMap(m)
            s.set_matrix_file("stiffness", m, dm)
        else:
            s.set_matrix_file("stiffness", m)
        A = sp.csr_matrix(s.matrix("stiffness"))
        d = abs(A - ref).max()
        if digits is None:
            assert d == 0, f
        else:
            assert d <= 10.0 ** (1 - digits) * abs(ref).max(), (f, d)


def test_format_named_on_the_command_line(tmp_path):
    """--format NAME reads every matrix as that format instead of telling it from the
    content: the same frequencies as told; a file of another format is refused with the
    reader's reason; an unknown name is a usage error listing the names."""
    exe = os.environ.get("FCD_EXE", "fcd")
    d = os.path.join(DATA, "abaqus_b33")
    model = ["--mass", os.path.join(d, "model_MASS1.mtx"),
             "--stiffness", os.path.join(d, "model_STIF1.mtx"), "--nev", "3"]
    fixed = tmp_path / "fixed.txt"
    fixed.write_text("".join("node 1 %d\n" % k for k in range(1, 7)))
    runs = [subprocess.run([exe, "info"] + model + ["--fixed", str(fixed)] + extra,
                           capture_output=True, text=True)
            for extra in ([], ["--format", "abaqus-matrix"])]
    assert all(r.returncode == 0 for r in runs), runs[1].stderr
    freq = lambda r: [l for l in r.stdout.splitlines() if l.startswith("frequency")]
    assert freq(runs[0]) == freq(runs[1]) and len(freq(runs[0])) == 3
    r = subprocess.run([exe, "info"] + model + ["--format", "nastran-dmig"], capture_output=True,
                       text=True)
    assert r.returncode != 0 and "model_MASS1.mtx: no DMIG header card" in r.stderr
    r = subprocess.run([exe, "info"] + model + ["--format", "bogus"], capture_output=True,
                       text=True)
    assert r.returncode == 2 and "--format bogus: not a matrix format" in r.stderr
