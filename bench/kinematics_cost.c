/* The cost of non-matching-mesh contacts (issue 22), measured in the same run:
 *
 * 1. Building the rows: two tetrahedral blocks (1 x 1 x 0.2 m each, two cells deep), the
 *    upper one's bottom of (S-1) x (S-1) squares (S x S = 10,000 slave nodes by default)
 *    on the lower one's top of M x M squares, M = 1.2 S (non-matching). The dual-mortar
 *    and node-to-facet rows of the interface (fcd_contact_set_add_surface_pair), timed
 *    against one CHOLMOD factorization of the model's stiffness (both blocks held on
 *    their outer faces: SPD), the factorization every analysis of the model starts with.
 * 2. General rows against node rows on a conforming model: two blocks of C x C x 4
 *    cells with matching interfaces, the contacts as node pairs or as the library's dual
 *    mortar rows (on matching meshes, the same constraints). The upper block pressed on
 *    the lower one: the cost of one Moreau-Jean step (every contact in the local
 *    problem), and of the stability analysis of the sliding state (all slipping along
 *    x, mu 0.3, 20 eigenvalues nearest 60 Hz by SLEPc), mortar over pairs.
 *
 * usage: kinematics_cost [--slave S] [--conform C] [--steps N]
 * Prints `ratio mortar_rows_vs_factor X`, `ratio step_mortar_vs_pairs X`,
 * `ratio stability_mortar_vs_pairs X` (targets: the last two <= 1.2) and details. */
#include <fcd/fcd.h>

#include "args.h"
#include "block_model.h"
#include "fcd_private.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void die(fcd_system *sys, fcd_status st, const char *what) {
  fprintf(stderr, "kinematics_cost: %s: %s (%s)\n", what, fcd_status_str(st),
          sys ? fcd_system_last_error(sys) : "");
  exit(1);
}

#define TRY(what, call)                                                                \
  do {                                                                                 \
    fcd_status st_ = (call);                                                           \
    if (st_ != FCD_OK) die(sys, st_, what);                                            \
  } while (0)

/* two stacked blocks; interface facets (triangles of the Kuhn split, four ids each)
 * and the model's system, mesh and coordinates */
typedef struct {
  fcd_system *sys;
  fcd_mesh *mesh;
  double *xyz;
  fcd_index nlow, nup;   /* node counts */
  int ml, mu_, depth;    /* cells per side of the lower and upper blocks, cells deep */
  fcd_index *slave, *master, ns, nm;
} model;

static fcd_index node(int m, int i, int j, int k) {
  return (fcd_index)k * (m + 1) * (m + 1) + (fcd_index)j * (m + 1) + i;
}

/* the triangles of a block's face at layer k, as Kuhn's split cuts it ((0,1,3) and
 * (0,3,2) of each square's corners q = di + 2 dj), ordered for the outward normal: +z
 * (up) or -z */
static fcd_index *face(int m, int k, fcd_index off, int up) {
  fcd_index *f = malloc(8 * (size_t)m * m * sizeof *f), e = 0;
  for (int j = 0; j < m; j++)
    for (int i = 0; i < m; i++) {
      fcd_index c[4] = {node(m, i, j, k), node(m, i + 1, j, k), node(m, i, j + 1, k),
                        node(m, i + 1, j + 1, k)};
      const fcd_index t[8] = {c[0], up ? c[1] : c[3], up ? c[3] : c[1], -1,
                              c[0], up ? c[3] : c[2], up ? c[2] : c[3], -1};
      for (int q = 0; q < 8; q++) f[e++] = t[q] < 0 ? -1 : t[q] + off;
    }
  return f;
}

static void build(model *md, int ml, int mu, int depth, int hold_up_top, int with_mass) {
  memset(md, 0, sizeof *md);
  const double E = 1e7, nu = 0.3, rho = 1000, L = 1, H = 0.2;
  md->ml = ml;
  md->mu_ = mu;
  md->depth = depth;
  md->nlow = (fcd_index)(ml + 1) * (ml + 1) * (depth + 1);
  md->nup = (fcd_index)(mu + 1) * (mu + 1) * (depth + 1);
  fcd_index nn = md->nlow + md->nup;
  md->xyz = malloc(3 * (size_t)nn * sizeof *md->xyz);
  bench_coo a = {0, 0, NULL, NULL, NULL, NULL, 0, 0};
  fcd_system *sys = NULL;
  if (bench_tet_block(&a, ml, ml, depth, L, L, H, 0.0, 0, E, nu, rho, md->xyz) ||
      bench_tet_block(&a, mu, mu, depth, L, L, H, H, md->nlow, E, nu, rho,
                      md->xyz + 3 * md->nlow))
    die(NULL, FCD_E_NOMEM, "assembly");
  TRY("create", fcd_system_create(3 * nn, &sys));
  TRY("stiffness", fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, (fcd_index)a.ne, a.ri, a.ci,
                                             a.kv, FCD_COO_UPPER));
  if (with_mass)
    TRY("mass", fcd_system_set_matrix_coo(sys, FCD_MASS, (fcd_index)a.ne, a.ri, a.ci, a.mv,
                                          FCD_COO_UPPER));
  bench_coo_free(&a);
  /* held: the lower block's bottom; the upper block's top, wholly or in-plane */
  fcd_index *fix = malloc(3 * (size_t)nn * sizeof *fix), nf = 0;
  for (fcd_index p = 0; p < (fcd_index)(ml + 1) * (ml + 1); p++)
    for (int c = 0; c < 3; c++) fix[nf++] = 3 * p + c;
  for (fcd_index q = 0; q < (fcd_index)(mu + 1) * (mu + 1); q++)
    for (int c = 0; c < (hold_up_top ? 3 : 2); c++)
      fix[nf++] = 3 * (md->nlow + node(mu, 0, 0, depth) + q) + c;
  TRY("fix", fcd_system_fix_dofs(sys, nf, fix, NULL));
  free(fix);
  TRY("mesh", fcd_mesh_create(sys, 3, nn, md->xyz, NULL, &md->mesh));
  md->sys = sys;
  md->slave = face(mu, 0, md->nlow, 0);
  md->master = face(ml, depth, 0, 1);
  md->ns = 2 * (fcd_index)mu * mu;
  md->nm = 2 * (fcd_index)ml * ml;
}

static void drop(model *md) {
  fcd_mesh_destroy(md->mesh);
  fcd_system_destroy(md->sys);
  free(md->xyz);
  free(md->slave);
  free(md->master);
}

static void rows_cost(int S) {
  model md;
  int M = (int)lround(1.2 * (S - 1));
  build(&md, M, S - 1, 2, 1, 0);
  fcd_system *sys = md.sys;
  double t0 = now();
  fcd__factor *fac = NULL;
  TRY("factor", fcd__factor_create(sys, FCD__FACTOR_SPD, &fac));
  TRY("factor", fcd__factor_combination(fac, 0, 0, 1));
  double tf = now() - t0;
  fcd__factor_destroy(fac);
  double tm = INFINITY, tn = INFINITY;
  fcd_index nc = 0, inactive = 0;
  for (int rep = 0; rep < 2; rep++)
    for (int meth = 0; meth < 2; meth++) {
      fcd_contact_set *cs = NULL;
      TRY("contacts", fcd_contact_set_create(sys, 3, &cs));
      t0 = now();
      TRY("surface pair", fcd_contact_set_add_surface_pair(
                              cs, md.mesh, md.ns, md.slave, md.nm, md.master,
                              meth ? FCD_SURFACE_DUAL_MORTAR : FCD_SURFACE_NODE_TO_SEGMENT, 0.3,
                              NULL, &inactive));
      double t = now() - t0;
      if (meth) tm = fmin(tm, t);
      else tn = fmin(tn, t);
      nc = fcd_contact_set_size(cs);
      fcd_contact_set_destroy(cs);
    }
  fprintf(stderr, "rows: %lld dofs, %lld slave nodes (%lld contacts, %lld inactive) on %d x %d "
          "master squares; mortar %.3f s, node-to-facet %.3f s, CHOLMOD factorization of K "
          "%.3f s\n", (long long)fcd_system_ndofs(sys), (long long)S * S, (long long)nc,
          (long long)inactive, M, M, tm, tn, tf);
  printf("figure mortar_rows_seconds %.3f\nfigure node_to_facet_rows_seconds %.3f\n"
         "figure factorization_seconds %.3f\n", tm, tn, tf);
  printf("ratio mortar_rows_vs_factor %.3f\n", tm / tf);
  drop(&md);
}

/* the conforming model's contacts: node pairs (kind 0) or dual mortar rows (kind 1) */
static fcd_contact_set *contacts(model *md, int kind) {
  fcd_system *sys = md->sys;
  fcd_contact_set *cs = NULL;
  TRY("contacts", fcd_contact_set_create(sys, 3, &cs));
  if (kind)
    TRY("surface pair", fcd_contact_set_add_surface_pair(cs, md->mesh, md->ns, md->slave, md->nm,
                                                         md->master, FCD_SURFACE_DUAL_MORTAR,
                                                         0.3, NULL, NULL));
  else
    for (int j = 0; j <= md->mu_; j++)
      for (int i = 0; i <= md->mu_; i++) {
        fcd_index s = md->nlow + node(md->mu_, i, j, 0), m = node(md->ml, i, j, md->depth);
        const fcd_index a[3] = {3 * s, 3 * s + 1, 3 * s + 2}, b[3] = {3 * m, 3 * m + 1, 3 * m + 2};
        const double n[3] = {0, 0, -1}, t[3] = {1, 0, 0};
        TRY("pair", fcd_contact_set_add_pair(cs, a, b, n, t, 0.0, 0.3, NULL));
      }
  return cs;
}

static void conforming_cost(int C, int steps) {
  model md;
  build(&md, C, C, 4, 0, 1);
  fcd_system *sys = md.sys;
  fcd_index n = fcd_system_ndofs(sys);
  /* a pressure of 1e5 Pa on the upper block's top, lumped per node */
  double *f = calloc((size_t)n, sizeof *f), *u = calloc((size_t)n, sizeof *u);
  for (int j = 0; j <= C; j++)
    for (int i = 0; i <= C; i++) f[3 * (md.nlow + node(C, i, j, 4)) + 2] = -1e5 / ((C + 1.0) * (C + 1));
  TRY("load", fcd_system_set_load(sys, f));
  double step_t[2] = {INFINITY, INFINITY}, stab_t[2] = {INFINITY, INFINITY};
  fcd_index nc = 0;
  for (int kind = 0; kind < 2; kind++) {
    fcd_contact_set *cs = contacts(&md, kind);
    nc = fcd_contact_set_size(cs);
    fcd_integrator *it = NULL;
    TRY("integrator", fcd_integrator_create(sys, cs, FCD_SCHEME_MOREAU_JEAN, &it));
    TRY("step", fcd_integrator_set_param(it, FCD_PARAM_STEP, 1e-4));
    TRY("state", fcd_integrator_set_state(it, 0, u, u));
    TRY("first step", fcd_integrator_step(it));
    const int blocks = 5, per = steps / blocks > 0 ? steps / blocks : 1;
    for (int b = 0; b < blocks; b++) {
      double t0 = now();
      for (int s = 0; s < per; s++) TRY("step", fcd_integrator_step(it));
      step_t[kind] = fmin(step_t[kind], (now() - t0) / per);
    }
    fcd_integrator_destroy(it);
    int *status = malloc((size_t)nc * sizeof *status);
    double *slip = malloc(2 * (size_t)nc * sizeof *slip);
    for (fcd_index c = 0; c < nc; c++) {
      status[c] = FCD_CONTACT_SLIP;
      slip[2 * c] = 1;
      slip[2 * c + 1] = 0;
    }
    fcd_stability *st = NULL;
    TRY("stability", fcd_stability_create(sys, cs, &st));
    TRY("state", fcd_stability_set_contact_state(st, status, slip));
    TRY("nev", fcd_stability_set_param(st, FCD_STAB_NEV, 20));
    TRY("target", fcd_stability_set_param(st, FCD_STAB_TARGET_HZ, 60));
    TRY("dense", fcd_stability_set_param(st, FCD_STAB_DENSE_MAX, 0));
    for (int rep = 0; rep < 3; rep++) { /* the first also starts PETSc */
      double t0 = now();
      TRY("solve", fcd_stability_solve(st, NULL));
      if (rep > 0) stab_t[kind] = fmin(stab_t[kind], now() - t0);
    }
    fcd_stability_destroy(st);
    free(status);
    free(slip);
    fcd_contact_set_destroy(cs);
  }
  fprintf(stderr, "conforming: %lld dofs, %lld contacts; step %.3e s (pairs) %.3e s (mortar); "
          "stability %.3f s (pairs) %.3f s (mortar)\n", (long long)n, (long long)nc, step_t[0],
          step_t[1], stab_t[0], stab_t[1]);
  printf("ratio step_mortar_vs_pairs %.3f\n", step_t[1] / step_t[0]);
  printf("ratio stability_mortar_vs_pairs %.3f\n", stab_t[1] / stab_t[0]);
  free(f);
  free(u);
  drop(&md);
}

int main(int argc, char **argv) {
  int S = 100, C = 16, steps = 50;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--slave") && i + 1 < argc) S = bench_int(argv[0], "--slave", argv[++i], 1, 100000000);
    else if (!strcmp(argv[i], "--conform") && i + 1 < argc) C = bench_int(argv[0], "--conform", argv[++i], 1, 100000000);
    else if (!strcmp(argv[i], "--steps") && i + 1 < argc) steps = bench_int(argv[0], "--steps", argv[++i], 1, 1000000000);
    else {
      fprintf(stderr, "usage: kinematics_cost [--slave S] [--conform C] [--steps N]\n");
      return 2;
    }
  }
  if (S < 3 || C < 2 || steps < 1) {
    fprintf(stderr, "kinematics_cost: need S >= 3, C >= 2, N >= 1\n");
    return 2;
  }
  rows_cost(S);
  conforming_cost(C, steps);
  fcd_finalize();
  return 0;
}
