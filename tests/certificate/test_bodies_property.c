/* Property test of bodies held only by their contacts (issue 64): a plane-strain body
 * resting on a base (the base's bottom held), with random widths, offsets, initial gaps,
 * discretizations (matching node pairs, node-to-segment, dual mortar), friction
 * (frictionless and frictional), loads (pressure, lateral, off-centre, a pull) and, in a
 * quarter of the trials, an imposed slip (the body's top pushed sideways by a prescribed
 * u_x). Every answer is judged here, independently of fcd's certificate:
 *
 * - FCD_OK: the balance K u = f + H^T r on the free dofs (K from this test's triplets),
 *   the contact law of every contact with the definitions of docs/conventions.md
 *   (Signorini, the cone, stick with no tangential displacement from the zero
 *   reference), the body's statics (its load, contact forces and support reactions have
 *   zero resultant and moment), and the existence test below must find the load
 *   balanceable;
 * - FCD_E_NO_SOLUTION: the existence test must find it not balanceable: a linear program
 *   (a dense simplex, phase I, written here) asking whether reactions on the edges of
 *   every contact's Coulomb cone, and reactions of either sign at the body's prescribed
 *   dofs, can balance the resultant (two forces and a moment) of the body's load.
 *   Columns come from fcd_contact_set_global applied to one generator at a time, so the
 *   test reads the contact rows, not fcd's rigid modes or least squares.
 * Other outcomes are failures. FCDT_VERBOSE=1 prints every trial. */
#include "fcd/fcd.h"
#include "fcd/fcd_vtk.h"
#include "../common/block2d.h"
#include "../fcdtest.h"

enum { TRIALS = 240 };

/* ---- a dense simplex, phase I: is there l >= 0 with A l = b? (m rows, p columns,
 * column-major A) Bland's rule; returns the phase-I optimum over |b|_1 (0: feasible) */
static double lp_phase1(int m, int p, const double *A, const double *b) {
  int nc = p + m;
  double *T = calloc((size_t)(m + 1) * (size_t)(nc + 1), sizeof *T);
  int *basis = malloc((size_t)m * sizeof *basis);
  double bn = 0;
#define TT(i, j) T[(size_t)(i) * (size_t)(nc + 1) + (size_t)(j)]
  for (int i = 0; i < m; i++) {
    double sg = b[i] < 0 ? -1 : 1;
    for (int j = 0; j < p; j++) TT(i, j) = sg * A[(size_t)j * (size_t)m + (size_t)i];
    TT(i, p + i) = 1;
    TT(i, nc) = sg * b[i];
    basis[i] = p + i;
    bn += fabs(b[i]);
  }
  /* objective row: minimize the sum of the artificials = reduced costs -sum of rows */
  for (int j = 0; j <= nc; j++) {
    double s = 0;
    for (int i = 0; i < m; i++) s += TT(i, j);
    TT(m, j) = j < p || j == nc ? -s : 0;
  }
  for (int it = 0; it < 50 * (nc + m); it++) {
    int enter = -1;
    for (int j = 0; j < nc; j++)
      if (TT(m, j) < -1e-12 * (1 + bn)) {
        enter = j;
        break;
      }
    if (enter < 0) break;
    int leave = -1;
    double best = INFINITY;
    for (int i = 0; i < m; i++)
      if (TT(i, enter) > 1e-12) {
        double ratio = TT(i, nc) / TT(i, enter);
        if (leave < 0 || ratio < best - 1e-15 ||
            (fabs(ratio - best) <= 1e-15 && basis[i] < basis[leave])) {
          best = ratio;
          leave = i;
        }
      }
    if (leave < 0) break; /* unbounded in phase I cannot happen; stop */
    double pv = TT(leave, enter);
    for (int j = 0; j <= nc; j++) TT(leave, j) /= pv;
    for (int i = 0; i <= m; i++) {
      if (i == leave) continue;
      double f = TT(i, enter);
      if (f != 0)
        for (int j = 0; j <= nc; j++) TT(i, j) -= f * TT(leave, j);
    }
    basis[leave] = enter;
  }
  double obj = -TT(m, nc);
#undef TT
  free(T);
  free(basis);
  return bn > 0 ? obj / bn : 0;
}

/* ---- the model --------------------------------------------------------------- */
typedef struct {
  tb_block base, body;
  fcd_index nb;      /* base dofs; the body's come after */
  double x0, gap, mu, lateral, ux;
  int method;        /* 0 pairs, 1 node-to-segment, 2 dual mortar */
  int pull, point, slip;
  fcd_system *sys;
  fcd_contact_set *cs;
  fcd_mesh *mesh;
  double *f, *xy;
  fcd_index n, nnodes, *fixed;
  double *fixval;
  fcd_index nfixed;
} model;

static fcd_index body_node(const model *m, int i, int j) {
  return m->nb / 2 + tb_node(&m->body, i, j);
}

static int build(model *m, unsigned trial) {
  memset(m, 0, sizeof *m);
  int nxb = 4 + (int)(fcdt_rand() * 5); /* 4 to 8 cells across a unit width */
  m->method = (int)(fcdt_rand() * 3);
  const double gaps[4] = {0.0, 1e-3, 0.5, 10.0};
  const double mus[3] = {0.0, 0.1, 0.5};
  m->gap = gaps[(int)(fcdt_rand() * 4)];
  m->mu = mus[(int)(fcdt_rand() * 3)];
  int nxt;
  double wt;
  if (m->method == 0) {
    /* matching nodes: the body spans k of the base's cells from cell c0 */
    int k = 1 + (int)(fcdt_rand() * nxb), c0 = (int)(fcdt_rand() * (nxb - k + 1));
    nxt = k;
    wt = (double)k / nxb;
    m->x0 = (double)c0 / nxb;
  } else {
    nxt = 2 + (int)(fcdt_rand() * 5);
    wt = 0.3 + 0.9 * fcdt_rand();
    m->x0 = -0.2 + (1.1 - 0.2 * wt) * fcdt_rand();
    if (m->x0 + wt < 0.15) m->x0 = 0.15 - wt; /* some overlap */
    if (m->x0 > 0.85) m->x0 = 0.85;
  }
  double u = fcdt_rand();
  m->slip = u < 0.25;
  m->pull = !m->slip && u > 0.92;
  m->point = fcdt_rand() < 0.25;
  const double lat[4] = {0.0, 0.05, 0.3, 0.8};
  m->lateral = m->slip ? 0.0 : lat[(int)(fcdt_rand() * 4)];
  m->ux = 1e-3;
  (void)trial;
  if (tb_block_build(&m->base, nxb, 2, 1.0, 0.3, 1e7, 0.3, 0) ||
      tb_block_build(&m->body, nxt, 2, wt, 0.4, 1e7, 0.3, 0))
    return -1;
  m->nb = m->base.ndofs;
  m->n = m->nb + m->body.ndofs;
  m->nnodes = m->n / 2;
  /* K of both, the body's shifted */
  fcd_index nk = m->base.nk + m->body.nk;
  fcd_index *ki = malloc((size_t)nk * sizeof *ki), *kj = malloc((size_t)nk * sizeof *kj);
  double *kv = malloc((size_t)nk * sizeof *kv);
  for (fcd_index e = 0; e < m->base.nk; e++) {
    ki[e] = m->base.ki[e];
    kj[e] = m->base.kj[e];
    kv[e] = m->base.kv[e];
  }
  for (fcd_index e = 0; e < m->body.nk; e++) {
    ki[m->base.nk + e] = m->body.ki[e] + m->nb;
    kj[m->base.nk + e] = m->body.kj[e] + m->nb;
    kv[m->base.nk + e] = m->body.kv[e];
  }
  CHECK_ST(fcd_system_create(m->n, &m->sys), FCD_OK);
  CHECK_ST(fcd_system_set_matrix_coo(m->sys, FCD_STIFFNESS, nk, ki, kj, kv, FCD_COO_UPPER),
           FCD_OK);
  free(ki);
  free(kj);
  free(kv);
  /* coordinates */
  m->xy = malloc((size_t)m->n * sizeof *m->xy);
  for (int j = 0; j <= 2; j++)
    for (int i = 0; i <= nxb; i++) {
      fcd_index p = tb_node(&m->base, i, j);
      m->xy[2 * p] = (double)i / nxb;
      m->xy[2 * p + 1] = 0.3 * j / 2;
    }
  for (int j = 0; j <= 2; j++)
    for (int i = 0; i <= nxt; i++) {
      fcd_index p = body_node(m, i, j);
      m->xy[2 * p] = m->x0 + wt * i / nxt;
      m->xy[2 * p + 1] = 0.3 + m->gap + 0.4 * j / 2;
    }
  /* the base's bottom held; the body's top pushed in x when slipping */
  m->fixed = malloc((size_t)m->n * sizeof *m->fixed);
  m->fixval = calloc((size_t)m->n, sizeof *m->fixval);
  for (int i = 0; i <= nxb; i++) {
    m->fixed[m->nfixed++] = 2 * tb_node(&m->base, i, 0);
    m->fixed[m->nfixed++] = 2 * tb_node(&m->base, i, 0) + 1;
  }
  if (m->slip)
    for (int i = 0; i <= nxt; i++) {
      m->fixval[m->nfixed] = m->ux;
      m->fixed[m->nfixed++] = 2 * body_node(m, i, 2);
    }
  CHECK_ST(fcd_system_fix_dofs(m->sys, m->nfixed, m->fixed, m->fixval), FCD_OK);
  /* the load on the body's top: 1e3 down (or up), a lateral share, or one node's */
  m->f = calloc((size_t)m->n, sizeof *m->f);
  int at = (int)(fcdt_rand() * (nxt + 1));
  for (int i = 0; i <= nxt; i++) {
    if (m->point && i != at) continue;
    double share = m->point ? 1.0 : 1.0 / (nxt + 1);
    fcd_index p = body_node(m, i, 2);
    m->f[2 * p + 1] = (m->pull ? 1e3 : -1e3) * share;
    m->f[2 * p] = m->lateral * 1e3 * share;
  }
  CHECK_ST(fcd_system_set_load(m->sys, m->f), FCD_OK);
  /* contacts */
  CHECK_ST(fcd_contact_set_create(m->sys, 2, &m->cs), FCD_OK);
  CHECK_ST(fcd_mesh_create(m->sys, 2, m->nnodes, m->xy, NULL, &m->mesh), FCD_OK);
  if (m->method == 0) {
    const double nrm[2] = {0, -1}, tan[2] = {1, 0};
    for (int i = 0; i <= nxt; i++) {
      fcd_index s = body_node(m, i, 0);
      int ib = (int)lround(m->xy[2 * s] * nxb);
      fcd_index t = tb_node(&m->base, ib, 2);
      const fcd_index da[2] = {2 * s, 2 * s + 1}, db[2] = {2 * t, 2 * t + 1};
      CHECK_ST(fcd_contact_set_add_pair(m->cs, da, db, nrm, tan, m->gap, m->mu, NULL), FCD_OK);
    }
    return 0;
  }
  fcd_index *slave = malloc(2 * (size_t)nxt * sizeof *slave);
  fcd_index *master = malloc(2 * (size_t)nxb * sizeof *master);
  for (int i = 0; i < nxt; i++) {
    slave[2 * i] = body_node(m, i, 0);
    slave[2 * i + 1] = body_node(m, i + 1, 0);
  }
  for (int i = 0; i < nxb; i++) {
    master[2 * i] = tb_node(&m->base, i + 1, 2);
    master[2 * i + 1] = tb_node(&m->base, i, 2);
  }
  fcd_status st = fcd_contact_set_add_surface_pair(
      m->cs, m->mesh, nxt, slave, nxb, master,
      m->method == 1 ? FCD_SURFACE_NODE_TO_SEGMENT : FCD_SURFACE_DUAL_MORTAR, m->mu, NULL,
      NULL);
  free(slave);
  free(master);
  return st == FCD_OK ? 0 : 1; /* 1: the surfaces do not face each other: another trial */
}

static void destroy(model *m) {
  fcd_mesh_destroy(m->mesh);
  fcd_contact_set_destroy(m->cs);
  fcd_system_destroy(m->sys);
  tb_block_free(&m->base);
  tb_block_free(&m->body);
  free(m->f);
  free(m->xy);
  free(m->fixed);
  free(m->fixval);
}

/* (Fx, Fy, M about the origin) of nodal forces g on the body's nodes */
static void resultant(const model *m, const double *g, double *out) {
  out[0] = out[1] = out[2] = 0;
  for (fcd_index d = m->nb; d < m->n; d++) {
    fcd_index p = d / 2;
    out[d % 2] += g[d];
    out[2] += d % 2 ? m->xy[2 * p] * g[d] : -m->xy[2 * p + 1] * g[d];
  }
}

/* the existence test: phase-I optimum of the body's resultant balance */
static double existence(const model *m) {
  fcd_index nc = fcd_contact_set_size(m->cs);
  int p = 0, cap = (int)(3 * nc + 2 * m->nfixed);
  double *A = calloc((size_t)cap * 3, sizeof *A), *r = calloc((size_t)(2 * nc), sizeof *r);
  double *g = malloc((size_t)m->n * sizeof *g), b[3];
  for (fcd_index c = 0; c < nc; c++) {
    const double gen[3][2] = {{-1, 0}, {-1, m->mu}, {-1, -m->mu}};
    for (int k = 0; k < (m->mu > 0 ? 3 : 1); k++) {
      memset(r, 0, (size_t)(2 * nc) * sizeof *r);
      r[2 * c] = gen[k][0];
      r[2 * c + 1] = gen[k][1];
      fcd_contact_set_global(m->cs, r, g);
      resultant(m, g, A + 3 * p++);
    }
  }
  for (fcd_index k = 0; k < m->nfixed; k++) {
    if (m->fixed[k] < m->nb) continue;
    for (int sg = -1; sg <= 1; sg += 2) {
      memset(g, 0, (size_t)m->n * sizeof *g);
      g[m->fixed[k]] = sg;
      resultant(m, g, A + 3 * p++);
    }
  }
  resultant(m, m->f, b);
  for (int i = 0; i < 3; i++) b[i] = -b[i];
  double obj = lp_phase1(3, p, A, b);
  free(A);
  free(r);
  free(g);
  return obj;
}

/* the independent checks of an answer; returns the worst figure */
static double check_answer(const model *m, const double *u, const double *r) {
  fcd_index n = m->n, nc = fcd_contact_set_size(m->cs);
  double *ku = calloc((size_t)n, sizeof *ku), *aku = calloc((size_t)n, sizeof *aku);
  double *hr = calloc((size_t)n, sizeof *hr), *loc = calloc((size_t)(2 * nc) + 1, sizeof *loc);
  unsigned char *fx = calloc((size_t)n, 1);
  for (fcd_index k = 0; k < m->nfixed; k++) fx[m->fixed[k]] = 1;
  const tb_block *bl[2] = {&m->base, &m->body};
  const fcd_index off[2] = {0, m->nb};
  double kmax = 0;
  for (int w = 0; w < 2; w++)
    for (fcd_index e = 0; e < bl[w]->nk; e++) {
      fcd_index i = bl[w]->ki[e] + off[w], j = bl[w]->kj[e] + off[w];
      double v = bl[w]->kv[e];
      ku[i] += v * u[j];
      aku[i] += fabs(v * u[j]);
      if (i != j) {
        ku[j] += v * u[i];
        aku[j] += fabs(v * u[i]);
      } else if (!fx[i]) {
        kmax = fmax(kmax, v);
      }
    }
  fcd_contact_set_global(m->cs, r, hr);
  fcd_contact_set_local(m->cs, u, loc);
  double F = 0, E = 0, L = 0, R;
  for (fcd_index i = 0; i < n; i++) {
    L = fmax(L, fabs(u[i]));
    if (fx[i]) continue;
    F = fmax(F, fmax(fabs(m->f[i]), fmax(fabs(hr[i]), aku[i])));
    E = fmax(E, fabs(ku[i] - m->f[i] - hr[i]));
  }
  L = fmax(fmax(L, m->gap), F / kmax);
  R = F;
  for (fcd_index c = 0; c < 2 * nc; c++) R = fmax(R, fabs(r[c]));
  double worst = E / F;
  for (fcd_index c = 0; c < nc; c++) {
    double gap;
    fcd_contact_set_get(m->cs, c, NULL, &gap, NULL, NULL);
    double gr = loc[2 * c] - gap, rn = r[2 * c], rt = r[2 * c + 1], ut = loc[2 * c + 1];
    worst = fmax(worst, fmax(0.0, gr) / L);                     /* penetration */
    worst = fmax(worst, fabs(fmin(-gr / L, -rn / R)));          /* Signorini */
    worst = fmax(worst, fmax(0.0, rn) / R);                     /* tension */
    worst = fmax(worst, fmax(0.0, fabs(rt) - m->mu * fabs(rn)) / R); /* cone */
    /* Coulomb with zero reference: r_T = proj_{mu |r_N|}(r_T - (R / L) u_T) */
    double y = rt - (R / L) * ut, rad = m->mu * fmax(0.0, -rn);
    if (fabs(y) > rad) y = y > 0 ? rad : -rad;
    worst = fmax(worst, fabs(rt - y) / R);
  }
  /* the body's statics: load, contact forces and the supports' reactions K u - f at its
   * prescribed dofs have zero resultant and moment */
  double *g = calloc((size_t)n, sizeof *g), res[3], scale = 0;
  for (fcd_index i = m->nb; i < n; i++) {
    /* a prescribed dof carries the load and its support's reaction, K u in all */
    g[i] = fx[i] ? ku[i] : m->f[i] + hr[i];
    scale = fmax(scale, fabs(m->f[i]) + fabs(hr[i]) + aku[i]);
  }
  resultant(m, g, res);
  double span = 2 + m->gap;
  worst = fmax(worst, fmax(fabs(res[0]), fmax(fabs(res[1]), fabs(res[2]) / span)) /
                          (scale * (double)(n - m->nb)));
  free(g);
  free(ku);
  free(aku);
  free(hr);
  free(loc);
  free(fx);
  return worst;
}

int main(void) {
  int n_ok = 0, n_none = 0, n_skip = 0;
  int by_method[3] = {0, 0, 0};
  for (unsigned trial = 0; trial < TRIALS; trial++) {
    model m;
    int b = build(&m, trial);
    if (b != 0) {
      n_skip++;
      destroy(&m);
      continue;
    }
    double feas = existence(&m);
    fcd_equilibrium *eq;
    CHECK_ST(fcd_equilibrium_create(m.sys, m.cs, &eq), FCD_OK);
    fcd_status st = fcd_equilibrium_solve(eq, FCD_EQ_STATIC, 0.0);
    fcd_index nc = fcd_contact_set_size(m.cs);
    const char *what;
    if (st == FCD_OK) {
      double *u = malloc((size_t)m.n * sizeof *u), *r = malloc((size_t)(2 * nc) * sizeof *r);
      fcd_equilibrium_get_state(eq, u);
      fcd_equilibrium_get_reactions(eq, r);
      double w = check_answer(&m, u, r);
      CHECK(w <= 1e-8);
      CHECK(feas <= 1e-9); /* an equilibrium exists, so the rigid balance does */
      if (w > 1e-8 || feas > 1e-9)
        printf("  trial %u: FCD_OK with a recomputed figure of %.3e (existence %.3e)\n", trial,
               w, feas);
      n_ok++;
      by_method[m.method]++;
      what = "solved";
      free(u);
      free(r);
    } else if (st == FCD_E_NO_SOLUTION) {
      /* refused: the rigid balance must be out of reach, by a margin over round-off */
      CHECK(feas > 1e-9);
      if (!(feas > 1e-9))
        printf("  trial %u: refused although the existence test balances it (%.3e): %s\n",
               trial, feas, fcd_system_last_error(m.sys));
      n_none++;
      what = "no equilibrium";
    } else {
      CHECK_ST(st, FCD_OK);
      printf("  trial %u (method %d, mu %g, gap %g, slip %d, pull %d, point %d, lateral %g): "
             "%s\n", trial, m.method, m.mu, m.gap, m.slip, m.pull, m.point, m.lateral,
             fcd_system_last_error(m.sys));
      what = "failed";
    }
    if (getenv("FCDT_VERBOSE"))
      printf("trial %u: method %d mu %g gap %g x0 %.3f slip %d pull %d point %d lateral %g: "
             "%s (existence %.2e)\n", trial, m.method, m.mu, m.gap, m.x0, m.slip, m.pull,
             m.point, m.lateral, what, feas);
    fcd_equilibrium_destroy(eq);
    destroy(&m);
  }
  printf("bodies on their contacts: %d trials, %d solved (pairs %d, node-to-segment %d, "
         "mortar %d), %d without an equilibrium, %d skipped (no overlap); every answer and "
         "refusal checked independently\n", TRIALS, n_ok, by_method[0], by_method[1],
         by_method[2], n_none, n_skip);
  CHECK(n_ok >= TRIALS / 3 && n_none >= 3); /* not vacuous either way */
  fcd_finalize();
  return fcdt_finish("test_bodies_property");
}
