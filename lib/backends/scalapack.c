/* The Schur complement of a distributed factor, factored and inverted over the ranks.
 *
 * MUMPS leaves the Schur complement S on the contact dofs (s x s, dense) in ScaLAPACK's
 * block-cyclic layout over a 1 x P grid (ICNTL(19) = 3): every rank holds all rows of the
 * column blocks b with b % P == its rank. Factoring and inverting S there splits the
 * O(s^3) work that rank 0 did alone before: at 303k dofs (s = 8,427) that was 4.6 s of
 * Cholesky and 9.9 s of inversion while the other ranks waited.
 *
 * A 1 x P grid keeps every pivot and every row on each rank: the LU's row interchanges
 * need no gathering, and a right-hand side held by rank 0 alone is a valid distributed
 * one (its columns in one block, on process column 0). */
#include "petsc_backend.h"

#include <lapacke.h>
#include <mpi.h>
#include <limits.h>
#include <string.h>

/* BLACS and ScaLAPACK (Debian's libscalapack-openmpi ships no header) */
int Csys2blacs_handle(MPI_Comm comm);
void Cfree_blacs_system_handle(int handle);
void Cblacs_pinfo(int *me, int *np);
void Cblacs_gridinit(int *ctx, const char *order, int nprow, int npcol);
void Cblacs_gridexit(int ctx);
void descinit_(int *desc, const int *m, const int *n, const int *mb, const int *nb,
               const int *irsrc, const int *icsrc, const int *ctx, const int *lld, int *info);
int numroc_(const int *n, const int *nb, const int *iproc, const int *isrc, const int *nprocs);
void pdpotrf_(const char *uplo, const int *n, double *a, const int *ia, const int *ja,
              const int *desca, int *info);
void pdpotrs_(const char *uplo, const int *n, const int *nrhs, const double *a, const int *ia,
              const int *ja, const int *desca, double *b, const int *ib, const int *jb,
              const int *descb, int *info);
void pdgetrf_(const int *m, const int *n, double *a, const int *ia, const int *ja,
              const int *desca, int *ipiv, int *info);
void pdgetrs_(const char *trans, const int *n, const int *nrhs, const double *a, const int *ia,
              const int *ja, const int *desca, const int *ipiv, double *b, const int *ib,
              const int *jb, const int *descb, int *info);
void pdgetri_(const int *n, double *a, const int *ia, const int *ja, const int *desca,
              const int *ipiv, double *work, const int *lwork, int *iwork, const int *liwork,
              int *info);

void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
            const double *alpha, const double *a, const int *lda, const double *b,
            const int *ldb, const double *beta, double *c, const int *ldc);
void dtrsm_(const char *side, const char *uplo, const char *ta, const char *diag, const int *m,
            const int *n, const double *alpha, const double *a, const int *lda, double *b,
            const int *ldb);

static const int one = 1, zero = 0;

fcd_status fcd__grid_open(const fcd_system *sys, MPI_Comm comm, fcd_index s, int unsym,
                          fcd__grid *g) {
  memset(g, 0, sizeof *g);
  g->ctx = -1;
  g->handle = -1;
  g->nb = FCD__GRID_NB;
  g->s = s;
  g->lld = s > 1 ? s : 1;
  g->unsym = unsym;
  MPI_Comm_rank(comm, &g->rank);
  MPI_Comm_size(comm, &g->size);
  if (fcd__comm_any(comm, s > INT_MAX / FCD__GRID_NB))
    return fcd__err(sys, FCD_E_UNSUPPORTED, "a Schur complement of %lld contact dofs is beyond "
                    "ScaLAPACK's int indices", (long long)s);
  int n = (int)s, me, np, info = 0;
  g->nloc = numroc_(&n, &g->nb, &g->rank, &zero, &g->size);
  Cblacs_pinfo(&me, &np);
  g->handle = Csys2blacs_handle(comm);
  g->ctx = g->handle;
  Cblacs_gridinit(&g->ctx, "R", 1, g->size);
  int lld = n > 1 ? n : 1;
  descinit_(g->desc, &n, &n, &g->nb, &g->nb, &zero, &zero, &g->ctx, &lld, &info);
  g->a = fcd__malloc_array((size_t)s * (size_t)g->nloc + 1, sizeof *g->a);
  if (unsym) g->ipiv = fcd__malloc_array((size_t)s + (size_t)g->nb, sizeof *g->ipiv);
  int bad = info != 0 || !g->a || (unsym && !g->ipiv);
  if (fcd__comm_any(comm, bad)) {
    fcd__grid_close(g);
    return info != 0 ? fcd__err(sys, FCD_E_BACKEND, "ScaLAPACK refused the layout of the "
                                "Schur complement (descinit info %d)", info)
                     : fcd__err(sys, FCD_E_NOMEM, "out of memory for this rank's %lld "
                                "columns of the Schur complement", (long long)g->nloc);
  }
  return FCD_OK;
}

void fcd__grid_close(fcd__grid *g) {
  if (g->ctx >= 0) Cblacs_gridexit(g->ctx);
  if (g->handle >= 0) Cfree_blacs_system_handle(g->handle);
  fcd__free(g->a);
  fcd__free(g->ipiv);
  g->a = NULL;
  g->ipiv = NULL;
  g->ctx = g->handle = -1;
}

fcd_status fcd__grid_factor(const fcd_system *sys, MPI_Comm comm, fcd__grid *g) {
  int n = (int)g->s, info = 0;
  /* one rank holds all of S: LAPACK's own (recursive) factorizations are faster there
   * than ScaLAPACK's panel loop over a 1 x 1 grid */
  if (g->size == 1)
    info = g->unsym ? LAPACKE_dgetrf(LAPACK_COL_MAJOR, n, n, g->a, n, g->ipiv)
                    : LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', n, g->a, n);
  else if (g->unsym)
    pdgetrf_(&n, &n, g->a, &one, &one, g->desc, g->ipiv, &info);
  else
    pdpotrf_("L", &n, g->a, &one, &one, g->desc, &info);
  if (fcd__comm_any(comm, info != 0 && g->unsym))
    return fcd__err(sys, FCD_E_SINGULAR, "the non-symmetric operator is singular: its Schur "
                    "complement on the contact dofs has no LU factor");
  if (fcd__comm_any(comm, info != 0))
    return fcd__err(sys, FCD_E_NOT_SPD, "not positive definite on the free dofs: the Schur "
                    "complement on the contact dofs (and on several ranks their separators) "
                    "has no Cholesky factor");
  return FCD_OK;
}

fcd_status fcd__grid_solve(const fcd_system *sys, MPI_Comm comm, const fcd__grid *g,
                           fcd_index nrhs, fcd_real *b) {
  int n = (int)g->s, k = (int)nrhs, lld = n > 1 ? n : 1, info = 0, descb[9];
  fcd_real dummy = 0;
  /* b's columns in one block on process column 0: whole on rank 0, nothing elsewhere */
  descinit_(descb, &n, &k, &g->nb, &k, &zero, &zero, &g->ctx, &lld, &info);
  if (info == 0 && g->size == 1) {
    /* the _work forms: LAPACKE's NaN scan of the whole factor at every solve was 3 % of a
     * step at 32k dofs */
    info = g->unsym
               ? LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', n, k, g->a, n, g->ipiv, b, lld)
               : LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'L', n, k, g->a, n, b, lld);
  } else if (info == 0) {
    if (g->unsym)
      pdgetrs_("N", &n, &k, g->a, &one, &one, g->desc, g->ipiv, g->rank == 0 ? b : &dummy,
               &one, &one, descb, &info);
    else
      pdpotrs_("L", &n, &k, g->a, &one, &one, g->desc, g->rank == 0 ? b : &dummy, &one, &one,
               descb, &info);
  }
  if (fcd__comm_any(comm, info != 0))
    return fcd__err(sys, FCD_E_BACKEND, "solving with the Schur complement failed "
                    "(info %d on rank %d)", info, g->rank);
  return FCD_OK;
}

fcd__grid fcd__grid_trailing(const fcd__grid *g, fcd_index off) {
  fcd__grid c = *g;
  fcd_index lead = off / ((fcd_index)g->size * g->nb) * g->nb; /* this rank's columns before */
  c.a = g->a + (size_t)lead * (size_t)g->lld + (size_t)off;
  c.s = g->s - off;
  c.nloc = g->nloc - lead;
  return c;
}

/* the global column of this rank's local column k: its (k / nb)-th block, which is the
 * ((k / nb) P + rank)-th of the block-cyclic layout */
static size_t global_col(const fcd__grid *g, size_t k) {
  size_t nb = (size_t)g->nb;
  return ((k / nb) * (size_t)g->size + (size_t)g->rank) * nb + k % nb;
}

/* L's column block k (rows ks and below, kw columns) from its owner into pan from its
 * row off on (leading dimension ld), on every rank */
static int bcast_panel(const fcd__grid *g, MPI_Comm comm, int k, fcd_real *pan, size_t ld,
                       size_t off) {
  size_t s = (size_t)g->s, nb = (size_t)g->nb, ks = (size_t)k * nb, lld = (size_t)g->lld;
  size_t kw = s - ks < nb ? s - ks : nb, h = s - ks;
  int owner = k % g->size;
  fcd_real *p = pan + off;
  if (owner == g->rank)
    for (size_t j = 0; j < kw; j++)
      memcpy(p + j * ld, g->a + ((size_t)(k / g->size) * nb + j) * lld + ks, h * sizeof *p);
  /* the kw columns, each h long, ld apart in pan; every rank enters the broadcast only
   * when every rank has its type */
  MPI_Datatype cols = MPI_DATATYPE_NULL;
  int bad = MPI_Type_vector((int)kw, (int)h, (int)ld, MPI_DOUBLE, &cols) != MPI_SUCCESS;
  if (!bad) bad = MPI_Type_commit(&cols) != MPI_SUCCESS;
  bad = fcd__comm_any(comm, bad) || MPI_Bcast(p, 1, cols, owner, comm) != MPI_SUCCESS;
  if (cols != MPI_DATATYPE_NULL) MPI_Type_free(&cols);
  return bad;
}

/* Column blocks of L act in groups of FCD__INV_GROUP, as one panel: the updates of inv
 * are rank-512 products instead of rank-128 ones, and a rank waits for its peers' panels
 * a quarter as often. At 303k dofs (8,427 contact dofs) on two ranks the inversion took
 * 4.4-4.5 s (3.5-3.7 s of arithmetic a rank) against 4.9-5.3 s (4.0-4.4 s) block by
 * block. */
enum { FCD__INV_GROUP = 4 };

/* inv = this rank's columns of S^-1 = L^-T L^-1 on and below the diagonal (rows >= the
 * column's), solved from the identity's columns: forward with L's column blocks in
 * order, then backward in reverse, each broadcast by its owner. A column of block b is
 * zero above b's rows forward and wanted only there backward, so block k's panel acts
 * on the columns of blocks up to k alone: 2 s^3 / 3 flops in all, as pdpotri's, but
 * in every rank's own BLAS on its own columns. ScaLAPACK's pdtrtri and pdlauum on the
 * 1 x P grid took as long on two ranks as LAPACK on one (0.61-0.66 s at 4,107 dofs).
 * A group of blocks acts as one panel; the columns of its later blocks get rows above
 * their own block too, exact values of S^-1 (the backward pass gives every row it
 * reaches exactly, the forward one zeros above a column's own row), never read. */
static int spd_inverse(const fcd__grid *g, MPI_Comm comm, fcd_real *inv) {
  int s = (int)g->s, nb = g->nb, P = g->size, nblk = (s + nb - 1) / nb, bad = 0;
  int G = FCD__INV_GROUP, ngrp = (nblk + G - 1) / G, nl = (int)g->nloc;
  const double m1 = -1, p1 = 1;
  fcd_real *pan = fcd__malloc_array((size_t)s * (size_t)(G * nb) + 1, sizeof *pan);
  if (fcd__comm_any(comm, !pan)) {
    fcd__free(pan);
    return INT_MIN;
  }
  memset(inv, 0, (size_t)s * (size_t)nl * sizeof *inv);
  for (int c = 0; c < nl; c++) inv[(size_t)c * s + global_col(g, (size_t)c)] = 1;
  for (int pass = 0; pass < 2 && !bad; pass++)
    for (int t = 0; t < ngrp && !bad; t++) {
      int grp = pass == 0 ? t : ngrp - 1 - t, k0 = grp * G;
      int k1 = k0 + G - 1 < nblk - 1 ? k0 + G - 1 : nblk - 1;
      int ks = k0 * nb, h = s - ks, kw = s - ks < G * nb ? s - ks : G * nb, below = h - kw;
      /* this rank's blocks up to k1: its first ceil((k1 + 1 - rank) / P) */
      int nact = k1 >= g->rank ? ((k1 - g->rank) / P + 1) * nb : 0;
      if (nact > nl) nact = nl;
      /* the diagonal block's part above a later block's rows: never read by a lower
       * triangular solve, zeroed all the same (no uninitialized memory handed to BLAS) */
      for (int j = nb; j < kw; j++)
        memset(pan + (size_t)j * h, 0, (size_t)(j / nb * nb) * sizeof *pan);
      for (int k = k0; k <= k1 && !bad; k++)
        bad = bcast_panel(g, comm, k, pan, (size_t)h,
                          (size_t)(k - k0) * (size_t)nb * (size_t)(h + 1));
      if (bad || nact == 0) continue;
      fcd_real *top = inv + ks;
      if (pass == 0) {
        dtrsm_("L", "L", "N", "N", &kw, &nact, &p1, pan, &h, top, &s);
        if (below > 0)
          dgemm_("N", "N", &below, &nact, &kw, &m1, pan + kw, &h, top, &s, &p1, top + kw, &s);
      } else {
        if (below > 0)
          dgemm_("T", "N", &kw, &nact, &below, &m1, pan + kw, &h, top + kw, &s, &p1, top, &s);
        dtrsm_("L", "L", "T", "N", &kw, &nact, &p1, pan, &h, top, &s);
      }
    }
  fcd__free(pan);
  return fcd__comm_any(comm, bad) ? -1 : 0;
}

/* inv = this rank's columns of S^-1, from the factor (kept: it serves the solves) */
static int invert(const fcd__grid *g, MPI_Comm comm, fcd_real *inv) {
  int n = (int)g->s, info = 0;
  if (!g->unsym && g->size > 1) return spd_inverse(g, comm, inv);
  if (g->lld != g->s) return -1; /* a trailing block's view is a Cholesky's on P > 1 */
  memcpy(inv, g->a, (size_t)g->s * (size_t)g->nloc * sizeof *inv);
  if (g->size == 1)
    return g->unsym ? LAPACKE_dgetri(LAPACK_COL_MAJOR, n, inv, n, g->ipiv)
                    : LAPACKE_dpotri(LAPACK_COL_MAJOR, 'L', n, inv, n);
  int lwork = -1, liwork = -1, iq = 0;
  fcd_real wq = 0;
  pdgetri_(&n, inv, &one, &one, g->desc, g->ipiv, &wq, &lwork, &iq, &liwork, &info);
  if (info != 0) return info;
  lwork = (int)wq + 1;
  liwork = iq + 1;
  fcd_real *work = fcd__malloc_array((size_t)lwork, sizeof *work);
  int *iwork = fcd__malloc_array((size_t)liwork, sizeof *iwork);
  if (fcd__comm_any(comm, !work || !iwork)) /* all or none enter pdgetri */
    info = INT_MIN;
  else
    pdgetri_(&n, inv, &one, &one, g->desc, g->ipiv, work, &lwork, iwork, &liwork, &info);
  fcd__free(work);
  fcd__free(iwork);
  return info;
}

fcd_status fcd__grid_inverse(const fcd_system *sys, MPI_Comm comm, const fcd__grid *g,
                             fcd__inverse_cols *out) {
  size_t s = (size_t)g->s, nl = (size_t)g->nloc;
  memset(out, 0, sizeof *out);
  fcd_real *inv = fcd__malloc_array(s * nl + 1, sizeof *inv);
  fcd_index *col = fcd__malloc_array(nl + 1, sizeof *col);
  /* every rank or none enters the collective inversion */
  int info = fcd__comm_any(comm, !inv || !col) ? INT_MIN : invert(g, comm, inv);
  if (fcd__comm_any(comm, info != 0)) {
    fcd__free(inv);
    fcd__free(col);
    return info == INT_MIN
               ? fcd__err(sys, FCD_E_NOMEM, "out of memory inverting the Schur complement")
               : fcd__err(sys, FCD_E_BACKEND, "inverting the Schur complement failed "
                          "(info %d on rank %d)", info, g->rank);
  }
  for (size_t k = 0; k < nl; k++) col[k] = (fcd_index)global_col(g, k);
  out->a = inv;
  out->col = col;
  out->ncols = (fcd_index)nl;
  out->lower = !g->unsym;
  return FCD_OK;
}
