"""Small 3D linear elastic blocks for the tests (not a test module): trilinear hexahedra
(2 x 2 x 2 Gauss) or linear tetrahedra (each hexahedron cut into six along its main
diagonal, Kuhn's conforming split), consistent mass. Node (i, j, k) of an nx x ny x nz
grid is i + (nx + 1) (j + (ny + 1) k), dofs 3 node + (0, 1, 2)."""
import itertools

import numpy as np
import scipy.sparse as sp


def elasticity(E, nu):
    lam = E * nu / ((1 + nu) * (1 - 2 * nu))
    G = E / (2 * (1 + nu))
    D = np.zeros((6, 6))
    D[:3, :3] = lam
    D[np.arange(3), np.arange(3)] += 2 * G
    D[np.arange(3, 6), np.arange(3, 6)] = G
    return D


def bmatrix(dN):
    """Strain-displacement matrix from shape derivatives dN (3 x n)."""
    n = dN.shape[1]
    B = np.zeros((6, 3 * n))
    for a in range(n):
        dx, dy, dz = dN[:, a]
        B[0, 3 * a] = dx
        B[1, 3 * a + 1] = dy
        B[2, 3 * a + 2] = dz
        B[3, 3 * a] = dy
        B[3, 3 * a + 1] = dx
        B[4, 3 * a + 1] = dz
        B[4, 3 * a + 2] = dy
        B[5, 3 * a] = dz
        B[5, 3 * a + 2] = dx
    return B


HEX = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0],
                [0, 0, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1]])


def block(nx, ny, nz, lx, ly, lz, z0=0.0, E=1e7, nu=0.3, rho=1000.0, tets=False):
    """Returns K, M (scipy CSR), xyz (nnodes x 3), and the top and bottom faces: quads
    (hexahedra) or triangles (tetrahedra), four node ids each (-1 fourth for a
    triangle), ordered counter-clockwise seen from outside the block."""
    px, py = nx + 1, ny + 1
    xyz = np.array([(i * lx / nx, j * ly / ny, z0 + k * lz / nz)
                    for k in range(nz + 1) for j in range(py) for i in range(px)])
    elems = []
    for k in range(nz):
        for j in range(ny):
            for i in range(nx):
                ids = [(i + a) + px * ((j + b) + py * (k + c)) for a, b, c in HEX]
                if not tets:
                    elems.append(ids)
                    continue
                # Kuhn: the path 0 -> e_p -> e_p + e_q -> (1, 1, 1) for each axis order
                for perm in itertools.permutations(range(3)):
                    v = np.zeros(3, dtype=int)
                    path = [tuple(v)]
                    for ax in perm:
                        v[ax] = 1
                        path.append(tuple(v))
                    elems.append([ids[[tuple(h) for h in HEX].index(p)] for p in path])
    K, M = assemble(elems, xyz, E, nu, rho)
    return K, M, xyz, faces(elems, xyz, z0 + lz), faces(elems, xyz, z0)


def assemble(elems, xyz, E=1e7, nu=0.3, rho=1000.0):
    """K and M (scipy CSR) of linear tetrahedra (4 node ids) and trilinear hexahedra (8,
    VTK's order) over the nodes xyz; node p owns dofs 3 p .. 3 p + 2."""
    D = elasticity(E, nu)
    rows, cols, kv, mv = [], [], [], []
    g = np.array([-1, 1]) / np.sqrt(3)
    for ids in elems:
        X = xyz[ids]
        n = len(ids)
        Ke = np.zeros((3 * n, 3 * n))
        Me = np.zeros((3 * n, 3 * n))
        if n == 4:
            J = np.array([X[1] - X[0], X[2] - X[0], X[3] - X[0]]).T
            vol = abs(np.linalg.det(J)) / 6
            dNref = np.array([[-1, 1, 0, 0], [-1, 0, 1, 0], [-1, 0, 0, 1]], dtype=float)
            dN = np.linalg.solve(J.T, dNref)
            B = bmatrix(dN)
            Ke = B.T @ D @ B * vol
            for a in range(4):
                for b in range(4):
                    m = rho * vol / 20 * (2 if a == b else 1)
                    for c in range(3):
                        Me[3 * a + c, 3 * b + c] = m
        else:
            s = 2 * HEX - 1
            for xi, eta, zeta in itertools.product(g, g, g):
                N = (1 + s[:, 0] * xi) * (1 + s[:, 1] * eta) * (1 + s[:, 2] * zeta) / 8
                dNref = np.array([s[:, 0] * (1 + s[:, 1] * eta) * (1 + s[:, 2] * zeta),
                                  s[:, 1] * (1 + s[:, 0] * xi) * (1 + s[:, 2] * zeta),
                                  s[:, 2] * (1 + s[:, 0] * xi) * (1 + s[:, 1] * eta)]) / 8
                J = dNref @ X
                dN = np.linalg.solve(J, dNref)
                dv = np.linalg.det(J)
                B = bmatrix(dN)
                Ke += B.T @ D @ B * dv
                for c in range(3):
                    Me[c::3, c::3] += rho * np.outer(N, N) * dv
        dofs = np.array([[3 * p, 3 * p + 1, 3 * p + 2] for p in ids]).reshape(-1)
        rows.append(np.repeat(dofs, 3 * n))
        cols.append(np.tile(dofs, 3 * n))
        kv.append(Ke.reshape(-1))
        mv.append(Me.reshape(-1))
    nd = 3 * len(xyz)
    r, c = np.concatenate(rows), np.concatenate(cols)
    K = sp.csr_matrix((np.concatenate(kv), (r, c)), shape=(nd, nd))
    M = sp.csr_matrix((np.concatenate(mv), (r, c)), shape=(nd, nd))
    return K, M


def faces(elems, xyz, z):
    """Boundary faces on the plane z, outward counter-clockwise, four ids each."""
    out = []
    for ids in elems:
        if len(ids) == 4:
            cand = [[ids[a] for a in f] for f in ((0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3))]
        else:
            cand = [[ids[a] for a in (4, 5, 6, 7)], [ids[a] for a in (0, 3, 2, 1)]]
        for f in cand:
            if not np.allclose(xyz[f, 2], z):
                continue
            ctr = xyz[ids].mean(axis=0)
            nrm = np.cross(xyz[f[1]] - xyz[f[0]], xyz[f[2]] - xyz[f[0]])
            if np.dot(nrm, xyz[f[0]] - ctr) < 0:
                f = f[::-1]
            out.append(list(f) + ([-1] if len(f) == 3 else []))
    return out


def face_loads(facets, xyz, p, nd):
    """Consistent nodal forces of a pressure p pushing along -z on plane facets."""
    f = np.zeros(nd)
    for fc in facets:
        ids = [i for i in fc if i >= 0]
        P = xyz[ids]
        if len(ids) == 3:
            area = 0.5 * np.linalg.norm(np.cross(P[1] - P[0], P[2] - P[0]))
        else:
            area = 0.5 * np.linalg.norm(np.cross(P[2] - P[0], P[3] - P[1]))
        for i in ids:
            f[3 * i + 2] -= p * area / len(ids)  # exact for triangles and rectangles
    return f
