"""Meshes of other programs (issue 85): files that Gmsh wrote (MSH 4.1 and 2.2, ASCII and
binary; Abaqus .inp; Nastran bulk data; legacy VTK) and that VTK 9 wrote from Gmsh's
(legacy 5.1, ASCII and binary), of two blocks meshed apart (tests/data/import/gmsh, the
.geo files beside them), and Abaqus decks that HyperMesh wrote
(tests/data/import/abaqus_hypermesh). The checks:

- the coordinates against meshio's reading of the same file (an independent reader), or
  against the MSH file's where meshio does not read the format;
- every format gives the same surfaces (the facets as sets of node labels), with the
  closed form of the geometry: each face of a block is the unit square (area 1), its
  facets' normals point out of their block (+z on a block's top, -z on its bottom);
- quadratic elements in VTK's order: each mid-edge node at the middle of its edge (the
  blocks are straight-sided);
- the contact patch test (Taylor and Papadopoulos) on each mesh: the two blocks pressed
  together across their non-matching interface, named in the contact file by the mesh's
  own names, give the exact linear field to round-off, and the same displacements as the
  VTK route (facets by node ids) on the same mesh.
"""
import os
import subprocess

import numpy as np
import pytest

import fcd
from fe3d import assemble

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data", "import")
GMSH = os.path.join(DATA, "gmsh")
E, NU, P = 1e7, 0.3, 2e4

# Gmsh's physical tags (two_blocks.geo, hex_blocks.geo): 3 lower_top, 4 upper_bottom,
# 5 upper_top, 6 lower_bottom; a Nastran file names them by property (PID:TAG)
NAMES = {"lower_top": 3, "upper_bottom": 4, "upper_top": 5, "lower_bottom": 6}
TETS = ["tets.msh", "tets_bin.msh", "tets22.msh", "tets22_bin.msh", "tets.inp", "tets.bdf"]
HEXES = ["hexes.msh", "hexes.inp", "hexes.bdf"]
QUADRATIC = ["tets10.msh", "tets10.inp", "tets10.bdf", "hexes20.msh", "hexes20.inp",
             "hexes20.bdf"]
VTK = ["tets.vtk", "tets51.vtk", "tets51_bin.vtk", "tets.vtu", "tets_ascii.vtu", "tets_raw.vtu",
       "tets_inline.vtu", "tets_b64.vtu"]
VTU = [f for f in VTK if f.endswith(".vtu")]
VTK_QUADRATIC = {21, 22, 23, 24, 25, 26}
EDGES = {24: [(0, 1), (1, 2), (2, 0), (0, 3), (1, 3), (2, 3)],
         25: [(0, 1), (1, 2), (2, 3), (3, 0), (4, 5), (5, 6), (6, 7), (7, 4), (0, 4),
              (1, 5), (2, 6), (3, 7)],
         22: [(0, 1), (1, 2), (2, 0)], 23: [(0, 1), (1, 2), (2, 3), (3, 0)]}


def name(fname, surface):
    """A surface's name in each format: Gmsh's physical name; in Nastran the property
    (Gmsh writes the physical tag as PID); in VTK XML the cell-data array Gmsh wrote
    (CellEntityIds, the physical tag) and its value."""
    if fname.endswith(".bdf"):
        return "PID:%d" % NAMES[surface]
    if fname.endswith(".vtu"):
        return "CellEntityIds:%d" % NAMES[surface]
    return surface


def nnodes(fname):
    """The node count, from the file's own header or cards (a binary file's from its
    ASCII twin), without fcd."""
    path = os.path.join(GMSH, fname.replace("_bin", ""))
    text = open(path, "rb").read()
    if fname.endswith(".bdf"):
        return sum(1 for ln in text.splitlines() if ln.startswith(b"GRID"))
    if fname.endswith(".inp"):
        lines = text.decode().splitlines()
        k = next(i for i, ln in enumerate(lines) if ln.upper().startswith("*NODE"))
        n = 0
        for ln in lines[k + 1:]:
            if ln.startswith("*"):
                break
            n += 1
        return n
    if fname.endswith(".vtk") or fname.endswith(".vtu"):
        text = open(os.path.join(GMSH, "tets.vtk"), "rb").read()
        for ln in text.split(b"\n"):
            if ln.startswith(b"POINTS"):
                return int(ln.split()[1])
    k = text.index(b"$Nodes")
    head = text[k:].split(b"\n")[1].split()
    return int(head[1]) if len(head) == 4 else int(head[0])


def read(fname, ndofs=None):
    n = nnodes(fname)
    sys = fcd.System(ndofs or 3 * n)
    return sys, fcd.Mesh.read(sys, os.path.join(GMSH, fname), 3)


def msh41_nodes(path):
    """Node tag -> coordinates of an ASCII MSH 4.1 file, read here (its $Nodes section:
    blocks of tags, then their coordinates)."""
    lines = open(path).read().split("$Nodes\n")[1].split("$EndNodes")[0].splitlines()
    nblocks = int(lines[0].split()[0])
    out, k = {}, 1
    for _ in range(nblocks):
        dim, tag, par, n = map(int, lines[k].split())
        tags = [int(lines[k + 1 + i]) for i in range(n)]
        for i, t in enumerate(tags):
            out[t] = np.array(lines[k + 1 + n + i].split()[:3], dtype=float)
        k += 1 + 2 * n
    return out


def reference_coords(fname, mesh):
    """Each node's coordinates as a reader other than fcd's sees them: Gmsh's ASCII MSH
    4.1 file of the same mesh by node label (Gmsh numbers the nodes alike in every format
    it writes), or meshio's reading of Gmsh's legacy VTK file by index; and the tolerance
    of the format's printed digits."""
    if fname.endswith(".vtk") or fname.endswith(".vtu"):
        meshio = pytest.importorskip("meshio")
        return meshio.read(os.path.join(GMSH, "tets.vtk")).points, 1e-10
    twin = fname.split(".")[0].replace("_bin", "").replace("22", "") + ".msh"
    ref = msh41_nodes(os.path.join(GMSH, twin))
    assert len(ref) >= mesh.nnodes  # an MSH file may hold nodes no saved element uses
    # Nastran's 8-column fields keep 7 significant digits of Gmsh's coordinates
    tol = 1e-6 if fname.endswith(".bdf") else 1e-12
    return np.array([ref[l] for l in mesh.node_labels]), tol


@pytest.mark.parametrize("fname", TETS + HEXES + QUADRATIC + VTK)
def test_coordinates_agree_with_an_independent_reader(fname):
    sys, mesh = read(fname)
    ref, tol = reference_coords(fname, mesh)
    assert np.abs(mesh.coords - ref).max() <= tol


def facet_labels(mesh, surface):
    lab = mesh.node_labels
    return sorted(tuple(sorted(lab[i] for i in f if i >= 0)) for f in mesh.surface(surface))


def facet_geometry(mesh, surface):
    """Each facet's area, unit normal (right-hand rule over its nodes) and nodes."""
    x = mesh.coords
    out = []
    for f in mesh.surface(surface):
        ids = [i for i in f if i >= 0]
        p = x[ids]
        n = (np.cross(p[1] - p[0], p[2] - p[0]) if len(ids) == 3
             else np.cross(p[2] - p[0], p[3] - p[1]))
        out.append((np.linalg.norm(n) / 2, n / np.linalg.norm(n), ids))
    return out


@pytest.mark.parametrize("fname", TETS + HEXES + QUADRATIC + VTU)
def test_surfaces_are_the_blocks_faces_outward(fname):
    sys, mesh = read(fname)
    for surface, nz in (("lower_top", 1), ("upper_bottom", -1), ("upper_top", 1),
                        ("lower_bottom", -1)):
        geo = facet_geometry(mesh, name(fname, surface))
        area = sum(a for a, _, _ in geo)
        assert area == pytest.approx(1.0, rel=1e-6 if fname.endswith(".bdf") else 1e-12)
        normals = np.array([n for _, n, _ in geo])
        assert np.abs(normals[:, 2] - nz).max() < 1e-9, surface


@pytest.mark.parametrize("group", [TETS, HEXES, QUADRATIC[:3], QUADRATIC[3:], VTU])
def test_every_format_gives_the_same_surfaces(group):
    ref = None
    for fname in group:
        sys, mesh = read(fname)
        # the surfaces do not face each other across the interface node for node
        if fname in ("tets.msh", "hexes.msh"):
            x = mesh.coords
            nodes = lambda s: set(map(tuple, x[[i for f in mesh.surface(s) for i in f if i >= 0]]))
            assert len(nodes("lower_top")) < len(nodes("upper_bottom"))
        got = {s: facet_labels(mesh, name(fname, s)) for s in NAMES}
        if ref is None:
            ref = got
        assert got == ref, fname


@pytest.mark.parametrize("fname", QUADRATIC)
def test_quadratic_nodes_in_vtk_order(fname):
    sys, mesh = read(fname)
    x = mesh.coords
    seen = set()
    for t, nodes in mesh.cells:
        if t not in EDGES:
            continue
        seen.add(t)
        nc = {24: 4, 25: 8, 22: 3, 23: 4}[t]
        for k, (a, b) in enumerate(EDGES[t]):
            mid = (x[nodes[a]] + x[nodes[b]]) / 2
            assert np.abs(x[nodes[nc + k]] - mid).max() < 1e-6, (t, k)
    assert seen & {24, 25}


def patch_model(mesh):
    """K of the linear volume cells, the supports and the pressure on the upper top, as
    test_mortar_patch_3d sets them."""
    x = mesh.coords
    elems = [list(nodes) for t, nodes in mesh.cells if t in (10, 12)]
    K, _ = assemble(elems, x, E, NU)
    zmax = x[:, 2].max()
    lower = set(i for e in elems for i in e if x[e, 2].max() <= 0.5 + 1e-9)
    fixed = set()
    for p, (px, py, pz) in enumerate(x):
        if p in lower and abs(pz) < 1e-12:
            fixed.add(3 * p + 2)
        corner = (p in lower and abs(pz) < 1e-12) or (p not in lower and abs(pz - zmax) < 1e-12)
        if corner and abs(py) < 1e-12 and abs(px) < 1e-12:
            fixed.update((3 * p, 3 * p + 1))
        if corner and abs(py) < 1e-12 and abs(px - 1) < 1e-12:
            fixed.add(3 * p + 1)
    return K, sorted(fixed)


def run_equilibrium(tmp_path, K, fixed, load, mesh_file, contacts):
    exe = os.environ.get("FCD_EXE")
    if not exe:
        pytest.skip("FCD_EXE not set (run through meson test)")
    import scipy.io
    scipy.io.mmwrite(str(tmp_path / "K.mtx"), K.tocoo(), precision=17)
    (tmp_path / "fixed.txt").write_text("".join("%d\n" % d for d in fixed))
    (tmp_path / "f.txt").write_text("".join("%.17g\n" % v for v in load))
    (tmp_path / "contacts.txt").write_text(contacts)
    run = subprocess.run([exe, "equilibrium", "--stiffness", "K.mtx", "--fixed", "fixed.txt",
                          "--load", "f.txt", "--contacts", "contacts.txt", "--mesh", mesh_file, "--out", "state.csv",
                          "--displacements", "u.txt"], cwd=tmp_path, capture_output=True,
                         text=True)
    assert run.returncode == 0, run.stderr
    return np.loadtxt(tmp_path / "u.txt")


@pytest.mark.parametrize("fname", TETS + HEXES + VTU)
def test_patch_test_through_each_format(fname, tmp_path):
    sys, mesh = read(fname)
    x = mesh.coords
    K, fixed = patch_model(mesh)
    load = np.zeros(K.shape[0])
    for f in mesh.surface(name(fname, "upper_top")):
        ids = [i for i in f if i >= 0]
        p = x[ids]
        area = (0.5 * np.linalg.norm(np.cross(p[1] - p[0], p[2] - p[0])) if len(ids) == 3
                else 0.5 * np.linalg.norm(np.cross(p[2] - p[0], p[3] - p[1])))
        for i in ids:
            load[3 * i + 2] -= P * area / len(ids)
    slave, master = name(fname, "upper_bottom"), name(fname, "lower_top")
    u = run_equilibrium(tmp_path, K, fixed, load, os.path.join(GMSH, fname),
                        "fcd-contacts 2\ndim 3\nsurface-pair dual-mortar 0.0 slave %s master %s\n"
                        % (slave, master))
    ue = np.empty(3 * len(x))
    ue[0::3] = NU * P / E * x[:, 0]
    ue[1::3] = NU * P / E * x[:, 1]
    ue[2::3] = -P / E * x[:, 2]
    err = np.abs(u - ue).max() / np.abs(ue).max()
    print("%s: patch test error %.2e" % (fname, err))
    assert err <= 1e-10
    # the VTK route: the same facets by node ids in a legacy VTK file
    cells = [[i for i in f if i >= 0] for f in np.vstack([mesh.surface(slave),
                                                           mesh.surface(master)])]
    pts = "".join("%.17g %.17g %.17g\n" % tuple(p) for p in x)
    (tmp_path / "mesh.vtk").write_text(
        "# vtk DataFile Version 3.0\nroute\nASCII\nDATASET UNSTRUCTURED_GRID\n"
        "POINTS %d double\n%sCELLS %d %d\n%sCELL_TYPES %d\n%s"
        % (len(x), pts, len(cells), sum(len(c) + 1 for c in cells),
           "".join("%d %s\n" % (len(c), " ".join(map(str, c))) for c in cells), len(cells),
           "".join("%d\n" % (9 if len(c) == 4 else 5) for c in cells)))
    ids = lambda fs: " ".join("%d %d %d %d" % tuple(f) for f in fs)
    v = run_equilibrium(tmp_path, K, fixed, load, "mesh.vtk",
                        "fcd-contacts 2\ndim 3\nsurface-pair dual-mortar 0.0 slave %s master %s\n"
                        % (ids(mesh.surface(slave)), ids(mesh.surface(master))))
    assert np.abs(u - v).max() <= 1e-12 * np.abs(v).max()


def test_hypermesh_abaqus_contact_surfaces():
    """HyperMesh's Abaqus deck of two tetrahedral bodies with the element-face surfaces
    of their contact (LOWER_TO_UPPER, UPPER_TO_LOWER): 18 and 32 faces (its own ELSET
    COUNT comments), each surface flat, the two facing each other and covering the same
    area."""
    path = os.path.join(DATA, "abaqus_hypermesh", "tet4.inp")
    text = open(path).read()
    n = sum(1 for ln in text.split("*NODE")[1].split("**")[0].splitlines() if ln.strip()[:1].isdigit())
    sys = fcd.System(3 * n)
    mesh = fcd.Mesh.read(sys, path, 3)
    assert mesh.format == "abaqus"
    a, b = facet_geometry(mesh, "LOWER_TO_UPPER"), facet_geometry(mesh, "upper_to_lower")
    assert (len(a), len(b)) == (18, 32)
    na, nb = np.array([n for _, n, _ in a]), np.array([n for _, n, _ in b])
    assert np.abs(na - na[0]).max() < 1e-9 and np.abs(nb - nb[0]).max() < 1e-9
    assert np.dot(na[0], nb[0]) == pytest.approx(-1.0, abs=1e-12)
    assert sum(s for s, _, _ in a) == pytest.approx(sum(s for s, _, _ in b), rel=1e-12)


def test_hypermesh_quadratic_tetrahedra_and_node_set_surface():
    """HyperMesh's C3D10 beam: the mid-edge nodes in VTK's order, and the node set TOP
    as a surface (the boundary faces whose corners are all in it) that is flat."""
    path = os.path.join(DATA, "abaqus_hypermesh", "beam.inp")
    text = open(path).read()
    nodes = [ln for ln in text.split("*ELEMENT")[0].splitlines() if ln[:1].isdigit()]
    sys = fcd.System(3 * len(nodes))
    mesh = fcd.Mesh.read(sys, path, 3)
    x = mesh.coords
    for t, c in mesh.cells:
        assert t == 24
        for k, (i, j) in enumerate(EDGES[24]):
            assert np.abs(x[c[4 + k]] - (x[c[i]] + x[c[j]]) / 2).max() < 1e-5
    geo = facet_geometry(mesh, "TOP")
    normals = np.array([n for _, n, _ in geo])
    assert len(geo) > 0 and np.abs(normals - normals[0]).max() < 1e-9


def test_bad_input_is_named(tmp_path):
    sys = fcd.System(6)
    (tmp_path / "a.inp").write_text("*NODE\n1, 0, 0, 0\n2, 1, x, 0\n")
    with pytest.raises(fcd.FcdError, match=r"a.inp:3: coordinate 'x'"):
        fcd.Mesh.read(sys, str(tmp_path / "a.inp"), 3)
    (tmp_path / "b.inp").write_text("*NODE\n1, 0, 0, 0\n2, 1, 0, 0\n*ELEMENT, TYPE=C3D8\n1, 1, 2\n")
    with pytest.raises(fcd.FcdError, match=r"b.inp:5: .*node count"):
        fcd.Mesh.read(sys, str(tmp_path / "b.inp"), 3)
    (tmp_path / "c.inp").write_text("*NODE\n1, 0, 0, 0\n2, 1, 0, 0\n*ELEMENT, TYPE=T3D2\n1, 1, 3\n")
    with pytest.raises(fcd.FcdError, match=r"element 1 names node 3"):
        fcd.Mesh.read(sys, str(tmp_path / "c.inp"), 3)
    (tmp_path / "d.bdf").write_text("GRID    1               0.0     0.0     0.0\n"
                                    "GRID    2               1.0     abc     0.0\n")
    with pytest.raises(fcd.FcdError, match=r"d.bdf:2: GRID field 4"):
        fcd.Mesh.read(sys, str(tmp_path / "d.bdf"), 3)
    # a binary MSH cut short, and a surface that is not there
    data = open(os.path.join(GMSH, "tets_bin.msh"), "rb").read()
    (tmp_path / "e.msh").write_bytes(data[:len(data) // 2])
    with pytest.raises(fcd.FcdError, match=r"e.msh:\d+: \$Nodes|e.msh:\d+: \$Elements"):
        fcd.Mesh.read(fcd.System(3 * nnodes("tets_bin.msh")), str(tmp_path / "e.msh"), 3)
    sys, mesh = read("tets.msh")
    with pytest.raises(fcd.FcdError, match=r"no surface named 'top'.*lower_top"):
        mesh.surface("top")


NASTRAN = os.path.join(DATA, "nastran_models")


def test_nx_nastran_contact_faces():
    """A contact model that NX wrote for NX Nastran (pyNastran's models/contact): hexahedra,
    10-node tetrahedra (some with mid-side grids omitted, as Nastran allows), 13-node
    pyramids, large-field GRID*; the contact's two BSURFS (solid faces by three grids) are
    flat squares facing each other: every facet's normal the same, the two opposite, each
    covering its nodes' bounding rectangle (area = its two extents' product)."""
    path = os.path.join(NASTRAN, "model1_sim1-solution_1.bdf")
    n = sum(1 for ln in open(path) if ln.startswith("GRID"))
    mesh = fcd.Mesh.read(fcd.System(3 * n), path, 3)
    assert mesh.format == "nastran" and mesh.nnodes == n
    assert {t for t, _ in mesh.cells} >= {12, 24, 27}
    x = mesh.coords
    normals = []
    for name in ("BSURFS:1", "BSURFS:2"):
        g = facet_geometry(mesh, name)
        nr = np.array([v for _, v, _ in g])
        assert np.abs(nr - nr[0]).max() < 1e-9, name
        nodes = sorted({i for _, _, ids in g for i in ids})
        ext = np.ptp(x[nodes], axis=0)
        flat = int(np.argmin(ext))
        assert ext[flat] < 1e-9 * ext.max()
        area = np.prod(np.delete(ext, flat))
        assert sum(a for a, _, _ in g) == pytest.approx(area, rel=1e-12)
        normals.append(nr[0])
    assert np.dot(normals[0], normals[1]) == pytest.approx(-1.0, abs=1e-12)


def test_msc_nastran_bsurf_of_solids_is_their_skin():
    """pyNastran's models/contact/contact.bdf (MSC SOL 400 contact: BCBODY, BCTABLE): BSURF 3
    lists the CQUAD4 shells, one facet each; BSURF 1, in free field continued by lines that
    end with a comma, lists tetrahedra: its surface is their skin, the faces no other listed
    tetrahedron shares, counted here from the file's own cards."""
    path = os.path.join(NASTRAN, "contact.bdf")
    lines = open(path).read().splitlines()
    n = sum(1 for ln in lines if ln.startswith("GRID"))
    mesh = fcd.Mesh.read(fcd.System(3 * n), path, 3)
    # the cards, read here: CTETRA (small field, one line) and BSURF 1 (free field)
    tets = {}
    for ln in lines:
        if ln.startswith("CTETRA"):
            f = [ln[8 * k:8 * k + 8].strip() for k in range(1, 7)]
            tets[int(f[0])] = [int(v) for v in f[2:6]]
    k = next(i for i, ln in enumerate(lines) if ln.startswith("BSURF,"))
    ids = []
    for ln in lines[k:]:
        vals = [v.strip() for v in ln.split(",") if v.strip()]
        ids += [int(v) for v in vals if v.isdigit()]
        if not ln.rstrip().endswith(","):
            break
    ids = ids[1:]  # the set's own id first
    assert all(i in tets for i in ids)
    faces = {}
    for e in ids:
        g = tets[e]
        for q in ((0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3)):
            key = tuple(sorted(g[a] for a in q))
            faces[key] = faces.get(key, 0) + 1
    skin = sorted(key for key, c in faces.items() if c == 1)
    lab = mesh.node_labels
    got = sorted(tuple(sorted(lab[i] for i in f if i >= 0)) for f in mesh.surface("BSURF:1"))
    assert got == skin
    ncquad = sum(1 for ln in lines if ln.startswith("CQUAD4"))
    assert len(mesh.surface("BSURF:3")) == ncquad
