/* A plane-strain block for tests: nx x ny cells of linear triangles (each cell split
 * along alternating diagonals), width w, height h, Young's modulus e, Poisson's ratio
 * nu, unit thickness, consistent mass of density rho. Node (i, j) has dofs 2 (j (nx+1)
 * + i) (x) and +1 (y); y = 0 is the bottom row. Test helper only: assembles COO
 * triplets (upper triangle) for the caller to hand to fcd. */
#ifndef FCD_TEST_BLOCK2D_H
#define FCD_TEST_BLOCK2D_H

#include <stdlib.h>
#include <string.h>

#include "fcd/fcd.h"

typedef struct {
  int nx, ny;
  double w, h, e, nu, rho;
  fcd_index ndofs, nk, nm;
  fcd_index *ki, *kj, *mi, *mj;
  double *kv, *mv;
} tb_block;

static inline fcd_index tb_node(const tb_block *b, int i, int j) {
  return (fcd_index)j * (b->nx + 1) + i;
}

static inline void tb_block_free(tb_block *b) {
  free(b->ki); free(b->kj); free(b->kv);
  free(b->mi); free(b->mj); free(b->mv);
  memset(b, 0, sizeof *b);
}

static inline int tb_block_build(tb_block *b, int nx, int ny, double w, double h, double e,
                                 double nu, double rho) {
  memset(b, 0, sizeof *b);
  b->nx = nx; b->ny = ny; b->w = w; b->h = h; b->e = e; b->nu = nu; b->rho = rho;
  b->ndofs = 2 * (fcd_index)(nx + 1) * (ny + 1);
  /* plane strain: D = E / ((1 + nu)(1 - 2 nu)) [[1-nu, nu, 0], [nu, 1-nu, 0], [0, 0, (1-2nu)/2]] */
  double c = e / ((1 + nu) * (1 - 2 * nu));
  double D[3][3] = {{c * (1 - nu), c * nu, 0}, {c * nu, c * (1 - nu), 0}, {0, 0, c * (1 - 2 * nu) / 2}};
  size_t cap = (size_t)nx * ny * 2 * 21;
  b->ki = malloc(cap * sizeof *b->ki); b->kj = malloc(cap * sizeof *b->kj);
  b->kv = malloc(cap * sizeof *b->kv); b->mi = malloc(cap * sizeof *b->mi);
  b->mj = malloc(cap * sizeof *b->mj); b->mv = malloc(cap * sizeof *b->mv);
  if (!b->ki || !b->kj || !b->kv || !b->mi || !b->mj || !b->mv) return -1;
  double hx = w / nx, hy = h / ny;
  for (int j = 0; j < ny; j++)
    for (int i = 0; i < nx; i++) {
      fcd_index a = tb_node(b, i, j), bb = a + 1, cc = a + nx + 1, dd = cc + 1;
      fcd_index tri[2][3] = {{a, bb, dd}, {a, dd, cc}};
      if ((i + j) % 2) {
        fcd_index alt[2][3] = {{a, bb, cc}, {bb, dd, cc}};
        memcpy(tri, alt, sizeof tri);
      }
      for (int t = 0; t < 2; t++) {
        double x[3], y[3];
        for (int k = 0; k < 3; k++) {
          x[k] = (double)(tri[t][k] % (nx + 1)) * hx;
          y[k] = (double)(tri[t][k] / (nx + 1)) * hy;
        }
        double a2 = (x[1] - x[0]) * (y[2] - y[0]) - (x[2] - x[0]) * (y[1] - y[0]);
        double area = 0.5 * (a2 > 0 ? a2 : -a2);
        double g1[3] = {y[1] - y[2], y[2] - y[0], y[0] - y[1]};
        double g2[3] = {x[2] - x[1], x[0] - x[2], x[1] - x[0]};
        double B[3][6] = {{0}};
        for (int k = 0; k < 3; k++) {
          B[0][2 * k] = g1[k] / a2;
          B[1][2 * k + 1] = g2[k] / a2;
          B[2][2 * k] = g2[k] / a2;
          B[2][2 * k + 1] = g1[k] / a2;
        }
        for (int p = 0; p < 6; p++)
          for (int q = 0; q < 6; q++) {
            fcd_index dp = 2 * tri[t][p / 2] + p % 2, dq = 2 * tri[t][q / 2] + q % 2;
            if (dp > dq) continue;
            double s = 0;
            for (int r = 0; r < 3; r++)
              for (int u = 0; u < 3; u++) s += B[r][p] * D[r][u] * B[u][q];
            b->ki[b->nk] = dp; b->kj[b->nk] = dq; b->kv[b->nk++] = s * area;
            if (p % 2 == q % 2) {
              b->mi[b->nm] = dp; b->mj[b->nm] = dq;
              b->mv[b->nm++] = rho * area / 12.0 * (p / 2 == q / 2 ? 2 : 1);
            }
          }
      }
    }
  return 0;
}

/* The system of the block: K and M set, nothing prescribed. */
static inline fcd_status tb_block_system(const tb_block *b, fcd_system **out) {
  fcd_system *sys = NULL;
  fcd_status st = fcd_system_create(b->ndofs, &sys);
  if (st == FCD_OK)
    st = fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, b->nk, b->ki, b->kj, b->kv, FCD_COO_UPPER);
  if (st == FCD_OK && b->rho > 0)
    st = fcd_system_set_matrix_coo(sys, FCD_MASS, b->nm, b->mi, b->mj, b->mv, FCD_COO_UPPER);
  if (st != FCD_OK) {
    fcd_system_destroy(sys);
    return st;
  }
  *out = sys;
  return FCD_OK;
}

/* Bottom-row nodes against a rigid flat below (normal (0, -1) into the flat, tangent
 * (1, 0)), gap 0, friction mu; the sliding velocity vg (one entry) when vg != 0. */
static inline fcd_status tb_block_contacts(const tb_block *b, fcd_system *sys, double mu,
                                           double vg, fcd_contact_set **out) {
  fcd_contact_set *cs = NULL;
  fcd_status st = fcd_contact_set_create(sys, 2, &cs);
  const double nrm[2] = {0, -1}, tan[2] = {1, 0};
  for (int i = 0; i <= b->nx && st == FCD_OK; i++) {
    fcd_index d2[2] = {2 * tb_node(b, i, 0), 2 * tb_node(b, i, 0) + 1};
    fcd_index id;
    st = fcd_contact_set_add_rigid(cs, d2, nrm, tan, 0.0, mu, &id);
    if (st == FCD_OK && vg != 0) st = fcd_contact_set_set_sliding_velocity(cs, id, &vg);
  }
  if (st != FCD_OK) {
    fcd_contact_set_destroy(cs);
    return st;
  }
  *out = cs;
  return FCD_OK;
}

#endif
