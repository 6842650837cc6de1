"""fcd.Periodic (docs/periodic.md) on seed 000's pin on a flat, mu = 2.2: the orbit found by
shooting from a state of a long transient is checked independently with fcd.Integrator:
N steps of T / N from its start return to it (to 1e-9 of the orbit's size), and its
period is the transient's spacing of the u_N minima to 1e-6; the multipliers come back as
complex numbers with the trivial one first; refusals raise FcdError with the status."""
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
