/* Side by side, same run, same machine: fcd's contact solvers against Siconos 4.4's
 * (Debian libsiconos-numerics-dev) on the shared fclib HDF5 problems and on the
 * Siconos text problems. Every solver runs in a forked child with a time cap from a
 * zero initial guess; the time is the solve alone (problem loading excluded); both
 * sides are judged with the same residual (fcd_fc_problem_residual, equal to Siconos'
 * fc3d_compute_error, see tests/contact/test_fclib_data.c).
 *
 * usage: contact_vs_siconos [--quick] [--verbose] [--only NAME] [--tol X] [--cap SECONDS]
 *                           [--fcd LIST] [--peer LIST] DATA_DIR [CSV]
 * --fcd and --peer restrict the solvers run (comma-separated names, "none" for none):
 * for studying one solver; the figures of a restricted run are not the benchmark's.
 * The peer is every fc3d (fc2d) solver of Debian's Siconos build except the GAMS ones
 * (not built) at its defaults, with one setting changed for all, stated in the report:
 * the iteration cap raised to 100,000 (1,000,000 for NSGS, 10,000 for NSN-AC as
 * before), so the time cap, not an iteration count, ends a slow run. Per problem the
 * peer's time is its fastest solver that reaches the tolerance on fcd's residual.
 * fcd's figure is `auto`, the solver a user gets; fcd's other solvers are information.
 * --quick: problems of at most 1,000 contacts, each solve repeated within 0.05 s instead
 * of 0.2, a 10 s cap for fcd's auto (the figure) and 2 s for every other run, and every
 * run but fcd's auto stopped once its first solve has taken twice its side's best so far
 * plus 50 ms ("bounded"): such a solver cannot be that side's best, so the figures stand,
 * but its own time is not measured (the per-solver profile is full mode's). The 2 s cap
 * is what makes the part quick: on a problem no solver of a side solves (RockPile_tob1,
 * 463 contacts, none of Siconos' 21) nothing bounds the runs, which took 21 x 10 s; no
 * side's best on the set takes more than 0.25 s in quick mode.
 *
 * Prints one row per problem and, last, `ratio contact_vs_siconos X`: the geometric
 * mean over the problems both solve of fcd auto's time over the peer's best,
 * `ratio contact_small_vs_siconos X`: the same over those of at most 10 contacts (with
 * how many of them fcd auto solves within 1.0x and the worst), and
 * `ratio contact_best_vs_siconos X` with fcd's best solver per problem (chosen after the
 * fact: information, not the figure). */
#define _GNU_SOURCE
#include <fcd/fcd.h>

#include "args.h"

#include <cs.h>
#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <FrictionContactProblem.h>
#include <Friction_cst.h>
#include <NonSmoothDrivers.h>
#include <NumericsMatrix.h>
#include <SolverOptions.h>
#include <SparseBlockMatrix.h>
#include <fc3d_Solvers.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct {
  int ok;        /* converged to tol (judged by fcd's residual) */
  int status;    /* 0 returned, 1 timeout, 2 crashed */
  double secs;   /* solve time */
  double res;    /* fcd residual of the returned reactions */
  long iters;
} outcome;

typedef struct {
  const char *name;
  int dim, nc, m;
  fcd_fc_problem *fcd;             /* fcd's view (fcd convention) */
  FrictionContactProblem *sic;     /* Siconos' view (fclib convention) */
} problem;

/* runs fn in a child with a time cap; the child reports through a pipe */
typedef void (*runner)(const problem *, int arg, double tol, outcome *);

/* the child's timer, in seconds: its first solve may take `first` (a bound below the cap,
 * --quick), the whole run `cap` */
static double timer_first, timer_cap;
/* --quick: the cap of every run but fcd's auto */
#define QUICK_OTHER_CAP 2.0
static double window = 0.2; /* the repetitions' window: each solve repeated within it */

static void set_timer(double secs) {
  struct itimerval t = {{0, 0}, {(time_t)secs, (suseconds_t)(1e6 * (secs - floor(secs)))}};
  if (t.it_value.tv_sec == 0 && t.it_value.tv_usec == 0) t.it_value.tv_usec = 1;
  setitimer(ITIMER_REAL, &t, NULL);
}

/* after a run's first solve: the rest of its cap */
static void first_done(double spent) { set_timer(fmax(timer_cap - spent, 1e-3)); }

/* bound: the first solve's limit (--quick: a solver slower than twice its side's best so
 * far cannot be that side's best); INFINITY for none. A run stopped by it has status 3. */
static outcome run_capped(runner fn, const problem *p, int arg, double tol, double cap,
                          double bound) {
  outcome o = {0, 2, cap, INFINITY, 0};
  int fd[2];
  if (pipe(fd) != 0) return o;
  /* every stream: a child that ends in exit() (Siconos' numerics_error does) would
   * write the parent's buffered lines again, the CSV header included */
  fflush(NULL);
  pid_t pid = fork();
  timer_cap = cap;
  timer_first = fmin(cap, bound);
  if (pid == 0) {
    close(fd[0]);
    set_timer(timer_first);
    outcome r = {0, 0, 0, INFINITY, 0};
    fn(p, arg, tol, &r);
    if (write(fd[1], &r, sizeof r) != (ssize_t)sizeof r) _exit(3);
    _exit(0);
  }
  close(fd[1]);
  outcome r;
  ssize_t got = read(fd[0], &r, sizeof r);
  close(fd[0]);
  int wst = 0;
  waitpid(pid, &wst, 0);
  if (got == (ssize_t)sizeof r) return r;
  o.status = (WIFSIGNALED(wst) && WTERMSIG(wst) == SIGALRM) ? (bound < cap ? 3 : 1) : 2;
  if (o.status == 3) o.secs = bound; /* at least: its first solve did not end by then */
  return o;
}

/* Each solve is repeated from zero until 0.2 s have passed or BENCH_REPS solves, and
 * the fastest kept. 10 repetitions left the microsecond problems (a few contacts) at
 * the mercy of the first solves' cold caches: their ratios moved by up to 1.4x between
 * two runs of the same build. */
enum { BENCH_REPS = 1000 };

static void run_fcd(const problem *p, int solver, double tol, outcome *o) {
  fcd_fc_problem_set_param(p->fcd, FCD_FC_PARAM_SOLVER, solver);
  fcd_fc_problem_set_param(p->fcd, FCD_FC_PARAM_TOLERANCE, tol);
  fcd_fc_problem_set_param(p->fcd, FCD_FC_PARAM_MAX_ITER, 1e7);
  double *r = calloc((size_t)p->m, sizeof *r);
  fcd_index nnz;
  fcd_fc_problem_local_nnz(p->fcd, &nnz); /* Delassus assembly is loading, not solving */
  /* short solves are repeated (from zero each time) and the fastest kept, on both
   * sides alike (BENCH_REPS), so that short problems are not decided by timer noise */
  fcd_status st = FCD_OK;
  double total = 0;
  o->secs = INFINITY;
  for (int rep = 0; rep < BENCH_REPS && total < window; rep++) {
    memset(r, 0, (size_t)p->m * sizeof *r);
    double t0 = now();
    st = fcd_fc_problem_solve(p->fcd, r, NULL, NULL);
    double dt = now() - t0;
    if (rep == 0) first_done(dt);
    total += dt;
    if (dt < o->secs) o->secs = dt;
  }
  if (st == FCD_E_NOT_CONVERGED) fcd_fc_problem_get_iterate(p->fcd, r);
  if (st != FCD_OK && getenv("FCD_BENCH_TRAIL"))
    fprintf(stderr, "    fcd: %s\n", fcd_fc_problem_last_error(p->fcd));
  fcd_index it = 0;
  fcd_fc_problem_get_result(p->fcd, &it, NULL, NULL);
  o->iters = (long)it;
  fcd_fc_problem_residual(p->fcd, r, &o->res);
  /* what a user gets: a solve that fails its own certificate is a failure, whatever
   * the residual says */
  o->ok = st == FCD_OK && o->res <= tol;
  free(r);
}

static void run_siconos(const problem *p, int solver, double tol, outcome *o) {
  SolverOptions *opt = solver_options_create(solver);
  opt->dparam[SICONOS_DPARAM_TOL] = tol;
  opt->iparam[SICONOS_IPARAM_MAX_ITER] = solver == SICONOS_FRICTION_3D_NSN_AC ? 10000
                                         : solver == SICONOS_FRICTION_3D_NSGS ||
                                                 solver == SICONOS_FRICTION_2D_NSGS
                                             ? 1000000
                                             : 100000;
  double *r = calloc((size_t)p->m, sizeof *r), *u = calloc((size_t)p->m, sizeof *u);
  double total = 0;
  o->secs = INFINITY;
  for (int rep = 0; rep < BENCH_REPS && total < window; rep++) {
    memset(r, 0, (size_t)p->m * sizeof *r);
    memset(u, 0, (size_t)p->m * sizeof *u);
    double t0 = now();
    if (p->dim == 3) fc3d_driver(p->sic, r, u, opt);
    else fc2d_driver(p->sic, r, u, opt);
    double dt = now() - t0;
    if (rep == 0) first_done(dt);
    total += dt;
    if (dt < o->secs) o->secs = dt;
  }
  o->iters = opt->iparam[SICONOS_IPARAM_ITER_DONE];
  for (int i = 0; i < p->m; i++) r[i] = -r[i]; /* to fcd's convention */
  fcd_fc_problem_residual(p->fcd, r, &o->res);
  o->ok = o->res <= tol;
  solver_options_delete(opt);
  free(r);
  free(u);
}

/* Siconos problem (fclib convention, sparse-block W) from fcd's local form */
static FrictionContactProblem *siconos_from_fcd(fcd_fc_problem *f) {
  int dim = fcd_fc_problem_dim(f), nc = (int)fcd_fc_problem_size(f), m = dim * nc;
  fcd_index nnz;
  if (fcd_fc_problem_local_nnz(f, &nnz) != FCD_OK) return NULL;
  fcd_index *rp = malloc((m + 1) * sizeof *rp), *ci = malloc((nnz + 1) * sizeof *ci);
  double *v = malloc((nnz + 1) * sizeof *v), *q = malloc(m * sizeof *q), *mu = malloc(nc * sizeof *mu);
  fcd_fc_problem_get_local(f, rp, ci, v, q, mu);
  NumericsMatrix *T = NM_create(NM_SPARSE, m, m);
  NM_triplet_alloc(T, nnz);
  for (int i = 0; i < m; i++)
    for (fcd_index k = rp[i]; k < rp[i + 1]; k++) NM_entry(T, i, (int)ci[k], v[k]);
  SparseBlockStructuredMatrix *sbm = SBM_new();
  SBM_from_csparse(dim, NM_csc(T), sbm);
  NumericsMatrix *W = NM_new_SBM(m, m, sbm);
  for (int i = 0; i < m; i++) q[i] = -q[i]; /* fclib/Siconos convention */
  FrictionContactProblem *s = frictionContactProblem_new_with_data(dim, nc, W, q, mu);
  NM_free(T); /* frees T itself */
  free(rp);
  free(ci);
  free(v);
  return s;
}

/* fcd problem (fcd convention) from a Siconos problem read from its text format */
static fcd_fc_problem *fcd_from_siconos(FrictionContactProblem *s) {
  int dim = s->dimension, nc = s->numberOfContacts, m = dim * nc;
  CSparseMatrix *t = NM_triplet(s->M);
  cs_dl *c = (cs_dl *)t;
  fcd_index nz = c->nz;
  /* triplets (duplicates summed) into CSR through counting sorts */
  fcd_index *cnt = calloc(m + 1, sizeof *cnt), *rp = calloc(m + 1, sizeof *rp);
  fcd_index *ord = malloc((nz + 1) * sizeof *ord), *ccnt = calloc(m + 1, sizeof *ccnt);
  fcd_index *tmp = malloc((nz + 1) * sizeof *tmp);
  for (fcd_index k = 0; k < nz; k++) ccnt[c->p[k] + 1]++;
  for (int j = 0; j < m; j++) ccnt[j + 1] += ccnt[j];
  for (fcd_index k = 0; k < nz; k++) tmp[ccnt[c->p[k]]++] = k;
  for (fcd_index k = 0; k < nz; k++) cnt[c->i[k] + 1]++;
  for (int i = 0; i < m; i++) cnt[i + 1] += cnt[i];
  for (fcd_index k = 0; k < nz; k++) ord[cnt[c->i[tmp[k]]]++] = tmp[k];
  fcd_index *ci = malloc((nz + 1) * sizeof *ci);
  double *v = malloc((nz + 1) * sizeof *v), *q = malloc(m * sizeof *q);
  fcd_index out = 0, start = 0;
  for (int i = 0; i < m; i++) {
    fcd_index end = cnt[i], row0 = out;
    for (fcd_index k = start; k < end; k++) {
      fcd_index e = ord[k];
      if (out > row0 && ci[out - 1] == c->p[e]) v[out - 1] += c->x[e];
      else {
        ci[out] = c->p[e];
        v[out++] = c->x[e];
      }
    }
    rp[i + 1] = out;
    start = end;
  }
  for (int i = 0; i < m; i++) q[i] = -s->q[i];
  fcd_fc_problem *f = NULL;
  char msg[512];
  if (fcd_fc_problem_create_local(dim, nc, rp, ci, v, q, s->mu, &f, msg, sizeof msg) != FCD_OK)
    fprintf(stderr, "conversion failed: %s\n", msg);
  free(cnt);
  free(rp);
  free(ord);
  free(ccnt);
  free(tmp);
  free(ci);
  free(v);
  free(q);
  return f;
}

static int ends_with(const char *s, const char *suf) {
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && strcmp(s + a - b, suf) == 0;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the peer: Siconos' solvers, the GAMS ones left out (not in Debian's build) */
typedef struct {
  int id;
  const char *name;
} peer;
static const peer peers3[] = {
    {SICONOS_FRICTION_3D_NSGS, "nsgs"},     {SICONOS_FRICTION_3D_NSGSV, "nsgsv"},
    {SICONOS_FRICTION_3D_PROX, "prox"},     {SICONOS_FRICTION_3D_TFP, "tfp"},
    {SICONOS_FRICTION_3D_NSN_AC, "nsn-ac"}, {SICONOS_FRICTION_3D_DSFP, "dsfp"},
    {SICONOS_FRICTION_3D_VI_FPP, "vi-fpp"}, {SICONOS_FRICTION_3D_VI_EG, "vi-eg"},
    {SICONOS_FRICTION_3D_HP, "hp"},         {SICONOS_FRICTION_3D_FPP, "fpp"},
    {SICONOS_FRICTION_3D_EG, "eg"},         {SICONOS_FRICTION_3D_NSN_FB, "nsn-fb"},
    {SICONOS_FRICTION_3D_ACLMFP, "aclmfp"}, {SICONOS_FRICTION_3D_SOCLCP, "soclcp"},
    {SICONOS_FRICTION_3D_NSN_NM, "nsn-nm"}, {SICONOS_FRICTION_3D_PFP, "pfp"},
    {SICONOS_FRICTION_3D_ADMM, "admm"}};
static const peer peers2[] = {{SICONOS_FRICTION_2D_NSGS, "nsgs"},
                              {SICONOS_FRICTION_2D_CPG, "cpg"},
                              {SICONOS_FRICTION_2D_LEMKE, "lemke"},
                              {SICONOS_FRICTION_2D_ENUM, "enum"}};

/* whether name is in the comma-separated list (every name when there is no list) */
static int selected(const char *list, const char *name) {
  if (!list) return 1;
  size_t n = strlen(name);
  for (const char *s = list; *s;) {
    const char *e = strchr(s, ',');
    size_t len = e ? (size_t)(e - s) : strlen(s);
    if (len == n && !strncmp(s, name, n)) return 1;
    if (!e) break;
    s = e + 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  int quick = 0, verbose = 0;
  const char *only = NULL;
  double tol = 1e-8, cap = 60;
  const char *dir = NULL, *csv_path = NULL, *fsel = NULL, *psel = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--quick")) quick = 1;
    else if (!strcmp(argv[i], "--verbose")) verbose = 1;
    else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
    else if (!strcmp(argv[i], "--tol") && i + 1 < argc) tol = bench_real(argv[0], "--tol", argv[++i], 1e-300, 1);
    else if (!strcmp(argv[i], "--cap") && i + 1 < argc) cap = bench_real(argv[0], "--cap", argv[++i], 0, 1e9);
    else if (!strcmp(argv[i], "--fcd") && i + 1 < argc) fsel = argv[++i];
    else if (!strcmp(argv[i], "--peer") && i + 1 < argc) psel = argv[++i];
    else if (!dir) dir = argv[i];
    else csv_path = argv[i];
  }
  if (!dir) {
    fprintf(stderr, "usage: contact_vs_siconos [--quick] [--tol X] [--cap S] DATA_DIR [CSV]\n");
    return 2;
  }
  if (quick && cap > 10) cap = 10;
  double cap_other = quick && cap > QUICK_OTHER_CAP ? QUICK_OTHER_CAP : cap;
  if (quick) window = 0.05;
  /* files: the .hdf5 files of DATA_DIR and the .dat files of DATA_DIR/siconos-dat */
  char *files[128];
  int nf = 0;
  const char *subs[2] = {"", "/siconos-dat"};
  for (int s = 0; s < 2; s++) {
    char d[1024];
    snprintf(d, sizeof d, "%s%s", dir, subs[s]);
    DIR *dd = opendir(d);
    if (!dd) continue;
    struct dirent *e;
    while ((e = readdir(dd)) && nf < 128)
      if (ends_with(e->d_name, s ? ".dat" : ".hdf5")) {
        char *pth;
        if (asprintf(&pth, "%s/%s", d, e->d_name) > 0) files[nf++] = pth;
      }
    closedir(dd);
  }
  qsort(files, nf, sizeof *files, cmp_str);
  FILE *csv = csv_path ? fopen(csv_path, "w") : NULL;
  /* every solver's outcome on every problem, for the performance profile */
  FILE *per = NULL;
  if (csv_path) {
    char ppath[4096];
    snprintf(ppath, sizeof ppath, "%s.solvers", csv_path);
    per = fopen(ppath, "w");
    if (per) fprintf(per, "problem,side,solver,ok,seconds\n");
  }
  if (csv)
    fprintf(csv, "problem,dim,contacts,fcd_best,fcd_seconds,fcd_residual,fcd_auto_seconds,"
                 "fcd_auto_ok,siconos_best,siconos_seconds,siconos_residual,ratio\n");
  if (quick)
    printf("tolerance %g, time cap %g s for fcd auto, %g s for every other run (quick)\n", tol,
           cap, cap_other);
  else
    printf("tolerance %g, time cap %g s per solver run\n", tol, cap);
  printf("%-44s %3s %5s | %10s %9s | %-12s %10s | %-8s %10s %9s | %7s\n", "problem", "dim",
         "nc", "fcd auto", "residual", "fcd best", "seconds", "peer", "seconds", "residual",
         "ratio");
  double logsum = 0;
  int nboth = 0, fcd_only = 0, sic_only = 0, neither = 0, fcd_wins = 0;
  int nslow = 0, slow_wins = 0, auto_fails = 0, nbest = 0;
  double logsum_best = 0;
  /* the problems of at most SMALL_NC contacts (issue 89's smallest problems): what costs
   * there is what surrounds the iterations */
  enum { SMALL_NC = 10 };
  double logsum_small = 0, worst_small = 0;
  int nsmall = 0, small_wins = 0;
  char worst_name[256] = "none";
  static const char *fnames[6] = {"auto", "fixed-point", "nsgs", "newton", "admm", "prox"};
  for (int k = 0; k < nf; k++) {
    problem P = {0};
    const char *base = strrchr(files[k], '/') + 1;
    P.name = base;
    char msg[1024];
    int is_dat = ends_with(files[k], ".dat");
    if (only && !strstr(base, only)) {
      free(files[k]);
      continue;
    }
    if (!is_dat) {
      if (fcd_fc_problem_read_fclib(files[k], &P.fcd, msg, sizeof msg) != FCD_OK) {
        printf("%-44s skipped: %s\n", base, msg);
        continue;
      }
      P.sic = siconos_from_fcd(P.fcd);
    } else {
      P.sic = frictionContact_new_from_filename(files[k]);
      if (!P.sic) {
        printf("%-44s skipped: Siconos cannot read it\n", base);
        continue;
      }
      P.fcd = fcd_from_siconos(P.sic);
      if (!P.fcd) continue;
    }
    P.dim = fcd_fc_problem_dim(P.fcd);
    P.nc = (int)fcd_fc_problem_size(P.fcd);
    P.m = P.dim * P.nc;
    if (quick && P.nc > 1000) {
      printf("%-44s %3d %5d | skipped in --quick (more than 1000 contacts)\n", base, P.dim, P.nc);
      goto next;
    }
    {
      outcome best_f = {0, 0, INFINITY, INFINITY, 0}, best_s = {0, 0, INFINITY, INFINITY, 0};
      int bf = -1, bs = -1;
      outcome autoo = {0};
      for (int s = 0; s < 6; s++) {
        if (!selected(fsel, fnames[s])) continue;
        /* auto is the figure: never bounded */
        double bound = quick && s > 0 && bf >= 0 ? 2 * best_f.secs + 0.05 : INFINITY;
        outcome o = run_capped(run_fcd, &P, s, tol, s == 0 ? cap : cap_other, bound);
        if (verbose)
          printf("    fcd %-12s %s %10.3e s %6ld it residual %.2e\n", fnames[s],
                 o.status == 1 ? "timeout" : o.status == 3 ? "bounded" : o.ok ? "ok     " : "FAILED ",
                 o.secs, o.iters, o.res);
        if (s == 0) autoo = o;
        if (per) fprintf(per, "%s,fcd,%s,%d,%.6g\n", base, fnames[s], o.ok, o.secs);
        if (o.ok && o.secs < best_f.secs) {
          best_f = o;
          bf = s;
        }
      }
      const peer *list = P.dim == 3 ? peers3 : peers2;
      int npeer = P.dim == 3 ? (int)(sizeof peers3 / sizeof *peers3)
                             : (int)(sizeof peers2 / sizeof *peers2);
      for (int s = 0; s < npeer; s++) {
        if (!selected(psel, list[s].name)) continue;
        double bound = quick && bs >= 0 ? 2 * best_s.secs + 0.05 : INFINITY;
        outcome o = run_capped(run_siconos, &P, list[s].id, tol, cap_other, bound);
        if (verbose)
          printf("    siconos %-8s %s %10.3e s %6ld it residual %.2e\n", list[s].name,
                 o.status == 1 ? "timeout" : o.status == 3 ? "bounded" : o.status == 2 ? "crashed"
                 : o.ok ? "ok     " : "FAILED ",
                 o.secs, o.iters, o.res);
        if (per) fprintf(per, "%s,siconos,%s,%d,%.6g\n", base, list[s].name, o.ok, o.secs);
        if (o.ok && o.secs < best_s.secs) {
          best_s = o;
          bs = s;
        }
      }
      const char *sname = bs >= 0 ? list[bs].name : "none";
      /* the figure: auto against the peer's best; fcd's best is information */
      double ratio = (autoo.ok && bs >= 0) ? autoo.secs / best_s.secs : NAN;
      double ratio_best = (bf >= 0 && bs >= 0) ? best_f.secs / best_s.secs : NAN;
      printf("%-44s %3d %5d | %10.4f %9.2e | %-12s %10.4f | %-8s %10.4f %9.2e | %7.3f\n", base,
             P.dim, P.nc, autoo.ok ? autoo.secs : NAN, autoo.res,
             bf >= 0 ? fnames[bf] : "none", best_f.secs, sname, best_s.secs, best_s.res, ratio);
      if (csv)
        fprintf(csv, "%s,%d,%d,%s,%.6g,%.3e,%.6g,%d,%s,%.6g,%.3e,%.6g\n", base, P.dim, P.nc,
                bf >= 0 ? fnames[bf] : "none", best_f.secs, best_f.res, autoo.secs, autoo.ok,
                sname, best_s.secs, best_s.res, ratio);
      if (autoo.ok && bs >= 0) {
        logsum += log(ratio);
        nboth++;
        if (ratio <= 1.0) fcd_wins++;
        if (best_s.secs >= 1e-3) {
          nslow++;
          if (ratio <= 1.0) slow_wins++;
        }
        if (P.nc <= SMALL_NC) {
          logsum_small += log(ratio);
          nsmall++;
          if (ratio <= 1.0) small_wins++;
          if (ratio > worst_small) {
            worst_small = ratio;
            snprintf(worst_name, sizeof worst_name, "%s", base);
          }
        }
      } else if (autoo.ok) fcd_only++;
      else if (bs >= 0) sic_only++;
      else neither++;
      if (!autoo.ok) auto_fails++;
      if (bf >= 0 && bs >= 0) {
        logsum_best += log(ratio_best);
        nbest++;
      }
    }
  next:
    fcd_fc_problem_destroy(P.fcd);
    if (P.sic) frictionContactProblem_free(P.sic);
    free(files[k]);
  }
  if (csv) fclose(csv);
  if (per) fclose(per);
  printf("solved by both: %d (fcd auto at most 1.0x the peer's best on %d; on the %d where the "
         "peer's best takes >= 1 ms: %d), only fcd auto: %d, only Siconos: %d, neither: %d; "
         "auto failed on %d\n", nboth, fcd_wins, nslow, slow_wins, fcd_only, sic_only, neither,
         auto_fails);
  printf("solved by both, at most %d contacts: %d (fcd auto at most 1.0x the peer's best on "
         "%d; the worst %.3f, %s)\n", SMALL_NC, nsmall, small_wins, worst_small, worst_name);
  printf("ratio contact_vs_siconos %.4f\n", nboth ? exp(logsum / nboth) : NAN);
  printf("ratio contact_small_vs_siconos %.4f\n", nsmall ? exp(logsum_small / nsmall) : NAN);
  printf("ratio contact_best_vs_siconos %.4f\n", nbest ? exp(logsum_best / nbest) : NAN);
  fcd_finalize();
  return 0;
}
