/* Issue 19, defect 1: the first PETSc call of a host that has not started MPI makes fcd
 * start it, as a singleton. Open MPI 4 forks its daemon through ssh/rsh, and with neither
 * on PATH MPI_Init aborted the host's process. The suite runs this program with PATH
 * pointing at an empty directory: before the fix it died in MPI_Init (no status, no
 * message); now the sparse eigen-solve runs and the host continues. The closed form:
 * K = diag(1, 4), M = I, undamped: Lambda = 1 and 4, lambda = +-i and +-2i. */
#include <fcd/fcd.h>

#include <stdlib.h>

#include "../fcdtest.h"

int main(void) {
  const char *path = getenv("PATH");
  /* the point of the test is a PATH without a remote launcher */
  CHECK(path && strstr(path, "/usr/bin") == NULL && strstr(path, "/bin") == NULL);
  fcd_system *sys;
  CHECK_ST(fcd_system_create(2, &sys), FCD_OK);
  const fcd_index r[2] = {0, 1}, c[2] = {0, 1};
  const double k[2] = {1, 4}, m[2] = {1, 1};
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, 2, r, c, k, FCD_COO_UPPER), FCD_OK);
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_MASS, 2, r, c, m, FCD_COO_UPPER), FCD_OK);
  fcd_stability *st;
  CHECK_ST(fcd_stability_create(sys, NULL, &st), FCD_OK);
  CHECK_ST(fcd_stability_set_param(st, FCD_STAB_DENSE_MAX, 0), FCD_OK); /* SLEPc */
  CHECK_ST(fcd_stability_set_param(st, FCD_STAB_NEV, 2), FCD_OK);
  fcd_index n = 0;
  CHECK_ST(fcd_stability_solve(st, &n), FCD_OK);
  CHECK(n == 4);
  double worst = 0;
  for (fcd_index i = 0; i < n; i++) {
    double re, im;
    CHECK_ST(fcd_stability_get_eigenvalue(st, i, &re, &im), FCD_OK);
    worst = fmax(worst, fmin(hypot(re, fabs(im) - 1), hypot(re, fabs(im) - 2)));
  }
  CHECK(worst < 1e-9);
  fcd_stability_destroy(st);
  fcd_system_destroy(sys);
  fcd_finalize();
  return fcdt_finish("mpi_singleton");
}
