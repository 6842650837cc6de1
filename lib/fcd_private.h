/* Internal declarations shared by lib/ (never installed). Internal names use the
 * fcd__ prefix; nothing here is exported. */
#ifndef FCD_PRIVATE_H
#define FCD_PRIVATE_H

#include "fcd/fcd.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#define FCD_SYSTEM_MAGIC 0x66636473u /* "fcds": catches use of a foreign or freed pointer */
#define FCD_ERRMSG_CAP 1024

/* sqrt(a^2 + b^2) without hypot's cost (a library call, a fifth of a 3D local contact
 * solve) where the squares neither overflow nor underflow, which the test below
 * establishes; hypot otherwise (huge, tiny, infinite or NaN entries). */
static inline fcd_real fcd__hypot(fcd_real a, fcd_real b) {
  fcd_real s = a * a + b * b;
  return s < DBL_MAX && s > DBL_MIN ? sqrt(s) : hypot(a, b);
}

/* The larger of a and b, NaN when either is: a certificate must fail on a NaN, which
 * fmax drops (and fmax is a library call, a tenth of a solve of a few contacts). */
static inline fcd_real fcd__maxn(fcd_real a, fcd_real b) {
  return a > b || a != a ? a : b;
}
static inline fcd_real fcd__minn(fcd_real a, fcd_real b) {
  return a < b || a != a ? a : b;
}

/* The norm of the tangential part x[1 .. d-1] of a local contact vector (N first), and
 * of a vector of the tangent plane t[0 .. d-2]: the one place for "fabs in 2D, hypot in
 * 3D". */
static inline fcd_real fcd__tnorm(int d, const fcd_real *x) {
  return d == 2 ? fabs(x[1]) : fcd__hypot(x[1], x[2]);
}
static inline fcd_real fcd__tpnorm(int d, const fcd_real *t) {
  return d == 2 ? fabs(t[0]) : fcd__hypot(t[0], t[1]);
}
/* what fcd_system_create allocates and fills per dof (is_fixed, fixed_value, free_of,
 * dof_of, fixed_list, scratch, contact_uses) */
#define FCD__BYTES_PER_DOF (1 + 6 * 8)

/* A sparse matrix in compressed rows with strictly increasing columns per row. With
 * upper != 0 only row <= col is stored and the matrix is symmetric. The arrays are
 * owned unless borrowed (then they belong to the host). */
typedef struct {
  fcd_index n;
  fcd_index *rowptr;
  fcd_index *col;
  fcd_real *val;
  int upper;
  int owned;
  int set;
} fcd__csr;

/* The free-dof operator pattern: the union of the patterns of M, C and K restricted to
 * the free dofs, in full (both triangles) storage. Every combination a M + b C + c K
 * lives on it, so one symbolic factorization serves them all. map[k][p] is where entry
 * p of matrix k lands (-1: it touches a prescribed dof); mapt[k][p] is where its mirror
 * lands for symmetric storage (-1 on the diagonal or for full storage). */
typedef struct {
  uint64_t version; /* the system pattern_version it was built for; 0: never built */
  fcd_index n;
  fcd_index nnz;
  fcd_index *rowptr;
  fcd_index *col;
  fcd_index *map[3];
  fcd_index *mapt[3];
} fcd__free_pattern;

typedef struct fcd__dist fcd__dist;

struct fcd_system {
  uint32_t magic;
  fcd__dist *dist; /* NULL: serial; else the partition of the rows (dist/distributed.c) */
  fcd_index n;
  fcd__csr mat[3]; /* indexed by fcd_matrix_kind */
  fcd_real ray_alpha, ray_beta;
  /* prescribed dofs: is_fixed[i], their values, and the free numbering */
  unsigned char *is_fixed;
  fcd_real *fixed_value;
  fcd_index nfixed;
  fcd_index *free_of; /* global dof -> free index, or -1 */
  fcd_index *dof_of;  /* free index -> global dof */
  fcd_index *fixed_list; /* the prescribed dofs, increasing (nfixed entries) */
  fcd_real *scratch;     /* ndofs work entries for calls that need no allocation */
  /* how many live contacts use each dof: a prescribed dof cannot carry a contact, and
   * a dof that carries one cannot be prescribed later */
  fcd_index *contact_uses;
  fcd_index nfree;
  fcd_real *load; /* NULL: no constant load */
  fcd_load_fn load_fn;
  void *load_ud;
  fcd_prescribed_fn presc_fn;
  void *presc_ud;
  /* Bumped whenever the free-dof pattern may change (a matrix replaced, the prescribed
   * set changed); factorizations re-analyse only when it moves. */
  uint64_t pattern_version;
  /* Bumped whenever any operator value changes (matrices, Rayleigh coefficients). */
  uint64_t value_version;
  /* the matrices' relative asymmetries, measured at value_version asym_at - 1 (0:
   * never): every Cholesky factorization of a M + b C + c K checks them */
  fcd_real asym[3];
  uint64_t asym_at;
  fcd__free_pattern fp;
  /* Objects created from this system hold it: destroying the system while they live
   * only marks it (zombie); the last of them frees it. */
  fcd_index children;
  int zombie;
  char err[FCD_ERRMSG_CAP];
};

/* Above this relative asymmetry a full-storage matrix is not symmetric: CHOLMOD and the
 * symmetric eigen-solver read one triangle only. Data written with 7 significant digits
 * sit below it (the LMGC90 global problems of tests/data/fclib: M at 1.5e-7, solved and
 * certified from one triangle); a non-symmetric operator (follower loads, gyroscopic
 * couplings) is asymmetric at order one. (Modal checks used 1e-10 before.) */
#define FCD__ASYM_TOL 1e-6
/* The relative asymmetry of matrix which (0 in symmetric storage or when not set),
 * measured once per value version. Serial systems only (a distributed system's rows
 * are spread over the ranks): 0 there. */
fcd_real fcd__system_asymmetry(fcd_system *sys, fcd_matrix_kind which);
/* FCD_E_INVALID_ARG naming the matrix when a M + b C + c K (C the full damping
 * operator) involves a non-symmetric one. Collective on a distributed system (the
 * distributed factor's path), the same figures on every rank. */
fcd_status fcd__system_require_symmetric(fcd_system *sys, fcd_real a, fcd_real b, fcd_real c);
/* *nonsym = 1 when C or K, with a non-zero coefficient in a M + b C + c K, is not
 * symmetric (the operator then needs an LU); a non-symmetric M is FCD_E_INVALID_ARG.
 * Collective on a distributed system. */
fcd_status fcd__system_combination_symmetry(fcd_system *sys, fcd_real a, fcd_real b,
                                            fcd_real c, int *nonsym);
/* 1 when K is not symmetric: its skew part is a circulatory (non-conservative) force
 * whose work the energy ledgers book as external work. Collective when distributed. */
int fcd__system_circulatory(fcd_system *sys);

void fcd__system_retain(fcd_system *sys);
void fcd__system_release(fcd_system *sys);

/* ---- contact sets (contact_set.c) ---- */
#define FCD_CONTACT_SET_MAGIC 0x66636373u /* "fccs" */
typedef struct {
  int pair;
  /* a contact given by rows (fcd_contact_set_add_rows): its dim rows are entries
   * rptr[row0 + k] .. rptr[row0 + k + 1] of the set's rdof and rw; no dofs_a, no frame */
  int rows;
  fcd_index row0;
  fcd_index dofs_a[3], dofs_b[3];
  fcd_real frame[3][3]; /* rows N, T(, B), orthonormal */
  fcd_real gap, mu;
  fcd_real vg[2];
} fcd__contact;

struct fcd_contact_set {
  uint32_t magic;
  fcd_system *sys;
  int dim;
  fcd_index n, cap;
  fcd__contact *c;
  fcd_real restitution;
  uint64_t version; /* bumped when contacts are added (the H pattern changes) */
  fcd__csr H;       /* cached contact operator, built for version H_version */
  /* the rows of row contacts: nrow rows (dim per such contact), entries in rdof, rw */
  fcd_index *rptr, *rdof;
  fcd_real *rw;
  fcd_index nrow, rcap, ecap;
  uint64_t H_version;
  /* integrators hold the set: destroying it while they live only marks it */
  fcd_index children;
  int zombie;
  /* the node coordinates of the first surface pair's mesh (mechanism.h), or NULL */
  struct fcd__geometry *geo;
  /* contacts by the pattern of their normal row (contact_set.c: a contact whose normal
   * row repeats another's is refused): hkey/hnext per contact, htab heads (index + 1),
   * hcount contacts indexed (more than n after a truncation: rebuilt) */
  uint64_t *hkey;
  fcd_index *hnext, *htab, hcap, hcount;
};
void fcd__contact_set_release(fcd_contact_set *cs);
/* a mesh's geometry (vtk.c), read by the surface pairing (surface.c); 0 for an invalid
 * mesh */
int fcd__mesh_geometry(const fcd_mesh *m, const fcd_system **sys, int *dim, fcd_index *nnodes,
                       const fcd_real **coords, const fcd_index **node_dofs);
/* its cells: the nodes of cell c are conn[offset[c] .. offset[c + 1]); 0 for an invalid
 * mesh */
int fcd__mesh_cells(const fcd_mesh *m, fcd_index *ncells, const fcd_index **offset,
                    const fcd_index **conn);
/* 3D surface pairs (surface3d.c): facets of four node ids, -1 fourth for a triangle;
 * the caller validated the set and the mesh and truncates the set on failure */
fcd_status fcd__surface_pair_3d(fcd_contact_set *cs, fcd_index nnodes, const fcd_real *x,
                                const fcd_index *dof, fcd_index nslave, const fcd_index *slave,
                                fcd_index nmaster, const fcd_index *master, int method,
                                fcd_real mu, fcd_index *first, fcd_index *inactive);
/* takes back the contacts from index n0 on (a batch that failed part way) */
void fcd__contact_set_truncate(fcd_contact_set *cs, fcd_index n0);
/* 1 when some contact of the set is given by rows (fcd_contact_set_add_rows) */
int fcd__contact_set_has_rows(const fcd_contact_set *cs);
/* a field read, inline: the mesh writer checks a set without calling up into it */
static inline int fcd__contact_set_valid(const fcd_contact_set *cs) {
  return cs != NULL && cs->magic == FCD_CONTACT_SET_MAGIC;
}
/* H (dim*n x ndofs) in CSR: row c*dim + k holds frame row k on the dofs of contact c
 * (minus on body B). The only place that builds the contact operator. */
fcd_status fcd__contact_set_H(const fcd_contact_set *cs, fcd__csr *h);
/* The cached H of the current contacts (rebuilt when contacts were added). */
fcd_status fcd__contact_set_operator(fcd_contact_set *cs, const fcd__csr **h);

/* ---- errors ---- */
#if defined(__GNUC__)
#define FCD__PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define FCD__PRINTF(a, b)
#endif
/* Records a message on sys (may be NULL) and returns st. The message buffer is part of
 * the handle's mutable error state, so const handles may record too. */
fcd_status fcd__err(const fcd_system *sys, fcd_status st, const char *fmt, ...)
    FCD__PRINTF(3, 4);
fcd_status fcd__verr(const fcd_system *sys, fcd_status st, const char *fmt, va_list ap)
    FCD__PRINTF(3, 0);
/* The one message channel, of which fcd__err is the common case: the message goes to the
 * system (when valid) and to buf (when given: a caller's errbuf where no handle exists
 * yet, or a handle's own buffer such as a lattice's); returns st. */
fcd_status fcd__err_to(const fcd_system *sys, char *buf, size_t cap, fcd_status st,
                       const char *fmt, ...) FCD__PRINTF(5, 6);
fcd_status fcd__verr_to(const fcd_system *sys, char *buf, size_t cap, fcd_status st,
                        const char *fmt, va_list ap) FCD__PRINTF(5, 0);
/* fcd_finalize calls fn (newest first): a backend registers the teardown of the
 * process-wide state it started, so that core calls no backend. 0 when the table is full. */
int fcd__on_finalize(void (*fn)(void));
int fcd__system_valid(const fcd_system *sys);

/* 1 when a parameter given as a real is a whole number in [lo, hi] (counts, caps) */
static inline int fcd__is_whole(fcd_real v, fcd_real lo, fcd_real hi) {
  return isfinite(v) && v >= lo && v <= hi && v == floor(v);
}

#define FCD_CHECK_SYS(sys)                                                             \
  do {                                                                                 \
    if (!fcd__system_valid(sys)) return FCD_E_INVALID_ARG;                             \
  } while (0)
#define FCD_TRY(expr)                                                                  \
  do {                                                                                 \
    fcd_status fcd__st_ = (expr);                                                      \
    if (fcd__st_ != FCD_OK) return fcd__st_;                                           \
  } while (0)

/* ---- bounded text input (textio.c) ---- */
/* The longest line any reader accepts: 16 MiB, some 700,000 numbers (a state vector on
 * one line), and the most a stream without newlines can cost. */
#define FCD__LINE_MAX (16 << 20)
/* The most a whole-file reader takes from a stream that is not a regular file (a pipe,
 * a device): 1 GiB. A regular file is bounded by its size. */
#define FCD__STREAM_MAX ((size_t)1 << 30)
typedef struct {
  FILE *fp;
  const char *path;
  char *line; /* the current line, NUL-terminated, without its newline or CR */
  size_t cap;
  long lineno;
} fcd__lines;
/* fopen(path, "rb") refusing a directory; both failures FCD_E_IO naming the path (errbuf
 * gets the message too when not NULL: callers without a system) */
fcd_status fcd__open_input(const fcd_system *sys, const char *path, FILE **out, char *errbuf,
                           size_t errcap);
void fcd__lines_init(fcd__lines *r, FILE *fp, const char *path);
void fcd__lines_free(fcd__lines *r);
/* 1: a line; 0: end of file; -1: *st set with a message (line longer than FCD__LINE_MAX,
 * a NUL byte, a read error, out of memory) */
int fcd__lines_next(fcd__lines *r, const fcd_system *sys, char *errbuf, size_t errcap,
                    fcd_status *st);

/* ---- memory: every allocation of fcd's own goes through these ---- */
void *fcd__malloc(size_t size);
void *fcd__calloc(size_t n, size_t size);
void fcd__free(void *p);
/* n * size with overflow check; NULL on overflow or failure */
void *fcd__malloc_array(size_t n, size_t size);
/* *set (*ns entries) becomes a copy of idx (n entries) unless equal already; *changed
 * says which. 1 when out of memory (*set untouched). */
int fcd__index_set_assign(fcd_index **set, fcd_index *ns, fcd_index n, const fcd_index *idx,
                          int *changed);
/* A new block of new_n entries holding the first min(old_n, new_n) of p, which is freed;
 * NULL (and p untouched) on failure. */
void *fcd__grow_array(void *p, size_t old_n, size_t new_n, size_t size);
/* fcd blocks currently allocated (tests) */
long long fcd__live_blocks(void);

/* ---- sparse kernels (sparse.c) ---- */
/* Builds CSR (rows sorted, duplicates summed) from triplets already validated.
 * pos_out (may be NULL) receives for each triplet its position in the result. */
fcd_status fcd__coo_to_csr(fcd_index n, fcd_index nnz, const fcd_index *rows,
                           const fcd_index *cols, const fcd_real *vals,
                           fcd_index **rowptr_out, fcd_index **col_out,
                           fcd_real **val_out, fcd_index *pos_out);
void fcd__csr_clear(fcd__csr *a);
/* y += alpha * A x (symmetric storage handled) */
/* y += |A| |x| (the scale of A x for backward errors) */
void fcd__csr_abs_apply(const fcd__csr *a, const fcd_real *x, fcd_real *y);
void fcd__csr_gaxpy(const fcd__csr *a, fcd_real alpha, const fcd_real *x, fcd_real *y);
void fcd__csr_gaxpy2(const fcd__csr *a, fcd_real alpha, const fcd_real *x1, fcd_real *y1,
                     const fcd_real *x2, fcd_real *y2);
fcd_index fcd__csr_nnz(const fcd__csr *a);
/* sum_ij |a_ij| |x_i| |x_j|: the magnitude that bounds the round-off of x^T A x */
fcd_real fcd__csr_abs_form(const fcd__csr *a, const fcd_real *x);
/* Checks structure: rowptr monotone from 0, columns in range and strictly increasing,
 * upper storage respected, values finite. Records a message naming the first defect. */
fcd_status fcd__csr_validate(const fcd_system *sys, const char *what, fcd_index n,
                             const fcd_index *rowptr, const fcd_index *col,
                             const fcd_real *val, int upper);
/* the position of entry (i, j) in a (columns sorted), -1 when not stored */
fcd_index fcd__csr_find(const fcd__csr *a, fcd_index i, fcd_index j);
fcd_real fcd__csr_asymmetry(const fcd__csr *a);

/* ---- free-dof operators (operators.c) ---- */
/* Brings sys->fp up to date with the current pattern_version. */
fcd_status fcd__system_free_pattern(fcd_system *sys, const fcd__free_pattern **fp);
/* val (fp->nnz entries) = a M + b C_full + c K on the free dofs, with C_full =
 * C + alpha M + beta K the full damping operator. */
fcd_status fcd__system_combination(fcd_system *sys, fcd_real a, fcd_real b, fcd_real c,
                                   fcd_real *val);
/* y = A x on free dofs for a free-pattern matrix with values val */
void fcd__free_matvec(const fcd__free_pattern *fp, const fcd_real *val,
                      const fcd_real *x, fcd_real *y);
const char *fcd__matrix_name(fcd_matrix_kind which);

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
fcd__factor_stats fcd__factor_get_stats(const fcd__factor *f);
/* SPD factors only (FCD_E_UNSUPPORTED otherwise): the halves of a solve, in the free
 * numbering of fcd__factor_solve. z = L^-1 P b (backward = 0) or x = P' L^-T z. */
fcd_status fcd__factor_half(fcd__factor *f, int backward, const fcd_real *b, fcd_real *x);
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
/* The columns of B = (A^-1)[idx, idx] (s x s) that this rank holds: ncols of them, the
 * k-th (at a + k s) being B's column col[k]. lower: only its rows >= col[k] are set (B is
 * symmetric: a Cholesky's inverse). fcd__inverse_cols_clear frees them. */
typedef struct fcd__inverse_cols {
  fcd_real *a;
  fcd_index *col, ncols;
  int lower;
} fcd__inverse_cols;
void fcd__inverse_cols_clear(fcd__inverse_cols *c);
/* B's columns for the distributed factor (fcd__mumps_inverse_cols: spread over the
 * ranks) or a serial LU ordered with idx last (all of them); FCD_E_UNSUPPORTED on another
 * serial factor, whose callers solve columns instead */
fcd_status fcd__factor_inverse_cols_free(fcd__factor *f, fcd_index s, const fcd_index *idx,
                                         fcd__inverse_cols *out);
/* fcd__mumps_condense / fcd__mumps_expand on the distributed factor, whose Schur set
 * the caller set (fcd__factor_set_schur_free) before factoring; fcd__factor_halves_free
 * tells whether it can (a distributed factor of the current values with a Schur set) */
int fcd__factor_halves_free(const fcd__factor *f);
fcd_status fcd__factor_condense_free(fcd__factor *f, const fcd_real *b, fcd_real *xs);
fcd_status fcd__factor_expand_free(fcd__factor *f, const fcd_real *g, fcd_real *x);
/* fcd__mumps_set_schur for the distributed factor (the next factorization is a new one
 * when the set changes), remembering key, what the set was derived from; nothing for a
 * serial one. fcd__factor_schur_current: the set was derived from key. */
fcd_status fcd__factor_set_schur_free(fcd__factor *f, uint64_t key, fcd_index s,
                                      const fcd_index *idx);
int fcd__factor_schur_current(const fcd__factor *f, uint64_t key);
/* fcd__mumps_set_separators for a distributed factor; nothing for a serial one */
void fcd__factor_set_separators(fcd__factor *f, int on);
/* the same for an equilibrium's factor (a quasistatic integrator's equilibrium) */
void fcd__equilibrium_set_separators(fcd_equilibrium *eq, int on);
/* the sorted free dofs H's entries touch, into idx (H's nnz entries at least) and their
 * count into *s; pos (nfree entries) receives each free dof's place in idx or -1 */
void fcd__contact_free_dofs(const fcd_system *sys, const fcd__csr *H, fcd_index *idx,
                            fcd_index *pos, fcd_index *s);
/* Gives fac the free dofs of cs's contacts as its Schur set: its next analysis orders
 * them last, and the Delassus operator then comes from the factor's trailing block (the
 * Schur complement's factor) instead of one solve per contact direction: MUMPS' Schur
 * complement on a distributed system (distributed.c), UMFPACK's or CHOLMOD's trailing
 * block on a serial one. */
fcd_status fcd__factor_schur_on_contacts(fcd_system *sys, fcd__factor *fac,
                                         fcd_contact_set *cs);
/* the solve a Delassus builder uses: fcd__factor_solve or fcd__factor_solve_free */
typedef fcd_status (*fcd__solve_fn)(fcd__factor *f, fcd_index nrhs, const fcd_real *b,
                                    fcd_real *x);

/* ---- backends: the only code that sees third-party headers ---- */
typedef struct fcd__chol fcd__chol;
fcd_status fcd__chol_create(const fcd_system *sys, fcd__chol **out);
fcd_real fcd__chol_rcond(fcd__chol *c);
void fcd__chol_destroy(fcd__chol *c);
fcd_status fcd__chol_analyze(fcd__chol *c, const fcd_system *sys, fcd_index n,
                             const fcd_index *rowptr, const fcd_index *col,
                             const fcd_real *val);
/* On FCD_E_NOT_SPD, *bad_col is the column (caller's numbering) of the failing pivot. */
fcd_status fcd__chol_factor(fcd__chol *c, const fcd_system *sys, const fcd_real *val,
                            fcd_index *bad_col);
/* half solves with A = P' L L' P: forward (backward = 0) z = L^-1 P b, backward
 * x = P' L^-T z; b and x may alias */
fcd_status fcd__chol_half(fcd__chol *c, const fcd_system *sys, int backward, const fcd_real *b,
                          fcd_real *x);
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
/* y = A x of this process' stored rows (fcd_system_apply without its checks and without
 * the sum over ranks) */
void fcd__system_apply_serial(const fcd_system *sys, fcd_matrix_kind which, const fcd_real *x,
                              fcd_real *y);
/* y = A x on every rank (fcd_system_apply without its argument checks) */
fcd_status fcd__system_apply_all(const fcd_system *sys, fcd_matrix_kind which,
                                 const fcd_real *x, fcd_real *y);
/* The relative asymmetry of a distributed matrix held as each rank's rows (global
 * numbering): the figure fcd__csr_asymmetry gives on the whole matrix. Collective; NaN
 * on every rank when the exchange fails on any. */
fcd_real fcd__dist_csr_asymmetry(const fcd_system *sys, const fcd__csr *a);
/* a hash of a contact set's contacts (frames, gaps, mu, vg, rows), folded into h */
uint64_t fcd__contact_set_hash(const fcd_contact_set *cs, uint64_t h);
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
/* Up to this many ranks the ranks' separators join MUMPS' Schur set and no front is
 * shared over the ranks: each rank has a subtree of its own. Beyond, the separators of
 * log2(P) levels would make the dense Schur complement grow like their sum (some 11 x
 * n^(2/3) at 64 ranks) and single-rank fronts would leave ranks idle: MUMPS' own mapping
 * (fronts shared by rows) is kept there. */
enum { FCD__SEP_MAX_RANKS = 4 };
/* no front shared by rows over the ranks (MUMPS' KEEP(9); distributed.c) when nranks <=
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

/* A host communicator (Fortran handle) outside a distributed system: its rank and size
 * (FCD_COMM_SERIAL: 0 and 1), a broadcast of bytes from root, an elementwise minimum over
 * the ranks in place. Collective; MPI errors are FCD_E_BACKEND. */
fcd_status fcd__comm_rank_size(const fcd_system *sys, int64_t comm_f, int *rank, int *size);
fcd_status fcd__comm_bcast(const fcd_system *sys, int64_t comm_f, void *buf, size_t bytes,
                           int root);
fcd_status fcd__comm_min(const fcd_system *sys, int64_t comm_f, long long *v, int n);
/* the largest of the ranks' *v (none of them NaN), in place on every rank */
fcd_status fcd__comm_max_real(const fcd_system *sys, int64_t comm_f, fcd_real *v);

/* PETSc/SLEPc: initialized lazily under a process-wide lock. */
fcd_status fcd__petsc_acquire(const fcd_system *sys);
void fcd__petsc_release(void);
/* finalizes what fcd initialized of SLEPc and PETSc (registered with fcd__on_finalize) */
void fcd__petsc_finalize(void);
/* Lowest nev eigenpairs of K x = w2 M x (both full-storage free-dof CSR on the same
 * pattern). vecs (n x nev, may be NULL) column-major. */
/* comm_f: the Fortran handle of an MPI communicator (-1: PETSC_COMM_SELF); the matrices
 * are replicated on every rank, each contributes its rows; results go to every rank.
 * max_it caps the solver's restarts; *reached receives the error estimate of the first
 * unconverged pair at the last iteration (0 when all nev converged). order (n, may be
 * NULL): on rank 0 of several, the fill-reducing pivot order the shifted LU used
 * (order[k], the k-th pivot's dof), for a factorization of the same pattern to reuse;
 * left untouched where there is none (callers preset order[0] = -1). */
fcd_status fcd__slepc_gen_nonsym(const fcd_system *sys, int64_t comm_f, fcd_index n,
                                 const fcd__csr *K, const fcd__csr *M, fcd_real sigma,
                                 fcd_index nev, fcd_real tol, fcd_index max_it,
                                 fcd_real *lre, fcd_real *lim, fcd_real *xr, fcd_real *xi,
                                 fcd_index *nconv, fcd_real *reached, fcd_index *order);
fcd_status fcd__slepc_pep(const fcd_system *sys, int64_t comm_f, fcd_index n,
                          const fcd__csr *K, const fcd__csr *C, const fcd__csr *M,
                          fcd_real sigma, fcd_index nev, fcd_real tol, fcd_index max_it,
                          fcd_real *lre, fcd_real *lim, fcd_real *xr, fcd_real *xi,
                          fcd_index *nconv, fcd_real *reached);
/* S = (A + A^T) / 2 in full storage (A full storage, n x n) */
fcd_status fcd__csr_symmetric_part(const fcd_system *sys, const fcd__csr *A, fcd__csr *S);
/* *pd = 1 when the symmetric matrix S (full storage) is positive definite (CHOLMOD) */
fcd_status fcd__chol_is_pd(fcd_system *sys, const fcd__csr *S, int *pd);
/* the same with the pivot order perm (perm[k], the k-th pivot; a permutation of S's n
 * dofs) instead of CHOLMOD's own search for one: FCD_E_INVALID_ARG when perm is none */
fcd_status fcd__chol_is_pd_ordered(const fcd_system *sys, const fcd__csr *S,
                                   const fcd_index *perm, int *pd);
/* the growth rate beyond a partial window (stability_estimate.c): K* and M* (reduced,
 * full storage) projected on the nm lowest modes of the frictionless reduced pencil
 * (K0, M0) and solved densely; re, im: the projected eigenvalue of largest real part
 * (undamped), band_hz the highest mode's frequency, used the basis size */
fcd_status fcd__stability_estimate(fcd_system *sys, const fcd__csr *K0, const fcd__csr *M0,
                                   const fcd__csr *Kr, const fcd__csr *Mr, fcd_index nm,
                                   fcd_real *re, fcd_real *im, fcd_real *band_hz,
                                   fcd_index *used);
fcd_status fcd__slepc_gen_sym_lowest(const fcd_system *sys, fcd_index n,
                                     const fcd_index *rowptr, const fcd_index *col,
                                     const fcd_real *kval, const fcd_real *mval,
                                     fcd_index nev, fcd_real *w2, fcd_real *vecs,
                                     fcd_index *nconv);

#endif /* FCD_PRIVATE_H */
