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
 * (K*, M*) with shift-and-invert and MUMPS (backend/petsc.c), damping through the exact Rayleigh
 * quadratic. */
#include "backend/lapack.h"
#include "capabilities.h"
#include "fcd/fcd_stability.h"

#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FCD_STABILITY_MAGIC 0x66637374u /* "fcst" */

struct fcd_stability {
  uint32_t magic;
  fcd_system *sys;
  fcd_contact_set *cs;
  int *status;      /* per contact */
  fcd_real *slip;   /* (d - 1) per contact */
  fcd_real *rn, *speed; /* sliding data, or NULL */
  fcd_index nev;
  fcd_real target_hz, mu_override, tol;
  fcd_index max_it; /* eigen-solver restarts */
  int damping;
  fcd_index dense_max;
  fcd_index proj_modes; /* basis of the modal projection (0: automatic) */
  int64_t comm_f; /* MPI_Fint of the host's communicator; FCD_COMM_SERIAL: none */
  int share_sweep; /* FCD_STAB_SHARE_SWEEP */
  int keep_reduced; /* benchmarks: keep the sparse K*, M* of the last solve */
  fcd__csr keptK, keptM;
  /* results */
  int solved;
  fcd_index nred, nfree;
  fcd_index nconv;
  fcd_real *lre, *lim; /* nconv eigenvalues, sorted */
  fcd_real *vre, *vim; /* nconv x ndofs mode shapes */
  int any_flutter, any_divergence, necessary;
  fcd_real min_sym;
  fcd_index ninf; /* eigenvalues lambda dropped as infinite by the last (dense) solve */
  fcd_real berr, bnorm; /* worst eigenpair backward error of the last solve, and the
                         * norm it is relative to */
  fcd_real btol;        /* the bound berr was checked against; +inf: reported only (a
                         * modal projection is an approximation, not a backward-stable solve) */
  /* the global estimate beside a partial window (stability_estimate.c) */
  fcd_index est_modes;  /* FCD_STAB_ESTIMATE_MODES */
  int est_have, est_fresh;
  fcd_real est_re, est_im, est_band;
  fcd_index est_used;
  char est_why[200];    /* why the last solve has none */
};

static int valid(const fcd_stability *st) {
  return st && st->magic == FCD_STABILITY_MAGIC && fcd__system_valid(st->sys);
}

#define CHECK_ST_(st)                                                                  \
  do {                                                                                 \
    if (!valid(st)) return FCD_E_INVALID_ARG;                                          \
  } while (0)

static fcd_index nct(const fcd_stability *st) { return st->cs ? st->cs->n : 0; }
static int cdim(const fcd_stability *st) { return st->cs ? st->cs->dim : 2; }

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
  st->max_it = 1000;
  st->damping = 1;
  st->dense_max = 400;
  st->comm_f = FCD_COMM_SERIAL;
  st->share_sweep = 1;
  st->nred = -1;
  st->magic = FCD_STABILITY_MAGIC;
  fcd__system_retain(sys);
  if (cs) cs->children++;
  *out = st;
  return FCD_OK;
}

static void free_results(fcd_stability *st) {
  fcd__free(st->lre);
  fcd__free(st->lim);
  fcd__free(st->vre);
  fcd__free(st->vim);
  st->lre = st->lim = st->vre = st->vim = NULL;
  st->nconv = 0;
  st->solved = 0;
}

void fcd_stability_destroy(fcd_stability *st) {
  if (!st || st->magic != FCD_STABILITY_MAGIC) return;
  fcd_system *sys = st->sys;
  fcd_contact_set *cs = st->cs;
  free_results(st);
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
  fcd_index nc = nct(st);
  int d = cdim(st);
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
  free_results(st);
  return FCD_OK;
}

fcd_status fcd_stability_set_sliding_data(fcd_stability *st, const fcd_real *r_n,
                                          const fcd_real *speed) {
  CHECK_ST_(st);
  fcd_index nc = nct(st);
  if (!r_n && !speed) {
    fcd__free(st->rn);
    fcd__free(st->speed);
    st->rn = st->speed = NULL;
    free_results(st);
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
  free_results(st);
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
  case FCD_STAB_ESTIMATE_MODES:
    if (!fcd__is_whole(value, 0, 1e5))
      return fcd__err(sys, FCD_E_INVALID_ARG, "estimate modes = %g must be an integer in "
                      "[0, 1e5] (0: no estimate)", value);
    st->est_modes = (fcd_index)value;
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

/* ---- the reduction ---------------------------------------------------------------- */

/* sparse rows of T (free dofs -> reduced): master rows are e_{col}, slave rows lists */
typedef struct {
  fcd_index nf, nred;
  fcd_index *col_of;       /* free dof -> reduced index, -1 for slaves */
  fcd_index *srow_ptr;     /* per free dof: range in sidx/sval (slaves only) */
  fcd_index *sidx;         /* reduced column */
  fcd_real *sval;
} tmap;

static void tmap_free(tmap *t) {
  fcd__free(t->col_of);
  fcd__free(t->srow_ptr);
  fcd__free(t->sidx);
  fcd__free(t->sval);
  memset(t, 0, sizeof *t);
}

/* one constraint on the free dofs: entries (free index, coefficient), grown on demand
 * (a dual-mortar row spans its slave node and the master facets its dual function
 * overlaps) */
typedef struct {
  fcd_index n, cap;
  fcd_index *f;
  fcd_real *c;
} crow;

static void crow_free(crow *r) {
  fcd__free(r->f);
  fcd__free(r->c);
  memset(r, 0, sizeof *r);
}

/* adds v to the entry of free dof f; -1 out of memory */
static int crow_add(crow *r, fcd_index f, fcd_real v) {
  if (v == 0) return 0;
  for (fcd_index q = 0; q < r->n; q++)
    if (r->f[q] == f) {
      r->c[q] += v;
      return 0;
    }
  if (r->n == r->cap) {
    fcd_index cap = r->cap ? 2 * r->cap : 8;
    fcd_index *nf = fcd__grow_array(r->f, (size_t)r->n, (size_t)cap, sizeof *nf);
    if (!nf) return -1;
    r->f = nf;
    fcd_real *nc = fcd__grow_array(r->c, (size_t)r->n, (size_t)cap, sizeof *nc);
    if (!nc) return -1;
    r->c = nc;
    r->cap = cap;
  }
  r->f[r->n] = f;
  r->c[r->n++] = v;
  return 0;
}

static fcd_real mu_of(const fcd_stability *st, fcd_index c) {
  return st->mu_override >= 0 ? st->mu_override : st->cs->c[c].mu;
}

/* Row k of contact c over the full dofs. Frame contacts list body A's dofs before body
 * B's (the slave choice prefers A on ties). */
typedef struct {
  fcd_index n;
  fcd_index g[6];
  fcd_real w[6];
  const fcd_index *eg; /* rows contacts: the set's arrays */
  const fcd_real *ew;
} rowview;

static void contact_rowview(const fcd_contact_set *cs, fcd_index c, int k, rowview *v) {
  const fcd__contact *ct = &cs->c[c];
  int d = cs->dim;
  v->n = 0;
  v->eg = NULL;
  v->ew = NULL;
  if (ct->rows) {
    fcd_index e0 = cs->rptr[ct->row0 + k];
    v->n = cs->rptr[ct->row0 + k + 1] - e0;
    v->eg = cs->rdof + e0;
    v->ew = cs->rw + e0;
    return;
  }
  for (int side = 0; side < (ct->pair ? 2 : 1); side++)
    for (int j = 0; j < d; j++) {
      v->g[v->n] = side ? ct->dofs_b[j] : ct->dofs_a[j];
      v->w[v->n++] = (side ? -1 : 1) * ct->frame[k][j];
    }
  v->eg = v->g;
  v->ew = v->w;
}

/* Row k of contact c on the free dofs, scaled by a, added to r; -1 out of memory. The
 * dofs are free (checked by check_contact_dofs). */
static int add_contact_row(const fcd_stability *st, fcd_index c, int k, fcd_real a, crow *r) {
  rowview v;
  contact_rowview(st->cs, c, k, &v);
  for (fcd_index q = 0; q < v.n; q++)
    if (crow_add(r, st->sys->free_of[v.eg[q]], a * v.ew[q])) return -1;
  return 0;
}

/* every dof of every contact's rows must still be free; counts per free dof the active
 * (stick or slip) contacts whose rows touch it */
static fcd_status check_contact_dofs(fcd_stability *st, fcd_index *cnt) {
  fcd_system *sys = st->sys;
  fcd_index nc = nct(st);
  int d = cdim(st);
  for (fcd_index c = 0; c < nc; c++) {
    int active = st->status[c] == FCD_CONTACT_STICK || st->status[c] == FCD_CONTACT_SLIP;
    for (int k = 0; k < d; k++) {
      rowview v;
      contact_rowview(st->cs, c, k, &v);
      for (fcd_index q = 0; q < v.n; q++) {
        fcd_index f = sys->free_of[v.eg[q]];
        if (f < 0)
          return fcd__err(sys, FCD_E_STATE, "contact %lld: dof %lld has been prescribed "
                          "since the contact was added", (long long)c, (long long)v.eg[q]);
        /* counted once per contact: the stamp is the contact's index + 1 */
        if (active && v.ew[q] != 0 && cnt[2 * f + 1] != c + 1) {
          cnt[2 * f]++;
          cnt[2 * f + 1] = c + 1;
        }
      }
    }
  }
  return FCD_OK;
}

/* The d stick rows of contact c solved for d of its own dofs (those no other active
 * contact touches), Gauss-Jordan with the largest pivot of each row: u_S = -G_R u_R.
 * Fills the slaves' rows in rn and rm (equal: trial = test for stick). */
static fcd_status stick_slaves(fcd_stability *st, fcd_index c, const fcd_index *cnt,
                               unsigned char *slave_of, crow *rn, crow *rm) {
  fcd_system *sys = st->sys;
  int d = cdim(st);
  crow all = {0, 0, NULL, NULL}, rows[3] = {{0, 0, NULL, NULL}, {0, 0, NULL, NULL}, {0, 0, NULL, NULL}};
  fcd_real *G = NULL;
  fcd_index piv[3] = {-1, -1, -1};
  fcd_status status = FCD_OK;
  for (int k = 0; k < d; k++)
    if (add_contact_row(st, c, k, 1.0, &rows[k]) || add_contact_row(st, c, k, 1.0, &all))
      goto nomem;
  fcd_index m = all.n;
  G = fcd__calloc((size_t)(d * m) + 1, sizeof *G);
  if (!G) goto nomem;
  fcd_real scale = 0;
  for (int k = 0; k < d; k++)
    for (fcd_index q = 0; q < rows[k].n; q++)
      for (fcd_index j = 0; j < m; j++)
        if (all.f[j] == rows[k].f[q]) {
          G[k * m + j] = rows[k].c[q];
          scale = fmax(scale, fabs(rows[k].c[q]));
        }
  for (int k = 0; k < d; k++) {
    fcd_index p = -1;
    fcd_real best = 0;
    for (fcd_index j = 0; j < m; j++) {
      int used = 0;
      for (int i = 0; i < k; i++) used |= piv[i] == j;
      if (used || cnt[2 * all.f[j]] != 1) continue;
      if (fabs(G[k * m + j]) > best) {
        best = fabs(G[k * m + j]);
        p = j;
      }
    }
    if (p < 0 || best <= 1e-12 * scale) {
      status = fcd__err(sys, FCD_E_UNSUPPORTED, "contact %lld sticks but its rows cannot be "
                        "solved for dofs that only it constrains (row %d); the reduced pencil "
                        "eliminates such dofs", (long long)c, k);
      goto done;
    }
    piv[k] = p;
    fcd_real g = G[k * m + p];
    for (fcd_index j = 0; j < m; j++) G[k * m + j] /= g;
    for (int i = 0; i < d; i++)
      if (i != k && G[i * m + p] != 0) {
        fcd_real a = G[i * m + p];
        for (fcd_index j = 0; j < m; j++) G[i * m + j] -= a * G[k * m + j];
      }
  }
  for (int k = 0; k < d; k++) {
    fcd_index s = all.f[piv[k]];
    slave_of[s] = 1;
    for (fcd_index j = 0; j < m; j++) {
      int is_piv = 0;
      for (int i = 0; i < d; i++) is_piv |= piv[i] == j;
      if (is_piv || G[k * m + j] == 0) continue;
      if (crow_add(&rn[s], all.f[j], -G[k * m + j]) || crow_add(&rm[s], all.f[j], -G[k * m + j]))
        goto nomem;
    }
  }
  goto done;
nomem:
  status = fcd__err(sys, FCD_E_NOMEM, "out of memory building the reduced pencil");
done:
  crow_free(&all);
  for (int k = 0; k < 3; k++) crow_free(&rows[k]);
  fcd__free(G);
  return status;
}

/* A slipping contact: trial row H_N, test row H_N + mu s . H_T, one slave dof that only
 * this contact constrains, with both coefficients as large as possible. */
static fcd_status slip_slave(fcd_stability *st, fcd_index c, const fcd_index *cnt,
                             unsigned char *slave_of, crow *rn, crow *rm) {
  fcd_system *sys = st->sys;
  int d = cdim(st);
  crow cn = {0, 0, NULL, NULL}, cm = {0, 0, NULL, NULL};
  fcd_status status = FCD_OK;
  fcd_real mu = mu_of(st, c);
  if (add_contact_row(st, c, 0, 1.0, &cn) || add_contact_row(st, c, 0, 1.0, &cm)) goto nomem;
  for (int k = 1; k < d; k++)
    if (add_contact_row(st, c, k, mu * st->slip[c * (d - 1) + k - 1], &cm)) goto nomem;
  /* both coefficients measured against the normal row's scale (a frame's is 1, a mortar
   * row's the slave node's share of the interface): mu s H_T may dwarf H_N at huge mu
   * and the condensation is still exact */
  fcd_real sn = 0;
  for (fcd_index q = 0; q < cn.n; q++) sn = fmax(sn, fabs(cn.c[q]));
  fcd_index s = -1;
  fcd_real bv = 0, as = 0, bs = 0;
  for (fcd_index q = 0; q < cn.n; q++) {
    fcd_index f = cn.f[q];
    if (cnt[2 * f] != 1) continue;
    fcd_real b = 0;
    for (fcd_index r = 0; r < cm.n; r++)
      if (cm.f[r] == f) b = cm.c[r];
    fcd_real v = fmin(fabs(cn.c[q]), fabs(b));
    if (v <= 1e-12 * sn) continue;
    if (v > bv) {
      bv = v;
      s = f;
      as = cn.c[q];
      bs = b;
    }
  }
  if (s < 0) {
    status = fcd__err(sys, FCD_E_SINGULAR, "contact %lld: no dof that only it constrains can "
                      "carry both the normal and the friction constraint (mu = %g)",
                      (long long)c, mu);
    goto done;
  }
  slave_of[s] = 1;
  for (fcd_index q = 0; q < cn.n; q++)
    if (cn.f[q] != s && crow_add(&rn[s], cn.f[q], -cn.c[q] / as)) goto nomem;
  for (fcd_index q = 0; q < cm.n; q++)
    if (cm.f[q] != s && crow_add(&rm[s], cm.f[q], -cm.c[q] / bs)) goto nomem;
  goto done;
nomem:
  status = fcd__err(sys, FCD_E_NOMEM, "out of memory building the reduced pencil");
done:
  crow_free(&cn);
  crow_free(&cm);
  return status;
}

/* T (free -> reduced) from the slaves' rows: masters keep their order */
static fcd_status fill_map(fcd_system *sys, fcd_index nf, const unsigned char *slave_of,
                           const crow *rows, tmap *t) {
  fcd_index nred = 0, tot = 0;
  for (fcd_index i = 0; i < nf; i++) {
    if (!slave_of[i]) nred++;
    else tot += rows[i].n;
  }
  t->nf = nf;
  t->nred = nred;
  t->col_of = fcd__malloc_array((size_t)nf + 1, sizeof *t->col_of);
  t->srow_ptr = fcd__calloc((size_t)nf + 1, sizeof *t->srow_ptr);
  t->sidx = fcd__malloc_array((size_t)tot + 1, sizeof *t->sidx);
  t->sval = fcd__malloc_array((size_t)tot + 1, sizeof *t->sval);
  if (!t->col_of || !t->srow_ptr || !t->sidx || !t->sval)
    return fcd__err(sys, FCD_E_NOMEM, "out of memory building the reduced pencil");
  fcd_index k = 0;
  for (fcd_index i = 0; i < nf; i++) t->col_of[i] = slave_of[i] ? -1 : k++;
  fcd_index p = 0;
  for (fcd_index i = 0; i < nf; i++) {
    t->srow_ptr[i] = p;
    if (!slave_of[i]) continue;
    for (fcd_index q = 0; q < rows[i].n; q++) {
      fcd_index f = rows[i].f[q];
      if (slave_of[f]) return fcd__err(sys, FCD_E_INTERNAL, "slave depends on a slave");
      t->sidx[p] = t->col_of[f];
      t->sval[p++] = rows[i].c[q];
    }
  }
  t->srow_ptr[nf] = p;
  return FCD_OK;
}

/* Builds T_n and T_mu. */
static fcd_status build_maps(fcd_stability *st, tmap *tn, tmap *tm) {
  fcd_system *sys = st->sys;
  fcd_index nf = sys->nfree, nc = nct(st);
  fcd_status status = FCD_OK;
  fcd_index *cnt = fcd__calloc(2 * (size_t)nf + 2, sizeof *cnt);
  unsigned char *slave_of = fcd__calloc((size_t)nf + 1, sizeof *slave_of);
  /* per slave: its trial and test rows in terms of other free dofs */
  crow *rn = fcd__calloc((size_t)nf + 1, sizeof *rn), *rm = fcd__calloc((size_t)nf + 1, sizeof *rm);
  if (!cnt || !slave_of || !rn || !rm) {
    status = fcd__err(sys, FCD_E_NOMEM, "out of memory building the reduced pencil");
    goto done;
  }
  status = check_contact_dofs(st, cnt);
  for (fcd_index c = 0; c < nc && status == FCD_OK; c++) {
    if (st->status[c] == FCD_CONTACT_STICK) status = stick_slaves(st, c, cnt, slave_of, rn, rm);
    else if (st->status[c] == FCD_CONTACT_SLIP) status = slip_slave(st, c, cnt, slave_of, rn, rm);
  }
  if (status == FCD_OK) status = fill_map(sys, nf, slave_of, rn, tn);
  if (status == FCD_OK) status = fill_map(sys, nf, slave_of, rm, tm);
done:
  if (rn && rm)
    for (fcd_index i = 0; i < nf; i++) {
      crow_free(&rn[i]);
      crow_free(&rm[i]);
    }
  fcd__free(cnt);
  fcd__free(slave_of);
  fcd__free(rn);
  fcd__free(rm);
  return status;
}

/* A* = T_mu^T A T_n, dense (nred x nred, row-major), for A on the free pattern (full
 * storage, values val). */
static void reduce_dense(const fcd__free_pattern *fp, const fcd_real *val, const tmap *tn,
                         const tmap *tm, fcd_real *out) {
  fcd_index nr = tn->nred;
  memset(out, 0, (size_t)nr * (size_t)nr * sizeof *out);
  for (fcd_index i = 0; i < fp->n; i++) {
    /* the rows of T_mu^T this row of A feeds: test column(s) */
    fcd_index ti = tm->col_of[i];
    for (fcd_index p = fp->rowptr[i]; p < fp->rowptr[i + 1]; p++) {
      fcd_index j = fp->col[p];
      fcd_real a = val[p];
      if (a == 0) continue;
      /* A_ij contributes (T_mu)_{i,r} A_ij (T_n)_{j,c} */
      fcd_index rlo = ti >= 0 ? 0 : tm->srow_ptr[i], rhi = ti >= 0 ? 1 : tm->srow_ptr[i + 1];
      for (fcd_index rr = rlo; rr < rhi; rr++) {
        fcd_index r = ti >= 0 ? ti : tm->sidx[rr];
        fcd_real wr = ti >= 0 ? 1.0 : tm->sval[rr];
        fcd_index tj = tn->col_of[j];
        if (tj >= 0) {
          out[r * nr + tj] += wr * a;
        } else {
          for (fcd_index q = tn->srow_ptr[j]; q < tn->srow_ptr[j + 1]; q++)
            out[r * nr + tn->sidx[q]] += wr * a * tn->sval[q];
        }
      }
    }
  }
}

/* A* = T_mu^T A T_n in CSR (for the sparse path), same loops with a row accumulator */
static fcd_status reduce_csr(const fcd_system *sys, const fcd__free_pattern *fp,
                             const fcd_real *val, const tmap *tn, const tmap *tm,
                             fcd__csr *out) {
  fcd_index nr = tn->nred;
  /* test rows of T_mu^T: reduced row r collects free rows i with (T_mu)_{i,r} != 0 */
  fcd_index *cnt = fcd__calloc((size_t)nr + 1, sizeof *cnt);
  fcd_index *acc_col = fcd__malloc_array((size_t)nr + 1, sizeof *acc_col);
  fcd_real *acc = fcd__calloc((size_t)nr + 1, sizeof *acc);
  fcd_index *mark = fcd__malloc_array((size_t)nr + 1, sizeof *mark);
  fcd_index *tr_ptr = NULL, *tr_row = NULL;
  fcd_real *tr_w = NULL;
  fcd_status status = FCD_OK;
  memset(out, 0, sizeof *out);
  if (!cnt || !acc_col || !acc || !mark) goto nomem;
  for (fcd_index i = 0; i < fp->n; i++) {
    if (tm->col_of[i] >= 0) cnt[tm->col_of[i]]++;
    else
      for (fcd_index q = tm->srow_ptr[i]; q < tm->srow_ptr[i + 1]; q++) cnt[tm->sidx[q]]++;
  }
  tr_ptr = fcd__malloc_array((size_t)nr + 1, sizeof *tr_ptr);
  fcd_index tot = 0;
  for (fcd_index r = 0; r < nr; r++) tot += cnt[r];
  tr_row = fcd__malloc_array((size_t)tot + 1, sizeof *tr_row);
  tr_w = fcd__malloc_array((size_t)tot + 1, sizeof *tr_w);
  if (!tr_ptr || !tr_row || !tr_w) goto nomem;
  tr_ptr[0] = 0;
  for (fcd_index r = 0; r < nr; r++) tr_ptr[r + 1] = tr_ptr[r] + cnt[r];
  for (fcd_index r = 0; r < nr; r++) cnt[r] = tr_ptr[r];
  for (fcd_index i = 0; i < fp->n; i++) {
    if (tm->col_of[i] >= 0) {
      fcd_index r = tm->col_of[i];
      tr_row[cnt[r]] = i;
      tr_w[cnt[r]++] = 1.0;
    } else {
      for (fcd_index q = tm->srow_ptr[i]; q < tm->srow_ptr[i + 1]; q++) {
        fcd_index r = tm->sidx[q];
        tr_row[cnt[r]] = i;
        tr_w[cnt[r]++] = tm->sval[q];
      }
    }
  }
  /* two passes: count, then fill */
  for (int pass = 0; pass < 2; pass++) {
    fcd_index nnz = 0;
    for (fcd_index c = 0; c < nr; c++) mark[c] = -1;
    for (fcd_index r = 0; r < nr; r++) {
      fcd_index nrow = 0;
      for (fcd_index e = tr_ptr[r]; e < tr_ptr[r + 1]; e++) {
        fcd_index i = tr_row[e];
        fcd_real wr = tr_w[e];
        for (fcd_index p = fp->rowptr[i]; p < fp->rowptr[i + 1]; p++) {
          fcd_index j = fp->col[p], tj = tn->col_of[j];
          fcd_index qlo = tj >= 0 ? 0 : tn->srow_ptr[j], qhi = tj >= 0 ? 1 : tn->srow_ptr[j + 1];
          for (fcd_index q = qlo; q < qhi; q++) {
            fcd_index c = tj >= 0 ? tj : tn->sidx[q];
            fcd_real v = wr * val[p] * (tj >= 0 ? 1.0 : tn->sval[q]);
            if (mark[c] != r) {
              mark[c] = r;
              acc_col[nrow++] = c;
              acc[c] = 0;
            }
            acc[c] += v;
          }
        }
      }
      if (pass == 1) {
        /* sorted columns */
        for (fcd_index a = 1; a < nrow; a++) {
          fcd_index x = acc_col[a], b = a;
          while (b > 0 && acc_col[b - 1] > x) {
            acc_col[b] = acc_col[b - 1];
            b--;
          }
          acc_col[b] = x;
        }
        out->rowptr[r] = nnz;
        for (fcd_index a = 0; a < nrow; a++) {
          out->col[nnz + a] = acc_col[a];
          out->val[nnz + a] = acc[acc_col[a]];
        }
      }
      nnz += nrow;
    }
    if (pass == 0) {
      out->n = nr;
      out->rowptr = fcd__malloc_array((size_t)nr + 1, sizeof *out->rowptr);
      out->col = fcd__malloc_array((size_t)nnz + 1, sizeof *out->col);
      out->val = fcd__malloc_array((size_t)nnz + 1, sizeof *out->val);
      if (!out->rowptr || !out->col || !out->val) goto nomem;
      out->owned = 1;
      out->set = 1;
    } else {
      out->rowptr[nr] = nnz;
    }
  }
  goto done;
nomem:
  status = fcd__err(sys, FCD_E_NOMEM, "out of memory forming the reduced pencil");
  fcd__csr_clear(out);
done:
  fcd__free(cnt);
  fcd__free(acc_col);
  fcd__free(acc);
  fcd__free(mark);
  fcd__free(tr_ptr);
  fcd__free(tr_row);
  fcd__free(tr_w);
  return status;
}

/* 3D sliding damping on the free pattern: C += -mu r_n / v b b^T over the contact's
 * relative displacement, b the tangent direction normal to the slip. For contact c,
 * fills bl = T_mu^T b and br = T_n^T b (reduced, nr each, zeroed here) and returns the
 * coefficient, or 0 when the contact adds nothing. */
static fcd_real sliding_vectors(const fcd_stability *st, const tmap *tn, const tmap *tm,
                                fcd_index c, fcd_real *bl, fcd_real *br, int *nomem) {
  fcd_index nr = tn->nred;
  if (cdim(st) != 3 || !st->rn) return 0;
  if (st->status[c] != FCD_CONTACT_SLIP || !(st->speed[c] > 0) || st->rn[c] == 0) return 0;
  fcd_real coef = -mu_of(st, c) * st->rn[c] / st->speed[c]; /* >= 0 */
  const fcd_real *s = st->slip + c * 2;
  crow b = {0, 0, NULL, NULL};
  memset(bl, 0, (size_t)nr * sizeof *bl);
  memset(br, 0, (size_t)nr * sizeof *br);
  /* b = -s_2 T + s_1 B: the tangent direction normal to the slip */
  if (add_contact_row(st, c, 1, -s[1], &b) || add_contact_row(st, c, 2, s[0], &b)) {
    crow_free(&b);
    *nomem = 1;
    return 0;
  }
  for (int q = 0; q < b.n; q++) {
    fcd_index f = b.f[q];
    if (tm->col_of[f] >= 0) bl[tm->col_of[f]] += b.c[q];
    else
      for (fcd_index e = tm->srow_ptr[f]; e < tm->srow_ptr[f + 1]; e++)
        bl[tm->sidx[e]] += b.c[q] * tm->sval[e];
    if (tn->col_of[f] >= 0) br[tn->col_of[f]] += b.c[q];
    else
      for (fcd_index e = tn->srow_ptr[f]; e < tn->srow_ptr[f + 1]; e++)
        br[tn->sidx[e]] += b.c[q] * tn->sval[e];
  }
  crow_free(&b);
  return coef;
}

/* The sliding damping as a dense addition to the reduced C* (few contacts, small
 * support): C* += coef (T_mu^T b)(b^T T_n). -1 when out of memory. */
static int add_sliding_damping(const fcd_stability *st, const tmap *tn, const tmap *tm,
                               fcd_real *Cr) {
  fcd_index nc = nct(st), nr = tn->nred;
  int nomem = 0;
  if (cdim(st) != 3 || !st->rn) return 0;
  fcd_real *bl = fcd__calloc((size_t)nr + 1, sizeof *bl), *br = fcd__calloc((size_t)nr + 1, sizeof *br);
  nomem = !bl || !br;
  for (fcd_index c = 0; c < nc && !nomem; c++) {
    fcd_real coef = sliding_vectors(st, tn, tm, c, bl, br, &nomem);
    if (coef == 0) continue;
    for (fcd_index i = 0; i < nr; i++)
      if (bl[i] != 0)
        for (fcd_index j = 0; j < nr; j++) Cr[i * nr + j] += coef * bl[i] * br[j];
  }
  fcd__free(bl);
  fcd__free(br);
  return nomem ? -1 : 0;
}

/* ---- results ---------------------------------------------------------------------- */

typedef struct {
  fcd_real re, im;
  fcd_index k; /* index into the raw arrays */
} eigkey;

static int cmp_eig(const void *a, const void *b) {
  const eigkey *x = a, *y = b;
  if (x->re != y->re) return x->re > y->re ? -1 : 1;
  if (x->im != y->im) return x->im < y->im ? -1 : 1;
  return (x->k > y->k) - (x->k < y->k);
}

/* lifts reduced complex vectors to the full numbering through T_n */
static void lift(const fcd_system *sys, const tmap *tn, const double complex *x,
                 fcd_real *re, fcd_real *im) {
  fcd_index n = sys->n;
  memset(re, 0, (size_t)n * sizeof *re);
  memset(im, 0, (size_t)n * sizeof *im);
  double mx = 0;
  for (fcd_index f = 0; f < tn->nf; f++) {
    double complex v = 0;
    if (tn->col_of[f] >= 0) v = x[tn->col_of[f]];
    else
      for (fcd_index q = tn->srow_ptr[f]; q < tn->srow_ptr[f + 1]; q++)
        v += tn->sval[q] * x[tn->sidx[q]];
    re[sys->dof_of[f]] = creal(v);
    im[sys->dof_of[f]] = cimag(v);
    if (cabs(v) > mx) mx = cabs(v);
  }
  /* unit largest modulus, that component real positive */
  double complex ph = 1;
  for (fcd_index i = 0; i < n; i++)
    if (cabs(re[i] + I * im[i]) == mx && mx > 0) {
      ph = conj(re[i] + I * im[i]) / mx;
      break;
    }
  for (fcd_index i = 0; i < n; i++) {
    double complex v = (re[i] + I * im[i]) * ph / (mx > 0 ? mx : 1);
    re[i] = creal(v);
    im[i] = cimag(v);
  }
}

/* Stores nraw eigenvalues (lam) and reduced vectors (vec, nred each) sorted. */
static fcd_status store(fcd_stability *st, const tmap *tn, fcd_index nraw,
                        const double complex *lam, const double complex *vec) {
  fcd_system *sys = st->sys;
  fcd_index n = sys->n, nr = tn->nred;
  eigkey *key = fcd__malloc_array((size_t)nraw + 1, sizeof *key);
  st->lre = fcd__malloc_array((size_t)nraw + 1, sizeof *st->lre);
  st->lim = fcd__malloc_array((size_t)nraw + 1, sizeof *st->lim);
  st->vre = fcd__malloc_array((size_t)(nraw * n) + 1, sizeof *st->vre);
  st->vim = fcd__malloc_array((size_t)(nraw * n) + 1, sizeof *st->vim);
  if (!key || !st->lre || !st->lim || !st->vre || !st->vim) {
    fcd__free(key);
    free_results(st);
    return fcd__err(sys, FCD_E_NOMEM, "out of memory storing eigenpairs");
  }
  for (fcd_index k = 0; k < nraw; k++) {
    key[k].re = creal(lam[k]);
    key[k].im = cimag(lam[k]);
    key[k].k = k;
  }
  qsort(key, (size_t)nraw, sizeof *key, cmp_eig);
  st->any_flutter = st->any_divergence = 0;
  for (fcd_index k = 0; k < nraw; k++) {
    st->lre[k] = key[k].re;
    st->lim[k] = key[k].im;
    lift(sys, tn, vec + key[k].k * nr, st->vre + k * n, st->vim + k * n);
    fcd_real scale = fmax(1.0, hypot(key[k].re, key[k].im));
    if (key[k].re > 1e-9 * scale) {
      if (fabs(key[k].im) > 1e-9 * scale) st->any_flutter = 1;
      else st->any_divergence = 1;
    }
  }
  st->nconv = nraw;
  fcd__free(key);
  return FCD_OK;
}

/* smallest eigenvalue of (A + A^T)/2, dense; NaN if LAPACK fails; *nomem set when its
 * work arrays cannot be allocated */
static fcd_real min_sym_eig(fcd_index nr, const fcd_real *A, int *nomem) {
  if (nr == 0) return NAN;
  fcd_real *S = fcd__malloc_array((size_t)nr * (size_t)nr, sizeof *S);
  fcd_real *w = fcd__malloc_array((size_t)nr, sizeof *w);
  fcd_real r = NAN;
  if (!S || !w) *nomem = 1;
  if (S && w) {
    for (fcd_index i = 0; i < nr; i++)
      for (fcd_index j = 0; j < nr; j++) S[i * nr + j] = 0.5 * (A[i * nr + j] + A[j * nr + i]);
    if (fcd__la_syev(0, nr, S, w) == 0)
      r = w[0];
  }
  fcd__free(S);
  fcd__free(w);
  return r;
}

/* The eigenpairs of A x = lambda B x (n x n, row-major) by LAPACK's QZ, as complex
 * values and vectors (n per pair); infinite eigenvalues (|beta| below 1e3 eps |alpha|)
 * are dropped and counted. Ward's balancing (dggevx 'B': permutation, then row and
 * column scaling), which dggev itself does not do, is asked for where it matters: a
 * sliding contact with a huge mu puts entries of mu and 1/mu in the same pencil, and
 * unbalanced QZ loses the eigenvalues that depend on the small ones (the pin of seed 000
 * at mu = 1e20: both roots, sqrt(mu) large, came back infinite). Returns the number of finite eigenvalues, with *ninf the infinite ones; -2
 * out of memory; -1 LAPACK failed; -3 the pencil has entries that are not finite; -4
 * LAPACK's answer is not finite, or a column that starts a complex pair has no conjugate
 * beside it. dggev stores a pair in columns k, k+1 with ai[k] > 0 > ai[k+1]; on a pencil
 * whose entries overflow (mu = 1e308 times a stiffness row) it returned NaN where a pair
 * should start in the last column, and reading "column k + 1" ran past the vectors
 * (issue 64). Nothing of such an answer is used. */
static fcd_index dense_ggev(fcd_index nn, fcd_real *A, fcd_real *B, double complex *lam,
                            double complex *vec, fcd_index *ninf, int balance) {
  *ninf = 0;
  for (fcd_index i = 0; i < nn * nn; i++)
    if (!isfinite(A[i]) || !isfinite(B[i])) return -3;
  fcd_real *ar = fcd__malloc_array((size_t)nn, sizeof *ar), *ai = fcd__malloc_array((size_t)nn, sizeof *ai);
  fcd_real *be = fcd__malloc_array((size_t)nn, sizeof *be);
  fcd_real *vr = fcd__malloc_array((size_t)nn * (size_t)nn, sizeof *vr);
  fcd_real *ls = fcd__malloc_array((size_t)nn + 1, sizeof *ls);
  fcd_real *rs = fcd__malloc_array((size_t)nn + 1, sizeof *rs);
  fcd_index cnt = (ar && ai && be && vr && ls && rs) ? -1 : -2;
  if (cnt == -1 &&
      fcd__la_ggev(balance, nn, A, B, ar, ai, be, vr, ls, rs) == 0) {
    cnt = 0;
    /* the whole answer is checked before any of it is read as pairs */
    for (fcd_index k = 0; k < nn && cnt == 0; k++) {
      if (!isfinite(ar[k]) || !isfinite(ai[k]) || !isfinite(be[k])) cnt = -4;
      if (ai[k] != 0) {
        /* the pair's alpha and beta are scaled apart (dhgeqz), their ratios conjugate */
        if (k + 1 >= nn || !(ai[k] > 0) || !(ai[k + 1] < 0)) cnt = -4;
        k++;
      }
    }
    for (fcd_index i = 0; i < nn * nn && cnt == 0; i++)
      if (!isfinite(vr[i])) cnt = -4;
    for (fcd_index k = 0; k < nn && cnt >= 0; k++) {
      if (fabs(be[k]) <= 1e3 * DBL_EPSILON * hypot(ar[k], ai[k])) {
        (*ninf)++;
        if (ai[k] != 0) {
          k++; /* its conjugate is infinite too */
          (*ninf)++;
        }
        continue;
      }
      if (ai[k] == 0) {
        lam[cnt] = ar[k] / be[k];
        for (fcd_index i = 0; i < nn; i++) vec[cnt * nn + i] = vr[i * nn + k];
        cnt++;
      } else {
        /* a conjugate pair in columns k, k+1 (checked above) */
        for (int sgn = 1; sgn >= -1; sgn -= 2) {
          lam[cnt] = (ar[k] + sgn * I * ai[k]) / be[k];
          for (fcd_index i = 0; i < nn; i++)
            vec[cnt * nn + i] = vr[i * nn + k] + sgn * I * vr[i * nn + k + 1];
          cnt++;
        }
        k++;
      }
    }
    for (fcd_index k = 0; k < cnt; k++)
      if (!isfinite(creal(lam[k])) || !isfinite(cimag(lam[k]))) cnt = -4;
  }
  fcd__free(ar);
  fcd__free(ai);
  fcd__free(be);
  fcd__free(vr);
  fcd__free(ls);
  fcd__free(rs);
  return cnt;
}

static fcd_real dense_norm_inf(fcd_index n, const fcd_real *A) {
  fcd_real m = 0;
  for (fcd_index i = 0; i < n; i++) {
    fcd_real s = 0;
    for (fcd_index j = 0; j < n; j++) s += fabs(A[i * n + j]);
    m = fmax(m, s);
  }
  return m;
}

/* The companion form of lambda^2 M + lambda C + K (n x n, row-major, dense), scaled as
 * Fan, Lin and Van Dooren (2004) do: lambda = gamma mu with gamma = sqrt(|K| / |M|), the
 * whole multiplied by delta = 2 / (|K| + gamma |C|), so that the three coefficients
 * have comparable norms. Unscaled, a damped model in SI units (|K| / |M| ~ 1e10)
 * linearizes into a pencil whose pairs fail the quadratic's backward-error bound.
 * [0 I; -dK -g d C] x = mu [I 0; 0 g^2 d M] x, x = (v, mu v), into A and B (2n x 2n,
 * zeroed by the caller); *gamma receives the factor that turns mu back into lambda. */
static void companion(fcd_index n, const fcd_real *K, const fcd_real *C, const fcd_real *M,
                      fcd_real *A, fcd_real *B, fcd_real *gamma) {
  fcd_index nn = 2 * n;
  fcd_real nk = dense_norm_inf(n, K), nm = dense_norm_inf(n, M), nc = dense_norm_inf(n, C);
  fcd_real g = nk > 0 && nm > 0 ? sqrt(nk / nm) : 1, den = nk + g * nc;
  fcd_real d = den > 0 ? 2 / den : 1;
  *gamma = g;
  for (fcd_index i = 0; i < n; i++) {
    A[i * nn + n + i] = 1;
    B[i * nn + i] = 1;
    for (fcd_index j = 0; j < n; j++) {
      A[(n + i) * nn + j] = -d * K[i * n + j];
      A[(n + i) * nn + n + j] = -g * d * C[i * n + j];
      B[(n + i) * nn + n + j] = g * g * d * M[i * n + j];
    }
  }
}

/* Largest backward error of the eigenpairs (lam, vec) of lambda^2 M + lambda C + K
 * (n x n dense, C may be NULL; Rayleigh: C = alpha M + beta K), row by row:
 *   eta_i = |[(lam^2 M + lam C + K) v]_i| / ((|lam|^2 |M_i| + |lam| |C_i| + |K_i|) |v|_inf)
 * with |A_i| the 1-norm of row i: the normwise backward error (Tisseur's) of the pencil
 * with its rows equilibrated, so that a sliding contact's row (mu times the others, mu
 * up to 1e20) cannot hide the error of the other rows as a plain normwise measure
 * would. (Componentwise, Oettli-Prager, is not what QZ guarantees: 5e-9 on the pin at
 * mu = 1e20 for pairs exact to 1e-16.) *norm receives |K|_inf. */
static fcd_real pep_backward_error(fcd_index n, const fcd_real *K, const fcd_real *M,
                                   const fcd_real *C, fcd_real ra, fcd_real rb,
                                   fcd_index cnt, const double complex *lam,
                                   const double complex *vec, fcd_real *norm) {
  *norm = dense_norm_inf(n, K);
  fcd_real worst = 0;
  for (fcd_index k = 0; k < cnt; k++) {
    const double complex *v = vec + k * n;
    double complex l = lam[k];
    fcd_real al = cabs(l), vmax = 0;
    for (fcd_index j = 0; j < n; j++) vmax = fmax(vmax, cabs(v[j]));
    for (fcd_index i = 0; i < n; i++) {
      double complex r = 0;
      fcd_real den = 0;
      for (fcd_index j = 0; j < n; j++) {
        fcd_real c = C ? C[i * n + j] : ra * M[i * n + j] + rb * K[i * n + j];
        r += (l * l * M[i * n + j] + l * c + K[i * n + j]) * v[j];
        den += (al * al * fabs(M[i * n + j]) + al * fabs(c) + fabs(K[i * n + j])) * vmax;
      }
      fcd_real e = den > 0 ? cabs(r) / den : (cabs(r) > 0 ? INFINITY : 0);
      if (!(e <= worst)) worst = e; /* NaN propagates */
    }
  }
  return worst;
}

/* (s A) v added to r and |s| |A| vmax to den, row by row (A may be upper-stored) */
static void csr_rows(const fcd__csr *A, double complex s, const double complex *v, fcd_real vmax,
                     double complex *r, fcd_real *den) {
  if (!A || !A->set) return;
  fcd_real as = cabs(s);
  for (fcd_index i = 0; i < A->n; i++)
    for (fcd_index e = A->rowptr[i]; e < A->rowptr[i + 1]; e++) {
      fcd_index j = A->col[e];
      fcd_real a = A->val[e];
      r[i] += s * a * v[j];
      den[i] += as * fabs(a) * vmax;
      if (A->upper && j != i) {
        r[j] += s * a * v[i];
        den[j] += as * fabs(a) * vmax;
      }
    }
}

/* The 3D sliding damping's rank-one terms coef_k bl_k br_k^T, gathered sparse once. */
typedef struct {
  fcd_index nk, *lp, *rp, *li, *ri;
  fcd_real *coef, *lv, *rv;
} slide_terms;

static void slide_terms_free(slide_terms *t) {
  fcd__free(t->lp);
  fcd__free(t->rp);
  fcd__free(t->li);
  fcd__free(t->ri);
  fcd__free(t->coef);
  fcd__free(t->lv);
  fcd__free(t->rv);
  memset(t, 0, sizeof *t);
}

/* 0 on success, -1 out of memory. Two passes (count, fill): the vectors come dense. */
static int slide_terms_build(const fcd_stability *st, const tmap *tn, const tmap *tm,
                             slide_terms *t) {
  memset(t, 0, sizeof *t);
  fcd_index nc = nct(st), nr = tn->nred, nl = 0, nrr = 0;
  if (cdim(st) != 3 || !st->rn || nc == 0) return 0;
  fcd_real *bl = fcd__calloc((size_t)nr + 1, sizeof *bl), *br = fcd__calloc((size_t)nr + 1, sizeof *br);
  t->lp = fcd__calloc((size_t)nc + 1, sizeof *t->lp);
  t->rp = fcd__calloc((size_t)nc + 1, sizeof *t->rp);
  t->coef = fcd__calloc((size_t)nc + 1, sizeof *t->coef);
  if (!bl || !br || !t->lp || !t->rp || !t->coef) goto nomem;
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 1) {
      t->li = fcd__malloc_array((size_t)nl + 1, sizeof *t->li);
      t->lv = fcd__malloc_array((size_t)nl + 1, sizeof *t->lv);
      t->ri = fcd__malloc_array((size_t)nrr + 1, sizeof *t->ri);
      t->rv = fcd__malloc_array((size_t)nrr + 1, sizeof *t->rv);
      if (!t->li || !t->lv || !t->ri || !t->rv) goto nomem;
      nl = nrr = 0;
    }
    for (fcd_index c = 0; c < nc; c++) {
      int nomem = 0;
      fcd_real coef = sliding_vectors(st, tn, tm, c, bl, br, &nomem);
      if (nomem) goto nomem;
      if (coef == 0) continue;
      for (fcd_index i = 0; i < nr; i++) {
        if (bl[i] != 0) {
          if (pass) {
            t->li[nl] = i;
            t->lv[nl] = bl[i];
          }
          nl++;
        }
        if (br[i] != 0) {
          if (pass) {
            t->ri[nrr] = i;
            t->rv[nrr] = br[i];
          }
          nrr++;
        }
      }
      if (pass) {
        t->coef[t->nk++] = coef;
        t->lp[t->nk] = nl;
        t->rp[t->nk] = nrr;
      }
    }
  }
  fcd__free(bl);
  fcd__free(br);
  return 0;
nomem:
  fcd__free(bl);
  fcd__free(br);
  slide_terms_free(t);
  return -1;
}

/* pep_backward_error on the sparse reduced pencil: C* is the CSR C (may be unset), or
 * alpha M* + beta K* (Rayleigh; its row norm bounded by |alpha| |M_i| + |beta| |K_i|,
 * which can only lower the figure by that triangle inequality), plus the sliding terms.
 * NaN when out of memory. Only the pairs k with k % parts == part (a rank's share). */
static fcd_real pep_backward_error_csr(fcd_index n, const fcd__csr *K, const fcd__csr *M,
                                       const fcd__csr *C, fcd_real ra, fcd_real rb,
                                       const slide_terms *sl, fcd_index cnt,
                                       const double complex *lam, const double complex *vec,
                                       int part, int parts, fcd_real *norm) {
  double complex *r = fcd__malloc_array((size_t)n + 1, sizeof *r);
  fcd_real *den = fcd__malloc_array((size_t)n + 1, sizeof *den);
  if (!r || !den) {
    fcd__free(r);
    fcd__free(den);
    return NAN;
  }
  fcd_real nk = 0;
  for (fcd_index i = 0; K->set && i < n; i++) den[i] = 0;
  if (K->set)
    for (fcd_index i = 0; i < n; i++)
      for (fcd_index e = K->rowptr[i]; e < K->rowptr[i + 1]; e++) {
        den[i] += fabs(K->val[e]);
        if (K->upper && K->col[e] != i) den[K->col[e]] += fabs(K->val[e]);
      }
  for (fcd_index i = 0; K->set && i < n; i++) nk = fmax(nk, den[i]);
  *norm = nk;
  fcd_real worst = 0;
  for (fcd_index k = part; k < cnt; k += parts) {
    const double complex *v = vec + k * n;
    double complex l = lam[k];
    fcd_real vmax = 0;
    for (fcd_index j = 0; j < n; j++) {
      vmax = fmax(vmax, cabs(v[j]));
      r[j] = 0;
      den[j] = 0;
    }
    csr_rows(K, 1, v, vmax, r, den);
    csr_rows(M, l * l, v, vmax, r, den);
    if (C && C->set) csr_rows(C, l, v, vmax, r, den);
    else if (ra != 0 || rb != 0) {
      csr_rows(M, l * ra, v, vmax, r, den);
      csr_rows(K, l * rb, v, vmax, r, den);
    }
    for (fcd_index q = 0; sl && q < sl->nk; q++) {
      double complex s = 0;
      fcd_real b1 = 0;
      for (fcd_index e = sl->rp[q]; e < sl->rp[q + 1]; e++) {
        s += sl->rv[e] * v[sl->ri[e]];
        b1 += fabs(sl->rv[e]);
      }
      for (fcd_index e = sl->lp[q]; e < sl->lp[q + 1]; e++) {
        r[sl->li[e]] += l * sl->coef[q] * sl->lv[e] * s;
        den[sl->li[e]] += cabs(l) * fabs(sl->coef[q] * sl->lv[e]) * b1 * vmax;
      }
    }
    for (fcd_index i = 0; i < n; i++) {
      fcd_real e = den[i] > 0 ? cabs(r[i]) / den[i] : (cabs(r[i]) > 0 ? INFINITY : 0);
      if (!(e <= worst)) worst = e;
    }
  }
  fcd__free(r);
  fcd__free(den);
  return worst;
}

/* the worst of the ranks' shares of a certificate, NaN (out of memory) if any is */
static fcd_status certificate_reduce(const fcd_system *sys, int64_t comm_f, fcd_real *berr) {
  long long ok = !isnan(*berr);
  FCD_TRY(fcd__comm_min(sys, comm_f, &ok, 1));
  if (!ok) {
    *berr = NAN;
    return FCD_OK;
  }
  return fcd__comm_max_real(sys, comm_f, berr);
}

/* bound on the backward error of a dense eigen-solve's pairs: QZ is backward stable, so
 * anything above a few hundred eps is a defect (a wrong pencil or a failed balance) */
#define FCD__EIG_CERT_TOL 1e-8

static int sys_has_damping(const fcd_system *sys) {
  return sys->mat[FCD_DAMPING].set || sys->ray_alpha != 0 || sys->ray_beta != 0;
}

/* The status and message of a dense eigen-solve that returned no pairs (dense_ggev's
 * codes): what makes a pencil not finite is named (friction coefficients times a row). */
static fcd_status ggev_failure(fcd_stability *st, fcd_index rc, fcd_index n, const char *what) {
  fcd_system *sys = st->sys;
  if (rc == -2) return fcd__err(sys, FCD_E_NOMEM, "out of memory in the dense eigensolver");
  if (rc == -3) {
    fcd_real mu = 0;
    for (fcd_index c = 0; st->cs && c < st->cs->n; c++) mu = fmax(mu, mu_of(st, c));
    return fcd__err(sys, FCD_E_INVALID_ARG, "the %lld-dof %s pencil has entries that are "
                    "not finite (the largest friction coefficient, %g, times a row of K or M "
                    "overflows, or the matrices hold Inf): no eigenvalues", (long long)n,
                    what, mu);
  }
  if (rc == -4)
    return fcd__err(sys, FCD_E_BACKEND, "LAPACK's QZ returned eigenvalues or vectors that "
                    "are not finite, or a complex pair without its conjugate, on the %lld-dof "
                    "%s pencil: no eigenvalues", (long long)n, what);
  return fcd__err(sys, FCD_E_BACKEND, "LAPACK dggev failed on the %lld-dof %s pencil",
                  (long long)n, what);
}

/* The eigenpairs of the dense reduced pencil, balanced or not, and their worst backward
 * error (*berr, relative to *bnorm). Undamped or Rayleigh: QZ on (K*, M*), each Lambda
 * giving its two lambda; otherwise QZ on the companion form. *out_lam and *out_vec are
 * allocated here (nraw pairs, nr-long vectors). -2 out of memory, -1 LAPACK failed. */
static int dense_pairs(const fcd_system *sys, fcd_index nr, const fcd_real *Kr,
                       const fcd_real *Mr, const fcd_real *Cr, int rayleigh, int balance,
                       double complex **out_lam, double complex **out_vec, fcd_index *nraw,
                       fcd_index *ninf, fcd_real *berr, fcd_real *bnorm) {
  int damped = Cr != NULL;
  fcd_index nn = damped ? 2 * nr : nr, nl;
  fcd_real *A = fcd__calloc((size_t)nn * (size_t)nn + 1, sizeof *A);
  fcd_real *B = fcd__calloc((size_t)nn * (size_t)nn + 1, sizeof *B);
  double complex *lam = fcd__malloc_array((size_t)nn + 1, sizeof *lam);
  double complex *vec = fcd__malloc_array((size_t)nn * (size_t)nn + 1, sizeof *vec);
  double complex *l2 = NULL, *v2 = NULL;
  int rc = 0;
  *out_lam = NULL;
  *out_vec = NULL;
  if (!A || !B || !lam || !vec) {
    rc = -2;
    goto done;
  }
  fcd_real gamma = 1;
  if (damped) {
    companion(nr, Kr, Cr, Mr, A, B, &gamma);
  } else {
    memcpy(A, Kr, (size_t)nr * (size_t)nr * sizeof *A);
    memcpy(B, Mr, (size_t)nr * (size_t)nr * sizeof *B);
  }
  nl = dense_ggev(nn, A, B, lam, vec, ninf, balance);
  if (nl < 0) {
    rc = (int)nl;
    goto done;
  }
  if (damped) {
    /* keep the displacement half of each vector; mu back to lambda */
    for (fcd_index k = 0; k < nl; k++) {
      memmove(vec + k * nr, vec + k * nn, (size_t)nr * sizeof *vec);
      lam[k] *= gamma;
    }
    *berr = pep_backward_error(nr, Kr, Mr, Cr, 0, 0, nl, lam, vec, bnorm);
    *out_lam = lam;
    *out_vec = vec;
    *nraw = nl;
    lam = vec = NULL;
    goto done;
  }
  *ninf *= 2; /* each infinite Lambda = -lambda^2 is a pair of infinite lambda */
  /* lambda = +- sqrt(-Lambda) */
  l2 = fcd__malloc_array((size_t)(2 * nl) + 1, sizeof *l2);
  v2 = fcd__malloc_array((size_t)(2 * nl * nr) + 1, sizeof *v2);
  if (!l2 || !v2) {
    rc = -2;
    goto done;
  }
  for (fcd_index k = 0; k < nl; k++) {
    if (rayleigh) {
      double complex b = sys->ray_alpha + sys->ray_beta * lam[k];
      double complex disc = csqrt(b * b - 4 * lam[k]);
      l2[2 * k] = (-b + disc) / 2;
      l2[2 * k + 1] = (-b - disc) / 2;
    } else {
      double complex r = csqrt(-lam[k]);
      l2[2 * k] = r;
      l2[2 * k + 1] = -r;
    }
    memcpy(v2 + 2 * k * nr, vec + k * nr, (size_t)nr * sizeof *v2);
    memcpy(v2 + (2 * k + 1) * nr, vec + k * nr, (size_t)nr * sizeof *v2);
  }
  *berr = pep_backward_error(nr, Kr, Mr, NULL, rayleigh ? sys->ray_alpha : 0,
                             rayleigh ? sys->ray_beta : 0, 2 * nl, l2, v2, bnorm);
  *out_lam = l2;
  *out_vec = v2;
  *nraw = 2 * nl;
  l2 = v2 = NULL;
done:
  fcd__free(A);
  fcd__free(B);
  fcd__free(lam);
  fcd__free(vec);
  fcd__free(l2);
  fcd__free(v2);
  return rc;
}

static fcd_status solve_dense(fcd_stability *st, const fcd__free_pattern *fp, const tmap *tn,
                              const tmap *tm, int damped) {
  fcd_system *sys = st->sys;
  /* Rayleigh damping alone (C* = alpha M* + beta K*, the same reduction of each matrix)
   * keeps the eigenvectors of the undamped pencil: each Lambda gives its two lambda by
   * lambda^2 + (alpha + beta Lambda) lambda + Lambda = 0, exactly, at an eighth of the
   * cost of the companion form */
  int rayleigh = damped && !sys->mat[FCD_DAMPING].set && !(cdim(st) == 3 && st->rn);
  if (rayleigh) damped = 0;
  fcd_index nr = tn->nred;
  fcd_real *val = fcd__malloc_array((size_t)fp->nnz + 1, sizeof *val);
  fcd_real *Kr = fcd__malloc_array((size_t)nr * (size_t)nr + 1, sizeof *Kr);
  fcd_real *Mr = fcd__malloc_array((size_t)nr * (size_t)nr + 1, sizeof *Mr);
  fcd_real *Cr = damped ? fcd__malloc_array((size_t)nr * (size_t)nr + 1, sizeof *Cr) : NULL;
  double complex *lam = NULL, *vec = NULL;
  fcd_status status = FCD_OK;
  if (!val || !Kr || !Mr || (damped && !Cr)) goto nomem;
  if ((status = fcd__system_combination(sys, 0, 0, 1, val)) != FCD_OK) goto done;
  reduce_dense(fp, val, tn, tm, Kr);
  if ((status = fcd__system_combination(sys, 1, 0, 0, val)) != FCD_OK) goto done;
  reduce_dense(fp, val, tn, tm, Mr);
  if (damped) {
    if ((status = fcd__system_combination(sys, 0, 1, 0, val)) != FCD_OK) goto done;
    reduce_dense(fp, val, tn, tm, Cr);
    if (add_sliding_damping(st, tn, tm, Cr)) goto nomem;
  }
  int sym_nomem = 0;
  st->min_sym = min_sym_eig(nr, Kr, &sym_nomem);
  if (sym_nomem) goto nomem;
  st->necessary = !(st->min_sym > 0);
  /* balanced QZ first; a pencil whose entries span many orders of magnitude for no
   * reason (round-off weights from a host's rows) can make the balancing itself the
   * error: then the unbalanced QZ, and the better certified of the two */
  fcd_index cnt = 0, ninf = 0;
  for (int balance = 1; balance >= 0; balance--) {
    double complex *l = NULL, *v = NULL;
    fcd_index c = 0, ni = 0;
    fcd_real be = NAN, bn = 0;
    int rc = dense_pairs(sys, nr, Kr, Mr, Cr, rayleigh, balance, &l, &v, &c, &ni, &be, &bn);
    if (rc == -2) goto nomem;
    if (rc < 0) {
      if (lam && rc != -3) break; /* keep the balanced pairs */
      fcd__free(lam);
      fcd__free(vec);
      lam = vec = NULL;
      status = ggev_failure(st, rc, nr, damped ? "companion" : "reduced");
      goto done;
    }
    if (!lam || !(st->berr <= be)) {
      fcd__free(lam);
      fcd__free(vec);
      lam = l;
      vec = v;
      cnt = c;
      ninf = ni;
      st->berr = be;
      st->bnorm = bn;
    } else {
      fcd__free(l);
      fcd__free(v);
    }
    if (st->berr <= FCD__EIG_CERT_TOL) break;
  }
  status = store(st, tn, cnt, lam, vec);
  if (status == FCD_OK) st->ninf = ninf;
  st->btol = FCD__EIG_CERT_TOL;
  if (status == FCD_OK && !(st->berr <= FCD__EIG_CERT_TOL))
    status = fcd__err(sys, FCD_E_NOT_CONVERGED, "dense eigen-solve: an eigenpair has a "
                      "backward error of %.3e (bound %.0e, relative to |K*| = %.3e); the "
                      "previous results are kept", st->berr, FCD__EIG_CERT_TOL, st->bnorm);
  goto done;
nomem:
  status = fcd__err(sys, FCD_E_NOMEM, "out of memory in the dense eigen-solve");
done:
  fcd__free(val);
  fcd__free(Kr);
  fcd__free(Mr);
  fcd__free(Cr);
  fcd__free(lam);
  fcd__free(vec);
  return status;
}

/* Modal projection for a large damped problem whose shift would have to be complex:
 * the undamped pencil's eigenvectors nearest the target (real shift) span a basis P
 * (real and imaginary parts, orthonormalized), and the damped quadratic problem
 * P^T (lambda^2 M* + lambda C* + K*) P y = 0 is solved densely (companion form). */
/* The projection basis P (nr x m, returned m): the real and imaginary parts of the got
 * eigenvectors (xr, xi), orthonormalized by modified Gram-Schmidt twice, near-dependent
 * vectors dropped. */
static fcd_index modal_basis(fcd_index nr, fcd_index got, const fcd_real *xr, const fcd_real *xi,
                             fcd_real *P) {
  fcd_index m = 0;
  for (fcd_index k = 0; k < 2 * got; k++) {
    const fcd_real *src = k % 2 ? xi + (k / 2) * nr : xr + (k / 2) * nr;
    fcd_real *q = P + m * nr, n0 = 0, n1 = 0;
    for (fcd_index i = 0; i < nr; i++) {
      q[i] = src[i];
      n0 += q[i] * q[i];
    }
    if (!(n0 > 0)) continue;
    for (int pass = 0; pass < 2; pass++)
      for (fcd_index j = 0; j < m; j++) {
        const fcd_real *pj = P + j * nr;
        fcd_real d = 0;
        for (fcd_index i = 0; i < nr; i++) d += pj[i] * q[i];
        for (fcd_index i = 0; i < nr; i++) q[i] -= d * pj[i];
      }
    for (fcd_index i = 0; i < nr; i++) n1 += q[i] * q[i];
    if (n1 <= 1e-16 * n0) continue;
    n1 = 1 / sqrt(n1);
    for (fcd_index i = 0; i < nr; i++) q[i] *= n1;
    m++;
  }
  return m;
}

/* Kp, Mp, Cp = P^T {K, M, C} P (m x m), y an nr-entry work vector; an unset operator
 * leaves its projection zero. */
static void project_operators(fcd_index nr, fcd_index m, const fcd_real *P, const fcd__csr *Kr,
                              const fcd__csr *Mr, const fcd__csr *Cr, fcd_real *y, fcd_real *Kp,
                              fcd_real *Mp, fcd_real *Cp) {
  const fcd__csr *ops[3] = {Kr, Mr, Cr};
  fcd_real *outs[3] = {Kp, Mp, Cp};
  for (int o = 0; o < 3; o++) {
    if (!ops[o] || !ops[o]->set) continue;
    for (fcd_index j = 0; j < m; j++) {
      memset(y, 0, (size_t)nr * sizeof *y);
      fcd__csr_gaxpy(ops[o], 1.0, P + j * nr, y);
      for (fcd_index i = 0; i < m; i++) {
        const fcd_real *pi = P + i * nr;
        fcd_real d = 0;
        for (fcd_index k = 0; k < nr; k++) d += pi[k] * y[k];
        outs[o][i * m + j] = d;
      }
    }
  }
}

static fcd_status solve_projected(fcd_stability *st, const tmap *tn, const tmap *tm,
                                  const fcd__csr *Kr, const fcd__csr *Mr, const fcd__csr *Cr,
                                  fcd_index nev) {
  fcd_system *sys = st->sys;
  fcd_index nr = tn->nred, nc = nct(st);
  fcd_index nb = st->proj_modes > 0 ? st->proj_modes : (2 * nev > nev + 20 ? 2 * nev : nev + 20);
  if (nb > nr) nb = nr;
  fcd_real w = 2 * 3.14159265358979323846 * st->target_hz;
  fcd_real *lre = fcd__malloc_array((size_t)nb + 1, sizeof *lre);
  fcd_real *lim = fcd__malloc_array((size_t)nb + 1, sizeof *lim);
  fcd_real *xr = fcd__malloc_array((size_t)(nb * nr) + 1, sizeof *xr);
  fcd_real *xi = fcd__malloc_array((size_t)(nb * nr) + 1, sizeof *xi);
  fcd_real *P = fcd__malloc_array((size_t)(2 * nb * nr) + 1, sizeof *P);
  fcd_real *y = fcd__malloc_array((size_t)nr + 1, sizeof *y);
  fcd_real *A = NULL, *B = NULL, *Kp = NULL, *Mp = NULL, *Cp = NULL, *bl = NULL, *br = NULL;
  double complex *lam = NULL, *vec = NULL, *sel = NULL, *svec = NULL;
  fcd_status status = FCD_OK;
  fcd_index got = 0, m = 0;
  fcd_real reached = 0;
  if (!lre || !lim || !xr || !xi || !P || !y) goto nomem;
  status = fcd__slepc_gen_nonsym(sys, st->comm_f, nr, Kr, Mr, w * w, nb, st->tol, st->max_it,
                                 lre, lim, xr, xi, &got, &reached, NULL);
  if (status != FCD_OK) goto done;
  m = modal_basis(nr, got, xr, xi, P);
  if (m == 0) {
    status = fcd__err(sys, FCD_E_NOT_CONVERGED, "modal projection: no undamped eigenvector "
                      "converged near %g Hz to %g in %lld iterations (error estimate "
                      "reached %.3e); the previous results are kept", st->target_hz, st->tol,
                      (long long)st->max_it, reached);
    goto done;
  }
  Kp = fcd__calloc((size_t)(m * m), sizeof *Kp);
  Mp = fcd__calloc((size_t)(m * m), sizeof *Mp);
  Cp = fcd__calloc((size_t)(m * m), sizeof *Cp);
  bl = fcd__malloc_array((size_t)nr + 1, sizeof *bl);
  br = fcd__malloc_array((size_t)nr + 1, sizeof *br);
  if (!Kp || !Mp || !Cp || !bl || !br) goto nomem;
  project_operators(nr, m, P, Kr, Mr, Cr, y, Kp, Mp, Cp);
  /* the 3D sliding damping, rank one per slipping contact: Cp += coef (P^T bl)(br^T P) */
  for (fcd_index c = 0; c < nc; c++) {
    int nomem = 0;
    fcd_real coef = sliding_vectors(st, tn, tm, c, bl, br, &nomem);
    if (nomem) goto nomem;
    if (coef == 0) continue;
    fcd_real *pl = fcd__malloc_array((size_t)(2 * m), sizeof *pl), *pr = pl ? pl + m : NULL;
    if (!pl) goto nomem;
    for (fcd_index i = 0; i < m; i++) {
      const fcd_real *pi = P + i * nr;
      fcd_real a = 0, b = 0;
      for (fcd_index k = 0; k < nr; k++) {
        a += pi[k] * bl[k];
        b += pi[k] * br[k];
      }
      pl[i] = a;
      pr[i] = b;
    }
    for (fcd_index i = 0; i < m; i++)
      for (fcd_index j = 0; j < m; j++) Cp[i * m + j] += coef * pl[i] * pr[j];
    fcd__free(pl);
  }
  fcd_index nn = 2 * m;
  A = fcd__calloc((size_t)(nn * nn), sizeof *A);
  B = fcd__calloc((size_t)(nn * nn), sizeof *B);
  lam = fcd__malloc_array((size_t)nn + 1, sizeof *lam);
  vec = fcd__malloc_array((size_t)(nn * nn) + 1, sizeof *vec);
  if (!A || !B || !lam || !vec) goto nomem;
  fcd_real gamma = 1;
  companion(m, Kp, Cp, Mp, A, B, &gamma);
  fcd_index pinf = 0;
  /* unbalanced: the projected problem is well scaled by construction (orthonormal
   * basis), and Ward's scaling was measured to lose its eigenvalues to spurious
   * infinite ones on the 2-dof sliding-damping case */
  fcd_index nl = dense_ggev(nn, A, B, lam, vec, &pinf, 0);
  for (fcd_index k = 0; k < nl; k++) lam[k] *= gamma;
  st->ninf = pinf;
  if (nl < 0) {
    status = ggev_failure(st, nl, m, "projected");
    goto done;
  }
  /* the 2 nev nearest +-i w, lifted back through the basis */
  fcd_index want = 2 * nev < nl ? 2 * nev : nl;
  sel = fcd__malloc_array((size_t)want + 1, sizeof *sel);
  svec = fcd__malloc_array((size_t)(want * nr) + 1, sizeof *svec);
  unsigned char *used = fcd__calloc((size_t)nl + 1, 1);
  if (!sel || !svec || !used) {
    fcd__free(used);
    goto nomem;
  }
  for (fcd_index k = 0; k < want; k++) {
    fcd_index best = -1;
    fcd_real bd = INFINITY;
    for (fcd_index q = 0; q < nl; q++) {
      if (used[q]) continue;
      fcd_real d = fmin(cabs(lam[q] - I * w), cabs(lam[q] + I * w));
      if (d < bd) {
        bd = d;
        best = q;
      }
    }
    used[best] = 1;
    sel[k] = lam[best];
    for (fcd_index i = 0; i < nr; i++) {
      double complex s = 0;
      for (fcd_index j = 0; j < m; j++) s += P[j * nr + i] * vec[best * nn + j];
      svec[k * nr + i] = s;
    }
  }
  fcd__free(used);
  {
    slide_terms sl;
    if (slide_terms_build(st, tn, tm, &sl) != 0) goto nomem;
    st->berr = pep_backward_error_csr(nr, Kr, Mr, Cr, 0, 0, &sl, want, sel, svec, 0, 1,
                                      &st->bnorm);
    slide_terms_free(&sl);
    if (isnan(st->berr)) goto nomem;
    st->btol = INFINITY;
  }
  status = store(st, tn, want, sel, svec);
  if (status == FCD_OK)
    fcd__err(sys, FCD_OK, "damped eigenvalues by modal projection on %lld undamped modes "
             "near %g Hz (%lld basis vectors)", (long long)got, st->target_hz, (long long)m);
  goto done;
nomem:
  status = fcd__err(sys, FCD_E_NOMEM, "out of memory in the modal projection");
done:
  fcd__free(lre);
  fcd__free(lim);
  fcd__free(xr);
  fcd__free(xi);
  fcd__free(P);
  fcd__free(y);
  fcd__free(A);
  fcd__free(B);
  fcd__free(Kp);
  fcd__free(Mp);
  fcd__free(Cp);
  fcd__free(bl);
  fcd__free(br);
  fcd__free(lam);
  fcd__free(vec);
  fcd__free(sel);
  fcd__free(svec);
  return status;
}

/* the necessary condition: the symmetric part of K* positive definite? (CHOLMOD on it,
 * with the shifted LU's pivot order when there is one: K* - sigma M* has K*'s pattern
 * and its symmetric part's, and CHOLMOD's own search for an order, AMD then METIS, took
 * 0.52 of the condition's 2.2 s at 102,675 dofs, on rank 0 while the others waited) */
static fcd_status necessary_condition(fcd_system *sys, const fcd__csr *Kr,
                                      const fcd_index *order, int *pd) {
  fcd__csr S;
  *pd = 0;
  FCD_TRY(fcd__csr_symmetric_part(sys, Kr, &S));
  fcd_status status = order && order[0] >= 0 ? fcd__chol_is_pd_ordered(sys, &S, order, pd)
                                             : fcd__chol_is_pd(sys, &S, pd);
  fcd__csr_clear(&S);
  return status;
}

/* rank 0's necessary condition (its status mine there) to every rank (collective) */
static fcd_status necessary_share(fcd_system *sys, int64_t comm_f, fcd_status mine, int *pd) {
  long long v[2] = {mine == FCD_OK, *pd};
  FCD_TRY(fcd__comm_bcast(sys, comm_f, v, sizeof v, 0));
  if (!v[0])
    return mine != FCD_OK ? mine
                          : fcd__err(sys, FCD_E_BACKEND, "the necessary condition (CHOLMOD "
                                     "on the symmetric part of K*) failed on rank 0");
  *pd = (int)v[1];
  return FCD_OK;
}

/* The global estimate beside the sparse window, when asked for: its failure is not the
 * solve's (the reason is kept for fcd_stability_get_estimate, the message untouched).
 * The basis: the lowest modes of the frictionless reduced pencil T^T {K, M} T (the trial
 * space on both sides, symmetric positive definite for a held structure), the modal
 * basis of commercial complex-eigenvalue analyses. The symmetric part of K* itself was
 * tried first: where it is indefinite (necessary_divergence), its lowest modes carried
 * that indefiniteness into the projection, and 20 to 100 of them reported divergences of
 * 296 to 146 1/s on a 507-dof block whose whole spectrum's largest is a flutter at 45.8. */
static void estimate(fcd_stability *st, const fcd__free_pattern *fp, const tmap *tn,
                     const fcd__csr *Kr, const fcd__csr *Mr) {
  if (st->est_modes <= 0) return;
  if (st->comm_f != FCD_COMM_SERIAL) {
    snprintf(st->est_why, sizeof st->est_why, "no estimate on a communicator");
    return;
  }
  fcd_system *sys = st->sys;
  char saved[FCD_ERRMSG_CAP];
  memcpy(saved, sys->h.err, sizeof saved);
  fcd__csr K0, M0;
  memset(&K0, 0, sizeof K0);
  memset(&M0, 0, sizeof M0);
  fcd_real *val = fcd__malloc_array((size_t)fp->nnz + 1, sizeof *val);
  fcd_status e = val ? FCD_OK : fcd__err(sys, FCD_E_NOMEM, "out of memory");
  if (e == FCD_OK) e = fcd__system_combination(sys, 0, 0, 1, val);
  if (e == FCD_OK) e = reduce_csr(sys, fp, val, tn, tn, &K0);
  if (e == FCD_OK) e = fcd__system_combination(sys, 1, 0, 0, val);
  if (e == FCD_OK) e = reduce_csr(sys, fp, val, tn, tn, &M0);
  if (e == FCD_OK)
    e = fcd__stability_estimate(sys, &K0, &M0, Kr, Mr, st->est_modes, &st->est_re,
                                &st->est_im, &st->est_band, &st->est_used);
  fcd__free(val);
  fcd__csr_clear(&K0);
  fcd__csr_clear(&M0);
  if (e == FCD_OK) {
    st->est_fresh = 1;
  } else {
    snprintf(st->est_why, sizeof st->est_why, "the estimate failed: %.150s", sys->h.err);
    memcpy(sys->h.err, saved, sizeof saved);
  }
}

/* One sparse eigen-solve's working set: the reduced operators, what SLEPc returns and
 * the pairs in lambda (a generalized eigenvalue Lambda = -lambda^2 gives two). */
typedef struct {
  fcd__csr Kr, Mr, Cr;
  fcd_index nr, nev, got, cnt;
  fcd_real reached;
  fcd_real *val, *lre, *lim, *xr, *xi;
  double complex *lam, *vec;
  fcd_index *order; /* the shifted LU's order for rank 0's necessary condition, or NULL */
  int damped, pep, project, part, parts;
} sparse_run;

/* The path: general damping needs the quadratic problem (PEP), whose shift must be real
 * here; where a complex shift would be needed, modal projection instead. Then the work
 * arrays and the reduced K*, M* (and C* for the PEP). */
static fcd_status sparse_begin(fcd_stability *st, const fcd__free_pattern *fp, const tmap *tn,
                               const tmap *tm, int damped, sparse_run *r) {
  fcd_system *sys = st->sys;
  memset(r, 0, sizeof *r);
  r->nr = tn->nred;
  r->damped = damped;
  r->pep = damped && (sys->mat[FCD_DAMPING].set || (cdim(st) == 3 && st->rn));
  r->project = r->pep && (st->target_hz > 0 || (cdim(st) == 3 && st->rn));
  r->parts = 1;
  r->nev = st->nev < r->nr ? st->nev : r->nr;
  fcd_index nev = r->nev, nr = r->nr;
  r->val = fcd__malloc_array((size_t)fp->nnz + 1, sizeof *r->val);
  r->lre = fcd__malloc_array((size_t)nev + 1, sizeof *r->lre);
  r->lim = fcd__malloc_array((size_t)nev + 1, sizeof *r->lim);
  r->xr = fcd__malloc_array((size_t)(nev * nr) + 1, sizeof *r->xr);
  r->xi = fcd__malloc_array((size_t)(nev * nr) + 1, sizeof *r->xi);
  r->lam = fcd__malloc_array((size_t)(2 * nev) + 1, sizeof *r->lam);
  r->vec = fcd__malloc_array((size_t)(2 * nev * nr) + 1, sizeof *r->vec);
  if (!r->project && st->comm_f != FCD_COMM_SERIAL)
    FCD_TRY(fcd__comm_rank_size(sys, st->comm_f, &r->part, &r->parts));
  if (st->comm_f != FCD_COMM_SERIAL && !r->pep && r->part == 0) {
    r->order = fcd__malloc_array((size_t)nr + 1, sizeof *r->order);
    if (r->order) r->order[0] = -1;
  }
  if (!r->val || !r->lre || !r->lim || !r->xr || !r->xi || !r->lam || !r->vec)
    return fcd__err(sys, FCD_E_NOMEM, "out of memory in the sparse eigen-solve");
  FCD_TRY(fcd__system_combination(sys, 0, 0, 1, r->val));
  FCD_TRY(reduce_csr(sys, fp, r->val, tn, tm, &r->Kr));
  FCD_TRY(fcd__system_combination(sys, 1, 0, 0, r->val));
  FCD_TRY(reduce_csr(sys, fp, r->val, tn, tm, &r->Mr));
  if (r->pep) {
    FCD_TRY(fcd__system_combination(sys, 0, 1, 0, r->val));
    FCD_TRY(reduce_csr(sys, fp, r->val, tn, tm, &r->Cr));
  }
  return FCD_OK;
}

/* the eigen-solve of the chosen path: projected (which stores its own pairs), the PEP
 * at a real shift, or the generalized problem at -(2 pi target_hz)^2 */
static fcd_status sparse_eigs(fcd_stability *st, const tmap *tn, const tmap *tm,
                              sparse_run *r) {
  fcd_system *sys = st->sys;
  fcd_real w = 2 * 3.14159265358979323846 * st->target_hz;
  if (r->project) return solve_projected(st, tn, tm, &r->Kr, &r->Mr, &r->Cr, r->nev);
  if (r->pep)
    FCD_TRY(fcd__slepc_pep(sys, st->comm_f, r->nr, &r->Kr, &r->Cr, &r->Mr, 0.0, r->nev,
                           st->tol, st->max_it, r->lre, r->lim, r->xr, r->xi, &r->got,
                           &r->reached));
  else
    FCD_TRY(fcd__slepc_gen_nonsym(sys, st->comm_f, r->nr, &r->Kr, &r->Mr, w * w, r->nev,
                                  st->tol, st->max_it, r->lre, r->lim, r->xr, r->xi, &r->got,
                                  &r->reached, r->order));
  if (r->got == 0)
    return fcd__err(sys, FCD_E_NOT_CONVERGED, "no eigenvalue converged to %g in %lld "
                    "iterations (error estimate reached %.3e); the previous results are "
                    "kept", st->tol, (long long)st->max_it, r->reached);
  return FCD_OK;
}

static int rayleigh_damped(const fcd_stability *st, const sparse_run *r) {
  return r->damped && !r->pep && (st->sys->ray_alpha != 0 || st->sys->ray_beta != 0);
}

/* SLEPc's pairs as lambda: the PEP's are lambda already; a generalized eigenvalue Lambda
 * gives lambda^2 + (alpha + beta Lambda) lambda + Lambda = 0 under C* = alpha M* + beta K*
 * (lambda = +-sqrt(-Lambda) undamped), both roots sharing the vector */
static void sparse_lambdas(const fcd_stability *st, sparse_run *r) {
  fcd_index nr = r->nr, cnt = 0;
  for (fcd_index k = 0; k < r->got; k++) {
    double complex L = r->lre[k] + I * r->lim[k];
    double complex *v = r->vec + cnt * nr;
    for (fcd_index i = 0; i < nr; i++) v[i] = r->xr[k * nr + i] + I * r->xi[k * nr + i];
    if (r->pep) {
      r->lam[cnt++] = L;
      continue;
    }
    if (rayleigh_damped(st, r)) {
      double complex b = st->sys->ray_alpha + st->sys->ray_beta * L;
      double complex disc = csqrt(b * b - 4 * L);
      r->lam[cnt] = (-b + disc) / 2;
      r->lam[cnt + 1] = (-b - disc) / 2;
    } else {
      double complex s = csqrt(-L);
      r->lam[cnt] = s;
      r->lam[cnt + 1] = -s;
    }
    memcpy(r->vec + (cnt + 1) * nr, v, (size_t)nr * sizeof *r->vec);
    cnt += 2;
  }
  r->cnt = cnt;
}

/* The pairs' largest backward error against its bound, with the necessary condition
 * (rank 0's, nstatus and *pd) shared on a communicator: every rank holds every pair, and
 * ranks 1 .. parts - 1 certify a share each (at 303k dofs the certificate of 40 pairs is
 * seconds, which every rank spent alike) while rank 0 decides the necessary condition */
static fcd_status sparse_certify(fcd_stability *st, sparse_run *r, fcd_status nstatus,
                                 int *pd) {
  fcd_system *sys = st->sys;
  int ray = rayleigh_damped(st, r), part = r->part, parts = r->parts;
  int cpart = parts == 1 ? 0 : part == 0 ? (int)r->cnt : part - 1;
  int cparts = parts == 1 ? 1 : part == 0 ? 1 : parts - 1;
  st->berr = pep_backward_error_csr(r->nr, &r->Kr, &r->Mr, r->pep ? &r->Cr : NULL,
                                    ray ? sys->ray_alpha : 0, ray ? sys->ray_beta : 0, NULL,
                                    r->cnt, r->lam, r->vec, cpart, cparts, &st->bnorm);
  if (parts > 1) {
    FCD_TRY(certificate_reduce(sys, st->comm_f, &st->berr));
    FCD_TRY(necessary_share(sys, st->comm_f, nstatus, pd));
    st->necessary = !*pd;
  }
  if (isnan(st->berr))
    return fcd__err(sys, FCD_E_NOMEM, "out of memory in the eigenpairs' certificate");
  st->btol = fmax(FCD__EIG_CERT_TOL, 100 * st->tol);
  if (!(st->berr <= st->btol))
    return fcd__err(sys, FCD_E_NOT_CONVERGED, "sparse eigen-solve: an eigenpair has a "
                    "backward error of %.3e (bound %.0e, relative to |K*| = %.3e); the "
                    "previous results are kept", st->berr, st->btol, st->bnorm);
  return FCD_OK;
}

/* the reduced K*, M* are kept for fcd_stability_get_reduced after a good solve */
static void sparse_end(fcd_stability *st, sparse_run *r, fcd_status status) {
  fcd__free(r->val);
  fcd__csr_clear(&r->Cr);
  if (st->keep_reduced && status == FCD_OK) {
    fcd__csr_clear(&st->keptK);
    fcd__csr_clear(&st->keptM);
    st->keptK = r->Kr;
    st->keptM = r->Mr;
  } else {
    fcd__csr_clear(&r->Kr);
    fcd__csr_clear(&r->Mr);
  }
  fcd__free(r->lre);
  fcd__free(r->lim);
  fcd__free(r->xr);
  fcd__free(r->xi);
  fcd__free(r->lam);
  fcd__free(r->vec);
  fcd__free(r->order);
}

/* The sparse path's phases. On a communicator of several ranks the necessary condition
 * is rank 0's while the others certify the eigenpairs, and rank 0 then tells its answer:
 * at 102,675 dofs on two ranks CHOLMOD took 2.3 s on every rank alike, then each
 * certified half of the 40 pairs in 0.7 s. */
static fcd_status solve_sparse(fcd_stability *st, const fcd__free_pattern *fp, const tmap *tn,
                               const tmap *tm, int damped) {
  fcd_system *sys = st->sys;
  sparse_run r;
  int pd = 0;
  fcd_status status = sparse_begin(st, fp, tn, tm, damped, &r);
  if (status == FCD_OK) status = sparse_eigs(st, tn, tm, &r);
  if (status != FCD_OK) goto done;
  st->min_sym = NAN;
  fcd_status nstatus = r.part == 0 ? necessary_condition(sys, &r.Kr, r.order, &pd) : FCD_OK;
  if (r.parts == 1) {
    if ((status = nstatus) != FCD_OK) goto done;
    st->necessary = !pd;
  }
  if (r.project) goto done; /* solve_projected stored its eigenpairs */
  sparse_lambdas(st, &r);
  if ((status = sparse_certify(st, &r, nstatus, &pd)) != FCD_OK) goto done;
  if ((status = store(st, tn, r.cnt, r.lam, r.vec)) == FCD_OK) estimate(st, fp, tn, &r.Kr, &r.Mr);
  if (status == FCD_OK && st->nev > r.nr)
    fcd__err(sys, FCD_OK, "nev = %lld exceeds the %lld-dof reduced pencil: clamped to %lld",
             (long long)st->nev, (long long)r.nr, (long long)r.nr);
  if (status == FCD_OK && r.got < r.nev)
    fcd__err(sys, FCD_OK, "only %lld of %lld eigenvalues converged to %g in %lld iterations "
             "(error estimate of the next: %.3e)", (long long)r.got, (long long)r.nev, st->tol,
             (long long)st->max_it, r.reached);
done:
  sparse_end(st, &r, status);
  return status;
}

/* The results of a solve, set aside while the next one runs so that a failure leaves
 * the last good ones in place. */
typedef struct {
  int solved, any_flutter, any_divergence, necessary;
  fcd_index nred, nfree, nconv;
  fcd_real *lre, *lim, *vre, *vim, min_sym;
  fcd_index ninf;
  fcd_real berr, bnorm, btol;
} results;

static void results_take(fcd_stability *st, results *r) {
  *r = (results){st->solved, st->any_flutter, st->any_divergence, st->necessary, st->nred,
                 st->nfree, st->nconv, st->lre, st->lim, st->vre, st->vim, st->min_sym,
                 st->ninf, st->berr, st->bnorm, st->btol};
  st->lre = st->lim = st->vre = st->vim = NULL;
  st->ninf = 0;
  st->berr = NAN;
  st->bnorm = 0;
  st->nconv = 0;
  st->solved = 0;
}

static void results_put(fcd_stability *st, const results *r) {
  free_results(st);
  st->solved = r->solved;
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
}

static fcd_status solve_now(fcd_stability *st, fcd_index *nconv);

fcd_status fcd_stability_solve(fcd_stability *st, fcd_index *nconv) {
  CHECK_ST_(st);
  if (nconv) *nconv = 0;
  results prev;
  results_take(st, &prev);
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
  fcd_status status = build_maps(st, &tn, &tm);
  if (status != FCD_OK) goto done;
  fcd_index nr = tn.nred;
  st->nred = nr;
  if (nr == 0) {
    status = fcd__err(sys, FCD_E_STATE, "the reduced pencil is empty: every free dof is "
                      "constrained by the contact state");
    goto done;
  }
  int damped = st->damping && (sys_has_damping(sys) ||
                               (cdim(st) == 3 && st->rn != NULL));
  st->est_fresh = 0;
  snprintf(st->est_why, sizeof st->est_why, "%s",
           nr <= st->dense_max ? "the whole spectrum was computed (dense): no estimate needed"
           : st->est_modes <= 0 ? "FCD_STAB_ESTIMATE_MODES is 0"
                                : "the modal projection of a damped problem has no estimate");
  if (nr <= st->dense_max) status = solve_dense(st, fp, &tn, &tm, damped);
  else status = solve_sparse(st, fp, &tn, &tm, damped);
  if (status != FCD_OK) goto done;
  st->solved = 1;
  st->est_have = st->est_fresh;
  /* the dense path computes everything; nev bounds what the sparse one returns */
  if (nr <= st->dense_max && st->nev > st->nconv)
    fcd__err(sys, FCD_OK, "nev = %lld exceeds the %lld eigenvalues of the %lld-dof reduced "
             "pencil: clamped", (long long)st->nev, (long long)st->nconv, (long long)nr);
  if (nconv) *nconv = st->nconv;
done:
  tmap_free(&tn);
  tmap_free(&tm);
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
  if (mpi_comm_f < FCD_COMM_SERIAL || mpi_comm_f > INT32_MAX)
    return fcd__err(st->sys, FCD_E_INVALID_ARG, "%lld is not a Fortran communicator handle",
                    (long long)mpi_comm_f);
  st->comm_f = mpi_comm_f;
  free_results(st);
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

/* the rank that solves coefficient k of a sweep of steps over size ranks: rank r takes
 * the contiguous block [steps r / size, steps (r + 1) / size) */
static int sweep_owner(fcd_index k, fcd_index steps, int size) {
  int r = 0;
  while (r + 1 < size && k >= steps * (r + 1) / size) r++;
  return r;
}

static void results_free(results *r) {
  fcd__free(r->lre);
  fcd__free(r->lim);
  fcd__free(r->vre);
  fcd__free(r->vim);
  r->lre = r->lim = r->vre = r->vim = NULL;
}

/* The results of one coefficient from the rank that solved them (owner; mine: its copy,
 * moved into st) to every rank's st. Collective; a rank out of memory still takes part,
 * and all fail with it. */
static fcd_status share_results(fcd_stability *st, int64_t comm, results *mine, int owner) {
  fcd_system *sys = st->sys;
  results r;
  memset(&r, 0, sizeof r);
  if (mine) {
    r = *mine;
    memset(mine, 0, sizeof *mine);
  }
  long long h[8] = {r.solved, r.any_flutter, r.any_divergence, r.necessary, r.nred, r.nfree,
                    r.nconv, r.ninf};
  double x[4] = {r.min_sym, r.berr, r.bnorm, r.btol};
  FCD_TRY(fcd__comm_bcast(sys, comm, h, sizeof h, owner));
  FCD_TRY(fcd__comm_bcast(sys, comm, x, sizeof x, owner));
  fcd_index nc = (fcd_index)h[6], n = sys->n;
  if (!mine) {
    r = (results){(int)h[0], (int)h[1], (int)h[2], (int)h[3], (fcd_index)h[4],
                  (fcd_index)h[5], nc, NULL, NULL, NULL, NULL, x[0], (fcd_index)h[7],
                  x[1], x[2], x[3]};
    r.lre = fcd__malloc_array((size_t)nc + 1, sizeof *r.lre);
    r.lim = fcd__malloc_array((size_t)nc + 1, sizeof *r.lim);
    r.vre = fcd__malloc_array((size_t)(nc * n) + 1, sizeof *r.vre);
    r.vim = fcd__malloc_array((size_t)(nc * n) + 1, sizeof *r.vim);
  }
  long long ok = r.lre && r.lim && r.vre && r.vim;
  fcd_status s = fcd__comm_min(sys, comm, &ok, 1);
  if (s == FCD_OK && !ok)
    s = fcd__err(sys, FCD_E_NOMEM, "out of memory receiving a sweep's results %s",
                 r.lre && r.lim && r.vre && r.vim ? "on another rank" : "");
  if (s == FCD_OK) s = fcd__comm_bcast(sys, comm, r.lre, (size_t)nc * sizeof *r.lre, owner);
  if (s == FCD_OK) s = fcd__comm_bcast(sys, comm, r.lim, (size_t)nc * sizeof *r.lim, owner);
  if (s == FCD_OK)
    s = fcd__comm_bcast(sys, comm, r.vre, (size_t)(nc * n) * sizeof *r.vre, owner);
  if (s == FCD_OK)
    s = fcd__comm_bcast(sys, comm, r.vim, (size_t)(nc * n) * sizeof *r.vim, owner);
  if (s != FCD_OK) {
    results_free(&r);
    return s;
  }
  results_put(st, &r);
  return FCD_OK;
}

/* The status and message of the rank that failed coefficient k, on every rank */
static fcd_status share_failure(fcd_stability *st, int64_t comm, fcd_status mine, int owner,
                                int rank, fcd_real mu) {
  fcd_system *sys = st->sys;
  char msg[512];
  long long s = mine;
  snprintf(msg, sizeof msg, "%s", rank == owner ? fcd_system_last_error(sys) : "");
  FCD_TRY(fcd__comm_bcast(sys, comm, &s, sizeof s, owner));
  FCD_TRY(fcd__comm_bcast(sys, comm, msg, sizeof msg, owner));
  if (rank == owner) return mine;
  return fcd__err(sys, (fcd_status)s, "%s (mu = %g, solved on rank %d)", msg, mu, owner);
}

/* A sweep on a communicator of several ranks: the coefficients are shared out in
 * contiguous blocks, each rank solving its own serially (its own factor on
 * PETSC_COMM_SELF), since one shift-and-invert LU by MUMPS gains nothing from a second
 * rank on the 100k-dof block (docs/distributed.md); then, coefficient by coefficient in
 * order, the rank that solved it broadcasts its results, and every rank tracks them
 * and calls fn exactly as the serial sweep does. A solve that fails ends the sweep at
 * that coefficient on every rank with its status and message, after the callbacks of
 * the coefficients before it; a callback that returns nonzero on any rank ends it on
 * all. Each rank holds its block's modes until they are handed over. */
static fcd_status sweep_distributed(fcd_stability *st, fcd_real mu0, fcd_real mu1,
                                    fcd_index steps, fcd_stability_sweep_fn fn,
                                    void *user_data, int rank, int size) {
  fcd_system *sys = st->sys;
  int64_t comm = st->comm_f;
  fcd_index lo = steps * rank / size, hi = steps * (rank + 1) / size;
  fcd_real saved_mu = st->mu_override;
  results orig;
  results_take(st, &orig);
  results *mine = fcd__calloc((size_t)(hi - lo) + 1, sizeof *mine);
  fcd_status status = mine ? FCD_OK : fcd__err(sys, FCD_E_NOMEM, "out of memory in a sweep");
  long long first = mine ? steps : lo; /* the first coefficient that failed here */
  st->comm_f = FCD_COMM_SERIAL;
  for (fcd_index k = lo; k < hi && first == steps; k++) {
    st->mu_override = sweep_mu(mu0, mu1, steps, k);
    status = fcd_stability_solve(st, NULL);
    if (status != FCD_OK) first = k;
    else results_take(st, &mine[k - lo]);
  }
  st->comm_f = comm;
  fcd_status local = status;
  status = fcd__comm_min(sys, comm, &first, 1);
  sweep_track t;
  memset(&t, 0, sizeof t);
  int shown = 0;
  for (fcd_index k = 0; k < first && status == FCD_OK; k++) {
    int owner = sweep_owner(k, steps, size), rc = 0;
    st->mu_override = sweep_mu(mu0, mu1, steps, k);
    status = share_results(st, comm, owner == rank ? &mine[k - lo] : NULL, owner);
    if (status != FCD_OK) break;
    shown = 1;
    status = sweep_visit(st, &t, st->mu_override, fn, user_data, &rc);
    long long ok[2] = {status == FCD_OK, rc == 0};
    fcd_status s = fcd__comm_min(sys, comm, ok, 2);
    if (s != FCD_OK) status = s;
    else if (status == FCD_OK && !ok[0])
      status = fcd__err(sys, FCD_E_NOMEM, "out of memory in a sweep on another rank");
    else if (status == FCD_OK && !ok[1])
      status = rc ? fcd__err(sys, FCD_E_CALLBACK, "sweep callback returned %d at mu = %g",
                             rc, st->mu_override)
                  : fcd__err(sys, FCD_E_CALLBACK, "sweep callback returned nonzero at mu "
                             "= %g on another rank", st->mu_override);
  }
  if (status == FCD_OK && first < steps)
    status = share_failure(st, comm, local, sweep_owner((fcd_index)first, steps, size), rank,
                           sweep_mu(mu0, mu1, steps, (fcd_index)first));
  st->mu_override = saved_mu;
  if (!shown) results_put(st, &orig);
  else results_free(&orig);
  for (fcd_index k = lo; mine && k < hi; k++) results_free(&mine[k - lo]);
  fcd__free(mine);
  track_free(&t);
  return status;
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
  int rank = 0, size = 1;
  if (st->comm_f != FCD_COMM_SERIAL) {
    FCD_TRY(fcd__comm_rank_size(sys, st->comm_f, &rank, &size));
    /* every rank learns of a bad argument on any: none is left in a collective */
    long long ok[3] = {status == FCD_OK, steps, -(long long)steps};
    if (size > 1) FCD_TRY(fcd__comm_min(sys, st->comm_f, ok, 3));
    if (status == FCD_OK && !ok[0])
      status = fcd__err(sys, FCD_E_INVALID_ARG, "sweep: a bad argument on another rank");
    if (status == FCD_OK && (ok[1] != steps || -ok[2] != steps))
      status = fcd__err(sys, FCD_E_INVALID_ARG, "sweep: the ranks ask for different "
                        "numbers of steps");
  }
  if (status != FCD_OK) return status;
  if (size > 1 && steps > 1 && st->share_sweep)
    return sweep_distributed(st, mu0, mu1, steps, fn, user_data, rank, size);
  fcd_real saved_mu = st->mu_override;
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
