/* The state-dependent sweeping process of seed 001 stepped by implicit catch-up, against
 * the closed forms of its digest: a single spring (Prop. 3.1 with the erratum, modulus
 * eq. 34), the two-spring toy of Prop. 5.1 (fixed points, branches reached by the
 * initial guess, Jacobian eigenvalues) and the unequal-springs case E2b; every
 * projection's KKT residual is checked. */
#include <fcd/fcd.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../fcdtest.h"

/* one spring along x, node 0 held, node 1 pulled in x at rate 1, fixed-point test 1e-15 */
static fcd_lattice *one_spring(double k, double c0, double s, double h) {
  fcd_lattice *lat;
  CHECK_ST(fcd_lattice_create(2, &lat), FCD_OK);
  const double x0[2] = {0, 0}, x1[2] = {1, 0};
  fcd_index a, b;
  CHECK_ST(fcd_lattice_add_node(lat, x0, &a), FCD_OK);
  CHECK_ST(fcd_lattice_add_node(lat, x1, &b), FCD_OK);
  CHECK_ST(fcd_lattice_add_spring(lat, a, b, k, c0, s, h, NULL), FCD_OK);
  CHECK_ST(fcd_lattice_constrain(lat, a, 0, 0, 0), FCD_OK);
  CHECK_ST(fcd_lattice_constrain(lat, a, 1, 0, 0), FCD_OK);
  CHECK_ST(fcd_lattice_constrain(lat, b, 1, 0, 0), FCD_OK);
  CHECK_ST(fcd_lattice_constrain(lat, b, 0, 0, 1.0), FCD_OK);
  CHECK_ST(fcd_lattice_set_param(lat, FCD_LAT_TOLERANCE, 1e-15), FCD_OK);
  return lat;
}

/* ---- one spring of stiffness k pulled at l(t) = t ----
 * Elastic to l_y = c0/k, then sigma = c0 + Ep (l - l_y), a = s (l - l_y)/D, with
 * D = 1 + s^2 (1 - h)/k and Ep = s^2 (1 - h)/D: backward Euler is exact for monotone
 * loading, so every step must match to round-off. */
static void test_single_spring(void) {
  const double k = 2, c0 = 0.01, s = 0.5, hs[3] = {0.5, 1.0, 1.5};
  for (int c = 0; c < 3; c++) {
    double h = hs[c];
    fcd_lattice *lat = one_spring(k, c0, s, h);
    double D = 1 + s * s * (1 - h) / k, Ep = s * s * (1 - h) / D, ly = c0 / k, worst = 0, kkt;
    for (int j = 1; j <= 50; j++) {
      double t = 0.001 * j, sig, dam, u[4];
      CHECK_ST(fcd_lattice_step(lat, t, NULL), FCD_OK);
      CHECK_ST(fcd_lattice_get_state(lat, NULL, &sig, &dam, u), FCD_OK);
      double ws = t <= ly ? k * t : c0 + Ep * (t - ly), wa = t <= ly ? 0 : s * (t - ly) / D;
      worst = fmax(worst, fmax(fabs(sig - ws), fabs(dam - wa)));
      CHECK(fabs(u[2] - t) < 1e-15);
      CHECK_ST(fcd_lattice_get_kkt_residual(lat, &kkt), FCD_OK);
      CHECK(kkt < 1e-12);
    }
    if (worst > 1e-14) fprintf(stderr, "  single spring h = %g: worst %.3e\n", h, worst);
    CHECK(worst <= 1e-14);
    fcd_lattice_destroy(lat);
  }
}

/* ---- two springs in series: 0 -(k1)- 1 -(k2)- 2, node 2 pulled at l(t) = t ---- */
static fcd_lattice *toy(const double *k, const double *s, const double *h, double c0) {
  fcd_lattice *lat;
  CHECK_ST(fcd_lattice_create(2, &lat), FCD_OK);
  for (int i = 0; i < 3; i++) {
    const double x[2] = {i, 0};
    CHECK_ST(fcd_lattice_add_node(lat, x, NULL), FCD_OK);
  }
  CHECK_ST(fcd_lattice_add_spring(lat, 0, 1, k[0], c0, s[0], h[0], NULL), FCD_OK);
  CHECK_ST(fcd_lattice_add_spring(lat, 1, 2, k[1], c0, s[1], h[1], NULL), FCD_OK);
  CHECK_ST(fcd_lattice_constrain(lat, 0, 0, 0, 0), FCD_OK);
  for (int i = 0; i < 3; i++) CHECK_ST(fcd_lattice_constrain(lat, i, 1, 0, 0), FCD_OK);
  CHECK_ST(fcd_lattice_constrain(lat, 2, 0, 0, 1.0), FCD_OK);
  /* the fixed-point test stops within tol of the fixed point times rho / (1 - rho)
   * (rho <= 0.8 here): 1e-15 keeps the states within 1e-14 of the closed forms */
  CHECK_ST(fcd_lattice_set_param(lat, FCD_LAT_TOLERANCE, 1e-15), FCD_OK);
  /* both springs at the upper threshold (seed 001, (104)-(105)) */
  const double sig0[2] = {c0, c0};
  CHECK_ST(fcd_lattice_set_state(lat, 0.0, sig0, NULL), FCD_OK);
  return lat;
}

static double g_off[2];
static int offset_guess(void *ud, double t, fcd_index m, const double *ap, double *ag) {
  (void)ud;
  (void)t;
  for (fcd_index i = 0; i < m; i++) ag[i] = ap[i] + g_off[i];
  return 0;
}

static void check_state(fcd_lattice *lat, double a1, double a2, double sig, double tol) {
  double s[2], a[2];
  CHECK_ST(fcd_lattice_get_state(lat, NULL, s, a, NULL), FCD_OK);
  if (!(fabs(a[0] - a1) <= tol && fabs(a[1] - a2) <= tol && fabs(s[0] - sig) <= tol &&
        fabs(s[1] - sig) <= tol))
    fprintf(stderr, "  got a = (%.10g, %.10g), sigma = (%.10g, %.10g); want (%.10g, %.10g), %.10g\n",
            a[0], a[1], s[0], s[1], a1, a2, sig);
  CHECK(fabs(a[0] - a1) <= tol && fabs(a[1] - a2) <= tol);
  CHECK(fabs(s[0] - sig) <= tol && fabs(s[1] - sig) <= tol);
}

static int cmp_d(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

static void eig_check(fcd_lattice *lat, double e1, double e2) {
  double re[2], im[2];
  CHECK_ST(fcd_lattice_jacobian_eigenvalues(lat, re, im), FCD_OK);
  qsort(re, 2, sizeof *re, cmp_d);
  double w[2] = {e1 < e2 ? e1 : e2, e1 < e2 ? e2 : e1};
  if (!(fabs(re[0] - w[0]) < 1e-6 && fabs(re[1] - w[1]) < 1e-6))
    fprintf(stderr, "  Jacobian eigenvalues %.8g %.8g, want %.8g %.8g\n", re[0], re[1], w[0], w[1]);
  CHECK(fabs(re[0] - w[0]) < 1e-6 && fabs(re[1] - w[1]) < 1e-6);
  CHECK(fabs(im[0]) < 1e-9 && fabs(im[1]) < 1e-9);
}

static void test_two_springs(void) {
  const double k[2] = {1, 1}, s[2] = {1, 1}, c0 = 0.01, dl = 0.0004;
  /* softening h = 1.2: from the symmetric guess the saddle (distributed) */
  {
    const double h[2] = {1.2, 1.2};
    fcd_lattice *lat = toy(k, s, h, c0);
    fcd_index it;
    CHECK_ST(fcd_lattice_step(lat, dl, &it), FCD_OK);
    check_state(lat, 2.5e-4, 2.5e-4, 0.00995, 1e-12);
    eig_check(lat, 1.2, 0.6); /* a saddle: one eigenvalue above 1 */
    /* The saddle stays a fixed point of the next step (Obs. 5.1, 3a): a guess on it is
     * accepted at once. (Iterating from a_prev instead leaves it sooner or later: the
     * round-off asymmetry grows by 1.2 per iteration, Remark 4.6.) */
    g_off[0] = g_off[1] = 2.5e-4;
    CHECK_ST(fcd_lattice_set_guess(lat, offset_guess, NULL), FCD_OK);
    fcd_index it2;
    CHECK_ST(fcd_lattice_step(lat, 2 * dl, &it2), FCD_OK);
    CHECK(it2 <= 2);
    check_state(lat, 5e-4, 5e-4, 0.0099, 1e-13);
    fcd_lattice_destroy(lat);
  }
  /* the same with the code's offset (8e-5, -1e-5): localized in spring 1 */
  {
    const double h[2] = {1.2, 1.2};
    fcd_lattice *lat = toy(k, s, h, c0);
    g_off[0] = 8e-5;
    g_off[1] = -1e-5;
    CHECK_ST(fcd_lattice_set_guess(lat, offset_guess, NULL), FCD_OK);
    CHECK_ST(fcd_lattice_step(lat, dl, NULL), FCD_OK);
    check_state(lat, 2.0 / 3.0 * 1e-3, 0, 0.01 - 1.0 / 3.0 * 4e-4, 1e-12);
    eig_check(lat, 0.8, 0.0); /* stable node */
    /* from a localized state every guess continues it (Obs. 5.1, 3b) */
    CHECK_ST(fcd_lattice_set_guess(lat, NULL, NULL), FCD_OK);
    for (int j = 2; j <= 10; j++) CHECK_ST(fcd_lattice_step(lat, j * dl, NULL), FCD_OK);
    check_state(lat, 2.0 / 3.0 * 1e-2, 0, 0.0086666666666666667, 1e-12);
    fcd_lattice_destroy(lat);
  }
  /* hardening h = 0.8: unique, distributed, stable */
  {
    const double h[2] = {0.8, 0.8};
    fcd_lattice *lat = toy(k, s, h, c0);
    CHECK_ST(fcd_lattice_step(lat, dl, NULL), FCD_OK);
    check_state(lat, 1.0 / 6.0 * 1e-3, 1.0 / 6.0 * 1e-3, 0.01 + 1.0 / 30.0 * 1e-3, 1e-12);
    eig_check(lat, 0.8, 0.4);
    for (int j = 2; j <= 10; j++) CHECK_ST(fcd_lattice_step(lat, j * dl, NULL), FCD_OK);
    check_state(lat, 1.0 / 6.0 * 1e-2, 1.0 / 6.0 * 1e-2, 0.01 + 1.0 / 30.0 * 1e-2, 1e-12);
    fcd_lattice_destroy(lat);
  }
}

/* ---- E2b: unequal springs, k = (1, 2), s = (1, 0.5), h = (1.2, 1.5) ----
 * c = 1/k1 + 1/k2 = 1.5, Hmod = s^2 (1 - h) = (-0.2, -0.125), Delta = -0.2875:
 * localized 1: sigma' = Hmod1 / (1 + c Hmod1) = -0.2857143, a1' = s1 / (1 + c Hmod1);
 * localized 2: sigma' = -0.1538462, a2' = 0.6153846;
 * distributed: sigma' = Hmod1 Hmod2 / Delta, a1' = Hmod2 s1 / Delta, a2' = Hmod1 s2 / Delta. */
static void test_unequal(void) {
  const double k[2] = {1, 2}, s[2] = {1, 0.5}, h[2] = {1.2, 1.5}, c0 = 0.01, dl = 1e-4;
  const double c = 1.5, H1 = -0.2, H2 = -0.125, Dl = H1 + H2 + c * H1 * H2;
  const double want[3][3] = {{H1 / (1 + c * H1), s[0] / (1 + c * H1), 0},
                             {H2 / (1 + c * H2), 0, s[1] / (1 + c * H2)},
                             {H1 * H2 / Dl, H2 * s[0] / Dl, H1 * s[1] / Dl}};
  for (int br = 0; br < 3; br++) {
    fcd_lattice *lat = toy(k, s, h, c0);
    /* steer: a guess on the branch's side (the distributed one is a saddle: start on it) */
    g_off[0] = br == 0 ? 2 * want[0][1] * dl : br == 1 ? 0 : want[2][1] * dl;
    g_off[1] = br == 0 ? 0 : br == 1 ? 2 * want[1][2] * dl : want[2][2] * dl;
    CHECK_ST(fcd_lattice_set_guess(lat, offset_guess, NULL), FCD_OK);
    CHECK_ST(fcd_lattice_step(lat, dl, NULL), FCD_OK);
    check_state(lat, want[br][1] * dl, want[br][2] * dl, c0 + want[br][0] * dl, 1e-13);
    fcd_lattice_destroy(lat);
  }
}

static void test_bad_input(void) {
  const double k[2] = {1, 1}, s[2] = {1, 1}, h[2] = {1.2, 1.2};
  fcd_lattice *lat = toy(k, s, h, 0.01);
  CHECK_ST(fcd_lattice_step(lat, -1.0, NULL), FCD_E_INVALID_ARG);
  CHECK(strstr(fcd_lattice_last_error(lat), "must be after") != NULL);
  const double bad[2] = {0.02, 0.02}, uneq[2] = {0.005, 0.001};
  CHECK_ST(fcd_lattice_set_state(lat, 0.0, bad, NULL), FCD_E_INVALID_ARG);
  CHECK(strstr(fcd_lattice_last_error(lat), "exceeds the yield") != NULL);
  CHECK_ST(fcd_lattice_set_state(lat, 0.0, uneq, NULL), FCD_E_INVALID_ARG);
  CHECK(strstr(fcd_lattice_last_error(lat), "force") != NULL);
  CHECK_ST(fcd_lattice_set_param(lat, 4242, 1), FCD_E_UNSUPPORTED);
  /* divergence is reported, never returned as a state: the saddle with 2 iterations */
  CHECK_ST(fcd_lattice_set_param(lat, FCD_LAT_MAX_ITER, 2), FCD_OK);
  g_off[0] = 1e-5;
  g_off[1] = -1e-5;
  CHECK_ST(fcd_lattice_set_guess(lat, offset_guess, NULL), FCD_OK);
  double t0, a0[2];
  fcd_lattice_get_state(lat, &t0, NULL, a0, NULL);
  CHECK_ST(fcd_lattice_step(lat, 0.0004, NULL), FCD_E_NOT_CONVERGED);
  CHECK(strstr(fcd_lattice_last_error(lat), "no stable fixed point") != NULL);
  double t1, a1[2];
  fcd_lattice_get_state(lat, &t1, NULL, a1, NULL);
  CHECK(t1 == t0 && a1[0] == a0[0] && a1[1] == a0[1]);
  /* loads and the method */
  CHECK_ST(fcd_lattice_load(lat, 0, 0, 0, 1), FCD_E_INVALID_ARG); /* constrained */
  CHECK(strstr(fcd_lattice_last_error(lat), "constrained") != NULL);
  CHECK_ST(fcd_lattice_load(lat, 99, 0, 0, 1), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_lattice_load(lat, 1, 2, 0, 1), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_lattice_load(lat, 1, 1, NAN, 1), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_lattice_set_param(lat, FCD_LAT_METHOD, 2), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_lattice_set_param(lat, FCD_LAT_METHOD, 0.5), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_lattice_get_constraint(lat, 99, NULL, NULL, NULL, NULL), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_lattice_get_reactions(lat, NULL), FCD_E_INVALID_ARG);
  fcd_lattice_destroy(lat);
  /* a loaded coordinate cannot then be constrained */
  fcd_lattice *l2;
  CHECK_ST(fcd_lattice_create(2, &l2), FCD_OK);
  const double x0[2] = {0, 0};
  CHECK_ST(fcd_lattice_add_node(l2, x0, NULL), FCD_OK);
  CHECK_ST(fcd_lattice_load(l2, 0, 1, 0, 1), FCD_OK);
  CHECK_ST(fcd_lattice_constrain(l2, 0, 1, 0, 0), FCD_E_INVALID_ARG);
  CHECK(strstr(fcd_lattice_last_error(l2), "carries a force") != NULL);
  fcd_lattice_destroy(l2);
  /* the dense reduced method refuses a lattice too large for it, and the handle stays
   * usable with the sparse method */
  CHECK_ST(fcd_lattice_create_rect(40, 40, 1.0, 1.0, 0.01, 0.3, 1.1, 0.1, &l2), FCD_OK);
  CHECK_ST(fcd_lattice_set_param(l2, FCD_LAT_METHOD, FCD_LAT_REDUCED_DENSE), FCD_OK);
  CHECK_ST(fcd_lattice_step(l2, 0.01, NULL), FCD_E_UNSUPPORTED);
  CHECK(strstr(fcd_lattice_last_error(l2), "4000") != NULL);
  CHECK_ST(fcd_lattice_set_param(l2, FCD_LAT_METHOD, FCD_LAT_FULL_SPARSE), FCD_OK);
  CHECK_ST(fcd_lattice_step(l2, 0.01, NULL), FCD_OK);
  fcd_lattice_destroy(l2);
}

/* ---- seed 001 section 6.1: the 10 x 15 rectangular lattice, softening ----
 * k = 1, h = 1.1, s = 0.3, c0 = 0.01, top pulled at 0.1, steps of 0.01. The paper: an
 * elastic phase, plastic from t = 1.36, then at t = 2.78 the loss of symmetry into a
 * shear band with a sharp peak of the iteration count. Hardening (h = 0.9) and perfect
 * plasticity (h = 1) yield at the same time (h and s play no role before yield). The
 * time of the break depends on how round-off seeds the unstable symmetric branch: the
 * peak is accepted within 0.04 of the paper's. Every projection's KKT residual is
 * checked. */
/* the spring mirrored by x -> -x: node (i, j) <-> (nx-1-i, j) in the generator's
 * numbering i ny + j */
static void mirror_map(fcd_lattice *lat, int nx, int ny, fcd_index m, int *mir) {
  fcd_index *ea = malloc(sizeof(fcd_index) * (size_t)(2 * m)), *eb = ea + m;
  for (fcd_index i = 0; i < m; i++) fcd_lattice_get_spring(lat, i, &ea[i], &eb[i], NULL, NULL, NULL, NULL);
  for (fcd_index i = 0; i < m; i++) {
    fcd_index ma = (nx - 1 - ea[i] / ny) * ny + ea[i] % ny, mb = (nx - 1 - eb[i] / ny) * ny + eb[i] % ny;
    mir[i] = -1;
    for (fcd_index j = 0; j < m; j++)
      if ((ea[j] == ma && eb[j] == mb) || (ea[j] == mb && eb[j] == ma)) mir[i] = (int)j;
  }
  free(ea);
}

/* force of the force-displacement curve: the reactions of the pulled constraints */
static double pull_force(fcd_lattice *lat) {
  fcd_index q;
  fcd_lattice_sizes(lat, NULL, NULL, &q);
  double r[64], f = 0;
  fcd_lattice_get_reactions(lat, r);
  for (fcd_index c = 0; c < q; c++) {
    double rate;
    fcd_lattice_get_constraint(lat, c, NULL, NULL, NULL, &rate);
    if (rate != 0) f += r[c];
  }
  return f;
}

/* Seed 001 section 6.1 (digest E3, E5, E7): yield at 1.36 in every case; softening stays
 * mirror-symmetric (sigma and a, node (i, j) <-> (9 - i, j)) to 1e-8 until the band
 * breaks the symmetry at 2.78 (ours 2.81, see docs/lattice.md), where the iteration
 * count peaks, and the force falls afterwards; perfect plasticity and hardening stay
 * symmetric throughout, with a plateau (never falling) and a rising force. */
static void test_rect_lattice(void) {
  const double hs[3] = {1.1, 1.0, 0.9};
  for (int c = 0; c < 3; c++) {
    fcd_lattice *lat;
    CHECK_ST(fcd_lattice_create_rect(10, 15, 1.0, 1.0, 0.01, 0.3, hs[c], 0.1, &lat), FCD_OK);
    fcd_index m;
    fcd_lattice_sizes(lat, NULL, &m, NULL);
    int mir[527];
    mirror_map(lat, 10, 15, m, mir);
    int unmatched = 0;
    for (fcd_index i = 0; i < m; i++) unmatched += mir[i] < 0;
    CHECK(unmatched == 0);
    double a[527], sg[527], worst_kkt = 0, asym_before = 0, asym_after = 0;
    double f_prev = 0, f_peak = 0, drop_plastic = 0, rise_min = INFINITY;
    int first = -1, jmax = -1, jpeak = -1, nsteps = 300;
    fcd_index itmax = 0;
    for (int j = 1; j <= nsteps; j++) {
      fcd_index it;
      CHECK_ST(fcd_lattice_step(lat, 0.01 * j, &it), FCD_OK);
      double kkt;
      fcd_lattice_get_kkt_residual(lat, &kkt);
      worst_kkt = fmax(worst_kkt, kkt);
      fcd_lattice_get_state(lat, NULL, sg, a, NULL);
      double am = 0, asym = 0;
      for (fcd_index i = 0; i < m; i++) {
        am = fmax(am, a[i]);
        asym = fmax(asym, fmax(fabs(sg[i] - sg[mir[i]]) / 0.01, fabs(a[i] - a[mir[i]]) / 0.01));
      }
      if (j <= 277) asym_before = fmax(asym_before, asym);
      else asym_after = fmax(asym_after, asym);
      if (first < 0 && am > 0) first = j;
      if (j > first + 5 && first > 0 && it > itmax) {
        itmax = it;
        jmax = j;
      }
      double f = pull_force(lat);
      if (f > f_peak) {
        f_peak = f;
        jpeak = j;
      }
      if (first > 0 && j > first) {
        drop_plastic = fmax(drop_plastic, f_prev - f);
        rise_min = fmin(rise_min, f - f_prev);
      }
      f_prev = f;
    }
    fprintf(stderr, "rect 10x15 h = %.1f: first plastic step t = %.2f, mirror asymmetry %.1e "
            "(t <= 2.77) %.1e (after), force peak %.5f at t = %.2f", hs[c], 0.01 * first,
            asym_before, asym_after, f_peak, 0.01 * jpeak);
    if (c == 0) fprintf(stderr, ", iteration peak %ld at t = %.2f", (long)itmax, 0.01 * jmax);
    fprintf(stderr, ", worst KKT residual %.1e\n", worst_kkt);
    CHECK(first == 136);
    CHECK(worst_kkt < 1e-10);
    CHECK(asym_before < 1e-8);
    if (c == 0) {
      CHECK(jmax >= 274 && jmax <= 284 && itmax > 150);
      CHECK(asym_after > 1e-2);         /* localized: a band on one side */
      CHECK(jpeak >= 274 && jpeak <= 284); /* the force peaks at the break and falls */
      CHECK(drop_plastic > 0);
    } else {
      CHECK(asym_after < 1e-8);
      if (c == 1) CHECK(drop_plastic < 1e-12 * f_peak); /* a plateau, never falling */
      else CHECK(rise_min > 0);                         /* hardening: always rising */
    }
    fcd_lattice_destroy(lat);
  }
}

/* Seed 001 section 6.1.2 (digest E4): the defect (node (6, 4) moved by (0.3, -0.35))
 * breaks the symmetry; a minor band dissolves at t = 3.61, marked by an iteration spike
 * and a kink in the slope of the force. The band passes through the defect. */
static void test_rect_defect(void) {
  fcd_lattice *lat;
  CHECK_ST(fcd_lattice_create_rect(10, 15, 1.0, 1.0, 0.01, 0.3, 1.1, 0.1, &lat), FCD_OK);
  const double dx[2] = {0.3, -0.35};
  const fcd_index node = 6 * 15 + 4;
  CHECK_ST(fcd_lattice_move_node(lat, node, dx), FCD_OK);
  double f[400], a[527];
  fcd_index its[400];
  for (int j = 1; j <= 380; j++) {
    CHECK_ST(fcd_lattice_step(lat, 0.01 * j, &its[j]), FCD_OK);
    f[j] = pull_force(lat);
  }
  int jev = 340;
  for (int j = 340; j <= 380; j++)
    if (its[j] > its[jev]) jev = j;
  fcd_index base = its[340];
  for (int j = 340; j <= 380; j++)
    if (abs(j - jev) > 2 && its[j] > base) base = its[j];
  double before = (f[jev - 1] - f[jev - 6]) / 5, after = (f[jev + 6] - f[jev + 1]) / 5;
  fcd_lattice_get_state(lat, NULL, NULL, a, NULL);
  double at_defect = 0, amax = 0;
  for (fcd_index i = 0; i < 527; i++) {
    fcd_index e1, e2;
    fcd_lattice_get_spring(lat, i, &e1, &e2, NULL, NULL, NULL, NULL);
    amax = fmax(amax, a[i]);
    if (e1 == node || e2 == node) at_defect = fmax(at_defect, a[i]);
  }
  fprintf(stderr, "rect 10x15 with defect: event on [3.40, 3.80] at t = %.2f (%ld iterations, "
          "%ld elsewhere), force slope %.3e -> %.3e per step, damage at the defect %.2e of "
          "max %.2e\n", 0.01 * jev, (long)its[jev], (long)base, before, after, at_defect, amax);
  CHECK(jev >= 359 && jev <= 363);
  CHECK(its[jev] > 1.4 * base);
  CHECK(before < 0 && after < 0 && fabs(after - before) > 0.2 * fabs(before));
  CHECK(at_defect > 0.5 * amax);
  fcd_lattice_destroy(lat);
}

/* Seed 001 section 6.2 (digest E9): the triangular lattice (s = 0.2, h = 1.1) with the
 * node (i = 8, j = 4) moved by (0.4, 1/3). The paper: damage localizes in a horizontal
 * band through the defect, unlike the diagonal band of the rectangular lattice. Checked
 * at t = 6 on the springs carrying over a fifth of the largest damage: their midpoints
 * lie within one row height (sqrt(3)/2) of a common level near the defect and span the
 * width of the lattice. */
static void test_tri_defect(void) {
  fcd_lattice *lat;
  CHECK_ST(fcd_lattice_create_tri(10, 15, 1.0, 1.0, 0.01, 0.2, 1.1, 0.1, &lat), FCD_OK);
  const fcd_index node = 10 + 11 + 10 + 11 + 6; /* rows 0-3, then the 7th node of row 4 */
  double x0[2];
  fcd_lattice_get_node(lat, node, x0);
  CHECK_CLOSE(x0[0], 1.5, 1e-14);
  CHECK_CLOSE(x0[1], 2 * sqrt(3.0), 1e-14);
  const double dx[2] = {0.4, 1.0 / 3.0};
  CHECK_ST(fcd_lattice_move_node(lat, node, dx), FCD_OK);
  fcd_status st = FCD_OK;
  for (int j = 1; j <= 600 && st == FCD_OK; j++) st = fcd_lattice_step(lat, 0.01 * j, NULL);
  CHECK_ST(st, FCD_OK);
  fcd_index m;
  fcd_lattice_sizes(lat, NULL, &m, NULL);
  double a[404], amax = 0, sy = 0, sy2 = 0, xl = INFINITY, xh = -INFINITY;
  fcd_lattice_get_state(lat, NULL, NULL, a, NULL);
  for (fcd_index i = 0; i < m; i++) amax = fmax(amax, a[i]);
  int n = 0;
  for (fcd_index i = 0; i < m; i++) {
    if (!(a[i] > 0.2 * amax)) continue;
    fcd_index e1, e2;
    double p1[2], p2[2];
    fcd_lattice_get_spring(lat, i, &e1, &e2, NULL, NULL, NULL, NULL);
    fcd_lattice_get_node(lat, e1, p1);
    fcd_lattice_get_node(lat, e2, p2);
    double xm = 0.5 * (p1[0] + p2[0]), ym = 0.5 * (p1[1] + p2[1]);
    n++;
    sy += ym;
    sy2 += ym * ym;
    xl = fmin(xl, xm);
    xh = fmax(xh, xm);
  }
  double my = sy / n, sdy = sqrt(fmax(0.0, sy2 / n - my * my));
  fprintf(stderr, "tri 10x15 with defect at t = 6: %d springs above 0.2 max damage, level y = "
          "%.2f (defect at %.2f), spread %.2f, x from %.2f to %.2f\n", n, my, x0[1] + dx[1],
          sdy, xl, xh);
  CHECK(n >= 10);
  CHECK(sdy < 0.5 * sqrt(3.0));
  CHECK(fabs(my - (x0[1] + dx[1])) < sqrt(3.0) / 2);
  CHECK(xh - xl > 8.0);
  fcd_lattice_destroy(lat);
}

/* ---- cyclic loading through a load history ----
 * One spring (k = 2, c0 = 0.01, s = 0.5, h = 0.5) pulled to elongation 0.03, pushed to
 * -0.03 and back to 0. The model's yield radius c0 + s (1 - h) a grows with a = s times
 * the accumulated plastic elongation (eq. 61), which is 1D isotropic hardening with
 * modulus H = s^2 (1 - h): the exact state on a piecewise linear path whose corners
 * are step times is the radial return sigma = sigma_tr - k dg sign(sigma_tr),
 * dg = max(0, |sigma_tr| - c0 - H kappa)/(k + H), computed here independently. */
static int g_hist_fail;
static int cyc_history(void *ud, double t, fcd_index nq, double *uc, fcd_index nl, double *f) {
  (void)ud;
  (void)nl;
  (void)f;
  if (g_hist_fail == 1) return 1;
  for (fcd_index i = 0; i + 1 < nq; i++) uc[i] = 0;
  double l = t <= 30 ? 0.001 * t : t <= 90 ? 0.03 - 0.001 * (t - 30) : -0.03 + 0.001 * (t - 90);
  if (g_hist_fail != 2) uc[nq - 1] = l; /* 2: leave the pulled coordinate NaN */
  return 0;
}

static void test_cyclic_history(void) {
  const double k = 2, c0 = 0.01, s = 0.5, h = 0.5, H = s * s * (1 - h);
  fcd_lattice *lat;
  CHECK_ST(fcd_lattice_create(2, &lat), FCD_OK);
  const double x0[2] = {0, 0}, x1[2] = {1, 0};
  fcd_lattice_add_node(lat, x0, NULL);
  fcd_lattice_add_node(lat, x1, NULL);
  CHECK_ST(fcd_lattice_add_spring(lat, 0, 1, k, c0, s, h, NULL), FCD_OK);
  fcd_lattice_constrain(lat, 0, 0, 0, 0);
  fcd_lattice_constrain(lat, 0, 1, 0, 0);
  fcd_lattice_constrain(lat, 1, 1, 0, 0);
  fcd_lattice_constrain(lat, 1, 0, 0, 0); /* the last constraint: driven by the history */
  CHECK_ST(fcd_lattice_set_history(lat, cyc_history, NULL), FCD_OK);
  CHECK_ST(fcd_lattice_set_param(lat, FCD_LAT_TOLERANCE, 1e-15), FCD_OK);
  double p = 0, kap = 0, worst = 0, smin = 0, smax = 0;
  for (int j = 1; j <= 120; j++) {
    double t = j, l = t <= 30 ? 0.001 * t : t <= 90 ? 0.03 - 0.001 * (t - 30) : -0.03 + 0.001 * (t - 90);
    double tr = k * (l - p), sg = tr > 0 ? 1 : -1, dg = fmax(0.0, (fabs(tr) - c0 - H * kap) / (k + H));
    double ws = tr - k * dg * sg;
    p += dg * sg;
    kap += dg;
    double sig, a, u[4];
    CHECK_ST(fcd_lattice_step(lat, t, NULL), FCD_OK);
    fcd_lattice_get_state(lat, NULL, &sig, &a, u);
    worst = fmax(worst, fmax(fabs(sig - ws), fmax(fabs(a - s * kap), fabs(u[2] - l))));
    smin = fmin(smin, sig);
    smax = fmax(smax, sig);
  }
  fprintf(stderr, "cyclic single spring: worst error against the radial return %.1e, stress "
          "range [%.5f, %.5f], final a %.5f\n", worst, smin, smax, s * kap);
  CHECK(worst < 1e-13);
  CHECK(smin < -0.0101 && smax > 0.0101); /* yielded both ways, the radius grew */
  /* a failing or incomplete history is refused, the state kept */
  double t0, t1, a0, a1;
  fcd_lattice_get_state(lat, &t0, NULL, &a0, NULL);
  g_hist_fail = 1;
  CHECK_ST(fcd_lattice_step(lat, 121, NULL), FCD_E_CALLBACK);
  CHECK(strstr(fcd_lattice_last_error(lat), "load-history callback failed") != NULL);
  g_hist_fail = 2;
  CHECK_ST(fcd_lattice_step(lat, 121, NULL), FCD_E_CALLBACK);
  CHECK(strstr(fcd_lattice_last_error(lat), "constraint 3") != NULL);
  g_hist_fail = 0;
  fcd_lattice_get_state(lat, &t1, NULL, &a1, NULL);
  CHECK(t1 == t0 && a1 == a0);
  CHECK_ST(fcd_lattice_step(lat, 121, NULL), FCD_OK);
  fcd_lattice_destroy(lat);
}

/* ---- a 3D tripod under a nodal force ----
 * Apex node 0 joined to three fixed supports along the columns of a rotation R, so
 * that the springs are mutually orthogonal and each is statically determinate: the
 * apex equilibrium sum_i d_i sigma_i = f with d_i = -R e_i gives sigma_i = -(R' f)_i.
 * Under force control with hardening each spring follows the single-spring law
 * |sigma| = c0 + s (1 - h) a once yielded, its elongation is sigma/k + sign(sigma) a/s,
 * and the apex moves by u = -R x. Backward Euler is exact for monotone loading. */
/* the number after key in msg (NaN: no key) */
static double message_time(const char *msg, const char *key) {
  const char *p = strstr(msg, key);
  return p ? strtod(p + strlen(key), NULL) : NAN;
}

static void rot3(double th1, double th2, double th3, double R[9]) {
  double c1 = cos(th1), s1 = sin(th1), c2 = cos(th2), s2 = sin(th2), c3 = cos(th3), s3 = sin(th3);
  double A[9] = {c1, -s1, 0, s1, c1, 0, 0, 0, 1}, B[9] = {c2, 0, s2, 0, 1, 0, -s2, 0, c2};
  double C[9] = {1, 0, 0, 0, c3, -s3, 0, s3, c3}, T[9];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      T[3 * i + j] = 0;
      for (int k = 0; k < 3; k++) T[3 * i + j] += A[3 * i + k] * B[3 * k + j];
    }
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      R[3 * i + j] = 0;
      for (int k = 0; k < 3; k++) R[3 * i + j] += T[3 * i + k] * C[3 * k + j];
    }
}

static fcd_lattice *tripod(const double R[9], const double *k, const double *c0,
                           const double *s, const double *h, const double fdir[3]) {
  fcd_lattice *lat;
  if (fcd_lattice_create(3, &lat) != FCD_OK) return NULL;
  const double apex[3] = {0.3, -0.2, 0.1}, len[3] = {1.0, 1.7, 0.6};
  fcd_lattice_add_node(lat, apex, NULL);
  for (int i = 0; i < 3; i++) {
    double x[3];
    for (int r = 0; r < 3; r++) x[r] = apex[r] + len[i] * R[3 * r + i];
    fcd_index id;
    fcd_lattice_add_node(lat, x, &id);
    CHECK_ST(fcd_lattice_add_spring(lat, 0, id, k[i], c0[i], s[i], h[i], NULL), FCD_OK);
    for (int ax = 0; ax < 3; ax++) CHECK_ST(fcd_lattice_constrain(lat, id, ax, 0, 0), FCD_OK);
  }
  for (int ax = 0; ax < 3; ax++) CHECK_ST(fcd_lattice_load(lat, 0, ax, 0, fdir[ax]), FCD_OK);
  return lat;
}

static void test_tripod_force(void) {
  double R[9];
  rot3(0.4, -0.7, 1.1, R);
  const double k[3] = {1.0, 2.5, 0.7}, c0[3] = {0.010, 0.020, 0.015}, s[3] = {0.3, 0.5, 0.2};
  const double h[3] = {0.5, 0.9, 0.0}, fdir[3] = {0.02, -0.01, 0.015};
  for (int method = 0; method < 2; method++) {
    fcd_lattice *lat = tripod(R, k, c0, s, h, fdir);
    CHECK(lat != NULL);
    if (!lat) return;
    CHECK_ST(fcd_lattice_set_param(lat, FCD_LAT_METHOD, method), FCD_OK);
    CHECK_ST(fcd_lattice_set_param(lat, FCD_LAT_TOLERANCE, 1e-15), FCD_OK);
    double worst = 0, worst_u = 0, worst_r = 0, kkt_max = 0;
    int yielded = 0;
    for (int j = 1; j <= 80; j++) {
      double t = 0.05 * j, sig[3], a[3], u[12], r[9], kkt;
      CHECK_ST(fcd_lattice_step(lat, t, NULL), FCD_OK);
      CHECK_ST(fcd_lattice_get_state(lat, NULL, sig, a, u), FCD_OK);
      CHECK_ST(fcd_lattice_get_reactions(lat, r), FCD_OK);
      fcd_lattice_get_kkt_residual(lat, &kkt);
      kkt_max = fmax(kkt_max, kkt);
      double x[3];
      for (int i = 0; i < 3; i++) {
        double ws = 0;
        for (int q = 0; q < 3; q++) ws -= R[3 * q + i] * fdir[q] * t;
        double wa = fmax(0.0, (fabs(ws) - c0[i]) / (s[i] * (1 - h[i])));
        if (wa > 0) yielded |= 1 << i;
        worst = fmax(worst, fmax(fabs(sig[i] - ws), fabs(a[i] - wa)));
        x[i] = ws / k[i] + (ws > 0 ? 1 : -1) * wa / s[i];
      }
      for (int q = 0; q < 3; q++) {
        double wu = 0, rs = 0;
        for (int i = 0; i < 3; i++) wu -= R[3 * q + i] * x[i];
        worst_u = fmax(worst_u, fabs(u[q] - wu));
        for (int c = 0; c < 9; c++) {
          fcd_index node;
          int ax;
          fcd_lattice_get_constraint(lat, c, &node, &ax, NULL, NULL);
          if (ax == q) rs += r[c];
        }
        /* the supports carry the applied force: sum of reactions + f = 0 */
        worst_r = fmax(worst_r, fabs(rs + fdir[q] * t));
      }
    }
    fprintf(stderr, "3D tripod under force (method %d): worst stress/damage error %.1e, "
            "displacement %.1e, reaction balance %.1e, KKT %.1e\n", method, worst, worst_u,
            worst_r, kkt_max);
    CHECK(yielded == 7); /* every spring went plastic */
    CHECK(worst < 1e-12);
    CHECK(worst_u < 1e-10);
    CHECK(worst_r < 1e-13);
    CHECK(kkt_max < 1e-12);
    fcd_lattice_destroy(lat);
  }
  /* past the limit load there is no state: perfect plasticity and softening are refused
   * with the step named, and the state is kept */
  const double hp[2] = {1.0, 1.3};
  for (int c = 0; c < 2; c++) {
    const double hh[3] = {hp[c], hp[c], hp[c]};
    fcd_lattice *lat = tripod(R, k, c0, s, hh, fdir);
    CHECK_ST(fcd_lattice_set_param(lat, FCD_LAT_MAX_ITER, 200), FCD_OK);
    fcd_status st = FCD_OK;
    int j;
    double tlast = 0;
    for (j = 1; j <= 80 && st == FCD_OK; j++) {
      st = fcd_lattice_step(lat, 0.05 * j, NULL);
      if (st == FCD_OK) tlast = 0.05 * j;
    }
    CHECK_ST(st, FCD_E_NOT_CONVERGED);
    CHECK(strstr(fcd_lattice_last_error(lat), "no stable fixed point") != NULL);
    double t, sig[3];
    fcd_lattice_get_state(lat, &t, sig, NULL, NULL);
    CHECK(t == tlast);
    /* the first spring to reach its yield under the growing force is the limit */
    double tlim = INFINITY;
    for (int i = 0; i < 3; i++) {
      double fi = 0;
      for (int q = 0; q < 3; q++) fi -= R[3 * q + i] * fdir[q];
      tlim = fmin(tlim, c0[i] / fabs(fi));
    }
    CHECK(tlast < tlim + 0.05 && tlast >= tlim - 0.05);
    /* softening: the iterates run off, and the step locates the limit by bisection on
     * the time to 2^-20 of the step (perfect plasticity stays bounded: the cap ends it) */
    double tend = message_time(fcd_lattice_last_error(lat), "reaches t = ");
    if (hp[c] > 1) CHECK(fabs(tend - tlim) < 0.05 * 0x1p-19);
    else CHECK(isnan(tend));
    fcd_lattice_destroy(lat);
  }
}

/* ---- Algorithm 1 (sparse, full space) against Algorithm 2 (dense, reduced space) ----
 * The two compute the same map with different linear algebra (a sparse Schur system on
 * the coordinates versus a QR basis of the self-stresses and dense Gram solves), so
 * their trajectories agree to round-off wherever the fixed point is stable and unique
 * enough not to depend on round-off (before a symmetry break). */
static double run_pair(fcd_lattice *l1, fcd_lattice *l2, int nsteps, double dt, fcd_index m) {
  double *s1 = malloc(sizeof(double) * (size_t)(4 * m)), *s2 = s1 + m, *a1 = s2 + m, *a2 = a1 + m;
  double worst = 0;
  fcd_lattice_set_param(l2, FCD_LAT_METHOD, FCD_LAT_REDUCED_DENSE);
  for (int j = 1; j <= nsteps; j++) {
    CHECK_ST(fcd_lattice_step(l1, dt * j, NULL), FCD_OK);
    CHECK_ST(fcd_lattice_step(l2, dt * j, NULL), FCD_OK);
    fcd_lattice_get_state(l1, NULL, s1, a1, NULL);
    fcd_lattice_get_state(l2, NULL, s2, a2, NULL);
    double sc = 0;
    for (fcd_index i = 0; i < m; i++) sc = fmax(sc, fabs(s1[i]));
    for (fcd_index i = 0; i < m; i++)
      worst = fmax(worst, fmax(fabs(s1[i] - s2[i]), fabs(a1[i] - a2[i])) / sc);
  }
  free(s1);
  return worst;
}

/* a 3 x 3 x 3 cubic lattice with face and body diagonals, random springs, the bottom
 * face fixed, the top face pulled up at rate 0.05 and a side force on a corner */
static fcd_lattice *cube(unsigned seed, double hmin, double hmax) {
  fcd_lattice *lat;
  fcd_lattice_create(3, &lat);
  for (int k = 0; k < 3; k++)
    for (int j = 0; j < 3; j++)
      for (int i = 0; i < 3; i++) {
        double x[3] = {i, j, k};
        fcd_lattice_add_node(lat, x, NULL);
      }
  unsigned r = seed;
#define RND() ((r = r * 1103515245u + 12345u), (double)((r >> 8) & 0xffff) / 65536.0)
  for (int p = 0; p < 27; p++)
    for (int q = p + 1; q < 27; q++) {
      int dx = q % 3 - p % 3, dy = q / 3 % 3 - p / 3 % 3, dz = q / 9 - p / 9;
      int l1 = abs(dx) + abs(dy) + abs(dz), mx = abs(dx) > abs(dy) ? abs(dx) : abs(dy);
      if (abs(dz) > mx) mx = abs(dz);
      if (mx != 1 || l1 == 0) continue; /* nearest, face- and body-diagonal neighbours */
      double k = 0.5 + RND(), c0 = 0.01 * (0.8 + 0.4 * RND()), s = 0.2 + 0.3 * RND();
      double h = hmin + (hmax - hmin) * RND();
      fcd_lattice_add_spring(lat, p, q, k, c0, s, h, NULL);
    }
#undef RND
  for (int n = 0; n < 9; n++) {
    for (int ax = 0; ax < 3; ax++) fcd_lattice_constrain(lat, n, ax, 0, 0);
    fcd_lattice_constrain(lat, 18 + n, 2, 0, 0.05);
  }
  fcd_lattice_load(lat, 26, 0, 0, 0.02);
  return lat;
}

static void test_alg1_vs_alg2(void) {
  /* hardening and softening 3D lattices with loads of both kinds */
  const double hr[2][2] = {{0.3, 0.9}, {1.05, 1.2}};
  for (int c = 0; c < 2; c++) {
    fcd_lattice *l1 = cube(7u + (unsigned)c, hr[c][0], hr[c][1]), *l2 = cube(7u + (unsigned)c, hr[c][0], hr[c][1]);
    fcd_index m, dv;
    fcd_lattice_sizes(l1, NULL, &m, NULL);
    CHECK_ST(fcd_lattice_selfstress_dim(l1, &dv), FCD_OK);
    double w = run_pair(l1, l2, 60, 0.01, m), a[400];
    fcd_lattice_get_state(l1, NULL, NULL, a, NULL);
    int plastic = 0;
    for (fcd_index i = 0; i < m; i++) plastic += a[i] > 0;
    fprintf(stderr, "3x3x3 cube (%lld springs, self-stress dim %lld, h in [%.2f, %.2f]): "
            "%d plastic springs, Alg. 1 vs Alg. 2 worst difference %.1e\n", (long long)m,
            (long long)dv, hr[c][0], hr[c][1], plastic, w);
    CHECK(plastic > 10);
    CHECK(w < 1e-10);
    fcd_lattice_destroy(l1);
    fcd_lattice_destroy(l2);
  }
  /* the 10 x 15 softening lattice through its yield (1.36) and distributed plasticity */
  fcd_lattice *l1, *l2;
  fcd_lattice_create_rect(10, 15, 1.0, 1.0, 0.01, 0.3, 1.1, 0.1, &l1);
  fcd_lattice_create_rect(10, 15, 1.0, 1.0, 0.01, 0.3, 1.1, 0.1, &l2);
  double w = run_pair(l1, l2, 200, 0.01, 527);
  fprintf(stderr, "rect 10x15 softening to t = 2.00: Alg. 1 vs Alg. 2 worst difference %.1e\n", w);
  CHECK(w < 1e-9);
  fcd_lattice_destroy(l1);
  fcd_lattice_destroy(l2);
}

/* Issue 64: the generated lattices' sizes in closed form (fcd_lattice_generated_sizes,
 * which `fcd lattice --count-only` prints without building anything) equal the sizes of
 * the lattices built, for every shape from 2 x 2 to 9 x 9 of both kinds, and the
 * self-stress dimension m - (2 n - q) that the built lattice certifies by its
 * factorization where it is determinate; the published counts of seed 001 (10 x 15: 150 nodes, 527 springs, 21
 * constraints; triangular 157, 404, 21); sizes out of range are refused. */
static void test_generated_sizes(void) {
  for (int kind = 0; kind < 2; kind++)
    for (int nx = 2; nx <= 9; nx++)
      for (int ny = 2; ny <= 9; ny++) {
        fcd_lattice *lat = NULL;
        CHECK_ST(kind == FCD_LAT_RECT ? fcd_lattice_create_rect(nx, ny, 1, 1, 0.01, 0.3, 1.1, 0.1, &lat)
                                      : fcd_lattice_create_tri(nx, ny, 1, 1, 0.01, 0.3, 1.1, 0.1, &lat),
                 FCD_OK);
        fcd_index n, m, q, n2, m2, q2, dv;
        CHECK_ST(fcd_lattice_sizes(lat, &n, &m, &q), FCD_OK);
        CHECK_ST(fcd_lattice_generated_sizes(kind, nx, ny, &n2, &m2, &q2), FCD_OK);
        CHECK(n == n2 && m == m2 && q == q2);
        /* the triangular lattices of three rows have a mechanism (named,
         * FCD_E_SINGULAR): counts exist without the check, the dimension does not */
        fcd_status sd = fcd_lattice_selfstress_dim(lat, &dv);
        if (kind == FCD_LAT_RECT) CHECK_ST(sd, FCD_OK);
        if (sd == FCD_OK) CHECK(dv == m2 - (2 * n2 - q2));
        else CHECK_ST(sd, FCD_E_SINGULAR);
        fcd_lattice_destroy(lat);
      }
  fcd_index n, m, q;
  CHECK_ST(fcd_lattice_generated_sizes(FCD_LAT_RECT, 10, 15, &n, &m, &q), FCD_OK);
  CHECK(n == 150 && m == 527 && q == 21);
  CHECK_ST(fcd_lattice_generated_sizes(FCD_LAT_TRI, 10, 15, &n, &m, &q), FCD_OK);
  CHECK(n == 157 && m == 404 && q == 21);
  /* the largest: counted in closed form, nothing allocated */
  CHECK_ST(fcd_lattice_generated_sizes(FCD_LAT_TRI, 100000, 100000, &n, NULL, NULL), FCD_OK);
  CHECK(n > 9000000000LL);
  CHECK_ST(fcd_lattice_generated_sizes(FCD_LAT_RECT, 1, 5, &n, &m, &q), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_lattice_generated_sizes(FCD_LAT_RECT, 5, 100001, &n, &m, &q), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_lattice_generated_sizes(7, 5, 5, &n, &m, &q), FCD_E_INVALID_ARG);
}

/* ---- complete failure (seed 001, Remark 3.1 and Remark 4.2) ----
 * A softening spring's admissible stresses shrink to {0} at a_f = c0 / (s (h - 1)); past
 * it the sweep has no state, and the step that would cross it is FCD_E_NO_SOLUTION naming
 * the spring, the state kept. One spring pulled at l = t (k = 2, c0 = 0.01, s = 0.5,
 * h = 1.5): D = 1 + s^2 (1 - h) / k = 0.9375, l_f = c0/k + c0 D / (s^2 (h - 1)) = 0.08.
 * Two springs in series localized in spring 1 (k = s = 1, h = 1.2, from the yield state
 * (104)): a1' = s / (1 + c s^2 (1 - h)) = 1/0.6 with c = 2, so a1 = a_f = 0.05 at
 * l = 0.03 while spring 2 unloads elastically. The step sizes put no step on l_f. */
static void test_complete_failure(void) {
  {
    const double k = 2, c0 = 0.01, s = 0.5, h = 1.5, dt = 0.0013;
    double D = 1 + s * s * (1 - h) / k, lf = c0 / k + c0 * D / (s * s * (h - 1));
    CHECK(fabs(lf - 0.08) < 1e-15);
    fcd_lattice *lat = one_spring(k, c0, s, h);
    int j = 1;
    fcd_status st = FCD_OK;
    for (; j <= 100 && (st = fcd_lattice_step(lat, dt * j, NULL)) == FCD_OK; j++) {}
    CHECK_ST(st, FCD_E_NO_SOLUTION);
    CHECK(j == (int)ceil(lf / dt)); /* the first step past l_f */
    const char *msg = fcd_lattice_last_error(lat);
    CHECK(strstr(msg, "complete failure") && strstr(msg, "spring 0 "));
    /* located within the step: the bisection stops within 1e-6 of a_f (da/dl = s/D) */
    double tf = message_time(msg, "complete failure at t = ");
    CHECK(tf <= lf && tf > lf - 1e-6 * c0 / (s * (h - 1)) * D / s - 1e-12);
    double t, sig, dam;
    CHECK_ST(fcd_lattice_get_state(lat, &t, &sig, &dam, NULL), FCD_OK);
    double Ep = s * s * (1 - h) / D;
    CHECK(t == dt * (j - 1));
    CHECK(fabs(sig - (c0 + Ep * (t - c0 / k))) < 1e-14);
    CHECK(fabs(dam - s * (t - c0 / k) / D) < 1e-14);
    fcd_lattice_destroy(lat);
  }
  {
    const double k[2] = {1, 1}, s[2] = {1, 1}, h[2] = {1.2, 1.2}, c0 = 0.01, dl = 0.0007;
    fcd_lattice *lat = toy(k, s, h, c0);
    g_off[0] = 8e-5; /* the code's offset: the branch localized in spring 1 */
    g_off[1] = -1e-5;
    CHECK_ST(fcd_lattice_set_guess(lat, offset_guess, NULL), FCD_OK);
    CHECK_ST(fcd_lattice_step(lat, dl, NULL), FCD_OK);
    CHECK_ST(fcd_lattice_set_guess(lat, NULL, NULL), FCD_OK);
    int j = 2;
    fcd_status st = FCD_OK;
    for (; j <= 100 && (st = fcd_lattice_step(lat, dl * j, NULL)) == FCD_OK; j++) {}
    CHECK_ST(st, FCD_E_NO_SOLUTION);
    CHECK(j == (int)ceil(0.03 / dl));
    CHECK(strstr(fcd_lattice_last_error(lat), "spring 0 (nodes 0-1)") != NULL);
    double tf = message_time(fcd_lattice_last_error(lat), "complete failure at t = ");
    CHECK(tf <= 0.03 + 1e-15 && tf > 0.03 - 1e-6 * 0.05 * 0.6 - 1e-12);
    double l = dl * (j - 1);
    check_state(lat, l / 0.6, 0, c0 - l / 3, 1e-12);
    fcd_lattice_destroy(lat);
  }
}

/* ---- the piece's fixed point against Picard alone ----
 * FCD_LAT_PIECES solves the fixed point of the active-set piece Picard has settled on;
 * where the iteration stays on that piece its limit is the same point, so the two give
 * the same states to Picard's own stopping error (its tolerance 1e-12 on the change,
 * times rho / (1 - rho) for a contraction rho up to 0.99: 1e-10), and the same branches:
 * the 10 x 15 softening lattice from its elastic range through first yield (1.36), the
 * symmetric plastic phase, the shear band's onset (2.78, where round-off picks the
 * band's side, so the other side is accepted as its mirror image) and the band's growth
 * to t = 3.3, with a fifth of Picard's iterations or fewer. */
static void test_pieces_vs_picard(void) {
  fcd_lattice *lp, *lq;
  CHECK_ST(fcd_lattice_create_rect(10, 15, 1.0, 1.0, 0.01, 0.3, 1.1, 0.1, &lp), FCD_OK);
  CHECK_ST(fcd_lattice_create_rect(10, 15, 1.0, 1.0, 0.01, 0.3, 1.1, 0.1, &lq), FCD_OK);
  CHECK_ST(fcd_lattice_set_param(lq, FCD_LAT_ITERATION, FCD_LAT_PICARD), FCD_OK);
  CHECK_ST(fcd_lattice_set_param(lq, FCD_LAT_ITERATION, 2), FCD_E_INVALID_ARG);
  const fcd_index m = 527;
  int *mir = malloc(sizeof(int) * (size_t)m);
  double *s1 = malloc(sizeof(double) * (size_t)(4 * m)), *a1 = s1 + m, *s2 = a1 + m, *a2 = s2 + m;
  mirror_map(lp, 10, 15, m, mir);
  long ip = 0, iq = 0;
  double worst = 0;
  int mirrored = 0;
  for (int j = 1; j <= 330; j++) {
    fcd_index itp, itq;
    CHECK_ST(fcd_lattice_step(lp, 0.01 * j, &itp), FCD_OK);
    CHECK_ST(fcd_lattice_step(lq, 0.01 * j, &itq), FCD_OK);
    ip += itp;
    iq += itq;
    fcd_lattice_get_state(lp, NULL, s1, a1, NULL);
    fcd_lattice_get_state(lq, NULL, s2, a2, NULL);
    double d = 0, dm = 0;
    for (fcd_index i = 0; i < m; i++) {
      d = fmax(d, fmax(fabs(s1[i] - s2[i]), fabs(a1[i] - a2[i])));
      dm = fmax(dm, fmax(fabs(s1[i] - s2[mir[i]]), fabs(a1[i] - a2[mir[i]])));
    }
    mirrored |= dm < d;
    worst = fmax(worst, fmin(d, dm));
  }
  fprintf(stderr, "rect 10x15 softening to t = 3.30: pieces against Picard %.1e (%s band), "
          "iterations %ld against %ld\n", worst, mirrored ? "mirror" : "same", ip, iq);
  CHECK(worst < 1e-10);
  CHECK(ip * 5 <= iq);
  free(mir);
  free(s1);
  fcd_lattice_destroy(lp);
  fcd_lattice_destroy(lq);
}

int main(void) {
  test_generated_sizes();
  test_single_spring();
  test_two_springs();
  test_unequal();
  test_bad_input();
  test_rect_lattice();
  test_rect_defect();
  test_tri_defect();
  test_tripod_force();
  test_cyclic_history();
  test_alg1_vs_alg2();
  test_complete_failure();
  test_pieces_vs_picard();
  fcd_finalize();
  return fcdt_finish("test_sweep");
}
