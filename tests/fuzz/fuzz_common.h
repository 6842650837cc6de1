/* Shared by the fuzz harnesses: fcd's readers take paths, so each input is written to a
 * file of this process first. A harness that finds a property violated calls
 * fz_fail(), which aborts: libFuzzer (or the replay driver) reports the input. */
#ifndef FCD_FUZZ_COMMON_H
#define FCD_FUZZ_COMMON_H

#include <fcd/fcd.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline const char *fz_path(const char *tag) {
  static char path[2][512];
  static int which;
  const char *dir = getenv("TMPDIR");
  which ^= 1;
  snprintf(path[which], sizeof path[which], "%s/fcd-fuzz-%ld-%s", dir ? dir : "/tmp",
           (long)getpid(), tag);
  return path[which];
}

static inline const char *fz_write(const uint8_t *data, size_t size, const char *tag) {
  const char *p = fz_path(tag);
  FILE *f = fopen(p, "wb");
  if (!f) abort(); /* the harness's own environment, not a finding */
  if (size && fwrite(data, 1, size, f) != size) abort();
  fclose(f);
  return p;
}

static inline void fz_fail(const char *what, const char *detail) {
  fprintf(stderr, "fuzz property violated: %s (%s)\n", what, detail ? detail : "");
  abort();
}

/* A failure must come with a message. */
static inline void fz_need_message(const char *msg, const char *call) {
  if (!msg || !msg[0]) fz_fail("a failing call left no message", call);
}

#endif
