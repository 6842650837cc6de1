"""The conformity limit (issue 22, reference 3): on matching meshes, the library's dual
mortar and node-to-segment surface pairs give the node-to-node results to round-off in
every analysis: the static equilibrium, a run of the time integrator and the stability
eigenvalues.

Why they must: with both interfaces meshed alike, a slave node faces a master node.
Node-to-segment weights are then 1 at that node and 0 elsewhere, the node pair's row.
The dual basis is biorthogonal to the slave shape functions, so M_jk = int psi_j N_k =
D_j delta_jk: each mortar row is the pair's row times D_j > 0. A row scaled by a positive
factor states the same constraint (the multiplier is a pressure, the pair's a force:
r_pair = D_j r_mortar) and spans the same reaction direction, so displacements, statuses
and the reduced pencil's eigenvalues are those of the pairs.

Two plane-strain blocks of test_mortar_patch's model, both meshed 4 elements across.
"""
import numpy as np
import pytest

import fcd
from test_mortar_patch import model, mortar_rows

NX = 4


def contacts(sys, xy, slave, master, kind, mu):
    cs = fcd.ContactSet(sys, 2)
    if kind == "pairs":
        for s, m in zip(slave, master):
            cs.add_pair([2 * s, 2 * s + 1], [2 * m, 2 * m + 1], [0.0, -1.0], [1.0, 0.0],
                        gap=0.0, mu=mu)
    else:
        mesh = fcd.Mesh(sys, xy)
        ids, inactive = cs.add_surface_pair(mesh, list(zip(slave[:-1], slave[1:])),
                                            list(zip(master[:-1], master[1:])), kind, mu=mu)
        assert len(ids) == len(slave) and inactive == 0
    return cs


KINDS = ["pairs", "dual-mortar", "node-to-segment"]


@pytest.mark.parametrize("mu", [0.0, 0.3])
def test_equilibrium(mu):
    """A pressure and a shear on the top: the statuses and displacements of the three
    kinematics agree; the mortar multipliers are the pair forces over D_j."""
    res = {}
    for kind in KINDS:
        sys, xy, slave, master = model(nx_top=NX, nx_bot=NX)
        f = sys.load.copy() if hasattr(sys, "load") else None
        cs = contacts(sys, xy, slave, master, kind, mu)
        eq = fcd.Equilibrium(sys, cs)
        u, r = eq.solve("static")
        res[kind] = (u, r, eq.contact_status, xy, slave, master)
        del f
    u0, r0, s0 = res["pairs"][:3]
    _, _, _, xy, slave, master = res["pairs"]
    _, D = mortar_rows(xy, slave, master)
    for kind in KINDS[1:]:
        u, r, s = res[kind][:3]
        assert s == s0
        assert np.abs(u - u0).max() <= 1e-12 * np.abs(u0).max()
        scale = 1.0 if kind == "node-to-segment" else D
        assert np.abs(r[:, 0] * scale - r0[:, 0]).max() <= 1e-10 * np.abs(r0[:, 0]).max()
        assert np.abs(r[:, 1] * scale - r0[:, 1]).max() <= 1e-10 * np.abs(r0[:, 0]).max()


def test_time_integration():
    """The pressure applied suddenly, 50 Moreau-Jean steps with friction: the same
    trajectory to round-off."""
    out = {}
    for kind in KINDS:
        sys, xy, slave, master = model(with_mass=True, nx_top=NX, nx_bot=NX)
        cs = contacts(sys, xy, slave, master, kind, 0.3)
        it = fcd.Integrator(sys, cs, "moreau-jean", step=2e-5)
        n = sys.ndofs
        it.set_state(0.0, np.zeros(n), np.zeros(n))
        for _ in range(50):
            it.step()
        out[kind] = it.state[1]
    ref = out["pairs"]
    assert np.abs(ref).max() > 0
    for kind in KINDS[1:]:
        err = np.abs(out[kind] - ref).max() / np.abs(ref).max()
        print("conformity, 50 Moreau-Jean steps, %s against pairs: %.2e" % (kind, err))
        assert err <= 1e-9


@pytest.mark.parametrize("state", ["stick", "slip+", "slip-"])
def test_stability_eigenvalues(state):
    """Every interface node sticking, or slipping either way with mu = 0.3: the reduced
    pencils of the three kinematics have the same eigenvalues (relative 1e-9 of the
    largest modulus: the dense QZ's round-off on a stiff pencil) and the same size."""
    lam = {}
    for kind in KINDS:
        sys, xy, slave, master = model(with_mass=True, nx_top=NX, nx_bot=NX)
        cs = contacts(sys, xy, slave, master, kind, 0.3)
        st = fcd.Stability(sys, cs)
        nc = len(cs)
        if state == "stick":
            st.set_contact_state(["stick"] * nc)
        else:
            sg = 1.0 if state == "slip+" else -1.0
            st.set_contact_state(["slip"] * nc, np.full((nc, 1), sg))
        lam[kind] = np.sort_complex(st.solve())
    ref = lam["pairs"]
    big = np.abs(ref).max()
    for kind in KINDS[1:]:
        assert lam[kind].size == ref.size
        err = max(np.abs(lam[kind][:, None] - ref[None, :]).min(axis=1).max(),
                  np.abs(ref[:, None] - lam[kind][None, :]).min(axis=1).max()) / big
        print("conformity, stability (%s), %s against pairs: %.2e" % (state, kind, err))
        assert err <= 1e-9


def test_host_rows_with_round_off_weights():
    """The host's own dual-mortar rows (test_mortar_patch.mortar_rows, which keeps every
    M_jk its quadrature leaves nonzero, round-off included) on the matching meshes: the
    tiny weights must not cost the stability analysis its certificate (balanced QZ can
    lose accuracy on them; the analysis then takes the unbalanced QZ) and the
    eigenvalues are the pairs' ones."""
    sys, xy, slave, master = model(with_mass=True, nx_top=NX, nx_bot=NX)
    rows, D = mortar_rows(xy, slave, master)
    tiny = [w for nrow, _ in rows for _, w in nrow[1:] if abs(w) < 1e-12 * D.max()]
    assert tiny, "the host's rows have no round-off weights: the case tests nothing"
    cs = fcd.ContactSet(sys, 2)
    for nrow, trow in rows:
        cs.add_rows([nrow, trow], gap=0.0, mu=0.3)
    st = fcd.Stability(sys, cs)
    st.set_contact_state(["slip"] * len(cs), np.ones((len(cs), 1)))
    lam = np.sort_complex(st.solve())
    assert st.certificate["worst"] <= st.certificate["tolerance"]
    sys2, xy, slave, master = model(with_mass=True, nx_top=NX, nx_bot=NX)
    st2 = fcd.Stability(sys2, contacts(sys2, xy, slave, master, "pairs", 0.3))
    st2.set_contact_state(["slip"] * len(cs), np.ones((len(cs), 1)))
    ref = np.sort_complex(st2.solve())
    err = np.abs(lam[:, None] - ref[None, :]).min(axis=1).max() / np.abs(ref).max()
    print("host rows with %d round-off weights: eigenvalues %.2e from the pairs'"
          % (len(tiny), err))
    assert lam.size == ref.size and err <= 1e-9
