/* Time series from C (issue 67): the collection is exactly the XML the ParaView format
 * prescribes (written out by hand below), a frame's appended binary blocks hold the
 * values given (read here by the format's own layout: a UInt64 byte count, then the
 * data), bad input gets its own status and message with the series unchanged, a frame
 * that cannot be written leaves the collection listing exactly the frames before it, and
 * the series outlives its mesh and holds its contact set. VTK's own reader is in
 * tests/python/test_series.py. */
#include <fcd/fcd.h>

#include <math.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../fcdtest.h"

static char *slurp(const char *path, size_t *len) {
  FILE *fp = fopen(path, "rb");
  if (!fp) return NULL;
  static char buf[65536];
  size_t n = fread(buf, 1, sizeof buf - 1, fp);
  buf[n] = 0;
  fclose(fp);
  if (len) *len = n;
  return buf;
}

/* the k-th appended block of a frame (its byte count in *bytes), NULL if absent */
static const char *block(const char *file, size_t len, int k, uint64_t *bytes) {
  const char *p = strstr(file, "<AppendedData encoding=\"raw\">");
  if (!p || !(p = strchr(p, '_'))) return NULL;
  p++;
  for (int i = 0;; i++) {
    if (p + 8 > file + len) return NULL;
    memcpy(bytes, p, 8);
    if (i == k) return p + 8;
    p += 8 + *bytes;
  }
}

static char PVD0[200];
static const char PVD_END[] = "  </Collection>\n</VTKFile>\n";

int main(void) {
  const uint16_t one = 1;
  unsigned char lo;
  memcpy(&lo, &one, 1);
  snprintf(PVD0, sizeof PVD0, "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" "
           "version=\"0.1\" byte_order=\"%s\">\n  <Collection>\n",
           lo ? "LittleEndian" : "BigEndian");
  char dir[600], path[700];
  fcdt_tmpfile(dir, sizeof dir, "series");
  mkdir(dir, 0755);
  fcd_system *sys = NULL;
  CHECK_ST(fcd_system_create(6, &sys), FCD_OK);
  const double xy[6] = {0, 0, 1, 0, 0, 1};
  fcd_mesh *m = NULL;
  CHECK_ST(fcd_mesh_create(sys, 2, 3, xy, NULL, &m), FCD_OK);
  const fcd_index tri[3] = {0, 1, 2};
  CHECK_ST(fcd_mesh_add_cells(m, FCD_VTK_TRIANGLE, 1, tri), FCD_OK);
  fcd_contact_set *cs = NULL;
  CHECK_ST(fcd_contact_set_create(sys, 2, &cs), FCD_OK);
  const fcd_index d0[2] = {0, 1}, d1[2] = {2, 3}, d2[2] = {4, 5};
  const double nrm[2] = {0, -1}, tan[2] = {1, 0};
  CHECK_ST(fcd_contact_set_add_rigid(cs, d0, nrm, tan, 0.25, 0.3, NULL), FCD_OK);
  CHECK_ST(fcd_contact_set_add_pair(cs, d1, d2, nrm, tan, 0.5, 0.3, NULL), FCD_OK);

  /* refusals at creation */
  fcd_series *s = NULL;
  CHECK_ST(fcd_series_create(NULL, cs, dir, "run", &s), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_series_create(m, cs, dir, "a/b", &s), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "name");
  CHECK(s == NULL);
  snprintf(path, sizeof path, "%s/missing", dir);
  CHECK_ST(fcd_series_create(m, cs, path, "run", &s), FCD_E_IO);
  CHECK_MSG(sys, "cannot create");
  CHECK_ST(fcd_series_create(m, cs, dir, "run", &s), FCD_OK);
  fcd_mesh_destroy(m); /* the series copied what it needs */
  snprintf(path, sizeof path, "%s/run.pvd", dir);
  char want[2048];
  snprintf(want, sizeof want, "%s%s", PVD0, PVD_END);
  const char *got = slurp(path, NULL);
  CHECK(got && strcmp(got, want) == 0);

  /* two frames */
  const double u[6] = {0.1, -0.2, 0.3, -0.4, 0.5, -0.6}, v[6] = {1, 2, 3, 4, 5, 6};
  const double r[4] = {-7, 1.5, -9, -2.5};
  const int status[2] = {FCD_CONTACT_SLIP, FCD_CONTACT_STICK};
  CHECK_ST(fcd_series_write(s, 0.0, u, v, r, status), FCD_OK);
  /* the frame's arrays are copied: the caller may change them at once */
  double u2[6], v2[6], r2[4];
  int st2[2];
  memcpy(u2, u, sizeof u2);
  memcpy(v2, v, sizeof v2);
  memcpy(r2, r, sizeof r2);
  memcpy(st2, status, sizeof st2);
  CHECK_ST(fcd_series_write(s, 0.5, u2, v2, r2, st2), FCD_OK);
  for (int k = 0; k < 6; k++) u2[k] = v2[k] = NAN;
  r2[0] = r2[1] = NAN;
  st2[0] = st2[1] = -7;
  CHECK_ST(fcd_series_flush(s), FCD_OK); /* both frames on disk */
  snprintf(want, sizeof want, "%s    <DataSet timestep=\"0\" group=\"\" part=\"0\" "
           "file=\"run-000000.vtu\"/>\n    <DataSet timestep=\"0.5\" group=\"\" part=\"0\" "
           "file=\"run-000001.vtu\"/>\n%s", PVD0, PVD_END);
  got = slurp(path, NULL);
  CHECK(got && strcmp(got, want) == 0);

  /* frame 1's blocks: displacement, velocity, contact_force, contact_status,
   * contact_gap, contact_slip_velocity, contact_normal_force, contact_tangential_force,
   * then points, connectivity, offsets, types */
  snprintf(path, sizeof path, "%s/run-000001.vtu", dir);
  size_t len = 0;
  const char *f = slurp(path, &len);
  CHECK(f && strstr(f, "Name=\"TimeValue\" NumberOfTuples=\"1\" format=\"ascii\">0.5<"));
  CHECK(f && !strstr(f, "contact_pressure"));
  uint64_t bytes = 0;
  const char *b = f ? block(f, len, 0, &bytes) : NULL;
  double x[9];
  CHECK(b && bytes == 72);
  if (b) {
    memcpy(x, b, 72);
    for (int p = 0; p < 3; p++)
      CHECK(x[3 * p] == u[2 * p] && x[3 * p + 1] == u[2 * p + 1] && x[3 * p + 2] == 0);
  }
  /* H^T r: node 0 gets r of the rigid contact, (r_T t + r_N n) = (1.5, 7); the pair puts
   * (-2.5, 9) on node 1 (body A) and the opposite on node 2 */
  b = f ? block(f, len, 2, &bytes) : NULL;
  CHECK(b && bytes == 72);
  if (b) {
    memcpy(x, b, 72);
    const double want_f[9] = {1.5, 7, 0, -2.5, 9, 0, 2.5, -9, 0};
    for (int k = 0; k < 9; k++) CHECK(x[k] == want_f[k]);
  }
  b = f ? block(f, len, 3, &bytes) : NULL;
  CHECK(b && bytes == 12);
  if (b) {
    int32_t st3[3];
    memcpy(st3, b, 12);
    CHECK(st3[0] == 2 && st3[1] == 1 && st3[2] == 1);
  }
  /* the gap g - u_N: u_N = n . u_0 = 0.2 for the rigid contact (0.25 - 0.2), and
   * n . (u_1 - u_2) = -(-0.4 + 0.6) = -0.2 for the pair (0.5 + 0.2), on both its nodes */
  b = f ? block(f, len, 4, &bytes) : NULL;
  CHECK(b && bytes == 24);
  if (b) {
    memcpy(x, b, 24);
    CHECK(fabs(x[0] - 0.05) < 1e-15 && fabs(x[1] - 0.7) < 1e-15 && x[2] == x[1]);
  }
  b = f ? block(f, len, 11, &bytes) : NULL; /* the cell types */
  CHECK(b && bytes == 1 && b[0] == FCD_VTK_TRIANGLE);

  /* refusals leave the series as it was */
  CHECK_ST(fcd_series_write(s, 1.0, u, NULL, r, status), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "same arrays");
  CHECK_ST(fcd_series_write(s, NAN, u, v, r, status), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_series_write(s, 1.0, NULL, v, r, status), FCD_E_INVALID_ARG);
  const int bad[2] = {0, 5};
  CHECK_ST(fcd_series_write(s, 1.0, u, v, r, bad), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "status 5");
  CHECK_ST(fcd_series_write(NULL, 1.0, u, v, r, status), FCD_E_INVALID_ARG);
  /* a NaN anywhere, or a time not after the last frame's (issue 84: accepted before) */
  double un[6], vn[6], rn[4];
  memcpy(un, u, sizeof un);
  memcpy(vn, v, sizeof vn);
  memcpy(rn, r, sizeof rn);
  un[3] = NAN;
  CHECK_ST(fcd_series_write(s, 1.0, un, v, r, status), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "u[3] is not finite");
  vn[5] = INFINITY;
  CHECK_ST(fcd_series_write(s, 1.0, u, vn, r, status), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "v[5] is not finite");
  rn[2] = NAN;
  CHECK_ST(fcd_series_write(s, 1.0, u, v, rn, status), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "reactions[2] is not finite");
  CHECK_ST(fcd_series_write(s, 0.5, u, v, r, status), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "is not after the last frame's 0.5");
  CHECK_ST(fcd_series_write(s, 0.25, u, v, r, status), FCD_E_INVALID_ARG);
  /* a frame that cannot be written: the collection still lists the two before it */
  snprintf(path, sizeof path, "%s/run-000002.vtu.tmp", dir);
  mkdir(path, 0755);
  /* in the background: the write takes the frame, the next call tells its failure and
   * takes no frame itself */
  CHECK_ST(fcd_series_write(s, 1.0, u, v, r, status), FCD_OK);
  CHECK_ST(fcd_series_write(s, 1.5, u, v, r, status), FCD_E_IO);
  CHECK_MSG(sys, "keeps its 2 frames");
  CHECK_ST(fcd_series_flush(s), FCD_OK); /* told once */
  /* within the call: the write itself fails */
  CHECK_ST(fcd_series_set_async(s, 2), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_series_set_async(s, 0), FCD_OK);
  CHECK_ST(fcd_series_write(s, 1.0, u, v, r, status), FCD_E_IO);
  CHECK_MSG(sys, "keeps its 2 frames");
  CHECK_ST(fcd_series_set_async(s, 1), FCD_OK);
  rmdir(path);
  snprintf(path, sizeof path, "%s/run.pvd", dir);
  got = slurp(path, NULL);
  CHECK(got && strcmp(got, want) == 0);
  fcd_index nfr = -1;
  double nb = 0;
  CHECK_ST(fcd_series_get_info(s, &nfr, &nb), FCD_OK);
  CHECK(nfr == 2 && nb > 2 * 500);
  CHECK_ST(fcd_series_write(s, 1.0, u, v, r, status), FCD_OK); /* and it goes on */
  CHECK_ST(fcd_series_get_info(s, &nfr, NULL), FCD_OK); /* waits for the frame */
  CHECK(nfr == 3);
  snprintf(path, sizeof path, "%s/run-000002.vtu", dir);
  f = slurp(path, &len);
  CHECK(f && strstr(f, "Name=\"TimeValue\" NumberOfTuples=\"1\" format=\"ascii\">1<"));

  /* the contact set destroyed while the series holds it: refused, freed with the series */
  fcd_contact_set_destroy(cs);
  CHECK_ST(fcd_series_write(s, 2.0, u, v, r, status), FCD_E_STATE);
  CHECK_MSG(sys, "contact set changed");
  fcd_series_destroy(s);
  fcd_series_destroy(NULL);

  /* a mode over its period: frame k is re cos(theta_k) - im sin(theta_k) at theta_k / w */
  CHECK_ST(fcd_mesh_create(sys, 2, 3, xy, NULL, &m), FCD_OK);
  CHECK_ST(fcd_mesh_add_cells(m, FCD_VTK_TRIANGLE, 1, tri), FCD_OK);
  CHECK_ST(fcd_series_create(m, NULL, dir, "mode", &s), FCD_OK);
  fcd_mesh_destroy(m);
  CHECK_ST(fcd_series_set_field(s, "TimeValue", 1), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_series_set_field(s, "a-b", 1), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_series_set_field(s, "mu", INFINITY), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_series_set_field(s, "mu", 0.25), FCD_OK);
  CHECK_ST(fcd_series_write_mode(s, u, v, 0.5, 100, 0), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_series_write_mode(s, NULL, v, 0.5, 100, 4), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_series_write_mode(s, u, v, NAN, 100, 4), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_series_write_mode(s, u, v, 0.5, 100, 4), FCD_OK);
  snprintf(path, sizeof path, "%s/mode-000001.vtu", dir); /* theta = pi / 2: -im */
  f = slurp(path, &len);
  CHECK(f && strstr(f, "Name=\"mu\" NumberOfTuples=\"1\" format=\"ascii\">0.25<"));
  CHECK(f && strstr(f, "Name=\"eigenvalue_im\" NumberOfTuples=\"1\" format=\"ascii\">100<"));
  CHECK(f && strstr(f, "Name=\"TimeValue\" NumberOfTuples=\"1\" format=\"ascii\">"
                       "0.015707963267948967<"));
  b = f ? block(f, len, 0, &bytes) : NULL;
  CHECK(b && bytes == 72);
  if (b) {
    memcpy(x, b, 72);
    for (int p = 0; p < 3; p++)
      CHECK(fabs(x[3 * p] + v[2 * p]) < 1e-15 * 6 && fabs(x[3 * p + 1] + v[2 * p + 1]) < 1e-15 * 6);
  }
  fcd_index nm = 0;
  CHECK_ST(fcd_series_get_info(s, &nm, NULL), FCD_OK);
  CHECK(nm == 4);
  /* a second mode into the same series would send its frames' times back: refused */
  CHECK_ST(fcd_series_write_mode(s, u, v, 0.5, 100, 4), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "has 4 frames already");
  fcd_series_destroy(s);

  /* a shorter series of the same name replaces the earlier one: none of its frames stays
   * beside the new collection (issue 84: mode-000001 .. 3 were left over) */
  CHECK_ST(fcd_mesh_create(sys, 2, 3, xy, NULL, &m), FCD_OK);
  CHECK_ST(fcd_mesh_add_cells(m, FCD_VTK_TRIANGLE, 1, tri), FCD_OK);
  CHECK_ST(fcd_series_create(m, NULL, dir, "mode", &s), FCD_OK);
  double mnan[6];
  memcpy(mnan, u, sizeof mnan);
  mnan[4] = NAN;
  CHECK_ST(fcd_series_write_mode(s, mnan, v, 0.5, 100, 4), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "not finite at dof 4");
  CHECK_ST(fcd_series_write(s, 0.0, u, NULL, NULL, NULL), FCD_OK);
  fcd_series_destroy(s);
  fcd_mesh_destroy(m);
  struct stat sb;
  snprintf(path, sizeof path, "%s/mode-000000.vtu", dir);
  CHECK(stat(path, &sb) == 0);
  for (int k = 1; k < 4; k++) {
    snprintf(path, sizeof path, "%s/mode-%06d.vtu", dir, k);
    CHECK(stat(path, &sb) != 0);
  }
  /* other files are not touched */
  snprintf(path, sizeof path, "%s/run-000000.vtu", dir);
  CHECK(stat(path, &sb) == 0);
  fcd_system_destroy(sys);
  return fcdt_finish("series");
}
