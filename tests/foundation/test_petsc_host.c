/* PETSc ownership when the host initialized PETSc itself: fcd uses it, leaves the
 * host's options and error handling alone, and fcd_finalize() does not finalize it. */
#include <fcd/fcd.h>
#include <slepcsys.h>

#include "../fcdtest.h"

static fcd_system *tiny(void) {
  /* two masses, three springs: K = [2 -1; -1 2], M = I -> omega^2 = 1 and 3 */
  fcd_system *sys;
  fcd_system_create(2, &sys);
  const fcd_index r[3] = {0, 0, 1}, c[3] = {0, 1, 1}, d[2] = {0, 1};
  const double k[3] = {2, -1, 2}, m[2] = {1, 1};
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, 3, r, c, k, FCD_COO_UPPER), FCD_OK);
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_MASS, 2, d, d, m, FCD_COO_UPPER), FCD_OK);
  return sys;
}

int main(int argc, char **argv) {
  CHECK(PetscInitialize(&argc, &argv, NULL, NULL) == 0);
  CHECK(PetscOptionsSetValue(NULL, "-host_marker", "42") == 0);
  fcd_system *sys = tiny();
  double w2[2];
  fcd_index nc;
  CHECK_ST(fcd_system_natural_modes(sys, 2, w2, NULL, &nc), FCD_OK);
  CHECK(nc == 2);
  CHECK_CLOSE(w2[0], 1.0, 1e-10);
  CHECK_CLOSE(w2[1], 3.0, 1e-10);
  fcd_finalize(); /* fcd started SLEPc only: PETSc stays up */
  PetscBool up = PETSC_FALSE, has = PETSC_FALSE;
  PetscInitialized(&up);
  CHECK(up == PETSC_TRUE);
  PetscOptionsHasName(NULL, NULL, "-host_marker", &has);
  CHECK(has == PETSC_TRUE);
  /* fcd can still work: it restarts SLEPc on the host's PETSc */
  CHECK_ST(fcd_system_natural_modes(sys, 1, w2, NULL, &nc), FCD_OK);
  CHECK_CLOSE(w2[0], 1.0, 1e-10);
  fcd_system_destroy(sys);
  fcd_finalize();
  PetscInitialized(&up);
  CHECK(up == PETSC_TRUE);
  int rc = fcdt_finish("test_petsc_host");
  PetscFinalize();
  return rc;
}
