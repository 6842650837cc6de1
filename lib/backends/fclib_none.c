/* fclib support left out of this build (meson -Dfclib=disabled, or fclib not found):
 * the fclib entry points refuse with FCD_E_UNSUPPORTED, after the checks every build
 * makes, so that hosts see the same statuses for bad arguments either way.
 * fcd_has_feature("fclib") is 0. */
#include "fclib_backend.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

fcd_status fcd__fclib_read(const char *path, fcd__fclib_data *d, char *errbuf, size_t cap) {
  memset(d, 0, sizeof *d);
  FILE *fp = fopen(path, "rb");
  if (!fp) {
    if (errbuf && cap) snprintf(errbuf, cap, "cannot open '%s': %s", path, strerror(errno));
    return FCD_E_IO;
  }
  fclose(fp);
  if (errbuf && cap)
    snprintf(errbuf, cap, "%s: this fcd was built without fclib (fcd_has_feature(\"fclib\") "
             "is 0)", path);
  return FCD_E_UNSUPPORTED;
}

void fcd__fclib_data_free(fcd__fclib_data *d) { (void)d; }

fcd_status fcd__fclib_write(const fcd_system *sink, const char *path, int dim, fcd_index nc,
                            const fcd__csr *W, const fcd_real *q, const fcd__csr *M,
                            const fcd__csr *H, fcd_index ndofs, const fcd_real *f,
                            const fcd_real *w, const fcd_real *mu, const fcd_real *r,
                            const fcd_real *u, const fcd_real *v) {
  (void)dim, (void)nc, (void)W, (void)q, (void)M, (void)H, (void)ndofs, (void)f, (void)w;
  (void)mu, (void)r, (void)u, (void)v;
  /* an unwritable path is FCD_E_IO in every build; nothing is left behind */
  int existed = access(path, F_OK) == 0;
  FILE *fp = fopen(path, "ab");
  if (!fp) return fcd__err(sink, FCD_E_IO, "cannot create '%s': %s", path, strerror(errno));
  fclose(fp);
  if (!existed) remove(path);
  return fcd__err(sink, FCD_E_UNSUPPORTED, "%s: this fcd was built without fclib "
                  "(fcd_has_feature(\"fclib\") is 0)", path);
}
