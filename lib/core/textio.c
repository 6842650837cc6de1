/* Bounded input: every text reader of fcd reads lines through here, so that a file
 * without newlines (/dev/zero, a binary file, a stream that never ends) costs at most
 * FCD__LINE_MAX bytes and an error naming the line, and a directory is an I/O error
 * naming it, not an "empty file". Whole files (the mesh readers) are bounded by their
 * size, a stream by FCD__STREAM_MAX, and stop at a NUL byte unless they are binary. */
#include "core.h"

#include <errno.h>
#include <float.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define TERR(code, ...)                                                                  \
  do {                                                                                   \
    return fcd__err_to(sys, errbuf, errcap, code, __VA_ARGS__);                          \
  } while (0)

fcd_status fcd__open_input(const fcd_system *sys, const char *path, FILE **out, char *errbuf,
                           size_t errcap) {
  *out = NULL;
  FILE *fp = fopen(path, "rb");
  if (!fp) TERR(FCD_E_IO, "cannot open '%s': %s", path, strerror(errno));
  struct stat sb;
  if (fstat(fileno(fp), &sb) == 0 && S_ISDIR(sb.st_mode)) {
    fclose(fp);
    TERR(FCD_E_IO, "cannot read '%s': it is a directory", path);
  }
  *out = fp;
  return FCD_OK;
}

void fcd__lines_init(fcd__lines *r, FILE *fp, const char *path) {
  memset(r, 0, sizeof *r);
  r->fp = fp;
  r->path = path;
}

void fcd__lines_free(fcd__lines *r) {
  fcd__free(r->buf);
  r->buf = r->line = NULL;
  r->cap = r->pos = r->end = 0;
}

/* the line reader's failures: the message to errbuf (when given) and the system, the
 * status to *st, -1 returned */
#define LFAIL(code, ...)                                                                 \
  do {                                                                                   \
    *st = fcd__err_to(sys, errbuf, errcap, code, __VA_ARGS__);                           \
    return -1;                                                                           \
  } while (0)

/* more bytes after the unread ones, moved to the front; the buffer grows only while a
 * line does not fit (at most FCD__LINE_MAX and its newline) */
static int fill(fcd__lines *r, const fcd_system *sys, char *errbuf, size_t errcap,
                fcd_status *st) {
  size_t avail = r->end - r->pos;
  if (r->pos) {
    memmove(r->buf, r->buf + r->pos, avail);
    r->pos = 0;
    r->end = avail;
  }
  if (r->end + 1 >= r->cap) {
    size_t ncap = r->cap ? 2 * r->cap : 65536;
    if (ncap > (size_t)FCD__LINE_MAX + 2) ncap = (size_t)FCD__LINE_MAX + 2;
    char *t = fcd__grow_array(r->buf, r->end, ncap, 1);
    if (!t) LFAIL(FCD_E_NOMEM, "%s: out of memory", r->path);
    r->buf = t;
    r->cap = ncap;
  }
  size_t got = fread(r->buf + r->end, 1, r->cap - 1 - r->end, r->fp);
  r->end += got;
  if (got == 0) {
    if (ferror(r->fp)) {
      int e = errno;
      LFAIL(FCD_E_IO, "%s: read error: %s", r->path, strerror(e));
    }
    r->eof = 1;
  }
  return 1;
}

int fcd__lines_next(fcd__lines *r, const fcd_system *sys, char *errbuf, size_t errcap,
                    fcd_status *st) {
  *st = FCD_OK;
  if (!r->buf && fill(r, sys, errbuf, errcap, st) < 0) return -1; /* the first block */
  for (;;) {
    char *s = r->buf + r->pos;
    size_t avail = r->end - r->pos;
    char *nl = avail ? memchr(s, '\n', avail) : NULL;
    size_t len = nl ? (size_t)(nl - s) : avail;
    if (len > (size_t)FCD__LINE_MAX || (!nl && !r->eof && len == (size_t)FCD__LINE_MAX)) {
      if (memchr(s, 0, len))
        LFAIL(FCD_E_FORMAT, "%s:%ld: a NUL byte: not a text file", r->path, r->lineno + 1);
      LFAIL(FCD_E_FORMAT, "%s:%ld: line longer than %d bytes", r->path, r->lineno + 1,
            FCD__LINE_MAX);
    }
    if (nl || (r->eof && avail)) {
      if (memchr(s, 0, len))
        LFAIL(FCD_E_FORMAT, "%s:%ld: a NUL byte: not a text file", r->path, r->lineno + 1);
      r->pos += len + (nl ? 1 : 0);
      while (len > 0 && s[len - 1] == '\r') len--;
      s[len] = 0; /* the newline's place, or the byte kept free after the last one read */
      r->line = s;
      r->len = len;
      r->lineno++;
      return 1;
    }
    if (r->eof) return 0;
    if (fill(r, sys, errbuf, errcap, st) < 0) return -1;
  }
}

/* ---- numbers ---- */

#if defined(__x86_64__) && LDBL_MANT_DIG == 64
#include <stdatomic.h>
/* 1 when long double computes with its 64 bits here (0 under an emulator that computes it
 * as a double, as valgrind does) */
static int x87_works(void) {
  static atomic_int known; /* 0: not yet, 1: yes, 2: no */
  int k = atomic_load_explicit(&known, memory_order_relaxed);
  if (!k) {
    volatile long double one = 1.0L, tiny = LDBL_EPSILON;
    k = one + tiny != one ? 1 : 2;
    atomic_store_explicit(&known, k, memory_order_relaxed);
  }
  return k == 1;
}
#endif

/* m * 10^e, m < 10^19, |e| <= 27, correctly rounded through x87's 64-bit significand:
 * m and 10^|e| are exact there, their product or quotient x is within half a unit of
 * the 64th bit of the exact value, so when x's 11 bits below a double's 53 are not
 * within one unit of the half (0x400) the exact value rounds to the double x rounds to.
 * The 17 digits that %.17g writes take this path; 0 leaves the rest to strtod. */
static int extended_decimal(uint64_t m, int e, double *out) {
#if defined(__x86_64__) && LDBL_MANT_DIG == 64
  static const long double p10l[] = {
      1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,  1e7L,  1e8L,  1e9L,
      1e10L, 1e11L, 1e12L, 1e13L, 1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L,
      1e20L, 1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L};
  if (e < -27 || e > 27 || !x87_works()) return 0;
  long double x = (long double)m;
  x = e < 0 ? x / p10l[-e] : x * p10l[e];
  uint64_t sig;
  memcpy(&sig, &x, sizeof sig); /* the x87 format: the significand's 64 bits first */
  unsigned low = (unsigned)(sig & 0x7FF);
  if (low >= 0x3FF && low <= 0x401) return 0;
  *out = (double)x;
  return 1;
#else
  (void)m, (void)e, (void)out;
  return 0;
#endif
}

int fcd__fast_decimal(const char *s, size_t len, int fortran, double *out, size_t *used) {
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
  static const double p10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                               1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                               1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  size_t k = 0;
  int neg = 0;
  if (k < len && (s[k] == '+' || s[k] == '-')) neg = s[k++] == '-';
  uint64_t m = 0;
  int nd = 0, any = 0, dexp = 0, point = 0;
  for (; k < len; k++) {
    char c = s[k];
    if (c == '.' && !point) {
      point = 1;
      continue;
    }
    if (c < '0' || c > '9') break;
    any = 1;
    if (m == 0 && c == '0') { /* a leading zero: only its place counts */
      dexp -= point;
      continue;
    }
    if (nd == 19) return 0;
    m = 10 * m + (uint64_t)(c - '0');
    nd++;
    dexp -= point;
  }
  if (!any) return 0;
  if (k < len) { /* an exponent, when digits follow its letter and sign */
    char c = s[k];
    int letter = c == 'e' || c == 'E' ||
                 (fortran && (c == 'd' || c == 'D' || c == 'q' || c == 'Q'));
    int bare = fortran && (c == '+' || c == '-'); /* Fortran's 1.556+2 */
    if (letter || bare) {
      size_t j = k + (letter ? 1 : 0);
      int eneg = 0;
      if (j < len && (s[j] == '+' || s[j] == '-')) eneg = s[j++] == '-';
      if (j < len && s[j] >= '0' && s[j] <= '9') {
        int ex = 0;
        for (; j < len && s[j] >= '0' && s[j] <= '9'; j++)
          if (ex < 100000) ex = 10 * ex + (s[j] - '0');
        dexp += eneg ? -ex : ex;
        k = j;
      } else if (fortran) {
        return 0; /* a letter without digits: the slow path says what it is */
      }
    }
  }
  if (k < len && (s[k] == '.' || (s[k] >= '0' && s[k] <= '9') || s[k] == 'x' || s[k] == 'X'))
    return 0; /* 1.2.3, twenty digits, 0x1p3: strtod says */
  double v;
  if (m == 0) v = 0.0;
  else if (m <= ((uint64_t)1 << 53) && dexp >= -22 && dexp <= 22)
    v = dexp < 0 ? (double)m / p10[-dexp] : (double)m * p10[dexp];
  else if (!extended_decimal(m, dexp, &v)) return 0;
  *out = neg ? -v : v;
  *used = k;
  return 1;
#else
  (void)s, (void)len, (void)fortran, (void)out, (void)used;
  return 0; /* an extended-precision evaluation would round twice */
#endif
}

size_t fcd__scan_real(const char *s, double *out) {
  size_t b = 0;
  while (s[b] == ' ' || s[b] == '\t') b++;
  size_t used = 0;
  if (fcd__fast_decimal(s + b, SIZE_MAX, 0, out, &used)) return b + used; /* stops at the NUL */
  char *end;
  double v = strtod(s, &end);
  if (end == s) return 0;
  *out = v;
  return (size_t)(end - s);
}

size_t fcd__scan_int(const char *s, long long *out) {
  size_t k = 0;
  while (s[k] == ' ' || s[k] == '\t') k++;
  int neg = s[k] == '-';
  if (s[k] == '-' || s[k] == '+') k++;
  size_t d0 = k;
  unsigned long long u = 0;
  while (s[k] >= '0' && s[k] <= '9' && k - d0 < 18) u = 10 * u + (unsigned)(s[k++] - '0');
  if (k == d0 || (s[k] >= '0' && s[k] <= '9')) return 0;
  *out = neg ? -(long long)u : (long long)u;
  return k;
}

fcd_status fcd__read_file(const fcd_system *sys, const char *path, char **out,
                          size_t *outlen, int (*nul_ok)(const char *text, size_t len)) {
  FILE *fp;
  FCD_TRY(fcd__open_input(sys, path, &fp, NULL, 0));
  struct stat sb;
  memset(&sb, 0, sizeof sb);
  size_t limit = FCD__STREAM_MAX;
  if (fstat(fileno(fp), &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size >= 0 &&
      (uint64_t)sb.st_size < (uint64_t)SIZE_MAX / 2)
    limit = (size_t)sb.st_size + 1;
  char *text = NULL;
  size_t len = 0, cap = 0;
  int binary = 0; /* nul_ok said yes: NUL bytes are data */
  fcd_status st = FCD_OK;
  for (;;) {
    if (len > limit) {
      st = fcd__err(sys, FCD_E_FORMAT, "%s: longer than %zu bytes (%s)", path, limit - 1,
                    S_ISREG(sb.st_mode) ? "it grew while read" : "the bound of a stream");
      break;
    }
    if (len + 65536 > cap) {
      size_t nc = cap + 65536 + cap / 2;
      if (S_ISREG(sb.st_mode) && nc > limit + 65536) nc = limit + 65536;
      char *t = fcd__grow_array(text, len, nc + 1, 1);
      if (!t) {
        st = fcd__err(sys, FCD_E_NOMEM, "%s: out of memory", path);
        break;
      }
      text = t;
      cap = nc;
    }
    size_t got = fread(text + len, 1, cap - len, fp);
    const char *nul = got && nul_ok && !binary ? memchr(text + len, 0, got) : NULL;
    if (nul && !(binary = nul_ok(text, len + got))) {
      st = fcd__err(sys, FCD_E_FORMAT, "%s: a NUL byte near offset %zu: not a text file, "
                    "nor a binary one its header announces", path, (size_t)(nul - text));
      break;
    }
    len += got;
    if (got == 0) break;
  }
  int ioerr = ferror(fp);
  fclose(fp);
  if (st == FCD_OK && ioerr) st = fcd__err(sys, FCD_E_IO, "%s: read error", path);
  if (st != FCD_OK) {
    fcd__free(text);
    return st;
  }
  if (!text && !(text = fcd__malloc(1))) return fcd__err(sys, FCD_E_NOMEM, "out of memory");
  text[len] = 0;
  *out = text;
  *outlen = len;
  return FCD_OK;
}
