"""The eigen-paths of a stability solve (registry('eigen-path'), FCD_STAB_EIGEN_PATH): each
path a solver of its own, chosen by size and problem or named by the caller, refused by
name where it does not fit the problem, and reported after the solve (issue 86).

The model: a fixed-fixed chain of 40 masses in x and y (80 dofs, springs k between
neighbours, a lighter mass every third node), its first node stuck on a rigid obstacle
(both of its dofs eliminated). The references are scipy's: eigh on the undamped reduced
pencil, and the eigenvalues of the damped quadratic problem by scipy's eig of its
companion form, so that the dense path (LAPACK through fcd) and the sparse ones (SLEPc)
are each checked against a solver outside fcd.
"""
import numpy as np
import pytest
import scipy.linalg as sla

import fcd

N = 40


def chain(damped):
    n = 2 * N
    K = np.zeros((n, n))
    for d in range(2):
        for p in range(N + 1):  # springs between p - 1 and p; the ends fixed
            a, b = 2 * (p - 1) + d if p > 0 else None, 2 * p + d if p < N else None
            for (i, j, s) in ((a, a, 1), (b, b, 1), (a, b, -1), (b, a, -1)):
                if i is not None and j is not None:
                    K[i, j] += s * 1e6 * (1.0 + 0.5 * d)
    M = np.diag([1.0 if (i // 2) % 3 else 0.4 for i in range(n)])
    C = np.diag(np.linspace(2.0, 40.0, n)) if damped else None  # not proportional
    s = fcd.System(n)
    s.set_matrix("stiffness", K)
    s.set_matrix("mass", M)
    if damped:
        s.set_matrix("damping", C)
    cs = fcd.ContactSet(s, 2)
    cs.add_rigid([0, 1], [1.0, 0.0], [0.0, 1.0], mu=0.3)
    keep = np.arange(2, n)
    return s, cs, K[np.ix_(keep, keep)], M[np.ix_(keep, keep)], \
        C[np.ix_(keep, keep)] if damped else None


def near(lam, ref, tol):
    """every eigenvalue of lam has one of ref within tol relative"""
    for z in lam:
        assert np.min(np.abs(ref - z)) <= tol * abs(z), z


def test_undamped_paths_agree_with_scipy():
    s, cs, K, M, _ = chain(False)
    w = np.sqrt(sla.eigh(K, M, eigvals_only=True))
    ref = np.concatenate([1j * w, -1j * w])
    st = fcd.Stability(s, cs, nev=6)
    st.set_contact_state(["stick"])
    with pytest.raises(fcd.FcdError, match="no solve"):
        st.path
    lam = st.solve()
    assert st.path == "dense" and len(lam) == len(ref)
    near(lam, ref, 1e-9)
    st.set_param("eigen_path", "pencil")  # the sparse path, on a pencil the dense one takes
    lam = st.solve()
    assert st.path == "pencil" and len(lam) == 12
    near(lam, ref, 1e-9)
    lowest = np.sort(np.abs(ref))[:12]
    assert np.allclose(np.sort(np.abs(lam)), lowest, rtol=1e-9)
    st.set_param("eigen_path", "auto")
    st.set_param("dense_max", 10)  # auto above dense_max: the first sparse path that fits
    st.solve()
    assert st.path == "pencil"
    # a quadratic path on a problem without damping: refused by name, the last good
    # solve kept
    st.set_param("eigen_path", "quadratic")
    with pytest.raises(fcd.FcdError, match="'quadratic' does not fit.*no general damping"):
        st.solve()
    assert st.path == "pencil"


def test_damped_paths_agree_with_scipy():
    s, cs, K, M, C = chain(True)
    m = K.shape[0]
    Z, I = np.zeros((m, m)), np.eye(m)
    ref = sla.eigvals(np.block([[Z, I], [-K, -C]]), np.block([[I, Z], [Z, M]]))
    st = fcd.Stability(s, cs, nev=5)
    st.set_contact_state(["stick"])
    lam = st.solve()
    assert st.path == "dense" and len(lam) == 2 * m
    near(lam, ref, 1e-9)
    st.set_param("eigen_path", "pencil")  # would leave the damping out
    with pytest.raises(fcd.FcdError, match="'pencil' does not fit.*leaves out"):
        st.solve()
    assert st.path == "dense"
    st.set_param("eigen_path", "auto")
    st.set_param("dense_max", 10)
    lam = st.solve()
    assert st.path == "quadratic" and len(lam) >= 5
    near(lam, ref, 1e-8)
    lowest = np.sort(np.abs(ref))[:len(lam)]
    assert np.allclose(np.sort(np.abs(lam)), lowest, rtol=1e-8)
    st.set_param("target_hz", 300.0)  # a complex shift: the modal projection
    lam = st.solve()
    assert st.path == "projected"
    # diagonal damping does not map the modal basis into itself: a truncation error,
    # small for these well-separated pairs near the target
    near(lam, ref, 1e-3)
    st.set_param("eigen_path", "quadratic")
    with pytest.raises(fcd.FcdError, match="'quadratic' does not fit.*above 0 Hz"):
        st.solve()


def test_bad_paths():
    s, cs, *_ = chain(False)
    st = fcd.Stability(s, cs)
    with pytest.raises(ValueError, match="unknown eigen path"):
        st.set_param("eigen_path", "lanczos")
    with pytest.raises(fcd.FcdError, match="no fcd_eigen_path"):
        st._check(fcd._f["fcd_stability_set_param"](st._h, 511, 4.0))
    with pytest.raises(fcd.FcdError, match="no fcd_eigen_path"):
        st._check(fcd._f["fcd_stability_set_param"](st._h, 511, 0.5))


def test_dense_beyond_memory():
    """The dense path on a damped pencil of 20,000 reduced dofs (its companion form 40,000
    wide: some 90 GB of arrays) is refused by name with the GiB it would need, before
    anything of that size is allocated (Linux would grant it and kill the process)."""
    import scipy.sparse as sp
    total = 0.0
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                total = float(line.split()[1]) * 1024
    n = 20002
    nr, nn = n - 2, 2 * (n - 2)
    need = 8.0 * (3 * nr * nr + 5 * nn * nn + 2 * nn * n)
    if not total or need < 1.5 * total:
        pytest.skip("this machine holds the dense arrays (%.0f GB)" % (total / 1e9))
    K = sp.diags([2e6 * np.ones(n), -1e6 * np.ones(n - 1), -1e6 * np.ones(n - 1)], [0, 1, -1])
    s = fcd.System(n)
    s.set_matrix("stiffness", K.tocsr())
    s.set_matrix("mass", sp.identity(n, format="csr"))
    s.set_matrix("damping", sp.diags(np.linspace(1.0, 5.0, n), format="csr"))
    cs = fcd.ContactSet(s, 2)
    cs.add_rigid([0, 1], [1.0, 0.0], [0.0, 1.0], mu=0.3)
    st = fcd.Stability(s, cs, eigen_path="dense")
    st.set_contact_state(["stick"])
    with pytest.raises(fcd.FcdError, match=r"'dense' does not fit.*would need [0-9.]+ GiB"):
        st.solve()
