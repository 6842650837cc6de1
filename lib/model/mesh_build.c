/* A mesh from what a reader of another code's file gathered (mesh_private.h): nodes by
 * label, elements in VTK's node order, named groups of elements, element faces or nodes;
 * the groups become surfaces of facets that fcd_contact_set_add_surface_pair takes. */
#include "mesh_private.h"
#include "import_private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void fcd__ms_init(fcd__meshsrc *ms, fcd_system *sys, const char *path, int dim, int format) {
  memset(ms, 0, sizeof *ms);
  ms->sys = sys;
  ms->path = path;
  ms->dim = dim;
  ms->format = format;
}

void fcd__ms_free(fcd__meshsrc *ms) {
  fcd__free(ms->nlab);
  fcd__free(ms->xyz);
  fcd__free(ms->elab);
  fcd__free(ms->etype);
  fcd__free(ms->eoff);
  fcd__free(ms->econn);
  for (int k = 0; k < ms->ng; k++) {
    fcd__free(ms->g[k].name);
    fcd__free(ms->g[k].item);
    fcd__free(ms->g[k].face);
    fcd__free(ms->g[k].by3);
  }
  fcd__free(ms->g);
  memset(ms, 0, sizeof *ms);
}

/* *p (n used of *cap, each size bytes) with room for more; 0 when out of memory */
static int room(void **p, fcd_index n, fcd_index *cap, size_t size, fcd_index more) {
  if (n + more <= *cap) return 1;
  fcd_index c = *cap ? 2 * *cap : 64;
  while (c < n + more) c *= 2;
  void *q = fcd__grow_array(*p, (size_t)n, (size_t)c, size);
  if (!q) return 0;
  *p = q;
  *cap = c;
  return 1;
}

/* parallel arrays of n entries grown to c together (each keeps its own entries on a
 * failure; the capacity moves only when all grew) */
static int grow2(void **a, size_t sa, void **b, size_t sb, fcd_index n, fcd_index c) {
  void *q = fcd__grow_array(*a, (size_t)n, (size_t)c, sa);
  if (!q) return 0;
  *a = q;
  if (!b) return 1;
  q = fcd__grow_array(*b, (size_t)n, (size_t)c, sb);
  if (!q) return 0;
  *b = q;
  return 1;
}

int fcd__ms_node(fcd__meshsrc *ms, int64_t label, double x, double y, double z) {
  if (ms->nn == ms->ncap) {
    fcd_index c = ms->ncap ? 2 * ms->ncap : 1024;
    if (!grow2((void **)&ms->nlab, sizeof *ms->nlab, NULL, 0, ms->nn, c)) return 0;
    if (!grow2((void **)&ms->xyz, 3 * sizeof *ms->xyz, NULL, 0, ms->nn, c)) return 0;
    ms->ncap = c;
  }
  ms->nlab[ms->nn] = label;
  ms->xyz[3 * ms->nn] = x;
  ms->xyz[3 * ms->nn + 1] = y;
  ms->xyz[3 * ms->nn + 2] = z;
  ms->nn++;
  return 1;
}

int fcd__ms_elem(fcd__meshsrc *ms, int64_t label, int vtk_type, const int64_t *nodes) {
  int per = fcd__vtk_nodes_of(vtk_type);
  if (ms->ne + 1 >= ms->ecap) {
    fcd_index c = ms->ecap ? 2 * ms->ecap : 1024;
    if (!grow2((void **)&ms->elab, sizeof *ms->elab, (void **)&ms->etype, sizeof *ms->etype,
               ms->ne, c) ||
        !grow2((void **)&ms->eoff, sizeof *ms->eoff, NULL, 0, ms->ne + 1, c))
      return 0;
    ms->ecap = c;
  }
  if (!room((void **)&ms->econn, ms->clen, &ms->ccap, sizeof *ms->econn, per)) return 0;
  if (ms->ne == 0) ms->eoff[0] = 0;
  ms->elab[ms->ne] = label;
  ms->etype[ms->ne] = vtk_type;
  memcpy(ms->econn + ms->clen, nodes, (size_t)per * sizeof *nodes);
  ms->clen += per;
  ms->eoff[++ms->ne] = ms->clen;
  return 1;
}

fcd__mgroup *fcd__ms_group(fcd__meshsrc *ms, const char *name, int kind) {
  for (int k = 0; k < ms->ng; k++)
    if (ms->g[k].kind == kind && strcmp(ms->g[k].name, name) == 0) return &ms->g[k];
  fcd_index cap = ms->gcap;
  if (!room((void **)&ms->g, ms->ng, &cap, sizeof *ms->g, 1)) return NULL;
  ms->gcap = (int)cap;
  fcd__mgroup *g = &ms->g[ms->ng];
  memset(g, 0, sizeof *g);
  size_t n = strlen(name);
  g->name = fcd__malloc(n + 1);
  if (!g->name) return NULL;
  memcpy(g->name, name, n + 1);
  g->kind = kind;
  ms->ng++;
  return g;
}

int fcd__ms_group_add(fcd__mgroup *g, int64_t item, int face, const int64_t *by3) {
  if (g->n == g->cap) {
    fcd_index c = g->cap ? 2 * g->cap : 64;
    if (!grow2((void **)&g->item, sizeof *g->item, NULL, 0, g->n, c)) return 0;
    if (g->kind == FCD__G_FACES &&
        !grow2((void **)&g->face, sizeof *g->face, (void **)&g->by3, 3 * sizeof *g->by3,
               g->n, c))
      return 0;
    g->cap = c;
  }
  g->item[g->n] = item;
  if (g->kind == FCD__G_FACES) {
    g->face[g->n] = (signed char)face;
    for (int k = 0; k < 3; k++) g->by3[3 * g->n + k] = by3 ? by3[k] : 0;
  }
  g->n++;
  return 1;
}

/* ---- element topology in VTK's numbering ---- */

static int is_quadratic(int t) {
  return t >= FCD_VTK_QUADRATIC_EDGE && t <= FCD_VTK_QUADRATIC_PYRAMID;
}

static int linear(int t) {
  static const int lin[] = {FCD_VTK_LINE, FCD_VTK_TRIANGLE, FCD_VTK_QUAD, FCD_VTK_TETRA,
                            FCD_VTK_HEXAHEDRON, FCD_VTK_WEDGE, FCD_VTK_PYRAMID};
  return is_quadratic(t) ? lin[t - FCD_VTK_QUADRATIC_EDGE] : t;
}

static int topo_dim(int t) {
  switch (linear(t)) {
  case FCD_VTK_VERTEX: return 0;
  case FCD_VTK_LINE: return 1;
  case FCD_VTK_TRIANGLE:
  case FCD_VTK_QUAD: return 2;
  default: return 3;
  }
}

/* the faces (3D) or edges (2D) of a linear type, in the order of Abaqus' S1, S2, ...,
 * each by its corners; -1 pads */
static int faces_of(int t, int dim, const signed char (**f)[4]) {
  static const signed char tri[3][4] = {{0, 1, -1, -1}, {1, 2, -1, -1}, {2, 0, -1, -1}};
  static const signed char quad[4][4] = {{0, 1, -1, -1}, {1, 2, -1, -1}, {2, 3, -1, -1},
                                         {3, 0, -1, -1}};
  static const signed char tet[4][4] = {{0, 1, 2, -1}, {0, 3, 1, -1}, {1, 3, 2, -1},
                                        {2, 3, 0, -1}};
  static const signed char hex[6][4] = {{0, 1, 2, 3}, {4, 7, 6, 5}, {0, 4, 5, 1},
                                        {1, 5, 6, 2}, {2, 6, 7, 3}, {3, 7, 4, 0}};
  static const signed char wedge[5][4] = {{0, 1, 2, -1}, {3, 5, 4, -1}, {0, 3, 4, 1},
                                          {1, 4, 5, 2}, {2, 5, 3, 0}};
  static const signed char pyramid[5][4] = {{0, 3, 2, 1}, {0, 1, 4, -1}, {1, 2, 4, -1},
                                            {2, 3, 4, -1}, {3, 0, 4, -1}};
  switch (linear(t)) {
  case FCD_VTK_TRIANGLE: *f = tri; return dim == 2 ? 3 : 0;
  case FCD_VTK_QUAD: *f = quad; return dim == 2 ? 4 : 0;
  case FCD_VTK_TETRA: *f = tet; return 4;
  case FCD_VTK_HEXAHEDRON: *f = hex; return 6;
  case FCD_VTK_WEDGE: *f = wedge; return 5;
  case FCD_VTK_PYRAMID: *f = pyramid; return 5;
  default: return 0;
  }
}

/* the edges of a quadratic type in VTK's order, by their corners; their count */
static int edges_of(int t, const signed char (**e)[2], int *nc) {
  static const signed char line[1][2] = {{0, 1}};
  static const signed char tri[3][2] = {{0, 1}, {1, 2}, {2, 0}};
  static const signed char quad[4][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}};
  static const signed char tet[6][2] = {{0, 1}, {1, 2}, {2, 0}, {0, 3}, {1, 3}, {2, 3}};
  static const signed char hex[12][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {4, 5}, {5, 6},
                                         {6, 7}, {7, 4}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
  static const signed char wedge[9][2] = {{0, 1}, {1, 2}, {2, 0}, {3, 4}, {4, 5},
                                          {5, 3}, {0, 3}, {1, 4}, {2, 5}};
  static const signed char pyramid[8][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0},
                                            {0, 4}, {1, 4}, {2, 4}, {3, 4}};
  switch (t) {
  case FCD_VTK_QUADRATIC_EDGE: *e = line; *nc = 2; return 1;
  case FCD_VTK_QUADRATIC_TRIANGLE: *e = tri; *nc = 3; return 3;
  case FCD_VTK_QUADRATIC_QUAD: *e = quad; *nc = 4; return 4;
  case FCD_VTK_QUADRATIC_TETRA: *e = tet; *nc = 4; return 6;
  case FCD_VTK_QUADRATIC_HEXAHEDRON: *e = hex; *nc = 8; return 12;
  case FCD_VTK_QUADRATIC_WEDGE: *e = wedge; *nc = 6; return 9;
  case FCD_VTK_QUADRATIC_PYRAMID: *e = pyramid; *nc = 5; return 8;
  default: *nc = fcd__vtk_nodes_of(t); return 0;
  }
}

static int edge_index(int t, int a, int b) {
  const signed char(*e)[2];
  int nc, ne = edges_of(t, &e, &nc);
  for (int k = 0; k < ne; k++)
    if ((e[k][0] == a && e[k][1] == b) || (e[k][0] == b && e[k][1] == a)) return k;
  return -1;
}

/* the mid-edge node of corners a, b of a quadratic element (its conn in VTK's order) */
static fcd_index mid_of(int t, const fcd_index *conn, int a, int b) {
  const signed char(*e)[2];
  int nc;
  edges_of(t, &e, &nc);
  int k = edge_index(t, a, b);
  return k < 0 ? -1 : conn[nc + k];
}

int fcd__ms_reorder(int t, const signed char (*edges)[2], const int64_t *in, int64_t *out) {
  const signed char(*e)[2];
  int nc, ne = edges_of(t, &e, &nc);
  for (int k = 0; k < nc; k++) out[k] = in[k];
  for (int k = 0; k < ne; k++) {
    int j = edge_index(t, edges[k][0], edges[k][1]);
    if (j < 0) return 0;
    out[nc + j] = in[nc + k];
  }
  return 1;
}

/* ---- finishing ---- */

typedef struct {
  fcd_index key[4]; /* the face's corner nodes sorted, INT64_MAX after them */
  fcd_index elem;
  int face;
} facekey;

static int cmp_facekey(const void *a, const void *b) {
  const facekey *x = a, *y = b;
  for (int k = 0; k < 4; k++)
    if (x->key[k] != y->key[k]) return x->key[k] < y->key[k] ? -1 : 1;
  return 0;
}

static void make_key(fcd_index *key, const fcd_index *nodes, int n) {
  for (int k = 0; k < 4; k++) key[k] = k < n ? nodes[k] : INT64_MAX;
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && key[j - 1] > key[j]; j--) {
      fcd_index t = key[j];
      key[j] = key[j - 1];
      key[j - 1] = t;
    }
}

typedef struct {
  fcd__meshsrc *ms;
  fcd_index *conn; /* node indices */
  fcd_index *lab_order; /* node indices sorted by label */
  fcd_index *elem_order; /* element indices sorted by label */
  facekey *faces;  /* the faces of the volume elements (dim D), sorted */
  fcd_index nfaces;
  int faces_built;
} ctx;

typedef struct {
  int64_t lab;
  fcd_index i;
} labidx;
static int cmp_labidx(const void *a, const void *b) {
  const labidx *x = a, *y = b;
  if (x->lab != y->lab) return x->lab < y->lab ? -1 : 1;
  return x->i < y->i ? -1 : x->i > y->i;
}

static fcd_index *order_by(const int64_t *lab, fcd_index n) {
  labidx *t = fcd__malloc_array((size_t)n + 1, sizeof *t);
  fcd_index *o = fcd__malloc_array((size_t)n + 1, sizeof *o);
  if (!t || !o) {
    fcd__free(t);
    fcd__free(o);
    return NULL;
  }
  for (fcd_index k = 0; k < n; k++) t[k] = (labidx){lab[k], k};
  qsort(t, (size_t)n, sizeof *t, cmp_labidx);
  for (fcd_index k = 0; k < n; k++) o[k] = t[k].i;
  fcd__free(t);
  return o;
}

static fcd_index find_label(const int64_t *lab, const fcd_index *order, fcd_index n,
                            int64_t want) {
  fcd_index lo = 0, hi = n;
  while (lo < hi) {
    fcd_index mid = lo + (hi - lo) / 2;
    if (lab[order[mid]] < want) lo = mid + 1;
    else hi = mid;
  }
  return lo < n && lab[order[lo]] == want ? order[lo] : -1;
}

static void centroid(const fcd__meshsrc *ms, const fcd_index *nodes, int n, double *c) {
  c[0] = c[1] = c[2] = 0;
  for (int k = 0; k < n; k++)
    for (int a = 0; a < 3; a++) c[a] += ms->xyz[3 * nodes[k] + a] / n;
}

static fcd_status build_faces(ctx *x) {
  fcd__meshsrc *ms = x->ms;
  if (x->faces_built) return FCD_OK;
  x->faces_built = 1;
  fcd_index n = 0;
  for (fcd_index e = 0; e < ms->ne; e++) {
    const signed char(*f)[4] = NULL;
    if (topo_dim(ms->etype[e]) == ms->dim) n += faces_of(ms->etype[e], ms->dim, &f);
  }
  x->faces = fcd__malloc_array((size_t)n + 1, sizeof *x->faces);
  if (!x->faces) return fcd__err(ms->sys, FCD_E_NOMEM, "%s: out of memory", ms->path);
  for (fcd_index e = 0; e < ms->ne; e++) {
    const signed char(*f)[4] = NULL;
    if (topo_dim(ms->etype[e]) != ms->dim) continue;
    int nf = faces_of(ms->etype[e], ms->dim, &f);
    for (int k = 0; k < nf; k++) {
      fcd_index nodes[4];
      int c = 0;
      while (c < 4 && f[k][c] >= 0) {
        nodes[c] = x->conn[ms->eoff[e] + f[k][c]];
        c++;
      }
      facekey *fk = &x->faces[x->nfaces++];
      make_key(fk->key, nodes, c);
      fk->elem = e;
      fk->face = k;
    }
  }
  qsort(x->faces, (size_t)x->nfaces, sizeof *x->faces, cmp_facekey);
  return FCD_OK;
}

/* the facets list being built */
typedef struct {
  fcd_index n, cap;
  fcd_index *f; /* per each */
  int per;
} facets;

static int put_facet(facets *F, const fcd_index *nodes, int n) {
  if (!room((void **)&F->f, F->n * F->per, &F->cap, sizeof *F->f, F->per)) return 0;
  for (int k = 0; k < F->per; k++) F->f[F->n * F->per + k] = k < n ? nodes[k] : -1;
  F->n++;
  return 1;
}

/* the face of element e with local corners lc (nc of them) as facets: oriented outward
 * from the volume element that owns it (e itself, or the one whose face it is), a
 * quadratic face cut into the linear facets of its nodes */
static fcd_status add_face(ctx *x, facets *F, fcd_index e, const signed char *lc, int nc) {
  fcd__meshsrc *ms = x->ms;
  const fcd_index *conn = x->conn + ms->eoff[e];
  int t = ms->etype[e];
  int loc[4];
  for (int k = 0; k < nc; k++) loc[k] = lc[k];
  if (ms->dim == 3 && nc >= 3) {
    fcd_index owner = topo_dim(t) == 3 ? e : -1;
    if (owner < 0) {
      FCD_TRY(build_faces(x));
      facekey fk;
      fcd_index nodes[4];
      for (int k = 0; k < nc; k++) nodes[k] = conn[loc[k]];
      make_key(fk.key, nodes, nc);
      const facekey *hit = bsearch(&fk, x->faces, (size_t)x->nfaces, sizeof fk, cmp_facekey);
      if (hit) owner = hit->elem;
    }
    if (owner >= 0) {
      double p[4][3], c[3], fc[3], nrm[3];
      for (int k = 0; k < nc; k++)
        for (int a = 0; a < 3; a++) p[k][a] = ms->xyz[3 * conn[loc[k]] + a];
      const double *u0 = p[nc == 4 ? 2 : 1], *u1 = p[0], *v0 = p[nc == 4 ? 3 : 2],
                   *v1 = p[nc == 4 ? 1 : 0];
      double u[3], v[3];
      for (int a = 0; a < 3; a++) {
        u[a] = u0[a] - u1[a];
        v[a] = v0[a] - v1[a];
      }
      nrm[0] = u[1] * v[2] - u[2] * v[1];
      nrm[1] = u[2] * v[0] - u[0] * v[2];
      nrm[2] = u[0] * v[1] - u[1] * v[0];
      int lo = fcd__vtk_nodes_of(linear(ms->etype[owner]));
      centroid(ms, x->conn + ms->eoff[owner], lo, c);
      fcd_index fn[4];
      for (int k = 0; k < nc; k++) fn[k] = conn[loc[k]];
      centroid(ms, fn, nc, fc);
      double d = 0;
      for (int a = 0; a < 3; a++) d += nrm[a] * (fc[a] - c[a]);
      if (d < 0)
        for (int i = 1, j = nc - 1; i < j; i++, j--) {
          int tmp = loc[i];
          loc[i] = loc[j];
          loc[j] = tmp;
        }
    }
  }
  fcd_index cn[4], m[4];
  for (int k = 0; k < nc; k++) cn[k] = conn[loc[k]];
  int ok = 1;
  if (!is_quadratic(t)) ok = put_facet(F, cn, nc);
  else {
    for (int k = 0; k < nc; k++) m[k] = mid_of(t, conn, loc[k], loc[(k + 1) % nc]);
    if (nc == 2) { /* a 3-node edge: two segments */
      fcd_index a[2] = {cn[0], m[0]}, b[2] = {m[0], cn[1]};
      ok = put_facet(F, a, 2) && put_facet(F, b, 2);
    } else if (nc == 3) { /* four triangles */
      fcd_index s[4][3] = {{cn[0], m[0], m[2]}, {m[0], cn[1], m[1]}, {m[2], m[1], cn[2]},
                           {m[0], m[1], m[2]}};
      for (int k = 0; k < 4 && ok; k++) ok = put_facet(F, s[k], 3);
    } else { /* eight nodes: four corner triangles and the quadrilateral of the mids */
      for (int k = 0; k < 4 && ok; k++) {
        fcd_index s[3] = {cn[k], m[k], m[(k + 3) % 4]};
        ok = put_facet(F, s, 3);
      }
      if (ok) ok = put_facet(F, m, 4);
    }
  }
  return ok ? FCD_OK : fcd__err(ms->sys, FCD_E_NOMEM, "%s: out of memory", ms->path);
}

static int cmp_index(const void *a, const void *b) {
  fcd_index x = *(const fcd_index *)a, y = *(const fcd_index *)b;
  return x < y ? -1 : x > y;
}

/* a group's facets; 0 facets is not an error here (the group is then no surface) */
static fcd_status face_group_facets(ctx *x, const fcd__mgroup *g, facets *F) {
  fcd__meshsrc *ms = x->ms;
  for (fcd_index k = 0; k < g->n; k++) {
    fcd_index e = find_label(ms->elab, x->elem_order, ms->ne, g->item[k]);
    if (e < 0)
      return fcd__err(ms->sys, FCD_E_INVALID_ARG, "%s: surface '%s' names element %lld, "
                      "which the file does not define", ms->path, g->name,
                      (long long)g->item[k]);
    const signed char(*f)[4] = NULL;
    int nf = faces_of(ms->etype[e], ms->dim, &f), face = g->face[k];
    if (face == -2 && topo_dim(ms->etype[e]) == ms->dim - 1) {
      static const signed char all[4] = {0, 1, 2, 3};
      FCD_TRY(add_face(x, F, e, all, fcd__vtk_nodes_of(linear(ms->etype[e]))));
      continue;
    }
    if (face == -2) { /* a volume element's faces on the boundary */
      FCD_TRY(build_faces(x));
      for (int q = 0; q < nf; q++) {
        facekey fk;
        fcd_index nodes[4];
        int nc = 0;
        while (nc < 4 && f[q][nc] >= 0) {
          nodes[nc] = x->conn[ms->eoff[e] + f[q][nc]];
          nc++;
        }
        make_key(fk.key, nodes, nc);
        const facekey *hit = bsearch(&fk, x->faces, (size_t)x->nfaces, sizeof fk, cmp_facekey);
        int once = hit && !(hit > x->faces && cmp_facekey(hit - 1, hit) == 0) &&
                   !(hit + 1 < x->faces + x->nfaces && cmp_facekey(hit + 1, hit) == 0);
        if (once) FCD_TRY(add_face(x, F, e, f[q], nc));
      }
      continue;
    }
    if (face < 0) { /* the face holding three given nodes */
      fcd_index want[3];
      for (int a = 0; a < 3; a++) {
        want[a] = find_label(ms->nlab, x->lab_order, ms->nn, g->by3[3 * k + a]);
      }
      for (int q = 0; q < nf && face < 0; q++) {
        int hits = 0;
        for (int a = 0; a < 3; a++)
          for (int c = 0; c < 4 && f[q][c] >= 0; c++)
            hits += x->conn[ms->eoff[e] + f[q][c]] == want[a];
        if (hits == 3) face = q;
      }
      if (face < 0)
        return fcd__err(ms->sys, FCD_E_INVALID_ARG, "%s: surface '%s': element %lld has no "
                        "face through nodes %lld %lld %lld", ms->path, g->name,
                        (long long)g->item[k], (long long)g->by3[3 * k],
                        (long long)g->by3[3 * k + 1], (long long)g->by3[3 * k + 2]);
    }
    if (face >= nf)
      return fcd__err(ms->sys, FCD_E_INVALID_ARG, "%s: surface '%s': element %lld has %d "
                      "faces, not %d", ms->path, g->name, (long long)g->item[k], nf,
                      face + 1);
    int nc = 0;
    while (nc < 4 && f[face][nc] >= 0) nc++;
    FCD_TRY(add_face(x, F, e, f[face], nc));
  }
return FCD_OK;
}

/* the faces of sorted keys fk that no other face shares (a body's boundary), those with
 * every corner in the sorted nodes in[] when in is given, as facets */
static fcd_status add_unshared(ctx *x, const facekey *fk, fcd_index n, const fcd_index *in,
                               fcd_index nin, facets *F) {
  fcd__meshsrc *ms = x->ms;
  fcd_status st = FCD_OK;
  for (fcd_index a = 0; a < n && st == FCD_OK;) {
    fcd_index b = a + 1;
    while (b < n && cmp_facekey(&fk[a], &fk[b]) == 0) b++;
    int take = b == a + 1;
    for (int c = 0; take && in && c < 4 && fk[a].key[c] != INT64_MAX; c++)
      take = bsearch(&fk[a].key[c], in, (size_t)nin, sizeof *in, cmp_index) != NULL;
    if (take) {
      const signed char(*f)[4] = NULL;
      faces_of(ms->etype[fk[a].elem], ms->dim, &f);
      int nc = 0;
      while (nc < 4 && f[fk[a].face][nc] >= 0) nc++;
      st = add_face(x, F, fk[a].elem, f[fk[a].face], nc);
    }
    a = b;
  }
  return st;
}

static fcd_status node_group_facets(ctx *x, const fcd__mgroup *g, facets *F) {
  fcd__meshsrc *ms = x->ms;
  /* a node set: the boundary faces of the volume elements with every corner in it */
  fcd_index *in = fcd__malloc_array((size_t)g->n + 1, sizeof *in);
  if (!in) return fcd__err(ms->sys, FCD_E_NOMEM, "%s: out of memory", ms->path);
  fcd_index nin = 0;
  for (fcd_index k = 0; k < g->n; k++) {
    fcd_index p = find_label(ms->nlab, x->lab_order, ms->nn, g->item[k]);
    if (p < 0) {
      fcd__free(in);
      return fcd__err(ms->sys, FCD_E_INVALID_ARG, "%s: set '%s' names node %lld, which the "
                      "file does not define", ms->path, g->name, (long long)g->item[k]);
    }
    in[nin++] = p;
  }
  qsort(in, (size_t)nin, sizeof *in, cmp_index);
  fcd_status st = build_faces(x);
  if (st == FCD_OK) st = add_unshared(x, x->faces, x->nfaces, in, nin, F);
  fcd__free(in);
  return st;
}


/* the faces of a group's volume elements that no other element of the group shares: the
 * skin of the body the group is (a Gmsh physical volume, an Abaqus element set of solids,
 * the solid elements of a Nastran BSURF) */
static fcd_status skin_facets(ctx *x, const fcd_index *elems, fcd_index n, facets *F) {
  fcd__meshsrc *ms = x->ms;
  fcd_index nf = 0;
  for (fcd_index k = 0; k < n; k++) {
    const signed char(*f)[4] = NULL;
    nf += faces_of(ms->etype[elems[k]], ms->dim, &f);
  }
  facekey *fk = fcd__malloc_array((size_t)nf + 1, sizeof *fk);
  if (!fk) return fcd__err(ms->sys, FCD_E_NOMEM, "%s: out of memory", ms->path);
  nf = 0;
  for (fcd_index k = 0; k < n; k++) {
    const signed char(*f)[4] = NULL;
    int q = faces_of(ms->etype[elems[k]], ms->dim, &f);
    for (int j = 0; j < q; j++) {
      fcd_index nodes[4];
      int c = 0;
      while (c < 4 && f[j][c] >= 0) {
        nodes[c] = x->conn[ms->eoff[elems[k]] + f[j][c]];
        c++;
      }
      make_key(fk[nf].key, nodes, c);
      fk[nf].elem = elems[k];
      fk[nf++].face = j;
    }
  }
  qsort(fk, (size_t)nf, sizeof *fk, cmp_facekey);
  fcd_status st = add_unshared(x, fk, nf, NULL, 0, F);
  fcd__free(fk);
  return st;
}

static fcd_status group_facets(ctx *x, const fcd__mgroup *g, facets *F) {
  fcd__meshsrc *ms = x->ms;
  if (g->kind == FCD__G_FACES) return face_group_facets(x, g, F);
  if (g->kind == FCD__G_NODES) return node_group_facets(x, g, F);
  /* elements: surface elements are facets; volume elements give their skin */
  fcd_index *vol = fcd__malloc_array((size_t)g->n + 1, sizeof *vol), nv = 0;
  if (!vol) return fcd__err(ms->sys, FCD_E_NOMEM, "%s: out of memory", ms->path);
  fcd_status st = FCD_OK;
  for (fcd_index k = 0; k < g->n && st == FCD_OK; k++) {
    fcd_index e = find_label(ms->elab, x->elem_order, ms->ne, g->item[k]);
    if (e < 0 && ms->skipped) continue;
    if (e < 0) {
      st = fcd__err(ms->sys, FCD_E_INVALID_ARG, "%s: set '%s' names element %lld, which "
                    "the file does not define", ms->path, g->name, (long long)g->item[k]);
      break;
    }
    if (topo_dim(ms->etype[e]) == ms->dim) vol[nv++] = e;
    if (topo_dim(ms->etype[e]) != ms->dim - 1) continue;
    int nc = fcd__vtk_nodes_of(linear(ms->etype[e]));
    static const signed char all[4] = {0, 1, 2, 3};
    st = add_face(x, F, e, all, nc);
  }
  if (st == FCD_OK && nv) { /* an element listed twice is one element of the body */
    qsort(vol, (size_t)nv, sizeof *vol, cmp_index);
    fcd_index u = 0;
    for (fcd_index k = 0; k < nv; k++)
      if (k == 0 || vol[k] != vol[k - 1]) vol[u++] = vol[k];
    st = skin_facets(x, vol, u, F);
  }
  fcd__free(vol);
  return st;
}

/* labels checked unique, the elements' nodes as indices, the coordinates (dim per node) */
static fcd_status resolve(ctx *xp, double *coords) {
  ctx x = *xp;
  fcd__meshsrc *ms = x.ms;
  fcd_system *sys = ms->sys;
  fcd_status st = FCD_OK;
  for (fcd_index k = 1; k < ms->nn; k++)
    if (ms->nlab[x.lab_order[k]] == ms->nlab[x.lab_order[k - 1]]) {
      st = fcd__err(sys, FCD_E_FORMAT, "%s: node %lld is defined twice", ms->path,
                    (long long)ms->nlab[x.lab_order[k]]);
      return st;
    }
  for (fcd_index k = 1; k < ms->ne; k++)
    if (ms->elab[x.elem_order[k]] == ms->elab[x.elem_order[k - 1]]) {
      st = fcd__err(sys, FCD_E_FORMAT, "%s: element %lld is defined twice", ms->path,
                    (long long)ms->elab[x.elem_order[k]]);
      return st;
    }
  for (fcd_index e = 0; e < ms->ne; e++)
    for (fcd_index q = ms->eoff[e]; q < ms->eoff[e + 1]; q++) {
      x.conn[q] = find_label(ms->nlab, x.lab_order, ms->nn, ms->econn[q]);
      if (x.conn[q] < 0) {
        st = fcd__err(sys, FCD_E_FORMAT, "%s: element %lld names node %lld, which the file "
                      "does not define", ms->path, (long long)ms->elab[e],
                      (long long)ms->econn[q]);
        return st;
      }
    }
  for (fcd_index p = 0; p < ms->nn; p++)
    for (int a = 0; a < 3; a++) {
      double v = ms->xyz[3 * p + a];
      if (!isfinite(v)) {
        st = fcd__err(sys, FCD_E_FORMAT, "%s: node %lld: coordinate %d is not finite",
                      ms->path, (long long)ms->nlab[p], a + 1);
        return st;
      }
      if (a < ms->dim) coords[p * ms->dim + a] = v;
      else if (v != 0) {
        st = fcd__err(sys, FCD_E_INVALID_ARG, "%s: node %lld has z = %g in a 2D mesh",
                      ms->path, (long long)ms->nlab[p], v);
        return st;
      }
    }
  return st;
}

/* each group with facets becomes a surface of m */
static fcd_status make_surfaces(ctx *xp, fcd_mesh *m) {
  fcd__meshsrc *ms = xp->ms;
  fcd_system *sys = ms->sys;
  fcd_status st = FCD_OK;
  for (int k = 0; k < ms->ng; k++) {
    facets F = {0, 0, NULL, ms->dim == 3 ? 4 : 2};
    st = group_facets(xp, &ms->g[k], &F);
    if (st == FCD_OK && F.n > 0) {
      size_t nl = strlen(ms->g[k].name);
      char *name = fcd__malloc(nl + 1);
      if (!name) st = fcd__err(sys, FCD_E_NOMEM, "%s: out of memory", ms->path);
      else {
        memcpy(name, ms->g[k].name, nl + 1);
        m->surf[m->nsurf++] = (fcd__msurface){name, F.n, F.f};
        F.f = NULL;
      }
    }
    fcd__free(F.f);
    if (st != FCD_OK) return st;
  }
  return st;
}

fcd_status fcd__ms_finish(fcd__meshsrc *ms, fcd_mesh **out) {
  fcd_system *sys = ms->sys;
  *out = NULL;
  ctx x;
  memset(&x, 0, sizeof x);
  x.ms = ms;
  fcd_status st = FCD_OK;
  fcd_mesh *m = NULL;
  double *coords = NULL;
  fcd_index *node_dofs = NULL;
  if (ms->nn == 0) return fcd__err(sys, FCD_E_FORMAT, "%s: the file defines no node", ms->path);
  x.lab_order = order_by(ms->nlab, ms->nn);
  x.elem_order = order_by(ms->elab, ms->ne);
  x.conn = fcd__malloc_array((size_t)ms->clen + 1, sizeof *x.conn);
  coords = fcd__malloc_array((size_t)ms->nn * 3, sizeof *coords);
  node_dofs = fcd__malloc_array((size_t)ms->nn * 3, sizeof *node_dofs);
  if (!x.lab_order || !x.elem_order || !x.conn || !coords || !node_dofs) {
    st = fcd__err(sys, FCD_E_NOMEM, "%s: out of memory", ms->path);
    goto done;
  }
  if ((st = resolve(&x, coords)) != FCD_OK) goto done;
  /* dofs: through the model's dof map by label, else node p of the file owns dim p .. */
  int mapped = sys->map_label != NULL;
  for (fcd_index p = 0; p < ms->nn; p++)
    for (int a = 0; a < ms->dim; a++) {
      fcd_index d = p * ms->dim + a;
      if (mapped) fcd__system_dof_of(sys, ms->nlab[p], a + 1, &d);
      node_dofs[p * ms->dim + a] = d;
    }
  if (!mapped && ms->nn * ms->dim != sys->n) {
    st = fcd__err(sys, FCD_E_INVALID_ARG, "%s: %lld nodes in %dD own %lld dofs, the system "
                  "has %lld (without a dof map, node p of the file owns dofs %d p .. %d p + "
                  "%d; matrices by node label give the system a map)", ms->path,
                  (long long)ms->nn, ms->dim, (long long)(ms->nn * ms->dim), (long long)sys->n,
                  ms->dim, ms->dim, ms->dim - 1);
    goto done;
  }
  if ((st = fcd_mesh_create(sys, ms->dim, ms->nn, coords, node_dofs, &m)) != FCD_OK) goto done;
  for (fcd_index e = 0; e < ms->ne; e++) {
    st = fcd_mesh_add_cells(m, ms->etype[e], 1, x.conn + ms->eoff[e]);
    if (st != FCD_OK) {
      char why[FCD_ERRMSG_CAP];
      snprintf(why, sizeof why, "%s", fcd_system_last_error(sys));
      const char *p = strstr(why, "cell 0 ");
      st = fcd__err(sys, st, "%s: element %lld %s", ms->path, (long long)ms->elab[e],
                    p ? p + 7 : why);
      goto done;
    }
  }
  m->label = fcd__malloc_array((size_t)ms->nn, sizeof *m->label);
  m->surf = fcd__calloc((size_t)ms->ng + 1, sizeof *m->surf);
  if (!m->label || !m->surf) {
    st = fcd__err(sys, FCD_E_NOMEM, "%s: out of memory", ms->path);
    goto done;
  }
  memcpy(m->label, ms->nlab, (size_t)ms->nn * sizeof *m->label);
  m->format = ms->format;
  st = make_surfaces(&x, m);
done:
  fcd__free(x.lab_order);
  fcd__free(x.elem_order);
  fcd__free(x.conn);
  fcd__free(x.faces);
  fcd__free(coords);
  fcd__free(node_dofs);
  if (st != FCD_OK) {
    fcd_mesh_destroy(m);
    return st;
  }
  *out = m;
  return FCD_OK;
}
