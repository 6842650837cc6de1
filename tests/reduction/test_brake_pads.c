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
 *   found and certified, every contact closed and sliding;
 * - its relative coordinates (y = u_pad - u_disc on the pads' faces, u = P y): the
 *   matrices built in them are P' A P of the physical ones, checked by applying both
 *   sides to a vector; the sliding equilibrium found in them is the physical one mapped
 *   by P (two solves of one problem in two coordinate systems, to the certificate's
 *   tolerance); and each contact acts on its pad node alone, measuring what the pair
 *   does (H_rel y = H P y), so that a reduction keeps three dofs a contact, not six. */
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

/* u = P y and z = P' x for the relative coordinates' partners (u_i = y_i + y_partner[i]) */
static void p_apply(const fcd_index *pt, fcd_index n, const double *y, double *u) {
  for (fcd_index i = 0; i < n; i++) u[i] = y[i] + (pt[i] >= 0 ? y[pt[i]] : 0);
}
static void pt_apply(const fcd_index *pt, fcd_index n, const double *x, double *z) {
  for (fcd_index i = 0; i < n; i++) z[i] = x[i];
  for (fcd_index i = 0; i < n; i++)
    if (pt[i] >= 0) z[pt[i]] += x[i];
}

static void check_relative(void) {
  brake b, br;
  CHECK_ST(brake_pads_build(&b, 1, 0.3), FCD_OK);
  CHECK_ST(brake_pads_build_in(&br, 1, 0.3, 1), FCD_OK);
  fcd_index n = fcd_system_ndofs(b.sys), nc = fcd_contact_set_size(b.cs);
  CHECK(fcd_system_ndofs(br.sys) == n && fcd_contact_set_size(br.cs) == nc);
  fcd_index *pt = pads_partners(&b.m, 1);
  double *y = malloc(sizeof *y * (size_t)n), *u = malloc(sizeof *u * (size_t)n);
  double *x = malloc(sizeof *x * (size_t)n), *z = malloc(sizeof *z * (size_t)n);
  double *w = malloc(sizeof *w * (size_t)n);
  unsigned s = 12345;
  for (fcd_index i = 0; i < n; i++) {
    s = s * 1103515245u + 12345u;
    y[i] = (double)(s >> 8) / 16777216.0 - 0.5;
  }
  const fcd_matrix_kind kinds[] = {FCD_STIFFNESS, FCD_MASS, FCD_DAMPING};
  for (int k = 0; k < 3; k++) {
    p_apply(pt, n, y, u);
    CHECK_ST(fcd_system_apply(b.sys, kinds[k], u, x), FCD_OK);
    pt_apply(pt, n, x, z);
    CHECK_ST(fcd_system_apply(br.sys, kinds[k], y, w), FCD_OK);
    double err = 0, scale = 0;
    for (fcd_index i = 0; i < n; i++) {
      err = fmax(err, fabs(w[i] - z[i]));
      scale = fmax(scale, fabs(z[i]));
    }
    CHECK(err <= 1e-12 * scale);
  }
  /* the equilibrium in both coordinates */
  fcd_equilibrium *eq = NULL, *eqr = NULL;
  CHECK_ST(fcd_equilibrium_create(b.sys, b.cs, &eq), FCD_OK);
  CHECK_ST(fcd_equilibrium_solve(eq, FCD_EQ_STEADY_SLIDING, 0.0), FCD_OK);
  CHECK_ST(fcd_equilibrium_get_state(eq, u), FCD_OK);
  CHECK_ST(fcd_equilibrium_create(br.sys, br.cs, &eqr), FCD_OK);
  CHECK_ST(fcd_equilibrium_solve(eqr, FCD_EQ_STEADY_SLIDING, 0.0), FCD_OK);
  CHECK_ST(fcd_equilibrium_get_state(eqr, y), FCD_OK);
  p_apply(pt, n, y, w);
  double err = 0, scale = 0;
  for (fcd_index i = 0; i < n; i++) {
    err = fmax(err, fabs(w[i] - u[i]));
    scale = fmax(scale, fabs(u[i]));
  }
  /* each is certified to FCD_PARAM_CERT_TOL's default 1e-8 of its scales */
  CHECK(scale > 0 && err <= 1e-8 * scale);
  /* the contacts: pairs against nodes alone (a reduction keeps the dofs the rows weigh:
   * three a contact instead of six), measuring the same H u = H_rel y */
  double *hu = malloc(sizeof *hu * 3 * (size_t)nc), *hy = malloc(sizeof *hy * 3 * (size_t)nc);
  int pairs = 0, rigid = 0;
  for (fcd_index c = 0; c < nc; c++) {
    int ip = -1, ir = -1;
    CHECK_ST(fcd_contact_set_get(b.cs, c, NULL, NULL, NULL, &ip), FCD_OK);
    CHECK_ST(fcd_contact_set_get(br.cs, c, NULL, NULL, NULL, &ir), FCD_OK);
    pairs += ip == 1;
    rigid += ir == 0;
  }
  CHECK(pairs == nc && rigid == nc);
  CHECK_ST(fcd_contact_set_local(br.cs, y, hy), FCD_OK);
  CHECK_ST(fcd_contact_set_local(b.cs, w, hu), FCD_OK);
  err = scale = 0;
  for (fcd_index i = 0; i < 3 * nc; i++) {
    err = fmax(err, fabs(hy[i] - hu[i]));
    scale = fmax(scale, fabs(hu[i]));
  }
  CHECK(scale > 0 && err <= 1e-12 * scale);
  free(hu);
  free(hy);
  fcd_equilibrium_destroy(eq);
  fcd_equilibrium_destroy(eqr);
  free(pt); free(y); free(u); free(x); free(z); free(w);
  brake_free(&b);
  brake_free(&br);
}

int main(void) {
  check_relative();
  check_size(1, 3 * (9 * 192 * 3 + 2 * 192 * 5 + 2 * 6 * 33 * 3), 2 * 6 * 33);
  check_size(2, 3 * (17 * 384 * 5 + 3 * 384 * 10 + 2 * 11 * 65 * 5), 2 * 11 * 65);
  check_sliding();
  return fcdt_finish("brake_pads");
}
