/* What the MPI and PETSc files (backends/mpi.c, petsc.c, scalapack.c, nd_parts.c and
 * distribution/mumps_factor.c) share; included by them only, since it names PETSc and MPI types. */
#ifndef FCD_PETSC_BACKEND_H
#define FCD_PETSC_BACKEND_H

#include "backends.h"

#include <petscsys.h>

/* Records PETSc error e of the call `what` on sys: FCD_E_NOMEM for PETSc's out of memory,
 * FCD_E_BACKEND otherwise, with PETSc's own text. */
fcd_status fcd__petsc_fail(const fcd_system *sys, PetscErrorCode e, const char *what);

/* Inside functions that call PETSc: run a call, remember its text for the message, and
 * leave through the function's petsc_error label when it fails (each function declares
 * `what` and `e`). */
#define P(expr)                                                                        \
  do {                                                                                 \
    what = #expr;                                                                      \
    e = (expr);                                                                        \
    if (e) goto petsc_error;                                                           \
  } while (0)

/* flag != 0 on any rank of comm (collective; an MPI failure counts as yes) */
int fcd__comm_any(MPI_Comm comm, int flag);

/* pos (on rank 0; MUMPS' PERM_IN, 1-based places): each of the nparts parts of rank 0's
 * parts[] (fcd__metis_separators) ordered by METIS' nested dissection on
 * rank p % size, in turn, then the s dofs last[] (1-based) in their order. With no parts
 * (nparts = 0), or when some part has no order, METIS' nested dissection of the whole
 * pattern on rank 0 instead (fcd__metis_order_last), last[] still last. rank 0 alone gives
 * n, nnz, irn, jcn, parts, s, last and pos; nparts is the same on every rank. *ordered = 0
 * (pos undefined) when METIS gives no order or rank 0 has no pattern (irn NULL); the
 * status and *ordered are the same on every rank (FCD_E_NOMEM, FCD_E_BACKEND).
 * Collective. */
fcd_status fcd__nd_parts(const fcd_system *sys, MPI_Comm comm, int nparts, fcd_index n,
                         size_t nnz, const int *irn, const int *jcn, const int *parts,
                         fcd_index s, const int *last, int *pos, int *ordered);

/* The Schur complement of a distributed factor as ScaLAPACK holds it (scalapack.c): s x s
 * by column blocks of FCD__GRID_NB over a 1 x P grid of a communicator, rank r holding
 * every row of the blocks b with b % P == r, column-major (s x nloc). Every function is
 * collective over that communicator and returns the same status on every rank. */
/* 128: ScaLAPACK's Cholesky of the 6,667 separator and contact dofs of the 100k block took
 * 0.80 s on two ranks against 0.98 s in blocks of 64, whose updates are rank-64 */
enum { FCD__GRID_NB = 128 };
typedef struct fcd__grid {
  int ctx, handle; /* BLACS grid and system handle, -1 when closed */
  int rank, size, nb, unsym;
  fcd_index s, nloc, lld; /* lld: a's leading dimension, s but in a trailing block's view */
  int desc[9];
  fcd_real *a; /* this rank's columns: S, then its Cholesky (LU) factor */
  int *ipiv;   /* LU: the row interchanges, the same on every rank */
} fcd__grid;
fcd_status fcd__grid_open(const fcd_system *sys, MPI_Comm comm, fcd_index s, int unsym,
                          fcd__grid *g);
void fcd__grid_close(fcd__grid *g);
/* S = L L^T (S = P L U when unsym) in place */
fcd_status fcd__grid_factor(const fcd_system *sys, MPI_Comm comm, fcd__grid *g);
/* b = S^-1 b for nrhs columns (s x nrhs, column-major) that rank 0 alone holds */
fcd_status fcd__grid_solve(const fcd_system *sys, MPI_Comm comm, const fcd__grid *g,
                           fcd_index nrhs, fcd_real *b);
/* A view of g's trailing block from row and column off on, which must start a column
 * block of every rank's (off a multiple of size x nb): the Cholesky factor of the
 * leading block's Schur complement once g is factored. Shares g's storage. */
fcd__grid fcd__grid_trailing(const fcd__grid *g, fcd_index off);
/* this rank's columns of S^-1 (a Cholesky's as their lower triangles); the factor is
 * kept */
fcd_status fcd__grid_inverse(const fcd_system *sys, MPI_Comm comm, const fcd__grid *g,
                             fcd__inverse_cols *out);

#endif
