/* Matrix files of finite-element codes: the format told from the content, the matrix
 * named in a file holding several, the entries kept as the file gives them, and their
 * installation on a system, by index or through a dof map. */
#include "import_private.h"
#include "system.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define MERR(code, ...) fcd__err_to(NULL, errbuf, errcap, code, __VA_ARGS__)

/* The matrix formats, the one table of their names (the registry,
 * FCD_FAMILY_MATRIX_FORMAT), indexed by fcd_matrix_format: a new format is a row here,
 * its enumerator in fcd/fcd_import.h and its reader's case in fcd_matrix_file_read. */
static const fcd__named formats[] = {
    {FCD_MATRIX_FORMAT_AUTO, "auto", "told from the file's content (the default)"},
    {FCD_MATRIX_FORMAT_MATRIX_MARKET, "matrix-market", "Matrix Market coordinate, real"},
    {FCD_MATRIX_FORMAT_PETSC_BINARY, "petsc-binary", "PETSc's binary AIJ matrix"},
    {FCD_MATRIX_FORMAT_HARWELL_BOEING, "harwell-boeing",
     "Harwell-Boeing and Rutherford-Boeing, assembled real (ANSYS HBMAT, with its .mapping)"},
    {FCD_MATRIX_FORMAT_ABAQUS_MATRIX, "abaqus-matrix",
     "Abaqus *MATRIX OUTPUT, FORMAT=MATRIX INPUT: entries by node and dof"},
    {FCD_MATRIX_FORMAT_ABAQUS_COORDINATE, "abaqus-coordinate",
     "Abaqus *MATRIX OUTPUT, FORMAT=COORDINATE: entries by equation"},
    {FCD_MATRIX_FORMAT_NASTRAN_DMIG, "nastran-dmig", "Nastran DMIG bulk data, punch files"},
    {FCD_MATRIX_FORMAT_NASTRAN_OP4, "nastran-op4", "Nastran OP4, ASCII or binary"},
};
#define NFORMATS ((int)(sizeof formats / sizeof formats[0]))

int fcd__matrix_format_registry(int k, fcd__named *out) {
  if (k < 0 || k >= NFORMATS) return 0;
  *out = formats[k];
  return 1;
}

const char *fcd_matrix_format_name(fcd_matrix_format format) {
  return (int)format >= 0 && (int)format < NFORMATS ? formats[format].name : "?";
}

fcd_status fcd_matrix_format_from_name(const char *name, fcd_matrix_format *format) {
  if (!name || !format) return FCD_E_INVALID_ARG;
  for (int k = 0; k < NFORMATS; k++)
    if (!strcasecmp(name, formats[k].name)) {
      *format = (fcd_matrix_format)formats[k].value;
      return FCD_OK;
    }
  return FCD_E_INVALID_ARG;
}

/* ---- the format, from the first bytes ---- */

/* the first lines that are not blank (at most nl, each at most 255 characters) */
static int head_lines(const unsigned char *b, size_t n, char lines[][256], int nl) {
  int k = 0;
  size_t p = 0;
  while (k < nl && p < n) {
    size_t q = p;
    while (q < n && b[q] != '\n') q++;
    size_t len = q - p;
    while (len > 0 && (b[p + len - 1] == '\r')) len--;
    int empty = 1;
    for (size_t i = 0; i < len; i++)
      if (!isspace(b[p + i])) empty = 0;
    if (!empty) {
      size_t c = len < 255 ? len : 255;
      memcpy(lines[k], b + p, c);
      lines[k][c] = 0;
      k++;
    }
    p = q + 1;
  }
  return k;
}

static int is_int_token(const char *s, const char **end) {
  while (*s == ' ' || *s == '\t') s++;
  const char *p = s;
  if (*p == '-' || *p == '+') p++;
  if (!isdigit((unsigned char)*p)) return 0;
  while (isdigit((unsigned char)*p)) p++;
  *end = p;
  return 1;
}

/* `a, b, ..., value` with nint integers first (commas or blanks between), then a real */
static int abaqus_line(const char *s, int nint) {
  for (int k = 0; k < nint; k++) {
    const char *e;
    if (!is_int_token(s, &e)) return 0;
    s = e;
    while (*s == ' ' || *s == '\t') s++;
    if (*s == ',') s++;
  }
  char *e;
  errno = 0;
  (void)strtod(s, &e);
  if (e == s) return 0;
  while (*e == ' ' || *e == '\t' || *e == ',') e++;
  return *e == 0;
}

/* the Harwell-Boeing type line: three letters (real or pattern, symmetry, assembled)
 * and the counts */
static int hb_type_line(const char *s) {
  if (strlen(s) < 3) return 0;
  return strchr("RrPpCcIiQq", s[0]) && strchr("SsUuHhZzRr", s[1]) && strchr("AaEe", s[2]) &&
         (s[3] == 0 || isspace((unsigned char)s[3]));
}

/* an OP4 ASCII header: four I8 integers, an 8-character name, a real Fortran format */
static int op4_header(const char *s) {
  if (strlen(s) < 41) return 0;
  for (int k = 0; k < 4; k++) {
    char f[9];
    memcpy(f, s + 8 * k, 8);
    f[8] = 0;
    char *e;
    errno = 0;
    (void)strtoll(f, &e, 10);
    while (*e == ' ') e++;
    if (e == f || *e) return 0;
  }
  fcd__ffmt ff;
  return fcd__parse_ffmt(s + 40, &ff) && ff.kind == 'E';
}

static fcd_status detect(const char *path, FILE *fp, fcd_matrix_format *out, char *errbuf,
                         size_t errcap) {
  unsigned char b[8192];
  size_t n = fread(b, 1, sizeof b, fp);
  if (ferror(fp)) return MERR(FCD_E_IO, "%s: read error: %s", path, strerror(errno));
  rewind(fp);
  if (n == 0) return MERR(FCD_E_FORMAT, "%s: empty file, not a matrix", path);
  if (n >= 4 && b[0] == 0x00 && b[1] == 0x12 && b[2] == 0x7b && b[3] == 0x50) {
    *out = FCD_MATRIX_FORMAT_PETSC_BINARY;
    return FCD_OK;
  }
  /* OP4 binary: a first Fortran record of 24 bytes (the header), either byte order */
  if (n >= 8 && ((b[0] == 24 && !b[1] && !b[2] && !b[3]) || (!b[0] && !b[1] && !b[2] && b[3] == 24))) {
    *out = FCD_MATRIX_FORMAT_NASTRAN_OP4;
    return FCD_OK;
  }
  char L[6][256];
  int nl = head_lines(b, n, L, 6);
  if (nl >= 1 && op4_header(L[0])) {
    *out = FCD_MATRIX_FORMAT_NASTRAN_OP4;
    return FCD_OK;
  }
  if (nl >= 1 && !strncasecmp(L[0], "%%MatrixMarket", 14)) {
    *out = FCD_MATRIX_FORMAT_MATRIX_MARKET;
    return FCD_OK;
  }
  if (nl >= 4 && hb_type_line(L[2]) && strchr(L[3], '(')) {
    *out = FCD_MATRIX_FORMAT_HARWELL_BOEING;
    return FCD_OK;
  }
  /* Nastran bulk data: a card named DMIG (or DMIG*) at the start of a line, after comment
   * lines ($) and other cards */
  for (size_t p = 0; p + 4 <= n; p++)
    if ((p == 0 || b[p - 1] == '\n') && !strncasecmp((const char *)b + p, "DMIG", 4) &&
        (p + 4 == n || b[p + 4] == ' ' || b[p + 4] == '*' || b[p + 4] == ',')) {
      *out = FCD_MATRIX_FORMAT_NASTRAN_DMIG;
      return FCD_OK;
    }
  for (int k = 0; k < nl; k++) {
    if (!strncmp(L[k], "**", 2)) continue; /* Abaqus comments */
    if (abaqus_line(L[k], 4)) {
      *out = FCD_MATRIX_FORMAT_ABAQUS_MATRIX;
      return FCD_OK;
    }
    if (abaqus_line(L[k], 2)) {
      *out = FCD_MATRIX_FORMAT_ABAQUS_COORDINATE;
      return FCD_OK;
    }
    break;
  }
  return MERR(FCD_E_FORMAT, "%s: not a matrix file of a known format (Matrix Market, PETSc "
              "binary, Harwell-Boeing or Rutherford-Boeing, Abaqus matrix or coordinate "
              "output, Nastran DMIG or OP4); its first line: '%.60s'", path, nl ? L[0] : "");
}

/* ---- the matrix in a file holding several, PATH:NAME ---- */

static int is_file(const char *p) {
  struct stat sb;
  return stat(p, &sb) == 0;
}

/* the path and the name of spec: the whole spec when it is a file, else split at its
 * last ':' */
static fcd_status split_spec(const char *spec, char **path, char *name, size_t cap,
                             char *errbuf, size_t errcap) {
  name[0] = 0;
  const char *colon = strrchr(spec, ':');
  size_t plen = strlen(spec);
  if (!is_file(spec) && colon && colon != spec && colon[1]) {
    char *p = fcd__malloc((size_t)(colon - spec) + 1);
    if (!p) return MERR(FCD_E_NOMEM, "out of memory");
    memcpy(p, spec, (size_t)(colon - spec));
    p[colon - spec] = 0;
    if (is_file(p)) {
      if (strlen(colon + 1) >= cap) {
        fcd__free(p);
        return MERR(FCD_E_INVALID_ARG, "%s: the matrix name '%s' is longer than %zu "
                    "characters", spec, colon + 1, cap - 1);
      }
      snprintf(name, cap, "%s", colon + 1);
      *path = p;
      return FCD_OK;
    }
    fcd__free(p);
  }
  *path = fcd__malloc(plen + 1);
  if (!*path) return MERR(FCD_E_NOMEM, "out of memory");
  memcpy(*path, spec, plen + 1);
  return FCD_OK;
}

void fcd_matrix_file_destroy(fcd_matrix_file *m) {
  if (!m || m->magic != FCD_MATRIX_FILE_MAGIC) return;
  fcd__free(m->ri);
  fcd__free(m->ci);
  fcd__free(m->rd);
  fcd__free(m->cd);
  fcd__free(m->v);
  m->magic = 0;
  fcd__free(m);
}

/* the most entries a file of this size can hold in this format (its shortest entry's
 * bytes): the entry arrays are made that long at once and never move, and since pages
 * not written are not resident, the peak is the storage of the entries read */
static fcd_index entries_bound(FILE *fp, fcd_matrix_format format) {
  struct stat sb;
  if (fstat(fileno(fp), &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size <= 0) return 0;
  int least = 0;
  switch (format) {
  case FCD_MATRIX_FORMAT_ABAQUS_MATRIX: least = 10; break;   /* 1,1,1,1,1\n */
  case FCD_MATRIX_FORMAT_ABAQUS_COORDINATE: least = 6; break; /* 1,1,1\n */
  case FCD_MATRIX_FORMAT_NASTRAN_DMIG: least = 6; break;     /* free field ,1,1,1 */
  case FCD_MATRIX_FORMAT_NASTRAN_OP4: least = 2; break;      /* ASCII digits, or words */
  case FCD_MATRIX_FORMAT_HARWELL_BOEING: least = 2; break;   /* an index and a value */
  default: return 0;                                         /* Matrix Market: its header */
  }
  uint64_t n = (uint64_t)sb.st_size / (uint64_t)least + 1;
  return n > (uint64_t)INT64_MAX / 64 ? 0 : (fcd_index)n;
}

fcd_status fcd_matrix_file_read(const char *spec, fcd_matrix_format format,
                                fcd_matrix_file **out, char *errbuf, size_t errcap) {
  if (out) *out = NULL;
  if (errbuf && errcap) errbuf[0] = 0;
  if (!spec || !out) return MERR(FCD_E_INVALID_ARG, "matrix_file_read: %s is NULL",
                                 spec ? "out" : "spec");
  if ((int)format < 0 || (int)format >= NFORMATS)
    return MERR(FCD_E_INVALID_ARG, "matrix_file_read: unknown format %d", (int)format);
  char name[32], *path = NULL;
  FCD_TRY(split_spec(spec, &path, name, sizeof name, errbuf, errcap));
  fcd_matrix_file *m = fcd__calloc(1, sizeof *m);
  if (!m) {
    fcd__free(path);
    return MERR(FCD_E_NOMEM, "out of memory");
  }
  m->magic = FCD_MATRIX_FILE_MAGIC;
  fcd__mreader r;
  memset(&r, 0, sizeof r);
  r.path = path;
  r.errbuf = errbuf;
  r.errcap = errcap;
  fcd_status st = fcd__open_input(NULL, path, &r.fp, errbuf, errcap);
  if (st == FCD_OK && format == FCD_MATRIX_FORMAT_AUTO)
    st = detect(path, r.fp, &format, errbuf, errcap);
  if (st == FCD_OK) {
    fcd__lines_init(&r.L, r.fp, path);
    m->format = format;
    m->reserve = entries_bound(r.fp, format);
    switch (format) {
    case FCD_MATRIX_FORMAT_HARWELL_BOEING:
      st = fcd__read_harwell_boeing(&r, m);
      break;
    case FCD_MATRIX_FORMAT_ABAQUS_MATRIX:
    case FCD_MATRIX_FORMAT_ABAQUS_COORDINATE:
      st = fcd__read_abaqus(&r, m, format);
      break;
    case FCD_MATRIX_FORMAT_NASTRAN_DMIG:
      st = fcd__read_dmig(&r, m, name);
      break;
    case FCD_MATRIX_FORMAT_NASTRAN_OP4:
      st = fcd__read_op4(&r, m, name);
      break;
    case FCD_MATRIX_FORMAT_MATRIX_MARKET:
      st = fcd__mm_read_mfile(path, m, errbuf, errcap);
      break;
    default:
      st = MERR(FCD_E_UNSUPPORTED, "%s: %s files are read by their own call (%s)", path,
                fcd_matrix_format_name(format),
                format == FCD_MATRIX_FORMAT_PETSC_BINARY ? "fcd_system_read_petsc_binary"
                                                         : "not yet");
    }
    fcd__lines_free(&r.L);
  }
  if (st == FCD_OK && name[0] && strcasecmp(name, m->name) != 0)
    st = MERR(FCD_E_INVALID_ARG, "%s: the file holds one matrix%s%s%s, not '%s'", path,
              m->name[0] ? " ('" : "", m->name, m->name[0] ? "')" : "", name);
  if (st == FCD_OK) st = fcd__mfile_finite(m, path, errbuf, errcap);
  if (r.fp) fclose(r.fp);
  fcd__free(path);
  if (st != FCD_OK) {
    fcd_matrix_file_destroy(m);
    return st;
  }
  *out = m;
  return FCD_OK;
}

fcd_status fcd_matrix_file_get_info(const fcd_matrix_file *m, fcd_matrix_file_info *info) {
  if (!m || m->magic != FCD_MATRIX_FILE_MAGIC || !info ||
      info->struct_size < sizeof(fcd_matrix_file_info))
    return FCD_E_INVALID_ARG;
  info->format = m->format;
  info->labelled = m->labelled;
  info->symmetric = m->symmetric;
  info->nrows = m->nrows;
  info->ncols = m->ncols;
  info->nnz = m->n;
  snprintf(info->name, sizeof info->name, "%s", m->name);
  return FCD_OK;
}

/* ---- onto a system ---- */

fcd_status fcd_system_set_matrix_file(fcd_system *sys, fcd_matrix_kind which,
                                      const fcd_matrix_file *m, const fcd_dofmap *map) {
  FCD_CHECK_SYS(sys);
  if ((int)which < 0 || (int)which > 2)
    return fcd__err(sys, FCD_E_INVALID_ARG, "set_matrix_file: unknown matrix kind %d",
                    (int)which);
  if (!m || m->magic != FCD_MATRIX_FILE_MAGIC)
    return fcd__err(sys, FCD_E_INVALID_ARG, "set_matrix_file: not a matrix file");
  const char *what = fcd__matrix_name(which);
  if (m->labelled && !map)
    return fcd__err(sys, FCD_E_INVALID_ARG, "set_matrix_file: the %s matrix names its dofs "
                    "by node label and dof: it needs a dof map", what);
  if (m->labelled && fcd_dofmap_size(map) != sys->n)
    return fcd__err(sys, FCD_E_INVALID_ARG, "set_matrix_file: the dof map has %lld dofs, the "
                    "system %lld", (long long)fcd_dofmap_size(map), (long long)sys->n);
  if (!m->labelled && (m->nrows != sys->n || m->ncols != sys->n))
    return fcd__err(sys, FCD_E_INVALID_ARG, "set_matrix_file: the %s matrix is %lld x %lld "
                    "but the system has %lld dofs", what, (long long)m->nrows,
                    (long long)m->ncols, (long long)sys->n);
  fcd_index n = m->n;
  fcd_index *ri = fcd__malloc_array((size_t)n + 1, sizeof *ri);
  fcd_index *ci = fcd__malloc_array((size_t)n + 1, sizeof *ci);
  if (!ri || !ci) {
    fcd__free(ri);
    fcd__free(ci);
    return fcd__err(sys, FCD_E_NOMEM, "set_matrix_file: out of memory for %lld entries",
                    (long long)n);
  }
  fcd_status st = FCD_OK;
  for (fcd_index k = 0; k < n && st == FCD_OK; k++) {
    fcd_index i = m->ri[k], j = m->ci[k];
    if (m->labelled) {
      if (fcd__dofmap_lookup(map, m->ri[k], m->rd[k], &i) != FCD_OK ||
          fcd__dofmap_lookup(map, m->ci[k], m->cd[k], &j) != FCD_OK) {
        int bad_row = fcd__dofmap_lookup(map, m->ri[k], m->rd[k], &i) != FCD_OK;
        st = fcd__err(sys, FCD_E_INVALID_ARG, "set_matrix_file: entry %lld of the %s matrix "
                      "names node %lld dof %d, which the dof map does not hold",
                      (long long)k + 1, what, (long long)(bad_row ? m->ri[k] : m->ci[k]),
                      bad_row ? m->rd[k] : m->cd[k]);
        break;
      }
    }
    /* one stored triangle: its mirror is implied, in whichever order the map puts them */
    if (m->symmetric && i > j) {
      fcd_index t = i;
      i = j;
      j = t;
    }
    ri[k] = i;
    ci[k] = j;
  }
  if (st == FCD_OK)
    st = fcd_system_set_matrix_coo(sys, which, n, ri, ci, m->v,
                                   m->symmetric ? FCD_COO_UPPER : FCD_COO_FULL);
  fcd__free(ri);
  fcd__free(ci);
  return st;
}
