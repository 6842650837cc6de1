/* The 10 x 15 softening lattice of seed 001 (section 6.1.1) stepped by fcd's sparse
 * catch-up, side by side with the same catch-up whose projections are dense QPs, as in
 * the author's code (a dense QP per Picard iteration; here the same primal-dual
 * active-set method on the dense Schur system with LAPACK's Cholesky, which is faster
 * than a general dense QP solver, so the ratio is conservative). Both start from the
 * same state and take the same steps; the states are compared at the end.
 *
 * usage: lattice_vs_dense [--steps N] [--from T]   (steps of 0.01 from time T, default
 *        300 steps from 0; the dense side runs the same steps)
 *        lattice_vs_dense --big NX NY STEPS [FROM]   (fcd alone: time and memory)
 *        lattice_vs_dense --to-break NX NY [picard]   (fcd alone: the sweep to the first
 *        complete failure, the top pulled at the 10 x 15 lattice's strain rate)
 * Prints `ratio catchup_vs_dense_qp X` (fcd time / dense time; target <= 1/50). */
#include <fcd/fcd.h>

#include "args.h"

#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static int cmp_d(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- the dense peer: the rectangular lattice rebuilt from fcd's getters ---- */
typedef struct {
  int nf, m;
  double *B;    /* nf x m: free rows of the equilibrium matrix */
  double *k, *c0, *s, *h;
  double *el0, *el1; /* elastic stress of the constraints */
  double *sig, *a;
  unsigned char *act;
} dense;

static int dense_build(fcd_lattice *lat, int nx, int ny, dense *D) {
  fcd_index n, m;
  fcd_lattice_sizes(lat, &n, &m, NULL);
  int nd = 2 * (int)n;
  /* the generator's constraints: bottom row y, top row y (rate 0.1), one bottom x */
  char *fixed = calloc((size_t)nd, 1);
  double *rate = calloc((size_t)nd, sizeof *rate);
  for (int i = 0; i < nx; i++) {
    fixed[2 * (i * ny) + 1] = 1;
    fixed[2 * (i * ny + ny - 1) + 1] = 1;
    rate[2 * (i * ny + ny - 1) + 1] = 0.1;
  }
  fixed[2 * (((nx + 1) / 2 - 1) * ny)] = 1;
  int *fo = malloc((size_t)nd * sizeof *fo), nf = 0;
  for (int g = 0; g < nd; g++) fo[g] = fixed[g] ? -1 : nf++;
  D->nf = nf;
  D->m = (int)m;
  D->B = calloc((size_t)nf * (size_t)m, sizeof *D->B);
  D->k = malloc((size_t)m * sizeof *D->k);
  D->c0 = malloc((size_t)m * sizeof *D->c0);
  D->s = malloc((size_t)m * sizeof *D->s);
  D->h = malloc((size_t)m * sizeof *D->h);
  D->el0 = calloc((size_t)m, sizeof *D->el0);
  D->el1 = calloc((size_t)m, sizeof *D->el1);
  D->sig = calloc((size_t)m, sizeof *D->sig);
  D->a = calloc((size_t)m, sizeof *D->a);
  D->act = calloc((size_t)m, 1);
  double *dcon = calloc((size_t)m, sizeof *dcon); /* elongation of the rates */
  for (int i = 0; i < (int)m; i++) {
    fcd_index a, b;
    double xa[2], xb[2];
    fcd_lattice_get_spring(lat, i, &a, &b, &D->k[i], &D->c0[i], &D->s[i], &D->h[i]);
    fcd_lattice_get_node(lat, a, xa);
    fcd_lattice_get_node(lat, b, xb);
    double d[2] = {xa[0] - xb[0], xa[1] - xb[1]}, L = hypot(d[0], d[1]);
    d[0] /= L;
    d[1] /= L;
    for (int c = 0; c < 2; c++) {
      int ga = 2 * (int)a + c, gb = 2 * (int)b + c;
      if (fo[ga] >= 0) D->B[(size_t)fo[ga] * m + i] += d[c];
      if (fo[gb] >= 0) D->B[(size_t)fo[gb] * m + i] -= d[c];
      dcon[i] += d[c] * (rate[ga] - rate[gb]);
    }
  }
  /* elastic response to the rates: K_ff u = -B K dcon, el1 = K (dcon + B' u) */
  double *Kff = calloc((size_t)nf * nf, sizeof *Kff), *rhs = calloc((size_t)nf, sizeof *rhs);
  for (int p = 0; p < nf; p++)
    for (int q = 0; q < nf; q++) {
      double v = 0;
      for (int i = 0; i < (int)m; i++) v += D->B[(size_t)p * m + i] * D->k[i] * D->B[(size_t)q * m + i];
      Kff[(size_t)p * nf + q] = v;
    }
  for (int p = 0; p < nf; p++)
    for (int i = 0; i < (int)m; i++) rhs[p] -= D->B[(size_t)p * m + i] * D->k[i] * dcon[i];
  int rc = LAPACKE_dposv(LAPACK_ROW_MAJOR, 'U', nf, 1, Kff, nf, rhs, 1);
  for (int i = 0; i < (int)m; i++) {
    double e = dcon[i];
    for (int p = 0; p < nf; p++) e += D->B[(size_t)p * m + i] * rhs[p];
    D->el1[i] = D->k[i] * e;
  }
  free(fixed);
  free(rate);
  free(fo);
  free(dcon);
  free(Kff);
  free(rhs);
  return rc;
}

/* one projection, dense: the Schur system [B K B', B K E'; E K B', E K E' + S S'] */
static void dense_project(dense *D, const double *spr, const double *ap, const double *at,
                          double *sig, double *a, unsigned char *act) {
  int nf = D->nf, m = D->m;
  int *rs = malloc(2 * (size_t)m * sizeof *rs), *rg = malloc(2 * (size_t)m * sizeof *rg);
  for (int round = 0; round < 200; round++) {
    int na = 0;
    for (int i = 0; i < m; i++) {
      if (act[i] & 1) { rs[na] = i; rg[na++] = 1; }
      if (act[i] & 2) { rs[na] = i; rg[na++] = -1; }
    }
    int N = nf + na;
    double *S = calloc((size_t)N * N, sizeof *S), *r = calloc((size_t)N, sizeof *r);
    for (int p = 0; p < nf; p++)
      for (int q = p; q < nf; q++) {
        double v = 0;
        for (int i = 0; i < m; i++) v += D->B[(size_t)p * m + i] * D->k[i] * D->B[(size_t)q * m + i];
        S[(size_t)p * N + q] = v;
      }
    for (int j = 0; j < na; j++) {
      int i = rs[j];
      for (int p = 0; p < nf; p++) S[(size_t)p * N + nf + j] = rg[j] * D->k[i] * D->B[(size_t)p * m + i];
      for (int l = j; l < na; l++)
        if (rs[l] == i) S[(size_t)(nf + j) * N + nf + l] = rg[j] * rg[l] * D->k[i] + D->s[i] * D->s[i];
    }
    for (int p = 0; p < nf; p++)
      for (int i = 0; i < m; i++) r[p] += D->B[(size_t)p * m + i] * spr[i];
    for (int j = 0; j < na; j++) {
      int i = rs[j];
      r[nf + j] = rg[j] * spr[i] - D->s[i] * ap[i] - (D->c0[i] - D->s[i] * D->h[i] * at[i]);
    }
    LAPACKE_dposv(LAPACK_ROW_MAJOR, 'U', N, 1, S, N, r, 1);
    for (int i = 0; i < m; i++) {
      double bm = 0;
      for (int p = 0; p < nf; p++) bm += D->B[(size_t)p * m + i] * r[p];
      sig[i] = spr[i] - D->k[i] * bm;
      a[i] = ap[i];
    }
    for (int j = 0; j < na; j++) {
      sig[rs[j]] -= D->k[rs[j]] * rg[j] * r[nf + j];
      a[rs[j]] += D->s[rs[j]] * r[nf + j];
    }
    int changed = 0;
    for (int j = 0; j < na; j++)
      if (r[nf + j] < -1e-16) {
        act[rs[j]] &= (unsigned char)~(rg[j] > 0 ? 1 : 2);
        changed = 1;
      }
    for (int i = 0; i < m; i++) {
      double rad = D->c0[i] + D->s[i] * (a[i] - D->h[i] * at[i]);
      if (!(act[i] & 1) && sig[i] - rad > 1e-15) { act[i] |= 1; changed = 1; }
      if (!(act[i] & 2) && -sig[i] - rad > 1e-15) { act[i] |= 2; changed = 1; }
    }
    free(S);
    free(r);
    if (!changed) break;
  }
  free(rs);
  free(rg);
}

static long dense_step(dense *D, double t0, double t1) {
  int m = D->m;
  double *spr = malloc((size_t)m * sizeof *spr), *at = malloc((size_t)m * sizeof *at);
  double *sig = malloc((size_t)m * sizeof *sig), *a = malloc((size_t)m * sizeof *a);
  for (int i = 0; i < m; i++) spr[i] = D->sig[i] + (t1 - t0) * D->el1[i];
  memcpy(at, D->a, (size_t)m * sizeof *at);
  long it = 0;
  for (;;) {
    dense_project(D, spr, D->a, at, sig, a, D->act);
    it++;
    double ch = 0;
    for (int i = 0; i < m; i++) ch += (a[i] - at[i]) * (a[i] - at[i]);
    if (sqrt(ch) < 1e-12 || it >= 5000) break;
    memcpy(at, a, (size_t)m * sizeof *at);
  }
  memcpy(D->sig, sig, (size_t)m * sizeof *sig);
  memcpy(D->a, a, (size_t)m * sizeof *a);
  free(spr);
  free(at);
  free(sig);
  free(a);
  return it;
}

/* The NX x NY softening lattice of seed 001's parameters swept to its first complete
 * failure (FCD_E_NO_SOLUTION), the top row pulled at 0.1 (NY - 1) / 14 so that every size
 * is strained as the 10 x 15 one, in steps of 0.01 from t = 1.30, the elastic state just
 * before the first yield (1.36 on the 10 x 15; elastic steps are one projection each and
 * uninformative). Prints the steps, projections, seconds, peak memory and the failure. */
static int to_break(int nx, int ny, int picard) {
  double t0 = now();
  fcd_lattice *lat;
  if (fcd_lattice_create_rect(nx, ny, 1.0, 1.0, 0.01, 0.3, 1.1, 0.1 * (ny - 1) / 14.0, &lat) != FCD_OK)
    return 1;
  fcd_lattice_set_param(lat, FCD_LAT_ITERATION, picard ? FCD_LAT_PICARD : FCD_LAT_PIECES);
  fcd_index n, m;
  fcd_lattice_sizes(lat, &n, &m, NULL);
  double t = 1.30;
  if (fcd_lattice_set_state(lat, t, NULL, NULL) != FCD_OK) {
    fprintf(stderr, "to-break: the elastic state at t = %.2f: %s\n", t, fcd_lattice_last_error(lat));
    return 1;
  }
  long its = 0, steps = 0;
  fcd_status st = FCD_OK;
  while (st == FCD_OK && steps < 100000) {
    fcd_index it;
    st = fcd_lattice_step(lat, t + 0.01 * (double)(steps + 1), &it);
    if (st == FCD_OK) {
      steps++;
      its += (long)it;
    }
  }
  double secs = now() - t0, tf = NAN;
  const char *msg = fcd_lattice_last_error(lat), *p = strstr(msg, "complete failure at t = ");
  if (p) tf = strtod(p + strlen("complete failure at t = "), NULL);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("lattice_break %dx%d %s: nodes=%lld springs=%lld steps=%ld projections=%ld "
         "seconds=%.2f maxrss_mb=%.0f failure_t=%.6f\n", nx, ny, picard ? "picard" : "pieces",
         (long long)n, (long long)m, steps, its, secs, ru.ru_maxrss / 1024.0, tf);
  if (st != FCD_E_NO_SOLUTION) fprintf(stderr, "to-break: %s\n", msg);
  fcd_lattice_destroy(lat);
  fcd_finalize();
  return st == FCD_E_NO_SOLUTION ? 0 : 1;
}

int main(int argc, char **argv) {
  if ((argc == 4 || argc == 5) && !strcmp(argv[1], "--to-break")) {
    int nx = bench_int(argv[0], "--to-break NX", argv[2], 2, 100000);
    int ny = bench_int(argv[0], "--to-break NY", argv[3], 2, 100000);
    return to_break(nx, ny, argc == 5 && !strcmp(argv[4], "picard"));
  }
  if ((argc == 5 || argc == 6) && !strcmp(argv[1], "--big")) {
    int nx = bench_int(argv[0], "--big NX", argv[2], 1, 100000);
    int ny = bench_int(argv[0], "--big NY", argv[3], 1, 100000);
    int steps = bench_int(argv[0], "--big STEPS", argv[4], 1, 1000000000);
    fcd_lattice *lat;
    if (fcd_lattice_create_rect(nx, ny, 1.0, 1.0, 0.01, 0.3, 1.1, 0.1, &lat) != FCD_OK) return 1;
    fcd_index n, m;
    fcd_lattice_sizes(lat, &n, &m, NULL);
    /* start near the first yield (elastic steps are cheap and uninformative): the
     * affine estimate scales the 10 x 15 lattice's 1.36 with the height */
    double t = argc == 6 ? bench_real(argv[0], "--big T0", argv[5], 0, 1e9) : 1.30 * (ny - 1) / 14.0, t0 = now();
    if (fcd_lattice_set_state(lat, t, NULL, NULL) != FCD_OK) return 1;
    long its = 0;
    for (int j = 1; j <= steps; j++) {
      fcd_index it;
      fcd_status st = fcd_lattice_step(lat, t + 0.01 * j, &it);
      if (st != FCD_OK) {
        fprintf(stderr, "step %d: %s\n", j, fcd_lattice_last_error(lat));
        return 1;
      }
      its += (long)it;
    }
    double secs = now() - t0;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("lattice %dx%d: nodes=%lld springs=%lld steps=%d iterations=%ld seconds=%.2f "
           "per_step=%.3f maxrss_mb=%.0f\n", nx, ny, (long long)n, (long long)m, steps, its,
           secs, secs / steps, ru.ru_maxrss / 1024.0);
    fcd_lattice_destroy(lat);
    fcd_finalize();
    return 0;
  }
  int steps = 300;
  double from = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--steps") && i + 1 < argc) steps = bench_int(argv[0], "--steps", argv[++i], 1, 1000000000);
    else if (!strcmp(argv[i], "--from") && i + 1 < argc) from = bench_real(argv[0], "--from", argv[++i], 0, 1e9);
  }
  fcd_lattice *lat;
  if (fcd_lattice_create_rect(10, 15, 1.0, 1.0, 0.01, 0.3, 1.1, 0.1, &lat) != FCD_OK) return 1;
  dense D;
  if (dense_build(lat, 10, 15, &D) != 0) {
    fprintf(stderr, "lattice_vs_dense: the dense model failed\n");
    return 1;
  }
  /* the same starting state: fcd's at `from` (reached by fcd, untimed), handed to the
   * dense side */
  for (int j = 1; 0.01 * j <= from + 1e-9; j++)
    if (fcd_lattice_step(lat, 0.01 * j, NULL) != FCD_OK) {
      fprintf(stderr, "fcd step to %.2f: %s\n", 0.01 * j, fcd_lattice_last_error(lat));
      return 1;
    }
  if (fcd_lattice_get_state(lat, NULL, D.sig, D.a, NULL) != FCD_OK) return 1;
  double t0 = now();
  long it_f = 0;
  for (int j = 1; j <= steps; j++) {
    fcd_index it;
    if (fcd_lattice_step(lat, from + 0.01 * j, &it) != FCD_OK) {
      fprintf(stderr, "fcd step %d: %s\n", j, fcd_lattice_last_error(lat));
      return 1;
    }
    it_f += (long)it;
  }
  double tf = now() - t0;
  t0 = now();
  long it_d = 0;
  for (int j = 1; j <= steps; j++) it_d += dense_step(&D, from + 0.01 * (j - 1), from + 0.01 * j);
  double td = now() - t0;
  double *sg = malloc((size_t)D.m * sizeof *sg), *a = malloc((size_t)D.m * sizeof *a);
  fcd_lattice_get_state(lat, NULL, sg, a, NULL);
  double ds = 0, da = 0;
  for (int i = 0; i < D.m; i++) {
    ds = fmax(ds, fabs(sg[i] - D.sig[i]));
    da = fmax(da, fabs(a[i] - D.a[i]));
  }
  /* after the symmetry break the two may take mirror branches (the paper's Fig. 3): the
   * sorted damage values are then equal even where the vectors differ */
  double *sa = malloc((size_t)D.m * sizeof *sa), *sb = malloc((size_t)D.m * sizeof *sb);
  memcpy(sa, a, (size_t)D.m * sizeof *sa);
  memcpy(sb, D.a, (size_t)D.m * sizeof *sb);
  qsort(sa, (size_t)D.m, sizeof *sa, cmp_d);
  qsort(sb, (size_t)D.m, sizeof *sb, cmp_d);
  double dsorted = 0;
  for (int i = 0; i < D.m; i++) dsorted = fmax(dsorted, fabs(sa[i] - sb[i]));
  printf("10x15 softening, %d steps from t = %.2f: fcd %.3f s (%ld Picard iterations), "
         "dense %.3f s (%ld); largest difference sigma %.1e, a %.1e, sorted a %.1e\n", steps,
         from, tf, it_f, td, it_d, ds, da, dsorted);
  free(sa);
  free(sb);
  printf("ratio catchup_vs_dense_qp %.5f\n", tf / td);
  fcd_lattice_destroy(lat);
  fcd_finalize();
  return 0;
}
