/* The text readers' shared input (lib/core/textio.c): numbers read in place must equal glibc's
 * strtod bit for bit (strtod rounds correctly: it is the reference, an independent
 * implementation), and lines read by blocks must be the file's lines, wherever a block
 * ends. */
#include "core.h"
#include "import_private.h"

#include "../fcdtest.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 88172645463325252ull;
static uint64_t next_u64(void) { /* xorshift64 */
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

static long mismatches;

/* s read by fcd__scan_real against strtod: the same value bit for bit, the same length */
static void same_as_strtod(const char *s) {
  double a = 0, b;
  char *end;
  size_t n = fcd__scan_real(s, &a);
  b = strtod(s, &end);
  size_t m = (size_t)(end - s);
  int same = n == m && (m == 0 || (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0);
  if (!same && mismatches++ < 10)
    fprintf(stderr, "  '%s': fcd %.17g (%zu chars), strtod %.17g (%zu chars)\n", s, a, n, b,
            m);
}

/* a Fortran number (D or no exponent letter) against strtod of its C spelling */
static void fortran_same(const char *f, const char *c) {
  double a = 0, b = strtod(c, NULL);
  int ok = fcd__fortran_real(f, strlen(f), &a);
  if ((!ok || memcmp(&a, &b, sizeof a) != 0) && mismatches++ < 10)
    fprintf(stderr, "  Fortran '%s': fcd %.17g (ok %d), strtod('%s') %.17g\n", f, a, ok, c, b);
}

static double random_double(void) {
  /* a mantissa in [1, 10) and a decade in [-30, 30]: the values stiffness and mass files
   * hold, and beyond the fast path's 10^27 on both sides */
  double mant = 1.0 + 9.0 * (double)(next_u64() >> 11) / 9007199254740992.0;
  int e = (int)(next_u64() % 61) - 30;
  double v = mant * pow(10.0, e);
  return next_u64() & 1 ? -v : v;
}

static void test_random_formats(void) {
  char b[128];
  mismatches = 0;
  for (int k = 0; k < 400000; k++) {
    double v = random_double();
    switch (k % 11) {
    case 0: snprintf(b, sizeof b, "%.17g", v); break;
    case 1: snprintf(b, sizeof b, "%.17e", v); break;
    case 2: snprintf(b, sizeof b, "%.16e", v); break;
    case 3: snprintf(b, sizeof b, "%.15g", v); break;
    case 4: snprintf(b, sizeof b, "%.9E", v); break;
    case 5: snprintf(b, sizeof b, "%16.9E", v); break;
    case 6: snprintf(b, sizeof b, "%.6g", v); break;
    case 7: snprintf(b, sizeof b, "%.3f", v); break;
    case 8: snprintf(b, sizeof b, "%.20e", v); break;
    case 9: snprintf(b, sizeof b, "%.12f", v); break;
    default: snprintf(b, sizeof b, "%a", v); break;
    }
    same_as_strtod(b);
  }
  CHECK(mismatches == 0);
}

/* integers m of up to 19 digits times 10^e, |e| <= 30, spelt as m e and with a point:
 * the extended path's whole range and past it */
static void test_long_mantissas(void) {
  char b[128];
  mismatches = 0;
  for (int k = 0; k < 400000; k++) {
    uint64_t m = next_u64() % 10000000000000000000ull;
    if (k % 3 == 0) m >>= next_u64() % 60; /* shorter ones too */
    int e = (int)(next_u64() % 61) - 30;
    snprintf(b, sizeof b, "%llue%d", (unsigned long long)m, e);
    same_as_strtod(b);
    /* the same digits with a point somewhere, and leading zeros */
    char d[40];
    snprintf(d, sizeof d, "%llu", (unsigned long long)m);
    size_t len = strlen(d), at = (size_t)(next_u64() % (len + 1));
    snprintf(b, sizeof b, "-000%.*s.%se%+d", (int)at, d, d + at, e);
    same_as_strtod(b);
  }
  CHECK(mismatches == 0);
}

/* decimal integers that are exactly halfway between two doubles (ties to even), and their
 * neighbours one unit away: where a second rounding would go wrong */
static void test_halfway(void) {
  char b[64];
  mismatches = 0;
  for (int k = 0; k < 200000; k++) {
    int bits = 54 + (int)(next_u64() % 10); /* values of 54..63 bits: above 2^53 */
    uint64_t top = ((uint64_t)1 << (bits - 1)) | (next_u64() >> (65 - bits));
    int drop = bits - 53; /* the bits below a double's last */
    uint64_t m = (top >> drop << drop) | ((uint64_t)1 << (drop - 1)); /* exactly halfway */
    for (int d = -1; d <= 1; d++) {
      snprintf(b, sizeof b, "%llu", (unsigned long long)(m + (uint64_t)(int64_t)d));
      same_as_strtod(b);
      /* the same halfway value over a power of ten: m / 10^e written with e digits */
      snprintf(b, sizeof b, "%llue-%d", (unsigned long long)(m + (uint64_t)(int64_t)d),
               (int)(next_u64() % 28));
      same_as_strtod(b);
    }
  }
  CHECK(mismatches == 0);
}

static void test_edges(void) {
  static const char *s[] = {
      "0",        "-0",       "+0.0",      "0e0",        ".5",         "5.",
      "+.5e-3",   "-5.E+3",   "1.5e",      "1.5e+",      "1.5e-x",     "1e308",
      "1e309",    "1e-320",   "4.9e-324",  "2.2250738585072014e-308",   "0x1p3",
      "0X10",     "inf",      "-Infinity", "nan",        "1.2.3",      "12345678901234567890",
      "9007199254740993",     "9007199254740992.5",      "00000000000000000000000001",
      "0.000000000000000000000000000001234", "123456789012345678e-27", "1e22", "1e23",
      "   42",    "\t-7.25",  "1,5",       "3 4",        "",           "-",
      "+",        ".",        "e5",        "1e5x",       "18446744073709551615",
      "18446744073709551616", "99999999999999999999e-5"};
  mismatches = 0;
  for (size_t k = 0; k < sizeof s / sizeof *s; k++) same_as_strtod(s[k]);
  CHECK(mismatches == 0);
}

static void test_fortran(void) {
  char f[64], c[64];
  mismatches = 0;
  for (int k = 0; k < 200000; k++) {
    double v = random_double();
    if (k % 2) snprintf(c, sizeof c, "%.16E", v);
    else snprintf(c, sizeof c, "%.9E", v);
    strcpy(f, c);
    char *e = strchr(f, 'E');
    if (k % 3 == 0) *e = 'D';
    else if (k % 3 == 1) memmove(e, e + 1, strlen(e)); /* 1.556+2: no letter */
    fortran_same(f, c);
  }
  fortran_same("  -1.556+2  ", "-155.6");
  fortran_same("1.0D0", "1.0");
  fortran_same("-.5d-3", "-.5e-3");
  CHECK(mismatches == 0);
  double x;
  CHECK(!fcd__fortran_real("1.0D", 4, &x));
  CHECK(!fcd__fortran_real("1.0E+0X", 7, &x));
  CHECK(!fcd__fortran_real("", 0, &x));
  /* a field ends where its width does, even when the next one touches it */
  CHECK(fcd__fortran_real("1.0E+001.0E+00", 7, &x) && x == 1.0);
}

static void test_ints(void) {
  static const struct {
    const char *s;
    size_t n;
    long long v;
  } c[] = {{"0", 1, 0},           {"  -12 ", 5, -12},     {"+7x", 2, 7},
           {"123456789012345678", 18, 123456789012345678LL},
           {"1234567890123456789", 0, 0},  {"", 0, 0},  {"-", 0, 0},  {"x1", 0, 0}};
  for (size_t k = 0; k < sizeof c / sizeof *c; k++) {
    long long v = -1;
    size_t n = fcd__scan_int(c[k].s, &v);
    CHECK(n == c[k].n);
    if (n) CHECK(v == c[k].v);
  }
}

/* lines of every length around the block size (64 KiB), CRLF and LF, empty lines, no
 * newline at the end: read back as written */
static void test_lines(const char *dir) {
  char path[512];
  snprintf(path, sizeof path, "%s/lines.txt", dir);
  FILE *fp = fopen(path, "wb");
  CHECK(fp != NULL);
  if (!fp) return;
  size_t lens[64];
  int nl = 0;
  size_t total = 0;
  while (nl < 60) {
    size_t len = nl % 7 == 0 ? 65536 - total % 65536 + (size_t)(nl % 3) - 1
                             : (size_t)(next_u64() % 40000);
    if (nl == 30) len = 300000; /* longer than a block */
    if (nl == 31) len = 0;
    lens[nl] = len;
    for (size_t k = 0; k < len; k++) fputc('a' + (int)((k + (size_t)nl) % 26), fp);
    int crlf = nl % 2;
    if (nl < 59) fputs(crlf ? "\r\n" : "\n", fp);
    total += len + (nl < 59 ? 1 + (size_t)crlf : 0);
    nl++;
  }
  fclose(fp);
  fp = fopen(path, "rb");
  fcd__lines L;
  fcd__lines_init(&L, fp, path);
  fcd_status st;
  int got, k = 0, bad = 0;
  while ((got = fcd__lines_next(&L, NULL, NULL, 0, &st)) > 0) {
    if (k >= nl || L.len != lens[k] || strlen(L.line) != lens[k]) bad++;
    else
      for (size_t q = 0; q < L.len; q++)
        if (L.line[q] != 'a' + (int)((q + (size_t)k) % 26)) {
          bad++;
          break;
        }
    k++;
  }
  CHECK(got == 0);
  CHECK(k == nl);
  CHECK(bad == 0);
  fcd__lines_free(&L);
  fclose(fp);
  /* a NUL byte in a line and a line past the bound are refused with the line's number */
  fp = fopen(path, "wb");
  fputs("one\n", fp);
  fwrite("two\0three\n", 1, 10, fp);
  fclose(fp);
  fp = fopen(path, "rb");
  fcd__lines_init(&L, fp, path);
  char err[256] = "";
  got = fcd__lines_next(&L, NULL, err, sizeof err, &st);
  CHECK(got == 1 && !strcmp(L.line, "one"));
  got = fcd__lines_next(&L, NULL, err, sizeof err, &st);
  CHECK(got == -1 && st == FCD_E_FORMAT && strstr(err, ":2: a NUL byte"));
  fcd__lines_free(&L);
  fclose(fp);
}

int main(void) {
  test_random_formats();
  test_long_mantissas();
  test_halfway();
  test_edges();
  test_fortran();
  test_ints();
  test_lines(fcdt_tmpdir());
  return fcdt_finish("textio");
}
