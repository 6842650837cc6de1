/* fcd: periodic solutions of the nonsmooth dynamics by shooting, and their stability. */
#ifndef FCD_PERIODIC_H
#define FCD_PERIODIC_H

#include <fcd/fcd_common.h>
#include <fcd/fcd_status.h>
#include <fcd/fcd_system.h>
#include <fcd/fcd_contact.h>
#include <fcd/fcd_integrator.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @name Periodic orbits (limit cycles)
 *  Shooting (docs/periodic.md): a state x0 = (u0, v0) and a period T such that the
 *  scheme's own discrete flow, N steps of T / N from x0, returns to x0, found by Newton
 *  on (x0, T) with the Jacobian of that flow by finite differences of the nonsmooth step
 *  map and a phase condition (the correction orthogonal to the flow at the current
 *  iterate). N is fixed at the start from the period guess and the step
 *  (FCD_PARAM_STEP): the orbit is a periodic orbit of the same scheme at a step within
 *  half a step of it, so the limit cycle a long transient of that scheme settles on is
 *  the same one. The orbit's stability comes from the monodromy matrix (the Jacobian of
 *  the flow over one period, its eigenvalues the Floquet multipliers); the trivial
 *  multiplier 1 of the autonomous phase is reported with its distance to 1, a check of the
 *  differences. The modified theta scheme, which keeps every contact in its local problem,
 *  has a continuous step map and converges to round-off; Moreau-Jean's and Fremond's
 *  activation test (the predicted gap closed or not) makes their maps jump by about h
 *  times the normal velocity at an impact, and Newton stalls near that residual. The
 *  system must be autonomous: constant loads and prescribed values (a load or
 *  prescribed function is refused), contacts whose obstacles slide at constant
 *  velocity (a brake disc, a belt). The state's unknowns are the free dofs' displacements
 *  and velocities: the dense Jacobian costs 2 nfree + 1 period integrations per Newton
 *  iteration; above 200 unknowns (FCD_PERIODIC_PARAM_JACOBIAN) GMRES solves the Newton
 *  system with the monodromy applied by directional differences instead, one or two
 *  periods a Krylov step, and Arnoldi's Ritz values approach the multipliers of largest
 *  modulus (the verdict weighs their residuals: fcd_periodic_info::stable). For small
 *  and reduced systems (fcd_reduction). Serial systems.
 *  @{ */

/** Opaque shooting solver. */
typedef struct fcd_periodic fcd_periodic;

/** Parameters of fcd_periodic_set_param beyond the integrator's FCD_PARAM_* (STEP is
 *  required; THETA, TOLERANCE, MAX_ITER, CONTACT_SOLVER, CERT_TOL are passed to the
 *  integrator of every period). */
enum {
  FCD_PERIODIC_PARAM_TOL = 500,      /**< Newton's bound on the orbit's residual
                                          |phi_T(x0) - x0| relative to its amplitude (the
                                          worse of displacements and velocities); default
                                          1e-9 */
  FCD_PERIODIC_PARAM_MAX_ITER = 501, /**< Newton iterations; default 30 */
  FCD_PERIODIC_PARAM_FD_STEP = 502,  /**< finite-difference step relative to the orbit's
                                          amplitude (and to T); default 1e-6 */
  FCD_PERIODIC_PARAM_JACOBIAN = 503, /**< how Newton's system is solved:
                                          FCD_PERIODIC_JACOBIAN_DENSE, _KRYLOV or _AUTO
                                          (default: dense up to 200 state unknowns) */
  FCD_PERIODIC_PARAM_KRYLOV_MAX = 504, /**< Krylov: GMRES steps at most per Newton
                                            iteration (one or two periods each); default
                                            200 */
  FCD_PERIODIC_PARAM_MULTIPLIERS = 505, /**< Krylov: Arnoldi steps for the multipliers
                                            (their number: Ritz values, which approach
                                            the largest in modulus);
                                            default 40 */
  FCD_PERIODIC_PARAM_FORCING_OMEGA = 506, /**< the forcing's circular frequency omega
                                               (rad per unit time), > 0; only with a
                                               forcing set (FCD_E_STATE otherwise) */
  FCD_PERIODIC_PARAM_FORCING_SCALE = 507  /**< the factor s on the forcing's load (its
                                               amplitude), finite; default 1 */
};

/** Values of FCD_PERIODIC_PARAM_JACOBIAN. */
enum {
  FCD_PERIODIC_JACOBIAN_DENSE = 0,  /**< one period per unknown, every multiplier */
  FCD_PERIODIC_JACOBIAN_KRYLOV = 1, /**< matrix-free GMRES (inexact Newton: a relative
                                         accuracy of the order of the residual, 1e-6 to
                                         1e-3, no finer than the tolerance needs) and
                                         Arnoldi; the monodromy's products precondition
                                         the later solves, kept by the handle from one
                                         call to the next (twice the GMRES cap of
                                         states and their images, 128 MiB at most)
                                         until the step, the integrator's parameters
                                         or the forcing change */
  FCD_PERIODIC_JACOBIAN_AUTO = 2    /**< dense up to 200 state unknowns, Krylov above */
};

/** What the last fcd_periodic_solve found. */
typedef struct {
  int converged;            /**< 1 when the residual met FCD_PERIODIC_PARAM_TOL */
  fcd_real period;          /**< T of the best iterate */
  fcd_index steps;          /**< N, steps per period (of T / N each) */
  fcd_index iterations;     /**< Newton iterations made */
  fcd_index evaluations;    /**< period integrations made (N steps each) */
  fcd_real residual;        /**< max(|du|_inf / A_u, |dv|_inf / A_v) of the best iterate */
  fcd_real amplitude_u;     /**< A_u: the largest half range (max - min) / 2 of a free
                                 dof's displacement over the orbit */
  fcd_real amplitude_v;     /**< A_v: the same for the velocities */
  fcd_index multipliers;    /**< Floquet multipliers computed (2 nfree with the dense
                                 Jacobian; with Krylov the Arnoldi steps' Ritz values,
                                 which approach the largest in modulus; 0 before
                                 convergence) */
  fcd_real trivial_error;   /**< |mu - 1| of the multiplier nearest 1 */
  fcd_real max_multiplier;  /**< the largest modulus among the other multipliers (with
                                 Krylov, among the Ritz values: below the true one
                                 when they have not converged, see stable) */
  fcd_real mu;              /**< the contacts' friction coefficient of the orbit (NaN
                                 when they differ or there are none) */
  int stable;               /**< 1 when every other multiplier is inside the unit circle
                                 (to within ten times the trivial one's error), 0 when
                                 one is outside, -1 when no verdict: the trivial
                                 multiplier is more than 1e-2 from 1 (the differences
                                 straddled a kink of the step map), or, with Krylov, a
                                 Ritz value lies within its residual estimate of the
                                 unit circle (many weakly damped modes crowd their
                                 multipliers near it, and Arnoldi converges none) */
} fcd_periodic_info;

/** Creates a shooting solver for @p sys with the contacts of @p cs and @p scheme (a
 *  dynamic one: Moreau-Jean, Fremond or modified theta).
 *  @param sys the system (borrowed; it must outlive the solver): mass set, no load
 *      function, no prescribed function
 *  @param cs the contact set (may be NULL)
 *  @param scheme FCD_SCHEME_MOREAU_JEAN, FCD_SCHEME_FREMOND or FCD_SCHEME_MODIFIED_THETA
 *  @param out receives the solver, owned by the caller; NULL on failure
 *  @return FCD_OK, or FCD_E_BACKEND, FCD_E_INTERNAL, FCD_E_INVALID_ARG, FCD_E_NOMEM,
 *      FCD_E_STATE, FCD_E_UNSUPPORTED (a load or prescribed function)
 *  @since 0.1 */
FCD_API fcd_status fcd_periodic_create(fcd_system *sys, fcd_contact_set *cs, fcd_scheme scheme,
                                       fcd_periodic **out);

/** Frees the solver (NULL is a no-op).
 *  @param p the solver
 *  @since 0.1 */
FCD_API void fcd_periodic_destroy(fcd_periodic *p);

/** Sets a parameter: the integrator's FCD_PARAM_* or FCD_PERIODIC_PARAM_*.
 *  @param p the solver
 *  @param key the parameter
 *  @param value its value
 *  @return FCD_OK, or FCD_E_INTERNAL, FCD_E_INVALID_ARG (a value out of range),
 *      FCD_E_STATE (FCD_PERIODIC_PARAM_FORCING_OMEGA without a forcing),
 *      FCD_E_UNSUPPORTED (an unknown key)
 *  @since 0.1 */
FCD_API fcd_status fcd_periodic_set_param(fcd_periodic *p, int key, fcd_real value);

/** Finds a periodic orbit from a guess: a state on or near it (from a transient, or an
 *  equilibrium plus an unstable mode) and a period guess (2 pi / omega of that mode, or
 *  the transient's). The number of steps per period is N = round(T0 / h), at least 8.
 *  Every step of every period is certified as the integrator's are. A Newton iteration
 *  that does not reduce the residual is halved up to five times.
 *  @param p the solver
 *  @param u0 the guess' displacements, ndofs entries (prescribed entries are the system's)
 *  @param v0 the guess' velocities, ndofs entries
 *  @param period the period guess, > 0
 *  @return FCD_OK when converged; FCD_E_NOT_CONVERGED (the best iterate is kept, the
 *      message says why: the iteration cap, a stalled line search, an orbit shrinking to
 *      an equilibrium), or FCD_E_INVALID_ARG, FCD_E_NOMEM, FCD_E_SINGULAR (the Newton
 *      matrix), FCD_E_STATE (no step set), and what a step returns: FCD_E_BACKEND,
 *      FCD_E_CALLBACK, FCD_E_INTERNAL, FCD_E_NOT_SPD, FCD_E_NO_SOLUTION,
 *      FCD_E_UNSUPPORTED
 *  @since 0.1 */
FCD_API fcd_status fcd_periodic_solve(fcd_periodic *p, const fcd_real *u0, const fcd_real *v0,
                                      fcd_real period);

/** The orbit's initial state and period (the best iterate after a failure).
 *  @param p the solver
 *  @param period receives T (may be NULL)
 *  @param u0 receives the displacements, ndofs entries (may be NULL)
 *  @param v0 receives the velocities, ndofs entries (may be NULL)
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_STATE (nothing solved yet)
 *  @since 0.1 */
FCD_API fcd_status fcd_periodic_get_orbit(const fcd_periodic *p, fcd_real *period, fcd_real *u0,
                                          fcd_real *v0);

/** Each dof's smallest and largest displacement over the orbit's N + 1 states.
 *  @param p the solver
 *  @param umin receives the minima, ndofs entries (may be NULL)
 *  @param umax receives the maxima, ndofs entries (may be NULL)
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_STATE
 *  @since 0.1 */
FCD_API fcd_status fcd_periodic_get_range(const fcd_periodic *p, fcd_real *umin, fcd_real *umax);

/** What the last solve found (fcd_periodic_info).
 *  @param p the solver
 *  @param info receives the figures
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_STATE
 *  @since 0.1 */
FCD_API fcd_status fcd_periodic_get_info(const fcd_periodic *p, fcd_periodic_info *info);

/** The Floquet multipliers of the converged orbit, largest modulus first.
 *  @param p the solver
 *  @param cap the room in @p re and @p im
 *  @param re receives the real parts (may be NULL with cap 0)
 *  @param im receives the imaginary parts (may be NULL with cap 0)
 *  @param count receives the number computed (fcd_periodic_info.multipliers), which may
 *      exceed cap
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_STATE (no converged orbit)
 *  @since 0.1 */
FCD_API fcd_status fcd_periodic_get_multipliers(const fcd_periodic *p, fcd_index cap,
                                                fcd_real *re, fcd_real *im, fcd_index *count);

/** @name Forced periodic responses
 *  A forcing makes the shooting solver look for the steady response to a periodic load:
 *  the system's own loads plus s g(omega t), g 2 pi-periodic in its argument, given by
 *  the host (fcd_periodic_set_forcing) or as harmonic loads a_k cos(omega t + phi_k) on
 *  dofs d_k (fcd_periodic_set_harmonic_forcing), s being FCD_PERIODIC_PARAM_FORCING_SCALE.
 *  Time starts at 0 at the orbit's initial state, so u0 and v0 are the state at the
 *  forcing's phase 0. The period is then the forcing's 2 pi / omega or a whole multiple
 *  of it (a subharmonic response); fcd_periodic_solve's period argument says which, and
 *  Newton's unknowns are the state alone (no phase condition). Every Floquet multiplier
 *  counts: the orbit is stable when all are inside the unit circle (to within ten times
 *  the difference step), and fcd_periodic_info.trivial_error is 0. The exact contact laws
 *  of the scheme are kept, no regularization: a friction damper sticks and slips.
 *  @{ */

/** The host's periodic load: writes into @p f (ndofs entries, arriving zero) the load at
 *  phase @p theta = omega t (radians; g must be 2 pi-periodic in it). Entries on
 *  prescribed dofs are ignored, as a load's are. Return 0 on success; any other value (or
 *  a non-finite entry) stops the solve with FCD_E_CALLBACK. */
typedef int (*fcd_forcing_fn)(void *user_data, fcd_real theta, fcd_index ndofs, fcd_real *f);

/** Sets the forcing to the host's load @p fn at circular frequency @p omega (replacing a
 *  forcing set before), or with @p fn NULL removes the forcing: the solver is autonomous
 *  again. The last solve's result is kept.
 *  @param p the solver
 *  @param omega the circular frequency, > 0 and finite (ignored with fn NULL)
 *  @param fn the load at a phase, or NULL
 *  @param user_data passed to fn unchanged
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_NOMEM
 *  @since 0.1 */
FCD_API fcd_status fcd_periodic_set_forcing(fcd_periodic *p, fcd_real omega, fcd_forcing_fn fn,
                                            void *user_data);

/** Sets the forcing to @p n harmonic loads, load k being amplitude[k] cos(omega t +
 *  phase[k]) on dof dofs[k] (loads on one dof add up), replacing a forcing set before;
 *  with n = 0 it removes the forcing. The arrays are copied.
 *  @param p the solver
 *  @param omega the circular frequency, > 0 and finite
 *  @param n the number of loads, >= 0
 *  @param dofs their dofs, free ones (a prescribed dof is FCD_E_INVALID_ARG)
 *  @param amplitude their amplitudes, finite
 *  @param phase their phases in radians, finite (NULL: all 0)
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_NOMEM
 *  @since 0.1 */
FCD_API fcd_status fcd_periodic_set_harmonic_forcing(fcd_periodic *p, fcd_real omega,
                                                     fcd_index n, const fcd_index *dofs,
                                                     const fcd_real *amplitude,
                                                     const fcd_real *phase);

/** @} */

/** What a continuation point marks, from the change since the previous point. */
enum {
  FCD_PERIODIC_EVENT_NONE = 0,
  FCD_PERIODIC_EVENT_FOLD = 1,             /**< mu turned back: a fold (saddle-node) of
                                                the branch between the two points (a
                                                vertical stretch, where mu stays put to
                                                round-off, is not one) */
  FCD_PERIODIC_EVENT_PERIOD_DOUBLING = 2,  /**< a real multiplier crossed -1 */
  FCD_PERIODIC_EVENT_TORUS = 3,            /**< a complex pair crossed the unit circle
                                                (Neimark-Sacker) */
  FCD_PERIODIC_EVENT_STABILITY = 4,        /**< a real multiplier crossed +1 with mu
                                                still going the same way */
  FCD_PERIODIC_EVENT_COLLAPSE = 5,         /**< the orbit shrank below 1e-3 of the first
                                                point's amplitude: the branch reaches the
                                                equilibrium (its Hopf point); the last */
  FCD_PERIODIC_EVENT_FAMILY = 6            /**< a second multiplier sits at +1 at this
                                                point and the one before, and mu still
                                                moves: the orbits are not isolated but fill
                                                a sheet, a family at every mu nearby (an
                                                undamped model whose contacts stay closed
                                                and slipping one way moves linearly, at any
                                                amplitude), where a branch in mu is not
                                                defined; the last. Also when a point has it
                                                and no point beyond can be found (the
                                                bordered system is singular there): that
                                                point is reported again with this event. A
                                                family at one mu only (a vertical branch)
                                                is followed by the dense path; the
                                                Newton-Krylov path ends there, at the
                                                first orbit that changes no contact's
                                                status over its period (one smooth piece
                                                of the flow: a center's orbit, the branch
                                                born at the flutter threshold) */
};

/** Called at each point of a continuation with the point's friction coefficient, its
 *  figures, its Floquet multipliers (info->multipliers of them, largest modulus first)
 *  and an FCD_PERIODIC_EVENT_* value. The arrays are valid during the call only. A
 *  nonzero return stops the continuation with FCD_E_CALLBACK. */
typedef int (*fcd_periodic_point_fn)(void *user_data, fcd_real mu, const fcd_periodic_info *info,
                                     const fcd_real *re, const fcd_real *im, int event);

/** Follows the branch of periodic orbits through the friction coefficient, from the
 *  orbit of the last converged fcd_periodic_solve towards @p mu_end, by pseudo-arclength
 *  continuation in (x0 / amplitudes, T / T_k, mu): a tangent predictor, a corrector by
 *  Newton with the point's Jacobian held (chord), the step length adapted (halved on a
 *  failure, down to dmu / 256; grown by half after an easy point, up to 8 dmu), so the
 *  branch is followed around folds. Every contact has the same coefficient, which moves
 *  along the branch; they are restored when the continuation ends, and the solver then
 *  holds the last point's orbit. The steps per period stay those of the solve.
 *  @param p the solver, with a converged orbit
 *  @param mu_end where to stop (the first point beyond it is the last), >= 0
 *  @param dmu the first step's length, > 0 and at most max(1, |mu_end - mu|) (the orbit's
 *      own scale in these coordinates, or the whole way: a longer one is
 *      FCD_E_INVALID_ARG), in the scaled coordinates above (its
 *      direction is towards mu_end): the first step in mu is dmu times the unit
 *      tangent's mu component. With the dense Jacobian (up to 200 state unknowns, or
 *      FCD_PERIODIC_JACOBIAN_DENSE) that is close to dmu on a model of a few dofs and
 *      much smaller on one whose thousands of state coordinates share the tangent; by
 *      Newton-Krylov (above 200, or FCD_PERIODIC_JACOBIAN_KRYLOV) the state's
 *      coordinates are divided by sqrt(2 nfree) too (the orbit's root-mean-square
 *      change), so a step moves mu by about dmu where the orbit changes little, at any
 *      size; that path ends the branch at a family of orbits, a vertical one too (the
 *      first orbit without a contact status change: the FAMILY event)
 *  @param max_points the most points to compute, >= 1
 *  @param fn called at each point (may be NULL)
 *  @param user_data passed to fn unchanged
 *  @return FCD_OK (mu_end passed, max_points reached, the branch collapsed onto the
 *      equilibrium, or it entered a family of orbits: the last point's event says which), FCD_E_CALLBACK (fn stopped it), FCD_E_NOT_CONVERGED (the corrector
 *      failed at the smallest step; the points so far were reported), FCD_E_STATE (no
 *      converged orbit), FCD_E_UNSUPPORTED (no contacts, or contacts with different
 *      coefficients), FCD_E_INVALID_ARG, FCD_E_NOMEM, FCD_E_SINGULAR, and what a step
 *      returns: FCD_E_BACKEND, FCD_E_INTERNAL, FCD_E_NOT_SPD, FCD_E_NO_SOLUTION
 *  @since 0.1 */
FCD_API fcd_status fcd_periodic_continue(fcd_periodic *p, fcd_real mu_end, fcd_real dmu,
                                         fcd_index max_points, fcd_periodic_point_fn fn,
                                         void *user_data);

/** Parameters of fcd_periodic_continue_forcing. */
enum {
  FCD_PERIODIC_CONTINUE_OMEGA = 0, /**< the forcing's circular frequency: a frequency
                                        response curve */
  FCD_PERIODIC_CONTINUE_SCALE = 1  /**< the forcing's scale (its amplitude) */
};

/** Follows the forced orbit of the last converged fcd_periodic_solve (with a forcing set)
 *  through the forcing's frequency or scale towards @p end, by pseudo-arclength
 *  continuation (docs/periodic.md, "Forced responses"): a tangent predictor, a corrector
 *  holding the point's Jacobian, the step halved on a failure (down to ds / 256) and grown
 *  by half after an easy point (up to 8 ds), so that the curve is followed around folds.
 *  The arclength weighs the parameter's relative change against the orbit's mean-square
 *  change (each unknown relative to the point's amplitudes). The period stays the same
 *  multiple of 2 pi / omega and the steps a period those of the solve (the step follows
 *  the period). Each point's figures and Floquet multipliers go to @p fn with the
 *  parameter's value in its @p mu argument and an FCD_PERIODIC_EVENT_* (FOLD: the
 *  parameter turned back; STABILITY, PERIOD_DOUBLING, TORUS: a multiplier left or entered
 *  the unit circle through +1, -1 or as a pair). The parameter is restored at the end;
 *  the solver holds the last point's orbit. Dense Jacobian up to 200 state unknowns (or
 *  FCD_PERIODIC_JACOBIAN_DENSE); above, or with FCD_PERIODIC_JACOBIAN_KRYLOV, the tangent
 *  and corrector by Newton-Krylov (docs/periodic.md), a family of orbits (a multiplier at
 *  +1: a damper stuck all along) bordered with its direction.
 *  @param p the solver, with a converged forced orbit
 *  @param param FCD_PERIODIC_CONTINUE_OMEGA or FCD_PERIODIC_CONTINUE_SCALE
 *  @param end where to stop (the first point beyond it is the last): finite, different
 *      from the orbit's value, and > 0 for a frequency
 *  @param ds the first step's length, in (0, 1]: about the parameter's relative change
 *      where the orbit changes little
 *  @param max_points the most points to compute, >= 1
 *  @param fn called at each point (may be NULL)
 *  @param user_data passed to fn unchanged
 *  @return FCD_OK (end passed or max_points reached), FCD_E_CALLBACK (fn stopped it),
 *      FCD_E_NOT_CONVERGED (the corrector failed at the smallest step; the points so far
 *      were reported), FCD_E_STATE (no forcing, or no converged orbit),
 *      FCD_E_INVALID_ARG, FCD_E_NOMEM, FCD_E_BACKEND, FCD_E_SINGULAR (no
 *      tangent), and what a step returns: FCD_E_UNSUPPORTED, FCD_E_INTERNAL, FCD_E_NOT_SPD,
 *      FCD_E_NO_SOLUTION
 *  @since 0.1 */
FCD_API fcd_status fcd_periodic_continue_forcing(fcd_periodic *p, int param, fcd_real end,
                                                 fcd_real ds, fcd_index max_points,
                                                 fcd_periodic_point_fn fn, void *user_data);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* FCD_PERIODIC_H */
