/* Internal interface of the frictional contact problems and solvers. */
#ifndef FCD_FC_PRIVATE_H
#define FCD_FC_PRIVATE_H

#include "fcd/fcd_contact.h"
#include "fcd/fcd_fc.h"
#include "fcd_private.h"

/* The local problem u = W r + q seen by the solvers (borrowed arrays). */
/* u = W r + q computed without W (solves with a factorization) */
typedef fcd_status (*fcd__fc_apply_fn)(void *ctx, const fcd_real *r, fcd_real *u);

typedef struct {
  int dim;
  fcd_index nc, m;
  const fcd__csr *W; /* full storage, m x m; NULL when only apply is available */
  const fcd_real *q;
  const fcd_real *mu;
  fcd__fc_apply_fn apply; /* used when W is NULL (the fixed point only) */
  void *ctx;
} fcd__fc_local;

typedef struct {
  int solver;
  fcd_real tol;
  fcd_index max_iter;
  fcd_real omega;
} fcd__fc_opts;

typedef struct {
  fcd_index iterations;
  fcd_real residual;
  int converged;
} fcd__fc_result;

/* The contact-solver options, validated once for every object that carries them
 * (contact problems, integrators). */
typedef enum { FCD__OPT_SOLVER, FCD__OPT_TOL, FCD__OPT_MAX_ITER, FCD__OPT_OMEGA } fcd__fc_opt;
fcd_status fcd__fc_opts_set(const fcd_system *sink, fcd__fc_opts *o, fcd__fc_opt which,
                            fcd_real value);

void fcd__fc_matvec(const fcd__fc_local *p, const fcd_real *r, fcd_real *u);
fcd_real fcd__fc_qnorm(const fcd__fc_local *p);
fcd_real fcd__fc_error(const fcd__fc_local *p, const fcd_real *r, const fcd_real *u);
/* Exact one-contact solve of u = a r + qh (a: d x d row-major, ainv its inverse or
 * NULL); 1 on success. */
int fcd__fc_local_exact(int d, const fcd_real *a, const fcd_real *ainv, const fcd_real *qh,
                        fcd_real mu, fcd_real *r);
/* Runs the chosen solver from the guess in r; r, u hold the last iterate and res says
 * whether it converged. Returns an error status only for failures other than
 * non-convergence. */
fcd_status fcd__fc_solve(fcd_system *sink, const fcd__fc_local *p, const fcd__fc_opts *o,
                         fcd_real *r, fcd_real *u, fcd__fc_result *res);

/* fclib files, read into plain arrays (fcd's convention after the one sign flip). */
typedef struct {
  int dim;
  fcd_index nc, m, ndofs; /* ndofs 0 for a local problem */
  /* triplets: W (local, m x m) or M (global, ndofs x ndofs) and H (ndofs x m) */
  fcd_index nw, nm, nh;
  fcd_index *wi, *wj, *mi, *mj, *hi, *hj;
  fcd_real *wv, *mv, *hv;
  fcd_real *q, *f, *w, *mu;
  fcd_real *sol_r; /* NULL when the file stores no solution */
} fcd__fclib_data;

fcd_status fcd__fclib_read(const char *path, fcd__fclib_data *d, char *errbuf, size_t cap);
void fcd__fclib_data_free(fcd__fclib_data *d);
/* Writes W (or M and H) given in CSR, with the sign flip to fclib's convention. */
fcd_status fcd__fclib_write(const fcd_system *sink, const char *path, int dim,
                            fcd_index nc, const fcd__csr *W, const fcd_real *q,
                            const fcd__csr *M, const fcd__csr *H, fcd_index ndofs,
                            const fcd_real *f, const fcd_real *w, const fcd_real *mu,
                            const fcd_real *r, const fcd_real *u, const fcd_real *v);

/* Tests only: the largest number of contact directions for which an integrator keeps
 * the Delassus operator of every contact across steps (0: never, per-step operators). */
struct fcd_integrator;
void fcd__integrator_set_wall_limit(struct fcd_integrator *it, fcd_index limit);

#endif
