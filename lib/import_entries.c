/* The entries of a matrix file as its readers give them (import.c, import_*.c, mmio.c):
 * appended, checked finite, their (label, dof) pairs counted; Fortran's reals. */
#include "import_private.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MERR(code, ...) fcd__err_to(NULL, errbuf, errcap, code, __VA_ARGS__)

int fcd__mfile_push(fcd_matrix_file *m, int64_t r, int rd, int64_t c, int cd, double v) {
  if (m->n == m->cap) {
    size_t oc = (size_t)m->cap, nc = oc ? 2 * oc : 1024;
    int64_t *ri = fcd__grow_array(m->ri, oc, nc, sizeof *ri);
    if (!ri) return 0;
    m->ri = ri;
    int64_t *ci = fcd__grow_array(m->ci, oc, nc, sizeof *ci);
    if (!ci) return 0;
    m->ci = ci;
    double *vv = fcd__grow_array(m->v, oc, nc, sizeof *vv);
    if (!vv) return 0;
    m->v = vv;
    if (m->labelled) {
      signed char *a = fcd__grow_array(m->rd, oc, nc, 1);
      if (!a) return 0;
      m->rd = a;
      signed char *b = fcd__grow_array(m->cd, oc, nc, 1);
      if (!b) return 0;
      m->cd = b;
    }
    m->cap = (fcd_index)nc;
  }
  m->ri[m->n] = r;
  m->ci[m->n] = c;
  m->v[m->n] = v;
  if (m->labelled) {
    m->rd[m->n] = (signed char)rd;
    m->cd[m->n] = (signed char)cd;
  }
  m->n++;
  return 1;
}

fcd_status fcd__mfile_finite(const fcd_matrix_file *m, const char *path, char *errbuf,
                             size_t errcap) {
  for (fcd_index k = 0; k < m->n; k++)
    if (!isfinite(m->v[k]))
      return MERR(FCD_E_FORMAT, "%s: entry %lld (row %lld, column %lld) is not finite", path,
                  (long long)k + 1, (long long)m->ri[k], (long long)m->ci[k]);
  return FCD_OK;
}

static int cmp_pair(const void *a, const void *b) {
  const int64_t *x = a, *y = b;
  return x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : (x[1] > y[1]) - (x[1] < y[1]);
}

/* distinct pairs of (keys, dofs) */
static fcd_index distinct(const int64_t *lab, const signed char *dof, fcd_index n, int64_t *w) {
  for (fcd_index k = 0; k < n; k++) {
    w[2 * k] = lab[k];
    w[2 * k + 1] = dof[k];
  }
  qsort(w, (size_t)n, 2 * sizeof *w, cmp_pair);
  fcd_index d = 0;
  for (fcd_index k = 0; k < n; k++)
    if (k == 0 || w[2 * k] != w[2 * k - 2] || w[2 * k + 1] != w[2 * k - 1]) d++;
  return d;
}

fcd_status fcd__mfile_count_pairs(fcd_matrix_file *m, char *errbuf, size_t errcap) {
  int64_t *w = fcd__malloc_array(2 * (size_t)m->n + 1, sizeof *w);
  if (!w) return MERR(FCD_E_NOMEM, "out of memory counting a matrix's dofs");
  m->nrows = distinct(m->ri, m->rd, m->n, w);
  m->ncols = distinct(m->ci, m->cd, m->n, w);
  fcd__free(w);
  return FCD_OK;
}

int fcd__fortran_real(const char *s, size_t len, double *out) {
  char b[80];
  size_t n = 0;
  size_t i = 0;
  while (i < len && s[i] == ' ') i++;
  while (len > i && s[len - 1] == ' ') len--;
  if (i == len || len - i >= sizeof b - 2) return 0;
  int mant_digit = 0, exp_seen = 0;
  for (; i < len; i++) {
    char c = s[i];
    if (c == 'D' || c == 'd' || c == 'E' || c == 'e' || c == 'Q' || c == 'q') {
      if (exp_seen || !mant_digit) return 0;
      b[n++] = 'e';
      exp_seen = 1;
    } else if ((c == '+' || c == '-') && n > 0 && !exp_seen && b[n - 1] != 'e') {
      /* Fortran's exponent without its letter: 1.556+2 */
      b[n++] = 'e';
      b[n++] = c;
      exp_seen = 1;
    } else if (isdigit((unsigned char)c) || c == '.' || c == '+' || c == '-') {
      if (isdigit((unsigned char)c) && !exp_seen) mant_digit = 1;
      b[n++] = c;
    } else {
      return 0;
    }
  }
  b[n] = 0;
  char *end;
  errno = 0;
  double v = strtod(b, &end);
  if (end == b || *end) return 0;
  *out = v;
  return 1;
}

/* A Fortran edit descriptor list such as (16I5), (4E20.12), (1P,4E20.12), (1P4D25.16),
 * (10I8): fields per card and their width */
int fcd__parse_ffmt(const char *s, fcd__ffmt *f) {
  char b[64];
  size_t n = 0;
  for (; *s && n + 1 < sizeof b; s++)
    if (!isspace((unsigned char)*s)) b[n++] = (char)toupper((unsigned char)*s);
  b[n] = 0;
  const char *p = b;
  int paren = *p == '('; /* OP4 writes its format without the parentheses */
  if (paren) p++;
  /* a scale factor kP, with or without a comma after it */
  const char *q = p;
  while (isdigit((unsigned char)*q)) q++;
  if (*q == 'P' && q > p) {
    p = q + 1;
    if (*p == ',') p++;
  }
  int rep = 0;
  while (isdigit((unsigned char)*p))
    if ((rep = 10 * rep + (*p++ - '0')) > 100000) return 0;
  if (rep == 0) rep = 1;
  char k = *p++;
  if (k == 'I') f->kind = 'I';
  else if (k == 'E' || k == 'D' || k == 'F' || k == 'G') f->kind = 'E';
  else return 0;
  int w = 0;
  while (isdigit((unsigned char)*p))
    if ((w = 10 * w + (*p++ - '0')) > 64) return 0;
  if (w <= 0) return 0;
  if (*p == '.') {
    p++;
    while (isdigit((unsigned char)*p)) p++;
  }
  if (*p == 'E') { /* an exponent width, Ew.dEe */
    p++;
    while (isdigit((unsigned char)*p)) p++;
  }
  if (paren ? *p != ')' : *p != 0) return 0;
  f->per = rep;
  f->width = w;
  return 1;
}

typedef struct {
  int64_t a, b; /* the pair's smaller and larger key (label * 8 + dof, or the index; labels
                 * of FE codes stay far below 2^59) */
  int dir;      /* 1: stored as (a, b); -1: as (b, a) */
} tri_key;

static int cmp_tri(const void *x, const void *y) {
  const tri_key *p = x, *q = y;
  if (p->a != q->a) return p->a < q->a ? -1 : 1;
  if (p->b != q->b) return p->b < q->b ? -1 : 1;
  return (p->dir > q->dir) - (p->dir < q->dir);
}

fcd_status fcd__mfile_one_triangle(const fcd_matrix_file *m, int *tri, const char *path,
                                   char *errbuf, size_t errcap) {
  tri_key *k = fcd__malloc_array((size_t)m->n + 1, sizeof *k);
  if (!k) return MERR(FCD_E_NOMEM, "%s: out of memory", path);
  fcd_index n = 0;
  for (fcd_index e = 0; e < m->n; e++) {
    int64_t i = m->labelled ? m->ri[e] * 8 + m->rd[e] : m->ri[e];
    int64_t j = m->labelled ? m->ci[e] * 8 + m->cd[e] : m->ci[e];
    if (i == j) continue;
    k[n].a = i < j ? i : j;
    k[n].b = i < j ? j : i;
    k[n].dir = i < j ? 1 : -1;
    n++;
  }
  qsort(k, (size_t)n, sizeof *k, cmp_tri);
  *tri = 1;
  for (fcd_index e = 1; e < n && *tri; e++)
    if (k[e].a == k[e - 1].a && k[e].b == k[e - 1].b && k[e].dir != k[e - 1].dir) *tri = 0;
  fcd__free(k);
  return FCD_OK;
}

