/* A cantilever beam with a friction damper at its tip, forced at the tip: the classic
 * friction damper design chart from forced periodic responses with exact Coulomb
 * friction (docs/examples/friction-damper.md).
 *
 * The beam: Euler-Bernoulli, length 1, EI = 1, rho A = 1, Hermite elements, clamped at
 * x = 0, Rayleigh damping beta K (about 0.9 % of critical at its first mode). The damper:
 * a Jenkins element, a spring k_d from the tip to a small mass m_d that rubs on a rigid
 * flat, pressed on it by a normal load N (friction mu N). With N = 0 the damper slides
 * freely (the beam's own resonance, the tip dragging m_d along); with a large N it sticks
 * and the tip is held by k_d (a stiffer resonance); in between it sticks and slips each
 * cycle, dissipating energy. The tip is forced by P cos(omega t). For each normal load the
 * frequency response curve is traced by continuation of the forced orbit in omega
 * (fcd_periodic_continue_forcing); its peak falls from the free resonance's, passes a
 * minimum at an optimal slip force and rises to the stuck resonance's.
 *
 * Checked: the free and stuck curves' peaks at the linear systems' resonances (their
 * eigenfrequencies by fcd_system_natural_modes, to the curve's resolution); the chart's
 * minimum inside the range of loads; at three points of every curve, the orbit's RMS tip
 * vibration (about its mean) against a long transient of the same forcing, scheme and step
 * from rest, within 0.5 %. */
#include <fcd/fcd.h>

#include "example.h"

#define PI 3.14159265358979323846

/* the beam's elements (--elements; 10 by default): above 48 the state has more than 200
 * unknowns and the solver shoots and continues by Newton-Krylov */
static int NEL = 10;
/* --krylov: Newton-Krylov at any size (the dense Jacobian up to 200 state unknowns
 * otherwise) */
static int krylov = 0;
#define NB (2 * (NEL + 1))
#define NDOF (NB + 2)
#define TIP (2 * NEL)
#define XD NB
#define YD (NB + 1)
static const double KD = 3.0, MD = 0.01, KY = 1.0, BETA = 0.005, P = 1.0, MU = 0.5;
static const int STEPS = 128; /* steps a period */

/* the beam, the damper's mass and spring, pressed by N; a contact set with mu */
static fcd_status model(double N, fcd_system **sys, fcd_contact_set **cs) {
  size_t cap = 16 * (size_t)NEL + 16;
  fcd_index *r = malloc(4 * cap * sizeof *r), *c = r + cap, *mr = c + cap, *mc = mr + cap;
  double *kv = malloc((2 * cap + NDOF) * sizeof *kv), *mv = kv + cap, *f = mv + cap;
  fcd_index nk = 0, nm = 0;
  double l = 1.0 / NEL;
  if (!r || !kv) {
    free(r);
    free(kv);
    return FCD_E_NOMEM;
  }
  const double ke[4][4] = {{12, 6 * l, -12, 6 * l}, {6 * l, 4 * l * l, -6 * l, 2 * l * l},
                           {-12, -6 * l, 12, -6 * l}, {6 * l, 2 * l * l, -6 * l, 4 * l * l}};
  const double me[4][4] = {{156, 22 * l, 54, -13 * l}, {22 * l, 4 * l * l, 13 * l, -3 * l * l},
                           {54, 13 * l, 156, -22 * l}, {-13 * l, -3 * l * l, -22 * l, 4 * l * l}};
  for (int e = 0; e < NEL; e++)
    for (int i = 0; i < 4; i++)
      for (int j = i; j < 4; j++) {
        r[nk] = mr[nm] = 2 * e + i;
        c[nk] = mc[nm] = 2 * e + j;
        kv[nk++] = ke[i][j] / (l * l * l);
        mv[nm++] = me[i][j] * l / 420;
      }
  /* the damper's spring between the tip and x_d, its normal spring; its mass */
  r[nk] = TIP, c[nk] = TIP, kv[nk++] = KD;
  r[nk] = TIP, c[nk] = XD, kv[nk++] = -KD;
  r[nk] = XD, c[nk] = XD, kv[nk++] = KD;
  r[nk] = YD, c[nk] = YD, kv[nk++] = KY;
  mr[nm] = mc[nm] = XD, mv[nm++] = MD;
  mr[nm] = mc[nm] = YD, mv[nm++] = MD;
  memset(f, 0, NDOF * sizeof *f);
  f[YD] = N;
  const fcd_index fixed[2] = {0, 1}, dofs[2] = {XD, YD};
  const double n[2] = {0, 1}, t[2] = {1, 0};
  fcd_status st = fcd_system_create(NDOF, sys);
  if (st == FCD_OK) st = fcd_system_set_matrix_coo(*sys, FCD_STIFFNESS, nk, r, c, kv, FCD_COO_UPPER);
  if (st == FCD_OK) st = fcd_system_set_matrix_coo(*sys, FCD_MASS, nm, mr, mc, mv, FCD_COO_UPPER);
  if (st == FCD_OK) st = fcd_system_set_rayleigh(*sys, 0, BETA);
  if (st == FCD_OK) st = fcd_system_fix_dofs(*sys, 2, fixed, NULL);
  if (st == FCD_OK) st = fcd_system_set_load(*sys, f);
  if (st == FCD_OK) st = fcd_contact_set_create(*sys, 2, cs);
  if (st == FCD_OK) st = fcd_contact_set_add_rigid(*cs, dofs, n, t, 0.0, MU, NULL);
  free(r);
  free(kv);
  return st;
}

/* the lowest eigenfrequency of the beam with the damper's x_d free (held: stuck) */
static double resonance(int stuck) {
  fcd_system *sys = NULL;
  fcd_contact_set *cs = NULL;
  double w2 = NAN;
  fcd_status st = model(0, &sys, &cs);
  fcd_contact_set_destroy(cs);
  const fcd_index held[2] = {XD, YD};
  if (st == FCD_OK) st = fcd_system_fix_dofs(sys, stuck ? 2 : 1, stuck ? held : held + 1, NULL);
  fcd_index nconv = 0;
  if (st == FCD_OK) st = fcd_system_natural_modes(sys, 1, &w2, NULL, &nconv);
  fcd_system_destroy(sys);
  return st == FCD_OK ? sqrt(w2) : NAN;
}

static int tip_load(void *ud, double t, fcd_index n, double *f) {
  (void)n;
  f[TIP] += P * cos(*(const double *)ud * t);
  return 0;
}

/* The RMS of the tip's deflection about its mean over one period from (u, v) at phase 0
 * (rms), and the same after a transient of `periods` periods from rest (rms_t), both
 * with the forcing as the system's load function, the scheme and step the orbit's */
static fcd_status rms_pair(double N, double w, const double *u, const double *v, int periods,
                           double *rms, double *rms_t) {
  fcd_system *sys = NULL;
  fcd_contact_set *cs = NULL;
  fcd_integrator *it = NULL;
  double ww = w, T = 2 * PI / w, *us = calloc(3 * (size_t)NDOF, sizeof *us), *vs = us + NDOF,
         *zero = vs + NDOF;
  if (!us) return FCD_E_NOMEM;
  fcd_status st = model(N, &sys, &cs);
  if (st == FCD_OK) st = fcd_system_set_load_fn(sys, tip_load, &ww);
  if (st == FCD_OK) st = fcd_integrator_create(sys, cs, FCD_SCHEME_MODIFIED_THETA, &it);
  if (st == FCD_OK) st = fcd_integrator_set_param(it, FCD_PARAM_STEP, T / STEPS);
  for (int pass = 0; pass < 2 && st == FCD_OK; pass++) {
    st = fcd_integrator_set_state(it, 0, pass ? zero : u, pass ? zero : v);
    int skip = pass ? periods - 1 : 0;
    for (long k = 0; k < (long)skip * STEPS && st == FCD_OK; k++) st = fcd_integrator_step(it);
    double s = 0, s2 = 0;
    for (int k = 0; k < STEPS && st == FCD_OK; k++) {
      st = fcd_integrator_step(it);
      if (st == FCD_OK) st = fcd_integrator_get_state(it, NULL, us, vs);
      s += us[TIP];
      s2 += us[TIP] * us[TIP];
    }
    double mean = s / STEPS, val = sqrt(fmax(s2 / STEPS - mean * mean, 0));
    if (pass) *rms_t = val;
    else *rms = val;
  }
  fcd_integrator_destroy(it);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
  free(us);
  return st;
}

/* the state at phase 0 after `periods` periods of the forcing from rest */
static fcd_status settle(double N, double w, int periods, double *u, double *v) {
  fcd_system *sys = NULL;
  fcd_contact_set *cs = NULL;
  fcd_integrator *it = NULL;
  double ww = w;
  memset(u, 0, NDOF * sizeof *u);
  memset(v, 0, NDOF * sizeof *v);
  fcd_status st = model(N, &sys, &cs);
  if (st == FCD_OK) st = fcd_system_set_load_fn(sys, tip_load, &ww);
  if (st == FCD_OK) st = fcd_integrator_create(sys, cs, FCD_SCHEME_MODIFIED_THETA, &it);
  if (st == FCD_OK) st = fcd_integrator_set_param(it, FCD_PARAM_STEP, 2 * PI / w / STEPS);
  if (st == FCD_OK) st = fcd_integrator_set_state(it, 0, u, v);
  for (long k = 0; k < (long)periods * STEPS && st == FCD_OK; k++) st = fcd_integrator_step(it);
  if (st == FCD_OK) st = fcd_integrator_get_state(it, NULL, u, v);
  fcd_integrator_destroy(it);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
  return st;
}

typedef struct {
  fcd_periodic *p;
  FILE *csv;
  double N;
  int count;
  double peak, peak_w;
  double w[512], amp[512];
  double *u[3], *v[3], wc[3]; /* NDOF each */
  double *lo, *hi;
} curve;

static int on_point(void *ud, double w, const fcd_periodic_info *info, const double *re,
                    const double *im, int event) {
  (void)re;
  (void)im;
  (void)event;
  curve *c = ud;
  if (fcd_periodic_get_range(c->p, c->lo, c->hi) != FCD_OK) return 1;
  double a = 0.5 * (c->hi[TIP] - c->lo[TIP]);
  if (c->count < 512) {
    c->w[c->count] = w;
    c->amp[c->count] = a;
  }
  c->count++;
  if (a > c->peak) {
    c->peak = a;
    c->peak_w = w;
    /* the peak's orbit kept for the transient check */
    fcd_periodic_get_orbit(c->p, NULL, c->u[1], c->v[1]);
    c->wc[1] = w;
  }
  fprintf(c->csv, "%.6g,%.8g,%.8g,%d,%.6g\n", c->N * MU, w, a, info->stable, info->max_multiplier);
  return 0;
}

int main(int argc, char **argv) {
  ex_run ex;
  /* --elements NEL and --krylov are this example's own options; the rest are every
   * example's */
  char **args = calloc((size_t)argc + 1, sizeof *args);
  int na = 0;
  if (!args) return 1;
  for (int i = 0; i < argc; i++) {
    if (i > 0 && !strcmp(argv[i], "--elements") && i + 1 < argc) {
      char *end = NULL;
      long ne = strtol(argv[++i], &end, 10);
      if (!end || *end || ne < 1 || ne > 5000) {
        fprintf(stderr, "friction-damper: --elements must be 1 to 5000, not %s\n", argv[i]);
        free(args);
        return 2;
      }
      NEL = (int)ne;
    } else if (i > 0 && !strcmp(argv[i], "--krylov")) {
      krylov = 1;
    } else {
      args[na++] = argv[i];
    }
  }
  int rc = ex_init(&ex, "friction-damper", na, args);
  if (rc) {
    free(args);
    return rc;
  }
  printf("beam: %d elements, %d state unknowns%s\n", NEL, 2 * (NDOF - 2),
         krylov ? ", Newton-Krylov" : "");
  double wf = resonance(0), ws = resonance(1);
  printf("resonances: free damper %.6f, stuck damper %.6f rad per unit time\n", wf, ws);
  /* the slip force mu N against the forcing's amplitude P */
  const double full[] = {0, 0.1, 0.3, 0.5, 1.2, 1.6, 2.5, 4, 1000};
  const double quick[] = {0, 1.2, 1000};
  const double *loads = ex.quick ? quick : full;
  int nl = ex.quick ? 3 : 9;
  const double w0 = 2.4, w1 = 6.0;
  FILE *csv = ex_open(&ex, "curves.csv");
  FILE *res = ex_open(&ex, "results.md");
  if (!csv || !res) return 1;
  fprintf(csv, "slip_force,omega,tip_amplitude,stable,max_multiplier\n");
  fprintf(res, "| slip force mu N / P | peak tip amplitude | at omega | points | worst RMS against the transient |\n");
  fprintf(res, "|---|---|---|---|---|\n");
  double peaks[16], peak_w[16];
  for (int q = 0; q < nl; q++) {
    double N = loads[q] / MU;
    fcd_system *sys = NULL;
    fcd_contact_set *cs = NULL;
    fcd_periodic *p = NULL;
    curve *c = calloc(1, sizeof *c);
    double *buf = calloc(10 * (size_t)NDOF, sizeof *buf);
    if (!c || !buf) return 1;
    for (int k = 0; k < 3; k++) {
      c->u[k] = buf + (2 * k) * NDOF;
      c->v[k] = buf + (2 * k + 1) * NDOF;
    }
    c->lo = buf + 6 * NDOF;
    c->hi = buf + 7 * NDOF;
    const fcd_index tip = TIP;
    double T = 2 * PI / w0, *u = buf + 8 * NDOF, *v = buf + 9 * NDOF;
    fcd_status st = model(N, &sys, &cs);
    if (st == FCD_OK) st = fcd_periodic_create(sys, cs, FCD_SCHEME_MODIFIED_THETA, &p);
    if (st == FCD_OK) st = fcd_periodic_set_param(p, FCD_PARAM_STEP, T / STEPS);
    if (st == FCD_OK && krylov)
      st = fcd_periodic_set_param(p, FCD_PERIODIC_PARAM_JACOBIAN, FCD_PERIODIC_JACOBIAN_KRYLOV);
    if (st == FCD_OK) st = fcd_periodic_set_harmonic_forcing(p, w0, 1, &tip, &P, NULL);
    /* the guess: the state at phase 0 after a transient of 20 periods from rest (a stuck
     * or slipping damper's orbit is far from rest for Newton's first steps) */
    if (st == FCD_OK) st = settle(N, w0, 20, u, v);
    if (st == FCD_OK) st = fcd_periodic_solve(p, u, v, T);
    c->p = p;
    c->csv = csv;
    c->N = N;
    double t_curve = 0, t_check = 0;
    long periods_curve = 0, periods_check = 0;
    if (st == FCD_OK) {
      fcd_periodic_get_orbit(p, NULL, c->u[0], c->v[0]);
      c->wc[0] = w0;
      double t0 = ex_now();
      st = fcd_periodic_continue_forcing(p, FCD_PERIODIC_CONTINUE_OMEGA, w1, 0.04, 400,
                                         on_point, c);
      t_curve = ex_now() - t0;
      fcd_periodic_info in;
      if (fcd_periodic_get_info(p, &in) == FCD_OK) periods_curve = (long)in.evaluations;
    }
    if (st == FCD_OK) {
      fcd_periodic_get_orbit(p, NULL, c->u[2], c->v[2]);
      c->wc[2] = c->w[c->count < 512 ? c->count - 1 : 511];
    }
    if (st != FCD_OK) {
      fprintf(stderr, "friction-damper: slip force %g: %s\n", loads[q],
              fcd_system_last_error(sys));
      ex_check(&ex, 0, "slip force %g: the curve", loads[q]);
    }
    /* three points against long transients: the curve's start, its peak, its end */
    double worst = 0;
    for (int k = 0; k < 3 && st == FCD_OK; k++) {
      double r = 0, rt = 0;
      /* enough periods for the slowest free decay, the lowest mode's: 1 / (zeta omega_1)
       * with zeta = beta omega_1 / 2, 2 / (beta omega_1^2) time units, nine times over */
      int periods = (int)ceil(9 * 2 / (BETA * wf * wf) / (2 * PI / c->wc[k])) + 2;
      double t0 = ex_now();
      st = rms_pair(N, c->wc[k], c->u[k], c->v[k], periods, &r, &rt);
      t_check += ex_now() - t0;
      periods_check += periods + 1;
      if (st == FCD_OK) worst = fmax(worst, fabs(rt / r - 1));
    }
    ex_check(&ex, st == FCD_OK && worst <= 5e-3, "slip force %.2f P: the orbits' RMS tip "
             "vibration within %.2e of long transients' (0.5 %%)", loads[q], worst);
    peaks[q] = st == FCD_OK ? c->peak : INFINITY;
    peak_w[q] = st == FCD_OK ? c->peak_w : NAN;
    char name[32];
    if (loads[q] >= 1000) snprintf(name, sizeof name, "stuck (%g)", loads[q]);
    else if (loads[q] == 0) snprintf(name, sizeof name, "0 (free)");
    else snprintf(name, sizeof name, "%g", loads[q]);
    fprintf(res, "| %s | %.4f | %.3f | %d | %.1e |\n", name, c->peak, c->peak_w, c->count,
            worst);
    printf("slip force %.2f P: peak %.5f at omega %.4f (%d points); the curve %.2f s, %ld "
           "periods (%.3f s, %.0f periods a point); the three transient checks %.2f s for %ld "
           "periods (%.2f s a transient)\n", loads[q], c->peak, c->peak_w, c->count, t_curve,
           periods_curve, c->count ? t_curve / c->count : 0.0,
           c->count ? (double)periods_curve / c->count : 0.0, t_check, periods_check,
           t_check / 3);
    fprintf(csv, "\n\n"); /* a data block per curve (gnuplot's index) */
    free(c);
    free(buf);
    fcd_periodic_destroy(p);
    fcd_contact_set_destroy(cs);
    fcd_system_destroy(sys);
  }
  /* the free and stuck peaks at the linear resonances, to the curve's resolution */
  ex_check(&ex, fabs(peak_w[0] / wf - 1) <= 0.01, "free damper: the peak at %.4f, the "
           "resonance %.4f", peak_w[0], wf);
  ex_check(&ex, fabs(peak_w[nl - 1] / ws - 1) <= 0.01, "stuck damper: the peak at %.4f, the "
           "resonance %.4f", peak_w[nl - 1], ws);
  int best = 0;
  for (int q = 1; q < nl; q++)
    if (peaks[q] < peaks[best]) best = q;
  ex_check(&ex, best > 0 && best < nl - 1, "the lowest peak (%.4f) at an intermediate slip "
           "force, %.2f P: below the free (%.4f) and the stuck (%.4f) ones", peaks[best],
           loads[best], peaks[0], peaks[nl - 1]);
  fclose(csv);
  fclose(res);
  FILE *ch = ex_open(&ex, "chart.csv");
  if (!ch) return 1;
  fprintf(ch, "slip_force,peak_tip_amplitude,omega\n");
  for (int q = 0; q < nl; q++)
    fprintf(ch, "%.6g,%.8g,%.8g\n", loads[q] >= 1000 ? 10.0 : loads[q], peaks[q], peak_w[q]);
  fclose(ch);
  ex_plot(&ex, "curves.png",
          "set datafile separator ','\nset grid\nset logscale y\nset key outside right font ',9'\n"
          "set xlabel 'forcing frequency omega'\nset ylabel 'tip amplitude / (P L^3 / EI)'\n"
          "set title 'Frequency response curves, slip force mu N / P from free to stuck'\n"
          "plot for [i=0:%d] '%s/curves.csv' index i every ::1 u 2:3 w l lw 2 "
          "t sprintf('mu N / P = %%s', word('%s', i+1))",
          nl - 1, ex.out, ex.quick ? "0 1.2 stuck" : "0 0.1 0.3 0.5 1.2 1.6 2.5 4 stuck");
  ex_plot(&ex, "chart.png",
          "set datafile separator ','\nset grid\nset logscale y\nset key off\n"
          "set xlabel 'slip force mu N / P (10: stuck)'\nset ylabel 'peak tip amplitude'\n"
          "set title 'Friction damper design chart'\n"
          "plot '%s/chart.csv' every ::1 u 1:2 w lp lw 2 pt 7", ex.out);
  free(args);
  return ex_finish(&ex);
}
