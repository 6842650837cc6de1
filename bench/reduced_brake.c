/* The brake of examples/brake-squeal (seed 003, 28,656 dofs, 144 pin contacts) through
 * reduced models with the contact dofs kept (issue 66), against the full model in the
 * same run: the transient at mu = 0.45 (modified theta, h = 1e-5, from the sliding
 * equilibrium plus a tenth of the pins' compression along the most unstable mode) and
 * the limit cycle's figures over its last window: the RMS of the monitored pin node's
 * normal and tangential displacement about their means, the squeal frequency (the
 * spectrum's peak of the normal displacement), the mean braking force and the range of
 * the open-contact count. Times: the reduction (basis and projections), the transient,
 * and their sum, with the full model's transient beside them.
 *
 *   reduced_brake [--cells NR NT NZ] [--modes M1,M2,...] [--tend T] [--h H]
 *                 [--window W] [--full] [--modal] [--inertia P] [--cut X] [--band-damping XI] [--chart [--reduced-only] [--proj P] [--undamped]] [--long MU [--amp A]]
 *                 [--shoot] [--follow NPTS] [--branch DMU]
 *                 [--scale NZ1,...] [--interface NCC1,...] [--csv FILE]
 *                 [--forced MU [--force F] [--fband F0 F1]]
 *
 * --chart compares the stability charts instead (the example's: the sliding state at
 * mu = 0.2, 20 eigenvalues nearest 3 kHz by modal projection, mu over [0, 0.5] in 26
 * values): the two coefficients where the largest and the second largest growth rate
 * cross zero (linear between the sweep's values) and the frequencies there, and the most
 * unstable eigenvalue at mu = 0.45, full against reduced, with the times. Each threshold is
 * also refined by false position between the sweep's values around it (mu*: the
 * analysis' own threshold, not the interpolation's); --proj P sets the size of the
 * modal basis both analyses project on (FCD_STAB_PROJECTION_MODES, default 40).
 * --undamped leaves damping out of both pencils (FCD_STAB_DAMPING 0): the 20 eigenvalues
 * nearest 3 kHz then come from SLEPc's shift-and-invert on the whole pencil, exactly,
 * with no projection, which separates the reduction's error from the projection's.
 *
 * --shoot then finds the reduced model's limit cycle by shooting (fcd_periodic, Newton-
 * Krylov: its default above 200 state unknowns) from the transient's last state with the
 * spectrum's period, the same step, and compares its period and the monitored node's RMS
 * over one period with the transient's figures (issue 68). --follow NPTS then continues
 * the branch towards mu = 0.40 (fcd_periodic_continue, dmu = 0.005) for NPTS points and
 * times each. --branch DMU traces the squeal's branch instead: from the shot orbit up to
 * mu = 0.6, then from it again down towards mu_c (where the orbits shrink onto steady
 * sliding; at most to 0.30), steps of DMU (fcd_periodic_continue's), each point's
 * frequency, amplitude, the monitored node's RMS over one period and largest other
 * multiplier printed and written to reduced_brake_branch.csv (two gnuplot data blocks),
 * with its time and periods; then the branch points nearest mu = 0.40, 0.50 and 0.58
 * against transients of --tend at their mu, each from the shot orbit's state (so it has
 * to travel to the point's cycle): frequency and RMS over the last --window.
 *
 * --forced MU drives the reduced model (the first of --modes) at MU instead, below the
 * flutter threshold, with a harmonic pressure on the pins (--force F newtons on each of the
 * 144 pin contacts' face nodes along the pin, 1 by default, at frequencies over --fband F0
 * F1, 3450 to 3650 Hz by default): the forced orbit at F0 by shooting from the sliding
 * equilibrium, against the transient under the same load from the same state (--tend;
 * the periods until it stays within 1 % of the orbit's RMS, its time for them), then the
 * frequency response curve to F1 by fcd_periodic_continue_forcing, each point's time and
 * periods (issue 88: a forced model of thousands of state unknowns).
 *
 * --full also integrates the full model (13 minutes for 0.3 s on this machine); without
 * it only the reduced models run.
 *
 * --modal builds the reduced models in the modes of their reduced pencils
 * (fcd_reduction_create_modal: the same models, a step in O(n) but for the contact rows)
 * and reads the monitored node through fcd_reduction_expand_dofs; for the transient,
 * --shoot and --long (--chart and --scale are the stability analysis or start from it,
 * and it refuses modal rows; --long takes its sliding state and mode from a
 * Craig-Bampton twin of the same modes, restricted onto the modal coordinates).
 *
 * --cut X and --band-damping XI set the reduced models' damping above the band
 * (fcd_reduction_create_band: above X times the highest kept mode's frequency, damping
 * ratio XI; --band-damping 0 leaves it out). Each reduced row is followed by the band,
 * the cut and the share of the last step's kinetic energy above the band.
 *
 * --inertia P enriches every reduced basis with P inertia correction vectors
 * (fcd_reduction_create_enriched): the interior's response to the constraint modes'
 * inertia that the kept modes miss, in the P kept-dof patterns where it stores the most
 * strain energy. --chart --reduced-only leaves the full model's chart out (the reduced
 * rows then have no comparison: for exploring against recorded figures).
 *
 * --long MU integrates the reduced model (the first of --modes) at a coefficient with one
 * unstable mode from its own sliding equilibrium plus that mode alone (amplitude A, its
 * largest entry): the perturbation energy about the equilibrium every 10 steps, its growth
 * rate fitted over the linear phase (from 10 periods in to 90 % of the first step where a
 * contact stops slipping) against the eigenvalue's real part and the scheme's own rate for
 * it, and the limit cycle's figures over the last window. The mode is scaled as the full
 * model's is: its expansion to the full dofs has largest modulus 1. With --full the full model runs
 * instead, from its own equilibrium and mode, to compare.
 *
 * --scale NZ1,... reduces brakes whose disc has NZ axial layers (the pins and their 144
 * contacts unchanged): the reduction's time and peak memory, and the cost of a step.
 *
 * --interface NCC1,... replaces the CB model's contact dofs by NCC characteristic
 * constraint modes (the eigenvectors of their Guyan block) and integrates the transient
 * through each, against the CB model and the full run's figures. Public API only. */
#include <fcd/fcd.h>

#include "args.h"
#include "../examples/brake-squeal/brake_model.h"
#include "dense_floor.h"

#include <lapacke.h>
#include <sys/resource.h>
#include <time.h>

#define FCD_BENCH_PI 3.14159265358979323846

typedef struct {
  fcd_index mon[3]; /* the monitored node's x, y, z dofs in the integrated system */
  const double *rows[3]; /* or, when set, its displacements as rows over the first nrow */
  fcd_index nrow;
  const fcd_reduction *red; /* or, when set (--modal), read through it from the full dofs */
  fcd_index fmon[3];
  double tx, ty;    /* the tangent (the disc's motion) at the node */
  long n, cap;
  double *un, *ut, *fb; /* per step: normal, tangential displacement, braking force */
  int *open;
} watch;

static int on_step(void *ud, double t, fcd_index n, const double *u, const double *v,
                   fcd_index nl, const double *r, const fcd_contact_counts *cc) {
  (void)t; (void)n; (void)v;
  watch *w = ud;
  if (w->n >= w->cap) return 0;
  double ft = 0, x[3];
  for (fcd_index c = 0; c + 2 < nl; c += 3) ft += r[c + 1];
  if (w->red) fcd_reduction_expand_dofs(w->red, u, 3, w->fmon, x);
  for (int d = 0; d < 3 && !w->red; d++) {
    x[d] = 0;
    if (!w->rows[d]) x[d] = u[w->mon[d]];
    else for (fcd_index k = 0; k < w->nrow; k++) x[d] += w->rows[d][k] * u[k];
  }
  w->un[w->n] = x[2];
  w->ut[w->n] = w->tx * x[0] + w->ty * x[1];
  w->fb[w->n] = ft;
  w->open[w->n] = (int)cc->open;
  w->n++;
  return 0;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* |DFT|^2 of x (n samples, step h, mean removed, Hann window) at f */
static double power(const double *x, long n, double h, double mean, double f) {
  double re = 0, im = 0;
  for (long i = 0; i < n; i++) {
    double ph = 2 * FCD_BENCH_PI * f * i * h, hann = 0.5 - 0.5 * cos(2 * FCD_BENCH_PI * i / (n - 1));
    re += hann * (x[i] - mean) * cos(ph);
    im += hann * (x[i] - mean) * sin(ph);
  }
  return re * re + im * im;
}

/* the frequency of the spectrum's largest peak in [f0, f1]: a scan at a quarter of the
 * window's resolution, then a golden-section search of the peak's bin */
static double peak_hz(const double *x, long n, double h, double f0, double f1) {
  double mean = 0, best = -1, fb = f0, df = 1.0 / (n * h) / 4;
  for (long i = 0; i < n; i++) mean += x[i] / n;
  for (double f = f0; f <= f1; f += df) {
    double p = power(x, n, h, mean, f);
    if (p > best) {
      best = p;
      fb = f;
    }
  }
  double a = fb - df, b = fb + df, g = 0.5 * (sqrt(5.0) - 1);
  for (int k = 0; k < 40; k++) {
    double c = b - g * (b - a), d = a + g * (b - a);
    if (power(x, n, h, mean, c) > power(x, n, h, mean, d)) b = d;
    else a = c;
  }
  return 0.5 * (a + b);
}

typedef struct {
  double rms_n, rms_t, hz, fb;
  int open_min, open_max;
  double secs;
  long steps;
} cycle;

static double rms_about_mean(const double *x, long n) {
  double m = 0, s = 0;
  for (long i = 0; i < n; i++) m += x[i] / n;
  for (long i = 0; i < n; i++) s += (x[i] - m) * (x[i] - m);
  return sqrt(s / n);
}

static void figures(const watch *w, double h, double window, double fmode, cycle *c) {
  long nw = (long)(window / h);
  if (nw > w->n) nw = w->n;
  long i0 = w->n - nw;
  c->rms_n = rms_about_mean(w->un + i0, nw);
  c->rms_t = rms_about_mean(w->ut + i0, nw);
  c->hz = peak_hz(w->un + i0, nw, h, 0.7 * fmode, 1.3 * fmode);
  c->fb = 0;
  c->open_min = 1 << 30;
  c->open_max = 0;
  for (long i = i0; i < w->n; i++) {
    c->fb += w->fb[i] / nw;
    if (w->open[i] < c->open_min) c->open_min = w->open[i];
    if (w->open[i] > c->open_max) c->open_max = w->open[i];
  }
}

/* the transient of (sys, cs) from (u0, 0) to tend; *last_u0, *last_v0 (may be NULL)
 * receive the state one step before the end and *u1, *v1 the last one */
static fcd_status transient(fcd_system *sys, fcd_contact_set *cs, const double *u0, double h,
                            double tend, watch *w, double *ua, double *va, double *ub,
                            double *vb, double *secs) {
  fcd_index n = fcd_system_ndofs(sys);
  double *z = calloc((size_t)n, sizeof *z);
  fcd_integrator *it = NULL;
  fcd_status st = fcd_integrator_create(sys, cs, FCD_SCHEME_MODIFIED_THETA, &it);
  if (st == FCD_OK) st = fcd_integrator_set_param(it, FCD_PARAM_STEP, h);
  if (st == FCD_OK) st = fcd_integrator_set_state(it, 0.0, u0, z);
  if (st == FCD_OK) st = fcd_integrator_set_observer(it, on_step, w);
  double t0 = now();
  if (st == FCD_OK) st = fcd_integrator_advance(it, tend - 1.5 * h);
  if (st == FCD_OK) st = fcd_integrator_get_state(it, NULL, ua, va);
  if (st == FCD_OK) st = fcd_integrator_step(it);
  *secs = now() - t0;
  if (st == FCD_OK) st = fcd_integrator_get_state(it, NULL, ub, vb);
  if (st != FCD_OK) fprintf(stderr, "transient: %s\n", fcd_system_last_error(sys));
  fcd_integrator_destroy(it);
  free(z);
  return st;
}

static void print_row(FILE *csv, const char *what, long nmodes, long nkept, double fmax_hz,
                      double t_red, const cycle *c, const cycle *ref, double indicator) {
  printf("%-8s %5ld %5ld %7.0f %7.1f %8.1f %8.1f %7.3f %10.3e %10.3e %9.2f %8.2f %3d-%-3d",
         what, nmodes, nkept, fmax_hz, t_red, c->secs, t_red + c->secs,
         1e3 * c->secs / (double)c->steps, c->rms_n, c->rms_t, c->hz, c->fb, c->open_min,
         c->open_max);
  if (ref)
    printf("  %+.2e %+.2e %+.2e %+.2e", c->rms_n / ref->rms_n - 1, c->rms_t / ref->rms_t - 1,
           c->hz / ref->hz - 1, c->fb / ref->fb - 1);
  if (indicator >= 0) printf("  %.2e", indicator);
  printf("\n");
  if (csv)
    fprintf(csv, "%s,%ld,%ld,%.1f,%.3f,%.3f,%.4f,%.6e,%.6e,%.4f,%.4f,%d,%d,%.3e\n", what, nmodes,
            nkept, fmax_hz, t_red, c->secs, 1e3 * c->secs / (double)c->steps, c->rms_n,
            c->rms_t, c->hz, c->fb, c->open_min, c->open_max, indicator);
  fflush(stdout);
}

typedef struct {
  int nr, nt, nz, full, chart, proj, undamped, shoot, follow, modal;
  double tend, h, window, mu_long, amp, cut, band_damping, branch;
  long modes[32], inertia;
  int reduced_only, nmodes, nscale, ninterface;
  long scale[16], interface[16];
  const char *csv;
  double forced, force, fband[2]; /* --forced MU, --force F, --fband F0 F1 */
} options;

/* the reduction the options ask for: modal coordinates with --modal, inertia vectors with
   --inertia, the band's damping as --cut and --band-damping set it (the library's defaults
   otherwise) */
static fcd_status reduce(const options *o, fcd_system *sys, fcd_contact_set *cs, long m,
                         fcd_reduction **red) {
  return fcd_reduction_create_band(sys, cs, m, o->inertia, o->modal, o->cut, o->band_damping,
                                   red);
}

/* a comma-separated list of integers in [lo, hi] into out (at most cap); returns the count */
static int int_list(const char *p, const char *name, const char *arg, long lo, long hi,
                    long *out, int cap) {
  char buf[512];
  int n = 0;
  snprintf(buf, sizeof buf, "%s", arg);
  for (char *tok = strtok(buf, ","); tok && n < cap; tok = strtok(NULL, ","))
    out[n++] = bench_int(p, name, tok, lo, hi);
  return n;
}

static void parse(int argc, char **argv, options *o) {
  const char *p = argv[0];
  *o = (options){8, 192, 3, 0, 0, 0, 0, 0, 0, 0, 0.3, 1e-5, 0.06, 0, 1.6e-8,
                 FCD_REDUCTION_CUT_DEFAULT, FCD_REDUCTION_BAND_DAMPING_DEFAULT, 0, {50}, 0, 0, 1, 0,
                 0, {0}, {0}, NULL, 0, 0, {0, 0}};
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--cells") && i + 3 < argc) {
      o->nr = bench_int(p, "--cells", argv[++i], 2, 64);
      o->nt = bench_int(p, "--cells", argv[++i], 32, 4096);
      o->nz = bench_int(p, "--cells", argv[++i], 1, 64);
    } else if (!strcmp(argv[i], "--modes") && i + 1 < argc) {
      o->nmodes = int_list(p, "--modes", argv[++i], 0, 100000, o->modes, 32);
    } else if (!strcmp(argv[i], "--tend") && i + 1 < argc) {
      o->tend = bench_real(p, "--tend", argv[++i], 1e-4, 100);
    } else if (!strcmp(argv[i], "--h") && i + 1 < argc) {
      o->h = bench_real(p, "--h", argv[++i], 1e-8, 1e-2);
    } else if (!strcmp(argv[i], "--window") && i + 1 < argc) {
      o->window = bench_real(p, "--window", argv[++i], 1e-4, 100);
    } else if (!strcmp(argv[i], "--long") && i + 1 < argc) {
      o->mu_long = bench_real(p, "--long", argv[++i], 1e-3, 10);
    } else if (!strcmp(argv[i], "--scale") && i + 1 < argc) {
      o->nscale = int_list(p, "--scale", argv[++i], 1, 64, o->scale, 16);
    } else if (!strcmp(argv[i], "--interface") && i + 1 < argc) {
      o->ninterface = int_list(p, "--interface", argv[++i], 1, 100000, o->interface, 16);
    } else if (!strcmp(argv[i], "--amp") && i + 1 < argc) {
      o->amp = bench_real(p, "--amp", argv[++i], 1e-15, 1e-3);
    } else if (!strcmp(argv[i], "--shoot")) {
      o->shoot = 1;
    } else if (!strcmp(argv[i], "--follow") && i + 1 < argc) {
      o->shoot = 1;
      o->follow = (int)bench_int(p, "--follow", argv[++i], 1, 100);
    } else if (!strcmp(argv[i], "--branch") && i + 1 < argc) {
      o->shoot = 1;
      o->branch = bench_real(p, "--branch", argv[++i], 1e-4, 0.1);
    } else if (!strcmp(argv[i], "--inertia") && i + 1 < argc) {
      o->inertia = bench_int(p, "--inertia", argv[++i], 0, 100000);
    } else if (!strcmp(argv[i], "--cut") && i + 1 < argc) {
      o->cut = bench_real(p, "--cut", argv[++i], 1e-3, 1e3);
    } else if (!strcmp(argv[i], "--band-damping") && i + 1 < argc) {
      o->band_damping = bench_real(p, "--band-damping", argv[++i], 0, 10);
    } else if (!strcmp(argv[i], "--reduced-only")) {
      o->reduced_only = 1;
    } else if (!strcmp(argv[i], "--modal")) {
      o->modal = 1;
    } else if (!strcmp(argv[i], "--full")) {
      o->full = 1;
    } else if (!strcmp(argv[i], "--chart")) {
      o->chart = 1;
    } else if (!strcmp(argv[i], "--undamped")) {
      o->undamped = 1;
    } else if (!strcmp(argv[i], "--proj") && i + 1 < argc) {
      o->proj = (int)bench_int(p, "--proj", argv[++i], 1, 2000);
    } else if (!strcmp(argv[i], "--csv") && i + 1 < argc) {
      o->csv = argv[++i];
    } else if (!strcmp(argv[i], "--forced") && i + 1 < argc) {
      o->forced = bench_real(p, "--forced", argv[++i], 1e-3, 10);
    } else if (!strcmp(argv[i], "--force") && i + 1 < argc) {
      o->force = bench_real(p, "--force", argv[++i], 1e-6, 1e4);
    } else if (!strcmp(argv[i], "--fband") && i + 2 < argc) {
      o->fband[0] = bench_real(p, "--fband", argv[++i], 1, 1e6);
      o->fband[1] = bench_real(p, "--fband", argv[++i], 1, 1e6);
    } else {
      fprintf(stderr, "usage: %s [--cells NR NT NZ] [--modes M1,M2,...] [--tend T] [--h H] "
              "[--window W] [--full] [--modal] [--inertia P] [--cut X] [--band-damping XI] [--chart [--reduced-only] [--proj P] [--undamped]] [--long MU [--amp A]] [--scale NZ1,...] [--interface NCC1,...] [--forced MU [--force F] [--fband F0 F1]] [--csv FILE]\n", p);
      exit(2);
    }
  }
  if (o->modal && (o->nscale > 0 || o->chart)) {
    /* those start from, or are, the friction-linearized stability analysis, which refuses
     * modal rows (no dof of a contact's own) */
    fprintf(stderr, "%s: --modal goes with the transient, --shoot and --long only\n", p);
    exit(2);
  }
  if (o->force == 0) o->force = 1.0;
  if (o->fband[0] == 0) {
    o->fband[0] = 3450;
    o->fband[1] = 3650;
  }
  if (o->inertia > 0)
    printf("reduced bases enriched with %ld inertia correction vectors (fewer when they "
           "vanish: the modes column counts those kept)\n", o->inertia);
}

/* the start of the transient: the sliding equilibrium at mu_tr plus a tenth of the pins'
 * compression along the most unstable mode of the stability analysis (as the example) */
static fcd_status start_state(brake *b, brake *b2, double mu_tr, double *ue, double *fmode,
                              double *growth) {
  fcd_index n = fcd_system_ndofs(b->sys);
  fcd_equilibrium *eq = NULL, *eq2 = NULL;
  fcd_stability *sa = NULL;
  int *status = malloc(sizeof *status * (size_t)b->ncont);
  double *slip = malloc(sizeof *slip * 2 * (size_t)b->ncont);
  double *r = malloc(sizeof *r * 3 * (size_t)b->ncont), *rn = malloc(sizeof *rn * (size_t)b->ncont);
  double *mr = malloc(sizeof *mr * (size_t)n), re = 0, im = 0;
  fcd_status st = fcd_equilibrium_create(b->sys, b->cs, &eq);
  if (st == FCD_OK) st = fcd_equilibrium_solve(eq, FCD_EQ_STEADY_SLIDING, 0.0);
  if (st == FCD_OK) st = fcd_equilibrium_get_contact_state(eq, status, slip);
  if (st == FCD_OK) st = fcd_equilibrium_get_reactions(eq, r);
  for (fcd_index c = 0; c < b->ncont; c++) rn[c] = r[3 * c];
  if (st == FCD_OK) st = fcd_stability_create(b->sys, b->cs, &sa);
  if (st == FCD_OK) st = fcd_stability_set_contact_state(sa, status, slip);
  if (st == FCD_OK) st = fcd_stability_set_sliding_data(sa, rn, b->vg);
  if (st == FCD_OK) st = fcd_stability_set_param(sa, FCD_STAB_TARGET_HZ, 3000);
  if (st == FCD_OK) st = fcd_stability_set_param(sa, FCD_STAB_NEV, 20);
  if (st == FCD_OK) st = fcd_stability_set_param(sa, FCD_STAB_DENSE_MAX, 0);
  if (st == FCD_OK) st = fcd_stability_set_param(sa, FCD_STAB_MU, mu_tr);
  if (st == FCD_OK) st = fcd_stability_solve(sa, NULL);
  if (st == FCD_OK) st = fcd_stability_get_eigenvalue(sa, 0, &re, &im);
  if (st == FCD_OK) st = fcd_stability_get_mode(sa, 0, mr, NULL);
  if (st == FCD_OK) st = fcd_equilibrium_create(b2->sys, b2->cs, &eq2);
  if (st == FCD_OK) st = fcd_equilibrium_solve(eq2, FCD_EQ_STEADY_SLIDING, 0.0);
  if (st == FCD_OK) st = fcd_equilibrium_get_state(eq2, ue);
  for (fcd_index i = 0; i < n && st == FCD_OK; i++)
    if (!isnan(mr[i])) ue[i] += 0.1 * UPIN * mr[i];
  *fmode = fabs(im) / (2 * FCD_BENCH_PI);
  *growth = re;
  if (st != FCD_OK) fprintf(stderr, "start state: %s\n", fcd_system_last_error(b->sys));
  fcd_stability_destroy(sa);
  fcd_equilibrium_destroy(eq);
  fcd_equilibrium_destroy(eq2);
  free(status); free(slip); free(r); free(rn); free(mr);
  return st;
}

static void watch_init(watch *w, const brake *b, long cap) {
  fcd_index node = b->m.pin[(size_t)6 * 60 + 5];
  double x = b->m.x[3 * node], y = b->m.x[3 * node + 1], rr = hypot(x, y);
  memset(w, 0, sizeof *w);
  for (int d = 0; d < 3; d++) w->mon[d] = w->fmon[d] = 3 * node + d;
  w->tx = -y / rr;
  w->ty = x / rr;
  w->cap = cap;
  w->un = malloc(sizeof *w->un * (size_t)cap);
  w->ut = malloc(sizeof *w->ut * (size_t)cap);
  w->fb = malloc(sizeof *w->fb * (size_t)cap);
  w->open = malloc(sizeof *w->open * (size_t)cap);
}

static void watch_free(watch *w) {
  free(w->un); free(w->ut); free(w->fb); free(w->open);
}

/* --shoot: the limit cycle by shooting (fcd_periodic, Newton-Krylov) from the transient's
 * last state with the spectrum's period, against the transient's figures; then one
 * period of the orbit through the same watch for its RMS */
/* one continuation point: its time and figures */
static int follow_point(void *ud, double mu, const fcd_periodic_info *in, const double *re,
                        const double *im, int ev) {
  (void)re; (void)im;
  double *t0 = ud;
  printf("continuation: mu %.6f, T %.9e s (%.3f Hz), residual %.1e, largest other "
         "multiplier %.4f, event %d, %.1f s since the last point, %ld periods in all\n", mu,
         in->period, 1 / in->period, in->residual, in->max_multiplier, ev, now() - *t0,
         (long)in->evaluations);
  fflush(stdout);
  *t0 = now();
  return 0;
}

/* one period of an orbit (N steps of T / N from u0, v0) through the watch: the monitored
 * node's RMS about the mean */
static fcd_status orbit_rms(fcd_system *rs, fcd_contact_set *rcs, watch *w, double T,
                            fcd_index steps, const double *u0, const double *v0,
                            double *rn, double *rt) {
  fcd_integrator *it = NULL;
  w->n = 0;
  fcd_status st = fcd_integrator_create(rs, rcs, FCD_SCHEME_MODIFIED_THETA, &it);
  if (st == FCD_OK) st = fcd_integrator_set_param(it, FCD_PARAM_STEP, T / (double)steps);
  if (st == FCD_OK) st = fcd_integrator_set_state(it, 0.0, u0, v0);
  if (st == FCD_OK) st = fcd_integrator_set_observer(it, on_step, w);
  for (fcd_index k = 0; k < steps && st == FCD_OK; k++) st = fcd_integrator_step(it);
  fcd_integrator_destroy(it);
  *rn = rms_about_mean(w->un, w->n);
  *rt = rms_about_mean(w->ut, w->n);
  return st;
}

static void set_all_friction(fcd_contact_set *cs, double mu) {
  for (fcd_index c = 0; c < fcd_contact_set_size(cs); c++) fcd_contact_set_set_friction(cs, c, mu);
}

/* --branch: each continuation point's figures (its orbit's RMS by one more period, not
 * counted in the point's time) to stdout and the CSV */
typedef struct {
  fcd_periodic *p;
  fcd_system *rs;
  fcd_contact_set *rcs;
  watch *w;
  FILE *out;
  double t0, *u, *v;
  int npts;
  double mu[512], hz[512], rn[512], rt[512];
} branch_ctx;

static int branch_point(void *ud, double mu, const fcd_periodic_info *in, const double *re,
                        const double *im, int ev) {
  (void)re; (void)im;
  branch_ctx *b = ud;
  double secs = now() - b->t0, T = 0, rn = NAN, rt = NAN;
  if (fcd_periodic_get_orbit(b->p, &T, b->u, b->v) == FCD_OK)
    orbit_rms(b->rs, b->rcs, b->w, T, in->steps, b->u, b->v, &rn, &rt);
  printf("branch: mu %.6f, %.3f Hz, A_u %.4e, RMS u_n %.4e u_t %.4e, largest other "
         "multiplier %.4f, stable %d, event %d, %.1f s, %ld periods in all\n", mu,
         1 / in->period, in->amplitude_u, rn, rt, in->max_multiplier, in->stable, ev, secs,
         (long)in->evaluations);
  fflush(stdout);
  if (b->out)
    fprintf(b->out, "%.6f,%.5f,%.6e,%.6e,%.6e,%.5f,%d,%d,%.2f,%ld\n", mu, 1 / in->period,
            in->amplitude_u, rn, rt, in->max_multiplier, in->stable, ev, secs,
            (long)in->evaluations);
  if (b->out) fflush(b->out);
  if (b->npts < 512) {
    b->mu[b->npts] = mu;
    b->hz[b->npts] = 1 / in->period;
    b->rn[b->npts] = rn;
    b->rt[b->npts] = rt;
  }
  b->npts++;
  b->t0 = now();
  return 0;
}

/* a transient at the contacts' present mu from (u0, v0) for tend; its last window's
 * frequency and RMS into *c */
static fcd_status transient_from(fcd_system *rs, fcd_contact_set *rcs, watch *w,
                                 const double *u0, const double *v0, double h, double tend,
                                 double window, double fmode, cycle *c) {
  fcd_integrator *it = NULL;
  w->n = 0;
  double t0 = now();
  fcd_status st = fcd_integrator_create(rs, rcs, FCD_SCHEME_MODIFIED_THETA, &it);
  if (st == FCD_OK) st = fcd_integrator_set_param(it, FCD_PARAM_STEP, h);
  if (st == FCD_OK) st = fcd_integrator_set_state(it, 0.0, u0, v0);
  if (st == FCD_OK) st = fcd_integrator_set_observer(it, on_step, w);
  long nsteps = (long)(tend / h + 0.5);
  for (long k = 0; k < nsteps && st == FCD_OK; k++) st = fcd_integrator_step(it);
  fcd_integrator_destroy(it);
  c->secs = now() - t0;
  if (st == FCD_OK) figures(w, h, window, fmode, c);
  return st;
}

static fcd_status shoot_cycle(fcd_system *rs, fcd_contact_set *rcs, const double *u,
                              const double *v, double h, const cycle *c, watch *w,
                              int follow, double branch, double tend, double window) {
  fcd_periodic *p = NULL;
  fcd_periodic_info in;
  fcd_index n = fcd_system_ndofs(rs);
  double *u0 = malloc(sizeof *u0 * (size_t)n), *v0 = malloc(sizeof *v0 * (size_t)n), T = 0;
  double t0 = now();
  fcd_status st = fcd_periodic_create(rs, rcs, FCD_SCHEME_MODIFIED_THETA, &p);
  if (st == FCD_OK) st = fcd_periodic_set_param(p, FCD_PARAM_STEP, h);
  if (st == FCD_OK) st = fcd_periodic_set_param(p, FCD_PERIODIC_PARAM_MAX_ITER, 8);
  fcd_status ss = st == FCD_OK ? fcd_periodic_solve(p, u, v, 1.0 / c->hz) : st;
  double secs = now() - t0;
  if (ss != FCD_OK) fprintf(stderr, "shooting: %s\n", fcd_system_last_error(rs));
  if (st == FCD_OK) st = fcd_periodic_get_info(p, &in);
  if (st == FCD_OK) {
    printf("shooting: %ld state unknowns\n", 2 * (long)(n - fcd_system_num_fixed(rs)));
    printf("shooting: %s in %.1f s, %ld Newton iterations, %ld periods of %ld steps, residual "
           "%.2e, T %.9e s (%.3f Hz, %+.2e against the spectrum's), trivial multiplier off "
           "by %.2e, largest other %.4f, verdict %d\n", ss == FCD_OK ? "converged" : "FAILED",
           secs, (long)in.iterations, (long)in.evaluations, (long)in.steps, in.residual,
           in.period, 1 / in.period, 1 / in.period / c->hz - 1, in.trivial_error,
           in.max_multiplier, in.stable);
    st = fcd_periodic_get_orbit(p, &T, u0, v0);
  }
  if (st == FCD_OK && ss == FCD_OK && follow > 0) {
    /* the branch towards smaller mu, a few points: the cost of a continuation step */
    double t1 = now();
    fcd_status sf = fcd_periodic_continue(p, 0.40, 0.005, follow, follow_point, &t1);
    if (sf != FCD_OK) printf("continuation: %s\n", fcd_system_last_error(rs));
    set_all_friction(rcs, in.mu);
  }
  if (st == FCD_OK && ss == FCD_OK && branch > 0) {
    /* the branch up to mu = 0.6, then from the start again down towards mu_c (it ends
     * where the orbits shrink onto steady sliding, or at mu = 0.30) */
    branch_ctx b = {.p = p, .rs = rs, .rcs = rcs, .w = w,
                    .out = fopen("reduced_brake_branch.csv", "w")};
    b.u = malloc(sizeof *b.u * (size_t)n);
    b.v = malloc(sizeof *b.v * (size_t)n);
    if (b.out)
      fprintf(b.out, "mu,hz,amplitude_u,rms_un,rms_ut,max_multiplier,stable,event,secs,"
                     "periods\n");
    double tb = now();
    b.t0 = tb - secs; /* the start's own point: the shooting's time */
    branch_point(&b, in.mu, &in, NULL, NULL, 0);
    fcd_status sf = fcd_periodic_continue(p, 0.60, branch, 400, branch_point, &b);
    if (sf != FCD_OK) printf("branch up: %s\n", fcd_system_last_error(rs));
    int up = b.npts;
    double t_up = now() - tb;
    set_all_friction(rcs, in.mu);
    double t2 = now();
    fcd_status s2 = fcd_periodic_solve(p, u0, v0, T);
    if (s2 != FCD_OK) printf("branch: the start again: %s\n", fcd_system_last_error(rs));
    if (b.out) fprintf(b.out, "\n\n"); /* gnuplot's next data block: the way down */
    b.t0 = now();
    printf("branch: the start solved again in %.1f s\n", b.t0 - t2);
    if (s2 == FCD_OK) {
      sf = fcd_periodic_continue(p, 0.30, branch, 400, branch_point, &b);
      if (sf != FCD_OK) printf("branch down: %s\n", fcd_system_last_error(rs));
    }
    double t_all = now() - tb;
    printf("branch: %d points up to 0.6 in %.1f s, %d down in %.1f s; %d points in %.1f s "
           "(%.1f s a point), the shooting's %.1f s apart\n", up - 1, t_up, b.npts - up,
           t_all - t_up, b.npts - 1, t_all, t_all / (b.npts > 1 ? b.npts - 1 : 1), secs);
    /* three of its points against transients at their mu, each from the start's orbit
     * (a state on the cycle at the start's mu: it has to travel to the point's cycle) */
    const double want[3] = {0.40, 0.50, 0.58};
    for (int q = 0; q < 3; q++) {
      int best = -1;
      for (int i = 0; i < b.npts && i < 512; i++)
        if (best < 0 || fabs(b.mu[i] - want[q]) < fabs(b.mu[best] - want[q])) best = i;
      if (best < 0 || fabs(b.mu[best] - want[q]) > 0.02) {
        printf("branch check: no point near mu = %.2f\n", want[q]);
        continue;
      }
      set_all_friction(rcs, b.mu[best]);
      cycle tc = {0};
      fcd_status s3 = transient_from(rs, rcs, w, u0, v0, h, tend, window, c->hz, &tc);
      if (s3 != FCD_OK) {
        printf("branch check at mu %.6f: %s\n", b.mu[best], fcd_system_last_error(rs));
        continue;
      }
      printf("branch check: mu %.6f, the orbit %.3f Hz, RMS u_n %.4e u_t %.4e; a %.2f s "
             "transient from the start's orbit (%.1f s), its last %.3f s: %.3f Hz (%+.2e), "
             "RMS u_n %.4e (%+.2e) u_t %.4e (%+.2e)\n", b.mu[best], b.hz[best], b.rn[best],
             b.rt[best], tend, tc.secs, window, tc.hz, b.hz[best] / tc.hz - 1, tc.rms_n,
             b.rn[best] / tc.rms_n - 1, tc.rms_t, b.rt[best] / tc.rms_t - 1);
      fflush(stdout);
    }
    set_all_friction(rcs, in.mu);
    if (b.out) fclose(b.out);
    free(b.u);
    free(b.v);
  }
  if (st == FCD_OK) {
    /* one period of the orbit through the watch: its RMS about the mean */
    double rn = 0, rt = 0;
    st = orbit_rms(rs, rcs, w, T, in.steps, u0, v0, &rn, &rt);
    if (st == FCD_OK)
      printf("shooting: the orbit's RMS u_n %.4e (%+.2e against the transient's), u_t %.4e "
             "(%+.2e)\n", rn, rn / c->rms_n - 1, rt, rt / c->rms_t - 1);
  }
  fcd_periodic_destroy(p);
  free(u0);
  free(v0);
  return st;
}

/* ---- --forced MU: a forced response of thousands of state unknowns (issue 88) ----
 * The reduced model at MU (steady sliding is stable below mu_c = 0.3497) under a harmonic
 * pressure on the pins: F cos(omega t) on the face node of every pin contact (the 144 A
 * nodes), along the pin's pressing direction. In modal coordinates a physical dof is no
 * unknown: the load's reduced vector g = Phi' f is read row by row through
 * fcd_reduction_expand_dofs (the basis at the 144 dofs, one unit vector at a time). The
 * forced orbit at the band's first frequency by shooting (Newton-Krylov) from the sliding
 * equilibrium, against the transient from the same state under the same load: the
 * periods it takes to come within 1 % of the orbit's RMS (the monitored node's normal
 * displacement, period by period) and its last period's RMS; then the frequency
 * response curve by continuation in omega across the band, each point's cost. */
typedef struct {
  const double *g;
  fcd_index n;
  double omega;
} pin_load;

static int pin_forcing(void *ud, double theta, fcd_index n, double *f) {
  const pin_load *pl = ud;
  for (fcd_index j = 0; j < n && j < pl->n; j++) f[j] += pl->g[j] * cos(theta);
  return 0;
}

static int pin_load_fn(void *ud, double t, fcd_index n, double *f) {
  const pin_load *pl = ud;
  return pin_forcing(ud, pl->omega * t, n, f);
}

static fcd_status pin_load_vector(const brake *b, const fcd_reduction *red, double F,
                                  double *g) {
  const mesh *m = &b->m;
  fcd_index nd = (fcd_index)m->npin * 12, nr = fcd_system_ndofs(fcd_reduction_system(red));
  fcd_index *dofs = malloc(sizeof *dofs * (size_t)nd);
  double *sg = malloc(sizeof *sg * (size_t)nd), *out = malloc(sizeof *out * (size_t)nd);
  double *e = calloc((size_t)nr, sizeof *e);
  fcd_status st = dofs && sg && out && e ? FCD_OK : FCD_E_NOMEM;
  for (int p = 0, k = 0; p < m->npin && st == FCD_OK; p++)
    for (int a = 0; a < 12; a++, k++) {
      dofs[k] = 3 * m->pin[(size_t)p * 60 + (size_t)a] + 2;
      sg[k] = p < 6 ? 1 : -1;
    }
  for (fcd_index j = 0; j < nr && st == FCD_OK; j++) {
    e[j] = 1;
    st = fcd_reduction_expand_dofs(red, e, nd, dofs, out);
    e[j] = 0;
    g[j] = 0;
    for (fcd_index k = 0; k < nd; k++) g[j] += F * sg[k] * out[k];
  }
  free(dofs); free(sg); free(out); free(e);
  return st;
}

typedef struct {
  fcd_periodic *p;
  double t0, peak, peak_w, *u, *v;
  int n;
} fcurve;

static int forced_point(void *ud, double w, const fcd_periodic_info *in, const double *re,
                        const double *im, int ev) {
  (void)re; (void)im;
  fcurve *c = ud;
  printf("forced: %.3f Hz, A_u %.4e, largest multiplier %.4f, stable %d, event %d, %.1f s, "
         "%ld periods in all\n", w / (2 * FCD_BENCH_PI), in->amplitude_u, in->max_multiplier,
         in->stable, ev, now() - c->t0, (long)in->evaluations);
  fflush(stdout);
  if (in->amplitude_u > c->peak) {
    c->peak = in->amplitude_u;
    c->peak_w = w;
    fcd_periodic_get_orbit(c->p, NULL, c->u, c->v);
  }
  c->n++;
  c->t0 = now();
  return 0;
}

/* the transient from (u0, 0) under the load for tend in steps of T / N: the periods it
 * takes until every later period's RMS (normal) is within 1 % of rn, its last period's */
static fcd_status forced_transient(fcd_system *rs, fcd_contact_set *rcs, watch *w,
                                   const double *u0, double T, fcd_index N, double tend,
                                   double rn, long *reach, double *last, double *secs) {
  fcd_index n = fcd_system_ndofs(rs);
  double *z = calloc((size_t)n, sizeof *z);
  fcd_integrator *it = NULL;
  w->n = 0;
  long periods = (long)(tend / T), k = 0;
  double t0 = now();
  fcd_status st = fcd_integrator_create(rs, rcs, FCD_SCHEME_MODIFIED_THETA, &it);
  if (st == FCD_OK) st = fcd_integrator_set_param(it, FCD_PARAM_STEP, T / (double)N);
  if (st == FCD_OK) st = fcd_integrator_set_state(it, 0.0, u0, z);
  if (st == FCD_OK) st = fcd_integrator_set_observer(it, on_step, w);
  for (k = 0; k < periods * (long)N && st == FCD_OK && w->n < w->cap; k++)
    st = fcd_integrator_step(it);
  *secs = now() - t0;
  fcd_integrator_destroy(it);
  free(z);
  long np = w->n / (long)N;
  *reach = -1;
  *last = np > 0 ? rms_about_mean(w->un + (np - 1) * (long)N, (long)N) : NAN;
  for (long q = np - 1; q >= 0; q--)
    if (fabs(rms_about_mean(w->un + q * (long)N, (long)N) / rn - 1) > 1e-2) {
      *reach = q + 1 < np ? q + 1 : -1;
      break;
    }
  if (*reach < 0 && np > 0 && fabs(*last / rn - 1) <= 1e-2) *reach = 0;
  *secs *= (double)np * (double)N / (double)(k > 0 ? k : 1);
  return st;
}

static fcd_status forced_brake(const brake *b2, fcd_reduction *red, watch *w,
                               const options *o) {
  fcd_system *rs = fcd_reduction_system(red);
  fcd_contact_set *rcs = fcd_reduction_contact_set(red);
  fcd_index n = fcd_system_ndofs(rs);
  double *g = calloc((size_t)n, sizeof *g), *ue = calloc((size_t)n, sizeof *ue);
  double *z = calloc((size_t)n, sizeof *z), *u0 = calloc((size_t)n, sizeof *u0);
  double *v0 = calloc((size_t)n, sizeof *v0), *pu = calloc((size_t)n, sizeof *pu);
  double *pv = calloc((size_t)n, sizeof *pv), T = 0, w0 = 2 * FCD_BENCH_PI * o->fband[0];
  fcd_periodic *p = NULL;
  fcd_equilibrium *eq = NULL;
  fcd_periodic_info in = {0};
  pin_load pl = {g, n, w0};
  set_all_friction(rcs, o->forced);
  fcd_status st = pin_load_vector(b2, red, o->force, g);
  if (st == FCD_OK) st = fcd_equilibrium_create(rs, rcs, &eq);
  if (st == FCD_OK) st = fcd_equilibrium_solve(eq, FCD_EQ_STEADY_SLIDING, 0.0);
  if (st == FCD_OK) st = fcd_equilibrium_get_state(eq, ue);
  fcd_equilibrium_destroy(eq);
  if (st == FCD_OK) st = fcd_periodic_create(rs, rcs, FCD_SCHEME_MODIFIED_THETA, &p);
  if (st == FCD_OK) st = fcd_periodic_set_param(p, FCD_PARAM_STEP, o->h);
  if (st == FCD_OK) st = fcd_periodic_set_forcing(p, w0, pin_forcing, &pl);
  double t0 = now();
  if (st == FCD_OK) st = fcd_periodic_solve(p, ue, z, 2 * FCD_BENCH_PI / w0);
  double secs = now() - t0;
  if (st == FCD_OK) st = fcd_periodic_get_info(p, &in);
  if (st == FCD_OK) st = fcd_periodic_get_orbit(p, &T, u0, v0);
  if (st == FCD_OK)
    printf("forced: mu %.3f, %.4g N a pin node at %.3f Hz: the orbit by shooting in %.1f s, "
           "%ld Newton iterations, %ld periods of %ld steps, residual %.1e, A_u %.4e, "
           "largest multiplier %.4f, verdict %d; %ld state unknowns\n", o->forced, o->force,
           o->fband[0], secs, (long)in.iterations, (long)in.evaluations, (long)in.steps,
           in.residual, in.amplitude_u, in.max_multiplier, in.stable,
           2 * (long)(n - fcd_system_num_fixed(rs)));
  /* the orbit's RMS and the transient, the load now the system's (the solver's hook off) */
  double rn = 0, rt = 0, last = 0, tsecs = 0;
  long reach = -1;
  if (st == FCD_OK) st = fcd_system_set_load_fn(rs, pin_load_fn, &pl);
  if (st == FCD_OK) st = orbit_rms(rs, rcs, w, T, in.steps, u0, v0, &rn, &rt);
  if (st == FCD_OK)
    st = forced_transient(rs, rcs, w, ue, T, in.steps, o->tend, rn, &reach, &last, &tsecs);
  fcd_system_set_load_fn(rs, NULL, NULL);
  if (st == FCD_OK)
    printf("forced: the orbit's RMS u_n %.4e; the transient from the equilibrium (%.2f s, "
           "%.1f s): its last period's %.4e (%+.2e), within 1 %% of the orbit's from period "
           "%ld on (%.1f s of its steps; the shooting %.1f s)\n", rn, o->tend, tsecs, last,
           last / rn - 1, reach, reach >= 0 ? tsecs * (double)reach * T / o->tend : NAN,
           secs);
  fcurve c = {p, now(), 0, 0, pu, pv, 0};
  double tc = now();
  if (st == FCD_OK) {
    fcd_status sc = fcd_periodic_continue_forcing(p, FCD_PERIODIC_CONTINUE_OMEGA,
                                                  2 * FCD_BENCH_PI * o->fband[1], 0.002, 60,
                                                  forced_point, &c);
    fcd_periodic_info ie = {0};
    fcd_periodic_get_info(p, &ie);
    tc = now() - tc;
    printf("forced: the response curve to %.1f Hz: %d points in %.1f s (%.1f s, %ld periods "
           "a point); its peak A_u %.4e at %.3f Hz%s%s\n", o->fband[1], c.n, tc,
           tc / (c.n > 0 ? c.n : 1), (long)(ie.evaluations / (c.n > 0 ? c.n : 1)), c.peak,
           c.peak_w / (2 * FCD_BENCH_PI), sc == FCD_OK ? "" : "; stopped: ",
           sc == FCD_OK ? "" : fcd_system_last_error(rs));
  }
  if (st != FCD_OK) fprintf(stderr, "forced: %s\n", fcd_system_last_error(rs));
  fcd_periodic_destroy(p);
  free(g); free(ue); free(z); free(u0); free(v0); free(pu); free(pv);
  return st;
}

/* one reduced model: reduce, map the start, integrate, the figures and the indicator */
static int run_reduced(brake *b2, long nmodes, const double *ue, const options *o,
                       double fmode, const cycle *ref, FILE *csv) {
  fcd_reduction *red = NULL;
  double t0 = now();
  fcd_status st = reduce(o, b2->sys, b2->cs, nmodes, &red);
  double t_red = now() - t0;
  if (st != FCD_OK) {
    fprintf(stderr, "reduction with %ld modes: %s\n", nmodes, fcd_system_last_error(b2->sys));
    return 1;
  }
  fcd_index nk = 0, nm = 0;
  double fmax_hz = 0;
  fcd_reduction_get_info(red, &nk, &nm, &fmax_hz, NULL);
  fcd_index *kept = malloc(sizeof *kept * (size_t)nk), nr = nk + nm;
  fcd_reduction_get_info(red, NULL, NULL, NULL, kept);
  fcd_system *rs = fcd_reduction_system(red);
  double *ur = malloc(sizeof *ur * (size_t)nr), *ua = malloc(sizeof *ua * (size_t)nr);
  double *va = malloc(sizeof *va * (size_t)nr), *ub = malloc(sizeof *ub * (size_t)nr);
  double *vb = malloc(sizeof *vb * (size_t)nr), *ut = malloc(sizeof *ut * (size_t)nr);
  double *vt = malloc(sizeof *vt * (size_t)nr), *ar = malloc(sizeof *ar * (size_t)nr);
  watch w;
  watch_init(&w, b2, (long)(o->tend / o->h) + 10);
  if (o->modal) w.red = red;
  for (int d = 0; d < 3; d++)
    for (fcd_index j = 0; j < nk; j++)
      if (kept[j] == w.mon[d]) w.mon[d] = j;
  cycle c = {0};
  double rel = -1;
  if (o->forced > 0) {
    st = forced_brake(b2, red, &w, o);
    watch_free(&w);
    free(kept); free(ur); free(ua); free(va); free(ub); free(vb); free(ut); free(vt); free(ar);
    fcd_reduction_destroy(red);
    return st != FCD_OK;
  }
  st = fcd_reduction_restrict(red, ue, ur);
  if (st == FCD_OK)
    st = transient(rs, fcd_reduction_contact_set(red), ur, o->h, o->tend, &w, ua, va, ub, vb,
                   &c.secs);
  if (st == FCD_OK) {
    /* the indicator at the last step's theta point (theta = 1/2) */
    for (fcd_index k = 0; k < nr; k++) {
      ut[k] = 0.5 * (ua[k] + ub[k]);
      vt[k] = 0.5 * (va[k] + vb[k]);
      ar[k] = (vb[k] - va[k]) / o->h;
    }
    st = fcd_reduction_residual(red, o->tend, ut, vt, ar, &rel);
  }
  if (st == FCD_OK) {
    c.steps = w.n;
    figures(&w, o->h, o->window, fmode, &c);
    char what[32];
    snprintf(what, sizeof what, "reduced");
    print_row(csv, what, (long)nm, (long)nk, fmax_hz, t_red, &c, ref, rel);
    double band = 0, cut = 0, share = -1;
    fcd_index ndamp = 0;
    fcd_reduction_get_band(red, &band, &cut, &ndamp);
    fcd_reduction_band_energy(red, vb, &share);
    printf("  band %.1f Hz, damped above %.1f Hz (%ld directions, xi = %g); kinetic energy "
           "above the band at the end: %.2e\n", band, cut, (long)ndamp, o->band_damping, share);
    dense_floor fl; /* the reduced matrices dense: not in modal coordinates */
    if (!o->modal && dense_floor_measure(rs, fcd_reduction_contact_set(red), 20, &fl) == 0)
      printf("  the step's dense floor (dense_floor.h): %.3f ms (K %.3f, M %.3f, C %.3f, the "
             "factor's two passes %.3f, W %.3f; %ld unknowns, %ld contact rows): a step "
             "%.2f times it\n", 1e3 * fl.total, 1e3 * fl.k, 1e3 * fl.mass, 1e3 * fl.c,
             1e3 * fl.factor, 1e3 * fl.w, fl.n, fl.m, c.secs / (double)c.steps / fl.total);
  }
  if (st == FCD_OK && o->shoot)
    st = shoot_cycle(rs, fcd_reduction_contact_set(red), ub, vb, o->h, &c, &w, o->follow,
                     o->branch, o->tend, o->window);
  watch_free(&w);
  free(kept); free(ur); free(ua); free(va); free(ub); free(vb); free(ut); free(vt); free(ar);
  fcd_reduction_destroy(red);
  return st != FCD_OK;
}

/* ---- the stability chart (--chart) ---- */
enum { CH_MU = 26, CH_EV = 64 };
typedef struct {
  int n;
  double mu[CH_MU], r1[CH_MU], f1[CH_MU], r2[CH_MU], f2[CH_MU];
  double mu_c[2], hz_c[2]; /* the two thresholds refined by false position, NAN if none */
} chart;

/* per mu: the two largest growth rates among the eigenvalues with Im > 0, and their
 * frequencies */
static int chart_row(void *ud, double mu, fcd_index n, const double *re, const double *im,
                     const fcd_index *track) {
  (void)track;
  chart *c = ud;
  if (c->n >= CH_MU) return 0;
  double r1 = -INFINITY, r2 = -INFINITY, f1 = NAN, f2 = NAN;
  for (fcd_index i = 0; i < n; i++) {
    if (!(im[i] > 0)) continue;
    double f = im[i] / (2 * FCD_BENCH_PI);
    if (re[i] > r1) {
      r2 = r1;
      f2 = f1;
      r1 = re[i];
      f1 = f;
    } else if (re[i] > r2) {
      r2 = re[i];
      f2 = f;
    }
  }
  c->mu[c->n] = mu;
  c->r1[c->n] = r1;
  c->f1[c->n] = f1;
  c->r2[c->n] = r2;
  c->f2[c->n] = f2;
  c->n++;
  return 0;
}

/* the first mu where r crosses zero upwards (linear between the sweep's values), and the
 * frequency f there (the sweep's value after the crossing); NAN when it does not */
static void crossing(const chart *c, const double *r, const double *f, double *mu, double *hz) {
  *mu = *hz = NAN;
  for (int k = 1; k < c->n; k++)
    if (r[k - 1] <= 0 && r[k] > 0) {
      *mu = c->mu[k - 1] + (c->mu[k] - c->mu[k - 1]) * (-r[k - 1]) / (r[k] - r[k - 1]);
      *hz = f[k];
      return;
    }
}

/* the k-th (0: largest, 1: second) growth rate among the eigenvalues with Im > 0 of one
 * solve at mu, and its frequency */
static fcd_status growth_at(fcd_stability *sa, double mu, int k, double *r, double *hz) {
  fcd_index nconv = 0;
  fcd_status st = fcd_stability_set_param(sa, FCD_STAB_MU, mu);
  if (st == FCD_OK) st = fcd_stability_solve(sa, &nconv);
  double rb[2] = {-INFINITY, -INFINITY}, fb[2] = {NAN, NAN};
  for (fcd_index i = 0; st == FCD_OK && i < nconv; i++) {
    double re, im;
    if ((st = fcd_stability_get_eigenvalue(sa, i, &re, &im)) != FCD_OK || !(im > 0)) continue;
    if (re > rb[0]) {
      rb[1] = rb[0];
      fb[1] = fb[0];
      rb[0] = re;
      fb[0] = im / (2 * FCD_BENCH_PI);
    } else if (re > rb[1]) {
      rb[1] = re;
      fb[1] = im / (2 * FCD_BENCH_PI);
    }
  }
  *r = rb[k];
  *hz = fb[k];
  return st;
}

/* The threshold where growth rate k crosses zero between the sweep's values around it,
 * by false position (Illinois) until the bracket is 1e-5 wide or 8 solves: the sweep's
 * linear interpolation is the chart's figure, this is the analysis' own threshold */
static fcd_status refine(fcd_stability *sa, const chart *c, int k, double *mu, double *hz) {
  const double *r = k ? c->r2 : c->r1;
  *mu = *hz = NAN;
  int j = 0;
  while (j + 1 < c->n && !(r[j] <= 0 && r[j + 1] > 0)) j++;
  if (j + 1 >= c->n) return FCD_OK;
  double a = c->mu[j], b = c->mu[j + 1], ra = r[j], rb = r[j + 1];
  int side = 0;
  fcd_status st = FCD_OK;
  for (int it = 0; it < 8 && b - a > 1e-5 && st == FCD_OK; it++) {
    double m = a + (b - a) * (-ra) / (rb - ra), rm, fm;
    if ((st = growth_at(sa, m, k, &rm, &fm)) != FCD_OK) break;
    *hz = fm;
    if (rm > 0) {
      b = m;
      rb = rm;
      if (side == 1) ra /= 2;
      side = 1;
    } else {
      a = m;
      ra = rm;
      if (side == -1) rb /= 2;
      side = -1;
    }
  }
  *mu = a + (b - a) * (-ra) / (rb - ra);
  return st;
}

/* the chart of (sys, cs) about the sliding state (status, slip, rn, vg); the most unstable
 * eigenvalue at 0.45 in *re45, *hz45 */
static fcd_status run_chart(fcd_system *sys, fcd_contact_set *cs, const int *status,
                            const double *slip, const double *rn, const double *vg,
                            const options *o, chart *c, double *re45, double *hz45,
                            double *secs) {
  fcd_stability *sa = NULL;
  double t0 = now();
  memset(c, 0, sizeof *c);
  fcd_status st = fcd_stability_create(sys, cs, &sa);
  if (st == FCD_OK) st = fcd_stability_set_contact_state(sa, status, slip);
  if (st == FCD_OK) st = fcd_stability_set_sliding_data(sa, rn, vg);
  if (st == FCD_OK) st = fcd_stability_set_param(sa, FCD_STAB_TARGET_HZ, 3000);
  if (st == FCD_OK) st = fcd_stability_set_param(sa, FCD_STAB_NEV, 20);
  if (st == FCD_OK) st = fcd_stability_set_param(sa, FCD_STAB_DENSE_MAX, 0);
  if (st == FCD_OK && o->proj > 0)
    st = fcd_stability_set_param(sa, FCD_STAB_PROJECTION_MODES, o->proj);
  if (st == FCD_OK && o->undamped) st = fcd_stability_set_param(sa, FCD_STAB_DAMPING, 0);
  if (st == FCD_OK) st = fcd_stability_sweep(sa, 0.0, 0.5, CH_MU, chart_row, c);
  for (int k = 0; k < 2 && st == FCD_OK; k++) st = refine(sa, c, k, &c->mu_c[k], &c->hz_c[k]);
  double im = 0;
  if (st == FCD_OK) st = fcd_stability_set_param(sa, FCD_STAB_MU, 0.45);
  if (st == FCD_OK) st = fcd_stability_solve(sa, NULL);
  if (st == FCD_OK) st = fcd_stability_get_eigenvalue(sa, 0, re45, &im);
  *hz45 = fabs(im) / (2 * FCD_BENCH_PI);
  *secs = now() - t0;
  if (st != FCD_OK) fprintf(stderr, "chart: %s\n", fcd_system_last_error(sys));
  fcd_stability_destroy(sa);
  return st;
}

/* the chart's figures in f: the two thresholds interpolated on the sweep and refined,
 * their frequencies, and the most unstable eigenvalue at 0.45 */
enum { CF_N = 10 };
static void chart_figs(const chart *c, double re45, double hz45, double *f) {
  crossing(c, c->r1, c->f1, &f[0], &f[1]);
  crossing(c, c->r2, c->f2, &f[2], &f[3]);
  f[4] = c->mu_c[0];
  f[5] = c->hz_c[0];
  f[6] = c->mu_c[1];
  f[7] = c->hz_c[1];
  f[8] = re45;
  f[9] = hz45;
}

static void chart_line(const char *what, long modes, double t_red, double secs, const double *f,
                       const double *ref) {
  printf("%-8s %5ld %7.1f %7.1f %8.4f %8.1f %8.4f %8.1f %8.5f %8.1f %8.5f %8.1f %8.2f %8.1f",
         what, modes, t_red, secs, f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9]);
  if (ref) {
    printf("  ");
    for (int i = 0; i < CF_N; i++) printf(" %+.2e", f[i] / ref[i] - 1);
  }
  printf("\n");
  fflush(stdout);
}

static int charts(const options *o) {
  brake b;
  memset(&b, 0, sizeof b);
  if (brake_build(&b, o->nr, o->nt, o->nz, 0.2) != FCD_OK) return 1;
  fcd_index nc = b.ncont;
  int *status = malloc(sizeof *status * (size_t)nc);
  double *slip = malloc(sizeof *slip * 2 * (size_t)nc), *r = malloc(sizeof *r * 3 * (size_t)nc);
  double *rn = malloc(sizeof *rn * (size_t)nc);
  fcd_equilibrium *eq = NULL;
  fcd_status st = fcd_equilibrium_create(b.sys, b.cs, &eq);
  if (st == FCD_OK) st = fcd_equilibrium_solve(eq, FCD_EQ_STEADY_SLIDING, 0.0);
  if (st == FCD_OK) st = fcd_equilibrium_get_contact_state(eq, status, slip);
  if (st == FCD_OK) st = fcd_equilibrium_get_reactions(eq, r);
  for (fcd_index c = 0; c < nc; c++) rn[c] = r[3 * c];
  fcd_equilibrium_destroy(eq);
  printf("brake: %lld dofs; stability charts, mu in [0, 0.5] (%d values), 20 eigenvalues "
         "nearest 3 kHz, %s, projection basis %d%s; thresholds interpolated on the sweep (mu_c) "
         "and refined (mu*)\n%-8s %5s %7s %7s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s   %s\n",
         (long long)fcd_system_ndofs(b.sys), CH_MU,
         o->undamped ? "undamped (no projection)" : "damped", o->proj ? o->proj : 40,
         o->proj ? "" : " (default)", "model", "modes", "reduce", "chart s", "mu_c1", "f_c1",
         "mu_c2", "f_c2", "mu*1", "f*1", "mu*2", "f*2", "Re@0.45", "f@0.45",
         "vs full, the same columns");
  chart c;
  double re45, hz45, secs, ref[CF_N], f[CF_N];
  int rc = 0;
  if (o->reduced_only) {
    memset(ref, 0, sizeof ref);
  } else if (st == FCD_OK && (st = run_chart(b.sys, b.cs, status, slip, rn, b.vg, o, &c,
                                             &re45, &hz45, &secs)) == FCD_OK) {
    chart_figs(&c, re45, hz45, ref);
    chart_line("full", 0, 0, secs, ref, NULL);
  } else {
    rc = 1;
  }
  for (int k = 0; k < o->nmodes && st == FCD_OK; k++) {
    fcd_reduction *red = NULL;
    double t0 = now();
    fcd_status s2 = reduce(o, b.sys, b.cs, o->modes[k], &red);
    double t_red = now() - t0;
    if (s2 == FCD_OK)
      s2 = run_chart(fcd_reduction_system(red), fcd_reduction_contact_set(red), status, slip,
                     rn, b.vg, o, &c, &re45, &hz45, &secs);
    if (s2 == FCD_OK) {
      chart_figs(&c, re45, hz45, f);
      chart_line("reduced", o->modes[k], t_red, secs, f, o->reduced_only ? NULL : ref);
    }
    else rc = 1;
    fcd_reduction_destroy(red);
  }
  free(status); free(slip); free(r); free(rn);
  brake_free(&b);
  return rc;
}


/* ---- the long run (--long MU) ---- */

/* the perturbation energy about the sliding equilibrium, sampled every few steps, and
 * the end of the linear phase (the first step where a contact does not slip) */
typedef struct {
  watch *w;
  fcd_system *sys;
  const double *ue;
  double *du, *y;
  fcd_index ncont;
  long every, k, n, cap;
  double *t, *e;
  double t_nonlin, next_print;
} energy_watch;

static double perturbation_energy(energy_watch *ew, const double *u, const double *v) {
  fcd_index n = fcd_system_ndofs(ew->sys);
  double e = 0;
  for (fcd_index i = 0; i < n; i++) ew->du[i] = u[i] - ew->ue[i];
  fcd_system_apply(ew->sys, FCD_STIFFNESS, ew->du, ew->y);
  for (fcd_index i = 0; i < n; i++) e += 0.5 * ew->du[i] * ew->y[i];
  fcd_system_apply(ew->sys, FCD_MASS, v, ew->y);
  for (fcd_index i = 0; i < n; i++) e += 0.5 * v[i] * ew->y[i];
  return e;
}

static int on_long_step(void *ud, double t, fcd_index n, const double *u, const double *v,
                        fcd_index nl, const double *r, const fcd_contact_counts *cc) {
  energy_watch *ew = ud;
  on_step(ew->w, t, n, u, v, nl, r, cc);
  if (cc->slip != ew->ncont && isnan(ew->t_nonlin)) ew->t_nonlin = t;
  if (ew->k++ % ew->every == 0 && ew->n < ew->cap) {
    ew->t[ew->n] = t;
    ew->e[ew->n] = perturbation_energy(ew, u, v);
    if (t >= ew->next_print) {
      printf("  t = %6.3f s  energy %.4e J  open %lld stick %lld\n", t, ew->e[ew->n],
             (long long)cc->open, (long long)cc->stick);
      fflush(stdout);
      ew->next_print += 0.1;
    }
    ew->n++;
  }
  return 0;
}

/* least-squares slope of log e over the samples with t in [t0, t1] */
static double log_slope(const energy_watch *ew, double t0, double t1, long *used) {
  double st = 0, sy = 0, stt = 0, sty = 0;
  long m = 0;
  for (long i = 0; i < ew->n; i++) {
    if (ew->t[i] < t0 || ew->t[i] > t1 || !(ew->e[i] > 0)) continue;
    double y = log(ew->e[i]);
    st += ew->t[i];
    sy += y;
    stt += ew->t[i] * ew->t[i];
    sty += ew->t[i] * y;
    m++;
  }
  *used = m;
  return m > 1 ? (m * sty - st * sy) / (m * stt - st * st) : NAN;
}

/* the sliding equilibrium of (sys, cs) at its own mu, and the most unstable eigenpair of
 * its friction-linearized pencil there (mode's real and imaginary parts may be NULL) */
static fcd_status sliding_eigen(fcd_system *sys, fcd_contact_set *cs, fcd_index nc,
                                const double *vg, double mu, double *ue, double *re,
                                double *im, double *mre, double *mim) {
  fcd_equilibrium *eq = NULL;
  fcd_stability *sa = NULL;
  int *status = malloc(sizeof *status * (size_t)nc);
  double *slip = malloc(sizeof *slip * 2 * (size_t)nc), *r = malloc(sizeof *r * 3 * (size_t)nc);
  double *rn = malloc(sizeof *rn * (size_t)nc);
  fcd_status st = fcd_equilibrium_create(sys, cs, &eq);
  if (st == FCD_OK) st = fcd_equilibrium_solve(eq, FCD_EQ_STEADY_SLIDING, 0.0);
  if (st == FCD_OK) st = fcd_equilibrium_get_contact_state(eq, status, slip);
  if (st == FCD_OK) st = fcd_equilibrium_get_reactions(eq, r);
  if (st == FCD_OK && ue) st = fcd_equilibrium_get_state(eq, ue);
  for (fcd_index c = 0; c < nc; c++) rn[c] = r[3 * c];
  if (st == FCD_OK) st = fcd_stability_create(sys, cs, &sa);
  if (st == FCD_OK) st = fcd_stability_set_contact_state(sa, status, slip);
  if (st == FCD_OK) st = fcd_stability_set_sliding_data(sa, rn, vg);
  if (st == FCD_OK) st = fcd_stability_set_param(sa, FCD_STAB_TARGET_HZ, 3000);
  if (st == FCD_OK) st = fcd_stability_set_param(sa, FCD_STAB_NEV, 20);
  if (st == FCD_OK) st = fcd_stability_set_param(sa, FCD_STAB_DENSE_MAX, 0);
  if (st == FCD_OK) st = fcd_stability_set_param(sa, FCD_STAB_MU, mu);
  if (st == FCD_OK) st = fcd_stability_solve(sa, NULL);
  if (st == FCD_OK) st = fcd_stability_get_eigenvalue(sa, 0, re, im);
  if (st == FCD_OK && (mre || mim)) st = fcd_stability_get_mode(sa, 0, mre, mim);
  if (st != FCD_OK) fprintf(stderr, "sliding eigen: %s\n", fcd_system_last_error(sys));
  fcd_stability_destroy(sa);
  fcd_equilibrium_destroy(eq);
  free(status); free(slip); free(r); free(rn);
  return st;
}

/* the start: the reduced sliding equilibrium plus amp times the most unstable mode,
 * x(0) = Re(phi), x'(0) = Re(lambda phi), so that the linear motion is that mode alone */
static void mode_start(fcd_index n, double amp, double re, double im, const double *mre,
                       const double *mim, double *u0, double *v0) {
  for (fcd_index i = 0; i < n; i++) {
    double a = isnan(mre[i]) ? 0 : mre[i], b = isnan(mim[i]) ? 0 : mim[i];
    u0[i] += amp * a;
    v0[i] = amp * (re * a - im * b);
  }
}

static void long_report(const options *o, energy_watch *ew, double re, double im,
                        double re_full, double secs) {
  /* the linear phase: from 10 periods in to 90 % of the first non-slipping step */
  double period = 2 * FCD_BENCH_PI / fabs(im);
  double t1 = isnan(ew->t_nonlin) ? o->tend : ew->t_nonlin;
  long used = 0;
  double g = 0.5 * log_slope(ew, 10 * period, 0.9 * t1, &used);
  /* the scheme's own rate for that eigenvalue: theta = 1/2 maps lambda h to
   * (1 + lambda h / 2) / (1 - lambda h / 2) */
  double ar = 1 + 0.5 * o->h * re, ai = 0.5 * o->h * im, br = 1 - 0.5 * o->h * re;
  double disc = 0.5 * log((ar * ar + ai * ai) / (br * br + ai * ai)) / o->h;
  printf("linear phase: %.4f s to %.4f s (%ld samples); energy growth rate / 2 = %.4f s^-1\n"
         "  eigenvalue (integrated model) Re = %.4f s^-1 (%.1f Hz): %+.2f %%; the scheme's rate for it "
         "%.4f s^-1: %+.2f %%; full model's Re = %.4f s^-1\n",
         10 * period, 0.9 * t1, used, g, re, fabs(im) / (2 * FCD_BENCH_PI),
         100 * (g / re - 1), disc, 100 * (g / disc - 1), re_full);
  cycle c = {0};
  c.secs = secs;
  c.steps = ew->w->n;
  figures(ew->w, o->h, o->window, fabs(im) / (2 * FCD_BENCH_PI), &c);
  double em = 0;
  long ne = 0;
  for (long i = 0; i < ew->n; i++)
    if (ew->t[i] >= o->tend - o->window) em += ew->e[i], ne++;
  printf("limit cycle (last %g s): rms u_n %.4e  rms u_t %.4e  f %.2f Hz  F_b %.2f N  open "
         "%d-%d  mean energy %.4e J; %ld steps in %.1f s (%.2f ms/step)\n",
         o->window, c.rms_n, c.rms_t, c.hz, c.fb, c.open_min, c.open_max,
         ne ? em / ne : NAN, c.steps, secs, 1e3 * secs / (double)c.steps);
}

/* the modal model's start from its Craig-Bampton twin's (the same basis): expand with
 * the twin, restrict with the modal reduction (exact on the basis) */
static fcd_status twin_to_modal(const fcd_reduction *twin, const fcd_reduction *red,
                                fcd_index n, const double *xa, double *x) {
  double *full = malloc(sizeof *full * (size_t)n);
  fcd_status st = full ? fcd_reduction_expand(twin, xa, full) : FCD_E_NOMEM;
  if (st == FCD_OK) st = fcd_reduction_restrict(red, full, x);
  free(full);
  return st;
}

/* the analysed model's sliding state ue, mode start (u0, v0) and eigenvalue: the
 * integrated model's own, or with --modal its Craig-Bampton twin's mapped onto it */
typedef struct {
  fcd_reduction *red, *twin;
  double re, im, t_red, t_twin;
  double *ue, *u0, *v0;
} long_start;

static fcd_status long_setup(const options *o, brake *b, long_start *ls) {
  fcd_index n = fcd_system_ndofs(b->sys);
  double t0 = now();
  fcd_status st = o->full ? FCD_OK : reduce(o, b->sys, b->cs, o->modes[0], &ls->red);
  ls->t_red = now() - t0;
  /* the stability analysis refuses modal rows: it runs on the Craig-Bampton model of the
   * same modes, whose states restrict onto the modal coordinates exactly */
  t0 = now();
  if (st == FCD_OK && o->modal)
    st = fcd_reduction_create_enriched(b->sys, b->cs, o->modes[0], o->inertia, 0, &ls->twin);
  ls->t_twin = now() - t0;
  if (st != FCD_OK) return st;
  fcd_reduction *ar = ls->twin ? ls->twin : ls->red;
  fcd_system *as = ar ? fcd_reduction_system(ar) : b->sys;
  fcd_contact_set *acs = ar ? fcd_reduction_contact_set(ar) : b->cs;
  fcd_index na = fcd_system_ndofs(as);
  fcd_index nr = ls->red ? fcd_system_ndofs(fcd_reduction_system(ls->red)) : n;
  double *ue = malloc(sizeof *ue * (size_t)na), *u0 = malloc(sizeof *u0 * (size_t)na);
  double *v0 = calloc((size_t)na, sizeof *v0), *mre = malloc(sizeof *mre * (size_t)na);
  double *mim = malloc(sizeof *mim * (size_t)na);
  st = sliding_eigen(as, acs, b->ncont, b->vg, o->mu_long, ue, &ls->re, &ls->im, mre, mim);
  if (st == FCD_OK && ar) {
    /* the amplitude on the same scale as the full model's: the reduced mode expanded to
     * the full dofs has largest modulus 1 (fcd_stability_get_mode normalizes over the
     * reduced coordinates) */
    double *er = malloc(sizeof *er * (size_t)n), *ei = malloc(sizeof *ei * (size_t)n), top = 0;
    for (fcd_index i = 0; i < na; i++) {
      if (isnan(mre[i])) mre[i] = 0;
      if (isnan(mim[i])) mim[i] = 0;
    }
    if (fcd_reduction_expand(ar, mre, er) == FCD_OK && fcd_reduction_expand(ar, mim, ei) == FCD_OK)
      for (fcd_index i = 0; i < n; i++) top = fmax(top, hypot(er[i], ei[i]));
    for (fcd_index i = 0; i < na && top > 0; i++) {
      mre[i] /= top;
      mim[i] /= top;
    }
    free(er);
    free(ei);
  }
  if (st == FCD_OK) {
    memcpy(u0, ue, sizeof *u0 * (size_t)na);
    mode_start(na, o->amp, ls->re, ls->im, mre, mim, u0, v0);
  }
  free(mre);
  free(mim);
  if (st == FCD_OK && ls->twin) {
    ls->ue = malloc(sizeof *ls->ue * (size_t)nr);
    ls->u0 = malloc(sizeof *ls->u0 * (size_t)nr);
    ls->v0 = malloc(sizeof *ls->v0 * (size_t)nr);
    st = twin_to_modal(ls->twin, ls->red, n, ue, ls->ue);
    if (st == FCD_OK) st = twin_to_modal(ls->twin, ls->red, n, u0, ls->u0);
    if (st == FCD_OK) st = twin_to_modal(ls->twin, ls->red, n, v0, ls->v0);
    free(ue);
    free(u0);
    free(v0);
  } else {
    ls->ue = ue;
    ls->u0 = u0;
    ls->v0 = v0;
  }
  return st;
}

static int long_run(const options *o) {
  brake b;
  memset(&b, 0, sizeof b);
  if (brake_build(&b, o->nr, o->nt, o->nz, o->mu_long) != FCD_OK) return 1;
  fcd_index n = fcd_system_ndofs(b.sys);
  double re_full = NAN, im_full = NAN;
  long_start ls = {0};
  fcd_status st = sliding_eigen(b.sys, b.cs, b.ncont, b.vg, o->mu_long, NULL, &re_full,
                                &im_full, NULL, NULL);
  /* --full: the same run on the full model, which the reduced one is measured against */
  if (st == FCD_OK) st = long_setup(o, &b, &ls);
  if (st != FCD_OK) return 1;
  fcd_reduction *red = ls.red;
  fcd_system *rs = red ? fcd_reduction_system(red) : b.sys;
  fcd_contact_set *rcs = red ? fcd_reduction_contact_set(red) : b.cs;
  fcd_index nr = fcd_system_ndofs(rs), nk = 0, nm = 0;
  fcd_index *kept = NULL;
  if (red) {
    fcd_reduction_get_info(red, &nk, &nm, NULL, NULL);
    kept = malloc(sizeof *kept * (size_t)nk);
    fcd_reduction_get_info(red, NULL, NULL, NULL, kept);
  }
  printf("brake: %lld dofs, %s %lld (%lld modes%s, reduction %.1f s%s); mu = %.3f: most "
         "unstable eigenvalue full %.4f s^-1 at %.1f Hz, integrated model %.4f s^-1 at %.1f "
         "Hz; start amplitude %g m along it, h = %g s to %g s\n", (long long)n,
         red ? "reduced to" : "integrated whole:", (long long)nr, (long long)nm,
         o->modal ? ", modal" : "", ls.t_red, ls.twin ? ", its Craig-Bampton twin for the analysis" : "",
         o->mu_long, re_full, fabs(im_full) / (2 * FCD_BENCH_PI), ls.re,
         fabs(ls.im) / (2 * FCD_BENCH_PI), o->amp, o->h, o->tend);
  if (ls.twin) printf("  the twin's reduction %.1f s\n", ls.t_twin);
  fflush(stdout);
  watch w;
  watch_init(&w, &b, (long)(o->tend / o->h) + 10);
  if (o->modal) w.red = red;
  for (int d = 0; d < 3 && !o->modal; d++)
    for (fcd_index j = 0; j < nk; j++)
      if (kept[j] == w.mon[d]) w.mon[d] = j;
  double *du = malloc(sizeof *du * (size_t)nr), *y = malloc(sizeof *y * (size_t)nr);
  energy_watch ew = {&w, rs, ls.ue, du, y, b.ncont, 10, 0, 0, (long)(o->tend / o->h) / 10 + 10,
                     NULL, NULL, NAN, 0};
  ew.t = malloc(sizeof *ew.t * (size_t)ew.cap);
  ew.e = malloc(sizeof *ew.e * (size_t)ew.cap);
  fcd_integrator *it = NULL;
  if (st == FCD_OK) st = fcd_integrator_create(rs, rcs, FCD_SCHEME_MODIFIED_THETA, &it);
  if (st == FCD_OK) st = fcd_integrator_set_param(it, FCD_PARAM_STEP, o->h);
  if (st == FCD_OK) st = fcd_integrator_set_state(it, 0.0, ls.u0, ls.v0);
  if (st == FCD_OK) st = fcd_integrator_set_observer(it, on_long_step, &ew);
  double t0 = now();
  if (st == FCD_OK) st = fcd_integrator_advance(it, o->tend);
  double secs = now() - t0;
  if (st != FCD_OK) fprintf(stderr, "long run: %s\n", fcd_system_last_error(rs));
  else long_report(o, &ew, ls.re, ls.im, re_full, secs);
  fcd_integrator_destroy(it);
  watch_free(&w);
  free(ew.t); free(ew.e); free(kept); free(du); free(y);
  free(ls.ue); free(ls.u0); free(ls.v0);
  fcd_reduction_destroy(ls.twin);
  fcd_reduction_destroy(red);
  brake_free(&b);
  return st != FCD_OK;
}

/* the cost of a step of (sys, cs) from its sliding state at mu = 0.45 plus a tenth of the
 * pins' compression along its most unstable mode: ms per step over `steps` steps */
static fcd_status step_ms(fcd_system *sys, fcd_contact_set *cs, const brake *b, long steps,
                          double h, double *ms, double *re45) {
  fcd_index nr = fcd_system_ndofs(sys);
  double *u0 = malloc(sizeof *u0 * (size_t)nr), *v0 = calloc((size_t)nr, sizeof *v0);
  double *mre = malloc(sizeof *mre * (size_t)nr), *mim = malloc(sizeof *mim * (size_t)nr);
  double im = 0;
  fcd_status st = sliding_eigen(sys, cs, b->ncont, b->vg, 0.45, u0, re45, &im, mre, mim);
  for (fcd_index i = 0; i < nr && st == FCD_OK; i++)
    if (!isnan(mre[i])) u0[i] += 0.1 * UPIN * mre[i];
  fcd_integrator *it = NULL;
  if (st == FCD_OK) st = fcd_integrator_create(sys, cs, FCD_SCHEME_MODIFIED_THETA, &it);
  if (st == FCD_OK) st = fcd_integrator_set_param(it, FCD_PARAM_STEP, h);
  if (st == FCD_OK) st = fcd_integrator_set_state(it, 0.0, u0, v0);
  double t0 = now();
  for (long k = 0; k < steps && st == FCD_OK; k++) st = fcd_integrator_step(it);
  *ms = 1e3 * (now() - t0) / (double)steps;
  if (st != FCD_OK) fprintf(stderr, "steps: %s\n", fcd_system_last_error(sys));
  fcd_integrator_destroy(it);
  free(u0); free(v0); free(mre); free(mim);
  return st;
}

/* ---- the growth with model size (--scale NZ1,NZ2,...) ---- */

/* the reduction of the brake with nz axial layers in the disc (the interface, the pins and
 * their contacts, unchanged) and the cost of its steps from the reduced sliding state at
 * mu = 0.45 plus a tenth of the pins' compression along its most unstable mode */
static int scale_row(const options *o, int nz) {
  brake b;
  memset(&b, 0, sizeof b);
  if (brake_build(&b, o->nr, o->nt, nz, 0.45) != FCD_OK) return 1;
  fcd_reduction *red = NULL;
  double t0 = now();
  fcd_status st = reduce(o, b.sys, b.cs, o->modes[0], &red);
  double t_red = now() - t0;
  if (st != FCD_OK) {
    fprintf(stderr, "scale: %s\n", fcd_system_last_error(b.sys));
    brake_free(&b);
    return 1;
  }
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  fcd_index nk = 0, nm = 0;
  double fmax = 0, re = 0, ms = 0;
  fcd_reduction_get_info(red, &nk, &nm, &fmax, NULL);
  st = step_ms(fcd_reduction_system(red), fcd_reduction_contact_set(red), &b,
               lround(o->tend / o->h), o->h, &ms, &re);
  if (st == FCD_OK)
    printf("%4d %8lld %6lld %5lld %7.0f %9.1f %8.3f %9.2f %8.1f\n", nz,
           (long long)fcd_system_ndofs(b.sys), (long long)nk, (long long)nm, fmax, t_red, ms,
           ru.ru_maxrss / 1048576.0, re);
  fflush(stdout);
  fcd_reduction_destroy(red);
  brake_free(&b);
  return st != FCD_OK;
}

static int scale(const options *o) {
  printf("brake with nz layers in the disc, the same 144 contacts; %ld modes; %ld steps of "
         "h = %g s from the reduced sliding state at mu = 0.45\n%4s %8s %6s %5s %7s %9s %8s "
         "%9s %8s\n", o->modes[0], lround(o->tend / o->h), o->h, "nz", "dofs", "kept",
         "modes", "top Hz", "reduce s", "ms/step", "peak GiB", "Re@0.45");
  int rc = 0;
  for (int k = 0; k < o->nscale; k++) rc |= scale_row(o, (int)o->scale[k]);
  return rc;
}

/* ---- an interface reduction, measured (--interface NCC1,...) ---- */

/* matrix which of sys as a dense column-major n x n array */
static double *dense_of(const fcd_system *sys, fcd_matrix_kind which) {
  fcd_index n = fcd_system_ndofs(sys), full = 0;
  if (fcd_system_matrix_nnz(sys, which, NULL, &full) != FCD_OK) return NULL;
  fcd_index *ri = malloc(sizeof *ri * (size_t)full), *ci = malloc(sizeof *ci * (size_t)full);
  double *v = malloc(sizeof *v * (size_t)full), *a = calloc((size_t)n * (size_t)n, sizeof *a);
  if (fcd_system_get_matrix_coo(sys, which, ri, ci, v) == FCD_OK)
    for (fcd_index e = 0; e < full; e++) a[(size_t)ci[e] * (size_t)n + (size_t)ri[e]] = v[e];
  free(ri); free(ci); free(v);
  return a;
}

/* the characteristic constraint modes of a Craig-Bampton model (Castanier et al. 2001):
 * the lowest ncc eigenvectors of its contact dofs' block (K_cc, M_cc, the Guyan
 * interface), M-normalized, replace those dofs; the prescribed dofs and the modes stay.
 * Reduced dofs: ncc interface coordinates, then the np prescribed, then the modes. */
typedef struct {
  fcd_index nr, nc, np, ncc, n2;
  fcd_index *c, *p, *place; /* CB indices of the contact and prescribed dofs; CB -> c's index */
  double *psi;              /* nc x ncc, column-major */
} cc_map;

/* Y = T2' A T2 (n2 x n2) for the CB matrix A (nr x nr), T2 = diag(Psi, I, I) */
static double *cc_project(const cc_map *cm, const double *A) {
  fcd_index nr = cm->nr, n2 = cm->n2;
  /* old index of new coordinate k >= ncc */
  fcd_index *old = malloc(sizeof *old * (size_t)n2);
  for (fcd_index k = cm->ncc; k < n2; k++)
    old[k] = k < cm->ncc + cm->np ? cm->p[k - cm->ncc] : k - cm->ncc - cm->np + cm->nc + cm->np;
  double *Z = calloc((size_t)nr * (size_t)n2, sizeof *Z), *Y = malloc(sizeof *Y * (size_t)n2 * (size_t)n2);
  for (fcd_index k = 0; k < n2; k++) {
    double *z = Z + (size_t)k * nr;
    if (k < cm->ncc) {
      for (fcd_index j = 0; j < cm->nc; j++) {
        double w = cm->psi[(size_t)k * cm->nc + j];
        const double *a = A + (size_t)cm->c[j] * nr;
        for (fcd_index i = 0; i < nr; i++) z[i] += w * a[i];
      }
    } else {
      memcpy(z, A + (size_t)old[k] * nr, sizeof *z * (size_t)nr);
    }
  }
  for (fcd_index k = 0; k < n2; k++)
    for (fcd_index l = 0; l < n2; l++) {
      const double *z = Z + (size_t)k * nr;
      double d = 0;
      if (l < cm->ncc)
        for (fcd_index j = 0; j < cm->nc; j++) d += cm->psi[(size_t)l * cm->nc + j] * z[cm->c[j]];
      else
        d = z[old[l]];
      Y[(size_t)k * n2 + l] = d;
    }
  free(Z);
  free(old);
  return Y;
}

static fcd_status set_dense(fcd_system *s, fcd_matrix_kind which, const double *Y, fcd_index n) {
  size_t nn = (size_t)n * (size_t)n;
  fcd_index *ri = malloc(sizeof *ri * nn), *ci = malloc(sizeof *ci * nn);
  double *v = malloc(sizeof *v * nn);
  for (fcd_index i = 0; i < n; i++)
    for (fcd_index j = 0; j < n; j++) {
      ri[(size_t)i * n + j] = i;
      ci[(size_t)i * n + j] = j;
      v[(size_t)i * n + j] = 0.5 * (Y[(size_t)j * n + i] + Y[(size_t)i * n + j]);
    }
  if (which == FCD_DAMPING)
    for (fcd_index i = 0; i < n; i++)
      for (fcd_index j = 0; j < n; j++) v[(size_t)i * n + j] = Y[(size_t)j * n + i];
  fcd_status st = fcd_system_set_matrix_coo(s, which, (fcd_index)nn, ri, ci, v, FCD_COO_FULL);
  free(ri); free(ci); free(v);
  return st;
}

/* the brake's contacts on the interface coordinates: each pair's rows n, t, n x t on
 * u_A - u_B, through Psi (dense rows of ncc weights) */
static fcd_status cc_contacts(const brake *b, const cc_map *cm, const fcd_index *kept,
                              fcd_index nk, fcd_system *s2, fcd_contact_set **out) {
  fcd_status st = fcd_contact_set_create(s2, 3, out);
  const mesh *m = &b->m;
  double dr = (RO - RI) / m->nr;
  int row_i0[2] = {(int)lround((0.23 - RI) / dr), (int)lround((0.275 - RI) / dr)};
  int per22 = (int)lround(m->nt / 16.0);
  fcd_index ncc = cm->ncc, *dofs = malloc(sizeof *dofs * 3 * (size_t)ncc), c = 0;
  double *w = malloc(sizeof *w * 3 * (size_t)ncc);
  for (fcd_index k = 0; k < 3 * ncc; k++) dofs[k] = k % ncc;
  for (int p = 0; p < m->npin && st == FCD_OK; p++) {
    int side = p / 6, row = (p % 6) / 3, col = p % 3 - 1;
    for (int a = 0; a < 3 && st == FCD_OK; a++)
      for (int bb = 0; bb < 4 && st == FCD_OK; bb++, c++) {
        fcd_index pa = m->pin[(size_t)p * 60 + (size_t)(a * 4 + bb)];
        fcd_index pb = DISC(m, row_i0[row] + a, col * per22 - 1 + bb, side ? m->nz : 0);
        double x = m->x[3 * pb], y = m->x[3 * pb + 1], r = hypot(x, y);
        double nv[3] = {0, 0, side ? -1.0 : 1.0}, tv[3] = {-y / r, x / r, 0}, t2[3];
        t2[0] = nv[1] * tv[2] - nv[2] * tv[1];
        t2[1] = nv[2] * tv[0] - nv[0] * tv[2];
        t2[2] = nv[0] * tv[1] - nv[1] * tv[0];
        const double *fr[3] = {nv, tv, t2};
        memset(w, 0, sizeof *w * 3 * (size_t)ncc);
        for (int q = 0; q < 3; q++)
          for (int d = 0; d < 3; d++) {
            fcd_index ja = -1, jb = -1;
            for (fcd_index j = 0; j < nk; j++) {
              if (kept[j] == 3 * pa + d) ja = cm->place[j];
              if (kept[j] == 3 * pb + d) jb = cm->place[j];
            }
            for (fcd_index k = 0; k < ncc; k++)
              w[q * ncc + k] += fr[q][d] * (cm->psi[(size_t)k * cm->nc + ja] -
                                            cm->psi[(size_t)k * cm->nc + jb]);
          }
        fcd_index rp[4] = {0, ncc, 2 * ncc, 3 * ncc};
        st = fcd_contact_set_add_rows(*out, rp, dofs, w, 0.0, 0.45, NULL);
        const double vg[2] = {b->vg[c], 0};
        if (st == FCD_OK) st = fcd_contact_set_set_sliding_velocity(*out, c, vg);
      }
  }
  free(dofs);
  free(w);
  return st;
}

/* the partition of a CB model's dofs for an interface reduction of ncc coordinates
 * (eig: the interface eigenvectors, nc x nc) */
static void cc_partition(fcd_reduction *red, fcd_index ncc, const double *eig, fcd_index ncd,
                         cc_map *cm) {
  fcd_system *rs = fcd_reduction_system(red);
  fcd_index nr = fcd_system_ndofs(rs), nk = 0, nm = 0, nf = fcd_system_num_fixed(rs);
  fcd_reduction_get_info(red, &nk, &nm, NULL, NULL);
  fcd_index *fx = malloc(sizeof *fx * (size_t)nf + 1);
  fcd_system_get_fixed(rs, fx, NULL);
  *cm = (cc_map){nr, 0, 0, ncc, 0, malloc(sizeof(fcd_index) * (size_t)nk),
                 malloc(sizeof(fcd_index) * (size_t)nf + 1),
                 malloc(sizeof(fcd_index) * (size_t)nk), (double *)eig};
  for (fcd_index j = 0; j < nk; j++) {
    int fixed = 0;
    for (fcd_index k = 0; k < nf; k++) fixed |= fx[k] == j;
    cm->place[j] = fixed ? -1 : cm->nc;
    if (fixed) cm->p[cm->np++] = j;
    else cm->c[cm->nc++] = j;
  }
  cm->n2 = ncc + cm->np + nm;
  (void)ncd;
  free(fx);
}

static fcd_status cc_build(const brake *b, fcd_reduction *red, fcd_index ncc, const double *eig,
                           const double *K, const double *M, const double *C,
                           fcd_system **s2, fcd_contact_set **cs2) {
  fcd_system *rs = fcd_reduction_system(red);
  fcd_index nk = 0, nf = fcd_system_num_fixed(rs);
  fcd_reduction_get_info(red, &nk, NULL, NULL, NULL);
  fcd_index *kept = malloc(sizeof *kept * (size_t)nk), *fx = malloc(sizeof *fx * (size_t)nf + 1);
  double *fv = malloc(sizeof *fv * (size_t)nf + 1);
  fcd_reduction_get_info(red, NULL, NULL, NULL, kept);
  fcd_system_get_fixed(rs, fx, fv);
  cc_map cm;
  cc_partition(red, ncc, eig, 0, &cm);
  fcd_status st = fcd_system_create(cm.n2, s2);
  const double *src[3] = {K, M, C};
  const fcd_matrix_kind kinds[3] = {FCD_STIFFNESS, FCD_MASS, FCD_DAMPING};
  for (int q = 0; q < 3 && st == FCD_OK; q++) {
    double *Y = cc_project(&cm, src[q]);
    st = set_dense(*s2, kinds[q], Y, cm.n2);
    free(Y);
  }
  /* the prescribed values in the order of cm.p (the fixed list's order may differ) */
  fcd_index *pd = malloc(sizeof *pd * (size_t)cm.np + 1);
  double *pv = malloc(sizeof *pv * (size_t)cm.np + 1);
  for (fcd_index k = 0; k < cm.np; k++) {
    pd[k] = ncc + k;
    for (fcd_index q = 0; q < nf; q++)
      if (fx[q] == cm.p[k]) pv[k] = fv[q];
  }
  if (st == FCD_OK) st = fcd_system_fix_dofs(*s2, cm.np, pd, pv);
  if (st == FCD_OK) st = cc_contacts(b, &cm, kept, nk, *s2, cs2);
  if (st != FCD_OK) fprintf(stderr, "interface reduction: %s\n", fcd_system_last_error(*s2));
  free(pd); free(pv); free(kept); free(fx); free(fv); free(cm.c); free(cm.p); free(cm.place);
  return st;
}

/* the contact dofs' Guyan block's eigenvectors (nc x nc, ascending, M-normalized) */
static double *interface_eigs(fcd_reduction *red, const double *K, const double *M,
                              fcd_index *nc_out) {
  fcd_index nr = fcd_system_ndofs(fcd_reduction_system(red));
  cc_map cm;
  cc_partition(red, 0, NULL, 0, &cm);
  fcd_index nc = cm.nc, *c = cm.c;
  double *A = malloc(sizeof *A * (size_t)nc * (size_t)nc), *B = malloc(sizeof *B * (size_t)nc * (size_t)nc);
  double *w = malloc(sizeof *w * (size_t)nc);
  for (fcd_index j = 0; j < nc; j++)
    for (fcd_index i = 0; i < nc; i++) {
      A[(size_t)j * nc + i] = K[(size_t)c[j] * nr + c[i]];
      B[(size_t)j * nc + i] = M[(size_t)c[j] * nr + c[i]];
    }
  lapack_int info = LAPACKE_dsygvd(LAPACK_COL_MAJOR, 1, 'V', 'U', (lapack_int)nc, A,
                                   (lapack_int)nc, B, (lapack_int)nc, w);
  free(B); free(w); free(cm.c); free(cm.p); free(cm.place);
  if (info != 0) {
    free(A);
    return NULL;
  }
  *nc_out = nc;
  return A;
}

/* the full figures of the transient (docs/performance.md, 2026-11-29: the full model's
 * 0.3 s at mu = 0.45, h = 1e-5, the last 60 ms), the reference of --interface */
static const cycle full_ref = {1.115e-6, 4.52e-6, 3536.7, 849.5, 12, 49, 768, 30000};

/* the transient of --interface through one interface size: start mapped, monitored node's
 * rows through Psi, figures against the full run's */
static int cc_transient(const options *o, brake *b, fcd_reduction *red, const double *ur,
                        const double *ur_eq, fcd_index ncc, const double *eig, fcd_index ncd, const double *K,
                        const double *M, const double *C, double fmode) {
  fcd_system *s2 = NULL;
  fcd_contact_set *cs2 = NULL;
  double t0 = now();
  if (cc_build(b, red, ncc, eig, K, M, C, &s2, &cs2) != FCD_OK) return 1;
  double t_cc = now() - t0;
  cc_map cm;
  fcd_index nk = 0, nm = 0, nr = fcd_system_ndofs(fcd_reduction_system(red));
  fcd_reduction_get_info(red, &nk, &nm, NULL, NULL);
  fcd_index *kept = malloc(sizeof *kept * (size_t)nk);
  fcd_reduction_get_info(red, NULL, NULL, NULL, kept);
  cc_partition(red, ncc, eig, ncd, &cm);
  fcd_index n2 = fcd_system_ndofs(s2);
  double *u2 = malloc(sizeof *u2 * (size_t)n2), *rows = calloc(3 * (size_t)ncc, sizeof *rows);
  double *ua = malloc(sizeof *ua * (size_t)n2), *va = malloc(sizeof *va * (size_t)n2);
  double *ub = malloc(sizeof *ub * (size_t)n2), *vb = malloc(sizeof *vb * (size_t)n2);
  /* the start: the interface model's own sliding equilibrium (the full start's contact
   * state projected would penetrate) plus the full start's perturbation on the modes */
  fcd_equilibrium *eq = NULL;
  fcd_status st = fcd_equilibrium_create(s2, cs2, &eq);
  if (st == FCD_OK) st = fcd_equilibrium_solve(eq, FCD_EQ_STEADY_SLIDING, 0.0);
  if (st == FCD_OK) st = fcd_equilibrium_get_state(eq, u2);
  fcd_equilibrium_destroy(eq);
  if (st != FCD_OK) fprintf(stderr, "interface equilibrium: %s\n", fcd_system_last_error(s2));
  for (fcd_index k = 0; k < nm; k++) u2[ncc + cm.np + k] += ur[nk + k] - ur_eq[nk + k];
  (void)M;
  watch w;
  watch_init(&w, b, (long)(o->tend / o->h) + 10);
  for (int d = 0; d < 3; d++) {
    for (fcd_index j = 0; j < nk; j++)
      if (kept[j] == w.mon[d] && cm.place[j] >= 0)
        for (fcd_index k = 0; k < ncc; k++) rows[d * ncc + k] = eig[(size_t)k * ncd + cm.place[j]];
    w.rows[d] = rows + d * ncc;
  }
  w.nrow = ncc;
  cycle c = {0};
  int rc = st != FCD_OK || transient(s2, cs2, u2, o->h, o->tend, &w, ua, va, ub, vb, &c.secs) != FCD_OK;
  if (!rc) {
    c.steps = w.n;
    figures(&w, o->h, o->window, fmode, &c);
    print_row(NULL, "cc", (long)ncc, (long)n2, 0, t_cc, &c, &full_ref, -1);
  }
  (void)nr;
  watch_free(&w);
  free(u2); free(rows); free(ua); free(va); free(ub); free(vb); free(kept);
  free(cm.c); free(cm.p); free(cm.place);
  fcd_contact_set_destroy(cs2);
  fcd_system_destroy(s2);
  return rc;
}

/* --interface: transients through characteristic constraint modes of the CB model's
 * contact dofs (the stability analysis and the sliding equilibrium refuse such a model:
 * their elimination needs a dof that only one contact constrains, and every interface
 * coordinate is shared by all of them) */
static int interface_run(const options *o) {
  const double mu_tr = 0.45;
  brake b, b2;
  memset(&b, 0, sizeof b);
  memset(&b2, 0, sizeof b2);
  if (brake_build(&b, o->nr, o->nt, o->nz, 0.2) != FCD_OK ||
      brake_build(&b2, o->nr, o->nt, o->nz, mu_tr) != FCD_OK)
    return 1;
  fcd_index n = fcd_system_ndofs(b2.sys);
  double *ue = malloc(sizeof *ue * (size_t)n), fmode = 0, growth = 0;
  if (start_state(&b, &b2, mu_tr, ue, &fmode, &growth) != FCD_OK) return 1;
  fcd_reduction *red = NULL;
  double t0 = now();
  if (fcd_reduction_create(b2.sys, b2.cs, o->modes[0], &red) != FCD_OK) return 1;
  double t_cb = now() - t0;
  fcd_system *rs = fcd_reduction_system(red);
  fcd_index nr = fcd_system_ndofs(rs), ncd = 0;
  double *ur = malloc(sizeof *ur * (size_t)nr), *ur_eq = malloc(sizeof *ur_eq * (size_t)nr);
  double *ue_eq = malloc(sizeof *ue_eq * (size_t)n);
  fcd_reduction_restrict(red, ue, ur);
  fcd_equilibrium *eq = NULL;
  if (fcd_equilibrium_create(b2.sys, b2.cs, &eq) != FCD_OK ||
      fcd_equilibrium_solve(eq, FCD_EQ_STEADY_SLIDING, 0.0) != FCD_OK ||
      fcd_equilibrium_get_state(eq, ue_eq) != FCD_OK)
    return 1;
  fcd_equilibrium_destroy(eq);
  fcd_reduction_restrict(red, ue_eq, ur_eq);
  double *K = dense_of(rs, FCD_STIFFNESS), *M = dense_of(rs, FCD_MASS), *C = dense_of(rs, FCD_DAMPING);
  t0 = now();
  double *eig = interface_eigs(red, K, M, &ncd);
  printf("brake: %lld dofs; the %ld-mode Craig-Bampton model (%lld unknowns, %.1f s) with its "
         "%lld contact dofs replaced by characteristic constraint modes (%.1f s); transient "
         "at mu = %.2f to %g s, h = %g; against the full run of docs/performance.md\n",
         (long long)n, o->modes[0], (long long)nr, t_cb, (long long)ncd, now() - t0, mu_tr,
         o->tend, o->h);
  printf("%-8s %5s %5s %7s %7s %8s %8s %7s %10s %10s %9s %8s %7s  %s\n", "model", "ncc",
         "dofs", "", "map s", "steps s", "total s", "ms/step", "rms u_n", "rms u_t", "f (Hz)",
         "F_b (N)", "open", "vs full: rms_n rms_t f F_b");
  int rc = eig == NULL;
  rc |= run_reduced(&b2, o->modes[0], ue, o, fmode, &full_ref, NULL);
  for (int k = 0; k < o->ninterface && eig; k++)
    rc |= cc_transient(o, &b2, red, ur, ur_eq, o->interface[k] < ncd ? o->interface[k] : ncd, eig,
                       ncd, K, M, C, fmode);
  free(eig); free(K); free(M); free(C); free(ur); free(ur_eq); free(ue_eq); free(ue);
  fcd_reduction_destroy(red);
  brake_free(&b);
  brake_free(&b2);
  return rc;
}

int main(int argc, char **argv) {
  options o;
  setvbuf(stdout, NULL, _IOLBF, 0); /* a long run shows its progress when redirected */
  parse(argc, argv, &o);
  if (o.ninterface > 0) {
    int irc = interface_run(&o);
    fcd_finalize();
    return irc;
  }
  if (o.nscale > 0) {
    int src = scale(&o);
    fcd_finalize();
    return src;
  }
  if (o.mu_long > 0) {
    int lrc = long_run(&o);
    fcd_finalize();
    return lrc;
  }
  if (o.chart) {
    int crc = charts(&o);
    fcd_finalize();
    return crc;
  }
  const double mu_tr = 0.45;
  brake b, b2;
  memset(&b, 0, sizeof b);
  memset(&b2, 0, sizeof b2);
  if (brake_build(&b, o.nr, o.nt, o.nz, 0.2) != FCD_OK ||
      brake_build(&b2, o.nr, o.nt, o.nz, mu_tr) != FCD_OK)
    return 1;
  fcd_index n = fcd_system_ndofs(b2.sys);
  double *ue = malloc(sizeof *ue * (size_t)n), fmode = 0, growth = 0;
  if (start_state(&b, &b2, mu_tr, ue, &fmode, &growth) != FCD_OK) return 1;
  printf("brake: %lld dofs, %lld contacts; transient at mu = %.2f to %g s, h = %g s; most "
         "unstable mode %.1f Hz, growth %.2f s^-1; figures over the last %g s\n",
         (long long)n, (long long)b2.ncont, mu_tr, o.tend, o.h, fmode, growth, o.window);
  FILE *csv = o.csv ? fopen(o.csv, "w") : NULL;
  if (csv)
    fprintf(csv, "model,modes,kept,max_mode_hz,reduction_s,transient_s,ms_per_step,rms_n,"
            "rms_t,freq_hz,braking_force,open_min,open_max,indicator\n");
  printf("%-8s %5s %5s %7s %7s %8s %8s %7s %10s %10s %9s %8s %7s  %s\n", "model", "modes",
         "kept", "top Hz", "reduce", "steps s", "total s", "ms/step", "rms u_n", "rms u_t",
         "f (Hz)", "F_b (N)", "open", "vs full: rms_n rms_t f F_b; indicator");
  cycle full = {0};
  int have_full = 0, rc = 0;
  if (o.full) {
    watch w;
    watch_init(&w, &b2, (long)(o.tend / o.h) + 10);
    double *ua = malloc(sizeof *ua * (size_t)n), *va = malloc(sizeof *va * (size_t)n);
    double *ub = malloc(sizeof *ub * (size_t)n), *vb = malloc(sizeof *vb * (size_t)n);
    if (transient(b2.sys, b2.cs, ue, o.h, o.tend, &w, ua, va, ub, vb, &full.secs) == FCD_OK) {
      full.steps = w.n;
      figures(&w, o.h, o.window, fmode, &full);
      print_row(csv, "full", 0, (long)n, 0, 0, &full, NULL, -1);
      have_full = 1;
    } else {
      rc = 1;
    }
    free(ua); free(va); free(ub); free(vb);
    watch_free(&w);
  }
  for (int k = 0; k < o.nmodes; k++)
    rc |= run_reduced(&b2, o.modes[k], ue, &o, fmode, have_full ? &full : NULL, csv);
  if (csv) fclose(csv);
  free(ue);
  brake_free(&b);
  brake_free(&b2);
  fcd_finalize();
  return rc;
}
