/* Continuation of the pin on a flat's limit cycles in mu (issue 68; docs/periodic.md),
 * from the stable cycle at mu = 2.2 downwards. Steady sliding flutters above mu_c = 1.7357
 * (the closed form of seed 000's reduced pencil, tests of the stability suite); the
 * continuation shows the branch of cycles going on below it, stable, down to a fold near
 * mu = 1.677 where it turns back unstable: the cycle is born at finite amplitude, not as
 * a small Hopf cycle. The evidence besides the branch's own figures: at mu = 1.70, below
 * mu_c, the cycle solved there attracts a long transient started on another cycle (the
 * branch's neighbour at 1.71), while a transient from steady sliding plus a small tilt stays
 * small: the model has no damping, so below mu_c steady sliding is neutrally stable (its
 * eigenvalues on the imaginary axis) and the large cycle coexists with it; and the points
 * past the fold solve again from their own state at their coefficient. The branch goes to branch.csv in the test's
 * scratch directory (docs/periodic-branch.gp draws it). */
#include <fcd/fcd.h>

#include "../fcdtest.h"
#include "pin_model.h"

/* the step: 3,000 a period (the figures of docs/periodic.md are at 1e-3) */
#define H 2e-3
#define MAXP 16

typedef struct {
  int n;
  double mu[MAXP], T[MAXP], amp[MAXP], res[MAXP], lead[MAXP];
  long steps[MAXP];
  int stable[MAXP], event[MAXP];
  double u[MAXP][4], v[MAXP][4];
  fcd_periodic *p;
} branch_pts;

static int on_point(void *ud, double mu, const fcd_periodic_info *in, const double *re,
                    const double *im, int ev) {
  branch_pts *b = ud;
  if (b->n >= MAXP) return 1;
  double lo[4], hi[4];
  int k = b->n++;
  if (fcd_periodic_get_range(b->p, lo, hi) != FCD_OK) return 1;
  if (fcd_periodic_get_orbit(b->p, NULL, b->u[k], b->v[k]) != FCD_OK) return 1;
  b->mu[k] = mu;
  b->T[k] = in->period;
  b->steps[k] = (long)in->steps;
  b->amp[k] = 0.5 * (hi[1] - lo[1]);
  b->res[k] = in->residual;
  b->stable[k] = in->stable;
  b->event[k] = ev;
  /* the largest real multiplier other than the trivial one (the one nearest 1) */
  int triv = 0;
  for (int i = 1; i < (int)in->multipliers; i++)
    if (hypot(re[i] - 1, im[i]) < hypot(re[triv] - 1, im[triv])) triv = i;
  b->lead[k] = -INFINITY;
  for (int i = 0; i < (int)in->multipliers; i++)
    if (i != triv && im[i] == 0) b->lead[k] = fmax(b->lead[k], re[i]);
  return 0;
}

/* the half range of u_theta over [t1 - 60, t1] of a run from (u, v) at mu */
static double theta_amplitude(fcd_system *sys, fcd_contact_set *cs, double mu, const double *u,
                              const double *v, double t1) {
  fcd_integrator *it = NULL;
  double uu[4], vv[4], t = 0, lo = INFINITY, hi = -INFINITY;
  fcd_status st = fcd_contact_set_set_friction(cs, 0, mu);
  if (st == FCD_OK) st = fcd_integrator_create(sys, cs, FCD_SCHEME_MODIFIED_THETA, &it);
  if (st == FCD_OK) st = fcd_integrator_set_param(it, FCD_PARAM_STEP, H);
  if (st == FCD_OK) st = fcd_integrator_set_state(it, 0, u, v);
  if (st == FCD_OK) st = fcd_integrator_advance(it, t1 - 60);
  while (st == FCD_OK && t < t1 - 1e-9) {
    st = fcd_integrator_step(it);
    if (st == FCD_OK) st = fcd_integrator_get_state(it, &t, uu, vv);
    lo = fmin(lo, uu[1]);
    hi = fmax(hi, uu[1]);
  }
  CHECK_ST(st, FCD_OK);
  fcd_integrator_destroy(it);
  return 0.5 * (hi - lo);
}

int main(void) {
  fcd_system *sys = NULL;
  fcd_contact_set *cs = NULL;
  transient tr;
  branch_pts b = {0};
  CHECK_ST(pin(2.2, &sys, &cs), FCD_OK);
  CHECK(run_transient(sys, cs, FCD_SCHEME_MODIFIED_THETA, H, 300, 1e-2, &tr));
  CHECK_ST(fcd_periodic_create(sys, cs, FCD_SCHEME_MODIFIED_THETA, &b.p), FCD_OK);
  CHECK_ST(fcd_periodic_set_param(b.p, FCD_PARAM_STEP, H), FCD_OK);
  /* before a solve there is nothing to continue */
  CHECK_ST(fcd_periodic_continue(b.p, 1.0, 0.05, 10, NULL, NULL), FCD_E_STATE);
  CHECK_ST(fcd_periodic_solve(b.p, tr.u, tr.v, tr.period), FCD_OK);
  CHECK_ST(fcd_periodic_continue(b.p, 2.2, 0.05, 10, NULL, NULL), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_periodic_continue(b.p, 1.0, 0, 10, NULL, NULL), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_periodic_continue(b.p, 1.0, 0.05, 0, NULL, NULL), FCD_E_INVALID_ARG);
  /* issue 84: reached a factorization with NaN entries; refused by name */
  CHECK_ST(fcd_periodic_continue(b.p, 1.0, 1e300, 10, NULL, NULL), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "dmu = 1e+300 is out of range");
  CHECK_ST(fcd_periodic_continue(b.p, 1.0, 1.5, 10, NULL, NULL), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_periodic_continue(b.p, 1.0, 0.1, 6, on_point, &b), FCD_OK);
  CHECK(b.n == 6);
  /* the coefficient is restored */
  double mu_now = -1;
  CHECK_ST(fcd_contact_set_get(cs, 0, NULL, NULL, &mu_now, NULL), FCD_OK);
  CHECK(mu_now == 2.2);
  int fold = -1;
  for (int k = 0; k < b.n; k++) {
    fprintf(stderr, "mu %.6f T %.8f amplitude %.6f residual %.1e stable %d event %d "
            "largest real multiplier %.4f\n", b.mu[k], b.T[k], b.amp[k], b.res[k],
            b.stable[k], b.event[k], b.lead[k]);
    CHECK(b.res[k] <= 1e-9);
    if (b.event[k] == FCD_PERIODIC_EVENT_FOLD && fold < 0) fold = k;
  }
  CHECK(fold > 0);
  if (fold > 0) {
    /* the fold below the linear threshold, the stable side before it, unstable after:
     * a real multiplier past +1 */
    CHECK(b.mu[fold] > 1.670 && b.mu[fold] < 1.685);
    for (int k = 0; k < fold; k++) CHECK(b.stable[k] == 1 && b.mu[k] < (k ? b.mu[k - 1] : 2.2));
    for (int k = fold; k < b.n; k++) CHECK(b.stable[k] == 0 && b.lead[k] > 1.01);
    /* a point past the fold solves again from its own state at its coefficient */
    int k = b.n - 1;
    fcd_periodic *q = NULL;
    CHECK_ST(fcd_contact_set_set_friction(cs, 0, b.mu[k]), FCD_OK);
    CHECK_ST(fcd_periodic_create(sys, cs, FCD_SCHEME_MODIFIED_THETA, &q), FCD_OK);
    /* the same discrete problem: N steps of T / N */
    CHECK_ST(fcd_periodic_set_param(q, FCD_PARAM_STEP, b.T[k] / (double)b.steps[k]), FCD_OK);
    CHECK_ST(fcd_periodic_solve(q, b.u[k], b.v[k], b.T[k]), FCD_OK);
    fcd_periodic_info in;
    CHECK_ST(fcd_periodic_get_info(q, &in), FCD_OK);
    CHECK(fabs(in.period / b.T[k] - 1) < 1e-9 && in.stable == 0);
    fcd_periodic_destroy(q);
  }
  /* mu = 1.70 < mu_c: the cycle there, solved from the branch's neighbour above it, is
   * stable and attracts a run started on that neighbour (another cycle); steady sliding
   * plus a tilt stays as small as the tilt (neutral) */
  int a = -1;
  for (int k = 0; k < b.n; k++)
    if (b.mu[k] >= 1.70 && b.stable[k] == 1) a = k;
  CHECK(a >= 0);
  if (a >= 0) {
    fcd_periodic *q = NULL;
    fcd_periodic_info in;
    double lo[4], hi[4];
    CHECK_ST(fcd_contact_set_set_friction(cs, 0, 1.70), FCD_OK);
    CHECK_ST(fcd_periodic_create(sys, cs, FCD_SCHEME_MODIFIED_THETA, &q), FCD_OK);
    CHECK_ST(fcd_periodic_set_param(q, FCD_PARAM_STEP, H), FCD_OK);
    CHECK_ST(fcd_periodic_solve(q, b.u[a], b.v[a], b.T[a]), FCD_OK);
    CHECK_ST(fcd_periodic_get_info(q, &in), FCD_OK);
    CHECK_ST(fcd_periodic_get_range(q, lo, hi), FCD_OK);
    CHECK(in.stable == 1);
    double amp_orbit = 0.5 * (hi[1] - lo[1]);
    double amp_run = theta_amplitude(sys, cs, 1.70, b.u[a], b.v[a], 250);
    fprintf(stderr, "mu = 1.70: the cycle's u_theta half range %.9f, a run from the cycle at "
            "mu = %.4f after 250: %.9f\n", amp_orbit, b.mu[a], amp_run);
    CHECK(fabs(amp_run / amp_orbit - 1) < 1e-6);
    fcd_periodic_destroy(q);
    fcd_equilibrium *eq = NULL;
    double us[4], vs[4] = {0, 0, 0, 0};
    CHECK_ST(fcd_equilibrium_create(sys, cs, &eq), FCD_OK);
    CHECK_ST(fcd_equilibrium_solve(eq, FCD_EQ_STEADY_SLIDING, 0.0), FCD_OK);
    CHECK_ST(fcd_equilibrium_get_state(eq, us), FCD_OK);
    fcd_equilibrium_destroy(eq);
    double tilt = 1e-4;
    us[1] += tilt;
    double amp_360 = theta_amplitude(sys, cs, 1.70, us, vs, 360);
    fprintf(stderr, "mu = 1.70: steady sliding tilted by %g: half range %.3e over 300-360\n",
            tilt, amp_360);
    CHECK(amp_360 < 10 * tilt);
  }
  char path[4096];
  fcdt_tmpfile(path, sizeof path, "branch.csv");
  FILE *f = fopen(path, "w");
  if (f) {
    fprintf(f, "mu,period,amplitude,stable,event\n");
    for (int k = -1; k < b.n; k++)
      if (k < 0) fprintf(f, "2.2,%.10g,%.10g,1,0\n", tr.period, tr.amp);
      else fprintf(f, "%.8g,%.10g,%.10g,%d,%d\n", b.mu[k], b.T[k], b.amp[k], b.stable[k], b.event[k]);
    fclose(f);
  }
  fcd_periodic_destroy(b.p);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
  return fcdt_finish("periodic/pin_branch");
}
