/* Nonsmooth time integration: the step shared by Moreau-Jean, the modified theta method
 * of seed 003 and the energy-consistent scheme of seed 004 (Acary & Collins-Craft
 * 2023), with the exact per-step energy ledger of its eq. (56); the quasistatic scheme
 * chains the static problems of equilibrium.c.
 *
 * One step (seed 004, section 3.3): with Mh = M + h theta C + h^2 theta^2 K on the free
 * dofs, factored once and reused while h and theta stay,
 *   Mh v1 = M v0 - h K u0 - h^2 theta (1 - theta) K v0 - h (1 - theta) C v0 + h F_theta
 *           + H^T p,
 *   u1 = u0 + h v_theta,   v_theta = (1 - theta) v0 + theta v1.
 * The local problem on the active contacts, y = s W p + q with W = H Mh^-1 H^T, is solved
 * by the contact solvers of fc_solvers.c; its active set, q and s are the scheme's
 * (schemes.c, one row of fcd__scheme_ops per scheme, each with its equations). */
#include "capabilities.h"
#include "lapack.h"
#include "schemes.h"
#include "fcd/fcd_equilibrium.h"
#include "fcd/fcd_integrator.h"

#include <float.h>
#include <math.h>
#include <string.h>

#define FCD_INTEGRATOR_MAGIC 0x66636974u /* "fcit" */

/* workspace of a step, kept across steps (arrays of ndofs are large enough for malloc
 * to map and unmap them on every call) */
typedef struct {
  fcd_real *f0, *f1, *b, *tmp, *z, *v1, *u1, *vth;
  fcd_real *loc0, *locq, *locv, *uth;
  fcd_index *act;
  fcd_real *ur, *vr;
  /* the step's certificate: h F_theta, H^T p, round-off scale of the balance (n each),
   * the law vector recomputed from the impulses (m), the true friction coefficients and
   * the index set (nc) */
  fcd_real *hf, *htp, *sx, *sy, *law, *mut;
  unsigned char *amask;
  fcd_real *pn; /* the step's impulses (m), zero where inactive */
  /* the contact phase of this step (contact_alloc, released when the step ends): na
   * active contacts (step_active_set, from the state at the step's entry), their W (Wd,
   * na d x na d), local problem (ql, mul), impulses (pl) and velocities (ul); the dense
   * pattern of Wd (wrp, wci: the integrator's, kept across steps) */
  fcd_index na;
  fcd_real *Wd, *ql, *pl, *ul, *mul;
  fcd_index *wrp, *wci;
  /* the room of Wd, ql, pl, ul, mul in active rows: they are kept from step to step (a
   * step of a small model allocated six arrays and freed them again: under ASan's slow
   * unwinder, which the test suite uses, nine tenths of the pin on a flat's step) */
  fcd_index cap_ma;
  /* htp holds H^T p of this step's final impulses (the plain way's correction with dense rows made it):
   * the certificate reads it rather than making the same product again */
  int htp_ok;
  /* dense contact rows (H_dlen): H u and H v of the integrator's state (hu, hv), made by
   * the step that produced it (from its u1 and v1: hu1, hv1), so that the next step does
   * not read H again for them; valid while the integrator's hloc_ok */
  fcd_real *hu, *hv, *hu1, *hv1;
} work;


struct fcd_integrator {
  uint32_t magic;
  fcd_system *sys;
  fcd_contact_set *cs;
  fcd_scheme scheme;
  const fcd__scheme_ops *ops; /* the dynamic scheme's terms (schemes.c); NULL: quasistatic */
  fcd_real h, theta;
  fcd__fc_opts opts;
  int have_state;
  fcd_real t;
  fcd_real *u, *v; /* ndofs */
  fcd_real *p;     /* impulses of the last step, dim per contact */
  fcd_energy e;
  fcd__factor *fac;
  fcd_real last_h; /* the step that produced p (advance may shorten the last one) */
  int *status;     /* per contact, after the last step */
  fcd_contact_counts counts;
  fcd_observer_fn obs;
  void *obs_ud;
  /* a load added to the system's at every step (fcd__integrator_set_forcing): a shooting
   * solver's periodic forcing, which the borrowed system does not carry */
  fcd__forcing_fn xload;
  void *xload_ud;
  /* W of every contact, H Mh^-1 H^T (m x m, dense), reused by every step while the
   * factor and the contact frames stay: a step then costs two solves with the factor
   * (free velocity, impulse correction) instead of one per active contact direction. */
  fcd__wcache wall;
  /* the step's linear algebra in the contacts' space (contact_space.c): its way (plain,
   * Cholesky halves, a distributed factor's Schur set) chosen at each step's entry */
  fcd__cspace csp;
  fcd__fc_ws fcws; /* the contact solver's buffers, kept from step to step */
  /* the dense pattern of an na d x na d local W in compressed rows (wrp, wci), kept for
   * the next step with as many active directions: wci alone is 8 (na d)^2 bytes, written
   * anew each step before (568 MB at 8,427 directions) */
  fcd_index *wrp, *wci, wdim;
  fcd_index wall_limit;   /* largest m for which the cache is kept */
  /* the cached W scaled as the local problem wants it (the scheme's factor times a power
   * of two), for steps where every contact is active: valid while the cache, its size
   * and the factor are those recorded; the contact solver only reads it. A 400-mode
   * reduced brake's W is 1.5 MB: copying and scaling it was a fifth of its step. */
  fcd_real *wsc, wsc_f;
  fcd_index wsc_m, wsc_facts;
  uint64_t wsc_csver;
  /* the system's pattern and the set's versions at which every contact dof was last
   * found free (a check over all of H's entries: dense rows make it a step's cost) */
  uint64_t free_pv, free_csv;
  /* the contact set's and the free pattern's versions the factor's Schur set was last
   * derived for (schur_ok) */
  int schur_ok;
  uint64_t schur_csv, schur_fpv;
  int split;              /* steps from half solves when the cache and a Cholesky
                           * factor allow (tests turn it off to compare) */
  /* M v, K u, K v, C v of the current state, carried from the step that produced it (the
   * end-of-step energies need them anyway), valid while the system's values are those
   * of carry_ver: a step then applies each matrix once. */
  fcd_real *Mv, *Ku, *Kv, *Cv;
  /* |K| |u| and |K| |v| likewise: the certificate's scales, by linearity from these (a
   * step's K is read once, for the four) */
  fcd_real *aKu, *aKv;
  fcd_equilibrium *eq; /* the quasistatic scheme's incremental problems */
  int carry_ok;
  uint64_t carry_ver;
  int hloc_ok;          /* ws.hu, ws.hv are H u, H v of the state, for hloc_csv's set */
  uint64_t hloc_csv;
  work ws; /* X unused here: per step */
  fcd_index ws_n, ws_nf, ws_nc, ws_nfix; /* the sizes ws was allocated for */
  fcd_real cert_tol;    /* FCD_PARAM_CERT_TOL */
  int check_energy;     /* FCD_PARAM_ENERGY_CHECK */
  fcd_certificate cert; /* of the last step */
  int have_cert;
  long nretry; /* local problems solved again to a tighter tolerance (solve_local) */
  fcd_real loose; /* tests: the first solve of a step at loose times the tolerance */
};

/* The cache of every contact's W comes from one Schur complement: the factor orders the
 * contact dofs last (delassus.c), and its trailing block gives W by one dense inverse, a
 * distributed factor's as MUMPS' Schur complement, a serial one's as UMFPACK's or
 * CHOLMOD's trailing block. The per-step alternative is a block solve of every active
 * direction through the factor (at 100k dofs and 4,107 active directions 90 s a step
 * distributed, 119 s serially). Up to m = 16384 (a 2 GiB cache) the cache wins. */
#define FCD__WALL_LIMIT 16384

static void work_free(work *w) {
  fcd_real **r[] = {&w->f0, &w->f1, &w->b,   &w->tmp, &w->z,  &w->v1,  &w->u1,
                    &w->vth, &w->loc0, &w->locq, &w->locv, &w->uth, &w->ur, &w->vr,
                    &w->hf, &w->htp, &w->sx,  &w->sy,  &w->law, &w->mut, &w->pn,
                    &w->Wd, &w->ql,  &w->pl,  &w->ul,  &w->mul, &w->hu,  &w->hv,
                    &w->hu1, &w->hv1};
  for (size_t k = 0; k < sizeof r / sizeof *r; k++) fcd__free(*r[k]);
  fcd__free(w->act);
  fcd__free(w->amask);
}

/* the load at t: the system's, and the forcing a shooting solver adds */
static fcd_status step_load(fcd_integrator *it, fcd_real t, fcd_real *f) {
  FCD_TRY(fcd_system_eval_load(it->sys, t, f));
  if (it->xload && it->xload(it->xload_ud, t, it->sys->n, f) != 0)
    return fcd__err(it->sys, FCD_E_CALLBACK, "the periodic forcing failed at t = %g", t);
  return FCD_OK;
}

static fcd_status work_ensure(fcd_integrator *it, fcd_index n, fcd_index nf, fcd_index nc,
                              fcd_index m, fcd_index nfix) {
  if (it->ws.f0 && it->ws_n == n && it->ws_nf == nf && it->ws_nc == nc && it->ws_nfix == nfix)
    return FCD_OK;
  work_free(&it->ws);
  memset(&it->ws, 0, sizeof it->ws);
  work *ws = &it->ws;
  ws->f0 = fcd__malloc_array((size_t)n, sizeof(fcd_real));
  ws->f1 = fcd__malloc_array((size_t)n, sizeof(fcd_real));
  ws->b = fcd__malloc_array((size_t)n, sizeof(fcd_real));
  ws->tmp = fcd__malloc_array((size_t)n, sizeof(fcd_real));
  ws->z = fcd__malloc_array((size_t)n, sizeof(fcd_real));
  ws->v1 = fcd__malloc_array((size_t)n, sizeof(fcd_real));
  ws->u1 = fcd__malloc_array((size_t)n, sizeof(fcd_real));
  ws->vth = fcd__malloc_array((size_t)n, sizeof(fcd_real));
  ws->loc0 = fcd__malloc_array((size_t)m + 1, sizeof(fcd_real));
  ws->locq = fcd__malloc_array((size_t)m + 1, sizeof(fcd_real));
  ws->locv = fcd__malloc_array((size_t)m + 1, sizeof(fcd_real));
  ws->uth = fcd__malloc_array((size_t)m + 1, sizeof(fcd_real));
  ws->act = fcd__malloc_array((size_t)nc + 1, sizeof(fcd_index));
  ws->ur = fcd__malloc_array((size_t)nfix + 1, sizeof(fcd_real));
  ws->vr = fcd__malloc_array((size_t)nfix + 1, sizeof(fcd_real));
  ws->hf = fcd__malloc_array((size_t)n, sizeof(fcd_real));
  ws->htp = fcd__malloc_array((size_t)n, sizeof(fcd_real));
  ws->sx = fcd__malloc_array((size_t)n, sizeof(fcd_real));
  ws->sy = fcd__malloc_array((size_t)n, sizeof(fcd_real));
  ws->law = fcd__malloc_array((size_t)m + 1, sizeof(fcd_real));
  ws->mut = fcd__malloc_array((size_t)nc + 1, sizeof(fcd_real));
  ws->amask = fcd__malloc_array((size_t)nc + 1, 1);
  ws->pn = fcd__malloc_array((size_t)m + 1, sizeof(fcd_real));
  ws->hu = fcd__malloc_array((size_t)m + 1, sizeof(fcd_real));
  ws->hv = fcd__malloc_array((size_t)m + 1, sizeof(fcd_real));
  ws->hu1 = fcd__malloc_array((size_t)m + 1, sizeof(fcd_real));
  ws->hv1 = fcd__malloc_array((size_t)m + 1, sizeof(fcd_real));
  it->hloc_ok = 0;
  if (!ws->pn || !ws->hu || !ws->hv || !ws->hu1 || !ws->hv1 || !ws->hf || !ws->htp ||
      !ws->sx || !ws->sy || !ws->law || !ws->mut || !ws->amask ||
      !ws->f0 || !ws->f1 || !ws->b || !ws->tmp || !ws->z || !ws->v1 || !ws->u1 ||
      !ws->vth || !ws->loc0 || !ws->locq || !ws->locv || !ws->uth ||
      !ws->act || !ws->ur || !ws->vr) {
    work_free(ws);
    memset(ws, 0, sizeof *ws);
    return fcd__err(it->sys, FCD_E_NOMEM, "out of memory in an integrator step");
  }
  it->ws_n = n;
  it->ws_nf = nf;
  it->ws_nc = nc;
  it->ws_nfix = nfix;
  return FCD_OK;
}

static int valid(const fcd_integrator *it) {
  return it && it->magic == FCD_INTEGRATOR_MAGIC && fcd__system_valid(it->sys);
}

#define CHECK_IT(it)                                                                   \
  do {                                                                                 \
    if (!valid(it)) return FCD_E_INVALID_ARG;                                          \
  } while (0)

static fcd_index ncontacts(const fcd_integrator *it) { return it->cs ? it->cs->n : 0; }
static int cdim(const fcd_integrator *it) { return it->cs ? it->cs->dim : 0; }

fcd_status fcd_integrator_create(fcd_system *sys, fcd_contact_set *cs, fcd_scheme scheme,
                                 fcd_integrator **out) {
  if (!out) return fcd__err(sys, FCD_E_INVALID_ARG, "integrator_create: out is NULL");
  *out = NULL;
  FCD_CHECK_SYS(sys);
  if (cs && (!fcd__contact_set_valid(cs) || cs->sys != sys))
    return fcd__err(sys, FCD_E_INVALID_ARG,
                    "integrator_create: the contact set is invalid or belongs to another system");
  if (!fcd__scheme_known(scheme))
    return fcd__err(sys, FCD_E_INVALID_ARG, "unknown scheme %d", (int)scheme);
  int qs = scheme == FCD_SCHEME_QUASISTATIC;
  if (!qs && !sys->mat[FCD_MASS].set)
    return fcd__err(sys, FCD_E_STATE, "integrator_create: the system has no mass matrix");
  if (qs && !sys->mat[FCD_STIFFNESS].set)
    return fcd__err(sys, FCD_E_STATE, "integrator_create: the quasistatic scheme needs a "
                    "stiffness matrix");
  fcd_integrator *it = fcd__calloc(1, sizeof *it);
  if (!it) return fcd__err(sys, FCD_E_NOMEM, "out of memory creating an integrator");
  it->sys = sys;
  it->cs = cs;
  it->scheme = scheme;
  it->ops = fcd__scheme_ops_of(scheme);
  it->theta = 0.5;
  /* AUTO for every scheme: seed 003's projected fixed point (eqs. 24-25, still
   * FCD_FC_FIXED_POINT) took 137 iterations a step on the brake, AUTO's solve of the
   * warm start's contact states (fc_state.c) two */
  it->opts = fcd__fc_opts_default(1e-10);
  it->cert_tol = 1e-8;
#ifdef NDEBUG
  it->check_energy = 0;
#else
  it->check_energy = 1;
#endif
  it->wall_limit = FCD__WALL_LIMIT;
  it->split = 1;
  it->u = fcd__calloc((size_t)sys->n, sizeof *it->u);
  it->v = fcd__calloc((size_t)sys->n, sizeof *it->v);
  it->p = fcd__calloc((size_t)(cs ? cs->n * cs->dim : 0), sizeof *it->p);
  it->status = fcd__calloc((size_t)(cs ? cs->n : 0), sizeof *it->status);
  /* each its own block: a step's commit swaps them with the work's (step_commit) */
  fcd_real **carried[] = {&it->Mv, &it->Ku, &it->Kv, &it->Cv, &it->aKu, &it->aKv};
  int carried_ok = 1;
  for (size_t k = 0; k < sizeof carried / sizeof *carried; k++)
    carried_ok &= (*carried[k] = fcd__malloc_array((size_t)sys->n + 1, sizeof **carried[k])) != NULL;
  fcd_status st = (it->u && it->v && it->p && it->status && carried_ok)
                      ? fcd__factor_create_free(sys, &it->fac)
                      : FCD_E_NOMEM;
  /* A step solves through the Schur set twice; with the ranks' separators in it (cheaper
   * to factor) each solve also passes them: at 303k dofs on two ranks a step took 1.46 s
   * against 1.38 s, 80 s over 1,000 steps for some 5 s saved once. */
  if (st == FCD_OK) fcd__factor_set_separators(it->fac, 0);
  if (st == FCD_OK && qs) {
    st = fcd_equilibrium_create(sys, cs, &it->eq);
    if (st == FCD_OK) fcd__equilibrium_set_separators(it->eq, 0);
    if (st == FCD_OK) st = fcd_equilibrium_set_param(it->eq, FCD_PARAM_TOLERANCE, 1e-12);
    if (st != FCD_OK) fcd__factor_destroy_free(it->fac);
  }
  if (st != FCD_OK) {
    fcd__free(it->u);
    fcd__free(it->v);
    fcd__free(it->p);
    fcd__free(it->status);
    for (size_t k = 0; k < sizeof carried / sizeof *carried; k++) fcd__free(*carried[k]);
    fcd__free(it);
    return st == FCD_E_NOMEM ? fcd__err(sys, st, "out of memory creating an integrator") : st;
  }
  it->magic = FCD_INTEGRATOR_MAGIC;
  fcd__system_retain(sys);
  if (cs) cs->children++;
  *out = it;
  return FCD_OK;
}

void fcd_integrator_destroy(fcd_integrator *it) {
  if (!it || it->magic != FCD_INTEGRATOR_MAGIC) return;
  fcd_system *sys = it->sys;
  fcd_contact_set *cs = it->cs;
  fcd__factor_destroy_free(it->fac);
  fcd_equilibrium_destroy(it->eq);
  fcd__free(it->u);
  fcd__free(it->v);
  fcd__free(it->p);
  fcd__free(it->status);
  fcd__free(it->wrp);
  fcd__free(it->wci);
  fcd__wcache_free(&it->wall);
  fcd__cspace_free(&it->csp);
  fcd__free(it->wsc);
  fcd__fc_ws_clear(&it->fcws);
  fcd_real *carried[] = {it->Mv, it->Ku, it->Kv, it->Cv, it->aKu, it->aKv};
  for (size_t k = 0; k < sizeof carried / sizeof *carried; k++) fcd__free(carried[k]);
  work_free(&it->ws);
  it->magic = 0;
  fcd__free(it);
  if (cs) fcd__contact_set_release(cs);
  fcd__system_release(sys);
}

fcd_status fcd_integrator_set_param(fcd_integrator *it, int key, fcd_real value) {
  CHECK_IT(it);
  fcd_system *sys = it->sys;
  switch (key) {
  case FCD_PARAM_STEP:
    if (!isfinite(value) || value <= 0)
      return fcd__err(sys, FCD_E_INVALID_ARG, "time step h = %g must be finite and > 0", value);
    it->h = value;
    return FCD_OK;
  case FCD_PARAM_THETA:
    if (!isfinite(value) || value <= 0 || value > 1)
      return fcd__err(sys, FCD_E_INVALID_ARG, "theta = %g must lie in (0, 1]", value);
    it->theta = value;
    return FCD_OK;
  case FCD_PARAM_TOLERANCE:
  case FCD_PARAM_MAX_ITER:
  case FCD_PARAM_CONTACT_SOLVER: {
    fcd__fc_opt o = key == FCD_PARAM_TOLERANCE  ? FCD__OPT_TOL
                    : key == FCD_PARAM_MAX_ITER ? FCD__OPT_MAX_ITER
                                                : FCD__OPT_SOLVER;
    FCD_TRY(fcd__fc_opts_set(sys, &it->opts, o, value));
    return it->eq ? fcd_equilibrium_set_param(it->eq, key, value) : FCD_OK;
  }
  case FCD_PARAM_ENERGY_CHECK:
    if (value != 0 && value != 1)
      return fcd__err(sys, FCD_E_INVALID_ARG, "energy check %g must be 0 or 1", value);
    it->check_energy = (int)value;
    return FCD_OK;
  case FCD_PARAM_CERT_TOL:
    if (!isfinite(value) || value <= 0 || value >= 1)
      return fcd__err(sys, FCD_E_INVALID_ARG,
                      "certificate tolerance %g must lie in (0, 1)", value);
    if (it->eq) FCD_TRY(fcd_equilibrium_set_param(it->eq, key, value));
    it->cert_tol = value;
    return FCD_OK;
  default:
    return fcd__err(sys, FCD_E_UNSUPPORTED, "unknown integrator parameter key %d", key);
  }
}

static fcd_real quad(fcd_system *sys, fcd_matrix_kind k, const fcd_real *x, fcd_real *w) {
  (void)fcd__rows_apply(sys, k, x, w);
  fcd_real s = 0;
  for (fcd_index i = 0; i < sys->n; i++) s += x[i] * w[i];
  return s;
}

fcd_status fcd_integrator_set_state(fcd_integrator *it, fcd_real t, const fcd_real *u,
                                    const fcd_real *v) {
  CHECK_IT(it);
  fcd_system *sys = it->sys;
  if (!u || (!v && !it->eq))
    return fcd__err(sys, FCD_E_INVALID_ARG, "set_state: %s is NULL", !u ? "u" : "v");
  if (!isfinite(t)) return fcd__err(sys, FCD_E_INVALID_ARG, "set_state: time is not finite");
  for (fcd_index i = 0; i < sys->n; i++)
    if (!isfinite(u[i]) || (v && !isfinite(v[i])))
      return fcd__err(sys, FCD_E_INVALID_ARG, "set_state: %s[%lld] is not finite",
                      !isfinite(u[i]) ? "u" : "v", (long long)i);
  fcd_index nc = ncontacts(it);
  int d = cdim(it);
  fcd_real *w = sys->scratch;
  if (nc > 0) {
    fcd_real *loc = fcd__malloc_array((size_t)(nc * d), sizeof *loc);
    if (!loc) return fcd__err(sys, FCD_E_NOMEM, "out of memory");
    fcd_status sl = fcd_contact_set_local(it->cs, u, loc);
    if (sl != FCD_OK) {
      fcd__free(loc);
      return sl;
    }
    /* The dynamic schemes hold a contact at velocity level, so their own states sink into
     * an obstacle by up to about h times the approach speed (3.4e-8 m at the end of the
     * reduced brake's transient, h = 1e-5 s): a restart from such a state is accepted,
     * up to 2 h max|v|; deeper is not a step's doing. */
    fcd_real vmax = 0;
    for (fcd_index i = 0; v && it->h > 0 && !it->eq && i < sys->n; i++) vmax = fcd__fmax(vmax, fabs(v[i]));
    for (fcd_index c = 0; c < nc; c++) {
      fcd_real pen = loc[c * d] - it->cs->c[c].gap;
      if (pen > 2 * it->h * vmax + 1e-9 * (1.0 + fabs(it->cs->c[c].gap) + fabs(loc[c * d]))) {
        fcd__free(loc);
        return fcd__err(sys, FCD_E_INVALID_ARG,
                        "set_state: contact %lld penetrates by %.3g (u_N - g > 0), more than "
                        "a step sinks (2 h max|v| = %.3g); fcd does not project an initial "
                        "state", (long long)c, pen, 2 * it->h * vmax);
      }
    }
    fcd__free(loc);
  }
  /* prescribed entries follow the system at t; evaluated before anything changes */
  fcd_real *ur = fcd__malloc_array((size_t)sys->nfixed + 1, sizeof *ur);
  fcd_real *vr = fcd__malloc_array((size_t)sys->nfixed + 1, sizeof *vr);
  fcd_status st = (ur && vr) ? fcd_system_eval_prescribed(sys, t, ur, vr) : FCD_E_NOMEM;
  if (st == FCD_OK) {
    memcpy(it->u, u, (size_t)sys->n * sizeof *u);
    if (v) memcpy(it->v, v, (size_t)sys->n * sizeof *v);
    else memset(it->v, 0, (size_t)sys->n * sizeof *it->v);
    for (fcd_index k = 0; k < sys->nfixed; k++) {
      it->u[sys->fixed_list[k]] = ur[k];
      it->v[sys->fixed_list[k]] = vr[k];
    }
  }
  fcd__free(ur);
  fcd__free(vr);
  if (st != FCD_OK) return st == FCD_E_NOMEM ? fcd__err(sys, st, "out of memory") : st;
  it->t = t;
  it->carry_ok = 0;
  it->hloc_ok = 0;
  memset(&it->e, 0, sizeof it->e);
  it->e.kinetic = it->eq ? 0.0 : 0.5 * quad(sys, FCD_MASS, it->v, w);
  it->e.potential = 0.5 * quad(sys, FCD_STIFFNESS, it->u, w);
  if (it->p) memset(it->p, 0, (size_t)(nc * d) * sizeof *it->p);
  it->have_state = 1;
  it->have_cert = 0;
  return FCD_OK;
}

/* Activation tolerance of the index set, relative to the largest displacement or gap */
#define FCD__ACT_TOL 1e-10

/* The certificate of a dynamic step (docs/conventions.md, "Certificates"), into
 * it->cert; NOT_CONVERGED when it fails, before anything is committed. With
 * u_th = u0 + h theta v_theta (the stiffness argument of the step, prescribed rows
 * included), the step's balance on the free rows is
 *   M (v1 - v0) + h K u_th + h C v_theta - h F_theta - H^T p = 0,
 * measured against the sum of the magnitudes of its terms, |K| |u| in place of |K u|
 * so that a large rigid motion's round-off counts. The contact figures are those of the
 * local problem the scheme solved, its law vector recomputed from the impulses: the
 * impulse scale is the balance's, raised to the largest impulse, and the velocity scale
 * the largest velocity or law entry, or that impulse over the smallest contact
 * compliance (the analogue of F / max diag K for equilibria). */
static fcd_status certify_step(fcd_integrator *it, fcd_real h, const work *w,
                               const fcd_real *p, const fcd_real *Mv1, const fcd_real *Kv1,
                               const fcd_real *Cv1, const fcd_real *aKv1, fcd_real wmin,
                               fcd_certificate *out) {
  fcd_system *sys = it->sys;
  fcd_index n = sys->n, nc = ncontacts(it);
  int d = cdim(it);
  fcd_real th = it->theta;
  if (nc > 0 && !w->htp_ok) fcd_contact_set_global(it->cs, p, w->htp);
  else if (nc == 0) memset(w->htp, 0, (size_t)n * sizeof *w->htp);
  fcd_real beta = sys->ray_beta, vs = 0, cv = h * h * th + h * beta;
  for (fcd_index i = 0; i < n; i++) vs = fcd__fmax(vs, fcd__fmax(fabs(it->v[i]), fabs(w->v1[i])));
  fcd_real res = 0, fs = 0;
  for (fcd_index i = 0; i < n; i++) {
    if (sys->is_fixed[i]) continue;
    fcd_real kth = it->Ku[i] + h * th * ((1 - th) * it->Kv[i] + th * Kv1[i]);
    fcd_real cth = (1 - th) * it->Cv[i] + th * Cv1[i];
    fcd_real r = (Mv1[i] - it->Mv[i]) + h * kth + h * cth - w->hf[i] - w->htp[i];
    /* |K| (h |u0| + cv (|v0| + |v1|)) from the products of either state */
    fcd_real ak = h * it->aKu[i] + cv * (it->aKv[i] + aKv1[i]);
    fcd_real s = fabs(Mv1[i]) + fabs(it->Mv[i]) + ak + h * (fabs(it->Cv[i]) + fabs(Cv1[i])) +
                 fabs(w->hf[i]) + fabs(w->htp[i]);
    res = fcd__fmax(res, fabs(r));
    fs = fcd__fmax(fs, s);
  }
  fcd_real ps = fs;
  for (fcd_index i = 0; i < nc * d; i++) {
    ps = fcd__fmax(ps, fabs(p[i]));
    vs = fcd__fmax(vs, fabs(w->law[i]));
  }
  if (wmin > 0) vs = fcd__fmax(vs, ps * wmin);
  fcd_certificate c;
  fcd__certificate_init(&c, ps, vs);
  c.equilibrium = fs > 0 ? res / fs : res;
  if (nc > 0) fcd__certify_contacts(&c, d, nc, w->mut, w->law, p, NULL, w->amask);
  if (!fcd__certificate_check(&c, fcd__fmax(it->cert_tol, 10 * it->opts.tol))) {
    char buf[256];
    fcd__certificate_format(&c, buf, sizeof buf);
    return fcd__err(sys, FCD_E_NOT_CONVERGED, "the step at t = %g fails its certificate: %s; "
                    "the state is unchanged", it->t, buf);
  }
  *out = c;
  return FCD_OK;
}

/* The step's right-hand side, w->b = M v0 - h K u0 - h^2 th (1-th) K v0 - h (1-th) C v0
 * + h F_th - Mh z, with z the prescribed velocities (w->z, w->f0, w->f1, w->vr set). */
static void step_rhs(fcd_integrator *it, const work *w, fcd_real h) {
  fcd_system *sys = it->sys;
  fcd_index n = sys->n, nfix = sys->nfixed;
  fcd_real th = it->theta;
  if (!it->carry_ok || it->carry_ver != sys->value_version) {
    (void)fcd__rows_apply(sys, FCD_MASS, it->v, it->Mv);
    (void)fcd__rows_apply2_abs(sys, FCD_STIFFNESS, it->u, it->Ku, it->v, it->Kv, it->aKu,
                               it->aKv);
    (void)fcd__rows_apply(sys, FCD_DAMPING, it->v, it->Cv);
  }
  for (fcd_index i = 0; i < n; i++)
    w->b[i] = it->Mv[i] - h * it->Ku[i] - h * h * th * (1 - th) * it->Kv[i] -
             h * (1 - th) * it->Cv[i] + h * ((1 - th) * w->f0[i] + th * w->f1[i]);
  int moving = 0; /* supports held still (the usual case) add nothing: three products saved */
  for (fcd_index k = 0; k < nfix; k++) {
    w->z[sys->fixed_list[k]] = w->vr[k];
    moving |= w->vr[k] != 0;
  }
  if (moving) {
    (void)fcd__rows_apply(sys, FCD_MASS, w->z, w->tmp);
    for (fcd_index i = 0; i < n; i++) w->b[i] -= w->tmp[i];
    (void)fcd__rows_apply(sys, FCD_DAMPING, w->z, w->tmp);
    for (fcd_index i = 0; i < n; i++) w->b[i] -= h * th * w->tmp[i];
    (void)fcd__rows_apply(sys, FCD_STIFFNESS, w->z, w->tmp);
    for (fcd_index i = 0; i < n; i++) w->b[i] -= h * h * th * th * w->tmp[i];
  }
}

/* The active set of the step (the scheme's activation): w->act (returned count),
 * w->amask, w->mut; w->loc0 the contacts' velocities, w->locq their predicted
 * displacements (their displacements when the scheme uses them); w->law cleared. */
static fcd_index step_active_set(fcd_integrator *it, const work *w, fcd_real h) {
  fcd_index n = it->sys->n, nc = ncontacts(it);
  int d = cdim(it);
  fcd_index m = nc * d;
  /* active set: predicted gap (u0 + h v0) closed, to within ACT_TOL of the model's
   * length scale: a state that fcd's own equilibrium left at u_N - g = -1e-19 is in
   * contact, and leaving it out would let it fly off on the first step */
  fcd_real lsc = 0;
  for (fcd_index i = 0; i < n; i++) {
    w->tmp[i] = it->u[i] + h * it->v[i];
    lsc = fcd__fmax(lsc, fcd__fmax(fabs(it->u[i]), fabs(w->tmp[i])));
  }
  for (fcd_index c = 0; c < nc; c++) lsc = fcd__fmax(lsc, fabs(it->cs->c[c].gap));
  int dense = it->cs->H_dlen > 0;
  if (dense && it->hloc_ok && it->hloc_csv == it->cs->version) {
    /* dense rows (a reduced model's modal ones) cost a pass over H each: H u and H v as
     * the step that made this state left them (the same products), into law (cleared
     * below) and loc0, the prediction from them */
    memcpy(w->law, w->hu, (size_t)m * sizeof *w->law);
    memcpy(w->loc0, w->hv, (size_t)m * sizeof *w->loc0);
    for (fcd_index i = 0; i < m; i++) w->locq[i] = w->law[i] + h * w->loc0[i];
  } else if (dense) {
    fcd__contact_set_local2(it->cs, it->u, it->v, w->law, w->loc0);
    for (fcd_index i = 0; i < m; i++) w->locq[i] = w->law[i] + h * w->loc0[i];
  } else {
    fcd__contact_set_local2(it->cs, w->tmp, it->v, w->locq, w->loc0);
  }
  fcd_index na = 0;
  for (fcd_index c = 0; c < nc; c++) {
    int on = it->ops->activate(w->locq[c * d] - it->cs->c[c].gap, FCD__ACT_TOL * lsc);
    w->amask[c] = (unsigned char)on;
    w->mut[c] = it->cs->c[c].mu;
    if (on) w->act[na++] = c;
  }
  if (it->ops->uses_displacement && dense) memcpy(w->locq, w->law, (size_t)m * sizeof *w->locq);
  else if (it->ops->uses_displacement) fcd_contact_set_local(it->cs, it->u, w->locq);
  memset(w->law, 0, (size_t)m * sizeof *w->law);
  return na;
}

/* The local problem's right-hand side and friction: ql from the scheme (schemes.c) for
 * each active contact, minus the obstacle's sliding velocity on its tangential part;
 * mul the coefficients. */
static void local_rhs(fcd_integrator *it, const work *w, fcd_index na, fcd_real h,
                      fcd_real *ql, fcd_real *mul) {
  int d = cdim(it);
  it->csp.ops->free_velocity(&it->csp, na, w->act, w->v1, w->locv); /* u_free */
  for (fcd_index a = 0; a < na; a++) {
    fcd_index c = w->act[a];
    mul[a] = it->cs->c[c].mu;
    fcd__scheme_contact sc = {it->theta, h, it->cs->restitution, w->locv + c * d,
                              w->loc0 + c * d, w->locq[c * d] - it->cs->c[c].gap};
    it->ops->local_rhs(&sc, d, ql + a * d);
    /* friction acts on the velocity relative to the obstacle's imposed sliding
     * velocity (a moving belt, a brake disc), in every scheme */
    for (int k = 1; k < d; k++) ql[a * d + k] -= it->cs->c[c].vg[k - 1];
  }
}

/* Each contact's status after the step, by the one classification (contact_state.c)
 * with the step certificate's scales: its impulse decides open or closed, and a closed
 * contact on the cone slips when the velocity its scheme's friction acts on (u1, or
 * u_theta), relative to the obstacle's sliding, moves. */
static void classify_contacts(fcd_integrator *it, const work *w, const fcd_real *pnew,
                              const fcd_certificate *cert) {
  fcd_index nc = ncontacts(it);
  int d = cdim(it);
  /* dense rows: the ledger made H v1 already */
  if (!it->ops->friction_on_theta && it->cs->H_dlen > 0)
    memcpy(w->uth, w->hv1, (size_t)(nc * d) * sizeof *w->uth);
  else if (!it->ops->friction_on_theta)
    fcd_contact_set_local(it->cs, w->v1, w->uth);
  for (fcd_index c = 0; c < nc; c++)
    for (int k = 1; k < d; k++) w->uth[c * d + k] -= it->cs->c[c].vg[k - 1];
  fcd__class_scale sc = {cert->tolerance, cert->length_scale, cert->force_scale};
  for (fcd_index i = 0; i < nc * d; i++) sc.reaction = fcd__fmax(sc.reaction, fabs(pnew[i]));
  memset(&it->counts, 0, sizeof it->counts);
  for (fcd_index c = 0; c < nc; c++) {
    const fcd_real *pc = pnew + c * d, *uc = w->uth + c * d;
    /* an impulse-level state has no gap to read: a contact without impulse is open */
    int stt = fcd__contact_status_of_set(
        fcd__contact_classify(d, it->cs->c[c].mu, -INFINITY, pc, uc + 1, &sc));
    it->status[c] = stt;
    if (stt == FCD_CONTACT_OPEN) it->counts.open++;
    else if (stt == FCD_CONTACT_STICK) it->counts.stick++;
    else it->counts.slip++;
  }
}

/* The per-step energy identity's verdict: gap = |(e1 - e0) - rhs| against scale.
 * Round-off of the energies themselves: u^T K u is only known to about eps |u|^T |K| |u|,
 * which dominates when a large rigid motion (a body sliding far) rides on a stiff K; the
 * check allows a thousand times that. The allowance only adds to the bound, so it is
 * formed (four passes over K and M, half of a reduced model's step) only when the
 * identity misses the bound without it: the same verdict either way. On a host
 * communicator every rank sees the same sums and takes the same branch. */
static fcd_status energy_check(fcd_integrator *it, const work *w, fcd_real gap,
                               fcd_real scale) {
  fcd_system *sys = it->sys;
  fcd_real rnd = 0;
  if (!(gap <= 1e-9 * scale + 1e-300)) {
    const fcd_matrix_kind ka[] = {FCD_STIFFNESS, FCD_STIFFNESS, FCD_MASS, FCD_MASS};
    const fcd_real *xa[] = {it->u, w->u1, it->v, w->v1};
    rnd = fcd__rows_abs_form(sys, 4, ka, xa);
    if (isnan(rnd))
      return fcd__err(sys, FCD_E_BACKEND, "summing the energy check's round-off scale over "
                      "the ranks failed");
  }
  if (gap > 1e-9 * scale + 1e3 * DBL_EPSILON * rnd + 1e-300)
    return fcd__err(sys, FCD_E_INTERNAL, "energy identity violated by %.3e (scale %.3e) in "
                    "the step at t = %g; the state is unchanged", gap, scale, it->t);
  return FCD_OK;
}

/* The energy ledger of the step (seed 004, eq. 56), exact per step, after the step is
 * certified: the new state's products M v1, K u1, K v1, C v1 go to w->b, w->f0, w->tmp,
 * w->z and |K| |u1|, |K| |v1| to w->sx, w->sy (kept for the next step), the sums to
 * it->e. With FCD_PARAM_ENERGY_CHECK the
 * identity is checked; a failure leaves it->e unchanged. */
static fcd_status step_ledger(fcd_integrator *it, fcd_real h, const work *w,
                              const fcd_real *pnew, fcd_real wmin, fcd_certificate *cert) {
  fcd_system *sys = it->sys;
  fcd_index n = sys->n, nc = ncontacts(it), nfix = sys->nfixed;
  int d = cdim(it);
  fcd_real th = it->theta;
  fcd_real *Mv1 = w->b, *Ku1 = w->f0, *Kv1 = w->tmp, *Cv1 = w->z;
  fcd_real *aKu1 = w->sx, *aKv1 = w->sy;
  fcd_status st;
  fcd_real wext = 0;
  for (fcd_index i = 0; i < n; i++) {
    w->hf[i] = h * ((1 - th) * w->f0[i] + th * w->f1[i]);
    wext += w->vth[i] * w->hf[i];
  }
  /* the load at t0 on the prescribed dofs, for the supports' work below (w->f0 becomes
   * K u1; w->ur is no longer needed) */
  for (fcd_index k = 0; k < nfix; k++) w->ur[k] = w->f0[sys->fixed_list[k]];
  (void)fcd__rows_apply(sys, FCD_MASS, w->v1, Mv1);
  (void)fcd__rows_apply2_abs(sys, FCD_STIFFNESS, w->u1, Ku1, w->v1, Kv1, aKu1, aKv1);
  (void)fcd__rows_apply(sys, FCD_DAMPING, w->v1, Cv1);
  if ((st = certify_step(it, h, w, pnew, Mv1, Kv1, Cv1, aKv1, wmin, cert)) != FCD_OK)
    return st;
  fcd_real damp = 0, dv2 = 0, du2 = 0, kin = 0, pot = 0;
  for (fcd_index i = 0; i < n; i++) {
    damp += h * w->vth[i] * ((1 - th) * it->Cv[i] + th * Cv1[i]);
    dv2 += (w->v1[i] - it->v[i]) * (Mv1[i] - it->Mv[i]);
    du2 += (w->u1[i] - it->u[i]) * (Ku1[i] - it->Ku[i]);
    kin += w->v1[i] * Mv1[i];
    pot += w->u1[i] * Ku1[i];
  }
  /* A non-symmetric K (follower loads, friction couplings) is not the Hessian of a
   * potential: its skew part does the work du' K_skew u0 = (du' K u0 - u0' K du) / 2
   * over the step, which the potential energy u' K u / 2 does not see. It is booked as
   * external work (the work of the non-conservative load K stands for). */
  if (fcd__system_circulatory(sys))
    for (fcd_index i = 0; i < n; i++) {
      fcd_real du = w->u1[i] - it->u[i];
      wext -= 0.5 * (du * it->Ku[i] - it->u[i] * (Ku1[i] - it->Ku[i]));
    }
  /* Work of the prescribed motion. The step's equation holds on the free rows only; on
   * a prescribed row i the supports supply the impulse
   *   R_i = [M (v1 - v0) + h K u_th + h C v_th - h F_th]_i,  u_th = u0 + theta du,
   * and, where the prescribed displacement increment du_i differs from h v_th,i, the
   * stiffness term of the identity picks up (du - h v_th)_i (K u_th)_i. Their sum is
   * the energy the prescribed motion puts in: with it the identity of seed 004
   * (eq. 56) stays exact for driven systems. */
  for (fcd_index k = 0; k < nfix; k++) {
    fcd_index i = sys->fixed_list[k];
    fcd_real kuth = (1 - th) * it->Ku[i] + th * Ku1[i];
    fcd_real R = (Mv1[i] - it->Mv[i]) + h * kuth + h * ((1 - th) * it->Cv[i] + th * Cv1[i]) -
                 h * ((1 - th) * w->ur[k] + th * w->f1[i]);
    wext += w->vth[i] * R + ((w->u1[i] - it->u[i]) - h * w->vth[i]) * kuth;
  }
  fcd_real dimp = 0, dfric = 0;
  if (nc > 0 && it->cs->H_dlen > 0) {
    /* dense rows: H u1 and H v1 in one pass, which the next step starts from (kept at the
     * commit), and H v_theta from H v0 and H v1 */
    FCD_TRY(fcd__contact_set_local2(it->cs, w->u1, w->v1, w->hu1, w->hv1));
    for (fcd_index i = 0; i < nc * d; i++) w->uth[i] = (1 - th) * w->loc0[i] + th * w->hv1[i];
  } else if (nc > 0) {
    fcd_contact_set_local(it->cs, w->vth, w->uth);
  }
  if (nc > 0) {
    /* friction dissipates on the slip relative to a moving obstacle; the obstacle's
     * drive, r_T . vg, is work done on the body and counts as external work */
    for (fcd_index c = 0; c < nc; c++) {
      dimp -= w->uth[c * d] * pnew[c * d];
      for (int k = 1; k < d; k++) {
        fcd_real vg = it->cs->c[c].vg[k - 1];
        dfric -= (w->uth[c * d + k] - vg) * pnew[c * d + k];
        wext += vg * pnew[c * d + k];
      }
    }
  }
  /* the per-step identity (seed 004, eq. 56) holds for every scheme to round-off; a
   * violation is a bug in this step, reported rather than silently accumulated */
  if (it->check_energy) {
    fcd_real e0 = it->e.kinetic + it->e.potential, e1 = 0.5 * (kin + pot);
    fcd_real nd = (th - 0.5) * (dv2 + du2), rhs = wext - damp - nd - dimp - dfric;
    fcd_real scale = fabs(e0) + fabs(e1) + fabs(wext) + fabs(damp) + fabs(dimp) +
                     fabs(dfric) + fabs(nd);
    FCD_TRY(energy_check(it, w, fabs((e1 - e0) - rhs), scale));
  }
  it->e.external_work += wext;
  it->e.damping_dissipation += damp;
  it->e.numerical_dissipation += (th - 0.5) * (dv2 + du2);
  it->e.impact_dissipation += dimp;
  it->e.friction_dissipation += dfric;
  it->e.kinetic = 0.5 * kin;
  it->e.potential = 0.5 * pot;
  return FCD_OK;
}

/* The scheme's scaling of W (Fremond: theta) and fcd__fc_solve_balanced's power of two
 * in one factor: the impulses are solved for in 2^-kb units and the law recomputed from
 * them is the same to the bit (powers of two are exact). Returns the factor, kb in *kb. */
static fcd_real local_scaling(const fcd_integrator *it, const work *w, fcd_index ma,
                              fcd_real *W, int *kb) {
  fcd__csr Wc = {ma, w->wrp, w->wci, W, 0, 0, 1, 1, 0, NULL, 0};
  fcd_real scale = it->ops->w_scale(it->theta);
  *kb = fcd__fc_balance_exponent(&Wc, scale);
  return fcd__ldexp(scale, *kb);
}

/* this step's W of the active contacts (Wd, its own copy) scaled in place; kb */
static int scale_local(const fcd_integrator *it, const work *w, fcd_index na, fcd_real *Wd) {
  fcd_index ma = na * cdim(it);
  int kb = 0;
  fcd_real f = local_scaling(it, w, ma, Wd, &kb);
  if (f != 1)
    for (fcd_index i = 0; i < ma * ma; i++) Wd[i] *= f;
  return kb;
}

/* every contact active, W cached: the scaled copy kept from the last such step while it
 * is the same W and the same factor (NULL when out of memory); kb */
static fcd_real *scaled_wall(fcd_integrator *it, const work *w, int *kb) {
  fcd_index ma = ncontacts(it) * cdim(it);
  fcd_real f = local_scaling(it, w, ma, it->wall.W, kb);
  if (it->wsc && it->wsc_m == ma && it->wsc_facts == it->wall.facts &&
      it->wsc_csver == it->wall.csver && it->wsc_f == f)
    return it->wsc;
  if (it->wsc_m != ma || !it->wsc) {
    fcd__free(it->wsc);
    it->wsc = fcd__malloc_array((size_t)ma * (size_t)ma, sizeof *it->wsc);
    it->wsc_m = it->wsc ? ma : 0;
    if (!it->wsc) return NULL;
  }
  for (fcd_index i = 0; i < ma * ma; i++) it->wsc[i] = f * it->wall.W[i];
  it->wsc_facts = it->wall.facts;
  it->wsc_csver = it->wall.csver;
  it->wsc_f = f;
  return it->wsc;
}

/* The contact figures of the step's certificate on the local problem: its impulse and
 * velocity scales are raised to the largest impulse and the largest law entry (or that
 * impulse times the smallest compliance wmin), as certify_step raises them, from ps and
 * vs, given no larger than the step's own. */
static fcd_real local_figures(int d, fcd_index na, const fcd_real *mul, const fcd_real *pl,
                              const fcd_real *ul, fcd_real wmin, fcd_real ps, fcd_real vs) {
  for (fcd_index i = 0; i < na * d; i++) {
    ps = fcd__fmax(ps, fabs(pl[i]));
    vs = fcd__fmax(vs, fabs(ul[i]));
  }
  fcd_certificate c;
  fcd__certificate_init(&c, ps, fcd__fmax(vs, ps * wmin));
  fcd__certify_contacts(&c, d, na, mul, ul, pl, NULL, NULL);
  return fcd__fmax(fcd__fmax(c.penetration, c.complementarity), c.cone);
}

/* Lower bounds of certify_step's scales known before the step's end: the impulse scale
 * is at least |M v0| + h |K| |u0| + |h F_theta| on a free row, the velocity scale at
 * least |v0| (|K| |u0| carried with the state). */
static fcd_status step_scale_bounds(const fcd_integrator *it, const work *w, fcd_real h,
                                    fcd_real *ps, fcd_real *vs) {
  fcd_system *sys = it->sys;
  fcd_real th = it->theta, f = 0, v = 0;
  for (fcd_index i = 0; i < sys->n; i++) {
    v = fcd__fmax(v, fabs(it->v[i]));
    if (sys->is_fixed[i]) continue;
    f = fcd__fmax(f, fabs(it->Mv[i]) + h * it->aKu[i] + h * fabs((1 - th) * w->f0[i] + th * w->f1[i]));
  }
  *ps = f;
  *vs = v;
  return FCD_OK;
}

/* Whether the local answer passes the certificate's contact figures at ctol: first
 * with the local problem's own scales (a pass there is a pass at the step's larger
 * ones), then with the step's scale bounds (kb: the impulses' power of two). */
static int local_passes(const fcd_integrator *it, const work *w, fcd_real h, fcd_index na,
                        const fcd_real *mul, const fcd_real *pl, const fcd_real *ul,
                        fcd_real wl, int kb, fcd_real ctol) {
  int d = cdim(it);
  if (local_figures(d, na, mul, pl, ul, wl, 0, 0) <= ctol) return 1;
  fcd_real ps, vs;
  if (step_scale_bounds(it, w, h, &ps, &vs) != FCD_OK) return 0;
  return local_figures(d, na, mul, pl, ul, wl, fcd__ldexp(ps, -kb), vs) <= ctol;
}

/* The local problem of the active contacts, ul = Wd pl + ql with the scheme's scaling of
 * W (Fremond: theta), solved from the previous impulses (pl in: warm start; out: the
 * impulses). w->law receives the law vector recomputed from pl, for the certificate,
 * and *wmin the smallest diagonal of W, its velocity scale. wrp and wci hold the CSR
 * view of the dense Wd.
 * The solvers stop on a merit relative to |q| summed over the contacts; the step's
 * certificate is per contact, relative to the impulses. Hundreds of contacts sliding
 * fast under light loads (|q| the sliding speeds, the impulses a thousandth of them)
 * can meet the first and miss the second by a little: the problem is then solved again
 * from its answer to a hundredth of the tolerance, twice at most, and the step's
 * certificate judges the result. */
static fcd_status solve_local(fcd_integrator *it, const work *w, fcd_real h, fcd_index na,
                              fcd_real *Wd, int kb, const fcd_real *ql, const fcd_real *mul,
                              fcd_real *pl, fcd_real *ul, fcd_index *wrp, fcd_index *wci,
                              fcd_real *wmin) {
  fcd_system *sys = it->sys;
  int d = cdim(it);
  fcd_index ma = na * d;
  fcd__csr Wc = {ma, wrp, wci, Wd, 0, 0, 1, 1, 0, NULL, 0}; /* every entry: dense */
  /* the cached W's rows and columns taken alike and scaled by one factor */
  Wc.mirror = it->csp.cached && it->csp.wall->wsym;
  /* warm start from the previous impulses of the same contacts */
  for (fcd_index a = 0; a < na; a++)
    for (int k = 0; k < d; k++) pl[a * d + k] = fcd__ldexp(it->p[w->act[a] * d + k], -kb);
  fcd__fc_local lp = {d, na, ma, &Wc, ql, mul, NULL, NULL, &it->fcws};
  it->fcws.blocks_valid = 0; /* W is this step's */
  fcd__fc_result res;
  fcd__fc_opts o = it->opts;
  if (it->loose > 1) o.tol = fmin(0.1, o.tol * it->loose);
  fcd_status st = fcd__fc_solve(sys, &lp, &o, pl, ul, &res);
  char trail[256];
  if (st == FCD_OK && !res.converged)
    st = fcd__err(sys, FCD_E_NOT_CONVERGED,
                  "contact solve of the step at t = %g did not reach %.3g in %lld "
                  "iterations (residual %.3e%s); the state is unchanged", it->t,
                  o.tol, (long long)res.iterations, res.residual,
                  fcd__fc_trail(&res, trail, sizeof trail));
  if (st == FCD_OK) {
    fcd_real wl = 0; /* the smallest compliance, in the local problem's units */
    for (fcd_index a = 0; a < na; a++) {
      fcd_real wa = Wd[(a * d) * ma + a * d];
      if (wa > 0 && (wl == 0 || wa < wl)) wl = wa;
    }
    fcd__fc_matvec(&lp, pl, ul); /* the law recomputed from the impulses */
    fcd_real ctol = fcd__fmax(it->cert_tol, 10 * it->opts.tol);
    o.tol = it->opts.tol;
    for (int again = 0; again < 2 && !local_passes(it, w, h, na, mul, pl, ul, wl, kb, ctol);
         again++) {
      o.tol /= 100;
      it->nretry++;
      if ((st = fcd__fc_solve(sys, &lp, &o, pl, ul, &res)) != FCD_OK) break;
      fcd__fc_matvec(&lp, pl, ul);
    }
    /* the law vector and the smallest compliance for the certificate */
    for (fcd_index i = 0; i < ma; i++) w->law[w->act[i / d] * d + i % d] = ul[i];
    if (wl > 0) *wmin = *wmin == 0 ? fcd__ldexp(wl, -kb) : fmin(*wmin, fcd__ldexp(wl, -kb));
  }
  for (fcd_index i = 0; i < ma; i++) pl[i] = fcd__ldexp(pl[i], kb);
  return st;
}

/* *wrp, *wci: the integrator's dense pattern of a ma x ma matrix (NULL when out of
 * memory), made only when ma changed */
static void dense_pattern(fcd_integrator *it, fcd_index ma, fcd_index **wrp, fcd_index **wci) {
  if (it->wdim != ma || !it->wrp || !it->wci) {
    fcd__free(it->wrp);
    fcd__free(it->wci);
    it->wrp = fcd__malloc_array((size_t)ma + 1, sizeof *it->wrp);
    it->wci = fcd__malloc_array((size_t)ma * (size_t)ma, sizeof *it->wci);
    it->wdim = 0;
    if (!it->wrp || !it->wci) {
      fcd__free(it->wrp);
      fcd__free(it->wci);
      it->wrp = it->wci = NULL;
    } else {
      for (fcd_index i = 0; i < ma; i++)
        for (fcd_index j = 0; j < ma; j++) it->wci[i * ma + j] = j;
      for (fcd_index i = 0; i <= ma; i++) it->wrp[i] = i * ma;
      it->wdim = ma;
    }
  }
  *wrp = it->wrp;
  *wci = it->wci;
}

/* The contact phase of a step with na > 0 active contacts: W of the active contacts,
 * the scheme's local problem, its solve, and the impulse's correction of v1; the
 * impulses go to p (all contacts, zero where inactive), the smallest diagonal of W to
 * *wmin. */
static fcd_status step_contacts(fcd_integrator *it, work *w, fcd_index na, fcd_real h,
                                fcd_real *p, fcd_real *wmin, int *v1_done) {
  fcd_system *sys = it->sys;
  fcd__cspace *csp = &it->csp;
  int d = cdim(it);
  fcd_status st = FCD_OK;
  FCD_TRY(fcd__cspace_ensure_wall(csp));
  fcd_real *Wl = w->Wd;
  int kb = 0;
  if (csp->cached && na == ncontacts(it)) {
    Wl = scaled_wall(it, w, &kb);
    if (!Wl) st = fcd__err(sys, FCD_E_NOMEM, "out of memory for the scaled Delassus operator");
  } else {
    st = fcd__cspace_delassus(csp, na, w->act, w->Wd);
    if (st == FCD_OK) kb = scale_local(it, w, na, w->Wd);
  }
  if (st == FCD_OK) {
    local_rhs(it, w, na, h, w->ql, w->mul);
    st = solve_local(it, w, h, na, Wl, kb, w->ql, w->mul, w->pl, w->ul, w->wrp, w->wci, wmin);
  }
  if (st == FCD_OK)
    for (fcd_index a = 0; a < na; a++)
      for (int k = 0; k < d; k++) p[w->act[a] * d + k] = w->pl[a * d + k];
  /* v1 = v_free + A^-1 H_a^T p */
  if (st == FCD_OK) st = csp->ops->correct(csp, na, w->act, w->pl, p, w->z, w->v1, v1_done);
  w->htp_ok = csp->htp_ok;
  return st;
}

/* The new state becomes the integrator's: u1, v1, the products M v1, K u1, K v1, C v1,
 * |K| |u1|, |K| |v1| the ledger left in the work (kept for the next step), the impulses
 * p, the certificate. The state's arrays and the work's are swapped, not copied (eight
 * passes over n a step): each is its own block, and the step rewrites every work array
 * it reads (the step's copy of it->ws holds the same pointers and ends here). */
static void step_commit(fcd_integrator *it, const fcd_real *p, fcd_real h,
                        const fcd_certificate *cert) {
  fcd_system *sys = it->sys;
  fcd_real **state[] = {&it->u, &it->v, &it->Mv, &it->Ku, &it->Kv, &it->Cv, &it->aKu, &it->aKv};
  fcd_real **work_of[] = {&it->ws.u1, &it->ws.v1, &it->ws.b, &it->ws.f0,
                          &it->ws.tmp, &it->ws.z, &it->ws.sx, &it->ws.sy};
  for (size_t k = 0; k < sizeof state / sizeof *state; k++) {
    fcd_real *t = *state[k];
    *state[k] = *work_of[k];
    *work_of[k] = t;
  }
  it->carry_ok = 1;
  it->carry_ver = sys->value_version;
  it->hloc_ok = 0;
  if (ncontacts(it) > 0 && it->cs->H_dlen > 0) {
    /* the ledger's H u1, H v1 become the state's (the persistent work's arrays swapped) */
    fcd_real *t = it->ws.hu;
    it->ws.hu = it->ws.hu1;
    it->ws.hu1 = t;
    t = it->ws.hv;
    it->ws.hv = it->ws.hv1;
    it->ws.hv1 = t;
    it->hloc_ok = 1;
    it->hloc_csv = it->cs->version;
  }
  if (p) memcpy(it->p, p, (size_t)(ncontacts(it) * cdim(it)) * sizeof *it->p);
  it->t += h;
  it->last_h = h;
  it->cert = *cert;
  it->have_cert = 1;
}

/* The contact phase's arrays for na active contacts, allocated at the step's entry with
 * its other work arrays, before its agreement: the active set comes from the state the
 * step starts from, so a rank out of memory fails with every other there and never
 * alone before a collective solve. */
static fcd_status contact_alloc(fcd_integrator *it, work *w, fcd_index na) {
  int d = cdim(it);
  fcd_index ma = na * d;
  int cached = ncontacts(it) * d <= it->wall_limit;
  FCD_TRY(fcd__cspace_begin_active(&it->csp, it->sys, ma, cached));
  if (ma > w->cap_ma) {
    fcd_real **r[] = {&w->Wd, &w->ql, &w->pl, &w->ul, &w->mul};
    for (size_t k = 0; k < sizeof r / sizeof *r; k++) {
      fcd__free(*r[k]);
      *r[k] = NULL;
    }
    w->cap_ma = 0;
    w->Wd = fcd__malloc_array((size_t)ma * (size_t)ma, sizeof *w->Wd);
    w->ql = fcd__malloc_array((size_t)ma, sizeof *w->ql);
    w->pl = fcd__malloc_array((size_t)ma, sizeof *w->pl);
    w->ul = fcd__malloc_array((size_t)ma, sizeof *w->ul);
    w->mul = fcd__malloc_array((size_t)na, sizeof *w->mul);
    if (w->Wd && w->ql && w->pl && w->ul && w->mul) w->cap_ma = ma;
  }
  dense_pattern(it, ma, &w->wrp, &w->wci);
  if (w->cap_ma < ma || !w->wrp || !w->wci)
    return fcd__err(it->sys, FCD_E_NOMEM, "out of memory for the %lld active contacts of "
                    "an integrator step", (long long)na);
  /* the cached W is copied over every entry (fcd__cspace_delassus): a pass less a step */
  if (!cached) memset(w->Wd, 0, (size_t)ma * (size_t)ma * sizeof *w->Wd);
  memset(w->pl, 0, (size_t)ma * sizeof *w->pl);
  return FCD_OK;
}

/* the step's own X freed; the kept arrays stay for the next step */
static void contact_release(fcd_integrator *it, work *w) {
  fcd__cspace_end_active(&it->csp);
  w->wrp = w->wci = NULL;
  w->na = 0;
}

/* The step's inputs, evaluated by each rank alone: the work space, the loads at both
 * ends and the prescribed motion at t + h. On a distributed system the ranks then agree
 * (one rank's failure is all of theirs) and check that their replicated data match. */
static fcd_status step_inputs(fcd_integrator *it, fcd_real h, const fcd__free_pattern **fp) {
  fcd_system *sys = it->sys;
  fcd_index n = sys->n, nc = ncontacts(it), nfix = sys->nfixed, m = nc * cdim(it);
  fcd_real t1 = it->t + h;
  fcd_status st = fcd__system_free_pattern(sys, fp);
  if (st == FCD_OK) st = work_ensure(it, n, (*fp)->n, nc, m, nfix);
  fcd_index nz = -1; /* the Schur way's arrays: a distributed factor's only */
  if (st == FCD_OK && nc > 0 && fcd__factor_spread(it->fac)) {
    const fcd__csr *H;
    st = fcd__contact_set_operator(it->cs, &H);
    if (st == FCD_OK) nz = H->rowptr[H->n];
  }
  if (st == FCD_OK) st = fcd__cspace_reserve(&it->csp, sys, nz);
  work w = it->ws;
  if (st == FCD_OK) {
    memset(w.z, 0, (size_t)n * sizeof *w.z);
    st = step_load(it, it->t, w.f0);
  }
  if (st == FCD_OK) st = step_load(it, t1, w.f1);
  if (st == FCD_OK) st = fcd_system_eval_prescribed(sys, t1, w.ur, w.vr);
  if (st == FCD_OK && nc > 0) {
    it->ws.na = step_active_set(it, &it->ws, h);
    if (it->ws.na > 0) st = contact_alloc(it, &it->ws, it->ws.na);
  }
  const fcd__replica rep[] = {
      FCD__REPLICA(&h, 1),      FCD__REPLICA(&it->t, 1),     FCD__REPLICA(&it->theta, 1),
      FCD__REPLICA(it->u, n),   FCD__REPLICA(it->v, n),      FCD__REPLICA(w.f0, n),
      FCD__REPLICA(w.f1, n),    FCD__REPLICA(w.ur, nfix),    FCD__REPLICA(w.vr, nfix),
      FCD__REPLICA(sys->fixed_list, nfix), FCD__REPLICA_BY(it->cs, fcd__contact_set_replica)};
  return fcd__dist_agree_replicas(sys, st, "integrator step", rep, sizeof rep / sizeof *rep);
}

/* The step's way in the contacts' space (contact_space.c), chosen from the factor, the
 * contacts and the Delassus cache */
static fcd_status step_cspace(fcd_integrator *it, work *w, const fcd__csr *H,
                              const fcd__free_pattern *fp) {
  fcd_index m = ncontacts(it) * cdim(it);
  fcd__cspace_config c = {it->sys,  it->fac,         it->cs, H, &it->wall, w->htp,
                          m > 0 && m <= it->wall_limit, it->split,
                          fp && fp->nnz == fp->n};
  return fcd__cspace_choose(&it->csp, &c);
}

/* One step of a dynamic scheme: predict (loads, iteration matrix, right-hand side, free
 * motion), the local problem of the active contacts and its solve, the correction of
 * v1 and u1, the energy ledger and the certificate, the commit. A failure leaves the
 * integrator's state as it was. */
static fcd_status step_body(fcd_integrator *it, fcd_real h) {
  fcd_system *sys = it->sys;
  fcd_index n = sys->n, nc = ncontacts(it), nfix = sys->nfixed;
  fcd_index m = nc * cdim(it);
  fcd_real th = it->theta;
  fcd_status st;
  fcd_real *p = NULL;
  fcd_real wmin = 0; /* smallest diagonal of the active W */
  fcd_certificate cert;
  const fcd__free_pattern *fp = NULL;
  FCD_TRY(step_inputs(it, h, &fp));
  work w = it->ws;
  w.htp_ok = 0;
  /* the iteration matrix, refactored only when h or theta (or the system) changed; on a
   * distributed system with the Delassus cache, with the contact dofs eliminated last */
  if (m > 0 && m <= it->wall_limit) {
    /* derived again only when the contacts or the free numbering changed (the factor
     * keeps it; its key is a hash of both versions, a tenth of a pin's step) */
    if (!it->schur_ok || it->schur_csv != it->cs->version || it->schur_fpv != fp->version) {
      it->schur_ok = 0;
      FCD_TRY(fcd__factor_schur_on_contacts(sys, it->fac, it->cs));
      it->schur_ok = 1;
      it->schur_csv = it->cs->version;
      it->schur_fpv = fp->version;
    }
  } else {
    it->schur_ok = 0;
  }
  FCD_TRY(fcd__factor_combination_free(it->fac, 1.0, h * th, h * h * th * th));
  step_rhs(it, &w, h);
  const fcd__csr *H = NULL;
  int v1_done = 0;
  if (nc > 0) {
    FCD_TRY(fcd__contact_set_operator(it->cs, &H));
    /* dofs may have been prescribed after the contacts were added */
    if (it->free_pv != sys->pattern_version || it->free_csv != it->cs->version) {
      FCD_TRY(fcd__contact_dofs_free(sys, H));
      it->free_pv = sys->pattern_version;
      it->free_csv = it->cs->version;
    }
  }
  /* the step is a driver: its linear algebra goes through the way chosen here */
  fcd__cspace *csp = &it->csp;
  if ((st = step_cspace(it, &w, H, fp)) != FCD_OK) goto done;
  if ((st = csp->ops->free_motion(csp, w.b, w.z, w.v1, &v1_done)) != FCD_OK) goto done;
  if (nc > 0) {
    fcd_index na = w.na; /* the active set of the step's entry (step_inputs) */
    p = w.pn;
    memset(p, 0, (size_t)m * sizeof *p);
    if (na > 0 && (st = step_contacts(it, &w, na, h, p, &wmin, &v1_done)) != FCD_OK)
      goto done;
  }
  /* no active contact, and a way that left v1 for last: v1 = v_free */
  if (!v1_done && (st = csp->ops->finish(csp, w.z, w.v1)) != FCD_OK) goto done;
  /* u1 = u0 + h v_theta; prescribed entries from the system */
  for (fcd_index i = 0; i < n; i++) {
    w.vth[i] = (1 - th) * it->v[i] + th * w.v1[i];
    w.u1[i] = it->u[i] + h * w.vth[i];
  }
  for (fcd_index k = 0; k < nfix; k++) w.u1[sys->fixed_list[k]] = w.ur[k];
  /* energy ledger (seed 004, eq. 56), exact per step, and the certificate */
  const fcd_real *pnew = p ? p : it->p;
  if ((st = step_ledger(it, h, &w, pnew, wmin, &cert)) != FCD_OK) goto done;
  if (nc > 0) classify_contacts(it, &w, pnew, &cert);
  step_commit(it, p, h, &cert);
  st = FCD_OK;
done:
  return st;
}

/* A step and the release of its contact phase's arrays, however it ends */
static fcd_status step_once(fcd_integrator *it, fcd_real h) {
  fcd_status st = step_body(it, h);
  contact_release(it, &it->ws);
  return st;
}

void fcd__integrator_set_split(fcd_integrator *it, int split) {
  if (valid(it)) it->split = split;
}

long fcd__integrator_retries(const fcd_integrator *it) { return valid(it) ? it->nretry : -1; }

void fcd__integrator_set_loose(fcd_integrator *it, fcd_real factor) {
  if (valid(it)) it->loose = factor;
}

void fcd__integrator_set_wall_limit(fcd_integrator *it, fcd_index limit) {
  if (!valid(it)) return;
  it->wall_limit = limit;
}

/* One quasistatic step (FCD_SCHEME_QUASISTATIC): the incremental problem at t + h from
 * the current state, whose tangential displacements are the friction history (seed 000,
 * section 5.1, eq. 117). Ledger, exact per step: with du = u1 - u0 and the support
 * reactions R = K u1 - f1 on the prescribed dofs,
 *   du . K u1 = du . f1 + du_D . R_D + du . H^T r1
 *   => E_pot(u1) - E_pot(u0) = [du . f1 + du_D . R_D] - [-du_T . r_T] - [-du_N . r_N]
 *                              - [du . K du / 2],
 * i.e. external work (loads and prescribed motion), friction dissipation, the work of
 * closing contacts (>= 0: (u_N0 - g) r_N1 >= 0), and the dissipation of the implicit
 * (backward Euler) load increment; kinetic energy is zero. */
static fcd_status qs_step(fcd_integrator *it, fcd_real h) {
  fcd_system *sys = it->sys;
  fcd_index n = sys->n, nc = ncontacts(it);
  int d = cdim(it);
  fcd_index m = nc * d;
  fcd_real t1 = it->t + h;
  FCD_TRY(fcd_equilibrium_set_reference(it->eq, it->u));
  FCD_TRY(fcd_equilibrium_solve(it->eq, FCD_EQ_STATIC, t1));
  fcd_real *u1 = fcd__malloc_array((size_t)n, sizeof *u1);
  fcd_real *f1 = fcd__malloc_array((size_t)n, sizeof *f1);
  fcd_real *du = fcd__malloc_array((size_t)n, sizeof *du);
  fcd_real *ku = fcd__malloc_array((size_t)n, sizeof *ku);
  fcd_real *r = fcd__malloc_array((size_t)m + 1, sizeof *r);
  fcd_real *dl = fcd__malloc_array((size_t)m + 1, sizeof *dl);
  fcd_status st = FCD_OK;
  if (!u1 || !f1 || !du || !ku || !r || !dl) {
    st = fcd__err(sys, FCD_E_NOMEM, "out of memory in a quasistatic step");
    goto done;
  }
  fcd_equilibrium_get_state(it->eq, u1);
  fcd_equilibrium_get_reactions(it->eq, r);
  st = step_load(it, t1, f1);
  if ((st = fcd__dist_agree(sys, st, 0, "quasistatic step")) != FCD_OK) goto done;
  for (fcd_index i = 0; i < n; i++) du[i] = u1[i] - it->u[i];
  (void)fcd__rows_apply(sys, FCD_STIFFNESS, u1, ku);
  fcd_real wext = 0, dnum = 0, dfric = 0, dnorm = 0, pot = 0, duku1 = 0, u0kdu = 0;
  for (fcd_index i = 0; i < n; i++) {
    wext += du[i] * (sys->is_fixed[i] ? ku[i] : f1[i]);
    pot += u1[i] * ku[i];
    duku1 += du[i] * ku[i];
  }
  (void)fcd__rows_apply(sys, FCD_STIFFNESS, du, ku);
  for (fcd_index i = 0; i < n; i++) {
    dnum += 0.5 * du[i] * ku[i];
    u0kdu += it->u[i] * ku[i];
  }
  /* K's skew part's work, du' K_skew u0 = (du' K u0 - u0' K du) / 2 with K u0 = K u1 -
   * K du, as external work (step_ledger) */
  if (fcd__system_circulatory(sys)) wext -= 0.5 * (duku1 - 2 * dnum - u0kdu);
  if (nc > 0) {
    fcd_contact_set_local(it->cs, du, dl);
    for (fcd_index c = 0; c < nc; c++) {
      dnorm -= dl[c * d] * r[c * d];
      for (int k = 1; k < d; k++) dfric -= dl[c * d + k] * r[c * d + k];
    }
    fcd_equilibrium_get_contact_state(it->eq, it->status, NULL);
    memset(&it->counts, 0, sizeof it->counts);
    for (fcd_index c = 0; c < nc; c++) {
      if (it->status[c] == FCD_CONTACT_OPEN) it->counts.open++;
      else if (it->status[c] == FCD_CONTACT_STICK) it->counts.stick++;
      else it->counts.slip++;
    }
  }
  it->e.external_work += wext;
  it->e.friction_dissipation += dfric;
  it->e.impact_dissipation += dnorm;
  it->e.numerical_dissipation += dnum;
  it->e.potential = 0.5 * pot;
  it->e.kinetic = 0;
  for (fcd_index i = 0; i < n; i++) it->v[i] = du[i] / h;
  memcpy(it->u, u1, (size_t)n * sizeof *u1);
  it->hloc_ok = 0;
  /* it->p holds forces for this scheme (reaction_of) */
  memcpy(it->p, r, (size_t)m * sizeof *it->p);
  it->t = t1;
  it->last_h = h;
  it->have_cert = 1;
done:
  fcd__free(u1);
  fcd__free(f1);
  fcd__free(du);
  fcd__free(ku);
  fcd__free(r);
  fcd__free(dl);
  return st;
}

/* The reaction of contact component i after the last step: it->p holds impulses for the
 * dynamic schemes (their mean force is p / h) and forces for the quasistatic one, whose
 * incremental static problems have no impulse. */
static fcd_real reaction_of(const fcd_integrator *it, fcd_index i) {
  if (it->eq) return it->p[i];
  return it->p[i] / (it->last_h > 0 ? it->last_h : 1.0);
}

/* a step, then the observer */
static fcd_status step_observed(fcd_integrator *it, fcd_real h) {
  FCD_TRY(it->eq ? qs_step(it, h) : step_once(it, h));
  if (!it->obs) return FCD_OK;
  fcd_index m = ncontacts(it) * cdim(it);
  fcd_real *r = fcd__malloc_array((size_t)m + 1, sizeof *r);
  if (!r) return fcd__err(it->sys, FCD_E_NOMEM, "out of memory for the observer");
  for (fcd_index i = 0; i < m; i++) r[i] = reaction_of(it, i);
  int rc = it->obs(it->obs_ud, it->t, it->sys->n, it->u, it->v, m, r, &it->counts);
  fcd__free(r);
  fcd_status st = FCD_OK;
  if (rc != 0)
    st = fcd__err(it->sys, FCD_E_CALLBACK, "observer returned %d at t = %g", rc, it->t);
  /* an observer that stops one rank stops all of them */
  return fcd__dist_agree(it->sys, st, 0, "integrator observer");
}

fcd_status fcd_integrator_step(fcd_integrator *it) {
  CHECK_IT(it);
  if (!it->have_state)
    return fcd__err(it->sys, FCD_E_STATE, "integrator_step: call fcd_integrator_set_state first");
  if (it->h <= 0)
    return fcd__err(it->sys, FCD_E_STATE, "integrator_step: set FCD_PARAM_STEP first");
  return step_observed(it, it->h);
}

fcd_status fcd__integrator_set_forcing(fcd_integrator *it, fcd__forcing_fn fn, void *ud) {
  CHECK_IT(it);
  it->xload = fn;
  it->xload_ud = fn ? ud : NULL;
  return FCD_OK;
}

fcd_status fcd_integrator_set_observer(fcd_integrator *it, fcd_observer_fn fn,
                                       void *user_data) {
  CHECK_IT(it);
  it->obs = fn;
  it->obs_ud = fn ? user_data : NULL;
  return FCD_OK;
}

fcd_status fcd_integrator_get_contact_status(const fcd_integrator *it, int *status) {
  CHECK_IT(it);
  if (!status) return fcd__err(it->sys, FCD_E_INVALID_ARG, "get_contact_status: status is NULL");
  for (fcd_index c = 0; c < ncontacts(it); c++) status[c] = it->status[c];
  return FCD_OK;
}

fcd_status fcd_integrator_advance(fcd_integrator *it, fcd_real t_end) {
  CHECK_IT(it);
  if (!it->have_state)
    return fcd__err(it->sys, FCD_E_STATE, "integrator_advance: call fcd_integrator_set_state first");
  if (it->h <= 0)
    return fcd__err(it->sys, FCD_E_STATE, "integrator_advance: set FCD_PARAM_STEP first");
  if (!isfinite(t_end) || t_end < it->t)
    return fcd__err(it->sys, FCD_E_INVALID_ARG, "integrator_advance: t_end = %g is before "
                    "the current time %g", t_end, it->t);
  /* The interval ends when what remains is below the resolution of t, or below 1e-12
   * of the step or of the whole interval (a step longer than the interval is cut to it:
   * the remainder test must not be relative to h alone, or h > 1e12 (t_end - t) would
   * end the call with nothing done). */
  fcd_real span = t_end - it->t;
  for (;;) {
    fcd_real rem = t_end - it->t;
    fcd_real res = 8 * DBL_EPSILON * fcd__fmax(fabs(t_end), fabs(it->t));
    if (!(rem > fcd__fmax(res, 1e-12 * fmin(it->h, span)))) break;
    /* a remainder below a hundredth of a step is absorbed into the previous one */
    fcd_real h = rem < 1.01 * it->h ? rem : it->h;
    if (it->t + h == it->t)
      return fcd__err(it->sys, FCD_E_INVALID_ARG,
                      "integrator_advance: the step %g is below the resolution of t = %g; "
                      "time cannot advance", h, it->t);
    FCD_TRY(step_observed(it, h));
  }
  return FCD_OK;
}

fcd_status fcd_integrator_get_state(const fcd_integrator *it, fcd_real *t, fcd_real *u,
                                    fcd_real *v) {
  CHECK_IT(it);
  if (!it->have_state)
    return fcd__err(it->sys, FCD_E_STATE, "integrator_get_state: no state was set");
  if (t) *t = it->t;
  if (u) memcpy(u, it->u, (size_t)it->sys->n * sizeof *u);
  if (v) memcpy(v, it->v, (size_t)it->sys->n * sizeof *v);
  return FCD_OK;
}

fcd_status fcd_integrator_get_reactions(const fcd_integrator *it, fcd_real *r) {
  CHECK_IT(it);
  if (!r) return fcd__err(it->sys, FCD_E_INVALID_ARG, "get_reactions: r is NULL");
  fcd_index m = ncontacts(it) * cdim(it);
  for (fcd_index i = 0; i < m; i++) r[i] = reaction_of(it, i);
  return FCD_OK;
}

fcd_status fcd_integrator_get_energy(const fcd_integrator *it, fcd_energy *e) {
  CHECK_IT(it);
  if (!e) return fcd__err(it->sys, FCD_E_INVALID_ARG, "get_energy: e is NULL");
  if (!it->have_state)
    return fcd__err(it->sys, FCD_E_STATE, "integrator_get_energy: no state was set");
  *e = it->e;
  return FCD_OK;
}

fcd_status fcd_integrator_get_certificate(const fcd_integrator *it, fcd_certificate *cert) {
  CHECK_IT(it);
  if (!cert) return fcd__err(it->sys, FCD_E_INVALID_ARG, "get_certificate: cert is NULL");
  if (it->eq) {
    if (!it->have_cert)
      return fcd__err(it->sys, FCD_E_STATE, "integrator_get_certificate: no step was taken");
    return fcd_equilibrium_get_certificate(it->eq, cert);
  }
  if (!it->have_cert)
    return fcd__err(it->sys, FCD_E_STATE, "integrator_get_certificate: no step was taken");
  *cert = it->cert;
  return FCD_OK;
}

fcd_status fcd_series_write_integrator(fcd_series *s, const fcd_integrator *it) {
  CHECK_IT(it);
  const fcd_contact_set *scs = NULL;
  if (!fcd__series_contact_set(s, &scs))
    return fcd__err(it->sys, FCD_E_INVALID_ARG, "series_write_integrator: the series is "
                    "invalid");
  if (!it->have_state)
    return fcd__err(it->sys, FCD_E_STATE, "series_write_integrator: no state was set");
  if (scs && scs != it->cs)
    return fcd__err(it->sys, FCD_E_INVALID_ARG, "series_write_integrator: the series' contact "
                    "set is not the integrator's");
  fcd_index nc = scs ? ncontacts(it) : 0, m = nc * cdim(it);
  fcd_real *r = scs ? fcd__malloc_array((size_t)m + 1, sizeof *r) : NULL;
  int *status = scs ? fcd__malloc_array((size_t)nc + 1, sizeof *status) : NULL;
  if (scs && (!r || !status)) {
    fcd__free(r);
    fcd__free(status);
    return fcd__err(it->sys, FCD_E_NOMEM, "series_write_integrator: out of memory");
  }
  for (fcd_index i = 0; i < m; i++) r[i] = reaction_of(it, i);
  for (fcd_index c = 0; c < nc; c++) status[c] = it->status[c];
  fcd_status st = fcd_series_write(s, it->t, it->u, it->v, r, status);
  fcd__free(r);
  fcd__free(status);
  return st;
}
