/* Minimal test harness: checks count, failures print where and why, the exit status
 * says whether anything failed. */
#ifndef FCDTEST_H
#define FCDTEST_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int fcdt_checks, fcdt_failures;

#define CHECK(cond)                                                                    \
  do {                                                                                 \
    fcdt_checks++;                                                                     \
    if (!(cond)) {                                                                     \
      fcdt_failures++;                                                                 \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);         \
    }                                                                                  \
  } while (0)

/* expr must return exactly the status expect */
#define CHECK_ST(expr, expect)                                                         \
  do {                                                                                 \
    int st_ = (expr);                                                                  \
    fcdt_checks++;                                                                     \
    if (st_ != (expect)) {                                                             \
      fcdt_failures++;                                                                 \
      fprintf(stderr, "%s:%d: %s returned %d, expected %d (%s)\n", __FILE__, __LINE__, \
              #expr, st_, (int)(expect), #expect);                                     \
    }                                                                                  \
  } while (0)

#define CHECK_CLOSE(a, b, rtol)                                                        \
  do {                                                                                 \
    double a_ = (a), b_ = (b);                                                         \
    fcdt_checks++;                                                                     \
    if (!(fabs(a_ - b_) <= (rtol) * fmax(1.0, fmax(fabs(a_), fabs(b_))))) {           \
      fcdt_failures++;                                                                 \
      fprintf(stderr, "%s:%d: %s = %.17g vs %s = %.17g (tol %g)\n", __FILE__, __LINE__, \
              #a, a_, #b, b_, (double)(rtol));                                         \
    }                                                                                  \
  } while (0)

/* the message recorded on sys contains substr */
#define CHECK_MSG(sys, substr)                                                         \
  do {                                                                                 \
    const char *m_ = fcd_system_last_error(sys);                                       \
    fcdt_checks++;                                                                     \
    if (!m_ || !strstr(m_, (substr))) {                                                \
      fcdt_failures++;                                                                 \
      fprintf(stderr, "%s:%d: message '%s' lacks '%s'\n", __FILE__, __LINE__,          \
              m_ ? m_ : "(null)", (substr));                                           \
    }                                                                                  \
  } while (0)

static inline int fcdt_finish(const char *name) {
  printf("%s: %d checks, %d failed\n", name, fcdt_checks, fcdt_failures);
  return fcdt_failures ? 1 : 0;
}

/* Deterministic generator (xorshift64*), uniform in [0, 1). */
static uint64_t fcdt_state = 88172645463325252ull;
static inline double fcdt_rand(void) {
  fcdt_state ^= fcdt_state >> 12;
  fcdt_state ^= fcdt_state << 25;
  fcdt_state ^= fcdt_state >> 27;
  return (double)((fcdt_state * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
}

/* mkdir -p: each test makes its own scratch directory, parents included, rather than
 * rely on another test having made them (issue 25) */
static inline void fcdt_mkdirs(const char *dir) {
  char buf[4096];
  snprintf(buf, sizeof buf, "%s", dir);
  for (char *p = buf + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    mkdir(buf, 0777); /* EEXIST is fine; a real failure shows when the file is opened */
    *p = '/';
  }
  mkdir(buf, 0777);
}

/* max |a - b| over max |b| (the plain difference when b is zero): how far a computed
 * vector is from its reference, relative to the reference's size */
static inline double fcdt_rel_diff(const double *a, const double *b, long long n) {
  double d = 0, s = 0;
  for (long long i = 0; i < n; i++) {
    d = fmax(d, fabs(a[i] - b[i]));
    s = fmax(s, fabs(b[i]));
  }
  return s > 0 ? d / s : d;
}

/* The scratch directory of this test: FCD_TEST_TMPDIR, which the build gives each test
 * to itself (tests/meson.build), or /tmp when run by hand. Created on first use. */
static inline const char *fcdt_tmpdir(void) {
  const char *dir = getenv("FCD_TEST_TMPDIR");
  if (!dir || !*dir) return "/tmp";
  fcdt_mkdirs(dir);
  return dir;
}

static inline void fcdt_tmpfile(char *buf, size_t cap, const char *name) {
  snprintf(buf, cap, "%s/%s", fcdt_tmpdir(), name);
}

#endif
