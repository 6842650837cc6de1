/* The brake of bench/brake_pads.h reduced by components on MPI ranks (issue 87 item 5):
 * disc and bell, and each pad, are the rows of one rank (1 rank: all three; 2: the disc,
 * then both pads; 3: one each), every rank reducing its own rows with CHOLMOD and the
 * reduced operators summed at the contact dofs (physical interface: a pair keeps both
 * nodes). Run under mpiexec:
 *
 *   brake_parts [--refine R] [--modes M] [--mu MU] [--serial]
 *
 * Prints, for the reduction by components, its seconds and, for each rank, its rows, its
 * component's factor and dense peak (fcd_reduction_get_memory) and the peak resident
 * memory of the reduction alone (VmHWM, reset once the model is built); then the
 * lowest frequencies of the reduced pencil with the contacts free (rank 0). --serial
 * first reduces the whole model serially on rank 0, the other ranks asleep, and
 * compares: its seconds and peak, the ratio, and `max_rel_diff` over the first 100
 * omega^2 of the two reduced pencils (LAPACK on their dense free blocks). Each rank
 * builds the whole model to give its rows (the generator is serial); the peak is reset
 * after,
 * so the figure is the reduction's. */
#include "args.h"
#include "brake_pads.h"

#include <math.h>
#include <lapacke.h>
#include <mpi.h>
#include <time.h>

static int rank = 0, size = 1;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* the process' peak resident memory since the last reset, in GiB (0 when unknown) */
static double hwm_gib(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  double kb = 0;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "VmHWM: %lf kB", &kb) == 1) break;
  if (f) fclose(f);
  return kb / (1024.0 * 1024.0);
}

static void hwm_reset(void) {
  FILE *f = fopen("/proc/self/clear_refs", "w");
  if (f) {
    fputs("5", f);
    fclose(f);
  }
}

/* a barrier that sleeps while it waits: the ranks that wait for rank 0's serial
 * reduction must leave the cores to it (MPI's own barrier polls) */
static void quiet_barrier(void) {
  MPI_Request rq;
  int done = 0;
  MPI_Ibarrier(MPI_COMM_WORLD, &rq);
  while (!done) {
    MPI_Test(&rq, &done, MPI_STATUS_IGNORE);
    if (!done) nanosleep(&(struct timespec){0, 20000000}, NULL);
  }
}

static void check(fcd_system *sys, fcd_status st, const char *what) {
  if (st == FCD_OK) return;
  fprintf(stderr, "brake_parts (rank %d): %s: %s (%s)\n", rank, what, fcd_status_str(st),
          sys ? fcd_system_last_error(sys) : "");
  MPI_Abort(MPI_COMM_WORLD, 1);
}

/* the reduced pencil's lowest nev omega^2 (contacts free, kept prescribed dofs held), by
 * LAPACK on the dense free block: no PETSc, which would start on every rank */
static int reduced_omega2(fcd_reduction *red, fcd_index nev, double *w2) {
  fcd_system *rs = fcd_reduction_system(red);
  fcd_index nr = fcd_system_ndofs(rs), nf = 0, nfix = fcd_system_num_fixed(rs);
  fcd_index *fx = malloc(sizeof *fx * (size_t)(nfix + 1)), *at = malloc(sizeof *at * (size_t)nr);
  check(rs, fcd_system_get_fixed(rs, fx, NULL), "the reduced prescribed dofs");
  for (fcd_index i = 0; i < nr; i++) at[i] = 0;
  for (fcd_index k = 0; k < nfix; k++) at[fx[k]] = -1;
  for (fcd_index i = 0; i < nr; i++) at[i] = at[i] < 0 ? -1 : nf++;
  double *A[2];
  const fcd_matrix_kind kinds[2] = {FCD_STIFFNESS, FCD_MASS};
  for (int q = 0; q < 2; q++) {
    fcd_index nnz = 0;
    check(rs, fcd_system_matrix_nnz(rs, kinds[q], NULL, &nnz), "a reduced matrix");
    fcd_index *ri = malloc(sizeof *ri * (size_t)nnz), *ci = malloc(sizeof *ci * (size_t)nnz);
    double *v = malloc(sizeof *v * (size_t)nnz);
    check(rs, fcd_system_get_matrix_coo(rs, kinds[q], ri, ci, v), "a reduced matrix");
    A[q] = calloc((size_t)(nf * nf), sizeof *A[q]);
    for (fcd_index e = 0; e < nnz; e++)
      if (at[ri[e]] >= 0 && at[ci[e]] >= 0) A[q][at[ci[e]] * nf + at[ri[e]]] = v[e];
    free(ri); free(ci); free(v);
  }
  double *w = malloc(sizeof *w * (size_t)nf);
  int info = LAPACKE_dsygvd(LAPACK_COL_MAJOR, 1, 'N', 'L', (lapack_int)nf, A[0], (lapack_int)nf,
                            A[1], (lapack_int)nf, w);
  fcd_index k = info == 0 ? (nev < nf ? nev : nf) : 0;
  memcpy(w2, w, sizeof *w * (size_t)k);
  free(w); free(A[0]); free(A[1]); free(fx); free(at);
  return (int)k;
}

int main(int argc, char **argv) {
  int r = 1, modes = 300, serial = 0;
  double mu = 0.3;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--refine") && i + 1 < argc) {
      r = bench_int(argv[0], "--refine", argv[++i], 1, 4);
    } else if (!strcmp(argv[i], "--modes") && i + 1 < argc) {
      modes = bench_int(argv[0], "--modes", argv[++i], 0, 100000);
    } else if (!strcmp(argv[i], "--mu") && i + 1 < argc) {
      mu = bench_real(argv[0], "--mu", argv[++i], 0, 10);
    } else if (!strcmp(argv[i], "--serial")) {
      serial = 1;
    } else {
      fprintf(stderr, "usage: %s [--refine R] [--modes M] [--mu MU] [--serial]\n", argv[0]);
      return 2;
    }
  }
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size > 3) {
    if (rank == 0) fprintf(stderr, "brake_parts: 1 to 3 ranks (disc, pads)\n");
    MPI_Finalize();
    return 2;
  }
  brake b;
  check(NULL, brake_pads_build(&b, r, mu), "building the brake");
  fcd_index n = fcd_system_ndofs(b.sys);
  /* rows: disc and bell first, then each pad (the generator's node order) */
  fcd_index pad = 3 * (fcd_index)(PAD_NI * r + 1) * (PAD_NJ * r + 1) * (2 * r + 1);
  fcd_index cut[4] = {0, n - 2 * pad, n - pad, n};
  static const int first[4][4] = {{0}, {0, 3}, {0, 1, 3}, {0, 1, 2, 3}};
  fcd_index rb = cut[first[size][rank]], re = cut[first[size][rank + 1]];
  /* the distributed system: this rank's rows of each matrix, the rest replicated */
  fcd_system *ds = NULL;
  check(NULL, fcd_system_create(n, &ds), "creating the system");
  check(ds, fcd_system_set_distribution(ds, (int64_t)MPI_Comm_c2f(MPI_COMM_WORLD), rb, re),
        "distributing");
  const fcd_matrix_kind kinds[3] = {FCD_STIFFNESS, FCD_MASS, FCD_DAMPING};
  for (int q = 0; q < 3; q++) {
    fcd_index nnz = 0;
    check(b.sys, fcd_system_matrix_nnz(b.sys, kinds[q], NULL, &nnz), "a matrix's size");
    fcd_index *ri = malloc(sizeof *ri * (size_t)nnz), *ci = malloc(sizeof *ci * (size_t)nnz);
    double *v = malloc(sizeof *v * (size_t)nnz);
    check(b.sys, fcd_system_get_matrix_coo(b.sys, kinds[q], ri, ci, v), "reading a matrix");
    fcd_index k = 0;
    for (fcd_index e = 0; e < nnz; e++)
      if (ri[e] >= rb && ri[e] < re && ci[e] >= ri[e]) {
        ri[k] = ri[e];
        ci[k] = ci[e];
        v[k++] = v[e];
      }
    check(ds, fcd_system_set_matrix_coo(ds, kinds[q], k, ri, ci, v, FCD_COO_UPPER), "a matrix");
    free(ri); free(ci); free(v);
  }
  fcd_index nfix = fcd_system_num_fixed(b.sys);
  fcd_index *fd = malloc(sizeof *fd * (size_t)nfix + 1);
  double *fv = malloc(sizeof *fv * (size_t)nfix + 1);
  check(b.sys, fcd_system_get_fixed(b.sys, fd, fv), "the prescribed dofs");
  check(ds, fcd_system_fix_dofs(ds, nfix, fd, fv), "the prescribed dofs");
  free(fd);
  free(fv);
  /* the same pairs on it: the generator's loop, on a copy of its handle */
  brake d = b;
  d.sys = ds;
  d.ncont = 0;
  d.vg = malloc(sizeof *d.vg * (size_t)pads_contacts(r));
  check(ds, fcd_contact_set_create(ds, 3, &d.cs), "the contact set");
  for (int p = 0; p < 2; p++)
    for (int a = 0; a <= PAD_NI * r; a++)
      for (int bb = 0; bb <= PAD_NJ * r; bb++)
        check(ds, brake_pair_as(&d, PADS_FACE(&b.m, r, p, a, bb), PADS_DISC(&b.m, r, p, a, bb),
                                p, mu, 0),
              "a pair");
  fcd_system *ss = b.sys;
  fcd_contact_set *scs = b.cs;
  free(b.vg);
  free(b.m.x); free(b.m.conn); free(b.m.part); free(b.m.disc); free(b.m.hub); free(b.m.pin);
  if (!serial || rank != 0) { /* the serial model is rank 0's, for --serial only */
    fcd_contact_set_destroy(scs);
    fcd_system_destroy(ss);
    ss = NULL;
    scs = NULL;
  }
  fcd_reduction_options o;
  fcd_reduction_options_init(&o);
  o.nmodes = modes;
  enum { NEV = 100 };
  double w2c[NEV], w2s[NEV], ssecs = 0, shwm = 0;
  int ns = 0;
  if (serial && rank == 0) { /* first, the other ranks asleep */
    hwm_reset();
    fcd_reduction *sr = NULL;
    double t0 = now();
    check(ss, fcd_reduction_create_opts(ss, scs, &o, &sr), "the serial reduction");
    ssecs = now() - t0;
    shwm = hwm_gib();
    ns = reduced_omega2(sr, NEV, w2s);
    fcd_reduction_destroy(sr);
    fcd_contact_set_destroy(scs);
    fcd_system_destroy(ss);
    ss = NULL;
    scs = NULL;
  }
  quiet_barrier();
  hwm_reset();
  double t0 = now();
  fcd_reduction *red = NULL;
  check(ds, fcd_reduction_create_opts(ds, d.cs, &o, &red), "the reduction by components");
  double secs = now() - t0;
  fcd_index nkept = 0;
  fcd_reduction_get_info(red, &nkept, NULL, NULL, NULL);
  double fb = 0, pk = 0, hwm = hwm_gib();
  fcd_reduction_get_memory(red, NULL, &fb, NULL, &pk);
  double mine[4] = {(double)(re - rb), fb, pk, hwm}, all[12];
  MPI_Gather(mine, 4, MPI_DOUBLE, all, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("brake r=%d dofs=%lld contacts=%lld kept=%lld modes=%d ranks=%d "
           "components_seconds=%.2f\n", r, (long long)n, (long long)fcd_contact_set_size(d.cs),
           (long long)nkept, modes, size, secs);
    for (int k = 0; k < size; k++)
      printf("rank %d rows=%.0f factor_gib=%.3f dense_peak_gib=%.3f reduction_peak_rss_gib=%.3f\n",
             k, all[4 * k], all[4 * k + 1] / 1073741824.0, all[4 * k + 2] / 1073741824.0,
             all[4 * k + 3]);
  }
  int nc = rank == 0 ? reduced_omega2(red, NEV, w2c) : 0;
  if (serial && rank == 0) {
    double worst = 0;
    for (int k = 0; k < nc && k < ns; k++)
      worst = fmax(worst, fabs(w2c[k] - w2s[k]) / fmax(fabs(w2s[k]), 1e-300));
    printf("serial_seconds=%.2f serial_peak_rss_gib=%.3f ratio=%.3f max_rel_diff=%.2e "
           "(first %d omega^2 of the reduced pencil)\n", ssecs, shwm, secs / ssecs, worst,
           nc < ns ? nc : ns);
  }
  if (rank == 0)
    printf("lowest reduced frequencies (Hz): %.3f %.3f %.3f ... %.3f\n",
           sqrt(w2c[0]) / (2 * 3.14159265358979323846), sqrt(w2c[1]) / (2 * 3.14159265358979323846), sqrt(w2c[2]) / (2 * 3.14159265358979323846),
           sqrt(w2c[nc - 1]) / (2 * 3.14159265358979323846));
  fcd_reduction_destroy(red);
  fcd_contact_set_destroy(d.cs);
  fcd_system_destroy(ds);
  fcd_contact_set_destroy(scs);
  fcd_system_destroy(ss);
  free(d.vg);
  MPI_Finalize();
  return 0;
}
