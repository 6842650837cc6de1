/* The distribution layer (lib/layers.txt): the row partition of a distributed system,
 * its collectives and agreement, the readers' routing, MUMPS' factor over the ranks. */
#ifndef FCD_LIB_DIST_H
#define FCD_LIB_DIST_H

#include "../backend/backends.h"
#include "../system_data.h"

/* ---- distributed systems (dist/distributed.c) ----
 * Matrices hold the rows this rank owns; vectors of ndofs and contact sets are
 * replicated. Every function below is collective on a distributed system and returns at
 * once (no communication) on a serial one. */
int fcd__dist_on(const fcd_system *sys);
void fcd__dist_free(fcd__dist *d);
/* 1 when this rank owns the row (always on a serial system) */
int fcd__dist_owns(const fcd_system *sys, fcd_index row);
void fcd__dist_range(const fcd_system *sys, fcd_index *rbegin, fcd_index *rend);
/* y <- the sum over ranks of y (n entries) */
fcd_status fcd__dist_sum(const fcd_system *sys, fcd_real *y, fcd_index n);
/* the maximum over ranks (NaN when any rank has NaN) */
fcd_real fcd__dist_max(const fcd_system *sys, fcd_real v);
/* 1 when flag is nonzero on any rank */
int fcd__dist_any(const fcd_system *sys, int flag);
/* Turns one rank's failure into every rank's: each rank passes its own status and a hash
 * of the data that must be replicated; returns FCD_OK only when every rank succeeded
 * and the hashes agree (FCD_E_INVALID_ARG, naming the mismatch, otherwise). */
fcd_status fcd__dist_agree(const fcd_system *sys, fcd_status st, uint64_t hash,
                           const char *what);
/* One item of the data every rank must hold alike (replicated): bytes at p, or, when
 * hash is set, what hash(p, h) folds in (a contact set's contacts: model.h's
 * fcd__contact_set_replica). */
typedef struct {
  const void *p;
  size_t bytes;
  uint64_t (*hash)(const void *p, uint64_t h);
} fcd__replica;
#define FCD__REPLICA(ptr, count) {(ptr), (size_t)(count) * sizeof *(ptr), NULL}
#define FCD__REPLICA_BY(ptr, fn) {(ptr), 0, (fn)}
/* The one replica check of an analysis' entry: fcd__dist_agree over this rank's status
 * and the n items' hash (taken only when st is FCD_OK); st at once on a serial system. */
fcd_status fcd__dist_agree_replicas(const fcd_system *sys, fcd_status st, const char *what,
                                    const fcd__replica *items, int n);
/* A matrix file's entries read on rank 0 (the reader) and sent to the ranks that own
 * their rows; on a serial system they simply collect. fcd__route_begin is collective: arg
 * is this rank's verdict on its arguments (its message set), kind the matrix every rank
 * must ask for; every rank fails when one does. The reader then gives each entry (a row
 * of the system, any column) to fcd__route_put and its status to fcd__route_end, which
 * every rank calls: the reader's status (and message) and *flag (the storage the file
 * declares) become every rank's, and each receives its own rows' entries (its to free
 * with fcd__free). */
typedef struct fcd__route fcd__route;
fcd_status fcd__route_begin(const fcd_system *sys, int kind, fcd_status arg, const char *what,
                            fcd__route **out);
int fcd__route_reader(const fcd__route *r);
fcd_status fcd__route_put(fcd__route *r, fcd_index i, fcd_index j, fcd_real v);
fcd_status fcd__route_end(fcd__route *r, fcd_status st, int *flag, fcd_index *nnz,
                          fcd_index **rows, fcd_index **cols, fcd_real **vals);
void fcd__route_free(fcd__route *r);
/* The relative asymmetry of a distributed matrix held as each rank's rows (global
 * numbering): the figure fcd__csr_asymmetry gives on the whole matrix. Collective; NaN
 * on every rank when the exchange fails on any. */
fcd_real fcd__dist_csr_asymmetry(const fcd_system *sys, const fcd__csr *a);
/* FNV-1a of n bytes folded into h (0 starts a hash) */
uint64_t fcd__hash(uint64_t h, const void *p, size_t n);
/* MUMPS Cholesky of the free operator from each rank's owned rows: analyze once per
 * pattern, factor per values, solve replicated right-hand sides (every rank receives
 * the whole solution). */
typedef struct fcd__mumps fcd__mumps;
fcd_status fcd__mumps_create(const fcd_system *sys, fcd__mumps **out);
void fcd__mumps_destroy(const fcd_system *sys, fcd__mumps *m);
fcd_status fcd__mumps_analyze(fcd__mumps *m, const fcd_system *sys, fcd_index n,
                              const fcd_index *rowptr, const fcd_index *col,
                              const fcd_real *val);
fcd_status fcd__mumps_factor(fcd__mumps *m, const fcd_system *sys, const fcd_real *val);
/* LU (unsym = 1) or Cholesky for the next analysis */
void fcd__mumps_set_unsymmetric(fcd__mumps *m, int unsym);
/* whether the ranks' separators join MUMPS' Schur set on several ranks (the default, 1;
 * distributed.c, schur_separators); applies from the next analysis with a Schur set */
void fcd__mumps_set_separators(fcd__mumps *m, int on);
fcd_status fcd__mumps_solve(fcd__mumps *m, const fcd_system *sys, fcd_index nrhs,
                            const fcd_real *b, fcd_real *x);
/* Gives the factor a Schur set: the s sorted free rows idx (the contact dofs) are
 * eliminated last by MUMPS' own instance, which then serves the factorizations and
 * solves; s = 0 returns to PETSc's factor. The next factorization applies a change
 * (*changed: the set differs from the factor's). */
fcd_status fcd__mumps_set_schur(fcd__mumps *m, const fcd_system *sys, fcd_index s,
                                const fcd_index *idx, int *changed);
/* A solve in two halves through the Schur instance (fcd__mumps_halves: it holds the
 * factor of the current values): fcd__mumps_condense gives every rank xs, the solution
 * of A x = b at the Schur set's dofs (in the set's order), and keeps MUMPS' forward
 * elimination; fcd__mumps_expand then gives every rank the whole x of A x = b + E g, g
 * (s values, every rank's the same) added on the set's dofs. Any other solve or
 * factorization in between voids the condensation (FCD_E_INTERNAL). Collective. */
int fcd__mumps_halves(const fcd__mumps *m);
/* the free rows [*lo, *hi) this rank owns (the free numbering keeps the dofs' order) */
void fcd__dist_free_range(const fcd_system *sys, fcd_index *lo, fcd_index *hi);
fcd_status fcd__mumps_condense(fcd__mumps *m, const fcd_system *sys, const fcd_real *b,
                               fcd_real *xs);
fcd_status fcd__mumps_expand(fcd__mumps *m, const fcd_system *sys, const fcd_real *g,
                             fcd_real *x);
/* (A^-1)[idx, idx] for the s sorted free rows idx (the factor's Schur set), each rank
 * given the columns it holds of ScaLAPACK's layout (scalapack.c); collective */
fcd_status fcd__mumps_inverse_cols(fcd__mumps *m, const fcd_system *sys, fcd_index s,
                                   const fcd_index *idx, fcd__inverse_cols *out);

#endif
