/* Matrix Market (coordinate real/integer, general/symmetric) and the prescribed-dof
 * text file. Every defect is reported with the file and the line number. */
#include "model.h"
#include "import_private.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct {
  fcd__lines L;
  const char *path;
  const fcd_system *sys;
  char *errbuf;
  size_t errcap;
  fcd_status st; /* of the failed next_line */
} reader;

/* Next line without its newline: 1, 0 at end of file, -1 on a bounded-input failure
 * (r->st, message set). */
static int next_line(reader *r) {
  return fcd__lines_next(&r->L, r->sys, r->errbuf, r->errcap, &r->st);
}

static int blank(const char *s) {
  while (*s && isspace((unsigned char)*s)) s++;
  return *s == 0;
}

static int parse_index(const char **s, long long *out) {
  size_t n = fcd__scan_int(*s, out);
  if (!n || ((*s)[n] && !isspace((unsigned char)(*s)[n]))) return 0;
  *s += n;
  return 1;
}

static int parse_real(const char **s, double *out) {
  size_t n = fcd__scan_real(*s, out);
  if (!n || ((*s)[n] && !isspace((unsigned char)(*s)[n]))) return 0;
  *s += n;
  return 1;
}

typedef struct {
  int symmetric;
  long long nrows, ncols, nnz;
} mm_header;

/* Reads banner, comments and the size line. sys may be NULL (errbuf then gets the
 * message). */
static fcd_status read_header(reader *r, mm_header *h, const fcd_system *sys, char *errbuf,
                              size_t errcap) {
#define HERR(code, ...)                                                                \
  do {                                                                                 \
    return fcd__err_to(sys, errbuf, errcap, code, __VA_ARGS__);                        \
  } while (0)
  int got = next_line(r);
  if (got < 0) return r->st;
  if (!got) HERR(FCD_E_FORMAT, "%s: empty file, expected a Matrix Market banner", r->path);
  char w[5][64];
  int nw = sscanf(r->L.line, "%63s %63s %63s %63s %63s", w[0], w[1], w[2], w[3], w[4]);
  if (nw < 1 || strcasecmp(w[0], "%%MatrixMarket") != 0)
    HERR(FCD_E_FORMAT, "%s:%ld: missing the '%%%%MatrixMarket' banner", r->path, r->L.lineno);
  if (nw != 5)
    HERR(FCD_E_FORMAT, "%s:%ld: the banner needs object, format, field and symmetry",
         r->path, r->L.lineno);
  if (strcasecmp(w[1], "matrix") != 0)
    HERR(FCD_E_UNSUPPORTED, "%s:%ld: object '%s' is not supported (only 'matrix')", r->path,
         r->L.lineno, w[1]);
  if (strcasecmp(w[2], "coordinate") != 0)
    HERR(FCD_E_UNSUPPORTED, "%s:%ld: format '%s' is not supported (only sparse 'coordinate')",
         r->path, r->L.lineno, w[2]);
  if (strcasecmp(w[3], "real") != 0 && strcasecmp(w[3], "integer") != 0)
    HERR(FCD_E_UNSUPPORTED, "%s:%ld: field '%s' is not supported (only 'real' or 'integer')",
         r->path, r->L.lineno, w[3]);
  if (strcasecmp(w[4], "general") == 0) h->symmetric = 0;
  else if (strcasecmp(w[4], "symmetric") == 0) h->symmetric = 1;
  else
    HERR(FCD_E_UNSUPPORTED,
         "%s:%ld: symmetry '%s' is not supported (only 'general' or 'symmetric')", r->path,
         r->L.lineno, w[4]);
  for (;;) {
    if ((got = next_line(r)) < 0) return r->st;
    if (!got) HERR(FCD_E_FORMAT, "%s: end of file before the size line", r->path);
    if (r->L.line[0] == '%' || blank(r->L.line)) continue;
    break;
  }
  const char *s = r->L.line;
  if (!parse_index(&s, &h->nrows) || !parse_index(&s, &h->ncols) ||
      !parse_index(&s, &h->nnz) || !blank(s))
    HERR(FCD_E_FORMAT, "%s:%ld: expected 'rows columns entries' on the size line", r->path,
         r->L.lineno);
  if (h->nrows <= 0 || h->ncols <= 0 || h->nnz < 0)
    HERR(FCD_E_FORMAT, "%s:%ld: invalid sizes %lld x %lld with %lld entries", r->path,
         r->L.lineno, h->nrows, h->ncols, h->nnz);
  /* beyond this the header is wrong, not the matrix large: refuse before allocating */
  if ((double)h->nnz > (h->symmetric ? 0.5 * (double)h->nrows * ((double)h->nrows + 1)
                                     : (double)h->nrows * (double)h->ncols))
    HERR(FCD_E_FORMAT, "%s:%ld: %lld entries declared, more than a %lld x %lld matrix has",
         r->path, r->L.lineno, h->nnz, h->nrows, h->ncols);
  if (h->symmetric && h->nrows != h->ncols)
    HERR(FCD_E_FORMAT, "%s:%ld: a symmetric matrix must be square (%lld x %lld)", r->path,
         r->L.lineno, h->nrows, h->ncols);
  return FCD_OK;
#undef HERR
}

static fcd_status open_reader(reader *r, const char *path, const fcd_system *sys,
                              char *errbuf, size_t errcap) {
  memset(r, 0, sizeof *r);
  r->path = path;
  r->sys = sys;
  r->errbuf = errbuf;
  r->errcap = errcap;
  FILE *fp;
  FCD_TRY(fcd__open_input(sys, path, &fp, errbuf, errcap));
  fcd__lines_init(&r->L, fp, path);
  return FCD_OK;
}

static void close_reader(reader *r) {
  if (r->L.fp) fclose(r->L.fp);
  fcd__lines_free(&r->L);
}

fcd_status fcd_matrix_market_size(const char *path, fcd_index *nrows, fcd_index *ncols,
                                  fcd_index *nnz, char *errbuf, size_t errcap) {
  if (!path) {
    if (errbuf && errcap) snprintf(errbuf, errcap, "path is NULL");
    return FCD_E_INVALID_ARG;
  }
  reader r;
  FCD_TRY(open_reader(&r, path, NULL, errbuf, errcap));
  mm_header h;
  fcd_status st = read_header(&r, &h, NULL, errbuf, errcap);
  close_reader(&r);
  if (st != FCD_OK) return st;
  if (nrows) *nrows = h.nrows;
  if (ncols) *ncols = h.ncols;
  if (nnz) *nnz = h.nnz;
  return FCD_OK;
}

/* The entries after the size line, each given to the route (fcd__route_put). */
static fcd_status read_entries(reader *r, const mm_header *h, fcd__route *rt) {
  const fcd_system *sys = r->sys;
  const char *path = r->path;
  long first_lower = 0, first_upper = 0;
  long long k = 0;
  int got;
  while ((got = next_line(r)) > 0) {
    if (r->L.line[0] == '%' || blank(r->L.line)) continue;
    if (k >= h->nnz)
      return fcd__err(sys, FCD_E_FORMAT, "%s:%ld: more entries than the %lld declared", path,
                      r->L.lineno, h->nnz);
    const char *s = r->L.line;
    long long i, j;
    double v;
    if (!parse_index(&s, &i) || !parse_index(&s, &j) || !parse_real(&s, &v) || !blank(s))
      return fcd__err(sys, FCD_E_FORMAT, "%s:%ld: expected 'row column value', got '%.60s'",
                      path, r->L.lineno, r->L.line);
    if (i < 1 || i > h->nrows || j < 1 || j > h->ncols)
      return fcd__err(sys, FCD_E_FORMAT,
                      "%s:%ld: index (%lld, %lld) outside the declared %lld x %lld (1-based)",
                      path, r->L.lineno, i, j, h->nrows, h->ncols);
    if (!isfinite(v))
      return fcd__err(sys, FCD_E_FORMAT, "%s:%ld: value is not finite", path, r->L.lineno);
    i--;
    j--;
    if (h->symmetric) {
      /* The standard stores the lower triangle; some writers store the upper one.
       * Either is unambiguous, a mix could count an entry twice. */
      if (i > j && !first_lower) first_lower = r->L.lineno;
      if (i < j && !first_upper) first_upper = r->L.lineno;
      if (first_lower && first_upper)
        return fcd__err(sys, FCD_E_FORMAT,
                        "%s:%ld: symmetric file stores entries of both triangles (lower at "
                        "line %ld, upper at line %ld)", path, r->L.lineno, first_lower,
                        first_upper);
      if (i > j) {
        long long t = i;
        i = j;
        j = t;
      }
    }
    fcd_status st = fcd__route_put(rt, (fcd_index)i, (fcd_index)j, v);
    if (st != FCD_OK) return st;
    k++;
  }
  if (got < 0) return r->st;
  if (k != h->nnz)
    return fcd__err(sys, FCD_E_FORMAT, "%s:%ld: file ends after %lld of %lld declared entries",
                    path, r->L.lineno, k, h->nnz);
  return FCD_OK;
}

/* The whole file as a matrix file (fcd_matrix_file_read): the entries 0-based, one
 * triangle of a symmetric file kept as it is */
fcd_status fcd__mm_read_mfile(const char *path, fcd_matrix_file *m, char *errbuf,
                              size_t errcap) {
  reader r;
  FCD_TRY(open_reader(&r, path, NULL, errbuf, errcap));
  mm_header h;
  fcd_status st = read_header(&r, &h, NULL, errbuf, errcap);
  long long k = 0;
  int got = 1;
  while (st == FCD_OK && (got = next_line(&r)) > 0) {
    if (r.L.line[0] == '%' || blank(r.L.line)) continue;
    const char *s = r.L.line;
    long long i, j;
    double v;
    if (k >= h.nnz)
      st = fcd__err_to(NULL, errbuf, errcap, FCD_E_FORMAT, "%s:%ld: more entries than the "
                       "%lld declared", path, r.L.lineno, h.nnz);
    else if (!parse_index(&s, &i) || !parse_index(&s, &j) || !parse_real(&s, &v) || !blank(s))
      st = fcd__err_to(NULL, errbuf, errcap, FCD_E_FORMAT, "%s:%ld: expected 'row column "
                       "value', got '%.60s'", path, r.L.lineno, r.L.line);
    else if (i < 1 || i > h.nrows || j < 1 || j > h.ncols)
      st = fcd__err_to(NULL, errbuf, errcap, FCD_E_FORMAT, "%s:%ld: index (%lld, %lld) "
                       "outside the declared %lld x %lld (1-based)", path, r.L.lineno, i, j,
                       h.nrows, h.ncols);
    else if (!fcd__mfile_push(m, i - 1, 0, j - 1, 0, v))
      st = fcd__err_to(NULL, errbuf, errcap, FCD_E_NOMEM, "%s: out of memory", path);
    else
      k++;
  }
  if (st == FCD_OK && got < 0) st = r.st;
  if (st == FCD_OK && k != h.nnz)
    st = fcd__err_to(NULL, errbuf, errcap, FCD_E_FORMAT, "%s: file ends after %lld of %lld "
                     "declared entries", path, k, h.nnz);
  close_reader(&r);
  m->symmetric = h.symmetric;
  m->nrows = h.nrows;
  m->ncols = h.ncols;
  return st;
}

/* On a distributed system rank 0 reads the file and sends each rank the entries of its
 * rows (fcd__route): the file need only be on rank 0, and no rank ever holds the
 * others' entries. */
fcd_status fcd_system_read_matrix_market(fcd_system *sys, fcd_matrix_kind which,
                                         const char *path) {
  FCD_CHECK_SYS(sys);
  int rank = 0;
  fcd_system_get_distribution(sys, &rank, NULL, NULL, NULL);
  fcd_status arg = FCD_OK;
  if ((int)which < 0 || (int)which > 2)
    arg = fcd__err(sys, FCD_E_INVALID_ARG, "read_matrix_market: unknown matrix kind %d",
                   (int)which);
  else if (!path && rank == 0)
    arg = fcd__err(sys, FCD_E_INVALID_ARG, "read_matrix_market: path is NULL");
  fcd__route *rt;
  /* the file's name in rank 0's messages (the other ranks may not have it) */
  FCD_TRY(fcd__route_begin(sys, (int)which, arg, path ? path : "read_matrix_market", &rt));
  mm_header h = {0, 0, 0, 0};
  fcd_status st = FCD_OK;
  if (fcd__route_reader(rt)) {
    reader r;
    st = open_reader(&r, path, sys, NULL, 0);
    if (st == FCD_OK) {
      st = read_header(&r, &h, sys, NULL, 0);
      if (st == FCD_OK && (h.nrows != sys->n || h.ncols != sys->n))
        st = fcd__err(sys, FCD_E_INVALID_ARG,
                      "%s: the %s matrix is %lld x %lld but the system has %lld dofs", path,
                      fcd__matrix_name(which), h.nrows, h.ncols, (long long)sys->n);
      if (st == FCD_OK) st = read_entries(&r, &h, rt);
      close_reader(&r);
    }
  }
  /* every rank learns the reader's symmetry with its status: the end message carries it */
  fcd_index k = 0, *ri = NULL, *ci = NULL;
  fcd_real *vv = NULL;
  int symmetric = h.symmetric;
  st = fcd__route_end(rt, st, &symmetric, &k, &ri, &ci, &vv);
  fcd__route_free(rt);
  if (st == FCD_OK) {
    st = fcd_system_set_matrix_coo(sys, which, k, ri, ci, vv,
                                   symmetric ? FCD_COO_UPPER : FCD_COO_FULL);
    if (st != FCD_OK && path) { /* the assembly's message, and the file it came from */
      char m[FCD_ERRMSG_CAP];
      snprintf(m, sizeof m, "%s", fcd_system_last_error(sys));
      st = fcd__err(sys, st, "%s: %s", path, m);
    }
  }
  fcd__free(ri);
  fcd__free(ci);
  fcd__free(vv);
  return fcd__dist_agree(sys, st, 0, "read_matrix_market");
}

fcd_status fcd_system_write_matrix_market(const fcd_system *sys, fcd_matrix_kind which,
                                          const char *path) {
  FCD_CHECK_SYS(sys);
  if ((int)which < 0 || (int)which > 2)
    return fcd__err(sys, FCD_E_INVALID_ARG, "write_matrix_market: unknown matrix kind %d",
                    (int)which);
  if (!path) return fcd__err(sys, FCD_E_INVALID_ARG, "write_matrix_market: path is NULL");
  const fcd__csr *a = &sys->mat[which];
  if (!a->set)
    return fcd__err(sys, FCD_E_STATE, "%s matrix was never set", fcd__matrix_name(which));
  FILE *fp = fopen(path, "w");
  if (!fp) return fcd__err(sys, FCD_E_IO, "cannot create '%s': %s", path, strerror(errno));
  fprintf(fp, "%%%%MatrixMarket matrix coordinate real %s\n%% written by fcd %s\n",
          a->upper ? "symmetric" : "general", FCD_VERSION_STRING);
  fprintf(fp, "%lld %lld %lld\n", (long long)a->n, (long long)a->n,
          (long long)a->rowptr[a->n]);
  for (fcd_index i = 0; i < a->n; i++)
    for (fcd_index p = a->rowptr[i]; p < a->rowptr[i + 1]; p++) {
      /* symmetric storage is written as the standard's lower triangle */
      fcd_index r = a->upper ? a->col[p] : i, c = a->upper ? i : a->col[p];
      fprintf(fp, "%lld %lld %.17g\n", (long long)r + 1, (long long)c + 1, a->val[p]);
    }
  int bad = ferror(fp);
  if (fclose(fp) != 0 || bad)
    return fcd__err(sys, FCD_E_IO, "write error on '%s'", path);
  return FCD_OK;
}

fcd_status fcd_system_read_fixed(fcd_system *sys, const char *path) {
  FCD_CHECK_SYS(sys);
  if (!path) return fcd__err(sys, FCD_E_INVALID_ARG, "read_fixed: path is NULL");
  reader r;
  FCD_TRY(open_reader(&r, path, sys, NULL, 0));
  fcd_index n = 0, cap = 0;
  fcd_index *dofs = NULL;
  fcd_real *vals = NULL;
  fcd_status st = FCD_OK;
  int got;
  while ((got = next_line(&r)) > 0) {
    char *hash = strchr(r.L.line, '#');
    if (hash) *hash = 0;
    if (blank(r.L.line)) continue;
    const char *s = r.L.line;
    long long d;
    double v = 0.0;
    char why[200];
    fcd_index byref = -1;
    int ref = fcd__node_ref(sys, &s, &byref, why, sizeof why);
    if (ref < 0) {
      st = fcd__err(sys, FCD_E_INVALID_ARG, "%s:%ld: %s", path, r.L.lineno, why);
      break;
    }
    if (ref > 0) {
      d = byref;
    } else if (!parse_index(&s, &d)) {
      st = fcd__err(sys, FCD_E_FORMAT, "%s:%ld: expected a dof index or 'node LABEL DOF', "
                    "got '%.60s'", path, r.L.lineno, r.L.line);
      break;
    }
    if (!blank(s) && (!parse_real(&s, &v) || !blank(s))) {
      st = fcd__err(sys, FCD_E_FORMAT, "%s:%ld: expected 'dof [value]', got '%.60s'", path,
                    r.L.lineno, r.L.line);
      break;
    }
    if (d < 0 || d >= sys->n) {
      st = fcd__err(sys, FCD_E_INVALID_ARG, "%s:%ld: dof %lld outside [0, %lld)", path,
                    r.L.lineno, d, (long long)sys->n);
      break;
    }
    if (!isfinite(v)) {
      st = fcd__err(sys, FCD_E_FORMAT, "%s:%ld: value is not finite", path, r.L.lineno);
      break;
    }
    if (n == cap) {
      fcd_index nc = cap ? 2 * cap : 64;
      fcd_index *nd = fcd__grow_array(dofs, (size_t)cap, (size_t)nc, sizeof *nd);
      if (nd) dofs = nd;
      fcd_real *nv = nd ? fcd__grow_array(vals, (size_t)cap, (size_t)nc, sizeof *nv) : NULL;
      if (nv) vals = nv;
      if (!nd || !nv) {
        st = fcd__err(sys, FCD_E_NOMEM, "%s: out of memory", path);
        break;
      }
      cap = nc;
    }
    dofs[n] = d;
    vals[n] = v;
    n++;
  }
  if (st == FCD_OK && got < 0) st = r.st;
  if (st == FCD_OK) st = fcd_system_fix_dofs(sys, n, dofs, vals);
  close_reader(&r);
  fcd__free(dofs);
  fcd__free(vals);
  return st;
}
