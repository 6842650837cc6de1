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
 *  contacts (fcd_natural_map) divided by ||q|| (by 1 when ||q|| < DBL_EPSILON). */
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
  FCD_FC_AUTO = 0,        /**< NSGS while its measured rate predicts convergence within
                               5000 sweeps, else Newton from its iterate (then NSGS) */
  FCD_FC_FIXED_POINT = 1, /**< projected fixed point with diagonal augmentation
                               parameters (seed 003, eqs. 14-15): Jacobi sweeps */
  FCD_FC_NSGS = 2,        /**< nonsmooth Gauss-Seidel, exact local solve per contact */
  FCD_FC_NEWTON = 3       /**< semismooth Newton on the Alart-Curnier function with
                               an Armijo line search */
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
 *  entries and @p mu ncontacts entries (>= 0). Everything is copied. */
FCD_API fcd_status fcd_fc_problem_create_local(int dim, fcd_index ncontacts,
                                               const fcd_index *w_rowptr,
                                               const fcd_index *w_col,
                                               const fcd_real *w_val, const fcd_real *q,
                                               const fcd_real *mu, fcd_fc_problem **out,
                                               char *errbuf, size_t errcap);

/** Global problem: M (ndofs x ndofs, CSR, SPD; FCD_COO_UPPER or FCD_COO_FULL storage)
 *  and H (ndofs rows, dim * ncontacts columns, CSR), f (ndofs), w (dim * ncontacts) and
 *  mu (ncontacts). Everything is copied. On failure of either create function,
 *  @p errbuf (may be NULL) receives the message naming the problem. */
FCD_API fcd_status fcd_fc_problem_create_global(
    int dim, fcd_index ndofs, fcd_index ncontacts, const fcd_index *m_rowptr,
    const fcd_index *m_col, const fcd_real *m_val, unsigned m_flags,
    const fcd_index *h_rowptr, const fcd_index *h_col, const fcd_real *h_val,
    const fcd_real *f, const fcd_real *w, const fcd_real *mu, fcd_fc_problem **out,
    char *errbuf, size_t errcap);

/** Reads an fclib HDF5 file (local or global problem, with its stored solution if any),
 *  converting fclib's sign convention to fcd's. The file is validated before the fclib
 *  library reads it (that library ends the process on HDF5 errors).
 *  @return FCD_E_IO (cannot open), FCD_E_FORMAT (not HDF5, missing dataset,
 *  inconsistent sizes or indices), FCD_E_UNSUPPORTED (equality constraints). On
 *  failure @p errbuf (may be NULL) receives the message. */
FCD_API fcd_status fcd_fc_problem_read_fclib(const char *path, fcd_fc_problem **out,
                                             char *errbuf, size_t errcap);

/** Writes the problem (and, when @p r is not NULL, the solution r, u(, v) computed from
 *  it) as an fclib HDF5 file, in fclib's sign convention. */
FCD_API fcd_status fcd_fc_problem_write_fclib(fcd_fc_problem *p, const char *path,
                                              const fcd_real *r);

/** Destroys the problem. NULL-safe. */
FCD_API void fcd_fc_problem_destroy(fcd_fc_problem *p);

/** Message of the last failing call on @p p; never NULL. */
FCD_API const char *fcd_fc_problem_last_error(const fcd_fc_problem *p);

/** Dimension of the contacts (2 or 3); 0 for an invalid handle. */
FCD_API int fcd_fc_problem_dim(const fcd_fc_problem *p);
/** Number of contacts; -1 for an invalid handle. */
FCD_API fcd_index fcd_fc_problem_size(const fcd_fc_problem *p);
/** Number of global dofs: 0 for a local problem, -1 for an invalid handle. */
FCD_API fcd_index fcd_fc_problem_ndofs(const fcd_fc_problem *p);

/** Sets a parameter (FCD_FC_PARAM_*). Unknown keys: FCD_E_UNSUPPORTED. */
FCD_API fcd_status fcd_fc_problem_set_param(fcd_fc_problem *p, int key, fcd_real value);

/** Solves the problem. @p r (dim * ncontacts) holds the initial guess on entry (zeros are
 *  a fine guess) and the solution on success; @p u (may be NULL) receives the local
 *  velocity and @p v (may be NULL; global problems only, ndofs) the global one. On
 *  FCD_E_NOT_CONVERGED the caller's buffers are left untouched; the residual reached is
 *  given by fcd_fc_problem_get_result and the last iterate by
 *  fcd_fc_problem_get_iterate. */
FCD_API fcd_status fcd_fc_problem_solve(fcd_fc_problem *p, fcd_real *r, fcd_real *u,
                                        fcd_real *v);

/** The certificate of the last successful solve (docs/conventions.md, "Certificates"):
 *  the law checked per contact on u = W r + q recomputed from r (velocity level), with
 *  the velocity scale the largest |q| or |u| entry and the impulse scale the largest |r|
 *  entry, or the velocity scale over the largest diagonal entry of W when larger. A
 *  solve whose solver reports convergence but whose certificate exceeds
 *  max(1e-8, 10 FCD_FC_PARAM_TOLERANCE) returns FCD_E_NOT_CONVERGED.
 *  @return FCD_E_STATE before a successful solve @since 0.1 */
FCD_API fcd_status fcd_fc_problem_get_certificate(const fcd_fc_problem *p,
                                                  fcd_certificate *cert);

/** Iterations, residual (Siconos measure) and wall-clock seconds of the last solve. */
FCD_API fcd_status fcd_fc_problem_get_result(const fcd_fc_problem *p, fcd_index *iterations,
                                             fcd_real *residual, fcd_real *seconds);

/** The last iterate of the last solve (converged or not), dim * ncontacts entries. */
FCD_API fcd_status fcd_fc_problem_get_iterate(const fcd_fc_problem *p, fcd_real *r);

/** Residual (Siconos measure) of a given reaction vector @p r. */
FCD_API fcd_status fcd_fc_problem_residual(fcd_fc_problem *p, const fcd_real *r,
                                           fcd_real *residual);

/** Number of stored entries of the local operator W (for a global problem the Delassus
 *  operator, assembled by this call if needed). */
FCD_API fcd_status fcd_fc_problem_local_nnz(fcd_fc_problem *p, fcd_index *nnz);

/** Copies the local form u = W r + q in fcd's convention: W in CSR (row_ptr: m + 1,
 *  col/val: fcd_fc_problem_local_nnz entries), q (m = dim * ncontacts) and the friction
 *  coefficients mu (ncontacts); any output may be NULL. */
FCD_API fcd_status fcd_fc_problem_get_local(fcd_fc_problem *p, fcd_index *w_rowptr,
                                            fcd_index *w_col, fcd_real *w_val, fcd_real *q,
                                            fcd_real *mu);

/** 1 when the problem carries a reference solution (read from its fclib file), else 0. */
FCD_API int fcd_fc_problem_has_solution(const fcd_fc_problem *p);
/** Copies the reference solution's reactions (dim * ncontacts) into @p r, in fcd's
 *  convention. FCD_E_STATE when the problem has none. */
FCD_API fcd_status fcd_fc_problem_get_solution(const fcd_fc_problem *p, fcd_real *r);

FCD_END_DECLS

#endif /* FCD_FC_H */
