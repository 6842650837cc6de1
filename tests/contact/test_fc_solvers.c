/* The three contact solvers on problems built here: frictionless cases against an LCP
 * solved by enumerating active sets with LAPACK, frictional cases checked with the
 * natural map recomputed here, global problems against their equations, fclib round
 * trips, non-convergence and bad input. */
#include <fcd/fcd.h>
#include <lapacke.h>

#include "../fcdtest.h"
#include "slider_crank.h"

typedef struct {
  int dim, nc, m;
  fcd_index *rp, *ci;
  double *wv, *wd; /* CSR values and the dense copy (row-major) */
  double *q, *mu;
} local_data;

/* W = B B^T + shift I with B random (m x k), so W is SPD; q random with some approaching
 * normals; mu given. */
static void make_local(local_data *L, int dim, int nc, double mu, double shift) {
  int m = dim * nc, k = m;
  /* sizes as size_t: at -O2 GCC's range analysis otherwise sees a negative int product */
  size_t um = (size_t)m, unc = (size_t)nc;
  L->dim = dim;
  L->nc = nc;
  L->m = m;
  double *b = malloc(sizeof(double) * um * um);
  for (int i = 0; i < m * k; i++) b[i] = fcdt_rand() - 0.5;
  L->wd = calloc((size_t)m * m, sizeof(double));
  for (int i = 0; i < m; i++)
    for (int j = 0; j < m; j++) {
      double s = i == j ? shift : 0;
      for (int l = 0; l < k; l++) s += b[i * k + l] * b[j * k + l];
      L->wd[i * m + j] = s;
    }
  L->rp = malloc(sizeof(fcd_index) * (um + 1));
  L->ci = malloc(sizeof(fcd_index) * um * um);
  L->wv = malloc(sizeof(double) * um * um);
  for (int i = 0; i <= m; i++) L->rp[i] = (fcd_index)i * m;
  for (int i = 0; i < m * m; i++) {
    L->ci[i] = i % m;
    L->wv[i] = L->wd[i];
  }
  L->q = malloc(sizeof(double) * um);
  L->mu = malloc(sizeof(double) * unc);
  for (int i = 0; i < m; i++) L->q[i] = 2 * fcdt_rand() - 0.5; /* mostly approaching */
  for (int c = 0; c < nc; c++) L->mu[c] = mu;
  free(b);
}

static void free_local(local_data *L) {
  free(L->rp);
  free(L->ci);
  free(L->wv);
  free(L->wd);
  free(L->q);
  free(L->mu);
}

/* natural-map residual of (r, W r + q), computed here */
static double residual_here(const local_data *L, const double *r) {
  double e = 0, qn = 0;
  for (int c = 0; c < L->nc; c++) {
    double u[3], f[3];
    for (int a = 0; a < L->dim; a++) {
      int i = c * L->dim + a;
      u[a] = L->q[i];
      for (int j = 0; j < L->m; j++) u[a] += L->wd[i * L->m + j] * r[j];
    }
    fcd_natural_map(L->dim, L->mu[c], r + c * L->dim, u, f);
    for (int a = 0; a < L->dim; a++) e += f[a] * f[a];
  }
  for (int i = 0; i < L->m; i++) qn += L->q[i] * L->q[i];
  return sqrt(e) / sqrt(qn);
}

/* Frictionless: r_T = 0 and the normal part solves the LCP u_N = A r_N + q_N, r_N <= 0,
 * u_N <= 0, r_N u_N = 0 with A = W restricted to the normal rows. A SPD -> one solution:
 * the active set S (r_N < 0) has A_SS r_S = -q_S and the rest satisfy the signs. */
static int lcp_enumerate(const local_data *L, double *rn) {
  int n = L->nc;
  for (unsigned set = 0; set < (1u << n); set++) {
    int idx[16], k = 0;
    for (int c = 0; c < n; c++)
      if (set & (1u << c)) idx[k++] = c;
    double A[256], x[16];
    lapack_int piv[16];
    for (int a = 0; a < k; a++) {
      x[a] = -L->q[idx[a] * L->dim];
      for (int b2 = 0; b2 < k; b2++)
        A[a + b2 * k] = L->wd[(idx[a] * L->dim) * L->m + idx[b2] * L->dim];
    }
    if (k && LAPACKE_dgesv(LAPACK_COL_MAJOR, k, 1, A, k, piv, x, k) != 0) continue;
    double r[16] = {0};
    int ok = 1;
    for (int a = 0; a < k; a++) {
      r[idx[a]] = x[a];
      if (x[a] > 1e-12) ok = 0;
    }
    for (int c = 0; ok && c < n; c++) {
      double un = L->q[c * L->dim];
      for (int d2 = 0; d2 < n; d2++) un += L->wd[(c * L->dim) * L->m + d2 * L->dim] * r[d2];
      if (!(set & (1u << c)) && un > 1e-12) ok = 0;
    }
    if (ok) {
      memcpy(rn, r, sizeof(double) * n);
      return 1;
    }
  }
  return 0;
}

static fcd_fc_problem *create(const local_data *L) {
  fcd_fc_problem *p = NULL;
  char msg[256];
  CHECK_ST(fcd_fc_problem_create_local(L->dim, L->nc, L->rp, L->ci, L->wv, L->q, L->mu, &p, msg,
                                       sizeof msg),
           FCD_OK);
  return p;
}

static void test_frictionless(void) {
  const int solvers[5] = {FCD_FC_AUTO, FCD_FC_FIXED_POINT, FCD_FC_NSGS, FCD_FC_NEWTON,
                          FCD_FC_ADMM};
  for (int dim = 2; dim <= 3; dim++)
    for (int trial = 0; trial < 6; trial++) {
      local_data L;
      make_local(&L, dim, 6, 0.0, 0.5);
      double rn[16];
      CHECK(lcp_enumerate(&L, rn));
      for (int s = 0; s < 5; s++) {
        fcd_fc_problem *p = create(&L);
        CHECK_ST(fcd_fc_problem_set_param(p, FCD_FC_PARAM_SOLVER, solvers[s]), FCD_OK);
        CHECK_ST(fcd_fc_problem_set_param(p, FCD_FC_PARAM_TOLERANCE, 1e-12), FCD_OK);
        CHECK_ST(fcd_fc_problem_set_param(p, FCD_FC_PARAM_MAX_ITER, 100000), FCD_OK);
        double r[48] = {0};
        CHECK_ST(fcd_fc_problem_solve(p, r, NULL, NULL), FCD_OK);
        for (int c = 0; c < L.nc; c++) {
          CHECK(fabs(r[c * dim] - rn[c]) < 1e-9 * fmax(1, fabs(rn[c])));
          for (int a = 1; a < dim; a++) CHECK(r[c * dim + a] == 0);
        }
        fcd_fc_problem_destroy(p);
      }
      free_local(&L);
    }
}

static void test_frictional(void) {
  const int solvers[5] = {FCD_FC_AUTO, FCD_FC_FIXED_POINT, FCD_FC_NSGS, FCD_FC_NEWTON,
                          FCD_FC_ADMM};
  const double mus[3] = {0.1, 0.5, 1.2};
  for (int dim = 2; dim <= 3; dim++)
    for (int im = 0; im < 3; im++) {
      local_data L;
      make_local(&L, dim, 10, mus[im], 1.0);
      for (int s = 0; s < 5; s++) {
        fcd_fc_problem *p = create(&L);
        fcd_fc_problem_set_param(p, FCD_FC_PARAM_SOLVER, solvers[s]);
        fcd_fc_problem_set_param(p, FCD_FC_PARAM_TOLERANCE, 1e-10);
        fcd_fc_problem_set_param(p, FCD_FC_PARAM_MAX_ITER, 200000);
        double r[30] = {0}, u[30], res;
        fcd_status st = fcd_fc_problem_solve(p, r, u, NULL);
        CHECK_ST(st, FCD_OK);
        if (st != FCD_OK) fprintf(stderr, "  dim %d mu %g solver %d: %s\n", dim, mus[im],
                                  solvers[s], fcd_fc_problem_last_error(p));
        CHECK(residual_here(&L, r) <= 1e-10);
        CHECK_ST(fcd_fc_problem_residual(p, r, &res), FCD_OK);
        CHECK(fabs(res - residual_here(&L, r)) <= 1e-14);
        /* u returned is W r + q */
        for (int i = 0; i < L.m; i++) {
          double ui = L.q[i];
          for (int j = 0; j < L.m; j++) ui += L.wd[i * L.m + j] * r[j];
          CHECK(fabs(u[i] - ui) < 1e-12);
        }
        fcd_fc_problem_destroy(p);
      }
      free_local(&L);
    }
}

/* Newton on a dense W of 300 directions (100 contacts in 3D): its Jacobians are dense
 * and go to LAPACK's LU instead of KLU (fc_solvers.c, from 256 rows). Checked with the
 * natural map recomputed here, and against NSGS's solution (W = B B^T + 2 I is well
 * conditioned and mu small: one solution). */
static void test_newton_dense(void) {
  local_data L;
  make_local(&L, 3, 100, 0.2, 2.0);
  double r[2][300];
  for (int s = 0; s < 2; s++) {
    fcd_fc_problem *p = create(&L);
    fcd_fc_problem_set_param(p, FCD_FC_PARAM_SOLVER, s ? FCD_FC_NSGS : FCD_FC_NEWTON);
    fcd_fc_problem_set_param(p, FCD_FC_PARAM_TOLERANCE, 1e-11);
    fcd_fc_problem_set_param(p, FCD_FC_PARAM_MAX_ITER, s ? 200000 : 60);
    memset(r[s], 0, sizeof r[s]);
    fcd_status st = fcd_fc_problem_solve(p, r[s], NULL, NULL);
    CHECK_ST(st, FCD_OK);
    if (st != FCD_OK) fprintf(stderr, "  dense W, solver %d: %s\n", s, fcd_fc_problem_last_error(p));
    CHECK(residual_here(&L, r[s]) <= 1e-11);
    fcd_fc_problem_destroy(p);
  }
  double d = 0, big = 0;
  for (int i = 0; i < L.m; i++) {
    d = fmax(d, fabs(r[0][i] - r[1][i]));
    big = fmax(big, fabs(r[1][i]));
  }
  printf("dense W of %d directions: Newton's r %.1e from NSGS's\n", L.m, d / big);
  CHECK(d <= 1e-8 * big);
  free_local(&L);
}

/* A W given with every entry takes the kernels' dense path (no column indices, a
 * contact's rows read together); the same W with its exact zeros left out takes the CSR
 * path. NSGS (sweeps and residuals) and auto (its state stage builds its system from W's
 * rows) must reach the same answer either way, each checked with the natural map here. */
static void test_dense_and_sparse_paths(void) {
  local_data L;
  make_local(&L, 3, 40, 0.3, 1.0);
  int m = L.m;
  /* exact zeros in the first and last rows, symmetric, W still positive definite: the
   * off-diagonal entries removed are small against the shift's diagonal */
  for (int j = 3; j < m; j += 7) {
    L.wd[j] = L.wd[(size_t)j * m] = 0;
    L.wd[(size_t)(m - 1) * m + j - 3] = L.wd[(size_t)(j - 3) * m + m - 1] = 0;
  }
  fcd_index *rp = malloc(sizeof(fcd_index) * ((size_t)m + 1));
  fcd_index *ci = malloc(sizeof(fcd_index) * (size_t)m * m);
  double *wv = malloc(sizeof(double) * (size_t)m * m);
  fcd_index nz = 0;
  for (int i = 0; i < m; i++) {
    rp[i] = nz;
    for (int j = 0; j < m; j++) {
      L.wv[(size_t)i * m + j] = L.wd[(size_t)i * m + j];
      if (L.wd[(size_t)i * m + j] == 0) continue;
      ci[nz] = j;
      wv[nz++] = L.wd[(size_t)i * m + j];
    }
  }
  rp[m] = nz;
  CHECK(nz < (fcd_index)m * m);
  for (int solver = 0; solver < 2; solver++) {
    double r[2][120];
    for (int path = 0; path < 2; path++) {
      fcd_fc_problem *p = NULL;
      char msg[256];
      CHECK_ST(fcd_fc_problem_create_local(L.dim, L.nc, path ? rp : L.rp, path ? ci : L.ci,
                                           path ? wv : L.wv, L.q, L.mu, &p, msg, sizeof msg),
               FCD_OK);
      fcd_fc_problem_set_param(p, FCD_FC_PARAM_SOLVER, solver ? FCD_FC_AUTO : FCD_FC_NSGS);
      fcd_fc_problem_set_param(p, FCD_FC_PARAM_TOLERANCE, 1e-12);
      memset(r[path], 0, sizeof r[path]);
      CHECK_ST(fcd_fc_problem_solve(p, r[path], NULL, NULL), FCD_OK);
      CHECK(residual_here(&L, r[path]) <= 1e-11);
      /* auto again from its answer: the warm start's state stage on either path */
      if (solver) CHECK_ST(fcd_fc_problem_solve(p, r[path], NULL, NULL), FCD_OK);
      fcd_fc_problem_destroy(p);
    }
    double d = 0, big = 0;
    for (int i = 0; i < m; i++) {
      d = fmax(d, fabs(r[0][i] - r[1][i]));
      big = fmax(big, fabs(r[1][i]));
    }
    printf("%s: dense and CSR paths' r %.1e apart (relative)\n", solver ? "auto" : "NSGS",
           d / big);
    CHECK(big > 0 && d <= 1e-9 * big);
  }
  free(rp);
  free(ci);
  free(wv);
  free_local(&L);
}

static void test_not_converged_and_bad_input(void) {
  local_data L;
  make_local(&L, 3, 8, 0.8, 0.1);
  fcd_fc_problem *p = create(&L);
  fcd_fc_problem_set_param(p, FCD_FC_PARAM_SOLVER, FCD_FC_FIXED_POINT);
  fcd_fc_problem_set_param(p, FCD_FC_PARAM_MAX_ITER, 1);
  double r[24], keep[24], it[24];
  for (int i = 0; i < 24; i++) keep[i] = r[i] = -0.001 * i;
  CHECK_ST(fcd_fc_problem_solve(p, r, NULL, NULL), FCD_E_NOT_CONVERGED);
  CHECK(strstr(fcd_fc_problem_last_error(p), "did not reach") != NULL);
  CHECK(memcmp(r, keep, sizeof r) == 0); /* the caller's data is untouched */
  fcd_index iters;
  double res;
  CHECK_ST(fcd_fc_problem_get_result(p, &iters, &res, NULL), FCD_OK);
  CHECK(iters == 1 && res > 1e-8);
  CHECK_ST(fcd_fc_problem_get_iterate(p, it), FCD_OK);
  CHECK(memcmp(it, keep, sizeof it) != 0);
  /* parameters */
  CHECK_ST(fcd_fc_problem_set_param(p, 999, 1), FCD_E_UNSUPPORTED);
  CHECK(strstr(fcd_fc_problem_last_error(p), "999") != NULL);
  CHECK_ST(fcd_fc_problem_set_param(p, FCD_FC_PARAM_SOLVER, 17), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_fc_problem_set_param(p, FCD_FC_PARAM_TOLERANCE, -1), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_fc_problem_set_param(p, FCD_FC_PARAM_MAX_ITER, 2.5), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_fc_problem_set_param(p, FCD_FC_PARAM_RELAXATION, 2.0), FCD_E_INVALID_ARG);
  r[3] = NAN;
  CHECK_ST(fcd_fc_problem_solve(p, r, NULL, NULL), FCD_E_INVALID_ARG);
  CHECK(strstr(fcd_fc_problem_last_error(p), "r[3]") != NULL);
  CHECK_ST(fcd_fc_problem_solve(p, NULL, NULL, NULL), FCD_E_INVALID_ARG);
  double v[4];
  CHECK_ST(fcd_fc_problem_solve(p, keep, NULL, v), FCD_E_INVALID_ARG); /* v for local */
  CHECK_ST(fcd_fc_problem_get_solution(p, it), FCD_E_STATE);
  fcd_fc_problem_destroy(p);
  /* creation */
  char msg[256] = "";
  fcd_fc_problem *bad = (fcd_fc_problem *)0x1;
  CHECK_ST(fcd_fc_problem_create_local(4, 8, L.rp, L.ci, L.wv, L.q, L.mu, &bad, msg, sizeof msg),
           FCD_E_INVALID_ARG);
  CHECK(bad == NULL && strstr(msg, "dimension 4") != NULL);
  L.mu[2] = -0.5;
  CHECK_ST(fcd_fc_problem_create_local(3, 8, L.rp, L.ci, L.wv, L.q, L.mu, &bad, msg, sizeof msg),
           FCD_E_INVALID_ARG);
  CHECK(strstr(msg, "mu[2]") != NULL);
  L.mu[2] = 0.8;
  L.q[5] = INFINITY;
  CHECK_ST(fcd_fc_problem_create_local(3, 8, L.rp, L.ci, L.wv, L.q, L.mu, &bad, msg, sizeof msg),
           FCD_E_INVALID_ARG);
  CHECK(strstr(msg, "q[5]") != NULL);
  L.q[5] = 0;
  L.ci[3] = 99;
  CHECK_ST(fcd_fc_problem_create_local(3, 8, L.rp, L.ci, L.wv, L.q, L.mu, &bad, msg, sizeof msg),
           FCD_E_INVALID_ARG);
  CHECK(strstr(msg, "column 99") != NULL);
  CHECK_ST(fcd_fc_problem_create_local(3, 8, L.rp, L.ci, L.wv, L.q, L.mu, NULL, msg, sizeof msg),
           FCD_E_INVALID_ARG);
  free_local(&L);
}

static void test_global_and_roundtrip(void) {
  /* a global problem: 4 bodies x 3 dofs, lumped M; 5 contacts (3D), H random sparse */
  enum { ND = 12, NC = 5, M = 15 };
  fcd_index mrp[ND + 1], mci[ND], hrp[ND + 1], hci[ND * M];
  double mv[ND], hv[ND * M], f[ND], w[M], mu[NC];
  fcd_index t = 0;
  for (int i = 0; i < ND; i++) {
    mrp[i] = i;
    mci[i] = i;
    mv[i] = 1 + fcdt_rand();
    f[i] = fcdt_rand() - 0.5;
    hrp[i] = t;
    for (int j = 0; j < M; j++)
      if (fcdt_rand() < 0.4) {
        hci[t] = j;
        hv[t++] = fcdt_rand() - 0.5;
      }
  }
  mrp[ND] = ND;
  hrp[ND] = t;
  for (int j = 0; j < M; j++) w[j] = fcdt_rand() - 0.7;
  for (int c = 0; c < NC; c++) mu[c] = 0.3;
  fcd_fc_problem *p;
  char msg[256];
  CHECK_ST(fcd_fc_problem_create_global(3, ND, NC, mrp, mci, mv, FCD_COO_UPPER, hrp, hci, hv, f, w,
                                        mu, &p, msg, sizeof msg),
           FCD_OK);
  CHECK(fcd_fc_problem_ndofs(p) == ND && fcd_fc_problem_size(p) == NC);
  fcd_fc_problem_set_param(p, FCD_FC_PARAM_TOLERANCE, 1e-12);
  double r[M] = {0}, u[M], v[ND];
  CHECK_ST(fcd_fc_problem_solve(p, r, u, v), FCD_OK);
  /* M v = H r + f and u = H^T v + w, checked from the definition */
  for (int i = 0; i < ND; i++) {
    double s = f[i];
    for (fcd_index k = hrp[i]; k < hrp[i + 1]; k++) s += hv[k] * r[hci[k]];
    CHECK(fabs(mv[i] * v[i] - s) < 1e-12);
  }
  for (int j = 0; j < M; j++) {
    double s = w[j];
    for (int i = 0; i < ND; i++)
      for (fcd_index k = hrp[i]; k < hrp[i + 1]; k++)
        if (hci[k] == j) s += hv[k] * v[i];
    CHECK(fabs(u[j] - s) < 1e-12);
  }
  for (int c = 0; c < NC; c++) {
    double fm[3];
    fcd_natural_map(3, mu[c], r + 3 * c, u + 3 * c, fm);
    CHECK(sqrt(fm[0] * fm[0] + fm[1] * fm[1] + fm[2] * fm[2]) < 1e-10);
  }
  /* the exported local form: W = H^T M^-1 H, q = H^T M^-1 f + w (M diagonal here) */
  fcd_index wnnz;
  CHECK_ST(fcd_fc_problem_local_nnz(p, &wnnz), FCD_OK);
  fcd_index *wrp = malloc((M + 1) * sizeof *wrp), *wci = malloc(wnnz * sizeof *wci);
  double *wvv = malloc(wnnz * sizeof *wvv), ql[M], mul[NC];
  CHECK_ST(fcd_fc_problem_get_local(p, wrp, wci, wvv, ql, mul), FCD_OK);
  double wd[M][M] = {{0}};
  for (int i = 0; i < M; i++)
    for (fcd_index k = wrp[i]; k < wrp[i + 1]; k++) wd[i][wci[k]] = wvv[k];
  for (int a = 0; a < M; a++) {
    double qa = w[a];
    for (int i = 0; i < ND; i++)
      for (fcd_index k = hrp[i]; k < hrp[i + 1]; k++)
        if (hci[k] == a) qa += hv[k] * f[i] / mv[i];
    CHECK(fabs(ql[a] - qa) < 1e-13);
    for (int b2 = 0; b2 < M; b2++) {
      double s = 0;
      for (int i = 0; i < ND; i++) {
        double ha = 0, hb = 0;
        for (fcd_index k = hrp[i]; k < hrp[i + 1]; k++) {
          if (hci[k] == a) ha = hv[k];
          if (hci[k] == b2) hb = hv[k];
        }
        s += ha * hb / mv[i];
      }
      CHECK(fabs(wd[a][b2] - s) < 1e-13);
    }
  }
  for (int c = 0; c < NC; c++) CHECK(mul[c] == mu[c]);
  free(wrp);
  free(wci);
  free(wvv);

  /* fclib round trip of the global problem with its solution (a build without fclib
   * refuses the write) */
  char path[512];
  fcdt_tmpfile(path, sizeof path, "global_roundtrip.hdf5");
  const int have_fclib = fcd_has_feature("fclib");
  if (!have_fclib) CHECK_ST(fcd_fc_problem_write_fclib(p, path, r), FCD_E_UNSUPPORTED);
  if (have_fclib) {
  CHECK_ST(fcd_fc_problem_write_fclib(p, path, r), FCD_OK);
  fcd_fc_problem *g;
  CHECK_ST(fcd_fc_problem_read_fclib(path, &g, msg, sizeof msg), FCD_OK);
  CHECK(fcd_fc_problem_ndofs(g) == ND && fcd_fc_problem_size(g) == NC &&
        fcd_fc_problem_dim(g) == 3);
  double sol[M], res;
  CHECK(fcd_fc_problem_has_solution(g));
  CHECK_ST(fcd_fc_problem_get_solution(g, sol), FCD_OK);
  for (int j = 0; j < M; j++) CHECK(sol[j] == r[j]);
  CHECK_ST(fcd_fc_problem_residual(g, sol, &res), FCD_OK);
  CHECK(res < 1e-11);
  double r2[M] = {0}, v2[ND];
  fcd_fc_problem_set_param(g, FCD_FC_PARAM_TOLERANCE, 1e-12);
  CHECK_ST(fcd_fc_problem_solve(g, r2, NULL, v2), FCD_OK);
  for (int j = 0; j < M; j++) CHECK(fabs(r2[j] - r[j]) < 1e-9);
  fcd_fc_problem_destroy(g);
  }
  fcd_fc_problem_destroy(p);

  /* the fixed point on a fresh global problem runs matrix-free (solves with M only);
   * its answer is checked against the equations, as above */
  CHECK_ST(fcd_fc_problem_create_global(3, ND, NC, mrp, mci, mv, FCD_COO_UPPER, hrp, hci, hv, f, w,
                                        mu, &p, msg, sizeof msg),
           FCD_OK);
  fcd_fc_problem_set_param(p, FCD_FC_PARAM_SOLVER, FCD_FC_FIXED_POINT);
  fcd_fc_problem_set_param(p, FCD_FC_PARAM_TOLERANCE, 1e-11);
  fcd_fc_problem_set_param(p, FCD_FC_PARAM_MAX_ITER, 1e6);
  double rf[M] = {0}, uf[M], vf[ND];
  CHECK_ST(fcd_fc_problem_solve(p, rf, uf, vf), FCD_OK);
  for (int i = 0; i < ND; i++) {
    double s2 = f[i];
    for (fcd_index k = hrp[i]; k < hrp[i + 1]; k++) s2 += hv[k] * rf[hci[k]];
    CHECK(fabs(mv[i] * vf[i] - s2) < 1e-12);
  }
  for (int c = 0; c < NC; c++) {
    double fm[3], uc[3];
    for (int a = 0; a < 3; a++) {
      uc[a] = w[3 * c + a];
      for (int i = 0; i < ND; i++)
        for (fcd_index k = hrp[i]; k < hrp[i + 1]; k++)
          if (hci[k] == 3 * c + a) uc[a] += hv[k] * vf[i];
      CHECK(fabs(uc[a] - uf[3 * c + a]) < 1e-12);
    }
    fcd_natural_map(3, mu[c], rf + 3 * c, uc, fm);
    CHECK(sqrt(fm[0] * fm[0] + fm[1] * fm[1] + fm[2] * fm[2]) < 1e-9);
  }
  fcd_fc_problem_destroy(p);

  /* local round trip */
  local_data L;
  make_local(&L, 2, 7, 0.4, 1.0);
  fcd_fc_problem *a = create(&L);
  double rl[14] = {0};
  CHECK_ST(fcd_fc_problem_solve(a, rl, NULL, NULL), FCD_OK);
  fcdt_tmpfile(path, sizeof path, "local_roundtrip.hdf5");
  if (!have_fclib) CHECK_ST(fcd_fc_problem_write_fclib(a, path, rl), FCD_E_UNSUPPORTED);
  if (have_fclib) {
  CHECK_ST(fcd_fc_problem_write_fclib(a, path, rl), FCD_OK);
  fcd_fc_problem *b;
  CHECK_ST(fcd_fc_problem_read_fclib(path, &b, msg, sizeof msg), FCD_OK);
  CHECK(fcd_fc_problem_dim(b) == 2 && fcd_fc_problem_size(b) == 7 && fcd_fc_problem_ndofs(b) == 0);
  double ra, rb, probe[14];
  for (int i = 0; i < 14; i++) probe[i] = fcdt_rand() - 0.5;
  fcd_fc_problem_residual(a, probe, &ra);
  fcd_fc_problem_residual(b, probe, &rb);
  CHECK(fabs(ra - rb) <= 1e-15 * fmax(1, ra)); /* same W, q, mu */
  CHECK_ST(fcd_fc_problem_get_solution(b, probe), FCD_OK);
  for (int i = 0; i < 14; i++) CHECK(probe[i] == rl[i]);
  fcd_fc_problem_destroy(b);
  }
  fcd_fc_problem_destroy(a);
  free_local(&L);
}

/* Issue 64: problems in small units. The contact law is positively homogeneous: if r
 * solves u = W r + q, then s r solves it for s q (s > 0). So the answer at q scaled by
 * 1e-18 or 1e-300 is the answer at q (solved at scale 1) scaled alike, a reference
 * independent of the solver's stopping test. Before, every solver but NSGS stopped at
 * r = 0 on the first iteration (Siconos' merit divides by 1, not by |q|, below
 * |q| = 2.2e-16: a "residual" of 2e-18) and the certificate refused that r = 0. Also:
 * q = 0 (answer r = 0 exactly) and q with every normal entry separating (r = 0 exactly,
 * the contacts open) at tiny scales. */
static void test_tiny_and_zero_data(void) {
  const int solvers[6] = {FCD_FC_AUTO, FCD_FC_FIXED_POINT, FCD_FC_NSGS, FCD_FC_NEWTON,
                          FCD_FC_ADMM, FCD_FC_PROX};
  for (int dim = 2; dim <= 3; dim++) {
    local_data L;
    make_local(&L, dim, 6, 0.5, 0.5);
    double q1[18], ref[18] = {0};
    memcpy(q1, L.q, sizeof(double) * (size_t)L.m);
    {
      fcd_fc_problem *p = create(&L);
      CHECK_ST(fcd_fc_problem_set_param(p, FCD_FC_PARAM_TOLERANCE, 1e-13), FCD_OK);
      CHECK_ST(fcd_fc_problem_solve(p, ref, NULL, NULL), FCD_OK);
      fcd_fc_problem_destroy(p);
    }
    double rmax = 0;
    for (int i = 0; i < L.m; i++) rmax = fmax(rmax, fabs(ref[i]));
    CHECK(rmax > 0.1); /* not the trivial answer */
    const double scales[3] = {1e-18, 1e-300, 0.0};
    for (int k = 0; k < 3; k++)
      for (int sv = 0; sv < 6; sv++) {
        for (int i = 0; i < L.m; i++) L.q[i] = q1[i] * scales[k];
        fcd_fc_problem *p = create(&L);
        CHECK_ST(fcd_fc_problem_set_param(p, FCD_FC_PARAM_SOLVER, solvers[sv]), FCD_OK);
        CHECK_ST(fcd_fc_problem_set_param(p, FCD_FC_PARAM_TOLERANCE, 1e-10), FCD_OK);
        CHECK_ST(fcd_fc_problem_set_param(p, FCD_FC_PARAM_MAX_ITER, 100000), FCD_OK);
        double r[18] = {0};
        fcd_status st = fcd_fc_problem_solve(p, r, NULL, NULL);
        CHECK_ST(st, FCD_OK);
        if (st != FCD_OK)
          printf("  %dD, q x %g, solver %d: %s\n", dim, scales[k], solvers[sv],
                 fcd_fc_problem_last_error(p));
        double err = 0;
        for (int i = 0; i < L.m; i++) err = fmax(err, fabs(r[i] - ref[i] * scales[k]));
        /* the solvers stop at 1e-10 on Siconos' normwise merit: the reactions agree to a
         * few 1e-9 of their largest entry */
        CHECK(err <= 1e-8 * rmax * scales[k]);
        fcd_fc_problem_destroy(p);
      }
    /* every contact separating: r = 0 exactly is the answer */
    for (int sv = 0; sv < 6; sv++)
      for (int k = 0; k < 2; k++) {
        /* fcd's convention: u_N <= 0 is open (the normal points into the obstacle) */
        for (int i = 0; i < L.m; i++)
          L.q[i] = (i % dim == 0 ? -1.0 - fabs(q1[i]) : q1[i]) * scales[k];
        fcd_fc_problem *p = create(&L);
        CHECK_ST(fcd_fc_problem_set_param(p, FCD_FC_PARAM_SOLVER, solvers[sv]), FCD_OK);
        double r[18];
        for (int i = 0; i < L.m; i++) r[i] = 0;
        CHECK_ST(fcd_fc_problem_solve(p, r, NULL, NULL), FCD_OK);
        for (int i = 0; i < L.m; i++) CHECK(r[i] == 0);
        fcd_fc_problem_destroy(p);
      }
    free_local(&L);
  }
}

/* AUTO from a warm start whose contact states hold (an integrator's next step): the
 * states' linear problem solved directly (lib/contact/fc_state.c) in a few solves, where NSGS
 * sweeps. The problem's answer r* (NSGS at 1e-13) is the guess for the same problem with
 * q moved by 1e-6 (states kept: in 2D one or two solves) and by a large amount that opens or
 * closes contacts (the states corrected, or NSGS from the guess); every answer is checked
 * with the natural map recomputed here and, for small friction (one solution), against
 * NSGS from zero. 2D and 3D, mu from 0 to 10. */
static void test_warm_start_states(void) {
  const double mus[4] = {0.0, 0.1, 0.8, 10.0};
  for (int dim = 2; dim <= 3; dim++)
    for (int im = 0; im < 4; im++) {
      local_data L;
      make_local(&L, dim, 8, mus[im], 1.0);
      double r0[24] = {0}, u[24], r[24], rz[24] = {0}, q0[24];
      fcd_fc_problem *p = create(&L);
      fcd_fc_problem_set_param(p, FCD_FC_PARAM_SOLVER, FCD_FC_NSGS);
      fcd_fc_problem_set_param(p, FCD_FC_PARAM_TOLERANCE, 1e-13);
      fcd_fc_problem_set_param(p, FCD_FC_PARAM_MAX_ITER, 200000);
      CHECK_ST(fcd_fc_problem_solve(p, r0, u, NULL), FCD_OK);
      fcd_fc_problem_destroy(p);
      memcpy(q0, L.q, sizeof(double) * (size_t)L.m);
      const double moves[2] = {1e-6, 0.5};
      for (int k = 0; k < 2; k++) {
        for (int i = 0; i < L.m; i++) L.q[i] = q0[i] + moves[k] * (fcdt_rand() - 0.5);
        fcd_index its = -1;
        memcpy(r, r0, sizeof r);
        p = create(&L);
        fcd_fc_problem_set_param(p, FCD_FC_PARAM_TOLERANCE, 1e-10);
        CHECK_ST(fcd_fc_problem_solve(p, r, u, NULL), FCD_OK);
        CHECK_ST(fcd_fc_problem_get_result(p, &its, NULL, NULL), FCD_OK);
        fcd_fc_problem_destroy(p);
        double res = residual_here(&L, r);
        CHECK(res <= 1e-10);
        /* the states held: solved directly (in 2D a slip direction is a sign; in 3D it
         * turns, and a slow slip hands over to NSGS) */
        if (k == 0 && dim == 2) CHECK(its <= 2);
        printf("warm start, dim %d, mu %4.1f, q moved by %g: %lld iterations, residual "
               "%.1e\n", dim, mus[im], moves[k], (long long)its, res);
        if (mus[im] <= 0.1) {
          memset(rz, 0, sizeof rz);
          p = create(&L);
          fcd_fc_problem_set_param(p, FCD_FC_PARAM_SOLVER, FCD_FC_NSGS);
          fcd_fc_problem_set_param(p, FCD_FC_PARAM_TOLERANCE, 1e-13);
          fcd_fc_problem_set_param(p, FCD_FC_PARAM_MAX_ITER, 200000);
          CHECK_ST(fcd_fc_problem_solve(p, rz, u, NULL), FCD_OK);
          fcd_fc_problem_destroy(p);
          double d = 0, sc = 0;
          for (int i = 0; i < L.m; i++) {
            d = fmax(d, fabs(r[i] - rz[i]));
            sc = fmax(sc, fabs(rz[i]));
          }
          CHECK(d <= 1e-7 * sc);
        }
      }
      free_local(&L);
    }
}

/* The small-problem path of AUTO (lib/contact/fc_solvers.c: 2D problems of up to 32 contacts from
 * a zero guess take the states of NSGS' first sweeps to a direct solve; every problem
 * keeps its diagonal blocks between solves). Random problems of 1 to 10 contacts, 2D
 * and 3D, mu from 0 to 10, built around a solution (r*, u*) whose states are drawn
 * (open, stick, slip; q = u* - W r*), with W of full rank, rank-deficient (B B^T with
 * half as many columns as rows, as a mechanism's W), or block-diagonal (zero coupling),
 * and q = 0: AUTO's answer checked with the natural map recomputed here; against r* and
 * against NSGS and the proximal point at 1e-13 where W is of full rank and mu <= 0.1
 * (the answer is then unique for these sizes); and a second solve of the same handle
 * identical to the bit (the kept blocks). */
static void solve_with(const local_data *L, int solver, double tol, double *r, double *u,
                       fcd_index *its) {
  fcd_fc_problem *p = create(L);
  CHECK_ST(fcd_fc_problem_set_param(p, FCD_FC_PARAM_SOLVER, solver), FCD_OK);
  CHECK_ST(fcd_fc_problem_set_param(p, FCD_FC_PARAM_TOLERANCE, tol), FCD_OK);
  CHECK_ST(fcd_fc_problem_set_param(p, FCD_FC_PARAM_MAX_ITER, 1e6), FCD_OK);
  memset(r, 0, sizeof(double) * (size_t)L->m);
  fcd_status st = fcd_fc_problem_solve(p, r, u, NULL);
  CHECK_ST(st, FCD_OK);
  if (st != FCD_OK) printf("  solver %d: %s\n", solver, fcd_fc_problem_last_error(p));
  if (its) fcd_fc_problem_get_result(p, its, NULL, NULL);
  if (solver == FCD_FC_AUTO) {
    double r2[30] = {0}, u2[30];
    CHECK_ST(fcd_fc_problem_solve(p, r2, u2, NULL), FCD_OK);
    CHECK(memcmp(r, r2, sizeof(double) * (size_t)L->m) == 0);
  }
  fcd_fc_problem_destroy(p);
}

/* W = B B^T with B m x k (k < m: rank k), or W's off-diagonal blocks zeroed */
static void reshape_w(local_data *L, int kind) {
  int m = L->m, d = L->dim;
  if (kind == 1) {
    int k = m > 2 ? m / 2 : 1;
    double b[30 * 30];
    for (int i = 0; i < m * k; i++) b[i] = fcdt_rand() - 0.5;
    for (int i = 0; i < m; i++)
      for (int j = 0; j < m; j++) {
        double v = 0;
        for (int l = 0; l < k; l++) v += b[i * k + l] * b[j * k + l];
        L->wd[i * m + j] = v;
      }
  } else if (kind == 2) {
    for (int i = 0; i < m; i++)
      for (int j = 0; j < m; j++)
        if (i / d != j / d) L->wd[i * m + j] = 0;
  }
  for (int i = 0; i < m * m; i++) L->wv[i] = L->wd[i];
}

/* a solution (r*, u*) with drawn states, and q = u* - W r* */
static void plant_solution(local_data *L, double *rs) {
  int d = L->dim, m = L->m;
  double us[30];
  for (int c = 0; c < L->nc; c++) {
    double *r = rs + c * d, *u = us + c * d, mu = L->mu[c], x = fcdt_rand();
    double s[2] = {fcdt_rand() - 0.5, d == 3 ? fcdt_rand() - 0.5 : 0}, sn;
    sn = sqrt(s[0] * s[0] + s[1] * s[1]);
    s[0] /= sn;
    s[1] /= sn;
    for (int k = 0; k < d; k++) r[k] = u[k] = 0;
    if (x < 0.25) { /* open: separating (fcd: u_N < 0), any tangential velocity */
      u[0] = -0.1 - fcdt_rand();
      for (int k = 1; k < d; k++) u[k] = fcdt_rand() - 0.5;
    } else if (x < 0.55 || mu == 0) { /* stick: inside the cone */
      r[0] = -0.1 - fcdt_rand();
      double f = 0.9 * fcdt_rand() * mu * -r[0];
      for (int k = 1; k < d; k++) r[k] = f * s[k - 1];
    } else { /* slip: on the cone, r_T = mu r_N s against u_T = lambda s */
      r[0] = -0.1 - fcdt_rand();
      double lam = 0.1 + fcdt_rand();
      for (int k = 1; k < d; k++) {
        r[k] = mu * r[0] * s[k - 1];
        u[k] = lam * s[k - 1];
      }
    }
  }
  for (int i = 0; i < m; i++) {
    double v = us[i];
    for (int j = 0; j < m; j++) v -= L->wd[i * m + j] * rs[j];
    L->q[i] = v;
  }
}

static void test_small_problems(void) {
  const double mus[5] = {0.0, 0.05, 0.1, 0.8, 10.0};
  int cases = 0, unique = 0;
  double worst = 0;
  for (int dim = 2; dim <= 3; dim++)
    for (int nc = 1; nc <= 10; nc++)
      for (int im = 0; im < 5; im++)
        for (int kind = 0; kind < 4; kind++) {
          /* kind 0: full rank; 1: rank-deficient W; 2: block-diagonal W; 3: q = 0 */
          local_data L;
          make_local(&L, dim, nc, mus[im], 0.3);
          reshape_w(&L, kind);
          double rs[30];
          plant_solution(&L, rs);
          if (kind == 3)
            for (int i = 0; i < L.m; i++) L.q[i] = 0;
          double ra[30], ua[30], rn[30], un[30], rp[30], up[30];
          fcd_index its;
          solve_with(&L, FCD_FC_AUTO, 1e-10, ra, ua, &its);
          cases++;
          if (kind == 3) {
            for (int i = 0; i < L.m; i++) CHECK(ra[i] == 0); /* nothing pushes */
            free_local(&L);
            continue;
          }
          double res = residual_here(&L, ra);
          CHECK(res <= 1e-10);
          worst = fmax(worst, res);
          if (kind == 1 || mus[im] > 0.1) {
            free_local(&L);
            continue;
          }
          solve_with(&L, FCD_FC_NSGS, 1e-13, rn, un, NULL);
          solve_with(&L, FCD_FC_PROX, 1e-13, rp, up, NULL);
          double sr = 0, dr = 0, drn = 0, drp = 0;
          for (int i = 0; i < L.m; i++) {
            sr = fmax(sr, fabs(rs[i]));
            dr = fmax(dr, fabs(ra[i] - rs[i]));
            drn = fmax(drn, fabs(rn[i] - rs[i]));
            drp = fmax(drp, fabs(rp[i] - rs[i]));
          }
          CHECK(dr <= 1e-7 * sr);
          CHECK(drn <= 1e-7 * sr);
          CHECK(drp <= 1e-7 * sr);
          unique++;
          free_local(&L);
        }
  printf("small problems: %d solved by auto (worst residual %.1e), %d of them against the "
         "planted solution, NSGS and the proximal point\n", cases, worst, unique);
  CHECK(unique >= 100);
}

/* Siconos' two-contact slider-crank (slider_crank.h, W of rank 3). NSGS needs hundreds of
 * sweeps on it; AUTO's small-problem path a few sweeps and one direct solve. */
static void test_slider_crank(void) {
  local_data L;
  make_local(&L, 2, 2, 0.0, 0.0);
  memcpy(L.wd, SLIDER_W, sizeof SLIDER_W);
  memcpy(L.wv, SLIDER_W, sizeof SLIDER_W);
  memcpy(L.q, SLIDER_Q, sizeof SLIDER_Q);
  memcpy(L.mu, SLIDER_MU, sizeof SLIDER_MU);
  double ra[4], ua[4], rn[4], un[4];
  fcd_index its_a, its_n;
  solve_with(&L, FCD_FC_AUTO, 1e-8, ra, ua, &its_a);
  solve_with(&L, FCD_FC_NSGS, 1e-8, rn, un, &its_n);
  double res = residual_here(&L, ra);
  printf("slider-crank: auto %lld iterations (residual %.1e), NSGS %lld sweeps\n",
         (long long)its_a, res, (long long)its_n);
  CHECK(res <= 1e-8);
  CHECK(its_a <= 6);
  CHECK(its_n > 50); /* what the small-problem path saves */
  /* both contacts slip the same way and carry the same normal reaction sum */
  CHECK(fabs((ra[0] + ra[2]) - (rn[0] + rn[2])) <= 1e-6 * fabs(rn[0] + rn[2]));
  free_local(&L);
}

/* The state stage goes past its 8 solves while its rate predicts the tolerance within
 * 16: what is left once the states hold is the slip direction's fixed point s <- u_T /
 * |u_T|, which contracts at a steady rate. Two uncoupled contacts in 3D, each with
 * W = I, q = (2, 5, 0), mu = 0.5: each slips, r = (-2, -1, 0), u = (0, 4, 0) (u_T = q_T +
 * r_T). From a slipping guess whose direction is 0.5 rad off, u_T = q_T - s: an error e
 * of s's angle becomes -e / 4 (the contraction |r_T| / (|q_T| - |r_T|)), so the stage
 * needs about 12 solves to 1e-8. It stopped at 8 and handed the warm start to NSGS (one
 * sweep here, 9 iterations in all; on a reduced brake's 396 contacts 25 sweeps). One
 * such contact alone is solved exactly by its local solve, in one iteration, whatever
 * the guess. */
static void test_state_stage_past_its_cap(void) {
  fcd_index rp[7], ci[6];
  double w[6], q[6], mu[2] = {0.5, 0.5}, r[6], u[6];
  for (int i = 0; i < 6; i++) {
    rp[i] = i;
    ci[i] = i;
    w[i] = 1;
    q[i] = i % 3 == 0 ? 2 : i % 3 == 1 ? 5 : 0;
    r[i] = i % 3 == 0 ? -2 : i % 3 == 1 ? -cos(0.5) : -sin(0.5);
  }
  rp[6] = 6;
  fcd_fc_problem *p = NULL;
  char msg[256];
  CHECK_ST(fcd_fc_problem_create_local(3, 2, rp, ci, w, q, mu, &p, msg, sizeof msg), FCD_OK);
  CHECK_ST(fcd_fc_problem_solve(p, r, u, NULL), FCD_OK);
  fcd_index its = 0;
  fcd_fc_problem_get_result(p, &its, NULL, NULL);
  printf("slip direction's fixed point: %lld iterations, r = (%.9f, %.9f, "
         "%.1e)\n", (long long)its, r[0], r[1], r[2]);
  CHECK(its >= 10 && its <= 16);
  /* the solve stops at a natural map of 1e-8 |q| (|q| = 7.6); W = I carries it to r */
  for (int c = 0; c < 2; c++) {
    double e = fmax(fabs(r[3 * c] + 2), fmax(fabs(r[3 * c + 1] + 1), fabs(r[3 * c + 2])));
    CHECK(e <= 2e-8 * sqrt(58.0));
  }
  fcd_fc_problem_destroy(p);
  /* the first contact alone: its exact local solve from the same guess */
  p = NULL;
  CHECK_ST(fcd_fc_problem_create_local(3, 1, rp, ci, w, q, mu, &p, msg, sizeof msg), FCD_OK);
  double r1[3] = {-2, -cos(0.5), -sin(0.5)};
  CHECK_ST(fcd_fc_problem_solve(p, r1, u, NULL), FCD_OK);
  fcd_fc_problem_get_result(p, &its, NULL, NULL);
  printf("one contact alone: %lld iteration, r = (%.17g, %.17g, %.1e)\n", (long long)its,
         r1[0], r1[1], r1[2]);
  CHECK(its == 1);
  CHECK(fabs(r1[0] + 2) <= 1e-15 && fabs(r1[1] + 1) <= 1e-15 && fabs(r1[2]) <= 1e-15);
  fcd_fc_problem_destroy(p);
}

int main(void) {
  test_warm_start_states();
  test_frictionless();
  test_frictional();
  test_newton_dense();
  test_not_converged_and_bad_input();
  test_global_and_roundtrip();
  test_tiny_and_zero_data(); /* after the others: their random problems stay as they were */
  test_small_problems();
  test_slider_crank();
  test_dense_and_sparse_paths(); /* last: the random problems above stay as they were */
  test_state_stage_past_its_cap();
  return fcdt_finish("test_fc_solvers");
}
