/* Static and steady-sliding equilibria (fcd/fcd_equilibrium.h).
 *
 * Both are reduced to the contacts through the free-dof factor of K:
 *   u = z + K^-1 (f - K z + H^T r)          (z: prescribed displacements, lifted)
 *   H u = H u_base + W r,   W = H K^-1 H^T  (dense, kept while K and the frames stay).
 * Static (and the incremental step of the quasistatic scheme): the local problem
 *   u_loc = W r + q,  q = H u_base - (g, H_T u_ref),
 * is a frictional contact problem in fcd's convention (Signorini on u_N - g, Coulomb on
 * the tangential displacement from the reference), solved exactly by the contact
 * solvers of fc_solvers.c; the slip threshold mu |r_N| is part of that problem, so the
 * fixed point of seed 000 section 5.1 on it is not needed.
 * Steady sliding: r_T = mu r_N s with s fixed, so u_N - g is affine in r_N alone:
 *   u_N - g = c + A r_N,  A_ij = W_{iN,jN} + mu_j s_j . W_{iN,jT},
 * with complementarity u_N - g <= 0, r_N <= 0: the LCP (z = -r_N)
 *   w = A z - c >= 0, z >= 0, z . w = 0, solved by Lemke's method (lemke.c). The
 * contact problems of both are equilibrium_contact.c's. */
#include "equilibrium_private.h"
#include "fcd/fcd_integrator.h"
#include "fcd/fcd_vtk.h"

#include <math.h>
#include <string.h>

static int valid(const fcd_equilibrium *eq) {
  return eq && eq->magic == FCD_EQUILIBRIUM_MAGIC && fcd__system_valid(eq->sys);
}

#define CHECK_EQ(eq)                                                                   \
  do {                                                                                 \
    if (!valid(eq)) return FCD_E_INVALID_ARG;                                          \
  } while (0)

fcd_status fcd_equilibrium_create(fcd_system *sys, fcd_contact_set *cs,
                                  fcd_equilibrium **out) {
  if (!out) return fcd__err(sys, FCD_E_INVALID_ARG, "equilibrium_create: out is NULL");
  *out = NULL;
  FCD_CHECK_SYS(sys);
  if (cs && (!fcd__contact_set_valid(cs) || cs->sys != sys))
    return fcd__err(sys, FCD_E_INVALID_ARG, "equilibrium_create: the contact set is invalid "
                    "or belongs to another system");
  if (!sys->mat[FCD_STIFFNESS].set)
    return fcd__err(sys, FCD_E_STATE, "equilibrium_create: the system has no stiffness "
                    "matrix");
  fcd_equilibrium *eq = fcd__calloc(1, sizeof *eq);
  if (!eq) return fcd__err(sys, FCD_E_NOMEM, "out of memory creating an equilibrium solver");
  eq->sys = sys;
  eq->cs = cs;
  eq->opts = fcd__fc_opts_default(1e-12);
  eq->classify_tol = 1e-8;
  eq->cert_tol = 1e-8;
  eq->probe_facts = -1;
  eq->void_dof = -1;
  fcd_status st = fcd__factor_create_free(sys, &eq->fac);
  if (st != FCD_OK) {
    fcd__free(eq);
    return st;
  }
  eq->magic = FCD_EQUILIBRIUM_MAGIC;
  fcd__system_retain(sys);
  if (cs) cs->children++;
  *out = eq;
  return FCD_OK;
}

void fcd__equilibrium_set_separators(fcd_equilibrium *eq, int on) {
  fcd__factor_set_separators(eq->fac, on);
}

static void free_solution(fcd_equilibrium *eq) {
  fcd__free(eq->u);
  fcd__free(eq->r);
  fcd__free(eq->set);
  fcd__free(eq->sdir);
  eq->u = eq->r = eq->sdir = NULL;
  eq->set = NULL;
  eq->have = 0;
}

void fcd_equilibrium_destroy(fcd_equilibrium *eq) {
  if (!eq || eq->magic != FCD_EQUILIBRIUM_MAGIC) return;
  fcd_system *sys = eq->sys;
  fcd_contact_set *cs = eq->cs;
  fcd__factor_destroy_free(eq->fac);
  fcd__factor_destroy_free(eq->rfac);
  fcd__free(eq->dreg);
  fcd__wcache_free(&eq->W);
  fcd__free(eq->R);
  fcd__free(eq->Wp);
  fcd__free(eq->u_ref);
  fcd__geometry_free(eq->geo);
  fcd__free(eq->mech_motion);
  free_solution(eq);
  eq->magic = 0;
  fcd__free(eq);
  if (cs) fcd__contact_set_release(cs);
  fcd__system_release(sys);
}

fcd_status fcd_equilibrium_set_param(fcd_equilibrium *eq, int key, fcd_real value) {
  CHECK_EQ(eq);
  switch (key) {
  case FCD_PARAM_TOLERANCE:
    return fcd__fc_opts_set(eq->sys, &eq->opts, FCD__OPT_TOL, value);
  case FCD_PARAM_MAX_ITER:
    return fcd__fc_opts_set(eq->sys, &eq->opts, FCD__OPT_MAX_ITER, value);
  case FCD_PARAM_CONTACT_SOLVER:
    return fcd__fc_opts_set(eq->sys, &eq->opts, FCD__OPT_SOLVER, value);
  case FCD_EQ_PARAM_CLASSIFY_TOL:
    if (!isfinite(value) || value <= 0 || value >= 1)
      return fcd__err(eq->sys, FCD_E_INVALID_ARG,
                      "classification tolerance %g must lie in (0, 1)", value);
    eq->classify_tol = value;
    return FCD_OK;
  case FCD_PARAM_CERT_TOL:
    if (!isfinite(value) || value <= 0 || value >= 1)
      return fcd__err(eq->sys, FCD_E_INVALID_ARG,
                      "certificate tolerance %g must lie in (0, 1)", value);
    eq->cert_tol = value;
    return FCD_OK;
  default:
    return fcd__err(eq->sys, FCD_E_UNSUPPORTED, "unknown equilibrium parameter key %d", key);
  }
}

fcd_status fcd_equilibrium_set_reference(fcd_equilibrium *eq, const fcd_real *u_ref) {
  CHECK_EQ(eq);
  fcd_index n = eq->sys->n;
  if (!u_ref) {
    fcd__free(eq->u_ref);
    eq->u_ref = NULL;
    return FCD_OK;
  }
  for (fcd_index i = 0; i < n; i++)
    if (!isfinite(u_ref[i]))
      return fcd__err(eq->sys, FCD_E_INVALID_ARG, "set_reference: u_ref[%lld] is not finite",
                      (long long)i);
  if (!eq->u_ref) {
    eq->u_ref = fcd__malloc_array((size_t)n, sizeof *eq->u_ref);
    if (!eq->u_ref) return fcd__err(eq->sys, FCD_E_NOMEM, "out of memory");
  }
  memcpy(eq->u_ref, u_ref, (size_t)n * sizeof *u_ref);
  return FCD_OK;
}

static fcd_status displacement(fcd_equilibrium *eq, fcd__factor *fac, const fcd_real *f,
                               const fcd_real *z, const fcd_real *r, fcd_real *u,
                               fcd_real *tmp, fcd_real *xf) {
  fcd_system *sys = eq->sys;
  FCD_TRY(fcd__eq_rhs_free(eq, f, z, r, tmp, xf));
  FCD_TRY(fcd__factor_solve_free(fac, 1, xf, xf));
  memcpy(u, z, (size_t)sys->n * sizeof *u);
  fcd__free_to_full(sys, xf, u);
  return FCD_OK;
}


static void eq_work_free(eq_work *w) {
  fcd_real **p[] = {&w->f, &w->z, &w->vr, &w->ub, &w->tmp, &w->xf, &w->loc};
  for (size_t k = 0; k < sizeof p / sizeof *p; k++) fcd__free(*p[k]);
  /* u, r, set, sdir are handed over on success, freed here otherwise */
  fcd__free(w->u);
  fcd__free(w->r);
  fcd__free(w->set);
  fcd__free(w->sdir);
}


/* Classification, the certificate of (u, r) and the legacy residual figures; fills set
 * and sdir. slip_given: the directions of a steady sliding solve (NULL: from the
 * reactions). Returns 1 when the certificate is within its tolerance, 0 when not, -1
 * when out of memory, -2 when a reduction across ranks failed. */
static int finish(fcd_equilibrium *eq, eq_work *w, const fcd_real *slip_given,
                  fcd_certificate *cert) {
  fcd_system *sys = eq->sys;
  fcd_index n = sys->n, nc = fcd__eq_nct(eq);
  int d = fcd__eq_cdim(eq);
  /* the balance on the free dofs, as a backward error: its scale holds the load, the
   * reactions and |K| |u|, the size of the terms that cancel in K u */
  fcd_real *res = w->tmp, *hr = w->ub, *ak = w->z; /* z, u_base no longer needed */
  fcd_system_apply(sys, FCD_STIFFNESS, w->u, res);
  memset(hr, 0, (size_t)n * sizeof *hr);
  if (fcd__rows_abs_apply(sys, FCD_STIFFNESS, w->u, ak) != FCD_OK) return -2;
  if (nc > 0) fcd_contact_set_global(eq->cs, w->r, hr);
  fcd_real F = 0, E = 0, L = 0;
  for (fcd_index i = 0; i < n; i++) {
    L = fmax(L, fabs(w->u[i]));
    if (sys->is_fixed[i]) continue;
    E = fmax(E, fabs(res[i] - w->f[i] - hr[i]));
    F = fmax(F, fmax(fabs(w->f[i]), fmax(fabs(hr[i]), ak[i])));
  }
  for (fcd_index c = 0; c < nc; c++) L = fmax(L, fabs(eq->cs->c[c].gap));
  if (eq->u_ref)
    for (fcd_index i = 0; i < n; i++) L = fmax(L, fabs(eq->u_ref[i]));
  /* a stuck state moves by round-off only: the length scale is also what the forces
   * would move the stiffest dof by, F / max diag K, a lower bound of the displacements
   * the model's loads produce */
  fcd_real kmax = fcd__rows_free_diag_max(sys, FCD_STIFFNESS);
  if (kmax > 0) L = fmax(L, F / kmax);
  fcd__certificate_init(cert, F, L);
  cert->equilibrium = E / cert->force_scale;
  if (nc > 0) {
    fcd_contact_set_local(eq->cs, w->u, w->loc);
    fcd_real *mu = fcd__malloc_array((size_t)nc, sizeof *mu);
    fcd_real *law = fcd__malloc_array((size_t)(nc * d), sizeof *law);
    fcd_real *uref = eq->u_ref ? fcd__malloc_array((size_t)(nc * d), sizeof *uref) : NULL;
    if (!mu || !law || (eq->u_ref && !uref)) {
      fcd__free(mu);
      fcd__free(law);
      fcd__free(uref);
      return -1; /* out of memory: nothing is certified */
    }
    if (uref) fcd_contact_set_local(eq->cs, eq->u_ref, uref);
    for (fcd_index c = 0; c < nc; c++) {
      mu[c] = eq->cs->c[c].mu;
      law[c * d] = w->loc[c * d] - eq->cs->c[c].gap;
      for (int k = 1; k < d; k++)
        law[c * d + k] = w->loc[c * d + k] - (uref ? uref[c * d + k] : 0.0);
    }
    fcd__certify_contacts(cert, d, nc, mu, law, w->r, slip_given, NULL);
    fcd__free(mu);
    fcd__free(law);
    fcd__free(uref);
  }
  int ok = fcd__certificate_check(cert, fcd__eq_cert_tolerance(eq));
  if (nc == 0) return ok;
  /* the certificate's scales: the same on every rank count (its figures are reduced
   * across ranks), where the largest |u| of a state whose displacements are round-off
   * made the sign of u_N - g decide */
  fcd__class_scale sc = {eq->classify_tol, cert->length_scale, cert->force_scale};
  for (fcd_index i = 0; i < nc * d; i++) sc.reaction = fmax(sc.reaction, fabs(w->r[i]));
  for (fcd_index c = 0; c < nc; c++) {
    const fcd_real *rc = w->r + c * d;
    fcd_real gr = w->loc[c * d] - eq->cs->c[c].gap, mu = eq->cs->c[c].mu;
    int set = fcd__contact_classify(d, mu, gr, rc, NULL, &sc);
    w->set[c] = set;
    fcd_real *s = w->sdir + c * (d - 1);
    for (int k = 0; k < d - 1; k++) s[k] = 0;
    if (set == FCD_EQ_SLIP) {
      if (slip_given) {
        for (int k = 0; k < d - 1; k++) s[k] = slip_given[c * (d - 1) + k];
      } else if (fcd__tnorm(d, rc) > 0) {
        fcd__slip_from_reaction(d, rc, s);
      } else {
        /* mu = 0: any direction slips freely; take the displacement from the reference
         * when it has one (the stability rows do not depend on it: mu s = 0) */
        fcd_real dt[2] = {0, 0}, nn = 0;
        for (int k = 1; k < d; k++) {
          dt[k - 1] = w->loc[c * d + k];
          nn += dt[k - 1] * dt[k - 1];
        }
        nn = sqrt(nn);
        if (nn > 0)
          for (int k = 0; k < d - 1; k++) s[k] = dt[k] / nn;
        else
          s[0] = 1;
      }
    }
  }
  return ok;
}

/* The solve's work arrays (nf free dofs, nc contacts of dimension d) */
static fcd_status eq_alloc(fcd_system *sys, fcd_index nf, fcd_index nc, int d, eq_work *w,
                           fcd_real **sl, fcd_real **ur) {
  fcd_index n = sys->n, nfix = sys->nfixed, m = nc * d;
  w->f = fcd__malloc_array((size_t)n, sizeof(fcd_real));
  w->z = fcd__calloc((size_t)n, sizeof(fcd_real));
  w->vr = fcd__malloc_array((size_t)nfix + 1, sizeof(fcd_real));
  w->ub = fcd__malloc_array((size_t)n, sizeof(fcd_real));
  w->tmp = fcd__malloc_array((size_t)n, sizeof(fcd_real));
  w->xf = fcd__malloc_array((size_t)nf + 1, sizeof(fcd_real));
  w->u = fcd__malloc_array((size_t)n, sizeof(fcd_real));
  w->r = fcd__calloc((size_t)m + 1, sizeof(fcd_real));
  w->loc = fcd__malloc_array((size_t)m + 1, sizeof(fcd_real));
  w->set = fcd__calloc((size_t)nc + 1, sizeof(int));
  w->sdir = fcd__calloc((size_t)(nc * (d - 1)) + 1, sizeof(fcd_real));
  *sl = fcd__calloc((size_t)(nc * (d - 1)) + 1, sizeof(fcd_real));
  *ur = fcd__malloc_array((size_t)nfix + 1, sizeof(fcd_real));
  if (!w->f || !w->z || !w->vr || !w->ub || !w->tmp || !w->xf || !w->u || !w->r || !w->loc ||
      !w->set || !w->sdir || !*sl || !*ur)
    return fcd__err(sys, FCD_E_NOMEM, "out of memory in an equilibrium solve");
  return FCD_OK;
}

/* The solve's inputs at time t: its arguments checked, the work arrays, load, prescribed
 * values (z, ur) and the contact operator. Up to the agreement at its end nothing
 * communicates: on a distributed system a rank that fails here still reaches it, and
 * every rank returns together. */
static fcd_status eq_inputs(fcd_equilibrium *eq, fcd_equilibrium_kind kind, fcd_real t,
                            eq_work *w, fcd_real **sl, fcd_real **ur,
                            const fcd__free_pattern **fp) {
  fcd_system *sys = eq->sys;
  fcd_index n = sys->n, nc = fcd__eq_nct(eq), nfix = sys->nfixed;
  int d = fcd__eq_cdim(eq);
  fcd_status st;
  if (kind != FCD_EQ_STATIC && kind != FCD_EQ_STEADY_SLIDING)
    st = fcd__err(sys, FCD_E_INVALID_ARG, "unknown equilibrium kind %d", (int)kind);
  else if (!isfinite(t))
    st = fcd__err(sys, FCD_E_INVALID_ARG, "equilibrium time is not finite");
  else if (kind == FCD_EQ_STEADY_SLIDING && !eq->cs)
    st = fcd__err(sys, FCD_E_STATE, "steady sliding needs a contact set (created with NULL)");
  else
    st = fcd__system_free_pattern(sys, fp);
  if (st == FCD_OK) st = eq_alloc(sys, (*fp)->n, nc, d, w, sl, ur);
  if (st == FCD_OK) st = fcd_system_eval_load(sys, t, w->f);
  if (st == FCD_OK) st = fcd_system_eval_prescribed(sys, t, *ur, w->vr);
  if (st == FCD_OK && nc > 0) {
    const fcd__csr *H;
    st = fcd__contact_set_operator(eq->cs, &H);
    if (st == FCD_OK) st = fcd__contact_dofs_free(sys, H);
  }
  /* what every rank must hold alike: the arguments and parameters, the load and
   * prescribed values at t, the prescribed set, the reference and the contacts */
  int kind_i = (int)kind;
  const fcd__replica rep[] = {
      FCD__REPLICA(&kind_i, 1),         FCD__REPLICA(&t, 1),
      FCD__REPLICA(&eq->cert_tol, 1), FCD__REPLICA(&eq->classify_tol, 1),
      FCD__REPLICA(&eq->opts.tol, 1), FCD__REPLICA(w->f, n),
      FCD__REPLICA(sys->fixed_list, nfix), FCD__REPLICA(*ur, nfix),
      FCD__REPLICA(eq->u_ref, eq->u_ref ? n : 0),
      FCD__REPLICA_BY(eq->cs, fcd__contact_set_replica)};
  st = fcd__dist_agree_replicas(sys, st, "equilibrium solve", rep, sizeof rep / sizeof *rep);
  if (st != FCD_OK) return st;
  for (fcd_index k = 0; k < nfix; k++) w->z[sys->fixed_list[k]] = (*ur)[k];
  return FCD_OK;
}

/* An elastic structure: the displacement without contact forces, the contact problem on
 * the Delassus operator, then the displacement with the reactions. */
static fcd_status eq_elastic(fcd_equilibrium *eq, fcd_equilibrium_kind kind, eq_work *w,
                             fcd_real *sl) {
  fcd_system *sys = eq->sys;
  FCD_TRY(displacement(eq, eq->fac, w->f, w->z, NULL, w->ub, w->tmp, w->xf));
  if (fcd__eq_nct(eq) > 0) {
    const fcd__csr *H;
    FCD_TRY(fcd__contact_set_operator(eq->cs, &H));
    FCD_TRY(fcd__wcache_ensure(&eq->W, sys, eq->fac, fcd__factor_solve_free, eq->cs, H));
    fcd_contact_set_local(eq->cs, w->ub, w->loc);
    FCD_TRY(kind == FCD_EQ_STATIC ? fcd__eq_solve_static(eq, w, eq->W.W)
                                  : fcd__eq_solve_steady(eq, w, eq->W.W, sl));
  }
  return displacement(eq, eq->fac, w->f, w->z, w->r, w->u, w->tmp, w->xf);
}

/* The certificate decides: a failure is reported with its figures and the previous
 * solution kept; a pass commits w's solution to eq (w gives it up). */
static fcd_status eq_accept(fcd_equilibrium *eq, fcd_equilibrium_kind kind, eq_work *w,
                            fcd_real *sl) {
  fcd_system *sys = eq->sys;
  fcd_certificate cert;
  int certified = finish(eq, w, kind == FCD_EQ_STEADY_SLIDING ? sl : NULL, &cert);
  if (certified < 0)
    return certified == -1 ? fcd__err(sys, FCD_E_NOMEM, "out of memory checking an equilibrium")
                           : FCD_E_BACKEND; /* the reduction's message stands */
  if (!certified && eq->rigid && eq->void_dof >= 0)
    return fcd__err(sys, FCD_E_SINGULAR, "no equilibrium is defined: the stiffness is zero at "
                    "dof %lld (its diagonal entry is 0, as at a node no element or spring "
                    "reaches) and neither a contact nor a load involves it, so nothing "
                    "decides its displacement; prescribe the dof or connect it; the previous "
                    "solution is kept", (long long)eq->void_dof);
  if (!certified) {
    char fig[320];
    fcd__certificate_format(&cert, fig, sizeof fig);
    return fcd__err(sys, FCD_E_NOT_CONVERGED,
                    "%s equilibrium fails its certificate: %s; the previous solution is kept",
                    kind == FCD_EQ_STATIC ? "static" : "steady sliding", fig);
  }
  free_solution(eq);
  eq->u = w->u;
  eq->r = w->r;
  eq->set = w->set;
  eq->sdir = w->sdir;
  eq->cert = cert;
  w->u = w->r = w->sdir = NULL;
  w->set = NULL;
  eq->have = 1;
  eq->have_nc = fcd__eq_nct(eq);
  return FCD_OK;
}

fcd_status fcd_equilibrium_solve(fcd_equilibrium *eq, fcd_equilibrium_kind kind, fcd_real t) {
  CHECK_EQ(eq);
  fcd_index nc = fcd__eq_nct(eq);
  int d = fcd__eq_cdim(eq);
  eq_work w;
  memset(&w, 0, sizeof w);
  fcd_real *sl = NULL, *ur = NULL;
  const fcd__free_pattern *fp = NULL;
  eq->mech.kind = FCD_MECH_NONE;
  fcd_status st = eq_inputs(eq, kind, t, &w, &sl, &ur, &fp);
  if (st == FCD_OK) st = fcd__eq_prepare(eq, fp);
  if (st == FCD_OK) {
    /* a warm start from the previous solution of the contacts it had (those added since
     * start from zero) */
    if (eq->have)
      memcpy(w.r, eq->r, (size_t)((nc < eq->have_nc ? nc : eq->have_nc) * d) * sizeof *w.r);
    st = eq->rigid ? fcd__eq_solve_rigid(eq, &w, kind, sl) : eq_elastic(eq, kind, &w, sl);
  }
  if (st == FCD_OK) st = eq_accept(eq, kind, &w, sl);
  fcd__free(sl);
  fcd__free(ur);
  eq_work_free(&w);
  return st;
}

#define CHECK_HAVE(eq)                                                                 \
  do {                                                                                 \
    CHECK_EQ(eq);                                                                      \
    if (!(eq)->have)                                                                   \
      return fcd__err((eq)->sys, FCD_E_STATE, "no equilibrium solved yet");            \
  } while (0)

/* per-contact results belong to the contacts of the last solve */
#define CHECK_HAVE_CONTACTS(eq)                                                        \
  do {                                                                                 \
    CHECK_HAVE(eq);                                                                    \
    if (fcd__eq_nct(eq) != (eq)->have_nc)                                                      \
      return fcd__err((eq)->sys, FCD_E_STATE, "%lld contacts now, %lld at the last "   \
                      "solve: solve again for the added contacts' results",            \
                      (long long)fcd__eq_nct(eq), (long long)(eq)->have_nc);                   \
  } while (0)

fcd_status fcd_equilibrium_get_state(const fcd_equilibrium *eq, fcd_real *u) {
  CHECK_HAVE(eq);
  if (!u) return fcd__err(eq->sys, FCD_E_INVALID_ARG, "get_state: u is NULL");
  memcpy(u, eq->u, (size_t)eq->sys->n * sizeof *u);
  return FCD_OK;
}

fcd_status fcd_equilibrium_get_reactions(const fcd_equilibrium *eq, fcd_real *r) {
  CHECK_HAVE_CONTACTS(eq);
  if (!r) return fcd__err(eq->sys, FCD_E_INVALID_ARG, "get_reactions: r is NULL");
  if (fcd__eq_nct(eq) > 0) memcpy(r, eq->r, (size_t)(fcd__eq_nct(eq) * fcd__eq_cdim(eq)) * sizeof *r);
  return FCD_OK;
}

fcd_status fcd_equilibrium_get_contact_sets(const fcd_equilibrium *eq, int *set) {
  CHECK_HAVE_CONTACTS(eq);
  if (!set) return fcd__err(eq->sys, FCD_E_INVALID_ARG, "get_contact_sets: set is NULL");
  if (fcd__eq_nct(eq) > 0) memcpy(set, eq->set, (size_t)fcd__eq_nct(eq) * sizeof *set);
  return FCD_OK;
}

fcd_status fcd_equilibrium_get_contact_state(const fcd_equilibrium *eq, int *status,
                                             fcd_real *slip_dir) {
  CHECK_HAVE_CONTACTS(eq);
  int d = fcd__eq_cdim(eq);
  for (fcd_index c = 0; c < fcd__eq_nct(eq); c++) {
    if (status) status[c] = fcd__contact_status_of_set(eq->set[c]);
    if (slip_dir)
      for (int k = 0; k < d - 1; k++) slip_dir[c * (d - 1) + k] = eq->sdir[c * (d - 1) + k];
  }
  return FCD_OK;
}

fcd_status fcd_equilibrium_get_certificate(const fcd_equilibrium *eq, fcd_certificate *cert) {
  CHECK_HAVE(eq);
  if (!cert) return fcd__err(eq->sys, FCD_E_INVALID_ARG, "get_certificate: cert is NULL");
  *cert = eq->cert;
  return FCD_OK;
}

fcd_status fcd_equilibrium_get_residual(const fcd_equilibrium *eq, fcd_real *equilibrium,
                                        fcd_real *complementarity) {
  CHECK_HAVE(eq);
  if (equilibrium) *equilibrium = eq->cert.equilibrium;
  if (complementarity)
    *complementarity = fmax(eq->cert.penetration, fmax(eq->cert.complementarity, eq->cert.cone));
  return FCD_OK;
}

fcd_status fcd_equilibrium_get_mechanism(const fcd_equilibrium *eq, fcd_mechanism *mech,
                                         fcd_real *motion) {
  CHECK_EQ(eq);
  if (!mech) return fcd__err(eq->sys, FCD_E_INVALID_ARG, "get_mechanism: mech is NULL");
  *mech = eq->mech;
  if (motion) {
    fcd_index n = eq->sys->n;
    if (eq->mech.kind != FCD_MECH_NONE && eq->mech_motion)
      memcpy(motion, eq->mech_motion, (size_t)n * sizeof *motion);
    else
      memset(motion, 0, (size_t)n * sizeof *motion);
  }
  return FCD_OK;
}

fcd_status fcd_equilibrium_set_mesh(fcd_equilibrium *eq, const fcd_mesh *mesh) {
  CHECK_EQ(eq);
  fcd__geometry *g = NULL;
  if (mesh) {
    fcd_status st = fcd__geometry_from_mesh(mesh, &g);
    if (st == FCD_E_NOMEM) return fcd__err(eq->sys, st, "out of memory copying a mesh");
    if (st != FCD_OK)
      return fcd__err(eq->sys, FCD_E_INVALID_ARG, "set_mesh: the mesh is invalid");
    const fcd_system *msys;
    int dim;
    fcd_index nn;
    const fcd_real *x;
    const fcd_index *dof;
    fcd__mesh_geometry(mesh, &msys, &dim, &nn, &x, &dof);
    if (msys != eq->sys || (eq->cs && dim != eq->cs->dim)) {
      fcd__geometry_free(g);
      return fcd__err(eq->sys, FCD_E_INVALID_ARG, "set_mesh: the mesh belongs to another "
                      "system, or is %dD for a %dD contact set", dim, fcd__eq_cdim(eq));
    }
  }
  fcd__geometry_free(eq->geo);
  eq->geo = g;
  return FCD_OK;
}
