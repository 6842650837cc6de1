/* The Schur complement's inverse over the ranks (run under mpiexec -n 1, 2 and 3):
 * fcd__grid_factor then fcd__grid_inverse on an SPD matrix of 1,337 rows (ten whole column
 * blocks of 128 and a partial one: several groups of blocks, the last one short, and on
 * three ranks groups that straddle the ranks' blocks unevenly). Every rank holds some
 * columns; each is compared on and below the diagonal with LAPACK's dpotri of the whole
 * matrix, which every rank computes for itself. Then (several ranks only) the trailing
 * view, fcd__grid_trailing, that the distributed factor's inverse_cols (mumps_factor.c)
 * takes when separators come first: the trailing block of the factor is the Cholesky factor of the Schur complement
 * of the leading block, whose inverse is the trailing block of S^-1, so the same
 * reference serves. */
#include "algebra.h"
#include "petsc_backend.h"
#include "../fcdtest.h"

#include <lapacke.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { S = 1337 };

/* a symmetric entry from its indices alone, the same on every rank: a random symmetric
 * matrix in [-1, 1] made SPD by a diagonal of S */
static double entry(int i, int j) {
  uint64_t a = (uint64_t)(i < j ? i : j), b = (uint64_t)(i < j ? j : i);
  uint64_t h = (a * 0x9e3779b97f4a7c15ull) ^ (b + 0x632be59bd9b4e019ull + (a << 6) + (a >> 2));
  h ^= h >> 31;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 29;
  double v = (double)(h >> 11) * (2.0 / 9007199254740992.0) - 1.0;
  return i == j ? (double)S + v : v;
}

/* the largest difference on and below the diagonal between this rank's columns of inv
 * (columns of the matrix of order n starting at global row and column off) and ref */
static double compare(const fcd__inverse_cols *inv, fcd_index n, const double *ref, int off,
                      double *scale) {
  double d = 0;
  *scale = 0;
  for (fcd_index k = 0; k < inv->ncols; k++) {
    fcd_index q = inv->col[k];
    for (fcd_index p = q; p < n; p++) {
      double r = ref[(size_t)(q + off) * S + (size_t)(p + off)];
      d = fmax(d, fabs(inv->a[(size_t)k * (size_t)n + (size_t)p] - r));
      *scale = fmax(*scale, fabs(r));
    }
  }
  return d;
}

static double all_max(double v) {
  double r = v;
  MPI_Allreduce(&v, &r, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return r;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double *ref = malloc((size_t)S * S * sizeof *ref);
  CHECK(ref != NULL);
  for (int j = 0; j < S; j++)
    for (int i = 0; i < S; i++) ref[(size_t)j * S + i] = entry(i, j);
  CHECK(LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', S, ref, S) == 0);
  CHECK(LAPACKE_dpotri(LAPACK_COL_MAJOR, 'L', S, ref, S) == 0);
  fcd_system *sys;
  CHECK_ST(fcd_system_create(1, &sys), FCD_OK);
  fcd__grid g;
  CHECK_ST(fcd__grid_open(sys, MPI_COMM_WORLD, S, 0, &g), FCD_OK);
  /* this rank's columns: blocks b with b % size == rank, every row */
  for (fcd_index k = 0; k < g.nloc; k++) {
    int q = (int)(((k / g.nb) * size + rank) * g.nb + k % g.nb);
    for (int p = 0; p < S; p++) g.a[(size_t)k * S + p] = entry(p, q);
  }
  CHECK_ST(fcd__grid_factor(sys, MPI_COMM_WORLD, &g), FCD_OK);
  fcd__inverse_cols inv;
  CHECK_ST(fcd__grid_inverse(sys, MPI_COMM_WORLD, &g, &inv), FCD_OK);
  CHECK(inv.lower == 1);
  long long cols = (long long)inv.ncols;
  MPI_Allreduce(MPI_IN_PLACE, &cols, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  CHECK(cols == S); /* every column on exactly one rank (their sum; each is checked) */
  double scale, d = all_max(compare(&inv, S, ref, 0, &scale));
  scale = all_max(scale);
  if (rank == 0) printf("whole: max difference %.3e (largest entry %.3e)\n", d, scale);
  CHECK(d <= 1e-13 * scale);
  fcd__inverse_cols_clear(&inv);
  if (size > 1) {
    /* a leading block of one column block a rank */
    fcd_index off = (fcd_index)size * g.nb;
    fcd__grid c = fcd__grid_trailing(&g, off);
    CHECK_ST(fcd__grid_inverse(sys, MPI_COMM_WORLD, &c, &inv), FCD_OK);
    d = all_max(compare(&inv, c.s, ref, (int)off, &scale));
    scale = all_max(scale);
    if (rank == 0) printf("trailing %lld: max difference %.3e\n", (long long)c.s, d);
    CHECK(d <= 1e-13 * scale);
    fcd__inverse_cols_clear(&inv);
  }
  fcd__grid_close(&g);
  fcd_system_destroy(sys);
  free(ref);
  int any = 0;
  MPI_Allreduce(&fcdt_failures, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) printf("%d checks, %d failures on some rank\n", fcdt_checks, any);
  fcd_finalize();
  MPI_Finalize();
  return any ? 1 : 0;
}
