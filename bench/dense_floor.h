/* The floor a reduced model's time step cannot go under on this machine: the dense passes
 * every step makes, each timed alone with the same BLAS. A reduced model's matrices are
 * dense n x n (symmetric, read from one triangle), so a step of Moreau-Jean or modified
 * theta reads, at least:
 *   - K, M and C once each, for the right-hand side (the library's own products,
 *     fcd_system_apply: BLAS' dsymv);
 *   - the iteration matrix's Cholesky factor twice, forward and backward (dtrsv on an
 *     n x n triangle: what CHOLMOD's supernodal solve of a dense matrix comes to);
 *   - the Delassus operator W of the contact set once (dgemv on its m x m array, m = 3 a
 *     contact): any contact solve reads all of W at least once, and a Gauss-Seidel sweep
 *     reads it exactly once.
 * The passes run in that order, each array read once, `reps` times: the floor is the
 * fastest repetition (each array then as warm as a step that read only these would find
 * it), each part the fastest of its own. The values in the arrays do not change the time
 * of these calls (no zeros skipped, no denormals). */
#ifndef FCD_BENCH_DENSE_FLOOR_H
#define FCD_BENCH_DENSE_FLOOR_H

#include <fcd/fcd.h>

#include <stdlib.h>
#include <time.h>

void dgemv_(const char *t, const int *m, const int *n, const double *alpha, const double *a,
            const int *lda, const double *x, const int *incx, const double *beta, double *y,
            const int *incy);
void dtrsv_(const char *uplo, const char *t, const char *diag, const int *n, const double *a,
            const int *lda, double *x, const int *incx);

typedef struct {
  long n, m;                   /* the model's dofs, W's rows */
  double k, mass, c, factor, w; /* seconds of each pass (factor: forward and backward) */
  double total;                 /* the fastest repetition of all five */
} dense_floor;

static double dense_floor_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The floor of a step of sys with the contact set cs (its size m / 3 contacts): 0, or -1
 * when an array does not fit in memory or a product fails */
static int dense_floor_measure(const fcd_system *sys, const fcd_contact_set *cs, int reps,
                               dense_floor *f) {
  long n = (long)fcd_system_ndofs(sys), m = 3 * (long)fcd_contact_set_size(cs);
  f->n = n;
  f->m = m;
  long big = n > m ? n : m;
  double *x = malloc(sizeof(double) * (size_t)big), *y = malloc(sizeof(double) * (size_t)big);
  double *L = malloc(sizeof(double) * (size_t)n * (size_t)n);
  double *W = malloc(sizeof(double) * (size_t)m * (size_t)m + 1);
  int ok = x && y && L && W && n > 0;
  if (ok) {
    for (long i = 0; i < big; i++) x[i] = 1.0 + 1e-3 * (double)(i % 7);
    /* a well-conditioned lower triangle (unit diagonal dominance), so that dtrsv's results
     * stay of order one over the repetitions */
    for (long j = 0; j < n; j++)
      for (long i = 0; i < n; i++) L[j * n + i] = i == j ? 2.0 : i > j ? 1e-4 / (double)n : 0.0;
    for (long i = 0; i < m * m; i++) W[i] = 1e-3 / (double)(1 + i % 13);
    int nn = (int)n, mm = (int)m, one = 1;
    double alpha = 1, beta = 0, t[6], part[5] = {1e300, 1e300, 1e300, 1e300, 1e300};
    f->total = 1e300;
    for (int r = 0; r < reps && ok; r++) { /* in a step's order, each array once a pass */
      t[0] = dense_floor_now();
      ok = fcd_system_apply(sys, FCD_STIFFNESS, x, y) == FCD_OK;
      t[1] = dense_floor_now();
      ok = ok && fcd_system_apply(sys, FCD_MASS, x, y) == FCD_OK;
      t[2] = dense_floor_now();
      ok = ok && fcd_system_apply(sys, FCD_DAMPING, x, y) == FCD_OK;
      t[3] = dense_floor_now();
      dtrsv_("L", "N", "N", &nn, L, &nn, y, &one);
      dtrsv_("L", "T", "N", &nn, L, &nn, y, &one);
      t[4] = dense_floor_now();
      if (m > 0) dgemv_("N", &mm, &mm, &alpha, W, &mm, x, &one, &beta, y, &one);
      t[5] = dense_floor_now();
      for (int i = 0; i < 5; i++)
        if (t[i + 1] - t[i] < part[i]) part[i] = t[i + 1] - t[i];
      if (t[5] - t[0] < f->total) f->total = t[5] - t[0];
    }
    f->k = part[0];
    f->mass = part[1];
    f->c = part[2];
    f->factor = part[3];
    f->w = part[4];
  }
  if (!ok) f->total = -1;
  free(x);
  free(y);
  free(L);
  free(W);
  return ok ? 0 : -1;
}

#endif
