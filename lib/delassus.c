/* Dense Delassus operators W = H A^-1 H^T for the factored operators A of integrators
 * (M + h theta C + h^2 theta^2 K) and equilibria (K). */
#include "fc_private.h"

#include <string.h>

fcd_status fcd__delassus_dense(const fcd_system *sys, fcd__factor *fac, const fcd__csr *H,
                               fcd_real *W) {
  fcd_index m = H->n, nf = fcd__factor_size(fac), bs = m < 64 ? m : 64;
  if (m == 0) return FCD_OK;
  /* columns go through the factor in blocks: nf x 64 of extra memory at most */
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
    if ((st = fcd__factor_solve(fac, nb, X, X)) != FCD_OK) break;
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

fcd_status fcd__contact_dofs_free(const fcd_system *sys, const fcd__csr *H) {
  for (fcd_index e = 0; e < H->rowptr[H->n]; e++)
    if (sys->free_of[H->col[e]] < 0)
      return fcd__err(sys, FCD_E_STATE, "dof %lld of a contact has been prescribed since "
                      "the contact was added; a contact needs free dofs",
                      (long long)H->col[e]);
  return FCD_OK;
}

fcd_status fcd__wcache_ensure(fcd__wcache *c, const fcd_system *sys, fcd__factor *fac,
                              const fcd_contact_set *cs, const fcd__csr *H) {
  fcd_index m = H->n, facts = fcd__factor_get_stats(fac).factorizations;
  if (c->W && c->facts == facts && c->csver == cs->version) return FCD_OK;
  fcd__free(c->W);
  c->W = fcd__malloc_array((size_t)m * (size_t)m + 1, sizeof *c->W);
  if (!c->W)
    return fcd__err(sys, FCD_E_NOMEM, "out of memory for the Delassus operator of %lld "
                    "contact directions", (long long)m);
  fcd_status st = fcd__delassus_dense(sys, fac, H, c->W);
  if (st != FCD_OK) {
    fcd__free(c->W);
    c->W = NULL;
    return st;
  }
  c->facts = facts;
  c->csver = cs->version;
  return FCD_OK;
}

static void free_y(fcd__wcache *c) {
  fcd__free(c->yp);
  fcd__free(c->yi);
  fcd__free(c->yx);
  c->yp = c->yi = NULL;
  c->yx = NULL;
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
  c->yfacts = facts;
  c->ycsver = cs->version;
  return FCD_OK;
}

void fcd__wcache_free(fcd__wcache *c) {
  fcd__free(c->W);
  c->W = NULL;
  free_y(c);
}
