/* A Matrix Market file read into a distributed system (issue 24): rank 0 reads it and
 * sends each rank the entries of its rows. Under mpiexec -n 1, 2 and 3, with uneven row
 * blocks (on 3 ranks the middle one owns no row):
 * - a general and a symmetric matrix of 3,000 rows (some 15,000 entries, so every rank
 *   receives several batches) give the product A x of the same file read serially, on
 *   every rank, to round-off, and the ranks' stored entries add up to the serial count;
 * - the path is read on rank 0 only (the other ranks pass NULL);
 * - a missing file, a malformed line, a wrong size and a file that ends early (after
 *   entries were sent) fail on every rank with rank 0's status and message, leave no
 *   matrix set, and leave nothing in flight: a good read afterwards succeeds;
 * - ranks that ask for different matrices, or one rank's bad kind, fail on every rank
 *   before anything is read. No rank is left waiting in any case (the test would hang);
 * - a host's own message in flight on its communicator is not taken by fcd. */
#include <fcd/fcd.h>

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fcdtest.h"

enum { N = 3000 };
static int rank = 0, size = 1;

/* entry k of row i: the diagonal and four columns spread over the matrix, so that every
 * row has entries in other ranks' blocks */
static void write_mm(const char *path, int symmetric, long long declared, long long stop) {
  FILE *f = fopen(path, "w");
  if (!f) return;
  fprintf(f, "%%%%MatrixMarket matrix coordinate real %s\n%% written by test_read\n",
          symmetric ? "symmetric" : "general");
  long long count = 0;
  for (int i = 0; i < N; i++)
    for (int k = 0; k < 5; k++) {
      int j = k == 0 ? i : (i * 7 + k * 613) % N;
      if (symmetric && j > i) continue; /* lower triangle, as the standard stores it */
      count++;
    }
  fprintf(f, "%d %d %lld\n", N, N, declared > 0 ? declared : count);
  long long w = 0;
  for (int i = 0; i < N && w != stop; i++)
    for (int k = 0; k < 5 && w != stop; k++) {
      int j = k == 0 ? i : (i * 7 + k * 613) % N;
      if (symmetric && j > i) continue;
      fprintf(f, "%d %d %.17g\n", i + 1, j + 1, k == 0 ? 10.0 + i % 7 : 0.1 * k - 0.01 * (i % 5));
      w++;
    }
  fclose(f);
}

/* the block of rank r: uneven, and on 3 ranks the middle one empty */
static void block(int r, fcd_index *b, fcd_index *e) {
  fcd_index cut[4] = {0, N, N, N};
  if (size == 2) cut[1] = 1234;
  if (size == 3) cut[1] = cut[2] = 1700;
  *b = cut[r];
  *e = cut[r + 1];
}

static fcd_system *dist_system(void) {
  fcd_system *sys = NULL;
  if (fcd_system_create(N, &sys) != FCD_OK) return NULL;
  fcd_index b, e;
  block(rank, &b, &e);
  if (fcd_system_set_distribution(sys, (int64_t)MPI_Comm_c2f(MPI_COMM_WORLD), b, e) != FCD_OK) {
    fcd_system_destroy(sys);
    return NULL;
  }
  return sys;
}

static void same_product(const char *path) {
  fcd_system *ser = NULL, *dis = dist_system();
  CHECK_ST(fcd_system_create(N, &ser), FCD_OK);
  CHECK(dis != NULL);
  if (!ser || !dis) return;
  CHECK_ST(fcd_system_read_matrix_market(ser, FCD_STIFFNESS, path), FCD_OK);
  CHECK_ST(fcd_system_read_matrix_market(dis, FCD_STIFFNESS, rank == 0 ? path : NULL), FCD_OK);
  double *x = malloc(N * sizeof *x), *y1 = malloc(N * sizeof *y1), *y2 = malloc(N * sizeof *y2);
  for (int i = 0; i < N; i++) x[i] = sin(0.37 * i) + 0.5;
  CHECK_ST(fcd_system_apply(ser, FCD_STIFFNESS, x, y1), FCD_OK);
  CHECK_ST(fcd_system_apply(dis, FCD_STIFFNESS, x, y2), FCD_OK);
  double d = fcdt_rel_diff(y2, y1, N);
  CHECK(d < 1e-14);
  fcd_index s1 = 0, s2 = 0;
  fcd_system_matrix_nnz(ser, FCD_STIFFNESS, &s1, NULL);
  fcd_system_matrix_nnz(dis, FCD_STIFFNESS, &s2, NULL);
  long long mine = s2, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  CHECK(all == (long long)s1);
  if (rank == 0)
    printf("%s: A x differs by %.1e from the serial read; %lld entries over %d ranks\n",
           path, d, all, size);
  free(x);
  free(y1);
  free(y2);
  fcd_system_destroy(ser);
  fcd_system_destroy(dis);
}

/* a read that must fail on every rank with status st, rank 0's message naming what */
static void fails(const char *path, fcd_status st, const char *what) {
  fcd_system *dis = dist_system();
  CHECK(dis != NULL);
  if (!dis) return;
  CHECK_ST(fcd_system_read_matrix_market(dis, FCD_STIFFNESS, path), st);
  CHECK_MSG(dis, what);
  CHECK(!fcd_system_has_matrix(dis, FCD_STIFFNESS));
  if (rank == 0) printf("refused on every rank: %s\n", fcd_system_last_error(dis));
  fcd_system_destroy(dis);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size > 3) {
    if (rank == 0) fprintf(stderr, "test_read: 1 to 3 ranks\n");
    MPI_Finalize();
    return 1;
  }
  char gen[1024], sym[1024], bad[1024], small[1024], early[1024], none[1024];
  fcdt_tmpfile(gen, sizeof gen, "general.mtx");
  fcdt_tmpfile(sym, sizeof sym, "symmetric.mtx");
  fcdt_tmpfile(bad, sizeof bad, "bad.mtx");
  fcdt_tmpfile(small, sizeof small, "small.mtx");
  fcdt_tmpfile(early, sizeof early, "early.mtx");
  fcdt_tmpfile(none, sizeof none, "none.mtx");
  if (rank == 0) {
    write_mm(gen, 0, 0, -1);
    write_mm(sym, 1, 0, -1);
    write_mm(early, 0, 20000, -1); /* 15,000 entries where 20,000 are declared */
    FILE *f = fopen(bad, "w");
    if (f) {
      fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n%d %d 3\n1 1 1\n2 2 x\n"
              "3 3 1\n", N, N);
      fclose(f);
    }
    f = fopen(small, "w");
    if (f) {
      fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n10 10 1\n1 1 1\n");
      fclose(f);
    }
    remove(none);
  }
  MPI_Barrier(MPI_COMM_WORLD);

  same_product(gen);
  same_product(sym);

  fails(none, FCD_E_IO, "none.mtx");
  fails(bad, FCD_E_FORMAT, "bad.mtx:4");
  fails(small, FCD_E_INVALID_ARG, "10 x 10");
  fails(early, FCD_E_FORMAT, "15000 of 20000");
  /* nothing of the failed reads is left in flight: a good read works */
  same_product(gen);

  /* a message of the host's own in flight on its communicator during the read, with the
   * tag fcd's batches use inside: fcd talks on a duplicate, so its receives never take
   * it (they would, on the host's communicator itself: a truncation or a hang) */
  if (size > 1) {
    int token = 12345, got = 0;
    MPI_Request rq = MPI_REQUEST_NULL;
    if (rank == 0) MPI_Isend(&token, 1, MPI_INT, 1, 7301, MPI_COMM_WORLD, &rq);
    same_product(gen);
    if (rank == 1) MPI_Recv(&got, 1, MPI_INT, 0, 7301, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rank == 0) MPI_Wait(&rq, MPI_STATUS_IGNORE);
    CHECK(rank != 1 || got == 12345);
  }

  /* ranks that disagree fail before anything is read */
  fcd_system *dis = dist_system();
  CHECK(dis != NULL);
  if (dis && size > 1) {
    fcd_matrix_kind k = rank == 1 ? FCD_MASS : FCD_STIFFNESS;
    CHECK_ST(fcd_system_read_matrix_market(dis, k, gen), FCD_E_INVALID_ARG);
    CHECK_MSG(dis, "different matrices");
    CHECK_ST(fcd_system_read_matrix_market(dis, rank == size - 1 ? (fcd_matrix_kind)7
                                                                 : FCD_STIFFNESS, gen),
             FCD_E_INVALID_ARG);
    CHECK_MSG(dis, rank == size - 1 ? "unknown matrix kind 7" : "another rank's arguments");
  }
  if (dis) {
    CHECK_ST(fcd_system_read_matrix_market(dis, FCD_STIFFNESS, rank == 0 ? NULL : gen),
             FCD_E_INVALID_ARG);
    CHECK_MSG(dis, rank == 0 ? "path is NULL" : "another rank's arguments");
    /* and the handle still reads */
    CHECK_ST(fcd_system_read_matrix_market(dis, FCD_STIFFNESS, rank == 0 ? gen : NULL), FCD_OK);
  }
  fcd_system_destroy(dis);

  int failures = fcdt_failures, any = 0;
  MPI_Allreduce(&failures, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0)
    printf("read: %d checks on rank 0, %d failed (worst rank: %d)\n", fcdt_checks,
           fcdt_failures, any);
  fcd_finalize();
  MPI_Finalize();
  return any ? 1 : 0;
}
