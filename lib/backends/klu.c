/* KLU (SuiteSparse) sparse LU for the contact solvers' Jacobians: small, very sparse
 * matrices of a fixed pattern refactored hundreds of times, where UMFPACK's frontal
 * machinery costs more than the arithmetic (measured on the benchmark set in
 * docs/contact.md, "The Newton Jacobian's LU"). */
#include "backends.h"

#include <klu.h>
#include <math.h>
#include <string.h>

_Static_assert(sizeof(SuiteSparse_long) == sizeof(fcd_index),
               "KLU's l interface must match fcd_index");

/* A refactorization keeps the pivot order of the last full factorization. When the
 * values moved too far from it (an active set changed), its pivots degrade and the
 * factorization is redone with fresh pivoting: when the smallest pivot falls below
 * KLU_MIN_RCOND times the largest (KLU's rcond, O(n)), or when a solve with it gives a
 * non-finite result. KLU's pivot growth (klu_rgrowth, a pass over U) was the first
 * test: the same accuracy on the benchmark set, 9 % of the proximal point's time on
 * Capsules-i122. A poor direction costs Newton a step, never the answer: every solve
 * is judged by its residual and certificate. */
#define KLU_MIN_RCOND 1e-8

struct fcd__klu {
  klu_l_common common;
  klu_l_symbolic *sym;
  klu_l_numeric *num;
  fcd_index n, nnz;
  /* KLU takes non-const arrays and refactorization needs them again: kept here */
  fcd_index *ptr, *idx;
  fcd_real *val, *res, *rhs;
  int refine;
  int refactored; /* the numeric factor reuses an earlier pivot order */
  fcd_index refactorizations;
};

static fcd_status klu_status(const fcd_system *sys, const klu_l_common *c, const char *what) {
  switch (c->status) {
  case KLU_OK: return FCD_OK;
  case KLU_SINGULAR:
    return fcd__err(sys, FCD_E_SINGULAR, "KLU %s: the matrix is singular", what);
  case KLU_OUT_OF_MEMORY: return fcd__err(sys, FCD_E_NOMEM, "KLU %s: out of memory", what);
  default:
    return fcd__err(sys, FCD_E_BACKEND, "KLU %s failed (status %lld)", what,
                    (long long)c->status);
  }
}

fcd_status fcd__klu_create(const fcd_system *sys, fcd__klu **out) {
  fcd__klu *k = fcd__calloc(1, sizeof *k);
  if (!k) return fcd__err(sys, FCD_E_NOMEM, "out of memory creating a KLU context");
  klu_l_defaults(&k->common);
  /* no row scaling: its pass over the matrix was 12 % of a refactorization, and the
   * contact Jacobians' rows are of one scale already (W's rows times rho = 1 / W_cc,
   * identity rows); KLU_MIN_RCOND guards the pivots */
  k->common.scale = -1;
  k->refine = 1;
  *out = k;
  return FCD_OK;
}

void fcd__klu_set_refinement(fcd__klu *k, int steps) { k->refine = steps < 0 ? 0 : steps; }

/* the factors and the arrays of one pattern */
static void klu_free_pattern(fcd__klu *k) {
  if (k->num) klu_l_free_numeric(&k->num, &k->common);
  if (k->sym) klu_l_free_symbolic(&k->sym, &k->common);
  fcd__free(k->ptr);
  fcd__free(k->idx);
  fcd__free(k->val);
  fcd__free(k->res);
  fcd__free(k->rhs);
  k->ptr = k->idx = NULL;
  k->val = k->res = k->rhs = NULL;
  k->n = k->nnz = 0;
}

void fcd__klu_destroy(fcd__klu *k) {
  if (!k) return;
  klu_free_pattern(k);
  fcd__free(k);
}

fcd_status fcd__klu_analyze(fcd__klu *k, const fcd_system *sys, fcd_index n,
                            const fcd_index *rowptr, const fcd_index *col) {
  klu_free_pattern(k);
  fcd_index nnz = rowptr[n];
  k->ptr = fcd__malloc_array((size_t)n + 1, sizeof *k->ptr);
  k->idx = fcd__malloc_array((size_t)nnz + 1, sizeof *k->idx);
  k->val = fcd__malloc_array((size_t)nnz + 1, sizeof *k->val);
  k->res = fcd__malloc_array((size_t)n + 1, sizeof *k->res);
  k->rhs = fcd__malloc_array((size_t)n + 1, sizeof *k->rhs);
  if (!k->ptr || !k->idx || !k->val || !k->res || !k->rhs)
    return fcd__err(sys, FCD_E_NOMEM, "out of memory in the KLU analysis");
  memcpy(k->ptr, rowptr, ((size_t)n + 1) * sizeof *k->ptr);
  memcpy(k->idx, col, (size_t)nnz * sizeof *k->idx);
  /* CSR of A is CSC of A^T: KLU factors A^T and solves with klu_l_tsolve */
  k->sym = klu_l_analyze(n, (SuiteSparse_long *)k->ptr, (SuiteSparse_long *)k->idx, &k->common);
  if (!k->sym) return klu_status(sys, &k->common, "analysis");
  k->n = n;
  k->nnz = nnz;
  return FCD_OK;
}

static fcd_status klu_fresh(fcd__klu *k, const fcd_system *sys) {
  if (k->num) klu_l_free_numeric(&k->num, &k->common);
  k->num = klu_l_factor((SuiteSparse_long *)k->ptr, (SuiteSparse_long *)k->idx, k->val, k->sym,
                        &k->common);
  if (!k->num || k->common.status != KLU_OK) {
    if (k->num) klu_l_free_numeric(&k->num, &k->common);
    return klu_status(sys, &k->common, "factorization");
  }
  k->refactored = 0;
  return FCD_OK;
}

fcd_status fcd__klu_factor(fcd__klu *k, const fcd_system *sys, const fcd_real *val) {
  if (!k->sym) return fcd__err(sys, FCD_E_STATE, "KLU factorization before analysis");
  memcpy(k->val, val, (size_t)k->nnz * sizeof *val);
  if (!k->num) return klu_fresh(k, sys);
  SuiteSparse_long ok = klu_l_refactor((SuiteSparse_long *)k->ptr, (SuiteSparse_long *)k->idx,
                                       k->val, k->sym, k->num, &k->common);
  if (ok && k->common.status == KLU_OK &&
      klu_l_rcond(k->sym, k->num, &k->common) && k->common.rcond >= KLU_MIN_RCOND) {
    k->refactorizations++;
    k->refactored = 1;
    return FCD_OK;
  }
  return klu_fresh(k, sys);
}

/* res = b - A x with A in CSR (the caller's orientation) */
static void klu_residual(const fcd__klu *k, const fcd_real *b, const fcd_real *x,
                         fcd_real *res) {
  for (fcd_index i = 0; i < k->n; i++) {
    fcd_real s = b[i];
    for (fcd_index e = k->ptr[i]; e < k->ptr[i + 1]; e++) s -= k->val[e] * x[k->idx[e]];
    res[i] = s;
  }
}

static fcd_status klu_solve_once(fcd__klu *k, const fcd_system *sys, const fcd_real *b,
                                 fcd_real *x) {
  fcd_index n = k->n;
  if (x != b) memcpy(x, b, (size_t)n * sizeof *x);
  if (!klu_l_tsolve(k->sym, k->num, n, 1, x, &k->common))
    return klu_status(sys, &k->common, "solve");
  for (int s = 0; s < k->refine; s++) {
    klu_residual(k, b, x, k->res);
    if (!klu_l_tsolve(k->sym, k->num, n, 1, k->res, &k->common))
      return klu_status(sys, &k->common, "solve");
    for (fcd_index i = 0; i < n; i++) x[i] += k->res[i];
  }
  return FCD_OK;
}

fcd_status fcd__klu_solve(fcd__klu *k, const fcd_system *sys, const fcd_real *b, fcd_real *x) {
  if (!k->num) return fcd__err(sys, FCD_E_STATE, "KLU solve before a factorization");
  /* b is overwritten when x == b: the refinement and a second attempt work from a copy */
  memcpy(k->rhs, b, (size_t)k->n * sizeof *k->rhs);
  FCD_TRY(klu_solve_once(k, sys, k->rhs, x));
  int finite = 1;
  for (fcd_index i = 0; i < k->n && finite; i++) finite = isfinite(x[i]);
  if (finite || !k->refactored) return FCD_OK;
  FCD_TRY(klu_fresh(k, sys));
  return klu_solve_once(k, sys, k->rhs, x);
}

fcd_index fcd__klu_refactorizations(const fcd__klu *k) { return k->refactorizations; }
