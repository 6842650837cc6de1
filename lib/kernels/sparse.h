/* The kernels layer (lib/layers.txt): compressed sparse rows and their kernels. */
#ifndef FCD_LIB_SPARSE_H
#define FCD_LIB_SPARSE_H

#include "core.h"

/* A sparse matrix in compressed rows with strictly increasing columns per row. With
 * upper != 0 only row <= col is stored and the matrix is symmetric. The arrays are
 * owned unless borrowed (then they belong to the host). */
typedef struct {
  fcd_index n;
  fcd_index *rowptr;
  fcd_index *col;
  fcd_real *val;
  int upper;
  int owned;
  int set;
  int dense; /* full storage with every entry of every row (a reduced model's matrices):
              * the kernels skip the column indices (fcd__csr_mark_dense) */
  int sym;    /* dense and exactly symmetric: products go to BLAS' dsymv, which reads one
               * triangle (half the bytes of a pass over the rows) */
  fcd_real *absval; /* with sym: |A| (dense, row-major), for the backward-error scales;
                     * owned by the matrix whatever its values' ownership */
  int mirror; /* dense and exactly symmetric, known by its maker (a Delassus operator of
               * a Cholesky factor), without |A|: products may read one triangle */
} fcd__csr;


/* ---- sparse kernels (sparse.c) ---- */
/* Builds CSR (rows sorted, duplicates summed) from triplets already validated.
 * pos_out (may be NULL) receives for each triplet its position in the result. */
fcd_status fcd__coo_to_csr(fcd_index n, fcd_index nnz, const fcd_index *rows,
                           const fcd_index *cols, const fcd_real *vals,
                           fcd_index **rowptr_out, fcd_index **col_out,
                           fcd_real **val_out, fcd_index *pos_out);
void fcd__csr_clear(fcd__csr *a);
/* sets a->dense when a stores every entry of a full-storage square matrix, and a->sym
 * (with |A| in a->absval) when such a matrix is also exactly symmetric; called again
 * when the values change. Out of memory for |A| leaves sym unset (the row kernels). */
void fcd__csr_mark_dense(fcd__csr *a);
/* whether a (set, not upper, columns strictly increasing in a row) has every entry of
 * its n x n: n in every row is all of them */
int fcd__csr_is_full(const fcd__csr *a);
/* y += alpha * A x (symmetric storage handled) */
/* y += |A| |x| (the scale of A x for backward errors) */
void fcd__csr_abs_apply(const fcd__csr *a, const fcd_real *x, fcd_real *y);
/* y += alpha A x for the n x n symmetric A, dense, read from one triangle (BLAS' dsymv:
 * half the bytes of a general product) */
void fcd__dense_symv(fcd_index n, const fcd_real *A, fcd_real alpha, const fcd_real *x,
                     fcd_real *y);
void fcd__csr_gaxpy(const fcd__csr *a, fcd_real alpha, const fcd_real *x, fcd_real *y);
void fcd__csr_gaxpy2(const fcd__csr *a, fcd_real alpha, const fcd_real *x1, fcd_real *y1,
                     const fcd_real *x2, fcd_real *y2);
/* y1 += A x1, y2 += A x2 and z1 += |A| |x1|, z2 += |A| |x2|, A read once for the four:
 * a sparse A's bitwise those of fcd__csr_gaxpy2 (alpha 1) and fcd__csr_abs_apply, a
 * dense symmetric one's (sym) from one pass over a triangle, equal to them to round-off */
void fcd__csr_gaxpy2_abs(const fcd__csr *a, const fcd_real *x1, fcd_real *y1,
                         const fcd_real *x2, fcd_real *y2, fcd_real *z1, fcd_real *z2);
/* Y += alpha A X for nj columns (X, Y n x nj, column-major), A's entries read once for
 * all of them (a product is bound by reading A): X is copied row-major into xr, the rows
 * accumulate row-major in yr (xr, yr: n nj work entries each). Where the cores pay
 * (fcd__csr_rows_parts), parts of 8 columns run on them, A read once a part. */
void fcd__csr_gaxpy_block(const fcd__csr *a, fcd_real alpha, fcd_index nj, const fcd_real *X,
                          fcd_real *Y, fcd_real *xr, fcd_real *yr);
/* yr += A xr for nj vectors stored row-major (n x nj: row i's nj entries together), the
 * kernel of fcd__csr_gaxpy_block for callers that gather their rows themselves */
void fcd__csr_gaxpy_rows(const fcd__csr *a, fcd_index nj, const fcd_real *xr, fcd_real *yr);
/* The columns of a part when a block's product runs on several cores: each part an
 * n x FCD__ROWS_PART row-major array of its own (yr += A xr by fcd__csr_gaxpy_rows at that
 * width), so that no two threads write the same cache line. fcd__csr_rows_parts: how
 * many parts a product of nj columns takes, 0 when it is better made on one core (too
 * little work, one core, nj not a multiple of the part, or a dense matrix). */
#define FCD__ROWS_PART 8
int fcd__csr_rows_parts(const fcd__csr *a, fcd_index nj);
fcd_index fcd__csr_nnz(const fcd__csr *a);
/* sum_ij |a_ij| |x_i| |x_j|: the magnitude that bounds the round-off of x^T A x */
fcd_real fcd__csr_abs_form(const fcd__csr *a, const fcd_real *x);
/* out (m x m, row-major) = P^T A P for the m columns of P (column j at P + j n, n = a->n);
 * y: n work entries */
void fcd__csr_project(const fcd__csr *a, fcd_index m, const fcd_real *P, fcd_real *y,
                      fcd_real *out);
/* Checks structure: rowptr monotone from 0, columns in range and strictly increasing,
 * upper storage respected, values finite. Records a message naming the first defect. */
fcd_status fcd__csr_validate(const fcd_system *sys, const char *what, fcd_index n,
                             const fcd_index *rowptr, const fcd_index *col,
                             const fcd_real *val, int upper);
/* the position of entry (i, j) in a (columns sorted), -1 when not stored */
fcd_index fcd__csr_find(const fcd__csr *a, fcd_index i, fcd_index j);
fcd_real fcd__csr_asymmetry(const fcd__csr *a);
/* The first of rows [lo, hi) that no factorization could take: for an SPD operator (spd)
 * one whose diagonal entry is not > 0 (*diag: the entry; 0 when not stored), for an LU
 * one without a non-zero entry; -1 when none */
fcd_index fcd__csr_void_row(const fcd_index *rowptr, const fcd_index *col,
                            const fcd_real *val, fcd_index lo, fcd_index hi, int spd,
                            fcd_real *diag);
/* S = (A + A^T) / 2 in full storage (A full storage, n x n) */
fcd_status fcd__csr_symmetric_part(const fcd_system *sys, const fcd__csr *A, fcd__csr *S);

#endif
