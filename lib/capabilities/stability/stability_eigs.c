/* The eigen-paths of a reduced pencil and their certificates: the dense path (LAPACK's
 * dggev on (K*, M*) or the companion form of the quadratic), and the sparse ones (SLEPc's
 * generalized problem at a shift, its quadratic problem, or a modal projection where a
 * complex shift would be needed), each eigenpair's backward error checked against its
 * bound; the necessary condition and the global estimate beside a partial window. */
#include "stability_private.h"

#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- results ---------------------------------------------------------------------- */

void fcd__stab_free_results(fcd_stability *st) {
  fcd__free(st->lre);
  fcd__free(st->lim);
  fcd__free(st->vre);
  fcd__free(st->vim);
  st->lre = st->lim = st->vre = st->vim = NULL;
  st->nconv = 0;
  st->solved = 0;
}

typedef struct {
  fcd_real re, im;
  fcd_index k; /* index into the raw arrays */
} eigkey;

static int cmp_eig(const void *a, const void *b) {
  const eigkey *x = a, *y = b;
  if (x->re != y->re) return x->re > y->re ? -1 : 1;
  if (x->im != y->im) return x->im < y->im ? -1 : 1;
  return (x->k > y->k) - (x->k < y->k);
}

/* lifts reduced complex vectors to the full numbering through T_n */
static void lift(const fcd_system *sys, const tmap *tn, const double complex *x,
                 fcd_real *re, fcd_real *im) {
  fcd_index n = sys->n;
  memset(re, 0, (size_t)n * sizeof *re);
  memset(im, 0, (size_t)n * sizeof *im);
  double mx = 0;
  for (fcd_index f = 0; f < tn->nf; f++) {
    double complex v = 0;
    if (tn->col_of[f] >= 0) v = x[tn->col_of[f]];
    else
      for (fcd_index q = tn->srow_ptr[f]; q < tn->srow_ptr[f + 1]; q++)
        v += tn->sval[q] * x[tn->sidx[q]];
    re[sys->dof_of[f]] = creal(v);
    im[sys->dof_of[f]] = cimag(v);
    if (cabs(v) > mx) mx = cabs(v);
  }
  /* unit largest modulus, that component real positive */
  double complex ph = 1;
  for (fcd_index i = 0; i < n; i++)
    if (cabs(re[i] + I * im[i]) == mx && mx > 0) {
      ph = conj(re[i] + I * im[i]) / mx;
      break;
    }
  for (fcd_index i = 0; i < n; i++) {
    double complex v = (re[i] + I * im[i]) * ph / (mx > 0 ? mx : 1);
    re[i] = creal(v);
    im[i] = cimag(v);
  }
}

/* Stores nraw eigenvalues (lam) and reduced vectors (vec, nred each) sorted. */
static fcd_status store(fcd_stability *st, const tmap *tn, fcd_index nraw,
                        const double complex *lam, const double complex *vec) {
  fcd_system *sys = st->sys;
  fcd_index n = sys->n, nr = tn->nred;
  eigkey *key = fcd__malloc_array((size_t)nraw + 1, sizeof *key);
  st->lre = fcd__malloc_array((size_t)nraw + 1, sizeof *st->lre);
  st->lim = fcd__malloc_array((size_t)nraw + 1, sizeof *st->lim);
  st->vre = fcd__malloc_array((size_t)(nraw * n) + 1, sizeof *st->vre);
  st->vim = fcd__malloc_array((size_t)(nraw * n) + 1, sizeof *st->vim);
  if (!key || !st->lre || !st->lim || !st->vre || !st->vim) {
    fcd__free(key);
    fcd__stab_free_results(st);
    return fcd__err(sys, FCD_E_NOMEM, "out of memory storing eigenpairs");
  }
  for (fcd_index k = 0; k < nraw; k++) {
    key[k].re = creal(lam[k]);
    key[k].im = cimag(lam[k]);
    key[k].k = k;
  }
  qsort(key, (size_t)nraw, sizeof *key, cmp_eig);
  st->any_flutter = st->any_divergence = 0;
  /* a reduced model's eigenvalues above its band are outside the model: kept and
   * counted, not judged (fcd_stability_get_band) */
  st->band_hz = st->band_set > 0 ? st->band_set : sys->band_hz;
  st->noutside = st->nunstable_out = 0;
  for (fcd_index k = 0; k < nraw; k++) {
    st->lre[k] = key[k].re;
    st->lim[k] = key[k].im;
    lift(sys, tn, vec + key[k].k * nr, st->vre + k * n, st->vim + k * n);
    fcd_real mod = hypot(key[k].re, key[k].im), scale = fmax(1.0, mod);
    int unstable = key[k].re > 1e-9 * scale;
    if (mod > 2 * 3.14159265358979323846 * st->band_hz) {
      st->noutside++;
      st->nunstable_out += unstable;
    } else if (unstable) {
      if (fabs(key[k].im) > 1e-9 * scale) st->any_flutter = 1;
      else st->any_divergence = 1;
    }
  }
  st->nconv = nraw;
  fcd__free(key);
  return FCD_OK;
}

/* smallest eigenvalue of (A + A^T)/2, dense; NaN if LAPACK fails; *nomem set when its
 * work arrays cannot be allocated */
static fcd_real min_sym_eig(fcd_index nr, const fcd_real *A, int *nomem) {
  if (nr == 0) return NAN;
  fcd_real *S = fcd__malloc_array((size_t)nr * (size_t)nr, sizeof *S);
  fcd_real *w = fcd__malloc_array((size_t)nr, sizeof *w);
  fcd_real r = NAN;
  if (!S || !w) *nomem = 1;
  if (S && w) {
    for (fcd_index i = 0; i < nr; i++)
      for (fcd_index j = 0; j < nr; j++) S[i * nr + j] = 0.5 * (A[i * nr + j] + A[j * nr + i]);
    if (fcd__la_syev(0, nr, S, w) == 0)
      r = w[0];
  }
  fcd__free(S);
  fcd__free(w);
  return r;
}

/* The eigenpairs of A x = lambda B x (n x n, row-major) by LAPACK's QZ, as complex
 * values and vectors (n per pair); infinite eigenvalues (fcd__qz_infinite: relative to
 * the pencil's norms, whatever its units) are counted in *ninf and left out of the
 * count returned, their vectors stored last (lam[n - *ninf .. n - 1] = INFINITY). Ward's balancing (dggevx 'B': permutation, then row and
 * column scaling), which dggev itself does not do, is asked for where it matters: a
 * sliding contact with a huge mu puts entries of mu and 1/mu in the same pencil, and
 * unbalanced QZ loses the eigenvalues that depend on the small ones (the pin of seed 000
 * at mu = 1e20: both roots, sqrt(mu) large, came back infinite). Returns the number of finite eigenvalues, with *ninf the infinite ones; -2
 * out of memory; -1 LAPACK failed; -3 the pencil has entries that are not finite; -4
 * LAPACK's answer is not finite, or a column that starts a complex pair has no conjugate
 * beside it. dggev stores a pair in columns k, k+1 with ai[k] > 0 > ai[k+1]; on a pencil
 * whose entries overflow (mu = 1e308 times a stiffness row) it returned NaN where a pair
 * should start in the last column, and reading "column k + 1" ran past the vectors
 * (issue 64). Nothing of such an answer is used. */
static fcd_index dense_ggev(fcd_index nn, fcd_real *A, fcd_real *B, double complex *lam,
                            double complex *vec, fcd_index *ninf, int balance) {
  *ninf = 0;
  for (fcd_index i = 0; i < nn * nn; i++)
    if (!isfinite(A[i]) || !isfinite(B[i])) return -3;
  fcd_real *ar = fcd__malloc_array((size_t)nn, sizeof *ar), *ai = fcd__malloc_array((size_t)nn, sizeof *ai);
  fcd_real *be = fcd__malloc_array((size_t)nn, sizeof *be);
  fcd_real *vr = fcd__malloc_array((size_t)nn * (size_t)nn, sizeof *vr);
  fcd_real *ls = fcd__malloc_array((size_t)nn + 1, sizeof *ls);
  fcd_real *rs = fcd__malloc_array((size_t)nn + 1, sizeof *rs);
  fcd_index cnt = (ar && ai && be && vr && ls && rs) ? -1 : -2;
  fcd_real norms[2];
  if (cnt == -1 &&
      fcd__la_ggev(balance, nn, A, B, ar, ai, be, vr, ls, rs, norms) == 0) {
    cnt = 0;
    /* the whole answer is checked before any of it is read as pairs */
    for (fcd_index k = 0; k < nn && cnt == 0; k++) {
      if (!isfinite(ar[k]) || !isfinite(ai[k]) || !isfinite(be[k])) cnt = -4;
      if (ai[k] != 0) {
        /* the pair's alpha and beta are scaled apart (dhgeqz), their ratios conjugate */
        if (k + 1 >= nn || !(ai[k] > 0) || !(ai[k + 1] < 0)) cnt = -4;
        k++;
      }
    }
    for (fcd_index i = 0; i < nn * nn && cnt == 0; i++)
      if (!isfinite(vr[i])) cnt = -4;
    /* finite pairs from the front, infinite ones' vectors from the back (a caller may
     * need them: Rayleigh damping turns a mass-less direction into a finite root) */
    fcd_index back = nn;
    for (fcd_index k = 0; k < nn && cnt >= 0; k++) {
      int inf = fcd__qz_infinite(ar[k], ai[k], be[k], norms, nn);
      for (int sgn = 1, np = ai[k] != 0 ? 2 : 1; np > 0; sgn -= 2, np--) {
        fcd_index at = inf ? --back : cnt++;
        lam[at] = inf ? INFINITY : (ar[k] + sgn * I * ai[k]) / be[k];
        for (fcd_index i = 0; i < nn; i++)
          vec[at * nn + i] = vr[i * nn + k] + (ai[k] != 0 ? sgn * I * vr[i * nn + k + 1] : 0);
      }
      if (ai[k] != 0) k++; /* a conjugate pair in columns k, k+1 (checked above) */
    }
    *ninf = nn - back;
    for (fcd_index k = 0; k < cnt; k++)
      if (!isfinite(creal(lam[k])) || !isfinite(cimag(lam[k]))) cnt = -4;
  }
  fcd__free(ar);
  fcd__free(ai);
  fcd__free(be);
  fcd__free(vr);
  fcd__free(ls);
  fcd__free(rs);
  return cnt;
}

static fcd_real dense_norm_inf(fcd_index n, const fcd_real *A) {
  fcd_real m = 0;
  for (fcd_index i = 0; i < n; i++) {
    fcd_real s = 0;
    for (fcd_index j = 0; j < n; j++) s += fabs(A[i * n + j]);
    m = fmax(m, s);
  }
  return m;
}

/* The companion form of lambda^2 M + lambda C + K (n x n, row-major, dense), scaled as
 * Fan, Lin and Van Dooren (2004) do: lambda = gamma mu with gamma = sqrt(|K| / |M|), the
 * whole multiplied by delta = 2 / (|K| + gamma |C|), so that the three coefficients
 * have comparable norms. Unscaled, a damped model in SI units (|K| / |M| ~ 1e10)
 * linearizes into a pencil whose pairs fail the quadratic's backward-error bound.
 * [0 I; -dK -g d C] x = mu [I 0; 0 g^2 d M] x, x = (v, mu v), into A and B (2n x 2n,
 * zeroed by the caller); *gamma receives the factor that turns mu back into lambda. */
static void companion(fcd_index n, const fcd_real *K, const fcd_real *C, const fcd_real *M,
                      fcd_real *A, fcd_real *B, fcd_real *gamma) {
  fcd_index nn = 2 * n;
  fcd_real nk = dense_norm_inf(n, K), nm = dense_norm_inf(n, M), nc = dense_norm_inf(n, C);
  fcd_real g = nk > 0 && nm > 0 ? sqrt(nk / nm) : 1, den = nk + g * nc;
  fcd_real d = den > 0 ? 2 / den : 1;
  *gamma = g;
  for (fcd_index i = 0; i < n; i++) {
    A[i * nn + n + i] = 1;
    B[i * nn + i] = 1;
    for (fcd_index j = 0; j < n; j++) {
      A[(n + i) * nn + j] = -d * K[i * n + j];
      A[(n + i) * nn + n + j] = -g * d * C[i * n + j];
      B[(n + i) * nn + n + j] = g * g * d * M[i * n + j];
    }
  }
}

/* Largest backward error of the eigenpairs (lam, vec) of lambda^2 M + lambda C + K
 * (n x n dense, C may be NULL; Rayleigh: C = alpha M + beta K), row by row:
 *   eta_i = |[(lam^2 M + lam C + K) v]_i| / ((|lam|^2 |M_i| + |lam| |C_i| + |K_i|) |v|_inf)
 * with |A_i| the 1-norm of row i: the normwise backward error (Tisseur's) of the pencil
 * with its rows equilibrated, so that a sliding contact's row (mu times the others, mu
 * up to 1e20) cannot hide the error of the other rows as a plain normwise measure
 * would. (Componentwise, Oettli-Prager, is not what QZ guarantees: 5e-9 on the pin at
 * mu = 1e20 for pairs exact to 1e-16.) *norm receives |K|_inf. */
static fcd_real pep_backward_error(fcd_index n, const fcd_real *K, const fcd_real *M,
                                   const fcd_real *C, fcd_real ra, fcd_real rb,
                                   fcd_index cnt, const double complex *lam,
                                   const double complex *vec, fcd_real *norm) {
  *norm = dense_norm_inf(n, K);
  fcd_real worst = 0;
  for (fcd_index k = 0; k < cnt; k++) {
    const double complex *v = vec + k * n;
    double complex l = lam[k];
    fcd_real al = cabs(l), vmax = 0;
    for (fcd_index j = 0; j < n; j++) vmax = fmax(vmax, cabs(v[j]));
    for (fcd_index i = 0; i < n; i++) {
      double complex r = 0;
      fcd_real den = 0;
      for (fcd_index j = 0; j < n; j++) {
        fcd_real c = C ? C[i * n + j] : ra * M[i * n + j] + rb * K[i * n + j];
        r += (l * l * M[i * n + j] + l * c + K[i * n + j]) * v[j];
        den += (al * al * fabs(M[i * n + j]) + al * fabs(c) + fabs(K[i * n + j])) * vmax;
      }
      fcd_real e = den > 0 ? cabs(r) / den : (cabs(r) > 0 ? INFINITY : 0);
      if (!(e <= worst)) worst = e; /* NaN propagates */
    }
  }
  return worst;
}

/* (s A) v added to r and |s| |A| vmax to den, row by row (A may be upper-stored) */
static void csr_rows(const fcd__csr *A, double complex s, const double complex *v, fcd_real vmax,
                     double complex *r, fcd_real *den) {
  if (!A || !A->set) return;
  fcd_real as = cabs(s);
  for (fcd_index i = 0; i < A->n; i++)
    for (fcd_index e = A->rowptr[i]; e < A->rowptr[i + 1]; e++) {
      fcd_index j = A->col[e];
      fcd_real a = A->val[e];
      r[i] += s * a * v[j];
      den[i] += as * fabs(a) * vmax;
      if (A->upper && j != i) {
        r[j] += s * a * v[i];
        den[j] += as * fabs(a) * vmax;
      }
    }
}

/* The 3D sliding damping's rank-one terms coef_k bl_k br_k^T, gathered sparse once. */
typedef struct {
  fcd_index nk, *lp, *rp, *li, *ri;
  fcd_real *coef, *lv, *rv;
} slide_terms;

static void slide_terms_free(slide_terms *t) {
  fcd__free(t->lp);
  fcd__free(t->rp);
  fcd__free(t->li);
  fcd__free(t->ri);
  fcd__free(t->coef);
  fcd__free(t->lv);
  fcd__free(t->rv);
  memset(t, 0, sizeof *t);
}

/* 0 on success, -1 out of memory. Two passes (count, fill): the vectors come dense. */
static int slide_terms_build(const fcd_stability *st, const tmap *tn, const tmap *tm,
                             slide_terms *t) {
  memset(t, 0, sizeof *t);
  fcd_index nc = fcd__stab_nct(st), nr = tn->nred, nl = 0, nrr = 0;
  if (fcd__stab_cdim(st) != 3 || !st->rn || nc == 0) return 0;
  fcd_real *bl = fcd__calloc((size_t)nr + 1, sizeof *bl), *br = fcd__calloc((size_t)nr + 1, sizeof *br);
  t->lp = fcd__calloc((size_t)nc + 1, sizeof *t->lp);
  t->rp = fcd__calloc((size_t)nc + 1, sizeof *t->rp);
  t->coef = fcd__calloc((size_t)nc + 1, sizeof *t->coef);
  if (!bl || !br || !t->lp || !t->rp || !t->coef) goto nomem;
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 1) {
      t->li = fcd__malloc_array((size_t)nl + 1, sizeof *t->li);
      t->lv = fcd__malloc_array((size_t)nl + 1, sizeof *t->lv);
      t->ri = fcd__malloc_array((size_t)nrr + 1, sizeof *t->ri);
      t->rv = fcd__malloc_array((size_t)nrr + 1, sizeof *t->rv);
      if (!t->li || !t->lv || !t->ri || !t->rv) goto nomem;
      nl = nrr = 0;
    }
    for (fcd_index c = 0; c < nc; c++) {
      int nomem = 0;
      fcd_real coef = fcd__stab_sliding_vectors(st, tn, tm, c, bl, br, &nomem);
      if (nomem) goto nomem;
      if (coef == 0) continue;
      for (fcd_index i = 0; i < nr; i++) {
        if (bl[i] != 0) {
          if (pass) {
            t->li[nl] = i;
            t->lv[nl] = bl[i];
          }
          nl++;
        }
        if (br[i] != 0) {
          if (pass) {
            t->ri[nrr] = i;
            t->rv[nrr] = br[i];
          }
          nrr++;
        }
      }
      if (pass) {
        t->coef[t->nk++] = coef;
        t->lp[t->nk] = nl;
        t->rp[t->nk] = nrr;
      }
    }
  }
  fcd__free(bl);
  fcd__free(br);
  return 0;
nomem:
  fcd__free(bl);
  fcd__free(br);
  slide_terms_free(t);
  return -1;
}

/* pep_backward_error on the sparse reduced pencil: C* is the CSR C (may be unset), or
 * alpha M* + beta K* (Rayleigh; its row norm bounded by |alpha| |M_i| + |beta| |K_i|,
 * which can only lower the figure by that triangle inequality), plus the sliding terms.
 * NaN when out of memory. Only the pairs k with k % parts == part (a rank's share). */
static fcd_real pep_backward_error_csr(fcd_index n, const fcd__csr *K, const fcd__csr *M,
                                       const fcd__csr *C, fcd_real ra, fcd_real rb,
                                       const slide_terms *sl, fcd_index cnt,
                                       const double complex *lam, const double complex *vec,
                                       int part, int parts, fcd_real *norm) {
  double complex *r = fcd__malloc_array((size_t)n + 1, sizeof *r);
  fcd_real *den = fcd__malloc_array((size_t)n + 1, sizeof *den);
  if (!r || !den) {
    fcd__free(r);
    fcd__free(den);
    return NAN;
  }
  fcd_real nk = 0;
  for (fcd_index i = 0; K->set && i < n; i++) den[i] = 0;
  if (K->set)
    for (fcd_index i = 0; i < n; i++)
      for (fcd_index e = K->rowptr[i]; e < K->rowptr[i + 1]; e++) {
        den[i] += fabs(K->val[e]);
        if (K->upper && K->col[e] != i) den[K->col[e]] += fabs(K->val[e]);
      }
  for (fcd_index i = 0; K->set && i < n; i++) nk = fmax(nk, den[i]);
  *norm = nk;
  fcd_real worst = 0;
  for (fcd_index k = part; k < cnt; k += parts) {
    const double complex *v = vec + k * n;
    double complex l = lam[k];
    fcd_real vmax = 0;
    for (fcd_index j = 0; j < n; j++) {
      vmax = fmax(vmax, cabs(v[j]));
      r[j] = 0;
      den[j] = 0;
    }
    csr_rows(K, 1, v, vmax, r, den);
    csr_rows(M, l * l, v, vmax, r, den);
    if (C && C->set) csr_rows(C, l, v, vmax, r, den);
    else if (ra != 0 || rb != 0) {
      csr_rows(M, l * ra, v, vmax, r, den);
      csr_rows(K, l * rb, v, vmax, r, den);
    }
    for (fcd_index q = 0; sl && q < sl->nk; q++) {
      double complex s = 0;
      fcd_real b1 = 0;
      for (fcd_index e = sl->rp[q]; e < sl->rp[q + 1]; e++) {
        s += sl->rv[e] * v[sl->ri[e]];
        b1 += fabs(sl->rv[e]);
      }
      for (fcd_index e = sl->lp[q]; e < sl->lp[q + 1]; e++) {
        r[sl->li[e]] += l * sl->coef[q] * sl->lv[e] * s;
        den[sl->li[e]] += cabs(l) * fabs(sl->coef[q] * sl->lv[e]) * b1 * vmax;
      }
    }
    for (fcd_index i = 0; i < n; i++) {
      fcd_real e = den[i] > 0 ? cabs(r[i]) / den[i] : (cabs(r[i]) > 0 ? INFINITY : 0);
      if (!(e <= worst)) worst = e;
    }
  }
  fcd__free(r);
  fcd__free(den);
  return worst;
}



/* The status and message of a dense eigen-solve that returned no pairs (dense_ggev's
 * codes): what makes a pencil not finite is named (friction coefficients times a row). */
static fcd_status ggev_failure(fcd_stability *st, fcd_index rc, fcd_index n, const char *what) {
  fcd_system *sys = st->sys;
  if (rc == -2) return fcd__err(sys, FCD_E_NOMEM, "out of memory in the dense eigensolver");
  if (rc == -3) {
    fcd_real mu = 0;
    for (fcd_index c = 0; st->cs && c < st->cs->n; c++) mu = fmax(mu, fcd__stab_mu(st, c));
    return fcd__err(sys, FCD_E_INVALID_ARG, "the %lld-dof %s pencil has entries that are "
                    "not finite (the largest friction coefficient, %g, times a row of K or M "
                    "overflows, or the matrices hold Inf): no eigenvalues", (long long)n,
                    what, mu);
  }
  if (rc == -4)
    return fcd__err(sys, FCD_E_BACKEND, "LAPACK's QZ returned eigenvalues or vectors that "
                    "are not finite, or a complex pair without its conjugate, on the %lld-dof "
                    "%s pencil: no eigenvalues", (long long)n, what);
  return fcd__err(sys, FCD_E_BACKEND, "LAPACK dggev failed on the %lld-dof %s pencil",
                  (long long)n, what);
}

/* The eigenpairs of the dense reduced pencil, balanced or not, and their worst backward
 * error (*berr, relative to *bnorm). Undamped or Rayleigh: QZ on (K*, M*), each Lambda
 * giving its two lambda; otherwise QZ on the companion form. *out_lam and *out_vec are
 * allocated here (nraw pairs, nr-long vectors). -2 out of memory, -1 LAPACK failed. */
static int dense_pairs(const fcd_system *sys, fcd_index nr, const fcd_real *Kr,
                       const fcd_real *Mr, const fcd_real *Cr, int rayleigh, int balance,
                       double complex **out_lam, double complex **out_vec, fcd_index *nraw,
                       fcd_index *ninf, fcd_real *berr, fcd_real *bnorm) {
  int damped = Cr != NULL;
  fcd_index nn = damped ? 2 * nr : nr, nl;
  fcd_real *A = fcd__calloc((size_t)nn * (size_t)nn + 1, sizeof *A);
  fcd_real *B = fcd__calloc((size_t)nn * (size_t)nn + 1, sizeof *B);
  double complex *lam = fcd__malloc_array((size_t)nn + 1, sizeof *lam);
  double complex *vec = fcd__malloc_array((size_t)nn * (size_t)nn + 1, sizeof *vec);
  double complex *l2 = NULL, *v2 = NULL;
  int rc = 0;
  *out_lam = NULL;
  *out_vec = NULL;
  if (!A || !B || !lam || !vec) {
    rc = -2;
    goto done;
  }
  fcd_real gamma = 1;
  if (damped) {
    companion(nr, Kr, Cr, Mr, A, B, &gamma);
  } else {
    memcpy(A, Kr, (size_t)nr * (size_t)nr * sizeof *A);
    memcpy(B, Mr, (size_t)nr * (size_t)nr * sizeof *B);
  }
  nl = dense_ggev(nn, A, B, lam, vec, ninf, balance);
  if (nl < 0) {
    rc = (int)nl;
    goto done;
  }
  if (damped) {
    /* keep the displacement half of each vector; mu back to lambda */
    for (fcd_index k = 0; k < nl; k++) {
      memmove(vec + k * nr, vec + k * nn, (size_t)nr * sizeof *vec);
      lam[k] *= gamma;
    }
    *berr = pep_backward_error(nr, Kr, Mr, Cr, 0, 0, nl, lam, vec, bnorm);
    *out_lam = lam;
    *out_vec = vec;
    *nraw = nl;
    lam = vec = NULL;
    goto done;
  }
  /* An infinite Lambda (M* v = 0, K* v != 0) is a pair of infinite lambda without
   * damping; with Rayleigh damping lambda^2 M* v + lambda (a M* + b K*) v + K* v =
   * (lambda b + 1) K* v vanishes at the finite lambda = -1 / b, a first-order mode of
   * the stiffness-proportional dashpot, and only its other root is infinite */
  fcd_index linf = *ninf, nfin = rayleigh && sys->ray_beta != 0 ? linf : 0;
  *ninf = 2 * linf - nfin;
  /* lambda = +- sqrt(-Lambda) */
  l2 = fcd__malloc_array((size_t)(2 * nl + nfin) + 1, sizeof *l2);
  v2 = fcd__malloc_array((size_t)((2 * nl + nfin) * nr) + 1, sizeof *v2);
  if (!l2 || !v2) {
    rc = -2;
    goto done;
  }
  for (fcd_index k = 0; k < nl; k++) {
    if (rayleigh) {
      double complex b = sys->ray_alpha + sys->ray_beta * lam[k];
      double complex disc = csqrt(b * b - 4 * lam[k]);
      l2[2 * k] = (-b + disc) / 2;
      l2[2 * k + 1] = (-b - disc) / 2;
    } else {
      double complex r = csqrt(-lam[k]);
      l2[2 * k] = r;
      l2[2 * k + 1] = -r;
    }
    memcpy(v2 + 2 * k * nr, vec + k * nr, (size_t)nr * sizeof *v2);
    memcpy(v2 + (2 * k + 1) * nr, vec + k * nr, (size_t)nr * sizeof *v2);
  }
  for (fcd_index j = 0; j < nfin; j++) {
    l2[2 * nl + j] = -1 / sys->ray_beta;
    memcpy(v2 + (2 * nl + j) * nr, vec + (nr - 1 - j) * nr, (size_t)nr * sizeof *v2);
  }
  nl = 2 * nl + nfin;
  *berr = pep_backward_error(nr, Kr, Mr, NULL, rayleigh ? sys->ray_alpha : 0,
                             rayleigh ? sys->ray_beta : 0, nl, l2, v2, bnorm);
  *out_lam = l2;
  *out_vec = v2;
  *nraw = nl;
  l2 = v2 = NULL;
done:
  fcd__free(A);
  fcd__free(B);
  fcd__free(lam);
  fcd__free(vec);
  fcd__free(l2);
  fcd__free(v2);
  return rc;
}

static fcd_status solve_dense(fcd_stability *st, const fcd__free_pattern *fp, const tmap *tn,
                              const tmap *tm, int damped) {
  fcd_system *sys = st->sys;
  /* Rayleigh damping alone (C* = alpha M* + beta K*, the same reduction of each matrix)
   * keeps the eigenvectors of the undamped pencil: each Lambda gives its two lambda by
   * lambda^2 + (alpha + beta Lambda) lambda + Lambda = 0, exactly, at an eighth of the
   * cost of the companion form */
  int rayleigh = damped && (!sys->mat[FCD_DAMPING].set || sys->cband_only) &&
                 !(fcd__stab_cdim(st) == 3 && st->rn);
  if (rayleigh) damped = 0;
  fcd_index nr = tn->nred;
  fcd_real *val = fcd__malloc_array((size_t)fp->nnz + 1, sizeof *val);
  fcd_real *Kr = fcd__malloc_array((size_t)nr * (size_t)nr + 1, sizeof *Kr);
  fcd_real *Mr = fcd__malloc_array((size_t)nr * (size_t)nr + 1, sizeof *Mr);
  fcd_real *Cr = damped ? fcd__malloc_array((size_t)nr * (size_t)nr + 1, sizeof *Cr) : NULL;
  double complex *lam = NULL, *vec = NULL;
  fcd_status status = FCD_OK;
  if (!val || !Kr || !Mr || (damped && !Cr)) goto nomem;
  if ((status = fcd__system_combination_eig(sys, 0, 0, 1, val)) != FCD_OK) goto done;
  fcd__stab_reduce_dense(fp, val, tn, tm, Kr);
  if ((status = fcd__system_combination_eig(sys, 1, 0, 0, val)) != FCD_OK) goto done;
  fcd__stab_reduce_dense(fp, val, tn, tm, Mr);
  if (damped) {
    if ((status = fcd__system_combination_eig(sys, 0, 1, 0, val)) != FCD_OK) goto done;
    fcd__stab_reduce_dense(fp, val, tn, tm, Cr);
    if (fcd__stab_add_sliding_damping(st, tn, tm, Cr)) goto nomem;
  }
  int sym_nomem = 0;
  st->min_sym = min_sym_eig(nr, Kr, &sym_nomem);
  if (sym_nomem) goto nomem;
  st->necessary = !(st->min_sym > 0);
  /* balanced QZ first; a pencil whose entries span many orders of magnitude for no
   * reason (round-off weights from a host's rows) can make the balancing itself the
   * error: then the unbalanced QZ, and the better certified of the two */
  fcd_index cnt = 0, ninf = 0;
  for (int balance = 1; balance >= 0; balance--) {
    double complex *l = NULL, *v = NULL;
    fcd_index c = 0, ni = 0;
    fcd_real be = NAN, bn = 0;
    int rc = dense_pairs(sys, nr, Kr, Mr, Cr, rayleigh, balance, &l, &v, &c, &ni, &be, &bn);
    if (rc == -2) goto nomem;
    if (rc < 0) {
      if (lam && rc != -3) break; /* keep the balanced pairs */
      fcd__free(lam);
      fcd__free(vec);
      lam = vec = NULL;
      status = ggev_failure(st, rc, nr, damped ? "companion" : "reduced");
      goto done;
    }
    if (!lam || !(st->berr <= be)) {
      fcd__free(lam);
      fcd__free(vec);
      lam = l;
      vec = v;
      cnt = c;
      ninf = ni;
      st->berr = be;
      st->bnorm = bn;
    } else {
      fcd__free(l);
      fcd__free(v);
    }
    if (st->berr <= fcd__stab_bound(st)) break;
  }
  status = store(st, tn, cnt, lam, vec);
  if (status == FCD_OK) st->ninf = ninf;
  /* QZ is backward stable for the pencil it is given; the row-wise measure of the
   * quadratic can still exceed 1e-8 on a badly scaled pencil (dense modal rows beside
   * physical ones), and then the user, told the figure, decides */
  st->btol = fcd__stab_bound(st);
  if (status == FCD_OK && !(st->berr <= st->btol))
    status = fcd__err(sys, FCD_E_NOT_CONVERGED, "dense eigen-solve: an eigenpair has a "
                      "backward error of %.3e (bound %.0e = max(1e-8, 100 x "
                      "FCD_STAB_TOLERANCE), relative to |K*| = %.3e): set FCD_STAB_TOLERANCE "
                      "(fcd stability --tol) to %.0e or more to accept pairs of this "
                      "accuracy; %s", st->berr, st->btol, st->bnorm, st->berr / 100,
                      fcd__stab_kept(st));
  goto done;
nomem:
  status = fcd__err(sys, FCD_E_NOMEM, "out of memory in the dense eigen-solve");
done:
  fcd__free(val);
  fcd__free(Kr);
  fcd__free(Mr);
  fcd__free(Cr);
  fcd__free(lam);
  fcd__free(vec);
  return status;
}

/* Modal projection for a large damped problem whose shift would have to be complex:
 * the undamped pencil's eigenvectors nearest the target (real shift) span a basis P
 * (real and imaginary parts, orthonormalized), and the damped quadratic problem
 * P^T (lambda^2 M* + lambda C* + K*) P y = 0 is solved densely (companion form). */
/* The projection basis P (nr x m, returned m): the real and imaginary parts of the got
 * eigenvectors (xr, xi), orthonormalized by modified Gram-Schmidt twice, near-dependent
 * vectors dropped. */
static fcd_index modal_basis(fcd_index nr, fcd_index got, const fcd_real *xr, const fcd_real *xi,
                             fcd_real *P) {
  fcd_index m = 0;
  for (fcd_index k = 0; k < 2 * got; k++) {
    const fcd_real *src = k % 2 ? xi + (k / 2) * nr : xr + (k / 2) * nr;
    fcd_real *q = P + m * nr, n0 = 0, n1 = 0;
    for (fcd_index i = 0; i < nr; i++) {
      q[i] = src[i];
      n0 += q[i] * q[i];
    }
    if (!(n0 > 0)) continue;
    for (int pass = 0; pass < 2; pass++)
      for (fcd_index j = 0; j < m; j++) {
        const fcd_real *pj = P + j * nr;
        fcd_real d = 0;
        for (fcd_index i = 0; i < nr; i++) d += pj[i] * q[i];
        for (fcd_index i = 0; i < nr; i++) q[i] -= d * pj[i];
      }
    for (fcd_index i = 0; i < nr; i++) n1 += q[i] * q[i];
    if (n1 <= 1e-16 * n0) continue;
    n1 = 1 / sqrt(n1);
    for (fcd_index i = 0; i < nr; i++) q[i] *= n1;
    m++;
  }
  return m;
}

/* Kp, Mp, Cp = P^T {K, M, C} P (m x m, zeroed by the caller; an unset operator leaves
 * its projection zero), and the 3D sliding damping, rank one per slipping contact:
 * Cp += coef (P^T bl)(br^T P). bl, br: nr-long work. 0, or -1 out of memory. */
static int projected_pencil(fcd_stability *st, const tmap *tn, const tmap *tm,
                            const fcd__csr *Kr, const fcd__csr *Mr, const fcd__csr *Cr,
                            const fcd_real *P, fcd_index m, fcd_real *y, fcd_real *bl,
                            fcd_real *br, fcd_real *Kp, fcd_real *Mp, fcd_real *Cp) {
  fcd_index nr = tn->nred, nc = fcd__stab_nct(st);
  const fcd__csr *ops[3] = {Kr, Mr, Cr};
  fcd_real *outs[3] = {Kp, Mp, Cp};
  for (int o = 0; o < 3; o++)
    if (ops[o] && ops[o]->set) fcd__csr_project(ops[o], m, P, y, outs[o]);
  for (fcd_index c = 0; c < nc; c++) {
    int nomem = 0;
    fcd_real coef = fcd__stab_sliding_vectors(st, tn, tm, c, bl, br, &nomem);
    if (nomem) return -1;
    if (coef == 0) continue;
    fcd_real *pl = fcd__malloc_array((size_t)(2 * m), sizeof *pl), *pr = pl ? pl + m : NULL;
    if (!pl) return -1;
    for (fcd_index i = 0; i < m; i++) {
      const fcd_real *pi = P + i * nr;
      fcd_real a = 0, b = 0;
      for (fcd_index k = 0; k < nr; k++) {
        a += pi[k] * bl[k];
        b += pi[k] * br[k];
      }
      pl[i] = a;
      pr[i] = b;
    }
    for (fcd_index i = 0; i < m; i++)
      for (fcd_index j = 0; j < m; j++) Cp[i * m + j] += coef * pl[i] * pr[j];
    fcd__free(pl);
  }
  return 0;
}

/* the want of the nl projected pairs (lam, vec: nn-long vectors whose first m entries
 * are the basis coefficients) nearest +-i w, each once (used: nl flags, zeroed), lifted
 * back through the basis P (m vectors of nr) into sel and svec */
static void nearest_lifted(fcd_index nl, const double complex *lam, const double complex *vec,
                           fcd_index nn, fcd_index nr, const fcd_real *P, fcd_index m,
                           fcd_real w, fcd_index want, unsigned char *used,
                           double complex *sel, double complex *svec) {
  for (fcd_index k = 0; k < want; k++) {
    fcd_index best = -1;
    fcd_real bd = INFINITY;
    for (fcd_index q = 0; q < nl; q++) {
      if (used[q]) continue;
      fcd_real d = fmin(cabs(lam[q] - I * w), cabs(lam[q] + I * w));
      if (d < bd) {
        bd = d;
        best = q;
      }
    }
    used[best] = 1;
    sel[k] = lam[best];
    for (fcd_index i = 0; i < nr; i++) {
      double complex s = 0;
      for (fcd_index j = 0; j < m; j++) s += P[j * nr + i] * vec[best * nn + j];
      svec[k * nr + i] = s;
    }
  }
}

/* The figure of a modal projection's pairs (sel, svec: want of them) on the reduced
 * quadratic with its sliding terms, reported and never checked (btol = +inf: a partial
 * basis is an approximation). 0, or -1 out of memory. */
static int projected_certificate(fcd_stability *st, const tmap *tn, const tmap *tm,
                                 const fcd__csr *Kr, const fcd__csr *Mr, const fcd__csr *Cr,
                                 fcd_index want, const double complex *sel,
                                 const double complex *svec) {
  slide_terms sl;
  if (slide_terms_build(st, tn, tm, &sl) != 0) return -1;
  st->berr = pep_backward_error_csr(tn->nred, Kr, Mr, Cr, 0, 0, &sl, want, sel, svec, 0, 1,
                                    &st->bnorm);
  slide_terms_free(&sl);
  if (isnan(st->berr)) return -1;
  st->btol = INFINITY;
  return 0;
}

static fcd_status solve_projected(fcd_stability *st, const tmap *tn, const tmap *tm,
                                  const fcd__csr *Kr, const fcd__csr *Mr, const fcd__csr *Cr,
                                  fcd_index nev) {
  fcd_system *sys = st->sys;
  fcd_index nr = tn->nred;
  fcd_index nb = st->proj_modes > 0 ? st->proj_modes : (2 * nev > nev + 20 ? 2 * nev : nev + 20);
  if (nb > nr) nb = nr;
  fcd_real w = 2 * 3.14159265358979323846 * st->target_hz;
  fcd_real *lre = fcd__malloc_array((size_t)nb + 1, sizeof *lre);
  fcd_real *lim = fcd__malloc_array((size_t)nb + 1, sizeof *lim);
  fcd_real *xr = fcd__malloc_array((size_t)(nb * nr) + 1, sizeof *xr);
  fcd_real *xi = fcd__malloc_array((size_t)(nb * nr) + 1, sizeof *xi);
  fcd_real *P = fcd__malloc_array((size_t)(2 * nb * nr) + 1, sizeof *P);
  fcd_real *y = fcd__malloc_array((size_t)nr + 1, sizeof *y);
  fcd_real *A = NULL, *B = NULL, *Kp = NULL, *Mp = NULL, *Cp = NULL, *bl = NULL, *br = NULL;
  double complex *lam = NULL, *vec = NULL, *sel = NULL, *svec = NULL;
  fcd_status status = FCD_OK;
  fcd_index got = 0, m = 0;
  fcd_real reached = 0;
  if (!lre || !lim || !xr || !xi || !P || !y) goto nomem;
  status = fcd__slepc_gen_nonsym(sys, &st->seam, nr, Kr, Mr, w * w, nb, st->tol, st->max_it,
                                 lre, lim, xr, xi, &got, &reached, NULL);
  if (status != FCD_OK) goto done;
  m = modal_basis(nr, got, xr, xi, P);
  if (m == 0) {
    status = fcd__err(sys, FCD_E_NOT_CONVERGED, "modal projection: no undamped eigenvector "
                      "converged near %g Hz to %g in %lld iterations (error estimate "
                      "reached %.3e); %s", st->target_hz, st->tol,
                      (long long)st->max_it, reached, fcd__stab_kept(st));
    goto done;
  }
  Kp = fcd__calloc((size_t)(m * m), sizeof *Kp);
  Mp = fcd__calloc((size_t)(m * m), sizeof *Mp);
  Cp = fcd__calloc((size_t)(m * m), sizeof *Cp);
  bl = fcd__malloc_array((size_t)nr + 1, sizeof *bl);
  br = fcd__malloc_array((size_t)nr + 1, sizeof *br);
  if (!Kp || !Mp || !Cp || !bl || !br) goto nomem;
  if (projected_pencil(st, tn, tm, Kr, Mr, Cr, P, m, y, bl, br, Kp, Mp, Cp) != 0) goto nomem;
  fcd_index nn = 2 * m;
  A = fcd__calloc((size_t)(nn * nn), sizeof *A);
  B = fcd__calloc((size_t)(nn * nn), sizeof *B);
  lam = fcd__malloc_array((size_t)nn + 1, sizeof *lam);
  vec = fcd__malloc_array((size_t)(nn * nn) + 1, sizeof *vec);
  if (!A || !B || !lam || !vec) goto nomem;
  fcd_real gamma = 1;
  companion(m, Kp, Cp, Mp, A, B, &gamma);
  fcd_index pinf = 0;
  /* unbalanced: the projected problem is well scaled by construction (orthonormal
   * basis), and Ward's scaling was measured to lose its eigenvalues to spurious
   * infinite ones on the 2-dof sliding-damping case */
  fcd_index nl = dense_ggev(nn, A, B, lam, vec, &pinf, 0);
  for (fcd_index k = 0; k < nl; k++) lam[k] *= gamma;
  st->ninf = pinf;
  if (nl < 0) {
    status = ggev_failure(st, nl, m, "projected");
    goto done;
  }
  /* the 2 nev nearest +-i w, lifted back through the basis */
  fcd_index want = 2 * nev < nl ? 2 * nev : nl;
  sel = fcd__malloc_array((size_t)want + 1, sizeof *sel);
  svec = fcd__malloc_array((size_t)(want * nr) + 1, sizeof *svec);
  unsigned char *used = fcd__calloc((size_t)nl + 1, 1);
  if (!sel || !svec || !used) {
    fcd__free(used);
    goto nomem;
  }
  nearest_lifted(nl, lam, vec, nn, nr, P, m, w, want, used, sel, svec);
  fcd__free(used);
  if (projected_certificate(st, tn, tm, Kr, Mr, Cr, want, sel, svec) != 0) goto nomem;
  status = store(st, tn, want, sel, svec);
  if (status == FCD_OK)
    fcd__err(sys, FCD_OK, "damped eigenvalues by modal projection on %lld undamped modes "
             "near %g Hz (%lld basis vectors)", (long long)got, st->target_hz, (long long)m);
  goto done;
nomem:
  status = fcd__err(sys, FCD_E_NOMEM, "out of memory in the modal projection");
done:
  fcd__free(lre);
  fcd__free(lim);
  fcd__free(xr);
  fcd__free(xi);
  fcd__free(P);
  fcd__free(y);
  fcd__free(A);
  fcd__free(B);
  fcd__free(Kp);
  fcd__free(Mp);
  fcd__free(Cp);
  fcd__free(bl);
  fcd__free(br);
  fcd__free(lam);
  fcd__free(vec);
  fcd__free(sel);
  fcd__free(svec);
  return status;
}

/* the necessary condition: the symmetric part of K* positive definite? (CHOLMOD on it,
 * with the shifted LU's pivot order when there is one: K* - sigma M* has K*'s pattern
 * and its symmetric part's, and CHOLMOD's own search for an order, AMD then METIS, took
 * 0.52 of the condition's 2.2 s at 102,675 dofs, on rank 0 while the others waited) */
static fcd_status necessary_condition(fcd_system *sys, const fcd__csr *Kr,
                                      const fcd_index *order, int *pd) {
  fcd__csr S;
  *pd = 0;
  FCD_TRY(fcd__csr_symmetric_part(sys, Kr, &S));
  fcd_status status = order && order[0] >= 0 ? fcd__chol_is_pd_ordered(sys, &S, order, pd)
                                             : fcd__chol_is_pd(sys, &S, pd);
  fcd__csr_clear(&S);
  return status;
}

/* The ranks' parts of a solve's certificate and rank 0's necessary condition, in one
 * exchange (collective): *berr becomes the worst part (NaN, out of memory, when any is),
 * *pd rank 0's verdict; rank 0's status mine fails every rank. One reduction by maximum:
 * a NaN flag, the parts' figures, and rank 0's values, which the others' -1 never beat. */
static fcd_status certificate_share(fcd_system *sys, const fcd__eigseam *seam, int part,
                                    fcd_status mine, fcd_real *berr, int *pd) {
  fcd_real v[4] = {isnan(*berr) ? 1 : 0, isnan(*berr) ? -INFINITY : *berr,
                   part == 0 ? (mine == FCD_OK) : -1, part == 0 ? *pd : -1};
  FCD_TRY(fcd__eigseam_worst(sys, seam, v, 4));
  *berr = v[0] > 0 ? NAN : v[1];
  if (!(v[2] > 0))
    return part == 0 && mine != FCD_OK
               ? mine
               : fcd__err(sys, FCD_E_BACKEND, "the necessary condition (CHOLMOD on the "
                          "symmetric part of K*) failed on rank 0");
  *pd = (int)v[3];
  return FCD_OK;
}

/* The global estimate beside the sparse window, when asked for: its failure is not the
 * solve's (the reason is kept for fcd_stability_get_estimate, the message untouched).
 * The basis: the lowest modes of the frictionless reduced pencil T^T {K, M} T (the trial
 * space on both sides, symmetric positive definite for a held structure), the modal
 * basis of commercial complex-eigenvalue analyses. The symmetric part of K* itself was
 * tried first: where it is indefinite (necessary_divergence), its lowest modes carried
 * that indefiniteness into the projection, and 20 to 100 of them reported divergences of
 * 296 to 146 1/s on a 507-dof block whose whole spectrum's largest is a flutter at 45.8. */
static void estimate(fcd_stability *st, const fcd__free_pattern *fp, const tmap *tn,
                     const fcd__csr *Kr, const fcd__csr *Mr) {
  if (st->est_modes <= 0) return;
  if (st->seam.shared) {
    snprintf(st->est_why, sizeof st->est_why, "no estimate on a communicator");
    return;
  }
  fcd_system *sys = st->sys;
  char saved[FCD_ERRMSG_CAP];
  memcpy(saved, sys->h.err, sizeof saved);
  fcd__csr K0, M0;
  memset(&K0, 0, sizeof K0);
  memset(&M0, 0, sizeof M0);
  fcd_real *val = fcd__malloc_array((size_t)fp->nnz + 1, sizeof *val);
  fcd_status e = val ? FCD_OK : fcd__err(sys, FCD_E_NOMEM, "out of memory");
  if (e == FCD_OK) e = fcd__system_combination_eig(sys, 0, 0, 1, val);
  if (e == FCD_OK) e = fcd__stab_reduce_csr(sys, fp, val, tn, tn, &K0);
  if (e == FCD_OK) e = fcd__system_combination_eig(sys, 1, 0, 0, val);
  if (e == FCD_OK) e = fcd__stab_reduce_csr(sys, fp, val, tn, tn, &M0);
  if (e == FCD_OK)
    e = fcd__stability_estimate(sys, &K0, &M0, Kr, Mr, st->est_modes, &st->est_re,
                                &st->est_im, &st->est_band, &st->est_used);
  fcd__free(val);
  fcd__csr_clear(&K0);
  fcd__csr_clear(&M0);
  if (e == FCD_OK) {
    st->est_fresh = 1;
  } else {
    snprintf(st->est_why, sizeof st->est_why, "the estimate failed: %.150s", sys->h.err);
    memcpy(sys->h.err, saved, sizeof saved);
  }
}

/* One sparse eigen-solve's working set: the reduced operators, what SLEPc returns and
 * the pairs in lambda (a generalized eigenvalue Lambda = -lambda^2 gives two). */
typedef struct {
  fcd__csr Kr, Mr, Cr;
  fcd_index nr, nev, got, cnt;
  fcd_real reached;
  fcd_real *val, *lre, *lim, *xr, *xi;
  double complex *lam, *vec;
  fcd_index *order; /* the shifted LU's order for rank 0's necessary condition, or NULL */
  const struct eig_row *row; /* the path's row of the table (below) */
  int damped, part, parts;
} sparse_run;

/* A row of the table of eigen-paths: its own operations. A sparse row's solve is
 * solve_sparse's phases around its eigs (and its pairs); quadratic rows reduce C* too and
 * their eigenvalues are the pairs' own, a pencil's give two pairs each (lambdas); a row
 * that stores its own pairs (the projection) certifies them itself. */
/* what a path is asked to solve: nr reduced dofs, and whether the problem is quadratic
 * (general damping or 3D sliding damping) */
typedef struct {
  fcd_index nr;
  int damped, quadratic, sliding3d;
} eig_problem;

typedef struct eig_row {
  const char *name, *summary; /* the registry's (FCD_FAMILY_EIGEN_PATH) */
  /* NULL when the path solves the problem; else why not, for the message (in buf when
   * it has figures) */
  const char *(*misfit)(const fcd_stability *st, const eig_problem *p, char *buf, size_t cap);
  fcd_status (*solve)(fcd_stability *st, const struct eig_row *row,
                      const fcd__free_pattern *fp, const tmap *tn, const tmap *tm, int damped);
  fcd_status (*eigs)(fcd_stability *st, const tmap *tn, const tmap *tm, sparse_run *r);
  void (*lambdas)(const fcd_stability *st, sparse_run *r);
  int quadratic;   /* C* reduced; the problem lambda^2 M + lambda C + K */
  int stores_own;  /* the eigs stored and certified the pairs */
  int shares;      /* the necessary condition and the certificate shared over the ranks of
                    * the host's communicator */
} eig_row;

/* The work arrays of a sparse path and the reduced K*, M* (and C* for the quadratic
 * problem and the projection). */
static fcd_status sparse_begin(fcd_stability *st, const eig_row *row,
                               const fcd__free_pattern *fp, const tmap *tn, const tmap *tm,
                               int damped, sparse_run *r) {
  fcd_system *sys = st->sys;
  memset(r, 0, sizeof *r);
  r->nr = tn->nred;
  r->damped = damped;
  r->row = row;
  r->parts = 1;
  r->nev = st->nev < r->nr ? st->nev : r->nr;
  fcd_index nev = r->nev, nr = r->nr;
  r->val = fcd__malloc_array((size_t)fp->nnz + 1, sizeof *r->val);
  r->lre = fcd__malloc_array((size_t)nev + 1, sizeof *r->lre);
  r->lim = fcd__malloc_array((size_t)nev + 1, sizeof *r->lim);
  r->xr = fcd__malloc_array((size_t)(nev * nr) + 1, sizeof *r->xr);
  r->xi = fcd__malloc_array((size_t)(nev * nr) + 1, sizeof *r->xi);
  r->lam = fcd__malloc_array((size_t)(2 * nev) + 1, sizeof *r->lam);
  r->vec = fcd__malloc_array((size_t)(2 * nev * nr) + 1, sizeof *r->vec);
  if (row->shares) FCD_TRY(fcd__eigseam_part(sys, &st->seam, &r->part, &r->parts));
  if (st->seam.shared && !row->quadratic && r->part == 0) {
    r->order = fcd__malloc_array((size_t)nr + 1, sizeof *r->order);
    if (r->order) r->order[0] = -1;
  }
  if (!r->val || !r->lre || !r->lim || !r->xr || !r->xi || !r->lam || !r->vec)
    return fcd__err(sys, FCD_E_NOMEM, "out of memory in the sparse eigen-solve");
  FCD_TRY(fcd__system_combination_eig(sys, 0, 0, 1, r->val));
  FCD_TRY(fcd__stab_reduce_csr(sys, fp, r->val, tn, tm, &r->Kr));
  FCD_TRY(fcd__system_combination_eig(sys, 1, 0, 0, r->val));
  FCD_TRY(fcd__stab_reduce_csr(sys, fp, r->val, tn, tm, &r->Mr));
  if (row->quadratic) {
    FCD_TRY(fcd__system_combination_eig(sys, 0, 1, 0, r->val));
    FCD_TRY(fcd__stab_reduce_csr(sys, fp, r->val, tn, tm, &r->Cr));
  }
  return FCD_OK;
}

/* none converged: a failure naming the figures */
static fcd_status eigs_converged(fcd_stability *st, const sparse_run *r) {
  if (r->got > 0) return FCD_OK;
  return fcd__err(st->sys, FCD_E_NOT_CONVERGED, "no eigenvalue converged to %g in %lld "
                  "iterations (error estimate reached %.3e); %s", st->tol,
                  (long long)st->max_it, r->reached, fcd__stab_kept(st));
}

/* PENCIL: the generalized problem (K*, M*) at -(2 pi target_hz)^2 */
static fcd_status pencil_eigs(fcd_stability *st, const tmap *tn, const tmap *tm,
                              sparse_run *r) {
  (void)tn, (void)tm;
  fcd_real w = 2 * 3.14159265358979323846 * st->target_hz;
  FCD_TRY(fcd__slepc_gen_nonsym(st->sys, &st->seam, r->nr, &r->Kr, &r->Mr, w * w, r->nev,
                                st->tol, st->max_it, r->lre, r->lim, r->xr, r->xi, &r->got,
                                &r->reached, r->order));
  return eigs_converged(st, r);
}

/* PEP: the quadratic problem at a real shift (0) */
static fcd_status pep_eigs(fcd_stability *st, const tmap *tn, const tmap *tm, sparse_run *r) {
  (void)tn, (void)tm;
  FCD_TRY(fcd__slepc_pep(st->sys, &st->seam, r->nr, &r->Kr, &r->Cr, &r->Mr, 0.0, r->nev,
                         st->tol, st->max_it, r->lre, r->lim, r->xr, r->xi, &r->got,
                         &r->reached));
  return eigs_converged(st, r);
}

/* PROJECTED: the modal projection, which stores and certifies its own pairs */
static fcd_status projected_eigs(fcd_stability *st, const tmap *tn, const tmap *tm,
                                 sparse_run *r) {
  return solve_projected(st, tn, tm, &r->Kr, &r->Mr, &r->Cr, r->nev);
}

static int rayleigh_damped(const fcd_stability *st, const sparse_run *r) {
  return r->damped && !r->row->quadratic &&
         (st->sys->ray_alpha != 0 || st->sys->ray_beta != 0);
}

/* the pairs of a pencil's eigenvalues Lambda, each lambda^2 = -Lambda (undamped) or the
 * roots of lambda^2 + (alpha + beta Lambda) lambda + Lambda = 0 under C* = alpha M* +
 * beta K*, both roots sharing the vector */
static void pencil_lambdas(const fcd_stability *st, sparse_run *r) {
  fcd_index nr = r->nr, cnt = 0;
  for (fcd_index k = 0; k < r->got; k++) {
    double complex L = r->lre[k] + I * r->lim[k];
    double complex *v = r->vec + cnt * nr;
    for (fcd_index i = 0; i < nr; i++) v[i] = r->xr[k * nr + i] + I * r->xi[k * nr + i];
    if (rayleigh_damped(st, r)) {
      double complex b = st->sys->ray_alpha + st->sys->ray_beta * L;
      double complex disc = csqrt(b * b - 4 * L);
      r->lam[cnt] = (-b + disc) / 2;
      r->lam[cnt + 1] = (-b - disc) / 2;
    } else {
      double complex sq = csqrt(-L);
      r->lam[cnt] = sq;
      r->lam[cnt + 1] = -sq;
    }
    memcpy(r->vec + (cnt + 1) * nr, v, (size_t)nr * sizeof *r->vec);
    cnt += 2;
  }
  r->cnt = cnt;
}

/* the quadratic problem's eigenvalues are the pairs' own */
static void pep_lambdas(const fcd_stability *st, sparse_run *r) {
  (void)st;
  fcd_index nr = r->nr;
  for (fcd_index k = 0; k < r->got; k++) {
    r->lam[k] = r->lre[k] + I * r->lim[k];
    for (fcd_index i = 0; i < nr; i++)
      r->vec[k * nr + i] = r->xr[k * nr + i] + I * r->xi[k * nr + i];
  }
  r->cnt = r->got;
}

/* The pairs' largest backward error against its bound, with the necessary condition
 * (rank 0's, nstatus and *pd) shared on a communicator: every rank holds every pair, and
 * ranks 1 .. parts - 1 certify a share each (at 303k dofs the certificate of 40 pairs is
 * seconds, which every rank spent alike) while rank 0 decides the necessary condition */
static fcd_status sparse_certify(fcd_stability *st, sparse_run *r, fcd_status nstatus,
                                 int *pd) {
  fcd_system *sys = st->sys;
  int ray = rayleigh_damped(st, r), part = r->part, parts = r->parts;
  int cpart = parts == 1 ? 0 : part == 0 ? (int)r->cnt : part - 1;
  int cparts = parts == 1 ? 1 : part == 0 ? 1 : parts - 1;
  st->berr = pep_backward_error_csr(r->nr, &r->Kr, &r->Mr, r->row->quadratic ? &r->Cr : NULL,
                                    ray ? sys->ray_alpha : 0, ray ? sys->ray_beta : 0, NULL,
                                    r->cnt, r->lam, r->vec, cpart, cparts, &st->bnorm);
  if (parts > 1) {
    FCD_TRY(certificate_share(sys, &st->seam, part, nstatus, &st->berr, pd));
    st->necessary = !*pd;
  }
  if (isnan(st->berr))
    return fcd__err(sys, FCD_E_NOMEM, "out of memory in the eigenpairs' certificate");
  st->btol = fcd__stab_bound(st);
  if (!(st->berr <= st->btol))
    return fcd__err(sys, FCD_E_NOT_CONVERGED, "sparse eigen-solve: an eigenpair has a "
                    "backward error of %.3e (bound %.0e = max(1e-8, 100 x "
                    "FCD_STAB_TOLERANCE), relative to |K*| = %.3e): set "
                    "FCD_STAB_TOLERANCE (fcd stability --tol) to %.0e or more to accept it; "
                    "%s", st->berr, st->btol, st->bnorm, st->berr / 100, fcd__stab_kept(st));
  return FCD_OK;
}

/* the reduced K*, M* are kept for fcd_stability_get_reduced after a good solve */
static void sparse_end(fcd_stability *st, sparse_run *r, fcd_status status) {
  fcd__free(r->val);
  fcd__csr_clear(&r->Cr);
  if (st->keep_reduced && status == FCD_OK) {
    fcd__csr_clear(&st->keptK);
    fcd__csr_clear(&st->keptM);
    st->keptK = r->Kr;
    st->keptM = r->Mr;
  } else {
    fcd__csr_clear(&r->Kr);
    fcd__csr_clear(&r->Mr);
  }
  fcd__free(r->lre);
  fcd__free(r->lim);
  fcd__free(r->xr);
  fcd__free(r->xi);
  fcd__free(r->lam);
  fcd__free(r->vec);
  fcd__free(r->order);
}

/* The sparse path's phases. On a communicator of several ranks the necessary condition
 * is rank 0's while the others certify the eigenpairs, and rank 0 then tells its answer:
 * at 102,675 dofs on two ranks CHOLMOD took 2.3 s on every rank alike, then each
 * certified half of the 40 pairs in 0.7 s. */
static fcd_status solve_sparse(fcd_stability *st, const eig_row *row,
                               const fcd__free_pattern *fp, const tmap *tn, const tmap *tm,
                               int damped) {
  fcd_system *sys = st->sys;
  sparse_run r;
  int pd = 0;
  fcd_status status = sparse_begin(st, row, fp, tn, tm, damped, &r);
  if (status == FCD_OK) status = row->eigs(st, tn, tm, &r);
  if (status != FCD_OK) goto done;
  st->min_sym = NAN;
  fcd_status nstatus = r.part == 0 ? necessary_condition(sys, &r.Kr, r.order, &pd) : FCD_OK;
  if (r.parts == 1) {
    if ((status = nstatus) != FCD_OK) goto done;
    st->necessary = !pd;
  }
  if (row->stores_own) goto done;
  row->lambdas(st, &r);
  if ((status = sparse_certify(st, &r, nstatus, &pd)) != FCD_OK) goto done;
  if ((status = store(st, tn, r.cnt, r.lam, r.vec)) == FCD_OK) estimate(st, fp, tn, &r.Kr, &r.Mr);
  if (status == FCD_OK && st->nev > r.nr)
    fcd__err(sys, FCD_OK, "nev = %lld exceeds the %lld-dof reduced pencil: clamped to %lld",
             (long long)st->nev, (long long)r.nr, (long long)r.nr);
  if (status == FCD_OK && r.got < r.nev)
    fcd__err(sys, FCD_OK, "only %lld of %lld eigenvalues converged to %g in %lld iterations "
             "(error estimate of the next: %.3e)", (long long)r.got, (long long)r.nev, st->tol,
             (long long)st->max_it, r.reached);
done:
  sparse_end(st, &r, status);
  return status;
}

/* ---- the table of eigen-paths ---------------------------------------------------- */

static fcd_status dense_path(fcd_stability *st, const eig_row *row, const fcd__free_pattern *fp,
                             const tmap *tn, const tmap *tm, int damped) {
  (void)row;
  return solve_dense(st, fp, tn, tm, damped);
}

/* The dense path's arrays: the reduced K*, M*, C* (nr^2 each), the pencil it solves (the
 * companion form, 2 nr, with damping), its eigenvectors (complex) and QZ's copy, and the
 * modes expanded to the system's dofs. Above the memory they would be granted and the
 * process killed when they are filled: that is no fit, as is FCD_STAB_DENSE_MAX's cap. */
static const char *dense_misfit(const fcd_stability *st, const eig_problem *p, char *buf,
                                size_t cap) {
  if (p->nr > 20000) return "it is capped at 20,000 reduced dofs (FCD_STAB_DENSE_MAX's cap)";
  double nr = (double)p->nr, nn = p->damped ? 2 * nr : nr, n = (double)st->sys->n;
  double need = 8 * (3 * nr * nr + 5 * nn * nn + 2 * nn * n), have = fcd__memory_limit();
  if (need <= have) return NULL;
  snprintf(buf, cap, "its dense arrays would need %.1f GiB, more than the %.1f GiB this "
           "process may use", need / 1073741824.0, have / 1073741824.0);
  return buf;
}

static const char *pencil_misfit(const fcd_stability *st, const eig_problem *p, char *buf,
                                 size_t cap) {
  (void)buf, (void)cap;
  (void)st;
  return p->quadratic ? "the problem has general or sliding damping, which the pencil (K*, M*) "
                        "leaves out" : NULL;
}

static const char *pep_misfit(const fcd_stability *st, const eig_problem *p, char *buf,
                              size_t cap) {
  (void)buf, (void)cap;
  if (!p->quadratic) return "the problem has no general damping: the pencil solves it exactly";
  if (p->sliding3d) return "the 3D sliding damping needs a complex shift";
  return st->target_hz > 0 ? "a target above 0 Hz needs a complex shift" : NULL;
}

static const char *projected_misfit(const fcd_stability *st, const eig_problem *p, char *buf,
                                    size_t cap) {
  (void)buf, (void)cap;
  (void)st;
  return p->quadratic ? NULL : "the problem has no general damping: the pencil solves it "
                               "exactly";
}

/* each path a row with its own operations, in fcd_eigen_path's order; the automatic
 * choice takes the dense row up to dense_max, then the first sparse row that fits */
static const eig_row eig_rows[] = {
    [FCD_EIGEN_DENSE] = {"dense", "the whole spectrum by LAPACK's QZ (the pencil, or the "
                         "quadratic's companion form); chosen up to FCD_STAB_DENSE_MAX reduced "
                         "dofs", dense_misfit, dense_path, NULL, NULL, 0, 0, 0},
    [FCD_EIGEN_PENCIL] = {"pencil", "SLEPc's shift-and-invert on (K*, M*), the nev nearest the "
                          "target; undamped or Rayleigh damping", pencil_misfit, solve_sparse,
                          pencil_eigs, pencil_lambdas, 0, 0, 1},
    [FCD_EIGEN_QUADRATIC] = {"quadratic", "SLEPc's quadratic eigensolver (PEP) at a real "
                             "shift; general damping, target 0 Hz", pep_misfit, solve_sparse,
                             pep_eigs, pep_lambdas, 1, 0, 1},
    [FCD_EIGEN_PROJECTED] = {"projected", "the damped problem projected on the undamped "
                             "modes nearest the target, solved densely; general or 3D "
                             "sliding damping at any target", projected_misfit, solve_sparse,
                             projected_eigs, NULL, 1, 1, 0},
};
enum { NROWS = (int)(sizeof eig_rows / sizeof eig_rows[0]) };

int fcd__eigen_path_registry(int k, fcd__named *out) {
  if (k < 0 || k >= NROWS) return 0;
  *out = (fcd__named){k, eig_rows[k].name, eig_rows[k].summary};
  return 1;
}

fcd_status fcd__stab_path(fcd_stability *st, fcd_index nr, int damped, fcd_eigen_path *path) {
  eig_problem p = {nr, damped, 0, fcd__stab_cdim(st) == 3 && st->rn != NULL};
  char buf[160];
  /* general damping needs the quadratic problem */
  int assembled = st->sys->mat[FCD_DAMPING].set && !st->sys->cband_only;
  p.quadratic = damped && (assembled || p.sliding3d);
  if (st->path_set != FCD_EIGEN_AUTO) {
    const char *why = eig_rows[st->path_set].misfit(st, &p, buf, sizeof buf);
    if (why)
      return fcd__err(st->sys, FCD_E_INVALID_ARG, "FCD_STAB_EIGEN_PATH '%s' does not fit this "
                      "solve of %lld reduced dofs: %s", eig_rows[st->path_set].name,
                      (long long)nr, why);
    *path = (fcd_eigen_path)st->path_set;
    return FCD_OK;
  }
  int k = nr <= st->dense_max ? FCD_EIGEN_DENSE : FCD_EIGEN_DENSE + 1;
  while (k < NROWS && eig_rows[k].misfit(st, &p, buf, sizeof buf)) k++;
  if (k == NROWS) /* every problem fits a row; kept for a row added without that care */
    return fcd__err(st->sys, FCD_E_UNSUPPORTED, "no eigen-path fits this solve of %lld reduced "
                    "dofs", (long long)nr);
  *path = (fcd_eigen_path)k;
  return FCD_OK;
}

fcd_status fcd__stab_solve_path(fcd_stability *st, fcd_eigen_path path,
                                const fcd__free_pattern *fp, const tmap *tn, const tmap *tm,
                                int damped) {
  const eig_row *row = &eig_rows[path];
  return row->solve(st, row, fp, tn, tm, damped);
}
