/* Issue 19, defect 3: every file reader is bounded. Before, /dev/zero given as a Matrix
 * Market, contact or VTK file grew the process to 6 GB in 30 s (no newline, no end), and
 * a directory was reported as an "empty file". Now:
 * - a NUL byte ends a text read at once with FCD_E_FORMAT naming it;
 * - a line longer than 16 MiB is FCD_E_FORMAT "file:line: line longer than N bytes";
 * - a directory is FCD_E_IO "... is a directory";
 * and, defect 7, a vector file may hold any number of values on one line (62 before).
 * Defect 2: fcd_system_create(2^31) (a 74-byte Matrix Market header) filled 105 GB of dof
 * tables and the kernel killed the process; a size whose 49 bytes per dof exceed the
 * physical memory is now FCD_E_NOMEM before anything is allocated. */
#include <fcd/fcd.h>
#include <fcd/fcd_vtk.h>

#include <unistd.h>

#include "../fcdtest.h"

enum { NREAD = 7 };
static const char *const names[NREAD] = {"matrix_market", "matrix_market_size", "fixed",
                                         "vector", "contacts", "vtk", "petsc_binary"};

static fcd_status read_with(fcd_system *sys, int k, const char *path, char *msg, size_t cap) {
  fcd_status st = FCD_OK;
  double x[4];
  fcd_contact_set *cs = NULL;
  fcd_mesh *m = NULL;
  fcd_index nr;
  msg[0] = 0;
  switch (k) {
  case 0: st = fcd_system_read_matrix_market(sys, FCD_STIFFNESS, path); break;
  case 1: return fcd_matrix_market_size(path, &nr, &nr, &nr, msg, cap);
  case 2: st = fcd_system_read_fixed(sys, path); break;
  case 3: st = fcd_system_read_vector(sys, path, 4, x); break;
  case 4: st = fcd_contact_set_read(sys, path, &cs); break;
  case 5: st = fcd_mesh_read_vtk(sys, 2, path, &m); break;
  case 6: st = fcd_system_read_petsc_binary(sys, FCD_STIFFNESS, path); break;
  }
  snprintf(msg, cap, "%s", fcd_system_last_error(sys));
  fcd_contact_set_destroy(cs);
  fcd_mesh_destroy(m);
  return st;
}

int main(void) {
  {
    double phys = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    fcd_system *big = NULL;
    /* twice what the machine holds, and the 2^31 when that is beyond it */
    fcd_index n = (fcd_index)(2 * phys / 49);
    CHECK_ST(fcd_system_create(n, &big), FCD_E_NOMEM);
    CHECK(big == NULL);
    if (49.0 * 2147483648.0 > phys) CHECK_ST(fcd_system_create((fcd_index)1 << 31, &big), FCD_E_NOMEM);
    /* a size that fits is still created */
    CHECK_ST(fcd_system_create(1000000, &big), FCD_OK);
    fcd_system_destroy(big);
  }
  fcd_system *sys;
  CHECK_ST(fcd_system_create(4, &sys), FCD_OK);
  char msg[2048];
  for (int k = 0; k < NREAD; k++) {
    /* /dev/zero: endless NUL bytes (the PETSc binary format has NULs: its header is
     * refused instead, a wrong class id, and the stream is never read to its end) */
    fcd_status st = read_with(sys, k, "/dev/zero", msg, sizeof msg);
    if (k == 6) CHECK(st == FCD_E_FORMAT || st == FCD_E_IO);
    else {
      CHECK(st == FCD_E_FORMAT);
      CHECK(strstr(msg, "NUL byte") != NULL);
    }
    if (st == FCD_OK || (k != 6 && !strstr(msg, "NUL byte")))
      fprintf(stderr, "  %s on /dev/zero: %d '%s'\n", names[k], (int)st, msg);
    /* a directory */
    st = read_with(sys, k, "/", msg, sizeof msg);
    CHECK(st == FCD_E_IO);
    CHECK(strstr(msg, "directory") != NULL);
    if (!strstr(msg, "directory")) fprintf(stderr, "  %s on /: %d '%s'\n", names[k], (int)st, msg);
  }
  /* a line longer than the bound: 17 MiB of digits without a newline (the VTK and PETSc
   * readers read whole files, bounded by the file's size) */
  char big[4096];
  fcdt_tmpfile(big, sizeof big, "long_line.txt");
  FILE *f = fopen(big, "w");
  CHECK(f != NULL);
  if (f) {
    static char chunk[1 << 16];
    memset(chunk, '7', sizeof chunk);
    for (int i = 0; i < 17 * 16; i++) fwrite(chunk, 1, sizeof chunk, f);
    fclose(f);
  }
  for (int k = 0; k < 5; k++) {
    fcd_status st = read_with(sys, k, big, msg, sizeof msg);
    CHECK(st == FCD_E_FORMAT);
    CHECK(strstr(msg, ":1: line longer than 16777216 bytes") != NULL);
    if (!strstr(msg, "line longer")) fprintf(stderr, "  %s on a long line: '%s'\n", names[k], msg);
  }
  remove(big);
  /* any number of values on one line: 1000 of them */
  fcd_system *s2;
  CHECK_ST(fcd_system_create(1000, &s2), FCD_OK);
  char vec[4096];
  fcdt_tmpfile(vec, sizeof vec, "one_line_vector.txt");
  f = fopen(vec, "w");
  CHECK(f != NULL);
  if (f) {
    for (int i = 0; i < 1000; i++) fprintf(f, "%d.5 ", i);
    fprintf(f, "\n");
    fclose(f);
  }
  static double x[1000];
  CHECK_ST(fcd_system_read_vector(s2, vec, 1000, x), FCD_OK);
  CHECK(x[0] == 0.5 && x[999] == 999.5);
  remove(vec);
  fcd_system_destroy(s2);
  fcd_system_destroy(sys);
  return fcdt_finish("bounded_input");
}
