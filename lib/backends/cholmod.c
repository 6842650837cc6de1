/* CHOLMOD (SuiteSparse) sparse Cholesky for SPD operators. */
#define _GNU_SOURCE /* dladdr, RTLD_NOLOAD: finding CHOLMOD's OpenMP runtime below */
#include "backends.h"
#include "lapack.h"

#include <cholmod.h>
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

_Static_assert(sizeof(SuiteSparse_long) == sizeof(fcd_index),
               "CHOLMOD's long interface must match fcd_index");

struct fcd__chol {
  cholmod_common c;
  cholmod_factor *L;
  cholmod_sparse A; /* header over the caller's arrays, never owned */
  cholmod_dense *X, *Y, *E; /* solve2 workspace reused across solves */
  fcd_real *hw;             /* a half solve's vector on a simplicial factor */
  fcd_index hw_n;           /* its length (the factor's n may change with an analysis) */
  fcd_index n;
  /* the analysis ordered these last dofs after all others (fcd__chol_analyze_last): the
   * trailing ntrail x ntrail block of L is the Cholesky factor of their Schur complement */
  fcd_index ntrail;
};

/* CHOLMOD 3 (SuiteSparse 5) opens OpenMP regions of a fixed 4 threads (a num_threads
 * clause, CHOLMOD_OMP_NUM_THREADS at its build, which OMP_NUM_THREADS does not lower)
 * to clear its map and to zero and assemble every supernode of some size. These loops
 * move memory; the flops are BLAS's, on BLAS's own threads. Where fewer than 4 cores
 * are free, each region wakes and parks threads through futexes: on KaplasTower's
 * W + rho I (1,710 rows, 1.5e7 flops, 2 cores) a factorization took 7.0 ms against
 * 3.3 ms with the regions inactive, and ADMM or a time step factor many times. So
 * CHOLMOD runs with the calling thread's max-active-levels ICV at 0 (every region
 * inactive, one thread), restored on return. That ICV belongs to the calling thread's
 * data environment from OpenMP 5.0 on (libgomp since GCC 11): other threads of the
 * host are not touched. The runtime's functions are looked up, not linked: a CHOLMOD
 * without OpenMP (or an OpenMP runtime older than 5.0) leaves nothing to do. */
typedef struct {
  int (*get)(void);
  void (*set)(int);
} omp_levels;

static omp_levels omp_api;
static pthread_once_t omp_once = PTHREAD_ONCE_INIT;

static void omp_lookup(void) {
  /* searched from CHOLMOD's own library, whose dependencies hold its runtime even when
   * the host loaded fcd with RTLD_LOCAL (Python's ctypes does) */
  int (*fn)(cholmod_sparse *, cholmod_factor *, cholmod_common *) = cholmod_l_factorize;
  void *addr, *lib = NULL;
  memcpy(&addr, &fn, sizeof addr);
  Dl_info info;
  if (dladdr(addr, &info) && info.dli_fname) lib = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  void *scope = lib ? lib : RTLD_DEFAULT;
  /* omp_get_supported_active_levels is OpenMP 5.0's: its presence says the ICV is per
   * data environment */
  void *g = dlsym(scope, "omp_get_max_active_levels");
  void *s = dlsym(scope, "omp_set_max_active_levels");
  if (dlsym(scope, "omp_get_supported_active_levels") && g && s) {
    /* POSIX guarantees a function pointer round-trips through dlsym's void * */
    memcpy(&omp_api.get, &g, sizeof g);
    memcpy(&omp_api.set, &s, sizeof s);
  }
  /* fcd's own dependency on CHOLMOD keeps both libraries loaded */
  if (lib) dlclose(lib);
}

static int serial_begin(void) {
  pthread_once(&omp_once, omp_lookup);
  if (!omp_api.set) return -1;
  int saved = omp_api.get();
  if (saved != 0) omp_api.set(0);
  return saved;
}

static void serial_end(int saved) {
  if (saved > 0) omp_api.set(saved);
}

static fcd_status chol_status(const fcd_system *sys, cholmod_common *c, const char *what) {
  switch (c->status) {
  case CHOLMOD_OK: return FCD_OK;
  case CHOLMOD_OUT_OF_MEMORY:
  case CHOLMOD_TOO_LARGE:
    return fcd__err(sys, FCD_E_NOMEM, "CHOLMOD %s: out of memory", what);
  default:
    return fcd__err(sys, FCD_E_BACKEND, "CHOLMOD %s failed (status %d)", what, c->status);
  }
}

/* A CHOLMOD context that never prints (the library never does: CHOLMOD reports through
 * its status instead). With ll, its factors are LL': simplicial LDL' (CHOLMOD's default
 * for small or very sparse matrices) completes on indefinite matrices, while an LL' factor
 * stops at the first non-positive pivot, which is how fcd detects a matrix that is not
 * SPD. */
static void quiet_start(cholmod_common *c, int ll) {
  cholmod_l_start(c);
  c->print = 0;
  c->error_handler = NULL;
  if (ll) {
    c->final_asis = 0;
    c->final_ll = 1;
    c->final_super = 1;
  }
}

fcd_status fcd__chol_create(const fcd_system *sys, fcd__chol **out) {
  fcd__chol *h = fcd__calloc(1, sizeof *h);
  if (!h) return fcd__err(sys, FCD_E_NOMEM, "out of memory creating a CHOLMOD context");
  quiet_start(&h->c, 1);
  *out = h;
  return FCD_OK;
}

void fcd__chol_destroy(fcd__chol *h) {
  if (!h) return;
  cholmod_l_free_factor(&h->L, &h->c);
  cholmod_l_free_dense(&h->X, &h->c);
  cholmod_l_free_dense(&h->Y, &h->c);
  cholmod_l_free_dense(&h->E, &h->c);
  fcd__free(h->hw);
  cholmod_l_finish(&h->c);
  fcd__free(h);
}

/* A cholmod_sparse header over packed compressed arrays (never owned): val NULL for a
 * pattern; stype 1 reads the upper triangle of a symmetric matrix, 0 an unsymmetric one */
static cholmod_sparse sparse_view(fcd_index nrow, fcd_index ncol, const fcd_index *p,
                                  const fcd_index *i, const fcd_real *val, int stype,
                                  int sorted) {
  cholmod_sparse A;
  memset(&A, 0, sizeof A);
  A.nrow = (size_t)nrow;
  A.ncol = (size_t)ncol;
  A.nzmax = (size_t)p[ncol];
  A.p = (void *)(uintptr_t)p;
  A.i = (void *)(uintptr_t)i;
  A.x = (void *)(uintptr_t)val;
  A.stype = stype;
  A.itype = CHOLMOD_LONG;
  A.xtype = val ? CHOLMOD_REAL : CHOLMOD_PATTERN;
  A.dtype = CHOLMOD_DOUBLE;
  A.sorted = sorted;
  A.packed = 1;
  return A;
}

static void set_header(fcd__chol *h, fcd_index n, const fcd_index *rowptr,
                       const fcd_index *col, const fcd_real *val) {
  /* A symmetric matrix in full CSR is its own CSC; stype = 1 reads one triangle. */
  h->A = sparse_view(n, n, rowptr, col, val, 1, 1);
}

void fcd__chol_bind(fcd__chol *h, const fcd_index *rowptr, const fcd_index *col) {
  h->A.p = (void *)(uintptr_t)rowptr;
  h->A.i = (void *)(uintptr_t)col;
  h->A.nzmax = (size_t)rowptr[h->A.ncol];
}

fcd_status fcd__chol_analyze(fcd__chol *h, const fcd_system *sys, fcd_index n,
                             const fcd_index *rowptr, const fcd_index *col,
                             const fcd_real *val) {
  cholmod_l_free_factor(&h->L, &h->c);
  set_header(h, n, rowptr, col, val);
  h->n = n;
  h->ntrail = 0;
  h->c.status = CHOLMOD_OK;
  h->L = cholmod_l_analyze(&h->A, &h->c);
  if (!h->L) return chol_status(sys, &h->c, "analysis");
  return FCD_OK;
}

static fcd_status nd_order_last(const fcd_system *sys, fcd_index n, const fcd_index *rowptr,
                                const fcd_index *col, size_t nnz, const int *irn,
                                const int *jcn, const int *last, fcd_index *order,
                                int *ordered);

/* h->A analysed in the given order with CHOLMOD's postordering of the elimination tree
 * off (it may move a subtree that no contact dof joins, a second body, behind them): the
 * symbolic factor, its nonzeros and its flops, or NULL (h->c.status says why) */
static cholmod_factor *analyze_given(fcd__chol *h, fcd_index *order, double *lnz,
                                     double *fl) {
  int nmethods = h->c.nmethods, ordering = h->c.method[0].ordering, post = h->c.postorder;
  h->c.nmethods = 1;
  h->c.method[0].ordering = CHOLMOD_GIVEN;
  h->c.postorder = 0;
  h->c.status = CHOLMOD_OK;
  cholmod_factor *L = cholmod_l_analyze_p(&h->A, (SuiteSparse_long *)order, NULL, 0, &h->c);
  h->c.nmethods = nmethods;
  h->c.method[0].ordering = ordering;
  h->c.postorder = post;
  *lnz = h->c.lnz;
  *fl = h->c.fl;
  return L;
}

/* The order: the s dofs last[i] != 0 after all others, the others ordered as CHOLMOD's
 * own analysis would choose: CAMD's constrained minimum degree first, kept when its
 * factor is sparse or cheap for its size (CHOLMOD's rule for AMD: fl / lnz < 500 or
 * lnz / nnz(A) < 5), else METIS' nested dissection of the others too and the sparser
 * factor of the two. METIS always cost the first step of a 20k-dof 2D block more than
 * CHOLMOD's whole analysis and factorization. When neither gives an order, or the
 * factor's order does not end with the set, CHOLMOD's own analysis stands (ntrail 0). */
fcd_status fcd__chol_analyze_last(fcd__chol *h, const fcd_system *sys, fcd_index n,
                                  const fcd_index *rowptr, const fcd_index *col,
                                  const fcd_real *val, const int *last, fcd_index s) {
  fcd_index *order = fcd__malloc_array((size_t)n + 1, sizeof *order);
  if (!order) return fcd__err(sys, FCD_E_NOMEM, "out of memory ordering the contact dofs last");
  cholmod_l_free_factor(&h->L, &h->c);
  set_header(h, n, rowptr, col, val);
  h->n = n;
  h->ntrail = 0;
  double lnz = 0, fl = 0, anz = (double)rowptr[n];
  cholmod_factor *L = NULL;
  fcd_status st = fcd__camd_order_last(sys, n, rowptr, col, last, order);
  if (st == FCD_OK) L = analyze_given(h, order, &lnz, &fl);
  if (st == FCD_OK && (!L || (fl >= 500 * lnz && lnz >= 5 * anz))) {
    int ordered = 0;
    st = nd_order_last(sys, n, rowptr, col, 0, NULL, NULL, last, order, &ordered);
    double lnz2 = 0, fl2 = 0;
    cholmod_factor *L2 = st == FCD_OK && ordered ? analyze_given(h, order, &lnz2, &fl2) : NULL;
    if (L2 && (!L || lnz2 < lnz)) {
      cholmod_l_free_factor(&L, &h->c);
      L = L2;
    } else {
      cholmod_l_free_factor(&L2, &h->c);
    }
  }
  fcd__free(order);
  if (st != FCD_OK) {
    cholmod_l_free_factor(&L, &h->c);
    return st;
  }
  if (!L) return fcd__chol_analyze(h, sys, n, rowptr, col, val);
  h->L = L;
  const SuiteSparse_long *perm = h->L->Perm;
  fcd_index k = n - s;
  while (k < n && perm && last[perm[k]]) k++;
  if (k == n) h->ntrail = s;
  return FCD_OK;
}

fcd_index fcd__chol_ntrail(const fcd__chol *h) { return h->L ? h->ntrail : 0; }

/* Lt (s x s, column-major, zero above the diagonal) = the trailing block of L, whose
 * places n - s + k hold the dofs order[k]; from a supernodal factor (each supernode a
 * dense column-major block over its row list, its own columns first) or a simplicial
 * LL' one */
fcd_status fcd__chol_trailing(const fcd__chol *h, const fcd_system *sys, fcd_index s,
                              fcd_real *Lt, fcd_index *order) {
  const cholmod_factor *L = h->L;
  fcd_index n = h->n, b = n - s;
  if (!L || s <= 0 || s != h->ntrail || !L->is_ll || L->xtype != CHOLMOD_REAL ||
      L->minor < L->n)
    return fcd__err(sys, FCD_E_UNSUPPORTED, "the Cholesky factor was not ordered with "
                    "these %lld dofs last", (long long)s);
  memset(Lt, 0, (size_t)s * (size_t)s * sizeof *Lt);
  const SuiteSparse_long *perm = L->Perm;
  for (fcd_index k = 0; k < s; k++) order[k] = (fcd_index)perm[b + k];
  const double *x = L->x;
  if (L->is_super) {
    const SuiteSparse_long *super = L->super, *pi = L->pi, *px = L->px, *ls = L->s;
    for (size_t sn = 0; sn < L->nsuper; sn++) {
      fcd_index k1 = super[sn], k2 = super[sn + 1], nr = pi[sn + 1] - pi[sn];
      for (fcd_index j = k1 > b ? k1 : b; j < k2; j++)
        for (fcd_index t = j - k1; t < nr; t++) {
          fcd_index r = ls[pi[sn] + t];
          if (r >= j) Lt[(r - b) + (j - b) * s] = x[px[sn] + t + (j - k1) * nr];
        }
    }
  } else {
    const SuiteSparse_long *lp = L->p, *li = L->i, *lnz = L->nz;
    for (fcd_index j = b; j < n; j++)
      for (SuiteSparse_long e = lp[j]; e < lp[j] + lnz[j]; e++)
        if (li[e] >= j) Lt[(li[e] - b) + (j - b) * s] = x[e];
  }
  return FCD_OK;
}

fcd_status fcd__chol_factor(fcd__chol *h, const fcd_system *sys, const fcd_real *val,
                            fcd_index *bad_col) {
  *bad_col = -1;
  if (!h->L) return fcd__err(sys, FCD_E_STATE, "CHOLMOD factorization before analysis");
  h->A.x = (void *)(uintptr_t)val;
  h->A.xtype = CHOLMOD_REAL; /* an analysis may have seen the pattern only */
  h->c.status = CHOLMOD_OK;
  int saved = serial_begin();
  int ok = cholmod_l_factorize(&h->A, h->L, &h->c);
  serial_end(saved);
  if (h->c.status == CHOLMOD_NOT_POSDEF || (ok && h->L->minor < h->L->n)) {
    /* minor counts in the fill-reducing order; report the caller's numbering */
    fcd_index k = (fcd_index)h->L->minor;
    const SuiteSparse_long *perm = h->L->Perm;
    *bad_col = (perm && k < h->n) ? (fcd_index)perm[k] : k;
    return fcd__err(sys, FCD_E_NOT_SPD,
                    "matrix is not positive definite: non-positive pivot at column %lld of "
                    "%lld", (long long)*bad_col, (long long)h->n);
  }
  if (!ok || h->c.status < CHOLMOD_OK) return chol_status(sys, &h->c, "factorization");
  return FCD_OK;
}

fcd_status fcd__chol_solve(fcd__chol *h, const fcd_system *sys, fcd_index nrhs,
                           const fcd_real *b, fcd_real *x) {
  cholmod_dense B;
  memset(&B, 0, sizeof B);
  B.nrow = (size_t)h->n;
  B.ncol = (size_t)nrhs;
  B.nzmax = (size_t)(h->n * nrhs);
  B.d = (size_t)h->n;
  B.x = (void *)(uintptr_t)b;
  B.xtype = CHOLMOD_REAL;
  B.dtype = CHOLMOD_DOUBLE;
  h->c.status = CHOLMOD_OK;
  if (!cholmod_l_solve2(CHOLMOD_A, h->L, &B, NULL, &h->X, NULL, &h->Y, &h->E, &h->c))
    return chol_status(sys, &h->c, "solve");
  memmove(x, h->X->x, (size_t)(h->n * nrhs) * sizeof *x);
  return FCD_OK;
}

/* The two halves of a solve with A = P' L L' P (the factor is always LL', final_ll):
 * forward z = L^-1 P b, backward x = P' L^-T z. A step that needs A^-1 b only through
 * a few of its projections and a corrected right-hand side uses one of each instead of
 * two full solves. */
/* The half solves on a simplicial LL' factor, by its columns (diagonal entry first):
 * cholmod_solve2 re-created a workspace on every call of each half (four allocations in
 * each step of a small model, and 2.6k of the pin on a flat's 10.8k instructions a
 * step). 1 when done, 0 when the factor is supernodal (CHOLMOD then). */
static int half_simplicial(fcd__chol *h, int backward, const fcd_real *b, fcd_real *x) {
  const cholmod_factor *L = h->L;
  if (L->is_super || !L->is_ll || L->xtype != CHOLMOD_REAL) return 0;
  if (h->hw_n < h->n) {
    fcd__free(h->hw);
    h->hw_n = 0;
    if (!(h->hw = fcd__malloc_array((size_t)h->n + 1, sizeof *h->hw))) return 0;
    h->hw_n = h->n;
  }
  const SuiteSparse_long *Lp = L->p, *Li = L->i, *Lnz = L->nz, *P = L->Perm;
  const double *Lx = L->x;
  fcd_real *z = h->hw;
  fcd_index n = h->n;
  if (!backward) { /* z = L^-1 P b */
    for (fcd_index k = 0; k < n; k++) z[k] = b[P ? P[k] : k];
    for (fcd_index j = 0; j < n; j++) {
      SuiteSparse_long p0 = Lp[j], p1 = p0 + Lnz[j];
      fcd_real zj = z[j] / Lx[p0];
      z[j] = zj;
      for (SuiteSparse_long p = p0 + 1; p < p1; p++) z[Li[p]] -= Lx[p] * zj;
    }
    memcpy(x, z, (size_t)n * sizeof *x);
  } else { /* x = P' L^-T b */
    memcpy(z, b, (size_t)n * sizeof *z);
    for (fcd_index j = n - 1; j >= 0; j--) {
      SuiteSparse_long p0 = Lp[j], p1 = p0 + Lnz[j];
      fcd_real zj = z[j];
      for (SuiteSparse_long p = p0 + 1; p < p1; p++) zj -= Lx[p] * z[Li[p]];
      z[j] = zj / Lx[p0];
    }
    for (fcd_index k = 0; k < n; k++) x[P ? P[k] : k] = z[k];
  }
  return 1;
}

fcd_status fcd__chol_half(fcd__chol *h, const fcd_system *sys, int backward, const fcd_real *b,
                          fcd_real *x) {
  if (half_simplicial(h, backward, b, x)) return FCD_OK;
  return fcd__chol_half_n(h, sys, backward, 1, b, x);
}

/* The permutation applied here, not by CHOLMOD's P and Pt stages: one n x nrhs array of
 * CHOLMOD's (X) beside the caller's, as a full solve has, not a second one */
fcd_status fcd__chol_half_n(fcd__chol *h, const fcd_system *sys, int backward, fcd_index nrhs,
                            const fcd_real *b, fcd_real *x) {
  const cholmod_factor *L = h->L;
  fcd_index n = h->n;
  if (nrhs <= 0 || n == 0) return FCD_OK;
  if (!L->is_super && L->is_ll && L->xtype == CHOLMOD_REAL) {
    for (fcd_index k = 0; k < nrhs; k++)
      if (!half_simplicial(h, backward, b + k * n, x + k * n))
        return fcd__err(sys, FCD_E_NOMEM, "out of memory for a half solve");
    return FCD_OK;
  }
  const SuiteSparse_long *P = L->Perm;
  if (h->hw_n < n) {
    fcd__free(h->hw);
    h->hw_n = 0;
    if (!(h->hw = fcd__malloc_array((size_t)n + 1, sizeof *h->hw)))
      return fcd__err(sys, FCD_E_NOMEM, "out of memory for a half solve");
    h->hw_n = n;
  }
  const fcd_real *src = b;
  if (!backward) { /* x = P b, column by column through hw (b and x may alias) */
    for (fcd_index k = 0; k < nrhs; k++) {
      for (fcd_index i = 0; i < n; i++) h->hw[i] = b[k * n + (P ? P[i] : i)];
      memcpy(x + k * n, h->hw, (size_t)n * sizeof *x);
    }
    src = x;
  }
  cholmod_dense B;
  memset(&B, 0, sizeof B);
  B.nrow = (size_t)n;
  B.ncol = (size_t)nrhs;
  B.nzmax = (size_t)(n * nrhs);
  B.d = (size_t)n;
  B.x = (void *)(uintptr_t)src;
  B.xtype = CHOLMOD_REAL;
  B.dtype = CHOLMOD_DOUBLE;
  h->c.status = CHOLMOD_OK;
  if (!cholmod_l_solve2(backward ? CHOLMOD_Lt : CHOLMOD_L, h->L, &B, NULL, &h->X, NULL, &h->Y,
                        &h->E, &h->c))
    return chol_status(sys, &h->c, "half solve");
  const fcd_real *X = h->X->x;
  if (!backward) {
    memmove(x, X, (size_t)(n * nrhs) * sizeof *x);
  } else { /* x = P' X */
    for (fcd_index k = 0; k < nrhs; k++)
      for (fcd_index i = 0; i < n; i++) x[k * n + (P ? P[i] : i)] = X[k * n + i];
  }
  return FCD_OK;
}

/* Each factor column's supernode (a supernodal factor only) and each dof's factor column */
static void column_maps(const cholmod_factor *L, fcd_index *node, fcd_index *iperm) {
  const SuiteSparse_long *P = L->Perm, *Sup = L->super;
  for (fcd_index k = 0; k < (fcd_index)L->n; k++) iperm[P ? P[k] : k] = k;
  if (L->is_super)
    for (fcd_index s = 0; s < (fcd_index)L->nsuper; s++)
      for (SuiteSparse_long j = Sup[s]; j < Sup[s + 1]; j++) node[j] = s;
}

/* The supernodes reached from the rows listed (marked 1; their paths to the root), and
 * the largest below-diagonal height among them */
static int reach_marks(const cholmod_factor *L, fcd_index nrows, const fcd_index *rows,
                       unsigned char *mark, fcd_index *below) {
  fcd_index n = (fcd_index)L->n, ns = (fcd_index)L->nsuper;
  const SuiteSparse_long *Sup = L->super, *Pi = L->pi, *Ls = L->s;
  fcd_index *node = fcd__malloc_array((size_t)n + 1, sizeof *node);
  fcd_index *iperm = fcd__malloc_array((size_t)n + 1, sizeof *iperm);
  if (!node || !iperm) {
    fcd__free(node);
    fcd__free(iperm);
    return 0;
  }
  column_maps(L, node, iperm);
  memset(mark, 0, (size_t)ns);
  *below = 0;
  for (fcd_index e = 0; e < nrows; e++)
    for (fcd_index s = node[iperm[rows[e]]]; s >= 0 && !mark[s];) {
      fcd_index nscol = (fcd_index)(Sup[s + 1] - Sup[s]), nsrow = (fcd_index)(Pi[s + 1] - Pi[s]);
      mark[s] = 1;
      if (nsrow - nscol > *below) *below = nsrow - nscol;
      s = nsrow > nscol ? node[Ls[Pi[s] + nscol]] : -1;
    }
  fcd__free(node);
  fcd__free(iperm);
  return 1;
}

/* Each marked supernode in turn (children before parents): its columns' block solved by
 * its diagonal triangle, then its rows below updated (dtrsm and dgemm, as CHOLMOD's own
 * supernodal solve) */
static int forward_marked(const cholmod_factor *L, const unsigned char *mark, fcd_index nrhs,
                          fcd_real *x, fcd_real *E) {
  fcd_index n = (fcd_index)L->n, ns = (fcd_index)L->nsuper;
  const SuiteSparse_long *Sup = L->super, *Pi = L->pi, *Px = L->px, *Ls = L->s;
  const double *Lx = L->x;
  for (fcd_index s = 0; s < ns; s++) {
    if (!mark[s]) continue;
    fcd_index k1 = (fcd_index)Sup[s], nscol = (fcd_index)(Sup[s + 1] - k1);
    fcd_index nsrow = (fcd_index)(Pi[s + 1] - Pi[s]), m = nsrow - nscol;
    const double *Ls_x = Lx + Px[s];
    if (fcd__la_lower_solve_ld(nscol, nrhs, Ls_x, nsrow, x + k1, n) != 0) return 0;
    if (m == 0) continue;
    if (fcd__la_gemm_ld(0, m, nrhs, nscol, 1.0, Ls_x + nscol, nsrow, x + k1, n, 0.0, E, m) != 0)
      return 0;
    const SuiteSparse_long *rows = Ls + Pi[s] + nscol;
    for (fcd_index j = 0; j < nrhs; j++) {
      fcd_real *xj = x + j * n;
      const fcd_real *ej = E + j * m;
      for (fcd_index i = 0; i < m; i++) xj[rows[i]] -= ej[i];
    }
  }
  return 1;
}

/* The rows off the reach stay zero: P b is zero there and no reached supernode updates
 * them. At a million dofs the constraint modes' W reaches about 1.4 % of the interior's
 * rows a column, and a whole forward half reads the 7 GB factor for every block. */
fcd_status fcd__chol_forward_reach(fcd__chol *h, const fcd_system *sys, fcd_index nrhs,
                                   fcd_index nrows, const fcd_index *rows, const fcd_real *b,
                                   fcd_real *x, int *done) {
  const cholmod_factor *L = h->L;
  fcd_index n = h->n;
  *done = 0;
  if (!L || !L->is_super || !L->is_ll || L->xtype != CHOLMOD_REAL) return FCD_OK;
  *done = 1;
  if (nrhs <= 0 || n == 0) return FCD_OK;
  unsigned char *mark = fcd__malloc_array((size_t)L->nsuper + 1, 1);
  fcd_real *col = fcd__malloc_array((size_t)n + 1, sizeof *col);
  fcd_index below = 0;
  int ok = mark && col && reach_marks(L, nrows, rows, mark, &below);
  fcd_real *E = ok ? fcd__malloc_array((size_t)below * (size_t)nrhs + 1, sizeof *E) : NULL;
  ok = ok && E;
  const SuiteSparse_long *P = L->Perm;
  for (fcd_index k = 0; k < nrhs && ok; k++) { /* x = P b, through col (b and x may alias) */
    for (fcd_index i = 0; i < n; i++) col[i] = b[k * n + (P ? P[i] : i)];
    memcpy(x + k * n, col, (size_t)n * sizeof *x);
  }
  if (ok && !forward_marked(L, mark, nrhs, x, E)) {
    fcd__free(mark);
    fcd__free(col);
    fcd__free(E);
    return fcd__err(sys, FCD_E_UNSUPPORTED, "a forward half solve of %lld columns: beyond "
                    "BLAS' int indices", (long long)nrhs);
  }
  fcd__free(mark);
  fcd__free(col);
  fcd__free(E);
  return ok ? FCD_OK : fcd__err(sys, FCD_E_NOMEM, "out of memory for a forward half solve");
}

/* The entries of L^-1 P B, B's columns given by their rows, that are not zero by the
 * structure: the factor's columns a forward solve reaches from each column's rows (their
 * paths to the root of the elimination tree). A path enters a supernode at a column (the
 * first row of its child's update, or the row itself) and fills it from there to the
 * supernode's last column: its dense diagonal block leaves the columns before at zero. */
double fcd__chol_reach(const fcd__chol *h, fcd_index ncol, const fcd_index *colptr,
                       const fcd_index *row) {
  const cholmod_factor *L = h->L;
  fcd_index n = h->n;
  if (!L || n == 0) return 0;
  int super = L->is_super;
  fcd_index nnode = super ? (fcd_index)L->nsuper : n;
  fcd_index *iperm = fcd__malloc_array((size_t)n + 1, sizeof *iperm);
  fcd_index *node = fcd__malloc_array((size_t)n + 1, sizeof *node);
  fcd_index *parent = fcd__malloc_array((size_t)nnode + 1, sizeof *parent);
  fcd_index *end = fcd__malloc_array((size_t)nnode + 1, sizeof *end);
  fcd_index *stamp = fcd__malloc_array((size_t)nnode + 1, sizeof *stamp);
  fcd_index *pcol = fcd__malloc_array((size_t)nnode + 1, sizeof *pcol);
  fcd_index *entry = fcd__malloc_array((size_t)nnode + 1, sizeof *entry);
  double total = -1;
  if (iperm && node && parent && end && stamp && pcol && entry) {
    column_maps(L, node, iperm);
    if (super) {
      const SuiteSparse_long *Sup = L->super, *Pi = L->pi, *Ls = L->s;
      for (fcd_index s = 0; s < nnode; s++) {
        fcd_index ncols = (fcd_index)(Sup[s + 1] - Sup[s]);
        end[s] = (fcd_index)Sup[s + 1];
        pcol[s] = Pi[s + 1] - Pi[s] > ncols ? (fcd_index)Ls[Pi[s] + ncols] : -1;
        parent[s] = pcol[s] >= 0 ? node[pcol[s]] : -1;
      }
    } else {
      const SuiteSparse_long *Lp = L->p, *Li = L->i, *Lnz = L->nz;
      for (fcd_index j = 0; j < n; j++) {
        node[j] = j;
        end[j] = j + 1;
        fcd_index pa = -1;
        for (SuiteSparse_long q = Lp[j] + 1; q < Lp[j] + Lnz[j]; q++)
          if (pa < 0 || Li[q] < pa) pa = (fcd_index)Li[q];
        parent[j] = pcol[j] = pa;
      }
    }
    for (fcd_index s = 0; s < nnode; s++) stamp[s] = -1;
    total = 0;
    for (fcd_index c = 0; c < ncol; c++)
      for (fcd_index e = colptr[c]; e < colptr[c + 1]; e++)
        for (fcd_index j = iperm[row[e]], s = node[j]; s >= 0; j = pcol[s], s = parent[s]) {
          if (stamp[s] == c) { /* reached before, the path above counted: lower entry? */
            if (j < entry[s]) {
              total += (double)(entry[s] - j);
              entry[s] = j;
            }
            break;
          }
          stamp[s] = c;
          entry[s] = j;
          total += (double)(end[s] - j);
        }
  }
  fcd__free(iperm);
  fcd__free(node);
  fcd__free(parent);
  fcd__free(end);
  fcd__free(stamp);
  fcd__free(pcol);
  fcd__free(entry);
  return total;
}

/* Y = L^-1 P B for a sparse B (n x ncol, CSC arrays): sparse columns, returned as newly
 * allocated CSC arrays (fcd's allocator). */
fcd_status fcd__chol_forward_sparse(fcd__chol *h, const fcd_system *sys, fcd_index ncol,
                                    const fcd_index *colptr, const fcd_index *row,
                                    const fcd_real *val, fcd_index **ycolptr,
                                    fcd_index **yrow, fcd_real **yval) {
  *ycolptr = NULL;
  *yrow = NULL;
  *yval = NULL;
  cholmod_sparse B = sparse_view(h->n, ncol, colptr, row, val, 0, 0);
  h->c.status = CHOLMOD_OK;
  cholmod_sparse *PB = cholmod_l_spsolve(CHOLMOD_P, h->L, &B, &h->c);
  cholmod_sparse *Y = PB ? cholmod_l_spsolve(CHOLMOD_L, h->L, PB, &h->c) : NULL;
  cholmod_l_free_sparse(&PB, &h->c);
  if (!Y) return chol_status(sys, &h->c, "sparse forward solve");
  fcd_status st = FCD_OK;
  const SuiteSparse_long *yp = Y->p, *yi = Y->i;
  const double *yx = Y->x;
  fcd_index nz = (fcd_index)yp[ncol];
  *ycolptr = fcd__malloc_array((size_t)ncol + 1, sizeof **ycolptr);
  *yrow = fcd__malloc_array((size_t)nz + 1, sizeof **yrow);
  *yval = fcd__malloc_array((size_t)nz + 1, sizeof **yval);
  if (!*ycolptr || !*yrow || !*yval) {
    fcd__free(*ycolptr);
    fcd__free(*yrow);
    fcd__free(*yval);
    *ycolptr = NULL;
    *yrow = NULL;
    *yval = NULL;
    st = fcd__err(sys, FCD_E_NOMEM, "out of memory for the forward-solved contact columns");
  } else {
    /* packed: Y->p is a prefix sum, the entries are contiguous */
    for (fcd_index j = 0; j <= ncol; j++) (*ycolptr)[j] = (fcd_index)yp[j];
    for (fcd_index k = 0; k < nz; k++) {
      (*yrow)[k] = (fcd_index)yi[k];
      (*yval)[k] = yx[k];
    }
  }
  cholmod_l_free_sparse(&Y, &h->c);
  return st;
}

/* CHOLMOD's reciprocal condition estimate of the factor, (min diag L / max diag L)^2:
 * a matrix singular up to round-off factors with tiny positive pivots, not a failure */
double fcd__chol_bytes(const fcd__chol *c) {
  const cholmod_factor *L = c ? c->L : NULL;
  if (!L) return 0;
  double b = 16.0 * (double)L->n; /* the permutation and the column counts */
  if (L->is_super)
    b += 8.0 * ((double)L->xsize + (double)L->ssize + 3.0 * (double)L->nsuper);
  else
    b += 16.0 * (double)L->nzmax + 32.0 * (double)L->n;
  return b;
}

fcd_real fcd__chol_rcond(fcd__chol *h) {
  if (!h->L) return 0;
  return cholmod_l_rcond(h->L, &h->c);
}

/* A fill-reducing ordering of the pattern (CSR, one triangle read: the pattern is taken
 * as symmetric) with every index of last[] = 1 after all others: CAMD's constrained
 * minimum degree, through CHOLMOD (which links CAMD already). perm[k] = the k-th index. */
fcd_status fcd__camd_order_last(const fcd_system *sys, fcd_index n, const fcd_index *rowptr,
                                const fcd_index *col, const int *last, fcd_index *perm) {
  cholmod_common c;
  quiet_start(&c, 0);
  cholmod_sparse A = sparse_view(n, n, rowptr, col, NULL, 1, 1);
  SuiteSparse_long *cmember = fcd__malloc_array((size_t)n + 1, sizeof *cmember);
  fcd_status st = FCD_OK;
  if (!cmember) {
    st = fcd__err(sys, FCD_E_NOMEM, "out of memory ordering the LU with the contact dofs last");
  } else {
    for (fcd_index i = 0; i < n; i++) cmember[i] = last[i] ? 1 : 0;
    int saved = serial_begin();
    int ok = cholmod_l_camd(&A, NULL, 0, cmember, (SuiteSparse_long *)perm, &c);
    serial_end(saved);
    if (!ok) st = chol_status(sys, &c, "constrained ordering (CAMD)");
  }
  fcd__free(cmember);
  cholmod_l_finish(&c);
  return st;
}

/* entry (i, j) of the whole pattern into T's upper triangle, renumbered by sub, when both
 * dofs are kept and it is off the diagonal */
static void kept_entry(cholmod_triplet *T, fcd_index n, const fcd_index *sub, fcd_index i,
                       fcd_index j) {
  if (i < 0 || j < 0 || i >= n || j >= n || sub[i] < 0 || sub[j] < 0 || i == j) return;
  SuiteSparse_long *ti = T->i, *tj = T->j;
  ti[T->nnz] = sub[i] < sub[j] ? sub[i] : sub[j];
  tj[T->nnz] = sub[i] < sub[j] ? sub[j] : sub[i];
  T->nnz++;
}

/* The sub-pattern without the last dofs (sub[i] < 0), as an upper-triangle cholmod pattern
 * of the kept ones (renumbered by sub, duplicates summed away), from a CSR pattern
 * (rowptr, col; 0-based) or from nnz 1-based triples (irn, jcn). */
static cholmod_sparse *kept_pattern(fcd_index n, const fcd_index *rowptr, const fcd_index *col,
                                    size_t nnz, const int *irn, const int *jcn,
                                    const fcd_index *sub, fcd_index nk, cholmod_common *c) {
  if (rowptr) nnz = (size_t)rowptr[n];
  cholmod_triplet *T = cholmod_l_allocate_triplet((size_t)nk, (size_t)nk, nnz, 1,
                                                  CHOLMOD_PATTERN, c);
  if (!T) return NULL;
  T->nnz = 0;
  if (rowptr) {
    for (fcd_index i = 0; i < n; i++)
      for (fcd_index p = rowptr[i]; p < rowptr[i + 1]; p++) kept_entry(T, n, sub, i, col[p]);
  } else {
    for (size_t p = 0; p < nnz; p++) kept_entry(T, n, sub, irn[p] - 1, jcn[p] - 1);
  }
  cholmod_sparse *S = cholmod_l_triplet_to_sparse(T, T->nnz, c);
  cholmod_l_free_triplet(&T, c);
  return S;
}

/* order[k], the dof at place k: METIS' nested dissection of the dofs with last[i] == 0,
 * then the others in ascending order; *ordered = 0 (order untouched) when METIS gives
 * none */
static fcd_status nd_order_last(const fcd_system *sys, fcd_index n, const fcd_index *rowptr,
                                const fcd_index *col, size_t nnz, const int *irn,
                                const int *jcn, const int *last, fcd_index *order,
                                int *ordered) {
  *ordered = 0;
  fcd_index *sub = fcd__malloc_array((size_t)n + 1, sizeof *sub);
  fcd_index *back = fcd__malloc_array((size_t)n + 1, sizeof *back);
  SuiteSparse_long *perm = fcd__malloc_array((size_t)n + 1, sizeof *perm);
  if (!sub || !back || !perm) {
    fcd__free(sub);
    fcd__free(back);
    fcd__free(perm);
    return fcd__err(sys, FCD_E_NOMEM, "out of memory for the nested-dissection ordering");
  }
  fcd_index nk = 0;
  for (fcd_index i = 0; i < n; i++) {
    sub[i] = last[i] ? -1 : nk;
    if (!last[i]) back[nk++] = i;
  }
  cholmod_common c;
  quiet_start(&c, 0);
  int saved = serial_begin();
  cholmod_sparse *S = nk > 0 ? kept_pattern(n, rowptr, col, nnz, irn, jcn, sub, nk, &c) : NULL;
  int ok = nk > 0 && S && cholmod_l_metis(S, NULL, 0, 1, perm, &c);
  serial_end(saved);
  fcd_status st = FCD_OK;
  if (ok) {
    fcd_index k = 0;
    for (; k < nk; k++) order[k] = back[perm[k]];
    for (fcd_index i = 0; i < n; i++)
      if (last[i]) order[k++] = i;
    *ordered = 1;
  } else if (c.status == CHOLMOD_OUT_OF_MEMORY) {
    st = fcd__err(sys, FCD_E_NOMEM, "out of memory in the nested-dissection ordering");
  }
  cholmod_l_free_sparse(&S, &c);
  cholmod_l_finish(&c);
  fcd__free(sub);
  fcd__free(back);
  fcd__free(perm);
  return st;
}

fcd_status fcd__nd_order_last(const fcd_system *sys, fcd_index n, const fcd_index *rowptr,
                              const fcd_index *col, const int *last, fcd_index *perm,
                              int *ordered) {
  return nd_order_last(sys, n, rowptr, col, 0, NULL, NULL, last, perm, ordered);
}

fcd_status fcd__metis_order_last(const fcd_system *sys, fcd_index n, size_t nnz,
                                 const int *irn, const int *jcn, fcd_index s,
                                 const int *last, int *pos, int *ordered) {
  *ordered = 0;
  int *flag = fcd__calloc((size_t)n + 1, sizeof *flag);
  fcd_index *order = fcd__malloc_array((size_t)n + 1, sizeof *order);
  fcd_status st = FCD_OK;
  if (!flag || !order) {
    st = fcd__err(sys, FCD_E_NOMEM, "out of memory for the nested-dissection ordering");
  } else {
    for (fcd_index a = 0; a < s; a++) flag[last[a] - 1] = 1;
    st = nd_order_last(sys, n, NULL, NULL, nnz, irn, jcn, flag, order, ordered);
  }
  if (st == FCD_OK && *ordered) {
    fcd_index k = n - s;
    for (fcd_index i = 0; i < k; i++) pos[order[i]] = (int)(i + 1);
    for (fcd_index a = 0; a < s; a++) pos[last[a] - 1] = (int)(k + a + 1);
  }
  fcd__free(flag);
  fcd__free(order);
  return st;
}

/* One level of bisections: every part p of part[] (dofs with part[i] == p, p < nparts)
 * split by METIS' vertex separator into parts 2p and 2p + 1, its separator's dofs set to
 * -1 and counted in *nsep. Returns 0, or -1 when out of memory. */
static int bisect_level(fcd_index n, size_t nnz, const int *irn, const int *jcn,
                        fcd_index *part, fcd_index nparts, fcd_index *sub, fcd_index *back,
                        SuiteSparse_long *half, fcd_index *nsep) {
  for (fcd_index p = 0; p < nparts; p++) {
    fcd_index nk = 0;
    for (fcd_index i = 0; i < n; i++) {
      sub[i] = part[i] == p ? nk : -1;
      if (part[i] == p) back[nk++] = i;
    }
    if (nk < 2) continue;
    cholmod_common c;
    quiet_start(&c, 0);
    int saved = serial_begin();
    cholmod_sparse *S = kept_pattern(n, NULL, NULL, nnz, irn, jcn, sub, nk, &c);
    SuiteSparse_long ns = S ? cholmod_l_bisect(S, NULL, 0, 1, half, &c) : -1;
    serial_end(saved);
    int oom = c.status == CHOLMOD_OUT_OF_MEMORY;
    cholmod_l_free_sparse(&S, &c);
    cholmod_l_finish(&c);
    if (oom) return -1;
    if (ns < 0) continue; /* METIS gave no separator: the part stays whole, as 2p */
    for (fcd_index k = 0; k < nk; k++) {
      fcd_index i = back[k];
      part[i] = half[k] == 2 ? -1 : 2 * p + (half[k] == 1);
      if (half[k] == 2) (*nsep)++;
    }
  }
  return 0;
}

fcd_status fcd__metis_separators(const fcd_system *sys, fcd_index n, size_t nnz,
                                 const int *irn, const int *jcn, fcd_index s, const int *last,
                                 int levels, fcd_index multiple, int *sep, fcd_index *nsep,
                                 int *parts) {
  *nsep = 0;
  fcd_index *part = fcd__malloc_array((size_t)n + 1, sizeof *part);
  fcd_index *sub = fcd__malloc_array((size_t)n + 1, sizeof *sub);
  fcd_index *back = fcd__malloc_array((size_t)n + 1, sizeof *back);
  SuiteSparse_long *half = fcd__malloc_array((size_t)n + 1, sizeof *half);
  int bad = !part || !sub || !back || !half;
  fcd_index ns = 0, kept = n - s;
  if (!bad) {
    for (fcd_index i = 0; i < n; i++) part[i] = 0;
    for (fcd_index a = 0; a < s; a++) part[last[a] - 1] = -2;
    for (int l = 0; l < levels && !bad; l++)
      bad = bisect_level(n, nnz, irn, jcn, part, (fcd_index)1 << l, sub, back, half, &ns) != 0;
  }
  /* pad the separators with their neighbours to a multiple, then any kept dof */
  fcd_index want = multiple > 0 ? (ns + multiple - 1) / multiple * multiple : ns;
  if (!bad && ns > 0 && want < kept) {
    for (size_t p = 0; p < nnz && ns < want; p++) {
      fcd_index i = irn[p] - 1, j = jcn[p] - 1;
      if (i < 0 || j < 0 || i >= n || j >= n) continue;
      if (part[i] == -1 && part[j] >= 0) part[j] = -3, ns++;
      else if (part[j] == -1 && part[i] >= 0) part[i] = -3, ns++;
    }
    for (fcd_index i = 0; i < n && ns < want; i++)
      if (part[i] >= 0) part[i] = -3, ns++;
    fcd_index k = 0;
    for (fcd_index i = 0; i < n; i++)
      if (part[i] == -1 || part[i] == -3) sep[k++] = (int)(i + 1);
    *nsep = k;
    for (fcd_index i = 0; parts && i < n; i++) parts[i] = part[i] >= 0 ? (int)part[i] : -1;
  }
  fcd__free(part);
  fcd__free(sub);
  fcd__free(back);
  fcd__free(half);
  return bad ? fcd__err(sys, FCD_E_NOMEM, "out of memory for the ranks' separators") : FCD_OK;
}

fcd_status fcd__metis_part_pattern(const fcd_system *sys, fcd_index n, size_t nnz,
                                   const int *irn, const int *jcn, const int *parts, int p,
                                   fcd__part_pattern *out) {
  memset(out, 0, sizeof *out);
  fcd_index *sub = fcd__malloc_array((size_t)n + 1, sizeof *sub);
  out->back = fcd__malloc_array((size_t)n + 1, sizeof *out->back);
  fcd_status st = FCD_OK;
  if (!sub || !out->back) {
    st = fcd__err(sys, FCD_E_NOMEM, "out of memory for a subdomain's pattern");
    goto done;
  }
  fcd_index nk = 0;
  for (fcd_index i = 0; i < n; i++) {
    sub[i] = parts[i] == p ? nk : -1;
    if (parts[i] == p) out->back[nk++] = i;
  }
  out->n = nk;
  cholmod_common c;
  quiet_start(&c, 0);
  cholmod_sparse *S = nk > 0 ? kept_pattern(n, NULL, NULL, nnz, irn, jcn, sub, nk, &c) : NULL;
  if (S) {
    SuiteSparse_long *cp = S->p, *ri = S->i;
    out->nnz = (fcd_index)cp[nk];
    out->colptr = fcd__malloc_array((size_t)nk + 1, sizeof *out->colptr);
    out->row = fcd__malloc_array((size_t)out->nnz + 1, sizeof *out->row);
    if (out->colptr && out->row) {
      memcpy(out->colptr, cp, ((size_t)nk + 1) * sizeof *out->colptr);
      memcpy(out->row, ri, (size_t)out->nnz * sizeof *out->row);
    }
  }
  if (nk > 0 && (!out->colptr || !out->row))
    st = fcd__err(sys, FCD_E_NOMEM, "out of memory for a subdomain's pattern");
  cholmod_l_free_sparse(&S, &c);
  cholmod_l_finish(&c);
done:
  fcd__free(sub);
  if (st != FCD_OK) fcd__part_pattern_free(out);
  return st;
}

void fcd__part_pattern_free(fcd__part_pattern *pp) {
  fcd__free(pp->back);
  fcd__free(pp->colptr);
  fcd__free(pp->row);
  memset(pp, 0, sizeof *pp);
}

fcd_status fcd__metis_part_order(const fcd_system *sys, const fcd__part_pattern *pp,
                                 fcd_index *perm, int *ordered) {
  *ordered = 0;
  if (pp->n == 0) return FCD_OK;
  cholmod_common c;
  quiet_start(&c, 0);
  fcd_status st = FCD_OK;
  cholmod_sparse *S = cholmod_l_allocate_sparse((size_t)pp->n, (size_t)pp->n,
                                                (size_t)pp->nnz, 1, 1, 1, CHOLMOD_PATTERN, &c);
  if (S) {
    memcpy(S->p, pp->colptr, ((size_t)pp->n + 1) * sizeof *pp->colptr);
    memcpy(S->i, pp->row, (size_t)pp->nnz * sizeof *pp->row);
    int saved = serial_begin();
    *ordered = cholmod_l_metis(S, NULL, 0, 1, (SuiteSparse_long *)perm, &c) ? 1 : 0;
    serial_end(saved);
  }
  if (c.status == CHOLMOD_OUT_OF_MEMORY)
    st = fcd__err(sys, FCD_E_NOMEM, "out of memory in a subdomain's nested dissection");
  cholmod_l_free_sparse(&S, &c);
  cholmod_l_finish(&c);
  return st;
}

fcd_status fcd__chol_is_pd_ordered(const fcd_system *sys, const fcd__csr *S,
                                   const fcd_index *perm, int *pd) {
  *pd = 0;
  cholmod_common c;
  quiet_start(&c, 1);
  c.nmethods = 1;
  c.method[0].ordering = CHOLMOD_GIVEN;
  cholmod_sparse A = sparse_view(S->n, S->n, S->rowptr, S->col, S->val, 1, 1);
  cholmod_factor *L = cholmod_l_analyze_p(&A, (SuiteSparse_long *)(uintptr_t)perm, NULL, 0,
                                          &c);
  fcd_status st = FCD_OK;
  if (!L) {
    st = c.status == CHOLMOD_OUT_OF_MEMORY
             ? fcd__err(sys, FCD_E_NOMEM, "out of memory in the analysis of the symmetric "
                        "part of K*")
             : fcd__err(sys, FCD_E_INVALID_ARG, "the pivot order given for the symmetric part "
                        "of K* is not a permutation of its %lld dofs (CHOLMOD status %d)",
                        (long long)S->n, c.status);
  } else {
    int saved = serial_begin();
    int ok = cholmod_l_factorize(&A, L, &c);
    serial_end(saved);
    if (c.status == CHOLMOD_NOT_POSDEF || (ok && L->minor < L->n)) *pd = 0;
    else if (ok && c.status >= CHOLMOD_OK) *pd = 1;
    else st = chol_status(sys, &c, "factorization of the symmetric part of K*");
  }
  cholmod_l_free_factor(&L, &c);
  cholmod_l_finish(&c);
  return st;
}
