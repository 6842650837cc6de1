/* Legacy VTK mesh reader, in 2D on a 6-dof system and in 3D on a 9-dof one (three
 * nodes). Properties: a failure leaves a message and no mesh; an accepted mesh writes,
 * and the written file reads back and writes again to the same bytes. */
#include <fcd/fcd_vtk.h>

#include "fuzz_common.h"

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *buf = malloc(1 << 20);
  *len = buf ? fread(buf, 1, 1 << 20, f) : 0;
  fclose(f);
  return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *p = fz_write(data, size, "in.vtk");
  for (int dim = 2; dim <= 3; dim++) {
    fcd_system *sys = NULL;
    fcd_system_create(3 * dim, &sys);
    fcd_mesh *m = (fcd_mesh *)&sys; /* poison: must be reset */
    fcd_status st = fcd_mesh_read_vtk(sys, dim, p, &m);
    if (st != FCD_OK) {
      fz_need_message(fcd_system_last_error(sys), "fcd_mesh_read_vtk");
      if (m != NULL) fz_fail("a failed read returned a mesh", NULL);
      fcd_system_destroy(sys);
      continue;
    }
    const char *q1 = fz_path("out1.vtk"), *q2 = fz_path("out2.vtk");
    if (fcd_mesh_write_vtk(m, q1, 0, NULL, NULL, NULL, NULL) != FCD_OK)
      fz_fail("writing an accepted mesh", fcd_system_last_error(sys));
    fcd_mesh *m2 = NULL;
    if (fcd_mesh_read_vtk(sys, dim, q1, &m2) != FCD_OK)
      fz_fail("re-reading fcd's own output", fcd_system_last_error(sys));
    if (fcd_mesh_write_vtk(m2, q2, 0, NULL, NULL, NULL, NULL) != FCD_OK)
      fz_fail("writing the re-read mesh", fcd_system_last_error(sys));
    size_t l1 = 0, l2 = 0;
    char *a = slurp(q1, &l1), *b = slurp(q2, &l2);
    if (!a || !b || l1 != l2 || memcmp(a, b, l1) != 0) fz_fail("write + read changed the mesh", NULL);
    free(a);
    free(b);
    remove(q1);
    remove(q2);
    fcd_mesh_destroy(m2);
    fcd_mesh_destroy(m);
    fcd_system_destroy(sys);
  }
  return 0;
}
