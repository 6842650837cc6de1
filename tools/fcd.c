/* The `fcd` command-line program: a thin user of the public API. */
#include <fcd/fcd.h>

#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "beam_model.h"
#include "demo.h"
#include "outfile.h"

static const double PI = 3.14159265358979323846;
/* fcd stability: reduced pencils up to this size are solved whole (LAPACK), larger
 * ones for the --nev pairs nearest --target-hz (SLEPc) */
enum { CLI_DENSE_MAX = 400 };

static void usage(FILE *to) {
  fprintf(to,
          "usage: fcd <command> [options]\n"
          "\n"
          "commands:\n"
          "  info --mass M.mtx --stiffness K.mtx [--fixed FILE] [--nev N]\n"
          "        sizes, nonzeros, symmetry, whether M is SPD on the free dofs, and the\n"
          "        lowest natural frequencies (Hz) of K phi = omega^2 M phi\n"
          "  solve FILE.hdf5 [--solver auto|fixed-point|nsgs|newton] [--tol X]\n"
          "        [--max-iter N] [--write OUT.hdf5]\n"
          "        solves an fclib frictional contact problem (local or global); the last\n"
          "        line is 'solved: contacts=N iterations=K residual=R seconds=T'\n"
          "  simulate --mass M.mtx --stiffness K.mtx [--damping C.mtx | --rayleigh a,b]\n"
          "        [--fixed FILE] [--load f.txt] --contacts FILE\n"
          "        --scheme moreau-jean|modified-theta|fremond\n"
          "        --dt H --t-end T [--theta X] [--restitution E] [--u0 FILE --v0 FILE]\n"
          "        [--max-iter N] (the contact solver's iterations per step)\n"
          "        --out history.csv [--mesh mesh.vtk --vtk DIR]: DIR/final.vtk, the last\n"
          "        displacement, velocity and contact status\n"
          "        nonsmooth time integration; history.csv has one row per step: time,\n"
          "        energy ledger and contact status counts\n"
          "  equilibrium --stiffness K.mtx [--fixed FILE] [--load f.txt] --contacts FILE\n"
          "        [--kind static|steady-sliding] [--reference u.txt] [--tol X]\n"
          "        [--max-iter N] --out state.csv [--displacements u.txt]\n"
          "        static equilibrium (friction measured from the reference displacements,\n"
          "        zero by default) or steady sliding along -vg of every contact; state.csv\n"
          "        has one row per contact: contact,status,slip_t,slip_b,set,r_n,r_t,r_b,u_n\n"
          "  stability --mass M.mtx --stiffness K.mtx [--damping C.mtx | --rayleigh a,b]\n"
          "        [--fixed FILE] [--load f.txt] --contacts FILE\n"
          "        (--state state.csv | --steady-sliding) [--mu X | --mu-sweep a:b:n]\n"
          "        [--nev N] [--target-hz F] [--undamped] --out chart.csv [--plot chart.png]\n"
          "        [--mesh mesh.vtk --vtk DIR]: DIR/mode-K.vtk, the modes with the contact\n"
          "        state on the mesh's nodes (node p owns dofs dim p ..)\n"
          "        eigenvalues of the friction-linearized pencil about a contact state;\n"
          "        chart.csv: mu,mode,track,re,im,freq_hz,damping_ratio,kind. Reduced\n"
          "        pencils up to 400 dofs are solved whole, larger ones for the --nev\n"
          "        pairs (default 10, so 20 eigenvalues) nearest --target-hz (default 0);\n"
          "        the 'window:' line says which. A sweep prints 'critical: track=T\n"
          "        mu_from=A mu_to=B freq_hz=F becomes unstable|stable' where a tracked\n"
          "        mode crosses Re = 0. Then 'certificate:' (the eigenpairs'\n"
          "        backward error), 'infinite:' when some were infinite, and\n"
          "        'stability: ... unstable=yes|no necessary_divergence=yes|no\n"
          "        min_sym=X|n/a chart=FILE' (unstable: within the window)\n"
          "  lattice --rect NXxNY | --tri NXxNY [--defect NODE:DX,DY] [--k X --c0 X --s X\n"
          "        --h X --rate X --spacing X] [--dt H --t-end T] [--method full|reduced]\n"
          "        (--out DIR | --count-only)\n"
          "        the spring lattices of seed 001 under the paper's loading, stepped by\n"
          "        implicit catch-up (Algorithm 1 sparse, or 2 dense): DIR/history.csv\n"
          "        (t,total_stress_yy,iterations,max_damage,plastic_springs,\n"
          "        pull_displacement,pull_force)\n"
          "        and DIR/damage.png; --count-only prints 'nodes=N springs=M\n"
          "        constraints=Q selfstress_dim=D'\n"
          "  demo [--out DIR]\n"
          "        a tour on embedded models, written under DIR (default: fcd-demo): the\n"
          "        modes of a clamped steel beam against theory; a pin on a flat: its\n"
          "        flutter threshold and stick-slip limit cycle; Moreau-Jean against\n"
          "        Fremond energies; a softening lattice's shear band; CSV and PNG plots\n"
          "  help   this text\n"
          "\n"
          "options common to all commands:\n"
          "  --version   print the library version\n"
          "\n"
          "Matrix files are Matrix Market 'coordinate real|integer general|symmetric'.\n"
          "A --fixed FILE holds one 0-based dof per line, optionally followed by its\n"
          "prescribed value.\n");
}

typedef struct {
  const char *mass, *stiffness, *fixed, *out, *solver, *write;
  const char *damping, *rayleigh, *load, *contacts, *scheme, *u0, *v0;
  const char *kind, *reference, *displacements;
  const char *state, *mu_sweep, *plot, *mu_text;
  const char *mesh, *vtk; /* a legacy VTK mesh and the directory of VTK output */
  int steady, undamped;
  double target_hz;
  long nev, max_iter;
  double tol, dt, t_end, theta, restitution;
} options;

static int parse_real(const char *opt, const char *v, double *x) {
  char *end;
  *x = strtod(v, &end);
  if (*end || end == v || !isfinite(*x)) {
    fprintf(stderr, "fcd: %s needs a number, got '%s'\n", opt, v);
    return -1;
  }
  return 0;
}

/* Every option of every command, declared once: its name, the kind of its value and
 * where it goes in `options`. A command lists the names it accepts; the parser takes
 * `--opt value` and (main) `--opt=value`. */
typedef enum { OPT_FLAG, OPT_TEXT, OPT_REAL, OPT_POS_REAL, OPT_POS_INT } opt_kind;
typedef struct {
  const char *name;
  opt_kind kind;
  size_t off;
} opt_def;
#define O_(name, kind, field) {name, kind, offsetof(options, field)}
static const opt_def opt_table[] = {
    O_("--mass", OPT_TEXT, mass), O_("--stiffness", OPT_TEXT, stiffness),
    O_("--fixed", OPT_TEXT, fixed), O_("--out", OPT_TEXT, out),
    O_("--solver", OPT_TEXT, solver), O_("--damping", OPT_TEXT, damping),
    O_("--rayleigh", OPT_TEXT, rayleigh), O_("--load", OPT_TEXT, load),
    O_("--contacts", OPT_TEXT, contacts), O_("--scheme", OPT_TEXT, scheme),
    O_("--u0", OPT_TEXT, u0), O_("--v0", OPT_TEXT, v0), O_("--kind", OPT_TEXT, kind),
    O_("--state", OPT_TEXT, state), O_("--mesh", OPT_TEXT, mesh), O_("--vtk", OPT_TEXT, vtk),
    O_("--mu-sweep", OPT_TEXT, mu_sweep), O_("--plot", OPT_TEXT, plot),
    O_("--mu", OPT_TEXT, mu_text), O_("--reference", OPT_TEXT, reference),
    O_("--displacements", OPT_TEXT, displacements), O_("--write", OPT_TEXT, write),
    O_("--target-hz", OPT_REAL, target_hz), O_("--dt", OPT_REAL, dt),
    O_("--t-end", OPT_REAL, t_end), O_("--theta", OPT_REAL, theta),
    O_("--restitution", OPT_REAL, restitution), O_("--tol", OPT_POS_REAL, tol),
    O_("--max-iter", OPT_POS_INT, max_iter), O_("--nev", OPT_POS_INT, nev),
    O_("--steady-sliding", OPT_FLAG, steady), O_("--undamped", OPT_FLAG, undamped),
};
#undef O_

/* Parses the options a command accepts (allowed) into o; returns 0 or prints why and
 * returns -1. */
static int parse_options(int argc, char **argv, options *o, const char *const *allowed) {
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    int ok = 0;
    for (const char *const *k = allowed; *k; k++)
      if (strcmp(a, *k) == 0) ok = 1;
    const opt_def *def = NULL;
    for (size_t k = 0; ok && k < sizeof opt_table / sizeof opt_table[0]; k++)
      if (strcmp(a, opt_table[k].name) == 0) def = &opt_table[k];
    if (!def) {
      fprintf(stderr, "fcd: unknown option '%s' (see 'fcd help')\n", a);
      return -1;
    }
    char *field = (char *)o + def->off;
    if (def->kind == OPT_FLAG) {
      *(int *)(void *)field = 1;
      continue;
    }
    if (i + 1 >= argc) {
      fprintf(stderr, "fcd: option '%s' needs a value\n", a);
      return -1;
    }
    const char *v = argv[++i];
    char *end;
    errno = 0;
    switch (def->kind) {
    case OPT_TEXT: *(const char **)(void *)field = v; break;
    case OPT_REAL:
      if (parse_real(a, v, (double *)(void *)field)) return -1;
      break;
    case OPT_POS_REAL: {
      double x = strtod(v, &end);
      if (*end || end == v || !(x > 0) || !isfinite(x)) {
        fprintf(stderr, "fcd: %s needs a positive number, got '%s'\n", a, v);
        return -1;
      }
      *(double *)(void *)field = x;
      break;
    }
    case OPT_POS_INT: {
      long x = strtol(v, &end, 10);
      if (*end || end == v || errno || x < 1) {
        fprintf(stderr, "fcd: %s needs a positive integer, got '%s'\n", a, v);
        return -1;
      }
      *(long *)(void *)field = x;
      break;
    }
    case OPT_FLAG: break;
    }
  }
  return 0;
}

static int fail(fcd_system *sys, fcd_status st, const char *what) {
  fprintf(stderr, "fcd: %s: %s (%s)\n", what, sys ? fcd_system_last_error(sys) : "",
          fcd_status_str(st));
  return 1;
}

static void print_matrix(fcd_system *sys, fcd_matrix_kind k, const char *name) {
  fcd_index stored = 0, full = 0;
  fcd_real asym = 0;
  fcd_system_matrix_nnz(sys, k, &stored, &full);
  fcd_system_matrix_asymmetry(sys, k, &asym);
  printf("%s: %lld x %lld, stored nonzeros %lld, nonzeros %lld, %s (relative asymmetry "
         "%.3g)\n",
         name, (long long)fcd_system_ndofs(sys), (long long)fcd_system_ndofs(sys),
         (long long)stored, (long long)full, asym <= 1e-12 ? "symmetric" : "non-symmetric",
         asym);
}

/* The body of `fcd info` on an already loaded system; frequencies go to freq_hz. */
static int report(fcd_system *sys, long nev, double *freq_hz, long *nfound) {
  fcd_index n = fcd_system_ndofs(sys), nfix = fcd_system_num_fixed(sys);
  printf("dofs: %lld (prescribed %lld, free %lld)\n", (long long)n, (long long)nfix,
         (long long)(n - nfix));
  print_matrix(sys, FCD_MASS, "mass");
  print_matrix(sys, FCD_STIFFNESS, "stiffness");
  fcd_status st = fcd_system_check_spd(sys, FCD_MASS);
  if (st == FCD_E_NOT_SPD) {
    printf("mass SPD on free dofs: no (%s)\n", fcd_system_last_error(sys));
    return 1;
  }
  if (st != FCD_OK) return fail(sys, st, "checking the mass matrix");
  printf("mass SPD on free dofs: yes\n");
  if (nev > n - nfix) nev = (long)(n - nfix);
  double *w2 = malloc((size_t)nev * sizeof *w2);
  if (!w2) return fail(NULL, FCD_E_NOMEM, "out of memory");
  fcd_index nc = 0;
  st = fcd_system_natural_modes(sys, nev, w2, NULL, &nc);
  if (st != FCD_OK && st != FCD_E_NOT_CONVERGED) {
    free(w2);
    return fail(sys, st, "computing natural frequencies");
  }
  printf("lowest natural frequencies (%lld of %ld requested):\n", (long long)nc, nev);
  for (fcd_index k = 0; k < nc; k++) {
    double f = sqrt(w2[k] > 0 ? w2[k] : 0) / (2 * PI);
    if (freq_hz) freq_hz[k] = f;
    printf("frequency %lld: %.9g Hz\n", (long long)k + 1, f);
  }
  if (nfound) *nfound = (long)nc;
  free(w2);
  if (st == FCD_E_NOT_CONVERGED) {
    fprintf(stderr, "fcd: %s\n", fcd_system_last_error(sys));
    return 1;
  }
  return 0;
}

static int load_system_opt(const options *o, int need_mass, fcd_system **out) {
  *out = NULL;
  if ((need_mass && !o->mass) || !o->stiffness) {
    fprintf(stderr, need_mass ? "fcd: --mass and --stiffness are required\n"
                              : "fcd: --stiffness is required\n");
    return 2;
  }
  const char *sizer = o->mass ? o->mass : o->stiffness;
  fcd_index nr, nc, nnz;
  char msg[512];
  fcd_status st = fcd_matrix_market_size(sizer, &nr, &nc, &nnz, msg, sizeof msg);
  if (st != FCD_OK) {
    fprintf(stderr, "fcd: %s (%s)\n", msg, fcd_status_str(st));
    return 1;
  }
  if (nr != nc) {
    fprintf(stderr, "fcd: %s: the %s matrix is %lld x %lld, not square\n", sizer,
            o->mass ? "mass" : "stiffness", (long long)nr, (long long)nc);
    return 1;
  }
  fcd_system *sys;
  st = fcd_system_create(nr, &sys);
  if (st != FCD_OK) {
    fprintf(stderr, "fcd: %s: cannot create a system of %lld dofs, the size in its header "
            "(%s: its tables alone need %.3g GB)\n", sizer, (long long)nr, fcd_status_str(st),
            49.0 * (double)nr / 1e9);
    return 1;
  }
  if ((o->mass && (st = fcd_system_read_matrix_market(sys, FCD_MASS, o->mass)) != FCD_OK) ||
      (st = fcd_system_read_matrix_market(sys, FCD_STIFFNESS, o->stiffness)) != FCD_OK ||
      (o->fixed && (st = fcd_system_read_fixed(sys, o->fixed)) != FCD_OK)) {
    fail(sys, st, "reading input");
    fcd_system_destroy(sys);
    return 1;
  }
  *out = sys;
  return 0;
}

static int load_system(const options *o, fcd_system **out) { return load_system_opt(o, 1, out); }

static int cmd_info(int argc, char **argv) {
  static const char *const allowed[] = {"--mass", "--stiffness", "--fixed", "--nev", NULL};
  options o = {.nev = 6};
  if (parse_options(argc, argv, &o, allowed)) return 2;
  fcd_system *sys;
  int rc = load_system(&o, &sys);
  if (rc) return rc;
  rc = report(sys, o.nev, NULL, NULL);
  fcd_system_destroy(sys);
  return rc;
}

static int write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fputs(text, f);
  return fclose(f);
}

/* the line every solving command prints before its last one */
static void print_certificate(const char *what, const fcd_certificate *c) {
  printf("%s: equilibrium=%.3e penetration=%.3e complementarity=%.3e cone=%.3e "
         "tolerance=%.1e force_scale=%.3e length_scale=%.3e\n", what, c->equilibrium,
         c->penetration, c->complementarity, c->cone, c->tolerance, c->force_scale,
         c->length_scale);
}

static int cmd_solve(int argc, char **argv) {
  if (argc < 1 || argv[0][0] == '-') {
    fprintf(stderr, "fcd: solve needs an fclib file (see 'fcd help')\n");
    return 2;
  }
  const char *path = argv[0];
  static const char *const allowed[] = {"--solver", "--tol", "--max-iter", "--write", NULL};
  options o = {.solver = "auto", .tol = 1e-8, .max_iter = 10000};
  if (parse_options(argc - 1, argv + 1, &o, allowed)) return 2;
  static const char *const names[] = {"auto", "fixed-point", "nsgs", "newton"};
  int solver = -1;
  for (int k = 0; k < 4; k++)
    if (strcmp(o.solver, names[k]) == 0) solver = k;
  if (solver < 0) {
    fprintf(stderr, "fcd: unknown solver '%s' (auto, fixed-point, nsgs, newton)\n", o.solver);
    return 2;
  }
  char msg[1024];
  fcd_fc_problem *p;
  fcd_status st = fcd_fc_problem_read_fclib(path, &p, msg, sizeof msg);
  if (st != FCD_OK) {
    fprintf(stderr, "fcd: %s (%s)\n", msg, fcd_status_str(st));
    return 1;
  }
  fcd_index nc = fcd_fc_problem_size(p), m = nc * fcd_fc_problem_dim(p);
  fcd_index ndofs = fcd_fc_problem_ndofs(p);
  printf("problem: %s: %s %dD, %lld contacts", path, ndofs ? "global" : "local",
         fcd_fc_problem_dim(p), (long long)nc);
  if (ndofs) printf(", %lld dofs", (long long)ndofs);
  printf("\nsolver: %s, tolerance %g, at most %ld iterations\n", names[solver], o.tol,
         o.max_iter);
  const int keys[3] = {FCD_FC_PARAM_SOLVER, FCD_FC_PARAM_TOLERANCE, FCD_FC_PARAM_MAX_ITER};
  const double vals[3] = {solver, o.tol, (double)o.max_iter};
  for (int k = 0; k < 3; k++)
    if ((st = fcd_fc_problem_set_param(p, keys[k], vals[k])) != FCD_OK) {
      fprintf(stderr, "fcd: %s\n", fcd_fc_problem_last_error(p));
      fcd_fc_problem_destroy(p);
      return 1;
    }
  double *r = calloc((size_t)(m ? m : 1), sizeof *r);
  double *ref = calloc((size_t)(m ? m : 1), sizeof *ref);
  if (!r || !ref) {
    free(r);
    free(ref);
    fcd_fc_problem_destroy(p);
    return fail(NULL, FCD_E_NOMEM, "out of memory");
  }
  st = fcd_fc_problem_solve(p, r, NULL, NULL);
  int rc = 0;
  if (st == FCD_E_NOT_CONVERGED) {
    fprintf(stderr, "fcd: %s\n", fcd_fc_problem_last_error(p));
    fcd_fc_problem_get_iterate(p, r);
    rc = 3;
  } else if (st != FCD_OK) {
    fprintf(stderr, "fcd: %s (%s)\n", fcd_fc_problem_last_error(p), fcd_status_str(st));
    free(r);
    free(ref);
    fcd_fc_problem_destroy(p);
    return 1;
  }
  fcd_index iters;
  double res, secs;
  fcd_fc_problem_get_result(p, &iters, &res, &secs);
  if (fcd_fc_problem_has_solution(p) && fcd_fc_problem_get_solution(p, ref) == FCD_OK) {
    double d2 = 0, n2 = 0, rref = 0;
    for (fcd_index i = 0; i < m; i++) {
      d2 += (r[i] - ref[i]) * (r[i] - ref[i]);
      n2 += ref[i] * ref[i];
    }
    fcd_fc_problem_residual(p, ref, &rref);
    printf("reference solution: distance=%.6e relative=%.6e (its residual %.3e)\n", sqrt(d2),
           n2 > 0 ? sqrt(d2 / n2) : sqrt(d2), rref);
  }
  if (o.write && rc == 0) {
    out_file wf;
    if (out_reserve(&wf, o.write)) rc = 1;
    else if ((st = fcd_fc_problem_write_fclib(p, wf.tmp, r)) != FCD_OK) {
      fprintf(stderr, "fcd: %s\n", fcd_fc_problem_last_error(p));
      out_discard(&wf);
      rc = 1;
    } else if (out_commit(&wf)) {
      rc = 1;
    }
  }
  fcd_certificate cert;
  if (rc == 0 && fcd_fc_problem_get_certificate(p, &cert) == FCD_OK)
    print_certificate("certificate", &cert);
  printf("solved: contacts=%lld iterations=%lld residual=%.6e seconds=%.6f\n", (long long)nc,
         (long long)iters, res, secs);
  free(r);
  free(ref);
  fcd_fc_problem_destroy(p);
  return rc;
}

typedef struct {
  FILE *csv;
  fcd_integrator *it;
  double t0, t_end;
  int tty;
  int last_pct;
  fcd_certificate worst; /* figure by figure, the largest over the steps */
} sim_ctx;


static int sim_observer(void *ud, fcd_real t, fcd_index n, const fcd_real *u, const fcd_real *v,
                        fcd_index nl, const fcd_real *r, const fcd_contact_counts *c) {
  sim_ctx *s = ud;
  (void)n, (void)u, (void)v, (void)nl, (void)r;
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
  fprintf(s->csv, "%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%lld,%lld,%lld\n", t, e.kinetic,
          e.potential, e.external_work, e.damping_dissipation, e.friction_dissipation,
          e.impact_dissipation, e.numerical_dissipation, (long long)c->open,
          (long long)c->stick, (long long)c->slip);
  if (s->tty) {
    int pct = (int)(100.0 * (t - s->t0) / (s->t_end - s->t0));
    if (pct != s->last_pct) {
      fprintf(stderr, "\r  simulating: %3d%% (t = %.4g)", pct, t);
      s->last_pct = pct;
    }
  }
  return ferror(s->csv) ? 1 : 0;
}

/* --damping or --rayleigh, then --load (into f, ndofs n): the inputs simulate and
 * stability share. *usage is set when --rayleigh is malformed (exit status 2). */
static fcd_status read_damping_load(const options *o, fcd_system *sys, fcd_index n, double *f,
                                    int *usage) {
  *usage = 0;
  fcd_status st = FCD_OK;
  if (o->damping) st = fcd_system_read_matrix_market(sys, FCD_DAMPING, o->damping);
  if (st == FCD_OK && o->rayleigh) {
    double a, b;
    char tail;
    if (sscanf(o->rayleigh, "%lf,%lf%c", &a, &b, &tail) != 2 || !isfinite(a) || !isfinite(b)) {
      fprintf(stderr, "fcd: --rayleigh needs 'alpha,beta', got '%s'\n", o->rayleigh);
      *usage = 1;
      return FCD_E_INVALID_ARG;
    }
    st = fcd_system_set_rayleigh(sys, a, b);
  }
  if (st == FCD_OK && o->load && (st = fcd_system_read_vector(sys, o->load, n, f)) == FCD_OK)
    st = fcd_system_set_load(sys, f);
  return st;
}

/* --vtk DIR needs --mesh FILE (the geometry fcd does not otherwise know): checks the
 * pair; 0, or 2 for a usage error. DIR is created when the first file is written, after
 * the run succeeded: a failed run leaves no directory behind. */
static int vtk_prepare(const options *o) {
  if (!o->vtk && !o->mesh) return 0;
  if (!o->vtk || !o->mesh) {
    fprintf(stderr, "fcd: --vtk DIR and --mesh FILE go together (VTK output needs the "
                    "mesh's node coordinates)\n");
    return 2;
  }
  return 0;
}

/* writes DIR/NAME.vtk through a temporary file (an existing one is replaced only by a
 * complete one); 0 or 1 (message printed) */
static int vtk_write(fcd_system *sys, const fcd_mesh *m, const char *dir, const char *name,
                     fcd_index nfields, const char *const *names, const double *const *fields,
                     const fcd_contact_set *cs, const int *status) {
  if (out_mkdir(dir)) return 1;
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.vtk", dir, name);
  out_file of;
  if (out_reserve(&of, path)) return 1;
  fcd_status st = fcd_mesh_write_vtk(m, of.tmp, nfields, names, fields, cs, status);
  if (st != FCD_OK) {
    out_discard(&of);
    return fail(sys, st, "writing VTK");
  }
  if (out_commit(&of)) return 1;
  printf("vtk: %s\n", path);
  return 0;
}

static int cmd_simulate(int argc, char **argv) {
  static const char *const allowed[] = {"--mass", "--stiffness", "--damping", "--rayleigh",
                                        "--fixed", "--load", "--contacts", "--scheme", "--dt",
                                        "--t-end", "--theta", "--restitution", "--u0", "--v0",
                                        "--out", "--mesh", "--vtk", "--max-iter", NULL};
  options o = {.theta = 0.5, .scheme = "moreau-jean"};
  if (parse_options(argc, argv, &o, allowed)) return 2;
  if (!o.contacts || !o.out || !(o.dt > 0) || !(o.t_end > 0)) {
    fprintf(stderr, "fcd: simulate needs --contacts, --dt > 0, --t-end > 0 and --out\n");
    return 2;
  }
  if (o.damping && o.rayleigh) {
    fprintf(stderr, "fcd: --damping and --rayleigh exclude each other\n");
    return 2;
  }
  int vrc = vtk_prepare(&o);
  if (vrc) return vrc;
  fcd_scheme scheme;
  if (strcmp(o.scheme, "moreau-jean") == 0) scheme = FCD_SCHEME_MOREAU_JEAN;
  else if (strcmp(o.scheme, "fremond") == 0) scheme = FCD_SCHEME_FREMOND;
  else if (strcmp(o.scheme, "modified-theta") == 0) scheme = FCD_SCHEME_MODIFIED_THETA;
  else {
    fprintf(stderr, "fcd: unknown scheme '%s' (moreau-jean, modified-theta, fremond)\n", o.scheme);
    return 2;
  }
  fcd_system *sys;
  int rc = load_system(&o, &sys);
  if (rc) return rc;
  fcd_index n = fcd_system_ndofs(sys);
  fcd_contact_set *cs = NULL;
  fcd_integrator *it = NULL;
  fcd_mesh *mesh = NULL;
  double *u = calloc((size_t)n, sizeof *u), *v = calloc((size_t)n, sizeof *v);
  double *f = calloc((size_t)n, sizeof *f);
  fcd_status st = (u && v && f) ? FCD_OK : FCD_E_NOMEM;
  const char *what = "reading input";
  int usage = 0;
  if (st == FCD_OK) st = read_damping_load(&o, sys, n, f, &usage);
  if (usage) {
    rc = 2;
    goto out;
  }
  if (st == FCD_OK && o.u0) st = fcd_system_read_vector(sys, o.u0, n, u);
  if (st == FCD_OK && o.v0) st = fcd_system_read_vector(sys, o.v0, n, v);
  if (st == FCD_OK) st = fcd_contact_set_read(sys, o.contacts, &cs);
  if (st == FCD_OK && o.mesh) st = fcd_mesh_read_vtk(sys, fcd_contact_set_dim(cs), o.mesh, &mesh);
  if (st == FCD_OK) st = fcd_contact_set_set_restitution(cs, o.restitution);
  if (st == FCD_OK) {
    what = "setting up the integrator";
    st = fcd_integrator_create(sys, cs, scheme, &it);
  }
  if (st == FCD_OK) st = fcd_integrator_set_param(it, FCD_PARAM_STEP, o.dt);
  if (st == FCD_OK) st = fcd_integrator_set_param(it, FCD_PARAM_THETA, o.theta);
  if (st == FCD_OK && o.max_iter > 0)
    st = fcd_integrator_set_param(it, FCD_PARAM_MAX_ITER, (double)o.max_iter);
  if (st == FCD_OK) st = fcd_integrator_set_state(it, 0.0, u, v);
  if (st != FCD_OK) {
    rc = fail(sys, st, what);
    goto out;
  }
  {
    out_file hist;
    FILE *csv = out_open(&hist, o.out);
    if (!csv) {
      rc = 1;
      goto out;
    }
    fprintf(csv, "t,kinetic,potential,external_work,damping_dissipation,friction_dissipation,"
                 "impact_dissipation,numerical_dissipation,open,stick,slip\n");
    sim_ctx ctx = {csv, it, 0.0, o.t_end, isatty(2) && o.t_end / o.dt > 2000, -1, {0, 0, 0, 0, 0, 0, 0, 0, {0, 0, 0, 0}}};
    fcd_integrator_set_observer(it, sim_observer, &ctx);
    st = fcd_integrator_advance(it, o.t_end);
    if (ctx.tty) fprintf(stderr, "\n");
    if (st != FCD_OK) {
      /* the previous history, if any, stays: a partial one would look complete */
      out_discard(&hist);
      rc = fail(sys, st, "simulating");
      fprintf(stderr, "fcd: no history written; '%s' is unchanged\n", o.out);
      goto out;
    }
    if (out_commit(&hist)) {
      rc = 1;
      goto out;
    }
    fcd_energy e;
    double t;
    fcd_integrator_get_energy(it, &e);
    fcd_integrator_get_state(it, &t, NULL, NULL);
    printf("energy: kinetic=%.9g potential=%.9g external_work=%.9g damping=%.9g friction=%.9g "
           "impact=%.9g numerical=%.9g\n", e.kinetic, e.potential, e.external_work,
           e.damping_dissipation, e.friction_dissipation, e.impact_dissipation,
           e.numerical_dissipation);
    /* every step passed its own; the figures are the worst over the steps */
    print_certificate("certificate (worst step)", &ctx.worst);
    printf("simulated: dofs=%lld contacts=%lld t=%.9g history=%s\n", (long long)n,
           (long long)fcd_contact_set_size(cs), t, o.out);
    if (mesh) {
      /* the final state: displacement, velocity, contact status */
      fcd_index nc = fcd_contact_set_size(cs);
      int *cst = calloc((size_t)nc + 1, sizeof *cst);
      if (!cst) {
        rc = fail(sys, FCD_E_NOMEM, "writing VTK");
        goto out;
      }
      fcd_integrator_get_state(it, NULL, u, v);
      fcd_integrator_get_contact_status(it, cst);
      const char *names[2] = {"displacement", "velocity"};
      const double *fields[2] = {u, v};
      rc = vtk_write(sys, mesh, o.vtk, "final", 2, names, fields, cs, cst);
      free(cst);
    }
  }
out:
  fcd_mesh_destroy(mesh);
  fcd_integrator_destroy(it);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
  free(u);
  free(v);
  free(f);
  return rc;
}

/* Static or steady-sliding equilibrium: the state per contact in the form
 * `fcd stability --state` reads (contact,status,slip_t,slip_b, then our columns). */
static int cmd_equilibrium(int argc, char **argv) {
  static const char *const allowed[] = {"--mass", "--stiffness", "--fixed", "--load",
                                        "--contacts", "--kind", "--reference", "--tol",
                                        "--max-iter", "--out", "--displacements", NULL};
  options o = {.kind = "static"};
  if (parse_options(argc, argv, &o, allowed)) return 2;
  if (!o.contacts || !o.out) {
    fprintf(stderr, "fcd: equilibrium needs --contacts and --out\n");
    return 2;
  }
  fcd_equilibrium_kind kind;
  if (strcmp(o.kind, "static") == 0) kind = FCD_EQ_STATIC;
  else if (strcmp(o.kind, "steady-sliding") == 0) kind = FCD_EQ_STEADY_SLIDING;
  else {
    fprintf(stderr, "fcd: unknown --kind '%s' (static, steady-sliding)\n", o.kind);
    return 2;
  }
  fcd_system *sys;
  int rc = load_system_opt(&o, 0, &sys);
  if (rc) return rc;
  fcd_index n = fcd_system_ndofs(sys);
  fcd_contact_set *cs = NULL;
  fcd_equilibrium *eq = NULL;
  double *u = calloc((size_t)n, sizeof *u), *f = calloc((size_t)n, sizeof *f);
  double *r = NULL, *sd = NULL;
  int *set = NULL, *status = NULL;
  fcd_status st = (u && f) ? FCD_OK : FCD_E_NOMEM;
  const char *what = "reading input";
  if (st == FCD_OK && o.load && (st = fcd_system_read_vector(sys, o.load, n, f)) == FCD_OK)
    st = fcd_system_set_load(sys, f);
  if (st == FCD_OK) st = fcd_contact_set_read(sys, o.contacts, &cs);
  if (st == FCD_OK) {
    what = "setting up the equilibrium";
    st = fcd_equilibrium_create(sys, cs, &eq);
  }
  if (st == FCD_OK && o.reference && (st = fcd_system_read_vector(sys, o.reference, n, u)) == FCD_OK)
    st = fcd_equilibrium_set_reference(eq, u);
  if (st == FCD_OK && o.tol > 0) st = fcd_equilibrium_set_param(eq, FCD_PARAM_TOLERANCE, o.tol);
  if (st == FCD_OK && o.max_iter > 0)
    st = fcd_equilibrium_set_param(eq, FCD_PARAM_MAX_ITER, (double)o.max_iter);
  if (st == FCD_OK) {
    what = kind == FCD_EQ_STATIC ? "static equilibrium" : "steady sliding";
    st = fcd_equilibrium_solve(eq, kind, 0.0);
  }
  if (st != FCD_OK) {
    rc = fail(sys, st, what);
    goto out;
  }
  {
    fcd_index nc = fcd_contact_set_size(cs);
    int d = fcd_contact_set_dim(cs);
    r = calloc((size_t)(nc * d) + 1, sizeof *r);
    sd = calloc((size_t)(nc * (d - 1)) + 1, sizeof *sd);
    set = calloc((size_t)nc + 1, sizeof *set);
    status = calloc((size_t)nc + 1, sizeof *status);
    double *loc = calloc((size_t)(nc * d) + 1, sizeof *loc);
    if (!r || !sd || !set || !status || !loc) {
      free(loc);
      rc = fail(sys, FCD_E_NOMEM, "writing the state");
      goto out;
    }
    fcd_equilibrium_get_state(eq, u);
    fcd_equilibrium_get_reactions(eq, r);
    fcd_equilibrium_get_contact_sets(eq, set);
    fcd_equilibrium_get_contact_state(eq, status, sd);
    fcd_contact_set_local(cs, u, loc);
    out_file eqf;
    FILE *csv = out_open(&eqf, o.out);
    if (!csv) {
      free(loc);
      rc = 1;
      goto out;
    }
    static const char *const st_name[] = {"open", "stick", "slip"};
    static const char *const set_name[] = {"separated", "grazing", "stick", "slip"};
    fprintf(csv, "contact,status,slip_t,slip_b,set,r_n,r_t,r_b,u_n\n");
    int cnt[3] = {0, 0, 0};
    for (fcd_index c = 0; c < nc; c++) {
      cnt[status[c]]++;
      fprintf(csv, "%lld,%s,%.17g,%.17g,%s,%.17g,%.17g,%.17g,%.17g\n", (long long)c,
              st_name[status[c]], sd[c * (d - 1)], d == 3 ? sd[c * 2 + 1] : 0.0,
              set_name[set[c]], r[c * d], r[c * d + 1], d == 3 ? r[c * d + 2] : 0.0,
              loc[c * d]);
    }
    free(loc);
    int bad = 0;
    if (o.displacements) {
      out_file uff;
      FILE *uf = out_open(&uff, o.displacements);
      if (!uf) bad = 1;
      else {
        for (fcd_index i = 0; i < n; i++) fprintf(uf, "%.17g\n", u[i]);
        bad = out_commit(&uff) != 0;
      }
    }
    if (bad) out_discard(&eqf);
    else bad = out_commit(&eqf) != 0;
    if (bad) {
      rc = 1;
      goto out;
    }
    double req, rcomp;
    fcd_equilibrium_get_residual(eq, &req, &rcomp);
    fcd_certificate cert;
    fcd_equilibrium_get_certificate(eq, &cert);
    print_certificate("certificate", &cert);
    printf("equilibrium: kind=%s dofs=%lld contacts=%lld open=%d stick=%d slip=%d "
           "residual=%.3e complementarity=%.3e state=%s\n", o.kind, (long long)n,
           (long long)nc, cnt[0], cnt[1], cnt[2], req, rcomp, o.out);
  }
out:
  fcd_equilibrium_destroy(eq);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
  free(u);
  free(f);
  free(r);
  free(sd);
  free(set);
  free(status);
  return rc;
}

/* ---- fcd stability ---- */
typedef struct {
  FILE *csv;
  fcd_stability *st;
  int tty;
  long steps, done;
  /* per track: last mu, re and freq, for the critical coefficients */
  double *last_mu, *last_re, *last_f;
  long ntracks;
  int any_unstable;
} stab_ctx;

static int stab_row(void *ud, double mu, fcd_index n, const double *re, const double *im,
                    const fcd_index *track) {
  stab_ctx *c = ud;
  static const char *const kinds[] = {"stable", "flutter", "divergence"};
  for (fcd_index i = 0; i < n; i++) {
    double f, xi;
    int kind;
    fcd_stability_get_mode_info(c->st, i, &f, &xi, &kind);
    fprintf(c->csv, "%.10g,%lld,%lld,%.12g,%.12g,%.10g,%.10g,%s\n", mu, (long long)i,
            (long long)track[i], re[i] + 0.0, im[i] + 0.0, f, xi + 0.0, kinds[kind]);
    if (kind != FCD_MODE_STABLE) c->any_unstable = 1;
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
      if (!a || !b || !e) return 1;
      for (long k = c->ntracks; k < nt; k++) c->last_mu[k] = NAN;
      c->ntracks = nt;
    }
    /* a crossing of Re = 0 between the previous coefficient and this one */
    if (!isnan(c->last_mu[t]) && (c->last_re[t] <= 1e-9) != (re[i] <= 1e-9)) {
      /* the bracket, not an interpolation: past a coalescence Re grows like a square root */
      printf("critical: track=%ld mu_from=%.6g mu_to=%.6g freq_hz=%.6g %s\n", t,
             c->last_mu[t], mu, f, re[i] > 1e-9 ? "becomes unstable" : "becomes stable");
    }
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
  if (o->vtk && (o->mu_text || o->mu_sweep)) {
    fprintf(stderr, "fcd: --vtk writes the modes of a single solve at the contacts' own "
                    "friction; with --mu or --mu-sweep it would write nothing\n");
    return 2;
  }
  if (o->plot && !plot_available()) {
    fprintf(stderr, "fcd: --plot needs gnuplot, which is not on PATH (drop --plot to write "
                    "the chart alone)\n");
    return 1;
  }
  return 0;
}

/* The lines after a stability run: notes of the sparse path, the certificate, infinite
 * eigenvalues, the window of the spectrum, and the summary. */
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
  fcd_certificate cert;
  if (fcd_stability_get_certificate(st, &cert) == FCD_OK)
    print_certificate("certificate", &cert);
  fcd_index ninf = 0;
  if (fcd_stability_get_infinite_count(st, &ninf) == FCD_OK && ninf > 0)
    printf("infinite: %lld eigenvalues dropped as infinite (a mass-less constraint "
           "direction, typically a sliding contact at huge mu)\n", (long long)ninf);
  /* what part of the spectrum unstable=yes/no speaks for */
  fcd_index nred = fcd_stability_reduced_size(st);
  if (nred <= CLI_DENSE_MAX)
    printf("window: the whole spectrum, every eigenvalue of the %lld-dof reduced pencil "
           "(dense)\n", (long long)nred);
  else
    printf("window: the %ld eigenvalue pairs (lambda and its conjugate) nearest %g Hz of "
           "the %lld-dof reduced pencil (sparse, --nev %ld --target-hz %g)\n", o->nev,
           o->target_hz, (long long)nred, o->nev, o->target_hz);
  char msym[32];
  if (isnan(ms)) snprintf(msym, sizeof msym, "n/a");
  else snprintf(msym, sizeof msym, "%.6g", ms);
  printf("stability: dofs=%lld reduced=%lld contacts=%lld steps=%ld unstable=%s "
         "necessary_divergence=%s min_sym=%s chart=%s\n", (long long)n,
         (long long)nred, (long long)nc, steps,
         any_unstable ? "yes" : "no", nec ? "yes" : "no", msym, o->out);
}

/* --plot: the chart drawn by gnuplot (no path enters the script); 0 or 1 */
static int stab_plot(const options *o) {
  /* the chart is linked as chart.csv and the image written as plot.png in a work
   * directory: neither path enters the script */
  static const char script[] =
      "set terminal pngcairo size 900,800\nset output 'plot.png'\nset datafile separator ','\n"
      "set multiplot layout 2,1\nset xlabel 'friction coefficient'\n"
      "set ylabel 'frequency (Hz)'\nset key off\n"
      "plot 'chart.csv' every ::1 using 1:($5 > 0 ? $6 : 1/0):3 with points pt 7 ps 0.5 lc variable\n"
      "set ylabel 'Re(lambda) (1/s)'\n"
      "plot 'chart.csv' every ::1 using 1:($5 >= 0 ? $4 : 1/0):3 with points pt 7 ps 0.5 lc variable, 0 with lines lc rgb 'black'\n"
      "unset multiplot\n";
  const char *inputs[1] = {o->out}, *names[1] = {"chart.csv"};
  char err[512];
  if (plot_run(o->plot, script, 1, inputs, names, err, sizeof err) != 0) {
    fprintf(stderr, "fcd: --plot %s: %s\n", o->plot, err);
    return 1;
  }
  printf("plot: %s\n", o->plot);
  return 0;
}

static int cmd_stability(int argc, char **argv) {
  static const char *const allowed[] = {"--mass", "--stiffness", "--damping", "--rayleigh",
                                        "--fixed", "--load", "--contacts", "--state",
                                        "--steady-sliding", "--mu", "--mu-sweep", "--nev",
                                        "--target-hz", "--out", "--plot", "--undamped",
                                        "--mesh", "--vtk", NULL};
  options o = {.nev = 10};
  if (parse_options(argc, argv, &o, allowed)) return 2;
  int vrc = vtk_prepare(&o);
  if (vrc) return vrc;
  double mu0 = -1, mu1 = -1;
  long steps = 1;
  int orc = stab_check_options(&o, &mu0, &mu1, &steps);
  if (orc) return orc;
  fcd_system *sys;
  int rc = load_system(&o, &sys);
  if (rc) return rc;
  fcd_index n = fcd_system_ndofs(sys);
  fcd_contact_set *cs = NULL;
  fcd_stability *st = NULL;
  fcd_equilibrium *eq = NULL;
  fcd_mesh *mesh = NULL;
  int *status = NULL;
  double *slip = NULL, *f = calloc((size_t)n, sizeof *f);
  stab_ctx ctx = {0};
  fcd_status s = f ? FCD_OK : FCD_E_NOMEM;
  const char *what = "reading input";
  int usage = 0;
  if (s == FCD_OK) s = read_damping_load(&o, sys, n, f, &usage);
  if (usage) {
    rc = 2;
    goto out;
  }
  if (s == FCD_OK) s = fcd_contact_set_read(sys, o.contacts, &cs);
  if (s == FCD_OK && o.mesh) s = fcd_mesh_read_vtk(sys, fcd_contact_set_dim(cs), o.mesh, &mesh);
  if (s != FCD_OK) {
    rc = fail(sys, s, what);
    goto out;
  }
  fcd_index nc = fcd_contact_set_size(cs);
  int d = fcd_contact_set_dim(cs);
  status = calloc((size_t)nc + 1, sizeof *status);
  slip = calloc((size_t)(nc * (d - 1)) + 1, sizeof *slip);
  if (!status || !slip) {
    rc = fail(sys, FCD_E_NOMEM, "stability");
    goto out;
  }
  if (o.state) {
    if ((s = fcd_contact_set_read_state(cs, o.state, status, slip)) != FCD_OK) {
      fprintf(stderr, "fcd: %s (%s)\n", fcd_system_last_error(sys), fcd_status_str(s));
      rc = 1;
      goto out;
    }
  } else {
    what = "steady sliding";
    s = fcd_equilibrium_create(sys, cs, &eq);
    if (s == FCD_OK) s = fcd_equilibrium_solve(eq, FCD_EQ_STEADY_SLIDING, 0.0);
    if (s == FCD_OK) s = fcd_equilibrium_get_contact_state(eq, status, slip);
    if (s != FCD_OK) {
      rc = fail(sys, s, what);
      goto out;
    }
  }
  what = "stability analysis";
  s = fcd_stability_create(sys, cs, &st);
  if (s == FCD_OK) s = fcd_stability_set_contact_state(st, status, slip);
  if (s == FCD_OK) s = fcd_stability_set_param(st, FCD_STAB_DENSE_MAX, CLI_DENSE_MAX);
  if (s == FCD_OK) s = fcd_stability_set_param(st, FCD_STAB_NEV, (double)o.nev);
  if (s == FCD_OK) s = fcd_stability_set_param(st, FCD_STAB_TARGET_HZ, o.target_hz);
  if (s == FCD_OK && o.undamped) s = fcd_stability_set_param(st, FCD_STAB_DAMPING, 0);
  if (s != FCD_OK) {
    rc = fail(sys, s, what);
    goto out;
  }
  out_file chart;
  ctx.csv = out_open(&chart, o.out);
  if (!ctx.csv) {
    rc = 1;
    goto out;
  }
  fprintf(ctx.csv, "mu,mode,track,re,im,freq_hz,damping_ratio,kind\n");
  ctx.st = st;
  ctx.steps = steps;
  ctx.tty = isatty(2) && steps > 1;
  if (mu0 < 0) {
    /* the contacts' own coefficients: one solve */
    fcd_index nconv;
    s = fcd_stability_solve(st, &nconv);
    if (s == FCD_OK) {
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
      if (s == FCD_OK) stab_row(&ctx, mu_c, nconv, re, im, tr);
      free(re);
      free(im);
      free(tr);
      /* the modes of the solve, each with the contact state: DIR/mode-K.vtk */
      if (s == FCD_OK && mesh) {
        double *mr = malloc((size_t)n * sizeof *mr + 1), *mi = malloc((size_t)n * sizeof *mi + 1);
        const char *names[2] = {"mode_re", "mode_im"};
        const double *fields[2] = {mr, mi};
        if (!mr || !mi) s = FCD_E_NOMEM;
        for (fcd_index i = 0; s == FCD_OK && rc == 0 && i < nconv && i < 20; i++) {
          char name[32];
          snprintf(name, sizeof name, "mode-%lld", (long long)i);
          s = fcd_stability_get_mode(st, i, mr, mi);
          if (s == FCD_OK) rc = vtk_write(sys, mesh, o.vtk, name, 2, names, fields, cs, status);
        }
        free(mr);
        free(mi);
      }
    }
  } else {
    s = fcd_stability_sweep(st, mu0, o.mu_sweep ? mu1 : mu0, steps, stab_row, &ctx);
  }
  if (ctx.tty) fprintf(stderr, "\n");
  if (s != FCD_OK || rc != 0) {
    out_discard(&chart);
    if (s != FCD_OK) rc = fail(sys, s, what);
    fprintf(stderr, "fcd: no chart written; '%s' is unchanged\n", o.out);
    goto out;
  }
  if (out_commit(&chart)) {
    rc = 1;
    goto out;
  }
  stab_print_summary(sys, st, &o, n, nc, steps, ctx.any_unstable);
  if (o.plot && stab_plot(&o)) rc = 1;
out:
  fcd_mesh_destroy(mesh);
  fcd_stability_destroy(st);
  fcd_equilibrium_destroy(eq);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
  free(status);
  free(slip);
  free(f);
  free(ctx.last_mu);
  free(ctx.last_re);
  free(ctx.last_f);
  return rc;
}

/* The run of `fcd lattice --out DIR`: history.csv (t, total_stress_yy, iterations,
 * max_damage, plastic_springs, pull_displacement, pull_force) and, when gnuplot is
 * present, damage.png. The total stress is seed 001's virial (eq. 112): sum_i sigma_i
 * (e_i,y)^2 L_i over the area of the bounding box of the reference positions. The
 * force-displacement pair is the imposed displacement of the pulled constraints (rate
 * t) and the sum of their reactions. */
int lattice_run(fcd_lattice *lat, const char *dir, double dt, double t_end) {
  if (!(dt > 0) || !(t_end > 0)) {
    fprintf(stderr, "fcd: --dt and --t-end must be > 0\n");
    return 2;
  }
  /* the step count in double first: t_end / dt past a long is undefined as a conversion */
  double nsteps = ceil(t_end / dt - 1e-9);
  if (!(nsteps <= 1e9)) {
    fprintf(stderr, "fcd: --t-end %g / --dt %g makes %.3g steps, more than 1e9: refused\n",
            t_end, dt, nsteps);
    return 2;
  }
  if (out_mkdir(dir)) return 1;
  fcd_index n, m;
  fcd_lattice_sizes(lat, &n, &m, NULL);
  double *x = malloc(2 * (size_t)n * sizeof *x), *sg = malloc((size_t)m * sizeof *sg);
  double *a = malloc((size_t)m * sizeof *a), *wy = malloc((size_t)m * sizeof *wy);
  fcd_index *ea = malloc((size_t)m * sizeof *ea), *eb = malloc((size_t)m * sizeof *eb);
  if (!x || !sg || !a || !wy || !ea || !eb) {
    fprintf(stderr, "fcd: out of memory\n");
    free(x); free(sg); free(a); free(wy); free(ea); free(eb);
    return 1;
  }
  double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
  for (fcd_index i = 0; i < n; i++) {
    fcd_lattice_get_node(lat, i, x + 2 * i);
    xmin = fmin(xmin, x[2 * i]);
    xmax = fmax(xmax, x[2 * i]);
    ymin = fmin(ymin, x[2 * i + 1]);
    ymax = fmax(ymax, x[2 * i + 1]);
  }
  double area = (xmax - xmin) * (ymax - ymin);
  for (fcd_index i = 0; i < m; i++) {
    fcd_lattice_get_spring(lat, i, &ea[i], &eb[i], NULL, NULL, NULL, NULL);
    double dx = x[2 * ea[i]] - x[2 * eb[i]], dy = x[2 * ea[i] + 1] - x[2 * eb[i] + 1];
    double L = hypot(dx, dy);
    wy[i] = (dy / L) * (dy / L) * L / area;
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/history.csv", dir);
  out_file hist;
  FILE *csv = out_open(&hist, path);
  if (!csv) {
    free(x); free(sg); free(a); free(wy); free(ea); free(eb);
    return 1;
  }
  fprintf(csv, "t,total_stress_yy,iterations,max_damage,plastic_springs,pull_displacement,"
               "pull_force\n");
  fcd_index nq;
  fcd_lattice_sizes(lat, NULL, NULL, &nq);
  double *react = malloc(((size_t)nq + 1) * sizeof *react), pull_rate = 0;
  if (!react) {
    fprintf(stderr, "fcd: out of memory\n");
    out_discard(&hist);
    free(x); free(sg); free(a); free(wy); free(ea); free(eb);
    return 1;
  }
  for (fcd_index c = 0; c < nq; c++) {
    double r;
    fcd_lattice_get_constraint(lat, c, NULL, NULL, NULL, &r);
    if (r != 0) pull_rate = r;
  }
  long steps = (long)nsteps; /* at most 1e9: checked with the options */
  int rc = 0, tty = isatty(2);
  double amax_all = 0;
  for (long j = 1; j <= steps; j++) {
    fcd_index it;
    double t = j == steps ? t_end : j * dt;
    fcd_status st = fcd_lattice_step(lat, t, &it);
    if (st != FCD_OK) {
      fprintf(stderr, "%sfcd: step %ld: %s (%s)\n", tty ? "\n" : "", j,
              fcd_lattice_last_error(lat), fcd_status_str(st));
      rc = 1;
      break;
    }
    fcd_lattice_get_state(lat, NULL, sg, a, NULL);
    double syy = 0, am = 0;
    long np = 0;
    for (fcd_index i = 0; i < m; i++) {
      syy += sg[i] * wy[i];
      am = fmax(am, a[i]);
      np += a[i] > 0;
    }
    amax_all = fmax(amax_all, am);
    double pull = 0;
    fcd_lattice_get_reactions(lat, react);
    for (fcd_index c = 0; c < nq; c++) {
      double r;
      fcd_lattice_get_constraint(lat, c, NULL, NULL, NULL, &r);
      if (r != 0) pull += react[c];
    }
    fprintf(csv, "%.10g,%.12g,%lld,%.10g,%ld,%.10g,%.12g\n", t, syy, (long long)it, am, np,
            pull_rate * t, pull);
    if (tty && steps > 100 && j % 10 == 0) fprintf(stderr, "\rfcd: t = %.3g (%ld/%ld)", t, j, steps);
  }
  if (tty && steps > 100) fprintf(stderr, "\n");
  if (rc) {
    out_discard(&hist);
    fprintf(stderr, "fcd: no history written; '%s' is unchanged\n", path);
  } else if (out_commit(&hist)) {
    rc = 1;
  }
  /* the lattice coloured by damage, at the last state reached (best effort: not an
   * output the user asked for by name) */
  snprintf(path, sizeof path, "%s/springs.dat", dir);
  FILE *sd = rc ? NULL : fopen(path, "w");
  if (sd) {
    for (fcd_index i = 0; i < m; i++)
      fprintf(sd, "%.6g %.6g %.6g %.6g %.6g\n", x[2 * eb[i]], x[2 * eb[i] + 1],
              x[2 * ea[i]] - x[2 * eb[i]], x[2 * ea[i] + 1] - x[2 * eb[i] + 1], a[i]);
    fclose(sd);
    char script[1024], png[4096], err[512];
    snprintf(script, sizeof script,
             "set terminal pngcairo size 700,900\nset output 'plot.png'\n"
             "set size ratio -1\nunset key\nset title 'damage a at the last step'\n"
             "set palette defined (0 '#2ca02c', 0.5 '#ffdd00', 1 '#d62728')\n"
             "set cbrange [0:%g]\n"
             "plot 'springs.dat' using 1:2:3:4:5 with vectors nohead lw 2 lc palette\n",
             amax_all > 0 ? amax_all : 1);
    snprintf(png, sizeof png, "%s/damage.png", dir);
    const char *inputs[1] = {path}, *names[1] = {"springs.dat"};
    if (!plot_available()) fprintf(stderr, "fcd: gnuplot not on PATH: no %s\n", png);
    else if (plot_run(png, script, 1, inputs, names, err, sizeof err) != 0)
      fprintf(stderr, "fcd: no %s: %s\n", png, err);
    else printf("plot: %s\n", png);
  }
  printf("lattice: nodes=%lld springs=%lld steps=%ld history=%s/history.csv\n", (long long)n,
         (long long)m, steps, dir);
  free(react);
  free(x); free(sg); free(a); free(wy); free(ea); free(eb);
  return rc;
}

/* ---- fcd lattice ---- */
static int parse_dims(const char *v, int *nx, int *ny) {
  char tail;
  return sscanf(v, "%dx%d%c", nx, ny, &tail) == 2 && *nx >= 2 && *ny >= 2 ? 0 : -1;
}

static int cmd_lattice(int argc, char **argv) {
  const char *rect = NULL, *tri = NULL, *defect = NULL, *out = NULL, *method = "full";
  int count_only = 0;
  double k = 1, c0 = 0.01, s = 0.3, h = 1.1, rate = 0.1, spacing = 1.0, dt = 0.01, t_end = 10;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--count-only")) {
      count_only = 1;
      continue;
    }
    if (i + 1 >= argc) {
      fprintf(stderr, "fcd: option '%s' needs a value\n", a);
      return 2;
    }
    const char *v = argv[++i];
    double *num = !strcmp(a, "--k") ? &k : !strcmp(a, "--c0") ? &c0 : !strcmp(a, "--s") ? &s
                : !strcmp(a, "--h") ? &h : !strcmp(a, "--rate") ? &rate
                : !strcmp(a, "--spacing") ? &spacing : !strcmp(a, "--dt") ? &dt
                : !strcmp(a, "--t-end") ? &t_end : NULL;
    if (num) {
      if (parse_real(a, v, num)) return 2;
    } else if (!strcmp(a, "--rect")) rect = v;
    else if (!strcmp(a, "--tri")) tri = v;
    else if (!strcmp(a, "--defect")) defect = v;
    else if (!strcmp(a, "--out")) out = v;
    else if (!strcmp(a, "--method")) method = v;
    else {
      fprintf(stderr, "fcd: unknown option '%s' (see 'fcd help')\n", a);
      return 2;
    }
  }
  if (strcmp(method, "full") != 0 && strcmp(method, "reduced") != 0) {
    fprintf(stderr, "fcd: --method is 'full' (Algorithm 1, sparse) or 'reduced' (Algorithm 2, "
            "dense), got '%s'\n", method);
    return 2;
  }
  int nx, ny;
  if (!rect == !tri || parse_dims(rect ? rect : tri, &nx, &ny)) {
    fprintf(stderr, "fcd: lattice needs one of --rect NXxNY or --tri NXxNY (at least 2x2)\n");
    return 2;
  }
  fcd_lattice *lat = NULL;
  fcd_status st = rect ? fcd_lattice_create_rect(nx, ny, spacing, k, c0, s, h, rate, &lat)
                       : fcd_lattice_create_tri(nx, ny, spacing, k, c0, s, h, rate, &lat);
  if (st == FCD_E_NOMEM) {
    fprintf(stderr, "fcd: cannot build a %dx%d lattice: out of memory\n", nx, ny);
    return 1;
  }
  if (st != FCD_OK) {
    fprintf(stderr, "fcd: cannot build the lattice: %s (k > 0, c0 > 0, s >= 0, spacing > 0)\n",
            fcd_status_str(st));
    return 1;
  }
  int rc = 0;
  if (defect) {
    long node;
    double dx, dy;
    char tail;
    if (sscanf(defect, "%ld:%lf,%lf%c", &node, &dx, &dy, &tail) != 3) {
      fprintf(stderr, "fcd: --defect needs NODE:DX,DY, got '%s'\n", defect);
      fcd_lattice_destroy(lat);
      return 2;
    }
    const double d[2] = {dx, dy};
    if ((st = fcd_lattice_move_node(lat, node, d)) != FCD_OK) {
      fprintf(stderr, "fcd: --defect: %s\n", fcd_lattice_last_error(lat));
      fcd_lattice_destroy(lat);
      return 1;
    }
  }
  fcd_lattice_set_param(lat, FCD_LAT_METHOD,
                        strcmp(method, "reduced") == 0 ? FCD_LAT_REDUCED_DENSE : FCD_LAT_FULL_SPARSE);
  fcd_index n, m, q, dv;
  fcd_lattice_sizes(lat, &n, &m, &q);
  st = fcd_lattice_selfstress_dim(lat, &dv);
  if (st != FCD_OK) {
    fprintf(stderr, "fcd: %s (%s)\n", fcd_lattice_last_error(lat), fcd_status_str(st));
    rc = 1;
  } else if (count_only) {
    printf("nodes=%lld springs=%lld constraints=%lld selfstress_dim=%lld\n", (long long)n,
           (long long)m, (long long)q, (long long)dv);
  } else if (!out) {
    fprintf(stderr, "fcd: lattice needs --out DIR (or --count-only)\n");
    rc = 2;
  } else {
    rc = lattice_run(lat, out, dt, t_end);
  }
  fcd_lattice_destroy(lat);
  return rc;
}

/* The embedded default model: a clamped steel beam (1 m, 20 x 20 mm) whose analytic
 * frequencies are known, run through the same path as `fcd info`. */
static int cmd_demo(int argc, char **argv) {
  static const char *const allowed[] = {"--out", NULL};
  options o = {.out = "fcd-demo"};
  if (parse_options(argc, argv, &o, allowed)) return 2;
  if (out_mkdir(o.out)) return 1;
  const double length = 1.0, e = 210e9, rho = 7850.0, b = 0.02;
  const double ei = e * b * b * b * b / 12.0, rho_a = rho * b * b;
  const int nel = 40;
  beam_coo beam;
  if (beam_cantilever(nel, length, ei, rho_a, &beam) != 0) return fail(NULL, FCD_E_NOMEM, "demo");
  fcd_system *sys = NULL;
  fcd_status st = fcd_system_create(beam.ndofs, &sys);
  const fcd_index clamp[2] = {0, 1};
  if (st == FCD_OK)
    st = fcd_system_set_matrix_coo(sys, FCD_MASS, beam.nnz, beam.rows, beam.cols, beam.m,
                                   FCD_COO_UPPER);
  if (st == FCD_OK)
    st = fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, beam.nnz, beam.rows, beam.cols,
                                   beam.k, FCD_COO_UPPER);
  if (st == FCD_OK) st = fcd_system_fix_dofs(sys, 2, clamp, NULL);
  beam_free(&beam);
  char pm[4096], pk[4096], pf[4096], pr[4096];
  snprintf(pm, sizeof pm, "%s/M.mtx", o.out);
  snprintf(pk, sizeof pk, "%s/K.mtx", o.out);
  snprintf(pf, sizeof pf, "%s/fixed.txt", o.out);
  snprintf(pr, sizeof pr, "%s/frequencies.csv", o.out);
  if (st == FCD_OK) st = fcd_system_write_matrix_market(sys, FCD_MASS, pm);
  if (st == FCD_OK) st = fcd_system_write_matrix_market(sys, FCD_STIFFNESS, pk);
  if (st != FCD_OK) {
    fail(sys, st, "demo model");
    fcd_system_destroy(sys);
    return 1;
  }
  if (write_text(pf, "# clamped end of the demo beam: deflection and rotation\n0\n1\n")) {
    fprintf(stderr, "fcd: cannot write '%s'\n", pf);
    fcd_system_destroy(sys);
    return 1;
  }
  printf("fcd demo: clamped steel beam, L = %g m, %d Hermite elements, %lld dofs\n", length,
         nel, (long long)fcd_system_ndofs(sys));
  double freq[4];
  long nf = 0;
  int rc = report(sys, 4, freq, &nf);
  fcd_system_destroy(sys);
  if (rc) return rc;
  /* Euler-Bernoulli cantilever: omega_n = (beta_n L)^2 sqrt(EI / (rho A L^4)) */
  static const double beta_l[4] = {1.8751040687, 4.6940911330, 7.8547574382, 10.9955407349};
  FILE *csv = fopen(pr, "w");
  if (!csv) {
    fprintf(stderr, "fcd: cannot write '%s'\n", pr);
    return 1;
  }
  fprintf(csv, "mode,fcd_hz,analytic_hz,relative_error\n");
  printf("mode  fcd (Hz)        analytic (Hz)   relative error\n");
  for (long k = 0; k < nf; k++) {
    double fa = beta_l[k] * beta_l[k] * sqrt(ei / (rho_a * pow(length, 4))) / (2 * PI);
    printf("%-5ld %-15.6f %-15.6f %.2e\n", k + 1, freq[k], fa, fabs(freq[k] - fa) / fa);
    fprintf(csv, "%ld,%.12g,%.12g,%.6e\n", k + 1, freq[k], fa, fabs(freq[k] - fa) / fa);
  }
  fclose(csv);
  printf("fcd demo: wrote %s, %s, %s and %s\n", pm, pk, pf, pr);
  int npng = 0;
  rc = demo_examples(o.out, &npng);
  printf("fcd demo: %s; %d plots under %s/ (the full examples: examples/, docs/examples/)\n",
         rc ? "some parts FAILED" : "done", npng, o.out);
  return rc ? 1 : 0;
}

/* `fcd CMD --help`: the CMD block of the usage text (from its "  CMD " line to the next
 * command's); 0 when CMD has one */
static int usage_for(const char *cmd) {
  char *text = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&text, &len);
  if (!m) return 0;
  usage(m);
  fclose(m);
  size_t cl = strlen(cmd);
  int on = 0, found = 0;
  for (char *line = text; line && *line;) {
    char *nl = strchr(line, '\n');
    if (nl) *nl = 0;
    int is_cmd = line[0] == ' ' && line[1] == ' ' && line[2] != ' ' && line[2] != 0;
    if (is_cmd) on = strncmp(line + 2, cmd, cl) == 0 && (line[2 + cl] == ' ' || line[2 + cl] == 0);
    else if (line[0] != ' ') on = 0;
    if (on) {
      if (!found) printf("usage: fcd");
      printf("%s\n", found ? line : line + 1);
      found = 1;
    }
    line = nl ? nl + 1 : NULL;
  }
  free(text);
  if (found) printf("\n(every command: 'fcd help'; the manual: 'man fcd')\n");
  return found;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  const char *cmd = argv[1];
  int rc;
  /* `fcd CMD --help` prints CMD's usage; `--opt=value` is `--opt value` (GNU form) */
  for (int i = 2; i < argc; i++)
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      if (usage_for(cmd)) return 0;
      break;
    }
  char **av = malloc(2 * (size_t)argc * sizeof *av + sizeof *av);
  if (!av) {
    fprintf(stderr, "fcd: out of memory\n");
    return 1;
  }
  int ac = 0;
  for (int i = 0; i < argc; i++) {
    char *eq = i >= 2 && strncmp(argv[i], "--", 2) == 0 ? strchr(argv[i], '=') : NULL;
    if (eq) {
      *eq = 0; /* argv's strings are the program's to modify */
      av[ac++] = argv[i];
      av[ac++] = eq + 1;
    } else {
      av[ac++] = argv[i];
    }
  }
  av[ac] = NULL;
  argc = ac;
  argv = av;
  if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
    printf("fcd %s\nfeatures: %s\n", fcd_version_string(), fcd_features());
    rc = 0;
  } else if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
    if (argc >= 3 && usage_for(argv[2])) rc = 0;
    else usage(stdout), rc = 0;
  } else if (strcmp(cmd, "info") == 0) {
    rc = cmd_info(argc - 2, argv + 2);
  } else if (strcmp(cmd, "simulate") == 0) {
    rc = cmd_simulate(argc - 2, argv + 2);
  } else if (strcmp(cmd, "lattice") == 0) {
    rc = cmd_lattice(argc - 2, argv + 2);
  } else if (strcmp(cmd, "stability") == 0) {
    rc = cmd_stability(argc - 2, argv + 2);
  } else if (strcmp(cmd, "equilibrium") == 0) {
    rc = cmd_equilibrium(argc - 2, argv + 2);
  } else if (strcmp(cmd, "solve") == 0) {
    rc = cmd_solve(argc - 2, argv + 2);
  } else if (strcmp(cmd, "demo") == 0) {
    rc = cmd_demo(argc - 2, argv + 2);
  } else {
    fprintf(stderr, "fcd: unknown command '%s'\n\n", cmd);
    usage(stderr);
    rc = 2;
  }
  fcd_finalize();
  free(av);
  return rc;
}
