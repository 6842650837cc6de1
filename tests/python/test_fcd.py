"""The Python binding (python/fcd) against independent references (issue 11):
scipy.linalg on the same matrices, closed forms, and its own bad-input contract.
Run by meson (test `python`) with FCD_LIBRARY pointing at the built libfcd."""
import os
import tempfile

import numpy as np
import pytest
import scipy.linalg as sla
import scipy.sparse as sp

import fcd


# ---- a scipy-built finite-element model --------------------------------------------

def plane_strain_block(nx=6, ny=3, E=1e7, nu=0.3, rho=1000.0, lx=1.0, ly=0.5):
    """Linear triangles on an nx x ny grid of a lx x ly block, consistent mass. Node
    (i, j) is i + (nx + 1) j with dofs (2 node, 2 node + 1) = (x, y)."""
    px = nx + 1
    nn = px * (ny + 1)
    lam = E * nu / ((1 + nu) * (1 - 2 * nu))
    G = E / (2 * (1 + nu))
    D = np.array([[lam + 2 * G, lam, 0], [lam, lam + 2 * G, 0], [0, 0, G]])
    rows, cols, kv, mv = [], [], [], []
    hx, hy = lx / nx, ly / ny
    for j in range(ny):
        for i in range(nx):
            a, b, c, d = i + px * j, i + 1 + px * j, i + 1 + px * (j + 1), i + px * (j + 1)
            for tri in ((a, b, c), (a, c, d)):
                xy = np.array([[(n % px) * hx, (n // px) * hy] for n in tri])
                area2 = ((xy[1, 0] - xy[0, 0]) * (xy[2, 1] - xy[0, 1])
                         - (xy[2, 0] - xy[0, 0]) * (xy[1, 1] - xy[0, 1]))
                area = area2 / 2
                bx = [xy[1, 1] - xy[2, 1], xy[2, 1] - xy[0, 1], xy[0, 1] - xy[1, 1]]
                by = [xy[2, 0] - xy[1, 0], xy[0, 0] - xy[2, 0], xy[1, 0] - xy[0, 0]]
                B = np.zeros((3, 6))
                for k in range(3):
                    B[0, 2 * k] = bx[k] / area2
                    B[1, 2 * k + 1] = by[k] / area2
                    B[2, 2 * k] = by[k] / area2
                    B[2, 2 * k + 1] = bx[k] / area2
                Ke = B.T @ D @ B * area
                Me = np.zeros((6, 6))
                for p in range(3):
                    for q in range(3):
                        m = rho * area / 12 * (2 if p == q else 1)
                        Me[2 * p, 2 * q] = Me[2 * p + 1, 2 * q + 1] = m
                dofs = [2 * tri[0], 2 * tri[0] + 1, 2 * tri[1], 2 * tri[1] + 1,
                        2 * tri[2], 2 * tri[2] + 1]
                for p in range(6):
                    for q in range(6):
                        rows.append(dofs[p])
                        cols.append(dofs[q])
                        kv.append(Ke[p, q])
                        mv.append(Me[p, q])
    n = 2 * nn
    K = sp.coo_matrix((kv, (rows, cols)), shape=(n, n)).tocsr()
    M = sp.coo_matrix((mv, (rows, cols)), shape=(n, n)).tocsr()
    top = [i + px * ny for i in range(px)]
    bottom = list(range(px))
    return K, M, top, bottom


def test_version_and_features():
    assert fcd.version() == os.environ.get("FCD_EXPECTED_VERSION", fcd.version())
    feats = fcd.features()
    for name in ("fclib", "mpi", "umfpack", "mumps", "slepc"):
        assert fcd.has_feature(name) == (name in feats)
    assert not fcd.has_feature("no-such-feature")


def test_natural_modes_against_scipy_eigh():
    K, M, top, _ = plane_strain_block()
    n = K.shape[0]
    sys = fcd.System(n)
    sys.set_matrix("stiffness", K)
    sys.set_matrix("mass", M)
    fixed = [2 * p + k for p in top for k in (0, 1)]
    sys.fix_dofs(fixed)
    w2, modes = sys.natural_modes(6)
    free = np.setdiff1d(np.arange(n), fixed)
    ref = sla.eigh(K[free][:, free].toarray(), M[free][:, free].toarray(), eigvals_only=True)
    assert np.allclose(w2, ref[:6], rtol=1e-9)
    assert modes.shape == (n, 6)
    # mass-normalized, zero on the fixed dofs
    for k in range(6):
        v = modes[:, k]
        assert abs(v @ (M @ v) - 1) < 1e-9
        assert np.all(v[fixed] == 0)
    # the products agree with scipy's
    x = np.random.default_rng(1).standard_normal(n)
    assert np.allclose(sys.apply("stiffness", x), K @ x, rtol=1e-12, atol=1e-9 * abs(K @ x).max())


def test_stability_against_scipy_eig_on_the_reduced_pencil():
    """The bottom nodes touch a flat (normal +y, tangent +x): stick, slip with s = +-1,
    and open contacts. The reduced pencil by seed 000's row rule (normal and stuck dofs
    removed; a slipping row T becomes row_T - mu s row_N), built here with scipy, gives
    Lambda; fcd's eigenvalues are the lambda = +-sqrt(-Lambda)."""
    K, M, top, bottom = plane_strain_block()
    n = K.shape[0]
    mu = 0.45
    sys = fcd.System(n)
    sys.set_matrix("stiffness", K)
    sys.set_matrix("mass", M)
    fixed = [2 * p + k for p in top for k in (0, 1)]
    sys.fix_dofs(fixed)
    cs = fcd.ContactSet(sys, dim=2)
    status, slip = [], []
    for c, node in enumerate(bottom):
        cs.add_rigid([2 * node, 2 * node + 1], normal=[0, 1], tangent=[1, 0], gap=0.0, mu=mu)
        status.append(("slip", "stick", "slip", "open")[c % 4])
        slip.append(1.0 if c % 8 < 4 else -1.0)
    st = fcd.Stability(sys, cs, dense_max=1000)
    st.set_contact_state(status, slip)
    lam = st.solve()
    # the reference reduction
    Kd, Md = K.toarray(), M.toarray()
    drop = set(fixed)
    for c, node in enumerate(bottom):
        if status[c] == "stick":
            drop |= {2 * node, 2 * node + 1}
        elif status[c] == "slip":
            drop.add(2 * node + 1)
    keep = [i for i in range(n) if i not in drop]
    Ks, Ms = Kd[np.ix_(keep, keep)].copy(), Md[np.ix_(keep, keep)].copy()
    for c, node in enumerate(bottom):
        if status[c] == "slip":
            a = keep.index(2 * node)
            sigma = -slip[c]
            Ks[a] += mu * sigma * Kd[2 * node + 1, keep]
            Ms[a] += mu * sigma * Md[2 * node + 1, keep]
    L = sla.eig(Ks, Ms, right=False)
    ref = np.concatenate([np.sqrt(-L.astype(complex)), -np.sqrt(-L.astype(complex))])
    assert len(lam) == len(ref)
    scale = np.abs(ref).max()
    for x in lam:
        assert np.abs(ref - x).min() <= 1e-8 * scale
    for x in ref:
        assert np.abs(lam - x).min() <= 1e-8 * scale
    # friction makes the pencil non-symmetric: this state flutters or not, and the
    # summary agrees with the eigenvalues
    s = st.summary
    assert s["flutter"] == bool(np.any((lam.real > 1e-9 * scale) & (np.abs(lam.imag) > 0)))
    v = st.mode(0)
    assert v.shape == (n,) and np.iscomplexobj(v)


def test_integrator_free_fall_closed_form():
    """A mass on no spring under gravity, no contact: u(t) = -g t^2 / 2 exactly for the
    theta = 1/2 scheme (constant acceleration)."""
    sys = fcd.System(1)
    sys.set_matrix("mass", sp.identity(1) * 2.0)
    sys.set_matrix("stiffness", sp.csr_matrix((1, 1)))
    sys.set_load([-2.0 * 9.81])
    it = fcd.Integrator(sys, None, "moreau-jean", step=1e-2)
    it.set_state(0.0, [0.0], [0.0])
    it.advance(1.0)
    t, u, v = it.state
    assert abs(t - 1.0) < 1e-12
    assert abs(u[0] + 9.81 / 2) < 1e-10
    assert abs(v[0] + 9.81) < 1e-10


def test_integrator_block_lands_and_stops():
    """A block dropped onto the flat with Fremond's scheme: the ledger closes (seed 004:
    exactly, to round-off) and the block is resting on the flat at the end."""
    K, M, top, bottom = plane_strain_block(nx=4, ny=2, E=1e5)
    n = K.shape[0]
    sys = fcd.System(n)
    sys.set_matrix("stiffness", K)
    sys.set_matrix("mass", M)
    g = np.zeros(n)
    g[1::2] = -9.81
    sys.set_load(M @ g)
    cs = fcd.ContactSet(sys, dim=2)
    for node in bottom:
        cs.add_rigid([2 * node, 2 * node + 1], normal=[0, -1], tangent=[1, 0], gap=0.01, mu=0.5)
    it = fcd.Integrator(sys, cs, "fremond", step=1e-3, tolerance=1e-12)
    it.set_state(0.0, np.zeros(n), np.zeros(n))
    it.advance(0.3)
    e = it.energy
    lhs = e["kinetic"] + e["potential"]
    rhs = (e["external_work"] - e["damping_dissipation"] - e["friction_dissipation"]
           - e["impact_dissipation"] - e["numerical_dissipation"])
    assert abs(lhs - rhs) <= 1e-9 * max(1.0, abs(e["external_work"]))
    assert any(s in ("stick", "slip") for s in it.contact_status)
    r = it.reactions
    assert r.shape == (len(bottom), 2)


def test_files_round_trip():
    K, M, _, _ = plane_strain_block(nx=3, ny=2)
    n = K.shape[0]
    sys = fcd.System(n)
    sys.set_matrix("stiffness", K)
    x = np.arange(n, dtype=float)
    with tempfile.TemporaryDirectory() as d:
        for write, read, name in (("write_matrix_market", "read_matrix_market", "k.mtx"),
                                  ("write_petsc_binary", "read_petsc_binary", "k.petsc")):
            path = os.path.join(d, name)
            getattr(sys, write)("stiffness", path)
            other = fcd.System(n)
            getattr(other, read)("stiffness", path)
            assert np.allclose(other.apply("stiffness", x), K @ x, rtol=1e-13,
                               atol=1e-12 * abs(K @ x).max())


def test_contact_rows_segment_midpoint():
    """A segment resting on an obstacle at its midpoint, given by rows (weights 1/2):
    the reaction of the closed form r = (g - u_N0) / ((1/k1 + 1/k2) / 4), u_N0 the free
    normal displacement (F1/k1 + F2/k2) / 2 (tests/contact/test_contact_rows.c)."""
    k1, k2, F1, F2, g = 200.0, 50.0, 3.0, 0.5, 0.005
    sys = fcd.System(4)
    sys.set_matrix("stiffness", np.diag([k1, k1, k2, k2]))
    sys.set_load(np.array([0.0, -F1, 0.0, -F2]))
    cs = fcd.ContactSet(sys, 2)
    cid = cs.add_rows([[(1, -0.5), (3, -0.5)], [(0, 0.5), (2, 0.5)]], gap=g, mu=0.3)
    assert cid == 0
    u, r = fcd.Equilibrium(sys, cs).solve("static")
    un0 = 0.5 * (F1 / k1 + F2 / k2)
    assert r[0, 0] == pytest.approx((g - un0) / (0.25 * (1 / k1 + 1 / k2)), rel=1e-9)
    assert -0.5 * (u[1] + u[3]) == pytest.approx(g, rel=1e-9)
    with pytest.raises(ValueError, match="expected 2 rows"):
        cs.add_rows([[(1, 1.0)]])
    with pytest.raises(fcd.FcdError, match="dof 9 outside"):
        cs.add_rows([[(9, 1.0)], [(0, 1.0)]])


# ---- bad input: clear errors, no crash ----------------------------------------------

def test_wrong_dtype_shape_order():
    sys = fcd.System(4)
    with pytest.raises(TypeError, match="dtype complex"):
        sys.set_matrix("mass", np.eye(4, dtype=complex))
    with pytest.raises(TypeError, match="dtype"):
        sys.set_load(np.array(["a", "b", "c", "d"]))
    with pytest.raises(TypeError, match="dtype bool"):
        sys.set_load(np.ones(4, dtype=bool))
    with pytest.raises(ValueError, match=r"expected shape \(4,\)"):
        sys.set_load(np.ones(5))
    with pytest.raises(ValueError, match=r"expected shape \(4, 4\)"):
        sys.set_matrix("mass", sp.identity(3))
    with pytest.raises(ValueError, match="unknown matrix"):
        sys.set_matrix("inertia", np.eye(4))
    with pytest.raises(TypeError, match="integer indices"):
        sys.fix_dofs(np.array([0.5]))
    # memory order and integer dtypes are converted, not refused
    A = np.asfortranarray(np.diag([1.0, 2.0, 3.0, 4.0]))
    sys.set_matrix("mass", A)
    sys.set_matrix("stiffness", np.diag(np.arange(1, 5)))  # int64
    y = sys.apply("mass", np.ones(8)[::2])  # a strided view
    assert np.allclose(y, [1, 2, 3, 4])


def test_library_errors_carry_fcd_messages():
    sys = fcd.System(4)
    sys.set_matrix("mass", -np.eye(4))
    sys.set_matrix("stiffness", np.eye(4))
    with pytest.raises(fcd.FcdError) as e:
        sys.natural_modes(2)
    assert e.value.status < 0 and e.value.name.startswith("FCD_E_")
    assert e.value.message
    with pytest.raises(fcd.FcdError) as e:
        sys.fix_dofs([7])
    assert e.value.name == "FCD_E_INVALID_ARG" and "7" in e.value.message
    with pytest.raises(fcd.FcdError) as e:
        sys.read_petsc_binary("mass", "/nonexistent/file.petsc")
    assert e.value.name == "FCD_E_IO"
    cs = fcd.ContactSet(sys, dim=2)
    with pytest.raises(ValueError, match="expected 2 indices"):
        cs.add_rigid([0, 1, 2], [0, 1], [1, 0])
    with pytest.raises(fcd.FcdError) as e:
        cs.add_rigid([0, 1], [0, 0], [1, 0])  # a zero normal
    assert e.value.name == "FCD_E_INVALID_ARG"
    st = fcd.Stability(sys, cs)
    with pytest.raises(ValueError, match="expected 0 entries"):
        st.set_contact_state(["slip"])


def test_vtk_opened_by_vtk():
    """Mode shapes and contact status written by fcd, read back by VTK's own legacy
    reader (Debian python3-vtk9): the same points, cells and values."""
    vtk = pytest.importorskip("vtk")
    from vtk.util.numpy_support import vtk_to_numpy
    nx, ny = 6, 3
    K, M, top, bottom = plane_strain_block(nx, ny)
    n = K.shape[0]
    px = nx + 1
    coords = np.array([[(p % px) / nx, (p // px) * 0.5 / ny] for p in range(n // 2)])
    tris = []
    for j in range(ny):
        for i in range(nx):
            a, b, c, d = i + px * j, i + 1 + px * j, i + 1 + px * (j + 1), i + px * (j + 1)
            tris += [(a, b, c), (a, c, d)]
    sys = fcd.System(n)
    sys.set_matrix("stiffness", K)
    sys.set_matrix("mass", M)
    sys.fix_dofs([2 * p + k for p in top for k in (0, 1)])
    cs = fcd.ContactSet(sys, dim=2)
    for node in bottom:
        cs.add_rigid([2 * node, 2 * node + 1], normal=[0, 1], tangent=[1, 0], mu=0.5)
    status = [("slip", "stick", "open")[c % 3] for c in range(len(bottom))]
    st = fcd.Stability(sys, cs)
    st.set_contact_state(status, slip=np.ones(len(bottom)))
    st.solve()
    mode = st.mode(0)
    mesh = fcd.Mesh(sys, coords)
    mesh.add_cells("triangle", tris)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "mode.vtk")
        mesh.write_vtk(path, {"mode0": mode}, contacts=cs, status=status)
        r = vtk.vtkUnstructuredGridReader()
        r.SetFileName(path)
        r.ReadAllVectorsOn()
        r.ReadAllScalarsOn()
        r.Update()
        g = r.GetOutput()
    assert g.GetNumberOfPoints() == n // 2
    assert g.GetNumberOfCells() == len(tris)
    assert all(g.GetCellType(c) == vtk.VTK_TRIANGLE for c in range(len(tris)))
    pts = vtk_to_numpy(g.GetPoints().GetData())
    assert np.array_equal(pts[:, :2], coords) and np.all(pts[:, 2] == 0)
    for c, tri in enumerate(tris):
        ids = g.GetCell(c).GetPointIds()
        assert [ids.GetId(k) for k in range(3)] == list(tri)
    pd = g.GetPointData()
    re = vtk_to_numpy(pd.GetArray("mode0_re"))
    im = vtk_to_numpy(pd.GetArray("mode0_im"))
    assert np.array_equal(re[:, :2].reshape(-1), mode.real)
    assert np.array_equal(im[:, :2].reshape(-1), mode.imag)
    cst = vtk_to_numpy(pd.GetArray("contact_status"))
    want = np.full(n // 2, -1)
    for c, node in enumerate(bottom):
        want[node] = {"open": 0, "stick": 1, "slip": 2}[status[c]]
    assert np.array_equal(cst, want)


def test_vtk_bad_input(tmp_path):
    sys = fcd.System(4)
    with pytest.raises(ValueError, match="coords"):
        fcd.Mesh(sys, np.zeros(4))
    with pytest.raises(fcd.FcdError) as e:
        fcd.Mesh(sys, np.zeros((3, 2)))  # 3 nodes in 2D are 6 dofs, not 4
    assert e.value.name == "FCD_E_INVALID_ARG" and "6 dofs" in e.value.message
    m = fcd.Mesh(sys, np.array([[0.0, 0.0], [1.0, 0.0]]))  # a line needs a length
    with pytest.raises(fcd.FcdError) as e:
        m.add_cells("triangle", [[0, 1, 2]])
    assert "node 2" in e.value.message
    with pytest.raises(ValueError, match="unknown cell type"):
        m.add_cells("pyramid", [[0, 1, 0, 1, 0]])
    m.add_cells("line", [[0, 1]])
    with pytest.raises(TypeError, match="dtype"):
        m.write_vtk(str(tmp_path / "x.vtk"), {"u": np.array(["a"] * 4)})
    with pytest.raises(ValueError, match=r"expected shape \(4,\)"):
        m.write_vtk(str(tmp_path / "x.vtk"), {"u": np.zeros(3)})
    with pytest.raises(fcd.FcdError) as e:
        m.write_vtk("/nonexistent/dir/x.vtk", {"u": np.zeros(4)})
    assert e.value.name == "FCD_E_IO"
    with pytest.raises(fcd.FcdError) as e:
        m.write_vtk(str(tmp_path / "x.vtk"), {"bad name": np.zeros(4)})
    assert "name" in e.value.message


def test_cli_vtk_output():
    """`fcd stability --mesh --vtk` and `fcd simulate --mesh --vtk` on a model exported
    from Python, with the mesh given as a VTK file (written by fcd.Mesh): VTK's reader
    finds in mode-0.vtk exactly the mode the library computes for the same state."""
    vtk = pytest.importorskip("vtk")
    import subprocess
    from vtk.util.numpy_support import vtk_to_numpy
    exe = os.environ.get("FCD_EXE")
    if not exe:
        pytest.skip("FCD_EXE not set")
    nx, ny = 4, 2
    K, M, top, bottom = plane_strain_block(nx, ny)
    n = K.shape[0]
    px = nx + 1
    coords = np.array([[(p % px) / nx, (p // px) * 0.5 / ny] for p in range(n // 2)])
    quads = [(i + px * j, i + 1 + px * j, i + 1 + px * (j + 1), i + px * (j + 1))
             for j in range(ny) for i in range(nx)]
    fixed = [2 * p + k for p in top for k in (0, 1)]
    status = [("slip", "stick")[c % 2] for c in range(len(bottom))]
    sys = fcd.System(n)
    sys.set_matrix("stiffness", K)
    sys.set_matrix("mass", M)
    sys.fix_dofs(fixed)
    cs = fcd.ContactSet(sys, dim=2)
    for node in bottom:
        cs.add_rigid([2 * node, 2 * node + 1], normal=[0, 1], tangent=[1, 0], mu=0.4)
    st = fcd.Stability(sys, cs)
    st.set_contact_state(status, slip=np.ones(len(bottom)))
    st.solve()
    with tempfile.TemporaryDirectory() as d:
        j = lambda name: os.path.join(d, name)
        sys.write_matrix_market("stiffness", j("K.mtx"))
        sys.write_matrix_market("mass", j("M.mtx"))
        with open(j("fixed.txt"), "w") as f:
            f.write("".join("%d\n" % k for k in fixed))
        with open(j("contacts.txt"), "w") as f:
            f.write("fcd-contacts 1\ndim 2\n")
            for node in bottom:
                f.write("rigid %d %d 0 1 1 0 0 0.4\n" % (2 * node, 2 * node + 1))
        with open(j("state.csv"), "w") as f:
            f.write("contact,status,slip_t,slip_b\n")
            for c, s in enumerate(status):
                f.write("%d,%s,%g,0\n" % (c, s, 1.0 if s == "slip" else 0.0))
        mesh = fcd.Mesh(sys, coords)
        mesh.add_cells("quad", quads)
        mesh.write_vtk(j("mesh.vtk"))
        base = [exe, "stability", "--mass", j("M.mtx"), "--stiffness", j("K.mtx"),
                "--fixed", j("fixed.txt"), "--contacts", j("contacts.txt"),
                "--state", j("state.csv"), "--out", j("chart.csv")]
        r = subprocess.run(base + ["--mesh", j("mesh.vtk"), "--vtk", j("out")],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        rd = vtk.vtkUnstructuredGridReader()
        rd.SetFileName(j("out/mode-0.vtk"))
        rd.ReadAllVectorsOn()
        rd.ReadAllScalarsOn()
        rd.Update()
        g = rd.GetOutput()
        assert g.GetNumberOfPoints() == n // 2 and g.GetNumberOfCells() == len(quads)
        assert g.GetCellType(0) == vtk.VTK_QUAD
        pd = g.GetPointData()
        mode = st.mode(0)
        assert np.array_equal(vtk_to_numpy(pd.GetArray("mode_re"))[:, :2].reshape(-1), mode.real)
        assert np.array_equal(vtk_to_numpy(pd.GetArray("mode_im"))[:, :2].reshape(-1), mode.imag)
        cst = vtk_to_numpy(pd.GetArray("contact_status"))
        assert [int(cst[node]) for node in bottom] == [{"slip": 2, "stick": 1}[s] for s in status]
        # the pair is required, and a mesh of the wrong size is refused
        r = subprocess.run(base + ["--vtk", j("out2")], capture_output=True, text=True)
        assert r.returncode == 2 and "--mesh" in r.stderr
        small = fcd.System(8)
        m2 = fcd.Mesh(small, np.zeros((4, 2)))
        m2.write_vtk(j("small.vtk"))
        r = subprocess.run(base + ["--mesh", j("small.vtk"), "--vtk", j("out3")],
                           capture_output=True, text=True)
        assert r.returncode == 1 and "small.vtk" in r.stderr
        # simulate: the final state
        with open(j("v0.txt"), "w") as f:
            f.write(" ".join("%g" % (-0.1 if k % 2 else 0.0) for k in range(n)) + "\n")
        r = subprocess.run([exe, "simulate", "--mass", j("M.mtx"), "--stiffness", j("K.mtx"),
                            "--fixed", j("fixed.txt"), "--contacts", j("contacts.txt"),
                            "--v0", j("v0.txt"), "--dt", "1e-4", "--t-end", "2e-3",
                            "--out", j("h.csv"), "--mesh", j("mesh.vtk"), "--vtk", j("sim")],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        rd.SetFileName(j("sim/final.vtk"))
        rd.Update()
        pd = rd.GetOutput().GetPointData()
        u = vtk_to_numpy(pd.GetArray("displacement"))
        assert u.shape == (n // 2, 3) and np.all(u[:, 2] == 0)
        assert np.all(u[top, :2] == 0)
        assert set(np.unique(vtk_to_numpy(pd.GetArray("contact_status")))) <= {-1, 0, 1, 2}


def test_matrices_out_as_scipy_sparse():
    """What goes in as scipy.sparse comes back out as scipy.sparse: the stiffness given
    in full, and a mass given by its upper triangle only through Matrix Market."""
    K, M, _, _ = plane_strain_block(nx=3, ny=2)
    n = K.shape[0]
    sys = fcd.System(n)
    sys.set_matrix("stiffness", K)
    out = sys.matrix("stiffness")
    assert sp.issparse(out) and out.shape == (n, n)
    assert abs(out - K).max() == 0
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "m.mtx")
        upper = sp.triu(M).tocoo()
        with open(path, "w") as f:
            f.write("%%%%MatrixMarket matrix coordinate real symmetric\n%d %d %d\n"
                    % (n, n, upper.nnz))
            for i, j, v in zip(upper.row, upper.col, upper.data):
                f.write("%d %d %.17g\n" % (j + 1, i + 1, v))  # lower triangle, as the standard
        sys.read_matrix_market("mass", path)
    assert abs(sys.matrix("mass") - M).max() == 0
    with pytest.raises(fcd.FcdError) as e:
        sys.matrix("damping")
    assert e.value.name == "FCD_E_STATE"


def test_empty_contact_set_is_still_a_contact_set():
    """An empty ContactSet has len() 0; it must reach C as that set, not as NULL (a
    stability analysis without a set would not see contacts added later)."""
    sys = fcd.System(2)
    sys.set_matrix("mass", np.eye(2))
    sys.set_matrix("stiffness", np.diag([1.0, 4.0]))
    cs = fcd.ContactSet(sys, dim=2)
    st = fcd.Stability(sys, cs)
    cs.add_rigid([0, 1], normal=[0, 1], tangent=[1, 0], mu=0.0)
    st.set_contact_state(["stick"])
    with pytest.raises(fcd.FcdError) as e:  # stuck: both dofs removed, nothing left
        st.solve()
    assert e.value.name == "FCD_E_STATE"


# ---- issue 20: what the CLI has, from Python ------------------------------------------
# Seed 000's pin on a flat (docs/getting-started.md): dofs u_D (held), u_theta, u_T, u_N.
PIN_K = "%%MatrixMarket matrix coordinate real symmetric\n4 4 8\n1 1 1\n2 1 0.1\n3 1 -1\n" \
        "2 2 0.0296\n3 2 -0.1\n4 2 0.0294\n3 3 1\n4 4 0.0588\n"
PIN_M = "%%MatrixMarket matrix coordinate real symmetric\n4 4 5\n1 1 3\n2 2 0.025\n3 2 -0.05\n" \
        "3 3 1\n4 4 1\n"


def pin(tmp, mu=2.2):
    files = {"K.mtx": PIN_K, "M.mtx": PIN_M, "fixed.txt": "0\n", "f.txt": "0 0 0 0.01\n",
             "contacts.txt": "fcd-contacts 1\ndim 2\nrigid 2 3   0 1   1 0   0 %.17g   0.015\n" % mu}
    for name, text in files.items():
        with open(os.path.join(tmp, name), "w") as fh:
            fh.write(text)
    s = fcd.System(4)
    s.read_matrix_market("stiffness", os.path.join(tmp, "K.mtx"))
    s.read_matrix_market("mass", os.path.join(tmp, "M.mtx"))
    s.read_fixed(os.path.join(tmp, "fixed.txt"))
    s.set_load(s.read_vector(os.path.join(tmp, "f.txt")))
    cs = fcd.ContactSet.read(s, os.path.join(tmp, "contacts.txt"))
    return s, cs


def test_files_certificate_slip_and_sweep_on_the_pin():
    with tempfile.TemporaryDirectory() as tmp:
        s, cs = pin(tmp)
        assert len(cs) == 1 and cs.dim == 2
        eq = fcd.Equilibrium(s, cs)
        u, r = eq.solve("steady-sliding")
        # the paper's closed form: r_N = -Mg/(EA (1 + 1.5 mu H_B/L)), H_B/L = 0.1
        assert r[0, 0] == pytest.approx(-0.01 / (1 + 1.5 * 2.2 * 0.1), rel=1e-12)
        status, slip = eq.contact_state
        assert status == ["slip"] and slip.shape == (1, 1) and slip[0, 0] == -1.0
        # the same state through the file the program writes
        with open(os.path.join(tmp, "state.csv"), "w") as fh:
            fh.write("contact,status,slip_t,slip_b\n0,slip,-1,0\n")
        st2, sl2 = cs.read_state(os.path.join(tmp, "state.csv"))
        assert st2 == status and sl2.tolist() == slip.tolist()
        cert = eq.certificate
        assert cert["worst"] <= cert["tolerance"] and cert["tolerance"] > 0
        res_eq, res_comp = eq.residual
        assert res_eq >= 0 and res_comp >= 0
        # the support reaction at the held end D: the balance of the pin's row of K u
        R = s.support_reactions(u)
        Ku = s.apply("stiffness", u)
        assert R.shape == (1,) and R[0] == pytest.approx(Ku[0], abs=1e-15)
        # the friction sweep: flutter starts between 1.7 and 1.8 (closed form 1.7357)
        st = fcd.Stability(s, cs)
        st.set_contact_state(status, slip)
        rows = st.sweep(0.0, 4.0, 41)
        assert len(rows) == 41
        unstable = [mu for mu, lam, tr in rows if lam.real.max() > 1e-9]
        assert unstable and 1.7 < unstable[0] <= 1.8 + 1e-12
        assert st.certificate["worst"] <= 1e-8


def test_observer_and_batch_contacts():
    s = fcd.System(4)
    s.set_matrix("mass", np.eye(4))
    s.set_matrix("stiffness", np.diag([1.0, 1.0, 1.0, 1.0]))
    s.set_load([0, -9.81, 0, -9.81])
    cs = fcd.ContactSet(s, 2)
    ids = cs.add_rigid_many([[0, 1], [2, 3]], [[0, -1], [0, -1]], [[1, 0], [1, 0]], mu=0.3,
                            gaps=[0.05, 0.05])
    assert list(ids) == [0, 1] and len(cs) == 2
    with pytest.raises(fcd.FcdError, match="entry 1 of 2"):
        # entry 0 a ceiling over node 0 (a constraint of its own), entry 1 a bad normal
        cs.add_rigid_many([[0, 1], [2, 3]], [[0, 1], [0, -2]], [[1, 0], [1, 0]], mu=0.3)
    assert len(cs) == 2  # all or nothing
    it = fcd.Integrator(s, cs, "moreau-jean", step=0.01)
    it.set_state(0.0, np.zeros(4), np.zeros(4))
    seen = []
    it.set_observer(lambda t, u, v, r, counts: seen.append((t, counts["open"])) and False)
    it.advance(0.5)
    assert len(seen) == 50 and seen[-1][0] == pytest.approx(0.5)
    assert it.certificate["worst"] <= it.certificate["tolerance"]
    # a true return stops the run
    it.set_observer(lambda t, u, v, r, counts: t > 0.6 + 1e-12)
    with pytest.raises(fcd.FcdError):
        it.advance(1.0)
    it.set_observer(None)
    it.advance(1.0)


def test_global_estimate_beside_a_partial_window(tmp_path):
    """Issue 64: a 550-dof block sliding on its 25 bottom nodes (mu = 0.6), whose reduced
    pencil (507 dofs) is solved for 4 pairs near 300 Hz. The estimate beside that window
    (the undamped pencil on the lowest modes of the frictionless one, solved whole) is
    the dense spectrum's largest real part when the basis is the whole space, and within
    10% of that spectrum's largest real part inside its band otherwise; the program prints
    it."""
    import subprocess
    K, M, top, bottom = plane_strain_block(nx=24, ny=10)
    n = K.shape[0]
    f = np.zeros(n)
    f[[2 * t + 1 for t in top]] = -1e4
    fixed = [2 * t for t in top]
    s = fcd.System(n)
    s.set_matrix("stiffness", K)
    s.set_matrix("mass", M)
    s.fix_dofs(fixed)
    s.set_load(f)
    cs = fcd.ContactSet(s, 2)
    for b in bottom:
        cs.add_rigid([2 * b, 2 * b + 1], [0, -1], [1, 0], mu=0.6)
        cs.set_sliding_velocity(len(cs) - 1, [1.0])
    eq = fcd.Equilibrium(s, cs)
    eq.solve("steady-sliding")
    status, slip = eq.contact_state
    dense = fcd.Stability(s, cs, dense_max=1000)
    dense.set_contact_state(status, slip)
    lam = dense.solve()
    assert dense.estimate is None  # the whole spectrum: nothing to estimate
    for nm in (507, 100, 200):
        st = fcd.Stability(s, cs, dense_max=0, nev=4, target_hz=300, estimate_modes=nm)
        st.set_contact_state(status, slip)
        st.solve()
        e = st.estimate
        inband = max(l.real for l in lam if abs(l.imag) / (2 * np.pi) <= e["band_hz"])
        if nm == 507:
            assert e["nmodes"] == 507
            assert e["re"] == pytest.approx(lam.real.max(), rel=1e-8)
        else:
            assert e["re"] == pytest.approx(inband, rel=0.1)
    # the program: its window line and the estimate
    exe = os.environ.get("FCD_EXE")
    if not exe:
        return
    d = tmp_path
    s.write_matrix_market("stiffness", str(d / "K.mtx"))
    s.write_matrix_market("mass", str(d / "M.mtx"))
    (d / "fixed.txt").write_text("".join("%d\n" % x for x in fixed))
    (d / "f.txt").write_text("".join("%.17g\n" % x for x in f))
    (d / "c.txt").write_text("fcd-contacts 1\ndim 2\n" + "".join(
        "rigid %d %d 0 -1 1 0 0 0.6 1\n" % (2 * b, 2 * b + 1) for b in bottom))
    out = subprocess.run([exe, "stability", "--mass", "M.mtx", "--stiffness", "K.mtx",
                          "--fixed", "fixed.txt", "--load", "f.txt", "--contacts", "c.txt",
                          "--steady-sliding", "--nev", "4", "--target-hz", "300", "--out",
                          "ch.csv"], cwd=d, capture_output=True, text=True, check=True).stdout
    assert "speaks for this window only" in out
    line = [x for x in out.splitlines() if x.startswith("estimate:")]
    assert len(line) == 1 and "40 lowest modes of the frictionless one" in line[0]
