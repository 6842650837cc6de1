/* The system layer (lib/layers.txt): the system's own functions beyond its public API. */
#ifndef FCD_LIB_SYSTEM_H
#define FCD_LIB_SYSTEM_H

#include "dist.h"

/* "mass", "damping" or "stiffness" */
const char *fcd__matrix_name(fcd_matrix_kind which);

/* frees a free-dof pattern's arrays and zeroes it (a half-built one too) */
void fcd__free_pattern_clear(fcd__free_pattern *fp);

/* Above this relative asymmetry a full-storage matrix is not symmetric: CHOLMOD and the
 * symmetric eigen-solver read one triangle only. Data written with 7 significant digits
 * sit below it (the LMGC90 global problems of tests/data/fclib: M at 1.5e-7, solved and
 * certified from one triangle); a non-symmetric operator (follower loads, gyroscopic
 * couplings) is asymmetric at order one. (Modal checks used 1e-10 before.) */
#define FCD__ASYM_TOL 1e-6
/* Frees sys->fp (rebuilt on the next fcd__system_free_pattern, algebra.h): a caller done with
 * combinations, whose factor is made, gives its memory back (the interior's full-storage
 * pattern and maps at a million dofs: about 2 GB) */
void fcd__system_release_free_pattern(fcd_system *sys);
/* The relative asymmetry of matrix which (0 in symmetric storage or when not set),
 * measured once per value version. Serial systems only (a distributed system's rows
 * are spread over the ranks): 0 there. */
fcd_real fcd__system_asymmetry(fcd_system *sys, fcd_matrix_kind which);
/* FCD_E_INVALID_ARG naming the matrix when a M + b C + c K (C the full damping
 * operator) involves a non-symmetric one. Collective on a distributed system (the
 * distributed factor's path), the same figures on every rank. */
fcd_status fcd__system_require_symmetric(fcd_system *sys, fcd_real a, fcd_real b, fcd_real c);
/* *nonsym = 1 when C or K, with a non-zero coefficient in a M + b C + c K, is not
 * symmetric (the operator then needs an LU); a non-symmetric M is FCD_E_INVALID_ARG.
 * Collective on a distributed system. */
fcd_status fcd__system_combination_symmetry(fcd_system *sys, fcd_real a, fcd_real b,
                                            fcd_real c, int *nonsym);
/* 1 when K is not symmetric: its skew part is a circulatory (non-conservative) force
 * whose work the energy ledgers book as external work. Collective when distributed. */
int fcd__system_circulatory(fcd_system *sys);

/* A reduced model's band (Hz; INFINITY: none), which an eigen-analysis of the system
 * reports its eigenvalues against, and the damping the reduction gave its dynamics above
 * it (cband: values in the stored damping's pattern, copied; NULL: none; cband_only: the
 * stored damping is that alone), which eigen-analyses leave out
 * (fcd__system_combination_eig). Set by the reduction on the system it owns. */
fcd_status fcd__system_set_band(fcd_system *sys, fcd_real band_hz, const fcd_real *cband,
                                int cband_only);

void fcd__system_retain(fcd_system *sys);
void fcd__system_release(fcd_system *sys);

/* The free numbering and the full one (dof_of: free index -> dof): full[dof_of[k]] =
 * xf[k] over the free dofs (the prescribed entries of full untouched), the same added
 * times a, and xf[k] = full[dof_of[k]]. The one place for these loops. */
static inline void fcd__free_to_full(const fcd_system *sys, const fcd_real *xf, fcd_real *full) {
  for (fcd_index k = 0; k < sys->nfree; k++) full[sys->dof_of[k]] = xf[k];
}
static inline void fcd__free_add_full(const fcd_system *sys, fcd_real a, const fcd_real *xf,
                                      fcd_real *full) {
  for (fcd_index k = 0; k < sys->nfree; k++) full[sys->dof_of[k]] += a * xf[k];
}
static inline void fcd__full_to_free(const fcd_system *sys, const fcd_real *full, fcd_real *xf) {
  for (fcd_index k = 0; k < sys->nfree; k++) xf[k] = full[sys->dof_of[k]];
}

#endif
