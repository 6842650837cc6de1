/* The contact problems of an equilibrium, shared by the elastic driver (equilibrium.c)
 * and the rigid-mode machinery (equilibrium_rigid.c), below both: the free right-hand
 * side, the certificate's tolerance, the static problem on W (the contact solvers) and
 * steady sliding's LCP in the normal reactions (block pivots, then Lemke's method).
 * Steady sliding: r_T = mu r_N s with s fixed, so u_N - g is affine in r_N alone:
 *   u_N - g = c + A r_N,  A_ij = W_{iN,jN} + mu_j s_j . W_{iN,jT},
 * with complementarity u_N - g <= 0, r_N <= 0: the LCP (z = -r_N)
 *   w = A z - c >= 0, z >= 0, z . w = 0. */
#include "equilibrium_private.h"

#include <math.h>
#include <string.h>

/* The right-hand side f - K z + H^T r on the free dofs (r may be NULL: zero) */
fcd_status fcd__eq_rhs_free(fcd_equilibrium *eq, const fcd_real *f, const fcd_real *z,
                           const fcd_real *r, fcd_real *tmp, fcd_real *xf) {
  fcd_system *sys = eq->sys;
  fcd_index n = sys->n;
  fcd_system_apply(sys, FCD_STIFFNESS, z, tmp);
  for (fcd_index i = 0; i < n; i++) tmp[i] = f[i] - tmp[i];
  if (r && fcd__eq_nct(eq) > 0) {
    const fcd__csr *H;
    FCD_TRY(fcd__contact_set_operator(eq->cs, &H));
    for (fcd_index i = 0; i < H->n; i++)
      for (fcd_index e = H->rowptr[i]; e < H->rowptr[i + 1]; e++)
        tmp[H->col[e]] += H->val[e] * r[i];
  }
  fcd__full_to_free(sys, tmp, xf);
  return FCD_OK;
}

/* u = z + K^-1 (f - K z + H^T r) on the free dofs; r may be NULL (zero) */
fcd_real fcd__eq_cert_tolerance(const fcd_equilibrium *eq) {
  return fmax(eq->cert_tol, 10 * eq->opts.tol);
}

/* The static contact problem u_loc = W r + q with q from w->loc (H u_base on entry) */
fcd_status fcd__eq_solve_static(fcd_equilibrium *eq, eq_work *w, fcd_real *Wd) {
  fcd_system *sys = eq->sys;
  fcd_index nc = fcd__eq_nct(eq);
  int d = fcd__eq_cdim(eq);
  fcd_index m = nc * d;
  if (nc == 0) return FCD_OK;
  fcd_real *q = w->loc, *uref = NULL;
  for (fcd_index c = 0; c < nc; c++) q[c * d] -= eq->cs->c[c].gap;
  if (eq->u_ref) {
    uref = fcd__malloc_array((size_t)m, sizeof *uref);
    if (!uref) return fcd__err(sys, FCD_E_NOMEM, "out of memory");
    fcd_contact_set_local(eq->cs, eq->u_ref, uref);
    for (fcd_index c = 0; c < nc; c++)
      for (int k = 1; k < d; k++) q[c * d + k] -= uref[c * d + k];
    fcd__free(uref);
  }
  fcd_index *rp = fcd__malloc_array((size_t)m + 1, sizeof *rp);
  fcd_index *ci = fcd__malloc_array((size_t)m * (size_t)m + 1, sizeof *ci);
  fcd_real *mu = fcd__malloc_array((size_t)nc, sizeof *mu);
  fcd_real *ul = fcd__malloc_array((size_t)m, sizeof *ul);
  fcd_status st = FCD_OK;
  if (!rp || !ci || !mu || !ul) {
    st = fcd__err(sys, FCD_E_NOMEM, "out of memory");
    goto done;
  }
  for (fcd_index i = 0; i <= m; i++) rp[i] = i * m;
  for (fcd_index i = 0; i < m * m; i++) ci[i] = i % m;
  for (fcd_index c = 0; c < nc; c++) mu[c] = eq->cs->c[c].mu;
  fcd__csr Wc = {m, rp, ci, Wd, 0, 0, 1, 1, 0, NULL, 0}; /* every entry: dense */
  fcd__fc_local lp = {d, nc, m, &Wc, q, mu, NULL, NULL, NULL};
  fcd__fc_result res;
  st = fcd__fc_solve_balanced(sys, &lp, &eq->opts, w->r, ul, &res);
  char trail[256];
  if (st == FCD_OK && !res.converged)
    st = fcd__err(sys, FCD_E_NOT_CONVERGED,
                  "static contact solve did not reach %.3g in %lld iterations (residual "
                  "%.3e%s); the previous solution is kept", eq->opts.tol,
                  (long long)res.iterations, res.residual,
                  fcd__fc_trail(&res, trail, sizeof trail));
done:
  fcd__free(rp);
  fcd__free(ci);
  fcd__free(mu);
  fcd__free(ul);
  return st;
}

/* the largest violation of w = A z + q >= 0, z >= 0 and z . w = 0 (over qs, the size
 * of q) */
static fcd_real lcp_violation(fcd_index n, const fcd_real *A, const fcd_real *q,
                              const fcd_real *z, fcd_real qs) {
  fcd_real worst = 0;
  for (fcd_index i = 0; i < n; i++) {
    fcd_real wi = q[i];
    for (fcd_index j = 0; j < n; j++) wi += A[i * n + j] * z[j];
    worst = fmax(worst, fmax(fmax(-wi, -z[i]), fabs(wi * z[i]) / qs));
  }
  return worst;
}

/* Steady sliding's LCP with W = Wd and w->loc = H u_base on entry */
/* The LCP of steady sliding, w = A z + q >= 0, z >= 0, z . w = 0, in z = -r_n: the
 * contacts pressed before (r, a warm start), else those the free motion presses, as the
 * guess of a few block pivots; Lemke's method when they do not settle. Lemke pivots with
 * absolute tolerances while A holds compliances (m/N: 1e-9 for a steel disc against
 * polymer pins): A and q are scaled symmetrically to a unit diagonal, A' = S A S,
 * q' = S q, z = S z', which keeps the problem. Returns Lemke's code; *worst is the
 * relative violation of an answer that failed the check. */
static int steady_lcp(fcd_index nc, fcd_real *A, fcd_real *q, const fcd_real *r, int d,
                      fcd_real *z, fcd_index *piv, fcd_real *worst) {
  fcd_real *sc = fcd__malloc_array((size_t)nc + 1, sizeof *sc);
  unsigned char *act = fcd__malloc_array((size_t)nc + 1, sizeof *act);
  int lr = FCD__LEMKE_NOMEM, warm = 0;
  if (!sc || !act) goto done;
  for (fcd_index i = 0; i < nc; i++) {
    fcd_real a = A[i * nc + i];
    sc[i] = a > 0 && isfinite(a) ? 1.0 / sqrt(a) : 1.0;
  }
  fcd_real qs = 1;
  for (fcd_index i = 0; i < nc; i++) {
    q[i] *= sc[i];
    for (fcd_index j = 0; j < nc; j++) A[i * nc + j] *= sc[i] * sc[j];
    qs = fmax(qs, fabs(q[i]));
    warm |= r[i * d] != 0;
  }
  for (fcd_index i = 0; i < nc; i++) act[i] = warm ? r[i * d] < 0 : q[i] < 0;
  lr = fcd__lcp_block_pivot(nc, A, q, act, z, 8, 1e-13 * qs);
  /* the pivots' answer must pass the check below too, else Lemke's method decides */
  if (lr == 0 && lcp_violation(nc, A, q, z, qs) > 1e-9 * qs) lr = 1;
  if (lr == 1) lr = fcd__lemke(nc, A, q, z, 50 * nc + 1000, piv);
  if (lr == FCD__LEMKE_OK) {
    /* a check that cannot be skipped: w = A z + q >= 0 and z . w = 0 (scaled) */
    *worst = lcp_violation(nc, A, q, z, qs) / qs;
    if (*worst > 1e-9) lr = FCD__LEMKE_INACCURATE;
    for (fcd_index i = 0; i < nc; i++) z[i] *= sc[i];
  }
done:
  fcd__free(sc);
  fcd__free(act);
  return lr;
}

fcd_status fcd__eq_solve_steady(fcd_equilibrium *eq, eq_work *w, const fcd_real *Wd,
                               fcd_real *sl) {
  fcd_system *sys = eq->sys;
  fcd_index nc = fcd__eq_nct(eq);
  int d = fcd__eq_cdim(eq);
  fcd_index m = nc * d;
  if (nc == 0)
    return fcd__err(sys, FCD_E_STATE, "steady sliding needs a contact set with contacts");
  for (fcd_index c = 0; c < nc; c++)
    if (!fcd__slip_from_sliding_velocity(d, eq->cs->c[c].vg, sl + c * (d - 1)))
      return fcd__err(sys, FCD_E_STATE,
                      "steady sliding: contact %lld has no sliding velocity (set it with "
                      "fcd_contact_set_set_sliding_velocity)", (long long)c);
  fcd_real *A = fcd__malloc_array((size_t)nc * (size_t)nc, sizeof *A);
  fcd_real *q = fcd__malloc_array((size_t)nc, sizeof *q);
  fcd_real *z = fcd__malloc_array((size_t)nc, sizeof *z);
  fcd_status st = FCD_OK;
  fcd_index piv = 0;
  fcd_real worst = 0;
  int lr = FCD__LEMKE_NOMEM;
  if (A && q && z) {
    /* the normal gap's rate under r_n at every contact, the tangential reaction being
     * mu r_n along the imposed slip */
    for (fcd_index i = 0; i < nc; i++) {
      q[i] = -(w->loc[i * d] - eq->cs->c[i].gap);
      for (fcd_index j = 0; j < nc; j++) {
        const fcd_real *wr = Wd + (i * d) * m + j * d;
        fcd_real a = wr[0];
        for (int k = 1; k < d; k++) a += eq->cs->c[j].mu * sl[j * (d - 1) + k - 1] * wr[k];
        A[i * nc + j] = a;
      }
    }
    lr = steady_lcp(nc, A, q, w->r, d, z, &piv, &worst);
  }
  if (lr == FCD__LEMKE_INACCURATE) {
    st = fcd__err(sys, FCD_E_NOT_CONVERGED, "steady sliding: Lemke's method ended with a "
                  "complementarity violation of %.3e (relative); the problem is too "
                  "degenerate for its pivoting", worst);
  } else if (lr == FCD__LEMKE_NOMEM) {
    st = fcd__err(sys, FCD_E_NOMEM, "out of memory in steady sliding's complementarity problem");
  } else if (lr == FCD__LEMKE_RAY) {
    st = fcd__err(sys, FCD_E_NO_SOLUTION,
                  "no steady sliding state: the complementarity problem in the normal "
                  "reactions has no solution (Lemke's method ended on a ray after %lld "
                  "pivots); friction drives the contacts into the obstacle faster than "
                  "the structure resists (seed 000 Ex. 4.6: pushing with "
                  "2 - 3 mu H_B/L <= 0)", (long long)piv);
  } else if (lr == FCD__LEMKE_CAP) {
    st = fcd__err(sys, FCD_E_NOT_CONVERGED,
                  "steady sliding: Lemke's method made %lld pivots without ending", (long long)piv);
  } else {
    for (fcd_index c = 0; c < nc; c++) {
      fcd_real rn = -z[c];
      w->r[c * d] = rn;
      for (int k = 1; k < d; k++)
        w->r[c * d + k] = eq->cs->c[c].mu * rn * sl[c * (d - 1) + k - 1];
    }
  }
  fcd__free(A);
  fcd__free(q);
  fcd__free(z);
  return st;
}
