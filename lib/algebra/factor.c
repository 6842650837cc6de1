/* Factorizations with explicit reuse: the symbolic analysis is kept while the pattern
 * identity is unchanged, the numeric factorization while the values are. */
#include "algebra.h"
#include "lapack.h"

#include <math.h>
#include <string.h>

struct fcd__factor {
  fcd_system *sys;
  fcd__factor_kind kind;
  fcd__chol *chol;
  fcd__lu *lu;
  fcd__klu *klu;
  /* fcd__factor_create_free on a distributed system: the ranks' factor (dist.h), the
   * only place this file learns that the system is distributed */
  const fcd__free_solver *ops;
  fcd__mumps *mumps;
  /* the free operator's factor (fcd__factor_create_free): Cholesky while the combination
   * is symmetric, LU (UMFPACK, or MUMPS' unsymmetric factorization) when C or K is not */
  int general;
  fcd_index n;
  uint64_t analysed_pattern; /* 0: nothing analysed */
  uint64_t schur_key;        /* what the Schur set was derived from (0: none) */
  /* a serial general factor's Schur set: its next analysis (UMFPACK's or CHOLMOD's)
   * orders these free dofs last */
  fcd_index s;
  fcd_index *sidx;
  int factored;
  /* what the current numeric factor holds, for fcd__factor_combination */
  int combo_valid;
  fcd_real combo[3];
  uint64_t combo_values;
  fcd_real *work; /* combination values on the free pattern */
  fcd_index work_cap;
  fcd__factor_stats stats;
  fcd_index bad_col;
  /* bad_col's diagonal entry, when void_rows refused the values (bad_diag_set) */
  int bad_diag_set;
  fcd_real bad_diag;
};

fcd_status fcd__factor_create(fcd_system *sys, fcd__factor_kind kind, fcd__factor **out) {
  *out = NULL;
  fcd__factor *f = fcd__calloc(1, sizeof *f);
  if (!f) return fcd__err(sys, FCD_E_NOMEM, "out of memory creating a factorization");
  f->sys = sys;
  f->kind = kind;
  f->bad_col = -1;
  fcd_status st = kind == FCD__FACTOR_SPD  ? fcd__chol_create(sys, &f->chol)
                  : kind == FCD__FACTOR_KLU ? fcd__klu_create(sys, &f->klu)
                                            : fcd__lu_create(sys, &f->lu);
  if (st != FCD_OK) {
    fcd__free(f);
    return st;
  }
  *out = f;
  return FCD_OK;
}

void fcd__factor_destroy(fcd__factor *f) {
  if (!f) return;
  fcd__chol_destroy(f->chol);
  fcd__lu_destroy(f->lu);
  fcd__klu_destroy(f->klu);
  fcd__free(f->work);
  fcd__free(f->sidx);
  fcd__free(f);
}

/* A general factor with a Schur set orders it last (its trailing block is then the Schur
 * complement's factor, fcd__factor_inverse_cols_free); any other the CHOLMOD way */
static fcd_status chol_analyze(fcd__factor *f, fcd_index n, const fcd_index *rowptr,
                               const fcd_index *col, const fcd_real *val) {
  if (!f->general || f->s <= 0 || f->s >= n)
    return fcd__chol_analyze(f->chol, f->sys, n, rowptr, col, val);
  int *last = fcd__calloc((size_t)n, sizeof *last);
  if (!last) return fcd__err(f->sys, FCD_E_NOMEM, "out of memory ordering the contact dofs last");
  for (fcd_index a = 0; a < f->s; a++) last[f->sidx[a]] = 1;
  fcd_status st = fcd__chol_analyze_last(f->chol, f->sys, n, rowptr, col, val, last, f->s);
  fcd__free(last);
  return st;
}

/* Row bad of n refused (fcd__csr_void_row) with its diagonal entry d: the factor
 * remembers where, for the callers that name the dof. */
static fcd_status void_row_refused(fcd__factor *f, fcd_index n, fcd_index bad, fcd_real d,
                                   int spd) {
  f->bad_col = bad;
  f->bad_diag_set = spd;
  f->bad_diag = d;
  if (spd)
    return fcd__err(f->sys, FCD_E_NOT_SPD, "matrix is not positive definite: its diagonal "
                    "entry at column %lld of %lld is %g", (long long)bad, (long long)n, d);
  return fcd__err(f->sys, FCD_E_SINGULAR, "matrix is singular: its row %lld of %lld holds "
                  "no non-zero entry", (long long)bad, (long long)n);
}

/* The refusals exact and cheap enough to come before the backend's analysis (which then
 * never sees an operator without entries, nor one it would refuse): an SPD operator needs
 * every diagonal entry > 0 (a non-positive one gives a non-positive pivot in any order),
 * a serial LU a non-zero entry in every row. An operator with no entry at all reached
 * CHOLMOD as an invalid matrix ("status -4") and MUMPS as INFOG(1) = -2 or -8, which named
 * no dof. The ranks' factor makes the same check over the ranks (mumps_factor.c). */
static fcd_status void_rows(fcd__factor *f, fcd_index n, const fcd_index *rowptr,
                            const fcd_index *col, const fcd_real *val, int spd) {
  fcd_real d;
  fcd_index bad = fcd__csr_void_row(rowptr, col, val, 0, n, spd, &d);
  return bad < 0 ? FCD_OK : void_row_refused(f, n, bad, d, spd);
}

fcd_status fcd__factor_csr(fcd__factor *f, fcd_index n, const fcd_index *rowptr,
                           const fcd_index *col, const fcd_real *val, uint64_t pattern_id) {
  fcd_status st;
  f->combo_valid = 0;
  f->factored = 0;
  f->bad_col = -1;
  f->bad_diag_set = 0;
  FCD_TRY(void_rows(f, n, rowptr, col, val, f->kind == FCD__FACTOR_SPD));
  if (pattern_id == 0 || pattern_id != f->analysed_pattern || n != f->n) {
    f->analysed_pattern = 0;
    f->factored = 0;
    if (f->lu && f->general) {
      int changed;
      FCD_TRY(fcd__lu_set_schur(f->lu, f->sys, f->s, f->sidx, &changed));
    }
    st = f->kind == FCD__FACTOR_SPD ? chol_analyze(f, n, rowptr, col, val)
         : f->klu                   ? fcd__klu_analyze(f->klu, f->sys, n, rowptr, col)
                                    : fcd__lu_analyze(f->lu, f->sys, n, rowptr, col, val);
    if (st != FCD_OK) return st;
    f->n = n;
    f->analysed_pattern = pattern_id;
    f->stats.analyses++;
  }
  f->factored = 0;
  f->bad_col = -1;
  if (f->kind == FCD__FACTOR_SPD) fcd__chol_bind(f->chol, rowptr, col);
  st = f->kind == FCD__FACTOR_SPD ? fcd__chol_factor(f->chol, f->sys, val, &f->bad_col)
       : f->klu                   ? fcd__klu_factor(f->klu, f->sys, val)
                                  : fcd__lu_factor(f->lu, f->sys, val);
  if (st != FCD_OK) return st;
  f->factored = 1;
  f->stats.factorizations++;
  if (f->klu) f->stats.refactorizations = fcd__klu_refactorizations(f->klu);
  return FCD_OK;
}

void fcd__factor_set_refinement(fcd__factor *f, int steps) {
  if (f->lu) fcd__lu_set_refinement(f->lu, steps);
  if (f->klu) fcd__klu_set_refinement(f->klu, steps);
}

static fcd_status not_spd_at_dof(fcd__factor *f);

/* The free pattern, and whether the factor already holds a M + b C + c K of the current
 * values (*current). */
static fcd_status combination_state(fcd__factor *f, fcd_real a, fcd_real b, fcd_real c,
                                    const fcd__free_pattern **fp, int *current) {
  fcd_system *sys = f->sys;
  FCD_TRY(fcd__system_free_pattern(sys, fp));
  if ((*fp)->n == 0)
    return fcd__err(sys, FCD_E_STATE, "every dof is prescribed: nothing to factor");
  *current = f->factored && f->combo_valid && f->analysed_pattern == (*fp)->version &&
             f->combo_values == sys->value_version && f->combo[0] == a && f->combo[1] == b &&
             f->combo[2] == c;
  return FCD_OK;
}

/* The values of a M + b C + c K on the free pattern, in f->work. */
static fcd_status combination_values(fcd__factor *f, const fcd__free_pattern *fp, fcd_real a,
                                     fcd_real b, fcd_real c) {
  fcd_system *sys = f->sys;
  if (f->work_cap < fp->nnz) {
    fcd_real *w = fcd__malloc_array((size_t)fp->nnz, sizeof *w);
    if (!w) return fcd__err(sys, FCD_E_NOMEM, "out of memory forming a combination");
    fcd__free(f->work);
    f->work = w;
    f->work_cap = fp->nnz;
  }
  return fcd__system_combination(sys, a, b, c, f->work);
}

/* The kind the combination needs, for a general factor: switching kind starts a new
 * analysis. Collective on a distributed system (the asymmetry is measured over the
 * ranks, and every rank reaches the same decision). */
static fcd_status general_kind(fcd__factor *f, fcd_real a, fcd_real b, fcd_real c) {
  int nonsym = 0;
  FCD_TRY(fcd__system_combination_symmetry(f->sys, a, b, c, &nonsym));
  fcd__factor_kind want = nonsym ? FCD__FACTOR_LU : FCD__FACTOR_SPD;
  if (want == f->kind) return FCD_OK;
  if (f->ops) {
    f->ops->set_unsymmetric(f->mumps, nonsym);
  } else if (nonsym) {
    FCD_TRY(fcd__lu_create(f->sys, &f->lu));
    /* UMFPACK's iterative refinement (two steps by default) made the Delassus operator's
     * solves 3.5x dearer (32k-dof block: equilibrium 252 s against 73 s without), and
     * every answer is certified anyway, as the Cholesky path's are without refinement */
    fcd__lu_set_refinement(f->lu, 0);
    /* the other kind's factor is not kept alive beside this one */
    fcd__chol_destroy(f->chol);
    f->chol = NULL;
  } else {
    FCD_TRY(fcd__chol_create(f->sys, &f->chol));
    fcd__lu_destroy(f->lu);
    f->lu = NULL;
  }
  f->kind = want;
  f->analysed_pattern = 0;
  f->factored = 0;
  f->combo_valid = 0;
  return FCD_OK;
}

static void combination_done(fcd__factor *f, fcd_real a, fcd_real b, fcd_real c) {
  f->combo_valid = 1;
  f->combo[0] = a;
  f->combo[1] = b;
  f->combo[2] = c;
  f->combo_values = f->sys->value_version;
}

fcd_status fcd__factor_combination(fcd__factor *f, fcd_real a, fcd_real b, fcd_real c) {
  fcd_system *sys = f->sys;
  const fcd__free_pattern *fp;
  int current = 0;
  FCD_TRY(combination_state(f, a, b, c, &fp, &current));
  if (current) return FCD_OK;
  if (f->general)
    FCD_TRY(general_kind(f, a, b, c));
  else if (f->kind == FCD__FACTOR_SPD)
    FCD_TRY(fcd__system_require_symmetric(sys, a, b, c));
  FCD_TRY(combination_values(f, fp, a, b, c));
  /* A factor object serves either system combinations or caller matrices
   * (fcd__factor_csr), never both: pattern ids of the two sources are not comparable. */
  fcd_status st = fcd__factor_csr(f, fp->n, fp->rowptr, fp->col, f->work, fp->version);
  if (st == FCD_E_NOT_SPD && f->bad_col >= 0) return not_spd_at_dof(f);
  if (st == FCD_E_SINGULAR && f->general && f->kind == FCD__FACTOR_LU)
    return fcd__err(sys, st, "the non-symmetric operator is singular on the free dofs (its LU "
                    "has a zero pivot): a rigid mode or a mechanism, which only a symmetric "
                    "K may have (the contacts then hold it)");
  if (st != FCD_OK) return st;
  combination_done(f, a, b, c);
  return FCD_OK;
}

fcd_status fcd__factor_solve(fcd__factor *f, fcd_index nrhs, const fcd_real *b,
                             fcd_real *x) {
  if (!f->factored)
    return fcd__err(f->sys, FCD_E_STATE, "solve requested before a successful factorization");
  fcd_status st = FCD_OK;
  if (f->klu)
    for (fcd_index k = 0; k < nrhs && st == FCD_OK; k++)
      st = fcd__klu_solve(f->klu, f->sys, b + k * f->n, x + k * f->n);
  else
    st = f->kind == FCD__FACTOR_SPD ? fcd__chol_solve(f->chol, f->sys, nrhs, b, x)
                                    : fcd__lu_solve(f->lu, f->sys, nrhs, b, x);
  if (st == FCD_OK) f->stats.solves += nrhs;
  return st;
}

fcd_index fcd__factor_size(const fcd__factor *f) { return f->n; }

void fcd__factor_release_values(fcd__factor *f) {
  if (!f) return;
  fcd__free(f->work);
  f->work = NULL;
  f->work_cap = 0;
}

double fcd__factor_bytes(const fcd__factor *f) {
  return f && f->chol ? fcd__chol_bytes(f->chol) : 0;
}

fcd_index fcd__factor_bad_column(const fcd__factor *f) { return f->bad_col; }

int fcd__factor_bad_diagonal(const fcd__factor *f, fcd_real *d) {
  if (f->bad_col < 0 || !f->bad_diag_set) return 0;
  *d = f->bad_diag;
  return 1;
}

/* A combination's failed Cholesky reported at the dof it concerns (bad_col becomes a dof) */
static fcd_status not_spd_at_dof(fcd__factor *f) {
  f->bad_col = f->sys->dof_of[f->bad_col];
  if (f->bad_diag_set)
    return fcd__err(f->sys, FCD_E_NOT_SPD, "not positive definite on the free dofs: the "
                    "operator's diagonal entry at dof %lld is %g", (long long)f->bad_col,
                    f->bad_diag);
  return fcd__err(f->sys, FCD_E_NOT_SPD, "not positive definite on the free dofs: "
                  "non-positive pivot at dof %lld", (long long)f->bad_col);
}

fcd__factor_stats fcd__factor_get_stats(const fcd__factor *f) { return f->stats; }

fcd_index fcd__factor_count(const fcd__factor *f) { return f->stats.factorizations; }

fcd_status fcd__chol_is_pd(fcd_system *sys, const fcd__csr *S, int *pd) {
  fcd__factor *f;
  *pd = 0;
  /* "not positive definite" is this function's answer, not an error: the message the
   * factorization leaves for it must not outlive the call */
  char saved[FCD_ERRMSG_CAP];
  memcpy(saved, sys->h.err, sizeof saved);
  FCD_TRY(fcd__factor_create(sys, FCD__FACTOR_SPD, &f));
  fcd_status st = fcd__factor_csr(f, S->n, S->rowptr, S->col, S->val, 0);
  fcd__factor_destroy(f);
  if (st == FCD_OK) *pd = 1;
  if (st == FCD_E_NOT_SPD) {
    memcpy(sys->h.err, saved, sizeof saved);
    return FCD_OK;
  }
  return st;
}

fcd_real fcd__factor_rcond(const fcd__factor *f) {
  return f->kind == FCD__FACTOR_SPD ? fcd__chol_rcond(f->chol) : 1.0;
}

fcd__factor_kind fcd__factor_get_kind(const fcd__factor *f) { return f->kind; }

fcd_status fcd__factor_half(fcd__factor *f, int backward, const fcd_real *b, fcd_real *x) {
  if (f->kind != FCD__FACTOR_SPD || !f->factored)
    return fcd__err(f->sys, FCD_E_UNSUPPORTED, "half solves need a Cholesky factor");
  return fcd__chol_half(f->chol, f->sys, backward, b, x);
}

fcd_status fcd__factor_half_n(fcd__factor *f, int backward, fcd_index nrhs, const fcd_real *b,
                              fcd_real *x) {
  if (f->kind != FCD__FACTOR_SPD || !f->factored)
    return fcd__err(f->sys, FCD_E_UNSUPPORTED, "half solves need a Cholesky factor");
  return fcd__chol_half_n(f->chol, f->sys, backward, nrhs, b, x);
}

fcd_status fcd__factor_forward_reach(fcd__factor *f, fcd_index nrhs, fcd_index nrows,
                                     const fcd_index *rows, const fcd_real *b, fcd_real *x) {
  if (f->kind != FCD__FACTOR_SPD || !f->factored)
    return fcd__err(f->sys, FCD_E_UNSUPPORTED, "half solves need a Cholesky factor");
  int done = 0;
  FCD_TRY(fcd__chol_forward_reach(f->chol, f->sys, nrhs, nrows, rows, b, x, &done));
  return done ? FCD_OK : fcd__chol_half_n(f->chol, f->sys, 0, nrhs, b, x);
}

double fcd__factor_reach(const fcd__factor *f, fcd_index ncol, const fcd_index *colptr,
                         const fcd_index *row) {
  if (f->kind != FCD__FACTOR_SPD || !f->factored) return -1;
  return fcd__chol_reach(f->chol, ncol, colptr, row);
}


/* ---- the free operator's factor, distributed when the system is ----
 * Separate entry points (not branches of the serial ones), so that a serial factor's
 * callers never reach MPI or PETSc. On a distributed system they call through the ranks'
 * table (dist.h, fcd__free_solver), which agrees every decision that leads to a
 * collective. */
fcd_status fcd__factor_create_free(fcd_system *sys, fcd__factor **out) {
  const fcd__free_solver *ops = fcd__dist_free_solver(sys);
  if (!ops) {
    FCD_TRY(fcd__factor_create(sys, FCD__FACTOR_SPD, out));
    (*out)->general = 1;
    return FCD_OK;
  }
  *out = NULL;
  fcd__factor *f = fcd__calloc(1, sizeof *f);
  if (!f) return fcd__err(sys, FCD_E_NOMEM, "out of memory creating a factorization");
  f->sys = sys;
  f->kind = FCD__FACTOR_SPD;
  f->general = 1;
  f->bad_col = -1;
  f->ops = ops;
  fcd_status st = ops->create(sys, &f->mumps);
  if (st != FCD_OK) {
    fcd__free(f);
    return st;
  }
  *out = f;
  return FCD_OK;
}

void fcd__factor_destroy_free(fcd__factor *f) {
  if (!f) return;
  if (f->ops) f->ops->destroy(f->sys, f->mumps);
  f->mumps = NULL;
  fcd__factor_destroy(f);
}

fcd_status fcd__factor_csr_free(fcd__factor *f, fcd_index n, const fcd_index *rowptr,
                                const fcd_index *col, const fcd_real *val, uint64_t pattern_id) {
  if (!f->ops) return fcd__factor_csr(f, n, rowptr, col, val, pattern_id);
  f->combo_valid = 0;
  f->factored = 0;
  f->bad_col = -1;
  f->bad_diag_set = 0;
  int spd = f->kind == FCD__FACTOR_SPD, analysed = 0;
  int reanalyse = pattern_id == 0 || pattern_id != f->analysed_pattern || n != f->n;
  fcd_index bad = -1;
  fcd_real d = 0;
  fcd_status st = f->ops->factor(f->mumps, f->sys, n, rowptr, col, val, spd, reanalyse,
                                 &analysed, &bad, &d);
  if (analysed) {
    f->n = n;
    f->analysed_pattern = analysed > 0 ? pattern_id : 0;
    f->stats.analyses += analysed > 0;
  }
  if (st != FCD_OK) return st;
  if (bad >= 0) return void_row_refused(f, n, bad, d, spd);
  f->factored = 1;
  f->stats.factorizations++;
  return FCD_OK;
}

fcd_status fcd__factor_combination_free(fcd__factor *f, fcd_real a, fcd_real b, fcd_real c) {
  if (!f->ops) return fcd__factor_combination(f, a, b, c);
  const fcd__free_pattern *fp;
  int current = 0;
  FCD_TRY(combination_state(f, a, b, c, &fp, &current));
  /* refactor on every rank when the values moved on any */
  if (!f->ops->stale(f->sys, !current)) return FCD_OK;
  FCD_TRY(general_kind(f, a, b, c));
  FCD_TRY(combination_values(f, fp, a, b, c));
  fcd_status st = fcd__factor_csr_free(f, fp->n, fp->rowptr, fp->col, f->work, fp->version);
  if (st == FCD_E_NOT_SPD && f->bad_col >= 0) return not_spd_at_dof(f);
  if (st != FCD_OK) return st;
  combination_done(f, a, b, c);
  return FCD_OK;
}

fcd_status fcd__factor_solve_free(fcd__factor *f, fcd_index nrhs, const fcd_real *b,
                                  fcd_real *x) {
  if (!f->ops) return fcd__factor_solve(f, nrhs, b, x);
  if (!f->factored)
    return fcd__err(f->sys, FCD_E_STATE, "solve requested before a successful factorization");
  FCD_TRY(f->ops->solve(f->mumps, f->sys, nrhs, b, x));
  f->stats.solves += nrhs;
  return FCD_OK;
}

/* a serial LU gives the whole block */
static fcd_status lu_inverse_cols(fcd__factor *f, fcd_index s, const fcd_index *idx,
                                  fcd__inverse_cols *out) {
  out->a = fcd__malloc_array((size_t)s * (size_t)s + 1, sizeof *out->a);
  out->col = fcd__malloc_array((size_t)s + 1, sizeof *out->col);
  fcd_status st = out->a && out->col
                      ? fcd__lu_inverse_block(f->lu, f->sys, s, idx, out->a)
                      : fcd__err(f->sys, FCD_E_NOMEM, "out of memory for the Schur "
                                 "complement's inverse");
  if (st != FCD_OK) {
    fcd__inverse_cols_clear(out);
    return st;
  }
  for (fcd_index k = 0; k < s; k++) out->col[k] = k;
  out->ncols = s;
  return FCD_OK;
}

/* The trailing block of a serial Cholesky factor ordered with the set idx last (Lt, s x s)
 * and pos[order[k]] = the place in idx of the dof at its place k; FCD_E_UNSUPPORTED when
 * the factor was not ordered with this set last */
static fcd_status chol_trailing(fcd__factor *f, fcd_index s, const fcd_index *idx,
                                fcd_real **Lt, fcd_index **pos, fcd_index **order) {
  *Lt = NULL;
  *pos = *order = NULL;
  if (!f->chol || !f->general || s != f->s || s != fcd__chol_ntrail(f->chol) ||
      memcmp(idx, f->sidx, (size_t)s * sizeof *idx) != 0)
    return fcd__err(f->sys, FCD_E_UNSUPPORTED, "the Cholesky factor was not ordered with "
                    "these %lld dofs last", (long long)s);
  *Lt = fcd__malloc_array((size_t)s * (size_t)s, sizeof **Lt);
  *pos = fcd__malloc_array((size_t)f->n, sizeof **pos);
  *order = fcd__malloc_array((size_t)s, sizeof **order);
  fcd_status st = *Lt && *pos && *order
                      ? fcd__chol_trailing(f->chol, f->sys, s, *Lt, *order)
                      : fcd__err(f->sys, FCD_E_NOMEM, "out of memory for the Schur "
                                 "complement's factor of %lld dofs", (long long)s);
  if (st == FCD_OK) {
    for (fcd_index i = 0; i < f->n; i++) (*pos)[i] = -1;
    for (fcd_index a = 0; a < s; a++) (*pos)[idx[a]] = a;
  }
  if (st != FCD_OK) {
    fcd__free(*Lt);
    fcd__free(*pos);
    fcd__free(*order);
    *Lt = NULL;
    *pos = *order = NULL;
  }
  return st;
}

/* a serial Cholesky factor A = P' L L' P with the set last: (A^-1) on the set is the
 * inverse of its Schur complement C = Lt Lt', whose factor Lt ends L; B whole (s x s,
 * symmetric) in the set's order */
static fcd_status chol_inverse_cols(fcd__factor *f, fcd_index s, const fcd_index *idx,
                                    fcd__inverse_cols *out) {
  fcd_real *Lt;
  fcd_index *pos, *order;
  FCD_TRY(chol_trailing(f, s, idx, &Lt, &pos, &order));
  fcd_status st = FCD_OK;
  out->a = fcd__malloc_array((size_t)s * (size_t)s, sizeof *out->a);
  out->col = fcd__malloc_array((size_t)s, sizeof *out->col);
  int r = out->a && out->col ? fcd__la_chol_inverse_cm(s, Lt) : FCD__LA_NOMEM;
  if (r != 0) {
    st = r == FCD__LA_TOO_BIG ? fcd__err(f->sys, FCD_E_UNSUPPORTED, "a Schur complement of "
                                         "%lld dofs is beyond LAPACK's int indices",
                                         (long long)s)
         : r > 0 ? fcd__err(f->sys, FCD_E_NOT_SPD, "the Schur complement on the contact "
                            "dofs has a zero pivot")
                 : fcd__err(f->sys, FCD_E_NOMEM, "out of memory inverting the Schur "
                            "complement");
  } else {
    /* Lt's lower triangle in the factor's order to the whole block in the set's */
    for (fcd_index j = 0; j < s; j++) {
      fcd_index pj = pos[order[j]];
      for (fcd_index i = j; i < s; i++) {
        fcd_index pi = pos[order[i]];
        out->a[pj * s + pi] = out->a[pi * s + pj] = Lt[j * s + i];
      }
    }
    for (fcd_index k = 0; k < s; k++) out->col[k] = k;
    out->ncols = s;
    out->lower = 0;
  }
  if (st != FCD_OK) fcd__inverse_cols_clear(out);
  fcd__free(Lt);
  fcd__free(pos);
  fcd__free(order);
  return st;
}

/* whether the sorted set idx (s dofs) holds dof i */
static int in_set(const fcd_index *idx, fcd_index s, fcd_index i) {
  fcd_index lo = 0, hi = s;
  while (lo < hi) {
    fcd_index mid = lo + (hi - lo) / 2;
    if (idx[mid] < i) lo = mid + 1;
    else hi = mid;
  }
  return lo < s && idx[lo] == i;
}

/* Y = L^-1 P B when the factor ends with its Schur set and B's rows are all in it: Y is
 * zero above L's trailing block and Lt^-1 (B's rows there) within it, solved by BLAS in
 * blocks of columns, where CHOLMOD's sparse solve passes every column through the whole
 * factor (12 s against 0.2 s for the 1,875 directions of the 32k-dof block).
 * FCD_E_UNSUPPORTED (nothing allocated) when B or the factor is not of that form. */
static fcd_status chol_forward_trailing(fcd__factor *f, fcd_index ncol, const fcd_index *colptr,
                                        const fcd_index *row, const fcd_real *val,
                                        fcd_index **ycolptr, fcd_index **yrow,
                                        fcd_real **yval) {
  enum { NB = 256 };
  fcd_index s = f->s, b = f->n - s, nz = 0;
  if (s <= 0 || s != fcd__chol_ntrail(f->chol))
    return fcd__err(f->sys, FCD_E_UNSUPPORTED, "the Cholesky factor has no Schur set last");
  for (fcd_index e = 0; e < colptr[ncol]; e++)
    if (!in_set(f->sidx, s, row[e]))
      return fcd__err(f->sys, FCD_E_UNSUPPORTED, "a column reaches a dof outside the Schur set");
  fcd_real *Lt, *Y = NULL;
  fcd_index *pos, *order, *at = NULL, *first = NULL;
  FCD_TRY(chol_trailing(f, s, f->sidx, &Lt, &pos, &order));
  fcd_status st = FCD_OK;
  /* at[place in the set] = place in the factor's trailing block */
  at = fcd__malloc_array((size_t)s, sizeof *at);
  first = fcd__malloc_array((size_t)ncol + 1, sizeof *first);
  Y = fcd__malloc_array((size_t)s * NB, sizeof *Y);
  *ycolptr = fcd__malloc_array((size_t)ncol + 1, sizeof **ycolptr);
  if (!at || !first || !Y || !*ycolptr) goto nomem;
  for (fcd_index k = 0; k < s; k++) at[pos[order[k]]] = k;
  /* column j is zero above the first place it touches: s - first[j] entries at most,
   * whatever the values (a zero pivot would turn the zeros above it into NaN) */
  for (fcd_index j = 0; j < ncol; j++) {
    first[j] = s;
    for (fcd_index e = colptr[j]; e < colptr[j + 1]; e++)
      if (at[pos[row[e]]] < first[j]) first[j] = at[pos[row[e]]];
    nz += s - first[j];
  }
  *yrow = fcd__malloc_array((size_t)nz + 1, sizeof **yrow);
  *yval = fcd__malloc_array((size_t)nz + 1, sizeof **yval);
  if (!*yrow || !*yval) goto nomem;
  nz = 0;
  for (fcd_index j0 = 0; j0 < ncol && st == FCD_OK; j0 += NB) {
    fcd_index nb = ncol - j0 < NB ? ncol - j0 : NB;
    memset(Y, 0, (size_t)s * (size_t)nb * sizeof *Y);
    for (fcd_index j = 0; j < nb; j++)
      for (fcd_index e = colptr[j0 + j]; e < colptr[j0 + j + 1]; e++)
        Y[j * s + at[pos[row[e]]]] += val[e];
    if (fcd__la_lower_solve_cm(s, nb, Lt, Y) != 0) {
      st = fcd__err(f->sys, FCD_E_UNSUPPORTED, "a Schur complement of %lld dofs is beyond "
                    "BLAS' int indices", (long long)s);
      break;
    }
    for (fcd_index j = 0; j < nb; j++) {
      (*ycolptr)[j0 + j] = nz;
      for (fcd_index k = first[j0 + j]; k < s; k++)
        if (Y[j * s + k] != 0) {
          (*yrow)[nz] = b + k;
          (*yval)[nz++] = Y[j * s + k];
        }
    }
  }
  (*ycolptr)[ncol] = nz;
  goto done;
nomem:
  st = fcd__err(f->sys, FCD_E_NOMEM, "out of memory for the forward-solved contact columns");
done:
  if (st != FCD_OK) {
    fcd__free(*ycolptr);
    fcd__free(*yrow);
    fcd__free(*yval);
    *ycolptr = *yrow = NULL;
    *yval = NULL;
  }
  fcd__free(Lt);
  fcd__free(pos);
  fcd__free(order);
  fcd__free(at);
  fcd__free(first);
  fcd__free(Y);
  return st;
}

fcd_status fcd__factor_forward_sparse(fcd__factor *f, fcd_index ncol, const fcd_index *colptr,
                                      const fcd_index *row, const fcd_real *val,
                                      fcd_index **ycolptr, fcd_index **yrow, fcd_real **yval) {
  *ycolptr = *yrow = NULL;
  *yval = NULL;
  if (f->kind != FCD__FACTOR_SPD || !f->factored)
    return fcd__err(f->sys, FCD_E_UNSUPPORTED, "sparse forward solves need a Cholesky factor");
  if (f->general && fcd__chol_ntrail(f->chol) > 0) {
    char saved[FCD_ERRMSG_CAP];
    memcpy(saved, f->sys->h.err, sizeof saved);
    fcd_status st = chol_forward_trailing(f, ncol, colptr, row, val, ycolptr, yrow, yval);
    if (st != FCD_E_UNSUPPORTED) return st;
    memcpy(f->sys->h.err, saved, sizeof saved); /* not an error: CHOLMOD solves instead */
  }
  return fcd__chol_forward_sparse(f->chol, f->sys, ncol, colptr, row, val, ycolptr, yrow, yval);
}

fcd_status fcd__factor_inverse_cols_free(fcd__factor *f, fcd_index s, const fcd_index *idx,
                                         fcd__inverse_cols *out) {
  memset(out, 0, sizeof *out);
  if (!f->ops && !(f->lu && f->kind == FCD__FACTOR_LU) &&
      !(f->chol && f->kind == FCD__FACTOR_SPD))
    return fcd__err(f->sys, FCD_E_UNSUPPORTED, "entries of the inverse need a distributed "
                    "factor or a serial one ordered with them last");
  if (!f->factored)
    return fcd__err(f->sys, FCD_E_STATE, "solve requested before a successful factorization");
  FCD_TRY(f->ops                        ? f->ops->inverse_cols(f->mumps, f->sys, s, idx, out)
          : f->kind == FCD__FACTOR_SPD ? chol_inverse_cols(f, s, idx, out)
                                       : lu_inverse_cols(f, s, idx, out));
  f->stats.solves += s;
  return FCD_OK;
}

int fcd__factor_spread(const fcd__factor *f) { return f->ops != NULL; }

/* W = H A^-1 H^T (m x m) from a serial Cholesky factor A = P' L L' P ordered with the
 * contact dofs idx last: B = P H^T lives in L's trailing block Lt alone, so W = Y' Y for
 * Y = Lt^-1 B (s x m), a triangular solve and a product on that block, where solving the
 * m columns through the whole factor cost the first step of a 20k-dof block with 101
 * contacts 0.3 s (about 200 solves). FCD_E_UNSUPPORTED when the factor is not of that
 * form (the caller then solves). */
static fcd_status chol_delassus_trailing(fcd__factor *f, const fcd__csr *H, fcd_index s,
                                         const fcd_index *idx, const fcd_index *pos,
                                         fcd_real *W) {
  fcd_real *Lt;
  fcd_index *tpos, *order, m = H->n;
  FCD_TRY(chol_trailing(f, s, idx, &Lt, &tpos, &order));
  fcd_index *at = fcd__malloc_array((size_t)s + 1, sizeof *at);
  fcd_real *Y = fcd__calloc((size_t)s * (size_t)m + 1, sizeof *Y);
  fcd_status st = FCD_OK;
  if (!at || !Y) {
    st = fcd__err(f->sys, FCD_E_NOMEM, "out of memory for the Delassus operator of %lld "
                  "contact directions", (long long)m);
  } else {
    for (fcd_index k = 0; k < s; k++) at[tpos[order[k]]] = k;
    for (fcd_index r = 0; r < m; r++)
      for (fcd_index e = H->rowptr[r]; e < H->rowptr[r + 1]; e++)
        Y[r * s + at[pos[f->sys->free_of[H->col[e]]]]] += H->val[e];
    if (fcd__la_lower_solve_cm(s, m, Lt, Y) != 0 || fcd__la_gemm_tn(m, m, s, Y, Y, W) != 0)
      st = fcd__err(f->sys, FCD_E_UNSUPPORTED, "a Delassus operator of %lld contact "
                    "directions is beyond BLAS' int indices", (long long)m);
    else /* Y^T Y is symmetric; dgemm's blocks may round its mirrored entries apart */
      for (fcd_index i = 0; i < m; i++)
        for (fcd_index j = 0; j < i; j++) W[j * m + i] = W[i * m + j];
  }
  fcd__free(at);
  fcd__free(Y);
  fcd__free(Lt);
  fcd__free(tpos);
  fcd__free(order);
  return st;
}

fcd_status fcd__factor_delassus_free(fcd__factor *f, const fcd__csr *H, fcd_index s,
                                     const fcd_index *idx, const fcd_index *pos, fcd_real *W) {
  if (!f->factored)
    return fcd__err(f->sys, FCD_E_STATE, "solve requested before a successful factorization");
  if (!f->ops && f->chol && f->kind == FCD__FACTOR_SPD) {
    /* the caller passes no set when it ran out of memory listing it */
    if (!idx || !pos)
      return fcd__err(f->sys, FCD_E_NOMEM, "out of memory listing the contact dofs");
    return chol_delassus_trailing(f, H, s, idx, pos, W);
  }
  if (!f->ops)
    return fcd__err(f->sys, FCD_E_UNSUPPORTED, "a Delassus operator from the inverse's "
                    "columns needs a factor spread over the ranks or a Cholesky factor "
                    "ordered with the contact dofs last");
  FCD_TRY(f->ops->delassus(f->mumps, f->sys, H, s, idx, pos, W));
  f->stats.solves += s;
  return FCD_OK;
}

int fcd__factor_halves_free(const fcd__factor *f) {
  return f->ops && f->factored && f->ops->halves(f->mumps);
}

fcd_status fcd__factor_condense_free(fcd__factor *f, const fcd_real *b, fcd_real *xs) {
  if (!fcd__factor_halves_free(f))
    return fcd__err(f->sys, FCD_E_STATE, "a solve in halves needs a distributed factor "
                    "with a Schur set");
  return f->ops->condense(f->mumps, f->sys, b, xs);
}

fcd_status fcd__factor_expand_free(fcd__factor *f, const fcd_real *g, fcd_real *x) {
  if (!fcd__factor_halves_free(f))
    return fcd__err(f->sys, FCD_E_STATE, "a solve in halves needs a distributed factor "
                    "with a Schur set");
  FCD_TRY(f->ops->expand(f->mumps, f->sys, g, x));
  f->stats.solves++;
  return FCD_OK;
}

void fcd__factor_set_separators(fcd__factor *f, int on) {
  if (f->ops) f->ops->set_separators(f->mumps, on);
}

int fcd__factor_schur_current(const fcd__factor *f, uint64_t key) {
  return (f->ops || f->general) && key != 0 && f->schur_key == key;
}

/* Serially the set is kept for the next analysis, which orders it last (UMFPACK's for an
 * LU, CHOLMOD's for a Cholesky factor). */
static fcd_status set_schur_serial(fcd__factor *f, uint64_t key, fcd_index s,
                                   const fcd_index *idx) {
  if (!f->general) return FCD_OK;
  int changed;
  if (fcd__index_set_assign(&f->sidx, &f->s, s, idx, &changed))
    return fcd__err(f->sys, FCD_E_NOMEM, "out of memory for the Schur set");
  if (changed) {
    f->analysed_pattern = 0;
    f->factored = 0;
    f->combo_valid = 0;
  }
  f->schur_key = key;
  return FCD_OK;
}

fcd_status fcd__factor_set_schur_free(fcd__factor *f, uint64_t key, fcd_index s,
                                      const fcd_index *idx) {
  if (!f->ops && !idx)
    return fcd__err(f->sys, FCD_E_NOMEM, "out of memory listing the contact dofs");
  if (!f->ops) return set_schur_serial(f, key, s, idx);
  int changed = 0;
  f->schur_key = 0;
  FCD_TRY(f->ops->set_schur(f->mumps, f->sys, s, idx, &changed));
  if (changed) f->combo_valid = 0;
  f->schur_key = key;
  return FCD_OK;
}
