"""GetFEM as fcd's peer on the same discretization (issue 26).

gmsh meshes a crowned pad (2D: triangles; 3D: tetrahedra), GetFEM assembles its P1
elastic stiffness, and both GetFEM's own nodal contact (Alart-Curnier: the nodal brick
against the rigid obstacle for one step, the basic brick with its wt history along a
press-then-shear path) and fcd (the same matrix, one rigid contact per node) solve the
same Signorini-Coulomb problem. It has one solution for these small friction
coefficients, so the two must agree to the solvers' tolerances: statuses node by node,
nodal contact forces F = K u within 1e-6 of the largest (GetFEM stops at a relative
residual of 1e-9 in its 1-norm), and each answer satisfies the discrete law as this test
checks it from u alone (fcd_getfem.law_residuals), not as either solver reports it.
"""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples", "hosts",
                                "getfem"))
getfem = pytest.importorskip("getfem")
pytest.importorskip("gmsh")
import fcd_getfem as fg  # noqa: E402

# element sizes (mm) small enough for CI: 578 dofs in 2D, about 2,200 in 3D
SIZES = {2: 1.0, 3: 2.0}
D, S, MU = 0.1, 0.05, 0.3  # press 0.1 mm, then shear 0.05 mm; a polymer pad on steel
AGREE, LAW = 1e-6, 1e-7


@pytest.fixture(scope="module", params=[2, 3], ids=["2d", "3d"])
def pad(request, tmp_path_factory):
    dim = request.param
    # the test's own scratch directory under meson (created here: the suite may run
    # alone, before anything made build/tests/tmp), pytest's otherwise
    scratch = os.environ.get("FCD_TEST_TMPDIR")
    if scratch:
        os.makedirs(scratch, exist_ok=True)
        path = os.path.join(scratch, "pad%d.msh" % dim)
    else:
        path = tmp_path_factory.mktemp("mesh") / ("pad%d.msh" % dim)
    fg.mesh_pad(path, dim, SIZES[dim])
    return fg.Pad(path)


def check(pad, mu, u, status, u_prev, ug, ug_prev):
    c = fg.compare(pad, mu, u, status, u_prev, ug, ug_prev)
    assert c["force_difference"] <= AGREE, c["force_difference"]
    # every node classified away from the open/closed and stick/slip boundaries, so the
    # comparison of statuses is meaningful
    assert c["margin"] > 1, c["margin"]
    assert c["same_status"], [(k, a, b) for k, (a, b) in
                              enumerate(zip(status, c["status_gf"])) if a != b]
    for name in ("law_fcd", "law_gf"):
        assert max(c[name].values()) <= LAW, (name, c[name])
    return status


@pytest.mark.parametrize("mu", [0.0, MU], ids=["frictionless", "friction"])
def test_one_step_against_the_nodal_brick(pad, mu):
    u, _, status, _ = fg.FcdSolver(pad, mu).solve(D, 0.0)
    ug, _, _ = fg.GetfemNodal(pad, mu).solve(D, 0.0)
    status = check(pad, mu, u, status, np.zeros(pad.n), ug, np.zeros(pad.n))
    closed = len(status) - status.count("open")
    assert closed >= 3
    if mu > 0:  # friction holds some nodes: not the frictionless answer again
        assert status.count("stick") >= 1


def test_press_then_shear_against_the_basic_brick_with_history(pad):
    f, g = fg.FcdSolver(pad, MU), fg.GetfemBasic(pad, MU)
    path = [(D / 2, 0.0), (D, 0.0)] + [(D, S * k / 3) for k in (1, 2, 3)]
    u_prev, ug_prev = np.zeros(pad.n), np.zeros(pad.n)
    slips = []
    for (d, s) in path:
        u, _, status, _ = f.solve(d, s, u_prev)
        ug, _, _ = g.solve(d, s, ug_prev)
        check(pad, MU, u, status, u_prev, ug, ug_prev)
        slips.append(status.count("slip"))
        u_prev, ug_prev = u, ug
    # the shear spreads slip from the edge of the contact zone inwards
    assert slips[-1] > slips[1]
