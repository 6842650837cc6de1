#!/usr/bin/python3
"""fcd's Moreau-Jean integrator and Siconos' (Debian python3-siconos, MoreauJeanOSI with
FrictionContact(2)) side by side on one shared small system, same run, same machine.

The system: two point masses in the plane (dofs x1, y1, x2, y2), a spring chain
wall - k1 - m1 - k2 - m2 along x, vertical springs, gravity, both masses above a rigid
floor with Coulomb friction mu and Newton restitution e; they fall, bounce, slide and
come to rest. theta = 1/2.

Both trajectories are recorded step by step and compared; then each side runs the same
number of steps in one call (fcd_integrator_advance; Siconos TimeStepping.run) and the
time per step is reported as `ratio dynamics_vs_siconos X` (fcd over Siconos, < 1: fcd
faster), best of several repetitions.

usage: dynamics_vs_siconos.py LIBFCD.so [--steps N]"""
import ctypes as C
import sys
import time

import numpy as np
import siconos.kernel as sk

G = 9.81
M = np.diag([1.0, 1.0, 2.0, 2.0])
K = np.array([[200.0, 0, -100, 0], [0, 50, 0, -10], [-100, 0, 100, 0], [0, -10, 0, 50]])
F = np.array([3.0, -G, 0.0, -2 * G])
GAPS = [0.05, 0.02]
MU, E, H, THETA = 0.3, 0.4, 1e-3, 0.5
Q0 = np.array([0.1, 0.0, -0.05, 0.0])
V0 = np.array([0.5, -1.0, -0.3, -2.0])


def siconos_sim(steps):
    ds = sk.LagrangianLinearTIDS(Q0.copy(), V0.copy(), M.copy(), K.copy(), np.zeros((4, 4)))
    ds.setFExtPtr(F.copy())
    nsds = sk.NonSmoothDynamicalSystem(0.0, steps * H)
    nsds.insertDynamicalSystem(ds)
    for mass, gap in enumerate(GAPS):
        # y = H q + b: normal gap (>= 0 open), then the tangential displacement
        Hm = np.zeros((2, 4))
        Hm[0, 2 * mass + 1] = 1.0
        Hm[1, 2 * mass] = 1.0
        rel = sk.LagrangianLinearTIR(Hm, np.array([gap, 0.0]))
        inter = sk.Interaction(sk.NewtonImpactFrictionNSL(E, 0.0, MU, 2), rel)
        nsds.link(inter, ds)
    td = sk.TimeDiscretisation(0.0, H)
    osi = sk.MoreauJeanOSI(THETA)
    lcp = sk.FrictionContact(2)
    lcp.numericsSolverOptions().dparam[0] = 1e-12
    lcp.numericsSolverOptions().iparam[0] = 100000
    sim = sk.TimeStepping(nsds, td, osi, lcp)
    return sim, ds


def siconos_traj(steps):
    sim, ds = siconos_sim(steps)
    out = []
    k = 0
    while sim.hasNextEvent() and k < steps:
        sim.computeOneStep()
        out.append(np.array(ds.q()))
        sim.nextStep()
        k += 1
    return np.array(out)


class Fcd:
    def __init__(self, path):
        lib = C.CDLL(path)
        self.lib = lib
        P = C.c_void_p
        idx = C.c_int64
        lib.fcd_system_create.argtypes = [idx, C.POINTER(P)]
        lib.fcd_system_set_matrix_coo.argtypes = [P, C.c_int, idx, C.POINTER(idx),
                                                  C.POINTER(idx), C.POINTER(C.c_double),
                                                  C.c_uint]
        lib.fcd_system_set_load.argtypes = [P, C.POINTER(C.c_double)]
        lib.fcd_system_last_error.argtypes = [P]
        lib.fcd_system_last_error.restype = C.c_char_p
        lib.fcd_contact_set_create.argtypes = [P, C.c_int, C.POINTER(P)]
        lib.fcd_contact_set_add_rigid.argtypes = [P, C.POINTER(idx), C.POINTER(C.c_double),
                                                  C.POINTER(C.c_double), C.c_double,
                                                  C.c_double, C.POINTER(idx)]
        lib.fcd_contact_set_set_restitution.argtypes = [P, C.c_double]
        lib.fcd_integrator_create.argtypes = [P, P, C.c_int, C.POINTER(P)]
        lib.fcd_integrator_set_param.argtypes = [P, C.c_int, C.c_double]
        lib.fcd_integrator_set_state.argtypes = [P, C.c_double, C.POINTER(C.c_double),
                                                 C.POINTER(C.c_double)]
        lib.fcd_integrator_step.argtypes = [P]
        lib.fcd_integrator_advance.argtypes = [P, C.c_double]
        lib.fcd_integrator_get_state.argtypes = [P, C.POINTER(C.c_double),
                                                 C.POINTER(C.c_double),
                                                 C.POINTER(C.c_double)]
        for f in ("fcd_integrator_destroy", "fcd_contact_set_destroy", "fcd_system_destroy"):
            getattr(lib, f).argtypes = [P]
            getattr(lib, f).restype = None

    def check(self, st, what):
        if st != 0:
            msg = self.lib.fcd_system_last_error(self.sys).decode()
            raise RuntimeError(f"fcd: {what}: status {st}: {msg}")

    def build(self):
        lib = self.lib
        dv = lambda a: (C.c_double * len(a))(*a)
        iv = lambda a: (C.c_int64 * len(a))(*a)
        self.sys = C.c_void_p()
        lib.fcd_system_create(4, C.byref(self.sys))
        r, c, kv = [], [], []
        for i in range(4):
            for j in range(i, 4):
                if K[i, j] != 0:
                    r.append(i), c.append(j), kv.append(K[i, j])
        self.check(lib.fcd_system_set_matrix_coo(self.sys, 1, len(r), iv(r), iv(c), dv(kv), 1),
                   "stiffness")
        d = list(range(4))
        self.check(lib.fcd_system_set_matrix_coo(self.sys, 0, 4, iv(d), iv(d),
                                                 dv(list(np.diag(M))), 1), "mass")
        self.check(lib.fcd_system_set_load(self.sys, dv(list(F))), "load")
        self.cs = C.c_void_p()
        self.check(lib.fcd_contact_set_create(self.sys, 2, C.byref(self.cs)), "contact set")
        for mass, gap in enumerate(GAPS):
            self.check(lib.fcd_contact_set_add_rigid(self.cs, iv([2 * mass, 2 * mass + 1]),
                                                     dv([0, -1]), dv([1, 0]), gap, MU, None),
                       "contact")
        self.check(lib.fcd_contact_set_set_restitution(self.cs, E), "restitution")
        self.it = C.c_void_p()
        self.check(lib.fcd_integrator_create(self.sys, self.cs, 0, C.byref(self.it)),
                   "integrator")
        self.check(lib.fcd_integrator_set_param(self.it, 100, H), "step")
        self.check(lib.fcd_integrator_set_param(self.it, 101, THETA), "theta")
        self.check(lib.fcd_integrator_set_param(self.it, 102, 1e-12), "tolerance")
        self.check(lib.fcd_integrator_set_state(self.it, 0.0, dv(list(Q0)), dv(list(V0))),
                   "state")

    def traj(self, steps):
        self.build()
        u = (C.c_double * 4)()
        out = []
        for _ in range(steps):
            self.check(self.lib.fcd_integrator_step(self.it), "step")
            self.lib.fcd_integrator_get_state(self.it, None, u, None)
            out.append(np.array(u[:]))
        self.destroy()
        return np.array(out)

    def destroy(self):
        self.lib.fcd_integrator_destroy(self.it)
        self.lib.fcd_contact_set_destroy(self.cs)
        self.lib.fcd_system_destroy(self.sys)


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    steps = 3000
    if "--steps" in sys.argv:
        steps = int(sys.argv[sys.argv.index("--steps") + 1])
    global H
    fcd = Fcd(sys.argv[1])
    h0, T = H, steps * H
    worst = {}
    for H in (h0, h0 / 10):
        n = int(round(T / H))
        a, b = fcd.traj(n), siconos_traj(n)
        diff = np.abs(a - b).max(axis=1)
        # both schemes are the same until an activation decision differs (Siconos and
        # fcd predict the gap differently), then differ by O(h)
        first = int(np.argmax(diff > 1e-12)) if (diff > 1e-12).any() else n
        worst[H] = diff.max()
        print(f"h = {H:g}: {n} steps, identical to {diff[:first].max(initial=0):.1e} for "
              f"the first {first} steps, then max |q_fcd - q_siconos| = {diff.max():.3e} "
              f"(|q| up to {np.abs(b).max():.3f}); final {a[-1]} vs {b[-1]}")
    H = h0
    print(f"the difference shrinks by {worst[h0] / worst[h0 / 10]:.1f} when h is divided "
          f"by 10 (first order: both converge to the same motion)")
    # timing: the same steps in one call each, best of 5
    tf, ts = [], []
    for _ in range(5):
        fcd.build()
        t0 = time.perf_counter()
        fcd.check(fcd.lib.fcd_integrator_advance(fcd.it, steps * H), "advance")
        tf.append(time.perf_counter() - t0)
        fcd.destroy()
        sim, _ = siconos_sim(steps)
        t0 = time.perf_counter()
        sim.run()
        ts.append(time.perf_counter() - t0)
    print(f"time per step: fcd {min(tf) / steps * 1e6:.2f} us, siconos "
          f"{min(ts) / steps * 1e6:.2f} us")
    print(f"agreement dynamics_vs_siconos {worst[h0]:.3e} {worst[h0 / 10]:.3e}")
    print(f"ratio dynamics_vs_siconos {min(tf) / min(ts):.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
