/** @file fcd/fcd_status.h
 *  @brief Status codes. Append-only: a released value is never renumbered or reused.
 *  Callers must treat an unknown negative value as a generic error. */
#ifndef FCD_STATUS_H
#define FCD_STATUS_H

#include <fcd/fcd_common.h>

FCD_BEGIN_DECLS

/** The status codes as X(name, value, text): one list produces both the enum and the
 *  fcd_status_str() table. Values are append-only (docs/abi-policy.md). */
#define FCD_STATUS_LIST(X)                                                          \
  X(FCD_OK, 0, "success")                                                           \
  X(FCD_E_INVALID_ARG, -1, "invalid argument")                                      \
  X(FCD_E_NOMEM, -2, "out of memory")                                               \
  X(FCD_E_STATE, -3, "call made in the wrong state or order")                       \
  X(FCD_E_UNSUPPORTED, -4, "unsupported option, key or feature")                    \
  X(FCD_E_NOT_CONVERGED, -5, "solver did not converge")                             \
  X(FCD_E_SINGULAR, -6, "singular matrix")                                          \
  X(FCD_E_BACKEND, -7, "error in a backend library (PETSc, SLEPc, SuiteSparse)")    \
  X(FCD_E_IO, -8, "input/output error")                                             \
  X(FCD_E_INTERNAL, -9, "internal error (a bug in fcd)")                            \
  X(FCD_E_FORMAT, -10, "malformed file contents")                                   \
  X(FCD_E_NOT_SPD, -11, "matrix is not symmetric positive definite")                \
  X(FCD_E_CALLBACK, -12, "a user callback reported failure")                       \
  X(FCD_E_NO_SOLUTION, -13, "the problem has no solution for these data")

/** The status codes (FCD_OK, FCD_E_*), as listed by FCD_STATUS_LIST. */
enum {
/** @cond internal */
#define FCD_STATUS_ENUM_(name, value, text) name = value,
  FCD_STATUS_LIST(FCD_STATUS_ENUM_)
#undef FCD_STATUS_ENUM_
/** @endcond */
  FCD_STATUS_LIST_END_ = 1 /**< not a status: ends the list */
};

/** Static text describing @p s; never NULL (unknown codes give a generic text).
 *  @param s a status
 *  @return a static English description of the status ("out of memory"); never NULL
 *  @since 0.1 */
FCD_API const char *fcd_status_str(fcd_status s);

/** Version of the library actually loaded, e.g. "0.1.0" (compare FCD_VERSION_STRING).
 *  @return the library's version, "MAJOR.MINOR.PATCH", static
 *  @since 0.1 */
FCD_API const char *fcd_version_string(void);

/** FCD_VERSION_NUMBER of the library actually loaded.
 *  @return the version as 10000 MAJOR + 100 MINOR + PATCH
 *  @since 0.1 */
FCD_API int fcd_version_number(void);

/** 1 when the loaded library was built with the optional part @p name, else 0 (also for
 *  NULL and unknown names): "fclib" (fclib HDF5 files; meson -Dfclib; without it the
 *  fclib calls return FCD_E_UNSUPPORTED), "mpi" (distributed stability solves),
 *  "umfpack" (LU factorizations), "mumps" (PETSc built with MUMPS, which the distributed
 *  factors use; the sparse eigen-solves call MUMPS directly), "slepc" (sparse
 *  eigen-solves).
 *  @param name a feature name (see fcd_features)
 *  @return 1 when this build has the feature, 0 otherwise
 *  @since 0.1 */
FCD_API int fcd_has_feature(const char *name);

/** The names fcd_has_feature() answers 1 for, space-separated, e.g. "fclib mpi umfpack"
 *  (static storage).
 *  @return the space-separated list of this build's features, static
 *  @since 0.1 */
FCD_API const char *fcd_features(void);

/** Finalizes SLEPc and PETSc if, and only if, fcd initialized them (fcd does so lazily,
 *  on the first call that needs them, and only when the host has not). Call it once at
 *  the end of a program that never initialized PETSc itself; afterwards no fcd call may
 *  use PETSc again in this process (MPI cannot be restarted). Safe to call when fcd
 *  never initialized anything, and more than once.
 *  @since 0.1 */
FCD_API void fcd_finalize(void);

/** Memory functions for fcd's own allocations (SuiteSparse, PETSc, SLEPc, HDF5 and the
 *  C library keep theirs). @p alloc returns NULL on failure; @p free accepts NULL. */
typedef struct fcd_allocator {
  void *(*alloc)(void *user_data, size_t size); /**< a block of @p size bytes, or NULL */
  void (*free)(void *user_data, void *p);       /**< releases a block alloc returned */
  void *user_data;                              /**< passed to both, untouched */
} fcd_allocator;

/** Installs @p a (copied) for the whole process; NULL restores malloc and free. Every
 *  block must return to the allocator that made it, so this is FCD_E_STATE while any
 *  fcd object (or other fcd allocation) is alive: call it before creating any, or
 *  after destroying all. Not to be called concurrently with other fcd calls. When an
 *  allocation fails, the call that needed it returns FCD_E_NOMEM and its handles stay
 *  usable.
 *  @param a the allocator (copied), or NULL to restore malloc and free
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_STATE
 *  @since 0.1 */
FCD_API fcd_status fcd_set_allocator(const fcd_allocator *a);

FCD_END_DECLS

#endif /* FCD_STATUS_H */
