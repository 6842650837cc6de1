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
 * - ties (interface coarsening): every other pair tied to its neighbours equals the same
 *   constraint imposed by hand on the physical model (statics in any number of modes,
 *   Craig-Bampton and modal coordinates, both bases; dynamics through every mode), the
 *   tied pairs never closing past their partners; bad ties refused by name;
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
static int shape;        /* fcd_reduction_options::prescribed_shape for every reduction */

static fcd_reduction *reduce(const stack *s, fcd_index nmodes, int relative) {
  fcd_reduction_options o;
  fcd_reduction_options_init(&o);
  o.nmodes = nmodes;
  o.modal = modal_coords;
  o.basis = basis_kind;
  o.prescribed_shape = shape;
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

/* at the reduced equilibrium ur (ue its expansion): the indicator vanishes,
 * expand_dofs on every dof is the expansion, and restrict gives ur back */
static void check_maps(const fcd_reduction *red, const double *ur, const double *ue,
                       fcd_index n, fcd_index nr, const fcd_index *all, double *ud, double *xr) {
  double rel = 1, su;
  CHECK_ST(fcd_reduction_residual(red, 0.0, ur, NULL, NULL, &rel), FCD_OK);
  CHECK(rel <= 1e-10);
  CHECK_ST(fcd_reduction_expand_dofs(red, ur, n, all, ud), FCD_OK);
  CHECK(maxdiff(n, ud, ue, &su) <= 1e-14 * su);
  CHECK_ST(fcd_reduction_restrict(red, ue, xr), FCD_OK);
  CHECK(maxdiff(nr, xr, ur, &su) <= 1e-12 * su);
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
    printf("relative, %lld modes%s%s%s%s: |du| / |u| = %.2e, |dr| / |r| = %.2e\n",
           (long long)ms[k], wall ? ", one pair physical" : "",
           shape ? ", the pushed top as one" : "",
           modal_coords ? ", modal coordinates" : "",
           basis_kind == FCD_BASIS_FACTORED ? ", factored basis" : "", du / su, dr / sr);
    CHECK(su > 0 && du <= 1e-8 * su);
    CHECK(sr > 0 && dr <= 1e-8 * sr);
    check_maps(red, ur, ue, n, nr, all, ud, xr);
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
  printf("%d steps through every mode, relative%s: |du| / |u| = %.2e\n", STEPS,
         shape ? ", the pushed top as one" : "", worst / scale);
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

/* Interface coarsening (fcd_reduction_options::tied): the odd pairs tied to their two
 * neighbours, half each (linear interpolation along the interface). The reference is the
 * same constraint imposed by hand on the physical model, independently of the library's
 * coordinates: u_A(t) = u_B(t) + sum_s w_s (u_A(s) - u_B(s)) eliminated, u = G w, the
 * tied model G' K G, G' M G with the even pairs as physical pairs, solved in full. */
typedef struct {
  fcd_index nw, *wof; /* the dofs left, and their place (-1 for the eliminated A dofs) */
  double *G;          /* n x nw, row-major */
  fcd_system *sys;
  fcd_contact_set *cs;
} tied_model;

static fcd_index pair_a(const stack *s, int i, int q) {
  return s->nb + 2 * tb_node(&s->b, i, 0) + q;
}
static fcd_index pair_b(const stack *s, int i, int q) {
  return 2 * tb_node(&s->b, i, NY) + q;
}

/* G' A G of the system's matrix which, as full triplets */
static void tied_matrix(const stack *s, tied_model *t, fcd_matrix_kind which) {
  fcd_index n = s->n, nw = t->nw, full = 0;
  CHECK_ST(fcd_system_matrix_nnz(s->sys, which, NULL, &full), FCD_OK);
  fcd_index *ri = malloc(sizeof *ri * (size_t)full), *ci = malloc(sizeof *ci * (size_t)full);
  double *v = malloc(sizeof *v * (size_t)full), *AG = calloc((size_t)(n * nw), sizeof *AG);
  CHECK_ST(fcd_system_get_matrix_coo(s->sys, which, ri, ci, v), FCD_OK);
  for (fcd_index e = 0; e < full; e++)
    for (fcd_index j = 0; j < nw; j++) AG[ri[e] * nw + j] += v[e] * t->G[ci[e] * nw + j];
  fcd_index *wi = malloc(sizeof *wi * (size_t)(nw * nw)), *wj = malloc(sizeof *wj * (size_t)(nw * nw));
  double *wv = calloc((size_t)(nw * nw), sizeof *wv);
  for (fcd_index i = 0; i < nw; i++)
    for (fcd_index j = 0; j < nw; j++) {
      wi[i * nw + j] = i;
      wj[i * nw + j] = j;
      for (fcd_index k = 0; k < n; k++) wv[i * nw + j] += t->G[k * nw + i] * AG[k * nw + j];
    }
  /* exactly symmetric, as the library's P' A P is by construction */
  for (fcd_index i = 0; i < nw; i++)
    for (fcd_index j = 0; j < i; j++)
      wv[i * nw + j] = wv[j * nw + i] = 0.5 * (wv[i * nw + j] + wv[j * nw + i]);
  CHECK_ST(fcd_system_set_matrix_coo(t->sys, which, nw * nw, wi, wj, wv, FCD_COO_FULL), FCD_OK);
  free(ri); free(ci); free(v); free(AG); free(wi); free(wj); free(wv);
}

static void tied_build(const stack *s, tied_model *t) {
  fcd_index n = s->n;
  t->wof = malloc(sizeof *t->wof * (size_t)n);
  for (fcd_index d = 0; d < n; d++) t->wof[d] = 0;
  for (int i = 1; i < NP; i += 2)
    for (int q = 0; q < 2; q++) t->wof[pair_a(s, i, q)] = -1;
  t->nw = 0;
  for (fcd_index d = 0; d < n; d++)
    if (t->wof[d] == 0) t->wof[d] = t->nw++;
  t->G = calloc((size_t)(n * t->nw), sizeof *t->G);
  for (fcd_index d = 0; d < n; d++)
    if (t->wof[d] >= 0) t->G[d * t->nw + t->wof[d]] = 1;
  for (int i = 1; i < NP; i += 2)
    for (int q = 0; q < 2; q++) {
      double *g = t->G + pair_a(s, i, q) * t->nw;
      g[t->wof[pair_b(s, i, q)]] += 1;
      for (int side = -1; side <= 1; side += 2) {
        if (i + side >= NP) continue;
        double w = i + side < NP && (i == NP - 1) ? 1.0 : 0.5;
        g[t->wof[pair_a(s, i + side, q)]] += w;
        g[t->wof[pair_b(s, i + side, q)]] -= w;
      }
    }
  CHECK_ST(fcd_system_create(t->nw, &t->sys), FCD_OK);
  tied_matrix(s, t, FCD_STIFFNESS);
  tied_matrix(s, t, FCD_MASS);
  CHECK_ST(fcd_system_set_rayleigh(t->sys, 0.01, 0.002), FCD_OK);
  fcd_index nf = fcd_system_num_fixed(s->sys);
  fcd_index *fd = malloc(sizeof *fd * (size_t)nf);
  double *fv = malloc(sizeof *fv * (size_t)nf);
  CHECK_ST(fcd_system_get_fixed(s->sys, fd, fv), FCD_OK);
  for (fcd_index k = 0; k < nf; k++) fd[k] = t->wof[fd[k]];
  CHECK_ST(fcd_system_fix_dofs(t->sys, nf, fd, fv), FCD_OK);
  free(fd); free(fv);
  CHECK_ST(fcd_contact_set_create(t->sys, 2, &t->cs), FCD_OK);
  const double nrm[2] = {0, -1}, tan[2] = {1, 0};
  for (int i = 0; i < NP; i += 2) {
    fcd_index a[2] = {t->wof[pair_a(s, i, 0)], t->wof[pair_a(s, i, 1)]};
    fcd_index b[2] = {t->wof[pair_b(s, i, 0)], t->wof[pair_b(s, i, 1)]};
    CHECK_ST(fcd_contact_set_add_pair(t->cs, a, b, nrm, tan, 0.0, 0.3, NULL), FCD_OK);
  }
}

static void tied_free(tied_model *t) {
  fcd_contact_set_destroy(t->cs);
  fcd_system_destroy(t->sys);
  free(t->wof); free(t->G);
}

/* u = G w */
static void tied_expand(const stack *s, const tied_model *t, const double *w, double *u) {
  for (fcd_index d = 0; d < s->n; d++) {
    u[d] = 0;
    for (fcd_index j = 0; j < t->nw; j++) u[d] += t->G[d * t->nw + j] * w[j];
  }
}

/* the ties of tied_build as options: odd pair i follows i - 1 and i + 1 (half each; the
 * last pair, if odd, its left neighbour whole) */
typedef struct {
  fcd_index tied[NP], ptr[NP + 1], src[2 * NP];
  double w[2 * NP];
} ties;

static fcd_reduction *reduce_tied(const stack *s, fcd_index nmodes, ties *t, int modal) {
  fcd_index k = 0, e = 0;
  t->ptr[0] = 0;
  for (int i = 1; i < NP; i += 2, k++) {
    t->tied[k] = i;
    for (int side = -1; side <= 1; side += 2) {
      if (i + side >= NP) continue;
      t->src[e] = i + side;
      t->w[e++] = i == NP - 1 ? 1.0 : 0.5;
    }
    t->ptr[k + 1] = e;
  }
  fcd_reduction_options o;
  fcd_reduction_options_init(&o);
  o.nmodes = nmodes;
  o.modal = modal;
  o.basis = basis_kind;
  o.prescribed_shape = shape;
  o.interface = FCD_INTERFACE_RELATIVE;
  o.ntied = k;
  o.tied = t->tied;
  o.tie_ptr = t->ptr;
  o.tie_src = t->src;
  o.tie_w = t->w;
  fcd_reduction *red = NULL;
  CHECK_ST(fcd_reduction_create_opts(s->sys, s->cs, &o, &red), FCD_OK);
  return red;
}

static void test_tied_statics(void) {
  stack s;
  stack_build(&s, 0);
  tied_model t;
  tied_build(&s, &t);
  fcd_index n = s.n, nt = fcd_contact_set_size(t.cs), m = 2 * nt;
  double *w = malloc(sizeof *w * (size_t)t.nw), *u = malloc(sizeof *u * (size_t)n);
  double *r = malloc(sizeof *r * (size_t)m), *rr = malloc(sizeof *rr * (size_t)m);
  double *ue = malloc(sizeof *ue * (size_t)n), *ud = malloc(sizeof *ud * (size_t)n);
  double *ur = NULL, *xr = NULL;
  fcd_index *all = malloc(sizeof *all * (size_t)n);
  for (fcd_index i = 0; i < n; i++) all[i] = i;
  equilibrium(t.sys, t.cs, w, r);
  tied_expand(&s, &t, w, u);
  const fcd_index ms[] = {0, 5};
  for (int k = 0; k < 4; k++) {
    ties tt;
    fcd_reduction *red = reduce_tied(&s, ms[k % 2], &tt, k / 2);
    fcd_system *rs = fcd_reduction_system(red);
    fcd_contact_set *rcs = fcd_reduction_contact_set(red);
    fcd_index nr = fcd_system_ndofs(rs);
    CHECK(fcd_contact_set_size(rcs) == nt); /* the tied pairs left */
    ur = realloc(ur, sizeof *ur * (size_t)nr);
    xr = realloc(xr, sizeof *xr * (size_t)nr);
    equilibrium(rs, rcs, ur, rr);
    CHECK_ST(fcd_reduction_expand(red, ur, ue), FCD_OK);
    double su, sr, du = maxdiff(n, ue, u, &su), dr = maxdiff(m, rr, r, &sr);
    /* no tied pair opens into its partner: its gap is its sources' closed ones */
    double pen = 0;
    for (int i = 1; i < NP; i += 2)
      pen = fmin(pen, -(ue[pair_a(&s, i, 1)] - ue[pair_b(&s, i, 1)]));
    printf("tied every other pair, %lld modes%s%s%s: |du| / |u| = %.2e, |dr| / |r| = %.2e, "
           "tied gaps >= %.1e\n", (long long)ms[k % 2], k / 2 ? ", modal coordinates" : "",
           shape ? ", the pushed top as one" : "",
           basis_kind == FCD_BASIS_FACTORED ? ", factored basis" : "", du / su, dr / sr, pen);
    CHECK(su > 0 && du <= 1e-8 * su);
    CHECK(sr > 0 && dr <= 1e-8 * sr);
    CHECK(pen >= -1e-12 * su);
    check_maps(red, ur, ue, n, nr, all, ud, xr);
    fcd_reduction_destroy(red);
  }
  free(w); free(u); free(r); free(rr); free(ue); free(ud); free(ur); free(xr); free(all);
  tied_free(&t);
  stack_free(&s);
}

/* every interior mode kept: the tied reduced model is the tied model in other
 * coordinates, its transient the hand-tied model's to round-off (mass, damping and
 * stiffness through the ties) */
static void test_tied_dynamics(void) {
  stack s;
  stack_build(&s, 0);
  tied_model t;
  tied_build(&s, &t);
  enum { STEPS = 30 };
  fcd_index n = s.n, nw = t.nw, m = 2 * fcd_contact_set_size(t.cs);
  /* the interior: n less the clamped bottom, the pushed top, the kept and tied nodes */
  ties tt;
  fcd_reduction *red = reduce_tied(&s, n - 4 * NP - 2 * NP, &tt, 0);
  fcd_system *rs = fcd_reduction_system(red);
  fcd_index nr = fcd_system_ndofs(rs);
  double *w0 = malloc(sizeof *w0 * (size_t)nw), *r = malloc(sizeof *r * (size_t)m);
  double *w = malloc(sizeof *w * (size_t)nw * STEPS), *ur = malloc(sizeof *ur * (size_t)nr * STEPS);
  double *u = malloc(sizeof *u * (size_t)n), *ue = malloc(sizeof *ue * (size_t)n);
  double *u0 = malloc(sizeof *u0 * (size_t)n), *ur0 = malloc(sizeof *ur0 * (size_t)nr);
  equilibrium(t.sys, t.cs, w0, r);
  for (int j = 1; j < NY; j++)
    for (int i = 0; i < NP; i++) w0[t.wof[s.nb + 2 * tb_node(&s.b, i, j) + 1]] += 0.003 * sin(3.0 * i + j);
  tied_expand(&s, &t, w0, u0);
  CHECK_ST(fcd_reduction_restrict(red, u0, ur0), FCD_OK);
  CHECK_ST(fcd_reduction_expand(red, ur0, ue), FCD_OK);
  double sc, d0 = maxdiff(n, ue, u0, &sc);
  CHECK(d0 <= 1e-12 * sc);
  transient(t.sys, t.cs, w0, STEPS, w);
  transient(rs, fcd_reduction_contact_set(red), ur0, STEPS, ur);
  double worst = 0, scale = 0;
  for (int k = 0; k < STEPS; k++) {
    tied_expand(&s, &t, w + (size_t)k * nw, u);
    CHECK_ST(fcd_reduction_expand(red, ur + (size_t)k * nr, ue), FCD_OK);
    worst = fmax(worst, maxdiff(n, ue, u, &sc));
    scale = fmax(scale, sc);
  }
  printf("%d steps through every mode, tied: |du| / |u| = %.2e\n", STEPS, worst / scale);
  CHECK(scale > 0 && worst <= 1e-9 * scale);
  fcd_reduction_destroy(red);
  free(w0); free(r); free(w); free(ur); free(u); free(ue); free(u0); free(ur0);
  tied_free(&t);
  stack_free(&s);
}

/* bad ties, each refused by name */
static void test_tied_refusals(void) {
  stack s;
  stack_build(&s, 1); /* contact NP: a rigid wall, no pair, on pair 0's A node */
  fcd_index tied[2] = {3, 5}, ptr[3] = {0, 2, 4}, src[4] = {2, 4, 4, 6};
  double w[4] = {0.5, 0.5, 0.5, 0.5};
  fcd_reduction_options o;
  fcd_reduction_options_init(&o);
  o.interface = FCD_INTERFACE_RELATIVE;
  o.ntied = 2;
  o.tied = tied;
  o.tie_ptr = ptr;
  o.tie_src = src;
  o.tie_w = w;
  fcd_reduction *red = (fcd_reduction *)1;
  o.interface = FCD_INTERFACE_PHYSICAL;
  CHECK_ST(fcd_reduction_create_opts(s.sys, s.cs, &o, &red), FCD_E_INVALID_ARG);
  CHECK(red == NULL);
  CHECK_MSG(s.sys, "needs FCD_INTERFACE_RELATIVE");
  o.interface = FCD_INTERFACE_RELATIVE;
  CHECK_ST(fcd_reduction_create_opts(s.sys, NULL, &o, &red), FCD_E_INVALID_ARG);
  CHECK_MSG(s.sys, "without a contact set");
  src[3] = NP; /* the wall */
  CHECK_ST(fcd_reduction_create_opts(s.sys, s.cs, &o, &red), FCD_E_UNSUPPORTED);
  CHECK_MSG(s.sys, "contact 7, a source of tied contact 5, is no converted");
  src[3] = 0; /* pair 0 stays physical: the wall weighs its A node */
  CHECK_ST(fcd_reduction_create_opts(s.sys, s.cs, &o, &red), FCD_E_UNSUPPORTED);
  CHECK_MSG(s.sys, "contact 0, a source");
  tied[1] = 0;
  CHECK_ST(fcd_reduction_create_opts(s.sys, s.cs, &o, &red), FCD_E_UNSUPPORTED);
  CHECK_MSG(s.sys, "contact 0 (tied[1]) is no converted");
  tied[1] = 5;
  src[3] = 3; /* tied itself */
  CHECK_ST(fcd_reduction_create_opts(s.sys, s.cs, &o, &red), FCD_E_INVALID_ARG);
  CHECK_MSG(s.sys, "is tied itself");
  src[3] = 6;
  tied[1] = 3;
  CHECK_ST(fcd_reduction_create_opts(s.sys, s.cs, &o, &red), FCD_E_INVALID_ARG);
  CHECK_MSG(s.sys, "tied twice");
  tied[1] = 5;
  w[2] = NAN;
  CHECK_ST(fcd_reduction_create_opts(s.sys, s.cs, &o, &red), FCD_E_INVALID_ARG);
  CHECK_MSG(s.sys, "tie_w[2]");
  w[2] = 0.5;
  ptr[1] = 0;
  CHECK_ST(fcd_reduction_create_opts(s.sys, s.cs, &o, &red), FCD_E_INVALID_ARG);
  CHECK_MSG(s.sys, "has no source");
  ptr[1] = 2;
  src[0] = 99;
  CHECK_ST(fcd_reduction_create_opts(s.sys, s.cs, &o, &red), FCD_E_INVALID_ARG);
  CHECK_MSG(s.sys, "tie_src[0] = 99");
  src[0] = 2;
  o.tie_w = NULL;
  CHECK_ST(fcd_reduction_create_opts(s.sys, s.cs, &o, &red), FCD_E_INVALID_ARG);
  CHECK_MSG(s.sys, "NULL tie array");
  o.tie_w = w;
  CHECK_ST(fcd_reduction_create_opts(s.sys, s.cs, &o, &red), FCD_OK); /* the same, mended */
  CHECK(fcd_contact_set_size(fcd_reduction_contact_set(red)) == fcd_contact_set_size(s.cs) - 2);
  fcd_reduction_destroy(red);
  stack_free(&s);
}

/* the prescribed values times t, at rate 1 */
static int ramp(void *ud, fcd_real t, fcd_index nfixed, const fcd_index *dofs, fcd_real *u,
                fcd_real *v) {
  (void)ud;
  (void)dofs;
  for (fcd_index k = 0; k < nfixed; k++) {
    u[k] *= t;
    if (v) v[k] = 0;
  }
  return 0;
}

/* prescribed_shape: the pushed top's 2 NP moving dofs kept as one coordinate, in the
 * physical and the relative interface; the statics stay the full model's (the followers
 * carry the prescribed values exactly), and a prescribed function is refused */
static void test_shape(void) {
  stack s;
  stack_build(&s, 0);
  fcd_index n = s.n, m = 2 * fcd_contact_set_size(s.cs);
  double *u = malloc(sizeof *u * (size_t)n), *r = malloc(sizeof *r * (size_t)m);
  double *ue = malloc(sizeof *ue * (size_t)n), *rr = malloc(sizeof *rr * (size_t)m);
  double *ur = malloc(sizeof *ur * (size_t)n);
  equilibrium(s.sys, s.cs, u, r);
  for (int relative = 0; relative < 2; relative++) {
    shape = 0;
    fcd_reduction *a = reduce(&s, 4, relative);
    shape = 1;
    fcd_reduction *red = reduce(&s, 4, relative);
    fcd_index ka = 0, kb = 0;
    CHECK_ST(fcd_reduction_get_info(a, &ka, NULL, NULL, NULL), FCD_OK);
    CHECK_ST(fcd_reduction_get_info(red, &kb, NULL, NULL, NULL), FCD_OK);
    CHECK(kb == ka - (2 * NP - 1));
    equilibrium(fcd_reduction_system(red), fcd_reduction_contact_set(red), ur, rr);
    CHECK_ST(fcd_reduction_expand(red, ur, ue), FCD_OK);
    double su, sr, du = maxdiff(n, ue, u, &su), dr = maxdiff(m, rr, r, &sr);
    printf("%s, the pushed top as one: %lld kept dofs for %lld, |du| / |u| = %.2e, "
           "|dr| / |r| = %.2e\n", relative ? "relative" : "physical", (long long)kb,
           (long long)ka, du / su, dr / sr);
    CHECK(su > 0 && du <= 1e-8 * su);
    CHECK(sr > 0 && dr <= 1e-8 * sr);
    fcd_reduction_destroy(a);
    fcd_reduction_destroy(red);
  }
  /* a failure inside the joined coordinates names them: more modes than the interior */
  for (int relative = 0; relative < 2; relative++) {
    fcd_reduction_options o;
    fcd_reduction_options_init(&o);
    o.prescribed_shape = 1;
    o.nmodes = n;
    o.interface = relative ? FCD_INTERFACE_RELATIVE : FCD_INTERFACE_PHYSICAL;
    fcd_reduction *red = (fcd_reduction *)1;
    CHECK_ST(fcd_reduction_create_opts(s.sys, s.cs, &o, &red), FCD_E_INVALID_ARG);
    CHECK(red == NULL);
    CHECK_MSG(s.sys, "modes asked");
    CHECK_MSG(s.sys, relative ? "(in relative interface coordinates)"
                              : "(the moving prescribed dofs as one coordinate)");
  }
  shape = 0;
  CHECK_ST(fcd_system_set_prescribed_fn(s.sys, ramp, NULL), FCD_OK);
  fcd_reduction_options o;
  fcd_reduction_options_init(&o);
  o.prescribed_shape = 1;
  fcd_reduction *red = (fcd_reduction *)1;
  CHECK_ST(fcd_reduction_create_opts(s.sys, s.cs, &o, &red), FCD_E_UNSUPPORTED);
  CHECK(red == NULL);
  CHECK_MSG(s.sys, "prescribed_shape with a prescribed function");
  free(u); free(r); free(ue); free(rr); free(ur);
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
  test_tied_statics();
  basis_kind = FCD_BASIS_AUTO;
  test_tied_statics();
  test_dynamics();
  test_tied_dynamics();
  test_tied_refusals();
  test_shape();
  shape = 1; /* the pushed top as one coordinate through the same checks */
  test_statics(0);
  modal_coords = 1;
  test_statics(1);
  test_tied_statics();
  modal_coords = 0;
  test_dynamics();
  test_tied_dynamics();
  shape = 0;
  test_options();
  return fcdt_finish("reduction_relative");
}
