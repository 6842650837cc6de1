/* Certified dynamic steps (issue: certified answers, cases 3 and 7).
 *
 * The user's block: 40 x 10 plane-strain triangles, 40 mm x 10 mm, E = 1e4 MPa,
 * nu = 0.3, rho = 1.2e-9 t/mm^3 (a polymer), pressed by 50 N on its top, the top's x
 * displacements held, its 41 bottom nodes against a rigid flat.
 *
 * Case 3: huge friction is perfect stick. The block rests in its static equilibrium
 * under 50 N with mu = 1e15 (or 1e20), every bottom contact compressed and stuck; the
 * top load then doubles suddenly. Every contact stays compressed, so every scheme must
 * give the motion of the block with its bottom held in x and y: that reference has no
 * contacts at all, only prescribed dofs, and does not pass through the contact
 * solvers. Each step's own certificate must pass, and figures recomputed here from the
 * state (gap, tension, tangential velocity, cone with the true mu) must agree. (From
 * rest with no preload the comparison would not hold: the implicit step's coupled mass
 * lifts bottom nodes off the flat in the first steps, and a contact carrying nothing
 * slides whatever mu is.)
 *
 * Case 7: a state produced by fcd's steady-sliding equilibrium is a steady state of
 * every scheme: started there at rest, 100 steps keep the kinetic energy below 1e-12
 * of the work scale f . u. Without an activation tolerance, contacts left by the
 * equilibrium at u_N - g = -1e-19 were out of the index set of the first step and the
 * block jumped. */
#include "../common/block2d.h"
#include "fcd/fcd.h"
#include "../fcdtest.h"

#define NX 40
#define NY 10

static const char *scheme_name(fcd_scheme s) {
  return s == FCD_SCHEME_MOREAU_JEAN ? "Moreau-Jean"
         : s == FCD_SCHEME_FREMOND   ? "Fremond"
                                     : "modified theta";
}

/* the block pressed by 50 N on its top, top x held; bottom x and y held too when
 * hold_bottom (the stuck reference) */
static fcd_system *user_block(tb_block *b, double *f, int hold_bottom) {
  fcd_system *sys = NULL;
  CHECK_ST(tb_block_system(b, &sys), FCD_OK);
  fcd_index fix[2 * (NX + 1) + NX + 1];
  int nfix = 0;
  for (int i = 0; i <= NX; i++) {
    fcd_index nd = tb_node(b, i, NY);
    f[2 * nd + 1] = -50.0 / NX * (i == 0 || i == NX ? 0.5 : 1);
    fix[nfix++] = 2 * nd;
    if (hold_bottom) {
      fix[nfix++] = 2 * tb_node(b, i, 0);
      fix[nfix++] = 2 * tb_node(b, i, 0) + 1;
    }
  }
  CHECK_ST(fcd_system_fix_dofs(sys, nfix, fix, NULL), FCD_OK);
  CHECK_ST(fcd_system_set_load(sys, f), FCD_OK);
  return sys;
}

/* Case 3 for one scheme and one mu: the trajectory against the stuck reference. */
static void huge_friction(fcd_scheme scheme, double mu) {
  tb_block b;
  CHECK(tb_block_build(&b, NX, NY, 40.0, 10.0, 1e4, 0.3, 1.2e-9) == 0);
  fcd_index n = b.ndofs;
  double *f = calloc((size_t)n, sizeof *f), *fr = calloc((size_t)n, sizeof *fr);
  fcd_system *sys = user_block(&b, f, 0), *ref = user_block(&b, fr, 1);
  fcd_contact_set *cs = NULL;
  CHECK_ST(tb_block_contacts(&b, sys, mu, 0, &cs), FCD_OK);
  fcd_integrator *it = NULL, *ir = NULL;
  fcd_equilibrium *eq = NULL;
  double *us = calloc((size_t)n, sizeof *us);
  CHECK_ST(fcd_equilibrium_create(sys, cs, &eq), FCD_OK);
  CHECK_ST(fcd_equilibrium_solve(eq, FCD_EQ_STATIC, 0.0), FCD_OK);
  fcd_equilibrium_get_state(eq, us);
  fcd_equilibrium_destroy(eq);
  for (fcd_index i = 0; i < n; i++) {
    f[i] *= 2;
    fr[i] *= 2;
  }
  CHECK_ST(fcd_system_set_load(sys, f), FCD_OK);
  CHECK_ST(fcd_system_set_load(ref, fr), FCD_OK);
  CHECK_ST(fcd_integrator_create(sys, cs, scheme, &it), FCD_OK);
  CHECK_ST(fcd_integrator_create(ref, NULL, scheme, &ir), FCD_OK);
  const double h = 2e-7; /* about 1/50 of the block's first compression period */
  CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_STEP, h), FCD_OK);
  CHECK_ST(fcd_integrator_set_param(ir, FCD_PARAM_STEP, h), FCD_OK);
  double *z = calloc((size_t)n, sizeof *z);
  CHECK_ST(fcd_integrator_set_state(it, 0, us, z), FCD_OK);
  CHECK_ST(fcd_integrator_set_state(ir, 0, us, z), FCD_OK);
  fcd_certificate cert;
  CHECK_ST(fcd_integrator_get_certificate(it, &cert), FCD_E_STATE);
  double *u = calloc((size_t)n, sizeof *u), *v = calloc((size_t)n, sizeof *v);
  double *ur = calloc((size_t)n, sizeof *ur), *vr = calloc((size_t)n, sizeof *vr);
  double r[2 * (NX + 1)], loc[2 * (NX + 1)];
  double du = 0, umax = 0, worst = 0, pen = 0, tension = 0, cone = 0, vt = 0, vmax = 0;
  int steps_ok = 0;
  for (int s = 0; s < 60; s++) {
    fcd_status st = fcd_integrator_step(it);
    CHECK_ST(st, FCD_OK);
    CHECK_ST(fcd_integrator_step(ir), FCD_OK);
    if (st != FCD_OK) break;
    steps_ok++;
    CHECK_ST(fcd_integrator_get_certificate(it, &cert), FCD_OK);
    CHECK(cert.worst <= cert.tolerance && cert.tolerance == 1e-8);
    worst = fmax(worst, cert.worst);
    fcd_integrator_get_state(it, NULL, u, v);
    fcd_integrator_get_state(ir, NULL, ur, vr);
    fcd_integrator_get_reactions(it, r);
    for (fcd_index i = 0; i < n; i++) {
      du = fmax(du, fabs(u[i] - ur[i]));
      umax = fmax(umax, fabs(ur[i]));
      vmax = fmax(vmax, fabs(vr[i]));
    }
    /* recomputed: no contact opens or penetrates (the stuck reference's gap is 0), no
     * tension, the tangential velocity of every contact is zero, the cone holds with
     * the true mu (trivially: |r_T| is finite) */
    fcd_contact_set_local(cs, u, loc);
    double rs = 0;
    for (int c = 0; c <= NX; c++) rs = fmax(rs, fmax(fabs(r[2 * c]), fabs(r[2 * c + 1])));
    for (int c = 0; c <= NX; c++) {
      pen = fmax(pen, fabs(loc[2 * c]));
      tension = fmax(tension, r[2 * c] / rs);
      cone = fmax(cone, (fabs(r[2 * c + 1]) - mu * fabs(r[2 * c])) / rs);
    }
    fcd_contact_set_local(cs, v, loc);
    for (int c = 0; c <= NX; c++) vt = fmax(vt, fabs(loc[2 * c + 1]));
  }
  CHECK(steps_ok == 60);
  CHECK(du <= 1e-8 * umax);
  CHECK(pen <= 1e-10 * umax);
  CHECK(tension <= 1e-12 && cone <= 0);
  CHECK(vt <= 1e-8 * vmax);
  printf("%s, mu = %g: 60 steps, certificate <= %.1e, |u - u_stuck| = %.1e of %.2e mm, "
         "|v_T| <= %.1e of %.2e mm/s\n", scheme_name(scheme), mu, worst, du, umax, vt, vmax);
  free(z); free(us); free(u); free(v); free(ur); free(vr); free(f); free(fr);
  fcd_integrator_destroy(it);
  fcd_integrator_destroy(ir);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
  fcd_system_destroy(ref);
  tb_block_free(&b);
}

/* Case 7: the steady-sliding state under each scheme. */
static void steady_start(fcd_scheme scheme) {
  tb_block b;
  CHECK(tb_block_build(&b, NX, NY, 40.0, 10.0, 1e4, 0.3, 1.2e-9) == 0);
  fcd_index n = b.ndofs;
  double *f = calloc((size_t)n, sizeof *f);
  fcd_system *sys = user_block(&b, f, 0);
  fcd_contact_set *cs = NULL;
  CHECK_ST(tb_block_contacts(&b, sys, 0.3, 10.0, &cs), FCD_OK);
  fcd_equilibrium *eq = NULL;
  CHECK_ST(fcd_equilibrium_create(sys, cs, &eq), FCD_OK);
  CHECK_ST(fcd_equilibrium_solve(eq, FCD_EQ_STEADY_SLIDING, 0.0), FCD_OK);
  double *us = calloc((size_t)n, sizeof *us), *z = calloc((size_t)n, sizeof *z);
  fcd_equilibrium_get_state(eq, us);
  double loc[2 * (NX + 1)];
  fcd_contact_set_local(cs, us, loc);
  int below = 0;
  for (int c = 0; c <= NX; c++) below += loc[2 * c] < 0;
  double work = 0;
  for (fcd_index i = 0; i < n; i++) work += fabs(f[i] * us[i]);
  fcd_integrator *it = NULL;
  CHECK_ST(fcd_integrator_create(sys, cs, scheme, &it), FCD_OK);
  CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_STEP, 2e-7), FCD_OK);
  CHECK_ST(fcd_integrator_set_state(it, 0, us, z), FCD_OK);
  double kmax = 0;
  for (int s = 0; s < 100; s++) {
    fcd_status st = fcd_integrator_step(it);
    CHECK_ST(st, FCD_OK);
    if (st != FCD_OK) break;
    fcd_energy e;
    fcd_integrator_get_energy(it, &e);
    kmax = fmax(kmax, e.kinetic);
  }
  CHECK(kmax <= 1e-12 * work);
  /* and the block has not moved from the steady state */
  double *u = calloc((size_t)n, sizeof *u), dmax = 0, umax = 0;
  fcd_integrator_get_state(it, NULL, u, NULL);
  for (fcd_index i = 0; i < n; i++) {
    dmax = fmax(dmax, fabs(u[i] - us[i]));
    umax = fmax(umax, fabs(us[i]));
  }
  CHECK(dmax <= 1e-9 * umax);
  free(u);
  printf("%s from the steady-sliding state (%d of 41 contacts at u_N - g < 0): kinetic "
         "energy <= %.1e of the work scale %.3e N mm over 100 steps\n", scheme_name(scheme),
         below, kmax / work, work);
  free(us); free(z); free(f);
  fcd_integrator_destroy(it);
  fcd_equilibrium_destroy(eq);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
  tb_block_free(&b);
}

int main(void) {
  const fcd_scheme sch[3] = {FCD_SCHEME_MOREAU_JEAN, FCD_SCHEME_FREMOND,
                             FCD_SCHEME_MODIFIED_THETA};
  for (int k = 0; k < 3; k++) {
    huge_friction(sch[k], 1e15);
    huge_friction(sch[k], 1e20);
  }
  for (int k = 0; k < 3; k++) steady_start(sch[k]);
  return fcdt_finish("test_certified_steps");
}
