/* SPD checks and undamped natural modes on the free dofs. */
#include "capabilities.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Symmetric storage is symmetric by construction; full storage is checked to round-off
 * because CHOLMOD and the symmetric eigen-solver read one triangle only. */
static fcd_status require_symmetric(fcd_system *sys, fcd_matrix_kind which) {
  if (!sys->mat[which].set)
    return fcd__err(sys, FCD_E_STATE, "%s matrix was never set", fcd__matrix_name(which));
  fcd_real asym = fcd__system_asymmetry(sys, which);
  if (!(asym <= FCD__ASYM_TOL))
    return fcd__err(sys, FCD_E_INVALID_ARG,
                    "%s matrix is not symmetric (relative asymmetry %.3g)",
                    fcd__matrix_name(which), asym);
  return FCD_OK;
}

fcd_status fcd_system_check_spd(fcd_system *sys, fcd_matrix_kind which) {
  FCD_CHECK_SYS(sys);
  if ((int)which < 0 || (int)which > 2)
    return fcd__err(sys, FCD_E_INVALID_ARG, "check_spd: unknown matrix kind %d", (int)which);
  FCD_TRY(require_symmetric(sys, which));
  if (sys->nfree == 0)
    return fcd__err(sys, FCD_E_STATE, "check_spd: every dof is prescribed");
  fcd__factor *f;
  FCD_TRY(fcd__factor_create(sys, FCD__FACTOR_SPD, &f));
  /* The explicit damping matrix alone, not the Rayleigh-augmented operator: the
   * combination scales M by a + b alpha and K by c + b beta, which -alpha and -beta
   * cancel exactly. */
  int damp = which == FCD_DAMPING;
  fcd_real a = which == FCD_MASS ? 1.0 : (damp ? -sys->ray_alpha : 0.0);
  fcd_real c = which == FCD_STIFFNESS ? 1.0 : (damp ? -sys->ray_beta : 0.0);
  fcd_status st = fcd__factor_combination(f, a, damp ? 1.0 : 0.0, c);
  fcd__factor_destroy(f);
  if (st == FCD_E_NOT_SPD) {
    char detail[FCD_ERRMSG_CAP];
    snprintf(detail, sizeof detail, "%s", sys->h.err);
    return fcd__err(sys, st, "%s matrix restricted to the free dofs is not SPD (%s)",
                    fcd__matrix_name(which), detail);
  }
  return st;
}

fcd_status fcd_system_natural_modes(fcd_system *sys, fcd_index nev, fcd_real *omega2,
                                    fcd_real *modes, fcd_index *nconv) {
  FCD_CHECK_SYS(sys);
  if (!omega2 || !nconv)
    return fcd__err(sys, FCD_E_INVALID_ARG, "natural_modes: %s is NULL",
                    !omega2 ? "omega2" : "nconv");
  *nconv = 0;
  if (fcd__dist_on(sys))
    return fcd__err(sys, FCD_E_UNSUPPORTED, "natural_modes: not offered on a distributed "
                    "system yet");
  if (nev <= 0 || nev > sys->nfree)
    return fcd__err(sys, FCD_E_INVALID_ARG,
                    "natural_modes: nev = %lld must lie in [1, %lld] (the free dofs)",
                    (long long)nev, (long long)sys->nfree);
  FCD_TRY(require_symmetric(sys, FCD_MASS));
  FCD_TRY(require_symmetric(sys, FCD_STIFFNESS));
  const fcd__free_pattern *fp;
  FCD_TRY(fcd__system_free_pattern(sys, &fp));
  fcd_index nf = fp->n;
  fcd_real *kv = fcd__malloc_array((size_t)fp->nnz, sizeof *kv);
  fcd_real *mv = fcd__malloc_array((size_t)fp->nnz, sizeof *mv);
  fcd_real *w = fcd__malloc_array((size_t)nev, sizeof *w);
  fcd_real *vv = fcd__malloc_array((size_t)nf * (size_t)nev, sizeof *vv);
  fcd_real *tmp = fcd__malloc_array((size_t)nf, sizeof *tmp);
  fcd_index *order = fcd__malloc_array((size_t)nev, sizeof *order);
  fcd_status st;
  fcd_index nc = 0;
  if (!kv || !mv || !w || !vv || !tmp || !order) {
    st = fcd__err(sys, FCD_E_NOMEM, "natural_modes: out of memory");
    goto done;
  }
  st = fcd__system_combination(sys, 0.0, 0.0, 1.0, kv);
  if (st == FCD_OK) st = fcd__system_combination(sys, 1.0, 0.0, 0.0, mv);
  if (st == FCD_OK)
    st = fcd__slepc_gen_sym_lowest(sys, nf, fp->rowptr, fp->col, kv, mv, nev, w, vv, &nc);
  if (st != FCD_OK) goto done;
  /* increasing omega^2 (insertion sort: nev is small) */
  for (fcd_index k = 0; k < nc; k++) order[k] = k;
  for (fcd_index k = 1; k < nc; k++)
    for (fcd_index j = k; j > 0 && w[order[j]] < w[order[j - 1]]; j--) {
      fcd_index t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
  for (fcd_index k = 0; k < nc; k++) omega2[k] = w[order[k]];
  if (modes) {
    memset(modes, 0, (size_t)sys->n * (size_t)nc * sizeof *modes);
    for (fcd_index k = 0; k < nc; k++) {
      fcd_real *v = vv + order[k] * nf;
      /* M-normalize and fix the sign (largest component positive) so results do not
       * depend on the eigen-solver's arbitrary scaling. */
      fcd__free_matvec(fp, mv, v, tmp);
      fcd_real mn = 0.0, big = 0.0;
      for (fcd_index i = 0; i < nf; i++) {
        mn += v[i] * tmp[i];
        if (fabs(v[i]) > fabs(big)) big = v[i];
      }
      fcd_real s = (mn > 0 ? 1.0 / sqrt(mn) : 1.0) * (big < 0 ? -1.0 : 1.0);
      fcd_real *out = modes + k * sys->n;
      for (fcd_index i = 0; i < nf; i++) out[sys->dof_of[i]] = s * v[i];
    }
  }
  *nconv = nc;
  if (nc < nev)
    st = fcd__err(sys, FCD_E_NOT_CONVERGED,
                  "natural_modes: %lld of %lld requested eigenpairs converged",
                  (long long)nc, (long long)nev);
done:
  fcd__free(kv);
  fcd__free(mv);
  fcd__free(w);
  fcd__free(vv);
  fcd__free(tmp);
  fcd__free(order);
  return st;
}
