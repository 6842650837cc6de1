/* Abaqus' *MATRIX OUTPUT / *MATRIX GENERATE files: FORMAT=MATRIX INPUT (`node, dof,
 * node, dof, value`, one entry a line, no header) and FORMAT=COORDINATE (`row, column,
 * value`, 1-based equations). A symmetric matrix comes as one triangle, an unsymmetric
 * one whole; neither says which, so the entries tell: a file in which no off-diagonal
 * entry has its mirror is one triangle of a symmetric matrix, one with mirrors is whole. */
#include "import_private.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define RERR(code, ...) fcd__err_to(NULL, r->errbuf, r->errcap, code, __VA_ARGS__)

/* the next field: an integer or a real, then a comma or blanks */
static int int_field(const char **s, long long *v) {
  long long x;
  size_t n = fcd__scan_int(*s, &x); /* strtoll's locale and base cost a tenth of the read */
  if (!n) return 0;
  const char *e = *s + n;
  while (*e == ' ' || *e == '\t') e++;
  if (*e == ',') e++;
  else if (*e && !isspace((unsigned char)e[-1])) return 0;
  *s = e;
  *v = x;
  return 1;
}

static int real_field(const char **s, double *v) {
  const char *p = *s;
  while (*p == ' ' || *p == '\t') p++;
  size_t n = 0;
  if (!fcd__fast_decimal(p, SIZE_MAX, 1, v, &n) || (p[n] && p[n] != ',' && p[n] != ' ' &&
                                                    p[n] != '\t')) { /* stops at the NUL */
    n = 0;
    while (p[n] && p[n] != ',' && p[n] != ' ' && p[n] != '\t') n++;
    if (!n || !fcd__fortran_real(p, n, v)) return 0;
  }
  p += n;
  while (*p == ' ' || *p == '\t' || *p == ',') p++;
  *s = p;
  return **s == 0;
}

fcd_status fcd__read_abaqus(fcd__mreader *r, fcd_matrix_file *m, fcd_matrix_format format) {
  int labelled = format == FCD_MATRIX_FORMAT_ABAQUS_MATRIX;
  m->labelled = labelled;
  long long maxr = 0, maxc = 0;
  int got;
  while ((got = fcd__lines_next(&r->L, NULL, r->errbuf, r->errcap, &r->st)) > 0) {
    const char *s = r->L.line;
    while (*s == ' ' || *s == '\t') s++;
    if (!*s || (s[0] == '*' && s[1] == '*')) continue; /* blank, or an Abaqus comment */
    long long a, b, c = 0, d = 0;
    double v;
    int ok = labelled ? int_field(&s, &a) && int_field(&s, &b) && int_field(&s, &c) &&
                            int_field(&s, &d) && real_field(&s, &v)
                      : int_field(&s, &a) && int_field(&s, &c) && real_field(&s, &v);
    if (!ok)
      return RERR(FCD_E_FORMAT, "%s:%ld: expected '%s', got '%.60s'", r->path, r->L.lineno,
                  labelled ? "node, dof, node, dof, value" : "row, column, value", r->L.line);
    if (labelled && (b < 0 || b > 6 || d < 0 || d > 6))
      return RERR(FCD_E_FORMAT, "%s:%ld: dof %lld outside 0..6", r->path, r->L.lineno,
                  b < 0 || b > 6 ? b : d);
    if (!labelled && (a < 1 || c < 1))
      return RERR(FCD_E_FORMAT, "%s:%ld: equation %lld: equations count from 1", r->path,
                  r->L.lineno, a < 1 ? a : c);
    if (!labelled) {
      maxr = a > maxr ? a : maxr;
      maxc = c > maxc ? c : maxc;
    }
    if (!(labelled ? fcd__mfile_push(m, a, (int)b, c, (int)d, v)
                   : fcd__mfile_push(m, a - 1, 0, c - 1, 0, v)))
      return RERR(FCD_E_NOMEM, "%s:%ld: out of memory", r->path, r->L.lineno);
  }
  if (got < 0) return r->st;
  if (m->n == 0) return RERR(FCD_E_FORMAT, "%s: no entries", r->path);
  int tri = 0;
  FCD_TRY(fcd__mfile_one_triangle(m, &tri, r->path, r->errbuf, r->errcap));
  m->symmetric = tri;
  if (labelled) return fcd__mfile_count_pairs(m, r->errbuf, r->errcap);
  /* no header: the order is the largest equation named (either way for one triangle) */
  long long order = maxr > maxc ? maxr : maxc;
  m->nrows = tri ? order : maxr;
  m->ncols = tri ? order : maxc;
  return FCD_OK;
}
