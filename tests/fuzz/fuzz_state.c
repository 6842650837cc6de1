/* State files: the vector reader (initial displacements and velocities, loads) and the
 * prescribed-dofs reader, on a 32-dof system. The first byte picks the reader and the
 * vector length. Properties: a failure leaves a message and, for the prescribed dofs,
 * the previous set untouched (all or nothing); accepted values are finite and in range. */
#include "fuzz_common.h"

enum { N = 32 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  const char *p = fz_write(data + 1, size - 1, "state.txt");
  fcd_system *sys = NULL;
  fcd_system_create(N, &sys);
  if (data[0] & 1) {
    const fcd_index pre[1] = {5};
    const double prev = 0.25;
    fcd_system_fix_dofs(sys, 1, pre, &prev);
    fcd_status st = fcd_system_read_fixed(sys, p);
    fcd_index nf = fcd_system_num_fixed(sys);
    fcd_index dofs[N];
    double vals[N];
    fcd_system_get_fixed(sys, dofs, vals);
    if (st != FCD_OK) {
      fz_need_message(fcd_system_last_error(sys), "fcd_system_read_fixed");
      if (nf != 1 || dofs[0] != 5 || vals[0] != 0.25) fz_fail("a failed read changed the set", NULL);
    } else {
      for (fcd_index i = 0; i < nf; i++)
        if (dofs[i] < 0 || dofs[i] >= N || !isfinite(vals[i])) fz_fail("accepted bad dof", NULL);
    }
  } else {
    fcd_index n = (data[0] >> 1) % (N + 1);
    double x[N + 1];
    for (int i = 0; i <= N; i++) x[i] = -7.0;
    fcd_status st = fcd_system_read_vector(sys, p, n, x);
    if (st != FCD_OK) {
      fz_need_message(fcd_system_last_error(sys), "fcd_system_read_vector");
    } else {
      for (fcd_index i = 0; i < n; i++)
        if (!isfinite(x[i])) fz_fail("accepted a non-finite entry", NULL);
    }
    if (x[n] != -7.0) fz_fail("wrote past the n entries", NULL);
  }
  fcd_system_destroy(sys);
  return 0;
}
