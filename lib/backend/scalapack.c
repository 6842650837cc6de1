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
void pdpotri_(const char *uplo, const int *n, double *a, const int *ia, const int *ja,
              const int *desca, int *info);
void pdgetrf_(const int *m, const int *n, double *a, const int *ia, const int *ja,
              const int *desca, int *ipiv, int *info);
void pdgetrs_(const char *trans, const int *n, const int *nrhs, const double *a, const int *ia,
              const int *ja, const int *desca, const int *ipiv, double *b, const int *ib,
              const int *jb, const int *descb, int *info);
void pdgetri_(const int *n, double *a, const int *ia, const int *ja, const int *desca,
              const int *ipiv, double *work, const int *lwork, int *iwork, const int *liwork,
              int *info);

static const int one = 1, zero = 0;

fcd_status fcd__grid_open(const fcd_system *sys, MPI_Comm comm, fcd_index s, int unsym,
                          fcd__grid *g) {
  memset(g, 0, sizeof *g);
  g->ctx = -1;
  g->handle = -1;
  g->nb = FCD__GRID_NB;
  g->s = s;
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
                    "complement on the contact dofs has no Cholesky factor");
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

/* inv (this rank's columns, overwritten) inverted from the factor's copy */
static int invert(const fcd__grid *g, fcd_real *inv) {
  int n = (int)g->s, info = 0;
  if (g->size == 1)
    return g->unsym ? LAPACKE_dgetri(LAPACK_COL_MAJOR, n, inv, n, g->ipiv)
                    : LAPACKE_dpotri(LAPACK_COL_MAJOR, 'L', n, inv, n);
  if (!g->unsym) {
    pdpotri_("L", &n, inv, &one, &one, g->desc, &info);
    return info;
  }
  int lwork = -1, liwork = -1, iq = 0;
  fcd_real wq = 0;
  pdgetri_(&n, inv, &one, &one, g->desc, g->ipiv, &wq, &lwork, &iq, &liwork, &info);
  if (info != 0) return info;
  lwork = (int)wq + 1;
  liwork = iq + 1;
  fcd_real *work = fcd__malloc_array((size_t)lwork, sizeof *work);
  int *iwork = fcd__malloc_array((size_t)liwork, sizeof *iwork);
  if (work && iwork)
    pdgetri_(&n, inv, &one, &one, g->desc, g->ipiv, work, &lwork, iwork, &liwork, &info);
  else
    info = INT_MIN; /* out of memory */
  fcd__free(work);
  fcd__free(iwork);
  return info;
}

fcd_status fcd__grid_inverse(const fcd_system *sys, MPI_Comm comm, const fcd__grid *g,
                             fcd_real *out) {
  size_t s = (size_t)g->s, nb = (size_t)g->nb, P = (size_t)g->size;
  /* one rank holds every column: inverted in out directly; several: a copy of this rank's
   * columns is inverted (the factor serves the solves), then every column block is
   * broadcast from its owner into its place in out */
  fcd_real *inv = P == 1 ? out : fcd__malloc_array(s * (size_t)g->nloc + 1, sizeof *inv);
  int info = inv ? 0 : INT_MIN;
  if (inv) {
    memcpy(inv, g->a, s * (size_t)g->nloc * sizeof *inv);
    info = invert(g, inv);
  }
  int bad = info != 0;
  if (fcd__comm_any(comm, bad)) {
    if (inv != out) fcd__free(inv);
    return info == INT_MIN || !inv
               ? fcd__err(sys, FCD_E_NOMEM, "out of memory inverting the Schur complement")
               : fcd__err(sys, FCD_E_BACKEND, "inverting the Schur complement failed "
                          "(info %d on rank %d)", info, g->rank);
  }
  for (size_t b = 0; P > 1 && b * nb < s && !bad; b++) {
    size_t cols = s - b * nb < nb ? s - b * nb : nb;
    int owner = (int)(b % P);
    fcd_real *blk = out + b * nb * s;
    if (owner == g->rank) memcpy(blk, inv + (b / P) * nb * s, cols * s * sizeof *out);
    bad = MPI_Bcast(blk, (int)(cols * s), MPI_DOUBLE, owner, comm) != MPI_SUCCESS;
  }
  if (inv != out) fcd__free(inv);
  if (fcd__comm_any(comm, bad))
    return fcd__err(sys, FCD_E_BACKEND, "broadcasting the inverse of the Schur complement "
                    "failed");
  /* a Cholesky's inverse comes as its lower triangle: mirrored by tiles, which stay in
   * cache where a row of the upper triangle would not */
  if (!g->unsym)
    for (size_t j0 = 0; j0 < s; j0 += nb)
      for (size_t i0 = j0; i0 < s; i0 += nb)
        for (size_t j = j0; j < j0 + nb && j < s; j++)
          for (size_t i = i0 > j + 1 ? i0 : j + 1; i < i0 + nb && i < s; i++)
            out[i * s + j] = out[j * s + i];
  return FCD_OK;
}
