/* A 3D elastic block sliding on a rigid flat: the stability analysis of its steady
 * sliding contact state, timed; optionally the reduced pencil is exported (Matrix
 * Market) for a peer to solve the same eigenproblem.
 *
 * The block: nx x ny x nz hexahedral cells of a 1 x 1 x 0.5 m box, each split into six
 * linear tetrahedra, E = 1e7 Pa, nu = 0.3, rho = 1000 kg/m^3, consistent mass. Its top
 * face is held (prescribed dofs), every bottom node touches the flat (normal -z) and
 * slips along +x with mu = 0.3: the pencil is non-symmetric. The nev eigenvalues
 * nearest the target frequency (default 20 near 60 Hz) are computed.
 *
 * usage: stability_block [--cells NX NY NZ] [--nev N] [--target-hz F] [--export DIR]
 *                        [--mpi] [--reps N] [--factor]   (best of N solves, default 3)
 *                        [--sweep N] [--no-share]
 * With --sweep N, the stability chart instead: fcd_stability_sweep over N friction
 * coefficients evenly from 0.05 to 0.55 (on a communicator with --mpi: the coefficients
 * shared out over the ranks), timed once, printed as `sweep_values=N sweep_seconds=T
 * maxrss_mb=M flutter_values=F` (M the largest rank's peak, F the coefficients with at
 * least one growing oscillation). --no-share sets FCD_STAB_SHARE_SWEEP to 0: every
 * coefficient solved by all the ranks together, the LU distributed (a model whose serial
 * factor fits the machine only once).
 * Prints `dofs=N reduced=R seconds=T maxrss_mb=M nconv=K` and the eigenvalues (with
 * --factor, also `factor_seconds=T`: the LU factorization alone of the shifted operator
 * K* - sigma M* that the shift-and-invert factors, by the same solver (MUMPS, here
 * through PETSc's interface), best of N, to compare the growth of the whole analysis with its own; with
 * --export, also DIR/K.mtx, DIR/M.mtx and DIR/fcd_eigs.txt); with --mpi it runs on
 * MPI_COMM_WORLD (launch with mpiexec). */
#include <fcd/fcd.h>

#include "args.h"
#include "block_model.h"
#include "fc_private.h"

#include <math.h>
#include <mpi.h>
#include <petscmat.h>
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

static void die(fcd_system *sys, fcd_status st, const char *what) {
  fprintf(stderr, "stability_block: %s: %s (%s)\n", what, fcd_status_str(st),
          sys ? fcd_system_last_error(sys) : "");
  exit(1);
}

#define TRY(what, call)                                                                \
  do {                                                                                 \
    fcd_status st_ = (call);                                                           \
    if (st_ != FCD_OK) die(sys, st_, what);                                            \
  } while (0)

static int write_mm(const char *path, const fcd__csr *A) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n%lld %lld %lld\n",
          (long long)A->n, (long long)A->n, (long long)A->rowptr[A->n]);
  for (fcd_index i = 0; i < A->n; i++)
    for (fcd_index p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
      fprintf(f, "%lld %lld %.17g\n", (long long)i + 1, (long long)A->col[p] + 1, A->val[p]);
  return fclose(f);
}

/* Seconds of the best of reps symbolic + numeric LU factorizations of K - sigma M
 * (serial MUMPS, as the eigen-solve's shift-and-invert uses), or -1 on failure. PETSc
 * is up: fcd started it on its first solve. */
static double factor_seconds(const fcd__csr *K, const fcd__csr *M, double sigma, int reps) {
  fcd_index n = K->n;
  PetscInt *nnz = malloc((size_t)n * sizeof *nnz);
  if (!nnz) return -1;
  for (fcd_index i = 0; i < n; i++)
    nnz[i] = (PetscInt)(K->rowptr[i + 1] - K->rowptr[i] + M->rowptr[i + 1] - M->rowptr[i]);
  Mat A = NULL;
  PetscErrorCode e = MatCreateSeqAIJ(PETSC_COMM_SELF, (PetscInt)n, (PetscInt)n, 0, nnz, &A);
  free(nnz);
  for (fcd_index i = 0; !e && i < n; i++) {
    for (fcd_index p = K->rowptr[i]; !e && p < K->rowptr[i + 1]; p++)
      e = MatSetValue(A, (PetscInt)i, (PetscInt)K->col[p], K->val[p], ADD_VALUES);
    for (fcd_index p = M->rowptr[i]; !e && p < M->rowptr[i + 1]; p++)
      e = MatSetValue(A, (PetscInt)i, (PetscInt)M->col[p], -sigma * M->val[p], ADD_VALUES);
  }
  if (!e) e = MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY);
  if (!e) e = MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY);
  double best = INFINITY;
  for (int r = 0; !e && r < (reps > 0 ? reps : 1); r++) {
    Mat F = NULL;
    MatFactorInfo info;
    double t0 = now();
    e = MatGetFactor(A, MATSOLVERMUMPS, MAT_FACTOR_LU, &F);
    /* no orderings: as PCLU does for solvers that order by themselves, MUMPS then
     * chooses its own (given ones, it would use: natural order costs 1.5x, ND 3.5x) */
    if (!e) e = MatFactorInfoInitialize(&info);
    if (!e) e = MatLUFactorSymbolic(F, A, NULL, NULL, &info);
    if (!e) e = MatLUFactorNumeric(F, A, &info);
    if (!e) best = fmin(best, now() - t0);
    MatDestroy(&F);
  }
  MatDestroy(&A);
  return e ? -1 : best;
}

/* sweep callback: counts the coefficients with a growing oscillation */
static int count_flutter(void *ud, fcd_real mu, fcd_index n, const fcd_real *re,
                         const fcd_real *im, const fcd_index *track) {
  (void)mu;
  (void)track;
  int any = 0;
  for (fcd_index i = 0; i < n; i++) any |= re[i] > 1e-9 * fmax(1.0, fabs(im[i])) && im[i] != 0;
  *(int *)ud += any;
  return 0;
}

int main(int argc, char **argv) {
  int nx = 10, ny = 10, nz = 5, nev = 20, use_mpi = 0, reps = 3, factor = 0, sweep = 0;
  int share = 1;
  double target = 60;
  const char *exp_dir = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--cells") && i + 3 < argc) {
      nx = bench_int(argv[0], "--cells", argv[++i], 1, 100000);
      ny = bench_int(argv[0], "--cells", argv[++i], 1, 100000);
      nz = bench_int(argv[0], "--cells", argv[++i], 1, 100000);
    } else if (!strcmp(argv[i], "--nev") && i + 1 < argc) nev = bench_int(argv[0], "--nev", argv[++i], 1, 100000);
    else if (!strcmp(argv[i], "--target-hz") && i + 1 < argc) target = bench_real(argv[0], "--target-hz", argv[++i], 0, 1e12);
    else if (!strcmp(argv[i], "--export") && i + 1 < argc) exp_dir = argv[++i];
    else if (!strcmp(argv[i], "--mpi")) use_mpi = 1;
    else if (!strcmp(argv[i], "--factor")) factor = 1;
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = bench_int(argv[0], "--reps", argv[++i], 1, 1000000);
    else if (!strcmp(argv[i], "--sweep") && i + 1 < argc) sweep = bench_int(argv[0], "--sweep", argv[++i], 0, 1000000);
    else if (!strcmp(argv[i], "--no-share")) share = 0;
    else {
      fprintf(stderr, "usage: stability_block [--cells NX NY NZ] [--nev N] [--target-hz F] "
                      "[--export DIR] [--mpi] [--reps N] [--factor] [--sweep N] "
                      "[--no-share]\n");
      return 2;
    }
  }
  int rank = 0;
  if (use_mpi) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  }
  const double Lx = 1, Ly = 1, Lz = 0.5, E = 1e7, nu = 0.3, rho = 1000;
  int px = nx + 1, py = ny + 1, pz = nz + 1;
  fcd_index nn = (fcd_index)px * py * pz, n = 3 * nn;
  bench_coo a = {0, 0, NULL, NULL, NULL, NULL, 0, 0};
  if (bench_tet_block(&a, nx, ny, nz, Lx, Ly, Lz, 0.0, 0, E, nu, rho, NULL)) return 1;
#define NODE(i, j, k) ((fcd_index)(k) * px * py + (fcd_index)(j) * px + (i))
  fcd_system *sys = NULL;
  TRY("create", fcd_system_create(n, &sys));
  TRY("stiffness", fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, (fcd_index)a.ne, a.ri, a.ci,
                                             a.kv, FCD_COO_UPPER));
  TRY("mass", fcd_system_set_matrix_coo(sys, FCD_MASS, (fcd_index)a.ne, a.ri, a.ci, a.mv,
                                        FCD_COO_UPPER));
  bench_coo_free(&a);
  fcd_index ntop = (fcd_index)px * py;
  fcd_index *top = malloc(3 * (size_t)ntop * sizeof *top);
  for (fcd_index q = 0; q < ntop; q++)
    for (int c = 0; c < 3; c++) top[3 * q + c] = 3 * (NODE(0, 0, nz) + q) + c;
  TRY("fix", fcd_system_fix_dofs(sys, 3 * ntop, top, NULL));
  free(top);
  fcd_contact_set *cs = NULL;
  TRY("contacts", fcd_contact_set_create(sys, 3, &cs));
  const double nrm[3] = {0, 0, -1}, tan[3] = {1, 0, 0};
  for (fcd_index q = 0; q < ntop; q++) {
    fcd_index d[3] = {3 * q, 3 * q + 1, 3 * q + 2};
    TRY("contact", fcd_contact_set_add_rigid(cs, d, nrm, tan, 0.0, 0.3, NULL));
  }
  int *status = malloc((size_t)ntop * sizeof *status);
  double *slip = malloc(2 * (size_t)ntop * sizeof *slip);
  for (fcd_index q = 0; q < ntop; q++) {
    status[q] = FCD_CONTACT_SLIP;
    slip[2 * q] = 1;
    slip[2 * q + 1] = 0;
  }
  fcd_stability *st = NULL;
  TRY("stability", fcd_stability_create(sys, cs, &st));
  TRY("state", fcd_stability_set_contact_state(st, status, slip));
  TRY("nev", fcd_stability_set_param(st, FCD_STAB_NEV, nev));
  TRY("target", fcd_stability_set_param(st, FCD_STAB_TARGET_HZ, target));
  TRY("dense", fcd_stability_set_param(st, FCD_STAB_DENSE_MAX, 0));
  if (use_mpi)
    TRY("comm", fcd_stability_set_communicator(st, (int64_t)MPI_Comm_c2f(MPI_COMM_WORLD)));
  if (!share) TRY("share", fcd_stability_set_param(st, FCD_STAB_SHARE_SWEEP, 0));
  if (sweep > 0) {
    int flutter = 0;
    double t0 = now();
    TRY("sweep", fcd_stability_sweep(st, 0.05, 0.55, sweep, count_flutter, &flutter));
    double secs = now() - t0;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double mb = ru.ru_maxrss / 1024.0, mb_all = mb;
    if (use_mpi) MPI_Reduce(&mb, &mb_all, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
      printf("dofs=%lld sweep_values=%d sweep_seconds=%.3f maxrss_mb=%.1f flutter_values=%d\n",
             (long long)n, sweep, secs, mb_all, flutter);
    reps = 0;
  }
  if (exp_dir || factor) fcd__stability_keep_reduced(st, 1);
  /* best of reps solves: the first also starts PETSc, a once-per-process cost */
  fcd_index nconv = 0;
  double secs = INFINITY;
  for (int rep = 0; rep < reps; rep++) {
    double t0 = now();
    TRY("solve", fcd_stability_solve(st, &nconv));
    secs = fmin(secs, now() - t0);
  }
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  if (rank == 0 && reps > 0) {
    printf("dofs=%lld reduced=%lld seconds=%.3f maxrss_mb=%.1f nconv=%lld\n", (long long)n,
           (long long)fcd_stability_reduced_size(st), secs, ru.ru_maxrss / 1024.0,
           (long long)nconv);
    if (factor && !use_mpi) {
      const fcd__csr *K, *M;
      if (!fcd__stability_reduced(st, &K, &M)) die(sys, FCD_E_INTERNAL, "no reduced pencil");
      double w = 2 * 3.14159265358979323846 * target;
      printf("factor_seconds=%.3f\n", factor_seconds(K, M, w * w, reps));
    }
    FILE *ef = NULL;
    if (exp_dir) {
      char path[4096];
      const fcd__csr *K, *M;
      if (!fcd__stability_reduced(st, &K, &M)) die(sys, FCD_E_INTERNAL, "no reduced pencil");
      snprintf(path, sizeof path, "%s/K.mtx", exp_dir);
      if (write_mm(path, K)) die(sys, FCD_E_IO, path);
      snprintf(path, sizeof path, "%s/M.mtx", exp_dir);
      if (write_mm(path, M)) die(sys, FCD_E_IO, path);
      snprintf(path, sizeof path, "%s/fcd_eigs.txt", exp_dir);
      ef = fopen(path, "w");
    }
    /* Lambda = -lambda^2 of the undamped pencil, once per +- pair */
    for (fcd_index i = 0; i < nconv; i++) {
      double re, im;
      fcd_stability_get_eigenvalue(st, i, &re, &im);
      if (re < 0 || (re == 0 && im < 0)) continue;
      double Lr = -(re * re - im * im), Li = -2 * re * im;
      if (ef) fprintf(ef, "%.17g %.17g\n", Lr, Li);
    }
    if (ef) fclose(ef);
  }
  fcd_stability_destroy(st);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
  free(status);
  free(slip);
  fcd_finalize();
  if (use_mpi) MPI_Finalize();
  return 0;
}
