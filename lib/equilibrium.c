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
#include "backend/lapack.h"
#include "fc_private.h"
#include "fcd/fcd_equilibrium.h"
#include "fcd/fcd_integrator.h"
#include "fcd/fcd_vtk.h"
#include "mechanism.h"

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
  fcd_index have_nc;  /* contacts of the last solution (contacts are only ever added) */
  fcd_real *u, *r; /* last solution */
  int *set;
  fcd_real *sdir; /* (d - 1) per contact */
  fcd_real cert_tol;     /* FCD_PARAM_CERT_TOL */
  fcd_certificate cert;  /* of the last solve that succeeded */
  /* rigid modes of K on the free dofs: probed once per factorization */
  int rigid;             /* 1: K is semi-definite on the free dofs */
  fcd_index probe_facts; /* factorization count the probe was made for (-1: none) */
  uint64_t kfail_pat, kfail_val; /* the K (pattern, values) whose factorization failed */
  fcd_index void_dof; /* that K's dof with a zero diagonal no contact involves (-1: none) */
  fcd_real probe_rho;    /* smallest Rayleigh quotient x'Kx / x'Dx found */
  fcd__factor *rfac;     /* K + c D, D = diag K, when rigid */
  uint64_t rfac_pat, rfac_val;
  fcd_real *dreg;        /* c D on the free dofs */
  fcd_index nrig;        /* rigid modes found */
  fcd_real *R;           /* nf x nrig, orthonormal columns (Euclidean) */
  fcd_real *Wp;          /* H K^+ H^T, m x m */
  uint64_t wp_pat, wp_val, wp_csver; /* what Wp and R were built for */
  fcd__geometry *geo;    /* fcd_equilibrium_set_mesh's copy, or NULL */
  fcd_mechanism mech;    /* of the last solve (kind FCD_MECH_NONE unless it had none) */
  fcd_real *mech_motion; /* its motion, ndofs entries */
};

/* Rank decisions on K (free dofs), with D = diag K: a Rayleigh quotient x'Kx / x'Dx
 * below RIGID_TOL is a rigid mode (exact rigid motions give round-off, about 1e-15;
 * the softest elastic modes of slender models stay above about 1e-10). The semi-definite
 * problem is solved in the manner of FETI's coarse problem (docs/equilibria.md): u =
 * K^+ (f + H^T r) + R a with R the rigid modes, K^+ applied through the factor of
 * K + REG D with refinement, and the balance R^T (f + H^T r) = 0 enforced on the contact
 * problem by an augmented Lagrangian in the rigid amplitudes a. */
#define FCD__RIGID_TOL 1e-12
#define FCD__RIGID_REG 1e-10
/* The rigid-mode search's largest block. Bodies held by their contacts have 6 modes each
 * in 3D; a K with thousands is a model without stiffness (zeros stored for every entry),
 * whose search doubled its block up to the free dofs': at 20,000 dofs a 3.2 GB block and
 * some 1e13 flops, hours in a host before any answer. */
#define FCD__RIGID_MAX 512
#define FCD__AL_MAX 200
/* The method of multipliers raises its penalty tenfold after two steps that leave more
 * than half the unbalance, up to this factor over its start: a body that starts 100
 * above its support travels a gap 1e6 times its elastic displacements, which steps on
 * W+'s scale crossed at that scale per step (it was refused as "cannot hold the load"
 * past a gap of about 0.3). */
#define FCD__AL_RHO_MAX 1e12

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

/* D = diag K on the free dofs (zero diagonals, dofs without stiffness, take the mean
 * of the others so that D is a metric) and the values of K on the free pattern. */
static fcd_status k_values(fcd_equilibrium *eq, const fcd__free_pattern *fp, fcd_real *vals,
                           fcd_real *dg) {
  FCD_TRY(fcd__system_combination(eq->sys, 0.0, 0.0, 1.0, vals));
  fcd_real sum = 0;
  fcd_index cnt = 0;
  for (fcd_index i = 0; i < fp->n; i++) {
    dg[i] = 0;
    for (fcd_index p = fp->rowptr[i]; p < fp->rowptr[i + 1]; p++)
      if (fp->col[p] == i) dg[i] = vals[p];
  }
  /* distributed: each diagonal entry lives on the rank owning its row */
  FCD_TRY(fcd__dist_sum(eq->sys, dg, fp->n));
  for (fcd_index i = 0; i < fp->n; i++) {
    if (dg[i] > 0 && isfinite(dg[i])) {
      sum += dg[i];
      cnt++;
    }
  }
  fcd_real mean = cnt > 0 ? sum / (fcd_real)cnt : 1.0;
  for (fcd_index i = 0; i < fp->n; i++)
    if (!(dg[i] > 0) || !isfinite(dg[i])) dg[i] = mean;
  return FCD_OK;
}

/* y = K x on the free dofs (through full vectors, prescribed entries zero) */
static void k_free(const fcd_equilibrium *eq, const fcd_real *x, fcd_real *y, fcd_real *full,
                   fcd_real *full2) {
  const fcd_system *sys = eq->sys;
  memset(full, 0, (size_t)sys->n * sizeof *full);
  for (fcd_index k = 0; k < sys->nfree; k++) full[sys->dof_of[k]] = x[k];
  fcd_system_apply(sys, FCD_STIFFNESS, full, full2);
  for (fcd_index k = 0; k < sys->nfree; k++) y[k] = full2[sys->dof_of[k]];
}

/* Block inverse iteration with the factor of K: a few steps from fixed pseudo-random
 * vectors turn any rigid mode (eigenvalue at round-off) into the dominant direction; the
 * smallest Rayleigh quotient x'Kx / x'Dx then decides the rank. A factorization that
 * succeeded on a semi-definite K (a tiny positive pivot) is caught here, not by luck. */
static fcd_status probe_rigid(fcd_equilibrium *eq, const fcd_real *dg) {
  fcd_system *sys = eq->sys;
  fcd_index nf = fcd__factor_size(eq->fac), n = sys->n;
  fcd_index p = nf < 4 ? nf : 4;
  fcd_real *X = fcd__malloc_array((size_t)(nf * p), sizeof *X);
  fcd_real *y = fcd__malloc_array((size_t)nf, sizeof *y);
  fcd_real *f1 = fcd__malloc_array((size_t)n, sizeof *f1);
  fcd_real *f2 = fcd__malloc_array((size_t)n, sizeof *f2);
  fcd_status st = FCD_OK;
  if (!X || !y || !f1 || !f2) {
    st = fcd__err(sys, FCD_E_NOMEM, "out of memory probing the stiffness for rigid modes");
    goto done;
  }
  uint64_t seed = 0x9e3779b97f4a7c15ull;
  for (fcd_index i = 0; i < nf * p; i++) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    X[i] = (fcd_real)(seed >> 11) * (2.0 / 9007199254740992.0) - 1.0;
  }
  fcd_real rho_min = INFINITY;
  for (int iter = 0; iter < 3 && st == FCD_OK; iter++) {
    for (fcd_index j = 0; j < p; j++)
      for (fcd_index i = 0; i < nf; i++) X[j * nf + i] *= dg[i];
    st = fcd__factor_solve_free(eq->fac, p, X, X);
    for (fcd_index j = 0; j < p && st == FCD_OK; j++) {
      fcd_real *x = X + j * nf, nd = 0;
      for (fcd_index i = 0; i < nf; i++) nd += dg[i] * x[i] * x[i];
      nd = sqrt(nd);
      if (!(nd > 0) || !isfinite(nd)) {
        rho_min = 0; /* the factor blew up: as singular as it gets */
        break;
      }
      for (fcd_index i = 0; i < nf; i++) x[i] /= nd;
    }
    if (rho_min == 0) break;
  }
  if (st == FCD_OK && rho_min != 0)
    for (fcd_index j = 0; j < p; j++) {
      fcd_real *x = X + j * nf, xkx = 0;
      k_free(eq, x, y, f1, f2);
      for (fcd_index i = 0; i < nf; i++) xkx += x[i] * y[i];
      rho_min = fmin(rho_min, xkx); /* x'Dx = 1 */
    }
  if (st == FCD_OK) {
    eq->probe_rho = rho_min;
    eq->rigid = !(rho_min >= FCD__RIGID_TOL);
  }
done:
  fcd__free(X);
  fcd__free(y);
  fcd__free(f1);
  fcd__free(f2);
  return st;
}

static int rfac_current(const fcd_equilibrium *eq, const fcd__free_pattern *fp) {
  return eq->rfac && eq->rfac_pat == fp->version && eq->rfac_val == eq->sys->value_version;
}

/* K + c D factored for the semi-definite problem; an indefinite K is refused. */
static fcd_status regularise(fcd_equilibrium *eq, const fcd__free_pattern *fp,
                             fcd_real *vals, const fcd_real *dg) {
  fcd_system *sys = eq->sys;
  if (rfac_current(eq, fp)) return FCD_OK;
  if (!eq->rfac) FCD_TRY(fcd__factor_create_free(sys, &eq->rfac));
  fcd__free(eq->dreg);
  eq->dreg = fcd__malloc_array((size_t)fp->n + 1, sizeof *eq->dreg);
  if (!eq->dreg) return fcd__err(sys, FCD_E_NOMEM, "out of memory regularising the stiffness");
  for (fcd_index i = 0; i < fp->n; i++) {
    eq->dreg[i] = FCD__RIGID_REG * dg[i];
    for (fcd_index q = fp->rowptr[i]; q < fp->rowptr[i + 1]; q++)
      if (fp->col[q] == i) vals[q] += eq->dreg[i];
  }
  eq->rfac_pat = 0;
  fcd_status st = fcd__factor_csr_free(eq->rfac, fp->n, fp->rowptr, fp->col, vals, fp->version);
  /* every free diagonal is in the pattern and dreg > 0, so K's own refusals of a diagonal
   * (diagonal_refusal) leave only a pivot to fail here */
  if (st == FCD_E_NOT_SPD) {
    fcd_index bad = fcd__factor_bad_column(eq->rfac);
    char at[48] = "";
    if (bad >= 0) snprintf(at, sizeof at, " at dof %lld", (long long)sys->dof_of[bad]);
    return fcd__err(sys, FCD_E_SINGULAR,
                    "the stiffness is indefinite on the free dofs (K + %.0e diag K has a "
                    "non-positive pivot%s): no equilibrium is defined", FCD__RIGID_REG, at);
  }
  if (st != FCD_OK) return st;
  eq->rfac_pat = fp->version;
  eq->rfac_val = sys->value_version;
  return FCD_OK;
}

/* K's factor refused a diagonal entry <= 0 before factoring (fcd__factor_bad_diagonal).
 * Negative, K is indefinite: refused. Zero at a dof no contact direction involves (a node
 * no element reaches, say), the dof is kept in eq->void_dof: the semi-definite path takes
 * it for a rigid mode, names it well when a load pushes along it ("cannot hold the
 * load"), but with no load its amplitude is undetermined and the solve failed its
 * certificate with a displacement of 1e30 that named nothing (fcd_equilibrium_solve then
 * names the dof). Collective when distributed (every rank's factor failed at the same
 * dof). */
static fcd_status diagonal_refusal(fcd_equilibrium *eq) {
  fcd_system *sys = eq->sys;
  fcd_real d;
  fcd_index dof = fcd__factor_bad_column(eq->fac);
  if (dof < 0 || !fcd__factor_bad_diagonal(eq->fac, &d)) return FCD_OK;
  if (d < 0)
    return fcd__err(sys, FCD_E_SINGULAR, "the stiffness is indefinite on the free dofs (its "
                    "diagonal at dof %lld is negative): no equilibrium is defined",
                    (long long)dof);
  int held = 0;
  if (nct(eq) > 0) {
    const fcd__csr *H;
    FCD_TRY(fcd__contact_set_operator(eq->cs, &H));
    for (fcd_index e = 0; e < H->rowptr[H->n] && !held; e++) held = H->col[e] == dof;
  }
  if (!fcd__dist_any(sys, held)) eq->void_dof = dof;
  return FCD_OK;
}

/* K on the free dofs factored and its rank decided (probed once per factorization);
 * for a semi-definite K (a body held by its contacts) the regularised factor too. */
static fcd_status prepare(fcd_equilibrium *eq, const fcd__free_pattern *fp) {
  fcd_system *sys = eq->sys;
  /* a K whose factorization failed is not factored again while it stays the same */
  int failed = eq->kfail_pat == fp->version && eq->kfail_val == sys->value_version;
  fcd_status st = FCD_OK;
  /* distributed: K's factor eliminates the contact dofs last (delassus.c) */
  if (nct(eq) > 0) FCD_TRY(fcd__factor_schur_on_contacts(sys, eq->fac, eq->cs));
  if (!failed) {
    char saved[FCD_ERRMSG_CAP];
    memcpy(saved, sys->err, sizeof saved);
    st = fcd__factor_combination_free(eq->fac, 0.0, 0.0, 1.0);
    failed = st == FCD_E_NOT_SPD;
    if (st != FCD_OK && !failed) return st;
    eq->void_dof = -1;
    if (failed) FCD_TRY(diagonal_refusal(eq));
    if (failed) {
      memcpy(sys->err, saved, sizeof saved); /* an answer, not an error */
      eq->kfail_pat = fp->version;
      eq->kfail_val = sys->value_version;
      eq->rigid = 1;
      eq->probe_rho = 0;
    }
  }
  fcd_index facts = fcd__factor_get_stats(eq->fac).factorizations;
  int probed = failed || eq->probe_facts == facts;
  if (probed && (!eq->rigid || rfac_current(eq, fp))) return FCD_OK;
  fcd_real *vals = fcd__malloc_array((size_t)fp->nnz + 1, sizeof *vals);
  fcd_real *dg = fcd__malloc_array((size_t)fp->n + 1, sizeof *dg);
  if (!vals || !dg) {
    st = fcd__err(sys, FCD_E_NOMEM, "out of memory probing the stiffness");
    goto done;
  }
  if ((st = k_values(eq, fp, vals, dg)) != FCD_OK) goto done;
  if (!probed) {
    if ((st = probe_rigid(eq, dg)) != FCD_OK) goto done;
    eq->probe_facts = facts;
  }
  if (eq->rigid) st = regularise(eq, fp, vals, dg);
done:
  fcd__free(vals);
  fcd__free(dg);
  return st;
}

/* The right-hand side f - K z + H^T r on the free dofs (r may be NULL: zero) */
static fcd_status rhs_free(fcd_equilibrium *eq, const fcd_real *f, const fcd_real *z,
                           const fcd_real *r, fcd_real *tmp, fcd_real *xf) {
  fcd_system *sys = eq->sys;
  fcd_index n = sys->n;
  fcd_system_apply(sys, FCD_STIFFNESS, z, tmp);
  for (fcd_index i = 0; i < n; i++) tmp[i] = f[i] - tmp[i];
  if (r && nct(eq) > 0) {
    const fcd__csr *H;
    FCD_TRY(fcd__contact_set_operator(eq->cs, &H));
    for (fcd_index i = 0; i < H->n; i++)
      for (fcd_index e = H->rowptr[i]; e < H->rowptr[i + 1]; e++)
        tmp[H->col[e]] += H->val[e] * r[i];
  }
  for (fcd_index k = 0; k < sys->nfree; k++) xf[k] = tmp[sys->dof_of[k]];
  return FCD_OK;
}

/* u = z + K^-1 (f - K z + H^T r) on the free dofs; r may be NULL (zero) */
static fcd_status displacement(fcd_equilibrium *eq, fcd__factor *fac, const fcd_real *f,
                               const fcd_real *z, const fcd_real *r, fcd_real *u,
                               fcd_real *tmp, fcd_real *xf) {
  fcd_system *sys = eq->sys;
  FCD_TRY(rhs_free(eq, f, z, r, tmp, xf));
  FCD_TRY(fcd__factor_solve_free(fac, 1, xf, xf));
  memcpy(u, z, (size_t)sys->n * sizeof *u);
  for (fcd_index k = 0; k < sys->nfree; k++) u[sys->dof_of[k]] = xf[k];
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


static fcd_real cert_tolerance(const fcd_equilibrium *eq) {
  return fmax(eq->cert_tol, 10 * eq->opts.tol);
}

/* Classification, the certificate of (u, r) and the legacy residual figures; fills set
 * and sdir. slip_given: the directions of a steady sliding solve (NULL: from the
 * reactions). Returns 1 when the certificate is within its tolerance, 0 when not, -1
 * when out of memory, -2 when a reduction across ranks failed. */
static int finish(fcd_equilibrium *eq, eq_work *w, const fcd_real *slip_given,
                  fcd_certificate *cert) {
  fcd_system *sys = eq->sys;
  fcd_index n = sys->n, nc = nct(eq);
  int d = cdim(eq);
  /* the balance on the free dofs, as a backward error: its scale holds the load, the
   * reactions and |K| |u|, the size of the terms that cancel in K u */
  fcd_real *res = w->tmp, *hr = w->ub, *ak = w->z; /* z, u_base no longer needed */
  fcd_system_apply(sys, FCD_STIFFNESS, w->u, res);
  memset(hr, 0, (size_t)n * sizeof *hr);
  memset(ak, 0, (size_t)n * sizeof *ak);
  fcd__csr_abs_apply(&sys->mat[FCD_STIFFNESS], w->u, ak);
  if (fcd__dist_sum(sys, ak, n) != FCD_OK) return -2;
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
  fcd_real kmax = 0;
  const fcd__csr *K = &sys->mat[FCD_STIFFNESS];
  for (fcd_index i = 0; i < K->n; i++)
    for (fcd_index p = K->rowptr[i]; p < K->rowptr[i + 1]; p++)
      if (K->col[p] == i && !sys->is_fixed[i]) kmax = fmax(kmax, fabs(K->val[p]));
  kmax = fcd__dist_max(sys, kmax);
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
  int ok = fcd__certificate_check(cert, cert_tolerance(eq));
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

/* The static contact problem u_loc = W r + q with q from w->loc (H u_base on entry) */
static fcd_status solve_static(fcd_equilibrium *eq, eq_work *w, fcd_real *Wd) {
  fcd_system *sys = eq->sys;
  fcd_index nc = nct(eq);
  int d = cdim(eq);
  fcd_index m = nc * d;
  if (nc == 0) return FCD_OK;
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
  fcd__csr Wc = {m, rp, ci, Wd, 0, 0, 1};
  fcd__fc_local lp = {d, nc, m, &Wc, q, mu, NULL, NULL};
  fcd__fc_result res;
  st = fcd__fc_solve_balanced(sys, &lp, &eq->opts, w->r, ul, &res);
  char trail[256];
  if (st == FCD_OK && !res.converged)
    st = fcd__err(sys, FCD_E_NOT_CONVERGED,
                  "static contact solve did not reach %.3g in %lld iterations (residual "
                  "%.3e%s); the previous solution is kept", eq->opts.tol,
                  (long long)res.iterations, res.residual,
                  fcd__fc_trail(&res, trail, sizeof trail));
done:
  fcd__free(rp);
  fcd__free(ci);
  fcd__free(mu);
  fcd__free(ul);
  return st;
}

/* the largest violation of w = A z + q >= 0, z >= 0 and z . w = 0 (over qs, the size
 * of q) */
static fcd_real lcp_violation(fcd_index n, const fcd_real *A, const fcd_real *q,
                              const fcd_real *z, fcd_real qs) {
  fcd_real worst = 0;
  for (fcd_index i = 0; i < n; i++) {
    fcd_real wi = q[i];
    for (fcd_index j = 0; j < n; j++) wi += A[i * n + j] * z[j];
    worst = fmax(worst, fmax(fmax(-wi, -z[i]), fabs(wi * z[i]) / qs));
  }
  return worst;
}

/* Steady sliding's LCP with W = Wd and w->loc = H u_base on entry */
static fcd_status solve_steady(fcd_equilibrium *eq, eq_work *w, const fcd_real *Wd,
                               fcd_real *sl) {
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
      const fcd_real *wr = Wd + (i * d) * m + j * d;
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
  /* the contacts pressed before (a warm start), else those the free motion presses,
   * as the guess of a few block pivots; Lemke's method when they do not settle */
  fcd_index piv = 0;
  int lr = FCD__LEMKE_NOMEM, warm = 0;
  fcd_real qs = 1;
  for (fcd_index i = 0; i < nc; i++) {
    qs = fmax(qs, fabs(q[i]));
    warm |= w->r[i * d] != 0;
  }
  unsigned char *act = fcd__malloc_array((size_t)nc + 1, sizeof *act);
  if (act) {
    for (fcd_index i = 0; i < nc; i++) act[i] = warm ? w->r[i * d] < 0 : q[i] < 0;
    lr = fcd__lcp_block_pivot(nc, A, q, act, z, 8, 1e-13 * qs);
    fcd__free(act);
    /* the pivots' answer must pass the check below too, else Lemke's method decides */
    if (lr == 0 && lcp_violation(nc, A, q, z, qs) > 1e-9 * qs) lr = 1;
    if (lr == 1) lr = fcd__lemke(nc, A, q, z, 50 * nc + 1000, &piv);
  }
  if (lr == FCD__LEMKE_OK) {
    /* a check that cannot be skipped: w = A z + q >= 0 and z . w = 0 (scaled) */
    fcd_real worst = lcp_violation(nc, A, q, z, qs);
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

/* Orthonormalises the p columns of X (nf entries each) in the metric diag(dg) (NULL:
 * Euclidean) by modified Gram-Schmidt, twice (the second pass restores orthogonality
 * lost to cancellation). A column that vanishes against the others becomes zero. */
static void orthonormalise(fcd_index nf, fcd_index p, fcd_real *X, const fcd_real *dg) {
  for (int pass = 0; pass < 2; pass++)
    for (fcd_index j = 0; j < p; j++) {
      fcd_real *x = X + j * nf;
      for (fcd_index i = 0; i < j; i++) {
        const fcd_real *y = X + i * nf;
        fcd_real dot = 0;
        for (fcd_index k = 0; k < nf; k++) dot += (dg ? dg[k] : 1.0) * x[k] * y[k];
        for (fcd_index k = 0; k < nf; k++) x[k] -= dot * y[k];
      }
      fcd_real nn = 0;
      for (fcd_index k = 0; k < nf; k++) nn += (dg ? dg[k] : 1.0) * x[k] * x[k];
      nn = sqrt(nn);
      for (fcd_index k = 0; k < nf; k++) x[k] = nn > 0 ? x[k] / nn : 0.0;
    }
}

/* x -= R (R^T x) for each of nrhs columns */
static void deflate(const fcd_equilibrium *eq, fcd_index nf, fcd_index nrhs, fcd_real *X) {
  for (fcd_index j = 0; j < nrhs; j++)
    for (fcd_index i = 0; i < eq->nrig; i++) {
      const fcd_real *r = eq->R + i * nf;
      fcd_real *x = X + j * nf, dot = 0;
      for (fcd_index k = 0; k < nf; k++) dot += r[k] * x[k];
      for (fcd_index k = 0; k < nf; k++) x[k] -= dot * r[k];
    }
}

/* X <- K^+ X (nrhs columns on the free dofs): the solution of K x = P b orthogonal to
 * the rigid modes, P the projection onto the range of K. Through the factor of
 * K + c D, whose error on the elastic part shrinks by c / (lambda + c) per refinement.
 * Each refinement solves its nrhs residuals R (nf x nrhs; y itself when nrhs is 1) as
 * one block: column by column, W+ of the 1,875 contact directions of a 32k-dof block
 * took 3,750 single solves (102 s for the equilibrium). */
static fcd_status pinv(fcd_equilibrium *eq, fcd_index nrhs, fcd_real *X, fcd_real *B,
                       fcd_real *R, fcd_real *y, fcd_real *f1, fcd_real *f2) {
  fcd_index nf = eq->sys->nfree;
  deflate(eq, nf, nrhs, X);
  memcpy(B, X, (size_t)(nf * nrhs) * sizeof *B);
  FCD_TRY(fcd__factor_solve_free(eq->rfac, nrhs, X, X));
  for (int it = 0; it < 2; it++) {
    for (fcd_index j = 0; j < nrhs; j++) {
      k_free(eq, X + j * nf, y, f1, f2);
      for (fcd_index k = 0; k < nf; k++) R[j * nf + k] = B[j * nf + k] - y[k];
    }
    FCD_TRY(fcd__factor_solve_free(eq->rfac, nrhs, R, R));
    for (fcd_index k = 0; k < nf * nrhs; k++) X[k] += R[k];
  }
  deflate(eq, nf, nrhs, X);
  return FCD_OK;
}

/* The rigid modes R (orthonormal) by subspace iteration with (K + c D)^-1 D and a
 * Rayleigh-Ritz step: Ritz values below RIGID_TOL are rigid. The block grows until it
 * holds an elastic mode too, so that none is missed. Then W+ = H K^+ H^T. */
static fcd_status rigid_operators(fcd_equilibrium *eq, const fcd__csr *H) {
  fcd_system *sys = eq->sys;
  fcd_index nf = sys->nfree, n = sys->n, m = H ? H->n : 0;
  const fcd__free_pattern *fp;
  FCD_TRY(fcd__system_free_pattern(sys, &fp));
  uint64_t csver = eq->cs ? eq->cs->version : 0;
  if (eq->R && eq->wp_pat == fp->version && eq->wp_val == sys->value_version &&
      eq->wp_csver == csver && (m == 0 || eq->Wp))
    return FCD_OK;
  fcd__free(eq->R);
  fcd__free(eq->Wp);
  eq->R = eq->Wp = NULL;
  eq->nrig = 0;
  eq->wp_pat = 0;
  fcd_status st = FCD_OK;
  fcd_real *dg = fcd__malloc_array((size_t)nf + 1, sizeof *dg);
  fcd_real *f1 = fcd__malloc_array((size_t)n + 1, sizeof *f1);
  fcd_real *f2 = fcd__malloc_array((size_t)n + 1, sizeof *f2);
  fcd_real *y = fcd__malloc_array((size_t)nf + 1, sizeof *y);
  fcd_real *X = NULL, *KX = NULL, *T = NULL, *th = NULL, *B = NULL, *Y = NULL, *Rs = NULL;
  if (!dg || !f1 || !f2 || !y) goto nomem;
  for (fcd_index k = 0; k < nf; k++) dg[k] = eq->dreg[k] / FCD__RIGID_REG;
  fcd_index p = nf < 8 ? nf : 8, k = 0;
  for (;;) {
    fcd__free(X);
    fcd__free(KX);
    fcd__free(T);
    fcd__free(th);
    X = fcd__malloc_array((size_t)(nf * p), sizeof *X);
    KX = fcd__malloc_array((size_t)(nf * p), sizeof *KX);
    T = fcd__malloc_array((size_t)(p * p), sizeof *T);
    th = fcd__malloc_array((size_t)p, sizeof *th);
    if (!X || !KX || !T || !th) goto nomem;
    uint64_t seed = 0x2545f4914f6cdd1dull;
    for (fcd_index i = 0; i < nf * p; i++) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      X[i] = (fcd_real)(seed >> 11) * (2.0 / 9007199254740992.0) - 1.0;
    }
    for (int it = 0; it < 4 && st == FCD_OK; it++) {
      for (fcd_index j = 0; j < p; j++)
        for (fcd_index i = 0; i < nf; i++) X[j * nf + i] *= dg[i];
      st = fcd__factor_solve_free(eq->rfac, p, X, X);
      orthonormalise(nf, p, X, dg);
    }
    if (st != FCD_OK) goto done;
    for (fcd_index j = 0; j < p; j++) k_free(eq, X + j * nf, KX + j * nf, f1, f2);
    for (fcd_index i = 0; i < p; i++)
      for (fcd_index j = 0; j < p; j++) {
        fcd_real sum = 0;
        for (fcd_index q = 0; q < nf; q++) sum += X[i * nf + q] * KX[j * nf + q];
        T[i * p + j] = sum;
      }
    if (fcd__la_syev(1, p, T, th) != 0) {
      st = fcd__err(sys, FCD_E_BACKEND, "the Rayleigh-Ritz step of the rigid-mode search "
                    "failed (LAPACK dsyev)");
      goto done;
    }
    k = 0;
    while (k < p && th[k] < FCD__RIGID_TOL) k++;
    if (k < p || p == nf) break;
    if (p >= FCD__RIGID_MAX) {
      char at[80] = "";
      if (eq->void_dof >= 0)
        snprintf(at, sizeof at, " (dof %lld, for one, has a zero diagonal in K)",
                 (long long)eq->void_dof);
      st = fcd__err(sys, FCD_E_SINGULAR, "the stiffness has at least %lld rigid modes on the "
                    "free dofs%s: a model mostly without stiffness, not bodies held by their "
                    "contacts; no equilibrium is defined", (long long)p, at);
      goto done;
    }
    p = 2 * p < nf ? 2 * p : nf;
    if (p > FCD__RIGID_MAX) p = FCD__RIGID_MAX;
  }
  if (k == 0) {
    st = fcd__err(sys, FCD_E_SINGULAR,
                  "the stiffness is nearly singular on the free dofs (its factorization "
                  "failed, yet no rigid mode has x'Kx/x'Dx below %.0e): no reliable "
                  "equilibrium", FCD__RIGID_TOL);
    goto done;
  }
  eq->R = fcd__calloc((size_t)(nf * k), sizeof *eq->R);
  if (!eq->R) goto nomem;
  for (fcd_index i = 0; i < k; i++)
    for (fcd_index j = 0; j < p; j++) {
      fcd_real v = T[j * p + i];
      for (fcd_index q = 0; q < nf; q++) eq->R[i * nf + q] += v * X[j * nf + q];
    }
  orthonormalise(nf, k, eq->R, NULL);
  eq->nrig = k;
  eq->probe_rho = th[0];
  if (m > 0) {
    /* W+ = H K^+ H^T, a block of columns at a time */
    fcd_index bs = m < 64 ? m : 64;
    eq->Wp = fcd__malloc_array((size_t)(m * m), sizeof *eq->Wp);
    Y = fcd__malloc_array((size_t)(nf * bs), sizeof *Y);
    B = fcd__malloc_array((size_t)(nf * bs), sizeof *B);
    Rs = fcd__malloc_array((size_t)(nf * bs), sizeof *Rs);
    if (!eq->Wp || !Y || !B || !Rs) goto nomem;
    for (fcd_index c0 = 0; c0 < m && st == FCD_OK; c0 += bs) {
      fcd_index nb = m - c0 < bs ? m - c0 : bs;
      memset(Y, 0, (size_t)(nf * nb) * sizeof *Y);
      for (fcd_index j = 0; j < nb; j++)
        for (fcd_index e = H->rowptr[c0 + j]; e < H->rowptr[c0 + j + 1]; e++)
          Y[j * nf + sys->free_of[H->col[e]]] += H->val[e];
      if ((st = pinv(eq, nb, Y, B, Rs, y, f1, f2)) != FCD_OK) break;
      for (fcd_index i = 0; i < m; i++)
        for (fcd_index j = 0; j < nb; j++) {
          fcd_real sum = 0;
          for (fcd_index e = H->rowptr[i]; e < H->rowptr[i + 1]; e++)
            sum += H->val[e] * Y[j * nf + sys->free_of[H->col[e]]];
          eq->Wp[i * m + c0 + j] = sum;
        }
    }
    if (st != FCD_OK) goto done;
    /* symmetric by construction; round-off asymmetry would bias the solvers */
    for (fcd_index i = 0; i < m; i++)
      for (fcd_index j = i + 1; j < m; j++) {
        fcd_real a = 0.5 * (eq->Wp[i * m + j] + eq->Wp[j * m + i]);
        eq->Wp[i * m + j] = eq->Wp[j * m + i] = a;
      }
  }
  eq->wp_pat = fp->version;
  eq->wp_val = sys->value_version;
  eq->wp_csver = csver;
  goto done;
nomem:
  st = fcd__err(sys, FCD_E_NOMEM, "out of memory finding the rigid modes of the stiffness");
done:
  if (st != FCD_OK) {
    fcd__free(eq->R);
    fcd__free(eq->Wp);
    eq->R = eq->Wp = NULL;
    eq->nrig = 0;
  }
  fcd__free(dg);
  fcd__free(f1);
  fcd__free(f2);
  fcd__free(y);
  fcd__free(X);
  fcd__free(KX);
  fcd__free(T);
  fcd__free(th);
  fcd__free(B);
  fcd__free(Y);
  fcd__free(Rs);
  return st;
}

/* The operators of solve_rigid's method of multipliers, for k rigid modes and m contact
 * directions: G = R^T H^T (k x m), and the balance G r = e taken in whitened coordinates,
 * Gw = L^-1/2 V^T G and ew = L^-1/2 V^T e from G G^T = V L V^T, so that the penalty
 * rho Gw^T Gw is rho times the projector onto the range of G^T whatever the scale of each
 * mode's motion at the contacts. A node that only its contact holds moves it by 1 along
 * its modes, a body's rigid modes move its many contacts by 0.1, and one rho on G^T G
 * suited only one of them (a body's balance shrank by 0.73 a step beside such a node, and
 * was taken for a mechanism). Directions with L below 1e-12 of the largest are left out
 * (*kw are kept): no contact moves along them, so their unbalance stays and is reported.
 * The rigid amplitudes are a = Tw aw, Tw = V L^-1/2 (k x kw, row-major with k columns).
 * Wr = W+ + rho Gw^T Gw, rho putting the penalty on the scale of W+. */
static fcd_status balance_operators(fcd_equilibrium *eq, const fcd__csr *H, fcd_index k,
                                    const fcd_real *e, fcd_real *G, fcd_real *Gw,
                                    fcd_real *ew, fcd_real *Tw, fcd_index *kw, fcd_real *Wr,
                                    fcd_real *rho) {
  fcd_system *sys = eq->sys;
  fcd_index nf = sys->nfree, m = H->n;
  for (fcd_index j = 0; j < m; j++)
    for (fcd_index i = 0; i < k; i++) {
      fcd_real s = 0;
      for (fcd_index p = H->rowptr[j]; p < H->rowptr[j + 1]; p++)
        s += H->val[p] * eq->R[i * nf + sys->free_of[H->col[p]]];
      G[i * m + j] = s;
    }
  fcd_real *V = fcd__malloc_array((size_t)(k * k) + 1, sizeof *V);
  fcd_real *lam = fcd__malloc_array((size_t)k + 1, sizeof *lam);
  if (!V || !lam) {
    fcd__free(V);
    fcd__free(lam);
    return fcd__err(sys, FCD_E_NOMEM, "out of memory in an equilibrium solve");
  }
  for (fcd_index i = 0; i < k; i++)
    for (fcd_index j = 0; j < k; j++) {
      fcd_real s = 0;
      for (fcd_index c = 0; c < m; c++) s += G[i * m + c] * G[j * m + c];
      V[i * k + j] = s;
    }
  int info = fcd__la_syev(1, k, V, lam);
  *kw = 0;
  for (fcd_index c = k - 1; info == 0 && c >= 0; c--) {
    if (!(lam[c] > 1e-12 * lam[k - 1])) break;
    fcd_real sc = 1.0 / sqrt(lam[c]), *gw = Gw + *kw * m;
    ew[*kw] = 0;
    for (fcd_index i = 0; i < k; i++) {
      Tw[i * k + *kw] = V[i * k + c] * sc;
      ew[*kw] += Tw[i * k + *kw] * e[i];
    }
    for (fcd_index j = 0; j < m; j++) {
      fcd_real s = 0;
      for (fcd_index i = 0; i < k; i++) s += Tw[i * k + *kw] * G[i * m + j];
      gw[j] = s;
    }
    (*kw)++;
  }
  fcd__free(V);
  fcd__free(lam);
  if (info != 0)
    return fcd__err(sys, FCD_E_BACKEND, "the eigen-decomposition of the rigid modes' "
                    "contact motions failed (LAPACK dsyev, info %d)", info);
  /* Contacts that only rigid modes move (a node no element reaches) have a W+ of
   * round-off: 1e-35 gave rho = 1e-35 and an iteration that halved the imbalance from
   * 4e12. Their scale is then the compliance in the metric, cmax = max_j H_j D^-1 H_j^T,
   * of which W+'s round-off is ~1e-6 (K^+ passes through (1e-10 D)^-1 before the rigid
   * modes are projected out); an elastic contact's W+ entry is not below it, since
   * (K^-1)_jj >= 1/K_jj. */
  fcd_real wmax = 0, gmax = 0, cmax = 0;
  for (fcd_index j = 0; j < m; j++) {
    fcd_real gg = 0, cj = 0;
    for (fcd_index i = 0; i < *kw; i++) gg += Gw[i * m + j] * Gw[i * m + j];
    /* A contact's dofs are free (contact_set.c refuses a prescribed one), as in G. */
    for (fcd_index p = H->rowptr[j]; p < H->rowptr[j + 1]; p++)
      cj += H->val[p] * H->val[p] * FCD__RIGID_REG / eq->dreg[sys->free_of[H->col[p]]];
    wmax = fmax(wmax, eq->Wp[j * m + j]);
    gmax = fmax(gmax, gg);
    cmax = fmax(cmax, cj);
  }
  wmax = fmax(wmax, 1e-4 * cmax);
  *rho = gmax > 0 ? (wmax > 0 ? wmax : 1.0) / gmax : 0.0;
  for (fcd_index i = 0; i < m; i++)
    for (fcd_index j = 0; j < m; j++) {
      fcd_real s = 0;
      for (fcd_index l = 0; l < *kw; l++) s += Gw[l * m + i] * Gw[l * m + j];
      Wr[i * m + j] = eq->Wp[i * m + j] + *rho * s;
    }
  return FCD_OK;
}

/* No equilibrium exists: the mechanism of the existence test (motion over the free dofs)
 * named on the whole model and kept for fcd_equilibrium_get_mechanism. */
static fcd_status refuse_mechanism(fcd_equilibrium *eq, const fcd_real *motion_free,
                                   int steady) {
  fcd_system *sys = eq->sys;
  fcd_index n = sys->n;
  if (!eq->mech_motion) eq->mech_motion = fcd__malloc_array((size_t)n + 1, sizeof(fcd_real));
  if (!eq->mech_motion) {
    eq->mech.kind = FCD_MECH_NONE;
    return fcd__err(sys, FCD_E_NOMEM, "out of memory naming a mechanism");
  }
  memset(eq->mech_motion, 0, (size_t)n * sizeof *eq->mech_motion);
  for (fcd_index q = 0; q < sys->nfree; q++) eq->mech_motion[sys->dof_of[q]] = motion_free[q];
  if (eq->mech.dof >= 0) eq->mech.dof = sys->dof_of[eq->mech.dof];
  fcd__mechanism_describe(&eq->mech, eq->mech_motion, n, eq->geo ? eq->geo : eq->cs ? eq->cs->geo : NULL,
                          eq->cs);
  /* a dof without stiffness that the load moves is a modelling slip more than a body */
  if (eq->void_dof >= 0 && eq->mech_motion[eq->void_dof] != 0)
    return fcd__err(sys, FCD_E_SINGULAR, "no equilibrium: the stiffness is zero at dof %lld "
                    "(its diagonal entry is 0, as at a node no element or spring reaches) "
                    "and the load moves it along the rigid mode that moves dof %lld most (an "
                    "unbalanced force of %.3e) with nothing to hold it; prescribe or connect "
                    "the dof", (long long)eq->void_dof, (long long)eq->mech.dof,
                    eq->mech.unbalance);
  int frictionless = eq->mech.contact >= 0 && !(eq->cs->c[eq->mech.contact].mu > 0);
  char what[900];
  fcd__mechanism_format(&eq->mech, cdim(eq), frictionless, steady, what, sizeof what);
  return fcd__err(sys, FCD_E_NO_SOLUTION, "no equilibrium: %s; prescribe dofs that hold it "
                  "(fcd_equilibrium_get_mechanism gives the motion)", what);
}

/* Wr = W+ + rho P, P = Gw^T Gw */
static void penalised(fcd_index m, const fcd_real *Wp, const fcd_real *P, fcd_real rho,
                      fcd_real *Wr) {
  for (fcd_index i = 0; i < m * m; i++) Wr[i] = Wp[i] + rho * P[i];
}

/* The work of solve_rigid, for k rigid modes and m contact directions (fields as named
 * there). */
typedef struct {
  const fcd__csr *H;
  fcd_index k, kw;
  fcd_real *b0, *bb, *y, *f2, *G, *Wr, *Pw, *qb, *e, *a, *aw, *Gw, *ew, *Tw, *mu;
  fcd_real F, b2, rho;
} rigid_work;

static void rigid_work_free(rigid_work *r) {
  fcd_real **p[] = {&r->b0, &r->bb, &r->y,  &r->f2, &r->G,  &r->Wr, &r->Pw, &r->qb,
                    &r->e,  &r->a,  &r->aw, &r->Gw, &r->ew, &r->Tw, &r->mu};
  for (size_t i = 0; i < sizeof p / sizeof *p; i++) fcd__free(*p[i]);
}

/* The semi-definite problem's operators and the existence test: b0 = f - K z, the base
 * displacement u_b = z + K^+ b0 and its local values qb, G, e and the whitened balance
 * (balance_operators) with P = Gw^T Gw; then FCD_E_NO_SOLUTION when no admissible
 * reactions balance e (the slip directions of steady sliding first, as solve_steady's). */
static fcd_status rigid_setup(fcd_equilibrium *eq, eq_work *w, fcd_equilibrium_kind kind,
                              fcd_real *sl, rigid_work *r) {
  fcd_system *sys = eq->sys;
  fcd_index n = sys->n, nf = sys->nfree, nc = nct(eq), k = r->k;
  int d = cdim(eq);
  fcd_index m = nc * d;
  r->b0 = fcd__malloc_array((size_t)nf + 1, sizeof(fcd_real));
  r->bb = fcd__malloc_array((size_t)nf + 1, sizeof(fcd_real));
  r->y = fcd__malloc_array((size_t)nf + 1, sizeof(fcd_real));
  r->f2 = fcd__malloc_array((size_t)n + 1, sizeof(fcd_real));
  r->G = fcd__calloc((size_t)(k * m) + 1, sizeof(fcd_real));
  r->Wr = fcd__malloc_array((size_t)(m * m) + 1, sizeof(fcd_real));
  r->Pw = fcd__calloc((size_t)(m * m) + 1, sizeof(fcd_real));
  r->qb = fcd__malloc_array((size_t)m + 1, sizeof(fcd_real));
  r->e = fcd__malloc_array((size_t)k + 1, sizeof(fcd_real));
  r->a = fcd__calloc((size_t)k + 1, sizeof(fcd_real));
  r->aw = fcd__calloc((size_t)k + 1, sizeof(fcd_real));
  r->Gw = fcd__calloc((size_t)(k * m) + 1, sizeof(fcd_real));
  r->ew = fcd__calloc((size_t)k + 1, sizeof(fcd_real));
  r->Tw = fcd__calloc((size_t)(k * k) + 1, sizeof(fcd_real));
  r->mu = fcd__malloc_array((size_t)nc + 1, sizeof(fcd_real));
  if (!r->b0 || !r->bb || !r->y || !r->f2 || !r->G || !r->Wr || !r->Pw || !r->qb || !r->e ||
      !r->a || !r->aw || !r->Gw || !r->ew || !r->Tw || !r->mu)
    return fcd__err(sys, FCD_E_NOMEM, "out of memory in an equilibrium solve");
  FCD_TRY(rhs_free(eq, w->f, w->z, NULL, w->tmp, r->b0));
  r->F = r->b2 = 0;
  for (fcd_index q = 0; q < nf; q++) {
    r->F = fmax(r->F, fabs(r->b0[q]));
    r->b2 += r->b0[q] * r->b0[q];
  }
  r->b2 = sqrt(r->b2);
  for (fcd_index i = 0; i < k; i++) {
    fcd_real s = 0;
    for (fcd_index q = 0; q < nf; q++) s += eq->R[i * nf + q] * r->b0[q];
    r->e[i] = -s;
  }
  memcpy(w->xf, r->b0, (size_t)nf * sizeof *r->b0);
  FCD_TRY(pinv(eq, 1, w->xf, r->bb, r->y, r->y, w->tmp, r->f2));
  memcpy(w->ub, w->z, (size_t)n * sizeof *w->ub);
  for (fcd_index q = 0; q < nf; q++) w->ub[sys->dof_of[q]] = w->xf[q];
  r->rho = 0;
  r->kw = 0;
  if (nc > 0) {
    fcd_contact_set_local(eq->cs, w->ub, r->qb);
    FCD_TRY(balance_operators(eq, r->H, k, r->e, r->G, r->Gw, r->ew, r->Tw, &r->kw, r->Wr,
                              &r->rho));
    for (fcd_index i = 0; i < m; i++)
      for (fcd_index j = 0; j < m; j++) {
        fcd_real s = 0;
        for (fcd_index l = 0; l < r->kw; l++) s += r->Gw[l * m + i] * r->Gw[l * m + j];
        r->Pw[i * m + j] = s;
      }
  }
  for (fcd_index c = 0; c < nc; c++) {
    r->mu[c] = eq->cs->c[c].mu;
    if (kind == FCD_EQ_STEADY_SLIDING &&
        !fcd__slip_from_sliding_velocity(d, eq->cs->c[c].vg, sl + c * (d - 1)))
      return fcd__err(sys, FCD_E_STATE, "steady sliding: contact %lld has no sliding "
                      "velocity (set it with fcd_contact_set_set_sliding_velocity)",
                      (long long)c);
  }
  fcd__rigid_problem rp = {d, nc, k, nf, r->G, r->e, eq->R, r->mu,
                           kind == FCD_EQ_STEADY_SLIDING ? sl : NULL, r->b2,
                           cert_tolerance(eq)};
  fcd_real *motion = fcd__malloc_array((size_t)nf + 1, sizeof *motion);
  int ex = motion ? fcd__rigid_existence(&rp, &eq->mech, motion) : -1;
  fcd_status st = FCD_OK;
  if (ex < 0)
    st = fcd__err(sys, FCD_E_NOMEM, "out of memory testing an equilibrium's existence");
  else if (ex == 0)
    st = refuse_mechanism(eq, motion, kind == FCD_EQ_STEADY_SLIDING);
  if (ex != 0) eq->mech.kind = FCD_MECH_NONE;
  fcd__free(motion);
  return st;
}

/* The method of multipliers on the balance, from aw = 0, with rho raised while the
 * unbalance shrinks slowly (a body far above its support travels to it in a few
 * steps). */
static fcd_status rigid_multipliers(fcd_equilibrium *eq, eq_work *w,
                                    fcd_equilibrium_kind kind, fcd_real *sl, rigid_work *r) {
  fcd_system *sys = eq->sys;
  fcd_index nf = sys->nfree, nc = nct(eq), k = r->k, kw = r->kw;
  fcd_index m = nc * cdim(eq);
  const fcd_real *Gw = r->Gw, *ew = r->ew, *G = r->G, *e = r->e;
  fcd_real *aw = r->aw, tol = cert_tolerance(eq), prev = INFINITY, gn = 0, rho0 = r->rho;
  int slow = 0, quiet = 0;
  fcd_status st = FCD_OK;
  fcd_index j;
  for (j = 0; j < FCD__AL_MAX; j++) {
    if (nc > 0) {
      for (fcd_index i = 0; i < m; i++) {
        fcd_real s = r->qb[i];
        for (fcd_index l = 0; l < kw; l++) s += Gw[l * m + i] * (aw[l] - r->rho * ew[l]);
        w->loc[i] = s;
      }
      st = kind == FCD_EQ_STATIC ? solve_static(eq, w, r->Wr) : solve_steady(eq, w, r->Wr, sl);
      if (st != FCD_OK) return st;
    }
    for (fcd_index l = 0; l < kw; l++) {
      fcd_real s = -ew[l];
      for (fcd_index i = 0; i < m; i++) s += Gw[l * m + i] * w->r[i];
      aw[l] += r->rho * s;
    }
    /* the unbalance along each rigid mode, in force units */
    gn = 0;
    for (fcd_index l = 0; l < k; l++) {
      fcd_real s = -e[l];
      for (fcd_index i = 0; i < m; i++) s += G[l * m + i] * w->r[i];
      gn = fmax(gn, fabs(s));
    }
    fcd_real Fr = r->F;
    if (nc > 0) {
      fcd_contact_set_global(eq->cs, w->r, w->tmp);
      for (fcd_index q = 0; q < nf; q++) Fr = fmax(Fr, fabs(w->tmp[sys->dof_of[q]]));
    }
    if (!(Fr > 0)) Fr = 1;
    if (!isfinite(gn)) break;
    /* To round-off when it gets there. With the penalty on W+'s scale the rate is
     * lambda / (lambda + rho), exactly 0.5 for two nodes on a spring; a step that keeps
     * more than half the unbalance twice running raises rho tenfold, unless the
     * unbalance is already far inside the certificate's reach: there it is round-off,
     * and five slow steps end the iteration (a larger rho would only cost accuracy: its
     * inner solves certify to 3e-12 where rho on W+'s scale does to 7e-13). */
    if (gn <= 1e-14 * Fr || r->rho == 0) return FCD_OK;
    slow = gn > 0.5 * prev ? slow + 1 : 0;
    quiet = gn > 0.8 * prev ? quiet + 1 : 0;
    prev = gn;
    if (gn <= 0.01 * tol * Fr) {
      if (quiet >= 5) return FCD_OK;
    } else if (slow >= 2 && r->rho < FCD__AL_RHO_MAX * rho0 && nc > 0) {
      r->rho *= 10;
      penalised(m, eq->Wp, r->Pw, r->rho, r->Wr);
      slow = 0;
    }
  }
  return fcd__err(sys, FCD_E_NOT_CONVERGED,
                  "the equilibrium of a body held by its contacts did not balance in %lld "
                  "steps (unbalanced force %.3e along its %lld rigid mode(s), penalty %.1e "
                  "times its start), although admissible reactions balance the load; the "
                  "previous solution is kept", (long long)j, gn, (long long)k,
                  rho0 > 0 ? r->rho / rho0 : 0.0);
}

/* The semi-definite problem (a body held by its contacts), as FETI's coarse problem:
 *   u = z + K^+ (b0 + H^T r) + R a,   b0 = f - K z,
 *   u_loc = W+ r + q + G^T a,  G = R^T H^T,  and the balance G r = e, e = -R^T b0.
 * First the existence test on the rigid resultant (mechanism.c): when no admissible
 * reactions can give G r = e, there is no equilibrium, FCD_E_NO_SOLUTION naming the
 * mechanism. Otherwise the balance is enforced by the method of multipliers in a (the
 * rigid amplitudes act as the multipliers of the balance), in the whitened coordinates
 * of balance_operators (Gw, ew, a = Tw aw): each step solves the exact contact problem of
 *   W+ + rho Gw^T Gw  with  q + Gw^T (aw_j - rho ew),  then aw_{j+1} = aw_j + rho (Gw r - ew). */
static fcd_status solve_rigid(fcd_equilibrium *eq, eq_work *w, fcd_equilibrium_kind kind,
                              fcd_real *sl) {
  fcd_system *sys = eq->sys;
  fcd_index n = sys->n, nf = sys->nfree;
  rigid_work r;
  memset(&r, 0, sizeof r);
  if (nct(eq) > 0) FCD_TRY(fcd__contact_set_operator(eq->cs, &r.H));
  FCD_TRY(rigid_operators(eq, r.H));
  r.k = eq->nrig;
  fcd_status st = rigid_setup(eq, w, kind, sl, &r);
  if (st == FCD_OK) st = rigid_multipliers(eq, w, kind, sl, &r);
  /* u = z + K^+ (b0 + H^T r) + R a, a = Tw aw */
  if (st == FCD_OK) {
    for (fcd_index l = 0; l < r.k; l++) {
      fcd_real s = 0;
      for (fcd_index i = 0; i < r.kw; i++) s += r.Tw[l * r.k + i] * r.aw[i];
      r.a[l] = s;
    }
    st = rhs_free(eq, w->f, w->z, w->r, w->tmp, w->xf);
  }
  if (st == FCD_OK) st = pinv(eq, 1, w->xf, r.bb, r.y, r.y, w->tmp, r.f2);
  if (st == FCD_OK) {
    for (fcd_index l = 0; l < r.k; l++)
      for (fcd_index q = 0; q < nf; q++) w->xf[q] += r.a[l] * eq->R[l * nf + q];
    memcpy(w->u, w->z, (size_t)n * sizeof *w->u);
    for (fcd_index q = 0; q < nf; q++) w->u[sys->dof_of[q]] = w->xf[q];
  }
  rigid_work_free(&r);
  return st;
}

/* A hash of what every rank of a distributed solve must hold alike: the solve's
 * arguments and parameters, the load and prescribed values at t, the prescribed set, the
 * contacts and the reference. */
static uint64_t replicated_hash(const fcd_equilibrium *eq, int kind, fcd_real t,
                                const eq_work *w, const fcd_real *ur) {
  const fcd_system *sys = eq->sys;
  uint64_t h = fcd__hash(0, &kind, sizeof kind);
  h = fcd__hash(h, &t, sizeof t);
  h = fcd__hash(h, &eq->cert_tol, sizeof eq->cert_tol);
  h = fcd__hash(h, &eq->classify_tol, sizeof eq->classify_tol);
  h = fcd__hash(h, &eq->opts.tol, sizeof eq->opts.tol);
  h = fcd__hash(h, w->f, (size_t)sys->n * sizeof *w->f);
  h = fcd__hash(h, sys->fixed_list, (size_t)sys->nfixed * sizeof *sys->fixed_list);
  h = fcd__hash(h, ur, (size_t)sys->nfixed * sizeof *ur);
  if (eq->u_ref) h = fcd__hash(h, eq->u_ref, (size_t)sys->n * sizeof *eq->u_ref);
  return eq->cs ? fcd__contact_set_hash(eq->cs, h) : h;
}

fcd_status fcd_equilibrium_solve(fcd_equilibrium *eq, fcd_equilibrium_kind kind, fcd_real t) {
  CHECK_EQ(eq);
  fcd_system *sys = eq->sys;
  fcd_index n = sys->n, nc = nct(eq), nfix = sys->nfixed;
  int d = cdim(eq);
  fcd_index m = nc * d;
  fcd_status st = FCD_OK;
  eq_work w;
  memset(&w, 0, sizeof w);
  fcd_real *sl = NULL, *ur = NULL;
  const fcd__free_pattern *fp = NULL;
  eq->mech.kind = FCD_MECH_NONE;
  /* Up to the agreement below nothing communicates: on a distributed system a rank that
   * fails here still reaches it, and every rank returns together. */
  if (kind != FCD_EQ_STATIC && kind != FCD_EQ_STEADY_SLIDING)
    st = fcd__err(sys, FCD_E_INVALID_ARG, "unknown equilibrium kind %d", (int)kind);
  else if (!isfinite(t))
    st = fcd__err(sys, FCD_E_INVALID_ARG, "equilibrium time is not finite");
  else if (kind == FCD_EQ_STEADY_SLIDING && !eq->cs)
    st = fcd__err(sys, FCD_E_STATE, "steady sliding needs a contact set (created with NULL)");
  else
    st = fcd__system_free_pattern(sys, &fp);
  if (st != FCD_OK) {
    st = fcd__dist_agree(sys, st, 0, "equilibrium solve");
    goto done;
  }
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
  sl = fcd__calloc((size_t)(nc * (d - 1)) + 1, sizeof(fcd_real));
  ur = fcd__malloc_array((size_t)nfix + 1, sizeof(fcd_real));
  if (!w.f || !w.z || !w.vr || !w.ub || !w.tmp || !w.xf || !w.u || !w.r || !w.loc || !w.set ||
      !w.sdir || !sl || !ur)
    st = fcd__err(sys, FCD_E_NOMEM, "out of memory in an equilibrium solve");
  if (st == FCD_OK) st = fcd_system_eval_load(sys, t, w.f);
  if (st == FCD_OK) st = fcd_system_eval_prescribed(sys, t, ur, w.vr);
  if (st == FCD_OK && nc > 0) {
    const fcd__csr *H;
    st = fcd__contact_set_operator(eq->cs, &H);
    if (st == FCD_OK) st = fcd__contact_dofs_free(sys, H);
  }
  if (fcd__dist_on(sys))
    st = fcd__dist_agree(sys, st, st == FCD_OK ? replicated_hash(eq, kind, t, &w, ur) : 0,
                         "equilibrium solve");
  if (st != FCD_OK) goto done;
  for (fcd_index k = 0; k < nfix; k++) w.z[sys->fixed_list[k]] = ur[k];
  if ((st = prepare(eq, fp)) != FCD_OK) goto done;
  /* a warm start from the previous solution of the contacts it had (those added since
   * start from zero) */
  if (eq->have)
    memcpy(w.r, eq->r, (size_t)((nc < eq->have_nc ? nc : eq->have_nc) * d) * sizeof *w.r);
  if (eq->rigid) {
    if ((st = solve_rigid(eq, &w, kind, sl)) != FCD_OK) goto done;
  } else {
    if ((st = displacement(eq, eq->fac, w.f, w.z, NULL, w.ub, w.tmp, w.xf)) != FCD_OK)
      goto done;
    if (nc > 0) {
      const fcd__csr *H;
      if ((st = fcd__contact_set_operator(eq->cs, &H)) != FCD_OK) goto done;
      if ((st = fcd__wcache_ensure(&eq->W, sys, eq->fac, fcd__factor_solve_free, eq->cs,
                                    H)) != FCD_OK)
        goto done;
      fcd_contact_set_local(eq->cs, w.ub, w.loc);
      st = kind == FCD_EQ_STATIC ? solve_static(eq, &w, eq->W.W)
                                 : solve_steady(eq, &w, eq->W.W, sl);
      if (st != FCD_OK) goto done;
    }
    if ((st = displacement(eq, eq->fac, w.f, w.z, w.r, w.u, w.tmp, w.xf)) != FCD_OK)
      goto done;
  }
  fcd_certificate cert;
  int certified = finish(eq, &w, kind == FCD_EQ_STEADY_SLIDING ? sl : NULL, &cert);
  if (certified < 0) {
    if (certified == -1) st = fcd__err(sys, FCD_E_NOMEM, "out of memory checking an equilibrium");
    else st = FCD_E_BACKEND; /* the reduction's message stands */
    goto done;
  }
  if (!certified && eq->rigid && eq->void_dof >= 0) {
    st = fcd__err(sys, FCD_E_SINGULAR, "no equilibrium is defined: the stiffness is zero at "
                  "dof %lld (its diagonal entry is 0, as at a node no element or spring "
                  "reaches) and neither a contact nor a load involves it, so nothing decides "
                  "its displacement; prescribe the dof or connect it; the previous solution "
                  "is kept", (long long)eq->void_dof);
    goto done;
  }
  if (!certified) {
    char fig[320];
    fcd__certificate_format(&cert, fig, sizeof fig);
    st = fcd__err(sys, FCD_E_NOT_CONVERGED,
                  "%s equilibrium fails its certificate: %s; the previous solution is kept",
                  kind == FCD_EQ_STATIC ? "static" : "steady sliding", fig);
    goto done;
  }
  /* commit */
  free_solution(eq);
  eq->u = w.u;
  eq->r = w.r;
  eq->set = w.set;
  eq->sdir = w.sdir;
  eq->cert = cert;
  w.u = w.r = w.sdir = NULL;
  w.set = NULL;
  eq->have = 1;
  eq->have_nc = nc;
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

/* per-contact results belong to the contacts of the last solve */
#define CHECK_HAVE_CONTACTS(eq)                                                        \
  do {                                                                                 \
    CHECK_HAVE(eq);                                                                    \
    if (nct(eq) != (eq)->have_nc)                                                      \
      return fcd__err((eq)->sys, FCD_E_STATE, "%lld contacts now, %lld at the last "   \
                      "solve: solve again for the added contacts' results",            \
                      (long long)nct(eq), (long long)(eq)->have_nc);                   \
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
  if (nct(eq) > 0) memcpy(r, eq->r, (size_t)(nct(eq) * cdim(eq)) * sizeof *r);
  return FCD_OK;
}

fcd_status fcd_equilibrium_get_contact_sets(const fcd_equilibrium *eq, int *set) {
  CHECK_HAVE_CONTACTS(eq);
  if (!set) return fcd__err(eq->sys, FCD_E_INVALID_ARG, "get_contact_sets: set is NULL");
  if (nct(eq) > 0) memcpy(set, eq->set, (size_t)nct(eq) * sizeof *set);
  return FCD_OK;
}

fcd_status fcd_equilibrium_get_contact_state(const fcd_equilibrium *eq, int *status,
                                             fcd_real *slip_dir) {
  CHECK_HAVE_CONTACTS(eq);
  int d = cdim(eq);
  for (fcd_index c = 0; c < nct(eq); c++) {
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
                      "system, or is %dD for a %dD contact set", dim, cdim(eq));
    }
  }
  fcd__geometry_free(eq->geo);
  eq->geo = g;
  return FCD_OK;
}
