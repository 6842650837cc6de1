/* The projection operators of the contact laws (pure functions). */
#include "fc_private.h"

#include <math.h>

void fcd_proj_nonpositive(fcd_index n, const fcd_real *x, fcd_real *y) {
  if (!x || !y) return;
  for (fcd_index i = 0; i < n; i++) y[i] = x[i] < 0.0 ? x[i] : (x[i] >= 0.0 ? 0.0 : NAN);
}

static int bad_input(int dim, fcd_real mu, const fcd_real *x, fcd_real *y) {
  if (!y || (dim != 2 && dim != 3)) return 1;
  int bad = !x || !isfinite(mu) || mu < 0.0;
  for (int k = 0; !bad && k < dim; k++) bad = !isfinite(x[k]);
  if (bad)
    for (int k = 0; k < dim; k++) y[k] = NAN;
  return bad;
}

void fcd_proj_coulomb_cone(int dim, fcd_real mu, const fcd_real *x, fcd_real *y) {
  if (bad_input(dim, mu, x, y)) return;
  if (dim == 2) fcd__proj_cone_d(2, mu, x, y);
  else fcd__proj_cone_d(3, mu, x, y);
}

void fcd_proj_coulomb_disc(int dim, fcd_real mu, const fcd_real *x, fcd_real *y) {
  if (bad_input(dim, mu, x, y)) return;
  fcd_real yn = x[0] < 0.0 ? x[0] : 0.0;
  fcd_real radius = mu * -yn;
  fcd_real t = fcd__tnorm(dim, x);
  fcd_real scale = t <= radius ? 1.0 : radius / t; /* t > radius >= 0 in the else branch */
  y[0] = yn;
  for (int k = 1; k < dim; k++) y[k] = scale * x[k];
}

void fcd_desaxce_velocity(int dim, fcd_real mu, const fcd_real *u, fcd_real *ut) {
  if (!u || !ut || (dim != 2 && dim != 3)) return;
  if (dim == 2) fcd__desaxce_d(2, mu, u, ut);
  else fcd__desaxce_d(3, mu, u, ut);
}

void fcd_natural_map(int dim, fcd_real mu, const fcd_real *r, const fcd_real *u,
                     fcd_real *f) {
  if (!r || !u || !f || (dim != 2 && dim != 3)) return;
  fcd_real z[3], p[3];
  fcd_desaxce_velocity(dim, mu, u, z);
  for (int k = 0; k < dim; k++) z[k] = r[k] - z[k];
  fcd_proj_coulomb_cone(dim, mu, z, p);
  for (int k = 0; k < dim; k++) f[k] = r[k] - p[k];
}
