/* Factorizations on the free dofs (CHOLMOD, UMFPACK, KLU) against dense LAPACK on random
 * systems built here, and the explicit reuse of symbolic/numeric factorizations. */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include <dlfcn.h>
#include <lapacke.h>

#include "../fcdtest.h"
#include "fcd_private.h"

/* random sparse matrices on n dofs, kept dense too (the independent reference) */
typedef struct {
  int n;
  double *dm, *dk, *dc; /* dense n x n, row-major */
} dense3;

static void add_coo(fcd_system *sys, fcd_matrix_kind kind, int n, double *dense, int sym,
                    double density, double diag) {
  fcd_index cap = (fcd_index)n * n;
  fcd_index *r = malloc(cap * sizeof *r), *c = malloc(cap * sizeof *c);
  double *v = malloc(cap * sizeof *v);
  fcd_index t = 0;
  for (int i = 0; i < n; i++)
    for (int j = sym ? i : 0; j < n; j++) {
      if (i != j && fcdt_rand() > density) continue;
      double x = i == j ? diag * (1 + fcdt_rand()) : fcdt_rand() - 0.5;
      r[t] = i;
      c[t] = j;
      v[t] = x;
      t++;
      dense[i * n + j] += x;
      if (sym && i != j) dense[j * n + i] += x;
    }
  CHECK_ST(fcd_system_set_matrix_coo(sys, kind, t, r, c, v, sym ? FCD_COO_UPPER : 0), FCD_OK);
  free(r);
  free(c);
  free(v);
}

/* dense restriction of a*M + b*C + c*K to the free dofs, column-major for LAPACK */
static double *dense_combo(const fcd_system *sys, const dense3 *d, double a, double b,
                           double c, int *nf_out) {
  int n = d->n, nf = 0;
  int *fr = malloc(n * sizeof *fr);
  fcd_index nfix = fcd_system_num_fixed(sys);
  fcd_index *fixed = malloc((nfix + 1) * sizeof *fixed);
  fcd_system_get_fixed(sys, fixed, NULL);
  for (int i = 0; i < n; i++) {
    int isfixed = 0;
    for (fcd_index k = 0; k < nfix; k++) isfixed |= fixed[k] == i;
    if (!isfixed) fr[nf++] = i;
  }
  double *A = calloc((size_t)nf * nf, sizeof *A);
  for (int jj = 0; jj < nf; jj++)
    for (int ii = 0; ii < nf; ii++) {
      int i = fr[ii], j = fr[jj];
      A[ii + jj * nf] = a * d->dm[i * n + j] + b * d->dc[i * n + j] + c * d->dk[i * n + j];
    }
  free(fr);
  free(fixed);
  *nf_out = nf;
  return A;
}

static double max_rel_diff(const double *x, const double *y, int n) {
  double d = 0, s = 0;
  for (int i = 0; i < n; i++) {
    d = fmax(d, fabs(x[i] - y[i]));
    s = fmax(s, fabs(y[i]));
  }
  return d / (s > 0 ? s : 1);
}

static void test_spd(int n, int nfixed) {
  fcd_system *sys;
  CHECK_ST(fcd_system_create(n, &sys), FCD_OK);
  dense3 d = {n, calloc(n * n, sizeof(double)), calloc(n * n, sizeof(double)),
              calloc(n * n, sizeof(double))};
  add_coo(sys, FCD_MASS, n, d.dm, 1, 0.05, 10.0);
  add_coo(sys, FCD_STIFFNESS, n, d.dk, 1, 0.1, 30.0);
  add_coo(sys, FCD_DAMPING, n, d.dc, 1, 0.02, 5.0);
  for (int k = 0; k < nfixed; k++) {
    fcd_index dof = (fcd_index)(fcdt_rand() * n);
    CHECK_ST(fcd_system_fix_dofs(sys, 1, &dof, NULL), FCD_OK);
  }
  fcd__factor *f;
  CHECK_ST(fcd__factor_create(sys, FCD__FACTOR_SPD, &f), FCD_OK);
  const double a = 1.0, b = 0.01, c = 1e-4; /* the iteration-matrix shape M + h C + h^2 K */
  CHECK_ST(fcd__factor_combination(f, a, b, c), FCD_OK);
  int nf;
  double *A = dense_combo(sys, &d, a, b, c, &nf);
  CHECK(nf == fcd__factor_size(f));
  enum { NRHS = 3 };
  double *rhs = malloc((size_t)nf * NRHS * sizeof *rhs), *x = malloc((size_t)nf * NRHS * sizeof *x);
  for (int i = 0; i < nf * NRHS; i++) rhs[i] = fcdt_rand() - 0.5;
  CHECK_ST(fcd__factor_solve(f, NRHS, rhs, x), FCD_OK);
  CHECK(LAPACKE_dposv(LAPACK_COL_MAJOR, 'U', nf, NRHS, A, nf, rhs, nf) == 0);
  CHECK(max_rel_diff(x, rhs, nf * NRHS) < 1e-12);

  /* reuse: same coefficients and values -> nothing redone */
  fcd__factor_stats s0 = fcd__factor_get_stats(f);
  CHECK(s0.analyses == 1 && s0.factorizations == 1 && s0.solves == NRHS);
  CHECK_ST(fcd__factor_combination(f, a, b, c), FCD_OK);
  fcd__factor_stats s1 = fcd__factor_get_stats(f);
  CHECK(s1.analyses == 1 && s1.factorizations == 1);
  /* new coefficients (a new step h) -> numeric refactorization only */
  CHECK_ST(fcd__factor_combination(f, a, 2 * b, 4 * c), FCD_OK);
  fcd__factor_stats s2 = fcd__factor_get_stats(f);
  CHECK(s2.analyses == 1 && s2.factorizations == 2);
  /* new values (Rayleigh) -> numeric only */
  CHECK_ST(fcd_system_set_rayleigh(sys, 0.1, 0.0), FCD_OK);
  CHECK_ST(fcd__factor_combination(f, a, 2 * b, 4 * c), FCD_OK);
  fcd__factor_stats s3 = fcd__factor_get_stats(f);
  CHECK(s3.analyses == 1 && s3.factorizations == 3);
  /* and the Rayleigh term enters as alpha * M inside the damping */
  free(A);
  for (int i = 0; i < n * n; i++) d.dc[i] += 0.1 * d.dm[i];
  A = dense_combo(sys, &d, a, 2 * b, 4 * c, &nf);
  for (int i = 0; i < nf; i++) rhs[i] = fcdt_rand() - 0.5;
  CHECK_ST(fcd__factor_solve(f, 1, rhs, x), FCD_OK);
  CHECK(LAPACKE_dposv(LAPACK_COL_MAJOR, 'L', nf, 1, A, nf, rhs, nf) == 0);
  CHECK(max_rel_diff(x, rhs, nf) < 1e-12);
  /* new prescribed dof -> the pattern changed -> new analysis */
  fcd_index extra = n - 1;
  CHECK_ST(fcd_system_clear_fixed(sys), FCD_OK);
  CHECK_ST(fcd_system_fix_dofs(sys, 1, &extra, NULL), FCD_OK);
  CHECK_ST(fcd__factor_combination(f, a, 2 * b, 4 * c), FCD_OK);
  fcd__factor_stats s4 = fcd__factor_get_stats(f);
  CHECK(s4.analyses == 2 && s4.factorizations == 4);
  CHECK(fcd__factor_size(f) == n - 1);
  free(A);
  A = dense_combo(sys, &d, a, 2 * b, 4 * c, &nf);
  for (int i = 0; i < nf; i++) rhs[i] = fcdt_rand() - 0.5;
  CHECK_ST(fcd__factor_solve(f, 1, rhs, rhs), FCD_OK); /* in place */
  free(x);
  x = malloc((size_t)nf * sizeof *x);
  memcpy(x, rhs, (size_t)nf * sizeof *x);
  /* check the residual A x = b by rebuilding b: solve again by LAPACK from A x */
  double *ax = calloc(nf, sizeof *ax);
  for (int i = 0; i < nf; i++)
    for (int j = 0; j < nf; j++) ax[i] += A[i + j * nf] * x[j];
  CHECK_ST(fcd__factor_solve(f, 1, ax, ax), FCD_OK);
  CHECK(max_rel_diff(ax, x, nf) < 1e-12);
  free(ax);
  free(A);
  free(rhs);
  free(x);
  fcd__factor_destroy(f);
  free(d.dm);
  free(d.dk);
  free(d.dc);
  fcd_system_destroy(sys);
}

static void test_lu(int n) {
  fcd_system *sys;
  CHECK_ST(fcd_system_create(n, &sys), FCD_OK);
  dense3 d = {n, calloc(n * n, sizeof(double)), calloc(n * n, sizeof(double)),
              calloc(n * n, sizeof(double))};
  add_coo(sys, FCD_MASS, n, d.dm, 1, 0.05, 1.0);
  add_coo(sys, FCD_STIFFNESS, n, d.dk, 0, 0.08, 3.0); /* non-symmetric: friction-like */
  fcd_index fx[2] = {0, n / 2};
  CHECK_ST(fcd_system_fix_dofs(sys, 2, fx, NULL), FCD_OK);
  fcd__factor *f;
  CHECK_ST(fcd__factor_create(sys, FCD__FACTOR_LU, &f), FCD_OK);
  CHECK_ST(fcd__factor_combination(f, -0.7, 0.0, 1.0), FCD_OK); /* K - sigma M */
  int nf;
  double *A = dense_combo(sys, &d, -0.7, 0.0, 1.0, &nf);
  double *b = malloc(2 * nf * sizeof *b), *x = malloc(2 * nf * sizeof *x);
  lapack_int *ipiv = malloc(nf * sizeof *ipiv);
  for (int i = 0; i < 2 * nf; i++) b[i] = fcdt_rand() - 0.5;
  CHECK_ST(fcd__factor_solve(f, 2, b, x), FCD_OK);
  CHECK(LAPACKE_dgesv(LAPACK_COL_MAJOR, nf, 2, A, nf, ipiv, b, nf) == 0);
  CHECK(max_rel_diff(x, b, 2 * nf) < 1e-11);
  fcd__factor_stats s = fcd__factor_get_stats(f);
  CHECK(s.analyses == 1 && s.factorizations == 1 && s.solves == 2);
  /* a structurally fine but numerically singular matrix: 0 * M + 0 * K */
  CHECK_ST(fcd__factor_combination(f, 0.0, 0.0, 0.0), FCD_E_SINGULAR);
  CHECK(strstr(fcd_system_last_error(sys), "singular") != NULL);
  CHECK_ST(fcd__factor_solve(f, 1, b, x), FCD_E_STATE); /* no stale factor is used */
  CHECK_ST(fcd__factor_combination(f, -0.7, 0.0, 1.0), FCD_OK); /* and it recovers */
  CHECK_ST(fcd__factor_solve(f, 1, x, x), FCD_OK);
  free(A);
  free(b);
  free(x);
  free(ipiv);
  fcd__factor_destroy(f);
  free(d.dm);
  free(d.dk);
  free(d.dc);
  fcd_system_destroy(sys);
}

/* The free operator's serial LU with a Schur set (the contact dofs of a Delassus
 * operator): UMFPACK ordered with the set last gives the block of A^-1 on it from the
 * trailing block of L U, against LAPACK's dense inverse; solves stay exact; a new set is
 * a new analysis. Then a matrix on which UMFPACK must pivot a set's row for an earlier
 * column: the block is refused (FCD_E_UNSUPPORTED, its callers then solve). */
static void test_lu_schur(int n) {
  fcd_system *sys;
  CHECK_ST(fcd_system_create(n, &sys), FCD_OK);
  dense3 d = {n, calloc(n * n, sizeof(double)), calloc(n * n, sizeof(double)),
              calloc(n * n, sizeof(double))};
  add_coo(sys, FCD_MASS, n, d.dm, 1, 0.05, 1.0);
  add_coo(sys, FCD_STIFFNESS, n, d.dk, 0, 0.08, 3.0);
  fcd_index fx[2] = {1, n / 3};
  CHECK_ST(fcd_system_fix_dofs(sys, 2, fx, NULL), FCD_OK);
  fcd__factor *f;
  CHECK_ST(fcd__factor_create_free(sys, &f), FCD_OK);
  int nf;
  double *A = dense_combo(sys, &d, 0.0, 0.0, 1.0, &nf); /* column-major, free dofs */
  lapack_int *ipiv = malloc(nf * sizeof *ipiv);
  CHECK(LAPACKE_dgetrf(LAPACK_COL_MAJOR, nf, nf, A, nf, ipiv) == 0);
  CHECK(LAPACKE_dgetri(LAPACK_COL_MAJOR, nf, A, nf, ipiv) == 0);
  for (int pass = 0; pass < 2; pass++) {
    fcd_index idx[64], s = 0;
    for (int i = pass; i < nf && s < 64; i += 5 + pass) idx[s++] = i;
    CHECK_ST(fcd__factor_set_schur_free(f, 17 + pass, s, idx), FCD_OK);
    CHECK_ST(fcd__factor_combination_free(f, 0.0, 0.0, 1.0), FCD_OK);
    CHECK(fcd__factor_get_kind(f) == FCD__FACTOR_LU);
    CHECK(fcd__factor_get_stats(f).analyses == pass + 1);
    double worst = 0, big = 0;
    fcd__inverse_cols blk;
    CHECK_ST(fcd__factor_inverse_cols_free(f, s, idx, &blk), FCD_OK);
    CHECK(blk.ncols == s && !blk.lower); /* serially: every column, whole */
    for (fcd_index k = 0; k < blk.ncols; k++)
      for (fcd_index a = 0; a < s; a++) {
        double ref = A[idx[a] + idx[blk.col[k]] * nf]; /* (A^-1)(idx[a], idx[col[k]]) */
        worst = fmax(worst, fabs(blk.a[k * s + a] - ref));
        big = fmax(big, fabs(ref));
      }
    printf("LU ordered with %lld of %d dofs last: A^-1 on them %.1e from LAPACK's\n",
           (long long)s, nf, worst / big);
    CHECK(worst <= 1e-12 * big);
    fcd__inverse_cols_clear(&blk);
    double *b = malloc(nf * sizeof *b), *x = malloc(nf * sizeof *x), *y = calloc(nf, sizeof *y);
    for (int i = 0; i < nf; i++) b[i] = fcdt_rand() - 0.5;
    CHECK_ST(fcd__factor_solve_free(f, 1, b, x), FCD_OK);
    for (int j = 0; j < nf; j++)
      for (int i = 0; i < nf; i++) y[i] += A[i + j * nf] * b[j];
    CHECK(max_rel_diff(x, y, nf) < 1e-11);
    free(b);
    free(x);
    free(y);
  }
  /* every free dof in the set: nothing to eliminate before it, refused */
  fcd_index *all = malloc(nf * sizeof *all);
  for (int i = 0; i < nf; i++) all[i] = i;
  CHECK_ST(fcd__factor_set_schur_free(f, 99, nf, all), FCD_OK);
  CHECK_ST(fcd__factor_combination_free(f, 0.0, 0.0, 1.0), FCD_OK);
  fcd__inverse_cols blk;
  CHECK_ST(fcd__factor_inverse_cols_free(f, nf, all, &blk), FCD_E_UNSUPPORTED);
  CHECK(blk.a == NULL && blk.col == NULL); /* nothing left to free */
  free(all);
  free(A);
  free(ipiv);
  fcd__factor_destroy_free(f);
  free(d.dm);
  free(d.dk);
  free(d.dc);
  fcd_system_destroy(sys);
  /* K = [0 0 0 1; 0 2 1 0; 0 0.5 3 0; 1 0 0 4], the set {3}: dof 0's only coupling is
   * to dof 3, so its pivot is row 3 and the last pivot is not the set's */
  CHECK_ST(fcd_system_create(4, &sys), FCD_OK);
  const fcd_index kr[7] = {0, 1, 1, 2, 2, 3, 3}, kc[7] = {3, 1, 2, 1, 2, 0, 3};
  const double kv[7] = {1, 2, 1, 0.5, 3, 1, 4};
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, 7, kr, kc, kv, FCD_COO_FULL), FCD_OK);
  CHECK_ST(fcd__factor_create_free(sys, &f), FCD_OK);
  fcd_index last = 3;
  fcd__inverse_cols w;
  CHECK_ST(fcd__factor_set_schur_free(f, 5, 1, &last), FCD_OK);
  CHECK_ST(fcd__factor_combination_free(f, 0.0, 0.0, 1.0), FCD_OK);
  CHECK_ST(fcd__factor_inverse_cols_free(f, 1, &last, &w), FCD_E_UNSUPPORTED);
  fcd__factor_destroy_free(f);
  fcd_system_destroy(sys);
}

/* Y^T Y for a CSC Y (n rows, ncol columns) into G (ncol x ncol, column-major); and
 * whether every entry of Y lies in rows >= from */
static int gram_from(fcd_index ncol, const fcd_index *yp, const fcd_index *yi,
                     const double *yx, int n, fcd_index from, double *G) {
  double *Y = calloc((size_t)n * ncol, sizeof *Y);
  int inside = 1;
  for (fcd_index j = 0; j < ncol; j++)
    for (fcd_index e = yp[j]; e < yp[j + 1]; e++) {
      Y[j * n + yi[e]] = yx[e];
      inside &= yi[e] >= from;
    }
  for (fcd_index a = 0; a < ncol; a++)
    for (fcd_index b = 0; b < ncol; b++) {
      double t = 0;
      for (int i = 0; i < n; i++) t += Y[a * n + i] * Y[b * n + i];
      G[a + b * ncol] = t;
    }
  free(Y);
  return inside;
}

/* The free operator's serial Cholesky with a Schur set (the contact dofs): CHOLMOD
 * ordered with the set last (METIS on the others) ends L with the Schur complement's
 * factor. Against LAPACK's dense inverse of the SPD matrix built here: the block of A^-1
 * on the set (its inverse, fcd__factor_inverse_cols_free), and Y = L^-1 P B for columns
 * B on the set (a Delassus operator's H^T), whose Gram matrix Y^T Y must be B^T A^-1 B
 * whatever the order, and whose rows must all be L's last s. A column off the set goes
 * through CHOLMOD's sparse solve and must give the same product. Solves and half solves
 * stay exact, and a new set is a new analysis. */
static void test_chol_schur(int n, double density) {
  fcd_system *sys;
  CHECK_ST(fcd_system_create(n, &sys), FCD_OK);
  dense3 d = {n, calloc(n * n, sizeof(double)), calloc(n * n, sizeof(double)),
              calloc(n * n, sizeof(double))};
  /* diagonally dominant: off-diagonal entries below 0.5, about density n of them a row */
  add_coo(sys, FCD_STIFFNESS, n, d.dk, 1, density, 2.0 + density * n);
  fcd_index fx[2] = {2, n / 2};
  CHECK_ST(fcd_system_fix_dofs(sys, 2, fx, NULL), FCD_OK);
  fcd__factor *f;
  CHECK_ST(fcd__factor_create_free(sys, &f), FCD_OK);
  int nf;
  double *A = dense_combo(sys, &d, 0.0, 0.0, 1.0, &nf);
  double *Ainv = malloc((size_t)nf * nf * sizeof *Ainv);
  memcpy(Ainv, A, (size_t)nf * nf * sizeof *Ainv);
  CHECK(LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', nf, Ainv, nf) == 0);
  CHECK(LAPACKE_dpotri(LAPACK_COL_MAJOR, 'L', nf, Ainv, nf) == 0);
  for (int j = 0; j < nf; j++)
    for (int i = 0; i < j; i++) Ainv[i + j * nf] = Ainv[j + i * nf];
  for (int pass = 0; pass < 2; pass++) {
    fcd_index idx[80], s = 0;
    for (int i = 1 + pass; i < nf && s < 80; i += 4 + pass) idx[s++] = i;
    CHECK_ST(fcd__factor_set_schur_free(f, 31 + pass, s, idx), FCD_OK);
    CHECK_ST(fcd__factor_combination_free(f, 0.0, 0.0, 1.0), FCD_OK);
    CHECK(fcd__factor_get_kind(f) == FCD__FACTOR_SPD);
    CHECK(fcd__factor_get_stats(f).analyses == pass + 1);
    fcd__inverse_cols blk;
    CHECK_ST(fcd__factor_inverse_cols_free(f, s, idx, &blk), FCD_OK);
    CHECK(blk.ncols == s && !blk.lower);
    double worst = 0, big = 0;
    for (fcd_index k = 0; k < blk.ncols; k++)
      for (fcd_index a = 0; a < s; a++) {
        double ref = Ainv[idx[a] + idx[blk.col[k]] * nf];
        worst = fmax(worst, fabs(blk.a[k * s + a] - ref));
        big = fmax(big, fabs(ref));
      }
    printf("Cholesky ordered with %lld of %d dofs last: A^-1 on them %.1e from LAPACK's\n",
           (long long)s, nf, worst / big);
    CHECK(worst <= 1e-12 * big);
    fcd__inverse_cols_clear(&blk);
    /* B: ncol columns of two entries each on the set (a contact frame's rows), and with
     * off = 1 one more column reaching dof 0, outside it */
    for (int off = 0; off < 2; off++) {
      fcd_index ncol = s / 2 + off, bp[48], bi[96];
      double bx[96];
      for (fcd_index j = 0; j < s / 2; j++) {
        bp[j] = 2 * j;
        bi[2 * j] = idx[2 * j];
        bi[2 * j + 1] = idx[(2 * j + 3) % s];
        bx[2 * j] = fcdt_rand() - 0.5;
        bx[2 * j + 1] = fcdt_rand() - 0.5;
      }
      fcd_index base = s / 2 * 2;
      if (off) {
        bp[s / 2] = base;
        bi[base] = 0;
        bx[base] = 1.0;
      }
      bp[ncol] = base + off;
      fcd_index *yp, *yi;
      double *yx;
      fcd_status fst = fcd__factor_forward_sparse(f, ncol, bp, bi, bx, &yp, &yi, &yx);
      CHECK_ST(fst, FCD_OK);
      if (fst != FCD_OK) continue;
      double *G = malloc((size_t)ncol * ncol * sizeof *G);
      int inside = gram_from(ncol, yp, yi, yx, nf, nf - s, G);
      CHECK(inside || off); /* on the set: nothing above L's trailing block */
      double gw = 0, gb = 0;
      for (fcd_index a = 0; a < ncol; a++)
        for (fcd_index b = 0; b < ncol; b++) {
          double ref = 0;
          for (fcd_index p = bp[a]; p < bp[a + 1]; p++)
            for (fcd_index q = bp[b]; q < bp[b + 1]; q++)
              ref += bx[p] * Ainv[bi[p] + bi[q] * nf] * bx[q];
          gw = fmax(gw, fabs(G[a + b * ncol] - ref));
          gb = fmax(gb, fabs(ref));
        }
      printf("  Y' Y of %lld columns%s: %.1e from B' A^-1 B\n", (long long)ncol,
             off ? " (one off the set)" : "", gw / gb);
      CHECK(gw <= 1e-12 * gb);
      free(G);
      fcd__free(yp);
      fcd__free(yi);
      fcd__free(yx);
    }
    double *b = malloc(nf * sizeof *b), *x = malloc(nf * sizeof *x), *y = calloc(nf, sizeof *y);
    for (int i = 0; i < nf; i++) b[i] = fcdt_rand() - 0.5;
    for (int j = 0; j < nf; j++)
      for (int i = 0; i < nf; i++) y[i] += Ainv[i + j * nf] * b[j];
    CHECK_ST(fcd__factor_solve_free(f, 1, b, x), FCD_OK);
    CHECK(max_rel_diff(x, y, nf) < 1e-11);
    CHECK_ST(fcd__factor_half(f, 0, b, x), FCD_OK);
    CHECK_ST(fcd__factor_half(f, 1, x, x), FCD_OK);
    CHECK(max_rel_diff(x, y, nf) < 1e-11);
    free(b);
    free(x);
    free(y);
  }
  free(A);
  free(Ainv);
  fcd__factor_destroy_free(f);
  free(d.dm);
  free(d.dk);
  free(d.dc);
  fcd_system_destroy(sys);
}

/* The nested-dissection orders with a set last: a 12 x 12 x 12 grid (7-point stencil),
 * its bottom face last. Both forms (CSR for UMFPACK, 1-based triples with duplicates for
 * MUMPS) must give a permutation with the face in the last places, in the order given,
 * and the same order; a set of every dof leaves METIS nothing to order (no order). */
static void test_nd_order(void) {
  enum { G = 12, N = G * G * G };
  fcd_index *rp = malloc((N + 1) * sizeof *rp), *ci = malloc(7 * N * sizeof *ci);
  int *irn = malloc(8 * N * sizeof *irn), *jcn = malloc(8 * N * sizeof *jcn);
  int *last = calloc(N, sizeof *last), list[G * G], s = 0;
  size_t nt = 0;
  rp[0] = 0;
  for (int i = 0; i < N; i++) {
    int x = i % G, y = (i / G) % G, z = i / (G * G), nb[7] = {i, -1, -1, -1, -1, -1, -1};
    if (x > 0) nb[1] = i - 1;
    if (x < G - 1) nb[2] = i + 1;
    if (y > 0) nb[3] = i - G;
    if (y < G - 1) nb[4] = i + G;
    if (z > 0) nb[5] = i - G * G;
    if (z < G - 1) nb[6] = i + G * G;
    rp[i + 1] = rp[i];
    for (int k = 0; k < 7; k++)
      if (nb[k] >= 0) {
        ci[rp[i + 1]++] = nb[k];
        irn[nt] = i + 1;
        jcn[nt++] = nb[k] + 1;
      }
    irn[nt] = i + 1; /* a duplicate, as distributed pieces may hold */
    jcn[nt++] = i + 1;
    if (z == 0) last[i] = 1;
  }
  for (int i = N - 1; i >= 0; i--) /* the set listed in descending order */
    if (last[i]) list[s++] = i + 1;
  fcd_system *sys;
  CHECK_ST(fcd_system_create(1, &sys), FCD_OK);
  fcd_index *perm = malloc(N * sizeof *perm);
  int *pos = malloc(N * sizeof *pos), *seen = calloc(N, sizeof *seen);
  int nd1 = 0, nd2 = 0;
  CHECK_ST(fcd__nd_order_last(sys, N, rp, ci, last, perm, &nd1), FCD_OK);
  CHECK_ST(fcd__metis_order_last(sys, N, nt, irn, jcn, s, list, pos, &nd2), FCD_OK);
  CHECK(nd1 && nd2);
  int perm_ok = 1, pos_ok = 1, same = 1;
  for (int k = 0; k < N; k++) {
    perm_ok &= perm[k] >= 0 && perm[k] < N && !seen[perm[k]]++;
    pos_ok &= pos[k] >= 1 && pos[k] <= N;
  }
  for (int k = 0; k < N - s; k++) same &= pos[perm[k]] == k + 1 && !last[perm[k]];
  for (int k = N - s, a = G * G - 1; k < N; k++, a--) perm_ok &= perm[k] == list[a] - 1;
  for (int a = 0; a < s; a++) pos_ok &= pos[list[a] - 1] == N - s + a + 1;
  CHECK(perm_ok);
  CHECK(pos_ok);
  CHECK(same);
  int all[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  CHECK_ST(fcd__metis_order_last(sys, 8, 8, all, all, 8, all, pos, &nd2), FCD_OK);
  CHECK(!nd2);
  fcd_system_destroy(sys);
  free(rp);
  free(ci);
  free(irn);
  free(jcn);
  free(last);
  free(perm);
  free(pos);
  free(seen);
}

/* The necessary condition with a given pivot order (fcd__chol_is_pd_ordered): on
 * tridiag(-1, d, -1) of size N, whose eigenvalues are d - 2 cos(k pi / (N + 1)), k = 1..N
 * (closed form), positive definite iff d > 2 cos(pi / (N + 1)): d = 2 is, d = 1.99 is not
 * (2 cos(pi / 51) = 1.9962). Under the identity, the reversed and an interleaved order,
 * and equal to CHOLMOD's own order's answer; a pivot list that is not a permutation is
 * refused by name. */
static void test_pd_ordered(void) {
  enum { N = 50 };
  fcd_index rp[N + 1], ci[3 * N], perm[3][N], bad[N];
  fcd_real v[3 * N];
  fcd__csr S = {N, rp, ci, v, 0, 0, 1, 0, 0, NULL, 0};
  fcd_system *sys;
  CHECK_ST(fcd_system_create(1, &sys), FCD_OK);
  for (int k = 0; k < N; k++) {
    perm[0][k] = k;
    perm[1][k] = N - 1 - k;
    perm[2][k] = k < N / 2 ? 2 * k : 2 * (k - N / 2) + 1;
    bad[k] = k == 7 ? 3 : k;
  }
  for (int c = 0; c < 2; c++) {
    fcd_real d = c == 0 ? 2.0 : 1.99;
    fcd_index e = 0;
    for (int i = 0; i < N; i++) {
      rp[i] = e;
      if (i > 0) ci[e] = i - 1, v[e++] = -1;
      ci[e] = i, v[e++] = d;
      if (i < N - 1) ci[e] = i + 1, v[e++] = -1;
    }
    rp[N] = e;
    int pd = -1, own = -1;
    CHECK_ST(fcd__chol_is_pd(sys, &S, &own), FCD_OK);
    CHECK(own == (c == 0));
    for (int q = 0; q < 3; q++) {
      CHECK_ST(fcd__chol_is_pd_ordered(sys, &S, perm[q], &pd), FCD_OK);
      CHECK(pd == (c == 0));
    }
  }
  int pd = 1;
  CHECK_ST(fcd__chol_is_pd_ordered(sys, &S, bad, &pd), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "not a permutation");
  CHECK(pd == 0);
  fcd_system_destroy(sys);
}

/* KLU (the contact solvers' Jacobians): against LAPACK on a random sparse matrix; new
 * values on the same pattern reuse the pivot order; values that make that order
 * unusable (the diagonal zeroed, the weight moved to a permutation's entries) are
 * factored afresh and still solved exactly; a singular matrix is reported and the
 * factor recovers. */
static void klu_check(fcd__factor *f, int n, const fcd_index *rp, const fcd_index *ci,
                      const double *v, double tol) {
  double *A = calloc((size_t)n * n, sizeof *A), *b = malloc(n * sizeof *b);
  double *x = malloc(n * sizeof *x);
  lapack_int *ipiv = malloc(n * sizeof *ipiv);
  for (int i = 0; i < n; i++)
    for (fcd_index e = rp[i]; e < rp[i + 1]; e++) A[i + ci[e] * n] += v[e];
  for (int i = 0; i < n; i++) b[i] = fcdt_rand() - 0.5;
  CHECK_ST(fcd__factor_csr(f, n, rp, ci, v, 5), FCD_OK);
  CHECK_ST(fcd__factor_solve(f, 1, b, x), FCD_OK);
  CHECK(LAPACKE_dgesv(LAPACK_COL_MAJOR, n, 1, A, n, ipiv, b, n) == 0);
  CHECK(max_rel_diff(x, b, n) < tol);
  free(A);
  free(b);
  free(x);
  free(ipiv);
}

static void test_klu(int n) {
  fcd_system *sys;
  CHECK_ST(fcd_system_create(1, &sys), FCD_OK);
  fcd__factor *f;
  CHECK_ST(fcd__factor_create(sys, FCD__FACTOR_KLU, &f), FCD_OK);
  /* pattern: the diagonal, the cyclic shift (i, i+1 mod n), and random entries */
  fcd_index *rp = malloc((n + 1) * sizeof *rp), *ci = malloc((size_t)n * n * sizeof *ci);
  double *v = malloc((size_t)n * n * sizeof *v);
  fcd_index k = 0;
  for (int i = 0; i < n; i++) {
    rp[i] = k;
    for (int j = 0; j < n; j++)
      if (j == i || j == (i + 1) % n || fcdt_rand() < 0.03) {
        ci[k] = j;
        v[k++] = j == i ? 4 + fcdt_rand() : fcdt_rand() - 0.5;
      }
  }
  rp[n] = k;
  klu_check(f, n, rp, ci, v, 1e-12);
  for (fcd_index e = 0; e < k; e++) v[e] *= 1 + 0.1 * (fcdt_rand() - 0.5);
  klu_check(f, n, rp, ci, v, 1e-12);
  fcd__factor_stats s = fcd__factor_get_stats(f);
  CHECK(s.analyses == 1 && s.factorizations == 2 && s.refactorizations == 1);
  /* the weight moved from the diagonal to the shift: a permutation matrix plus small
   * entries, whose LU needs pivots off the diagonal */
  for (int i = 0; i < n; i++)
    for (fcd_index e = rp[i]; e < rp[i + 1]; e++)
      v[e] = ci[e] == i ? 0 : ci[e] == (i + 1) % n ? 4 + fcdt_rand() : 1e-3 * fcdt_rand();
  klu_check(f, n, rp, ci, v, 1e-12);
  s = fcd__factor_get_stats(f);
  CHECK(s.factorizations == 3 && s.refactorizations == 1);
  /* singular: an empty row */
  double *z = malloc((size_t)k * sizeof *z);
  memcpy(z, v, (size_t)k * sizeof *z);
  for (fcd_index e = rp[3]; e < rp[4]; e++) z[e] = 0;
  CHECK_ST(fcd__factor_csr(f, n, rp, ci, z, 5), FCD_E_SINGULAR);
  CHECK(strstr(fcd_system_last_error(sys), "singular") != NULL);
  double b[1] = {0};
  CHECK_ST(fcd__factor_solve(f, 1, b, b), FCD_E_STATE);
  klu_check(f, n, rp, ci, v, 1e-12);
  free(z);
  free(rp);
  free(ci);
  free(v);
  fcd__factor_destroy(f);
  fcd_system_destroy(sys);
}

static void test_generic_csr(void) {
  /* caller-provided matrices with a pattern id: same id, same pattern, no re-analysis */
  fcd_system *sys;
  CHECK_ST(fcd_system_create(1, &sys), FCD_OK);
  fcd__factor *f;
  CHECK_ST(fcd__factor_create(sys, FCD__FACTOR_SPD, &f), FCD_OK);
  const fcd_index rp[4] = {0, 2, 5, 7}, ci[7] = {0, 1, 0, 1, 2, 1, 2};
  double v[7] = {4, -1, -1, 4, -1, -1, 4};
  CHECK_ST(fcd__factor_csr(f, 3, rp, ci, v, 77), FCD_OK);
  double b[3] = {3, 2, 3}, x[3];
  CHECK_ST(fcd__factor_solve(f, 1, b, x), FCD_OK);
  /* closed form: [4 -1 0; -1 4 -1; 0 -1 4] x = (3, 2, 3) has x = (1, 1, 1) */
  for (int i = 0; i < 3; i++) CHECK_CLOSE(x[i], 1.0, 1e-14);
  for (int i = 0; i < 7; i++) v[i] *= 2;
  CHECK_ST(fcd__factor_csr(f, 3, rp, ci, v, 77), FCD_OK);
  CHECK(fcd__factor_get_stats(f).analyses == 1);
  CHECK_ST(fcd__factor_solve(f, 1, b, x), FCD_OK);
  for (int i = 0; i < 3; i++) CHECK_CLOSE(x[i], 0.5, 1e-14);
  v[0] = -8; /* indefinite: the pivot of column 0 is negative in any order */
  CHECK_ST(fcd__factor_csr(f, 3, rp, ci, v, 77), FCD_E_NOT_SPD);
  CHECK(fcd__factor_bad_column(f) == 0);
  CHECK(strstr(fcd_system_last_error(sys), "column 0") != NULL);
  fcd__factor_destroy(f);
  fcd_system_destroy(sys);
}

/* The refusals before the backend sees the values (factor.c, void_rows): an SPD factor
 * of a matrix with a zero diagonal entry, or with no entry at all (which CHOLMOD took as
 * an invalid matrix, status -4, and reported as FCD_E_BACKEND), is not positive definite
 * at that column; an LU of a matrix with a zero row is singular at that row. A failed
 * factorization leaves no factor to solve with, and the next good one works. */
static void test_void_rows(void) {
  fcd_system *sys;
  CHECK_ST(fcd_system_create(1, &sys), FCD_OK);
  const fcd_index rp[4] = {0, 2, 5, 7}, ci[7] = {0, 1, 0, 1, 2, 1, 2};
  double v[7] = {4, -1, -1, 4, -1, -1, 4}, b[3] = {3, 2, 3}, x[3];
  for (int lu = 0; lu < 2; lu++) {
    fcd__factor *f;
    CHECK_ST(fcd__factor_create(sys, lu ? FCD__FACTOR_LU : FCD__FACTOR_SPD, &f), FCD_OK);
    /* row and column 2 stored as zeros, as a node no element reaches */
    double z[7] = {4, -1, -1, 4, 0, 0, 0};
    CHECK_ST(fcd__factor_csr(f, 3, rp, ci, z, 5), lu ? FCD_E_SINGULAR : FCD_E_NOT_SPD);
    CHECK(fcd__factor_bad_column(f) == 2);
    CHECK(strstr(fcd_system_last_error(sys), lu ? "row 2 of 3" : "column 2 of 3 is 0") != NULL);
    fcd_real d = -1;
    CHECK(fcd__factor_bad_diagonal(f, &d) == !lu);
    if (!lu) CHECK(d == 0);
    CHECK_ST(fcd__factor_solve(f, 1, b, x), FCD_E_STATE);
    /* the pattern without any entry (no values at all) */
    const fcd_index rp0[4] = {0, 0, 0, 0};
    CHECK_ST(fcd__factor_csr(f, 3, rp0, NULL, NULL, 6), lu ? FCD_E_SINGULAR : FCD_E_NOT_SPD);
    CHECK(fcd__factor_bad_column(f) == 0);
    CHECK_ST(fcd__factor_csr(f, 3, rp, ci, v, 7), FCD_OK);
    CHECK(fcd__factor_bad_column(f) == -1 && !fcd__factor_bad_diagonal(f, &d));
    CHECK_ST(fcd__factor_solve(f, 1, b, x), FCD_OK);
    for (int i = 0; i < 3; i++) CHECK_CLOSE(x[i], 1.0, 1e-14);
    fcd__factor_destroy(f);
  }
  fcd_system_destroy(sys);
}

/* CHOLMOD's factorization runs with OpenMP's regions inactive in the calling thread
 * (backends/cholmod.c); the host's setting must be what it was afterwards. A 5-point
 * Laplacian on a 70 x 70 grid has supernodes large enough for CHOLMOD's regions, and a
 * closed-form answer: A x = A 1 gives x = 1. */
static void test_openmp_state(void) {
  int (*get)(void) = NULL;
  void (*set)(int) = NULL;
  void *g = dlsym(RTLD_DEFAULT, "omp_get_max_active_levels");
  void *s = dlsym(RTLD_DEFAULT, "omp_set_max_active_levels");
  if (!g || !s) {
    printf("test_openmp_state: CHOLMOD without OpenMP here, nothing to restore\n");
    return;
  }
  memcpy(&get, &g, sizeof g);
  memcpy(&set, &s, sizeof s);
  enum { G = 70, N = G * G };
  fcd_index *rp = malloc((N + 1) * sizeof *rp), *ci = malloc(5 * N * sizeof *ci);
  double *v = malloc(5 * N * sizeof *v), *b = malloc(N * sizeof *b), *x = malloc(N * sizeof *x);
  fcd_index k = 0;
  for (int i = 0; i < N; i++) {
    int gx = i % G, gy = i / G;
    rp[i] = k;
    b[i] = 0;
    const int nb[5] = {i - G, i - 1, i, i + 1, i + G};
    const int ok[5] = {gy > 0, gx > 0, 1, gx < G - 1, gy < G - 1};
    for (int e = 0; e < 5; e++)
      if (ok[e]) {
        ci[k] = nb[e];
        v[k] = nb[e] == i ? 4.5 : -1.0;
        b[i] += v[k];
        k++;
      }
  }
  rp[N] = k;
  fcd_system *sys;
  CHECK_ST(fcd_system_create(1, &sys), FCD_OK);
  const int host[3] = {3, 0, 1};
  for (int t = 0; t < 3; t++) {
    set(host[t]);
    fcd__factor *f;
    CHECK_ST(fcd__factor_create(sys, FCD__FACTOR_SPD, &f), FCD_OK);
    CHECK_ST(fcd__factor_csr(f, N, rp, ci, v, 0), FCD_OK);
    CHECK(get() == host[t]);
    CHECK_ST(fcd__factor_solve(f, 1, b, x), FCD_OK);
    double err = 0;
    for (int i = 0; i < N; i++) err = fmax(err, fabs(x[i] - 1));
    CHECK(err < 1e-12);
    fcd__factor_destroy(f);
  }
  set(1);
  fcd_system_destroy(sys);
  free(rp);
  free(ci);
  free(v);
  free(b);
  free(x);
}

/* The dense kernels of a reduced model's step against plain sums: |A| |x| of a dense
 * symmetric A (BLAS on the kept |A|) and of a non-symmetric one (the rows), and both
 * products of the row-major dgemv wrapper, with a non-square A (m != n catches a swapped
 * leading dimension). */
static void test_dense_kernels(void) {
  enum { ND = 80, MR = 70 };
  static fcd_index rp[ND + 1], ci[ND * ND];
  static double v[ND * ND], x[ND], y[ND], yr[ND];
  for (int i = 0; i <= ND; i++) rp[i] = (fcd_index)i * ND;
  for (int i = 0; i < ND; i++) {
    x[i] = (i % 3 ? -1.0 : 2.0) * (1 + 0.1 * i);
    for (int j = 0; j < ND; j++) {
      ci[i * ND + j] = j;
      v[i * ND + j] = cos(0.2 * (i + j)) * (i == j ? 5 : 1);
    }
  }
  for (int round = 0; round < 2; round++) {
    if (round) v[5 * ND + 9] = -7; /* not symmetric: the row kernel */
    fcd__csr a = {ND, rp, ci, v, 0, 0, 1, 0, 0, NULL, 0};
    fcd__csr_mark_dense(&a);
    CHECK(a.dense == 1 && a.sym == !round);
    if (!round) { /* y = 0.5 i + A x from one triangle (a symmetric Delassus operator) */
      for (int i = 0; i < ND; i++) y[i] = 0.5 * i;
      fcd__dense_symv(ND, v, 1.0, x, y);
      for (int i = 0; i < ND; i++) {
        double s = 0.5 * i;
        for (int j = 0; j < ND; j++) s += v[i * ND + j] * x[j];
        CHECK_CLOSE(y[i], s, 1e-13);
      }
    }
    memset(y, 0, sizeof y);
    fcd__csr_abs_apply(&a, x, y);
    for (int i = 0; i < ND; i++) {
      yr[i] = 0;
      for (int j = 0; j < ND; j++) yr[i] += fabs(v[i * ND + j]) * fabs(x[j]);
      CHECK_CLOSE(y[i], yr[i], 1e-13);
    }
    fcd__free(a.absval);
  }
  /* the row-major MR x ND block of v: y = 2 A x + 0.5 y and y = -A^T x + y */
  for (int i = 0; i < ND; i++) y[i] = yr[i] = 0.25 * i;
  fcd__la_gemv_rm(0, MR, ND, 2.0, v, x, 0.5, y);
  for (int i = 0; i < MR; i++) {
    double s = 0;
    for (int j = 0; j < ND; j++) s += v[i * ND + j] * x[j];
    CHECK_CLOSE(y[i], 2 * s + 0.5 * yr[i], 1e-13);
  }
  for (int i = MR; i < ND; i++) CHECK(y[i] == yr[i]); /* beyond m: untouched */
  for (int j = 0; j < ND; j++) y[j] = yr[j] = 0.25 * j;
  fcd__la_gemv_rm(1, MR, ND, -1.0, v, x, 1.0, y);
  for (int j = 0; j < ND; j++) {
    double s = 0;
    for (int i = 0; i < MR; i++) s += v[i * ND + j] * x[i];
    CHECK_CLOSE(y[j], yr[j] - s, 1e-13);
  }
}

/* A random n x n matrix with a dominant diagonal, in CSR (general or upper storage, each
 * stored entry standing for its mirror; dense: every entry stored) and whole in D */
static void random_csr(int n, int upper, int dense, fcd_index *rp, fcd_index *ci, double *v,
                       double *D) {
  fcd_index t = 0;
  memset(D, 0, sizeof *D * (size_t)n * (size_t)n);
  for (int i = 0; i < n; i++) {
    rp[i] = t;
    for (int j = upper ? i : 0; j < n; j++) {
      if (!dense && i != j && fcdt_rand() > 0.3) continue;
      double a = i == j ? 4 + fcdt_rand() : fcdt_rand() - 0.5;
      ci[t] = j;
      v[t++] = a;
      D[i * n + j] += a;
      if (upper && i != j) D[j * n + i] += a;
    }
  }
  rp[n] = t;
}

/* The sparse product of many columns (fcd__csr_gaxpy_block, the reductions' projections)
 * against the dense product of the same matrix, built here: general storage and upper
 * storage (each stored entry standing for its mirror), 1, 5 and 16 columns, alpha = -1.5,
 * added to what Y holds */
static void test_block_product(void) {
  enum { N = 37, NJ = 16 };
  static fcd_index rp[N + 1], ci[N * N];
  static double v[N * N], D[N * N], X[N * NJ], Y[N * NJ], Y0[N * NJ], xr[N * NJ], yr[N * NJ];
  for (int e = 0; e < N * NJ; e++) X[e] = fcdt_rand() - 0.5, Y0[e] = fcdt_rand();
  for (int upper = 0; upper < 2; upper++) {
    random_csr(N, upper, 0, rp, ci, v, D);
    fcd__csr a = {N, rp, ci, v, upper, 0, 1, 0, 0, NULL, 0};
    const int widths[] = {1, 5, NJ};
    double err = 0;
    for (int w = 0; w < 3; w++) {
      int nj = widths[w];
      memcpy(Y, Y0, sizeof Y);
      fcd__csr_gaxpy_block(&a, -1.5, nj, X, Y, xr, yr);
      for (int j = 0; j < nj; j++)
        for (int i = 0; i < N; i++) {
          double s = 0;
          for (int k = 0; k < N; k++) s += D[i * N + k] * X[j * N + k];
          err = fmax(err, fabs(Y[j * N + i] - (Y0[j * N + i] - 1.5 * s)));
        }
      for (int e = nj * N; e < NJ * N; e++) CHECK(Y[e] == Y0[e]); /* beyond nj: untouched */
    }
    printf("block product (%s storage, 1, 5, 16 columns): %.1e from the dense product\n",
           upper ? "upper" : "general", err);
    CHECK(err <= 1e-13);
  }
}

/* The block product where it runs in parts of 8 columns on the cores
 * (fcd__csr_rows_parts: enough work and at least two cores) against a reference summed
 * here entry by entry from the stored entries: a banded matrix of 20,000 rows in upper
 * and general storage, 16 and 24 columns (three parts: more parts than a 2-core
 * machine's lanes), alpha = 0.75 added to what Y holds. The kernels' fused multiply-adds
 * and the parts' order change the sums' rounding only: the bound is round-off. */
static void test_block_product_parts(void) {
  enum { N = 20000, BW = 10, NJ = 24 };
  fcd_index *rp = malloc((N + 1) * sizeof *rp), *ci = malloc((size_t)N * (2 * BW + 1) * sizeof *ci);
  double *v = malloc((size_t)N * (2 * BW + 1) * sizeof *v);
  double *X = malloc((size_t)N * NJ * sizeof *X), *Y = malloc((size_t)N * NJ * sizeof *Y);
  double *R = malloc((size_t)N * NJ * sizeof *R), *S = malloc((size_t)N * NJ * sizeof *S);
  double *xr = malloc((size_t)N * NJ * sizeof *xr), *yr = malloc((size_t)N * NJ * sizeof *yr);
  CHECK(rp && ci && v && X && Y && R && S && xr && yr);
  for (int e = 0; e < N * NJ; e++) X[e] = fcdt_rand() - 0.5, Y[e] = fcdt_rand();
  for (int upper = 0; upper < 2; upper++) {
    fcd_index t = 0;
    for (int i = 0; i < N; i++) {
      rp[i] = t;
      for (int j = upper ? i : i - BW; j <= i + BW; j++)
        if (j >= 0 && j < N) ci[t] = j, v[t++] = i == j ? 3 + fcdt_rand() : fcdt_rand() - 0.5;
    }
    rp[N] = t;
    fcd__csr a = {N, rp, ci, v, upper, 0, 1, 0, 0, NULL, 0};
    const int widths[] = {16, NJ};
    for (int w = 0; w < 2; w++) {
      int nj = widths[w], parts = fcd__csr_rows_parts(&a, nj);
      CHECK(fcd__par_cpus() < 2 || parts == nj / 8);
      double err = 0;
      for (int e = 0; e < N * nj; e++) R[e] = Y[e], S[e] = fabs(Y[e]);
      for (int j = 0; j < nj; j++)
        for (int i = 0; i < N; i++)
          for (fcd_index p = rp[i]; p < rp[i + 1]; p++) {
            fcd_index c = ci[p];
            R[j * N + i] += 0.75 * v[p] * X[j * N + c];
            S[j * N + i] += fabs(0.75 * v[p] * X[j * N + c]);
            if (upper && c != i) {
              R[j * N + c] += 0.75 * v[p] * X[j * N + i];
              S[j * N + c] += fabs(0.75 * v[p] * X[j * N + i]);
            }
          }
      double *Yw = malloc((size_t)N * nj * sizeof *Yw);
      CHECK(Yw != NULL);
      memcpy(Yw, Y, (size_t)N * nj * sizeof *Yw);
      fcd__csr_gaxpy_block(&a, 0.75, nj, X, Yw, xr, yr);
      for (int e = 0; e < N * nj; e++) {
        err = fmax(err, fabs(Yw[e] - R[e]) / S[e]);
      }
      printf("block product in %d parts (%s storage, %d columns, %d cores): %.1e of the "
             "sums of magnitudes\n", parts, upper ? "upper" : "general", nj, fcd__par_cpus(),
             err);
      CHECK(err <= 64 * DBL_EPSILON);
      free(Yw);
    }
  }
  free(rp), free(ci), free(v), free(X), free(Y), free(R), free(S), free(xr), free(yr);
}

/* fcd__par_run: each of more parts than lanes runs exactly once, whatever the lanes */
static void par_mark(void *ctx, int part) { ((int *)ctx)[part]++; }
static void test_par_run(void) {
  int seen[9] = {0};
  fcd__par_run(9, par_mark, seen);
  for (int k = 0; k < 9; k++) CHECK(seen[k] == 1);
  int one = 0;
  fcd__par_run(1, par_mark, &one);
  CHECK(one == 1);
  printf("parts on threads: 9 parts on %d lanes, each once\n",
         fcd__par_cpus() < 9 ? fcd__par_cpus() : 9);
}

/* The top of a symmetric spectrum with a tied cluster (a third of the eigenvalues equal
 * to 1, the rest small, mixed by a reflection): LAPACK's dsyevr fills more eigenvalues
 * than the k asked for before keeping them, and a k-long array of the caller's
 * overflowed (the brake's 600-mode reduction aborted in free). The wrapper must write
 * exactly k values, all 1, with orthonormal eigenvectors of A. */
/* The integrator's one pass over K (fcd__csr_gaxpy2_abs) on a dense symmetric matrix
 * (a reduced model's K: one pass over its lower triangle, two columns at a time, vector
 * lanes of four): the four products against their definitions, summed here entry by
 * entry, for orders that leave every remainder (odd n: a last lone column; n mod 4: the
 * rows past the lanes), added to what the outputs hold. Another order of the same sums:
 * the bound is round-off, 64 eps of the sums of the absolute terms. */
static void test_fused_symmetric(void) {
  enum { NMAX = 67 };
  static fcd_index rp[NMAX + 1], ci[NMAX * NMAX];
  static double v[NMAX * NMAX], x[2][NMAX], y[4][NMAX];
  const int orders[] = {1, 2, 3, 5, 8, 29, 66, 67};
  for (int q = 0; q < 8; q++) {
    int n = orders[q];
    for (int i = 0; i <= n; i++) rp[i] = (fcd_index)i * n;
    for (int i = 0; i < n; i++) {
      x[0][i] = fcdt_rand() - 0.5, x[1][i] = fcdt_rand() - 0.5;
      for (int j = 0; j <= i; j++) {
        ci[i * n + j] = j, ci[j * n + i] = i;
        v[i * n + j] = v[j * n + i] = i == j ? 4 + fcdt_rand() : fcdt_rand() - 0.5;
      }
    }
    fcd__csr a = {n, rp, ci, v, 0, 0, 1, 0, 0, NULL, 0};
    fcd__csr_mark_dense(&a);
    CHECK(a.dense == 1 && a.sym == 1);
    for (int k = 0; k < 4; k++)
      for (int i = 0; i < n; i++) y[k][i] = 0.1 * (k + 1) * i;
    fcd__csr_gaxpy2_abs(&a, x[0], y[0], x[1], y[1], y[2], y[3]);
    double worst = 0;
    for (int k = 0; k < 4; k++)
      for (int i = 0; i < n; i++) {
        double s = 0.1 * (k + 1) * i, sa = fabs(s);
        for (int j = 0; j < n; j++) {
          double t = k < 2 ? v[i * n + j] * x[k][j] : fabs(v[i * n + j]) * fabs(x[k - 2][j]);
          s += t, sa += fabs(t);
        }
        double e = fabs(y[k][i] - s) / (64 * DBL_EPSILON * sa);
        worst = fmax(worst, e);
        CHECK(e <= 1);
      }
    if (q == 7) printf("fused symmetric products (n = 1 to 67): worst %.2f of the bound\n", worst);
    fcd__free(a.absval);
  }
}

/* The integrator's one pass over K (fcd__csr_gaxpy2_abs): A x1, A x2 bitwise those of
 * fcd__csr_gaxpy2 and |A| |x1|, |A| |x2| bitwise those of fcd__csr_abs_apply for a sparse
 * A (general, upper storage) and dense non-symmetric rows, added to what the outputs
 * hold; and |A| |x| against its definition on the dense matrix built here */
static void test_fused_products(void) {
  enum { N = 29 };
  static fcd_index rp[N + 1], ci[N * N];
  static double v[N * N], D[N * N], x1[N], x2[N], y[4][N], r[4][N];
  for (int i = 0; i < N; i++) x1[i] = fcdt_rand() - 0.5, x2[i] = fcdt_rand() - 0.5;
  for (int form = 0; form < 3; form++) {
    int upper = form == 1, dense = form == 2;
    random_csr(N, upper, dense, rp, ci, v, D);
    fcd__csr a = {N, rp, ci, v, upper, 0, 1, 0, 0, NULL, 0};
    if (dense) fcd__csr_mark_dense(&a);
    for (int k = 0; k < 4; k++)
      for (int i = 0; i < N; i++) y[k][i] = r[k][i] = 0.1 * (k + 1) * i;
    fcd__csr_gaxpy2_abs(&a, x1, y[0], x2, y[1], y[2], y[3]);
    fcd__csr_gaxpy2(&a, 1.0, x1, r[0], x2, r[1]);
    fcd__csr_abs_apply(&a, x1, r[2]);
    fcd__csr_abs_apply(&a, x2, r[3]);
    double err = 0;
    for (int i = 0; i < N; i++) {
      for (int k = 0; k < 4; k++) CHECK(y[k][i] == r[k][i]);
      double s = 0.3 * i;
      for (int j = 0; j < N; j++) s += fabs(D[i * N + j]) * fabs(x1[j]);
      err = fmax(err, fabs(y[2][i] - s));
    }
    CHECK(err < 1e-13);
    fcd__free(a.absval);
  }
}

static void test_syev_top(void) {
  enum { N = 60, K = 10, GUARD = N };
  static double A[N * N], A0[N * N], w[K + GUARD], Z[N * K], u[N], au[N];
  double nn = 0, uau = 0;
  for (int i = 0; i < N; i++) {
    u[i] = sin(1.0 + 0.7 * i);
    nn += u[i] * u[i];
  }
  for (int i = 0; i < N; i++) u[i] /= sqrt(nn);
  memset(A0, 0, sizeof A0);
  for (int i = 0; i < N; i++) A0[i * N + i] = i % 3 == 0 ? 1.0 : 1e-3 * i;
  for (int i = 0; i < N; i++) au[i] = A0[i * N + i] * u[i];
  for (int i = 0; i < N; i++) uau += u[i] * au[i];
  for (int i = 0; i < N; i++) /* (I - 2uu') D (I - 2uu') */
    for (int j = 0; j < N; j++)
      A0[j * N + i] += -2 * u[i] * au[j] - 2 * au[i] * u[j] + 4 * uau * u[i] * u[j];
  memcpy(A, A0, sizeof A);
  for (int i = 0; i < K + GUARD; i++) w[i] = -12345;
  CHECK(fcd__la_syev_top_cm(N, K, A, w, Z) == 0);
  for (int i = K; i < K + GUARD; i++) CHECK(w[i] == -12345);
  for (int q = 0; q < K; q++) {
    CHECK_CLOSE(w[q], 1.0, 1e-12);
    for (int p = 0; p <= q; p++) {
      double d = 0;
      for (int i = 0; i < N; i++) d += Z[p * N + i] * Z[q * N + i];
      CHECK_CLOSE(d, p == q ? 1.0 : 0.0, 1e-12);
    }
    for (int i = 0; i < N; i++) {
      double r = -w[q] * Z[q * N + i];
      for (int j = 0; j < N; j++) r += A0[j * N + i] * Z[q * N + j];
      CHECK(fabs(r) < 1e-12);
    }
  }
}

/* The dense solve of a state stage (fcd__la_gesv_cm: blocked by panels on the calling
 * thread up to 384 unknowns, dgesv beyond) against LAPACK's dgesv on a copy: the same
 * pivots, so the same answer to rounding, on matrices that need row interchanges (a
 * small diagonal), at the orders around the panel widths and the switch; a singular
 * matrix reports its first zero pivot. */
static void test_gesv_panels(void) {
  static const int orders[] = {1, 7, 64, 65, 99, 144, 157, 200, 384, 385};
  for (size_t t = 0; t < sizeof orders / sizeof *orders; t++) {
    int n = orders[t];
    double *A = malloc((size_t)n * n * sizeof *A), *A2 = malloc((size_t)n * n * sizeof *A2);
    double *b = malloc((size_t)n * sizeof *b), *x = malloc((size_t)n * sizeof *x);
    lapack_int *ip = malloc((size_t)n * sizeof *ip);
    for (int i = 0; i < n * n; i++) A[i] = fcdt_rand() - 0.5;
    for (int i = 0; i < n; i++) {
      A[i * n + i] *= 1e-3;
      b[i] = fcdt_rand() - 0.5;
    }
    memcpy(A2, A, (size_t)n * n * sizeof *A);
    memcpy(x, b, (size_t)n * sizeof *b);
    CHECK(LAPACKE_dgesv(LAPACK_COL_MAJOR, n, 1, A2, n, ip, x, n) == 0);
    memcpy(A2, A, (size_t)n * n * sizeof *A);
    double *y = malloc((size_t)n * sizeof *y);
    memcpy(y, b, (size_t)n * sizeof *b);
    CHECK(fcd__la_gesv_cm(n, A2, y) == 0);
    double err = 0, xn = 0, res = 0, bn = 0;
    for (int i = 0; i < n; i++) {
      err = fmax(err, fabs(y[i] - x[i]));
      xn = fmax(xn, fabs(x[i]));
      double r = -b[i];
      for (int j = 0; j < n; j++) r += A[j * n + i] * y[j];
      res = fmax(res, fabs(r));
      bn = fmax(bn, fabs(b[i]));
    }
    CHECK(err <= 1e-9 * xn);
    CHECK(res <= 1e-11 * bn * n);
    /* a zero column in the middle: an exactly zero pivot, reported as dgesv does */
    memcpy(A2, A, (size_t)n * n * sizeof *A);
    memset(A2 + (size_t)(n / 2) * n, 0, (size_t)n * sizeof *A2);
    memcpy(y, b, (size_t)n * sizeof *b);
    CHECK(fcd__la_gesv_cm(n, A2, y) == n / 2 + 1);
    free(A);
    free(A2);
    free(b);
    free(x);
    free(y);
    free(ip);
  }
}

/* The transposed solve from fcd__la_lu_cm's factors (the state stage keeps its matrix by
 * rows and factors it as its transpose): A^T x = b against the residual of A^T x in
 * the entries built here, on an order solved on the calling thread with row swaps and
 * one past the panels' limit (LAPACK's dgetrf) */
static void test_lu_transposed(void) {
  const int orders[] = {1, 9, 120, 500};
  for (int q = 0; q < 4; q++) {
    int n = orders[q];
    double *A = malloc(sizeof *A * (size_t)n * n), *F = malloc(sizeof *F * (size_t)n * n);
    double *b = malloc(sizeof *b * (size_t)n), *x = malloc(sizeof *x * (size_t)n);
    int *piv = malloc(sizeof *piv * (size_t)n);
    for (int j = 0; j < n; j++) /* column-major; small diagonal: the pivots swap rows */
      for (int i = 0; i < n; i++) A[(size_t)j * n + i] = fcdt_rand() - 0.5 + (i == j ? 0.01 : 0);
    for (int i = 0; i < n; i++) b[i] = x[i] = fcdt_rand() - 0.5;
    memcpy(F, A, sizeof *F * (size_t)n * n);
    CHECK(fcd__la_lu_cm(n, F, piv) == 0);
    int swapped = 0;
    for (int i = 0; i < n; i++) swapped += piv[i] != i;
    CHECK(n == 1 || swapped > 0);
    fcd__la_lu_solve_t_cm(n, F, piv, x);
    double worst = 0, scale = 0;
    for (int j = 0; j < n; j++) { /* (A^T x)_j = column j of A dotted with x */
      double s = 0, sa = fabs(b[j]);
      for (int i = 0; i < n; i++) s += A[(size_t)j * n + i] * x[i], sa += fabs(A[(size_t)j * n + i] * x[i]);
      worst = fmax(worst, fabs(s - b[j]));
      scale = fmax(scale, sa);
    }
    CHECK(worst <= 1e3 * n * DBL_EPSILON * scale);
    free(A);
    free(F);
    free(b);
    free(x);
    free(piv);
  }
}

/* fcd__fmax and fcd__ldexp stand for fmax and ldexp in the integrator's step: the same
 * value to the bit, NaN arguments and results that underflow to subnormals or overflow
 * included, and 2^k out of a normal double's range falling back to ldexp itself */
static void test_math_inline(void) {
  const double xs[] = {0.0, -0.0, 1.0, -3.5, 1e-300, 5e-324, 1.7e308, NAN, INFINITY, -INFINITY,
                       0.1, 123456.789};
  const int ks[] = {0, 1, -1, 52, -52, 1023, -1022, 1024, -1023, -1074, 2000, -2000, 7, -40};
  int nx = (int)(sizeof xs / sizeof *xs), nk = (int)(sizeof ks / sizeof *ks);
  for (int i = 0; i < nx; i++) {
    for (int j = 0; j < nx; j++) {
      double a = xs[i], b = xs[j], f = fmax(a, b), g = fcd__fmax(a, b);
      CHECK((isnan(f) && isnan(g)) || f == g);
    }
    for (int j = 0; j < nk; j++) {
      double f = ldexp(xs[i], ks[j]), g = fcd__ldexp(xs[i], ks[j]);
      CHECK((isnan(f) && isnan(g)) || (f == g && signbit(f) == signbit(g)));
    }
  }
}

/* ---- the free-dof union pattern (operators.c) against a dense mask made here ---- */

/* a pattern decided by (i, j, seed) alone, so that two matrices can share it */
static int in_pattern(int i, int j, unsigned seed, double density) {
  unsigned h = (unsigned)i * 2654435761u ^ ((unsigned)j * 40503u + seed * 97u);
  h ^= h >> 13;
  h *= 0x5bd1e995u;
  h ^= h >> 15;
  return i == j || (double)(h & 0xffffu) / 65536.0 < density;
}

/* matrix `kind` on the pattern (seed, density), upper or full storage, no entry on an
 * isolated dof; adds its values to dense and its entries (mirrors too) to mask */
static void pattern_matrix(fcd_system *sys, fcd_matrix_kind kind, int n, int upper,
                           unsigned seed, double density, const char *iso, double *dense,
                           char *mask) {
  fcd_index cap = (fcd_index)n * n, t = 0;
  fcd_index *r = malloc(cap * sizeof *r), *c = malloc(cap * sizeof *c);
  double *v = malloc(cap * sizeof *v);
  for (int i = 0; i < n; i++)
    for (int j = upper ? i : 0; j < n; j++) {
      if (iso[i] || iso[j] || !in_pattern(i, j, seed, density)) continue;
      double x = fcdt_rand() - 0.5;
      r[t] = i;
      c[t] = j;
      v[t++] = x;
      dense[i * n + j] += x;
      mask[i * n + j] = 1;
      if (upper && i != j) {
        dense[j * n + i] += x;
        mask[j * n + i] = 1;
      }
    }
  CHECK_ST(fcd_system_set_matrix_coo(sys, kind, t, r, c, v, upper ? FCD_COO_UPPER : 0), FCD_OK);
  free(r);
  free(c);
  free(v);
}

/* variant 0: K, M upper on one pattern, C upper on another; 1: M full, K and C upper on
 * one pattern (their mirrors repeat); 2: K alone, upper. A few dofs fixed, a few
 * isolated (their rows only the diagonal). */
static void test_free_pattern(int n, int variant) {
  fcd_system *sys;
  CHECK_ST(fcd_system_create(n, &sys), FCD_OK);
  double *dk = calloc((size_t)n * n, sizeof *dk), *dm = calloc((size_t)n * n, sizeof *dm),
         *dc = calloc((size_t)n * n, sizeof *dc);
  char *mask = calloc((size_t)n * n, 1), *iso = calloc((size_t)n, 1), *fixed = calloc((size_t)n, 1);
  for (int i = 3; i < n; i += 17) iso[i] = 1;
  pattern_matrix(sys, FCD_STIFFNESS, n, 1, 1, 0.05, iso, dk, mask);
  if (variant == 0) {
    pattern_matrix(sys, FCD_MASS, n, 1, 1, 0.05, iso, dm, mask);
    pattern_matrix(sys, FCD_DAMPING, n, 1, 2, 0.03, iso, dc, mask);
  } else if (variant == 1) {
    pattern_matrix(sys, FCD_MASS, n, 0, 3, 0.04, iso, dm, mask);
    pattern_matrix(sys, FCD_DAMPING, n, 1, 1, 0.05, iso, dc, mask);
  }
  for (int i = 5; i < n; i += 11) {
    fcd_index dof = i;
    fixed[i] = 1;
    CHECK_ST(fcd_system_fix_dofs(sys, 1, &dof, NULL), FCD_OK);
  }
  int *dof_of = malloc((size_t)n * sizeof *dof_of), *free_of = malloc((size_t)n * sizeof *free_of);
  int nf = 0;
  for (int i = 0; i < n; i++) {
    free_of[i] = fixed[i] ? -1 : nf;
    if (!fixed[i]) dof_of[nf++] = i;
  }
  const fcd__free_pattern *fp;
  CHECK_ST(fcd__system_free_pattern(sys, &fp), FCD_OK);
  CHECK(fp->n == nf);
  /* the rows: the mask's free columns in increasing order, and every diagonal */
  fcd_index q = 0;
  int rows_ok = 1;
  for (int f = 0; f < nf && rows_ok; f++) {
    int i = dof_of[f];
    rows_ok = fp->rowptr[f] == q;
    for (int g = 0; g < nf && rows_ok; g++)
      if (mask[i * n + dof_of[g]] || g == f) rows_ok = q < fp->nnz && fp->col[q++] == g;
  }
  CHECK(rows_ok && fp->rowptr[nf] == q && fp->nnz == q);
  /* where each stored entry lands, and its mirror */
  int maps_ok = 1;
  for (int k = 0; k < 3; k++) {
    const fcd__csr *a = &sys->mat[k];
    if (!a->set) continue;
    for (fcd_index i = 0; i < a->n; i++)
      for (fcd_index p = a->rowptr[i]; p < a->rowptr[i + 1]; p++) {
        int fi = free_of[i], fj = free_of[a->col[p]];
        fcd_index m = fp->map[k][p], mt = fp->mapt[k][p];
        if (fi < 0 || fj < 0) {
          maps_ok &= m == -1 && mt == -1;
          continue;
        }
        maps_ok &= m >= fp->rowptr[fi] && m < fp->rowptr[fi + 1] && fp->col[m] == fj;
        if (a->upper && fi != fj)
          maps_ok &= mt >= fp->rowptr[fj] && mt < fp->rowptr[fj + 1] && fp->col[mt] == fi;
        else
          maps_ok &= mt == -1;
      }
  }
  CHECK(maps_ok);
  /* a combination on it against the dense sum */
  const double a = 2.0, b = 0.3, c = 1e-3;
  double *val = malloc((size_t)fp->nnz * sizeof *val), worst = 0;
  CHECK_ST(fcd__system_combination(sys, a, b, c, val), FCD_OK);
  for (int f = 0; f < nf; f++)
    for (fcd_index p = fp->rowptr[f]; p < fp->rowptr[f + 1]; p++) {
      size_t e = (size_t)dof_of[f] * n + dof_of[fp->col[p]];
      worst = fmax(worst, fabs(val[p] - (a * dm[e] + b * dc[e] + c * dk[e])));
    }
  CHECK(worst < 1e-15);
  free(val);
  free(dof_of);
  free(free_of);
  free(dk);
  free(dm);
  free(dc);
  free(mask);
  free(iso);
  free(fixed);
  fcd_system_destroy(sys);
}

int main(void) {
  test_math_inline();
  test_openmp_state();
  test_gesv_panels();
  test_lu_transposed();
  test_syev_top();
  test_dense_kernels();
  test_block_product();
  test_block_product_parts();
  test_par_run();
  test_fused_products();
  test_fused_symmetric();
  test_free_pattern(200, 0);
  test_free_pattern(150, 1);
  test_free_pattern(90, 2);
  test_spd(40, 0);
  test_spd(300, 7);
  test_lu(50);
  test_lu(400);
  test_lu_schur(60);
  test_lu_schur(400);
  test_chol_schur(60, 0.08);
  test_chol_schur(400, 0.01);
  test_nd_order();
  test_pd_ordered();
  test_generic_csr();
  test_void_rows();
  test_klu(60);
  test_klu(500);
  return fcdt_finish("test_factor");
}
