#include "block_model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int grow(bench_coo *a, size_t need) {
  if (a->ne + need <= a->cap) return 0;
  size_t cap = a->cap ? a->cap : 1 << 16;
  while (cap < a->ne + need) cap *= 2;
  fcd_index *ri = realloc(a->ri, cap * sizeof *ri);
  if (ri) a->ri = ri;
  fcd_index *ci = realloc(a->ci, cap * sizeof *ci);
  if (ci) a->ci = ci;
  double *kv = realloc(a->kv, cap * sizeof *kv);
  if (kv) a->kv = kv;
  double *mv = realloc(a->mv, cap * sizeof *mv);
  if (mv) a->mv = mv;
  if (!ri || !ci || !kv || !mv) return -1;
  a->cap = cap;
  return 0;
}

void bench_coo_free(bench_coo *a) {
  free(a->ri);
  free(a->ci);
  free(a->kv);
  free(a->mv);
  memset(a, 0, sizeof *a);
}

/* the element matrices of one tetrahedron (nodes nd, coordinates X) */
static void tet(bench_coo *a, const fcd_index nd[4], double X[4][3], double lam, double G,
                double rho) {
  double J[3][3], Ji[3][3];
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) J[r][c] = X[c + 1][r] - X[0][r];
  double det = J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) -
               J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
               J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
  Ji[0][0] = (J[1][1] * J[2][2] - J[1][2] * J[2][1]) / det;
  Ji[0][1] = (J[0][2] * J[2][1] - J[0][1] * J[2][2]) / det;
  Ji[0][2] = (J[0][1] * J[1][2] - J[0][2] * J[1][1]) / det;
  Ji[1][0] = (J[1][2] * J[2][0] - J[1][0] * J[2][2]) / det;
  Ji[1][1] = (J[0][0] * J[2][2] - J[0][2] * J[2][0]) / det;
  Ji[1][2] = (J[0][2] * J[1][0] - J[0][0] * J[1][2]) / det;
  Ji[2][0] = (J[1][0] * J[2][1] - J[1][1] * J[2][0]) / det;
  Ji[2][1] = (J[0][1] * J[2][0] - J[0][0] * J[2][1]) / det;
  Ji[2][2] = (J[0][0] * J[1][1] - J[0][1] * J[1][0]) / det;
  double g[4][3], vol = fabs(det) / 6;
  for (int c = 0; c < 3; c++) {
    g[1][c] = Ji[0][c];
    g[2][c] = Ji[1][c];
    g[3][c] = Ji[2][c];
    g[0][c] = -(g[1][c] + g[2][c] + g[3][c]);
  }
  for (int p0 = 0; p0 < 4; p0++)
    for (int b = 0; b < 4; b++)
      for (int p = 0; p < 3; p++)
        for (int q = 0; q < 3; q++) {
          fcd_index dp = 3 * nd[p0] + p, dq = 3 * nd[b] + q;
          if (dp > dq) continue;
          if (a->row_end > a->row_begin && (dp < a->row_begin || dp >= a->row_end) &&
              (dq < a->row_begin || dq >= a->row_end))
            continue;
          /* isotropic elasticity: lam g_a,p g_b,q + G (g_a,q g_b,p + delta_pq g_a.g_b) */
          double s = lam * g[p0][p] * g[b][q] + G * g[p0][q] * g[b][p];
          if (p == q) s += G * (g[p0][0] * g[b][0] + g[p0][1] * g[b][1] + g[p0][2] * g[b][2]);
          a->ri[a->ne] = dp;
          a->ci[a->ne] = dq;
          a->kv[a->ne] = s * vol;
          a->mv[a->ne++] = p == q ? rho * vol / 20 * (p0 == b ? 2 : 1) : 0;
        }
}

int bench_tet_block(bench_coo *a, int nx, int ny, int nz, double lx, double ly, double lz,
                    double z0, fcd_index node0, double E, double nu, double rho, double *xyz) {
  const double hx = lx / nx, hy = ly / ny, hz = lz / nz;
  const fcd_index px = nx + 1, py = ny + 1;
  double lam = E * nu / ((1 + nu) * (1 - 2 * nu)), G = E / (2 * (1 + nu));
  /* six tetrahedra around the main diagonal of each cube (Kuhn) */
  static const int tets[6][4] = {{0, 1, 3, 7}, {0, 1, 5, 7}, {0, 2, 3, 7},
                                 {0, 2, 6, 7}, {0, 4, 5, 7}, {0, 4, 6, 7}};
  if (xyz)
    for (int k = 0; k <= nz; k++)
      for (int j = 0; j <= ny; j++)
        for (int i = 0; i <= nx; i++) {
          double *x = xyz + 3 * ((fcd_index)k * px * py + (fcd_index)j * px + i);
          x[0] = i * hx;
          x[1] = j * hy;
          x[2] = z0 + k * hz;
        }
  for (int k = 0; k < nz; k++)
    for (int j = 0; j < ny; j++)
      for (int i = 0; i < nx; i++) {
        if (grow(a, 6 * 78)) return -1;
        fcd_index cn[8];
        double cx[8][3];
        for (int q = 0; q < 8; q++) {
          int di = q & 1, dj = (q >> 1) & 1, dk = (q >> 2) & 1;
          cn[q] = node0 + (fcd_index)(k + dk) * px * py + (fcd_index)(j + dj) * px + i + di;
          cx[q][0] = (i + di) * hx;
          cx[q][1] = (j + dj) * hy;
          cx[q][2] = z0 + (k + dk) * hz;
        }
        for (int t = 0; t < 6; t++) {
          double X[4][3];
          fcd_index nd[4];
          for (int q = 0; q < 4; q++) {
            nd[q] = cn[tets[t][q]];
            memcpy(X[q], cx[tets[t][q]], sizeof X[q]);
          }
          tet(a, nd, X, lam, G, rho);
        }
      }
  return 0;
}
