/* The dense LCP solvers of steady sliding, find z >= 0 with w = A z + q >= 0, z . w = 0:
 * block principal pivoting (fcd__lcp_block_pivot, tried first from a guess) and Lemke's
 * method (fcd__lemke, which decides when the pivots do not settle). The reference is
 * independent of both: every one of the 2^m complementary sets solved with LAPACK, the
 * one whose solution is feasible kept. A = B B' + s I + k S with S skew: its symmetric
 * part is positive definite, so A is a P-matrix and the solution is unique, and the
 * skew part makes A non-symmetric as steady sliding's is. */
#include <fcd/fcd.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../fcdtest.h"
#include "fc_private.h"

static double rnd(unsigned *s) {
  *s = *s * 1103515245u + 12345u;
  return ((*s >> 8) & 0xffff) / 32768.0 - 1.0;
}

/* the solution by enumeration; 0 when no complementary set is feasible */
static int enumerate(int m, const double *A, const double *q, double *z) {
  double B[64], x[8];
  lapack_int ipiv[8];
  for (unsigned set = 0; set < (1u << m); set++) {
    int idx[8], ng = 0;
    for (int i = 0; i < m; i++)
      if (set >> i & 1) idx[ng++] = i;
    for (int a = 0; a < ng; a++) {
      x[a] = -q[idx[a]];
      for (int b = 0; b < ng; b++) B[a * ng + b] = A[idx[a] * m + idx[b]];
    }
    if (ng && LAPACKE_dgesv(LAPACK_ROW_MAJOR, ng, 1, B, ng, ipiv, x, 1) != 0) continue;
    int ok = 1;
    memset(z, 0, sizeof *z * (size_t)m);
    for (int a = 0; a < ng; a++) {
      z[idx[a]] = x[a];
      ok &= x[a] >= -1e-12;
    }
    for (int i = 0; i < m && ok; i++) {
      double w = q[i];
      for (int j = 0; j < m; j++) w += A[i * m + j] * z[j];
      ok &= (set >> i & 1) || w >= -1e-12;
    }
    if (ok) return 1;
  }
  return 0;
}

static void p_matrices(void) {
  unsigned seed = 7;
  int settled = 0, handed = 0;
  for (int trial = 0; trial < 400; trial++) {
    int m = 1 + trial % 8;
    double A[64], q[8], z[8], zl[8], zr[8], Bm[64];
    for (int i = 0; i < m * m; i++) Bm[i] = rnd(&seed);
    for (int i = 0; i < m; i++) {
      q[i] = rnd(&seed) - 0.2;
      for (int j = 0; j < m; j++) {
        double s = 0;
        for (int k = 0; k < m; k++) s += Bm[i * m + k] * Bm[j * m + k];
        A[i * m + j] = s + (i == j ? 0.1 : 0);
      }
    }
    for (int i = 0; i < m; i++) /* a skew part up to twice the symmetric one's size */
      for (int j = 0; j < i; j++) {
        double k = 2 * rnd(&seed);
        A[i * m + j] += k;
        A[j * m + i] -= k;
      }
    CHECK(enumerate(m, A, q, zr));
    fcd_index piv;
    CHECK(fcd__lemke(m, A, q, zl, 1000, &piv) == FCD__LEMKE_OK);
    /* from the free guess (q < 0), and from the opposite of the solution */
    for (int g = 0; g < 2; g++) {
      unsigned char act[8];
      for (int i = 0; i < m; i++) act[i] = g == 0 ? q[i] < 0 : !(zr[i] > 0);
      int r = fcd__lcp_block_pivot(m, A, q, act, z, 8, 1e-13);
      CHECK(r == 0 || r == 1);
      if (r != 0) {
        handed++;
        continue;
      }
      settled++;
      for (int i = 0; i < m; i++) {
        CHECK(fabs(z[i] - zr[i]) <= 1e-10 * (1 + fabs(zr[i])));
        CHECK(fabs(zl[i] - zr[i]) <= 1e-10 * (1 + fabs(zr[i])));
      }
    }
  }
  printf("400 P-matrix LCPs (m <= 8): block pivoting settled %d of 800 starts, handed %d "
         "to Lemke's method\n", settled, handed);
  CHECK(settled >= 600); /* it is the fast path: it must usually settle */
}

static void no_solution(void) {
  /* w = -z - 1 >= 0 has no z >= 0: the pivots do not settle, Lemke ends on a ray */
  const double A[1] = {-1}, q[1] = {-1};
  double z[1];
  unsigned char act[1] = {1};
  CHECK(fcd__lcp_block_pivot(1, A, q, act, z, 8, 1e-13) == 1);
  fcd_index piv;
  CHECK(fcd__lemke(1, A, q, z, 100, &piv) == FCD__LEMKE_RAY);
  /* a singular guessed block is handed over, not solved */
  const double S[4] = {1, 1, 1, 1}, qs[2] = {-1, -1};
  unsigned char both[2] = {1, 1};
  double z2[2];
  CHECK(fcd__lcp_block_pivot(2, S, qs, both, z2, 8, 1e-13) == 1);
}

int main(void) {
  p_matrices();
  no_solution();
  return fcdt_finish("test_lcp");
}
