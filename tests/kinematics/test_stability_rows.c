/* The stability analysis with contacts given by rows (issue 22): the reduced pencil is
 * a Petrov-Galerkin projection whose trial space keeps the active constraints and whose
 * test space annihilates the linearised reaction directions (H_N + mu s H_T for a
 * slipping contact), condensed on one dof per constraint that only its contact touches.
 *  1. seed 000 Ex. 4.6 (the pin) with its contact written as rows: the printed
 *     eigenvalues of Fig. 9 and the printed flutter/divergence inequalities;
 *  2. node contacts (rigid frames turned in the plane, node pairs, open/stick/slip,
 *     dense and SLEPc paths, Rayleigh damping) against the same contacts copied into
 *     rows through the public operator (fcd_contact_set_global of unit reactions): the
 *     same eigenvalues to round-off, the same reduced size;
 *  3. 3D sliding damping with a rows contact: the closed form of test_stability;
 *  4. a constraint no node contact can state, a rigid flat touching a segment at
 *     (1 - xi) A + xi B: closed forms below, stick and slip;
 *  5. what cannot be reduced is refused with a message. */
#include <fcd/fcd.h>

#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../fcdtest.h"

#define PI 3.14159265358979323846

static fcd_system *dense_system(int n, const double *K, const double *M) {
  fcd_system *sys;
  CHECK_ST(fcd_system_create(n, &sys), FCD_OK);
  fcd_index r[400], c[400];
  double kv[400], mv[400];
  int nz = 0;
  for (int i = 0; i < n; i++)
    for (int j = i; j < n; j++) {
      r[nz] = i;
      c[nz] = j;
      kv[nz] = K[i * n + j];
      mv[nz++] = M[i * n + j];
    }
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, nz, r, c, kv, FCD_COO_UPPER), FCD_OK);
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_MASS, nz, r, c, mv, FCD_COO_UPPER), FCD_OK);
  return sys;
}

/* The contacts of src copied into a new set as rows: row k of contact c is H^T e_{c d+k},
 * read through the public operator, so the copy knows nothing of frames or pairs. */
static fcd_contact_set *as_rows(fcd_system *sys, const fcd_contact_set *src) {
  int d = fcd_contact_set_dim(src);
  fcd_index nc = fcd_contact_set_size(src), n = fcd_system_ndofs(sys);
  fcd_contact_set *cs = NULL;
  CHECK_ST(fcd_contact_set_create(sys, d, &cs), FCD_OK);
  double *r = calloc((size_t)(nc * d), sizeof *r), *f = malloc(sizeof *f * (size_t)n);
  fcd_index *dofs = malloc(sizeof *dofs * (size_t)(3 * n));
  double *w = malloc(sizeof *w * (size_t)(3 * n));
  for (fcd_index c = 0; c < nc; c++) {
    fcd_index ptr[4] = {0};
    for (int k = 0; k < d; k++) {
      memset(r, 0, sizeof *r * (size_t)(nc * d));
      r[c * d + k] = 1;
      CHECK_ST(fcd_contact_set_global(src, r, f), FCD_OK);
      ptr[k + 1] = ptr[k];
      for (fcd_index i = 0; i < n; i++)
        if (f[i] != 0) {
          dofs[ptr[k + 1]] = i;
          w[ptr[k + 1]++] = f[i];
        }
    }
    double gap, mu;
    CHECK_ST(fcd_contact_set_get(src, c, NULL, &gap, &mu, NULL), FCD_OK);
    CHECK_ST(fcd_contact_set_add_rows(cs, ptr, dofs, w, gap, mu, NULL), FCD_OK);
  }
  free(r);
  free(f);
  free(dofs);
  free(w);
  return cs;
}

/* eigenvalues of the analysis of (sys, cs) in the given state; returns nconv */
static fcd_index eigs(fcd_system *sys, fcd_contact_set *cs, const int *status,
                      const double *slip, int sparse, int nev, double complex *lam,
                      fcd_index *nred) {
  fcd_stability *st = NULL;
  CHECK_ST(fcd_stability_create(sys, cs, &st), FCD_OK);
  CHECK_ST(fcd_stability_set_contact_state(st, status, slip), FCD_OK);
  if (sparse) {
    CHECK_ST(fcd_stability_set_param(st, FCD_STAB_DENSE_MAX, 0), FCD_OK);
    CHECK_ST(fcd_stability_set_param(st, FCD_STAB_NEV, nev), FCD_OK);
    CHECK_ST(fcd_stability_set_param(st, FCD_STAB_TOLERANCE, 1e-12), FCD_OK);
  }
  fcd_index nconv = 0;
  CHECK_ST(fcd_stability_solve(st, &nconv), FCD_OK);
  for (fcd_index i = 0; i < nconv; i++) {
    double re, im;
    CHECK_ST(fcd_stability_get_eigenvalue(st, i, &re, &im), FCD_OK);
    lam[i] = re + I * im;
  }
  *nred = fcd_stability_reduced_size(st);
  fcd_stability_destroy(st);
  return nconv;
}

/* worst distance of each of a's eigenvalues to the nearest of b's, relative */
static double spectrum_gap(fcd_index na, const double complex *a, fcd_index nb,
                           const double complex *b) {
  double worst = 0;
  for (fcd_index i = 0; i < na; i++) {
    double best = INFINITY;
    for (fcd_index j = 0; j < nb; j++) best = fmin(best, cabs(a[i] - b[j]));
    worst = fmax(worst, best / fmax(1.0, cabs(a[i])));
  }
  return worst;
}

/* ---- 1. Ex. 4.6 through rows (model and closed forms as in test_stability.c) ---- */
static fcd_system *pin_rows(double h, double rho, double hm, double rm, double mu,
                            fcd_contact_set **cs) {
  const double K[16] = {1, h, -1, 0, h, 4 * rho * rho + h * h, -h, 6 * rho * rho,
                        -1, -h, 1, 0, 0, 6 * rho * rho, 0, 12 * rho * rho};
  const double M[16] = {3, 0, 0, 0, 0, hm * hm + rm * rm, -hm, 0, 0, -hm, 1, 0, 0, 0, 0, 1};
  fcd_system *sys = dense_system(4, K, M);
  const fcd_index fx = 0;
  CHECK_ST(fcd_system_fix_dofs(sys, 1, &fx, NULL), FCD_OK);
  CHECK_ST(fcd_contact_set_create(sys, 2, cs), FCD_OK);
  /* N row: u_N (dof 3); T row: u_T (dof 2) */
  const fcd_index ptr[3] = {0, 1, 2}, dofs[2] = {3, 2};
  const double w[2] = {1, 1};
  CHECK_ST(fcd_contact_set_add_rows(*cs, ptr, dofs, w, 0.0, mu, NULL), FCD_OK);
  return sys;
}

static void ex46(void) {
  fcd_contact_set *cs;
  fcd_system *sys = pin_rows(0.1, 0.07, 0.05, 0.15, 2.2, &cs);
  const int slip_status = FCD_CONTACT_SLIP;
  const double s = -1.0;
  double complex lam[8];
  fcd_index nred, n = eigs(sys, cs, &slip_status, &s, 0, 0, lam, &nred);
  CHECK(n == 4 && nred == 2);
  /* Fig. 9: lambda = +-(0.081837 +- 1.034251 i) */
  CHECK(fabs(creal(lam[0]) - 0.081837) < 1e-6 && fabs(fabs(cimag(lam[0])) - 1.034251) < 1e-6);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
  int nfl = 0, ndiv = 0;
  for (int m = 0; m <= 40; m++)
    for (int sg = -1; sg <= 1; sg += 2) {
      double h = 0.1, rho = 0.07, rm = 0.15, mu = 0.25 * m;
      double q = rho / rm, p = h / rm, g = 2 - 3 * mu * h * sg;
      double fl = (1 + 4 * q * q + p * p) * (1 + 4 * q * q + p * p) - 8 * q * q * g;
      if (fabs(fl) < 1e-9 || fabs(g) < 1e-9) continue;
      sys = pin_rows(h, rho, 0.0, rm, mu, &cs);
      fcd_stability *st;
      CHECK_ST(fcd_stability_create(sys, cs, &st), FCD_OK);
      const double sd = sg;
      CHECK_ST(fcd_stability_set_contact_state(st, &slip_status, &sd), FCD_OK);
      CHECK_ST(fcd_stability_solve(st, NULL), FCD_OK);
      int flutter, divergence;
      CHECK_ST(fcd_stability_get_summary(st, &flutter, &divergence, NULL, NULL), FCD_OK);
      CHECK(flutter == (fl < 0) && divergence == (g < 0));
      nfl += flutter;
      ndiv += divergence;
      fcd_stability_destroy(st);
      fcd_contact_set_destroy(cs);
      fcd_system_destroy(sys);
    }
  CHECK(nfl > 3 && ndiv > 3);
  fprintf(stderr, "Ex. 4.6 as rows: Fig. 9 eigenvalues to 1e-6; %d flutter, %d divergence "
          "states as printed\n", nfl, ndiv);
}

/* ---- 2. node contacts against their copy as rows ---- */
static unsigned rng = 77u;
static double urand(void) {
  rng = rng * 1664525u + 1013904223u;
  return ((rng >> 8) & 0xffffff) / (double)0x1000000;
}

static void node_contacts_as_rows(void) {
  const int n = 18;
  double worst = 0;
  for (int trial = 0; trial < 6; trial++) {
    double K[324], M[324], B[324];
    for (int i = 0; i < n * n; i++) B[i] = urand() - 0.5;
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
        double sk = i == j ? 1.0 : 0.0;
        for (int q = 0; q < n; q++) sk += B[q * n + i] * B[q * n + j];
        K[i * n + j] = sk;
        M[i * n + j] = i == j ? 1.0 + 0.1 * i : (abs(i - j) == 1 ? 0.05 : 0.0);
      }
    fcd_system *sys = dense_system(n, K, M);
    if (trial % 2) CHECK_ST(fcd_system_set_rayleigh(sys, 0.05, 0.002), FCD_OK);
    fcd_contact_set *cs;
    CHECK_ST(fcd_contact_set_create(sys, 2, &cs), FCD_OK);
    /* nodes 0-3 on rigid flats turned by random angles, nodes 4 and 5 a pair, the other
     * three nodes free */
    double mu = 0.2 + 0.6 * urand();
    for (int c = 0; c < 4; c++) {
      double a = 2 * PI * urand();
      const fcd_index dd[2] = {2 * c, 2 * c + 1};
      const double nv[2] = {cos(a), sin(a)}, tv[2] = {-sin(a), cos(a)};
      CHECK_ST(fcd_contact_set_add_rigid(cs, dd, nv, tv, 0.0, mu, NULL), FCD_OK);
    }
    {
      double a = 2 * PI * urand();
      const fcd_index da[2] = {8, 9}, db[2] = {10, 11};
      const double nv[2] = {cos(a), sin(a)}, tv[2] = {-sin(a), cos(a)};
      CHECK_ST(fcd_contact_set_add_pair(cs, da, db, nv, tv, 0.0, mu, NULL), FCD_OK);
    }
    fcd_contact_set *rows = as_rows(sys, cs);
    int status[5];
    double slip[5];
    for (int c = 0; c < 5; c++) {
      status[c] = (trial + c) % 3;
      slip[c] = urand() < 0.5 ? -1 : 1;
    }
    for (int sparse = 0; sparse < 2; sparse++) {
      double complex l1[64], l2[64];
      fcd_index r1, r2;
      fcd_index n1 = eigs(sys, cs, status, slip, sparse, 6, l1, &r1);
      fcd_index n2 = eigs(sys, rows, status, slip, sparse, 6, l2, &r2);
      CHECK(n1 == n2 && r1 == r2 && n1 > 0);
      double g = fmax(spectrum_gap(n1, l1, n2, l2), spectrum_gap(n2, l2, n1, l1));
      worst = fmax(worst, g);
      CHECK(g < (sparse ? 1e-9 : 1e-11));
    }
    fcd_contact_set_destroy(rows);
    fcd_contact_set_destroy(cs);
    fcd_system_destroy(sys);
  }
  fprintf(stderr, "node contacts against their rows: worst eigenvalue difference %.2e\n", worst);
}

/* ---- 3. the 3D sliding damping through rows (closed form of test_stability.c) ---- */
static void sliding_damping_3d(void) {
  const double m = 2, kx = 50, ky = 80, kz = 200, mu = 0.3, rn = -10, v = 2;
  const double K[9] = {kx, 0, 0, 0, ky, 0, 0, 0, kz}, M[9] = {m, 0, 0, 0, m, 0, 0, 0, m};
  fcd_system *sys = dense_system(3, K, M);
  fcd_contact_set *cs;
  CHECK_ST(fcd_contact_set_create(sys, 3, &cs), FCD_OK);
  const fcd_index ptr[4] = {0, 1, 2, 3}, dofs[3] = {2, 0, 1};
  const double w[3] = {1, 1, 1};
  CHECK_ST(fcd_contact_set_add_rows(cs, ptr, dofs, w, 0.0, mu, NULL), FCD_OK);
  fcd_stability *st;
  CHECK_ST(fcd_stability_create(sys, cs, &st), FCD_OK);
  const int status = FCD_CONTACT_SLIP;
  const double s[2] = {1, 0};
  CHECK_ST(fcd_stability_set_contact_state(st, &status, s), FCD_OK);
  CHECK_ST(fcd_stability_set_sliding_data(st, &rn, &v), FCD_OK);
  fcd_index nconv;
  CHECK_ST(fcd_stability_solve(st, &nconv), FCD_OK);
  CHECK(nconv == 4);
  double c = -mu * rn / v;
  double complex want[4] = {I * sqrt(kx / m), -I * sqrt(kx / m),
                            (-c + csqrt(c * c - 4 * m * ky)) / (2 * m),
                            (-c - csqrt(c * c - 4 * m * ky)) / (2 * m)};
  double complex got[4];
  for (fcd_index i = 0; i < nconv && i < 4; i++) {
    double re, im;
    fcd_stability_get_eigenvalue(st, i, &re, &im);
    got[i] = re + I * im;
  }
  CHECK(spectrum_gap(4, want, 4, got) < 1e-10);
  fcd_stability_destroy(st);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
}

/* ---- 4. a rigid flat touching the segment AB at (1 - xi) A + xi B ----
 * Nodes A (dofs 0, 1) and B (2, 3), unit masses, x springs k1, k2, y springs k1 + kc,
 * k2 + kc coupled by -kc (K = [k1+kc, -kc; -kc, k2+kc] on (yA, yB)); normal y, tangent x.
 * With a = (1 - xi) / xi the constraint is yB = -a yA, and the test rows keep yB's
 * multiplier: for slip, w_yB = -a w_yA - (mu s / xi)((1 - xi) w_xA + xi w_xB). In the
 * basis (xA, xB, yA) both K* and M* are upper triangular (x rows of the trial columns
 * have no y part, K and M do not couple x and y), so the eigenvalues Lambda = -lambda^2
 * are the diagonal ratios, friction or not:
 *   slip:  k1, k2 and L_y = (k1 + kc + a^2 (k2 + kc) + 2 a kc) / (1 + a^2);
 *   stick: the x rows also tie xB = -a xA: L_x = (k1 + a^2 k2) / (1 + a^2), and L_y. */
static void segment_point(void) {
  const double k1 = 100, k2 = 300, kc = 50, xi = 0.3, mu = 0.4;
  const double K[16] = {k1, 0, 0, 0, 0, k1 + kc, 0, -kc, 0, 0, k2, 0, 0, -kc, 0, k2 + kc};
  const double M[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  const double a = (1 - xi) / xi;
  const double Ly = (k1 + kc + a * a * (k2 + kc) + 2 * a * kc) / (1 + a * a);
  const double Lx = (k1 + a * a * k2) / (1 + a * a);
  for (int stick = 0; stick < 2; stick++)
    for (int sg = -1; sg <= 1; sg += 2) {
      fcd_system *sys = dense_system(4, K, M);
      fcd_contact_set *cs;
      CHECK_ST(fcd_contact_set_create(sys, 2, &cs), FCD_OK);
      const fcd_index ptr[3] = {0, 2, 4}, dofs[4] = {1, 3, 0, 2};
      const double w[4] = {1 - xi, xi, 1 - xi, xi};
      CHECK_ST(fcd_contact_set_add_rows(cs, ptr, dofs, w, 0.0, mu, NULL), FCD_OK);
      const int status = stick ? FCD_CONTACT_STICK : FCD_CONTACT_SLIP;
      const double s = sg;
      double complex lam[8], want[6];
      fcd_index nred, n = eigs(sys, cs, &status, &s, 0, 0, lam, &nred);
      double L[3] = {stick ? Lx : k1, stick ? Ly : k2, Ly};
      int nw = stick ? 2 : 3;
      CHECK(n == 2 * nw && nred == nw);
      for (int k = 0; k < nw; k++) {
        want[2 * k] = I * sqrt(L[k]);
        want[2 * k + 1] = -I * sqrt(L[k]);
      }
      double g = fmax(spectrum_gap(n, lam, 2 * nw, want), spectrum_gap(2 * nw, want, n, lam));
      CHECK(g < 1e-12);
      fcd_contact_set_destroy(cs);
      fcd_system_destroy(sys);
    }
}

/* ---- 5. refused: two sticking contacts whose rows span the same two dofs leave no dof
 * that only one of them constrains ---- */
static void refused(void) {
  const double K[9] = {2, 0, 0, 0, 3, 0, 0, 0, 5}, M[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  fcd_system *sys = dense_system(3, K, M);
  fcd_contact_set *cs;
  CHECK_ST(fcd_contact_set_create(sys, 2, &cs), FCD_OK);
  const fcd_index ptr[3] = {0, 2, 4}, dofs[4] = {0, 1, 0, 1};
  const double w1[4] = {0.5, 0.5, 0.5, -0.5}, w2[4] = {0.2, 0.8, 0.8, -0.2};
  CHECK_ST(fcd_contact_set_add_rows(cs, ptr, dofs, w1, 0.0, 0.3, NULL), FCD_OK);
  CHECK_ST(fcd_contact_set_add_rows(cs, ptr, dofs, w2, 0.0, 0.3, NULL), FCD_OK);
  fcd_stability *st;
  CHECK_ST(fcd_stability_create(sys, cs, &st), FCD_OK);
  const int status[2] = {FCD_CONTACT_STICK, FCD_CONTACT_STICK};
  CHECK_ST(fcd_stability_set_contact_state(st, status, NULL), FCD_OK);
  CHECK_ST(fcd_stability_solve(st, NULL), FCD_E_UNSUPPORTED);
  CHECK_MSG(sys, "only it constrains");
  /* one of them open: the other is reduced (dofs 0 and 1 tied, dof 2 left) */
  const int one[2] = {FCD_CONTACT_OPEN, FCD_CONTACT_STICK};
  CHECK_ST(fcd_stability_set_contact_state(st, one, NULL), FCD_OK);
  fcd_index nconv = -1;
  CHECK_ST(fcd_stability_solve(st, &nconv), FCD_OK);
  CHECK(nconv == 2 && fcd_stability_reduced_size(st) == 1);
  double im = 0;
  CHECK_ST(fcd_stability_get_eigenvalue(st, 0, NULL, &im), FCD_OK);
  CHECK_CLOSE(fabs(im), sqrt(5.0), 1e-14);
  fcd_stability_destroy(st);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
}

int main(void) {
  ex46();
  node_contacts_as_rows();
  sliding_damping_3d();
  segment_point();
  refused();
  fcd_finalize();
  return fcdt_finish("test_stability_rows");
}
