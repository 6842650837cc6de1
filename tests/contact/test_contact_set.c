/* Contact sets: frames, the contact operator and its adjoint, pairs, bad input. */
#include <fcd/fcd.h>

#include "../fcdtest.h"

static void test_operator(void) {
  fcd_system *sys;
  CHECK_ST(fcd_system_create(12, &sys), FCD_OK);
  fcd_contact_set *cs;
  CHECK_ST(fcd_contact_set_create(sys, 3, &cs), FCD_OK);
  CHECK(fcd_contact_set_size(cs) == 0 && fcd_contact_set_dim(cs) == 3);
  const fcd_index a[3] = {0, 1, 2}, b[3] = {6, 7, 8}, c[3] = {3, 4, 5};
  /* a slightly non-unit frame (within 1e-6) is normalized */
  const double n1[3] = {0, 0, 1 + 5e-7}, t1[3] = {1, 0, 0};
  const double s2 = sqrt(0.5), n2[3] = {s2, s2, 0}, t2[3] = {-s2, s2, 0};
  fcd_index id;
  CHECK_ST(fcd_contact_set_add_rigid(cs, a, n1, t1, 0.0, 0.3, &id), FCD_OK);
  CHECK(id == 0);
  double x1[12], y1[6] = {0, 0, 0, -7, -7, -7};
  for (int i = 0; i < 12; i++) x1[i] = i + 1;
  CHECK_ST(fcd_contact_set_local(cs, x1, y1), FCD_OK); /* builds the operator for 1 contact */
  CHECK(y1[0] == 3 && y1[3] == -7);
  CHECK_ST(fcd_contact_set_add_pair(cs, c, b, n2, t2, 0.01, 0.5, &id), FCD_OK);
  CHECK(id == 1 && fcd_contact_set_size(cs) == 2);
  double fr[9], gap, mu;
  int pair;
  CHECK_ST(fcd_contact_set_get(cs, 0, fr, &gap, &mu, &pair), FCD_OK);
  CHECK(fr[2] == 1.0 && fr[0] == 0 && gap == 0 && mu == 0.3 && !pair);
  /* binormal n x t: e_z x e_x = e_y */
  CHECK(fabs(fr[6]) < 1e-15 && fabs(fr[7] - 1) < 1e-15 && fabs(fr[8]) < 1e-15);
  CHECK_ST(fcd_contact_set_get(cs, 1, fr, &gap, &mu, &pair), FCD_OK);
  CHECK(pair && gap == 0.01 && mu == 0.5);
  CHECK(fabs(fr[8] - 1) < 1e-15); /* n2 x t2 = e_z */
  /* local values: u_N = n . (u_A - u_B) */
  double x[12], y[6];
  for (int i = 0; i < 12; i++) x[i] = i + 1;
  CHECK_ST(fcd_contact_set_local(cs, x, y), FCD_OK);
  CHECK_CLOSE(y[0], 3.0, 1e-15);              /* z of node a */
  CHECK_CLOSE(y[1], 1.0, 1e-15);              /* x of node a */
  CHECK_CLOSE(y[2], 2.0, 1e-15);              /* y of node a */
  CHECK_CLOSE(y[3], s2 * ((4 - 7) + (5 - 8)), 1e-14);
  CHECK_CLOSE(y[5], 6.0 - 9.0, 1e-15);
  /* adjoint: <H x, r> = <x, H^T r> for random x, r */
  for (int t = 0; t < 20; t++) {
    double r[6], f[12], lhs = 0, rhs = 0;
    for (int i = 0; i < 12; i++) x[i] = fcdt_rand() - 0.5;
    for (int i = 0; i < 6; i++) r[i] = fcdt_rand() - 0.5;
    fcd_contact_set_local(cs, x, y);
    CHECK_ST(fcd_contact_set_global(cs, r, f), FCD_OK);
    for (int i = 0; i < 6; i++) lhs += y[i] * r[i];
    for (int i = 0; i < 12; i++) rhs += x[i] * f[i];
    CHECK(fabs(lhs - rhs) < 1e-14);
  }
  const double vg[2] = {2.5, 0};
  CHECK_ST(fcd_contact_set_set_sliding_velocity(cs, 1, vg), FCD_OK);
  CHECK_ST(fcd_contact_set_set_restitution(cs, 0.5), FCD_OK);
  /* the system may be destroyed first: the set keeps it alive */
  fcd_system_destroy(sys);
  CHECK(fcd_contact_set_size(cs) == 2);
  CHECK_ST(fcd_contact_set_local(cs, x, y), FCD_OK);
  fcd_contact_set_destroy(cs);
}

static void test_bad_input(void) {
  fcd_system *sys;
  CHECK_ST(fcd_system_create(6, &sys), FCD_OK);
  const fcd_index fixed = 5;
  CHECK_ST(fcd_system_fix_dofs(sys, 1, &fixed, NULL), FCD_OK);
  fcd_contact_set *cs = NULL;
  CHECK_ST(fcd_contact_set_create(sys, 4, &cs), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "dimension 4");
  CHECK_ST(fcd_contact_set_create(NULL, 2, &cs), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_contact_set_create(sys, 2, NULL), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_contact_set_create(sys, 2, &cs), FCD_OK);
  const fcd_index d[2] = {0, 1}, dfix[2] = {4, 5}, dout[2] = {0, 6}, ddup[2] = {1, 1};
  const double n[2] = {0, -1}, t[2] = {1, 0};
  CHECK_ST(fcd_contact_set_add_rigid(cs, d, n, t, 0, -0.1, NULL), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "mu = -0.1");
  CHECK_ST(fcd_contact_set_add_rigid(cs, d, n, t, NAN, 0.1, NULL), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "gap");
  CHECK_ST(fcd_contact_set_add_rigid(cs, d, n, t, -1, 0.1, NULL), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_contact_set_add_rigid(cs, dout, n, t, 0, 0.1, NULL), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "dof 6 outside [0, 6)");
  CHECK_ST(fcd_contact_set_add_rigid(cs, dfix, n, t, 0, 0.1, NULL), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "dof 5 is prescribed");
  CHECK_ST(fcd_contact_set_add_rigid(cs, ddup, n, t, 0, 0.1, NULL), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "appears twice");
  const double zero[2] = {0, 0}, half[2] = {0, -0.5}, skew[2] = {0.1, 1};
  CHECK_ST(fcd_contact_set_add_rigid(cs, d, zero, t, 0, 0.1, NULL), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "normal is zero");
  CHECK_ST(fcd_contact_set_add_rigid(cs, d, half, t, 0, 0.1, NULL), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "norm 0.5");
  CHECK_ST(fcd_contact_set_add_rigid(cs, d, n, skew, 0, 0.1, NULL), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "tangent has norm");
  const double nt[2] = {0.6, -0.8};
  CHECK_ST(fcd_contact_set_add_rigid(cs, d, nt, t, 0, 0.1, NULL), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "not orthogonal");
  const double nnan[2] = {NAN, 1};
  CHECK_ST(fcd_contact_set_add_rigid(cs, d, nnan, t, 0, 0.1, NULL), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_contact_set_add_rigid(cs, NULL, n, t, 0, 0.1, NULL), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_contact_set_add_pair(cs, d, NULL, n, t, 0, 0.1, NULL), FCD_E_INVALID_ARG);
  CHECK(fcd_contact_set_size(cs) == 0); /* nothing was added */
  CHECK_ST(fcd_contact_set_add_rigid(cs, d, n, t, 0, 0.1, NULL), FCD_OK);
  const double vg[1] = {1};
  CHECK_ST(fcd_contact_set_set_sliding_velocity(cs, 3, vg), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "contact 3 outside");
  CHECK_ST(fcd_contact_set_set_restitution(cs, 1.5), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_contact_set_set_restitution(cs, -0.1), FCD_E_INVALID_ARG);
  CHECK(fcd_contact_set_size(NULL) == -1);
  fcd_contact_set_destroy(NULL);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
}

static void test_read(void) {
  fcd_system *sys;
  CHECK_ST(fcd_system_create(12, &sys), FCD_OK);
  char p[512];
  fcdt_tmpfile(p, sizeof p, "contacts.txt");
  write_file(p, "# two contacts\nfcd-contacts 1\ndim 3\n"
                "rigid   0 1 2                 0 0 1    1 0 0   0.0  0.3\n"
                "pair    3 4 5  6 7 8          0 0 1    1 0 0   0.01 0.5  2.5 0  # disc\n");
  fcd_contact_set *cs = NULL;
  CHECK_ST(fcd_contact_set_read(sys, p, &cs), FCD_OK);
  CHECK(fcd_contact_set_size(cs) == 2 && fcd_contact_set_dim(cs) == 3);
  double gap, mu;
  int pair;
  CHECK_ST(fcd_contact_set_get(cs, 1, NULL, &gap, &mu, &pair), FCD_OK);
  CHECK(pair && gap == 0.01 && mu == 0.5);
  fcd_contact_set_destroy(cs);
  struct {
    const char *text, *msg;
    int st;
  } bad[] = {
      {"fcd-contacts 3\n", ":1: expected the header", FCD_E_FORMAT},
      {"fcd-contacts 1\ndim 4\n", ":2: expected 'dim 2' or 'dim 3'", FCD_E_FORMAT},
      {"fcd-contacts 1\ndim 2\nrigid 0 1 0 -1 1 0 0\n", ":3: a 2D rigid contact has 8 or 9",
       FCD_E_FORMAT},
      {"fcd-contacts 1\ndim 2\nball 0 1 0 -1 1 0 0 0.1\n", ":3: unknown contact kind 'ball'",
       FCD_E_FORMAT},
      {"fcd-contacts 1\ndim 2\nrigid 0 1 0 -1 1 0 x 0.1\n", ":3: a field is not a number",
       FCD_E_FORMAT},
      {"fcd-contacts 1\ndim 2\nrigid 0 1 0 -1 1 0 0 0.1\nrigid 0 99 0 -1 1 0 0 0.1\n",
       ":4: contact 1: dof 99 outside", FCD_E_INVALID_ARG},
      {"fcd-contacts 1\ndim 2\nrigid 0 1 0 -2 1 0 0 0.1\n", ":3: contact 0: the normal has norm 2",
       FCD_E_INVALID_ARG},
      {"fcd-contacts 1\n", "ends before its 'dim' line", FCD_E_FORMAT},
  };
  for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
    write_file(p, bad[k].text);
    cs = (fcd_contact_set *)0x1;
    CHECK_ST(fcd_contact_set_read(sys, p, &cs), bad[k].st);
    CHECK(cs == NULL);
    CHECK_MSG(sys, bad[k].msg);
  }
  fcdt_tmpfile(p, sizeof p, "no-such-contacts.txt");
  remove(p);
  CHECK_ST(fcd_contact_set_read(sys, p, &cs), FCD_E_IO);
  /* vectors */
  double x[3];
  fcdt_tmpfile(p, sizeof p, "vec.txt");
  write_file(p, "1 2 # two\n3.5\n");
  CHECK_ST(fcd_system_read_vector(sys, p, 3, x), FCD_OK);
  CHECK(x[0] == 1 && x[1] == 2 && x[2] == 3.5);
  CHECK_ST(fcd_system_read_vector(sys, p, 4, x), FCD_E_FORMAT);
  CHECK_MSG(sys, "3 values, expected 4");
  write_file(p, "1 nan 3\n");
  CHECK_ST(fcd_system_read_vector(sys, p, 3, x), FCD_E_FORMAT);
  CHECK_MSG(sys, ":1: 'nan' is not a finite number");
  fcd_system_destroy(sys);
}

/* Issue 64: what a contact set refuses by name, or keeps, beyond plain bad values.
 * Repeats of one constraint (a rigid contact twice, rows repeating a rigid contact on the
 * same node and normal, a surface pair given twice, a segment listed twice), rows whose N
 * and T are parallel, weights outside [1e-100, 1e100]; kept: opposite normals on one node
 * (two walls), two normals on one node (a corner). On surface pairs: a node on both
 * surfaces, a slave segment reversed against its neighbour, a prescribed slave node that
 * faces the master. Every refusal leaves the set as it was. */
static void test_refusals_by_name(void) {
  fcd_system *sys;
  CHECK_ST(fcd_system_create(16, &sys), FCD_OK);
  fcd_contact_set *cs;
  CHECK_ST(fcd_contact_set_create(sys, 2, &cs), FCD_OK);
  const fcd_index n0[2] = {0, 1};
  const double down[2] = {0, -1}, up[2] = {0, 1}, ex[2] = {1, 0}, diag[2] = {0.6, -0.8},
               tdiag[2] = {0.8, 0.6};
  CHECK_ST(fcd_contact_set_add_rigid(cs, n0, down, ex, 0.0, 0.3, NULL), FCD_OK);
  CHECK_ST(fcd_contact_set_add_rigid(cs, n0, down, ex, 0.5, 0.1, NULL), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "contact 1 repeats contact 0");
  CHECK_ST(fcd_contact_set_add_rigid(cs, n0, up, ex, 0.0, 0.3, NULL), FCD_OK); /* two walls */
  CHECK_ST(fcd_contact_set_add_rigid(cs, n0, diag, tdiag, 0.0, 0.3, NULL), FCD_OK); /* corner */
  /* the same constraint as rows, scaled by 2: a repeat */
  const fcd_index rp[3] = {0, 1, 2}, rd[2] = {1, 0};
  const double rw[2] = {-2.0, 1.0};
  CHECK_ST(fcd_contact_set_add_rows(cs, rp, rd, rw, 0.0, 0.3, NULL), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "repeats contact 0");
  /* N and T parallel (the same dof): friction along the normal */
  const fcd_index pd[2] = {3, 3};
  const double pw[2] = {1.0, -2.0};
  CHECK_ST(fcd_contact_set_add_rows(cs, rp, pd, pw, 0.0, 0.3, NULL), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "rows N and T are parallel");
  /* weights out of range: 1e-300 was "only zero weights", 1e200 failed to converge */
  const fcd_index wd[2] = {5, 4};
  const double tiny[2] = {1e-300, 1.0}, huge[2] = {1.0, 1e200};
  CHECK_ST(fcd_contact_set_add_rows(cs, rp, wd, tiny, 0.0, 0.3, NULL), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "row 0's largest weight is 1e-300");
  CHECK_ST(fcd_contact_set_add_rows(cs, rp, wd, huge, 0.0, 0.3, NULL), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "outside [1e-100, 1e100]");
  CHECK(fcd_contact_set_size(cs) == 3);
  fcd_contact_set_destroy(cs);
  /* surface pairs on two touching surfaces at y = 1: master nodes 0-1-2, slave 3-4-5 at
   * the same points (nodes 6 and 7 are not on them) */
  const double xy[16] = {0, 1, 0.5, 1, 1, 1, 0, 1, 0.5, 1, 1, 1, 0, 0, 0, 2};
  fcd_mesh *m;
  CHECK_ST(fcd_mesh_create(sys, 2, 8, xy, NULL, &m), FCD_OK);
  CHECK_ST(fcd_contact_set_create(sys, 2, &cs), FCD_OK);
  const fcd_index slave[4] = {3, 4, 4, 5}, master[4] = {2, 1, 1, 0};
  const fcd_index twice[6] = {3, 4, 4, 5, 3, 4}, reversed[4] = {4, 3, 4, 5},
                  shared[4] = {3, 4, 4, 2};
  CHECK_ST(fcd_contact_set_add_surface_pair(cs, m, 2, slave, 2, master, FCD_SURFACE_DUAL_MORTAR,
                                            0.2, NULL, NULL), FCD_OK);
  fcd_index n1 = fcd_contact_set_size(cs);
  CHECK(n1 == 3);
  CHECK_ST(fcd_contact_set_add_surface_pair(cs, m, 2, slave, 2, master, FCD_SURFACE_DUAL_MORTAR,
                                            0.2, NULL, NULL), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "contact 3 repeats contact 0");
  CHECK(fcd_contact_set_size(cs) == n1); /* all or nothing */
  fcd_contact_set_destroy(cs);
  CHECK_ST(fcd_contact_set_create(sys, 2, &cs), FCD_OK);
  CHECK_ST(fcd_contact_set_add_surface_pair(cs, m, 3, twice, 2, master, FCD_SURFACE_DUAL_MORTAR,
                                            0.2, NULL, NULL), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "slave segment 2 (nodes 3, 4) repeats segment 0");
  /* touching surfaces: the reversed segment's own order decides its normal, which cancels
   * its neighbour's at node 4 */
  CHECK_ST(fcd_contact_set_add_surface_pair(cs, m, 2, reversed, 2, master,
                                            FCD_SURFACE_NODE_TO_SEGMENT, 0.2, NULL, NULL),
           FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "the normals of the slave segments at node 4 cancel");
  CHECK_ST(fcd_contact_set_add_surface_pair(cs, m, 2, shared, 2, master, FCD_SURFACE_DUAL_MORTAR,
                                            0.2, NULL, NULL), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "node 2 is on both the slave surface");
  const fcd_index fx[2] = {8, 9}; /* node 4, the slave's middle, faces the master */
  CHECK_ST(fcd_system_fix_dofs(sys, 2, fx, NULL), FCD_OK);
  CHECK_ST(fcd_contact_set_add_surface_pair(cs, m, 2, slave, 2, master,
                                            FCD_SURFACE_NODE_TO_SEGMENT, 0.2, NULL, NULL),
           FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "slave node 4 faces the master surface but its dof 8 is prescribed");
  CHECK(fcd_contact_set_size(cs) == 0);
  fcd_contact_set_destroy(cs);
  fcd_mesh_destroy(m);
  fcd_system_destroy(sys);
}

int main(void) {
  test_refusals_by_name();
  test_operator();
  test_read();
  test_bad_input();
  return fcdt_finish("test_contact_set");
}
