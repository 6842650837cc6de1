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
 *   w = A z - c >= 0, z >= 0, z . w = 0, solved by Lemke's method (lemke.c). */
#include "fc_private.h"
#include "fcd/fcd_equilibrium.h"
#include "fcd/fcd_integrator.h"

#include <math.h>
#include <string.h>

#define FCD_EQUILIBRIUM_MAGIC 0x66636571u /* "fceq" */

struct fcd_equilibrium {
  uint32_t magic;
  fcd_system *sys;
  fcd_contact_set *cs; /* may be NULL */
  fcd__factor *fac;
  fcd__fc_opts opts;
  fcd_real classify_tol;
  fcd__wcache W; /* m x m */
  fcd_real *u_ref; /* NULL: zero */
  int have;
  fcd_real *u, *r; /* last solution */
  int *set;
  fcd_real *sdir; /* (d - 1) per contact */
  fcd_real res_eq, res_comp;
};

static int valid(const fcd_equilibrium *eq) {
  return eq && eq->magic == FCD_EQUILIBRIUM_MAGIC && fcd__system_valid(eq->sys);
}

#define CHECK_EQ(eq)                                                                   \
  do {                                                                                 \
    if (!valid(eq)) return FCD_E_INVALID_ARG;                                          \
  } while (0)

static fcd_index nct(const fcd_equilibrium *eq) { return eq->cs ? eq->cs->n : 0; }
static int cdim(const fcd_equilibrium *eq) { return eq->cs ? eq->cs->dim : 2; }

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
  eq->opts.solver = FCD_FC_AUTO;
  eq->opts.tol = 1e-12;
  eq->opts.max_iter = 10000;
  eq->opts.omega = 1.0;
  eq->classify_tol = 1e-8;
  fcd_status st = fcd__factor_create(sys, FCD__FACTOR_SPD, &eq->fac);
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
  fcd__factor_destroy(eq->fac);
  fcd__wcache_free(&eq->W);
  fcd__free(eq->u_ref);
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

/* K on the free dofs, factored; a singular or indefinite K is the caller's model error */
static fcd_status factor_k(fcd_equilibrium *eq) {
  fcd_status st = fcd__factor_combination(eq->fac, 0.0, 0.0, 1.0);
  if (st == FCD_E_NOT_SPD)
    return fcd__err(eq->sys, FCD_E_SINGULAR,
                    "the stiffness is singular or indefinite on the free dofs (pivot at dof "
                    "%lld): an equilibrium needs prescribed dofs that hold the body; contacts "
                    "alone cannot (a load that pulls it away has no equilibrium)",
                    (long long)fcd__factor_bad_column(eq->fac));
  return st;
}

static fcd_status delassus(fcd_equilibrium *eq, const fcd__csr *H) {
  return fcd__wcache_ensure(&eq->W, eq->sys, eq->fac, eq->cs, H);
}

/* u = z + K^-1 (f - K z + H^T r) on the free dofs; r may be NULL (zero) */
static fcd_status displacement(fcd_equilibrium *eq, const fcd_real *f, const fcd_real *z,
                               const fcd_real *r, fcd_real *u, fcd_real *tmp, fcd_real *xf) {
  fcd_system *sys = eq->sys;
  fcd_index n = sys->n, nf = fcd__factor_size(eq->fac);
  fcd_system_apply(sys, FCD_STIFFNESS, z, tmp);
  for (fcd_index i = 0; i < n; i++) tmp[i] = f[i] - tmp[i];
  if (r && nct(eq) > 0) {
    const fcd__csr *H;
    FCD_TRY(fcd__contact_set_operator(eq->cs, &H));
    for (fcd_index i = 0; i < H->n; i++)
      for (fcd_index e = H->rowptr[i]; e < H->rowptr[i + 1]; e++)
        tmp[H->col[e]] += H->val[e] * r[i];
  }
  for (fcd_index k = 0; k < nf; k++) xf[k] = tmp[sys->dof_of[k]];
  FCD_TRY(fcd__factor_solve(eq->fac, 1, xf, xf));
  memcpy(u, z, (size_t)n * sizeof *u);
  for (fcd_index k = 0; k < nf; k++) u[sys->dof_of[k]] = xf[k];
  return FCD_OK;
}

typedef struct {
  fcd_real *f, *z, *vr, *ub, *tmp, *xf, *u, *r, *loc, *sdir;
  int *set;
} eq_work;

static void eq_work_free(eq_work *w) {
  fcd_real **p[] = {&w->f, &w->z, &w->vr, &w->ub, &w->tmp, &w->xf, &w->loc};
  for (size_t k = 0; k < sizeof p / sizeof *p; k++) fcd__free(*p[k]);
  /* u, r, set, sdir are handed over on success, freed here otherwise */
  fcd__free(w->u);
  fcd__free(w->r);
  fcd__free(w->set);
  fcd__free(w->sdir);
}

/* Classification and residuals of (u, r); fills set and sdir. slip_given: the
 * directions of a steady sliding solve (NULL: from the reactions). */
static void finish(fcd_equilibrium *eq, eq_work *w, const fcd_real *slip_given,
                   fcd_real fc_err) {
  fcd_system *sys = eq->sys;
  fcd_index n = sys->n, nc = nct(eq);
  int d = cdim(eq);
  /* equilibrium residual on the free dofs */
  fcd_real *res = w->tmp;
  fcd_system_apply(sys, FCD_STIFFNESS, w->u, res);
  fcd_real nf2 = 0, nr2 = 0, nres2 = 0;
  fcd_real *hr = w->ub; /* H^T r (u_base is no longer needed) */
  memset(hr, 0, (size_t)n * sizeof *hr);
  if (nc > 0) fcd_contact_set_global(eq->cs, w->r, hr);
  for (fcd_index i = 0; i < n; i++) {
    if (sys->is_fixed[i]) continue;
    fcd_real e = res[i] - w->f[i] - hr[i];
    nres2 += e * e;
    nf2 += w->f[i] * w->f[i];
    nr2 += hr[i] * hr[i];
  }
  fcd_real den = sqrt(nf2) + sqrt(nr2);
  eq->res_eq = den > 0 ? sqrt(nres2) / den : sqrt(nres2);
  eq->res_comp = 0;
  if (nc == 0) return;
  fcd_contact_set_local(eq->cs, w->u, w->loc);
  fcd_real su = 0, sr = 0;
  /* the displacement scale is the whole state's (contacts stuck at zero displacement
   * must not set it) */
  for (fcd_index i = 0; i < n; i++) su = fmax(su, fabs(w->u[i]));
  for (fcd_index c = 0; c < nc; c++) {
    su = fmax(su, fabs(eq->cs->c[c].gap));
    sr = fmax(sr, fabs(w->r[c * d]));
  }
  if (!(su > 0)) su = 1;
  if (!(sr > 0)) sr = 1;
  fcd_real tol = eq->classify_tol, worst = 0;
  for (fcd_index c = 0; c < nc; c++) {
    const fcd_real *rc = w->r + c * d;
    fcd_real gr = w->loc[c * d] - eq->cs->c[c].gap, mu = eq->cs->c[c].mu;
    int set = fcd__classify_contact(d, mu, gr, rc, tol, su, sr);
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
    /* Signorini and the cone (the slip law is in fc_err for static solves) */
    worst = fmax(worst, fmax(0.0, gr) / su);
    worst = fmax(worst, fmax(0.0, rc[0]) / sr);
    worst = fmax(worst, fabs(gr * rc[0]) / (su * sr));
    worst = fmax(worst, fmax(0.0, fcd__tnorm(d, rc) - mu * fabs(rc[0])) / sr);
  }
  eq->res_comp = fmax(worst, fc_err);
}

static fcd_status solve_static(fcd_equilibrium *eq, eq_work *w, fcd_real *fc_err) {
  fcd_system *sys = eq->sys;
  fcd_index nc = nct(eq);
  int d = cdim(eq);
  fcd_index m = nc * d;
  *fc_err = 0;
  if (nc == 0) return FCD_OK;
  const fcd__csr *H;
  FCD_TRY(fcd__contact_set_operator(eq->cs, &H));
  FCD_TRY(delassus(eq, H));
  fcd_contact_set_local(eq->cs, w->ub, w->loc);
  fcd_real *q = w->loc, *uref = NULL;
  for (fcd_index c = 0; c < nc; c++) q[c * d] -= eq->cs->c[c].gap;
  if (eq->u_ref) {
    uref = fcd__malloc_array((size_t)m, sizeof *uref);
    if (!uref) return fcd__err(sys, FCD_E_NOMEM, "out of memory");
    fcd_contact_set_local(eq->cs, eq->u_ref, uref);
    for (fcd_index c = 0; c < nc; c++)
      for (int k = 1; k < d; k++) q[c * d + k] -= uref[c * d + k];
    fcd__free(uref);
  }
  fcd_index *rp = fcd__malloc_array((size_t)m + 1, sizeof *rp);
  fcd_index *ci = fcd__malloc_array((size_t)m * (size_t)m + 1, sizeof *ci);
  fcd_real *mu = fcd__malloc_array((size_t)nc, sizeof *mu);
  fcd_real *ul = fcd__malloc_array((size_t)m, sizeof *ul);
  fcd_status st = FCD_OK;
  if (!rp || !ci || !mu || !ul) {
    st = fcd__err(sys, FCD_E_NOMEM, "out of memory");
    goto done;
  }
  for (fcd_index i = 0; i <= m; i++) rp[i] = i * m;
  for (fcd_index i = 0; i < m * m; i++) ci[i] = i % m;
  for (fcd_index c = 0; c < nc; c++) mu[c] = eq->cs->c[c].mu;
  /* a warm start from the previous solution of the same contacts */
  if (eq->have) memcpy(w->r, eq->r, (size_t)m * sizeof *w->r);
  fcd__csr Wc = {m, rp, ci, eq->W.W, 0, 0, 1};
  fcd__fc_local lp = {d, nc, m, &Wc, q, mu, NULL, NULL};
  fcd__fc_result res;
  st = fcd__fc_solve(sys, &lp, &eq->opts, w->r, ul, &res);
  if (st == FCD_OK && !res.converged)
    st = fcd__err(sys, FCD_E_NOT_CONVERGED,
                  "static contact solve did not reach %.3g in %lld iterations (residual "
                  "%.3e); the previous solution is kept", eq->opts.tol,
                  (long long)res.iterations, res.residual);
  if (st == FCD_OK) *fc_err = res.residual;
done:
  fcd__free(rp);
  fcd__free(ci);
  fcd__free(mu);
  fcd__free(ul);
  return st;
}

static fcd_status solve_steady(fcd_equilibrium *eq, eq_work *w, fcd_real *sl) {
  fcd_system *sys = eq->sys;
  fcd_index nc = nct(eq);
  int d = cdim(eq);
  fcd_index m = nc * d;
  if (nc == 0)
    return fcd__err(sys, FCD_E_STATE, "steady sliding needs a contact set with contacts");
  for (fcd_index c = 0; c < nc; c++)
    if (!fcd__slip_from_sliding_velocity(d, eq->cs->c[c].vg, sl + c * (d - 1)))
      return fcd__err(sys, FCD_E_STATE,
                      "steady sliding: contact %lld has no sliding velocity (set it with "
                      "fcd_contact_set_set_sliding_velocity)", (long long)c);
  const fcd__csr *H;
  FCD_TRY(fcd__contact_set_operator(eq->cs, &H));
  FCD_TRY(delassus(eq, H));
  fcd_contact_set_local(eq->cs, w->ub, w->loc);
  fcd_real *A = fcd__malloc_array((size_t)nc * (size_t)nc, sizeof *A);
  fcd_real *q = fcd__malloc_array((size_t)nc, sizeof *q);
  fcd_real *z = fcd__malloc_array((size_t)nc, sizeof *z);
  fcd_status st = FCD_OK;
  if (!A || !q || !z) {
    st = fcd__err(sys, FCD_E_NOMEM, "out of memory");
    goto done;
  }
  for (fcd_index i = 0; i < nc; i++) {
    q[i] = -(w->loc[i * d] - eq->cs->c[i].gap);
    for (fcd_index j = 0; j < nc; j++) {
      const fcd_real *wr = eq->W.W + (i * d) * m + j * d;
      fcd_real a = wr[0];
      for (int k = 1; k < d; k++) a += eq->cs->c[j].mu * sl[j * (d - 1) + k - 1] * wr[k];
      A[i * nc + j] = a;
    }
  }
  /* Lemke pivots with absolute tolerances while A holds compliances (m/N: 1e-9 for a
   * steel disc against polymer pins): scale symmetrically to a unit diagonal,
   * A' = S A S, q' = S q, z = S z', which keeps the complementarity problem */
  fcd_real *sc = fcd__malloc_array((size_t)nc, sizeof *sc);
  if (!sc) {
    st = fcd__err(sys, FCD_E_NOMEM, "out of memory");
    goto done;
  }
  for (fcd_index i = 0; i < nc; i++) {
    fcd_real a = A[i * nc + i];
    sc[i] = a > 0 && isfinite(a) ? 1.0 / sqrt(a) : 1.0;
  }
  for (fcd_index i = 0; i < nc; i++) {
    q[i] *= sc[i];
    for (fcd_index j = 0; j < nc; j++) A[i * nc + j] *= sc[i] * sc[j];
  }
  fcd_index piv;
  int lr = fcd__lemke(nc, A, q, z, 50 * nc + 1000, &piv);
  if (lr == FCD__LEMKE_OK) {
    /* a check that cannot be skipped: w = A z + q >= 0 and z . w = 0 (scaled) */
    fcd_real worst = 0, qs = 1;
    for (fcd_index i = 0; i < nc; i++) qs = fmax(qs, fabs(q[i]));
    for (fcd_index i = 0; i < nc; i++) {
      fcd_real wi = q[i];
      for (fcd_index j = 0; j < nc; j++) wi += A[i * nc + j] * z[j];
      worst = fmax(worst, fmax(-wi, fabs(wi * z[i]) / qs));
    }
    if (worst > 1e-9 * qs) lr = FCD__LEMKE_INACCURATE;
    for (fcd_index i = 0; i < nc; i++) z[i] *= sc[i];
    if (lr == FCD__LEMKE_INACCURATE)
      st = fcd__err(sys, FCD_E_NOT_CONVERGED, "steady sliding: Lemke's method ended with a "
                    "complementarity violation of %.3e (relative); the problem is too "
                    "degenerate for its pivoting", worst / qs);
  }
  fcd__free(sc);
  if (lr == FCD__LEMKE_INACCURATE) {
    /* reported above */
  } else if (lr == FCD__LEMKE_NOMEM) {
    st = fcd__err(sys, FCD_E_NOMEM, "out of memory in Lemke's method");
  } else if (lr == FCD__LEMKE_RAY) {
    st = fcd__err(sys, FCD_E_NO_SOLUTION,
                  "no steady sliding state: the complementarity problem in the normal "
                  "reactions has no solution (Lemke's method ended on a ray after %lld "
                  "pivots); friction drives the contacts into the obstacle faster than "
                  "the structure resists (seed 000 Ex. 4.6: pushing with "
                  "2 - 3 mu H_B/L <= 0)", (long long)piv);
  } else if (lr == FCD__LEMKE_CAP) {
    st = fcd__err(sys, FCD_E_NOT_CONVERGED,
                  "steady sliding: Lemke's method made %lld pivots without ending", (long long)piv);
  } else {
    for (fcd_index c = 0; c < nc; c++) {
      fcd_real rn = -z[c];
      w->r[c * d] = rn;
      for (int k = 1; k < d; k++)
        w->r[c * d + k] = eq->cs->c[c].mu * rn * sl[c * (d - 1) + k - 1];
    }
  }
done:
  fcd__free(A);
  fcd__free(q);
  fcd__free(z);
  return st;
}

fcd_status fcd_equilibrium_solve(fcd_equilibrium *eq, fcd_equilibrium_kind kind, fcd_real t) {
  CHECK_EQ(eq);
  fcd_system *sys = eq->sys;
  if (kind != FCD_EQ_STATIC && kind != FCD_EQ_STEADY_SLIDING)
    return fcd__err(sys, FCD_E_INVALID_ARG, "unknown equilibrium kind %d", (int)kind);
  if (!isfinite(t)) return fcd__err(sys, FCD_E_INVALID_ARG, "equilibrium time is not finite");
  if (kind == FCD_EQ_STEADY_SLIDING && !eq->cs)
    return fcd__err(sys, FCD_E_STATE, "steady sliding needs a contact set (created with NULL)");
  fcd_index n = sys->n, nc = nct(eq), nfix = sys->nfixed;
  int d = cdim(eq);
  fcd_index m = nc * d;
  fcd_status st;
  eq_work w;
  memset(&w, 0, sizeof w);
  const fcd__free_pattern *fp;
  FCD_TRY(fcd__system_free_pattern(sys, &fp));
  w.f = fcd__malloc_array((size_t)n, sizeof(fcd_real));
  w.z = fcd__calloc((size_t)n, sizeof(fcd_real));
  w.vr = fcd__malloc_array((size_t)nfix + 1, sizeof(fcd_real));
  w.ub = fcd__malloc_array((size_t)n, sizeof(fcd_real));
  w.tmp = fcd__malloc_array((size_t)n, sizeof(fcd_real));
  w.xf = fcd__malloc_array((size_t)fp->n + 1, sizeof(fcd_real));
  w.u = fcd__malloc_array((size_t)n, sizeof(fcd_real));
  w.r = fcd__calloc((size_t)m + 1, sizeof(fcd_real));
  w.loc = fcd__malloc_array((size_t)m + 1, sizeof(fcd_real));
  w.set = fcd__calloc((size_t)nc + 1, sizeof(int));
  w.sdir = fcd__calloc((size_t)(nc * (d - 1)) + 1, sizeof(fcd_real));
  fcd_real *sl = fcd__calloc((size_t)(nc * (d - 1)) + 1, sizeof(fcd_real));
  fcd_real *ur = fcd__malloc_array((size_t)nfix + 1, sizeof(fcd_real));
  if (!w.f || !w.z || !w.vr || !w.ub || !w.tmp || !w.xf || !w.u || !w.r || !w.loc || !w.set ||
      !w.sdir || !sl || !ur) {
    st = fcd__err(sys, FCD_E_NOMEM, "out of memory in an equilibrium solve");
    goto done;
  }
  if ((st = fcd_system_eval_load(sys, t, w.f)) != FCD_OK) goto done;
  if ((st = fcd_system_eval_prescribed(sys, t, ur, w.vr)) != FCD_OK) goto done;
  for (fcd_index k = 0; k < nfix; k++) w.z[sys->fixed_list[k]] = ur[k];
  if ((st = factor_k(eq)) != FCD_OK) goto done;
  if (nc > 0) {
    const fcd__csr *H;
    if ((st = fcd__contact_set_operator(eq->cs, &H)) != FCD_OK) goto done;
    if ((st = fcd__contact_dofs_free(sys, H)) != FCD_OK) goto done;
  }
  if ((st = displacement(eq, w.f, w.z, NULL, w.ub, w.tmp, w.xf)) != FCD_OK) goto done;
  fcd_real fc_err = 0;
  st = kind == FCD_EQ_STATIC ? solve_static(eq, &w, &fc_err) : solve_steady(eq, &w, sl);
  if (st != FCD_OK) goto done;
  if ((st = displacement(eq, w.f, w.z, w.r, w.u, w.tmp, w.xf)) != FCD_OK) goto done;
  finish(eq, &w, kind == FCD_EQ_STEADY_SLIDING ? sl : NULL, fc_err);
  /* commit */
  free_solution(eq);
  eq->u = w.u;
  eq->r = w.r;
  eq->set = w.set;
  eq->sdir = w.sdir;
  w.u = w.r = w.sdir = NULL;
  w.set = NULL;
  eq->have = 1;
done:
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

fcd_status fcd_equilibrium_get_state(const fcd_equilibrium *eq, fcd_real *u) {
  CHECK_HAVE(eq);
  if (!u) return fcd__err(eq->sys, FCD_E_INVALID_ARG, "get_state: u is NULL");
  memcpy(u, eq->u, (size_t)eq->sys->n * sizeof *u);
  return FCD_OK;
}

fcd_status fcd_equilibrium_get_reactions(const fcd_equilibrium *eq, fcd_real *r) {
  CHECK_HAVE(eq);
  if (!r) return fcd__err(eq->sys, FCD_E_INVALID_ARG, "get_reactions: r is NULL");
  if (nct(eq) > 0) memcpy(r, eq->r, (size_t)(nct(eq) * cdim(eq)) * sizeof *r);
  return FCD_OK;
}

fcd_status fcd_equilibrium_get_contact_sets(const fcd_equilibrium *eq, int *set) {
  CHECK_HAVE(eq);
  if (!set) return fcd__err(eq->sys, FCD_E_INVALID_ARG, "get_contact_sets: set is NULL");
  if (nct(eq) > 0) memcpy(set, eq->set, (size_t)nct(eq) * sizeof *set);
  return FCD_OK;
}

fcd_status fcd_equilibrium_get_contact_state(const fcd_equilibrium *eq, int *status,
                                             fcd_real *slip_dir) {
  CHECK_HAVE(eq);
  int d = cdim(eq);
  for (fcd_index c = 0; c < nct(eq); c++) {
    if (status)
      status[c] = eq->set[c] == FCD_EQ_STICK  ? FCD_CONTACT_STICK
                  : eq->set[c] == FCD_EQ_SLIP ? FCD_CONTACT_SLIP
                                              : FCD_CONTACT_OPEN;
    if (slip_dir)
      for (int k = 0; k < d - 1; k++) slip_dir[c * (d - 1) + k] = eq->sdir[c * (d - 1) + k];
  }
  return FCD_OK;
}

fcd_status fcd_equilibrium_get_residual(const fcd_equilibrium *eq, fcd_real *equilibrium,
                                        fcd_real *complementarity) {
  CHECK_HAVE(eq);
  if (equilibrium) *equilibrium = eq->res_eq;
  if (complementarity) *complementarity = eq->res_comp;
  return FCD_OK;
}
