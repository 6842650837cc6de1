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
typedef struct {
  char (*f)[24];
  int n, cap;  /* data fields (the card's fields after its name) */
  int oom;     /* a field could not be kept: out of memory */
  int dmig;    /* 1: a DMIG card */
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
static void line_fields(const char *s, card *c) {
  size_t len = strlen(s);
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
  int large = s[0] == '*' || (len > 4 && strchr(s, '*') && strchr(s, '*') < s + 8);
  size_t w = large ? 16 : 8;
  for (size_t a = 8; a < 72 && a < len; a += w) push(c, s + a, len - a < w ? len - a : w);
  /* a short line's missing fields are blank: pad to the line's width */
  size_t want = large ? 4 : 8, have = len > 8 ? (len - 8 + w - 1) / w : 0;
  for (size_t k = have; k < want; k++) push(c, "", 0);
}

static void trim(char *s) {
  size_t a = 0, n = strlen(s);
  while (a < n && isspace((unsigned char)s[a])) a++;
  while (n > a && isspace((unsigned char)s[n - 1])) n--;
  memmove(s, s + a, n - a);
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

static int int_of(const char *s, long long *v) {
  while (*s == ' ' || *s == '\t') s++;
  if (!*s) return 0;
  char *e;
  errno = 0;
  *v = strtoll(s, &e, 10);
  while (*e == ' ' || *e == '\t' || *e == '\r') e++;
  return e != s && !*e && errno != ERANGE;
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

/* one complete DMIG card: a header or a column of the matrix asked for */
static fcd_status take_card(fcd__mreader *r, card *c, dmig_state *d, fcd_matrix_file *m) {
  for (int k = 0; k < c->n; k++) trim(c->f[k]);
  if (c->n < 3)
    return RERR(FCD_E_FORMAT, "%s:%ld: a DMIG card with %d fields", r->path, c->line, c->n);
  const char *name = c->f[0];
  long long gj, cj;
  if (!int_of(c->f[1], &gj))
    return RERR(FCD_E_FORMAT, "%s:%ld: field 3 of DMIG %s ('%s') is not an integer", r->path,
                c->line, name, c->f[1]);
  if (gj == 0 && !strcmp(c->f[1], "0")) { /* the header */
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
  if (!d->found || strcasecmp(m->name, name)) return FCD_OK; /* another matrix's column */
  if (!int_of(c->f[2], &cj) || cj < 0 || cj > 6)
    return RERR(FCD_E_FORMAT, "%s:%ld: DMIG %s column %lld: component '%s' is not 0..6",
                r->path, c->line, name, gj, c->f[2]);
  /* terms in groups of four fields (G, C, A, B) after NAME GJ CJ and a blank */
  for (int k = 4; k < c->n; k += 4) {
    if (!c->f[k][0] && (k + 1 >= c->n || !c->f[k + 1][0])) continue; /* an empty group */
    long long gi, ci;
    double a;
    if (!int_of(c->f[k], &gi) || k + 2 >= c->n || !int_of(c->f[k + 1], &ci) || ci < 0 ||
        ci > 6 || !fcd__fortran_real(c->f[k + 2], strlen(c->f[k + 2]), &a))
      return RERR(FCD_E_FORMAT, "%s:%ld: DMIG %s column %lld: term '%s' '%s' '%s' is not "
                  "'grid component value'", r->path, c->line, name, gj, c->f[k],
                  k + 1 < c->n ? c->f[k + 1] : "", k + 2 < c->n ? c->f[k + 2] : "");
    if (!fcd__mfile_push(m, gi, (int)ci, gj, (int)cj, a))
      return RERR(FCD_E_NOMEM, "%s: out of memory", r->path);
  }
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
      if (c->dmig) line_fields(s, c);
      continue;
    }
    if (open && c->dmig)
      st = c->oom ? RERR(FCD_E_NOMEM, "%s:%ld: out of memory for a card's fields", r->path, c->line)
                  : take_card(r, c, &d, m);
    open = 0;
    if (st != FCD_OK) break;
    c->n = 0;
    c->dmig = 0;
    c->dmig = card_name_is_dmig(s);
    c->line = r->L.lineno;
    if (c->dmig) line_fields(s, c);
    open = 1;
  }
  if (st == FCD_OK && got < 0) st = r->st;
  if (st == FCD_OK && open && c->dmig)
    st = c->oom ? RERR(FCD_E_NOMEM, "%s:%ld: out of memory for a card's fields", r->path, c->line)
                : take_card(r, c, &d, m);
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
