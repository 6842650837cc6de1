/* The distributed pipeline on a 3D block sliding on a rigid flat (bench/block_model.h:
 * 1 x 1 x 0.5 m, E = 1e7 Pa, nu = 0.3, rho = 1000, top face held, every bottom node on
 * the flat with mu = 0.3 and a sliding velocity along +x): the steady-sliding
 * equilibrium, then Moreau-Jean steps from it, timed.
 *
 * usage: distributed_block [--cells NX NY NZ] [--steps S] [--serial] [--skew S] [--float]
 * Run under mpiexec: each rank owns an even share of the rows, assembles only those and
 * gives them (fcd_system_set_distribution); --serial instead builds the plain serial
 * system (the CHOLMOD path a host without MPI gets), on one process. --skew S gives K
 * in full storage with a circulatory part, K_ij (1 + S) and K_ji (1 - S) for every pair
 * i < j: the operators are then factored by LU (UMFPACK serially, MUMPS' LU
 * distributed). --float leaves the top free and loads each of its nodes by 1 N
 * downwards: the block is held by its contacts alone (three rigid modes, the static
 * equilibrium's semi-definite path; steady sliding would have nothing to hold it against
 * the drag), and the equilibrium solved is the static one. Prints one line:
 *   dofs=N contacts=C ranks=R equilibrium_seconds=T step_seconds=T maxrss_mb=M
 * (maxrss the largest over the ranks; step_seconds per step). */
#include <fcd/fcd.h>

#include "args.h"
#include "block_model.h"

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int rank = 0, size = 1;

static void check(fcd_system *sys, fcd_status st, const char *what) {
  if (st == FCD_OK) return;
  fprintf(stderr, "distributed_block (rank %d): %s: %s (%s)\n", rank, what, fcd_status_str(st),
          sys ? fcd_system_last_error(sys) : "");
  exit(1);
}

int main(int argc, char **argv) {
  int nx = 16, ny = 16, nz = 12, steps = 20, serial = 0, floatb = 0;
  double skew = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--cells") == 0 && i + 3 < argc) {
      nx = bench_int(argv[0], "--cells", argv[++i], 1, 100000);
      ny = bench_int(argv[0], "--cells", argv[++i], 1, 100000);
      nz = bench_int(argv[0], "--cells", argv[++i], 1, 100000);
    } else if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc) {
      steps = bench_int(argv[0], "--steps", argv[++i], 0, 1000000000);
    } else if (strcmp(argv[i], "--float") == 0) {
      floatb = 1;
    } else if (strcmp(argv[i], "--serial") == 0) {
      serial = 1;
    } else if (strcmp(argv[i], "--skew") == 0 && i + 1 < argc) {
      skew = bench_real(argv[0], "--skew", argv[++i], -1, 1);
    } else {
      fprintf(stderr, "usage: distributed_block [--cells NX NY NZ] [--steps S] [--serial] "
              "[--skew S] [--float]\n");
      return 2;
    }
  }
  if (!serial) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
  }
  const double Lx = 1, Ly = 1, Lz = 0.5, E = 1e7, nu = 0.3, rho = 1000;
  int px = nx + 1, py = ny + 1;
  fcd_index nn = (fcd_index)px * py * (nz + 1), n = 3 * nn;
  fcd_index rb = serial ? 0 : n * rank / size, re = serial ? n : n * (rank + 1) / size;
  /* each rank assembles the entries of its own rows (and, for --skew, of its columns):
   * its peak memory is then the library's and its share of the model, as a host that
   * assembles in parallel would have it, not the whole model on every rank */
  bench_coo a = {0, 0, NULL, NULL, NULL, NULL, rb, re};
  if (bench_tet_block(&a, nx, ny, nz, Lx, Ly, Lz, 0.0, 0, E, nu, rho, NULL)) return 1;
  /* K's whole rows with a circulatory part (--skew): each upper entry (i, j) gives
   * K_ij = k (1 + S) to row i's owner and K_ji = k (1 - S) to row j's */
  size_t nf = 0;
  fcd_index *fi = NULL, *fj = NULL;
  double *fv = NULL;
  if (skew != 0) {
    fi = malloc(2 * a.ne * sizeof *fi);
    fj = malloc(2 * a.ne * sizeof *fj);
    fv = malloc(2 * a.ne * sizeof *fv);
    if (!fi || !fj || !fv) return 1;
    for (size_t p = 0; p < a.ne; p++) {
      double sk = a.ri[p] != a.ci[p] ? skew : 0;
      if (a.ri[p] >= rb && a.ri[p] < re) {
        fi[nf] = a.ri[p];
        fj[nf] = a.ci[p];
        fv[nf++] = a.kv[p] * (1 + sk);
      }
      if (sk != 0 && a.ci[p] >= rb && a.ci[p] < re) {
        fi[nf] = a.ci[p];
        fj[nf] = a.ri[p];
        fv[nf++] = a.kv[p] * (1 - sk);
      }
    }
  }
  /* this rank's rows (the entries kept for their column are --skew's alone) */
  size_t k = 0;
  for (size_t p = 0; p < a.ne; p++)
    if (a.ri[p] >= rb && a.ri[p] < re) {
      a.ri[k] = a.ri[p];
      a.ci[k] = a.ci[p];
      a.kv[k] = a.kv[p];
      a.mv[k++] = a.mv[p];
    }
  fcd_system *sys = NULL;
  check(sys, fcd_system_create(n, &sys), "create");
  if (!serial)
    check(sys, fcd_system_set_distribution(sys, (int64_t)MPI_Comm_c2f(MPI_COMM_WORLD), rb, re),
          "distribution");
  if (skew != 0)
    check(sys, fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, (fcd_index)nf, fi, fj, fv,
                                         FCD_COO_FULL), "stiffness");
  else
    check(sys, fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, (fcd_index)k, a.ri, a.ci, a.kv,
                                         FCD_COO_UPPER), "stiffness");
  free(fi);
  free(fj);
  free(fv);
  check(sys, fcd_system_set_matrix_coo(sys, FCD_MASS, (fcd_index)k, a.ri, a.ci, a.mv,
                                       FCD_COO_UPPER), "mass");
  bench_coo_free(&a);
  fcd_index ntop = (fcd_index)px * py;
  fcd_index *top = malloc(3 * (size_t)ntop * sizeof *top);
  double *val = malloc(3 * (size_t)ntop * sizeof *val);
  for (fcd_index q = 0; q < ntop; q++)
    for (int c = 0; c < 3; c++) {
      top[3 * q + c] = 3 * ((fcd_index)nz * px * py + q) + c;
      val[3 * q + c] = c == 2 ? -1e-3 : 0.0; /* pressed down by 1 mm */
    }
  if (!floatb) {
    check(sys, fcd_system_fix_dofs(sys, 3 * ntop, top, val), "fix");
  } else {
    double *f = calloc((size_t)n, sizeof *f);
    for (fcd_index q = 0; q < ntop; q++) f[top[3 * q + 2]] = -1.0;
    check(sys, fcd_system_set_load(sys, f), "load");
    free(f);
  }
  free(top);
  free(val);
  fcd_contact_set *cs = NULL;
  check(sys, fcd_contact_set_create(sys, 3, &cs), "contacts");
  const double nrm[3] = {0, 0, -1}, tan[3] = {1, 0, 0}, vg[2] = {-0.5, 0};
  for (fcd_index q = 0; q < ntop; q++) {
    fcd_index d[3] = {3 * q, 3 * q + 1, 3 * q + 2}, id;
    check(sys, fcd_contact_set_add_rigid(cs, d, nrm, tan, 0.0, 0.3, &id), "contact");
    check(sys, fcd_contact_set_set_sliding_velocity(cs, id, vg), "sliding velocity");
  }
  fcd_equilibrium *eq = NULL;
  check(sys, fcd_equilibrium_create(sys, cs, &eq), "equilibrium");
  if (!serial) MPI_Barrier(MPI_COMM_WORLD);
  double t0 = now();
  check(sys, fcd_equilibrium_solve(eq, floatb ? FCD_EQ_STATIC : FCD_EQ_STEADY_SLIDING, 0.0),
        floatb ? "static" : "steady sliding");
  double teq = now() - t0;
  double *u = calloc((size_t)n, sizeof *u), *v = calloc((size_t)n, sizeof *v);
  fcd_equilibrium_get_state(eq, u);
  fcd_equilibrium_destroy(eq);
  fcd_integrator *it = NULL;
  check(sys, fcd_integrator_create(sys, cs, FCD_SCHEME_MOREAU_JEAN, &it), "integrator");
  check(sys, fcd_integrator_set_param(it, FCD_PARAM_STEP, 1e-4), "step");
  check(sys, fcd_integrator_set_state(it, 0.0, u, v), "state");
  /* the first step factors the iteration matrix and builds its Delassus operator: timed
   * apart from the steady steps */
  t0 = now();
  check(sys, fcd_integrator_step(it), "first step");
  double tfirst = now() - t0;
  t0 = now();
  for (int s = 1; s < steps; s++) check(sys, fcd_integrator_step(it), "step");
  double tstep = steps > 1 ? (now() - t0) / (steps - 1) : 0;
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  double rss = (double)ru.ru_maxrss / 1024.0, rss_max = rss, times[3] = {teq, tfirst, tstep};
  if (!serial) {
    MPI_Allreduce(&rss, &rss_max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, times, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  }
  if (rank == 0)
    printf("dofs=%lld contacts=%lld ranks=%d%s equilibrium_seconds=%.3f first_step_seconds=%.3f "
           "step_seconds=%.4f maxrss_mb=%.0f\n", (long long)n, (long long)ntop, size,
           serial ? (skew != 0 ? " (serial UMFPACK)" : " (serial CHOLMOD)")
                  : (skew != 0 ? " (LU)" : ""), times[0], times[1], times[2], rss_max);
  fcd_integrator_destroy(it);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
  free(u);
  free(v);
  fcd_finalize();
  if (!serial) MPI_Finalize();
  return 0;
}
