/* Meshes (vtk.c owns them) and the meshes of other codes (mesh_build.c gathers what a
 * reader, mesh_gmsh.c, mesh_inp.c, mesh_bulk.c, mesh_vtu.c, finds; vtk.c reads legacy
 * VTK itself). */
#ifndef FCD_LIB_MESH_PRIVATE_H
#define FCD_LIB_MESH_PRIVATE_H

#include "core.h"
#include "system_data.h"

#include <fcd/fcd_import.h>
#include <fcd/fcd_vtk.h>

#define FCD_MESH_MAGIC 0x66636d73u /* "fcms" */

/* a named surface: facets of 2 node indices (2D) or 4 (3D, -1 fourth for a triangle),
 * each oriented outward from the body that owns it */
typedef struct {
  char *name;
  fcd_index n;
  fcd_index *f;
} fcd__msurface;

struct fcd_mesh {
  uint32_t magic;
  fcd_system *sys; /* retained: messages go there */
  int dim;
  fcd_index nnodes, ndofs;
  fcd_real *coords;    /* dim per node */
  fcd_index *node_dofs; /* dim per node, -1: none */
  fcd_index ncells, conn_len, conn_cap, cells_cap;
  fcd_index *conn;     /* nodes of all cells */
  fcd_index *offset;   /* ncells + 1 */
  int *type;           /* ncells */
  int binary;          /* fcd_mesh_write_vtk writes BINARY legacy VTK */
  int64_t *label;      /* the file's node labels (NULL: the node's index) */
  fcd_index nsurf;
  fcd__msurface *surf;
  int format;          /* FCD_MESH_* it was read from */
};

/* nodes of a VTK cell type fcd_mesh takes, 0 for others */
int fcd__vtk_nodes_of(int vtk_type);
/* the mesh formats' registry (FCD_FAMILY_MESH_FORMAT): row k of mesh_read.c's table */
int fcd__mesh_format_registry(int k, fcd__named *out);

/* ---- what a reader gathers ---- */
enum { FCD__G_ELEMENTS = 0, FCD__G_FACES = 1, FCD__G_NODES = 2 };
typedef struct {
  char *name;
  int kind;
  fcd_index n, cap;
  int64_t *item;     /* element or node labels */
  signed char *face; /* FACES: the element's face (0-based, the S-numbering of Abaqus),
                      * -1: the face holding the three nodes of by3, -2: the element itself
                      * (a surface element) or, for a volume element, its faces on the
                      * mesh's boundary */
  int64_t *by3;      /* FACES: 3 node labels per entry (Nastran BSURFS) */
} fcd__mgroup;

typedef struct {
  fcd_system *sys;
  const char *path;
  int dim, format;
  fcd_index nn, ncap;
  int64_t *nlab;
  double *xyz; /* 3 per node */
  fcd_index ne, ecap, clen, ccap;
  int64_t *elab;
  int *etype;       /* VTK types, nodes in VTK's order */
  fcd_index *eoff;  /* ne + 1 */
  int64_t *econn;   /* node labels */
  int ng, gcap;
  fcd__mgroup *g;
  int skipped; /* elements of types passed over (masses, springs): sets may name them */
} fcd__meshsrc;

void fcd__ms_init(fcd__meshsrc *ms, fcd_system *sys, const char *path, int dim, int format);
void fcd__ms_free(fcd__meshsrc *ms);
/* 0 when out of memory */
int fcd__ms_node(fcd__meshsrc *ms, int64_t label, double x, double y, double z);
int fcd__ms_elem(fcd__meshsrc *ms, int64_t label, int vtk_type, const int64_t *nodes);
/* the group of that name and kind, made when new; NULL when out of memory */
fcd__mgroup *fcd__ms_group(fcd__meshsrc *ms, const char *name, int kind);
int fcd__ms_group_add(fcd__mgroup *g, int64_t item, int face, const int64_t *by3);
/* a quadratic element's nodes in VTK's order: the corners as they are, then the mid-edge
 * nodes of in, whose edges (by corners) a format lists in its own order; 0 when an edge
 * is not one of the type's */
int fcd__ms_reorder(int vtk_type, const signed char (*edges)[2], const int64_t *in,
                    int64_t *out);
/* the mesh: nodes by label, their dofs through the system's dof map (or node p owns
 * dim p .. when it has none), the cells, the groups made surfaces */
fcd_status fcd__ms_finish(fcd__meshsrc *ms, fcd_mesh **out);

/* legacy VTK (vtk.c): 1 when the header's third line says BINARY; a mesh of text, which
 * stays the caller's */
int fcd__vtk_binary_header(const char *text, size_t len);
fcd_status fcd__mesh_parse_vtk(fcd_system *sys, int dim, const char *path, const char *text,
                               size_t len, fcd_mesh **out);

fcd_status fcd__read_gmsh(fcd__meshsrc *ms, const char *text, size_t len);
fcd_status fcd__read_inp(fcd__meshsrc *ms, const char *text, size_t len);
fcd_status fcd__read_bulk(fcd__meshsrc *ms, const char *text, size_t len);
fcd_status fcd__read_vtu(fcd__meshsrc *ms, const char *text, size_t len);

#endif
