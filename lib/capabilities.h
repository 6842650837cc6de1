/* The capabilities layer (lib/layers.txt): what its files share beyond their own
 * private headers (equilibrium_private.h, mechanism.h, schemes.h). */
#ifndef FCD_LIB_CAPABILITIES_H
#define FCD_LIB_CAPABILITIES_H

#include "fc_private.h"
#include "geometry.h"

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

#endif
