/* Operators on the free dofs: one union pattern of M, C and K, on which every linear
 * combination a M + b C + c K is formed in O(nnz) by scattering through fixed maps. */
#include "algebra.h"

#include <string.h>

static fcd_status build_free_pattern(fcd_system *sys) {
  fcd__free_pattern *fp = &sys->fp;
  fcd_index total = 0;
  for (int k = 0; k < 3; k++) {
    fcd_index nk = fcd__csr_nnz(&sys->mat[k]);
    total += sys->mat[k].upper ? 2 * nk : nk;
  }
  /* Every owned free row gets its diagonal, stored as a zero when no matrix has it: a dof
   * only a contact holds must take K + eps D as a dof with a stored zero does. */
  fcd_index dlo = 0, dhi = sys->nfree;
  fcd__rows_free_range(sys, &dlo, &dhi);
  total += dhi - dlo;
  fcd_index *ri = fcd__malloc_array((size_t)total, sizeof *ri);
  fcd_index *ci = fcd__malloc_array((size_t)total, sizeof *ci);
  fcd_index *pos = fcd__malloc_array((size_t)total, sizeof *pos);
  fcd__free_pattern np = {0};
  fcd_status st = FCD_E_NOMEM;
  if (!ri || !ci || !pos) goto done;
  /* Triplets in a fixed order: for each matrix its entries, then its mirrors. */
  fcd_index t = 0;
  for (int k = 0; k < 3; k++) {
    const fcd__csr *a = &sys->mat[k];
    if (!a->set) continue;
    for (fcd_index i = 0; i < a->n; i++) {
      fcd_index fi = sys->free_of[i];
      for (fcd_index p = a->rowptr[i]; p < a->rowptr[i + 1]; p++) {
        fcd_index fj = sys->free_of[a->col[p]];
        if (fi < 0 || fj < 0) continue;
        ri[t] = fi;
        ci[t] = fj;
        t++;
        if (a->upper && fi != fj) {
          ri[t] = fj;
          ci[t] = fi;
          t++;
        }
      }
    }
  }
  for (fcd_index f = dlo; f < dhi; f++) {
    ri[t] = f;
    ci[t] = f;
    t++;
  }
  if (fcd__coo_to_csr(sys->nfree, t, ri, ci, NULL, &np.rowptr, &np.col, NULL, pos) !=
      FCD_OK)
    goto done;
  np.n = sys->nfree;
  np.nnz = np.rowptr[np.n];
  /* Replay the same traversal to record where each source entry landed. */
  t = 0;
  for (int k = 0; k < 3; k++) {
    const fcd__csr *a = &sys->mat[k];
    if (!a->set) continue;
    fcd_index nk = fcd__csr_nnz(a);
    np.map[k] = fcd__malloc_array((size_t)nk, sizeof(fcd_index));
    np.mapt[k] = fcd__malloc_array((size_t)nk, sizeof(fcd_index));
    if (!np.map[k] || !np.mapt[k]) goto done;
    for (fcd_index i = 0; i < a->n; i++) {
      fcd_index fi = sys->free_of[i];
      for (fcd_index p = a->rowptr[i]; p < a->rowptr[i + 1]; p++) {
        fcd_index fj = sys->free_of[a->col[p]];
        np.map[k][p] = -1;
        np.mapt[k][p] = -1;
        if (fi < 0 || fj < 0) continue;
        np.map[k][p] = pos[t++];
        if (a->upper && fi != fj) np.mapt[k][p] = pos[t++];
      }
    }
  }
  np.version = sys->pattern_version;
  {
    fcd__free_pattern old = *fp;
    *fp = np;
    memset(&np, 0, sizeof np);
    fcd__free(old.rowptr);
    fcd__free(old.col);
    for (int k = 0; k < 3; k++) {
      fcd__free(old.map[k]);
      fcd__free(old.mapt[k]);
    }
  }
  st = FCD_OK;
done:
  fcd__free(ri);
  fcd__free(ci);
  fcd__free(pos);
  fcd__free(np.rowptr);
  fcd__free(np.col);
  for (int k = 0; k < 3; k++) {
    fcd__free(np.map[k]);
    fcd__free(np.mapt[k]);
  }
  if (st != FCD_OK)
    return fcd__err(sys, st, "out of memory building the free-dof operator pattern");
  return st;
}

fcd_status fcd__system_free_pattern(fcd_system *sys, const fcd__free_pattern **fp) {
  if (sys->fp.version != sys->pattern_version) FCD_TRY(build_free_pattern(sys));
  *fp = &sys->fp;
  return FCD_OK;
}

static fcd_status combination(fcd_system *sys, fcd_real a, fcd_real b, fcd_real c,
                              fcd_real *val, int eig) {
  const fcd__free_pattern *fp;
  FCD_TRY(fcd__system_free_pattern(sys, &fp));
  const fcd_real coef[3] = {a + b * sys->ray_alpha, c + b * sys->ray_beta, b};
  /* an empty pattern (every matrix without entries) may come with val NULL */
  if (fp->nnz > 0) memset(val, 0, (size_t)fp->nnz * sizeof *val);
  for (int k = 0; k < 3; k++) {
    const fcd__csr *m = &sys->mat[k];
    if (!m->set || coef[k] == 0.0) continue;
    fcd_index nk = fcd__csr_nnz(m);
    const fcd_index *map = fp->map[k], *mapt = fp->mapt[k];
    const fcd_real *band = eig && k == FCD_DAMPING ? sys->cband : NULL;
    for (fcd_index p = 0; p < nk; p++) {
      if (map[p] < 0) continue;
      fcd_real v = coef[k] * (band ? m->val[p] - band[p] : m->val[p]);
      val[map[p]] += v;
      if (mapt[p] >= 0) val[mapt[p]] += v;
    }
  }
  return FCD_OK;
}

fcd_status fcd__system_combination(fcd_system *sys, fcd_real a, fcd_real b, fcd_real c,
                                   fcd_real *val) {
  return combination(sys, a, b, c, val, 0);
}

fcd_status fcd__system_combination_eig(fcd_system *sys, fcd_real a, fcd_real b, fcd_real c,
                                       fcd_real *val) {
  return combination(sys, a, b, c, val, 1);
}

void fcd__free_matvec(const fcd__free_pattern *fp, const fcd_real *val,
                      const fcd_real *x, fcd_real *y) {
  for (fcd_index i = 0; i < fp->n; i++) {
    fcd_real s = 0.0;
    for (fcd_index p = fp->rowptr[i]; p < fp->rowptr[i + 1]; p++) s += val[p] * x[fp->col[p]];
    y[i] = s;
  }
}
