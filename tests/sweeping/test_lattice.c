/* Lattice spring models: the paper's generators against its published sizes (seed 001
 * section 6: 150 nodes, 527 springs, 21 constraints, self-stress dimension 248 for the
 * 10 x 15 rectangular lattice; 157, 404, 21, 111 for the triangular one), defects, and
 * bad input. */
#include <fcd/fcd.h>

#include <math.h>
#include <string.h>

#include "../fcdtest.h"

static void test_rect(void) {
  fcd_lattice *lat;
  CHECK_ST(fcd_lattice_create_rect(10, 15, 1.0, 1.0, 0.01, 0.3, 1.1, 0.1, &lat), FCD_OK);
  fcd_index n, m, q, dv;
  CHECK_ST(fcd_lattice_sizes(lat, &n, &m, &q), FCD_OK);
  CHECK(n == 150 && m == 527 && q == 21);
  CHECK_ST(fcd_lattice_selfstress_dim(lat, &dv), FCD_OK);
  CHECK(dv == 248);
  /* 135 horizontal, 140 vertical, 252 diagonal springs, every length 1 or sqrt 2 */
  int hor = 0, ver = 0, dia = 0;
  for (fcd_index i = 0; i < m; i++) {
    fcd_index a, b;
    double xa[2], xb[2], k, c0, s, h;
    CHECK_ST(fcd_lattice_get_spring(lat, i, &a, &b, &k, &c0, &s, &h), FCD_OK);
    fcd_lattice_get_node(lat, a, xa);
    fcd_lattice_get_node(lat, b, xb);
    double dx = fabs(xb[0] - xa[0]), dy = fabs(xb[1] - xa[1]);
    hor += dx == 1 && dy == 0;
    ver += dx == 0 && dy == 1;
    dia += dx == 1 && dy == 1;
    CHECK(k == 1 && c0 == 0.01 && s == 0.3 && h == 1.1);
  }
  CHECK(hor == 135 && ver == 140 && dia == 252);
  /* the author's coordinates: node 15 i + j at (i - 4.5, j) */
  double x[2];
  CHECK_ST(fcd_lattice_get_node(lat, 15 * 6 + 4, x), FCD_OK);
  CHECK(x[0] == 1.5 && x[1] == 4);
  /* the defect of section 6.1.2 leaves the topology */
  const double dx[2] = {0.3, -0.35};
  CHECK_ST(fcd_lattice_move_node(lat, 15 * 6 + 4, dx), FCD_OK);
  CHECK_ST(fcd_lattice_get_node(lat, 15 * 6 + 4, x), FCD_OK);
  CHECK(fabs(x[0] - 1.8) < 1e-15 && fabs(x[1] - 3.65) < 1e-15);
  CHECK_ST(fcd_lattice_selfstress_dim(lat, &dv), FCD_OK);
  CHECK(dv == 248);
  fcd_lattice_destroy(lat);
}

static void test_tri(void) {
  fcd_lattice *lat;
  CHECK_ST(fcd_lattice_create_tri(10, 15, 1.0, 1.0, 0.01, 0.2, 1.1, 0.1, &lat), FCD_OK);
  fcd_index n, m, q, dv;
  CHECK_ST(fcd_lattice_sizes(lat, &n, &m, &q), FCD_OK);
  CHECK(n == 157 && m == 404 && q == 21);
  CHECK_ST(fcd_lattice_selfstress_dim(lat, &dv), FCD_OK);
  CHECK(dv == 111);
  /* every spring has unit length (equilateral triangles) */
  double worst = 0;
  for (fcd_index i = 0; i < m; i++) {
    fcd_index a, b;
    double xa[2], xb[2];
    fcd_lattice_get_spring(lat, i, &a, &b, NULL, NULL, NULL, NULL);
    fcd_lattice_get_node(lat, a, xa);
    fcd_lattice_get_node(lat, b, xb);
    worst = fmax(worst, fabs(hypot(xb[0] - xa[0], xb[1] - xa[1]) - 1));
  }
  CHECK(worst < 1e-14);
  fcd_lattice_destroy(lat);
}

static void test_bad_input(void) {
  fcd_lattice *lat;
  CHECK_ST(fcd_lattice_create(4, &lat), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_lattice_create(2, &lat), FCD_OK);
  const double x0[2] = {0, 0}, x1[2] = {1, 0}, x2[2] = {0, 1};
  fcd_index a, b, c;
  CHECK_ST(fcd_lattice_add_node(lat, x0, &a), FCD_OK);
  CHECK_ST(fcd_lattice_add_node(lat, x1, &b), FCD_OK);
  CHECK_ST(fcd_lattice_add_node(lat, x0, &c), FCD_OK); /* coincides with a */
  CHECK_ST(fcd_lattice_add_spring(lat, a, b, 0.0, 0.01, 0.3, 1.1, NULL), FCD_E_INVALID_ARG);
  CHECK(strstr(fcd_lattice_last_error(lat), "k = 0") != NULL);
  CHECK_ST(fcd_lattice_add_spring(lat, a, b, 1.0, -1.0, 0.3, 1.1, NULL), FCD_E_INVALID_ARG);
  CHECK(strstr(fcd_lattice_last_error(lat), "c0") != NULL);
  CHECK_ST(fcd_lattice_add_spring(lat, a, b, 1.0, 0.01, -0.3, 1.1, NULL), FCD_E_INVALID_ARG);
  CHECK(strstr(fcd_lattice_last_error(lat), "s = -0.3") != NULL);
  CHECK_ST(fcd_lattice_add_spring(lat, a, c, 1.0, 0.01, 0.3, 1.1, NULL), FCD_E_INVALID_ARG);
  CHECK(strstr(fcd_lattice_last_error(lat), "coincide") != NULL);
  CHECK_ST(fcd_lattice_add_spring(lat, a, a, 1.0, 0.01, 0.3, 1.1, NULL), FCD_E_INVALID_ARG);
  fcd_lattice_destroy(lat);
  /* a mechanism: a triangle held only in y at two nodes can slide in x */
  CHECK_ST(fcd_lattice_create(2, &lat), FCD_OK);
  CHECK_ST(fcd_lattice_add_node(lat, x0, &a), FCD_OK);
  CHECK_ST(fcd_lattice_add_node(lat, x1, &b), FCD_OK);
  CHECK_ST(fcd_lattice_add_node(lat, x2, &c), FCD_OK);
  CHECK_ST(fcd_lattice_add_spring(lat, a, b, 1, 0.01, 0.3, 1.1, NULL), FCD_OK);
  CHECK_ST(fcd_lattice_add_spring(lat, b, c, 1, 0.01, 0.3, 1.1, NULL), FCD_OK);
  CHECK_ST(fcd_lattice_add_spring(lat, c, a, 1, 0.01, 0.3, 1.1, NULL), FCD_OK);
  CHECK_ST(fcd_lattice_constrain(lat, a, 1, 0, 0), FCD_OK);
  CHECK_ST(fcd_lattice_constrain(lat, b, 1, 0, 0), FCD_OK);
  CHECK_ST(fcd_lattice_constrain(lat, b, 1, 0, 0), FCD_E_INVALID_ARG);
  CHECK(strstr(fcd_lattice_last_error(lat), "already") != NULL);
  fcd_index dv;
  CHECK_ST(fcd_lattice_selfstress_dim(lat, &dv), FCD_E_SINGULAR);
  CHECK(strstr(fcd_lattice_last_error(lat), "mechanism") != NULL);
  /* pinning x removes it: 3 springs, 6 - 3 free coordinates, no self-stress */
  CHECK_ST(fcd_lattice_constrain(lat, a, 0, 0, 0), FCD_OK);
  CHECK_ST(fcd_lattice_selfstress_dim(lat, &dv), FCD_OK);
  CHECK(dv == 0);
  const double far[2] = {-1, 0};
  CHECK_ST(fcd_lattice_move_node(lat, b, far), FCD_E_INVALID_ARG); /* onto node a */
  CHECK(strstr(fcd_lattice_last_error(lat), "coincident") != NULL);
  fcd_lattice_destroy(lat);
}

int main(void) {
  test_rect();
  test_tri();
  test_bad_input();
  fcd_finalize();
  return fcdt_finish("test_lattice");
}
