/* The contact-laws layer (lib/layers.txt): the frictional contact problems and their
 * solvers (fc_solvers.c, fc_state.c, lemke.c), the projections and the classification
 * of contact states (projection.c, contact_state.c), certificates (certificate.c), the
 * Delassus builder (delassus.c) and one-step problems (fc_problem.c). */
#ifndef FCD_FC_PRIVATE_H
#define FCD_FC_PRIVATE_H

#include "fcd/fcd_contact.h"
#include "fcd/fcd_fc.h"
#include "model.h"

/* u = W r + q computed without W (solves with a factorization) */
typedef fcd_status (*fcd__fc_apply_fn)(void *ctx, const fcd_real *r, fcd_real *u);

typedef struct fcd__fc_state fcd__fc_state;
/* Buffers the solvers keep across the calls of one owner (a contact problem, an
 * integrator, an equilibrium): once grown to the owner's size, a solve of a few contacts
 * allocates nothing (each allocation cost a few percent of a microsecond solve, and
 * under a sanitizer most of a step). NULL in fcd__fc_local: every solve allocates its
 * own, as before. */
typedef struct {
  fcd_index m_cap, nc_cap; /* the sizes the buffers below hold */
  int dim;
  fcd_real *nsgs;          /* NSGS: diagonal blocks, their inverses, the previous sweep */
  int blocks_valid;        /* nsgs holds W's blocks: the owner clears it when W changes */
  int decoupled;           /* and W has nothing outside them */
  fcd_real *r0, *best;     /* auto: the caller's guess, the best iterate */
  fcd__fc_state *state;    /* the state stage's workspace (fc_state.c) */
} fcd__fc_ws;
/* frees the buffers (not ws itself); NULL-safe */
void fcd__fc_ws_clear(fcd__fc_ws *ws);

/* The local problem u = W r + q seen by the solvers (borrowed arrays). */
typedef struct {
  int dim;
  fcd_index nc, m;
  const fcd__csr *W; /* full storage, m x m; NULL when only apply is available */
  const fcd_real *q;
  const fcd_real *mu;
  fcd__fc_apply_fn apply; /* used when W is NULL (the fixed point only) */
  void *ctx;
  fcd__fc_ws *ws; /* the owner's buffers, or NULL */
} fcd__fc_local;

typedef struct {
  int solver;
  fcd_real tol;
  fcd_index max_iter;
  fcd_real omega;
  int probe; /* auto's ADMM probe: give up once behind a decade per two steps */
} fcd__fc_opts;

/* the defaults every owner of options starts from: AUTO, 10000 iterations, omega 1 */
static inline fcd__fc_opts fcd__fc_opts_default(fcd_real tol) {
  fcd__fc_opts o = {FCD_FC_AUTO, tol, 10000, 1.0, 0};
  return o;
}

/* one solver run by auto: kept as numbers and formatted only for a failure's message,
 * because formatting costs as much as a whole solve of a problem of a few contacts */
typedef struct {
  int solver; /* fcd_fc_solver */
  fcd_index iterations;
  fcd_real residual;
} fcd__fc_stage;
enum { FCD__FC_STAGES = 8 };

typedef struct {
  fcd_index iterations;
  fcd_real residual;
  int converged;
  fcd_real merit; /* Newton and the proximal point: |Phi| (Alart-Curnier) at the end */
  int u_fresh;    /* u is fcd__fc_matvec of the returned r, to the bit (NSGS, the state
                   * stage): a caller need not recompute it */
  int nstages;    /* auto: the solvers it ran, with iterations and residuals */
  fcd__fc_stage stages[FCD__FC_STAGES];
} fcd__fc_result;

/* "; auto tried nsgs 150 it 2.9e-03, prox 33 it 7.4e-09" into buf (empty when auto did
 * not run); returns buf */
const char *fcd__fc_trail(const fcd__fc_result *res, char *buf, size_t cap);

/* The contact-solver options, validated once for every object that carries them
 * (contact problems, integrators). */
typedef enum { FCD__OPT_SOLVER, FCD__OPT_TOL, FCD__OPT_MAX_ITER, FCD__OPT_OMEGA } fcd__fc_opt;
fcd_status fcd__fc_opts_set(const fcd_system *sink, fcd__fc_opts *o, fcd__fc_opt which,
                            fcd_real value);

/* ---- the warm start's contact states taken as the answer's (fc_state.c) ----
 * Whether the stage pays for the problem p from the guess r0 (counts, not clocks); the
 * states of r0 (open, stick, slip in a direction); r from one dense solve of the linear
 * problem of the current states (1: singular); the states corrected from the answer
 * (r, u = W r + q). auto (fc_solvers.c) runs the loop; the trail names it FCD__FC_STATE. */
#define FCD__FC_STATE 99
int fcd__fc_state_worth(const fcd__fc_local *p, const fcd_real *r0);
int fcd__fc_state_step(const fcd__fc_local *p, fcd__fc_state *st, fcd_real *r);
void fcd__fc_state_correct(const fcd__fc_local *p, fcd__fc_state *st, const fcd_real *r,
                           const fcd_real *u);
void fcd__fc_state_free(fcd__fc_state *st);
/* the dense factorizations the workspace has made; the others were solved by refinement
 * from the last one kept */
long fcd__fc_state_factorizations(const fcd__fc_state *st);
/* the stage's workspace of p->ws reused (grown when p is larger), or a new one */
fcd_status fcd__fc_state_acquire(fcd_system *sink, const fcd__fc_local *p, const fcd_real *r0,
                                 fcd__fc_state **out);
/* frees st unless p->ws keeps it */
void fcd__fc_state_release(const fcd__fc_local *p, fcd__fc_state *st);

void fcd__fc_matvec(const fcd__fc_local *p, const fcd_real *r, fcd_real *u);
fcd_real fcd__fc_qnorm(const fcd__fc_local *p);
fcd_real fcd__fc_error(const fcd__fc_local *p, const fcd_real *r, const fcd_real *u);
/* Exact one-contact solve of u = a r + qh (a: d x d row-major, ainv its inverse or
 * NULL); 1 on success. */
int fcd__fc_local_exact(int d, const fcd_real *a, const fcd_real *ainv, const fcd_real *qh,
                        fcd_real mu, fcd_real *r);
/* Runs the chosen solver from the guess in r; r, u hold the last iterate and res says
 * whether it converged. Returns an error status only for failures other than
 * non-convergence. */
fcd_status fcd__fc_solve(fcd_system *sink, const fcd__fc_local *p, const fcd__fc_opts *o,
                         fcd_real *r, fcd_real *u, fcd__fc_result *res);
/* fcd__fc_solve on the problem with its units balanced: W (p->W->val, modified in
 * place and restored exactly) scaled by a power of two that brings its mean diagonal
 * into [1, 2), the reactions r by its inverse. The same problem, but the natural map then
 * compares like with like: with W in m/N of a steel part (1e-11) the residual's floor
 * was round-off of r (1e8 N) against u (1e-5 m), above any tolerance. res->residual
 * is the balanced problem's. For the callers that own W (equilibria, integrators);
 * fclib problems keep Siconos' residual. */
fcd_status fcd__fc_solve_balanced(fcd_system *sink, const fcd__fc_local *p,
                                  const fcd__fc_opts *o, fcd_real *r, fcd_real *u,
                                  fcd__fc_result *res);
/* the exponent k fcd__fc_solve_balanced scales factor W by (2^k factor W has its mean
 * diagonal in [1, 2)), for a caller that folds the scaling into its own copy of W */
int fcd__fc_balance_exponent(const fcd__csr *W, fcd_real factor);

#include "fclib_backend.h"

/* W = H A^-1 H^T, dense row-major m x m (m = H->n), for A factored in fac on the free
 * dofs; every column of H must be a free dof (fcd__contact_dofs_free). */
/* W = H^T A^-1 H (sparse) for a global problem's H stored n x m, with its transpose HT */
fcd_status fcd__delassus_sparse(const fcd_system *sys, fcd__factor *fac, const fcd__csr *Hd,
                                const fcd__csr *HT, fcd__csr *W);
/* W of the active contacts act (d rows each) of H, with X = A^-1 H_a^T kept */
fcd_status fcd__delassus_active(const fcd_system *sys, fcd__factor *fac, fcd__solve_fn solve,
                                const fcd__csr *H, int d, fcd_index na, const fcd_index *act,
                                fcd_real *X, fcd_real *Wd);
/* A block solve in place, X (nf x nrhs, by columns) <- A^-1 X, for an operator that is
 * no plain factor: the pseudo-inverse K^+ of a semi-definite stiffness (equilibria of
 * bodies held by their contacts) */
typedef fcd_status (*fcd__block_solve_fn)(void *ctx, fcd_index nrhs, fcd_real *X);
/* W = H A^-1 H^T, dense row-major m x m, its columns through solve in blocks of 64 (nf x
 * 64 of extra memory at most); every column of H a free dof, nf the free dofs */
fcd_status fcd__delassus_blocks(const fcd_system *sys, fcd_index nf, fcd__block_solve_fn solve,
                                void *ctx, const fcd__csr *H, fcd_real *W);
/* solve: fcd__factor_solve, or fcd__factor_solve_free for the free operator's factor */
fcd_status fcd__delassus_dense(const fcd_system *sys, fcd__factor *fac, fcd__solve_fn solve,
                               const fcd__csr *H, fcd_real *W);
/* dense products with at least this many rows go to BLAS' dgemv (below it the call's own
 * cost is the product's: a contact of a pin is three rows) */
#define FCD__GEMV_MIN 64

/* The dense W of every contact, kept while the factor (its factorization count) and the
 * contact set (its version) stay: integrators and equilibria reuse it across solves. */
typedef struct {
  fcd_real *W;
  fcd_index facts;
  uint64_t csver;
  int wsym; /* W exactly symmetric (a Cholesky factor's: its halves' product, mirrored) */
  /* Cholesky factors A = P' L L' P only: Y = L^-1 P H^T on the free dofs (CSC, one
   * sparse column per contact direction), for steps made of one forward and one
   * backward half solve (fcd__wcache_ensure_y) */
  fcd_index *yp, *yi;
  fcd_real *yx;
  /* Y dense (row r: the column of contact direction r, nf entries), kept beside the
   * columns when they fill half of it (a reduced model's): the step's two products with
   * Y go to BLAS; NULL otherwise */
  fcd_real *yd;
  /* else, where each column's entries fill half the stretch from its first to its last
   * (a dense factor's trailing block: the stretch to its end), the stretches: column r
   * from free dof ys0[r], ysp[r + 1] - ysp[r] entries at ysx + ysp[r], zeros kept, read
   * without indices; NULL otherwise */
  fcd_index *ys0, *ysp;
  fcd_real *ysx;
  fcd_index yfacts;
  uint64_t ycsver;
} fcd__wcache;
fcd_status fcd__wcache_ensure(fcd__wcache *c, const fcd_system *sys, fcd__factor *fac,
                              fcd__solve_fn solve, const fcd_contact_set *cs,
                              const fcd__csr *H);
fcd_status fcd__wcache_ensure_y(fcd__wcache *c, const fcd_system *sys, fcd__factor *fac,
                                const fcd_contact_set *cs, const fcd__csr *H);
void fcd__wcache_free(fcd__wcache *c);
/* the contact solvers' registry (FCD_FAMILY_CONTACT_SOLVER): row k of fc_solvers.c's table */
int fcd__fc_solver_registry(int k, fcd__named *out);

/* ---- the step's linear algebra in the contacts' space (contact_space.c) ----
 * One object per integrator, its way chosen once per step's configuration by
 * fcd__cspace_choose and called through its table: the free motion from the step's
 * right-hand side b, the free velocity at the active contacts, the impulse's correction
 * v1 = v_free + A^-1 H_a^T p, and v1 when no contact is active. z holds the prescribed
 * velocities (v1's entries off the free dofs). */
typedef struct fcd__cspace fcd__cspace;
typedef struct {
  const char *name;
  fcd_status (*free_motion)(fcd__cspace *s, const fcd_real *b, const fcd_real *z,
                            fcd_real *v1, int *v1_done);
  void (*free_velocity)(fcd__cspace *s, fcd_index na, const fcd_index *act,
                        const fcd_real *v1, fcd_real *locv);
  fcd_status (*correct)(fcd__cspace *s, fcd_index na, const fcd_index *act,
                        const fcd_real *pl, const fcd_real *p, const fcd_real *z,
                        fcd_real *v1, int *v1_done);
  fcd_status (*finish)(fcd__cspace *s, const fcd_real *z, fcd_real *v1);
} fcd__cspace_ops;
struct fcd__cspace {
  const fcd__cspace_ops *ops;
  fcd_system *sys;
  fcd__factor *fac;
  const fcd_contact_set *cs;
  const fcd__csr *H;
  fcd__wcache *wall;
  int cached;         /* W of every contact kept (the wall cache) */
  fcd_real *htp;      /* n: H^T p, when the correction made it (htp_ok) */
  int htp_ok;
  fcd_index nf;       /* the free dofs rf, xf were allocated for */
  fcd_real *rf, *xf;  /* nf each: the way's free-dof vectors */
  fcd_real *X;        /* nf x ma, A^-1 H_a^T, a step's own beyond the cache */
  /* the Schur way: the factor's Schur set (ns free dofs sidx; spos[k] the place of free
   * dof k in it), the free motion there (xs), the impulse's right-hand side on it (sg),
   * allocated for hz entries of H */
  fcd_index ns, *sidx, *spos, hz;
  fcd_real *xs, *sg;
  /* what the way was chosen for: a step whose factor, contacts, pattern and options are
   * those keeps it (the choice, Y's check and the Schur set cost a pin's step a tenth) */
  int chosen, wall_ok; /* wall_ok: W of every contact made current for this choice */
  const fcd__factor *k_fac;
  fcd_index k_facts;
  uint64_t k_csver, k_pv;
  const fcd__csr *k_H;
  int k_cached, k_allow, k_diag;
};
typedef struct {
  fcd_system *sys;
  fcd__factor *fac;
  const fcd_contact_set *cs;
  const fcd__csr *H;
  fcd__wcache *wall;
  fcd_real *htp;
  int cached;       /* m within the wall cache's limit */
  int allow_halves; /* 0: the plain way even where halves apply (tests compare) */
  int diagonal;     /* the iteration matrix is diagonal (a modal reduced model) */
} fcd__cspace_config;
fcd_status fcd__cspace_choose(fcd__cspace *s, const fcd__cspace_config *c);
/* the arrays of the free dofs, and of the Schur way for nz entries of H (nz < 0: none),
 * allocated at a step's entry, before its agreement: a rank out of memory fails with
 * every other there and never alone inside a collective. The inline parts are the
 * steady step's: a check each, where a call each was a pin's step's 2 %. */
fcd_status fcd__cspace_reserve_(fcd__cspace *s, fcd_system *sys, fcd_index nz);
static inline fcd_status fcd__cspace_reserve(fcd__cspace *s, fcd_system *sys, fcd_index nz) {
  if (s->rf && s->nf == sys->nfree && (nz < 0 || (s->sidx && s->hz >= nz))) return FCD_OK;
  return fcd__cspace_reserve_(s, sys, nz);
}
/* a step's ma active contact directions: X beyond the cache (cached 0), allocated with
 * the step's other arrays before its agreement (fcd__cspace_end_active frees it) */
fcd_status fcd__cspace_begin_active_(fcd__cspace *s, fcd_system *sys, fcd_index ma);
void fcd__cspace_end_active_(fcd__cspace *s);
static inline void fcd__cspace_end_active(fcd__cspace *s) {
  if (s->X) fcd__cspace_end_active_(s);
}
static inline fcd_status fcd__cspace_begin_active(fcd__cspace *s, fcd_system *sys,
                                                  fcd_index ma, int cached) {
  fcd__cspace_end_active(s);
  return cached || ma == 0 ? FCD_OK : fcd__cspace_begin_active_(s, sys, ma);
}
/* W of every contact made current (with the cache), and W of the active ones, dense */
fcd_status fcd__cspace_ensure_wall_(fcd__cspace *s);
static inline fcd_status fcd__cspace_ensure_wall(fcd__cspace *s) {
  return !s->cached || s->wall_ok ? FCD_OK : fcd__cspace_ensure_wall_(s);
}
fcd_status fcd__cspace_delassus(fcd__cspace *s, fcd_index na, const fcd_index *act,
                                fcd_real *Wd);
void fcd__cspace_free(fcd__cspace *s);

/* FCD_E_STATE naming the dof when a contact dof has been prescribed after the contact
 * was added. */
fcd_status fcd__contact_dofs_free(const fcd_system *sys, const fcd__csr *H);

/* ---- contact states (contact_state.c): the one place for reaction signs and slip
 * directions ---- */
#include "fcd/fcd_equilibrium.h"
/* s = -r_T / norm(r_T) (d - 1 entries; zero when r_T = 0) */
void fcd__slip_from_reaction(int d, const fcd_real *r, fcd_real *s);
/* s = -vg / norm(vg); 0 when vg vanishes */
int fcd__slip_from_sliding_velocity(int d, const fcd_real *vg, fcd_real *s);
/* The scales of a contact's classification: a relative tolerance, and the certificate's
 * length scale (a velocity scale for the dynamic schemes) and reaction scale
 * R = max(F, largest reaction). */
typedef struct {
  fcd_real tol, length, reaction;
} fcd__class_scale;
/* The one classification of a contact, for every analysis that writes or reads a
 * state: its fcd_equilibrium_set from gapres = u_N - g, its reaction (or impulse) r and,
 * where the caller has one, its slip (d - 1 entries: the sliding velocity; NULL: a
 * contact on the cone slips). */
int fcd__contact_classify(int d, fcd_real mu, fcd_real gapres, const fcd_real *r,
                          const fcd_real *slip, const fcd__class_scale *s);
/* FCD_CONTACT_* of an fcd_equilibrium_set (separated and grazing are open) */
int fcd__contact_status_of_set(int set);

/* ---- certificates (certificate.c): one measure of a result against the law ---- */
#include "fcd/fcd_certificate.h"
/* zero figures with the scales (non-positive or non-finite scales become 1); inline, as
 * its call and memset were 2 % of a step of a model of a few dofs */
static inline void fcd__certificate_init(fcd_certificate *c, fcd_real force_scale,
                                         fcd_real length_scale) {
  *c = (fcd_certificate){0};
  c->force_scale = force_scale > 0 && isfinite(force_scale) ? force_scale : 1.0;
  c->length_scale = length_scale > 0 && isfinite(length_scale) ? length_scale : 1.0;
}
/* Adds the contact-law figures of nc contacts: law holds d entries per contact, the
 * normal gap residual (u_N - g, or the scheme's normal variable) then the tangential
 * slip (displacement from the reference, or slip velocity); r the local reactions; slip
 * (d-1 per contact) a prescribed slip direction (steady sliding) or NULL; active NULL or
 * one flag per contact (inactive contacts must carry nothing). The reaction scale is the
 * force scale raised to the largest reaction. */
void fcd__certify_contacts(fcd_certificate *c, int d, fcd_index nc, const fcd_real *mu,
                           const fcd_real *law, const fcd_real *r, const fcd_real *slip,
                           const unsigned char *active);
/* worst and tolerance set; 1 when worst <= tol */
int fcd__certificate_check(fcd_certificate *c, fcd_real tol);
int fcd__certificate_format(const fcd_certificate *c, char *buf, size_t cap);
/* Friction beyond this coefficient is solved as its limit (fcd__fc_solve caps it for
 * every caller): a solution with no contact on the cone of MU_CAP holds for every larger mu (|r_T| < MU_CAP |r_N| <= mu |r_N|); the
 * certificate is then checked with the true mu, so a contact that does reach the cone of
 * the cap fails it instead of passing for perfect stick. */
#define FCD__MU_CAP 1e4

/* ---- Lemke's method (lemke.c) ---- */
enum { FCD__LEMKE_OK = 0, FCD__LEMKE_RAY = 1, FCD__LEMKE_CAP = 2, FCD__LEMKE_NOMEM = 3,
       FCD__LEMKE_INACCURATE = 4 };
int fcd__lemke(fcd_index m, const fcd_real *A, const fcd_real *q, fcd_real *z,
               fcd_index max_pivots, fcd_index *pivots);
/* Block principal pivoting (Judice and Pires' full exchange, without their safeguard)
 * for the same problem, from the guess act (act[i]: z_i > 0): solve A_GG z_G = -q_G on
 * the guessed set G, z = 0 elsewhere, and move every index on the wrong side (z_i < -tol
 * in G, w_i < -tol outside) across; at most maxit dense solves. 0 with z (clipped to
 * z >= 0) when no index is wrong, 1 when it did not settle or a guessed block is
 * singular (then Lemke's method decides), FCD__LEMKE_NOMEM. Where the guess is right,
 * as for contacts that stay pressed, one dense solve replaces Lemke's m pivots. */
int fcd__lcp_block_pivot(fcd_index m, const fcd_real *A, const fcd_real *q,
                         unsigned char *act, fcd_real *z, int maxit, fcd_real tol);

/* Benchmarks only: keep the sparse reduced K*, M* of the last sparse stability solve,
 * and read them (1 when kept). */
struct fcd_stability;
void fcd__stability_keep_reduced(struct fcd_stability *st, int keep);
int fcd__stability_reduced(const struct fcd_stability *st, const fcd__csr **K,
                           const fcd__csr **M);

/* Tests only: the largest number of contact directions for which an integrator keeps
 * the Delassus operator of every contact across steps (0: never, per-step operators). */
struct fcd_integrator;
void fcd__integrator_set_wall_limit(struct fcd_integrator *it, fcd_index limit);
/* 0: full solves for the free motion and the correction even where half solves apply */
void fcd__integrator_set_split(struct fcd_integrator *it, int split);
/* local problems solved again to a tighter tolerance after missing the step's contact
 * figures (the tests' view; -1 for an invalid handle) */
long fcd__integrator_retries(const struct fcd_integrator *it);
/* the first contact solve of every step at factor times the tolerance (> 1; the tests'
 * way to hand the certificate a local answer that meets the solver's merit only) */
void fcd__integrator_set_loose(struct fcd_integrator *it, fcd_real factor);

/* the sorted free dofs H's entries touch, into idx (H's nnz entries at least) and their
 * count into *s; pos (nfree entries) receives each free dof's place in idx or -1 */
void fcd__contact_free_dofs(const fcd_system *sys, const fcd__csr *H, fcd_index *idx,
                            fcd_index *pos, fcd_index *s);

/* ---- the contact laws' operators without argument checks ----------------------------
 * The public functions of projection.c check their arguments (NULL, dim, finite entries)
 * and then run these; inside the library the arguments are the solvers' own, and the
 * checks were a quarter of the residual of a one-contact solve. mu is the caller's,
 * finite and nonnegative; the natural map keeps the public one's NaN for a non-finite
 * argument of the projection (an infinite one would otherwise project to 0 and give a
 * finite residual). d is 2 or 3, a constant once inlined. */
static inline void fcd__proj_cone_d(const int d, fcd_real mu, const fcd_real *x, fcd_real *y) {
  fcd_real xn = x[0], t = fcd__tnorm(d, x);
  /* inside K_mu (includes x = 0); x_N <= 0 is implied by t <= -mu x_N only for mu > 0:
   * with mu = 0 and x_T = 0 a positive x_N would pass, and the projection of a
   * separating frictionless contact was the tension x itself */
  if (xn <= 0 && t <= -mu * xn) {
    for (int k = 0; k < d; k++) y[k] = x[k];
    return;
  }
  if (mu * t <= xn) { /* inside the polar cone { mu ||x_T|| <= x_N } */
    for (int k = 0; k < d; k++) y[k] = 0.0;
    return;
  }
  /* onto the boundary ray (-1, mu s) / sqrt(1 + mu^2), s = x_T / ||x_T||; t > 0 here */
  fcd_real a = (mu * t - xn) / (1.0 + mu * mu); /* -y_N >= 0 */
  y[0] = -a;
  fcd_real scale = mu * a / t;
  for (int k = 1; k < d; k++) y[k] = scale * x[k];
}
static inline void fcd__desaxce_d(const int d, fcd_real mu, const fcd_real *u, fcd_real *ut) {
  fcd_real t = fcd__tnorm(d, u);
  ut[0] = u[0] - mu * t;
  for (int k = 1; k < d; k++) ut[k] = u[k];
}
static inline void fcd__natural_map_d(const int d, fcd_real mu, const fcd_real *r,
                                      const fcd_real *u, fcd_real *f) {
  fcd_real z[3], p[3];
  fcd__desaxce_d(d, mu, u, z);
  fcd_real bad = 0; /* 0, or NaN when an entry of z is not finite */
  for (int k = 0; k < d; k++) {
    z[k] = r[k] - z[k];
    bad += z[k] * 0.0;
  }
  if (bad != 0) {
    for (int k = 0; k < d; k++) f[k] = NAN;
    return;
  }
  fcd__proj_cone_d(d, mu, z, p);
  for (int k = 0; k < d; k++) f[k] = r[k] - p[k];
}

#endif
