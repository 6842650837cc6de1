/* fcd stability: eigenvalues of the friction-linearized pencil, friction sweeps. */
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

/* ---- fcd stability ---- */
typedef struct {
  FILE *csv;
  fcd_stability *st;
  int tty;
  long steps, done;
  /* per track: last mu, re and freq, for the critical coefficients */
  double *last_mu, *last_re, *last_f;
  double *first_f; /* each track's frequency where it first appears (the chart's legend) */
  long ntracks;
  int any_unstable;
  const fcd_reduction *red; /* --reduce: modes are expanded from it */
} stab_ctx;

static int stab_row(void *ud, double mu, fcd_index n, const double *re, const double *im,
                    const fcd_index *track) {
  stab_ctx *c = ud;
  static const char *const kinds[] = {"stable", "flutter", "divergence"};
  double band = INFINITY;
  fcd_stability_get_band(c->st, &band, NULL, NULL);
  for (fcd_index i = 0; i < n; i++) {
    double f, xi;
    int kind;
    fcd_stability_get_mode_info(c->st, i, &f, &xi, &kind);
    /* a reduced model's eigenvalues above its band are outside the model: in the chart,
     * labelled, and not what unstable= speaks of */
    int in_band = hypot(re[i], im[i]) <= 2 * PI * band;
    fprintf(c->csv, "%.10g,%lld,%lld,%.12g,%.12g,%.10g,%.10g,%s,%d\n", mu, (long long)i,
            (long long)track[i], re[i] + 0.0, im[i] + 0.0, f, xi + 0.0, kinds[kind], in_band);
    if (kind != FCD_MODE_STABLE && in_band) c->any_unstable = 1;
    if (im[i] < 0) continue; /* one member of each conjugate pair */
    long t = (long)track[i];
    if (t >= c->ntracks) {
      long nt = 2 * t + 16;
      double *a = realloc(c->last_mu, (size_t)nt * sizeof *a);
      if (a) c->last_mu = a;
      double *b = realloc(c->last_re, (size_t)nt * sizeof *b);
      if (b) c->last_re = b;
      double *e = realloc(c->last_f, (size_t)nt * sizeof *e);
      if (e) c->last_f = e;
      double *g = realloc(c->first_f, (size_t)nt * sizeof *g);
      if (g) c->first_f = g;
      if (!a || !b || !e || !g) return 1;
      for (long k = c->ntracks; k < nt; k++) c->last_mu[k] = c->first_f[k] = NAN;
      c->ntracks = nt;
    }
    /* a crossing of Re = 0 between the previous coefficient and this one */
    if (!isnan(c->last_mu[t]) && (c->last_re[t] <= 1e-9) != (re[i] <= 1e-9)) {
      /* the bracket, not an interpolation: past a coalescence Re grows like a square root */
      printf("critical: track=%ld mu_from=%.6g mu_to=%.6g freq_hz=%.6g %s%s\n", t,
             c->last_mu[t], mu, f, re[i] > 1e-9 ? "becomes unstable" : "becomes stable",
             in_band ? "" : " outside_band");
    }
    if (isnan(c->last_mu[t])) c->first_f[t] = f;
    c->last_mu[t] = mu;
    c->last_re[t] = re[i];
    c->last_f[t] = f;
  }
  c->done++;
  if (c->tty) fprintf(stderr, "\rfcd: mu %.4g (%ld/%ld)", mu, c->done, c->steps);
  return 0;
}


/* fcd stability's options, checked before any work: 0, or the exit status (2 usage,
 * 1 a requested output that cannot be made); the friction range into mu0, mu1, steps
 * (mu0 < 0: the contacts' own coefficients) */
static int stab_check_options(const options *o, double *mu0, double *mu1, long *steps) {
  if (!o->contacts || !o->out || (!o->state == !o->steady)) {
    fprintf(stderr, "fcd: stability needs --contacts, --out and one of --state FILE or "
                    "--steady-sliding\n");
    return 2;
  }
  if (o->damping && o->rayleigh) {
    fprintf(stderr, "fcd: --damping and --rayleigh exclude each other\n");
    return 2;
  }
  if (o->reduce >= 0 && cli_nranks > 1) {
    fprintf(stderr, "fcd: --reduce does not run on several MPI ranks (a reduced model is "
            "dense and small: run it on one)\n");
    return 2;
  }
  if ((o->inertia > 0 || o->interface || o->basis || o->prescribed_shape ||
       o->memory_limit > 0) && o->reduce < 0) {
    fprintf(stderr, "fcd: --%s goes with --reduce\n",
            o->inertia > 0 ? "inertia" : o->interface ? "interface" : o->basis ? "basis"
                               : o->prescribed_shape ? "prescribed-shape" : "memory-limit");
    return 2;
  }
  if (cli_interface_check(o)) return 2;
  if (o->mu_text && o->mu_sweep) {
    fprintf(stderr, "fcd: --mu and --mu-sweep exclude each other\n");
    return 2;
  }
  if (o->mu_text && (parse_real("--mu", o->mu_text, mu0) || *mu0 < 0)) {
    fprintf(stderr, "fcd: --mu needs a number >= 0\n");
    return 2;
  }
  if (o->mu_sweep) {
    char tail;
    if (sscanf(o->mu_sweep, "%lf:%lf:%ld%c", mu0, mu1, steps, &tail) != 3 || !(*mu0 >= 0) ||
        !(*mu1 >= 0) || *steps < 1 || !isfinite(*mu0) || !isfinite(*mu1)) {
      fprintf(stderr, "fcd: --mu-sweep needs a:b:n with a, b >= 0 and n >= 1, got '%s'\n",
              o->mu_sweep);
      return 2;
    }
  }
  if (!(o->target_hz >= 0)) {
    fprintf(stderr, "fcd: --target-hz must be >= 0\n");
    return 2;
  }
  if ((o->vtk || o->series) && (o->mu_text || o->mu_sweep)) {
    fprintf(stderr, "fcd: %s writes the modes of a single solve at the contacts' own "
                    "friction; with --mu or --mu-sweep it would write nothing\n",
            o->vtk ? "--vtk" : "--series");
    return 2;
  }
  if (o->series && !o->mesh) {
    fprintf(stderr, "fcd: --series DIR needs --mesh FILE (the modes' frames need the mesh's "
                    "node coordinates and cells)\n");
    return 2;
  }
  if (o->eigen_path && strcmp(o->eigen_path, "auto") != 0 &&
      cli_family_value(FCD_FAMILY_EIGEN_PATH, "--eigen-path", o->eigen_path) < 0)
    return 2;
  if (o->series_format &&
      cli_family_value(FCD_FAMILY_OUTPUT_FORMAT, "--series-format", o->series_format) < 0)
    return 2;
  if (o->plot && !plot_available()) {
    fprintf(stderr, "fcd: --plot needs gnuplot, which is not on PATH (drop --plot to write "
                    "the chart alone)\n");
    return 1;
  }
  return 0;
}

/* the number of eigenvalues the last solve holds */
static fcd_index nc_last(const fcd_stability *st) {
  fcd_index n = 0;
  while (fcd_stability_get_eigenvalue(st, n, NULL, NULL) == FCD_OK) n++;
  return n;
}

/* The lines after a stability run: notes of the sparse path, the certificate, the
 * window of the spectrum, infinite eigenvalues, and the summary. */
static void stab_print_summary(fcd_system *sys, const fcd_stability *st, const options *o,
                               fcd_index n, fcd_index nc, long steps, int any_unstable) {
  int fl, dv, nec;
  double ms;
  fcd_stability_get_summary(st, &fl, &dv, &nec, &ms);
  /* the dense path computes the whole spectrum: --nev clamped to it is no news */
  const char *note = fcd_system_last_error(sys);
  if (note && fcd_stability_reduced_size(st) > CLI_DENSE_MAX &&
      (strstr(note, "clamped") || strstr(note, "converged")))
    fprintf(stderr, "fcd: %s\n", note);
  /* an eigenpair's backward error is not an equilibrium residual: its own name, with the
   * norm it is relative to (|K*|, the reduced stiffness' infinity norm) */
  fcd_certificate cert;
  if (fcd_stability_get_certificate(st, &cert) == FCD_OK)
    printf("certificate: backward_error=%.3e tolerance=%.1e norm=%.3e\n", cert.worst,
           cert.tolerance, cert.force_scale);
  fcd_index ninf = 0, nred = fcd_stability_reduced_size(st);
  fcd_stability_get_infinite_count(st, &ninf);
  /* what part of the spectrum unstable=yes/no speaks for; infinite eigenvalues are
   * part of a whole spectrum, counted apart, and every finite one is in the chart */
  int path = FCD_EIGEN_DENSE;
  fcd_stability_get_path(st, &path);
  if (path == FCD_EIGEN_DENSE)
    printf("window: the whole spectrum of the %lld-dof reduced pencil (dense): %lld finite "
           "eigenvalues, every one in the chart, and %lld infinite\n", (long long)nred,
           (long long)nc_last(st), (long long)ninf);
  else
    printf("window: the %ld eigenvalue pairs (lambda and its conjugate) nearest %g Hz of "
           "the %lld-dof reduced pencil (sparse, %s, --nev %ld --target-hz %g); unstable= "
           "below speaks for this window only: the pencil's other eigenvalues were not "
           "computed\n", o->nev, o->target_hz, (long long)nred,
           fcd_registry_name(FCD_FAMILY_EIGEN_PATH, path), o->nev, o->target_hz);
  if (ninf > 0)
    printf("infinite: %lld eigenvalues are infinite: the reduced pencil has mass-less "
           "directions (M* v = 0: a dof without mass, or a sliding contact at a friction "
           "coefficient so large that its second root is beyond double precision); each "
           "gives two, one with stiffness-proportional Rayleigh damping (its other root is "
           "-1/beta)\n", (long long)ninf);
  double ere, eim, eband;
  fcd_index eused;
  if (nred > CLI_DENSE_MAX && steps == 1 &&
      fcd_stability_get_estimate(st, &ere, &eim, &eband, &eused) == FCD_OK) {
    /* the window's own largest real part, from the chart's eigenvalues */
    double wmax = -INFINITY, re;
    for (fcd_index i = 0; fcd_stability_get_eigenvalue(st, i, &re, NULL) == FCD_OK; i++)
      wmax = fmax(wmax, re);
    printf("estimate: beyond the window, the undamped pencil on the %lld lowest modes of "
           "the frictionless one (to %.6g Hz) has its largest real part %.6g at %.6g Hz: "
           "%s\n",
           (long long)eused, eband, ere, eim / (2 * PI),
           ere > fmax(wmax, 0.0) + 1e-9 ? "more unstable than the window (widen --nev or "
                                          "move --target-hz)"
           : ere > 1e-9 ? "unstable, not beyond the window's largest"
                        : "stable");
  }
  char msym[32];
  if (isnan(ms) || o->reduce >= 0) snprintf(msym, sizeof msym, "n/a");
  else snprintf(msym, sizeof msym, "%.6g", ms);
  /* seed 000's condition is a property of the full model's own dofs: a reduction's
   * coordinates change the trial and test spaces differently (the test vectors carry mu
   * times the normal row), and sym(K*) with them, even its sign */
  if (o->reduce >= 0)
    printf("necessary: the necessary divergence condition (sym(K*) not positive definite) "
           "is the full model's; a reduced model's coordinates change it, so it is not "
           "given here: run it on the full model\n");
  double band = INFINITY;
  fcd_index nout = 0, nuout = 0;
  fcd_stability_get_band(st, &band, &nout, &nuout);
  if (nout > 0)
    printf("band: %lld eigenvalues above the reduced model's band of %.6g Hz are outside the "
           "model (%lld of them with Re > 0): kept in the chart with in_band=0, not counted "
           "in unstable=\n", (long long)nout, band, (long long)nuout);
  printf("stability: dofs=%lld reduced=%lld contacts=%lld steps=%ld unstable=%s "
         "necessary_divergence=%s min_sym=%s band_hz=%.6g outside_band=%lld chart=%s\n",
         (long long)n, (long long)nred, (long long)nc, steps, any_unstable ? "yes" : "no",
         o->reduce >= 0 ? "n/a" : nec ? "yes" : "no", msym, band, (long long)nout, o->out);
}

/* --plot: the chart drawn by gnuplot (no path enters the script: the chart is linked as
 * chart.csv and the image written as plot.png in a work directory), with a title, axes
 * in Hz and 1/s, and one legend entry per tracked mode, named by its frequency where it
 * first appears (the sweep's first coefficient for every mode the model has there); at
 * most 12 modes are named, the others drawn unnamed. 0 or 1 */
static int stab_plot(const options *o, const stab_ctx *c, double mu0, double mu1) {
  enum { NAMED = 12 };
  /* the script's strings are this function's own words and numbers, never a quote */
  char *script = malloc(16384);
  if (!script) {
    fprintf(stderr, "fcd: --plot %s: out of memory\n", o->plot);
    return 1;
  }
  size_t len = 0, cap = 16384;
  char title[160];
  if (mu0 < 0)
    snprintf(title, sizeof title, "stability at the friction of the contact file");
  else if (mu0 == mu1)
    snprintf(title, sizeof title, "stability at mu = %g", mu0);
  else
    snprintf(title, sizeof title, "stability chart: mu from %g to %g", mu0, mu1);
  len += (size_t)snprintf(script + len, cap - len,
      "set terminal pngcairo size 1000,850\nset output 'plot.png'\nset datafile separator ','\n"
      "set multiplot layout 2,1 title '%s'\nset xlabel 'friction coefficient mu'\n"
      "set key outside right top title 'mode (Hz at first mu)'\n", title);
  for (int pass = 0; pass < 2; pass++) {
    len += (size_t)snprintf(script + len, cap - len, "%s",
        pass == 0 ? "set ylabel 'frequency |Im lambda| / 2 pi (Hz)'\nplot "
                  : "set ylabel 'growth rate Re lambda (1/s)'\nplot ");
    int named = 0;
    for (long t = 0; t < c->ntracks && len + 400 < cap; t++) {
      if (isnan(c->last_mu[t])) continue;
      const char *y = pass == 0 ? "$6" : "$4";
      char ttl[64];
      if (named < NAMED) snprintf(ttl, sizeof ttl, "title '%.4g Hz'", c->first_f[t]);
      else snprintf(ttl, sizeof ttl, "notitle");
      len += (size_t)snprintf(script + len, cap - len,
          "%s'chart.csv' every ::1 using 1:(($3 == %ld && $5 >= 0) ? %s : 1/0) with "
          "points pt 7 ps 0.6 lc %ld %s", named ? ", " : "", t, y, t % 8 + 1, ttl);
      named++;
    }
    if (named == 0)
      len += (size_t)snprintf(script + len, cap - len,
                              "'chart.csv' every ::1 using 1:%s with points notitle",
                              pass == 0 ? "6" : "4");
    if (pass == 1) len += (size_t)snprintf(script + len, cap - len, ", 0 with lines lc rgb 'black' notitle");
    len += (size_t)snprintf(script + len, cap - len, "\n");
  }
  snprintf(script + len, cap - len, "unset multiplot\n");
  const char *inputs[1] = {o->out}, *names[1] = {"chart.csv"};
  char err[512];
  int rc = plot_run(o->plot, script, 1, inputs, names, err, sizeof err);
  free(script);
  if (rc != 0) {
    fprintf(stderr, "fcd: --plot %s: %s\n", o->plot, err);
    return 1;
  }
  printf("plot: %s\n", o->plot);
  return 0;
}

static const cli_opt stability_opts[] = {
    CLI_OPT_MODEL(1),
    CLI_OPT_DAMPING,
    CLI_OPT_FIXED,
    CLI_OPT_LOAD,
    CLI_OPT_CONTACTS,
    {CLI_STATE, "state.csv", 0, "the contact state (from fcd equilibrium), or:"},
    {CLI_STEADY_SLIDING, "", 0, "compute the steady-sliding state first"},
    {CLI_MU, "X", 0, "friction coefficient of every contact"},
    {CLI_MU_SWEEP, "A:B:N", 0, "N values from A to B, modes tracked across them"},
    {CLI_NEV, "N", 0, "eigenpairs wanted of a large pencil (default 10: 20 eigenvalues)"},
    {CLI_TARGET_HZ, "F", 0, "the frequency they are nearest to (default 0)"},
    {CLI_UNDAMPED, "", 0, "leave damping out of the pencil"},
    {CLI_TOL, "X", 0, "eigen-solver tolerance (default 1e-10); the certificate's bound on the pairs' backward error is max(1e-8, 100 X)"},
    {CLI_OUT, "chart.csv", 1, "mu,mode,track,re,im,freq_hz,damping_ratio,kind,in_band"},
    {CLI_PLOT, "chart.png", 0, "the stability chart (gnuplot)"},
    {CLI_ESTIMATE_MODES, "N", 0, "beside a partial window, the modal basis of the global estimate (default 40, 0: none)"},
    {CLI_REDUCE, "MODES", 0, "analyse a reduced model: the contact dofs kept, MODES fixed-interface modes"},
    {CLI_INERTIA, "P", 0, "with --reduce: P inertia correction vectors added to the modes (docs/reduction.md)"},
    {CLI_INTERFACE, "physical|relative", 0, "with --reduce: a node-to-node pair kept as both nodes (default) or as one node's displacement relative to the other's, half the kept dofs (docs/reduction.md)"},
    {CLI_BASIS, "auto|stored|factored", 0, "with --reduce: the constraint modes stored (n x kept numbers) or applied through the interior's factor, for models whose stored modes outgrow the memory (default auto: whichever takes less memory)"},
    {CLI_PRESCRIBED_SHAPE, "", 0, "with --reduce: the dofs prescribed to nonzero values kept as one coordinate, the others following the first in proportion to their values (a pushed face: one kept dof where each of its dofs was one)"},
    {CLI_MEMORY_LIMIT, "GIB", 0, "with --reduce: the memory the process may hold at the reduction's peak, in GiB (default: the machine's); a reduction that cannot fit is refused at once, naming what it needs"},
    CLI_OPT_MESH,
    {CLI_VTK, "DIR", 0, "with --mesh: DIR/mode-K.vtk, the modes with the contact state"},
    {CLI_VTK_BINARY, "", 0, "with --vtk: the BINARY legacy form (exact values, 8 bytes each)"},
    {CLI_SERIES, "DIR", 0, "with --mesh: DIR/mode-K.pvd, each mode animated over its period for ParaView"},
    {CLI_SERIES_FORMAT, "@output-format", 0, "with --series: the files' format (default vtu; vtk: legacy frames and DIR/mode-K.vtk.series)"},
    {CLI_EIGEN_PATH, "auto|@eigen-path", 0, "the eigen-solver (default auto: dense up to 400 reduced dofs, else the sparse path the problem needs)"},
    CLI_OPT_END,
};
const cli_command cli_stability = {
    "stability", cmd_stability, "", stability_opts,
    "eigenvalues of the friction-linearized pencil about a contact state. Reduced\n"
    "pencils up to 400 dofs are solved whole, larger ones for the --nev pairs\n"
    "nearest --target-hz; the 'window:' line says which. A sweep prints 'critical:\n"
    "track=T mu_from=A mu_to=B freq_hz=F becomes unstable|stable' where a tracked mode\n"
    "crosses Re = 0. Then 'certificate: backward_error=E tolerance=T norm=N' (the\n"
    "eigenpairs' largest backward error, relative to |K*|), 'infinite:' when some are\n"
    "infinite (mass-less directions), and 'stability: ... unstable=yes|no necessary_divergence=yes|no\n"
    "min_sym=X|n/a chart=FILE': unstable, an eigenvalue with Re > 0 within the window;\n"
    "min_sym, the smallest eigenvalue of the symmetric part of K*; necessary_divergence,\n"
    "min_sym <= 0, which a divergence instability needs (docs/stability.md). --reduce\n"
    "MODES analyses a Craig-Bampton reduction of the model about the same contact state\n"
    "(docs/reduction.md), --inertia P with P inertia correction vectors besides the modes;\n"
    "its modes are expanded to the full dofs for --vtk\n",
    "chart.csv: mu,mode,track,re,im,freq_hz,damping_ratio,kind,in_band (0: above a reduced\n"
    "model's band, outside the model). --nev defaults to 10 pairs\n"
    "(20 eigenvalues) nearest --target-hz (default 0); unstable=yes|no on the last line\n"
    "speaks for that window only. --plot needs gnuplot (exit status 1 without it); --vtk\n"
    "writes the modes of a single solve (DIR/mode-K.vtk) and is refused with --mu or\n"
    "--mu-sweep; --series writes each of them animated over one period (24 frames of\n"
    "Re(phi e^(i theta)), DIR/mode-K.pvd, the eigenvalue, frequency and growth rate in\n"
    "every frame's field data), with the same restriction.\n",
    CLI_MPI_REPLICATED};

static fcd_status stab_modes_out(stab_ctx *ctx, const options *o, fcd_system *sys,
                                 fcd_contact_set *cs, const fcd_mesh *mesh, const int *status,
                                 fcd_index nconv, const double *re, const double *im, int *rc);

/* The contacts' own coefficients: one solve, its row of the chart, and its modes with
 * the contact state (DIR/mode-K.vtk, DIR/mode-K.pvd, rank 0). *rc receives a writer's
 * failure. */
static fcd_status stab_single(stab_ctx *ctx, const options *o, fcd_system *sys,
                              fcd_contact_set *cs, const fcd_mesh *mesh, const int *status,
                              int *rc) {
  fcd_stability *st = ctx->st;
  fcd_index nc = fcd_contact_set_size(cs), nconv;
  fcd_status s = fcd_stability_solve(st, &nconv);
  if (s != FCD_OK) return s;
  double *re = malloc((size_t)nconv * sizeof *re + 1), *im = malloc((size_t)nconv * sizeof *im + 1);
  fcd_index *tr = malloc((size_t)nconv * sizeof *tr + 1);
  if (!re || !im || !tr) s = FCD_E_NOMEM;
  for (fcd_index i = 0; s == FCD_OK && i < nconv; i++) {
    fcd_stability_get_eigenvalue(st, i, re + i, im + i);
    tr[i] = i;
  }
  /* the mu column: the contacts' coefficient (the first contact's when they differ,
   * which the summary line says) */
  double mu_c = 0;
  if (nc > 0) fcd_contact_set_get(cs, 0, NULL, NULL, &mu_c, NULL);
  if (s == FCD_OK) stab_row(ctx, mu_c, nconv, re, im, tr);
  free(tr);
  if (s == FCD_OK && mesh && (o->vtk || o->series))
    s = stab_modes_out(ctx, o, sys, cs, mesh, status, nconv, re, im, rc);
  free(re);
  free(im);
  return s;
}

/* the modes of the solve (at most 20) written for --vtk (DIR/mode-K.vtk) and --series
 * (DIR/mode-K.pvd), by rank 0; re, im the eigenvalues */
static fcd_status stab_modes_out(stab_ctx *ctx, const options *o, fcd_system *sys,
                                 fcd_contact_set *cs, const fcd_mesh *mesh, const int *status,
                                 fcd_index nconv, const double *re, const double *im,
                                 int *rc) {
  fcd_stability *st = ctx->st;
  fcd_index n = fcd_system_ndofs(sys);
  fcd_status s = FCD_OK;
  double *mr = malloc((size_t)n * sizeof *mr + 1), *mi = malloc((size_t)n * sizeof *mi + 1);
  const char *names[2] = {"mode_re", "mode_im"};
  const double *fields[2] = {mr, mi};
  if (!mr || !mi) s = FCD_E_NOMEM;
  fcd_index nr = 0, nm = 0;
  if (ctx->red) fcd_reduction_get_info(ctx->red, &nr, &nm, NULL, NULL);
  nr += nm;
  double *rr = ctx->red ? malloc((size_t)nr * sizeof *rr + 1) : NULL;
  double *ri = ctx->red ? malloc((size_t)nr * sizeof *ri + 1) : NULL;
  if (ctx->red && (!rr || !ri)) s = FCD_E_NOMEM;
  for (fcd_index i = 0; s == FCD_OK && *rc == 0 && i < nconv && i < 20; i++) {
    char name[32];
    snprintf(name, sizeof name, "mode-%lld", (long long)i);
    if (ctx->red) { /* the reduced mode, expanded to the full model's dofs */
      s = fcd_stability_get_mode(st, i, rr, ri);
      if (s == FCD_OK) s = fcd_reduction_expand(ctx->red, rr, mr);
      if (s == FCD_OK) s = fcd_reduction_expand(ctx->red, ri, mi);
    } else {
      s = fcd_stability_get_mode(st, i, mr, mi);
    }
    if (s == FCD_OK && cli_rank == 0 && o->vtk)
      *rc = vtk_write(sys, mesh, o->vtk, name, 2, names, fields, cs, status);
    if (s == FCD_OK && cli_rank == 0 && o->series && *rc == 0)
      *rc = series_mode_write(sys, mesh, o->series, name, o->series_format, mr, mi, re[i],
                              im[i]);
  }
  free(mr);
  free(mi);
  free(rr);
  free(ri);
  return s;
}

/* damping, load, contacts and mesh (s: the status so far): 0, or the exit status with
 * the reason printed */
static int stab_inputs(const options *o, fcd_system *sys, fcd_status s, double *f,
                       fcd_contact_set **cs, fcd_mesh **mesh) {
  int usage = 0;
  if (s == FCD_OK) s = read_damping_load(o, sys, fcd_system_ndofs(sys), f, &usage);
  if (usage) return 2;
  if (s == FCD_OK) s = fcd_contact_set_read_mesh(sys, o->contacts, o->mesh, cs, mesh);
  if (s == FCD_OK && o->mesh && !*mesh)
    s = fcd_mesh_read(sys, fcd_contact_set_dim(*cs), o->mesh, mesh);
  if (s == FCD_OK && *mesh && o->vtk_binary) s = fcd_mesh_set_vtk_format(*mesh, FCD_VTK_BINARY);
  return s == FCD_OK ? 0 : fail(sys, s, "reading input");
}

/* The contact state the pencil is linearized about: read from --state, or the steady
 * sliding equilibrium (kept in *eq). 0, or 1 with the reason printed. */
static int stab_contact_state(const options *o, fcd_system *sys, fcd_contact_set *cs,
                              int *status, double *slip, fcd_equilibrium **eq) {
  fcd_status s;
  if (o->state) {
    if ((s = fcd_contact_set_read_state(cs, o->state, status, slip)) != FCD_OK) {
      fprintf(stderr, "fcd: %s (%s)\n", fcd_system_last_error(sys), fcd_status_str(s));
      return 1;
    }
    return 0;
  }
  s = fcd_equilibrium_create(sys, cs, eq);
  if (s == FCD_OK) s = fcd_equilibrium_solve(*eq, FCD_EQ_STEADY_SLIDING, 0.0);
  if (s == FCD_OK) s = fcd_equilibrium_get_contact_state(*eq, status, slip);
  return s == FCD_OK ? 0 : fail(sys, s, "steady sliding");
}

/* --reduce: the reduction keeping cs's dofs, its system and contacts in *asys, *acs, and
 * its line: 0, or 1 with the reason */
static int stab_reduce(const options *o, fcd_system *sys, fcd_contact_set *cs,
                       fcd_reduction **red, fcd_system **asys, fcd_contact_set **acs) {
  fcd_status s = cli_reduction(sys, cs, o, 0, FCD_REDUCTION_CUT_DEFAULT,
                               FCD_REDUCTION_BAND_DAMPING_DEFAULT, red);
  if (s != FCD_OK) return fail(sys, s, "reducing the model");
  *asys = fcd_reduction_system(*red);
  *acs = fcd_reduction_contact_set(*red);
  fcd_index nk = 0, nm = 0;
  double fmax = 0;
  fcd_reduction_get_info(*red, &nk, &nm, &fmax, NULL);
  fcd_index ni = 0;
  double band = INFINITY;
  fcd_reduction_get_inertia(*red, &ni);
  fcd_reduction_get_band(*red, &band, NULL, NULL);
  printf("reduced: kept_dofs=%lld modes=%lld max_mode_hz=%.6g reduced_dofs=%lld inertia=%lld "
         "band_hz=%.6g\n", (long long)nk, (long long)nm, fmax, (long long)(nk + nm),
         (long long)ni, band);
  return 0;
}

/* the analysis with the options' parameters */
static fcd_status stab_create(const options *o, fcd_system *sys, fcd_contact_set *cs,
                              const int *status, const double *slip, fcd_stability **out) {
  fcd_stability *st;
  fcd_status s = fcd_stability_create(sys, cs, out);
  if (s != FCD_OK) return s;
  st = *out;
  s = fcd_stability_set_contact_state(st, status, slip);
  if (s == FCD_OK) s = fcd_stability_set_param(st, FCD_STAB_DENSE_MAX, CLI_DENSE_MAX);
  if (s == FCD_OK) s = fcd_stability_set_param(st, FCD_STAB_NEV, (double)o->nev);
  if (s == FCD_OK) s = fcd_stability_set_param(st, FCD_STAB_TARGET_HZ, o->target_hz);
  if (s == FCD_OK && o->undamped) s = fcd_stability_set_param(st, FCD_STAB_DAMPING, 0);
  if (s == FCD_OK && o->tol > 0) s = fcd_stability_set_param(st, FCD_STAB_TOLERANCE, o->tol);
  int path = FCD_EIGEN_AUTO;
  if (o->eigen_path && strcmp(o->eigen_path, "auto") != 0)
    fcd_registry_lookup(FCD_FAMILY_EIGEN_PATH, o->eigen_path, &path); /* checked before */
  if (s == FCD_OK) s = fcd_stability_set_param(st, FCD_STAB_EIGEN_PATH, path);
  /* a single solve on a partial window also estimates what lies beyond it */
  if (s == FCD_OK && !o->mu_sweep)
    s = fcd_stability_set_param(st, FCD_STAB_ESTIMATE_MODES,
                                o->estimate_modes >= 0 ? (double)o->estimate_modes : 40.0);
  /* under mpiexec the ranks hold the whole model and share the eigen-solves */
  if (s == FCD_OK && cli_nranks > 1) s = fcd_stability_set_communicator(st, cli_comm_f);
  return s;
}

int cmd_stability(int argc, char **argv) {
  options o = {.nev = 10, .estimate_modes = -1, .reduce = -1};
  if (parse_options(argc, argv, &o, &cli_stability)) return 2;
  int vrc = vtk_prepare(&o);
  if (vrc) return vrc;
  double mu0 = -1, mu1 = -1;
  long steps = 1;
  int orc = stab_check_options(&o, &mu0, &mu1, &steps);
  if (orc) return orc;
  fcd_system *sys;
  int rc = load_system(&o, &sys);
  /* Under mpiexec every rank takes part in one agreement before the collective solves,
   * also when it fails before them (at `out`), so that none waits for it. */
  int agreed = 0;
  if (rc) return cli_agree(rc);
  fcd_index n = fcd_system_ndofs(sys);
  fcd_contact_set *cs = NULL;
  fcd_stability *st = NULL;
  fcd_equilibrium *eq = NULL;
  fcd_reduction *red = NULL;
  fcd_mesh *mesh = NULL;
  int *status = NULL;
  double *slip = NULL, *f = calloc((size_t)n, sizeof *f);
  stab_ctx ctx = {0};
  fcd_status s = f ? FCD_OK : FCD_E_NOMEM;
  const char *what;
  if ((rc = stab_inputs(&o, sys, s, f, &cs, &mesh)) != 0) goto out;
  fcd_index nc = fcd_contact_set_size(cs);
  int d = fcd_contact_set_dim(cs);
  status = calloc((size_t)nc + 1, sizeof *status);
  slip = calloc((size_t)(nc * (d - 1)) + 1, sizeof *slip);
  if (!status || !slip) {
    rc = fail(sys, FCD_E_NOMEM, "stability");
    goto out;
  }
  if ((rc = stab_contact_state(&o, sys, cs, status, slip, &eq)) != 0) goto out;
  /* --reduce: the analysis on the reduced model, about the full model's contact state
   * (the same contacts in the same order) */
  fcd_system *asys = sys;
  fcd_contact_set *acs = cs;
  if (o.reduce >= 0 && (rc = stab_reduce(&o, sys, cs, &red, &asys, &acs)) != 0) goto out;
  ctx.red = red;
  what = "stability analysis";
  if ((s = stab_create(&o, asys, acs, status, slip, &st)) != FCD_OK) {
    rc = fail(asys, s, what);
    goto out;
  }
  out_file chart;
  /* rank 0 writes the chart; the others compute the same rows */
  ctx.csv = cli_rank == 0 ? out_open(&chart, o.out) : fopen("/dev/null", "w");
  /* the solves are collective: every rank enters them, or none */
  agreed = 1;
  if ((rc = cli_agree(!ctx.csv)) != 0) {
    if (ctx.csv) cli_rank == 0 ? out_discard(&chart) : (void)fclose(ctx.csv);
    goto out;
  }
  fprintf(ctx.csv, "mu,mode,track,re,im,freq_hz,damping_ratio,kind,in_band\n");
  ctx.st = st;
  ctx.steps = steps;
  ctx.tty = isatty(2) && steps > 1;
  if (mu0 < 0) {
    s = stab_single(&ctx, &o, sys, cs, mesh, status, &rc);
  } else {
    s = fcd_stability_sweep(st, mu0, o.mu_sweep ? mu1 : mu0, steps, stab_row, &ctx);
  }
  if (ctx.tty) fprintf(stderr, "\n");
  if (cli_rank > 0) { /* the same outcome as rank 0, which reports it */
    fclose(ctx.csv);
    rc = s != FCD_OK || rc != 0;
    goto out;
  }
  if (s != FCD_OK || rc != 0) {
    out_discard(&chart);
    if (s != FCD_OK) rc = fail(asys, s, what);
    fprintf(stderr, "fcd: no chart written; '%s' is unchanged\n", o.out);
    goto out;
  }
  if (out_commit(&chart)) {
    rc = 1;
    goto out;
  }
  stab_print_summary(asys, st, &o, n, nc, steps, ctx.any_unstable);
  if (o.plot && stab_plot(&o, &ctx, mu0, o.mu_sweep ? mu1 : mu0)) rc = 1;
out:
  if (!agreed) rc = cli_agree(rc);
  fcd_mesh_destroy(mesh);
  fcd_stability_destroy(st);
  fcd_reduction_destroy(red);
  fcd_equilibrium_destroy(eq);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
  free(status);
  free(slip);
  free(f);
  free(ctx.last_mu);
  free(ctx.last_re);
  free(ctx.last_f);
  free(ctx.first_f);
  return rc;
}


