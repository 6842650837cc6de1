/** @file fcd/fcd_system.h
 *  @brief The mechanical system: M, C, K on ndofs degrees of freedom, prescribed dofs,
 *  loads. It is the root object: contact sets, integrators and stability analyses are
 *  created from it and report their errors through fcd_system_last_error().
 *
 *  Threads: one system (with everything created from it) is used by one thread at a
 *  time; different systems are independent. Calls that reach PETSc/SLEPc are
 *  serialized by one process-wide lock. */
#ifndef FCD_SYSTEM_H
#define FCD_SYSTEM_H

#include <fcd/fcd_common.h>
#include <fcd/fcd_status.h>

FCD_BEGIN_DECLS

/** Opaque mechanical system. */
typedef struct fcd_system fcd_system;

/** Which matrix of the system a call addresses. */
typedef enum { FCD_MASS = 0, FCD_STIFFNESS = 1, FCD_DAMPING = 2 } fcd_matrix_kind;

/** Storage flags for matrix input (COO and CSR). */
#define FCD_COO_FULL 0u  /**< all entries given */
#define FCD_COO_UPPER 1u /**< symmetric matrix given by its upper triangle (row <= col) */

/** Ownership of arrays passed to fcd_system_set_matrix_csr(). */
typedef enum {
  FCD_COPY = 0,  /**< fcd copies; the caller may reuse the arrays at once */
  FCD_BORROW = 1 /**< fcd keeps the pointers: the caller keeps the arrays alive and the
                      pattern unchanged until the matrix is replaced or the system is
                      destroyed; after changing values in place, call
                      fcd_system_matrix_values_changed() */
} fcd_ownership;

/** Creates a system with @p ndofs degrees of freedom (all free, no matrices, no load).
 *  It allocates and fills 49 bytes per dof at once; a size whose 49 bytes per dof exceed
 *  the machine's physical memory is refused with FCD_E_NOMEM before anything is
 *  allocated (no data can justify it, and the kernel would kill the process while the
 *  tables are filled). No handle exists to carry a message: the host names the size.
 *  @return FCD_OK, FCD_E_INVALID_ARG (ndofs <= 0 or out NULL), FCD_E_NOMEM.
 *  @param ndofs number of dofs, >= 1
 *  @param out receives the new system, owned by the caller (fcd_system_destroy); NULL on
 *      failure
 *  @since 0.1 */
FCD_API fcd_status fcd_system_create(fcd_index ndofs, fcd_system **out);

/** Destroys the system. NULL-safe. The objects created from it (contact sets, solvers,
 *  meshes) may be destroyed before or after it, in any order: the system's memory is
 *  released when the last of them is gone. After this call the handle must not be used.
 *  @param sys the system, or NULL
 *  @since 0.1 */
FCD_API void fcd_system_destroy(fcd_system *sys);

/** Message of the most recent failing call on @p sys (or an object created from it);
 *  "" if none failed yet; a success does not clear it. Never NULL (a NULL @p sys gives a fixed text). Owned by @p sys,
 *  valid until the next fcd call on it.
 *  @param sys the system (NULL or invalid: a fixed text says so)
 *  @return the message of the last failure on sys, owned by sys, valid until its next call
 *  @since 0.1 */
FCD_API const char *fcd_system_last_error(const fcd_system *sys);

/** Number of degrees of freedom; 0 for NULL.
 *  @param sys the system
 *  @return the number of dofs; 0 for NULL or an invalid handle
 *  @since 0.1 */
FCD_API fcd_index fcd_system_ndofs(const fcd_system *sys);

/** Sets matrix @p which from @p nnz triplets (0-based). Duplicates are summed. With
 *  FCD_COO_UPPER only entries with row <= col are accepted and the matrix is symmetric.
 *  Replaces any previous matrix of that kind; on error the previous one is kept.
 *  @param sys the system (borrowed; it must outlive every object made from it)
 *  @param which which matrix (FCD_MASS, FCD_DAMPING or FCD_STIFFNESS)
 *  @param nnz number of stored entries
 *  @param rows row indices, nnz entries (copied)
 *  @param cols column indices, nnz entries (copied)
 *  @param vals values, nnz entries (copied); duplicates are summed
 *  @param flags FCD_COO_FULL or FCD_COO_UPPER
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_NOMEM
 *  @since 0.1 */
FCD_API fcd_status fcd_system_set_matrix_coo(fcd_system *sys, fcd_matrix_kind which,
                                             fcd_index nnz, const fcd_index *rows,
                                             const fcd_index *cols, const fcd_real *vals,
                                             unsigned flags);

/** Sets matrix @p which from compressed sparse rows: @p row_ptr has ndofs+1 entries
 *  starting at 0; the columns of each row are strictly increasing (no duplicates).
 *  @p flags as for COO. @p own chooses copy or borrow (see fcd_ownership).
 *  @param sys the system (borrowed; it must outlive every object made from it)
 *  @param which which matrix (FCD_MASS, FCD_DAMPING or FCD_STIFFNESS)
 *  @param row_ptr CSR row pointers, ndofs + 1 entries
 *  @param col_idx CSR column indices
 *  @param vals CSR values
 *  @param flags FCD_COO_FULL or FCD_COO_UPPER
 *  @param own an fcd_ownership: copy, take or borrow the three arrays
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_NOMEM
 *  @since 0.1 */
FCD_API fcd_status fcd_system_set_matrix_csr(fcd_system *sys, fcd_matrix_kind which,
                                             const fcd_index *row_ptr,
                                             const fcd_index *col_idx,
                                             const fcd_real *vals, unsigned flags,
                                             fcd_ownership own);

/** Tells fcd that the values of a borrowed matrix changed in place (same pattern):
 *  cached factorizations are refactored numerically, not re-analysed. Values are
 *  checked for NaN/Inf here.
 *  @param sys the system (borrowed; it must outlive every object made from it)
 *  @param which which matrix (FCD_MASS, FCD_DAMPING or FCD_STIFFNESS)
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_STATE
 *  @since 0.1 */
FCD_API fcd_status fcd_system_matrix_values_changed(fcd_system *sys,
                                                    fcd_matrix_kind which);

/** Reads matrix @p which from a Matrix Market file: `coordinate` with `real` or
 *  `integer` values, `general` or `symmetric`. Its size must be ndofs x ndofs. On a
 *  distributed system the call is collective: rank 0 reads the file (the other ranks'
 *  @p path is not used and may be NULL) and sends each rank the entries of the rows it
 *  owns, so no rank holds more than its own rows; every rank receives rank 0's status
 *  and message.
 *  @return FCD_E_IO (cannot open/read), FCD_E_FORMAT (malformed: the message names the
 *  line), FCD_E_UNSUPPORTED (pattern, complex, array, skew/hermitian),
 *  FCD_E_INVALID_ARG (size mismatch, bad values, ranks that ask for different matrices),
 *  FCD_E_NOMEM, FCD_E_BACKEND (an MPI error on a distributed system).
 *  @param sys the system (borrowed; it must outlive every object made from it)
 *  @param which which matrix (FCD_MASS, FCD_DAMPING or FCD_STIFFNESS)
 *  @param path Matrix Market file
 *  @since 0.1 */
FCD_API fcd_status fcd_system_read_matrix_market(fcd_system *sys, fcd_matrix_kind which,
                                                 const char *path);

/** Size and number of stored entries of a Matrix Market file, read from its header,
 *  without a system (so a caller can size one). @p errbuf (may be NULL) receives a
 *  message on failure.
 *  @param path Matrix Market file
 *  @param nrows receives the number of rows (may be NULL)
 *  @param ncols receives the number of columns (may be NULL)
 *  @param nnz receives the number of stored entries (may be NULL)
 *  @param errbuf receives a message on failure (may be NULL)
 *  @param errcap capacity of errbuf in bytes
 *  @return FCD_OK, or FCD_E_FORMAT, FCD_E_INVALID_ARG, FCD_E_IO, FCD_E_NOMEM,
 *      FCD_E_UNSUPPORTED
 *  @since 0.1 */
FCD_API fcd_status fcd_matrix_market_size(const char *path, fcd_index *nrows,
                                          fcd_index *ncols, fcd_index *nnz,
                                          char *errbuf, size_t errcap);

/** Writes matrix @p which (general coordinate real; symmetric storage when it was
 *  given as FCD_COO_UPPER) to @p path.
 *  @param sys the system (borrowed; it must outlive every object made from it)
 *  @param which which matrix (FCD_MASS, FCD_DAMPING or FCD_STIFFNESS)
 *  @param path file to write (replaced only by a complete file)
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_IO, FCD_E_STATE
 *  @since 0.1 */
FCD_API fcd_status fcd_system_write_matrix_market(const fcd_system *sys,
                                                  fcd_matrix_kind which,
                                                  const char *path);

/** Reads matrix @p which from a PETSc binary file (what MatView writes to a binary
 *  viewer: an AIJ matrix, big-endian, 32-bit indices, PETSc's default build). Its size
 *  must be ndofs x ndofs; all its entries are taken (full storage). Objects after the
 *  matrix in the file are ignored. On a distributed system each rank reads the rows it
 *  owns and nothing else (the call is not collective: every rank needs the file, as
 *  PETSc's MatLoad does).
 *  @return FCD_E_IO (cannot open/read), FCD_E_FORMAT (not a matrix, e.g. a vector's class
 *  id; truncated; row lengths or column indices out of range: the message says which),
 *  FCD_E_INVALID_ARG (size mismatch, values the system refuses), FCD_E_NOMEM.
 *  @param sys the system (borrowed; it must outlive every object made from it)
 *  @param which which matrix (FCD_MASS, FCD_DAMPING or FCD_STIFFNESS)
 *  @param path PETSc binary matrix file
 *  @since 0.1 */
FCD_API fcd_status fcd_system_read_petsc_binary(fcd_system *sys, fcd_matrix_kind which,
                                                const char *path);

/** Size and number of stored entries of a PETSc binary matrix file, read from its
 *  header, without a system (so a caller can size one, as fcd_matrix_market_size does
 *  for Matrix Market). The header is checked as fcd_system_read_petsc_binary checks it
 *  (a matrix's class id, sizes that fit, a file as long as they announce). @p errbuf
 *  (may be NULL) receives a message on failure.
 *  @param path PETSc binary matrix file
 *  @param nrows receives the number of rows (may be NULL)
 *  @param ncols receives the number of columns (may be NULL)
 *  @param nnz receives the number of stored entries (may be NULL)
 *  @param errbuf receives a message on failure (may be NULL)
 *  @param errcap capacity of errbuf in bytes
 *  @return FCD_OK, or FCD_E_FORMAT (not a matrix, truncated, inconsistent sizes),
 *      FCD_E_INVALID_ARG, FCD_E_IO
 *  @since 0.1 */
FCD_API fcd_status fcd_petsc_binary_size(const char *path, fcd_index *nrows,
                                         fcd_index *ncols, fcd_index *nnz, char *errbuf,
                                         size_t errcap);

/** Writes matrix @p which to @p path as a PETSc binary AIJ matrix (MatLoad reads it),
 *  both triangles of a symmetric matrix, columns increasing within each row.
 *  FCD_E_UNSUPPORTED beyond 32-bit sizes; FCD_E_STATE when the matrix was never set.
 *  @param sys the system (borrowed; it must outlive every object made from it)
 *  @param which which matrix (FCD_MASS, FCD_DAMPING or FCD_STIFFNESS)
 *  @param path file to write (replaced only by a complete file)
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_IO, FCD_E_NOMEM, FCD_E_STATE,
 *      FCD_E_UNSUPPORTED
 *  @since 0.1 */
FCD_API fcd_status fcd_system_write_petsc_binary(const fcd_system *sys, fcd_matrix_kind which,
                                                 const char *path);

/** Whether matrix @p which has been set (1) or not (0); 0 for bad arguments.
 *  @param sys the system
 *  @param which which matrix (FCD_MASS, FCD_DAMPING or FCD_STIFFNESS)
 *  @return 1 when the matrix is set, 0 otherwise (also for NULL or an invalid handle)
 *  @since 0.1 */
FCD_API int fcd_system_has_matrix(const fcd_system *sys, fcd_matrix_kind which);

/** Number of stored entries of matrix @p which (upper triangle only for symmetric
 *  storage) and the number of entries of the full matrix it represents.
 *  @param sys the system (borrowed; it must outlive every object made from it)
 *  @param which which matrix (FCD_MASS, FCD_DAMPING or FCD_STIFFNESS)
 *  @param stored receives the number of stored entries (may be NULL)
 *  @param full receives the number of entries of the full matrix (may be NULL)
 *  @return FCD_OK, or FCD_E_INVALID_ARG
 *  @since 0.1 */
FCD_API fcd_status fcd_system_matrix_nnz(const fcd_system *sys, fcd_matrix_kind which,
                                         fcd_index *stored, fcd_index *full);

/** The entries of matrix @p which as the full matrix (both triangles of a symmetric
 *  one): the @p full count of fcd_system_matrix_nnz entries go to @p rows, @p cols and
 *  @p vals (0-based, row by row, columns increasing). FCD_E_STATE when the matrix was
 *  never set.
 *  @param sys the system (borrowed; it must outlive every object made from it)
 *  @param which which matrix (FCD_MASS, FCD_DAMPING or FCD_STIFFNESS)
 *  @param rows receives the row indices (full storage; may be NULL)
 *  @param cols receives the column indices (may be NULL)
 *  @param vals receives the values (may be NULL)
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_NOMEM, FCD_E_STATE
 *  @since 0.1 */
FCD_API fcd_status fcd_system_get_matrix_coo(const fcd_system *sys, fcd_matrix_kind which,
                                             fcd_index *rows, fcd_index *cols,
                                             fcd_real *vals);

/** Relative asymmetry max|a_ij - a_ji| / max|a_ij| of matrix @p which (0 when stored
 *  symmetric).
 *  @param sys the system (borrowed; it must outlive every object made from it)
 *  @param which which matrix (FCD_MASS, FCD_DAMPING or FCD_STIFFNESS)
 *  @param asym receives |A - A^T|_max / |A|_max
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_STATE
 *  @since 0.1 */
FCD_API fcd_status fcd_system_matrix_asymmetry(const fcd_system *sys,
                                               fcd_matrix_kind which, fcd_real *asym);

/** y = A x on all ndofs (fixed dofs included) for matrix @p which. For FCD_DAMPING the
 *  operator is the full damping C + alpha M + beta K. A missing matrix acts as zero.
 *  @param sys the system (borrowed; it must outlive every object made from it)
 *  @param which which matrix (FCD_MASS, FCD_DAMPING or FCD_STIFFNESS)
 *  @param x input, ndofs entries
 *  @param y receives the product, ndofs entries (must not alias x)
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_BACKEND (distributed: an MPI error in the
 *      sum over the ranks, which makes this call collective)
 *  @since 0.1 */
FCD_API fcd_status fcd_system_apply(const fcd_system *sys, fcd_matrix_kind which,
                                    const fcd_real *x, fcd_real *y);

/** Rayleigh damping: the damping operator becomes C + alpha M + beta K (C the explicit
 *  damping matrix, zero if none). alpha, beta >= 0; (0, 0) removes it.
 *  @param sys the system (borrowed; it must outlive every object made from it)
 *  @param alpha mass coefficient of C = alpha M + beta K, >= 0
 *  @param beta stiffness coefficient, >= 0
 *  @return FCD_OK, or FCD_E_INVALID_ARG
 *  @since 0.1 */
FCD_API fcd_status fcd_system_set_rayleigh(fcd_system *sys, fcd_real alpha,
                                           fcd_real beta);

/** Prescribes dofs: @p n indices with their values (@p values NULL: all zero). Adds to
 *  the set already fixed; fixing a dof twice updates its value. A dof that carries a
 *  contact of a live contact set cannot be prescribed (FCD_E_INVALID_ARG). Validated as
 *  a whole: on error nothing changes.
 *  @param sys the system (borrowed; it must outlive every object made from it)
 *  @param n number of dofs
 *  @param dofs the dofs, n entries
 *  @param values their prescribed displacements, n entries (NULL: zero)
 *  @return FCD_OK, or FCD_E_INVALID_ARG
 *  @since 0.1 */
FCD_API fcd_status fcd_system_fix_dofs(fcd_system *sys, fcd_index n,
                                       const fcd_index *dofs, const fcd_real *values);

/** Frees every prescribed dof.
 *  @param sys the system (borrowed; it must outlive every object made from it)
 *  @return FCD_OK, or FCD_E_INVALID_ARG
 *  @since 0.1 */
FCD_API fcd_status fcd_system_clear_fixed(fcd_system *sys);

/** Reads prescribed dofs from a text file: one 0-based index per line, optionally
 *  followed by its value (zero when absent); '#' starts a comment. With a dof map
 *  (fcd_system_set_dofmap) a line may name its dof `node LABEL DOF [VALUE]`; a pair the
 *  map lacks is FCD_E_INVALID_ARG naming the line. All or nothing.
 *  @param sys the system (borrowed; it must outlive every object made from it)
 *  @param path fixed-dof file (docs/file-formats.md)
 *  @return FCD_OK, or FCD_E_FORMAT, FCD_E_INVALID_ARG, FCD_E_IO, FCD_E_NOMEM
 *  @since 0.1 */
FCD_API fcd_status fcd_system_read_fixed(fcd_system *sys, const char *path);

/** Number of prescribed dofs; -1 for NULL.
 *  @param sys the system
 *  @return the number of prescribed dofs; -1 for NULL or an invalid handle
 *  @since 0.1 */
FCD_API fcd_index fcd_system_num_fixed(const fcd_system *sys);

/** Copies the prescribed dofs (sorted increasingly) and their values into caller
 *  buffers of fcd_system_num_fixed() entries; either may be NULL.
 *  @param sys the system (borrowed; it must outlive every object made from it)
 *  @param dofs receives the fixed dofs, num_fixed entries (may be NULL)
 *  @param values receives their values (may be NULL)
 *  @return FCD_OK, or FCD_E_INVALID_ARG
 *  @since 0.1 */
FCD_API fcd_status fcd_system_get_fixed(const fcd_system *sys, fcd_index *dofs,
                                        fcd_real *values);

/** Constant external load, ndofs entries (copied). NULL removes it.
 *  @param sys the system (borrowed; it must outlive every object made from it)
 *  @param f the constant load, ndofs entries, or NULL to remove it
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_NOMEM
 *  @since 0.1 */
FCD_API fcd_status fcd_system_set_load(fcd_system *sys, const fcd_real *f);

/** Time-dependent load. @p f arrives holding the constant load (or zeros); the callback
 *  completes it for time @p t. Return 0 on success; any other value aborts the calling
 *  operation with FCD_E_CALLBACK (the code is kept in the message). */
typedef int (*fcd_load_fn)(void *user_data, fcd_real t, fcd_index ndofs, fcd_real *f);

/** Time-dependent prescribed displacements. For the @p nfixed prescribed @p dofs
 *  (sorted), @p u arrives holding their static values and @p v zeros; the callback sets
 *  displacement and velocity at time @p t. Return value as for fcd_load_fn. */
typedef int (*fcd_prescribed_fn)(void *user_data, fcd_real t, fcd_index nfixed,
                                 const fcd_index *dofs, fcd_real *u, fcd_real *v);

/** Installs (or, with NULL, removes) the time-dependent load callback.
 *  @param sys the system (borrowed; it must outlive every object made from it)
 *  @param fn the callback, or NULL to remove it
 *  @param user_data passed unchanged to every call of fn
 *  @return FCD_OK, or FCD_E_INVALID_ARG
 *  @since 0.1 */
FCD_API fcd_status fcd_system_set_load_fn(fcd_system *sys, fcd_load_fn fn,
                                          void *user_data);

/** Installs (or, with NULL, removes) the prescribed-displacement callback.
 *  @param sys the system (borrowed; it must outlive every object made from it)
 *  @param fn the callback, or NULL to remove it
 *  @param user_data passed unchanged to every call of fn
 *  @return FCD_OK, or FCD_E_INVALID_ARG
 *  @since 0.1 */
FCD_API fcd_status fcd_system_set_prescribed_fn(fcd_system *sys, fcd_prescribed_fn fn,
                                                void *user_data);

/** External load at time @p t (constant part plus callback), ndofs entries.
 *  @param sys the system (borrowed; it must outlive every object made from it)
 *  @param t time
 *  @param f receives the load at t, ndofs entries
 *  @return FCD_OK, or FCD_E_CALLBACK, FCD_E_INVALID_ARG
 *  @since 0.1 */
FCD_API fcd_status fcd_system_eval_load(fcd_system *sys, fcd_real t, fcd_real *f);

/** Prescribed displacement and velocity at time @p t, in the order of
 *  fcd_system_get_fixed(); @p v may be NULL.
 *  @param sys the system (borrowed; it must outlive every object made from it)
 *  @param t time
 *  @param u receives the prescribed displacements, one per fixed dof (may be NULL)
 *  @param v receives the prescribed velocities (may be NULL)
 *  @return FCD_OK, or FCD_E_CALLBACK, FCD_E_INVALID_ARG
 *  @since 0.1 */
FCD_API fcd_status fcd_system_eval_prescribed(fcd_system *sys, fcd_real t, fcd_real *u,
                                              fcd_real *v);

/** Support reactions: the forces the prescribed dofs' supports exert on the structure,
 *  R = M a + C v + K u - f(t) at the prescribed dofs, in the order of
 *  fcd_system_get_fixed() (@p r: fcd_system_num_fixed() entries). @p u, @p v and @p a
 *  are full vectors (ndofs entries: displacement, velocity, acceleration); @p v or
 *  @p a NULL drops its term, so a static state needs @p u only. No contact acts on a
 *  prescribed dof, so nothing else enters. @since 0.1
 *  @param sys the system (borrowed; it must outlive every object made from it)
 *  @param t time
 *  @param u displacements, ndofs entries
 *  @param v velocities, ndofs entries (NULL: no damping term)
 *  @param a accelerations, ndofs entries (NULL: no inertia term)
 *  @param r receives the reaction at each fixed dof (never NULL, even without fixed dofs)
 *  @return FCD_OK, or FCD_E_CALLBACK, FCD_E_INVALID_ARG (a NULL u or r, an entry of u, v or
 *      a that is not finite, a reaction that overflows: r is then unchanged), FCD_E_NOMEM,
 *      FCD_E_BACKEND (an MPI error on a distributed system) */
FCD_API fcd_status fcd_system_support_reactions(fcd_system *sys, fcd_real t,
                                                const fcd_real *u, const fcd_real *v,
                                                const fcd_real *a, fcd_real *r);

/** Checks that matrix @p which restricted to the free dofs is symmetric positive
 *  definite by factoring it (CHOLMOD). FCD_OK, or FCD_E_NOT_SPD with the failing
 *  column in the message, FCD_E_INVALID_ARG if it is not stored symmetric and
 *  numerically asymmetric, FCD_E_STATE if the matrix was never set.
 *  @param sys the system (borrowed; it must outlive every object made from it)
 *  @param which which matrix (FCD_MASS, FCD_DAMPING or FCD_STIFFNESS)
 *  @return FCD_OK, or FCD_E_BACKEND, FCD_E_INVALID_ARG, FCD_E_NOMEM, FCD_E_NOT_SPD,
 *      FCD_E_SINGULAR, FCD_E_STATE
 *  @since 0.1 */
FCD_API fcd_status fcd_system_check_spd(fcd_system *sys, fcd_matrix_kind which);

/** Lowest @p nev undamped natural modes on the free dofs: K phi = omega^2 M phi, a
 *  generalized symmetric eigenproblem solved by SLEPc with shift-and-invert.
 *  @p omega2 (nev entries) receives omega^2 increasing (the frequency in Hz is
 *  sqrt(omega^2) / 2 pi); @p modes (may be NULL) ndofs x nev, mode j at
 *  modes[j * ndofs], M-normalized, zero on prescribed dofs. @p nconv receives the number
 *  found; fewer than @p nev returns FCD_E_NOT_CONVERGED (the values found are still
 *  written). @p nev larger than the number of free dofs is FCD_E_INVALID_ARG.
 *  @param sys the system (borrowed; it must outlive every object made from it)
 *  @param nev number of modes wanted
 *  @param omega2 receives the squared circular frequencies, ascending
 *  @param modes receives the mode shapes, ndofs per mode (may be NULL)
 *  @param nconv receives the number of modes found
 *  @return FCD_OK, or FCD_E_BACKEND, FCD_E_INVALID_ARG, FCD_E_NOMEM, FCD_E_NOT_CONVERGED,
 *      FCD_E_STATE, FCD_E_UNSUPPORTED
 *  @since 0.1 */
FCD_API fcd_status fcd_system_natural_modes(fcd_system *sys, fcd_index nev,
                                            fcd_real *omega2, fcd_real *modes,
                                            fcd_index *nconv);

/** @name Distributed systems
 *  A host whose model is assembled on MPI ranks gives fcd its communicator and the rows
 *  each rank owns. The ranks own consecutive blocks in rank order (rank 0 from row 0,
 *  each next rank where the previous one ends, the last ending at ndofs; a block may be
 *  empty), PETSc's layout. Then:
 *  - matrices (COO, CSR or Matrix Market) hold, on each rank, the rows it owns, in the
 *    global numbering (columns anywhere); an entry on a row the rank does not own is
 *    FCD_E_INVALID_ARG (a Matrix Market file is read by rank 0, which sends each rank its
 *    rows; a PETSc binary file by every rank, each reading only its own rows). With
 *    FCD_COO_UPPER each rank gives the upper-triangle entries of its rows;
 *  - everything else is replicated: every rank gives the same prescribed dofs, loads,
 *    contact sets and parameters, in the global numbering, and receives whole results
 *    (displacements of all ndofs, all reactions). The contact problem, small next to
 *    the model, is solved redundantly on every rank from identical data (no broadcast);
 *    a solve checks that the replicated data agree and fails on every rank when they
 *    do not;
 *  - factorizations of the free operator are MUMPS Cholesky factorizations through
 *    PETSc, distributed over the communicator;
 *  - every call that solves (and fcd_system_apply) is collective: all ranks call it
 *    together; a failure on one rank is reported on all (that rank's message names the
 *    cause, the others name that rank).
 *  Distributed: static and steady-sliding equilibria (fcd/fcd_equilibrium.h), the
 *  integrators, all four schemes (fcd/fcd_integrator.h; each step, the energy ledger and
 *  the observer are collective, and an observer that stops one rank stops all), and
 *  reductions, by components: each rank's rows reduced on that rank (fcd/fcd_reduction.h). The
 *  stability analysis (which has its own communicator, fcd_stability_set_communicator,
 *  on a replicated system) and natural modes refuse a distributed system with
 *  FCD_E_UNSUPPORTED.
 *  @{ */
#define FCD_COMM_SERIAL (-1) /**< no communicator: serial (the default) */

/** Distributes @p sys over the communicator @p mpi_comm_f (its Fortran handle,
 *  MPI_Comm_c2f(comm): no MPI type enters fcd's headers; Open MPI gives MPI_COMM_WORLD
 *  the handle 0); this rank owns rows [@p row_begin, @p row_end). Collective: every rank
 *  calls it with the same ndofs before any matrix is set, and every rank receives the
 *  same status (ranges that overlap or leave rows to no rank, different ndofs on
 *  different ranks, a matrix already set on some rank: each named in the message).
 *  FCD_COMM_SERIAL makes the system serial again (before any matrix). MPI must be
 *  initialized by the host. fcd duplicates the communicator (its messages never meet
 *  the host's) and frees the duplicate with the system, or when it is made serial
 *  again.
 *  @param sys the system
 *  @param mpi_comm_f the communicator's Fortran handle, or FCD_COMM_SERIAL
 *  @param row_begin first row this rank owns
 *  @param row_end one past the last row this rank owns
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_STATE (MPI not initialized, matrices
 *      already set), FCD_E_NOMEM, FCD_E_BACKEND (an MPI error)
 *  @since 0.1 */
FCD_API fcd_status fcd_system_set_distribution(fcd_system *sys, int64_t mpi_comm_f,
                                               fcd_index row_begin, fcd_index row_end);

/** This rank's place in the distribution: rank, number of ranks and owned rows (0, 1
 *  and [0, ndofs) for a serial system). Any output may be NULL.
 *  @param sys the system
 *  @param rank receives this rank's number
 *  @param nranks receives the number of ranks
 *  @param row_begin receives the first owned row
 *  @param row_end receives one past the last owned row
 *  @return FCD_OK, or FCD_E_INVALID_ARG for a bad handle
 *  @since 0.1 */
FCD_API fcd_status fcd_system_get_distribution(const fcd_system *sys, int *rank,
                                               int *nranks, fcd_index *row_begin,
                                               fcd_index *row_end);
/** @} */

FCD_END_DECLS

#endif /* FCD_SYSTEM_H */
