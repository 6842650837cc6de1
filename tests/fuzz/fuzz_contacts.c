/* Contact file reader, on a 24-dof system with dofs 0 and 1 prescribed. Properties: a
 * failure leaves a message and no set; an accepted set has sane sizes, orthonormal
 * frames, gaps and mu >= 0, and its operators H and H^T run. Then the dense stability
 * analysis of a chain of springs with every 2D contact slipping, at the file's friction
 * coefficients (issue 64: a mu whose product with a row overflows made the pairing of
 * LAPACK's answer read past the eigenvectors): a solve either fails with a message or
 * returns finite eigenvalues. */
#include "fuzz_common.h"

enum { N = 24 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *p = fz_write(data, size, "contacts.txt");
  fcd_system *sys = NULL;
  fcd_system_create(N, &sys);
  const fcd_index fixed[2] = {0, 1};
  fcd_system_fix_dofs(sys, 2, fixed, NULL);
  fcd_contact_set *cs = (fcd_contact_set *)&sys; /* poison: must be reset to NULL */
  fcd_status st = fcd_contact_set_read(sys, p, &cs);
  if (st != FCD_OK) {
    fz_need_message(fcd_system_last_error(sys), "fcd_contact_set_read");
    if (cs != NULL) fz_fail("a failed read returned a set", NULL);
    fcd_system_destroy(sys);
    return 0;
  }
  int dim = fcd_contact_set_dim(cs);
  fcd_index nc = fcd_contact_set_size(cs);
  if ((dim != 2 && dim != 3) || nc < 0) fz_fail("accepted set with bad sizes", NULL);
  for (fcd_index c = 0; c < nc; c++) {
    double frame[9], gap, mu;
    int pair;
    if (fcd_contact_set_get(cs, c, frame, &gap, &mu, &pair) != FCD_OK) fz_fail("get", NULL);
    if (!(gap >= 0) || !(mu >= 0) || !isfinite(gap) || !isfinite(mu))
      fz_fail("accepted a bad gap or mu", NULL);
    for (int a = 0; a < dim; a++)
      for (int b = 0; b < dim; b++) {
        double d = 0;
        for (int k = 0; k < dim; k++) d += frame[a * dim + k] * frame[b * dim + k];
        if (fabs(d - (a == b)) > 1e-9) fz_fail("frame not orthonormal", NULL);
      }
  }
  double x[N], *y = malloc((size_t)(nc * dim + 1) * sizeof *y), f[N];
  for (int i = 0; i < N; i++) x[i] = 0.01 * i;
  if (fcd_contact_set_local(cs, x, y) != FCD_OK || fcd_contact_set_global(cs, y, f) != FCD_OK)
    fz_fail("H or H^T failed on an accepted set", fcd_system_last_error(sys));
  free(y);
  if (dim == 2 && nc > 0 && nc <= N) {
    fcd_index ri[2 * N], ci[2 * N];
    double kv[2 * N], one[N];
    int ne = 0;
    for (int i = 0; i < N; i++) {
      ri[ne] = i; ci[ne] = i; kv[ne++] = 3.0;
      if (i + 1 < N) { ri[ne] = i; ci[ne] = i + 1; kv[ne++] = -1.0; }
      one[i] = 1.0;
    }
    fcd_index all[N];
    for (int i = 0; i < N; i++) all[i] = i;
    fcd_stability *stab = NULL;
    int *status = malloc((size_t)nc * sizeof *status);
    double *slip = malloc((size_t)nc * sizeof *slip);
    for (fcd_index c = 0; c < nc; c++) {
      status[c] = FCD_CONTACT_SLIP;
      slip[c] = c % 2 ? 1.0 : -1.0;
    }
    fcd_index nconv = 0;
    if (fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, ne, ri, ci, kv, FCD_COO_UPPER) ||
        fcd_system_set_matrix_coo(sys, FCD_MASS, N, all, all, one, FCD_COO_UPPER) ||
        fcd_stability_create(sys, cs, &stab) ||
        fcd_stability_set_contact_state(stab, status, slip)) {
      fz_need_message(fcd_system_last_error(sys), "stability set-up");
    } else if (fcd_stability_solve(stab, &nconv) != FCD_OK) {
      fz_need_message(fcd_system_last_error(sys), "fcd_stability_solve");
    } else {
      for (fcd_index i = 0; i < nconv; i++) {
        double re, im;
        if (fcd_stability_get_eigenvalue(stab, i, &re, &im) != FCD_OK || !isfinite(re) ||
            !isfinite(im))
          fz_fail("a stability solve returned FCD_OK with a non-finite eigenvalue", NULL);
      }
    }
    fcd_stability_destroy(stab);
    free(status);
    free(slip);
  }
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
  return 0;
}
