/** @file fcd/fcd_stability.h
 *  @brief Divergence and flutter of a frictional contact state: the friction-linearized
 *  complex eigenvalue analysis behind brake squeal (contract section "stability";
 *  seed 000, sections 2-3; seed 003, eqs. 16-21).
 *
 *  From the status of every contact (open, stick, slip with its direction) the reduced
 *  pencil is built on the free dofs with a trial space and a test space:
 *  - stick contacts: every local component of the contact's relative displacement is
 *    zero (trial and test);
 *  - slip contacts: the normal component is zero for the trial functions (the contact
 *    stays closed), and the test functions are orthogonal to the direction of the
 *    reaction, H_N + mu s . H_T, which eliminates the unknown normal reaction. This is
 *    seed 003's T_mu^T (.) T_n and, with dofs aligned to the contact frame, exactly
 *    seed 000's rule row_T + mu sigma(r_T) row_N (eqs. 79-82): s = -sigma(r_T);
 *  - open contacts: nothing.
 *  Each constraint eliminates one dof of its contact that no other active contact
 *  touches (body A for pairs; the slave node for mortar rows), so the reduced matrices
 *  K*, M*, C* are square; they are non-symmetric when a contact slips. Contacts given by
 *  rows (fcd_contact_set_add_rows, fcd_contact_set_add_surface_pair) are reduced alike:
 *  their rows are the rows of H.
 *  In 3D, with the equilibrium normal reactions and sliding speeds given
 *  (fcd_stability_set_sliding_data), the linearized direction of the friction force adds
 *  the damping -mu r_N / |v| on the tangential direction normal to the slip
 *  (seed 003 eq. 21, C - mu P_b^T D P_b).
 *
 *  Eigenvalues lambda of (lambda^2 M* + lambda C* + K*) v = 0 (C* = 0 without damping:
 *  then Lambda = -lambda^2 solves K* v = Lambda M* v and both signs of lambda are
 *  reported). A mode is unstable when Re(lambda) > 0: flutter when it is complex,
 *  divergence when it is real. Frequencies are |Im lambda| / (2 pi) Hz, damping ratios
 *  xi = -Re lambda / |Im lambda| (seed 000 section 5.7).
 *
 *  Solvers: LAPACK dggev on the dense reduced pencil up to FCD_STAB_DENSE_MAX dofs (all
 *  eigenvalues); above, SLEPc Krylov-Schur on K* v = Lambda M* v with shift-and-invert
 *  at Lambda = (2 pi f_target)^2 (the LU of the shifted non-symmetric operator by
 *  MUMPS through PETSc), the nev eigenvalues nearest the target. Damping on large
 *  problems: Rayleigh damping (C = alpha M + beta K, no sliding damping) is exact through
 *  the scalar quadratic of each undamped eigenvalue; an explicit damping matrix goes to
 *  SLEPc PEP (TOAR, shift-and-invert at 0) for the eigenvalues of smallest modulus.
 *  With a target above 0 Hz, or with the 3D sliding damping, a large damped problem is
 *  solved by modal projection, as commercial complex eigenvalue analyses do (a real
 *  PETSc build has no complex shift): the undamped reduced pencil gives the
 *  FCD_STAB_PROJECTION_MODES eigenvectors nearest the target (SLEPc, real shift), their
 *  real and imaginary parts span a basis, and the damped quadratic problem projected on
 *  it (Galerkin) is solved densely; the 2 nev eigenvalues nearest +-i 2 pi f_target are
 *  returned. Exact for damping that maps the basis into itself; otherwise a truncation
 *  error that falls as the basis grows (docs/stability.md). */
#ifndef FCD_STABILITY_H
#define FCD_STABILITY_H

#include <fcd/fcd_certificate.h>
#include <fcd/fcd_common.h>
#include <fcd/fcd_contact.h>
#include <fcd/fcd_status.h>
#include <fcd/fcd_system.h>

FCD_BEGIN_DECLS

/** Opaque stability analysis of one system and contact set. */
typedef struct fcd_stability fcd_stability;

/** Parameter keys of fcd_stability_set_param. */
enum {
  FCD_STAB_NEV = 500,       /**< eigenvalues wanted (>= 1); default 10. Larger than the
                                 reduced size: clamped, with a message. The sparse solve
                                 of the undamped or Rayleigh-damped pencil returns 2 nev
                                 (each Lambda gives a pair of lambda), as does the modal
                                 projection; SLEPc's PEP returns nev */
  FCD_STAB_TARGET_HZ = 501, /**< target frequency (>= 0) of the shift-and-invert; default 0 */
  FCD_STAB_MU = 502,        /**< friction coefficient for every contact (>= 0), overriding
                                 the contact set's; a negative value restores them */
  FCD_STAB_TOLERANCE = 503, /**< eigen-solver tolerance; default 1e-10. The certificate's
                                 bound on the pairs' backward error, dense and sparse, is
                                 max(1e-8, 100 x this) */
  FCD_STAB_DAMPING = 504,   /**< 1: use the damping of the system (and the sliding damping
                                 of 3D contacts); 0: the undamped pencil; default 1 */
  FCD_STAB_DENSE_MAX = 505, /**< largest reduced size solved densely by LAPACK; default 400 */
  FCD_STAB_PROJECTION_MODES = 506, /**< size of the modal basis of the projected damped
                                       solve (large problems, general damping); 0
                                       (default): max(2 nev, nev + 20) */
  FCD_STAB_MAX_ITER = 507,  /**< iteration (restart) cap of the sparse eigen-solver (>= 1);
                                 default 1000. The dense path is direct and ignores it */
  FCD_STAB_ESTIMATE_MODES = 509, /**< beside a partial (sparse) window, the size of the
                                      modal basis on which the undamped pencil is solved
                                      whole for a global estimate of the growth rate
                                      (fcd_stability_get_estimate); 0 (default): none */
  FCD_STAB_SHARE_SWEEP = 508, /**< on a communicator of several ranks, 1 (default): a
                                  friction sweep shares its coefficients out, each rank
                                  solving its own serially (serial memory per rank);
                                  0: every coefficient solved by all ranks together (the
                                  LU distributed by MUMPS: less memory per rank) */
  FCD_STAB_BAND_HZ = 510, /**< the band of validity (Hz) above which eigenvalues are
                              outside the model (fcd_stability_get_band); <= 0
                              (default): the system's own, a reduced model's f_m / 1.5
                              (fcd_reduction_get_band), none (+inf) for any other */
  FCD_STAB_EIGEN_PATH = 511 /**< the eigen-path of every solve, an fcd_eigen_path;
                                 FCD_EIGEN_AUTO (default): dense up to FCD_STAB_DENSE_MAX
                                 reduced dofs, above it the first sparse path that fits
                                 the problem. A path that does not fit it (the pencil of a
                                 problem with general damping; dense above 20,000 reduced
                                 dofs, or where its arrays exceed the memory, which the
                                 automatic choice then passes over) makes the solve fail
                                 with FCD_E_INVALID_ARG */
};

/** The eigen-paths of a solve (FCD_STAB_EIGEN_PATH, fcd_stability_get_path), named in the
 *  registry's family FCD_FAMILY_EIGEN_PATH (fcd/fcd_registry.h). */
typedef enum {
  FCD_EIGEN_AUTO = -1,     /**< chosen by size and problem (FCD_STAB_EIGEN_PATH only) */
  FCD_EIGEN_DENSE = 0,     /**< "dense": the whole spectrum by LAPACK's QZ */
  FCD_EIGEN_PENCIL = 1,    /**< "pencil": SLEPc shift-and-invert on (K*, M*); undamped or
                                Rayleigh damping */
  FCD_EIGEN_QUADRATIC = 2, /**< "quadratic": SLEPc PEP at a real shift; general damping,
                                target 0 Hz */
  FCD_EIGEN_PROJECTED = 3  /**< "projected": the damped problem on a modal basis; general
                                or 3D sliding damping at any target */
} fcd_eigen_path;

/** Classification of one eigenvalue. */
typedef enum {
  FCD_MODE_STABLE = 0,     /**< Re(lambda) <= 0 */
  FCD_MODE_FLUTTER = 1,    /**< Re(lambda) > 0, Im(lambda) != 0 */
  FCD_MODE_DIVERGENCE = 2  /**< Re(lambda) > 0, Im(lambda) = 0 */
} fcd_mode_kind;

/** Creates an analysis of @p sys with the contacts of @p cs (both retained; destroy in
 *  any order). Every contact starts open.
 *  @param sys the system (borrowed; it must outlive every object made from it)
 *  @param cs the contact set
 *  @param out receives the new analysis, owned by the caller (fcd_stability_destroy); NULL
 *      on failure
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_NOMEM, FCD_E_STATE, FCD_E_UNSUPPORTED (a
 *      distributed system: see fcd_stability_set_communicator)
 *  @since 0.1 */
FCD_API fcd_status fcd_stability_create(fcd_system *sys, fcd_contact_set *cs,
                                        fcd_stability **out);

/** Destroys the analysis. NULL-safe.
 *  @param st the analysis, or NULL
 *  @since 0.1 */
FCD_API void fcd_stability_destroy(fcd_stability *st);

/** The contact state: @p status one fcd_contact_status per contact; @p slip_dir dim-1
 *  entries per contact (contact order), read where the status is FCD_CONTACT_SLIP and
 *  then a unit vector in the local tangent plane (may be NULL when no contact slips).
 *  Validated as a whole: on error nothing changes.
 *  @param st the stability analysis
 *  @param status one FCD_CONTACT_* value per contact
 *  @param slip_dir unit slip direction per slipping contact (dim - 1 entries per contact;
 *      ignored for others)
 *  @return FCD_OK, or FCD_E_INVALID_ARG
 *  @since 0.1 */
FCD_API fcd_status fcd_stability_set_contact_state(fcd_stability *st, const int *status,
                                                   const fcd_real *slip_dir);

/** 3D sliding damping: equilibrium normal reactions @p r_n (<= 0) and sliding speeds
 *  @p speed (> 0 where a contact slips), one per contact; NULL, NULL removes it.
 *  @param st the stability analysis
 *  @param r_n normal reactions of the contacts, one per contact
 *  @param speed sliding speed of each contact, one per contact
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_NOMEM
 *  @since 0.1 */
FCD_API fcd_status fcd_stability_set_sliding_data(fcd_stability *st, const fcd_real *r_n,
                                                  const fcd_real *speed);

/** Sets a parameter (FCD_STAB_*). Unknown keys: FCD_E_UNSUPPORTED.
 *  @param st the stability analysis
 *  @param key parameter key (see the keys listed above)
 *  @param value its value
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_UNSUPPORTED
 *  @since 0.1 */
FCD_API fcd_status fcd_stability_set_param(fcd_stability *st, int key, fcd_real value);

/** Builds the reduced pencil and solves. @p nconv (may be NULL) receives the number of
 *  eigenvalues available. Fewer converged than requested is not an error when at least
 *  one did: the count says so, and fcd_system_last_error() explains, with the error
 *  estimate the next one reached. None converged (FCD_STAB_TOLERANCE too strict for
 *  FCD_STAB_MAX_ITER) is FCD_E_NOT_CONVERGED, with that estimate in the message. On any
 *  failure the results of the previous successful solve stay available unchanged.
 *  @param st the stability analysis
 *  @param nconv receives the number of eigenpairs found (may be NULL)
 *  @return FCD_OK, or FCD_E_BACKEND, FCD_E_INTERNAL, FCD_E_INVALID_ARG, FCD_E_NOMEM,
 *      FCD_E_NOT_CONVERGED, FCD_E_NOT_SPD, FCD_E_SINGULAR, FCD_E_STATE, FCD_E_UNSUPPORTED
 *  @since 0.1 */
FCD_API fcd_status fcd_stability_solve(fcd_stability *st, fcd_index *nconv);

/** Eigenvalue @p i (0-based) of the last solve, sorted by decreasing real part (ties:
 *  increasing imaginary part).
 *  @param st the stability analysis
 *  @param i index of the eigenpair, 0 to nconv - 1
 *  @param re receives the real part (may be NULL)
 *  @param im receives the imaginary part (may be NULL)
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_STATE
 *  @since 0.1 */
FCD_API fcd_status fcd_stability_get_eigenvalue(const fcd_stability *st, fcd_index i,
                                                fcd_real *re, fcd_real *im);

/** Frequency (Hz), damping ratio (+inf for real eigenvalues) and classification of
 *  eigenvalue @p i. Any output may be NULL.
 *  @param st the stability analysis
 *  @param i index of the eigenpair, 0 to nconv - 1
 *  @param freq_hz receives the frequency in Hz (may be NULL)
 *  @param damping_ratio receives the damping ratio, negative when unstable (may be NULL)
 *  @param kind receives an FCD_MODE_* kind (may be NULL)
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_STATE
 *  @since 0.1 */
FCD_API fcd_status fcd_stability_get_mode_info(const fcd_stability *st, fcd_index i,
                                               fcd_real *freq_hz, fcd_real *damping_ratio,
                                               int *kind);

/** Mode shape of eigenvalue @p i in the full dof numbering (ndofs entries each; real and
 *  imaginary parts; prescribed dofs zero, eliminated contact dofs from the
 *  constraints), normalized to unit largest modulus. Either output may be NULL.
 *  @param st the stability analysis
 *  @param i index of the eigenpair, 0 to nconv - 1
 *  @param re receives the real parts of the mode, ndofs entries (may be NULL)
 *  @param im receives the imaginary parts, ndofs entries (may be NULL)
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_STATE
 *  @since 0.1 */
FCD_API fcd_status fcd_stability_get_mode(const fcd_stability *st, fcd_index i,
                                          fcd_real *re, fcd_real *im);

/** Summary of the last solve: @p flutter and @p divergence, whether any computed
 *  eigenvalue within the band (fcd_stability_get_band) is of that kind; @p necessary, seed 000's necessary divergence condition
 *  (the symmetric part of K* not positive definite, eq. 118); @p min_sym, the smallest
 *  eigenvalue of that symmetric part (computed up to FCD_STAB_DENSE_MAX reduced dofs,
 *  NaN above). Any output may be NULL.
 *  @param st the stability analysis
 *  @param flutter receives 1 when a computed eigenvalue is a flutter one, else 0 (may be
 *      NULL)
 *  @param divergence receives 1 when a computed eigenvalue is a divergence one, else 0 (may
 *      be NULL)
 *  @param necessary receives 1 when seed 000's necessary divergence condition holds (may be
 *      NULL)
 *  @param min_sym receives the smallest eigenvalue of the symmetric part of K* (may be
 *      NULL)
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_STATE
 *  @since 0.1 */
FCD_API fcd_status fcd_stability_get_summary(const fcd_stability *st, int *flutter,
                                             int *divergence, int *necessary,
                                             fcd_real *min_sym);

/** Receives one friction coefficient of a sweep: @p n eigenvalues (sorted as by
 *  fcd_stability_get_eigenvalue) with their track numbers: eigenvalues of consecutive
 *  coefficients that share a track are the same mode, followed by the correlation (MAC)
 *  of their mode shapes. The analysis holds that coefficient's results during the call.
 *  A nonzero return stops the sweep (FCD_E_CALLBACK). */
typedef int (*fcd_stability_sweep_fn)(void *user_data, fcd_real mu, fcd_index n,
                                      const fcd_real *re, const fcd_real *im,
                                      const fcd_index *track);

/** Friction sweep: @p steps coefficients evenly from @p mu0 to @p mu1 (>= 0; one step:
 *  mu0 only), each solved with FCD_STAB_MU set to it (restored afterwards) and handed to
 *  @p fn. Modes are tracked from one coefficient to the next by the modal assurance
 *  criterion |v_i^H w_j|^2 / (|v_i|^2 |w_j|^2), matched greedily (best pairs first, the
 *  sign of the imaginary part kept); an eigenvalue without a partner opens a new track.
 *  On a communicator of several ranks (fcd_stability_set_communicator), every rank
 *  calls the sweep with the same arguments; with two steps or more (and
 *  FCD_STAB_SHARE_SWEEP = 1, the default) the coefficients are shared out: each rank solves a contiguous block of them serially
 *  (with its own factor, so the serial memory per rank), then every rank's @p fn
 *  receives every coefficient in order, the analysis holding its results, exactly as
 *  serially. Arguments that differ between ranks, a failed solve, or @p fn returning
 *  nonzero on one rank end the sweep on all with the same status.
 *  @param st the stability analysis
 *  @param mu0 first friction coefficient
 *  @param mu1 last friction coefficient
 *  @param steps number of values, >= 1
 *  @param fn called once per value with its results; nonzero stops the sweep
 *  @param user_data passed unchanged to every call of fn
 *  @return FCD_OK, or FCD_E_BACKEND, FCD_E_CALLBACK, FCD_E_INTERNAL, FCD_E_INVALID_ARG,
 *      FCD_E_NOMEM, FCD_E_NOT_CONVERGED, FCD_E_NOT_SPD, FCD_E_SINGULAR, FCD_E_STATE,
 *      FCD_E_UNSUPPORTED
 *  @since 0.1 */
FCD_API fcd_status fcd_stability_sweep(fcd_stability *st, fcd_real mu0, fcd_real mu1,
                                       fcd_index steps, fcd_stability_sweep_fn fn,
                                       void *user_data);

/** Distributed solves: @p mpi_comm_f is the host's communicator as its Fortran handle
 *  (MPI_Comm_c2f(comm), so that no MPI type enters fcd's headers; note that Open MPI
 *  gives MPI_COMM_WORLD the handle 0); FCD_COMM_SERIAL restores the serial default. Every rank of the communicator must hold the same system, contact
 *  set and state and call fcd_stability_solve together; the sparse path then uses PETSc
 *  parallel matrices (each rank owns a block of rows), the LU of the shifted operator
 *  is MUMPS, and every rank receives all results. The dense path (reduced size up to
 *  FCD_STAB_DENSE_MAX) is computed redundantly on each rank. PETSc must run on MPI that
 *  includes the communicator (the host's MPI_Init, or PETSc's own). FCD_COMM_SERIAL is
 *  defined in fcd/fcd_system.h. */
/** Sets the communicator of the distributed solves (see above). Clears the results of
 *  the last solve. A handle that is not a Fortran communicator handle: FCD_E_INVALID_ARG.
 *  @param st the stability analysis
 *  @param mpi_comm_f the communicator as its Fortran handle (MPI_Comm_c2f), or
 *      FCD_COMM_SERIAL
 *  @return FCD_OK, or FCD_E_INVALID_ARG
 *  @since 0.1 */
FCD_API fcd_status fcd_stability_set_communicator(fcd_stability *st, int64_t mpi_comm_f);

/** Number of infinite eigenvalues lambda of the last solve, which the eigenvalue list
 *  leaves out. QZ's (alpha, beta) is infinite when |beta| / |B| <= tau |alpha| / |A|
 *  with |A|, |B| the norms of the (balanced) pencil it solved and tau = max(1e3, n) eps:
 *  relative to the pencil's own norms, so the same model in seconds or milliseconds,
 *  newtons or kilonewtons, has the same count and the same finite eigenvalues, scaled.
 *  They are the reduced pencil's mass-less directions (M* v = 0: dofs without mass):
 *  each gives two infinite lambda without damping; with Rayleigh damping of stiffness
 *  factor beta one, the other being the finite lambda = -1/beta, which is returned (a
 *  model whose M is positive definite on the free dofs has none). Counted by the dense
 *  solver and the projected damped solve; the sparse solver only returns eigenvalues
 *  near its target and reports 0.
 *  @return FCD_OK, FCD_E_STATE before a successful solve, FCD_E_INVALID_ARG for a bad
 *      handle or a NULL @p count
 *  @since 0.1
 *  @param st the stability analysis
 *  @param count receives the number of infinite eigenvalues */
FCD_API fcd_status fcd_stability_get_infinite_count(const fcd_stability *st, fcd_index *count);

/** A global estimate beside a partial window (the sparse path computes only the FCD_STAB_NEV
 *  pairs nearest the target, so "no unstable eigenvalue" speaks for that window): with
 *  FCD_STAB_ESTIMATE_MODES = m > 0, the last solve also projected the undamped reduced
 *  pencil K* x = Lambda M* x on the m lowest modes of the frictionless reduced pencil
 *  (the contact state's trial space on both sides: symmetric, positive definite for a
 *  held structure) and solved it whole, densely: the modal basis of commercial
 *  complex-eigenvalue analyses. The eigenvalue of largest real part of that projection is
 *  returned, with the frequency band the basis covers. It is an estimate of the growth in
 *  that band, not a bound: exact when the basis spans the whole reduced space, a Galerkin
 *  approximation otherwise (docs/stability.md: within 10 % of the band's true largest
 *  real part on a 507-dof block), damping left out. None is computed by the dense path,
 *  which has the whole spectrum, by the modal projection of damped problems, or on a
 *  communicator.
 *  @param st the stability analysis
 *  @param re receives the largest real part found (may be NULL)
 *  @param im receives its imaginary part, >= 0 (may be NULL)
 *  @param band_hz receives the frequency of the basis' highest mode (may be NULL)
 *  @param nmodes receives the basis size used (may be NULL)
 *  @return FCD_OK; FCD_E_STATE when the last solve computed no estimate (the message says
 *      why); FCD_E_INVALID_ARG for a bad handle
 *  @since 0.1 */
FCD_API fcd_status fcd_stability_get_estimate(const fcd_stability *st, fcd_real *re,
                                              fcd_real *im, fcd_real *band_hz,
                                              fcd_index *nmodes);

/** The band of the last solve and the eigenvalues above it. A reduced model
 *  (fcd_reduction_create_band) is the full model only below its band, f_m / 1.5 for f_m
 *  its highest kept fixed-interface mode; above, its modes are the interface's own and
 *  its eigenvalues are no prediction of the full model's (a steel block's reductions
 *  show unstable pairs there, growing at up to 4.1e5 1/s, where the full model is
 *  stable). An eigenvalue lambda is outside the band when |lambda| > 2 pi band_hz: it is
 *  kept in the list (fcd_stability_get_eigenvalue), and fcd_stability_get_summary's
 *  flutter and divergence speak of the eigenvalues within the band only. The band is the
 *  system's own (+inf for a system that is no reduced model: nothing is outside), or
 *  FCD_STAB_BAND_HZ. Any output may be NULL.
 *  @param st the stability analysis
 *  @param band_hz receives the band (Hz; +inf: none)
 *  @param noutside receives the count of eigenvalues outside it
 *  @param nunstable_outside receives how many of those have Re(lambda) > 0
 *  @return FCD_OK, FCD_E_STATE before a solve, FCD_E_INVALID_ARG for a bad handle
 *  @since 0.1 */
FCD_API fcd_status fcd_stability_get_band(const fcd_stability *st, fcd_real *band_hz,
                                          fcd_index *noutside, fcd_index *nunstable_outside);

/** The certificate of the last solve (fcd/fcd_certificate.h): @c equilibrium and
 *  @c worst hold the largest backward error of its eigenpairs on the reduced quadratic
 *  lambda^2 M* + lambda C* + K*, row by row: |[(lambda^2 M* + lambda C* + K*) v]_i| over
 *  (|lambda|^2 |M*_i| + |lambda| |C*_i| + |K*_i|) |v|_inf, rows' 1-norms (the normwise
 *  backward error of the row-equilibrated pencil: the relative perturbation of the
 *  matrices that makes the pair exact). @c force_scale is |K*|_inf; the contact
 *  figures are zero (the pencil is built with the constraints eliminated).
 *  @c tolerance is the bound the solve was checked against:
 *  - dense (QZ) and sparse (SLEPc, undamped, Rayleigh or quadratic): max(1e-8, 100 x
 *    FCD_STAB_TOLERANCE), SLEPc's own test being relative to the eigenvalue. QZ is
 *    backward stable for the pencil it solves, and the row-wise measure of the quadratic
 *    is below 1e-12 on well-scaled pencils; a badly scaled one (dense modal rows beside
 *    physical ones) can exceed 1e-8 with good pairs, and FCD_STAB_TOLERANCE is then the
 *    knob (the message says to what value);
 *  - modal projection (damped, target above 0 Hz): +inf. The pairs of a partial modal
 *    basis are an approximation, and the figure measures it: round-off when the basis
 *    spans the reduced space, the truncation otherwise (1e-2 for 4 of 16 modes on
 *    tests/stability's random case). It is reported, never checked.
 *  A solve above its bound returns FCD_E_NOT_CONVERGED and keeps the previous results.
 *  @return FCD_OK, FCD_E_STATE before a solve, FCD_E_INVALID_ARG for a bad handle or a
 *      NULL @p cert
 *  @since 0.1
 *  @param st the stability analysis
 *  @param cert receives the certificate */
FCD_API fcd_status fcd_stability_get_certificate(const fcd_stability *st,
                                                 fcd_certificate *cert);

/** Size of the reduced pencil of the last solve (-1 before one, or for NULL).
 *  @param st the stability analysis
 *  @return the size of the reduced pencil of the last solve; -1 before one, for NULL or an
 *      invalid handle
 *  @since 0.1 */
FCD_API fcd_index fcd_stability_reduced_size(const fcd_stability *st);

/** The eigen-path of the last good solve.
 *  @param st the stability analysis
 *  @param path receives its fcd_eigen_path (fcd_registry_name(FCD_FAMILY_EIGEN_PATH, path)
 *      names it)
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_STATE (no solve since the analysis was made
 *      or its contact state changed)
 *  @since 0.1 */
FCD_API fcd_status fcd_stability_get_path(const fcd_stability *st, int *path);

FCD_END_DECLS

#endif
