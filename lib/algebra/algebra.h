/* The algebra layer (lib/layers.txt): the free-dof operators and the factorizations with
 * explicit reuse, serial or distributed. */
#ifndef FCD_LIB_ALGEBRA_H
#define FCD_LIB_ALGEBRA_H

#include "system.h"

/* ---- free-dof operators (operators.c) ---- */
/* Brings sys->fp up to date with the current pattern_version. */
fcd_status fcd__system_free_pattern(fcd_system *sys, const fcd__free_pattern **fp);
/* val (fp->nnz entries) = a M + b C_full + c K on the free dofs, with C_full =
 * C + alpha M + beta K the full damping operator. */
fcd_status fcd__system_combination(fcd_system *sys, fcd_real a, fcd_real b, fcd_real c,
                                   fcd_real *val);
/* The same for eigen-analyses: a reduced model's damping without the part its reduction
 * gave the dynamics above its band (fcd__system_set_band), which they report against
 * the band instead. */
fcd_status fcd__system_combination_eig(fcd_system *sys, fcd_real a, fcd_real b, fcd_real c,
                                       fcd_real *val);
/* y = A x on free dofs for a free-pattern matrix with values val */
void fcd__free_matvec(const fcd__free_pattern *fp, const fcd_real *val,
                      const fcd_real *x, fcd_real *y);

/* ---- factorizations (factor.c over backend/) ---- */
/* SPD: CHOLMOD; LU: UMFPACK (large operators); KLU: KLU (the contact solvers'
 * Jacobians, small and refactored often, the pivot order reused while it stays stable) */
typedef enum { FCD__FACTOR_SPD = 0, FCD__FACTOR_LU = 1, FCD__FACTOR_KLU = 2 } fcd__factor_kind;
typedef struct fcd__factor fcd__factor;
typedef struct {
  fcd_index analyses;       /* symbolic analyses done */
  fcd_index factorizations; /* numeric factorizations done */
  fcd_index refactorizations; /* of those, KLU's that reused the last pivot order */
  fcd_index solves;         /* right-hand sides solved */
} fcd__factor_stats;

fcd_status fcd__factor_create(fcd_system *sys, fcd__factor_kind kind, fcd__factor **out);
void fcd__factor_destroy(fcd__factor *f);
/* Factors a M + b C + c K on the free dofs. Re-analyses only when the system's pattern
 * version moved since the last analysis; refactors only when values or coefficients
 * changed since the last factorization. */
fcd_status fcd__factor_combination(fcd__factor *f, fcd_real a, fcd_real b, fcd_real c);
/* After FCD_E_NOT_SPD: the failing column, in the global dof numbering for
 * combinations and in the caller's numbering for fcd__factor_csr; -1 otherwise. */
fcd_index fcd__factor_bad_column(const fcd__factor *f);
/* 1 and *d the diagonal entry when the failure was a diagonal entry <= 0 at the bad
 * column, which no backend saw (a free dof no stiffness or mass reaches when it is 0) */
int fcd__factor_bad_diagonal(const fcd__factor *f, fcd_real *d);
/* Factors an arbitrary CSR matrix (full storage). pattern_id identifies its pattern: a
 * caller passing the same nonzero id promises the same pattern, so the symbolic
 * analysis is reused; 0 forces a new analysis. */
fcd_status fcd__factor_csr(fcd__factor *f, fcd_index n, const fcd_index *rowptr,
                           const fcd_index *col, const fcd_real *val, uint64_t pattern_id);
/* x = A^{-1} b for nrhs column-major right-hand sides of size n; b and x may alias. */
fcd_status fcd__factor_solve(fcd__factor *f, fcd_index nrhs, const fcd_real *b,
                             fcd_real *x);
fcd_index fcd__factor_size(const fcd__factor *f);
/* Frees the combination's values the last factorization was made from (solves do not
 * read them; a new combination forms them again) */
void fcd__factor_release_values(fcd__factor *f);
/* the bytes a serial Cholesky factor holds (0 for the other kinds: not counted) */
double fcd__factor_bytes(const fcd__factor *f);
fcd__factor_stats fcd__factor_get_stats(const fcd__factor *f);
/* the numeric factorizations done: what a cache of the factor's products is keyed on */
fcd_index fcd__factor_count(const fcd__factor *f);
/* SPD factors only (FCD_E_UNSUPPORTED otherwise): the halves of a solve, in the free
 * numbering of fcd__factor_solve. z = L^-1 P b (backward = 0) or x = P' L^-T z. */
fcd_status fcd__factor_half(fcd__factor *f, int backward, const fcd_real *b, fcd_real *x);
/* the same on nrhs columns (n x nrhs, column-major; b and x may alias) */
fcd_status fcd__factor_half_n(fcd__factor *f, int backward, fcd_index nrhs, const fcd_real *b,
                              fcd_real *x);
/* fcd__factor_half_n's forward half for a b that is zero off the nrows rows listed (the
 * free numbering, repeats allowed): on a supernodal factor through the supernodes they
 * reach alone, else a whole forward half */
fcd_status fcd__factor_forward_reach(fcd__factor *f, fcd_index nrhs, fcd_index nrows,
                                     const fcd_index *rows, const fcd_real *b, fcd_real *x);
/* SPD factors: an upper bound on the entries of L^-1 P B for B's pattern (CSC, n rows in
 * the free numbering): the factor's columns a forward solve reaches. -1 out of memory or
 * without a Cholesky factor. */
double fcd__factor_reach(const fcd__factor *f, fcd_index ncol, const fcd_index *colptr,
                         const fcd_index *row);
/* SPD factors only: Y = L^-1 P B for sparse B given by its columns (CSC, n rows); Y's
 * CSC arrays are allocated with fcd__malloc. */
fcd_status fcd__factor_forward_sparse(fcd__factor *f, fcd_index ncol, const fcd_index *colptr,
                                      const fcd_index *row, const fcd_real *val,
                                      fcd_index **ycolptr, fcd_index **yrow, fcd_real **yval);
fcd__factor_kind fcd__factor_get_kind(const fcd__factor *f);
/* LU factors only (a no-op on SPD ones): the iterative refinement steps of each solve,
 * UMFPACK's default 2, KLU's 1, until set. A Newton direction needs no refinement. */
void fcd__factor_set_refinement(fcd__factor *f, int steps);
/* SPD factors: CHOLMOD's reciprocal condition estimate; LU: 1 */
fcd_real fcd__factor_rcond(const fcd__factor *f);
/* A Cholesky factor of the system's free operator (a combination, or a matrix on the
 * free pattern), distributed (MUMPS) when the system is, each rank giving its share;
 * serial otherwise, the functions above then. Used through these five only. */
fcd_status fcd__factor_create_free(fcd_system *sys, fcd__factor **out);
void fcd__factor_destroy_free(fcd__factor *f);
fcd_status fcd__factor_csr_free(fcd__factor *f, fcd_index n, const fcd_index *rowptr,
                                const fcd_index *col, const fcd_real *val, uint64_t pattern_id);
fcd_status fcd__factor_combination_free(fcd__factor *f, fcd_real a, fcd_real b, fcd_real c);
fcd_status fcd__factor_solve_free(fcd__factor *f, fcd_index nrhs, const fcd_real *b,
                                  fcd_real *x);
/* B's columns for the distributed factor (fcd__free_solver's inverse_cols: spread over the
 * ranks) or a serial LU ordered with idx last (all of them); FCD_E_UNSUPPORTED on another
 * serial factor, whose callers solve columns instead */
fcd_status fcd__factor_inverse_cols_free(fcd__factor *f, fcd_index s, const fcd_index *idx,
                                         fcd__inverse_cols *out);
/* 1 when the factor is spread over the ranks (a distributed system's): its Delassus
 * operator then comes from fcd__factor_delassus_free */
int fcd__factor_spread(const fcd__factor *f);
/* W (H->n x H->n, row-major) = H A^-1 H^T from the columns of (A^-1)[idx, idx] each rank
 * holds (dist.h, fcd__free_solver's delassus), the s sorted free dofs idx being those H
 * touches and pos their places (fcd__contact_free_dofs); a NULL idx or pos is this
 * rank's failure to list them (every rank then fails: FCD_E_NOMEM). Collective. */
fcd_status fcd__factor_delassus_free(fcd__factor *f, const fcd__csr *H, fcd_index s,
                                     const fcd_index *idx, const fcd_index *pos, fcd_real *W);
/* condense / expand (dist.h, fcd__free_solver) on the distributed factor, whose Schur set
 * the caller set (fcd__factor_set_schur_free) before factoring; fcd__factor_halves_free
 * tells whether it can (a distributed factor of the current values with a Schur set) */
int fcd__factor_halves_free(const fcd__factor *f);
fcd_status fcd__factor_condense_free(fcd__factor *f, const fcd_real *b, fcd_real *xs);
fcd_status fcd__factor_expand_free(fcd__factor *f, const fcd_real *g, fcd_real *x);
/* set_schur (dist.h, fcd__free_solver) for the distributed factor (the next factorization is a new one
 * when the set changes), remembering key, what the set was derived from; nothing for a
 * serial one. fcd__factor_schur_current: the set was derived from key. */
fcd_status fcd__factor_set_schur_free(fcd__factor *f, uint64_t key, fcd_index s,
                                      const fcd_index *idx);
int fcd__factor_schur_current(const fcd__factor *f, uint64_t key);
/* set_separators (dist.h, fcd__free_solver) for a distributed factor; nothing for a serial one */
void fcd__factor_set_separators(fcd__factor *f, int on);
/* Gives fac the free dofs of cs's contacts as its Schur set: its next analysis orders
 * them last, and the Delassus operator then comes from the factor's trailing block (the
 * Schur complement's factor) instead of one solve per contact direction: MUMPS' Schur
 * complement on a distributed system (distribution/mumps_factor.c), UMFPACK's or CHOLMOD's trailing
 * block on a serial one. */
fcd_status fcd__factor_schur_on_contacts(fcd_system *sys, fcd__factor *fac,
                                         fcd_contact_set *cs);
/* the solve a Delassus builder uses: fcd__factor_solve or fcd__factor_solve_free */
typedef fcd_status (*fcd__solve_fn)(fcd__factor *f, fcd_index nrhs, const fcd_real *b,
                                    fcd_real *x);
/* *pd = 1 when the symmetric matrix S (full storage) is positive definite (CHOLMOD) */
fcd_status fcd__chol_is_pd(fcd_system *sys, const fcd__csr *S, int *pd);

#endif
