/* The brake at industrial sizes (issue 87): the disc and bell of examples/brake-squeal
 * (brake_model.h: its radii, thickness, materials, damping and sliding speed) with two
 * pads of an industrial footprint in place of its twelve pins, one on each face of the
 * disc, each an annular sector 5 base elements wide radially (r from 0.23 to 0.305 m)
 * and 32 circumferentially (60 degrees), 0.02 m thick. The pins cover 2.3 % of a face,
 * so that thousands of contact nodes would need millions of dofs; pads of this size
 * reach 5,000 contact nodes at a million.
 *
 * Refinement r multiplies every direction alike (the same element shape at every size):
 * the disc 8r radial, 192r circumferential and 2r axial elements, the bell r radial and
 * 5r axial, the pads 5r x 32r x 2r. The pads' faces match the disc's surface nodes:
 * node-to-node pairs, exact as the example's. Sizes: r = 1 24,876 dofs and 396 contact
 * nodes; r = 2 153,930 and 1,430; r = 3 471,264 and 3,104; r = 4 1,060,974 and 5,418.
 * The bell's far end is clamped, the pads' backs pushed towards the disc by UPIN.
 * Public API only. */
#ifndef FCD_BENCH_BRAKE_PADS_H
#define FCD_BENCH_BRAKE_PADS_H

#include "../examples/brake-squeal/brake_model.h"

static const double HPAD = 0.02;
enum { PAD_I0 = 2, PAD_NI = 5, PAD_NJ = 32 }; /* in base elements: radial offset, spans */

/* the node counts of refinement r: disc, bell (its layers below the disc), pads */
static inline fcd_index pads_nodes(int r) {
  fcd_index nt = 192 * (fcd_index)r;
  return (8 * (fcd_index)r + 1) * nt * (2 * (fcd_index)r + 1) + ((fcd_index)r + 1) * nt * 5 * r +
         2 * (PAD_NI * (fcd_index)r + 1) * (PAD_NJ * (fcd_index)r + 1) * (2 * (fcd_index)r + 1);
}

/* the contact nodes of refinement r: both pads' faces */
static inline fcd_index pads_contacts(int r) {
  return 2 * (PAD_NI * (fcd_index)r + 1) * (PAD_NJ * (fcd_index)r + 1);
}

#define PADS_HUB(m, r, i, j, k)                                                            \
  ((k) == 5 * (r) ? DISC(m, i, j, 0)                                                       \
                  : (m)->hub[((size_t)(k) * ((r) + 1) + (i)) * (m)->nt +                   \
                             (size_t)(((j) + (m)->nt) % (m)->nt)])
#define PADS_PAD(m, r, p, a, b, c)                                                         \
  ((m)->pin[(((size_t)(p) * (2 * (r) + 1) + (c)) * (PAD_NI * (r) + 1) + (a)) *            \
                (PAD_NJ * (r) + 1) + (b)])

/* the mesh of refinement r in m (the storage of brake_model.h's mesh: disc, hub for the
 * bell's nodes, pin for the pads'); 1 when out of memory */
static inline int pads_mesh(mesh *m, int r) {
  memset(m, 0, sizeof *m);
  m->nr = 8 * r;
  m->nt = 192 * r;
  m->nz = 2 * r;
  m->nh = 5 * r;
  m->np = 2 * r;
  m->npin = 2;
  int na = PAD_NI * r + 1, nb = PAD_NJ * r + 1, nt = m->nt;
  size_t nmax = (size_t)pads_nodes(r);
  m->cap = m->nr * nt * m->nz + r * nt * m->nh + 2 * (na - 1) * (nb - 1) * m->np;
  m->x = malloc(3 * nmax * sizeof *m->x);
  m->conn = malloc(8 * (size_t)m->cap * sizeof *m->conn);
  m->part = malloc((size_t)m->cap);
  m->disc = malloc((size_t)(m->nr + 1) * nt * (m->nz + 1) * sizeof *m->disc);
  m->hub = malloc((size_t)(r + 1) * nt * m->nh * sizeof *m->hub);
  m->pin = malloc(2 * (size_t)na * nb * (m->np + 1) * sizeof *m->pin);
  if (!m->x || !m->conn || !m->part || !m->disc || !m->hub || !m->pin) return 1;
  double dr = (RO - RI) / m->nr, dth = 2 * 3.14159265358979 / nt;
  for (int k = 0; k <= m->nz; k++)
    for (int i = 0; i <= m->nr; i++)
      for (int j = 0; j < nt; j++) DISC(m, i, j, k) = node(m, RI + i * dr, j * dth, k * TD / m->nz);
  for (int k = 0; k < m->nh; k++)
    for (int i = 0; i <= r; i++)
      for (int j = 0; j < nt; j++)
        m->hub[((size_t)k * (r + 1) + i) * nt + j] =
            node(m, RI + i * dr, j * dth, -HUB + k * HUB / m->nh);
  for (int p = 0; p < 2; p++)
    for (int c = 0; c <= m->np; c++)
      for (int a = 0; a < na; a++)
        for (int b = 0; b < nb; b++)
          PADS_PAD(m, r, p, a, b, c) =
              node(m, RI + (PAD_I0 * r + a) * dr, (b - PAD_NJ * r / 2) * dth,
                   p ? TD + c * HPAD / m->np : -c * HPAD / m->np);
  for (int k = 0; k < m->nz; k++)
    for (int i = 0; i < m->nr; i++)
      for (int j = 0; j < nt; j++) {
        fcd_index c[8] = {DISC(m, i, j, k), DISC(m, i + 1, j, k), DISC(m, i + 1, j + 1, k),
                          DISC(m, i, j + 1, k), DISC(m, i, j, k + 1), DISC(m, i + 1, j, k + 1),
                          DISC(m, i + 1, j + 1, k + 1), DISC(m, i, j + 1, k + 1)};
        hex(m, c, 0);
      }
  for (int k = 0; k < m->nh; k++)
    for (int i = 0; i < r; i++)
      for (int j = 0; j < nt; j++) {
        fcd_index c[8] = {PADS_HUB(m, r, i, j, k),         PADS_HUB(m, r, i + 1, j, k),
                          PADS_HUB(m, r, i + 1, j + 1, k), PADS_HUB(m, r, i, j + 1, k),
                          PADS_HUB(m, r, i, j, k + 1),     PADS_HUB(m, r, i + 1, j, k + 1),
                          PADS_HUB(m, r, i + 1, j + 1, k + 1), PADS_HUB(m, r, i, j + 1, k + 1)};
        hex(m, c, 0);
      }
  for (int p = 0; p < 2; p++)
    for (int c = 0; c < m->np; c++)
      for (int a = 0; a + 1 < na; a++)
        for (int b = 0; b + 1 < nb; b++) {
          /* right-handed: the lower pad grows towards -z */
          int c0 = p ? c : c + 1, c1 = p ? c + 1 : c;
          fcd_index e[8] = {PADS_PAD(m, r, p, a, b, c0),         PADS_PAD(m, r, p, a + 1, b, c0),
                            PADS_PAD(m, r, p, a + 1, b + 1, c0), PADS_PAD(m, r, p, a, b + 1, c0),
                            PADS_PAD(m, r, p, a, b, c1),         PADS_PAD(m, r, p, a + 1, b, c1),
                            PADS_PAD(m, r, p, a + 1, b + 1, c1), PADS_PAD(m, r, p, a, b + 1, c1)};
          hex(m, e, 1);
        }
  return 0;
}

/* The contact pair k = (p, a, b) of refinement r: the pad's face node and the disc's */
#define PADS_FACE(m, r, p, a, bb) PADS_PAD(m, r, p, a, bb, 0)
#define PADS_DISC(m, r, p, a, bb) DISC(m, PAD_I0 * (r) + (a), (bb) - PAD_NJ * (r) / 2, (p) ? (m)->nz : 0)

/* partner[i]: for a dof of a pad's face node, its disc node's same dof, -1 elsewhere (the
 * relative coordinates: y = u_pad - u_disc there, u elsewhere); NULL when out of memory */
static inline fcd_index *pads_partners(const mesh *m, int r) {
  fcd_index *pt = malloc(3 * (size_t)m->nn * sizeof *pt);
  if (!pt) return NULL;
  for (size_t i = 0; i < 3 * (size_t)m->nn; i++) pt[i] = -1;
  for (int p = 0; p < 2; p++)
    for (int a = 0; a <= PAD_NI * r; a++)
      for (int bb = 0; bb <= PAD_NJ * r; bb++)
        for (int d = 0; d < 3; d++)
          pt[3 * PADS_FACE(m, r, p, a, bb) + d] = 3 * PADS_DISC(m, r, p, a, bb) + d;
  return pt;
}

/* The brake of refinement r at friction coefficient mu into b (brake_free releases it).
 * relative: in the coordinates y of u = P y where each pad face node's dofs are its
 * displacement relative to its disc node (pads_partners), so that each contact is a node
 * against the disc's moving frame, acting on three dofs of its own: the law, the normal
 * and the tangent the pair's, u_N = n . (u_pad - u_disc) = n . y_pad. Its K, M, C are P'
 * (.) P, the same model in other coordinates: its eigenvalues and equilibria are the
 * physical model's. */
static inline fcd_status brake_pads_build_in(brake *b, int r, double mu, int relative) {
  memset(b, 0, sizeof *b);
  mesh *m = &b->m;
  if (r < 1 || pads_mesh(m, r)) return FCD_E_NOMEM;
  fcd_index *partner = relative ? pads_partners(m, r) : NULL;
  if (relative && !partner) return FCD_E_NOMEM;
  fcd_status st = brake_assemble_in(b, partner);
  free(partner);
  int na = PAD_NI * r + 1, nb = PAD_NJ * r + 1, nt = m->nt;
  size_t nf = 0, fcap = 3 * ((size_t)(r + 1) * nt + 2 * (size_t)na * nb);
  fcd_index *fd = malloc(fcap * sizeof *fd);
  double *fv = malloc(fcap * sizeof *fv);
  if (!fd || !fv) st = FCD_E_NOMEM;
  for (int i = 0; i <= r && st == FCD_OK; i++) /* the bell's far end */
    for (int j = 0; j < nt; j++)
      for (int d = 0; d < 3; d++) {
        fd[nf] = 3 * PADS_HUB(m, r, i, j, 0) + d;
        fv[nf++] = 0;
      }
  for (int p = 0; p < 2 && st == FCD_OK; p++) /* the pads' backs */
    for (int a = 0; a < na; a++)
      for (int bb = 0; bb < nb; bb++)
        for (int d = 0; d < 3; d++) {
          fd[nf] = 3 * PADS_PAD(m, r, p, a, bb, m->np) + d;
          fv[nf++] = d == 2 ? (p ? -UPIN : UPIN) : 0.0;
        }
  if (st == FCD_OK) st = fcd_system_fix_dofs(b->sys, (fcd_index)nf, fd, fv);
  free(fd);
  free(fv);
  if (st == FCD_OK) st = fcd_contact_set_create(b->sys, 3, &b->cs);
  b->vg = malloc((size_t)pads_contacts(r) * sizeof *b->vg);
  if (st == FCD_OK && !b->vg) st = FCD_E_NOMEM;
  for (int p = 0; p < 2 && st == FCD_OK; p++)
    for (int a = 0; a < na && st == FCD_OK; a++)
      for (int bb = 0; bb < nb && st == FCD_OK; bb++)
        st = brake_pair_as(b, PADS_FACE(m, r, p, a, bb), PADS_DISC(m, r, p, a, bb), p, mu,
                           relative);
  if (st != FCD_OK && b->sys) fprintf(stderr, "brake_pads: %s\n", fcd_system_last_error(b->sys));
  return st;
}

/* Interface coarsening by c (fcd_reduction_options' ties): each pad's face keeps the
 * contacts on every c-th line of its grid and on its last lines, and every other contact
 * follows the kept ones around it, bilinear in the grid's indices (radius and angle).
 * The contacts are numbered as brake_pads_build_in adds them: (p, a, b) is
 * (p na + a) nb + b. Arrays malloc'd into t (pads_ties_free); 1 when out of memory. */
typedef struct {
  fcd_index n, *tied, *ptr, *src;
  double *w;
} pads_tie;

/* the kept lines around index i of a line of n (every c-th and the last): lo <= i <= hi */
static inline void pads_bracket(int i, int n, int c, int *lo, int *hi) {
  *lo = i == n - 1 ? i : i - i % c;
  *hi = *lo + c < n - 1 ? *lo + c : n - 1;
  if (i == *lo) *hi = i;
}

static inline void pads_ties_free(pads_tie *t) {
  free(t->tied); free(t->ptr); free(t->src); free(t->w);
  memset(t, 0, sizeof *t);
}

static inline int pads_ties(int r, int c, pads_tie *t) {
  int na = PAD_NI * r + 1, nb = PAD_NJ * r + 1;
  size_t nc = (size_t)pads_contacts(r);
  memset(t, 0, sizeof *t);
  t->tied = malloc(nc * sizeof *t->tied);
  t->ptr = malloc((nc + 1) * sizeof *t->ptr);
  t->src = malloc(4 * nc * sizeof *t->src);
  t->w = malloc(4 * nc * sizeof *t->w);
  if (!t->tied || !t->ptr || !t->src || !t->w) {
    pads_ties_free(t);
    return 1;
  }
  fcd_index e = 0;
  t->ptr[0] = 0;
  for (int p = 0; p < 2; p++)
    for (int a = 0; a < na; a++)
      for (int b = 0; b < nb; b++) {
        int a0, a1, b0, b1;
        pads_bracket(a, na, c, &a0, &a1);
        pads_bracket(b, nb, c, &b0, &b1);
        if (a0 == a1 && b0 == b1) continue; /* kept */
        double wa = a1 > a0 ? (double)(a - a0) / (a1 - a0) : 0;
        double wb = b1 > b0 ? (double)(b - b0) / (b1 - b0) : 0;
        const int ia[4] = {a0, a1, a0, a1}, ib[4] = {b0, b0, b1, b1};
        const double w[4] = {(1 - wa) * (1 - wb), wa * (1 - wb), (1 - wa) * wb, wa * wb};
        for (int k = 0; k < 4; k++)
          if (w[k] != 0) {
            t->src[e] = ((fcd_index)p * na + ia[k]) * nb + ib[k];
            t->w[e++] = w[k];
          }
        t->tied[t->n++] = ((fcd_index)p * na + a) * nb + b;
        t->ptr[t->n] = e;
      }
  return 0;
}

static inline fcd_status brake_pads_build(brake *b, int r, double mu) {
  return brake_pads_build_in(b, r, mu, 0);
}

#endif
