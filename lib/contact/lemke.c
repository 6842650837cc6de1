/* Lemke's complementary pivoting method for the linear complementarity problem
 *   find z >= 0 with w = A z + q >= 0 and z . w = 0,
 * A dense (m x m, row-major, any sign pattern). Steady sliding needs it: its matrix is
 * non-symmetric (the friction columns), and for some data no solution exists; Lemke's
 * method then ends on a secondary ray, which is a certificate of non-existence for the
 * classes it is complete on (P-matrices and copositive-plus matrices) and is reported as
 * "no solution found" otherwise. A semismooth Newton would only fail to converge.
 * Covering vector: all ones. Dense tableau, O(m^2) per pivot. */
#include "lapack.h"
#include "fc_private.h"

#include <math.h>
#include <string.h>

int fcd__lemke(fcd_index m, const fcd_real *A, const fcd_real *q, fcd_real *z,
               fcd_index max_pivots, fcd_index *pivots) {
  *pivots = 0;
  memset(z, 0, (size_t)m * sizeof *z);
  fcd_index imin = 0;
  for (fcd_index i = 1; i < m; i++)
    if (q[i] < q[imin]) imin = i;
  if (m == 0 || q[imin] >= 0) return FCD__LEMKE_OK; /* z = 0 */
  /* columns: w (0..m-1), z (m..2m-1), z0 (2m), rhs (2m+1) */
  fcd_index nc = 2 * m + 2, z0 = 2 * m, rhs = 2 * m + 1;
  fcd_real *T = fcd__malloc_array((size_t)m * (size_t)nc, sizeof *T);
  fcd_index *basis = fcd__malloc_array((size_t)m, sizeof *basis);
  if (!T || !basis) {
    fcd__free(T);
    fcd__free(basis);
    return FCD__LEMKE_NOMEM;
  }
  fcd_real amax = 0;
  for (fcd_index i = 0; i < m * m; i++) amax = fmax(amax, fabs(A[i]));
  for (fcd_index i = 0; i < m; i++) {
    fcd_real *row = T + i * nc;
    memset(row, 0, (size_t)nc * sizeof *row);
    row[i] = 1.0;
    for (fcd_index j = 0; j < m; j++) row[m + j] = -A[i * m + j];
    row[z0] = -1.0;
    row[rhs] = q[i];
    basis[i] = i;
  }
  fcd_real eps = 1e-13 * fmax(1.0, amax);
  int result = FCD__LEMKE_RAY;
  fcd_index r = imin, enter = z0;
  for (;;) {
    /* pivot on (r, enter) */
    fcd_real *pr = T + r * nc, piv = pr[enter];
    for (fcd_index j = 0; j < nc; j++) pr[j] /= piv;
    for (fcd_index i = 0; i < m; i++) {
      if (i == r) continue;
      fcd_real *pi = T + i * nc, f = pi[enter];
      if (f == 0) continue;
      for (fcd_index j = 0; j < nc; j++) pi[j] -= f * pr[j];
    }
    fcd_index leave = basis[r];
    basis[r] = enter;
    ++*pivots;
    if (leave == z0) {
      result = FCD__LEMKE_OK;
      break;
    }
    if (*pivots >= max_pivots) {
      result = FCD__LEMKE_CAP;
      break;
    }
    enter = leave < m ? leave + m : leave - m; /* the complement of what left */
    /* minimum ratio; ties go to z0 (ends the path), then to the lowest row */
    fcd_index best = -1;
    fcd_real bratio = INFINITY;
    for (fcd_index i = 0; i < m; i++) {
      fcd_real a = T[i * nc + enter];
      if (a <= eps) continue;
      fcd_real ratio = T[i * nc + rhs] / a;
      /* the first candidate always counts (INFINITY - 1e-14 INFINITY is NaN, which
       * once made every comparison false and let only z0's row win) */
      if (best < 0 || ratio < bratio - 1e-14 * fabs(bratio) ||
          (ratio <= bratio + 1e-14 * fabs(bratio) && basis[i] == z0)) {
        bratio = ratio;
        best = i;
      }
    }
    if (best < 0) break; /* secondary ray */
    r = best;
  }
  if (result == FCD__LEMKE_OK)
    for (fcd_index i = 0; i < m; i++)
      if (basis[i] >= m && basis[i] < 2 * m) z[basis[i] - m] = fmax(0.0, T[i * nc + rhs]);
  fcd__free(T);
  fcd__free(basis);
  return result;
}

int fcd__lcp_block_pivot(fcd_index m, const fcd_real *A, const fcd_real *q,
                         unsigned char *act, fcd_real *z, int maxit, fcd_real tol) {
  fcd_index *idx = fcd__malloc_array((size_t)m + 1, sizeof *idx);
  fcd_real *B = fcd__malloc_array((size_t)m * (size_t)m + 1, sizeof *B);
  fcd_real *x = fcd__malloc_array((size_t)m + 1, sizeof *x);
  int res = 1;
  if (!idx || !B || !x) {
    res = FCD__LEMKE_NOMEM;
    maxit = 0;
  }
  for (int it = 0; it < maxit; it++) {
    fcd_index ng = 0;
    for (fcd_index i = 0; i < m; i++)
      if (act[i]) idx[ng++] = i;
    for (fcd_index a = 0; a < ng; a++) {
      x[a] = -q[idx[a]];
      for (fcd_index b = 0; b < ng; b++) B[a * ng + b] = A[idx[a] * m + idx[b]];
    }
    int info = fcd__la_gesv(ng, B, x);
    if (info == FCD__LA_NOMEM) res = FCD__LEMKE_NOMEM;
    if (info != 0) break; /* a singular guessed block: Lemke's method decides */
    memset(z, 0, (size_t)m * sizeof *z);
    for (fcd_index a = 0; a < ng; a++) z[idx[a]] = x[a];
    fcd_index wrong = 0;
    for (fcd_index i = 0; i < m; i++) {
      fcd_real w = q[i];
      for (fcd_index a = 0; a < ng; a++) w += A[i * m + idx[a]] * x[a];
      /* full exchange: every index on the wrong side changes sides */
      if (act[i] ? z[i] < -tol : w < -tol) {
        act[i] = !act[i];
        wrong++;
      }
    }
    if (wrong == 0) {
      for (fcd_index i = 0; i < m; i++) z[i] = fmax(z[i], 0.0);
      res = 0;
      break;
    }
  }
  fcd__free(idx);
  fcd__free(B);
  fcd__free(x);
  return res;
}
