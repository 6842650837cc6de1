/* The readers of other codes' matrix files (fcd_matrix_file_read: Harwell-Boeing,
 * Rutherford-Boeing, Abaqus matrix and coordinate output, told from the content).
 * Properties: a failure leaves a message and no matrix; an accepted matrix has finite
 * entries and sane counts, and an indexed square one of moderate order goes onto a
 * system, a labelled one through its own dof map, whose size is its pairs'. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *p = fz_write(data, size, "in.mat");
  fcd_matrix_file *m = NULL;
  char err[512] = "";
  fcd_status st = fcd_matrix_file_read(p, FCD_MATRIX_FORMAT_AUTO, &m, err, sizeof err);
  if (st != FCD_OK) {
    fz_need_message(err, "fcd_matrix_file_read");
    if (m) fz_fail("a failed read returned a matrix", err);
    return 0;
  }
  fcd_matrix_file_info in = {.struct_size = sizeof in};
  if (fcd_matrix_file_get_info(m, &in) != FCD_OK) fz_fail("get_info", NULL);
  if (in.nnz < 0 || in.nrows < 0 || in.ncols < 0) fz_fail("negative counts", NULL);
  if (in.labelled) {
    fcd_dofmap *map = NULL;
    if (fcd_dofmap_create(&map) != FCD_OK || fcd_dofmap_add_matrix(map, m) != FCD_OK)
      fz_fail("dof map of an accepted labelled matrix", NULL);
    fcd_index n = fcd_dofmap_size(map);
    if (n < in.nrows || n < in.ncols) fz_fail("the map holds fewer pairs than the matrix", NULL);
    if (n <= 4096) {
      fcd_system *sys = NULL;
      if (fcd_system_create(n, &sys) != FCD_OK) fz_fail("system_create", NULL);
      st = fcd_system_set_matrix_file(sys, FCD_STIFFNESS, m, map);
      if (st != FCD_OK) fz_need_message(fcd_system_last_error(sys), "set_matrix_file");
      fcd_system_destroy(sys);
    }
    fcd_dofmap_destroy(map);
  } else if (in.nrows == in.ncols && in.nrows > 0 && in.nrows <= 4096) {
    fcd_system *sys = NULL;
    if (fcd_system_create(in.nrows, &sys) != FCD_OK) fz_fail("system_create", NULL);
    st = fcd_system_set_matrix_file(sys, FCD_STIFFNESS, m, NULL);
    if (st != FCD_OK) fz_need_message(fcd_system_last_error(sys), "set_matrix_file");
    fcd_system_destroy(sys);
  }
  fcd_matrix_file_destroy(m);
  return 0;
}
