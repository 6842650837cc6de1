/* The one builder of Delassus operators W = H A^-1 H^T: dense for the factored operators
 * A of integrators (M + h theta C + h^2 theta^2 K) and equilibria (K), sparse for the
 * global one-step problems (A = M). */
#include "fc_private.h"

#include <string.h>

void fcd__contact_free_dofs(const fcd_system *sys, const fcd__csr *H, fcd_index *idx,
                            fcd_index *pos, fcd_index *s) {
  fcd_index nf = sys->nfree, k = 0;
  for (fcd_index i = 0; i < nf; i++) pos[i] = -1;
  for (fcd_index e = 0; e < H->rowptr[H->n]; e++) pos[sys->free_of[H->col[e]]] = 1;
  for (fcd_index i = 0; i < nf; i++)
    if (pos[i] >= 0) {
      idx[k] = i;
      pos[i] = k++;
    }
  *s = k;
}

fcd_status fcd__factor_schur_on_contacts(fcd_system *sys, fcd__factor *fac,
                                         fcd_contact_set *cs) {
  /* the set follows the contacts and the free numbering: derived again only when either
   * changed, not at every step */
  const fcd__free_pattern *fp;
  FCD_TRY(fcd__system_free_pattern(sys, &fp));
  uint64_t key = fcd__hash(fcd__hash(0, &cs->version, sizeof cs->version), &fp->version,
                           sizeof fp->version);
  if (fcd__factor_schur_current(fac, key)) return FCD_OK;
  const fcd__csr *H;
  FCD_TRY(fcd__contact_set_operator(cs, &H));
  FCD_TRY(fcd__contact_dofs_free(sys, H)); /* replicated: the same answer on every rank */
  fcd_index *idx = fcd__malloc_array((size_t)H->rowptr[H->n] + 1, sizeof *idx);
  fcd_index *pos = fcd__malloc_array((size_t)sys->nfree + 1, sizeof *pos), s = 0;
  fcd_status st = FCD_OK;
  if (idx && pos) fcd__contact_free_dofs(sys, H, idx, pos, &s);
  /* a rank out of memory passes no set, and the ranks leave the collective together */
  st = fcd__factor_set_schur_free(fac, key, s, pos ? idx : NULL);
  fcd__free(idx);
  fcd__free(pos);
  return st;
}

/* W = H A^-1 H^T from the columns of (A^-1)_SS the ranks hold, S the free dofs H touches
 * (mumps_factor.c, mumps_delassus) */
static fcd_status delassus_from_inverse(const fcd_system *sys, fcd__factor *fac,
                                        const fcd__csr *H, fcd_real *W) {
  fcd_index nz = H->rowptr[H->n], s = 0;
  fcd_index *pos = fcd__malloc_array((size_t)sys->nfree + 1, sizeof *pos);
  fcd_index *idx = fcd__malloc_array((size_t)nz + 1, sizeof *idx);
  if (pos && idx) fcd__contact_free_dofs(sys, H, idx, pos, &s);
  /* a rank out of memory passes no set, and the ranks leave the collective together */
  fcd_status st = fcd__factor_delassus_free(fac, H, s, pos ? idx : NULL, pos, W);
  fcd__free(pos);
  fcd__free(idx);
  return st;
}

fcd_status fcd__delassus_blocks(const fcd_system *sys, fcd_index nf, fcd__block_solve_fn solve,
                                void *ctx, const fcd__csr *H, fcd_real *W) {
  fcd_index m = H->n, bs = m < 64 ? m : 64;
  if (m == 0) return FCD_OK;
  fcd_real *X = fcd__malloc_array((size_t)nf * (size_t)bs, sizeof *X);
  if (!X)
    return fcd__err(sys, FCD_E_NOMEM, "out of memory forming the Delassus operator of %lld "
                    "contact directions", (long long)m);
  fcd_status st = FCD_OK;
  for (fcd_index j0 = 0; j0 < m && st == FCD_OK; j0 += bs) {
    fcd_index nb = m - j0 < bs ? m - j0 : bs;
    memset(X, 0, (size_t)nf * (size_t)nb * sizeof *X);
    for (fcd_index j = 0; j < nb; j++)
      for (fcd_index e = H->rowptr[j0 + j]; e < H->rowptr[j0 + j + 1]; e++)
        X[j * nf + sys->free_of[H->col[e]]] += H->val[e];
    if ((st = solve(ctx, nb, X)) != FCD_OK) break;
    for (fcd_index i = 0; i < m; i++)
      for (fcd_index j = 0; j < nb; j++) {
        fcd_real s = 0;
        for (fcd_index e = H->rowptr[i]; e < H->rowptr[i + 1]; e++)
          s += H->val[e] * X[j * nf + sys->free_of[H->col[e]]];
        W[i * m + j0 + j] = s;
      }
  }
  fcd__free(X);
  return st;
}

typedef struct {
  fcd__factor *fac;
  fcd__solve_fn solve;
} factor_solve_ctx;

static fcd_status factor_block_solve(void *ctx, fcd_index nrhs, fcd_real *X) {
  factor_solve_ctx *c = ctx;
  return c->solve(c->fac, nrhs, X, X);
}

fcd_status fcd__delassus_dense(const fcd_system *sys, fcd__factor *fac, fcd__solve_fn solve,
                               const fcd__csr *H, fcd_real *W) {
  if (H->n == 0) return FCD_OK;
  if (solve == fcd__factor_solve_free && fcd__factor_spread(fac))
    return delassus_from_inverse(sys, fac, H, W);
  /* a serial factor ordered with the contact dofs last has their Schur complement's
   * factor in its trailing block (UMFPACK's LU, umfpack.c; CHOLMOD's Cholesky, factor.c);
   * when the factor is not of that form (UMFPACK pivoted off the order, METIS gave none),
   * solves below */
  if (solve == fcd__factor_solve_free) {
    char saved[FCD_ERRMSG_CAP];
    memcpy(saved, sys->h.err, sizeof saved);
    fcd_status st = delassus_from_inverse(sys, fac, H, W);
    if (st != FCD_E_UNSUPPORTED) return st;
    memcpy((char *)sys->h.err, saved, sizeof saved);
  }
  factor_solve_ctx c = {fac, solve};
  return fcd__delassus_blocks(sys, fcd__factor_size(fac), factor_block_solve, &c, H, W);
}

/* W = H^T A^-1 H, sparse (exact zeros dropped), for a global problem whose H is stored
 * n x m (Hd: dofs by contact directions, over all n dofs of the factor A) with its
 * transpose HT (m x n): fc_problem's one-step problems. Columns go through the factor in
 * blocks of 64. W receives an owned CSR. */
fcd_status fcd__delassus_sparse(const fcd_system *sys, fcd__factor *fac, const fcd__csr *Hd,
                                const fcd__csr *HT, fcd__csr *W) {
  enum { B = 64 };
  fcd_index n = Hd->n, m = HT->n;
  fcd_index cap = 0, t = 0;
  fcd_index *wi = NULL, *wj = NULL;
  fcd_real *wv = NULL;
  fcd_real *y = fcd__malloc_array((size_t)n * B + 1, sizeof *y);
  fcd_status st = y ? FCD_OK : FCD_E_NOMEM;
  const fcd_index *htp = HT->rowptr, *htc = HT->col;
  const fcd_real *htv = HT->val;
  for (fcd_index j0 = 0; st == FCD_OK && j0 < m; j0 += B) {
    fcd_index nb = m - j0 < B ? m - j0 : B;
    memset(y, 0, (size_t)n * nb * sizeof *y);
    for (fcd_index i = 0; i < n; i++)
      for (fcd_index k = Hd->rowptr[i]; k < Hd->rowptr[i + 1]; k++) {
        fcd_index j = Hd->col[k];
        if (j >= j0 && j < j0 + nb) y[(j - j0) * n + i] = Hd->val[k];
      }
    if ((st = fcd__factor_solve(fac, nb, y, y)) != FCD_OK) break;
    for (fcd_index i = 0; i < m; i++)
      for (fcd_index jj = 0; jj < nb; jj++) {
        fcd_real s = 0;
        const fcd_real *yc = y + jj * n;
        for (fcd_index k = htp[i]; k < htp[i + 1]; k++) s += htv[k] * yc[htc[k]];
        if (s == 0.0) continue;
        if (t == cap) {
          fcd_index nc2 = cap ? 2 * cap : 1024;
          fcd_index *a = fcd__grow_array(wi, (size_t)t, (size_t)nc2, sizeof *a);
          if (a) wi = a;
          fcd_index *b = a ? fcd__grow_array(wj, (size_t)t, (size_t)nc2, sizeof *b) : NULL;
          if (b) wj = b;
          fcd_real *c = b ? fcd__grow_array(wv, (size_t)t, (size_t)nc2, sizeof *c) : NULL;
          if (!c) {
            st = FCD_E_NOMEM;
            goto done;
          }
          wv = c;
          cap = nc2;
        }
        wi[t] = i;
        wj[t] = j0 + jj;
        wv[t++] = s;
      }
  }
  if (st == FCD_OK) {
    memset(W, 0, sizeof *W);
    W->n = m;
    if (fcd__coo_to_csr(m, t, wi, wj, wv, &W->rowptr, &W->col, &W->val, NULL) != FCD_OK) {
      st = FCD_E_NOMEM;
    } else {
      W->owned = 1;
      W->set = 1;
    }
  }
done:
  fcd__free(y);
  fcd__free(wi);
  fcd__free(wj);
  fcd__free(wv);
  if (st == FCD_E_NOMEM)
    return fcd__err(sys, st, "out of memory assembling the Delassus operator");
  return st;
}

/* W of the contacts act[0 .. na-1] of H (d rows each) into Wd (na d square, dense), for A
 * factored in fac on the free dofs; X (nf x na d) receives A^-1 H_a^T, which the caller
 * keeps for its correction A^-1 H_a^T p. */
fcd_status fcd__delassus_active(const fcd_system *sys, fcd__factor *fac, fcd__solve_fn solve,
                                const fcd__csr *H, int d, fcd_index na, const fcd_index *act,
                                fcd_real *X, fcd_real *Wd) {
  fcd_index ma = na * d, nf = sys->nfree;
  for (fcd_index a = 0; a < na; a++)
    for (int k = 0; k < d; k++) {
      fcd_index row = act[a] * d + k;
      for (fcd_index e = H->rowptr[row]; e < H->rowptr[row + 1]; e++)
        X[(a * d + k) * nf + sys->free_of[H->col[e]]] = H->val[e];
    }
  FCD_TRY(solve(fac, ma, X, X));
  for (fcd_index a = 0; a < na; a++)
    for (int k = 0; k < d; k++) {
      fcd_index row = act[a] * d + k;
      for (fcd_index j = 0; j < ma; j++) {
        fcd_real s = 0;
        for (fcd_index e = H->rowptr[row]; e < H->rowptr[row + 1]; e++)
          s += H->val[e] * X[j * nf + sys->free_of[H->col[e]]];
        Wd[(a * d + k) * ma + j] = s;
      }
    }
  return FCD_OK;
}

fcd_status fcd__contact_dofs_free(const fcd_system *sys, const fcd__csr *H) {
  for (fcd_index e = 0; e < H->rowptr[H->n]; e++)
    if (sys->free_of[H->col[e]] < 0)
      return fcd__err(sys, FCD_E_STATE, "dof %lld of a contact has been prescribed since "
                      "the contact was added; a contact needs free dofs",
                      (long long)H->col[e]);
  return FCD_OK;
}

fcd_status fcd__wcache_ensure(fcd__wcache *c, const fcd_system *sys, fcd__factor *fac,
                              fcd__solve_fn solve, const fcd_contact_set *cs,
                              const fcd__csr *H) {
  fcd_index m = H->n, facts = fcd__factor_get_stats(fac).factorizations;
  if (c->W && c->facts == facts && c->csver == cs->version) return FCD_OK;
  fcd__free(c->W);
  c->W = fcd__malloc_array((size_t)m * (size_t)m + 1, sizeof *c->W);
  if (!c->W)
    return fcd__err(sys, FCD_E_NOMEM, "out of memory for the Delassus operator of %lld "
                    "contact directions", (long long)m);
  fcd_status st = fcd__delassus_dense(sys, fac, solve, H, c->W);
  if (st != FCD_OK) {
    fcd__free(c->W);
    c->W = NULL;
    return st;
  }
  c->facts = facts;
  c->csver = cs->version;
  /* exact symmetry, which a Cholesky factor's W has by construction: its products may
   * then read one triangle (once a factorization: m^2 / 2 comparisons) */
  c->wsym = 1;
  for (fcd_index i = 0; i < m && c->wsym; i++)
    for (fcd_index j = 0; j < i; j++)
      if (c->W[i * m + j] != c->W[j * m + i]) {
        c->wsym = 0;
        break;
      }
  return FCD_OK;
}

static void free_y(fcd__wcache *c) {
  fcd__free(c->yp);
  fcd__free(c->yi);
  fcd__free(c->yx);
  fcd__free(c->yd);
  fcd__free(c->ys0);
  fcd__free(c->ysp);
  fcd__free(c->ysx);
  c->yp = c->yi = c->ys0 = c->ysp = NULL;
  c->yx = c->yd = c->ysx = NULL;
}

/* Y's columns as stretches when they fill at least half of them (and there is room) */
static void stretch_y(fcd__wcache *c, fcd_index m) {
  fcd_index total = 0;
  c->ys0 = fcd__malloc_array((size_t)m + 1, sizeof *c->ys0);
  c->ysp = fcd__malloc_array((size_t)m + 1, sizeof *c->ysp);
  if (!c->ys0 || !c->ysp) goto none;
  for (fcd_index r = 0; r < m; r++) {
    fcd_index lo = -1, hi = -2;
    for (fcd_index q = c->yp[r]; q < c->yp[r + 1]; q++) {
      lo = lo < 0 || c->yi[q] < lo ? c->yi[q] : lo;
      hi = c->yi[q] > hi ? c->yi[q] : hi;
    }
    c->ys0[r] = lo < 0 ? 0 : lo;
    c->ysp[r] = total;
    total += hi - lo + 1 > 0 ? hi - lo + 1 : 0;
  }
  c->ysp[m] = total;
  if (total > 2 * c->yp[m]) goto none;
  c->ysx = fcd__calloc((size_t)total + 1, sizeof *c->ysx);
  if (!c->ysx) goto none;
  for (fcd_index r = 0; r < m; r++)
    for (fcd_index q = c->yp[r]; q < c->yp[r + 1]; q++)
      c->ysx[c->ysp[r] + c->yi[q] - c->ys0[r]] = c->yx[q];
  return;
none: /* the indexed columns serve */
  fcd__free(c->ys0);
  fcd__free(c->ysp);
  c->ys0 = c->ysp = NULL;
}

/* the dense copy of Y when its columns fill half of it (and there is room) */
static void dense_y(fcd__wcache *c, fcd_index m, fcd_index nf) {
  if (m < FCD__GEMV_MIN || nf <= 0 || 2 * c->yp[m] < m * nf) return;
  c->yd = fcd__calloc((size_t)m * (size_t)nf, sizeof *c->yd);
  if (!c->yd) return; /* the columns serve alone */
  for (fcd_index r = 0; r < m; r++)
    for (fcd_index q = c->yp[r]; q < c->yp[r + 1]; q++) c->yd[r * nf + c->yi[q]] = c->yx[q];
}

fcd_status fcd__wcache_ensure_y(fcd__wcache *c, const fcd_system *sys, fcd__factor *fac,
                                const fcd_contact_set *cs, const fcd__csr *H) {
  fcd_index m = H->n, facts = fcd__factor_get_stats(fac).factorizations;
  if (c->yp && c->yfacts == facts && c->ycsver == cs->version) return FCD_OK;
  free_y(c);
  /* B = H^T on the free dofs, one column per row of H, repeated dofs summed */
  fcd_index nz = H->rowptr[m];
  fcd_index *bp = fcd__malloc_array((size_t)m + 1, sizeof *bp);
  fcd_index *bi = fcd__malloc_array((size_t)nz + 1, sizeof *bi);
  fcd_real *bx = fcd__malloc_array((size_t)nz + 1, sizeof *bx);
  fcd_status st = FCD_OK;
  if (!bp || !bi || !bx) {
    st = fcd__err(sys, FCD_E_NOMEM, "out of memory for the contact columns");
  } else {
    fcd_index k = 0;
    for (fcd_index r = 0; r < m; r++) {
      bp[r] = k;
      for (fcd_index e = H->rowptr[r]; e < H->rowptr[r + 1]; e++) {
        fcd_index f = sys->free_of[H->col[e]], q = bp[r];
        while (q < k && bi[q] != f) q++;
        if (q < k) {
          bx[q] += H->val[e];
        } else {
          bi[k] = f;
          bx[k++] = H->val[e];
        }
      }
    }
    bp[m] = k;
    st = fcd__factor_forward_sparse(fac, m, bp, bi, bx, &c->yp, &c->yi, &c->yx);
  }
  fcd__free(bp);
  fcd__free(bi);
  fcd__free(bx);
  if (st != FCD_OK) {
    free_y(c);
    return st;
  }
  dense_y(c, m, sys->nfree);
  if (!c->yd) stretch_y(c, m);
  c->yfacts = facts;
  c->ycsver = cs->version;
  return FCD_OK;
}

void fcd__wcache_free(fcd__wcache *c) {
  fcd__free(c->W);
  c->W = NULL;
  free_y(c);
}
