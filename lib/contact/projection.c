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
  fcd_real xn = x[0], t = fcd__tnorm(dim, x);
  /* inside K_mu (includes x = 0); x_N <= 0 is implied by t <= -mu x_N only for mu > 0:
   * with mu = 0 and x_T = 0 a positive x_N would pass, and the projection of a
   * separating frictionless contact was the tension x itself */
  if (xn <= 0 && t <= -mu * xn) {
    for (int k = 0; k < dim; k++) y[k] = x[k];
    return;
  }
  if (mu * t <= xn) { /* inside the polar cone { mu ||x_T|| <= x_N } */
    for (int k = 0; k < dim; k++) y[k] = 0.0;
    return;
  }
  /* onto the boundary ray (-1, mu s) / sqrt(1 + mu^2), s = x_T / ||x_T||; t > 0 here */
  fcd_real a = (mu * t - xn) / (1.0 + mu * mu); /* -y_N >= 0 */
  y[0] = -a;
  fcd_real scale = mu * a / t;
  for (int k = 1; k < dim; k++) y[k] = scale * x[k];
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
  fcd_real t = fcd__tnorm(dim, u);
  ut[0] = u[0] - mu * t;
  for (int k = 1; k < dim; k++) ut[k] = u[k];
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
