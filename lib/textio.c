/* Bounded input: every text reader of fcd reads lines through here, so that a file
 * without newlines (/dev/zero, a binary file, a stream that never ends) costs at most
 * FCD__LINE_MAX bytes and an error naming the line, and a directory is an I/O error
 * naming it, not an "empty file". Whole files (the mesh readers) are bounded by their
 * size, a stream by FCD__STREAM_MAX, and stop at a NUL byte unless they are binary. */
#include "core.h"

#include <errno.h>
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
  fcd__free(r->line);
  r->line = NULL;
  r->cap = 0;
}

/* the line reader's failures: the message to errbuf (when given) and the system, the
 * status to *st, -1 returned */
#define LFAIL(code, ...)                                                                 \
  do {                                                                                   \
    *st = fcd__err_to(sys, errbuf, errcap, code, __VA_ARGS__);                           \
    return -1;                                                                           \
  } while (0)

int fcd__lines_next(fcd__lines *r, const fcd_system *sys, char *errbuf, size_t errcap,
                    fcd_status *st) {
  size_t len = 0;
  int ch = EOF;
  *st = FCD_OK;
  for (;;) {
    ch = getc_unlocked(r->fp);
    if (ch == EOF || ch == '\n') break;
    if (ch == 0) LFAIL(FCD_E_FORMAT, "%s:%ld: a NUL byte: not a text file", r->path, r->lineno + 1);
    if (len == FCD__LINE_MAX)
      LFAIL(FCD_E_FORMAT, "%s:%ld: line longer than %d bytes", r->path, r->lineno + 1,
            FCD__LINE_MAX);
    if (len + 1 >= r->cap) {
      size_t ncap = r->cap ? 2 * r->cap : 256;
      if (ncap > (size_t)FCD__LINE_MAX + 1) ncap = (size_t)FCD__LINE_MAX + 1;
      char *t = fcd__grow_array(r->line, len, ncap, 1);
      if (!t) LFAIL(FCD_E_NOMEM, "%s: out of memory", r->path);
      r->line = t;
      r->cap = ncap;
    }
    r->line[len++] = (char)ch;
  }
  if (ferror(r->fp)) {
    int e = errno;
    LFAIL(FCD_E_IO, "%s: read error: %s", r->path, strerror(e));
  }
  if (ch == EOF && len == 0) return 0;
  if (!r->line) { /* an empty last line: nothing was stored yet */
    r->line = fcd__malloc(1);
    if (!r->line) LFAIL(FCD_E_NOMEM, "%s: out of memory", r->path);
    r->cap = 1;
  }
  while (len > 0 && r->line[len - 1] == '\r') len--;
  r->line[len] = 0;
  r->lineno++;
  return 1;
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
