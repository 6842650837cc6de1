/* fcd periodic: a limit cycle by shooting, its Floquet multipliers, and its branch in mu;
 * or a forced response to harmonic loads and its frequency response curve
 * (docs/periodic.md). */
#include <fcd/fcd.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "outfile.h"

int cmd_periodic(int argc, char **argv);

static const cli_opt periodic_opts[] = {
    CLI_OPT_MODEL(1),
    CLI_OPT_DAMPING,
    CLI_OPT_FIXED,
    CLI_OPT_LOAD,
    CLI_OPT_CONTACTS,
    {CLI_SCHEME, "@scheme", 0,
     "scheme (default modified-theta, whose step map is continuous)"},
    {CLI_DT, "H", 1, "time step (a period is N = round(T / H) steps of T / N)"},
    {CLI_PERIOD, "T", 0, "the period guess (required without --harmonic; with it, a whole multiple of 2 pi / omega, default 2 pi / omega)"},
    {CLI_U0, "FILE", 0, "the start's displacement, one value per dof (default zero)"},
    {CLI_V0, "FILE", 0, "the start's velocity, one value per dof (default zero)"},
    {CLI_T_END, "T", 0, "first integrate T from the start: its end is the guess (default 0)"},
    {CLI_THETA, "X", 0, "theta of the scheme (default 0.5)"},
    {CLI_RESTITUTION, "E", 0, "Newton's restitution coefficient (default 0)"},
    {CLI_TOL, "X", 0, "Newton's bound on the orbit's relative residual (default 1e-9)"},
    {CLI_MAX_ITER, "N", 0, "Newton iterations (default 30)"},
    {CLI_MONITOR, "DOF,DOF", 0, "the orbit's columns u_DOF (default every dof)"},
    {CLI_OUT, "orbit.csv", 1, "one row per step of one period of the orbit: t, u_DOF..."},
    {CLI_FOLLOW, "MU_END:DMU:N", 0, "then follow the branch in every contact's mu, N points at most"},
    {CLI_BRANCH, "branch.csv", 0, "with --follow or --sweep: one row per point of the branch"},
    {CLI_HARMONIC, "FILE", 0, "harmonic loads, one per line: DOF AMPLITUDE [PHASE], the load AMPLITUDE cos(omega t + PHASE) on DOF (a forced response)"},
    {CLI_OMEGA, "W", 0, "with --harmonic: the loads' circular frequency (rad per unit time)"},
    {CLI_SWEEP, "omega|scale:END:DS:N", 0, "with --harmonic: then follow the forced orbit in the loads' frequency (a frequency response curve) or scale to END, first step DS (relative), N points at most"},
    CLI_OPT_END,
};
const cli_command cli_periodic = {
    "periodic", cmd_periodic, "", periodic_opts,
    "a limit cycle by shooting, its Floquet multipliers, and its branch in mu\n",
    "Newton on the start state and the period of the scheme's own discrete flow (N steps of\n"
    "T / N), with a finite-difference Jacobian and a phase condition: the orbit a long\n"
    "transient of the same scheme and step settles on. The summary gives the period, the\n"
    "residual, the amplitudes, the Floquet multipliers (the trivial one's distance to 1\n"
    "checks the differences) and the verdict; orbit.csv is one period of it. --t-end first\n"
    "integrates from the start, so a guess can be a transient's end. --follow continues the\n"
    "branch by pseudo-arclength in the contacts' common friction coefficient: branch.csv has\n"
    "mu, period, amplitudes, residual, stable (1, 0, -1: no verdict), the event (fold,\n"
    "period-doubling, torus, stability, collapse, family) and the largest other multiplier.\n"
    "Without --harmonic the system must be autonomous (constant loads and prescribed\n"
    "values). With --harmonic and --omega the orbit is the forced response (period 2 pi /\n"
    "omega, or --period a whole multiple of it; the start is the state at the loads' phase\n"
    "0; every multiplier counts); --sweep follows it in omega or in the loads' scale, and\n"
    "branch.csv's first column is that parameter.\n",
    CLI_MPI_NO};

typedef struct {
  double mu_end, dmu;
  long npts;
  fcd_scheme scheme;
  /* --harmonic: the loads (dof, amplitude, phase) at omega; --sweep */
  fcd_index nh, *hdof;
  double *hamp, *hphase, omega;
  int sweep_param;
  double sweep_end, sweep_ds;
  long sweep_npts;
} per_args;

/* the harmonic loads as the system's load function, for the CLI's own integrations (the
 * transient before shooting, the orbit's period): the shooting solver gets them as its
 * forcing instead */
static int per_harmonic_load(void *ud, double t, fcd_index n, double *f) {
  const per_args *a = ud;
  (void)n;
  for (fcd_index k = 0; k < a->nh; k++) f[a->hdof[k]] += a->hamp[k] * cos(a->omega * t + a->hphase[k]);
  return 0;
}

/* --harmonic's lines DOF AMPLITUDE [PHASE] ('#' starts a comment); 0, or 2 with a message
 * naming the line */
static int per_read_harmonic(const char *path, fcd_index n, per_args *a) {
  FILE *fh = fopen(path, "r");
  if (!fh) {
    fprintf(stderr, "fcd: cannot open --harmonic %s\n", path);
    return 2;
  }
  char line[512];
  long lno = 0;
  int rc = 0;
  while (!rc && fgets(line, sizeof line, fh)) {
    lno++;
    char *hash = strchr(line, '#');
    if (hash) *hash = 0;
    long long d;
    double amp, ph = 0;
    char tail[2];
    int got = sscanf(line, "%lld %lf %lf %1s", &d, &amp, &ph, tail);
    if (got <= 0) continue; /* blank */
    if (got < 2 || got > 3 || d < 0 || d >= n || !isfinite(amp) || !isfinite(ph)) {
      fprintf(stderr, "fcd: --harmonic %s:%ld: expected DOF AMPLITUDE [PHASE] with DOF in 0..%lld "
              "and finite numbers\n", path, lno, (long long)n - 1);
      rc = 2;
      break;
    }
    fcd_index *nd = realloc(a->hdof, ((size_t)a->nh + 1) * sizeof *nd);
    if (nd) a->hdof = nd;
    double *na = nd ? realloc(a->hamp, ((size_t)a->nh + 1) * sizeof *na) : NULL;
    if (na) a->hamp = na;
    double *np = na ? realloc(a->hphase, ((size_t)a->nh + 1) * sizeof *np) : NULL;
    if (np) a->hphase = np;
    if (!np) {
      fprintf(stderr, "fcd: out of memory reading --harmonic\n");
      rc = 2;
      break;
    }
    a->hdof[a->nh] = (fcd_index)d;
    a->hamp[a->nh] = amp;
    a->hphase[a->nh++] = ph;
  }
  fclose(fh);
  if (!rc && a->nh == 0) {
    fprintf(stderr, "fcd: --harmonic %s has no loads\n", path);
    rc = 2;
  }
  return rc;
}

static int per_check_options(const options *o, per_args *a) {
  if (!o->contacts || !o->out || !(o->dt > 0) || (!o->harmonic && !(o->period > 0))) {
    fprintf(stderr, "fcd: periodic needs --contacts, --dt > 0, --period > 0 (or --harmonic) "
            "and --out\n");
    return 2;
  }
  if (!o->harmonic != !(o->omega > 0)) {
    fprintf(stderr, "fcd: --harmonic and --omega go together\n");
    return 2;
  }
  if (o->harmonic && o->follow) {
    fprintf(stderr, "fcd: --follow continues an autonomous orbit in mu; a forced one is "
            "followed with --sweep\n");
    return 2;
  }
  if (o->sweep && !o->harmonic) {
    fprintf(stderr, "fcd: --sweep follows a forced orbit: it needs --harmonic and --omega\n");
    return 2;
  }
  if (o->sweep) {
    char name[8], tail;
    if (sscanf(o->sweep, "%7[a-z]:%lf:%lf:%ld%c", name, &a->sweep_end, &a->sweep_ds,
               &a->sweep_npts, &tail) != 4 ||
        (strcmp(name, "omega") && strcmp(name, "scale")) || !isfinite(a->sweep_end) ||
        !(a->sweep_ds > 0 && a->sweep_ds <= 1) || a->sweep_npts < 1) {
      fprintf(stderr, "fcd: --sweep needs omega|scale:END:DS:N with DS in (0, 1] and N >= 1, "
              "got '%s'\n", o->sweep);
      return 2;
    }
    a->sweep_param = strcmp(name, "omega") ? FCD_PERIODIC_CONTINUE_SCALE
                                           : FCD_PERIODIC_CONTINUE_OMEGA;
  }
  if ((o->sweep || o->follow) && !o->branch) {
    fprintf(stderr, "fcd: --%s needs --branch\n", o->sweep ? "sweep" : "follow");
    return 2;
  }
  if (o->damping && o->rayleigh) {
    fprintf(stderr, "fcd: --damping and --rayleigh exclude each other\n");
    return 2;
  }
  if (!(o->t_end >= 0) || !isfinite(o->t_end)) {
    fprintf(stderr, "fcd: --t-end must be >= 0 and finite\n");
    return 2;
  }
  if (o->branch && !o->follow && !o->sweep) {
    fprintf(stderr, "fcd: --branch goes with --follow or --sweep\n");
    return 2;
  }
  if (o->follow) {
    char tail;
    if (sscanf(o->follow, "%lf:%lf:%ld%c", &a->mu_end, &a->dmu, &a->npts, &tail) != 3 ||
        !(a->mu_end >= 0) || !(a->dmu > 0) || a->npts < 1) {
      fprintf(stderr, "fcd: --follow needs MU_END:DMU:N with MU_END >= 0, DMU > 0 and N >= 1, "
              "got '%s'\n", o->follow);
      return 2;
    }
  }
  int v = cli_family_value(FCD_FAMILY_SCHEME, "scheme", o->scheme);
  if (v < 0) return 2;
  a->scheme = (fcd_scheme)v;
  return 0;
}

/* --monitor's dofs into mon (count *nmon), every dof without it; 0 or 2 (message) */
static int per_monitor(const char *text, fcd_index n, fcd_index **mon, fcd_index *nmon) {
  *mon = malloc(((size_t)n + 1) * sizeof **mon);
  *nmon = 0;
  if (!*mon) return 2;
  if (!text) {
    for (fcd_index i = 0; i < n; i++) (*mon)[(*nmon)++] = i;
    return 0;
  }
  free(*mon);
  *mon = NULL;
  return cli_parse_monitor(text, n, mon, nmon) ? 2 : 0;
}

/* the integrator of the options' scheme, step and theta; t_end > 0: (u, v) advanced */
static fcd_status per_transient(fcd_system *sys, fcd_contact_set *cs, const options *o,
                                const per_args *a, double *u, double *v) {
  if (!(o->t_end > 0)) return FCD_OK;
  fcd_integrator *it = NULL;
  fcd_scheme scheme = a->scheme;
  /* forced: a whole number of the loads' periods, so the end is at their phase 0 */
  double t_end = o->t_end;
  if (a->nh > 0) t_end = ceil(o->t_end * a->omega / (2 * PI)) * 2 * PI / a->omega;
  fcd_status st = a->nh > 0 ? fcd_system_set_load_fn(sys, per_harmonic_load, (void *)a) : FCD_OK;
  if (st == FCD_OK) st = fcd_integrator_create(sys, cs, scheme, &it);
  if (st == FCD_OK) st = fcd_integrator_set_param(it, FCD_PARAM_STEP, o->dt);
  if (st == FCD_OK) st = fcd_integrator_set_param(it, FCD_PARAM_THETA, o->theta);
  if (st == FCD_OK) st = fcd_integrator_set_state(it, 0.0, u, v);
  if (st == FCD_OK) st = fcd_integrator_advance(it, t_end);
  if (st == FCD_OK) st = fcd_integrator_get_state(it, NULL, u, v);
  fcd_integrator_destroy(it);
  if (a->nh > 0) fcd_system_set_load_fn(sys, NULL, NULL);
  return st;
}

static void per_summary(const fcd_periodic_info *in, const double *re, const double *im,
                        int forced) {
  printf("periodic: %s after %lld Newton iterations (%lld periods of %lld steps)\n",
         in->converged ? "converged" : "NOT converged", (long long)in->iterations,
         (long long)in->evaluations, (long long)in->steps);
  printf("  period %.12g, residual %.3e, amplitudes %.6g (displacement) %.6g (velocity)\n",
         in->period, in->residual, in->amplitude_u, in->amplitude_v);
  if (!in->converged) return;
  printf("  Floquet multipliers (modulus):");
  for (fcd_index k = 0; k < in->multipliers && k < 8; k++)
    printf(" %.6g%+.6gi (%.6g)", re[k], im[k], hypot(re[k], im[k]));
  printf("%s\n", in->multipliers > 8 ? " ..." : "");
  if (forced)
    printf("  forced: largest multiplier %.6g: %s\n", in->max_multiplier,
           in->stable == 1 ? "stable" : in->stable == 0 ? "unstable" : "no verdict");
  else
    printf("  trivial multiplier within %.2e of 1; largest other %.6g: %s\n", in->trivial_error,
           in->max_multiplier, in->stable == 1 ? "stable" : in->stable == 0 ? "unstable"
                                                                               : "no verdict");
}

/* one period of the orbit, N steps of T / N from its start, into PATH */
static int per_write_orbit(fcd_system *sys, fcd_contact_set *cs, const per_args *a,
                           const options *o, const fcd_periodic *p, const fcd_index *mon,
                           fcd_index nmon) {
  fcd_index n = fcd_system_ndofs(sys);
  fcd_scheme scheme = a->scheme;
  fcd_periodic_info in;
  double T = 0, *u = malloc((size_t)n * sizeof *u), *v = malloc((size_t)n * sizeof *v), t = 0;
  fcd_integrator *it = NULL;
  fcd_status st = u && v ? fcd_periodic_get_orbit(p, &T, u, v) : FCD_E_NOMEM;
  if (st == FCD_OK && a->nh > 0) st = fcd_system_set_load_fn(sys, per_harmonic_load, (void *)a);
  if (st == FCD_OK) st = fcd_periodic_get_info(p, &in);
  if (st == FCD_OK) st = fcd_integrator_create(sys, cs, scheme, &it);
  if (st == FCD_OK) st = fcd_integrator_set_param(it, FCD_PARAM_STEP, T / (double)in.steps);
  if (st == FCD_OK) st = fcd_integrator_set_param(it, FCD_PARAM_THETA, o->theta);
  if (st == FCD_OK) st = fcd_integrator_set_state(it, 0.0, u, v);
  out_file f;
  FILE *csv = st == FCD_OK ? out_open(&f, o->out) : NULL;
  int rc = st != FCD_OK ? fail(sys, st, "the orbit's period") : !csv;
  if (csv) {
    fprintf(csv, "t");
    for (fcd_index k = 0; k < nmon; k++) fprintf(csv, ",u_%lld", (long long)mon[k]);
    fprintf(csv, "\n");
    for (fcd_index s = 0; s <= in.steps && st == FCD_OK; s++) {
      if (s > 0) st = fcd_integrator_step(it);
      if (st == FCD_OK) st = fcd_integrator_get_state(it, &t, u, NULL);
      fprintf(csv, "%.12g", t);
      for (fcd_index k = 0; k < nmon; k++) fprintf(csv, ",%.12g", u[mon[k]]);
      fprintf(csv, "\n");
    }
    if (st != FCD_OK) {
      out_discard(&f);
      rc = fail(sys, st, "the orbit's period");
    } else if (out_commit(&f)) {
      rc = 1;
    } else {
      printf("orbit: %s (%lld steps)\n", o->out, (long long)in.steps);
    }
  }
  fcd_integrator_destroy(it);
  if (a->nh > 0) fcd_system_set_load_fn(sys, NULL, NULL);
  free(u);
  free(v);
  return rc;
}

static const char *const per_events[] = {"none", "fold", "period-doubling", "torus",
                                         "stability", "collapse", "family"};

static int per_point(void *ud, double mu, const fcd_periodic_info *in, const double *re,
                     const double *im, int ev) {
  (void)re;
  (void)im;
  const char *name = ev >= 0 && ev <= FCD_PERIODIC_EVENT_FAMILY ? per_events[ev] : "?";
  fprintf((FILE *)ud, "%.10g,%.12g,%.10g,%.10g,%.3e,%d,%s,%.8g\n", mu, in->period,
          in->amplitude_u, in->amplitude_v, in->residual, in->stable, name, in->max_multiplier);
  printf("  %.8g: T %.10g, amplitude %.6g, %s%s%s\n", mu, in->period, in->amplitude_u,
         in->stable == 1 ? "stable" : in->stable == 0 ? "unstable" : "no verdict",
         ev ? ", " : "", ev ? name : "");
  if (ev == FCD_PERIODIC_EVENT_FAMILY)
    printf("  stopped: a second Floquet multiplier sits at +1 here and at the point before, "
           "so these orbits are one of a family at this mu (any amplitude, as an undamped "
           "model moves while its contacts stay closed and slipping); a branch in mu is "
           "not defined from here\n");
  return 0;
}

/* --follow: the branch into --branch (kept only when the continuation ends well) */
static int per_follow(fcd_system *sys, fcd_periodic *p, const options *o, const per_args *a) {
  out_file f;
  FILE *csv = out_open(&f, o->branch);
  if (!csv) return 1;
  const char *pname = !o->sweep ? "mu" : a->sweep_param == FCD_PERIODIC_CONTINUE_OMEGA ? "omega"
                                                                                      : "scale";
  fprintf(csv, "%s,period,amplitude_u,amplitude_v,residual,stable,event,max_multiplier\n", pname);
  printf("branch towards %s = %g:\n", pname, o->sweep ? a->sweep_end : a->mu_end);
  fcd_status st = o->sweep ? fcd_periodic_continue_forcing(p, a->sweep_param, a->sweep_end,
                                                           a->sweep_ds, a->sweep_npts, per_point, csv)
                           : fcd_periodic_continue(p, a->mu_end, a->dmu, a->npts, per_point, csv);
  if (st != FCD_OK) {
    /* the points found are kept: the branch up to where it could not be followed */
    if (out_commit(&f)) return 1;
    fprintf(stderr, "fcd: %s holds the points before the failure\n", o->branch);
    return fail(sys, st, "following the branch");
  }
  if (out_commit(&f)) return 1;
  printf("branch: %s\n", o->branch);
  return 0;
}

static int per_run(fcd_system *sys, fcd_contact_set *cs, const options *o, const per_args *a,
                   double *u, double *v, const fcd_index *mon, fcd_index nmon) {
  fcd_status st = per_transient(sys, cs, o, a, u, v);
  if (st != FCD_OK) return fail(sys, st, "the transient before shooting");
  fcd_periodic *p = NULL;
  st = fcd_periodic_create(sys, cs, a->scheme, &p);
  if (st == FCD_OK && a->nh > 0)
    st = fcd_periodic_set_harmonic_forcing(p, a->omega, a->nh, a->hdof, a->hamp, a->hphase);
  double period = a->nh > 0 && !(o->period > 0) ? 2 * PI / a->omega : o->period;
  if (st == FCD_OK) st = fcd_periodic_set_param(p, FCD_PARAM_STEP, o->dt);
  if (st == FCD_OK) st = fcd_periodic_set_param(p, FCD_PARAM_THETA, o->theta);
  if (st == FCD_OK && o->tol > 0) st = fcd_periodic_set_param(p, FCD_PERIODIC_PARAM_TOL, o->tol);
  if (st == FCD_OK && o->max_iter > 0)
    st = fcd_periodic_set_param(p, FCD_PERIODIC_PARAM_MAX_ITER, (double)o->max_iter);
  if (st != FCD_OK) {
    fcd_periodic_destroy(p);
    return fail(sys, st, "setting up the shooting");
  }
  fcd_status ss = fcd_periodic_solve(p, u, v, period);
  /* the solve's message, before the queries below can replace it */
  char msg[1024] = "";
  if (ss != FCD_OK) snprintf(msg, sizeof msg, "%s", fcd_system_last_error(sys));
  fcd_periodic_info in;
  double re[8] = {0}, im[8] = {0};
  fcd_index nm = 0;
  int rc = 0;
  if (fcd_periodic_get_info(p, &in) == FCD_OK) {
    if (ss == FCD_OK) fcd_periodic_get_multipliers(p, 8, re, im, &nm);
    per_summary(&in, re, im, a->nh > 0);
  }
  if (ss != FCD_OK) {
    fprintf(stderr, "fcd: shooting: %s (%s)\n", msg, fcd_status_str(ss));
    rc = 1;
  }
  if (!rc) rc = per_write_orbit(sys, cs, a, o, p, mon, nmon);
  if (!rc && (o->follow || o->sweep)) rc = per_follow(sys, p, o, a);
  fcd_periodic_destroy(p);
  return rc;
}

int cmd_periodic(int argc, char **argv) {
  options o = {.theta = 0.5, .scheme = "modified-theta"};
  if (parse_options(argc, argv, &o, &cli_periodic)) return 2;
  per_args a;
  memset(&a, 0, sizeof a);
  a.omega = o.omega;
  int rc = per_check_options(&o, &a);
  if (rc) return rc;
  fcd_system *sys = NULL;
  if ((rc = load_system_opt(&o, 1, 0, &sys)) != 0) {
    fcd_system_destroy(sys);
    return rc;
  }
  fcd_index n = fcd_system_ndofs(sys), *mon = NULL, nmon = 0;
  fcd_contact_set *cs = NULL;
  double *u = calloc((size_t)n, sizeof *u), *v = calloc((size_t)n, sizeof *v);
  double *f = calloc((size_t)n, sizeof *f);
  int usage = 0;
  fcd_status st = u && v && f ? read_damping_load(&o, sys, n, f, &usage) : FCD_E_NOMEM;
  if (!usage && st == FCD_OK && o.u0) st = fcd_system_read_vector(sys, o.u0, n, u);
  if (!usage && st == FCD_OK && o.v0) st = fcd_system_read_vector(sys, o.v0, n, v);
  if (!usage && st == FCD_OK) st = fcd_contact_set_read(sys, o.contacts, &cs);
  if (!usage && st == FCD_OK) st = fcd_contact_set_set_restitution(cs, o.restitution);
  if (usage) rc = 2;
  else if (st != FCD_OK) rc = fail(sys, st, "reading input");
  else if (o.harmonic && (rc = per_read_harmonic(o.harmonic, n, &a)) != 0) {
  } else if ((rc = per_monitor(o.monitor, n, &mon, &nmon)) == 0)
    rc = per_run(sys, cs, &o, &a, u, v, mon, nmon);
  free(mon);
  free(a.hdof);
  free(a.hamp);
  free(a.hphase);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
  free(u);
  free(v);
  free(f);
  return rc;
}
