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
import math
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
