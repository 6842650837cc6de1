/* Signs of reactions and slip directions, in one place: the classification of
 * equilibrium states (seed 000, section 1.4) and the reduced tangent pair of the
 * stability analysis (seed 000, eqs. 79-82) both read them from here.
 *
 * fcd's convention (docs/conventions.md): the normal points into the obstacle,
 * u_N - g <= 0, r_N <= 0, and a slipping contact has r_T = mu r_N s with s the unit
 * slip direction, so s = -r_T / norm(r_T) (friction opposes the slip). This is also
 * seed 000's convention (its N axis points into the obstacle, r_Np <= 0), in which the
 * slipping row rule reads row_T + mu sigma(r_T) row_N = row_T - mu s row_N. */
#include "fc_private.h"

#include <math.h>

void fcd__slip_from_reaction(int d, const fcd_real *r, fcd_real *s) {
  fcd_real n = fcd__tnorm(d, r);
  for (int k = 1; k < d; k++) s[k - 1] = n > 0 ? -r[k] / n : 0.0;
}

int fcd__slip_from_sliding_velocity(int d, const fcd_real *vg, fcd_real *s) {
  fcd_real n = fcd__tpnorm(d, vg);
  if (!(n > 0) || !isfinite(n)) return 0;
  for (int k = 0; k < d - 1; k++) s[k] = -vg[k] / n;
  return 1;
}

/* The reaction decides first: a contact that carries a compressive normal reaction
 * beyond the tolerance is closed whatever the sign of its gap residual at round-off
 * (u_N - g = -1.2e-16 against the scale of a model whose displacements are all
 * round-off made a contact carrying the whole load "open", on two ranks and not on
 * one). One that carries none is grazing when its gap is closed to the length
 * tolerance, separated otherwise. Closed contacts stick inside the cone, slip on it to
 * the tolerance, and where the caller gives the slip (a velocity), also move. */
int fcd__contact_classify(int d, fcd_real mu, fcd_real gapres, const fcd_real *r,
                          const fcd_real *slip, const fcd__class_scale *s) {
  fcd_real tl = s->tol * s->length, tr = s->tol * s->reaction;
  if (!(-r[0] > tr)) return gapres >= -tl ? FCD_EQ_GRAZING : FCD_EQ_SEPARATED;
  if (fcd__tnorm(d, r) < mu * -r[0] - tr) return FCD_EQ_STICK;
  if (slip && !(fcd__tpnorm(d, slip) > tl)) return FCD_EQ_STICK;
  return FCD_EQ_SLIP;
}

int fcd__contact_status_of_set(int set) {
  return set == FCD_EQ_STICK ? FCD_CONTACT_STICK
         : set == FCD_EQ_SLIP ? FCD_CONTACT_SLIP
                              : FCD_CONTACT_OPEN;
}
