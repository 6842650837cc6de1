/* Status strings, version, error recording, fcd's own allocations and its parts on threads. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT: the cores this process may run on */
#include "core.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#if defined(__GLIBC__) && defined(M_MMAP_MAX) && defined(M_TRIM_THRESHOLD) && \
    defined(M_MMAP_THRESHOLD)
/* SuperLU_DIST, which PETSc loads with fcd, turns off from its constructor glibc's mapped
 * allocations and heap trimming for the whole process (mallopt(M_MMAP_MAX, 0),
 * mallopt(M_TRIM_THRESHOLD, -1)): every block freed afterwards stayed resident, so the
 * process held the high-water mark of everything it ever allocated (the brake at a
 * million dofs: 19 GiB resident after its factorization, 6.6 of it the model's assembly
 * long freed), and a freed 1 GiB array was still counted by the kernel and a cgroup's
 * limit. fcd's constructor runs after its dependencies' and puts back what glibc does at
 * its largest dynamic setting: blocks of 32 MiB and more mapped (and unmapped when
 * freed), the heap's top trimmed past 64 MiB. A host that wants otherwise calls mallopt
 * after loading fcd. */
__attribute__((constructor)) static void fcd__malloc_defaults(void) {
  mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
  mallopt(M_TRIM_THRESHOLD, 64 * 1024 * 1024);
  mallopt(M_MMAP_MAX, 65536);
}
#endif

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
  return sys != NULL && ((const fcd__head *)(const void *)sys)->magic == FCD_SYSTEM_MAGIC;
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
    char *sbuf = ((fcd__head *)(uintptr_t)sys)->err;
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

/* The library's process-wide teardown: the finalizers the backends registered when they
 * started process-wide state (PETSc and SLEPc), newest first. Core calls no backend. */
enum { FINALIZERS_MAX = 8 };
static void (*finalizers[FINALIZERS_MAX])(void);
static int nfinalizers;
static pthread_mutex_t finalizer_lock = PTHREAD_MUTEX_INITIALIZER;

int fcd__on_finalize(void (*fn)(void)) {
  int ok = 1;
  pthread_mutex_lock(&finalizer_lock);
  int seen = 0;
  for (int k = 0; k < nfinalizers; k++) seen |= finalizers[k] == fn;
  if (!seen && nfinalizers < FINALIZERS_MAX) finalizers[nfinalizers++] = fn;
  else if (!seen) ok = 0;
  pthread_mutex_unlock(&finalizer_lock);
  return ok;
}

void fcd_finalize(void) {
  pthread_mutex_lock(&finalizer_lock);
  int n = nfinalizers;
  void (*fns[FINALIZERS_MAX])(void);
  for (int k = 0; k < n; k++) fns[k] = finalizers[k];
  pthread_mutex_unlock(&finalizer_lock);
  for (int k = n - 1; k >= 0; k--) fns[k]();
}

/* FNV-1a over bytes, folded into h: equal data gives equal hashes (the ranks' replica
 * check, the caches' keys) */
uint64_t fcd__hash(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  if (h == 0) h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

double fcd__resident_bytes(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  unsigned long long size, res;
  long psize = sysconf(_SC_PAGESIZE);
  int ok = f && fscanf(f, "%llu %llu", &size, &res) == 2 && psize > 0;
  if (f) fclose(f);
  return ok ? (double)res * (double)psize : 0;
}

double fcd__memory_limit(void) {
  long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
  double lim = pages > 0 && psize > 0 ? (double)pages * (double)psize : INFINITY;
  FILE *f = fopen("/sys/fs/cgroup/memory.max", "r"); /* "max" when unlimited */
  unsigned long long v;
  if (f && fscanf(f, "%llu", &v) == 1 && (double)v < lim) lim = (double)v;
  if (f) fclose(f);
  return lim;
}

/* ---- parts of a kernel on threads ---------------------------------------------------- */

int fcd__par_cpus(void) {
#if defined(__linux__)
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    int c = CPU_COUNT(&set);
    if (c >= 1) return c;
  }
#endif
  long c = sysconf(_SC_NPROCESSORS_ONLN);
  return c >= 1 ? (c > 1024 ? 1024 : (int)c) : 1;
}

typedef struct {
  void (*fn)(void *ctx, int part);
  void *ctx;
  int first, parts, stride;
} par_lane;

static void par_lane_run(const par_lane *l) {
  for (int p = l->first; p < l->parts; p += l->stride) l->fn(l->ctx, p);
}

static void *par_main(void *arg) {
  par_lane_run(arg);
  return NULL;
}

void fcd__par_run(int parts, void (*fn)(void *ctx, int part), void *ctx) {
  enum { PAR_MAX = 64 };
  int lanes = fcd__par_cpus();
  if (lanes > parts) lanes = parts;
  if (lanes > PAR_MAX) lanes = PAR_MAX;
  pthread_t th[PAR_MAX];
  par_lane lane[PAR_MAX];
  int made = 1;
  if (lanes > 1) {
    /* the helpers take no signal: a host's handlers run on its own threads */
    sigset_t all, old;
    sigfillset(&all);
    if (pthread_sigmask(SIG_SETMASK, &all, &old) == 0) {
      for (; made < lanes; made++) {
        lane[made] = (par_lane){fn, ctx, made, parts, lanes};
        if (pthread_create(&th[made], NULL, par_main, &lane[made]) != 0) break;
      }
      pthread_sigmask(SIG_SETMASK, &old, NULL);
    }
  }
  /* the caller takes lane 0, and the lanes no thread could be made for */
  lane[0] = (par_lane){fn, ctx, 0, parts, lanes};
  par_lane_run(&lane[0]);
  for (int k = made; k < lanes; k++) {
    lane[k] = (par_lane){fn, ctx, k, parts, lanes};
    par_lane_run(&lane[k]);
  }
  for (int k = 1; k < made; k++) pthread_join(th[k], NULL);
}
