/* The state-dependent sweeping process of a lattice (seed 001): implicit catch-up, each
 * step a projection onto the moving set of admissible stresses, by Algorithm 1 (the
 * active-set system, sparse) or Algorithm 2 (the self-stress basis, dense). */
#include "lattice_private.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <float.h>
#include <string.h>

/* ---- the state-dependent sweeping process ----------------------------------------
 *
 * fcd steps Algorithm 1 of seed 001 in the full space, written in the stresses: with
 * sigma_el(t) the elastic stress of the constraints (K D u for the elastic response u)
 * and B the free-coordinate rows of the equilibrium matrix (B sigma = 0: no nodal force),
 * one evaluation of the catch-up map T(a~) is the projection
 *   min 1/2 (sigma - sigma_tr)' K^-1 (sigma - sigma_tr) + 1/2 |a - a_prev|^2
 *   s.t. B sigma = 0,  +-sigma_i - s_i a_i <= c0_i - s_i h_i a~_i  (i = 1..m)
 * with the trial stress sigma_tr = sigma_prev - sigma_el(t_prev) + sigma_el(t) (y =
 * sigma - sigma_el is the residual stress of Thm 4.1, which the projection keeps in the
 * self-stress space). T(a~) is the a of the solution.
 *
 * The QP is solved by a primal-dual active-set method. Why: the constraints are a pair
 * of half-planes per spring with a diagonal metric, so for a guessed active set A the
 * stationarity conditions give sigma = sigma_tr - K (B' mu + E_A' lambda) and
 * a = a_prev + S_A' lambda in closed form, and the multipliers solve the Schur system
 *   [B K B'   B K E_A'        ] [mu    ]   [B sigma_tr                     ]
 *   [E_A K B' E_A K E_A' + S S'] [lambda] = [E_A sigma_tr - S a_prev - c_A]
 * which is symmetric positive definite (B K B' is the stiffness of the free
 * coordinates, positive definite for a kinematically determinate lattice): one CHOLMOD
 * factorization per active-set guess, sparse (2d entries per spring row), no dense
 * m x m matrix. Successive steps and Picard iterations change few constraints, so the
 * previous active set is the warm start and one or two factorizations usually suffice.
 * The answer is exact to round-off (the fixed-point test needs ~1e-13); a semismooth
 * Newton on the dual would solve the same systems, and TAO would not exploit them. */

#define LAT_ALL 0x3
/* bound on the KKT residual of a committed step (the projection is exact to round-off,
 * about 1e-13) */
#define FCD__LAT_CERT_TOL 1e-8

static fcd_status lat_prepare(fcd_lattice *lat) {
  if (lat->ready) return FCD_OK;
  int d = lat->dim;
  fcd_index nd = lat->nn * d, m = lat->ns;
  if (m == 0) return fcd__lat_err(lat, FCD_E_STATE, "the lattice has no springs");
  lat->dir = fcd__malloc_array((size_t)(m * d), sizeof *lat->dir);
  if (!lat->dir) return fcd__lat_err(lat, FCD_E_NOMEM, "out of memory preparing the lattice solver");
  /* the free stiffness, its factor and the determinacy check, once */
  fcd_status st = fcd__lat_truss(lat, &lat->sys, &lat->kff, lat->dir);
  if (st != FCD_OK) {
    fcd__lat_drop_solver(lat);
    return st;
  }
  lat->el0 = fcd__calloc((size_t)m, sizeof *lat->el0);
  lat->el1 = fcd__calloc((size_t)m, sizeof *lat->el1);
  lat->sig = fcd__calloc((size_t)m, sizeof *lat->sig);
  lat->a = fcd__calloc((size_t)m, sizeof *lat->a);
  lat->p = fcd__calloc((size_t)m, sizeof *lat->p);
  lat->last_spr = fcd__calloc((size_t)m, sizeof *lat->last_spr);
  lat->last_aprev = fcd__calloc((size_t)m, sizeof *lat->last_aprev);
  lat->act = fcd__calloc((size_t)m, 1);
  lat->uc = fcd__calloc((size_t)lat->nq + 1, sizeof *lat->uc);
  lat->last_ff = fcd__calloc((size_t)nd + 1, sizeof *lat->last_ff);
  fcd_real *z = fcd__calloc((size_t)nd, sizeof *z), *w = fcd__malloc_array((size_t)nd, sizeof *w);
  fcd_real *xf = fcd__malloc_array((size_t)nd + 1, sizeof *xf);
  if (!lat->el0 || !lat->el1 || !lat->sig || !lat->a || !lat->p || !lat->last_spr ||
      !lat->last_aprev || !lat->act || !lat->uc || !lat->last_ff || !z || !w || !xf) {
    st = fcd__lat_err(lat, FCD_E_NOMEM, "out of memory preparing the lattice solver");
    goto done;
  }
  if ((st = fcd__system_free_pattern(lat->sys, &lat->fp)) != FCD_OK) {
    st = fcd__lat_err(lat, st, "%s", fcd_system_last_error(lat->sys));
    goto done;
  }
  lat->kffval = fcd__malloc_array((size_t)lat->fp->nnz + 1, sizeof *lat->kffval);
  if (!lat->kffval || (st = fcd__system_combination(lat->sys, 0, 0, 1, lat->kffval)) != FCD_OK) {
    st = fcd__lat_err(lat, st == FCD_OK ? FCD_E_NOMEM : st, "cannot form the free stiffness");
    goto done;
  }
  /* the elastic stresses of the constraint values and rates and of the forces:
   * u_free = K_ff^-1 (f - K_fc u_c); they carry the forces, so that the projection's
   * equilibrium B sigma = f(t) holds for the trial stress of every step */
  for (int part = 0; part < 2; part++) {
    memset(z, 0, (size_t)nd * sizeof *z);
    for (fcd_index i = 0; i < lat->nq; i++)
      z[lat->q[i].dof] = part ? lat->q[i].rate : lat->q[i].value;
    fcd_system_apply(lat->sys, FCD_STIFFNESS, z, w);
    fcd_index nf = lat->kff ? fcd__factor_size(lat->kff) : 0;
    for (fcd_index k = 0; k < nf; k++) xf[k] = -w[lat->sys->dof_of[k]];
    for (fcd_index i = 0; i < lat->nl; i++)
      xf[lat->sys->free_of[lat->ld[i].dof]] += part ? lat->ld[i].rate : lat->ld[i].value;
    if (nf > 0 && (st = fcd__factor_solve(lat->kff, 1, xf, xf)) != FCD_OK) goto done;
    fcd__free_to_full(lat->sys, xf, z);
    fcd_real *el = part ? lat->el1 : lat->el0;
    for (fcd_index i = 0; i < m; i++) {
      const spring *sp = &lat->sp[i];
      fcd_real e = 0;
      for (int k = 0; k < d; k++) e += lat->dir[i * d + k] * (z[sp->a * d + k] - z[sp->b * d + k]);
      el[i] = sp->k * e;
    }
  }
  lat->ready = 1;
  lat->have_state = 0;
done:
  fcd__free(z);
  fcd__free(w);
  fcd__free(xf);
  if (st != FCD_OK) fcd__lat_drop_solver(lat);
  return st;
}

/* The loads at t: constrained displacements uc (nq), the force on the free coordinates
 * ff (nf) and the elastic stress of both, sig (m). Without a history callback they are
 * value + rate t, and the stress is the precomputed el0 + t el1; with one, the stress
 * costs one solve with the free stiffness. Any output may be NULL. */
static fcd_status loads_at(fcd_lattice *lat, fcd_real t, fcd_real *uc, fcd_real *ff,
                           fcd_real *sig) {
  fcd_index nq = lat->nq, nl = lat->nl, m = lat->ns, nf = lat->kff ? fcd__factor_size(lat->kff) : 0;
  int d = lat->dim;
  fcd_index nd = lat->nn * d;
  fcd_real *u = fcd__malloc_array((size_t)(nq + nl) + 1, sizeof *u), *fl = u + nq;
  if (!u) return fcd__lat_err(lat, FCD_E_NOMEM, "out of memory evaluating the loads");
  fcd_status st = FCD_OK;
  if (lat->hist) {
    for (fcd_index i = 0; i < nq + nl; i++) u[i] = NAN;
    if (lat->hist(lat->hist_ud, t, nq, u, nl, fl) != 0) {
      st = fcd__lat_err(lat, FCD_E_CALLBACK, "the load-history callback failed at t = %g", t);
      goto done;
    }
    for (fcd_index i = 0; i < nq + nl; i++)
      if (!isfinite(u[i])) {
        st = fcd__lat_err(lat, FCD_E_CALLBACK, "the load-history callback left %s %lld at t = %g "
                  "not finite", i < nq ? "constraint" : "load", (long long)(i < nq ? i : i - nq), t);
        goto done;
      }
  } else {
    for (fcd_index i = 0; i < nq; i++) u[i] = lat->q[i].value + t * lat->q[i].rate;
    for (fcd_index i = 0; i < nl; i++) fl[i] = lat->ld[i].value + t * lat->ld[i].rate;
  }
  if (uc) memcpy(uc, u, (size_t)nq * sizeof *uc);
  if (ff) {
    memset(ff, 0, (size_t)nf * sizeof *ff);
    for (fcd_index i = 0; i < nl; i++) ff[lat->sys->free_of[lat->ld[i].dof]] += fl[i];
  }
  if (!sig) goto done;
  if (!lat->hist) {
    for (fcd_index i = 0; i < m; i++) sig[i] = lat->el0[i] + t * lat->el1[i];
    goto done;
  }
  /* u_free = K_ff^-1 (f - K_fc u_c), sigma = K D u */
  fcd_real *z = fcd__calloc((size_t)nd + 1, sizeof *z), *w = fcd__malloc_array((size_t)nd + 1, sizeof *w);
  fcd_real *xf = fcd__malloc_array((size_t)nf + 1, sizeof *xf);
  if (!z || !w || !xf) {
    st = fcd__lat_err(lat, FCD_E_NOMEM, "out of memory evaluating the loads");
  } else {
    for (fcd_index i = 0; i < nq; i++) z[lat->q[i].dof] = u[i];
    fcd_system_apply(lat->sys, FCD_STIFFNESS, z, w);
    for (fcd_index k = 0; k < nf; k++) xf[k] = -w[lat->sys->dof_of[k]];
    for (fcd_index i = 0; i < nl; i++) xf[lat->sys->free_of[lat->ld[i].dof]] += fl[i];
    if (nf > 0 && (st = fcd__factor_solve(lat->kff, 1, xf, xf)) != FCD_OK)
      st = fcd__lat_err(lat, st, "%s", fcd_system_last_error(lat->sys));
    else {
      fcd__free_to_full(lat->sys, xf, z);
      for (fcd_index i = 0; i < m; i++) {
        const spring *sp = &lat->sp[i];
        fcd_real e = 0;
        for (int k = 0; k < d; k++) e += lat->dir[i * d + k] * (z[sp->a * d + k] - z[sp->b * d + k]);
        sig[i] = sp->k * e;
      }
    }
  }
  fcd__free(z);
  fcd__free(w);
  fcd__free(xf);
done:
  fcd__free(u);
  return st;
}

/* (B sigma)_f on the free coordinates, accumulated into out (nf entries) */
static void b_apply(const fcd_lattice *lat, const fcd_real *sig, fcd_real *out) {
  int d = lat->dim;
  for (fcd_index i = 0; i < lat->ns; i++) {
    const spring *sp = &lat->sp[i];
    fcd_index nodes[2] = {sp->a, sp->b};
    for (int e = 0; e < 2; e++)
      for (int k = 0; k < d; k++) {
        fcd_index fi = lat->sys->free_of[nodes[e] * d + k];
        if (fi >= 0) out[fi] += (e ? -1 : 1) * lat->dir[i * d + k] * sig[i];
      }
  }
}

/* The active-set system of Algorithm 1 for the na active rows (spring row_s[j], face
 * row_g[j]): the sparse Schur matrix assembled (both triangles) and factored into
 * lat->cache[lat->fixed], the cache recording the rows and faces once the factor exists. The
 * return is a failure that ends the solve (memory, assembly); *fst receives the
 * factorization's own status, which the solve reports as a singular system. */
static fcd_status active_factor(fcd_lattice *lat, fcd_index na, const fcd_index *row_s,
                                const int *row_g, int same_rows, fcd_status *fst) {
  int d = lat->dim;
  struct fcd__lat_cache *c = &lat->cache[lat->fixed];
  fcd_index nf = lat->kff ? fcd__factor_size(lat->kff) : 0, N = nf + na;
  const fcd__free_pattern *fp = lat->fp;
  const fcd_system *sys = lat->sys;
  fcd_status st = FCD_OK;
  *fst = FCD_OK;
  size_t cap = 2 * ((size_t)fp->nnz + (size_t)na * (size_t)(2 * d + 2)) + 1;
  fcd_index *ri = fcd__malloc_array(cap, sizeof *ri), *ci = fcd__malloc_array(cap, sizeof *ci);
  fcd_real *vv = fcd__malloc_array(cap, sizeof *vv);
  fcd_index *rp = NULL, *cc = NULL;
  fcd_real *cv = NULL;
  if (!ri || !ci || !vv) {
    st = fcd__lat_err(lat, FCD_E_NOMEM, "out of memory in a lattice projection");
    goto done;
  }
  size_t ne = 0;
#define PUT(r_, c_, v_)                                                                \
  do {                                                                                 \
    ri[ne] = (r_);                                                                     \
    ci[ne] = (c_);                                                                     \
    vv[ne++] = (v_);                                                                   \
    if ((r_) != (c_)) {                                                                \
      ri[ne] = (c_);                                                                   \
      ci[ne] = (r_);                                                                   \
      vv[ne++] = (v_);                                                                 \
    }                                                                                  \
  } while (0)
  for (fcd_index r = 0; r < nf; r++)
    for (fcd_index q = fp->rowptr[r]; q < fp->rowptr[r + 1]; q++)
      if (fp->col[q] >= r) PUT(r, fp->col[q], lat->kffval[q]);
  for (fcd_index j = 0; j < na; j++) {
    fcd_index i = row_s[j];
    const spring *sp = &lat->sp[i];
    /* B K E_j' = g k_i B_i: column j of the coupling block */
    fcd_index nodes[2] = {sp->a, sp->b};
    for (int e = 0; e < 2; e++)
      for (int k = 0; k < d; k++) {
        fcd_index fi = sys->free_of[nodes[e] * d + k];
        if (fi >= 0) PUT(fi, nf + j, row_g[j] * sp->k * (e ? -1 : 1) * lat->dir[i * d + k]);
      }
    /* E K E' + S S' within the spring (both faces active: complete failure) */
    for (fcd_index l = j; l < na && row_s[l] == i; l++)
      PUT(nf + j, nf + l, row_g[j] * row_g[l] * sp->k + sp->s * sp->s * (lat->fixed ? 1 - sp->h : 1));
  }
#undef PUT
  if ((st = fcd__coo_to_csr(N, (fcd_index)ne, ri, ci, vv, &rp, &cc, &cv, NULL)) != FCD_OK) {
    st = fcd__lat_err(lat, st, "projection: cannot assemble the active-set system");
    goto done;
  }
  /* the cache records this active set only once its factor exists */
  c->valid = 0;
  if (!same_rows && c->cap < na) {
    fcd_index *nr = fcd__malloc_array((size_t)na, sizeof *nr);
    int *ng = fcd__malloc_array((size_t)na, sizeof *ng);
    if (!nr || !ng) {
      fcd__free(nr);
      fcd__free(ng);
      st = fcd__lat_err(lat, FCD_E_NOMEM, "out of memory in a lattice projection");
      goto done;
    }
    fcd__free(c->rows);
    fcd__free(c->g);
    c->rows = nr;
    c->g = ng;
    c->cap = na;
  }
  if (!c->f && (st = fcd__factor_create(lat->sys, FCD__FACTOR_SPD, &c->f)) != FCD_OK) {
    st = fcd__lat_err(lat, st, "projection: out of memory creating the active-set factor");
    goto done;
  }
  if (!same_rows) c->id++;
  *fst = N > 0 ? fcd__factor_csr(c->f, N, rp, cc, cv, c->id) : FCD_OK;
  if (*fst == FCD_OK) {
    c->na = na;
    if (na > 0) {
      memcpy(c->rows, row_s, (size_t)na * sizeof *row_s);
      memcpy(c->g, row_g, (size_t)na * sizeof *row_g);
    }
    c->valid = 1;
  } else {
    /* a failed analysis or factorization leaves nothing to reuse */
    c->na = -1;
  }
done:
  fcd__free(ri);
  fcd__free(ci);
  fcd__free(vv);
  fcd__free(rp);
  fcd__free(cc);
  fcd__free(cv);
  return st;
}

/* One active-set solve of Algorithm 1 (full space): the sparse Schur system of the
 * header comment for the na active rows (spring row_s[j], face row_g[j]), giving the
 * primal solution sig, a and the multipliers lam. */
static fcd_status solve_full(fcd_lattice *lat, const fcd_real *spr, const fcd_real *aprev,
                             const fcd_real *at, const fcd_real *ff, fcd_index na,
                             const fcd_index *row_s, const int *row_g, fcd_real *sig,
                             fcd_real *a, fcd_real *lam) {
  int d = lat->dim;
  struct fcd__lat_cache *c = &lat->cache[lat->fixed];
  fcd_index m = lat->ns, nf = lat->kff ? fcd__factor_size(lat->kff) : 0, N = nf + na;
  const fcd_system *sys = lat->sys;
  fcd_status st = FCD_OK;
  /* the same rows as the cached system: the same pattern; and the same faces: the same
   * matrix, already factored */
  int same_rows = c->f && c->na == na &&
                  (na == 0 || !memcmp(c->rows, row_s, (size_t)na * sizeof *row_s));
  int hit = same_rows && c->valid &&
            (na == 0 || !memcmp(c->g, row_g, (size_t)na * sizeof *row_g));
  fcd_real *rhs = fcd__calloc((size_t)N + 1, sizeof *rhs);
  if (!rhs) return fcd__lat_err(lat, FCD_E_NOMEM, "out of memory in a lattice projection");
  fcd_status fatal = hit ? FCD_OK : active_factor(lat, na, row_s, row_g, same_rows, &st);
  if (fatal != FCD_OK) {
    fcd__free(rhs);
    return fatal;
  }
  /* right-hand side: B sigma_tr - f ; E sigma_tr - S a_prev - c */
  b_apply(lat, spr, rhs);
  if (ff)
    for (fcd_index k = 0; k < nf; k++) rhs[k] -= ff[k];
  for (fcd_index j = 0; j < na; j++) {
    fcd_index i = row_s[j];
    const spring *sp = &lat->sp[i];
    /* the fixed point's a~ = a = a_prev + s lambda: the s^2 h lambda of its radius is in
     * the matrix, its s h a_prev here */
    fcd_real aw = lat->fixed ? aprev[i] : at[i];
    rhs[nf + j] = row_g[j] * spr[i] - sp->s * aprev[i] - (sp->c0 - sp->s * sp->h * aw);
  }
  if (N > 0) {
    if (st == FCD_OK) st = fcd__factor_solve(c->f, 1, rhs, rhs);
    if (st == FCD_E_NOMEM) {
      st = fcd__lat_err(lat, st, "projection: out of memory factoring the active-set system (%s)",
                fcd_system_last_error(lat->sys));
      goto done;
    }
    if (st != FCD_OK) {
      st = fcd__lat_err(lat, FCD_E_NOT_CONVERGED, "projection: the active-set system is singular (%s)",
                fcd_system_last_error(lat->sys));
      goto done;
    }
  }
  /* the primal solution: sigma = sigma_tr - K (B' mu + E' lambda), a = a_prev + S' lambda */
  for (fcd_index i = 0; i < m; i++) {
    const spring *sp = &lat->sp[i];
    fcd_index nodes[2] = {sp->a, sp->b};
    fcd_real bmu = 0;
    for (int e = 0; e < 2; e++)
      for (int k = 0; k < d; k++) {
        fcd_index fi = sys->free_of[nodes[e] * d + k];
        if (fi >= 0) bmu += (e ? -1 : 1) * lat->dir[i * d + k] * rhs[fi];
      }
    sig[i] = spr[i] - sp->k * bmu;
    a[i] = aprev[i];
  }
  for (fcd_index j = 0; j < na; j++) {
    fcd_index i = row_s[j];
    const spring *sp = &lat->sp[i];
    sig[i] -= sp->k * row_g[j] * rhs[nf + j];
    a[i] += sp->s * rhs[nf + j];
    lam[j] = rhs[nf + j];
  }
done:
  fcd__free(rhs);
  return st;
}

/* Algorithm 2's basis: the self-stresses Ker B as the columns of V = K^(1/2) Z, with Z
 * a Euclidean orthonormal basis of Ker(B K^(1/2)) (the last m - nf columns of the full
 * Q of a QR factorization of (B K^(1/2))'), so that V' K^-1 V = I and the metric S_V of
 * seed 001 eq. 95 is the identity. Dense: m x m for the Q. */
static fcd_status reduced_prepare(fcd_lattice *lat) {
  if (lat->vb) return FCD_OK;
  fcd_index m = lat->ns, nf = lat->kff ? fcd__factor_size(lat->kff) : 0, dv = m - nf;
  if (m > 4000)
    return fcd__lat_err(lat, FCD_E_UNSUPPORTED, "the reduced method (Algorithm 2) is dense: %lld "
                "springs exceed its limit of 4000; use the full-space method", (long long)m);
  if (dv <= 0) {
    lat->dimv = 0;
    lat->vb = fcd__calloc(1, sizeof *lat->vb);
    return lat->vb ? FCD_OK : fcd__lat_err(lat, FCD_E_NOMEM, "out of memory for the reduced basis");
  }
  fcd_real *q = fcd__calloc((size_t)m * (size_t)m, sizeof *q);
  fcd_real *tau = fcd__malloc_array((size_t)m + 1, sizeof *tau);
  fcd_status st = FCD_OK;
  if (!q || !tau) {
    st = fcd__lat_err(lat, FCD_E_NOMEM, "out of memory for the reduced basis (%lld x %lld)",
              (long long)m, (long long)m);
    goto done;
  }
  /* (B K^(1/2))' in the first nf columns, row-major m x m: row i is spring i */
  for (fcd_index i = 0; i < m; i++) {
    fcd_real one = sqrt(lat->sp[i].k), *row = q + (size_t)i * (size_t)m;
    const spring *sp = &lat->sp[i];
    fcd_index nodes[2] = {sp->a, sp->b};
    for (int e = 0; e < 2; e++)
      for (int k = 0; k < lat->dim; k++) {
        fcd_index fi = lat->sys->free_of[nodes[e] * lat->dim + k];
        if (fi >= 0) row[fi] += (e ? -1 : 1) * lat->dir[i * lat->dim + k] * one;
      }
  }
  if (fcd__la_qr_full_q(m, nf, q, tau) != 0) {
    st = fcd__lat_err(lat, FCD_E_BACKEND, "LAPACK QR of the equilibrium matrix failed");
    goto done;
  }
  lat->vb = fcd__malloc_array((size_t)m * (size_t)dv, sizeof *lat->vb);
  if (!lat->vb) {
    st = fcd__lat_err(lat, FCD_E_NOMEM, "out of memory for the reduced basis");
    goto done;
  }
  for (fcd_index i = 0; i < m; i++) {
    fcd_real one = sqrt(lat->sp[i].k);
    for (fcd_index c = 0; c < dv; c++)
      lat->vb[(size_t)i * (size_t)dv + (size_t)c] = one * q[(size_t)i * (size_t)m + (size_t)(nf + c)];
  }
  lat->dimv = dv;
done:
  fcd__free(q);
  fcd__free(tau);
  return st;
}

/* One active-set solve of Algorithm 2 (seed 001 eq. 97): the projection of z_tr =
 * (yhat_tr, a_prev) onto the active faces in R^(dimV + m) with the identity metric.
 * Row j of the active constraints is n_j = (g_j V_(i_j), -s_(i_j) e_(i_j)), so the
 * multipliers solve the dense na x na Gram system (N N') lam = N z_tr - c, and then
 * sigma = sigma_tr - V (sum_j lam_j g_j V_(i_j)'), a = a_prev + S' lam. The trial
 * stress already carries the load, so yhat never has to be formed. */
static fcd_status solve_reduced(fcd_lattice *lat, const fcd_real *spr, const fcd_real *aprev,
                                const fcd_real *at, fcd_index na, const fcd_index *row_s,
                                const int *row_g, fcd_real *sig, fcd_real *a, fcd_real *lam) {
  fcd_index m = lat->ns, dv = lat->dimv;
  const fcd_real *V = lat->vb;
  fcd_real *G = fcd__malloc_array((size_t)na * (size_t)na + 1, sizeof *G);
  fcd_real *w = fcd__calloc((size_t)dv + 1, sizeof *w);
  fcd_status st = FCD_OK;
  if (!G || !w) {
    st = fcd__lat_err(lat, FCD_E_NOMEM, "out of memory in a lattice projection");
    goto done;
  }
  for (fcd_index j = 0; j < na; j++) {
    const fcd_real *vj = V + (size_t)row_s[j] * (size_t)dv;
    for (fcd_index l = 0; l <= j; l++) {
      const fcd_real *vl = V + (size_t)row_s[l] * (size_t)dv;
      fcd_real g = 0;
      for (fcd_index c = 0; c < dv; c++) g += vj[c] * vl[c];
      g *= row_g[j] * row_g[l];
      if (row_s[j] == row_s[l]) g += lat->sp[row_s[j]].s * lat->sp[row_s[j]].s;
      G[(size_t)j * (size_t)na + (size_t)l] = g;
    }
    const spring *sp = &lat->sp[row_s[j]];
    lam[j] = row_g[j] * spr[row_s[j]] - sp->s * aprev[row_s[j]] -
             (sp->c0 - sp->s * sp->h * at[row_s[j]]);
  }
  if (na > 0 && fcd__la_chol_solve(na, G, lam) != 0) {
    st = fcd__lat_err(lat, FCD_E_NOT_CONVERGED, "projection: the reduced active-set system is not "
              "positive definite (%lld active faces)", (long long)na);
    goto done;
  }
  for (fcd_index j = 0; j < na; j++) {
    const fcd_real *vj = V + (size_t)row_s[j] * (size_t)dv;
    for (fcd_index c = 0; c < dv; c++) w[c] += lam[j] * row_g[j] * vj[c];
  }
  for (fcd_index i = 0; i < m; i++) {
    const fcd_real *vi = V + (size_t)i * (size_t)dv;
    fcd_real x = 0;
    for (fcd_index c = 0; c < dv; c++) x += vi[c] * w[c];
    sig[i] = spr[i] - x;
    a[i] = aprev[i];
  }
  for (fcd_index j = 0; j < na; j++) a[row_s[j]] += lat->sp[row_s[j]].s * lam[j];
done:
  fcd__free(G);
  fcd__free(w);
  return st;
}

/* The KKT residual of a settled active set, relative to the largest stress (or the
 * largest c0): equilibrium, feasibility, the multipliers' signs and complementarity
 * (eq: nf-long work) */
static fcd_real kkt_residual(const fcd_lattice *lat, const fcd_real *sig, const fcd_real *a,
                             const fcd_real *at, const fcd_real *ff, fcd_index na,
                             const fcd_index *row_s, const int *row_g, const fcd_real *lam,
                             fcd_real scale, fcd_real *eq) {
  fcd_index m = lat->ns, nf = lat->kff ? fcd__factor_size(lat->kff) : 0;
  fcd_real r = 0, ss = 0;
  for (fcd_index i = 0; i < m; i++) ss = fmax(ss, fabs(sig[i]));
  ss = fmax(ss, scale);
  memset(eq, 0, (size_t)nf * sizeof *eq);
  b_apply(lat, sig, eq);
  if (ff)
    for (fcd_index k = 0; k < nf; k++) eq[k] -= ff[k];
  for (fcd_index k = 0; k < nf; k++) r = fmax(r, fabs(eq[k]) / ss);
  for (fcd_index i = 0; i < m; i++) {
    const spring *sp = &lat->sp[i];
    fcd_real rad = sp->c0 + sp->s * (a[i] - sp->h * at[i]);
    r = fmax(r, fmax(0.0, fabs(sig[i]) - rad) / ss);
  }
  for (fcd_index j = 0; j < na; j++) {
    const spring *sp = &lat->sp[row_s[j]];
    fcd_real rad = sp->c0 + sp->s * (a[row_s[j]] - sp->h * at[row_s[j]]);
    r = fmax(r, fabs(row_g[j] * sig[row_s[j]] - rad) / ss);
    r = fmax(r, fmax(0.0, -lam[j]) / ss);
  }
  return r;
}

/* The projection for the catch-up map at a~ (at), from the trial stress spr and a_prev,
 * with the force ff on the free coordinates at the step's time (NULL: none); act (2
 * bits per spring: 1 upper, 2 lower) is the warm start and the result. */
static fcd_status project(fcd_lattice *lat, const fcd_real *spr, const fcd_real *aprev,
                          const fcd_real *at, const fcd_real *ff, unsigned char *act,
                          fcd_real *sig, fcd_real *a, fcd_real *kkt) {
  fcd_index m = lat->ns, nf = lat->kff ? fcd__factor_size(lat->kff) : 0;
  fcd_status st = FCD_OK;
  if (lat->method == FCD_LAT_REDUCED_DENSE && (st = reduced_prepare(lat)) != FCD_OK) return st;
  fcd_index *row_s = fcd__malloc_array((size_t)(2 * m) + 1, sizeof *row_s);
  int *row_g = fcd__malloc_array((size_t)(2 * m) + 1, sizeof *row_g);
  fcd_real *lam = fcd__calloc((size_t)(2 * m) + 1, sizeof *lam);
  fcd_real *eq = fcd__malloc_array((size_t)nf + 1, sizeof *eq);
  if (!row_s || !row_g || !lam || !eq) {
    st = fcd__lat_err(lat, FCD_E_NOMEM, "out of memory in a lattice projection");
    goto done;
  }
  fcd_real scale = 0;
  for (fcd_index i = 0; i < m; i++) scale = fmax(scale, lat->sp[i].c0);
  for (int round = 0; round < 200; round++) {
    fcd_index na = 0;
    for (fcd_index i = 0; i < m; i++) {
      if (act[i] & 1) { row_s[na] = i; row_g[na++] = 1; }
      if (act[i] & 2) { row_s[na] = i; row_g[na++] = -1; }
    }
    st = lat->method == FCD_LAT_REDUCED_DENSE
             ? solve_reduced(lat, spr, aprev, at, na, row_s, row_g, sig, a, lam)
             : solve_full(lat, spr, aprev, at, ff, na, row_s, row_g, sig, a, lam);
    if (st != FCD_OK) goto done;
    /* the next active set: drop negative multipliers, add violated constraints */
    int changed = 0;
    fcd_real worst_neg = 0, worst_viol = 0;
    fcd_index jneg = -1, iviol = -1;
    int gviol = 0;
    for (fcd_index j = 0; j < na; j++)
      if (lam[j] < -1e-14 * scale && lam[j] < worst_neg) {
        worst_neg = lam[j];
        jneg = j;
      }
    for (fcd_index i = 0; i < m; i++) {
      const spring *sp = &lat->sp[i];
      fcd_real rad = sp->c0 + sp->s * (a[i] - sp->h * at[i]);
      for (int g = 1; g >= -1; g -= 2) {
        unsigned char bit = g > 0 ? 1 : 2;
        if (act[i] & bit) continue;
        fcd_real viol = g * sig[i] - rad;
        if (viol > 1e-13 * scale && viol > worst_viol) {
          worst_viol = viol;
          iviol = i;
          gviol = g;
        }
      }
    }
    /* all at once for the first rounds (a semismooth Newton step on the active set),
     * one at a time afterwards (finite, no cycling) */
    if (round < 20) {
      for (fcd_index j = 0; j < na; j++)
        if (lam[j] < -1e-14 * scale) {
          act[row_s[j]] &= (unsigned char)~(row_g[j] > 0 ? 1 : 2);
          changed = 1;
        }
      for (fcd_index i = 0; i < m; i++) {
        const spring *sp = &lat->sp[i];
        fcd_real rad = sp->c0 + sp->s * (a[i] - sp->h * at[i]);
        if (!(act[i] & 1) && sig[i] - rad > 1e-13 * scale) { act[i] |= 1; changed = 1; }
        if (!(act[i] & 2) && -sig[i] - rad > 1e-13 * scale) { act[i] |= 2; changed = 1; }
      }
    } else if (jneg >= 0) {
      act[row_s[jneg]] &= (unsigned char)~(row_g[jneg] > 0 ? 1 : 2);
      changed = 1;
    } else if (iviol >= 0) {
      act[iviol] |= gviol > 0 ? 1 : 2;
      changed = 1;
    }
    if (!changed) {
      *kkt = kkt_residual(lat, sig, a, at, ff, na, row_s, row_g, lam, scale, eq);
      goto done;
    }
    if (lat->fixed) { /* a piece's fixed point lies outside the piece: no answer */
      st = FCD_E_NOT_CONVERGED;
      goto done;
    }
  }
  st = fcd__lat_err(lat, FCD_E_NOT_CONVERGED, "projection: the active-set method did not settle in "
            "200 rounds");
done:
  fcd__free(row_s);
  fcd__free(row_g);
  fcd__free(lam);
  fcd__free(eq);
  return st;
}

fcd_status fcd_lattice_set_param(fcd_lattice *lat, int key, fcd_real value) {
  CHECK_LAT(lat);
  switch (key) {
  case FCD_LAT_TOLERANCE:
    if (!isfinite(value) || value <= 0)
      return fcd__lat_err(lat, FCD_E_INVALID_ARG, "tolerance %g must be > 0", value);
    lat->tol = value;
    return FCD_OK;
  case FCD_LAT_MAX_ITER:
    if (!fcd__is_whole(value, 1, 1e9))
      return fcd__lat_err(lat, FCD_E_INVALID_ARG, "iteration cap %g must be a positive integer", value);
    lat->max_iter = (fcd_index)value;
    return FCD_OK;
  case FCD_LAT_BOUND:
    if (!isfinite(value) || value <= 0)
      return fcd__lat_err(lat, FCD_E_INVALID_ARG, "bound %g must be > 0", value);
    lat->bound = value;
    return FCD_OK;
  case FCD_LAT_ITERATION:
    if (value != FCD_LAT_PIECES && value != FCD_LAT_PICARD)
      return fcd__lat_err(lat, FCD_E_INVALID_ARG, "iteration %g: FCD_LAT_PIECES (0) or "
                  "FCD_LAT_PICARD (1)", value);
    lat->solve = (int)value;
    return FCD_OK;
  case FCD_LAT_METHOD:
    if (value != FCD_LAT_FULL_SPARSE && value != FCD_LAT_REDUCED_DENSE)
      return fcd__lat_err(lat, FCD_E_INVALID_ARG, "method %g: FCD_LAT_FULL_SPARSE (0) or "
                  "FCD_LAT_REDUCED_DENSE (1)", value);
    lat->method = (int)value;
    return FCD_OK;
  default:
    return fcd__lat_err(lat, FCD_E_UNSUPPORTED, "unknown lattice parameter key %d", key);
  }
}

fcd_status fcd_lattice_set_history(fcd_lattice *lat, fcd_lattice_history_fn fn,
                                   void *user_data) {
  CHECK_LAT(lat);
  lat->hist = fn;
  lat->hist_ud = user_data;
  return FCD_OK;
}

fcd_status fcd_lattice_set_guess(fcd_lattice *lat, fcd_lattice_guess_fn fn, void *user_data) {
  CHECK_LAT(lat);
  lat->guess = fn;
  lat->guess_ud = user_data;
  return FCD_OK;
}

fcd_status fcd_lattice_set_state(fcd_lattice *lat, fcd_real t, const fcd_real *sigma,
                                 const fcd_real *a) {
  CHECK_LAT(lat);
  if (!isfinite(t)) return fcd__lat_err(lat, FCD_E_INVALID_ARG, "set_state: t is not finite");
  FCD_TRY(lat_prepare(lat));
  fcd_index m = lat->ns;
  int d = lat->dim;
  fcd_real *s2 = fcd__malloc_array((size_t)m, sizeof *s2), *a2 = fcd__calloc((size_t)m, sizeof *a2);
  fcd_real *eq = fcd__calloc((size_t)(lat->nn * d), sizeof *eq);
  fcd_real *uc = fcd__malloc_array((size_t)lat->nq + 1, sizeof *uc);
  fcd_real *ff = fcd__malloc_array((size_t)(lat->nn * d) + 1, sizeof *ff);
  fcd_status st = FCD_OK;
  if (!s2 || !a2 || !eq || !uc || !ff) {
    st = fcd__lat_err(lat, FCD_E_NOMEM, "out of memory");
    goto done;
  }
  if ((st = loads_at(lat, t, uc, ff, sigma ? NULL : s2)) != FCD_OK) goto done;
  if (sigma) memcpy(s2, sigma, (size_t)m * sizeof *s2);
  if (a) memcpy(a2, a, (size_t)m * sizeof *a2);
  fcd_real ss = 0;
  for (fcd_index i = 0; i < m; i++) {
    const spring *sp = &lat->sp[i];
    if (!isfinite(s2[i]) || !isfinite(a2[i]) || a2[i] < 0) {
      st = fcd__lat_err(lat, FCD_E_INVALID_ARG, "set_state: spring %lld has sigma %g, a %g (a must be "
                ">= 0)", (long long)i, s2[i], a2[i]);
      goto done;
    }
    fcd_real rad = sp->c0 + sp->s * (1 - sp->h) * a2[i];
    if (fabs(s2[i]) > rad * (1 + 1e-12)) {
      st = fcd__lat_err(lat, FCD_E_INVALID_ARG, "set_state: spring %lld: |sigma| = %g exceeds the "
                "yield %g", (long long)i, fabs(s2[i]), rad);
      goto done;
    }
    ss = fmax(ss, fmax(fabs(s2[i]), sp->c0));
    for (int k = 0; k < d; k++) {
      eq[sp->a * d + k] += lat->dir[i * d + k] * s2[i];
      eq[sp->b * d + k] -= lat->dir[i * d + k] * s2[i];
    }
  }
  for (fcd_index g = 0; g < lat->nn * d; g++)
    if (lat->sys->free_of[g] >= 0) {
      eq[g] -= ff[lat->sys->free_of[g]];
      ss = fmax(ss, fabs(ff[lat->sys->free_of[g]]));
    }
  for (fcd_index g = 0; g < lat->nn * d; g++)
    if (lat->sys->free_of[g] >= 0 && fabs(eq[g]) > 1e-10 * ss) {
      st = fcd__lat_err(lat, FCD_E_INVALID_ARG, "set_state: the stresses are out of equilibrium with "
                "the nodal forces at t = %g by %g on axis %lld of node %lld", t, eq[g],
                (long long)(g % d), (long long)(g / d));
      goto done;
    }
  memcpy(lat->sig, s2, (size_t)m * sizeof *s2);
  memcpy(lat->a, a2, (size_t)m * sizeof *a2);
  memset(lat->p, 0, (size_t)m * sizeof *lat->p);
  memset(lat->act, 0, (size_t)m);
  memcpy(lat->uc, uc, (size_t)lat->nq * sizeof *uc);
  lat->t = t;
  lat->have_state = 1;
  lat->have_step = 0;
done:
  fcd__free(s2);
  fcd__free(a2);
  fcd__free(eq);
  fcd__free(uc);
  fcd__free(ff);
  return st;
}

/* the plastic elongation of a spring's complete failure, a_f = c0 / (s (h - 1)) for a
 * softening spring (h > 1, s > 0), where its admissible stresses shrink to {0}; infinite
 * for the others */
static fcd_real fail_elongation(const spring *sp) {
  return sp->h > 1 && sp->s > 0 ? sp->c0 / (sp->s * (sp->h - 1)) : INFINITY;
}

typedef struct {
  int diverged;      /* no fixed point: the iteration cap (ran_off 0) or the bound (1) */
  int ran_off;
  fcd_index it;      /* Picard iterations */
  fcd_real kkt, change, big;
} picard_run;

/* The fixed point of the Picard iteration's current piece. While the active set of T
 * stays the same, T is affine, T(a~) = J a~ + c, and the iterates go to its fixed point
 * geometrically (rate: J's largest eigenvalue, 0.9 and more in a softening band, so
 * hundreds of iterations). That fixed point solves one linear system: the projection's,
 * with the radius' s h a~ = s h (a_prev + s lambda) moved into its matrix, whose S S'
 * becomes S (I - H) S. The matrix is positive definite exactly where the fixed point is
 * stable (J = S M^-1 S H with M the projection's Schur matrix is similar to a symmetric
 * matrix whose eigenvalues are below 1 iff M - S H S > 0), so the same Cholesky factor
 * solves it and refuses an unstable piece. The answer is taken only when it keeps the
 * piece's active set and one evaluation of T returns it within the tolerance: it is then
 * the limit of the iterates that stay on the piece (the branch the iteration chooses is
 * unchanged; pieces of perfect plasticity, h = 1, whose matrix is singular, are left to
 * the iteration). 1 when taken (a, sig and at hold it, pr->kkt its certificate), 0 when
 * not (at and a as they were), < 0 an error. */
static int piece_fixed_point(fcd_lattice *lat, const fcd_real *spr, const fcd_real *ff,
                             fcd_real *at, unsigned char *act, fcd_real *sig, fcd_real *a,
                             fcd_real *save, unsigned char *save_act, picard_run *pr) {
  fcd_index m = lat->ns;
  for (fcd_index i = 0; i < m; i++)
    if (act[i] && lat->sp[i].h == 1) return 0;
  memcpy(save, a, (size_t)m * sizeof *save);
  memcpy(save_act, act, (size_t)m);
  fcd_real kkt;
  lat->fixed = 1; /* a~ is a itself: project reads the radius from the iterate */
  fcd_status st = project(lat, spr, lat->a, a, ff, act, sig, a, &kkt);
  lat->fixed = 0;
  int ok = st == FCD_OK;
  if (ok) {
    memcpy(at, a, (size_t)m * sizeof *at);
    st = project(lat, spr, lat->a, at, ff, act, sig, a, &kkt);
    fcd_real change = 0;
    for (fcd_index i = 0; i < m; i++) change += (a[i] - at[i]) * (a[i] - at[i]);
    ok = st == FCD_OK && sqrt(change) < lat->tol && !memcmp(act, save_act, (size_t)m);
    if (ok) pr->kkt = kkt;
  }
  if (st == FCD_E_NOMEM) return -1;
  if (!ok) {
    memcpy(a, save, (size_t)m * sizeof *a);
    memcpy(at, save, (size_t)m * sizeof *at);
    memcpy(act, save_act, (size_t)m);
  }
  return ok;
}

/* The Picard iteration a~ -> T(a~) of a step from the guess at to its fixed point a
 * (sig the stresses, act the warm start and the result). After PIECE_AFTER iterations
 * on one active set it tries that piece's fixed point (above), once per piece. A failure
 * of a projection is the return; no fixed point is pr->diverged. */
enum { PIECE_AFTER = 3 };
static fcd_status picard(fcd_lattice *lat, const fcd_real *spr, const fcd_real *ff, fcd_real *at,
                         unsigned char *act, fcd_real *sig, fcd_real *a, picard_run *pr) {
  fcd_index m = lat->ns;
  pr->diverged = pr->ran_off = 0;
  pr->it = 0;
  pr->kkt = 0;
  pr->change = INFINITY;
  pr->big = 0;
  int accel = lat->solve == FCD_LAT_PIECES && lat->method == FCD_LAT_FULL_SPARSE;
  fcd_real *save = accel ? fcd__malloc_array((size_t)m + 1, sizeof *save) : NULL;
  unsigned char *prev = accel ? fcd__malloc_array((size_t)m + 1, 2) : NULL, *save_act = NULL;
  if (accel && (!save || !prev)) {
    fcd__free(save);
    fcd__free(prev);
    return fcd__lat_err(lat, FCD_E_NOMEM, "out of memory in a lattice step");
  }
  if (accel) save_act = prev + m + 1;
  fcd_status st = FCD_OK;
  int same = 0, tried = 0;
  for (;;) {
    if (accel) memcpy(prev, act, (size_t)m);
    if ((st = project(lat, spr, lat->a, at, ff, act, sig, a, &pr->kkt)) != FCD_OK) break;
    pr->it++;
    fcd_real change = 0, big = 0;
    for (fcd_index i = 0; i < m; i++) {
      change += (a[i] - at[i]) * (a[i] - at[i]);
      big = fmax(big, fmax(fabs(a[i]), fabs(sig[i])));
    }
    pr->change = sqrt(change);
    pr->big = big;
    if (pr->change < lat->tol) break;
    if (pr->it >= lat->max_iter || big > lat->bound || !isfinite(big)) {
      pr->diverged = 1;
      pr->ran_off = big > lat->bound || !isfinite(big);
      break;
    }
    memcpy(at, a, (size_t)m * sizeof *at);
    if (!accel) continue;
    if (memcmp(prev, act, (size_t)m)) {
      same = tried = 0;
      continue;
    }
    if (++same < PIECE_AFTER || tried) continue;
    tried = 1;
    int got = piece_fixed_point(lat, spr, ff, at, act, sig, a, save, save_act, pr);
    if (got < 0) {
      st = fcd__lat_err(lat, FCD_E_NOMEM, "out of memory in a lattice step");
      break;
    }
    if (got) {
      pr->it += 2;
      pr->change = 0;
      break;
    }
  }
  fcd__free(save);
  fcd__free(prev);
  return st;
}

/* the spring of a nearest its complete failure and its a / a_f (0: none softens) */
static fcd_real nearest_failure(const fcd_lattice *lat, const fcd_real *a, fcd_index *which) {
  fcd_real most = 0;
  *which = -1;
  for (fcd_index i = 0; i < lat->ns; i++) {
    fcd_real r = a[i] / fail_elongation(&lat->sp[i]);
    if (r > most) {
      most = r;
      *which = i;
    }
  }
  return most;
}

/* Where the sweep ends inside a step whose iterates ran off: bisection on the time
 * between the state's t and t_next, each trial a catch-up step from the state (the
 * arrays are the step's scratch; e0 the elastic stress at the state's t). Complete
 * failure (seed 001, Remark 3.1) ends it where a softening spring's a reaches a_f: the
 * bisection stops once a trial's state is within LOCATE_CLOSE of it. Otherwise the end is
 * a limit point of the load, located to 2^-LOCATE_MAX of the step. A trial is refused
 * once its iterate exceeds LOCATE_GROWTH times the state's largest stress, damage or
 * yield force, or after the iterations the failed step took (budget): run to the
 * step's own bound, the trials past the end cost four times the sweep before them on an
 * 80 x 80 lattice. *t_end: the last time reached; *which and the return of
 * nearest_failure there in *ratio. */
#define LOCATE_CLOSE 1e-6
#define LOCATE_GROWTH 1e3
enum { LOCATE_MAX = 20, LOCATE_MIN_BUDGET = 50 };
static fcd_status locate_end(fcd_lattice *lat, fcd_real t_next, const fcd_real *e0, fcd_real *spr,
                             fcd_real *ff, fcd_real *at, unsigned char *act, fcd_real *sig,
                             fcd_real *a, fcd_index budget, fcd_real *t_end, fcd_index *which,
                             fcd_real *ratio) {
  fcd_index m = lat->ns, max_iter = lat->max_iter;
  fcd_real lo = lat->t, hi = t_next, bound = lat->bound, scale = 0;
  for (fcd_index i = 0; i < m; i++)
    scale = fmax(scale, fmax(fmax(fabs(lat->sig[i]), fabs(lat->a[i])), lat->sp[i].c0));
  lat->bound = fmin(bound, LOCATE_GROWTH * scale);
  lat->max_iter = budget > LOCATE_MIN_BUDGET ? (budget < max_iter ? budget : max_iter)
                                             : (LOCATE_MIN_BUDGET < max_iter ? LOCATE_MIN_BUDGET : max_iter);
  *t_end = lo;
  *ratio = nearest_failure(lat, lat->a, which);
  fcd_status st = FCD_OK;
  for (int k = 0; k < LOCATE_MAX && *ratio < 1 - LOCATE_CLOSE; k++) {
    fcd_real mid = lo + 0.5 * (hi - lo);
    if ((st = loads_at(lat, mid, NULL, ff, spr)) != FCD_OK) break;
    for (fcd_index i = 0; i < m; i++) spr[i] += lat->sig[i] - e0[i];
    memcpy(at, lat->a, (size_t)m * sizeof *at);
    memcpy(act, lat->act, (size_t)m);
    picard_run pr;
    st = picard(lat, spr, ff, at, act, sig, a, &pr);
    if (st == FCD_E_NOMEM) break;
    if (st == FCD_OK && !pr.diverged && pr.kkt <= FCD__LAT_CERT_TOL) {
      lo = *t_end = mid;
      *ratio = nearest_failure(lat, a, which);
    } else {
      hi = mid;
    }
    st = FCD_OK;
  }
  lat->bound = bound;
  lat->max_iter = max_iter;
  return st;
}

fcd_status fcd_lattice_step(fcd_lattice *lat, fcd_real t_next, fcd_index *iterations) {
  CHECK_LAT(lat);
  if (iterations) *iterations = 0;
  if (!lat->have_state) FCD_TRY(fcd_lattice_set_state(lat, 0.0, NULL, NULL));
  if (!isfinite(t_next) || t_next <= lat->t)
    return fcd__lat_err(lat, FCD_E_INVALID_ARG, "step: t_next = %g must be after t = %g", t_next, lat->t);
  fcd_index m = lat->ns;
  fcd_real *spr = fcd__malloc_array((size_t)m, sizeof *spr), *e0 = fcd__malloc_array((size_t)m, sizeof *e0);
  fcd_real *at = fcd__malloc_array((size_t)m, sizeof *at), *sig = fcd__malloc_array((size_t)m, sizeof *sig);
  fcd_real *a = fcd__malloc_array((size_t)m, sizeof *a);
  unsigned char *act = fcd__malloc_array((size_t)m, 1);
  fcd_real *ff = fcd__malloc_array((size_t)lat->nn * (size_t)lat->dim + 1, sizeof *ff);
  fcd_real *uc = fcd__malloc_array((size_t)lat->nq + 1, sizeof *uc);
  fcd_status st = FCD_OK;
  if (!spr || !e0 || !at || !sig || !a || !act || !ff || !uc) {
    st = fcd__lat_err(lat, FCD_E_NOMEM, "out of memory in a lattice step");
    goto done;
  }
  if ((st = loads_at(lat, lat->t, NULL, NULL, e0)) != FCD_OK ||
      (st = loads_at(lat, t_next, uc, ff, spr)) != FCD_OK)
    goto done;
  for (fcd_index i = 0; i < m; i++) spr[i] += lat->sig[i] - e0[i];
  memcpy(at, lat->a, (size_t)m * sizeof *at);
  if (lat->guess && lat->guess(lat->guess_ud, t_next, m, lat->a, at) != 0) {
    st = fcd__lat_err(lat, FCD_E_CALLBACK, "the initial-guess callback failed at t = %g", t_next);
    goto done;
  }
  picard_run pr;
  memcpy(act, lat->act, (size_t)m);
  if ((st = picard(lat, spr, ff, at, act, sig, a, &pr)) != FCD_OK) goto done;
  if (pr.diverged) {
    char where[200] = "";
    if (pr.ran_off) {
      /* iterates that run off: the sweep may end inside the step, by complete failure
       * (a softening spring's admissible stresses shrink to {0} at a_f = c0/(s(h-1)), and
       * past it there are none) or at a limit point of the load */
      fcd_real t_end, ratio;
      fcd_index i;
      if ((st = locate_end(lat, t_next, e0, spr, ff, at, act, sig, a, pr.it, &t_end, &i, &ratio)) !=
          FCD_OK)
        goto done;
      if (ratio >= 1 - LOCATE_CLOSE) {
        const spring *sp = &lat->sp[i];
        st = fcd__lat_err(lat, FCD_E_NO_SOLUTION, "step to t = %g: spring %lld (nodes %lld-%lld) "
                  "reaches complete failure at t = %.10g, its plastic elongation at a_f = "
                  "c0/(s(h-1)) = %.6g where its admissible stresses shrink to 0 (seed 001, Remark "
                  "3.1): the sweep has no state past it; the state is unchanged at t = %g", t_next,
                  (long long)i, (long long)sp->a, (long long)sp->b, t_end, fail_elongation(sp),
                  lat->t);
        goto done;
      }
      if (t_end > lat->t)
        snprintf(where, sizeof where, "; the sweep reaches t = %.10g and no further (a limit "
                 "point of the load)", t_end);
    }
    st = fcd__lat_err(lat, FCD_E_NOT_CONVERGED, "step to t = %g: no stable fixed point reached after "
              "%lld iterations (last change %.3e, iterate size %.3e)%s; the state is unchanged",
              t_next, (long long)pr.it, pr.change, pr.big, where);
    goto done;
  }
  fcd_index it = pr.it;
  fcd_real kkt = pr.kkt;
  /* the catch-up's certificate: the KKT residual of the last projection (balance,
   * admissibility, multiplier signs, complementarity, relative to the stress scale),
   * recomputed from the solution, not the active-set method's own test */
  if (!(kkt <= FCD__LAT_CERT_TOL)) {
    st = fcd__lat_err(lat, FCD_E_NOT_CONVERGED, "step to t = %g fails its certificate: KKT residual "
              "%.3e of the stress scale (bound %.0e); the state is unchanged", t_next, kkt,
              FCD__LAT_CERT_TOL);
    goto done;
  }
  /* commit: plastic elongations from the damage increments (seed 001 eq. 61) */
  for (fcd_index i = 0; i < m; i++) {
    const spring *sp = &lat->sp[i];
    if (sp->s > 0) lat->p[i] += (sig[i] > 0 ? 1 : sig[i] < 0 ? -1 : 0) * (a[i] - lat->a[i]) / sp->s;
  }
  memcpy(lat->last_spr, spr, (size_t)m * sizeof *spr);
  memcpy(lat->last_aprev, lat->a, (size_t)m * sizeof *spr);
  memcpy(lat->sig, sig, (size_t)m * sizeof *sig);
  memcpy(lat->a, a, (size_t)m * sizeof *a);
  memcpy(lat->act, act, (size_t)m);
  memcpy(lat->uc, uc, (size_t)lat->nq * sizeof *uc);
  memcpy(lat->last_ff, ff, (size_t)(lat->kff ? fcd__factor_size(lat->kff) : 0) * sizeof *ff);
  lat->last_t = t_next;
  lat->last_kkt = kkt;
  lat->t = t_next;
  lat->have_step = 1;
  if (iterations) *iterations = it;
done:
  fcd__free(spr);
  fcd__free(e0);
  fcd__free(at);
  fcd__free(sig);
  fcd__free(a);
  fcd__free(act);
  fcd__free(ff);
  fcd__free(uc);
  return st;
}

fcd_status fcd_lattice_get_state(fcd_lattice *lat, fcd_real *t, fcd_real *sigma, fcd_real *a,
                                 fcd_real *u) {
  CHECK_LAT(lat);
  if (!lat->have_state) FCD_TRY(fcd_lattice_set_state(lat, 0.0, NULL, NULL));
  fcd_index m = lat->ns, nd = lat->nn * lat->dim;
  int d = lat->dim;
  if (t) *t = lat->t;
  if (sigma) memcpy(sigma, lat->sig, (size_t)m * sizeof *sigma);
  if (a) memcpy(a, lat->a, (size_t)m * sizeof *a);
  if (!u) return FCD_OK;
  for (fcd_index i = 0; i < m; i++)
    if (!(lat->sp[i].s > 0)) {
      for (fcd_index g = 0; g < nd; g++) u[g] = NAN;
      return FCD_OK;
    }
  /* elongations x = K^-1 sigma + p; displacements: K_ff u_f = B K (x - D u_c) */
  fcd_index nf = lat->kff ? fcd__factor_size(lat->kff) : 0;
  fcd_real *z = fcd__calloc((size_t)nd, sizeof *z), *b = fcd__calloc((size_t)nf + 1, sizeof *b);
  if (!z || !b) {
    fcd__free(z);
    fcd__free(b);
    return fcd__lat_err(lat, FCD_E_NOMEM, "out of memory");
  }
  for (fcd_index q = 0; q < lat->nq; q++) z[lat->q[q].dof] = lat->uc[q];
  for (fcd_index i = 0; i < m; i++) {
    const spring *sp = &lat->sp[i];
    fcd_real dc = 0;
    for (int k = 0; k < d; k++) dc += lat->dir[i * d + k] * (z[sp->a * d + k] - z[sp->b * d + k]);
    fcd_real w = sp->k * (lat->sig[i] / sp->k + lat->p[i] - dc);
    for (int k = 0; k < d; k++) {
      fcd_index fa = lat->sys->free_of[sp->a * d + k], fb = lat->sys->free_of[sp->b * d + k];
      if (fa >= 0) b[fa] += lat->dir[i * d + k] * w;
      if (fb >= 0) b[fb] -= lat->dir[i * d + k] * w;
    }
  }
  fcd_status st = nf > 0 ? fcd__factor_solve(lat->kff, 1, b, b) : FCD_OK;
  if (st == FCD_OK) {
    fcd__free_to_full(lat->sys, b, z);
    memcpy(u, z, (size_t)nd * sizeof *u);
  }
  fcd__free(z);
  fcd__free(b);
  return st == FCD_OK ? FCD_OK : fcd__lat_err(lat, st, "%s", fcd_system_last_error(lat->sys));
}

fcd_status fcd_lattice_get_reactions(fcd_lattice *lat, fcd_real *r) {
  CHECK_LAT(lat);
  if (!r) return fcd__lat_err(lat, FCD_E_INVALID_ARG, "get_reactions: r is NULL");
  if (!lat->have_state) FCD_TRY(fcd_lattice_set_state(lat, 0.0, NULL, NULL));
  int d = lat->dim;
  fcd_real *f = fcd__calloc((size_t)lat->nn * (size_t)d + 1, sizeof *f);
  if (!f) return fcd__lat_err(lat, FCD_E_NOMEM, "out of memory");
  /* the supports balance the springs' pull: r = (D sigma) on the constrained coordinates */
  for (fcd_index i = 0; i < lat->ns; i++)
    for (int k = 0; k < d; k++) {
      f[lat->sp[i].a * d + k] += lat->dir[i * d + k] * lat->sig[i];
      f[lat->sp[i].b * d + k] -= lat->dir[i * d + k] * lat->sig[i];
    }
  for (fcd_index c = 0; c < lat->nq; c++) r[c] = f[lat->q[c].dof];
  fcd__free(f);
  return FCD_OK;
}

fcd_status fcd_lattice_get_kkt_residual(const fcd_lattice *lat, fcd_real *res) {
  CHECK_LAT(lat);
  if (!res) return fcd__lat_err(lat, FCD_E_INVALID_ARG, "get_kkt_residual: res is NULL");
  if (!lat->have_step) return fcd__lat_err(lat, FCD_E_STATE, "no step taken yet");
  if (res) *res = lat->last_kkt;
  return FCD_OK;
}

fcd_status fcd_lattice_jacobian_eigenvalues(fcd_lattice *lat, fcd_real *re, fcd_real *im) {
  CHECK_LAT(lat);
  if (!lat->have_step) return fcd__lat_err(lat, FCD_E_STATE, "no step taken yet");
  fcd_index m = lat->ns;
  if (m > 2000)
    return fcd__lat_err(lat, FCD_E_UNSUPPORTED, "the Jacobian of a %lld-spring map is dense; this "
                "release stops at 2000 springs", (long long)m);
  if (!re || !im) return fcd__lat_err(lat, FCD_E_INVALID_ARG, "jacobian: re or im is NULL");
  fcd_real *J = fcd__malloc_array((size_t)(m * m), sizeof *J);
  fcd_real *at = fcd__malloc_array((size_t)m, sizeof *at), *sig = fcd__malloc_array((size_t)m, sizeof *sig);
  fcd_real *a = fcd__malloc_array((size_t)m, sizeof *a);
  unsigned char *act = fcd__malloc_array((size_t)m, 1);
  const fcd_real *ff = lat->last_ff;
  fcd_status st = FCD_OK;
  if (!J || !at || !sig || !a || !act) {
    st = fcd__lat_err(lat, FCD_E_NOMEM, "out of memory for the Jacobian");
    goto done;
  }
  /* T is affine near the fixed point while its active set stays: a small forward
   * difference is exact up to round-off */
  fcd_real amax = 0;
  for (fcd_index i = 0; i < m; i++) amax = fmax(amax, lat->a[i]);
  /* differences against T at the fixed point itself (not the stored a, which the
   * fixed-point test leaves up to tol away), with a step small against the distances
   * to the other faces and large against round-off */
  fcd_real delta = 1e-3 * fmax(amax, 1e-3 * lat->sp[0].c0);
  fcd_real kkt;
  fcd_real *base = fcd__malloc_array((size_t)m, sizeof *base);
  if (!base) {
    st = fcd__lat_err(lat, FCD_E_NOMEM, "out of memory for the Jacobian");
    goto done;
  }
  memcpy(at, lat->a, (size_t)m * sizeof *at);
  memcpy(act, lat->act, (size_t)m);
  if ((st = project(lat, lat->last_spr, lat->last_aprev, at, ff, act, sig, base, &kkt)) != FCD_OK) {
    fcd__free(base);
    goto done;
  }
  for (fcd_index c = 0; c < m; c++) {
    memcpy(at, lat->a, (size_t)m * sizeof *at);
    at[c] += delta;
    memcpy(act, lat->act, (size_t)m);
    if ((st = project(lat, lat->last_spr, lat->last_aprev, at, ff, act, sig, a, &kkt)) != FCD_OK) {
      fcd__free(base);
      goto done;
    }
    for (fcd_index r = 0; r < m; r++) J[r * m + c] = (a[r] - base[r]) / delta;
  }
  fcd__free(base);
  if (fcd__la_geev_values(m, J, re, im) != 0)
    st = fcd__lat_err(lat, FCD_E_BACKEND, "LAPACK dgeev failed on the Jacobian");
done:
  fcd__free(J);
  fcd__free(at);
  fcd__free(sig);
  fcd__free(a);
  fcd__free(act);
  return st;
}
