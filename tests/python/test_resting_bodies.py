"""Bodies resting on another body and held by their contacts alone (issue 64, part 1):
each configuration fcd refused before ("the contacts cannot hold the load") although it
has an equilibrium, and the configurations that have none.

Two plane-strain blocks of one material, a base (its bottom held) and a body on it,
meshed by linear triangles (test_fcd.plane_strain_block). The contact rows are computed
here, not by fcd: dual mortar (Wohlmuth's biorthogonal basis, as test_mortar_patch),
node-to-segment, or matching node pairs. Every FCD_OK answer is checked independently:

- the balance K u = f + H^T r on the free dofs and the contact law, with this test's H;
- the body's own statics: its load and contact forces have zero resultant and moment;
- a dense solve with scipy of the same problem with fcd's contact set imposed as
  equalities (closed: H_N u = g; stick: H_T u = 0; slip: r_T = mu r_N s), which must give
  fcd's displacements.

Every refusal (FCD_E_NO_SOLUTION) is checked against an existence test written here: a
linear program (scipy's linprog) asking whether reactions in the Coulomb cones, and any
reactions of the body's prescribed dofs, can balance the body's load resultant (force
and moment about the origin). fcd's mechanism must then be the one of the case.
"""
import numpy as np
import pytest
import scipy.linalg as sla
from scipy.optimize import linprog

import fcd
from test_fcd import plane_strain_block
from test_mortar_patch import mortar_rows, nts_rows

E, NU = 1e7, 0.3


def two_blocks(nxb, wb, nxt, wt, xt, gap=0.0, hb=0.5, ht=0.5, ny=2):
    """The base (nxb cells across wb, at x = 0) and the body (nxt across wt, at x = xt,
    its bottom gap above the base's top). Returns K, xy, base (top, bottom) node lists
    and body (top, bottom) lists, body nodes numbered after the base's."""
    Kb, _, tb, bb = plane_strain_block(nx=nxb, ny=ny, E=E, nu=NU, lx=wb, ly=hb)
    Kt, _, tt, bt = plane_strain_block(nx=nxt, ny=ny, E=E, nu=NU, lx=wt, ly=ht)
    nb, nt = Kb.shape[0], Kt.shape[0]
    K = np.zeros((nb + nt, nb + nt))
    K[:nb, :nb] = Kb.toarray()
    K[nb:, nb:] = Kt.toarray()
    off = nb // 2
    xy = []
    for nx, w, x0, y0, h in ((nxb, wb, 0.0, 0.0, hb), (nxt, wt, xt, hb + gap, ht)):
        for j in range(ny + 1):
            for i in range(nx + 1):
                xy.append((x0 + i * w / nx, y0 + j * h / ny))
    return K, np.array(xy), (tb, bb), ([off + k for k in tt], [off + k for k in bt])


def matching_rows(xy, slave, master):
    """A node pair per slave node and the master node below it (same x)."""
    rows = []
    for s in slave:
        m = min(master, key=lambda k: abs(xy[k, 0] - xy[s, 0]))
        assert abs(xy[m, 0] - xy[s, 0]) < 1e-12
        rows.append(([(2 * s + 1, -1.0), (2 * m + 1, 1.0)], [(2 * s, 1.0), (2 * m, -1.0)]))
    return rows


def rows_for(method, xy, slave, master):
    if method == "dual-mortar":
        return mortar_rows(xy, slave, master)[0]
    if method == "node-to-segment":
        return nts_rows(xy, slave, master)
    return matching_rows(xy, slave, master)


class Case:
    """A model: K, the load f, prescribed dofs and values, contact rows, gaps, mu."""

    def __init__(self, K, xy, f, fixed, values, rows, gaps, mu, body):
        self.K, self.xy, self.f = K, xy, f
        self.fixed, self.values = list(fixed), list(values)
        self.rows, self.gaps, self.mu, self.body = rows, gaps, mu, body
        n = K.shape[0]
        nc = len(rows)
        self.H = np.zeros((2 * nc, n))
        for c, (nrow, trow) in enumerate(rows):
            for k, row in enumerate((nrow, trow)):
                for dof, w in row:
                    self.H[2 * c + k, dof] += w

    def solve(self, mesh=False):
        n = self.K.shape[0]
        sys = fcd.System(n)
        sys.set_matrix("stiffness", self.K)
        sys.fix_dofs(self.fixed, self.values)
        sys.set_load(self.f)
        cs = fcd.ContactSet(sys, 2)
        for (nrow, trow), g in zip(self.rows, self.gaps):
            cs.add_rows([nrow, trow], gap=g, mu=self.mu)
        eq = fcd.Equilibrium(sys, cs)
        if mesh:
            m = fcd.Mesh(sys, self.xy)
            eq.set_mesh(m)
        self._keep = (sys, cs, eq)
        return eq


def check_answer(case, u, r, tol=1e-8):
    """The independent checks of an FCD_OK answer; returns the dense solve's agreement."""
    K, f, H, mu = case.K, case.f, case.H, case.mu
    n = K.shape[0]
    free = np.setdiff1d(np.arange(n), case.fixed)
    rr = r.reshape(-1)
    res = (K @ u - f - H.T @ rr)[free]
    F = max(np.abs(f).max(), np.abs(H.T @ rr).max(), (np.abs(K) @ np.abs(u)).max())
    assert np.abs(res).max() <= tol * F, "balance %.3e" % (np.abs(res).max() / F)
    loc = H @ u
    gn = loc[0::2] - np.asarray(case.gaps)
    L = max(np.abs(u).max(), max(case.gaps))
    R = max(F, np.abs(rr).max())
    rn, rt = r[:, 0], r[:, 1]
    assert gn.max() <= tol * L, "penetration %.3e" % (gn.max() / L)
    assert rn.max() <= tol * R, "tension"
    assert np.abs(np.minimum(-gn / L, -rn / R)).max() <= tol, "Signorini"
    assert (np.abs(rt) - mu * np.abs(rn)).max() <= tol * R, "cone"
    # the body's statics: its load and contact forces balance (force and moment)
    body = [2 * k + a for k in case.body for a in (0, 1)]
    fb = (f + H.T @ rr)[body]
    bfix = [d for d in body if d in set(case.fixed)]
    if not bfix:
        xb = case.xy[case.body]
        fx, fy = fb[0::2], fb[1::2]
        assert abs(fx.sum()) <= tol * F * len(body)
        assert abs(fy.sum()) <= tol * F * len(body)
        assert abs((xb[:, 0] * fy - xb[:, 1] * fx).sum()) <= tol * F * len(body)
    # fcd's contact set imposed as equalities, solved densely by scipy
    closed = rn < -1e-9 * R
    stick = closed & (np.abs(rt) < mu * np.abs(rn) * (1 - 1e-9))
    slip = closed & ~stick
    s = np.where(rt > 0, -1.0, 1.0)  # r_T = mu r_N s with s the slip direction
    nf = len(free)
    ic, ist = np.flatnonzero(closed), np.flatnonzero(stick)
    N = nf + len(ic) + len(ist)
    A = np.zeros((N, N))
    b = np.zeros(N)
    A[:nf, :nf] = K[np.ix_(free, free)]
    z = np.zeros(n)
    z[case.fixed] = case.values
    b[:nf] = (f - K @ z)[free]
    ks = np.abs(K).max()  # the constraint rows on K's scale: a well-conditioned system
    for j, c in enumerate(ic):
        col = H[2 * c, free] + (mu * s[c] * H[2 * c + 1, free] if slip[c] else 0)
        A[:nf, nf + j] = -col * ks
        A[nf + j, :nf] = H[2 * c, free] * ks
        b[nf + j] = (case.gaps[c] - H[2 * c] @ z) * ks
    for j, c in enumerate(ist):
        A[:nf, nf + len(ic) + j] = -H[2 * c + 1, free] * ks
        A[nf + len(ic) + j, :nf] = H[2 * c + 1, free] * ks
        b[nf + len(ic) + j] = -H[2 * c + 1] @ z * ks
    x = sla.solve(A, b)
    du = np.abs(x[:nf] - u[free]).max() / np.abs(u).max()
    assert du <= 1e-7, "the dense solve with fcd's contact set differs by %.3e" % du
    return du


def exists(case):
    """The existence test: can reactions in the cones (and any reactions at the body's
    prescribed dofs) balance the body's load, force and moment? (linprog, HiGHS)"""
    xy, H, mu = case.xy, case.H, case.mu
    body = case.body
    pos = {}
    for k in body:
        pos[2 * k] = (k, 0)
        pos[2 * k + 1] = (k, 1)

    def resultant(v):
        """(Fx, Fy, M) of nodal forces v (all dofs) on the body's nodes"""
        out = np.zeros(3)
        for d, (k, a) in pos.items():
            out[a] += v[d]
            out[2] += (xy[k, 0] * v[d] if a == 1 else -xy[k, 1] * v[d])
        return out

    cols = []
    for c in range(len(case.rows)):
        for g in ((-1.0, 0.0), (-1.0, mu), (-1.0, -mu)):
            cols.append(resultant(g[0] * H[2 * c] + g[1] * H[2 * c + 1]))
    for d in case.fixed:
        if d in pos:
            e = np.zeros(case.K.shape[0])
            e[d] = 1
            cols += [resultant(e), resultant(-e)]
    A = np.array(cols).T
    b = -resultant(case.f)
    out = linprog(np.zeros(A.shape[1]), A_eq=A, b_eq=b, bounds=(0, None), method="highs")
    return out.status == 0


def punch(method):
    """A frictionless block half as wide as its base, pressed on its top with its top
    left corner's x prescribed: the vertical translation and the rotation about that
    corner are held by the contacts alone."""
    nxb, nxt = (4, 2) if method != "matching" else (4, 2)
    K, xy, (tb, bb), (tt, bt) = two_blocks(nxb, 1.0, nxt, 0.5, 0.25 if method != "matching" else 0.25)
    if method == "matching":
        # the body's bottom nodes sit on base nodes: x = 0.25, 0.5, 0.75
        K, xy, (tb, bb), (tt, bt) = two_blocks(4, 1.0, 2, 0.5, 0.25)
    rows = rows_for(method, xy, bt, tb)
    f = np.zeros(K.shape[0])
    for k in tt:
        f[2 * k + 1] = -1e4 / len(tt)
    fixed = [2 * k + 1 for k in bb] + [0, 2 * tt[0]]
    return Case(K, xy, f, fixed, [0.0] * len(fixed), rows, [0.0] * len(rows), 0.0, tt + bt)


@pytest.mark.parametrize("method", ["dual-mortar", "node-to-segment", "matching"])
def test_punch_half_as_wide_as_its_base(method):
    case = punch(method)
    assert exists(case)
    u, r = case.solve().solve()
    du = check_answer(case, u, r)
    # every contact closed and compressive: the punch rests on its whole width
    assert (r[:, 0] < 0).all()
    print("punch, %s: dense solve agrees to %.1e" % (method, du))


@pytest.mark.parametrize("gap", [0.5, 1.0, 10.0, 100.0])
def test_block_starting_far_above_its_base(gap):
    """A full-width block gap above its base (gaps up to 0.3 solved before): the rigid
    motion to the base is 1e3 to 1e6 times the elastic displacements."""
    K, xy, (tb, bb), (tt, bt) = two_blocks(4, 1.0, 3, 1.0, 0.0, gap=gap)
    rows = mortar_rows(xy, bt, tb)[0]
    f = np.zeros(K.shape[0])
    for k in tt:
        f[2 * k + 1] = -1e4 / len(tt)
    fixed = [2 * k + 1 for k in bb] + [0, 2 * tt[0]]
    case = Case(K, xy, f, fixed, [0.0] * len(fixed), rows, [gap * d for d in
                                                            mortar_rows(xy, bt, tb)[1]], 0.0,
                tt + bt)
    # the mortar's weighted gap: D_j times the distance
    u, r = case.solve().solve()
    check_answer(case, u, r)
    # the body came down by the gap, give or take the blocks' elastic squeeze (the load
    # over E times the height, 1e-3)
    assert abs(u[2 * bt[0] + 1] + gap) < 2e-3


def bracket_case(mu):
    """An L-shaped bracket (a foot 1.0 x 0.2 and a leg 0.2 x 0.8 at its left) on a block
    1.2 wide, nothing of the bracket prescribed, its leg's top loaded, dual mortar."""
    Kb, _, tb, bb = plane_strain_block(nx=6, ny=2, E=E, nu=NU, lx=1.2, ly=0.4)
    nb = Kb.shape[0]
    # the bracket on a 5 x 5 grid of 0.2 cells: the foot row and the leg column
    px, ncx, ncy = 6, 5, 5
    cells = [(i, j) for j in range(ncy) for i in range(ncx) if j == 0 or i == 0]
    used = {}
    for i, j in cells:
        for q in (i + px * j, i + 1 + px * j, i + 1 + px * (j + 1), i + px * (j + 1)):
            used.setdefault(q, len(used))
    nt = 2 * len(used)
    xy_t = np.zeros((len(used), 2))
    for g, l in used.items():
        xy_t[l] = (0.1 + 0.2 * (g % px), 0.4 + 0.2 * (g // px))
    Kt = np.zeros((nt, nt))
    lam = E * NU / ((1 + NU) * (1 - 2 * NU))
    G = E / (2 * (1 + NU))
    D = np.array([[lam + 2 * G, lam, 0], [lam, lam + 2 * G, 0], [0, 0, G]])
    for i, j in cells:
        a, b, c, d = (used[q] for q in (i + px * j, i + 1 + px * j, i + 1 + px * (j + 1),
                                        i + px * (j + 1)))
        for tri in ((a, b, c), (a, c, d)):
            X = xy_t[list(tri)]
            a2 = (X[1, 0] - X[0, 0]) * (X[2, 1] - X[0, 1]) - (X[2, 0] - X[0, 0]) * (X[1, 1] - X[0, 1])
            bx = [X[1, 1] - X[2, 1], X[2, 1] - X[0, 1], X[0, 1] - X[1, 1]]
            by = [X[2, 0] - X[1, 0], X[0, 0] - X[2, 0], X[1, 0] - X[0, 0]]
            B = np.zeros((3, 6))
            for k in range(3):
                B[0, 2 * k] = bx[k] / a2
                B[1, 2 * k + 1] = by[k] / a2
                B[2, 2 * k] = by[k] / a2
                B[2, 2 * k + 1] = bx[k] / a2
            dofs = [2 * tri[0], 2 * tri[0] + 1, 2 * tri[1], 2 * tri[1] + 1, 2 * tri[2], 2 * tri[2] + 1]
            Kt[np.ix_(dofs, dofs)] += B.T @ D @ B * a2 / 2
    K = np.zeros((nb + nt, nb + nt))
    K[:nb, :nb] = Kb.toarray()
    K[nb:, nb:] = Kt
    off = nb // 2
    xy_b = np.array([(i * 0.2, j * 0.2) for j in range(3) for i in range(7)])
    xy = np.vstack([xy_b, xy_t])
    bottom = sorted((off + l for g, l in used.items() if g // px == 0), key=lambda k: xy[k, 0])
    top = [off + l for g, l in used.items() if g // px == ncy]
    rows, Dw = mortar_rows(xy, bottom, tb)
    f = np.zeros(K.shape[0])
    for k in top:
        f[2 * k + 1] = -1e3
    fixed = [2 * k + a for k in bb for a in (0, 1)]
    body = list(range(off, off + len(used)))
    return Case(K, xy, f, fixed, [0.0] * len(fixed), rows, [0.0] * len(rows), mu, body)


@pytest.mark.parametrize("mu", [0.3, 1.0])
def test_bracket_on_a_block_with_dual_mortar(mu):
    """Refused before with "unbalanced force 4.8e-4 of the force scale" while
    node-to-segment solved the same mesh and load."""
    case = bracket_case(mu)
    assert exists(case)
    u, r = case.solve().solve()
    du = check_answer(case, u, r)
    print("L bracket, mu %g: dense solve agrees to %.1e" % (mu, du))


@pytest.mark.parametrize("method,mu", [("dual-mortar", 0.05), ("dual-mortar", 0.3),
                                       ("matching", 0.05)])
def test_block_pushed_until_every_contact_slips(method, mu):
    """The body's top pushed sideways by a prescribed u_x, its u_y free, pressed by a
    load: every contact slips, |r_T| = mu |r_N|, and the friction's moment is balanced by
    a shifted pressure whose resultant stays inside the base."""
    nxt = 3 if method == "dual-mortar" else 4
    K, xy, (tb, bb), (tt, bt) = two_blocks(4, 1.0, nxt, 1.0, 0.0)
    rows = rows_for(method, xy, bt, tb)
    f = np.zeros(K.shape[0])
    for k in tt:
        f[2 * k + 1] = -1e4 / len(tt)
    fixed = [2 * k + a for k in bb for a in (0, 1)] + [2 * k for k in tt]
    values = [0.0] * (2 * len(bb)) + [1e-2] * len(tt)
    case = Case(K, xy, f, fixed, values, rows, [0.0] * len(rows), mu, tt + bt)
    u, r = case.solve().solve()
    check_answer(case, u, r)
    assert np.allclose(np.abs(r[:, 1]), mu * np.abs(r[:, 0]), rtol=1e-8, atol=1e-10 * 1e4)
    # the contact forces on the body: their resultant's point of action
    H = case.H
    fb = H.T @ r.reshape(-1)
    fy = fb[[2 * k + 1 for k in bt]]
    xc = (xy[bt, 0] * fy).sum() / fy.sum()
    assert 0 < xc < 1, "resultant at x = %g, outside the base" % xc


def test_no_equilibrium_named_by_its_mechanism():
    """Three loads without an equilibrium, each refused as FCD_E_NO_SOLUTION with the
    mechanism the existence test implies."""
    # gross slip: a lateral load beyond mu times the weight on a free block
    K, xy, (tb, bb), (tt, bt) = two_blocks(4, 1.0, 4, 1.0, 0.0)
    rows = matching_rows(xy, bt, tb)
    fixed = [2 * k + a for k in bb for a in (0, 1)]
    f = np.zeros(K.shape[0])
    for k in tt:
        f[2 * k + 1] = -1e3
        f[2 * k] = 0.4e3
    case = Case(K, xy, f, fixed, [0.0] * len(fixed), rows, [0.0] * len(rows), 0.3, tt + bt)
    assert not exists(case)
    with pytest.raises(fcd.FcdError) as e:
        case.solve(mesh=True).solve()
    assert e.value.name == "FCD_E_NO_SOLUTION"
    assert "friction cannot balance the tangential load" in str(e.value)
    m = case._keep[2].mechanism
    assert m["kind"] == "gross-slip" and m["motion"] == "translation"
    assert m["direction"][:2] == pytest.approx([1.0, 0.0], abs=1e-9)
    # the same with mu = 0.5: held (0.4 < 0.5), and fcd agrees with the test
    case.mu = 0.5
    assert exists(case)
    u, r = case.solve().solve()
    check_answer(case, u, r)
    # separation: the block pulled up
    f2 = np.zeros(K.shape[0])
    for k in tt:
        f2[2 * k + 1] = 1e3
    case = Case(K, xy, f2, fixed, [0.0] * len(fixed), rows, [0.0] * len(rows), 0.3, tt + bt)
    assert not exists(case)
    with pytest.raises(fcd.FcdError) as e:
        case.solve(mesh=True).solve()
    assert "separates from its support" in str(e.value)
    m = case._keep[2].mechanism
    assert m["kind"] == "separation" and m["motion"] == "translation"
    assert m["direction"][:2] == pytest.approx([0.0, 1.0], abs=1e-9)
    # tipping: a block 1.0 wide on a pedestal 0.2 wide (x 0.4 to 0.6), a load at x = 0.9
    K, xy, (tb, bb), (tt, bt) = two_blocks(2, 0.2, 10, 1.0, 0.0)
    xy[:len(xy) - len(tt) * 3] += [0.4, 0.0]  # the pedestal under the middle
    over = [k for k in bt if 0.4 - 1e-12 <= xy[k, 0] <= 0.6 + 1e-12]
    rows = nts_rows(xy, over, tb)
    f3 = np.zeros(K.shape[0])
    at = min(tt, key=lambda k: abs(xy[k, 0] - 0.9))
    f3[2 * at + 1] = -1e3
    fixed = [2 * k + a for k in bb for a in (0, 1)]
    case = Case(K, xy, f3, fixed, [0.0] * len(fixed), rows, [0.0] * len(rows), 0.3, tt + bt)
    assert not exists(case)
    with pytest.raises(fcd.FcdError) as e:
        case.solve(mesh=True).solve()
    assert "tips about an edge" in str(e.value)
    m = case._keep[2].mechanism
    assert m["kind"] == "tipping" and m["motion"] == "rotation"
    assert m["point"][:2] == pytest.approx([0.6, 0.5], abs=1e-9)
    assert m["direction"][2] == -1.0  # clockwise
    # the load over the pedestal: held
    f4 = np.zeros(K.shape[0])
    f4[2 * min(tt, key=lambda k: abs(xy[k, 0] - 0.5)) + 1] = -1e3
    case.f = f4
    assert exists(case)
    u, r = case.solve().solve()
    check_answer(case, u, r)
