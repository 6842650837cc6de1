/* What the PETSc backends (petsc.c, distributed.c) share; included by them only, since it
 * names PETSc types. */
#ifndef FCD_PETSC_BACKEND_H
#define FCD_PETSC_BACKEND_H

#include "../fcd_private.h"

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

#endif
