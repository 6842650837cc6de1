/* Time integration against closed forms and the exact energy identity of seed 004. */
#include <fcd/fcd.h>

#include <stdlib.h>
#include <string.h>

#include "../fcdtest.h"
#include "fc_private.h"

static const double G = 9.81;

/* a point mass in the plane (dofs x, y), optional spring k along x, gravity -y, a rigid
 * ground below: n = (0, -1) points from the body into the ground, u_N = -y, gap h0 */
static fcd_system *point_mass(double m, double kx, double ky, fcd_contact_set **cs, double h0,
                              double mu, double e) {
  fcd_system *sys;
  CHECK_ST(fcd_system_create(2, &sys), FCD_OK);
  const fcd_index d[2] = {0, 1};
  const double mv[2] = {m, m}, kv[2] = {kx, ky};
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_MASS, 2, d, d, mv, FCD_COO_UPPER), FCD_OK);
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, 2, d, d, kv, FCD_COO_UPPER), FCD_OK);
  const double f[2] = {0, -m * G};
  CHECK_ST(fcd_system_set_load(sys, f), FCD_OK);
  CHECK_ST(fcd_contact_set_create(sys, 2, cs), FCD_OK);
  const double n[2] = {0, -1}, t[2] = {1, 0};
  CHECK_ST(fcd_contact_set_add_rigid(*cs, d, n, t, h0, mu, NULL), FCD_OK);
  CHECK_ST(fcd_contact_set_set_restitution(*cs, e), FCD_OK);
  return sys;
}

/* Dropped from h0 with restitution e: the apex heights are e^(2k) h0. The impact is
 * resolved at step resolution, so each apex is within O(v0 h) of the closed form. */
static void test_bounce(fcd_scheme scheme, double e) {
  const double h0 = 1.0, dt = 1e-3, v0 = sqrt(2 * G * h0);
  fcd_contact_set *cs;
  fcd_system *sys = point_mass(1.0, 0.0, 0.0, &cs, h0, 0.0, e);
  fcd_integrator *it;
  CHECK_ST(fcd_integrator_create(sys, cs, scheme, &it), FCD_OK);
  CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_STEP, dt), FCD_OK);
  const double u0[2] = {0, 0}, vv0[2] = {0, 0};
  CHECK_ST(fcd_integrator_set_state(it, 0, u0, vv0), FCD_OK);
  double apex[4] = {0}, u[2], v[2], prev_vy = 0;
  int k = 0, rising = 0;
  for (int s = 0; s < 6000 && k < 3; s++) {
    CHECK_ST(fcd_integrator_step(it), FCD_OK);
    fcd_integrator_get_state(it, NULL, u, v);
    double height = u[1] + h0;
    /* a velocity-level scheme may overshoot the ground by at most one step's travel */
    CHECK(height > -v0 * dt);
    if (v[1] > 0) rising = 1;
    if (rising && prev_vy > 0 && v[1] <= 0) { /* apex of bounce k + 1 */
      apex[++k] = height;
      rising = 0;
    }
    if (rising) apex[k + 1] = fmax(apex[k + 1], height);
    prev_vy = v[1];
  }
  CHECK(k == 3);
  for (int j = 1; j <= 3; j++) {
    double want = pow(e, 2 * j) * h0;
    if (fabs(apex[j] - want) > 3 * v0 * dt)
      fprintf(stderr, "  scheme %d e %g apex %d: %.6f vs %.6f\n", scheme, e, j, apex[j], want);
    CHECK(fabs(apex[j] - want) <= 3 * v0 * dt);
  }
  fcd_integrator_destroy(it);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
}

/* Block on a spring (k) pressed by gravity on a rough floor (mu), released at rest from
 * x0 with x_s = mu m g / k < x0 <= 3 x_s. While it slides back, m x'' + k x = mu m g, so
 * x(t) = x_s + (x0 - x_s) cos(w t); the velocity vanishes at t = pi / w where
 * x = 2 x_s - x0, inside the stick band |x| <= x_s: it stays there for good. */
static void test_friction_block(fcd_scheme scheme, double x0_over_xs) {
  const double m = 2.0, k = 50.0, mu = 0.4, dt = 1e-4;
  const double xs = mu * m * G / k, x0 = x0_over_xs * xs, w = sqrt(k / m);
  fcd_contact_set *cs;
  fcd_system *sys = point_mass(m, k, 0.0, &cs, 0.0, mu, 0.0);
  fcd_integrator *it;
  CHECK_ST(fcd_integrator_create(sys, cs, scheme, &it), FCD_OK);
  CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_STEP, dt), FCD_OK);
  const double u0[2] = {x0, 0}, v0[2] = {0, 0};
  CHECK_ST(fcd_integrator_set_state(it, 0, u0, v0), FCD_OK);
  double u[2], v[2], t, t_stop = -1, vmax = (x0 - xs) * w, xprev = x0, vprev = 0;
  for (int s = 0; s < (int)(2.0 * 3.14159265358979323846 / w / dt); s++) {
    CHECK_ST(fcd_integrator_step(it), FCD_OK);
    fcd_integrator_get_state(it, &t, u, v);
    CHECK(fabs(u[1]) < 1e-12); /* resting contact: no sinking, no lift-off */
    if (fabs(u[0] - xprev) > 1e-12) t_stop = t; /* the last step that moved it */
    xprev = u[0];
    if (s + 1 < (int)(2.0 * 3.14159265358979323846 / w / dt)) vprev = v[0];
  }
  double want = 2 * xs - x0, amax = k * (x0 - xs) / m;
  CHECK(fabs(u[0] - want) <= 2 * vmax * dt + 1e-12);
  CHECK(fabs(t_stop - 3.14159265358979323846 / w) <= 3 * dt);
  if (scheme == FCD_SCHEME_MOREAU_JEAN) {
    CHECK(fabs(v[0]) < 1e-12); /* sticking zeroes the end-of-step velocity */
  } else {
    /* Fremond (theta = 1/2): sticking zeroes the step average, so the velocity left at
     * the stop reverses every step (seed 004 digest, section 3.2) */
    CHECK(fabs(v[0]) <= amax * dt);
    CHECK(fabs(v[0] + vprev) < 1e-12);
  }
  if (fabs(u[0] - want) > 2 * vmax * dt)
    fprintf(stderr, "  stop %.8f vs %.8f (t %.5f vs %.5f)\n", u[0], want, t_stop,
            3.14159265358979323846 / w);
  /* the normal reaction of a resting block is its weight */
  double r[2];
  CHECK_ST(fcd_integrator_get_reactions(it, r), FCD_OK);
  CHECK(fabs(r[0] + m * G) < 1e-8 * m * G); /* compressive: r_N < 0 */
  fcd_integrator_destroy(it);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
}

/* Two masses on springs, damped, loaded, impacting and sliding: the ledger closes to
 * round-off at every step (seed 004, eq. 56). With the energy-consistent scheme and
 * 1/2 <= theta <= 1/(1 + e) every dissipation term is non-negative. */
/* With nonsym, K gets a circulatory part (a follower load's: kappa [0 1; -1 0] on the
 * first mass) and C a gyroscopic one (Omega [0 1; -1 0] on the second), both in full
 * storage: the step is factored by LU, and the ledger books the circulatory work as
 * external work (the gyroscopic forces do none). */
static void set_nonsymmetric(fcd_system *sys, double alpha) {
  const fcd_index r[10] = {0, 0, 2, 2, 1, 3, 1, 3, 0, 1}, c[10] = {0, 2, 0, 2, 1, 3, 3, 1, 1, 0};
  const double kv[10] = {200, -100, -100, 100, 50, 50, -10, -10, 20, -20};
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, 10, r, c, kv, FCD_COO_FULL), FCD_OK);
  const fcd_index gr[3] = {2, 3, 0}, gc[3] = {3, 2, 0};
  const double gv[3] = {5, -5, alpha};
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_DAMPING, 3, gr, gc, gv, FCD_COO_FULL), FCD_OK);
}

static void test_ledger(fcd_scheme scheme, double theta, double e, double mu, double alpha,
                        int load, int nonsym, double *max_gain) {
  fcd_system *sys;
  CHECK_ST(fcd_system_create(4, &sys), FCD_OK);
  /* chain: wall - k - m1 - k - m2 along x, both masses may touch a floor in y */
  const fcd_index r[6] = {0, 0, 2, 1, 3, 1}, c[6] = {0, 2, 2, 1, 3, 3};
  const double kv[6] = {200, -100, 100, 50, 50, -10};
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, 6, r, c, kv, FCD_COO_UPPER), FCD_OK);
  const fcd_index d[4] = {0, 1, 2, 3};
  const double mv[4] = {1, 1, 2, 2};
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_MASS, 4, d, d, mv, FCD_COO_UPPER), FCD_OK);
  CHECK_ST(fcd_system_set_rayleigh(sys, alpha, 0.1 * alpha), FCD_OK);
  if (nonsym) set_nonsymmetric(sys, alpha);
  const double f[4] = {3, -G, 0, -2 * G};
  if (load) CHECK_ST(fcd_system_set_load(sys, f), FCD_OK);
  fcd_contact_set *cs;
  CHECK_ST(fcd_contact_set_create(sys, 2, &cs), FCD_OK);
  const fcd_index a[2] = {0, 1}, b[2] = {2, 3};
  const double n[2] = {0, -1}, t[2] = {1, 0};
  CHECK_ST(fcd_contact_set_add_rigid(cs, a, n, t, 0.05, mu, NULL), FCD_OK);
  CHECK_ST(fcd_contact_set_add_rigid(cs, b, n, t, 0.02, mu, NULL), FCD_OK);
  CHECK_ST(fcd_contact_set_set_restitution(cs, e), FCD_OK);
  fcd_integrator *it;
  CHECK_ST(fcd_integrator_create(sys, cs, scheme, &it), FCD_OK);
  CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_STEP, 2e-3), FCD_OK);
  CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_THETA, theta), FCD_OK);
  /* the library checks the identity itself in every build, release included: a step
   * that broke it would fail here with FCD_E_INTERNAL */
  CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_ENERGY_CHECK, 1), FCD_OK);
  CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_ENERGY_CHECK, 2), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_ENERGY_CHECK, NAN), FCD_E_INVALID_ARG);
  const double u0[4] = {0.1, 0, -0.05, 0}, v0[4] = {0.5, -1.0, -0.3, -2.0};
  CHECK_ST(fcd_integrator_set_state(it, 0, u0, v0), FCD_OK);
  fcd_energy e0, e1;
  fcd_integrator_get_energy(it, &e0);
  double E0 = e0.kinetic + e0.potential, worst = 0;
  *max_gain = -INFINITY;
  double prev_diss = 0;
  for (int s = 0; s < 600; s++) {
    CHECK_ST(fcd_integrator_step(it), FCD_OK);
    fcd_integrator_get_energy(it, &e1);
    double E = e1.kinetic + e1.potential;
    double rhs = e1.external_work - e1.damping_dissipation - e1.friction_dissipation -
                 e1.impact_dissipation - e1.numerical_dissipation;
    worst = fmax(worst, fabs((E - E0) - rhs) / fmax(1.0, E0));
    double diss = e1.friction_dissipation + e1.impact_dissipation + e1.numerical_dissipation;
    *max_gain = fmax(*max_gain, prev_diss - diss); /* a decrease of dissipation = a gain */
    prev_diss = diss;
  }
  CHECK(worst < 1e-11);
  if (worst >= 1e-11) fprintf(stderr, "  ledger residual %.3e\n", worst);
  fcd_integrator_destroy(it);
  fcd_system_destroy(sys); /* before the set and the integrator's end: order is free */
  fcd_contact_set_destroy(cs);
}

/* Without contacts the schemes are the theta-method: with u_th = u0 + theta h v_th and
 * v_th = (1 - theta) v0 + theta v1, M (v1 - v0) + h C v_th + h K u_th = h f gives
 *   (M + h theta C + h^2 theta^2 K) v1 = M v0 - h (1 - theta) C v0 - h K u0
 *                                        - h^2 theta (1 - theta) K v0 + h f,
 * solved here densely (Gaussian elimination with partial pivoting) for the non-symmetric
 * K and C of set_nonsymmetric: the library's LU steps must follow it to round-off. */
static void dense_solve4(double A[4][4], double *b) {
  for (int k = 0; k < 4; k++) {
    int p = k;
    for (int i = k + 1; i < 4; i++)
      if (fabs(A[i][k]) > fabs(A[p][k])) p = i;
    for (int j = 0; j < 4; j++) {
      double t = A[k][j];
      A[k][j] = A[p][j];
      A[p][j] = t;
    }
    double t = b[k];
    b[k] = b[p];
    b[p] = t;
    for (int i = k + 1; i < 4; i++) {
      double l = A[i][k] / A[k][k];
      for (int j = k; j < 4; j++) A[i][j] -= l * A[k][j];
      b[i] -= l * b[k];
    }
  }
  for (int k = 3; k >= 0; k--) {
    for (int j = k + 1; j < 4; j++) b[k] -= A[k][j] * b[j];
    b[k] /= A[k][k];
  }
}

static void test_nonsymmetric_free_motion(void) {
  const double th = 0.6, h = 2e-3, alpha = 0.2;
  fcd_system *sys;
  CHECK_ST(fcd_system_create(4, &sys), FCD_OK);
  const fcd_index d[4] = {0, 1, 2, 3};
  const double mv[4] = {1, 1, 2, 2}, f[4] = {3, -G, 0, -2 * G};
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_MASS, 4, d, d, mv, FCD_COO_UPPER), FCD_OK);
  set_nonsymmetric(sys, alpha);
  CHECK_ST(fcd_system_set_load(sys, f), FCD_OK);
  /* the dense K and C (C with alpha on entry (0, 0), as set_nonsymmetric sets it) */
  const double K[4][4] = {{200, 20, -100, 0}, {-20, 50, 0, -10}, {-100, 0, 100, 0},
                          {0, -10, 0, 50}};
  const double C[4][4] = {{alpha, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 5}, {0, 0, -5, 0}};
  fcd_integrator *it;
  CHECK_ST(fcd_integrator_create(sys, NULL, FCD_SCHEME_MOREAU_JEAN, &it), FCD_OK);
  CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_STEP, h), FCD_OK);
  CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_THETA, th), FCD_OK);
  CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_ENERGY_CHECK, 1), FCD_OK);
  double u[4] = {0.1, 0, -0.05, 0}, v[4] = {0.5, -1.0, -0.3, -2.0}, worst = 0;
  CHECK_ST(fcd_integrator_set_state(it, 0, u, v), FCD_OK);
  for (int step = 0; step < 300; step++) {
    double A[4][4], b[4];
    for (int i = 0; i < 4; i++) {
      b[i] = mv[i] * v[i] + h * f[i];
      for (int j = 0; j < 4; j++) {
        A[i][j] = (i == j ? mv[i] : 0) + h * th * C[i][j] + h * h * th * th * K[i][j];
        b[i] -= h * (1 - th) * C[i][j] * v[j] + h * K[i][j] * u[j] +
                h * h * th * (1 - th) * K[i][j] * v[j];
      }
    }
    dense_solve4(A, b);
    for (int i = 0; i < 4; i++) {
      u[i] += h * ((1 - th) * v[i] + th * b[i]);
      v[i] = b[i];
    }
    CHECK_ST(fcd_integrator_step(it), FCD_OK);
    double t, uf[4], vf[4];
    fcd_integrator_get_state(it, &t, uf, vf);
    for (int i = 0; i < 4; i++)
      worst = fmax(worst, fmax(fabs(uf[i] - u[i]), h * fabs(vf[i] - v[i])));
  }
  printf("non-symmetric K and C, 300 theta-steps against a dense solve: %.2e\n", worst);
  CHECK(worst <= 1e-12);
  fcd_integrator_destroy(it);
  fcd_system_destroy(sys);
}

static void test_ledgers(void) {
  double gain;
  const fcd_scheme schemes[3] = {FCD_SCHEME_MOREAU_JEAN, FCD_SCHEME_FREMOND,
                                 FCD_SCHEME_MODIFIED_THETA};
  for (int s = 0; s < 3; s++) {
    test_ledger(schemes[s], 0.5, 0.5, 0.3, 0.2, 1, 0, &gain);
    test_ledger(schemes[s], 1.0, 0.0, 0.6, 0.0, 1, 0, &gain);
    test_ledger(schemes[s], 0.6, 0.3, 0.0, 0.5, 0, 0, &gain);
  }
  /* non-symmetric K and C: LU steps, the circulatory work in the ledger */
  for (int s = 0; s < 3; s++) {
    test_ledger(schemes[s], 0.5, 0.5, 0.3, 0.2, 1, 1, &gain);
    test_ledger(schemes[s], 1.0, 0.0, 0.6, 0.0, 1, 1, &gain);
  }
  /* energy-consistent scheme in its admissible range: dissipations never decrease */
  test_ledger(FCD_SCHEME_FREMOND, 0.5, 1.0, 0.4, 0.0, 1, 0, &gain);
  CHECK(gain <= 1e-12);
  test_ledger(FCD_SCHEME_FREMOND, 0.6, 0.5, 0.8, 0.1, 1, 0, &gain);
  CHECK(gain <= 1e-12);
}

/* Fremond, theta = 1/2, e = 1, mu = 0, no damping, no load: E is conserved to round-off
 * through the impacts (every dissipation term of the ledger vanishes). */
static void test_conservation(void) {
  fcd_contact_set *cs;
  fcd_system *sys = point_mass(1.0, 30.0, 30.0, &cs, 0.01, 0.0, 1.0);
  CHECK_ST(fcd_system_set_load(sys, NULL), FCD_OK);
  fcd_integrator *it;
  CHECK_ST(fcd_integrator_create(sys, cs, FCD_SCHEME_FREMOND, &it), FCD_OK);
  CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_STEP, 1e-3), FCD_OK);
  const double u0[2] = {0.2, 0}, v0[2] = {0, -1.0};
  CHECK_ST(fcd_integrator_set_state(it, 0, u0, v0), FCD_OK);
  fcd_energy e0, e1;
  fcd_integrator_get_energy(it, &e0);
  int impacts = 0;
  double u[2], v[2], prev = -1.0;
  for (int s = 0; s < 2000; s++) {
    CHECK_ST(fcd_integrator_step(it), FCD_OK);
    fcd_integrator_get_state(it, NULL, u, v);
    if (prev < 0 && v[1] > 0) impacts++;
    prev = v[1];
  }
  fcd_integrator_get_energy(it, &e1);
  CHECK(impacts >= 3);
  CHECK(fabs(e1.kinetic + e1.potential - e0.kinetic - e0.potential) < 1e-12);
  CHECK(fabs(e1.impact_dissipation) < 1e-12 && fabs(e1.numerical_dissipation) < 1e-12);
  fcd_integrator_destroy(it);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
}

/* Seed 004, eq. (62): standard Moreau-Jean writes Coulomb on the end-of-step velocity,
 * and the friction work has an unsigned part (1 - theta) u_{T,k} . p_T. A block sliding
 * at 1 m/s on a stiff tangential spring (omega h ~ 5) reverses its slip within a step:
 * the mechanical energy then grows beyond the external work. The energy-consistent
 * scheme never lets it (Proposition 1). Returns max over steps of dE - dW_ext. */
static double energy_gain(fcd_scheme scheme) {
  fcd_contact_set *cs;
  fcd_system *sys = point_mass(1.0, 1000.0, 0.0, &cs, 0.0, 0.5, 0.0);
  fcd_integrator *it;
  CHECK_ST(fcd_integrator_create(sys, cs, scheme, &it), FCD_OK);
  CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_STEP, 0.03), FCD_OK);
  const double u0[2] = {0, 0}, v0[2] = {1.0, 0};
  CHECK_ST(fcd_integrator_set_state(it, 0, u0, v0), FCD_OK);
  fcd_energy prev, cur;
  fcd_integrator_get_energy(it, &prev);
  double gain = -INFINITY;
  for (int s = 0; s < 200; s++) {
    CHECK_ST(fcd_integrator_step(it), FCD_OK);
    fcd_integrator_get_energy(it, &cur);
    double dE = (cur.kinetic + cur.potential) - (prev.kinetic + prev.potential);
    gain = fmax(gain, dE - (cur.external_work - prev.external_work));
    prev = cur;
  }
  fcd_integrator_destroy(it);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
  return gain;
}

static void test_energy_gain(void) {
  double mj = energy_gain(FCD_SCHEME_MOREAU_JEAN), fr = energy_gain(FCD_SCHEME_FREMOND);
  printf("largest one-step gain beyond external work: Moreau-Jean %.3e, Fremond %.3e\n", mj, fr);
  CHECK(mj > 1e-3);
  CHECK(fr <= 1e-12);
}

/* An elastic bar (length 1, E = rho = 1, so c = 1; N two-node elements with lumped
 * mass; a transverse dof per node, free and unloaded) moving at v0 hits a rigid wall
 * with e = 1, mu = 0, under the energy-consistent scheme at theta = 1/2. The continuum
 * answer: the contact lasts 2L/c and the bar leaves at -v0. Discretely, the energy is
 * conserved to round-off (every term of the ledger but the kinetic and elastic ones
 * vanishes). Returns the contact duration and the mean velocity after separation. */
static void bar_impact(int N, double dt, double *duration, double *vmean) {
  const double v0 = 0.1, he = 1.0 / N;
  int nn = N + 1, nd = 2 * nn;
  fcd_system *sys;
  CHECK_ST(fcd_system_create(nd, &sys), FCD_OK);
  fcd_index *r = malloc(sizeof(fcd_index) * 3 * N), *c = malloc(sizeof(fcd_index) * 3 * N);
  double *kv = malloc(sizeof(double) * 3 * N);
  int t = 0;
  for (int e = 0; e < N; e++) {
    int a = 2 * e, b = 2 * (e + 1);
    r[t] = a, c[t] = a, kv[t++] = 1.0 / he;
    r[t] = b, c[t] = b, kv[t++] = 1.0 / he;
    r[t] = a, c[t] = b, kv[t++] = -1.0 / he;
  }
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, t, r, c, kv, FCD_COO_UPPER), FCD_OK);
  fcd_index *d = malloc(sizeof(fcd_index) * nd);
  double *mv = malloc(sizeof(double) * nd), *u = calloc(nd, sizeof(double)),
         *v = calloc(nd, sizeof(double));
  for (int i = 0; i < nd; i++) {
    d[i] = i;
    mv[i] = he * ((i / 2 == 0 || i / 2 == N) ? 0.5 : 1.0);
  }
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_MASS, nd, d, d, mv, FCD_COO_UPPER), FCD_OK);
  fcd_contact_set *cs;
  CHECK_ST(fcd_contact_set_create(sys, 2, &cs), FCD_OK);
  const fcd_index tip[2] = {2 * N, 2 * N + 1};
  const double n[2] = {1, 0}, tg[2] = {0, 1};
  CHECK_ST(fcd_contact_set_add_rigid(cs, tip, n, tg, 0.0, 0.0, NULL), FCD_OK);
  CHECK_ST(fcd_contact_set_set_restitution(cs, 1.0), FCD_OK);
  fcd_integrator *it;
  CHECK_ST(fcd_integrator_create(sys, cs, FCD_SCHEME_FREMOND, &it), FCD_OK);
  CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_STEP, dt), FCD_OK);
  for (int i = 0; i < nn; i++) v[2 * i] = v0;
  CHECK_ST(fcd_integrator_set_state(it, 0, u, v), FCD_OK);
  fcd_energy e0, e1;
  fcd_integrator_get_energy(it, &e0);
  double tfirst = -1, tlast = -1, rr[2], tt, drift = 0;
  for (int s = 0; s < (int)(2.6 / dt); s++) {
    CHECK_ST(fcd_integrator_step(it), FCD_OK);
    fcd_integrator_get_reactions(it, rr);
    fcd_integrator_get_state(it, &tt, u, v);
    if (rr[0] != 0) {
      if (tfirst < 0) tfirst = tt - dt;
      tlast = tt;
    }
    fcd_integrator_get_energy(it, &e1);
    drift = fmax(drift, fabs(e1.kinetic + e1.potential - e0.kinetic - e0.potential));
  }
  CHECK(drift <= 1e-12 * e0.kinetic);
  double vm = 0;
  for (int i = 0; i < nn; i++) vm += mv[2 * i] * v[2 * i];
  *duration = tlast - tfirst;
  *vmean = vm; /* total mass 1 */
  fcd_integrator_destroy(it);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
  free(r);
  free(c);
  free(kv);
  free(d);
  free(mv);
  free(u);
  free(v);
}

static void test_bar(void) {
  double d1, v1, d2, v2;
  bar_impact(100, 1e-3, &d1, &v1);
  bar_impact(200, 1e-3, &d2, &v2);
  printf("bar: contact %.4f / %.4f (2L/c = 2), rebound %.5f / %.5f (-v0 = -0.1)\n", d1, d2, v1, v2);
  /* mesh dispersion O(h_e) plus detection to a step: 1% at h_e = 1e-2 */
  CHECK(fabs(d1 - 2.0) <= 0.02 && fabs(d2 - 2.0) <= 0.02);
  CHECK(fabs(v1 + 0.1) <= 0.002 && fabs(v2 + 0.1) <= 0.002);
  CHECK(fabs(v2 + 0.1) < fabs(v1 + 0.1)); /* and it converges with the mesh */
}

typedef struct {
  int calls, slip_first, stick_last, stop_after;
  double tlast;
} obs_rec;

static int observer(void *ud, fcd_real t, fcd_index n, const fcd_real *u, const fcd_real *v,
                    fcd_index nl, const fcd_real *r, const fcd_contact_counts *c) {
  obs_rec *o = ud;
  (void)u;
  (void)v;
  (void)r;
  o->calls++;
  if (o->calls == 1) o->slip_first = c->slip == 1 && c->stick == 0 && c->open == 0;
  o->stick_last = c->stick == 1 && c->slip == 0;
  CHECK(n == 2 && nl == 2 && t > o->tlast);
  o->tlast = t;
  return o->stop_after && o->calls >= o->stop_after ? 7 : 0;
}

/* the observer sees every step; the block slides, then sticks */
static void test_observer(void) {
  const double m = 2.0, k = 50.0, mu = 0.4, xs = mu * m * G / k;
  fcd_contact_set *cs;
  fcd_system *sys = point_mass(m, k, 0.0, &cs, 0.0, mu, 0.0);
  fcd_integrator *it;
  CHECK_ST(fcd_integrator_create(sys, cs, FCD_SCHEME_MOREAU_JEAN, &it), FCD_OK);
  CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_STEP, 1e-3), FCD_OK);
  const double u0[2] = {2.5 * xs, 0}, v0[2] = {0, 0};
  CHECK_ST(fcd_integrator_set_state(it, 0, u0, v0), FCD_OK);
  obs_rec o = {0, 0, 0, 0, -1};
  CHECK_ST(fcd_integrator_set_observer(it, observer, &o), FCD_OK);
  CHECK_ST(fcd_integrator_advance(it, 1.0), FCD_OK);
  CHECK(o.calls == 1000);
  CHECK(o.slip_first && o.stick_last);
  int status[1];
  CHECK_ST(fcd_integrator_get_contact_status(it, status), FCD_OK);
  CHECK(status[0] == FCD_CONTACT_STICK);
  /* a nonzero return stops advance, after the step it observed */
  o.stop_after = o.calls + 5;
  CHECK_ST(fcd_integrator_advance(it, 2.0), FCD_E_CALLBACK);
  CHECK_MSG(sys, "observer returned 7");
  double t;
  fcd_integrator_get_state(it, &t, NULL, NULL);
  CHECK(fabs(t - 1.005) < 1e-9);
  fcd_integrator_destroy(it);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
}

/* Seed 003 digest, property 2: with the modified theta method (theta = 1/2) a mass
 * pushed by f onto an obstacle lands without rebound or penetration: the closing step
 * makes the predicted gap G + h (1 - theta) Gdot vanish, the next one gives G = 0 and
 * Gdot = 0 exactly, and from then on R_N = -f. Here u_N = -y and G = u_N - g. */
static void test_modified_theta_landing(void) {
  fcd_contact_set *cs;
  fcd_system *sys = point_mass(1.0, 0.0, 0.0, &cs, 0.0123, 0.3, 0.0);
  const double f[2] = {0, -1.0};
  CHECK_ST(fcd_system_set_load(sys, f), FCD_OK);
  fcd_integrator *it;
  CHECK_ST(fcd_integrator_create(sys, cs, FCD_SCHEME_MODIFIED_THETA, &it), FCD_OK);
  const double h = 1e-2;
  CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_STEP, h), FCD_OK);
  CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_TOLERANCE, 1e-14), FCD_OK);
  CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_MAX_ITER, 100000), FCD_OK);
  const double z[2] = {0, 0};
  CHECK_ST(fcd_integrator_set_state(it, 0, z, z), FCD_OK);
  double u[2], v[2], r[2];
  int landed = -1;
  for (int s = 0; s < 80; s++) {
    CHECK_ST(fcd_integrator_step(it), FCD_OK);
    fcd_integrator_get_state(it, NULL, u, v);
    fcd_integrator_get_reactions(it, r);
    double gp = -u[1] - 0.0123, Gd = -v[1];
    if (landed < 0 && r[0] != 0) {
      landed = s;
      CHECK(fabs(gp + h * 0.5 * Gd) < 1e-15); /* the predicted gap closes exactly */
    } else if (landed >= 0 && s >= landed + 1) {
      CHECK(fabs(gp) < 1e-15 && fabs(Gd) < 1e-14);
      if (s >= landed + 2) CHECK(fabs(r[0] + 1.0) < 1e-12);
    }
  }
  CHECK(landed > 0);
  fcd_integrator_destroy(it);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
}

/* A block on a spring (k) pressed by gravity onto a belt moving at v_g: while it slides
 * relative to the belt, friction mu m g drags it along v_g, so x_s = mu m g / k is its
 * equilibrium; started there at rest it stays, with R_N = -m g and R_T = mu m g. */
static void test_modified_theta_belt(void) {
  const double m = 2.0, k = 50.0, mu = 0.4, xs = mu * m * G / k;
  fcd_contact_set *cs;
  fcd_system *sys = point_mass(m, k, 0.0, &cs, 0.0, mu, 0.0);
  const double vg[1] = {0.7};
  CHECK_ST(fcd_contact_set_set_sliding_velocity(cs, 0, vg), FCD_OK);
  fcd_integrator *it;
  CHECK_ST(fcd_integrator_create(sys, cs, FCD_SCHEME_MODIFIED_THETA, &it), FCD_OK);
  CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_STEP, 1e-3), FCD_OK);
  CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_TOLERANCE, 1e-13), FCD_OK);
  CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_MAX_ITER, 100000), FCD_OK);
  const double u0[2] = {xs, 0}, v0[2] = {0, 0};
  CHECK_ST(fcd_integrator_set_state(it, 0, u0, v0), FCD_OK);
  CHECK_ST(fcd_integrator_advance(it, 0.5), FCD_OK);
  double u[2], v[2], r[2];
  int status[1];
  fcd_integrator_get_state(it, NULL, u, v);
  fcd_integrator_get_reactions(it, r);
  fcd_integrator_get_contact_status(it, status);
  CHECK(fabs(u[0] - xs) < 1e-10 && fabs(u[1]) < 1e-12);
  CHECK(fabs(r[0] + m * G) < 1e-9 && fabs(r[1] - mu * m * G) < 1e-9);
  CHECK(status[0] == FCD_CONTACT_SLIP);
  fcd_integrator_destroy(it);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
}

/* Resting on the floor under gravity and a tangential load F for 20 s, every scheme,
 * e = 0 and 0.5: no sinking, no lift-off. With mu g > F/m the block sticks at x = 0;
 * with mu g < F/m it slides with a = F/m - mu g, and theta = 1/2 integrates a constant
 * acceleration exactly: x = a t^2 / 2. */
static void test_resting(void) {
  const fcd_scheme schemes[3] = {FCD_SCHEME_MOREAU_JEAN, FCD_SCHEME_FREMOND,
                                 FCD_SCHEME_MODIFIED_THETA};
  const double es[2] = {0.0, 0.5}, mus[2] = {0.8, 0.01}, F = 0.5;
  for (int s = 0; s < 3; s++)
    for (int ie = 0; ie < 2; ie++)
      for (int im = 0; im < 2; im++) {
        fcd_contact_set *cs;
        fcd_system *sys = point_mass(1.0, 0.0, 0.0, &cs, 0.0, mus[im], es[ie]);
        const double f[2] = {F, -G};
        CHECK_ST(fcd_system_set_load(sys, f), FCD_OK);
        fcd_integrator *it;
        CHECK_ST(fcd_integrator_create(sys, cs, schemes[s], &it), FCD_OK);
        CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_STEP, 1e-3), FCD_OK);
        CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_TOLERANCE, 1e-13), FCD_OK);
        const double z[2] = {0, 0};
        CHECK_ST(fcd_integrator_set_state(it, 0, z, z), FCD_OK);
        double u[2], worst = 0;
        for (int k = 0; k < 20000; k++) {
          CHECK_ST(fcd_integrator_step(it), FCD_OK);
          fcd_integrator_get_state(it, NULL, u, NULL);
          worst = fmax(worst, fabs(u[1]));
        }
        CHECK(worst <= 1e-12);
        double a = F - mus[im] * G, want = a > 0 ? 0.5 * a * 20.0 * 20.0 : 0.0;
        CHECK(fabs(u[0] - want) <= 1e-9 * fmax(1.0, want));
        fcd_integrator_destroy(it);
        fcd_contact_set_destroy(cs);
        fcd_system_destroy(sys);
      }
}

/* The Delassus operator of every contact, cached across steps, gives the same steps as
 * the per-step operator of the active contacts (both are H Mh^-1 H^T, in a different
 * order of operations), including after h changes (the factor and the cache are rebuilt).
 * Three passes: the default (cache, and a step made of a forward and a backward half
 * solve with the kept L^-1 P H^T), the cache with two full solves per step, and no
 * cache. Twice: every dof a contact dof, and with six more dofs hung on them by springs,
 * where the factor orders the contact dofs last and the cache's W and L^-1 P H^T come
 * from its trailing block (factor.c) while the per-step operator is solved. */
static void test_delassus_cache(void) {
  const fcd_scheme schemes[3] = {FCD_SCHEME_MOREAU_JEAN, FCD_SCHEME_FREMOND,
                                 FCD_SCHEME_MODIFIED_THETA};
  for (int extra = 0; extra <= 6; extra += 6)
    for (int s = 0; s < 3; s++) {
      int n = 4 + extra;
      double traj[3][10];
      for (int pass = 0; pass < 3; pass++) {
        fcd_system *sys;
        CHECK_ST(fcd_system_create(n, &sys), FCD_OK);
        fcd_index r[32] = {0, 0, 2, 1, 3, 1}, c[32] = {0, 2, 2, 1, 3, 3}, nk = 6;
        double kv[32] = {200, -100, 100, 50, 50, -10};
        /* dof 4 + k on a spring of 10 to contact dof k % 4, a chain of 20 among them */
        for (int k = 0; k < extra; k++) {
          r[nk] = k % 4, c[nk] = 4 + k, kv[nk++] = -10;
          r[nk] = 4 + k, c[nk] = 4 + k, kv[nk++] = 60;
          if (k + 1 < extra) r[nk] = 4 + k, c[nk] = 5 + k, kv[nk++] = -20;
        }
        CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, nk, r, c, kv, FCD_COO_UPPER),
                 FCD_OK);
        fcd_index d[10];
        double mv[10], f[10];
        for (int i = 0; i < n; i++) {
          d[i] = i;
          mv[i] = i < 4 ? (i < 2 ? 1 : 2) : 1.5;
          f[i] = i == 0 ? 3 : i == 1 ? -G : i == 3 ? -2 * G : i >= 4 ? -1.5 * G : 0;
        }
        CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_MASS, n, d, d, mv, FCD_COO_UPPER),
                 FCD_OK);
        CHECK_ST(fcd_system_set_load(sys, f), FCD_OK);
        fcd_contact_set *cs;
        CHECK_ST(fcd_contact_set_create(sys, 2, &cs), FCD_OK);
        const fcd_index a[2] = {0, 1}, b[2] = {2, 3};
        const double nv[2] = {0, -1}, t[2] = {1, 0};
        CHECK_ST(fcd_contact_set_add_rigid(cs, a, nv, t, 0.05, 0.3, NULL), FCD_OK);
        CHECK_ST(fcd_contact_set_add_rigid(cs, b, nv, t, 0.02, 0.3, NULL), FCD_OK);
        CHECK_ST(fcd_contact_set_set_restitution(cs, 0.4), FCD_OK);
        fcd_integrator *it;
        CHECK_ST(fcd_integrator_create(sys, cs, schemes[s], &it), FCD_OK);
        if (pass == 1) fcd__integrator_set_wall_limit(it, 0);
        if (pass == 2) fcd__integrator_set_split(it, 0);
        CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_STEP, 2e-3), FCD_OK);
        CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_TOLERANCE, 1e-14), FCD_OK);
        double u0[10] = {0.1, 0, -0.05, 0}, v0[10] = {0.5, -1.0, -0.3, -2.0};
        CHECK_ST(fcd_integrator_set_state(it, 0, u0, v0), FCD_OK);
        CHECK_ST(fcd_integrator_advance(it, 0.5), FCD_OK);
        CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_STEP, 1e-3), FCD_OK);
        CHECK_ST(fcd_integrator_advance(it, 1.0), FCD_OK);
        CHECK_ST(fcd_integrator_get_state(it, NULL, traj[pass], NULL), FCD_OK);
        /* prescribing a contact dof after the contact was added is refused, and the
         * integrator goes on */
        const fcd_index fx = 1;
        CHECK_ST(fcd_system_fix_dofs(sys, 1, &fx, NULL), FCD_E_INVALID_ARG);
        CHECK_MSG(sys, "carries a contact");
        CHECK_ST(fcd_integrator_step(it), FCD_OK);
        fcd_integrator_destroy(it);
        fcd_contact_set_destroy(cs);
        fcd_system_destroy(sys);
      }
      for (int i = 0; i < n; i++) {
        CHECK(fabs(traj[0][i] - traj[1][i]) <= 1e-9);
        CHECK(fabs(traj[0][i] - traj[2][i]) <= 1e-9);
      }
    }
}

/* A dense model with many contacts, as a reduced one is (every matrix entry stored, 40
 * plane contacts: 80 rows, from where the step's products with the contact columns Y and
 * the contact law go to BLAS): pressed onto a rigid floor from gaps of 0 and 1 cm, so
 * that the steps see part of the contacts active and then all of them, while the load
 * drags them along (slip). The default step (Cholesky halves, dense Y) against the plain
 * one (two solves, no split) and the one without the Delassus cache (W built each step):
 * the same trajectory to round-off, every step certified. */
static void test_dense_many_contacts(void) {
  enum { NC = 40, ND = 2 * NC };
  static fcd_index rp[ND + 1], ci[ND * ND];
  static double kv[ND * ND], mv[ND * ND], traj[3][ND];
  for (int i = 0; i <= ND; i++) rp[i] = (fcd_index)i * ND;
  for (int i = 0; i < ND; i++)
    for (int j = 0; j < ND; j++) {
      ci[i * ND + j] = j;
      /* diagonally dominant: 0.3 sum 1 / (1 + |i - j|) < 2.7 < 4 */
      kv[i * ND + j] = 1e4 * (i == j ? 4.0 : 0.3 * cos(i - j) / (1 + abs(i - j)));
      mv[i * ND + j] = i == j ? 2.0 : 0.01 / (1 + abs(i - j));
    }
  int active_some = 0, active_all = 0;
  for (int pass = 0; pass < 3; pass++) {
    fcd_system *sys;
    CHECK_ST(fcd_system_create(ND, &sys), FCD_OK);
    CHECK_ST(fcd_system_set_matrix_csr(sys, FCD_STIFFNESS, rp, ci, kv, FCD_COO_FULL,
                                       FCD_COPY), FCD_OK);
    CHECK_ST(fcd_system_set_matrix_csr(sys, FCD_MASS, rp, ci, mv, FCD_COO_FULL, FCD_COPY),
             FCD_OK);
    double f[ND];
    for (int c = 0; c < NC; c++) {
      f[2 * c] = 30.0 * (1 + 0.05 * c); /* along the floor */
      f[2 * c + 1] = -400.0;           /* onto it */
    }
    CHECK_ST(fcd_system_set_load(sys, f), FCD_OK);
    fcd_contact_set *cs;
    CHECK_ST(fcd_contact_set_create(sys, 2, &cs), FCD_OK);
    for (int c = 0; c < NC; c++) {
      const fcd_index dofs[2] = {2 * c, 2 * c + 1};
      const double nv[2] = {0, -1}, t[2] = {1, 0};
      CHECK_ST(fcd_contact_set_add_rigid(cs, dofs, nv, t, c % 2 ? 0.01 : 0.0, 0.3, NULL),
               FCD_OK);
    }
    fcd_integrator *it;
    CHECK_ST(fcd_integrator_create(sys, cs, FCD_SCHEME_MODIFIED_THETA, &it), FCD_OK);
    if (pass == 1) fcd__integrator_set_split(it, 0);
    if (pass == 2) fcd__integrator_set_wall_limit(it, 0);
    CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_STEP, 1e-3), FCD_OK);
    CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_TOLERANCE, 1e-13), FCD_OK);
    double u0[ND] = {0}, v0[ND] = {0};
    CHECK_ST(fcd_integrator_set_state(it, 0, u0, v0), FCD_OK);
    int st[NC];
    for (int k = 0; k < 200; k++) {
      CHECK_ST(fcd_integrator_step(it), FCD_OK);
      CHECK_ST(fcd_integrator_get_contact_status(it, st), FCD_OK);
      int open = 0;
      for (int c = 0; c < NC; c++) open += st[c] == FCD_CONTACT_OPEN;
      active_some |= pass == 0 && open > 0 && open < NC;
      active_all |= pass == 0 && open == 0;
    }
    CHECK_ST(fcd_integrator_get_state(it, NULL, traj[pass], NULL), FCD_OK);
    fcd_integrator_destroy(it);
    fcd_contact_set_destroy(cs);
    fcd_system_destroy(sys);
  }
  CHECK(active_some && active_all);
  double scale = 0;
  for (int i = 0; i < ND; i++) scale = fmax(scale, fabs(traj[0][i]));
  CHECK(scale > 1e-3); /* it moved */
  for (int i = 0; i < ND; i++) {
    CHECK(fabs(traj[0][i] - traj[1][i]) <= 1e-9 * scale);
    CHECK(fabs(traj[0][i] - traj[2][i]) <= 1e-9 * scale);
  }
}

/* Resting contact reached through impacts with e > 0 (the digest of seed 004 warns that
 * velocity-level Moreau-Jean can settle into a two-step cycle that sinks the body when e
 * is applied to a contact that is active but already separating). Dropped from 0.2 m with
 * e = 0.7, h = 0.01: the bounces die out (their times form a geometric series summing to
 * (1 + e)/(1 - e) sqrt(2 h0 / g) = 1.15 s), and from then on to t = 20 s the mass must
 * stay on the floor: no sinking beyond one step's travel under gravity (g h^2), none
 * accumulating. */
static void test_settle_after_impacts(void) {
  const fcd_scheme schemes[3] = {FCD_SCHEME_MOREAU_JEAN, FCD_SCHEME_FREMOND,
                                 FCD_SCHEME_MODIFIED_THETA};
  const double thetas[3] = {0.5, 0.55, 1.0};
  for (int s = 0; s < 3; s++)
    for (int ith = 0; ith < 3; ith++) {
      if (schemes[s] == FCD_SCHEME_FREMOND && thetas[ith] > 1 / 1.7) continue; /* 1/(1+e) */
      const double h0 = 0.2, e = 0.7, dt = 0.01;
      fcd_contact_set *cs;
      fcd_system *sys = point_mass(1.0, 0.0, 0.0, &cs, h0, 0.3, e);
      fcd_integrator *it;
      CHECK_ST(fcd_integrator_create(sys, cs, schemes[s], &it), FCD_OK);
      CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_STEP, dt), FCD_OK);
      CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_THETA, thetas[ith]), FCD_OK);
      const double z[2] = {0, 0};
      CHECK_ST(fcd_integrator_set_state(it, 0, z, z), FCD_OK);
      CHECK_ST(fcd_integrator_advance(it, 3.0), FCD_OK);
      double u[2], v[2], lowest = INFINITY, highest = -INFINITY;
      for (int k = 0; k < 1700; k++) {
        CHECK_ST(fcd_integrator_step(it), FCD_OK);
        fcd_integrator_get_state(it, NULL, u, v);
        lowest = fmin(lowest, u[1] + h0);
        highest = fmax(highest, u[1] + h0);
      }
      if (lowest < -G * dt * dt || highest > G * dt * dt)
        fprintf(stderr, "  scheme %d theta %g: height in [%.4g, %.4g] after the bounces\n",
                schemes[s], thetas[ith], lowest, highest);
      CHECK(lowest >= -G * dt * dt);
      CHECK(highest <= G * dt * dt);
      fcd_integrator_destroy(it);
      fcd_contact_set_destroy(cs);
      fcd_system_destroy(sys);
    }
}

/* Seed 000 Ex. 4.6 with the Fig. 9 data (dimensionless): the pin dragged along the flat
 * at u'_D = -0.015, perfectly plastic impacts (e = 0), Moreau-Jean theta = 1/2, started
 * on the steady sliding state (equilibria issue) with a small tilt. The stability
 * analysis of that state gives the flutter pair Re(lambda) = 0.081837; the tilt's
 * oscillation must first grow at that rate (peak-to-peak, within 10%), then settle on a
 * limit cycle (the amplitude of the last periods constant within 2%). */
typedef struct {
  double v;
} drag;

static int drag_fn(void *ud, double t, fcd_index nf, const fcd_index *dofs, double *u,
                   double *v) {
  (void)dofs;
  for (fcd_index k = 0; k < nf; k++) {
    u[k] = ((drag *)ud)->v * t;
    v[k] = ((drag *)ud)->v;
  }
  return 0;
}

static void test_pin_limit_cycle(void) {
  const double hb = 0.1, rho = 0.07, hm = 0.05, rm = 0.15, mu = 2.2, F = 0.01, vd = -0.015;
  fcd_system *sys;
  CHECK_ST(fcd_system_create(4, &sys), FCD_OK);
  const fcd_index r[8] = {0, 0, 0, 1, 1, 1, 2, 3}, c[8] = {0, 1, 2, 1, 2, 3, 2, 3};
  const double kv[8] = {1, hb, -1, 4 * rho * rho + hb * hb, -hb, 6 * rho * rho, 1, 12 * rho * rho};
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, 8, r, c, kv, FCD_COO_UPPER), FCD_OK);
  const fcd_index mr[5] = {0, 1, 1, 2, 3}, mc[5] = {0, 1, 2, 2, 3};
  const double mv[5] = {3, hm * hm + rm * rm, -hm, 1, 1};
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_MASS, 5, mr, mc, mv, FCD_COO_UPPER), FCD_OK);
  const double f[4] = {0, 0, 0, F};
  CHECK_ST(fcd_system_set_load(sys, f), FCD_OK);
  const fcd_index fx = 0;
  CHECK_ST(fcd_system_fix_dofs(sys, 1, &fx, NULL), FCD_OK);
  drag dr = {vd};
  CHECK_ST(fcd_system_set_prescribed_fn(sys, drag_fn, &dr), FCD_OK);
  fcd_contact_set *cs;
  CHECK_ST(fcd_contact_set_create(sys, 2, &cs), FCD_OK);
  const fcd_index d[2] = {2, 3};
  const double n[2] = {0, 1}, t[2] = {1, 0}, vg = -vd;
  CHECK_ST(fcd_contact_set_add_rigid(cs, d, n, t, 0.0, mu, NULL), FCD_OK);
  CHECK_ST(fcd_contact_set_set_sliding_velocity(cs, 0, &vg), FCD_OK);
  /* the steady state at t = 0 and its stability */
  fcd_equilibrium *eq;
  CHECK_ST(fcd_equilibrium_create(sys, cs, &eq), FCD_OK);
  CHECK_ST(fcd_equilibrium_solve(eq, FCD_EQ_STEADY_SLIDING, 0.0), FCD_OK);
  double u0[4], s;
  int status;
  fcd_equilibrium_get_state(eq, u0);
  fcd_equilibrium_get_contact_state(eq, &status, &s);
  fcd_stability *st;
  CHECK_ST(fcd_stability_create(sys, cs, &st), FCD_OK);
  CHECK_ST(fcd_stability_set_contact_state(st, &status, &s), FCD_OK);
  CHECK_ST(fcd_stability_solve(st, NULL), FCD_OK);
  double growth, omega;
  CHECK_ST(fcd_stability_get_eigenvalue(st, 0, &growth, &omega), FCD_OK);
  CHECK(fabs(growth - 0.081837) < 1e-5);
  /* the motion */
  fcd_integrator *it;
  CHECK_ST(fcd_integrator_create(sys, cs, FCD_SCHEME_MOREAU_JEAN, &it), FCD_OK);
  CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_STEP, 0.002), FCD_OK);
  CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_TOLERANCE, 1e-13), FCD_OK);
  double u[4], v[4] = {vd, 0, vd, 0};
  memcpy(u, u0, sizeof u);
  u[1] += 1e-6; /* the tilt */
  CHECK_ST(fcd_integrator_set_state(it, 0.0, u, v), FCD_OK);
  double pk_t[400], pk_a[400], prev = 0, prev2 = 0;
  int npk = 0;
  for (int k = 0; k < 300000 && npk < 400; k++) {
    CHECK_ST(fcd_integrator_step(it), FCD_OK);
    double tt;
    fcd_integrator_get_state(it, &tt, u, NULL);
    double a = u[1] - u0[1];
    if (k > 1 && prev > prev2 && prev >= a && prev > 0) { /* a maximum of the tilt */
      pk_t[npk] = tt;
      pk_a[npk++] = prev;
    }
    prev2 = prev;
    prev = a;
  }
  CHECK(npk >= 60);
  /* growth rate from the peaks while the amplitude is small (linear regime: below 1% of
   * the steady tilt), after the stable partner has died out (t > 30) */
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  int m = 0;
  for (int i = 0; i < npk; i++)
    if (pk_t[i] > 30 && pk_a[i] < 0.01 * u0[1]) {
      sx += pk_t[i];
      sy += log(pk_a[i]);
      sxx += pk_t[i] * pk_t[i];
      sxy += pk_t[i] * log(pk_a[i]);
      m++;
    }
  double rate = (m * sxy - sx * sy) / (m * sxx - sx * sx);
  fprintf(stderr, "pin on flat: growth rate %.5f from %d peaks (stability: %.5f), "
                  "period %.4f (2 pi / Im lambda = %.4f)\n", rate, m, growth,
          (pk_t[npk - 1] - pk_t[npk - 11]) / 10, 2 * 3.14159265358979 / fabs(omega));
  CHECK(m >= 5);
  CHECK(fabs(rate - growth) <= 0.1 * growth);
  /* the limit cycle: the last ten peaks agree within 2% */
  double amin = INFINITY, amax = 0;
  for (int i = npk - 10; i < npk; i++) {
    amin = fmin(amin, pk_a[i]);
    amax = fmax(amax, pk_a[i]);
  }
  fprintf(stderr, "  limit cycle: tilt amplitude %.5f to %.5f over the last 10 periods\n", amin,
          amax);
  CHECK(amax < 1.02 * amin);
  CHECK(amin > 100 * 1e-6); /* it did grow */
  /* a driven system: the ledger closes with the work of the prescribed motion */
  fcd_energy e;
  CHECK_ST(fcd_integrator_get_energy(it, &e), FCD_OK);
  double E0 = 0.5 * (3 * vd * vd + vd * vd), K0 = 0;
  {
    double uu[4];
    memcpy(uu, u0, sizeof uu);
    uu[1] += 1e-6;
    double Ku[4] = {uu[0] + hb * uu[1] - uu[2],
                    hb * uu[0] + (4 * rho * rho + hb * hb) * uu[1] - hb * uu[2] + 6 * rho * rho * uu[3],
                    -uu[0] - hb * uu[1] + uu[2], 6 * rho * rho * uu[1] + 12 * rho * rho * uu[3]};
    for (int i = 0; i < 4; i++) K0 += 0.5 * uu[i] * Ku[i];
  }
  double lhs = e.kinetic + e.potential - (E0 + K0);
  double rhs = e.external_work - e.damping_dissipation - e.friction_dissipation -
               e.impact_dissipation - e.numerical_dissipation;
  fprintf(stderr, "  ledger: dE = %.9g, work - dissipation = %.9g\n", lhs, rhs);
  CHECK(fabs(lhs - rhs) <= 1e-9 * (fabs(e.external_work) + e.friction_dissipation));
  fcd_integrator_destroy(it);
  fcd_stability_destroy(st);
  fcd_equilibrium_destroy(eq);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
}

static void test_bad_input(void) {
  fcd_contact_set *cs;
  fcd_system *sys = point_mass(1.0, 0.0, 0.0, &cs, 0.5, 0.3, 0.0);
  fcd_integrator *it = NULL;
  CHECK_ST(fcd_integrator_create(sys, cs, (fcd_scheme)9, &it), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_integrator_create(sys, cs, FCD_SCHEME_MOREAU_JEAN, &it), FCD_OK);
  CHECK_ST(fcd_integrator_step(it), FCD_E_STATE);
  CHECK_MSG(sys, "set_state first");
  CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_STEP, 0.0), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "h = 0");
  CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_STEP, -1e-3), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_THETA, 0.0), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_THETA, 1.5), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "theta = 1.5");
  CHECK_ST(fcd_integrator_set_param(it, 4242, 1.0), FCD_E_UNSUPPORTED);
  CHECK_MSG(sys, "4242");
  const double bad[2] = {0, NAN}, ok[2] = {0, 0}, deep[2] = {0, -0.6};
  CHECK_ST(fcd_integrator_set_state(it, 0, bad, ok), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "u[1]");
  CHECK_ST(fcd_integrator_set_state(it, 0, deep, ok), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "penetrates");
  CHECK_ST(fcd_integrator_set_state(it, 0, ok, ok), FCD_OK);
  CHECK_ST(fcd_integrator_step(it), FCD_E_STATE); /* no step size yet */
  CHECK_MSG(sys, "FCD_PARAM_STEP");
  CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_STEP, 1e-3), FCD_OK);
  CHECK_ST(fcd_integrator_advance(it, -1.0), FCD_E_INVALID_ARG);
  /* a contact solve that cannot converge leaves the state unchanged */
  CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_CONTACT_SOLVER, FCD_FC_FIXED_POINT), FCD_OK);
  CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_MAX_ITER, 1), FCD_OK);
  CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_TOLERANCE, 1e-300), FCD_OK);
  CHECK_ST(fcd_integrator_advance(it, 0.25), FCD_OK); /* free fall: lands at t = 0.319 */
  double t0, u0[2], v0[2], t1, u1[2], v1[2];
  fcd_integrator_get_state(it, &t0, u0, v0);
  fcd_status st = FCD_OK;
  for (int s = 0; s < 2000 && st == FCD_OK; s++) st = fcd_integrator_step(it);
  CHECK_ST(st, FCD_E_NOT_CONVERGED);
  CHECK_MSG(sys, "state is unchanged");
  fcd_integrator_get_state(it, &t1, u1, v1);
  CHECK(t1 > t0); /* the steps before the failing one were taken */
  fcd_integrator_destroy(it);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
}

/* Time control in physical terms (certified answers, case 5): a step longer than the
 * interval is cut to it, not skipped (advance used to return FCD_OK having done nothing
 * when h > 1e12 (t_end - t)); a step below the resolution of t is refused, not looped on.
 * One trapezoidal step (theta = 1/2) of u'' = -u from (1, 0) with h = 1: v1 = -(1 + u1)/2,
 * u1 = 1 + v1 / 2, so u1 = 0.6 and v1 = -0.8. */
static void test_time_control(void) {
  fcd_system *sys;
  CHECK_ST(fcd_system_create(1, &sys), FCD_OK);
  const fcd_index z = 0;
  const double one = 1.0;
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_MASS, 1, &z, &z, &one, FCD_COO_FULL), FCD_OK);
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, 1, &z, &z, &one, FCD_COO_FULL), FCD_OK);
  fcd_integrator *it;
  CHECK_ST(fcd_integrator_create(sys, NULL, FCD_SCHEME_MOREAU_JEAN, &it), FCD_OK);
  CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_STEP, 1e13), FCD_OK);
  const double u0 = 1.0, v0 = 0.0;
  CHECK_ST(fcd_integrator_set_state(it, 0.0, &u0, &v0), FCD_OK);
  CHECK_ST(fcd_integrator_advance(it, 1.0), FCD_OK);
  double t, u, v;
  fcd_integrator_get_state(it, &t, &u, &v);
  CHECK(t == 1.0);
  CHECK_CLOSE(u, 0.6, 1e-14);
  CHECK_CLOSE(v, -0.8, 1e-14);
  /* t = 1e20 with h = 1: t + h == t, the loop could never end */
  CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_STEP, 1.0), FCD_OK);
  CHECK_ST(fcd_integrator_set_state(it, 1e20, &u0, &v0), FCD_OK);
  CHECK_ST(fcd_integrator_advance(it, 1e20 + 1e6), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "below the resolution of t");
  fcd_integrator_get_state(it, &t, &u, &v);
  CHECK(t == 1e20 && u == 1.0 && v == 0.0); /* nothing changed */
  fcd_integrator_destroy(it);
  fcd_system_destroy(sys);
}

int main(void) {
  test_bounce(FCD_SCHEME_MOREAU_JEAN, 0.5);
  test_bounce(FCD_SCHEME_MOREAU_JEAN, 0.8);
  test_bounce(FCD_SCHEME_FREMOND, 0.8);
  test_friction_block(FCD_SCHEME_MOREAU_JEAN, 2.5);
  test_friction_block(FCD_SCHEME_FREMOND, 2.0);
  test_ledgers();
  test_nonsymmetric_free_motion();
  test_conservation();
  test_energy_gain();
  test_observer();
  test_bar();
  test_modified_theta_landing();
  test_modified_theta_belt();
  test_resting();
  test_settle_after_impacts();
  test_pin_limit_cycle();
  test_delassus_cache();
  test_dense_many_contacts();
  test_bad_input();
  test_time_control();
  fcd_finalize();
  return fcdt_finish("test_integrator");
}
