/* The capabilities layer (lib/layers.txt): what its files share beyond their own
 * private headers (equilibrium_private.h, mechanism.h, schemes.h, reduction_private.h,
 * stability_private.h, lattice_private.h). */
#ifndef FCD_LIB_CAPABILITIES_H
#define FCD_LIB_CAPABILITIES_H

#include "fc_private.h"
#include "geometry.h"

/* A load added to the system's at every step of it (f holds the system's load at t; the
 * callback adds to it; nonzero: FCD_E_CALLBACK): a shooting solver's periodic forcing.
 * NULL removes it. */
typedef int (*fcd__forcing_fn)(void *ud, fcd_real t, fcd_index n, fcd_real *f);
fcd_status fcd__integrator_set_forcing(fcd_integrator *it, fcd__forcing_fn fn, void *ud);

/* fcd__factor_set_separators for an equilibrium's factor (a quasistatic integrator's) */
void fcd__equilibrium_set_separators(fcd_equilibrium *eq, int on);

/* the growth rate beyond a partial window (stability_estimate.c): K* and M* (reduced,
 * full storage) projected on the nm lowest modes of the frictionless reduced pencil
 * (K0, M0) and solved densely; re, im: the projected eigenvalue of largest real part
 * (undamped), band_hz the highest mode's frequency, used the basis size */
fcd_status fcd__stability_estimate(fcd_system *sys, const fcd__csr *K0, const fcd__csr *M0,
                                   const fcd__csr *Kr, const fcd__csr *Mr, fcd_index nm,
                                   fcd_real *re, fcd_real *im, fcd_real *band_hz,
                                   fcd_index *used);

/* ---- component mode synthesis (reduction.c) ----
 * The Craig-Bampton basis of sys with the dofs of cs's contact rows and the prescribed
 * dofs that can move kept physical (bdofs, nb of them, ascending; a dof held at zero is
 * left out) and the m lowest fixed-interface modes (omega2, ascending): T (n x nr,
 * column-major, nr = nb + m, m counting the modes, then the inertia and static
 * corrections) holds the constraint modes (column j: 1 on bdofs[j], 0 on the other kept
 * dofs, the interior's static response) then the modal columns (M-normalized, 0 on the
 * kept dofs); K, M, C (nr x nr,
 * column-major) are T' K T, T' M T and T' C T of the stored matrices (C NULL when the
 * system has no damping matrix; Rayleigh terms apply to the reduced K and M as they
 * are). Mass and stiffness must be symmetric, the interior's stiffness positive definite.
 * The constraint modes are stored in T (tstored) or applied through the interior's factor
 * (psi; T NULL, reduction_basis.c); Q is T's modal columns (n x m) either way. storage:
 * FCD_BASIS_AUTO, _STORED or _FACTORED.
 * ninertia: the inertia correction vectors (inertia_correction in reduction.c).
 * dense_max: the largest interior solved densely for its modes (0: the default), the
 * block solver beyond (SLEPc when it declines; a negative dense_max, -d, is d with
 * SLEPc alone, for the tests). Serial systems only. */
typedef struct {
  fcd_index n, nb, m, nr;
  fcd_index ni;    /* the interior's dofs (neither kept nor prescribed) */
  fcd_index ncorr; /* static correction columns (0 or 1): the last of the m modal ones */
  fcd_index ndyn;  /* inertia correction columns, after the modes, before the static one */
  fcd_index *bdofs;
  fcd_real *omega2;
  fcd_real *T;
  fcd_real *Q;              /* the modal columns: T + nb n when stored, their own array */
  int tstored;              /* T_b is T's first nb columns, filled */
  struct fcd__cb_psi *psi; /* the factored constraint modes, or NULL */
  double factor_bytes, peak_bytes; /* the interior's factor, the dense arrays' peak */
  double fwd_bytes; /* W of the factored basis while it was built (0: not kept) */
  int fwd_always;   /* W kept whatever its size (FCD__BASIS_HALVES) */
  double mem_limit;  /* the bytes the process may hold (fcd_reduction_options) */
  fcd_index space;   /* the block Lanczos' space (0: its default), fitted to mem_limit */
  fcd_real *K, *M, *C;
  /* the band (reduction_band.c): band_hz, below which the model's eigenvalues are the
   * full model's (INFINITY: every interior mode kept, the model is exact; 0: no mode);
   * cut_hz, above which its dynamics are damped (INFINITY: none), over ndamp directions
   * (their damping is part of C) */
  fcd_real band_hz, cut_hz;
  fcd_index ndamp;
  fcd_real *Cband; /* that damping alone (nr x nr, column-major), or NULL */
  int cband_only;  /* C is the band's damping alone (the system has no damping matrix) */
  /* the reduced pencil's modes (contacts free) on the nfree free reduced dofs fpos:
   * Phi (nfree x nfree, column-major, M-orthonormal), phiw2 their omega^2 ascending;
   * NULL when the band is 0 or infinite (the band's energy indicator reads them) */
  fcd_index nfree, *fpos;
  fcd_real *Phi, *phiw2;
} fcd__cb;
/* The band of a Craig-Bampton basis and its damping above the cut (reduction_band.c):
 * band_hz = f_m / 1.5 for f_m the highest kept fixed-interface mode; with cut > 0 and
 * xi > 0, the part of the free reduced space M-orthogonal to the modes below cut f_m of
 * both the reduced pencil and the pencil with every contact's normal held gets the
 * damping ratio xi in its own modes, added to C. cs may be NULL. */
fcd_status fcd__cb_band_limit(fcd_system *sys, const fcd_contact_set *cs, fcd__cb *cb,
                              fcd_real cut, fcd_real xi);
/* mem_limit: the bytes the process may hold (0: the machine's, fcd__memory_limit).
 * storage | FCD__BASIS_HALVES (tests): a factored basis keeps W whatever its size. */
#define FCD__BASIS_HALVES 0x100
fcd_status fcd__cb_build(fcd_system *sys, fcd_contact_set *cs, fcd_index m,
                         fcd_index ninertia, fcd_index dense_max, int storage,
                         double mem_limit, fcd__cb *cb);
/* The nev lowest modes of the clamped system ci (its free dofs, the interior), f the
 * factor of its stiffness, by block shift-and-invert Lanczos with thick restarts
 * (reduction_modes.c) in a space of `space` columns (0: about two nev), its first ones
 * in Phi's memory: omega2 ascending, Phi (ci->n x nev, column-major, zero off the
 * interior) M-orthonormal, *done = 1 (Phi's values are undefined otherwise);
 * *done = 0 with FCD_OK when the interior is too small against the space or the residuals
 * do not reach the tolerance within a budget of blocks (SLEPc's way then). stats (NULL or)
 * counts the blocks made and those that took a second Gram-Schmidt pass. */
typedef struct {
  fcd_index blocks, second_passes;
} fcd__bl_stats;
fcd_status fcd__cb_block_modes(fcd_system *ci, fcd__factor *f, fcd_index nev, fcd_index space,
                               fcd_real *omega2, fcd_real *Phi, int *done,
                               fcd__bl_stats *stats);
/* the numbers (8 bytes each) fcd__cb_block_modes holds at its peak in a space of `space`
 * columns (0: its default; any value under its least, nev and three blocks, is its least),
 * beside the caller's Phi (n x nev), in which its first columns live */
double fcd__cb_block_modes_numbers(fcd_index n, fcd_index ni, fcd_index nev, fcd_index space);
/* The largest space (whole blocks, from the default down to the least) whose numbers are
 * at most avail: 0 when the default fits, the least when none does */
fcd_index fcd__cb_block_space_fit(fcd_index n, fcd_index ni, fcd_index nev, double avail);
void fcd__cb_clear(fcd__cb *cb);

#endif
