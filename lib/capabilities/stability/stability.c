/* Stability of a frictional contact state (fcd/fcd_stability.h).
 *
 * Reduction (a Petrov-Galerkin projection). Every active contact gives sparse rows of H
 * over the free dofs, whatever its kinematics (rigid frame, node pair, or rows from
 * node-to-segment or mortar weights):
 *   stick: the d rows of H_c (trial = test);
 *   slip:  trial row H_N, test row H_N + mu s . H_T (orthogonal to the reaction, whose
 *          direction is (1, mu s) in fcd's convention, r_T = mu r_N s).
 * Trial space: motions that keep the active constraints; test space: the one annihilating
 * the linearised reaction directions. Each constraint is condensed on a slave dof of its
 * own contact that no other active contact touches (for a dual-mortar row, a dof of its
 * slave node), the same for the trial and the test row, so both reductions u = T_n x,
 * w = T_mu y keep the same master dofs and K* = T_mu^T K T_n is square and as sparse as K
 * plus the contacts' rows. A slip slave's row of T is -(1/c_s) sum_{j != s} c_j e_j;
 * stick contacts solve their d rows for d own dofs at once (Gauss-Jordan, largest
 * pivot; u_A = u_B for a node pair, 0 for a rigid obstacle). For node contacts this is
 * seed 000's row rule: the same slaves, the same T.
 *
 * Solution: LAPACK dggev on the dense pencil (K*, M*) or on the companion form of the
 * quadratic ([0 I; -K* -C*], [I 0; 0 M*]) up to dense_max reduced dofs; above, SLEPc on
 * (K*, M*) with shift-and-invert and MUMPS (backends/petsc.c), damping through the exact Rayleigh
 * quadratic. */
#include "stability_private.h"

#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int valid(const fcd_stability *st) {
  return st && st->magic == FCD_STABILITY_MAGIC && fcd__system_valid(st->sys);
}

#define CHECK_ST_(st)                                                                  \
  do {                                                                                 \
    if (!valid(st)) return FCD_E_INVALID_ARG;                                          \
  } while (0)


fcd_status fcd_stability_create(fcd_system *sys, fcd_contact_set *cs, fcd_stability **out) {
  if (!out) return fcd__err(sys, FCD_E_INVALID_ARG, "stability_create: out is NULL");
  *out = NULL;
  FCD_CHECK_SYS(sys);
  if (cs && (!fcd__contact_set_valid(cs) || cs->sys != sys))
    return fcd__err(sys, FCD_E_INVALID_ARG, "stability_create: the contact set is invalid "
                    "or belongs to another system");
  if (fcd__dist_on(sys))
    return fcd__err(sys, FCD_E_UNSUPPORTED, "stability_create: the system is distributed; "
                    "the stability analysis takes a replicated system and distributes its "
                    "solve itself (fcd_stability_set_communicator)");
  if (!sys->mat[FCD_MASS].set || !sys->mat[FCD_STIFFNESS].set)
    return fcd__err(sys, FCD_E_STATE, "stability_create: the system needs a mass and a "
                    "stiffness matrix");
  fcd_stability *st = fcd__calloc(1, sizeof *st);
  fcd_index nc = cs ? cs->n : 0;
  int d = cs ? cs->dim : 2;
  if (st) {
    st->status = fcd__calloc((size_t)nc + 1, sizeof *st->status);
    st->slip = fcd__calloc((size_t)(nc * (d - 1)) + 1, sizeof *st->slip);
  }
  if (!st || !st->status || !st->slip) {
    if (st) {
      fcd__free(st->status);
      fcd__free(st->slip);
    }
    fcd__free(st);
    return fcd__err(sys, FCD_E_NOMEM, "out of memory creating a stability analysis");
  }
  st->sys = sys;
  st->cs = cs;
  st->nev = 10;
  st->mu_override = -1;
  st->tol = 1e-10;
  st->band_hz = INFINITY;
  st->max_it = 1000;
  st->damping = 1;
  st->dense_max = 400;
  st->path_set = FCD_EIGEN_AUTO;
  st->path = -1;
  memset(&st->seam, 0, sizeof st->seam); /* serial */
  st->share_sweep = 1;
  st->nred = -1;
  st->magic = FCD_STABILITY_MAGIC;
  fcd__system_retain(sys);
  if (cs) cs->children++;
  *out = st;
  return FCD_OK;
}

void fcd_stability_destroy(fcd_stability *st) {
  if (!st || st->magic != FCD_STABILITY_MAGIC) return;
  fcd_system *sys = st->sys;
  fcd_contact_set *cs = st->cs;
  fcd__stab_free_results(st);
  fcd__free(st->status);
  fcd__free(st->slip);
  fcd__free(st->rn);
  fcd__free(st->speed);
  fcd__csr_clear(&st->keptK);
  fcd__csr_clear(&st->keptM);
  st->magic = 0;
  fcd__free(st);
  if (cs) fcd__contact_set_release(cs);
  fcd__system_release(sys);
}

fcd_status fcd_stability_set_contact_state(fcd_stability *st, const int *status,
                                           const fcd_real *slip_dir) {
  CHECK_ST_(st);
  fcd_system *sys = st->sys;
  fcd_index nc = fcd__stab_nct(st);
  int d = fcd__stab_cdim(st);
  if (nc == 0) return FCD_OK;
  if (!status) return fcd__err(sys, FCD_E_INVALID_ARG, "set_contact_state: status is NULL");
  for (fcd_index c = 0; c < nc; c++) {
    if (status[c] != FCD_CONTACT_OPEN && status[c] != FCD_CONTACT_STICK &&
        status[c] != FCD_CONTACT_SLIP)
      return fcd__err(sys, FCD_E_INVALID_ARG, "set_contact_state: contact %lld has status "
                      "%d (open 0, stick 1, slip 2)", (long long)c, status[c]);
    if (status[c] != FCD_CONTACT_SLIP) continue;
    if (!slip_dir)
      return fcd__err(sys, FCD_E_INVALID_ARG, "set_contact_state: contact %lld slips but "
                      "slip_dir is NULL", (long long)c);
    fcd_real n2 = 0;
    for (int k = 0; k < d - 1; k++) {
      fcd_real s = slip_dir[c * (d - 1) + k];
      if (!isfinite(s))
        return fcd__err(sys, FCD_E_INVALID_ARG, "set_contact_state: slip direction of "
                        "contact %lld is not finite", (long long)c);
      n2 += s * s;
    }
    if (fabs(sqrt(n2) - 1) > 1e-6)
      return fcd__err(sys, FCD_E_INVALID_ARG, "set_contact_state: slip direction of contact "
                      "%lld has norm %.9g, not 1", (long long)c, sqrt(n2));
  }
  for (fcd_index c = 0; c < nc; c++) {
    st->status[c] = status[c];
    fcd_real n2 = 0;
    for (int k = 0; k < d - 1; k++) {
      fcd_real s = status[c] == FCD_CONTACT_SLIP ? slip_dir[c * (d - 1) + k] : 0.0;
      st->slip[c * (d - 1) + k] = s;
      n2 += s * s;
    }
    if (n2 > 0)
      for (int k = 0; k < d - 1; k++) st->slip[c * (d - 1) + k] /= sqrt(n2);
  }
  fcd__stab_free_results(st);
  return FCD_OK;
}

fcd_status fcd_stability_set_sliding_data(fcd_stability *st, const fcd_real *r_n,
                                          const fcd_real *speed) {
  CHECK_ST_(st);
  fcd_index nc = fcd__stab_nct(st);
  if (!r_n && !speed) {
    fcd__free(st->rn);
    fcd__free(st->speed);
    st->rn = st->speed = NULL;
    fcd__stab_free_results(st);
    return FCD_OK;
  }
  if (!r_n || !speed)
    return fcd__err(st->sys, FCD_E_INVALID_ARG, "set_sliding_data: %s is NULL but %s is "
                    "not: give both (or neither)", r_n ? "speed" : "r_n", r_n ? "r_n" : "speed");
  for (fcd_index c = 0; c < nc; c++)
    if (!isfinite(r_n[c]) || r_n[c] > 0 || !isfinite(speed[c]) || speed[c] < 0)
      return fcd__err(st->sys, FCD_E_INVALID_ARG, "set_sliding_data: contact %lld has r_n = "
                      "%g (must be <= 0) and speed %g (must be >= 0)", (long long)c, r_n[c],
                      speed[c]);
  fcd_real *a = fcd__malloc_array((size_t)nc + 1, sizeof *a);
  fcd_real *b = fcd__malloc_array((size_t)nc + 1, sizeof *b);
  if (!a || !b) {
    fcd__free(a);
    fcd__free(b);
    return fcd__err(st->sys, FCD_E_NOMEM, "out of memory");
  }
  memcpy(a, r_n, (size_t)nc * sizeof *a);
  memcpy(b, speed, (size_t)nc * sizeof *b);
  fcd__free(st->rn);
  fcd__free(st->speed);
  st->rn = a;
  st->speed = b;
  fcd__stab_free_results(st);
  return FCD_OK;
}

fcd_status fcd_stability_set_param(fcd_stability *st, int key, fcd_real value) {
  CHECK_ST_(st);
  fcd_system *sys = st->sys;
  switch (key) {
  case FCD_STAB_NEV:
    if (!fcd__is_whole(value, 1, 1e9))
      return fcd__err(sys, FCD_E_INVALID_ARG, "nev = %g must be a positive integer", value);
    st->nev = (fcd_index)value;
    return FCD_OK;
  case FCD_STAB_TARGET_HZ:
    if (!isfinite(value) || value < 0)
      return fcd__err(sys, FCD_E_INVALID_ARG, "target frequency %g Hz must be >= 0", value);
    st->target_hz = value;
    return FCD_OK;
  case FCD_STAB_MU:
    if (isnan(value) || isinf(value))
      return fcd__err(sys, FCD_E_INVALID_ARG, "friction coefficient %g is not finite", value);
    st->mu_override = value < 0 ? -1 : value;
    return FCD_OK;
  case FCD_STAB_TOLERANCE:
    if (!isfinite(value) || value <= 0 || value >= 1)
      return fcd__err(sys, FCD_E_INVALID_ARG, "tolerance %g must lie in (0, 1)", value);
    st->tol = value;
    return FCD_OK;
  case FCD_STAB_MAX_ITER:
    if (!fcd__is_whole(value, 1, 1e9))
      return fcd__err(sys, FCD_E_INVALID_ARG, "eigen-solver iteration cap %g must be an "
                      "integer in [1, 1e9]", value);
    st->max_it = (fcd_index)value;
    return FCD_OK;
  case FCD_STAB_SHARE_SWEEP:
    if (value != 0 && value != 1)
      return fcd__err(sys, FCD_E_INVALID_ARG, "FCD_STAB_SHARE_SWEEP is 0 or 1, not %g", value);
    st->share_sweep = (int)value;
    return FCD_OK;
  case FCD_STAB_DAMPING:
    if (value != 0 && value != 1)
      return fcd__err(sys, FCD_E_INVALID_ARG, "FCD_STAB_DAMPING is 0 or 1, not %g", value);
    st->damping = (int)value;
    return FCD_OK;
  case FCD_STAB_PROJECTION_MODES:
    if (!fcd__is_whole(value, 0, 1e6))
      return fcd__err(sys, FCD_E_INVALID_ARG, "projection modes = %g must be a non-negative "
                      "integer (0: automatic)", value);
    st->proj_modes = (fcd_index)value;
    return FCD_OK;
  case FCD_STAB_BAND_HZ:
    if (isnan(value))
      return fcd__err(sys, FCD_E_INVALID_ARG, "FCD_STAB_BAND_HZ is NaN");
    st->band_set = value > 0 ? value : 0;
    return FCD_OK;
  case FCD_STAB_ESTIMATE_MODES:
    if (!fcd__is_whole(value, 0, 1e5))
      return fcd__err(sys, FCD_E_INVALID_ARG, "estimate modes = %g must be an integer in "
                      "[0, 1e5] (0: no estimate)", value);
    st->est_modes = (fcd_index)value;
    return FCD_OK;
  case FCD_STAB_EIGEN_PATH:
    if (!fcd__is_whole(value, FCD_EIGEN_AUTO, FCD_EIGEN_PROJECTED))
      return fcd__err(sys, FCD_E_INVALID_ARG, "FCD_STAB_EIGEN_PATH = %g is no fcd_eigen_path "
                      "(-1 automatic, 0 to %d: fcd_registry_entry(FCD_FAMILY_EIGEN_PATH))",
                      value, (int)FCD_EIGEN_PROJECTED);
    st->path_set = (int)value;
    return FCD_OK;
  case FCD_STAB_DENSE_MAX:
    if (!fcd__is_whole(value, 0, 20000))
      return fcd__err(sys, FCD_E_INVALID_ARG, "dense_max = %g must be an integer in "
                      "[0, 20000]", value);
    st->dense_max = (fcd_index)value;
    return FCD_OK;
  default:
    return fcd__err(sys, FCD_E_UNSUPPORTED, "unknown stability parameter key %d", key);
  }
}

/* The results of a solve, set aside while the next one runs so that a failure leaves
 * the last good ones in place. */
typedef struct {
  int solved, path, any_flutter, any_divergence, necessary;
  fcd_index nred, nfree, nconv;
  fcd_real *lre, *lim, *vre, *vim, min_sym;
  fcd_index ninf;
  fcd_real berr, bnorm, btol;
  fcd_real band_hz;
  fcd_index noutside, nunstable_out;
} results;

static void results_take(fcd_stability *st, results *r) {
  *r = (results){st->solved, st->path, st->any_flutter, st->any_divergence, st->necessary,
                 st->nred, st->nfree, st->nconv, st->lre, st->lim, st->vre, st->vim, st->min_sym,
                 st->ninf, st->berr, st->bnorm, st->btol, st->band_hz, st->noutside,
                 st->nunstable_out};
  st->lre = st->lim = st->vre = st->vim = NULL;
  st->ninf = 0;
  st->berr = NAN;
  st->bnorm = 0;
  st->nconv = 0;
  st->solved = 0;
}

static void results_put(fcd_stability *st, const results *r) {
  fcd__stab_free_results(st);
  st->solved = r->solved;
  st->path = r->path;
  st->any_flutter = r->any_flutter;
  st->any_divergence = r->any_divergence;
  st->necessary = r->necessary;
  st->nred = r->nred;
  st->nfree = r->nfree;
  st->nconv = r->nconv;
  st->lre = r->lre;
  st->lim = r->lim;
  st->vre = r->vre;
  st->vim = r->vim;
  st->min_sym = r->min_sym;
  st->ninf = r->ninf;
  st->berr = r->berr;
  st->bnorm = r->bnorm;
  st->btol = r->btol;
  st->band_hz = r->band_hz;
  st->noutside = r->noutside;
  st->nunstable_out = r->nunstable_out;
}

static fcd_status solve_now(fcd_stability *st, fcd_index *nconv);

fcd_status fcd_stability_solve(fcd_stability *st, fcd_index *nconv) {
  CHECK_ST_(st);
  if (nconv) *nconv = 0;
  results prev;
  results_take(st, &prev);
  st->had_results = prev.solved;
  fcd_status status = solve_now(st, nconv);
  if (status == FCD_OK) {
    fcd__free(prev.lre);
    fcd__free(prev.lim);
    fcd__free(prev.vre);
    fcd__free(prev.vim);
  } else {
    results_put(st, &prev);
  }
  return status;
}

static fcd_status solve_now(fcd_stability *st, fcd_index *nconv) {
  fcd_system *sys = st->sys;
  const fcd__free_pattern *fp;
  FCD_TRY(fcd__system_free_pattern(sys, &fp));
  tmap tn, tm;
  memset(&tn, 0, sizeof tn);
  memset(&tm, 0, sizeof tm);
  fcd_status status = fcd__stab_build_maps(st, &tn, &tm);
  if (status != FCD_OK) goto done;
  fcd_index nr = tn.nred;
  st->nred = nr;
  if (nr == 0) {
    status = fcd__err(sys, FCD_E_STATE, "the reduced pencil is empty: every free dof is "
                      "constrained by the contact state");
    goto done;
  }
  int damped = st->damping && (fcd__stab_has_damping(sys) ||
                               (fcd__stab_cdim(st) == 3 && st->rn != NULL));
  st->est_fresh = 0;
  snprintf(st->est_why, sizeof st->est_why, "%s",
           nr <= st->dense_max ? "the whole spectrum was computed (dense): no estimate needed"
           : st->est_modes <= 0 ? "FCD_STAB_ESTIMATE_MODES is 0"
                                : "the modal projection of a damped problem has no estimate");
  fcd_eigen_path path = FCD_EIGEN_DENSE;
  status = fcd__stab_path(st, nr, damped, &path);
  if (status == FCD_OK) status = fcd__stab_solve_path(st, path, fp, &tn, &tm, damped);
  if (status != FCD_OK) goto done;
  st->solved = 1;
  st->path = (int)path;
  st->est_have = st->est_fresh;
  /* the dense path computes everything; nev bounds what the sparse one returns */
  if (path == FCD_EIGEN_DENSE && st->nev > st->nconv)
    fcd__err(sys, FCD_OK, "nev = %lld exceeds the %lld eigenvalues of the %lld-dof reduced "
             "pencil: clamped", (long long)st->nev, (long long)st->nconv, (long long)nr);
  if (nconv) *nconv = st->nconv;
done:
  fcd__stab_tmap_free(&tn);
  fcd__stab_tmap_free(&tm);
  return status;
}

#define CHECK_SOLVED(st, i)                                                            \
  do {                                                                                 \
    CHECK_ST_(st);                                                                     \
    if (!(st)->solved) return fcd__err((st)->sys, FCD_E_STATE, "no stability solve yet"); \
    if ((i) < 0 || (i) >= (st)->nconv)                                                 \
      return fcd__err((st)->sys, FCD_E_INVALID_ARG, "eigenvalue %lld outside [0, %lld)", \
                      (long long)(i), (long long)(st)->nconv);                         \
  } while (0)

fcd_status fcd_stability_get_eigenvalue(const fcd_stability *st, fcd_index i, fcd_real *re,
                                        fcd_real *im) {
  CHECK_SOLVED(st, i);
  if (re) *re = st->lre[i];
  if (im) *im = st->lim[i];
  return FCD_OK;
}

fcd_status fcd_stability_get_mode_info(const fcd_stability *st, fcd_index i, fcd_real *freq_hz,
                                       fcd_real *damping_ratio, int *kind) {
  CHECK_SOLVED(st, i);
  fcd_real re = st->lre[i], im = st->lim[i], scale = fmax(1.0, hypot(re, im));
  if (freq_hz) *freq_hz = fabs(im) / (2 * 3.14159265358979323846);
  if (damping_ratio) *damping_ratio = fabs(im) > 0 ? -re / fabs(im) : INFINITY;
  if (kind)
    *kind = re > 1e-9 * scale ? (fabs(im) > 1e-9 * scale ? FCD_MODE_FLUTTER : FCD_MODE_DIVERGENCE)
                              : FCD_MODE_STABLE;
  return FCD_OK;
}

fcd_status fcd_stability_get_mode(const fcd_stability *st, fcd_index i, fcd_real *re,
                                  fcd_real *im) {
  CHECK_SOLVED(st, i);
  fcd_index n = st->sys->n;
  if (re) memcpy(re, st->vre + i * n, (size_t)n * sizeof *re);
  if (im) memcpy(im, st->vim + i * n, (size_t)n * sizeof *im);
  return FCD_OK;
}

fcd_status fcd_stability_get_summary(const fcd_stability *st, int *flutter, int *divergence,
                                     int *necessary, fcd_real *min_sym) {
  CHECK_ST_(st);
  if (!st->solved) return fcd__err(st->sys, FCD_E_STATE, "no stability solve yet");
  if (flutter) *flutter = st->any_flutter;
  if (divergence) *divergence = st->any_divergence;
  if (necessary) *necessary = st->necessary;
  if (min_sym) *min_sym = st->min_sym;
  return FCD_OK;
}

fcd_status fcd_stability_set_communicator(fcd_stability *st, int64_t mpi_comm_f) {
  CHECK_ST_(st);
  FCD_TRY(fcd__eigseam_set(st->sys, &st->seam, mpi_comm_f));
  fcd__stab_free_results(st);
  return FCD_OK;
}

fcd_status fcd_stability_get_path(const fcd_stability *st, int *path) {
  CHECK_ST_(st);
  if (!path) return fcd__err(st->sys, FCD_E_INVALID_ARG, "get_path: path is NULL");
  if (!st->solved || st->path < 0)
    return fcd__err(st->sys, FCD_E_STATE, "get_path: no solve since the analysis was made or "
                    "its contact state changed");
  *path = st->path;
  return FCD_OK;
}

fcd_index fcd_stability_reduced_size(const fcd_stability *st) {
  return valid(st) && st->solved ? st->nred : -1;
}

/* ---- friction sweeps ------------------------------------------------------------- */

typedef struct {
  double score;
  fcd_index i, j;
} match;

static int cmp_match(const void *a, const void *b) {
  const match *x = a, *y = b;
  if (x->score != y->score) return x->score > y->score ? -1 : 1;
  if (x->i != y->i) return x->i < y->i ? -1 : 1;
  return (x->j > y->j) - (x->j < y->j);
}

/* the modes of the previous coefficient, which the current one's are matched against */
typedef struct {
  fcd_real *pre, *pim, *plre, *plim;
  fcd_index *ptrack, pn, next_track;
} sweep_track;

static void track_free(sweep_track *t) {
  fcd__free(t->pre);
  fcd__free(t->pim);
  fcd__free(t->plre);
  fcd__free(t->plim);
  fcd__free(t->ptrack);
  t->pre = t->pim = t->plre = t->plim = NULL;
  t->ptrack = NULL;
  t->pn = 0;
}

/* track numbers of the nc modes st holds, matched by MAC against t's */
static void track_match(const fcd_stability *st, const sweep_track *t, fcd_index *track,
                        match *mt, char *used) {
  fcd_index n = st->sys->n, nc = st->nconv, pn = t->pn;
  for (fcd_index i = 0; i < nc; i++) track[i] = -1;
  fcd_index nm = 0;
  for (fcd_index i = 0; i < nc; i++) {
    const fcd_real *ar = st->vre + i * n, *ai = st->vim + i * n;
    double na = 0;
    for (fcd_index q = 0; q < n; q++) na += ar[q] * ar[q] + ai[q] * ai[q];
    for (fcd_index j = 0; j < pn; j++) {
      const fcd_real *br = t->pre + j * n, *bi = t->pim + j * n;
      double nb = 0, cr = 0, ci = 0;
      for (fcd_index q = 0; q < n; q++) {
        nb += br[q] * br[q] + bi[q] * bi[q];
        /* conj(a) . b */
        cr += ar[q] * br[q] + ai[q] * bi[q];
        ci += ar[q] * bi[q] - ai[q] * br[q];
      }
      double mac = na > 0 && nb > 0 ? (cr * cr + ci * ci) / (na * nb) : 0;
      /* the conjugate partner has the same MAC: keep the side of the imaginary axis,
       * then prefer the nearer eigenvalue */
      int same = (st->lim[i] > 0) == (t->plim[j] > 0) && (st->lim[i] < 0) == (t->plim[j] < 0);
      double dist = hypot(st->lre[i] - t->plre[j], st->lim[i] - t->plim[j]) /
                    (hypot(st->lre[i], st->lim[i]) + hypot(t->plre[j], t->plim[j]) + 1e-300);
      mt[nm].score = mac + (same ? 0 : -1) - 1e-3 * dist;
      mt[nm].i = i;
      mt[nm++].j = j;
    }
  }
  qsort(mt, (size_t)nm, sizeof *mt, cmp_match);
  for (fcd_index q = 0; q < nm; q++) {
    if (mt[q].score < 0.5 || track[mt[q].i] >= 0 || used[mt[q].j]) continue;
    track[mt[q].i] = t->ptrack[mt[q].j];
    used[mt[q].j] = 1;
  }
}

/* One coefficient of a sweep, whose results st holds: its modes tracked against the
 * previous coefficient's, handed to fn (*rc: fn's return), then kept in t for the next. */
static fcd_status sweep_visit(fcd_stability *st, sweep_track *t, fcd_real mu,
                              fcd_stability_sweep_fn fn, void *user_data, int *rc) {
  fcd_system *sys = st->sys;
  fcd_index n = sys->n, nc = st->nconv;
  *rc = 0;
  fcd_index *track = fcd__malloc_array((size_t)nc + 1, sizeof *track);
  match *mt = fcd__malloc_array((size_t)(nc * t->pn) + 1, sizeof *mt);
  char *used = fcd__calloc((size_t)t->pn + 1, 1);
  if (!track || !mt || !used) {
    fcd__free(track);
    fcd__free(mt);
    fcd__free(used);
    return fcd__err(sys, FCD_E_NOMEM, "out of memory in a sweep");
  }
  track_match(st, t, track, mt, used);
  for (fcd_index i = 0; i < nc; i++)
    if (track[i] < 0) track[i] = t->next_track++;
  fcd__free(mt);
  fcd__free(used);
  *rc = fn(user_data, mu, nc, st->lre, st->lim, track);
  /* keep this coefficient's modes for the next */
  track_free(t);
  t->ptrack = track;
  t->pn = nc;
  t->pre = fcd__malloc_array((size_t)(nc * n) + 1, sizeof *t->pre);
  t->pim = fcd__malloc_array((size_t)(nc * n) + 1, sizeof *t->pim);
  t->plre = fcd__malloc_array((size_t)nc + 1, sizeof *t->plre);
  t->plim = fcd__malloc_array((size_t)nc + 1, sizeof *t->plim);
  if (!t->pre || !t->pim || !t->plre || !t->plim)
    return fcd__err(sys, FCD_E_NOMEM, "out of memory in a sweep");
  memcpy(t->pre, st->vre, (size_t)(nc * n) * sizeof *t->pre);
  memcpy(t->pim, st->vim, (size_t)(nc * n) * sizeof *t->pim);
  memcpy(t->plre, st->lre, (size_t)nc * sizeof *t->plre);
  memcpy(t->plim, st->lim, (size_t)nc * sizeof *t->plim);
  return FCD_OK;
}

/* coefficient k of the sweep; (mu1 - mu0) k overflows for mu1 near DBL_MAX (a sweep to
 * 1e308 solved its last step at mu = Inf), the fraction first does not */
static fcd_real sweep_mu(fcd_real mu0, fcd_real mu1, fcd_index steps, fcd_index k) {
  if (steps == 1) return mu0;
  if (k == steps - 1) return mu1;
  fcd_real t = (mu1 - mu0) * (fcd_real)k;
  if (!isfinite(t)) return mu0 + (mu1 - mu0) * ((fcd_real)k / (fcd_real)(steps - 1));
  return mu0 + t / (fcd_real)(steps - 1);
}

static void results_free(results *r) {
  fcd__free(r->lre);
  fcd__free(r->lim);
  fcd__free(r->vre);
  fcd__free(r->vim);
  r->lre = r->lim = r->vre = r->vim = NULL;
}

/* A sweep shared out over the ranks of st's communicator (dist.h, fcd__farm): each rank
 * solves its block of coefficients serially (its own factor on PETSC_COMM_SELF), since
 * one shift-and-invert LU by MUMPS gains nothing from a second rank on the 100k-dof
 * block (docs/distributed.md); then every rank tracks every coefficient's modes in order
 * and calls fn exactly as the serial sweep does. Each rank holds its block's modes until
 * they are handed over. */
typedef struct {
  fcd_stability *st;
  fcd_real mu0, mu1;
  fcd_index steps;
  fcd_index lo, nmine, cap; /* this rank's solved coefficients lo .. lo + nmine - 1 */
  results *mine;
  sweep_track t;
  fcd_stability_sweep_fn fn;
  void *user_data;
  int shown; /* a coefficient's results reached st */
} sweep_share;

enum { SHARE_H = 11, SHARE_X = 5 };

static fcd_real share_mu(void *ctx, fcd_index k) {
  sweep_share *s = ctx;
  return sweep_mu(s->mu0, s->mu1, s->steps, k);
}

static fcd_status share_solve(void *ctx, fcd_index k) {
  sweep_share *s = ctx;
  fcd_stability *st = s->st;
  if (s->nmine == 0) s->lo = k;
  if (s->nmine == s->cap) {
    fcd_index cap = 2 * s->cap + 4;
    results *g = fcd__grow_array(s->mine, (size_t)s->cap, (size_t)cap, sizeof *g);
    if (!g) return fcd__err(st->sys, FCD_E_NOMEM, "out of memory in a sweep");
    s->mine = g;
    s->cap = cap;
  }
  /* this rank's coefficient alone: a serial solve */
  fcd__eigseam shared = st->seam;
  memset(&st->seam, 0, sizeof st->seam);
  st->mu_override = share_mu(ctx, k);
  fcd_status status = fcd_stability_solve(st, NULL);
  st->seam = shared;
  if (status == FCD_OK) results_take(st, &s->mine[s->nmine++]);
  return status;
}

/* a coefficient's results as bytes: SHARE_H integers, SHARE_X reals, then lre, lim (nc
 * each), vre, vim (nc n each) */
static fcd_status share_pack(void *ctx, fcd_index k, void **buf, size_t *bytes) {
  sweep_share *s = ctx;
  results *r = &s->mine[k - s->lo];
  size_t nc = (size_t)r->nconv, n = (size_t)s->st->sys->n;
  long long h[SHARE_H] = {r->solved, r->any_flutter, r->any_divergence, r->necessary,
                          r->nred, r->nfree, r->nconv, r->ninf, r->noutside,
                          r->nunstable_out, r->path};
  double x[SHARE_X] = {r->min_sym, r->berr, r->bnorm, r->btol, r->band_hz};
  size_t total = sizeof h + sizeof x + (2 * nc + 2 * nc * n) * sizeof(fcd_real);
  char *b = fcd__malloc(total);
  if (!b) return fcd__err(s->st->sys, FCD_E_NOMEM, "out of memory sending a sweep's results");
  char *q = b;
  memcpy(q, h, sizeof h), q += sizeof h;
  memcpy(q, x, sizeof x), q += sizeof x;
  memcpy(q, r->lre, nc * sizeof *r->lre), q += nc * sizeof *r->lre;
  memcpy(q, r->lim, nc * sizeof *r->lim), q += nc * sizeof *r->lim;
  memcpy(q, r->vre, nc * n * sizeof *r->vre), q += nc * n * sizeof *r->vre;
  memcpy(q, r->vim, nc * n * sizeof *r->vim);
  results_free(r);
  *buf = b;
  *bytes = total;
  return FCD_OK;
}

static fcd_status share_visit(void *ctx, fcd_index k, const void *buf, size_t bytes,
                              int *rc) {
  sweep_share *s = ctx;
  fcd_stability *st = s->st;
  long long h[SHARE_H];
  double x[SHARE_X];
  const char *q = buf;
  *rc = 0;
  if (bytes < sizeof h + sizeof x)
    return fcd__err(st->sys, FCD_E_INTERNAL, "a sweep's results arrived short");
  memcpy(h, q, sizeof h), q += sizeof h;
  memcpy(x, q, sizeof x), q += sizeof x;
  size_t nc = (size_t)h[6], n = (size_t)st->sys->n;
  if (bytes != sizeof h + sizeof x + (2 * nc + 2 * nc * n) * sizeof(fcd_real))
    return fcd__err(st->sys, FCD_E_INTERNAL, "a sweep's results arrived with %zu bytes", bytes);
  results r = {(int)h[0], (int)h[10], (int)h[1], (int)h[2], (int)h[3], (fcd_index)h[4],
               (fcd_index)h[5], (fcd_index)nc, NULL, NULL, NULL, NULL, x[0], (fcd_index)h[7],
               x[1], x[2], x[3], x[4], (fcd_index)h[8], (fcd_index)h[9]};
  r.lre = fcd__malloc_array(nc + 1, sizeof *r.lre);
  r.lim = fcd__malloc_array(nc + 1, sizeof *r.lim);
  r.vre = fcd__malloc_array(nc * n + 1, sizeof *r.vre);
  r.vim = fcd__malloc_array(nc * n + 1, sizeof *r.vim);
  if (!r.lre || !r.lim || !r.vre || !r.vim) {
    results_free(&r);
    return fcd__err(st->sys, FCD_E_NOMEM, "out of memory receiving a sweep's results");
  }
  memcpy(r.lre, q, nc * sizeof *r.lre), q += nc * sizeof *r.lre;
  memcpy(r.lim, q, nc * sizeof *r.lim), q += nc * sizeof *r.lim;
  memcpy(r.vre, q, nc * n * sizeof *r.vre), q += nc * n * sizeof *r.vre;
  memcpy(r.vim, q, nc * n * sizeof *r.vim);
  results_put(st, &r);
  s->shown = 1;
  st->mu_override = share_mu(ctx, k);
  return sweep_visit(st, &s->t, st->mu_override, s->fn, s->user_data, rc);
}

fcd_status fcd_stability_sweep(fcd_stability *st, fcd_real mu0, fcd_real mu1, fcd_index steps,
                               fcd_stability_sweep_fn fn, void *user_data) {
  CHECK_ST_(st);
  fcd_system *sys = st->sys;
  fcd_status status = FCD_OK;
  if (!fn) status = fcd__err(sys, FCD_E_INVALID_ARG, "sweep: the callback is NULL");
  else if (!isfinite(mu0) || !isfinite(mu1) || mu0 < 0 || mu1 < 0)
    status = fcd__err(sys, FCD_E_INVALID_ARG, "sweep: friction coefficients %g and %g must "
                      "be finite and >= 0", mu0, mu1);
  else if (steps < 1)
    status = fcd__err(sys, FCD_E_INVALID_ARG, "sweep: %lld steps", (long long)steps);
  fcd_real saved_mu = st->mu_override;
  results orig;
  results_take(st, &orig);
  sweep_share sh = {st, mu0, mu1, steps, 0, 0, 0, NULL, {0}, fn, user_data, 0};
  const fcd__farm farm = {&sh, "sweep", "mu", share_mu, share_solve, share_pack, share_visit};
  int ran = 0;
  status = fcd__farm_run(sys, &st->seam, status, steps, st->share_sweep, &farm, &ran);
  st->mu_override = saved_mu;
  if (!sh.shown) results_put(st, &orig);
  else results_free(&orig);
  for (fcd_index k = 0; k < sh.nmine; k++) results_free(&sh.mine[k]);
  fcd__free(sh.mine);
  track_free(&sh.t);
  if (status != FCD_OK || ran) return status;
  sweep_track t;
  memset(&t, 0, sizeof t);
  for (fcd_index k = 0; k < steps && status == FCD_OK; k++) {
    fcd_real mu = sweep_mu(mu0, mu1, steps, k);
    st->mu_override = mu;
    if ((status = fcd_stability_solve(st, NULL)) != FCD_OK) break;
    int rc = 0;
    status = sweep_visit(st, &t, mu, fn, user_data, &rc);
    if (status == FCD_OK && rc != 0)
      status = fcd__err(sys, FCD_E_CALLBACK, "sweep callback returned %d at mu = %g", rc, mu);
  }
  st->mu_override = saved_mu;
  track_free(&t);
  return status;
}

void fcd__stability_keep_reduced(fcd_stability *st, int keep) {
  if (valid(st)) st->keep_reduced = keep;
}

int fcd__stability_reduced(const fcd_stability *st, const fcd__csr **K, const fcd__csr **M) {
  if (!valid(st) || !st->keptK.set) return 0;
  *K = &st->keptK;
  *M = &st->keptM;
  return 1;
}

fcd_status fcd_stability_get_infinite_count(const fcd_stability *st, fcd_index *count) {
  CHECK_ST_(st);
  if (!count) return fcd__err(st->sys, FCD_E_INVALID_ARG, "get_infinite_count: count is NULL");
  if (!st->solved) return fcd__err(st->sys, FCD_E_STATE, "get_infinite_count: no solve yet");
  *count = st->ninf;
  return FCD_OK;
}

fcd_status fcd_stability_get_estimate(const fcd_stability *st, fcd_real *re, fcd_real *im,
                                      fcd_real *band_hz, fcd_index *nmodes) {
  CHECK_ST_(st);
  if (!st->solved) return fcd__err(st->sys, FCD_E_STATE, "get_estimate: no solve yet");
  if (!st->est_have)
    return fcd__err(st->sys, FCD_E_STATE, "get_estimate: the last solve has none (%s)",
                    st->est_why);
  if (re) *re = st->est_re;
  if (im) *im = st->est_im;
  if (band_hz) *band_hz = st->est_band;
  if (nmodes) *nmodes = st->est_used;
  return FCD_OK;
}

fcd_status fcd_stability_get_certificate(const fcd_stability *st, fcd_certificate *cert) {
  CHECK_ST_(st);
  if (!cert) return fcd__err(st->sys, FCD_E_INVALID_ARG, "get_certificate: cert is NULL");
  if (!st->solved) return fcd__err(st->sys, FCD_E_STATE, "get_certificate: no solve yet");
  if (isnan(st->berr))
    return fcd__err(st->sys, FCD_E_STATE, "get_certificate: the last solve has no certificate");
  memset(cert, 0, sizeof *cert);
  cert->equilibrium = st->berr;
  cert->worst = st->berr;
  cert->tolerance = st->btol;
  cert->force_scale = st->bnorm > 0 ? st->bnorm : 1.0;
  cert->length_scale = 1.0;
  return FCD_OK;
}

fcd_status fcd_stability_get_band(const fcd_stability *st, fcd_real *band_hz,
                                  fcd_index *noutside, fcd_index *nunstable_outside) {
  CHECK_ST_(st);
  if (!st->solved)
    return fcd__err(st->sys, FCD_E_STATE, "stability_get_band: no solve yet");
  if (band_hz) *band_hz = st->band_hz;
  if (noutside) *noutside = st->noutside;
  if (nunstable_outside) *nunstable_outside = st->nunstable_out;
  return FCD_OK;
}
