/* Compressed-row kernels: assembly from triplets, validation, products. */
#include "sparse.h"

#include <limits.h>
#include <math.h>
#include <string.h>

fcd_status fcd__coo_to_csr(fcd_index n, fcd_index nnz, const fcd_index *rows,
                           const fcd_index *cols, const fcd_real *vals,
                           fcd_index **rowptr_out, fcd_index **col_out,
                           fcd_real **val_out, fcd_index *pos_out) {
  /* Two bucket passes (by column, then stably by row) sort every row by column in
   * O(n + nnz) without a comparison sort; duplicates are then adjacent. */
  fcd_status st = FCD_E_NOMEM;
  fcd_index *cptr = fcd__calloc((size_t)n + 1, sizeof *cptr);
  fcd_index *corder = fcd__malloc_array((size_t)nnz, sizeof *corder);
  fcd_index *rptr = fcd__calloc((size_t)n + 1, sizeof *rptr);
  fcd_index *rorder = fcd__malloc_array((size_t)nnz, sizeof *rorder);
  fcd_index *rowptr = NULL, *col = NULL;
  fcd_real *val = NULL;
  if (!cptr || !corder || !rptr || !rorder) goto done;
  for (fcd_index p = 0; p < nnz; p++) cptr[cols[p] + 1]++;
  for (fcd_index j = 0; j < n; j++) cptr[j + 1] += cptr[j];
  for (fcd_index p = 0; p < nnz; p++) corder[cptr[cols[p]]++] = p;
  for (fcd_index p = 0; p < nnz; p++) rptr[rows[p] + 1]++;
  for (fcd_index i = 0; i < n; i++) rptr[i + 1] += rptr[i];
  for (fcd_index q = 0; q < nnz; q++) {
    fcd_index p = corder[q];
    rorder[rptr[rows[p]]++] = p;
  }
  /* rptr[i] now holds the end of row i; the start of row i is rptr[i-1]. */
  fcd__free(corder);
  corder = NULL;
  rowptr = fcd__calloc((size_t)n + 1, sizeof *rowptr);
  col = fcd__malloc_array((size_t)nnz, sizeof *col);
  val = vals ? fcd__malloc_array((size_t)nnz, sizeof *val) : NULL;
  if (!rowptr || !col || (vals && !val)) goto done;
  fcd_index out = 0;
  for (fcd_index i = 0; i < n; i++) {
    fcd_index start = i ? rptr[i - 1] : 0, end = rptr[i];
    fcd_index row_start = out;
    for (fcd_index q = start; q < end; q++) {
      fcd_index p = rorder[q];
      if (out > row_start && col[out - 1] == cols[p]) {
        if (val) val[out - 1] += vals[p];
      } else {
        col[out] = cols[p];
        if (val) val[out] = vals[p];
        out++;
      }
      if (pos_out) pos_out[p] = out - 1;
    }
    rowptr[i + 1] = out;
  }
  /* an assembly's triplets repeat most entries (a node's row in each of its elements):
   * the arrays sized for them would hold twice what the matrix needs for its life */
  fcd__free(rorder);
  rorder = NULL;
  if (out < nnz - nnz / 8) {
    fcd_index *c2 = fcd__grow_array(col, (size_t)out, (size_t)out + 1, sizeof *col);
    if (c2) col = c2;
    if (val) {
      fcd_real *v2 = fcd__grow_array(val, (size_t)out, (size_t)out + 1, sizeof *val);
      if (v2) val = v2;
    }
  }
  *rowptr_out = rowptr;
  *col_out = col;
  if (val_out) *val_out = val;
  rowptr = NULL;
  col = NULL;
  val = NULL;
  st = FCD_OK;
done:
  fcd__free(cptr);
  fcd__free(corder);
  fcd__free(rptr);
  fcd__free(rorder);
  fcd__free(rowptr);
  fcd__free(col);
  fcd__free(val);
  return st;
}

void fcd__csr_clear(fcd__csr *a) {
  fcd__free(a->absval);
  if (a->owned) {
    fcd__free(a->rowptr);
    fcd__free(a->col);
    fcd__free(a->val);
  }
  memset(a, 0, sizeof *a);
}

fcd_index fcd__csr_nnz(const fcd__csr *a) { return a->set ? a->rowptr[a->n] : 0; }

/* BLAS' own symmetric product (the library links BLAS through LAPACKE): y = alpha A x +
 * beta y, A n x n read from one triangle */
void dsymv_(const char *uplo, const int *n, const double *alpha, const double *a,
            const int *lda, const double *x, const int *incx, const double *beta, double *y,
            const int *incy);

/* dsymv's int sizes: the dense kernels go to BLAS only below this order */
#define SYM_MAX 46000

int fcd__csr_is_full(const fcd__csr *a) {
  return a->set && !a->upper && a->n > 0 && a->n <= 3000000000LL / a->n &&
         a->rowptr[a->n] == a->n * a->n;
}

void fcd__csr_mark_dense(fcd__csr *a) {
  a->dense = fcd__csr_is_full(a);
  fcd__free(a->absval);
  a->absval = NULL;
  a->sym = 0;
  if (!a->dense || a->n > SYM_MAX) return;
  fcd_index n = a->n;
  for (fcd_index i = 0; i < n; i++)
    for (fcd_index j = i + 1; j < n; j++)
      if (a->val[i * n + j] != a->val[j * n + i]) return;
  a->absval = fcd__malloc_array((size_t)n * (size_t)n, sizeof *a->absval);
  if (!a->absval) return;
  for (fcd_index p = 0; p < n * n; p++) a->absval[p] = fabs(a->val[p]);
  a->sym = 1;
}

/* y += alpha A x for the dense symmetric A (its row-major storage is its column-major
 * one: either triangle is A's) */
void fcd__dense_symv(fcd_index n, const fcd_real *A, fcd_real alpha, const fcd_real *x,
                     fcd_real *y) {
  if (n <= 0) return;
  if (n > INT_MAX / n) { /* beyond dsymv's int sizes: the rows */
    for (fcd_index i = 0; i < n; i++) y[i] += alpha * fcd__dot4(A + i * n, x, n);
    return;
  }
  const int nn = (int)n, one = 1;
  const double beta = 1;
  dsymv_("L", &nn, &alpha, A, &nn, x, &one, &beta, y, &one);
}

/* the same with |row| and |x| */
static fcd_real dense_abs_dot(const fcd_real *restrict row, const fcd_real *restrict x,
                              fcd_index n) {
  fcd_real s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  fcd_index j = 0;
  for (; j + 3 < n; j += 4) {
    s0 += fabs(row[j]) * fabs(x[j]);
    s1 += fabs(row[j + 1]) * fabs(x[j + 1]);
    s2 += fabs(row[j + 2]) * fabs(x[j + 2]);
    s3 += fabs(row[j + 3]) * fabs(x[j + 3]);
  }
  for (; j < n; j++) s0 += fabs(row[j]) * fabs(x[j]);
  return (s0 + s1) + (s2 + s3);
}

void fcd__csr_gaxpy(const fcd__csr *a, fcd_real alpha, const fcd_real *x, fcd_real *y) {
  if (!a->set || alpha == 0.0) return;
  if (a->sym) {
    fcd__dense_symv(a->n, a->val, alpha, x, y);
    return;
  }
  if (a->dense) {
    for (fcd_index i = 0; i < a->n; i++) y[i] += alpha * fcd__dot4(a->val + i * a->n, x, a->n);
    return;
  }
  if (!a->upper) {
    for (fcd_index i = 0; i < a->n; i++) {
      fcd_real s = 0.0;
      for (fcd_index p = a->rowptr[i]; p < a->rowptr[i + 1]; p++) s += a->val[p] * x[a->col[p]];
      y[i] += alpha * s;
    }
    return;
  }
  /* one triangle stored: row i gives y_i and, by symmetry, its column; the loop adds the
   * diagonal twice (branch-free), the correction after it removes one */
  for (fcd_index i = 0; i < a->n; i++) {
    fcd_real s = 0.0, dg = 0.0, xi = alpha * x[i];
    for (fcd_index p = a->rowptr[i]; p < a->rowptr[i + 1]; p++) {
      fcd_index j = a->col[p];
      fcd_real v = a->val[p];
      s += v * x[j];
      y[j] += v * xi;
      dg += j == i ? v : 0.0;
    }
    y[i] += alpha * s - dg * xi;
  }
}

/* y1 += alpha A x1 and y2 += alpha A x2 in one pass over A (a matrix-vector product is
 * bound by reading A): each y accumulates in the order of fcd__csr_gaxpy, so the results
 * are bitwise those of two calls */
void fcd__csr_gaxpy2(const fcd__csr *a, fcd_real alpha, const fcd_real *x1, fcd_real *y1,
                     const fcd_real *x2, fcd_real *y2) {
  if (!a->set || alpha == 0.0) return;
  if (a->sym) { /* two products of dsymv: each the one fcd__csr_gaxpy makes */
    fcd__dense_symv(a->n, a->val, alpha, x1, y1);
    fcd__dense_symv(a->n, a->val, alpha, x2, y2);
    return;
  }
  if (a->dense) {
    for (fcd_index i = 0; i < a->n; i++) {
      y1[i] += alpha * fcd__dot4(a->val + i * a->n, x1, a->n);
      y2[i] += alpha * fcd__dot4(a->val + i * a->n, x2, a->n);
    }
    return;
  }
  if (!a->upper) {
    for (fcd_index i = 0; i < a->n; i++) {
      fcd_real s1 = 0.0, s2 = 0.0;
      for (fcd_index p = a->rowptr[i]; p < a->rowptr[i + 1]; p++) {
        s1 += a->val[p] * x1[a->col[p]];
        s2 += a->val[p] * x2[a->col[p]];
      }
      y1[i] += alpha * s1;
      y2[i] += alpha * s2;
    }
    return;
  }
  for (fcd_index i = 0; i < a->n; i++) {
    fcd_real s1 = 0.0, s2 = 0.0, dg = 0.0, xi1 = alpha * x1[i], xi2 = alpha * x2[i];
    for (fcd_index p = a->rowptr[i]; p < a->rowptr[i + 1]; p++) {
      fcd_index j = a->col[p];
      fcd_real v = a->val[p];
      s1 += v * x1[j];
      s2 += v * x2[j];
      y1[j] += v * xi1;
      y2[j] += v * xi2;
      dg += j == i ? v : 0.0;
    }
    y1[i] += alpha * s1 - dg * xi1;
    y2[i] += alpha * s2 - dg * xi2;
  }
}

/* the row kernel at a width known when compiled: the compiler keeps a row of y and of x
 * in vector registers (the width a reduction's blocks use). An entry's two multiply-adds
 * of W numbers are instructions rather than bytes: with SSE2 alone (the build's baseline)
 * the 16-wide kernel took 7 to 9 ns an entry, with AVX2 and FMA 4.8 to 5.4, hence a
 * second build taken per call when the processor has them, as the symmetric pass below
 * (its fused multiply-adds round once: the same sums to round-off, not to the bit). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define FCD__ROWS_V3 1
#endif
#define FCD__ROWS_BODY(W)                                                                   \
  for (fcd_index i = 0; i < a->n; i++) {                                                    \
    fcd_real y[W], xi[W];                                                                   \
    memcpy(y, yr + i * W, sizeof y);                                                        \
    memcpy(xi, xr + i * W, sizeof xi);                                                      \
    for (fcd_index p = a->rowptr[i]; p < a->rowptr[i + 1]; p++) {                           \
      fcd_index c = a->col[p];                                                              \
      fcd_real v = a->val[p];                                                               \
      const fcd_real *x = xr + c * W;                                                       \
      for (int j = 0; j < W; j++) y[j] += v * x[j];                                         \
      if (a->upper && c != i) {                                                             \
        fcd_real *yc = yr + c * W;                                                          \
        for (int j = 0; j < W; j++) yc[j] += v * xi[j];                                     \
      }                                                                                     \
    }                                                                                       \
    memcpy(yr + i * W, y, sizeof y);                                                        \
  }
#define FCD__ROWS_FIXED(W)                                                                  \
  static void gaxpy_rows_##W##_plain(const fcd__csr *a, const fcd_real *xr, fcd_real *yr) { \
    FCD__ROWS_BODY(W)                                                                       \
  }
FCD__ROWS_FIXED(16)
FCD__ROWS_FIXED(8)
#ifdef FCD__ROWS_V3
#define FCD__ROWS_FIXED_V3(W)                                                               \
  __attribute__((target("avx2,fma"))) static void gaxpy_rows_##W##_v3(                     \
      const fcd__csr *a, const fcd_real *xr, fcd_real *yr) {                                \
    FCD__ROWS_BODY(W)                                                                       \
  }
FCD__ROWS_FIXED_V3(16)
FCD__ROWS_FIXED_V3(8)
#endif

#ifdef FCD__ROWS_V3
static int rows_v3(void) {
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
#endif

static void gaxpy_rows_16(const fcd__csr *a, const fcd_real *xr, fcd_real *yr) {
#ifdef FCD__ROWS_V3
  if (rows_v3()) {
    gaxpy_rows_16_v3(a, xr, yr);
    return;
  }
#endif
  gaxpy_rows_16_plain(a, xr, yr);
}

static void gaxpy_rows_8(const fcd__csr *a, const fcd_real *xr, fcd_real *yr) {
#ifdef FCD__ROWS_V3
  if (rows_v3()) {
    gaxpy_rows_8_v3(a, xr, yr);
    return;
  }
#endif
  gaxpy_rows_8_plain(a, xr, yr);
}

void fcd__csr_gaxpy_rows(const fcd__csr *a, fcd_index nj, const fcd_real *xr, fcd_real *yr) {
  if (!a->set || nj <= 0) return;
  if (nj == 16) {
    gaxpy_rows_16(a, xr, yr);
    return;
  }
  if (nj == 8) {
    gaxpy_rows_8(a, xr, yr);
    return;
  }
  for (fcd_index i = 0; i < a->n; i++) {
    fcd_real *y = yr + i * nj;
    const fcd_real *xi = xr + i * nj;
    for (fcd_index p = a->rowptr[i]; p < a->rowptr[i + 1]; p++) {
      fcd_index c = a->col[p];
      fcd_real v = a->val[p];
      const fcd_real *x = xr + c * nj;
      for (fcd_index j = 0; j < nj; j++) y[j] += v * x[j];
      /* one triangle stored: the entry stands for (c, i) too */
      if (a->upper && c != i) {
        fcd_real *yc = yr + c * nj;
        for (fcd_index j = 0; j < nj; j++) yc[j] += v * xi[j];
      }
    }
  }
}

int fcd__csr_rows_parts(const fcd__csr *a, fcd_index nj) {
  if (!a->set || a->dense || nj < 2 * FCD__ROWS_PART || nj % FCD__ROWS_PART != 0) return 0;
  /* a thread pays from about a millisecond of work: some 2^21 entry-columns */
  double work = ((double)a->rowptr[a->n] + (double)a->n) * (double)nj;
  if (work < 2097152.0 || fcd__par_cpus() < 2) return 0;
  return (int)(nj / FCD__ROWS_PART);
}

typedef struct {
  const fcd__csr *a;
  fcd_real alpha;
  const fcd_real *X;
  fcd_real *Y, *xr, *yr;
} block_parts;

/* one part of fcd__csr_gaxpy_block: its 8 columns in, through the rows, and out */
static void block_part(void *ctx, int q) {
  const block_parts *b = ctx;
  fcd_index n = b->a->n, w = FCD__ROWS_PART;
  const fcd_real *X = b->X + (size_t)q * (size_t)w * (size_t)n;
  fcd_real *Y = b->Y + (size_t)q * (size_t)w * (size_t)n;
  fcd_real *xr = b->xr + (size_t)q * (size_t)w * (size_t)n;
  fcd_real *yr = b->yr + (size_t)q * (size_t)w * (size_t)n;
  for (fcd_index i = 0; i < n; i++)
    for (fcd_index j = 0; j < w; j++) xr[i * w + j] = b->alpha * X[j * n + i];
  memset(yr, 0, (size_t)n * (size_t)w * sizeof *yr);
  gaxpy_rows_8(b->a, xr, yr);
  for (fcd_index j = 0; j < w; j++)
    for (fcd_index i = 0; i < n; i++) Y[j * n + i] += yr[i * w + j];
}

void fcd__csr_gaxpy_block(const fcd__csr *a, fcd_real alpha, fcd_index nj, const fcd_real *X,
                          fcd_real *Y, fcd_real *xr, fcd_real *yr) {
  fcd_index n = a->n;
  if (!a->set || alpha == 0.0 || nj <= 0) return;
  if (a->dense || nj == 1) { /* BLAS' or the row kernels', a column at a time */
    for (fcd_index j = 0; j < nj; j++) fcd__csr_gaxpy(a, alpha, X + j * n, Y + j * n);
    return;
  }
  int parts = fcd__csr_rows_parts(a, nj);
  if (parts > 0) { /* parts of 8 columns on the cores, each read in, multiplied, out */
    block_parts b = {a, alpha, X, Y, xr, yr};
    fcd__par_run(parts, block_part, &b);
    return;
  }
  for (fcd_index j = 0; j < nj; j++)
    for (fcd_index i = 0; i < n; i++) xr[i * nj + j] = alpha * X[j * n + i];
  memset(yr, 0, (size_t)n * (size_t)nj * sizeof *yr);
  fcd__csr_gaxpy_rows(a, nj, xr, yr);
  for (fcd_index j = 0; j < nj; j++)
    for (fcd_index i = 0; i < n; i++) Y[j * n + i] += yr[i * nj + j];
}

void fcd__csr_project(const fcd__csr *a, fcd_index m, const fcd_real *P, fcd_real *y,
                      fcd_real *out) {
  fcd_index n = a->n;
  for (fcd_index j = 0; j < m; j++) {
    memset(y, 0, (size_t)n * sizeof *y);
    fcd__csr_gaxpy(a, 1.0, P + j * n, y);
    for (fcd_index i = 0; i < m; i++) {
      const fcd_real *pi = P + i * n;
      fcd_real d = 0;
      for (fcd_index k = 0; k < n; k++) d += pi[k] * y[k];
      out[i * m + j] = d;
    }
  }
}

fcd_real fcd__csr_abs_form(const fcd__csr *a, const fcd_real *x) {
  if (!a->set) return 0.0;
  fcd_real s = 0.0;
  if (a->dense) {
    for (fcd_index i = 0; i < a->n; i++)
      if (x[i] != 0) s += fabs(x[i]) * dense_abs_dot(a->val + i * a->n, x, a->n);
    return s;
  }
  for (fcd_index i = 0; i < a->n; i++)
    for (fcd_index p = a->rowptr[i]; p < a->rowptr[i + 1]; p++) {
      fcd_index j = a->col[p];
      fcd_real t = fabs(a->val[p]) * fabs(x[i]) * fabs(x[j]);
      s += a->upper && j != i ? 2 * t : t;
    }
  return s;
}

/* ---- the four products of a dense symmetric matrix in one pass ---------------------
 * A reduced model's step needs K u, K v, |K| |u| and |K| |v| (the certificate's scales)
 * of the same dense K: four dsymv passes over one triangle each (two of them over the
 * kept |K|), some 6 of every 20 ms of the million-dof brake's step. One pass over the
 * lower triangle, two columns at a time, does all four: each entry read once and its
 * absolute value taken in a register. The pass does the four products' eight
 * multiply-adds an entry, as many as the four dsymv, so it gains only where those are
 * bound by reading the matrix (its size beyond the cache); it needs the vector units
 * that BLAS' kernels use, hence a second build for AVX2 and FMA, taken when the
 * processor has them (asked at each call: a load-time resolver, GCC's target_clones,
 * runs before a thread sanitizer's runtime and crashed it). Its sums run in another
 * order than dsymv's:
 * the products agree with the separate ones to round-off, not to the bit. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define FCD__SYM4_V3 1 /* a second build of the pass for AVX2 and FMA, chosen per call */
#endif

#if defined(__GNUC__)
#define FCD__SYM4_VECTOR 1
typedef double sym4_v __attribute__((vector_size(32)));
typedef long long sym4_m __attribute__((vector_size(32)));
/* unaligned loads and stores, and |v| by clearing the sign bits (macros: a function
 * taking or returning the vector type would change its ABI between the clones) */
#define V_LD(p) __extension__({ sym4_v v_; memcpy(&v_, (p), sizeof v_); v_; })
#define V_ST(p, v) do { sym4_v w_ = (v); memcpy((p), &w_, sizeof w_); } while (0)
#define V_ABS(v) ((sym4_v)((sym4_m)(v) & (sym4_m){0x7fffffffffffffffLL, 0x7fffffffffffffffLL, \
                                                  0x7fffffffffffffffLL, 0x7fffffffffffffffLL}))
#define V_SET(x) ((sym4_v){(x), (x), (x), (x)})
#define V_SUM(v) (((v)[0] + (v)[1]) + ((v)[2] + (v)[3]))
#endif

/* the four products' share of rows i in [i0, i1) from columns a (x entries xa) and b (xb)
 * of the lower triangle: the columns' own rows accumulate in s[8] (a's y1 y2 z1 z2, then
 * b's) */
static inline void sym4_rows_scalar(fcd_index i0, fcd_index i1, const fcd_real *a,
                                    const fcd_real *b, const fcd_real xa[4],
                                    const fcd_real xb[4], const fcd_real *x1,
                                    const fcd_real *x2, fcd_real *y1, fcd_real *y2,
                                    fcd_real *z1, fcd_real *z2, fcd_real s[8]) {
  for (fcd_index i = i0; i < i1; i++) {
    fcd_real v = a[i], av = fabs(v), w = b[i], aw = fabs(w), u1 = x1[i], u2 = x2[i];
    y1[i] += v * xa[0] + w * xb[0];
    y2[i] += v * xa[1] + w * xb[1];
    z1[i] += av * xa[2] + aw * xb[2];
    z2[i] += av * xa[3] + aw * xb[3];
    s[0] += v * u1, s[1] += v * u2, s[2] += av * fabs(u1), s[3] += av * fabs(u2);
    s[4] += w * u1, s[5] += w * u2, s[6] += aw * fabs(u1), s[7] += aw * fabs(u2);
  }
}

__attribute__((always_inline)) static inline void
sym4_body(fcd_index n, const fcd_real *A, const fcd_real *x1, fcd_real *y1, const fcd_real *x2,
          fcd_real *y2, fcd_real *z1, fcd_real *z2) {
  fcd_index j = 0;
  for (; j + 2 <= n; j += 2) {
    const fcd_real *a = A + j * n, *b = a + n; /* columns j, j + 1 (= rows: symmetric) */
    const fcd_real xa[4] = {x1[j], x2[j], fabs(x1[j]), fabs(x2[j])};
    const fcd_real xb[4] = {x1[j + 1], x2[j + 1], fabs(x1[j + 1]), fabs(x2[j + 1])};
    fcd_real d = a[j], o = a[j + 1], e = b[j + 1], s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    /* the 2 x 2 diagonal block */
    y1[j] += d * xa[0] + o * xb[0], y2[j] += d * xa[1] + o * xb[1];
    z1[j] += fabs(d) * xa[2] + fabs(o) * xb[2], z2[j] += fabs(d) * xa[3] + fabs(o) * xb[3];
    y1[j + 1] += o * xa[0] + e * xb[0], y2[j + 1] += o * xa[1] + e * xb[1];
    z1[j + 1] += fabs(o) * xa[2] + fabs(e) * xb[2];
    z2[j + 1] += fabs(o) * xa[3] + fabs(e) * xb[3];
    fcd_index i = j + 2;
#ifdef FCD__SYM4_VECTOR
    sym4_v A1 = V_SET(xa[0]), A2 = V_SET(xa[1]), A3 = V_SET(xa[2]), A4 = V_SET(xa[3]);
    sym4_v B1 = V_SET(xb[0]), B2 = V_SET(xb[1]), B3 = V_SET(xb[2]), B4 = V_SET(xb[3]);
    sym4_v S[8] = {V_SET(0), V_SET(0), V_SET(0), V_SET(0),
                   V_SET(0), V_SET(0), V_SET(0), V_SET(0)};
    for (; i + 4 <= n; i += 4) {
      sym4_v v = V_LD(a + i), w = V_LD(b + i), u1 = V_LD(x1 + i), u2 = V_LD(x2 + i);
      sym4_v av = V_ABS(v), aw = V_ABS(w), au1 = V_ABS(u1), au2 = V_ABS(u2);
      V_ST(y1 + i, V_LD(y1 + i) + v * A1 + w * B1);
      V_ST(y2 + i, V_LD(y2 + i) + v * A2 + w * B2);
      V_ST(z1 + i, V_LD(z1 + i) + av * A3 + aw * B3);
      V_ST(z2 + i, V_LD(z2 + i) + av * A4 + aw * B4);
      S[0] += v * u1, S[1] += v * u2, S[2] += av * au1, S[3] += av * au2;
      S[4] += w * u1, S[5] += w * u2, S[6] += aw * au1, S[7] += aw * au2;
    }
    for (int k = 0; k < 8; k++) s[k] += V_SUM(S[k]);
#endif
    sym4_rows_scalar(i, n, a, b, xa, xb, x1, x2, y1, y2, z1, z2, s);
    y1[j] += s[0], y2[j] += s[1], z1[j] += s[2], z2[j] += s[3];
    y1[j + 1] += s[4], y2[j + 1] += s[5], z1[j + 1] += s[6], z2[j + 1] += s[7];
  }
  if (j < n) { /* the last column of an odd order: its diagonal entry alone */
    fcd_real d = A[j * n + j];
    y1[j] += d * x1[j], y2[j] += d * x2[j];
    z1[j] += fabs(d) * fabs(x1[j]), z2[j] += fabs(d) * fabs(x2[j]);
  }
}

static void sym4_plain(fcd_index n, const fcd_real *A, const fcd_real *x1, fcd_real *y1,
                       const fcd_real *x2, fcd_real *y2, fcd_real *z1, fcd_real *z2) {
  sym4_body(n, A, x1, y1, x2, y2, z1, z2);
}

#ifdef FCD__SYM4_V3
__attribute__((target("avx2,fma"))) static void
sym4_v3(fcd_index n, const fcd_real *A, const fcd_real *x1, fcd_real *y1, const fcd_real *x2,
        fcd_real *y2, fcd_real *z1, fcd_real *z2) {
  sym4_body(n, A, x1, y1, x2, y2, z1, z2);
}
#endif

static void sym4_pass(fcd_index n, const fcd_real *A, const fcd_real *x1, fcd_real *y1,
                      const fcd_real *x2, fcd_real *y2, fcd_real *z1, fcd_real *z2) {
#ifdef FCD__SYM4_V3
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    sym4_v3(n, A, x1, y1, x2, y2, z1, z2);
    return;
  }
#endif
  sym4_plain(n, A, x1, y1, x2, y2, z1, z2);
}

void fcd__csr_gaxpy2_abs(const fcd__csr *a, const fcd_real *x1, fcd_real *y1,
                         const fcd_real *x2, fcd_real *y2, fcd_real *z1, fcd_real *z2) {
  if (!a->set) return;
  if (a->sym) { /* one pass over one triangle for the four */
    sym4_pass(a->n, a->val, x1, y1, x2, y2, z1, z2);
    return;
  }
  if (a->dense) { /* the dense rows: nothing shared to fuse */
    fcd__csr_gaxpy2(a, 1.0, x1, y1, x2, y2);
    fcd__csr_abs_apply(a, x1, z1);
    fcd__csr_abs_apply(a, x2, z2);
    return;
  }
  if (!a->upper) {
    for (fcd_index i = 0; i < a->n; i++) {
      fcd_real s1 = 0.0, s2 = 0.0;
      for (fcd_index p = a->rowptr[i]; p < a->rowptr[i + 1]; p++) {
        fcd_index j = a->col[p];
        fcd_real v = a->val[p], av = fabs(v);
        s1 += v * x1[j];
        s2 += v * x2[j];
        z1[i] += av * fabs(x1[j]);
        z2[i] += av * fabs(x2[j]);
      }
      y1[i] += s1;
      y2[i] += s2;
    }
    return;
  }
  for (fcd_index i = 0; i < a->n; i++) {
    fcd_real s1 = 0.0, s2 = 0.0, dg = 0.0, xi1 = x1[i], xi2 = x2[i];
    fcd_real ai1 = fabs(xi1), ai2 = fabs(xi2);
    for (fcd_index p = a->rowptr[i]; p < a->rowptr[i + 1]; p++) {
      fcd_index j = a->col[p];
      fcd_real v = a->val[p], av = fabs(v);
      s1 += v * x1[j];
      s2 += v * x2[j];
      y1[j] += v * xi1;
      y2[j] += v * xi2;
      dg += j == i ? v : 0.0;
      z1[i] += av * fabs(x1[j]);
      z2[i] += av * fabs(x2[j]);
      if (j != i) {
        z1[j] += av * ai1;
        z2[j] += av * ai2;
      }
    }
    y1[i] += s1 - dg * xi1;
    y2[i] += s2 - dg * xi2;
  }
}

void fcd__csr_abs_apply(const fcd__csr *a, const fcd_real *x, fcd_real *y) {
  if (!a->set) return;
  fcd_real *ax = a->sym ? fcd__malloc_array((size_t)a->n, sizeof *ax) : NULL;
  if (ax) { /* |A| |x| by dsymv on the kept |A| (the row loop when |x| has no room) */
    for (fcd_index i = 0; i < a->n; i++) ax[i] = fabs(x[i]);
    fcd__dense_symv(a->n, a->absval, 1.0, ax, y);
    fcd__free(ax);
    return;
  }
  if (a->dense) {
    for (fcd_index i = 0; i < a->n; i++) y[i] += dense_abs_dot(a->val + i * a->n, x, a->n);
    return;
  }
  for (fcd_index i = 0; i < a->n; i++)
    for (fcd_index p = a->rowptr[i]; p < a->rowptr[i + 1]; p++) {
      fcd_index j = a->col[p];
      fcd_real v = fabs(a->val[p]);
      y[i] += v * fabs(x[j]);
      if (a->upper && j != i) y[j] += v * fabs(x[i]);
    }
}

fcd_status fcd__csr_validate(const fcd_system *sys, const char *what, fcd_index n,
                             const fcd_index *rowptr, const fcd_index *col,
                             const fcd_real *val, int upper) {
  if (!rowptr) return fcd__err(sys, FCD_E_INVALID_ARG, "%s: row_ptr is NULL", what);
  if (rowptr[0] != 0)
    return fcd__err(sys, FCD_E_INVALID_ARG, "%s: row_ptr[0] is %lld, must be 0", what,
                    (long long)rowptr[0]);
  for (fcd_index i = 0; i < n; i++)
    if (rowptr[i + 1] < rowptr[i])
      return fcd__err(sys, FCD_E_INVALID_ARG,
                      "%s: row_ptr decreases at row %lld (%lld < %lld)", what,
                      (long long)i, (long long)rowptr[i + 1], (long long)rowptr[i]);
  if (rowptr[n] > 0 && (!col || !val))
    return fcd__err(sys, FCD_E_INVALID_ARG, "%s: %s is NULL with %lld entries", what,
                    col ? "values" : "col_idx", (long long)rowptr[n]);
  for (fcd_index i = 0; i < n; i++) {
    for (fcd_index p = rowptr[i]; p < rowptr[i + 1]; p++) {
      fcd_index j = col[p];
      if (j < 0 || j >= n)
        return fcd__err(sys, FCD_E_INVALID_ARG,
                        "%s: column index %lld of row %lld out of range [0, %lld)", what,
                        (long long)j, (long long)i, (long long)n);
      if (p > rowptr[i] && j <= col[p - 1])
        return fcd__err(sys, FCD_E_INVALID_ARG,
                        "%s: columns of row %lld not strictly increasing (%lld after %lld)",
                        what, (long long)i, (long long)j, (long long)col[p - 1]);
      if (upper && j < i)
        return fcd__err(sys, FCD_E_INVALID_ARG,
                        "%s: entry (%lld, %lld) is below the diagonal in upper-triangle "
                        "storage", what, (long long)i, (long long)j);
      if (!isfinite(val[p]))
        return fcd__err(sys, FCD_E_INVALID_ARG, "%s: entry (%lld, %lld) is not finite",
                        what, (long long)i, (long long)j);
    }
  }
  return FCD_OK;
}

fcd_index fcd__csr_find(const fcd__csr *a, fcd_index i, fcd_index j) {
  fcd_index lo = a->rowptr[i], hi = a->rowptr[i + 1];
  while (lo < hi) {
    fcd_index mid = lo + (hi - lo) / 2;
    if (a->col[mid] < j) lo = mid + 1;
    else hi = mid;
  }
  return (lo < a->rowptr[i + 1] && a->col[lo] == j) ? lo : -1;
}

fcd_real fcd__csr_asymmetry(const fcd__csr *a) {
  if (!a->set || a->upper) return 0.0;
  fcd_real amax = 0.0, dmax = 0.0;
  for (fcd_index i = 0; i < a->n; i++) {
    for (fcd_index p = a->rowptr[i]; p < a->rowptr[i + 1]; p++) {
      fcd_index j = a->col[p];
      amax = fmax(amax, fabs(a->val[p]));
      if (j == i) continue;
      fcd_index q = fcd__csr_find(a, j, i);
      fcd_real mirror = q >= 0 ? a->val[q] : 0.0;
      dmax = fmax(dmax, fabs(a->val[p] - mirror));
    }
  }
  return amax > 0.0 ? dmax / amax : 0.0;
}

fcd_status fcd__csr_symmetric_part(const fcd_system *sys, const fcd__csr *A, fcd__csr *S) {
  fcd_index n = A->n, nnz = A->rowptr[n];
  memset(S, 0, sizeof *S);
  /* the transpose by counting, then a merge of each row of A and A^T */
  fcd_index *tp = fcd__calloc((size_t)n + 2, sizeof *tp);
  fcd_index *tc = fcd__malloc_array((size_t)nnz + 1, sizeof *tc);
  fcd_real *tv = fcd__malloc_array((size_t)nnz + 1, sizeof *tv);
  S->rowptr = fcd__malloc_array((size_t)n + 1, sizeof *S->rowptr);
  S->col = fcd__malloc_array((size_t)(2 * nnz) + 1, sizeof *S->col);
  S->val = fcd__malloc_array((size_t)(2 * nnz) + 1, sizeof *S->val);
  if (!tp || !tc || !tv || !S->rowptr || !S->col || !S->val) {
    fcd__free(tp);
    fcd__free(tc);
    fcd__free(tv);
    fcd__free(S->rowptr);
    fcd__free(S->col);
    fcd__free(S->val);
    memset(S, 0, sizeof *S);
    return fcd__err(sys, FCD_E_NOMEM, "out of memory forming a symmetric part");
  }
  for (fcd_index p = 0; p < nnz; p++) tp[A->col[p] + 2]++;
  for (fcd_index i = 0; i < n; i++) tp[i + 2] += tp[i + 1];
  for (fcd_index i = 0; i < n; i++)
    for (fcd_index p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
      fcd_index q = tp[A->col[p] + 1]++;
      tc[q] = i;
      tv[q] = A->val[p];
    }
  /* tp[i] .. tp[i+1] is row i of A^T, columns increasing */
  fcd_index k = 0;
  for (fcd_index i = 0; i < n; i++) {
    S->rowptr[i] = k;
    fcd_index a = A->rowptr[i], ae = A->rowptr[i + 1], b = tp[i], be = tp[i + 1];
    while (a < ae || b < be) {
      fcd_index ca = a < ae ? A->col[a] : n, cb = b < be ? tc[b] : n;
      fcd_real v = 0;
      fcd_index c = ca < cb ? ca : cb;
      if (ca == c) v += 0.5 * A->val[a++];
      if (cb == c) v += 0.5 * tv[b++];
      S->col[k] = c;
      S->val[k++] = v;
    }
  }
  S->rowptr[n] = k;
  S->n = n;
  S->owned = 1;
  S->set = 1;
  fcd__free(tp);
  fcd__free(tc);
  fcd__free(tv);
  return FCD_OK;
}

fcd_index fcd__csr_void_row(const fcd_index *rowptr, const fcd_index *col,
                            const fcd_real *val, fcd_index lo, fcd_index hi, int spd,
                            fcd_real *diag) {
  *diag = 0;
  /* an LU's row stops at its first non-zero: the contact solvers' Newton Jacobians are
   * refactored by KLU at every iteration, for little more than their entries' count */
  for (fcd_index i = lo; i < hi; i++) {
    fcd_index p = rowptr[i], end = rowptr[i + 1];
    fcd_real d = 0;
    if (spd)
      for (; p < end; p++) d += col[p] == i ? val[p] : 0;
    else
      while (p < end && val[p] == 0) p++;
    if (spd ? !(d > 0) : p == end) {
      *diag = d;
      return i;
    }
  }
  return -1;
}
