/* Contact between two non-matching surfaces of a 3D mesh (issue 22): the rows of H of
 * node-to-segment (here node-to-facet) or dual mortar contacts, in the reference
 * configuration (small sliding), for linear triangles and bilinear quadrilaterals.
 * Facets come as four mesh node ids, the fourth -1 for a triangle.
 *
 * Normals. A facet's normal is the cross product of its edges (a quadrilateral's: of
 * its diagonals, the mean normal of a bilinear facet) in the host's node order, which
 * must make it the outward normal of its body (right-hand rule: counter-clockwise seen
 * from outside, as boundary facets of VTK, gmsh and deal.II cells come). Touching
 * surfaces leave no other way to tell the sides apart. A slave normal thus points from
 * the slave body into the master, fcd's convention; a master facet faces a slave facet
 * when their normals are opposed. A slave node's normal is the normalized sum of its
 * facets'; its tangents are t = the coordinate axis least aligned with n, made
 * orthogonal to n and unit, and b = n x t. The order must be consistent over each
 * surface (every shared edge run both ways): a surface whose facets disagree is
 * refused, naming the two facets.
 *
 * Node-to-facet: slave node s against the closest point of the master facets that face
 * it (facet normals opposed), x_m(eta) = sum_k N_k(eta) x_k; rows N: n . u_s -
 * sum_k N_k n . u_k, T and B likewise with t and b; gap n . (x_m - x_s).
 *
 * Dual mortar (Wohlmuth 2000; the segment-based integration of Puso and Laursen 2004):
 * on each slave facet the biorthogonal basis psi_i = sum_j A_ij N_j, A = D_e M_e^-1
 * (D_e = diag(int N_i), M_e = [int N_i N_j], so int psi_i N_j = delta_ij int N_j). Each
 * master facet facing it is projected along the slave facet's normal onto its plane and
 * clipped against it (Sutherland-Hodgman, both convex); the clipped polygon is cut into
 * triangles from its centre and integrated with the 7-point degree-5 rule, each point
 * mapped back to both facets. For slave node j:
 *   M_jk = int psi_j N_k^master,  D_j = sum_k M_jk = int psi_j over the covered part,
 *   g_j = int psi_j n_e . (x_master - x_slave),
 * and rows N: D_j n_j . u_j - sum_k M_jk n_j . u_k, T and B likewise, gap g_j. D_j as the
 * sum of the M_jk keeps every row blind to a rigid translation, also where a slave facet
 * is only partly covered (with full cover it is int N_j). A slave node whose D_j is not
 * positive (less than 1e-10 of int N_j) faces no master and gets no contact. */
#include "model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const fcd_system *sys;
  fcd_index nnodes;
  const fcd_real *x;    /* 3 per node */
  const fcd_index *dof; /* 3 per node */
  fcd_index nf[2];      /* slave, master facet counts */
  const fcd_index *f[2];
  fcd_real *fn[2];      /* each facet's unit normal, oriented */
  fcd_real *box[2];     /* each facet's bounding box, 6 per facet */
  fcd_real scale;       /* a length of the model */
  fcd_real pad;         /* how far along a normal a facet is looked for: the largest
                         * facet's size */
} surf3;

static const char *side_name[2] = {"slave", "master"};

static int nvert(const fcd_index *f) { return f[3] < 0 ? 3 : 4; }

/* shape functions of a facet at (a, b): triangle (1 - a - b, a, b) on the unit
 * triangle; quadrilateral (1 +- a)(1 +- b)/4 on [-1, 1]^2, nodes counter-clockwise from
 * (-1, -1) */
static void shape(int nv, fcd_real a, fcd_real b, fcd_real N[4], fcd_real da[4], fcd_real db[4]) {
  if (nv == 3) {
    N[0] = 1 - a - b, N[1] = a, N[2] = b, N[3] = 0;
    da[0] = -1, da[1] = 1, da[2] = 0, da[3] = 0;
    db[0] = -1, db[1] = 0, db[2] = 1, db[3] = 0;
    return;
  }
  static const fcd_real sa[4] = {-1, 1, 1, -1}, sb[4] = {-1, -1, 1, 1};
  for (int i = 0; i < 4; i++) {
    N[i] = 0.25 * (1 + sa[i] * a) * (1 + sb[i] * b);
    da[i] = 0.25 * sa[i] * (1 + sb[i] * b);
    db[i] = 0.25 * sb[i] * (1 + sa[i] * a);
  }
}

static void facet_coords(const surf3 *s, const fcd_index *f, fcd_real X[4][3]) {
  for (int i = 0; i < nvert(f); i++)
    for (int c = 0; c < 3; c++) X[i][c] = s->x[3 * f[i] + c];
}

/* point, and its two tangent vectors, of a facet at (a, b) */
static void facet_eval(int nv, const fcd_real X[4][3], fcd_real a, fcd_real b, fcd_real p[3],
                       fcd_real ta[3], fcd_real tb[3], fcd_real N[4]) {
  fcd_real da[4], db[4];
  shape(nv, a, b, N, da, db);
  for (int c = 0; c < 3; c++) {
    p[c] = ta[c] = tb[c] = 0;
    for (int i = 0; i < nv; i++) {
      p[c] += N[i] * X[i][c];
      ta[c] += da[i] * X[i][c];
      tb[c] += db[i] * X[i][c];
    }
  }
}

static void cross(const fcd_real a[3], const fcd_real b[3], fcd_real c[3]) {
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

static fcd_real dot(const fcd_real a[3], const fcd_real b[3]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* unnormalized normal of a facet by the host's node order: its length is twice the
 * area (triangle), or the product of the diagonals' cross (quadrilateral) */
static void raw_normal(int nv, const fcd_real X[4][3], fcd_real n[3]) {
  fcd_real u[3], v[3];
  for (int c = 0; c < 3; c++) {
    u[c] = X[nv == 3 ? 1 : 2][c] - X[0][c];
    v[c] = X[nv == 3 ? 2 : 3][c] - X[nv == 3 ? 0 : 1][c];
  }
  cross(u, v, n);
}

/* every id a node of the mesh with three dofs, no repeats, area > 0 */
static fcd_status check_facets(const surf3 *s, int w) {
  const fcd_system *sys = s->sys;
  if (s->nf[w] < 1 || !s->f[w])
    return fcd__err(sys, FCD_E_INVALID_ARG, "surface pair: the %s surface has no facet",
                    side_name[w]);
  for (fcd_index e = 0; e < s->nf[w]; e++) {
    const fcd_index *f = s->f[w] + 4 * e;
    int nv = f[3] == -1 ? 3 : 4;
    for (int i = 0; i < nv; i++) {
      if (f[i] < 0 || f[i] >= s->nnodes)
        return fcd__err(sys, FCD_E_INVALID_ARG, "surface pair: %s facet %lld has node %lld, "
                        "not a node of [0, %lld) (a triangle gives -1 as its fourth)",
                        side_name[w], (long long)e, (long long)f[i], (long long)s->nnodes);
      for (int j = 0; j < i; j++)
        if (f[j] == f[i])
          return fcd__err(sys, FCD_E_INVALID_ARG, "surface pair: %s facet %lld has node "
                          "%lld twice", side_name[w], (long long)e, (long long)f[i]);
      for (int c = 0; c < 3; c++)
        if (s->dof[3 * f[i] + c] < 0)
          return fcd__err(sys, FCD_E_INVALID_ARG, "surface pair: node %lld of %s facet %lld "
                          "has no dof in direction %d", (long long)f[i], side_name[w],
                          (long long)e, c);
    }
    fcd_real X[4][3], n[3];
    facet_coords(s, f, X);
    raw_normal(nv, X, n);
    if (!(sqrt(dot(n, n)) > 1e-12 * s->scale * s->scale))
      return fcd__err(sys, FCD_E_INVALID_ARG, "surface pair: %s facet %lld has area zero",
                      side_name[w], (long long)e);
  }
  return FCD_OK;
}

typedef struct {
  fcd_index a, b, facet;
  int dir;
} edge;

static int cmp_edge(const void *x, const void *y) {
  const edge *p = x, *q = y;
  if (p->a != q->a) return p->a < q->a ? -1 : 1;
  if (p->b != q->b) return p->b < q->b ? -1 : 1;
  return (p->facet > q->facet) - (p->facet < q->facet);
}

/* a consistently ordered surface runs each shared edge once each way */
static fcd_status check_orientation(const surf3 *s, int w) {
  fcd_index n = 0;
  edge *E = fcd__malloc_array(4 * (size_t)s->nf[w], sizeof *E);
  if (!E) return fcd__err(s->sys, FCD_E_NOMEM, "surface pair: out of memory");
  for (fcd_index e = 0; e < s->nf[w]; e++) {
    const fcd_index *f = s->f[w] + 4 * e;
    int nv = nvert(f);
    for (int i = 0; i < nv; i++) {
      fcd_index p = f[i], q = f[(i + 1) % nv];
      E[n].a = p < q ? p : q;
      E[n].b = p < q ? q : p;
      E[n].dir = p < q ? 1 : -1;
      E[n++].facet = e;
    }
  }
  qsort(E, (size_t)n, sizeof *E, cmp_edge);
  fcd_status st = FCD_OK;
  for (fcd_index i = 0; i + 1 < n && st == FCD_OK; i++)
    if (E[i].a == E[i + 1].a && E[i].b == E[i + 1].b && E[i].dir == E[i + 1].dir)
      st = fcd__err(s->sys, FCD_E_INVALID_ARG, "surface pair: %s facets %lld and %lld are "
                    "oriented inconsistently (both run their common edge %lld-%lld the same "
                    "way)", side_name[w], (long long)E[i].facet, (long long)E[i + 1].facet,
                    (long long)E[i].a, (long long)E[i].b);
  fcd__free(E);
  return st;
}

/* no node on both surfaces: two bodies in contact need their own nodes on each side (a
 * mesh whose coincident nodes were merged when read has welded them) */
static fcd_status check_shared_nodes(const surf3 *s) {
  unsigned char *on_master = fcd__calloc((size_t)s->nnodes + 1, 1);
  if (!on_master) return fcd__err(s->sys, FCD_E_NOMEM, "surface pair: out of memory");
  for (fcd_index e = 0; e < s->nf[1]; e++)
    for (int i = 0; i < 4; i++)
      if (s->f[1][4 * e + i] >= 0) on_master[s->f[1][4 * e + i]] = 1;
  fcd_status st = FCD_OK;
  for (fcd_index e = 0; e < s->nf[0] && st == FCD_OK; e++)
    for (int i = 0; i < 4 && st == FCD_OK; i++) {
      fcd_index v = s->f[0][4 * e + i];
      if (v >= 0 && on_master[v])
        st = fcd__err(s->sys, FCD_E_INVALID_ARG, "surface pair: node %lld is on both the "
                      "slave surface (facet %lld) and the master surface: two bodies in "
                      "contact need nodes of their own on each side (a mesh whose "
                      "coincident nodes were merged when read has welded them)",
                      (long long)v, (long long)e);
    }
  fcd__free(on_master);
  return st;
}

/* unit normals by the host's node order (outward by the right-hand rule), and
 * bounding boxes */
static fcd_status facet_normals(surf3 *s) {
  for (int w = 0; w < 2; w++) {
    s->fn[w] = fcd__malloc_array(3 * (size_t)s->nf[w], sizeof *s->fn[w]);
    s->box[w] = fcd__malloc_array(6 * (size_t)s->nf[w], sizeof *s->box[w]);
    if (!s->fn[w] || !s->box[w]) return fcd__err(s->sys, FCD_E_NOMEM, "surface pair: out of memory");
  }
  for (int w = 0; w < 2; w++)
    for (fcd_index e = 0; e < s->nf[w]; e++) {
      const fcd_index *f = s->f[w] + 4 * e;
      int nv = nvert(f);
      fcd_real X[4][3], n[3], *bx = s->box[w] + 6 * e;
      facet_coords(s, f, X);
      raw_normal(nv, X, n);
      fcd_real L = sqrt(dot(n, n));
      for (int c = 0; c < 3; c++) {
        bx[c] = INFINITY;
        bx[3 + c] = -INFINITY;
        for (int i = 0; i < nv; i++) {
          bx[c] = fmin(bx[c], X[i][c]);
          bx[3 + c] = fmax(bx[3 + c], X[i][c]);
        }
        s->fn[w][3 * e + c] = n[c] / L;
      }
    }
  return FCD_OK;
}

/* (a, b) of the facet point whose projection along n is p's: the two equations of the
 * plane orthogonal to n (in-plane basis e1, e2), Newton; a triangle is affine, so its
 * first step is exact. 0 when it fails. */
static int inverse_map(int nv, const fcd_real X[4][3], const fcd_real e1[3], const fcd_real e2[3],
                       const fcd_real p[3], fcd_real *a, fcd_real *b) {
  *a = nv == 3 ? 1.0 / 3 : 0;
  *b = nv == 3 ? 1.0 / 3 : 0;
  for (int it = 0; it < 30; it++) {
    fcd_real q[3], ta[3], tb[3], N[4];
    facet_eval(nv, X, *a, *b, q, ta, tb, N);
    fcd_real r[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]};
    fcd_real r1 = dot(r, e1), r2 = dot(r, e2);
    fcd_real j11 = dot(ta, e1), j12 = dot(tb, e1), j21 = dot(ta, e2), j22 = dot(tb, e2);
    fcd_real det = j11 * j22 - j12 * j21;
    if (!(fabs(det) > 0)) return 0;
    fcd_real da = (j22 * r1 - j12 * r2) / det, db = (-j21 * r1 + j11 * r2) / det;
    *a -= da;
    *b -= db;
    if (nv == 3 || fabs(da) + fabs(db) < 1e-14) return 1;
  }
  return 0;
}

/* an in-plane basis e1, e2 of the plane orthogonal to the unit vector n */
static void plane_basis(const fcd_real n[3], fcd_real e1[3], fcd_real e2[3]) {
  fcd_real ax[3] = {fabs(n[0]) < 0.9 ? 1.0 : 0.0, fabs(n[0]) < 0.9 ? 0.0 : 1.0, 0};
  cross(n, ax, e1);
  fcd_real L = sqrt(dot(e1, e1));
  for (int c = 0; c < 3; c++) e1[c] /= L;
  cross(n, e1, e2);
}

static int inside(int nv, fcd_real a, fcd_real b, fcd_real tol) {
  if (nv == 3) return a >= -tol && b >= -tol && a + b <= 1 + tol;
  return fabs(a) <= 1 + tol && fabs(b) <= 1 + tol;
}

/* the orthonormal frame of a slave node: n, t (the axis least aligned with n, made
 * orthogonal), b = n x t */
static void node_frame(const fcd_real n[3], fcd_real t[3], fcd_real b[3]) {
  int k = 0;
  for (int c = 1; c < 3; c++)
    if (fabs(n[c]) < fabs(n[k])) k = c;
  fcd_real e[3] = {0, 0, 0};
  e[k] = 1;
  for (int c = 0; c < 3; c++) t[c] = e[c] - n[k] * n[c];
  fcd_real L = sqrt(dot(t, t));
  for (int c = 0; c < 3; c++) t[c] /= L;
  cross(n, t, b);
}

/* the slave nodes (distinct, sorted) and their normals (sum of their facets') */
static fcd_status slave_nodes3(const surf3 *s, fcd_index **nodes, fcd_real **normal,
                               fcd_index *count, fcd_index **slot) {
  fcd_index *mark = fcd__malloc_array((size_t)s->nnodes + 1, sizeof *mark);
  if (!mark) return fcd__err(s->sys, FCD_E_NOMEM, "surface pair: out of memory");
  for (fcd_index i = 0; i < s->nnodes; i++) mark[i] = -1;
  fcd_index n = 0;
  for (fcd_index k = 0; k < 4 * s->nf[0]; k++)
    if (s->f[0][k] >= 0 && mark[s->f[0][k]] < 0) mark[s->f[0][k]] = n++;
  fcd_index *nd = fcd__malloc_array((size_t)n + 1, sizeof *nd);
  fcd_real *nr = fcd__calloc(3 * (size_t)n + 1, sizeof *nr);
  if (!nd || !nr) {
    fcd__free(mark);
    fcd__free(nd);
    fcd__free(nr);
    return fcd__err(s->sys, FCD_E_NOMEM, "surface pair: out of memory");
  }
  /* number the nodes in increasing id: the contacts' order does not depend on the
   * facets' */
  n = 0;
  for (fcd_index i = 0; i < s->nnodes; i++)
    if (mark[i] >= 0) {
      mark[i] = n;
      nd[n++] = i;
    }
  for (fcd_index e = 0; e < s->nf[0]; e++)
    for (int i = 0; i < nvert(s->f[0] + 4 * e); i++) {
      fcd_index j = mark[s->f[0][4 * e + i]];
      for (int c = 0; c < 3; c++) nr[3 * j + c] += s->fn[0][3 * e + c];
    }
  for (fcd_index j = 0; j < n; j++) {
    fcd_real L = sqrt(dot(nr + 3 * j, nr + 3 * j));
    for (int c = 0; c < 3; c++) nr[3 * j + c] /= L;
  }
  *nodes = nd;
  *normal = nr;
  *count = n;
  *slot = mark;
  return FCD_OK;
}

/* one contact from weights w[k] on nodes v[k] (the slave node first) along n_j */
static fcd_status add_rows3(fcd_contact_set *cs, const surf3 *s, const fcd_real n[3],
                            fcd_index nw, const fcd_index *v, const fcd_real *w, fcd_real gap,
                            fcd_real mu, fcd_index *id, fcd_index *dofs, fcd_real *wt) {
  fcd_real t[3], b[3];
  node_frame(n, t, b);
  const fcd_real *dir[3] = {n, t, b};
  fcd_index rp[4] = {0, 3 * nw, 6 * nw, 9 * nw};
  for (int r = 0; r < 3; r++)
    for (fcd_index k = 0; k < nw; k++)
      for (int c = 0; c < 3; c++) {
        dofs[r * 3 * nw + 3 * k + c] = s->dof[3 * v[k] + c];
        wt[r * 3 * nw + 3 * k + c] = w[k] * dir[r][c];
      }
  return fcd_contact_set_add_rows(cs, rp, dofs, wt, gap, mu, id);
}

/* squared distance from p to a box */
static int boxes_meet(const fcd_real *a, const fcd_real *b, fcd_real pad) {
  for (int c = 0; c < 3; c++)
    if (a[c] > b[3 + c] + pad || b[c] > a[3 + c] + pad) return 0;
  return 1;
}

static fcd_real box_dist2(const fcd_real *bx, const fcd_real p[3]) {
  fcd_real d2 = 0;
  for (int c = 0; c < 3; c++) {
    fcd_real d = p[c] < bx[c] ? bx[c] - p[c] : p[c] > bx[3 + c] ? p[c] - bx[3 + c] : 0;
    d2 += d * d;
  }
  return d2;
}

/* A uniform grid of bins over the master facets' boxes: a query visits the facets
 * whose boxes meet a box, each once (a stamp per facet), instead of every facet. */
typedef struct {
  fcd_real lo[3], h[3];
  int nb[3];
  fcd_index *start, *item; /* CSR: bin b holds item[start[b] .. start[b + 1]) */
  fcd_index *stamp, tick;
} bins;

static void bins_free(bins *g) {
  fcd__free(g->start);
  fcd__free(g->item);
  fcd__free(g->stamp);
  memset(g, 0, sizeof *g);
}

static void bin_range(const bins *g, const fcd_real *bx, fcd_real pad, int r0[3], int r1[3]) {
  for (int c = 0; c < 3; c++) {
    fcd_real a = (bx[c] - pad - g->lo[c]) / g->h[c], b = (bx[3 + c] + pad - g->lo[c]) / g->h[c];
    r0[c] = a < 0 ? 0 : a >= g->nb[c] ? g->nb[c] - 1 : (int)a;
    r1[c] = b < 0 ? 0 : b >= g->nb[c] ? g->nb[c] - 1 : (int)b;
  }
}

/* bins of about one master facet each along the surface */
static int bins_make(const surf3 *s, bins *g) {
  memset(g, 0, sizeof *g);
  fcd_index m = s->nf[1];
  fcd_real hi[3], size = 0;
  for (int c = 0; c < 3; c++) {
    g->lo[c] = INFINITY;
    hi[c] = -INFINITY;
  }
  for (fcd_index e = 0; e < m; e++)
    for (int c = 0; c < 3; c++) {
      const fcd_real *bx = s->box[1] + 6 * e;
      g->lo[c] = fmin(g->lo[c], bx[c]);
      hi[c] = fmax(hi[c], bx[3 + c]);
      size = fmax(size, bx[3 + c] - bx[c]);
    }
  fcd_index total = 1;
  for (int c = 0; c < 3; c++) {
    fcd_real ext = hi[c] - g->lo[c];
    g->nb[c] = size > 0 && ext > size ? (int)fmin(ext / size, 1024.0) : 1;
    g->h[c] = ext > 0 ? ext / g->nb[c] : 1;
    total *= g->nb[c];
  }
  g->start = fcd__calloc((size_t)total + 2, sizeof *g->start);
  g->stamp = fcd__calloc((size_t)m + 1, sizeof *g->stamp);
  if (!g->start || !g->stamp) return -1;
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 1) {
      for (fcd_index b = 0; b < total; b++) g->start[b + 1] += g->start[b];
      g->item = fcd__malloc_array((size_t)g->start[total] + 1, sizeof *g->item);
      if (!g->item) return -1;
    }
    for (fcd_index e = 0; e < m; e++) {
      int r0[3], r1[3];
      bin_range(g, s->box[1] + 6 * e, 0, r0, r1);
      for (int k = r0[2]; k <= r1[2]; k++)
        for (int j = r0[1]; j <= r1[1]; j++)
          for (int i = r0[0]; i <= r1[0]; i++) {
            fcd_index b = ((fcd_index)k * g->nb[1] + j) * g->nb[0] + i;
            if (pass == 0) g->start[b + 1]++;
            else g->item[g->start[b]++] = e;
          }
    }
    if (pass == 1) /* start[b] ran to the next bin's start: shift back */
      for (fcd_index b = total; b > 0; b--) g->start[b] = g->start[b - 1];
    if (pass == 1) g->start[0] = 0;
  }
  return 0;
}

/* the master facets whose boxes come within pad of box bx, into out (count returned;
 * out holds up to s->nf[1]) */
static fcd_index bins_query(bins *g, const fcd_real *bx, fcd_real pad, fcd_index *out) {
  int r0[3], r1[3];
  bin_range(g, bx, pad, r0, r1);
  fcd_index n = 0;
  g->tick++;
  for (int k = r0[2]; k <= r1[2]; k++)
    for (int j = r0[1]; j <= r1[1]; j++)
      for (int i = r0[0]; i <= r1[0]; i++) {
        fcd_index b = ((fcd_index)k * g->nb[1] + j) * g->nb[0] + i;
        for (fcd_index q = g->start[b]; q < g->start[b + 1]; q++) {
          fcd_index e = g->item[q];
          if (g->stamp[e] == g->tick) continue;
          g->stamp[e] = g->tick;
          out[n++] = e;
        }
      }
  return n;
}

/* node-to-facet: slave node p against the nearest point, along its normal n, of the
 * master facets that face it */
static fcd_status add_nts3(fcd_contact_set *cs, const surf3 *s, const fcd_index *nodes,
                           const fcd_real *normal, fcd_index count, fcd_real mu,
                           fcd_index *first, fcd_index *inactive) {
  fcd_index dofs[3 * 3 * 5];
  fcd_real wt[3 * 3 * 5];
  bins g;
  fcd_index *cand = fcd__malloc_array((size_t)s->nf[1] + 1, sizeof *cand);
  if (!cand || bins_make(s, &g)) {
    fcd__free(cand);
    bins_free(&g);
    return fcd__err(s->sys, FCD_E_NOMEM, "surface pair: out of memory");
  }
  fcd_status st = FCD_OK;
  for (fcd_index j = 0; j < count && st == FCD_OK; j++) {
    const fcd_real *p = s->x + 3 * nodes[j], *n = normal + 3 * j;
    fcd_real best = INFINITY, ba = 0, bb = 0;
    fcd_index be = -1;
    const fcd_real pb[6] = {p[0], p[1], p[2], p[0], p[1], p[2]};
    fcd_real e1[3], e2[3];
    plane_basis(n, e1, e2);
    fcd_index nc = bins_query(&g, pb, s->pad, cand);
    for (fcd_index ci = 0; ci < nc; ci++) {
      fcd_index e = cand[ci];
      if (dot(s->fn[1] + 3 * e, n) >= 0) continue; /* not facing */
      if (box_dist2(s->box[1] + 6 * e, p) >= fmin(best * best, s->pad * s->pad)) continue;
      const fcd_index *f = s->f[1] + 4 * e;
      int nv = nvert(f);
      fcd_real X[4][3], a, b, q[3], ta[3], tb[3], N[4];
      facet_coords(s, f, X);
      if (!inverse_map(nv, X, e1, e2, p, &a, &b) || !inside(nv, a, b, 1e-10)) continue;
      facet_eval(nv, X, a, b, q, ta, tb, N);
      fcd_real d = sqrt((q[0] - p[0]) * (q[0] - p[0]) + (q[1] - p[1]) * (q[1] - p[1]) +
                        (q[2] - p[2]) * (q[2] - p[2]));
      if (d < best) {
        best = d;
        be = e;
        ba = a;
        bb = b;
      }
    }
    if (be < 0) {
      (*inactive)++;
      continue;
    }
    const fcd_index *f = s->f[1] + 4 * be;
    int nv = nvert(f);
    fcd_real X[4][3], q[3], ta[3], tb[3], N[4];
    facet_coords(s, f, X);
    facet_eval(nv, X, ba, bb, q, ta, tb, N);
    fcd_index v[5] = {nodes[j]};
    fcd_real w[5] = {1.0};
    for (int k = 0; k < nv; k++) {
      v[k + 1] = f[k];
      w[k + 1] = -N[k];
    }
    fcd_real gap = n[0] * (q[0] - p[0]) + n[1] * (q[1] - p[1]) + n[2] * (q[2] - p[2]);
    if (gap < 0 && gap > -1e-12 * s->scale) gap = 0;
    fcd_index id;
    st = add_rows3(cs, s, n, nv + 1, v, w, gap, mu, &id, dofs, wt);
    if (st == FCD_OK && *first < 0) *first = id;
  }
  fcd__free(cand);
  bins_free(&g);
  return st;
}

/* ---- dual mortar ---------------------------------------------------------------- */

/* Dunavant's 7-point rule, degree 5, on a triangle: barycentric points, weights summing
 * to 1 */
static const fcd_real tri7[7][4] = {
    {1.0 / 3, 1.0 / 3, 1.0 / 3, 0.225},
    {0.059715871789770, 0.470142064105115, 0.470142064105115, 0.132394152788506},
    {0.470142064105115, 0.059715871789770, 0.470142064105115, 0.132394152788506},
    {0.470142064105115, 0.470142064105115, 0.059715871789770, 0.132394152788506},
    {0.797426985353087, 0.101286507323456, 0.101286507323456, 0.125939180544827},
    {0.101286507323456, 0.797426985353087, 0.101286507323456, 0.125939180544827},
    {0.101286507323456, 0.101286507323456, 0.797426985353087, 0.125939180544827}};

/* A = D_e M_e^-1 of a slave facet (psi_i = sum_j A_ij N_j) and int N_i (full facet) */
static int dual_coeffs(int nv, const fcd_real X[4][3], fcd_real A[4][4], fcd_real Dn[4]) {
  fcd_real M[4][4] = {{0}}, p[3], ta[3], tb[3], N[4], cr[3];
  for (int i = 0; i < 4; i++) Dn[i] = 0;
  int nq = nv == 3 ? 7 : 9;
  for (int q = 0; q < nq; q++) {
    fcd_real a, b, w;
    if (nv == 3) {
      a = tri7[q][1], b = tri7[q][2], w = 0.5 * tri7[q][3];
    } else {
      static const fcd_real g[3] = {-0.7745966692414834, 0.0, 0.7745966692414834};
      static const fcd_real gw[3] = {5.0 / 9, 8.0 / 9, 5.0 / 9};
      a = g[q % 3], b = g[q / 3], w = gw[q % 3] * gw[q / 3];
    }
    facet_eval(nv, X, a, b, p, ta, tb, N);
    cross(ta, tb, cr);
    w *= sqrt(dot(cr, cr));
    for (int i = 0; i < nv; i++) {
      Dn[i] += w * N[i];
      for (int j = 0; j < nv; j++) M[i][j] += w * N[i] * N[j];
    }
  }
  /* A M = D: solve M^T A^T = D (M symmetric) by Gauss-Jordan on [M | D] */
  fcd_real G[4][8] = {{0}};
  for (int i = 0; i < nv; i++) {
    for (int j = 0; j < nv; j++) G[i][j] = M[i][j];
    G[i][4 + i] = Dn[i];
  }
  for (int k = 0; k < nv; k++) {
    int piv = k;
    for (int i = k + 1; i < nv; i++)
      if (fabs(G[i][k]) > fabs(G[piv][k])) piv = i;
    if (!(fabs(G[piv][k]) > 0)) return 0;
    for (int j = 0; j < 8; j++) {
      fcd_real t = G[k][j];
      G[k][j] = G[piv][j];
      G[piv][j] = t;
    }
    fcd_real d = G[k][k];
    for (int j = 0; j < 8; j++) G[k][j] /= d;
    for (int i = 0; i < nv; i++)
      if (i != k && G[i][k] != 0) {
        fcd_real f = G[i][k];
        for (int j = 0; j < 8; j++) G[i][j] -= f * G[k][j];
      }
  }
  /* G's right half is M^-1 D; A = D M^-1 = (M^-1 D)^T */
  for (int i = 0; i < nv; i++)
    for (int j = 0; j < nv; j++) A[i][j] = G[j][4 + i];
  return 1;
}

/* a plane through c with unit normal n and in-plane basis e1, e2 */
typedef struct {
  fcd_real c[3], n[3], e1[3], e2[3];
} plane;

static void plane_make(const fcd_real c[3], const fcd_real n[3], plane *P) {
  memcpy(P->c, c, sizeof P->c);
  memcpy(P->n, n, sizeof P->n);
  plane_basis(n, P->e1, P->e2);
}

/* polygon of a facet projected along the plane's normal, counter-clockwise about n */
static void project_polygon(const plane *P, int nv, const fcd_real X[4][3], fcd_real q[][2]) {
  for (int i = 0; i < nv; i++) {
    fcd_real d[3] = {X[i][0] - P->c[0], X[i][1] - P->c[1], X[i][2] - P->c[2]};
    q[i][0] = dot(d, P->e1);
    q[i][1] = dot(d, P->e2);
  }
  fcd_real a2 = 0;
  for (int i = 0; i < nv; i++) a2 += q[i][0] * q[(i + 1) % nv][1] - q[(i + 1) % nv][0] * q[i][1];
  if (a2 < 0)
    for (int i = 0; i < nv / 2; i++)
      for (int k = 0; k < 2; k++) {
        fcd_real t = q[i][k];
        q[i][k] = q[nv - 1 - i][k];
        q[nv - 1 - i][k] = t;
      }
}

/* Sutherland-Hodgman: the subject polygon (ns vertices) clipped by the convex
 * counter-clockwise polygon clip (nc); returns the vertex count of out (<= 16) */
static int clip_polygon(const fcd_real sub[][2], int ns, const fcd_real clip[][2], int nc,
                        fcd_real out[16][2]) {
  fcd_real buf[16][2];
  int n = ns;
  for (int i = 0; i < n; i++) out[i][0] = sub[i][0], out[i][1] = sub[i][1];
  for (int e = 0; e < nc && n > 0; e++) {
    const fcd_real *a = clip[e], *b = clip[(e + 1) % nc];
    fcd_real ex = b[0] - a[0], ey = b[1] - a[1];
    int m = 0;
    memcpy(buf, out, sizeof buf);
    for (int i = 0; i < n; i++) {
      const fcd_real *p = buf[i], *q = buf[(i + 1) % n];
      fcd_real sp = ex * (p[1] - a[1]) - ey * (p[0] - a[0]);
      fcd_real sq = ex * (q[1] - a[1]) - ey * (q[0] - a[0]);
      if (sp >= 0 && m < 16) out[m][0] = p[0], out[m++][1] = p[1];
      if (((sp >= 0) != (sq >= 0)) && m < 16) {
        fcd_real t = sp / (sp - sq);
        out[m][0] = p[0] + t * (q[0] - p[0]);
        out[m++][1] = p[1] + t * (q[1] - p[1]);
      }
    }
    n = m;
  }
  return n;
}

/* mortar triplets (slave slot, master node, weight), grown on demand */
typedef struct {
  fcd_index j, k;
  fcd_real w;
} trip;

typedef struct {
  fcd_index n, cap;
  trip *t;
} triplets;

static int trip_add(triplets *t, fcd_index j, fcd_index k, fcd_real w) {
  if (t->n == t->cap) {
    fcd_index cap = t->cap ? 2 * t->cap : 1024;
    trip *nt = fcd__grow_array(t->t, (size_t)t->n, (size_t)cap, sizeof *nt);
    if (!nt) return -1;
    t->t = nt;
    t->cap = cap;
  }
  t->t[t->n].j = j;
  t->t[t->n].k = k;
  t->t[t->n++].w = w;
  return 0;
}

static int cmp_trip(const void *a, const void *b) {
  const trip *p = a, *q = b;
  if (p->j != q->j) return p->j < q->j ? -1 : 1;
  return (p->k > q->k) - (p->k < q->k);
}

/* The mortar integrals of slave facet e against master facet m: appends
 * int psi_j N_k to the triplets and int psi_j gap to g (slot[] maps mesh nodes to slave
 * slots). 0 on success, -1 out of memory. */
static int mortar_facets(const surf3 *s, fcd_index e, fcd_index m, const fcd_real A[4][4],
                         const fcd_index *slot, triplets *T, fcd_real *g) {
  const fcd_index *fs = s->f[0] + 4 * e, *fm = s->f[1] + 4 * m;
  int nvs = nvert(fs), nvm = nvert(fm);
  fcd_real Xs[4][3], Xm[4][3], c[3] = {0, 0, 0};
  facet_coords(s, fs, Xs);
  facet_coords(s, fm, Xm);
  for (int i = 0; i < nvs; i++)
    for (int k = 0; k < 3; k++) c[k] += Xs[i][k] / nvs;
  plane P;
  plane_make(c, s->fn[0] + 3 * e, &P);
  fcd_real qs[4][2], qm[4][2], poly[16][2];
  project_polygon(&P, nvs, Xs, qs);
  project_polygon(&P, nvm, Xm, qm);
  int np = clip_polygon(qm, nvm, qs, nvs, poly);
  if (np < 3) return 0;
  fcd_real ctr[2] = {0, 0}, area = 0;
  for (int i = 0; i < np; i++) {
    ctr[0] += poly[i][0] / np;
    ctr[1] += poly[i][1] / np;
    area += 0.5 * (poly[i][0] * poly[(i + 1) % np][1] - poly[(i + 1) % np][0] * poly[i][1]);
  }
  if (!(area > 1e-14 * s->scale * s->scale)) return 0;
  fcd_real Mloc[4][4] = {{0}}, gloc[4] = {0};
  for (int t = 0; t < np; t++) {
    const fcd_real *p1 = poly[t], *p2 = poly[(t + 1) % np];
    fcd_real at = 0.5 * ((p1[0] - ctr[0]) * (p2[1] - ctr[1]) - (p2[0] - ctr[0]) * (p1[1] - ctr[1]));
    if (!(at > 0)) continue;
    for (int q = 0; q < 7; q++) {
      fcd_real u = tri7[q][0] * ctr[0] + tri7[q][1] * p1[0] + tri7[q][2] * p2[0];
      fcd_real v = tri7[q][0] * ctr[1] + tri7[q][1] * p1[1] + tri7[q][2] * p2[1];
      fcd_real x[3], as, bs, am, bm, xs[3], xm[3], ta[3], tb[3], Ns[4], Nm[4];
      for (int k = 0; k < 3; k++) x[k] = P.c[k] + u * P.e1[k] + v * P.e2[k];
      if (!inverse_map(nvs, Xs, P.e1, P.e2, x, &as, &bs) ||
          !inverse_map(nvm, Xm, P.e1, P.e2, x, &am, &bm))
        continue;
      facet_eval(nvs, Xs, as, bs, xs, ta, tb, Ns);
      facet_eval(nvm, Xm, am, bm, xm, ta, tb, Nm);
      fcd_real w = tri7[q][3] * at, gap = dot(P.n, xm) - dot(P.n, xs);
      for (int i = 0; i < nvs; i++) {
        fcd_real psi = 0;
        for (int j = 0; j < nvs; j++) psi += A[i][j] * Ns[j];
        gloc[i] += w * psi * gap;
        for (int k = 0; k < nvm; k++) Mloc[i][k] += w * psi * Nm[k];
      }
    }
  }
  for (int i = 0; i < nvs; i++) {
    fcd_index j = slot[fs[i]];
    g[j] += gloc[i];
    for (int k = 0; k < nvm; k++)
      if (Mloc[i][k] != 0 && trip_add(T, j, fm[k], Mloc[i][k])) return -1;
  }
  return 0;
}

/* the slave facets' dual coefficients and mortar integrals against every master facet
 * that faces them within a facet's size along the normal */
static fcd_status mortar_integrals(const surf3 *s, const fcd_index *slot, triplets *T,
                                   fcd_real *g, fcd_real *Dn) {
  bins grid;
  fcd_index *cand = fcd__malloc_array((size_t)s->nf[1] + 1, sizeof *cand);
  if (!cand || bins_make(s, &grid)) {
    fcd__free(cand);
    bins_free(&grid);
    return fcd__err(s->sys, FCD_E_NOMEM, "surface pair: out of memory");
  }
  fcd_status st = FCD_OK;
  for (fcd_index e = 0; e < s->nf[0] && st == FCD_OK; e++) {
    const fcd_index *fs = s->f[0] + 4 * e;
    int nvs = nvert(fs);
    fcd_real X[4][3], A[4][4], dn[4];
    facet_coords(s, fs, X);
    if (!dual_coeffs(nvs, X, A, dn)) {
      st = fcd__err(s->sys, FCD_E_INVALID_ARG, "surface pair: slave facet %lld is degenerate "
                    "(its mass matrix is singular)", (long long)e);
      break;
    }
    for (int i = 0; i < nvs; i++) Dn[slot[fs[i]]] += dn[i];
    const fcd_real *bs = s->box[0] + 6 * e;
    fcd_index nc = bins_query(&grid, bs, s->pad, cand);
    for (fcd_index q = 0; q < nc; q++) {
      fcd_index m = cand[q];
      if (dot(s->fn[1] + 3 * m, s->fn[0] + 3 * e) >= 0) continue; /* not facing */
      if (!boxes_meet(bs, s->box[1] + 6 * m, s->pad)) continue;
      if (mortar_facets(s, e, m, A, slot, T, g)) {
        st = fcd__err(s->sys, FCD_E_NOMEM, "surface pair: out of memory");
        break;
      }
    }
  }
  fcd__free(cand);
  bins_free(&grid);
  return st;
}

static fcd_status add_mortar3(fcd_contact_set *cs, const surf3 *s, const fcd_index *nodes,
                              const fcd_real *normal, fcd_index count, const fcd_index *slot,
                              fcd_real mu, fcd_index *first, fcd_index *inactive) {
  triplets T = {0, 0, NULL};
  fcd_real *g = fcd__calloc((size_t)count + 1, sizeof *g), *Dn = fcd__calloc((size_t)count + 1, sizeof *Dn);
  fcd_index *v = NULL, *dofs = NULL;
  fcd_real *w = NULL, *wt = NULL;
  fcd_status st = FCD_OK;
  if (!g || !Dn) goto nomem;
  if ((st = mortar_integrals(s, slot, &T, g, Dn)) != FCD_OK) goto done;
  if (T.n) qsort(T.t, (size_t)T.n, sizeof *T.t, cmp_trip);
  /* merge, and the longest row */
  fcd_index m = 0, most = 0;
  for (fcd_index i = 0; i < T.n; i++) {
    if (m > 0 && T.t[m - 1].j == T.t[i].j && T.t[m - 1].k == T.t[i].k) T.t[m - 1].w += T.t[i].w;
    else T.t[m++] = T.t[i];
  }
  T.n = m;
  for (fcd_index i = 0, len = 0; i < T.n; i++) {
    len = (i > 0 && T.t[i - 1].j == T.t[i].j) ? len + 1 : 1;
    if (len > most) most = len;
  }
  v = fcd__malloc_array((size_t)most + 2, sizeof *v);
  w = fcd__malloc_array((size_t)most + 2, sizeof *w);
  dofs = fcd__malloc_array(9 * ((size_t)most + 2), sizeof *dofs);
  wt = fcd__malloc_array(9 * ((size_t)most + 2), sizeof *wt);
  if (!v || !w || !dofs || !wt) goto nomem;
  for (fcd_index j = 0, i = 0; j < count && st == FCD_OK; j++) {
    fcd_index i0 = i;
    while (i < T.n && T.t[i].j == j) i++;
    fcd_real D = 0;
    for (fcd_index q = i0; q < i; q++) D += T.t[q].w;
    if (!(D > 1e-10 * Dn[j])) {
      (*inactive)++;
      continue;
    }
    fcd_index nw = 1;
    v[0] = nodes[j];
    w[0] = D;
    for (fcd_index q = i0; q < i; q++)
      if (fabs(T.t[q].w) > 1e-13 * Dn[j]) { /* round-off of biorthogonality is no weight */
        v[nw] = T.t[q].k;
        w[nw++] = -T.t[q].w;
      }
    fcd_real gap = g[j];
    if (gap < 0 && gap > -1e-12 * s->scale * Dn[j]) gap = 0;
    fcd_index id;
    st = add_rows3(cs, s, normal + 3 * j, nw, v, w, gap, mu, &id, dofs, wt);
    if (st == FCD_OK && *first < 0) *first = id;
  }
  goto done;
nomem:
  st = fcd__err(s->sys, FCD_E_NOMEM, "surface pair: out of memory");
done:
  fcd__free(T.t);
  fcd__free(g);
  fcd__free(Dn);
  fcd__free(v);
  fcd__free(w);
  fcd__free(dofs);
  fcd__free(wt);
  return st;
}

fcd_status fcd__surface_pair_3d(fcd_contact_set *cs, fcd_index nnodes, const fcd_real *x,
                                const fcd_index *dof, fcd_index nslave, const fcd_index *slave,
                                fcd_index nmaster, const fcd_index *master, int method,
                                fcd_real mu, fcd_index *first, fcd_index *inactive) {
  surf3 s;
  memset(&s, 0, sizeof s);
  s.sys = cs->sys;
  s.nnodes = nnodes;
  s.x = x;
  s.dof = dof;
  s.nf[0] = nslave;
  s.nf[1] = nmaster;
  s.f[0] = slave;
  s.f[1] = master;
  for (fcd_index k = 0; k < 3 * nnodes; k++) s.scale = fmax(s.scale, fabs(x[k]));
  if (!(s.scale > 0)) s.scale = 1;
  fcd_index *nodes = NULL, *slot = NULL, count = 0;
  fcd_real *normal = NULL;
  fcd_status st = FCD_OK;
  for (int w = 0; w < 2 && st == FCD_OK; w++) st = check_facets(&s, w);
  for (int w = 0; w < 2 && st == FCD_OK; w++) st = check_orientation(&s, w);
  if (st == FCD_OK) st = check_shared_nodes(&s);
  if (st == FCD_OK) st = facet_normals(&s);
  for (int w = 0; w < 2 && st == FCD_OK; w++)
    for (fcd_index e = 0; e < s.nf[w]; e++)
      for (int c = 0; c < 3; c++) s.pad = fmax(s.pad, s.box[w][6 * e + 3 + c] - s.box[w][6 * e + c]);
  if (st == FCD_OK) st = slave_nodes3(&s, &nodes, &normal, &count, &slot);
  *first = -1;
  *inactive = 0;
  if (st == FCD_OK)
    st = method == FCD_SURFACE_NODE_TO_SEGMENT
             ? add_nts3(cs, &s, nodes, normal, count, mu, first, inactive)
             : add_mortar3(cs, &s, nodes, normal, count, slot, mu, first, inactive);
  if (st == FCD_OK && *inactive == count)
    st = fcd__err(s.sys, FCD_E_INVALID_ARG, "surface pair: the slave and master surfaces do "
                  "not face each other (no slave node finds a master facet along its normal; "
                  "each facet's node order must give its body's outward normal)");
  for (int w = 0; w < 2; w++) {
    fcd__free(s.fn[w]);
    fcd__free(s.box[w]);
  }
  fcd__free(nodes);
  fcd__free(normal);
  fcd__free(slot);
  return st;
}
