/* The brake at industrial sizes (bench/brake_pads.h, issue 87): what building it and
 * reducing it cost as it grows, one refinement a run (a process each, so that the peak
 * resident memory is this size's own), and what a reduced model of it answers.
 *
 *   brake_scale [--refine R] [--modes M] [--inertia P] [--relative] [--relative-model]
 *               [--basis auto|stored|factored] [--coarsen C] [--shape] [--no-reduce] [--full]
 *               [--mu MU1,MU2,...] [--steps N] [--orbit] [--memory-limit GIB]
 *               [--full-steps N] [--full-chart K]
 *               [--band-damping Z] [--projection-modes P] [--undamped]
 *
 * Prints the model (dofs, contact nodes, the dofs a reduction keeps), the seconds and the
 * peak resident memory of building it, then of fcd_reduction_create_enriched with M
 * fixed-interface modes (default 300) and P inertia vectors (default 0), or the
 * reduction's refusal when its dense arrays exceed the machine's memory, with the
 * figures of its message.
 *
 * --relative reduces in relative interface coordinates (FCD_INTERFACE_RELATIVE): each
 * pair keeps its pad node, which carries the pad's displacement less the disc's, three
 * dofs a contact instead of six. --relative-model builds the model itself in those
 * coordinates (brake_pads_build_in) and reduces it as it is: the same reduced model made
 * outside the library, its check.
 * --basis: how the reduction holds its constraint modes (fcd_basis_storage; default auto).
 * --coarsen C (with --relative): the interface coarsened by C (pads_ties: the contacts on
 * every C-th line of each pad's grid kept, the others tied to them bilinearly).
 * --shape: the pads' pushed backs kept as one coordinate (prescribed_shape).
 * --memory-limit GIB: the reduction's memory_limit (the process' peak it must keep under).
 * --band-damping Z: the reduction's damping ratio above its band (fcd_reduction_options'
 * damping; default FCD_REDUCTION_BAND_DAMPING_DEFAULT, 0 the Galerkin model's own).
 * --projection-modes P: the stability solves' FCD_STAB_PROJECTION_MODES (both models: the
 * two materials' Rayleigh damping is not proportional, so a solve too large for the
 * dense path projects the damped problem on P undamped modes nearest the target; default
 * max(2 nev, nev + 20) = 60).
 * --undamped: the stability solves without the damping (FCD_STAB_DAMPING 0): the friction-
 * linearized pencil (K*, M*), solved exactly (SLEPc shift-and-invert, no projection) on
 * both models, so that the check measures the reduction's error alone.
 * --mu: the sliding equilibrium at the first MU (the contacts' coefficient: its contacts
 * open, sticking and slipping, and the weakest closed contact's normal reaction), then the
 * stability analysis about it at each MU (FCD_STAB_MU), of the reduced model and, with
 * --full, of the full one first in the same run: the eigenvalues with Im > 0 whose growth
 * rate exceeds -50 s^-1, as lines `eig MODEL MU RE HZ`, and the seconds of each analysis.
 * --steps N: N Moreau-Jean steps (modified theta, h = 1e-5) of each model from its
 * sliding equilibrium plus a hundredth of the pads' compression along the first MU's most
 * unstable mode: ms a step, and the RMS about its mean of the total normal force on
 * the pads over the run's last fifth, and the RMS there of the disc's axial displacement
 * at 16 points equally spaced on its outer rim (rim_uz_rms, the limit cycle's amplitude,
 * comparable between the full and the reduced models: the force's fluctuation lies
 * mostly above a reduced model's band), and the frequency there of the displacement along
 * that mode (mean upward crossings of its mean; period_spread, the periods' scatter,
 * large when the motion is not periodic), with the force's own (force_hz, force_spread),
 * whose harmonics may lead.
 * --orbit (with --steps): the limit cycle by shooting (fcd_periodic) from the transient's
 * last state, the transient's own period as the guess (the first MU's most unstable
 * pair's when the transient shows no three periods): its time, period,
 * residual and multipliers, and the same RMS (force and rim) over one period of the
 * orbit against the transient's.
 * --full-steps N, --full-chart K: the full model's share when its whole would take hours:
 * N steps (its ms a step; no orbit unless N is --steps) and the first K coefficients of
 * --mu (its seconds a solve), the reduced model doing all.
 * With --full the run ends with `check` lines: each unstable pair of the full model
 * against the reduced model's unstable pair nearest in frequency at the same MU
 * (relative differences of frequency and growth rate, the growth rate's difference over
 * the eigenvalue's modulus, and the worst of each over the pairs whose growth rate
 * exceeds 1e-4 of their angular frequency, the others marked marginal), the transients'
 * RMS and the orbits' period and RMS (force and rim), reduced against full. */
#include "args.h"
#include "brake_pads.h"
#include "dense_floor.h"

#include <math.h>
#include <sys/resource.h>
#include <time.h>

enum { MAX_MU = 32, NEV = 30, MAX_EIG = MAX_MU * NEV };
static const double TWO_PI = 2 * 3.14159265358979323846;

/* what each model answered, for the reduced model's check against the full one in the
 * same run (--full): the eigenvalues printed, the transient's and the orbit's RMS */
typedef struct {
  double mu, re, hz;
} eig_rec;
typedef struct {
  eig_rec eig[MAX_EIG];
  int neig;
  double rms, orbit_rms, orbit_hz;
  double rim, orbit_rim; /* the rim's displacement amplitude (rim_rms) */
  long steps;
} answers;
static answers ans[2]; /* full, reduced */

static answers *answers_of(const char *model) { return &ans[strcmp(model, "full") != 0]; }

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double peak_gib(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return (double)u.ru_maxrss / (1024.0 * 1024.0);
}

typedef struct {
  int r, modes, inertia, reduce, relative, relative_model, full, nmu, basis, coarsen, shape;
  int orbit;
  long steps;
  long full_steps; /* the full model's steps, -1: steps */
  int full_chart;  /* the full model's coefficients, the first of mu; 0: all */
  double mem_gib, band_damping;
  int projection; /* FCD_STAB_PROJECTION_MODES, 0 the default */
  int undamped;   /* FCD_STAB_DAMPING 0 */
  double mu[MAX_MU];
} options;

/* the sliding equilibrium of (sys, cs) at the contact set's mu (o->mu[0]) and its
 * stability at each of o->mu: the eigenvalues printed; the equilibrium and the first
 * analysis' most unstable mode (real part) returned */
static fcd_status analyse(const char *model, fcd_system *sys, fcd_contact_set *cs,
                          const double *vg, const options *o, double *ue, double *mode,
                          double *hz) {
  fcd_index nc = fcd_contact_set_size(cs);
  fcd_equilibrium *eq = NULL;
  fcd_stability *sa = NULL;
  int *status = malloc(sizeof *status * (size_t)nc);
  double *slip = malloc(sizeof *slip * 2 * (size_t)nc), *r = malloc(sizeof *r * 3 * (size_t)nc);
  double *rn = malloc(sizeof *rn * (size_t)nc);
  double t0 = now();
  fcd_status st = status && slip && r && rn ? fcd_equilibrium_create(sys, cs, &eq) : FCD_E_NOMEM;
  if (st == FCD_OK) st = fcd_equilibrium_solve(eq, FCD_EQ_STEADY_SLIDING, 0.0);
  if (st == FCD_OK) st = fcd_equilibrium_get_contact_state(eq, status, slip);
  if (st == FCD_OK) st = fcd_equilibrium_get_reactions(eq, r);
  if (st == FCD_OK) st = fcd_equilibrium_get_state(eq, ue);
  for (fcd_index c = 0; c < nc && st == FCD_OK; c++) rn[c] = r[3 * c];
  int cnt[3] = {0, 0, 0};
  double rmin = -INFINITY; /* compression is negative: the weakest closed contact is the largest */
  for (fcd_index c = 0; c < nc && st == FCD_OK; c++) {
    if (status[c] >= 0 && status[c] < 3) cnt[status[c]]++;
    if (status[c] != FCD_CONTACT_OPEN) rmin = fmax(rmin, rn[c]);
  }
  printf("equilibrium %s mu=%.3f seconds=%.2f open=%d stick=%d slip=%d weakest_closed_rn=%.3e\n",
         model, o->mu[0], now() - t0, cnt[0], cnt[1], cnt[2], rmin);
  if (st == FCD_OK) st = fcd_stability_create(sys, cs, &sa);
  if (st == FCD_OK) st = fcd_stability_set_contact_state(sa, status, slip);
  if (st == FCD_OK) st = fcd_stability_set_sliding_data(sa, rn, vg);
  if (st == FCD_OK) st = fcd_stability_set_param(sa, FCD_STAB_TARGET_HZ, 3000);
  if (st == FCD_OK) st = fcd_stability_set_param(sa, FCD_STAB_NEV, NEV);
  if (st == FCD_OK && o->undamped) st = fcd_stability_set_param(sa, FCD_STAB_DAMPING, 0);
  if (st == FCD_OK && o->projection > 0)
    st = fcd_stability_set_param(sa, FCD_STAB_PROJECTION_MODES, o->projection);
  double tc = now();
  for (int k = 0; k < o->nmu && st == FCD_OK; k++) {
    fcd_index nconv = 0;
    double t1 = now();
    st = fcd_stability_set_param(sa, FCD_STAB_MU, o->mu[k]);
    if (st == FCD_OK) st = fcd_stability_solve(sa, &nconv);
    double t2 = now();
    for (fcd_index i = 0; i < nconv && st == FCD_OK; i++) {
      double re, im;
      st = fcd_stability_get_eigenvalue(sa, i, &re, &im);
      if (st == FCD_OK && im > 0 && re > -50) {
        answers *a = answers_of(model);
        double f = im / TWO_PI;
        if (a->neig < MAX_EIG) a->eig[a->neig++] = (eig_rec){o->mu[k], re, f};
        printf("eig %s %.3f %.6e %.6f\n", model, o->mu[k], re, f);
      }
    }
    if (st == FCD_OK && k == 0) st = fcd_stability_get_mode(sa, 0, mode, NULL);
    if (st == FCD_OK && k == 0 && nconv > 0) {
      double re, im;
      st = fcd_stability_get_eigenvalue(sa, 0, &re, &im);
      *hz = fabs(im) / TWO_PI;
    }
    int path = -1;
    if (st == FCD_OK) fcd_stability_get_path(sa, &path);
    printf("stability %s mu=%.3f seconds=%.2f eigenvalues=%lld path=%s\n", model, o->mu[k],
           t2 - t1, (long long)nconv, path >= 0 ? fcd_registry_name(FCD_FAMILY_EIGEN_PATH, path)
                                                 : "none");
    fflush(stdout);
  }
  if (st == FCD_OK)
    printf("chart %s coefficients=%d seconds=%.2f\n", model, o->nmu, now() - tc);
  if (st != FCD_OK) fprintf(stderr, "%s: %s\n", model, fcd_system_last_error(sys));
  fcd_stability_destroy(sa);
  fcd_equilibrium_destroy(eq);
  free(status); free(slip); free(r); free(rn);
  return st;
}

/* The disc's axial displacement at RIM points equally spaced on its outer rim (its face
 * towards the upper pad, outside the pads' annulus): a displacement both models carry
 * (the reduced one through fcd_reduction_expand_dofs, a row of its basis a point), unlike
 * the pads' total normal force, whose fluctuation lives mostly above a reduced model's
 * band. Over points equally spaced, more than twice a wave's nodal diameters, the sum
 * of the squares of a travelling or a standing wave's amplitudes is the same wherever the
 * wave stands: the RMS over the points is the cycle's amplitude, not the luck of a point
 * on a nodal line. */
enum { RIM = 16 };
typedef struct {
  fcd_index dofs[RIM];
  const fcd_reduction *red; /* the reduced model's, NULL for the full one */
} rim_monitor;

static void rim_dofs(const mesh *m, fcd_index *dofs) {
  for (int k = 0; k < RIM; k++) dofs[k] = 3 * DISC(m, m->nr, k * m->nt / RIM, m->nz) + 2;
}

/* the total normal force on the pads at each step (the sum of the contacts' normal
 * reactions), recorded by the integrator's observer; with a mode the displacement's
 * component along it (its NaN entries, which have no value, left out), with a rim
 * monitor its RIM displacements (z, RIM a step) */
typedef struct {
  double *f, *q, *z;
  const double *mode;
  const rim_monitor *rim;
  long n, cap;
  fcd_status st; /* the monitor's expansion's, which the observer cannot return */
} force_log;

static int on_step(void *ud, double t, fcd_index n, const double *u, const double *v,
                   fcd_index nl, const double *r, const fcd_contact_counts *cc) {
  (void)t; (void)v; (void)cc;
  force_log *w = ud;
  double f = 0, q = 0;
  for (fcd_index c = 0; c + 2 < nl; c += 3) f += r[c];
  for (fcd_index i = 0; w->mode && i < n; i++)
    if (!isnan(w->mode[i])) q += w->mode[i] * u[i];
  if (w->n >= w->cap) return 0;
  if (w->z && w->rim->red) {
    fcd_status s = fcd_reduction_expand_dofs(w->rim->red, u, RIM, w->rim->dofs,
                                             w->z + RIM * w->n);
    if (s != FCD_OK) {
      w->st = s;
      return 1; /* stops the run: its amplitude would be wrong */
    }
  } else if (w->z) {
    for (int k = 0; k < RIM; k++) w->z[RIM * w->n + k] = u[w->rim->dofs[k]];
  }
  if (w->q) w->q[w->n] = q;
  w->f[w->n++] = f;
  return 0;
}

/* the RMS over the rim's points of their displacements about their means, steps
 * [lo, hi) of z (RIM a step) */
static double rim_rms(const double *z, long lo, long hi) {
  double s = 0, cnt = (double)(hi - lo > 0 ? hi - lo : 1);
  for (int k = 0; k < RIM; k++) {
    double m = 0, v = 0;
    for (long i = lo; i < hi; i++) m += z[RIM * i + k];
    m /= cnt;
    for (long i = lo; i < hi; i++) v += (z[RIM * i + k] - m) * (z[RIM * i + k] - m);
    s += v / cnt;
  }
  return sqrt(s / RIM);
}

/* the RMS about the mean of f[lo..hi) */
static double rms_about_mean(const double *f, long lo, long hi) {
  double m = 0, s = 0;
  for (long k = lo; k < hi; k++) m += f[k];
  m /= (double)(hi - lo > 0 ? hi - lo : 1);
  for (long k = lo; k < hi; k++) s += (f[k] - m) * (f[k] - m);
  return sqrt(s / (double)(hi - lo > 0 ? hi - lo : 1));
}

/* A transient's own period from a signal f[lo..hi) (h apart): the mean interval between
 * upward crossings of the mean, each interpolated between steps and counted only after
 * the signal fell a quarter of its RMS below the mean (a harmonic's wiggles near the mean
 * are not periods); *spread the intervals' standard deviation over their mean, large when
 * the motion is not periodic. 0 when fewer than three crossings. */
static double period_of(const double *f, long lo, long hi, double h, double *spread) {
  double m = 0, s = rms_about_mean(f, lo, hi), tl = -1, sum = 0, sum2 = 0;
  long cnt = 0;
  int armed = 0;
  for (long k = lo; k < hi; k++) m += f[k];
  m /= (double)(hi - lo > 0 ? hi - lo : 1);
  for (long k = lo + 1; k < hi; k++) {
    if (f[k] < m - 0.25 * s) armed = 1;
    if (!armed || f[k - 1] >= m || f[k] < m) continue;
    double t = h * ((double)(k - 1) + (m - f[k - 1]) / (f[k] - f[k - 1]));
    if (tl >= 0) {
      sum += t - tl;
      sum2 += (t - tl) * (t - tl);
      cnt++;
    }
    tl = t;
    armed = 0;
  }
  *spread = 0;
  if (cnt < 2) return 0;
  double mean = sum / (double)cnt;
  *spread = sqrt(fmax(0, sum2 / (double)cnt - mean * mean)) / mean;
  return mean;
}

/* --orbit: the limit cycle by shooting (fcd_periodic, its default: Newton-Krylov for a
 * model of this size) from the transient's last state (u, v) with the period guess
 * 1 / hz, the transient's step; then one period of the orbit through the
 * force log, its RMS against the transient's (rms_tr) */
static fcd_status shoot(const char *model, fcd_system *sys, fcd_contact_set *cs,
                        const rim_monitor *rim, const double *u, const double *v, double hz,
                        double rms_tr, double rim_tr) {
  fcd_periodic *p = NULL;
  fcd_periodic_info in = {0};
  fcd_index n = fcd_system_ndofs(sys);
  double *u0 = malloc(sizeof *u0 * (size_t)n), *v0 = malloc(sizeof *v0 * (size_t)n), T = 0;
  double t0 = now();
  fcd_status st = u0 && v0 ? fcd_periodic_create(sys, cs, FCD_SCHEME_MODIFIED_THETA, &p)
                           : FCD_E_NOMEM;
  if (st == FCD_OK) st = fcd_periodic_set_param(p, FCD_PARAM_STEP, 1e-5);
  if (st == FCD_OK) st = fcd_periodic_solve(p, u, v, 1.0 / hz);
  double ts = now() - t0;
  fcd_status sg = fcd_periodic_get_info(p, &in);
  if (sg == FCD_OK) sg = fcd_periodic_get_orbit(p, &T, u0, v0);
  printf("orbit %s status=%s seconds=%.1f hz=%.3f guess_hz=%.3f iterations=%lld "
         "periods=%lld residual=%.1e max_multiplier=%.4f stable=%d\n", model,
         fcd_status_str(st), ts, T > 0 ? 1 / T : 0.0, hz, (long long)in.iterations,
         (long long)in.evaluations, in.residual, in.max_multiplier, in.stable);
  fflush(stdout);
  if (st != FCD_OK) fprintf(stderr, "%s orbit: %s\n", model, fcd_system_last_error(sys));
  if (st == FCD_OK && sg == FCD_OK) {
    /* one period of N steps of T / N, N the shooting's own count */
    long N = (long)in.steps;
    force_log w = {malloc(sizeof(double) * (size_t)N), NULL,
                   malloc(sizeof(double) * RIM * (size_t)N), NULL, rim, 0, N, FCD_OK};
    fcd_integrator *it = NULL;
    st = w.f && w.z ? fcd_integrator_create(sys, cs, FCD_SCHEME_MODIFIED_THETA, &it)
                    : FCD_E_NOMEM;
    if (st == FCD_OK) st = fcd_integrator_set_param(it, FCD_PARAM_STEP, T / (double)N);
    if (st == FCD_OK) st = fcd_integrator_set_state(it, 0.0, u0, v0);
    if (st == FCD_OK) st = fcd_integrator_set_observer(it, on_step, &w);
    for (long k = 0; k < N && st == FCD_OK && w.st == FCD_OK; k++) st = fcd_integrator_step(it);
    if (st == FCD_OK) st = w.st;
    double rms = rms_about_mean(w.f, 0, w.n), zr = rim_rms(w.z, 0, w.n);
    rim_tr = rim_tr > 0 ? rim_tr : NAN;
    printf("orbit %s rms_normal_force=%.6e transient_rms=%.6e difference=%+.3f%% "
           "rim_uz_rms=%.6e transient_rim=%.6e difference=%+.3f%%\n", model, rms, rms_tr,
           100 * (rms - rms_tr) / rms_tr, zr, rim_tr, 100 * (zr - rim_tr) / rim_tr);
    answers_of(model)->orbit_rms = rms;
    answers_of(model)->orbit_rim = zr;
    answers_of(model)->orbit_hz = 1 / T;
    fflush(stdout);
    fcd_integrator_destroy(it);
    free(w.f);
    free(w.z);
  }
  fcd_periodic_destroy(p);
  free(u0); free(v0);
  return st;
}

/* o->steps steps from u0, v0: ms a step, the total normal force's RMS over the last
 * fifth of the run (*rms) and the rim's displacement's (*rim), the frequency there of the displacement along the unstable
 * mode into *hz (kept when it shows no three periods; the force's own beside it, whose
 * harmonics may lead), the last state into u0, v0 */
static fcd_status transient(const char *model, fcd_system *sys, fcd_contact_set *cs,
                            const options *o, const rim_monitor *rim, const double *mode,
                            double *u0, double *v0, double *rms, double *zrms, double *hz) {
  size_t cap = (size_t)o->steps + 1;
  force_log w = {malloc(sizeof(double) * cap), malloc(sizeof(double) * cap),
                 malloc(sizeof(double) * RIM * cap), mode, rim, 0, (long)cap, FCD_OK};
  fcd_integrator *it = NULL;
  fcd_status st = w.f && w.q && w.z
                      ? fcd_integrator_create(sys, cs, FCD_SCHEME_MODIFIED_THETA, &it)
                      : FCD_E_NOMEM;
  if (st == FCD_OK) st = fcd_integrator_set_param(it, FCD_PARAM_STEP, 1e-5);
  if (st == FCD_OK) st = fcd_integrator_set_state(it, 0.0, u0, v0);
  if (st == FCD_OK) st = fcd_integrator_step(it); /* the first step builds the operators */
  if (st == FCD_OK) st = fcd_integrator_set_observer(it, on_step, &w);
  double t0 = now();
  long k = 0;
  for (; k < o->steps && st == FCD_OK && w.st == FCD_OK; k++) st = fcd_integrator_step(it);
  if (st == FCD_OK) st = w.st;
  double secs = now() - t0;
  *rms = rms_about_mean(w.f, w.n - w.n / 5, w.n);
  *zrms = rim_rms(w.z, w.n - w.n / 5, w.n);
  answers_of(model)->rms = *rms;
  answers_of(model)->rim = *zrms;
  answers_of(model)->steps = o->steps;
  double spread, fspread, period = period_of(w.q, w.n - w.n / 5, w.n, 1e-5, &spread);
  double fperiod = period_of(w.f, w.n - w.n / 5, w.n, 1e-5, &fspread);
  if (period > 0) *hz = 1 / period;
  printf("steps %s mu=%.3f steps=%ld ms_per_step=%.3f seconds=%.1f rms_normal_force=%.6e "
         "rim_uz_rms=%.6e hz=%.3f period_spread=%.2e force_hz=%.3f force_spread=%.2e "
         "(last fifth)\n", model, o->mu[0], o->steps, 1e3 * secs / (double)o->steps, secs,
         *rms, *zrms, period > 0 ? 1 / period : 0.0, spread, fperiod > 0 ? 1 / fperiod : 0.0,
         fspread);
  fflush(stdout); /* a long run's lines reach a redirected log as they are made */
  dense_floor fl;
  if (st == FCD_OK && strcmp(model, "full") && dense_floor_measure(sys, cs, 20, &fl) == 0)
    printf("floor %s unknowns=%ld contact_rows=%ld K_ms=%.3f M_ms=%.3f C_ms=%.3f "
           "factor_ms=%.3f W_ms=%.3f floor_ms=%.3f step_over_floor=%.2f\n", model, fl.n, fl.m,
           1e3 * fl.k, 1e3 * fl.mass, 1e3 * fl.c, 1e3 * fl.factor, 1e3 * fl.w, 1e3 * fl.total,
           secs / (double)o->steps / fl.total);
  if (st != FCD_OK)
    fprintf(stderr, "%s steps: step %ld: %s\n", model, k, fcd_system_last_error(sys));
  if (st == FCD_OK) st = fcd_integrator_get_state(it, NULL, u0, v0);
  fcd_integrator_destroy(it);
  free(w.f);
  free(w.q);
  free(w.z);
  return st;
}

/* --full: the reduced model's answers against the full model's, both of this run. Each
 * unstable pair of the full model (growth > 0) against the reduced model's growing pair
 * nearest in frequency at the same mu: `check eig` lines, then the worst relative
 * differences of frequency and growth over them, and the worst growth difference over
 * the eigenvalue's modulus; the RMS of the transients' last fifth
 * and of the orbits */
static void check(void) {
  const answers *f = &ans[0], *r = &ans[1];
  double worst_hz = 0, worst_re = 0, worst_mod = 0;
  int n = 0;
  for (int i = 0; i < f->neig; i++) {
    const eig_rec *e = &f->eig[i], *best = NULL;
    if (e->re <= 0) continue;
    /* among the reduced model's growing pairs (a shifted neutral pair may lie nearer in
     * frequency), else among all */
    for (int pass = 0; pass < 2 && !best; pass++)
      for (int j = 0; j < r->neig; j++)
        if (r->eig[j].mu == e->mu && (pass || r->eig[j].re > 0) &&
            (!best || fabs(r->eig[j].hz - e->hz) < fabs(best->hz - e->hz)))
          best = &r->eig[j];
    if (!best) continue;
    double dhz = (best->hz - e->hz) / e->hz, dre = (best->re - e->re) / e->re;
    /* the growth's error against the eigenvalue's modulus: what the reduction's accuracy
     * bounds, where a weak pair's relative growth error divides it by a small growth */
    double dmod = fabs(best->re - e->re) / hypot(e->re, TWO_PI * e->hz);
    /* a growth below 1e-4 of the pair's angular frequency is a damping ratio beneath the
     * materials' own: such a pair is neutral to the analysis' accuracy, its relative
     * growth error no figure of the reduction */
    int marginal = e->re < 1e-4 * TWO_PI * e->hz;
    printf("check eig mu=%.3f hz=%.3f reduced=%.3f (%+.4f%%) growth=%.3f reduced=%.3f "
           "(%+.2f%%) growth_error_of_modulus=%.1e%s\n", e->mu, e->hz, best->hz, 100 * dhz,
           e->re, best->re, 100 * dre, dmod, marginal ? " marginal" : "");
    if (marginal) continue;
    worst_hz = fmax(worst_hz, fabs(dhz));
    worst_re = fmax(worst_re, fabs(dre));
    worst_mod = fmax(worst_mod, dmod);
    n++;
  }
  if (n > 0)
    printf("check unstable_pairs=%d worst_frequency=%.4f%% worst_growth=%.2f%% "
           "worst_growth_error_of_modulus=%.1e\n", n, 100 * worst_hz, 100 * worst_re,
           worst_mod);
  if (f->rms > 0 && r->rms > 0 && f->rim > 0 && f->steps == r->steps)
    printf("check transient_rms=%.6e reduced=%.6e (%+.2f%%) rim_uz_rms=%.6e reduced=%.6e "
           "(%+.2f%%)\n", f->rms, r->rms, 100 * (r->rms - f->rms) / f->rms, f->rim, r->rim,
           100 * (r->rim - f->rim) / f->rim);
  if (f->orbit_rms > 0 && r->orbit_rms > 0 && f->orbit_rim > 0)
    printf("check orbit_hz=%.3f reduced=%.3f (%+.4f%%) orbit_rms=%.6e reduced=%.6e "
           "(%+.2f%%) orbit_rim_uz_rms=%.6e reduced=%.6e (%+.2f%%)\n", f->orbit_hz,
           r->orbit_hz, 100 * (r->orbit_hz - f->orbit_hz) / f->orbit_hz, f->orbit_rms,
           r->orbit_rms, 100 * (r->orbit_rms - f->orbit_rms) / f->orbit_rms, f->orbit_rim,
           r->orbit_rim, 100 * (r->orbit_rim - f->orbit_rim) / f->orbit_rim);
}

/* the analyses of o->mu, then o->steps steps from the equilibrium, then the orbit */
static fcd_status run_model(const char *model, fcd_system *sys, fcd_contact_set *cs,
                            const double *vg, const rim_monitor *rim, const options *o) {
  fcd_index n = fcd_system_ndofs(sys);
  double *u0 = malloc(sizeof *u0 * (size_t)n), *v0 = calloc((size_t)n, sizeof *v0);
  double *mode = malloc(sizeof *mode * (size_t)n), hz = 0, rms = 0, zrms = 0;
  fcd_status st = u0 && v0 && mode ? FCD_OK : FCD_E_NOMEM;
  if (st == FCD_OK && o->nmu > 0) st = analyse(model, sys, cs, vg, o, u0, mode, &hz);
  if (st == FCD_OK && o->steps > 0 && o->nmu > 0) {
    double amax = 0;
    for (fcd_index i = 0; i < n; i++) amax = fmax(amax, isnan(mode[i]) ? 0 : fabs(mode[i]));
    for (fcd_index i = 0; i < n && amax > 0; i++)
      if (!isnan(mode[i])) u0[i] += 0.01 * UPIN * mode[i] / amax;
    st = transient(model, sys, cs, o, rim, mode, u0, v0, &rms, &zrms, &hz);
    if (st == FCD_OK && o->orbit && hz > 0)
      st = shoot(model, sys, cs, rim, u0, v0, hz, rms, zrms);
  }
  free(u0); free(v0); free(mode);
  return st;
}

static void parse(int argc, char **argv, options *o) {
  *o = (options){.r = 1, .modes = 300, .reduce = 1, .full_steps = -1,
                 .band_damping = FCD_REDUCTION_BAND_DAMPING_DEFAULT};
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--refine") && i + 1 < argc)
      o->r = bench_int(argv[0], "--refine", argv[++i], 1, 8);
    else if (!strcmp(argv[i], "--modes") && i + 1 < argc)
      o->modes = bench_int(argv[0], "--modes", argv[++i], 0, 100000);
    else if (!strcmp(argv[i], "--inertia") && i + 1 < argc)
      o->inertia = bench_int(argv[0], "--inertia", argv[++i], 0, 100000);
    else if (!strcmp(argv[i], "--coarsen") && i + 1 < argc)
      o->coarsen = bench_int(argv[0], "--coarsen", argv[++i], 1, 64);
    else if (!strcmp(argv[i], "--steps") && i + 1 < argc)
      o->steps = bench_int(argv[0], "--steps", argv[++i], 0, 10000000);
    else if (!strcmp(argv[i], "--full-steps") && i + 1 < argc)
      o->full_steps = bench_int(argv[0], "--full-steps", argv[++i], 0, 10000000);
    else if (!strcmp(argv[i], "--full-chart") && i + 1 < argc)
      o->full_chart = bench_int(argv[0], "--full-chart", argv[++i], 1, MAX_MU);
    else if (!strcmp(argv[i], "--basis") && i + 1 < argc) {
      const char *v = argv[++i];
      o->basis = !strcmp(v, "auto") ? FCD_BASIS_AUTO : !strcmp(v, "stored") ? FCD_BASIS_STORED
                 : !strcmp(v, "factored") ? FCD_BASIS_FACTORED : -1;
      if (o->basis < 0) {
        fprintf(stderr, "%s: --basis auto|stored|factored\n", argv[0]);
        exit(2);
      }
    } else if (!strcmp(argv[i], "--memory-limit") && i + 1 < argc) {
      o->mem_gib = bench_real(argv[0], "--memory-limit", argv[++i], 0.001, 1e6);
    } else if (!strcmp(argv[i], "--undamped")) {
      o->undamped = 1;
    } else if (!strcmp(argv[i], "--projection-modes") && i + 1 < argc) {
      o->projection = bench_int(argv[0], "--projection-modes", argv[++i], 0, 100000);
    } else if (!strcmp(argv[i], "--band-damping") && i + 1 < argc) {
      o->band_damping = bench_real(argv[0], "--band-damping", argv[++i], 0, 10);
    } else if (!strcmp(argv[i], "--shape"))
      o->shape = 1;
    else if (!strcmp(argv[i], "--no-reduce"))
      o->reduce = 0;
    else if (!strcmp(argv[i], "--relative"))
      o->relative = 1;
    else if (!strcmp(argv[i], "--relative-model"))
      o->relative_model = 1;
    else if (!strcmp(argv[i], "--full"))
      o->full = 1;
    else if (!strcmp(argv[i], "--orbit"))
      o->orbit = 1;
    else if (!strcmp(argv[i], "--mu") && i + 1 < argc) {
      char *s = argv[++i], *e;
      for (o->nmu = 0; o->nmu < MAX_MU && *s; o->nmu++, s = *e == ',' ? e + 1 : e) {
        o->mu[o->nmu] = strtod(s, &e);
        if (e == s || !(o->mu[o->nmu] >= 0 && o->mu[o->nmu] <= 2)) {
          fprintf(stderr, "%s: --mu takes friction coefficients in [0, 2], comma-separated\n", argv[0]);
          exit(2);
        }
      }
    } else {
      fprintf(stderr, "usage: %s [--refine R] [--modes M] [--inertia P] [--relative] "
              "[--relative-model] [--basis auto|stored|factored] [--coarsen C] [--shape] [--no-reduce] [--full] "
              "[--mu MU1,...] [--steps N] [--full-steps N] [--full-chart K] [--orbit] [--memory-limit GIB] [--band-damping Z] [--projection-modes P] [--undamped]\n", argv[0]);
      exit(2);
    }
  }
}

int main(int argc, char **argv) {
  options o;
  parse(argc, argv, &o);
  double t0 = now();
  brake b;
  if (brake_pads_build_in(&b, o.r, o.nmu > 0 ? o.mu[0] : 0.3, o.relative_model) != FCD_OK)
    return 1;
  double tb = now() - t0;
  printf("refine=%d model=%s dofs=%lld contacts=%lld elements=%d build_seconds=%.2f "
         "build_peak_gib=%.2f\n", o.r, o.relative_model ? "relative" : "physical",
         (long long)fcd_system_ndofs(b.sys), (long long)fcd_contact_set_size(b.cs), b.m.ne, tb,
         peak_gib());
  fflush(stdout);
  int rc = 0;
  rim_monitor rim = {.red = NULL};
  rim_dofs(&b.m, rim.dofs);
  options fo = o; /* the full model's share of the work */
  if (o.full_chart > 0 && o.full_chart < o.nmu) fo.nmu = o.full_chart;
  if (o.full_steps >= 0) fo.steps = o.full_steps;
  fo.orbit = o.orbit && fo.steps == o.steps; /* a shorter transient has not settled */
  if (o.full && run_model("full", b.sys, b.cs, b.vg, &rim, &fo) != FCD_OK) rc = 1;
  if (o.reduce) {
    fcd_reduction *red = NULL;
    t0 = now();
    fcd_reduction_options ro;
    fcd_reduction_options_init(&ro);
    ro.nmodes = o.modes;
    ro.ninertia = o.inertia;
    ro.interface = o.relative ? FCD_INTERFACE_RELATIVE : FCD_INTERFACE_PHYSICAL;
    ro.basis = o.basis;
    ro.prescribed_shape = o.shape;
    ro.memory_limit = o.mem_gib * 1073741824.0;
    ro.damping = o.band_damping;
    pads_tie tie = {0, NULL, NULL, NULL, NULL};
    double *vg = b.vg; /* the sliding speeds of the reduced set's contacts */
    if (o.coarsen > 1 && o.relative) {
      if (pads_ties(o.r, o.coarsen, &tie)) return 1;
      ro.ntied = tie.n;
      ro.tied = tie.tied;
      ro.tie_ptr = tie.ptr;
      ro.tie_src = tie.src;
      ro.tie_w = tie.w;
      vg = malloc(sizeof *vg * (size_t)b.ncont);
      if (!vg) return 1;
      fcd_index nk = 0;
      for (fcd_index c = 0, k = 0; c < b.ncont; c++) {
        if (k < tie.n && tie.tied[k] == c) k++;
        else vg[nk++] = b.vg[c];
      }
    }
    fcd_status st = fcd_reduction_create_opts(b.sys, b.cs, &ro, &red);
    double tr = now() - t0;
    if (st == FCD_OK) {
      fcd_index nk = 0, nm = 0, ni = 0;
      double band = 0;
      fcd_reduction_get_info(red, &nk, &nm, NULL, NULL);
      fcd_reduction_get_inertia(red, &ni);
      fcd_reduction_get_band(red, &band, NULL, NULL);
      fcd_basis_storage kind = FCD_BASIS_AUTO;
      double fbytes = 0, bbytes = 0, pbytes = 0;
      fcd_reduction_get_memory(red, &kind, &fbytes, &bbytes, &pbytes);
      printf("reduction interface=%s coarsen=%d shape=%d contacts=%lld basis=%s modes=%d inertia=%lld "
             "kept=%lld band_hz=%.0f seconds=%.1f peak_gib=%.2f factor_gib=%.2f basis_gib=%.2f "
             "dense_peak_gib=%.2f\n", o.relative ? "relative" : "physical",
             tie.n > 0 ? o.coarsen : 1, o.shape,
             (long long)fcd_contact_set_size(fcd_reduction_contact_set(red)),
             kind == FCD_BASIS_FACTORED ? "factored" : "stored",
             o.modes, (long long)ni, (long long)nk, band, tr,
             peak_gib(), fbytes / 1073741824.0, bbytes / 1073741824.0, pbytes / 1073741824.0);
      fflush(stdout);
      rim_monitor rrim = rim;
      rrim.red = red;
      if (run_model("reduced", fcd_reduction_system(red), fcd_reduction_contact_set(red), vg,
                    &rrim, &o) != FCD_OK)
        rc = 1;
    } else {
      printf("reduction modes=%d refused after %.2f s (%s): %s\n", o.modes, tr,
             fcd_status_str(st), fcd_system_last_error(b.sys));
      rc = st == FCD_E_NOMEM ? rc : 1;
    }
    if (o.full) check();
    fcd_reduction_destroy(red);
    if (vg != b.vg) free(vg);
    pads_ties_free(&tie);
  }
  brake_free(&b);
  return rc;
}
