/* The entries of a matrix file as its readers give them (import.c, import_*.c, mmio.c):
 * appended, checked finite, their (label, dof) pairs counted; Fortran's reals. */
#include "import_private.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MERR(code, ...) fcd__err_to(NULL, errbuf, errcap, code, __VA_ARGS__)

int fcd__mfile_room(fcd_matrix_file *m, fcd_index more) {
  if (m->n + more > m->cap) {
    size_t oc = (size_t)m->cap, nc = oc ? 2 * oc : 1024;
    if (!oc && m->reserve > (fcd_index)nc) nc = (size_t)m->reserve;
    if (nc < (size_t)(m->n + more)) nc = (size_t)(m->n + more);
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
  return 1;
}

int fcd__mfile_push(fcd_matrix_file *m, int64_t r, int rd, int64_t c, int cd, double v) {
  if (m->n == m->cap && !fcd__mfile_room(m, 1)) return 0;
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
  for (fcd_index k = m->finite_upto; k < m->n; k++)
    if (!isfinite(m->v[k]))
      return MERR(FCD_E_FORMAT, "%s: entry %lld (row %lld, column %lld) is not finite", path,
                  (long long)k + 1, (long long)m->ri[k], (long long)m->ci[k]);
  return FCD_OK;
}

static int cmp_u64(const void *x, const void *y) {
  uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
  return (a > b) - (a < b);
}

/* LSD radix sort of n 64-bit keys, 16 bits a pass, passes whose digit is the same in
 * every key skipped; tmp holds n keys. Counting a matrix's dofs and finding its mirrored
 * entries sort millions of keys: qsort with a comparator took half of the read. */
static void radix_sort(uint64_t *a, size_t n, uint64_t *tmp) {
  static const int bits = 16;
  size_t *count = fcd__calloc((size_t)1 << bits, sizeof *count);
  uint64_t *src = a, *dst = tmp;
  for (int shift = 0; shift < 64; shift += bits) {
    if (!count) break; /* out of memory: the caller sorts otherwise */
    memset(count, 0, ((size_t)1 << bits) * sizeof *count);
    for (size_t k = 0; k < n; k++) count[(src[k] >> shift) & 0xffff]++;
    if (n && count[(src[0] >> shift) & 0xffff] == n) continue;
    size_t sum = 0;
    for (size_t d = 0; d < ((size_t)1 << bits); d++) {
      size_t c = count[d];
      count[d] = sum;
      sum += c;
    }
    for (size_t k = 0; k < n; k++) dst[count[(src[k] >> shift) & 0xffff]++] = src[k];
    uint64_t *t = src;
    src = dst;
    dst = t;
  }
  if (src != a) memcpy(a, src, n * sizeof *a);
  if (!count) qsort(a, n, sizeof *a, cmp_u64); /* the counts' 512 KiB were not there */
  fcd__free(count);
}

/* a (label, dof) pair as one sortable key: labels of FE codes stay far below 2^59 */
static uint64_t pair_key(int64_t lab, int dof) {
  return ((uint64_t)(lab + ((int64_t)1 << 59)) << 3) | (uint64_t)(dof & 7);
}

/* the distinct pairs of (labels, dofs) by an open-addressing set of their keys: its
 * memory follows the dofs, not the entries (a stiffness has tens of entries a dof);
 * -1 when out of memory */
static fcd_index distinct_hashed(const int64_t *lab, const signed char *dof, fcd_index n) {
  size_t cap = 1024, used = 0;
  uint64_t *t = fcd__calloc(cap, sizeof *t); /* 0 is free: keys are never 0 */
  if (!t) return -1;
  uint64_t last = 0; /* entries come by column: a column's pair repeats line after line */
  for (fcd_index k = 0; k < n; k++) {
    uint64_t key = pair_key(lab[k], dof ? dof[k] : 0) | ((uint64_t)1 << 63);
    if (key == last) continue;
    last = key;
    size_t h = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & (cap - 1);
    while (t[h] && t[h] != key) h = (h + 1) & (cap - 1);
    if (t[h]) continue;
    t[h] = key;
    if (++used * 2 > cap) { /* rehash into twice the room */
      uint64_t *u = fcd__calloc(2 * cap, sizeof *u);
      if (!u) {
        fcd__free(t);
        return -1;
      }
      for (size_t q = 0; q < cap; q++)
        if (t[q]) {
          size_t g = (size_t)((t[q] * 0x9E3779B97F4A7C15ull) >> 20) & (2 * cap - 1);
          while (u[g]) g = (g + 1) & (2 * cap - 1);
          u[g] = t[q];
        }
      fcd__free(t);
      t = u;
      cap *= 2;
    }
  }
  fcd__free(t);
  return (fcd_index)used;
}

/* the same count by a bitmap of (label - least, dof) when the labels are dense enough that
 * it holds no more bits than 16 an entry (FE codes number their nodes nearly densely):
 * its 8 bits a label stay in cache where the set's random probes would not */
static fcd_index distinct(const int64_t *lab, const signed char *dof, fcd_index n) {
  if (n == 0) return 0;
  int64_t lo = lab[0], hi = lab[0];
  for (fcd_index k = 1; k < n; k++) {
    lo = lab[k] < lo ? lab[k] : lo;
    hi = lab[k] > hi ? lab[k] : hi;
  }
  uint64_t span = (uint64_t)hi - (uint64_t)lo; /* labels stay far below 2^59 */
  if (span >= (uint64_t)1 << 40 || (span + 1) * 8 > 16 * (uint64_t)n + ((uint64_t)1 << 20))
    return distinct_hashed(lab, dof, n);
  uint64_t *bits = fcd__calloc((size_t)((span + 1) * 8 / 64 + 1), sizeof *bits);
  if (!bits) return distinct_hashed(lab, dof, n);
  fcd_index used = 0;
  for (fcd_index k = 0; k < n; k++) {
    uint64_t b = ((uint64_t)(lab[k] - lo) << 3) | (uint64_t)(dof ? dof[k] & 7 : 0);
    uint64_t w = (uint64_t)1 << (b & 63);
    if (!(bits[b >> 6] & w)) {
      bits[b >> 6] |= w;
      used++;
    }
  }
  fcd__free(bits);
  return used;
}

fcd_status fcd__mfile_count_pairs(fcd_matrix_file *m, char *errbuf, size_t errcap) {
  m->nrows = distinct(m->ri, m->rd, m->n);
  m->ncols = distinct(m->ci, m->cd, m->n);
  if (m->nrows < 0 || m->ncols < 0) return MERR(FCD_E_NOMEM, "out of memory counting a matrix's dofs");
  return FCD_OK;
}

/* 1 when s[0..len) is a number C's strtod reads as Fortran would (digits, a point, signs,
 * E exponents: no D, no exponent without its letter) and the character after it cannot
 * continue it, so that strtod may read it in place */
static int plain_real(const char *s, size_t len) {
  int digit = 0;
  for (size_t k = 0; k < len; k++) {
    char c = s[k];
    if (c >= '0' && c <= '9') digit = 1;
    else if (c == '+' || c == '-') {
      if (k > 0 && s[k - 1] != 'e' && s[k - 1] != 'E') return 0;
    } else if (c != '.' && c != 'e' && c != 'E')
      return 0;
  }
  char after = s[len];
  return digit && !((after >= '0' && after <= '9') || after == '.' || after == 'e' ||
                    after == 'E' || after == 'd' || after == 'D' || after == '+' ||
                    after == '-' || after == 'x' || after == 'X');
}

int fcd__fortran_real(const char *s, size_t len, double *out) {
  char b[80];
  size_t n = 0;
  size_t i = 0;
  while (i < len && s[i] == ' ') i++;
  while (len > i && s[len - 1] == ' ') len--;
  if (i == len || len - i >= sizeof b - 2) return 0;
  size_t used = 0;
  if (fcd__fast_decimal(s + i, len - i, 1, out, &used) && used == len - i) return 1;
  if (plain_real(s + i, len - i)) { /* strtod in place, without a copy */
    char *end;
    double v = strtod(s + i, &end);
    if (end == s + len) {
      *out = v;
      return 1;
    }
  }
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

/* the keys of the entries stored as (a, b) with a < b (up) or a > b (down), each as
 * min << 32 | max; 0 when some key does not fit in 32 bits */
static int split_keys(const fcd_matrix_file *m, uint64_t *up, size_t *nu, uint64_t *down,
                      size_t *nd) {
  *nu = *nd = 0;
  for (fcd_index e = 0; e < m->n; e++) {
    int64_t i = m->labelled ? (int64_t)(pair_key(m->ri[e], m->rd[e]) - ((uint64_t)1 << 62))
                            : m->ri[e];
    int64_t j = m->labelled ? (int64_t)(pair_key(m->ci[e], m->cd[e]) - ((uint64_t)1 << 62))
                            : m->ci[e];
    if (i == j) continue;
    int64_t a = i < j ? i : j, b = i < j ? j : i;
    if (a < 0 || b >= ((int64_t)1 << 32)) return 0;
    uint64_t key = ((uint64_t)a << 32) | (uint64_t)b;
    if (i < j) up[(*nu)++] = key;
    else down[(*nd)++] = key;
  }
  return 1;
}

fcd_status fcd__mfile_one_triangle(const fcd_matrix_file *m, int *tri, const char *path,
                                   char *errbuf, size_t errcap) {
  /* entries on one side of the diagonal only: no mirror, nothing to sort (the usual
   * file of a symmetric matrix) */
  fcd_index above = m->above, below = m->below;
  for (fcd_index e = 0; e < m->n && !m->sides_known; e++) {
    int64_t i = m->labelled ? (int64_t)pair_key(m->ri[e], m->rd[e]) : m->ri[e];
    int64_t j = m->labelled ? (int64_t)pair_key(m->ci[e], m->cd[e]) : m->ci[e];
    above += i < j;
    below += i > j;
  }
  if (!above || !below) {
    *tri = 1;
    return FCD_OK;
  }
  /* sorted keys of the entries above and below the diagonal: a key in both is a mirror */
  uint64_t *w = fcd__malloc_array(2 * (size_t)m->n + 1, sizeof *w);
  if (!w) return MERR(FCD_E_NOMEM, "%s: out of memory", path);
  size_t nu, nd;
  if (split_keys(m, w, &nu, w + m->n, &nd)) {
    uint64_t *tmp = fcd__malloc_array((size_t)(nu > nd ? nu : nd) + 1, sizeof *tmp);
    if (tmp) {
      radix_sort(w, nu, tmp);
      radix_sort(w + m->n, nd, tmp);
      fcd__free(tmp);
      *tri = 1;
      for (size_t p = 0, q = 0; p < nu && q < nd && *tri;) {
        uint64_t x = w[p], y = w[m->n + q];
        if (x == y) *tri = 0;
        else if (x < y) p++;
        else q++;
      }
      fcd__free(w);
      return FCD_OK;
    }
  }
  fcd__free(w);
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

