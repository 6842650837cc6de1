/* The fclib backend's interface (backends/fclib.c, or fclib_none.c without fclib): plain
 * arrays in, plain arrays out; no fclib or HDF5 type crosses it. */
#ifndef FCD_BACKEND_FCLIB_BACKEND_H
#define FCD_BACKEND_FCLIB_BACKEND_H

#include "backends.h"

/* fclib files, read into plain arrays (fcd's convention after the one sign flip). */
typedef struct {
  int dim;
  fcd_index nc, m, ndofs; /* ndofs 0 for a local problem */
  /* triplets: W (local, m x m) or M (global, ndofs x ndofs) and H (ndofs x m) */
  fcd_index nw, nm, nh;
  fcd_index *wi, *wj, *mi, *mj, *hi, *hj;
  fcd_real *wv, *mv, *hv;
  fcd_real *q, *f, *w, *mu;
  fcd_real *sol_r; /* NULL when the file stores no solution */
} fcd__fclib_data;

fcd_status fcd__fclib_read(const char *path, fcd__fclib_data *d, char *errbuf, size_t cap);
void fcd__fclib_data_free(fcd__fclib_data *d);
/* Writes W (or M and H) given in CSR, with the sign flip to fclib's convention. */
fcd_status fcd__fclib_write(const fcd_system *sink, const char *path, int dim,
                            fcd_index nc, const fcd__csr *W, const fcd_real *q,
                            const fcd__csr *M, const fcd__csr *H, fcd_index ndofs,
                            const fcd_real *f, const fcd_real *w, const fcd_real *mu,
                            const fcd_real *r, const fcd_real *u, const fcd_real *v);

#endif
