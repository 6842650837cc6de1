/* fcd_mesh_read: a mesh file told from its content, and a mesh's node labels and named
 * surfaces. */
#include "mesh_private.h"

#include <ctype.h>
#include <strings.h>
#include <string.h>

static int mesh_ok(const fcd_mesh *m) {
  return m && m->magic == FCD_MESH_MAGIC && fcd__system_valid(m->sys);
}

/* what a sniffer sees: the text, and p, its first character that is not blank */
typedef struct {
  const char *text, *p, *end;
} mhead;

static int sniff_vtk(const mhead *h) {
  return h->end - h->text >= 5 && strncmp(h->text, "# vtk", 5) == 0;
}
static int sniff_vtu(const mhead *h) {
  size_t n = (size_t)(h->end - h->p);
  return (n >= 5 && strncmp(h->p, "<?xml", 5) == 0) ||
         (n >= 8 && strncmp(h->p, "<VTKFile", 8) == 0);
}
static int sniff_gmsh(const mhead *h) {
  return h->end - h->p >= 11 && strncmp(h->p, "$MeshFormat", 11) == 0;
}
/* a first line that is a keyword or a comment */
static int sniff_abaqus(const mhead *h) { return h->end > h->p && *h->p == '*'; }

/* Nastran: executive control, comments and bulk data; a line of the first thousand that
 * starts a GRID card or the bulk data */
static int sniff_nastran(const mhead *h) {
  const char *q = h->p, *end = h->end;
  for (int line = 0; line < 1000 && q < end; line++) {
    if ((end - q >= 4 && strncasecmp(q, "GRID", 4) == 0 &&
         (end - q == 4 || q[4] == ' ' || q[4] == ',' || q[4] == '*' || q[4] == '\t')) ||
        (end - q >= 10 && strncasecmp(q, "BEGIN BULK", 10) == 0))
      return 1;
    const char *nl = memchr(q, '\n', (size_t)(end - q));
    if (!nl) break;
    q = nl + 1;
  }
  return 0;
}

static int always(const char *text, size_t len) {
  (void)text;
  (void)len;
  return 1;
}

/* The mesh formats (the registry, FCD_FAMILY_MESH_FORMAT): each row its name, how its
 * content is told (sniff, asked in the table's order), whether NUL bytes are data in it
 * (binary: NULL for text only) and its reader, into the common mesh source (read), or
 * of the whole text (parse, legacy VTK's own). A new format is a row here and its
 * reader's file (docs/architecture.md). */
typedef struct {
  fcd__named id;
  int (*sniff)(const mhead *h);
  int (*binary)(const char *text, size_t len);
  fcd_status (*read)(fcd__meshsrc *ms, const char *text, size_t len);
  fcd_status (*parse)(fcd_system *sys, int dim, const char *path, const char *text,
                      size_t len, fcd_mesh **out);
} mesh_format;

static const mesh_format mesh_formats[] = {
    {{FCD_MESH_VTK_LEGACY, "vtk", "legacy VTK, versions up to 5.1, ASCII or BINARY"},
     sniff_vtk, fcd__vtk_binary_header, NULL, fcd__mesh_parse_vtk},
    {{FCD_MESH_VTU, "vtu", "VTK XML unstructured grid (ascii, binary, appended, zlib)"},
     sniff_vtu, always, fcd__read_vtu, NULL},
    {{FCD_MESH_GMSH, "gmsh", "Gmsh MSH 2.2 or 4.1, ASCII or binary, with physical groups"},
     sniff_gmsh, always, fcd__read_gmsh, NULL},
    {{FCD_MESH_ABAQUS, "abaqus", "Abaqus input file without parts: nodes, elements, sets, "
      "surfaces"}, sniff_abaqus, NULL, fcd__read_inp, NULL},
    {{FCD_MESH_NASTRAN, "nastran", "Nastran bulk data: grids, elements, SET1, BSURF, BSURFS"},
     sniff_nastran, NULL, fcd__read_bulk, NULL},
};
#define NMESH_FORMATS ((int)(sizeof mesh_formats / sizeof mesh_formats[0]))

int fcd__mesh_format_registry(int k, fcd__named *out) {
  if (k < 0 || k >= NMESH_FORMATS) return 0;
  *out = mesh_formats[k].id;
  return 1;
}

/* the row of text's format; NULL when none */
static const mesh_format *detect(const char *text, size_t len) {
  mhead h = {text, text, text + len};
  while (h.p < h.end && (*h.p == ' ' || *h.p == '\t' || *h.p == '\r' || *h.p == '\n')) h.p++;
  for (int k = 0; k < NMESH_FORMATS; k++)
    if (mesh_formats[k].sniff(&h)) return &mesh_formats[k];
  return NULL;
}

static int binary_ok(const char *text, size_t len) {
  const mesh_format *f = detect(text, len);
  return f && f->binary && f->binary(text, len);
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
  const mesh_format *f = detect(text, len);
  if (!f) {
    fcd__free(text);
    return fcd__err(sys, FCD_E_FORMAT, "%s: not a mesh fcd reads (legacy VTK, VTK XML .vtu, "
                    "Gmsh .msh, Abaqus .inp, Nastran bulk data)", path);
  }
  fcd_status st;
  if (f->parse) {
    st = f->parse(sys, dim, path, text, len, out);
    fcd__free(text);
    if (st == FCD_OK) (*out)->format = f->id.value;
    return st;
  }
  fcd__meshsrc ms;
  fcd__ms_init(&ms, sys, path, dim, f->id.value);
  st = f->read(&ms, text, len);
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
