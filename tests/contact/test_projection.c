/* Projection operators: properties that characterize the Euclidean projection onto a
 * closed convex cone, the seed-003 variant's published values, and the contact-law
 * equivalences (fixed points of the projections are exactly the law's solutions). */
#include <fcd/fcd.h>

#include "../fcdtest.h"

static double dot(int d, const double *a, const double *b) {
  double s = 0;
  for (int k = 0; k < d; k++) s += a[k] * b[k];
  return s;
}

static double tnorm(int d, const double *x) { return d == 2 ? fabs(x[1]) : hypot(x[1], x[2]); }

static int in_cone(int d, double mu, const double *x, double tol) {
  return x[0] <= tol && tnorm(d, x) <= -mu * x[0] + tol;
}

static void rand_vec(int d, double *x, double scale) {
  for (int k = 0; k < d; k++) x[k] = scale * (2 * fcdt_rand() - 1);
}

static void test_cone_properties(void) {
  const double mus[5] = {0.0, 0.1, 0.5, 1.0, 7.0};
  for (int d = 2; d <= 3; d++)
    for (int im = 0; im < 5; im++)
      for (int t = 0; t < 400; t++) {
        double mu = mus[im], x[3], p[3], pp[3], y[3];
        rand_vec(d, x, 3.0);
        fcd_proj_coulomb_cone(d, mu, x, p);
        double s = fmax(1.0, sqrt(dot(d, x, x)));
        CHECK(in_cone(d, mu, p, 1e-14 * s));
        fcd_proj_coulomb_cone(d, mu, p, pp); /* idempotence */
        for (int k = 0; k < d; k++) CHECK(fabs(pp[k] - p[k]) <= 1e-14 * s);
        /* variational inequality <x - P x, y - P x> <= 0 for y in the cone */
        for (int j = 0; j < 20; j++) {
          double z[3];
          rand_vec(d, z, 2.0);
          fcd_proj_coulomb_cone(d, mu, z, y); /* a point of the cone */
          double a[3], b[3];
          for (int k = 0; k < d; k++) {
            a[k] = x[k] - p[k];
            b[k] = y[k] - p[k];
          }
          CHECK(dot(d, a, b) <= 1e-13 * s * s);
        }
        /* Moreau: x = P_K x + P_polar x, orthogonal, the rest in the polar cone
         * { mu ||x_T|| <= x_N } */
        double q[3];
        for (int k = 0; k < d; k++) q[k] = x[k] - p[k];
        CHECK(fabs(dot(d, p, q)) <= 1e-13 * s * s);
        CHECK(mu * tnorm(d, q) <= q[0] + 1e-13 * s);
      }
  /* mu = 0: projection onto the negative normal half-line */
  double x[3] = {-2, 1, 3}, y[3];
  fcd_proj_coulomb_cone(3, 0.0, x, y);
  CHECK(y[0] == -2 && y[1] == 0 && y[2] == 0);
  x[0] = 2;
  fcd_proj_coulomb_cone(3, 0.0, x, y);
  CHECK(y[0] == 0 && y[1] == 0 && y[2] == 0);
  /* large mu: the cone tends to the half-space r_N <= 0 */
  double h[3] = {-1e-6, 3, -4};
  fcd_proj_coulomb_cone(3, 1e9, h, y);
  for (int k = 0; k < 3; k++) CHECK(fabs(y[k] - h[k]) < 1e-12);
  double hp[3] = {2, 3, -4};
  fcd_proj_coulomb_cone(3, 1e9, hp, y);
  CHECK(fabs(y[0]) < 1e-8 && fabs(y[1] - 3) < 1e-8 && fabs(y[2] + 4) < 1e-8);
  /* closed form off both cones: x = (1, 2) mu = 1 -> ((1 - 2)/2, (2 - 1)/2) = (-0.5, 0.5) */
  double c2[2] = {1, 2}, o2[2];
  fcd_proj_coulomb_cone(2, 1.0, c2, o2);
  CHECK_CLOSE(o2[0], -0.5, 1e-15);
  CHECK_CLOSE(o2[1], 0.5, 1e-15);
  /* 2D is 3D restricted to B = 0, for both orientations of T */
  for (int t = 0; t < 200; t++) {
    double a2[2], a3[3], p2[2], p3[3];
    rand_vec(2, a2, 3.0);
    double mu = 2 * fcdt_rand();
    a3[0] = a2[0];
    a3[1] = a2[1];
    a3[2] = 0;
    fcd_proj_coulomb_cone(2, mu, a2, p2);
    fcd_proj_coulomb_cone(3, mu, a3, p3);
    CHECK(fabs(p2[0] - p3[0]) < 1e-15 && fabs(p2[1] - p3[1]) < 1e-15 && p3[2] == 0);
    fcd_proj_coulomb_disc(2, mu, a2, p2);
    fcd_proj_coulomb_disc(3, mu, a3, p3);
    CHECK(fabs(p2[0] - p3[0]) < 1e-15 && fabs(p2[1] - p3[1]) < 1e-15 && p3[2] == 0);
  }
  /* bad input: NaN out, nothing else touched */
  double bad[3] = {1, 2, 3}, out[4] = {7, 7, 7, 7};
  fcd_proj_coulomb_cone(3, -1.0, bad, out);
  CHECK(isnan(out[0]) && isnan(out[2]) && out[3] == 7);
  out[0] = 7;
  fcd_proj_coulomb_cone(4, 1.0, bad, out);
  CHECK(out[0] == 7);
  bad[1] = NAN;
  fcd_proj_coulomb_cone(3, 1.0, bad, out);
  CHECK(isnan(out[0]));
  double n[4] = {-1, 2, NAN, -0.0}, pn[4];
  fcd_proj_nonpositive(4, n, pn);
  CHECK(pn[0] == -1 && pn[1] == 0 && isnan(pn[2]) && pn[3] == 0);
}

/* seed 003, digest test T-b2: mu = 0.2 */
static void test_seed003_values(void) {
  const double in[4][3] = {{-1, 0.1, 0}, {-1, 0.3, 0.4}, {0, 1, 1}, {-1, 0, 0}};
  const double want[4][3] = {{-1, 0.1, 0}, {-1, 0.12, 0.16}, {0, 0, 0}, {-1, 0, 0}};
  for (int t = 0; t < 4; t++) {
    double y[3];
    fcd_proj_coulomb_disc(3, 0.2, in[t], y);
    for (int k = 0; k < 3; k++) CHECK(fabs(y[k] - want[t][k]) <= 1e-15);
  }
  /* the disc variant is not the Euclidean projection: (-1, (0.3, 0.4)) differs */
  double e[3];
  fcd_proj_coulomb_cone(3, 0.2, in[1], e);
  CHECK(fabs(e[0] + 1) > 1e-3);
}

/* A random point (r, u) of the contact law in state `st` (0 open, 1 stick, 2 slip). */
static void law_point(int d, double mu, int st, double *r, double *u) {
  double s[2] = {1, 0};
  if (d == 3) {
    double phi = 6.283185307179586 * fcdt_rand();
    s[0] = cos(phi);
    s[1] = sin(phi);
  } else if (fcdt_rand() < 0.5) {
    s[0] = -1;
  }
  for (int k = 0; k < d; k++) r[k] = u[k] = 0;
  if (st == 0) { /* separating: r = 0, u_N < 0, any u_T */
    u[0] = -0.1 - fcdt_rand();
    for (int k = 1; k < d; k++) u[k] = 2 * fcdt_rand() - 1;
  } else if (st == 1) { /* sticking: u = 0, r strictly inside */
    r[0] = -0.1 - fcdt_rand();
    double a = 0.9 * fcdt_rand() * mu * -r[0];
    for (int k = 1; k < d; k++) r[k] = a * s[k - 1];
  } else { /* slipping: u_N = 0, u_T = lambda s, r_T = mu r_N s (opposite, r_N < 0) */
    r[0] = -0.1 - fcdt_rand();
    double lam = 0.1 + fcdt_rand();
    for (int k = 1; k < d; k++) {
      r[k] = mu * r[0] * s[k - 1];
      u[k] = lam * s[k - 1];
    }
  }
}

static void test_law_equivalence(void) {
  for (int d = 2; d <= 3; d++)
    for (int t = 0; t < 300; t++) {
      double mu = 0.05 + fcdt_rand(), r[3], u[3], f[3], ut[3];
      int st = t % 3;
      law_point(d, mu, st, r, u);
      /* natural map vanishes at points of the law */
      fcd_natural_map(d, mu, r, u, f);
      for (int k = 0; k < d; k++) CHECK(fabs(f[k]) < 1e-14);
      /* De Saxce: r in K_mu, -ut in the polar... and <r, ut> = 0 */
      fcd_desaxce_velocity(d, mu, u, ut);
      CHECK(fabs(dot(d, r, ut)) < 1e-14);
      /* seed 003 (3)-(4): r = proj(r - rho u) for any rho > 0 (velocity form, stick/slip/open) */
      double rho = 0.01 + 10 * fcdt_rand(), x[3], y[3];
      for (int k = 0; k < d; k++) x[k] = r[k] - rho * u[k];
      fcd_proj_coulomb_disc(d, mu, x, y);
      for (int k = 0; k < d; k++) CHECK(fabs(y[k] - r[k]) < 1e-13);
      /* and a point violating the law is detected by the natural map */
      double rb[3] = {r[0], r[1], d == 3 ? r[2] : 0}, ub[3] = {u[0], u[1], d == 3 ? u[2] : 0};
      if (st == 0) rb[0] = 0.05; /* a tensile reaction */
      else ub[0] = 0.05;         /* an approaching velocity under a compressive reaction */
      fcd_natural_map(d, mu, rb, ub, f);
      CHECK(sqrt(dot(d, f, f)) > 1e-6);
    }
}

/* The frictionless cone K_0 is the ray {x_T = 0, x_N <= 0}: a point with x_T = 0 and
 * x_N > 0 projects to 0, not onto itself (the bug that kept every solver from an open
 * frictionless contact: its natural map was q itself, residual 1). */
static void test_frictionless_cone(void) {
  for (int d = 2; d <= 3; d++) {
    double x[3] = {0.7, 0.0, 0.0}, y[3], f[3];
    fcd_proj_coulomb_cone(d, 0.0, x, y);
    for (int k = 0; k < d; k++) CHECK(y[k] == 0.0);
    x[0] = -0.7;
    fcd_proj_coulomb_cone(d, 0.0, x, y);
    CHECK(y[0] == -0.7 && y[1] == 0.0);
    x[1] = 0.3; /* tangential part removed, normal kept */
    fcd_proj_coulomb_cone(d, 0.0, x, y);
    CHECK(y[0] == -0.7 && y[1] == 0.0);
    /* an open frictionless contact: r = 0, u_N < 0 (fcd's sign: separated) */
    const double r[3] = {0, 0, 0}, u[3] = {-0.015, 0.0, 0.0};
    fcd_natural_map(d, 0.0, r, u, f);
    for (int k = 0; k < d; k++) CHECK(f[k] == 0.0);
  }
}

int main(void) {
  test_frictionless_cone();
  test_cone_properties();
  test_seed003_values();
  test_law_equivalence();
  return fcdt_finish("test_projection");
}
