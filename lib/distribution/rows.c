/* The system's rows: where the serial and the distributed system meet (dist.h, "the
 * rows"). Matrices hold the rows this rank owns (all of them serially); the products
 * below give every rank the whole vector, so that the analyses above this layer compute
 * with them, and with the factor's table (mumps_factor.c), and never make a collective
 * call themselves (SUNDIALS' N_Vector shape: the operation, not its caller, knows the
 * layout). */
#include "dist_private.h"

#include <string.h>

void fcd__rows_range(const fcd_system *sys, fcd_index *rbegin, fcd_index *rend) {
  *rbegin = sys->dist ? sys->dist->rbegin : 0;
  *rend = sys->dist ? sys->dist->rend : sys->n;
}

/* 1 when this rank owns the row (always on a serial system) */
static int rows_owns(const fcd_system *sys, fcd_index row) {
  return !sys->dist || (row >= sys->dist->rbegin && row < sys->dist->rend);
}

/* The free rows this rank owns: the free indices of its dofs, a contiguous range since
 * the free numbering keeps the order of the dofs. */
void fcd__rows_free_range(const fcd_system *sys, fcd_index *fb, fcd_index *fe) {
  if (!sys->dist) {
    *fb = 0;
    *fe = sys->nfree;
    return;
  }
  fcd_index b = 0, e = 0;
  for (fcd_index i = 0; i < sys->dist->rbegin; i++) b += !sys->is_fixed[i];
  e = b;
  for (fcd_index i = sys->dist->rbegin; i < sys->dist->rend; i++) e += !sys->is_fixed[i];
  *fb = b;
  *fe = e;
}

fcd_status fcd__rows_check_owned(const fcd_system *sys, const char *name, fcd_index nnz,
                                 const fcd_index *rows, const fcd_index *cols) {
  for (fcd_index p = 0; sys->dist && p < nnz; p++)
    if (!rows_owns(sys, rows[p]))
      return fcd__err(sys, FCD_E_INVALID_ARG, "%s: entry %lld at (%lld, %lld) lies on a row "
                      "this rank does not own (rows [%lld, %lld))", name, (long long)p,
                      (long long)rows[p], (long long)cols[p], (long long)sys->dist->rbegin,
                      (long long)sys->dist->rend);
  return FCD_OK;
}

fcd_status fcd__rows_owned_csr(const fcd_system *sys, const char *name,
                               const fcd_index *row_ptr, const fcd_index *col_idx,
                               const fcd_real *vals, fcd_index *nnz_out, fcd_index **rows_out) {
  *rows_out = NULL;
  fcd_index b, e;
  fcd__rows_range(sys, &b, &e);
  fcd_index nl = e - b;
  if (!row_ptr) return fcd__err(sys, FCD_E_INVALID_ARG, "%s: row_ptr is NULL", name);
  if (row_ptr[0] != 0)
    return fcd__err(sys, FCD_E_INVALID_ARG, "%s: row_ptr[0] is %lld, must be 0", name,
                    (long long)row_ptr[0]);
  for (fcd_index i = 0; i < nl; i++)
    if (row_ptr[i + 1] < row_ptr[i])
      return fcd__err(sys, FCD_E_INVALID_ARG, "%s: row_ptr decreases at owned row %lld "
                      "(global row %lld)", name, (long long)i, (long long)(b + i));
  fcd_index nnz = row_ptr[nl];
  if (nnz > 0 && (!col_idx || !vals))
    return fcd__err(sys, FCD_E_INVALID_ARG, "%s: %s is NULL with %lld entries", name,
                    col_idx ? "values" : "col_idx", (long long)nnz);
  for (fcd_index i = 0; i < nl; i++)
    for (fcd_index p = row_ptr[i] + 1; p < row_ptr[i + 1]; p++)
      if (col_idx[p] <= col_idx[p - 1])
        return fcd__err(sys, FCD_E_INVALID_ARG, "%s: columns of row %lld not strictly "
                        "increasing (%lld after %lld)", name, (long long)(b + i),
                        (long long)col_idx[p], (long long)col_idx[p - 1]);
  fcd_index *rows = fcd__malloc_array((size_t)nnz + 1, sizeof *rows);
  if (!rows) return fcd__err(sys, FCD_E_NOMEM, "%s: out of memory", name);
  for (fcd_index i = 0; i < nl; i++)
    for (fcd_index p = row_ptr[i]; p < row_ptr[i + 1]; p++) rows[p] = b + i;
  *nnz_out = nnz;
  *rows_out = rows;
  return FCD_OK;
}

/* y = A x of this rank's rows, the other entries 0: no exchange */
static void apply_local(const fcd_system *sys, fcd_matrix_kind which, const fcd_real *x,
                        fcd_real *y) {
  memset(y, 0, (size_t)sys->n * sizeof *y);
  fcd__csr_gaxpy(&sys->mat[which], 1.0, x, y);
  if (which == FCD_DAMPING) {
    if (sys->ray_alpha != 0) fcd__csr_gaxpy(&sys->mat[FCD_MASS], sys->ray_alpha, x, y);
    if (sys->ray_beta != 0) fcd__csr_gaxpy(&sys->mat[FCD_STIFFNESS], sys->ray_beta, x, y);
  }
}

fcd_status fcd__rows_apply(const fcd_system *sys, fcd_matrix_kind which, const fcd_real *x,
                           fcd_real *y) {
  apply_local(sys, which, x, y);
  return fcd__dist_sum(sys, y, sys->n);
}

fcd_status fcd__rows_apply2(const fcd_system *sys, fcd_matrix_kind which, const fcd_real *u,
                            fcd_real *au, const fcd_real *v, fcd_real *av) {
  memset(au, 0, (size_t)sys->n * sizeof *au);
  memset(av, 0, (size_t)sys->n * sizeof *av);
  fcd__csr_gaxpy2(&sys->mat[which], 1.0, u, au, v, av);
  FCD_TRY(fcd__dist_sum(sys, au, sys->n));
  return fcd__dist_sum(sys, av, sys->n);
}

fcd_status fcd__rows_apply2_abs(const fcd_system *sys, fcd_matrix_kind which,
                                const fcd_real *u, fcd_real *au, const fcd_real *v,
                                fcd_real *av, fcd_real *abs_u, fcd_real *abs_v) {
  fcd_real *y[4] = {au, av, abs_u, abs_v};
  for (int k = 0; k < 4; k++) memset(y[k], 0, (size_t)sys->n * sizeof *y[k]);
  fcd__csr_gaxpy2_abs(&sys->mat[which], u, au, v, av, abs_u, abs_v);
  for (int k = 0; k < 4; k++) FCD_TRY(fcd__dist_sum(sys, y[k], sys->n));
  return FCD_OK;
}

fcd_status fcd__rows_abs_apply(const fcd_system *sys, fcd_matrix_kind which,
                               const fcd_real *x, fcd_real *y) {
  memset(y, 0, (size_t)sys->n * sizeof *y);
  fcd__csr_abs_apply(&sys->mat[which], x, y);
  return fcd__dist_sum(sys, y, sys->n);
}

fcd_real fcd__rows_abs_form(const fcd_system *sys, int nterms, const fcd_matrix_kind *which,
                            const fcd_real *const *x) {
  fcd_real s = 0;
  for (int k = 0; k < nterms; k++) s += fcd__csr_abs_form(&sys->mat[which[k]], x[k]);
  return fcd__dist_sum(sys, &s, 1) == FCD_OK ? s : NAN;
}

fcd_real fcd__rows_free_diag_max(const fcd_system *sys, fcd_matrix_kind which) {
  fcd_real dmax = 0;
  const fcd__csr *a = &sys->mat[which];
  for (fcd_index i = 0; i < a->n; i++)
    for (fcd_index p = a->rowptr[i]; p < a->rowptr[i + 1]; p++)
      if (a->col[p] == i && !sys->is_fixed[i]) dmax = fmax(dmax, fabs(a->val[p]));
  return fcd__dist_max(sys, dmax);
}

fcd_status fcd__rows_pattern_diag(const fcd_system *sys, const fcd__free_pattern *fp,
                                  const fcd_real *vals, fcd_real *dg) {
  for (fcd_index i = 0; i < fp->n; i++) {
    dg[i] = 0;
    for (fcd_index p = fp->rowptr[i]; p < fp->rowptr[i + 1]; p++)
      if (fp->col[p] == i) dg[i] = vals[p];
  }
  /* each diagonal entry lives on the rank owning its row */
  return fcd__dist_sum(sys, dg, fp->n);
}

void fcd__rows_asymmetry_refresh(fcd_system *sys) {
  int stale = sys->asym_at != sys->value_version + 1;
  stale = fcd__dist_any(sys, stale);
  if (!stale) return;
  for (int k = 0; k < 3; k++)
    sys->asym[k] = sys->dist ? fcd__dist_csr_asymmetry(sys, &sys->mat[k])
                             : fcd__csr_asymmetry(&sys->mat[k]);
  sys->asym_at = sys->value_version + 1;
}
