/* Matrix files of other programs (tests/data/import/README.md), told from their content:
 * the same Harwell-Boeing matrix written by two programs in two layouts reads to the
 * same entries; the Abaqus beam's stiffness, through the dof map, holds the closed-form
 * Euler-Bernoulli terms its section and length give; refusals name the cause. */
#include <fcd/fcd.h>

#include "../fcdtest.h"

static const char *data_dir;

static char *path_of(const char *name) {
  static char buf[4][1024];
  static int k;
  k = (k + 1) % 4;
  snprintf(buf[k], sizeof buf[k], "%s/%s", data_dir, name);
  return buf[k];
}

static fcd_matrix_file *read_ok(const char *name, fcd_matrix_file_info *in) {
  fcd_matrix_file *m = NULL;
  char err[512];
  fcd_status st = fcd_matrix_file_read(path_of(name), FCD_MATRIX_FORMAT_AUTO, &m, err,
                                       sizeof err);
  CHECK_ST(st, FCD_OK);
  if (st != FCD_OK) {
    fprintf(stderr, "%s: %s\n", name, err);
    return NULL;
  }
  in->struct_size = sizeof *in;
  CHECK_ST(fcd_matrix_file_get_info(m, in), FCD_OK);
  return m;
}

/* the dense matrix of an indexed file set on a system of its order (column by column
 * through fcd_system_apply) */
static double *dense_of(const fcd_matrix_file *m, fcd_index n) {
  fcd_system *sys = NULL;
  CHECK_ST(fcd_system_create(n, &sys), FCD_OK);
  CHECK_ST(fcd_system_set_matrix_file(sys, FCD_STIFFNESS, m, NULL), FCD_OK);
  double *a = calloc((size_t)(n * n), sizeof *a), *e = calloc((size_t)n, sizeof *e);
  for (fcd_index j = 0; j < n; j++) {
    e[j] = 1;
    CHECK_ST(fcd_system_apply(sys, FCD_STIFFNESS, e, a + j * n), FCD_OK);
    e[j] = 0;
  }
  free(e);
  fcd_system_destroy(sys);
  return a;
}

static void test_harwell_boeing(void) {
  fcd_matrix_file_info a, b, w;
  fcd_matrix_file *hb = read_ok("bcsstk01.rsa", &a);
  fcd_matrix_file *rb = read_ok("bcsstk01.rb", &b);
  if (!hb || !rb) return;
  CHECK(a.format == FCD_MATRIX_FORMAT_HARWELL_BOEING && b.format == a.format);
  CHECK(a.symmetric && b.symmetric && !a.labelled && !b.labelled);
  CHECK(a.nrows == 48 && a.ncols == 48 && a.nnz == 224);
  CHECK(b.nrows == 48 && b.ncols == 48 && b.nnz == 224);
  CHECK(!strcmp(a.name, "BCSSTK01"));
  /* two programs, two layouts of the fields (16I5 against 20I4 and 26I3): one matrix */
  double *da = dense_of(hb, 48), *db = dense_of(rb, 48);
  double worst = 0, scale = 0, asym = 0;
  for (int k = 0; k < 48 * 48; k++) {
    worst = fmax(worst, fabs(da[k] - db[k]));
    scale = fmax(scale, fabs(da[k]));
  }
  for (int i = 0; i < 48; i++)
    for (int j = 0; j < 48; j++) asym = fmax(asym, fabs(da[i * 48 + j] - da[j * 48 + i]));
  printf("bcsstk01: .rsa against .rb, largest difference %.3g of %.3g; asymmetry %.3g\n",
         worst, scale, asym);
  CHECK(scale > 1e9 && worst <= 1e-12 * scale && asym == 0);
  /* a stiffness matrix: the diagonal positive */
  int posdiag = 1;
  for (int i = 0; i < 48; i++) posdiag &= da[i * 48 + i] > 0;
  CHECK(posdiag);
  free(da);
  free(db);
  fcd_matrix_file_destroy(hb);
  fcd_matrix_file_destroy(rb);
  fcd_matrix_file *wm = read_ok("west0479.rua", &w);
  if (wm) {
    CHECK(!w.symmetric && w.nrows == 479 && w.nnz == 1910 && !strcmp(w.name, "WEST0479"));
    fcd_matrix_file_destroy(wm);
  }
}

static void test_abaqus(void) {
  fcd_matrix_file_info k, m;
  fcd_matrix_file *K = read_ok("abaqus_b33/model_STIF1.mtx", &k);
  fcd_matrix_file *M = read_ok("abaqus_b33/model_MASS1.mtx", &m);
  if (!K || !M) return;
  CHECK(k.format == FCD_MATRIX_FORMAT_ABAQUS_MATRIX && m.format == k.format);
  CHECK(k.labelled && k.symmetric && k.nnz == 33);
  /* nodes 1 and 2 with six dofs each, the internal node -1 with two */
  CHECK(k.nrows == 14 && k.ncols == 14);
  fcd_dofmap *map = NULL;
  CHECK_ST(fcd_dofmap_create(&map), FCD_OK);
  CHECK_ST(fcd_dofmap_add_matrix(map, K), FCD_OK);
  CHECK_ST(fcd_dofmap_add_matrix(map, M), FCD_OK);
  fcd_index n = fcd_dofmap_size(map);
  CHECK(n == 14);
  /* sorted by label as a signed integer, then dof */
  int64_t lab = 0;
  int dof = 0;
  fcd_index i11 = -1, i12 = -1, i14 = -1, i16 = -1, i22 = -1;
  CHECK_ST(fcd_dofmap_pair(map, 0, &lab, &dof), FCD_OK);
  CHECK(lab == -1 && dof == 1);
  CHECK_ST(fcd_dofmap_index(map, 1, 1, &i11), FCD_OK);
  CHECK(i11 == 2);
  CHECK_ST(fcd_dofmap_index(map, 1, 2, &i12), FCD_OK);
  CHECK_ST(fcd_dofmap_index(map, 1, 4, &i14), FCD_OK);
  CHECK_ST(fcd_dofmap_index(map, 1, 6, &i16), FCD_OK);
  CHECK_ST(fcd_dofmap_index(map, 2, 2, &i22), FCD_OK);
  fcd_index none = 0;
  CHECK_ST(fcd_dofmap_index(map, 3, 1, &none), FCD_E_INVALID_ARG);
  CHECK(none == -1);
  fcd_system *sys = NULL;
  CHECK_ST(fcd_system_create(n, &sys), FCD_OK);
  CHECK_ST(fcd_system_set_matrix_file(sys, FCD_STIFFNESS, K, map), FCD_OK);
  CHECK_ST(fcd_system_set_matrix_file(sys, FCD_MASS, M, map), FCD_OK);
  /* a labelled matrix needs the map */
  CHECK_ST(fcd_system_set_matrix_file(sys, FCD_DAMPING, K, NULL), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "dof map");
  double e[14] = {0}, col[14] = {0};
  e[i12] = 1;
  CHECK_ST(fcd_system_apply(sys, FCD_STIFFNESS, e, col), FCD_OK);
  /* model.inp: L = 3, E = 100e6, G = 80e6, I = 1.5e-4, J = 3e-4 */
  const double L = 3, E = 100e6, G = 80e6, I = 1.5e-4, J = 3e-4;
  CHECK_CLOSE(col[i12], 12 * E * I / (L * L * L), 1e-12);
  CHECK_CLOSE(col[i22], -12 * E * I / (L * L * L), 1e-12);
  CHECK_CLOSE(col[i16], 6 * E * I / (L * L), 1e-12);
  e[i12] = 0;
  e[i14] = 1;
  CHECK_ST(fcd_system_apply(sys, FCD_STIFFNESS, e, col), FCD_OK);
  CHECK_CLOSE(col[i14], G * J / L, 1e-12);
  /* the map written out, one line a dof */
  char out[1024];
  const char *tmp = getenv("FCD_TEST_TMPDIR") ? getenv("FCD_TEST_TMPDIR") : ".";
  fcdt_mkdirs(tmp);
  snprintf(out, sizeof out, "%s/dofs.txt", tmp);
  char err[256];
  CHECK_ST(fcd_dofmap_write(map, out, err, sizeof err), FCD_OK);
  FILE *f = fopen(out, "r");
  int lines = 0;
  char line[256];
  while (f && fgets(line, sizeof line, f)) lines++;
  if (f) fclose(f);
  CHECK(lines == 15);
  fcd_system_destroy(sys);
  fcd_dofmap_destroy(map);
  fcd_matrix_file_destroy(K);
  fcd_matrix_file_destroy(M);
}

static void test_dmig(void) {
  fcd_matrix_file_info in;
  fcd_matrix_file *k = read_ok("nastran/dmig.pch:KAAX", &in);
  if (!k) return;
  CHECK(in.format == FCD_MATRIX_FORMAT_NASTRAN_DMIG && in.labelled && in.symmetric);
  CHECK(in.nrows == 15 && in.nnz == 29 && !strcmp(in.name, "KAAX"));
  fcd_dofmap *map = NULL;
  CHECK_ST(fcd_dofmap_create(&map), FCD_OK);
  CHECK_ST(fcd_dofmap_add_matrix(map, k), FCD_OK);
  fcd_index i101 = -1, i102 = -1;
  CHECK_ST(fcd_dofmap_index(map, 101, 1, &i101), FCD_OK);
  CHECK_ST(fcd_dofmap_index(map, 102, 1, &i102), FCD_OK);
  fcd_system *sys = NULL;
  CHECK_ST(fcd_system_create(fcd_dofmap_size(map), &sys), FCD_OK);
  CHECK_ST(fcd_system_set_matrix_file(sys, FCD_STIFFNESS, k, map), FCD_OK);
  double e[15] = {0}, col[15] = {0};
  e[i101] = 1;
  CHECK_ST(fcd_system_apply(sys, FCD_STIFFNESS, e, col), FCD_OK);
  /* the file's lines `101 1 1.556000000D+02` and, under column 102, `101 1 -1.556D+02` */
  CHECK(col[i101] == 155.6 && col[i102] == -155.6);
  fcd_system_destroy(sys);
  fcd_dofmap_destroy(map);
  fcd_matrix_file_destroy(k);
  /* several matrices and no name: the list */
  fcd_matrix_file *m = NULL;
  char err[512];
  CHECK_ST(fcd_matrix_file_read(path_of("nastran/dmig_sparse.pch"), FCD_MATRIX_FORMAT_AUTO, &m,
                                err, sizeof err), FCD_E_INVALID_ARG);
  CHECK(m == NULL && strstr(err, "KAAX, PAX"));
  CHECK_ST(fcd_matrix_file_read(path_of("nastran/dmig_sparse.pch:KGG"), FCD_MATRIX_FORMAT_AUTO,
                                &m, err, sizeof err), FCD_E_INVALID_ARG);
  CHECK(strstr(err, "no DMIG matrix 'KGG'"));
  /* small field: D and short exponents filling their fields, a continuation with a blank
   * first field; a free-field card */
  char gen[1024];
  const char *tmp = getenv("FCD_TEST_TMPDIR") ? getenv("FCD_TEST_TMPDIR") : ".";
  fcdt_mkdirs(tmp);
  snprintf(gen, sizeof gen, "%s/small.pch", tmp);
  FILE *f = fopen(gen, "w");
  fprintf(f, "$ written by this test\n"
             "DMIG    KX      0       6       2       0                       2\n"
             "DMIG    KX      10000   3               10000   3       1.D6    \n"
             "DMIG    KX      10001   3               10000   3       -1.556+2\n"
             "        10001   3       4.5-1   \n"
             "DMIG,KX,10002,3,,10002,3,2.5E+0\n");
  fclose(f);
  CHECK_ST(fcd_matrix_file_read(gen, FCD_MATRIX_FORMAT_AUTO, &m, err, sizeof err), FCD_OK);
  if (m) {
    fcd_dofmap *gm = NULL;
    fcd_dofmap_create(&gm);
    fcd_dofmap_add_matrix(gm, m);
    CHECK(fcd_dofmap_size(gm) == 3);
    fcd_system *gs = NULL;
    fcd_system_create(3, &gs);
    CHECK_ST(fcd_system_set_matrix_file(gs, FCD_STIFFNESS, m, gm), FCD_OK);
    double x[3] = {1, 0, 0}, y[3] = {0, 0, 0};
    fcd_system_apply(gs, FCD_STIFFNESS, x, y);
    CHECK(y[0] == 1e6 && y[1] == -155.6 && y[2] == 0);
    x[0] = 0;
    x[1] = 1;
    fcd_system_apply(gs, FCD_STIFFNESS, x, y);
    CHECK(y[0] == -155.6 && y[1] == 0.45);
    x[1] = 0;
    x[2] = 1;
    fcd_system_apply(gs, FCD_STIFFNESS, x, y);
    CHECK(y[2] == 2.5);
    fcd_system_destroy(gs);
    fcd_dofmap_destroy(gm);
    fcd_matrix_file_destroy(m);
    m = NULL;
  }
  fcd_matrix_file *sp = read_ok("nastran/dmig_sparse.pch:KAAX", &in);
  CHECK(sp && in.nrows == 36 && in.nnz == 220 && in.symmetric);
  fcd_matrix_file_destroy(sp);
}

/* Nastran's OP4: the same matrices written as text and binary, dense, sparse and BIGMAT */
static void test_op4(void) {
  static const char *const files[] = {"mat_t_dn", "mat_t_s1", "mat_t_s2",
                                      "mat_b_dn", "mat_b_s1", "mat_b_s2"};
  double *ref = NULL;
  for (int f = 0; f < 6; f++) {
    char spec[64];
    snprintf(spec, sizeof spec, "nastran/%s.op4:RND1RD", files[f]);
    fcd_matrix_file_info in;
    fcd_matrix_file *m = read_ok(spec, &in);
    if (!m) continue;
    CHECK(in.format == FCD_MATRIX_FORMAT_NASTRAN_OP4 && !in.labelled && in.nrows == 4);
    double *d = dense_of(m, 4);
    if (!ref) ref = d;
    else {
      int same = 1;
      for (int k = 0; k < 16; k++) same &= d[k] == ref[k];
      CHECK(same);
      free(d);
    }
    fcd_matrix_file_destroy(m);
  }
  free(ref);
  fcd_matrix_file_info in;
  fcd_matrix_file *eye = read_ok("nastran/mat_b_s2.op4:EYE10", &in);
  if (eye) {
    double *d = dense_of(eye, 10);
    int id = 1;
    for (int i = 0; i < 10; i++)
      for (int j = 0; j < 10; j++) id &= d[i * 10 + j] == (i == j);
    CHECK(id && in.symmetric);
    free(d);
    fcd_matrix_file_destroy(eye);
  }
  fcd_matrix_file *m = NULL;
  char err[512];
  CHECK_ST(fcd_matrix_file_read(path_of("nastran/mat_t_dn.op4:RND1CS"), FCD_MATRIX_FORMAT_AUTO,
                                &m, err, sizeof err), FCD_E_UNSUPPORTED);
  CHECK(strstr(err, "complex"));
  CHECK_ST(fcd_matrix_file_read(path_of("nastran/mat_t_dn.op4"), FCD_MATRIX_FORMAT_AUTO, &m, err,
                                sizeof err), FCD_E_INVALID_ARG);
  CHECK(strstr(err, "9 matrices"));
}

static void test_refusals(void) {
  fcd_matrix_file *m = NULL;
  char err[512];
  CHECK_ST(fcd_matrix_file_read(path_of("can_24.psa"), FCD_MATRIX_FORMAT_AUTO, &m, err,
                                sizeof err), FCD_E_UNSUPPORTED);
  CHECK(m == NULL && strstr(err, "pattern"));
  CHECK_ST(fcd_matrix_file_read(path_of("README.md"), FCD_MATRIX_FORMAT_AUTO, &m, err,
                                sizeof err), FCD_E_FORMAT);
  CHECK(strstr(err, "not a matrix file"));
  CHECK_ST(fcd_matrix_file_read(path_of("missing.rsa"), FCD_MATRIX_FORMAT_AUTO, &m, err,
                                sizeof err), FCD_E_IO);
  /* a name asked of a file with one matrix of another name */
  CHECK_ST(fcd_matrix_file_read(path_of("bcsstk01.rsa:KAAX"), FCD_MATRIX_FORMAT_AUTO, &m, err,
                                sizeof err), FCD_E_INVALID_ARG);
  CHECK(strstr(err, "BCSSTK01") && strstr(err, "KAAX"));
  CHECK_ST(fcd_matrix_file_read(path_of("bcsstk01.rsa:BCSSTK01"), FCD_MATRIX_FORMAT_AUTO, &m,
                                err, sizeof err), FCD_OK);
  fcd_matrix_file_destroy(m);
  /* an indexed matrix of another order than the system's */
  CHECK_ST(fcd_matrix_file_read(path_of("bcsstk01.rsa"), FCD_MATRIX_FORMAT_AUTO, &m, err,
                                sizeof err), FCD_OK);
  fcd_system *sys = NULL;
  CHECK_ST(fcd_system_create(47, &sys), FCD_OK);
  CHECK_ST(fcd_system_set_matrix_file(sys, FCD_MASS, m, NULL), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "48 x 48");
  fcd_system_destroy(sys);
  fcd_matrix_file_destroy(m);
  fcd_matrix_format f;
  CHECK_ST(fcd_matrix_format_from_name("harwell-boeing", &f), FCD_OK);
  CHECK(f == FCD_MATRIX_FORMAT_HARWELL_BOEING);
  CHECK(!strcmp(fcd_matrix_format_name(FCD_MATRIX_FORMAT_ABAQUS_MATRIX), "abaqus-matrix"));
  CHECK(!strcmp(fcd_matrix_format_name((fcd_matrix_format)99), "?"));
}

/* The meshes Gmsh and VTK wrote of two blocks (tests/data/import/gmsh): each format's
 * surfaces are the blocks' faces, the unit square (area 1) with their facets' normals out
 * of their block (+z on a top, -z on a bottom), whatever the format names them. */
static void mesh_faces(const char *file, fcd_index nnodes, const char *const names[4]) {
  char rel[128];
  snprintf(rel, sizeof rel, "gmsh/%s", file);
  char *p = path_of(rel);
  fcd_system *sys = NULL;
  fcd_mesh *m = NULL;
  CHECK(fcd_system_create(3 * nnodes, &sys) == FCD_OK);
  fcd_status st = fcd_mesh_read(sys, 3, p, &m);
  CHECK(st == FCD_OK);
  if (st != FCD_OK) fprintf(stderr, "%s\n", fcd_system_last_error(sys));
  const fcd_real *x = NULL;
  if (m) CHECK(fcd_mesh_get_coords(m, &x) == FCD_OK && fcd_mesh_node_count(m) == nnodes);
  static const double nz[4] = {1, -1, 1, -1}; /* lower_top, upper_bottom, upper_top, lower_bottom */
  for (int s = 0; m && s < 4; s++) {
    fcd_index nf = 0;
    const fcd_index *f = NULL;
    CHECK(fcd_mesh_get_surface(m, names[s], &nf, &f) == FCD_OK && nf > 0);
    double area = 0, worst = 0;
    for (fcd_index k = 0; k < nf; k++) {
      const fcd_index *q = f + 4 * k;
      int nc = q[3] < 0 ? 3 : 4;
      const double *a = x + 3 * q[0], *b = x + 3 * q[1], *c = x + 3 * q[2];
      const double *d = nc == 4 ? x + 3 * q[3] : NULL;
      double u[3], v[3], n[3];
      for (int i = 0; i < 3; i++) {
        u[i] = nc == 4 ? c[i] - a[i] : b[i] - a[i];
        v[i] = nc == 4 ? d[i] - b[i] : c[i] - a[i];
      }
      n[0] = u[1] * v[2] - u[2] * v[1];
      n[1] = u[2] * v[0] - u[0] * v[2];
      n[2] = u[0] * v[1] - u[1] * v[0];
      double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
      area += len / 2;
      worst = fmax(worst, fabs(n[2] / len - nz[s]));
    }
    CHECK(fabs(area - 1) < 1e-12 && worst < 1e-9);
    if (!(fabs(area - 1) < 1e-12 && worst < 1e-9))
      fprintf(stderr, "%s %s: area %.15g, normal off by %g\n", file, names[s], area, worst);
  }
  fcd_mesh_destroy(m);
  fcd_system_destroy(sys);
}

static void test_meshes(void) {
  static const char *const gmsh[4] = {"lower_top", "upper_bottom", "upper_top", "lower_bottom"};
  static const char *const pid[4] = {"PID:3", "PID:4", "PID:5", "PID:6"};
  static const char *const vtu[4] = {"CellEntityIds:3", "CellEntityIds:4", "CellEntityIds:5",
                                     "CellEntityIds:6"};
  static const char *const msh[] = {"tets.msh", "tets_bin.msh", "tets22.msh", "tets22_bin.msh",
                                    "tets.inp"};
  for (size_t k = 0; k < sizeof msh / sizeof *msh; k++) mesh_faces(msh[k], 172, gmsh);
  mesh_faces("tets.bdf", 172, pid);
  static const char *const vt[] = {"tets.vtu", "tets_ascii.vtu", "tets_raw.vtu",
                                   "tets_inline.vtu", "tets_b64.vtu"};
  for (size_t k = 0; k < sizeof vt / sizeof *vt; k++) mesh_faces(vt[k], 172, vtu);
  mesh_faces("hexes.msh", 123, gmsh);
  mesh_faces("hexes20.inp", 397, gmsh);
  mesh_faces("hexes20.bdf", 397, pid);
  mesh_faces("tets10.msh", 933, gmsh);
  mesh_faces("tets10.bdf", 933, pid);
}

int main(int argc, char **argv) {
  data_dir = argc > 1 ? argv[1] : "tests/data/import";
  test_harwell_boeing();
  test_abaqus();
  test_dmig();
  test_op4();
  test_refusals();
  test_meshes();
  return fcdt_finish("import");
}
