/* Nastran OP4 files, ASCII and binary: a header per matrix (columns, rows, form, type,
 * an 8-character name, in ASCII the values' Fortran format), then column records (column,
 * first row, words) until a column past the last. Dense columns hold their values from the
 * first row on; sparse ones (first row 0) hold runs, each opened by IS = row + 65536 (L + 1)
 * (L the run's words), or in BIGMAT files (rows < 0) by the pair (L + 1, row). ASCII
 * values fill their fields and may touch; a dense record counts values, a sparse one words
 * (two a double). Binary files are Fortran unformatted records, either byte order, told by
 * the first record's length. A file may hold several matrices; the one read is named, or
 * the only one of the file. */
#include "import_private.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define RERR(code, ...) fcd__err_to(NULL, r->errbuf, r->errcap, code, __VA_ARGS__)

typedef struct {
  long long ncol, nrow, form, type;
  int bigmat;
  int npv, wpn; /* numbers a value (2: complex), words a number (2: double) */
  char name[9];
} op4_head;

typedef struct {
  char want[32], names[512];
  int nnames, found;
} op4_pick;

static void note(op4_pick *p, const char *name) {
  size_t n = strlen(p->names);
  if (n + strlen(name) + 3 < sizeof p->names)
    snprintf(p->names + n, sizeof p->names - n, "%s%s", n ? ", " : "", name);
  p->nnames++;
}

/* the matrix to keep: the one named, or the file's first */
static int keep_this(op4_pick *p, const char *name) {
  note(p, name);
  if (p->want[0] ? !strcasecmp(p->want, name) : !p->found) {
    p->found = 1;
    return 1;
  }
  return 0;
}

static fcd_status check_head(fcd__mreader *r, op4_head *h, long line) {
  if (h->nrow < 0) {
    h->bigmat = 1;
    h->nrow = -h->nrow;
  }
  if (h->ncol <= 0 || h->nrow <= 0 || h->type < 1 || h->type > 4)
    return RERR(FCD_E_FORMAT, "%s:%ld: an OP4 header with %lld columns, %lld rows, type %lld",
                r->path, line, h->ncol, h->nrow, h->type);
  h->npv = h->type > 2 ? 2 : 1;
  h->wpn = h->type == 2 || h->type == 4 ? 2 : 1;
  return FCD_OK;
}

/* the matrix kept must be real; a complex one beside it is read past */
static fcd_status check_kept(fcd__mreader *r, const op4_head *h, long line) {
  if (h->type > 2)
    return RERR(FCD_E_UNSUPPORTED, "%s:%ld: OP4 matrix %s is complex (type %lld): only real "
                "ones (types 1 and 2)", r->path, line, h->name, h->type);
  return FCD_OK;
}

static fcd_status finish(fcd__mreader *r, fcd_matrix_file *m, op4_pick *p, op4_head *kept) {
  if (!p->nnames) return RERR(FCD_E_FORMAT, "%s: no OP4 matrix", r->path);
  if (!p->found)
    return RERR(FCD_E_INVALID_ARG, "%s: no OP4 matrix '%s'; the file holds %s", r->path, p->want,
                p->names);
  if (!p->want[0] && p->nnames > 1)
    return RERR(FCD_E_INVALID_ARG, "%s: the file holds %d matrices (%s): name one, %s:NAME",
                r->path, p->nnames, p->names, r->path);
  snprintf(m->name, sizeof m->name, "%s", kept->name);
  m->nrows = kept->nrow;
  m->ncols = kept->ncol;
  /* form 6 may still store both triangles: symmetric storage only when no entry's mirror
   * is there */
  m->symmetric = 0;
  if (kept->form == 6) {
    int tri = 0;
    FCD_TRY(fcd__mfile_one_triangle(m, &tri, r->path, r->errbuf, r->errcap));
    m->symmetric = tri;
  }
  return FCD_OK;
}

/* ---- ASCII ---- */

static int next(fcd__mreader *r) {
  return fcd__lines_next(&r->L, NULL, r->errbuf, r->errcap, &r->st);
}

/* n fixed-width integers of width w from s */
static int fixed_ints(const char *s, int n, int w, long long *v) {
  size_t len = strlen(s);
  for (int k = 0; k < n; k++) {
    size_t a = (size_t)(k * w);
    if (a >= len) return 0;
    char b[24];
    size_t c = len - a < (size_t)w ? len - a : (size_t)w;
    memcpy(b, s + a, c);
    b[c] = 0;
    char *e;
    errno = 0;
    v[k] = strtoll(b, &e, 10);
    while (*e == ' ') e++;
    if (e == b || *e || errno == ERANGE) return 0;
  }
  return 1;
}

/* count numbers in fixed-width fields from the next lines into row, row + 1, ... (a kept
 * matrix is real: a number a row) */
static fcd_status ascii_values(fcd__mreader *r, const fcd__ffmt *f, long long count,
                               long long row, long long col, fcd_matrix_file *m, int keep,
                               const op4_head *h) {
  long long k = 0;
  while (k < count) {
    int got = next(r);
    if (got < 0) return r->st;
    if (!got)
      return RERR(FCD_E_FORMAT, "%s: the file ends inside column %lld of %s", r->path, col,
                  h->name);
    const char *s = r->L.line;
    size_t len = strlen(s);
    for (int j = 0; j < f->per && k < count; j++) {
      size_t a = (size_t)j * (size_t)f->width;
      if (a >= len) break;
      size_t w = len - a < (size_t)f->width ? len - a : (size_t)f->width;
      double v;
      if (!fcd__fortran_real(s + a, w, &v))
        return RERR(FCD_E_FORMAT, "%s:%ld: field %d ('%.*s') of column %lld of %s is not a "
                    "number", r->path, r->L.lineno, j + 1, (int)w, s + a, col, h->name);
      long long i = row + k / h->npv;
      if (i < 1 || i > h->nrow)
        return RERR(FCD_E_FORMAT, "%s:%ld: row %lld of %s outside 1..%lld", r->path,
                    r->L.lineno, i, h->name, h->nrow);
      if (keep && !fcd__mfile_push(m, i - 1, 0, col - 1, 0, v))
        return RERR(FCD_E_NOMEM, "%s: out of memory", r->path);
      k++;
    }
  }
  return FCD_OK;
}

/* one sparse column's runs: nw words */
static fcd_status ascii_sparse(fcd__mreader *r, const fcd__ffmt *f, long long nw, long long col,
                               fcd_matrix_file *m, int keep, const op4_head *h) {
  long long wpv = h->wpn, used = 0;
  while (used < nw) {
    int got = next(r);
    if (got <= 0)
      return got < 0 ? r->st : RERR(FCD_E_FORMAT, "%s: the file ends inside column %lld of %s",
                                    r->path, col, h->name);
    long long a = 0, b = 0, row, words;
    char *e;
    errno = 0;
    a = strtoll(r->L.line, &e, 10);
    int n = e != r->L.line && errno != ERANGE;
    if (n) {
      char *e2;
      b = strtoll(e, &e2, 10);
      if (e2 != e && errno != ERANGE) n = 2;
      e = e2;
    }
    while (*e == ' ' || *e == '\t') e++;
    if (*e) n = 0;
    if (h->bigmat) {
      if (n != 2 || a < 1 || a - 1 > nw - used)
        return RERR(FCD_E_FORMAT, "%s:%ld: expected a BIGMAT run's 'L row' within the "
                    "column's %lld words", r->path, r->L.lineno, nw);
      words = a - 1;
      row = b;
      used += 2 + words;
    } else {
      if (n != 1 || a < 65536 || a / 65536 - 1 > nw - used)
        return RERR(FCD_E_FORMAT, "%s:%ld: expected a sparse run's IS = row + 65536 (L + 1) "
                    "within the column's %lld words", r->path, r->L.lineno, nw);
      words = a / 65536 - 1;
      row = a % 65536;
      used += 1 + words;
    }
    if (words < 0 || words % wpv || used > nw)
      return RERR(FCD_E_FORMAT, "%s:%ld: a run of %lld words in column %lld of %s (%lld "
                  "declared)", r->path, r->L.lineno, words, col, h->name, nw);
    FCD_TRY(ascii_values(r, f, words / wpv, row, col, m, keep, h));
  }
  return FCD_OK;
}

static fcd_status read_ascii(fcd__mreader *r, fcd_matrix_file *m, op4_pick *p) {
  op4_head kept;
  memset(&kept, 0, sizeof kept);
  int got;
  while ((got = next(r)) > 0) {
    const char *s = r->L.line;
    if (!s[strspn(s, " \t")]) continue; /* blank */
    op4_head h;
    memset(&h, 0, sizeof h);
    long long v[4];
    if (strlen(s) < 40 || !fixed_ints(s, 4, 8, v))
      return RERR(FCD_E_FORMAT, "%s:%ld: expected an OP4 header 'columns rows form type "
                  "NAME format', got '%.60s'", r->path, r->L.lineno, s);
    h.ncol = v[0], h.nrow = v[1], h.form = v[2], h.type = v[3];
    memcpy(h.name, s + 32, 8);
    h.name[8] = 0;
    for (int k = 7; k >= 0 && h.name[k] == ' '; k--) h.name[k] = 0;
    fcd__ffmt f;
    if (!fcd__parse_ffmt(s + 40, &f) || f.kind != 'E')
      return RERR(FCD_E_FORMAT, "%s:%ld: OP4 format '%s' is not a real one (such as "
                  "1P,3E23.16)", r->path, r->L.lineno, s + 40);
    long line = r->L.lineno;
    FCD_TRY(check_head(r, &h, line));
    int keep = keep_this(p, h.name);
    if (keep) {
      kept = h;
      FCD_TRY(check_kept(r, &h, line));
    }
    for (;;) {
      if ((got = next(r)) <= 0)
        return got < 0 ? r->st : RERR(FCD_E_FORMAT, "%s: the file ends inside %s (no closing "
                                      "column %lld)", r->path, h.name, h.ncol + 1);
      long long c[3];
      if (!fixed_ints(r->L.line, 3, 8, c))
        return RERR(FCD_E_FORMAT, "%s:%ld: expected a column record 'column row words', got "
                    "'%.60s'", r->path, r->L.lineno, r->L.line);
      if (c[0] < 1 || c[2] < 0)
        return RERR(FCD_E_FORMAT, "%s:%ld: column record %lld %lld %lld", r->path,
                    r->L.lineno, c[0], c[1], c[2]);
      if (c[0] > h.ncol) { /* the closing record and its values */
        op4_head any = h; /* its values sit on no row */
        any.nrow = LLONG_MAX / 2;
        FCD_TRY(ascii_values(r, &f, c[2], 1, c[0], m, 0, &any));
        break;
      }
      if (c[1] > 0) FCD_TRY(ascii_values(r, &f, c[2], c[1], c[0], m, keep, &h));
      else FCD_TRY(ascii_sparse(r, &f, c[2], c[0], m, keep, &h));
    }
  }
  if (got < 0) return r->st;
  return finish(r, m, p, &kept);
}

/* ---- binary ---- */

typedef struct {
  FILE *fp;
  int swap;
  long long rec;
  unsigned char *buf; /* read ahead by megabytes: a call of fread a record costs more */
  size_t cap, pos, end;  /* than its column's words */
} bin;

static uint32_t u32(const unsigned char *b, int swap) {
  return swap ? (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3]
              : (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | b[0];
}

/* at least want bytes after pos (fewer only at the end of the file); 0 when out of memory.
 * The buffer grows as bytes come, so that a marker promising a gigabyte in a small file
 * costs the file's size, not the promise. */
static int ahead(bin *b, size_t want) {
  if (b->end - b->pos >= want) return 1;
  size_t have = b->end - b->pos;
  if (b->pos) memmove(b->buf, b->buf + b->pos, have);
  b->pos = 0;
  b->end = have;
  while (b->end < want) {
    if (b->end == b->cap) {
      size_t nc = b->cap ? 2 * b->cap : (size_t)1 << 20;
      if (nc > want && want > b->cap) nc = want > ((size_t)1 << 20) ? want : (size_t)1 << 20;
      unsigned char *t = fcd__grow_array(b->buf, b->end, nc, 1);
      if (!t) return 0;
      b->buf = t;
      b->cap = nc;
    }
    size_t got = fread(b->buf + b->end, 1, b->cap - b->end, b->fp);
    if (!got) break;
    b->end += got;
  }
  return 1;
}

/* the next record's payload in place (*rec, valid until the next call), its length in
 * *len; 0 at the end of file */
static int record(fcd__mreader *r, bin *b, const unsigned char **rec, size_t *len,
                  fcd_status *st) {
  *st = FCD_OK;
  if (!ahead(b, 4)) goto oom;
  size_t got = b->end - b->pos;
  if (got == 0) return 0;
  if (got < 4) {
    *st = RERR(FCD_E_FORMAT, "%s: record %lld: a truncated record marker", r->path, b->rec);
    return -1;
  }
  uint32_t n = u32(b->buf + b->pos, b->swap);
  if (n > (1u << 30)) {
    *st = RERR(FCD_E_FORMAT, "%s: record %lld: a record of %u bytes", r->path, b->rec, n);
    return -1;
  }
  if (!ahead(b, (size_t)n + 8)) goto oom;
  if (b->end - b->pos < (size_t)n + 8 || u32(b->buf + b->pos + 4 + n, b->swap) != n) {
    *st = RERR(FCD_E_FORMAT, "%s: record %lld: truncated, or its closing marker differs",
               r->path, b->rec);
    return -1;
  }
  *rec = b->buf + b->pos + 4;
  *len = n;
  b->pos += (size_t)n + 8;
  b->rec++;
  return 1;
oom:
  *st = RERR(FCD_E_NOMEM, "%s: out of memory for record %lld", r->path, b->rec);
  return -1;
}

static int host_little(void) {
  const uint16_t one = 1;
  unsigned char b;
  memcpy(&b, &one, 1);
  return b == 1;
}

static double value_at(const unsigned char *p, int dbl, int swap) {
  unsigned char t[8];
  size_t n = dbl ? 8 : 4;
  for (size_t k = 0; k < n; k++) t[k] = swap ? p[n - 1 - k] : p[k];
  if (dbl) {
    double d;
    memcpy(&d, t, 8);
    return d;
  }
  float f;
  memcpy(&f, t, 4);
  return f;
}

/* one column record's data words (after icol, irow, nw) */
static fcd_status bin_column(fcd__mreader *r, const unsigned char *d, long long nw, long long col,
                             long long irow, const op4_head *h, fcd_matrix_file *m, int keep,
                             int swap) {
  int dbl = h->wpn == 2;
  long long wpv = h->wpn;
  long long w = 0;
  while (w < nw) {
    long long row, words;
    if (irow > 0) {
      row = irow;
      words = nw;
    } else if (h->bigmat) {
      if (w + 2 > nw) break;
      words = (long long)u32(d + 4 * w, swap) - 1;
      row = u32(d + 4 * (w + 1), swap);
      w += 2;
    } else {
      uint32_t is = u32(d + 4 * w, swap);
      words = is / 65536 - 1;
      row = is % 65536;
      w += 1;
    }
    if (words < 0 || words % wpv || w + words > nw)
      return RERR(FCD_E_FORMAT, "%s: column %lld of %s: a run of %lld words past its %lld",
                  r->path, col, h->name, words, nw);
    long long cnt = words / wpv;
    if (cnt && (row < 1 || row + cnt - 1 > h->nrow))
      return RERR(FCD_E_FORMAT, "%s: column %lld of %s: rows %lld..%lld outside 1..%lld",
                  r->path, col, h->name, row, row + cnt - 1, h->nrow);
    if (keep && cnt > 0 && cnt < (1LL << 28)) { /* a record holds at most 2^28 words */
      if (!fcd__mfile_room(m, (fcd_index)cnt))
        return RERR(FCD_E_NOMEM, "%s: out of memory", r->path);
      fcd_index at = m->n;
      for (long long k = 0; k < cnt; k++) {
        m->ri[at + k] = row + k - 1;
        m->ci[at + k] = col - 1;
      }
      const unsigned char *p = d + 4 * w;
      if (dbl && !swap && host_little()) memcpy(m->v + at, p, 8 * (size_t)cnt); /* in place */
      else
        for (long long k = 0; k < cnt; k++) m->v[at + k] = value_at(p + 4 * k * wpv, dbl, swap);
      int finite = 1;
      for (long long k = 0; k < cnt; k++) finite &= isfinite(m->v[at + k]) != 0;
      if (finite && m->finite_upto == at) m->finite_upto = at + (fcd_index)cnt;
      long long a = row - 1, b = row + cnt - 2, c = col - 1; /* rows a..b of column c */
      if (b < c) m->above += (fcd_index)cnt;
      else if (a > c) m->below += (fcd_index)cnt;
      else m->above += (fcd_index)(c - a), m->below += (fcd_index)(b - c);
      m->n += (fcd_index)cnt;
    }
    w += words;
  }
  return FCD_OK;
}

static fcd_status read_binary(fcd__mreader *r, fcd_matrix_file *m, op4_pick *p, int swap) {
  bin b = {r->fp, swap, 1, NULL, 0, 0, 0};
  m->sides_known = 1; /* every entry kept is counted by its run (bin_column) */
  const unsigned char *buf = NULL;
  size_t len = 0;
  fcd_status st = FCD_OK;
  op4_head kept, h;
  memset(&kept, 0, sizeof kept);
  int got, in = 0, keep = 0;
  while ((got = record(r, &b, &buf, &len, &st)) > 0) {
    if (!in) {
      if (len != 24) {
        st = RERR(FCD_E_FORMAT, "%s: record %lld: an OP4 header of %zu bytes (24 expected)",
                  r->path, b.rec - 1, len);
        break;
      }
      memset(&h, 0, sizeof h);
      h.ncol = (int32_t)u32(buf, swap);
      h.nrow = (int32_t)u32(buf + 4, swap);
      h.form = (int32_t)u32(buf + 8, swap);
      h.type = (int32_t)u32(buf + 12, swap);
      memcpy(h.name, buf + 16, 8);
      for (int k = 7; k >= 0 && (h.name[k] == ' ' || !h.name[k]); k--) h.name[k] = 0;
      if ((st = check_head(r, &h, 0)) != FCD_OK) break;
      keep = keep_this(p, h.name);
      if (keep) {
        kept = h;
        if ((st = check_kept(r, &h, 0)) != FCD_OK) break;
      }
      in = 1;
      continue;
    }
    if (len < 12) {
      st = RERR(FCD_E_FORMAT, "%s: record %lld: a column record of %zu bytes", r->path,
                b.rec - 1, len);
      break;
    }
    long long col = (int32_t)u32(buf, swap), irow = (int32_t)u32(buf + 4, swap);
    long long nw = (int32_t)u32(buf + 8, swap);
    if (col < 1 || nw < 0 || 12 + 4 * (size_t)nw > len) {
      st = RERR(FCD_E_FORMAT, "%s: record %lld: column %lld with %lld words in %zu bytes",
                r->path, b.rec - 1, col, nw, len);
      break;
    }
    if (col > h.ncol) { /* the closing record */
      in = 0;
      continue;
    }
    if (keep && (st = bin_column(r, buf + 12, nw, col, irow, &h, m, keep, swap)) != FCD_OK)
      break;
  }
  fcd__free(b.buf);
  if (st != FCD_OK || got < 0) return st;
  if (in)
    return RERR(FCD_E_FORMAT, "%s: the file ends inside %s (no closing column)", r->path,
                h.name);
  return finish(r, m, p, &kept);
}

fcd_status fcd__read_op4(fcd__mreader *r, fcd_matrix_file *m, const char *want) {
  op4_pick p;
  memset(&p, 0, sizeof p);
  snprintf(p.want, sizeof p.want, "%s", want ? want : "");
  unsigned char b4[4] = {0, 0, 0, 0};
  size_t got = fread(b4, 1, 4, r->fp);
  rewind(r->fp);
  if (got == 4 && (u32(b4, 0) == 24 || u32(b4, 1) == 24))
    return read_binary(r, m, &p, u32(b4, 0) != 24);
  return read_ascii(r, m, &p);
}
