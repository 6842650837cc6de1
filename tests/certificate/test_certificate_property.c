/* Property test of the certificates (issue: certified answers): over random small
 * contact problems, 2D and 3D, mu from 0 to 1e20, with and without rigid modes, fcd
 * must never return FCD_OK with an answer whose certificate, recomputed here from what
 * fcd returns and from the definitions of docs/conventions.md, exceeds the tolerance.
 *
 * The models are trusses: 4 to 6 nodes at random positions, a spring between every pair
 * along its direction (a generically rigid truss: its stiffness K has exactly the rigid
 * modes, 3 in 2D and 6 in 3D), with ground springs on every dof or on none (then the
 * body is held by its contacts alone). Every node may touch a rigid flat below it
 * (normal -e_d into the flat), with a random gap in [0, 0.01] and a random friction
 * coefficient from {0, 0.1, 0.5, 1, 3, 1e4, 1e10, 1e20}; the load pushes the truss onto
 * the flat, with a random lateral part.
 *
 * Checked, for each problem:
 * - static equilibrium: balance, Signorini, Coulomb (slip = u_T from the zero
 *   reference), cone, with the documented scales;
 * - one Moreau-Jean step (theta = 1, e = 0) from rest: the impulse balance of backward
 *   Euler and the velocity-level law on the contacts whose predicted gap is closed;
 * - the one-step local problem u = W r + q with a random SPD W.
 * Answers other than FCD_OK (FCD_E_NOT_CONVERGED, and FCD_E_NO_SOLUTION for a body its
 * contacts cannot hold) are allowed but counted: most problems must solve. FCDT_VERBOSE=1
 * prints the message of every refusal. */
#include "fcd/fcd.h"
#include "../fcdtest.h"

#define TOL 1e-8
#define MAXN 6

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static double urand(void) { /* xorshift64*, uniform in [0, 1) */
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return (double)((rng * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
}

typedef struct {
  int d, nn, n, ground;
  double K[MAXN * 3][MAXN * 3], M[MAXN * 3];
  double f[MAXN * 3], gap[MAXN], mu[MAXN];
} model;

static void build(model *m, int d, int ground) {
  memset(m, 0, sizeof *m);
  m->d = d;
  m->nn = 4 + (int)(urand() * 3);
  m->n = m->nn * d;
  m->ground = ground;
  double x[MAXN][3];
  for (int i = 0; i < m->nn; i++)
    for (int k = 0; k < d; k++) x[i][k] = urand() + (k == d - 1 ? 0.5 : 0.0);
  for (int i = 0; i < m->nn; i++)
    for (int j = i + 1; j < m->nn; j++) {
      double e[3] = {0}, l = 0;
      for (int k = 0; k < d; k++) {
        e[k] = x[j][k] - x[i][k];
        l += e[k] * e[k];
      }
      l = sqrt(l);
      double ks = (0.5 + urand()) * 100.0;
      for (int a = 0; a < d; a++)
        for (int b = 0; b < d; b++) {
          double v = ks * e[a] * e[b] / (l * l);
          m->K[i * d + a][i * d + b] += v;
          m->K[j * d + a][j * d + b] += v;
          m->K[i * d + a][j * d + b] -= v;
          m->K[j * d + a][i * d + b] -= v;
        }
    }
  if (ground)
    for (int i = 0; i < m->n; i++) m->K[i][i] += 1.0 + urand();
  const double mus[8] = {0, 0.1, 0.5, 1, 3, 1e4, 1e10, 1e20};
  double lat = urand() < 0.5 ? 0.05 : 0.5;
  for (int i = 0; i < m->nn; i++) {
    m->M[i * d] = 0.5 + urand();
    for (int k = 1; k < d; k++) m->M[i * d + k] = m->M[i * d];
    m->gap[i] = urand() < 0.3 ? 0.0 : 0.01 * urand();
    m->mu[i] = mus[(int)(urand() * 8)];
    for (int k = 0; k < d - 1; k++) m->f[i * d + k] = lat * (2 * urand() - 1);
    m->f[i * d + d - 1] = -(0.5 + urand());
  }
}

static fcd_system *make_system(const model *m, fcd_contact_set **cs) {
  fcd_index ri[MAXN * 3 * MAXN * 3], ci[MAXN * 3 * MAXN * 3], di[MAXN * 3];
  double v[MAXN * 3 * MAXN * 3];
  fcd_index nz = 0;
  for (int i = 0; i < m->n; i++)
    for (int j = i; j < m->n; j++)
      if (m->K[i][j] != 0) {
        ri[nz] = i;
        ci[nz] = j;
        v[nz++] = m->K[i][j];
      }
  for (int i = 0; i < m->n; i++) di[i] = i;
  fcd_system *sys = NULL;
  CHECK_ST(fcd_system_create(m->n, &sys), FCD_OK);
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, nz, ri, ci, v, FCD_COO_UPPER), FCD_OK);
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_MASS, m->n, di, di, m->M, FCD_COO_UPPER), FCD_OK);
  CHECK_ST(fcd_system_set_load(sys, m->f), FCD_OK);
  CHECK_ST(fcd_contact_set_create(sys, m->d, cs), FCD_OK);
  double nrm[3] = {0, 0, 0}, t1[3] = {1, 0, 0};
  nrm[m->d - 1] = -1;
  for (int i = 0; i < m->nn; i++) {
    fcd_index dofs[3] = {i * m->d, i * m->d + 1, i * m->d + 2};
    CHECK_ST(fcd_contact_set_add_rigid(*cs, dofs, nrm, t1, m->gap[i], m->mu[i], NULL), FCD_OK);
  }
  return sys;
}

/* local frame of node i: N = -x_d, T1 = x_0, (T2 = x_1 in 3D, completing the frame as
 * fcd does: t2 = n x t1 = (-e_z) x e_x = -e_y) */
static void to_local(const model *m, const double *x, int i, double *l) {
  l[0] = -x[i * m->d + m->d - 1];
  l[1] = x[i * m->d];
  if (m->d == 3) l[2] = -x[i * m->d + 1];
}

/* Coulomb's law as the fixed point of the projection onto the disc of radius rad */
static double friction_res(int d, double rad, const double *rt, const double *wt, double rho) {
  double y[2] = {0, 0}, ny = 0, e = 0;
  for (int k = 0; k < d - 1; k++) {
    y[k] = rt[k] - rho * wt[k];
    ny += y[k] * y[k];
  }
  ny = sqrt(ny);
  if (ny > rad)
    for (int k = 0; k < d - 1; k++) y[k] = ny > 0 ? y[k] * rad / ny : 0;
  for (int k = 0; k < d - 1; k++) e += (rt[k] - y[k]) * (rt[k] - y[k]);
  return sqrt(e);
}

/* contact figures at one contact: law l (normal gap residual or velocity, then slip),
 * reaction r; scales L (length or velocity) and R */
static double contact_worst(int d, double mu, const double *l, const double *r, double L,
                            double R) {
  double rt = d == 2 ? fabs(r[1]) : hypot(r[1], r[2]);
  double w = fmax(0.0, l[0]) / L;                          /* penetration */
  w = fmax(w, fabs(fmin(-l[0] / L, -r[0] / R)));            /* Signorini */
  w = fmax(w, fmax(0.0, r[0]) / R);                         /* tension */
  double rad = mu * fmax(0.0, -r[0]);
  w = fmax(w, fmax(0.0, rt - rad) / R);                     /* cone */
  w = fmax(w, friction_res(d, rad, r + 1, l + 1, R / L) / R); /* Coulomb */
  return w;
}

static int n_ok, n_refused, n_problems, n_singular;

static void check_static(const model *m) {
  fcd_contact_set *cs;
  fcd_system *sys = make_system(m, &cs);
  fcd_equilibrium *eq;
  CHECK_ST(fcd_equilibrium_create(sys, cs, &eq), FCD_OK);
  fcd_status st = fcd_equilibrium_solve(eq, FCD_EQ_STATIC, 0.0);
  n_problems++;
  if (st != FCD_OK) {
    CHECK(st == FCD_E_NOT_CONVERGED || st == FCD_E_NO_SOLUTION);
    n_refused++;
    n_singular += st == FCD_E_NO_SOLUTION;
    if (getenv("FCDT_VERBOSE")) fprintf(stderr, "static %dD ground %d: %s\n", m->d, m->ground, fcd_system_last_error(sys));
  } else {
    n_ok++;
    int d = m->d, n = m->n;
    double u[MAXN * 3], r[MAXN * 3], hr[MAXN * 3] = {0}, ku[MAXN * 3] = {0}, aku[MAXN * 3] = {0};
    fcd_equilibrium_get_state(eq, u);
    fcd_equilibrium_get_reactions(eq, r);
    /* H^T r: node i's global force from its local reaction */
    for (int i = 0; i < m->nn; i++) {
      hr[i * d + d - 1] = -r[i * d];
      hr[i * d] = r[i * d + 1];
      if (d == 3) hr[i * d + 1] = -r[i * d + 2];
    }
    double F = 0, res = 0, L = 0, dmax = 0, R;
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < n; j++) {
        ku[i] += m->K[i][j] * u[j];
        aku[i] += fabs(m->K[i][j]) * fabs(u[j]);
      }
      F = fmax(F, fmax(fabs(m->f[i]), fmax(fabs(hr[i]), aku[i])));
      res = fmax(res, fabs(ku[i] - m->f[i] - hr[i]));
      L = fmax(L, fabs(u[i]));
      dmax = fmax(dmax, m->K[i][i]);
    }
    for (int i = 0; i < m->nn; i++) L = fmax(L, m->gap[i]);
    L = fmax(L, F / dmax);
    R = F;
    for (int i = 0; i < m->nn * d; i++) R = fmax(R, fabs(r[i]));
    double worst = res / F;
    for (int i = 0; i < m->nn; i++) {
      double l[3];
      to_local(m, u, i, l);
      l[0] -= m->gap[i];
      worst = fmax(worst, contact_worst(d, m->mu[i], l, r + i * d, L, R));
    }
    CHECK(worst <= TOL);
    if (worst > TOL)
      fprintf(stderr, "static, %dD, %d nodes, ground %d: FCD_OK with a recomputed "
              "certificate of %.3e\n", d, m->nn, m->ground, worst);
  }
  fcd_equilibrium_destroy(eq);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
}

/* One backward-Euler Moreau-Jean step from rest, h = 0.01:
 *   M (v1 - 0) + h K (u0 + h v1) - h f - H^T p = 0, u0 = 0,
 * and on the contacts whose predicted gap (u0 + h v0 = 0) is closed, i.e. gap 0, the
 * law on v1 at the velocity level with impulses p. */
static void check_step(const model *m) {
  fcd_contact_set *cs;
  fcd_system *sys = make_system(m, &cs);
  fcd_integrator *it;
  const double h = 0.01;
  CHECK_ST(fcd_integrator_create(sys, cs, FCD_SCHEME_MOREAU_JEAN, &it), FCD_OK);
  CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_STEP, h), FCD_OK);
  CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_THETA, 1.0), FCD_OK);
  double z[MAXN * 3] = {0};
  CHECK_ST(fcd_integrator_set_state(it, 0, z, z), FCD_OK);
  fcd_status st = fcd_integrator_step(it);
  n_problems++;
  if (st != FCD_OK) {
    CHECK(st == FCD_E_NOT_CONVERGED);
    n_refused++;
    if (getenv("FCDT_VERBOSE")) fprintf(stderr, "step %dD ground %d: %s\n", m->d, m->ground, fcd_system_last_error(sys));
  } else {
    n_ok++;
    int d = m->d, n = m->n;
    double v[MAXN * 3], p[MAXN * 3], hp[MAXN * 3] = {0};
    fcd_integrator_get_state(it, NULL, NULL, v);
    fcd_integrator_get_reactions(it, p);
    for (int i = 0; i < m->nn * d; i++) p[i] *= h;
    for (int i = 0; i < m->nn; i++) {
      hp[i * d + d - 1] = -p[i * d];
      hp[i * d] = p[i * d + 1];
      if (d == 3) hp[i * d + 1] = -p[i * d + 2];
    }
    double Fb = 0, res = 0, V = 0, P;
    for (int i = 0; i < n; i++) {
      double kv = 0, akv = 0;
      for (int j = 0; j < n; j++) {
        kv += m->K[i][j] * v[j];
        akv += fabs(m->K[i][j]) * fabs(v[j]);
      }
      double r = m->M[i] * v[i] + h * h * kv - h * m->f[i] - hp[i];
      res = fmax(res, fabs(r));
      Fb = fmax(Fb, fabs(m->M[i] * v[i]) + h * h * akv + fabs(h * m->f[i]) + fabs(hp[i]));
      V = fmax(V, fabs(v[i]));
    }
    P = Fb;
    for (int i = 0; i < m->nn * d; i++) P = fmax(P, fabs(p[i]));
    /* fcd's velocity scale may also be raised to P times the smallest contact
     * compliance; leaving that term out here keeps the recomputed check the stricter */
    double worst = res / Fb;
    for (int i = 0; i < m->nn; i++) {
      double l[3];
      to_local(m, v, i, l);
      V = fmax(V, fmax(fabs(l[0]), fabs(l[1])));
    }
    for (int i = 0; i < m->nn; i++) {
      double l[3];
      to_local(m, v, i, l);
      if (m->gap[i] == 0.0) {
        worst = fmax(worst, contact_worst(d, m->mu[i], l, p + i * d, V, P));
      } else {
        /* out of the index set: carries nothing */
        for (int k = 0; k < d; k++) worst = fmax(worst, fabs(p[i * d + k]) / P);
      }
    }
    CHECK(worst <= TOL);
    if (worst > TOL)
      fprintf(stderr, "Moreau-Jean step, %dD, %d nodes, ground %d: FCD_OK with a "
              "recomputed certificate of %.3e\n", d, m->nn, m->ground, worst);
  }
  fcd_integrator_destroy(it);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
}

/* the one-step local problem, W = A A^T + 0.01 I (dense, in CSR), q random */
static void check_local(int d) {
  int nc = 2 + (int)(urand() * 4), m = nc * d;
  double A[24][24], W[24 * 24], q[24], mu[6], r[24] = {0}, u[24];
  fcd_index rp[25], ci[24 * 24];
  for (int i = 0; i < m; i++)
    for (int j = 0; j < m; j++) A[i][j] = 2 * urand() - 1;
  for (int i = 0; i < m; i++) {
    rp[i] = i * m;
    for (int j = 0; j < m; j++) {
      double s = i == j ? 0.01 : 0.0;
      for (int k = 0; k < m; k++) s += A[i][k] * A[j][k];
      W[i * m + j] = s;
      ci[i * m + j] = j;
    }
    q[i] = 2 * urand() - 1;
  }
  rp[m] = m * m;
  const double mus[8] = {0, 0.1, 0.5, 1, 3, 1e4, 1e10, 1e20};
  for (int c = 0; c < nc; c++) mu[c] = mus[(int)(urand() * 8)];
  fcd_fc_problem *p;
  CHECK_ST(fcd_fc_problem_create_local(d, nc, rp, ci, W, q, mu, &p, NULL, 0), FCD_OK);
  fcd_status st = fcd_fc_problem_solve(p, r, NULL, NULL);
  n_problems++;
  if (st != FCD_OK) {
    CHECK(st == FCD_E_NOT_CONVERGED);
    n_refused++;
    if (getenv("FCDT_VERBOSE")) fprintf(stderr, "local %dD: %s\n", d, fcd_fc_problem_last_error(p));
  } else {
    n_ok++;
    double V = 0, P = 0, wmax = 0;
    for (int i = 0; i < m; i++) {
      u[i] = q[i];
      for (int j = 0; j < m; j++) u[i] += W[i * m + j] * r[j];
      V = fmax(V, fmax(fabs(q[i]), fabs(u[i])));
      P = fmax(P, fabs(r[i]));
      wmax = fmax(wmax, W[i * m + i]);
    }
    P = fmax(P, V / wmax);
    double worst = 0;
    for (int c = 0; c < nc; c++) worst = fmax(worst, contact_worst(d, mu[c], u + c * d, r + c * d, V, P));
    /* the documented bound of one-step problems: ten times the solver tolerance (1e-8
     * by default), not below 1e-8 */
    fcd_certificate cert;
    CHECK_ST(fcd_fc_problem_get_certificate(p, &cert), FCD_OK);
    CHECK(cert.tolerance == 1e-7);
    CHECK(worst <= cert.tolerance);
    if (worst > cert.tolerance)
      fprintf(stderr, "local problem, %dD, %d contacts: FCD_OK with a recomputed certificate "
              "of %.3e\n", d, nc, worst);
  }
  fcd_fc_problem_destroy(p);
}

int main(void) {
  model m;
  for (int trial = 0; trial < 60; trial++) {
    int d = 2 + trial % 2, ground = (trial / 2) % 2;
    build(&m, d, ground);
    check_static(&m);
    check_step(&m);
    check_local(d);
  }
  printf("certificate property: %d problems, %d FCD_OK (every one recomputed within its "
         "bound), %d refused (%d without an equilibrium: bodies their contacts cannot hold)\n", n_problems,
         n_ok, n_refused, n_singular);
  CHECK(n_ok >= (8 * n_problems) / 10); /* not vacuous: most problems solve */
  fcd_finalize();
  return fcdt_finish("test_certificate_property");
}
