/* The system object through the public API: assembly from COO/CSR/Matrix Market is
 * checked against dense matrices built here from the same triplets; callbacks; Rayleigh. */
#include <fcd/fcd.h>
#include <stdlib.h>

#include "../fcdtest.h"

enum { N = 7 };

/* dense y = A x */
static void dense_mv(const double a[N][N], const double *x, double *y) {
  for (int i = 0; i < N; i++) {
    y[i] = 0;
    for (int j = 0; j < N; j++) y[i] += a[i][j] * x[j];
  }
}

/* applies matrix `which` of sys to every unit vector and compares with dense a */
static void compare_dense(fcd_system *sys, fcd_matrix_kind which, const double a[N][N]) {
  for (int j = 0; j < N; j++) {
    double e[N] = {0}, y[N], yr[N];
    e[j] = 1;
    CHECK_ST(fcd_system_apply(sys, which, e, y), FCD_OK);
    dense_mv(a, e, yr);
    for (int i = 0; i < N; i++) CHECK_CLOSE(y[i], yr[i], 1e-14);
  }
}

static void test_status_and_version(void) {
  CHECK(strcmp(fcd_status_str(FCD_OK), "success") == 0);
  CHECK(strstr(fcd_status_str(FCD_E_NOT_SPD), "positive definite") != NULL);
  CHECK(strcmp(fcd_status_str(-999), "unknown error") == 0);
  CHECK(strcmp(fcd_version_string(), FCD_VERSION_STRING) == 0);
  CHECK(fcd_version_number() == FCD_VERSION_NUMBER);
  CHECK(FCD_CHECK_VERSION(0, 1, 0));
  /* codes are distinct and negative */
  const int codes[] = {FCD_E_INVALID_ARG, FCD_E_NOMEM,   FCD_E_STATE,   FCD_E_UNSUPPORTED,
                       FCD_E_NOT_CONVERGED, FCD_E_SINGULAR, FCD_E_BACKEND, FCD_E_IO,
                       FCD_E_INTERNAL, FCD_E_FORMAT, FCD_E_NOT_SPD, FCD_E_CALLBACK,
                       FCD_E_NO_SOLUTION};
  for (size_t i = 0; i < sizeof codes / sizeof *codes; i++) {
    CHECK(codes[i] < 0);
    for (size_t j = 0; j < i; j++) CHECK(codes[i] != codes[j]);
  }
}

static void test_coo(void) {
  fcd_system *sys;
  CHECK_ST(fcd_system_create(N, &sys), FCD_OK);
  CHECK(fcd_system_ndofs(sys) == N);
  CHECK(strcmp(fcd_system_last_error(sys), "") == 0);
  /* general matrix with duplicates, unsorted */
  enum { NT = 40 };
  fcd_index r[NT], c[NT];
  double v[NT], a[N][N] = {{0}};
  for (int t = 0; t < NT; t++) {
    r[t] = (fcd_index)(fcdt_rand() * N);
    c[t] = t < 10 ? r[t] : (fcd_index)(fcdt_rand() * N); /* some duplicates on purpose */
    if (t >= 30) {
      r[t] = r[t - 30];
      c[t] = c[t - 30];
    }
    v[t] = fcdt_rand() - 0.5;
    a[r[t]][c[t]] += v[t];
  }
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, NT, r, c, v, FCD_COO_FULL), FCD_OK);
  CHECK(fcd_system_has_matrix(sys, FCD_STIFFNESS));
  CHECK(!fcd_system_has_matrix(sys, FCD_MASS));
  compare_dense(sys, FCD_STIFFNESS, a);
  fcd_index stored, full, distinct = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      int seen = 0;
      for (int t = 0; t < NT; t++) seen |= r[t] == i && c[t] == j;
      distinct += seen;
    }
  CHECK_ST(fcd_system_matrix_nnz(sys, FCD_STIFFNESS, &stored, &full), FCD_OK);
  CHECK(stored == distinct && full == distinct);
  double asym;
  CHECK_ST(fcd_system_matrix_asymmetry(sys, FCD_STIFFNESS, &asym), FCD_OK);
  CHECK(asym > 0);

  /* symmetric upper data: apply must act as the full symmetric matrix */
  double s[N][N] = {{0}};
  fcd_index ur[N * N], uc[N * N];
  double uv[N * N];
  int nt = 0;
  for (int i = 0; i < N; i++)
    for (int j = i; j < N; j++)
      if (i == j || fcdt_rand() < 0.5) {
        ur[nt] = i;
        uc[nt] = j;
        uv[nt] = i == j ? 4 + fcdt_rand() : fcdt_rand() - 0.5;
        s[i][j] += uv[nt];
        if (i != j) s[j][i] += uv[nt];
        nt++;
      }
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_MASS, nt, ur, uc, uv, FCD_COO_UPPER), FCD_OK);
  compare_dense(sys, FCD_MASS, s);
  CHECK_ST(fcd_system_matrix_nnz(sys, FCD_MASS, &stored, &full), FCD_OK);
  CHECK(stored == nt && full == 2 * nt - N);
  CHECK_ST(fcd_system_matrix_asymmetry(sys, FCD_MASS, &asym), FCD_OK);
  CHECK(asym == 0.0);

  /* Rayleigh: damping operator = C + alpha M + beta K */
  double cd[N][N] = {{0}};
  fcd_index cr[N], cc[N];
  double cv[N];
  for (int i = 0; i < N; i++) {
    cr[i] = i;
    cc[i] = (i + 1) % N;
    cv[i] = 0.25 * (i + 1);
    cd[cr[i]][cc[i]] += cv[i];
  }
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_DAMPING, N, cr, cc, cv, 0), FCD_OK);
  compare_dense(sys, FCD_DAMPING, cd);
  CHECK_ST(fcd_system_set_rayleigh(sys, 0.3, 0.02), FCD_OK);
  double tot[N][N];
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) tot[i][j] = cd[i][j] + 0.3 * s[i][j] + 0.02 * a[i][j];
  compare_dense(sys, FCD_DAMPING, tot);
  CHECK_ST(fcd_system_set_rayleigh(sys, 0, 0), FCD_OK);
  compare_dense(sys, FCD_DAMPING, cd);

  /* empty matrix is a valid zero matrix */
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_DAMPING, 0, NULL, NULL, NULL, 0), FCD_OK);
  double zero[N][N] = {{0}};
  compare_dense(sys, FCD_DAMPING, zero);
  fcd_system_destroy(sys);
}

static void test_csr(void) {
  fcd_system *sys;
  CHECK_ST(fcd_system_create(N, &sys), FCD_OK);
  /* tridiagonal, full storage */
  fcd_index rp[N + 1], ci[3 * N];
  double vv[3 * N], d[N][N] = {{0}};
  fcd_index k = 0;
  rp[0] = 0;
  for (int i = 0; i < N; i++) {
    for (int j = i - 1; j <= i + 1; j++) {
      if (j < 0 || j >= N) continue;
      ci[k] = j;
      vv[k] = j == i ? 2.0 : -1.0 + 0.1 * i;
      d[i][j] = vv[k];
      k++;
    }
    rp[i + 1] = k;
  }
  CHECK_ST(fcd_system_set_matrix_csr(sys, FCD_STIFFNESS, rp, ci, vv, FCD_COO_FULL, FCD_COPY),
           FCD_OK);
  vv[0] = 100; /* a copy does not see later changes */
  compare_dense(sys, FCD_STIFFNESS, d);
  vv[0] = 2.0;
  /* borrowed: values changed in place are seen */
  CHECK_ST(fcd_system_set_matrix_csr(sys, FCD_STIFFNESS, rp, ci, vv, FCD_COO_FULL, FCD_BORROW),
           FCD_OK);
  compare_dense(sys, FCD_STIFFNESS, d);
  vv[0] = 5.0;
  d[0][0] = 5.0;
  CHECK_ST(fcd_system_matrix_values_changed(sys, FCD_STIFFNESS), FCD_OK);
  compare_dense(sys, FCD_STIFFNESS, d);
  vv[0] = NAN;
  CHECK_ST(fcd_system_matrix_values_changed(sys, FCD_STIFFNESS), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "not finite");
  vv[0] = 5.0;
  fcd_system_destroy(sys); /* must not free the borrowed arrays (ASan would say) */
  CHECK(rp[N] == k);
}

/* A dense matrix (every entry stored, as a reduced model's): exactly symmetric ones are
 * multiplied by BLAS from one triangle, so the product must stay A x against the plain
 * sums when the host then makes it non-symmetric in place (borrowed, values changed):
 * the symmetry is the values', read again. Also through Rayleigh damping (C = a M + b K). */
static void test_dense(void) {
  enum { ND = 90 };
  static fcd_index rp[ND + 1], ci[ND * ND];
  static double v[ND * ND], x[ND], y[ND], yr[ND];
  fcd_system *sys;
  CHECK_ST(fcd_system_create(ND, &sys), FCD_OK);
  for (int i = 0; i <= ND; i++) rp[i] = (fcd_index)i * ND;
  for (int i = 0; i < ND; i++) {
    x[i] = cos(0.7 * i) + (i % 5 == 0 ? 30.0 : 0.0); /* entries of mixed sizes */
    for (int j = 0; j < ND; j++) {
      ci[i * ND + j] = j;
      v[i * ND + j] = i == j ? ND + 1.0 : sin(0.3 * (i + j)) / (1 + abs(i - j));
    }
  }
  for (int round = 0; round < 2; round++) {
    if (round == 0) {
      CHECK_ST(fcd_system_set_matrix_csr(sys, FCD_STIFFNESS, rp, ci, v, FCD_COO_FULL,
                                         FCD_BORROW), FCD_OK);
    } else {
      v[3 * ND + 70] += 0.25; /* no longer symmetric */
      CHECK_ST(fcd_system_matrix_values_changed(sys, FCD_STIFFNESS), FCD_OK);
    }
    CHECK_ST(fcd_system_apply(sys, FCD_STIFFNESS, x, y), FCD_OK);
    for (int i = 0; i < ND; i++) {
      yr[i] = 0;
      for (int j = 0; j < ND; j++) yr[i] += v[i * ND + j] * x[j];
      CHECK_CLOSE(y[i], yr[i], 1e-12);
    }
  }
  CHECK_ST(fcd_system_set_matrix_csr(sys, FCD_MASS, rp, ci, v, FCD_COO_FULL, FCD_COPY),
           FCD_OK);
  CHECK_ST(fcd_system_set_rayleigh(sys, 0.5, 2e-3), FCD_OK);
  CHECK_ST(fcd_system_apply(sys, FCD_DAMPING, x, y), FCD_OK);
  for (int i = 0; i < ND; i++) {
    double s = 0;
    for (int j = 0; j < ND; j++) s += v[i * ND + j] * x[j];
    CHECK_CLOSE(y[i], (0.5 + 2e-3) * s, 1e-12);
  }
  fcd_system_destroy(sys);
}

static void test_matrix_market(void) {
  fcd_system *sys;
  CHECK_ST(fcd_system_create(3, &sys), FCD_OK);
  char p[512];
  fcdt_tmpfile(p, sizeof p, "sym.mtx");
  FILE *f = fopen(p, "w");
  /* lower triangle as the standard says, comments, an integer field written as real */
  fprintf(f, "%%%%MatrixMarket matrix coordinate real symmetric\n%% comment\n\n"
             "3 3 4\n1 1 4.0\n2 1 -1\n3 2 -1.5e0\n3 3 2\n");
  fclose(f);
  CHECK_ST(fcd_system_read_matrix_market(sys, FCD_MASS, p), FCD_OK);
  const double m[3][3] = {{4, -1, 0}, {-1, 0, -1.5}, {0, -1.5, 2}};
  for (int j = 0; j < 3; j++) {
    double e[3] = {0}, y[3];
    e[j] = 1;
    fcd_system_apply(sys, FCD_MASS, e, y);
    for (int i = 0; i < 3; i++) CHECK_CLOSE(y[i], m[i][j], 0);
  }
  /* write, read back into another kind, compare */
  char q[512];
  fcdt_tmpfile(q, sizeof q, "sym_out.mtx");
  CHECK_ST(fcd_system_write_matrix_market(sys, FCD_MASS, q), FCD_OK);
  CHECK_ST(fcd_system_read_matrix_market(sys, FCD_STIFFNESS, q), FCD_OK);
  for (int j = 0; j < 3; j++) {
    double e[3] = {0}, y[3];
    e[j] = 1;
    fcd_system_apply(sys, FCD_STIFFNESS, e, y);
    for (int i = 0; i < 3; i++) CHECK_CLOSE(y[i], m[i][j], 0);
  }
  fcd_index nr, nc, nz;
  CHECK_ST(fcd_matrix_market_size(q, &nr, &nc, &nz, NULL, 0), FCD_OK);
  CHECK(nr == 3 && nc == 3 && nz == 4);
  /* general integer file, upper-triangle symmetric file */
  f = fopen(p, "w");
  fprintf(f, "%%%%MatrixMarket matrix coordinate integer general\n3 3 3\n1 3 7\n3 1 -2\n2 2 1\n");
  fclose(f);
  CHECK_ST(fcd_system_read_matrix_market(sys, FCD_DAMPING, p), FCD_OK);
  double e0[3] = {1, 0, 0}, y[3];
  fcd_system_apply(sys, FCD_DAMPING, e0, y);
  CHECK(y[0] == 0 && y[1] == 0 && y[2] == -2);
  f = fopen(p, "w");
  fprintf(f, "%%%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n1 2 3\n2 3 4\n");
  fclose(f);
  CHECK_ST(fcd_system_read_matrix_market(sys, FCD_DAMPING, p), FCD_OK);
  double e1[3] = {0, 1, 0};
  fcd_system_apply(sys, FCD_DAMPING, e1, y);
  CHECK(y[0] == 3 && y[1] == 0 && y[2] == 4);
  fcd_system_destroy(sys);
}

typedef struct {
  int calls;
  int fail;
} cb_data;

static int load_cb(void *ud, fcd_real t, fcd_index n, fcd_real *f) {
  cb_data *d = ud;
  d->calls++;
  if (d->fail) return 42;
  for (fcd_index i = 0; i < n; i++) f[i] += t * (double)i; /* adds to the constant part */
  return 0;
}

static int presc_cb(void *ud, fcd_real t, fcd_index nf, const fcd_index *dofs, fcd_real *u,
                    fcd_real *v) {
  cb_data *d = ud;
  d->calls++;
  if (d->fail) return -1;
  for (fcd_index k = 0; k < nf; k++) {
    u[k] += sin(t) * (double)dofs[k];
    v[k] = cos(t) * (double)dofs[k];
  }
  return 0;
}

static void test_loads_and_fixed(void) {
  fcd_system *sys;
  CHECK_ST(fcd_system_create(5, &sys), FCD_OK);
  double f0[5] = {1, 2, 3, 4, 5}, f[5];
  CHECK_ST(fcd_system_eval_load(sys, 0.0, f), FCD_OK);
  for (int i = 0; i < 5; i++) CHECK(f[i] == 0);
  CHECK_ST(fcd_system_set_load(sys, f0), FCD_OK);
  cb_data d = {0, 0};
  CHECK_ST(fcd_system_set_load_fn(sys, load_cb, &d), FCD_OK);
  CHECK_ST(fcd_system_eval_load(sys, 2.0, f), FCD_OK);
  for (int i = 0; i < 5; i++) CHECK(f[i] == f0[i] + 2.0 * i);
  d.fail = 1;
  CHECK_ST(fcd_system_eval_load(sys, 1.0, f), FCD_E_CALLBACK);
  CHECK_MSG(sys, "returned 42");
  d.fail = 0;
  CHECK_ST(fcd_system_set_load_fn(sys, NULL, NULL), FCD_OK);
  CHECK_ST(fcd_system_eval_load(sys, 2.0, f), FCD_OK);
  for (int i = 0; i < 5; i++) CHECK(f[i] == f0[i]);

  const fcd_index dofs[3] = {4, 1, 4};
  const double vals[3] = {9, 0.5, 0.25}; /* dof 4 twice: the last value wins */
  CHECK_ST(fcd_system_fix_dofs(sys, 3, dofs, vals), FCD_OK);
  CHECK(fcd_system_num_fixed(sys) == 2);
  fcd_index got[2];
  double gv[2];
  CHECK_ST(fcd_system_get_fixed(sys, got, gv), FCD_OK);
  CHECK(got[0] == 1 && got[1] == 4 && gv[0] == 0.5 && gv[1] == 0.25);
  const fcd_index more[1] = {0};
  CHECK_ST(fcd_system_fix_dofs(sys, 1, more, NULL), FCD_OK);
  CHECK(fcd_system_num_fixed(sys) == 3);
  double u[3], v[3];
  CHECK_ST(fcd_system_set_prescribed_fn(sys, presc_cb, &d), FCD_OK);
  CHECK_ST(fcd_system_eval_prescribed(sys, 0.5, u, v), FCD_OK);
  CHECK_CLOSE(u[0], 0.0, 0);
  CHECK_CLOSE(u[1], 0.5 + sin(0.5), 1e-15);
  CHECK_CLOSE(u[2], 0.25 + 4 * sin(0.5), 1e-15);
  CHECK_CLOSE(v[2], 4 * cos(0.5), 1e-15);
  CHECK_ST(fcd_system_eval_prescribed(sys, 0.5, u, NULL), FCD_OK);
  d.fail = 1;
  CHECK_ST(fcd_system_eval_prescribed(sys, 0.5, u, v), FCD_E_CALLBACK);
  CHECK_ST(fcd_system_clear_fixed(sys), FCD_OK);
  CHECK(fcd_system_num_fixed(sys) == 0);

  char p[512];
  fcdt_tmpfile(p, sizeof p, "fixed.txt");
  FILE *fp = fopen(p, "w");
  fprintf(fp, "# prescribed\n3 0.125\n\n0   # clamped\n");
  fclose(fp);
  CHECK_ST(fcd_system_read_fixed(sys, p), FCD_OK);
  CHECK(fcd_system_num_fixed(sys) == 2);
  CHECK_ST(fcd_system_get_fixed(sys, got, gv), FCD_OK);
  CHECK(got[0] == 0 && gv[0] == 0 && got[1] == 3 && gv[1] == 0.125);
  fcd_system_destroy(sys);
}

/* the registries: names and values both ways, and every refusal of bad input */
static void test_registry(void) {
  static const fcd_family fams[] = {FCD_FAMILY_SCHEME, FCD_FAMILY_CONTACT_SOLVER,
                                    FCD_FAMILY_MATRIX_FORMAT, FCD_FAMILY_MESH_FORMAT};
  for (size_t f = 0; f < sizeof fams / sizeof *fams; f++) {
    int n = fcd_registry_count(fams[f]);
    CHECK(n >= 4);
    for (int k = 0; k < n; k++) {
      const char *name = NULL, *summary = NULL;
      int v = -1, w = -2;
      CHECK_ST(fcd_registry_entry(fams[f], k, &name, &v, &summary), FCD_OK);
      CHECK(name && summary && *summary);
      CHECK_ST(fcd_registry_lookup(fams[f], name, &w), FCD_OK);
      CHECK(w == v);
      CHECK(fcd_registry_name(fams[f], v) == name);
    }
    CHECK_ST(fcd_registry_entry(fams[f], n, NULL, NULL, NULL), FCD_E_INVALID_ARG);
    CHECK_ST(fcd_registry_entry(fams[f], -1, NULL, NULL, NULL), FCD_E_INVALID_ARG);
    int v;
    CHECK_ST(fcd_registry_lookup(fams[f], "no-such-name", &v), FCD_E_INVALID_ARG);
    CHECK_ST(fcd_registry_lookup(fams[f], NULL, &v), FCD_E_INVALID_ARG);
    CHECK_ST(fcd_registry_lookup(fams[f], "auto", NULL), FCD_E_INVALID_ARG);
    CHECK(fcd_registry_name(fams[f], 12345) == NULL);
  }
  CHECK(fcd_registry_count((fcd_family)99) == 0);
  CHECK_ST(fcd_registry_entry((fcd_family)99, 0, NULL, NULL, NULL), FCD_E_INVALID_ARG);
  CHECK(fcd_registry_name((fcd_family)-1, 0) == NULL);
  /* the library checks values against the same rows */
  int fremond;
  CHECK_ST(fcd_registry_lookup(FCD_FAMILY_SCHEME, "fremond", &fremond), FCD_OK);
  CHECK(fremond == FCD_SCHEME_FREMOND);
  CHECK(!strcmp(fcd_registry_name(FCD_FAMILY_MATRIX_FORMAT, FCD_MATRIX_FORMAT_NASTRAN_OP4),
                fcd_matrix_format_name(FCD_MATRIX_FORMAT_NASTRAN_OP4)));
  fcd_system *sys = NULL;
  fcd_integrator *it = NULL;
  CHECK_ST(fcd_system_create(2, &sys), FCD_OK);
  CHECK_ST(fcd_integrator_create(sys, NULL, (fcd_scheme)fcd_registry_count(FCD_FAMILY_SCHEME),
                                 &it),
           FCD_E_INVALID_ARG);
  CHECK(it == NULL);
  fcd_system_destroy(sys);
}

int main(void) {
  test_registry();
  test_status_and_version();
  test_coo();
  test_csr();
  test_dense();
  test_matrix_market();
  test_loads_and_fixed();
  return fcdt_finish("test_system");
}
