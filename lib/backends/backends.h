/* The backends layer (lib/layers.txt): what the files that include a third-party header
 * offer the layers above, in plain types. */
#ifndef FCD_LIB_BACKENDS_H
#define FCD_LIB_BACKENDS_H

#include "sparse.h"

/* ---- backends: the only code that sees third-party headers ---- */
typedef struct fcd__chol fcd__chol;
fcd_status fcd__chol_create(const fcd_system *sys, fcd__chol **out);
fcd_real fcd__chol_rcond(fcd__chol *c);
/* the bytes the numeric factor holds (its values, indices and supernodes); 0 before one */
double fcd__chol_bytes(const fcd__chol *c);
void fcd__chol_destroy(fcd__chol *c);
fcd_status fcd__chol_analyze(fcd__chol *c, const fcd_system *sys, fcd_index n,
                             const fcd_index *rowptr, const fcd_index *col,
                             const fcd_real *val);
/* The pattern arrays of the next factorizations: a caller's same pattern may live in new
 * arrays (the analysis' header would point at freed ones) */
void fcd__chol_bind(fcd__chol *c, const fcd_index *rowptr, const fcd_index *col);
/* On FCD_E_NOT_SPD, *bad_col is the column (caller's numbering) of the failing pivot. */
fcd_status fcd__chol_factor(fcd__chol *c, const fcd_system *sys, const fcd_real *val,
                            fcd_index *bad_col);
/* half solves with A = P' L L' P: forward (backward = 0) z = L^-1 P b, backward
 * x = P' L^-T z; b and x may alias */
fcd_status fcd__chol_half(fcd__chol *c, const fcd_system *sys, int backward, const fcd_real *b,
                          fcd_real *x);
/* the same on nrhs columns (n x nrhs, column-major) */
fcd_status fcd__chol_half_n(fcd__chol *c, const fcd_system *sys, int backward, fcd_index nrhs,
                            const fcd_real *b, fcd_real *x);
/* The forward half z = L^-1 P b on nrhs columns (n x nrhs, column-major; b and x may
 * alias) of a b that is zero off the nrows rows listed (the caller's numbering, repeats
 * allowed): through the supernodes those rows reach alone. *done 0 (nothing made) when
 * the factor is not supernodal. */
fcd_status fcd__chol_forward_reach(fcd__chol *c, const fcd_system *sys, fcd_index nrhs,
                                   fcd_index nrows, const fcd_index *rows, const fcd_real *b,
                                   fcd_real *x, int *done);
/* an upper bound on the entries of L^-1 P B for B's pattern (CSC, the caller's rows); -1
 * out of memory */
double fcd__chol_reach(const fcd__chol *c, fcd_index ncol, const fcd_index *colptr,
                       const fcd_index *row);
fcd_status fcd__chol_forward_sparse(fcd__chol *c, const fcd_system *sys, fcd_index ncol,
                                    const fcd_index *colptr, const fcd_index *row,
                                    const fcd_real *val, fcd_index **ycolptr,
                                    fcd_index **yrow, fcd_real **yval);
fcd_status fcd__chol_solve(fcd__chol *c, const fcd_system *sys, fcd_index nrhs,
                           const fcd_real *b, fcd_real *x);
/* An analysis in METIS' nested-dissection order of the dofs with last[i] == 0, then the s
 * others: the factor's trailing s x s block is then the Cholesky factor of their Schur
 * complement. CHOLMOD's own order when METIS gives none (fcd__chol_ntrail is then 0). */
fcd_status fcd__chol_analyze_last(fcd__chol *c, const fcd_system *sys, fcd_index n,
                                  const fcd_index *rowptr, const fcd_index *col,
                                  const fcd_real *val, const int *last, fcd_index s);
/* s when the analysis ordered s dofs last, else 0 */
fcd_index fcd__chol_ntrail(const fcd__chol *c);
/* Lt (s x s, column-major, lower) = L's trailing block after a factorization, order[k]
 * the dof at its place k; FCD_E_UNSUPPORTED when the factor does not end with s dofs
 * ordered last */
fcd_status fcd__chol_trailing(const fcd__chol *c, const fcd_system *sys, fcd_index s,
                              fcd_real *Lt, fcd_index *order);

typedef struct fcd__lu fcd__lu;
fcd_status fcd__lu_create(const fcd_system *sys, fcd__lu **out);
void fcd__lu_destroy(fcd__lu *l);
fcd_status fcd__lu_analyze(fcd__lu *l, const fcd_system *sys, fcd_index n,
                           const fcd_index *rowptr, const fcd_index *col,
                           const fcd_real *val);
fcd_status fcd__lu_factor(fcd__lu *l, const fcd_system *sys, const fcd_real *val);
fcd_status fcd__lu_solve(fcd__lu *l, const fcd_system *sys, fcd_index nrhs,
                         const fcd_real *b, fcd_real *x);
void fcd__lu_set_refinement(fcd__lu *l, int steps);
/* the dofs the next analysis orders last (idx ascending, free numbering); *changed: the
 * set differs from the last one (the analysis was dropped) */
fcd_status fcd__lu_set_schur(fcd__lu *l, const fcd_system *sys, fcd_index s,
                             const fcd_index *idx, int *changed);
/* out (s x s, column j contiguous) = A^-1 on the set's dofs; FCD_E_UNSUPPORTED when the
 * factor does not end with the set's pivots (the caller then solves) */
fcd_status fcd__lu_inverse_block(fcd__lu *l, const fcd_system *sys, fcd_index s,
                                 const fcd_index *idx, fcd_real *out);
/* CAMD's ordering of a (symmetric) pattern with the indices last[i] != 0 at the end */
fcd_status fcd__camd_order_last(const fcd_system *sys, fcd_index n, const fcd_index *rowptr,
                                const fcd_index *col, const int *last, fcd_index *perm);
/* the same with METIS' nested dissection (through CHOLMOD) of the other dofs; *ordered =
 * 0 (perm untouched) when METIS gives no order */
fcd_status fcd__nd_order_last(const fcd_system *sys, fcd_index n, const fcd_index *rowptr,
                              const fcd_index *col, const int *last, fcd_index *perm,
                              int *ordered);
/* METIS' nested dissection (through CHOLMOD) of the pattern of nnz 1-based triples, the s
 * dofs last[] (1-based) left out of it and numbered after it: pos[i] is dof i's 1-based
 * place (MUMPS' PERM_IN); *ordered = 0 when METIS gives no order (the caller keeps its
 * own). FCD_E_NOMEM. */
fcd_status fcd__metis_order_last(const fcd_system *sys, fcd_index n, size_t nnz,
                                 const int *irn, const int *jcn, fcd_index s,
                                 const int *last, int *pos, int *ordered);

/* sep[0..*nsep): the dofs (1-based) of `levels` levels of METIS' vertex separators of the
 * pattern of nnz 1-based triples with the s dofs last[] (1-based) left out: 2^levels
 * parts that no entry joins. Padded with the separators' neighbours to a multiple of
 * `multiple`; *nsep = 0 when METIS finds none or the padded separators would take every
 * kept dof. sep holds n - s. When *nsep > 0 and parts is not NULL, parts[i] (n of them)
 * is dof i's part, 0 .. 2^levels - 1, or -1 for a separator or last dof. FCD_E_NOMEM. */
fcd_status fcd__metis_separators(const fcd_system *sys, fcd_index n, size_t nnz,
                                 const int *irn, const int *jcn, fcd_index s, const int *last,
                                 int levels, fcd_index multiple, int *sep, fcd_index *nsep,
                                 int *parts);

/* One part's pattern, to be ordered where it is sent: the dofs i with parts[i] == p
 * (back[k], 0-based, for its k-th), upper triangle by columns (colptr n + 1, row nnz;
 * CHOLMOD's long indices, sorted). */
typedef struct {
  fcd_index n, nnz;
  fcd_index *back, *colptr, *row;
} fcd__part_pattern;
fcd_status fcd__metis_part_pattern(const fcd_system *sys, fcd_index n, size_t nnz,
                                   const int *irn, const int *jcn, const int *parts, int p,
                                   fcd__part_pattern *out);
void fcd__part_pattern_free(fcd__part_pattern *pp);
/* perm (pp->n): METIS' nested dissection of the part (perm[k], the part's k-th pivot);
 * *ordered = 0 when METIS gives none. FCD_E_NOMEM. */
fcd_status fcd__metis_part_order(const fcd_system *sys, const fcd__part_pattern *pp,
                                 fcd_index *perm, int *ordered);

typedef struct fcd__klu fcd__klu;
fcd_status fcd__klu_create(const fcd_system *sys, fcd__klu **out);
void fcd__klu_destroy(fcd__klu *k);
fcd_status fcd__klu_analyze(fcd__klu *k, const fcd_system *sys, fcd_index n,
                            const fcd_index *rowptr, const fcd_index *col);
/* refactors with the last pivot order when that stays stable, else factors afresh */
fcd_status fcd__klu_factor(fcd__klu *k, const fcd_system *sys, const fcd_real *val);
/* x = A^-1 b (x may be b), with the iterative refinement steps set (default 1) */
fcd_status fcd__klu_solve(fcd__klu *k, const fcd_system *sys, const fcd_real *b, fcd_real *x);
void fcd__klu_set_refinement(fcd__klu *k, int steps);
/* numeric factorizations that reused the last pivot order */
fcd_index fcd__klu_refactorizations(const fcd__klu *k);

/* The columns of B = (A^-1)[idx, idx] (s x s) that this rank holds: ncols of them, the
 * k-th (at a + k s) being B's column col[k]. lower: only its rows >= col[k] are set (B is
 * symmetric: a Cholesky's inverse). fcd__inverse_cols_clear frees them. */
typedef struct fcd__inverse_cols {
  fcd_real *a;
  fcd_index *col, ncols;
  int lower;
} fcd__inverse_cols;
static inline void fcd__inverse_cols_clear(fcd__inverse_cols *c) {
  fcd__free(c->a);
  fcd__free(c->col);
  c->a = NULL;
  c->col = NULL;
  c->ncols = 0;
  c->lower = 0;
}

/* Up to this many ranks the ranks' separators join MUMPS' Schur set and no front is
 * shared over the ranks: each rank has a subtree of its own. Beyond, the separators of
 * log2(P) levels would make the dense Schur complement grow like their sum (some 11 x
 * n^(2/3) at 64 ranks) and single-rank fronts would leave ranks idle: MUMPS' own mapping
 * (fronts shared by rows) is kept there. */
enum { FCD__SEP_MAX_RANKS = 4 };
/* no front shared by rows over the ranks (MUMPS' KEEP(9); distribution/mumps_factor.c) when nranks <=
 * FCD__SEP_MAX_RANKS: call after MUMPS' initialization (job -1) with its KEEP array */
void fcd__mumps_no_type2(int *keep, int nranks);
/* MUMPS' factorization ran out of the workspace that its analysis estimated and relaxed
 * by ICNTL(14) % (INFOG(1) = -8 integer, -9 real, -17 / -20 send / receive buffers): the
 * estimate misses on small fronts spread over many ranks (a 902-dof model gave -8 on four
 * ranks and -9 on five at MUMPS' default 20 %). Returns 1 after doubling *icntl14 while it
 * stays within FCD__MUMPS_RELAX_MAX, and the caller factors again; 0 otherwise. */
enum { FCD__MUMPS_RELAX_MAX = 1280 };
int fcd__mumps_relax(int *icntl14, int infog1);
/* A failed MUMPS call (INFOG(1) < 0): returns its status (FCD_E_NOMEM for -9 and -13,
 * else FCD_E_BACKEND) and leaves in why what its message adds: the last ICNTL(14) when
 * the workspace was short, else "". */
fcd_status fcd__mumps_failure(int infog1, int icntl14, char *why, size_t len);

/* A host communicator (Fortran handle) outside a distributed system: its rank and size
 * (FCD_COMM_SERIAL: 0 and 1), a broadcast of bytes from root, an elementwise minimum over
 * the ranks in place. Collective; MPI errors are FCD_E_BACKEND. */
fcd_status fcd__comm_rank_size(const fcd_system *sys, int64_t comm_f, int *rank, int *size);
fcd_status fcd__comm_bcast(const fcd_system *sys, int64_t comm_f, void *buf, size_t bytes,
                           int root);
fcd_status fcd__comm_min(const fcd_system *sys, int64_t comm_f, long long *v, int n);
/* the elementwise largest of the ranks' v (n entries, none of them NaN), in place on every
 * rank */
fcd_status fcd__comm_max_reals(const fcd_system *sys, int64_t comm_f, fcd_real *v, int n);

/* ---- the eigen-solves' seam to a host's communicator (mpi.c) ----
 * An analysis given a host's communicator (fcd_stability_set_communicator) keeps one of
 * these, never the communicator's handle: the seam says which part of a shared piece of
 * work is this rank's and gathers the parts' worst figures, and the eigen-solvers (SLEPc)
 * and the farm run on it, as N_Vector owns MPI_Allreduce in SUNDIALS. The zero seam is
 * serial. */
typedef struct {
  int shared;     /* 1: on the host's communicator */
  int64_t comm_f; /* its Fortran handle, read by this layer and the distribution's only */
} fcd__eigseam;
/* the seam on comm_f (FCD_COMM_SERIAL: serial); FCD_E_INVALID_ARG out of range */
fcd_status fcd__eigseam_set(const fcd_system *sys, fcd__eigseam *s, int64_t comm_f);
/* this rank's part of a shared piece of work and the number of parts (0 and 1 serial);
 * collective on the communicator */
fcd_status fcd__eigseam_part(const fcd_system *sys, const fcd__eigseam *s, int *part,
                             int *parts);
/* the elementwise largest of the parts' v (n entries, none NaN), in place; collective */
fcd_status fcd__eigseam_worst(const fcd_system *sys, const fcd__eigseam *s, fcd_real *v,
                              int n);

/* PETSc/SLEPc: initialized lazily under a process-wide lock. */
fcd_status fcd__petsc_acquire(const fcd_system *sys);
void fcd__petsc_release(void);
/* finalizes what fcd initialized of SLEPc and PETSc (registered with fcd__on_finalize) */
void fcd__petsc_finalize(void);
/* Lowest nev eigenpairs of K x = w2 M x (both full-storage free-dof CSR on the same
 * pattern). vecs (n x nev, may be NULL) column-major. */
/* seam: serial (PETSC_COMM_SELF), or the host's communicator: the matrices are
 * replicated on every rank, each contributes its rows; results go to every rank.
 * max_it caps the solver's restarts; *reached receives the error estimate of the first
 * unconverged pair at the last iteration (0 when all nev converged). order (n, may be
 * NULL): on rank 0 of several, the fill-reducing pivot order the shifted LU used
 * (order[k], the k-th pivot's dof), for a factorization of the same pattern to reuse;
 * left untouched where there is none (callers preset order[0] = -1). */
fcd_status fcd__slepc_gen_nonsym(const fcd_system *sys, const fcd__eigseam *seam, fcd_index n,
                                 const fcd__csr *K, const fcd__csr *M, fcd_real sigma,
                                 fcd_index nev, fcd_real tol, fcd_index max_it,
                                 fcd_real *lre, fcd_real *lim, fcd_real *xr, fcd_real *xi,
                                 fcd_index *nconv, fcd_real *reached, fcd_index *order);
fcd_status fcd__slepc_pep(const fcd_system *sys, const fcd__eigseam *seam, fcd_index n,
                          const fcd__csr *K, const fcd__csr *C, const fcd__csr *M,
                          fcd_real sigma, fcd_index nev, fcd_real tol, fcd_index max_it,
                          fcd_real *lre, fcd_real *lim, fcd_real *xr, fcd_real *xi,
                          fcd_index *nconv, fcd_real *reached);
fcd_status fcd__slepc_gen_sym_lowest(const fcd_system *sys, fcd_index n,
                                     const fcd_index *rowptr, const fcd_index *col,
                                     const fcd_real *kval, const fcd_real *mval,
                                     fcd_index nev, fcd_real *w2, fcd_real *vecs,
                                     fcd_index *nconv);
/* the same with the pivot order perm (perm[k], the k-th pivot; a permutation of S's n
 * dofs) instead of CHOLMOD's own search for one: FCD_E_INVALID_ARG when perm is none */
fcd_status fcd__chol_is_pd_ordered(const fcd_system *sys, const fcd__csr *S,
                                   const fcd_index *perm, int *pd);

#endif
