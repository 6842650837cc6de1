/* What the files of the stability analysis share (stability.c: the API, the solve's
 * driver and the sweeps; stability_reduce.c: seed 000's reduction; stability_eigs.c: the
 * eigen-paths and their certificates). */
#ifndef FCD_STABILITY_PRIVATE_H
#define FCD_STABILITY_PRIVATE_H

#include "lapack.h"
#include "capabilities.h"
#include "fcd/fcd_stability.h"

#include <complex.h>

#define FCD_STABILITY_MAGIC 0x66637374u /* "fcst" */

struct fcd_stability {
  uint32_t magic;
  fcd_system *sys;
  fcd_contact_set *cs;
  int *status;      /* per contact */
  fcd_real *slip;   /* (d - 1) per contact */
  fcd_real *rn, *speed; /* sliding data, or NULL */
  fcd_index nev;
  fcd_real target_hz, mu_override, tol;
  fcd_index max_it; /* eigen-solver restarts */
  int damping;
  fcd_index dense_max;
  int path_set;      /* FCD_STAB_EIGEN_PATH: an fcd_eigen_path, or FCD_EIGEN_AUTO */
  int path;          /* the last good solve's path, -1 before one */
  fcd_index proj_modes; /* basis of the modal projection (0: automatic) */
  fcd__eigseam seam; /* the host's communicator's seam (backends.h); zero: serial */
  int share_sweep; /* FCD_STAB_SHARE_SWEEP */
  int keep_reduced; /* benchmarks: keep the sparse K*, M* of the last solve */
  fcd__csr keptK, keptM;
  /* results */
  int solved;
  fcd_index nred, nfree;
  fcd_index nconv;
  fcd_real *lre, *lim; /* nconv eigenvalues, sorted */
  fcd_real *vre, *vim; /* nconv x ndofs mode shapes */
  int any_flutter, any_divergence, necessary; /* of the eigenvalues within the band */
  fcd_real band_set;    /* FCD_STAB_BAND_HZ, 0: the system's own (a reduced model's) */
  fcd_real band_hz;     /* the band of the last solve (INFINITY: none) */
  fcd_index noutside, nunstable_out; /* eigenvalues above it, and the unstable ones */
  fcd_real min_sym;
  fcd_index ninf; /* eigenvalues lambda dropped as infinite by the last (dense) solve */
  fcd_real berr, bnorm; /* worst eigenpair backward error of the last solve, and the
                         * norm it is relative to */
  fcd_real btol;        /* the bound berr was checked against; +inf: reported only (a
                         * modal projection is an approximation, not a backward-stable solve) */
  int had_results;      /* a solve's failure message: whether earlier results are kept */
  /* the global estimate beside a partial window (stability_estimate.c) */
  fcd_index est_modes;  /* FCD_STAB_ESTIMATE_MODES */
  int est_have, est_fresh;
  fcd_real est_re, est_im, est_band;
  fcd_index est_used;
  char est_why[200];    /* why the last solve has none */
};

static inline fcd_index fcd__stab_nct(const fcd_stability *st) { return st->cs ? st->cs->n : 0; }
static inline int fcd__stab_cdim(const fcd_stability *st) { return st->cs ? st->cs->dim : 2; }

/* sparse rows of T (free dofs -> reduced): master rows are e_{col}, slave rows lists */
typedef struct {
  fcd_index nf, nred;
  fcd_index *col_of;       /* free dof -> reduced index, -1 for slaves */
  fcd_index *srow_ptr;     /* per free dof: range in sidx/sval (slaves only) */
  fcd_index *sidx;         /* reduced column */
  fcd_real *sval;
} tmap;

/* What a failed solve leaves, for its message: "the previous results are kept" or
 * "no earlier solve's results exist" (fcd_stability_solve sets had_results). */
static inline const char *fcd__stab_kept(const fcd_stability *st) {
  return st->had_results ? "the previous results are kept" : "there are no earlier results";
}

/* The bound on the eigenpairs' backward error, dense and sparse alike: max(1e-8, 100 x
 * FCD_STAB_TOLERANCE), so that the tolerance is the knob a user turns when a badly scaled
 * pencil's pairs are good to, say, 2e-8. */
static inline fcd_real fcd__stab_bound(const fcd_stability *st) {
  return 100 * st->tol > 1e-8 ? 100 * st->tol : 1e-8;
}

/* frees a map and zeroes it */
void fcd__stab_tmap_free(tmap *t);

/* contact c's friction coefficient in this solve (the sweep's override, or its own) */
fcd_real fcd__stab_mu(const fcd_stability *st, fcd_index c);

/* Builds T_n and T_mu. */
fcd_status fcd__stab_build_maps(fcd_stability *st, tmap *tn, tmap *tm);

/* A* = T_mu^T A T_n, dense (nred x nred, row-major), for A on the free pattern (full
 * storage, values val). */
void fcd__stab_reduce_dense(const fcd__free_pattern *fp, const fcd_real *val, const tmap *tn,
                            const tmap *tm, fcd_real *out);

/* A* = T_mu^T A T_n in CSR (for the sparse path), same loops with a row accumulator */
fcd_status fcd__stab_reduce_csr(const fcd_system *sys, const fcd__free_pattern *fp,
                                const fcd_real *val, const tmap *tn, const tmap *tm,
                                fcd__csr *out);

/* 3D sliding damping on the free pattern: C += -mu r_n / v b b^T over the contact's
 * relative displacement, b the tangent direction normal to the slip. For contact c,
 * fills bl = T_mu^T b and br = T_n^T b (reduced, nr each, zeroed here) and returns the
 * coefficient, or 0 when the contact adds nothing. */
fcd_real fcd__stab_sliding_vectors(const fcd_stability *st, const tmap *tn, const tmap *tm,
                                   fcd_index c, fcd_real *bl, fcd_real *br, int *nomem);

/* The sliding damping as a dense addition to the reduced C* (few contacts, small
 * support): C* += coef (T_mu^T b)(b^T T_n). -1 when out of memory. */
int fcd__stab_add_sliding_damping(const fcd_stability *st, const tmap *tn, const tmap *tm,
                                  fcd_real *Cr);


/* The eigen-paths of a reduced pencil (fcd_eigen_path), each a row of stability_eigs.c's
 * table with its name, its operations and the problems it fits:
 *   DENSE: the whole spectrum by LAPACK, up to dense_max reduced dofs (the pencil, or
 *     the companion form of the quadratic);
 *   PENCIL: SLEPc's generalized problem (K*, M*) at the real shift -(2 pi target_hz)^2,
 *     undamped or with Rayleigh damping through each pair's exact quadratic;
 *   QUADRATIC: SLEPc's quadratic problem at a real shift (general damping, target 0);
 *   PROJECTED: a modal projection, where the quadratic problem would need a complex
 *     shift (general damping away from 0 Hz, or 3D sliding damping).
 * The path of a solve of nr reduced dofs, damped or not: the one FCD_STAB_EIGEN_PATH
 * names, refused with a message when it does not fit the problem; else dense up to
 * dense_max, then the first sparse row that fits. */
/* the registry's rows of FCD_FAMILY_EIGEN_PATH (registry.c) */
int fcd__eigen_path_registry(int k, fcd__named *out);
fcd_status fcd__stab_path(fcd_stability *st, fcd_index nr, int damped, fcd_eigen_path *path);
/* the solve along the path: its eigenpairs stored in st, certified against their bound */
fcd_status fcd__stab_solve_path(fcd_stability *st, fcd_eigen_path path,
                                const fcd__free_pattern *fp, const tmap *tn, const tmap *tm,
                                int damped);

/* drops the last solve's results (the eigenpairs and what was derived from them) */
void fcd__stab_free_results(fcd_stability *st);

/* the system has damping of its own (C, or Rayleigh coefficients) */
static inline int fcd__stab_has_damping(const fcd_system *sys) {
  return sys->mat[FCD_DAMPING].set || sys->ray_alpha != 0 || sys->ray_beta != 0;
}

#endif
