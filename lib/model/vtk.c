/* Legacy VTK output (version 3.0, ASCII unstructured grid) of fields over a system's
 * dofs on the host's mesh. ASCII legacy VTK is what every VTK reader (ParaView, VisIt,
 * VTK's Python module) opens without options; a mesh of a few hundred thousand nodes
 * stays a few tens of MB. */
#include "model.h"
#include "geometry.h"
#include "mesh_private.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* fcd.h includes fcd_vtk.h */

/* struct fcd_mesh: mesh_private.h */

static int mesh_valid(const fcd_mesh *m) {
  return m && m->magic == FCD_MESH_MAGIC && fcd__system_valid(m->sys);
}

int fcd__mesh_geometry(const fcd_mesh *m, const fcd_system **sys, int *dim, fcd_index *nnodes,
                       const fcd_real **coords, const fcd_index **node_dofs) {
  if (!mesh_valid(m)) return 0;
  *sys = m->sys;
  *dim = m->dim;
  *nnodes = m->nnodes;
  *coords = m->coords;
  *node_dofs = m->node_dofs;
  return 1;
}

int fcd__mesh_cells(const fcd_mesh *m, fcd_index *ncells, const fcd_index **offset,
                    const fcd_index **conn) {
  if (!mesh_valid(m)) return 0;
  *ncells = m->ncells;
  *offset = m->offset;
  *conn = m->conn;
  return 1;
}

const int *fcd__mesh_types(const fcd_mesh *m) { return mesh_valid(m) ? m->type : NULL; }

int fcd__vtk_nodes_of(int vtk_type) {
  switch (vtk_type) {
  case FCD_VTK_VERTEX: return 1;
  case FCD_VTK_LINE: return 2;
  case FCD_VTK_TRIANGLE: return 3;
  case FCD_VTK_QUAD:
  case FCD_VTK_TETRA: return 4;
  case FCD_VTK_WEDGE: return 6;
  case FCD_VTK_PYRAMID: return 5;
  case FCD_VTK_HEXAHEDRON: return 8;
  case FCD_VTK_QUADRATIC_EDGE: return 3;
  case FCD_VTK_QUADRATIC_TRIANGLE: return 6;
  case FCD_VTK_QUADRATIC_QUAD: return 8;
  case FCD_VTK_QUADRATIC_TETRA: return 10;
  case FCD_VTK_QUADRATIC_HEXAHEDRON: return 20;
  case FCD_VTK_QUADRATIC_WEDGE: return 15;
  case FCD_VTK_QUADRATIC_PYRAMID: return 13;
  default: return 0;
  }
}
#define nodes_of fcd__vtk_nodes_of

/* the linear type of a quadratic one (its corners come first in VTK's order) */
static int linear_of(int vtk_type) {
  switch (vtk_type) {
  case FCD_VTK_QUADRATIC_EDGE: return FCD_VTK_LINE;
  case FCD_VTK_QUADRATIC_TRIANGLE: return FCD_VTK_TRIANGLE;
  case FCD_VTK_QUADRATIC_QUAD: return FCD_VTK_QUAD;
  case FCD_VTK_QUADRATIC_TETRA: return FCD_VTK_TETRA;
  case FCD_VTK_QUADRATIC_HEXAHEDRON: return FCD_VTK_HEXAHEDRON;
  case FCD_VTK_QUADRATIC_WEDGE: return FCD_VTK_WEDGE;
  case FCD_VTK_QUADRATIC_PYRAMID: return FCD_VTK_PYRAMID;
  default: return vtk_type;
  }
}

fcd_status fcd_mesh_create(const fcd_system *csys, int dim, fcd_index nnodes,
                           const fcd_real *coords, const fcd_index *node_dofs, fcd_mesh **out) {
  if (!out) return FCD_E_INVALID_ARG;
  *out = NULL;
  FCD_CHECK_SYS(csys);
  /* the mesh keeps the system alive and reports on it; neither changes the model */
  fcd_system *sys = (fcd_system *)(uintptr_t)csys;
  if (dim != 2 && dim != 3)
    return fcd__err(sys, FCD_E_INVALID_ARG, "mesh_create: dim must be 2 or 3, not %d", dim);
  if (nnodes < 0)
    return fcd__err(sys, FCD_E_INVALID_ARG, "mesh_create: negative node count %lld",
                    (long long)nnodes);
  /* nnodes dim below is computed in fcd_index: 2^62 nodes in 3D wrapped negative and the
   * message printed the wrapped count */
  if (nnodes > INT64_MAX / 3)
    return fcd__err(sys, FCD_E_INVALID_ARG, "mesh_create: %lld nodes: their %d coordinates "
                    "each exceed what can be addressed", (long long)nnodes, dim);
  if (!coords)
    return fcd__err(sys, FCD_E_INVALID_ARG, "mesh_create: coords is NULL: VTK output needs "
                    "the node coordinates of the host's mesh");
  if (!node_dofs && nnodes * dim != sys->n)
    return fcd__err(sys, FCD_E_INVALID_ARG, "mesh_create: without node_dofs, %lld nodes in "
                    "%dD need %lld dofs, the system has %lld", (long long)nnodes, dim,
                    (long long)(nnodes * dim), (long long)sys->n);
  for (fcd_index k = 0; k < nnodes * dim; k++) {
    if (!isfinite(coords[k]))
      return fcd__err(sys, FCD_E_INVALID_ARG, "mesh_create: coordinate %lld of node %lld is "
                      "not finite", (long long)(k % dim), (long long)(k / dim));
    if (node_dofs && (node_dofs[k] < -1 || node_dofs[k] >= sys->n))
      return fcd__err(sys, FCD_E_INVALID_ARG, "mesh_create: node %lld component %lld has dof "
                      "%lld, outside [-1, %lld)", (long long)(k / dim), (long long)(k % dim),
                      (long long)node_dofs[k], (long long)sys->n);
  }
  fcd_mesh *m = fcd__calloc(1, sizeof *m);
  if (m) {
    m->coords = fcd__malloc_array((size_t)(nnodes * dim) + 1, sizeof *m->coords);
    m->node_dofs = fcd__malloc_array((size_t)(nnodes * dim) + 1, sizeof *m->node_dofs);
    m->offset = fcd__calloc(1, sizeof *m->offset);
  }
  if (!m || !m->coords || !m->node_dofs || !m->offset) {
    if (m) {
      fcd__free(m->coords);
      fcd__free(m->node_dofs);
      fcd__free(m->offset);
    }
    fcd__free(m);
    return fcd__err(sys, FCD_E_NOMEM, "out of memory creating a mesh of %lld nodes",
                    (long long)nnodes);
  }
  memcpy(m->coords, coords, (size_t)(nnodes * dim) * sizeof *coords);
  for (fcd_index k = 0; k < nnodes * dim; k++) m->node_dofs[k] = node_dofs ? node_dofs[k] : k;
  m->sys = sys;
  m->dim = dim;
  m->nnodes = nnodes;
  m->ndofs = sys->n;
  m->magic = FCD_MESH_MAGIC;
  fcd__system_retain(sys);
  *out = m;
  return FCD_OK;
}

void fcd_mesh_destroy(fcd_mesh *m) {
  if (!m || m->magic != FCD_MESH_MAGIC) return;
  fcd_system *sys = m->sys;
  fcd__free(m->coords);
  fcd__free(m->node_dofs);
  fcd__free(m->conn);
  fcd__free(m->offset);
  fcd__free(m->type);
  fcd__free(m->label);
  for (fcd_index k = 0; k < m->nsurf; k++) {
    fcd__free(m->surf[k].name);
    fcd__free(m->surf[k].f);
  }
  fcd__free(m->surf);
  m->magic = 0;
  fcd__free(m);
  fcd__system_release(sys);
}

/* Node p's coordinates as 3 entries (z = 0 in 2D). */
static void node_xyz(const fcd_mesh *m, fcd_index p, fcd_real *x) {
  for (int a = 0; a < 3; a++) x[a] = a < m->dim ? m->coords[p * m->dim + a] : 0.0;
}

/* det(b - a, c - a, d - a) */
static fcd_real tet_det(const fcd_real *a, const fcd_real *b, const fcd_real *c,
                        const fcd_real *d) {
  fcd_real u[3], v[3], w[3];
  for (int k = 0; k < 3; k++) {
    u[k] = b[k] - a[k];
    v[k] = c[k] - a[k];
    w[k] = d[k] - a[k];
  }
  return u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) +
         u[2] * (v[0] * w[1] - v[1] * w[0]);
}

/* |(b - a) x (c - a)| and, in the xy plane, its signed z */
static fcd_real tri_area2(const fcd_real *a, const fcd_real *b, const fcd_real *c,
                          fcd_real *z) {
  fcd_real u[3], v[3], n[3];
  for (int k = 0; k < 3; k++) {
    u[k] = b[k] - a[k];
    v[k] = c[k] - a[k];
  }
  n[0] = u[1] * v[2] - u[2] * v[1];
  n[1] = u[2] * v[0] - u[0] * v[2];
  n[2] = u[0] * v[1] - u[1] * v[0];
  *z = n[2];
  return sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
}

/* Whether cell nd (per nodes of vtk_type) has a measure: 0 it has; 1 degenerate (a node
 * twice, or a length, area or volume within 1e-12 of its size's); 2 inverted, against
 * VTK's orientation where a sign is defined for the mesh's dimension (2D triangles and
 * quadrilaterals counter-clockwise; tetrahedra with (0,1,2) turning towards node 3;
 * hexahedra with every corner's edges right-handed). *what receives the measure. Wedges
 * and 3D surface cells are checked for degeneracy only: their sign depends on a
 * convention hosts do not share. */
static int cell_measure(const fcd_mesh *m, int vtk_type, int per, const fcd_index *nd,
                        fcd_real *what) {
  fcd_real x[8][3], h = 0;
  *what = 0;
  for (int i = 0; i < per; i++) {
    for (int j = 0; j < i; j++)
      if (nd[i] == nd[j]) return 1;
    node_xyz(m, nd[i], x[i]);
  }
  for (int i = 0; i < per; i++)
    for (int j = 0; j < i; j++) {
      fcd_real d = 0;
      for (int k = 0; k < 3; k++) d += (x[i][k] - x[j][k]) * (x[i][k] - x[j][k]);
      h = fmax(h, sqrt(d));
    }
  if (per == 1) return 0;
  if (!(h > 0)) return 1;
  const fcd_real eps = 1e-12;
  fcd_real z;
  switch (vtk_type) {
  case FCD_VTK_LINE: *what = h; return 0;
  case FCD_VTK_TRIANGLE: {
    fcd_real a = tri_area2(x[0], x[1], x[2], &z);
    *what = (m->dim == 2 ? z : a) / 2;
    if (!(a > eps * h * h)) return 1;
    return m->dim == 2 && z < 0 ? 2 : 0;
  }
  case FCD_VTK_QUAD: {
    /* each corner's two edges: their cross product is the bilinear map's Jacobian there */
    int neg = 0;
    for (int c = 0; c < 4; c++) {
      fcd_real a = tri_area2(x[c], x[(c + 1) % 4], x[(c + 3) % 4], &z);
      *what += (m->dim == 2 ? z : a) / 4;
      if (!(a > eps * h * h)) return 1;
      neg += m->dim == 2 && z < 0;
    }
    return neg ? 2 : 0;
  }
  case FCD_VTK_TETRA: {
    fcd_real v = tet_det(x[0], x[1], x[2], x[3]);
    *what = v / 6;
    if (!(fabs(v) > eps * h * h * h)) return 1;
    return v < 0 ? 2 : 0;
  }
  case FCD_VTK_HEXAHEDRON: {
    /* corner c of the bottom face: its neighbours on that face and the node above it */
    static const int nb[8][3] = {{1, 3, 4}, {2, 0, 5}, {3, 1, 6}, {0, 2, 7},
                                 {7, 5, 0}, {4, 6, 1}, {5, 7, 2}, {6, 4, 3}};
    int neg = 0;
    for (int c = 0; c < 8; c++) {
      fcd_real v = tet_det(x[c], x[nb[c][0]], x[nb[c][1]], x[nb[c][2]]);
      *what += v / 8;
      if (!(fabs(v) > eps * h * h * h)) return 1;
      neg += v < 0;
    }
    return neg ? 2 : 0;
  }
  case FCD_VTK_WEDGE: {
    fcd_real v = tet_det(x[0], x[1], x[2], x[3]);
    *what = v / 2;
    return fabs(v) > eps * h * h * h ? 0 : 1;
  }
  case FCD_VTK_PYRAMID: {
    fcd_real v = tet_det(x[0], x[1], x[3], x[4]) + tet_det(x[1], x[2], x[3], x[4]);
    *what = v / 6;
    return fabs(v) > eps * h * h * h ? 0 : 1;
  }
  default: return 0;
  }
}

fcd_status fcd_mesh_add_cells(fcd_mesh *m, int vtk_type, fcd_index ncells,
                              const fcd_index *nodes) {
  if (!mesh_valid(m)) return FCD_E_INVALID_ARG;
  fcd_system *sys = m->sys;
  int per = nodes_of(vtk_type);
  if (per == 0)
    return fcd__err(sys, FCD_E_UNSUPPORTED, "mesh_add_cells: VTK cell type %d is not one of "
                    "vertex 1, line 3, triangle 5, quad 9, tetra 10, hexahedron 12, wedge 13, "
                    "pyramid 14 or the quadratic forms 21 to 27",
                    vtk_type);
  if (ncells < 0)
    return fcd__err(sys, FCD_E_INVALID_ARG, "mesh_add_cells: negative cell count %lld",
                    (long long)ncells);
  if (ncells > 0 && !nodes) return fcd__err(sys, FCD_E_INVALID_ARG, "mesh_add_cells: nodes is NULL");
  for (fcd_index k = 0; k < ncells * per; k++)
    if (nodes[k] < 0 || nodes[k] >= m->nnodes)
      return fcd__err(sys, FCD_E_INVALID_ARG, "mesh_add_cells: cell %lld has node %lld, "
                      "outside [0, %lld)", (long long)(k / per), (long long)nodes[k],
                      (long long)m->nnodes);
  static const char *const measure[4] = {"", "length", "area", "volume"};
  for (fcd_index c = 0; c < ncells; c++) {
    fcd_real v;
    /* a quadratic cell is checked by its corners: its mid-side nodes may curve it */
    int lin = linear_of(vtk_type), lper = nodes_of(lin);
    int bad = cell_measure(m, lin, lper, nodes + c * per, &v);
    for (int i = lper; i < per && !bad; i++)
      for (int j = 0; j < i && !bad; j++) bad = nodes[c * per + i] == nodes[c * per + j];
    int md = lin == FCD_VTK_LINE ? 1 : lper == 3 || lin == FCD_VTK_QUAD ? 2 : 3;
    if (bad == 1)
      return fcd__err(sys, FCD_E_INVALID_ARG, "mesh_add_cells: cell %lld is degenerate (a "
                      "node listed twice, or its %s is zero to round-off: %.3g)",
                      (long long)c, measure[md], v);
    if (bad == 2)
      return fcd__err(sys, FCD_E_INVALID_ARG, "mesh_add_cells: cell %lld is inverted (signed "
                      "%s %.3g: its nodes run against VTK's order)", (long long)c,
                      measure[md], v);
  }
  fcd_index need_conn = m->conn_len + ncells * per, need_cells = m->ncells + ncells;
  if (need_conn > m->conn_cap) {
    fcd_index cap = need_conn > 2 * m->conn_cap ? need_conn : 2 * m->conn_cap;
    fcd_index *c = fcd__grow_array(m->conn, (size_t)m->conn_len, (size_t)cap, sizeof *c);
    if (!c) return fcd__err(sys, FCD_E_NOMEM, "out of memory adding %lld cells", (long long)ncells);
    m->conn = c;
    m->conn_cap = cap;
  }
  if (need_cells > m->cells_cap) {
    fcd_index cap = need_cells > 2 * m->cells_cap ? need_cells : 2 * m->cells_cap;
    fcd_index *o = fcd__grow_array(m->offset, (size_t)m->ncells + 1, (size_t)cap + 1, sizeof *o);
    if (!o) return fcd__err(sys, FCD_E_NOMEM, "out of memory adding %lld cells", (long long)ncells);
    m->offset = o;
    int *t = fcd__grow_array(m->type, (size_t)m->ncells, (size_t)cap, sizeof *t);
    if (!t) return fcd__err(sys, FCD_E_NOMEM, "out of memory adding %lld cells", (long long)ncells);
    m->type = t;
    m->cells_cap = cap;
  }
  memcpy(m->conn + m->conn_len, nodes, (size_t)(ncells * per) * sizeof *nodes);
  for (fcd_index c = 0; c < ncells; c++) {
    m->type[m->ncells + c] = vtk_type;
    m->offset[m->ncells + c + 1] = m->conn_len + (c + 1) * per;
  }
  m->conn_len = need_conn;
  m->ncells = need_cells;
  return FCD_OK;
}

int fcd__vtk_name_ok(const char *s, size_t maxlen, const char *extra) {
  if (!s || !*s || strlen(s) > maxlen) return 0;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
          *s == '_' || strchr(extra, *s)))
      return 0;
  return 1;
}

int fcd__little_endian(void) {
  const uint16_t one = 1;
  unsigned char lo;
  memcpy(&lo, &one, 1);
  return lo;
}

/* the values of a legacy file's sections: as text, runs of values on a line (the last
 * ends it); BINARY, each value big-endian (doubles, 32-bit integers) and a newline after
 * each block */
typedef struct {
  FILE *fp;
  int binary;
} vout;

static void put_be(FILE *fp, const void *x, int size) {
  unsigned char b[8];
  memcpy(b, x, (size_t)size);
  if (fcd__little_endian())
    for (int k = 0; k < size / 2; k++) {
      unsigned char t = b[k];
      b[k] = b[size - 1 - k];
      b[size - 1 - k] = t;
    }
  fwrite(b, 1, (size_t)size, fp);
}

static void out_real(const vout *o, double x, int last) {
  if (o->binary) put_be(o->fp, &x, 8);
  else fprintf(o->fp, last ? "%.17g\n" : "%.17g ", x);
}

static void out_int(const vout *o, long long v, int last) {
  int32_t x = (int32_t)v;
  if (o->binary) put_be(o->fp, &x, 4);
  else fprintf(o->fp, last ? "%lld\n" : "%lld ", v);
}

static void out_block_end(const vout *o) {
  if (o->binary) fputc('\n', o->fp);
}

/* the legacy file's sections after its header */
static void write_sections(const fcd_mesh *m, const vout *o, fcd_index nfields,
                           const char *const *names, const fcd_real *const *fields,
                           const int *ns) {
  FILE *fp = o->fp;
  fprintf(fp, "POINTS %lld double\n", (long long)m->nnodes);
  for (fcd_index p = 0; p < m->nnodes; p++)
    for (int j = 0; j < 3; j++) out_real(o, j < m->dim ? m->coords[p * m->dim + j] : 0.0, j == 2);
  out_block_end(o);
  fprintf(fp, "CELLS %lld %lld\n", (long long)m->ncells, (long long)(m->ncells + m->conn_len));
  for (fcd_index c = 0; c < m->ncells; c++) {
    out_int(o, m->offset[c + 1] - m->offset[c], m->offset[c + 1] == m->offset[c]);
    for (fcd_index q = m->offset[c]; q < m->offset[c + 1]; q++)
      out_int(o, m->conn[q], q + 1 == m->offset[c + 1]);
  }
  out_block_end(o);
  fprintf(fp, "CELL_TYPES %lld\n", (long long)m->ncells);
  for (fcd_index c = 0; c < m->ncells; c++) out_int(o, m->type[c], 1);
  out_block_end(o);
  if (nfields > 0 || ns) fprintf(fp, "POINT_DATA %lld\n", (long long)m->nnodes);
  for (fcd_index k = 0; k < nfields; k++) {
    fprintf(fp, "VECTORS %s double\n", names[k]);
    for (fcd_index p = 0; p < m->nnodes; p++)
      for (int j = 0; j < 3; j++) {
        fcd_index d = j < m->dim ? m->node_dofs[p * m->dim + j] : -1;
        out_real(o, d >= 0 ? fields[k][d] : 0.0, j == 2);
      }
    out_block_end(o);
  }
  if (ns) {
    fprintf(fp, "SCALARS contact_status int 1\nLOOKUP_TABLE default\n");
    for (fcd_index p = 0; p < m->nnodes; p++) out_int(o, ns[p], 1);
    out_block_end(o);
  }
}

fcd_status fcd_mesh_set_vtk_format(fcd_mesh *m, int format) {
  if (!mesh_valid(m)) return FCD_E_INVALID_ARG;
  if (format != FCD_VTK_ASCII && format != FCD_VTK_BINARY)
    return fcd__err(m->sys, FCD_E_INVALID_ARG, "mesh_set_vtk_format: format %d is neither "
                    "FCD_VTK_ASCII (0) nor FCD_VTK_BINARY (1)", format);
  m->binary = format == FCD_VTK_BINARY;
  return FCD_OK;
}

fcd_status fcd_mesh_write_vtk(const fcd_mesh *m, const char *path, fcd_index nfields,
                              const char *const *names, const fcd_real *const *fields,
                              const fcd_contact_set *cs, const int *status) {
  if (!mesh_valid(m)) return FCD_E_INVALID_ARG;
  fcd_system *sys = m->sys;
  if (!path) return fcd__err(sys, FCD_E_INVALID_ARG, "mesh_write_vtk: path is NULL");
  if (nfields < 0)
    return fcd__err(sys, FCD_E_INVALID_ARG, "mesh_write_vtk: negative field count %lld",
                    (long long)nfields);
  if (nfields > 0 && (!names || !fields))
    return fcd__err(sys, FCD_E_INVALID_ARG, "mesh_write_vtk: %s is NULL", !names ? "names" : "fields");
  if (sys->n != m->ndofs)
    return fcd__err(sys, FCD_E_STATE, "mesh_write_vtk: the system changed size since the "
                    "mesh was made");
  for (fcd_index k = 0; k < nfields; k++) {
    if (!fcd__vtk_name_ok(names[k], 200, ""))
      return fcd__err(sys, FCD_E_INVALID_ARG, "mesh_write_vtk: field %lld's name must be "
                      "letters, digits and '_' (1 to 200)", (long long)k);
    if (!fields[k])
      return fcd__err(sys, FCD_E_INVALID_ARG, "mesh_write_vtk: field '%s' is NULL", names[k]);
    for (fcd_index j = 0; j < k; j++)
      if (!strcmp(names[j], names[k]))
        return fcd__err(sys, FCD_E_INVALID_ARG, "mesh_write_vtk: two fields named '%s'",
                        names[k]);
  }
  if ((cs == NULL) != (status == NULL))
    return fcd__err(sys, FCD_E_INVALID_ARG, "mesh_write_vtk: give both the contact set and "
                    "the contact status, or neither");
  if (cs && (!fcd__contact_set_valid(cs) || cs->sys != sys))
    return fcd__err(sys, FCD_E_INVALID_ARG, "mesh_write_vtk: the contact set is invalid or "
                    "belongs to another system");
  if (cs)
    for (fcd_index c = 0; c < cs->n; c++)
      if (status[c] < FCD_CONTACT_OPEN || status[c] > FCD_CONTACT_SLIP)
        return fcd__err(sys, FCD_E_INVALID_ARG, "mesh_write_vtk: contact %lld has status %d "
                        "(0 open, 1 stick, 2 slip)", (long long)c, status[c]);
  /* contact status per node: a node whose dofs carry a contact */
  int *ns = NULL;
  if (cs) {
    fcd_index *dof_node = fcd__malloc_array((size_t)sys->n + 1, sizeof *dof_node);
    ns = fcd__malloc_array((size_t)m->nnodes + 1, sizeof *ns);
    if (!dof_node || !ns) {
      fcd__free(dof_node);
      fcd__free(ns);
      return fcd__err(sys, FCD_E_NOMEM, "mesh_write_vtk: out of memory");
    }
    for (fcd_index i = 0; i < sys->n; i++) dof_node[i] = -1;
    for (fcd_index k = 0; k < m->nnodes * m->dim; k++)
      if (m->node_dofs[k] >= 0) dof_node[m->node_dofs[k]] = k / m->dim;
    for (fcd_index p = 0; p < m->nnodes; p++) ns[p] = -1;
    for (fcd_index c = 0; c < cs->n; c++) {
      if (cs->c[c].rows) {
        /* the nodes of its normal row */
        const fcd__contact *k = &cs->c[c];
        for (fcd_index q = cs->rptr[k->row0]; q < cs->rptr[k->row0 + 1]; q++)
          if (dof_node[cs->rdof[q]] >= 0) ns[dof_node[cs->rdof[q]]] = status[c];
        continue;
      }
      for (int side = 0; side < (cs->c[c].pair ? 2 : 1); side++) {
        const fcd_index *d = side ? cs->c[c].dofs_b : cs->c[c].dofs_a;
        for (int k = 0; k < cs->dim; k++)
          if (dof_node[d[k]] >= 0) ns[dof_node[d[k]]] = status[c];
      }
    }
    fcd__free(dof_node);
  }
  FILE *fp = fopen(path, "wb");
  if (!fp) {
    fcd__free(ns);
    return fcd__err(sys, FCD_E_IO, "cannot create '%s': %s", path, strerror(errno));
  }
  fprintf(fp, "# vtk DataFile Version 3.0\nfcd %s\n%s\nDATASET UNSTRUCTURED_GRID\n",
          FCD_VERSION_STRING, m->binary ? "BINARY" : "ASCII");
  const vout o = {fp, m->binary};
  write_sections(m, &o, nfields, names, fields, ns);
  fcd__free(ns);
  int bad = ferror(fp);
  if (fclose(fp) != 0 || bad) return fcd__err(sys, FCD_E_IO, "write error on '%s'", path);
  return FCD_OK;
}

/* ---- reading a mesh from legacy VTK -------------------------------------------------- */

typedef struct {
  const char *s, *end;
  int binary; /* BINARY legacy VTK: the sections' values are big-endian blocks */
} cursor;

/* one big-endian value of a BINARY file at b: a real of size 8 or 4 bytes into *r
 * (isreal), or a 32-bit integer into *i */
static int be_value(const unsigned char *b, int size, int isreal, double *r, long long *i) {
  unsigned char t[8];
  for (int k = 0; k < size; k++) t[k] = b[size - 1 - k];
  if (!fcd__little_endian()) memcpy(t, b, (size_t)size);
  if (isreal) {
    if (size == 8) memcpy(r, t, 8);
    else {
      float f;
      memcpy(&f, t, 4);
      *r = f;
    }
  } else {
    int32_t v;
    memcpy(&v, t, 4);
    *i = v;
  }
  return 1;
}

/* to the start of a BINARY block, the line after its section's header: 1 when the file
 * holds its bytes */
static int block_start(cursor *c, size_t bytes) {
  while (c->s < c->end && *c->s != '\n') c->s++; /* the rest of the header line */
  if (c->s < c->end) c->s++;
  return (size_t)(c->end - c->s) >= bytes;
}

/* the next whitespace-separated token, NUL-free; 0 at the end */
static int token(cursor *c, char *out, size_t cap) {
  while (c->s < c->end && (*c->s == ' ' || *c->s == '\t' || *c->s == '\n' || *c->s == '\r'))
    c->s++;
  size_t n = 0;
  while (c->s < c->end && !(*c->s == ' ' || *c->s == '\t' || *c->s == '\n' || *c->s == '\r')) {
    if (n + 1 < cap) out[n++] = *c->s;
    c->s++;
  }
  out[n] = 0;
  return n > 0;
}

static int token_int(cursor *c, long long *v) {
  char t[64], *e;
  if (!token(c, t, sizeof t)) return 0;
  errno = 0;
  *v = strtoll(t, &e, 10);
  return *e == 0 && errno == 0;
}

static int token_real(cursor *c, double *v) {
  char t[64], *e;
  if (!token(c, t, sizeof t)) return 0;
  *v = strtod(t, &e);
  return *e == 0 && isfinite(*v);
}

static void skip_line(cursor *c) {
  while (c->s < c->end && *c->s != '\n') c->s++;
  if (c->s < c->end) c->s++;
}

/* 1 when text (len bytes) begins with a legacy VTK header whose third line is BINARY */
int fcd__vtk_binary_header(const char *text, size_t len) {
  if (len < 5 || strncmp(text, "# vtk", 5) != 0) return 0;
  const char *p = text, *end = text + len;
  for (int line = 0; line < 2; line++) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl) return 0;
    p = nl + 1;
  }
  while (p < end && (*p == ' ' || *p == '\t')) p++;
  return end - p >= 6 && strncmp(p, "BINARY", 6) == 0 &&
         (end - p == 6 || p[6] == '\n' || p[6] == '\r' || p[6] == ' ');
}

/* The POINTS section (its header read up to the count): npts points of 3 coordinates,
 * z zero in 2D, into *xyp (dim per point; freed by the caller, also on failure). */
static fcd_status read_points(fcd_system *sys, const char *path, cursor *c, int dim, size_t len,
                              long long *npts, double **xyp) {
  fcd_status st = FCD_OK;
  char ty[32];
  if (*npts >= 0 || !token_int(c, npts) || *npts < 0 || *npts > (long long)(len / 2) ||
      !token(c, ty, sizeof ty)) {
    st = fcd__err(sys, FCD_E_FORMAT, "%s: bad POINTS header", path);
    return st;
  }
  *xyp = fcd__malloc_array((size_t)*npts * (size_t)dim + 1, sizeof **xyp);
  if (!*xyp) {
    st = fcd__err(sys, FCD_E_NOMEM, "%s: out of memory for %lld points", path, *npts);
    return st;
  }
  int size = !strcmp(ty, "double") ? 8 : !strcmp(ty, "float") ? 4 : 0;
  if (c->binary && !size)
    return fcd__err(sys, FCD_E_UNSUPPORTED, "%s: BINARY POINTS of type '%s' (double or float "
                    "are read)", path, ty);
  if (c->binary && !block_start(c, (size_t)*npts * 3 * (size_t)size))
    return fcd__err(sys, FCD_E_FORMAT, "%s: the file ends inside the %lld BINARY points",
                    path, *npts);
  for (long long p = 0; p < *npts; p++)
    for (int k = 0; k < 3; k++) {
      double v = 0;
      long long unused;
      if (c->binary) {
        be_value((const unsigned char *)c->s, size, 1, &v, &unused);
        c->s += size;
      }
      if (c->binary ? !isfinite(v) : !token_real(c, &v)) {
        st = fcd__err(sys, FCD_E_FORMAT, "%s: point %lld: coordinate %d missing or not a "
                      "finite number", path, p, k);
        return st;
      }
      if (k < dim) (*xyp)[p * dim + k] = v;
      else if (v != 0) {
        st = fcd__err(sys, FCD_E_INVALID_ARG, "%s: point %lld has z = %g in a 2D mesh",
                      path, p, v);
        return st;
      }
    }
  return FCD_OK;
}

/* one integer of a 5.1 array: text, or big-endian of size bytes (4 or 8) */
static int array_int(cursor *c, int size, long long *v) {
  if (!c->binary) return token_int(c, v);
  if (c->end - c->s < size) return 0;
  const unsigned char *b = (const unsigned char *)c->s;
  uint64_t x = 0;
  for (int k = 0; k < size; k++) x = (x << 8) | b[k];
  c->s += size;
  *v = size == 8 ? (long long)(int64_t)x : (long long)(int32_t)(uint32_t)x;
  return 1;
}

/* The version 5.1 layout, VTK 9's default: CELLS noffsets nconnectivity, then OFFSETS and
 * CONNECTIVITY arrays (vtktypeint64 or vtktypeint32); rewritten here in the classic one
 * (each cell's node count, then its nodes) */
static fcd_status read_cells51(fcd_system *sys, const char *path, cursor *c, size_t len,
                               long long *ncells, long long *nconn, fcd_index **conn) {
  long long noff, nc;
  char t[64];
  if (*ncells >= 0 || !token_int(c, &noff) || !token_int(c, &nc) || noff < 1 || nc < 0 ||
      noff > (long long)(len / 2) || nc > (long long)(len / 2))
    return fcd__err(sys, FCD_E_FORMAT, "%s: bad CELLS header (version 5.1: the offsets' "
                    "and the connectivity's counts)", path);
  long long *off = fcd__malloc_array((size_t)noff, sizeof *off);
  long long *cn = fcd__malloc_array((size_t)nc + 1, sizeof *cn);
  *conn = fcd__malloc_array((size_t)(nc + noff), sizeof **conn);
  fcd_status st = FCD_OK;
  if (!off || !cn || !*conn) st = fcd__err(sys, FCD_E_NOMEM, "%s: out of memory", path);
  for (int pass = 0; pass < 2 && st == FCD_OK; pass++) {
    const char *want = pass ? "CONNECTIVITY" : "OFFSETS";
    long long n = pass ? nc : noff, *dst = pass ? cn : off;
    if (!token(c, t, sizeof t) || strcmp(t, want) != 0 || !token(c, t, sizeof t)) {
      st = fcd__err(sys, FCD_E_FORMAT, "%s: CELLS of version 5.1 need %s next", path, want);
      break;
    }
    int size = !strcmp(t, "vtktypeint64") ? 8 : !strcmp(t, "vtktypeint32") ? 4 : 0;
    if (!size) {
      st = fcd__err(sys, FCD_E_UNSUPPORTED, "%s: %s of type '%.30s' (vtktypeint64 or "
                    "vtktypeint32 are read)", path, want, t);
      break;
    }
    if (c->binary && !block_start(c, (size_t)n * (size_t)size)) {
      st = fcd__err(sys, FCD_E_FORMAT, "%s: the file ends inside the BINARY %s", path, want);
      break;
    }
    for (long long q = 0; q < n; q++)
      if (!array_int(c, size, &dst[q])) {
        st = fcd__err(sys, FCD_E_FORMAT, "%s: %s: entry %lld of %lld missing or not an "
                      "integer", path, want, q, n);
        break;
      }
  }
  if (st == FCD_OK && (off[0] != 0 || off[noff - 1] != nc))
    st = fcd__err(sys, FCD_E_FORMAT, "%s: OFFSETS must run from 0 to the connectivity's "
                  "size %lld", path, nc);
  /* every offset checked before any cell is copied: an offset past the connectivity
   * followed by a smaller one (0 9 7 over 7 entries) read past the array */
  for (long long k = 0; st == FCD_OK && k + 1 < noff; k++)
    if (off[k + 1] < off[k])
      st = fcd__err(sys, FCD_E_FORMAT, "%s: OFFSETS decrease at cell %lld", path, k);
  long long q = 0;
  for (long long k = 0; st == FCD_OK && k + 1 < noff; k++) {
    (*conn)[q++] = (fcd_index)(off[k + 1] - off[k]);
    for (long long a = off[k]; a < off[k + 1]; a++) (*conn)[q++] = (fcd_index)cn[a];
  }
  fcd__free(off);
  fcd__free(cn);
  if (st != FCD_OK) return st;
  *ncells = noff - 1;
  *nconn = q;
  return FCD_OK;
}

/* CELLS n size, then size integers: each cell's node count and nodes */
static fcd_status read_cells(fcd_system *sys, const char *path, cursor *c, size_t len,
                             long long *ncells, long long *nconn, fcd_index **conn) {
  long long size;
  if (*ncells >= 0 || !token_int(c, ncells) || !token_int(c, &size) || *ncells < 0 ||
      size < *ncells || size > (long long)(len / 2))
    return fcd__err(sys, FCD_E_FORMAT, "%s: bad CELLS header", path);
  *conn = fcd__malloc_array((size_t)size + 1, sizeof **conn);
  if (!*conn)
    return fcd__err(sys, FCD_E_NOMEM, "%s: out of memory for %lld cells", path, *ncells);
  if (c->binary && !block_start(c, (size_t)size * 4))
    return fcd__err(sys, FCD_E_FORMAT, "%s: the file ends inside the BINARY CELLS", path);
  for (long long q = 0; q < size; q++) {
    long long v = 0;
    double unused;
    if (c->binary) {
      be_value((const unsigned char *)c->s, 4, 0, &unused, &v);
      c->s += 4;
    } else if (!token_int(c, &v))
      return fcd__err(sys, FCD_E_FORMAT, "%s: CELLS: entry %lld of %lld missing or not an "
                      "integer", path, q, size);
    (*conn)[q] = (fcd_index)v;
  }
  *nconn = size;
  return FCD_OK;
}

/* CELL_TYPES n, then n VTK cell types; n must be CELLS' count */
static fcd_status read_cell_types(fcd_system *sys, const char *path, cursor *c,
                                  long long ncells, int **types) {
  long long nt;
  if (*types || !token_int(c, &nt) || nt != ncells)
    return fcd__err(sys, FCD_E_FORMAT, "%s: CELL_TYPES must follow CELLS with the same "
                    "count", path);
  *types = fcd__malloc_array((size_t)nt + 1, sizeof **types);
  if (!*types) return fcd__err(sys, FCD_E_NOMEM, "%s: out of memory", path);
  if (c->binary && !block_start(c, (size_t)nt * 4))
    return fcd__err(sys, FCD_E_FORMAT, "%s: the file ends inside the BINARY CELL_TYPES", path);
  for (long long q = 0; q < nt; q++) {
    long long v = -1;
    double unused;
    if (c->binary) {
      be_value((const unsigned char *)c->s, 4, 0, &unused, &v);
      c->s += 4;
    }
    if ((!c->binary && !token_int(c, &v)) || v < 0 || v > 100)
      return fcd__err(sys, FCD_E_FORMAT, "%s: CELL_TYPES: entry %lld is not a cell type",
                      path, q);
    (*types)[q] = (int)v;
  }
  return FCD_OK;
}

/* the cells into m, each checked against its type's node count */
static fcd_status add_cells(fcd_system *sys, const char *path, fcd_mesh *m, long long ncells,
                            long long nconn, const fcd_index *conn, const int *types) {
  for (long long q = 0, cell = 0; cell < ncells; cell++) {
    long long k = q < nconn ? conn[q] : -1;
    /* k counted against what is left (q < nconn here): q + 1 + k overflows for k near
     * 2^63 */
    if (k < 1 || k > nconn - q - 1 || nodes_of(types[cell]) != k)
      return fcd__err(sys, nodes_of(types[cell]) ? FCD_E_FORMAT : FCD_E_UNSUPPORTED,
                      "%s: cell %lld: %s", path, cell,
                      nodes_of(types[cell]) ? "its node count does not match its type"
                                            : "unsupported cell type");
    fcd_status st = fcd_mesh_add_cells(m, types[cell], 1, conn + q + 1);
    if (st != FCD_OK) {
      char why[FCD_ERRMSG_CAP];
      snprintf(why, sizeof why, "%s", fcd_system_last_error(sys));
      return fcd__err(sys, st, "%s: %s", path, why);
    }
    q += 1 + k;
  }
  return FCD_OK;
}

fcd_status fcd_mesh_read_vtk(const fcd_system *csys, int dim, const char *path, fcd_mesh **out) {
  if (!out) return FCD_E_INVALID_ARG;
  *out = NULL;
  FCD_CHECK_SYS(csys);
  fcd_system *sys = (fcd_system *)(uintptr_t)csys;
  if (dim != 2 && dim != 3)
    return fcd__err(sys, FCD_E_INVALID_ARG, "mesh_read_vtk: dim must be 2 or 3, not %d", dim);
  if (!path) return fcd__err(sys, FCD_E_INVALID_ARG, "mesh_read_vtk: path is NULL");
  char *text = NULL;
  size_t len = 0;
  /* an ASCII file has no NUL byte: one stops the read at once (/dev/zero) */
  FCD_TRY(fcd__read_file(sys, path, &text, &len, fcd__vtk_binary_header));
  fcd_status st = fcd__mesh_parse_vtk(sys, dim, path, text, len, out);
  fcd__free(text);
  return st;
}

fcd_status fcd__mesh_parse_vtk(fcd_system *sys, int dim, const char *path, const char *text,
                               size_t len, fcd_mesh **out) {
  fcd_status st = FCD_OK;
  cursor c = {text, text + len, 0};
  double *xy = NULL;
  fcd_index *conn = NULL;
  int *types = NULL;
  fcd_mesh *m = NULL;
  long long npts = -1, ncells = -1, nconn = 0;
  char t[128];
  /* header: "# vtk DataFile Version x.y", a title line, ASCII, DATASET UNSTRUCTURED_GRID */
  if (len < 5 || strncmp(text, "# vtk", 5) != 0) {
    st = fcd__err(sys, FCD_E_FORMAT, "%s: not a legacy VTK file (no '# vtk' header)", path);
    goto done;
  }
  /* version 5.x writes its cells as offsets and connectivity */
  int v51 = len > 26 && strncmp(text, "# vtk DataFile Version 5", 24) == 0;
  skip_line(&c);
  skip_line(&c);
  if (!token(&c, t, sizeof t) || (strcmp(t, "ASCII") != 0 && strcmp(t, "BINARY") != 0)) {
    st = fcd__err(sys, FCD_E_FORMAT, "%s: the third line must be ASCII or BINARY (found "
                  "'%.40s')", path, t);
    goto done;
  }
  c.binary = !strcmp(t, "BINARY");
  if (!token(&c, t, sizeof t) || strcmp(t, "DATASET") != 0 || !token(&c, t, sizeof t) ||
      strcmp(t, "UNSTRUCTURED_GRID") != 0) {
    st = fcd__err(sys, FCD_E_UNSUPPORTED, "%s: only DATASET UNSTRUCTURED_GRID is read", path);
    goto done;
  }
  while (token(&c, t, sizeof t)) {
    if (!strcmp(t, "POINTS")) {
      if ((st = read_points(sys, path, &c, dim, len, &npts, &xy)) != FCD_OK) goto done;
    } else if (!strcmp(t, "CELLS")) {
      st = v51 ? read_cells51(sys, path, &c, len, &ncells, &nconn, &conn)
               : read_cells(sys, path, &c, len, &ncells, &nconn, &conn);
      if (st != FCD_OK) goto done;
    } else if (!strcmp(t, "METADATA")) {
      /* 5.1: an array's metadata, up to the next blank line */
      skip_line(&c);
      while (c.s < c.end && *c.s != '\n' && !(*c.s == '\r' && c.s + 1 < c.end && c.s[1] == '\n'))
        skip_line(&c);
    } else if (!strcmp(t, "CELL_TYPES")) {
      if ((st = read_cell_types(sys, path, &c, ncells, &types)) != FCD_OK) goto done;
    } else if (!strcmp(t, "POINT_DATA") || !strcmp(t, "CELL_DATA")) {
      break; /* fields: not part of the mesh */
    } else {
      st = fcd__err(sys, FCD_E_FORMAT, "%s: unexpected keyword '%.40s'", path, t);
      goto done;
    }
  }
  if (npts < 0 || ncells < 0 || !types) {
    st = fcd__err(sys, FCD_E_FORMAT, "%s: a mesh needs POINTS, CELLS and CELL_TYPES", path);
    goto done;
  }
  if ((st = fcd_mesh_create(sys, dim, (fcd_index)npts, xy, NULL, &m)) != FCD_OK) {
    char why[FCD_ERRMSG_CAP];
    snprintf(why, sizeof why, "%s", fcd_system_last_error(sys));
    st = fcd__err(sys, st, "%s: %s", path, why);
    goto done;
  }
  st = add_cells(sys, path, m, ncells, nconn, conn, types);
done:
  fcd__free(xy);
  fcd__free(conn);
  fcd__free(types);
  if (st != FCD_OK) {
    fcd_mesh_destroy(m);
    return st;
  }
  *out = m;
  return FCD_OK;
}

/* ---- a mesh's geometry, copied (geometry.h) ---------------------------------- */

static fcd_index uf_find(fcd_index *p, fcd_index a) {
  while (p[a] != a) {
    p[a] = p[p[a]];
    a = p[a];
  }
  return a;
}

fcd_status fcd__geometry_from_mesh(const fcd_mesh *m, fcd__geometry **out) {
  const fcd_system *sys;
  const fcd_real *x;
  const fcd_index *dof, *off, *conn;
  fcd_index nn, ncells;
  int dim;
  *out = NULL;
  if (!fcd__mesh_geometry(m, &sys, &dim, &nn, &x, &dof) ||
      !fcd__mesh_cells(m, &ncells, &off, &conn))
    return FCD_E_INVALID_ARG;
  fcd__geometry *g = fcd__calloc(1, sizeof *g);
  if (!g) return FCD_E_NOMEM;
  g->dim = dim;
  g->nn = nn;
  g->x = fcd__malloc_array((size_t)(nn * dim) + 1, sizeof *g->x);
  g->dof = fcd__malloc_array((size_t)(nn * dim) + 1, sizeof *g->dof);
  g->body = fcd__malloc_array((size_t)nn + 1, sizeof *g->body);
  if (!g->x || !g->dof || !g->body) {
    fcd__geometry_free(g);
    return FCD_E_NOMEM;
  }
  memcpy(g->x, x, (size_t)(nn * dim) * sizeof *x);
  for (fcd_index i = 0; i < nn * dim; i++) g->dof[i] = dof ? dof[i] : i;
  /* bodies: the connected components of the cells' node graph */
  for (fcd_index i = 0; i < nn; i++) g->body[i] = i;
  for (fcd_index c = 0; off && conn && c < ncells; c++)
    for (fcd_index q = off[c] + 1; q < off[c + 1]; q++) {
      fcd_index a = uf_find(g->body, conn[off[c]]), b = uf_find(g->body, conn[q]);
      if (a != b) g->body[a < b ? b : a] = a < b ? a : b;
    }
  for (fcd_index i = 0; i < nn; i++) g->body[i] = uf_find(g->body, i);
  if (ncells == 0)
    for (fcd_index i = 0; i < nn; i++) g->body[i] = 0;
  *out = g;
  return FCD_OK;
}

void fcd__geometry_free(fcd__geometry *g) {
  if (!g) return;
  fcd__free(g->x);
  fcd__free(g->dof);
  fcd__free(g->body);
  fcd__free(g);
}
