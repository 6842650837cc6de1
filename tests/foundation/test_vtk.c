/* VTK output from C (issue 11): bad input gets its own status and a message, the mesh
 * stays usable, and the file of a tiny mesh is exactly the legacy VTK that the format's
 * specification prescribes for it (written out by hand below). The values as VTK's own
 * reader sees them are checked in tests/python (test_vtk_opened_by_vtk). */
#include <fcd/fcd.h>

#include "../fcdtest.h"

static char *slurp(const char *path) {
  FILE *fp = fopen(path, "rb");
  if (!fp) return NULL;
  static char buf[4096];
  size_t n = fread(buf, 1, sizeof buf - 1, fp);
  buf[n] = 0;
  fclose(fp);
  return buf;
}

static const unsigned char *slurp_bytes(const char *path, size_t *len) {
  FILE *fp = fopen(path, "rb");
  if (!fp) return NULL;
  static unsigned char buf[4096];
  *len = fread(buf, 1, sizeof buf, fp);
  fclose(fp);
  return buf;
}

/* big-endian encodings, written out here as the legacy format defines them */
static size_t put_be8(unsigned char *b, size_t at, double x) {
  uint64_t v;
  memcpy(&v, &x, 8);
  for (int k = 7; k >= 0; k--) b[at++] = (unsigned char)(v >> (8 * k));
  return at;
}

static size_t put_be4(unsigned char *b, size_t at, int32_t x) {
  uint32_t v = (uint32_t)x;
  for (int k = 3; k >= 0; k--) b[at++] = (unsigned char)(v >> (8 * k));
  return at;
}

static size_t put_text(unsigned char *b, size_t at, const char *s) {
  size_t n = strlen(s);
  memcpy(b + at, s, n);
  return at + n;
}

/* 3D cells: a unit cube as one hexahedron, five tetrahedra and two wedges, each valid
 * in VTK's order; then each made degenerate (a node moved onto another's plane) or
 * inverted (two nodes swapped) */
static void test_cells_3d(void) {
  fcd_system *sys = NULL;
  CHECK_ST(fcd_system_create(24, &sys), FCD_OK);
  const double x[24] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1};
  fcd_mesh *m = NULL;
  CHECK_ST(fcd_mesh_create(sys, 3, 8, x, NULL, &m), FCD_OK);
  if (!m) return;
  const fcd_index hex[8] = {0, 1, 2, 3, 4, 5, 6, 7}, hex_inv[8] = {0, 3, 2, 1, 4, 7, 6, 5};
  CHECK_ST(fcd_mesh_add_cells(m, FCD_VTK_HEXAHEDRON, 1, hex), FCD_OK);
  CHECK_ST(fcd_mesh_add_cells(m, FCD_VTK_HEXAHEDRON, 1, hex_inv), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "inverted (signed volume -1");
  const fcd_index tets[20] = {0, 1, 3, 4, 1, 2, 3, 6, 1, 4, 5, 6, 3, 6, 7, 4, 1, 3, 4, 6};
  CHECK_ST(fcd_mesh_add_cells(m, FCD_VTK_TETRA, 5, tets), FCD_OK);
  const fcd_index tet_inv[4] = {0, 3, 1, 4}, tet_flat[4] = {0, 1, 2, 3};
  CHECK_ST(fcd_mesh_add_cells(m, FCD_VTK_TETRA, 1, tet_inv), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "inverted");
  CHECK_ST(fcd_mesh_add_cells(m, FCD_VTK_TETRA, 1, tet_flat), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "degenerate");
  const fcd_index wedges[12] = {0, 1, 3, 4, 5, 7, 1, 2, 3, 5, 6, 7}, wedge_flat[6] = {0, 1, 2, 3, 1, 2};
  CHECK_ST(fcd_mesh_add_cells(m, FCD_VTK_WEDGE, 2, wedges), FCD_OK);
  CHECK_ST(fcd_mesh_add_cells(m, FCD_VTK_WEDGE, 1, wedge_flat), FCD_E_INVALID_ARG);
  /* a surface triangle of the 3D mesh has no sign, only an area */
  const fcd_index face[3] = {0, 3, 1}, face_line[3] = {0, 1, 1};
  CHECK_ST(fcd_mesh_add_cells(m, FCD_VTK_TRIANGLE, 1, face), FCD_OK);
  CHECK_ST(fcd_mesh_add_cells(m, FCD_VTK_TRIANGLE, 1, face_line), FCD_E_INVALID_ARG);
  fcd_mesh_destroy(m);
  fcd_system_destroy(sys);
}

int main(void) {
  test_cells_3d();
  char path[600];
  fcdt_tmpfile(path, sizeof path, "tiny.vtk");
  fcd_system *sys = NULL;
  CHECK_ST(fcd_system_create(6, &sys), FCD_OK);
  const double xy[6] = {0, 0, 1, 0, 0, 1};
  fcd_mesh *m = NULL;
  /* refusals at creation */
  CHECK_ST(fcd_mesh_create(sys, 2, 3, NULL, NULL, &m), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "coordinates");
  CHECK(m == NULL);
  CHECK_ST(fcd_mesh_create(sys, 4, 3, xy, NULL, &m), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_mesh_create(sys, 2, 4, (const double[8]){0}, NULL, &m), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "8 dofs");
  const fcd_index bad_dofs[6] = {0, 1, 2, 3, 4, 6};
  CHECK_ST(fcd_mesh_create(sys, 2, 3, xy, bad_dofs, &m), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "dof 6");
  const double nan_xy[6] = {0, 0, 1, NAN, 0, 1};
  CHECK_ST(fcd_mesh_create(sys, 2, 3, nan_xy, NULL, &m), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_mesh_create(NULL, 2, 3, xy, NULL, &m), FCD_E_INVALID_ARG);
  /* issue 64: nnodes x dim was computed in signed arithmetic before the refusal, and the
   * message printed the wrapped, negative size */
  CHECK_ST(fcd_mesh_create(sys, 3, INT64_MAX / 2, xy, NULL, &m), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "4611686018427387903 nodes");
  CHECK(m == NULL);
  CHECK_ST(fcd_mesh_create(sys, 2, 3, xy, NULL, NULL), FCD_E_INVALID_ARG);
  /* node 2 has no y dof */
  const fcd_index dofs[6] = {0, 1, 2, 3, 4, -1};
  CHECK_ST(fcd_mesh_create(sys, 2, 3, xy, dofs, &m), FCD_OK);
  if (!m) return fcdt_finish("vtk");
  /* cells */
  const fcd_index tri[3] = {0, 1, 2}, bad_tri[3] = {0, 1, 3};
  CHECK_ST(fcd_mesh_add_cells(m, 7, 1, tri), FCD_E_UNSUPPORTED);
  CHECK_MSG(sys, "cell type 7");
  CHECK_ST(fcd_mesh_add_cells(m, FCD_VTK_TRIANGLE, 1, bad_tri), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "node 3");
  CHECK_ST(fcd_mesh_add_cells(m, FCD_VTK_TRIANGLE, -1, tri), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_mesh_add_cells(m, FCD_VTK_TRIANGLE, 1, NULL), FCD_E_INVALID_ARG);
  /* issue 64: cells without a measure, or turned against VTK's order, are refused by
   * name; nothing is added */
  const fcd_index twice[3] = {0, 1, 1}, cw[3] = {0, 2, 1}, line0[2] = {2, 2};
  CHECK_ST(fcd_mesh_add_cells(m, FCD_VTK_TRIANGLE, 1, twice), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "cell 0 is degenerate");
  CHECK_ST(fcd_mesh_add_cells(m, FCD_VTK_TRIANGLE, 1, cw), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "cell 0 is inverted (signed area -0.5");
  CHECK_ST(fcd_mesh_add_cells(m, FCD_VTK_LINE, 1, line0), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_mesh_add_cells(m, FCD_VTK_TRIANGLE, 1, tri), FCD_OK);
  /* writing */
  const double u[6] = {0.5, -1, 2, 0.25, 3, 7};
  const char *names[1] = {"u"}, *bad_names[1] = {"u v"};
  const double *fields[1] = {u}, *null_fields[1] = {NULL};
  fcd_contact_set *cs = NULL;
  CHECK_ST(fcd_contact_set_create(sys, 2, &cs), FCD_OK);
  const fcd_index cd[2] = {2, 3};
  const double nrm[2] = {0, 1}, tan[2] = {1, 0};
  CHECK_ST(fcd_contact_set_add_rigid(cs, cd, nrm, tan, 0, 0.3, NULL), FCD_OK);
  const int slip[1] = {FCD_CONTACT_SLIP}, bad_status[1] = {5};
  CHECK_ST(fcd_mesh_write_vtk(m, NULL, 1, names, fields, NULL, NULL), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_mesh_write_vtk(m, path, 1, bad_names, fields, NULL, NULL), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "name");
  CHECK_ST(fcd_mesh_write_vtk(m, path, 1, names, null_fields, NULL, NULL), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_mesh_write_vtk(m, path, 1, NULL, fields, NULL, NULL), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_mesh_write_vtk(m, path, 1, names, fields, cs, NULL), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "neither");
  CHECK_ST(fcd_mesh_write_vtk(m, path, 1, names, fields, cs, bad_status), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "status 5");
  CHECK_ST(fcd_mesh_write_vtk(m, "/nonexistent/dir/x.vtk", 1, names, fields, NULL, NULL),
           FCD_E_IO);
  /* and after all that, the mesh writes */
  fcd_mesh *back = NULL;
  CHECK_ST(fcd_mesh_write_vtk(m, path, 1, names, fields, cs, slip), FCD_OK);
  char expect[1024];
  snprintf(expect, sizeof expect,
           "# vtk DataFile Version 3.0\nfcd %s\nASCII\nDATASET UNSTRUCTURED_GRID\n"
           "POINTS 3 double\n0 0 0\n1 0 0\n0 1 0\n"
           "CELLS 1 4\n3 0 1 2\nCELL_TYPES 1\n5\n"
           "POINT_DATA 3\nVECTORS u double\n0.5 -1 0\n2 0.25 0\n3 0 0\n"
           "SCALARS contact_status int 1\nLOOKUP_TABLE default\n-1\n2\n-1\n",
           fcd_version_string());
  const char *got = slurp(path);
  CHECK(got && strcmp(got, expect) == 0);
  if (got && strcmp(got, expect) != 0) fprintf(stderr, "got:\n%s\nexpected:\n%s\n", got, expect);
  /* reading a mesh back from legacy VTK: the file just written (node 2's missing y dof
   * does not matter to the geometry) gives the same file again */
  CHECK_ST(fcd_mesh_read_vtk(sys, 2, path, &back), FCD_OK);
  if (back) {
    char path2[600];
    fcdt_tmpfile(path2, sizeof path2, "tiny2.vtk");
    CHECK_ST(fcd_mesh_write_vtk(back, path2, 0, NULL, NULL, NULL, NULL), FCD_OK);
    const char *geo = slurp(path2);
    CHECK(geo && strstr(expect, geo) == expect); /* the geometry part, no point data */
    fcd_mesh_destroy(back);
  }
  /* BINARY: the same sections, big-endian values, exactly as the format prescribes */
  CHECK_ST(fcd_mesh_set_vtk_format(m, 7), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_mesh_set_vtk_format(m, FCD_VTK_BINARY), FCD_OK);
  char pathb[600];
  fcdt_tmpfile(pathb, sizeof pathb, "tiny-binary.vtk");
  CHECK_ST(fcd_mesh_write_vtk(m, pathb, 1, names, fields, cs, slip), FCD_OK);
  {
    unsigned char want[2048];
    size_t wl = 0;
    wl += (size_t)snprintf((char *)want, sizeof want, "# vtk DataFile Version 3.0\nfcd %s\n"
                           "BINARY\nDATASET UNSTRUCTURED_GRID\nPOINTS 3 double\n",
                           fcd_version_string());
    const double pts[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0}, uu[9] = {0.5, -1, 0, 2, 0.25, 0, 3, 0, 0};
    for (int k = 0; k < 9; k++) wl = put_be8(want, wl, pts[k]);
    wl = put_text(want, wl, "\nCELLS 1 4\n");
    const int32_t cells[4] = {3, 0, 1, 2};
    for (int k = 0; k < 4; k++) wl = put_be4(want, wl, cells[k]);
    wl = put_text(want, wl, "\nCELL_TYPES 1\n");
    wl = put_be4(want, wl, 5);
    wl = put_text(want, wl, "\nPOINT_DATA 3\nVECTORS u double\n");
    for (int k = 0; k < 9; k++) wl = put_be8(want, wl, uu[k]);
    wl = put_text(want, wl, "\nSCALARS contact_status int 1\nLOOKUP_TABLE default\n");
    const int32_t stat[3] = {-1, 2, -1};
    for (int k = 0; k < 3; k++) wl = put_be4(want, wl, stat[k]);
    wl = put_text(want, wl, "\n");
    size_t gl = 0;
    const unsigned char *gb = slurp_bytes(pathb, &gl);
    CHECK(gb && gl == wl && memcmp(gb, want, wl) == 0);
  }
  /* read back, written again as text: the ASCII file's geometry */
  CHECK_ST(fcd_mesh_read_vtk(sys, 2, pathb, &back), FCD_OK);
  if (back) {
    char path3[600];
    fcdt_tmpfile(path3, sizeof path3, "tiny3.vtk");
    CHECK_ST(fcd_mesh_write_vtk(back, path3, 0, NULL, NULL, NULL, NULL), FCD_OK);
    const char *geo = slurp(path3);
    CHECK(geo && strstr(expect, geo) == expect);
    fcd_mesh_destroy(back);
    back = NULL;
  }
  CHECK_ST(fcd_mesh_set_vtk_format(m, FCD_VTK_ASCII), FCD_OK);
  /* and malformed ones */
  static const struct {
    const char *text;
    fcd_status expect;
    const char *says;
  } bad[] = {
      {"hello\n", FCD_E_FORMAT, "header"},
      {"# vtk DataFile Version 3.0\nt\nEBCDIC\n", FCD_E_FORMAT, "ASCII or BINARY"},
      {"# vtk DataFile Version 3.0\nt\nBINARY\nDATASET UNSTRUCTURED_GRID\nPOINTS 3 double\n0123",
       FCD_E_FORMAT, "ends inside the 3 BINARY points"},
      {"# vtk DataFile Version 3.0\nt\nBINARY\nDATASET UNSTRUCTURED_GRID\nPOINTS 3 int\n0123",
       FCD_E_UNSUPPORTED, "type 'int'"},
      /* a NUL byte in an ASCII file is still no file of ours */
      {"# vtk DataFile Version 3.0\nt\nASCII\nDATASET UNSTRUCTURED_GRID\nPOINTS 3 double\n\0",
       FCD_E_FORMAT, "NUL byte"},
      {"# vtk DataFile Version 3.0\nt\nASCII\nDATASET POLYDATA\n", FCD_E_UNSUPPORTED, "UNSTRUCTURED"},
      {"# vtk DataFile Version 3.0\nt\nASCII\nDATASET UNSTRUCTURED_GRID\nPOINTS 3 double\n0 0 0\n1 0\n",
       FCD_E_FORMAT, "point 1"},
      {"# vtk DataFile Version 3.0\nt\nASCII\nDATASET UNSTRUCTURED_GRID\nPOINTS 3 double\n0 0 0\n1 0 0\n0 1 2\n"
       "CELLS 1 4\n3 0 1 2\nCELL_TYPES 1\n5\n", FCD_E_INVALID_ARG, "z = 2"},
      {"# vtk DataFile Version 3.0\nt\nASCII\nDATASET UNSTRUCTURED_GRID\nPOINTS 3 double\n0 0 0\n1 0 0\n0 1 0\n"
       "CELLS 1 4\n3 0 1 2\nCELL_TYPES 1\n7\n", FCD_E_UNSUPPORTED, "unsupported"},
      {"# vtk DataFile Version 3.0\nt\nASCII\nDATASET UNSTRUCTURED_GRID\nPOINTS 3 double\n0 0 0\n1 0 0\n0 1 0\n"
       "CELLS 1 4\n3 0 1 5\nCELL_TYPES 1\n5\n", FCD_E_INVALID_ARG, "node 5"},
      {"# vtk DataFile Version 3.0\nt\nASCII\nDATASET UNSTRUCTURED_GRID\nPOINTS 3 double\n0 0 0\n1 0 0\n0 1 0\n"
       "CELLS 1 4\n3 0 1\n", FCD_E_FORMAT, "CELLS"},
      {"# vtk DataFile Version 3.0\nt\nASCII\nDATASET UNSTRUCTURED_GRID\nPOINTS 2 double\n0 0 0\n1 0 0\n"
       "CELLS 0 0\nCELL_TYPES 0\n", FCD_E_INVALID_ARG, "4 dofs"},
      /* issue 19: a cell size of 2^63 - 1 overflowed q + 1 + k (UBSan: signed overflow) */
      {"# vtk DataFile Version 3.0\nt\nASCII\nDATASET UNSTRUCTURED_GRID\nPOINTS 3 double\n0 0 0\n1 0 0\n0 1 0\n"
       "CELLS 1 4\n9223372036854775807 0 1 2\nCELL_TYPES 1\n5\n", FCD_E_FORMAT, "node count"},
      /* the fuzzer's: an offset past the connectivity (9 of 7) before a smaller one; the
       * first cell was copied before the decrease was seen, reading past the array */
      {"# vtk DataFile Version 5.1\nt\nASCII\nDATASET UNSTRUCTURED_GRID\nPOINTS 3 double\n"
       "0 0 0 1 0 0 0 1 0\nCELLS 3 7\nOFFSETS vtktypeint64\n0 9 7\nCONNECTIVITY vtktypeint64\n"
       "0 1 2 0 1 2 0\nCELL_TYPES 2\n5\n5\n", FCD_E_FORMAT, "OFFSETS decrease"},
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    char p2[600];
    fcdt_tmpfile(p2, sizeof p2, "bad.vtk");
    FILE *fp = fopen(p2, "w");
    if (!fp) continue;
    /* up to the NUL of the last case: written whole, NUL included */
    size_t tl = strlen(bad[k].text);
    fwrite(bad[k].text, 1, tl + (strstr(bad[k].says, "NUL") ? 1 : 0), fp);
    fclose(fp);
    fcd_mesh *mm = (fcd_mesh *)&cs; /* poison: must come back NULL */
    CHECK_ST(fcd_mesh_read_vtk(sys, 2, p2, &mm), bad[k].expect);
    CHECK(mm == NULL);
    CHECK_MSG(sys, bad[k].says);
  }
  CHECK_ST(fcd_mesh_read_vtk(sys, 2, "/nonexistent/m.vtk", &back), FCD_E_IO);
  fcd_contact_set_destroy(cs);
  fcd_mesh_destroy(m);
  fcd_mesh_destroy(NULL);
  fcd_system_destroy(sys);
  return fcdt_finish("vtk");
}
