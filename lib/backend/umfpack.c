/* UMFPACK (SuiteSparse) sparse LU for non-symmetric operators. */
#include "../fcd_private.h"

#include <string.h>
#include <umfpack.h>

_Static_assert(sizeof(SuiteSparse_long) == sizeof(fcd_index),
               "UMFPACK's dl interface must match fcd_index");

struct fcd__lu {
  double control[UMFPACK_CONTROL];
  double info[UMFPACK_INFO];
  void *symbolic, *numeric;
  /* UMFPACK's iterative refinement needs the matrix at solve time: keep a copy so
   * callers need not keep theirs alive. */
  fcd_index n, nnz;
  fcd_index *rowptr, *col;
  fcd_real *val;
};

static fcd_status lu_status(const fcd_system *sys, int status, const char *what) {
  switch (status) {
  case UMFPACK_OK: return FCD_OK;
  case UMFPACK_WARNING_singular_matrix:
    return fcd__err(sys, FCD_E_SINGULAR, "UMFPACK %s: the matrix is singular", what);
  case UMFPACK_ERROR_out_of_memory:
    return fcd__err(sys, FCD_E_NOMEM, "UMFPACK %s: out of memory", what);
  default:
    return fcd__err(sys, FCD_E_BACKEND, "UMFPACK %s failed (status %d)", what, status);
  }
}

fcd_status fcd__lu_create(const fcd_system *sys, fcd__lu **out) {
  fcd__lu *l = fcd__calloc(1, sizeof *l);
  if (!l) return fcd__err(sys, FCD_E_NOMEM, "out of memory creating an UMFPACK context");
  umfpack_dl_defaults(l->control);
  l->control[UMFPACK_PRL] = 0;
  *out = l;
  return FCD_OK;
}

void fcd__lu_set_refinement(fcd__lu *l, int steps) {
  l->control[UMFPACK_IRSTEP] = steps < 0 ? 0 : steps;
}

static void lu_free_factors(fcd__lu *l) {
  if (l->numeric) umfpack_dl_free_numeric(&l->numeric);
  if (l->symbolic) umfpack_dl_free_symbolic(&l->symbolic);
}

void fcd__lu_destroy(fcd__lu *l) {
  if (!l) return;
  lu_free_factors(l);
  fcd__free(l->rowptr);
  fcd__free(l->col);
  fcd__free(l->val);
  fcd__free(l);
}

fcd_status fcd__lu_analyze(fcd__lu *l, const fcd_system *sys, fcd_index n,
                           const fcd_index *rowptr, const fcd_index *col,
                           const fcd_real *val) {
  lu_free_factors(l);
  fcd_index nnz = rowptr[n];
  fcd_index *rp = fcd__malloc_array((size_t)n + 1, sizeof *rp);
  fcd_index *ci = fcd__malloc_array((size_t)nnz, sizeof *ci);
  fcd_real *v = fcd__malloc_array((size_t)nnz, sizeof *v);
  if (!rp || !ci || !v) {
    fcd__free(rp);
    fcd__free(ci);
    fcd__free(v);
    return fcd__err(sys, FCD_E_NOMEM, "out of memory in the LU analysis");
  }
  memcpy(rp, rowptr, ((size_t)n + 1) * sizeof *rp);
  memcpy(ci, col, (size_t)nnz * sizeof *ci);
  memcpy(v, val, (size_t)nnz * sizeof *v);
  fcd__free(l->rowptr);
  fcd__free(l->col);
  fcd__free(l->val);
  l->rowptr = rp;
  l->col = ci;
  l->val = v;
  l->n = n;
  l->nnz = nnz;
  /* CSR of A is CSC of A^T: UMFPACK factors A^T and solves with UMFPACK_At. */
  int s = (int)umfpack_dl_symbolic(n, n, (const SuiteSparse_long *)rp,
                                   (const SuiteSparse_long *)ci, v, &l->symbolic,
                                   l->control, l->info);
  return lu_status(sys, s, "analysis");
}

fcd_status fcd__lu_factor(fcd__lu *l, const fcd_system *sys, const fcd_real *val) {
  if (!l->symbolic) return fcd__err(sys, FCD_E_STATE, "UMFPACK factorization before analysis");
  if (l->numeric) umfpack_dl_free_numeric(&l->numeric);
  if (val != l->val) memcpy(l->val, val, (size_t)l->nnz * sizeof *val);
  int s = (int)umfpack_dl_numeric((const SuiteSparse_long *)l->rowptr,
                                  (const SuiteSparse_long *)l->col, l->val, l->symbolic,
                                  &l->numeric, l->control, l->info);
  if (s == UMFPACK_WARNING_singular_matrix) {
    umfpack_dl_free_numeric(&l->numeric);
    return lu_status(sys, s, "factorization");
  }
  return lu_status(sys, s, "factorization");
}

fcd_status fcd__lu_solve(fcd__lu *l, const fcd_system *sys, fcd_index nrhs,
                         const fcd_real *b, fcd_real *x) {
  fcd_real *tmp = NULL;
  if (b == x) {
    tmp = fcd__malloc_array((size_t)l->n, sizeof *tmp);
    if (!tmp) return fcd__err(sys, FCD_E_NOMEM, "out of memory in the LU solve");
  }
  fcd_status st = FCD_OK;
  for (fcd_index k = 0; k < nrhs && st == FCD_OK; k++) {
    const fcd_real *bk = b + k * l->n;
    fcd_real *xk = x + k * l->n;
    if (tmp) {
      memcpy(tmp, bk, (size_t)l->n * sizeof *tmp);
      bk = tmp;
    }
    int s = (int)umfpack_dl_solve(UMFPACK_At, (const SuiteSparse_long *)l->rowptr,
                                  (const SuiteSparse_long *)l->col, l->val, xk, bk,
                                  l->numeric, l->control, l->info);
    st = lu_status(sys, s, "solve");
  }
  fcd__free(tmp);
  return st;
}
