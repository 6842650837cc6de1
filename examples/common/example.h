/* What every example shares, kept out of the library: the command line (--out DIR,
 * --quick), named checks against the papers' numbers and closed forms (the exit status
 * says whether any failed, so each example doubles as a test), CSV files, and plots
 * through gnuplot. Header-only so that each example stays one small program. */
#ifndef FCD_EXAMPLE_H
#define FCD_EXAMPLE_H

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

typedef struct {
  const char *name; /* the example's name, for messages */
  const char *out;  /* output directory */
  int quick;        /* reduced size: the test suite's run */
  int checks, failed;
  FILE *tab; /* checks.md: every ex_close as a table row, for the page */
} ex_run;

/* wall-clock seconds (the examples that report their own times) */
static inline double ex_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static inline int ex_init(ex_run *ex, const char *name, int argc, char **argv) {
  ex->name = name;
  ex->out = name;
  ex->quick = 0;
  ex->checks = ex->failed = 0;
  ex->tab = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--quick")) ex->quick = 1;
    else if (!strcmp(argv[i], "--out") && i + 1 < argc) ex->out = argv[++i];
    else {
      fprintf(stderr, "usage: %s [--out DIR] [--quick]\n", argv[0]);
      return 2;
    }
  }
  if (mkdir(ex->out, 0777) != 0 && errno != EEXIST) {
    fprintf(stderr, "%s: cannot create '%s': %s\n", name, ex->out, strerror(errno));
    return 1;
  }
  printf("%s: writing to %s/%s\n", name, ex->out, ex->quick ? " (quick run)" : "");
  return 0;
}

/* A named check: prints the two numbers side by side and counts a failure. */
static inline int ex_check(ex_run *ex, int ok, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static inline int ex_check(ex_run *ex, int ok, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  ex->checks++;
  printf("  [%s] ", ok ? " ok " : "FAIL");
  vprintf(fmt, ap);
  printf("\n");
  va_end(ap);
  if (!ok) ex->failed++;
  return ok;
}

/* |got - want| <= rtol |want| (or atol when want is 0). Each comparison is also a row
 * of OUT/checks.md (what, fcd, reference, tolerance), the table an example's page
 * carries and examples/check_page.py compares with the quick run. */
static inline int ex_close(ex_run *ex, const char *what, double got, double want, double rtol) {
  double err = fabs(got - want), scale = fabs(want) > 0 ? fabs(want) : 1.0;
  if (!ex->tab) {
    char path[4096];
    snprintf(path, sizeof path, "%s/checks.md", ex->out);
    ex->tab = fopen(path, "w");
    if (ex->tab) fprintf(ex->tab, "| check | fcd | reference | tolerance |\n|---|---|---|---|\n");
  }
  if (ex->tab) {
    fputs("| ", ex->tab);
    for (const char *c = what; *c; c++) {
      if (*c == '|') fputc('\\', ex->tab); /* a table cell: escape the pipe */
      fputc(*c, ex->tab);
    }
    fprintf(ex->tab, " | %.6g | %.6g | %.2g |\n", got, want, rtol);
  }
  return ex_check(ex, err <= rtol * scale, "%s: %.6g against %.6g (relative difference %.1e, "
                  "tolerance %.2g)", what, got, want, err / scale, rtol);
}

static inline FILE *ex_open(const ex_run *ex, const char *file) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", ex->out, file);
  FILE *f = fopen(path, "w");
  if (!f) fprintf(stderr, "%s: cannot write '%s': %s\n", ex->name, path, strerror(errno));
  return f;
}

/* Runs a gnuplot script (printf-style) after setting a PNG terminal with output
 * DIR/png, and checks that the picture was written: a missing gnuplot is a failed
 * check, since the pictures are part of what the examples deliver. Data files in the
 * script must be named with their directory (ex->out). */
static inline int ex_plot(ex_run *ex, const char *png, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static inline int ex_plot(ex_run *ex, const char *png, const char *fmt, ...) {
  char cmd[64];
  snprintf(cmd, sizeof cmd, "gnuplot 2>&1");
  FILE *gp = popen(cmd, "w");
  if (!gp) return ex_check(ex, 0, "gnuplot could not be started for %s", png);
  fprintf(gp, "set terminal pngcairo size 900,650 font ',11'\nset output '%s/%s'\n", ex->out, png);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(gp, fmt, ap);
  va_end(ap);
  int rc = pclose(gp);
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", ex->out, png);
  struct stat sb;
  int ok = rc == 0 && stat(path, &sb) == 0 && sb.st_size > 1000;
  return ex_check(ex, ok, "plot %s written", path);
}

/* Pictures rendered headlessly by VTK: the Python program SCRIPT of the example's source
 * directory (EX_SOURCE_DIR, set by examples/meson.build) run by Debian's python3 with
 * python3-vtk9 under xvfb-run (an X server in memory: Debian's VTK renders through X),
 * with the output directory as its argument; each of the nimg files it must write is
 * checked. */
#ifdef EX_SOURCE_DIR
static inline int ex_render(ex_run *ex, const char *script, int nimg, const char *const *img) {
  char cmd[8400];
  snprintf(cmd, sizeof cmd, "xvfb-run -a /usr/bin/python3 '%s/%s' '%s' 2>&1", EX_SOURCE_DIR,
           script, ex->out);
  int rc = system(cmd);
  int ok = rc == 0;
  for (int k = 0; k < nimg; k++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", ex->out, img[k]);
    struct stat sb;
    ok &= ex_check(ex, rc == 0 && stat(path, &sb) == 0 && sb.st_size > 10000,
                   "picture %s rendered by VTK (%s)", path, script);
  }
  return ok;
}
#endif

static inline int ex_finish(ex_run *ex) {
  if (ex->tab) fclose(ex->tab);
  ex->tab = NULL;
  printf("%s: %d checks, %d failed\n", ex->name, ex->checks, ex->failed);
  return ex->failed ? 1 : 0;
}

#endif
