"""Time series for ParaView (issue 67): frames written by fcd_series while the
integrator runs, read back by VTK's own XML reader (Debian python3-vtk9, a dependency
of the test suite: no skip) and compared with the integrator's in-memory state to
round-off. (The collection, .pvd, is ParaView's format: Debian's VTK has no reader for it,
vtkXMLCollectionReader not being wrapped, so the test reads it as the XML it is.)

The model is test_mortar_patch's: two plane-strain blocks, the upper pressed onto the
lower, with mass, frictional contact on the interface. The references for the contact
fields do not come from fcd: the node pairs' rows (matching meshes) and the dual mortar
rows (non-matching) are built here, independently (test_mortar_patch.mortar_rows), and
the nodal forces H^T r, the gaps g - u_N and the slip velocities come from them.
"""
import xml.etree.ElementTree as ET

import numpy as np
import pytest
import vtk
from vtk.util.numpy_support import vtk_to_numpy

import fcd
from test_mortar_patch import NY, model, mortar_rows

STATUS = {"open": 0, "stick": 1, "slip": 2}


def quads(nx, off):
    """the cells of a block of nx x NY elements whose nodes start at off"""
    px = nx + 1
    return [(off + i + px * j, off + i + 1 + px * j, off + i + 1 + px * (j + 1),
             off + i + px * (j + 1)) for j in range(NY) for i in range(nx)]


def build(kind, nx_top, nx_bot, mu=0.3):
    sys, xy, slave, master = model(with_mass=True, nx_top=nx_top, nx_bot=nx_bot)
    mesh = fcd.Mesh(sys, xy)
    mesh.add_cells("quad", quads(nx_bot, 0) + quads(nx_top, (nx_bot + 1) * (NY + 1)))
    cs = fcd.ContactSet(sys, 2)
    if kind == "pairs":
        rows = []
        for s, m in zip(slave, master):
            cs.add_pair([2 * s, 2 * s + 1], [2 * m, 2 * m + 1], [0.0, -1.0], [1.0, 0.0],
                        gap=0.0, mu=mu)
            # u_N = n . (u_A - u_B), n = (0, -1); u_T = t . (u_A - u_B), t = (1, 0)
            rows.append(([(2 * s + 1, -1.0), (2 * m + 1, 1.0)], [(2 * s, 1.0), (2 * m, -1.0)]))
        homes = [[s, m] for s, m in zip(slave, master)]
    else:
        ids, inactive = cs.add_surface_pair(mesh, list(zip(slave[:-1], slave[1:])),
                                            list(zip(master[:-1], master[1:])), kind, mu=mu)
        assert len(ids) == len(slave) and inactive == 0
        rows, _ = mortar_rows(xy, slave, master)
        homes = [[s] for s in slave]
    return sys, xy, mesh, cs, rows, homes


def apply_rows(rows, x):
    """(u_N, u_T) of every contact from its rows"""
    return np.array([[sum(w * x[d] for d, w in r) for r in pair] for pair in rows])


def rows_transpose(rows, r, n):
    g = np.zeros(n)
    for pair, rc in zip(rows, r):
        for row, val in zip(pair, rc):
            for d, w in row:
                g[d] += w * val
    return g


def read_vtu(path):
    rd = vtk.vtkXMLUnstructuredGridReader()
    rd.SetFileName(str(path))
    rd.Update()
    assert rd.GetErrorCode() == 0
    grid = rd.GetOutput()
    pd = grid.GetPointData()
    arrays = {pd.GetArrayName(k): vtk_to_numpy(pd.GetArray(k)) for k in range(pd.GetNumberOfArrays())}
    t = vtk_to_numpy(grid.GetFieldData().GetArray("TimeValue"))[0]
    return grid, arrays, t


def per_node(x, nn):
    out = np.zeros((nn, 3))
    out[:, :2] = x.reshape(nn, 2)
    return out


@pytest.mark.parametrize("kind,nx_top,nx_bot", [("pairs", 4, 4), ("dual-mortar", 3, 4)])
def test_series_read_back(tmp_path, kind, nx_top, nx_bot):
    """Every frame's points, cells and fields as VTK reads them equal what the integrator
    held at that step; the collection lists the frames with their times."""
    sys, xy, mesh, cs, rows, homes = build(kind, nx_top, nx_bot)
    n, nn = sys.ndofs, len(xy)
    it = fcd.Integrator(sys, cs, "moreau-jean", step=2e-6)
    it.set_state(0.0, np.zeros(n), np.zeros(n))
    series = fcd.Series(mesh, tmp_path, "run", contacts=cs)
    mesh.close()  # the series keeps what it needs of the mesh
    held = []
    for _ in range(12):
        it.step()
        series.write_integrator(it)
        t, u, v = it.state
        held.append((t, u, v, it.reactions.copy(), list(it.contact_status)))
    assert series.frames == 12
    statuses = {s for h in held for s in h[4]}
    assert statuses & {"stick", "slip"}  # the blocks touch: the fields carry something
    root = ET.parse(tmp_path / "run.pvd").getroot()
    sets = root.find("Collection").findall("DataSet")
    assert [d.get("file") for d in sets] == ["run-%06d.vtu" % k for k in range(12)]
    force = kind == "pairs"
    rn_name = "contact_normal_force" if force else "contact_pressure"
    rt_name = "contact_tangential_force" if force else "contact_shear_stress"
    for k, (d, (t, u, v, r, st)) in enumerate(zip(sets, held)):
        assert float(d.get("timestep")) == t
        grid, a, tv = read_vtu(tmp_path / d.get("file"))
        assert tv == t
        assert grid.GetNumberOfPoints() == nn
        assert grid.GetNumberOfCells() == nx_top * NY + nx_bot * NY
        pts = vtk_to_numpy(grid.GetPoints().GetData())
        assert np.array_equal(pts[:, :2], xy) and not pts[:, 2].any()
        assert grid.GetCellType(0) == 9
        assert np.array_equal(a["displacement"], per_node(u, nn))
        assert np.array_equal(a["velocity"], per_node(v, nn))
        # the other kind's names are absent
        assert ("contact_pressure" in a) != force and ("contact_normal_force" in a) == force
        ht = rows_transpose(rows, r, n)
        scale = max(np.abs(ht).max(), 1e-300)
        assert np.abs(a["contact_force"] - per_node(ht, nn)).max() <= 1e-13 * scale
        loc_u, loc_v = apply_rows(rows, u), apply_rows(rows, v)
        ust = max(np.abs(u).max(), 1e-300)
        vst = max(np.abs(v).max(), 1e-300)
        on = np.zeros(nn, bool)
        for c, nodes in enumerate(homes):
            for p in nodes:
                on[p] = True
                assert a["contact_status"][p] == STATUS[st[c]]
                assert a[rn_name][p] == r[c, 0] and a[rt_name][p] == r[c, 1]
                assert abs(a["contact_gap"][p] - (0.0 - loc_u[c, 0])) <= 1e-13 * ust
                assert abs(a["contact_slip_velocity"][p] - loc_v[c, 1]) <= 1e-13 * vst
        assert (a["contact_status"][~on] == -1).all()
        assert np.isnan(a["contact_gap"][~on]).all()
        assert not a[rn_name][~on].any()


def test_series_refusals(tmp_path):
    """Bad input is named, and a refused frame leaves the series as it was."""
    sys, xy, mesh, cs, rows, homes = build("pairs", 4, 4)
    n = sys.ndofs
    with pytest.raises(fcd.FcdError, match="name"):
        fcd.Series(mesh, tmp_path, "a/b", contacts=cs)
    with pytest.raises(fcd.FcdError, match="cannot create"):
        fcd.Series(mesh, tmp_path / "missing", "run", contacts=cs)
    s = fcd.Series(mesh, tmp_path, "run", contacts=cs)
    s.write(0.0, np.zeros(n), np.zeros(n))
    with pytest.raises(fcd.FcdError, match="same arrays"):
        s.write(1.0, np.zeros(n))  # no v where the first frame had one
    with pytest.raises(fcd.FcdError, match="not finite"):
        s.write(float("nan"), np.zeros(n), np.zeros(n))
    with pytest.raises(fcd.FcdError, match="status 7"):
        s2 = fcd.Series(mesh, tmp_path, "st", contacts=cs)
        s2.write(0.0, np.zeros(n), None, None, [7] * len(homes))
    assert s.frames == 1
    cs.add_rigid([n - 2, n - 1], [0.0, -1.0], [1.0, 0.0], gap=1.0)
    with pytest.raises(fcd.FcdError, match="contact set changed"):
        s.write(2.0, np.zeros(n), np.zeros(n))
    root = ET.parse(tmp_path / "run.pvd").getroot()
    assert len(root.find("Collection").findall("DataSet")) == 1
    _, a, t = read_vtu(tmp_path / "run-000000.vtu")
    assert t == 0.0 and not a["displacement"].any()


def block_files(d):
    """test_fcd's plane-strain block on rigid frictional supports, exported for the
    program, thrown down at 0.1 m/s: the system, its contacts, the mesh, the start"""
    import os
    from test_fcd import plane_strain_block
    nx, ny = 4, 2
    K, M, top, bottom = plane_strain_block(nx, ny)
    n = K.shape[0]
    px = nx + 1
    coords = np.array([[(p % px) / nx, (p // px) * 0.5 / ny] for p in range(n // 2)])
    cells = [(i + px * j, i + 1 + px * j, i + 1 + px * (j + 1), i + px * (j + 1))
             for j in range(ny) for i in range(nx)]
    sys = fcd.System(n)
    sys.set_matrix("stiffness", K)
    sys.set_matrix("mass", M)
    cs = fcd.ContactSet(sys, dim=2)
    for node in bottom:
        cs.add_rigid([2 * node, 2 * node + 1], normal=[0, 1], tangent=[1, 0], mu=0.4)
    j = lambda name: os.path.join(d, name)
    sys.write_matrix_market("stiffness", j("K.mtx"))
    sys.write_matrix_market("mass", j("M.mtx"))
    with open(j("contacts.txt"), "w") as f:
        f.write("fcd-contacts 1\ndim 2\n")
        for node in bottom:
            f.write("rigid %d %d 0 1 1 0 0 0.4\n" % (2 * node, 2 * node + 1))
    mesh = fcd.Mesh(sys, coords)
    mesh.add_cells("quad", cells)
    mesh.write_vtk(j("mesh.vtk"))
    v0 = np.array([(-0.1 if k % 2 else 0.05) for k in range(n)])
    with open(j("v0.txt"), "w") as f:
        f.write(" ".join("%.17g" % x for x in v0) + "\n")
    return sys, cs, v0, j


@pytest.mark.parametrize("reduce", [None, 3])
def test_cli_series(tmp_path, reduce):
    """`fcd simulate --mesh --series DIR --every 5`: the collection lists the start and
    every fifth step with their times, and each frame holds what the same run through the
    Python binding holds at that step (with --reduce, the reduced run expanded)."""
    import os
    import subprocess
    exe = os.environ["FCD_EXE"]
    sys, cs, v0, j = block_files(str(tmp_path))
    n = sys.ndofs
    base = [exe, "simulate", "--mass", j("M.mtx"), "--stiffness", j("K.mtx"),
            "--contacts", j("contacts.txt"), "--v0", j("v0.txt"), "--dt", "1e-4",
            "--t-end", "2e-3", "--out", j("h.csv")]
    args = base + ["--mesh", j("mesh.vtk"), "--series", j("run"), "--every", "5"]
    if reduce is not None:
        args += ["--reduce", str(reduce)]
    r = subprocess.run(args, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "series: %s/series.pvd (5 frames)" % j("run") in r.stdout
    if reduce is None:
        model, ccs, expand = sys, cs, lambda x: x
        u0, w0 = np.zeros(n), v0
    else:
        red = fcd.Reduction(sys, cs, reduce)
        model, ccs, expand = red.system, red.contacts, red.expand
        u0, w0 = red.restrict(np.zeros(n)), red.restrict(v0)
    it = fcd.Integrator(model, ccs, "moreau-jean", step=1e-4, theta=0.5)
    it.set_state(0.0, u0, w0)
    want = [(0.0, expand(u0), expand(w0), np.zeros((len(cs), 2)), None)]
    count = [0]

    def every5(t, u, v, rl, counts):  # the program's steps: advance to t_end, as it does
        count[0] += 1
        if count[0] % 5 == 0:
            want.append((t, expand(u), expand(v), rl.reshape(-1, 2), it.contact_status))

    it.set_observer(every5)
    it.advance(2e-3)
    sets = ET.parse(j("run/series.pvd")).getroot().find("Collection").findall("DataSet")
    assert len(sets) == 5
    nn = n // 2
    for d, (t, u, v, rr, st) in zip(sets, want):
        assert float(d.get("timestep")) == t
        _, a, tv = read_vtu(os.path.join(j("run"), d.get("file")))
        assert tv == t
        assert np.abs(a["displacement"] - per_node(u, nn)).max() <= 1e-12 * max(np.abs(u).max(), 1e-30)
        assert np.abs(a["velocity"] - per_node(v, nn)).max() <= 1e-12 * np.abs(v).max()
        rn = a["contact_normal_force"][a["contact_status"] >= 0]
        assert np.abs(rn - rr[:, 0]).max() <= 1e-12 * max(np.abs(rr).max(), 1e-30)
        if st is not None:
            assert list(a["contact_status"][a["contact_status"] >= 0]) == [STATUS[s] for s in st]
    # the options' own checks
    r = subprocess.run(base + ["--series", j("x")], capture_output=True, text=True)
    assert r.returncode == 2 and "--mesh" in r.stderr
    r = subprocess.run(base + ["--mesh", j("mesh.vtk"), "--every", "3"], capture_output=True,
                       text=True)
    assert r.returncode == 2 and "--every goes with --series" in r.stderr


def block_modes(d):
    """block_files' model with half its supports slipping: the stability analysis (the
    Python side) and the state file the program reads"""
    import os
    sys, cs, v0, j = block_files(d)
    status = [("slip", "stick")[c % 2] for c in range(len(cs))]
    st = fcd.Stability(sys, cs)
    st.set_contact_state(status, slip=np.ones(len(cs)))
    lam = st.solve()
    with open(j("state.csv"), "w") as f:
        f.write("contact,status,slip_t,slip_b\n")
        for c, s in enumerate(status):
            f.write("%d,%s,%g,0\n" % (c, s, 1.0 if s == "slip" else 0.0))
    return sys, cs, st, lam, j


def check_mode_frames(pvd, mode, lam, nframes, nn, tol):
    """the frames of a mode series: Re(mode e^(i theta_k)) at theta_k / |Im lambda|, the
    eigenvalue in the field data"""
    import os
    sets = ET.parse(pvd).getroot().find("Collection").findall("DataSet")
    assert len(sets) == nframes
    w = abs(lam.imag)
    for k, d in enumerate(sets):
        th = 2 * np.pi * k / nframes
        t_want = th / w if w > 0 else k / nframes
        assert abs(float(d.get("timestep")) - t_want) <= 1e-15 * max(t_want, 1e-300) + 1e-300
        grid, a, t = read_vtu(os.path.join(os.path.dirname(pvd), d.get("file")))
        x = (mode * np.exp(1j * th)).real
        assert np.abs(a["displacement"] - per_node(x, nn)).max() <= tol * np.abs(mode).max()
        fd = grid.GetFieldData()
        val = lambda name: vtk_to_numpy(fd.GetArray(name))[0]
        assert val("eigenvalue_re") == lam.real and val("eigenvalue_im") == lam.imag
        assert abs(val("frequency_hz") - w / (2 * np.pi)) <= 1e-15 * w
        assert val("growth_rate") == lam.real
        assert "velocity" not in a


def test_mode_series(tmp_path):
    """A flutter mode animated over its period through the binding; set_field's own
    values in the field data; bad arguments refused."""
    sys, cs, st, lam, j = block_modes(str(tmp_path))
    k = int(np.argmax(np.abs(lam.imag) > 0))
    mode = st.mode(k)
    rd = vtk.vtkUnstructuredGridReader()  # block_files' mesh, as it wrote it
    rd.SetFileName(j("mesh.vtk"))
    rd.Update()
    pts = vtk_to_numpy(rd.GetOutput().GetPoints().GetData())[:, :2]
    m = fcd.Mesh(sys, pts)
    s = fcd.Series(m, tmp_path, "mode")
    s.set_field("mu", 0.4)
    s.write_mode(mode, lam[k], frames=8)
    check_mode_frames(str(tmp_path / "mode.pvd"), mode, lam[k], 8, len(pts), 1e-15)
    grid, _, _ = read_vtu(tmp_path / "mode-000003.vtu")
    assert vtk_to_numpy(grid.GetFieldData().GetArray("mu"))[0] == 0.4
    with pytest.raises(fcd.FcdError, match="TimeValue"):
        s.set_field("TimeValue", 1.0)
    with pytest.raises(fcd.FcdError, match="not finite"):
        s.set_field("x", float("inf"))
    with pytest.raises(OverflowError, match="frames"):
        s.write_mode(mode, lam[k], frames=0)
    assert s.frames == 8


def test_cli_mode_series(tmp_path):
    """`fcd stability --mesh --series DIR`: mode-K.pvd per mode, 24 frames of the mode
    the library computes for the same state, with its eigenvalue"""
    import os
    import subprocess
    exe = os.environ["FCD_EXE"]
    sys, cs, st, lam, j = block_modes(str(tmp_path))
    base = [exe, "stability", "--mass", j("M.mtx"), "--stiffness", j("K.mtx"),
            "--contacts", j("contacts.txt"), "--state", j("state.csv"), "--out", j("chart.csv")]
    r = subprocess.run(base + ["--mesh", j("mesh.vtk"), "--series", j("modes")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    nn = sys.ndofs // 2
    for k in (0, 1):
        assert "series: %s/mode-%d.pvd" % (j("modes"), k) in r.stdout
        check_mode_frames(j("modes/mode-%d.pvd" % k), st.mode(k), lam[k], 24, nn, 1e-12)
    r = subprocess.run(base + ["--series", j("x")], capture_output=True, text=True)
    assert r.returncode == 2 and "--mesh" in r.stderr
    r = subprocess.run(base + ["--mesh", j("mesh.vtk"), "--series", j("x"), "--mu", "0.3"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "--series writes the modes of a single solve" in r.stderr


def read_legacy(path):
    rd = vtk.vtkUnstructuredGridReader()
    rd.SetFileName(path)
    rd.ReadAllVectorsOn()
    rd.ReadAllScalarsOn()
    rd.Update()
    g = rd.GetOutput()
    pd = g.GetPointData()
    return g, {pd.GetArrayName(k): vtk_to_numpy(pd.GetArray(k)) for k in range(pd.GetNumberOfArrays())}


def test_legacy_binary(tmp_path):
    """Legacy VTK in its BINARY form: VTK's own reader finds the exact values; fcd reads
    such a file as a mesh (--mesh), and the program's --vtk-binary output holds exactly
    what its text output holds"""
    import os
    import subprocess
    exe = os.environ["FCD_EXE"]
    sys, cs, v0, j = block_files(str(tmp_path))
    n = sys.ndofs
    g0, _ = read_legacy(j("mesh.vtk"))
    pts = vtk_to_numpy(g0.GetPoints().GetData())[:, :2]
    cells = [[g0.GetCell(c).GetPointId(k) for k in range(4)] for c in range(g0.GetNumberOfCells())]
    m = fcd.Mesh(sys, pts)
    m.add_cells("quad", cells)
    x = np.sin(np.arange(n) * 0.7) / 3  # values with every bit of their mantissas used
    status = [("open", "stick", "slip")[c % 3] for c in range(len(cs))]
    m.write_vtk(j("bin.vtk"), {"x": x}, cs, status, binary=True)
    with open(j("bin.vtk"), "rb") as f:
        assert f.read().split(b"\n")[2] == b"BINARY"
    g, a = read_legacy(j("bin.vtk"))
    assert np.array_equal(vtk_to_numpy(g.GetPoints().GetData())[:, :2], pts)
    assert np.array_equal(a["x"], per_node(x, n // 2))
    s = a["contact_status"]
    assert sorted(set(s[s >= 0])) == [0, 1, 2]
    with pytest.raises(TypeError):
        m.write_vtk(j("x.vtk"), {"x": x}, binary=1)
    base = [exe, "simulate", "--mass", j("M.mtx"), "--stiffness", j("K.mtx"),
            "--contacts", j("contacts.txt"), "--v0", j("v0.txt"), "--dt", "1e-4",
            "--t-end", "1e-3", "--out", j("h.csv")]
    r = subprocess.run(base + ["--mesh", j("mesh.vtk"), "--vtk", j("text")], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    r = subprocess.run(base + ["--mesh", j("bin.vtk"), "--vtk", j("bin"), "--vtk-binary"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    _, at = read_legacy(j("text/final.vtk"))
    _, ab = read_legacy(j("bin/final.vtk"))
    for name in ("displacement", "velocity", "contact_status"):
        assert np.array_equal(at[name], ab[name])
    r = subprocess.run(base + ["--mesh", j("bin.vtk"), "--vtk-binary"], capture_output=True,
                       text=True)
    assert r.returncode == 2 and "--vtk-binary goes with --vtk" in r.stderr


def test_reduced_series_names_pressures(tmp_path):
    """A series on a reduced model's own system: its dual mortar contacts stay mortar
    contacts (their multipliers are pressures, named so), its node pairs force contacts"""
    for kind, name in (("dual-mortar", "contact_pressure"), ("pairs", "contact_normal_force")):
        sys, xy, mesh, cs, rows, homes = build(kind, 3 if kind != "pairs" else 4, 4)
        red = fcd.Reduction(sys, cs, 2)
        place = {int(d): j for j, d in enumerate(red.kept)}
        nodes = [p for p in range(len(xy)) if 2 * p in place and 2 * p + 1 in place]
        dofs = [[place[2 * p], place[2 * p + 1]] for p in nodes]
        m = fcd.Mesh(red.system, xy[nodes], dofs)
        m.add_cells("vertex", [[k] for k in range(len(nodes))])
        s = fcd.Series(m, tmp_path, "red-" + kind, contacts=red.contacts)
        z = np.zeros(red.ndofs)
        s.write(0.0, z, z, np.zeros((len(cs), 2)), ["open"] * len(cs))
        s.flush()  # written in the background: on disk once flushed
        _, a, _ = read_vtu(tmp_path / ("red-%s-000000.vtu" % kind))
        other = "contact_normal_force" if name == "contact_pressure" else "contact_pressure"
        assert name in a and other not in a, (kind, sorted(a))


def test_cli_outputs_inside_directories(tmp_path):
    """Every file the program will write is checked against its inputs and other outputs
    before the first is written, the files it writes inside --series and --vtk
    directories included (issue 84: each of these ran with exit 0 and lost a file)."""
    import os
    import shutil
    import subprocess
    exe = os.environ["FCD_EXE"]
    sys, cs, v0, j = block_files(str(tmp_path))
    sim = [exe, "simulate", "--mass", j("M.mtx"), "--stiffness", j("K.mtx"),
           "--contacts", j("contacts.txt"), "--v0", j("v0.txt"), "--dt", "1e-4",
           "--t-end", "1e-3"]
    os.makedirs(j("a"))
    os.makedirs(j("b"))
    shutil.copy(j("mesh.vtk"), j("b/series.pvd"))
    mesh_before = open(j("mesh.vtk"), "rb").read()
    cases = [
        # the history where the collection goes
        sim + ["--out", j("a/series.pvd"), "--mesh", j("mesh.vtk"), "--series", j("a")],
        # an input mesh named like the collection
        sim + ["--out", j("h.csv"), "--mesh", j("b/series.pvd"), "--series", j("b")],
        # a frame's name, and a directory given with a trailing slash that does not exist
        sim + ["--out", j("c/series-000003.vtu"), "--mesh", j("mesh.vtk"), "--series", j("c") + "/"],
        # the final state over the history
        sim + ["--out", j("a/final.vtk"), "--mesh", j("mesh.vtk"), "--vtk", j("a")],
    ]
    for args in cases:
        r = subprocess.run(args, capture_output=True, text=True)
        assert r.returncode == 2, (args, r.stdout, r.stderr)
        assert "under a name the run writes there" in r.stderr, r.stderr
    assert not os.path.exists(j("a/series.pvd")) and not os.path.exists(j("c"))
    assert open(j("b/series.pvd"), "rb").read() == mesh_before
    # stability: the input mesh among the modes, the chart among the collections
    os.makedirs(str(tmp_path / "m"))
    _, _, st, lam, k = block_modes(str(tmp_path / "m"))
    stab = [exe, "stability", "--mass", k("M.mtx"), "--stiffness", k("K.mtx"),
            "--contacts", k("contacts.txt"), "--state", k("state.csv")]
    os.makedirs(k("c"))
    shutil.copy(k("mesh.vtk"), k("c/mode-0.vtk"))
    for args in (stab + ["--out", k("chart.csv"), "--mesh", k("c/mode-0.vtk"), "--vtk", k("c")],
                 stab + ["--out", k("d/mode-0.pvd"), "--mesh", k("mesh.vtk"), "--series", k("d")]):
        r = subprocess.run(args, capture_output=True, text=True)
        assert r.returncode == 2 and "under a name the run writes there" in r.stderr, r.stderr
    assert not os.path.exists(k("d"))
    # other names inside the directories are the user's own and stay allowed
    r = subprocess.run(sim + ["--out", j("a/history.csv"), "--mesh", j("mesh.vtk"),
                              "--series", j("a")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_cli_series_rerun_replaces(tmp_path):
    """A run into a directory that holds a longer series of the same name leaves exactly
    the new frames beside the new collection (the earlier run's extra frames are
    removed: fcd_series_create's documented replacement)."""
    import os
    import subprocess
    exe = os.environ["FCD_EXE"]
    sys, cs, v0, j = block_files(str(tmp_path))
    base = [exe, "simulate", "--mass", j("M.mtx"), "--stiffness", j("K.mtx"),
            "--contacts", j("contacts.txt"), "--v0", j("v0.txt"), "--dt", "1e-4",
            "--out", j("h.csv"), "--mesh", j("mesh.vtk"), "--series", j("run")]
    r = subprocess.run(base + ["--t-end", "2e-3"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert len([f for f in os.listdir(j("run")) if f.endswith(".vtu")]) == 21
    with open(j("run/notes.txt"), "w") as f:
        f.write("mine\n")
    r = subprocess.run(base + ["--t-end", "5e-4"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    vtu = sorted(f for f in os.listdir(j("run")) if f.endswith(".vtu"))
    assert vtu == ["series-%06d.vtu" % k for k in range(6)]
    sets = ET.parse(j("run/series.pvd")).getroot().find("Collection").findall("DataSet")
    assert [d.get("file") for d in sets] == vtu
    assert open(j("run/notes.txt")).read() == "mine\n"


def test_series_refuses_nan_and_time_going_back(tmp_path):
    """NaN displacements, velocities or reactions, and frame times that go back or repeat,
    are refused by name and leave the series as it was (issue 84: all were written)."""
    sys, xy, mesh, cs, rows, homes = build("pairs", 4, 4)
    n = sys.ndofs
    s = fcd.Series(mesh, tmp_path, "z", contacts=cs)
    s.write(0.0, np.zeros(n), np.zeros(n))
    bad = np.zeros(n)
    bad[3] = np.nan
    with pytest.raises(fcd.FcdError, match=r"u\[3\] is not finite"):
        s.write(1.0, bad, np.zeros(n))
    with pytest.raises(fcd.FcdError, match=r"v\[3\] is not finite"):
        s.write(1.0, np.zeros(n), bad)
    with pytest.raises(fcd.FcdError, match="is not after the last frame"):
        s.write(0.0, np.zeros(n), np.zeros(n))
    with pytest.raises(fcd.FcdError, match="is not after the last frame"):
        s.write(-1.0, np.zeros(n), np.zeros(n))
    s.write(1.0, np.zeros(n), np.zeros(n))
    assert s.frames == 2


def read_legacy_frame(path):
    """a legacy frame as VTK's own legacy reader gives it"""
    rd = vtk.vtkUnstructuredGridReader()
    rd.SetFileName(str(path))
    rd.ReadAllFieldsOn()
    rd.ReadAllScalarsOn()
    rd.ReadAllVectorsOn()
    rd.Update()
    assert rd.GetErrorCode() == 0
    return rd.GetOutput()


def grid_arrays(grid):
    pd = grid.GetPointData()
    return {pd.GetArrayName(k): vtk_to_numpy(pd.GetArray(k)) for k in range(pd.GetNumberOfArrays())}


@pytest.mark.parametrize("kind,nx_top,nx_bot", [("pairs", 4, 4), ("dual-mortar", 3, 4)])
def test_legacy_format_holds_what_the_xml_one_holds(tmp_path, kind, nx_top, nx_bot):
    """The same frames written in both formats of registry('output-format'): each legacy
    frame, read by VTK's legacy reader, holds the points, cells, time, field data and
    every array of the XML frame bit for bit (NaN where no contact is), and the file
    series (JSON) lists the frames with their times."""
    import json
    sys, xy, mesh, cs, rows, homes = build(kind, nx_top, nx_bot)
    n = sys.ndofs
    it = fcd.Integrator(sys, cs, "moreau-jean", step=2e-6)
    it.set_state(0.0, np.zeros(n), np.zeros(n))
    xml = fcd.Series(mesh, tmp_path, "x", contacts=cs)
    old = fcd.Series(mesh, tmp_path, "y", contacts=cs, format="vtk")
    assert not (tmp_path / "y.pvd").exists()
    for s in (xml, old):
        s.set_field("load_factor", 0.25)
    times = []
    for _ in range(5):
        it.step()
        xml.write_integrator(it)
        old.write_integrator(it)
        times.append(it.state[0])
    xml.flush()
    old.flush()
    listing = json.loads((tmp_path / "y.vtk.series").read_text())
    assert listing["file-series-version"] == "1.0"
    assert [f["name"] for f in listing["files"]] == ["y-%06d.vtk" % k for k in range(5)]
    assert [f["time"] for f in listing["files"]] == times
    for k in range(5):
        a_grid, a, t = read_vtu(tmp_path / ("x-%06d.vtu" % k))
        g = read_legacy_frame(tmp_path / ("y-%06d.vtk" % k))
        assert t == times[k]
        fd = g.GetFieldData()
        assert vtk_to_numpy(fd.GetArray("TimeValue"))[0] == t
        assert vtk_to_numpy(fd.GetArray("load_factor"))[0] == 0.25
        assert np.array_equal(vtk_to_numpy(g.GetPoints().GetData()),
                              vtk_to_numpy(a_grid.GetPoints().GetData()))
        assert g.GetNumberOfCells() == a_grid.GetNumberOfCells()
        for c in range(g.GetNumberOfCells()):
            assert g.GetCellType(c) == a_grid.GetCellType(c)
            ids = g.GetCell(c).GetPointIds()
            ref = a_grid.GetCell(c).GetPointIds()
            assert [ids.GetId(j) for j in range(ids.GetNumberOfIds())] == \
                [ref.GetId(j) for j in range(ref.GetNumberOfIds())]
        b = grid_arrays(g)
        assert sorted(b) == sorted(a)
        for name in a:
            assert np.array_equal(b[name], a[name], equal_nan=True), name
    with pytest.raises(ValueError, match="unknown output format"):
        fcd.Series(mesh, tmp_path, "z", format="xdmf")


def test_format_chosen_after_frames_is_refused(tmp_path):
    sys, xy, mesh, cs, rows, homes = build("pairs", 4, 4)
    s = fcd.Series(mesh, tmp_path, "w")
    s.write(0.0, np.zeros(sys.ndofs))
    with pytest.raises(fcd.FcdError, match="has 1 frames in 'vtu' already"):
        s._check(fcd._f["fcd_series_set_format"](s._h, 1))
    assert (tmp_path / "w.pvd").exists() and (tmp_path / "w-000000.vtu").exists()


def test_background_frames_equal_frames_written_within_the_call(tmp_path):
    """A frame written by the series' thread (the default) is byte for byte the frame
    written within fcd_series_write (set_async(False)), though the caller changes its
    arrays as soon as the write returns."""
    sys, xy, mesh, cs, rows, homes = build("pairs", 4, 4)
    n = sys.ndofs
    it = fcd.Integrator(sys, cs, "moreau-jean", step=2e-6)
    it.set_state(0.0, np.zeros(n), np.zeros(n))
    bg = fcd.Series(mesh, tmp_path, "bg", contacts=cs)
    within = fcd.Series(mesh, tmp_path, "within", contacts=cs)
    within.set_async(False)
    for k in range(6):
        it.step()
        t, u, v = it.state
        r, st = it.reactions.copy(), list(it.contact_status)
        bg.write(t, u, v, r, st)
        u[:] = np.nan  # the series copied them
        r[:] = np.nan
        within.write(t, it.state[1], it.state[2], it.reactions, list(it.contact_status))
    bg.flush()
    assert bg.frames == within.frames == 6
    for k in range(6):
        a = (tmp_path / ("bg-%06d.vtu" % k)).read_bytes()
        b = (tmp_path / ("within-%06d.vtu" % k)).read_bytes()
        assert a == b
