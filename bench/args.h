/* The benchmarks' command-line numbers, checked: atoi and atof took "52,52,35" for 52
 * and a following "--steps" for 0, and a benchmark then timed a model nobody asked for.
 * A number that is not wholly a number, or lies outside its range, stops the program
 * with a message naming the option (exit status 2, as a usage error). */
#ifndef FCD_BENCH_ARGS_H
#define FCD_BENCH_ARGS_H

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static inline int bench_int(const char *prog, const char *opt, const char *s, long lo,
                            long hi) {
  char *end = NULL;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || end == s || *end || v < lo || v > hi) {
    fprintf(stderr, "%s: %s wants an integer in [%ld, %ld], not '%s'\n", prog, opt, lo, hi, s);
    exit(2);
  }
  return (int)v;
}

static inline double bench_real(const char *prog, const char *opt, const char *s, double lo,
                                double hi) {
  char *end = NULL;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || end == s || *end || !isfinite(v) || v < lo || v > hi) {
    fprintf(stderr, "%s: %s wants a number in [%g, %g], not '%s'\n", prog, opt, lo, hi, s);
    exit(2);
  }
  return v;
}

#endif
