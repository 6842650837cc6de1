/* See lapack.h. LAPACKE's row-major interface transposes through its own workspace, which
 * it allocates with malloc, not fcd's allocator: the dense problems that come here are
 * small (reduced pencils, Rayleigh-Ritz blocks, lattice projections). */
#include "lapack.h"

#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <string.h>
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

/* C = alpha A^T B + beta C, column-major (A k x m, B k x n) */
static int gemm_tn(fcd_index m, fcd_index n, fcd_index k, double alpha, const fcd_real *A,
                   const fcd_real *B, double beta, fcd_real *C) {
  if (!fits(m) || !fits(n) || !fits(k)) return FCD__LA_TOO_BIG;
  if (m == 0 || n == 0) return 0;
  int mm = (int)m, nn = (int)n, kk = (int)k, lda = k > 0 ? (int)k : 1;
  dgemm_("T", "N", &mm, &nn, &kk, &alpha, A, &lda, B, &lda, &beta, C, &mm);
  return 0;
}

int fcd__la_gemm_tn(fcd_index m, fcd_index n, fcd_index k, const fcd_real *A,
                    const fcd_real *B, fcd_real *C) {
  return gemm_tn(m, n, k, 1.0, A, B, 0.0, C);
}

int fcd__la_gemm_tn_acc(fcd_index m, fcd_index n, fcd_index k, fcd_real alpha,
                        const fcd_real *A, const fcd_real *B, fcd_real *C) {
  return gemm_tn(m, n, k, alpha, A, B, 1.0, C);
}

int fcd__la_gemm_nn(fcd_index m, fcd_index n, fcd_index k, fcd_real alpha, const fcd_real *A,
                    const fcd_real *B, fcd_real beta, fcd_real *C) {
  if (!fits(m) || !fits(n) || !fits(k)) return FCD__LA_TOO_BIG;
  if (m == 0 || n == 0) return 0;
  int mm = (int)m, nn = (int)n, kk = (int)k, ldb = k > 0 ? (int)k : 1;
  dgemm_("N", "N", &mm, &nn, &kk, &alpha, A, &mm, B, &ldb, &beta, C, &mm);
  return 0;
}

int fcd__la_gemm_ld(int transa, fcd_index m, fcd_index n, fcd_index k, fcd_real alpha,
                    const fcd_real *A, fcd_index lda, const fcd_real *B, fcd_index ldb,
                    fcd_real beta, fcd_real *C, fcd_index ldc) {
  if (!fits(m) || !fits(n) || !fits(k) || !fits(lda) || !fits(ldb) || !fits(ldc))
    return FCD__LA_TOO_BIG;
  if (m == 0 || n == 0) return 0;
  int mm = (int)m, nn = (int)n, kk = (int)k, la = (int)lda, lb = (int)ldb, lc = (int)ldc;
  dgemm_(transa ? "T" : "N", "N", &mm, &nn, &kk, &alpha, A, &la, B, &lb, &beta, C, &lc);
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

int fcd__la_lower_solve_ld(fcd_index n, fcd_index k, const fcd_real *L, fcd_index ldl,
                           fcd_real *B, fcd_index ldb) {
  if (!fits(n) || !fits(k) || !fits(ldl) || !fits(ldb)) return FCD__LA_TOO_BIG;
  if (n == 0 || k == 0) return 0;
  int nn = (int)n, kk = (int)k, la = (int)ldl, lb = (int)ldb;
  const double one = 1;
  dtrsm_("L", "L", "N", "N", &nn, &kk, &one, L, &la, B, &lb);
  return 0;
}

int fcd__la_lower_solve_cm(fcd_index n, fcd_index k, const fcd_real *L, fcd_real *B) {
  if (!fits(n) || !fits(k)) return FCD__LA_TOO_BIG;
  if (n == 0 || k == 0) return 0;
  int nn = (int)n, kk = (int)k;
  const double one = 1;
  dtrsm_("L", "L", "N", "N", &nn, &kk, &one, L, &nn, B, &nn);
  return 0;
}

/* Up to this order dgesv_cm factors by panels on the calling thread. A threaded BLAS
 * (OpenBLAS) splits dgetrf from 100 x 100 on: at a few hundred unknowns the threads'
 * hand-over costs several times the arithmetic, and far more when the other core is
 * busy (the 144-unknown state stage of the reduced brake: 0.13 ms on one thread, 0.5 to
 * 3.5 ms mean on two, measured 2026-11-30). */
enum { PANEL_LU_MAX = 384 };
/* OpenBLAS runs dgetrf on one thread below m n = 10^4 and dgemm below m n k = 2^18: the
 * panels and the update's column chunks stay under both */
enum { PANEL_AREA = 9999, GEMM_VOLUME = 262144 };

static void swap_rows(fcd_index n, fcd_real *A, fcd_index i, fcd_index p, fcd_index c0,
                      fcd_index c1) {
  for (fcd_index c = c0; c < c1; c++) {
    fcd_real t = A[c * n + i];
    A[c * n + i] = A[c * n + p];
    A[c * n + p] = t;
  }
}

/* A = P L U by right-looking blocked LU with partial pivoting (dgesv's pivots): each
 * panel by dgetrf, the unit-lower solve of its row block here, the trailing update by
 * dgemm in chunks. A n x n column-major, overwritten by L and U; piv[i] receives the row
 * (0-based, global) that row i was swapped with, in order. 0 or dgetrf's info. */
static int panel_lu(int n, fcd_real *A, int *piv, lapack_int *ipiv) {
  int nb = PANEL_AREA / n;
  nb = nb > 64 ? 64 : nb < 8 ? 8 : nb;
  for (int j = 0; j < n; j += nb) {
    int jb = n - j < nb ? n - j : nb, m = n - j, n2 = n - j - jb;
    fcd_real *Ajj = A + (size_t)j * n + j;
    lapack_int info = LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, m, jb, Ajj, n, ipiv + j);
    if (info != 0) return (int)(info + j);
    for (int i = j; i < j + jb; i++) {
      fcd_index p = ipiv[i] - 1 + j;
      piv[i] = (int)p;
      if (p == i) continue;
      swap_rows(n, A, i, p, 0, j);
      swap_rows(n, A, i, p, j + jb, n);
    }
    if (n2 == 0) continue;
    for (int c = j + jb; c < n; c++) { /* U12 = L11^-1 A12 */
      fcd_real *u = A + (size_t)c * n + j;
      for (int q = 0; q < jb; q++) {
        const fcd_real *l = Ajj + (size_t)q * n, f = u[q];
        if (f != 0)
          for (int i = q + 1; i < jb; i++) u[i] -= f * l[i];
      }
    }
    int chunk = (int)(GEMM_VOLUME / ((long)n2 * jb));
    if (chunk < 1) chunk = 1;
    double minus = -1.0, plus = 1.0;
    for (int c = 0; c < n2; c += chunk) { /* A22 -= L21 U12 */
      int wdt = n2 - c < chunk ? n2 - c : chunk;
      fcd_real *U = A + (size_t)(j + jb + c) * n + j;
      dgemm_("N", "N", &n2, &wdt, &jb, &minus, Ajj + jb, &n, U, &n, &plus, U + jb, &n);
    }
  }
  return 0;
}

void fcd__la_lu_solve_cm(fcd_index n, const fcd_real *A, const int *piv, fcd_real *b) {
  for (fcd_index i = 0; i < n; i++) {
    fcd_index p = piv[i];
    if (p == i) continue;
    fcd_real t = b[i];
    b[i] = b[p];
    b[p] = t;
  }
  for (fcd_index i = 0; i < n; i++) { /* L y = b, unit diagonal */
    fcd_real f = b[i];
    const fcd_real *l = A + (size_t)i * (size_t)n;
    if (f != 0)
      for (fcd_index r = i + 1; r < n; r++) b[r] -= f * l[r];
  }
  for (fcd_index i = n - 1; i >= 0; i--) { /* U x = y */
    const fcd_real *u = A + (size_t)i * (size_t)n;
    b[i] /= u[i];
    fcd_real f = b[i];
    for (fcd_index r = 0; r < i; r++) b[r] -= f * u[r];
  }
}

void fcd__la_lu_solve_t_cm(fcd_index n, const fcd_real *A, const int *piv, fcd_real *b) {
  /* A^T = U^T L^T P^T: both triangles' columns are A's columns, read as dot products */
  for (fcd_index i = 0; i < n; i++) { /* U^T y = b */
    const fcd_real *u = A + (size_t)i * (size_t)n;
    b[i] = (b[i] - fcd__dot4(u, b, i)) / u[i];
  }
  for (fcd_index i = n - 1; i >= 0; i--) { /* L^T z = y, unit diagonal */
    const fcd_real *l = A + (size_t)i * (size_t)n;
    b[i] -= fcd__dot4(l + i + 1, b + i + 1, n - i - 1);
  }
  for (fcd_index i = n - 1; i >= 0; i--) { /* x = P z: the swaps in reverse */
    fcd_index p = piv[i];
    if (p == i) continue;
    fcd_real t = b[i];
    b[i] = b[p];
    b[p] = t;
  }
}

int fcd__la_lu_cm(fcd_index n, fcd_real *A, int *piv) {
  if (!fits(n)) return FCD__LA_TOO_BIG;
  if (n == 0) return 0;
  lapack_int nn = (lapack_int)n, *ipiv = fcd__malloc_array((size_t)n, sizeof *ipiv);
  if (!ipiv) return FCD__LA_NOMEM;
  lapack_int info = 0;
  if (n <= PANEL_LU_MAX) {
    info = panel_lu((int)n, A, piv, ipiv);
  } else {
    info = LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, nn, nn, A, nn, ipiv);
    for (fcd_index i = 0; i < n && info == 0; i++) piv[i] = (int)ipiv[i] - 1;
  }
  fcd__free(ipiv);
  return (int)info;
}

int fcd__la_gesv_cm(fcd_index n, fcd_real *A, fcd_real *b) {
  if (!fits(n)) return FCD__LA_TOO_BIG;
  if (n == 0) return 0;
  if (n > PANEL_LU_MAX) {
    lapack_int nn = (lapack_int)n, *ipiv = fcd__malloc_array((size_t)n, sizeof *ipiv);
    if (!ipiv) return FCD__LA_NOMEM;
    lapack_int info = LAPACKE_dgesv_work(LAPACK_COL_MAJOR, nn, 1, A, nn, ipiv, b, nn);
    fcd__free(ipiv);
    return (int)info;
  }
  int *piv = fcd__malloc_array((size_t)n, sizeof *piv);
  if (!piv) return FCD__LA_NOMEM;
  int info = fcd__la_lu_cm(n, A, piv);
  if (info == 0) fcd__la_lu_solve_cm(n, A, piv, b);
  fcd__free(piv);
  return info;
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
  /* dsyevr's eigenvalue array is n long whatever the range: its bisection may fill more
   * than the k asked for before keeping them (a caller's k-long array overflowed at k =
   * 600 of n = 1,900) */
  lapack_int *supp = fcd__malloc_array(2 * (size_t)k, sizeof *supp);
  fcd_real *wn = fcd__malloc_array((size_t)n, sizeof *wn);
  if (!supp || !wn) {
    fcd__free(supp);
    fcd__free(wn);
    return FCD__LA_NOMEM;
  }
  lapack_int info = LAPACKE_dsyevr(LAPACK_COL_MAJOR, 'V', 'I', 'U', nn, A, nn, 0.0, 0.0,
                                   nn - kk + 1, nn, 0.0, &m, wn, Z, nn, supp);
  if (info == 0 && m == kk) memcpy(w, wn, (size_t)k * sizeof *w);
  fcd__free(supp);
  fcd__free(wn);
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

int fcd__la_inverse(fcd_index n, fcd_real *A) {
  if (!fits(n)) return FCD__LA_TOO_BIG;
  if (n == 0) return 0;
  lapack_int nn = (lapack_int)n, *ipiv = fcd__malloc_array((size_t)n, sizeof *ipiv);
  if (!ipiv) return FCD__LA_NOMEM;
  lapack_int info = LAPACKE_dgetrf(LAPACK_ROW_MAJOR, nn, nn, A, nn, ipiv);
  if (info == 0) info = LAPACKE_dgetri(LAPACK_ROW_MAJOR, nn, A, nn, ipiv);
  fcd__free(ipiv);
  return (int)info;
}

int fcd__la_lstsq(fcd_index n, fcd_real *A, fcd_real *b, fcd_real rcond, fcd_index *rank) {
  if (!fits(n)) return FCD__LA_TOO_BIG;
  if (n == 0) return 0;
  lapack_int nn = (lapack_int)n, rk = 0;
  fcd_real *sv = fcd__malloc_array((size_t)n, sizeof *sv);
  if (!sv) return FCD__LA_NOMEM;
  lapack_int info = LAPACKE_dgelsd(LAPACK_ROW_MAJOR, nn, nn, 1, A, nn, b, 1, sv, rcond, &rk);
  fcd__free(sv);
  if (rank) *rank = (fcd_index)rk;
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

int fcd__la_geev_right(fcd_index n, fcd_real *A, fcd_real *re, fcd_real *im, fcd_real *vr) {
  if (!fits(n)) return FCD__LA_TOO_BIG;
  if (n == 0) return 0;
  lapack_int nn = (lapack_int)n;
  return (int)LAPACKE_dgeev(LAPACK_ROW_MAJOR, 'N', 'V', nn, A, nn, re, im, NULL, 1, vr, nn);
}

/* 1-norm of the row-major n x n A */
static fcd_real norm1(fcd_index n, const fcd_real *A) {
  fcd_real m = 0;
  for (fcd_index j = 0; j < n; j++) {
    fcd_real s = 0;
    for (fcd_index i = 0; i < n; i++) s += fabs(A[i * n + j]);
    if (s > m) m = s;
  }
  return m;
}

int fcd__la_ggev(int balance, fcd_index n, fcd_real *A, fcd_real *B, fcd_real *ar,
                 fcd_real *ai, fcd_real *be, fcd_real *vr, fcd_real *ls, fcd_real *rs,
                 fcd_real norms[2]) {
  if (!fits(n)) return FCD__LA_TOO_BIG;
  norms[0] = norms[1] = 0;
  if (n == 0) return 0;
  lapack_int nn = (lapack_int)n;
  if (!balance) {
    norms[0] = norm1(n, A);
    norms[1] = norm1(n, B);
    return (int)LAPACKE_dggev(LAPACK_ROW_MAJOR, 'N', 'V', nn, A, nn, B, nn, ar, ai, be, NULL,
                              1, vr, nn);
  }
  lapack_int ilo, ihi;
  /* the balanced pencil's 1-norms: alpha and beta are that pencil's */
  return (int)LAPACKE_dggevx(LAPACK_ROW_MAJOR, 'B', 'N', 'V', 'N', nn, A, nn, B, nn, ar, ai,
                             be, NULL, nn, vr, nn, &ilo, &ihi, ls, rs, &norms[0], &norms[1],
                             NULL, NULL);
}

int fcd__qz_infinite(fcd_real ar, fcd_real ai, fcd_real be, const fcd_real norms[2],
                     fcd_index n) {
  fcd_real tau = (n > 1000 ? (fcd_real)n : 1e3) * DBL_EPSILON;
  fcd_real a = hypot(ar, ai) / (norms[0] > 0 ? norms[0] : 1);
  fcd_real b = fabs(be) / (norms[1] > 0 ? norms[1] : 1);
  return b <= tau * a;
}
