/* The generator of the brake at industrial sizes (bench/brake_pads.h, issue 87), run
 * small, as the benchmarks run it large:
 * - its sizes: at refinement 1 and 2 the dofs and contacts counted here from the mesh's
 *   description (disc (8r+1) x 192r x (2r+1) nodes, bell (r+1) x 192r x 5r more, two
 *   pads of (5r+1) x (32r+1) x (2r+1)), 24,876 and 153,930 dofs, 396 and 1,430 contacts;
 * - its mass: 1^T M e_x equals the densities times the volumes of the chordal (polygonal)
 *   disc, bell and pads, computed here in closed form (a straight-sided annular sector of
 *   n chords between radii a and b has area n (b^2 - a^2) sin(dtheta) / 2, and the
 *   trilinear hexahedra of parallel planar faces are exact prisms), to round-off;
 * - its stiffness: a rigid translation and the rigid rotation about the axis give no
 *   force (before supports) to round-off of |K|;
 * - its use: the steady sliding equilibrium of the pads pressed on the turning disc is
 *   found and certified, every contact closed and sliding. */
#include "../../bench/brake_pads.h"
#include "../fcdtest.h"

#include <math.h>

static double chord_area(double a, double b, int nseg, double dth) {
  return 0.5 * nseg * (b * b - a * a) * sin(dth);
}

static void check_size(int r, fcd_index dofs, fcd_index contacts) {
  brake b;
  CHECK_ST(brake_pads_build(&b, r, 0.3), FCD_OK);
  CHECK(fcd_system_ndofs(b.sys) == dofs);
  CHECK(fcd_contact_set_size(b.cs) == contacts);
  CHECK(b.m.ne == 8 * r * 192 * r * 2 * r + r * 192 * r * 5 * r + 2 * 5 * r * 32 * r * 2 * r);
  fcd_index n = dofs;
  double *u = calloc((size_t)n, sizeof *u), *y = calloc((size_t)n, sizeof *y);
  /* the mass: x-translation */
  for (fcd_index i = 0; i < n; i += 3) u[i] = 1;
  CHECK_ST(fcd_system_apply(b.sys, FCD_MASS, u, y), FCD_OK);
  double mass = 0, nt = 192.0 * r, dth = 2 * 3.14159265358979 / nt;
  for (fcd_index i = 0; i < n; i++) mass += y[i];
  double steel = chord_area(RI, RO, (int)nt, dth) * TD + chord_area(RI, RI + 0.015, (int)nt, dth) * HUB;
  double pads = 2 * chord_area(0.23, 0.305, 32 * r, dth) * HPAD;
  double want = 7850 * steel + 5000 * pads;
  CHECK(fabs(mass - want) <= 1e-11 * want);
  /* rigid motions: K u = 0 before supports, against |K| u's scale */
  CHECK_ST(fcd_system_apply(b.sys, FCD_STIFFNESS, u, y), FCD_OK);
  double worst = 0;
  for (fcd_index i = 0; i < n; i++) worst = fmax(worst, fabs(y[i]));
  CHECK(worst <= 1e-6 * 210e9 * TD);
  for (fcd_index p = 0; p < n / 3; p++) {
    u[3 * p] = -b.m.x[3 * p + 1];
    u[3 * p + 1] = b.m.x[3 * p];
    u[3 * p + 2] = 0;
  }
  CHECK_ST(fcd_system_apply(b.sys, FCD_STIFFNESS, u, y), FCD_OK);
  worst = 0;
  for (fcd_index i = 0; i < n; i++) worst = fmax(worst, fabs(y[i]));
  CHECK(worst <= 1e-6 * 210e9 * TD * RO);
  free(u);
  free(y);
  brake_free(&b);
}

static void check_sliding(void) {
  brake b;
  CHECK_ST(brake_pads_build(&b, 1, 0.3), FCD_OK);
  fcd_equilibrium *eq = NULL;
  CHECK_ST(fcd_equilibrium_create(b.sys, b.cs, &eq), FCD_OK);
  CHECK_ST(fcd_equilibrium_solve(eq, FCD_EQ_STEADY_SLIDING, 0.0), FCD_OK);
  fcd_index nc = fcd_contact_set_size(b.cs), open = 0, slip = 0;
  int *status = calloc((size_t)nc, sizeof *status);
  CHECK_ST(fcd_equilibrium_get_contact_state(eq, status, NULL), FCD_OK);
  for (fcd_index c = 0; c < nc; c++) {
    open += status[c] == FCD_CONTACT_OPEN;
    slip += status[c] == FCD_CONTACT_SLIP;
  }
  /* the pads are pushed by 1.6 um onto a disc held by its bell: every node bears */
  CHECK(open == 0 && slip == nc);
  free(status);
  fcd_equilibrium_destroy(eq);
  brake_free(&b);
}

int main(void) {
  check_size(1, 3 * (9 * 192 * 3 + 2 * 192 * 5 + 2 * 6 * 33 * 3), 2 * 6 * 33);
  check_size(2, 3 * (17 * 384 * 5 + 3 * 384 * 10 + 2 * 11 * 65 * 5), 2 * 11 * 65);
  check_sliding();
  return fcdt_finish("brake_pads");
}
