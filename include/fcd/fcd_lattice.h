/** @file fcd/fcd_lattice.h
 *  @brief Lattice spring models of elastoplastic springs with hardening, perfect
 *  plasticity or softening (seed 001, Gudoshnikov 2025): the model and its generators.
 *
 *  Nodes in 2D or 3D; springs between two nodes with stiffness k > 0, initial yield
 *  c0 > 0, geometric slope s >= 0 and state feedback h (h < 1 hardening, h = 1 or s = 0
 *  perfect plasticity, h > 1 softening; plastic modulus s^2 (1 - h) / (1 + s^2 (1 - h)/k),
 *  seed 001 eq. 34); displacement constraints on single coordinates, u = value + rate t.
 *  Small displacements: springs act along their reference direction.
 *
 *  The model, the paper's generators (with defects as moved nodes), the static checks
 *  (kinematic determinacy, the dimension of the self-stress space m - (n d - q)), and the
 *  state-dependent sweeping process of Theorem 4.1 stepped by the implicit catch-up
 *  scheme (Algorithm 1 in the full space, with a sparse projection; see lib/capabilities/lattice/lattice.c):
 *  per step, the Picard iteration a~ -> T(a~) of weighted projections onto the moving
 *  polyhedron, from a selectable initial guess, so that different branches can be
 *  reached; divergence (iteration cap, bound) is reported, never returned as a state.
 *  Loads are displacement constraints and nodal forces, each value + rate t. The
 *  reduced-space form (Algorithm 2, eqs. 95-97) is selectable (FCD_LAT_METHOD): the same
 *  map, computed in a dense basis of the self-stresses, for small lattices and checks. */
#ifndef FCD_LATTICE_H
#define FCD_LATTICE_H

#include <fcd/fcd_common.h>
#include <fcd/fcd_status.h>

FCD_BEGIN_DECLS

/** Opaque lattice spring model. */
typedef struct fcd_lattice fcd_lattice;

/** Creates an empty lattice in dimension @p dim (2 or 3).
 *  @param dim spatial dimension, 2 or 3
 *  @param out receives the new lattice, owned by the caller (fcd_lattice_destroy); NULL on
 *      failure
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_NOMEM
 *  @since 0.1 */
FCD_API fcd_status fcd_lattice_create(int dim, fcd_lattice **out);

/** Destroys the lattice. NULL-safe.
 *  @param lat the lattice, or NULL
 *  @since 0.1 */
FCD_API void fcd_lattice_destroy(fcd_lattice *lat);

/** Message of the last failure on @p lat ("" if none). Never NULL.
 *  @param lat the lattice (NULL or invalid: a fixed text says so)
 *  @return the message of the last failure on lat, owned by lat, valid until its next call
 *  @since 0.1 */
FCD_API const char *fcd_lattice_last_error(const fcd_lattice *lat);

/** Adds a node at @p x (dim coordinates); @p id (may be NULL) receives its index.
 *  @param lat the lattice
 *  @param x coordinates, dim entries
 *  @param id receives the node index (may be NULL)
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_NOMEM
 *  @since 0.1 */
FCD_API fcd_status fcd_lattice_add_node(fcd_lattice *lat, const fcd_real *x, fcd_index *id);

/** Moves node @p node by @p dx (dim entries): the geometric defects of seed 001. Springs
 *  follow (their directions and lengths are taken from the current positions).
 *  @param lat the lattice
 *  @param node node index
 *  @param dx displacement of the node, dim entries
 *  @return FCD_OK, or FCD_E_INVALID_ARG
 *  @since 0.1 */
FCD_API fcd_status fcd_lattice_move_node(fcd_lattice *lat, fcd_index node,
                                         const fcd_real *dx);

/** Adds a spring from node @p a to node @p b. k > 0, c0 > 0, s >= 0, h finite; the nodes
 *  must differ and not coincide. @p id (may be NULL) receives its index.
 *  @param lat the lattice
 *  @param a first node
 *  @param b second node
 *  @param k spring stiffness, > 0
 *  @param c0 initial yield force, > 0
 *  @param s geometric slope, >= 0
 *  @param h state feedback (below 1 hardening, 1 perfect plasticity, above 1 softening)
 *  @param id receives the spring index (may be NULL)
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_NOMEM
 *  @since 0.1 */
FCD_API fcd_status fcd_lattice_add_spring(fcd_lattice *lat, fcd_index a, fcd_index b,
                                          fcd_real k, fcd_real c0, fcd_real s, fcd_real h,
                                          fcd_index *id);

/** Constrains coordinate @p axis (0 x, 1 y, 2 z) of node @p node to the displacement
 *  value + rate t. A coordinate is constrained once.
 *  @param lat the lattice
 *  @param node node index
 *  @param axis coordinate axis, 0 to dim - 1
 *  @param value prescribed displacement at t = 0
 *  @param rate rate of change per unit time (value + rate t)
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_NOMEM
 *  @since 0.1 */
FCD_API fcd_status fcd_lattice_constrain(fcd_lattice *lat, fcd_index node, int axis,
                                         fcd_real value, fcd_real rate);

/** Applies the nodal force value + rate t on coordinate @p axis of node @p node, which
 *  must not be constrained (there the force would be a reaction). A coordinate is
 *  loaded once. Under force control, a softening or perfectly plastic lattice has no
 *  state past its limit load: the step reports FCD_E_NOT_CONVERGED there.
 *  @param lat the lattice
 *  @param node node index
 *  @param axis coordinate axis, 0 to dim - 1
 *  @param value force at t = 0
 *  @param rate rate of change per unit time (value + rate t)
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_NOMEM
 *  @since 0.1 */
FCD_API fcd_status fcd_lattice_load(fcd_lattice *lat, fcd_index node, int axis,
                                    fcd_real value, fcd_real rate);

/** The rectangular lattice of seed 001 section 6.1: nx columns by ny rows of nodes at
 *  @p spacing, each node linked to its right, upper and both upper-diagonal neighbours,
 *  every spring with (k, c0, s, h); the bottom row fixed in y, the top row pulled in y
 *  at @p rate, the bottom node of column ceil(nx/2) - 1 fixed in x. 10 x 15 gives 150
 *  nodes, 527 springs, 21 constraints.
 *  @param nx nodes along x, >= 2
 *  @param ny nodes along y, >= 2
 *  @param spacing node spacing, > 0
 *  @param k spring stiffness, > 0
 *  @param c0 initial yield force, > 0
 *  @param s geometric slope of every spring, >= 0
 *  @param h state feedback of every spring
 *  @param rate speed at which the top row is pulled in y
 *  @param out receives the new lattice, owned by the caller; NULL on failure
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_NOMEM
 *  @since 0.1 */
FCD_API fcd_status fcd_lattice_create_rect(int nx, int ny, fcd_real spacing, fcd_real k,
                                           fcd_real c0, fcd_real s, fcd_real h,
                                           fcd_real rate, fcd_lattice **out);

/** The triangular lattice of seed 001 section 6.2: ny rows of equilateral triangles of
 *  side @p spacing, nx nodes on even rows and nx + 1 on odd rows, horizontal springs on
 *  the inner rows only; bottom row fixed in y, top row pulled in y at @p rate, the first
 *  bottom node fixed in x. 10 x 15 gives 157 nodes, 404 springs, 21 constraints. Node
 *  ids are row by row from the bottom, left to right.
 *  @param nx nodes along x, >= 2
 *  @param ny nodes along y, >= 2
 *  @param spacing node spacing, > 0
 *  @param k spring stiffness, > 0
 *  @param c0 initial yield force, > 0
 *  @param s geometric slope of every spring, >= 0
 *  @param h state feedback of every spring
 *  @param rate speed at which the top row is pulled in y
 *  @param out receives the new lattice, owned by the caller; NULL on failure
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_NOMEM
 *  @since 0.1 */
FCD_API fcd_status fcd_lattice_create_tri(int nx, int ny, fcd_real spacing, fcd_real k,
                                          fcd_real c0, fcd_real s, fcd_real h,
                                          fcd_real rate, fcd_lattice **out);

/** The generated lattices of fcd_lattice_create_rect and fcd_lattice_create_tri. */
enum { FCD_LAT_RECT = 0, FCD_LAT_TRI = 1 };

/** The sizes of a generated lattice (nodes, springs, constraints; any may be NULL) in
 *  closed form, without building it: for counting a lattice too large to build, and for
 *  checking one against the memory its solver will need before building it. They equal
 *  fcd_lattice_sizes of the lattice the create function makes.
 *  @param kind FCD_LAT_RECT or FCD_LAT_TRI
 *  @param nx nodes along x, 2 to 100000
 *  @param ny nodes along y, 2 to 100000
 *  @param nodes receives the number of nodes (may be NULL)
 *  @param springs receives the number of springs (may be NULL)
 *  @param constraints receives the number of constraints (may be NULL)
 *  @return FCD_OK, or FCD_E_INVALID_ARG (an unknown kind, a size out of range)
 *  @since 0.1 */
FCD_API fcd_status fcd_lattice_generated_sizes(int kind, int nx, int ny, fcd_index *nodes,
                                               fcd_index *springs, fcd_index *constraints);

/** Sizes: nodes, springs, constraints (any may be NULL).
 *  @param lat the lattice
 *  @param nodes receives the number of nodes (may be NULL)
 *  @param springs receives the number of springs (may be NULL)
 *  @param constraints receives the number of constraints (may be NULL)
 *  @return FCD_OK, or FCD_E_INVALID_ARG
 *  @since 0.1 */
FCD_API fcd_status fcd_lattice_sizes(const fcd_lattice *lat, fcd_index *nodes,
                                     fcd_index *springs, fcd_index *constraints);

/** Checks kinematic determinacy (the stiffness of the springs on the unconstrained
 *  coordinates is positive definite) and returns the dimension of the self-stress space,
 *  m - (n d - q). A mechanism is FCD_E_SINGULAR with a message naming a node and axis it
 *  moves.
 *  @param lat the lattice
 *  @param dim receives the dimension of the self-stress space
 *  @return FCD_OK, or FCD_E_BACKEND, FCD_E_INVALID_ARG, FCD_E_NOMEM, FCD_E_NOT_SPD,
 *      FCD_E_SINGULAR, FCD_E_STATE
 *  @since 0.1 */
FCD_API fcd_status fcd_lattice_selfstress_dim(fcd_lattice *lat, fcd_index *dim);

/** Parameter keys of fcd_lattice_set_param. */
enum {
  FCD_LAT_TOLERANCE = 600, /**< fixed-point test on ||a_I - a_(I-1)||_2; default 1e-12 */
  FCD_LAT_MAX_ITER = 601,  /**< Picard iterations per step; default 5000 */
  FCD_LAT_BOUND = 602,     /**< divergence bound on the iterate (inf-norm); default 1e12 */
  FCD_LAT_METHOD = 603,    /**< FCD_LAT_FULL_SPARSE (default) or FCD_LAT_REDUCED_DENSE */
  FCD_LAT_ITERATION = 604  /**< FCD_LAT_PIECES (default) or FCD_LAT_PICARD */
};

/** Values of FCD_LAT_ITERATION: how a step reaches the fixed point a = T(a) of the
 *  catch-up map. PICARD iterates T from the previous damage (seed 001's Algorithm 1,
 *  whose iteration count is the paper's Fig. 10i). PIECES iterates the same way, and once
 *  three iterations have kept one active set, where T is affine, solves that piece's
 *  fixed point as one linear system (a Cholesky factor, which exists exactly where the
 *  fixed point is stable), taking it only when it keeps the active set and one
 *  evaluation of T returns it: the limit the iteration would reach on that piece, at the
 *  cost of a few iterations instead of hundreds. Both return the same fixed points to
 *  the tolerance, and the same branches where several exist. PIECES applies to
 *  FCD_LAT_FULL_SPARSE; pieces with a perfectly plastic spring (h = 1) active are
 *  iterated. */
enum { FCD_LAT_PIECES = 0, FCD_LAT_PICARD = 1 };

/** Values of FCD_LAT_METHOD. Both evaluate the same catch-up map (seed 001: "the map
 *  through (97) is the same as the one through (90)"), so they agree to round-off.
 *  FULL_SPARSE is Algorithm 1 in the stresses: one sparse CHOLMOD factorization per
 *  active-set guess, no dense matrix, any size. REDUCED_DENSE is Algorithm 2: the
 *  projection in R^(dimV + m) with a K^-1-orthonormal basis V of the self-stresses (S_V
 *  = I), formed once by a dense QR (m x m), with dense active-set solves; limited to
 *  4000 springs (FCD_E_UNSUPPORTED above). */
enum { FCD_LAT_FULL_SPARSE = 0, FCD_LAT_REDUCED_DENSE = 1 };

/** Sets a parameter. Unknown keys: FCD_E_UNSUPPORTED.
 *  @param lat the lattice
 *  @param key parameter key (see the keys listed above)
 *  @param value its value
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_UNSUPPORTED
 *  @since 0.1 */
FCD_API fcd_status fcd_lattice_set_param(fcd_lattice *lat, int key, fcd_real value);

/** Initial guess of a step's fixed point: receives the step's end time and the previous
 *  damage a_prev (m entries) and writes the guess into @p a_guess (m entries, it arrives
 *  holding a_prev). Nonzero return: FCD_E_CALLBACK. */
typedef int (*fcd_lattice_guess_fn)(void *user_data, fcd_real t, fcd_index m,
                                    const fcd_real *a_prev, fcd_real *a_guess);

/** Time history of the loads, replacing value + rate t: receives @p t and writes the
 *  displacements of the constraints into @p uc (@p nconstraints entries, in constraint
 *  order) and the forces into @p f (@p nloads entries, in the order of the
 *  fcd_lattice_load calls). Both arrive filled with NaN; every entry must be set to a
 *  finite value. Nonzero return or a non-finite entry: FCD_E_CALLBACK, state unchanged. */
typedef int (*fcd_lattice_history_fn)(void *user_data, fcd_real t, fcd_index nconstraints,
                                      fcd_real *uc, fcd_index nloads, fcd_real *f);

/** Installs (or, with NULL, removes: value + rate t again) the load history. The state
 *  is kept: a step from t to t_next applies the history's increment between the two
 *  times, so a history installed mid-run should agree with the loads of the current
 *  state (a jump at the switch would be lost). Cyclic and non-monotone loading, and
 *  unloading, go through here.
 *  @param lat the lattice
 *  @param fn the callback, or NULL to remove it
 *  @param user_data passed unchanged to every call of fn
 *  @return FCD_OK, or FCD_E_INVALID_ARG
 *  @since 0.1 */
FCD_API fcd_status fcd_lattice_set_history(fcd_lattice *lat, fcd_lattice_history_fn fn,
                                           void *user_data);

/** Installs (or, with NULL, removes: the previous damage is the guess) the guess.
 *  @param lat the lattice
 *  @param fn the callback, or NULL to remove it
 *  @param user_data passed unchanged to every call of fn
 *  @return FCD_OK, or FCD_E_INVALID_ARG
 *  @since 0.1 */
FCD_API fcd_status fcd_lattice_set_guess(fcd_lattice *lat, fcd_lattice_guess_fn fn,
                                         void *user_data);

/** The state at time @p t: spring stresses @p sigma and damage @p a (m entries each; NULL
 *  sigma: the elastic stress of the constraints and forces at t; NULL a: zero). The
 *  stresses must be in equilibrium with the nodal forces at t and admissible,
 *  |sigma_i| <= c0_i + s_i (1 - h_i) a_i, and a >= 0. Plastic elongations start at zero. Without a call, the
 *  stepping starts stress-free and undamaged at t = 0.
 *  @param lat the lattice
 *  @param t the time
 *  @param sigma spring forces, one per spring (NULL: the elastic forces of the loads at t)
 *  @param a plastic elongations, one per spring, >= 0 (NULL: zero)
 *  @return FCD_OK, or FCD_E_BACKEND, FCD_E_CALLBACK, FCD_E_INVALID_ARG, FCD_E_NOMEM,
 *      FCD_E_NOT_SPD, FCD_E_SINGULAR, FCD_E_STATE
 *  @since 0.1 */
FCD_API fcd_status fcd_lattice_set_state(fcd_lattice *lat, fcd_real t, const fcd_real *sigma,
                                         const fcd_real *a);

/** One implicit catch-up step to @p t_next (> current time). @p iterations (may be NULL)
 *  receives the Picard iterations. On failure the state is unchanged. When the Picard
 *  iterates run off (past FCD_LAT_BOUND), the step locates where the sweep ends inside
 *  it by bisection on the time, each trial a step from the state: complete failure
 *  (seed 001, Remark 3.1: a softening spring, h > 1, whose plastic elongation reaches
 *  a_f = c0 / (s (h - 1)), where its admissible stresses shrink to {0} and past which
 *  there are none) is FCD_E_NO_SOLUTION, the message naming the spring, its nodes and
 *  the time of failure ("complete failure at t = ..."); otherwise FCD_E_NOT_CONVERGED
 *  with the last time the sweep reaches ("the sweep reaches t = ...", a limit point of
 *  the load, to 2^-20 of the step). Iterates that stay bounded up to FCD_LAT_MAX_ITER
 *  are FCD_E_NOT_CONVERGED with the last change, without the search.
 *  @param lat the lattice
 *  @param t_next the time to reach, > the current time
 *  @param iterations receives the projection iterations of the step (may be NULL)
 *  @return FCD_OK, or FCD_E_BACKEND, FCD_E_CALLBACK, FCD_E_INVALID_ARG, FCD_E_NOMEM,
 *      FCD_E_NOT_CONVERGED, FCD_E_NO_SOLUTION, FCD_E_NOT_SPD, FCD_E_SINGULAR, FCD_E_STATE,
 *      FCD_E_UNSUPPORTED
 *  @since 0.1 */
FCD_API fcd_status fcd_lattice_step(fcd_lattice *lat, fcd_real t_next, fcd_index *iterations);

/** Current time, stresses, damage (m each) and node displacements (n d; NaN when some
 *  spring has s = 0, whose plastic elongation a cannot give). Any output may be NULL.
 *  @param lat the lattice
 *  @param t receives the time (may be NULL)
 *  @param sigma receives the spring forces (may be NULL)
 *  @param a receives the plastic elongations (may be NULL)
 *  @param u receives the node displacements, dim per node (may be NULL)
 *  @return FCD_OK, or FCD_E_BACKEND, FCD_E_CALLBACK, FCD_E_INVALID_ARG, FCD_E_NOMEM,
 *      FCD_E_NOT_SPD, FCD_E_SINGULAR, FCD_E_STATE
 *  @since 0.1 */
FCD_API fcd_status fcd_lattice_get_state(fcd_lattice *lat, fcd_real *t, fcd_real *sigma,
                                         fcd_real *a, fcd_real *u);

/** Support reactions: @p r receives one entry per constraint, in the order of the
 *  constraints (fcd_lattice_get_constraint), the force the support applies to the node
 *  along its axis. Summed over the pulled constraints, it is the force of the
 *  force-displacement curve.
 *  @param lat the lattice
 *  @param r receives the reactions, one per constraint
 *  @return FCD_OK, or FCD_E_BACKEND, FCD_E_CALLBACK, FCD_E_INVALID_ARG, FCD_E_NOMEM,
 *      FCD_E_NOT_SPD, FCD_E_SINGULAR, FCD_E_STATE
 *  @since 0.1 */
FCD_API fcd_status fcd_lattice_get_reactions(fcd_lattice *lat, fcd_real *r);

/** Largest KKT violation of the last projection (equilibrium, admissibility, multiplier
 *  signs, complementarity), relative to the stress and damage scales: the certificate of
 *  the catch-up (docs/conventions.md, "Certificates"). A step whose residual exceeds
 *  1e-8 returns FCD_E_NOT_CONVERGED and leaves the state unchanged.
 *  @param lat the lattice
 *  @param res receives the last projection's KKT residual
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_STATE
 *  @since 0.1 */
FCD_API fcd_status fcd_lattice_get_kkt_residual(const fcd_lattice *lat, fcd_real *res);

/** Eigenvalues of the Jacobian of the last step's map a~ -> T(a~) at its fixed point
 *  (forward differences of T, exact where the active set is locally constant; seed 001
 *  digest section 4): @p re, @p im receive m entries each. A stable node has all
 *  moduli below 1, a saddle some above. Lattices with more than 2000 springs:
 *  FCD_E_UNSUPPORTED (dense).
 *  @param lat the lattice
 *  @param re receives the real parts, one per spring
 *  @param im receives the imaginary parts, one per spring
 *  @return FCD_OK, or FCD_E_BACKEND, FCD_E_INVALID_ARG, FCD_E_NOMEM, FCD_E_NOT_CONVERGED,
 *      FCD_E_NOT_SPD, FCD_E_SINGULAR, FCD_E_STATE, FCD_E_UNSUPPORTED
 *  @since 0.1 */
FCD_API fcd_status fcd_lattice_jacobian_eigenvalues(fcd_lattice *lat, fcd_real *re,
                                                    fcd_real *im);

/** Constraint @p c (0 <= c < constraints, in the order they were added): node, axis,
 *  value and rate (any output may be NULL).
 *  @param lat the lattice
 *  @param c the constraint, 0 to constraints - 1
 *  @param node receives its node (may be NULL)
 *  @param axis receives its axis (may be NULL)
 *  @param value receives its value at t = 0 (may be NULL)
 *  @param rate receives its rate (may be NULL)
 *  @return FCD_OK, or FCD_E_INVALID_ARG
 *  @since 0.1 */
FCD_API fcd_status fcd_lattice_get_constraint(const fcd_lattice *lat, fcd_index c,
                                              fcd_index *node, int *axis, fcd_real *value,
                                              fcd_real *rate);

/** Node position (dim entries).
 *  @param lat the lattice
 *  @param node node index
 *  @param x receives the coordinates, dim entries
 *  @return FCD_OK, or FCD_E_INVALID_ARG
 *  @since 0.1 */
FCD_API fcd_status fcd_lattice_get_node(const fcd_lattice *lat, fcd_index node, fcd_real *x);
/** Spring data: end nodes @p a and @p b, stiffness @p k, initial yield stress @p c0,
 *  softening or hardening modulus @p s and parameter @p h (any output may be NULL).
 *  @param lat the lattice
 *  @param spring the spring, 0 to springs - 1
 *  @param a receives its first node (may be NULL)
 *  @param b receives its second node (may be NULL)
 *  @param k receives its stiffness (may be NULL)
 *  @param c0 receives its initial yield force (may be NULL)
 *  @param s receives its geometric slope (may be NULL)
 *  @param h receives its state feedback (may be NULL)
 *  @return FCD_OK, or FCD_E_INVALID_ARG
 *  @since 0.1 */
FCD_API fcd_status fcd_lattice_get_spring(const fcd_lattice *lat, fcd_index spring,
                                          fcd_index *a, fcd_index *b, fcd_real *k,
                                          fcd_real *c0, fcd_real *s, fcd_real *h);

FCD_END_DECLS

#endif
