/* fcd_mesh_read: a mesh file told from its content, and a mesh's node labels and named
 * surfaces. */
#include "mesh_private.h"

#include <ctype.h>
#include <strings.h>
#include <string.h>

static int mesh_ok(const fcd_mesh *m) {
  return m && m->magic == FCD_MESH_MAGIC && fcd__system_valid(m->sys);
}

/* the format of text: Gmsh, legacy VTK, VTK XML, Abaqus (a first line that is a keyword
 * or a comment), Nastran (GRID or BEGIN BULK at a line's start, or a '$' comment first);
 * 0 when none */
static int detect(const char *text, size_t len) {
  const char *p = text, *end = text + len;
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) p++;
  size_t n = (size_t)(end - p);
  if (n >= 11 && strncmp(p, "$MeshFormat", 11) == 0) return FCD_MESH_GMSH;
  if (len >= 5 && strncmp(text, "# vtk", 5) == 0) return FCD_MESH_VTK_LEGACY;
  if ((n >= 5 && strncmp(p, "<?xml", 5) == 0) || (n >= 8 && strncmp(p, "<VTKFile", 8) == 0))
    return FCD_MESH_VTU;
  if (n >= 1 && *p == '*') return FCD_MESH_ABAQUS;
  /* Nastran: executive control, comments and bulk data; a line of the first thousand
   * that starts a GRID card or the bulk data */
  const char *q = p;
  for (int line = 0; line < 1000 && q < end; line++) {
    if ((end - q >= 4 && strncasecmp(q, "GRID", 4) == 0 &&
         (end - q == 4 || q[4] == ' ' || q[4] == ',' || q[4] == '*' || q[4] == '\t')) ||
        (end - q >= 10 && strncasecmp(q, "BEGIN BULK", 10) == 0))
      return FCD_MESH_NASTRAN;
    const char *nl = memchr(q, '\n', (size_t)(end - q));
    if (!nl) break;
    q = nl + 1;
  }
  return 0;
}

/* NUL bytes are data in the formats that have binary forms, when the header says so */
static int binary_ok(const char *text, size_t len) {
  int fmt = detect(text, len);
  return fmt == FCD_MESH_GMSH || fmt == FCD_MESH_VTU ||
         (fmt == FCD_MESH_VTK_LEGACY && fcd__vtk_binary_header(text, len));
}

fcd_status fcd_mesh_read(const fcd_system *csys, int dim, const char *path, fcd_mesh **out) {
  if (!out) return FCD_E_INVALID_ARG;
  *out = NULL;
  FCD_CHECK_SYS(csys);
  fcd_system *sys = (fcd_system *)(uintptr_t)csys;
  if (dim != 2 && dim != 3)
    return fcd__err(sys, FCD_E_INVALID_ARG, "mesh_read: dim must be 2 or 3, not %d", dim);
  if (!path) return fcd__err(sys, FCD_E_INVALID_ARG, "mesh_read: path is NULL");
  char *text = NULL;
  size_t len = 0;
  FCD_TRY(fcd__read_file(sys, path, &text, &len, binary_ok));
  int fmt = detect(text, len);
  if (fmt == FCD_MESH_VTK_LEGACY) {
    fcd_status st = fcd__mesh_parse_vtk(sys, dim, path, text, len, out);
    fcd__free(text);
    if (st == FCD_OK) (*out)->format = FCD_MESH_VTK_LEGACY;
    return st;
  }
  if (!fmt) {
    fcd__free(text);
    return fcd__err(sys, FCD_E_FORMAT, "%s: not a mesh fcd reads (legacy VTK, VTK XML .vtu, "
                    "Gmsh .msh, Abaqus .inp, Nastran bulk data)", path);
  }
  fcd__meshsrc ms;
  fcd__ms_init(&ms, sys, path, dim, fmt);
  fcd_status st = fmt == FCD_MESH_GMSH      ? fcd__read_gmsh(&ms, text, len)
                  : fmt == FCD_MESH_ABAQUS  ? fcd__read_inp(&ms, text, len)
                  : fmt == FCD_MESH_NASTRAN ? fcd__read_bulk(&ms, text, len)
                                            : fcd__read_vtu(&ms, text, len);
  fcd__free(text);
  if (st == FCD_OK) st = fcd__ms_finish(&ms, out);
  fcd__ms_free(&ms);
  return st;
}

fcd_index fcd_mesh_node_count(const fcd_mesh *m) { return mesh_ok(m) ? m->nnodes : -1; }

fcd_status fcd_mesh_get_node_label(const fcd_mesh *m, fcd_index node, int64_t *label) {
  if (!mesh_ok(m) || !label) return FCD_E_INVALID_ARG;
  if (node < 0 || node >= m->nnodes)
    return fcd__err(m->sys, FCD_E_INVALID_ARG, "mesh_get_node_label: node %lld outside "
                    "[0, %lld)", (long long)node, (long long)m->nnodes);
  *label = m->label ? m->label[node] : node;
  return FCD_OK;
}

fcd_status fcd_mesh_get_coords(const fcd_mesh *m, const fcd_real **coords) {
  if (!mesh_ok(m) || !coords) return FCD_E_INVALID_ARG;
  *coords = m->coords;
  return FCD_OK;
}

fcd_status fcd_mesh_get_cells(const fcd_mesh *m, fcd_index *ncells, const fcd_index **offsets,
                              const fcd_index **nodes, const int **types) {
  if (!mesh_ok(m) || !ncells || !offsets || !nodes || !types) return FCD_E_INVALID_ARG;
  *ncells = m->ncells;
  *offsets = m->offset;
  *nodes = m->conn;
  *types = m->type;
  return FCD_OK;
}

int fcd_mesh_get_format(const fcd_mesh *m) { return mesh_ok(m) ? m->format : -1; }

/* The mesh formats, the one table of their names (the registry, FCD_FAMILY_MESH_FORMAT):
 * a new format is a row here, its enumerator in fcd/fcd_vtk.h, its test in detect and
 * its reader's case in fcd_mesh_read. */
static const fcd__named mesh_formats[] = {
    {FCD_MESH_VTK_LEGACY, "vtk", "legacy VTK, versions up to 5.1, ASCII or BINARY"},
    {FCD_MESH_VTU, "vtu", "VTK XML unstructured grid (ascii, binary, appended, zlib)"},
    {FCD_MESH_GMSH, "gmsh", "Gmsh MSH 2.2 or 4.1, ASCII or binary, with physical groups"},
    {FCD_MESH_ABAQUS, "abaqus", "Abaqus input file without parts: nodes, elements, sets, surfaces"},
    {FCD_MESH_NASTRAN, "nastran", "Nastran bulk data: grids, elements, SET1, BSURF, BSURFS"},
};

int fcd__mesh_format_registry(int k, fcd__named *out) {
  if (k < 0 || k >= (int)(sizeof mesh_formats / sizeof mesh_formats[0])) return 0;
  *out = mesh_formats[k];
  return 1;
}

fcd_index fcd_mesh_surface_count(const fcd_mesh *m) { return mesh_ok(m) ? m->nsurf : -1; }

const char *fcd_mesh_surface_name(const fcd_mesh *m, fcd_index k) {
  return mesh_ok(m) && k >= 0 && k < m->nsurf ? m->surf[k].name : NULL;
}

fcd_status fcd_mesh_get_surface(const fcd_mesh *m, const char *name, fcd_index *nfacets,
                                const fcd_index **facets) {
  if (!mesh_ok(m) || !name || !nfacets || !facets) return FCD_E_INVALID_ARG;
  *nfacets = 0;
  *facets = NULL;
  const fcd__msurface *hit = NULL;
  for (fcd_index k = 0; k < m->nsurf && !hit; k++)
    if (strcmp(m->surf[k].name, name) == 0) hit = &m->surf[k];
  for (fcd_index k = 0; k < m->nsurf && !hit; k++) /* Abaqus folds names to upper case */
    if (strcasecmp(m->surf[k].name, name) == 0) hit = &m->surf[k];
  if (!hit) {
    char list[512];
    size_t at = 0;
    list[0] = 0;
    for (fcd_index k = 0; k < m->nsurf && at + 4 < sizeof list; k++) {
      int w = snprintf(list + at, sizeof list - at, "%s%s", k ? ", " : "", m->surf[k].name);
      if (w < 0) break;
      at += (size_t)w < sizeof list - at ? (size_t)w : sizeof list - at - 1;
    }
    return fcd__err(m->sys, FCD_E_INVALID_ARG, "the mesh has no surface named '%s' (%s%s)",
                    name, m->nsurf ? "it has: " : "it names no surface",
                    m->nsurf ? list : "");
  }
  *nfacets = hit->n;
  *facets = hit->f;
  return FCD_OK;
}
