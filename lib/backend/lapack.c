/* See lapack.h. LAPACKE's row-major interface transposes through its own workspace, which
 * it allocates with malloc, not fcd's allocator: the dense problems that come here are
 * small (reduced pencils, Rayleigh-Ritz blocks, lattice projections). */
#include "lapack.h"

#include <lapacke.h>
#include <limits.h>

static int fits(fcd_index n) { return n >= 0 && n <= INT_MAX; }

/* BLAS' own entry point: LAPACKE has no triangular solve with many right-hand sides */
void dtrsm_(const char *side, const char *uplo, const char *ta, const char *diag, const int *m,
            const int *n, const double *alpha, const double *a, const int *lda, double *b,
            const int *ldb);

void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
            const double *alpha, const double *a, const int *lda, const double *b,
            const int *ldb, const double *beta, double *c, const int *ldc);

void dgemv_(const char *t, const int *m, const int *n, const double *alpha, const double *a,
            const int *lda, const double *x, const int *incx, const double *beta, double *y,
            const int *incy);

void fcd__la_gemv_rm(int trans, fcd_index m, fcd_index n, fcd_real alpha, const fcd_real *A,
                     const fcd_real *x, fcd_real beta, fcd_real *y) {
  if (m <= 0 || n <= 0) {
    for (fcd_index i = 0; i < (trans ? n : m); i++) y[i] = beta == 0 ? 0 : beta * y[i];
    return;
  }
  if (fits(m) && fits(n)) {
    /* row-major A is the column-major A^T (n x m, lda n) */
    int mm = (int)n, nn = (int)m, lda = (int)n, one = 1;
    dgemv_(trans ? "N" : "T", &mm, &nn, &alpha, A, &lda, x, &one, &beta, y, &one);
    return;
  }
  fcd_index ny = trans ? n : m;
  for (fcd_index i = 0; i < ny; i++) y[i] = beta == 0 ? 0 : beta * y[i];
  for (fcd_index i = 0; i < m; i++)
    for (fcd_index j = 0; j < n; j++) {
      if (trans) y[j] += alpha * A[i * n + j] * x[i];
      else y[i] += alpha * A[i * n + j] * x[j];
    }
}

int fcd__la_gemm_tn(fcd_index m, fcd_index n, fcd_index k, const fcd_real *A,
                    const fcd_real *B, fcd_real *C) {
  if (!fits(m) || !fits(n) || !fits(k)) return FCD__LA_TOO_BIG;
  if (m == 0 || n == 0) return 0;
  int mm = (int)m, nn = (int)n, kk = (int)k, lda = k > 0 ? (int)k : 1;
  const double one = 1, zero = 0;
  dgemm_("T", "N", &mm, &nn, &kk, &one, A, &lda, B, &lda, &zero, C, &mm);
  return 0;
}

int fcd__la_gemm_nn(fcd_index m, fcd_index n, fcd_index k, fcd_real alpha, const fcd_real *A,
                    const fcd_real *B, fcd_real beta, fcd_real *C) {
  if (!fits(m) || !fits(n) || !fits(k)) return FCD__LA_TOO_BIG;
  if (m == 0 || n == 0) return 0;
  int mm = (int)m, nn = (int)n, kk = (int)k, ldb = k > 0 ? (int)k : 1;
  dgemm_("N", "N", &mm, &nn, &kk, &alpha, A, &mm, B, &ldb, &beta, C, &mm);
  return 0;
}

int fcd__la_potrf_upper_cm(fcd_index n, fcd_real *A) {
  if (!fits(n)) return FCD__LA_TOO_BIG;
  if (n == 0) return 0;
  lapack_int nn = (lapack_int)n;
  return (int)LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'U', nn, A, nn);
}

int fcd__la_right_upper_solve_cm(fcd_index m, fcd_index n, const fcd_real *R, fcd_real *B) {
  if (!fits(m) || !fits(n)) return FCD__LA_TOO_BIG;
  if (m == 0 || n == 0) return 0;
  int mm = (int)m, nn = (int)n;
  const double one = 1;
  dtrsm_("R", "U", "N", "N", &mm, &nn, &one, R, &nn, B, &mm);
  return 0;
}

int fcd__la_sygv_cm(fcd_index n, fcd_real *A, fcd_real *B, fcd_real *w) {
  if (!fits(n)) return FCD__LA_TOO_BIG;
  if (n == 0) return 0;
  lapack_int nn = (lapack_int)n;
  return (int)LAPACKE_dsygvd(LAPACK_COL_MAJOR, 1, 'V', 'L', nn, A, nn, B, nn, w);
}

int fcd__la_chol_inverse_cm(fcd_index n, fcd_real *L) {
  if (!fits(n)) return FCD__LA_TOO_BIG;
  if (n == 0) return 0;
  lapack_int nn = (lapack_int)n;
  /* the _work form: LAPACKE's NaN scan of the whole matrix is a pass too many */
  return (int)LAPACKE_dpotri_work(LAPACK_COL_MAJOR, 'L', nn, L, nn);
}

int fcd__la_lower_solve_cm(fcd_index n, fcd_index k, const fcd_real *L, fcd_real *B) {
  if (!fits(n) || !fits(k)) return FCD__LA_TOO_BIG;
  if (n == 0 || k == 0) return 0;
  int nn = (int)n, kk = (int)k;
  const double one = 1;
  dtrsm_("L", "L", "N", "N", &nn, &kk, &one, L, &nn, B, &nn);
  return 0;
}

int fcd__la_gesv_cm(fcd_index n, fcd_real *A, fcd_real *b) {
  if (!fits(n)) return FCD__LA_TOO_BIG;
  if (n == 0) return 0;
  lapack_int nn = (lapack_int)n, *ipiv = fcd__malloc_array((size_t)n, sizeof *ipiv);
  if (!ipiv) return FCD__LA_NOMEM;
  lapack_int info = LAPACKE_dgesv_work(LAPACK_COL_MAJOR, nn, 1, A, nn, ipiv, b, nn);
  fcd__free(ipiv);
  return (int)info;
}

int fcd__la_syev(int vectors, fcd_index n, fcd_real *A, fcd_real *w) {
  if (!fits(n)) return FCD__LA_TOO_BIG;
  if (n == 0) return 0;
  lapack_int nn = (lapack_int)n;
  return (int)LAPACKE_dsyev(LAPACK_ROW_MAJOR, vectors ? 'V' : 'N', 'U', nn, A, nn, w);
}

int fcd__la_syev_top_cm(fcd_index n, fcd_index k, fcd_real *A, fcd_real *w, fcd_real *Z) {
  if (!fits(n) || !fits(2 * k) || k > n) return FCD__LA_TOO_BIG;
  if (k == 0) return 0;
  lapack_int nn = (lapack_int)n, kk = (lapack_int)k, m = 0;
  lapack_int *supp = fcd__malloc_array(2 * (size_t)k, sizeof *supp);
  if (!supp) return FCD__LA_NOMEM;
  lapack_int info = LAPACKE_dsyevr(LAPACK_COL_MAJOR, 'V', 'I', 'U', nn, A, nn, 0.0, 0.0,
                                   nn - kk + 1, nn, 0.0, &m, w, Z, nn, supp);
  fcd__free(supp);
  return info != 0 ? (int)info : (m == kk ? 0 : 1);
}

int fcd__la_qr_full_q(fcd_index m, fcd_index n, fcd_real *A, fcd_real *tau) {
  if (!fits(m) || !fits(n) || n > m) return FCD__LA_TOO_BIG;
  if (m == 0) return 0;
  lapack_int mm = (lapack_int)m, nn = (lapack_int)n;
  lapack_int info = LAPACKE_dgeqrf(LAPACK_ROW_MAJOR, mm, nn, A, mm, tau);
  if (info == 0) info = LAPACKE_dorgqr(LAPACK_ROW_MAJOR, mm, mm, nn, A, mm, tau);
  return (int)info;
}

int fcd__la_chol_solve(fcd_index n, fcd_real *A, fcd_real *b) {
  if (!fits(n)) return FCD__LA_TOO_BIG;
  if (n == 0) return 0;
  lapack_int nn = (lapack_int)n;
  lapack_int info = LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', nn, A, nn);
  if (info == 0) info = LAPACKE_dpotrs(LAPACK_ROW_MAJOR, 'L', nn, 1, A, nn, b, 1);
  return (int)info;
}

int fcd__la_gesv(fcd_index n, fcd_real *A, fcd_real *b) {
  if (!fits(n)) return FCD__LA_TOO_BIG;
  if (n == 0) return 0;
  lapack_int nn = (lapack_int)n, *ipiv = fcd__malloc_array((size_t)n, sizeof *ipiv);
  if (!ipiv) return FCD__LA_NOMEM;
  lapack_int info = LAPACKE_dgesv(LAPACK_ROW_MAJOR, nn, 1, A, nn, ipiv, b, 1);
  fcd__free(ipiv);
  return (int)info;
}

int fcd__la_lu_inverse(fcd_index n, fcd_real *A) {
  if (!fits(n)) return FCD__LA_TOO_BIG;
  if (n == 0) return 0;
  lapack_int nn = (lapack_int)n, *ipiv = fcd__malloc_array((size_t)n, sizeof *ipiv);
  if (!ipiv) return FCD__LA_NOMEM;
  for (lapack_int i = 0; i < nn; i++) ipiv[i] = i + 1; /* no row interchanges */
  lapack_int info = LAPACKE_dgetri(LAPACK_ROW_MAJOR, nn, A, nn, ipiv);
  fcd__free(ipiv);
  return (int)info;
}

int fcd__la_geev_values(fcd_index n, fcd_real *A, fcd_real *re, fcd_real *im) {
  if (!fits(n)) return FCD__LA_TOO_BIG;
  if (n == 0) return 0;
  lapack_int nn = (lapack_int)n;
  return (int)LAPACKE_dgeev(LAPACK_ROW_MAJOR, 'N', 'N', nn, A, nn, re, im, NULL, 1, NULL, 1);
}

int fcd__la_ggev(int balance, fcd_index n, fcd_real *A, fcd_real *B, fcd_real *ar,
                 fcd_real *ai, fcd_real *be, fcd_real *vr, fcd_real *ls, fcd_real *rs) {
  if (!fits(n)) return FCD__LA_TOO_BIG;
  if (n == 0) return 0;
  lapack_int nn = (lapack_int)n;
  if (!balance)
    return (int)LAPACKE_dggev(LAPACK_ROW_MAJOR, 'N', 'V', nn, A, nn, B, nn, ar, ai, be, NULL,
                              1, vr, nn);
  lapack_int ilo, ihi;
  fcd_real abn, bbn;
  return (int)LAPACKE_dggevx(LAPACK_ROW_MAJOR, 'B', 'N', 'V', 'N', nn, A, nn, B, nn, ar, ai,
                             be, NULL, nn, vr, nn, &ilo, &ihi, ls, rs, &abn, &bbn, NULL, NULL);
}
