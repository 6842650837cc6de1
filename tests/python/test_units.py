"""A static frictional contact problem is the same problem in any consistent units.

A steel block (E = 210 GPa) on a rigid plane, its top pressed down and then sheared
until every bottom node slides, solved once in N-mm-MPa and once in SI (N-m-Pa). The
stiffness then differs by 1e3 (K scales with E times a length), displacements by 1e-3,
forces not at all: the SI answer must be the mm answer with displacements divided by
1000, the same statuses, and both must pass their certificates. Found by the GetFEM host
(examples/hosts/getfem): in SI units every contact solver stalled at a residual of
5e-7, round-off of reactions of 1e8 N set against displacements of 1e-5 m in the
natural map, and the static solve failed.
"""
import numpy as np

import fcd
from fe3d import block


def solve(length_unit, modulus_unit):
    """length_unit: metres per model length unit; modulus_unit: Pa per model stress unit."""
    E = 210e9 / modulus_unit
    lx = ly = 0.02 / length_unit
    lz = 0.01 / length_unit
    K, _, xyz, top, bottom = block(4, 4, 2, lx, ly, lz, E=E, nu=0.3)
    n = K.shape[0]
    s = fcd.System(n)
    s.set_matrix("stiffness", K)
    s.set_load(np.zeros(n))
    topn = np.unique([i for f in top for i in f if i >= 0])
    botn = np.unique([i for f in bottom for i in f if i >= 0])
    tdofs = np.ravel([[3 * i, 3 * i + 1, 3 * i + 2] for i in topn])
    cs = fcd.ContactSet(s, 3)
    nb = len(botn)
    cs.add_rigid_many([[3 * i, 3 * i + 1, 3 * i + 2] for i in botn],
                      np.tile([0.0, 0.0, -1.0], (nb, 1)), np.tile([1.0, 0.0, 0.0], (nb, 1)),
                      0.3)
    eq = fcd.Equilibrium(s, cs)
    out, u_prev = [], np.zeros(n)
    d = 1e-5 / length_unit  # 10 micrometres down, then 10 sideways in three steps
    for (dz, dx) in [(d, 0.0), (d, d / 3), (d, 2 * d / 3), (d, d)]:
        s.fix_dofs(tdofs, np.tile([dx, 0.0, -dz], len(topn)))
        eq.set_reference(u_prev)
        u, r = eq.solve("static")
        cert = eq.certificate
        assert cert["worst"] <= cert["tolerance"], cert
        out.append((u, r, eq.contact_status))
        u_prev = u
    return out


def test_si_and_mm_units_give_the_same_answer():
    mm = solve(1e-3, 1e6)
    si = solve(1.0, 1.0)
    for (u1, r1, s1), (u2, r2, s2) in zip(mm, si):
        assert s1 == s2
        fs = np.abs(r1).max()
        assert np.abs(r1 - r2).max() <= 1e-8 * fs
        assert np.abs(u1 * 1e-3 - u2).max() <= 1e-8 * np.abs(u2).max()
    # the last step slides nearly everywhere: the regime that failed
    assert mm[-1][2].count("slip") >= 0.8 * len(mm[-1][2])
