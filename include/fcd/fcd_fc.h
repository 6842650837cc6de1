/** @file fcd/fcd_fc.h
 *  @brief One-step discrete frictional contact problems and their solvers.
 *
 *  Local form: find r, u with u = W r + q and, for every contact c, (r_c, u_c)
 *  satisfying Signorini and Coulomb in fcd's convention (fcd/fcd_contact.h), written
 *  with De Saxce's modified velocity as a cone complementarity.
 *  Global form: M v = H r + f, u = H^T v + w (M SPD, ndofs x ndofs; H ndofs x dim*nc),
 *  reduced to the local form with the Delassus operator W = H^T M^-1 H and
 *  q = H^T M^-1 f + w, assembled only when a solver needs it.
 *
 *  Accuracy is measured as Siconos does: the norm of the natural-map residual over all
 *  contacts (fcd_natural_map) divided by ||q||, with one difference: Siconos divides by 1
 *  when ||q|| < DBL_EPSILON, fcd only when q = 0 (whose answer r = 0 has a residual of
 *  exactly 0). A problem in small units (||q|| = 1e-18) is then judged relative to its
 *  own scale, where Siconos' figure called r = 0 converged whatever the answer. */
#ifndef FCD_FC_H
#define FCD_FC_H

#include <fcd/fcd_certificate.h>
#include <fcd/fcd_common.h>
#include <fcd/fcd_status.h>
#include <fcd/fcd_system.h>

FCD_BEGIN_DECLS

/** Opaque frictional contact problem (local or global). */
typedef struct fcd_fc_problem fcd_fc_problem;

/** Solvers (values of FCD_FC_PARAM_SOLVER). */
typedef enum {
  FCD_FC_AUTO = 0,        /**< NSGS while its measured rates predict convergence within
                               800 sweeps, else an ADMM probe and the proximal point
                               from the caller's guess, then Newton from it, then
                               ADMM, then NSGS (docs/contact.md) */
  FCD_FC_FIXED_POINT = 1, /**< projected fixed point with diagonal augmentation
                               parameters (seed 003, eqs. 14-15): Jacobi sweeps */
  FCD_FC_NSGS = 2,        /**< nonsmooth Gauss-Seidel, exact local solve per contact */
  FCD_FC_NEWTON = 3,      /**< semismooth Newton on the Alart-Curnier function with
                               a nonmonotone Armijo line search */
  FCD_FC_ADMM = 4,        /**< ADMM on the De Saxce-shifted convex problem, the cone
                               as its second block, penalty by residual balancing (one
                               sparse Cholesky of W + rho I per penalty) */
  FCD_FC_PROX = 5         /**< proximal point: Newton on W + sigma I, sigma adapted to
                               the progress (robust where W is rank deficient) */
} fcd_fc_solver;

/** Parameter keys of fcd_fc_problem_set_param. */
enum {
  FCD_FC_PARAM_SOLVER = 300,    /**< an fcd_fc_solver value; default FCD_FC_AUTO */
  FCD_FC_PARAM_TOLERANCE = 301, /**< target residual (Siconos measure); default 1e-8 */
  FCD_FC_PARAM_MAX_ITER = 302,  /**< iteration cap (sweeps / Newton steps); default 10000 */
  FCD_FC_PARAM_RELAXATION = 303 /**< fixed point: scale omega of the augmentation
                                     parameters rho_i = omega / sum_j |W_ij|, in (0, 2);
                                     default 1 */
};

/** Local problem u = W r + q on @p ncontacts contacts in dimension @p dim (2 or 3). W is
 *  m x m (m = dim * ncontacts) in CSR (strictly increasing columns per row), @p q has m
 *  entries and @p mu ncontacts entries (>= 0). Everything is copied.
 *  @param dim local dimension: 2 (normal, tangent) or 3 (normal and two tangents)
 *  @param ncontacts number of contacts
 *  @param w_rowptr CSR row pointers of W (m + 1 entries, m = dim ncontacts), copied
 *  @param w_col CSR column indices of W, copied
 *  @param w_val CSR values of W, copied
 *  @param q free velocity q, m entries, copied
 *  @param mu ncontacts friction coefficients, copied
 *  @param out receives the new problem, owned by the caller (fcd_fc_problem_destroy); NULL
 *      on failure
 *  @param errbuf receives a message on failure (may be NULL)
 *  @param errcap capacity of errbuf in bytes
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_NOMEM
 *  @since 0.1 */
FCD_API fcd_status fcd_fc_problem_create_local(int dim, fcd_index ncontacts,
                                               const fcd_index *w_rowptr,
                                               const fcd_index *w_col,
                                               const fcd_real *w_val, const fcd_real *q,
                                               const fcd_real *mu, fcd_fc_problem **out,
                                               char *errbuf, size_t errcap);

/** Global problem: M (ndofs x ndofs, CSR, SPD; FCD_COO_UPPER or FCD_COO_FULL storage)
 *  and H (ndofs rows, dim * ncontacts columns, CSR), f (ndofs), w (dim * ncontacts) and
 *  mu (ncontacts). Everything is copied. On failure of either create function,
 *  @p errbuf (may be NULL) receives the message naming the problem.
 *  @param dim local dimension: 2 (normal, tangent) or 3 (normal and two tangents)
 *  @param ndofs number of dofs of M
 *  @param ncontacts number of contacts
 *  @param m_rowptr CSR row pointers of M, copied
 *  @param m_col CSR column indices of M, copied
 *  @param m_val CSR values of M, copied
 *  @param m_flags FCD_COO_FULL or FCD_COO_UPPER: the storage of M
 *  @param h_rowptr CSR row pointers of H (ndofs x m), copied
 *  @param h_col CSR column indices of H, copied
 *  @param h_val CSR values of H, copied
 *  @param f force vector f, ndofs entries, copied
 *  @param w local offset w, m entries, copied
 *  @param mu ncontacts friction coefficients, copied
 *  @param out receives the new problem, owned by the caller (fcd_fc_problem_destroy); NULL
 *      on failure
 *  @param errbuf receives a message on failure (may be NULL)
 *  @param errcap capacity of errbuf in bytes
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_NOMEM
 *  @since 0.1 */
FCD_API fcd_status fcd_fc_problem_create_global(
    int dim, fcd_index ndofs, fcd_index ncontacts, const fcd_index *m_rowptr,
    const fcd_index *m_col, const fcd_real *m_val, unsigned m_flags,
    const fcd_index *h_rowptr, const fcd_index *h_col, const fcd_real *h_val,
    const fcd_real *f, const fcd_real *w, const fcd_real *mu, fcd_fc_problem **out,
    char *errbuf, size_t errcap);

/** Reads an fclib HDF5 file (local or global problem, with its stored solution if any),
 *  converting fclib's sign convention to fcd's. The file is validated before the fclib
 *  library reads it (that library ends the process on HDF5 errors).
 *  @return FCD_OK, or FCD_E_INVALID_ARG (NULL arguments), FCD_E_NOMEM, FCD_E_IO (cannot
 *  open), FCD_E_FORMAT (not HDF5, missing dataset,
 *  inconsistent sizes or indices), FCD_E_UNSUPPORTED (equality constraints). On
 *  failure @p errbuf (may be NULL) receives the message.
 *  @param path fclib HDF5 file
 *  @param out receives the new problem, owned by the caller; NULL on failure
 *  @param errbuf receives a message on failure (may be NULL)
 *  @param errcap capacity of errbuf in bytes
 *  @since 0.1 */
FCD_API fcd_status fcd_fc_problem_read_fclib(const char *path, fcd_fc_problem **out,
                                             char *errbuf, size_t errcap);

/** Writes the problem (and, when @p r is not NULL, the solution r, u(, v) computed from
 *  it) as an fclib HDF5 file, in fclib's sign convention.
 *  @param p the contact problem
 *  @param path fclib HDF5 file to write (replaced)
 *  @param r a solution to store with the problem, m entries, or NULL
 *  @return FCD_OK, or FCD_E_BACKEND, FCD_E_INVALID_ARG, FCD_E_IO, FCD_E_NOMEM,
 *      FCD_E_NOT_SPD, FCD_E_SINGULAR, FCD_E_STATE
 *  @since 0.1 */
FCD_API fcd_status fcd_fc_problem_write_fclib(fcd_fc_problem *p, const char *path,
                                              const fcd_real *r);

/** Destroys the problem. NULL-safe.
 *  @param p the problem, or NULL
 *  @since 0.1 */
FCD_API void fcd_fc_problem_destroy(fcd_fc_problem *p);

/** Message of the last failing call on @p p; never NULL.
 *  @param p the problem (NULL or invalid: a fixed text says so)
 *  @return the message of the last failure on p, owned by p, valid until its next call
 *  @since 0.1 */
FCD_API const char *fcd_fc_problem_last_error(const fcd_fc_problem *p);

/** Dimension of the contacts (2 or 3); 0 for an invalid handle.
 *  @param p the problem
 *  @return the local dimension, 2 or 3; 0 for NULL or an invalid handle
 *  @since 0.1 */
FCD_API int fcd_fc_problem_dim(const fcd_fc_problem *p);
/** Number of contacts; -1 for an invalid handle.
 *  @param p the problem
 *  @return the number of contacts; -1 for NULL or an invalid handle
 *  @since 0.1 */
FCD_API fcd_index fcd_fc_problem_size(const fcd_fc_problem *p);
/** Number of global dofs: 0 for a local problem, -1 for an invalid handle.
 *  @param p the problem
 *  @return the number of dofs of a global problem, 0 for a local one; -1 for NULL or an
 *      invalid handle
 *  @since 0.1 */
FCD_API fcd_index fcd_fc_problem_ndofs(const fcd_fc_problem *p);

/** Sets a parameter (FCD_FC_PARAM_*). Unknown keys: FCD_E_UNSUPPORTED.
 *  @param p the contact problem
 *  @param key parameter key (see the keys listed above)
 *  @param value its value
 *  @return FCD_OK, or FCD_E_INTERNAL, FCD_E_INVALID_ARG, FCD_E_UNSUPPORTED
 *  @since 0.1 */
FCD_API fcd_status fcd_fc_problem_set_param(fcd_fc_problem *p, int key, fcd_real value);

/** Solves the problem. @p r (dim * ncontacts) holds the initial guess on entry (zeros are
 *  a fine guess) and the solution on success; @p u (may be NULL) receives the local
 *  velocity and @p v (may be NULL; global problems only, ndofs) the global one. On
 *  FCD_E_NOT_CONVERGED the caller's buffers are left untouched; the residual reached is
 *  given by fcd_fc_problem_get_result and the last iterate by
 *  fcd_fc_problem_get_iterate.
 *  @param p the contact problem
 *  @param r in: the initial guess; out: the reactions, m entries
 *  @param u receives the local velocities, m entries (may be NULL)
 *  @param v receives the global velocities of a global problem, ndofs entries (may be NULL)
 *  @return FCD_OK, or FCD_E_BACKEND, FCD_E_INTERNAL, FCD_E_INVALID_ARG, FCD_E_NOMEM,
 *      FCD_E_NOT_CONVERGED, FCD_E_NOT_SPD, FCD_E_SINGULAR, FCD_E_STATE, FCD_E_UNSUPPORTED
 *  @since 0.1 */
FCD_API fcd_status fcd_fc_problem_solve(fcd_fc_problem *p, fcd_real *r, fcd_real *u,
                                        fcd_real *v);

/** The certificate of the last successful solve (docs/conventions.md, "Certificates"):
 *  the law checked per contact on u = W r + q recomputed from r (velocity level), with
 *  the velocity scale the largest |q| or |u| entry and the impulse scale the largest |r|
 *  entry, or the velocity scale over the largest diagonal entry of W when larger. A
 *  solve whose solver reports convergence but whose certificate exceeds
 *  max(1e-8, 10 FCD_FC_PARAM_TOLERANCE) returns FCD_E_NOT_CONVERGED.
 *  @return FCD_OK, FCD_E_STATE before a successful solve, FCD_E_INVALID_ARG for a bad
 *      handle or a NULL @p cert
 *  @since 0.1
 *  @param p the contact problem
 *  @param cert receives the certificate */
FCD_API fcd_status fcd_fc_problem_get_certificate(const fcd_fc_problem *p,
                                                  fcd_certificate *cert);

/** Iterations, residual (Siconos measure) and wall-clock seconds of the last solve.
 *  @param p the contact problem
 *  @param iterations receives the iterations of the last solve (may be NULL)
 *  @param residual receives its residual (may be NULL)
 *  @param seconds receives its wall time (may be NULL)
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_STATE
 *  @since 0.1 */
FCD_API fcd_status fcd_fc_problem_get_result(const fcd_fc_problem *p, fcd_index *iterations,
                                             fcd_real *residual, fcd_real *seconds);

/** The last iterate of the last solve (converged or not), dim * ncontacts entries.
 *  @param p the contact problem
 *  @param r receives the last iterate, m entries
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_STATE
 *  @since 0.1 */
FCD_API fcd_status fcd_fc_problem_get_iterate(const fcd_fc_problem *p, fcd_real *r);

/** Residual (Siconos measure) of a given reaction vector @p r.
 *  @param p the contact problem
 *  @param r reactions to evaluate, m entries
 *  @param residual receives Siconos' relative residual of r
 *  @return FCD_OK, or FCD_E_BACKEND, FCD_E_INVALID_ARG, FCD_E_NOMEM, FCD_E_NOT_SPD,
 *      FCD_E_SINGULAR, FCD_E_STATE
 *  @since 0.1 */
FCD_API fcd_status fcd_fc_problem_residual(fcd_fc_problem *p, const fcd_real *r,
                                           fcd_real *residual);

/** Number of stored entries of the local operator W (for a global problem the Delassus
 *  operator, assembled by this call if needed).
 *  @param p the contact problem
 *  @param nnz receives the number of stored entries of W
 *  @return FCD_OK, or FCD_E_BACKEND, FCD_E_INVALID_ARG, FCD_E_NOMEM, FCD_E_NOT_SPD,
 *      FCD_E_SINGULAR, FCD_E_STATE
 *  @since 0.1 */
FCD_API fcd_status fcd_fc_problem_local_nnz(fcd_fc_problem *p, fcd_index *nnz);

/** Copies the local form u = W r + q in fcd's convention: W in CSR (row_ptr: m + 1,
 *  col/val: fcd_fc_problem_local_nnz entries), q (m = dim * ncontacts) and the friction
 *  coefficients mu (ncontacts); any output may be NULL.
 *  @param p the contact problem
 *  @param w_rowptr receives W row pointers (m + 1 entries; may be NULL)
 *  @param w_col receives W column indices (nnz entries; may be NULL)
 *  @param w_val receives W values (nnz entries; may be NULL)
 *  @param q receives q, m entries (may be NULL)
 *  @param mu receives the friction coefficients (may be NULL)
 *  @return FCD_OK, or FCD_E_BACKEND, FCD_E_INVALID_ARG, FCD_E_NOMEM, FCD_E_NOT_SPD,
 *      FCD_E_SINGULAR, FCD_E_STATE
 *  @since 0.1 */
FCD_API fcd_status fcd_fc_problem_get_local(fcd_fc_problem *p, fcd_index *w_rowptr,
                                            fcd_index *w_col, fcd_real *w_val, fcd_real *q,
                                            fcd_real *mu);

/** 1 when the problem carries a reference solution (read from its fclib file), else 0.
 *  @param p the problem
 *  @return 1 when the problem carries a reference solution (fclib files may), else 0
 *  @since 0.1 */
FCD_API int fcd_fc_problem_has_solution(const fcd_fc_problem *p);
/** Copies the reference solution's reactions (dim * ncontacts) into @p r, in fcd's
 *  convention. FCD_E_STATE when the problem has none.
 *  @param p the contact problem
 *  @param r receives the stored solution, m entries
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_STATE
 *  @since 0.1 */
FCD_API fcd_status fcd_fc_problem_get_solution(const fcd_fc_problem *p, fcd_real *r);

FCD_END_DECLS

#endif /* FCD_FC_H */
