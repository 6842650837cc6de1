/* fcd: reduced models with the contact dofs kept physical (component mode synthesis). */
#ifndef FCD_REDUCTION_H
#define FCD_REDUCTION_H

#include <fcd/fcd_common.h>
#include <fcd/fcd_status.h>
#include <fcd/fcd_system.h>
#include <fcd/fcd_contact.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @name Reduced models
 *  A Craig-Bampton reduction (docs/reduction.md) of a full system: every dof that a
 *  contact row of the given set weighs, and every prescribed dof that can move (a
 *  nonzero value, or any once the system has a prescribed function), stays a physical
 *  dof of the reduced system ("kept"); prescribed dofs held at zero are left out (they
 *  expand to zero); the interior is represented by its static response to the
 *  kept dofs (constraint modes) and its lowest fixed-interface modes. The contact laws,
 *  projections and certificates then act on the kept dofs exactly, and only the elastic
 *  interior is approximated. The reduced system is an ordinary system (dense matrices of
 *  nkept + nmodes dofs: the kept dofs first, in increasing order of their full numbers,
 *  then the modal coordinates), which every analysis accepts, with the contact set
 *  mapped onto it. Its prescribed dofs take the full system's values and prescribed
 *  function, its loads are the full loads projected (T' f(t); a constant load stays a
 *  constant load, T' f computed once, so that a reduced model is as autonomous as the
 *  full one and shooting accepts it; a load function stays a load function): a load on
 *  kept dofs is
 *  represented exactly in statics; a constant load (fcd_system_set_load) on the interior
 *  adds one modal coordinate, its static correction (the interior's static response to
 *  it, less its part in the modes), so that its statics are exact too; a load function's
 *  interior part is represented to the extent of the modes and that correction.
 *  The reduction is a snapshot: changing the full system's matrices, prescribed dofs,
 *  constant load or contacts afterwards needs a new one. Symmetric mass and stiffness.
 *
 *  On a distributed system (fcd_system_set_distribution) the reduction is by components
 *  and collective: each rank's rows are one component (a superelement: whole bodies, the
 *  disc on one rank and the pads on others, say), reduced on that rank alone with its own
 *  factor, and the reduced operators are summed at the kept dofs. A matrix entry that
 *  couples the interiors of two ranks' rows is refused by name (FCD_E_UNSUPPORTED):
 *  components meet at kept dofs only. The modes are the lowest of the union of the
 *  components' modes, which are the whole interior's, so the reduced model is the
 *  serial reduction's (to round-off; the modes' signs are each basis' own). The reduced
 *  system and its contacts are serial and replicated on every rank (each rank may run
 *  the analyses on them alone); fcd_reduction_expand, _expand_dofs, _restrict and
 *  _residual are collective; fcd_reduction_get_memory reports this rank's component.
 *  Offered there: the physical interface, modes, the band, either basis, constant
 *  loads on kept dofs; refused (FCD_E_UNSUPPORTED): modal coordinates, the relative
 *  interface and its ties, prescribed_shape, inertia correction vectors, a load
 *  function and a constant load on the interior.
 *  @{ */

/** Opaque reduced model. */
typedef struct fcd_reduction fcd_reduction;

/** Reduces @p sys keeping the dofs of @p cs's contacts and the prescribed dofs, with
 *  @p nmodes fixed-interface modes (0: Guyan's static reduction), plus the static
 *  correction of a constant interior load (a last modal coordinate; none when every
 *  interior mode is kept, which spans it). Its dynamics above its band are damped as
 *  fcd_reduction_create_band describes, with FCD_REDUCTION_CUT_DEFAULT and
 *  FCD_REDUCTION_BAND_DAMPING_DEFAULT (the reduced damping matrix holds it).
 *  @param sys the full system (borrowed; it must outlive the reduction); mass and
 *      stiffness set and symmetric, the interior's stiffness positive definite
 *  @param cs the contact set whose dofs are kept (borrowed, read once), or NULL
 *  @param nmodes the fixed-interface modes kept, 0 to the number of interior dofs
 *  @param out receives the reduction, owned by the caller; NULL on failure
 *  @return FCD_OK, or FCD_E_BACKEND, FCD_E_INVALID_ARG, FCD_E_NOMEM (also at once, with
 *      the GiB needed and available, when the dense basis, n x (kept dofs + modes), and
 *      the reduced operators alone exceed the memory), FCD_E_NOT_CONVERGED,
 *      FCD_E_NOT_SPD, FCD_E_SINGULAR, FCD_E_STATE, FCD_E_UNSUPPORTED
 *  @since 0.1 */
FCD_API fcd_status fcd_reduction_create(fcd_system *sys, fcd_contact_set *cs,
                                        fcd_index nmodes, fcd_reduction **out);

/** fcd_reduction_create in modal coordinates: the same reduced model (the same basis:
 *  its answers are fcd_reduction_create's to round-off) with the modes of its reduced
 *  pencil as unknowns (K_r psi = lambda M_r psi, M_r-normalized, ascending; one dense
 *  eigen-solve more). Its mass is the identity, its stiffness diag(lambda), Rayleigh
 *  damping diagonal with them, and an assembled damping matrix that the modes
 *  diagonalize (proportional to M and K, to 1e-9 of its largest entry) is stored
 *  diagonal too; any other keeps its dense block. A time integrator's products and
 *  solves then cost O(n) a step and the dense work left is the contacts': each contact
 *  is given by rows (fcd_contact_set_add_rows) that weigh every mode, whose local
 *  velocities and gaps are the kept dofs' own, so the laws and certificates act on them
 *  as before. Kept dofs prescribed at constant values (no prescribed function) become one
 *  coordinate, the first, prescribed to 1, whose shape is their values; the others
 *  follow in the order of their eigenvalues: fcd_system_ndofs of the reduced system is
 *  nkept + nmodes less the moving prescribed dofs, plus one when there are any. Go
 *  between vectors through fcd_reduction_restrict, fcd_reduction_expand and
 *  fcd_reduction_expand_dofs, which follow the coordinates (a kept dof is no entry of a
 *  modal vector). For the integrators, the equilibria and shooting; the friction-
 *  linearized stability needs a dof of each slipping contact's own, which modal rows do
 *  not have, and refuses them (FCD_E_SINGULAR, by name): analyse stability in
 *  fcd_reduction_create's coordinates. A prescribed function (fcd_system_set_prescribed_fn)
 *  is refused (FCD_E_UNSUPPORTED): its dofs would not move as one shape.
 *  @param sys the full system, as for fcd_reduction_create
 *  @param cs the contact set whose dofs are kept, or NULL
 *  @param nmodes the fixed-interface modes kept
 *  @param out receives the reduction, owned by the caller; NULL on failure
 *  @return FCD_OK, or FCD_E_BACKEND, FCD_E_INVALID_ARG, FCD_E_NOMEM,
 *      FCD_E_NOT_CONVERGED, FCD_E_NOT_SPD, FCD_E_SINGULAR, FCD_E_STATE,
 *      FCD_E_UNSUPPORTED
 *  @since 0.1 */
FCD_API fcd_status fcd_reduction_create_modal(fcd_system *sys, fcd_contact_set *cs,
                                              fcd_index nmodes, fcd_reduction **out);

/** A reduction as fcd_reduction_create (@p modal 0) or fcd_reduction_create_modal
 *  (@p modal nonzero) whose basis is enriched by up to @p ninertia inertia correction
 *  vectors: the interior's response to the constraint modes' inertia forces that the kept
 *  modes miss (its residual flexibility times M T_b), in the @p ninertia kept-dof patterns
 *  where that missing flexibility stores the most strain energy. Truncation's first error
 *  at frequencies well below the highest kept mode is that term (the reduced dynamic
 *  stiffness of the kept dofs lacks omega^4 of it): with them a friction instability's
 *  coupling, which reaches far above its own band, converges with far fewer modes
 *  (docs/reduction.md has the figures). They are modal coordinates after the modes and
 *  before a static correction, M-orthonormal and M-orthogonal to the modes, zero on the
 *  kept dofs; statics stay exact. Directions that vanish against the largest (1e-12 of
 *  its energy) are dropped: fcd_reduction_get_inertia tells how many were kept. 0 is
 *  fcd_reduction_create's (or _modal's) basis exactly. Cost: one block of solves with the
 *  interior's factor per kept dof and dense products of n x nkept blocks (memory: two
 *  n x nkept arrays while building).
 *  @param sys the full system, as for fcd_reduction_create
 *  @param cs the contact set whose dofs are kept, or NULL
 *  @param nmodes the fixed-interface modes kept
 *  @param ninertia the inertia correction vectors asked: 0 to the kept dofs' count and to
 *      the interior's dofs less @p nmodes
 *  @param modal nonzero for fcd_reduction_create_modal's coordinates
 *  @param out receives the reduction, owned by the caller; NULL on failure
 *  @return FCD_OK, or FCD_E_BACKEND, FCD_E_INVALID_ARG, FCD_E_NOMEM,
 *      FCD_E_NOT_CONVERGED, FCD_E_NOT_SPD, FCD_E_SINGULAR, FCD_E_STATE,
 *      FCD_E_UNSUPPORTED
 *  @since 0.1 */
FCD_API fcd_status fcd_reduction_create_enriched(fcd_system *sys, fcd_contact_set *cs,
                                                 fcd_index nmodes, fcd_index ninertia,
                                                 int modal, fcd_reduction **out);

/** The cut and the damping ratio of fcd_reduction_create, _create_modal and
 *  _create_enriched (fcd_reduction_create_band). */
#define FCD_REDUCTION_CUT_DEFAULT 1.0
#define FCD_REDUCTION_BAND_DAMPING_DEFAULT 0.1

/** A reduction as fcd_reduction_create_enriched, with the treatment of its dynamics above
 *  the band chosen. Every reduction states its band of validity, f_m / 1.5 for f_m the
 *  highest kept fixed-interface mode's frequency (the usual margin of component mode
 *  synthesis; a reduction without modes has none, band 0, and one that keeps every
 *  interior mode is the full model, band +inf). Above f_m the reduced model's modes are
 *  the interface's own, with the contact dofs carrying far more of each than they do in
 *  the structure, and with friction they couple into flutter the full model does not
 *  have (a steel block's 50-mode reduction: unstable pairs up to 1.9 MHz growing at
 *  4.1e5 1/s, where the full model's largest growth is 4.8e4 1/s, at 128 kHz); a
 *  transient then grows from round-off along them. So the part of the reduced model that
 *  lies above the cut, @p cut times f_m, in both of its pencils (the reduced pencil
 *  with the contacts free, and with every contact's normal held, the trial space of
 *  sliding and sticking contacts) is damped: with W the free reduced space's part
 *  M-orthogonal to both pencils' modes below the cut, and (Omega_k, q_k) the modes of
 *  the pencil restricted to W, C gains sum 2 @p damping Omega_k (M q_k)(M q_k)'. Both
 *  pencils' modes below the cut keep their frequencies, shapes and damping exactly, mass
 *  and stiffness are the Galerkin model's (statics, natural modes, the undamped pencil
 *  unchanged), the friction-linearized eigenvalues within the band move by less than
 *  1e-4 of their modulus, and no contact-heavy mode above the band outgrows the full
 *  model: on that block the reduced transient stays within a few percent of the full
 *  one where without it it diverged (docs/reduction.md has the options measured and
 *  their figures). The reduced system's damping matrix holds it (in modal coordinates a
 *  dense block among the modes above the cut, no longer diagonal). A stability analysis
 *  of the reduced system reports its eigenvalues above the band as outside it
 *  (fcd_stability_get_band). fcd_reduction_get_band tells the band, the cut and how many
 *  directions are damped.
 *  @param sys the full system, as for fcd_reduction_create
 *  @param cs the contact set whose dofs are kept, or NULL
 *  @param nmodes the fixed-interface modes kept
 *  @param ninertia the inertia correction vectors, as for fcd_reduction_create_enriched
 *  @param modal nonzero for fcd_reduction_create_modal's coordinates
 *  @param cut where the damped part begins, a finite multiple >= 1 of f_m
 *      (FCD_REDUCTION_CUT_DEFAULT elsewhere)
 *  @param damping the damping ratio given it, in [0, 10]; 0: none, the Galerkin model's
 *      own dynamics, those of fcd 0.1 (FCD_REDUCTION_BAND_DAMPING_DEFAULT elsewhere)
 *  @param out receives the reduction, owned by the caller; NULL on failure
 *  @return FCD_OK, or FCD_E_BACKEND, FCD_E_INVALID_ARG, FCD_E_NOMEM,
 *      FCD_E_NOT_CONVERGED, FCD_E_NOT_SPD, FCD_E_SINGULAR, FCD_E_STATE,
 *      FCD_E_UNSUPPORTED
 *  @since 0.1 */
FCD_API fcd_status fcd_reduction_create_band(fcd_system *sys, fcd_contact_set *cs,
                                             fcd_index nmodes, fcd_index ninertia, int modal,
                                             fcd_real cut, fcd_real damping,
                                             fcd_reduction **out);

/** The coordinates of the kept dofs (fcd_reduction_options.interface). */
typedef enum {
  /** every dof a contact row weighs, as it is: a node-to-node pair keeps both nodes */
  FCD_INTERFACE_PHYSICAL = 0,
  /** a node-to-node pair (fcd_contact_set_add_pair) keeps one node's worth: body A's
   *  node carries its displacement relative to body B's node, u_A - u_B, on which the
   *  pair's law acts whole, and B's node joins the interior (u = P y with y_A = u_A -
   *  u_B, every other y the u of its dof). The constraint modes are the static responses
   *  to a unit opening or sliding of one pair, the fixed-interface modes those of the
   *  bodies bonded at their pairs. Half the kept dofs of a pad on a disc: on the brake
   *  with two pads of 396 contact nodes (docs/reduction.md) 1,584 kept dofs instead of
   *  2,772, the reduction in half the time, a stability solve in a quarter, a step in 0.6,
   *  and the unstable pairs' frequencies 10x closer to the full model's. A pair is converted
   *  when no other contact weighs its A node's dofs and its B node is no converted
   *  pair's A node; the others, and every rigid or row contact, stay physical. */
  FCD_INTERFACE_RELATIVE = 1
} fcd_interface_coordinates;

/** How a reduction holds its constraint modes (fcd_reduction_options::basis), the
 *  static response of the interior to each kept dof: n x nkept numbers, which at
 *  thousands of kept dofs outgrow the machine. The reduced model is the same either way
 *  (to round-off); what changes is memory and the cost of going back to the full dofs. */
typedef enum {
  /** whichever takes less memory: FACTORED when the stored modes would take more than
   *  the interior's factor (the build's time is much the same either way) */
  FCD_BASIS_AUTO = 0,
  /** the n x nkept array, kept: an expansion is one product with it */
  FCD_BASIS_STORED = 1,
  /** the interior's stiffness factor kept instead, and the coupling block K_ib: the
   *  modes are applied by a solve (an expansion, a projected load: one solve; an
   *  interior dof of fcd_reduction_expand_dofs: one solve the first time it is asked,
   *  its row kept after) */
  FCD_BASIS_FACTORED = 2
} fcd_basis_storage;

/** Everything a reduction is made with, for fcd_reduction_create_opts. A size-prefixed
 *  struct: set @c struct_size to sizeof(fcd_reduction_options) (fcd_reduction_options_init
 *  or FCD_REDUCTION_OPTIONS_INIT do, with every default) so that later versions can add
 *  fields at its end; a caller built against an earlier version passes a smaller size,
 *  and the fields past it take their defaults. */
typedef struct {
  size_t struct_size;  /**< sizeof(fcd_reduction_options) */
  fcd_index nmodes;    /**< fixed-interface modes kept (default 0: Guyan) */
  fcd_index ninertia;  /**< inertia correction vectors (fcd_reduction_create_enriched) */
  int32_t modal;       /**< nonzero: fcd_reduction_create_modal's coordinates */
  int32_t interface;   /**< an fcd_interface_coordinates (default PHYSICAL) */
  fcd_real cut;        /**< fcd_reduction_create_band's cut (FCD_REDUCTION_CUT_DEFAULT) */
  fcd_real damping;    /**< its damping ratio (FCD_REDUCTION_BAND_DAMPING_DEFAULT) */
  int32_t basis;       /**< an fcd_basis_storage (default AUTO) */
  /** Interface coarsening (FCD_INTERFACE_RELATIVE only; default 0: none): @c ntied
   *  contacts whose relative displacement follows other contacts' instead of being kept.
   *  Contact tied[k] (a converted node-to-node pair) moves as
   *  y_tied = sum_j tie_w[j] y_(tie_src[j]) over j in tie_ptr[k] .. tie_ptr[k+1] - 1,
   *  component by component in the global axes, its sources being converted pairs that
   *  are tied to none. A tied contact leaves the reduced contact set (its law is no
   *  longer enforced: with weights >= 0 summing to 1 and the same normal as its sources',
   *  closed gaps at the sources keep it closed and an opening opens it no more than
   *  they do) and its dofs leave the kept dofs: the reduced model keeps the sources' dofs
   *  only, its law exact at them. The arrays are read during the creation only. */
  fcd_index ntied;
  const fcd_index *tied;    /**< the tied contacts (ntied) */
  const fcd_index *tie_ptr; /**< where each tied contact's sources start (ntied + 1) */
  const fcd_index *tie_src; /**< the sources, contacts of the set (tie_ptr[ntied]) */
  const fcd_real *tie_w;    /**< their weights (tie_ptr[ntied]) */
  /** Nonzero: the moving prescribed dofs (nonzero constant values, no prescribed
   *  function) are kept as one coordinate, the first of them, the others following it
   *  in proportion to their values (ties as above, for any interface), where each would
   *  be a kept dof of its own (the pads' pushed backs of a brake: thousands). Their
   *  reactions come back as one, on the first. Default 0. */
  int32_t prescribed_shape;
  /** The bytes this process may hold at the reduction's peak (default 0: the machine's
   *  memory, or its cgroup's limit when lower; a larger value counts as that). The
   *  reduction is refused before its dense arrays are made when even its least working
   *  set would pass it (FCD_E_NOMEM, naming the memory needed), and the fixed-interface
   *  modes' block Lanczos works in a smaller space (more restarts, slower) where its
   *  default space would pass it. The factorization's own memory is measured once made,
   *  not predicted. @since 0.1 (appended: a struct_size that ends before it reads as 0) */
  fcd_real memory_limit;
} fcd_reduction_options;

/** fcd_reduction_options with every default, as fcd_reduction_options_init sets it. */
#define FCD_REDUCTION_OPTIONS_INIT                                                          \
  {sizeof(fcd_reduction_options), 0, 0, 0, FCD_INTERFACE_PHYSICAL,                          \
   FCD_REDUCTION_CUT_DEFAULT, FCD_REDUCTION_BAND_DAMPING_DEFAULT, FCD_BASIS_AUTO,          \
   0, NULL, NULL, NULL, NULL, 0, 0.0}

/** Sets @p opt to every default, its struct_size included. NULL-safe.
 *  @param opt the options
 *  @since 0.1 */
FCD_API void fcd_reduction_options_init(fcd_reduction_options *opt);

/** A reduction made with @p opt: fcd_reduction_create_band's with the coordinates of the
 *  kept dofs chosen (fcd_interface_coordinates). In relative coordinates the reduced
 *  system's first nkept dofs are the kept dofs' y (a converted pair's A node: u_A - u_B),
 *  fcd_reduction_get_info's kept list names those dofs, and fcd_reduction_expand,
 *  _expand_dofs, _restrict and _residual speak of the physical u as always.
 *  @param sys the full system, as for fcd_reduction_create
 *  @param cs the contact set whose dofs are kept, or NULL
 *  @param opt the options; struct_size at least this version's
 *  @param out receives the reduction, owned by the caller; NULL on failure
 *  @return FCD_OK, or FCD_E_BACKEND, FCD_E_INVALID_ARG (among others a struct_size too
 *      small, an unknown interface or basis), FCD_E_NOMEM, FCD_E_NOT_CONVERGED,
 *      FCD_E_NOT_SPD, FCD_E_SINGULAR, FCD_E_STATE, FCD_E_UNSUPPORTED
 *  @since 0.1 */
FCD_API fcd_status fcd_reduction_create_opts(fcd_system *sys, fcd_contact_set *cs,
                                             const fcd_reduction_options *opt,
                                             fcd_reduction **out);

/** The reduction's band of validity and its cut (fcd_reduction_create_band): @p band_hz,
 *  below which its eigenvalues are the full model's (f_m / 1.5; 0 without modes, +inf
 *  when every interior mode is kept); @p cut_hz, above which its dynamics are damped
 *  (+inf: none); @p ndamped, the directions damped. Any output may be NULL.
 *  @param r the reduction
 *  @param band_hz receives the band (Hz)
 *  @param cut_hz receives the cut (Hz)
 *  @param ndamped receives the count of damped directions
 *  @return FCD_OK, or FCD_E_INVALID_ARG
 *  @since 0.1 */
FCD_API fcd_status fcd_reduction_get_band(const fcd_reduction *r, fcd_real *band_hz,
                                          fcd_real *cut_hz, fcd_index *ndamped);

/** The second error indicator of a reduced run: the share of the reduced velocity
 *  @p v's kinetic energy (1/2 v' M_r v over the free reduced dofs) carried by the
 *  reduced pencil's modes above the band (contacts free). A reduced model says nothing
 *  of the full model's dynamics there; when that share grows towards 1 in a run, the
 *  run is following dynamics the full model does not have (without the band's damping,
 *  fcd_reduction_create_band with damping 0, the reduced transient of a steel block at
 *  mu = 0.5, 50 modes and 200 inertia vectors, 300 steps of 0.1 us, ended with 0.94 of
 *  its kinetic energy there and 24 times the full model's fluctuation in its normal
 *  force; with the default, 0.0023 and within 5.7 %). fcd_reduction_residual, the first indicator,
 *  measures the interior's equations and cannot see it: the spurious modes satisfy
 *  them. 0 when the reduction keeps every interior mode (nothing is outside); 1 for a
 *  reduction without modes (everything is).
 *  @param r the reduction
 *  @param v the reduced velocity (the reduced system's ndofs), finite
 *  @param fraction receives the share, in [0, 1] (0 for a zero velocity)
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_NOMEM
 *  @since 0.1 */
FCD_API fcd_status fcd_reduction_band_energy(const fcd_reduction *r, const fcd_real *v,
                                             fcd_real *fraction);

/** How a reduction holds its basis and the memory it takes, in bytes. Any output may be
 *  NULL.
 *  @param r the reduction
 *  @param basis receives FCD_BASIS_STORED or FCD_BASIS_FACTORED (what FCD_BASIS_AUTO chose)
 *  @param factor_bytes receives the interior's stiffness factor's size (CHOLMOD's values,
 *      indices and supernodes): held by a factored basis, freed once a stored one is made
 *  @param basis_bytes receives what the handle keeps of the basis: the n x nr columns
 *      (stored), or the modal columns, the coupling block K_ib and the rows of
 *      fcd_reduction_expand_dofs asked so far (factored; the factor not counted)
 *  @param peak_bytes receives the peak of the build's dense arrays as the refusal counts
 *      them (the basis, the reduced operators and, in turn, the blocks of solves, the
 *      modes' work, the band's and the reduced system's rows; the factor not counted)
 *  @return FCD_OK, or FCD_E_INVALID_ARG
 *  @since 0.1 */
FCD_API fcd_status fcd_reduction_get_memory(const fcd_reduction *r, fcd_basis_storage *basis,
                                            double *factor_bytes, double *basis_bytes,
                                            double *peak_bytes);

/** The inertia correction vectors the reduction kept (fcd_reduction_create_enriched; 0
 *  for the others), counted among fcd_reduction_get_info's modal coordinates.
 *  @param r the reduction
 *  @param ninertia receives the count
 *  @return FCD_OK, or FCD_E_INVALID_ARG
 *  @since 0.1 */
FCD_API fcd_status fcd_reduction_get_inertia(const fcd_reduction *r, fcd_index *ninertia);

/** Frees the reduction, its system and its contact set (NULL is a no-op). Analyses made
 *  from the reduced system must be destroyed first.
 *  @param r the reduction
 *  @since 0.1 */
FCD_API void fcd_reduction_destroy(fcd_reduction *r);

/** The reduced system, owned by the reduction (NULL for an invalid reduction).
 *  @param r the reduction
 *  @return the reduced system
 *  @since 0.1 */
FCD_API fcd_system *fcd_reduction_system(const fcd_reduction *r);

/** The contact set mapped onto the reduced system (the same contacts, in the same
 *  order, on the kept dofs; without the tied ones of fcd_reduction_options::tied, the
 *  others keeping their order), owned by the reduction; NULL when created without one.
 *  @param r the reduction
 *  @return the reduced contact set, or NULL
 *  @since 0.1 */
FCD_API fcd_contact_set *fcd_reduction_contact_set(const fcd_reduction *r);

/** The full vector of a reduced one: @p x = T @p xr (displacements, velocities,
 *  accelerations alike), the kept dofs' entries exactly those of @p xr (in modal
 *  coordinates, x = T S @p xr, S the modes and the prescribed dofs' shape).
 *  @param r the reduction
 *  @param xr the reduced vector, nkept + nmodes entries
 *  @param x receives the full vector, the full system's ndofs entries
 *  @return FCD_OK, or FCD_E_BACKEND, FCD_E_SINGULAR, FCD_E_STATE (a factored basis's
 *      solve), FCD_E_INVALID_ARG, FCD_E_NOMEM, FCD_E_UNSUPPORTED
 *  @since 0.1 */
FCD_API fcd_status fcd_reduction_expand(const fcd_reduction *r, const fcd_real *xr,
                                        fcd_real *x);

/** Some entries of the full vector of a reduced one, as fcd_reduction_expand would give
 *  them, without the whole expansion: O(nkept + nmodes) for each kept dof (a monitored
 *  contact node at every step), O((nkept + nmodes)^2) once plus that for interior ones.
 *  @param r the reduction
 *  @param xr the reduced vector, nkept + nmodes entries
 *  @param ndofs the number of entries wanted, >= 0
 *  @param dofs their full dof numbers, 0 to the full system's ndofs - 1
 *  @param x receives them, ndofs entries
 *  @return FCD_OK, or FCD_E_BACKEND, FCD_E_SINGULAR, FCD_E_STATE (a factored basis's
 *      solve), FCD_E_INVALID_ARG, FCD_E_NOMEM, FCD_E_UNSUPPORTED
 *  @since 0.1 */
FCD_API fcd_status fcd_reduction_expand_dofs(const fcd_reduction *r, const fcd_real *xr,
                                             fcd_index ndofs, const fcd_index *dofs,
                                             fcd_real *x);

/** The reduced coordinates of a full vector: the kept dofs' entries copied, the modal
 *  coordinates the M-orthogonal projection of the interior's departure from the
 *  constraint modes' static shape onto the modes (q = Phi' M (x - T_b x_b)); in modal
 *  coordinates (fcd_reduction_create_modal) from those, y: the shape coordinate by least
 *  squares on the prescribed dofs, the modes' by Psi' M_r y on the others (so that
 *  restricting an expansion gives it back here too). For any
 *  reduced vector, restricting its expansion gives it back; a full state outside the
 *  basis (the full model's equilibrium plus a full mode, say) gets its best
 *  representation in the mass norm. Starts a reduced transient from a full state.
 *  @param r the reduction
 *  @param x the full vector, the full system's ndofs entries, finite
 *  @param xr receives the reduced vector, nkept + nmodes entries
 *  @return FCD_OK, or FCD_E_BACKEND, FCD_E_SINGULAR, FCD_E_STATE (a factored basis's
 *      solve), FCD_E_INVALID_ARG, FCD_E_NOMEM, FCD_E_UNSUPPORTED
 *  @since 0.1 */
FCD_API fcd_status fcd_reduction_restrict(const fcd_reduction *r, const fcd_real *x,
                                          fcd_real *xr);

/** The a-posteriori indicator of a reduced solution: the largest interior row (the dofs
 *  neither kept nor prescribed, where no contact acts) of the full equations
 *  M a + C v + K u - f(t) at the expanded state, relative to the largest of the terms'
 *  magnitudes before they cancel there (|f| + |K| |u| + |C| |v| + |M| |a|, Rayleigh
 *  terms included). It vanishes (to round-off) for a state the full model satisfies exactly: every
 *  static state with no interior load, any state with every mode kept. For a step of a
 *  time integrator pass its state and a = (v_end - v_start) / h; a value that does not
 *  fall as modes are added, or above the accuracy needed, says to add modes.
 *  @param r the reduction
 *  @param t the time at which the load is evaluated
 *  @param ur reduced displacements, nkept + nmodes entries
 *  @param vr reduced velocities, or NULL (statics)
 *  @param ar reduced accelerations, or NULL (statics)
 *  @param rel receives the relative residual (0 when every term vanishes)
 *  @return FCD_OK, or FCD_E_BACKEND, FCD_E_CALLBACK, FCD_E_INVALID_ARG, FCD_E_NOMEM,
 *      FCD_E_SINGULAR, FCD_E_STATE (a factored basis's solve), FCD_E_UNSUPPORTED
 *  @since 0.1 */
FCD_API fcd_status fcd_reduction_residual(const fcd_reduction *r, fcd_real t,
                                          const fcd_real *ur, const fcd_real *vr,
                                          const fcd_real *ar, fcd_real *rel);

/** What the reduction kept: @p nkept physical dofs, @p nmodes modal coordinates (the
 *  fixed-interface modes, the inertia correction vectors and the static correction of a
 *  constant interior load, if any: the reduced system has nkept + nmodes dofs, in Craig-Bampton coordinates), the highest fixed-interface mode's
 *  frequency @p max_freq_hz (0 without modes); @p kept (may be NULL)
 *  receives the full numbers of the kept dofs, nkept entries, increasing. Any output
 *  may be NULL.
 *  @param r the reduction
 *  @param nkept receives the number of kept dofs
 *  @param nmodes receives the number of modal coordinates
 *  @param max_freq_hz receives the highest mode's frequency in Hz
 *  @param kept receives the kept dofs (may be NULL)
 *  @return FCD_OK, or FCD_E_INVALID_ARG
 *  @since 0.1 */
FCD_API fcd_status fcd_reduction_get_info(const fcd_reduction *r, fcd_index *nkept,
                                          fcd_index *nmodes, fcd_real *max_freq_hz,
                                          fcd_index *kept);

/** @} */

#ifdef __cplusplus
}
#endif

#endif
