/* The readers of other programs' meshes (fcd_mesh_read: Gmsh, Abaqus, Nastran, VTK XML
 * and legacy, told from the content). The system has a dof map (labels 0..63, dofs 1..3)
 * so that any node count reaches the surfaces. Properties: a failure leaves a message and
 * no mesh; an accepted mesh has cells whose nodes are in range and offsets that grow, and
 * surfaces whose facets name nodes of the mesh (or -1 as a triangle's fourth). */
#include "fuzz_common.h"

static fcd_system *make_system(void) {
  fcd_dofmap *map = NULL;
  fcd_system *sys = NULL;
  if (fcd_dofmap_create(&map) != FCD_OK) abort();
  for (int l = 0; l < 64; l++)
    for (int d = 1; d <= 3; d++)
      if (fcd_dofmap_add(map, l, d) != FCD_OK) abort();
  if (fcd_system_create(fcd_dofmap_size(map), &sys) != FCD_OK) abort();
  if (fcd_system_set_dofmap(sys, map) != FCD_OK) abort();
  fcd_dofmap_destroy(map);
  return sys;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *p = fz_write(data, size, "in.mesh");
  fcd_system *sys = make_system();
  for (int dim = 2; dim <= 3; dim++) {
    fcd_mesh *m = NULL;
    fcd_status st = fcd_mesh_read(sys, dim, p, &m);
    if (st != FCD_OK) {
      fz_need_message(fcd_system_last_error(sys), "fcd_mesh_read");
      if (m) fz_fail("a failed read returned a mesh", NULL);
      continue;
    }
    fcd_index nn = fcd_mesh_node_count(m), nc = 0;
    const fcd_index *off = NULL, *nodes = NULL;
    const int *types;
    if (nn < 0 || fcd_mesh_get_cells(m, &nc, &off, &nodes, &types) != FCD_OK) fz_fail("cells", NULL);
    for (fcd_index c = 0; c < nc; c++) {
      if (off[c + 1] <= off[c]) fz_fail("offsets do not grow", NULL);
      for (fcd_index k = off[c]; k < off[c + 1]; k++)
        if (nodes[k] < 0 || nodes[k] >= nn) fz_fail("a cell's node out of range", NULL);
    }
    fcd_index ns = fcd_mesh_surface_count(m);
    for (fcd_index s = 0; s < ns; s++) {
      const char *name = fcd_mesh_surface_name(m, s);
      fcd_index nf = 0;
      const fcd_index *f = NULL;
      if (!name || fcd_mesh_get_surface(m, name, &nf, &f) != FCD_OK) fz_fail("surface", name);
      int per = dim == 3 ? 4 : 2;
      for (fcd_index k = 0; k < nf * per; k++)
        if (f[k] < -1 || f[k] >= nn || (f[k] < 0 && (dim == 2 || k % 4 != 3)))
          fz_fail("a facet's node out of range", name);
    }
    fcd_mesh_destroy(m);
  }
  fcd_system_destroy(sys);
  return 0;
}
