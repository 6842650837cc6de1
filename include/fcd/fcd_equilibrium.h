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
 *  prescribed, or pressed with only tangential dofs prescribed) is solved exactly,
 *  whatever its initial gaps and stick/slip pattern; its rigid modes are found by a
 *  rank-revealing probe of K. When no admissible reactions can balance the load along
 *  them, no equilibrium exists: FCD_E_NO_SOLUTION, naming the mechanism (the body
 *  separates from its support, tips about an edge, or slides because friction cannot
 *  balance the tangential load; fcd_equilibrium_get_mechanism). An indefinite K is
 *  FCD_E_SINGULAR, and so is a load on a dof without any stiffness. Every solve checks its
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
 *  The state is then classified per contact (seed 000 section 1.4, digest 5.2), by the
 *  one rule every analysis that writes or reads a state uses, with the certificate's
 *  scales (the same on every rank count): a contact whose normal reaction is compressive
 *  beyond tol R (R the reaction scale, max(F, largest reaction)) is closed, FCD_EQ_STICK
 *  inside the cone and FCD_EQ_SLIP on it within tol R; one without is FCD_EQ_GRAZING when
 *  u_N - g >= -tol L (L the length scale) and FCD_EQ_SEPARATED otherwise. The reaction
 *  decides, never the sign of a gap residual at round-off.
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
  FCD_EQ_SEPARATED = 0, /**< P_f: no reaction, u_N - g < -tol L (open) */
  FCD_EQ_GRAZING = 1,   /**< P_z: closed (to tol L) with no reaction beyond tol R */
  FCD_EQ_STICK = 2,     /**< P_d: r_N < -tol R, norm(r_T) < -mu r_N - tol R */
  FCD_EQ_SLIP = 3       /**< P_s: r_N < 0, on the cone; slip opposes r_T */
} fcd_equilibrium_set;

/** What the load moves when no equilibrium exists: the kind of mechanism behind an
 *  FCD_E_NO_SOLUTION of a static or steady-sliding solve (fcd_equilibrium_get_mechanism).
 *  The existence test behind it asks whether any admissible reactions (in the Coulomb
 *  cones; 3D: in a pyramid of 16 faces around each cone, so that a refusal holds for the
 *  true cone; steady sliding: on the ray of the imposed slip) balance the load along the
 *  rigid modes of K; when none can, its Farkas certificate is a rigid motion along which
 *  the load does positive work while every contact it moves opens, or slides with an
 *  opening of at least mu times the slip. */
typedef enum {
  FCD_MECH_NONE = 0,        /**< the last solve did not fail for want of an equilibrium */
  FCD_MECH_UNSUPPORTED = 1, /**< no contact acts along a rigid motion that the load drives */
  FCD_MECH_SEPARATION = 2,  /**< the body separates from its support: every contact the
                                 motion moves opens */
  FCD_MECH_TIPPING = 3,     /**< the body tips about contacts that carry load and stay (an
                                 edge, a corner): the load's moment about them is not
                                 balanced */
  FCD_MECH_GROSS_SLIP = 4   /**< friction cannot balance the tangential load: the motion
                                 slides contacts at their friction limit (with mu = 0, a
                                 tangential load on frictionless contacts) */
} fcd_mechanism_kind;

/** How a mechanism's motion is named in space (fcd_mechanism). */
typedef enum {
  FCD_MOTION_UNKNOWN = 0,     /**< no node coordinates, or not the rigid motion of a body */
  FCD_MOTION_TRANSLATION = 1, /**< a translation along @c direction */
  FCD_MOTION_ROTATION = 2,    /**< a rotation about @c point (2D), or about the axis
                                   through @c point along @c direction (3D) */
  FCD_MOTION_SCREW = 3        /**< 3D: a rotation about that axis with a translation
                                   along it */
} fcd_motion_kind;

/** The mechanism of the last solve that returned FCD_E_NO_SOLUTION for want of an
 *  equilibrium of a body held by its contacts. Coordinates (for @c motion other than
 *  FCD_MOTION_UNKNOWN) come from fcd_equilibrium_set_mesh(), or from the mesh of the
 *  contact set's surface pairs; without them a translation is still recognized from the
 *  nodes of the set's rigid and pair contacts, whose dofs are taken as the x, y (, z)
 *  components of their nodes. */
typedef struct {
  int kind;              /**< an fcd_mechanism_kind */
  int motion;            /**< an fcd_motion_kind */
  fcd_real unbalance;    /**< norm of the load's part along the rigid modes that no
                              admissible reactions balance */
  fcd_real force_scale;  /**< norm of the load on the free dofs (K z included for
                              prescribed z): the unbalance is relative to it */
  fcd_real direction[3]; /**< unit vector: the translation's direction, or the rotation
                              axis (2D: (0, 0, 1) counter-clockwise, (0, 0, -1)
                              clockwise); zero when unknown */
  fcd_real point[3];     /**< a point of the rotation axis (2D: the centre of rotation) */
  fcd_index dof;         /**< the dof the motion moves most */
  fcd_index contact;     /**< the contact the motion opens or slides most; -1 when it moves
                              none */
  fcd_index pivot;       /**< tipping: the contact that carries load and stays; -1 otherwise */
  fcd_index nmodes;      /**< rigid modes of K on the free dofs */
  fcd_real reserved[4];  /**< zero; room for later figures without an ABI change */
} fcd_mechanism;

/** Parameter keys of fcd_equilibrium_set_param (the contact-solver keys of
 *  fcd/fcd_integrator.h apply too: FCD_PARAM_TOLERANCE, FCD_PARAM_MAX_ITER,
 *  FCD_PARAM_CONTACT_SOLVER). */
enum {
  FCD_EQ_PARAM_CLASSIFY_TOL = 400 /**< relative tolerance of the classification
                                       (gaps against the certificate's length scale,
                                       reactions and the cone against its reaction
                                       scale); default 1e-8 */
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

/** The mechanism of the last solve when it returned FCD_E_NO_SOLUTION because the
 *  contacts cannot hold the load of a body they alone hold (fcd_mechanism); after any
 *  other outcome @c kind is FCD_MECH_NONE. Steady sliding's other FCD_E_NO_SOLUTION (no
 *  solution of its complementarity problem, seed 000 Ex. 4.6) has no mechanism.
 *  @param eq the solver
 *  @param mech receives the mechanism
 *  @param motion receives the mechanism's motion, ndofs entries (zero on the prescribed
 *      dofs, largest entry 1 in magnitude); may be NULL
 *  @return FCD_OK, or FCD_E_INVALID_ARG (NULL @p mech)
 *  @since 0.1 */
FCD_API fcd_status fcd_equilibrium_get_mechanism(const fcd_equilibrium *eq,
                                                 fcd_mechanism *mech, fcd_real *motion);

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
