/* Status strings, version, error recording and fcd's own allocations. */
#include "fcd_private.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
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

/* fclib is optional (meson -Dfclib); MPI, UMFPACK and SLEPc are required by the build
 * today; MUMPS comes with PETSc's own configuration. The names are the stable part: a
 * host that asks keeps working when more parts become optional. */
static int have_fclib(void) { return FCD_HAVE_FCLIB; }
static const struct {
  const char *name;
  int (*have)(void);
} features[] = {{"fclib", have_fclib}, {"mpi", NULL}, {"umfpack", NULL}, {"slepc", NULL},
                {"mumps", fcd__petsc_has_mumps}};

int fcd_has_feature(const char *name) {
  if (!name) return 0;
  for (size_t k = 0; k < sizeof features / sizeof *features; k++)
    if (strcmp(name, features[k].name) == 0) return features[k].have ? features[k].have() : 1;
  return 0;
}

static char feature_list[64];
static pthread_once_t feature_once = PTHREAD_ONCE_INIT;

static void list_features(void) {
  size_t len = 0;
  for (size_t k = 0; k < sizeof features / sizeof *features; k++)
    if (fcd_has_feature(features[k].name))
      len += (size_t)snprintf(feature_list + len, sizeof feature_list - len, "%s%s",
                              len ? " " : "", features[k].name);
}

const char *fcd_features(void) {
  pthread_once(&feature_once, list_features);
  return feature_list;
}

int fcd__system_valid(const fcd_system *sys) {
  return sys != NULL && sys->magic == FCD_SYSTEM_MAGIC;
}

fcd_status fcd__verr_to(const fcd_system *sys, char *buf, size_t cap, fcd_status st,
                        const char *fmt, va_list ap) {
  if (buf && cap) {
    va_list aq;
    va_copy(aq, ap);
    vsnprintf(buf, cap, fmt, aq);
    va_end(aq);
  }
  if (fcd__system_valid(sys)) {
    /* The error text is the handle's mutable diagnostic state (like sqlite3_errmsg),
     * recorded even through const accessors. */
    char *sbuf = ((fcd_system *)(uintptr_t)sys)->err;
    vsnprintf(sbuf, FCD_ERRMSG_CAP, fmt, ap);
  }
  return st;
}

fcd_status fcd__err_to(const fcd_system *sys, char *buf, size_t cap, fcd_status st,
                       const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fcd__verr_to(sys, buf, cap, st, fmt, ap);
  va_end(ap);
  return st;
}

fcd_status fcd__verr(const fcd_system *sys, fcd_status st, const char *fmt, va_list ap) {
  return fcd__verr_to(sys, NULL, 0, st, fmt, ap);
}

fcd_status fcd__err(const fcd_system *sys, fcd_status st, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fcd__verr(sys, st, fmt, ap);
  va_end(ap);
  return st;
}

/* The process-wide allocator of fcd's own blocks, and how many of them are alive: a
 * new allocator may only be installed when none is, since every block must go back
 * to the allocator that made it. */
static void *default_alloc(void *ud, size_t size) {
  (void)ud;
  return malloc(size);
}
static void default_free(void *ud, void *p) {
  (void)ud;
  free(p);
}
static fcd_allocator allocator = {default_alloc, default_free, NULL};
static atomic_llong live_blocks;

fcd_status fcd_set_allocator(const fcd_allocator *a) {
  if (a && (!a->alloc || !a->free)) return FCD_E_INVALID_ARG;
  if (atomic_load(&live_blocks) != 0) return FCD_E_STATE;
  if (a) allocator = *a;
  else allocator = (fcd_allocator){default_alloc, default_free, NULL};
  return FCD_OK;
}

long long fcd__live_blocks(void) { return atomic_load(&live_blocks); }

void *fcd__malloc(size_t size) {
  void *p = allocator.alloc(allocator.user_data, size ? size : 1);
  if (p) atomic_fetch_add(&live_blocks, 1);
  return p;
}

void *fcd__calloc(size_t n, size_t size) {
  if (n == 0) n = 1;
  if (size == 0) size = 1;
  if (n > SIZE_MAX / size) return NULL;
  void *p = fcd__malloc(n * size);
  if (p) memset(p, 0, n * size);
  return p;
}

void fcd__free(void *p) {
  if (!p) return;
  atomic_fetch_sub(&live_blocks, 1);
  allocator.free(allocator.user_data, p);
}

void *fcd__grow_array(void *p, size_t old_n, size_t new_n, size_t size) {
  void *q = fcd__malloc_array(new_n, size);
  if (!q) return NULL;
  if (p && old_n) memcpy(q, p, (old_n < new_n ? old_n : new_n) * size);
  fcd__free(p);
  return q;
}

void *fcd__malloc_array(size_t n, size_t size) {
  if (size != 0 && n > SIZE_MAX / size) return NULL;
  return fcd__malloc(n * size);
}

int fcd__index_set_assign(fcd_index **set, fcd_index *ns, fcd_index n, const fcd_index *idx,
                          int *changed) {
  *changed = !(n == *ns && (n == 0 || memcmp(idx, *set, (size_t)n * sizeof *idx) == 0));
  if (!*changed) return 0;
  fcd_index *copy = fcd__malloc_array((size_t)n + 1, sizeof *copy);
  if (!copy) return 1;
  if (n > 0) memcpy(copy, idx, (size_t)n * sizeof *copy);
  fcd__free(*set);
  *set = copy;
  *ns = n;
  return 0;
}

/* The library's process-wide teardown. Only the PETSc backend holds such state. */
void fcd_finalize(void) { fcd__petsc_finalize(); }
