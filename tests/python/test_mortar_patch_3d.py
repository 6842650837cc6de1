"""The contact patch test in 3D (Taylor and Papadopoulos 1991; issue 22): two blocks of
one material, 1 x 1 x 0.5 each, stacked at z = 0.5 with non-matching interface meshes,
a uniform pressure p on the top. Held: the lower block's bottom in z, and in-plane rigid
motions of each block at two corners away from the interface. The exact
solution is the uniform stress sigma_zz = -p: u_z = -p z / E, u_x = nu p x / E,
u_y = nu p y / E, a linear field every element here represents exactly.

fcd pairs the surfaces itself (fcd_contact_set_add_surface_pair with 3D facets):
- dual mortar on quadrilaterals (hexahedral blocks 3 x 3 over 4 x 4), on triangles
  (tetrahedral blocks) and mixed (quadrilateral slave on a triangular master): the
  linear field to round-off (1e-10 relative) and every multiplier -p;
- node-to-facet transmits the total force, not the field: its error is recorded.
And the conformity limit in 3D: on matching meshes mortar and node-to-facet give the
node pairs' equilibrium. Bad input: each check names the facet.
"""
import numpy as np
import pytest

import fcd
from fe3d import block, face_loads

E, NU, P = 1e7, 0.3, 2e4
LX, LY, LZ = 1.0, 1.0, 0.5


def model(n_top=3, n_bot=4, tets_top=False, tets_bot=False, with_mass=False, mu=0.0):
    Kb, Mb, xb, top_b, _ = block(n_bot, n_bot, 2, LX, LY, LZ, 0.0, E, NU, tets=tets_bot)
    Kt, Mt, xt, top_t, bot_t = block(n_top, n_top, 2, LX, LY, LZ, LZ, E, NU, tets=tets_top)
    nb = Kb.shape[0]
    off = len(xb)
    import scipy.sparse as sp
    K = sp.block_diag([Kb, Kt]).tocsr()
    xyz = np.vstack([xb, xt])
    sys = fcd.System(K.shape[0])
    sys.set_matrix("stiffness", K)
    if with_mass:
        sys.set_matrix("mass", sp.block_diag([Mb, Mt]).tocsr())
    # a contact needs free dofs: the supports stay off the interface (the lower block's
    # bottom in z; in-plane rigid motions held at two corners of the bottom and two of
    # the top, where the exact field gives u_x = 0 at x = 0 and u_y = 0 at y = 0)
    fixed = set()
    for p, (x, y, z) in enumerate(xyz):
        if p < off and abs(z) < 1e-12:
            fixed.add(3 * p + 2)
        corner = (p < off and abs(z) < 1e-12) or (p >= off and abs(z - 2 * LZ) < 1e-12)
        if corner and abs(y) < 1e-12 and abs(x) < 1e-12:
            fixed.update((3 * p, 3 * p + 1))
        if corner and abs(y) < 1e-12 and abs(x - LX) < 1e-12:
            fixed.add(3 * p + 1)
    sys.fix_dofs(sorted(fixed))
    shift = lambda fs: [[i + off if i >= 0 else -1 for i in f] for f in fs]
    load = face_loads(shift(top_t), xyz, P, K.shape[0])
    sys.set_load(load)
    sys.test_files = (sorted(fixed), load)  # what the program test writes
    slave = shift(bot_t)
    master = top_b
    del nb
    return sys, xyz, slave, master


def exact(xyz):
    u = np.empty(3 * len(xyz))
    u[0::3] = NU * P / E * xyz[:, 0]
    u[1::3] = NU * P / E * xyz[:, 1]
    u[2::3] = -P / E * xyz[:, 2]
    return u


def solve(method, mu=0.0, **kw):
    sys, xyz, slave, master = model(**kw)
    mesh = fcd.Mesh(sys, xyz)
    cs = fcd.ContactSet(sys, 3)
    ids, inactive = cs.add_surface_pair(mesh, slave, master, method, mu=mu)
    u, r = fcd.Equilibrium(sys, cs).solve("static")
    ue = exact(xyz)
    err = np.abs(u - ue).max() / np.abs(ue).max()
    return u, r, err, ids, inactive, (sys, xyz, slave, master)


CASES = {"quadrilaterals": {}, "triangles": {"tets_top": True, "tets_bot": True},
         "quadrilaterals on triangles": {"tets_bot": True}}


@pytest.mark.parametrize("mu", [0.0, 0.3])
@pytest.mark.parametrize("case", list(CASES))
def test_dual_mortar_passes_the_3d_patch_test(case, mu):
    u, r, err, ids, inactive, (_, _, slave, _) = solve("dual-mortar", mu, **CASES[case])
    nslave = len({i for f in slave for i in f if i >= 0})
    assert len(ids) == nslave and inactive == 0
    print("3D dual mortar patch test (%s, mu %g): displacement error %.3e, multipliers %.3e "
          "from -p" % (case, mu, err, np.abs(r[:, 0] + P).max() / P))
    assert err < 1e-10
    assert np.abs(r[:, 0] + P).max() < 1e-9 * P
    assert np.abs(r[:, 1:]).max() < 1e-9 * P


def test_node_to_facet_error_is_recorded():
    u, r, err, ids, inactive, _ = solve("node-to-segment")
    assert inactive == 0
    # the whole load P LX LY crosses the interface (the upper block's balance)
    assert -r[:, 0].sum() == pytest.approx(P * LX * LY, rel=1e-9)
    print("3D node-to-facet patch test: displacement error %.3e" % err)
    assert err > 1e-6


@pytest.mark.parametrize("method", ["dual-mortar", "node-to-segment"])
def test_conformity_limit_3d(method):
    """Matching meshes (4 x 4 both): the node pairs' displacements to round-off."""
    ref = None
    for kind in ("pairs", method):
        sys, xyz, slave, master = model(n_top=4, n_bot=4)
        cs = fcd.ContactSet(sys, 3)
        if kind == "pairs":
            snodes = sorted({i for f in slave for i in f if i >= 0})
            mnodes = sorted({i for f in master for i in f if i >= 0})
            for s in snodes:
                m = min(mnodes, key=lambda q: np.linalg.norm(xyz[q, :2] - xyz[s, :2]))
                cs.add_pair([3 * s, 3 * s + 1, 3 * s + 2], [3 * m, 3 * m + 1, 3 * m + 2],
                            [0, 0, -1.0], [1.0, 0, 0], gap=0.0, mu=0.3)
        else:
            cs.add_surface_pair(fcd.Mesh(sys, xyz), slave, master, method, mu=0.3)
        u, _ = fcd.Equilibrium(sys, cs).solve("static")
        if ref is None:
            ref = u
    err = np.abs(u - ref).max() / np.abs(ref).max()
    print("3D conformity, %s against node pairs: %.2e" % (method, err))
    assert err <= 1e-10


def test_bad_facets_are_named():
    sys, xyz, slave, master = model()
    mesh = fcd.Mesh(sys, xyz)
    cs = fcd.ContactSet(sys, 3)
    bad = [list(f) for f in slave]
    bad[2][1] = bad[2][0]
    with pytest.raises(fcd.FcdError, match="slave facet 2 has node .* twice"):
        cs.add_surface_pair(mesh, bad, master)
    flat = [list(f) for f in master]
    # a facet of zero area: three nodes on one line of the master surface
    a, b = flat[0][0], flat[0][1]
    line = [p for p in range(len(xyz)) if p not in (a, b) and
            np.linalg.norm(np.cross(xyz[b] - xyz[a], xyz[p] - xyz[a])) < 1e-12][0]
    flat[0] = [a, b, line, -1]
    with pytest.raises(fcd.FcdError, match="master facet 0 has area zero"):
        cs.add_surface_pair(mesh, slave, flat)
    turned = [list(f) for f in master]
    turned[3] = turned[3][::-1]
    with pytest.raises(fcd.FcdError, match="master facets .* oriented inconsistently"):
        cs.add_surface_pair(mesh, slave, turned)
    # the master moved aside: its nodes shifted by 3 in x
    moved = xyz.copy()
    moved[sorted({i for f in master for i in f if i >= 0}), 0] += 3.0
    far = fcd.Mesh(sys, moved)
    with pytest.raises(fcd.FcdError, match="do not face each other"):
        cs.add_surface_pair(far, slave, master)
    assert len(cs) == 0  # every refused call left the set as it was


def test_program_reads_3d_surface_pairs(tmp_path):
    """`fcd equilibrium --mesh` with a version 2 contact file listing 3D facets (four ids
    each, -1 fourth for a triangle): the patch test's linear field."""
    import os
    import subprocess
    exe = os.environ.get("FCD_EXE")
    if not exe:
        pytest.skip("FCD_EXE not set (run through meson test)")
    sys, xyz, slave, master = model(tets_bot=True)
    sys.write_matrix_market("stiffness", str(tmp_path / "K.mtx"))
    fixed, load = sys.test_files
    (tmp_path / "fixed.txt").write_text("".join("%d\n" % d for d in fixed))
    (tmp_path / "f.txt").write_text("".join("%.17g\n" % v for v in load))
    cells = [[i for i in f if i >= 0] for f in slave + master]
    pts = "".join("%.17g %.17g %.17g\n" % tuple(p) for p in xyz)
    (tmp_path / "mesh.vtk").write_text(
        "# vtk DataFile Version 3.0\npatch 3d\nASCII\nDATASET UNSTRUCTURED_GRID\n"
        "POINTS %d double\n%sCELLS %d %d\n%sCELL_TYPES %d\n%s"
        % (len(xyz), pts, len(cells), sum(len(c) + 1 for c in cells),
           "".join("%d %s\n" % (len(c), " ".join(map(str, c))) for c in cells), len(cells),
           "".join("%d\n" % (9 if len(c) == 4 else 5) for c in cells)))
    ids = lambda fs: " ".join("%d %d %d %d" % tuple(f) for f in fs)
    (tmp_path / "contacts.txt").write_text(
        "fcd-contacts 2\ndim 3\nsurface-pair dual-mortar 0.0 slave %s master %s\n"
        % (ids(slave), ids(master)))
    run = subprocess.run([exe, "equilibrium", "--stiffness", "K.mtx", "--fixed", "fixed.txt",
                          "--load", "f.txt", "--contacts", "contacts.txt", "--mesh", "mesh.vtk",
                          "--out", "state.csv", "--displacements", "u.txt"],
                         cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    u = np.loadtxt(tmp_path / "u.txt")
    ue = exact(xyz)
    assert np.abs(u - ue).max() <= 1e-10 * np.abs(ue).max()


@pytest.mark.parametrize("first,second", [("dual-mortar", "node-to-segment"),
                                          ("node-to-segment", "dual-mortar")])
def test_3d_surface_pair_given_twice_is_refused(first, second):
    """As in 2D: the same 3D pair by the other method is the same constraints twice."""
    sys, xyz, slave, master = model()
    mesh = fcd.Mesh(sys, xyz)
    cs = fcd.ContactSet(sys, 3)
    ids, _ = cs.add_surface_pair(mesh, slave, master, first)
    with pytest.raises(fcd.FcdError, match="the same pair given twice"):
        cs.add_surface_pair(mesh, slave, master, second)
    assert len(cs) == len(ids)
