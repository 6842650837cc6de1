/* Seed 000 (Martins, Barbarin, Raous, Pinto da Costa 1999), example 4.6: a pin on a flat,
 * carried by a flexible beam whose far end is dragged along; the body of mass M sits on
 * the pin. Dimensionless: lengths / L, reactions / EA, time * sqrt(EA / (L M)).
 *
 * Dofs (u_D, u_theta, u_T, u_N). The beam end D is held still and the flat slides under
 * the pin at vg = -u'_D = 0.015 (the frame of the dragged block: the paper's Fig. 9
 * plots the motion relative to an observer moving with M_D, which is this frame).
 *
 * 1. The steady sliding state (fcd_equilibrium) against the paper's closed forms.
 * 2. Its stability (fcd_stability) against the roots of the characteristic biquadratic.
 * 3. The friction thresholds of flutter and divergence found by bisection on fcd's
 *    classification, against the closed forms (the paper's for H_M = 0; for H_M != 0
 *    the roots of the discriminant, a quadratic in mu, derived below).
 * 4. The motion from the steady state with a small tilt, Moreau-Jean with perfectly
 *    plastic impacts (e = 0, the paper's delta = 1): flutter grows at the rate of
 *    step 2 and settles on a limit cycle (Figs. 9 and 10: phase plots).
 * 5. The limit cycle directly (fcd_periodic, docs/periodic.md): shooting on the modified
 *    theta scheme's flow from a state of its transient returns the transient's period and
 *    amplitude, and the branch of cycles followed down in mu goes on below the flutter
 *    threshold to a fold, where it turns back unstable (the cycle is born at finite
 *    amplitude, not as a small Hopf cycle). */
#include <fcd/fcd.h>

#include "example.h"

/* Fig. 9 data */
static const double HB = 0.1, RHO = 0.07, RM = 0.15, F = 0.01, VG = 0.015;

typedef struct {
  fcd_system *sys;
  fcd_contact_set *cs;
} pin;

static fcd_status pin_build(double hm, double mu, pin *p) {
  const fcd_index r[8] = {0, 0, 0, 1, 1, 1, 2, 3}, c[8] = {0, 1, 2, 1, 2, 3, 2, 3};
  const double kv[8] = {1, HB, -1, 4 * RHO * RHO + HB * HB, -HB, 6 * RHO * RHO, 1,
                        12 * RHO * RHO};
  const fcd_index mr[5] = {0, 1, 1, 2, 3}, mc[5] = {0, 1, 2, 2, 3};
  /* M_D / M is not published and plays no role: u_D is prescribed */
  const double mv[5] = {3, hm * hm + RM * RM, -hm, 1, 1};
  const double f[4] = {0, 0, 0, F}; /* the weight, along the normal into the flat */
  const fcd_index fixed = 0, dofs[2] = {2, 3};
  const double n[2] = {0, 1}, t[2] = {1, 0}, vg = VG;
  p->sys = NULL;
  p->cs = NULL;
  fcd_status st = fcd_system_create(4, &p->sys);
  if (st == FCD_OK) st = fcd_system_set_matrix_coo(p->sys, FCD_STIFFNESS, 8, r, c, kv, FCD_COO_UPPER);
  if (st == FCD_OK) st = fcd_system_set_matrix_coo(p->sys, FCD_MASS, 5, mr, mc, mv, FCD_COO_UPPER);
  if (st == FCD_OK) st = fcd_system_set_load(p->sys, f);
  if (st == FCD_OK) st = fcd_system_fix_dofs(p->sys, 1, &fixed, NULL);
  if (st == FCD_OK) st = fcd_contact_set_create(p->sys, 2, &p->cs);
  if (st == FCD_OK) st = fcd_contact_set_add_rigid(p->cs, dofs, n, t, 0.0, mu, NULL);
  if (st == FCD_OK) st = fcd_contact_set_set_sliding_velocity(p->cs, 0, &vg);
  if (st != FCD_OK)
    fprintf(stderr, "pin-on-flat: building the model: %s\n", fcd_system_last_error(p->sys));
  return st;
}

static void pin_free(pin *p) {
  fcd_contact_set_destroy(p->cs);
  fcd_system_destroy(p->sys);
}

/* The slipping pin with slip direction s (-1: the pin slides towards -T relative to the
 * flat, the paper's sigma(u'_D) = -1, beam pulled) analysed at friction mu: the largest
 * real part and whether any eigenvalue flutters / diverges. */
typedef struct {
  double maxre;
  int flutter, divergence;
} verdict;

static fcd_status analyse(double hm, double s, double mu, verdict *v, double *re, double *im) {
  pin p;
  fcd_status st = pin_build(hm, mu, &p);
  fcd_stability *sa = NULL;
  if (st == FCD_OK) st = fcd_stability_create(p.sys, p.cs, &sa);
  const int status = FCD_CONTACT_SLIP;
  if (st == FCD_OK) st = fcd_stability_set_contact_state(sa, &status, &s);
  fcd_index n = 0;
  if (st == FCD_OK) st = fcd_stability_solve(sa, &n);
  if (st == FCD_OK) {
    double r0, i0;
    fcd_stability_get_eigenvalue(sa, 0, &r0, &i0);
    v->maxre = r0;
    fcd_stability_get_summary(sa, &v->flutter, &v->divergence, NULL, NULL);
    if (re && im) {
      *re = r0;
      *im = fabs(i0);
    }
  } else {
    fprintf(stderr, "pin-on-flat: stability at mu = %g: %s\n", mu, fcd_system_last_error(p.sys));
  }
  fcd_stability_destroy(sa);
  pin_free(&p);
  return st;
}

/* det(K~ - Lambda M~) = RM^2 Lambda^2 - B Lambda + C (digest section 3.3, reduced on
 * (T, theta)), with B = hm^2 + RM^2 + 4 RHO^2 + HB^2 - hm (2 HB + 6 mu RHO^2 s) and
 * C = RHO^2 (4 + 6 mu s HB) in fcd's slip direction s = sigma(u'_D). Flutter: B^2 <
 * 4 RM^2 C, a quadratic in mu; divergence: C <= 0. */
static int flutter_window(double hm, double s, double *mu_lo, double *mu_hi) {
  double b0 = hm * hm + RM * RM + 4 * RHO * RHO + HB * HB - 2 * hm * HB, b1 = 6 * hm * RHO * RHO * s;
  double c0 = 4 * RHO * RHO, c1 = -6 * RHO * RHO * s * HB;
  /* (b0 - b1 mu)^2 - 4 RM^2 (c0 + c1 mu) < 0 */
  double qa = b1 * b1, qb = -2 * b0 * b1 - 4 * RM * RM * c1, qc = b0 * b0 - 4 * RM * RM * c0;
  if (qa == 0) { /* hm = 0: linear */
    if (qb >= 0) return 0;
    *mu_lo = -qc / qb;
    *mu_hi = INFINITY;
    return 1;
  }
  double disc = qb * qb - 4 * qa * qc;
  if (disc <= 0) return 0;
  *mu_lo = (-qb - sqrt(disc)) / (2 * qa);
  *mu_hi = (-qb + sqrt(disc)) / (2 * qa);
  return 1;
}

/* bisection on fcd's verdict between mu_a (no) and mu_b (yes) */
static double threshold(double hm, double s, double mu_a, double mu_b, int want_div) {
  for (int k = 0; k < 50; k++) {
    double mid = 0.5 * (mu_a + mu_b);
    verdict v;
    if (analyse(hm, s, mid, &v, NULL, NULL) != FCD_OK) return NAN;
    int yes = want_div ? v.divergence : v.flutter;
    if (yes) mu_b = mid;
    else mu_a = mid;
  }
  return 0.5 * (mu_a + mu_b);
}

static int part_steady_and_stability(ex_run *ex) {
  const double mu = 2.2, hm = 0.05;
  pin p;
  if (pin_build(hm, mu, &p) != FCD_OK) return 1;
  fcd_equilibrium *eq = NULL;
  fcd_status st = fcd_equilibrium_create(p.sys, p.cs, &eq);
  if (st == FCD_OK) st = fcd_equilibrium_solve(eq, FCD_EQ_STEADY_SLIDING, 0.0);
  if (st != FCD_OK) {
    fprintf(stderr, "pin-on-flat: steady sliding: %s\n", fcd_system_last_error(p.sys));
    fcd_equilibrium_destroy(eq);
    pin_free(&p);
    return 1;
  }
  double u[4], r[2];
  fcd_equilibrium_get_state(eq, u);
  fcd_equilibrium_get_reactions(eq, r);
  /* the paper's steady state (pulled, sigma = -1): r_N = -F / (1 + 1.5 mu HB),
   * u_theta = mu F HB / (4 (1 + 1.5 mu HB) RHO^2), u_D - u_T = -mu F (1 + HB^2 / (4
   * RHO^2)) / (1 + 1.5 mu HB) */
  double den = 1 + 1.5 * mu * HB;
  printf("1. steady sliding at mu = %g (Fig. 9 data)\n", mu);
  ex_close(ex, "normal reaction r_N", r[0], -F / den, 1e-10);
  ex_close(ex, "tangential reaction r_T = -mu r_N (opposing the slip towards -T)", r[1],
           -mu * (-F / den), 1e-10);
  ex_close(ex, "pin angle u_theta", u[1], mu * F * HB / (4 * den * RHO * RHO), 1e-10);
  ex_close(ex, "u_D - u_T", u[0] - u[2], -mu * F * (1 + HB * HB / (4 * RHO * RHO)) / den, 1e-10);
  fcd_equilibrium_destroy(eq);
  pin_free(&p);

  printf("2. stability of that state\n");
  verdict v;
  double re, im;
  if (analyse(hm, -1.0, mu, &v, &re, &im) != FCD_OK) return 1;
  /* Lambda = (B +- sqrt(B^2 - 4 RM^2 C)) / (2 RM^2), lambda = sqrt(-Lambda) */
  double B = hm * hm + RM * RM + 4 * RHO * RHO + HB * HB - hm * (2 * HB - 6 * mu * RHO * RHO);
  double C = RHO * RHO * (4 + 6 * mu * HB), dr = B / (2 * RM * RM);
  double di = sqrt(4 * RM * RM * C - B * B) / (2 * RM * RM);
  /* sqrt(-(dr + i di)) with positive real part */
  double mod = hypot(dr, di), lre = sqrt(0.5 * (mod - dr)), lim = sqrt(0.5 * (mod + dr));
  ex_check(ex, v.flutter && !v.divergence, "classified as flutter");
  ex_close(ex, "growth rate Re(lambda)", re, lre, 1e-9);
  ex_close(ex, "frequency Im(lambda)", im, lim, 1e-9);
  ex_close(ex, "growth rate against the digest's 0.081837", re, 0.081837, 1e-5);
  return 0;
}

static int part_thresholds(ex_run *ex) {
  printf("3. friction thresholds (bisection on fcd's classification)\n");
  double lo, hi;
  /* pulled, H_M = 0.05: a flutter window */
  flutter_window(0.05, -1.0, &lo, &hi);
  double t1 = threshold(0.05, -1.0, 0.5, 2.2, 0), t2 = threshold(0.05, -1.0, 80.0, 2.2, 0);
  ex_close(ex, "pulled, H_M/L = 0.05: flutter from mu", t1, lo, 1e-8);
  ex_close(ex, "pulled, H_M/L = 0.05: flutter up to mu", t2, hi, 1e-8);
  ex_close(ex, "  against the digest's 1.7357", t1, 1.7357, 1e-4);
  /* pulled, H_M = 0: the paper's closed form, linear in mu */
  flutter_window(0.0, -1.0, &lo, &hi);
  double t3 = threshold(0.0, -1.0, 2.0, 6.0, 0);
  double paper = (pow(1 + 4 * pow(RHO / RM, 2) + pow(HB / RM, 2), 2) / (8 * pow(RHO / RM, 2)) - 2) /
                 (3 * HB);
  ex_close(ex, "pulled, H_M = 0: flutter from mu (paper's inequality)", t3, paper, 1e-8);
  ex_close(ex, "  the same from the discriminant", lo, paper, 1e-12);
  ex_close(ex, "  against the digest's 3.5919", t3, 3.5919, 1e-4);
  /* pushed: divergence from 2 / (3 H_B/L), never flutter */
  double t4 = threshold(0.05, 1.0, 1.0, 10.0, 1);
  ex_close(ex, "pushed: divergence from mu = 2 / (3 H_B/L)", t4, 2 / (3 * HB), 1e-8);
  verdict v;
  int any_flutter = 0;
  for (int k = 0; k <= 40; k++) {
    if (analyse(0.05, 1.0, 0.25 * k, &v, NULL, NULL) != FCD_OK) return 1;
    any_flutter |= v.flutter;
  }
  ex_check(ex, !any_flutter, "pushed: no flutter for mu in [0, 10]");

  /* the chart: largest Re(lambda) against mu */
  FILE *csv = ex_open(ex, "stability-chart.csv");
  if (!csv) return 1;
  fprintf(csv, "mu,maxre_pulled_hm005,maxre_pulled_hm0,maxre_pushed_hm005\n");
  int n = ex->quick ? 60 : 400;
  for (int k = 0; k <= n; k++) {
    double mu = 10.0 * k / n;
    verdict a, b, c;
    if (analyse(0.05, -1.0, mu, &a, NULL, NULL) != FCD_OK ||
        analyse(0.0, -1.0, mu, &b, NULL, NULL) != FCD_OK ||
        analyse(0.05, 1.0, mu, &c, NULL, NULL) != FCD_OK) {
      fclose(csv);
      return 1;
    }
    fprintf(csv, "%.6g,%.10g,%.10g,%.10g\n", mu, a.maxre, b.maxre, c.maxre);
  }
  fclose(csv);
  ex_plot(ex, "stability-chart.png",
          "set datafile separator ','\nset key top left\nset grid\n"
          "set xlabel 'friction coefficient mu'\nset ylabel 'largest Re(lambda)'\n"
          "set title 'Pin on a flat (seed 000 ex. 4.6): steady sliding stability'\n"
          "set arrow from %.4f, graph 0 to %.4f, graph 1 nohead dt 2 lc rgb 'gray'\n"
          "set arrow from %.4f, graph 0 to %.4f, graph 1 nohead dt 2 lc rgb 'gray'\n"
          "set arrow from %.4f, graph 0 to %.4f, graph 1 nohead dt 2 lc rgb 'gray'\n"
          "plot '%s/stability-chart.csv' u 1:2 w l lw 2 t 'pulled, H_M/L = 0.05 (flutter from 1.7357)',"
          " '' u 1:3 w l lw 2 t 'pulled, H_M = 0 (flutter from 3.5919)',"
          " '' u 1:4 w l lw 2 t 'pushed (divergence from 6.667)'\n",
          1.7357, 1.7357, 3.5919, 3.5919, 2 / (3 * HB), 2 / (3 * HB), ex->out);
  return 0;
}

typedef struct {
  FILE *csv;
  double u0[4];
  double prev, prev2, pk_t[4000], pk_a[4000];
  int npk, opened_late;
  double tend;
} watch;

static int observe(void *ud, double t, fcd_index n, const double *u, const double *v,
                   fcd_index nl, const double *r, const fcd_contact_counts *cc) {
  (void)n;
  (void)nl;
  watch *w = ud;
  static long k;
  if (k++ % 10 == 0)
    fprintf(w->csv, "%.6f,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g\n", t, u[1], v[1], u[2],
            v[2], u[3], v[3], r[0]);
  double a = u[1] - w->u0[1];
  if (w->prev > w->prev2 && w->prev >= a && w->prev > 0 && w->npk < 4000) {
    w->pk_t[w->npk] = t;
    w->pk_a[w->npk++] = w->prev;
  }
  w->prev2 = w->prev;
  w->prev = a;
  if (t > 0.8 * w->tend && cc->open > 0) w->opened_late = 1;
  return 0;
}

static int part_motion(ex_run *ex, double growth) {
  printf("4. motion from the steady state with a tilt of 1e-6 (Moreau-Jean, e = 0)\n");
  const double mu = 2.2, hm = 0.05, h = 0.002, tend = ex->quick ? 250 : 400;
  pin p;
  if (pin_build(hm, mu, &p) != FCD_OK) return 1;
  fcd_equilibrium *eq = NULL;
  fcd_integrator *it = NULL;
  watch w = {0};
  w.tend = tend;
  fcd_status st = fcd_equilibrium_create(p.sys, p.cs, &eq);
  if (st == FCD_OK) st = fcd_equilibrium_solve(eq, FCD_EQ_STEADY_SLIDING, 0.0);
  if (st == FCD_OK) st = fcd_equilibrium_get_state(eq, w.u0);
  if (st == FCD_OK) st = fcd_integrator_create(p.sys, p.cs, FCD_SCHEME_MOREAU_JEAN, &it);
  if (st == FCD_OK) st = fcd_integrator_set_param(it, FCD_PARAM_STEP, h);
  if (st == FCD_OK) st = fcd_integrator_set_param(it, FCD_PARAM_TOLERANCE, 1e-13);
  double u[4], v[4] = {0, 0, 0, 0};
  memcpy(u, w.u0, sizeof u);
  u[1] += 1e-6;
  if (st == FCD_OK) st = fcd_integrator_set_state(it, 0.0, u, v);
  w.csv = ex_open(ex, "motion.csv");
  if (!w.csv) st = FCD_E_IO;
  else fprintf(w.csv, "t,u_theta,v_theta,u_T,v_T,u_N,v_N,r_N\n");
  if (st == FCD_OK) st = fcd_integrator_set_observer(it, observe, &w);
  if (st == FCD_OK) st = fcd_integrator_advance(it, tend);
  if (w.csv) fclose(w.csv);
  if (st != FCD_OK) {
    fprintf(stderr, "pin-on-flat: motion: %s\n", fcd_system_last_error(p.sys));
    fcd_integrator_destroy(it);
    fcd_equilibrium_destroy(eq);
    pin_free(&p);
    return 1;
  }
  /* growth while the amplitude is below 1% of the steady tilt, after t = 30 */
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  int m = 0;
  for (int i = 0; i < w.npk; i++)
    if (w.pk_t[i] > 30 && w.pk_a[i] < 0.01 * w.u0[1]) {
      sx += w.pk_t[i];
      sy += log(w.pk_a[i]);
      sxx += w.pk_t[i] * w.pk_t[i];
      sxy += w.pk_t[i] * log(w.pk_a[i]);
      m++;
    }
  double rate = m > 2 ? (m * sxy - sx * sy) / (m * sxx - sx * sx) : NAN;
  ex_close(ex, "growth rate of the tilt (fit over the small-amplitude peaks)", rate, growth, 0.05);
  double amin = INFINITY, amax = 0;
  for (int i = w.npk - 10; i >= 0 && i < w.npk; i++) {
    amin = fmin(amin, w.pk_a[i]);
    amax = fmax(amax, w.pk_a[i]);
  }
  ex_check(ex, w.npk >= 10 && amax < 1.02 * amin && amin > 1e-4,
           "limit cycle: the last 10 tilt peaks between %.5f and %.5f (grown from 1e-6)", amin, amax);
  ex_check(ex, w.opened_late, "the pin leaves the flat during the limit cycle (impacts)");
  /* the ledger: the flat's drive is external work, friction dissipates on the slip */
  fcd_energy e;
  fcd_integrator_get_energy(it, &e);
  double e0 = 0;
  {
    fcd_system *sys = p.sys;
    double ku[4];
    fcd_system_apply(sys, FCD_STIFFNESS, u, ku);
    for (int i = 0; i < 4; i++) e0 += 0.5 * u[i] * ku[i];
  }
  double lhs = e.kinetic + e.potential - e0, rhs = e.external_work - e.damping_dissipation -
      e.friction_dissipation - e.impact_dissipation - e.numerical_dissipation;
  ex_check(ex, fabs(lhs - rhs) <= 1e-9 * (fabs(e.external_work) + e.friction_dissipation),
           "energy ledger closes: change %.6e, work - dissipation %.6e (friction %.4e, "
           "impacts %.4e, drive of the flat and the weight %.4e)", lhs, rhs,
           e.friction_dissipation, e.impact_dissipation, e.external_work);
  ex_check(ex, e.friction_dissipation > 0 && e.impact_dissipation >= 0,
           "friction and impacts dissipate");
  ex_plot(ex, "phase-tangential.png",
          "set datafile separator ','\nset grid\nunset key\nset offsets 0, 0, graph 0.05, graph 0.05\n"
          "set xlabel 'u_T - u_T^0 (relative to the dragged block)'\nset ylabel \"u_T' - u'_D\"\n"
          "set title 'Pin on a flat, mu = 2.2: tangential phase plot (paper Fig. 9)'\n"
          "plot '%s/motion.csv' u ($4-%.10g):5 every ::1 w l lw 1\n", ex->out, w.u0[2]);
  ex_plot(ex, "phase-normal.png",
          "set datafile separator ','\nset grid\nunset key\nset offsets 0, 0, graph 0.05, graph 0.05\n"
          "set xlabel 'u_N (0: on the flat, < 0: lifted)'\nset ylabel \"u_N'\"\n"
          "set title 'Pin on a flat, mu = 2.2: normal phase plot (paper Fig. 10)'\n"
          "plot '%s/motion.csv' u 6:7 every ::1 w l lw 1\n", ex->out);
  fcd_integrator_destroy(it);
  fcd_equilibrium_destroy(eq);
  pin_free(&p);
  return 0;
}

/* ---- 5. limit cycles by shooting, and their branch in mu ---- */

typedef struct {
  FILE *csv;
  fcd_periodic *p;
  int n, nfold;
  double mu_fold, mu_min;
} branch_out;

static int on_point(void *ud, double mu, const fcd_periodic_info *in, const double *re,
                    const double *im, int ev) {
  (void)re;
  (void)im;
  branch_out *b = ud;
  double lo[4], hi[4];
  if (fcd_periodic_get_range(b->p, lo, hi) != FCD_OK) return 1;
  fprintf(b->csv, "%.8g,%.10g,%.10g,%d,%d\n", mu, in->period, 0.5 * (hi[1] - lo[1]),
          in->stable, ev);
  printf("   mu %.5f  T %.6f  u_theta half range %.6f  %s%s\n", mu, in->period,
         0.5 * (hi[1] - lo[1]), in->stable == 1 ? "stable" : "unstable",
         ev == FCD_PERIODIC_EVENT_FOLD ? "  (past a fold)" : "");
  if (ev == FCD_PERIODIC_EVENT_FOLD && !b->nfold++) b->mu_fold = mu;
  b->mu_min = fmin(b->mu_min, mu);
  b->n++;
  return 0;
}

/* the transient of the modified theta scheme at mu from steady sliding plus a tilt of
 * 1e-2, to tend: its last state at a u_N minimum in flight, the mean spacing of those
 * minima and the half range of u_theta over the last fifth */
static fcd_status cycle_transient(pin *p, double h, double tend, double *u, double *v,
                                  double *period, double *amp) {
  fcd_equilibrium *eq = NULL;
  fcd_integrator *it = NULL;
  double vz[4] = {0, 0, 0, 0}, t = 0, vprev = 0, last = -1, sum = 0, lo = INFINITY, hi = -INFINITY;
  int cyc = 0;
  fcd_status st = fcd_equilibrium_create(p->sys, p->cs, &eq);
  if (st == FCD_OK) st = fcd_equilibrium_solve(eq, FCD_EQ_STEADY_SLIDING, 0.0);
  if (st == FCD_OK) st = fcd_equilibrium_get_state(eq, u);
  fcd_equilibrium_destroy(eq);
  u[1] += 1e-2;
  if (st == FCD_OK) st = fcd_integrator_create(p->sys, p->cs, FCD_SCHEME_MODIFIED_THETA, &it);
  if (st == FCD_OK) st = fcd_integrator_set_param(it, FCD_PARAM_STEP, h);
  if (st == FCD_OK) st = fcd_integrator_set_state(it, 0, u, vz);
  if (st == FCD_OK) st = fcd_integrator_advance(it, 0.8 * tend);
  double uu[4], vv[4];
  while (st == FCD_OK && t < tend) {
    st = fcd_integrator_step(it);
    if (st == FCD_OK) st = fcd_integrator_get_state(it, &t, uu, vv);
    lo = fmin(lo, uu[1]);
    hi = fmax(hi, uu[1]);
    if (vprev < 0 && vv[3] >= 0 && uu[3] < -1e-3) {
      double tc = t - h * vv[3] / (vv[3] - vprev);
      if (last > 0) {
        sum += tc - last;
        cyc++;
      }
      last = tc;
      memcpy(u, uu, sizeof uu);
      memcpy(v, vv, sizeof vv);
    }
    vprev = vv[3];
  }
  fcd_integrator_destroy(it);
  *period = cyc > 0 ? sum / cyc : NAN;
  *amp = 0.5 * (hi - lo);
  return st;
}

static int part_cycles(ex_run *ex) {
  printf("5. the limit cycle by shooting (modified theta), and its branch in mu\n");
  const double h = 2e-3, dmu = ex->quick ? 0.1 : 0.05;
  const fcd_index npts = ex->quick ? 6 : 14;
  pin p;
  if (pin_build(0.05, 2.2, &p) != FCD_OK) return 1;
  double u[4], v[4], T = NAN, amp = NAN;
  branch_out b = {NULL, NULL, 0, 0, NAN, INFINITY};
  fcd_status st = cycle_transient(&p, h, 300, u, v, &T, &amp);
  if (st == FCD_OK) st = fcd_periodic_create(p.sys, p.cs, FCD_SCHEME_MODIFIED_THETA, &b.p);
  if (st == FCD_OK) st = fcd_periodic_set_param(b.p, FCD_PARAM_STEP, h);
  if (st == FCD_OK) st = fcd_periodic_solve(b.p, u, v, T);
  fcd_periodic_info in;
  double lo[4], hi[4];
  if (st == FCD_OK) st = fcd_periodic_get_info(b.p, &in);
  if (st == FCD_OK) st = fcd_periodic_get_range(b.p, lo, hi);
  if (st == FCD_OK) {
    ex_close(ex, "shooting at mu = 2.2: period against the transient's", in.period, T, 1e-6);
    ex_close(ex, "shooting at mu = 2.2: u_theta half range against the transient's",
             0.5 * (hi[1] - lo[1]), amp, 1e-6);
    ex_check(ex, in.stable == 1 && in.trivial_error < 1e-3, "the cycle is stable (largest "
             "other multiplier %.4f; trivial multiplier within %.1e of 1; %lld Newton "
             "iterations)", in.max_multiplier, in.trivial_error, (long long)in.iterations);
    b.csv = ex_open(ex, "branch.csv");
    if (!b.csv) st = FCD_E_IO;
    else fprintf(b.csv, "mu,period,amplitude,stable,event\n2.2,%.10g,%.10g,1,0\n", in.period,
                 0.5 * (hi[1] - lo[1]));
  }
  if (st == FCD_OK) st = fcd_periodic_continue(b.p, 1.0, dmu, npts, on_point, &b);
  if (b.csv) fclose(b.csv);
  if (st != FCD_OK) {
    fprintf(stderr, "pin-on-flat: cycles: %s\n", fcd_system_last_error(p.sys));
    fcd_periodic_destroy(b.p);
    pin_free(&p);
    return 1;
  }
  ex_check(ex, b.nfold == 1 && b.mu_fold > 1.67 && b.mu_fold < 1.685,
           "the branch folds back at mu = %.4f, below the flutter threshold 1.7357",
           b.mu_fold);
  ex_plot(ex, "branch.png",
          "set datafile separator ','\nset grid\nset key bottom right\n"
          "set xlabel 'friction coefficient mu'\nset ylabel 'u_{/Symbol q} half range'\n"
          "set arrow from 1.7357, graph 0 to 1.7357, graph 1 nohead dt 2\n"
          "set label 'flutter of steady sliding' at 1.74, graph 0.08\n"
          "set title 'Pin on a flat: limit cycles by shooting, continued in mu (h = %g)'\n"
          "plot '%s/branch.csv' u 1:($4==1?$3:1/0) every ::1 w lp pt 7 lw 2 t 'stable', "
          "'' u 1:($4==1?1/0:$3) every ::1 w lp pt 6 lw 2 dt 3 t 'unstable'\n", h, ex->out);
  fcd_periodic_destroy(b.p);
  pin_free(&p);
  return 0;
}

int main(int argc, char **argv) {
  ex_run ex;
  int rc = ex_init(&ex, "pin-on-flat", argc, argv);
  if (rc) return rc;
  verdict v;
  double growth = NAN, im;
  if (part_steady_and_stability(&ex) || analyse(0.05, -1.0, 2.2, &v, &growth, &im) != FCD_OK ||
      part_thresholds(&ex) || part_motion(&ex, growth) || part_cycles(&ex))
    ex.failed++;
  fcd_finalize();
  return ex_finish(&ex);
}
