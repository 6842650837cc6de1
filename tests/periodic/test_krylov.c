/* Shooting by Newton-Krylov (FCD_PERIODIC_JACOBIAN_KRYLOV; docs/periodic.md, "Large
 * systems") against the dense differences, on Hoffmann's oscillator carrying a damped
 * elastic tail (tests/periodic/hoffmann_model.h): one contact and many linear dofs, as
 * in a reduced model.
 *
 * - 20 tail masses (86 state unknowns): the Krylov solve, forced, finds the dense
 *   solve's orbit (period to 1e-9, residual within the bound) and the multipliers of
 *   largest modulus (the first six to 1e-4: Arnoldi's Ritz values against LAPACK's
 *   eigenvalues of the dense monodromy) in fewer periods;
 * - 60 tail masses (246 unknowns): AUTO takes the Krylov path (above 200 unknowns); the
 *   orbit it finds returns to itself when integrated independently (N steps of T / N),
 *   its period is the long transient's (to 1e-6), and the transient's convergence onto
 *   it agrees with its multipliers (all inside the unit circle);
 * - the handle keeps the monodromy's products from one solve to the next: the same solve
 *   again on it takes fewer periods and finds the same orbit, and after the step is set
 *   again (products of another map) it takes exactly the cold solve's periods;
 * - bad parameters are refused by name. */
#include <fcd/fcd.h>

#include "../fcdtest.h"
#include "hoffmann_model.h"

#define H 2e-3
#define TEARLY 450.0

typedef struct {
  double period, amp;
  double *u, *v;
} ending;

/* a transient from steady sliding plus 1e-3 on y to t1; the period from v_y's upward
 * zero crossings over the last 50 time units, the state at the last one */
static void transient(fcd_system *sys, fcd_contact_set *cs, fcd_index n, double t1, ending *e) {
  fcd_equilibrium *eq = NULL;
  fcd_integrator *it = NULL;
  double *u = calloc((size_t)n, sizeof *u), *v = calloc((size_t)n, sizeof *v);
  e->u = calloc((size_t)n, sizeof *e->u);
  e->v = calloc((size_t)n, sizeof *e->v);
  CHECK_ST(fcd_equilibrium_create(sys, cs, &eq), FCD_OK);
  CHECK_ST(fcd_equilibrium_solve(eq, FCD_EQ_STEADY_SLIDING, 0.0), FCD_OK);
  CHECK_ST(fcd_equilibrium_get_state(eq, u), FCD_OK);
  fcd_equilibrium_destroy(eq);
  u[1] += 1e-3;
  CHECK_ST(fcd_integrator_create(sys, cs, FCD_SCHEME_MODIFIED_THETA, &it), FCD_OK);
  CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_STEP, H), FCD_OK);
  CHECK_ST(fcd_integrator_set_state(it, 0, u, v), FCD_OK);
  CHECK_ST(fcd_integrator_advance(it, t1 - 50), FCD_OK);
  double t = 0, vprev = 0, first = -1, last = -1, lo = INFINITY, hi = -INFINITY;
  int cross = 0;
  fcd_status st = FCD_OK;
  while (st == FCD_OK && t < t1 - H / 2) {
    st = fcd_integrator_step(it);
    if (st == FCD_OK) st = fcd_integrator_get_state(it, &t, u, v);
    lo = fmin(lo, u[1]);
    hi = fmax(hi, u[1]);
    if (vprev < 0 && v[1] >= 0) {
      double tc = t - H * v[1] / (v[1] - vprev);
      if (first < 0) first = tc;
      else cross++;
      last = tc;
      memcpy(e->u, u, sizeof *u * (size_t)n);
      memcpy(e->v, v, sizeof *v * (size_t)n);
    }
    vprev = v[1];
  }
  CHECK_ST(st, FCD_OK);
  e->period = cross > 0 ? (last - first) / cross : NAN;
  e->amp = 0.5 * (hi - lo);
  fcd_integrator_destroy(it);
  free(u);
  free(v);
}

typedef struct {
  fcd_periodic_info in;
  double re[512], im[512];
  fcd_index nm;
  double *u0, *v0;
} shot;

static fcd_status shoot(fcd_system *sys, fcd_contact_set *cs, fcd_index n, int jac,
                        const ending *e, shot *s) {
  fcd_periodic *p = NULL;
  s->u0 = calloc((size_t)n, sizeof *s->u0);
  s->v0 = calloc((size_t)n, sizeof *s->v0);
  fcd_status st = fcd_periodic_create(sys, cs, FCD_SCHEME_MODIFIED_THETA, &p);
  if (st == FCD_OK) st = fcd_periodic_set_param(p, FCD_PARAM_STEP, H);
  if (st == FCD_OK && jac >= 0) st = fcd_periodic_set_param(p, FCD_PERIODIC_PARAM_JACOBIAN, jac);
  if (st == FCD_OK) st = fcd_periodic_solve(p, e->u, e->v, e->period);
  if (st != FCD_OK) fprintf(stderr, "shooting: %s\n", fcd_system_last_error(sys));
  if (st == FCD_OK) st = fcd_periodic_get_info(p, &s->in);
  if (st == FCD_OK) st = fcd_periodic_get_multipliers(p, 512, s->re, s->im, &s->nm);
  if (st == FCD_OK) st = fcd_periodic_get_orbit(p, NULL, s->u0, s->v0);
  fcd_periodic_destroy(p);
  return st;
}

/* the orbit integrated independently (N steps of T / N) returns to its start */
static void returns(fcd_system *sys, fcd_contact_set *cs, fcd_index n, const shot *k) {
  fcd_integrator *it = NULL;
  double *u = calloc((size_t)n, sizeof *u), *v = calloc((size_t)n, sizeof *v);
  CHECK_ST(fcd_integrator_create(sys, cs, FCD_SCHEME_MODIFIED_THETA, &it), FCD_OK);
  CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_STEP, k->in.period / (double)k->in.steps),
           FCD_OK);
  CHECK_ST(fcd_integrator_set_state(it, 0, k->u0, k->v0), FCD_OK);
  for (fcd_index s = 0; s < k->in.steps; s++) CHECK_ST(fcd_integrator_step(it), FCD_OK);
  CHECK_ST(fcd_integrator_get_state(it, NULL, u, v), FCD_OK);
  double du = 0, dv = 0;
  for (fcd_index i = 0; i < n; i++) {
    du = fmax(du, fabs(u[i] - k->u0[i]));
    dv = fmax(dv, fabs(v[i] - k->v0[i]));
  }
  fprintf(stderr, "  after one period: |du| %.2e of %.3f, |dv| %.2e of %.3f\n", du,
          k->in.amplitude_u, dv, k->in.amplitude_v);
  CHECK(du <= 1e-9 * k->in.amplitude_u && dv <= 1e-9 * k->in.amplitude_v);
  fcd_integrator_destroy(it);
  free(u);
  free(v);
}

/* three solves from e on one handle: cold, warm (the first's products kept), cold again
 * after FCD_PARAM_STEP is set (which drops them) */
static void kept_products(fcd_system *sys, fcd_contact_set *cs, const ending *e, double Td) {
  fcd_periodic *p = NULL;
  fcd_periodic_info in[3];
  CHECK_ST(fcd_periodic_create(sys, cs, FCD_SCHEME_MODIFIED_THETA, &p), FCD_OK);
  CHECK_ST(fcd_periodic_set_param(p, FCD_PARAM_STEP, H), FCD_OK);
  CHECK_ST(fcd_periodic_set_param(p, FCD_PERIODIC_PARAM_JACOBIAN, FCD_PERIODIC_JACOBIAN_KRYLOV),
           FCD_OK);
  for (int r = 0; r < 3; r++) {
    if (r == 2) CHECK_ST(fcd_periodic_set_param(p, FCD_PARAM_STEP, H), FCD_OK);
    CHECK_ST(fcd_periodic_solve(p, e->u, e->v, e->period), FCD_OK);
    CHECK_ST(fcd_periodic_get_info(p, &in[r]), FCD_OK);
    CHECK(in[r].converged == 1 && in[r].residual <= 1e-9);
    CHECK(fabs(in[r].period / Td - 1) < 1e-6);
  }
  fprintf(stderr, "  one handle from t = %g: %ld periods cold, %ld with the products kept, "
          "%ld after the step is set again; T %.12f, %.12f, %.12f\n", TEARLY,
          (long)in[0].evaluations, (long)in[1].evaluations, (long)in[2].evaluations,
          in[0].period, in[1].period, in[2].period);
  CHECK(in[1].evaluations < in[0].evaluations);
  CHECK(in[2].evaluations == in[0].evaluations && in[2].period == in[0].period);
  fcd_periodic_destroy(p);
}

int main(void) {
  fcd_system *sys = NULL;
  fcd_contact_set *cs = NULL;

  /* 20 tail masses: Krylov against dense */
  CHECK_ST(hm_build(1, 0, 20, 0.05, 5.0, 0.40, &sys, &cs), FCD_OK);
  fcd_index n = fcd_system_ndofs(sys);
  ending e;
  transient(sys, cs, n, 700, &e);
  shot d, k;
  CHECK_ST(shoot(sys, cs, n, FCD_PERIODIC_JACOBIAN_DENSE, &e, &d), FCD_OK);
  CHECK_ST(shoot(sys, cs, n, FCD_PERIODIC_JACOBIAN_KRYLOV, &e, &k), FCD_OK);
  fprintf(stderr, "20 tail masses (%ld unknowns): dense T %.12f in %ld periods, Krylov T %.12f "
          "in %ld periods; residuals %.1e, %.1e; multipliers %ld and %ld\n",
          (long)(2 * n), d.in.period, (long)d.in.evaluations, k.in.period,
          (long)k.in.evaluations, d.in.residual, k.in.residual, (long)d.nm, (long)k.nm);
  CHECK(fabs(k.in.period / d.in.period - 1) < 1e-9);
  CHECK(k.in.residual <= 1e-9 && k.in.converged == 1);
  CHECK(d.nm == 2 * n && k.nm == 40);
  CHECK(k.in.evaluations < d.in.evaluations / 2);
  for (int i = 0; i < 6 && i < (int)k.nm; i++) {
    fprintf(stderr, "  multiplier %d: dense %+.6f%+.6fi, Arnoldi %+.6f%+.6fi\n", i, d.re[i],
            d.im[i], k.re[i], k.im[i]);
    /* conjugate pairs may come in either order */
    double best = INFINITY;
    for (int j = 0; j < 8; j++) best = fmin(best, hypot(k.re[i] - d.re[j], k.im[i] - d.im[j]));
    CHECK(best < 1e-4);
  }
  CHECK_CLOSE(k.in.max_multiplier, d.in.max_multiplier, 1e-4);
  /* from a state the transient has not yet brought onto the cycle, Newton needs several
   * iterations; after a long first GMRES the solver preconditions the next ones with the
   * monodromy's Arnoldi relation (docs/periodic.md). The orbit it finds returns to itself,
   * and its period is the one above but for the phase at which the discrete orbit starts
   * (here 9e-8: the solver's phase condition is set at the last iterate, and on this
   * oscillator discrete orbits of one cycle started at different phases differ by some
   * 1e-7, docs/periodic.md, Hoffmann's oscillator) */
  ending e2;
  shot k2;
  transient(sys, cs, n, TEARLY, &e2);
  CHECK_ST(shoot(sys, cs, n, FCD_PERIODIC_JACOBIAN_KRYLOV, &e2, &k2), FCD_OK);
  fprintf(stderr, "  from the transient at t = %g: Krylov T %.12f in %ld Newton iterations, "
          "%ld periods\n", TEARLY, k2.in.period, (long)k2.in.iterations, (long)k2.in.evaluations);
  CHECK(fabs(k2.in.period / d.in.period - 1) < 1e-6);
  CHECK(k2.in.residual <= 1e-9 && k2.in.converged == 1 && k2.in.iterations >= 3);
  returns(sys, cs, n, &k2);
  kept_products(sys, cs, &e2, d.in.period);
  free(e2.u); free(e2.v); free(k2.u0); free(k2.v0);
  free(e.u); free(e.v); free(d.u0); free(d.v0); free(k.u0); free(k.v0);
  /* refusals */
  fcd_periodic *p = NULL;
  CHECK_ST(fcd_periodic_create(sys, cs, FCD_SCHEME_MODIFIED_THETA, &p), FCD_OK);
  CHECK_ST(fcd_periodic_set_param(p, FCD_PERIODIC_PARAM_JACOBIAN, 3), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "FCD_PERIODIC_JACOBIAN_DENSE");
  CHECK_ST(fcd_periodic_set_param(p, FCD_PERIODIC_PARAM_KRYLOV_MAX, 0), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "Krylov basis cap");
  CHECK_ST(fcd_periodic_set_param(p, FCD_PERIODIC_PARAM_MULTIPLIERS, 2.5), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "number of multipliers");
  fcd_periodic_destroy(p);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);

  /* 60 tail masses: AUTO goes by Krylov; the orbit checked by an independent integration */
  CHECK_ST(hm_build(1, 0, 60, 0.05, 5.0, 0.40, &sys, &cs), FCD_OK);
  n = fcd_system_ndofs(sys);
  transient(sys, cs, n, 3000, &e); /* its slowest multipliers: 0.967 */
  CHECK_ST(shoot(sys, cs, n, -1, &e, &k), FCD_OK);
  fprintf(stderr, "60 tail masses (%ld unknowns), AUTO: T %.12f (transient %.12f) in %ld "
          "periods, %ld multipliers, the largest other %.4f, trivial off by %.1e, verdict %d\n",
          (long)(2 * n), k.in.period, e.period, (long)k.in.evaluations, (long)k.nm,
          k.in.max_multiplier, k.in.trivial_error, k.in.stable);
  CHECK(k.nm == 40 && k.in.evaluations < 200);
  CHECK(fabs(k.in.period / e.period - 1) < 1e-6);
  CHECK(k.in.max_multiplier < 1 && k.in.stable == 1);
  returns(sys, cs, n, &k);
  free(e.u); free(e.v); free(k.u0); free(k.v0);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
  return fcdt_finish("periodic/krylov");
}
