"""Hertz line contact with non-matching meshes (issue 22, reference 2): a plane-strain
cylinder of radius R pressed on an elastic flat of the same material, the interface
tied by the library's dual-mortar surface pair (the cylinder's arc the slave, the
flat's top the master, meshed independently).

Closed form (two half-spaces, plane strain, line load P per unit length; Johnson,
Contact Mechanics, section 4.3): 1/E* = 2 (1 - nu^2) / E for one material,
    a = sqrt(4 P R / (pi E*)),   p(x) = p0 sqrt(1 - x^2 / a^2),   p0 = 2 P / (pi a).
Frictionless (with one material friction would change nothing: Dundurs' beta is zero).

Model: the cylinder's lower part (centre (0, R)), x in [-0.8 R, 0.8 R] between its arc
and y = 1.5 R, a grid mapped between them and graded towards the lowest point, the load
P a uniform traction on its top, its symmetry axis held in x (all but the contact node);
the flat [-4R, 4R] x [-4R, 0] graded towards the origin (nearly uniform
within 2a of the contact, sinh stretching beyond), its bottom held. a / R = 0.1. The dual-mortar multipliers are the nodal pressures: p0 is the largest, a comes from the
load's second moment (int x^2 p dx / int p dx = a^2 / 4 for the Hertz profile), robust
against the few nodes that straddle the contact's end. The finite bodies differ from
half-spaces: the error converges to a small model error, which the table shows.
"""
import numpy as np
import pytest
import scipy.sparse as sp

import fcd

E, NU, R = 1e7, 0.3, 1.0
ESTAR = E / (2 * (1 - NU ** 2))
A_HERTZ = 0.1 * R
P = np.pi * ESTAR * A_HERTZ ** 2 / (4 * R)
P0 = 2 * P / (np.pi * A_HERTZ)


def assemble(xy, tris):
    """Plane-strain stiffness of linear triangles (vectorized)."""
    lam = E * NU / ((1 + NU) * (1 - 2 * NU))
    G = E / (2 * (1 + NU))
    D = np.array([[lam + 2 * G, lam, 0], [lam, lam + 2 * G, 0], [0, 0, G]])
    X = xy[tris]
    cw = ((X[:, 1, 0] - X[:, 0, 0]) * (X[:, 2, 1] - X[:, 0, 1])
          - (X[:, 2, 0] - X[:, 0, 0]) * (X[:, 1, 1] - X[:, 0, 1])) < 0
    tris = tris.copy()
    tris[cw] = tris[cw][:, [0, 2, 1]]  # every triangle counter-clockwise
    X = xy[tris]  # (ne, 3, 2)
    bx = np.stack([X[:, 1, 1] - X[:, 2, 1], X[:, 2, 1] - X[:, 0, 1], X[:, 0, 1] - X[:, 1, 1]], 1)
    by = np.stack([X[:, 2, 0] - X[:, 1, 0], X[:, 0, 0] - X[:, 2, 0], X[:, 1, 0] - X[:, 0, 0]], 1)
    a2 = (X[:, 1, 0] - X[:, 0, 0]) * (X[:, 2, 1] - X[:, 0, 1]) - \
        (X[:, 2, 0] - X[:, 0, 0]) * (X[:, 1, 1] - X[:, 0, 1])
    assert np.all(a2 > 0), "a degenerate triangle"
    ne = len(tris)
    B = np.zeros((ne, 3, 6))
    B[:, 0, 0::2] = bx / a2[:, None]
    B[:, 1, 1::2] = by / a2[:, None]
    B[:, 2, 0::2] = by / a2[:, None]
    B[:, 2, 1::2] = bx / a2[:, None]
    Ke = np.einsum("eki,kl,elj->eij", B, D, B) * (a2 / 2)[:, None, None]
    dofs = np.stack([2 * tris[:, 0], 2 * tris[:, 0] + 1, 2 * tris[:, 1], 2 * tris[:, 1] + 1,
                     2 * tris[:, 2], 2 * tris[:, 2] + 1], 1)
    r = np.repeat(dofs, 6, axis=1).reshape(-1)
    c = np.tile(dofs, (1, 6)).reshape(-1)
    n = 2 * len(xy)
    return sp.csr_matrix((Ke.reshape(-1), (r, c)), shape=(n, n))


def grid_tris(ni, nj, index):
    """Two triangles per cell of an ni x nj grid of nodes index(i, j) (assemble orients
    them)."""
    t = []
    for j in range(nj - 1):
        for i in range(ni - 1):
            a, b, c, d = index(i, j), index(i + 1, j), index(i + 1, j + 1), index(i, j + 1)
            t += [(a, b, c), (a, c, d)]
    return np.array(t)


def stretched(n, L, c, two_sided=True):
    """n + 1 points on [-L, L] (or [0, L]), x = c sinh(beta s): nearly uniform within
    about c of 0, growing beyond."""
    s = np.linspace(-1 if two_sided else 0, 1, n + 1)
    return c * np.sinh(np.arcsinh(L / c) * s)


def model(level, master_c=0.05):
    """Level k halves the element size at the contact of level k - 1. The flat's top is
    finer than the cylinder's arc by 1.6 at the contact (master_c = 0.05), or coarser by
    2.3 (master_c = 0.3)."""
    nx, ny = 32 * 2 ** level, 16 * 2 ** level
    # the cylinder's lower part: x in [-0.8 R, 0.8 R] between the arc
    # y = R - sqrt(R^2 - x^2) and y = 1.5 R, a grid mapped between them, graded towards
    # the lowest point
    xc = stretched(nx, 0.8 * R, 2 * A_HERTZ)
    tc = stretched(ny, 1.0, 0.4, two_sided=False)
    yb = R - np.sqrt(R ** 2 - xc ** 2)
    xy = [(x, b + (1.5 * R - b) * t) for t in tc for x, b in zip(xc, yb)]
    idx = lambda i, j: j * (nx + 1) + i
    tris = grid_tris(nx + 1, ny + 1, idx)
    ncyl = len(xy)
    # the flat [-4 R, 4 R] x [-4 R, 0], graded towards the origin
    xs = stretched(nx, 4 * R, master_c)
    ys = -stretched(ny, 4 * R, 0.7 * A_HERTZ, two_sided=False)[::-1]
    xy += [(x, y) for y in ys for x in xs]
    fidx = lambda i, j: ncyl + j * (nx + 1) + i
    tris = np.vstack([tris, grid_tris(nx + 1, ny + 1, fidx)])
    return np.array(xy), tris, nx, ny, idx, fidx


def solve(level, master_c=0.05):
    xy, tris, nx, ny, idx, fidx = model(level, master_c)
    K = assemble(xy, tris)
    n = 2 * len(xy)
    sys = fcd.System(n)
    sys.set_matrix("stiffness", K)
    fixed = [2 * fidx(i, 0) + 1 for i in range(nx + 1)] + [2 * fidx(nx // 2, 0)]
    # the cylinder's symmetry axis x = 0 held in x, all but its contact node: no rigid
    # rotation, no x translation
    fixed += [2 * idx(nx // 2, j) for j in range(1, ny + 1)]
    sys.fix_dofs(sorted(fixed))
    # P as a uniform traction on the top y = 1.5 R, consistent nodal forces
    f = np.zeros(n)
    q = P / (1.6 * R)
    for i in range(nx):
        a, b = idx(i, ny), idx(i + 1, ny)
        L = xy[b, 0] - xy[a, 0]
        f[2 * a + 1] -= q * L / 2
        f[2 * b + 1] -= q * L / 2
    sys.set_load(f)
    # slave: the arc within 0.4 R of the lowest point, left to right; master: the flat's
    # top within 0.6 R
    arc = [idx(i, 0) for i in range(nx + 1) if abs(xy[idx(i, 0), 0]) < 0.4 * R]
    top = [fidx(i, ny) for i in range(nx + 1) if abs(xy[fidx(i, ny), 0]) < 0.6 * R]
    mesh = fcd.Mesh(sys, xy)
    cs = fcd.ContactSet(sys, 2)
    ids, inactive = cs.add_surface_pair(mesh, list(zip(arc[:-1], arc[1:])),
                                        list(zip(top[:-1], top[1:])), "dual-mortar", mu=0.0)
    assert len(ids) == len(arc)
    u, r = fcd.Equilibrium(sys, cs).solve("static")
    x = xy[arc, 0]  # the slave nodes come in the order of the segments
    p = -r[:, 0]
    h = np.min(np.diff(x))
    # the half-width from the load's second moment (for the Hertz profile,
    # int x^2 p / int p = a^2 / 4), the multipliers weighted by each node's share of the
    # arc (trapezoid weights); the peak pressure from the largest multiplier
    w = np.zeros_like(x)
    w[1:] += np.diff(x) / 2
    w[:-1] += np.diff(x) / 2
    a_fit = 2 * np.sqrt(np.sum(w * p * x ** 2) / np.sum(w * p))
    p0_fit = p.max()
    inside = p > 0
    return h, a_fit, p0_fit, int(inside.sum()), n


def test_hertz_half_width_and_peak_pressure_converge():
    rows = []
    for level in range(3):
        rows.append(solve(level))
    print("\nHertz, plane strain, a/R = 0.1, dual mortar on non-matching meshes:")
    print("  level  dofs    h/a     nodes in contact  a error   p0 error")
    for k, (h, a, p0, nin, n) in enumerate(rows):
        print("  %d      %6d  %.4f  %3d               %+.2f%%   %+.2f%%"
              % (k, n, h / A_HERTZ, nin, 100 * (a / A_HERTZ - 1), 100 * (p0 / P0 - 1)))
    ea = [abs(a / A_HERTZ - 1) for _, a, _, _, _ in rows]
    ep = [abs(p0 / P0 - 1) for _, _, p0, _, _ in rows]
    assert ea[-1] < 0.02 and ep[-1] < 0.02, "finest level beyond 2%% (a %.3f, p0 %.3f)" % (
        ea[-1], ep[-1])
    # converging under refinement: each level closer than the one before
    assert ea[2] < ea[1] < ea[0] and ep[2] < ep[1] < ep[0]
    # the multipliers live on the slave side: a slave much finer than its master gives
    # them room to oscillate node to node; recorded, with the master 2.3 times coarser
    h, a, p0, nin, n = solve(2, master_c=0.3)
    print("  the same, finest level, master 2.3 x coarser than the slave: a %+.2f%%, "
          "p0 %+.2f%%" % (100 * (a / A_HERTZ - 1), 100 * (p0 / P0 - 1)))
