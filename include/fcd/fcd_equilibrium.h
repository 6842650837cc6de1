/** @file fcd/fcd_equilibrium.h
 *  @brief Static and steady-sliding equilibria with exact Signorini contact and Coulomb
 *  friction, and the classification of their contact states (seed 000, sections 1.4
 *  and 4; seed 003, eq. 17).
 *
 *  Every solve finds u (all ndofs; prescribed entries from the system at time t) and the
 *  local reactions r (dim per contact, fcd's convention of fcd/fcd_contact.h) with
 *      K u = f(t) + H^T r   on the free dofs,
 *  and at every contact the contact law below. K may be semi-definite on the free dofs: a
 *  body held only by its contacts (resting on a table under its weight with nothing
 *  prescribed, or pressed with only tangential dofs prescribed) is solved exactly; its
 *  rigid modes are found by a rank-revealing probe of K, and FCD_E_SINGULAR, naming the
 *  unbalanced force and the dof that moves most, is returned only when the contacts
 *  cannot hold the load (a load pulling the body away, a tangential load that friction
 *  cannot balance). An indefinite K is FCD_E_SINGULAR too. Every solve checks its
 *  certificate (fcd/fcd_certificate.h) against FCD_PARAM_CERT_TOL (default 1e-8) and
 *  returns FCD_E_NOT_CONVERGED with the figures when it fails. A friction coefficient
 *  above 1e4 is solved as its limit (perfect stick): the answer is exact for the true mu
 *  whenever no contact reaches the cone of 1e4, and the certificate uses the true mu.
 *
 *  - FCD_EQ_STATIC: Signorini on u_N - g and Coulomb on the tangential displacement
 *    measured from a reference, u_T - u_T,ref. Friction in a static problem is path
 *    dependent; the reference is the tangential history. By default it is zero: the
 *    static solve assumes the contacts were closed without tangential load ("no
 *    tangential history"). fcd_equilibrium_set_reference() gives the history-aware form,
 *    the incremental problem of one quasistatic step from the reference state (seed 000,
 *    eq. 117, with the slip threshold fixed point solved exactly as one Coulomb problem);
 *    FCD_SCHEME_QUASISTATIC of the integrator chains such steps.
 *  - FCD_EQ_STEADY_SLIDING: every contact in contact slides in the direction s given by
 *    its imposed sliding velocity vg (fcd_contact_set_set_sliding_velocity): the body
 *    slides relative to the obstacle with velocity -vg, so s = -vg / |vg| and
 *    r_T = mu r_N s; contacts may open. This is a linear complementarity problem in r_N
 *    with a non-symmetric matrix (Lemke's method), which has no solution for some data
 *    (seed 000 Ex. 4.6, pushing with 2 - 3 mu H_B / L <= 0): FCD_E_NO_SOLUTION then.
 *
 *  The state is then classified per contact (seed 000 section 1.4, digest 5.2):
 *  FCD_EQ_SEPARATED (u_N - g < 0), FCD_EQ_GRAZING (closed, zero reaction),
 *  FCD_EQ_STICK (inside the cone), FCD_EQ_SLIP (on the cone, with a slip direction).
 *  fcd_equilibrium_get_contact_state() reduces this to the status and slip directions
 *  that fcd_stability_set_contact_state() takes. */
#ifndef FCD_EQUILIBRIUM_H
#define FCD_EQUILIBRIUM_H

#include <fcd/fcd_certificate.h>
#include <fcd/fcd_common.h>
#include <fcd/fcd_contact.h>
#include <fcd/fcd_status.h>
#include <fcd/fcd_system.h>

FCD_BEGIN_DECLS

/** Opaque equilibrium solver of one system and contact set. */
typedef struct fcd_equilibrium fcd_equilibrium;

/** What fcd_equilibrium_solve computes. */
typedef enum {
  FCD_EQ_STATIC = 0,        /**< Signorini-Coulomb equilibrium from the reference */
  FCD_EQ_STEADY_SLIDING = 1 /**< every closed contact slides along -vg */
} fcd_equilibrium_kind;

/** Fine contact sets of seed 000 (values of fcd_equilibrium_get_contact_sets). */
typedef enum {
  FCD_EQ_SEPARATED = 0, /**< P_f: u_N - g < -tol (open) */
  FCD_EQ_GRAZING = 1,   /**< P_z: closed with zero reaction */
  FCD_EQ_STICK = 2,     /**< P_d: r_N < 0, norm(r_T) < -mu r_N */
  FCD_EQ_SLIP = 3       /**< P_s: r_N < 0, on the cone; slip opposes r_T */
} fcd_equilibrium_set;

/** Parameter keys of fcd_equilibrium_set_param (the contact-solver keys of
 *  fcd/fcd_integrator.h apply too: FCD_PARAM_TOLERANCE, FCD_PARAM_MAX_ITER,
 *  FCD_PARAM_CONTACT_SOLVER). */
enum {
  FCD_EQ_PARAM_CLASSIFY_TOL = 400 /**< relative tolerance of the classification
                                       (gaps against the largest |u_N|, reactions
                                       against the largest |r_N|, the cone against
                                       mu |r_N|); default 1e-8 */
};

/** Creates a solver for @p sys and @p cs (both retained; destroy them in any order).
 *  The system needs a stiffness matrix.
 *  @param sys the system (borrowed; it must outlive every object made from it)
 *  @param cs the contact set (may be NULL: no contacts)
 *  @param out receives the new solver, owned by the caller (fcd_equilibrium_destroy); NULL
 *      on failure
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_NOMEM, FCD_E_STATE
 *  @since 0.1 */
FCD_API fcd_status fcd_equilibrium_create(fcd_system *sys, fcd_contact_set *cs,
                                          fcd_equilibrium **out);

/** Destroys the solver. NULL-safe.
 *  @param eq the solver, or NULL
 *  @since 0.1 */
FCD_API void fcd_equilibrium_destroy(fcd_equilibrium *eq);

/** Sets a parameter. Unknown keys: FCD_E_UNSUPPORTED.
 *  @param eq the equilibrium solver
 *  @param key parameter key (see the keys listed above)
 *  @param value its value
 *  @return FCD_OK, or FCD_E_INTERNAL, FCD_E_INVALID_ARG, FCD_E_UNSUPPORTED
 *  @since 0.1 */
FCD_API fcd_status fcd_equilibrium_set_param(fcd_equilibrium *eq, int key, fcd_real value);

/** The tangential history of FCD_EQ_STATIC: friction acts on H_T (u - u_ref). @p u_ref
 *  has ndofs entries; NULL restores the default (zero). Copied.
 *  @param eq the equilibrium solver
 *  @param u_ref reference displacement, ndofs entries (NULL: zero)
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_NOMEM
 *  @since 0.1 */
FCD_API fcd_status fcd_equilibrium_set_reference(fcd_equilibrium *eq, const fcd_real *u_ref);

/** Solves at time @p t (load and prescribed displacements of the system at t). On
 *  failure the previous solution, if any, is kept.
 *  @param eq the equilibrium solver
 *  @param kind an fcd_equilibrium_kind
 *  @param t time at which loads and prescribed dofs are evaluated
 *  @return FCD_OK, or FCD_E_BACKEND, FCD_E_CALLBACK, FCD_E_INTERNAL, FCD_E_INVALID_ARG,
 *      FCD_E_NOMEM, FCD_E_NOT_CONVERGED, FCD_E_NOT_SPD, FCD_E_NO_SOLUTION, FCD_E_SINGULAR,
 *      FCD_E_STATE, FCD_E_UNSUPPORTED
 *  @since 0.1 */
FCD_API fcd_status fcd_equilibrium_solve(fcd_equilibrium *eq, fcd_equilibrium_kind kind,
                                         fcd_real t);

/** Displacements of the last solve, ndofs entries. FCD_E_STATE before a solve.
 *  @param eq the equilibrium solver
 *  @param u receives the displacement, ndofs entries
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_STATE
 *  @since 0.1 */
FCD_API fcd_status fcd_equilibrium_get_state(const fcd_equilibrium *eq, fcd_real *u);

/** Local reactions (forces) of the last solve, dim per contact (FCD_E_STATE when
 *  contacts were added since that solve).
 *  @param eq the equilibrium solver
 *  @param r receives the local reactions (forces), dim per contact
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_STATE
 *  @since 0.1 */
FCD_API fcd_status fcd_equilibrium_get_reactions(const fcd_equilibrium *eq, fcd_real *r);

/** Fine contact sets (fcd_equilibrium_set values), one per contact (FCD_E_STATE when
 *  contacts were added since the last solve).
 *  @param eq the equilibrium solver
 *  @param set receives one fcd_equilibrium_set value per contact
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_STATE
 *  @since 0.1 */
FCD_API fcd_status fcd_equilibrium_get_contact_sets(const fcd_equilibrium *eq, int *set);

/** The state in the form of fcd_stability_set_contact_state: @p status one
 *  fcd_contact_status per contact (SEPARATED and GRAZING give FCD_CONTACT_OPEN: both dofs
 *  stay in the reduced pencil), @p slip_dir dim-1 entries per contact, the unit slip
 *  direction of SLIP contacts in the local tangent plane (zero elsewhere). Either may be
 *  NULL.
 *  @param eq the equilibrium solver
 *  @param status receives one FCD_CONTACT_* value per contact
 *  @param slip_dir receives dim - 1 entries per contact: the unit slip direction of
 *      slipping contacts, zero for others (may be NULL)
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_STATE
 *  @since 0.1 */
FCD_API fcd_status fcd_equilibrium_get_contact_state(const fcd_equilibrium *eq, int *status,
                                                     fcd_real *slip_dir);

/** Quality of the last solve, from its certificate: @p equilibrium, the certificate's
 *  equilibrium figure (the balance residual on the free dofs as a backward error);
 *  @p complementarity, the largest of its penetration, complementarity and cone figures.
 *  Either may be NULL.
 *  @param eq the equilibrium solver
 *  @param equilibrium receives the relative equilibrium residual (may be NULL)
 *  @param complementarity receives the contact-law residual (may be NULL)
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_STATE
 *  @since 0.1 */
FCD_API fcd_status fcd_equilibrium_get_residual(const fcd_equilibrium *eq,
                                                fcd_real *equilibrium,
                                                fcd_real *complementarity);

/** The certificate of the last successful solve (fcd/fcd_certificate.h): its figures,
 *  scales and the tolerance it met.
 *  @param eq the solver
 *  @param cert receives the certificate
 *  @return FCD_OK; FCD_E_STATE before a successful solve; FCD_E_INVALID_ARG for NULL
 *  @since 0.1 */
FCD_API fcd_status fcd_equilibrium_get_certificate(const fcd_equilibrium *eq,
                                                   fcd_certificate *cert);

FCD_END_DECLS

#endif
