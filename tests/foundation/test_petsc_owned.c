/* PETSc ownership when fcd is the one that initializes it: lazily, on the first
 * eigen-solve; fcd_finalize() finalizes it, after which fcd says so instead of
 * crashing. */
#include <fcd/fcd.h>
#include <petscsys.h>

#include "../fcdtest.h"

int main(void) {
  PetscBool up = PETSC_TRUE;
  PetscInitialized(&up);
  CHECK(up == PETSC_FALSE);
  fcd_system *sys;
  CHECK_ST(fcd_system_create(1, &sys), FCD_OK);
  const fcd_index z = 0;
  const double k = 4.0, m = 1.0;
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, 1, &z, &z, &k, 0), FCD_OK);
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_MASS, 1, &z, &z, &m, 0), FCD_OK);
  PetscInitialized(&up);
  CHECK(up == PETSC_FALSE); /* nothing started yet */
  double w2;
  fcd_index nc;
  CHECK_ST(fcd_system_natural_modes(sys, 1, &w2, NULL, &nc), FCD_OK);
  CHECK_CLOSE(w2, 4.0, 1e-12);
  PetscInitialized(&up);
  CHECK(up == PETSC_TRUE);
  fcd_finalize();
  PetscBool done = PETSC_FALSE;
  PetscFinalized(&done);
  CHECK(done == PETSC_TRUE);
  CHECK_ST(fcd_system_natural_modes(sys, 1, &w2, NULL, &nc), FCD_E_STATE);
  CHECK_MSG(sys, "finalized");
  fcd_finalize(); /* twice is harmless */
  fcd_system_destroy(sys);
  return fcdt_finish("test_petsc_owned");
}
