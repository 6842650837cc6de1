/* The three dynamic schemes' terms of one step (see schemes.h for the shared step). */
#include "schemes.h"

#include <stddef.h>

static fcd_real w_unit(fcd_real theta) {
  (void)theta;
  return 1.0;
}

/* Contact detection of Moreau-Jean and Fremond (seed 004, eq. 55): the predicted gap
 * g(u0 + h v0) closed. The paper also asks u_{N,0} <= 0; fcd leaves an approaching or
 * resting contact in and lets the law's restitution term handle a separating one (see
 * mj_rhs), which keeps a resting body from sinking. */
static int activate_predicted(fcd_real gq, fcd_real tol) { return gq >= -tol; }

/* Moreau-Jean (seed 004, eqs. 53a-53d with Gamma of eq. 75): Newton's law on the normal
 * velocity at the end of the step, u_{N,1} + e u_{N,0}, Coulomb on u_{T,1}:
 *   q = u_free + e u_{N,0} e_N.
 * Newton's law relates the post-impact velocity to an approach: a contact whose
 * predicted gap is closed while it already separates (a penetration left by earlier
 * micro-bounces) gets no restitution term. With it, the law would allow v1 = -e v0
 * towards the obstacle and, under gravity, the two-step cycle of the digest of seed 004
 * that sinks a resting body (tests: settle_after_impacts). */
static void mj_rhs(const fcd__scheme_contact *c, int d, fcd_real *q) {
  for (int k = 0; k < d; k++) q[k] = c->uf[k];
  if (c->u0[0] > 0) q[0] += c->e * c->u0[0];
}

/* Fremond's scheme (seed 004, eqs. 63d-64): the law on u_theta = (1 - theta) u0 +
 * theta u1 = theta W p + theta u_free + (1 - theta) u0, with Theta's normal shift
 * (theta (1 + e) - 1) u_{N,0}; Coulomb on u_{T,theta}. The local problem is in u_theta
 * itself, so W is scaled by theta:
 *   q = theta u_free + (1 - theta) u0 + (theta (1 + e) - 1) u_{N,0} e_N.
 * The shift applies to approaching contacts only, as for Moreau-Jean; this replaces the
 * paper's activation filter u_{N,0} <= 0: the law on u_{N,theta} alone does no work
 * (u_{N,theta} p_N = 0), so the energy bound of its Proposition 1 stands. */
static void fremond_rhs(const fcd__scheme_contact *c, int d, fcd_real *q) {
  for (int k = 0; k < d; k++) q[k] = c->theta * c->uf[k] + (1 - c->theta) * c->u0[k];
  if (c->u0[0] > 0) q[0] += (c->theta * (1 + c->e) - 1) * c->u0[0];
}

static fcd_real w_theta(fcd_real theta) { return theta; }

/* The modified theta method (seed 003, eqs. 22-25) contacts every candidate at each
 * step; the projection onto R- opens what separates. */
static int activate_all(fcd_real gq, fcd_real tol) {
  (void)gq;
  (void)tol;
  return 1;
}

/* Seed 003, eq. (24): the normal law acts on Gdot^{i+1} + (1 - theta) Gdot^i + G^i / h,
 * the predicted gap over h, G^i the gap of the displacement at the start of the step;
 * eq. (25): friction on the velocity at the end of the step:
 *   q = u_free + ((1 - theta) u_{N,0} + (u_N(u0) - g) / h) e_N. */
static void mtheta_rhs(const fcd__scheme_contact *c, int d, fcd_real *q) {
  for (int k = 0; k < d; k++) q[k] = c->uf[k];
  q[0] += (1 - c->theta) * c->u0[0] + c->gap / c->h;
}

/* rows a test build adds (tests/dynamics/recipe_schemes.c follows the recipe of
 * docs/architecture.md with it); none in the library */
#ifndef FCD__SCHEMES_EXTRA
#define FCD__SCHEMES_EXTRA
#endif

/* The schemes, the one table of their names (the registry, FCD_FAMILY_SCHEME): a new
 * scheme is a row here, its enumerator in fcd/fcd_integrator.h and its functions above. */
static const fcd__scheme_ops schemes[] = {
    {FCD_SCHEME_MOREAU_JEAN, "moreau-jean",
     "theta scheme on velocities, Newton's impact law (the default)", activate_predicted, 0,
     mj_rhs, w_unit, 0},
    {FCD_SCHEME_MODIFIED_THETA, "modified-theta",
     "position-level contact, a continuous step map (seed 003)", activate_all, 1,
     mtheta_rhs, w_unit, 0},
    {FCD_SCHEME_FREMOND, "fremond",
     "energy-consistent: the law on u_theta, W scaled by theta (seed 004)",
     activate_predicted, 0, fremond_rhs, w_theta, 1},
    {FCD_SCHEME_QUASISTATIC, "quasistatic",
     "incremental static problems with the friction history", NULL, 0, NULL, NULL, 0},
    FCD__SCHEMES_EXTRA};
#define NSCHEMES (sizeof schemes / sizeof schemes[0])

const fcd__scheme_ops *fcd__scheme_ops_of(fcd_scheme scheme) {
  for (size_t k = 0; k < NSCHEMES; k++)
    if (schemes[k].id == scheme) return schemes[k].activate ? &schemes[k] : NULL;
  return NULL;
}

int fcd__scheme_known(fcd_scheme scheme) {
  for (size_t k = 0; k < NSCHEMES; k++)
    if (schemes[k].id == scheme) return 1;
  return 0;
}

int fcd__scheme_registry(int k, fcd__named *out) {
  if (k < 0 || (size_t)k >= NSCHEMES) return 0;
  out->value = (int)schemes[k].id;
  out->name = schemes[k].name;
  out->summary = schemes[k].summary;
  return 1;
}
