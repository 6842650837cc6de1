"""fcd.Reduction (docs/reduction.md) against scipy on the same matrices: the reduced
pencil's eigenvalues are the full ones with every interior mode kept and Rayleigh-Ritz
upper bounds with fewer; a transient of the reduced model from a restricted full start is
the full transient with every mode kept; restrict inverts expand; the indicator; and the
binding's ownership: the reduced system outlives a closed Reduction while an analysis
uses it."""
import numpy as np
import pytest
import scipy.linalg as sla

import fcd
from test_fcd import plane_strain_block


def block_on_flat(nx=5, ny=3, mu=0.4):
    """The scipy-built block on a rough flat, under gravity, its top pressed down."""
    K, M, top, bottom = plane_strain_block(nx=nx, ny=ny, E=1e5, rho=10.0)
    n = K.shape[0]
    sys = fcd.System(n)
    sys.set_matrix("stiffness", K)
    sys.set_matrix("mass", M)
    sys.fix_dofs([2 * p + 1 for p in top], [-1e-3] * len(top))
    cs = fcd.ContactSet(sys, dim=2)
    for node in bottom:
        cs.add_rigid([2 * node, 2 * node + 1], normal=[0, 1], tangent=[1, 0], mu=mu)
    return K, M, top, bottom, sys, cs


def free_pencil_values(K, M, free):
    return sla.eigh(K[np.ix_(free, free)], M[np.ix_(free, free)], eigvals_only=True)


def test_reduced_pencil_against_scipy():
    K, M, top, bottom, sys, cs = block_on_flat()
    n = K.shape[0]
    fixed = [2 * p + 1 for p in top]
    free = [i for i in range(n) if i not in fixed]
    full = free_pencil_values(K.toarray() if hasattr(K, "toarray") else K,
                              M.toarray() if hasattr(M, "toarray") else M, free)
    kept_expected = 2 * len(bottom) + len(top)  # contact dofs and the pressed tops
    interior = n - kept_expected
    prev = None
    for modes in (0, 4, 12, interior):
        red = fcd.Reduction(sys, cs, modes)
        assert red.nkept == kept_expected and red.nmodes == modes
        assert sorted(red.kept) == list(red.kept)
        Kr = red.system.matrix("stiffness").toarray()
        Mr = red.system.matrix("mass").toarray()
        rfixed = [j for j, d in enumerate(red.kept) if d in fixed]
        rfree = [j for j in range(red.ndofs) if j not in rfixed]
        lam = sla.eigh(Kr[np.ix_(rfree, rfree)], Mr[np.ix_(rfree, rfree)], eigvals_only=True)
        # the block slides freely along the flat (the contacts are not in the pencil):
        # one zero eigenvalue, represented exactly by the constraint modes
        assert abs(lam[0]) <= 1e-9 * lam[-1] and abs(full[0]) <= 1e-9 * full[-1]
        k = min(7, len(lam))
        ratio = lam[1:k] / full[1:k]
        assert np.all(ratio >= 1 - 1e-10)          # Rayleigh-Ritz: upper bounds
        if prev is not None:
            assert np.all(ratio <= prev * (1 + 1e-10))  # falling as modes are added
        prev = ratio
        if modes == interior:
            assert np.max(np.abs(lam[1:] - full[1:]) / full[1:]) <= 1e-9
        red.close()


def test_transient_every_mode_is_the_full_one():
    K, M, top, bottom, sys, cs = block_on_flat()
    n = K.shape[0]
    interior = n - (2 * len(bottom) + len(top))
    u0 = np.zeros(n)
    v0 = np.zeros(n)
    v0[0::2] = 0.05  # sent sideways over the rough flat
    for p in top:
        u0[2 * p + 1] = -1e-3
        v0[2 * p] = v0[2 * p + 1] = 0.0
    it = fcd.Integrator(sys, cs, "moreau-jean", step=2e-3, tolerance=1e-13)
    it.set_state(0.0, u0, v0)
    it.advance(0.05)
    _, uf, vf = it.state
    for modes, tol in ((interior, 1e-7), (8, None)):
        red = fcd.Reduction(sys, cs, modes)
        ri = fcd.Integrator(red.system, red.contacts, "moreau-jean", step=2e-3, tolerance=1e-13)
        ri.set_state(0.0, red.restrict(u0), red.restrict(v0))
        ri.advance(0.05)
        _, ur, vr = ri.state
        du = np.max(np.abs(red.expand(ur) - uf)) / np.max(np.abs(uf))
        if tol is not None:
            assert du <= tol
            assert np.allclose(red.expand(red.restrict(uf)), uf, rtol=0, atol=1e-12)
        else:
            assert du > 1e-6  # the truncation shows
        xr = np.random.default_rng(3).standard_normal(red.ndofs)
        assert np.max(np.abs(red.restrict(red.expand(xr)) - xr)) <= 1e-10 * np.max(np.abs(xr))
        # the indicator: zero for the static rest state, round-off with every mode
        rest = np.zeros(red.ndofs)
        rest[[j for j, d in enumerate(red.kept) if d in [2 * p + 1 for p in top]]] = -1e-3
        assert red.residual(0.0, rest) <= 1e-12


def test_reduction_keeps_its_analyses_working_and_refuses_bad_input():
    K, M, top, bottom, sys, cs = block_on_flat()
    red = fcd.Reduction(sys, cs, 6)
    it = fcd.Integrator(red.system, red.contacts, "moreau-jean", step=1e-3)
    it.set_state(0.0, np.zeros(red.ndofs), np.zeros(red.ndofs))
    red.close()
    it.advance(0.005)  # the reduced model lives while the integrator does
    with pytest.raises(ValueError):
        red.expand(np.zeros(red.ndofs))
    with pytest.raises(ValueError):
        fcd.Reduction(sys, cs, 6).expand(np.zeros(3))  # wrong length
    with pytest.raises(fcd.FcdError) as e:
        fcd.Reduction(sys, cs, 10 ** 6)
    assert e.value.name == "FCD_E_INVALID_ARG" and "interior has" in str(e.value)
    with pytest.raises(TypeError):
        fcd.Reduction(K, cs, 3)


def test_modal_coordinates_are_the_same_model():
    """fcd.Reduction(..., modal=True): with every mode kept the modal stiffness' diagonal
    is scipy's spectrum of the free dofs (the top, pressed at a constant value, becomes
    one prescribed shape coordinate), the mass the identity there; a transient through it
    is the Craig-Bampton one in other coordinates; expand_dofs is expand's entries."""
    K, M, top, bottom, sys, cs = block_on_flat()
    n = K.shape[0]
    Kd = K.toarray() if hasattr(K, "toarray") else K
    Md = M.toarray() if hasattr(M, "toarray") else M
    fixed = [2 * p + 1 for p in top]
    free = [i for i in range(n) if i not in fixed]
    full = free_pencil_values(Kd, Md, free)
    interior = n - (2 * len(bottom) + len(top))
    red = fcd.Reduction(sys, cs, interior, modal=True)
    assert red.modal and red.ndofs == len(free) + 1
    Kz = red.system.matrix("stiffness").toarray()
    Mz = red.system.matrix("mass").toarray()
    assert np.array_equal(Mz[1:, 1:], np.eye(len(free)))
    assert np.count_nonzero(Kz[1:, 1:] - np.diag(np.diag(Kz)[1:])) == 0
    lam = np.sort(np.diag(Kz)[1:])
    assert np.max(np.abs(lam - full)) <= 1e-9 * full[-1]
    red.close()
    u0 = np.zeros(n)
    v0 = np.zeros(n)
    v0[0::2] = 0.05
    for p in top:
        u0[2 * p + 1] = -1e-3
        v0[2 * p] = v0[2 * p + 1] = 0.0
    ends = []
    for modal in (False, True):
        r = fcd.Reduction(sys, cs, 8, modal=modal)
        ri = fcd.Integrator(r.system, r.contacts, "moreau-jean", step=2e-3, tolerance=1e-13)
        ri.set_state(0.0, r.restrict(u0), r.restrict(v0))
        ri.advance(0.05)
        _, ur, _ = ri.state
        ends.append(r.expand(ur))
        some = [0, 5, n - 1, 2 * bottom[1]]
        assert np.allclose(r.expand_dofs(ur, some), ends[-1][some], rtol=0,
                           atol=1e-14 * np.max(np.abs(ends[-1])))
    assert np.max(np.abs(ends[1] - ends[0])) <= 1e-9 * np.max(np.abs(ends[0]))
    with pytest.raises(TypeError):
        fcd.Reduction(sys, cs, 8, modal=1)


def test_inertia_vectors_against_scipy():
    """fcd.Reduction(..., inertia=P): the reduced pencil's eigenvalues (scipy) stay upper
    bounds of the full ones and come closer than with the modes alone; every kept-dof
    pattern (P = nkept) brings the lowest ones at least ten times closer (the order of
    the basis error doubles, tests/reduction/test_reduction.c says why); bad counts
    raise."""
    K, M, top, bottom, sys, cs = block_on_flat()
    n = K.shape[0]
    fixed = [2 * p + 1 for p in top]
    free = [i for i in range(n) if i not in fixed]
    dense = (lambda A: A.toarray() if hasattr(A, "toarray") else A)
    full = free_pencil_values(dense(K), dense(M), free)
    errs = []
    nkept = None
    for p in (0, 6, None):
        red = fcd.Reduction(sys, cs, 4, inertia=nkept if p is None else p)
        nkept = red.nkept
        if p is None:
            assert red.ninertia == red.nkept
        else:
            assert red.ninertia == p
        assert red.nmodes == 4 + red.ninertia
        Kr = red.system.matrix("stiffness").toarray()
        Mr = red.system.matrix("mass").toarray()
        rfixed = [j for j, d in enumerate(red.kept) if d in fixed]
        rfree = [j for j in range(red.ndofs) if j not in rfixed]
        lam = sla.eigh(Kr[np.ix_(rfree, rfree)], Mr[np.ix_(rfree, rfree)], eigvals_only=True)
        e = lam[1:5] / full[1:5] - 1
        assert np.all(e >= -1e-10)
        errs.append(e)
        red.close()
    assert np.all(errs[1] <= errs[0] + 1e-12) and np.all(errs[2] <= errs[1] + 1e-12)
    assert np.all(errs[2][:3] <= 0.1 * errs[0][:3])
    with pytest.raises(fcd.FcdError):
        fcd.Reduction(sys, cs, 4, inertia=10 ** 6)
    with pytest.raises(OverflowError):
        fcd.Reduction(sys, cs, 4, inertia=-1)
    with pytest.raises(TypeError):
        fcd.Reduction(sys, cs, 4, inertia=2.0)


def stacked_blocks():
    """Two scipy-built blocks, the lower one clamped below, the upper one pressed from
    above; the contacts are the caller's."""
    import scipy.sparse as sp
    K1, M1, top, bottom = plane_strain_block(nx=4, ny=2, E=1e5, rho=10.0)
    nb = K1.shape[0]
    K = sp.block_diag([K1, K1]).toarray()
    M = sp.block_diag([M1, M1]).toarray()
    sys = fcd.System(2 * nb)
    sys.set_matrix("stiffness", K)
    sys.set_matrix("mass", M)
    clamped = [2 * p + d for p in bottom for d in (0, 1)]
    pressed = [nb + 2 * p + 1 for p in top]
    sys.fix_dofs(clamped + pressed, [0.0] * len(clamped) + [-1e-3] * len(pressed))
    return K, M, top, bottom, nb, clamped, pressed, sys


def test_relative_interface_against_scipy():
    """Two scipy-built blocks stacked by node-to-node pairs, the lower one clamped below,
    the upper one pressed from above (fcd.Reduction(interface="relative")): each pair keeps
    one node, and with every interior mode the reduced pencil's eigenvalues are scipy's
    full ones (the model in other coordinates); with a few modes they are Rayleigh-Ritz
    upper bounds. An unknown interface is refused with the names it takes."""
    K, M, top, bottom, nb, clamped, pressed, sys = stacked_blocks()
    n = 2 * nb
    cs = fcd.ContactSet(sys, dim=2)
    for a, b in zip(bottom, top):  # the upper block's bottom on the lower one's top
        cs.add_pair([nb + 2 * a, nb + 2 * a + 1], [2 * b, 2 * b + 1], normal=[0, -1],
                    tangent=[1, 0], mu=0.3)
    fixed = set(clamped + pressed)
    free = [i for i in range(n) if i not in fixed]
    full = free_pencil_values(K, M, free)
    phys = fcd.Reduction(sys, cs, 2)
    assert phys.nkept == 4 * len(bottom) + len(top)
    interior = n - len(clamped) - 2 * len(bottom) - len(top)
    for modes, basis in ((3, "auto"), (interior, "auto"), (3, "factored")):
        red = fcd.Reduction(sys, cs, modes, interface="relative", basis=basis)
        assert red.interface == "relative"
        mem = red.memory()
        assert mem["factor"] > 0 and mem["peak"] > mem["basis"] > 0
        # auto takes the smaller: the factor when the stored modes (n x nkept) are larger
        stored_larger = 8.0 * n * red.nkept > mem["factor"]
        assert red.basis == ("factored" if basis == "factored" or stored_larger else "stored")
        assert red.nkept == 2 * len(bottom) + len(top) and red.nmodes == modes
        Kr = red.system.matrix("stiffness").toarray()
        Mr = red.system.matrix("mass").toarray()
        rfree = [j for j in range(red.ndofs) if j >= red.nkept or red.kept[j] not in fixed]
        lam = sla.eigh(Kr[np.ix_(rfree, rfree)], Mr[np.ix_(rfree, rfree)], eigvals_only=True)
        # the upper block slides freely along the lower one (the contacts are not in the
        # pencil): one zero eigenvalue, represented exactly by the constraint modes
        assert abs(lam[0]) <= 1e-9 * lam[-1] and abs(full[0]) <= 1e-9 * full[-1]
        k = min(8, len(lam))
        if modes == interior:
            assert len(lam) == len(full)
            assert np.allclose(lam[1:], full[1:], rtol=1e-9, atol=0)
        else:
            assert np.all(lam[1:k] / full[1:k] >= 1 - 1e-10)
    with pytest.raises(ValueError, match="physical, relative"):
        fcd.Reduction(sys, cs, 2, interface="bonded")
    with pytest.raises(ValueError, match="auto, stored, factored"):
        fcd.Reduction(sys, cs, 2, basis="disk")


def test_ties_against_scipy():
    """Interface coarsening (fcd.Reduction(ties=...)): on the stacked blocks, pairs 1 and 3
    follow their two neighbours half each. The reference imposes the same constraint on
    the physical matrices by hand, u = G w with u_A(t) = u_B(t) + sum_s w_s (u_A(s) -
    u_B(s)), and scipy's eigenvalues of (G'KG, G'MG) are the reduced model's with every
    interior mode kept; the tied pairs leave the reduced contact set."""
    K, M, top, bottom, nb, clamped, pressed, sys = stacked_blocks()
    n = 2 * nb
    cs = fcd.ContactSet(sys, dim=2)
    A = [[nb + 2 * a, nb + 2 * a + 1] for a in bottom]
    B = [[2 * b, 2 * b + 1] for b in top]
    for a, b in zip(A, B):
        cs.add_pair(a, b, normal=[0, -1], tangent=[1, 0], mu=0.3)
    ties = {1: {0: 0.5, 2: 0.5}, 3: {2: 0.5, 4: 0.5}}
    slaves = [A[t][q] for t in ties for q in (0, 1)]
    keep = [i for i in range(n) if i not in slaves]
    G = np.zeros((n, len(keep)))
    G[keep, range(len(keep))] = 1
    col = {d: j for j, d in enumerate(keep)}
    for t, sources in ties.items():
        for q in (0, 1):
            G[A[t][q], col[B[t][q]]] += 1
            for s, w in sources.items():
                G[A[t][q], col[A[s][q]]] += w
                G[A[t][q], col[B[s][q]]] -= w
    fixed = set(clamped + pressed)
    wfree = [j for j, d in enumerate(keep) if d not in fixed]
    ref = free_pencil_values(G.T @ K @ G, G.T @ M @ G, wfree)
    interior = n - len(clamped) - len(pressed) - 2 * len(bottom)
    red = fcd.Reduction(sys, cs, interior, interface="relative", ties=ties)
    assert red.nkept == 2 * (len(bottom) - len(ties)) + len(pressed)
    assert len(red.contacts) == len(bottom) - len(ties)
    Kr = red.system.matrix("stiffness").toarray()
    Mr = red.system.matrix("mass").toarray()
    rfree = [j for j in range(red.ndofs) if j >= red.nkept or red.kept[j] not in fixed]
    lam = sla.eigh(Kr[np.ix_(rfree, rfree)], Mr[np.ix_(rfree, rfree)], eigvals_only=True)
    assert len(lam) == len(ref)
    assert np.allclose(lam[1:], ref[1:], rtol=1e-9, atol=0)
    # the pressed top as one coordinate: the same pencil, its dofs but one gone
    one = fcd.Reduction(sys, cs, interior, interface="relative", ties=ties,
                        prescribed_shape=True)
    assert one.nkept == red.nkept - (len(pressed) - 1)
    Kr = one.system.matrix("stiffness").toarray()
    Mr = one.system.matrix("mass").toarray()
    rfree = [j for j in range(one.ndofs) if j >= one.nkept or one.kept[j] not in fixed]
    lam = sla.eigh(Kr[np.ix_(rfree, rfree)], Mr[np.ix_(rfree, rfree)], eigvals_only=True)
    assert np.allclose(lam[1:], ref[1:], rtol=1e-9, atol=0)
    # a memory limit: one the machine's memory passes counts as the machine's, one below
    # what the process holds refuses the build at once, naming what it needs
    big = fcd.Reduction(sys, cs, interior, interface="relative", ties=ties,
                        prescribed_shape=True, memory_limit=1e30)
    assert big.nkept == one.nkept
    with pytest.raises(fcd.FcdError, match="dense arrays need .* GiB allowed"):
        fcd.Reduction(sys, cs, interior, interface="relative", memory_limit=1.0)
    with pytest.raises(fcd.FcdError, match="memory_limit"):
        fcd.Reduction(sys, cs, interior, memory_limit=-1.0)
    with pytest.raises(TypeError, match="mapping"):
        fcd.Reduction(sys, cs, 2, interface="relative", ties=[1, 3])
    with pytest.raises(fcd.FcdError, match="needs FCD_INTERFACE_RELATIVE"):
        fcd.Reduction(sys, cs, 2, ties=ties)
