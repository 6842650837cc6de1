/* The stability analysis under MPI (run with mpiexec -n 2 and -n 3): the host
 * initializes MPI, hands its communicator over as a Fortran handle, and every rank gets
 * the eigenvalues of the serial solve, to the solver tolerance. A friction sweep on the
 * communicator (its coefficients shared out over the ranks) hands every rank's callback
 * the serial sweep's eigenvalues and track numbers, in order, with the analysis holding
 * each coefficient's results during the call; a callback that stops on one rank, or
 * arguments that differ between ranks, end the sweep on all. */
#include <fcd/fcd.h>

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "../fcdtest.h"

#define STEPS 7
#define MAXC 16
typedef struct {
  fcd_stability *st;
  int calls, stop_at; /* stop_at: the call that returns nonzero (-1: none) */
  double mu[STEPS], re[STEPS][MAXC], im[STEPS][MAXC];
  fcd_index n[STEPS], track[STEPS][MAXC];
  int held; /* every call: the analysis holds the coefficient's results */
} sweep_log;

static int on_mu(void *ud, fcd_real mu, fcd_index n, const fcd_real *re, const fcd_real *im,
                 const fcd_index *track) {
  sweep_log *g = ud;
  int k = g->calls++;
  if (k >= STEPS || n > MAXC) return 1;
  g->mu[k] = mu;
  g->n[k] = n;
  for (fcd_index i = 0; i < n; i++) {
    g->re[k][i] = re[i];
    g->im[k][i] = im[i];
    g->track[k][i] = track[i];
    double a, b;
    if (fcd_stability_get_eigenvalue(g->st, i, &a, &b) != FCD_OK || a != re[i] || b != im[i])
      g->held = 0;
  }
  return k == g->stop_at;
}

static fcd_stability *make_analysis(fcd_system *sys, fcd_contact_set *cs, const int *status,
                                    const double *slip, int comm) {
  fcd_stability *st;
  CHECK_ST(fcd_stability_create(sys, cs, &st), FCD_OK);
  CHECK_ST(fcd_stability_set_contact_state(st, status, slip), FCD_OK);
  CHECK_ST(fcd_stability_set_param(st, FCD_STAB_DENSE_MAX, 0), FCD_OK);
  CHECK_ST(fcd_stability_set_param(st, FCD_STAB_NEV, 8), FCD_OK);
  CHECK_ST(fcd_stability_set_param(st, FCD_STAB_TARGET_HZ, 0.3), FCD_OK);
  CHECK_ST(fcd_stability_set_param(st, FCD_STAB_TOLERANCE, 1e-12), FCD_OK);
  if (comm)
    CHECK_ST(fcd_stability_set_communicator(st, (int64_t)MPI_Comm_c2f(MPI_COMM_WORLD)), FCD_OK);
  return st;
}

/* the serial sweep and the sweep on the communicator agree, on every rank */
static void check_sweep(fcd_system *sys, fcd_contact_set *cs, const int *status,
                        const double *slip, int rank) {
  /* serial; shared out over the ranks (the default); every solve distributed */
  static sweep_log g[3];
  for (int pass = 0; pass < 3; pass++) {
    g[pass].st = make_analysis(sys, cs, status, slip, pass > 0);
    if (pass == 2) CHECK_ST(fcd_stability_set_param(g[2].st, FCD_STAB_SHARE_SWEEP, 0), FCD_OK);
    g[pass].stop_at = -1;
    g[pass].held = 1;
    CHECK_ST(fcd_stability_sweep(g[pass].st, 0.1, 0.9, STEPS, on_mu, &g[pass]), FCD_OK);
    /* afterwards the analysis holds the last coefficient's results, as serially */
    double a, b;
    CHECK_ST(fcd_stability_get_eigenvalue(g[pass].st, 0, &a, &b), FCD_OK);
    CHECK(a == g[pass].re[STEPS - 1][0] && b == g[pass].im[STEPS - 1][0]);
  }
  for (int pass = 1; pass < 3; pass++) {
    CHECK(g[0].calls == STEPS && g[pass].calls == STEPS && g[0].held && g[pass].held);
    double worst = 0;
    int tracks = 1;
    for (int k = 0; k < STEPS; k++) {
      CHECK(g[0].mu[k] == g[pass].mu[k] && g[0].n[k] == g[pass].n[k] && g[0].n[k] > 0);
      for (fcd_index i = 0; i < g[0].n[k] && i < MAXC; i++) {
        worst = fmax(worst, hypot(g[0].re[k][i] - g[pass].re[k][i],
                                  g[0].im[k][i] - g[pass].im[k][i]) /
                                fmax(1.0, hypot(g[0].re[k][i], g[0].im[k][i])));
        tracks &= g[0].track[k][i] == g[pass].track[k][i];
      }
    }
    fprintf(stderr, "rank %d: sweep of %d coefficients, serial / %s %.2e, tracks %s\n", rank,
            STEPS, pass == 1 ? "shared out" : "distributed solves", worst,
            tracks ? "equal" : "differ");
    CHECK(worst < 1e-8 && tracks);
  }
  CHECK_ST(fcd_stability_set_param(g[2].st, FCD_STAB_SHARE_SWEEP, 2), FCD_E_INVALID_ARG);
  fcd_stability_destroy(g[2].st);
  /* a callback that stops on rank 1 alone at its third call stops every rank there */
  sweep_log *h = &g[1];
  h->calls = 0;
  h->stop_at = rank == 1 ? 2 : -1;
  CHECK_ST(fcd_stability_sweep(h->st, 0.1, 0.9, STEPS, on_mu, h), FCD_E_CALLBACK);
  CHECK(h->calls == 3);
  /* ranks that disagree on the number of steps, or a NULL callback on one rank: every
   * rank returns FCD_E_INVALID_ARG, none is left waiting */
  h->calls = 0;
  h->stop_at = -1;
  CHECK_ST(fcd_stability_sweep(h->st, 0.1, 0.9, STEPS + rank, on_mu, h), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_stability_sweep(h->st, 0.1, 0.9, STEPS, rank == 1 ? NULL : on_mu, h),
           FCD_E_INVALID_ARG);
  CHECK(h->calls == 0);
  /* a solve that fails (one restart at an unreachable tolerance): the status of the
   * serial sweep on every rank, no callback, and the analysis keeps its last results */
  fcd_status fst[2];
  for (int pass = 0; pass < 2; pass++) {
    g[pass].calls = 0;
    CHECK_ST(fcd_stability_set_param(g[pass].st, FCD_STAB_MAX_ITER, 1), FCD_OK);
    CHECK_ST(fcd_stability_set_param(g[pass].st, FCD_STAB_TOLERANCE, 1e-16), FCD_OK);
    fst[pass] = fcd_stability_sweep(g[pass].st, 0.1, 0.9, STEPS, on_mu, &g[pass]);
    double a, b;
    CHECK_ST(fcd_stability_get_eigenvalue(g[pass].st, 0, &a, &b), FCD_OK);
  }
  fprintf(stderr, "rank %d: failing sweep: %s / %s, %d / %d calls\n", rank,
          fcd_status_str(fst[0]), fcd_status_str(fst[1]), g[0].calls, g[1].calls);
  CHECK(fst[0] != FCD_OK && fst[1] == fst[0] && g[1].calls == g[0].calls);
  fcd_stability_destroy(g[0].st);
  fcd_stability_destroy(g[1].st);
}

/* General damping (SLEPc's PEP, shift-and-invert at 0 by fcd's MUMPS instance on the
 * communicator as on one rank): every rank gets the serial solve's eigenvalues */
static void check_damped(fcd_system *sys, fcd_contact_set *cs, const int *status,
                         const double *slip, int rank, int n) {
  fcd_index *r = malloc(sizeof *r * 2 * n), *c = malloc(sizeof *c * 2 * n);
  double *cv = malloc(sizeof *cv * 2 * n);
  int nz = 0;
  for (int i = 0; i < n; i++)
    for (int j = i; j < n && j <= i + 1; j++) {
      r[nz] = i;
      c[nz] = j;
      cv[nz++] = i == j ? 0.08 + 0.02 * sin(0.3 * i) : 0.01;
    }
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_DAMPING, nz, r, c, cv, FCD_COO_UPPER), FCD_OK);
  double re[2][16], im[2][16];
  fcd_index got[2] = {0, 0};
  for (int pass = 0; pass < 2; pass++) {
    fcd_stability *st = make_analysis(sys, cs, status, slip, pass == 1);
    CHECK_ST(fcd_stability_set_param(st, FCD_STAB_TARGET_HZ, 0), FCD_OK);
    CHECK_ST(fcd_stability_solve(st, &got[pass]), FCD_OK);
    for (fcd_index i = 0; i < got[pass] && i < 16; i++)
      fcd_stability_get_eigenvalue(st, i, &re[pass][i], &im[pass][i]);
    fcd_stability_destroy(st);
  }
  CHECK(got[0] == 8 && got[1] == 8);
  double worst = 0;
  int damped = 1;
  for (fcd_index i = 0; i < got[0] && i < 16; i++) {
    worst = fmax(worst, hypot(re[0][i] - re[1][i], im[0][i] - im[1][i]) /
                            fmax(1.0, hypot(re[0][i], im[0][i])));
    damped &= re[0][i] < 0; /* a damped, stable pair: the PEP, not the undamped pencil */
  }
  fprintf(stderr, "rank %d: damped, serial / distributed %.2e\n", rank, worst);
  CHECK(worst < 1e-8 && damped);
  free(r);
  free(c);
  free(cv);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  /* a chain of nn nodes (T, N dofs), neighbours coupled, the first 12 on a flat */
  const int nn = 150, n = 2 * nn, nc = 12;
  fcd_system *sys;
  CHECK_ST(fcd_system_create(n, &sys), FCD_OK);
  fcd_index *r = malloc(sizeof *r * 8 * n), *c = malloc(sizeof *c * 8 * n);
  double *kv = malloc(sizeof *kv * 8 * n), *mv = malloc(sizeof *mv * 8 * n);
  int nz = 0;
  for (int i = 0; i < n; i++)
    for (int j = i; j < n && j <= i + 3; j++) {
      r[nz] = i;
      c[nz] = j;
      double a = sin(1.0 + i * 0.37 + j * 0.11);
      kv[nz] = i == j ? 4.0 + 0.5 * a : 0.4 * a;
      mv[nz++] = i == j ? 1.0 + 0.2 * a : (j == i + 1 ? 0.05 * a : 0.0);
    }
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, nz, r, c, kv, FCD_COO_UPPER), FCD_OK);
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_MASS, nz, r, c, mv, FCD_COO_UPPER), FCD_OK);
  fcd_contact_set *cs;
  CHECK_ST(fcd_contact_set_create(sys, 2, &cs), FCD_OK);
  int status[12];
  double slip[12];
  for (int k = 0; k < nc; k++) {
    const fcd_index d[2] = {2 * k, 2 * k + 1};
    const double nv[2] = {0, 1}, tv[2] = {1, 0};
    CHECK_ST(fcd_contact_set_add_rigid(cs, d, nv, tv, 0.0, 0.6, NULL), FCD_OK);
    status[k] = k % 3;
    slip[k] = k % 2 ? 1 : -1;
  }
  double re[2][16], im[2][16], berr[2] = {0, 0};
  fcd_index got[2];
  int flut[2], div[2], nec[2];
  for (int pass = 0; pass < 2; pass++) {
    fcd_stability *st = make_analysis(sys, cs, status, slip, pass == 1);
    CHECK_ST(fcd_stability_solve(st, &got[pass]), FCD_OK);
    for (fcd_index i = 0; i < got[pass] && i < 16; i++)
      fcd_stability_get_eigenvalue(st, i, &re[pass][i], &im[pass][i]);
    fcd_certificate cert;
    CHECK_ST(fcd_stability_get_certificate(st, &cert), FCD_OK);
    berr[pass] = cert.worst;
    CHECK_ST(fcd_stability_get_summary(st, &flut[pass], &div[pass], &nec[pass], NULL),
             FCD_OK);
    fcd_stability_destroy(st);
  }
  /* The distributed solve's certificate: each rank computes the backward errors of its
   * share of the pairs and the worst is reduced, so every rank reports the same figure,
   * which must be the pairs' worst at round-off level (the serial solve's is, from
   * slightly different vectors), not only the share of one rank. */
  double bmin = berr[1], bmax = berr[1];
  MPI_Allreduce(MPI_IN_PLACE, &bmin, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &bmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  CHECK(bmin == bmax && berr[1] > 0 && berr[1] < 1e-10);
  CHECK(berr[0] > 0 && berr[1] < 100 * berr[0] && berr[0] < 100 * berr[1]);
  fprintf(stderr, "rank %d: certificate serial %.2e, distributed %.2e\n", rank, berr[0],
          berr[1]);
  CHECK(got[0] == 16 && got[1] == 16);
  /* the necessary condition is rank 0's on a communicator (the other ranks certify the
   * pairs meanwhile): every rank must report the serial answer */
  CHECK(nec[1] == nec[0] && flut[1] == flut[0] && div[1] == div[0]);
  double worst = 0;
  for (int i = 0; i < 16; i++)
    worst = fmax(worst, hypot(re[0][i] - re[1][i], im[0][i] - im[1][i]) /
                            fmax(1.0, hypot(re[0][i], im[0][i])));
  CHECK(worst < 1e-8);
  fprintf(stderr, "rank %d of %d: largest difference serial / distributed %.2e\n", rank, size,
          worst);
  CHECK(size >= 2); /* the test is meant for mpiexec -n 2 and -n 3 */
  check_sweep(sys, cs, status, slip, rank);
  check_damped(sys, cs, status, slip, rank, n);
  /* every rank agrees */
  double w_all = 0;
  MPI_Allreduce(&worst, &w_all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  CHECK(w_all < 1e-8);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
  free(r);
  free(c);
  free(kv);
  free(mv);
  fcd_finalize();
  int rc = fcdt_finish("test_stability_mpi");
  MPI_Finalize();
  return rc;
}
