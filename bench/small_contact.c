/* Contact problems of one and two contacts, the contact solve of every step of a small
 * model (issue 69), in the same run as Siconos:
 *
 * 1. the pin on a flat (seed 000, Ex. 4.6 with Fig. 9's data: the model of `fcd demo`),
 *    mu = 2.2, h = 1e-3, started from steady sliding plus a tilt and run 20,000 steps
 *    onto its limit cycle: then N steps (default 10^5) of Moreau-Jean and of the
 *    modified theta method, the time per step (the fastest of 10 blocks);
 * 2. two local problems, each solved N times from zero by fcd's default (auto) and by
 *    every 2D solver of Siconos (nsgs, cpg, lemke, enum; the fastest kept), the time
 *    per call (the fastest of 10 blocks, both sides alike):
 *    - the pin's contact: W of Moreau-Jean's iteration matrix M + (h theta)^2 K on the
 *      free dofs, q of a step sliding against the flat (u_N = 0.003 approaching,
 *      u_T = -0.015), through fcd's global form;
 *    - Siconos' FC2D_SliderCrankLagrangian00000 (siconos/siconos,
 *      numerics/src/FrictionContact/test/data, Apache-2.0): two contacts of a
 *      slider-crank mechanism, mu = 0.01, both tangential rows of W alike.
 *
 * usage: small_contact [--steps N]
 * Prints `ratio small_contact_pin X` and `ratio small_contact_slider X` (fcd auto over
 * Siconos' fastest), and the details. */
#include <fcd/fcd.h>

#include "args.h"

#include "../tests/contact/slider_crank.h"
#include "../tests/periodic/pin_model.h"

#include <FrictionContactProblem.h>
#include <Friction_cst.h>
#include <NonSmoothDrivers.h>
#include <NumericsMatrix.h>
#include <SolverOptions.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* time per step of a scheme on the limit cycle, the fastest of 10 blocks of n / 10 */
static double pin_steps(fcd_scheme scheme, long n) {
  fcd_system *sys = NULL;
  fcd_contact_set *cs = NULL;
  fcd_equilibrium *eq = NULL;
  fcd_integrator *it = NULL;
  double u[4], v[4] = {0, 0, 0, 0}, best = INFINITY;
  fcd_status st = pin(2.2, &sys, &cs);
  if (st == FCD_OK) st = fcd_equilibrium_create(sys, cs, &eq);
  if (st == FCD_OK) st = fcd_equilibrium_solve(eq, FCD_EQ_STEADY_SLIDING, 0.0);
  if (st == FCD_OK) st = fcd_equilibrium_get_state(eq, u);
  u[1] += 1e-3;
  if (st == FCD_OK) st = fcd_integrator_create(sys, cs, scheme, &it);
  if (st == FCD_OK) st = fcd_integrator_set_param(it, FCD_PARAM_STEP, 1e-3);
  if (st == FCD_OK) st = fcd_integrator_set_state(it, 0.0, u, v);
  for (long k = 0; k < 20000 && st == FCD_OK; k++) st = fcd_integrator_step(it);
  for (int b = 0; b < 10 && st == FCD_OK; b++) {
    double t0 = now();
    for (long k = 0; k < n / 10 && st == FCD_OK; k++) st = fcd_integrator_step(it);
    best = fmin(best, (now() - t0) / (double)(n / 10));
  }
  if (st != FCD_OK) fprintf(stderr, "pin: %s\n", fcd_system_last_error(sys));
  fcd_integrator_destroy(it);
  fcd_equilibrium_destroy(eq);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
  return st == FCD_OK ? best : NAN;
}

/* the pin's contact problem of a Moreau-Jean step (theta = 1/2): M v = H r + f on the free
 * dofs (1, 2, 3) with M the iteration matrix, f = M v0 so that the free velocity is v0 */
static fcd_fc_problem *pin_problem(void) {
  const double h = 1e-3, th = 0.5, a = h * h * th * th;
  /* M and K on dofs 1..3 (full storage) */
  const double Mf[9] = {HM * HM + RM * RM, -HM, 0, -HM, 1, 0, 0, 0, 1};
  const double Kf[9] = {4 * RHO * RHO + HB * HB, -HB, 6 * RHO * RHO, -HB, 1, 0,
                        6 * RHO * RHO, 0, 12 * RHO * RHO};
  const double v0[3] = {0, -VG, 0.003};
  double A[9], f[3];
  fcd_index rp[4], ci[9];
  for (int i = 0; i < 3; i++) {
    rp[i] = 3 * i;
    f[i] = 0;
    for (int j = 0; j < 3; j++) {
      A[3 * i + j] = Mf[3 * i + j] + a * Kf[3 * i + j];
      ci[3 * i + j] = j;
    }
  }
  rp[3] = 9;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) f[i] += A[3 * i + j] * v0[j];
  /* H: dof 3 (index 2) is the normal, dof 2 (index 1) the tangent */
  const fcd_index hp[4] = {0, 0, 1, 2}, hc[2] = {1, 0};
  const double hv[2] = {1, 1}, w[2] = {0, 0}, mu = 2.2;
  fcd_fc_problem *p = NULL;
  char msg[256];
  if (fcd_fc_problem_create_global(2, 3, 1, rp, ci, A, FCD_COO_FULL, hp, hc, hv, f, w, &mu, &p,
                                   msg, sizeof msg) != FCD_OK)
    fprintf(stderr, "pin problem: %s\n", msg);
  return p;
}

static fcd_fc_problem *slider_problem(void) {
  fcd_index rp[5], ci[16];
  for (int i = 0; i < 4; i++) {
    rp[i] = 4 * i;
    for (int j = 0; j < 4; j++) ci[4 * i + j] = j;
  }
  rp[4] = 16;
  fcd_fc_problem *p = NULL;
  char msg[256];
  if (fcd_fc_problem_create_local(2, 2, rp, ci, SLIDER_W, SLIDER_Q, SLIDER_MU, &p, msg,
                                  sizeof msg) != FCD_OK)
    fprintf(stderr, "slider problem: %s\n", msg);
  return p;
}

/* Siconos' 2D problem (dense W, its sign convention) from fcd's local form */
static FrictionContactProblem *siconos_dense(fcd_fc_problem *f) {
  int nc = (int)fcd_fc_problem_size(f), m = 2 * nc;
  fcd_index nnz, rp[64], ci[4096];
  double v[4096], q[64], mu[32];
  if (m > 64 || fcd_fc_problem_local_nnz(f, &nnz) != FCD_OK || nnz > 4096) return NULL;
  fcd_fc_problem_get_local(f, rp, ci, v, q, mu);
  NumericsMatrix *W = NM_create(NM_DENSE, m, m);
  for (int k = 0; k < m * m; k++) W->matrix0[k] = 0;
  for (int i = 0; i < m; i++)
    for (fcd_index k = rp[i]; k < rp[i + 1]; k++) W->matrix0[i + m * ci[k]] = v[k];
  double *qs = malloc((size_t)m * sizeof *qs), *ms = malloc((size_t)nc * sizeof *ms);
  for (int i = 0; i < m; i++) qs[i] = -q[i];
  for (int c = 0; c < nc; c++) ms[c] = mu[c];
  return frictionContactProblem_new_with_data(2, nc, W, qs, ms);
}

/* fastest time per call of fcd's default from zero (the fastest of 10 blocks) */
static double fcd_calls(fcd_fc_problem *p, long n, double *res) {
  int m = 2 * (int)fcd_fc_problem_size(p);
  double r[64], best = INFINITY;
  fcd_status st = FCD_OK;
  for (int b = 0; b < 10 && st == FCD_OK; b++) {
    double t0 = now();
    for (long k = 0; k < n / 10 && st == FCD_OK; k++) {
      memset(r, 0, (size_t)m * sizeof *r);
      st = fcd_fc_problem_solve(p, r, NULL, NULL);
    }
    best = fmin(best, (now() - t0) / (double)(n / 10));
  }
  if (st != FCD_OK) {
    fprintf(stderr, "fcd: %s\n", fcd_fc_problem_last_error(p));
    return NAN;
  }
  fcd_fc_problem_residual(p, r, res);
  return best;
}

static double siconos_calls(fcd_fc_problem *f, FrictionContactProblem *s, int solver, long n,
                            double *res) {
  int m = 2 * s->numberOfContacts;
  SolverOptions *opt = solver_options_create(solver);
  opt->dparam[SICONOS_DPARAM_TOL] = 1e-8;
  opt->iparam[SICONOS_IPARAM_MAX_ITER] = 100000;
  double r[64], u[64], best = INFINITY;
  /* a solver far slower than a microsecond (Siconos' NSGS on the slider-crank: ms) gets
   * about two seconds in all rather than n calls */
  memset(r, 0, (size_t)m * sizeof *r);
  double t1 = now();
  fc2d_driver(s, r, u, opt);
  t1 = now() - t1;
  if (t1 * (double)n > 2.0) n = 10 * (long)fmax(1.0, 0.2 / t1);
  for (int b = 0; b < 10; b++) {
    double t0 = now();
    for (long k = 0; k < n / 10; k++) {
      memset(r, 0, (size_t)m * sizeof *r);
      memset(u, 0, (size_t)m * sizeof *u);
      fc2d_driver(s, r, u, opt);
    }
    best = fmin(best, (now() - t0) / (double)(n / 10));
  }
  for (int i = 0; i < m; i++) r[i] = -r[i]; /* to fcd's convention */
  fcd_fc_problem_residual(f, r, res);
  solver_options_delete(opt);
  return best;
}

static void compare(const char *name, fcd_fc_problem *p, long n) {
  static const struct {
    int id;
    const char *name;
  } peers[] = {{SICONOS_FRICTION_2D_NSGS, "nsgs"},
               {SICONOS_FRICTION_2D_CPG, "cpg"},
               {SICONOS_FRICTION_2D_LEMKE, "lemke"},
               {SICONOS_FRICTION_2D_ENUM, "enum"}};
  FrictionContactProblem *s = siconos_dense(p);
  double res, tf = fcd_calls(p, n, &res), best = INFINITY;
  const char *bname = "none";
  fcd_index it = 0;
  fcd_fc_problem_get_result(p, &it, NULL, NULL);
  printf("%s: fcd auto %.3f us a call (%lld iterations, residual %.1e)\n", name, 1e6 * tf,
         (long long)it, res);
  for (size_t k = 0; s && k < sizeof peers / sizeof *peers; k++) {
    double rs, ts = siconos_calls(p, s, peers[k].id, n, &rs);
    int ok = rs <= 1e-8;
    printf("  siconos %-6s %.3f us a call (residual %.1e%s)\n", peers[k].name, 1e6 * ts, rs,
           ok ? "" : ", not solved");
    if (ok && ts < best) {
      best = ts;
      bname = peers[k].name;
    }
  }
  printf("ratio small_contact_%s %.4f (fcd auto %.3f us, siconos %s %.3f us)\n", name,
         tf / best, 1e6 * tf, bname, 1e6 * best);
  if (s) frictionContactProblem_free(s);
}

int main(int argc, char **argv) {
  long n = 100000;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--steps") && i + 1 < argc) n = (long)bench_real(argv[0], "--steps", argv[++i], 10, 1e9);
    else {
      fprintf(stderr, "usage: small_contact [--steps N]\n");
      return 2;
    }
  }
  double mj = pin_steps(FCD_SCHEME_MOREAU_JEAN, n), mt = pin_steps(FCD_SCHEME_MODIFIED_THETA, n);
  printf("pin on a flat, %ld steps on the limit cycle: Moreau-Jean %.3f us a step, modified "
         "theta %.3f us a step\n", n, 1e6 * mj, 1e6 * mt);
  fcd_fc_problem *pp = pin_problem(), *sp = slider_problem();
  if (pp) compare("pin", pp, n);
  if (sp) compare("slider", sp, n);
  fcd_fc_problem_destroy(pp);
  fcd_fc_problem_destroy(sp);
  fcd_finalize();
  return 0;
}
