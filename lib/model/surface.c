/* Contact between two surfaces of a mesh that do not match (issue 22): the rows of H
 * (fcd_contact_set_add_rows) of node-to-segment or dual mortar contacts, computed in the
 * reference configuration (small sliding: the pairing is fixed there, as seeds 000 and
 * 003 assume). 2D, linear segments.
 *
 * Normals: the slave segment a -> b has the unit normal n = (t_y, -t_x), t = (b - a) / L,
 * turned to the side where the master surface lies, so that n points from the slave body
 * into the master (the obstacle), fcd's convention. A slave node's normal is the
 * normalized sum of its segments' normals; its tangent is (-n_y, n_x).
 *
 * Node-to-segment: slave node s against the closest point of the master segments,
 * x_m(xi) = (1 - xi) x_1 + xi x_2 with xi in [0, 1]; rows
 *   N: n . u_s - sum_k N_k(xi) n . u_k,   T: the same with t,   gap n . (x_m - x_s).
 *
 * Dual mortar (Wohlmuth 2000): on each slave segment the biorthogonal basis
 * psi_1 = 2 N_1 - N_2, psi_2 = 2 N_2 - N_1; the master point of a slave point x(xi) is
 * where the segment's normal line through it meets a master segment. For slave node j,
 *   M_jk = int psi_j N_k^master,   D_j = sum_k M_jk (= int N_j under full cover),
 *   g_j = int psi_j n_e . (x_master - x),
 * integrals over the part of the slave segments that faces a master segment (3-point
 * Gauss on every piece between the projected master nodes, exact for these
 * polynomials); rows N: D_j n_j . u_j - sum_k M_jk n_j . u_k, T likewise with t_j,
 * gap g_j. One contact per slave node: the laws apply node by node, as for any contact. */
#include "model.h"
#include "geometry.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const fcd_system *sys;
  fcd_index nnodes;
  const fcd_real *x;    /* 2 per node */
  const fcd_index *dof; /* 2 per node */
  fcd_index ns, nm;
  const fcd_index *sseg, *mseg; /* 2 node ids per segment */
} surf;

/* the slave segment's unit normal, towards the master surface's nearest node */
static void seg_normal(const surf *s, fcd_index e, fcd_real n[2]) {
  const fcd_real *a = s->x + 2 * s->sseg[2 * e], *b = s->x + 2 * s->sseg[2 * e + 1];
  fcd_real tx = b[0] - a[0], ty = b[1] - a[1], L = hypot(tx, ty);
  n[0] = ty / L;
  n[1] = -tx / L;
  fcd_real mid[2] = {0.5 * (a[0] + b[0]), 0.5 * (a[1] + b[1])}, best = INFINITY, side = 1;
  for (fcd_index k = 0; k < 2 * s->nm; k++) {
    const fcd_real *p = s->x + 2 * s->mseg[k];
    fcd_real d = hypot(p[0] - mid[0], p[1] - mid[1]);
    if (d < best) {
      best = d;
      side = (p[0] - mid[0]) * n[0] + (p[1] - mid[1]) * n[1];
    }
  }
  if (side < 0) {
    n[0] = -n[0];
    n[1] = -n[1];
  }
}

static fcd_status check_surfaces(const surf *s) {
  const fcd_system *sys = s->sys;
  const fcd_index *lists[2] = {s->sseg, s->mseg};
  const fcd_index counts[2] = {s->ns, s->nm};
  const char *names[2] = {"slave", "master"};
  for (int w = 0; w < 2; w++) {
    if (counts[w] < 1 || !lists[w])
      return fcd__err(sys, FCD_E_INVALID_ARG, "surface pair: the %s surface has no segment",
                      names[w]);
    for (fcd_index e = 0; e < counts[w]; e++) {
      fcd_index a = lists[w][2 * e], b = lists[w][2 * e + 1];
      if (a < 0 || a >= s->nnodes || b < 0 || b >= s->nnodes || a == b)
        return fcd__err(sys, FCD_E_INVALID_ARG, "surface pair: %s segment %lld has nodes "
                        "(%lld, %lld), not two distinct nodes of [0, %lld)", names[w],
                        (long long)e, (long long)a, (long long)b, (long long)s->nnodes);
      const fcd_real *pa = s->x + 2 * a, *pb = s->x + 2 * b;
      if (!(hypot(pb[0] - pa[0], pb[1] - pa[1]) > 0))
        return fcd__err(sys, FCD_E_INVALID_ARG, "surface pair: %s segment %lld has length "
                        "zero", names[w], (long long)e);
      for (int k = 0; k < 2; k++)
        if (s->dof[2 * a + k] < 0 || s->dof[2 * b + k] < 0)
          return fcd__err(sys, FCD_E_INVALID_ARG, "surface pair: a node of %s segment %lld "
                          "has no dof", names[w], (long long)e);
    }
  }
  /* Each segment listed once; no node on both surfaces. A segment listed twice doubled
   * its nodes' mortar weights (a contact twice as stiff there, no error); a node on both
   * surfaces (two bodies welded into one mesh when read) gave "dof 82 appears twice" or a
   * negative gap. Segments may run either way (hosts give a boundary's faces in their
   * elements' orders): each normal is turned towards the master, except where the
   * surfaces touch, below. Quadratic in the segments of one pair: surfaces of a few
   * thousand segments check in milliseconds. */
  for (int w = 0; w < 2; w++)
    for (fcd_index e = 0; e < counts[w]; e++) {
      fcd_index a = lists[w][2 * e], b = lists[w][2 * e + 1];
      for (fcd_index f = 0; f < e; f++) {
        fcd_index c = lists[w][2 * f], d = lists[w][2 * f + 1];
        if ((a == c && b == d) || (a == d && b == c))
          return fcd__err(sys, FCD_E_INVALID_ARG, "surface pair: %s segment %lld (nodes %lld, "
                          "%lld) repeats segment %lld; list each segment once", names[w],
                          (long long)e, (long long)a, (long long)b, (long long)f);

      }
    }
  for (fcd_index e = 0; e < s->ns; e++)
    for (int i = 0; i < 2; i++) {
      fcd_index v = s->sseg[2 * e + i];
      for (fcd_index f = 0; f < 2 * s->nm; f++)
        if (s->mseg[f] == v)
          return fcd__err(sys, FCD_E_INVALID_ARG, "surface pair: node %lld is on both the "
                          "slave surface (segment %lld) and the master surface (segment "
                          "%lld): two bodies in contact need nodes of their own on each side "
                          "(a mesh whose coincident nodes were merged when read has welded "
                          "them)", (long long)v, (long long)e, (long long)(f / 2));
    }
  return FCD_OK;
}

/* the slave nodes (distinct, in order of appearance) and each one's normal */
static fcd_status slave_nodes(const surf *s, fcd_index **nodes, fcd_real **normal,
                              fcd_index *count) {
  fcd_index cap = 2 * s->ns, n = 0;
  fcd_index *nd = fcd__malloc_array((size_t)cap, sizeof *nd);
  fcd_real *nr = fcd__calloc((size_t)cap * 2, sizeof *nr);
  if (!nd || !nr) {
    fcd__free(nd);
    fcd__free(nr);
    return fcd__err(s->sys, FCD_E_NOMEM, "surface pair: out of memory");
  }
  for (fcd_index e = 0; e < s->ns; e++) {
    fcd_real ne[2];
    seg_normal(s, e, ne);
    for (int k = 0; k < 2; k++) {
      fcd_index v = s->sseg[2 * e + k], j = 0;
      while (j < n && nd[j] != v) j++;
      if (j == n) nd[n++] = v;
      nr[2 * j] += ne[0];
      nr[2 * j + 1] += ne[1];
    }
  }
  for (fcd_index j = 0; j < n; j++) {
    fcd_real L = hypot(nr[2 * j], nr[2 * j + 1]);
    /* Where the surfaces touch, the master's nearest node lies on a slave segment's line
     * and the segment's own order decides its normal ((t_y, -t_x)): two segments run
     * against each other there gave opposite normals, which cancelled at their common
     * node ("weight of dof 32 is not finite") */
    if (!(L > 1e-12)) {
      fcd_status st = fcd__err(s->sys, FCD_E_INVALID_ARG, "surface pair: the normals of the "
                               "slave segments at node %lld cancel: where the surfaces touch "
                               "a segment's node order decides its normal, and two segments "
                               "there run against each other (or the surface folds back); "
                               "give the slave segments one after another in one direction",
                               (long long)nd[j]);
      fcd__free(nd);
      fcd__free(nr);
      return st;
    }
    nr[2 * j] /= L;
    nr[2 * j + 1] /= L;
  }
  *nodes = nd;
  *normal = nr;
  *count = n;
  return FCD_OK;
}

/* one contact from the weights w[k] on nodes v[k] (k < nw; the slave node first), along
 * the normal n (tangent (-n_y, n_x)); a gap within round-off of zero is zero */
static fcd_status add_node_rows(fcd_contact_set *cs, const surf *s, const fcd_real n[2],
                                fcd_index nw, const fcd_index *v, const fcd_real *w,
                                fcd_real gap, fcd_real scale, fcd_real mu, fcd_index *id) {
  fcd_index rp[3] = {0, 2 * nw, 4 * nw}, dofs[4 * 8];
  fcd_real wt[4 * 8];
  const fcd_real t[2] = {-n[1], n[0]};
  const fcd_system *sys = s->sys;
  for (int c = 0; c < 2; c++)
    if (sys->is_fixed[s->dof[2 * v[0] + c]])
      return fcd__err(sys, FCD_E_INVALID_ARG, "surface pair: slave node %lld faces the master "
                      "surface but its dof %lld is prescribed: a contact needs free dofs "
                      "(prescribe the node after pairing, or leave it out of the slave "
                      "segments)", (long long)v[0], (long long)s->dof[2 * v[0] + c]);
  for (int r = 0; r < 2; r++) {
    const fcd_real *dir = r ? t : n;
    for (fcd_index k = 0; k < nw; k++)
      for (int c = 0; c < 2; c++) {
        dofs[r * 2 * nw + 2 * k + c] = s->dof[2 * v[k] + c];
        wt[r * 2 * nw + 2 * k + c] = w[k] * dir[c];
      }
  }
  if (gap < 0 && gap > -1e-12 * scale) gap = 0;
  return fcd_contact_set_add_rows(cs, rp, dofs, wt, gap, mu, id);
}

/* node-to-segment: the closest master point of slave node p; 0 when none projects */
static int nts_point(const surf *s, const fcd_real *p, fcd_index *seg, fcd_real *xi) {
  fcd_real best = INFINITY;
  int found = 0;
  for (fcd_index e = 0; e < s->nm; e++) {
    const fcd_real *a = s->x + 2 * s->mseg[2 * e], *b = s->x + 2 * s->mseg[2 * e + 1];
    fcd_real dx = b[0] - a[0], dy = b[1] - a[1], L2 = dx * dx + dy * dy;
    fcd_real z = ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / L2;
    if (z < -1e-10 || z > 1 + 1e-10) continue;
    z = z < 0 ? 0 : z > 1 ? 1 : z;
    fcd_real d = hypot(a[0] + z * dx - p[0], a[1] + z * dy - p[1]);
    if (d < best) {
      best = d;
      *seg = e;
      *xi = z;
      found = 1;
    }
  }
  return found;
}

static fcd_status add_nts(fcd_contact_set *cs, const surf *s, const fcd_index *nodes,
                          const fcd_real *normal, fcd_index count, fcd_real scale, fcd_real mu,
                          fcd_index *first, fcd_index *inactive) {
  for (fcd_index j = 0; j < count; j++) {
    const fcd_real *p = s->x + 2 * nodes[j], *n = normal + 2 * j;
    fcd_index e;
    fcd_real xi;
    if (!nts_point(s, p, &e, &xi)) {
      (*inactive)++;
      continue;
    }
    const fcd_index v[3] = {nodes[j], s->mseg[2 * e], s->mseg[2 * e + 1]};
    const fcd_real w[3] = {1.0, -(1 - xi), -xi};
    const fcd_real *a = s->x + 2 * v[1], *b = s->x + 2 * v[2];
    fcd_real gap = n[0] * ((1 - xi) * a[0] + xi * b[0] - p[0]) +
                   n[1] * ((1 - xi) * a[1] + xi * b[1] - p[1]);
    fcd_index id;
    FCD_TRY(add_node_rows(cs, s, n, 3, v, w, gap, scale, mu, &id));
    if (*first < 0) *first = id;
  }
  return FCD_OK;
}

/* where the normal line of slave point x (normal n) meets master segment e: its
 * parameter eta in [0, 1], 0 when they do not meet within it */
static int master_point(const surf *s, fcd_index e, const fcd_real x[2], const fcd_real n[2],
                        fcd_real *eta) {
  const fcd_real *a = s->x + 2 * s->mseg[2 * e], *b = s->x + 2 * s->mseg[2 * e + 1];
  const fcd_real t[2] = {-n[1], n[0]};
  fcd_real den = (b[0] - a[0]) * t[0] + (b[1] - a[1]) * t[1];
  if (fabs(den) < 1e-14 * hypot(b[0] - a[0], b[1] - a[1])) return 0;
  *eta = ((x[0] - a[0]) * t[0] + (x[1] - a[1]) * t[1]) / den;
  return *eta >= -1e-12 && *eta <= 1 + 1e-12;
}

/* the mortar integrals of slave segment e (slave nodes ja, jb among the count): D, M
 * (count x nmaster nodes, master node k's weight at M[j * 2 nm + slot]), g */
static void mortar_segment(const surf *s, fcd_index e, fcd_index ja, fcd_index jb,
                           fcd_real *D, fcd_real *M, fcd_real *g) {
  const fcd_real *a = s->x + 2 * s->sseg[2 * e], *b = s->x + 2 * s->sseg[2 * e + 1];
  fcd_real n[2], L = hypot(b[0] - a[0], b[1] - a[1]);
  seg_normal(s, e, n);
  /* cuts: where the master nodes project onto the slave segment (its parameter xi) */
  fcd_real cut[64];
  int nc = 0;
  cut[nc++] = 0;
  cut[nc++] = 1;
  for (fcd_index k = 0; k < 2 * s->nm && nc < 64; k++) {
    const fcd_real *p = s->x + 2 * s->mseg[k];
    fcd_real z = ((p[0] - a[0]) * (b[0] - a[0]) + (p[1] - a[1]) * (b[1] - a[1])) / (L * L);
    if (z > 0 && z < 1) cut[nc++] = z;
  }
  for (int i = 1; i < nc; i++) /* insertion sort: a handful of cuts */
    for (int j = i; j > 0 && cut[j] < cut[j - 1]; j--) {
      fcd_real tmp = cut[j];
      cut[j] = cut[j - 1];
      cut[j - 1] = tmp;
    }
  static const fcd_real gp[3] = {-0.7745966692414834, 0.0, 0.7745966692414834};
  static const fcd_real gw[3] = {5.0 / 9.0, 8.0 / 9.0, 5.0 / 9.0};
  for (int c = 0; c + 1 < nc; c++) {
    fcd_real lo = cut[c], hi = cut[c + 1];
    if (!(hi > lo)) continue;
    for (int q = 0; q < 3; q++) {
      fcd_real xi = 0.5 * (lo + hi) + 0.5 * (hi - lo) * gp[q], w = gw[q] * 0.5 * (hi - lo) * L;
      fcd_real x[2] = {a[0] + xi * (b[0] - a[0]), a[1] + xi * (b[1] - a[1])};
      fcd_index em = -1;
      fcd_real eta = 0;
      for (fcd_index k = 0; k < s->nm && em < 0; k++)
        if (master_point(s, k, x, n, &eta)) em = k;
      if (em < 0) continue; /* this piece faces no master segment */
      const fcd_real *ma = s->x + 2 * s->mseg[2 * em], *mb = s->x + 2 * s->mseg[2 * em + 1];
      fcd_real y[2] = {ma[0] + eta * (mb[0] - ma[0]), ma[1] + eta * (mb[1] - ma[1])};
      fcd_real gn = n[0] * (y[0] - x[0]) + n[1] * (y[1] - x[1]);
      fcd_real N1 = 1 - xi, N2 = xi, psi[2] = {2 * N1 - N2, 2 * N2 - N1}, Ns[2] = {N1, N2};
      fcd_index js[2] = {ja, jb};
      for (int i = 0; i < 2; i++) {
        D[js[i]] += w * Ns[i];
        g[js[i]] += w * psi[i] * gn;
        M[js[i] * 2 * s->nm + 2 * em] += w * psi[i] * (1 - eta);
        M[js[i] * 2 * s->nm + 2 * em + 1] += w * psi[i] * eta;
      }
    }
  }
}

static fcd_status add_mortar(fcd_contact_set *cs, const surf *s, const fcd_index *nodes,
                             const fcd_real *normal, fcd_index count, fcd_real scale,
                             fcd_real mu, fcd_index *first, fcd_index *inactive) {
  fcd_real *D = fcd__calloc((size_t)count, sizeof *D), *g = fcd__calloc((size_t)count, sizeof *g);
  fcd_real *M = fcd__calloc((size_t)count * 2 * (size_t)s->nm, sizeof *M);
  /* a slave node's weights: itself and at most every master segment end */
  fcd_index *v = fcd__malloc_array(2 * (size_t)s->nm + 1, sizeof *v);
  fcd_real *w = fcd__malloc_array(2 * (size_t)s->nm + 1, sizeof *w);
  fcd_status st = FCD_OK;
  if (!D || !g || !M || !v || !w) st = fcd__err(s->sys, FCD_E_NOMEM, "surface pair: out of memory");
  for (fcd_index e = 0; st == FCD_OK && e < s->ns; e++) {
    fcd_index ja = 0, jb = 0;
    while (nodes[ja] != s->sseg[2 * e]) ja++;
    while (nodes[jb] != s->sseg[2 * e + 1]) jb++;
    mortar_segment(s, e, ja, jb, D, M, g);
  }
  for (fcd_index j = 0; st == FCD_OK && j < count; j++) {
    /* int N_j over the covered part (D) sizes the node's share; the row's own weight is
     * sum_k M_jk = int psi_j there, which keeps the row blind to a rigid translation
     * also where a slave segment is only partly covered (with full cover, the same) */
    fcd_real Dj = 0;
    for (fcd_index k = 0; k < 2 * s->nm; k++) Dj += M[j * 2 * s->nm + k];
    if (!(D[j] > 1e-12 * scale) || !(Dj > 1e-10 * D[j])) {
      (*inactive)++;
      continue;
    }
    /* the same master node may end two segments: its weights are summed */
    fcd_index nw = 1;
    v[0] = nodes[j];
    w[0] = Dj;
    for (fcd_index k = 0; k < 2 * s->nm; k++) {
      fcd_real mk = M[j * 2 * s->nm + k];
      if (mk == 0) continue;
      fcd_index node = s->mseg[k], q = 1;
      while (q < nw && v[q] != node) q++;
      if (q == nw) {
        v[nw] = node;
        w[nw++] = 0;
      }
      w[q] -= mk;
    }
    /* biorthogonality makes some M_jk vanish by cancellation (a master node facing the
     * slave node itself on matching meshes): their round-off is not a weight, and as
     * tiny entries it would spoil the balancing of the stability's dense QZ */
    fcd_index kept = 1;
    for (fcd_index q = 1; q < nw; q++)
      if (fabs(w[q]) > 1e-13 * D[j]) {
        v[kept] = v[q];
        w[kept++] = w[q];
      }
    nw = kept;
    if (nw > 8) {
      st = fcd__err(s->sys, FCD_E_UNSUPPORTED, "surface pair: slave node %lld faces %lld "
                    "master nodes; at most 7 are supported", (long long)nodes[j],
                    (long long)(nw - 1));
      break;
    }
    fcd_index id;
    st = add_node_rows(cs, s, normal + 2 * j, nw, v, w, g[j], scale * scale, mu, &id);
    if (st == FCD_OK && *first < 0) *first = id;
  }
  fcd__free(D);
  fcd__free(g);
  fcd__free(M);
  fcd__free(v);
  fcd__free(w);
  return st;
}

/* the 2D pairing: contacts added to cs (the caller truncates on failure) */
static fcd_status surface_pair_2d(fcd_contact_set *cs, const surf *s,
                                  fcd_surface_method method, fcd_real mu, fcd_index *first,
                                  fcd_index *inactive) {
  FCD_TRY(check_surfaces(s));
  fcd_real scale = 0; /* a length of the model, for round-off */
  for (fcd_index k = 0; k < 2 * s->nnodes; k++) scale = fmax(scale, fabs(s->x[k]));
  fcd_index *nodes = NULL, count = 0;
  fcd_real *normal = NULL;
  FCD_TRY(slave_nodes(s, &nodes, &normal, &count));
  fcd_status st = method == FCD_SURFACE_NODE_TO_SEGMENT
                      ? add_nts(cs, s, nodes, normal, count, scale, mu, first, inactive)
                      : add_mortar(cs, s, nodes, normal, count, scale, mu, first, inactive);
  fcd__free(nodes);
  fcd__free(normal);
  if (st == FCD_OK && *inactive == count)
    st = fcd__err(s->sys, FCD_E_INVALID_ARG, "surface pair: the slave and master surfaces do "
                  "not face each other (no slave node finds a master segment along its "
                  "normal)");
  return st;
}

/* a surface-pair contact's slave node (its normal row's first dim dofs) and its normal
 * there, for the check below */
typedef struct {
  fcd_index d0;
  fcd_index c;
} slave_key;

static int cmp_slave(const void *a, const void *b) {
  const slave_key *x = a, *y = b;
  return x->d0 != y->d0 ? (x->d0 > y->d0) - (x->d0 < y->d0) : (x->c > y->c) - (x->c < y->c);
}

/* whether contacts a and b hold the same slave node along the same normal */
static int same_slave_normal(const fcd_contact_set *cs, fcd_index a, fcd_index b) {
  const fcd_index qa = cs->rptr[cs->c[a].row0], qb = cs->rptr[cs->c[b].row0];
  fcd_real dot = 0, na = 0, nb = 0;
  for (int k = 0; k < cs->dim; k++) {
    if (cs->rdof[qa + k] != cs->rdof[qb + k]) return 0;
    dot += cs->rw[qa + k] * cs->rw[qb + k];
    na += cs->rw[qa + k] * cs->rw[qa + k];
    nb += cs->rw[qb + k] * cs->rw[qb + k];
  }
  return dot > (1 - 1e-6) * sqrt(na * nb);
}

/* The surface pair's new contacts (n0 on) against the set's earlier surface-pair
 * contacts: a slave node already held along the same normal by an earlier pair is that
 * pair given again (by the other method, whose weights differ, so the repeated-row check
 * does not see it): one constraint twice, its reactions split arbitrarily. Rows from
 * other surfaces (a corner node against two walls) have other normals and pass. */
static fcd_status repeated_pair(fcd_contact_set *cs, fcd_index n0) {
  fcd_index nold = 0;
  for (fcd_index c = 0; c < n0; c++) nold += cs->c[c].surf && cs->c[c].rows;
  if (nold == 0) return FCD_OK;
  slave_key *k = fcd__malloc_array((size_t)nold, sizeof *k);
  if (!k) return fcd__err(cs->sys, FCD_E_NOMEM, "surface pair: out of memory");
  fcd_index m = 0;
  for (fcd_index c = 0; c < n0; c++)
    if (cs->c[c].surf && cs->c[c].rows) k[m++] = (slave_key){cs->rdof[cs->rptr[cs->c[c].row0]], c};
  qsort(k, (size_t)m, sizeof *k, cmp_slave);
  fcd_status st = FCD_OK;
  for (fcd_index c = n0; c < cs->n && st == FCD_OK; c++) {
    fcd_index d0 = cs->rdof[cs->rptr[cs->c[c].row0]], lo = 0, hi = m;
    while (lo < hi) {
      fcd_index mid = lo + (hi - lo) / 2;
      if (k[mid].d0 < d0) lo = mid + 1;
      else hi = mid;
    }
    for (fcd_index q = lo; q < m && k[q].d0 == d0 && st == FCD_OK; q++)
      if (same_slave_normal(cs, c, k[q].c))
        st = fcd__err(cs->sys, FCD_E_INVALID_ARG, "surface pair: its contact %lld holds the "
                      "slave node of dof %lld along the normal contact %lld of an earlier "
                      "surface pair holds it: the same pair given twice (by another "
                      "method?) is one constraint twice, whose reaction the two would share "
                      "arbitrarily; give each surface pair once", (long long)c, (long long)d0,
                      (long long)k[q].c);
  }
  fcd__free(k);
  return st;
}

fcd_status fcd_contact_set_add_surface_pair(fcd_contact_set *cs, const fcd_mesh *mesh,
                                            fcd_index nslave, const fcd_index *slave,
                                            fcd_index nmaster, const fcd_index *master,
                                            fcd_surface_method method, fcd_real mu,
                                            fcd_index *first_id, fcd_index *ninactive) {
  if (!fcd__contact_set_valid(cs)) return FCD_E_INVALID_ARG;
  fcd_system *sys = cs->sys;
  surf s;
  memset(&s, 0, sizeof s);
  int dim;
  const fcd_system *msys;
  if (!fcd__mesh_geometry(mesh, &msys, &dim, &s.nnodes, &s.x, &s.dof))
    return fcd__err(sys, FCD_E_INVALID_ARG, "surface pair: the mesh is NULL or invalid");
  if (msys != sys)
    return fcd__err(sys, FCD_E_INVALID_ARG, "surface pair: the mesh belongs to another system");
  if (dim != cs->dim)
    return fcd__err(sys, FCD_E_INVALID_ARG, "surface pair: a %dD mesh for a %dD contact set",
                    dim, cs->dim);
  if (method != FCD_SURFACE_NODE_TO_SEGMENT && method != FCD_SURFACE_DUAL_MORTAR)
    return fcd__err(sys, FCD_E_INVALID_ARG, "surface pair: unknown method %d", (int)method);
  fcd_index first = -1, inactive = 0, n0 = cs->n;
  fcd_status st;
  if (dim == 3) {
    st = fcd__surface_pair_3d(cs, s.nnodes, s.x, s.dof, nslave, slave, nmaster, master,
                              (int)method, mu, &first, &inactive);
  } else {
    s.sys = sys;
    s.ns = nslave;
    s.nm = nmaster;
    s.sseg = slave;
    s.mseg = master;
    st = surface_pair_2d(cs, &s, method, mu, &first, &inactive);
  }
  if (st == FCD_OK) st = repeated_pair(cs, n0);
  if (st != FCD_OK) {
    fcd__contact_set_truncate(cs, n0); /* all or nothing */
    return st;
  }
  for (fcd_index c = n0; c < cs->n; c++) {
    cs->c[c].mortar = method == FCD_SURFACE_DUAL_MORTAR;
    cs->c[c].surf = 1;
  }
  /* the coordinates name a mechanism (fcd_equilibrium_get_mechanism); without them the
   * names are only poorer, so a failed copy fails nothing */
  if (!cs->geo) (void)fcd__geometry_from_mesh(mesh, &cs->geo);
  if (first_id) *first_id = first;
  if (ninactive) *ninactive = inactive;
  return FCD_OK;
}
