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

/* the first bytes of a file and its first lines that are not blank, for the sniffers */
typedef struct {
  const unsigned char *b;
  size_t n;
  char (*L)[256];
  int nl;
} head;

static int sniff_mm(const head *h) {
  return h->nl >= 1 && !strncasecmp(h->L[0], "%%MatrixMarket", 14);
}

static int sniff_petsc(const head *h) {
  return h->n >= 4 && h->b[0] == 0x00 && h->b[1] == 0x12 && h->b[2] == 0x7b && h->b[3] == 0x50;
}

static int sniff_hb(const head *h) {
  return h->nl >= 4 && hb_type_line(h->L[2]) && strchr(h->L[3], '(');
}

/* the first line after Abaqus' comments holds nint integers and a real */
static int abaqus_first(const head *h, int nint) {
  for (int k = 0; k < h->nl; k++)
    if (strncmp(h->L[k], "**", 2) != 0) return abaqus_line(h->L[k], nint);
  return 0;
}
static int sniff_abaqus_matrix(const head *h) { return abaqus_first(h, 4); }
static int sniff_abaqus_coordinate(const head *h) { return abaqus_first(h, 2); }

/* Nastran bulk data: a card named DMIG (or DMIG*) at the start of a line, after comment
 * lines ($) and other cards */
static int sniff_dmig(const head *h) {
  for (size_t p = 0; p + 4 <= h->n; p++)
    if ((p == 0 || h->b[p - 1] == '\n') && !strncasecmp((const char *)h->b + p, "DMIG", 4) &&
        (p + 4 == h->n || h->b[p + 4] == ' ' || h->b[p + 4] == '*' || h->b[p + 4] == ','))
      return 1;
  return 0;
}

/* OP4 binary (a first Fortran record of 24 bytes, the header, either byte order) or its
 * ASCII header */
static int sniff_op4(const head *h) {
  const unsigned char *b = h->b;
  return (h->n >= 8 && ((b[0] == 24 && !b[1] && !b[2] && !b[3]) ||
                        (!b[0] && !b[1] && !b[2] && b[3] == 24))) ||
         (h->nl >= 1 && op4_header(h->L[0]));
}

static fcd_status read_mm(fcd__mreader *r, fcd_matrix_file *m, const char *name) {
  (void)name;
  return fcd__mm_read_mfile(r->path, m, r->errbuf, r->errcap);
}
static fcd_status read_hb(fcd__mreader *r, fcd_matrix_file *m, const char *name) {
  (void)name;
  return fcd__read_harwell_boeing(r, m);
}
static fcd_status read_abaqus(fcd__mreader *r, fcd_matrix_file *m, const char *name) {
  (void)name;
  return fcd__read_abaqus(r, m, m->format);
}

/* The matrix formats (the registry, FCD_FAMILY_MATRIX_FORMAT), indexed by their value:
 * each row its name, how its content is told (sniff, asked in the table's order), the
 * bytes of its shortest entry (the entry arrays are sized from the file's size) and its
 * reader. A new format is a row here and its reader's file (docs/architecture.md). */
typedef struct {
  fcd__named id;
  int (*sniff)(const head *h);
  int least;
  fcd_status (*read)(fcd__mreader *r, fcd_matrix_file *m, const char *name);
} mformat;

static const mformat formats[] = {
    {{FCD_MATRIX_FORMAT_AUTO, "auto", "told from the file's content (the default)"}, NULL, 0,
     NULL},
    {{FCD_MATRIX_FORMAT_MATRIX_MARKET, "matrix-market", "Matrix Market coordinate, real"},
     sniff_mm, 0, read_mm},
    {{FCD_MATRIX_FORMAT_PETSC_BINARY, "petsc-binary", "PETSc's binary AIJ matrix"}, sniff_petsc,
     0, NULL},
    {{FCD_MATRIX_FORMAT_HARWELL_BOEING, "harwell-boeing",
      "Harwell-Boeing and Rutherford-Boeing, assembled real (ANSYS HBMAT, with its .mapping)"},
     sniff_hb, 2, read_hb}, /* an index and a value */
    {{FCD_MATRIX_FORMAT_ABAQUS_MATRIX, "abaqus-matrix",
      "Abaqus *MATRIX OUTPUT, FORMAT=MATRIX INPUT: entries by node and dof"},
     sniff_abaqus_matrix, 10, read_abaqus}, /* 1,1,1,1,1\n */
    {{FCD_MATRIX_FORMAT_ABAQUS_COORDINATE, "abaqus-coordinate",
      "Abaqus *MATRIX OUTPUT, FORMAT=COORDINATE: entries by equation"},
     sniff_abaqus_coordinate, 6, read_abaqus}, /* 1,1,1\n */
    {{FCD_MATRIX_FORMAT_NASTRAN_DMIG, "nastran-dmig", "Nastran DMIG bulk data, punch files"},
     sniff_dmig, 6, fcd__read_dmig}, /* free field ,1,1,1 */
    {{FCD_MATRIX_FORMAT_NASTRAN_OP4, "nastran-op4", "Nastran OP4, ASCII or binary"}, sniff_op4,
     2, fcd__read_op4}, /* ASCII digits, or words */
};
#define NFORMATS ((int)(sizeof formats / sizeof formats[0]))

int fcd__matrix_format_registry(int k, fcd__named *out) {
  if (k < 0 || k >= NFORMATS) return 0;
  *out = formats[k].id;
  return 1;
}

const char *fcd_matrix_format_name(fcd_matrix_format format) {
  return (int)format >= 0 && (int)format < NFORMATS ? formats[format].id.name : "?";
}

fcd_status fcd_matrix_format_from_name(const char *name, fcd_matrix_format *format) {
  if (!name || !format) return FCD_E_INVALID_ARG;
  for (int k = 0; k < NFORMATS; k++)
    if (!strcasecmp(name, formats[k].id.name)) {
      *format = (fcd_matrix_format)formats[k].id.value;
      return FCD_OK;
    }
  return FCD_E_INVALID_ARG;
}

static fcd_status detect(const char *path, FILE *fp, fcd_matrix_format *out, char *errbuf,
                         size_t errcap) {
  unsigned char b[8192];
  size_t n = fread(b, 1, sizeof b, fp);
  if (ferror(fp)) return MERR(FCD_E_IO, "%s: read error: %s", path, strerror(errno));
  rewind(fp);
  if (n == 0) return MERR(FCD_E_FORMAT, "%s: empty file, not a matrix", path);
  char L[6][256];
  head h = {b, n, L, head_lines(b, n, L, 6)};
  for (int k = 0; k < NFORMATS; k++)
    if (formats[k].sniff && formats[k].sniff(&h)) {
      *out = (fcd_matrix_format)k;
      return FCD_OK;
    }
  return MERR(FCD_E_FORMAT, "%s: not a matrix file of a known format (Matrix Market, PETSc "
              "binary, Harwell-Boeing or Rutherford-Boeing, Abaqus matrix or coordinate "
              "output, Nastran DMIG or OP4); its first line: '%.60s'", path,
              h.nl ? L[0] : "");
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
  int least = formats[format].least; /* 0: unknown (Matrix Market: its header) */
  if (least <= 0) return 0;
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
    if (formats[format].read)
      st = formats[format].read(&r, m, name);
    else
      st = MERR(FCD_E_UNSUPPORTED, "%s: %s files are read by their own call (%s)", path,
                fcd_matrix_format_name(format),
                format == FCD_MATRIX_FORMAT_PETSC_BINARY ? "fcd_system_read_petsc_binary"
                                                         : "not yet");
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
