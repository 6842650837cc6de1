/* Certificates (fcd/fcd_certificate.h, docs/conventions.md "Certificates"): the one
 * place that measures a result against the contact law, so that every solve (equilibria,
 * integrator steps) judges itself by the same figures and the same scales. The figures
 * are computed from the result itself (displacements or velocities through H, reactions
 * as returned), never from a solver's internal residual: a wrong Delassus operator or a
 * solver that stopped early shows here. */
#include "fc_private.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Coulomb's law in the tangential plane as a fixed point: r_T = proj onto the disc of
 * radius rad of (r_T - rho w_T), for any rho > 0; rho = R / L makes both sides forces of
 * the model's scale. */
static inline __attribute__((always_inline)) fcd_real
friction_map(const int d, fcd_real rad, const fcd_real *rt, const fcd_real *wt,
                             fcd_real rho) {
  fcd_real y[2] = {0, 0}, ny = 0;
  for (int k = 0; k < d - 1; k++) {
    y[k] = rt[k] - rho * wt[k];
    ny += y[k] * y[k];
  }
  ny = sqrt(ny);
  if (ny > rad && ny > 0)
    for (int k = 0; k < d - 1; k++) y[k] *= rad / ny;
  fcd_real e = 0;
  for (int k = 0; k < d - 1; k++) e += (rt[k] - y[k]) * (rt[k] - y[k]);
  return sqrt(e);
}

/* always inlined into fcd__certify_contacts with d a constant, 2 or 3, and the loops
 * unrolled: the certificate was a fifth of a one-contact solve */
static inline __attribute__((always_inline)) void
certify_d(const int d, fcd_certificate *c, fcd_index nc, const fcd_real *mu,
          const fcd_real *law, const fcd_real *r, const fcd_real *slip,
          const unsigned char *active) {
  fcd_real L = c->length_scale, R = c->force_scale;
  for (fcd_index i = 0; i < nc * d; i++) R = fcd__maxn(R, fabs(r[i]));
  /* the figures by products with 1 / L and 1 / R: six divisions a contact were most of
   * the certificate's time on a model of a few dofs. A NaN or infinite R (an impulse
   * that is) still gives NaN or 0 where the quotients did, and fails the check */
  const fcd_real iL = 1.0 / L, iR = 1.0 / R, rho = R * iL;
  fcd_real pen = 0, comp = 0, cone = 0;
  for (fcd_index k = 0; k < nc; k++) {
    const fcd_real *rk = r + k * d, *lk = law + k * d;
    fcd_real rt = fcd__tnorm(d, rk);
    if (active && !active[k]) {
      /* a contact outside the scheme's index set carries nothing */
      comp = fcd__maxn(comp, fcd__maxn(fabs(rk[0]), rt) * iR);
      continue;
    }
    fcd_real gr = lk[0];
    pen = fcd__maxn(pen, fcd__maxn(0.0, gr) * iL);
    comp = fcd__maxn(comp, fabs(fcd__minn(-gr * iL, -rk[0] * iR)));
    cone = fcd__maxn(cone, fcd__maxn(0.0, rk[0]) * iR);
    fcd_real rad = mu[k] * fcd__maxn(0.0, -rk[0]);
    cone = fcd__maxn(cone, fcd__maxn(0.0, rt - rad) * iR);
    if (d < 2) continue;
    if (slip) {
      /* a prescribed slip direction s (steady sliding): r_T = mu r_N s */
      fcd_real e = 0;
      for (int j = 1; j < d; j++) {
        fcd_real x = rk[j] - mu[k] * rk[0] * slip[k * (d - 1) + j - 1];
        e += x * x;
      }
      comp = fcd__maxn(comp, sqrt(e) * iR);
    } else {
      comp = fcd__maxn(comp, friction_map(d, rad, rk + 1, lk + 1, rho) * iR);
    }
  }
  c->penetration = fcd__maxn(c->penetration, pen);
  c->complementarity = fcd__maxn(c->complementarity, comp);
  c->cone = fcd__maxn(c->cone, cone);
}

void fcd__certify_contacts(fcd_certificate *c, int d, fcd_index nc, const fcd_real *mu,
                           const fcd_real *law, const fcd_real *r, const fcd_real *slip,
                           const unsigned char *active) {
  if (d == 2) certify_d(2, c, nc, mu, law, r, slip, active);
  else if (d == 3) certify_d(3, c, nc, mu, law, r, slip, active);
  else certify_d(d, c, nc, mu, law, r, slip, active);
}

int fcd__certificate_check(fcd_certificate *c, fcd_real tol) {
  c->worst = fcd__maxn(fcd__maxn(c->equilibrium, c->penetration),
                       fcd__maxn(c->complementarity, c->cone));
  c->tolerance = tol;
  /* NaN fails too */
  return c->worst <= tol;
}

int fcd__certificate_format(const fcd_certificate *c, char *buf, size_t cap) {
  return snprintf(buf, cap,
                  "equilibrium %.3e, penetration %.3e, complementarity %.3e, cone %.3e "
                  "(tolerance %.1e; force scale %.3e, length scale %.3e)",
                  c->equilibrium, c->penetration, c->complementarity, c->cone, c->tolerance,
                  c->force_scale, c->length_scale);
}
