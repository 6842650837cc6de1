/* Matrix Market reader. Properties: the header query and the reader agree; a failure
 * leaves a message and no matrix; an accepted matrix survives a write and a re-read
 * bit for bit (as products with a fixed vector). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *p = fz_write(data, size, "in.mtx");
  fcd_index nr = 0, nc = 0, nnz = 0;
  char err[256] = "";
  fcd_status hs = fcd_matrix_market_size(p, &nr, &nc, &nnz, err, sizeof err);
  if (hs != FCD_OK) {
    fz_need_message(err, "fcd_matrix_market_size");
    nr = 7; /* the reader must refuse it too */
  } else if (nr != nc || nr > 4096) {
    return 0;
  }
  fcd_system *sys = NULL;
  if (fcd_system_create(nr, &sys) != FCD_OK) fz_fail("system_create", NULL);
  fcd_status st = fcd_system_read_matrix_market(sys, FCD_STIFFNESS, p);
  if (hs != FCD_OK && st == FCD_OK) fz_fail("the reader accepted what the header query refused", err);
  if (st != FCD_OK) {
    fz_need_message(fcd_system_last_error(sys), "fcd_system_read_matrix_market");
    if (fcd_system_has_matrix(sys, FCD_STIFFNESS)) fz_fail("a failed read left a matrix", NULL);
    fcd_system_destroy(sys);
    return 0;
  }
  const char *q = fz_path("out.mtx");
  if (fcd_system_write_matrix_market(sys, FCD_STIFFNESS, q) != FCD_OK)
    fz_fail("writing an accepted matrix", fcd_system_last_error(sys));
  fcd_system *sys2 = NULL;
  fcd_system_create(nr, &sys2);
  if (fcd_system_read_matrix_market(sys2, FCD_STIFFNESS, q) != FCD_OK)
    fz_fail("re-reading fcd's own output", fcd_system_last_error(sys2));
  double *x = malloc((size_t)nr * sizeof *x), *y1 = malloc((size_t)nr * sizeof *y1),
         *y2 = malloc((size_t)nr * sizeof *y2);
  for (fcd_index i = 0; i < nr; i++) x[i] = 1.0 + 0.001 * (double)i;
  fcd_system_apply(sys, FCD_STIFFNESS, x, y1);
  fcd_system_apply(sys2, FCD_STIFFNESS, x, y2);
  for (fcd_index i = 0; i < nr; i++)
    if (!(y1[i] == y2[i]) && !(isnan(y1[i]) && isnan(y2[i])))
      fz_fail("write + read changed the matrix", NULL);
  free(x);
  free(y1);
  free(y2);
  remove(q);
  fcd_system_destroy(sys2);
  fcd_system_destroy(sys);
  return 0;
}
