/* The pin on a flat of seed 000, Ex. 4.6 (Fig. 9's dimensionless data; the model of
 * `fcd demo`), shared by the periodic suite's tests and bench/small_contact: the model at a friction coefficient,
 * and a long transient of a scheme from steady sliding plus a tilt, with the period,
 * amplitude and a state of the limit cycle it settles on. */
#ifndef FCD_TESTS_PIN_MODEL_H
#define FCD_TESTS_PIN_MODEL_H

#include <fcd/fcd.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

static const double HB = 0.1, RHO = 0.07, HM = 0.05, RM = 0.15, WEIGHT = 0.01, VG = 0.015;

static inline fcd_status pin(double mu, fcd_system **sys, fcd_contact_set **cs) {
  const fcd_index r[8] = {0, 0, 0, 1, 1, 1, 2, 3}, c[8] = {0, 1, 2, 1, 2, 3, 2, 3};
  const double kv[8] = {1, HB, -1, 4 * RHO * RHO + HB * HB, -HB, 6 * RHO * RHO, 1, 12 * RHO * RHO};
  const fcd_index mr[5] = {0, 1, 1, 2, 3}, mc[5] = {0, 1, 2, 2, 3};
  const double mv[5] = {3, HM * HM + RM * RM, -HM, 1, 1}, f[4] = {0, 0, 0, WEIGHT};
  const fcd_index fixed = 0, dofs[2] = {2, 3};
  const double n[2] = {0, 1}, t[2] = {1, 0}, vg = VG;
  *cs = NULL;
  fcd_status st = fcd_system_create(4, sys);
  if (st == FCD_OK) st = fcd_system_set_matrix_coo(*sys, FCD_STIFFNESS, 8, r, c, kv, FCD_COO_UPPER);
  if (st == FCD_OK) st = fcd_system_set_matrix_coo(*sys, FCD_MASS, 5, mr, mc, mv, FCD_COO_UPPER);
  if (st == FCD_OK) st = fcd_system_set_load(*sys, f);
  if (st == FCD_OK) st = fcd_system_fix_dofs(*sys, 1, &fixed, NULL);
  if (st == FCD_OK) st = fcd_contact_set_create(*sys, 2, cs);
  if (st == FCD_OK) st = fcd_contact_set_add_rigid(*cs, dofs, n, t, 0.0, mu, NULL);
  if (st == FCD_OK) st = fcd_contact_set_set_sliding_velocity(*cs, 0, &vg);
  return st;
}

typedef struct {
  double period, amp;       /* the transient's period and u_theta half range */
  double u[4], v[4];        /* the state at the last u_N minimum in flight */
  int cycles;
} transient;

/* the long run of the scheme at step h from steady sliding plus a tilt */
static inline int run_transient(fcd_system *sys, fcd_contact_set *cs, fcd_scheme scheme, double h,
                         double tend, double tilt, transient *tr) {
  fcd_equilibrium *eq = NULL;
  fcd_integrator *it = NULL;
  double u[4], v[4] = {0, 0, 0, 0};
  fcd_status st = fcd_equilibrium_create(sys, cs, &eq);
  if (st == FCD_OK) st = fcd_equilibrium_solve(eq, FCD_EQ_STEADY_SLIDING, 0.0);
  if (st == FCD_OK) st = fcd_equilibrium_get_state(eq, u);
  fcd_equilibrium_destroy(eq);
  u[1] += tilt;
  if (st == FCD_OK) st = fcd_integrator_create(sys, cs, scheme, &it);
  if (st == FCD_OK) st = fcd_integrator_set_param(it, FCD_PARAM_STEP, h);
  if (st == FCD_OK) st = fcd_integrator_set_state(it, 0, u, v);
  long nst = (long)(tend / h), k0 = (long)(0.8 * nst);
  double vprev = 0, last = -1, sum = 0, lo = INFINITY, hi = -INFINITY, t = 0;
  tr->cycles = 0;
  for (long k = 0; k < nst && st == FCD_OK; k++) {
    st = fcd_integrator_step(it);
    if (st == FCD_OK) st = fcd_integrator_get_state(it, &t, u, v);
    if (st != FCD_OK || k < k0) {
      vprev = v[3];
      continue;
    }
    lo = fmin(lo, u[1]);
    hi = fmax(hi, u[1]);
    /* a minimum of u_N well into a flight (u_N < 0 is lift-off) */
    if (vprev < 0 && v[3] >= 0 && u[3] < -1e-3) {
      double tc = t - h * v[3] / (v[3] - vprev);
      if (last > 0) {
        sum += tc - last;
        tr->cycles++;
      }
      last = tc;
      memcpy(tr->u, u, sizeof u);
      memcpy(tr->v, v, sizeof v);
    }
    vprev = v[3];
  }
  if (st != FCD_OK) fprintf(stderr, "transient: %s\n", fcd_system_last_error(sys));
  fcd_integrator_destroy(it);
  tr->period = tr->cycles > 0 ? sum / tr->cycles : NAN;
  tr->amp = 0.5 * (hi - lo);
  return st == FCD_OK && tr->cycles >= 5;
}

#endif
