/* The cost of one integrator step on a large 2D elastic block, in units of one solve
 * with the CHOLMOD factor of the same iteration matrix, measured in the same run.
 *
 * The block: plane strain, linear triangles, nx x ny cells of a 1 m x 1 m square
 * (default 100 x 100: 20,402 dofs), consistent mass, E = 1e7 Pa, nu = 0.3,
 * rho = 1000 kg/m^3, gravity. Its bottom row of nodes (nx + 1 contacts) touches a rigid
 * floor with mu = 0.3; it starts undeformed on the floor sliding at 0.5 m/s, so gravity
 * keeps the contacts closed and friction decelerates it (mu g: it slides for 0.17 s,
 * longer than the measured steps), the costly case of a step: every contact in the
 * local problem. The step cost excludes the first step (factorization and the Delassus
 * operator of every contact, reported separately: the fastest of five on fresh copies of
 * the model, alternating with CHOLMOD's analysis and factorization, and the process' own
 * first, which pays the first touch of its pages).
 *
 * usage: step_cost [--nx N] [--ny N] [--steps N] [--scheme mj|fremond|mtheta] [--output DIR]
 * Prints `ratio step_vs_cholmod_solve X` (target <= 3), `ratio
 * first_step_beyond_factor_vs_solve Y` (the first step less CHOLMOD's own analysis and
 * factorization of the same matrix, in solves: the Delassus operator of every contact,
 * the contact dofs' ordering, the step) and details on stderr.
 *
 * --output DIR then measures what a ParaView time series (fcd_series, issue 67) adds to
 * the steps: blocks of plain steps, of steps writing a frame after each, and of steps
 * writing one every 10, alternating, the fastest block of each; and, beside them, one
 * legacy ASCII file of the same fields (fcd_mesh_write_vtk) per frame. Frames go to DIR
 * (which must exist). */
#include <fcd/fcd.h>

#include "args.h"

#include "fcd_private.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void die(const char *what, fcd_system *sys, fcd_status st) {
  fprintf(stderr, "step_cost: %s: %s (%s)\n", what, fcd_status_str(st),
          sys ? fcd_system_last_error(sys) : "");
  exit(1);
}

#define TRY(what, call)                                                                \
  do {                                                                                 \
    fcd_status st_ = (call);                                                           \
    if (st_ != FCD_OK) die(what, sys, st_);                                            \
  } while (0)

/* the block's triangles, as step_cost's element loop makes them */
static fcd_mesh *block_mesh(fcd_system *sys, int nx, int ny) {
  fcd_index nn = (fcd_index)(nx + 1) * (ny + 1);
  double *xy = malloc(2 * (size_t)nn * sizeof *xy);
  fcd_index *tri = malloc(6 * (size_t)nx * (size_t)ny * sizeof *tri);
  for (fcd_index k = 0; k < nn; k++) {
    xy[2 * k] = (double)(k % (nx + 1)) / nx;
    xy[2 * k + 1] = (double)(k / (nx + 1)) / ny;
  }
  size_t q = 0;
  for (int j = 0; j < ny; j++)
    for (int i = 0; i < nx; i++) {
      fcd_index a = (fcd_index)j * (nx + 1) + i, b = a + 1, cc = a + nx + 1, dd = cc + 1;
      fcd_index t6[6] = {a, b, dd, a, dd, cc};
      for (int k = 0; k < 6; k++) tri[q++] = t6[k];
    }
  fcd_mesh *m = NULL;
  if (fcd_mesh_create(sys, 2, nn, xy, NULL, &m) == FCD_OK &&
      fcd_mesh_add_cells(m, FCD_VTK_TRIANGLE, 2 * (fcd_index)nx * ny, tri) != FCD_OK) {
    fcd_mesh_destroy(m);
    m = NULL;
  }
  free(xy);
  free(tri);
  return m;
}

/* --output: blocks of `per` steps, plain (0), a frame after each (1), a frame every 10
 * (2), a frame after each written within the call (3, fcd_series_set_async 0),
 * alternating; the fastest block of each, per step, the last frame's flush included */
static void output_cost(fcd_system *sys, fcd_contact_set *cs, fcd_integrator *it, int nx,
                        int ny, int per, const char *dir) {
  fcd_mesh *m = block_mesh(sys, nx, ny);
  fcd_series *s = NULL;
  if (!m) die("mesh", sys, FCD_E_INTERNAL);
  TRY("series", fcd_series_create(m, cs, dir, "block", &s));
  double best[4] = {INFINITY, INFINITY, INFINITY, INFINITY};
  for (int blk = 0; blk < 10; blk++)
    for (int kind = 0; kind < 4; kind++) {
      TRY("async", fcd_series_set_async(s, kind != 3));
      double t0 = now();
      for (int k = 1; k <= per; k++) {
        TRY("step", fcd_integrator_step(it));
        if ((kind == 1 || kind == 3) || (kind == 2 && k % 10 == 0))
          TRY("frame", fcd_series_write_integrator(s, it));
      }
      TRY("flush", fcd_series_flush(s));
      best[kind] = fmin(best[kind], (now() - t0) / per);
    }
  fcd_index nfr = 0;
  double bytes = 0;
  TRY("info", fcd_series_get_info(s, &nfr, &bytes));
  /* the legacy ASCII file of the same displacement, velocity and status, per frame */
  fcd_index n = fcd_system_ndofs(sys), nc = fcd_contact_set_size(cs);
  double *u = malloc((size_t)n * sizeof *u), *v = malloc((size_t)n * sizeof *v), tt;
  int *st = malloc((size_t)nc * sizeof *st);
  TRY("state", fcd_integrator_get_state(it, &tt, u, v));
  TRY("status", fcd_integrator_get_contact_status(it, st));
  const char *names[2] = {"displacement", "velocity"};
  const double *fields[2] = {u, v};
  char path[4200];
  snprintf(path, sizeof path, "%s/legacy.vtk", dir);
  double legacy = INFINITY;
  for (int r = 0; r < 5; r++) {
    double t0 = now();
    TRY("legacy", fcd_mesh_write_vtk(m, path, 2, names, fields, cs, st));
    legacy = fmin(legacy, now() - t0);
  }
  FILE *fp = fopen(path, "rb");
  long lsize = -1;
  if (fp && fseek(fp, 0, SEEK_END) == 0) lsize = ftell(fp);
  if (fp) fclose(fp);
  fprintf(stderr, "  output: %lld frames, %.2f MB each; a step alone %.3f ms, with a frame "
          "after each %.3f ms (+%.1f %%), with one every 10 steps %.3f ms (+%.1f %%); a "
          "frame written within the call %.3f ms (+%.1f %%); the legacy ASCII file of the "
          "same fields %.3f ms, %.2f MB\n",
          (long long)nfr, bytes / (double)nfr / 1e6, 1e3 * best[0], 1e3 * best[1],
          100 * (best[1] / best[0] - 1), 1e3 * best[2], 100 * (best[2] / best[0] - 1),
          1e3 * (best[3] - best[0]), 100 * (best[3] / best[0] - 1), 1e3 * legacy,
          (double)lsize / 1e6);
  printf("ratio output_every_step %.3f\nratio output_every_10 %.3f\n"
         "ratio output_every_step_within_call %.3f\n", best[1] / best[0], best[2] / best[0],
         best[3] / best[0]);
  free(u);
  free(v);
  free(st);
  fcd_series_destroy(s);
  fcd_mesh_destroy(m);
}

/* the block's assembled arrays, from which fresh copies of the model are made */
typedef struct {
  fcd_index n, ne;
  int nx;
  const fcd_index *ri, *ci;
  const double *kv, *mv, *f, *u, *v;
  double h, theta;
  fcd_scheme scheme;
} block_def;

static void block_system(const block_def *b, fcd_system **sys_out, fcd_contact_set **cs_out) {
  fcd_system *sys = NULL;
  TRY("create", fcd_system_create(b->n, &sys));
  TRY("stiffness", fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, b->ne, b->ri, b->ci, b->kv,
                                             FCD_COO_UPPER));
  TRY("mass", fcd_system_set_matrix_coo(sys, FCD_MASS, b->ne, b->ri, b->ci, b->mv,
                                        FCD_COO_UPPER));
  TRY("load", fcd_system_set_load(sys, b->f));
  fcd_contact_set *cs = NULL;
  TRY("contact set", fcd_contact_set_create(sys, 2, &cs));
  const double nrm[2] = {0, -1}, tan[2] = {1, 0};
  for (int i = 0; i <= b->nx; i++) {
    fcd_index dofs[2] = {2 * i, 2 * i + 1};
    TRY("contact", fcd_contact_set_add_rigid(cs, dofs, nrm, tan, 0.0, 0.3, NULL));
  }
  *sys_out = sys;
  *cs_out = cs;
}

static fcd_integrator *block_integrator(const block_def *b, fcd_system *sys,
                                        fcd_contact_set *cs) {
  fcd_integrator *it = NULL;
  TRY("integrator", fcd_integrator_create(sys, cs, b->scheme, &it));
  TRY("step", fcd_integrator_set_param(it, FCD_PARAM_STEP, b->h));
  TRY("theta", fcd_integrator_set_param(it, FCD_PARAM_THETA, b->theta));
  TRY("tolerance", fcd_integrator_set_param(it, FCD_PARAM_TOLERANCE, 1e-8));
  TRY("state", fcd_integrator_set_state(it, 0, b->u, b->v));
  return it;
}

int main(int argc, char **argv) {
  int nx = 100, ny = 100, steps = 200;
  const char *outdir = NULL;
  fcd_scheme scheme = FCD_SCHEME_MOREAU_JEAN;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--nx") && i + 1 < argc) nx = bench_int(argv[0], "--nx", argv[++i], 1, 100000);
    else if (!strcmp(argv[i], "--ny") && i + 1 < argc) ny = bench_int(argv[0], "--ny", argv[++i], 1, 100000);
    else if (!strcmp(argv[i], "--steps") && i + 1 < argc) steps = bench_int(argv[0], "--steps", argv[++i], 1, 1000000000);
    else if (!strcmp(argv[i], "--output") && i + 1 < argc) outdir = argv[++i];
    else if (!strcmp(argv[i], "--scheme") && i + 1 < argc) {
      const char *s = argv[++i];
      scheme = !strcmp(s, "fremond")  ? FCD_SCHEME_FREMOND
               : !strcmp(s, "mtheta") ? FCD_SCHEME_MODIFIED_THETA
                                      : FCD_SCHEME_MOREAU_JEAN;
    } else {
      fprintf(stderr, "usage: step_cost [--nx N] [--ny N] [--steps N] "
                      "[--scheme mj|fremond|mtheta] [--output DIR]\n");
      return 2;
    }
  }
  const double E = 1e7, nu = 0.3, rho = 1000, Lx = 1, Ly = 1, g = 9.81;
  const double hx = Lx / nx, hy = Ly / ny;
  fcd_index nn = (fcd_index)(nx + 1) * (ny + 1), n = 2 * nn;
  /* plane strain elasticity */
  double c = E / ((1 + nu) * (1 - 2 * nu));
  double D[3][3] = {{c * (1 - nu), c * nu, 0}, {c * nu, c * (1 - nu), 0},
                    {0, 0, c * (1 - 2 * nu) / 2}};
  size_t cap = (size_t)nx * ny * 2 * 21;
  fcd_index *ri = malloc(cap * sizeof *ri), *ci = malloc(cap * sizeof *ci);
  double *kv = malloc(cap * sizeof *kv), *mv = malloc(cap * sizeof *mv);
  size_t ne = 0;
  double *f = calloc((size_t)n, sizeof *f);
  for (int j = 0; j < ny; j++)
    for (int i = 0; i < nx; i++) {
      fcd_index a = (fcd_index)j * (nx + 1) + i, b = a + 1, cc = a + nx + 1, dd = cc + 1;
      fcd_index tri[2][3] = {{a, b, dd}, {a, dd, cc}};
      for (int t = 0; t < 2; t++) {
        double x[3], y[3];
        for (int k = 0; k < 3; k++) {
          x[k] = (double)(tri[t][k] % (nx + 1)) * hx;
          y[k] = (double)(tri[t][k] / (nx + 1)) * hy;
        }
        double A2 = (x[1] - x[0]) * (y[2] - y[0]) - (x[2] - x[0]) * (y[1] - y[0]);
        double A = 0.5 * A2;
        double bb[3] = {y[1] - y[2], y[2] - y[0], y[0] - y[1]};
        double gg[3] = {x[2] - x[1], x[0] - x[2], x[1] - x[0]};
        double B[3][6] = {{0}};
        for (int k = 0; k < 3; k++) {
          B[0][2 * k] = bb[k] / A2;
          B[1][2 * k + 1] = gg[k] / A2;
          B[2][2 * k] = gg[k] / A2;
          B[2][2 * k + 1] = bb[k] / A2;
        }
        for (int p = 0; p < 6; p++)
          for (int q = p; q < 6; q++) {
            double s = 0;
            for (int r = 0; r < 3; r++)
              for (int u = 0; u < 3; u++) s += B[r][p] * D[r][u] * B[u][q];
            fcd_index dp = 2 * tri[t][p / 2] + p % 2, dq = 2 * tri[t][q / 2] + q % 2;
            double m = (p % 2 == q % 2) ? rho * A / 12.0 * (p / 2 == q / 2 ? 2 : 1) : 0;
            ri[ne] = dp < dq ? dp : dq;
            ci[ne] = dp < dq ? dq : dp;
            kv[ne] = s * A;
            mv[ne] = m;
            ne++;
          }
        for (int k = 0; k < 3; k++) f[2 * tri[t][k] + 1] -= rho * A * g / 3;
      }
    }
  double *u = calloc((size_t)n, sizeof *u), *v = calloc((size_t)n, sizeof *v);
  for (fcd_index k = 0; k < nn; k++) {
    v[2 * k] = 0.5;
    v[2 * k + 1] = 0.0;
  }
  const double h = 1e-4, theta = 0.5;
  const block_def bd = {n, (fcd_index)ne, nx, ri, ci, kv, mv, f, u, v, h, theta, scheme};
  fcd_system *sys = NULL;
  fcd_contact_set *cs = NULL;
  block_system(&bd, &sys, &cs);
  fcd_integrator *it = block_integrator(&bd, sys, cs);
  double t0 = now();
  TRY("first step", fcd_integrator_step(it));
  double first_cold = now() - t0;
  /* one solve with a CHOLMOD factor of the same matrix M + h theta C + h^2 theta^2 K */
  fcd__factor *fac = NULL;
  t0 = now();
  TRY("factor", fcd__factor_create(sys, FCD__FACTOR_SPD, &fac));
  TRY("factor", fcd__factor_combination(fac, 1.0, h * theta, h * h * theta * theta));
  double factor_cold = now() - t0; /* CHOLMOD's own analysis and factorization */
  /* The process' first step pays its first touch of every page it allocates, which the
   * factorization after it may find in the heap already: both again on fresh copies of
   * the model (system, contacts, integrator), alternating, the fastest of each. */
  double first = INFINITY, factor = INFINITY;
  for (int r = 0; r < 5; r++) {
    fcd_system *s2 = NULL;
    fcd_contact_set *c2 = NULL;
    block_system(&bd, &s2, &c2);
    fcd_integrator *i2 = block_integrator(&bd, s2, c2);
    t0 = now();
    TRY("first step", fcd_integrator_step(i2));
    first = fmin(first, now() - t0);
    fcd__factor *f2 = NULL;
    t0 = now();
    TRY("factor", fcd__factor_create(s2, FCD__FACTOR_SPD, &f2));
    TRY("factor", fcd__factor_combination(f2, 1.0, h * theta, h * h * theta * theta));
    factor = fmin(factor, now() - t0);
    fcd__factor_destroy(f2);
    fcd_integrator_destroy(i2);
    fcd_contact_set_destroy(c2);
    fcd_system_destroy(s2);
  }
  fcd_index nf = fcd__factor_size(fac);
  double *b = malloc((size_t)nf * sizeof *b);
  for (fcd_index k = 0; k < nf; k++) b[k] = sin(0.1 * (double)k);
  /* steps and solves alternate in blocks; the fastest block of each is kept, the
   * estimate least disturbed by other load on a shared machine */
  const int blocks = 10, per = steps / blocks > 0 ? steps / blocks : 1;
  double per_step = INFINITY, per_solve = INFINITY;
  for (int blk = 0; blk < blocks; blk++) {
    t0 = now();
    for (int s = 0; s < per; s++) TRY("step", fcd_integrator_step(it));
    per_step = fmin(per_step, (now() - t0) / per);
    t0 = now();
    for (int s = 0; s < per; s++) TRY("solve", fcd__factor_solve(fac, 1, b, b));
    per_solve = fmin(per_solve, (now() - t0) / per);
  }
  int *status = malloc((size_t)(nx + 1) * sizeof *status);
  TRY("status", fcd_integrator_get_contact_status(it, status));
  int open = 0, stick = 0, slip = 0;
  for (int i = 0; i <= nx; i++) {
    open += status[i] == FCD_CONTACT_OPEN;
    stick += status[i] == FCD_CONTACT_STICK;
    slip += status[i] == FCD_CONTACT_SLIP;
  }
  fprintf(stderr,
          "step_cost: %lld dofs, %d contacts (last step: %d open, %d stick, %d slip), "
          "%d steps in %d blocks\n  first step %.4f s (%.1f solves), step %.3e s, solve %.3e s\n"
          "  CHOLMOD's analysis and factorization of the same matrix %.4f s (%.1f solves)\n"
          "  the process' first: first step %.4f s, CHOLMOD's analysis and factorization after "
          "it %.4f s (%.1f solves apart)\n",
          (long long)n, nx + 1, open, stick, slip, blocks * per, blocks, first, first / per_solve, per_step,
          per_solve, factor, factor / per_solve, first_cold, factor_cold,
          (first_cold - factor_cold) / per_solve);
  printf("ratio step_vs_cholmod_solve %.3f\n", per_step / per_solve);
  printf("ratio first_step_beyond_factor_vs_solve %.3f\n", (first - factor) / per_solve);
  if (outdir) output_cost(sys, cs, it, nx, ny, per, outdir);
  fcd__factor_destroy(fac);
  fcd_integrator_destroy(it);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
  free(ri);
  free(ci);
  free(kv);
  free(mv);
  free(f);
  free(u);
  free(v);
  free(b);
  free(status);
  fcd_finalize();
  return 0;
}
