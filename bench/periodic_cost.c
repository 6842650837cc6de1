/* A periodic orbit's cost against the transient that reaches it, on the pin on a flat
 * (seed 000, Ex. 4.6: the model of `fcd demo`; docs/performance.md, "Periodic
 * responses"). At mu = 2.2, modified theta, h = 1e-3 (6,000 steps a period):
 * - the transient from steady sliding plus a 1e-6 tilt (as tests/periodic/test_pin_orbit),
 *   its cycles' u_theta half ranges (between successive minima of u_N in flight): the time
 *   from which every cycle stays within 1 % of the orbit's, and the steps' cost to there;
 * - the orbit by shooting from the transient's last state (dense Jacobian: 6 state
 *   unknowns), its time and periods;
 * - the branch towards mu = 1.8 by fcd_periodic_continue (dmu = 0.05): time and periods a
 *   point.
 * Prints each figure and `ratio periodic_point_pin X` (a continuation point's time over
 * the transient's to the orbit).
 *
 *   periodic_cost [--tend T] */
#include <fcd/fcd.h>

#include "args.h"
#include "../tests/periodic/pin_model.h"

#include <stdlib.h>
#include <time.h>

#define H 1e-3
#define MU 2.2
#define CAPC 4096

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct {
  double t0;
  int n;
  long periods;
  double secs;
} points;

static int on_point(void *ud, double mu, const fcd_periodic_info *in, const double *re,
                    const double *im, int ev) {
  (void)re; (void)im;
  points *p = ud;
  double s = now() - p->t0;
  printf("point: mu %.5f, T %.8f, %.3f s, %ld periods in all, event %d\n", mu, in->period, s,
         (long)in->evaluations, ev);
  p->secs += s;
  p->periods = (long)in->evaluations;
  p->n++;
  p->t0 = now();
  return 0;
}

int main(int argc, char **argv) {
  double tend = 800;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--tend") && i + 1 < argc) {
      tend = bench_real(argv[0], "--tend", argv[++i], 50, 1e5);
    } else {
      fprintf(stderr, "usage: %s [--tend T]\n", argv[0]);
      return 2;
    }
  }
  fcd_system *sys = NULL;
  fcd_contact_set *cs = NULL;
  fcd_equilibrium *eq = NULL;
  fcd_integrator *it = NULL;
  double u[4], v[4] = {0, 0, 0, 0}, t = 0, *amp = malloc(CAPC * sizeof *amp);
  double *tc = malloc(CAPC * sizeof *tc), last_u[4] = {0}, last_v[4] = {0};
  fcd_status st = pin(MU, &sys, &cs);
  if (st == FCD_OK) st = fcd_equilibrium_create(sys, cs, &eq);
  if (st == FCD_OK) st = fcd_equilibrium_solve(eq, FCD_EQ_STEADY_SLIDING, 0.0);
  if (st == FCD_OK) st = fcd_equilibrium_get_state(eq, u);
  fcd_equilibrium_destroy(eq);
  u[1] += 1e-6;
  if (st == FCD_OK) st = fcd_integrator_create(sys, cs, FCD_SCHEME_MODIFIED_THETA, &it);
  if (st == FCD_OK) st = fcd_integrator_set_param(it, FCD_PARAM_STEP, H);
  if (st == FCD_OK) st = fcd_integrator_set_state(it, 0, u, v);
  /* the transient: each cycle's half range of u_theta, ended at a minimum of u_N in flight */
  long nst = (long)(tend / H);
  int nc = 0;
  double vprev = 0, lo = INFINITY, hi = -INFINITY, tlast = -1, tsum = 0;
  int ncyc = 0;
  double t0 = now();
  for (long k = 0; k < nst && st == FCD_OK; k++) {
    st = fcd_integrator_step(it);
    if (st == FCD_OK) st = fcd_integrator_get_state(it, &t, u, v);
    lo = fmin(lo, u[1]);
    hi = fmax(hi, u[1]);
    if (vprev < 0 && v[3] >= 0 && u[3] < -1e-3) {
      if (nc < CAPC) {
        amp[nc] = 0.5 * (hi - lo);
        tc[nc++] = t;
      }
      if (tlast > 0 && t > 0.8 * tend) {
        tsum += t - tlast;
        ncyc++;
      }
      tlast = t;
      lo = INFINITY;
      hi = -INFINITY;
      memcpy(last_u, u, sizeof u);
      memcpy(last_v, v, sizeof v);
    }
    vprev = v[3];
  }
  double tsecs = now() - t0, per_step = tsecs / (double)nst;
  fcd_integrator_destroy(it);
  if (st != FCD_OK || ncyc < 5) {
    fprintf(stderr, "periodic_cost: the transient %s\n",
            st != FCD_OK ? fcd_system_last_error(sys) : "found fewer than 5 cycles");
    return 1;
  }
  /* the orbit by shooting from the transient's last state */
  fcd_periodic *p = NULL;
  fcd_periodic_info in = {0};
  double lo4[4], hi4[4];
  st = fcd_periodic_create(sys, cs, FCD_SCHEME_MODIFIED_THETA, &p);
  if (st == FCD_OK) st = fcd_periodic_set_param(p, FCD_PARAM_STEP, H);
  t0 = now();
  if (st == FCD_OK) st = fcd_periodic_solve(p, last_u, last_v, tsum / ncyc);
  double ssecs = now() - t0;
  if (st == FCD_OK) st = fcd_periodic_get_info(p, &in);
  if (st == FCD_OK) st = fcd_periodic_get_range(p, lo4, hi4);
  if (st != FCD_OK) {
    fprintf(stderr, "periodic_cost: shooting: %s\n", fcd_system_last_error(sys));
    return 1;
  }
  double A = 0.5 * (hi4[1] - lo4[1]);
  /* the transient reaches the orbit where every later cycle is within 1 % of A */
  int reach = -1;
  for (int q = nc - 1; q >= 0; q--)
    if (fabs(amp[q] / A - 1) > 1e-2) {
      reach = q + 1 < nc ? q + 1 : -1;
      break;
    }
  double t_reach = reach >= 0 ? tc[reach] : NAN, reach_secs = t_reach / H * per_step;
  printf("transient: %ld steps in %.2f s (%.2f us a step); its cycles within 1 %% of the "
         "orbit's u_theta half range %.6f from t = %.1f (cycle %d of %d): %.2f s of its "
         "steps\n", nst, tsecs, 1e6 * per_step, A, t_reach, reach, nc, reach_secs);
  printf("shooting: %.3f s, %ld Newton iterations, %ld periods of %ld steps, T %.8f\n",
         ssecs, (long)in.iterations, (long)in.evaluations, (long)in.steps, in.period);
  points pts = {now(), 0, 0, 0};
  st = fcd_periodic_continue(p, 1.8, 0.05, 8, on_point, &pts);
  if (st != FCD_OK) fprintf(stderr, "periodic_cost: continuation: %s\n", fcd_system_last_error(sys));
  if (pts.n > 0) {
    double a_point = pts.secs / pts.n;
    printf("continuation: %d points, %.3f s a point, %ld periods a point\n", pts.n, a_point,
           (pts.periods - (long)in.evaluations) / pts.n);
    printf("shooting / transient to the orbit %.4f; a continuation point / that transient "
           "%.4f\n", ssecs / reach_secs, a_point / reach_secs);
    printf("ratio periodic_point_pin %.4f\n", a_point / reach_secs);
  }
  fcd_periodic_destroy(p);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
  free(amp);
  free(tc);
  return st != FCD_OK || pts.n == 0;
}
