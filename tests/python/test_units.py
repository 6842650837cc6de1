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


def test_damped_stability_in_si_units():
    """The dense damped eigen-solve of a block sliding on a rigid plane, in SI units.

    The damping is an explicit matrix C = beta K, so fcd takes the companion form of
    lambda^2 M + lambda C + K. With |K| / |M| ~ 1e11 s^-2 the unscaled linearization gave
    pairs whose backward error exceeded fcd's bound (1.6e-8 > 1e-8: FCD_E_NOT_CONVERGED
    on the deal.II host's pad); the scaled one (Fan, Lin and Van Dooren) passes. Without
    friction every contact of the sliding state keeps u_N = 0 and is free tangentially,
    so the reference is scipy's: the symmetric pencil (K_r, M_r) on the dofs left when
    the prescribed ones and the normal ones are removed, each eigenvalue Lambda giving
    lambda^2 + beta Lambda lambda + Lambda = 0. With friction there is no closed form;
    the solve must still pass its certificate."""
    import scipy.linalg as sla
    E, beta = 2e9, 3.2e-7
    K, M, xyz, top, bottom = block(3, 3, 2, 0.04, 0.04, 0.012, E=E, nu=0.3, rho=2500.0)
    n = K.shape[0]
    s = fcd.System(n)
    s.set_matrix("stiffness", K)
    s.set_matrix("mass", M)
    s.set_matrix("damping", beta * K)
    topn = np.unique([i for f in top for i in f if i >= 0])
    botn = np.unique([i for f in bottom for i in f if i >= 0])
    tdofs = np.ravel([[3 * i, 3 * i + 1, 3 * i + 2] for i in topn])
    s.fix_dofs(tdofs, np.tile([0.0, 0.0, -2e-5], len(topn)))
    cs = fcd.ContactSet(s, 3)
    nb = len(botn)
    cs.add_rigid_many([[3 * i, 3 * i + 1, 3 * i + 2] for i in botn],
                      np.tile([0.0, 0.0, -1.0], (nb, 1)), np.tile([1.0, 0.0, 0.0], (nb, 1)),
                      0.0, vg=np.tile([5.0, 0.0], (nb, 1)))
    eq = fcd.Equilibrium(s, cs)
    eq.solve("steady-sliding")
    status, slip = eq.contact_state
    assert status == ["slip"] * nb
    st = fcd.Stability(s, cs, nev=10 ** 6)
    st.set_contact_state(status, slip)
    lam = st.solve()
    keep = np.setdiff1d(np.arange(n), np.concatenate([tdofs, 3 * botn + 2]))
    Kd, Md = K.toarray()[np.ix_(keep, keep)], M.toarray()[np.ix_(keep, keep)]
    Lam = sla.eigh(Kd, Md, eigvals_only=True)
    ref = np.concatenate([np.roots([1.0, beta * L, L]) for L in Lam])
    assert len(lam) == len(ref)
    for z in ref:  # each reference eigenvalue has an fcd eigenvalue within 1e-8 of it
        assert np.min(np.abs(lam - z)) <= 1e-8 * abs(z), z
    for mu in (0.3, 1.0):
        st.set_param("mu", mu)
        st.solve()
        cert = st.certificate
        assert cert["worst"] <= cert["tolerance"], (mu, cert)


def test_stability_infinite_count_and_time_unit():
    """The binding's infinite count, and a dense stability solve in seconds and in
    milliseconds. A chain ground -k- m1 -k- m2 -k- (no mass) -k- ground, m2 in contact
    with a rigid flat below, stuck: one mass-less dof, two infinite eigenvalues; the
    finite ones are those of the chain with the mass-less dof condensed (two springs in
    series, k/2, on m2), lambda = +-i sqrt(eigenvalues of (K_c, M)) by scipy. In
    milliseconds (M times 1e6) each lambda is divided by 1e3; stiff springs (1e10 N/m)
    on grams put |lambda|^2 up to 2e13 s^-2, beyond which an absolute test of infinity
    dropped eigenvalues (4.5e12)."""
    import scipy.linalg as sla
    k, m1, m2 = 1e10, 2e-3, 1e-3
    # dofs: x1, x2, y2 (the contact's normal), x3 (mass-less)
    K = np.zeros((4, 4))
    for (a, b) in ((None, 0), (0, 1), (1, 3), (3, None)):
        for (i, j, s) in ((a, a, 1), (b, b, 1), (a, b, -1), (b, a, -1)):
            if i is not None and j is not None:
                K[i, j] += s * k
    K[2, 2] = k
    lam = {}
    for unit, ms in (("s", 1.0), ("ms", 1e6)):
        M = np.diag([m1, m2, m2, 0.0]) * ms
        s = fcd.System(4)
        s.set_matrix("stiffness", K)
        s.set_matrix("mass", M)
        cs = fcd.ContactSet(s, 2)
        cs.add_rigid([2, 1], [1.0, 0.0], [0.0, 1.0], mu=0.3)
        st = fcd.Stability(s, cs)
        st.set_contact_state(["slip"], [1.0])
        lam[unit] = np.sort_complex(st.solve())
        assert st.infinite == 2
    # the slipping contact keeps y2 = 0 and leaves x2 free (frictionless in x: its force
    # is mu times a normal force that does not enter the x equations here)
    Kc = np.array([[2 * k, -k], [-k, k + k / 2]])
    w2 = sla.eigh(Kc, np.diag([m1, m2]), eigvals_only=True)
    ref = np.sort_complex(np.concatenate([1j * np.sqrt(w2), -1j * np.sqrt(w2)]))
    assert len(lam["s"]) == 4
    assert np.abs(lam["s"] - ref).max() <= 1e-9 * np.abs(ref).max()
    assert np.abs(lam["ms"] * 1e3 - lam["s"]).max() <= 1e-9 * np.abs(ref).max()
