/* Contacts given by rows (fcd_contact_set_add_rows, issue 22):
 *  1. a row contact written from a rigid contact's frame is the same contact: the same
 *     local operator, the same static equilibrium and the same Moreau-Jean trajectory,
 *     to round-off;
 *  2. a rigid obstacle touched at the midpoint of a segment whose two end nodes hang on
 *     springs of different stiffness (the weights 1/2, 1/2 of a node-to-segment row):
 *     the reaction and displacements against the closed form below;
 *  3. bad input: each check of the rows, the frame a row contact does not have, a dof a
 *     row uses that is prescribed afterwards (the stability analysis with rows:
 *     test_stability_rows.c). */
#include <fcd/fcd.h>

#include <math.h>
#include <string.h>

#include "../fcdtest.h"

/* Two 2D nodes (dofs 0, 1 and 2, 3), each on x and y springs to the ground, coupled by
 * a spring between their y dofs, unit masses. */
static fcd_system *two_nodes(double k1, double k2, double kc) {
  fcd_system *sys = NULL;
  CHECK_ST(fcd_system_create(4, &sys), FCD_OK);
  const fcd_index r[] = {0, 1, 2, 3, 1};
  const fcd_index c[] = {0, 1, 2, 3, 3};
  const fcd_real kv[] = {k1, k1 + kc, k2, k2 + kc, -kc};
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, 5, r, c, kv, FCD_COO_UPPER), FCD_OK);
  const fcd_real mv[] = {1, 1, 1, 1};
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_MASS, 4, r, c, mv, FCD_COO_UPPER), FCD_OK);
  return sys;
}

/* 1. rigid contact on node 0: normal (0.6, -0.8) into the obstacle, tangent (0.8, 0.6) */
static void same_as_rigid(void) {
  const double g = 0.01, mu = 0.4;
  const fcd_index dofs[] = {0, 1};
  const fcd_real n[] = {0.6, -0.8}, t[] = {0.8, 0.6};
  fcd_system *sys[2];
  fcd_contact_set *cs[2];
  for (int k = 0; k < 2; k++) {
    sys[k] = two_nodes(100.0, 300.0, 50.0);
    const fcd_real f[] = {-3.0, -5.0, 0.5, -1.0};
    CHECK_ST(fcd_system_set_load(sys[k], f), FCD_OK);
    CHECK_ST(fcd_contact_set_create(sys[k], 2, &cs[k]), FCD_OK);
  }
  CHECK_ST(fcd_contact_set_add_rigid(cs[0], dofs, n, t, g, mu, NULL), FCD_OK);
  const fcd_index rp[] = {0, 2, 4};
  const fcd_index rd[] = {0, 1, 0, 1};
  const fcd_real rw[] = {n[0], n[1], t[0], t[1]};
  fcd_index id = -1;
  CHECK_ST(fcd_contact_set_add_rows(cs[1], rp, rd, rw, g, mu, &id), FCD_OK);
  CHECK(id == 0 && fcd_contact_set_size(cs[1]) == 1);
  const fcd_real x[] = {0.3, -0.7, 1.1, 0.2};
  fcd_real y[2][2];
  for (int k = 0; k < 2; k++) CHECK_ST(fcd_contact_set_local(cs[k], x, y[k]), FCD_OK);
  CHECK(fabs(y[0][0] - y[1][0]) < 1e-15 && fabs(y[0][1] - y[1][1]) < 1e-15);
  /* static equilibrium: the load pushes node 0 through the obstacle (u_N would be
   * 0.6 (-0.03) + 0.8 (0.05...) > g without contact), so the contact closes */
  fcd_real u[2][4], r[2][2];
  for (int k = 0; k < 2; k++) {
    fcd_equilibrium *eq = NULL;
    CHECK_ST(fcd_equilibrium_create(sys[k], cs[k], &eq), FCD_OK);
    CHECK_ST(fcd_equilibrium_solve(eq, FCD_EQ_STATIC, 0.0), FCD_OK);
    CHECK_ST(fcd_equilibrium_get_state(eq, u[k]), FCD_OK);
    CHECK_ST(fcd_equilibrium_get_reactions(eq, r[k]), FCD_OK);
    fcd_equilibrium_destroy(eq);
  }
  CHECK(r[0][0] < 0); /* the contact is closed and pressed */
  for (int i = 0; i < 4; i++) CHECK_CLOSE(u[1][i], u[0][i], 1e-12);
  for (int i = 0; i < 2; i++) CHECK_CLOSE(r[1][i], r[0][i], 1e-12);
  /* 200 Moreau-Jean steps from rest, the load driving node 0 onto the obstacle */
  fcd_real ut[2][4], vt[2][4];
  double e_fric[2];
  for (int k = 0; k < 2; k++) {
    fcd_integrator *it = NULL;
    CHECK_ST(fcd_integrator_create(sys[k], cs[k], FCD_SCHEME_MOREAU_JEAN, &it), FCD_OK);
    CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_STEP, 1e-3), FCD_OK);
    const fcd_real z[4] = {0, 0, 0, 0};
    CHECK_ST(fcd_integrator_set_state(it, 0.0, z, z), FCD_OK);
    CHECK_ST(fcd_integrator_advance(it, 0.2), FCD_OK);
    fcd_real t1;
    CHECK_ST(fcd_integrator_get_state(it, &t1, ut[k], vt[k]), FCD_OK);
    fcd_energy e;
    CHECK_ST(fcd_integrator_get_energy(it, &e), FCD_OK);
    e_fric[k] = e.friction_dissipation + e.impact_dissipation;
    fcd_integrator_destroy(it);
  }
  for (int i = 0; i < 4; i++) {
    CHECK(fabs(ut[1][i] - ut[0][i]) <= 1e-12 * (1 + fabs(ut[0][i])));
    CHECK(fabs(vt[1][i] - vt[0][i]) <= 1e-10 * (1 + fabs(vt[0][i])));
  }
  CHECK(fabs(e_fric[1] - e_fric[0]) <= 1e-10 * (1 + fabs(e_fric[0])));
  for (int k = 0; k < 2; k++) {
    fcd_contact_set_destroy(cs[k]);
    fcd_system_destroy(sys[k]);
  }
}

/* 2. The segment from node 1 to node 2 (y dofs 1 and 3, x dofs 0 and 2) rests on a rigid
 * obstacle below its midpoint: normal row u_N = -(u1y + u2y) / 2 (the normal (0, -1)
 * with the midpoint's shape values 1/2, 1/2), tangent row (u1x + u2x) / 2. y springs
 * k1, k2 (no coupling), loads -F1, -F2 on the y dofs. Free: u_iy = -F_i / k_i, so
 * u_N0 = (F1/k1 + F2/k2) / 2. When u_N0 > g the contact closes with u_N = g and
 * K u = f + H^T r, H_N = (0, -1/2, 0, -1/2): u_iy = (-F_i - r/2) / k_i, so
 *   u_N = u_N0 + r (1/k1 + 1/k2) / 4 = g,   r = (g - u_N0) / ((1/k1 + 1/k2) / 4) < 0.
 * No tangential load: r_T = 0 whatever mu. */
static void segment_midpoint(double mu) {
  const double k1 = 200.0, k2 = 50.0, F1 = 3.0, F2 = 0.5, g = 0.005;
  fcd_system *sys = two_nodes(k1, k2, 0.0);
  const fcd_real f[] = {0.0, -F1, 0.0, -F2};
  CHECK_ST(fcd_system_set_load(sys, f), FCD_OK);
  fcd_contact_set *cs = NULL;
  CHECK_ST(fcd_contact_set_create(sys, 2, &cs), FCD_OK);
  const fcd_index rp[] = {0, 2, 4};
  const fcd_index rd[] = {1, 3, 0, 2};
  const fcd_real rw[] = {-0.5, -0.5, 0.5, 0.5};
  CHECK_ST(fcd_contact_set_add_rows(cs, rp, rd, rw, g, mu, NULL), FCD_OK);
  fcd_equilibrium *eq = NULL;
  CHECK_ST(fcd_equilibrium_create(sys, cs, &eq), FCD_OK);
  CHECK_ST(fcd_equilibrium_solve(eq, FCD_EQ_STATIC, 0.0), FCD_OK);
  fcd_real u[4], r[2];
  CHECK_ST(fcd_equilibrium_get_state(eq, u), FCD_OK);
  CHECK_ST(fcd_equilibrium_get_reactions(eq, r), FCD_OK);
  const double un0 = 0.5 * (F1 / k1 + F2 / k2);
  const double rn = (g - un0) / (0.25 * (1 / k1 + 1 / k2));
  CHECK(un0 > g);
  CHECK_CLOSE(r[0], rn, 1e-9);
  CHECK(fabs(r[1]) <= 1e-12 * fabs(rn));
  CHECK_CLOSE(u[1], (-F1 - 0.5 * rn) / k1, 1e-9);
  CHECK_CLOSE(u[3], (-F2 - 0.5 * rn) / k2, 1e-9);
  CHECK_CLOSE(-0.5 * (u[1] + u[3]), g, 1e-9);
  int status = -1;
  CHECK_ST(fcd_equilibrium_get_contact_state(eq, &status, NULL), FCD_OK);
  /* no tangential load: r_T = 0, inside the cone when mu > 0; a frictionless closed
   * contact is on its (degenerate) cone: free to slide */
  CHECK(status == (mu > 0 ? FCD_CONTACT_STICK : FCD_CONTACT_SLIP));
  fcd_equilibrium_destroy(eq);
  /* a gap wider than the free motion: the contact stays open, no reaction */
  fcd_contact_set *cs2 = NULL;
  CHECK_ST(fcd_contact_set_create(sys, 2, &cs2), FCD_OK);
  CHECK_ST(fcd_contact_set_add_rows(cs2, rp, rd, rw, 2 * un0, mu, NULL), FCD_OK);
  CHECK_ST(fcd_equilibrium_create(sys, cs2, &eq), FCD_OK);
  CHECK_ST(fcd_equilibrium_solve(eq, FCD_EQ_STATIC, 0.0), FCD_OK);
  CHECK_ST(fcd_equilibrium_get_reactions(eq, r), FCD_OK);
  CHECK(r[0] == 0.0 && r[1] == 0.0);
  fcd_equilibrium_destroy(eq);
  fcd_contact_set_destroy(cs2);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
}

static void bad_input(void) {
  fcd_system *sys = two_nodes(1.0, 1.0, 0.0);
  fcd_contact_set *cs = NULL;
  CHECK_ST(fcd_contact_set_create(sys, 2, &cs), FCD_OK);
  const fcd_index rp[] = {0, 2, 4};
  const fcd_index rd[] = {1, 3, 0, 2};
  const fcd_real rw[] = {-0.5, -0.5, 0.5, 0.5};
  CHECK_ST(fcd_contact_set_add_rows(NULL, rp, rd, rw, 0, 0, NULL), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_contact_set_add_rows(cs, NULL, rd, rw, 0, 0, NULL), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "row_ptr is NULL");
  CHECK_ST(fcd_contact_set_add_rows(cs, rp, NULL, rw, 0, 0, NULL), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_contact_set_add_rows(cs, rp, rd, NULL, 0, 0, NULL), FCD_E_INVALID_ARG);
  const fcd_index rp1[] = {1, 2, 4};
  CHECK_ST(fcd_contact_set_add_rows(cs, rp1, rd, rw, 0, 0, NULL), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "row_ptr[0] = 1");
  const fcd_index rp2[] = {0, 2, 2};
  CHECK_ST(fcd_contact_set_add_rows(cs, rp2, rd, rw, 0, 0, NULL), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "row 1 is empty");
  const fcd_index rd_out[] = {1, 4, 0, 2};
  CHECK_ST(fcd_contact_set_add_rows(cs, rp, rd_out, rw, 0, 0, NULL), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "dof 4 outside [0, 4)");
  const fcd_index rd_dup[] = {1, 1, 0, 2};
  CHECK_ST(fcd_contact_set_add_rows(cs, rp, rd_dup, rw, 0, 0, NULL), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "appears twice");
  const fcd_real rw_nan[] = {-0.5, NAN, 0.5, 0.5};
  CHECK_ST(fcd_contact_set_add_rows(cs, rp, rd, rw_nan, 0, 0, NULL), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "not finite");
  const fcd_real rw_zero[] = {0.0, 0.0, 0.5, 0.5};
  CHECK_ST(fcd_contact_set_add_rows(cs, rp, rd, rw_zero, 0, 0, NULL), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "row 0 has only zero weights");
  CHECK_ST(fcd_contact_set_add_rows(cs, rp, rd, rw, -1.0, 0, NULL), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "gap -1");
  CHECK_ST(fcd_contact_set_add_rows(cs, rp, rd, rw, 0, -0.1, NULL), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "mu = -0.1");
  CHECK(fcd_contact_set_size(cs) == 0); /* nothing was added by the refused calls */
  const fcd_index fixed = 3;
  CHECK_ST(fcd_system_fix_dofs(sys, 1, &fixed, NULL), FCD_OK);
  CHECK_ST(fcd_contact_set_add_rows(cs, rp, rd, rw, 0, 0, NULL), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "dof 3 is prescribed");
  CHECK_ST(fcd_system_clear_fixed(sys), FCD_OK);
  CHECK_ST(fcd_contact_set_add_rows(cs, rp, rd, rw, 0, 0.2, NULL), FCD_OK);
  /* a dof of the rows cannot be prescribed afterwards, as for node contacts */
  CHECK(fcd_system_fix_dofs(sys, 1, &fixed, NULL) != FCD_OK);
  fcd_real frame[4], gap = -1, mu = -1;
  int pair = -1;
  CHECK_ST(fcd_contact_set_get(cs, 0, frame, &gap, &mu, &pair), FCD_E_UNSUPPORTED);
  CHECK_MSG(sys, "given by rows");
  CHECK_ST(fcd_contact_set_get(cs, 0, NULL, &gap, &mu, &pair), FCD_OK);
  CHECK(gap == 0 && mu == 0.2 && pair == 0);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
}

static void write_file(const char *path, const char *text) {
  FILE *fp = fopen(path, "w");
  CHECK(fp != NULL);
  if (!fp) return;
  fputs(text, fp);
  fclose(fp);
}

/* 4. the contact file, version 2: a rigid contact and a row contact on one line each;
 * version 1 files do not take rows */
static void contact_file(void) {
  fcd_system *sys = two_nodes(100.0, 300.0, 50.0);
  char path[600];
  fcdt_tmpfile(path, sizeof path, "rows.txt");
  write_file(path, "fcd-contacts 2\ndim 2\n"
                   "rigid 0 1  0 -1  1 0  0.01 0.3\n"
                   "# the segment's midpoint: N row 2 entries, T row 2 entries\n"
                   "rows 2 2  1 -0.5 3 -0.5  0 0.5 2 0.5  0.005 0.5  1.5\n");
  fcd_contact_set *cs = NULL;
  CHECK_ST(fcd_contact_set_read(sys, path, &cs), FCD_OK);
  CHECK(fcd_contact_set_size(cs) == 2);
  const fcd_real x[] = {0.3, -0.7, 1.1, 0.2};
  fcd_real y[4];
  CHECK_ST(fcd_contact_set_local(cs, x, y), FCD_OK);
  CHECK(y[0] == 0.7 && y[1] == 0.3);                      /* rigid: (-u1y, u1x) */
  CHECK(fabs(y[2] - 0.25) < 1e-15 && fabs(y[3] - 0.7) < 1e-15); /* rows */
  fcd_real gap, mu;
  CHECK_ST(fcd_contact_set_get(cs, 1, NULL, &gap, &mu, NULL), FCD_OK);
  CHECK(gap == 0.005 && mu == 0.5);
  fcd_contact_set_destroy(cs);
  write_file(path, "fcd-contacts 1\ndim 2\nrows 1 1  1 -1  0 1  0 0\n");
  CHECK_ST(fcd_contact_set_read(sys, path, &cs), FCD_E_FORMAT);
  CHECK_MSG(sys, "needs the header 'fcd-contacts 2'");
  write_file(path, "fcd-contacts 2\ndim 2\nrows 1 0  1 -1  0 0\n");
  CHECK_ST(fcd_contact_set_read(sys, path, &cs), FCD_E_FORMAT);
  CHECK_MSG(sys, "row 1's entry count '0'");
  write_file(path, "fcd-contacts 2\ndim 2\nrows 1 1  1 -1  0 1  0\n");
  CHECK_ST(fcd_contact_set_read(sys, path, &cs), FCD_E_FORMAT);
  CHECK_MSG(sys, "has 8 or 9 fields after its kind, not 7");
  write_file(path, "fcd-contacts 2\ndim 2\nrows 1 1  1 -1  9 1  0 0\n");
  CHECK_ST(fcd_contact_set_read(sys, path, &cs), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, ":3: contact 0: row 1: dof 9 outside [0, 4)");
  CHECK(cs == NULL);
  fcd_system_destroy(sys);
}

/* 5. fcd_contact_set_add_surface_pair's refusals (its results: test_mortar_patch.py):
 * nothing is added by a refused call */
static void surface_pair_bad_input(void) {
  fcd_system *sys = two_nodes(1.0, 1.0, 0.0);
  /* nodes 0 and 1 own dofs (0, 1) and (2, 3); node 2 has none; node 3 coincides with 0 */
  const fcd_real x[] = {0, 0, 1, 0, 2, 0, 0, 0};
  const fcd_index nd[] = {0, 1, 2, 3, -1, -1, 0, 1};
  fcd_mesh *m = NULL;
  CHECK_ST(fcd_mesh_create(sys, 2, 4, x, nd, &m), FCD_OK);
  fcd_contact_set *cs = NULL, *cs3 = NULL;
  CHECK_ST(fcd_contact_set_create(sys, 2, &cs), FCD_OK);
  const fcd_index sl[] = {0, 1}, ma[] = {1, 2}, same[] = {0, 0}, flat[] = {0, 3};
  fcd_index first = 7, nin = 7;
  CHECK_ST(fcd_contact_set_add_surface_pair(NULL, m, 1, sl, 1, ma, FCD_SURFACE_DUAL_MORTAR,
                                            0, &first, &nin), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_contact_set_add_surface_pair(cs, NULL, 1, sl, 1, ma, FCD_SURFACE_DUAL_MORTAR,
                                            0, &first, &nin), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "the mesh is NULL or invalid");
  CHECK_ST(fcd_contact_set_add_surface_pair(cs, m, 1, sl, 1, ma, (fcd_surface_method)9, 0,
                                            &first, &nin), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "unknown method 9");
  CHECK_ST(fcd_contact_set_add_surface_pair(cs, m, 0, sl, 1, ma, FCD_SURFACE_DUAL_MORTAR, 0,
                                            &first, &nin), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "the slave surface has no segment");
  CHECK_ST(fcd_contact_set_add_surface_pair(cs, m, 1, same, 1, ma, FCD_SURFACE_DUAL_MORTAR,
                                            0, &first, &nin), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "not two distinct nodes");
  CHECK_ST(fcd_contact_set_add_surface_pair(cs, m, 1, flat, 1, ma, FCD_SURFACE_DUAL_MORTAR,
                                            0, &first, &nin), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "has length zero");
  CHECK_ST(fcd_contact_set_add_surface_pair(cs, m, 1, sl, 1, ma, FCD_SURFACE_DUAL_MORTAR, 0,
                                            &first, &nin), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "a node of master segment 0 has no dof");
  CHECK(first == 7 && nin == 7 && fcd_contact_set_size(cs) == 0);
  CHECK_ST(fcd_contact_set_create(sys, 3, &cs3), FCD_OK);
  CHECK_ST(fcd_contact_set_add_surface_pair(cs3, m, 1, sl, 1, ma, FCD_SURFACE_DUAL_MORTAR, 0,
                                            &first, &nin), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "a 2D mesh for a 3D contact set");
  fcd_contact_set_destroy(cs3);
  fcd_contact_set_destroy(cs);
  fcd_mesh_destroy(m);
  fcd_system_destroy(sys);
}

int main(void) {
  surface_pair_bad_input();
  contact_file();
  same_as_rigid();
  segment_midpoint(0.0);
  segment_midpoint(0.5);
  bad_input();
  return fcdt_finish("contact_rows");
}
