/* Natural frequencies of a clamped-free Euler-Bernoulli beam converge to the analytic
 * values omega_n = (beta_n L)^2 sqrt(EI / (rho A L^4)), beta_n L = 1.8751, 4.6941,
 * 7.8548, as the mesh is refined; through the library (SLEPc) and through `fcd info`.
 * The element matrices are integrated here by Gauss quadrature of the Hermite shape
 * functions, independently of the demo's closed-form element matrices. */
#include <fcd/fcd.h>

#include <sys/wait.h>

#include "../fcdtest.h"

static const double PI = 3.14159265358979323846;
static const double BETA_L[3] = {1.87510406871196, 4.69409113297418, 7.85475743823761};
static const double L = 2.0, EI = 3.5e4, RHOA = 12.0;

static double analytic_hz(int k) {
  return BETA_L[k] * BETA_L[k] * sqrt(EI / (RHOA * pow(L, 4))) / (2 * PI);
}

/* Hermite cubics on [0, 1] and their second derivatives in xi, element length h */
static void shape(double xi, double h, double n[4], double d2[4]) {
  n[0] = 1 - 3 * xi * xi + 2 * xi * xi * xi;
  n[1] = h * (xi - 2 * xi * xi + xi * xi * xi);
  n[2] = 3 * xi * xi - 2 * xi * xi * xi;
  n[3] = h * (-xi * xi + xi * xi * xi);
  d2[0] = -6 + 12 * xi;
  d2[1] = h * (-4 + 6 * xi);
  d2[2] = 6 - 12 * xi;
  d2[3] = h * (-2 + 6 * xi);
}

/* full-storage COO of K and M (every element entry, duplicates summed by fcd) */
static fcd_system *build(int nel, int use_upper) {
  const double gx[4] = {0.5 - 0.430568155797026, 0.5 - 0.169990521792428,
                        0.5 + 0.169990521792428, 0.5 + 0.430568155797026};
  const double gw[4] = {0.173927422568727, 0.326072577431273, 0.326072577431273,
                        0.173927422568727};
  double h = L / nel, ke[4][4] = {{0}}, me[4][4] = {{0}};
  for (int g = 0; g < 4; g++) {
    double n[4], d2[4];
    shape(gx[g], h, n, d2);
    for (int a = 0; a < 4; a++)
      for (int b = 0; b < 4; b++) {
        ke[a][b] += gw[g] * EI * d2[a] * d2[b] / (h * h * h);
        me[a][b] += gw[g] * RHOA * n[a] * n[b] * h;
      }
  }
  fcd_index nt = 16 * nel, t = 0;
  fcd_index *r = malloc(nt * sizeof *r), *c = malloc(nt * sizeof *c);
  double *kv = malloc(nt * sizeof *kv), *mv = malloc(nt * sizeof *mv);
  for (int e = 0; e < nel; e++)
    for (int a = 0; a < 4; a++)
      for (int b = 0; b < 4; b++) {
        if (use_upper && b < a) continue;
        r[t] = 2 * e + a;
        c[t] = 2 * e + b;
        kv[t] = ke[a][b];
        mv[t] = me[a][b];
        t++;
      }
  fcd_system *sys;
  CHECK_ST(fcd_system_create(2 * (nel + 1), &sys), FCD_OK);
  unsigned fl = use_upper ? FCD_COO_UPPER : FCD_COO_FULL;
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, t, r, c, kv, fl), FCD_OK);
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_MASS, t, r, c, mv, fl), FCD_OK);
  const fcd_index clamp[2] = {0, 1};
  CHECK_ST(fcd_system_fix_dofs(sys, 2, clamp, NULL), FCD_OK);
  free(r);
  free(c);
  free(kv);
  free(mv);
  return sys;
}

static void test_convergence(void) {
  double prev_err[3] = {INFINITY, INFINITY, INFINITY};
  const int meshes[5] = {4, 8, 16, 32, 64};
  for (int m = 0; m < 5; m++) {
    fcd_system *sys = build(meshes[m], m % 2);
    fcd_index n = fcd_system_ndofs(sys), nc = 0;
    double w2[4], *modes = malloc(4 * n * sizeof *modes);
    CHECK_ST(fcd_system_check_spd(sys, FCD_MASS), FCD_OK);
    CHECK_ST(fcd_system_natural_modes(sys, 4, w2, modes, &nc), FCD_OK);
    CHECK(nc == 4);
    for (int k = 0; k < 3; k++) {
      double f = sqrt(w2[k]) / (2 * PI), err = fabs(f - analytic_hz(k)) / analytic_hz(k);
      /* The FE frequency converges from above (Rayleigh-Ritz) at O(h^4), up to rounding:
       * assembly errors of relative size eps move omega_1^2 by up to
       * eps * omega_max^2 / omega_1^2 ~ 1e-16 * 1e9 at h = L/64, hence 1e-8. */
      CHECK(f >= analytic_hz(k) * (1 - 1e-8));
      CHECK(err < prev_err[k]);
      /* O(h^4): halving h divides the error by ~16, until the eigen-solver tolerance
       * (1e-10 on omega^2) is reached */
      if (m > 0 && prev_err[k] > 1e-8) CHECK(prev_err[k] / err > 10.0);
      prev_err[k] = err;
    }
    /* modes: M-orthonormal, K-orthogonal with phi^T K phi = omega^2, zero where clamped */
    double *y = malloc(n * sizeof *y);
    for (int i = 0; i < 4; i++) {
      CHECK(modes[i * n] == 0 && modes[i * n + 1] == 0);
      for (int j = 0; j < 4; j++) {
        double mij = 0, kij = 0;
        fcd_system_apply(sys, FCD_MASS, modes + j * n, y);
        for (fcd_index q = 0; q < n; q++) mij += modes[i * n + q] * y[q];
        fcd_system_apply(sys, FCD_STIFFNESS, modes + j * n, y);
        for (fcd_index q = 0; q < n; q++) kij += modes[i * n + q] * y[q];
        CHECK(fabs(mij - (i == j)) < 1e-8);
        CHECK(fabs(kij - (i == j) * w2[i]) < 1e-8 * w2[3]);
      }
    }
    free(y);
    free(modes);
    fcd_system_destroy(sys);
  }
  /* the finest mesh (h = L/64): first three frequencies to 1e-6 */
  for (int k = 0; k < 3; k++) CHECK(prev_err[k] < 1e-6);
}

/* `fcd info` on files written from a system built here */
static void test_tool(const char *fcd_exe) {
  fcd_system *sys = build(24, 1);
  char pm[512], pk[512], pf[512], cmd[2048];
  fcdt_tmpfile(pm, sizeof pm, "beam_M.mtx");
  fcdt_tmpfile(pk, sizeof pk, "beam_K.mtx");
  fcdt_tmpfile(pf, sizeof pf, "beam_fixed.txt");
  CHECK_ST(fcd_system_write_matrix_market(sys, FCD_MASS, pm), FCD_OK);
  CHECK_ST(fcd_system_write_matrix_market(sys, FCD_STIFFNESS, pk), FCD_OK);
  FILE *f = fopen(pf, "w");
  fprintf(f, "0\n1 0.0\n");
  fclose(f);
  fcd_system_destroy(sys);
  snprintf(cmd, sizeof cmd, "'%s' info --mass '%s' --stiffness '%s' --fixed '%s' --nev 3",
           fcd_exe, pm, pk, pf);
  FILE *p = popen(cmd, "r");
  CHECK(p != NULL);
  if (!p) return;
  char line[512];
  int found = 0, spd = 0, sym = 0;
  while (fgets(line, sizeof line, p)) {
    int k;
    double hz;
    if (sscanf(line, "frequency %d: %lf Hz", &k, &hz) == 2 && k >= 1 && k <= 3) {
      CHECK(fabs(hz - analytic_hz(k - 1)) / analytic_hz(k - 1) < 1e-5);
      found++;
    }
    if (strstr(line, "mass SPD on free dofs: yes")) spd = 1;
    if (strstr(line, "stiffness: 50 x 50") && strstr(line, " symmetric")) sym = 1;
    if (strstr(line, "dofs: 50 (prescribed 2, free 48)")) found += 10;
  }
  CHECK(pclose(p) == 0);
  CHECK(found == 13);
  CHECK(spd && sym);
  /* and a mass of the wrong size is refused with the reason, exit status 1 */
  snprintf(cmd, sizeof cmd, "'%s' info --mass '%s' --stiffness '%s' 2>&1", fcd_exe, pm, pm);
  fcd_system *small = build(3, 0);
  char ps[512];
  fcdt_tmpfile(ps, sizeof ps, "beam_small_K.mtx");
  fcd_system_write_matrix_market(small, FCD_STIFFNESS, ps);
  fcd_system_destroy(small);
  snprintf(cmd, sizeof cmd, "'%s' info --mass '%s' --stiffness '%s' 2>&1", fcd_exe, pm, ps);
  p = popen(cmd, "r");
  int named = 0;
  while (fgets(line, sizeof line, p))
    if (strstr(line, "is 8 x 8 but the system has 50 dofs")) named = 1;
  CHECK(named);
  CHECK(WEXITSTATUS(pclose(p)) == 1);
}

int main(int argc, char **argv) {
  test_convergence();
  if (argc > 1) test_tool(argv[1]);
  else CHECK(!"the path of the fcd program is required");
  fcd_finalize();
  return fcdt_finish("test_beam");
}
