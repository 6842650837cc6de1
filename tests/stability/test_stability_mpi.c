/* The stability analysis under MPI (run with mpiexec -n 2): the host initializes MPI,
 * hands its communicator over as a Fortran handle, and every rank gets the eigenvalues
 * of the serial solve, to the solver tolerance. */
#include <fcd/fcd.h>

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "../fcdtest.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  /* a chain of nn nodes (T, N dofs), neighbours coupled, the first 12 on a flat */
  const int nn = 150, n = 2 * nn, nc = 12;
  fcd_system *sys;
  CHECK_ST(fcd_system_create(n, &sys), FCD_OK);
  fcd_index *r = malloc(sizeof *r * 8 * n), *c = malloc(sizeof *c * 8 * n);
  double *kv = malloc(sizeof *kv * 8 * n), *mv = malloc(sizeof *mv * 8 * n);
  int nz = 0;
  for (int i = 0; i < n; i++)
    for (int j = i; j < n && j <= i + 3; j++) {
      r[nz] = i;
      c[nz] = j;
      double a = sin(1.0 + i * 0.37 + j * 0.11);
      kv[nz] = i == j ? 4.0 + 0.5 * a : 0.4 * a;
      mv[nz++] = i == j ? 1.0 + 0.2 * a : (j == i + 1 ? 0.05 * a : 0.0);
    }
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, nz, r, c, kv, FCD_COO_UPPER), FCD_OK);
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_MASS, nz, r, c, mv, FCD_COO_UPPER), FCD_OK);
  fcd_contact_set *cs;
  CHECK_ST(fcd_contact_set_create(sys, 2, &cs), FCD_OK);
  int status[12];
  double slip[12];
  for (int k = 0; k < nc; k++) {
    const fcd_index d[2] = {2 * k, 2 * k + 1};
    const double nv[2] = {0, 1}, tv[2] = {1, 0};
    CHECK_ST(fcd_contact_set_add_rigid(cs, d, nv, tv, 0.0, 0.6, NULL), FCD_OK);
    status[k] = k % 3;
    slip[k] = k % 2 ? 1 : -1;
  }
  double re[2][16], im[2][16];
  fcd_index got[2];
  for (int pass = 0; pass < 2; pass++) {
    fcd_stability *st;
    CHECK_ST(fcd_stability_create(sys, cs, &st), FCD_OK);
    CHECK_ST(fcd_stability_set_contact_state(st, status, slip), FCD_OK);
    CHECK_ST(fcd_stability_set_param(st, FCD_STAB_DENSE_MAX, 0), FCD_OK);
    CHECK_ST(fcd_stability_set_param(st, FCD_STAB_NEV, 8), FCD_OK);
    CHECK_ST(fcd_stability_set_param(st, FCD_STAB_TARGET_HZ, 0.3), FCD_OK);
    CHECK_ST(fcd_stability_set_param(st, FCD_STAB_TOLERANCE, 1e-12), FCD_OK);
    if (pass == 1)
      CHECK_ST(fcd_stability_set_communicator(st, (int64_t)MPI_Comm_c2f(MPI_COMM_WORLD)), FCD_OK);
    CHECK_ST(fcd_stability_solve(st, &got[pass]), FCD_OK);
    for (fcd_index i = 0; i < got[pass] && i < 16; i++)
      fcd_stability_get_eigenvalue(st, i, &re[pass][i], &im[pass][i]);
    fcd_stability_destroy(st);
  }
  CHECK(got[0] == 16 && got[1] == 16);
  double worst = 0;
  for (int i = 0; i < 16; i++)
    worst = fmax(worst, hypot(re[0][i] - re[1][i], im[0][i] - im[1][i]) /
                            fmax(1.0, hypot(re[0][i], im[0][i])));
  CHECK(worst < 1e-8);
  fprintf(stderr, "rank %d of %d: largest difference serial / distributed %.2e\n", rank, size,
          worst);
  CHECK(size == 2); /* the test is meant for mpiexec -n 2 */
  /* every rank agrees */
  double w_all = 0;
  MPI_Allreduce(&worst, &w_all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  CHECK(w_all < 1e-8);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
  free(r);
  free(c);
  free(kv);
  free(mv);
  fcd_finalize();
  int rc = fcdt_finish("test_stability_mpi");
  MPI_Finalize();
  return rc;
}
