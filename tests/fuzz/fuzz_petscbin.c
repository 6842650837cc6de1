/* PETSc binary matrix reader on a 5-dof system. Properties: a failure leaves a message
 * and no matrix; an accepted matrix survives a write and a re-read bit for bit (as
 * products with a fixed vector). */
#include "fuzz_common.h"

enum { N = 5 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *p = fz_write(data, size, "in.petsc");
  fcd_system *sys = NULL;
  fcd_system_create(N, &sys);
  fcd_status st = fcd_system_read_petsc_binary(sys, FCD_STIFFNESS, p);
  if (st != FCD_OK) {
    fz_need_message(fcd_system_last_error(sys), "fcd_system_read_petsc_binary");
    if (fcd_system_has_matrix(sys, FCD_STIFFNESS)) fz_fail("a failed read left a matrix", NULL);
    fcd_system_destroy(sys);
    return 0;
  }
  const char *q = fz_path("out.petsc");
  if (fcd_system_write_petsc_binary(sys, FCD_STIFFNESS, q) != FCD_OK)
    fz_fail("writing an accepted matrix", fcd_system_last_error(sys));
  fcd_system *sys2 = NULL;
  fcd_system_create(N, &sys2);
  if (fcd_system_read_petsc_binary(sys2, FCD_STIFFNESS, q) != FCD_OK)
    fz_fail("re-reading fcd's own output", fcd_system_last_error(sys2));
  double x[N], y1[N], y2[N];
  for (int i = 0; i < N; i++) x[i] = 1.0 + 0.001 * i;
  fcd_system_apply(sys, FCD_STIFFNESS, x, y1);
  fcd_system_apply(sys2, FCD_STIFFNESS, x, y2);
  for (int i = 0; i < N; i++)
    if (!(y1[i] == y2[i]) && !(isnan(y1[i]) && isnan(y2[i])))
      fz_fail("write + read changed the matrix", NULL);
  remove(q);
  fcd_system_destroy(sys2);
  fcd_system_destroy(sys);
  return 0;
}
