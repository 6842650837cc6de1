/* The relative interface of a reduction (FCD_INTERFACE_RELATIVE,
 * lib/capabilities/reduction/reduction_relative.c) on two plane-strain blocks stacked by
 * node-to-node pairs, the lower one clamped below, the upper one pushed down and sideways
 * from above:
 * - what is kept: one node a pair (its relative displacement) and the moving prescribed
 *   dofs, where the physical coordinates keep both nodes; a pair whose A node another
 *   contact weighs stays physical (both nodes kept), and so does every pair when asked;
 * - statics exact in any number of modes: every load is on kept or prescribed dofs, so the
 *   reduced equilibrium, expanded, is the full one (state and reactions to the solvers'
 *   tolerance) for Guyan's reduction and with modes, in Craig-Bampton and in modal
 *   coordinates, and fcd_reduction_residual vanishes there;
 * - the maps: fcd_reduction_expand_dofs equals fcd_reduction_expand on every dof (A, B and
 *   interior alike), and fcd_reduction_restrict inverts fcd_reduction_expand;
 * - dynamics: with every interior mode kept the reduced model is the full one in other
 *   coordinates, so 30 Moreau-Jean steps through it from a displaced equilibrium (the
 *   start restricted, exactly), expanded, are the full transient to round-off (mass,
 *   damping and stiffness through P' (.) P);
 * - options: fcd_reduction_options_init equals FCD_REDUCTION_OPTIONS_INIT, and a struct
 *   too small or an unknown interface is refused by name. */
#include <math.h>

#include "../common/block2d.h"
#include "../fcdtest.h"

enum { NX = 6, NY = 3, NP = NX + 1 };

typedef struct {
  tb_block b;
  fcd_index nb, n; /* one block's dofs (the lower: 0 .. nb - 1), both */
  fcd_system *sys;
  fcd_contact_set *cs;
} stack;

/* the two blocks, the pairs (upper block's bottom node i against the lower one's top node
 * i; with wall, a rigid contact on the first pair's upper node too) */
static void stack_build(stack *s, int wall) {
  memset(s, 0, sizeof *s);
  CHECK(tb_block_build(&s->b, NX, NY, 2.0, 1.0, 1.0, 0.3, 1.0) == 0);
  tb_block *b = &s->b;
  s->nb = b->ndofs;
  s->n = 2 * s->nb;
  fcd_index nk = 2 * b->nk, nm = 2 * b->nm;
  fcd_index *ki = malloc(sizeof *ki * (size_t)nk), *kj = malloc(sizeof *kj * (size_t)nk);
  fcd_index *mi = malloc(sizeof *mi * (size_t)nm), *mj = malloc(sizeof *mj * (size_t)nm);
  double *kv = malloc(sizeof *kv * (size_t)nk), *mv = malloc(sizeof *mv * (size_t)nm);
  for (int blk = 0; blk < 2; blk++) {
    fcd_index o = blk * s->nb;
    for (fcd_index e = 0; e < b->nk; e++) {
      ki[blk * b->nk + e] = b->ki[e] + o;
      kj[blk * b->nk + e] = b->kj[e] + o;
      kv[blk * b->nk + e] = b->kv[e];
    }
    for (fcd_index e = 0; e < b->nm; e++) {
      mi[blk * b->nm + e] = b->mi[e] + o;
      mj[blk * b->nm + e] = b->mj[e] + o;
      mv[blk * b->nm + e] = b->mv[e];
    }
  }
  CHECK_ST(fcd_system_create(s->n, &s->sys), FCD_OK);
  CHECK_ST(fcd_system_set_matrix_coo(s->sys, FCD_STIFFNESS, nk, ki, kj, kv, FCD_COO_UPPER), FCD_OK);
  CHECK_ST(fcd_system_set_matrix_coo(s->sys, FCD_MASS, nm, mi, mj, mv, FCD_COO_UPPER), FCD_OK);
  CHECK_ST(fcd_system_set_rayleigh(s->sys, 0.01, 0.002), FCD_OK);
  free(ki); free(kj); free(kv); free(mi); free(mj); free(mv);
  /* clamped below, pushed from above */
  fcd_index fd[4 * NP];
  double fv[4 * NP];
  for (int i = 0; i < NP; i++)
    for (int d = 0; d < 2; d++) {
      fd[2 * i + d] = 2 * tb_node(b, i, 0) + d;
      fv[2 * i + d] = 0;
      fd[2 * NP + 2 * i + d] = s->nb + 2 * tb_node(b, i, NY) + d;
      fv[2 * NP + 2 * i + d] = d ? -0.01 : 0.004;
    }
  CHECK_ST(fcd_system_fix_dofs(s->sys, 4 * NP, fd, fv), FCD_OK);
  CHECK_ST(fcd_contact_set_create(s->sys, 2, &s->cs), FCD_OK);
  const double nrm[2] = {0, -1}, tan[2] = {1, 0};
  for (int i = 0; i < NP; i++) {
    fcd_index a[2] = {s->nb + 2 * tb_node(b, i, 0), s->nb + 2 * tb_node(b, i, 0) + 1};
    fcd_index c[2] = {2 * tb_node(b, i, NY), 2 * tb_node(b, i, NY) + 1};
    CHECK_ST(fcd_contact_set_add_pair(s->cs, a, c, nrm, tan, 0.0, 0.3, NULL), FCD_OK);
  }
  if (wall) { /* a wall at the left, never reached */
    const double wn[2] = {-1, 0}, wt[2] = {0, -1};
    fcd_index a[2] = {s->nb, s->nb + 1};
    CHECK_ST(fcd_contact_set_add_rigid(s->cs, a, wn, wt, 1.0, 0.3, NULL), FCD_OK);
  }
}

static void stack_free(stack *s) {
  fcd_contact_set_destroy(s->cs);
  fcd_system_destroy(s->sys);
  tb_block_free(&s->b);
}

static int modal_coords; /* fcd_reduction_create_modal's coordinates for test_statics */
static int basis_kind;   /* an fcd_basis_storage for test_statics */

static fcd_reduction *reduce(const stack *s, fcd_index nmodes, int relative) {
  fcd_reduction_options o;
  fcd_reduction_options_init(&o);
  o.nmodes = nmodes;
  o.modal = modal_coords;
  o.basis = basis_kind;
  o.interface = relative ? FCD_INTERFACE_RELATIVE : FCD_INTERFACE_PHYSICAL;
  fcd_reduction *red = NULL;
  CHECK_ST(fcd_reduction_create_opts(s->sys, s->cs, &o, &red), FCD_OK);
  return red;
}

static void equilibrium(fcd_system *sys, fcd_contact_set *cs, double *u, double *r) {
  fcd_equilibrium *eq = NULL;
  CHECK_ST(fcd_equilibrium_create(sys, cs, &eq), FCD_OK);
  CHECK_ST(fcd_equilibrium_solve(eq, FCD_EQ_STATIC, 0.0), FCD_OK);
  CHECK_ST(fcd_equilibrium_get_state(eq, u), FCD_OK);
  CHECK_ST(fcd_equilibrium_get_reactions(eq, r), FCD_OK);
  fcd_equilibrium_destroy(eq);
}

static double maxdiff(fcd_index n, const double *a, const double *b, double *scale) {
  double d = 0, s = 0;
  for (fcd_index i = 0; i < n; i++) {
    d = fmax(d, fabs(a[i] - b[i]));
    s = fmax(s, fabs(b[i]));
  }
  *scale = s;
  return d;
}

static void test_kept(void) {
  stack s;
  stack_build(&s, 0);
  fcd_index nk[2];
  for (int rel = 0; rel < 2; rel++) {
    fcd_reduction *red = reduce(&s, 3, rel);
    CHECK_ST(fcd_reduction_get_info(red, &nk[rel], NULL, NULL, NULL), FCD_OK);
    fcd_reduction_destroy(red);
  }
  /* the pushed top (2 NP) and the pairs: both nodes, or one */
  CHECK(nk[0] == 2 * NP + 4 * NP);
  CHECK(nk[1] == 2 * NP + 2 * NP);
  stack_free(&s);
  /* the first pair's A node also against a wall: that pair stays physical */
  stack_build(&s, 1);
  fcd_reduction *red = reduce(&s, 3, 1);
  fcd_index n1 = -1, kept[64];
  CHECK_ST(fcd_reduction_get_info(red, &n1, NULL, NULL, kept), FCD_OK);
  CHECK(n1 == 2 * NP + 2 * NP + 2);
  int has_b = 0; /* the first pair's B node (the lower block's top left) is kept */
  for (fcd_index k = 0; k < n1; k++) has_b += kept[k] == 2 * tb_node(&s.b, 0, NY);
  CHECK(has_b == 1);
  fcd_reduction_destroy(red);
  stack_free(&s);
}

static void test_statics(int wall) {
  stack s;
  stack_build(&s, wall);
  fcd_index n = s.n, m = 2 * fcd_contact_set_size(s.cs);
  double *u = malloc(sizeof *u * (size_t)n), *r = malloc(sizeof *r * (size_t)m);
  double *ue = malloc(sizeof *ue * (size_t)n), *rr = malloc(sizeof *rr * (size_t)m);
  double *ud = malloc(sizeof *ud * (size_t)n), *ur = NULL, *xr = NULL;
  fcd_index *all = malloc(sizeof *all * (size_t)n);
  for (fcd_index i = 0; i < n; i++) all[i] = i;
  equilibrium(s.sys, s.cs, u, r);
  const fcd_index ms[] = {0, 5};
  for (int k = 0; k < 2; k++) {
    fcd_reduction *red = reduce(&s, ms[k], 1);
    fcd_system *rs = fcd_reduction_system(red);
    fcd_index nr = fcd_system_ndofs(rs);
    ur = realloc(ur, sizeof *ur * (size_t)nr);
    xr = realloc(xr, sizeof *xr * (size_t)nr);
    equilibrium(rs, fcd_reduction_contact_set(red), ur, rr);
    CHECK_ST(fcd_reduction_expand(red, ur, ue), FCD_OK);
    double su, sr, du = maxdiff(n, ue, u, &su), dr = maxdiff(m, rr, r, &sr);
    printf("relative, %lld modes%s%s%s: |du| / |u| = %.2e, |dr| / |r| = %.2e\n",
           (long long)ms[k], wall ? ", one pair physical" : "",
           modal_coords ? ", modal coordinates" : "",
           basis_kind == FCD_BASIS_FACTORED ? ", factored basis" : "", du / su, dr / sr);
    CHECK(su > 0 && du <= 1e-8 * su);
    CHECK(sr > 0 && dr <= 1e-8 * sr);
    double rel = 1;
    CHECK_ST(fcd_reduction_residual(red, 0.0, ur, NULL, NULL, &rel), FCD_OK);
    CHECK(rel <= 1e-10);
    /* expand_dofs on every dof, restrict back */
    CHECK_ST(fcd_reduction_expand_dofs(red, ur, n, all, ud), FCD_OK);
    CHECK(maxdiff(n, ud, ue, &su) <= 1e-14 * su);
    CHECK_ST(fcd_reduction_restrict(red, ue, xr), FCD_OK);
    CHECK(maxdiff(nr, xr, ur, &su) <= 1e-12 * su);
    fcd_reduction_destroy(red);
  }
  free(u); free(r); free(ue); free(rr); free(ud); free(ur); free(xr); free(all);
  stack_free(&s);
}

/* steps of (sys, cs) from u0 at rest: the states into u (n each) */
static void transient(fcd_system *sys, fcd_contact_set *cs, const double *u0, int steps,
                      double *u) {
  fcd_index n = fcd_system_ndofs(sys);
  double *z = calloc((size_t)n, sizeof *z);
  fcd_integrator *it = NULL;
  CHECK_ST(fcd_integrator_create(sys, cs, FCD_SCHEME_MOREAU_JEAN, &it), FCD_OK);
  CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_STEP, 0.05), FCD_OK);
  CHECK_ST(fcd_integrator_set_state(it, 0.0, u0, z), FCD_OK);
  for (int k = 0; k < steps; k++) {
    CHECK_ST(fcd_integrator_step(it), FCD_OK);
    CHECK_ST(fcd_integrator_get_state(it, NULL, u + (size_t)k * n, NULL), FCD_OK);
  }
  fcd_integrator_destroy(it);
  free(z);
}

/* from the static equilibrium with the upper block's free dofs displaced (0.3 of the
 * push, a pattern over x), released at rest */
static void test_dynamics(void) {
  stack s;
  stack_build(&s, 0);
  enum { STEPS = 30 };
  fcd_index n = s.n, m = 2 * fcd_contact_set_size(s.cs);
  /* every interior mode: n less the clamped bottom, the pushed top and the kept nodes */
  fcd_index ni = n - 4 * NP - 2 * NP;
  fcd_reduction *red = reduce(&s, ni, 1);
  fcd_system *rs = fcd_reduction_system(red);
  fcd_index nr = fcd_system_ndofs(rs);
  double *u = malloc(sizeof *u * (size_t)n * STEPS), *ur = malloc(sizeof *ur * (size_t)nr * STEPS);
  double *ue = malloc(sizeof *ue * (size_t)n), *u0 = malloc(sizeof *u0 * (size_t)n);
  double *ur0 = malloc(sizeof *ur0 * (size_t)nr), *r = malloc(sizeof *r * (size_t)m);
  equilibrium(s.sys, s.cs, u0, r);
  for (int j = 1; j < NY; j++)
    for (int i = 0; i < NP; i++)
      u0[s.nb + 2 * tb_node(&s.b, i, j) + 1] += 0.003 * sin(3.0 * i + j);
  CHECK_ST(fcd_reduction_restrict(red, u0, ur0), FCD_OK);
  CHECK_ST(fcd_reduction_expand(red, ur0, ue), FCD_OK);
  double sc, d0 = maxdiff(n, ue, u0, &sc);
  CHECK(d0 <= 1e-12 * sc); /* every mode kept: the start is represented exactly */
  transient(s.sys, s.cs, u0, STEPS, u);
  transient(rs, fcd_reduction_contact_set(red), ur0, STEPS, ur);
  double worst = 0, scale = 0;
  for (int k = 0; k < STEPS; k++) {
    CHECK_ST(fcd_reduction_expand(red, ur + (size_t)k * nr, ue), FCD_OK);
    worst = fmax(worst, maxdiff(n, ue, u + (size_t)k * n, &sc));
    scale = fmax(scale, sc);
  }
  printf("%d steps through every mode, relative: |du| / |u| = %.2e\n", STEPS, worst / scale);
  CHECK(scale > 0 && worst <= 1e-9 * scale);
  fcd_reduction_destroy(red);
  free(u); free(ur); free(ue); free(u0); free(ur0); free(r);
  stack_free(&s);
}

static void test_options(void) {
  fcd_reduction_options a, b = FCD_REDUCTION_OPTIONS_INIT;
  memset(&a, 0xff, sizeof a);
  fcd_reduction_options_init(&a);
  CHECK(a.struct_size == sizeof a && a.struct_size == b.struct_size && a.nmodes == b.nmodes &&
        a.ninertia == b.ninertia && a.modal == b.modal && a.interface == b.interface &&
        a.cut == b.cut && a.damping == b.damping && a.basis == b.basis);
  CHECK(a.basis == FCD_BASIS_AUTO);
  CHECK(a.interface == FCD_INTERFACE_PHYSICAL && a.cut == FCD_REDUCTION_CUT_DEFAULT &&
        a.damping == FCD_REDUCTION_BAND_DAMPING_DEFAULT);
  fcd_reduction_options_init(NULL);
  stack s;
  stack_build(&s, 0);
  fcd_reduction *red = (fcd_reduction *)1;
  a.struct_size = 8;
  CHECK_ST(fcd_reduction_create_opts(s.sys, s.cs, &a, &red), FCD_E_INVALID_ARG);
  CHECK(red == NULL);
  CHECK_MSG(s.sys, "struct_size");
  fcd_reduction_options_init(&a);
  a.interface = 7;
  CHECK_ST(fcd_reduction_create_opts(s.sys, s.cs, &a, &red), FCD_E_INVALID_ARG);
  CHECK_MSG(s.sys, "interface = 7");
  a.interface = FCD_INTERFACE_RELATIVE;
  a.cut = 0.5;
  CHECK_ST(fcd_reduction_create_opts(s.sys, s.cs, &a, &red), FCD_E_INVALID_ARG);
  CHECK_MSG(s.sys, "cut = 0.5");
  CHECK_ST(fcd_reduction_create_opts(s.sys, s.cs, NULL, &red), FCD_E_INVALID_ARG);
  CHECK_MSG(s.sys, "opt is NULL");
  stack_free(&s);
}

int main(void) {
  test_kept();
  test_statics(0);
  test_statics(1);
  modal_coords = 1;
  test_statics(0);
  basis_kind = FCD_BASIS_FACTORED; /* the constraint modes through the factor */
  test_statics(1);
  modal_coords = 0;
  test_statics(1);
  basis_kind = FCD_BASIS_AUTO;
  test_dynamics();
  test_options();
  return fcdt_finish("reduction_relative");
}
