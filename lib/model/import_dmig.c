/* Nastran DMIG bulk data (punch files, bulk data decks): a header card `DMIG NAME 0 IFO
 * TIN TOUT POLAR NCOL`, then a card per column `DMIG NAME GJ CJ` with its terms `(Gi, Ci,
 * Ai[, Bi])`. Small field (8-character fields that may run together), large field (`DMIG*`,
 * 16-character fields, continuations beginning with `*`) and free field (commas); Nastran's
 * short exponents (-1.556+2) and D exponents. A file may hold several matrices; the one
 * read is named, or the only one of the file. Entries by (grid or scalar point, component). */
#include "import_private.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define RERR(code, ...) fcd__err_to(NULL, r->errbuf, r->errcap, code, __VA_ARGS__)

/* a card's data fields over its line and continuations, as many as it has (a column of
 * a large matrix runs to thousands of terms) */
enum { CARD_OPEN, CARD_HEADER, CARD_COLUMN, CARD_SKIP };
typedef struct {
  char (*f)[24];
  int n, cap;  /* data fields (the card's fields after its name) not yet taken */
  int oom;     /* a field could not be kept: out of memory */
  int dmig;    /* 1: a DMIG card */
  int mode;    /* CARD_*: what it is, once its first fields are there */
  int next;    /* a column's next term: its first field */
  long long gj, cj;
  char name[24];
  long line;   /* its first line */
} card;

/* one more field of k characters at p (trimmed later) */
static void push(card *c, const char *p, size_t k) {
  if (c->n == c->cap) {
    int cap = c->cap ? 2 * c->cap : 64;
    char(*f)[24] = cap > 0 ? fcd__grow_array(c->f, (size_t)c->n, (size_t)cap, sizeof *f) : NULL;
    if (!f) {
      c->oom = 1;
      return;
    }
    c->f = f;
    c->cap = cap;
  }
  if (k > 23) k = 23;
  memcpy(c->f[c->n], p, k);
  c->f[c->n][k] = 0;
  c->n++;
}

/* the fields 2.. of one line into c (small: 8 wide, large: 16 wide, free: commas) */
static void line_fields(const char *s, size_t len, card *c) {
  const char *comma = memchr(s, ',', len < 10 ? len : 10);
  if (comma) { /* free field: NAME,f2,f3,... */
    const char *p = comma + 1;
    for (;;) {
      const char *e = strchr(p, ',');
      size_t w = e ? (size_t)(e - p) : strlen(p);
      push(c, p, w);
      if (!e) break;
      p = e + 1;
    }
    return;
  }
  int large = s[0] == '*' || (len > 4 && memchr(s, '*', len < 8 ? len : 8));
  size_t w = large ? 16 : 8;
  for (size_t a = 8; a < 72 && a < len; a += w) push(c, s + a, len - a < w ? len - a : w);
  /* a short line's missing fields are blank: pad to the line's width */
  size_t want = large ? 4 : 8, have = len > 8 ? (len - 8 + w - 1) / w : 0;
  for (size_t k = have; k < want; k++) push(c, "", 0);
}

static int blank(const char *s) {
  while (*s == ' ' || *s == '\t') s++;
  return !*s;
}

static void trim(char *s) {
  size_t a = 0, n = strlen(s);
  while (a < n && isspace((unsigned char)s[a])) a++;
  while (n > a && isspace((unsigned char)s[n - 1])) n--;
  if (a) memmove(s, s + a, n - a);
  s[n - a] = 0;
}

/* a continuation line: blank first field, or one beginning with + or * */
static int continuation(const char *s) {
  if (s[0] == '+' || s[0] == '*' || s[0] == ',') return 1;
  for (int k = 0; k < 8 && s[k]; k++)
    if (!isspace((unsigned char)s[k])) return 0;
  return s[0] != 0;
}

static int card_name_is_dmig(const char *s) {
  char b[9];
  size_t k = 0;
  while (k < 8 && s[k] && s[k] != ',' && !isspace((unsigned char)s[k])) {
    b[k] = (char)toupper((unsigned char)s[k]);
    k++;
  }
  b[k] = 0;
  return !strcmp(b, "DMIG") || !strcmp(b, "DMIG*");
}

/* a field holding one integer and blanks */
static int int_of(const char *s, long long *v) {
  size_t n = fcd__scan_int(s, v);
  if (!n) return 0;
  s += n;
  while (*s == ' ' || *s == '\t' || *s == '\r') s++;
  return !*s;
}

typedef struct {
  char want[32];        /* the matrix asked for ("" for the only one) */
  char names[512];      /* the names met, for the message */
  int nnames, found;
  long long ifo, tin, ncol;
} dmig_state;

static void note_name(dmig_state *d, const char *name) {
  if (strstr(d->names, name)) return;
  size_t n = strlen(d->names);
  if (n + strlen(name) + 3 < sizeof d->names)
    snprintf(d->names + n, sizeof d->names - n, "%s%s", n ? ", " : "", name);
  d->nnames++;
}

/* the header card, whole: `NAME 0 IFO TIN TOUT POLAR - NCOL` */
static fcd_status take_header(fcd__mreader *r, card *c, dmig_state *d, fcd_matrix_file *m) {
  const char *name = c->f[0];
  note_name(d, name);
  if (d->want[0] ? strcasecmp(d->want, name) : d->found) return FCD_OK;
  long long ifo, tin, ncol = 0;
  if (c->n < 4 || !int_of(c->f[2], &ifo) || !int_of(c->f[3], &tin))
    return RERR(FCD_E_FORMAT, "%s:%ld: DMIG %s: expected 'IFO TIN' in fields 4 and 5",
                r->path, c->line, name);
  if (tin != 1 && tin != 2)
    return RERR(FCD_E_UNSUPPORTED, "%s:%ld: DMIG %s is complex (TIN %lld): only real "
                "matrices (TIN 1 or 2)", r->path, c->line, name, tin);
  if (c->n >= 8) int_of(c->f[7], &ncol);
  d->found = 1;
  d->ifo = ifo;
  d->tin = tin;
  d->ncol = ncol;
  snprintf(m->name, sizeof m->name, "%s", name);
  m->symmetric = ifo == 6;
  return FCD_OK;
}

/* what the card is, once its first fields `NAME GJ CJ` are there: a header (kept whole
 * until its end), a column of the matrix asked for (its terms read as they come) or of
 * another (read past) */
static fcd_status decide(fcd__mreader *r, card *c, dmig_state *d, fcd_matrix_file *m) {
  for (int k = 0; k < c->n && k < 2; k++) trim(c->f[k]); /* the name, GJ (0: a header) */
  if (c->n < 3)
    return RERR(FCD_E_FORMAT, "%s:%ld: a DMIG card with %d fields", r->path, c->line, c->n);
  memcpy(c->name, c->f[0], sizeof c->name); /* the same size, NUL-terminated */
  if (!int_of(c->f[1], &c->gj))
    return RERR(FCD_E_FORMAT, "%s:%ld: field 3 of DMIG %s ('%s') is not an integer", r->path,
                c->line, c->name, c->f[1]);
  if (c->gj == 0 && !strcmp(c->f[1], "0")) {
    for (int k = 2; k < c->n && k < 4; k++) trim(c->f[k]);
    c->mode = CARD_HEADER;
    return FCD_OK;
  }
  if (!d->found || strcasecmp(m->name, c->name)) {
    c->mode = CARD_SKIP;
    c->n = 0;
    return FCD_OK;
  }
  if (!int_of(c->f[2], &c->cj) || c->cj < 0 || c->cj > 6) {
    trim(c->f[2]);
    return RERR(FCD_E_FORMAT, "%s:%ld: DMIG %s column %lld: component '%s' is not 0..6",
                r->path, c->line, c->name, c->gj, c->f[2]);
  }
  c->mode = CARD_COLUMN;
  c->next = 4; /* the terms follow NAME GJ CJ and a blank */
  return FCD_OK;
}

/* the term (G, C, A[, B]) of fields k.. */
static fcd_status term(fcd__mreader *r, card *c, int k, fcd_matrix_file *m) {
  if (blank(c->f[k]) && (k + 1 >= c->n || blank(c->f[k + 1]))) return FCD_OK; /* empty */
  long long gi, ci;
  double a;
  if (!int_of(c->f[k], &gi) || k + 2 >= c->n || !int_of(c->f[k + 1], &ci) || ci < 0 ||
      ci > 6 || !fcd__fortran_real(c->f[k + 2], strlen(c->f[k + 2]), &a)) {
    for (int q = k; q < k + 3 && q < c->n; q++) trim(c->f[q]);
    return RERR(FCD_E_FORMAT, "%s:%ld: DMIG %s column %lld: term '%s' '%s' '%s' is not "
                "'grid component value'", r->path, c->line, c->name, c->gj, c->f[k],
                k + 1 < c->n ? c->f[k + 1] : "", k + 2 < c->n ? c->f[k + 2] : "");
  }
  if (!fcd__mfile_push(m, gi, (int)ci, c->gj, (int)c->cj, a))
    return RERR(FCD_E_NOMEM, "%s: out of memory", r->path);
  return FCD_OK;
}

/* a w-wide field holding an integer between blanks */
static int field_int(const char *p, size_t w, long long *v) {
  size_t k = 0;
  while (k < w && p[k] == ' ') k++;
  if (k == w) return 0;
  int neg = p[k] == '-';
  if (p[k] == '-' || p[k] == '+') k++;
  size_t d0 = k;
  unsigned long long u = 0;
  while (k < w && p[k] >= '0' && p[k] <= '9' && k - d0 < 18) u = 10 * u + (unsigned)(p[k++] - '0');
  if (k == d0) return 0;
  while (k < w && p[k] == ' ') k++;
  if (k < w) return 0;
  *v = neg ? -(long long)u : (long long)u;
  return 1;
}

/* a large-field continuation `*  G  C  A  [B]` of a column with no field pending, read in
 * place (most of a punch file's lines); 0: not that shape, or not plain, read by fields */
static int direct_term(const char *s, size_t len, card *c, fcd_matrix_file *m, int *oom) {
  if (s[0] != '*' || len < 41 || len > 72 || c->n || c->next != 0) return 0;
  long long gi, ci;
  double a;
  size_t wa = len < 56 ? len - 40 : 16;
  if (!field_int(s + 8, 16, &gi) || !field_int(s + 24, 16, &ci) || ci < 0 || ci > 6 ||
      !fcd__fortran_real(s + 40, wa, &a))
    return 0;
  if (!fcd__mfile_push(m, gi, (int)ci, c->gj, (int)c->cj, a)) *oom = 1;
  return 1;
}

/* the card's fields so far (final: all of them): a column's whole terms are taken and
 * dropped, so that a column of thousands of terms holds a line's fields at a time */
static fcd_status feed(fcd__mreader *r, card *c, dmig_state *d, fcd_matrix_file *m,
                       int final) {
  if (c->oom)
    return RERR(FCD_E_NOMEM, "%s:%ld: out of memory for a card's fields", r->path, c->line);
  if (c->mode == CARD_OPEN) {
    if (c->n < 4 && !final) return FCD_OK;
    FCD_TRY(decide(r, c, d, m));
  }
  if (c->mode == CARD_HEADER) return final ? take_header(r, c, d, m) : FCD_OK;
  if (c->mode != CARD_COLUMN) return FCD_OK;
  int k = c->next;
  for (; k + 4 <= c->n || (final && k < c->n); k += 4) FCD_TRY(term(r, c, k, m));
  if (k > 0 && k <= c->n) { /* keep the fields of a term not yet whole */
    memmove(c->f, c->f + k, (size_t)(c->n - k) * sizeof *c->f);
    c->n -= k;
    k = 0;
  }
  c->next = k;
  return FCD_OK;
}

fcd_status fcd__read_dmig(fcd__mreader *r, fcd_matrix_file *m, const char *want) {
  dmig_state d;
  memset(&d, 0, sizeof d);
  snprintf(d.want, sizeof d.want, "%s", want ? want : "");
  m->labelled = 1;
  card *c = fcd__calloc(1, sizeof *c);
  if (!c) return RERR(FCD_E_NOMEM, "out of memory");
  fcd_status st = FCD_OK;
  int open = 0, got;
  while (st == FCD_OK && (got = fcd__lines_next(&r->L, NULL, r->errbuf, r->errcap, &r->st)) > 0) {
    const char *s = r->L.line;
    if (s[0] == '$') continue;
    if (open && continuation(s)) {
      if (c->dmig && c->mode != CARD_SKIP) {
        int oom = 0;
        if (c->mode == CARD_COLUMN && direct_term(s, r->L.len, c, m, &oom)) {
          if (oom) st = RERR(FCD_E_NOMEM, "%s: out of memory", r->path);
          continue;
        }
        line_fields(s, r->L.len, c);
        st = feed(r, c, &d, m, 0);
      }
      continue;
    }
    if (open && c->dmig) st = feed(r, c, &d, m, 1);
    open = 0;
    if (st != FCD_OK) break;
    c->n = 0;
    c->mode = CARD_OPEN;
    c->dmig = card_name_is_dmig(s);
    c->line = r->L.lineno;
    if (c->dmig) {
      line_fields(s, r->L.len, c);
      st = feed(r, c, &d, m, 0);
    }
    open = 1;
  }
  if (st == FCD_OK && got < 0) st = r->st;
  if (st == FCD_OK && open && c->dmig) st = feed(r, c, &d, m, 1);
  fcd__free(c->f);
  fcd__free(c);
  if (st != FCD_OK) return st;
  if (d.nnames == 0) return RERR(FCD_E_FORMAT, "%s: no DMIG header card", r->path);
  if (!d.found)
    return RERR(FCD_E_INVALID_ARG, "%s: no DMIG matrix '%s'; the file holds %s", r->path,
                d.want, d.names);
  if (!d.want[0] && d.nnames > 1)
    return RERR(FCD_E_INVALID_ARG, "%s: the file holds %d matrices (%s): name one, "
                "%s:NAME", r->path, d.nnames, d.names, r->path);
  if (m->n == 0) return RERR(FCD_E_FORMAT, "%s: DMIG %s has no terms", r->path, m->name);
  return fcd__mfile_count_pairs(m, r->errbuf, r->errcap);
}
