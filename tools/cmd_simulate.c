/* fcd simulate: nonsmooth time integration. */
#include <fcd/fcd.h>

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "outfile.h"

typedef struct {
  FILE *csv;
  fcd_integrator *it;
  double t0, t_end;
  int tty;
  int last_pct;
  fcd_certificate worst; /* figure by figure, the largest over the steps */
  const fcd_index *mon;  /* --monitor's dofs, a column u_DOF each (integrated numbering) */
  fcd_index nmon;
  /* with --reduce: the last two states (ua the newest), for the indicator, and the
   * reduction the monitored dofs are read through (their values in monv) */
  double *ua, *va, *ub, *vb, ta, tb;
  const fcd_reduction *rmon;
  double *monv;
  /* --series: the series (rank 0), a frame every `every` steps; with --reduce the frames
   * are expanded to the full model in su, sv; sst the contacts' statuses */
  fcd_series *series;
  long every, steps;
  const fcd_reduction *red;
  double *su, *sv;
  int *sst;
  fcd_status series_st;
  char series_err[512]; /* the series' message when a frame failed */
  fcd_system *ssys;     /* the full system, whose messages the series writes */
} sim_ctx;

/* a frame of the series at t from the integrated state (u, v; reduced with --reduce) and
 * the local reactions r */
static fcd_status sim_frame(sim_ctx *s, double t, const double *u, const double *v,
                            const double *r) {
  fcd_status st = fcd_integrator_get_contact_status(s->it, s->sst);
  if (st == FCD_OK && s->red) {
    st = fcd_reduction_expand(s->red, u, s->su);
    if (st == FCD_OK) st = fcd_reduction_expand(s->red, v, s->sv);
    u = s->su;
    v = s->sv;
  }
  if (st == FCD_OK) st = fcd_series_write(s->series, t, u, v, r, s->sst);
  if (st != FCD_OK)
    snprintf(s->series_err, sizeof s->series_err, "%s", fcd_system_last_error(s->ssys));
  return st;
}

/* --series: the directory, the series and its first frame, the start (rank 0 only; the
 * others write nothing). 0 or 1 (message printed). */
static int sim_series_start(const options *o, fcd_system *sys, const fcd_contact_set *cs,
                            const fcd_mesh *mesh, const fcd_reduction *red, const double *u,
                            const double *v, sim_ctx *ctx) {
  if (!o->series || cli_rank != 0) return 0;
  fcd_index n = fcd_system_ndofs(sys), nc = fcd_contact_set_size(cs);
  int dim = fcd_contact_set_dim(cs);
  ctx->ssys = sys;
  ctx->red = red;
  ctx->every = o->every > 0 ? o->every : 1;
  ctx->sst = calloc((size_t)nc + 1, sizeof *ctx->sst);
  double *r0 = calloc((size_t)(nc * dim) + 1, sizeof *r0);
  if (red) {
    ctx->su = malloc(((size_t)n + 1) * sizeof *ctx->su);
    ctx->sv = malloc(((size_t)n + 1) * sizeof *ctx->sv);
  }
  if (!ctx->sst || !r0 || (red && (!ctx->su || !ctx->sv))) {
    free(r0);
    return fail(sys, FCD_E_NOMEM, "starting the series");
  }
  if (out_mkdir(o->series)) {
    free(r0);
    return 1;
  }
  ctx->series = cli_series_create(sys, mesh, cs, o->series, "series", o->series_format);
  if (!ctx->series) {
    free(r0);
    return 1;
  }
  fcd_status st = sim_frame(ctx, 0.0, u, v, r0);
  free(r0);
  if (st != FCD_OK) return fail(sys, st, "starting the series");
  return 0;
}

/* --perturb-mode K --amplitude A: the stability analysis about the contact state of
 * --state (as `fcd stability --state` takes it), mode K (eigenvalues by decreasing real
 * part: 0 is the most unstable), and the start u0 + A Re(phi), v0 + A Re(lambda phi), on
 * which the linearized motion is A Re(phi e^(lambda t)): a transient then grows at
 * Re(lambda) while the contacts keep that state. phi has a largest component of modulus
 * 1. */
static fcd_status perturb(fcd_system *sys, fcd_contact_set *cs, const options *o, long mode,
                          double *u, double *v) {
  fcd_index n = fcd_system_ndofs(sys), nc = fcd_contact_set_size(cs), nconv = 0;
  int d = fcd_contact_set_dim(cs);
  int *status = calloc((size_t)nc + 1, sizeof *status);
  double *slip = calloc((size_t)(nc * (d - 1)) + 1, sizeof *slip);
  double *pr = calloc((size_t)n, sizeof *pr), *pi = calloc((size_t)n, sizeof *pi);
  fcd_stability *st = NULL;
  fcd_status s = status && slip && pr && pi ? FCD_OK : FCD_E_NOMEM;
  if (s == FCD_OK) s = fcd_contact_set_read_state(cs, o->state, status, slip);
  if (s == FCD_OK) s = fcd_stability_create(sys, cs, &st);
  if (s == FCD_OK) s = fcd_stability_set_contact_state(st, status, slip);
  if (s == FCD_OK && o->nev > 0) s = fcd_stability_set_param(st, FCD_STAB_NEV, (double)o->nev);
  if (s == FCD_OK) s = fcd_stability_solve(st, &nconv);
  if (s == FCD_OK && mode >= nconv) {
    fprintf(stderr, "fcd: --perturb-mode %ld: the stability analysis has %lld eigenvalues "
            "(0 to %lld)\n", mode, (long long)nconv, (long long)nconv - 1);
    s = FCD_E_INVALID_ARG;
  }
  double re = 0, im = 0, fhz = 0, xi;
  int kind;
  if (s == FCD_OK) s = fcd_stability_get_eigenvalue(st, mode, &re, &im);
  if (s == FCD_OK) s = fcd_stability_get_mode_info(st, mode, &fhz, &xi, &kind);
  if (s == FCD_OK) s = fcd_stability_get_mode(st, mode, pr, pi);
  if (s == FCD_OK) {
    double a = o->amplitude;
    for (fcd_index i = 0; i < n; i++) {
      u[i] += a * pr[i];
      v[i] += a * (re * pr[i] - im * pi[i]);
    }
    printf("perturbation: mode=%ld lambda=%.9g%+.9gi freq_hz=%.9g growth_rate=%.9g "
           "amplitude=%.6g\n", mode, re, im, fhz, re, a);
  }
  fcd_stability_destroy(st);
  free(status);
  free(slip);
  free(pr);
  free(pi);
  return s;
}


static int sim_observer(void *ud, fcd_real t, fcd_index n, const fcd_real *u, const fcd_real *v,
                        fcd_index nl, const fcd_real *r, const fcd_contact_counts *c) {
  sim_ctx *s = ud;
  (void)nl;
  fcd_energy e;
  fcd_integrator_get_energy(s->it, &e);
  fcd_certificate ct;
  if (fcd_integrator_get_certificate(s->it, &ct) == FCD_OK) {
    fcd_certificate *w = &s->worst;
    w->equilibrium = fmax(w->equilibrium, ct.equilibrium);
    w->penetration = fmax(w->penetration, ct.penetration);
    w->complementarity = fmax(w->complementarity, ct.complementarity);
    w->cone = fmax(w->cone, ct.cone);
    w->tolerance = ct.tolerance;
    w->force_scale = fmax(w->force_scale, ct.force_scale);
    w->length_scale = fmax(w->length_scale, ct.length_scale);
  }
  fprintf(s->csv, "%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%lld,%lld,%lld", t, e.kinetic,
          e.potential, e.external_work, e.damping_dissipation, e.friction_dissipation,
          e.impact_dissipation, e.numerical_dissipation, (long long)c->open,
          (long long)c->stick, (long long)c->slip);
  if (s->rmon && fcd_reduction_expand_dofs(s->rmon, u, s->nmon, s->mon, s->monv) != FCD_OK)
    return 1;
  for (fcd_index k = 0; k < s->nmon; k++)
    fprintf(s->csv, ",%.12g", s->rmon ? s->monv[k] : u[s->mon[k]]);
  fputc('\n', s->csv);
  if (s->ua) {
    double *x = s->ub, *y = s->vb;
    s->ub = s->ua;
    s->vb = s->va;
    s->tb = s->ta;
    s->ua = x;
    s->va = y;
    s->ta = t;
    memcpy(s->ua, u, (size_t)n * sizeof *u);
    memcpy(s->va, v, (size_t)n * sizeof *v);
  }
  if (s->series && ++s->steps % s->every == 0 &&
      (s->series_st = sim_frame(s, t, u, v, r)) != FCD_OK)
    return 1;
  if (s->tty) {
    int pct = (int)(100.0 * (t - s->t0) / (s->t_end - s->t0));
    if (pct != s->last_pct) {
      fprintf(stderr, "\r  simulating: %3d%% (t = %.4g)", pct, t);
      s->last_pct = pct;
    }
  }
  return ferror(s->csv) ? 1 : 0;
}


static const cli_opt simulate_opts[] = {
    CLI_OPT_MODEL(1),
    CLI_OPT_DAMPING,
    CLI_OPT_FIXED,
    CLI_OPT_LOAD,
    CLI_OPT_CONTACTS,
    {CLI_SCHEME, "@scheme", 0, "time-stepping scheme (default moreau-jean)"},
    {CLI_DT, "H", 1, "time step"},
    {CLI_T_END, "T", 1, "end time"},
    {CLI_THETA, "X", 0, "theta of the scheme (default 0.5)"},
    {CLI_RESTITUTION, "E", 0, "Newton's restitution coefficient (default 0)"},
    {CLI_U0, "FILE", 0, "initial displacement, one value per dof"},
    {CLI_V0, "FILE", 0, "initial velocity, one value per dof"},
    {CLI_MAX_ITER, "N", 0, "the contact solver's iterations per step"},
    {CLI_OUT, "history.csv", 1, "one row per step: time, energy ledger, contact status counts"},
    {CLI_MONITOR, "DOF,DOF", 0, "a column u_DOF of the history per dof listed (an index, or LABEL:DOF with matrices by node label)"},
    {CLI_STATE, "state.csv", 0, "with --perturb-mode: the contact state of the stability analysis"},
    {CLI_PERTURB_MODE, "K", 0, "start from u0 + A Re(phi_K), v0 + A Re(lambda_K phi_K)"},
    {CLI_AMPLITUDE, "A", 0, "the perturbation's amplitude (default 1e-6)"},
    {CLI_NEV, "N", 0, "eigenvalues of that analysis on a sparse pencil (default its own)"},
    {CLI_REDUCE, "MODES", 0, "integrate a reduced model: the contact dofs kept, MODES fixed-interface modes"},
    {CLI_MODAL, "", 0, "with --reduce: in the modes of the reduced pencil (the same model, a faster step)"},
    {CLI_INERTIA, "P", 0, "with --reduce: P inertia correction vectors added to the modes (docs/reduction.md)"},
    {CLI_INTERFACE, "physical|relative", 0, "with --reduce: a node-to-node pair kept as both nodes (default) or as one node's displacement relative to the other's, half the kept dofs (docs/reduction.md)"},
    {CLI_BASIS, "auto|stored|factored", 0, "with --reduce: the constraint modes stored (n x kept numbers) or applied through the interior's factor, for models whose stored modes outgrow the memory (default auto: whichever takes less memory)"},
    {CLI_PRESCRIBED_SHAPE, "", 0, "with --reduce: the dofs prescribed to nonzero values kept as one coordinate, the others following the first in proportion to their values (a pushed face: one kept dof where each of its dofs was one)"},
    {CLI_MEMORY_LIMIT, "GIB", 0, "with --reduce: the memory the process may hold at the reduction's peak, in GiB (default: the machine's); a reduction that cannot fit is refused at once, naming what it needs"},
    {CLI_CUT, "X", 0, "with --reduce: the reduced model's dynamics damped above X (>= 1) times its highest kept mode's frequency (default 1)"},
    {CLI_BAND_DAMPING, "XI", 0, "with --reduce: their damping ratio (default 0.1; 0: none, the Galerkin model's own dynamics)"},
    CLI_OPT_MESH,
    {CLI_VTK, "DIR", 0, "with --mesh: DIR/final.vtk, the last displacement, velocity, contact status"},
    {CLI_VTK_BINARY, "", 0, "with --vtk: the BINARY legacy form (exact values, 8 bytes each)"},
    {CLI_SERIES, "DIR", 0, "with --mesh: the motion for ParaView, DIR/series.pvd and a DIR/series-K.vtu per frame"},
    {CLI_EVERY, "K", 0, "with --series: a frame every K steps (default 1), the start included"},
    {CLI_SERIES_FORMAT, "@output-format", 0, "with --series: the files' format (default vtu; vtk: legacy frames and DIR/series.vtk.series)"},
    CLI_OPT_END,
};
const cli_command cli_simulate = {
    "simulate", cmd_simulate, "", simulate_opts,
    "nonsmooth time integration with impacts and Coulomb friction\n",
    "history.csv has one row per step: time, the energy ledger and the counts of open,\n"
    "stuck and slipping contacts, then a column u_DOF per dof of --monitor. With a mesh,\n"
    "DIR/final.vtk holds the last displacement, velocity and contact status. --perturb-mode\n"
    "starts from mode K of the stability analysis about the contact state of state.csv,\n"
    "u0 + A Re(phi) and v0 + A Re(lambda phi), so that the transient's growth can be\n"
    "checked against Re(lambda). --reduce MODES integrates a Craig-Bampton reduction of the\n"
    "model (docs/reduction.md): the contact dofs and the moving prescribed ones kept, MODES\n"
    "fixed-interface modes; the start is restricted to it, --monitor takes kept dofs (any\n"
    "dof with --modal), the final state is expanded, and the summary adds the reduction's\n"
    "a-posteriori indicator (the full equations' interior residual at the last step).\n"
    "--modal integrates the same reduced model in the modes of its pencil (identity mass,\n"
    "diagonal stiffness: a step's cost is the contacts'), the moving prescribed dofs one\n"
    "shape coordinate; not with a prescribed function. --inertia P enriches the basis with\n"
    "P inertia correction vectors (what the truncated modes' inertia does at low frequency;\n"
    "far fewer modes for the same accuracy). The reduced model's dynamics above its band\n"
    "(band_hz= on the reduced: line) are damped, --band-damping XI from --cut X times its\n"
    "highest mode (defaults 0.1 and 1; docs/reduction.md); the last lines give the\n"
    "indicators, the interior residual and the kinetic energy's share above the band\n"
    "(a warning above 5 %). --series DIR writes the\n"
    "motion as a ParaView time series (docs/file-formats.md): DIR/series.pvd lists a\n"
    "DIR/series-K.vtu per frame (the start, then every --every steps) with displacement,\n"
    "velocity and the contact fields (status, gap, slip velocity, reactions); ParaView\n"
    "opens the .pvd as one animation. Frames already written stay if the run fails.\n",
    CLI_MPI_ROWS};

/* the options' own checks, before anything is read: 0, or the exit status (2) */
static int sim_check_options(options *o, fcd_scheme *scheme, long *pmode) {
  if (!o->contacts || !o->out || !(o->dt > 0) || !(o->t_end > 0)) {
    fprintf(stderr, "fcd: simulate needs --contacts, --dt > 0, --t-end > 0 and --out\n");
    return 2;
  }
  if (o->damping && o->rayleigh) {
    fprintf(stderr, "fcd: --damping and --rayleigh exclude each other\n");
    return 2;
  }
  *pmode = -1;
  if (o->perturb_text) {
    char *end;
    errno = 0;
    *pmode = strtol(o->perturb_text, &end, 10);
    if (*end || end == o->perturb_text || errno || *pmode < 0) {
      fprintf(stderr, "fcd: --perturb-mode needs a mode index >= 0, got '%s'\n",
              o->perturb_text);
      return 2;
    }
    if (!o->state) {
      fprintf(stderr, "fcd: --perturb-mode needs --state, the contact state of its "
              "stability analysis (as 'fcd equilibrium --out' writes it)\n");
      return 2;
    }
    if (cli_nranks > 1) {
      fprintf(stderr, "fcd: --perturb-mode does not run on several MPI ranks (run the "
              "stability analysis once: 'fcd stability', then --u0 and --v0)\n");
      return 2;
    }
  } else if (o->state) {
    fprintf(stderr, "fcd: --state goes with --perturb-mode\n");
    return 2;
  }
  if ((o->modal || o->inertia > 0 || o->cut >= 0 || o->band_damping >= 0 || o->interface ||
       o->basis || o->prescribed_shape || o->memory_limit > 0) && o->reduce < 0) {
    fprintf(stderr, "fcd: --%s goes with --reduce\n",
            o->modal ? "modal" : o->inertia > 0 ? "inertia" : o->cut >= 0 ? "cut"
                               : o->interface ? "interface" : o->basis ? "basis"
                               : o->prescribed_shape ? "prescribed-shape"
                               : o->memory_limit > 0 ? "memory-limit" : "band-damping");
    return 2;
  }
  if (o->reduce >= 0 && cli_nranks > 1) {
    fprintf(stderr, "fcd: --reduce does not run on several MPI ranks (a reduced model is "
            "dense and small: run it on one)\n");
    return 2;
  }
  if (cli_interface_check(o)) return 2;
  if (o->series && !o->mesh) {
    fprintf(stderr, "fcd: --series DIR needs --mesh FILE (the frames need the mesh's node "
            "coordinates and cells)\n");
    return 2;
  }
  if (o->every > 0 && !o->series) {
    fprintf(stderr, "fcd: --every goes with --series\n");
    return 2;
  }
  if (!isfinite(o->amplitude)) {
    fprintf(stderr, "fcd: --amplitude must be finite\n");
    return 2;
  }
  int v = cli_family_value(FCD_FAMILY_SCHEME, "scheme", o->scheme);
  if (v < 0) return 2;
  *scheme = (fcd_scheme)v;
  return vtk_prepare(o);
}

/* the integrator with the options' step, theta and iteration cap */
static fcd_status sim_integrator(fcd_system *sys, fcd_contact_set *cs, fcd_scheme scheme,
                                 const options *o, fcd_integrator **it) {
  fcd_status st = fcd_integrator_create(sys, cs, scheme, it);
  if (st == FCD_OK) st = fcd_integrator_set_param(*it, FCD_PARAM_STEP, o->dt);
  if (st == FCD_OK) st = fcd_integrator_set_param(*it, FCD_PARAM_THETA, o->theta);
  if (st == FCD_OK && o->max_iter > 0)
    st = fcd_integrator_set_param(*it, FCD_PARAM_MAX_ITER, (double)o->max_iter);
  return st;
}

/* --reduce: the reduction of (sys, cs) (modal coordinates with --modal), the start
 * restricted to it (u, v become the reduced start, their first nr entries), the
 * monitored dofs read through it (Craig-Bampton coordinates: kept dofs only, to keep
 * the interior's expansion out of every step) and the observer's buffers for the last
 * two states */
static fcd_status sim_reduce(fcd_system *sys, fcd_contact_set *cs, const options *o,
                             double *u, double *v, const fcd_index *mon, fcd_index nmon,
                             fcd_reduction **red, sim_ctx *ctx, int *usage) {
  fcd_status st = cli_reduction(
      sys, cs, o, o->modal, o->cut >= 0 ? o->cut : FCD_REDUCTION_CUT_DEFAULT,
      o->band_damping >= 0 ? o->band_damping : FCD_REDUCTION_BAND_DAMPING_DEFAULT, red);
  fcd_index nk = 0, nm = 0, nr = 0;
  double fmax = 0;
  if (st == FCD_OK) st = fcd_reduction_get_info(*red, &nk, &nm, &fmax, NULL);
  if (st == FCD_OK) nr = fcd_system_ndofs(fcd_reduction_system(*red));
  fcd_index *kept = st == FCD_OK ? malloc(((size_t)nk + 1) * sizeof *kept) : NULL;
  double *xr = st == FCD_OK ? malloc(((size_t)nr + 1) * sizeof *xr) : NULL;
  if (st == FCD_OK && (!kept || !xr)) st = FCD_E_NOMEM;
  if (st == FCD_OK) st = fcd_reduction_get_info(*red, NULL, NULL, NULL, kept);
  if (st == FCD_OK && !(ctx->monv = malloc(((size_t)nmon + 1) * sizeof *ctx->monv)))
    st = FCD_E_NOMEM;
  ctx->rmon = st == FCD_OK && nmon > 0 ? *red : NULL;
  /* a prescribed dof reads at no cost too: a kept one, one that follows the first
   * (--prescribed-shape), or a support */
  fcd_index npf = fcd_system_num_fixed(sys);
  fcd_index *pf = st == FCD_OK ? malloc(((size_t)npf + 1) * sizeof *pf) : NULL;
  if (st == FCD_OK && !pf) st = FCD_E_NOMEM;
  if (st == FCD_OK) st = fcd_system_get_fixed(sys, pf, NULL);
  for (fcd_index k = 0; k < nmon && st == FCD_OK && !o->modal; k++) {
    fcd_index j = 0, q = 0;
    while (j < nk && kept[j] != mon[k]) j++;
    while (q < npf && pf[q] != mon[k]) q++;
    if (j == nk && q == npf) {
      fprintf(stderr, "fcd: --monitor with --reduce takes kept dofs (a contact's, or a "
              "moving prescribed one) and prescribed ones, or any with --modal; dof %lld is "
              "in the reduced interior\n", (long long)mon[k]);
      *usage = 1;
      st = FCD_E_INVALID_ARG;
    }
  }
  free(pf);
  /* the full start as the full integrator takes it: the prescribed dofs at their values
   * (a top pushed at once stays a shock, with the interior at rest, in the reduced start) */
  fcd_index nf = fcd_system_num_fixed(sys);
  fcd_index *fd = st == FCD_OK ? malloc(((size_t)nf + 1) * sizeof *fd) : NULL;
  double *fu = st == FCD_OK ? malloc(((size_t)nf + 1) * sizeof *fu) : NULL;
  double *fv = st == FCD_OK ? malloc(((size_t)nf + 1) * sizeof *fv) : NULL;
  if (st == FCD_OK && (!fd || !fu || !fv)) st = FCD_E_NOMEM;
  if (st == FCD_OK) st = fcd_system_get_fixed(sys, fd, NULL);
  if (st == FCD_OK) st = fcd_system_eval_prescribed(sys, 0.0, fu, fv);
  for (fcd_index k = 0; k < nf && st == FCD_OK; k++) {
    u[fd[k]] = fu[k];
    v[fd[k]] = fv[k];
  }
  free(fd);
  free(fu);
  free(fv);
  if (st == FCD_OK) st = fcd_reduction_restrict(*red, u, xr);
  if (st == FCD_OK) memcpy(u, xr, (size_t)nr * sizeof *u);
  if (st == FCD_OK) st = fcd_reduction_restrict(*red, v, xr);
  if (st == FCD_OK) memcpy(v, xr, (size_t)nr * sizeof *v);
  if (st == FCD_OK) {
    ctx->ua = calloc((size_t)nr + 1, sizeof *ctx->ua);
    ctx->va = calloc((size_t)nr + 1, sizeof *ctx->va);
    ctx->ub = calloc((size_t)nr + 1, sizeof *ctx->ub);
    ctx->vb = calloc((size_t)nr + 1, sizeof *ctx->vb);
    if (!ctx->ua || !ctx->va || !ctx->ub || !ctx->vb) st = FCD_E_NOMEM;
  }
  fcd_index ninert = 0, ndamp = 0;
  double band = 0, cut = 0;
  if (st == FCD_OK) st = fcd_reduction_get_inertia(*red, &ninert);
  if (st == FCD_OK) st = fcd_reduction_get_band(*red, &band, &cut, &ndamp);
  if (st == FCD_OK)
    printf("reduced: kept_dofs=%lld modes=%lld max_mode_hz=%.6g reduced_dofs=%lld "
           "coordinates=%s inertia=%lld band_hz=%.6g cut_hz=%.6g damped=%lld\n",
           (long long)nk, (long long)nm, fmax, (long long)nr,
           o->modal ? "modal" : "craig-bampton", (long long)ninert, band, cut,
           (long long)ndamp);
  free(kept);
  free(xr);
  return st;
}

/* the indicator at the last step's theta point (u, v averaged, a the velocity change over
 * the step): the full equations' interior residual (fcd_reduction_residual) */
static fcd_status sim_reduced_summary(const fcd_reduction *red, const sim_ctx *ctx) {
  fcd_index nr = fcd_system_ndofs(fcd_reduction_system(red));
  double h = ctx->ta - ctx->tb, rel = 0;
  if (!(h > 0)) return FCD_OK; /* fewer than two states seen */
  double *ut = malloc(((size_t)nr + 1) * sizeof *ut), *vt = malloc(((size_t)nr + 1) * sizeof *vt);
  double *at = malloc(((size_t)nr + 1) * sizeof *at);
  fcd_status st = ut && vt && at ? FCD_OK : FCD_E_NOMEM;
  for (fcd_index k = 0; k < nr && st == FCD_OK; k++) {
    ut[k] = 0.5 * (ctx->ua[k] + ctx->ub[k]);
    vt[k] = 0.5 * (ctx->va[k] + ctx->vb[k]);
    at[k] = (ctx->va[k] - ctx->vb[k]) / h;
  }
  if (st == FCD_OK) st = fcd_reduction_residual(red, 0.5 * (ctx->ta + ctx->tb), ut, vt, at, &rel);
  if (st == FCD_OK) printf("reduction indicator (last step): %.3e\n", rel);
  /* the second indicator: the share of the kinetic energy above the band, where the
   * reduced model's dynamics are not the full model's (a spurious growth there passes
   * the first, interior residual unseen) */
  double share = 0;
  if (st == FCD_OK) st = fcd_reduction_band_energy(red, ctx->va, &share);
  if (st == FCD_OK) {
    printf("band energy (last step): %.3e of the kinetic energy above the band\n", share);
    if (share > 0.05)
      fprintf(stderr, "fcd: warning: %.0f %% of the reduced run's kinetic energy is above its "
              "band, where it does not represent the full model (a growth the full model "
              "does not have?): keep the band's damping (--band-damping), or add modes\n",
              100 * share);
  }
  free(ut);
  free(vt);
  free(at);
  return st;
}

/* history.csv's columns: the ledger, the status counts, a u_DOF per --monitor dof */
static void sim_header(FILE *csv, const fcd_index *mon, fcd_index nmon) {
  fprintf(csv, "t,kinetic,potential,external_work,damping_dissipation,friction_dissipation,"
               "impact_dissipation,numerical_dissipation,open,stick,slip");
  for (fcd_index k = 0; k < nmon; k++) fprintf(csv, ",u_%lld", (long long)mon[k]);
  fputc('\n', csv);
}

/* after a committed history: the energy ledger, the worst step's certificate, the summary
 * line and, with a mesh and --vtk, the final state. 0 or 1. */
static int sim_report(fcd_system *sys, fcd_integrator *it, const fcd_contact_set *cs,
                      const fcd_mesh *mesh, const options *o, const sim_ctx *ctx,
                      const fcd_reduction *red, double *u, double *v) {
  fcd_index n = fcd_system_ndofs(sys);
  const fcd_certificate *worst = &ctx->worst;
  fcd_energy e;
  double t;
  fcd_integrator_get_energy(it, &e);
  fcd_integrator_get_state(it, &t, NULL, NULL);
  printf("energy: kinetic=%.9g potential=%.9g external_work=%.9g damping=%.9g friction=%.9g "
         "impact=%.9g numerical=%.9g\n", e.kinetic, e.potential, e.external_work,
         e.damping_dissipation, e.friction_dissipation, e.impact_dissipation,
         e.numerical_dissipation);
  /* every step passed its own; the figures are the worst over the steps */
  print_certificate("certificate (worst step)", worst);
  printf("simulated: dofs=%lld contacts=%lld t=%.9g history=%s\n", (long long)n,
         (long long)fcd_contact_set_size(cs), t, o->out);
  if (red) {
    fcd_status st = sim_reduced_summary(red, ctx);
    if (st != FCD_OK) return fail(sys, st, "the reduction's indicator");
  }
  if (mesh && o->vtk) {
    /* the final state: displacement, velocity, contact status */
    fcd_index nc = fcd_contact_set_size(cs);
    int *cst = calloc((size_t)nc + 1, sizeof *cst);
    if (!cst) return fail(sys, FCD_E_NOMEM, "writing VTK");
    if (red) {
      /* the last state expanded: the observer's newest copy of the reduced one */
      fcd_reduction_expand(red, ctx->ua, u);
      fcd_reduction_expand(red, ctx->va, v);
    } else {
      fcd_integrator_get_state(it, NULL, u, v);
    }
    fcd_integrator_get_contact_status(it, cst);
    const char *names[2] = {"displacement", "velocity"};
    const double *fields[2] = {u, v};
    int rc = vtk_write(sys, mesh, o->vtk, "final", 2, names, fields, cs, cst);
    free(cst);
    return rc;
  }
  return 0;
}

/* the damping, load, start, contacts, mesh and monitored dofs of the options (*usage set
 * on a usage error, reported) */
static fcd_status sim_read_inputs(const options *o, fcd_system *sys, double *u, double *v,
                                  double *f, fcd_contact_set **cs, fcd_mesh **mesh,
                                  fcd_index **mon, fcd_index *nmon, int *usage) {
  fcd_index n = fcd_system_ndofs(sys);
  fcd_status st = read_damping_load(o, sys, n, f, usage);
  if (*usage) return st;
  if (st == FCD_OK && o->u0) st = fcd_system_read_vector(sys, o->u0, n, u);
  if (st == FCD_OK && o->v0) st = fcd_system_read_vector(sys, o->v0, n, v);
  if (st == FCD_OK) st = fcd_contact_set_read_mesh(sys, o->contacts, o->mesh, cs, mesh);
  if (st == FCD_OK && o->mesh && !*mesh)
    st = fcd_mesh_read(sys, fcd_contact_set_dim(*cs), o->mesh, mesh);
  if (st == FCD_OK && *mesh && o->vtk_binary) st = fcd_mesh_set_vtk_format(*mesh, FCD_VTK_BINARY);
  if (st == FCD_OK) st = fcd_contact_set_set_restitution(*cs, o->restitution);
  if (st == FCD_OK && cli_parse_monitor(o->monitor, n, mon, nmon)) *usage = 1;
  return st;
}

/* the perturbation, the reduction and the integrator on the model they give; *what
 * names the stage for an error */
static fcd_status sim_setup(const options *o, fcd_system *sys, fcd_contact_set *cs,
                            fcd_scheme scheme, long pmode, double *u, double *v,
                            const fcd_index *mon, fcd_index nmon, fcd_reduction **red,
                            sim_ctx *ctx, fcd_integrator **it, const char **what, int *usage) {
  fcd_status st = FCD_OK;
  if (pmode >= 0) {
    *what = "the perturbation's stability analysis";
    st = perturb(sys, cs, o, pmode, u, v);
  }
  if (st == FCD_OK && o->reduce >= 0) {
    *what = "reducing the model";
    st = sim_reduce(sys, cs, o, u, v, mon, nmon, red, ctx, usage);
  }
  if (st == FCD_OK && !*usage) {
    *what = "setting up the integrator";
    st = *red ? sim_integrator(fcd_reduction_system(*red), fcd_reduction_contact_set(*red),
                               scheme, o, it)
              : sim_integrator(sys, cs, scheme, o, it);
  }
  return st;
}

/* the context's buffers, and the series (its frames count said) */
static void sim_ctx_free(sim_ctx *ctx, const char *dir) {
  if (ctx->series) {
    fcd_index nfr = 0;
    fcd_series_get_info(ctx->series, &nfr, NULL);
    printf("series: %s/series.pvd (%lld frames)\n", dir, (long long)nfr);
  }
  fcd_series_destroy(ctx->series);
  free(ctx->su);
  free(ctx->sv);
  free(ctx->sst);
  free(ctx->ua);
  free(ctx->va);
  free(ctx->ub);
  free(ctx->vb);
  free(ctx->monv);
}

/* the run and its outputs, the history open (csv, hist on rank 0); the exit status */
static int sim_advance(const options *o, fcd_system *sys, fcd_integrator *it,
                       const fcd_contact_set *cs, const fcd_mesh *mesh,
                       const fcd_reduction *red, sim_ctx *ctx, FILE *csv, out_file *hist,
                       const fcd_index *mon, fcd_index nmon, double *u, double *v) {
  sim_header(csv, mon, nmon);
  ctx->csv = csv;
  ctx->it = it;
  ctx->t0 = 0.0;
  ctx->t_end = o->t_end;
  ctx->tty = isatty(2) && o->t_end / o->dt > 2000;
  ctx->last_pct = -1;
  ctx->mon = mon;
  ctx->nmon = nmon;
  fcd_integrator_set_observer(it, sim_observer, ctx);
  fcd_status st = fcd_integrator_advance(it, o->t_end);
  /* the last frame is written in the background: its outcome is the run's too */
  if (st == FCD_OK && ctx->series && (st = fcd_series_flush(ctx->series)) != FCD_OK) {
    ctx->series_st = st;
    snprintf(ctx->series_err, sizeof ctx->series_err, "%s", fcd_system_last_error(ctx->ssys));
  }
  if (ctx->tty) fprintf(stderr, "\n");
  if (cli_rank > 0) { /* the same outcome as rank 0, which reports it */
    fclose(csv);
    return st != FCD_OK;
  }
  if (st != FCD_OK) {
    /* the previous history, if any, stays: a partial one would look complete */
    out_discard(hist);
    if (ctx->series_st != FCD_OK)
      fprintf(stderr, "fcd: writing the series: %s\n", ctx->series_err);
    int rc = fail(sys, st, "simulating");
    fprintf(stderr, "fcd: no history written; '%s' is unchanged\n", o->out);
    return rc;
  }
  if (out_commit(hist)) return 1;
  return sim_report(sys, it, cs, mesh, o, ctx, red, u, v);
}

int cmd_simulate(int argc, char **argv) {
  options o = {.theta = 0.5, .scheme = "moreau-jean", .amplitude = 1e-6, .reduce = -1,
               .cut = -1, .band_damping = -1};
  if (parse_options(argc, argv, &o, &cli_simulate)) return 2;
  long pmode;
  fcd_scheme scheme;
  int crc = sim_check_options(&o, &scheme, &pmode);
  if (crc) return crc;
  fcd_system *sys;
  int rc = cli_agree(load_system_opt(&o, 1, 1, &sys));
  if (rc) {
    fcd_system_destroy(sys);
    return rc;
  }
  fcd_index n = fcd_system_ndofs(sys);
  fcd_contact_set *cs = NULL;
  fcd_integrator *it = NULL;
  fcd_mesh *mesh = NULL;
  fcd_index *mon = NULL, nmon = 0;
  fcd_reduction *red = NULL;
  sim_ctx ctx;
  memset(&ctx, 0, sizeof ctx);
  double *u = calloc((size_t)n, sizeof *u), *v = calloc((size_t)n, sizeof *v);
  double *f = calloc((size_t)n, sizeof *f);
  fcd_status st = (u && v && f) ? FCD_OK : FCD_E_NOMEM;
  const char *what = "reading input";
  int usage = 0;
  if (st == FCD_OK) st = sim_read_inputs(&o, sys, u, v, f, &cs, &mesh, &mon, &nmon, &usage);
  if (usage) {
    rc = cli_agree(2);
    goto out;
  }
  if (st == FCD_OK)
    st = sim_setup(&o, sys, cs, scheme, pmode, u, v, mon, nmon, &red, &ctx, &it, &what, &usage);
  if (usage) {
    rc = 2;
    goto out;
  }
  if (st != FCD_OK) rc = fail(sys, st, what);
  out_file hist;
  /* rank 0 writes the history; the others compute the same rows */
  FILE *csv = rc ? NULL : cli_rank == 0 ? out_open(&hist, o.out) : fopen("/dev/null", "w");
  if (!rc && !csv) rc = 1;
  /* setting the state and stepping are collective: every rank goes on, or none */
  if ((rc = cli_agree(rc)) != 0) {
    if (csv) cli_rank == 0 ? out_discard(&hist) : (void)fclose(csv);
    goto out;
  }
  st = fcd_integrator_set_state(it, 0.0, u, v);
  if (st != FCD_OK) {
    rc = fail(sys, st, what);
    cli_rank == 0 ? out_discard(&hist) : (void)fclose(csv);
    goto out;
  }
  ctx.it = it;
  if ((rc = cli_agree(sim_series_start(&o, sys, cs, mesh, red, u, v, &ctx))) != 0) {
    cli_rank == 0 ? out_discard(&hist) : (void)fclose(csv);
    goto out;
  }
  rc = sim_advance(&o, sys, it, cs, mesh, red, &ctx, csv, &hist, mon, nmon, u, v);
out:
  sim_ctx_free(&ctx, o.series);
  free(mon);
  fcd_mesh_destroy(mesh);
  fcd_integrator_destroy(it);
  fcd_reduction_destroy(red);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
  free(u);
  free(v);
  free(f);
  return rc;
}


