"""fcd.Periodic (docs/periodic.md) on seed 000's pin on a flat, mu = 2.2: the orbit found by
shooting from a state of a long transient is checked independently with fcd.Integrator:
N steps of T / N from its start return to it (to 1e-9 of the orbit's size), and its
period is the transient's spacing of the u_N minima to 1e-6; the multipliers come back as
complex numbers with the trivial one first; refusals raise FcdError with the status."""
import os
import subprocess
import tempfile

import numpy as np
import pytest

import fcd
from test_fcd import pin


def transient_state(s, cs, h=1e-3):
    """A state at a u_N minimum in flight after the transient has settled, and the spacing
    of the last two such minima (interpolated zeros of v_N)."""
    eq = fcd.Equilibrium(s, cs)
    u, _ = eq.solve("steady-sliding")
    u = np.array(u)
    u[1] += 1e-6
    it = fcd.Integrator(s, cs, scheme="modified-theta", step=h)
    it.set_state(0.0, u, np.zeros(4))
    it.advance(780.0)
    times, states, vprev = [], [], None
    while len(times) < 3:
        it.step()
        t, u, v = it.state
        if vprev is not None and vprev < 0 <= v[3] and u[3] < -1e-3:
            times.append(t - h * v[3] / (v[3] - vprev))
            states.append((u.copy(), v.copy()))
        vprev = v[3]
    return states[-1], times[-1] - times[-2]


def test_orbit_returns_and_matches_the_transient():
    with tempfile.TemporaryDirectory() as tmp:
        s, cs = pin(tmp, mu=2.2)
        (u, v), period = transient_state(s, cs)
        p = fcd.Periodic(s, cs, step=1e-3)
        info = p.solve(u, v, period)
        assert info["converged"] == 1 and info["residual"] <= 1e-9
        T, u0, v0 = p.orbit
        assert T == pytest.approx(period, rel=1e-6)
        # independently: the integrator at T / N returns to the start
        it = fcd.Integrator(s, cs, scheme="modified-theta", step=T / info["steps"])
        it.set_state(0.0, u0, v0)
        for _ in range(info["steps"]):
            it.step()
        _, u1, v1 = it.state
        lo, hi = p.range
        free = [1, 2, 3]
        assert np.max(np.abs(u1 - u0)[free]) <= 1e-9 * info["amplitude_u"]
        assert np.max(np.abs(v1 - v0)[free]) <= 1e-9 * info["amplitude_v"]
        assert np.max((hi - lo)[free]) / 2 == pytest.approx(info["amplitude_u"], rel=1e-14)
        mu = p.multipliers
        assert mu.dtype == complex and len(mu) == 6
        assert abs(mu[0] - 1) == pytest.approx(info["trivial_error"], abs=1e-15)
        assert info["stable"] == 1 and np.all(np.abs(mu[1:]) < 1)


@pytest.mark.parametrize("modal", [False, True])
def test_orbit_of_a_reduced_model_with_a_load(modal):
    """Shooting accepts a reduced model of a system with a constant load (issue 84: the
    reduction turned the load into a load function and shooting refused every reduced
    model with a load). The pin's interior is one dof, so its reduction with that one
    mode is the full model in other coordinates: the orbit it finds has the full model's
    period to 1e-9 and, expanded, the same start."""
    with tempfile.TemporaryDirectory() as tmp:
        s, cs = pin(tmp, mu=2.2)
        (u, v), period = transient_state(s, cs)
        full = fcd.Periodic(s, cs, step=1e-3)
        info = full.solve(u, v, period)
        T, u0, v0 = full.orbit
        red = fcd.Reduction(s, cs, modes=1, modal=modal)
        p = fcd.Periodic(red.system, red.contacts, step=1e-3)
        rinfo = p.solve(red.restrict(u0), red.restrict(v0), T)
        assert rinfo["converged"] == 1 and rinfo["residual"] <= 1e-9
        Tr, ur, vr = p.orbit
        assert Tr == pytest.approx(T, rel=1e-9)
        assert rinfo["steps"] == info["steps"]
        free = [1, 2, 3]
        assert np.max(np.abs(red.expand(ur) - u0)[free]) <= 1e-7 * info["amplitude_u"]


def test_branch_folds_below_the_flutter_threshold():
    """fcd_periodic_continue through Python: the branch from mu = 2.2 downwards (h = 2e-3)
    passes the flutter threshold of steady sliding (1.7357) stable and folds back unstable
    near mu = 1.677 (tests/periodic/test_pin_branch.c has the C side)."""
    with tempfile.TemporaryDirectory() as tmp:
        s, cs = pin(tmp, mu=2.2)
        (u, v), period = transient_state(s, cs, h=2e-3)
        p = fcd.Periodic(s, cs, step=2e-3)
        p.solve(u, v, period)
        pts = p.follow(1.0, 0.1, max_points=6)
        assert len(pts) == 6
        mus = [q["mu"] for q in pts]
        fold = [k for k, q in enumerate(pts) if q["event"] == "fold"]
        assert len(fold) == 1 and 1.67 < mus[fold[0]] < 1.685
        assert all(q["stable"] == 1 for q in pts[:fold[0]]) and pts[fold[0]]["stable"] == 0
        assert min(mus[:fold[0]]) < 1.7357
        assert all(q["residual"] <= 1e-9 for q in pts)
        assert all(len(q["multipliers"]) == 6 for q in pts)
        lo, hi = pts[0]["range"]
        assert (hi[1] - lo[1]) / 2 == pytest.approx(0.3849, rel=1e-3)


def test_branch_stops_where_the_orbits_form_a_family():
    """Past the grazing near mu = 1.707 the pin's orbit keeps its contact closed and
    slipping one way: this model has no damping, so it moves linearly there and every
    amplitude is an orbit at the same mu. A second Floquet multiplier then sits at +1, the
    branch in mu is not defined, and a continuation towards 0 used to wander along the
    family with a dozen spurious folds. It now stops at the second such point with the
    event 'family', or at the first, reported again with it, when no point beyond that
    one converges (the bordered system is singular along the family, and whether one
    more step gets through depends on the processor's round-off). The family is checked independently with fcd.Integrator: the last
    orbit's deviation from steady sliding scaled by 0.8 (and by 0.5) returns to itself
    after one period, the same period, to 1e-9 of the orbit's size, where the isolated cycle
    at mu = 2.2 scaled by 0.8 misses itself by more than 1e-2."""
    with tempfile.TemporaryDirectory() as tmp:
        s, cs = pin(tmp, mu=2.2)
        (u, v), period = transient_state(s, cs, h=2e-3)
        p = fcd.Periodic(s, cs, step=2e-3)
        p.solve(u, v, period)
        T22, u22, v22 = p.orbit
        steps22 = p.info["steps"]
        pts = p.follow(0.0, 0.05, max_points=60)
        events = [q["event"] for q in pts]
        assert events[-1] == "family" and events.count("family") == 1
        assert events.count("fold") == 1  # the real fold near 1.677, nothing spurious
        mu_last = pts[-1]["mu"]
        assert 1.70 < mu_last < 1.71
        m = np.sort(np.abs(pts[-1]["multipliers"] - 1))
        assert m[1] < 1e-5  # the second multiplier at +1
        T, u0, v0 = p.orbit
        assert pts[-1]["steps"] == steps22

        def returns(mu, u0, v0, T, scale, steps=steps22):
            with tempfile.TemporaryDirectory() as tmp2:
                s2, cs2 = pin(tmp2, mu=mu)
                us, _ = fcd.Equilibrium(s2, cs2).solve("steady-sliding")
                us = np.array(us)
                ua, va = us + scale * (np.array(u0) - us), scale * np.array(v0)
                it = fcd.Integrator(s2, cs2, scheme="modified-theta", step=T / steps)
                it.set_state(0.0, ua, va)
                for _ in range(steps):
                    it.step()
                _, u1, v1 = it.state
                size = np.max(np.abs(ua - us)) + np.max(np.abs(va))
                return max(np.max(np.abs(u1 - ua)), np.max(np.abs(v1 - va))) / size

        assert returns(mu_last, u0, v0, T, 1.0) < 1e-9
        assert returns(mu_last, u0, v0, T, 0.8) < 1e-9
        assert returns(mu_last, u0, v0, T, 0.5) < 1e-9
        # the stick-slip-flight cycle at mu = 2.2 is isolated: its scaled copy is no orbit
        assert returns(2.2, u22, v22, T22, 1.0) < 1e-9
        assert returns(2.2, u22, v22, T22, 0.8) > 1e-2


def test_period_of_the_sliding_center_tends_to_the_flutter_frequency():
    """The birth of the pin's oscillations (issue 68): below the flutter threshold
    mu_c = 1.7357 the linearization of steady sliding has two pairs of imaginary
    eigenvalues (the undamped pin's mode coupling: no damping moves them off the axis), so
    small oscillations that keep the contact slipping one way are a center, a family of
    periodic orbits of every small amplitude. Shooting from a small oscillation (grown at
    mu = 1.80 to a tilt of 0.003) with the period guess 2 pi / omega of the stability
    analysis converges at mu = 1.70, 1.72, 1.735 onto an orbit of that family: its period
    is the modified theta scheme's period of the eigenvalue, pi h / atan(omega h / 2) (the
    trapezoidal rule's frequency on a linear oscillator, theta = 1/2, h the orbit's step
    T / N), to 2e-8, where the raw 2 pi / omega is 3.6e-7 away; the multipliers lie on the
    unit circle (neutral). The periods rise with mu towards 2 pi / omega_c = 6.138 of the
    coalescing pair at mu_c: the branch of small orbits is born there with the critical
    eigenvalue's period, at every amplitude at once (a vertical branch), not from zero
    amplitude as a smooth Hopf bifurcation's."""
    h = 2e-3
    with tempfile.TemporaryDirectory() as tmp:
        s, cs = pin(tmp, mu=1.80)
        u, _ = fcd.Equilibrium(s, cs).solve("steady-sliding")
        u0 = np.array(u)
        u = u0.copy()
        u[1] += 1e-4
        it = fcd.Integrator(s, cs, scheme="modified-theta", step=h)
        it.set_state(0.0, u, np.zeros(4))
        a1 = a2 = None
        start = None
        while start is None:
            it.step()
            t, uu, vv = it.state
            a = uu[1] - u0[1]
            if a1 is not None and a2 is not None and a1[0] > a2 and a1[0] >= a and a1[0] >= 3e-3:
                start = a1[1]
            a2 = a1[0] if a1 else None
            a1 = (a, (uu.copy(), vv.copy()))
            assert t < 500
        periods, eigen_periods = [], []
        for mu in (1.70, 1.72, 1.735, 1.7357):
            s2, cs2 = pin(tmp, mu=mu)
            eq = fcd.Equilibrium(s2, cs2)
            eq.solve("steady-sliding")
            status, slip = eq.contact_state
            st = fcd.Stability(s2, cs2)
            st.set_contact_state(status, slip)
            lam = st.solve()[0]
            omega = abs(lam.imag)
            eigen_periods.append(2 * np.pi / omega)
            if mu > 1.7356:  # the threshold itself: the pair has left the axis
                assert lam.real > 0
                continue
            assert lam.real == 0
            p = fcd.Periodic(s2, cs2, step=h)
            info = p.solve(start[0], start[1], 2 * np.pi / omega)
            assert info["converged"] == 1 and info["residual"] <= 1e-9
            T = info["period"]
            hn = T / info["steps"]
            T_scheme = np.pi * hn / np.arctan(omega * hn / 2)
            assert T == pytest.approx(T_scheme, rel=2e-8)
            assert abs(T / (2 * np.pi / omega) - 1) > 3e-7  # the scheme's own period, not the raw one
            mult = p.multipliers
            assert np.all(np.abs(np.abs(mult[:4]) - 1) < 1e-4)
            periods.append(T)
        assert periods[0] < periods[1] < periods[2] < eigen_periods[3]
        assert eigen_periods[3] == pytest.approx(6.138, abs=1e-3)
        assert periods[2] == pytest.approx(eigen_periods[3], rel=4e-3)


def test_refusals():
    with tempfile.TemporaryDirectory() as tmp:
        s, cs = pin(tmp)
        with pytest.raises(fcd.FcdError) as e:
            fcd.Periodic(s, cs, scheme="quasistatic")
        assert e.value.name == "FCD_E_INVALID_ARG"
        p = fcd.Periodic(s, cs)
        with pytest.raises(fcd.FcdError) as e:
            p.info
        assert e.value.name == "FCD_E_STATE"
        with pytest.raises(fcd.FcdError) as e:
            p.solve(np.zeros(4), np.zeros(4), 6.0)
        assert e.value.name == "FCD_E_STATE"  # no step
        p.set_param("step", 1e-2)
        with pytest.raises(fcd.FcdError) as e:
            p.set_param("tol", -1)
        assert e.value.name == "FCD_E_INVALID_ARG"
        with pytest.raises(ValueError):
            p.set_param("no such key", 1)
        with pytest.raises(fcd.FcdError) as e:
            p.solve(np.zeros(4), np.zeros(4), -1.0)
        assert e.value.name == "FCD_E_INVALID_ARG"


def test_cli_periodic_matches_the_api():
    """`fcd periodic` (tools/cmd_periodic.c) on the pin's files: a transient of 300 from
    steady sliding tilted by 1e-2, shooting from its end, one period written, the branch
    followed to its fold; the period equals fcd.Periodic's from the same state to
    round-off (the same computation), and the orbit file closes on itself."""
    exe = os.environ["FCD_EXE"]
    with tempfile.TemporaryDirectory() as tmp:
        s, cs = pin(tmp, mu=2.2)
        u, _ = fcd.Equilibrium(s, cs).solve("steady-sliding")
        u = np.array(u)
        u[1] += 1e-2
        with open(os.path.join(tmp, "u0.txt"), "w") as fh:
            fh.write(" ".join("%.17g" % x for x in u) + "\n")
        files = ["--mass", "M.mtx", "--stiffness", "K.mtx", "--fixed", "fixed.txt",
                 "--load", "f.txt", "--contacts", "contacts.txt"]
        run = subprocess.run([exe, "periodic"] + files + [
            "--dt", "2e-3", "--period", "6", "--u0", "u0.txt", "--t-end", "300",
            "--monitor", "1,3", "--out", "orbit.csv", "--follow", "1.0:0.1:6",
            "--branch", "branch.csv"], cwd=tmp, capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        assert "converged after" in run.stdout and ": stable" in run.stdout
        period = float(run.stdout.split("period ")[1].split(",")[0])
        orbit = np.loadtxt(os.path.join(tmp, "orbit.csv"), delimiter=",", skiprows=1)
        assert orbit.shape[1] == 3 and orbit[-1, 0] == pytest.approx(period, rel=1e-12)
        amp = (orbit[:, 1].max() - orbit[:, 1].min()) / 2
        assert np.max(np.abs(orbit[-1, 1:] - orbit[0, 1:])) <= 1e-8 * amp
        with open(os.path.join(tmp, "branch.csv")) as fh:
            rows = [line.strip().split(",") for line in fh][1:]
        assert len(rows) == 6 and sum(r[6] == "fold" for r in rows) == 1
        # the same computation through the API
        it = fcd.Integrator(s, cs, scheme="modified-theta", step=2e-3)
        it.set_state(0.0, u, np.zeros(4))
        it.advance(300.0)
        _, uT, vT = it.state
        p = fcd.Periodic(s, cs, step=2e-3)
        info = p.solve(uT, vT, 6.0)
        assert info["period"] == pytest.approx(period, rel=1e-11)
        # usage errors: exit status 2 with the reason
        bad = subprocess.run([exe, "periodic"] + files + ["--dt", "2e-3", "--out", "o.csv"],
                             cwd=tmp, capture_output=True, text=True)
        assert bad.returncode == 2 and "--period" in bad.stderr
        bad = subprocess.run([exe, "periodic"] + files + [
            "--dt", "2e-3", "--period", "6", "--out", "o.csv", "--follow", "1:0.1:3"],
            cwd=tmp, capture_output=True, text=True)
        assert bad.returncode == 2 and "--branch" in bad.stderr
        # a guess inside the flat: refused by name, nothing written
        with open(os.path.join(tmp, "pen.txt"), "w") as fh:
            fh.write("0 0 0 1e-3\n")
        bad = subprocess.run([exe, "periodic"] + files + [
            "--dt", "2e-3", "--period", "6", "--u0", "pen.txt", "--out", "none.csv"],
            cwd=tmp, capture_output=True, text=True)
        assert bad.returncode == 1 and "penetrates" in bad.stderr
        assert not os.path.exists(os.path.join(tmp, "none.csv"))


def test_scalars_are_numbers():
    """A period, a time or a parameter given as a string raises TypeError, as arrays of
    strings do (issue 84: Periodic.solve took "6" through float())."""
    with tempfile.TemporaryDirectory() as tmp:
        s, cs = pin(tmp, mu=2.2)
        p = fcd.Periodic(s, cs, step=1e-3)
        with pytest.raises(TypeError, match="period"):
            p.solve(np.zeros(4), np.zeros(4), "6")
        with pytest.raises(TypeError, match="value"):
            p.set_param("step", "1e-3")
        with pytest.raises(TypeError, match="mu"):
            cs.set_friction(0, None)
        it = fcd.Integrator(s, cs, scheme="modified-theta", step=1e-3)
        with pytest.raises(TypeError, match="t_end"):
            it.advance("1.0")
        with pytest.raises(TypeError, match="alpha"):
            s.set_rayleigh(1j, 0.0)
        it.set_param("step", np.float32(2e-3))  # numpy reals are numbers


# ---- forced responses (docs/periodic.md, "Forced responses") --------------------------

def den_hartog_amplitude(w, F):
    """Den Hartog's steady amplitude without stops, m = k = P = 1 (omega_n = 1): X =
    sqrt(V^2 - F^2 U^2), V = 1 / (1 - w^2), U = sin(pi / w) / (w (1 + cos(pi / w)))."""
    V = 1 / (1 - w * w)
    U = np.sin(np.pi / w) / (w * (1 + np.cos(np.pi / w)))
    return np.sqrt(V * V - F * F * U * U)


def slider(tmp, F):
    """A unit mass on a unit spring along a rigid flat, pressed on it by a unit load (dof 1
    normal), friction F: Den Hartog's oscillator"""
    files = {"K.mtx": "%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n1 1 1\n2 2 1\n",
             "M.mtx": "%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n1 1 1\n2 2 1\n",
             "f.txt": "0 1\n", "harmonic.txt": "# dof amplitude phase\n0 1.0 0\n",
             "contacts.txt": "fcd-contacts 1\ndim 2\nrigid 0 1   0 1   1 0   0 %.17g\n" % F}
    for name, text in files.items():
        with open(os.path.join(tmp, name), "w") as fh:
            fh.write(text)
    s = fcd.System(2)
    s.read_matrix_market("stiffness", os.path.join(tmp, "K.mtx"))
    s.read_matrix_market("mass", os.path.join(tmp, "M.mtx"))
    s.set_load(s.read_vector(os.path.join(tmp, "f.txt")))
    cs = fcd.ContactSet.read(s, os.path.join(tmp, "contacts.txt"))
    return s, cs


def test_forced_response_and_its_curve_against_den_hartog_and_the_cli():
    """The forced orbit of Den Hartog's oscillator from Python, its amplitude against his
    closed form within the scheme's first-order bound 2 F h / |sin(pi / w)| (the C test
    derives it); the host's load as a Python function gives the same orbit; the frequency
    response curve by `sweep`; and `fcd periodic --harmonic --omega --sweep` gives the same
    numbers as the API."""
    exe = os.environ["FCD_EXE"]
    F, w, N = 0.1, 1.3, 4000
    T = 2 * np.pi / w
    with tempfile.TemporaryDirectory() as tmp:
        s, cs = slider(tmp, F)
        p = fcd.Periodic(s, cs, step=T / N, tol=1e-11)
        p.set_harmonic_forcing(w, [0], [1.0])
        u0, v0 = np.array([1 / (1 - w * w), 0.0]), np.zeros(2)
        info = p.solve(u0, v0, T)
        bound = 2 * F * (T / N) / abs(np.sin(np.pi / w))
        assert info["converged"] == 1 and info["period"] == pytest.approx(T, rel=1e-14)
        assert abs(info["amplitude_u"] - den_hartog_amplitude(w, F)) <= bound
        _, uh, vh = p.orbit
        # the same load as a Python function of the phase
        p.set_forcing(w, lambda th: [np.cos(th), 0.0])
        p.solve(u0, v0, T)
        _, uc, vc = p.orbit
        assert np.max(np.abs(uc - uh)) <= 1e-12 and np.max(np.abs(vc - vh)) <= 1e-12

        def broken(th):
            raise RuntimeError("no load here")
        p.set_forcing(w, broken)
        with pytest.raises(RuntimeError, match="no load here"):
            p.solve(u0, v0, T)
        # the frequency response curve above resonance
        p.set_harmonic_forcing(w, [0], [1.0])
        p.solve(u0, v0, T)
        pts = p.sweep("omega", 1.6, 0.05, max_points=30)
        om = [q["omega"] for q in pts]
        assert len(pts) >= 3 and om[-1] >= 1.6 and all(b > a for a, b in zip(om, om[1:]))
        for q in pts:
            h = 2 * np.pi / q["omega"] / N
            assert abs(q["amplitude_u"] - den_hartog_amplitude(q["omega"], F)) <= \
                2 * F * h / abs(np.sin(np.pi / q["omega"]))
            assert q["event"] == "none" and q["period"] == pytest.approx(2 * np.pi / q["omega"])
        with pytest.raises(ValueError):
            p.sweep("mu", 1.6, 0.05)
        # the program: the same orbit and curve
        files = ["--mass", "M.mtx", "--stiffness", "K.mtx", "--load", "f.txt",
                 "--contacts", "contacts.txt"]
        with open(os.path.join(tmp, "u0.txt"), "w") as fh:
            fh.write("%.17g 0\n" % u0[0])
        run = subprocess.run([exe, "periodic"] + files + [
            "--harmonic", "harmonic.txt", "--omega", "1.3", "--dt", "%.17g" % (T / N),
            "--tol", "1e-11", "--u0", "u0.txt", "--out", "orbit.csv",
            "--sweep", "omega:1.6:0.05:30", "--branch", "frc.csv"],
            cwd=tmp, capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        assert "forced: largest multiplier" in run.stdout
        amp = float(run.stdout.split("amplitudes ")[1].split(" ")[0])
        assert amp == pytest.approx(info["amplitude_u"], rel=1e-5)  # printed to 6 digits
        frc = np.loadtxt(os.path.join(tmp, "frc.csv"), delimiter=",", skiprows=1, usecols=(0, 2))
        assert frc.shape == (len(pts), 2)
        assert np.allclose(frc[:, 0], om, rtol=1e-9)
        assert np.allclose(frc[:, 1], [q["amplitude_u"] for q in pts], rtol=1e-9)
        orbit = np.loadtxt(os.path.join(tmp, "orbit.csv"), delimiter=",", skiprows=1)
        assert orbit[-1, 0] == pytest.approx(T, rel=1e-12)
        assert abs(orbit[-1, 1] - orbit[0, 1]) <= 1e-9 * amp  # the forced orbit closes
        # usage errors name the option
        bad = subprocess.run([exe, "periodic"] + files + [
            "--harmonic", "harmonic.txt", "--dt", "1e-3", "--out", "o.csv"],
            cwd=tmp, capture_output=True, text=True)
        assert bad.returncode == 2 and "--omega" in bad.stderr
        bad = subprocess.run([exe, "periodic"] + files + [
            "--harmonic", "harmonic.txt", "--omega", "1.3", "--dt", "1e-3", "--out", "o.csv",
            "--sweep", "frequency:2:0.1:3", "--branch", "b.csv"],
            cwd=tmp, capture_output=True, text=True)
        assert bad.returncode == 2 and "--sweep" in bad.stderr
        with open(os.path.join(tmp, "bad.txt"), "w") as fh:
            fh.write("7 1.0\n")
        bad = subprocess.run([exe, "periodic"] + files + [
            "--harmonic", "bad.txt", "--omega", "1.3", "--dt", "1e-3", "--out", "o.csv"],
            cwd=tmp, capture_output=True, text=True)
        assert bad.returncode == 2 and "bad.txt:1" in bad.stderr
