/* Modal coordinates of a reduced model (fcd_reduction_create_modal, lib/capabilities/reduction/reduction_modal.c),
 * on the 2D block of test_reduction.c (nine frictional contacts below, the top row
 * prescribed at a constant nonzero displacement: one shape coordinate s):
 * - with every mode kept, the modal stiffness' diagonal is the spectrum of the full
 *   model with its top clamped, computed independently by LAPACK's dsygv on the full
 *   matrices; the mass is the identity there;
 * - the same model as fcd_reduction_create's in other coordinates: 20 Moreau-Jean steps
 *   and a static equilibrium through both, expanded, agree to the solvers' tolerance,
 *   undamped, with a damping matrix proportional to M and K (which the modes make
 *   diagonal: stored so, its off-diagonal entries exactly zero) and with one that is not
 *   (a dashpot on some interior dofs: its block kept dense, the off-diagonal nonzero);
 * - the friction-linearized stability refuses modal rows, by name (no dof is a contact's
 *   own);
 * - the vectors: restrict(expand(z)) = z, fcd_reduction_expand_dofs = fcd_reduction_expand
 *   on every dof (both coordinates), its bad arguments, and the refusal of a prescribed
 *   function, by name. */
#include <lapacke.h>

#include "../common/block2d.h"
#include "../fcdtest.h"

enum { NX = 8, NY = 4 };

/* the block with its top row prescribed at (dx, dy); damping: 0 none, 1 proportional
 * (0.05 M + 0.002 K, assembled), 2 that plus dashpots of 0.5 on four interior dofs */
static void pressed_block(tb_block *b, fcd_system **sys, fcd_contact_set **cs, double dx,
                          double dy, int damping) {
  CHECK(tb_block_build(b, NX, NY, 2.0, 1.0, 1.0, 0.3, 1.0) == 0);
  CHECK_ST(tb_block_system(b, sys), FCD_OK);
  CHECK_ST(tb_block_contacts(b, *sys, 0.3, 0.0, cs), FCD_OK);
  if (damping) {
    fcd_index ne = b->nk + b->nm + 4;
    fcd_index *ri = malloc((size_t)ne * sizeof *ri), *ci = malloc((size_t)ne * sizeof *ci);
    double *v = malloc((size_t)ne * sizeof *v);
    fcd_index e = 0;
    for (fcd_index p = 0; p < b->nk; p++, e++) {
      ri[e] = b->ki[p];
      ci[e] = b->kj[p];
      v[e] = 0.002 * b->kv[p];
    }
    for (fcd_index p = 0; p < b->nm; p++, e++) {
      ri[e] = b->mi[p];
      ci[e] = b->mj[p];
      v[e] = 0.05 * b->mv[p];
    }
    for (int k = 0; k < 4 && damping == 2; k++, e++) {
      ri[e] = ci[e] = 2 * tb_node(b, 2 + k, 2) + (k % 2);
      v[e] = 0.5;
    }
    CHECK_ST(fcd_system_set_matrix_coo(*sys, FCD_DAMPING, e, ri, ci, v, FCD_COO_UPPER), FCD_OK);
    free(ri);
    free(ci);
    free(v);
  }
  fcd_index top[2 * (NX + 1)];
  double at[2 * (NX + 1)];
  for (int i = 0; i <= NX; i++) {
    top[2 * i] = 2 * tb_node(b, i, NY);
    top[2 * i + 1] = top[2 * i] + 1;
    at[2 * i] = dx;
    at[2 * i + 1] = dy;
  }
  CHECK_ST(fcd_system_fix_dofs(*sys, 2 * (NX + 1), top, at), FCD_OK);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* column j of the reduced matrix which: A e_j */
static void column(fcd_system *rs, fcd_matrix_kind which, fcd_index j, double *col) {
  fcd_index nz = fcd_system_ndofs(rs);
  double *e = calloc((size_t)nz, sizeof *e);
  e[j] = 1;
  CHECK_ST(fcd_system_apply(rs, which, e, col), FCD_OK);
  free(e);
}

/* Every mode kept: the modal stiffness' diagonal against dsygv on the full matrices with
 * the top clamped (the free dofs' pencil, of which the reduction is a change of basis) */
static void test_pencil(void) {
  tb_block b;
  fcd_system *sys;
  fcd_contact_set *cs;
  pressed_block(&b, &sys, &cs, 0.002, -0.01, 0);
  fcd_index n = b.ndofs, ntop = 2 * (NX + 1), ni = n - 2 * ntop, nf = n - ntop;
  double *K = calloc((size_t)(n * n), sizeof *K), *M = calloc((size_t)(n * n), sizeof *M);
  for (fcd_index p = 0; p < b.nk; p++) {
    K[b.kj[p] * n + b.ki[p]] += b.kv[p];
    if (b.ki[p] != b.kj[p]) K[b.ki[p] * n + b.kj[p]] += b.kv[p];
  }
  for (fcd_index p = 0; p < b.nm; p++) {
    M[b.mj[p] * n + b.mi[p]] += b.mv[p];
    if (b.mi[p] != b.mj[p]) M[b.mi[p] * n + b.mj[p]] += b.mv[p];
  }
  /* the free dofs: all but the top row (its nodes are the last NX + 1) */
  fcd_index *fr = malloc((size_t)nf * sizeof *fr), k = 0;
  for (fcd_index i = 0; i < n; i++) {
    int top = 0;
    for (int q = 0; q <= NX; q++) top |= i / 2 == tb_node(&b, q, NY);
    if (!top) fr[k++] = i;
  }
  CHECK(k == nf);
  double *Kf = malloc((size_t)(nf * nf) * sizeof *Kf), *Mf = malloc((size_t)(nf * nf) * sizeof *Mf);
  for (fcd_index j = 0; j < nf; j++)
    for (fcd_index i = 0; i < nf; i++) {
      Kf[j * nf + i] = K[fr[j] * n + fr[i]];
      Mf[j * nf + i] = M[fr[j] * n + fr[i]];
    }
  double *lam = malloc((size_t)nf * sizeof *lam), *got = malloc((size_t)nf * sizeof *got);
  CHECK(LAPACKE_dsygv(LAPACK_COL_MAJOR, 1, 'N', 'L', (lapack_int)nf, Kf, (lapack_int)nf, Mf,
                      (lapack_int)nf, lam) == 0);
  fcd_reduction *red = NULL;
  CHECK_ST(fcd_reduction_create_modal(sys, cs, ni, &red), FCD_OK);
  fcd_system *rs = fcd_reduction_system(red);
  fcd_index nz = fcd_system_ndofs(rs);
  CHECK(nz == nf + 1); /* the shape coordinate, then one per free Craig-Bampton one */
  CHECK(fcd_system_num_fixed(rs) == 1);
  double *col = malloc((size_t)nz * sizeof *col), mdev = 0, kdev = 0, lmax = 0;
  for (fcd_index j = 1; j < nz; j++) {
    column(rs, FCD_MASS, j, col);
    for (fcd_index i = 1; i < nz; i++) mdev = fmax(mdev, fabs(col[i] - (i == j)));
    column(rs, FCD_STIFFNESS, j, col);
    got[j - 1] = col[j];
    for (fcd_index i = 1; i < nz; i++)
      if (i != j) kdev = fmax(kdev, fabs(col[i]));
  }
  qsort(got, (size_t)nf, sizeof *got, cmp_double);
  double worst = 0;
  for (fcd_index i = 0; i < nf; i++) {
    worst = fmax(worst, fabs(got[i] - lam[i]));
    lmax = fmax(lmax, fabs(lam[i]));
  }
  printf("modal coordinates, every mode kept: stiffness diagonal against dsygv's %lld "
         "eigenvalues %.2e of the largest; mass off the identity %.1e, stiffness off its "
         "diagonal %.1e\n", (long long)nf, worst / lmax, mdev, kdev);
  CHECK(worst <= 1e-10 * lmax);
  CHECK(mdev == 0 && kdev == 0);
  free(K);
  free(M);
  free(fr);
  free(Kf);
  free(Mf);
  free(lam);
  free(got);
  free(col);
  fcd_reduction_destroy(red);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
  tb_block_free(&b);
}

/* 20 Moreau-Jean steps of h = 0.05 from the reduced rest state (zero, the prescribed
 * coordinates at their values), expanded to u (n), with the reactions r */
static void steps_expanded(const fcd_reduction *red, fcd_index n, double *u, double *r) {
  (void)n;
  fcd_system *rs = fcd_reduction_system(red);
  fcd_index nr = fcd_system_ndofs(rs);
  double *z = calloc((size_t)nr, sizeof *z), *ur = malloc((size_t)nr * sizeof *ur);
  fcd_integrator *it = NULL;
  CHECK_ST(fcd_integrator_create(rs, fcd_reduction_contact_set(red), FCD_SCHEME_MOREAU_JEAN,
                                 &it), FCD_OK);
  CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_STEP, 0.05), FCD_OK);
  CHECK_ST(fcd_integrator_set_state(it, 0.0, z, z), FCD_OK);
  for (int k = 0; k < 20; k++) CHECK_ST(fcd_integrator_step(it), FCD_OK);
  CHECK_ST(fcd_integrator_get_state(it, NULL, ur, NULL), FCD_OK);
  CHECK_ST(fcd_integrator_get_reactions(it, r), FCD_OK);
  CHECK_ST(fcd_reduction_expand(red, ur, u), FCD_OK);
  fcd_integrator_destroy(it);
  free(z);
  free(ur);
}

/* the largest off-diagonal entry of the reduced damping's modal block (rows and columns
 * from 1: s excepted) */
static double damping_off_diagonal(fcd_system *rs) {
  fcd_index nz = fcd_system_ndofs(rs);
  double *col = malloc((size_t)nz * sizeof *col), off = 0;
  for (fcd_index j = 1; j < nz; j++) {
    column(rs, FCD_DAMPING, j, col);
    for (fcd_index i = 1; i < nz; i++)
      if (i != j) off = fmax(off, fabs(col[i]));
  }
  free(col);
  return off;
}

/* The same model in two coordinates: transient and statics agree */
static void test_same_model(void) {
  static const char *const what[3] = {"undamped", "proportional damping",
                                      "non-proportional damping"};
  for (int damping = 0; damping < 3; damping++) {
    tb_block b;
    fcd_system *sys;
    fcd_contact_set *cs;
    pressed_block(&b, &sys, &cs, 0.002, -0.01, damping);
    fcd_index n = b.ndofs, m = 2 * (NX + 1), ni = n - 4 * (NX + 1);
    const fcd_index ms[] = {8, ni};
    for (int s = 0; s < 4; s++) {
      /* the band's damping (the default) or none: with it the assembled damping's modal
       * block is dense wherever the band is finite (8 modes); every mode kept has none */
      int band = s < 2;
      double xi = band ? FCD_REDUCTION_BAND_DAMPING_DEFAULT : 0;
      fcd_reduction *cb = NULL, *mo = NULL;
      CHECK_ST(fcd_reduction_create_band(sys, cs, ms[s % 2], 0, 0, 1.0, xi, &cb), FCD_OK);
      CHECK_ST(fcd_reduction_create_band(sys, cs, ms[s % 2], 0, 1, 1.0, xi, &mo), FCD_OK);
      if (!cb || !mo) continue;
      double *u1 = malloc((size_t)n * sizeof *u1), *u2 = malloc((size_t)n * sizeof *u2);
      double r1[2 * (NX + 1)], r2[2 * (NX + 1)];
      steps_expanded(cb, n, u1, r1);
      steps_expanded(mo, n, u2, r2);
      double du = fcdt_rel_diff(u2, u1, n), dr = fcdt_rel_diff(r2, r1, m);
      /* statics: fcd's equilibrium through both, expanded */
      fcd_equilibrium *eq = NULL;
      double *e1 = malloc((size_t)n * sizeof *e1), *e2 = malloc((size_t)n * sizeof *e2);
      fcd_reduction *both[2] = {cb, mo};
      double *ex[2] = {e1, e2};
      for (int k = 0; k < 2; k++) {
        fcd_system *rs = fcd_reduction_system(both[k]);
        double *ur = malloc((size_t)fcd_system_ndofs(rs) * sizeof *ur);
        CHECK_ST(fcd_equilibrium_create(rs, fcd_reduction_contact_set(both[k]), &eq), FCD_OK);
        CHECK_ST(fcd_equilibrium_solve(eq, FCD_EQ_STATIC, 0.0), FCD_OK);
        CHECK_ST(fcd_equilibrium_get_state(eq, ur), FCD_OK);
        CHECK_ST(fcd_reduction_expand(both[k], ur, ex[k]), FCD_OK);
        fcd_equilibrium_destroy(eq);
        free(ur);
      }
      double de = fcdt_rel_diff(e2, e1, n);
      int banded = band && s % 2 == 0;
      double off = damping || banded ? damping_off_diagonal(fcd_reduction_system(mo)) : 0;
      printf("%s, %2lld modes, %s: modal against Craig-Bampton coordinates: 20 steps |du| / "
             "|u| = %.1e, |dr| / |r| = %.1e; equilibrium %.1e; damping off its diagonal "
             "%.1e\n", what[damping], (long long)ms[s % 2],
             band ? "the band damped" : "no band damping", du, dr, de, off);
      CHECK(du <= 1e-9 && dr <= 1e-9 && de <= 1e-12);
      if (damping == 1 && !banded) CHECK(off == 0); /* stored diagonal */
      if (damping == 2 || banded) CHECK(off > 1e-3); /* kept dense */
      free(u1);
      free(u2);
      free(e1);
      free(e2);
      fcd_reduction_destroy(cb);
      fcd_reduction_destroy(mo);
    }
    fcd_contact_set_destroy(cs);
    fcd_system_destroy(sys);
    tb_block_free(&b);
  }
}

/* The friction-linearized stability needs for each slipping contact a dof that only it
 * constrains (its row rule); modal rows weigh every coordinate, so it refuses them by
 * name, where the Craig-Bampton coordinates of the same model are analysed
 * (test_reduction.c) */
static void test_stability_refused(void) {
  tb_block b;
  fcd_system *sys;
  fcd_contact_set *cs;
  pressed_block(&b, &sys, &cs, 0, 0, 0);
  fcd_reduction *red = NULL;
  CHECK_ST(fcd_reduction_create_modal(sys, cs, 8, &red), FCD_OK);
  /* the top held at zero: nothing prescribed moves, no shape coordinate */
  CHECK(red && fcd_system_num_fixed(fcd_reduction_system(red)) == 0);
  if (red) {
    fcd_system *rs = fcd_reduction_system(red);
    fcd_contact_set *rcs = fcd_reduction_contact_set(red);
    fcd_index nc = fcd_contact_set_size(rcs), nconv = 0;
    int *status = malloc((size_t)nc * sizeof *status);
    double *dir = malloc((size_t)nc * sizeof *dir);
    for (fcd_index c = 0; c < nc; c++) {
      status[c] = FCD_CONTACT_SLIP;
      dir[c] = 1;
    }
    fcd_stability *st = NULL;
    CHECK_ST(fcd_stability_create(rs, rcs, &st), FCD_OK);
    CHECK_ST(fcd_stability_set_contact_state(st, status, dir), FCD_OK);
    CHECK_ST(fcd_stability_set_param(st, FCD_STAB_MU, 0.6), FCD_OK);
    CHECK_ST(fcd_stability_solve(st, &nconv), FCD_E_SINGULAR);
    CHECK(strstr(fcd_system_last_error(rs), "only it constrains") != NULL);
    fcd_stability_destroy(st);
    free(status);
    free(dir);
  }
  fcd_reduction_destroy(red);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
  tb_block_free(&b);
}

static int moving_top(void *ud, double t, fcd_index nfixed, const fcd_index *dofs, double *u,
                      double *v) {
  (void)ud;
  (void)dofs;
  for (fcd_index k = 0; k < nfixed; k++) {
    u[k] = -0.01 * t;
    v[k] = -0.01;
  }
  return 0;
}

static void test_vectors(void) {
  tb_block b;
  fcd_system *sys;
  fcd_contact_set *cs;
  pressed_block(&b, &sys, &cs, 0.002, -0.01, 0);
  fcd_index n = b.ndofs;
  for (int modal = 0; modal < 2; modal++) {
    fcd_reduction *red = NULL;
    CHECK_ST(modal ? fcd_reduction_create_modal(sys, cs, 7, &red)
                   : fcd_reduction_create(sys, cs, 7, &red), FCD_OK);
    if (!red) continue;
    fcd_index nz = fcd_system_ndofs(fcd_reduction_system(red));
    double *z = malloc((size_t)nz * sizeof *z), *z2 = malloc((size_t)nz * sizeof *z2);
    double *x = malloc((size_t)n * sizeof *x), *xd = malloc((size_t)n * sizeof *xd);
    fcd_index *all = malloc((size_t)n * sizeof *all);
    srand(11);
    for (fcd_index k = 0; k < nz; k++) z[k] = (double)rand() / RAND_MAX - 0.5;
    for (fcd_index i = 0; i < n; i++) all[i] = n - 1 - i; /* any order */
    CHECK_ST(fcd_reduction_expand(red, z, x), FCD_OK);
    CHECK_ST(fcd_reduction_restrict(red, x, z2), FCD_OK);
    CHECK_ST(fcd_reduction_expand_dofs(red, z, n, all, xd), FCD_OK);
    double dz = fcdt_rel_diff(z2, z, nz), dx = 0, xm = 0;
    for (fcd_index i = 0; i < n; i++) {
      dx = fmax(dx, fabs(xd[i] - x[all[i]]));
      xm = fmax(xm, fabs(x[i]));
    }
    printf("%s coordinates: restrict(expand(z)) %.1e of |z|; expand_dofs against expand "
           "%.1e of |x|\n", modal ? "modal" : "Craig-Bampton", dz, dx / xm);
    CHECK(dz <= 1e-12 && dx <= 1e-13 * xm);
    all[0] = n;
    CHECK_ST(fcd_reduction_expand_dofs(red, z, 1, all, xd), FCD_E_INVALID_ARG);
    CHECK(strstr(fcd_system_last_error(sys), "dofs[0]") != NULL);
    CHECK_ST(fcd_reduction_expand_dofs(red, z, -1, all, xd), FCD_E_INVALID_ARG);
    CHECK_ST(fcd_reduction_expand_dofs(red, NULL, 1, all, xd), FCD_E_INVALID_ARG);
    CHECK_ST(fcd_reduction_expand_dofs(red, z, 0, NULL, NULL), FCD_OK);
    CHECK_ST(fcd_reduction_expand_dofs(NULL, z, 1, all, xd), FCD_E_INVALID_ARG);
    free(z);
    free(z2);
    free(x);
    free(xd);
    free(all);
    fcd_reduction_destroy(red);
  }
  /* a prescribed function: its dofs cannot be one shape coordinate */
  fcd_reduction *red = (fcd_reduction *)&b; /* set to NULL on failure */
  CHECK_ST(fcd_system_set_prescribed_fn(sys, moving_top, NULL), FCD_OK);
  CHECK_ST(fcd_reduction_create_modal(sys, cs, 7, &red), FCD_E_UNSUPPORTED);
  CHECK(red == NULL);
  CHECK(strstr(fcd_system_last_error(sys), "prescribed function") != NULL);
  CHECK_ST(fcd_reduction_create(sys, cs, 7, &red), FCD_OK); /* which keeps them physical */
  fcd_reduction_destroy(red);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
  tb_block_free(&b);
}

/* An integrator keeps its Delassus operator scaled for the local problem from step to
 * step while every contact is active (closed): it must follow a new step size and a new
 * theta (a new factor, a new W). 10 steps of h = 0.05, then 5 of h = 0.02, then 5 with
 * theta = 0.7, against a new integrator started from the state after the first 10 steps
 * that does the same: the same states to the solver's tolerance (a stale W would be
 * off by the step's ratio). */
static void run_phases(fcd_integrator *it, int from_phase, double *u, double *v) {
  if (from_phase <= 0)
    for (int k = 0; k < 10; k++) CHECK_ST(fcd_integrator_step(it), FCD_OK);
  CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_STEP, 0.02), FCD_OK);
  for (int k = 0; k < 5; k++) CHECK_ST(fcd_integrator_step(it), FCD_OK);
  CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_THETA, 0.7), FCD_OK);
  for (int k = 0; k < 5; k++) CHECK_ST(fcd_integrator_step(it), FCD_OK);
  CHECK_ST(fcd_integrator_get_state(it, NULL, u, v), FCD_OK);
}

static void test_scaled_w_follows(void) {
  tb_block b;
  fcd_system *sys;
  fcd_contact_set *cs;
  pressed_block(&b, &sys, &cs, 0.002, -0.01, 1);
  fcd_reduction *mo = NULL;
  CHECK_ST(fcd_reduction_create_modal(sys, cs, 8, &mo), FCD_OK);
  if (!mo) return;
  fcd_system *rs = fcd_reduction_system(mo);
  fcd_contact_set *rcs = fcd_reduction_contact_set(mo);
  fcd_index nr = fcd_system_ndofs(rs), nc = fcd_contact_set_size(rcs);
  double *z = calloc((size_t)nr, sizeof *z), *u10 = malloc((size_t)nr * sizeof *u10);
  double *v10 = malloc((size_t)nr * sizeof *v10), *ua = malloc((size_t)nr * sizeof *ua);
  double *va = malloc((size_t)nr * sizeof *va), *ub = malloc((size_t)nr * sizeof *ub);
  double *vb = malloc((size_t)nr * sizeof *vb);
  int *status = malloc((size_t)nc * sizeof *status);
  fcd_integrator *it = NULL, *it2 = NULL;
  CHECK_ST(fcd_integrator_create(rs, rcs, FCD_SCHEME_MODIFIED_THETA, &it), FCD_OK);
  CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_STEP, 0.05), FCD_OK);
  CHECK_ST(fcd_integrator_set_state(it, 0.0, z, z), FCD_OK);
  for (int k = 0; k < 10; k++) CHECK_ST(fcd_integrator_step(it), FCD_OK);
  double t10 = 0;
  CHECK_ST(fcd_integrator_get_state(it, &t10, u10, v10), FCD_OK);
  CHECK_ST(fcd_integrator_get_contact_status(it, status), FCD_OK);
  int closed = 0;
  for (fcd_index c = 0; c < nc; c++) closed += status[c] != FCD_CONTACT_OPEN;
  CHECK(closed == nc); /* the path under test: every contact active */
  run_phases(it, 1, ua, va);
  CHECK_ST(fcd_integrator_create(rs, rcs, FCD_SCHEME_MODIFIED_THETA, &it2), FCD_OK);
  CHECK_ST(fcd_integrator_set_param(it2, FCD_PARAM_STEP, 0.02), FCD_OK);
  CHECK_ST(fcd_integrator_set_state(it2, t10, u10, v10), FCD_OK);
  run_phases(it2, 1, ub, vb);
  double du = fcdt_rel_diff(ua, ub, nr), dv = fcdt_rel_diff(va, vb, nr);
  printf("scaled W through a new step and theta: |du| / |u| = %.1e, |dv| / |v| = %.1e "
         "(%lld of %lld contacts closed)\n", du, dv, (long long)closed, (long long)nc);
  CHECK(du <= 1e-8 && dv <= 1e-6);
  fcd_integrator_destroy(it);
  fcd_integrator_destroy(it2);
  free(z); free(u10); free(v10); free(ua); free(va); free(ub); free(vb); free(status);
  fcd_reduction_destroy(mo);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
  tb_block_free(&b);
}

int main(void) {
  test_pencil();
  test_scaled_w_follows();
  test_same_model();
  test_stability_refused();
  test_vectors();
  return fcdt_finish("reduction modal");
}
