/* Frictional contact problems: local and global forms, the Delassus operator, solve. */
#include "fc_private.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define FCD_FC_MAGIC 0x66636670u /* "fcfp" */

struct fcd_fc_problem {
  uint32_t magic;
  fcd_system *sys; /* error sink; for a global problem it also holds M as its mass */
  int dim;
  fcd_index nc, m, ndofs;
  int global;
  fcd__csr W; /* local operator (given, or the Delassus operator once assembled) */
  fcd_real *q;
  fcd_real *mu;
  fcd__csr H; /* global: ndofs rows, m columns */
  fcd_real *f, *w;
  fcd__factor *mfac;
  fcd_real *sol_r;
  fcd__fc_opts opts;
  fcd__fc_result last;
  fcd_real last_seconds;
  int have_result; /* a solve ran (converged or not): last, last_r are meaningful */
  fcd_real *last_r;
  fcd_certificate cert; /* of the last successful solve */
  int have_cert;
  fcd__fc_ws ws;  /* the solvers' buffers, kept across solves (W never changes) */
  fcd_real *uw;   /* u of a solve, m entries, kept likewise */
};

static int valid(const fcd_fc_problem *p) { return p && p->magic == FCD_FC_MAGIC; }

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void fcd_fc_problem_destroy(fcd_fc_problem *p) {
  if (!valid(p)) return;
  fcd__factor_destroy(p->mfac);
  fcd__csr_clear(&p->W);
  fcd__csr_clear(&p->H);
  fcd__free(p->q);
  fcd__free(p->mu);
  fcd__free(p->f);
  fcd__free(p->w);
  fcd__free(p->sol_r);
  fcd__free(p->last_r);
  fcd__fc_ws_clear(&p->ws);
  fcd__free(p->uw);
  fcd_system_destroy(p->sys);
  p->magic = 0;
  fcd__free(p);
}

const char *fcd_fc_problem_last_error(const fcd_fc_problem *p) {
  if (!p) return "no problem (NULL handle)";
  if (!valid(p)) return "invalid problem handle";
  return fcd_system_last_error(p->sys);
}

int fcd_fc_problem_dim(const fcd_fc_problem *p) { return valid(p) ? p->dim : 0; }
fcd_index fcd_fc_problem_size(const fcd_fc_problem *p) { return valid(p) ? p->nc : -1; }
fcd_index fcd_fc_problem_ndofs(const fcd_fc_problem *p) { return valid(p) ? p->ndofs : -1; }

static void copy_err(const fcd_system *sys, char *errbuf, size_t cap, const char *fallback) {
  if (!errbuf || !cap) return;
  snprintf(errbuf, cap, "%s", sys ? fcd_system_last_error(sys) : fallback);
}

/* Allocates the shell with its error sink and the vectors common to both forms. */
static fcd_status shell(int dim, fcd_index nc, fcd_index ndofs, fcd_fc_problem **out,
                        char *errbuf, size_t cap) {
  *out = NULL;
  if (dim != 2 && dim != 3) {
    return fcd__err_to(NULL, errbuf, cap, FCD_E_INVALID_ARG, "dimension %d is not 2 or 3", dim);
  }
  if (nc < 0 || ndofs < 0) {
    return fcd__err_to(NULL, errbuf, cap, FCD_E_INVALID_ARG,
                       "negative size (%lld contacts, %lld dofs)", (long long)nc,
                       (long long)ndofs);
  }
  fcd_fc_problem *p = fcd__calloc(1, sizeof *p);
  fcd_index m = dim * nc;
  fcd_index nsys = ndofs > 0 ? ndofs : (m > 0 ? m : 1);
  if (!p || fcd_system_create(nsys, &p->sys) != FCD_OK) {
    fcd__free(p);
    return fcd__err_to(NULL, errbuf, cap, FCD_E_NOMEM, "out of memory");
  }
  p->magic = FCD_FC_MAGIC;
  p->dim = dim;
  p->nc = nc;
  p->m = m;
  p->ndofs = ndofs;
  p->opts = fcd__fc_opts_default(1e-8);
  p->q = fcd__calloc((size_t)m, sizeof *p->q);
  p->mu = fcd__calloc((size_t)nc, sizeof *p->mu);
  p->last_r = fcd__calloc((size_t)m, sizeof *p->last_r);
  if (!p->q || !p->mu || !p->last_r) {
    fcd_fc_problem_destroy(p);
    return fcd__err_to(NULL, errbuf, cap, FCD_E_NOMEM, "out of memory");
  }
  *out = p;
  return FCD_OK;
}

static fcd_status check_vec(const fcd_system *sys, const char *name, fcd_index n,
                            const fcd_real *x, int nonneg) {
  if (n > 0 && !x) return fcd__err(sys, FCD_E_INVALID_ARG, "%s is NULL", name);
  for (fcd_index i = 0; i < n; i++) {
    if (!isfinite(x[i]))
      return fcd__err(sys, FCD_E_INVALID_ARG, "%s[%lld] is not finite", name, (long long)i);
    if (nonneg && x[i] < 0)
      return fcd__err(sys, FCD_E_INVALID_ARG, "%s[%lld] = %g is negative", name,
                      (long long)i, x[i]);
  }
  return FCD_OK;
}

/* Copies a CSR matrix of nrows rows with columns in [0, ncols). */
static fcd_status copy_csr(const fcd_system *sys, const char *name, fcd_index nrows,
                           fcd_index ncols, const fcd_index *rp, const fcd_index *ci,
                           const fcd_real *v, fcd__csr *out) {
  if (!rp) return fcd__err(sys, FCD_E_INVALID_ARG, "%s: row pointer is NULL", name);
  if (rp[0] != 0) return fcd__err(sys, FCD_E_INVALID_ARG, "%s: row_ptr[0] must be 0", name);
  for (fcd_index i = 0; i < nrows; i++) {
    if (rp[i + 1] < rp[i])
      return fcd__err(sys, FCD_E_INVALID_ARG, "%s: row_ptr decreases at row %lld", name,
                      (long long)i);
  }
  fcd_index nnz = rp[nrows];
  if (nnz > 0 && (!ci || !v))
    return fcd__err(sys, FCD_E_INVALID_ARG, "%s: %s is NULL", name, !ci ? "columns" : "values");
  for (fcd_index i = 0; i < nrows; i++)
    for (fcd_index k = rp[i]; k < rp[i + 1]; k++) {
      if (ci[k] < 0 || ci[k] >= ncols)
        return fcd__err(sys, FCD_E_INVALID_ARG,
                        "%s: column %lld of row %lld outside [0, %lld)", name,
                        (long long)ci[k], (long long)i, (long long)ncols);
      if (k > rp[i] && ci[k] <= ci[k - 1])
        return fcd__err(sys, FCD_E_INVALID_ARG,
                        "%s: columns of row %lld not strictly increasing", name, (long long)i);
      if (!isfinite(v[k]))
        return fcd__err(sys, FCD_E_INVALID_ARG, "%s: entry (%lld, %lld) is not finite", name,
                        (long long)i, (long long)ci[k]);
    }
  memset(out, 0, sizeof *out);
  out->n = nrows;
  out->rowptr = fcd__malloc_array((size_t)nrows + 1, sizeof(fcd_index));
  out->col = fcd__malloc_array((size_t)nnz, sizeof(fcd_index));
  out->val = fcd__malloc_array((size_t)nnz, sizeof(fcd_real));
  out->owned = 1;
  if (!out->rowptr || !out->col || !out->val) {
    fcd__csr_clear(out);
    return fcd__err(sys, FCD_E_NOMEM, "%s: out of memory", name);
  }
  memcpy(out->rowptr, rp, ((size_t)nrows + 1) * sizeof(fcd_index));
  if (nnz) {
    memcpy(out->col, ci, (size_t)nnz * sizeof(fcd_index));
    memcpy(out->val, v, (size_t)nnz * sizeof(fcd_real));
  }
  out->set = 1;
  /* every entry present: the kernels skip the column indices, as for a reduced model's
   * W in the integrator (fcd__csr_mark_dense would also keep |W|, m^2 more numbers) */
  out->dense = nrows == ncols && fcd__csr_is_full(out);
  return FCD_OK;
}

fcd_status fcd_fc_problem_create_local(int dim, fcd_index ncontacts,
                                       const fcd_index *w_rowptr, const fcd_index *w_col,
                                       const fcd_real *w_val, const fcd_real *q,
                                       const fcd_real *mu, fcd_fc_problem **out,
                                       char *errbuf, size_t errcap) {
  if (!out) {
    return fcd__err_to(NULL, errbuf, errcap, FCD_E_INVALID_ARG, "out is NULL");
  }
  *out = NULL;
  fcd_fc_problem *p;
  FCD_TRY(shell(dim, ncontacts, 0, &p, errbuf, errcap));
  fcd_status st = copy_csr(p->sys, "W", p->m, p->m, w_rowptr, w_col, w_val, &p->W);
  if (st == FCD_OK) st = check_vec(p->sys, "q", p->m, q, 0);
  if (st == FCD_OK) st = check_vec(p->sys, "mu", p->nc, mu, 1);
  if (st != FCD_OK) {
    copy_err(p->sys, errbuf, errcap, NULL);
    fcd_fc_problem_destroy(p);
    return st;
  }
  if (p->m) memcpy(p->q, q, (size_t)p->m * sizeof *q);
  if (p->nc) memcpy(p->mu, mu, (size_t)p->nc * sizeof *mu);
  *out = p;
  return FCD_OK;
}

fcd_status fcd_fc_problem_create_global(int dim, fcd_index ndofs, fcd_index ncontacts,
                                        const fcd_index *m_rowptr, const fcd_index *m_col,
                                        const fcd_real *m_val, unsigned m_flags,
                                        const fcd_index *h_rowptr, const fcd_index *h_col,
                                        const fcd_real *h_val, const fcd_real *f,
                                        const fcd_real *w, const fcd_real *mu,
                                        fcd_fc_problem **out, char *errbuf, size_t errcap) {
  if (!out) {
    return fcd__err_to(NULL, errbuf, errcap, FCD_E_INVALID_ARG, "out is NULL");
  }
  *out = NULL;
  if (ndofs <= 0) {
    return fcd__err_to(NULL, errbuf, errcap, FCD_E_INVALID_ARG,
                       "a global problem needs ndofs > 0");
  }
  fcd_fc_problem *p;
  FCD_TRY(shell(dim, ncontacts, ndofs, &p, errbuf, errcap));
  p->global = 1;
  fcd_status st = fcd_system_set_matrix_csr(p->sys, FCD_MASS, m_rowptr, m_col, m_val, m_flags,
                                            FCD_COPY);
  if (st == FCD_OK) st = copy_csr(p->sys, "H", ndofs, p->m, h_rowptr, h_col, h_val, &p->H);
  if (st == FCD_OK) st = check_vec(p->sys, "f", ndofs, f, 0);
  if (st == FCD_OK) st = check_vec(p->sys, "w", p->m, w, 0);
  if (st == FCD_OK) st = check_vec(p->sys, "mu", p->nc, mu, 1);
  if (st == FCD_OK) {
    p->f = fcd__malloc_array((size_t)ndofs, sizeof *p->f);
    p->w = fcd__malloc_array((size_t)p->m, sizeof *p->w);
    if (!p->f || !p->w) st = fcd__err(p->sys, FCD_E_NOMEM, "out of memory");
  }
  if (st != FCD_OK) {
    copy_err(p->sys, errbuf, errcap, NULL);
    fcd_fc_problem_destroy(p);
    return st;
  }
  memcpy(p->f, f, (size_t)ndofs * sizeof *f);
  if (p->m) memcpy(p->w, w, (size_t)p->m * sizeof *w);
  if (p->nc) memcpy(p->mu, mu, (size_t)p->nc * sizeof *mu);
  *out = p;
  return FCD_OK;
}

fcd_status fcd_fc_problem_set_param(fcd_fc_problem *p, int key, fcd_real value) {
  if (!valid(p)) return FCD_E_INVALID_ARG;
  switch (key) {
  case FCD_FC_PARAM_SOLVER: return fcd__fc_opts_set(p->sys, &p->opts, FCD__OPT_SOLVER, value);
  case FCD_FC_PARAM_TOLERANCE: return fcd__fc_opts_set(p->sys, &p->opts, FCD__OPT_TOL, value);
  case FCD_FC_PARAM_MAX_ITER:
    return fcd__fc_opts_set(p->sys, &p->opts, FCD__OPT_MAX_ITER, value);
  case FCD_FC_PARAM_RELAXATION:
    return fcd__fc_opts_set(p->sys, &p->opts, FCD__OPT_OMEGA, value);
  default:
    return fcd__err(p->sys, FCD_E_UNSUPPORTED, "unknown contact-problem parameter key %d", key);
  }
}

/* v = M^-1 (H r + f) with the factor of M (global problems): the one place the global
 * velocity is formed */
static fcd_status global_velocity(fcd_fc_problem *p, const fcd_real *r, fcd_real *v) {
  for (fcd_index i = 0; i < p->ndofs; i++) {
    fcd_real s = p->f[i];
    for (fcd_index k = p->H.rowptr[i]; k < p->H.rowptr[i + 1]; k++)
      s += p->H.val[k] * r[p->H.col[k]];
    v[i] = s;
  }
  return fcd__factor_solve(p->mfac, 1, v, v);
}

/* W = H^T M^-1 H and q = H^T M^-1 f + w, assembled once (columns of H in blocks, dense
 * solves with the CHOLMOD factor of M, exact zeros dropped so that a block-diagonal M
 * keeps W sparse). */
static fcd_status assemble_delassus(fcd_fc_problem *p) {
  if (p->W.set) return FCD_OK;
  fcd_system *sys = p->sys;
  fcd_status st;
  if (!p->mfac) {
    FCD_TRY(fcd__factor_create(sys, FCD__FACTOR_SPD, &p->mfac));
  }
  st = fcd__factor_combination(p->mfac, 1.0, 0.0, 0.0);
  if (st == FCD_E_NOT_SPD)
    return fcd__err(sys, st, "the mass matrix M of the global problem is not SPD (%s)",
                    "Cholesky failed");
  if (st != FCD_OK) return st;
  fcd_index n = p->ndofs, m = p->m, nnzh = p->H.rowptr[n];
  /* H^T in CSR (m rows over n) */
  fcd_index *ri = fcd__malloc_array((size_t)nnzh, sizeof *ri);
  fcd_index *ci = fcd__malloc_array((size_t)nnzh, sizeof *ci);
  fcd_index *htp = NULL, *htc = NULL;
  fcd_real *htv = NULL;
  fcd_real *tmp = fcd__malloc_array((size_t)n, sizeof *tmp);
  st = FCD_E_NOMEM;
  if (!ri || !ci || !tmp) goto done;
  for (fcd_index i = 0; i < n; i++)
    for (fcd_index k = p->H.rowptr[i]; k < p->H.rowptr[i + 1]; k++) {
      ri[k] = p->H.col[k];
      ci[k] = i;
    }
  {
    fcd_index big = n > m ? n : m;
    if (fcd__coo_to_csr(big, nnzh, ri, ci, p->H.val, &htp, &htc, &htv, NULL) != FCD_OK)
      goto done;
  }
  {
    fcd__csr HT = {m, htp, htc, htv, 0, 0, 1, 0, 0, NULL, 0};
    if ((st = fcd__delassus_sparse(sys, p->mfac, &p->H, &HT, &p->W)) != FCD_OK) goto done;
  }
  /* q = H^T M^-1 f + w */
  if ((st = fcd__factor_solve(p->mfac, 1, p->f, tmp)) != FCD_OK) goto done;
  for (fcd_index i = 0; i < m; i++) {
    fcd_real s = p->w[i];
    for (fcd_index k = htp[i]; k < htp[i + 1]; k++) s += htv[k] * tmp[htc[k]];
    p->q[i] = s;
  }
  st = FCD_OK;
done:
  fcd__free(ri);
  fcd__free(ci);
  fcd__free(htp);
  fcd__free(htc);
  fcd__free(htv);
  fcd__free(tmp);
  if (st == FCD_E_NOMEM) return fcd__err(sys, st, "out of memory assembling the Delassus operator");
  return st;
}

static fcd__fc_local local_view(fcd_fc_problem *p) {
  fcd__fc_local l = {p->dim, p->nc, p->m, &p->W, p->q, p->mu, NULL, NULL, &p->ws};
  return l;
}

/* u = H^T M^-1 (H r + f) + w: one solve with the factor of M, no Delassus operator */
typedef struct {
  fcd_fc_problem *p;
  fcd_real *v;
} mf_ctx;

static fcd_status mf_apply(void *ctx, const fcd_real *r, fcd_real *u) {
  mf_ctx *c = ctx;
  fcd_fc_problem *p = c->p;
  FCD_TRY(global_velocity(p, r, c->v));
  memcpy(u, p->w, (size_t)p->m * sizeof *u);
  for (fcd_index i = 0; i < p->ndofs; i++)
    for (fcd_index k = p->H.rowptr[i]; k < p->H.rowptr[i + 1]; k++)
      u[p->H.col[k]] += p->H.val[k] * c->v[i];
  return FCD_OK;
}

/* Factor M (once) and form q = H^T M^-1 f + w without the Delassus operator. */
static fcd_status prepare_matrix_free(fcd_fc_problem *p, mf_ctx *ctx) {
  if (!p->mfac) FCD_TRY(fcd__factor_create(p->sys, FCD__FACTOR_SPD, &p->mfac));
  fcd_status st = fcd__factor_combination(p->mfac, 1.0, 0.0, 0.0);
  if (st == FCD_E_NOT_SPD)
    return fcd__err(p->sys, st, "the mass matrix M of the global problem is not SPD");
  if (st != FCD_OK) return st;
  ctx->p = p;
  ctx->v = fcd__malloc_array((size_t)p->ndofs, sizeof *ctx->v);
  if (!ctx->v) return fcd__err(p->sys, FCD_E_NOMEM, "out of memory");
  fcd_real *zero = fcd__calloc((size_t)p->m, sizeof *zero);
  if (!zero) return fcd__err(p->sys, FCD_E_NOMEM, "out of memory");
  st = mf_apply(ctx, zero, p->q); /* r = 0 gives u = q */
  fcd__free(zero);
  return st;
}

fcd_status fcd_fc_problem_residual(fcd_fc_problem *p, const fcd_real *r, fcd_real *residual) {
  if (!valid(p)) return FCD_E_INVALID_ARG;
  if (!r || !residual)
    return fcd__err(p->sys, FCD_E_INVALID_ARG, "residual: %s is NULL", !r ? "r" : "residual");
  FCD_TRY(check_vec(p->sys, "r", p->m, r, 0));
  FCD_TRY(assemble_delassus(p));
  fcd_real *u = fcd__malloc_array((size_t)p->m, sizeof *u);
  if (!u) return fcd__err(p->sys, FCD_E_NOMEM, "out of memory");
  fcd__fc_local l = local_view(p);
  fcd__fc_matvec(&l, r, u);
  *residual = fcd__fc_error(&l, r, u);
  fcd__free(u);
  return FCD_OK;
}

/* The certificate of a solution (docs/conventions.md, "Certificates"): the law on
 * u = W r + q recomputed from r, velocity scale V the largest |q| or |u| entry, impulse
 * scale the largest |r| entry or, larger, V over the largest diagonal entry of W (when W
 * is assembled). The bound is ten times the solver tolerance, and never below 1e-8: the
 * solver's own figure is Siconos' normwise measure, this one is per contact. */
static fcd_status certify(fcd_fc_problem *p, const fcd_real *r, const fcd_real *u,
                          fcd_certificate *c) {
  fcd_real vs = 0, ps = 0, wmax = 0;
  for (fcd_index i = 0; i < p->m; i++) {
    vs = fcd__maxn(vs, fcd__maxn(fabs(p->q[i]), fabs(u[i])));
    ps = fcd__maxn(ps, fabs(r[i]));
  }
  if (p->W.set && p->W.dense)
    for (fcd_index i = 0; i < p->m; i++) wmax = fcd__maxn(wmax, p->W.val[i * p->m + i]);
  else if (p->W.set)
    for (fcd_index i = 0; i < p->m; i++)
      for (fcd_index k = p->W.rowptr[i]; k < p->W.rowptr[i + 1]; k++)
        if (p->W.col[k] == i) wmax = fcd__maxn(wmax, p->W.val[k]);
  if (wmax > 0) ps = fcd__maxn(ps, vs / wmax);
  fcd__certificate_init(c, ps, vs);
  fcd__certify_contacts(c, p->dim, p->nc, p->mu, u, r, NULL, NULL);
  if (fcd__certificate_check(c, fmax(1e-8, 10 * p->opts.tol))) return FCD_OK;
  char buf[256];
  fcd__certificate_format(c, buf, sizeof buf);
  return fcd__err(p->sys, FCD_E_NOT_CONVERGED, "the solver reported convergence (residual "
                  "%.3e) but the solution fails its certificate: %s", p->last.residual, buf);
}

fcd_status fcd_fc_problem_solve(fcd_fc_problem *p, fcd_real *r, fcd_real *u, fcd_real *v) {
  if (!valid(p)) return FCD_E_INVALID_ARG;
  if (!r) return fcd__err(p->sys, FCD_E_INVALID_ARG, "solve: r (initial guess) is NULL");
  if (v && !p->global)
    return fcd__err(p->sys, FCD_E_INVALID_ARG, "solve: v is only defined for a global problem");
  FCD_TRY(check_vec(p->sys, "initial guess r", p->m, r, 0));
  double t0 = now();
  /* The fixed point on a global problem is matrix-free: one solve with the factor of M
   * per iteration, no Delassus operator (unless another solver already built it). */
  int matrix_free = p->global && !p->W.set && p->opts.solver == FCD_FC_FIXED_POINT;
  mf_ctx ctx = {NULL, NULL};
  if (matrix_free) {
    fcd_status s0 = prepare_matrix_free(p, &ctx);
    if (s0 != FCD_OK) {
      fcd__free(ctx.v);
      return s0;
    }
  } else {
    FCD_TRY(assemble_delassus(p));
  }
  if (!p->uw) p->uw = fcd__malloc_array((size_t)p->m + 1, sizeof *p->uw);
  fcd_real *uw = p->uw;
  if (!uw) {
    fcd__free(ctx.v);
    return fcd__err(p->sys, FCD_E_NOMEM, "out of memory");
  }
  if (p->m) memcpy(p->last_r, r, (size_t)p->m * sizeof *r);
  fcd__fc_local l = local_view(p);
  if (matrix_free) {
    l.W = NULL;
    l.apply = mf_apply;
    l.ctx = &ctx;
  }
  fcd_status st = fcd__fc_solve(p->sys, &l, &p->opts, p->last_r, uw, &p->last);
  p->have_result = 1;
  fcd_certificate cert;
  if (st == FCD_OK && p->last.converged) {
    /* u recomputed from r, not the solver's */
    st = matrix_free ? mf_apply(&ctx, p->last_r, uw) : FCD_OK;
    if (!matrix_free && !p->last.u_fresh) fcd__fc_matvec(&l, p->last_r, uw);
    if (st == FCD_OK) st = certify(p, p->last_r, uw, &cert);
  }
  fcd__free(ctx.v);
  p->last_seconds = now() - t0;
  if (st == FCD_OK && !p->last.converged) {
    /* a stalled Newton or proximal point also reports its Alart-Curnier merit; auto
     * says which solvers it ran */
    char merit[64] = "", trail[256];
    if (p->last.merit > 0) snprintf(merit, sizeof merit, ", merit %.3e", p->last.merit);
    fcd__fc_trail(&p->last, trail, sizeof trail);
    st = fcd__err(p->sys, FCD_E_NOT_CONVERGED,
                  "contact solver did not reach %.3g in %lld iterations (residual %.3e%s)%s",
                  p->opts.tol, (long long)p->last.iterations, p->last.residual, merit, trail);
  }
  if (st == FCD_OK && v) st = global_velocity(p, p->last_r, v);
  if (st == FCD_OK) {
    p->cert = cert;
    p->have_cert = 1;
    if (p->m) memcpy(r, p->last_r, (size_t)p->m * sizeof *r);
    if (u && p->m) memcpy(u, uw, (size_t)p->m * sizeof *u);
  }
  return st;
}

fcd_status fcd_fc_problem_get_result(const fcd_fc_problem *p, fcd_index *iterations,
                                     fcd_real *residual, fcd_real *seconds) {
  if (!valid(p)) return FCD_E_INVALID_ARG;
  if (!p->have_result) return fcd__err(p->sys, FCD_E_STATE, "get_result: no solve yet");
  if (iterations) *iterations = p->last.iterations;
  if (residual) *residual = p->last.residual;
  if (seconds) *seconds = p->last_seconds;
  return FCD_OK;
}

fcd_status fcd_fc_problem_get_iterate(const fcd_fc_problem *p, fcd_real *r) {
  if (!valid(p)) return FCD_E_INVALID_ARG;
  if (!r) return fcd__err(p->sys, FCD_E_INVALID_ARG, "get_iterate: r is NULL");
  if (!p->have_result) return fcd__err(p->sys, FCD_E_STATE, "get_iterate: no solve yet");
  if (p->m) memcpy(r, p->last_r, (size_t)p->m * sizeof *r);
  return FCD_OK;
}

fcd_status fcd_fc_problem_local_nnz(fcd_fc_problem *p, fcd_index *nnz) {
  if (!valid(p)) return FCD_E_INVALID_ARG;
  if (!nnz) return fcd__err(p->sys, FCD_E_INVALID_ARG, "local_nnz: nnz is NULL");
  FCD_TRY(assemble_delassus(p));
  *nnz = p->W.rowptr[p->m];
  return FCD_OK;
}

fcd_status fcd_fc_problem_get_local(fcd_fc_problem *p, fcd_index *w_rowptr, fcd_index *w_col,
                                    fcd_real *w_val, fcd_real *q, fcd_real *mu) {
  if (!valid(p)) return FCD_E_INVALID_ARG;
  FCD_TRY(assemble_delassus(p));
  fcd_index nnz = p->W.rowptr[p->m];
  if (w_rowptr) memcpy(w_rowptr, p->W.rowptr, ((size_t)p->m + 1) * sizeof *w_rowptr);
  if (w_col && nnz) memcpy(w_col, p->W.col, (size_t)nnz * sizeof *w_col);
  if (w_val && nnz) memcpy(w_val, p->W.val, (size_t)nnz * sizeof *w_val);
  if (q && p->m) memcpy(q, p->q, (size_t)p->m * sizeof *q);
  if (mu && p->nc) memcpy(mu, p->mu, (size_t)p->nc * sizeof *mu);
  return FCD_OK;
}

int fcd_fc_problem_has_solution(const fcd_fc_problem *p) { return valid(p) && p->sol_r; }

fcd_status fcd_fc_problem_get_solution(const fcd_fc_problem *p, fcd_real *r) {
  if (!valid(p)) return FCD_E_INVALID_ARG;
  if (!r) return fcd__err(p->sys, FCD_E_INVALID_ARG, "get_solution: r is NULL");
  if (!p->sol_r) return fcd__err(p->sys, FCD_E_STATE, "the problem carries no stored solution");
  memcpy(r, p->sol_r, (size_t)p->m * sizeof *r);
  return FCD_OK;
}

/* ---- fclib ----------------------------------------------------------------------- */

/* CSR from validated triplets (rows x cols). */
static fcd_status triplets_to_csr(fcd_index rows, fcd_index cols, fcd_index nnz,
                                  const fcd_index *i, const fcd_index *j, const fcd_real *v,
                                  fcd__csr *out) {
  memset(out, 0, sizeof *out);
  fcd_index big = rows > cols ? rows : cols;
  if (fcd__coo_to_csr(big, nnz, i, j, v, &out->rowptr, &out->col, &out->val, NULL) != FCD_OK)
    return FCD_E_NOMEM;
  out->n = rows;
  out->owned = 1;
  out->set = 1;
  out->dense = rows == cols && fcd__csr_is_full(out);
  return FCD_OK;
}

fcd_status fcd_fc_problem_read_fclib(const char *path, fcd_fc_problem **out, char *errbuf,
                                     size_t errcap) {
  if (!out || !path) {
    return fcd__err_to(NULL, errbuf, errcap, FCD_E_INVALID_ARG, "%s is NULL",
                       !out ? "out" : "path");
  }
  *out = NULL;
  fcd__fclib_data d;
  FCD_TRY(fcd__fclib_read(path, &d, errbuf, errcap));
  fcd_fc_problem *p = NULL;
  fcd_status st = shell(d.dim, d.nc, d.ndofs, &p, errbuf, errcap);
  if (st != FCD_OK) goto fail;
  if (d.ndofs == 0) {
    st = triplets_to_csr(d.m, d.m, d.nw, d.wi, d.wj, d.wv, &p->W);
    if (st == FCD_OK && d.m) memcpy(p->q, d.q, (size_t)d.m * sizeof *d.q);
  } else {
    p->global = 1;
    fcd__csr mm;
    st = triplets_to_csr(d.ndofs, d.ndofs, d.nm, d.mi, d.mj, d.mv, &mm);
    if (st == FCD_OK) {
      mm.n = d.ndofs;
      st = fcd_system_set_matrix_csr(p->sys, FCD_MASS, mm.rowptr, mm.col, mm.val, FCD_COO_FULL,
                                     FCD_COPY);
      fcd__csr_clear(&mm);
      if (st != FCD_OK) copy_err(p->sys, errbuf, errcap, NULL);
    }
    if (st == FCD_OK) st = triplets_to_csr(d.ndofs, d.m, d.nh, d.hi, d.hj, d.hv, &p->H);
    if (st == FCD_OK) {
      p->f = d.f;
      p->w = d.w;
      d.f = d.w = NULL;
    }
  }
  if (st == FCD_OK && d.nc) memcpy(p->mu, d.mu, (size_t)d.nc * sizeof *d.mu);
  if (st == FCD_OK) {
    p->sol_r = d.sol_r;
    d.sol_r = NULL;
    *out = p;
    p = NULL;
  } else if (st == FCD_E_NOMEM) {
    fcd__err_to(NULL, errbuf, errcap, st, "%s: out of memory", path);
  }
fail:
  fcd_fc_problem_destroy(p);
  fcd__fclib_data_free(&d);
  return st;
}

fcd_status fcd_fc_problem_write_fclib(fcd_fc_problem *p, const char *path, const fcd_real *r) {
  if (!valid(p)) return FCD_E_INVALID_ARG;
  if (!path) return fcd__err(p->sys, FCD_E_INVALID_ARG, "write_fclib: path is NULL");
  fcd_real *u = NULL, *v = NULL;
  fcd_status st = FCD_OK;
  if (r) {
    FCD_TRY(check_vec(p->sys, "r", p->m, r, 0));
    FCD_TRY(assemble_delassus(p));
    u = fcd__malloc_array((size_t)p->m, sizeof *u);
    v = p->global ? fcd__malloc_array((size_t)p->ndofs, sizeof *v) : NULL;
    if (!u || (p->global && !v)) {
      st = fcd__err(p->sys, FCD_E_NOMEM, "out of memory");
      goto done;
    }
    fcd__fc_local l = local_view(p);
    fcd__fc_matvec(&l, r, u);
    if (p->global && (st = global_velocity(p, r, v)) != FCD_OK) goto done;
  }
  if (p->global) {
    st = fcd__fclib_write(p->sys, path, p->dim, p->nc, NULL, NULL, &p->sys->mat[FCD_MASS],
                          &p->H, p->ndofs, p->f, p->w, p->mu, r, u, v);
  } else {
    st = fcd__fclib_write(p->sys, path, p->dim, p->nc, &p->W, p->q, NULL, NULL, 0, NULL, NULL,
                          p->mu, r, u, NULL);
  }
done:
  fcd__free(u);
  fcd__free(v);
  return st;
}

fcd_status fcd_fc_problem_get_certificate(const fcd_fc_problem *p, fcd_certificate *cert) {
  if (!valid(p)) return FCD_E_INVALID_ARG;
  if (!cert) return fcd__err(p->sys, FCD_E_INVALID_ARG, "get_certificate: cert is NULL");
  if (!p->have_cert)
    return fcd__err(p->sys, FCD_E_STATE, "get_certificate: no successful solve yet");
  *cert = p->cert;
  return FCD_OK;
}
