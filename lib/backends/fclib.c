/* fclib HDF5 files. The fclib C library ends the process on any HDF5 error, so every
 * file is validated here first with HDF5 itself (signature, groups, datasets, sizes,
 * indices). HDF5 (serial build) and fclib are not thread-safe: one lock serializes them.
 * fclib's sign convention (r_N >= 0 compressive, u_N >= 0 separating) is converted to
 * fcd's in exactly one function, flip_convention(). */
#include "fclib_backend.h"

#include <errno.h>
#include <fclib.h>
#include <hdf5.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t h5_lock = PTHREAD_MUTEX_INITIALIZER;

/* Local quantities in fclib's convention are the negatives of fcd's: r = -r_fclib,
 * u = -u_fclib, q = -q_fclib, w = -w_fclib and H = -H_fclib (W, M, f, v unchanged).
 * Negating the whole local vector flips the normal sign convention; the tangential
 * flip that comes with it is a reflection under which the Coulomb law is invariant. */
static void flip_convention(fcd_index n, fcd_real *x) {
  if (!x) return;
  for (fcd_index i = 0; i < n; i++) x[i] = -x[i];
}

typedef struct {
  char *buf;
  size_t cap;
  const char *path;
} errsink;

static fcd_status fail(errsink *e, fcd_status st, const char *fmt, ...) FCD__PRINTF(3, 4);
static fcd_status fail(errsink *e, fcd_status st, const char *fmt, ...) {
  if (e->buf && e->cap) {
    int k = snprintf(e->buf, e->cap, "%s: ", e->path);
    if (k < 0) k = 0;
    if ((size_t)k < e->cap) {
      va_list ap;
      va_start(ap, fmt);
      vsnprintf(e->buf + k, e->cap - (size_t)k, fmt, ap);
      va_end(ap);
    }
  }
  return st;
}

static int link_exists(hid_t f, const char *name) {
  /* H5Lexists needs every intermediate group to exist: walk the path */
  char part[256];
  size_t n = strlen(name);
  if (n >= sizeof part) return 0;
  for (size_t i = 1; i <= n; i++) {
    if (name[i] == '/' || name[i] == 0) {
      memcpy(part, name, i);
      part[i] = 0;
      if (H5Lexists(f, part, H5P_DEFAULT) <= 0) return 0;
    }
  }
  return 1;
}

/* Number of elements of a dataset (scalar: 1), or -1 if it is missing or not numeric. */
static long long ds_len(hid_t f, const char *name) {
  if (!link_exists(f, name)) return -1;
  hid_t ds = H5Dopen2(f, name, H5P_DEFAULT);
  if (ds < 0) return -1;
  long long len = -1;
  hid_t sp = H5Dget_space(ds), ty = H5Dget_type(ds);
  if (sp >= 0 && ty >= 0) {
    H5T_class_t cl = H5Tget_class(ty);
    int nd = H5Sget_simple_extent_ndims(sp);
    if ((cl == H5T_INTEGER || cl == H5T_FLOAT) && nd >= 0 && nd <= 2) {
      hsize_t dims[2] = {1, 1};
      if (nd > 0) H5Sget_simple_extent_dims(sp, dims, NULL);
      len = nd == 0 ? 1 : (long long)dims[0] * (nd == 2 ? (long long)dims[1] : 1);
    }
  }
  if (ty >= 0) H5Tclose(ty);
  if (sp >= 0) H5Sclose(sp);
  H5Dclose(ds);
  return len;
}

static int read_int(hid_t f, const char *name, int *v) {
  if (ds_len(f, name) != 1) return 0;
  hid_t ds = H5Dopen2(f, name, H5P_DEFAULT);
  int ok = ds >= 0 && H5Dread(ds, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0;
  if (ds >= 0) H5Dclose(ds);
  return ok;
}

static fcd_real *read_doubles(hid_t f, const char *name, long long n) {
  if (ds_len(f, name) != n) return NULL;
  fcd_real *x = fcd__malloc_array((size_t)n, sizeof *x);
  hid_t ds = H5Dopen2(f, name, H5P_DEFAULT);
  int ok = x && ds >= 0 &&
           H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, x) >= 0;
  if (ds >= 0) H5Dclose(ds);
  if (!ok) {
    fcd__free(x);
    return NULL;
  }
  return x;
}

/* Checks a matrix group: its scalars and that the arrays have the sizes its storage
 * kind implies. */
static fcd_status check_matrix(hid_t f, errsink *e, const char *grp, long long rows,
                               long long cols) {
  char name[128];
  int m, n, nz, nzmax;
  const char *scal[4] = {"m", "n", "nz", "nzmax"};
  int *vals[4] = {&m, &n, &nz, &nzmax};
  for (int k = 0; k < 4; k++) {
    snprintf(name, sizeof name, "%s/%s", grp, scal[k]);
    if (!read_int(f, name, vals[k]))
      return fail(e, FCD_E_FORMAT, "missing or malformed dataset %s", name);
  }
  if (m != rows || n != cols)
    return fail(e, FCD_E_FORMAT, "%s is %d x %d, expected %lld x %lld", grp, m, n, rows, cols);
  long long plen = nz == -2 ? (long long)m + 1 : nz == -1 ? (long long)n + 1 : nz;
  long long ilen = nz >= 0 ? nz : nzmax;
  if (nz < -2 || nzmax < 0 || (nz >= 0 && nz > nzmax))
    return fail(e, FCD_E_FORMAT, "%s: inconsistent nz = %d, nzmax = %d", grp, nz, nzmax);
  snprintf(name, sizeof name, "%s/p", grp);
  long long lp = ds_len(f, name);
  /* fclib reads each array whole into a buffer sized by these scalars: any other
   * length overflows it (found by tests/fuzz/fuzz_fclib) */
  if (lp != plen)
    return fail(e, FCD_E_FORMAT, "%s has %lld entries, its storage needs %lld", name, lp, plen);
  snprintf(name, sizeof name, "%s/i", grp);
  long long li = ds_len(f, name);
  if (li != ilen)
    return fail(e, FCD_E_FORMAT, "%s has %lld entries, expected %lld", name, li, ilen);
  snprintf(name, sizeof name, "%s/x", grp);
  long long lx = ds_len(f, name);
  if (lx != ilen)
    return fail(e, FCD_E_FORMAT, "%s has %lld entries, expected %lld", name, lx, ilen);
  return FCD_OK;
}

/* fclib matrix (CSR, CSC or triplets) to validated triplets, with a sign. */
static fcd_status matrix_triplets(errsink *e, const char *what, const struct fclib_matrix *a,
                                  double sign, fcd_index *nnz, fcd_index **ri,
                                  fcd_index **ci, fcd_real **v) {
  fcd_index n_ent = a->nz >= 0 ? a->nz : (a->nz == -2 ? a->p[a->m] : a->p[a->n]);
  if (a->nz < 0) {
    int outer = a->nz == -2 ? a->m : a->n;
    if (a->p[0] != 0) return fail(e, FCD_E_FORMAT, "%s: pointer array does not start at 0", what);
    for (int k = 0; k < outer; k++)
      if (a->p[k + 1] < a->p[k])
        return fail(e, FCD_E_FORMAT, "%s: pointer array decreases at %d", what, k);
    if (n_ent > a->nzmax)
      return fail(e, FCD_E_FORMAT, "%s: %lld entries exceed nzmax %d", what,
                  (long long)n_ent, a->nzmax);
  }
  *ri = fcd__malloc_array((size_t)n_ent, sizeof **ri);
  *ci = fcd__malloc_array((size_t)n_ent, sizeof **ci);
  *v = fcd__malloc_array((size_t)n_ent, sizeof **v);
  if (!*ri || !*ci || !*v) return fail(e, FCD_E_NOMEM, "out of memory");
  fcd_index t = 0;
  if (a->nz >= 0) {
    /* Triplets follow CSparse (which fclib mirrors): i holds the row and p the column
     * of each entry, whatever fclib.h's comment says; every file written by Siconos and
     * LMGC90 in tests/data/fclib reads consistently only this way. */
    for (int k = 0; k < a->nz; k++, t++) {
      (*ri)[t] = a->i[k];
      (*ci)[t] = a->p[k];
    }
  } else {
    int outer = a->nz == -2 ? a->m : a->n;
    for (int o = 0; o < outer; o++)
      for (int k = a->p[o]; k < a->p[o + 1]; k++, t++) {
        (*ri)[t] = a->nz == -2 ? o : a->i[k];
        (*ci)[t] = a->nz == -2 ? a->i[k] : o;
      }
  }
  for (fcd_index k = 0; k < t; k++) {
    if ((*ri)[k] < 0 || (*ri)[k] >= a->m || (*ci)[k] < 0 || (*ci)[k] >= a->n)
      return fail(e, FCD_E_FORMAT, "%s: entry %lld at (%lld, %lld) outside %d x %d", what,
                  (long long)k, (long long)(*ri)[k], (long long)(*ci)[k], a->m, a->n);
    if (!isfinite(a->x[k]))
      return fail(e, FCD_E_FORMAT, "%s: entry %lld is not finite", what, (long long)k);
    (*v)[k] = sign * a->x[k];
  }
  *nnz = t;
  return FCD_OK;
}

static fcd_real *dup_vec(const double *x, fcd_index n, double sign) {
  fcd_real *y = fcd__malloc_array((size_t)n, sizeof *y);
  if (!y || !x) {
    fcd__free(y);
    return NULL;
  }
  for (fcd_index i = 0; i < n; i++) y[i] = sign * x[i];
  return y;
}

static fcd_status check_finite(errsink *e, const char *what, const fcd_real *x, fcd_index n,
                               int nonneg) {
  for (fcd_index i = 0; i < n; i++)
    if (!isfinite(x[i]) || (nonneg && x[i] < 0))
      return fail(e, FCD_E_FORMAT, "%s[%lld] = %g is %s", what, (long long)i, x[i],
                  isfinite(x[i]) ? "negative" : "not finite");
  return FCD_OK;
}

void fcd__fclib_data_free(fcd__fclib_data *d) {
  fcd__free(d->wi);
  fcd__free(d->wj);
  fcd__free(d->wv);
  fcd__free(d->mi);
  fcd__free(d->mj);
  fcd__free(d->mv);
  fcd__free(d->hi);
  fcd__free(d->hj);
  fcd__free(d->hv);
  fcd__free(d->q);
  fcd__free(d->f);
  fcd__free(d->w);
  fcd__free(d->mu);
  fcd__free(d->sol_r);
  memset(d, 0, sizeof *d);
}

/* The problem's info strings: fclib sizes its buffer from the string type and reads
 * the whole dataset into it, so anything but one fixed-length string overflows it
 * (found by tests/fuzz/fuzz_fclib). */
static fcd_status check_info(hid_t f, errsink *e, const char *root) {
  char name[128];
  snprintf(name, sizeof name, "%s/info", root);
  if (!link_exists(f, name)) return FCD_OK;
  H5O_info_t oi;
  if (H5Oget_info_by_name(f, name, &oi, H5P_DEFAULT) < 0 || oi.type != H5O_TYPE_GROUP)
    return fail(e, FCD_E_FORMAT, "%s is not a group", name);
  static const char *fields[3] = {"title", "description", "math_info"};
  for (int k = 0; k < 3; k++) {
    snprintf(name, sizeof name, "%s/info/%s", root, fields[k]);
    if (!link_exists(f, name)) continue;
    int ok = 0;
    hid_t ds = H5Dopen2(f, name, H5P_DEFAULT);
    if (ds >= 0) {
      hid_t ty = H5Dget_type(ds), sp = H5Dget_space(ds);
      ok = ty >= 0 && sp >= 0 && H5Tget_class(ty) == H5T_STRING && H5Tis_variable_str(ty) == 0 &&
           H5Sget_simple_extent_npoints(sp) == 1;
      if (ty >= 0) H5Tclose(ty);
      if (sp >= 0) H5Sclose(sp);
      H5Dclose(ds);
    }
    if (!ok) return fail(e, FCD_E_FORMAT, "%s is not one fixed-length string", name);
  }
  return FCD_OK;
}

/* Everything fclib_read_local/global will touch, checked without fclib. */
static fcd_status validate(hid_t f, errsink *e, int *global, int *dim, long long *nc,
                           long long *ndofs) {
  int loc = link_exists(f, "/fclib_local"), glo = link_exists(f, "/fclib_global");
  if (loc == glo)
    return fail(e, FCD_E_FORMAT, loc ? "holds both a local and a global problem"
                                     : "holds no fclib problem (/fclib_local or /fclib_global)");
  *global = glo;
  const char *root = glo ? "/fclib_global" : "/fclib_local";
  char name[128];
  snprintf(name, sizeof name, "%s/spacedim", root);
  if (!read_int(f, name, dim)) return fail(e, FCD_E_FORMAT, "missing or malformed %s", name);
  if (*dim != 2 && *dim != 3)
    return fail(e, FCD_E_FORMAT, "%s = %d is not 2 or 3", name, *dim);
  FCD_TRY(check_info(f, e, root));
  snprintf(name, sizeof name, "%s/vectors/mu", root);
  *nc = ds_len(f, name);
  if (*nc < 0) return fail(e, FCD_E_FORMAT, "missing dataset %s", name);
  long long m = *nc * *dim;
  if (!glo) {
    if (link_exists(f, "/fclib_local/V") || link_exists(f, "/fclib_local/R"))
      return fail(e, FCD_E_UNSUPPORTED, "local problems with equality constraints (V, R) "
                  "are not supported");
    FCD_TRY(check_matrix(f, e, "/fclib_local/W", m, m));
    if (ds_len(f, "/fclib_local/vectors/q") != m)
      return fail(e, FCD_E_FORMAT, "/fclib_local/vectors/q is missing or not of size %lld", m);
    *ndofs = 0;
  } else {
    if (link_exists(f, "/fclib_global/G"))
      return fail(e, FCD_E_UNSUPPORTED, "global problems with equality constraints (G) are "
                  "not supported");
    int mm;
    if (!read_int(f, "/fclib_global/M/m", &mm) || mm <= 0)
      return fail(e, FCD_E_FORMAT, "missing or malformed /fclib_global/M/m");
    *ndofs = mm;
    FCD_TRY(check_matrix(f, e, "/fclib_global/M", mm, mm));
    FCD_TRY(check_matrix(f, e, "/fclib_global/H", mm, m));
    if (ds_len(f, "/fclib_global/vectors/f") != mm)
      return fail(e, FCD_E_FORMAT, "/fclib_global/vectors/f is missing or not of size %d", mm);
    if (ds_len(f, "/fclib_global/vectors/w") != m)
      return fail(e, FCD_E_FORMAT, "/fclib_global/vectors/w is missing or not of size %lld", m);
  }
  return FCD_OK;
}

fcd_status fcd__fclib_read(const char *path, fcd__fclib_data *d, char *errbuf, size_t cap) {
  errsink e = {errbuf, cap, path};
  memset(d, 0, sizeof *d);
  FILE *fp = fopen(path, "rb");
  if (!fp) return fail(&e, FCD_E_IO, "cannot open: %s", strerror(errno));
  unsigned char sig[8] = {0};
  size_t got = fread(sig, 1, 8, fp);
  fclose(fp);
  static const unsigned char h5sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
  if (got < 8 || memcmp(sig, h5sig, 8) != 0)
    return fail(&e, FCD_E_FORMAT, "not an HDF5 file (no HDF5 signature)");

  pthread_mutex_lock(&h5_lock);
  H5E_auto2_t old_fn = NULL;
  void *old_data = NULL;
  H5Eget_auto2(H5E_DEFAULT, &old_fn, &old_data);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* HDF5 must not print on fcd's behalf */
  fcd_status st = FCD_OK;
  int global = 0, dim = 0;
  long long nc = 0, ndofs = 0;
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) {
    st = fail(&e, FCD_E_FORMAT, "HDF5 cannot open it (damaged or truncated file)");
    goto unlock;
  }
  st = validate(f, &e, &global, &dim, &nc, &ndofs);
  long long m = nc * dim;
  /* the stored solution, read here (fclib's reader would exit on a partial one) */
  if (st == FCD_OK && ds_len(f, "/solution/r") == m) {
    d->sol_r = read_doubles(f, "/solution/r", m);
    if (!d->sol_r) st = fail(&e, FCD_E_FORMAT, "cannot read /solution/r");
  }
  H5Fclose(f);
  if (st != FCD_OK) goto unlock;
  d->dim = dim;
  d->nc = nc;
  d->m = m;
  d->ndofs = ndofs;
  if (!global) {
    struct fclib_local *lp = fclib_read_local(path);
    if (!lp) {
      st = fail(&e, FCD_E_FORMAT, "fclib could not read the local problem");
      goto unlock;
    }
    st = matrix_triplets(&e, "W", lp->W, 1.0, &d->nw, &d->wi, &d->wj, &d->wv);
    if (st == FCD_OK) {
      d->q = dup_vec(lp->q, m, -1.0);
      d->mu = dup_vec(lp->mu, nc, 1.0);
      if ((m && !d->q) || (nc && !d->mu)) st = fail(&e, FCD_E_NOMEM, "out of memory");
    }
    fclib_delete_local(lp);
    free(lp);
  } else {
    struct fclib_global *gp = fclib_read_global(path);
    if (!gp) {
      st = fail(&e, FCD_E_FORMAT, "fclib could not read the global problem");
      goto unlock;
    }
    st = matrix_triplets(&e, "M", gp->M, 1.0, &d->nm, &d->mi, &d->mj, &d->mv);
    if (st == FCD_OK) st = matrix_triplets(&e, "H", gp->H, 1.0, &d->nh, &d->hi, &d->hj, &d->hv);
    if (st == FCD_OK) {
      d->f = dup_vec(gp->f, ndofs, 1.0);
      d->w = dup_vec(gp->w, m, 1.0);
      d->mu = dup_vec(gp->mu, nc, 1.0);
      if (!d->f || (m && !d->w) || (nc && !d->mu)) st = fail(&e, FCD_E_NOMEM, "out of memory");
    }
    if (st == FCD_OK) {
      flip_convention(d->nh, d->hv);
      flip_convention(m, d->w);
    }
    fclib_delete_global(gp);
    free(gp);
  }
  if (st == FCD_OK) flip_convention(m, d->sol_r);
  if (st == FCD_OK && d->q) st = check_finite(&e, "q", d->q, m, 0);
  if (st == FCD_OK && d->f) st = check_finite(&e, "f", d->f, ndofs, 0);
  if (st == FCD_OK && d->w) st = check_finite(&e, "w", d->w, m, 0);
  if (st == FCD_OK) st = check_finite(&e, "mu", d->mu, nc, 1);
  if (st == FCD_OK && d->sol_r) st = check_finite(&e, "solution r", d->sol_r, m, 0);
unlock:
  H5Eset_auto2(H5E_DEFAULT, old_fn, old_data);
  pthread_mutex_unlock(&h5_lock);
  if (st != FCD_OK) fcd__fclib_data_free(d);
  return st;
}

/* fclib CSR (int indices) from an fcd CSR of rows x cols; symmetric (upper) storage is
 * expanded since fclib stores full matrices. */
static int to_fclib_matrix(const fcd__csr *a, fcd_index rows, fcd_index cols, double sign,
                           struct fclib_matrix *out) {
  memset(out, 0, sizeof *out);
  if (rows > 2147483647 || cols > 2147483647) return 0;
  fcd_index nnz = a->rowptr[rows], full = nnz;
  if (a->upper)
    for (fcd_index i = 0; i < rows; i++)
      for (fcd_index k = a->rowptr[i]; k < a->rowptr[i + 1]; k++)
        if (a->col[k] != i) full++;
  if (full > 2147483647) return 0;
  fcd_index *ri = fcd__malloc_array((size_t)full, sizeof *ri);
  fcd_index *ci = fcd__malloc_array((size_t)full, sizeof *ci);
  fcd_real *v = fcd__malloc_array((size_t)full, sizeof *v);
  fcd_index *rp = NULL, *cc = NULL;
  fcd_real *vv = NULL;
  int ok = 0;
  if (!ri || !ci || !v) goto done;
  fcd_index t = 0;
  for (fcd_index i = 0; i < rows; i++)
    for (fcd_index k = a->rowptr[i]; k < a->rowptr[i + 1]; k++) {
      ri[t] = i;
      ci[t] = a->col[k];
      v[t++] = sign * a->val[k];
      if (a->upper && a->col[k] != i) {
        ri[t] = a->col[k];
        ci[t] = i;
        v[t++] = sign * a->val[k];
      }
    }
  fcd_index big = rows > cols ? rows : cols;
  if (fcd__coo_to_csr(big, t, ri, ci, v, &rp, &cc, &vv, NULL) != FCD_OK) goto done;
  out->m = (int)rows;
  out->n = (int)cols;
  out->nz = -2;
  out->nzmax = (int)rp[rows];
  out->p = malloc(((size_t)rows + 1) * sizeof(int));
  out->i = malloc((size_t)(out->nzmax ? out->nzmax : 1) * sizeof(int));
  out->x = malloc((size_t)(out->nzmax ? out->nzmax : 1) * sizeof(double));
  if (!out->p || !out->i || !out->x) goto done;
  for (fcd_index i = 0; i <= rows; i++) out->p[i] = (int)rp[i];
  for (fcd_index k = 0; k < rp[rows]; k++) {
    out->i[k] = (int)cc[k];
    out->x[k] = vv[k];
  }
  ok = 1;
done:
  fcd__free(ri);
  fcd__free(ci);
  fcd__free(v);
  fcd__free(rp);
  fcd__free(cc);
  fcd__free(vv);
  return ok;
}

static void free_fclib_matrix(struct fclib_matrix *a) {
  free(a->p);
  free(a->i);
  free(a->x);
}

fcd_status fcd__fclib_write(const fcd_system *sink, const char *path, int dim, fcd_index nc,
                            const fcd__csr *W, const fcd_real *q, const fcd__csr *M,
                            const fcd__csr *H, fcd_index ndofs, const fcd_real *f,
                            const fcd_real *w, const fcd_real *mu, const fcd_real *r,
                            const fcd_real *u, const fcd_real *v) {
  fcd_index m = dim * nc;
  struct fclib_matrix a = {0}, b = {0};
  struct fclib_info info = {"fcd", "written by fcd " FCD_VERSION_STRING, "unknown"};
  double *qf = NULL, *wf = NULL, *rf = NULL, *uf = NULL;
  fcd_status st = FCD_OK;
  int ok;
  /* every local vector leaves in fclib's convention */
  if (q && !(qf = dup_vec(q, m, 1.0))) st = FCD_E_NOMEM;
  if (w && !(wf = dup_vec(w, m, 1.0))) st = FCD_E_NOMEM;
  if (r && !(rf = dup_vec(r, m, 1.0))) st = FCD_E_NOMEM;
  if (u && !(uf = dup_vec(u, m, 1.0))) st = FCD_E_NOMEM;
  if (st != FCD_OK) goto done;
  flip_convention(qf ? m : 0, qf);
  flip_convention(wf ? m : 0, wf);
  flip_convention(rf ? m : 0, rf);
  flip_convention(uf ? m : 0, uf);
  /* fclib prints its own error and HDF5's diagnostics when it cannot create the file,
   * whatever the HDF5 error handler: find out first, quietly */
  FILE *probe = fopen(path, "wb");
  if (!probe) {
    st = fcd__err(sink, FCD_E_IO, "cannot create the fclib file '%s': %s", path,
                  strerror(errno));
    goto done;
  }
  fclose(probe);
  remove(path); /* fclib appends to an existing file */
  pthread_mutex_lock(&h5_lock);
  H5E_auto2_t old_fn = NULL;
  void *old_data = NULL;
  H5Eget_auto2(H5E_DEFAULT, &old_fn, &old_data);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  if (!W) {
    ok = to_fclib_matrix(M, ndofs, ndofs, 1.0, &a) && to_fclib_matrix(H, ndofs, m, -1.0, &b);
    struct fclib_global g = {&a, &b, NULL, (double *)(uintptr_t)mu, (double *)(uintptr_t)f,
                             NULL, wf, dim, &info};
    ok = ok && fclib_write_global(&g, path);
  } else {
    ok = to_fclib_matrix(W, m, m, 1.0, &a);
    struct fclib_local l = {&a, NULL, NULL, (double *)(uintptr_t)mu, qf, NULL, dim, &info};
    ok = ok && fclib_write_local(&l, path);
  }
  if (ok && rf) {
    struct fclib_solution s = {(double *)(uintptr_t)v, uf, rf, NULL};
    ok = fclib_write_solution(&s, path);
  }
  H5Eset_auto2(H5E_DEFAULT, old_fn, old_data);
  pthread_mutex_unlock(&h5_lock);
  if (!ok) st = fcd__err(sink, FCD_E_IO, "cannot write the fclib file '%s'", path);
done:
  free_fclib_matrix(&a);
  free_fclib_matrix(&b);
  fcd__free(qf);
  fcd__free(wf);
  fcd__free(rf);
  fcd__free(uf);
  if (st == FCD_E_NOMEM) return fcd__err(sink, st, "out of memory writing '%s'", path);
  return st;
}
