/* Distributed systems (run under mpiexec -n 1, 2 and 3): a plane-strain block on a
 * rigid flat, its rows split over the ranks at arbitrary places (not at node
 * boundaries), K given by each rank for its own rows only. Every equilibrium (static
 * with a clamped top, static held only by its contacts, steady sliding) must equal the
 * serial CHOLMOD solve of the whole model to 1e-10 relative on every rank; since each
 * rank count is compared with the same serial solve, the rank counts agree with each
 * other too. Then bad input: every rank must return the status, none may hang. */
#include <fcd/fcd.h>

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/block2d.h"
#include "../fcdtest.h"

static int rank, size;
static int64_t comm_f;

/* rows [n r / size, n (r+1) / size), shifted by one row so that the cuts fall inside
 * nodes (the x and y dofs of a node on different ranks) */
static void my_range(fcd_index n, int r, fcd_index *b, fcd_index *e) {
  *b = r == 0 ? 0 : n * r / size + 1;
  *e = r == size - 1 ? n : n * (r + 1) / size + 1;
}

/* The model: block nx x ny, contacts on the bottom row; case 0: top row clamped and
 * pushed down and sideways (prescribed displacement); case 1: nothing prescribed, a
 * downward load on the top row and a sideways one below the friction limit (the rigid
 * modes are held by the contacts only); sliding: case 0 with a sliding velocity. */
typedef struct {
  fcd_system *sys;
  fcd_contact_set *cs;
  fcd_equilibrium *eq;
} model;

static fcd_status build(const tb_block *b, int distributed, int csr, int kase, double vg,
                        model *m) {
  memset(m, 0, sizeof *m);
  fcd_index n = b->ndofs;
  fcd_status st = fcd_system_create(n, &m->sys);
  if (st != FCD_OK) return st;
  fcd_index rb = 0, re = n;
  if (distributed) {
    my_range(n, rank, &rb, &re);
    st = fcd_system_set_distribution(m->sys, comm_f, rb, re);
    if (st != FCD_OK) return st;
  }
  if (!csr) {
    /* this rank's rows of the upper triangle */
    fcd_index *ri = malloc(sizeof *ri * (size_t)b->nk), *ci = malloc(sizeof *ci * (size_t)b->nk);
    double *v = malloc(sizeof *v * (size_t)b->nk);
    fcd_index k = 0;
    for (fcd_index p = 0; p < b->nk; p++)
      if (b->ki[p] >= rb && b->ki[p] < re) {
        ri[k] = b->ki[p];
        ci[k] = b->kj[p];
        v[k++] = b->kv[p];
      }
    st = fcd_system_set_matrix_coo(m->sys, FCD_STIFFNESS, k, ri, ci, v, FCD_COO_UPPER);
    free(ri);
    free(ci);
    free(v);
  } else {
    /* full rows (both triangles) of the owned rows in CSR, as a host's local matrix:
     * from the serial system's COO export */
    fcd_system *whole = NULL;
    tb_block_system(b, &whole);
    fcd_index nnz_full = 0;
    fcd_system_matrix_nnz(whole, FCD_STIFFNESS, NULL, &nnz_full);
    fcd_index *ri = malloc(sizeof *ri * (size_t)nnz_full), *ci = malloc(sizeof *ci * (size_t)nnz_full);
    double *v = malloc(sizeof *v * (size_t)nnz_full);
    fcd_system_get_matrix_coo(whole, FCD_STIFFNESS, ri, ci, v); /* row-major */
    fcd_index nl = re - rb, *rp = calloc((size_t)nl + 1, sizeof *rp);
    fcd_index first = -1, cnt = 0;
    for (fcd_index p = 0; p < nnz_full; p++)
      if (ri[p] >= rb && ri[p] < re) {
        if (first < 0) first = p;
        rp[ri[p] - rb + 1]++;
        cnt++;
      }
    for (fcd_index i = 0; i < nl; i++) rp[i + 1] += rp[i];
    st = fcd_system_set_matrix_csr(m->sys, FCD_STIFFNESS, rp, cnt ? ci + first : ci,
                                   cnt ? v + first : v, FCD_COO_FULL, FCD_COPY);
    free(rp);
    free(ri);
    free(ci);
    free(v);
    fcd_system_destroy(whole);
  }
  if (st != FCD_OK) return st;
  double *f = calloc((size_t)n, sizeof *f);
  if (kase == 0) {
    fcd_index nt = b->nx + 1;
    fcd_index *dofs = malloc(sizeof *dofs * 2 * (size_t)nt);
    double *val = malloc(sizeof *val * 2 * (size_t)nt);
    for (int i = 0; i <= b->nx; i++) {
      dofs[2 * i] = 2 * tb_node(b, i, b->ny);
      dofs[2 * i + 1] = dofs[2 * i] + 1;
      val[2 * i] = 0.004 * b->h;
      val[2 * i + 1] = -0.01 * b->h;
    }
    st = fcd_system_fix_dofs(m->sys, 2 * nt, dofs, val);
    free(dofs);
    free(val);
  } else {
    for (int i = 0; i <= b->nx; i++) {
      f[2 * tb_node(b, i, b->ny) + 1] = -1e-3 * b->e * b->w / (b->nx + 1);
      f[2 * tb_node(b, i, b->ny / 2)] = 0.2e-3 * b->e * b->w / (b->nx + 1);
    }
  }
  if (st == FCD_OK) st = fcd_system_set_load(m->sys, f);
  free(f);
  if (st == FCD_OK) st = tb_block_contacts(b, m->sys, 0.4, vg, &m->cs);
  if (st == FCD_OK) st = fcd_equilibrium_create(m->sys, m->cs, &m->eq);
  return st;
}

static void destroy(model *m) {
  fcd_equilibrium_destroy(m->eq);
  fcd_contact_set_destroy(m->cs);
  fcd_system_destroy(m->sys);
}

/* the largest difference of u and r against the serial solve, relative to their sizes */
static double compare(const model *a, const model *s, fcd_index n, fcd_index m) {
  double *ua = malloc(sizeof *ua * (size_t)n), *us = malloc(sizeof *us * (size_t)n);
  double *ra = malloc(sizeof *ra * (size_t)m), *rs = malloc(sizeof *rs * (size_t)m);
  fcd_equilibrium_get_state(a->eq, ua);
  fcd_equilibrium_get_state(s->eq, us);
  fcd_equilibrium_get_reactions(a->eq, ra);
  fcd_equilibrium_get_reactions(s->eq, rs);
  double du = 0, su = 0, dr = 0, sr = 0;
  for (fcd_index i = 0; i < n; i++) {
    du = fmax(du, fabs(ua[i] - us[i]));
    su = fmax(su, fabs(us[i]));
  }
  for (fcd_index i = 0; i < m; i++) {
    dr = fmax(dr, fabs(ra[i] - rs[i]));
    sr = fmax(sr, fabs(rs[i]));
  }
  free(ua);
  free(us);
  free(ra);
  free(rs);
  return fmax(du / su, dr / sr);
}

static double all_max(double v) {
  double w;
  MPI_Allreduce(&v, &w, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return w;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  comm_f = (int64_t)MPI_Comm_c2f(MPI_COMM_WORLD);
  tb_block b;
  CHECK(tb_block_build(&b, 40, 10, 4.0, 1.0, 1000.0, 0.3, 0.0) == 0);
  fcd_index n = b.ndofs, m = 2 * (b.nx + 1);

  /* ---- equal to the serial solve ---- */
  struct {
    int kase, csr;
    fcd_equilibrium_kind kind;
    double vg;
    const char *name;
  } cases[] = {{0, 0, FCD_EQ_STATIC, 0, "static, top clamped"},
               {0, 1, FCD_EQ_STATIC, 0, "static, top clamped, CSR input"},
               {1, 0, FCD_EQ_STATIC, 0, "static, held by its contacts"},
               {0, 0, FCD_EQ_STEADY_SLIDING, 1.0, "steady sliding"}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    model ser, dis;
    CHECK_ST(build(&b, 0, 0, cases[c].kase, cases[c].vg, &ser), FCD_OK);
    CHECK_ST(build(&b, 1, cases[c].csr, cases[c].kase, cases[c].vg, &dis), FCD_OK);
    CHECK_ST(fcd_equilibrium_solve(ser.eq, cases[c].kind, 0.0), FCD_OK);
    fcd_status st = fcd_equilibrium_solve(dis.eq, cases[c].kind, 0.0);
    CHECK_ST(st, FCD_OK);
    if (st != FCD_OK) fprintf(stderr, "rank %d: %s\n", rank, fcd_system_last_error(dis.sys));
    double diff = all_max(compare(&dis, &ser, n, m));
    CHECK(diff < 1e-10);
    /* the contacts did something: some closed, some reaction */
    int *set = malloc(sizeof *set * (size_t)(b.nx + 1)), closed = 0;
    fcd_equilibrium_get_contact_sets(dis.eq, set);
    for (int i = 0; i <= b.nx; i++) closed += set[i] != FCD_EQ_SEPARATED;
    CHECK(closed > 0);
    free(set);
    /* a second solve reuses the factor: same answer */
    CHECK_ST(fcd_equilibrium_solve(dis.eq, cases[c].kind, 0.0), FCD_OK);
    CHECK(all_max(compare(&dis, &ser, n, m)) < 1e-10);
    if (rank == 0)
      printf("%d rank(s), %s: %lld dofs, largest relative difference to the serial solve "
             "%.1e\n", size, cases[c].name, (long long)n, diff);
    destroy(&ser);
    destroy(&dis);
  }

  /* ---- bad input: a status on every rank ---- */
  fcd_system *sys;
  fcd_index rb, re;
  my_range(n, rank, &rb, &re);
  /* a gap: rows [0, 1) owned by nobody (one rank) or between ranks 0 and 1 */
  CHECK_ST(fcd_system_create(n, &sys), FCD_OK);
  CHECK_ST(fcd_system_set_distribution(sys, comm_f, rank == size - 1 ? rb + 1 : rb, re),
           FCD_E_INVALID_ARG);
  if (rank == 0) CHECK(strstr(fcd_system_last_error(sys), "owned by no rank") != NULL);
  int r0, nr;
  CHECK_ST(fcd_system_get_distribution(sys, &r0, &nr, NULL, NULL), FCD_OK);
  CHECK(r0 == 0 && nr == 1); /* the failed call left the system serial */
  if (size > 1) {
    /* overlap: every rank but the first starts one row early */
    CHECK_ST(fcd_system_set_distribution(sys, comm_f, rank ? rb - 1 : rb, re),
             FCD_E_INVALID_ARG);
    CHECK(strstr(fcd_system_last_error(sys), "overlap") != NULL);
  }
  /* the last rank ends early */
  CHECK_ST(fcd_system_set_distribution(sys, comm_f, rb, rank == size - 1 ? re - 1 : re),
           FCD_E_INVALID_ARG);
  CHECK(strstr(fcd_system_last_error(sys), "owned by no rank") != NULL);
  /* a range that is not one */
  CHECK_ST(fcd_system_set_distribution(sys, comm_f, rank == 0 ? 5 : rb, rank == 0 ? 2 : re),
           FCD_E_INVALID_ARG);
  CHECK_ST(fcd_system_set_distribution(sys, 1LL << 40, rb, re), FCD_E_INVALID_ARG);
  fcd_system_destroy(sys);
  /* different global sizes */
  CHECK_ST(fcd_system_create(rank == size - 1 ? n + 2 : n, &sys), FCD_OK);
  CHECK_ST(fcd_system_set_distribution(sys, comm_f, rb, rank == size - 1 ? n + 2 : re),
           size > 1 ? FCD_E_INVALID_ARG : FCD_OK);
  if (size > 1) CHECK(strstr(fcd_system_last_error(sys), "inconsistent global sizes") != NULL);
  fcd_system_destroy(sys);
  /* a matrix set before the distribution, on the last rank only */
  CHECK_ST(fcd_system_create(n, &sys), FCD_OK);
  if (rank == size - 1) {
    fcd_index i0 = 0;
    double one = 1;
    CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_MASS, 1, &i0, &i0, &one, FCD_COO_FULL), FCD_OK);
  }
  CHECK_ST(fcd_system_set_distribution(sys, comm_f, rb, re), FCD_E_STATE);
  CHECK(strstr(fcd_system_last_error(sys), "already holds a matrix") != NULL);
  fcd_system_destroy(sys);
  /* an entry on a row this rank does not own; FCD_BORROW */
  CHECK_ST(fcd_system_create(n, &sys), FCD_OK);
  CHECK_ST(fcd_system_set_distribution(sys, comm_f, rb, re), FCD_OK);
  {
    fcd_index i = re < n ? re : rb - 1, j = i;
    double one = 1;
    if (size > 1) {
      CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, 1, &i, &j, &one, FCD_COO_FULL),
               FCD_E_INVALID_ARG);
      CHECK(strstr(fcd_system_last_error(sys), "does not own") != NULL);
    }
    fcd_index *rp = calloc((size_t)(re - rb) + 1, sizeof *rp);
    CHECK_ST(fcd_system_set_matrix_csr(sys, FCD_STIFFNESS, rp, &j, &one, FCD_COO_FULL,
                                       FCD_BORROW), FCD_E_INVALID_ARG);
    free(rp);
  }
  /* what is not distributed yet says so */
  {
    fcd_integrator *it;
    fcd_stability *stab;
    CHECK_ST(fcd_integrator_create(sys, NULL, FCD_SCHEME_MOREAU_JEAN, &it), FCD_E_UNSUPPORTED);
    CHECK_ST(fcd_stability_create(sys, NULL, &stab), FCD_E_UNSUPPORTED);
  }
  fcd_system_destroy(sys);

  /* replicated data that differ: rank 0's load is another; a bad argument on one rank;
   * an indefinite stiffness. Every rank returns the same status. */
  {
    model dm;
    CHECK_ST(build(&b, 1, 0, 1, 0, &dm), FCD_OK);
    if (rank == 0) {
      double *f = calloc((size_t)n, sizeof *f);
      f[2 * tb_node(&b, b.nx / 2, b.ny) + 1] = -1;
      fcd_system_set_load(dm.sys, f);
      free(f);
    }
    fcd_status st = fcd_equilibrium_solve(dm.eq, FCD_EQ_STATIC, 0.0);
    CHECK_ST(st, size > 1 ? FCD_E_INVALID_ARG : FCD_OK);
    if (size > 1) CHECK(strstr(fcd_system_last_error(dm.sys), "different replicated") != NULL);
    st = fcd_equilibrium_solve(dm.eq, rank == size - 1 ? (fcd_equilibrium_kind)7 : FCD_EQ_STATIC,
                               0.0);
    CHECK_ST(st, FCD_E_INVALID_ARG);
    if (rank != size - 1) CHECK(strstr(fcd_system_last_error(dm.sys), "failed") != NULL);
    destroy(&dm);
  }
  {
    tb_block neg = b;
    /* flip the sign of K: negative definite, which no equilibrium has */
    double *kv = malloc(sizeof *kv * (size_t)b.nk);
    for (fcd_index p = 0; p < b.nk; p++) kv[p] = -b.kv[p];
    neg.kv = kv;
    model dm;
    CHECK_ST(build(&neg, 1, 0, 0, 0, &dm), FCD_OK);
    fcd_status st = fcd_equilibrium_solve(dm.eq, FCD_EQ_STATIC, 0.0);
    CHECK_ST(st, FCD_E_SINGULAR);
    if (rank == 0) printf("negative definite K: %s\n", fcd_system_last_error(dm.sys));
    destroy(&dm);
    free(kv);
  }
  tb_block_free(&b);
  int failures = fcdt_failures, any;
  MPI_Allreduce(&failures, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) printf("%d checks on rank 0, %d failed (worst rank: %d)\n", fcdt_checks,
                        fcdt_failures, any);
  fcd_finalize();
  MPI_Finalize();
  return any ? 1 : 0;
}
