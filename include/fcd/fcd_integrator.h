/** @file fcd/fcd_integrator.h
 *  @brief Nonsmooth time integration of M a + C v + K u = f + H^T r with unilateral
 *  contact, impacts and Coulomb friction (contract section "integrator").
 *
 *  Implemented schemes (this release):
 *  - FCD_SCHEME_MOREAU_JEAN: theta scheme on velocities, Newton impact law on the normal
 *    part, Coulomb on the end-of-step velocity, contacts activated by the predicted gap;
 *  - FCD_SCHEME_FREMOND (seed 004, eqs. 63-64): Newton on the normal part, Coulomb on the
 *    theta-average velocity, contacts activated by the predicted gap;
 *  in both, restitution applies only to contacts approaching at the start of the step
 *  (docs/dynamics.md explains why);
 *  - FCD_SCHEME_MODIFIED_THETA (seed 003, eqs. 22-25): contact evaluated on the predicted
 *    gap, friction on the velocity relative to the imposed sliding velocity v_g (the
 *    seed's projected fixed point is FCD_FC_FIXED_POINT; the default is AUTO's).
 *  - FCD_SCHEME_QUASISTATIC: a sequence of static problems (fcd/fcd_equilibrium.h), one
 *    per step at t + h, each with the tangential history of the previous state (friction
 *    on the displacement increment); needs K only (M may be absent), ignores theta and
 *    the velocities given to set_state (v may be NULL); v reports (u1 - u0) / h and
 *    get_reactions the contact forces.
 *
 *  On a distributed system (fcd_system_set_distribution) every scheme runs with the
 *  iteration matrix factored by MUMPS across the ranks and the contact problem solved
 *  redundantly; set_state, step, advance and the observer are collective. */
#ifndef FCD_INTEGRATOR_H
#define FCD_INTEGRATOR_H

#include <fcd/fcd_certificate.h>
#include <fcd/fcd_common.h>
#include <fcd/fcd_contact.h>
#include <fcd/fcd_status.h>
#include <fcd/fcd_system.h>

FCD_BEGIN_DECLS

/** Opaque time integrator. */
typedef struct fcd_integrator fcd_integrator;

/** Schemes. */
typedef enum {
  FCD_SCHEME_MOREAU_JEAN = 0,    /**< theta scheme, Newton impact law */
  FCD_SCHEME_MODIFIED_THETA = 1, /**< position-level contact, seed 003 */
  FCD_SCHEME_FREMOND = 2,        /**< energy-consistent, seed 004 */
  FCD_SCHEME_QUASISTATIC = 3     /**< incremental static problems with friction history */
} fcd_scheme;

/** Parameter keys of fcd_integrator_set_param. */
enum {
  FCD_PARAM_STEP = 100,          /**< time step h > 0 (no default: required) */
  FCD_PARAM_THETA = 101,         /**< theta in (0, 1]; default 1/2 */
  FCD_PARAM_TOLERANCE = 102,     /**< contact solver tolerance; default 1e-10 */
  FCD_PARAM_MAX_ITER = 103,      /**< contact solver iteration cap; default 10000 */
  FCD_PARAM_CONTACT_SOLVER = 104, /**< an fcd_fc_solver value; default FCD_FC_AUTO */
  FCD_PARAM_CERT_TOL = 105,       /**< bound on a solve's certificate
                                      (fcd/fcd_certificate.h), in (0, 1); default 1e-8,
                                      never below ten times FCD_PARAM_TOLERANCE. Taken by
                                      fcd_equilibrium_set_param and by every scheme (each
                                      step is certified). @since 0.1 */
  FCD_PARAM_ENERGY_CHECK = 106    /**< 1: every step checks the energy ledger's identity
                                      (seed 004, eq. 56) to round-off and fails with
                                      FCD_E_INTERNAL, state unchanged, when it does not
                                      hold (about four matrix-vector products per step);
                                      0: not checked. Default 1 in builds without NDEBUG,
                                      0 with it. @since 0.1 */
};

/** Energy ledger, cumulative since fcd_integrator_set_state. kinetic and potential are
 *  the current values (1/2 v^T M v, 1/2 u^T K u); the others are sums over the steps,
 *  such that kinetic + potential - (their values at set_state) = external_work
 *  - damping_dissipation - friction_dissipation - impact_dissipation
 *  - numerical_dissipation, to round-off, for both schemes (seed 004, eq. 56). Friction
 *  dissipates on the slip relative to the obstacle's imposed sliding velocity v_g; the
 *  work v_g . p_T that a moving obstacle does on the body is external work. */
typedef struct {
  fcd_real kinetic;               /**< 1/2 v^T M v, now */
  fcd_real potential;             /**< 1/2 u^T K u, now */
  fcd_real external_work;         /**< work of loads, prescribed motion, moving obstacles */
  fcd_real damping_dissipation;   /**< dissipated by C */
  fcd_real friction_dissipation;  /**< dissipated by friction on the relative slip */
  fcd_real impact_dissipation;    /**< lost in impacts (restitution below 1) */
  fcd_real numerical_dissipation; /**< the scheme's own (zero for Fremond, seed 004) */
} fcd_energy;

/** Numbers of contacts open, sticking and slipping after a step. */
typedef struct {
  fcd_index open;  /**< contacts not touching */
  fcd_index stick; /**< touching, inside the friction cone */
  fcd_index slip;  /**< touching, on the cone and sliding */
} fcd_contact_counts;

/** Observer called after every successful step with the new time and state (ndofs
 *  entries each), the local reactions (dim per contact, as fcd_integrator_get_reactions)
 *  and the contact status counts. The arrays are valid during the call only. A nonzero
 *  return stops fcd_integrator_advance with FCD_E_CALLBACK (the step stays taken). */
typedef int (*fcd_observer_fn)(void *user_data, fcd_real t, fcd_index ndofs,
                               const fcd_real *u, const fcd_real *v, fcd_index nlocal,
                               const fcd_real *r, const fcd_contact_counts *counts);

/** Installs (or, with NULL, removes) the observer.
 *  @param it the integrator
 *  @param fn the callback, or NULL to remove it
 *  @param user_data passed unchanged to every call of fn
 *  @return FCD_OK, or FCD_E_INVALID_ARG
 *  @since 0.1 */
FCD_API fcd_status fcd_integrator_set_observer(fcd_integrator *it, fcd_observer_fn fn,
                                               void *user_data);

/** Status of every contact after the last step (FCD_CONTACT_OPEN for inactive ones or
 *  zero impulse; SLIP when the tangential impulse is on the cone boundary and the
 *  friction velocity of the scheme is nonzero; STICK otherwise).
 *  @param it the integrator
 *  @param status receives one FCD_CONTACT_* value per contact
 *  @return FCD_OK, or FCD_E_INVALID_ARG
 *  @since 0.1 */
FCD_API fcd_status fcd_integrator_get_contact_status(const fcd_integrator *it, int *status);

/** Creates an integrator of @p sys with the contacts of @p cs (may be NULL). The system
 *  needs a mass matrix; stiffness and damping are optional.
 *  @param sys the system (borrowed; it must outlive every object made from it)
 *  @param cs the contact set (may be NULL: no contacts)
 *  @param scheme an fcd_scheme
 *  @param out receives the new integrator, owned by the caller (fcd_integrator_destroy);
 *      NULL on failure
 *  @return FCD_OK, or FCD_E_INTERNAL, FCD_E_INVALID_ARG, FCD_E_NOMEM, FCD_E_STATE,
 *      FCD_E_UNSUPPORTED, FCD_E_BACKEND (a distributed system: MPI or PETSc)
 *  @since 0.1 */
FCD_API fcd_status fcd_integrator_create(fcd_system *sys, fcd_contact_set *cs,
                                         fcd_scheme scheme, fcd_integrator **out);

/** Destroys the integrator. NULL-safe.
 *  @param it the integrator, or NULL
 *  @since 0.1 */
FCD_API void fcd_integrator_destroy(fcd_integrator *it);

/** Sets a parameter (FCD_PARAM_*). Unknown keys: FCD_E_UNSUPPORTED.
 *  @param it the integrator
 *  @param key parameter key (see the keys listed above)
 *  @param value its value
 *  @return FCD_OK, or FCD_E_INTERNAL, FCD_E_INVALID_ARG, FCD_E_UNSUPPORTED
 *  @since 0.1 */
FCD_API fcd_status fcd_integrator_set_param(fcd_integrator *it, int key, fcd_real value);

/** Sets time, displacement and velocity (ndofs each; prescribed entries are taken from
 *  the system). A state that penetrates an obstacle beyond 1e-9 (relative) is refused
 *  with FCD_E_INVALID_ARG naming the contact: fcd does not project silently. Resets the
 *  energy ledger.
 *  @param it the integrator
 *  @param t the time
 *  @param u displacements, ndofs entries
 *  @param v velocities, ndofs entries (may be NULL for the quasistatic scheme only)
 *  @return FCD_OK, or FCD_E_CALLBACK, FCD_E_INVALID_ARG, FCD_E_NOMEM, FCD_E_BACKEND (a
 *      distributed system: an MPI error)
 *  @since 0.1 */
FCD_API fcd_status fcd_integrator_set_state(fcd_integrator *it, fcd_real t,
                                            const fcd_real *u, const fcd_real *v);

/** One step. Every step is certified (fcd_integrator_get_certificate): a step whose
 *  certificate exceeds FCD_PARAM_CERT_TOL returns FCD_E_NOT_CONVERGED with the figures.
 *  On failure (contact solve not converged, certificate failed, callback error) the
 *  state is unchanged. FCD_E_STATE before set_state or without a step size.
 *  @param it the integrator
 *  @return FCD_OK, or FCD_E_BACKEND, FCD_E_CALLBACK, FCD_E_INTERNAL, FCD_E_INVALID_ARG,
 *      FCD_E_NOMEM, FCD_E_NOT_CONVERGED, FCD_E_NOT_SPD, FCD_E_NO_SOLUTION, FCD_E_SINGULAR,
 *      FCD_E_STATE, FCD_E_UNSUPPORTED
 *  @since 0.1 */
FCD_API fcd_status fcd_integrator_step(fcd_integrator *it);

/** Steps until t_end (the last step is shortened to land on it).
 *  @param it the integrator
 *  @param t_end the time to reach
 *  @return FCD_OK, or FCD_E_BACKEND, FCD_E_CALLBACK, FCD_E_INTERNAL, FCD_E_INVALID_ARG,
 *      FCD_E_NOMEM, FCD_E_NOT_CONVERGED, FCD_E_NOT_SPD, FCD_E_NO_SOLUTION, FCD_E_SINGULAR,
 *      FCD_E_STATE, FCD_E_UNSUPPORTED
 *  @since 0.1 */
FCD_API fcd_status fcd_integrator_advance(fcd_integrator *it, fcd_real t_end);

/** Current time and state (caller buffers of ndofs entries; any may be NULL).
 *  @param it the integrator
 *  @param t receives the time (may be NULL)
 *  @param u receives the displacements (may be NULL)
 *  @param v receives the velocities (may be NULL)
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_STATE
 *  @since 0.1 */
FCD_API fcd_status fcd_integrator_get_state(const fcd_integrator *it, fcd_real *t,
                                            fcd_real *u, fcd_real *v);

/** Local reactions of the last step, dim per contact: the impulse divided by the step,
 *  zero for contacts that were not active.
 *  @param it the integrator
 *  @param r receives the reactions, dim per contact
 *  @return FCD_OK, or FCD_E_INVALID_ARG
 *  @since 0.1 */
FCD_API fcd_status fcd_integrator_get_reactions(const fcd_integrator *it, fcd_real *r);

/** The energy ledger (fcd_energy), relative to the last fcd_integrator_set_state: that
 *  call resets the sums to zero and takes the state's kinetic and potential energies as
 *  the reference, so a host that restarts from a saved state gets the balance of the
 *  new run only.
 *  @param it the integrator
 *  @param e receives the ledger
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_STATE
 *  @since 0.1 */
FCD_API fcd_status fcd_integrator_get_energy(const fcd_integrator *it, fcd_energy *e);

/** The certificate of the last successful step (docs/conventions.md, "Certificates").
 *  Dynamic schemes: equilibrium is the step's impulse balance on the free dofs,
 *  M (v1 - v0) + h K u_theta + h C v_theta - h F_theta - H^T p, over the sum of the
 *  magnitudes of its terms; the contact figures are those of the local problem the
 *  scheme solves (velocity level; for the modified theta scheme the normal variable is
 *  the velocity plus the predicted gap over h), with impulses as reactions: the force
 *  scale is an impulse scale, the length scale a velocity scale. The quasistatic scheme
 *  reports the certificate of its incremental equilibrium.
 *  @return FCD_E_STATE before the first step, FCD_E_INVALID_ARG for a NULL @p cert
 *  @since 0.1
 *  @param it the integrator
 *  @param cert receives the certificate */
FCD_API fcd_status fcd_integrator_get_certificate(const fcd_integrator *it,
                                                  fcd_certificate *cert);

FCD_END_DECLS

#endif /* FCD_INTEGRATOR_H */
