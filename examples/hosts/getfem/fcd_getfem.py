"""GetFEM as fcd's host and as its peer (issue 26).

GetFEM meshes nothing itself here: gmsh (its Python API) meshes a crowned pad, a
rectangle in 2D or a box in 3D whose bottom is an arc or a spherical cap of radius R
resting on the rigid plane {vertical coordinate = 0} at one point. GetFEM reads the mesh,
builds P1 Lagrange elements and assembles the linear elastic stiffness (plane strain in
2D). The pad's top is pressed down by d and then sheared sideways by s, both prescribed.

fcd receives GetFEM's stiffness matrix as it is (a scipy CSR view of GetFEM's CSC
arrays, no re-assembly) and one rigid contact per node of the crowned face: normal -e_z
(fcd's normals point from the body into the obstacle), tangent e_x, gap = the node's
height above the plane. GetFEM solves the same discrete problem with its own contact
bricks: add_nodal_contact_with_rigid_obstacle_brick (Alart-Curnier, obstacle given by
its signed distance) for one step, and add_basic_contact_brick with its wt history for
the press-then-shear path. Both are the same nodal Signorini-Coulomb problem on the same
matrix, so the answers must agree to solver round-off: node by node statuses, nodal
contact forces.

Both codes' contact forces are compared in the global frame, F = K u at the contact
nodes (the only external forces there), so neither side's tangent basis matters.
"""
import time

import numpy as np
import scipy.sparse as sp

import fcd

CONTACT, TOP, BODY = 1, 2, 3


def mesh_pad(path, dim, h, width=20.0, height=10.0, radius=100.0):
    """Writes a gmsh 2.2 mesh of the crowned pad to ``path``: element size ``h``, physical
    groups CONTACT (the crowned face), TOP and BODY. The crown touches the plane at the
    origin; lengths in millimetres (forces in N, moduli in MPa)."""
    import gmsh
    gmsh.initialize(["gmsh", "-v", "0"])  # no banner, no terminal output
    try:
        gmsh.model.add("pad")
        occ = gmsh.model.occ
        if dim == 2:
            box = occ.addRectangle(-width / 2, 0, 0, width, height)
            ball = occ.addDisk(0, radius, 0, radius, radius)
        else:
            box = occ.addBox(-width / 2, -width / 2, 0, width, width, height)
            ball = occ.addSphere(0, 0, radius, radius)
        occ.intersect([(dim, box)], [(dim, ball)])
        occ.synchronize()
        # OpenCASCADE's bounding boxes are padded, and may split the crown at the
        # circle's seam: the crowned faces are those that reach the plane, the top
        # the one whose lowest point is highest
        faces = sorted((gmsh.model.getBoundingBox(dim - 1, tag)[dim - 1], tag)
                       for (_, tag) in gmsh.model.getEntities(dim - 1))
        contact = [tag for (z, tag) in faces if z < 0.01 * height]
        top = [faces[-1][1]]
        if not contact or faces[-1][0] < 0.99 * height:
            raise RuntimeError("pad geometry: unexpected faces %r" % (faces,))
        gmsh.model.addPhysicalGroup(dim - 1, contact, CONTACT)
        gmsh.model.addPhysicalGroup(dim - 1, top, TOP)
        gmsh.model.addPhysicalGroup(dim, [e[1] for e in gmsh.model.getEntities(dim)], BODY)
        gmsh.option.setNumber("Mesh.MeshSizeMax", h)
        gmsh.option.setNumber("Mesh.MeshSizeMin", h)
        gmsh.option.setNumber("Mesh.MshFileVersion", 2.2)
        gmsh.model.mesh.generate(dim)
        gmsh.write(str(path))
    finally:
        gmsh.finalize()


class Pad:
    """The pad as GetFEM sees it: mesh, P1 elements, stiffness, the contact nodes."""

    def __init__(self, msh, E=3.0e3, nu=0.38):
        import getfem as gf
        self.gf = gf
        self.mesh = gf.Mesh("import", "gmsh", str(msh))
        self.dim = dim = self.mesh.dim()
        self.mf = gf.MeshFem(self.mesh, dim)
        self.mf.set_classical_fem(1)
        self.mim = gf.MeshIm(self.mesh, 2)  # exact for the P1 stiffness
        self.E, self.nu = E, nu
        self.lam = E * nu / ((1 + nu) * (1 - 2 * nu))
        self.G = E / (2 * (1 + nu))
        self.n = self.mf.nbdof()
        md = self._elastic_model()
        md.assembly("build_matrix")
        Kg = md.tangent_matrix()
        jc, ir = Kg.csc_ind()
        # GetFEM's CSC arrays read as the CSR of the transpose: K is symmetric up to
        # assembly round-off, which fcd symmetrises (it reports the asymmetry it saw)
        self.K = sp.csr_matrix((Kg.csc_val(), ir, jc), shape=(self.n, self.n))
        # GetFEM orders its nodal contact multipliers by increasing dof on the region;
        # P1 vector dofs come in node-contiguous groups of dim
        self.cdofs = np.asarray(self.mf.basic_dof_on_region(CONTACT), dtype=np.int64)
        self.cdofs = self.cdofs.reshape(-1, dim)
        self.tdofs = np.asarray(self.mf.basic_dof_on_region(TOP), dtype=np.int64)
        xyz = self.mf.basic_dof_nodes()
        self.cxyz = xyz[:, self.cdofs[:, 0]].T
        self.gaps = self.cxyz[:, dim - 1].copy()
        self.nc = len(self.cdofs)
        self.length = float(np.ptp(xyz[0]))  # the pad's width
        self.normal = -np.eye(dim)[dim - 1]
        self.tangent = np.eye(dim)[0]

    def _elastic_model(self):
        md = self.gf.Model("real")
        md.add_fem_variable("u", self.mf)
        md.add_initialized_data("lambda", [self.lam])
        md.add_initialized_data("mu", [self.G])
        md.add_isotropic_linearized_elasticity_brick(self.mim, "u", "lambda", "mu")
        return md

    def top_shift(self, d, s):
        """The top's displacement vector: down by d, along +x by s."""
        per = np.zeros(self.dim)
        per[0], per[self.dim - 1] = s, -d
        return per

    def top_values(self, d, s):
        """The top's prescribed displacements, dof by dof."""
        return np.tile(self.top_shift(d, s), len(self.tdofs) // self.dim)

    def contact_forces(self, u):
        """Nodal forces the obstacle exerts on the pad, (nc, dim), from F = K u."""
        return (self.K @ u)[self.cdofs]

    def statuses(self, F, mu, zero):
        """open / stick / slip read off contact forces F (nc, dim): open where the
        normal force is below ``zero``, slip on the cone's boundary (to 1e-7). Also
        returns each node's margin, above 1 when its status is unambiguous: an open
        node's force is below zero / 100, a closed one's above zero, a sticking one
        strictly inside the cone (by more than 1e-7)."""
        fn = -F @ self.normal  # compression positive
        ft = np.linalg.norm(F - np.outer(F @ self.normal, self.normal), axis=1)
        out, margin = [], []
        for a, b in zip(fn, ft):
            if a <= zero:
                out.append("open")
                margin.append(0.01 * zero / max(abs(a), 1e-300))
            elif mu == 0:
                out.append("slip")  # a closed frictionless contact slips (fcd's reading)
                margin.append(a / zero)
            elif b >= mu * a * (1 - 1e-7):
                out.append("slip")
                margin.append(a / zero)
            else:
                out.append("stick")
                margin.append(min(a / zero, (mu * a - b) / (mu * a * 1e-7)))
        return out, np.asarray(margin)


class FcdSolver:
    """fcd on GetFEM's matrix: one system, one contact set, one equilibrium object kept
    across the steps of a path (the factorization of K is reused)."""

    def __init__(self, pad, mu):
        self.pad = pad
        self.system = fcd.System(pad.n)
        self.system.set_matrix("stiffness", pad.K)
        self.system.set_load(np.zeros(pad.n))
        self.system.fix_dofs(pad.tdofs, pad.top_values(0.0, 0.0))
        self.contacts = fcd.ContactSet(self.system, pad.dim)
        nc = pad.nc
        self.contacts.add_rigid_many(pad.cdofs, np.tile(pad.normal, (nc, 1)),
                                     np.tile(pad.tangent, (nc, 1)), mu, gaps=pad.gaps)
        self.eq = fcd.Equilibrium(self.system, self.contacts)
        self.mu = mu

    def solve(self, d, s, u_ref=None):
        """Static equilibrium with the top at (s, -d); friction measured from u_ref
        (None: no tangential history). Returns u, local reactions, statuses, seconds."""
        self.system.fix_dofs(self.pad.tdofs, self.pad.top_values(d, s))
        self.eq.set_reference(u_ref)
        t = time.perf_counter()
        u, r = self.eq.solve("static")
        return u, r, self.eq.contact_status, time.perf_counter() - t


class GetfemNodal:
    """GetFEM's own contact: the nodal contact brick against the rigid obstacle whose
    signed distance is the vertical coordinate (one step, no tangential history)."""

    def __init__(self, pad, mu, tol=1e-9):
        self.pad = pad
        md = self.md = pad._elastic_model()
        md.add_initialized_data("DD", np.zeros(pad.dim))
        md.add_Dirichlet_condition_with_simplification("u", TOP, "DD")
        md.add_variable("lambda_n", pad.nc)
        # Alart-Curnier augmentation: of the order of E (GetFEM's user documentation)
        md.add_initialized_data("r", [pad.E])
        obstacle = "xyz"[pad.dim - 1]
        if mu > 0:
            md.add_variable("lambda_t", pad.nc * (pad.dim - 1))
            md.add_initialized_data("friction_coeff", [mu])
            md.add_nodal_contact_with_rigid_obstacle_brick(
                pad.mim, "u", "lambda_n", "lambda_t", "r", "friction_coeff", CONTACT,
                obstacle, 1)
        else:
            md.add_nodal_contact_with_rigid_obstacle_brick(
                pad.mim, "u", "lambda_n", "r", CONTACT, obstacle, 1)
        self.tol = tol

    def solve(self, d, s):
        self.md.set_variable("DD", self.pad.top_shift(d, s))
        return _newton(self.md, self.tol)


class GetfemBasic:
    """GetFEM's basic contact brick with BN and BT written for the same nodes and frame,
    and its tangential history wt = BT u_prev: the press-then-shear path, step by step."""

    def __init__(self, pad, mu, tol=1e-9):
        gf = pad.gf
        self.pad = pad
        dim, nc, n = pad.dim, pad.nc, pad.n
        md = self.md = pad._elastic_model()
        md.add_initialized_data("DD", np.zeros(dim))
        md.add_Dirichlet_condition_with_simplification("u", TOP, "DD")
        # BN u <= gap: the node may rise, not sink below the plane
        BN = gf.Spmat("empty", nc, n)
        BT = gf.Spmat("empty", nc * (dim - 1), n)
        for k in range(nc):
            BN[k, int(pad.cdofs[k, dim - 1])] = -1.0
            for j in range(dim - 1):
                BT[k * (dim - 1) + j, int(pad.cdofs[k, j])] = 1.0
        md.add_variable("lambda_n", nc)
        md.add_variable("lambda_t", nc * (dim - 1))
        md.add_initialized_data("r", [pad.E])
        md.add_initialized_data("friction_coeff", [mu])
        md.add_initialized_data("gap", pad.gaps)
        md.add_initialized_data("alpha", np.ones(nc))
        md.add_initialized_data("gamma", [-1.0])
        md.add_initialized_data("wt", np.zeros(n))
        md.add_basic_contact_brick("u", "lambda_n", "lambda_t", "r", BN, BT,
                                   "friction_coeff", "gap", "alpha", 1, "gamma", "wt")
        self.tol = tol

    def solve(self, d, s, u_prev, lsolver="auto"):
        self.md.set_variable("DD", self.pad.top_shift(d, s))
        self.md.set_variable("wt", u_prev)
        return _newton(self.md, self.tol, lsolver)


def _newton(md, tol, lsolver="auto"):
    """GetFEM's Newton on the model, with its own choice of linear solver or the one
    named. Its residual is the 1-norm of the model's right-hand side over its estimate
    of the external load (Dirichlet data included), so ``tol`` is relative. Returns u,
    seconds, iterations."""
    opts = () if lsolver == "auto" else ("lsolver", lsolver)
    t = time.perf_counter()
    nbit, converged = md.solve("max_res", tol, "max_iter", 100, *opts)
    dt = time.perf_counter() - t
    if not converged:
        raise RuntimeError("GetFEM's Newton (%s) did not reach %g in %d iterations"
                           % (lsolver, tol, nbit))
    return np.array(md.variable("u")), dt, nbit


def law_residuals(pad, u, u_prev, mu):
    """The discrete Signorini-Coulomb law of one step checked from u alone, as neither
    solver states it: forces F = K u at the contact nodes, zero at the other free nodes;
    no penetration, no tension, complementarity, the cone, and slip against the force.
    Each figure relative (forces to the largest contact force, lengths to the largest
    displacement); returns a dict."""
    F = pad.contact_forces(u)
    n = pad.normal
    fscale = max(float(np.abs(F).max()), 1e-300)
    uscale = max(float(np.abs(u).max()), 1e-300)
    fn = F @ n  # <= 0: compression
    FT = F - np.outer(fn, n)
    du = (u - u_prev)[pad.cdofs]
    duT = du - np.outer(du @ n, n)
    gap = pad.gaps - u[pad.cdofs] @ n  # >= 0
    slip = np.linalg.norm(duT, axis=1)
    moving = slip > 1e-9 * uscale
    free = np.ones(pad.n, bool)
    free[pad.tdofs] = False
    free[pad.cdofs.ravel()] = False
    return {
        "equilibrium": float(np.abs((pad.K @ u)[free]).max()) / fscale,
        "penetration": max(0.0, float(-gap.min())) / uscale,
        "tension": max(0.0, float(fn.max())) / fscale,
        "complementarity": float(np.abs(gap * fn).max()) / (fscale * uscale),
        "cone": max(0.0, float((np.linalg.norm(FT, axis=1) + mu * fn).max())) / fscale,
        "slip_direction": float(np.abs(FT[moving] - (mu * fn[moving] / slip[moving])[:, None]
                                       * duT[moving]).max()) / fscale if moving.any() else 0.0,
    }


def compare(pad, mu, u, status, u_prev, ug, ug_prev):
    """fcd's answer (u, its statuses) against GetFEM's (ug), each step from its own
    previous one: the largest difference of contact forces over the largest force,
    GetFEM's statuses read off its forces with their margins (Pad.statuses), and both
    answers' largest discrete-law residual. Returns a dict."""
    F, Fg = pad.contact_forces(u), pad.contact_forces(ug)
    scale = float(np.abs(Fg).max())
    status_gf, margin = pad.statuses(Fg, mu, 1e-6 * scale)
    return {
        "force_difference": float(np.abs(F - Fg).max()) / scale,
        "same_status": status == status_gf,
        "status_gf": status_gf,
        "margin": float(margin.min()),
        "law_fcd": law_residuals(pad, u, u_prev, mu),
        "law_gf": law_residuals(pad, ug, ug_prev, mu),
    }


# Two elastic bodies meshed independently (non-matching meshes): the surface pairs of
# fcd (dual mortar, node-to-segment) against GetFEM's contact bricks between
# non-matching meshes on the same mesh and the same stiffness matrix.

SLAVE, MASTER, BASE, PUSH, LOWER, UPPER = 11, 12, 13, 14, 21, 22


def mesh_pair(path, kind, h_upper, h_lower, g0, radius=1.0, a=0.1):
    """Writes a gmsh 2.2 mesh of two plane bodies separated by the gap g0, meshed apart
    (their interface nodes do not match). ``kind`` 'patch': two unit squares, [-1, 1] x
    [-1, 0] below and [-1, 1] x [g0, 1 + g0] above, element sizes h_lower and h_upper.
    'hertz': the flat [-4R, 4R] x [-4R, 0] below and, above, the part of the cylinder of
    radius R centred at (0, R + g0) with |x| <= 0.8 R and y <= 1.5 R + g0; sizes h_lower
    and h_upper within 3a of the contact, graded to R / 2 away. Physical groups: SLAVE
    (the upper body's lower face), MASTER (the lower body's top), BASE (its bottom), PUSH
    (the upper body's top), LOWER and UPPER (the bodies)."""
    import gmsh
    gmsh.initialize(["gmsh", "-v", "0"])
    try:
        gmsh.model.add("pair")
        occ = gmsh.model.occ
        R = radius
        if kind == "patch":
            lo = occ.addRectangle(-1, -1, 0, 2, 1)
            up = occ.addRectangle(-1, g0, 0, 2, 1)
            depth = 1.0
        elif kind == "hertz":
            lo = occ.addRectangle(-4 * R, -4 * R, 0, 8 * R, 4 * R)
            box = occ.addRectangle(-0.8 * R, g0, 0, 1.6 * R, 1.5 * R)
            disk = occ.addDisk(0, R + g0, 0, R, R)
            up = occ.intersect([(2, box)], [(2, disk)])[0][0][1]
            depth = 4 * R
        else:
            raise ValueError("kind: 'patch' or 'hertz', not %r" % (kind,))
        occ.synchronize()

        def edges(surface):
            return [(t, gmsh.model.getBoundingBox(1, t)) for (_, t) in
                    gmsh.model.getBoundary([(2, surface)], oriented=False)]
        tol = 1e-6
        lower, upper = edges(lo), edges(up)
        top = max(b[4] for (_, b) in upper)
        groups = {
            MASTER: [t for (t, b) in lower if abs(b[1]) < tol and abs(b[4]) < tol],
            BASE: [t for (t, b) in lower if b[4] < -depth + tol],
            # the lower face: it reaches down to the gap and is not a vertical side
            SLAVE: [t for (t, b) in upper if b[1] < g0 + tol and b[3] - b[0] > tol],
            PUSH: [t for (t, b) in upper if b[1] > top - tol],
        }
        # OpenCASCADE may split the arc at the circle's seam: the slave face may be two
        # edges, every other group one
        for tag, ents in groups.items():
            if not ents or (len(ents) > 1 and tag != SLAVE):
                raise RuntimeError("pair geometry: group %d has edges %r" % (tag, ents))
            gmsh.model.addPhysicalGroup(1, ents, tag)
        gmsh.model.addPhysicalGroup(2, [lo], LOWER)
        gmsh.model.addPhysicalGroup(2, [up], UPPER)
        if kind == "patch":
            for surface, h in ((lo, h_lower), (up, h_upper)):
                gmsh.model.mesh.setSize(gmsh.model.getBoundary([(2, surface)],
                                                               recursive=True), h)
        else:
            f = gmsh.model.mesh.field
            boxes = []
            for h, ymin, ymax, thick in ((h_lower, -3 * a, g0 / 2, 3 * R),
                                         (h_upper, g0 / 2, 3 * a, 1.5 * R)):
                b = f.add("Box")
                for k, v in (("VIn", h), ("VOut", 0.5 * R), ("XMin", -3 * a),
                             ("XMax", 3 * a), ("YMin", ymin), ("YMax", ymax),
                             ("Thickness", thick)):
                    f.setNumber(b, k, v)
                boxes.append(b)
            m = f.add("Min")
            f.setNumbers(m, "FieldsList", boxes)
            f.setAsBackgroundMesh(m)
            gmsh.option.setNumber("Mesh.MeshSizeFromPoints", 0)
            gmsh.option.setNumber("Mesh.MeshSizeExtendFromBoundary", 0)
        gmsh.option.setNumber("Mesh.MshFileVersion", 2.2)
        gmsh.model.mesh.generate(2)
        gmsh.write(str(path))
    finally:
        gmsh.finalize()


class Pair:
    """The two bodies as GetFEM sees them (plane strain, P1, one displacement field over
    both), GetFEM's stiffness K, and what both solvers share: the prescribed dofs and
    their values, fcd's mesh (node p = GetFEM's dofs 2p, 2p + 1) and the slave and master
    segments as pairs of those nodes. Prescribed: 'patch', the base's y and its corner
    (-1, -1) in x, the top's y at -d and its corner in x (a laterally free column, so the
    exact field is linear); 'hertz', the base and the top clamped, the top lowered by d."""

    def __init__(self, msh, kind, E_lower, E_upper, nu, d, order=4):
        import getfem as gf
        from scipy.spatial import cKDTree
        self.gf, self.kind = gf, kind
        self.mesh = gf.Mesh("import", "gmsh", str(msh))
        self.mf = gf.MeshFem(self.mesh, 2)
        self.mf.set_classical_fem(1)
        self.mim = gf.MeshIm(self.mesh, order)
        self.E, self.nu, self.d = (E_lower, E_upper), nu, d
        md = self.elastic_model()
        md.assembly("build_matrix")
        Kg = md.tangent_matrix()
        jc, ir = Kg.csc_ind()
        self.n = n = self.mf.nbdof()
        self.K = sp.csr_matrix((Kg.csc_val(), ir, jc), shape=(n, n))
        self.nodes = self.mf.basic_dof_nodes()[:, 0::2].T.copy()
        self._tree = cKDTree(self.nodes)
        self.slave, self.master = self._segments(SLAVE), self._segments(MASTER)
        base = np.asarray(self.mf.basic_dof_on_region(BASE), dtype=np.int64)
        push = np.asarray(self.mf.basic_dof_on_region(PUSH), dtype=np.int64)
        self.push_y = push[1::2]
        if kind == "patch":
            ytop = float(self.nodes[push[0] // 2, 1])
            fixed = {int(k): 0.0 for k in base[1::2]}
            fixed[2 * self.node_at(-1.0, -1.0)] = 0.0
            fixed.update({int(k): -d for k in push[1::2]})
            fixed[2 * self.node_at(-1.0, ytop)] = 0.0
        else:
            fixed = {int(k): 0.0 for k in base}
            fixed.update({int(k): 0.0 for k in push[0::2]})
            fixed.update({int(k): -d for k in push[1::2]})
        self.fixed = np.array(sorted(fixed), dtype=np.int64)
        self.values = np.array([fixed[k] for k in self.fixed])

    def node_at(self, x, y):
        dist, k = self._tree.query([x, y])
        if dist > 1e-9:
            raise RuntimeError("no mesh node at (%g, %g)" % (x, y))
        return int(k)

    def _segments(self, region):
        """The region's faces as pairs of fcd nodes (GetFEM's points, found by position:
        the bodies are apart, so no two nodes share one)."""
        pts = self.mesh.pts()
        out = []
        for cv, f in self.mesh.region(region).T:
            pids = self.mesh.pid_in_faces(np.array([[cv], [f]]))
            dist, idx = self._tree.query(pts[:, pids].T)
            assert dist.max() < 1e-12
            out.append(idx)
        return np.array(out, dtype=np.int64)

    def elastic_model(self):
        gf, nu = self.gf, self.nu
        md = gf.Model("real")
        md.add_fem_variable("u", self.mf)
        for k, (region, E) in enumerate(zip((LOWER, UPPER), self.E)):
            md.add_initialized_data("lam%d" % k, [E * nu / ((1 + nu) * (1 - 2 * nu))])
            md.add_initialized_data("G%d" % k, [E / (2 * (1 + nu))])
            md.add_isotropic_linearized_elasticity_brick(self.mim, "u", "lam%d" % k,
                                                         "G%d" % k, region)
        return md

    def force(self, u):
        """The load that holds the top at -d: minus the sum of K u over the top's y dofs."""
        return -float((self.K @ u)[self.push_y].sum())

    def contact_dofs(self):
        """Every dof of the slave and master nodes."""
        nodes = np.unique(np.concatenate([self.slave.ravel(), self.master.ravel()]))
        return np.sort(np.concatenate([2 * nodes, 2 * nodes + 1]))


def fcd_pair(pair, method):
    """fcd on GetFEM's matrix with the library's surface pair (``method`` 'dual-mortar'
    or 'node-to-segment'): static equilibrium. Returns u, the normal multipliers (one per
    slave node), seconds from the system's creation to the answer."""
    t = time.perf_counter()
    system = fcd.System(pair.n)
    system.set_matrix("stiffness", pair.K)
    system.set_load(np.zeros(pair.n))
    system.fix_dofs(pair.fixed, pair.values)
    contacts = fcd.ContactSet(system, 2)
    mesh = fcd.Mesh(system, pair.nodes)
    contacts.add_surface_pair(mesh, pair.slave, pair.master, method=method)
    u, r = fcd.Equilibrium(system, contacts).solve("static")
    dt = time.perf_counter() - t
    return u, np.asarray(r).reshape(-1, 2)[:, 0], dt


def getfem_pair(pair, brick, tol=1e-10):
    """GetFEM's own contact between the non-matching meshes on the same model: 'integral'
    (add_integral_contact_between_nonmatching_meshes_brick, a P1 multiplier field on the
    slave face, non-symmetric Alart-Curnier, Gauss points of the Pair's integration
    method) or 'nodal' (add_nodal_contact_between_nonmatching_meshes_brick, one
    multiplier per slave node). The prescribed dofs enter as explicit constraints
    (add_constraint_with_multipliers), the same as fcd's. Returns u, the multipliers,
    seconds from the model's creation to the answer, Newton iterations."""
    gf = pair.gf
    t = time.perf_counter()
    md = pair.elastic_model()
    B = gf.Spmat("empty", len(pair.fixed), pair.n)
    for i, k in enumerate(pair.fixed):
        B[i, int(k)] = 1.0
    md.add_variable("prescribed", len(pair.fixed))
    md.add_constraint_with_multipliers("u", "prescribed", B, pair.values)
    md.add_initialized_data("r", [max(pair.E)])  # of the order of E (GetFEM's advice)
    if brick == "integral":
        mfl = gf.MeshFem(pair.mesh, 1)
        mfl.set_classical_fem(1)
        md.add_filtered_fem_variable("lambda", mfl, SLAVE)
        md.add_integral_contact_between_nonmatching_meshes_brick(
            pair.mim, "u", "u", "lambda", "r", SLAVE, MASTER, 1)
    elif brick == "nodal":
        md.add_nodal_contact_between_nonmatching_meshes_brick(
            pair.mim, "u", "lambda", "r", SLAVE, MASTER)
    else:
        raise ValueError("brick: 'integral' or 'nodal', not %r" % (brick,))
    u, _, nbit = _newton(md, tol)
    return u, np.array(md.variable("lambda")), time.perf_counter() - t, nbit


def patch_solution(pair, g0):
    """The closed form of the 'patch' pair: each square in uniaxial plane-strain
    compression by the same p, (d - g0) = p (1 - nu^2) (1 / E_lower + 1 / E_upper)
    (unit heights); strains eps_yy = -p (1 - nu^2) / E, eps_xx = p nu (1 + nu) / E; the
    displacement linear in each square, zero at the held corners. Returns p and u."""
    nu, (El, Eu) = pair.nu, pair.E
    p = (pair.d - g0) / ((1 - nu ** 2) * (1 / El + 1 / Eu))
    x, y = pair.nodes[:, 0], pair.nodes[:, 1]
    upper = y > g0 / 2
    E = np.where(upper, Eu, El)
    u = np.empty(pair.n)
    u[0::2] = p * nu * (1 + nu) / E * (x + 1)
    u[1::2] = np.where(upper, -pair.d + p * (1 - nu ** 2) / Eu * (1 + g0 - y),
                       -p * (1 - nu ** 2) / El * (y + 1))
    return p, u
