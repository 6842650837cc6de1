/* The brake of seed 003 section 4 as built by examples/brake-squeal (docs/examples/
 * brake-squeal.md): mesh, element matrices, prescribed pins, node-to-node contacts.
 * Shared by the example and bench/reduced_brake.c; public API only. */
#ifndef FCD_EXAMPLE_BRAKE_MODEL_H
#define FCD_EXAMPLE_BRAKE_MODEL_H

#include <fcd/fcd.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double RI = 0.20, RO = 0.32, TD = 0.045, HUB = 0.10, HPIN = 0.02;
static const double UPIN = 1.6e-6, OMEGA = 100.0;

typedef struct {
  int nr, nt, nz, nh, np; /* disc radial, circumferential, axial elements; hub axial; pin axial */
  fcd_index nn;
  double *x;              /* 3 per node */
  int ne, cap;
  fcd_index *conn;        /* 8 per element */
  unsigned char *part;    /* 0 disc and hub, 1 pins */
  fcd_index *disc;        /* disc node (i, j, k) */
  fcd_index *hub;         /* hub node (i in 0..1, j, k in 0..nh-1) */
  fcd_index *pin;         /* pin p node (a 0..2, b 0..3, c 0..np) */
  int npin;
} mesh;

#define DISC(m, i, j, k) ((m)->disc[((size_t)(k) * ((m)->nr + 1) + (i)) * (m)->nt + (size_t)(((j) + (m)->nt) % (m)->nt)])

static inline fcd_index node(mesh *m, double r, double th, double z) {
  m->x[3 * m->nn] = r * cos(th);
  m->x[3 * m->nn + 1] = r * sin(th);
  m->x[3 * m->nn + 2] = z;
  return m->nn++;
}

static inline void hex(mesh *m, const fcd_index c[8], int part) {
  memcpy(m->conn + 8 * m->ne, c, 8 * sizeof *c);
  m->part[m->ne++] = (unsigned char)part;
}

static inline int build_mesh(mesh *m, int nr, int nt, int nz) {
  m->nr = nr;
  m->nt = nt;
  m->nz = nz;
  m->nh = 5;
  m->np = 4;
  m->npin = 12;
  size_t nmax = (size_t)(nr + 1) * nt * (nz + 1) + 2 * (size_t)nt * m->nh + 12 * 3 * 4 * 5;
  m->x = malloc(3 * nmax * sizeof *m->x);
  m->cap = nr * nt * nz + nt * m->nh + 12 * 2 * 3 * 4;
  m->conn = malloc(8 * (size_t)m->cap * sizeof *m->conn);
  m->part = malloc((size_t)m->cap);
  m->disc = malloc((size_t)(nr + 1) * nt * (nz + 1) * sizeof *m->disc);
  m->hub = malloc(2 * (size_t)nt * m->nh * sizeof *m->hub);
  m->pin = malloc(12 * 60 * sizeof *m->pin);
  if (!m->x || !m->conn || !m->part || !m->disc || !m->hub || !m->pin) return 1;
  m->nn = 0;
  m->ne = 0;
  double dr = (RO - RI) / nr, dth = 2 * 3.14159265358979 / nt;
  for (int k = 0; k <= nz; k++)
    for (int i = 0; i <= nr; i++)
      for (int j = 0; j < nt; j++) DISC(m, i, j, k) = node(m, RI + i * dr, j * dth, k * TD / nz);
  for (int k = 0; k < m->nh; k++)
    for (int i = 0; i < 2; i++)
      for (int j = 0; j < nt; j++)
        m->hub[((size_t)k * 2 + i) * nt + j] = node(m, RI + i * dr, j * dth, -HUB + k * HUB / m->nh);
  for (int k = 0; k < nz; k++)
    for (int i = 0; i < nr; i++)
      for (int j = 0; j < nt; j++) {
        fcd_index c[8] = {DISC(m, i, j, k), DISC(m, i + 1, j, k), DISC(m, i + 1, j + 1, k),
                          DISC(m, i, j + 1, k), DISC(m, i, j, k + 1), DISC(m, i + 1, j, k + 1),
                          DISC(m, i + 1, j + 1, k + 1), DISC(m, i, j + 1, k + 1)};
        hex(m, c, 0);
      }
#define HUBN(i, j, k) ((k) == m->nh ? DISC(m, i, j, 0) : m->hub[((size_t)(k) * 2 + (i)) * nt + (size_t)(((j) + nt) % nt)])
  for (int k = 0; k < m->nh; k++)
    for (int j = 0; j < nt; j++) {
      fcd_index c[8] = {HUBN(0, j, k), HUBN(1, j, k), HUBN(1, j + 1, k), HUBN(0, j + 1, k),
                        HUBN(0, j, k + 1), HUBN(1, j, k + 1), HUBN(1, j + 1, k + 1),
                        HUBN(0, j + 1, k + 1)};
      hex(m, c, 0);
    }
  /* pins: two rows of three per face; a pin covers 2 radial and 3 circumferential disc
   * elements, its contact face on the disc's surface nodes (separate nodes) */
  int row_i0[2] = {(int)lround((0.23 - RI) / dr), (int)lround((0.275 - RI) / dr)};
  int per22 = (int)lround(nt / 16.0); /* 22.5 degrees in elements */
  int p = 0;
  for (int side = 0; side < 2; side++)
    for (int row = 0; row < 2; row++)
      for (int col = -1; col <= 1; col++, p++) {
        int i0 = row_i0[row], j0 = col * per22 - 1;
        double z0 = side ? TD : 0.0, sz = side ? 1.0 : -1.0;
        for (int c = 0; c <= m->np; c++)
          for (int a = 0; a < 3; a++)
            for (int b = 0; b < 4; b++)
              m->pin[(size_t)p * 60 + (size_t)(c * 12 + a * 4 + b)] =
                  node(m, RI + (i0 + a) * dr, (j0 + b) * dth, z0 + sz * c * HPIN / m->np);
#define PIN(a, b, c) (m->pin[(size_t)p * 60 + (size_t)((c) * 12 + (a) * 4 + (b))])
        for (int c = 0; c < m->np; c++)
          for (int a = 0; a < 2; a++)
            for (int b = 0; b < 3; b++) {
              /* keep a right-handed ordering: bottom pins grow towards -z */
              int c0 = side ? c : c + 1, c1 = side ? c + 1 : c;
              fcd_index e[8] = {PIN(a, b, c0), PIN(a + 1, b, c0), PIN(a + 1, b + 1, c0),
                                PIN(a, b + 1, c0), PIN(a, b, c1), PIN(a + 1, b, c1),
                                PIN(a + 1, b + 1, c1), PIN(a, b + 1, c1)};
              hex(m, e, 1);
            }
      }
  return 0;
}

/* trilinear hexahedron: stiffness and consistent mass (2 x 2 x 2 Gauss) */
static inline int hex_matrices(const double *xe, double E, double nu, double rho, double *ke, double *me) {
  double lam = E * nu / ((1 + nu) * (1 - 2 * nu)), mu = E / (2 * (1 + nu));
  static const double s[8][3] = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
                                 {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},  {-1, 1, 1}};
  memset(ke, 0, 24 * 24 * sizeof *ke);
  memset(me, 0, 24 * 24 * sizeof *me);
  const double g = 1 / sqrt(3.0);
  for (int q = 0; q < 8; q++) {
    double xi[3] = {s[q][0] * g, s[q][1] * g, s[q][2] * g}, N[8], dN[8][3], J[3][3] = {{0}};
    for (int a = 0; a < 8; a++) {
      double f[3];
      for (int d = 0; d < 3; d++) f[d] = 1 + s[a][d] * xi[d];
      N[a] = f[0] * f[1] * f[2] / 8;
      dN[a][0] = s[a][0] * f[1] * f[2] / 8;
      dN[a][1] = f[0] * s[a][1] * f[2] / 8;
      dN[a][2] = f[0] * f[1] * s[a][2] / 8;
      for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) J[r][c] += dN[a][r] * xe[3 * a + c];
    }
    double det = J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) -
                 J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
                 J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
    if (!(det > 0)) return 1;
    double Ji[3][3] = {{(J[1][1] * J[2][2] - J[1][2] * J[2][1]) / det, (J[0][2] * J[2][1] - J[0][1] * J[2][2]) / det, (J[0][1] * J[1][2] - J[0][2] * J[1][1]) / det},
                       {(J[1][2] * J[2][0] - J[1][0] * J[2][2]) / det, (J[0][0] * J[2][2] - J[0][2] * J[2][0]) / det, (J[0][2] * J[1][0] - J[0][0] * J[1][2]) / det},
                       {(J[1][0] * J[2][1] - J[1][1] * J[2][0]) / det, (J[0][1] * J[2][0] - J[0][0] * J[2][1]) / det, (J[0][0] * J[1][1] - J[0][1] * J[1][0]) / det}};
    double B[6][24] = {{0}};
    for (int a = 0; a < 8; a++) {
      double dx[3];
      for (int c = 0; c < 3; c++) dx[c] = Ji[c][0] * dN[a][0] + Ji[c][1] * dN[a][1] + Ji[c][2] * dN[a][2];
      B[0][3 * a] = dx[0];
      B[1][3 * a + 1] = dx[1];
      B[2][3 * a + 2] = dx[2];
      B[3][3 * a] = dx[1];
      B[3][3 * a + 1] = dx[0];
      B[4][3 * a + 1] = dx[2];
      B[4][3 * a + 2] = dx[1];
      B[5][3 * a] = dx[2];
      B[5][3 * a + 2] = dx[0];
    }
    double D[6] = {lam + 2 * mu, lam, mu}; /* diagonal blocks used below */
    for (int r = 0; r < 24; r++)
      for (int c = r; c < 24; c++) {
        double v = 0;
        for (int i = 0; i < 3; i++)
          for (int j = 0; j < 3; j++) v += B[i][r] * (i == j ? D[0] : D[1]) * B[j][c];
        for (int i = 3; i < 6; i++) v += B[i][r] * D[2] * B[i][c];
        ke[r * 24 + c] += v * det;
      }
    for (int a = 0; a < 8; a++)
      for (int b = 0; b < 8; b++)
        for (int d = 0; d < 3; d++) me[(3 * a + d) * 24 + 3 * b + d] += rho * N[a] * N[b] * det;
  }
  for (int r = 0; r < 24; r++)
    for (int c = 0; c < r; c++) ke[r * 24 + c] = ke[c * 24 + r];
  return 0;
}

typedef struct {
  mesh m;
  fcd_system *sys;
  fcd_contact_set *cs;
  fcd_index ncont;
  double *vg; /* sliding speed per contact */
} brake;

/* One element entry (gr <= gc, standing for (gc, gr) too) in coordinates y with u = P y,
 * P's row i having 1 at i and, when partner[i] >= 0, 1 at partner[i]: P' A P's upper
 * triangle. A diagonal entry gives each pair k <= l of its row once; an off-diagonal one
 * every product, twice on the diagonal (it is (gr, gc) and (gc, gr) at once). */
static inline size_t brake_entry(const fcd_index *partner, fcd_index gr, fcd_index gc, double k,
                                 double mv, double cv, fcd_index *ri, fcd_index *ci, double *kv,
                                 double *mvv, double *cvv, size_t ne) {
  fcd_index rr[2] = {gr, partner ? partner[gr] : -1}, cc[2] = {gc, partner ? partner[gc] : -1};
  for (int a = 0; a < 2; a++)
    for (int c = 0; c < 2; c++) {
      fcd_index x = rr[a], y = cc[c];
      if (x < 0 || y < 0 || (gr == gc && x > y)) continue;
      double w = gr != gc && x == y ? 2 : 1;
      ri[ne] = x < y ? x : y;
      ci[ne] = x < y ? y : x;
      kv[ne] = w * k;
      mvv[ne] = w * mv;
      cvv[ne] = w * cv;
      ne++;
    }
  return ne;
}

/* K, M and the damping of the mesh's elements (part 0 steel, part 1 the pads' material,
 * each with its Rayleigh coefficients) into a new system b->sys, in the coordinates y of
 * u = P y (brake_entry; partner NULL: the physical dofs) */
static inline fcd_status brake_assemble_in(brake *b, const fcd_index *partner) {
  mesh *m = &b->m;
  fcd_index n = 3 * m->nn;
  size_t cap = (size_t)m->ne * 300;
  if (partner)
    for (int e = 0; e < m->ne; e++) cap += m->part[e] ? 900 : 0;
  fcd_index *ri = malloc(cap * sizeof *ri), *ci = malloc(cap * sizeof *ci);
  double *kv = malloc(cap * sizeof *kv), *mv = malloc(cap * sizeof *mv), *cv = malloc(cap * sizeof *cv);
  if (!ri || !ci || !kv || !mv || !cv) return FCD_E_NOMEM;
  size_t ne = 0;
  double ke[576], me[576], xe[24];
  for (int e = 0; e < m->ne; e++) {
    const fcd_index *c = m->conn + 8 * e;
    for (int a = 0; a < 8; a++)
      for (int d = 0; d < 3; d++) xe[3 * a + d] = m->x[3 * c[a] + d];
    int pin = m->part[e];
    double E = pin ? 2e9 : 210e9, nu = pin ? 0.3 : 0.28, rho = pin ? 5000 : 7850;
    double al = pin ? 135 : 7.5, be = pin ? 1.8e-6 : 1e-7;
    if (hex_matrices(xe, E, nu, rho, ke, me)) {
      fprintf(stderr, "brake-squeal: element %d is inverted\n", e);
      return FCD_E_INVALID_ARG;
    }
    for (int r = 0; r < 24; r++)
      for (int q = 0; q < 24; q++) {
        fcd_index gr = 3 * c[r / 3] + r % 3, gc = 3 * c[q / 3] + q % 3;
        if (gr > gc) continue;
        ne = brake_entry(partner, gr, gc, ke[r * 24 + q], me[r * 24 + q],
                         al * me[r * 24 + q] + be * ke[r * 24 + q], ri, ci, kv, mv, cv, ne);
      }
  }
  fcd_status st = fcd_system_create(n, &b->sys);
  if (st == FCD_OK) st = fcd_system_set_matrix_coo(b->sys, FCD_STIFFNESS, (fcd_index)ne, ri, ci, kv, FCD_COO_UPPER);
  if (st == FCD_OK) st = fcd_system_set_matrix_coo(b->sys, FCD_MASS, (fcd_index)ne, ri, ci, mv, FCD_COO_UPPER);
  if (st == FCD_OK) st = fcd_system_set_matrix_coo(b->sys, FCD_DAMPING, (fcd_index)ne, ri, ci, cv, FCD_COO_UPPER);
  free(ri); free(ci); free(kv); free(mv); free(cv);
  return st;
}

static inline fcd_status brake_assemble(brake *b) { return brake_assemble_in(b, NULL); }

/* the node-to-node pair of pad node pa (A) against disc surface node pb (B), on the
 * disc's lower face (side 0) or its upper one: the normal from the pad into the disc,
 * the tangent along the disc's motion, the disc's surface sliding at Omega r. relative:
 * pa's own dofs carry u_pa - u_pb, so the contact is pa's node alone against the disc's
 * moving frame, the same law. */
static inline fcd_status brake_pair_as(brake *b, fcd_index pa, fcd_index pb, int side, double mu,
                                       int relative) {
  const double *x = b->m.x;
  double r = hypot(x[3 * pb], x[3 * pb + 1]);
  const fcd_index da[3] = {3 * pa, 3 * pa + 1, 3 * pa + 2}, db[3] = {3 * pb, 3 * pb + 1, 3 * pb + 2};
  const double nv[3] = {0, 0, side ? -1.0 : 1.0}, tv[3] = {-x[3 * pb + 1] / r, x[3 * pb] / r, 0};
  fcd_status st = relative ? fcd_contact_set_add_rigid(b->cs, da, nv, tv, 0.0, mu, NULL)
                           : fcd_contact_set_add_pair(b->cs, da, db, nv, tv, 0.0, mu, NULL);
  const double vg[2] = {OMEGA * r, 0};
  if (st == FCD_OK) st = fcd_contact_set_set_sliding_velocity(b->cs, b->ncont, vg);
  b->vg[b->ncont++] = OMEGA * r;
  return st;
}

static inline fcd_status brake_pair(brake *b, fcd_index pa, fcd_index pb, int side, double mu) {
  return brake_pair_as(b, pa, pb, side, mu, 0);
}

static inline fcd_status brake_build(brake *b, int nr, int nt, int nz, double mu) {
  mesh *m = &b->m;
  if (build_mesh(m, nr, nt, nz)) return FCD_E_NOMEM;
  fcd_status st = brake_assemble(b);
  /* the bell's far end clamped; the pins' outer faces pushed towards the disc */
  size_t nf = 0, fcap = 6 * (size_t)m->nt + 12 * 12 * 3;
  fcd_index *fd = malloc(fcap * sizeof *fd);
  double *fv = malloc(fcap * sizeof *fv);
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < m->nt; j++)
      for (int d = 0; d < 3; d++) {
        fd[nf] = 3 * m->hub[(size_t)i * m->nt + j] + d;
        fv[nf++] = 0;
      }
  for (int p = 0; p < m->npin; p++)
    for (int k = 0; k < 12; k++)
      for (int d = 0; d < 3; d++) {
        fd[nf] = 3 * m->pin[(size_t)p * 60 + (size_t)(m->np * 12 + k)] + d;
        fv[nf++] = d == 2 ? (p < 6 ? UPIN : -UPIN) : 0.0;
      }
  if (st == FCD_OK) st = fcd_system_fix_dofs(b->sys, (fcd_index)nf, fd, fv);
  free(fd);
  free(fv);
  /* node-to-node pairs: pin face (A) against the disc surface (B); normal from the pin
   * into the disc, tangent along the disc's motion, the disc surface moving at Omega r */
  if (st == FCD_OK) st = fcd_contact_set_create(b->sys, 3, &b->cs);
  b->ncont = 0;
  b->vg = malloc(12 * 12 * sizeof *b->vg);
  double dr = (RO - RI) / m->nr;
  int row_i0[2] = {(int)lround((0.23 - RI) / dr), (int)lround((0.275 - RI) / dr)};
  int per22 = (int)lround(m->nt / 16.0);
  for (int p = 0; p < m->npin && st == FCD_OK; p++) {
    int side = p / 6, row = (p % 6) / 3, col = p % 3 - 1;
    for (int a = 0; a < 3 && st == FCD_OK; a++)
      for (int bb = 0; bb < 4 && st == FCD_OK; bb++) {
        fcd_index pa = m->pin[(size_t)p * 60 + (size_t)(a * 4 + bb)];
        fcd_index pb = DISC(m, row_i0[row] + a, col * per22 - 1 + bb, side ? m->nz : 0);
        st = brake_pair(b, pa, pb, side, mu);
      }
  }
  if (st != FCD_OK) fprintf(stderr, "brake-squeal: %s\n", fcd_system_last_error(b->sys));
  return st;
}

static inline void brake_free(brake *b) {
  fcd_contact_set_destroy(b->cs);
  fcd_system_destroy(b->sys);
  free(b->vg);
  free(b->m.x); free(b->m.conn); free(b->m.part); free(b->m.disc); free(b->m.hub); free(b->m.pin);
}

#endif
