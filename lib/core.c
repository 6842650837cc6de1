/* Status strings, version, error recording and fcd's own allocations. */
#include "fcd_private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *fcd_status_str(fcd_status s) {
  switch (s) {
#define FCD_STATUS_CASE_(name, value, text) \
  case name: return text;
    FCD_STATUS_LIST(FCD_STATUS_CASE_)
#undef FCD_STATUS_CASE_
  default: return s < 0 ? "unknown error" : "unknown status";
  }
}

const char *fcd_version_string(void) { return FCD_VERSION_STRING; }

int fcd_version_number(void) { return FCD_VERSION_NUMBER; }

int fcd__system_valid(const fcd_system *sys) {
  return sys != NULL && sys->magic == FCD_SYSTEM_MAGIC;
}

fcd_status fcd__verr(const fcd_system *sys, fcd_status st, const char *fmt, va_list ap) {
  if (fcd__system_valid(sys)) {
    /* The error text is the handle's mutable diagnostic state (like sqlite3_errmsg),
     * recorded even through const accessors. */
    char *buf = ((fcd_system *)(uintptr_t)sys)->err;
    vsnprintf(buf, FCD_ERRMSG_CAP, fmt, ap);
  }
  return st;
}

fcd_status fcd__err(const fcd_system *sys, fcd_status st, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fcd__verr(sys, st, fmt, ap);
  va_end(ap);
  return st;
}

void *fcd__malloc(size_t size) { return malloc(size ? size : 1); }

void *fcd__calloc(size_t n, size_t size) { return calloc(n ? n : 1, size ? size : 1); }

void fcd__free(void *p) { free(p); }

void *fcd__malloc_array(size_t n, size_t size) {
  if (size != 0 && n > SIZE_MAX / size) return NULL;
  return fcd__malloc(n * size);
}
