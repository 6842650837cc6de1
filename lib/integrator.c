/* Nonsmooth time integration: Moreau-Jean and the energy-consistent scheme of seed 004
 * (Acary & Collins-Craft 2023), with the exact per-step energy ledger of its eq. (56).
 *
 * One step (seed 004, section 3.3): with Mh = M + h theta C + h^2 theta^2 K on the free
 * dofs, factored once and reused while h and theta stay,
 *   Mh v1 = M v0 - h K u0 - h^2 theta (1 - theta) K v0 - h (1 - theta) C v0 + h F_theta
 *           + H^T p,
 *   u1 = u0 + h v_theta,   v_theta = (1 - theta) v0 + theta v1.
 * The local problem on the active contacts is solved by the contact solvers of
 * fc_solvers.c with W = H Mh^-1 H^T:
 *   Moreau-Jean: law on u1 + e u_{N,0} e_N          -> W p + (u_free + e u_{N,0} e_N)
 *   Fremond:     law on u_theta + (theta(1+e) - 1) u_{N,0} e_N
 *                -> theta W p + theta u_free + (1 - theta) u0 + (theta(1+e) - 1) u_{N,0} e_N.
 *   modified theta (seed 003, eqs. 22-25): every candidate contact, law on
 *                W p + u_free + ((1 - theta) u_{N,0} + (u_N(u0) - g) / h) e_N - v_g e_T.
 * The seed's sign convention is the opposite of fcd's for local vectors; these relations
 * are linear in them, so they hold unchanged in fcd's convention. */
#include "fc_private.h"
#include "fcd/fcd_integrator.h"

#include <math.h>
#include <string.h>

#define FCD_INTEGRATOR_MAGIC 0x66636974u /* "fcit" */

struct fcd_integrator {
  uint32_t magic;
  fcd_system *sys;
  fcd_contact_set *cs;
  fcd_scheme scheme;
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
};

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
  if (scheme == FCD_SCHEME_QUASISTATIC)
    return fcd__err(sys, FCD_E_UNSUPPORTED, "the quasistatic scheme is not implemented in "
                    "this release (Moreau-Jean, modified theta and Fremond are)");
  if (scheme != FCD_SCHEME_MOREAU_JEAN && scheme != FCD_SCHEME_FREMOND &&
      scheme != FCD_SCHEME_MODIFIED_THETA)
    return fcd__err(sys, FCD_E_INVALID_ARG, "unknown scheme %d", (int)scheme);
  if (!sys->mat[FCD_MASS].set)
    return fcd__err(sys, FCD_E_STATE, "integrator_create: the system has no mass matrix");
  fcd_integrator *it = fcd__calloc(1, sizeof *it);
  if (!it) return fcd__err(sys, FCD_E_NOMEM, "out of memory creating an integrator");
  it->sys = sys;
  it->cs = cs;
  it->scheme = scheme;
  it->theta = 0.5;
  /* seed 003 solves its contact problem by the projected fixed point (eqs. 24-25) */
  it->opts.solver = scheme == FCD_SCHEME_MODIFIED_THETA ? FCD_FC_FIXED_POINT : FCD_FC_AUTO;
  it->opts.tol = 1e-10;
  it->opts.max_iter = 10000;
  it->opts.omega = 1.0;
  it->u = fcd__calloc((size_t)sys->n, sizeof *it->u);
  it->v = fcd__calloc((size_t)sys->n, sizeof *it->v);
  it->p = fcd__calloc((size_t)(cs ? cs->n * cs->dim : 0), sizeof *it->p);
  it->status = fcd__calloc((size_t)(cs ? cs->n : 0), sizeof *it->status);
  fcd_status st = (it->u && it->v && it->p && it->status)
                      ? fcd__factor_create(sys, FCD__FACTOR_SPD, &it->fac)
                      : FCD_E_NOMEM;
  if (st != FCD_OK) {
    fcd__free(it->u);
    fcd__free(it->v);
    fcd__free(it->p);
    fcd__free(it->status);
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
  fcd__factor_destroy(it->fac);
  fcd__free(it->u);
  fcd__free(it->v);
  fcd__free(it->p);
  fcd__free(it->status);
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
  case FCD_PARAM_TOLERANCE: return fcd__fc_opts_set(sys, &it->opts, FCD__OPT_TOL, value);
  case FCD_PARAM_MAX_ITER: return fcd__fc_opts_set(sys, &it->opts, FCD__OPT_MAX_ITER, value);
  case FCD_PARAM_CONTACT_SOLVER:
    return fcd__fc_opts_set(sys, &it->opts, FCD__OPT_SOLVER, value);
  default:
    return fcd__err(sys, FCD_E_UNSUPPORTED, "unknown integrator parameter key %d", key);
  }
}

static fcd_real quad(fcd_system *sys, fcd_matrix_kind k, const fcd_real *x, fcd_real *w) {
  fcd_system_apply(sys, k, x, w);
  fcd_real s = 0;
  for (fcd_index i = 0; i < sys->n; i++) s += x[i] * w[i];
  return s;
}

fcd_status fcd_integrator_set_state(fcd_integrator *it, fcd_real t, const fcd_real *u,
                                    const fcd_real *v) {
  CHECK_IT(it);
  fcd_system *sys = it->sys;
  if (!u || !v) return fcd__err(sys, FCD_E_INVALID_ARG, "set_state: %s is NULL", !u ? "u" : "v");
  if (!isfinite(t)) return fcd__err(sys, FCD_E_INVALID_ARG, "set_state: time is not finite");
  for (fcd_index i = 0; i < sys->n; i++)
    if (!isfinite(u[i]) || !isfinite(v[i]))
      return fcd__err(sys, FCD_E_INVALID_ARG, "set_state: %s[%lld] is not finite",
                      !isfinite(u[i]) ? "u" : "v", (long long)i);
  fcd_index nc = ncontacts(it);
  int d = cdim(it);
  fcd_real *w = sys->scratch;
  if (nc > 0) {
    fcd_real *loc = fcd__malloc_array((size_t)(nc * d), sizeof *loc);
    if (!loc) return fcd__err(sys, FCD_E_NOMEM, "out of memory");
    fcd_contact_set_local(it->cs, u, loc);
    for (fcd_index c = 0; c < nc; c++) {
      fcd_real pen = loc[c * d] - it->cs->c[c].gap;
      if (pen > 1e-9 * (1.0 + fabs(it->cs->c[c].gap) + fabs(loc[c * d]))) {
        fcd__free(loc);
        return fcd__err(sys, FCD_E_INVALID_ARG,
                        "set_state: contact %lld penetrates by %.3g (u_N - g > 0); fcd does "
                        "not project an initial state", (long long)c, pen);
      }
    }
    fcd__free(loc);
  }
  memcpy(it->u, u, (size_t)sys->n * sizeof *u);
  memcpy(it->v, v, (size_t)sys->n * sizeof *v);
  /* prescribed entries follow the system at t */
  fcd_real *ur = fcd__malloc_array((size_t)sys->nfixed + 1, sizeof *ur);
  fcd_real *vr = fcd__malloc_array((size_t)sys->nfixed + 1, sizeof *vr);
  fcd_status st = (ur && vr) ? fcd_system_eval_prescribed(sys, t, ur, vr) : FCD_E_NOMEM;
  if (st == FCD_OK)
    for (fcd_index k = 0; k < sys->nfixed; k++) {
      it->u[sys->fixed_list[k]] = ur[k];
      it->v[sys->fixed_list[k]] = vr[k];
    }
  fcd__free(ur);
  fcd__free(vr);
  if (st != FCD_OK) return st == FCD_E_NOMEM ? fcd__err(sys, st, "out of memory") : st;
  it->t = t;
  memset(&it->e, 0, sizeof it->e);
  it->e.kinetic = 0.5 * quad(sys, FCD_MASS, it->v, w);
  it->e.potential = 0.5 * quad(sys, FCD_STIFFNESS, it->u, w);
  if (it->p) memset(it->p, 0, (size_t)(nc * d) * sizeof *it->p);
  it->have_state = 1;
  return FCD_OK;
}

/* workspace of one step, all or nothing */
typedef struct {
  fcd_real *f0, *f1, *b, *tmp, *z, *v1, *u1, *vth, *rf, *xf;
  fcd_real *loc0, *locq, *locv, *uth;
  fcd_real *X; /* nf x ma, Mh^-1 H_a^T */
  fcd_index *act;
  fcd_real *ur, *vr;
} work;

static void work_free(work *w) {
  fcd_real **r[] = {&w->f0, &w->f1, &w->b, &w->tmp, &w->z, &w->v1, &w->u1, &w->vth, &w->rf,
                    &w->xf, &w->loc0, &w->locq, &w->locv, &w->uth, &w->X, &w->ur, &w->vr};
  for (size_t k = 0; k < sizeof r / sizeof *r; k++) fcd__free(*r[k]);
  fcd__free(w->act);
}

static fcd_status step_once(fcd_integrator *it, fcd_real h) {
  fcd_system *sys = it->sys;
  fcd_index n = sys->n, nc = ncontacts(it), nfix = sys->nfixed;
  int d = cdim(it);
  fcd_index m = nc * d;
  fcd_real th = it->theta, t1 = it->t + h;
  fcd_status st;
  work w;
  memset(&w, 0, sizeof w);
  fcd_real *pkeep = NULL, *pnew = it->p;
  const fcd__free_pattern *fp;
  FCD_TRY(fcd__system_free_pattern(sys, &fp));
  fcd_index nf = fp->n;
  w.f0 = fcd__malloc_array((size_t)n, sizeof(fcd_real));
  w.f1 = fcd__malloc_array((size_t)n, sizeof(fcd_real));
  w.b = fcd__malloc_array((size_t)n, sizeof(fcd_real));
  w.tmp = fcd__malloc_array((size_t)n, sizeof(fcd_real));
  w.z = fcd__calloc((size_t)n, sizeof(fcd_real));
  w.v1 = fcd__malloc_array((size_t)n, sizeof(fcd_real));
  w.u1 = fcd__malloc_array((size_t)n, sizeof(fcd_real));
  w.vth = fcd__malloc_array((size_t)n, sizeof(fcd_real));
  w.rf = fcd__malloc_array((size_t)nf, sizeof(fcd_real));
  w.xf = fcd__malloc_array((size_t)nf, sizeof(fcd_real));
  w.loc0 = fcd__malloc_array((size_t)m + 1, sizeof(fcd_real));
  w.locq = fcd__malloc_array((size_t)m + 1, sizeof(fcd_real));
  w.locv = fcd__malloc_array((size_t)m + 1, sizeof(fcd_real));
  w.uth = fcd__malloc_array((size_t)m + 1, sizeof(fcd_real));
  w.act = fcd__malloc_array((size_t)nc + 1, sizeof(fcd_index));
  w.ur = fcd__malloc_array((size_t)nfix + 1, sizeof(fcd_real));
  w.vr = fcd__malloc_array((size_t)nfix + 1, sizeof(fcd_real));
  if (!w.f0 || !w.f1 || !w.b || !w.tmp || !w.z || !w.v1 || !w.u1 || !w.vth || !w.rf || !w.xf ||
      !w.loc0 || !w.locq || !w.locv || !w.uth || !w.act || !w.ur || !w.vr) {
    st = fcd__err(sys, FCD_E_NOMEM, "out of memory in an integrator step");
    goto done;
  }
  /* loads and prescribed motion at both ends */
  if ((st = fcd_system_eval_load(sys, it->t, w.f0)) != FCD_OK) goto done;
  if ((st = fcd_system_eval_load(sys, t1, w.f1)) != FCD_OK) goto done;
  if ((st = fcd_system_eval_prescribed(sys, t1, w.ur, w.vr)) != FCD_OK) goto done;
  /* the iteration matrix, refactored only when h or theta (or the system) changed */
  if ((st = fcd__factor_combination(it->fac, 1.0, h * th, h * h * th * th)) != FCD_OK) goto done;
  /* b = M v0 - h K u0 - h^2 th (1-th) K v0 - h (1-th) C v0 + h F_th - Mh z */
  fcd_system_apply(sys, FCD_MASS, it->v, w.b);
  fcd_system_apply(sys, FCD_STIFFNESS, it->u, w.tmp);
  for (fcd_index i = 0; i < n; i++) w.b[i] -= h * w.tmp[i];
  fcd_system_apply(sys, FCD_STIFFNESS, it->v, w.tmp);
  for (fcd_index i = 0; i < n; i++) w.b[i] -= h * h * th * (1 - th) * w.tmp[i];
  fcd_system_apply(sys, FCD_DAMPING, it->v, w.tmp);
  for (fcd_index i = 0; i < n; i++)
    w.b[i] += -h * (1 - th) * w.tmp[i] + h * ((1 - th) * w.f0[i] + th * w.f1[i]);
  for (fcd_index k = 0; k < nfix; k++) w.z[sys->fixed_list[k]] = w.vr[k];
  if (nfix > 0) {
    fcd_system_apply(sys, FCD_MASS, w.z, w.tmp);
    for (fcd_index i = 0; i < n; i++) w.b[i] -= w.tmp[i];
    fcd_system_apply(sys, FCD_DAMPING, w.z, w.tmp);
    for (fcd_index i = 0; i < n; i++) w.b[i] -= h * th * w.tmp[i];
    fcd_system_apply(sys, FCD_STIFFNESS, w.z, w.tmp);
    for (fcd_index i = 0; i < n; i++) w.b[i] -= h * h * th * th * w.tmp[i];
  }
  for (fcd_index k = 0; k < nf; k++) w.rf[k] = w.b[sys->dof_of[k]];
  if ((st = fcd__factor_solve(it->fac, 1, w.rf, w.rf)) != FCD_OK) goto done;
  /* v1 = v_free (prescribed entries included) */
  memcpy(w.v1, w.z, (size_t)n * sizeof *w.v1);
  for (fcd_index k = 0; k < nf; k++) w.v1[sys->dof_of[k]] = w.rf[k];
  if (nc > 0) {
    /* active set: predicted gap (u0 + h v0) closed; Fremond also needs u_{N,0} >= 0 */
    for (fcd_index i = 0; i < n; i++) w.tmp[i] = it->u[i] + h * it->v[i];
    fcd_contact_set_local(it->cs, w.tmp, w.locq);
    fcd_contact_set_local(it->cs, it->v, w.loc0);
    fcd_index na = 0;
    int mtheta = it->scheme == FCD_SCHEME_MODIFIED_THETA;
    for (fcd_index c = 0; c < nc; c++) {
      /* modified theta: every candidate enters, its projection opens what separates */
      int on = mtheta || w.locq[c * d] - it->cs->c[c].gap >= 0;
      if (it->scheme == FCD_SCHEME_FREMOND) on = on && w.loc0[c * d] >= 0;
      if (on) w.act[na++] = c;
    }
    if (mtheta) fcd_contact_set_local(it->cs, it->u, w.locq); /* G^i + g: displacements */
    pkeep = fcd__calloc((size_t)m, sizeof *pkeep);
    if (!pkeep) {
      st = fcd__err(sys, FCD_E_NOMEM, "out of memory in an integrator step");
      goto done;
    }
    if (na > 0) {
      fcd_index ma = na * d;
      const fcd__csr *H;
      if ((st = fcd__contact_set_operator(it->cs, &H)) != FCD_OK) goto done;
      /* X = Mh^-1 H_a^T (free rows), W = H_a X, dense: the active sets of this release's
       * targets are small; the assembled/matrix-free choice by size comes with the
       * performance work of issue 4 */
      w.X = fcd__calloc((size_t)nf * (size_t)ma, sizeof *w.X);
      fcd_real *Wd = fcd__calloc((size_t)ma * (size_t)ma, sizeof *Wd);
      fcd_real *ql = fcd__malloc_array((size_t)ma, sizeof *ql);
      fcd_real *pl = fcd__calloc((size_t)ma, sizeof *pl);
      fcd_real *ul = fcd__malloc_array((size_t)ma, sizeof *ul);
      fcd_real *mul = fcd__malloc_array((size_t)na, sizeof *mul);
      fcd_index *wrp = fcd__malloc_array((size_t)ma + 1, sizeof *wrp);
      fcd_index *wci = fcd__malloc_array((size_t)ma * (size_t)ma, sizeof *wci);
      if (!w.X || !Wd || !ql || !pl || !ul || !mul || !wrp || !wci) {
        st = fcd__err(sys, FCD_E_NOMEM, "out of memory in the contact step");
      } else {
        for (fcd_index a = 0; a < na; a++)
          for (int k = 0; k < d; k++) {
            fcd_index row = w.act[a] * d + k;
            for (fcd_index e = H->rowptr[row]; e < H->rowptr[row + 1]; e++)
              w.X[(a * d + k) * nf + sys->free_of[H->col[e]]] = H->val[e];
          }
        st = fcd__factor_solve(it->fac, ma, w.X, w.X);
      }
      if (st == FCD_OK) {
        for (fcd_index a = 0; a < na; a++)
          for (int k = 0; k < d; k++) {
            fcd_index row = w.act[a] * d + k;
            for (fcd_index j = 0; j < ma; j++) {
              fcd_real s = 0;
              for (fcd_index e = H->rowptr[row]; e < H->rowptr[row + 1]; e++)
                s += H->val[e] * w.X[j * nf + sys->free_of[H->col[e]]];
              Wd[(a * d + k) * ma + j] = s;
            }
          }
        /* local data of the scheme */
        fcd_contact_set_local(it->cs, w.v1, w.locv); /* u_free */
        fcd_real e = it->cs->restitution;
        int frem = it->scheme == FCD_SCHEME_FREMOND;
        for (fcd_index a = 0; a < na; a++) {
          fcd_index c = w.act[a];
          mul[a] = it->cs->c[c].mu;
          for (int k = 0; k < d; k++) {
            fcd_real uf = w.locv[c * d + k], u0 = w.loc0[c * d + k];
            ql[a * d + k] = frem ? th * uf + (1 - th) * u0 : uf;
          }
          fcd_real un0 = w.loc0[c * d];
          if (mtheta) {
            /* seed 003 eq. (24): the normal law acts on
             * Gdot^{i+1} + (1 - theta) Gdot^i + G^i / h (a predicted gap over h), eq. (25):
             * friction on the velocity relative to the imposed sliding one */
            ql[a * d] += (1 - th) * un0 + (w.locq[c * d] - it->cs->c[c].gap) / h;
            for (int k = 1; k < d; k++) ql[a * d + k] -= it->cs->c[c].vg[k - 1];
          } else {
            ql[a * d] += frem ? (th * (1 + e) - 1) * un0 : e * un0;
          }
        }
        fcd_real scale = frem ? th : 1.0;
        for (fcd_index i = 0; i < ma; i++) {
          wrp[i] = i * ma;
          for (fcd_index j = 0; j < ma; j++) {
            wci[i * ma + j] = j;
            Wd[i * ma + j] *= scale;
          }
        }
        wrp[ma] = ma * ma;
        /* warm start from the previous impulses of the same contacts */
        for (fcd_index a = 0; a < na; a++)
          for (int k = 0; k < d; k++) pl[a * d + k] = it->p[w.act[a] * d + k];
        fcd__csr Wc = {ma, wrp, wci, Wd, 0, 0, 1};
        fcd__fc_local lp = {d, na, ma, &Wc, ql, mul, NULL, NULL};
        fcd__fc_result res;
        st = fcd__fc_solve(sys, &lp, &it->opts, pl, ul, &res);
        if (st == FCD_OK && !res.converged)
          st = fcd__err(sys, FCD_E_NOT_CONVERGED,
                        "contact solve of the step at t = %g did not reach %.3g in %lld "
                        "iterations (residual %.3e); the state is unchanged", it->t,
                        it->opts.tol, (long long)res.iterations, res.residual);
        if (st == FCD_OK) {
          /* v1 += X p */
          for (fcd_index j = 0; j < ma; j++)
            for (fcd_index k = 0; k < nf; k++) w.v1[sys->dof_of[k]] += w.X[j * nf + k] * pl[j];
          for (fcd_index a = 0; a < na; a++)
            for (int k = 0; k < d; k++) pkeep[w.act[a] * d + k] = pl[a * d + k];
        }
      }
      fcd__free(Wd);
      fcd__free(ql);
      fcd__free(pl);
      fcd__free(ul);
      fcd__free(mul);
      fcd__free(wrp);
      fcd__free(wci);
      if (st != FCD_OK) goto done;
    }
    pnew = pkeep;
  }
  /* u1 = u0 + h v_theta; prescribed entries from the system */
  for (fcd_index i = 0; i < n; i++) {
    w.vth[i] = (1 - th) * it->v[i] + th * w.v1[i];
    w.u1[i] = it->u[i] + h * w.vth[i];
  }
  for (fcd_index k = 0; k < nfix; k++) w.u1[sys->fixed_list[k]] = w.ur[k];
  /* energy ledger (seed 004, eq. 56): exact per step */
  {
    fcd_real wext = 0, damp, dv2, du2, *dv = w.tmp;
    for (fcd_index i = 0; i < n; i++) wext += h * w.vth[i] * ((1 - th) * w.f0[i] + th * w.f1[i]);
    damp = h * quad(sys, FCD_DAMPING, w.vth, w.b);
    for (fcd_index i = 0; i < n; i++) dv[i] = w.v1[i] - it->v[i];
    dv2 = quad(sys, FCD_MASS, dv, w.b);
    for (fcd_index i = 0; i < n; i++) dv[i] = w.u1[i] - it->u[i];
    du2 = quad(sys, FCD_STIFFNESS, dv, w.b);
    fcd_real dimp = 0, dfric = 0;
    if (nc > 0) {
      fcd_contact_set_local(it->cs, w.vth, w.uth);
      for (fcd_index c = 0; c < nc; c++) {
        dimp -= w.uth[c * d] * pnew[c * d];
        for (int k = 1; k < d; k++) dfric -= w.uth[c * d + k] * pnew[c * d + k];
      }
    }
    it->e.external_work += wext;
    it->e.damping_dissipation += damp;
    it->e.numerical_dissipation += (th - 0.5) * (dv2 + du2);
    it->e.impact_dissipation += dimp;
    it->e.friction_dissipation += dfric;
    it->e.kinetic = 0.5 * quad(sys, FCD_MASS, w.v1, w.b);
    it->e.potential = 0.5 * quad(sys, FCD_STIFFNESS, w.u1, w.b);
  }
  /* contact status: the friction velocity is u1 for Moreau-Jean, u_theta for Fremond */
  if (nc > 0) {
    if (it->scheme != FCD_SCHEME_FREMOND) fcd_contact_set_local(it->cs, w.v1, w.uth);
    if (it->scheme == FCD_SCHEME_MODIFIED_THETA)
      for (fcd_index c = 0; c < nc; c++)
        for (int k = 1; k < d; k++) w.uth[c * d + k] -= it->cs->c[c].vg[k - 1];
    memset(&it->counts, 0, sizeof it->counts);
    for (fcd_index c = 0; c < nc; c++) {
      const fcd_real *pc = pnew + c * d, *uc = w.uth + c * d;
      fcd_real pt = d == 2 ? fabs(pc[1]) : hypot(pc[1], pc[2]);
      fcd_real ut = d == 2 ? fabs(uc[1]) : hypot(uc[1], uc[2]);
      fcd_real un = fabs(uc[0]);
      int stt;
      if (pc[0] == 0.0) stt = FCD_CONTACT_OPEN;
      else if (pt >= it->cs->c[c].mu * fabs(pc[0]) * (1 - 1e-9) && ut > 1e-9 * (1 + un))
        stt = FCD_CONTACT_SLIP;
      else stt = FCD_CONTACT_STICK;
      it->status[c] = stt;
      if (stt == FCD_CONTACT_OPEN) it->counts.open++;
      else if (stt == FCD_CONTACT_STICK) it->counts.stick++;
      else it->counts.slip++;
    }
  }
  /* commit */
  memcpy(it->u, w.u1, (size_t)n * sizeof *it->u);
  memcpy(it->v, w.v1, (size_t)n * sizeof *it->v);
  if (nc > 0) memcpy(it->p, pnew, (size_t)m * sizeof *it->p);
  it->t = t1;
  it->last_h = h;
  st = FCD_OK;
done:
  fcd__free(pkeep);
  work_free(&w);
  return st;
}

/* a step, then the observer */
static fcd_status step_observed(fcd_integrator *it, fcd_real h) {
  FCD_TRY(step_once(it, h));
  if (!it->obs) return FCD_OK;
  fcd_index m = ncontacts(it) * cdim(it);
  fcd_real *r = fcd__malloc_array((size_t)m + 1, sizeof *r);
  if (!r) return fcd__err(it->sys, FCD_E_NOMEM, "out of memory for the observer");
  for (fcd_index i = 0; i < m; i++) r[i] = it->p[i] / h;
  int rc = it->obs(it->obs_ud, it->t, it->sys->n, it->u, it->v, m, r, &it->counts);
  fcd__free(r);
  if (rc != 0)
    return fcd__err(it->sys, FCD_E_CALLBACK, "observer returned %d at t = %g", rc, it->t);
  return FCD_OK;
}

fcd_status fcd_integrator_step(fcd_integrator *it) {
  CHECK_IT(it);
  if (!it->have_state)
    return fcd__err(it->sys, FCD_E_STATE, "integrator_step: call fcd_integrator_set_state first");
  if (it->h <= 0)
    return fcd__err(it->sys, FCD_E_STATE, "integrator_step: set FCD_PARAM_STEP first");
  return step_observed(it, it->h);
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
  while (t_end - it->t > 1e-12 * it->h) {
    /* a remainder below a hundredth of a step is absorbed into the previous one */
    fcd_real h = t_end - it->t < 1.01 * it->h ? t_end - it->t : it->h;
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
  fcd_real h = it->last_h > 0 ? it->last_h : 1.0;
  for (fcd_index i = 0; i < m; i++) r[i] = it->p[i] / h;
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
