/* Periodic orbits of the nonsmooth dynamics by shooting (issue 68; docs/periodic.md).
 *
 * The unknowns are the free dofs' state x0 = (u0, v0) and the period T; the map is the
 * scheme's own discrete flow, N steps of T / N from x0 (N fixed for a solve), so the orbit
 * is a periodic orbit of the same scheme that a long transient uses, at a step within half
 * a step of it. Newton on F(x0, T) = phi_T(x0) - x0 = 0 with the phase condition
 * c' dx0 = 0, c the flow's direction at the iterate (its first step), which removes the
 * orbit's freedom of phase. The Jacobian comes from finite differences of the step map:
 * the map is piecewise smooth (impacts, stick-slip transitions), and the differences see
 * the piece the orbit is on with no saltation matrices to derive for every contact law and
 * scheme; their cost, 2 nfree + 1 periods an iteration, suits the small and reduced
 * systems this is for. The unknowns are scaled by the orbit's amplitudes (displacements,
 * velocities) and T by its guess, so that one relative difference step serves all.
 * The monodromy matrix is the Jacobian's state block at the converged orbit; its
 * eigenvalues are the Floquet multipliers, one of them 1 (the phase) up to the
 * differences' and the scheme's errors, which the info reports. */
#include "capabilities.h"
#include "lapack.h"
#include "fcd/fcd_integrator.h"
#include "fcd/fcd_periodic.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define FCD_PERIODIC_MAGIC 0x66637079u /* "fcpy" */

/* The monodromy products Phi z that Newton-Krylov has made (directions RZ, images RP, rc
 * slots of nx, rn filled, rh the next): they precondition the next GMRES (prec_setup).
 * The handle keeps them from one solve or continuation to the next, for the map of N
 * steps a period: from a cold start, the first point of each direction of the reduced
 * brake's branch cost 56 and 63 s (its tangent 112 GMRES steps), a later point some 22. */
typedef struct {
  fcd_real *RZ, *RP;
  fcd_index rc, rn, rh, nx, N;
} product_ring;

struct fcd_periodic {
  unsigned magic;
  fcd_system *sys;
  fcd_contact_set *cs;
  fcd_integrator *it;
  fcd_scheme scheme;
  fcd_real h, tol, fd;
  fcd_index maxit;
  int jac;             /* FCD_PERIODIC_JACOBIAN_*: dense differences or Newton-Krylov */
  fcd_index kmax;      /* GMRES basis cap a Newton iteration (Krylov) */
  fcd_index nmult;     /* Arnoldi steps for the multipliers (Krylov) */
  fcd_index nf, nx; /* free dofs, state unknowns (2 nf) */
  int have;         /* a solve ran: the best iterate is kept */
  fcd_periodic_info info;
  fcd_real *u0, *v0, *umin, *umax; /* n each */
  fcd_real *mre, *mim;             /* nx each */
  /* work: full-size state, one period's ranges of the free velocities */
  fcd_real *uw, *vw, *vmin, *vmax;
  /* the periodic forcing (fcd_periodic_set_forcing, _set_harmonic_forcing): scale times
   * the host's load at phase omega t, or times the harmonic loads; forced: one is set */
  int forced;
  fcd_real omega, fscale;
  fcd_forcing_fn ffn;
  void *fud;
  fcd_index nh;                 /* harmonic loads */
  fcd_index *hdof;
  fcd_real *hamp, *hphase, *fw; /* fw: the callback's load (n) */
  product_ring ring;
};

/* the forcing at t added to f (the integrator's hook, fcd__integrator_set_forcing) */
static int add_forcing(void *ud, fcd_real t, fcd_index n, fcd_real *f) {
  fcd_periodic *p = ud;
  if (p->ffn) {
    memset(p->fw, 0, (size_t)n * sizeof *p->fw);
    if (p->ffn(p->fud, p->omega * t, n, p->fw) != 0) return 1;
    for (fcd_index i = 0; i < n; i++) {
      if (!isfinite(p->fw[i])) return 1;
      f[i] += p->fscale * p->fw[i];
    }
    return 0;
  }
  for (fcd_index k = 0; k < p->nh; k++)
    f[p->hdof[k]] += p->fscale * p->hamp[k] * cos(p->omega * t + p->hphase[k]);
  return 0;
}

/* Newton-Krylov instead of a dense Jacobian: asked for, or on AUTO above 200 state
 * unknowns (a dense Jacobian is 2 nfree periods) */
static int krylov_wanted(const fcd_periodic *p) {
  return p->jac == FCD_PERIODIC_JACOBIAN_KRYLOV ||
         (p->jac == FCD_PERIODIC_JACOBIAN_AUTO && p->nx > 200);
}

static int valid(const fcd_periodic *p) {
  return p && p->magic == FCD_PERIODIC_MAGIC && fcd__system_valid(p->sys);
}

#define CHECK_P(p)                                                                     \
  do {                                                                                 \
    if (!valid(p)) return FCD_E_INVALID_ARG;                                           \
  } while (0)

fcd_status fcd_periodic_create(fcd_system *sys, fcd_contact_set *cs, fcd_scheme scheme,
                               fcd_periodic **out) {
  if (!out) return fcd__err(sys, FCD_E_INVALID_ARG, "periodic_create: out is NULL");
  *out = NULL;
  FCD_CHECK_SYS(sys);
  if (scheme == FCD_SCHEME_QUASISTATIC)
    return fcd__err(sys, FCD_E_INVALID_ARG, "periodic_create: the quasistatic scheme has no "
                    "velocities to be periodic; use a dynamic scheme");
  if (sys->load_fn || sys->presc_fn)
    return fcd__err(sys, FCD_E_UNSUPPORTED, "periodic_create: shooting needs an autonomous "
                    "system, and this one has a %s function (time-dependent %s)",
                    sys->load_fn ? "load" : "prescribed", sys->load_fn ? "loads; a periodic "
                    "load is given to the solver instead, fcd_periodic_set_forcing" :
                    "prescribed displacements");
  fcd_integrator *it = NULL;
  FCD_TRY(fcd_integrator_create(sys, cs, scheme, &it));
  fcd_periodic *p = fcd__calloc(1, sizeof *p);
  fcd_index n = sys->n;
  if (p) {
    p->u0 = fcd__calloc((size_t)n, sizeof *p->u0);
    p->v0 = fcd__calloc((size_t)n, sizeof *p->v0);
    p->umin = fcd__calloc((size_t)n, sizeof *p->umin);
    p->umax = fcd__calloc((size_t)n, sizeof *p->umax);
    p->uw = fcd__calloc((size_t)n, sizeof *p->uw);
    p->vw = fcd__calloc((size_t)n, sizeof *p->vw);
  }
  if (!p || !p->u0 || !p->v0 || !p->umin || !p->umax || !p->uw || !p->vw) {
    if (p) {
      fcd__free(p->u0);
      fcd__free(p->v0);
      fcd__free(p->umin);
      fcd__free(p->umax);
      fcd__free(p->uw);
      fcd__free(p->vw);
      fcd__free(p);
    }
    fcd_integrator_destroy(it);
    return fcd__err(sys, FCD_E_NOMEM, "out of memory creating a shooting solver");
  }
  p->sys = sys;
  p->cs = cs;
  p->it = it;
  p->scheme = scheme;
  p->tol = 1e-9;
  p->fd = 1e-6;
  p->maxit = 30;
  p->jac = FCD_PERIODIC_JACOBIAN_AUTO;
  p->kmax = 200;
  p->nmult = 40;
  p->fscale = 1;
  p->magic = FCD_PERIODIC_MAGIC;
  *out = p;
  return FCD_OK;
}

/* the products kept are of another map from now on */
static void ring_drop(fcd_periodic *p) { p->ring.rn = p->ring.rh = 0; }

static void forcing_free(fcd_periodic *p) {
  fcd__free(p->hdof);
  fcd__free(p->hamp);
  fcd__free(p->hphase);
  fcd__free(p->fw);
  p->hdof = NULL;
  p->hamp = p->hphase = p->fw = NULL;
  p->nh = 0;
  p->ffn = NULL;
  p->fud = NULL;
  p->forced = 0;
  ring_drop(p);
}

static void clear_result(fcd_periodic *p) {
  fcd__free(p->mre);
  fcd__free(p->mim);
  fcd__free(p->vmin);
  fcd__free(p->vmax);
  p->mre = p->mim = p->vmin = p->vmax = NULL;
}

static void ring_free(product_ring *r) {
  fcd__free(r->RZ);
  fcd__free(r->RP);
  memset(r, 0, sizeof *r);
}

void fcd_periodic_destroy(fcd_periodic *p) {
  if (!valid(p)) return;
  p->magic = 0;
  ring_free(&p->ring);
  fcd_integrator_destroy(p->it);
  clear_result(p);
  forcing_free(p);
  fcd__free(p->u0);
  fcd__free(p->v0);
  fcd__free(p->umin);
  fcd__free(p->umax);
  fcd__free(p->uw);
  fcd__free(p->vw);
  fcd__free(p);
}

fcd_status fcd_periodic_set_param(fcd_periodic *p, int key, fcd_real value) {
  CHECK_P(p);
  fcd_system *sys = p->sys;
  switch (key) {
  case FCD_PERIODIC_PARAM_TOL:
    if (!(value > 0) || !isfinite(value))
      return fcd__err(sys, FCD_E_INVALID_ARG, "periodic: the tolerance must be > 0 and "
                      "finite, not %g", value);
    p->tol = value;
    return FCD_OK;
  case FCD_PERIODIC_PARAM_MAX_ITER:
    if (!(value >= 1) || value > 1e6 || value != floor(value))
      return fcd__err(sys, FCD_E_INVALID_ARG, "periodic: the iteration cap must be a whole "
                      "number from 1 to 1e6, not %g", value);
    p->maxit = (fcd_index)value;
    return FCD_OK;
  case FCD_PERIODIC_PARAM_FD_STEP:
    if (!(value > 0) || !(value < 0.1))
      return fcd__err(sys, FCD_E_INVALID_ARG, "periodic: the difference step must be in "
                      "(0, 0.1), not %g", value);
    p->fd = value;
    return FCD_OK;
  case FCD_PERIODIC_PARAM_JACOBIAN:
    if (value != FCD_PERIODIC_JACOBIAN_DENSE && value != FCD_PERIODIC_JACOBIAN_KRYLOV &&
        value != FCD_PERIODIC_JACOBIAN_AUTO)
      return fcd__err(sys, FCD_E_INVALID_ARG, "periodic: the Jacobian must be "
                      "FCD_PERIODIC_JACOBIAN_DENSE (0), _KRYLOV (1) or _AUTO (2), not %g",
                      value);
    p->jac = (int)value;
    return FCD_OK;
  case FCD_PERIODIC_PARAM_KRYLOV_MAX:
  case FCD_PERIODIC_PARAM_MULTIPLIERS:
    if (!(value >= 1) || value > 1e5 || value != floor(value))
      return fcd__err(sys, FCD_E_INVALID_ARG, "periodic: the %s must be a whole number from "
                      "1 to 1e5, not %g", key == FCD_PERIODIC_PARAM_KRYLOV_MAX ? "Krylov basis "
                      "cap" : "number of multipliers", value);
    if (key == FCD_PERIODIC_PARAM_KRYLOV_MAX) p->kmax = (fcd_index)value;
    else p->nmult = (fcd_index)value;
    return FCD_OK;
  case FCD_PERIODIC_PARAM_FORCING_OMEGA:
    if (!p->forced)
      return fcd__err(sys, FCD_E_STATE, "periodic: no forcing to set the frequency of "
                      "(fcd_periodic_set_forcing or _set_harmonic_forcing first)");
    if (!(value > 0) || !isfinite(value))
      return fcd__err(sys, FCD_E_INVALID_ARG, "periodic: the forcing's circular frequency "
                      "must be > 0 and finite, not %g", value);
    p->omega = value;
    return FCD_OK;
  case FCD_PERIODIC_PARAM_FORCING_SCALE:
    if (!isfinite(value))
      return fcd__err(sys, FCD_E_INVALID_ARG, "periodic: the forcing's scale must be finite, "
                      "not %g", value);
    p->fscale = value;
    return FCD_OK;
  case FCD_PARAM_STEP:
    if (!(value > 0) || !isfinite(value))
      return fcd__err(sys, FCD_E_INVALID_ARG, "periodic: the step must be > 0 and finite, "
                      "not %g", value);
    p->h = value;
    ring_drop(p);
    return FCD_OK;
  default:
    /* the integrator's own keys and checks (theta, the contact solver, ...) */
    ring_drop(p);
    return fcd_integrator_set_param(p->it, key, value);
  }
}

static fcd_status forcing_install(fcd_periodic *p, fcd_real omega) {
  p->omega = omega;
  p->forced = 1;
  fcd_status st = fcd__integrator_set_forcing(p->it, add_forcing, p);
  if (st != FCD_OK) forcing_free(p);
  return st;
}

fcd_status fcd_periodic_set_forcing(fcd_periodic *p, fcd_real omega, fcd_forcing_fn fn,
                                    void *user_data) {
  CHECK_P(p);
  fcd_system *sys = p->sys;
  if (fn && (!(omega > 0) || !isfinite(omega)))
    return fcd__err(sys, FCD_E_INVALID_ARG, "periodic_set_forcing: the circular frequency "
                    "must be > 0 and finite, not %g", omega);
  fcd_real *fw = fn ? fcd__malloc_array((size_t)sys->n + 1, sizeof *fw) : NULL;
  if (fn && !fw) return fcd__err(sys, FCD_E_NOMEM, "out of memory for a forcing of %lld dofs",
                                 (long long)sys->n);
  forcing_free(p);
  FCD_TRY(fcd__integrator_set_forcing(p->it, NULL, NULL));
  if (!fn) return FCD_OK;
  p->fw = fw;
  p->ffn = fn;
  p->fud = user_data;
  return forcing_install(p, omega);
}

fcd_status fcd_periodic_set_harmonic_forcing(fcd_periodic *p, fcd_real omega, fcd_index n,
                                             const fcd_index *dofs, const fcd_real *amplitude,
                                             const fcd_real *phase) {
  CHECK_P(p);
  fcd_system *sys = p->sys;
  if (n < 0 || (n > 0 && (!dofs || !amplitude)))
    return fcd__err(sys, FCD_E_INVALID_ARG, "periodic_set_harmonic_forcing: %s",
                    n < 0 ? "n must be >= 0" : "dofs or amplitude is NULL");
  if (n > 0 && (!(omega > 0) || !isfinite(omega)))
    return fcd__err(sys, FCD_E_INVALID_ARG, "periodic_set_harmonic_forcing: the circular "
                    "frequency must be > 0 and finite, not %g", omega);
  for (fcd_index k = 0; k < n; k++) {
    if (dofs[k] < 0 || dofs[k] >= sys->n)
      return fcd__err(sys, FCD_E_INVALID_ARG, "periodic_set_harmonic_forcing: load %lld is on "
                      "dof %lld, outside 0..%lld", (long long)k, (long long)dofs[k],
                      (long long)sys->n - 1);
    if (sys->is_fixed[dofs[k]])
      return fcd__err(sys, FCD_E_INVALID_ARG, "periodic_set_harmonic_forcing: load %lld is on "
                      "dof %lld, which is prescribed (a load there moves nothing)",
                      (long long)k, (long long)dofs[k]);
    if (!isfinite(amplitude[k]) || (phase && !isfinite(phase[k])))
      return fcd__err(sys, FCD_E_INVALID_ARG, "periodic_set_harmonic_forcing: load %lld has a "
                      "non-finite %s", (long long)k, !isfinite(amplitude[k]) ? "amplitude" :
                      "phase");
  }
  fcd_index *hd = n > 0 ? fcd__malloc_array((size_t)n, sizeof *hd) : NULL;
  fcd_real *ha = n > 0 ? fcd__malloc_array((size_t)n, sizeof *ha) : NULL;
  fcd_real *hp = n > 0 ? fcd__malloc_array((size_t)n, sizeof *hp) : NULL;
  if (n > 0 && (!hd || !ha || !hp)) {
    fcd__free(hd);
    fcd__free(ha);
    fcd__free(hp);
    return fcd__err(sys, FCD_E_NOMEM, "out of memory for %lld harmonic loads", (long long)n);
  }
  forcing_free(p);
  FCD_TRY(fcd__integrator_set_forcing(p->it, NULL, NULL));
  if (n == 0) return FCD_OK;
  for (fcd_index k = 0; k < n; k++) {
    hd[k] = dofs[k];
    ha[k] = amplitude[k];
    hp[k] = phase ? phase[k] : 0;
  }
  p->hdof = hd;
  p->hamp = ha;
  p->hphase = hp;
  p->nh = n;
  return forcing_install(p, omega);
}

/* the normal row of contact c in H (row c * dim), and its penetration at u */
static fcd_real penetration(const fcd_periodic *p, const fcd__csr *H, fcd_index c,
                            const fcd_real *u) {
  fcd_index row = c * p->cs->dim;
  fcd_real s = 0;
  for (fcd_index q = H->rowptr[row]; q < H->rowptr[row + 1]; q++) s += H->val[q] * u[H->col[q]];
  return s - p->cs->c[c].gap;
}

/* A Newton iterate's displacement kept admissible: each contact's penetration removed
 * along its normal row over the free dofs (Kaczmarz sweeps: rows of different contacts
 * may share dofs). The orbit's own states are admissible, so this only acts on the
 * excursions of early iterates. */
static fcd_status admissible(fcd_periodic *p, fcd_real *u) {
  if (!p->cs || p->cs->n == 0) return FCD_OK;
  const fcd__csr *H;
  FCD_TRY(fcd__contact_set_operator(p->cs, &H));
  const fcd_system *sys = p->sys;
  for (int sweep = 0; sweep < 50; sweep++) {
    int moved = 0;
    for (fcd_index c = 0; c < p->cs->n; c++) {
      fcd_real pen = penetration(p, H, c, u);
      if (!(pen > 1e-14 * (1 + fabs(p->cs->c[c].gap)))) continue;
      fcd_index row = c * p->cs->dim;
      fcd_real nrm = 0;
      for (fcd_index q = H->rowptr[row]; q < H->rowptr[row + 1]; q++)
        if (!sys->is_fixed[H->col[q]]) nrm += H->val[q] * H->val[q];
      if (nrm == 0) continue; /* a contact on prescribed dofs only: the system's to keep */
      for (fcd_index q = H->rowptr[row]; q < H->rowptr[row + 1]; q++)
        if (!sys->is_fixed[H->col[q]]) u[H->col[q]] -= pen * H->val[q] / nrm;
      moved = 1;
    }
    if (!moved) break;
  }
  return FCD_OK;
}

/* A guess taken from a transient: the modified theta scheme and Moreau-Jean's hold a
 * contact at velocity level, so their states sink into an obstacle by up to about h
 * times the approach speed (3.4e-8 m at the end of the reduced brake's transient, h =
 * 1e-5 s, which the integrator's set_state refuses). Such a sinking is moved out along
 * the contact's normal row, as every Newton iterate's is; one deeper than 2 h max|v|
 * (and the integrator's own 1e-9 allowance) is not a scheme's and is refused. */
static fcd_status guess_admissible(fcd_periodic *p, fcd_real *u, const fcd_real *v) {
  if (!p->cs || p->cs->n == 0 || !v) return FCD_OK;
  const fcd__csr *H;
  FCD_TRY(fcd__contact_set_operator(p->cs, &H));
  fcd_real vmax = 0, worst = 0;
  fcd_index wc = 0;
  for (fcd_index i = 0; i < p->sys->n; i++) vmax = fmax(vmax, fabs(v[i]));
  for (fcd_index c = 0; c < p->cs->n; c++) {
    fcd_real pen = penetration(p, H, c, u);
    if (pen > worst) {
      worst = pen;
      wc = c;
    }
  }
  if (!(worst > 0)) return FCD_OK;
  if (worst > 2 * p->h * vmax + 1e-9 * (1 + fabs(p->cs->c[wc].gap)))
    return fcd__err(p->sys, FCD_E_INVALID_ARG, "periodic_solve: the guess' contact %lld "
                    "penetrates by %.3g (u_N - g > 0), more than a step of the scheme sinks "
                    "(2 h max|v| = %.3g)", (long long)wc, worst, 2 * p->h * vmax);
  return admissible(p, u);
}

/* The full state of the free unknowns x (nf displacements, nf velocities) into p->uw,
 * p->vw (prescribed entries zero: the integrator takes them from the system) */
static void scatter(fcd_periodic *p, const fcd_real *x) {
  const fcd_system *sys = p->sys;
  memset(p->uw, 0, (size_t)sys->n * sizeof *p->uw);
  memset(p->vw, 0, (size_t)sys->n * sizeof *p->vw);
  for (fcd_index k = 0; k < p->nf; k++) {
    p->uw[sys->dof_of[k]] = x[k];
    p->vw[sys->dof_of[k]] = x[p->nf + k];
  }
}

static void gather(const fcd_periodic *p, const fcd_real *u, const fcd_real *v, fcd_real *x) {
  const fcd_system *sys = p->sys;
  for (fcd_index k = 0; k < p->nf; k++) {
    x[k] = u[sys->dof_of[k]];
    x[p->nf + k] = v[sys->dof_of[k]];
  }
}

/* One period: N steps of T / N from x into y; with rec, the ranges of every dof's
 * displacement (p->umin, p->umax) and of the free velocities (p->vmin, p->vmax) over the
 * N + 1 states, and x1 (may be NULL) the state after the first step. */
static fcd_status flow(fcd_periodic *p, const fcd_real *x, fcd_real T, fcd_index N, fcd_real *y,
                       int rec, fcd_real *x1) {
  fcd_system *sys = p->sys;
  fcd_index n = sys->n;
  scatter(p, x);
  FCD_TRY(fcd_integrator_set_param(p->it, FCD_PARAM_STEP, T / (fcd_real)N));
  FCD_TRY(fcd_integrator_set_state(p->it, 0.0, p->uw, p->vw));
  for (fcd_index k = 0; k <= N; k++) {
    if (k > 0) FCD_TRY(fcd_integrator_step(p->it));
    if (!rec && k < N) continue;
    FCD_TRY(fcd_integrator_get_state(p->it, NULL, p->uw, p->vw));
    if (rec) {
      for (fcd_index i = 0; i < n; i++) {
        if (k == 0 || p->uw[i] < p->umin[i]) p->umin[i] = p->uw[i];
        if (k == 0 || p->uw[i] > p->umax[i]) p->umax[i] = p->uw[i];
      }
      for (fcd_index j = 0; j < p->nf; j++) {
        fcd_real vj = p->vw[sys->dof_of[j]];
        if (k == 0 || vj < p->vmin[j]) p->vmin[j] = vj;
        if (k == 0 || vj > p->vmax[j]) p->vmax[j] = vj;
      }
      if (k == 1 && x1) gather(p, p->uw, p->vw, x1);
    }
  }
  gather(p, p->uw, p->vw, y);
  return FCD_OK;
}

/* the amplitudes of the recorded period (largest half range of a free displacement, of
 * a free velocity) */
static void amplitudes(const fcd_periodic *p, fcd_real *au, fcd_real *av) {
  *au = *av = 0;
  for (fcd_index j = 0; j < p->nf; j++) {
    fcd_index d = p->sys->dof_of[j];
    *au = fmax(*au, 0.5 * (p->umax[d] - p->umin[d]));
    *av = fmax(*av, 0.5 * (p->vmax[j] - p->vmin[j]));
  }
}

static fcd_real residual(const fcd_periodic *p, const fcd_real *x, const fcd_real *y,
                         fcd_real au, fcd_real av) {
  fcd_real ru = 0, rv = 0;
  for (fcd_index j = 0; j < p->nf; j++) {
    ru = fmax(ru, fabs(y[j] - x[j]));
    rv = fmax(rv, fabs(y[p->nf + j] - x[p->nf + j]));
  }
  return fmax(ru / au, rv / av);
}

/* The Newton iterate's state: x (nx), its image y, T, its amplitudes and residual, the
 * state after its first step (x1, the flow's direction) */
typedef struct {
  fcd_real *x, *y, *x1;
  fcd_real T, au, av, res;
} iterate;

/* evaluates the iterate at (it->x, it->T): the period, its ranges, amplitudes, residual */
static fcd_status evaluate(fcd_periodic *p, fcd_index N, iterate *s) {
  FCD_TRY(flow(p, s->x, s->T, N, s->y, 1, s->x1));
  amplitudes(p, &s->au, &s->av);
  /* an orbit whose displacements move by less than 1e-10 of their size is an equilibrium
   * up to the scheme's round-off */
  fcd_real um = 0;
  for (fcd_index j = 0; j < p->nf; j++) um = fmax(um, fabs(s->x[j]));
  if ((!(s->au > 1e-10 * um) || !(s->av > 0)) && p->forced)
    return fcd__err(p->sys, FCD_E_NOT_CONVERGED, "periodic: the forced orbit has no motion "
                    "(largest displacement range %g of displacements up to %g): the forcing "
                    "does not move the free dofs (zero, or held by sticking contacts), and a "
                    "state at rest has no unique orbit to converge to", 2 * s->au, um);
  if (!(s->au > 1e-10 * um) || !(s->av > 0))
    return fcd__err(p->sys, FCD_E_NOT_CONVERGED, "periodic: the orbit has no motion (largest "
                    "displacement range %g of displacements up to %g, velocity range %g): the guess or the iterate is "
                    "an equilibrium, which is periodic with any period; start from a state "
                    "off the equilibrium", 2 * s->au, um, 2 * s->av);
  s->res = residual(p, s->x, s->y, s->au, s->av);
  return FCD_OK;
}

/* The difference step of unknown j (scaled), its sign chosen so that a displacement does
 * not push a contact into its obstacle */
static fcd_real fd_sign(fcd_periodic *p, const fcd__csr *H, const iterate *s, fcd_index j) {
  if (!H || j >= p->nf) return 1;
  fcd_index dof = p->sys->dof_of[j];
  scatter(p, s->x);
  for (fcd_index c = 0; c < p->cs->n; c++) {
    fcd_index row = c * p->cs->dim;
    for (fcd_index q = H->rowptr[row]; q < H->rowptr[row + 1]; q++)
      if (H->col[q] == dof && H->val[q] != 0) {
        fcd_real pen = penetration(p, H, c, p->uw);
        if (pen + p->fd * s->au * fabs(H->val[q]) > -1e-12 * (1 + fabs(p->cs->c[c].gap)))
          return H->val[q] > 0 ? -1 : 1;
      }
  }
  return 1;
}

/* every contact's friction coefficient set to mu (the continuation's parameter) */
static fcd_status set_mu(fcd_periodic *p, fcd_real mu) {
  for (fcd_index c = 0; p->cs && c < p->cs->n; c++)
    FCD_TRY(fcd_contact_set_set_friction(p->cs, c, mu));
  return FCD_OK;
}

/* The Jacobian of F in the scaled unknowns (x_u / au, x_v / av, T / T0, and with mu set,
 * the friction coefficient itself), into J (nx rows of nx + 1 + with_mu, row-major):
 * column j from one more period with unknown j moved by the difference step. The scales
 * are sc's (au, av); the differences are taken about s. xt, yt: work (nx). */
static fcd_status jacobian_at(fcd_periodic *p, fcd_index N, fcd_real T0, const iterate *s,
                              const iterate *sc, int with_mu, fcd_real mu, fcd_real *J,
                              fcd_real *xt, fcd_real *yt, fcd_index *evals) {
  fcd_index nx = p->nx, nf = p->nf, stride = nx + 1 + (with_mu != 0);
  const fcd__csr *H = NULL;
  if (p->cs && p->cs->n > 0) FCD_TRY(fcd__contact_set_operator(p->cs, &H));
  for (fcd_index j = 0; j < stride; j++) {
    memcpy(xt, s->x, (size_t)nx * sizeof *xt);
    if (j == nx && p->forced) { /* the period is the forcing's: no T column */
      for (fcd_index i = 0; i < nx; i++) J[i * stride + j] = 0;
      continue;
    }
    fcd_real T = s->T, dz = p->fd * (j < nx ? fd_sign(p, H, s, j) : 1), dmu = 0;
    if (j < nx) xt[j] += dz * (j < nf ? sc->au : sc->av);
    else if (j == nx) T += dz * T0;
    else dmu = dz = p->fd * fmax(mu, 0.1);
    if (dmu != 0) FCD_TRY(set_mu(p, mu + dmu));
    fcd_status st = flow(p, xt, T, N, yt, 0, NULL);
    if (dmu != 0) FCD_TRY(set_mu(p, mu));
    if (st != FCD_OK) return st;
    (*evals)++;
    for (fcd_index i = 0; i < nx; i++)
      J[i * stride + j] = (yt[i] - s->y[i]) / (dz * (i < nf ? sc->au : sc->av));
  }
  return FCD_OK;
}

static fcd_status jacobian(fcd_periodic *p, fcd_index N, fcd_real T0, const iterate *s,
                           fcd_real *J, fcd_real *xt, fcd_real *yt, fcd_index *evals) {
  return jacobian_at(p, N, T0, s, s, 0, 0, J, xt, yt, evals);
}

/* The Newton correction (scaled) from J: [J_x - I, J_T; c', 0] dz = [-r; 0], c the flow's
 * direction at the iterate. A: (nx + 1)^2 work; dz: nx + 1. */
static fcd_status newton_step(fcd_periodic *p, const iterate *s, const fcd_real *J, fcd_real *A,
                              fcd_real *dz) {
  fcd_index nx = p->nx, nf = p->nf, m = nx + 1;
  fcd_real cn = 0;
  for (fcd_index i = 0; i < nx; i++) {
    fcd_real sc = i < nf ? s->au : s->av;
    for (fcd_index j = 0; j < m; j++) A[i * m + j] = J[i * m + j] - (i == j ? 1 : 0);
    dz[i] = -(s->y[i] - s->x[i]) / sc;
    A[nx * m + i] = p->forced ? 0 : (s->x1[i] - s->x[i]) / sc;
    cn += A[nx * m + i] * A[nx * m + i];
  }
  if (p->forced) {
    /* T is the forcing's: the last row and column are the identity's. The correction of
     * least norm: a contact that sticks holds wherever it stuck, so a stuck friction
     * damper's orbits form a family (a multiplier 1, Phi - I singular along it) whose
     * members are all answers; the differences leave such a direction at about the
     * step's round-off, far below 1e-9 of the largest singular value */
    A[nx * m + nx] = 1;
    dz[nx] = 0;
    if (fcd__la_lstsq(m, A, dz, 1e-9, NULL) != 0)
      return fcd__err(p->sys, FCD_E_BACKEND, "periodic: LAPACK's least-squares solve of the "
                      "Newton system Phi - I failed");
    return FCD_OK;
  }
  if (!(cn > 0))
    return fcd__err(p->sys, FCD_E_NOT_CONVERGED, "periodic: the flow does not move the "
                    "iterate in its first step, so no phase condition can be set");
  cn = sqrt(cn);
  for (fcd_index i = 0; i < nx; i++) A[nx * m + i] /= cn;
  A[nx * m + nx] = 0;
  dz[nx] = 0;
  if (fcd__la_gesv(m, A, dz) != 0)
    return fcd__err(p->sys, FCD_E_SINGULAR, "periodic: the Newton matrix [Phi - I, dF/dT; c', "
                    "0] is singular at T = %.10g (a multiplier 1 besides the phase's: a "
                    "fold or a family of orbits)", s->T);
  return FCD_OK;
}

/* sorts the first cnt multipliers by modulus, largest first, and gives the info's figures
 * and verdict from them. res: NULL when they are the monodromy's exact eigenvalues (the
 * dense Jacobian), else each Ritz value's residual estimate |M y - theta y| (Arnoldi's,
 * for a unit y), sorted along with them. */
static void verdict(fcd_periodic *p, fcd_index cnt, fcd_real *res) {
  for (fcd_index i = 1; i < cnt; i++) { /* insertion sort (cnt is small) */
    fcd_real r = p->mre[i], im = p->mim[i], a = hypot(r, im), e = res ? res[i] : 0;
    fcd_index k = i;
    while (k > 0 && hypot(p->mre[k - 1], p->mim[k - 1]) < a) {
      p->mre[k] = p->mre[k - 1];
      p->mim[k] = p->mim[k - 1];
      if (res) res[k] = res[k - 1];
      k--;
    }
    p->mre[k] = r;
    p->mim[k] = im;
    if (res) res[k] = e;
  }
  /* a forced orbit has no phase freedom, so no trivial multiplier */
  fcd_index triv = p->forced ? -1 : 0;
  for (fcd_index i = 1; i < cnt && triv >= 0; i++)
    if (hypot(p->mre[i] - 1, p->mim[i]) < hypot(p->mre[triv] - 1, p->mim[triv])) triv = i;
  /* hi and lo: the largest modulus a multiplier may have and the largest one certainly
   * has, given the Ritz values' residuals (a Ritz value lies within its residual of an
   * eigenvalue of a normal matrix). A model of many weakly damped modes crowds its
   * multipliers near the unit circle, where forty Arnoldi steps converge none of them:
   * on the reduced brake (Rayleigh alpha 7.5 s^-1) the largest Ritz value was 0.98
   * while its disc's low modes decay by some 0.998 a period. */
  fcd_real mx = 0, hi = 0, lo = 0;
  for (fcd_index i = 0; i < cnt; i++)
    if (i != triv) {
      fcd_real a = hypot(p->mre[i], p->mim[i]), e = res ? res[i] : 0;
      mx = fmax(mx, a);
      hi = fmax(hi, a + e);
      lo = fmax(lo, a - e);
    }
  p->info.multipliers = cnt;
  p->info.max_multiplier = mx;
  p->info.trivial_error = triv < 0 ? 0 : hypot(p->mre[triv] - 1, p->mim[triv]);
  fcd_real tol = triv < 0 ? 10 * p->fd : fmax(10 * p->info.trivial_error, 10 * p->fd);
  /* A trivial multiplier far from 1 means the differences did not see one smooth piece
   * of the flow (the orbit at a kink of the step map: a grazing contact, a transition at
   * a step's end): no verdict then. Otherwise a multiplier within ten times the trivial
   * one's error of the unit circle is not called unstable: the differences cannot tell
   * it from 1. Ritz values that straddle the circle within their residuals leave it
   * open too. */
  if (triv >= 0 && p->info.trivial_error > 1e-2) p->info.stable = -1;
  else if (lo > 1 + tol) p->info.stable = 0;
  else if (hi <= 1 + tol) p->info.stable = 1;
  else p->info.stable = -1;
}

static fcd_status multipliers_alloc(fcd_periodic *p) {
  fcd_index nx = p->nx;
  if (!p->mre) p->mre = fcd__malloc_array((size_t)nx, sizeof *p->mre);
  if (!p->mim) p->mim = fcd__malloc_array((size_t)nx, sizeof *p->mim);
  if (!p->mre || !p->mim)
    return fcd__err(p->sys, FCD_E_NOMEM, "out of memory for %lld Floquet multipliers",
                    (long long)nx);
  return FCD_OK;
}

/* Floquet multipliers from the monodromy block of J (the scaled state columns), sorted
 * by modulus, and the info's verdict */
static fcd_status multipliers(fcd_periodic *p, const fcd_real *J, fcd_index m, fcd_real *A) {
  fcd_index nx = p->nx;
  FCD_TRY(multipliers_alloc(p));
  for (fcd_index i = 0; i < nx; i++)
    for (fcd_index j = 0; j < nx; j++) A[i * nx + j] = J[i * m + j];
  if (fcd__la_geev_values(nx, A, p->mre, p->mim) != 0)
    return fcd__err(p->sys, FCD_E_BACKEND, "periodic: LAPACK's eigenvalue solve of the "
                    "monodromy matrix failed");
  verdict(p, nx, NULL);
  return FCD_OK;
}

/* the contacts' common friction coefficient, NaN when they differ or there are none */
static fcd_real common_mu(const fcd_periodic *p) {
  if (!p->cs || p->cs->n == 0) return NAN;
  for (fcd_index c = 1; c < p->cs->n; c++)
    if (p->cs->c[c].mu != p->cs->c[0].mu) return NAN;
  return p->cs->c[0].mu;
}

/* keeps the iterate as the solver's result (best so far) */
static void keep(fcd_periodic *p, const iterate *s, fcd_index N) {
  scatter(p, s->x);
  memcpy(p->u0, p->uw, (size_t)p->sys->n * sizeof *p->u0);
  memcpy(p->v0, p->vw, (size_t)p->sys->n * sizeof *p->v0);
  p->info.period = s->T;
  p->info.steps = N;
  p->info.residual = s->res;
  p->info.amplitude_u = s->au;
  p->info.amplitude_v = s->av;
  p->info.mu = common_mu(p);
  p->have = 1;
}

typedef struct {
  fcd_real *x, *y, *x1, *xn, *yn, *x1n, *J, *A, *dz, *xt, *yt;
} shoot_work;

static void work_free(shoot_work *w) {
  fcd_real **a[] = {&w->x, &w->y, &w->x1, &w->xn, &w->yn, &w->x1n, &w->J, &w->A, &w->dz,
                    &w->xt, &w->yt};
  for (size_t i = 0; i < sizeof a / sizeof *a; i++) {
    fcd__free(*a[i]);
    *a[i] = NULL;
  }
}

static fcd_status work_alloc(fcd_periodic *p, shoot_work *w, int dense) {
  size_t nx = (size_t)p->nx, m = nx + 1;
  memset(w, 0, sizeof *w);
  w->x = fcd__malloc_array(m, sizeof(fcd_real));
  w->y = fcd__malloc_array(m, sizeof(fcd_real));
  w->x1 = fcd__malloc_array(m, sizeof(fcd_real));
  w->xn = fcd__malloc_array(m, sizeof(fcd_real));
  w->yn = fcd__malloc_array(m, sizeof(fcd_real));
  w->x1n = fcd__malloc_array(m, sizeof(fcd_real));
  w->dz = fcd__malloc_array(m, sizeof(fcd_real));
  w->xt = fcd__malloc_array(m, sizeof(fcd_real));
  w->yt = fcd__malloc_array(m, sizeof(fcd_real));
  if (dense) {
    w->J = m <= SIZE_MAX / sizeof(fcd_real) / m ? fcd__malloc_array(m * m, sizeof(fcd_real))
                                                 : NULL;
    w->A = w->J ? fcd__malloc_array(m * m, sizeof(fcd_real)) : NULL;
  }
  p->vmin = fcd__malloc_array((size_t)p->nf + 1, sizeof *p->vmin);
  p->vmax = fcd__malloc_array((size_t)p->nf + 1, sizeof *p->vmax);
  if (!w->x || !w->y || !w->x1 || !w->xn || !w->yn || !w->x1n || !w->dz || !w->xt ||
      !w->yt || (dense && (!w->J || !w->A)) || !p->vmin || !p->vmax) {
    work_free(w);
    return fcd__err(p->sys, FCD_E_NOMEM, "out of memory for shooting on %lld unknowns "
                    "(a dense Newton matrix of %lld^2)", (long long)m, (long long)m);
  }
  return FCD_OK;
}

/* Tries the correction dz (scaled) from cur with lengths 1, 1/2, ..., 1/32: the first that
 * lowers the residual becomes cur (its arrays swapped with nxt's). *moved: whether one did. */
static fcd_status line_search(fcd_periodic *p, fcd_index N, fcd_real T0, const fcd_real *dz,
                              iterate *cur, iterate *nxt, int *moved, fcd_index *evals) {
  fcd_index nx = p->nx, nf = p->nf;
  *moved = 0;
  fcd_status last = FCD_OK;
  for (int k = 0; k < 6; k++) {
    fcd_real a = ldexp(1.0, -k);
    nxt->T = cur->T + a * dz[nx] * T0;
    if (!(nxt->T > 0)) continue;
    for (fcd_index i = 0; i < nx; i++) nxt->x[i] = cur->x[i] + a * dz[i] * (i < nf ? cur->au : cur->av);
    scatter(p, nxt->x);
    FCD_TRY(admissible(p, p->uw));
    gather(p, p->uw, p->vw, nxt->x);
    last = evaluate(p, N, nxt);
    (*evals)++;
    if (last != FCD_OK) {
      if (last == FCD_E_NOMEM || last == FCD_E_INVALID_ARG) return last;
      continue; /* a step that fails (a contact solve) or a collapse: a shorter step */
    }
    if (nxt->res < cur->res) {
      iterate t = *cur;
      *cur = *nxt;
      *nxt = t;
      *moved = 1;
      return FCD_OK;
    }
  }
  return FCD_OK;
}

/* ---- Newton-Krylov (FCD_PERIODIC_JACOBIAN_KRYLOV) ----
 * For large state vectors (reduced models: thousands of unknowns) the dense Jacobian's
 * 2 nfree + 1 periods an iteration are too many. GMRES solves the same bordered Newton
 * system with the monodromy applied by directional differences of the period map, one or
 * two periods a Krylov step; the multipliers of largest modulus come from Arnoldi on the
 * same products. Damped high modes give multipliers near 0, the operator's eigenvalues
 * cluster at -1, and GMRES needs about as many steps as there are multipliers away from
 * 0; the products already made (prec_setup) take those out of the later solves. */
typedef struct {
  fcd_index m, kmax;
  fcd_real *V, *H, *cs, *sn, *g; /* basis (kmax + 1) x m, Hessenberg (kmax + 1) x kmax */
  fcd_real *jt, *c, *d, *w, *xt, *yt;
  signed char *sg; /* per displacement unknown: 0 free, else the sign that opens */
  /* the continuation's system (m = nx + 2): the mu column, the arclength row, the rows'
   * and the state's scale 1 / sqrt(nx); cont = 0 for a solve's (m = nx + 1) */
  int cont;
  fcd_real sq, *jm, *tr;
  /* the preconditioner: every product Phi z is kept (the handle's ring r, across solves
   * and continuations); before a solve the newest of them, orthonormalized (Q, Phi Q),
   * make M = -I + PL PR' the bordered operator with Phi replaced by Phi Q Q' (PL, PR: pr
   * columns of m), PG = (I - PR' PL)^-1 (pr x pr); Rq the products' Gram factor, kp the
   * ones kept, pz a scratch */
  product_ring *r;
  fcd_index pr;
  int prec;
  fcd_real *PL, *PR, *PG, *Rq, *pz;
  fcd_index *kp;
  /* a forced orbit's family (a multiplier at +1, cont only): its direction nv (the Ritz
   * vector, unit, scaled state) when has_nv; fam when the continuation borders with it */
  fcd_real *nv;
  int has_nv, fam;
} krylov_work;

static void krylov_free(krylov_work *k) {
  fcd_real **a[] = {&k->V, &k->H, &k->cs, &k->sn, &k->g, &k->jt, &k->c, &k->d, &k->w,
                    &k->xt, &k->yt, &k->jm, &k->tr, &k->PL, &k->PR,
                    &k->PG, &k->Rq, &k->pz, &k->nv};
  for (size_t i = 0; i < sizeof a / sizeof *a; i++) {
    fcd__free(*a[i]);
    *a[i] = NULL;
  }
  fcd__free(k->sg);
  k->sg = NULL;
  fcd__free(k->kp);
  k->kp = NULL;
}

/* cont: the continuation's system (nx + 2 unknowns) instead of a solve's (nx + 1) */
static fcd_status krylov_alloc(fcd_periodic *p, krylov_work *k, int cont) {
  memset(k, 0, sizeof *k);
  k->cont = cont;
  k->m = p->nx + 1 + (cont != 0);
  k->kmax = p->kmax > p->nmult ? p->kmax : p->nmult;
  if (k->kmax > k->m) k->kmax = k->m;
  size_t m = (size_t)k->m, kk = (size_t)k->kmax + 1;
  k->V = kk <= SIZE_MAX / sizeof(fcd_real) / m ? fcd__malloc_array(kk * m, sizeof(fcd_real)) : NULL;
  k->H = fcd__calloc(kk * kk, sizeof(fcd_real));
  k->cs = fcd__malloc_array(kk, sizeof(fcd_real));
  k->sn = fcd__malloc_array(kk, sizeof(fcd_real));
  k->g = fcd__malloc_array(kk, sizeof(fcd_real));
  k->jt = fcd__malloc_array(m, sizeof(fcd_real));
  k->c = fcd__malloc_array(m, sizeof(fcd_real));
  k->d = fcd__malloc_array(m, sizeof(fcd_real));
  k->w = fcd__malloc_array(m, sizeof(fcd_real));
  k->xt = fcd__malloc_array(m, sizeof(fcd_real));
  k->yt = fcd__malloc_array(m, sizeof(fcd_real));
  k->sg = fcd__calloc(m, 1);
  if (cont) {
    k->jm = fcd__malloc_array(m, sizeof(fcd_real));
    k->tr = fcd__malloc_array(m, sizeof(fcd_real));
    k->nv = fcd__malloc_array(m, sizeof(fcd_real));
  }
  {
    /* the products kept: up to twice the GMRES cap, within 256 MB for the four arrays */
    size_t nx = (size_t)p->nx, rc = 2 * (size_t)p->kmax, cap = ((size_t)1 << 23) / nx;
    if (rc > nx) rc = nx;
    if (rc > cap) rc = cap;
    if (rc < 1) rc = 1;
    size_t nr = rc + 4;
    product_ring *pr = &p->ring;
    if (pr->RZ && (pr->rc != (fcd_index)rc || pr->nx != p->nx)) ring_free(pr);
    if (!pr->RZ) {
      pr->RZ = fcd__malloc_array(rc * nx, sizeof(fcd_real));
      pr->RP = fcd__malloc_array(rc * nx, sizeof(fcd_real));
      pr->rc = (fcd_index)rc;
      pr->nx = p->nx;
      pr->rn = pr->rh = 0;
      if (!pr->RZ || !pr->RP) ring_free(pr);
    }
    k->r = pr;
    k->PL = fcd__malloc_array(nr * m, sizeof(fcd_real));
    k->PR = fcd__malloc_array(nr * m, sizeof(fcd_real));
    k->PG = fcd__malloc_array(nr * nr, sizeof(fcd_real));
    k->Rq = fcd__malloc_array(nr * nr, sizeof(fcd_real));
    k->kp = fcd__malloc_array(nr, sizeof(fcd_index));
    k->pz = fcd__malloc_array(2 * nr + m, sizeof(fcd_real));
  }
  if (!k->V || !k->H || !k->cs || !k->sn || !k->g || !k->jt || !k->c || !k->d || !k->w ||
      !k->xt || !k->yt || !k->sg || !k->r->RZ || !k->PL || !k->PR || !k->PG ||
      !k->Rq || !k->kp || !k->pz || (cont && (!k->jm || !k->tr || !k->nv))) {
    krylov_free(k);
    return fcd__err(p->sys, FCD_E_NOMEM, "out of memory for a Krylov basis of %lld vectors "
                    "of %lld", (long long)kk, (long long)m);
  }
  return FCD_OK;
}

/* the opening sign of each displacement unknown at s (fd_sign's, 0 where no contact near
 * closing involves it) */
static fcd_status opening_signs(fcd_periodic *p, const iterate *s, krylov_work *k) {
  const fcd__csr *H = NULL;
  memset(k->sg, 0, (size_t)k->m);
  if (!p->cs || p->cs->n == 0) return FCD_OK;
  FCD_TRY(fcd__contact_set_operator(p->cs, &H));
  fcd_index nc = p->cs->n, dim = p->cs->dim;
  scatter(p, s->x);
  for (fcd_index c = 0; c < nc; c++) {
    fcd_index row = c * dim;
    fcd_real pen = penetration(p, H, c, p->uw);
    for (fcd_index q = H->rowptr[row]; q < H->rowptr[row + 1]; q++) {
      fcd_index j = p->sys->free_of[H->col[q]];
      if (j < 0 || k->sg[j] != 0 || H->val[q] == 0) continue;
      if (pen + p->fd * s->au * fabs(H->val[q]) > -1e-12 * (1 + fabs(p->cs->c[c].gap)))
        k->sg[j] = H->val[q] > 0 ? -1 : 1;
    }
  }
  return FCD_OK;
}

/* out = Phi z (scaled state, nx), by differences from s: the part of z that would push a
 * closing contact into its obstacle is differenced from the other side (the one-sided
 * derivative of the admissible states, as the dense columns are), so one or two periods */
static fcd_status mono_apply(fcd_periodic *p, fcd_index N, const iterate *s, krylov_work *k,
                             const fcd_real *z, fcd_real *out, fcd_index *evals) {
  fcd_index nx = p->nx, nf = p->nf;
  memset(out, 0, (size_t)nx * sizeof *out);
  for (int pass = 0; pass < 2; pass++) {
    fcd_real nd = 0;
    for (fcd_index i = 0; i < nx; i++) {
      int back = i < nf && k->sg[i] != 0 && z[i] * k->sg[i] < 0;
      k->d[i] = back == pass ? (pass ? -z[i] : z[i]) : 0;
      nd += k->d[i] * k->d[i];
    }
    if (!(nd > 0)) continue;
    nd = sqrt(nd);
    fcd_real e = p->fd / nd;
    for (fcd_index i = 0; i < nx; i++) k->xt[i] = s->x[i] + e * k->d[i] * (i < nf ? s->au : s->av);
    FCD_TRY(flow(p, k->xt, s->T, N, k->yt, 0, NULL));
    (*evals)++;
    for (fcd_index i = 0; i < nx; i++)
      out[i] += (pass ? -1 : 1) * (k->yt[i] - s->y[i]) / (e * (i < nf ? s->au : s->av));
  }
  /* kept for the preconditioner (a map of another N steps a period: the old ones go) */
  product_ring *r = k->r;
  if (r->N != N) r->rn = r->rh = 0;
  r->N = N;
  size_t at = (size_t)r->rh * (size_t)nx;
  memcpy(r->RZ + at, z, (size_t)nx * sizeof *z);
  memcpy(r->RP + at, out, (size_t)nx * sizeof *out);
  r->rh = (r->rh + 1) % r->rc;
  if (r->rn < r->rc) r->rn++;
  return FCD_OK;
}

/* out = [Phi - I, J_T; c', 0] z; the continuation's
 * [Phi - I, sq J_T, sq J_mu; c', 0, 0; t'] z (its state part scaled by sqrt(nx) more) */
static fcd_status bordered_apply(fcd_periodic *p, fcd_index N, const iterate *s,
                                 krylov_work *k, const fcd_real *z, fcd_real *out,
                                 fcd_index *evals) {
  fcd_index nx = p->nx;
  FCD_TRY(mono_apply(p, N, s, k, z, out, evals));
  if (k->cont) {
    fcd_real ph = 0, ar = 0;
    for (fcd_index i = 0; i < nx; i++) {
      out[i] += k->sq * (k->jt[i] * z[nx] + k->jm[i] * z[nx + 1]) - z[i];
      ph += k->c[i] * z[i];
    }
    for (fcd_index j = 0; j < k->m; j++) ar += k->tr[j] * z[j];
    /* forced: c = 0, T the forcing's; on a family its direction instead (fam) */
    out[nx] = p->forced && !k->fam ? z[nx] : ph;
    out[nx + 1] = ar;
    return FCD_OK;
  }
  fcd_real ph = 0;
  for (fcd_index i = 0; i < nx; i++) {
    out[i] += k->jt[i] * z[nx] - z[i];
    ph += k->c[i] * z[i];
  }
  /* forced: T is the forcing's, its row and column the identity's (jt and c are 0) */
  out[nx] = p->forced ? z[nx] : ph;
  return FCD_OK;
}

/* orthogonalizes w (m) against the basis' first j + 1 vectors (modified Gram-Schmidt,
 * twice), the coefficients into column j of H; returns |w| after */
static fcd_real orthogonalize(krylov_work *k, fcd_index m, fcd_index j, fcd_real *w) {
  for (fcd_index i = 0; i <= j; i++) k->H[i * k->kmax + j] = 0;
  for (int rep = 0; rep < 2; rep++)
    for (fcd_index i = 0; i <= j; i++) {
      const fcd_real *v = k->V + (size_t)i * (size_t)m;
      fcd_real h = 0;
      for (fcd_index q = 0; q < m; q++) h += v[q] * w[q];
      for (fcd_index q = 0; q < m; q++) w[q] -= h * v[q];
      k->H[i * k->kmax + j] += h;
    }
  fcd_real nw = 0;
  for (fcd_index q = 0; q < m; q++) nw += w[q] * w[q];
  return sqrt(nw);
}

/* out = M^-1 y = -(y + PL PG^-1 PR' y) (Woodbury on M = -I + PL PR'); out != y */
static void prec_apply(krylov_work *k, const fcd_real *y, fcd_real *out) {
  fcd_index m = k->m, r = k->pr;
  fcd_real *t = k->pz;
  fcd__la_gemv_rm(0, r, m, 1, k->PR, y, 0, t);
  fcd_real *u = k->pz + r;
  fcd__la_gemv_rm(0, r, r, 1, k->PG, t, 0, u);
  for (fcd_index q = 0; q < m; q++) out[q] = -y[q];
  fcd__la_gemv_rm(1, r, m, -1, k->PL, u, 1, out);
}

/* M = -I + PL PR' from the kept products and the border now in k (c, J_T, and the
 * continuation's J_mu and t): the bordered operator with Phi replaced by Phi Q Q', Q an
 * orthonormal basis of the newest products' directions (one nearly in the span of the
 * newer ones is left out: its image, from another iterate, would be amplified). A
 * solve's PL = [Phi Q, J_T, e_T], PR = [Q, e_T, (c; 1)] (a forced one's (0; 2): its T
 * row is the identity's); the continuation's PL = [Phi Q, sq J_T, sq J_mu, e_T, e_mu],
 * PR = [Q, e_T, e_mu, (c; 1; 0), t + e_mu] (states padded with zeros). Left without
 * preconditioner (prec 0) when no product is kept or M is singular. */
static void prec_setup(const fcd_periodic *p, krylov_work *k) {
  fcd_index nx = p->nx, m = k->m, pk = 0;
  size_t M = (size_t)m;
  k->prec = 0;
  /* the newest products first: directions into PR, images into PL (states padded) */
  const product_ring *rg = k->r;
  fcd_index nt = rg->rn;
  for (fcd_index t = 0; t < nt; t++) {
    fcd_index at = (rg->rh - 1 - t + 2 * rg->rc) % rg->rc;
    fcd_real *q = k->PR + (size_t)t * M, *f = k->PL + (size_t)t * M;
    memcpy(q, rg->RZ + (size_t)at * (size_t)nx, (size_t)nx * sizeof *q);
    memcpy(f, rg->RP + (size_t)at * (size_t)nx, (size_t)nx * sizeof *f);
    for (fcd_index x = nx; x < m; x++) q[x] = f[x] = 0;
  }
  if (nt == 0) return;
  /* Z = Q R by the Cholesky factor of the Gram matrix, in that order, a direction whose
   * part outside the newer ones' span is below 5 % of its length left out; then
   * Q = Z R^-1 and Phi Q = (Phi Z) R^-1 (Q need not be orthonormal to round-off: M is
   * only a preconditioner) */
  fcd_real *Gm = k->PG, *R = k->Rq, *c = k->pz;
  if (fcd__la_gemm_tn(nt, nt, m, k->PR, k->PR, Gm) != 0) return;
  for (fcd_index j = 0; j < nt; j++) {
    fcd_real gjj = Gm[j + j * nt], d = gjj;
    if (!(gjj > 0)) continue;
    for (fcd_index i = 0; i < pk; i++) {
      fcd_real t = Gm[k->kp[i] + j * nt];
      for (fcd_index l = 0; l < i; l++) t -= R[l + i * nt] * c[l];
      c[i] = t / R[i + i * nt];
      d -= c[i] * c[i];
    }
    if (!(d > 2.5e-3 * gjj)) continue;
    for (fcd_index i = 0; i < pk; i++) R[i + pk * nt] = c[i];
    R[pk + pk * nt] = sqrt(d);
    k->kp[pk++] = j;
  }
  for (fcd_index i = 0; i < pk; i++) {
    if (k->kp[i] != i) { /* kp[i] >= i: forward copies do not overwrite a later source */
      memcpy(k->PR + (size_t)i * M, k->PR + (size_t)k->kp[i] * M, M * sizeof *k->PR);
      memcpy(k->PL + (size_t)i * M, k->PL + (size_t)k->kp[i] * M, M * sizeof *k->PL);
    }
    for (fcd_index l = 0; l <= i; l++) R[l + i * pk] = R[l + i * nt]; /* to leading pk */
  }
  if (pk == 0 || fcd__la_right_upper_solve_cm(m, pk, R, k->PR) != 0 ||
      fcd__la_right_upper_solve_cm(m, pk, R, k->PL) != 0)
    return;
  fcd_index r = pk + (k->cont ? 4 : 2);
  k->pr = r;
  fcd_real *l = k->PL + (size_t)pk * M, *rr = k->PR + (size_t)pk * M;
  memset(l, 0, (size_t)(r - pk) * M * sizeof *l);
  memset(rr, 0, (size_t)(r - pk) * M * sizeof *rr);
  if (k->cont) {
    for (fcd_index x = 0; x < nx; x++) {
      l[x] = k->sq * k->jt[x];
      l[M + x] = k->sq * k->jm[x];
      rr[2 * M + x] = k->c[x];
    }
    rr[nx] = 1;               /* e_T */
    rr[M + nx + 1] = 1;       /* e_mu */
    l[2 * M + nx] = 1;        /* e_T against (c; 1; 0), or (0; 2; 0) */
    rr[2 * M + nx] = p->forced && !k->fam ? 2 : 1;
    l[3 * M + nx + 1] = 1;    /* e_mu against t + e_mu */
    for (fcd_index x = 0; x < m; x++) rr[3 * M + x] = k->tr[x] + (x == nx + 1);
  } else {
    for (fcd_index x = 0; x < nx; x++) {
      l[x] = k->jt[x];
      rr[M + x] = k->c[x];
    }
    rr[nx] = 1;               /* e_T */
    l[M + nx] = 1;            /* e_T against (c; 1), or (0; 2) */
    rr[M + nx] = p->forced ? 2 : 1;
  }
  /* PG = (I - PR' PL)^-1: PR' PL by columns of m is column-major's A^T B */
  fcd_real *G = k->PG;
  if (fcd__la_gemm_tn(r, r, m, k->PR, k->PL, G) != 0) return;
  for (fcd_index a = 0; a < r; a++) /* G holds C(a, b) at a + b r: to I - C row-major */
    for (fcd_index b = a; b < r; b++) {
      fcd_real cab = G[a + b * r], cba = G[b + a * r];
      G[a * r + b] = (a == b) - cab;
      G[b * r + a] = (a == b) - cba;
    }
  if (fcd__la_inverse(r, G) != 0) return;
  k->prec = 1;
}

/* GMRES on the bordered system from zero: dz with |b - B dz| <= eta |b| or the basis cap */
static fcd_status gmres(fcd_periodic *p, fcd_index N, const iterate *s, krylov_work *k,
                        const fcd_real *b, fcd_real eta, fcd_real *dz, fcd_index *evals) {
  fcd_index m = k->m, kmax = p->kmax < m ? p->kmax : m, j = 0;
  fcd_real beta = 0;
  for (fcd_index q = 0; q < m; q++) beta += b[q] * b[q];
  beta = sqrt(beta);
  memset(dz, 0, (size_t)m * sizeof *dz);
  if (!(beta > 0)) return FCD_OK;
  for (fcd_index q = 0; q < m; q++) k->V[q] = b[q] / beta;
  memset(k->g, 0, (size_t)(kmax + 1) * sizeof *k->g);
  k->g[0] = beta;
  while (j < kmax) {
    fcd_real *w = k->V + (size_t)(j + 1) * (size_t)m, *vj = k->V + (size_t)j * (size_t)m;
    if (k->prec) { /* right preconditioning: the residual is the system's own */
      prec_apply(k, vj, dz);
      vj = dz;
    }
    FCD_TRY(bordered_apply(p, N, s, k, vj, w, evals));
    fcd_real hn = orthogonalize(k, m, j, w), *col = k->H;
    fcd_index ld = k->kmax;
    for (fcd_index i = 0; i < j; i++) { /* the previous rotations on column j */
      fcd_real a = col[i * ld + j], c2 = col[(i + 1) * ld + j];
      col[i * ld + j] = k->cs[i] * a + k->sn[i] * c2;
      col[(i + 1) * ld + j] = -k->sn[i] * a + k->cs[i] * c2;
    }
    fcd_real a = col[j * ld + j], r = hypot(a, hn);
    k->cs[j] = r > 0 ? a / r : 1;
    k->sn[j] = r > 0 ? hn / r : 0;
    col[j * ld + j] = r;
    k->g[j + 1] = -k->sn[j] * k->g[j];
    k->g[j] *= k->cs[j];
    j++;
    if (!(hn > 1e-14 * beta) || fabs(k->g[j]) <= eta * beta) break;
    for (fcd_index q = 0; q < m; q++) w[q] /= hn;
  }
  fcd_index ld = k->kmax;
  for (fcd_index i = j - 1; i >= 0; i--) { /* R y = g, y into g */
    fcd_real t = k->g[i];
    for (fcd_index q = i + 1; q < j; q++) t -= k->H[i * ld + q] * k->g[q];
    if (k->H[i * ld + i] == 0)
      return fcd__err(p->sys, FCD_E_SINGULAR, "periodic: the Krylov solve of the Newton "
                      "system broke down at T = %.10g (a multiplier 1 besides the phase's: "
                      "a fold or a family of orbits)", s->T);
    k->g[i] = t / k->H[i * ld + i];
  }
  memset(dz, 0, (size_t)m * sizeof *dz);
  for (fcd_index i = 0; i < j; i++)
    for (fcd_index q = 0; q < m; q++) dz[q] += k->g[i] * k->V[(size_t)i * (size_t)m + q];
  if (k->prec) {
    memcpy(k->w, dz, (size_t)m * sizeof *dz);
    prec_apply(k, k->w, dz);
  }
  return FCD_OK;
}

/* Inexact Newton's relative accuracy for GMRES at the residual res: of the order of res,
 * no finer than the differences can give, and no finer than this iteration needs to reach
 * the tolerance (with a margin of 5: on the reduced brake the residual after such a solve
 * was the linear model's to a few per cent). Solved to 1e-6, a last corrector from 5.6e-9
 * took 89 GMRES steps, 181 periods, to end at 6e-15 under a tolerance of 1e-9. */
static fcd_real forcing_term(const fcd_periodic *p, fcd_real res) {
  fcd_real eta = fmin(1e-3, fmax(1e-6, res));
  return fmax(eta, fmin(0.1, 0.2 * p->tol / res));
}

/* the Newton correction (scaled) by GMRES: the T column and the phase row first */
static fcd_status krylov_step(fcd_periodic *p, fcd_index N, fcd_real T0, const iterate *s,
                              krylov_work *k, fcd_real *dz, fcd_index *evals) {
  fcd_index nx = p->nx, nf = p->nf;
  if (p->forced) {
    for (fcd_index i = 0; i < nx; i++) {
      k->jt[i] = k->c[i] = 0;
      k->w[i] = -(s->y[i] - s->x[i]) / (i < nf ? s->au : s->av);
    }
    k->w[nx] = 0;
    prec_setup(p, k);
    FCD_TRY(opening_signs(p, s, k));
    FCD_TRY(gmres(p, N, s, k, k->w, forcing_term(p, s->res), dz, evals));
    dz[nx] = 0;
    return FCD_OK;
  }
  memcpy(k->xt, s->x, (size_t)nx * sizeof *k->xt);
  FCD_TRY(flow(p, k->xt, s->T + p->fd * T0, N, k->yt, 0, NULL));
  (*evals)++;
  fcd_real cn = 0;
  for (fcd_index i = 0; i < nx; i++) {
    fcd_real sc = i < nf ? s->au : s->av;
    k->jt[i] = (k->yt[i] - s->y[i]) / (p->fd * sc);
    k->c[i] = (s->x1[i] - s->x[i]) / sc;
    cn += k->c[i] * k->c[i];
    k->w[i] = -(s->y[i] - s->x[i]) / sc;
  }
  if (!(cn > 0))
    return fcd__err(p->sys, FCD_E_NOT_CONVERGED, "periodic: the flow does not move the "
                    "iterate in its first step, so no phase condition can be set");
  for (fcd_index i = 0; i < nx; i++) k->c[i] /= sqrt(cn);
  k->w[nx] = 0;
  prec_setup(p, k);
  FCD_TRY(opening_signs(p, s, k));
  /* k->w holds b: gmres copies it into its first basis vector before any product */
  return gmres(p, N, s, k, k->w, forcing_term(p, s->res), dz, evals);
}

/* A forced orbit with a multiplier at +1 (within 10 fd: a family of orbits, a stuck
 * damper stuck anywhere) gets its direction, the Ritz vector of the Arnoldi basis' j
 * vectors, into k->nv (k->has_nv): re, im the Hessenberg's eigenvalues, vr its right
 * eigenvectors (row-major j x j, LAPACK's layout) */
static void family_direction(fcd_periodic *p, krylov_work *k, fcd_index j, const fcd_real *re,
                             const fcd_real *im, const fcd_real *vr) {
  fcd_index nx = p->nx, at = -1;
  k->has_nv = 0;
  for (fcd_index i = 0; i < j; i++)
    if (im[i] == 0 && fabs(re[i] - 1) <= 10 * p->fd &&
        (at < 0 || fabs(re[i] - 1) < fabs(re[at] - 1)))
      at = i;
  if (at < 0) return;
  fcd_real nn = 0;
  memset(k->nv, 0, (size_t)nx * sizeof *k->nv);
  for (fcd_index q = 0; q < j; q++) {
    const fcd_real *v = k->V + (size_t)q * (size_t)nx, y = vr[q * j + at];
    for (fcd_index i = 0; i < nx; i++) k->nv[i] += y * v[i];
  }
  for (fcd_index i = 0; i < nx; i++) nn += k->nv[i] * k->nv[i];
  if (nn > 0) {
    for (fcd_index i = 0; i < nx; i++) k->nv[i] /= sqrt(nn);
    k->has_nv = 1;
  }
}

/* The multipliers of largest modulus by Arnoldi on the monodromy (scaled state), from a
 * fixed start vector: Ritz values of p->nmult steps (fewer when the space closes), each
 * with its residual estimate for the verdict */
static fcd_status krylov_multipliers(fcd_periodic *p, fcd_index N, const iterate *s,
                                     krylov_work *k, fcd_index *evals) {
  fcd_index nx = p->nx, ma = p->nmult < nx ? p->nmult : nx, ld = k->kmax, j = 0;
  if (ma > k->kmax) ma = k->kmax;
  FCD_TRY(multipliers_alloc(p));
  FCD_TRY(opening_signs(p, s, k));
  fcd_real nv = 0;
  for (fcd_index i = 0; i < nx; i++) {
    k->V[i] = 1 + 0.5 * sin((fcd_real)(i + 1));
    nv += k->V[i] * k->V[i];
  }
  for (fcd_index i = 0; i < nx; i++) k->V[i] /= sqrt(nv);
  for (; j < ma; j++) {
    fcd_real *w = k->V + (size_t)(j + 1) * (size_t)nx;
    FCD_TRY(mono_apply(p, N, s, k, k->V + (size_t)j * (size_t)nx, w, evals));
    fcd_real hn = orthogonalize(k, nx, j, w);
    k->H[(j + 1) * ld + j] = hn;
    if (!(hn > 1e-12)) { /* an invariant subspace: its eigenvalues are exact */
      j++;
      break;
    }
    for (fcd_index q = 0; q < nx; q++) w[q] /= hn;
  }
  if (j > ma) j = ma;
  /* the j x j Hessenberg, row-major, its eigenvectors y and the Ritz residuals
   * h(j+1,j) |y_j| (0 when the Krylov space is invariant) */
  size_t jj = (size_t)j * (size_t)j;
  fcd_real *A = fcd__malloc_array(2 * jj + (size_t)j + 1, sizeof *A);
  if (!A) return fcd__err(p->sys, FCD_E_NOMEM, "out of memory for the Arnoldi matrix");
  fcd_real *vr = A + jj, *res = vr + jj;
  fcd_real hlast = j > 0 && j == ma ? k->H[j * ld + j - 1] : 0;
  for (fcd_index r = 0; r < j; r++)
    for (fcd_index q = 0; q < j; q++) A[r * j + q] = k->H[r * ld + q];
  if (fcd__la_geev_right(j, A, p->mre, p->mim, vr) != 0) {
    fcd__free(A);
    return fcd__err(p->sys, FCD_E_BACKEND, "periodic: LAPACK's eigenvalue solve of the "
                    "Arnoldi matrix failed");
  }
  for (fcd_index i = 0; i < j; i++) {
    /* a complex pair's columns i and i+1 hold the real and imaginary parts (unit norm) */
    fcd_index c = p->mim[i] < 0 && i > 0 ? i - 1 : i;
    fcd_real yl = p->mim[i] != 0 && c + 1 < j
                      ? hypot(vr[(j - 1) * j + c], vr[(j - 1) * j + c + 1])
                      : fabs(vr[(j - 1) * j + c]);
    res[i] = fabs(hlast) * yl;
  }
  if (p->forced && k->nv) family_direction(p, k, j, p->mre, p->mim, vr);
  verdict(p, j, res);
  fcd__free(A);
  return FCD_OK;
}

static fcd_status shoot(fcd_periodic *p, fcd_index N, fcd_real T0, shoot_work *w,
                        krylov_work *kw) {
  fcd_system *sys = p->sys;
  iterate cur = {w->x, w->y, w->x1, T0, 0, 0, 0}, nxt = {w->xn, w->yn, w->x1n, T0, 0, 0, 0};
  gather(p, p->u0, p->v0, cur.x);
  fcd_status st = evaluate(p, N, &cur);
  p->info.evaluations = 1;
  if (st != FCD_OK) return st;
  keep(p, &cur, N);
  for (;;) {
    if (cur.res <= p->tol) break;
    if (p->info.iterations >= p->maxit)
      return fcd__err(sys, FCD_E_NOT_CONVERGED, "periodic: %lld Newton iterations left the "
                      "residual at %.3e (bound %.3e); the best iterate (T = %.10g) is kept",
                      (long long)p->info.iterations, cur.res, p->tol, cur.T);
    if (kw) {
      FCD_TRY(krylov_step(p, N, T0, &cur, kw, w->dz, &p->info.evaluations));
    } else {
      FCD_TRY(jacobian(p, N, T0, &cur, w->J, w->xt, w->yt, &p->info.evaluations));
      FCD_TRY(newton_step(p, &cur, w->J, w->A, w->dz));
    }
    int moved = 0;
    st = line_search(p, N, T0, w->dz, &cur, &nxt, &moved, &p->info.evaluations);
    if (st != FCD_OK) return st;
    p->info.iterations++;
    if (!moved)
      return fcd__err(sys, FCD_E_NOT_CONVERGED, "periodic: Newton's correction does not lower "
                      "the residual %.3e even at 1/32 of its length (%s); the best iterate "
                      "(T = %.10g) is kept", cur.res,
                      p->scheme == FCD_SCHEME_MODIFIED_THETA
                          ? "a nonsmooth point of the flow, or a difference step too large "
                            "or too small for it"
                          : "this scheme's activation test, the predicted gap closed or "
                            "not, makes its step map jump by about h times the normal "
                            "velocity, so the residual stalls near that size; the modified "
                            "theta scheme, which keeps every contact in its local problem, "
                            "has a continuous map",
                      cur.T);
    keep(p, &cur, N);
  }
  /* the monodromy at the converged orbit itself: one more Jacobian */
  FCD_TRY(evaluate(p, N, &cur));
  p->info.evaluations++;
  keep(p, &cur, N);
  if (kw) {
    FCD_TRY(krylov_multipliers(p, N, &cur, kw, &p->info.evaluations));
  } else {
    FCD_TRY(jacobian(p, N, T0, &cur, w->J, w->xt, w->yt, &p->info.evaluations));
    FCD_TRY(multipliers(p, w->J, p->nx + 1, w->A));
  }
  p->info.converged = 1;
  return FCD_OK;
}

/* shoot() from p->u0, p->v0 with its work allocated here: the dense Jacobian's, or
 * Newton-Krylov's when krylov */
static fcd_status shoot_alloc(fcd_periodic *p, fcd_index N, fcd_real period, int krylov) {
  shoot_work w;
  krylov_work kw;
  FCD_TRY(work_alloc(p, &w, !krylov));
  if (krylov) {
    fcd_status sa = krylov_alloc(p, &kw, 0);
    if (sa != FCD_OK) {
      work_free(&w);
      return sa;
    }
  }
  fcd_status st = shoot(p, N, period, &w, krylov ? &kw : NULL);
  work_free(&w);
  if (krylov) krylov_free(&kw);
  return st;
}

fcd_status fcd_periodic_solve(fcd_periodic *p, const fcd_real *u0, const fcd_real *v0,
                              fcd_real period) {
  CHECK_P(p);
  fcd_system *sys = p->sys;
  if (!u0 || !v0)
    return fcd__err(sys, FCD_E_INVALID_ARG, "periodic_solve: %s is NULL", !u0 ? "u0" : "v0");
  if (!(period > 0) || !isfinite(period))
    return fcd__err(sys, FCD_E_INVALID_ARG, "periodic_solve: the period guess must be > 0 "
                    "and finite, not %g", period);
  if (!(p->h > 0))
    return fcd__err(sys, FCD_E_STATE, "periodic_solve: no step set (FCD_PARAM_STEP)");
  if (p->forced) {
    /* the orbit's period is the forcing's, or a whole multiple of it (a subharmonic) */
    fcd_real Tf = 6.283185307179586476925 / p->omega, k = nearbyint(period / Tf);
    if (!(k >= 1) || fabs(period - k * Tf) > 1e-6 * period || k > 1e6)
      return fcd__err(sys, FCD_E_INVALID_ARG, "periodic_solve: a forced orbit's period is a "
                      "whole multiple of the forcing's 2 pi / omega = %.10g, and %.10g is not",
                      Tf, period);
    period = k * Tf;
  }
  fcd_real steps = nearbyint(period / p->h);
  if (steps > 1e9)
    return fcd__err(sys, FCD_E_INVALID_ARG, "periodic_solve: %.3g steps a period (T = %g, "
                    "h = %g) is beyond reach", steps, period, p->h);
  fcd_index N = steps < 8 ? 8 : (fcd_index)steps;
  /* the guess is checked as the integrator checks a state (finite, no penetration),
   * after guess_admissible has moved a transient's sinking out */
  fcd_real *ug = p->uw;
  memcpy(ug, u0, (size_t)sys->n * sizeof *ug);
  FCD_TRY(guess_admissible(p, ug, v0));
  FCD_TRY(fcd_integrator_set_state(p->it, 0.0, ug, v0));
  clear_result(p);
  memset(&p->info, 0, sizeof p->info);
  p->have = 0;
  p->nf = sys->nfree;
  p->nx = 2 * p->nf;
  if (p->nx == 0)
    return fcd__err(sys, FCD_E_INVALID_ARG, "periodic_solve: every dof is prescribed, nothing "
                    "can oscillate");
  memcpy(p->u0, ug, (size_t)sys->n * sizeof *u0);
  memcpy(p->v0, v0, (size_t)sys->n * sizeof *v0);
  /* the dense differences up to 200 unknowns (201 periods an iteration), GMRES above */
  int krylov = krylov_wanted(p);
  return shoot_alloc(p, N, period, krylov);
}

fcd_status fcd_periodic_get_orbit(const fcd_periodic *p, fcd_real *period, fcd_real *u0,
                                  fcd_real *v0) {
  CHECK_P(p);
  if (!p->have) return fcd__err(p->sys, FCD_E_STATE, "periodic_get_orbit: nothing solved yet");
  if (period) *period = p->info.period;
  if (u0) memcpy(u0, p->u0, (size_t)p->sys->n * sizeof *u0);
  if (v0) memcpy(v0, p->v0, (size_t)p->sys->n * sizeof *v0);
  return FCD_OK;
}

fcd_status fcd_periodic_get_range(const fcd_periodic *p, fcd_real *umin, fcd_real *umax) {
  CHECK_P(p);
  if (!p->have) return fcd__err(p->sys, FCD_E_STATE, "periodic_get_range: nothing solved yet");
  if (umin) memcpy(umin, p->umin, (size_t)p->sys->n * sizeof *umin);
  if (umax) memcpy(umax, p->umax, (size_t)p->sys->n * sizeof *umax);
  return FCD_OK;
}

fcd_status fcd_periodic_get_info(const fcd_periodic *p, fcd_periodic_info *info) {
  CHECK_P(p);
  if (!info) return fcd__err(p->sys, FCD_E_INVALID_ARG, "periodic_get_info: info is NULL");
  if (!p->have) return fcd__err(p->sys, FCD_E_STATE, "periodic_get_info: nothing solved yet");
  *info = p->info;
  return FCD_OK;
}

fcd_status fcd_periodic_get_multipliers(const fcd_periodic *p, fcd_index cap, fcd_real *re,
                                        fcd_real *im, fcd_index *count) {
  CHECK_P(p);
  if (!count || (cap > 0 && (!re || !im)) || cap < 0)
    return fcd__err(p->sys, FCD_E_INVALID_ARG, "periodic_get_multipliers: %s",
                    !count ? "count is NULL" : "re or im is NULL with room asked for");
  if (!p->have || !p->info.converged || !p->mre)
    return fcd__err(p->sys, FCD_E_STATE, "periodic_get_multipliers: no converged orbit");
  *count = p->info.multipliers;
  for (fcd_index i = 0; i < p->info.multipliers && i < cap; i++) {
    re[i] = p->mre[i];
    im[i] = p->mim[i];
  }
  return FCD_OK;
}

/* ---- continuation in the friction coefficient ----
 * The unknowns of a step from the point cur, scaled by cur's figures: xi = (x - x_cur) / s
 * (s = au for displacements, av for velocities), tau = (T - T_cur) / T_cur, m = mu - mu_cur.
 * The predictor is ds t (t the unit tangent); the corrector solves
 *   F(x, T, mu) / s = 0,   c' xi = c' xi_pred,   t' z = ds,
 * c the flow's direction at cur, with cur's Jacobian held (a chord method: one period an
 * iteration instead of nx + 3). */

typedef struct {
  fcd_index N, nx, m2;       /* steps a period, state unknowns, nx + 2 */
  iterate cur, nxt;          /* the last point, the corrector's iterate */
  fcd_real mu;               /* cur's coefficient */
  fcd_real *J, *A, *b, *t, *c, *xt, *yt, *zs;
} branch;

static void branch_free(branch *b) {
  fcd_real **a[] = {&b->cur.x, &b->cur.y, &b->cur.x1, &b->nxt.x, &b->nxt.y, &b->nxt.x1,
                    &b->J, &b->A, &b->b, &b->t, &b->c, &b->xt, &b->yt, &b->zs};
  for (size_t i = 0; i < sizeof a / sizeof *a; i++) {
    fcd__free(*a[i]);
    *a[i] = NULL;
  }
}

static fcd_status branch_alloc(fcd_periodic *p, branch *b) {
  size_t nx = (size_t)p->nx, m2 = nx + 2;
  memset(b, 0, sizeof *b);
  b->nx = p->nx;
  b->m2 = (fcd_index)m2;
  fcd_real **v[] = {&b->cur.x, &b->cur.y, &b->cur.x1, &b->nxt.x, &b->nxt.y, &b->nxt.x1,
                    &b->b, &b->t, &b->c, &b->xt, &b->yt, &b->zs};
  int ok = 1;
  for (size_t i = 0; i < sizeof v / sizeof *v; i++) ok &= (*v[i] = fcd__malloc_array(m2, sizeof(fcd_real))) != NULL;
  b->J = m2 <= SIZE_MAX / sizeof(fcd_real) / m2 ? fcd__malloc_array(m2 * m2, sizeof(fcd_real)) : NULL;
  b->A = b->J ? fcd__malloc_array(m2 * m2, sizeof(fcd_real)) : NULL;
  if (!ok || !b->J || !b->A) {
    branch_free(b);
    return fcd__err(p->sys, FCD_E_NOMEM, "out of memory for the continuation of %lld "
                    "unknowns", (long long)m2);
  }
  return FCD_OK;
}

/* The bordered matrix at cur into b->A: F's rows [J_x - I, J_T, J_mu], the phase row c,
 * and the last row r (the tangent, or e_mu for the first) */
static void bordered(branch *b, const fcd_real *r) {
  fcd_index nx = b->nx, m2 = b->m2;
  for (fcd_index i = 0; i < nx; i++)
    for (fcd_index j = 0; j < m2; j++) b->A[i * m2 + j] = b->J[i * m2 + j] - (i == j ? 1 : 0);
  for (fcd_index j = 0; j < m2; j++) {
    b->A[nx * m2 + j] = j < nx ? b->c[j] : 0;
    b->A[(nx + 1) * m2 + j] = r[j];
  }
}

/* cur's figures for a step: the flow's direction c (scaled, unit), the Jacobian with the
 * mu column, the multipliers, and the unit tangent from [F rows; c; r] t = e_last, its
 * orientation that of r (r in cur's scaling: the previous tangent, or e_mu signed) */
static fcd_status at_point(fcd_periodic *p, branch *b, const fcd_real *r) {
  fcd_index nx = b->nx, nf = p->nf, m2 = b->m2;
  fcd_real cn = 0;
  for (fcd_index i = 0; i < nx; i++) {
    b->c[i] = (b->cur.x1[i] - b->cur.x[i]) / (i < nf ? b->cur.au : b->cur.av);
    cn += b->c[i] * b->c[i];
  }
  if (!(cn > 0))
    return fcd__err(p->sys, FCD_E_NOT_CONVERGED, "continuation: the flow does not move the "
                    "orbit's start in its first step");
  for (fcd_index i = 0; i < nx; i++) b->c[i] /= sqrt(cn);
  FCD_TRY(jacobian_at(p, b->N, b->cur.T, &b->cur, &b->cur, 1, b->mu, b->J, b->xt, b->yt,
                      &p->info.evaluations));
  FCD_TRY(multipliers(p, b->J, m2, b->A));
  bordered(b, r);
  memset(b->t, 0, (size_t)m2 * sizeof *b->t);
  b->t[m2 - 1] = 1;
  if (fcd__la_gesv(m2, b->A, b->t) != 0)
    return fcd__err(p->sys, FCD_E_SINGULAR, "continuation: the bordered Jacobian is singular "
                    "at mu = %.10g (a branch point)", b->mu);
  fcd_real tn = 0, dot = 0;
  for (fcd_index j = 0; j < m2; j++) {
    tn += b->t[j] * b->t[j];
    dot += b->t[j] * r[j];
  }
  tn = sqrt(tn) * (dot < 0 ? -1 : 1);
  for (fcd_index j = 0; j < m2; j++) b->t[j] /= tn;
  return FCD_OK;
}

/* One corrected point at arclength ds from cur into b->nxt (its coefficient *mu): the
 * predictor, then up to ten iterations, chord ones first; from the fourth on, the
 * Jacobian is taken again at the iterate (a kink of the step map between cur and the new
 * point makes cur's Jacobian a poor guide). *iters: those made; FCD_E_NOT_CONVERGED when
 * they do not reach the tolerance (the caller shortens ds). */
static fcd_status corrector(fcd_periodic *p, branch *b, fcd_real ds, fcd_real *mu, int *iters) {
  fcd_index nx = b->nx, nf = p->nf, m2 = b->m2;
  iterate *cur = &b->cur, *z = &b->nxt;
  fcd_real *zs = b->zs; /* the iterate's scaled offset from cur (m2) */
  for (fcd_index j = 0; j < m2; j++) zs[j] = ds * b->t[j];
  for (*iters = 0; *iters <= 10; (*iters)++) {
    for (fcd_index i = 0; i < nx; i++) z->x[i] = cur->x[i] + zs[i] * (i < nf ? cur->au : cur->av);
    z->T = cur->T * (1 + zs[nx]);
    *mu = b->mu + zs[nx + 1];
    if (!(z->T > 0) || !(*mu >= 0) || !isfinite(z->T) || !isfinite(*mu))
      return fcd__err(p->sys, FCD_E_NOT_CONVERGED, "continuation: the step leaves T > 0, "
                      "mu >= 0");
    scatter(p, z->x);
    FCD_TRY(admissible(p, p->uw));
    gather(p, p->uw, p->vw, z->x);
    FCD_TRY(set_mu(p, *mu));
    fcd_status st = evaluate(p, b->N, z);
    p->info.evaluations++;
    if (st != FCD_OK) return st;
    if (z->res <= p->tol) return FCD_OK;
    if (*iters == 10) break;
    if (*iters >= 3)
      FCD_TRY(jacobian_at(p, b->N, cur->T, z, cur, 1, *mu, b->J, b->xt, b->yt,
                          &p->info.evaluations));
    /* the correction: [F rows; c; t] d = [-F / s; c'(xi_pred - xi); t'(z_pred - z)] */
    bordered(b, b->t);
    fcd_real pc = 0, pt = 0;
    for (fcd_index j = 0; j < m2; j++) {
      fcd_real zj = j < nx ? (z->x[j] - cur->x[j]) / (j < nf ? cur->au : cur->av) : zs[j];
      if (j < nx) pc += b->c[j] * (ds * b->t[j] - zj);
      pt += b->t[j] * (ds * b->t[j] - zj);
      zs[j] = zj; /* the projection may have moved x */
    }
    for (fcd_index i = 0; i < nx; i++) b->b[i] = -(z->y[i] - z->x[i]) / (i < nf ? cur->au : cur->av);
    b->b[nx] = pc;
    b->b[nx + 1] = pt;
    if (fcd__la_gesv(m2, b->A, b->b) != 0)
      return fcd__err(p->sys, FCD_E_SINGULAR, "continuation: the corrector's matrix is "
                      "singular near mu = %.10g", *mu);
    for (fcd_index j = 0; j < m2; j++) zs[j] += b->b[j];
  }
  return fcd__err(p->sys, FCD_E_NOT_CONVERGED, "continuation: the corrector left the residual "
                  "at %.3e after 10 iterations near mu = %.10g", z->res, *mu);
}

/* A tangent's mu component below this is a vertical stretch of the branch, not a turn: at
 * a center (a linear piece of the flow, the contact slipping one way, exactly at the
 * threshold of steady sliding) the orbits of every small amplitude share one mu, and the
 * component there is the differences' round-off (1e-9 on Hoffmann's oscillator), which
 * flips sign from point to point; at the folds measured it is 1e-3 or more. */
#define FOLD_TMU 1e-6
/* the trivial multiplier's largest error at which a second one at +1 is told apart */
#define FAMILY_TRIVIAL 1e-4

/* the event at the new point from the previous one's figures; fold: mu turned back */
static int point_event(const fcd_periodic *p, int fold, int pd0, int ns0,
                       int up0, int *pd, int *ns, int *up, int *family) {
  *pd = *ns = *up = *family = 0;
  fcd_real band = fmax(10 * p->info.trivial_error, 10 * p->fd);
  fcd_index triv = 0, cnt = p->info.multipliers; /* nx, or the Ritz values' count */
  for (fcd_index i = 1; i < cnt; i++)
    if (hypot(p->mre[i] - 1, p->mim[i]) < hypot(p->mre[triv] - 1, p->mim[triv])) triv = i;
  for (fcd_index i = 0; i < cnt; i++) {
    /* a second multiplier at +1 to the trivial one's accuracy, when that is good enough to
     * tell: an orbit of a family at this mu (a fold passes +1 once; a family keeps it) */
    if (i != triv && p->info.trivial_error <= FAMILY_TRIVIAL &&
        hypot(p->mre[i] - 1, p->mim[i]) <= band)
      *family = 1;
    if (i == triv || hypot(p->mre[i], p->mim[i]) <= 1 + band) continue;
    if (p->mim[i] != 0) (*ns)++;
    else if (p->mre[i] < 0) (*pd)++;
    else (*up)++;
  }
  if (fold) return FCD_PERIODIC_EVENT_FOLD;
  if (*pd != pd0) return FCD_PERIODIC_EVENT_PERIOD_DOUBLING;
  if (*ns != ns0) return FCD_PERIODIC_EVENT_TORUS;
  if (*up != up0) return FCD_PERIODIC_EVENT_STABILITY;
  return FCD_PERIODIC_EVENT_NONE;
}

/* The branch's figures carried from point to point: mu's direction along it (from the
 * last tangent that was not vertical), the multipliers outside the unit circle by kind,
 * the points in a row that had a second multiplier at +1, the first amplitude */
typedef struct {
  fcd_real sig, au_first;
  int pd, ns, up, nfam;
} walk;

static void walk_start(const fcd_periodic *p, walk *w, fcd_real tmu, fcd_real dir,
                       fcd_real au) {
  int fam = 0;
  (void)point_event(p, 0, 0, 0, 0, &w->pd, &w->ns, &w->up, &fam);
  w->sig = fabs(tmu) > FOLD_TMU ? copysign(1.0, tmu) : dir;
  w->au_first = au;
  w->nfam = 0;
}

/* the new point's event from its tangent's mu component tmu, amplitude au and
 * multipliers. Two points running with a second multiplier at +1, mu still moving: the
 * orbits fill a sheet in (amplitude, mu), the tangent is not defined and mu would wander
 * over it with spurious folds, so the branch ends (FAMILY). A vertical family (a center
 * at one mu, Hoffmann's at its threshold) is a curve, followed on unless vertical_ends. */
static int walk_event(const fcd_periodic *p, walk *w, fcd_real tmu, fcd_real au,
                      int vertical_ends) {
  int pd1, ns1, up1, fam = 0;
  int fold = fabs(tmu) > FOLD_TMU && tmu * w->sig < 0;
  if (fabs(tmu) > FOLD_TMU) w->sig = copysign(1.0, tmu);
  int ev = point_event(p, fold, w->pd, w->ns, w->up, &pd1, &ns1, &up1, &fam);
  w->pd = pd1;
  w->ns = ns1;
  w->up = up1;
  w->nfam = fam ? w->nfam + 1 : 0;
  if (au < 1e-3 * w->au_first) return FCD_PERIODIC_EVENT_COLLAPSE;
  if (w->nfam >= 2 && (vertical_ends || fabs(tmu) > FOLD_TMU)) return FCD_PERIODIC_EVENT_FAMILY;
  return ev;
}

/* Moves cur's start along its orbit to the middle of the longest stretch of steps in which
 * no contact changes status (circularly): the orbit is the same N-cycle of the step map,
 * but a start at an impact or a stick-slip transition sits on a kink of the period map,
 * where the differences and the corrector fail. Along a branch the phase condition lets
 * the start drift; without this it drifted onto the pin's landing at mu = 1.67703. The
 * tangent is carried along: its state part is the k-step map's directional difference
 * along the tangent (state, T and mu moved together). */
/* k steps of T / N at mu from x into y (p->uw, p->vw used) */
static fcd_status steps_from(fcd_periodic *p, const fcd_real *x, fcd_real T, fcd_index N,
                             fcd_real mu, fcd_index k, fcd_real *y) {
  FCD_TRY(set_mu(p, mu));
  scatter(p, x);
  FCD_TRY(fcd_integrator_set_param(p->it, FCD_PARAM_STEP, T / (fcd_real)N));
  FCD_TRY(fcd_integrator_set_state(p->it, 0.0, p->uw, p->vw));
  for (fcd_index s = 0; s < k; s++) FCD_TRY(fcd_integrator_step(p->it));
  FCD_TRY(fcd_integrator_get_state(p->it, NULL, p->uw, p->vw));
  gather(p, p->uw, p->vw, y);
  return FCD_OK;
}

/* the tangent's state part carried k steps along the orbit, into b->t (cur's scaling) */
static fcd_status carry_tangent(fcd_periodic *p, branch *b, fcd_index k, const fcd_real *xk) {
  fcd_index nx = b->nx, nf = p->nf;
  fcd_real eps = p->fd, *xs = b->xt, *ys = b->yt;
  for (fcd_index i = 0; i < nx; i++)
    xs[i] = b->cur.x[i] + eps * b->t[i] * (i < nf ? b->cur.au : b->cur.av);
  fcd_status st = steps_from(p, xs, b->cur.T * (1 + eps * b->t[nx]), b->N,
                             b->mu + eps * b->t[nx + 1], k, ys);
  fcd_status sr = set_mu(p, b->mu);
  if (st != FCD_OK) return st;
  for (fcd_index i = 0; i < nx; i++)
    b->t[i] = (ys[i] - xk[i]) / (eps * (i < nf ? b->cur.au : b->cur.av));
  fcd_real tn = 0;
  for (fcd_index j = 0; j < b->m2; j++) tn += b->t[j] * b->t[j];
  for (fcd_index j = 0; j < b->m2; j++) b->t[j] /= sqrt(tn);
  return sr;
}

/* chg[k] (N + 1 entries, k < N used): a contact changed status in step k + 1 of the orbit
 * from x (T, N steps; the first step's against the last's, from a second lap's first
 * step), or a slipping contact's tangential reaction turned by more than a right angle in
 * it (a slip reversal without a stuck step between); *count the steps with a change. One
 * period and a step. */
static fcd_status status_changes(fcd_periodic *p, const fcd_real *x, fcd_real T, fcd_index N,
                                 unsigned char *chg, fcd_index *count) {
  fcd_index nc = p->cs ? p->cs->n : 0, dim = p->cs ? p->cs->dim : 0;
  *count = 0;
  if (nc == 0) return FCD_OK;
  memset(chg, 0, (size_t)N + 1);
  int *s0 = fcd__malloc_array((size_t)nc, sizeof *s0), *s1 = fcd__malloc_array((size_t)nc, sizeof *s1);
  fcd_real *r0 = fcd__malloc_array((size_t)(nc * dim), sizeof *r0);
  fcd_real *r1 = fcd__malloc_array((size_t)(nc * dim), sizeof *r1);
  fcd_status st = s0 && s1 && r0 && r1
                      ? FCD_OK
                      : fcd__err(p->sys, FCD_E_NOMEM, "out of memory following an orbit's "
                                 "contact statuses");
  if (st == FCD_OK) {
    scatter(p, x);
    st = fcd_integrator_set_param(p->it, FCD_PARAM_STEP, T / (fcd_real)N);
  }
  if (st == FCD_OK) st = fcd_integrator_set_state(p->it, 0.0, p->uw, p->vw);
  for (fcd_index k = 0; k <= N && st == FCD_OK; k++) {
    st = fcd_integrator_step(p->it);
    if (st == FCD_OK) st = fcd_integrator_get_contact_status(p->it, k == 0 ? s0 : s1);
    if (st == FCD_OK) st = fcd_integrator_get_reactions(p->it, k == 0 ? r0 : r1);
    if (st != FCD_OK || k == 0) continue;
    for (fcd_index c = 0; c < nc; c++) {
      fcd_real dot = 0;
      for (fcd_index d = 1; d < dim; d++) dot += r0[c * dim + d] * r1[c * dim + d];
      chg[k % N] |= s1[c] != s0[c] || (s1[c] == FCD_CONTACT_SLIP && dot < 0);
    }
    memcpy(s0, s1, (size_t)nc * sizeof *s0);
    memcpy(r0, r1, (size_t)(nc * dim) * sizeof *r0);
  }
  for (fcd_index k = 0; k < N && st == FCD_OK; k++) *count += chg[k] != 0;
  fcd__free(s0);
  fcd__free(s1);
  fcd__free(r0);
  fcd__free(r1);
  return st;
}

/* the step to start an orbit at (chg: status_changes'), the middle of its longest run of
 * steps without a change; 0 to stay: already inside a quiet run of at least a quarter of
 * the best's length, or no change at all */
static fcd_index quiet_start(const unsigned char *chg, fcd_index N) {
  fcd_index best = -1, blen = 0;
  for (fcd_index k = 0; k < N; k++) {
    if (!chg[k] || chg[(k + 1) % N]) continue;
    fcd_index len = 0; /* a run of quiet steps starting after the change at k */
    while (len < N && !chg[(k + 1 + len) % N]) len++;
    if (len > blen) {
      blen = len;
      best = (k + 1 + len / 2) % N;
    }
  }
  fcd_index here = 0;
  while (here < N && !chg[here]) here++;
  return best > 0 && !(here >= blen / 4 && !chg[N - 1]) ? best : 0;
}

static fcd_status rephase(fcd_periodic *p, branch *b, int *moved) {
  *moved = 0;
  fcd_index N = b->N, nc = p->cs ? p->cs->n : 0, nchg = 0;
  if (nc == 0) return FCD_OK;
  unsigned char *chg = fcd__calloc((size_t)N + 1, 1);
  fcd_status st = chg ? status_changes(p, b->cur.x, b->cur.T, N, chg, &nchg)
                      : fcd__err(p->sys, FCD_E_NOMEM, "out of memory re-phasing an orbit");
  if (st != FCD_OK) {
    fcd__free(chg);
    return st;
  }
  fcd_index best = quiet_start(chg, N);
  if (best > 0) {
    fcd_real *xk = b->zs; /* the new start (zs is free between corrector calls) */
    st = steps_from(p, b->cur.x, b->cur.T, N, b->mu, best, xk);
    if (st == FCD_OK) st = carry_tangent(p, b, best, xk);
    if (st == FCD_OK) {
      /* a state inside the orbit may sink by the scheme's h |v|, which a new start
       * must not (the integrator's set_state refuses it): moved out as an iterate is */
      scatter(p, xk);
      st = admissible(p, p->uw);
      gather(p, p->uw, p->vw, b->cur.x);
    }
    if (st == FCD_OK) {
      st = evaluate(p, N, &b->cur);
      p->info.evaluations += 3;
      *moved = 1;
    }
  }
  fcd__free(chg);
  return st;
}

/* re-expresses the tangent t (cur's old scaling: au0, av0, T0) in the new point's */
static void rescale_tangent(const fcd_periodic *p, branch *b, fcd_real au0, fcd_real av0,
                            fcd_real T0) {
  fcd_index nx = b->nx, nf = p->nf;
  fcd_real tn = 0;
  for (fcd_index j = 0; j < nx; j++) b->t[j] *= j < nf ? au0 / b->cur.au : av0 / b->cur.av;
  b->t[nx] *= T0 / b->cur.T;
  for (fcd_index j = 0; j < b->m2; j++) tn += b->t[j] * b->t[j];
  for (fcd_index j = 0; j < b->m2; j++) b->t[j] /= sqrt(tn);
}

static fcd_status follow(fcd_periodic *p, branch *b, fcd_real mu_end, fcd_real dmu,
                         fcd_index max_points, fcd_periodic_point_fn fn, void *ud) {
  fcd_index nx = b->nx;
  fcd_real dir = mu_end > b->mu ? 1 : -1, ds = dmu;
  fcd_real *r = b->b;
  memset(r, 0, (size_t)b->m2 * sizeof *r);
  r[nx + 1] = dir;
  FCD_TRY(at_point(p, b, r));
  walk w;
  walk_start(p, &w, b->t[nx + 1], dir, b->cur.au);
  for (fcd_index k = 0; k < max_points; k++) {
    fcd_real mu = b->mu;
    int iters = 0;
    fcd_status st;
    while ((st = corrector(p, b, ds, &mu, &iters)) != FCD_OK) {
      if (st == FCD_E_NOMEM || st == FCD_E_INVALID_ARG) return st;
      if (ds < dmu / 256 && w.nfam >= 1) {
        /* the point has a second multiplier at +1 and nothing beyond it converges: its
         * bordered system is singular in the family's direction, and how far a step
         * still gets depends on round-off (one more point on one processor, none on
         * another). The family ends the branch here, reported on this point again. */
        FCD_TRY(set_mu(p, b->mu));
        keep(p, &b->cur, b->N);
        if (fn && fn(ud, b->mu, &p->info, p->mre, p->mim, FCD_PERIODIC_EVENT_FAMILY))
          return fcd__err(p->sys, FCD_E_CALLBACK, "continuation: the point callback stopped "
                          "it at mu = %.10g", b->mu);
        return FCD_OK;
      }
      if (ds < dmu / 256) {
        char last[512];
        snprintf(last, sizeof last, "%s", fcd_system_last_error(p->sys));
        return fcd__err(p->sys, st, "continuation: no point found within arclength %.3g of "
                        "mu = %.10g after %lld points (a kink of the step map, or the end of "
                        "the branch); the last attempt: %s", ds, b->mu, (long long)k, last);
      }
      ds /= 2;
    }
    /* the new point becomes cur; its tangent from the old one, rescaled */
    fcd_real au0 = b->cur.au, av0 = b->cur.av, T0 = b->cur.T;
    iterate t = b->cur;
    b->cur = b->nxt;
    b->nxt = t;
    b->mu = mu;
    rescale_tangent(p, b, au0, av0, T0);
    int moved = 0;
    FCD_TRY(rephase(p, b, &moved));
    memcpy(r, b->t, (size_t)b->m2 * sizeof *r);
    FCD_TRY(at_point(p, b, r));
    keep(p, &b->cur, b->N);
    int ev = walk_event(p, &w, b->t[nx + 1], b->cur.au, 0);
    if (fn && fn(ud, mu, &p->info, p->mre, p->mim, ev))
      return fcd__err(p->sys, FCD_E_CALLBACK, "continuation: the point callback stopped it at "
                      "mu = %.10g", mu);
    if (ev == FCD_PERIODIC_EVENT_COLLAPSE || ev == FCD_PERIODIC_EVENT_FAMILY ||
        (mu - mu_end) * dir >= 0)
      break;
    ds = iters <= 3 ? fmin(1.5 * ds, 8 * dmu) : ds;
  }
  return FCD_OK;
}

/* the forcing's parameter (FCD_PERIODIC_CONTINUE_OMEGA or _SCALE) set to lam */
static void forcing_set(fcd_periodic *p, int param, fcd_real lam) {
  if (param == FCD_PERIODIC_CONTINUE_OMEGA) p->omega = lam;
  else p->fscale = lam;
}

/* a forced orbit's period: kper periods of the forcing */
static fcd_real forcing_period(const fcd_periodic *p, fcd_real kper) {
  return kper * 6.283185307179586476925 / p->omega;
}

/* A natural step: the forced orbit at the parameter lam solved by shoot() from cur's (N
 * steps a period of kper forcing periods; Newton-Krylov when krylov), into nxt. On
 * failure the solver's result and the parameter stay cur's (at lam_cur). */
static fcd_status natural_step(fcd_periodic *p, int param, fcd_real kper, fcd_index N,
                               const iterate *cur, iterate *nxt, fcd_real lam_cur,
                               fcd_real lam, int krylov) {
  if (param == FCD_PERIODIC_CONTINUE_OMEGA && !(lam > 0)) return FCD_E_NOT_CONVERGED;
  /* work_alloc makes the velocity ranges anew */
  fcd__free(p->vmin);
  fcd__free(p->vmax);
  p->vmin = p->vmax = NULL;
  fcd_periodic_info keep_info = p->info;
  keep(p, cur, N);
  forcing_set(p, param, lam);
  fcd_index it0 = p->info.iterations;
  p->info.iterations = 0;
  fcd_status st = shoot_alloc(p, N, forcing_period(p, kper), krylov);
  if (st == FCD_OK) {
    gather(p, p->u0, p->v0, nxt->x);
    nxt->T = forcing_period(p, kper);
    st = evaluate(p, N, nxt);
  }
  p->info.iterations += it0;
  if (st != FCD_OK) {
    p->info = keep_info;
    forcing_set(p, param, lam_cur);
    keep(p, cur, N);
  }
  return st;
}

/* ---- continuation by Newton-Krylov (FCD_PERIODIC_JACOBIAN_KRYLOV, or AUTO above 200
 * state unknowns) ----
 * The unknowns of a step from cur: z_x = (x - x_cur) / (s sqrt(nx)) (s cur's amplitude of
 * a displacement or of a velocity), z_T = (T - T_cur) / T_cur and z_mu = mu - mu_cur. The
 * arclength so weighs mu's change against the orbit's root-mean-square relative change:
 * where the orbit changes little a step of dmu moves mu by dmu, on 6 state unknowns as on
 * 2,000 (the dense path's |x / s| grows as sqrt(nx): on the reduced brake a step of 0.005
 * moved mu by 7.5e-5). The residual rows are F / (s sqrt(nx)). Each corrector iteration
 * solves [Phi - I, J_T, J_mu; c'; t'] dz = rhs by GMRES, the monodromy applied at the
 * iterate by directional differences (one or two periods a Krylov step); the J_T and
 * J_mu columns (two periods) and the phase direction c are cur's. The predictor is the
 * last step's secant (the first point's, a tangent from one GMRES solve), so a point costs
 * its corrector's solves, two periods for the columns and the Arnoldi multipliers, and
 * one for its contacts' statuses: each new point is re-phased as the dense path's are
 * (krephase), where its orbit has a quiet stretch (a large model's many contacts may
 * leave none), and a point whose orbit has no status change ends the branch. */
typedef struct {
  fcd_index N, nx, m2;
  int param;           /* -1: mu; a forced orbit's FCD_PERIODIC_CONTINUE_OMEGA or _SCALE */
  fcd_real lref, kper; /* the parameter's scale (1 for mu); a forced period's multiple */
  fcd_real mu;         /* cur's parameter */
  iterate cur, nxt;
  fcd_real *t, *zs, *b, *dz, *jt0, *jm0;
  krylov_work k;
} kbranch;

static void kbranch_free(kbranch *b) {
  fcd_real **a[] = {&b->cur.x, &b->cur.y, &b->cur.x1, &b->nxt.x, &b->nxt.y, &b->nxt.x1,
                    &b->t, &b->zs, &b->b, &b->dz, &b->jt0, &b->jm0};
  for (size_t i = 0; i < sizeof a / sizeof *a; i++) {
    fcd__free(*a[i]);
    *a[i] = NULL;
  }
  krylov_free(&b->k);
}

static fcd_status kbranch_alloc(fcd_periodic *p, kbranch *b) {
  memset(b, 0, sizeof *b);
  size_t m2 = (size_t)p->nx + 2;
  b->nx = p->nx;
  b->m2 = (fcd_index)m2;
  fcd_real **v[] = {&b->cur.x, &b->cur.y, &b->cur.x1, &b->nxt.x, &b->nxt.y, &b->nxt.x1,
                    &b->t, &b->zs, &b->b, &b->dz, &b->jt0, &b->jm0};
  int ok = 1;
  for (size_t i = 0; i < sizeof v / sizeof *v; i++)
    ok &= (*v[i] = fcd__malloc_array(m2, sizeof(fcd_real))) != NULL;
  if (!ok) {
    kbranch_free(b);
    return fcd__err(p->sys, FCD_E_NOMEM, "out of memory for the continuation of %lld "
                    "unknowns", (long long)m2);
  }
  fcd_status st = krylov_alloc(p, &b->k, 1);
  if (st != FCD_OK) {
    kbranch_free(b);
    return st;
  }
  b->k.sq = 1 / sqrt((fcd_real)p->nx);
  return FCD_OK;
}

/* the branch's parameter set to lam */
static fcd_status kset(fcd_periodic *p, const kbranch *b, fcd_real lam) {
  if (b->param < 0) return set_mu(p, lam);
  forcing_set(p, b->param, lam);
  return FCD_OK;
}

/* the F columns at the iterate s (its parameter lam set) in T (per relative change of
 * cur's T0) and in the parameter, rows scaled by au, av (cur's), into b->k's jt and jm. A
 * forced orbit: T not an unknown (J_T = 0; its row in the bordered operator the
 * identity's), the parameter's column per relative change lam / lref, T following omega. */
static fcd_status kcols_at(fcd_periodic *p, kbranch *b, const iterate *s, fcd_real lam,
                           fcd_real T0, fcd_real au, fcd_real av) {
  krylov_work *k = &b->k;
  fcd_index nx = b->nx, nf = p->nf;
  fcd_real dl = b->param >= 0 ? p->fd * b->lref : p->fd * fmax(lam, 0.1);
  if (b->param >= 0) {
    if (!k->fam) memset(k->jt, 0, (size_t)nx * sizeof *k->jt);
  } else {
    FCD_TRY(flow(p, s->x, s->T * (1 + p->fd), b->N, k->yt, 0, NULL));
    for (fcd_index i = 0; i < nx; i++)
      k->jt[i] = (k->yt[i] - s->y[i]) * (T0 / s->T) / (p->fd * (i < nf ? au : av));
    p->info.evaluations++;
  }
  FCD_TRY(kset(p, b, lam + dl));
  fcd_status st = flow(p, s->x, b->param >= 0 ? forcing_period(p, b->kper) : s->T, b->N,
                       k->yt, 0, NULL);
  FCD_TRY(kset(p, b, lam));
  if (st != FCD_OK) return st;
  fcd_real per = b->param >= 0 ? p->fd : dl; /* a forced column per lam / lref */
  for (fcd_index i = 0; i < nx; i++)
    k->jm[i] = (k->yt[i] - s->y[i]) / (per * (i < nf ? au : av));
  p->info.evaluations++;
  return FCD_OK;
}

/* cur's phase direction c (unit; 0 for a forced orbit) and its F columns, into b->k, the
 * columns kept in b->jt0, b->jm0 too (the corrector takes them at its iterates) */
static fcd_status kcolumns(fcd_periodic *p, kbranch *b) {
  krylov_work *k = &b->k;
  const iterate *s = &b->cur;
  fcd_index nx = b->nx, nf = p->nf;
  if (b->param >= 0) {
    memset(k->c, 0, (size_t)nx * sizeof *k->c);
  } else {
    fcd_real cn = 0;
    for (fcd_index i = 0; i < nx; i++) {
      k->c[i] = (s->x1[i] - s->x[i]) / (i < nf ? s->au : s->av);
      cn += k->c[i] * k->c[i];
    }
    if (!(cn > 0))
      return fcd__err(p->sys, FCD_E_NOT_CONVERGED, "continuation: the flow does not move "
                      "the orbit's start in its first step");
    for (fcd_index i = 0; i < nx; i++) k->c[i] /= sqrt(cn);
  }
  FCD_TRY(kcols_at(p, b, s, b->mu, s->T, s->au, s->av));
  memcpy(b->jt0, k->jt, (size_t)nx * sizeof *k->jt);
  memcpy(b->jm0, k->jm, (size_t)nx * sizeof *k->jm);
  return FCD_OK;
}

/* A forced branch on a family of orbits (a stuck damper, stuck anywhere: a multiplier at
 * +1, its direction n from the Arnoldi basis) borders its corrector and tangent with n
 * where an autonomous one has its phase: the row n' z_x = 0 and the column n, a slack
 * unknown in T's place. Without it the orbits fill a sheet over the parameter, the dense
 * path's least-norm solves leave n out, but GMRES's do not: the secant carried the
 * corrector's drift along the family and the damper's stuck curve went back and forth
 * in omega. Off a family the T row is the identity's again. */
static void kfamily(kbranch *b) {
  krylov_work *k = &b->k;
  if (b->param < 0) return;
  k->fam = k->has_nv;
  for (fcd_index i = 0; i < b->nx; i++) {
    k->c[i] = k->fam ? k->nv[i] : 0;
    k->jt[i] = b->jt0[i] = k->fam ? k->nv[i] / k->sq : 0;
  }
}

/* the unit tangent at cur from [F rows; c'; r'] t = e_last, oriented as r */
static fcd_status ktangent(fcd_periodic *p, kbranch *b, const fcd_real *r) {
  krylov_work *k = &b->k;
  fcd_index m2 = b->m2;
  memcpy(k->tr, r, (size_t)m2 * sizeof *r);
  memcpy(k->jt, b->jt0, (size_t)b->nx * sizeof *k->jt);
  memcpy(k->jm, b->jm0, (size_t)b->nx * sizeof *k->jm);
  FCD_TRY(opening_signs(p, &b->cur, k));
  memset(b->b, 0, (size_t)m2 * sizeof *b->b);
  b->b[m2 - 1] = 1;
  prec_setup(p, &b->k);
  FCD_TRY(gmres(p, b->N, &b->cur, k, b->b, 1e-6, b->t, &p->info.evaluations));
  fcd_real tn = 0, dot = 0;
  for (fcd_index j = 0; j < m2; j++) {
    tn += b->t[j] * b->t[j];
    dot += b->t[j] * r[j];
  }
  if (!(tn > 0))
    return fcd__err(p->sys, FCD_E_SINGULAR, "continuation: no tangent at mu = %.10g (the "
                    "Krylov solve gave zero)", b->mu);
  tn = sqrt(tn) * (dot < 0 ? -1 : 1);
  for (fcd_index j = 0; j < m2; j++) b->t[j] /= tn;
  return FCD_OK;
}

/* the predictor's miss, in cur's scaling, per unit of arclength: about half the angle
 * the branch turns in a step (the corrected point b->zs lies on the hyperplane at ds
 * along t) */
static fcd_real kmiss(const kbranch *b, fcd_real ds) {
  fcd_real miss = 0;
  for (fcd_index j = 0; j < b->m2; j++) {
    fcd_real e = b->zs[j] - ds * b->t[j];
    miss += e * e;
  }
  return sqrt(miss) / ds;
}

#define KCORRECTOR_ITERS 8
/* the predictor's aimed miss per unit of arclength (some 11 degrees of turn a step) */
#define KMISS 0.1
/* a step whose miss exceeds this is taken again at half its length */
#define KMISS_MAX 0.3

/* one corrected point at arclength ds from cur along b->t into b->nxt (its coefficient
 * *mu), *iters the iterations made; FCD_E_NOT_CONVERGED when they do not reach the
 * tolerance (the caller shortens ds). With abort > 0 it gives up, *early the miss, when
 * the iterate lies farther than abort (per unit of ds) off the predictor after a
 * correction: a point that the caller would take again at a shorter step anyway. The
 * first correction puts the iterate where the point will be, within 2 % on Hoffmann's
 * oscillator, while a converged point cost the reduced brake's branch up to 450 periods
 * at its kink and fold, only to be dropped. */
static fcd_status kcorrector(fcd_periodic *p, kbranch *b, fcd_real ds, fcd_real *mu,
                             int *iters, fcd_real abort, fcd_real *early) {
  fcd_index nx = b->nx, nf = p->nf, m2 = b->m2;
  krylov_work *k = &b->k;
  iterate *cur = &b->cur, *z = &b->nxt;
  fcd_real sq = k->sq, *zs = b->zs;
  for (fcd_index j = 0; j < m2; j++) zs[j] = ds * b->t[j];
  memcpy(k->tr, b->t, (size_t)m2 * sizeof *b->t);
  memcpy(k->jt, b->jt0, (size_t)nx * sizeof *k->jt);
  memcpy(k->jm, b->jm0, (size_t)nx * sizeof *k->jm);
  prec_setup(p, &b->k);
  *early = -1;
  for (*iters = 0; *iters <= KCORRECTOR_ITERS; (*iters)++) {
    fcd_real off = *iters > 0 && abort > 0 ? kmiss(b, ds) : 0;
    if (off > abort) {
      *early = off;
      return fcd__err(p->sys, FCD_E_NOT_CONVERGED, "continuation: the corrector's iterate "
                      "lies %.2f of the step off the predictor", off);
    }
    for (fcd_index i = 0; i < nx; i++) z->x[i] = cur->x[i] + zs[i] * (i < nf ? cur->au : cur->av) / sq;
    *mu = b->mu + zs[nx + 1] * b->lref;
    if (!isfinite(*mu) || (b->param < 0 && !(*mu >= 0)) ||
        (b->param == FCD_PERIODIC_CONTINUE_OMEGA && !(*mu > 0)))
      return fcd__err(p->sys, FCD_E_NOT_CONVERGED, "continuation: the step leaves %s",
                      b->param < 0 ? "mu >= 0" : "omega > 0");
    FCD_TRY(kset(p, b, *mu));
    z->T = b->param >= 0 ? forcing_period(p, b->kper) : cur->T * (1 + zs[nx]);
    if (!(z->T > 0) || !isfinite(z->T))
      return fcd__err(p->sys, FCD_E_NOT_CONVERGED, "continuation: the step leaves T > 0");
    scatter(p, z->x);
    FCD_TRY(admissible(p, p->uw));
    gather(p, p->uw, p->vw, z->x);
    fcd_status st = evaluate(p, b->N, z);
    p->info.evaluations++;
    if (st != FCD_OK) return st;
    if (z->res <= p->tol) return FCD_OK;
    if (*iters == KCORRECTOR_ITERS) break;
    fcd_real pc = 0, pt = 0;
    for (fcd_index j = 0; j < m2; j++) {
      fcd_real zj = j < nx ? (z->x[j] - cur->x[j]) * sq / (j < nf ? cur->au : cur->av) : zs[j];
      if (j < nx) pc += k->c[j] * (ds * b->t[j] - zj);
      pt += b->t[j] * (ds * b->t[j] - zj);
      zs[j] = zj; /* the projection may have moved x */
    }
    for (fcd_index i = 0; i < nx; i++)
      b->b[i] = -(z->y[i] - z->x[i]) * sq / (i < nf ? cur->au : cur->av);
    b->b[nx] = b->param >= 0 && !b->k.fam ? 0 : pc;
    b->b[nx + 1] = pt;
    /* the monodromy at the iterate, in cur's scaling */
    iterate s = *z;
    s.au = cur->au;
    s.av = cur->av;
    FCD_TRY(opening_signs(p, &s, k));
    /* the T and parameter columns at the iterate too, as its monodromy is: cur's make a
     * chord method in those two directions, which converged by a constant factor where
     * they change fast (a forced response's resonance: the period map is nonlinear in
     * omega even for a linear structure); one or two periods an iteration */
    FCD_TRY(kcols_at(p, b, z, *mu, cur->T, cur->au, cur->av));
    FCD_TRY(gmres(p, b->N, &s, k, b->b, forcing_term(p, z->res), b->dz,
                  &p->info.evaluations));
    for (fcd_index j = 0; j < m2; j++) zs[j] += b->dz[j];
  }
  return fcd__err(p->sys, FCD_E_NOT_CONVERGED, "continuation: the corrector left the residual "
                  "at %.3e after %d Krylov iterations near mu = %.10g", z->res,
                  KCORRECTOR_ITERS, *mu);
}

/* the point's event: a forced orbit's from its multipliers outside the unit circle and
 * the parameter's turn (fpoint_event's rule, defined with the dense forced path below),
 * an autonomous one's from walk_event */
static int fpoint_event(const fcd_periodic *p, int fold, int *pd, int *ns, int *up);

/* The next point from cur, at the step *ds (shortened, or past a kink lengthened, as it
 * needs), into b->nxt, b->zs (the step's unknowns in cur's scaling) and *mu; *iters the
 * corrector's iterations, *kinked when a jump or a natural step found it. k: the points
 * so far (the first's predictor is a tangent already). On failure cur stays the
 * solver's result. */
static fcd_status knext(fcd_periodic *p, kbranch *b, fcd_real dmu, fcd_real dir, fcd_index k,
                        fcd_real *ds, fcd_real *mu, int *iters, int *kinked) {
  fcd_index nx = b->nx, nf = p->nf, m2 = b->m2;
  int forced = b->param >= 0, jump = 0, fresh = k == 0;
  fcd_real miss_prev = -1;
  fcd_status st;
  *kinked = 0;
  for (;;) {
    /* the first attempt at this step gives up early on a point it would drop */
    fcd_real early = -1;
    st = kcorrector(p, b, *ds, mu, iters,
                    miss_prev < 0 && jump == 0 && *ds >= dmu / 256 ? 1.5 * KMISS_MAX : 0,
                    &early);
    if (early > 0) {
      miss_prev = early;
      *ds /= 4;
      continue;
    }
    if (st == FCD_OK) {
      /* a point behind cur, or at right angles to the way (the corrector slid along a
       * family of orbits at one mu, where the hyperplane t' z = ds cuts it wide): the
       * secant would turn the branch back; taken again at half the step */
      fcd_real dot = 0, zn = 0;
      for (fcd_index j = 0; j < m2; j++) {
        dot += b->zs[j] * b->t[j];
        zn += b->zs[j] * b->zs[j];
      }
      fcd_real miss = kmiss(b, *ds);
      /* a corrected point far off the predictor (KMISS_MAX): the step may have cut
       * across a turn of the branch (on Hoffmann's oscillator, across its fold to the
       * other side), taken again at a quarter of the step. Unless the miss did not
       * shrink with the step as a curve's does: a kink of the branch (its start at a
       * stick-slip transition), where a shorter step misses by as much */
      if (dot > 0.5 * sqrt(zn) &&
          (miss <= KMISS_MAX || (miss_prev > 0 && miss > 0.5 * miss_prev)))
        break;
      if (dot > 0.5 * sqrt(zn) && *ds >= dmu / 256) {
        miss_prev = miss;
        *ds /= 4;
        continue;
      }
      st = fcd__err(p->sys, FCD_E_NOT_CONVERGED, "continuation: the corrected point lies "
                    "at %.0f degrees from the predictor's way, %.2f of the step off it",
                    acos(fmax(-1.0, fmin(1.0, dot / sqrt(zn)))) * 57.29577951308232, miss);
    }
    if (st == FCD_E_NOMEM || st == FCD_E_INVALID_ARG) return st;
    /* the secant may point off the branch (a long step before, across a turn: on
     * Hoffmann's oscillator 40 degrees off, and the miss stayed whatever the step):
     * first the tangent at cur, the same step again */
    if (!fresh) {
      fresh = 1;
      FCD_TRY(ktangent(p, b, b->t));
      continue;
    }
    if (jump == 0 && *ds >= dmu / 256) {
      *ds /= 2;
      continue;
    }
    /* past a kink of the branch (a change of the orbits' contact pattern: on the
     * reduced brake near mu = 0.366, where halving the step found only a point at 75
     * degrees from the way), steps of 2, 4 and 8 dmu land beyond it, autonomous or
     * forced; the natural step after them is the forced branch's (its period known) */
    if (jump < 3) {
      *ds = dmu * (2 << jump++);
      *kinked = 1;
      continue;
    }
    if (forced && jump == 3) {
      jump++;
      FCD_TRY(kset(p, b, b->mu));
      fcd_real lam = b->mu + dir * dmu * b->lref;
      fcd_status sn = natural_step(p, b->param, b->kper, b->N, &b->cur, &b->nxt, b->mu,
                                   lam, 1);
      if (sn == FCD_OK) {
        *mu = lam;
        *kinked = 1;
        /* the step's unknowns, in cur's scaling, for the secant */
        for (fcd_index j = 0; j < m2; j++)
          b->zs[j] = j < nx ? (b->nxt.x[j] - b->cur.x[j]) * b->k.sq /
                                  (j < nf ? b->cur.au : b->cur.av)
                            : j == nx ? 0 : (lam - b->mu) / b->lref;
        return FCD_OK;
      }
      if (sn == FCD_E_NOMEM) return sn;
    }
    char last[512];
    snprintf(last, sizeof last, "%s", fcd_system_last_error(p->sys));
    FCD_TRY(kset(p, b, b->mu));
    keep(p, &b->cur, b->N);
    return fcd__err(p->sys, st, "continuation: no point found within arclength %.3g of "
                    "%s = %.10g after %lld points (a kink of the step map, or the end of "
                    "the branch); the last attempt: %s", *ds,
                    !forced ? "mu" : b->param == FCD_PERIODIC_CONTINUE_OMEGA ? "omega"
                                                                       : "the scale",
                    b->mu, (long long)k, last);
  }
  return FCD_OK;
}

/* rephase's for the Krylov branch (its scaling): cur moved along its orbit to the middle
 * of its longest run of steps without a status change and the tangent t carried with it
 * (the k-step map's directional difference along t); *nchg the orbit's steps with a
 * change, 0 for a smooth orbit. A model with many contacts may have no quiet run (the
 * reduced brake's 144 contacts may change status in every step): it stays. */
static fcd_status krephase(fcd_periodic *p, kbranch *b, fcd_index *nchg) {
  fcd_index N = b->N, nx = b->nx, nf = p->nf;
  iterate *cur = &b->cur;
  unsigned char *chg = fcd__calloc((size_t)N + 1, 1);
  if (!chg) return fcd__err(p->sys, FCD_E_NOMEM, "out of memory re-phasing an orbit");
  fcd_status st = status_changes(p, cur->x, cur->T, N, chg, nchg);
  p->info.evaluations++;
  fcd_index best = st == FCD_OK ? quiet_start(chg, N) : 0;
  fcd__free(chg);
  if (st != FCD_OK || best == 0) return st;
  fcd_real *xk = b->dz, *xs = b->k.xt, *ys = b->k.yt, eps = p->fd, sq = b->k.sq;
  FCD_TRY(steps_from(p, cur->x, cur->T, N, b->mu, best, xk));
  for (fcd_index i = 0; i < nx; i++)
    xs[i] = cur->x[i] + eps * b->t[i] * (i < nf ? cur->au : cur->av) / sq;
  st = steps_from(p, xs, cur->T * (1 + eps * b->t[nx]), N, b->mu + eps * b->t[nx + 1] * b->lref,
                  best, ys);
  fcd_status sr = set_mu(p, b->mu);
  FCD_TRY(st);
  FCD_TRY(sr);
  for (fcd_index i = 0; i < nx; i++)
    b->t[i] = (ys[i] - xk[i]) * sq / (eps * (i < nf ? cur->au : cur->av));
  /* a state inside the orbit may sink by the scheme's h |v| (rephase's) */
  scatter(p, xk);
  FCD_TRY(admissible(p, p->uw));
  gather(p, p->uw, p->vw, cur->x);
  fcd_real au0 = cur->au, av0 = cur->av, tn = 0;
  FCD_TRY(evaluate(p, N, cur));
  p->info.evaluations += 3;
  for (fcd_index j = 0; j < b->m2; j++) {
    if (j < nx) b->t[j] *= j < nf ? au0 / cur->au : av0 / cur->av;
    tn += b->t[j] * b->t[j];
  }
  for (fcd_index j = 0; j < b->m2; j++) b->t[j] /= sqrt(tn);
  return FCD_OK;
}

/* The branch from b->cur towards mu_end (the parameter: mu, or a forced orbit's omega or
 * scale), steps of dmu in the arclength's coordinates at first. A forced branch steps past
 * a kink the way the dense one does (ffollow): past the smallest step, steps of 2, 4 and
 * 8 dmu, then a natural step solved by the shooting Newton-Krylov. */
static fcd_status kfollow(fcd_periodic *p, kbranch *b, fcd_real mu_end, fcd_real dmu,
                          fcd_index max_points, fcd_periodic_point_fn fn, void *ud) {
  fcd_index nx = b->nx, nf = p->nf, m2 = b->m2;
  fcd_real dir = mu_end > b->mu ? 1 : -1, ds = dmu;
  int forced = b->param >= 0;
  FCD_TRY(kcolumns(p, b));
  fcd_real *r = b->zs;
  memset(r, 0, (size_t)m2 * sizeof *r);
  r[nx + 1] = dir;
  /* an autonomous branch starts from the solve's orbit, its multipliers known (a forced
   * one needs its family's direction from the Arnoldi basis) */
  if (forced || !p->mre)
    FCD_TRY(krylov_multipliers(p, b->N, &b->cur, &b->k, &p->info.evaluations));
  kfamily(b);
  FCD_TRY(ktangent(p, b, r));
  walk w;
  walk_start(p, &w, b->t[nx + 1], dir, b->cur.au);
  int pd = 0, ns = 0, up = 0;
  if (forced) (void)fpoint_event(p, 0, &pd, &ns, &up);
  for (fcd_index k = 0; k < max_points; k++) {
    fcd_real mu = b->mu;
    int iters = 0, kinked = 0;
    FCD_TRY(knext(p, b, dmu, dir, k, &ds, &mu, &iters, &kinked));
    /* a natural step's miss is unknown: the step starts again from dmu */
    fcd_real miss = kinked ? 0 : kmiss(b, ds);
    /* the new point becomes cur; the step's secant, in its scaling, the next predictor */
    fcd_real au0 = b->cur.au, av0 = b->cur.av, T0 = b->cur.T;
    iterate t = b->cur;
    b->cur = b->nxt;
    b->nxt = t;
    b->mu = mu;
    FCD_TRY(kset(p, b, mu));
    fcd_real tn = 0;
    for (fcd_index j = 0; j < m2; j++) {
      b->t[j] = b->zs[j] * (j < nf ? au0 / b->cur.au : j < nx ? av0 / b->cur.av
                                                     : j == nx ? T0 / b->cur.T : 1);
      if (j == nx && forced) b->t[j] = 0; /* the slack of a family's border, or nothing */
      tn += b->t[j] * b->t[j];
    }
    for (fcd_index j = 0; j < m2; j++) b->t[j] /= sqrt(tn);
    fcd_index nchg = 1;
    if (!forced) FCD_TRY(krephase(p, b, &nchg));
    FCD_TRY(kcolumns(p, b));
    FCD_TRY(krylov_multipliers(p, b->N, &b->cur, &b->k, &p->info.evaluations));
    kfamily(b);
    keep(p, &b->cur, b->N);
    p->info.converged = 1;
    int ev;
    if (forced) {
      int fold = fabs(b->t[nx + 1]) > FOLD_TMU && b->t[nx + 1] * w.sig < 0;
      if (fabs(b->t[nx + 1]) > FOLD_TMU) w.sig = copysign(1.0, b->t[nx + 1]);
      ev = fpoint_event(p, fold, &pd, &ns, &up);
    } else {
      /* a vertical family ends this branch too (the dense path follows it down to the
       * equilibrium): at a center's one mu, the orbits of every small amplitude and
       * phase, the secant drifts between amplitude and phase and, with no re-phasing to
       * steady it, turned back up on Hoffmann's oscillator. The branch is born there,
       * which is what the family event reports. */
      ev = walk_event(p, &w, b->t[nx + 1], b->cur.au, 1);
      /* Without a verdict from the multipliers (the reduced brake's trivial one is 1e-2
       * off) the family shows in the orbit itself: no contact changes status over the
       * period, so it lies on one smooth piece of the flow, linear for a linear
       * structure (to the slip direction's turn in 3D), where a periodic orbit is a
       * center's, all its amplitudes at one mu: the branch's birth at the flutter
       * threshold. Without this the brake's branch turned back over itself there. */
      if (nchg == 0 && ev != FCD_PERIODIC_EVENT_COLLAPSE) ev = FCD_PERIODIC_EVENT_FAMILY;
    }
    if (fn && fn(ud, mu, &p->info, p->mre, p->mim, ev))
      return fcd__err(p->sys, FCD_E_CALLBACK, "continuation: the point callback stopped it at "
                      "%s = %.10g", !forced ? "mu" : b->param == FCD_PERIODIC_CONTINUE_OMEGA
                                                         ? "omega" : "the scale", mu);
    if (ev == FCD_PERIODIC_EVENT_COLLAPSE || (!forced && ev == FCD_PERIODIC_EVENT_FAMILY) ||
        (mu - mu_end) * dir >= 0)
      break;
    /* step control from the predictor's miss, not from the corrector's iterations: the
     * period map of many sticking, slipping and bouncing contacts is only piecewise
     * smooth, its corrector contracts by a fixed factor (1e-2 on the reduced brake) and
     * takes four or five iterations at any step, which held an iteration count's control
     * at a twentieth of the steps the branch allows. The miss grows as ds (a secant's
     * error as ds^2): the next step aims at KMISS, by at most a factor of two either
     * way; a corrector that needed six iterations or more shortens it all the same. Past
     * a kink (a jump or a natural step) it starts again from dmu. */
    if (kinked) {
      ds = dmu;
      continue;
    }
    fcd_real f = miss > 0 ? fmin(2.0, fmax(0.5, KMISS / miss)) : 2.0;
    if (iters >= 8) f = fmin(f, 1 / 1.5);
    ds = fmin(f * ds, 8 * dmu);
  }
  return FCD_OK;
}

fcd_status fcd_periodic_continue(fcd_periodic *p, fcd_real mu_end, fcd_real dmu,
                                 fcd_index max_points, fcd_periodic_point_fn fn,
                                 void *user_data) {
  CHECK_P(p);
  fcd_system *sys = p->sys;
  if (!p->have || !p->info.converged)
    return fcd__err(sys, FCD_E_STATE, "periodic_continue: no converged orbit to start from "
                    "(fcd_periodic_solve first)");
  if (p->forced)
    return fcd__err(sys, FCD_E_UNSUPPORTED, "periodic_continue: the orbit is forced; its "
                    "branch in the friction coefficient is not followed (remove the forcing: "
                    "fcd_periodic_set_forcing with fn NULL)");
  fcd_real mu0 = common_mu(p);
  if (isnan(mu0))
    return fcd__err(sys, FCD_E_UNSUPPORTED, "periodic_continue: the parameter is the friction "
                    "coefficient of every contact, and the contacts %s",
                    !p->cs || p->cs->n == 0 ? "are none" : "have different coefficients");
  if (!(mu_end >= 0) || !isfinite(mu_end) || mu_end == mu0)
    return fcd__err(sys, FCD_E_INVALID_ARG, "periodic_continue: mu_end must be finite, >= 0 "
                    "and differ from the orbit's %g, not %g", mu0, mu_end);
  if (!(dmu > 0) || !isfinite(dmu) || max_points < 1)
    return fcd__err(sys, FCD_E_INVALID_ARG, "periodic_continue: %s",
                    max_points < 1 ? "max_points must be >= 1" : "dmu must be > 0 and finite");
  /* in the scaled coordinates the orbit's own size is 1 and mu's way is |mu_end - mu0|: a
   * first step beyond both leaves the branch at once (dmu = 1e300 sent NaN into a
   * factorization) */
  fcd_real dmax = fmax(1.0, fabs(mu_end - mu0));
  if (dmu > dmax)
    return fcd__err(sys, FCD_E_INVALID_ARG, "periodic_continue: dmu = %g is out of range: at "
                    "most max(1, |mu_end - mu|) = %g (the orbit's scale in the arclength's "
                    "coordinates, or the whole way to mu_end)", dmu, dmax);
  int krylov = krylov_wanted(p);
  if (krylov) {
    kbranch kb;
    FCD_TRY(kbranch_alloc(p, &kb));
    kb.param = -1;
    kb.lref = 1;
    kb.N = p->info.steps;
    kb.mu = mu0;
    kb.cur.T = p->info.period;
    gather(p, p->u0, p->v0, kb.cur.x);
    fcd_status st = evaluate(p, kb.N, &kb.cur);
    if (st == FCD_OK) st = kfollow(p, &kb, mu_end, dmu, max_points, fn, user_data);
    fcd_status rs = set_mu(p, mu0);
    kbranch_free(&kb);
    return st != FCD_OK ? st : rs;
  }
  branch b;
  FCD_TRY(branch_alloc(p, &b));
  b.N = p->info.steps;
  b.mu = mu0;
  b.cur.T = p->info.period;
  gather(p, p->u0, p->v0, b.cur.x);
  fcd_status st = evaluate(p, b.N, &b.cur);
  if (st == FCD_OK) st = follow(p, &b, mu_end, dmu, max_points, fn, user_data);
  fcd_status rs = set_mu(p, mu0);
  branch_free(&b);
  return st != FCD_OK ? st : rs;
}

/* ---- continuation of a forced orbit in the forcing's frequency or scale ----
 * The unknowns of a step from the point cur: z_i = (x_i - x_cur,i) / (s_i sqrt(nx)) (s_i
 * cur's amplitude of a displacement or a velocity) and z_p = (lam - lam_cur) / lam_ref,
 * lam_ref the first point's |parameter|: the arclength |z| weighs the parameter's relative
 * change against the orbit's mean-square change, so that a step means the same on a model
 * of 2 or of 2,000 state unknowns. The residual rows are (phi_T(x) - x)_i / s_i. T is the
 * forcing's k 2 pi / omega (k the solve's multiple), N the solve's steps a period (so h
 * follows T). Pseudo-arclength: a tangent predictor, a corrector holding cur's Jacobian
 * (taken again at the iterate from the fourth iteration), every linear solve in least
 * norm (a stuck damper's family leaves a direction free). */

typedef struct {
  int param;            /* FCD_PERIODIC_CONTINUE_* */
  fcd_index N, nx, m;   /* steps a period, state unknowns, nx + 1 */
  fcd_real k, lref, sq; /* the period's multiple, lam's scale, sqrt(nx) */
  iterate cur, nxt;
  fcd_real lam;         /* cur's parameter */
  fcd_real *J, *A, *Jl, *b, *t, *zs, *xt, *yt;
} fbranch;

static void fbranch_free(fbranch *b) {
  fcd_real **a[] = {&b->cur.x, &b->cur.y, &b->cur.x1, &b->nxt.x, &b->nxt.y, &b->nxt.x1,
                    &b->J, &b->A, &b->Jl, &b->b, &b->t, &b->zs, &b->xt, &b->yt};
  for (size_t i = 0; i < sizeof a / sizeof *a; i++) {
    fcd__free(*a[i]);
    *a[i] = NULL;
  }
}

static fcd_status fbranch_alloc(fcd_periodic *p, fbranch *b) {
  size_t m = (size_t)p->nx + 1;
  fcd_real **v[] = {&b->cur.x, &b->cur.y, &b->cur.x1, &b->nxt.x, &b->nxt.y, &b->nxt.x1,
                    &b->Jl, &b->b, &b->t, &b->zs, &b->xt, &b->yt};
  int ok = 1;
  for (size_t i = 0; i < sizeof v / sizeof *v; i++)
    ok &= (*v[i] = fcd__malloc_array(m + 1, sizeof(fcd_real))) != NULL;
  b->J = m <= SIZE_MAX / sizeof(fcd_real) / (m + 1) ? fcd__malloc_array(m * (m + 1), sizeof(fcd_real)) : NULL;
  b->A = b->J ? fcd__malloc_array((m + 1) * (m + 1), sizeof(fcd_real)) : NULL;
  if (!ok || !b->J || !b->A) {
    fbranch_free(b);
    return fcd__err(p->sys, FCD_E_NOMEM, "out of memory for the continuation of %lld "
                    "unknowns", (long long)m);
  }
  return FCD_OK;
}

/* the parameter set to lam: the forcing's frequency or scale */
static void set_lam(fcd_periodic *p, const fbranch *b, fcd_real lam) {
  forcing_set(p, b->param, lam);
}

static fcd_real period_at(const fbranch *b, const fcd_periodic *p) {
  return forcing_period(p, b->k);
}

/* cur's Jacobian: the state columns (jacobian_at, amplitude-scaled) into b->J (stride nx +
 * 1, the T column zero) and the parameter's column (d(phi - x)/d lam, rows / s_i, times
 * lref) into b->Jl; the multipliers from the state block */
static fcd_status fjacobian(fcd_periodic *p, fbranch *b, const iterate *s) {
  fcd_index nx = b->nx, nf = p->nf;
  FCD_TRY(jacobian_at(p, b->N, s->T, s, &b->cur, 0, 0, b->J, b->xt, b->yt,
                      &p->info.evaluations));
  fcd_real dl = p->fd * b->lref;
  /* the parameter's difference, at s's own parameter (the caller set it) */
  fcd_real lam_s = b->param == FCD_PERIODIC_CONTINUE_OMEGA ? p->omega : p->fscale;
  set_lam(p, b, lam_s + dl);
  fcd_status st = flow(p, s->x, period_at(b, p), b->N, b->yt, 0, NULL);
  set_lam(p, b, lam_s);
  if (st != FCD_OK) return st;
  p->info.evaluations++;
  for (fcd_index i = 0; i < nx; i++)
    b->Jl[i] = (b->yt[i] - s->y[i]) / (p->fd * (i < nf ? b->cur.au : b->cur.av));
  return FCD_OK;
}

/* the bordered matrix [Phi - I (state columns times sqrt(nx)), Jl; r'] into b->A ((nx + 1)
 * square, row-major) */
static void fbordered(fbranch *b, const fcd_real *r) {
  fcd_index nx = b->nx, m = b->m;
  for (fcd_index i = 0; i < nx; i++) {
    for (fcd_index j = 0; j < nx; j++)
      b->A[i * m + j] = (b->J[i * (nx + 1) + j] - (i == j ? 1 : 0)) * b->sq;
    b->A[i * m + nx] = b->Jl[i];
  }
  for (fcd_index j = 0; j < m; j++) b->A[nx * m + j] = r[j];
}

/* the unit tangent at cur, solved with the bordering row r, oriented along o */
static fcd_status ftangent_row(fcd_periodic *p, fbranch *b, const fcd_real *r, const fcd_real *o) {
  fcd_index m = b->m;
  fbordered(b, r);
  memset(b->t, 0, (size_t)m * sizeof *b->t);
  b->t[m - 1] = 1;
  if (fcd__la_lstsq(m, b->A, b->t, 1e-9, NULL) != 0)
    return fcd__err(p->sys, FCD_E_BACKEND, "continuation: LAPACK's least-squares solve of "
                    "the tangent failed");
  fcd_real tn = 0, dot = 0;
  for (fcd_index j = 0; j < m; j++) {
    tn += b->t[j] * b->t[j];
    dot += b->t[j] * o[j];
  }
  if (!(tn > 0))
    return fcd__err(p->sys, FCD_E_SINGULAR, "continuation: no tangent at %g", b->lam);
  tn = sqrt(tn) * (dot < 0 ? -1 : 1);
  for (fcd_index j = 0; j < m; j++) b->t[j] /= tn;
  return FCD_OK;
}

/* The unit tangent at cur along r (the previous tangent, or e_lam towards the end). It is
 * bordered by e_lam first: the state's part is then the least-norm solution, which leaves
 * out the direction of a family of orbits (a stuck damper's offset); bordered by the
 * previous tangent, a tangent along such a direction stays along it, and the curve
 * crawls in the parameter (the design chart's 0.8 P curve: 400 points for 0.6 of omega).
 * Where that tangent is steep in the state (|t_lam| < 0.2, a fold coming) the previous
 * tangent borders it, so that the parameter can turn back. */
static fcd_status ftangent(fcd_periodic *p, fbranch *b, const fcd_real *r) {
  fcd_index m = b->m, nx = b->nx;
  fcd_real *e = b->b; /* free between corrector calls */
  memset(e, 0, (size_t)m * sizeof *e);
  e[nx] = r[nx] >= 0 ? 1 : -1;
  FCD_TRY(ftangent_row(p, b, e, e));
  if (fabs(b->t[nx]) >= 0.2) return FCD_OK;
  return ftangent_row(p, b, r, r);
}

/* one corrected point at arclength ds from cur into b->nxt, its parameter *lam */
static fcd_status fcorrector(fcd_periodic *p, fbranch *b, fcd_real ds, fcd_real *lam,
                             int *iters) {
  fcd_index nx = b->nx, nf = p->nf, m = b->m;
  iterate *cur = &b->cur, *z = &b->nxt;
  fcd_real *zs = b->zs;
  for (fcd_index j = 0; j < m; j++) zs[j] = ds * b->t[j];
  fcd_status st = FCD_OK;
  for (*iters = 0; *iters <= 10; (*iters)++) {
    for (fcd_index i = 0; i < nx; i++)
      z->x[i] = cur->x[i] + zs[i] * b->sq * (i < nf ? cur->au : cur->av);
    *lam = b->lam + zs[nx] * b->lref;
    if (!isfinite(*lam) || (b->param == FCD_PERIODIC_CONTINUE_OMEGA && !(*lam > 0)))
      return fcd__err(p->sys, FCD_E_NOT_CONVERGED, "continuation: the step leaves omega > 0");
    set_lam(p, b, *lam);
    z->T = period_at(b, p);
    scatter(p, z->x);
    FCD_TRY(admissible(p, p->uw));
    gather(p, p->uw, p->vw, z->x);
    st = evaluate(p, b->N, z);
    p->info.evaluations++;
    if (st != FCD_OK) break;
    if (z->res <= p->tol) return FCD_OK;
    if (*iters == 10) break;
    if (*iters >= 3 && (st = fjacobian(p, b, z)) != FCD_OK) break;
    fbordered(b, b->t);
    fcd_real pt = 0;
    for (fcd_index j = 0; j < m; j++) {
      fcd_real zj = j < nx ? (z->x[j] - cur->x[j]) / (b->sq * (j < nf ? cur->au : cur->av))
                           : zs[j];
      zs[j] = zj; /* the projection may have moved x */
      pt += b->t[j] * (ds * b->t[j] - zj);
    }
    for (fcd_index i = 0; i < nx; i++) b->b[i] = -(z->y[i] - z->x[i]) / (i < nf ? cur->au : cur->av);
    b->b[nx] = pt;
    if (fcd__la_lstsq(m, b->A, b->b, 1e-9, NULL) != 0) {
      st = fcd__err(p->sys, FCD_E_BACKEND, "continuation: LAPACK's least-squares solve of "
                    "the corrector failed");
      break;
    }
    for (fcd_index j = 0; j < m; j++) zs[j] += b->b[j];
  }
  set_lam(p, b, b->lam);
  if (st != FCD_OK) return st;
  return fcd__err(p->sys, FCD_E_NOT_CONVERGED, "continuation: the corrector left the residual "
                  "at %.3e after 10 iterations near %.10g", z->res, *lam);
}

/* the forced point's event from the multipliers outside the unit circle: real ones above
 * +1 (up), below -1 (pd), complex pairs (ns), against the previous point's */
static int fpoint_event(const fcd_periodic *p, int fold, int *pd, int *ns, int *up) {
  int pd1 = 0, ns1 = 0, up1 = 0;
  fcd_real band = 10 * p->fd;
  for (fcd_index i = 0; i < p->info.multipliers; i++) {
    if (hypot(p->mre[i], p->mim[i]) <= 1 + band) continue;
    if (p->mim[i] != 0) ns1++;
    else if (p->mre[i] < 0) pd1++;
    else up1++;
  }
  int ev = fold ? FCD_PERIODIC_EVENT_FOLD
           : pd1 != *pd ? FCD_PERIODIC_EVENT_PERIOD_DOUBLING
           : ns1 != *ns ? FCD_PERIODIC_EVENT_TORUS
           : up1 != *up ? FCD_PERIODIC_EVENT_STABILITY : FCD_PERIODIC_EVENT_NONE;
  *pd = pd1;
  *ns = ns1;
  *up = up1;
  return ev;
}

/* the forced orbit at lam solved by shoot() from cur's, into b->nxt (*lam_out = lam) */
static fcd_status fnatural(fcd_periodic *p, fbranch *b, fcd_real lam, fcd_real *lam_out) {
  FCD_TRY(natural_step(p, b->param, b->k, b->N, &b->cur, &b->nxt, b->lam, lam, 0));
  *lam_out = lam;
  return FCD_OK;
}

static fcd_status ffollow(fcd_periodic *p, fbranch *b, fcd_real end, fcd_real ds0,
                          fcd_index max_points, fcd_periodic_point_fn fn, void *ud) {
  fcd_index nx = b->nx, m = b->m;
  fcd_real dir = end > b->lam ? 1 : -1, ds = ds0;
  /* the orientation row: e_lam signed, then the last tangent */
  fcd_real *rr = fcd__malloc_array((size_t)m, sizeof *rr);
  if (!rr) return fcd__err(p->sys, FCD_E_NOMEM, "out of memory for a continuation");
  memset(rr, 0, (size_t)m * sizeof *rr);
  rr[nx] = dir;
  fcd_status st = fjacobian(p, b, &b->cur);
  if (st == FCD_OK) st = multipliers(p, b->J, nx + 1, b->A);
  if (st == FCD_OK) st = ftangent(p, b, rr);
  int pd = 0, ns = 0, up = 0;
  if (st == FCD_OK) (void)fpoint_event(p, 0, &pd, &ns, &up);
  fcd_real sig = b->t[nx] >= 0 ? 1 : -1;
  for (fcd_index k = 0; k < max_points && st == FCD_OK; k++) {
    fcd_real lam = b->lam;
    int iters = 0;
    int jump = 0;
    while ((st = fcorrector(p, b, ds, &lam, &iters)) != FCD_OK) {
      if (st == FCD_E_NOMEM || st == FCD_E_INVALID_ARG || st == FCD_E_CALLBACK) break;
      /* Shorter steps only come closer to a kink of the curve (a damper that begins to
       * slip, a contact that begins to open: a grazing of the orbit), where Newton's
       * convergence stalls: past the smallest step, steps of 2, 4 and 8 times the first
       * try to land beyond it */
      if (jump == 0 && ds >= ds0 / 256) {
        ds /= 2;
        continue;
      }
      if (jump < 3) {
        ds = ds0 * (2 << jump++);
        continue;
      }
      /* last, a natural step: the parameter moved by ds0 of its scale towards the end and
       * the orbit solved there by the shooting Newton from cur's (its least-norm
       * corrections and line search cope with the family of a stuck damper, which the
       * bordered corrector's tangent cannot follow into slip) */
      if (jump == 3) {
        jump++;
        fcd_status sn = fnatural(p, b, b->lam + dir * ds0 * b->lref, &lam);
        if (sn == FCD_OK) {
          st = FCD_OK;
          iters = 4;
          break;
        }
        if (sn == FCD_E_NOMEM) {
          st = sn;
          break;
        }
      }
      char last[512];
      snprintf(last, sizeof last, "%s", fcd_system_last_error(p->sys));
      st = fcd__err(p->sys, st, "continuation: no point found from %.10g after %lld points, "
                    "from arclength %.3g down to %.3g and in jumps up to %.3g; the last "
                    "attempt: %s", b->lam, (long long)k, 8 * ds0, ds0 / 256, ds, last);
      break;
    }
    if (st == FCD_OK && jump > 0) ds = ds0; /* past a kink: start again from the first step */
    if (st != FCD_OK) break;
    /* the new point becomes cur; the tangent re-expressed in its scaling */
    fcd_real au0 = b->cur.au, av0 = b->cur.av;
    iterate tmp = b->cur;
    b->cur = b->nxt;
    b->nxt = tmp;
    b->lam = lam;
    set_lam(p, b, lam);
    for (fcd_index j = 0; j < nx; j++) rr[j] = b->t[j] * (j < p->nf ? au0 / b->cur.au : av0 / b->cur.av);
    rr[nx] = b->t[nx];
    st = fjacobian(p, b, &b->cur);
    if (st == FCD_OK) st = multipliers(p, b->J, nx + 1, b->A);
    if (st == FCD_OK) st = ftangent(p, b, rr);
    if (st != FCD_OK) break;
    keep(p, &b->cur, b->N);
    p->info.converged = 1;
    int fold = b->t[nx] * sig < 0;
    sig = b->t[nx] >= 0 ? 1 : -1;
    int ev = fpoint_event(p, fold, &pd, &ns, &up);
    if (fn && fn(ud, lam, &p->info, p->mre, p->mim, ev)) {
      st = fcd__err(p->sys, FCD_E_CALLBACK, "continuation: the point callback stopped it at "
                    "%.10g", lam);
      break;
    }
    if ((lam - end) * dir >= 0) break;
    ds = iters <= 3 ? fmin(1.5 * ds, 8 * ds0) : ds;
  }
  fcd__free(rr);
  return st;
}

fcd_status fcd_periodic_continue_forcing(fcd_periodic *p, int param, fcd_real end, fcd_real ds,
                                         fcd_index max_points, fcd_periodic_point_fn fn,
                                         void *user_data) {
  CHECK_P(p);
  fcd_system *sys = p->sys;
  if (!p->forced)
    return fcd__err(sys, FCD_E_STATE, "periodic_continue_forcing: no forcing set "
                    "(fcd_periodic_set_forcing or _set_harmonic_forcing)");
  if (!p->have || !p->info.converged)
    return fcd__err(sys, FCD_E_STATE, "periodic_continue_forcing: no converged orbit to start "
                    "from (fcd_periodic_solve first)");
  if (param != FCD_PERIODIC_CONTINUE_OMEGA && param != FCD_PERIODIC_CONTINUE_SCALE)
    return fcd__err(sys, FCD_E_INVALID_ARG, "periodic_continue_forcing: the parameter must be "
                    "FCD_PERIODIC_CONTINUE_OMEGA (0) or _SCALE (1), not %d", param);
  fcd_real lam0 = param == FCD_PERIODIC_CONTINUE_OMEGA ? p->omega : p->fscale;
  if (!isfinite(end) || end == lam0 || (param == FCD_PERIODIC_CONTINUE_OMEGA && !(end > 0)))
    return fcd__err(sys, FCD_E_INVALID_ARG, "periodic_continue_forcing: the end must be finite%s "
                    "and differ from the orbit's %g, not %g",
                    param == FCD_PERIODIC_CONTINUE_OMEGA ? ", > 0" : "", lam0, end);
  if (!(ds > 0) || !(ds <= 1) || max_points < 1)
    return fcd__err(sys, FCD_E_INVALID_ARG, "periodic_continue_forcing: %s",
                    max_points < 1 ? "max_points must be >= 1"
                                   : "ds must be in (0, 1] (a relative change of the parameter)");
  int krylov = krylov_wanted(p);
  fcd_real kper = nearbyint(p->info.period * p->omega / 6.283185307179586476925);
  if (kper < 1) kper = 1;
  if (krylov) {
    kbranch kb;
    FCD_TRY(kbranch_alloc(p, &kb));
    kb.param = param;
    kb.kper = kper;
    kb.lref = fabs(lam0) > 0 ? fabs(lam0) : fabs(end);
    kb.N = p->info.steps;
    kb.mu = lam0;
    kb.cur.T = forcing_period(p, kper);
    gather(p, p->u0, p->v0, kb.cur.x);
    fcd_status st = evaluate(p, kb.N, &kb.cur);
    if (st == FCD_OK) st = kfollow(p, &kb, end, ds, max_points, fn, user_data);
    forcing_set(p, param, lam0);
    kbranch_free(&kb);
    return st;
  }
  fbranch b;
  memset(&b, 0, sizeof b);
  FCD_TRY(fbranch_alloc(p, &b));
  b.param = param;
  b.N = p->info.steps;
  b.nx = p->nx;
  b.m = p->nx + 1;
  b.sq = sqrt((fcd_real)p->nx);
  b.lam = lam0;
  b.lref = fabs(lam0) > 0 ? fabs(lam0) : fabs(end);
  b.k = kper;
  b.cur.T = period_at(&b, p);
  gather(p, p->u0, p->v0, b.cur.x);
  fcd_status st = evaluate(p, b.N, &b.cur);
  if (st == FCD_OK) st = ffollow(p, &b, end, ds, max_points, fn, user_data);
  set_lam(p, &b, lam0);
  fbranch_free(&b);
  return st;
}
