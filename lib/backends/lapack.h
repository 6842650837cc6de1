/* Dense LAPACK, the one file that includes lapacke.h (backends/lapack.c). Matrices are
 * row-major and square unless said; every call returns 0, a positive LAPACK info (the
 * routine failed: not positive definite, QR/QZ did not converge), or FCD__LA_TOO_BIG
 * when a size does not fit LAPACK's 32-bit integers. */
#ifndef FCD_BACKEND_LAPACK_H
#define FCD_BACKEND_LAPACK_H

#include "backends.h"

#define FCD__LA_TOO_BIG (-1000)
#define FCD__LA_NOMEM (-1001)

/* eigenvalues of the symmetric A (its upper triangle is read), ascending, in w; with
 * vectors != 0, A is overwritten by the orthonormal eigenvectors as its columns */
int fcd__la_syev(int vectors, fcd_index n, fcd_real *A, fcd_real *w);

/* the k largest eigenvalues of the symmetric A (n x n, column-major, its upper triangle
 * read and destroyed), ascending, in w (k entries), and their orthonormal vectors in Z
 * (n x k, column-major; dsyevr, its n-long eigenvalue array held here) */
int fcd__la_syev_top_cm(fcd_index n, fcd_index k, fcd_real *A, fcd_real *w, fcd_real *Z);

/* the full orthogonal factor of a QR factorization: A is m x m (lda m) with its first n
 * columns holding the m x n matrix to factor; on return A is Q (m x m), whose first n
 * columns span the range and the others its orthogonal complement. tau: n entries. */
int fcd__la_qr_full_q(fcd_index m, fcd_index n, fcd_real *A, fcd_real *tau);

/* solves A x = b for the symmetric positive definite A (its lower triangle is read and
 * overwritten by its Cholesky factor); b becomes x. A positive return: not positive
 * definite. */
int fcd__la_chol_solve(fcd_index n, fcd_real *A, fcd_real *b);

/* solves A x = b for the general A (overwritten by its LU, partial pivoting); b becomes
 * x. A positive return: A is singular. */
int fcd__la_gesv(fcd_index n, fcd_real *A, fcd_real *b);
/* the inverse of the general row-major A (n x n), in place (LU with partial pivoting). A
 * positive return: A is singular. */
int fcd__la_inverse(fcd_index n, fcd_real *A);
/* The least-squares solution of least norm of A x = b (A n x n, row-major, destroyed; b
 * overwritten by x), singular values below rcond times the largest taken as zero (SVD,
 * dgelsd); rank receives the rank so found (may be NULL). 0 on success. */
int fcd__la_lstsq(fcd_index n, fcd_real *A, fcd_real *b, fcd_real rcond, fcd_index *rank);

/* the inverse of L U, given in A as one matrix (L unit lower below the diagonal, U on and
 * above it, no row interchanges), in place. A positive return: U is singular. */
int fcd__la_lu_inverse(fcd_index n, fcd_real *A);

/* Column-major, unlike the rest: the Cholesky factor L (n x n, lower, as CHOLMOD's
 * trailing block comes) replaced by the lower triangle of (L L^T)^-1 (dpotri) */
int fcd__la_chol_inverse_cm(fcd_index n, fcd_real *L);
/* solves A x = b (A n x n, column-major, overwritten by its LU with partial pivoting); b
 * becomes x. A positive return: A is singular. */
int fcd__la_gesv_cm(fcd_index n, fcd_real *A, fcd_real *b);
/* A = P L U (A n x n, column-major, overwritten by L below the unit diagonal and U on and
 * above it; partial pivoting as dgetrf's), piv[i] the row (0-based) row i was swapped
 * with, in order; up to a few hundred unknowns on the calling thread. A positive return:
 * A is singular. */
int fcd__la_lu_cm(fcd_index n, fcd_real *A, int *piv);
/* b = A^-1 b from fcd__la_lu_cm's factors, on the calling thread (two passes over them) */
void fcd__la_lu_solve_cm(fcd_index n, const fcd_real *A, const int *piv, fcd_real *b);
/* b = A^-T b from the same factors (a matrix stored by rows factored as its transpose) */
void fcd__la_lu_solve_t_cm(fcd_index n, const fcd_real *A, const int *piv, fcd_real *b);
/* B = L^-1 B for the lower triangular L (n x n) and k columns of B (n x k), column-major */
int fcd__la_lower_solve_cm(fcd_index n, fcd_index k, const fcd_real *L, fcd_real *B);
/* the same with leading dimensions (L's ldl, B's ldb): a block inside larger arrays */
int fcd__la_lower_solve_ld(fcd_index n, fcd_index k, const fcd_real *L, fcd_index ldl,
                           fcd_real *B, fcd_index ldb);

/* y = alpha A x + beta y (trans 0; y: m entries) or y = alpha A^T x + beta y (trans 1;
 * y: n entries) for the row-major A (m x n, lda n), by BLAS' dgemv; sizes that do not
 * fit its ints take the loops */
void fcd__la_gemv_rm(int trans, fcd_index m, fcd_index n, fcd_real alpha, const fcd_real *A,
                     const fcd_real *x, fcd_real beta, fcd_real *y);

/* C (m x n) = A^T B for A (k x m) and B (k x n), all column-major (BLAS dgemm) */
int fcd__la_gemm_tn(fcd_index m, fcd_index n, fcd_index k, const fcd_real *A,
                    const fcd_real *B, fcd_real *C);
/* C (m x n) += alpha A^T B for A (k x m) and B (k x n), all column-major (dgemm) */
int fcd__la_gemm_tn_acc(fcd_index m, fcd_index n, fcd_index k, fcd_real alpha,
                        const fcd_real *A, const fcd_real *B, fcd_real *C);
/* C (m x n) = alpha A B + beta C for A (m x k) and B (k x n), all column-major (dgemm) */
int fcd__la_gemm_nn(fcd_index m, fcd_index n, fcd_index k, fcd_real alpha, const fcd_real *A,
                    const fcd_real *B, fcd_real beta, fcd_real *C);
/* C (m x n, leading dimension ldc) = alpha op(A) B + beta C, op(A) = A (m x k, lda) or,
 * with transa, A^T (A k x m, lda), B (k x n, ldb), column-major: blocks of rows or of
 * columns of larger arrays */
int fcd__la_gemm_ld(int transa, fcd_index m, fcd_index n, fcd_index k, fcd_real alpha,
                    const fcd_real *A, fcd_index lda, const fcd_real *B, fcd_index ldb,
                    fcd_real beta, fcd_real *C, fcd_index ldc);
/* A = R' R (A n x n column-major, SPD; R in its upper triangle, dpotrf). A positive
 * return: A is not positive definite. */
int fcd__la_potrf_upper_cm(fcd_index n, fcd_real *A);
/* B = B R^-1 for the upper triangular R (n x n) and B (m x n), column-major (dtrsm) */
int fcd__la_right_upper_solve_cm(fcd_index m, fcd_index n, const fcd_real *R, fcd_real *B);
/* the generalized symmetric-definite problem A x = w B x (A, B n x n, column-major, their
 * lower triangles read; dsygvd): w ascending, A overwritten by the eigenvectors as its
 * columns, B-normalized (X^T B X = I), B by its Cholesky factor. A positive return above
 * n: B is not positive definite. */
int fcd__la_sygv_cm(fcd_index n, fcd_real *A, fcd_real *B, fcd_real *w);

/* eigenvalues of the general A (overwritten): re + i im */
int fcd__la_geev_values(fcd_index n, fcd_real *A, fcd_real *re, fcd_real *im);
/* the same with the right eigenvectors vr (row-major n x n, one a column; a complex
 * pair's real and imaginary parts in two columns, LAPACK's packing) */
int fcd__la_geev_right(fcd_index n, fcd_real *A, fcd_real *re, fcd_real *im, fcd_real *vr);

/* eigenvalues (ar + i ai) / be and right eigenvectors vr (row-major, n x n, LAPACK's
 * packing of complex pairs) of the pencil (A, B), both overwritten. balance: Ward's
 * permutation and scaling first (dggevx 'B'), with ls and rs (n each) its workspace;
 * otherwise plain dggev (ls and rs unused). norms receives the 1-norms of the pencil
 * whose alpha and beta these are (the balanced one when balanced), for
 * fcd__qz_infinite. */
int fcd__la_ggev(int balance, fcd_index n, fcd_real *A, fcd_real *B, fcd_real *ar,
                 fcd_real *ai, fcd_real *be, fcd_real *vr, fcd_real *ls, fcd_real *rs,
                 fcd_real norms[2]);

/* Whether QZ's (alpha, beta) = (ar + i ai, be) of an n x n pencil with 1-norms norms is
 * an infinite eigenvalue: |beta| / |B| <= tau |alpha| / |A|, tau = max(1e3, n) eps, the
 * chordal distance to infinity of the pencil scaled to unit norms within QZ's backward
 * error (a singular pencil's 0/0 included). Relative to the
 * pencil's own norms, so a change of time unit (B -> s^2 B) or of force unit (both
 * scaled) changes nothing: an absolute |beta| <= tau |alpha| dropped every mode above
 * 336 kHz of a steel block in seconds and none in milliseconds. */
int fcd__qz_infinite(fcd_real ar, fcd_real ai, fcd_real be, const fcd_real norms[2],
                     fcd_index n);

#endif
