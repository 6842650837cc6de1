/* Periodic orbits by shooting (issue 68) on the pin on a flat of seed 000, Ex. 4.6 (the
 * model of `fcd demo`: dimensionless, dofs u_D (held), u_theta, u_T, u_N, the flat sliding
 * under the pin at 0.015, Fig. 9 data; flutter of steady sliding for 1.7357 < mu < 60.03).
 *
 * The reference is the scheme itself, run long: from the steady sliding state plus a
 * 1e-2 tilt the modified theta scheme (h = 1e-3) grows the flutter into a stick-slip limit
 * cycle with lift-off and impacts; after 300 time units (50 cycles; the cycle contracts
 * perturbations by half a period) its period (the mean spacing of the u_N minima of the
 * last 20 %, located by linear interpolation of v_N's zero) and the half range of u_theta
 * over the same window are the transient's. Shooting
 * from one of those states with that period must return the same orbit: period and
 * amplitude within 1e-6 relative (the figure), a residual at round-off, the
 * trivial multiplier within 1e-3 of 1, and the other multipliers inside the unit circle
 * (the transient did settle on it: a stable orbit). Then the same for Moreau-Jean, whose
 * step map jumps at activation: the solve must fail honestly, keeping its best iterate.
 * And every refusal. */
#include <fcd/fcd.h>

#include "../fcdtest.h"
#include "pin_model.h"

static void orbit_against_transient(double mu) {
  fcd_system *sys = NULL;
  fcd_contact_set *cs = NULL;
  fcd_periodic *p = NULL;
  transient tr;
  CHECK_ST(pin(mu, &sys, &cs), FCD_OK);
  CHECK(run_transient(sys, cs, FCD_SCHEME_MODIFIED_THETA, 1e-3, 300, 1e-2, &tr));
  CHECK_ST(fcd_periodic_create(sys, cs, FCD_SCHEME_MODIFIED_THETA, &p), FCD_OK);
  CHECK_ST(fcd_periodic_set_param(p, FCD_PARAM_STEP, 1e-3), FCD_OK);
  fcd_status st = fcd_periodic_solve(p, tr.u, tr.v, tr.period);
  CHECK_ST(st, FCD_OK);
  if (st != FCD_OK) fprintf(stderr, "mu = %g: %s\n", mu, fcd_system_last_error(sys));
  fcd_periodic_info in;
  double umin[4], umax[4], T = 0, re[6], im[6];
  fcd_index nm = 0;
  CHECK_ST(fcd_periodic_get_info(p, &in), FCD_OK);
  CHECK_ST(fcd_periodic_get_orbit(p, &T, NULL, NULL), FCD_OK);
  CHECK_ST(fcd_periodic_get_range(p, umin, umax), FCD_OK);
  double amp = 0.5 * (umax[1] - umin[1]);
  fprintf(stderr, "mu = %g: transient T %.12g amp %.12g (%d cycles); shooting T %.12g amp "
          "%.12g, N %lld, %lld iterations, residual %.2e, trivial multiplier error %.2e, "
          "largest other %.4f\n", mu, tr.period, tr.amp, tr.cycles, T, amp,
          (long long)in.steps, (long long)in.iterations, in.residual, in.trivial_error,
          in.max_multiplier);
  CHECK(in.converged == 1);
  CHECK(fabs(T / tr.period - 1) < 1e-6);
  CHECK(fabs(amp / tr.amp - 1) < 1e-6);
  CHECK(in.residual <= 1e-9);
  CHECK(in.steps == (fcd_index)nearbyint(tr.period / 1e-3));
  CHECK_ST(fcd_periodic_get_multipliers(p, 6, re, im, &nm), FCD_OK);
  CHECK(nm == 6);
  CHECK(in.trivial_error < 1e-3);
  CHECK(in.stable == 1);
  CHECK(in.max_multiplier < 1);
  /* sorted by modulus; the trivial one is the largest of a stable orbit */
  for (fcd_index i = 1; i < nm; i++) CHECK(hypot(re[i], im[i]) <= hypot(re[i - 1], im[i - 1]));
  CHECK(fabs(hypot(re[0] - 1, im[0]) - in.trivial_error) < 1e-15);
  fcd_periodic_destroy(p);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
}

/* Moreau-Jean's map jumps where the predicted gap closes: Newton stalls above the
 * tolerance and says so, keeping its best iterate (better than the guess) */
static void moreau_jean_stalls(void) {
  fcd_system *sys = NULL;
  fcd_contact_set *cs = NULL;
  fcd_periodic *p = NULL;
  transient tr;
  CHECK_ST(pin(2.2, &sys, &cs), FCD_OK);
  CHECK(run_transient(sys, cs, FCD_SCHEME_MOREAU_JEAN, 2e-3, 200, 1e-2, &tr));
  CHECK_ST(fcd_periodic_create(sys, cs, FCD_SCHEME_MOREAU_JEAN, &p), FCD_OK);
  CHECK_ST(fcd_periodic_set_param(p, FCD_PARAM_STEP, 2e-3), FCD_OK);
  CHECK_ST(fcd_periodic_set_param(p, FCD_PERIODIC_PARAM_MAX_ITER, 20), FCD_OK);
  CHECK_ST(fcd_periodic_solve(p, tr.u, tr.v, tr.period), FCD_E_NOT_CONVERGED);
  CHECK_MSG(sys, "activation test");
  fcd_periodic_info in;
  double T = 0, re[6], im[6];
  fcd_index nm = 0;
  CHECK_ST(fcd_periodic_get_info(p, &in), FCD_OK);
  CHECK(in.converged == 0);
  CHECK(in.residual > 1e-9 && in.residual < 1e-2);
  CHECK_ST(fcd_periodic_get_orbit(p, &T, NULL, NULL), FCD_OK);
  CHECK(fabs(T / tr.period - 1) < 1e-3);
  CHECK_ST(fcd_periodic_get_multipliers(p, 6, re, im, &nm), FCD_E_STATE);
  fcd_periodic_destroy(p);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
}

static int unit_load(void *ud, double t, fcd_index n, double *f) {
  (void)ud;
  (void)t;
  for (fcd_index i = 0; i < n; i++) f[i] = 0;
  return 0;
}

static void refusals(void) {
  fcd_system *sys = NULL;
  fcd_contact_set *cs = NULL;
  fcd_periodic *p = NULL;
  CHECK_ST(pin(2.2, &sys, &cs), FCD_OK);
  CHECK_ST(fcd_periodic_create(sys, cs, FCD_SCHEME_MODIFIED_THETA, NULL), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_periodic_create(sys, cs, FCD_SCHEME_QUASISTATIC, &p), FCD_E_INVALID_ARG);
  CHECK(p == NULL);
  CHECK_ST(fcd_periodic_create(NULL, cs, FCD_SCHEME_MODIFIED_THETA, &p), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_periodic_create(sys, cs, FCD_SCHEME_MODIFIED_THETA, &p), FCD_OK);
  fcd_periodic_info in;
  double u[4] = {0, 0, 0, -1e-3}, v[4] = {0, 0.1, 0, 0}, T;
  CHECK_ST(fcd_periodic_get_info(p, &in), FCD_E_STATE);
  CHECK_ST(fcd_periodic_get_orbit(p, &T, NULL, NULL), FCD_E_STATE);
  CHECK_ST(fcd_periodic_solve(p, u, v, 6.0), FCD_E_STATE);
  CHECK_MSG(sys, "FCD_PARAM_STEP");
  CHECK_ST(fcd_periodic_set_param(p, FCD_PARAM_STEP, -1), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_periodic_set_param(p, FCD_PERIODIC_PARAM_TOL, 0), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_periodic_set_param(p, FCD_PERIODIC_PARAM_MAX_ITER, 2.5), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_periodic_set_param(p, FCD_PERIODIC_PARAM_FD_STEP, 0.5), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_periodic_set_param(p, 9999, 1), FCD_E_UNSUPPORTED);
  CHECK_ST(fcd_periodic_set_param(p, FCD_PARAM_THETA, 2), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_periodic_set_param(p, FCD_PARAM_STEP, 1e-2), FCD_OK);
  CHECK_ST(fcd_periodic_solve(p, NULL, v, 6.0), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_periodic_solve(p, u, v, 0), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_periodic_solve(p, u, v, NAN), FCD_E_INVALID_ARG);
  /* a guess deeper inside the obstacle than a step of the scheme sinks (2 h max|v| =
   * 2e-3 here) is refused */
  double pen[4] = {0, 0, 0, 1e-2};
  CHECK_ST(fcd_periodic_solve(p, pen, v, 6.0), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "penetrates");
  CHECK_MSG(sys, "more than a step of the scheme sinks");
  /* the steady sliding state itself: no motion, periodic with any period */
  fcd_equilibrium *eq = NULL;
  double us[4], vs[4] = {0, 0, 0, 0};
  CHECK_ST(fcd_equilibrium_create(sys, cs, &eq), FCD_OK);
  CHECK_ST(fcd_equilibrium_solve(eq, FCD_EQ_STEADY_SLIDING, 0.0), FCD_OK);
  CHECK_ST(fcd_equilibrium_get_state(eq, us), FCD_OK);
  fcd_equilibrium_destroy(eq);
  CHECK_ST(fcd_periodic_solve(p, us, vs, 6.0), FCD_E_NOT_CONVERGED);
  CHECK_MSG(sys, "equilibrium");
  fcd_index nm;
  CHECK_ST(fcd_periodic_get_multipliers(p, 0, NULL, NULL, &nm), FCD_E_STATE);
  CHECK_ST(fcd_periodic_get_multipliers(p, 2, NULL, NULL, &nm), FCD_E_INVALID_ARG);
  fcd_periodic_destroy(p);
  fcd_periodic_destroy(NULL);
  /* time-dependent data: not autonomous */
  CHECK_ST(fcd_system_set_load_fn(sys, unit_load, NULL), FCD_OK);
  CHECK_ST(fcd_periodic_create(sys, cs, FCD_SCHEME_MODIFIED_THETA, &p), FCD_E_UNSUPPORTED);
  CHECK_MSG(sys, "autonomous");
  CHECK(p == NULL);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
}

int main(void) {
  refusals();
  /* below the period doubling near mu = 3, where a multiplier nears -1 (the figures at
   * 2.2 and 2.8 are in docs/periodic.md) */
  const double mus[] = {1.9, 2.5};
  for (int k = 0; k < 2; k++) orbit_against_transient(mus[k]);
  moreau_jean_stalls();
  return fcdt_finish("periodic/pin_orbit");
}
