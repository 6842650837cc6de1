/* Contact file reader, on a 24-dof system with dofs 0 and 1 prescribed. Properties: a
 * failure leaves a message and no set; an accepted set has sane sizes, orthonormal
 * frames, gaps and mu >= 0, and its operators H and H^T run. */
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
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
  return 0;
}
