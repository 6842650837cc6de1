/* The core layer's private interface (lib/layers.txt): the message channel, fcd's
 * allocations, bounded text input, and the head every system begins with. Internal names
 * use the fcd__ prefix; nothing here is exported. Every private header includes this. */
#ifndef FCD_LIB_CORE_H
#define FCD_LIB_CORE_H

#include "fcd/fcd.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define FCD_SYSTEM_MAGIC 0x66636473u /* "fcds": catches use of a foreign or freed pointer */
#define FCD_ERRMSG_CAP 1024

/* What core reads of a system: its validity and its message buffer. A system begins
 * with this head (system_data.h), so that core needs no system's definition. */
typedef struct fcd__head {
  uint32_t magic;
  char err[FCD_ERRMSG_CAP];
} fcd__head;

/* sqrt(a^2 + b^2) without hypot's cost (a library call, a fifth of a 3D local contact
 * solve) where the squares neither overflow nor underflow, which the test below
 * establishes; hypot otherwise (huge, tiny, infinite or NaN entries). */
static inline fcd_real fcd__hypot(fcd_real a, fcd_real b) {
  fcd_real s = a * a + b * b;
  return s < DBL_MAX && s > DBL_MIN ? sqrt(s) : hypot(a, b);
}

/* The larger of a and b, NaN when either is: a certificate must fail on a NaN, which
 * fmax drops (and fmax is a library call, a tenth of a solve of a few contacts). */
static inline fcd_real fcd__maxn(fcd_real a, fcd_real b) {
  return a > b || a != a ? a : b;
}
static inline fcd_real fcd__minn(fcd_real a, fcd_real b) {
  return a < b || a != a ? a : b;
}
/* fmax's value (a NaN argument gives the other) without its library call: forty a step
 * of a model of a few dofs, 3 % of the step */
static inline fcd_real fcd__fmax(fcd_real a, fcd_real b) {
  return a > b || b != b ? a : b;
}

/* x 2^k, ldexp's value: when 2^k is a normal double the product is ldexp's result to the
 * bit (both correctly rounded), without ldexp's library call (nine a step of a model of a
 * few dofs, 5 % of it) */
static inline fcd_real fcd__pow2(int k) {
  if (k < DBL_MIN_EXP - 1 || k > DBL_MAX_EXP - 1) return 0;
  uint64_t bits = (uint64_t)(k + 1023) << 52;
  fcd_real p;
  memcpy(&p, &bits, sizeof p);
  return p;
}
static inline fcd_real fcd__ldexp(fcd_real x, int k) {
  fcd_real p = fcd__pow2(k);
  return p != 0 ? x * p : ldexp(x, k);
}

/* The dot product of n entries in four partial sums: one sum is bound by the adder's
 * latency, four fill the vector lanes (a reduced model's step is passes of such sums) */
static inline fcd_real fcd__dot4(const fcd_real *restrict a, const fcd_real *restrict b,
                                 fcd_index n) {
  fcd_real s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  fcd_index j = 0;
  for (; j + 3 < n; j += 4) {
    s0 += a[j] * b[j];
    s1 += a[j + 1] * b[j + 1];
    s2 += a[j + 2] * b[j + 2];
    s3 += a[j + 3] * b[j + 3];
  }
  for (; j < n; j++) s0 += a[j] * b[j];
  return (s0 + s1) + (s2 + s3);
}

/* The norm of the tangential part x[1 .. d-1] of a local contact vector (N first), and
 * of a vector of the tangent plane t[0 .. d-2]: the one place for "fabs in 2D, hypot in
 * 3D". */
static inline fcd_real fcd__tnorm(int d, const fcd_real *x) {
  return d == 2 ? fabs(x[1]) : fcd__hypot(x[1], x[2]);
}
static inline fcd_real fcd__tpnorm(int d, const fcd_real *t) {
  return d == 2 ? fabs(t[0]) : fcd__hypot(t[0], t[1]);
}

/* ---- errors ---- */
#if defined(__GNUC__)
#define FCD__PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define FCD__PRINTF(a, b)
#endif
/* Records a message on sys (may be NULL) and returns st. The message buffer is part of
 * the handle's mutable error state, so const handles may record too. */
fcd_status fcd__err(const fcd_system *sys, fcd_status st, const char *fmt, ...)
    FCD__PRINTF(3, 4);
fcd_status fcd__verr(const fcd_system *sys, fcd_status st, const char *fmt, va_list ap)
    FCD__PRINTF(3, 0);
/* The one message channel, of which fcd__err is the common case: the message goes to the
 * system (when valid) and to buf (when given: a caller's errbuf where no handle exists
 * yet, or a handle's own buffer such as a lattice's); returns st. */
fcd_status fcd__err_to(const fcd_system *sys, char *buf, size_t cap, fcd_status st,
                       const char *fmt, ...) FCD__PRINTF(5, 6);
fcd_status fcd__verr_to(const fcd_system *sys, char *buf, size_t cap, fcd_status st,
                        const char *fmt, va_list ap) FCD__PRINTF(5, 0);
/* fcd_finalize calls fn (newest first): a backend registers the teardown of the
 * process-wide state it started, so that core calls no backend. 0 when the table is full. */
int fcd__on_finalize(void (*fn)(void));
int fcd__system_valid(const fcd_system *sys);

/* 1 when a parameter given as a real is a whole number in [lo, hi] (counts, caps) */
/* The memory this process may fill: the machine's physical memory, or its control
 * group's limit where that is lower (a container); +inf when neither is known. Linux
 * grants allocations past it and kills the process when they are touched, so a size
 * known to exceed it is refused before the work (core.c). */
double fcd__memory_limit(void);
/* the bytes this process holds resident now (/proc/self/statm), 0 where unknown */
double fcd__resident_bytes(void);

/* Parts of a kernel on threads. The kernels that pay for them are passes over a sparse
 * matrix for blocks of columns (a reduction's projections and modes), which run on one
 * core at a fraction of what two make of them, while BLAS' own threads wait. The lanes
 * are the cores this process may run on (its affinity: one under an MPI launcher that
 * binds each rank to a core), at most as many as the parts, the caller's thread one of
 * them; a thread made for the call runs its lane with every signal blocked and is
 * joined before the call returns. fn(ctx, part) runs once for each part in [0, parts):
 * the parts must not write what another reads or writes. A thread that cannot be made
 * leaves its lane to the caller: the same work, later. */
int fcd__par_cpus(void);
void fcd__par_run(int parts, void (*fn)(void *ctx, int part), void *ctx);

static inline int fcd__is_whole(fcd_real v, fcd_real lo, fcd_real hi) {
  return isfinite(v) && v >= lo && v <= hi && v == floor(v);
}

#define FCD_CHECK_SYS(sys)                                                             \
  do {                                                                                 \
    if (!fcd__system_valid(sys)) return FCD_E_INVALID_ARG;                             \
  } while (0)
#define FCD_TRY(expr)                                                                  \
  do {                                                                                 \
    fcd_status fcd__st_ = (expr);                                                      \
    if (fcd__st_ != FCD_OK) return fcd__st_;                                           \
  } while (0)

/* ---- registries (registry.c): one named entry of a family's table ---- */
typedef struct {
  int value;
  const char *name, *summary;
} fcd__named;
/* entry k of a family's table into *out; 0 past its end (each family's file keeps its
 * table: schemes.c, fc_solvers.c, import.c, mesh_read.c) */
typedef int (*fcd__registry_fn)(int k, fcd__named *out);

/* ---- bounded text input (textio.c) ---- */
/* The longest line any reader accepts: 16 MiB, some 700,000 numbers (a state vector on
 * one line), and the most a stream without newlines can cost. */
#define FCD__LINE_MAX (16 << 20)
/* The most a whole-file reader takes from a stream that is not a regular file (a pipe,
 * a device): 1 GiB. A regular file is bounded by its size. */
#define FCD__STREAM_MAX ((size_t)1 << 30)
typedef struct {
  FILE *fp;
  const char *path;
  char *line; /* the current line, NUL-terminated, without its newline or CR: inside buf,
               * valid (and writable) until the next call */
  size_t len; /* its length */
  long lineno;
  char *buf;  /* the bytes read ahead: lines are found by memchr, not a call a byte */
  size_t cap, pos, end;
  int eof;
} fcd__lines;
/* fopen(path, "rb") refusing a directory; both failures FCD_E_IO naming the path (errbuf
 * gets the message too when not NULL: callers without a system) */
fcd_status fcd__open_input(const fcd_system *sys, const char *path, FILE **out, char *errbuf,
                           size_t errcap);
void fcd__lines_init(fcd__lines *r, FILE *fp, const char *path);
void fcd__lines_free(fcd__lines *r);
/* 1: a line; 0: end of file; -1: *st set with a message (line longer than FCD__LINE_MAX,
 * a NUL byte, a read error, out of memory) */
int fcd__lines_next(fcd__lines *r, const fcd_system *sys, char *errbuf, size_t errcap,
                    fcd_status *st);
/* Numbers read in place, without strtod's or strtoll's cost where that is exact. A decimal
 * of at most 19 significant digits whose value is m * 10^e with m <= 2^53 and |e| <= 22 is
 * one exact IEEE operation, so correctly rounded (Clinger's fast path).
 * fcd__fast_decimal: s[0..len) from its first character (no blanks), C's syntax or with
 * fortran Fortran's (D and Q exponents, 1.556+2); 1 and the characters read in *used when
 * the fast path decides the value, 0 when strtod must (or s holds no number there). */
int fcd__fast_decimal(const char *s, size_t len, int fortran, double *out, size_t *used);
/* a C number after blanks of a NUL-terminated s, as strtod reads it: the characters read,
 * 0 when none */
size_t fcd__scan_real(const char *s, double *out);
/* a decimal integer after blanks (an optional sign, at most 18 digits): the characters
 * read, 0 when none or too long */
size_t fcd__scan_int(const char *s, long long *out);
/* a whole file into memory (fcd__free it, NUL-terminated), bounded by a regular file's
 * size or FCD__STREAM_MAX; a NUL byte stops the read at once (/dev/zero) unless
 * nul_ok(text so far) says the file is binary (NULL: NULs are data) */
fcd_status fcd__read_file(const fcd_system *sys, const char *path, char **out, size_t *len,
                          int (*nul_ok)(const char *text, size_t len));

/* ---- memory: every allocation of fcd's own goes through these ---- */
void *fcd__malloc(size_t size);
void *fcd__calloc(size_t n, size_t size);
void fcd__free(void *p);
/* n * size with overflow check; NULL on overflow or failure */
void *fcd__malloc_array(size_t n, size_t size);
/* *set (*ns entries) becomes a copy of idx (n entries) unless equal already; *changed
 * says which. 1 when out of memory (*set untouched). */
int fcd__index_set_assign(fcd_index **set, fcd_index *ns, fcd_index n, const fcd_index *idx,
                          int *changed);
/* A new block of new_n entries holding the first min(old_n, new_n) of p, which is freed;
 * NULL (and p untouched) on failure. */
void *fcd__grow_array(void *p, size_t old_n, size_t new_n, size_t size);
/* FNV-1a of n bytes folded into h (0 starts a hash): a content fingerprint, the ranks'
 * replica check's (dist.h) and the caches' keys */
uint64_t fcd__hash(uint64_t h, const void *p, size_t n);
/* fcd blocks currently allocated (tests) */
long long fcd__live_blocks(void);

#endif
