/* PETSc binary matrices (MatView/MatLoad with PETSC_VIEWER_BINARY), read and written
 * without PETSc: a host or a script exchanges matrices with PETSc-based codes through
 * files, and a malformed file must be refused here rather than inside PETSc. The layout
 * of an AIJ matrix, all big-endian, with PETSc's default 32-bit indices:
 *   int32 class id 1211216 (MAT_FILE_CLASSID), int32 rows, int32 columns, int32 nnz,
 *   int32 row lengths[rows], int32 column indices[nnz], float64 values[nnz].
 * A file may hold further objects after the matrix (PETSc appends them); only the first
 * is read. */
#include "model.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

enum { MAT_CLASSID = 1211216, VEC_CLASSID = 1211214, IS_CLASSID = 1211218 };

static void put32(unsigned char *b, int32_t v) {
  uint32_t u = (uint32_t)v;
  b[0] = (unsigned char)(u >> 24);
  b[1] = (unsigned char)(u >> 16);
  b[2] = (unsigned char)(u >> 8);
  b[3] = (unsigned char)u;
}

static int32_t get32(const unsigned char *b) {
  uint32_t u = ((uint32_t)b[0] << 24) | ((uint32_t)b[1] << 16) | ((uint32_t)b[2] << 8) | b[3];
  int32_t v;
  memcpy(&v, &u, sizeof v);
  return v;
}

static void put64f(unsigned char *b, double d) {
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  for (int k = 7; k >= 0; k--) {
    b[k] = (unsigned char)u;
    u >>= 8;
  }
}

static double get64f(const unsigned char *b) {
  uint64_t u = 0;
  for (int k = 0; k < 8; k++) u = (u << 8) | b[k];
  double d;
  memcpy(&d, &u, sizeof d);
  return d;
}

static const char *class_name(int32_t id) {
  switch (id) {
  case VEC_CLASSID: return "a vector";
  case IS_CLASSID: return "an index set";
  default: return "not a PETSc object";
  }
}

/* reads n bytes or reports the truncation */
static fcd_status read_exact(FILE *fp, void *buf, size_t n, const fcd_system *sys,
                             const char *path, const char *what) {
  if (n == 0 || fread(buf, 1, n, fp) == n) return FCD_OK;
  return fcd__err(sys, ferror(fp) ? FCD_E_IO : FCD_E_FORMAT,
                  "%s: %s while reading the %s", path,
                  ferror(fp) ? strerror(errno) : "truncated file", what);
}

/* The header: class id, sizes and entries, checked against each other and against the
 * file's length (what the header announces must be there before anything is allocated
 * for it). sys may be NULL: errbuf then receives the message. */
static fcd_status read_head(FILE *fp, const char *path, const fcd_system *sys, char *errbuf,
                            size_t errcap, int32_t head[3]) {
  unsigned char hdr[16];
  if (fread(hdr, 1, sizeof hdr, fp) != sizeof hdr)
    return fcd__err_to(sys, errbuf, errcap, ferror(fp) ? FCD_E_IO : FCD_E_FORMAT,
                       "%s: %s while reading the header", path,
                       ferror(fp) ? strerror(errno) : "truncated file");
  int32_t cls = get32(hdr), nr = get32(hdr + 4), nc = get32(hdr + 8), nz = get32(hdr + 12);
  if (cls != MAT_CLASSID)
    return fcd__err_to(sys, errbuf, errcap, FCD_E_FORMAT, "%s: not a PETSc binary matrix "
                       "(class id %ld: %s; a matrix has %d)", path, (long)cls,
                       class_name(cls), MAT_CLASSID);
  if (nr < 0 || nc < 0 || nz < 0)
    return fcd__err_to(sys, errbuf, errcap, FCD_E_FORMAT, "%s: negative size in the header "
                       "(%ld x %ld, %ld entries)", path, (long)nr, (long)nc, (long)nz);
  if ((int64_t)nz > (int64_t)nr * (int64_t)nc)
    return fcd__err_to(sys, errbuf, errcap, FCD_E_FORMAT, "%s: %ld entries do not fit a %ld "
                       "x %ld matrix", path, (long)nz, (long)nr, (long)nc);
  long here = ftell(fp), end = -1;
  if (here >= 0 && fseek(fp, 0, SEEK_END) == 0) end = ftell(fp);
  if (end < 0 || fseek(fp, here, SEEK_SET) != 0)
    return fcd__err_to(sys, errbuf, errcap, FCD_E_IO, "%s: cannot seek: %s", path,
                       strerror(errno));
  int64_t need = 16 + 4 * (int64_t)nr + 12 * (int64_t)nz;
  if ((int64_t)end < need)
    return fcd__err_to(sys, errbuf, errcap, FCD_E_FORMAT, "%s: truncated: the header "
                       "announces a %ld x %ld matrix with %ld entries (%lld bytes), the file "
                       "has %ld bytes", path, (long)nr, (long)nc, (long)nz, (long long)need,
                       end);
  head[0] = nr;
  head[1] = nc;
  head[2] = nz;
  return FCD_OK;
}

fcd_status fcd_petsc_binary_size(const char *path, fcd_index *nrows, fcd_index *ncols,
                                 fcd_index *nnz, char *errbuf, size_t errcap) {
  if (!path) {
    if (errbuf && errcap) snprintf(errbuf, errcap, "path is NULL");
    return FCD_E_INVALID_ARG;
  }
  FILE *fp;
  FCD_TRY(fcd__open_input(NULL, path, &fp, errbuf, errcap));
  int32_t head[3];
  fcd_status st = read_head(fp, path, NULL, errbuf, errcap, head);
  fclose(fp);
  if (st != FCD_OK) return st;
  if (nrows) *nrows = head[0];
  if (ncols) *ncols = head[1];
  if (nnz) *nnz = head[2];
  return FCD_OK;
}

fcd_status fcd_system_read_petsc_binary(fcd_system *sys, fcd_matrix_kind which,
                                        const char *path) {
  FCD_CHECK_SYS(sys);
  if ((int)which < 0 || (int)which > 2)
    return fcd__err(sys, FCD_E_INVALID_ARG, "read_petsc_binary: unknown matrix kind %d",
                    (int)which);
  if (!path) return fcd__err(sys, FCD_E_INVALID_ARG, "read_petsc_binary: path is NULL");
  FILE *fp;
  FCD_TRY(fcd__open_input(sys, path, &fp, NULL, 0));
  int32_t head[3], *len = NULL;
  fcd_index *ri = NULL, *ci = NULL;
  fcd_real *vv = NULL;
  unsigned char *buf = NULL;
  fcd_status st = read_head(fp, path, sys, NULL, 0, head);
  if (st != FCD_OK) goto done;
  int32_t nr = head[0], nc = head[1], nz = head[2];
  if (nr != sys->n || nc != sys->n) {
    st = fcd__err(sys, FCD_E_INVALID_ARG, "%s: the %s matrix is %ld x %ld but the system has "
                  "%lld dofs", path, fcd__matrix_name(which), (long)nr, (long)nc,
                  (long long)sys->n);
    goto done;
  }
  len = fcd__malloc_array((size_t)nr + 1, sizeof *len);
  buf = fcd__malloc(4 * (size_t)nr + 8);
  if (!len || !buf) {
    st = fcd__err(sys, FCD_E_NOMEM, "%s: out of memory for %ld rows", path, (long)nr);
    goto done;
  }
  if ((st = read_exact(fp, buf, 4 * (size_t)nr, sys, path, "row lengths")) != FCD_OK) goto done;
  int64_t total = 0;
  for (int32_t i = 0; i < nr; i++) {
    len[i] = get32(buf + 4 * (size_t)i);
    if (len[i] < 0 || len[i] > nc) {
      st = fcd__err(sys, FCD_E_FORMAT, "%s: row %ld has %ld entries (0 to %ld allowed)", path,
                    (long)i, (long)len[i], (long)nc);
      goto done;
    }
    total += len[i];
  }
  if (total != nz) {
    st = fcd__err(sys, FCD_E_FORMAT, "%s: the row lengths add up to %lld entries, the header "
                  "says %ld", path, (long long)total, (long)nz);
    goto done;
  }
  /* This rank's rows only (all of them on a serial system): their columns and values
   * are contiguous in the file, so a distributed host's rank reads its block and never
   * holds the others' entries. */
  fcd_index rb, re;
  fcd__rows_range(sys, &rb, &re);
  int64_t off = 0, cnt = 0;
  for (fcd_index i = 0; i < rb; i++) off += len[i];
  for (fcd_index i = rb; i < re; i++) cnt += len[i];
  fcd__free(buf);
  ri = fcd__malloc_array((size_t)cnt + 1, sizeof *ri);
  ci = fcd__malloc_array((size_t)cnt + 1, sizeof *ci);
  vv = fcd__malloc_array((size_t)cnt + 1, sizeof *vv);
  buf = fcd__malloc(8 * (size_t)cnt + 8);
  if (!ri || !ci || !vv || !buf) {
    st = fcd__err(sys, FCD_E_NOMEM, "%s: out of memory for %lld entries", path, (long long)cnt);
    goto done;
  }
  if (fseek(fp, (long)(16 + 4 * (int64_t)nr + 4 * off), SEEK_SET) != 0) {
    st = fcd__err(sys, FCD_E_IO, "%s: cannot seek: %s", path, strerror(errno));
    goto done;
  }
  if ((st = read_exact(fp, buf, 4 * (size_t)cnt, sys, path, "column indices")) != FCD_OK)
    goto done;
  fcd_index k = 0;
  for (fcd_index i = rb; i < re; i++)
    for (int32_t q = 0; q < len[i]; q++, k++) {
      int32_t c = get32(buf + 4 * (size_t)k);
      if (c < 0 || c >= nc) {
        st = fcd__err(sys, FCD_E_FORMAT, "%s: entry %lld of row %ld has column %ld, outside "
                      "[0, %ld)", path, (long long)(off + k), (long)i, (long)c, (long)nc);
        goto done;
      }
      ri[k] = i;
      ci[k] = c;
    }
  if (fseek(fp, (long)(16 + 4 * (int64_t)nr + 4 * (int64_t)nz + 8 * off), SEEK_SET) != 0) {
    st = fcd__err(sys, FCD_E_IO, "%s: cannot seek: %s", path, strerror(errno));
    goto done;
  }
  if ((st = read_exact(fp, buf, 8 * (size_t)cnt, sys, path, "values")) != FCD_OK) goto done;
  for (fcd_index q = 0; q < cnt; q++) vv[q] = get64f(buf + 8 * (size_t)q);
  st = fcd_system_set_matrix_coo(sys, which, (fcd_index)cnt, ri, ci, vv, FCD_COO_FULL);
  if (st != FCD_OK) {
    char why[FCD_ERRMSG_CAP];
    snprintf(why, sizeof why, "%s", fcd_system_last_error(sys));
    st = fcd__err(sys, st, "%s: %s", path, why);
  }
done:
  fclose(fp);
  fcd__free(len);
  fcd__free(ri);
  fcd__free(ci);
  fcd__free(vv);
  fcd__free(buf);
  return st;
}

fcd_status fcd_system_write_petsc_binary(const fcd_system *sys, fcd_matrix_kind which,
                                         const char *path) {
  FCD_CHECK_SYS(sys);
  if ((int)which < 0 || (int)which > 2)
    return fcd__err(sys, FCD_E_INVALID_ARG, "write_petsc_binary: unknown matrix kind %d",
                    (int)which);
  if (!path) return fcd__err(sys, FCD_E_INVALID_ARG, "write_petsc_binary: path is NULL");
  if (!sys->mat[which].set)
    return fcd__err(sys, FCD_E_STATE, "%s matrix was never set", fcd__matrix_name(which));
  /* PETSc stores the whole matrix, rows in order, columns increasing within a row: what
   * fcd_system_get_matrix_coo gives */
  fcd_index n = sys->n, nz = 0;
  FCD_TRY(fcd_system_matrix_nnz(sys, which, NULL, &nz));
  if (n > INT32_MAX || nz > INT32_MAX)
    return fcd__err(sys, FCD_E_UNSUPPORTED, "write_petsc_binary: %lld rows and %lld entries "
                    "exceed PETSc's 32-bit binary format", (long long)n, (long long)nz);
  fcd_index *row = fcd__malloc_array((size_t)nz + 1, sizeof *row);
  fcd_index *col = fcd__malloc_array((size_t)nz + 1, sizeof *col);
  fcd_real *val = fcd__malloc_array((size_t)nz + 1, sizeof *val);
  unsigned char *buf = fcd__malloc(8 * (size_t)(nz > n ? nz : n) + 16);
  fcd_status st = FCD_OK;
  FILE *fp = NULL;
  if (!row || !col || !val || !buf) {
    st = fcd__err(sys, FCD_E_NOMEM, "write_petsc_binary: out of memory for %lld entries",
                  (long long)nz);
    goto done;
  }
  if ((st = fcd_system_get_matrix_coo(sys, which, row, col, val)) != FCD_OK) goto done;
  fp = fopen(path, "wb");
  if (!fp) {
    st = fcd__err(sys, FCD_E_IO, "cannot create '%s': %s", path, strerror(errno));
    goto done;
  }
  put32(buf, MAT_CLASSID);
  put32(buf + 4, (int32_t)n);
  put32(buf + 8, (int32_t)n);
  put32(buf + 12, (int32_t)nz);
  int bad = fwrite(buf, 1, 16, fp) != 16;
  for (fcd_index i = 0, q = 0; i < n; i++) { /* row lengths: the rows come sorted */
    fcd_index q0 = q;
    while (q < nz && row[q] == i) q++;
    put32(buf + 4 * (size_t)i, (int32_t)(q - q0));
  }
  bad |= fwrite(buf, 1, 4 * (size_t)n, fp) != 4 * (size_t)n;
  for (fcd_index q = 0; q < nz; q++) put32(buf + 4 * (size_t)q, (int32_t)col[q]);
  bad |= fwrite(buf, 1, 4 * (size_t)nz, fp) != 4 * (size_t)nz;
  for (fcd_index q = 0; q < nz; q++) put64f(buf + 8 * (size_t)q, val[q]);
  bad |= fwrite(buf, 1, 8 * (size_t)nz, fp) != 8 * (size_t)nz;
  bad |= ferror(fp);
  if (fclose(fp) != 0 || bad) st = fcd__err(sys, FCD_E_IO, "write error on '%s'", path);
done:
  fcd__free(row);
  fcd__free(col);
  fcd__free(val);
  fcd__free(buf);
  return st;
}
