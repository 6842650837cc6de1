/* A copy of a mesh's node coordinates (vtk.c, which owns meshes): what a contact set
 * keeps of its surface pairs' mesh and an equilibrium of the host's, to name a
 * mechanism geometrically (mechanism.c). */
#ifndef FCD_GEOMETRY_H
#define FCD_GEOMETRY_H

#include "model.h"

/* Node coordinates of a host's mesh, copied (the mesh need not outlive it): dim per node,
 * the dof of each component (-1: none), and the connected component of each node through
 * the mesh's cells (a body; one body when the mesh has no cells). */
typedef struct fcd__geometry {
  int dim;
  fcd_index nn;
  fcd_real *x;
  fcd_index *dof;
  fcd_index *body;
} fcd__geometry;

/* a copy of the mesh's geometry; FCD_E_INVALID_ARG for an invalid mesh, FCD_E_NOMEM */
fcd_status fcd__geometry_from_mesh(const fcd_mesh *m, fcd__geometry **out);
void fcd__geometry_free(fcd__geometry *g);

#endif
