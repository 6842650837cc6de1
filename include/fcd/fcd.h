/** @file fcd/fcd.h
 *  @brief Umbrella header of fcd, frictional contact dynamics of linear (visco)elastic
 *  structures. Include this one; the others are its parts.
 *
 *  Conventions (docs/conventions.md): 0-based fcd_index (int64_t) indices, fcd_real
 *  (double) values, local contact frames ordered [N, T(, B)] with the normal pointing
 *  from the body into the obstacle; Signorini u_N - g <= 0, r_N <= 0. */
#ifndef FCD_H
#define FCD_H

#include <fcd/fcd_common.h>
#include <fcd/fcd_version.h>
#include <fcd/fcd_status.h>
#include <fcd/fcd_certificate.h>
#include <fcd/fcd_system.h>
#include <fcd/fcd_contact.h>
#include <fcd/fcd_fc.h>
#include <fcd/fcd_integrator.h>
#include <fcd/fcd_equilibrium.h>
#include <fcd/fcd_stability.h>
#include <fcd/fcd_lattice.h>
#include <fcd/fcd_vtk.h>
#include <fcd/fcd_reduction.h>
#include <fcd/fcd_periodic.h>
#include <fcd/fcd_import.h>
#include <fcd/fcd_registry.h>

#endif /* FCD_H */
