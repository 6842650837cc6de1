/** @file fcd/fcd_certificate.h
 *  @brief The certificate every solve carries: the residuals of its result against the
 *  contact law and the balance it solves, each relative to a scale of the model
 *  (docs/conventions.md, "Certificates").
 *
 *  An equilibrium solve (static, steady sliding, and the incremental problems of the
 *  quasistatic scheme) whose certificate exceeds its tolerance does not return FCD_OK:
 *  it returns FCD_E_NOT_CONVERGED with the figures in the message, and the handle keeps
 *  its last good state. The figures of the last successful solve are read with
 *  fcd_equilibrium_get_certificate().
 *
 *  With F the force scale, L the length scale (a velocity scale for the velocity-level
 *  schemes) and R = max(F, largest contact reaction) the reaction scale, at every contact
 *  with gap residual g_r = u_N - g (velocity-level: the scheme's normal velocity):
 *  - equilibrium: largest entry of the balance residual on the free dofs over F, where
 *    F = max(|f|, |H^T r|, |K| |u|) (largest entries): a backward error;
 *  - penetration: max(0, g_r) / L;
 *  - complementarity: |min(-g_r / L, -r_N / R)| (Signorini's natural map), and for the
 *    friction law |r_T - proj_{mu |r_N|}(r_T - (R / L) w_T)| / R with w_T the slip
 *    (tangential displacement from the reference, or slip velocity);
 *  - cone: max(0, r_N) / R and max(0, |r_T| - mu |r_N|) / R.
 *  @since 0.1 */
#ifndef FCD_CERTIFICATE_H
#define FCD_CERTIFICATE_H

#include <fcd/fcd_common.h>

FCD_BEGIN_DECLS

/** The certificate of one solve (all figures relative, dimensionless, >= 0). */
typedef struct {
  fcd_real equilibrium;     /**< balance residual over the force scale */
  fcd_real penetration;     /**< largest penetration over the length scale */
  fcd_real complementarity; /**< largest Signorini or friction-law natural-map residual */
  fcd_real cone;            /**< largest tension or excess over the Coulomb cone */
  fcd_real worst;           /**< the largest of the four above */
  fcd_real tolerance;       /**< the bound the solve checked @c worst against */
  fcd_real force_scale;     /**< F, in the model's force (impulse) unit */
  fcd_real length_scale;    /**< L, in the model's length (velocity) unit */
  fcd_real reserved[4];     /**< zero; room for later figures without an ABI change */
} fcd_certificate;

FCD_END_DECLS

#endif
