/* A program outside the build tree: compiled and linked with nothing but
 * `pkg-config --cflags --libs fcd` against the installed prefix. */
#include <fcd/fcd.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  if (argc < 2 || strcmp(argv[1], fcd_version_string()) != 0) {
    fprintf(stderr, "consumer: library version %s, expected %s\n", fcd_version_string(),
            argc > 1 ? argv[1] : "?");
    return 1;
  }
  /* spring-mass chain k = 1, m = 1, one end fixed: omega^2 = 2 - 2 cos(...) (closed form) */
  enum { N = 6 };
  fcd_system *sys;
  if (fcd_system_create(N, &sys) != FCD_OK) return 1;
  fcd_index r[2 * N], c[2 * N];
  double k[2 * N], m[N];
  fcd_index d[N], t = 0;
  for (int i = 0; i < N; i++) {
    d[i] = i;
    m[i] = 1;
    r[t] = i; c[t] = i; k[t] = (i == N - 1) ? 1.0 : 2.0; t++;
    if (i + 1 < N) { r[t] = i; c[t] = i + 1; k[t] = -1.0; t++; }
  }
  if (fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, t, r, c, k, FCD_COO_UPPER) != FCD_OK ||
      fcd_system_set_matrix_coo(sys, FCD_MASS, N, d, d, m, FCD_COO_UPPER) != FCD_OK) {
    fprintf(stderr, "consumer: %s\n", fcd_system_last_error(sys));
    return 1;
  }
  double w2[2];
  fcd_index nc = 0;
  fcd_status st = fcd_system_natural_modes(sys, 2, w2, NULL, &nc);
  /* fixed-free chain: omega_j^2 = 4 sin^2((2j - 1) pi / (2 (2N + 1))) */
  const double pi = 3.14159265358979323846;
  double ok = st == FCD_OK && nc == 2;
  for (int j = 0; ok && j < 2; j++) {
    double s = sin((2 * j + 1) * pi / (2 * (2 * N + 1)));
    ok = fabs(w2[j] - 4 * s * s) < 1e-10;
  }
  printf("consumer: fcd %s, omega^2 = %.12g %.12g: %s\n", fcd_version_string(), w2[0], w2[1],
         ok ? "ok" : "WRONG");
  fcd_system_destroy(sys);
  fcd_finalize();
  return ok ? 0 : 1;
}
