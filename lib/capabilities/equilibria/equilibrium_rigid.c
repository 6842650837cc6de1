/* The rigid-mode machinery of equilibria (fcd/fcd_equilibrium.h): bodies held by their
 * contacts, whose K is semi-definite on the free dofs. The rank of K is decided by a
 * probe; the rigid modes by subspace iteration; the elastic part through the
 * pseudo-inverse K^+ (the factor of K + c D with refinement); then FETI's coarse problem
 * with the existence test of mechanism.c first and the method of multipliers on the
 * balance (docs/equilibria.md, "Bodies held by their contacts"). The drivers and the
 * certificate are in equilibrium.c. */
#include "lapack.h"
#include "equilibrium_private.h"

#include <math.h>
#include <string.h>

/* D = diag K on the free dofs (zero diagonals, dofs without stiffness, take the mean
 * of the others so that D is a metric) and the values of K on the free pattern. */
static fcd_status k_values(fcd_equilibrium *eq, const fcd__free_pattern *fp, fcd_real *vals,
                           fcd_real *dg) {
  FCD_TRY(fcd__system_combination(eq->sys, 0.0, 0.0, 1.0, vals));
  fcd_real sum = 0;
  fcd_index cnt = 0;
  FCD_TRY(fcd__rows_pattern_diag(eq->sys, fp, vals, dg));
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
  fcd__free_to_full(sys, x, full);
  fcd_system_apply(sys, FCD_STIFFNESS, full, full2);
  fcd__full_to_free(sys, full2, y);
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
  if (fcd__eq_nct(eq) > 0) {
    const fcd__csr *H;
    FCD_TRY(fcd__contact_set_operator(eq->cs, &H));
    for (fcd_index e = 0; e < H->rowptr[H->n] && !held; e++) held = H->col[e] == dof;
  }
  /* dof and d are the ranks' agreed figures (mumps_factor.c), H is replicated: every
   * rank reaches the same verdict */
  if (!held) eq->void_dof = dof;
  return FCD_OK;
}

/* K on the free dofs factored and its rank decided (probed once per factorization);
 * for a semi-definite K (a body held by its contacts) the regularised factor too. */
fcd_status fcd__eq_prepare(fcd_equilibrium *eq, const fcd__free_pattern *fp) {
  fcd_system *sys = eq->sys;
  /* a K whose factorization failed is not factored again while it stays the same */
  int failed = eq->kfail_pat == fp->version && eq->kfail_val == sys->value_version;
  fcd_status st = FCD_OK;
  /* distributed: K's factor eliminates the contact dofs last (delassus.c) */
  if (fcd__eq_nct(eq) > 0) FCD_TRY(fcd__factor_schur_on_contacts(sys, eq->fac, eq->cs));
  if (!failed) {
    char saved[FCD_ERRMSG_CAP];
    memcpy(saved, sys->h.err, sizeof saved);
    st = fcd__factor_combination_free(eq->fac, 0.0, 0.0, 1.0);
    failed = st == FCD_E_NOT_SPD;
    if (st != FCD_OK && !failed) return st;
    eq->void_dof = -1;
    if (failed) FCD_TRY(diagonal_refusal(eq));
    if (failed) {
      memcpy(sys->h.err, saved, sizeof saved); /* an answer, not an error */
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

/* K^+ as a block solve for the Delassus builder, with pinv's workspace */
typedef struct {
  fcd_equilibrium *eq;
  fcd_real *B, *R, *y, *f1, *f2;
} pinv_ctx;

static fcd_status pinv_block(void *ctx, fcd_index nrhs, fcd_real *X) {
  pinv_ctx *c = ctx;
  return pinv(c->eq, nrhs, X, c->B, c->R, c->y, c->f1, c->f2);
}

/* The rigid-mode search's subspace: p vectors X (nf x p), their Ritz rotation T and
 * values th (ascending), k of them below FCD__RIGID_TOL. */
typedef struct {
  fcd_real *X, *KX, *T, *th;
  fcd_index p, k;
} rigid_subspace;

static void rigid_subspace_free(rigid_subspace *s) {
  fcd__free(s->X);
  fcd__free(s->KX);
  fcd__free(s->T);
  fcd__free(s->th);
  s->X = s->KX = s->T = s->th = NULL;
}

/* one round at p vectors: four steps of inverse iteration from a fixed pseudo-random
 * start (D-scaled, D-orthonormalised), then Rayleigh-Ritz on x'Kx */
static fcd_status rigid_round(fcd_equilibrium *eq, const fcd_real *dg, fcd_real *f1,
                              fcd_real *f2, rigid_subspace *s) {
  fcd_system *sys = eq->sys;
  fcd_index nf = sys->nfree, p = s->p;
  rigid_subspace_free(s);
  s->X = fcd__malloc_array((size_t)(nf * p), sizeof *s->X);
  s->KX = fcd__malloc_array((size_t)(nf * p), sizeof *s->KX);
  s->T = fcd__malloc_array((size_t)(p * p), sizeof *s->T);
  s->th = fcd__malloc_array((size_t)p, sizeof *s->th);
  if (!s->X || !s->KX || !s->T || !s->th)
    return fcd__err(sys, FCD_E_NOMEM, "out of memory finding the rigid modes of the stiffness");
  fcd_real *X = s->X, *KX = s->KX, *T = s->T;
  uint64_t seed = 0x2545f4914f6cdd1dull;
  for (fcd_index i = 0; i < nf * p; i++) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    X[i] = (fcd_real)(seed >> 11) * (2.0 / 9007199254740992.0) - 1.0;
  }
  for (int it = 0; it < 4; it++) {
    for (fcd_index j = 0; j < p; j++)
      for (fcd_index i = 0; i < nf; i++) X[j * nf + i] *= dg[i];
    FCD_TRY(fcd__factor_solve_free(eq->rfac, p, X, X));
    orthonormalise(nf, p, X, dg);
  }
  for (fcd_index j = 0; j < p; j++) k_free(eq, X + j * nf, KX + j * nf, f1, f2);
  for (fcd_index i = 0; i < p; i++)
    for (fcd_index j = 0; j < p; j++) {
      fcd_real sum = 0;
      for (fcd_index q = 0; q < nf; q++) sum += X[i * nf + q] * KX[j * nf + q];
      T[i * p + j] = sum;
    }
  if (fcd__la_syev(1, p, T, s->th) != 0)
    return fcd__err(sys, FCD_E_BACKEND, "the Rayleigh-Ritz step of the rigid-mode search "
                    "failed (LAPACK dsyev)");
  s->k = 0;
  while (s->k < p && s->th[s->k] < FCD__RIGID_TOL) s->k++;
  return FCD_OK;
}

/* Rounds at 8, 16, .. vectors until one holds a Ritz value above the tolerance (every
 * rigid mode found) or all free dofs; then the rigid basis R (D-orthonormal). */
static fcd_status rigid_basis(fcd_equilibrium *eq, const fcd_real *dg, fcd_real *f1,
                              fcd_real *f2) {
  fcd_system *sys = eq->sys;
  fcd_index nf = sys->nfree;
  rigid_subspace s = {NULL, NULL, NULL, NULL, nf < 8 ? nf : 8, 0};
  fcd_status st;
  while ((st = rigid_round(eq, dg, f1, f2, &s)) == FCD_OK && s.k == s.p && s.p < nf) {
    if (s.p >= FCD__RIGID_MAX) {
      char at[80] = "";
      if (eq->void_dof >= 0)
        snprintf(at, sizeof at, " (dof %lld, for one, has a zero diagonal in K)",
                 (long long)eq->void_dof);
      st = fcd__err(sys, FCD_E_SINGULAR, "the stiffness has at least %lld rigid modes on the "
                    "free dofs%s: a model mostly without stiffness, not bodies held by their "
                    "contacts; no equilibrium is defined", (long long)s.p, at);
      break;
    }
    s.p = 2 * s.p < nf ? 2 * s.p : nf;
    if (s.p > FCD__RIGID_MAX) s.p = FCD__RIGID_MAX;
  }
  if (st == FCD_OK && s.k == 0)
    st = fcd__err(sys, FCD_E_SINGULAR,
                  "the stiffness is nearly singular on the free dofs (its factorization "
                  "failed, yet no rigid mode has x'Kx/x'Dx below %.0e): no reliable "
                  "equilibrium", FCD__RIGID_TOL);
  if (st == FCD_OK && !(eq->R = fcd__calloc((size_t)(nf * s.k), sizeof *eq->R)))
    st = fcd__err(sys, FCD_E_NOMEM, "out of memory finding the rigid modes of the stiffness");
  if (st == FCD_OK) {
    for (fcd_index i = 0; i < s.k; i++)
      for (fcd_index j = 0; j < s.p; j++) {
        fcd_real v = s.T[j * s.p + i];
        for (fcd_index q = 0; q < nf; q++) eq->R[i * nf + q] += v * s.X[j * nf + q];
      }
    orthonormalise(nf, s.k, eq->R, NULL);
    eq->nrig = s.k;
    eq->probe_rho = s.th[0];
  }
  rigid_subspace_free(&s);
  return st;
}

/* W+ = H K^+ H^T by the one Delassus builder, K^+ as its block solve, symmetrised: it is
 * symmetric by construction, and round-off asymmetry would bias the solvers */
static fcd_status rigid_wplus(fcd_equilibrium *eq, const fcd__csr *H, fcd_real *y,
                              fcd_real *f1, fcd_real *f2) {
  fcd_system *sys = eq->sys;
  fcd_index nf = sys->nfree, m = H->n, bs = m < 64 ? m : 64;
  eq->Wp = fcd__malloc_array((size_t)(m * m), sizeof *eq->Wp);
  fcd_real *B = fcd__malloc_array((size_t)(nf * bs), sizeof *B);
  fcd_real *Rs = fcd__malloc_array((size_t)(nf * bs), sizeof *Rs);
  fcd_status st = eq->Wp && B && Rs ? FCD_OK
                                    : fcd__err(sys, FCD_E_NOMEM, "out of memory building W+");
  if (st == FCD_OK) {
    pinv_ctx c = {eq, B, Rs, y, f1, f2};
    st = fcd__delassus_blocks(sys, nf, pinv_block, &c, H, eq->Wp);
  }
  if (st == FCD_OK)
    for (fcd_index i = 0; i < m; i++)
      for (fcd_index j = i + 1; j < m; j++) {
        fcd_real a = 0.5 * (eq->Wp[i * m + j] + eq->Wp[j * m + i]);
        eq->Wp[i * m + j] = eq->Wp[j * m + i] = a;
      }
  fcd__free(B);
  fcd__free(Rs);
  return st;
}

/* The rigid modes R (orthonormal) by subspace iteration with (K + c D)^-1 D and a
 * Rayleigh-Ritz step: Ritz values below RIGID_TOL are rigid. The block grows until it
 * holds an elastic mode too, so that none is missed. Then W+ = H K^+ H^T. Both are
 * cached on the pattern, the values and the contact set. */
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
  if (!dg || !f1 || !f2 || !y)
    st = fcd__err(sys, FCD_E_NOMEM, "out of memory finding the rigid modes of the stiffness");
  for (fcd_index k = 0; st == FCD_OK && k < nf; k++) dg[k] = eq->dreg[k] / FCD__RIGID_REG;
  if (st == FCD_OK) st = rigid_basis(eq, dg, f1, f2);
  if (st == FCD_OK && m > 0) st = rigid_wplus(eq, H, y, f1, f2);
  if (st == FCD_OK) {
    eq->wp_pat = fp->version;
    eq->wp_val = sys->value_version;
    eq->wp_csver = csver;
  } else {
    fcd__free(eq->R);
    fcd__free(eq->Wp);
    eq->R = eq->Wp = NULL;
    eq->nrig = 0;
  }
  fcd__free(dg);
  fcd__free(f1);
  fcd__free(f2);
  fcd__free(y);
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
  fcd__free_to_full(sys, motion_free, eq->mech_motion);
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
  fcd__mechanism_format(&eq->mech, fcd__eq_cdim(eq), frictionless, steady, what, sizeof what);
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
  fcd_index n = sys->n, nf = sys->nfree, nc = fcd__eq_nct(eq), k = r->k;
  int d = fcd__eq_cdim(eq);
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
  FCD_TRY(fcd__eq_rhs_free(eq, w->f, w->z, NULL, w->tmp, r->b0));
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
  fcd__free_to_full(sys, w->xf, w->ub);
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
                           fcd__eq_cert_tolerance(eq)};
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
  fcd_index nf = sys->nfree, nc = fcd__eq_nct(eq), k = r->k, kw = r->kw;
  fcd_index m = nc * fcd__eq_cdim(eq);
  const fcd_real *Gw = r->Gw, *ew = r->ew, *G = r->G, *e = r->e;
  fcd_real *aw = r->aw, tol = fcd__eq_cert_tolerance(eq), prev = INFINITY, gn = 0, rho0 = r->rho;
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
      st = kind == FCD_EQ_STATIC ? fcd__eq_solve_static(eq, w, r->Wr) : fcd__eq_solve_steady(eq, w, r->Wr, sl);
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
fcd_status fcd__eq_solve_rigid(fcd_equilibrium *eq, eq_work *w, fcd_equilibrium_kind kind,
                              fcd_real *sl) {
  fcd_system *sys = eq->sys;
  fcd_index n = sys->n, nf = sys->nfree;
  rigid_work r;
  memset(&r, 0, sizeof r);
  if (fcd__eq_nct(eq) > 0) FCD_TRY(fcd__contact_set_operator(eq->cs, &r.H));
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
    st = fcd__eq_rhs_free(eq, w->f, w->z, w->r, w->tmp, w->xf);
  }
  if (st == FCD_OK) st = pinv(eq, 1, w->xf, r.bb, r.y, r.y, w->tmp, r.f2);
  if (st == FCD_OK) {
    for (fcd_index l = 0; l < r.k; l++)
      for (fcd_index q = 0; q < nf; q++) w->xf[q] += r.a[l] * eq->R[l * nf + q];
    memcpy(w->u, w->z, (size_t)n * sizeof *w->u);
    fcd__free_to_full(sys, w->xf, w->u);
  }
  rigid_work_free(&r);
  return st;
}
