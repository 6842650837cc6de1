/* Seed 003 (Sinou, Chiello and Charroyer 2019), section 4: a simplified TGV brake, a
 * disc with its bell (hub) and twelve small cylindrical pins, six on each side, pressed
 * by an imposed displacement while the disc turns. The stability of the sliding
 * equilibrium is swept over the friction coefficient (the paper's Figs. 5-7).
 *
 * The paper gives no geometry, mesh or boundary conditions (its Fig. 4 is a picture):
 * this program builds its own and says so (docs/examples/brake-squeal.md). Materials,
 * damping and the imposed displacement are Table 1's:
 *   disc and hub: E = 210 GPa, nu = 0.28, rho = 7850, Rayleigh alpha = 7.5 s^-1,
 *                 beta = 1e-7 s;
 *   pins:         E = 2 GPa, nu = 0.3, rho = 5000, alpha = 135 s^-1, beta = 1.8e-6 s;
 *   the pins' outer faces pushed 1.6e-6 m towards the disc.
 * Geometry (ours): a solid annulus r in [0.20, 0.32] m, 45 mm thick; a bell, a tube
 * r in [0.200, 0.215] m and 0.1 m long under the disc's inner edge, clamped at its far
 * end; pins 20 mm high on 30 x 26 mm sector footprints, in two rows (r = 0.23-0.26 and
 * 0.275-0.305 m) of three (at -22.5, 0, 22.5 degrees), on both faces. Trilinear
 * hexahedra; the pins' contact faces match the disc's surface nodes (node-to-node
 * pairs). The disc turns at 100 rad/s (27 m/s at mid radius; not given in the paper).
 *
 * Per part Rayleigh damping makes C an explicit matrix, so the damped eigenvalues near
 * the squeal band come from fcd's modal projection (fcd_stability.h). */
#include <fcd/fcd.h>

#include "example.h"

#include <time.h>

#include "brake_model.h"

/* the sweep's rows, and per track the first friction coefficient where Re > 0 */
typedef struct {
  FILE *csv;
  int ntr;
  long track[256];
  double prev_mu[256], prev_re[256], crit[256], crit_hz[256];
  int stable_at_zero;
  int first_row;
} chart;

static int chart_row(void *ud, double mu, fcd_index n, const double *re, const double *im,
                     const fcd_index *track) {
  chart *c = ud;
  int all_stable = 1;
  for (fcd_index i = 0; i < n; i++) {
    if (im[i] < 0) continue;
    double hz = im[i] / (2 * 3.14159265358979);
    fprintf(c->csv, "%.4f,%lld,%.6e,%.3f\n", mu, (long long)track[i], re[i], hz);
    all_stable &= re[i] <= 0;
    int t = -1;
    for (int k = 0; k < c->ntr; k++)
      if (c->track[k] == track[i]) t = k;
    if (t < 0 && c->ntr < 256) {
      t = c->ntr++;
      c->track[t] = track[i];
      c->crit[t] = NAN;
      c->prev_mu[t] = NAN;
    }
    if (t < 0) continue;
    if (isnan(c->crit[t]) && re[i] > 0) {
      /* linear interpolation of the crossing between the previous and this coefficient */
      c->crit[t] = isnan(c->prev_mu[t]) ? mu
                   : c->prev_mu[t] + (mu - c->prev_mu[t]) * (-c->prev_re[t]) / (re[i] - c->prev_re[t]);
      c->crit_hz[t] = hz;
    }
    c->prev_mu[t] = mu;
    c->prev_re[t] = re[i];
  }
  if (c->first_row) c->stable_at_zero = all_stable;
  c->first_row = 0;
  return 0;
}

/* the largest real part at one friction coefficient with a given projection basis */
static fcd_status largest(fcd_stability *sa, double mu, double modes, double *re, double *hz) {
  fcd_status st = fcd_stability_set_param(sa, FCD_STAB_MU, mu);
  if (st == FCD_OK) st = fcd_stability_set_param(sa, FCD_STAB_PROJECTION_MODES, modes);
  if (st == FCD_OK) st = fcd_stability_solve(sa, NULL);
  double im = 0;
  if (st == FCD_OK) st = fcd_stability_get_eigenvalue(sa, 0, re, &im);
  *hz = fabs(im) / (2 * 3.14159265358979);
  fcd_stability_set_param(sa, FCD_STAB_MU, -1);
  return st;
}

/* ---- the transient (seed 003 section 4.3): modified theta scheme from the sliding
 * equilibrium plus a small multiple of the most unstable mode ---- */
typedef struct {
  FILE *csv;
  fcd_index mon;      /* monitored dof: the normal displacement of a pin face node */
  double *sig;        /* its history, one entry per step */
  long nsig, cap;
  double h;
  fcd_integrator *it;
  long k;
  int max_open;
  double *en;         /* mechanical energy every 10 steps */
  long nen;
  /* the ParaView series: the whole run every `every` steps, its end every 2 steps from
   * step end_from on; a failed frame is kept in fail */
  fcd_series *all, *end;
  long every, end_from;
  fcd_status fail;
} tr_watch;

static int tr_obs(void *ud, double t, fcd_index n, const double *u, const double *v,
                  fcd_index nl, const double *r, const fcd_contact_counts *cc) {
  (void)n; (void)v;
  tr_watch *w = ud;
  double ft = 0;
  for (fcd_index c = 0; c + 2 < nl; c += 3) ft += r[c + 1];
  if (w->nsig < w->cap) w->sig[w->nsig++] = u[w->mon];
  if ((int)cc->open > w->max_open) w->max_open = (int)cc->open;
  if (w->k++ % 10 == 0) {
    fcd_energy e;
    fcd_integrator_get_energy(w->it, &e);
    fprintf(w->csv, "%.7f,%.6e,%.6e,%.4f,%d,%d,%d\n", t, u[w->mon], e.kinetic + e.potential, ft,
            (int)cc->open, (int)cc->stick, (int)cc->slip);
    if (w->nen < w->cap / 10 + 1) w->en[w->nen++] = e.kinetic + e.potential;
  }
  /* w->k counts this step now */
  if (w->all && w->k % w->every == 0 && w->fail == FCD_OK)
    w->fail = fcd_series_write_integrator(w->all, w->it);
  if (w->end && w->k >= w->end_from && (w->k - w->end_from) % 2 == 0 && w->fail == FCD_OK)
    w->fail = fcd_series_write_integrator(w->end, w->it);
  return w->fail != FCD_OK;
}

/* the brake's mesh for VTK: its nodes (node p owns dofs 3p .. 3p + 2) and hexahedra */
static fcd_mesh *brake_mesh(const brake *b, fcd_system *sys) {
  fcd_mesh *m = NULL;
  if (fcd_mesh_create(sys, 3, b->m.nn, b->m.x, NULL, &m) != FCD_OK) return NULL;
  if (fcd_mesh_add_cells(m, FCD_VTK_HEXAHEDRON, b->m.ne, b->m.conn) != FCD_OK) {
    fcd_mesh_destroy(m);
    return NULL;
  }
  return m;
}

/* OUT/squeal-mode.pvd: the most unstable mode (re, im; eigenvalue lr + i li) animated
 * over its period, 24 frames, the coefficient in the field data */
static fcd_status mode_series(const ex_run *ex, const fcd_mesh *m, double mu, const double *re,
                              const double *im, double lr, double li) {
  fcd_series *s = NULL;
  fcd_status st = fcd_series_create(m, NULL, ex->out, "squeal-mode", &s);
  if (st == FCD_OK) st = fcd_series_set_field(s, "mu", mu);
  if (st == FCD_OK) st = fcd_series_write_mode(s, re, im, lr, li, 24);
  fcd_series_destroy(s);
  return st;
}

/* the frequency of the largest peak of |DFT| of x (n samples, step h) between f0 and f1 */
/* the power of x (n samples h apart, mean removed, Hann window) at frequency f */
static double spec_power(const double *x, long n, double h, double mean, double f) {
  double re = 0, im = 0;
  for (long i = 0; i < n; i++) {
    double w = 2 * 3.14159265358979 * f * i * h, hann = 0.5 - 0.5 * cos(2 * 3.14159265358979 * i / (n - 1));
    re += hann * (x[i] - mean) * cos(w);
    im += hann * (x[i] - mean) * sin(w);
  }
  return re * re + im * im;
}

static double peak_hz(const double *x, long n, double h, double f0, double f1) {
  double mean = 0, best = 0, fbest = NAN;
  for (long i = 0; i < n; i++) mean += x[i] / n;
  double df = 1.0 / (n * h) / 4; /* zero-padded resolution */
  for (double f = f0; f <= f1; f += df) {
    double a = spec_power(x, n, h, mean, f);
    if (a > best) {
      best = a;
      fbest = f;
    }
  }
  return fbest;
}

/* the peak refined between the grid's neighbours by golden section on the power: a
 * periodic signal's frequency to far below the bin (the shooting check's 0.1 %) */
static double peak_refined(const double *x, long n, double h, double f0, double f1) {
  double mean = 0, g = (sqrt(5.0) - 1) / 2, fp = peak_hz(x, n, h, f0, f1);
  for (long i = 0; i < n; i++) mean += x[i] / n;
  double df = 1.0 / (n * h) / 4, a = fp - df, b = fp + df;
  double c = b - g * (b - a), d = a + g * (b - a);
  double pc = spec_power(x, n, h, mean, c), pd = spec_power(x, n, h, mean, d);
  while (b - a > 1e-7 * fp) {
    if (pc > pd) {
      b = d, d = c, pd = pc;
      c = b - g * (b - a), pc = spec_power(x, n, h, mean, c);
    } else {
      a = c, c = d, pc = pd;
      d = a + g * (b - a), pd = spec_power(x, n, h, mean, d);
    }
  }
  return (a + b) / 2;
}

static double rms_about_mean(const double *x, long n) {
  double m = 0, s = 0;
  for (long i = 0; i < n; i++) m += x[i] / n;
  for (long i = 0; i < n; i++) s += (x[i] - m) * (x[i] - m);
  return sqrt(s / n);
}

/* ---- the limit cycle through a reduced model, by its transient and by shooting (issues
 * 66 and 68): the brake reduced with its contact dofs kept (fcd_reduction: the pins' and
 * the disc's contact dofs and the pins' pushed dofs physical, fixed-interface modes for
 * the rest), its transient from the same start until it settles on the cycle, then
 * fcd_periodic from the transient's last state with the spectrum's period. The orbit's
 * frequency and the monitored node's RMS over one period against the transient's last
 * window. ---- */
typedef struct {
  const fcd_reduction *red;
  fcd_index mon; /* the monitored dof, in the full numbering: read through red */
  double *un;
  long n, cap;
} red_watch;

static int red_obs(void *ud, double t, fcd_index n, const double *u, const double *v,
                   fcd_index nl, const double *r, const fcd_contact_counts *cc) {
  (void)t; (void)n; (void)v; (void)nl; (void)r; (void)cc;
  red_watch *w = ud;
  if (w->n < w->cap && fcd_reduction_expand_dofs(w->red, u, 1, &w->mon, w->un + w->n) != FCD_OK)
    return 1;
  w->n += w->n < w->cap;
  return 0;
}

/* steps of h from (u, v) at t = 0 to t_end on the reduced model, the monitored dof into
 * w; (u, v) become the last state */
static fcd_status red_run(fcd_system *rs, fcd_contact_set *rcs, double h, double t_end,
                          long nsteps, red_watch *w, double *u, double *v) {
  fcd_integrator *it = NULL;
  fcd_status st = fcd_integrator_create(rs, rcs, FCD_SCHEME_MODIFIED_THETA, &it);
  if (st == FCD_OK) st = fcd_integrator_set_param(it, FCD_PARAM_STEP, h);
  if (st == FCD_OK) st = fcd_integrator_set_state(it, 0.0, u, v);
  if (st == FCD_OK) st = fcd_integrator_set_observer(it, red_obs, w);
  if (nsteps > 0)
    for (long k = 0; k < nsteps && st == FCD_OK; k++) st = fcd_integrator_step(it);
  else if (st == FCD_OK)
    st = fcd_integrator_advance(it, t_end);
  if (st == FCD_OK) st = fcd_integrator_get_state(it, NULL, u, v);
  fcd_integrator_destroy(it);
  return st;
}

static void reduced_cycle(ex_run *ex, brake *b2, const double *ue, double h, double fmode,
                          fcd_index mon) {
  long nmodes = ex->quick ? 40 : 200;
  double tend = ex->quick ? 0.1 : 0.6, win = ex->quick ? 0.05 : 0.06;
  if (getenv("BRAKE_RED_TEND")) tend = atof(getenv("BRAKE_RED_TEND"));
  if (getenv("BRAKE_RED_MODES")) nmodes = atol(getenv("BRAKE_RED_MODES"));
  fcd_reduction *red = NULL;
  double t0 = ex_now();
  /* modal coordinates: the same reduced model, its step's products and solves diagonal */
  fcd_status st = fcd_reduction_create_modal(b2->sys, b2->cs, nmodes, &red);
  double t_red = ex_now() - t0;
  if (st != FCD_OK) {
    ex_check(ex, 0, "reduction: %s", fcd_system_last_error(b2->sys));
    return;
  }
  fcd_index nk = 0, nm = 0;
  double fmax_hz = 0;
  fcd_reduction_get_info(red, &nk, &nm, &fmax_hz, NULL);
  fcd_index *kept = malloc(sizeof *kept * (size_t)nk);
  fcd_reduction_get_info(red, NULL, NULL, NULL, kept);
  fcd_system *rs = fcd_reduction_system(red);
  fcd_contact_set *rcs = fcd_reduction_contact_set(red);
  fcd_index nr = fcd_system_ndofs(rs);
  red_watch w = {red, -1, NULL, 0, (long)(tend / h) + 10};
  for (fcd_index j = 0; j < nk; j++)
    if (kept[j] == mon) w.mon = mon;
  w.un = malloc(sizeof *w.un * (size_t)w.cap);
  double *u = malloc(sizeof *u * (size_t)nr), *v = calloc((size_t)nr, sizeof *v);
  printf("reduced model: %lld kept dofs and %lld modes (up to %.0f Hz), %lld modal "
         "coordinates, reduced in %.1f s\n", (long long)nk, (long long)nm, fmax_hz,
         (long long)nr, t_red);
  ex_check(ex, w.mon >= 0, "the monitored pin node's dofs are kept physical");
  st = fcd_reduction_restrict(red, ue, u);
  t0 = ex_now();
  if (st == FCD_OK && w.mon >= 0) st = red_run(rs, rcs, h, tend, 0, &w, u, v);
  double t_tr = ex_now() - t0;
  fcd_periodic *p = NULL;
  fcd_periodic_info in;
  memset(&in, 0, sizeof in);
  long nw = (long)(win / h);
  double fpk = NAN, rms_tr = NAN, T = NAN, t_sh = 0;
  fcd_status ss = FCD_OK;
  if (st == FCD_OK && w.n > nw) {
    fpk = peak_refined(w.un + w.n - nw, nw, h, 0.5 * fmode, 1.5 * fmode);
    rms_tr = rms_about_mean(w.un + w.n - nw, nw);
    printf("  reduced transient to %.2f s: %ld steps in %.1f s (%.2f ms a step); last %.0f "
           "ms: %.3f Hz, RMS u_n %.4e m\n", tend, w.n, t_tr, 1e3 * t_tr / w.n, 1e3 * win,
           fpk, rms_tr);
    t0 = ex_now();
    st = fcd_periodic_create(rs, rcs, FCD_SCHEME_MODIFIED_THETA, &p);
    if (st == FCD_OK) st = fcd_periodic_set_param(p, FCD_PARAM_STEP, h);
    if (st == FCD_OK) st = fcd_periodic_set_param(p, FCD_PERIODIC_PARAM_MAX_ITER, 10);
    /* quick: Newton to 1e-7 (the checks ask 1e-3 and 1e-2 of the orbit), at most 60 GMRES
     * steps an iteration and 20 Arnoldi steps for the multipliers: 358 periods instead
     * of 896 with the defaults, the same orbit to 1e-9 in T */
    if (st == FCD_OK && ex->quick) st = fcd_periodic_set_param(p, FCD_PERIODIC_PARAM_TOL, 1e-7);
    if (st == FCD_OK && ex->quick)
      st = fcd_periodic_set_param(p, FCD_PERIODIC_PARAM_KRYLOV_MAX, 60);
    if (st == FCD_OK && ex->quick)
      st = fcd_periodic_set_param(p, FCD_PERIODIC_PARAM_MULTIPLIERS, 20);
    ss = st == FCD_OK ? fcd_periodic_solve(p, u, v, 1.0 / fpk) : st;
    t_sh = ex_now() - t0;
    if (st == FCD_OK) st = fcd_periodic_get_info(p, &in);
    if (st == FCD_OK) st = fcd_periodic_get_orbit(p, &T, u, v);
  }
  ex_check(ex, st == FCD_OK && ss == FCD_OK && in.converged, "the limit cycle by shooting "
           "(Newton-Krylov on %lld state unknowns): %s", (long long)(2 * (nr - fcd_system_num_fixed(rs))),
           ss == FCD_OK && st == FCD_OK ? "converged" : fcd_system_last_error(rs));
  if (st == FCD_OK && ss == FCD_OK && in.converged) {
    /* one period of the orbit, its own steps, for the RMS */
    w.n = 0;
    st = red_run(rs, rcs, T / (double)in.steps, T, in.steps, &w, u, v);
    double rms_orb = st == FCD_OK ? rms_about_mean(w.un, w.n) : NAN;
    printf("  shooting: %.1f s, %lld Newton iterations, %lld periods of %lld steps, residual "
           "%.1e, T = %.9e s (%.3f Hz), RMS u_n %.4e m; largest non-trivial multiplier %.4f "
           "(trivial one off by %.1e)\n", t_sh, (long long)in.iterations,
           (long long)in.evaluations, (long long)in.steps, in.residual, T, 1 / T, rms_orb,
           in.max_multiplier, in.trivial_error);
    /* checks, not rows of the page's table: the orbits Newton lands on from nearby
     * starts differ by up to 1.3 % in RMS on this coarse model (its page), so the
     * figures move between machines more than the table's 1 % while the checks hold */
    ex_check(ex, fabs(1 / T / fpk - 1) <= 1e-3, "reduced model: the orbit's frequency by "
             "shooting, %.3f Hz, against the transient's spectrum peak, %.3f Hz (relative "
             "difference %.1e, tolerance 1e-3)", 1 / T, fpk, fabs(1 / T / fpk - 1));
    ex_check(ex, fabs(rms_orb / rms_tr - 1) <= 1e-2, "reduced model: the monitored node's "
             "RMS u_n over the orbit, %.4e m, against the transient's last window, %.4e m "
             "(relative difference %.1e, tolerance 1e-2)", rms_orb, rms_tr,
             fabs(rms_orb / rms_tr - 1));
  }
  fcd_periodic_destroy(p);
  fcd_reduction_destroy(red);
  free(kept); free(w.un); free(u); free(v);
}

int main(int argc, char **argv) {
  ex_run ex;
  int rc = ex_init(&ex, "brake-squeal", argc, argv);
  if (rc) return rc;
  int nr = ex.quick ? 8 : 8, nt = ex.quick ? 64 : 192, nz = ex.quick ? 2 : 3;
  brake b;
  double mu = 0.2;
  if (brake_build(&b, nr, nt, nz, mu) != FCD_OK) return 1;
  fcd_index ndofs = fcd_system_ndofs(b.sys), nfix = fcd_system_num_fixed(b.sys);
  printf("model: %lld nodes, %d hexahedra, %lld dofs (%lld prescribed), %lld contact pairs "
         "(%lld contact dofs per side)\n", (long long)b.m.nn, b.m.ne, (long long)ndofs,
         (long long)nfix, (long long)b.ncont, (long long)(3 * b.ncont));
  /* the sliding equilibrium at mu = 0.2 */
  fcd_equilibrium *eq = NULL;
  fcd_status st = fcd_equilibrium_create(b.sys, b.cs, &eq);
  if (st == FCD_OK) st = fcd_equilibrium_solve(eq, FCD_EQ_STEADY_SLIDING, 0.0);
  int *status = malloc(sizeof *status * (size_t)b.ncont);
  double *slip = malloc(sizeof *slip * 2 * (size_t)b.ncont), *r = malloc(sizeof *r * 3 * (size_t)b.ncont);
  double *rn = malloc(sizeof *rn * (size_t)b.ncont);
  if (st == FCD_OK) st = fcd_equilibrium_get_contact_state(eq, status, slip);
  if (st == FCD_OK) st = fcd_equilibrium_get_reactions(eq, r);
  if (st != FCD_OK) {
    ex_check(&ex, 0, "sliding equilibrium: %s", fcd_system_last_error(b.sys));
    return ex_finish(&ex);
  }
  double fn = 0, ft = 0;
  int nslip = 0;
  for (fcd_index c = 0; c < b.ncont; c++) {
    rn[c] = r[3 * c];
    fn += r[3 * c];
    ft += r[3 * c + 1];
    nslip += status[c] == FCD_CONTACT_SLIP;
  }
  printf("sliding equilibrium at mu = 0.2: %d of %lld pairs slip, normal force %.1f N, "
         "braking force %.1f N\n", nslip, (long long)b.ncont, -fn, ft);
  ex_check(&ex, nslip == b.ncont, "every pin node slides (the paper: no sticking at this speed)");
  ex_close(&ex, "braking force = mu x normal force", fabs(ft), 0.2 * fabs(fn), 1e-9);
  /* stability chart over mu */
  fcd_stability *sa = NULL;
  if (st == FCD_OK) st = fcd_stability_create(b.sys, b.cs, &sa);
  if (st == FCD_OK) st = fcd_stability_set_contact_state(sa, status, slip);
  if (st == FCD_OK) st = fcd_stability_set_sliding_data(sa, rn, b.vg);
  if (st == FCD_OK) st = fcd_stability_set_param(sa, FCD_STAB_TARGET_HZ, 3000);
  if (st == FCD_OK) st = fcd_stability_set_param(sa, FCD_STAB_NEV, ex.quick ? 10 : 20);
  if (st == FCD_OK) st = fcd_stability_set_param(sa, FCD_STAB_DENSE_MAX, 0);
  static chart ch;
  ch.csv = ex_open(&ex, "chart.csv");
  ch.first_row = 1;
  if (!ch.csv) return 1;
  fprintf(ch.csv, "mu,track,re,freq_hz\n");
  if (st == FCD_OK) st = fcd_stability_sweep(sa, 0.0, 0.5, ex.quick ? 6 : 26, chart_row, &ch);
  fclose(ch.csv);
  if (st != FCD_OK) ex_check(&ex, 0, "stability sweep: %s", fcd_system_last_error(b.sys));
  else {
    ex_check(&ex, ch.stable_at_zero, "without friction every mode near the band is stable "
             "(damped)");
    /* the unstable tracks in order of their critical coefficient */
    int order[256], nu = 0;
    for (int k = 0; k < ch.ntr; k++)
      if (!isnan(ch.crit[k])) order[nu++] = k;
    for (int a = 0; a < nu; a++)
      for (int q = a + 1; q < nu; q++)
        if (ch.crit[order[q]] < ch.crit[order[a]]) {
          int tmp = order[a];
          order[a] = order[q];
          order[q] = tmp;
        }
    const double paper_mu[2] = {0.16, 0.26}, paper_hz[2] = {3380, 2294};
    for (int a = 0; a < nu && a < 4; a++) {
      printf("  unstable mode %d: from mu = %.3f at %.0f Hz", a + 1, ch.crit[order[a]],
             ch.crit_hz[order[a]]);
      if (a < 2) printf(" (paper: mu = %.2f, %.0f Hz)", paper_mu[a], paper_hz[a]);
      printf("\n");
    }
    ex_check(&ex, nu >= (ex.quick ? 0 : 2), "%d modes become unstable for mu in [0, 0.5] (the "
             "paper: 2, by mode coupling)", nu);
    /* the projection's truncation: the most unstable eigenvalue at mu = 0.45 with the
     * default basis and with three times as many modes */
    if (!ex.quick) {
      double r1, f1, r3, f3;
      if (largest(sa, 0.45, 0, &r1, &f1) == FCD_OK && largest(sa, 0.45, 120, &r3, &f3) == FCD_OK) {
        ex_close(&ex, "mu = 0.45: frequency of the most unstable mode, 40 against 120 projection modes",
                 f1, f3, 1e-4);
        ex_close(&ex, "mu = 0.45: its growth rate (s^-1), 40 against 120 modes", r1, r3, 0.02);
      }
    }
    ex_plot(&ex, "stability-chart.png",
            "set terminal pngcairo size 1200,500 font ',11'\nset output '%s/stability-chart.png'\n"
            "set multiplot layout 1,2 title 'Brake (disc, bell, 12 pins; %lld dofs): stability of "
            "the sliding equilibrium'\n"
            "set datafile separator ','\nset grid\nunset key\nset xlabel 'friction coefficient mu'\n"
            "set ylabel 'Re(lambda) (s^{-1})'\nset yrange [-60:*]\n"
            "plot '%s/chart.csv' u 1:3:2 every ::1 w p pt 7 ps 0.6 lc variable, 0 w l lc rgb 'black'\n"
            "set ylabel 'frequency (Hz) (red: unstable)'\nset yrange [*:*]\n"
            "plot '%s/chart.csv' u 1:($3 > 0 ? 1/0 : $4) every ::1 w p pt 7 ps 0.6 lc rgb '#1f77b4',"
            " '' u 1:($3 > 0 ? $4 : 1/0) every ::1 w p pt 7 ps 0.9 lc rgb '#d62728'\n"
            "unset multiplot\n", ex.out, (long long)ndofs, ex.out, ex.out);
  }
  /* ---- the transient ---- */
  /* quick (the test): a coarser step, enough for the growth to open contacts */
  double mu_tr = 0.45, tend = 0.03, h = ex.quick ? 2e-5 : 1e-5;
  if (!ex.quick) tend = 0.3;
  if (getenv("BRAKE_TEND")) tend = atof(getenv("BRAKE_TEND"));
  if (st == FCD_OK) {
    double re0 = 0, im0 = 0, fmode;
    st = fcd_stability_set_param(sa, FCD_STAB_MU, mu_tr);
    if (st == FCD_OK) st = fcd_stability_set_param(sa, FCD_STAB_PROJECTION_MODES, 0);
    if (st == FCD_OK) st = fcd_stability_solve(sa, NULL);
    if (st == FCD_OK) st = fcd_stability_get_eigenvalue(sa, 0, &re0, &im0);
    fmode = fabs(im0) / (2 * 3.14159265358979);
    double *ue = malloc(sizeof *ue * (size_t)ndofs), *mr = malloc(sizeof *mr * (size_t)ndofs);
    double *mi = malloc(sizeof *mi * (size_t)ndofs), *v0 = calloc((size_t)ndofs, sizeof *v0);
    brake b2;
    memset(&b2, 0, sizeof b2);
    fcd_equilibrium *eq2 = NULL;
    fcd_integrator *it = NULL;
    if (st == FCD_OK) st = fcd_stability_get_mode(sa, 0, mr, mi);
    if (st == FCD_OK) st = brake_build(&b2, nr, nt, nz, mu_tr);
    fcd_mesh *vmesh = st == FCD_OK ? brake_mesh(&b2, b2.sys) : NULL;
    if (st == FCD_OK && !vmesh) st = FCD_E_NOMEM;
    if (st == FCD_OK) st = mode_series(&ex, vmesh, mu_tr, mr, mi, re0, im0);
    if (st == FCD_OK) st = fcd_equilibrium_create(b2.sys, b2.cs, &eq2);
    if (st == FCD_OK) st = fcd_equilibrium_solve(eq2, FCD_EQ_STEADY_SLIDING, 0.0);
    if (st == FCD_OK) st = fcd_equilibrium_get_state(eq2, ue);
    printf("transient at mu = %.2f: most unstable mode %.1f Hz, growth %.2f s^-1\n", mu_tr, fmode, re0);
    /* the mode (unit largest component) scaled to a tenth of the pins' compression */
    for (fcd_index i = 0; i < ndofs && st == FCD_OK; i++)
      if (!isnan(mr[i])) ue[i] += 0.1 * UPIN * mr[i];
    if (st == FCD_OK) st = fcd_integrator_create(b2.sys, b2.cs, FCD_SCHEME_MODIFIED_THETA, &it);
    if (st == FCD_OK) st = fcd_integrator_set_param(it, FCD_PARAM_STEP, h);
    /* NSGS with the exact per-contact solve: twice as fast here as the seed's fixed point */
    if (st == FCD_OK) st = fcd_integrator_set_param(it, FCD_PARAM_CONTACT_SOLVER, FCD_FC_AUTO);
    if (st == FCD_OK) st = fcd_integrator_set_state(it, 0.0, ue, v0);
    tr_watch w = {ex_open(&ex, "transient.csv"), 0, NULL, 0, 0, h, it, 0, 0, NULL, 0,
                  NULL, NULL, 0, 0, FCD_OK};
    w.cap = (long)(tend / h) + 10;
    /* the series: the whole run every 10 ms (1.5 ms quick), its last millisecond (0.5 ms
     * quick) every 2 steps, about 7 frames a period of the squeal */
    long nsteps = lround(tend / h);
    w.every = lround((ex.quick ? 1.5e-3 : 1e-2) / h);
    w.end_from = nsteps - lround((ex.quick ? 5e-4 : 1e-3) / h);
    if (st == FCD_OK) st = fcd_series_create(vmesh, b2.cs, ex.out, "transient", &w.all);
    if (st == FCD_OK) st = fcd_series_create(vmesh, b2.cs, ex.out, "transient-end", &w.end);
    if (st == FCD_OK) st = fcd_series_write_integrator(w.all, it);
    w.sig = malloc(sizeof *w.sig * (size_t)w.cap);
    w.en = malloc(sizeof *w.en * (size_t)(w.cap / 10 + 2));
    /* the monitored node: the centre of the first top pin's face, its normal dof */
    w.mon = 3 * b2.m.pin[(size_t)6 * 60 + 5] + 2;
    if (w.csv) fprintf(w.csv, "t,u_monitor,energy,braking_force,open,stick,slip\n");
    if (st == FCD_OK) st = fcd_integrator_set_observer(it, tr_obs, &w);
    clock_t c0 = clock();
    if (st == FCD_OK) st = fcd_integrator_advance(it, tend);
    double secs = (double)(clock() - c0) / CLOCKS_PER_SEC;
    if (w.csv) fclose(w.csv);
    /* the series' last frames are written in the background: their outcome counts */
    if (st == FCD_OK) st = fcd_series_flush(w.all);
    if (st == FCD_OK) st = fcd_series_flush(w.end);
    fcd_index nall = 0, nend = 0;
    double ball = 0, bend = 0;
    fcd_series_get_info(w.all, &nall, &ball);
    fcd_series_get_info(w.end, &nend, &bend);
    fcd_series_destroy(w.all);
    fcd_series_destroy(w.end);
    fcd_mesh_destroy(vmesh);
    if (st != FCD_OK) {
      ex_check(&ex, 0, "transient: %s", fcd_system_last_error(b2.sys));
    } else {
      ex_check(&ex, nall == nsteps / w.every + 1 && nend == (nsteps - w.end_from) / 2 + 1,
               "ParaView series written: transient.pvd (%lld frames, %.0f MB), transient-end.pvd "
               "(%lld frames, %.0f MB), squeal-mode.pvd (24 frames)", (long long)nall,
               ball / 1e6, (long long)nend, bend / 1e6);
      printf("  %ld steps in %.1f s (%.1f ms per step); at most %d pairs open at once\n", w.nsig,
             secs, 1e3 * secs / fmax(1, w.nsig), w.max_open);
      ex_check(&ex, w.max_open > 0, "the growing vibration opens contacts (at most %d of %lld "
               "pairs at once; the paper: up to about 60)", w.max_open, (long long)b2.ncont);
      ex_plot(&ex, "transient.png",
              "set terminal pngcairo size 1500,450 font ',11'\nset output '%s/transient.png'\n"
              "set multiplot layout 1,3 title 'Brake transient at mu = %.2f (modified theta, h = %g s)'\n"
              "set datafile separator ','\nset grid\nunset key\nset xlabel 't (s)'\n"
              "set title 'mechanical energy (J)'\nplot '%s/transient.csv' u 1:3 every ::1 w l lw 2\n"
              "set title 'braking force (N)'\nplot '' u 1:4 every ::1 w l lw 1\n"
              "set title 'pairs open (of %lld)'\nplot '' u 1:5 every ::1 w l lw 1\n"
              "unset multiplot\n", ex.out, mu_tr, h, ex.out, (long long)b2.ncont);
      if (tend >= 0.1 && w.nen > 40) {
        /* the limit cycle: the energy's growth rate over the last twentieth (the paper's
         * tau_E criterion) against the linear rate 2 Re(lambda) */
        long q = w.nen / 20;
        double e_prev = 0, e_last = 0;
        for (long i = w.nen - 2 * q; i < w.nen - q; i++) e_prev += w.en[i] / q;
        for (long i = w.nen - q; i < w.nen; i++) e_last += w.en[i] / q;
        double rate = log(e_last / e_prev) / (q * 10 * h), e0 = w.en[0];
        ex_check(&ex, rate < 0.1 * 2 * re0 && e_last > 3 * e0,
                 "a limit cycle: the energy grew %.0f-fold and its growth rate fell to %.2f s^-1 "
                 "(linear: 2 Re lambda = %.1f s^-1)", e_last / e0, rate, 2 * re0);
      }
      /* the monitored pin node's normal motion over the last 10 ms (paper Fig. 10) and
       * the spectrum of the last quarter (paper Fig. 11: fundamental and harmonics) */
      FILE *mf = ex_open(&ex, "monitor.csv"), *sf = ex_open(&ex, "spectrum.csv");
      long n10 = (long)(0.01 / h) < w.nsig - 2 ? (long)(0.01 / h) : w.nsig - 2;
      if (mf) {
        fprintf(mf, "t,u_n,v_n\n");
        for (long i = w.nsig - 1 - n10; i < w.nsig - 1; i++)
          fprintf(mf, "%.7f,%.6e,%.6e\n", (i + 1) * h, w.sig[i], (w.sig[i + 1] - w.sig[i - 1]) / (2 * h));
        fclose(mf);
      }
      if (sf) {
        long nw = w.nsig / 4;
        const double *x = w.sig + w.nsig - nw;
        double mean = 0;
        for (long i = 0; i < nw; i++) mean += x[i] / nw;
        fprintf(sf, "f_hz,amplitude_db\n");
        for (double f = 0.2 * fmode; f <= 3.5 * fmode; f += 1.0 / (nw * h)) {
          double re = 0, im = 0;
          for (long i = 0; i < nw; i++) {
            double ph = 2 * 3.14159265358979 * f * i * h, hann = 0.5 - 0.5 * cos(2 * 3.14159265358979 * i / (nw - 1));
            re += hann * (x[i] - mean) * cos(ph);
            im += hann * (x[i] - mean) * sin(ph);
          }
          fprintf(sf, "%.2f,%.4f\n", f, 10 * log10(re * re + im * im + 1e-300));
        }
        fclose(sf);
      }
      ex_plot(&ex, "limit-cycle.png",
              "set terminal pngcairo size 1500,450 font ',11'\nset output '%s/limit-cycle.png'\n"
              "set multiplot layout 1,3 title 'A pin face node, normal direction, last 10 ms "
              "(paper Figs. 10e-f, 11)'\n"
              "set datafile separator ','\nset grid\nunset key\n"
              "set xlabel 't (s)'\nset ylabel 'u_n (m)'\nplot '%s/monitor.csv' u 1:2 every ::1 w l\n"
              "set xlabel 'u_n (m)'\nset ylabel 'du_n/dt (m/s)'\nset format x '%%.0e'\n"
              "set xtics rotate by -30\nplot '' u 2:3 every ::1 w l\n"
              "set format x '%%g'\nset xtics norotate\nset xtics 2000\n"
              "set xlabel 'frequency (Hz)'\nset ylabel 'dB'\n"
              "set arrow from %.1f, graph 0 to %.1f, graph 1 nohead dt 2 lc rgb 'gray'\n"
              "plot '%s/spectrum.csv' u 1:2 every ::1 w l\nunset multiplot\n",
              ex.out, ex.out, fmode, fmode, ex.out);
      const char *pics[2] = {"squeal-mode.png", "transient-frame.png"};
      ex_render(&ex, "render.py", 2, pics);
      if (!ex.quick) {
        long nw = w.nsig / 4;
        double fpk = peak_hz(w.sig + w.nsig - nw, nw, h, 0.5 * fmode, 1.5 * fmode);
        ex_close(&ex, "the squeal frequency (spectrum peak of a pin's normal displacement, last "
                 "quarter) against the unstable mode's (Hz)", fpk, fmode, 0.05);
      }
    }
    fcd_integrator_destroy(it);
    if (st == FCD_OK) reduced_cycle(&ex, &b2, ue, h, fmode, w.mon);
    fcd_equilibrium_destroy(eq2);
    brake_free(&b2);
    free(ue); free(mr); free(mi); free(v0); free(w.sig); free(w.en);
  }
  fcd_stability_destroy(sa);
  fcd_equilibrium_destroy(eq);
  free(status); free(slip); free(r); free(rn);
  brake_free(&b);
  fcd_finalize();
  return ex_finish(&ex);
}
