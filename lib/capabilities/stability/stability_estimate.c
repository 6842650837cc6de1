/* What lies outside a partial window of the stability analysis (fcd_stability.h,
 * FCD_STAB_ESTIMATE_MODES): the undamped reduced pencil K* x = Lambda M* x projected on
 * the lowest modes of the frictionless reduced pencil (K0, M0) and solved whole,
 * densely, as commercial complex-eigenvalue analyses do on their modal basis. Each projected Lambda
 * gives lambda = +-i sqrt(Lambda), whose real part is the growth rate
 * sqrt((|Lambda| - Re Lambda) / 2): the largest of them is the estimate. It is an
 * estimate, not a bound: exact when the basis holds the pencil's invariant subspace (the
 * whole space, or a pencil whose friction couples only modes inside the basis),
 * otherwise a Galerkin approximation of the band the basis spans (up to its highest
 * mode's frequency), damping left out. */
#include "lapack.h"
#include "capabilities.h"

#include <math.h>
#include <string.h>

/* the union of the patterns of two CSR matrices of one size (full storage, sorted
 * columns), with each one's values on it */
static fcd_status union_pattern(const fcd_system *sys, const fcd__csr *A, const fcd__csr *B,
                                fcd_index **rp, fcd_index **ci, fcd_real **av,
                                fcd_real **bv) {
  fcd_index n = A->n, cap = A->rowptr[n] + B->rowptr[n];
  *rp = fcd__malloc_array((size_t)n + 1, sizeof **rp);
  *ci = fcd__malloc_array((size_t)cap + 1, sizeof **ci);
  *av = fcd__calloc((size_t)cap + 1, sizeof **av);
  *bv = fcd__calloc((size_t)cap + 1, sizeof **bv);
  if (!*rp || !*ci || !*av || !*bv)
    return fcd__err(sys, FCD_E_NOMEM, "out of memory estimating beyond the window");
  fcd_index k = 0;
  for (fcd_index i = 0; i < n; i++) {
    (*rp)[i] = k;
    fcd_index p = A->rowptr[i], q = B->rowptr[i];
    while (p < A->rowptr[i + 1] || q < B->rowptr[i + 1]) {
      fcd_index ca = p < A->rowptr[i + 1] ? A->col[p] : INT64_MAX;
      fcd_index cb = q < B->rowptr[i + 1] ? B->col[q] : INT64_MAX;
      fcd_index c = ca < cb ? ca : cb;
      (*ci)[k] = c;
      if (ca == c) (*av)[k] = A->val[p++];
      if (cb == c) (*bv)[k] = B->val[q++];
      k++;
    }
  }
  (*rp)[n] = k;
  return FCD_OK;
}

/* The got modes (columns of P, nr each) made an orthonormal basis in place by
 * Gram-Schmidt twice, dependent ones dropped; returns how many are kept */
static fcd_index orthonormal_modes(fcd_index nr, fcd_index got, fcd_real *P) {
  fcd_index m = 0;
  for (fcd_index j = 0; j < got; j++) {
    fcd_real *x = P + m * nr;
    if (x != P + j * nr) memmove(x, P + j * nr, (size_t)nr * sizeof *x);
    fcd_real n0 = 0;
    for (fcd_index k = 0; k < nr; k++) n0 += x[k] * x[k];
    n0 = sqrt(n0);
    for (int pass = 0; pass < 2; pass++)
      for (fcd_index i = 0; i < m; i++) {
        const fcd_real *q = P + i * nr;
        fcd_real d = 0;
        for (fcd_index k = 0; k < nr; k++) d += q[k] * x[k];
        for (fcd_index k = 0; k < nr; k++) x[k] -= d * q[k];
      }
    fcd_real nn = 0;
    for (fcd_index k = 0; k < nr; k++) nn += x[k] * x[k];
    nn = sqrt(nn);
    if (!(nn > 1e-8 * n0)) continue;
    for (fcd_index k = 0; k < nr; k++) x[k] /= nn;
    m++;
  }
  return m;
}

/* The undamped pencil projected on the m basis vectors P (Kr, Mr reduced; y nr-long
 * work) and solved whole by balanced QZ: its largest growth rate *best at the
 * frequency *bim (rad/s) */
static fcd_status projected_growth(fcd_system *sys, const fcd__csr *Kr, const fcd__csr *Mr,
                                   const fcd_real *P, fcd_index m, fcd_real *y, fcd_real *best,
                                   fcd_real *bim) {
  fcd_status st = FCD_OK;
  fcd_real *Kp = fcd__malloc_array((size_t)(m * m), sizeof *Kp);
  fcd_real *Mp = fcd__malloc_array((size_t)(m * m), sizeof *Mp);
  fcd_real *ar = fcd__malloc_array((size_t)m, sizeof *ar);
  fcd_real *ai = fcd__malloc_array((size_t)m, sizeof *ai);
  fcd_real *be = fcd__malloc_array((size_t)m, sizeof *be);
  fcd_real *vr = fcd__malloc_array((size_t)(m * m), sizeof *vr);
  fcd_real *ls = fcd__malloc_array((size_t)m + 1, sizeof *ls);
  fcd_real *rs = fcd__malloc_array((size_t)m + 1, sizeof *rs);
  if (!Kp || !Mp || !ar || !ai || !be || !vr || !ls || !rs) {
    st = fcd__err(sys, FCD_E_NOMEM, "out of memory estimating beyond the window");
    goto done;
  }
  fcd__csr_project(Kr, m, P, y, Kp);
  fcd__csr_project(Mr, m, P, y, Mp);
  fcd_real norms[2];
  if (fcd__la_ggev(1, m, Kp, Mp, ar, ai, be, vr, ls, rs, norms) != 0) {
    st = fcd__err(sys, FCD_E_BACKEND, "LAPACK's QZ failed on the %lld-mode projection",
                  (long long)m);
    goto done;
  }
  *best = -INFINITY;
  *bim = 0;
  for (fcd_index k = 0; k < m; k++) {
    if (fcd__qz_infinite(ar[k], ai[k], be[k], norms, m) || !isfinite(ar[k]) ||
        !isfinite(ai[k]) || !isfinite(be[k]))
      continue; /* infinite or not finite: no growth rate */
    fcd_real lr = ar[k] / be[k], li = ai[k] / be[k], mod = hypot(lr, li);
    /* sqrt(Lambda) = p + i q; lambda = +-(-q + i p): growth |q| at frequency |p| */
    fcd_real p = sqrt(fmax(0.0, (mod + lr) / 2)), q = sqrt(fmax(0.0, (mod - lr) / 2));
    if (q > *best) {
      *best = q;
      *bim = p;
    }
  }
  if (*best == -INFINITY)
    st = fcd__err(sys, FCD_E_NOT_CONVERGED, "the projected pencil has no finite eigenvalue");
done:
  fcd__free(Kp);
  fcd__free(Mp);
  fcd__free(ar);
  fcd__free(ai);
  fcd__free(be);
  fcd__free(vr);
  fcd__free(ls);
  fcd__free(rs);
  return st;
}

fcd_status fcd__stability_estimate(fcd_system *sys, const fcd__csr *K0, const fcd__csr *M0,
                                   const fcd__csr *Kr, const fcd__csr *Mr, fcd_index nm,
                                   fcd_real *re, fcd_real *im, fcd_real *band_hz,
                                   fcd_index *used) {
  fcd_index nr = Kr->n;
  *re = *im = *band_hz = NAN;
  *used = 0;
  if (nm > nr) nm = nr;
  fcd__csr Ks, Ms;
  memset(&Ks, 0, sizeof Ks);
  memset(&Ms, 0, sizeof Ms);
  fcd_index *rp = NULL, *ci = NULL, m = 0;
  fcd_real *kv = NULL, *mv = NULL, *w2 = NULL, *P = NULL, *y = NULL;
  /* the basis pencil is symmetric up to round-off of its reduction: its symmetric part */
  fcd_status st = fcd__csr_symmetric_part(sys, K0, &Ks);
  if (st == FCD_OK) st = fcd__csr_symmetric_part(sys, M0, &Ms);
  if (st == FCD_OK) st = union_pattern(sys, &Ks, &Ms, &rp, &ci, &kv, &mv);
  if (st != FCD_OK) goto done;
  w2 = fcd__malloc_array((size_t)nm + 1, sizeof *w2);
  P = fcd__malloc_array((size_t)(nm * nr) + 1, sizeof *P);
  y = fcd__malloc_array((size_t)nr + 1, sizeof *y);
  if (!w2 || !P || !y) {
    st = fcd__err(sys, FCD_E_NOMEM, "out of memory estimating beyond the window");
    goto done;
  }
  fcd_index got = 0;
  st = fcd__slepc_gen_sym_lowest(sys, nr, rp, ci, kv, mv, nm, w2, P, &got);
  if (st != FCD_OK) goto done;
  m = orthonormal_modes(nr, got, P);
  if (m == 0) {
    st = fcd__err(sys, FCD_E_NOT_CONVERGED, "no mode of the symmetric part converged");
    goto done;
  }
  fcd_real best = -INFINITY, bim = 0;
  if ((st = projected_growth(sys, Kr, Mr, P, m, y, &best, &bim)) != FCD_OK) goto done;
  fcd_real wmax = 0;
  for (fcd_index k = 0; k < got; k++) wmax = fmax(wmax, w2[k]);
  *re = best;
  *im = bim;
  *band_hz = sqrt(wmax) / (2 * 3.14159265358979323846);
  *used = m;
done:
  fcd__csr_clear(&Ks);
  fcd__csr_clear(&Ms);
  fcd__free(rp);
  fcd__free(ci);
  fcd__free(kv);
  fcd__free(mv);
  fcd__free(w2);
  fcd__free(P);
  fcd__free(y);
  return st;
}
