/* The distribution layer (lib/layers.txt): the row partition of a distributed system,
 * its collectives and agreement, the readers' routing, MUMPS' factor over the ranks. */
#ifndef FCD_LIB_DIST_H
#define FCD_LIB_DIST_H

#include "backends.h"
#include "system_data.h"

/* ---- distributed systems (distribution/distributed.c) ----
 * Matrices hold the rows this rank owns; vectors of ndofs and contact sets are
 * replicated. Every function below is collective on a distributed system and returns at
 * once (no communication) on a serial one. */
int fcd__dist_on(const fcd_system *sys);
void fcd__dist_free(fcd__dist *d);
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
/* The rank that owns row (0 on a serial system) */
int fcd__dist_owner(const fcd_system *sys, fcd_index row);
/* Entries (rows[k], cols[k], vals[k]) sent to rank dest[k], k < n; this rank receives the
 * *nin entries sent to it (*irows, *icols, *ivals: its to free with fcd__free; NULL when
 * none). Collective; FCD_E_NOMEM on every rank when one fails. Serially nothing moves (n
 * must be 0). */
fcd_status fcd__dist_send_entries(const fcd_system *sys, fcd_index n, const int *dest,
                                  const fcd_index *rows, const fcd_index *cols,
                                  const fcd_real *vals, fcd_index *nin, fcd_index **irows,
                                  fcd_index **icols, fcd_real **ivals);
/* ---- the components' seam (distribution/components.c) ----
 * A distributed system's rows as components, each rank's its own, for a reduction by
 * components: each rank reduces its component and the reduced operators are summed. A
 * dof's role (role[d], replicated): held at zero for good, interior, or kept. */
enum { FCD__COMP_HELD = 0, FCD__COMP_INTERIOR = 1, FCD__COMP_KEPT = 2 };
/* 1 on a distributed system (a reduction there is by components) */
int fcd__comp_on(const fcd_system *sys);
/* The entries of matrix which (both of an upper-stored one's) that this rank's component
 * takes, in full storage and global numbering (*n of them; the caller's to free): an entry
 * (a, b) goes to the rank whose interior holds a, else the one whose interior holds b,
 * else (both kept) the owner of the lower one's row, so that an entry and its mirror meet;
 * entries at held dofs are dropped. Collective; FCD_E_UNSUPPORTED on every rank, naming
 * the entry on the rank that holds it, when an entry couples two ranks' interiors. */
fcd_status fcd__comp_sort(fcd_system *sys, fcd_matrix_kind which, const unsigned char *role,
                          fcd_index *n, fcd_index **rows, fcd_index **cols, fcd_real **vals);
/* y <- the sum over ranks of y; 1 when flag is set on any rank; one rank's failure made
 * every rank's (its message there, the rank named elsewhere). Collective. */
fcd_status fcd__comp_sum(const fcd_system *sys, fcd_real *y, fcd_index n);
int fcd__comp_any(const fcd_system *sys, int flag);
fcd_status fcd__comp_agree(const fcd_system *sys, fcd_status st, const char *what);
/* bytes at buf from rank 0 to every rank; this rank's number (0 serially). Collective. */
fcd_status fcd__comp_bcast(const fcd_system *sys, void *buf, size_t bytes);
int fcd__comp_rank(const fcd_system *sys);

/* The relative asymmetry of a distributed matrix held as each rank's rows (global
 * numbering): the figure fcd__csr_asymmetry gives on the whole matrix. Collective; NaN
 * on every rank when the exchange fails on any. */
fcd_real fcd__dist_csr_asymmetry(const fcd_system *sys, const fcd__csr *a);

/* ---- the system's rows (distribution/rows.c) ----
 * Where the serial and the distributed system meet: the layout of the rows this rank
 * owns and the products with the matrices that hold them, each giving every rank the
 * whole result. On a serial system they are the plain kernels. Code above this layer
 * uses these and the factor (fcd__free_solver, through factor.c) and makes no collective
 * call itself, but for the one agreement of an analysis' entry (fcd__dist_agree,
 * fcd__dist_agree_replicas; tests/hardening/layers.py counts them). The products are
 * collective on a distributed system; a failed exchange is FCD_E_BACKEND, or NaN. */
/* the rows [*rbegin, *rend) this rank owns ([0, ndofs) serially) */
void fcd__rows_range(const fcd_system *sys, fcd_index *rbegin, fcd_index *rend);
/* the free rows [*lo, *hi) this rank owns (the free numbering keeps the dofs' order;
 * [0, nfree) serially) */
void fcd__rows_free_range(const fcd_system *sys, fcd_index *lo, fcd_index *hi);
/* FCD_E_INVALID_ARG naming the first of nnz entries (rows, cols) on a row this rank does
 * not own (never on a serial system) */
fcd_status fcd__rows_check_owned(const fcd_system *sys, const char *name, fcd_index nnz,
                                 const fcd_index *rows, const fcd_index *cols);
/* A host's CSR of the rows this rank owns (rend - rbegin + 1 row pointers, global
 * columns, each row's strictly increasing) checked, and its entries' rows (*rows, *nnz
 * of them, the caller's to free) for fcd_system_set_matrix_coo */
fcd_status fcd__rows_owned_csr(const fcd_system *sys, const char *name,
                               const fcd_index *row_ptr, const fcd_index *col_idx,
                               const fcd_real *vals, fcd_index *nnz, fcd_index **rows);
/* y = A x (the damping operator with its Rayleigh terms), whole on every rank */
fcd_status fcd__rows_apply(const fcd_system *sys, fcd_matrix_kind which, const fcd_real *x,
                           fcd_real *y);
/* A u and A v of the stored matrix which in one pass over it (bitwise two products) */
fcd_status fcd__rows_apply2(const fcd_system *sys, fcd_matrix_kind which, const fcd_real *u,
                            fcd_real *au, const fcd_real *v, fcd_real *av);
/* A u, A v, |A| |u| and |A| |v| of the stored matrix which in one pass over it (the first
 * two bitwise fcd__rows_apply2's) */
fcd_status fcd__rows_apply2_abs(const fcd_system *sys, fcd_matrix_kind which,
                                const fcd_real *u, fcd_real *au, const fcd_real *v,
                                fcd_real *av, fcd_real *abs_u, fcd_real *abs_v);
/* y = |A| x (entrywise absolute values of the stored matrix which), whole */
fcd_status fcd__rows_abs_apply(const fcd_system *sys, fcd_matrix_kind which,
                               const fcd_real *x, fcd_real *y);
/* the sum over k < nterms of |x_k|^T |A_k| |x_k| (fcd__csr_abs_form); NaN when the
 * exchange fails */
fcd_real fcd__rows_abs_form(const fcd_system *sys, int nterms, const fcd_matrix_kind *which,
                            const fcd_real *const *x);
/* the largest |a_ii| of the stored matrix which over the free dofs (0 when none); NaN
 * when the exchange fails */
fcd_real fcd__rows_free_diag_max(const fcd_system *sys, fcd_matrix_kind which);
/* dg (fp->n) = the diagonal of the matrix of values vals on the free pattern fp */
fcd_status fcd__rows_pattern_diag(const fcd_system *sys, const fcd__free_pattern *fp,
                                  const fcd_real *vals, fcd_real *dg);
/* the three matrices' relative asymmetries (sys->asym) measured again when the values
 * moved since (on any rank) */
void fcd__rows_asymmetry_refresh(fcd_system *sys);

/* ---- work shared out over a host's communicator (distribution/farm.c) ----
 * n items in contiguous blocks over comm's ranks, each rank computing its own (solve);
 * then, item by item in order, the rank that computed it packs its result and every
 * rank visits it (the stability sweep: tracking and the host's callback), so that every
 * rank sees what a serial run sees. An item that fails ends the farm at it on every rank,
 * with its status and message, after the visits of the items before it; a visit whose
 * *rc is nonzero on any rank ends it on all (FCD_E_CALLBACK). */
typedef struct {
  void *ctx;
  const char *what;  /* "sweep": the messages' noun */
  const char *label; /* "mu": what names an item in the messages */
  fcd_real (*value)(void *ctx, fcd_index k); /* item k's label value */
  /* item k computed on this rank, its result kept in ctx */
  fcd_status (*solve)(void *ctx, fcd_index k);
  /* item k's result as *bytes bytes at *buf (the farm frees it with fcd__free), on the
   * rank that computed it, which may then drop its own copy */
  fcd_status (*pack)(void *ctx, fcd_index k, void **buf, size_t *bytes);
  /* item k's result from its bytes, on every rank in turn */
  fcd_status (*visit)(void *ctx, fcd_index k, const void *buf, size_t bytes, int *rc);
} fcd__farm;
/* The entry of work that may be shared out: agrees args (this rank's verdict on its
 * arguments) and n over the seam's communicator (none for a serial seam), then, when
 * it has several ranks, n > 1 and share is set, runs the farm (*ran = 1). Otherwise
 * returns the agreed verdict and the caller runs its serial loop (*ran = 0). Collective
 * on comm. */
fcd_status fcd__farm_run(const fcd_system *sys, const fcd__eigseam *seam, fcd_status args,
                         fcd_index n, int share, const fcd__farm *f, int *ran);

/* ---- the free operator's factor over the ranks (distribution/mumps_factor.c) ----
 * The distributed side of the factor of the free operator (factor.c, algebra.h's
 * fcd__factor_*_free), as a table of operations in SUNDIALS' SUNLinSol shape: factor.c
 * asks once, when it creates the factor, which table serves the system and then calls
 * through it, so that nothing above this layer decides "serial or distributed" or makes
 * a collective call for a factor. MUMPS on each rank's owned rows: analysed once per
 * pattern, factored per values, replicated right-hand sides (every rank receives the
 * whole solution). Every operation is collective, and every decision that leads to a
 * collective (analyse, refactor) is agreed by the ranks inside. */
typedef struct fcd__mumps fcd__mumps;
typedef struct {
  fcd_status (*create)(const fcd_system *sys, fcd__mumps **out);
  void (*destroy)(const fcd_system *sys, fcd__mumps *m);
  /* Factors the n x n operator of which this rank gives its owned free rows (the rest
   * empty), analysing it first when any rank's reanalyse is set (*analysed: 1 done, -1
   * tried and failed, 0 not needed). An SPD operator whose diagonal entry is not > 0
   * somewhere is refused before MUMPS sees it: *bad, the first such row over the ranks,
   * and *bad_diag its entry (FCD_OK, nothing factored; the caller words the error); *bad
   * is -1 otherwise. An LU's zero rows are left to MUMPS (a rank's rows lack the mirrors
   * of other ranks' upper-stored entries until MUMPS gathers them). */
  fcd_status (*factor)(fcd__mumps *m, const fcd_system *sys, fcd_index n,
                       const fcd_index *rowptr, const fcd_index *col, const fcd_real *val,
                       int spd, int reanalyse, int *analysed, fcd_index *bad,
                       fcd_real *bad_diag);
  /* 1 on every rank when stale is set on any: whether the ranks refactor */
  int (*stale)(const fcd_system *sys, int stale);
  /* LU (unsym = 1) or Cholesky from the next analysis */
  void (*set_unsymmetric)(fcd__mumps *m, int unsym);
  /* whether the ranks' separators join MUMPS' Schur set on several ranks (the default,
   * 1; schur_separators); applies from the next analysis with a Schur set */
  void (*set_separators)(fcd__mumps *m, int on);
  fcd_status (*solve)(fcd__mumps *m, const fcd_system *sys, fcd_index nrhs,
                      const fcd_real *b, fcd_real *x);
  /* Gives the factor a Schur set: the s sorted free rows idx (the contact dofs) are
   * eliminated last by MUMPS' own instance, which then serves the factorizations and
   * solves; s = 0 returns to PETSc's factor. The next factorization applies a change
   * (*changed: the set differs from the factor's). A NULL idx is this rank's failure to
   * list the set: FCD_E_NOMEM on every rank. */
  fcd_status (*set_schur)(fcd__mumps *m, const fcd_system *sys, fcd_index s,
                          const fcd_index *idx, int *changed);
  /* A solve in two halves through the Schur instance (halves: it holds the factor of the
   * current values): condense gives every rank xs, the solution of A x = b at the Schur
   * set's dofs (in the set's order), and keeps MUMPS' forward elimination; expand then
   * gives every rank the whole x of A x = b + E g, g (s values, every rank's the same)
   * added on the set's dofs. Any other solve or factorization in between voids the
   * condensation (FCD_E_INTERNAL). */
  int (*halves)(const fcd__mumps *m);
  fcd_status (*condense)(fcd__mumps *m, const fcd_system *sys, const fcd_real *b,
                         fcd_real *xs);
  fcd_status (*expand)(fcd__mumps *m, const fcd_system *sys, const fcd_real *g,
                       fcd_real *x);
  /* (A^-1)[idx, idx] for the s sorted free rows idx (the factor's Schur set), each rank
   * given the columns it holds of ScaLAPACK's layout (scalapack.c) */
  fcd_status (*inverse_cols)(fcd__mumps *m, const fcd_system *sys, fcd_index s,
                             const fcd_index *idx, fcd__inverse_cols *out);
  /* W (H->n x H->n, row-major, on every rank) = H A^-1 H^T from inverse_cols' columns,
   * idx the s sorted free dofs H touches and pos[free dof] their places; a NULL idx or
   * pos is this rank's failure to list them (FCD_E_NOMEM on every rank) */
  fcd_status (*delassus)(fcd__mumps *m, const fcd_system *sys, const fcd__csr *H,
                         fcd_index s, const fcd_index *idx, const fcd_index *pos,
                         fcd_real *W);
} fcd__free_solver;
/* the operations of the free operator's factor on a distributed system; NULL on a serial
 * one, whose factor is factor.c's own (CHOLMOD, UMFPACK) */
const fcd__free_solver *fcd__dist_free_solver(const fcd_system *sys);

#endif
