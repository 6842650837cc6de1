/* Harwell-Boeing and Rutherford-Boeing assembled real matrices (what ANSYS' HBMAT writes,
 * and the collections' files): fields cut by the widths of the header's Fortran formats,
 * never by blanks (fields touch), values with D or missing exponent letters. ANSYS'
 * `.mapping` file beside the matrix turns its equations into (node, dof) pairs. */
#include "import_private.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define RERR(code, ...) fcd__err_to(NULL, r->errbuf, r->errcap, code, __VA_ARGS__)

static int next_line(fcd__mreader *r) {
  return fcd__lines_next(&r->L, NULL, r->errbuf, r->errcap, &r->st);
}

/* the count fields of a header card: whitespace-separated integers, as many as given */
static int header_ints(const char *s, long long *v, int cap) {
  int n = 0;
  while (n < cap) {
    while (*s == ' ' || *s == '\t') s++;
    if (!*s) break;
    char *e;
    errno = 0;
    long long x = strtoll(s, &e, 10);
    if (e == s || errno == ERANGE) return -1;
    v[n++] = x;
    s = e;
  }
  while (*s == ' ' || *s == '\t') s++;
  return *s ? -1 : n;
}

/* one card's fields by their widths into iv or rv from *k on; -1 when every field read,
 * else the field that is not a number (its start and width in *at, *w) */
static int fixed_card(const char *line, size_t len, const fcd__ffmt *f, long long *k,
                      long long count, int64_t *iv, double *rv, const char **at, size_t *wp) {
  for (int j = 0; j < f->per && *k < count; j++) {
    size_t a = (size_t)j * (size_t)f->width;
    if (a >= len) break; /* a short card: the rest of its fields are not there */
    size_t w = len - a < (size_t)f->width ? len - a : (size_t)f->width;
    const char *fld = line + a;
    int only_blank = 1;
    for (size_t c = 0; c < w; c++)
      if (fld[c] != ' ') only_blank = 0;
    if (only_blank) break;
    *at = fld;
    *wp = w;
    if (f->kind == 'I') {
      char b[72];
      memcpy(b, fld, w);
      b[w] = 0;
      char *e;
      errno = 0;
      long long x = strtoll(b, &e, 10);
      while (*e == ' ') e++;
      if (e == b || *e || errno == ERANGE) return j;
      iv[(*k)++] = x;
    } else {
      double x;
      if (!fcd__fortran_real(fld, w, &x)) return j;
      rv[(*k)++] = x;
    }
  }
  return -1;
}

/* exactly need blank-separated numbers on the card; 1 when so */
static int blank_card(const char *line, char kind, int need, int64_t *iv, double *rv) {
  const char *p = line;
  int got = 0;
  for (;;) {
    while (*p == ' ' || *p == '\t' || *p == '\r') p++;
    if (!*p) break;
    const char *e = p;
    while (*e && *e != ' ' && *e != '\t' && *e != '\r') e++;
    if (got == need || e - p > 64) return 0;
    if (kind == 'I') {
      char b[72], *q;
      memcpy(b, p, (size_t)(e - p));
      b[e - p] = 0;
      errno = 0;
      long long x = strtoll(b, &q, 10);
      if (*q || errno == ERANGE) return 0;
      iv[got++] = x;
    } else {
      double x;
      if (!fcd__fortran_real(p, (size_t)(e - p), &x)) return 0;
      rv[got++] = x;
    }
    p = e;
  }
  return got == need;
}

/* reads `count` fields of format f from the following cards into ints (I) or reals (E) */
static fcd_status read_fields(fcd__mreader *r, const fcd__ffmt *f, long long count, const char *what,
                              int64_t *iv, double *rv) {
  long long k = 0;
  while (k < count) {
    int got = next_line(r);
    if (got < 0) return r->st;
    if (!got)
      return RERR(FCD_E_FORMAT, "%s: the file ends after %lld of the %lld %s", r->path, k,
                  count, what);
    const char *line = r->L.line, *fld = line;
    size_t len = strlen(line), w = 0;
    long long k0 = k;
    int bad = fixed_card(line, len, f, &k, count, iv, rv, &fld, &w);
    if (bad < 0) continue;
    /* fields narrower than the format says, blank-separated (scipy's hb_write writes
     * (3E25.16) values 24 characters wide): read by their blanks when the card holds
     * exactly the values it should */
    int need = count - k0 < f->per ? (int)(count - k0) : f->per;
    if (blank_card(line, f->kind, need, iv ? iv + k0 : NULL, rv ? rv + k0 : NULL)) {
      k = k0 + need;
      continue;
    }
    return RERR(FCD_E_FORMAT, "%s:%ld: field %d ('%.*s') of the %s is not %s", r->path,
                r->L.lineno, bad + 1, (int)w, fld, what,
                f->kind == 'I' ? "an integer" : "a number");
  }
  return FCD_OK;
}

/* ANSYS' dof names, in the order of its dof numbers */
static int ansys_dof(const char *name) {
  static const char *const names[] = {"UX", "UY", "UZ", "ROTX", "ROTY", "ROTZ"};
  for (int k = 0; k < 6; k++)
    if (!strcasecmp(name, names[k])) return k + 1;
  return 0;
}

/* FNAME.mapping beside FNAME.EXT (or beside FNAME): NULL when there is none */
static char *mapping_path(const char *path) {
  size_t n = strlen(path);
  char *p = fcd__malloc(n + 16);
  if (!p) return NULL;
  memcpy(p, path, n + 1);
  char *slash = strrchr(p, '/'), *dot = strrchr(p, '.');
  if (dot && (!slash || dot > slash)) *dot = 0;
  strcat(p, ".mapping");
  FILE *f = fopen(p, "rb");
  if (!f) {
    size_t m = strlen(p);
    memcpy(p + m - 8, ".MAPPING", 8); /* ANSYS' documentation names it so */
    f = fopen(p, "rb");
  }
  if (!f) {
    fcd__free(p);
    return NULL;
  }
  fclose(f);
  return p;
}

/* the mapping's `equation node dof` lines into eq_node, eq_dof (1-based equations) */
static fcd_status read_mapping(fcd__mreader *r, const char *mpath, long long n, int64_t *node,
                               signed char *dof) {
  FILE *fp;
  FCD_TRY(fcd__open_input(NULL, mpath, &fp, r->errbuf, r->errcap));
  fcd__lines L;
  fcd__lines_init(&L, fp, mpath);
  fcd_status st = FCD_OK;
  long long seen = 0;
  int got;
  for (long long k = 0; k < n; k++) node[k] = 0, dof[k] = -1;
  while ((got = fcd__lines_next(&L, NULL, r->errbuf, r->errcap, &st)) > 0) {
    const char *s = L.line;
    while (*s == ' ' || *s == '\t') s++;
    if (!isdigit((unsigned char)*s)) continue; /* the header line(s) */
    long long eq, nd;
    char name[16];
    char tail;
    int f = sscanf(s, "%lld %lld %15s %c", &eq, &nd, name, &tail);
    if (f != 3) {
      st = RERR(FCD_E_FORMAT, "%s:%ld: expected 'equation node dof', got '%.60s'", mpath,
                L.lineno, L.line);
      break;
    }
    if (eq < 1 || eq > n) {
      st = RERR(FCD_E_FORMAT, "%s:%ld: equation %lld outside the matrix's 1..%lld", mpath,
                L.lineno, eq, n);
      break;
    }
    int d = ansys_dof(name);
    if (!d) {
      st = RERR(FCD_E_UNSUPPORTED, "%s:%ld: dof '%s' is not a structural one (UX, UY, UZ, "
                "ROTX, ROTY, ROTZ)", mpath, L.lineno, name);
      break;
    }
    if (dof[eq - 1] >= 0) {
      st = RERR(FCD_E_FORMAT, "%s:%ld: equation %lld mapped twice", mpath, L.lineno, eq);
      break;
    }
    node[eq - 1] = nd;
    dof[eq - 1] = (signed char)d;
    seen++;
  }
  if (st == FCD_OK && got < 0) st = FCD_E_FORMAT;
  if (st == FCD_OK && seen != n)
    st = RERR(FCD_E_FORMAT, "%s: maps %lld of the matrix's %lld equations", mpath, seen, n);
  fclose(fp);
  fcd__lines_free(&L);
  return st;
}

/* the header's cards: the title and key, the counts, the type and sizes, the formats */
typedef struct {
  char type[4];
  long long nrow, ncol, nnz;
  fcd__ffmt fp, fi, fv;
} hb_head;

static fcd_status hb_header(fcd__mreader *r, fcd_matrix_file *m, hb_head *h) {
  char title[81] = "", *type = h->type;
  long long cnt[5] = {0}, dims[4] = {0};
  int got = next_line(r);
  if (got <= 0) return got < 0 ? r->st : RERR(FCD_E_FORMAT, "%s: empty file", r->path);
  snprintf(title, sizeof title, "%s", r->L.line);
  /* the key: columns 73-80 of the title card */
  if (strlen(title) > 72) {
    const char *key = title + 72;
    while (*key == ' ') key++;
    snprintf(m->name, sizeof m->name, "%.8s", key);
    for (size_t k = strlen(m->name); k > 0 && m->name[k - 1] == ' '; k--) m->name[k - 1] = 0;
  }
  if ((got = next_line(r)) <= 0)
    return got < 0 ? r->st : RERR(FCD_E_FORMAT, "%s: ends after its title", r->path);
  int nc = header_ints(r->L.line, cnt, 5);
  if (nc < 4)
    return RERR(FCD_E_FORMAT, "%s:%ld: expected the card counts (4 in Rutherford-Boeing, 5 "
                "in Harwell-Boeing), got '%.60s'", r->path, r->L.lineno, r->L.line);
  if ((got = next_line(r)) <= 0)
    return got < 0 ? r->st : RERR(FCD_E_FORMAT, "%s: ends before its type card", r->path);
  memcpy(type, r->L.line, 3);
  type[3] = 0;
  for (int k = 0; k < 3; k++) type[k] = (char)toupper((unsigned char)type[k]);
  int nd = strlen(r->L.line) > 3 ? header_ints(r->L.line + 3, dims, 4) : -1;
  if (nd < 3)
    return RERR(FCD_E_FORMAT, "%s:%ld: expected the type and 'rows columns entries', got "
                "'%.60s'", r->path, r->L.lineno, r->L.line);
  if (type[0] == 'P')
    return RERR(FCD_E_UNSUPPORTED, "%s:%ld: a pattern matrix (%s) has no values", r->path,
                r->L.lineno, type);
  if (type[0] == 'C' || type[0] == 'Q')
    return RERR(FCD_E_UNSUPPORTED, "%s:%ld: a complex matrix (%s)", r->path, r->L.lineno, type);
  if (type[0] != 'R' && type[0] != 'I')
    return RERR(FCD_E_FORMAT, "%s:%ld: unknown value type '%c' in '%s'", r->path, r->L.lineno,
                type[0], type);
  if (type[1] == 'H' || type[1] == 'Z')
    return RERR(FCD_E_UNSUPPORTED, "%s:%ld: a %s matrix (%s): only symmetric (S), unsymmetric "
                "(U) and rectangular (R) ones", r->path, r->L.lineno,
                type[1] == 'H' ? "Hermitian" : "skew-symmetric", type);
  if (type[2] == 'E')
    return RERR(FCD_E_UNSUPPORTED, "%s:%ld: an elemental matrix (%s): only assembled ones "
                "(A)", r->path, r->L.lineno, type);
  long long nrow = h->nrow = dims[0], ncol = h->ncol = dims[1], nnz = h->nnz = dims[2];
  if (nrow <= 0 || ncol <= 0 || nnz < 0 || (type[1] == 'S' && nrow != ncol))
    return RERR(FCD_E_FORMAT, "%s:%ld: invalid sizes %lld x %lld with %lld entries", r->path,
                r->L.lineno, nrow, ncol, nnz);
  if ((double)nnz > (double)nrow * (double)ncol)
    return RERR(FCD_E_FORMAT, "%s:%ld: %lld entries declared, more than a %lld x %lld matrix "
                "has", r->path, r->L.lineno, nnz, nrow, ncol);
  if ((got = next_line(r)) <= 0)
    return got < 0 ? r->st : RERR(FCD_E_FORMAT, "%s: ends before its format card", r->path);
  fcd__ffmt *fp = &h->fp, *fi = &h->fi, *fv = &h->fv;
  char fmt[3][24];
  const char *fl = r->L.line;
  size_t fll = strlen(fl);
  for (int k = 0; k < 3; k++) { /* A16, A16, A20 */
    size_t a = (size_t)(16 * k), w = k < 2 ? 16 : 20;
    size_t c = a < fll ? (fll - a < w ? fll - a : w) : 0;
    memcpy(fmt[k], fl + (a < fll ? a : fll), c);
    fmt[k][c] = 0;
  }
  if (!fcd__parse_ffmt(fmt[0], fp) || fp->kind != 'I' || !fcd__parse_ffmt(fmt[1], fi) ||
      fi->kind != 'I' || !fcd__parse_ffmt(fmt[2], fv))
    return RERR(FCD_E_UNSUPPORTED, "%s:%ld: Fortran formats '%s' '%s' '%s': only (nIw) for "
                "pointers and indices and (nEw.d) (D, F, G, a scale factor kP) for values",
                r->path, r->L.lineno, fmt[0], fmt[1], fmt[2]);
  /* Harwell-Boeing's right-hand sides: their header card is skipped, their cards never
   * read (the matrix's cards come first) */
  if (nc == 5 && cnt[4] > 0 && (got = next_line(r)) <= 0)
    return got < 0 ? r->st : RERR(FCD_E_FORMAT, "%s: ends before its right-hand side card",
                                  r->path);
  return FCD_OK;
}

fcd_status fcd__read_harwell_boeing(fcd__mreader *r, fcd_matrix_file *m) {
  hb_head h;
  memset(&h, 0, sizeof h);
  FCD_TRY(hb_header(r, m, &h));
  long long nrow = h.nrow, ncol = h.ncol, nnz = h.nnz;
  const char *type = h.type;
  /* the indices and values are read into the entry arrays themselves: no second copy */
  int64_t *ptr = fcd__malloc_array((size_t)ncol + 1, sizeof *ptr);
  m->ri = fcd__malloc_array((size_t)nnz + 1, sizeof *m->ri);
  m->ci = fcd__malloc_array((size_t)nnz + 1, sizeof *m->ci);
  m->v = fcd__malloc_array((size_t)nnz + 1, sizeof *m->v);
  m->cap = m->ri && m->ci && m->v ? (fcd_index)nnz + 1 : 0;
  fcd_status st = (!ptr || !m->cap)
                      ? RERR(FCD_E_NOMEM, "%s: out of memory for %lld entries", r->path, nnz)
                      : FCD_OK;
  if (st == FCD_OK) st = read_fields(r, &h.fp, ncol + 1, "column pointers", ptr, NULL);
  if (st == FCD_OK && (ptr[0] != 1 || ptr[ncol] != nnz + 1))
    st = RERR(FCD_E_FORMAT, "%s: the column pointers run from %lld to %lld, not from 1 to "
              "%lld (the entries + 1)", r->path, (long long)ptr[0], (long long)ptr[ncol],
              nnz + 1);
  for (long long j = 0; st == FCD_OK && j < ncol; j++)
    if (ptr[j + 1] < ptr[j])
      st = RERR(FCD_E_FORMAT, "%s: column pointer %lld (%lld) below the one before (%lld)",
                r->path, j + 2, (long long)ptr[j + 1], (long long)ptr[j]);
  if (st == FCD_OK) st = read_fields(r, &h.fi, nnz, "row indices", m->ri, NULL);
  for (long long k = 0; st == FCD_OK && k < nnz; k++)
    if (m->ri[k] < 1 || m->ri[k] > nrow)
      st = RERR(FCD_E_FORMAT, "%s: row index %lld (entry %lld) outside 1..%lld", r->path,
                (long long)m->ri[k], k + 1, nrow);
  if (st == FCD_OK) st = read_fields(r, &h.fv, nnz, "values", NULL, m->v);
  /* ANSYS' equations by (node, dof) */
  char *mpath = st == FCD_OK ? mapping_path(r->path) : NULL;
  int64_t *node = NULL;
  signed char *dof = NULL;
  if (mpath) {
    node = fcd__malloc_array((size_t)nrow + 1, sizeof *node);
    dof = fcd__malloc_array((size_t)nrow + 1, 1);
    st = (!node || !dof) ? RERR(FCD_E_NOMEM, "%s: out of memory", mpath)
                         : read_mapping(r, mpath, nrow, node, dof);
    if (st == FCD_OK && nrow != ncol)
      st = RERR(FCD_E_FORMAT, "%s: a mapping for a %lld x %lld matrix", mpath, nrow, ncol);
    if (st == FCD_OK) {
      m->rd = fcd__malloc_array((size_t)nnz + 1, 1);
      m->cd = fcd__malloc_array((size_t)nnz + 1, 1);
      if (!m->rd || !m->cd) st = RERR(FCD_E_NOMEM, "%s: out of memory", r->path);
    }
    if (st == FCD_OK) m->labelled = 1;
  }
  m->symmetric = type[1] == 'S';
  m->nrows = nrow;
  m->ncols = ncol;
  for (long long j = 0; st == FCD_OK && j < ncol; j++)
    for (int64_t p = ptr[j] - 1; p < ptr[j + 1] - 1; p++) {
      int64_t i = m->ri[p] - 1;
      if (m->labelled) {
        m->ri[p] = node[i];
        m->rd[p] = dof[i];
        m->ci[p] = node[j];
        m->cd[p] = dof[j];
      } else {
        m->ri[p] = i;
        m->ci[p] = j;
      }
    }
  if (st == FCD_OK) m->n = (fcd_index)nnz;
  fcd__free(mpath);
  fcd__free(node);
  fcd__free(dof);
  fcd__free(ptr);
  return st;
}
