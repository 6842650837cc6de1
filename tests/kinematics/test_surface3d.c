/* 3D surface pairs (fcd_contact_set_add_surface_pair with facets, issue 22), checked on
 * the rows themselves, read back through the public operator H^T:
 *
 * A slave surface of 2 x 2 quadrilaterals on the unit square at z = h, facing a master
 * surface of 3 x 3 squares cut into triangles at z = 0 (non-matching), normal (0, 0, -1)
 * from the slave into the master. For any linear field u(x) = a + B x, with x_m the
 * master point under a slave point (its x, y, z = 0):
 *  - dual mortar: sum_k M_jk u_k = int psi_j u(x_m) and, psi_j biorthogonal to the slave
 *    shape functions that interpolate x and y exactly, int psi_j (x, y) = D_j (x_j, y_j),
 *    so row N . u = D_j n . B (0, 0, h) and row T . u = D_j t . B (0, 0, h), with
 *    D_j = int N_j (1/16 corner, 1/8 edge, 1/4 centre) and gap g_j = h D_j;
 *  - node-to-facet: row N . u = n . (u(x_j) - u(x_m)) = n . B (0, 0, h), gap h.
 * Every row is blind to a rigid translation (a = anything, B = 0) by construction.
 * Bad input: a node id out of the mesh, a repeated node, a -1 where a triangle cannot
 * have it, a mesh of another dimension, surfaces that do not face each other. */
#include <fcd/fcd.h>

#include <math.h>
#include <string.h>

#include "../fcdtest.h"

#define NS 3  /* slave grid nodes per side (2 x 2 quadrilaterals) */
#define NM 4  /* master grid nodes per side (3 x 3 squares, 18 triangles) */
#define NN (NS * NS + NM * NM)

static const double h = 0.01;

static void geometry(double xyz[NN][3], fcd_index sq[4][4], fcd_index mt[18][4]) {
  for (int j = 0; j < NS; j++)
    for (int i = 0; i < NS; i++) {
      xyz[i + NS * j][0] = i / (NS - 1.0);
      xyz[i + NS * j][1] = j / (NS - 1.0);
      xyz[i + NS * j][2] = h;
    }
  for (int j = 0; j < NM; j++)
    for (int i = 0; i < NM; i++) {
      int p = NS * NS + i + NM * j;
      xyz[p][0] = i / (NM - 1.0);
      xyz[p][1] = j / (NM - 1.0);
      xyz[p][2] = 0;
    }
  int e = 0;
  for (int j = 0; j + 1 < NS; j++)
    for (int i = 0; i + 1 < NS; i++) {
      /* counter-clockwise seen from below (the slave body is above) */
      sq[e][0] = i + NS * j;
      sq[e][1] = i + NS * (j + 1);
      sq[e][2] = i + 1 + NS * (j + 1);
      sq[e++][3] = i + 1 + NS * j;
    }
  e = 0;
  for (int j = 0; j + 1 < NM; j++)
    for (int i = 0; i + 1 < NM; i++) {
      fcd_index a = NS * NS + i + NM * j, b = a + 1, c = a + 1 + NM, d = a + NM;
      const fcd_index t1[4] = {a, b, c, -1}, t2[4] = {a, c, d, -1};
      memcpy(mt[e++], t1, sizeof t1);
      memcpy(mt[e++], t2, sizeof t2);
    }
}

static double row_dot(const fcd_contact_set *cs, fcd_index c, int k, const double *u, int n) {
  fcd_index nc = fcd_contact_set_size(cs);
  double r[3 * 64] = {0}, f[3 * NN];
  r[3 * c + k] = 1;
  CHECK_ST(fcd_contact_set_global(cs, r, f), FCD_OK);
  (void)nc;
  double s = 0;
  for (int i = 0; i < n; i++) s += f[i] * u[i];
  return s;
}

static void rows_against_linear_fields(fcd_surface_method method) {
  double xyz[NN][3];
  fcd_index sq[4][4], mt[18][4];
  geometry(xyz, sq, mt);
  fcd_system *sys = NULL;
  CHECK_ST(fcd_system_create(3 * NN, &sys), FCD_OK);
  fcd_mesh *mesh = NULL;
  CHECK_ST(fcd_mesh_create(sys, 3, NN, &xyz[0][0], NULL, &mesh), FCD_OK);
  fcd_contact_set *cs = NULL;
  CHECK_ST(fcd_contact_set_create(sys, 3, &cs), FCD_OK);
  fcd_index first = -7, inactive = -7;
  CHECK_ST(fcd_contact_set_add_surface_pair(cs, mesh, 4, &sq[0][0], 18, &mt[0][0], method, 0.2,
                                            &first, &inactive),
           FCD_OK);
  CHECK(first == 0 && inactive == 0 && fcd_contact_set_size(cs) == NS * NS);
  /* the contacts come in increasing slave node id: contact j is node j */
  const double B[3][3] = {{0.3, -0.2, 0.7}, {0.1, 0.4, -0.5}, {0.25, -0.6, 0.9}};
  const double a[3] = {1.5, -2.0, 0.75};
  double u[3 * NN], ut[3 * NN];
  for (int p = 0; p < NN; p++)
    for (int c = 0; c < 3; c++) {
      u[3 * p + c] = a[c];
      for (int k = 0; k < 3; k++) u[3 * p + c] += B[c][k] * xyz[p][k];
      ut[3 * p + c] = a[c]; /* a rigid translation */
    }
  double worst = 0;
  for (fcd_index j = 0; j < NS * NS; j++) {
    int i = (int)j % NS, jj = (int)j / NS;
    int edges = (i == 0 || i == NS - 1) + (jj == 0 || jj == NS - 1);
    double D = method == FCD_SURFACE_DUAL_MORTAR ? (edges == 2 ? 1.0 / 16 : edges ? 1.0 / 8 : 0.25)
                                                 : 1.0;
    double frame[9], gap, mu;
    int pair;
    /* rows contacts have no frame: the expected values use the rows' own directions,
     * read from the N and T rows on the slave node's dofs (weight D times n, t) */
    CHECK_ST(fcd_contact_set_get(cs, j, NULL, &gap, &mu, &pair), FCD_OK);
    CHECK(mu == 0.2 && !pair);
    CHECK_CLOSE(gap, h * D, 1e-12);
    double r[3 * 64] = {0}, f[3 * NN];
    for (int k = 0; k < 3; k++) {
      memset(r, 0, sizeof r);
      r[3 * j + k] = 1;
      CHECK_ST(fcd_contact_set_global(cs, r, f), FCD_OK);
      for (int c = 0; c < 3; c++) frame[3 * k + c] = f[3 * j + c] / D;
    }
    CHECK(fabs(frame[0]) < 1e-14 && fabs(frame[1]) < 1e-14 && fabs(frame[2] + 1) < 1e-14);
    for (int k = 0; k < 3; k++) {
      /* expected: D dir_k . B (0, 0, h) */
      double want = 0;
      for (int c = 0; c < 3; c++) want += D * frame[3 * k + c] * B[c][2] * h;
      double got = row_dot(cs, j, k, u, 3 * NN);
      worst = fmax(worst, fabs(got - want));
      CHECK(fabs(got - want) < 1e-14);
      CHECK(fabs(row_dot(cs, j, k, ut, 3 * NN)) < 1e-14);
    }
  }
  fprintf(stderr, "3D %s rows against linear fields: worst %.2e\n",
          method == FCD_SURFACE_DUAL_MORTAR ? "dual mortar" : "node-to-facet", worst);
  fcd_contact_set_destroy(cs);
  fcd_mesh_destroy(mesh);
  fcd_system_destroy(sys);
}

static void bad_input(void) {
  double xyz[NN][3];
  fcd_index sq[4][4], mt[18][4];
  geometry(xyz, sq, mt);
  fcd_system *sys = NULL;
  CHECK_ST(fcd_system_create(3 * NN, &sys), FCD_OK);
  fcd_mesh *mesh = NULL, *flat = NULL;
  CHECK_ST(fcd_mesh_create(sys, 3, NN, &xyz[0][0], NULL, &mesh), FCD_OK);
  fcd_contact_set *cs = NULL;
  CHECK_ST(fcd_contact_set_create(sys, 3, &cs), FCD_OK);
  fcd_index bad[4][4];
  memcpy(bad, sq, sizeof bad);
  bad[1][2] = NN;
  CHECK_ST(fcd_contact_set_add_surface_pair(cs, mesh, 4, &bad[0][0], 18, &mt[0][0],
                                            FCD_SURFACE_DUAL_MORTAR, 0, NULL, NULL),
           FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "slave facet 1 has node 25");
  memcpy(bad, sq, sizeof bad);
  bad[3][3] = bad[3][0];
  CHECK_ST(fcd_contact_set_add_surface_pair(cs, mesh, 4, &bad[0][0], 18, &mt[0][0],
                                            FCD_SURFACE_NODE_TO_SEGMENT, 0, NULL, NULL),
           FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "slave facet 3 has node 4 twice");
  memcpy(bad, sq, sizeof bad);
  bad[0][1] = -1; /* -1 only as a triangle's fourth */
  CHECK_ST(fcd_contact_set_add_surface_pair(cs, mesh, 4, &bad[0][0], 18, &mt[0][0],
                                            FCD_SURFACE_DUAL_MORTAR, 0, NULL, NULL),
           FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "slave facet 0 has node -1");
  /* the master moved 5 aside in x: no slave node finds a master facet along its normal */
  double far[NN][3];
  memcpy(far, xyz, sizeof far);
  for (int p = NS * NS; p < NN; p++) far[p][0] += 5;
  fcd_mesh *away = NULL;
  CHECK_ST(fcd_mesh_create(sys, 3, NN, &far[0][0], NULL, &away), FCD_OK);
  CHECK_ST(fcd_contact_set_add_surface_pair(cs, away, 4, &sq[0][0], 18, &mt[0][0],
                                            FCD_SURFACE_DUAL_MORTAR, 0, NULL, NULL),
           FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "do not face each other");
  /* a 2D mesh for a 3D set */
  double xy[NN][2];
  for (int p = 0; p < NN; p++) xy[p][0] = xyz[p][0], xy[p][1] = xyz[p][1];
  fcd_system *sys2 = NULL;
  CHECK_ST(fcd_system_create(2 * NN, &sys2), FCD_OK);
  CHECK_ST(fcd_mesh_create(sys2, 2, NN, &xy[0][0], NULL, &flat), FCD_OK);
  CHECK_ST(fcd_contact_set_add_surface_pair(cs, flat, 4, &sq[0][0], 18, &mt[0][0],
                                            FCD_SURFACE_DUAL_MORTAR, 0, NULL, NULL),
           FCD_E_INVALID_ARG);
  CHECK(fcd_contact_set_size(cs) == 0);
  fcd_mesh_destroy(flat);
  fcd_mesh_destroy(away);
  fcd_system_destroy(sys2);
  fcd_contact_set_destroy(cs);
  fcd_mesh_destroy(mesh);
  fcd_system_destroy(sys);
}

int main(void) {
  rows_against_linear_fields(FCD_SURFACE_DUAL_MORTAR);
  rows_against_linear_fields(FCD_SURFACE_NODE_TO_SEGMENT);
  bad_input();
  fcd_finalize();
  return fcdt_finish("test_surface3d");
}
