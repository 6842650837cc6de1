/* Nastran bulk data (.bdf, .dat, .nas): GRID, the shell, solid and line elements and the
 * sets that name contact surfaces (BSURF, BSURFS, SET1); small field, large field (GRID*,
 * '*' continuations) and free field (commas). Other cards are passed over. */
#include "mesh_private.h"
#include "import_private.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <strings.h>
#include <string.h>

/* a card: its name and data fields over all its lines (a SET1 or BSURF lists as many
 * ids as it has) */
typedef struct {
  char name[16];
  char (*f)[20]; /* the data fields, trimmed */
  int n, cap;
  int oom;
  long line;
} card;

typedef struct {
  fcd__meshsrc *ms;
  card c;
  int open;
  int comma_end; /* the card's last line was free field ending with a comma */
} rd;

static fcd_status bad(const rd *r, const char *what, int field) {
  return fcd__err(r->ms->sys, FCD_E_FORMAT, "%s:%ld: %s field %d: %s", r->ms->path, r->c.line,
                  r->c.name, field + 1, what);
}

static fcd_status nomem(const rd *r) {
  return fcd__err(r->ms->sys, FCD_E_NOMEM, "%s: out of memory", r->ms->path);
}

static void put(card *c, const char *s, size_t n) {
  while (n && (*s == ' ' || *s == '\t')) s++, n--;
  while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n')) n--;
  if (c->n == c->cap) {
    int cap = c->cap ? 2 * c->cap : 32;
    char(*f)[20] = fcd__grow_array(c->f, (size_t)c->n, (size_t)cap, sizeof *f);
    if (!f) {
      c->oom = 1;
      return;
    }
    c->f = f;
    c->cap = cap;
  }
  if (n >= sizeof c->f[0]) n = sizeof c->f[0] - 1;
  memcpy(c->f[c->n], s, n);
  c->f[c->n][n] = 0;
  c->n++;
}

/* the data fields of one line into c: first 1, the card's first line (its name too); 0 a
 * continuation line with its marker; 2 a free-field one without (after a trailing comma) */
static void split(card *c, const char *s, size_t len, int first) {
  if (first == 2) { /* a free-field continuation without a marker: every entry is data */
    for (const char *p = s, *end = s + len; p <= end;) {
      const char *q = memchr(p, ',', (size_t)(end - p));
      if (!q) q = end;
      put(c, p, (size_t)(q - p));
      p = q + 1;
    }
    return;
  }
  if (memchr(s, ',', len)) {
    /* free field: the name (or a continuation marker), eight data fields, and a
     * continuation marker in the tenth that is dropped; a short line has blank fields */
    const char *p = s, *end = s + len;
    int k = 0, start = c->n;
    while (p <= end && k < 9) {
      const char *q = memchr(p, ',', (size_t)(end - p));
      if (!q) q = end;
      if (k == 0) {
        if (first) {
          size_t n = (size_t)(q - p);
          while (n && (p[n - 1] == ' ' || p[n - 1] == '\r')) n--;
          while (n && *p == ' ') p++, n--;
          if (n >= sizeof c->name) n = sizeof c->name - 1;
          memcpy(c->name, p, n);
          c->name[n] = 0;
          size_t nl = strlen(c->name);
          if (nl && c->name[nl - 1] == '*') c->name[nl - 1] = 0;
        }
      } else
        put(c, p, (size_t)(q - p));
      k++;
      p = q + 1;
    }
    while (c->n < start + 8 && !c->oom) put(c, "", 0);
    return;
  }
  int large = 0;
  if (first) {
    size_t n = 0;
    while (n < 8 && n < len && s[n] != ' ' && s[n] != '\r') n++;
    memcpy(c->name, s, n);
    c->name[n] = 0;
    large = n > 0 && c->name[n - 1] == '*';
    if (large) c->name[n - 1] = 0;
  } else
    large = len > 0 && s[0] == '*';
  int w = large ? 16 : 8, nf = large ? 4 : 8;
  for (int k = 0; k < nf; k++) {
    size_t a = 8 + (size_t)k * (size_t)w;
    if (a >= len) {
      put(c, "", 0);
      continue;
    }
    size_t n = len - a < (size_t)w ? len - a : (size_t)w;
    put(c, s + a, n);
  }
}

/* field k of the card, "" past its last (a card cut short) */
static const char *fld(const card *c, int k) { return k < c->n ? c->f[k] : ""; }

static int i64(const char *s, int64_t *v) {
  if (!*s) return 0;
  char *e;
  errno = 0;
  long long x = strtoll(s, &e, 10);
  if (*e || errno) return 0;
  *v = x;
  return 1;
}

/* an integer field, blank giving def */
static int i64d(const char *s, int64_t def, int64_t *v) {
  if (!*s) {
    *v = def;
    return 1;
  }
  return i64(s, v);
}

static int realf(const char *s, double *v) {
  if (!*s) {
    *v = 0;
    return 1;
  }
  return fcd__fortran_real(s, strlen(s), v) && isfinite(*v);
}

static fcd_status group_add(rd *r, const char *prefix, int64_t id, int kind, int64_t item,
                            int face, const int64_t *by3) {
  char name[64];
  snprintf(name, sizeof name, "%s:%lld", prefix, (long long)id);
  fcd__mgroup *g = fcd__ms_group(r->ms, name, kind);
  if (!g || !fcd__ms_group_add(g, item, face, by3)) return nomem(r);
  return FCD_OK;
}

/* 'A THRU B [BY C]' lists or plain lists of labels from field k on */
static fcd_status id_list(rd *r, int k, const char *prefix, int64_t sid, int kind) {
  card *c = &r->c;
  for (; k < c->n; k++) {
    if (!*c->f[k]) continue;
    int64_t a, b, step = 1;
    if (!i64(c->f[k], &a)) return bad(r, "not an integer", k);
    if (k + 2 < c->n && strcasecmp(c->f[k + 1], "THRU") == 0) {
      if (!i64(c->f[k + 2], &b) || b < a) return bad(r, "THRU needs a larger label after it", k + 2);
      k += 2;
      if (k + 2 < c->n && strcasecmp(c->f[k + 1], "BY") == 0) {
        if (!i64(c->f[k + 2], &step) || step < 1) return bad(r, "BY needs a positive step", k + 2);
        k += 2;
      }
      if ((b - a) / step > 100000000) return bad(r, "a THRU range of over 10^8 labels", k);
      for (int64_t v = a; v <= b; v += step) FCD_TRY(group_add(r, prefix, sid, kind, v, 0, NULL));
    } else
      FCD_TRY(group_add(r, prefix, sid, kind, a, 0, NULL));
  }
  return FCD_OK;
}

static fcd_status element(rd *r, int lin, int quad, int nlin, int nquad,
                          const signed char (*edges)[2]) {
  card *c = &r->c;
  int64_t eid, pid, g[20];
  if (!i64(fld(c, 0), &eid)) return bad(r, "the element id is not an integer", 0);
  if (!i64d(fld(c, 1), eid, &pid)) return bad(r, "the property id is not an integer", 1);
  int n = 0;
  for (int k = 0; k < nquad && 2 + k < c->n; k++) {
    if (!*c->f[2 + k]) break;
    if (!i64(c->f[2 + k], &g[k])) return bad(r, "a grid id is not an integer", 2 + k);
    n = k + 1;
  }
  int t;
  int64_t v[20];
  /* Nastran lets a solid or a quadratic shell omit some of its mid-side grids (a
   * transition to linear neighbours): read as its corners, the grids given kept out of
   * the cell (docs/import.md) */
  int partial = quad && n > nlin && n < nquad;
  if (n == nlin || (n > nlin && nquad == nlin) || partial) t = lin;
  else if (n == nquad && quad) {
    t = quad;
    if (edges) {
      fcd__ms_reorder(quad, edges, g, v);
      memcpy(g, v, sizeof v);
    }
  } else
    return bad(r, n < nlin ? "fewer grids than the element has corners"
                            : "some mid-side grids given and some not (or too many grids)",
               2 + n);
  if (!fcd__ms_elem(r->ms, eid, t, g)) return nomem(r);
  return group_add(r, "PID", pid, FCD__G_ELEMENTS, eid, 0, NULL);
}

static fcd_status finish_card(rd *r) {
  card *c = &r->c;
  fcd__meshsrc *ms = r->ms;
  r->open = 0;
  if (c->oom) return nomem(r);
  char nm[16];
  snprintf(nm, sizeof nm, "%s", c->name);
  for (char *p = nm; *p; p++) *p = (char)toupper((unsigned char)*p);
  snprintf(c->name, sizeof c->name, "%s", nm);
  static const signed char hex20[12][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {0, 4}, {1, 5},
                                           {2, 6}, {3, 7}, {4, 5}, {5, 6}, {6, 7}, {7, 4}};
  static const signed char penta15[9][2] = {{0, 1}, {1, 2}, {2, 0}, {0, 3}, {1, 4},
                                            {2, 5}, {3, 4}, {4, 5}, {5, 3}};
  static const signed char tet10[6][2] = {{0, 1}, {1, 2}, {2, 0}, {0, 3}, {1, 3}, {2, 3}};
  static const signed char tri6[3][2] = {{0, 1}, {1, 2}, {2, 0}};
  static const signed char quad8[4][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}};
  if (!strcmp(nm, "GRID")) {
    int64_t id, cp;
    double x[3];
    if (!i64(fld(c, 0), &id)) return bad(r, "the grid id is not an integer", 0);
    if (!i64d(fld(c, 1), 0, &cp)) return bad(r, "CP is not an integer", 1);
    if (cp != 0)
      return fcd__err(ms->sys, FCD_E_UNSUPPORTED, "%s:%ld: GRID %lld is given in coordinate "
                      "system %lld; only the basic system (CP blank or 0) is read", ms->path,
                      c->line, (long long)id, (long long)cp);
    for (int a = 0; a < 3; a++)
      if (!realf(fld(c, 2 + a), &x[a])) return bad(r, "a coordinate is not a number", 2 + a);
    if (!fcd__ms_node(ms, id, x[0], x[1], x[2])) return nomem(r);
    return FCD_OK;
  }
  if (!strcmp(nm, "CTRIA3")) return element(r, FCD_VTK_TRIANGLE, 0, 3, 3, NULL);
  if (!strcmp(nm, "CQUAD4")) return element(r, FCD_VTK_QUAD, 0, 4, 4, NULL);
  if (!strcmp(nm, "CTRIA6"))
    return element(r, FCD_VTK_TRIANGLE, FCD_VTK_QUADRATIC_TRIANGLE, 3, 6, tri6);
  if (!strcmp(nm, "CQUAD8")) return element(r, FCD_VTK_QUAD, FCD_VTK_QUADRATIC_QUAD, 4, 8, quad8);
  if (!strcmp(nm, "CTETRA"))
    return element(r, FCD_VTK_TETRA, FCD_VTK_QUADRATIC_TETRA, 4, 10, tet10);
  if (!strcmp(nm, "CPENTA"))
    return element(r, FCD_VTK_WEDGE, FCD_VTK_QUADRATIC_WEDGE, 6, 15, penta15);
  if (!strcmp(nm, "CHEXA"))
    return element(r, FCD_VTK_HEXAHEDRON, FCD_VTK_QUADRATIC_HEXAHEDRON, 8, 20, hex20);
  static const signed char pyr13[8][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0},
                                           {0, 4}, {1, 4}, {2, 4}, {3, 4}};
  if (!strcmp(nm, "CPYRAM"))
    return element(r, FCD_VTK_PYRAMID, FCD_VTK_QUADRATIC_PYRAMID, 5, 13, pyr13);
  /* elements fcd does not read: refused, never passed over (a surface would lose them) */
  static const char *const refused[] = {"CQUADR", "CTRIAR", "CQUAD", "CQUADX", "CTRIAX",
                                        "CTRIAX6", "CSHEAR", "CHEXCZ", "CPENTCZ"};
  for (size_t k = 0; k < sizeof refused / sizeof *refused; k++)
    if (!strcmp(nm, refused[k]))
      return fcd__err(ms->sys, FCD_E_UNSUPPORTED, "%s:%ld: %s elements are not read (GRID, "
                      "CTRIA3, CQUAD4, CTRIA6, CQUAD8, CTETRA, CPENTA, CHEXA, CPYRAM, CROD, "
                      "CBAR, CBEAM are)", ms->path, c->line, nm);
  if (!strcmp(nm, "CROD") || !strcmp(nm, "CBAR") || !strcmp(nm, "CBEAM") ||
      !strcmp(nm, "CTUBE")) {
    int keep = c->n;
    if (c->n > 4) c->n = 4; /* orientation fields follow the two grids */
    fcd_status st = element(r, FCD_VTK_LINE, 0, 2, 2, NULL);
    c->n = keep;
    return st;
  }
  if (!strcmp(nm, "CONM2") || !strncmp(nm, "CELAS", 5) || !strncmp(nm, "CDAMP", 5) ||
      !strncmp(nm, "RBE", 3) || !strcmp(nm, "CBUSH") || !strcmp(nm, "CONM1") ||
      !strncmp(nm, "CMASS", 5) || !strcmp(nm, "RBAR")) {
    ms->skipped = 1;
    return FCD_OK;
  }
  if (!strcmp(nm, "SET1") || !strcmp(nm, "BSURF")) {
    int64_t sid;
    if (!i64(fld(c, 0), &sid)) return bad(r, "the set id is not an integer", 0);
    return id_list(r, 1, nm, sid, nm[0] == 'S' ? FCD__G_NODES : FCD__G_ELEMENTS);
  }
  if (!strcmp(nm, "BSURFS")) {
    int64_t id;
    if (!i64(fld(c, 0), &id)) return bad(r, "the id is not an integer", 0);
    for (int k = 4; k + 3 < c->n + 3 && k < c->n; k += 4) {
      int64_t eid, g[3];
      if (!*c->f[k]) continue;
      if (!i64(c->f[k], &eid)) return bad(r, "the element id is not an integer", k);
      for (int a = 0; a < 3; a++)
        if (k + 1 + a >= c->n || !i64(c->f[k + 1 + a], &g[a]))
          return bad(r, "a face needs three grid ids", k + 1 + a);
      FCD_TRY(group_add(r, "BSURFS", id, FCD__G_FACES, eid, -1, g));
    }
    return FCD_OK;
  }
  return FCD_OK; /* materials, properties, loads, ... */
}

fcd_status fcd__read_bulk(fcd__meshsrc *ms, const char *text, size_t len) {
  rd *r = fcd__calloc(1, sizeof *r);
  if (!r) return fcd__err(ms->sys, FCD_E_NOMEM, "out of memory");
  r->ms = ms;
  fcd_status st = FCD_OK;
  /* executive and case control come before BEGIN BULK; a file without it is bulk data */
  const char *p = text, *end = text + len;
  for (const char *q = text; q < end;) {
    const char *nl = memchr(q, '\n', (size_t)(end - q));
    size_t n = (size_t)((nl ? nl : end) - q);
    const char *s = q;
    while (s < q + n && *s == ' ') s++;
    if (q + n - s >= 10 && strncasecmp(s, "BEGIN BULK", 10) == 0) {
      p = nl ? nl + 1 : end;
      break;
    }
    q = nl ? nl + 1 : end;
  }
  long lineno = 1;
  for (const char *q = text; q < p; q++) lineno += *q == '\n';
  for (; p < end && st == FCD_OK; lineno++) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t n = (size_t)((nl ? nl : end) - p);
    const char *s = p;
    p = nl ? nl + 1 : end;
    if (memchr(s, 0, n)) {
      st = fcd__err(ms->sys, FCD_E_FORMAT, "%s:%ld: a NUL byte: not a text file", ms->path,
                    lineno);
      break;
    }
    size_t tl = n;
    while (tl && (s[tl - 1] == '\r' || s[tl - 1] == ' ')) tl--;
    if (tl == 0 || s[0] == '$') continue;
    if (tl >= 7 && strncasecmp(s, "ENDDATA", 7) == 0) break;
    const char *dollar = memchr(s, '$', tl); /* a comment after the data */
    if (dollar) tl = (size_t)(dollar - s);
    /* free field: a card whose line ends with a comma goes on on the next line, which
     * then needs no marker (NX and MSC write BSURF lists so) */
    int cont = s[0] == '+' || s[0] == '*' || s[0] == ',' || (s[0] == ' ' && r->open) ||
               (r->open && r->comma_end);
    if (cont && !r->open) {
      st = fcd__err(ms->sys, FCD_E_FORMAT, "%s:%ld: a continuation line without a card "
                    "before it", ms->path, lineno);
      break;
    }
    int ends = memchr(s, ',', tl) && s[tl - 1] == ',';
    if (!cont) {
      if (r->open) st = finish_card(r);
      if (st != FCD_OK) break;
      char(*keep)[20] = r->c.f;
      int cap = r->c.cap;
      memset(&r->c, 0, sizeof r->c);
      r->c.f = keep; /* the fields' block is kept from card to card */
      r->c.cap = cap;
      r->c.line = lineno;
      r->open = 1;
      split(&r->c, s, ends ? tl - 1 : tl, 1);
    } else
      split(&r->c, s, ends ? tl - 1 : tl, r->comma_end && s[0] != '+' && s[0] != ',' ? 2 : 0);
    r->comma_end = ends;
  }
  if (st == FCD_OK && r->open) st = finish_card(r);
  fcd__free(r->c.f);
  fcd__free(r);
  return st;
}
