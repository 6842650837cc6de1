/** @file fcd/fcd_contact.h
 *  @brief Contact sets (candidate contacts with their frames, gaps and friction) and the
 *  projection operators of the contact laws.
 *
 *  Conventions (docs/conventions.md): local components are ordered [N, T] in 2D and
 *  [N, T, B] in 3D with B = N x T. The unit normal points from the body into the
 *  obstacle (for a pair, from body A into body B); u_N = n . (u_A - u_B). Signorini:
 *  u_N - g <= 0, r_N <= 0, (u_N - g) r_N = 0. Coulomb cone
 *  K_mu = { r : r_N <= 0, ||r_T|| <= -mu r_N }. A slipping contact has r_T = mu r_N s with
 *  s the unit slip direction. This is the seeds' convention; fclib files use the opposite
 *  sign and are converted on reading and writing. */
#ifndef FCD_CONTACT_H
#define FCD_CONTACT_H

#include <fcd/fcd_common.h>
#include <fcd/fcd_status.h>
#include <fcd/fcd_system.h>

FCD_BEGIN_DECLS

/** Status of a contact (contract section "stability"; also reported by integrators). */
typedef enum { FCD_CONTACT_OPEN = 0, FCD_CONTACT_STICK = 1, FCD_CONTACT_SLIP = 2 }
    fcd_contact_status;

/** Opaque set of candidate contacts on a system. */
typedef struct fcd_contact_set fcd_contact_set;

/** Creates an empty contact set in dimension @p dim (2 or 3) on @p sys. The set and the
 *  system may be destroyed in either order: the system's memory is released when the
 *  last object created from it is gone.
 *  @param sys the system (borrowed; it must outlive every object made from it)
 *  @param dim local dimension: 2 (normal, tangent) or 3 (normal and two tangents)
 *  @param out receives the new contact set, owned by the caller (fcd_contact_set_destroy);
 *      NULL on failure
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_NOMEM
 *  @since 0.1 */
FCD_API fcd_status fcd_contact_set_create(fcd_system *sys, int dim, fcd_contact_set **out);

/** Destroys the set. NULL-safe.
 *  @param cs the contact set, or NULL
 *  @since 0.1 */
FCD_API void fcd_contact_set_destroy(fcd_contact_set *cs);

/** Adds a node against a fixed rigid surface. @p dofs, @p normal, @p tangent have dim
 *  entries (the node's displacement dofs in x, y(, z) order, and the frame in the same
 *  axes). The frame is normalized when it is unit and orthogonal within 1e-6, refused
 *  otherwise. @p gap >= 0 is the initial gap, @p mu >= 0 the friction coefficient.
 *  Dofs must be distinct, in range and not prescribed. @p id (may be NULL) receives the
 *  contact's index (contacts are numbered 0, 1, ... in the order added).
 *  @param cs the contact set
 *  @param dofs the dim dofs of the node (x, y[, z]) in the system
 *  @param normal unit normal of the obstacle, pointing into it, dim entries
 *  @param tangent unit tangent orthogonal to normal, dim entries (3D: the first tangent;
 *      the second is normal x tangent)
 *  @param gap initial gap g: contact when u_N = normal . u reaches g
 *  @param mu friction coefficient, >= 0
 *  @param id receives the new contact id (may be NULL)
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_NOMEM
 *  @since 0.1 */
FCD_API fcd_status fcd_contact_set_add_rigid(fcd_contact_set *cs, const fcd_index *dofs,
                                             const fcd_real *normal,
                                             const fcd_real *tangent, fcd_real gap,
                                             fcd_real mu, fcd_index *id);

/** Adds a node of body A against a node of body B: the relative displacement is
 *  u_A - u_B and the normal points from A into B. Other arguments as for add_rigid.
 *  @param cs the contact set
 *  @param dofs_a the dim dofs of node a
 *  @param dofs_b the dim dofs of node b
 *  @param normal unit normal from a towards b, dim entries
 *  @param tangent unit tangent orthogonal to normal, dim entries
 *  @param gap initial gap between a and b along normal
 *  @param mu friction coefficient, >= 0
 *  @param id receives the new contact id (may be NULL)
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_NOMEM
 *  @since 0.1 */
FCD_API fcd_status fcd_contact_set_add_pair(fcd_contact_set *cs, const fcd_index *dofs_a,
                                            const fcd_index *dofs_b,
                                            const fcd_real *normal,
                                            const fcd_real *tangent, fcd_real gap,
                                            fcd_real mu, fcd_index *id);

/** Newton restitution coefficient e in [0, 1] for every contact of the set (default 0).
 *  @param cs the contact set
 *  @param e Newton's restitution coefficient in [0, 1]
 *  @return FCD_OK, or FCD_E_INVALID_ARG
 *  @since 0.1 */
FCD_API fcd_status fcd_contact_set_set_restitution(fcd_contact_set *cs, fcd_real e);

/** Adds @p n rigid contacts in one call, for a host with many: contact i has its dofs
 *  at @p dofs[i dim ..], its normal and tangent at @p normals[i dim ..] and
 *  @p tangents[i dim ..], gap @p gaps[i] (@p gaps NULL: all 0), friction @p mus[i], and,
 *  when @p vg is not NULL, the sliding velocity @p vg[i (dim-1) ..] (as
 *  fcd_contact_set_set_sliding_velocity). Each is checked as fcd_contact_set_add_rigid
 *  checks one; the batch is all or nothing: on an error (the message names the entry)
 *  no contact of it is added. The new ids are @p *first_id .. @p *first_id + n - 1
 *  (@p first_id may be NULL). @since 0.1
 *  @param cs the contact set
 *  @param n number of contacts to add
 *  @param dofs n x dim dofs, node by node
 *  @param normals n x dim unit normals (into the obstacle)
 *  @param tangents n x dim unit tangents
 *  @param gaps n initial gaps
 *  @param mus n friction coefficients, >= 0
 *  @param vg n x (dim - 1) sliding velocities of the obstacle, or NULL for none
 *  @param first_id receives the id of the first new contact (the others follow); may be
 *      NULL
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_NOMEM */
FCD_API fcd_status fcd_contact_set_add_rigid_n(fcd_contact_set *cs, fcd_index n,
                                               const fcd_index *dofs, const fcd_real *normals,
                                               const fcd_real *tangents, const fcd_real *gaps,
                                               const fcd_real *mus, const fcd_real *vg,
                                               fcd_index *first_id);

/** Adds a contact given by its rows: the local displacement of the contact, dim entries
 *  (N, T[, B]), is y_k = sum of weights[q] u[dofs[q]] over q in [row_ptr[k],
 *  row_ptr[k + 1]), so a host that computes node-to-segment or mortar weights between
 *  non-matching meshes hands them over as they are. The law is the one of every contact:
 *  y_N <= gap (the normal row points into the obstacle, as a rigid contact's normal),
 *  reaction r_N <= 0, and Coulomb friction with @p mu on the tangential rows. A rigid
 *  contact is the special case of one dof per weight of its frame; a pair, of both
 *  nodes' dofs with opposite signs. Rows need not be orthonormal (a mortar row carries
 *  its segment's length); friction is then measured in the rows' own metric. The
 *  contacts work in the one-step problem, the integrators, the equilibria and the
 *  stability analysis (its reduction takes each contact's rows as they are);
 *  fcd_contact_set_get returns no frame for them. Refused by name (FCD_E_INVALID_ARG):
 *  a row whose largest weight lies outside [1e-100, 1e100] (the contact's operator goes
 *  with the weights squared), rows that are not independent (N and T parallel: friction
 *  would act along the normal; in 3D a Gram determinant of the normalized rows below
 *  1e-12), and a normal row that repeats one of the set's contacts up to a positive
 *  factor (one constraint twice, whose reaction the two would share arbitrarily: a
 *  surface pair, segment or node given twice, or rows on a rigid contact's node along
 *  its normal). Opposite normal rows (a node between two walls) and different normals
 *  on one node (a corner) are distinct constraints and are kept. The same rule holds for
 *  rigid and pair contacts.
 *  @param cs the contact set
 *  @param row_ptr dim + 1 offsets into dofs and weights, row_ptr[0] = 0, each row
 *      non-empty and at most ndofs long
 *  @param dofs the dofs of each row's entries, distinct within a row, not prescribed
 *  @param weights their weights, finite; each row has a nonzero one
 *  @param gap the gap g, finite and >= 0
 *  @param mu friction coefficient, >= 0
 *  @param id receives the new contact's id (may be NULL)
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_NOMEM
 *  @since 0.1 */
FCD_API fcd_status fcd_contact_set_add_rows(fcd_contact_set *cs, const fcd_index *row_ptr,
                                            const fcd_index *dofs, const fcd_real *weights,
                                            fcd_real gap, fcd_real mu, fcd_index *id);

/** fcd_contact_set_add_rigid_n for pairs: body A's dofs at @p dofs_a[i dim ..], body B's
 *  at @p dofs_b[i dim ..], the rest as there. All or nothing. @since 0.1
 *  @param cs the contact set
 *  @param n number of contacts to add
 *  @param dofs_a n x dim dofs of the a nodes
 *  @param dofs_b n x dim dofs of the b nodes
 *  @param normals n x dim unit normals, from a towards b
 *  @param tangents n x dim unit tangents
 *  @param gaps n initial gaps
 *  @param mus n friction coefficients, >= 0
 *  @param vg n x (dim - 1) relative sliding velocities, or NULL for none
 *  @param first_id receives the id of the first new contact; may be NULL
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_NOMEM */
FCD_API fcd_status fcd_contact_set_add_pair_n(fcd_contact_set *cs, fcd_index n,
                                              const fcd_index *dofs_a, const fcd_index *dofs_b,
                                              const fcd_real *normals, const fcd_real *tangents,
                                              const fcd_real *gaps, const fcd_real *mus,
                                              const fcd_real *vg, fcd_index *first_id);

/** Imposed (Eulerian) sliding velocity of the obstacle or partner at contact @p id, in
 *  the local tangent plane (dim-1 entries: T, then B in 3D). Default zero.
 *  @param cs the contact set
 *  @param id the contact
 *  @param vg the obstacle's sliding velocity, dim - 1 entries
 *  @return FCD_OK, or FCD_E_INVALID_ARG
 *  @since 0.1 */
FCD_API fcd_status fcd_contact_set_set_sliding_velocity(fcd_contact_set *cs, fcd_index id,
                                                        const fcd_real *vg);

/** Friction coefficient of contact @p id from now on (a host that sweeps mu, or re-solves
 *  an equilibrium at another coefficient, changes it in place instead of rebuilding the
 *  set). Every solve that starts afterwards uses it: equilibria, integrator steps and
 *  stability analyses (whose FCD_STAB_MU, when set, still overrides every contact's).
 *  @param cs the contact set
 *  @param id the contact, 0 to fcd_contact_set_size() - 1
 *  @param mu friction coefficient, finite and >= 0
 *  @return FCD_OK, or FCD_E_INVALID_ARG
 *  @since 0.1 */
FCD_API fcd_status fcd_contact_set_set_friction(fcd_contact_set *cs, fcd_index id,
                                                fcd_real mu);

/** Reads a contact file (format in docs/conventions.md and ARCHITECTURE.md):
 *  `fcd-contacts 1`, then `dim 2|3`, then one contact per line,
 *  `rigid DOFS NORMAL TANGENT GAP MU [VG]` or `pair DOFS_A DOFS_B NORMAL TANGENT GAP MU [VG]`,
 *  `#` starting a comment. All or nothing: on error no set is created and the message
 *  names the line (FCD_E_FORMAT for syntax, FCD_E_INVALID_ARG for bad data, FCD_E_IO).
 *  @param sys the system (borrowed; it must outlive every object made from it)
 *  @param path contact file (docs/file-formats.md)
 *  @param out receives the new contact set, owned by the caller; NULL on failure
 *  @return FCD_OK, or FCD_E_FORMAT, FCD_E_INVALID_ARG, FCD_E_IO, FCD_E_NOMEM,
 *      FCD_E_UNSUPPORTED (in principle: it shares its reader with
 *      fcd_contact_set_read_mesh, whose surface pairs can return it; without a mesh a
 *      surface pair is FCD_E_FORMAT)
 *  @since 0.1 */
FCD_API fcd_status fcd_contact_set_read(fcd_system *sys, const char *path,
                                        fcd_contact_set **out);

/** Reads a contact state, the file `fcd equilibrium` writes (docs/file-formats.md): a
 *  header starting "contact,status,slip_t,slip_b", then one row per contact in order,
 *  "k,open|stick|slip,s_t,s_b[,more columns]". @p status receives one
 *  fcd_contact_status per contact, @p slip the slip directions (dim - 1 per contact;
 *  in 2D the s_b column is ignored), ready for fcd_stability_set_contact_state. All or
 *  nothing: on an error (FCD_E_FORMAT naming file:line, FCD_E_IO) the buffers are
 *  untouched. Lines are bounded as every reader's. @since 0.1
 *  @param cs the contact set
 *  @param path state file written by fcd equilibrium (docs/file-formats.md)
 *  @param status receives one FCD_CONTACT_* value per contact
 *  @param slip receives dim - 1 slip-direction entries per contact (may be NULL)
 *  @return FCD_OK, or FCD_E_FORMAT, FCD_E_INVALID_ARG, FCD_E_IO, FCD_E_NOMEM */
FCD_API fcd_status fcd_contact_set_read_state(const fcd_contact_set *cs, const char *path,
                                              int *status, fcd_real *slip);

/** Reads @p n reals from a text file (whitespace or newline separated, `#` comments), for
 *  loads and initial states. Exactly @p n values are required; or, with a dof map
 *  (fcd_system_set_dofmap), lines `node LABEL DOF VALUE` give some entries by node label
 *  and the others are zero (a file does one or the other).
 *  @param sys the system (borrowed; it must outlive every object made from it)
 *  @param path text file of numbers, one or more per line
 *  @param n number of values expected
 *  @param x receives the n values
 *  @return FCD_OK, or FCD_E_FORMAT, FCD_E_INVALID_ARG, FCD_E_IO, FCD_E_NOMEM
 *  @since 0.1 */
FCD_API fcd_status fcd_system_read_vector(fcd_system *sys, const char *path, fcd_index n,
                                          fcd_real *x);

/** Number of contacts; -1 for NULL.
 *  @param cs the contact set
 *  @return the number of contacts; -1 for NULL or an invalid handle
 *  @since 0.1 */
FCD_API fcd_index fcd_contact_set_size(const fcd_contact_set *cs);

/** Dimension (2 or 3); 0 for NULL.
 *  @param cs the contact set
 *  @return the local dimension, 2 or 3; 0 for NULL or an invalid handle
 *  @since 0.1 */
FCD_API int fcd_contact_set_dim(const fcd_contact_set *cs);

/** Data of contact @p id: its normalized frame (dim x dim, rows N, T(, B)), gap, mu and
 *  whether it is a pair. Any output may be NULL.
 *  @param cs the contact set
 *  @param id the contact, 0 to size - 1
 *  @param frame receives the local frame, dim x dim row-major, normal first (may be NULL)
 *  @param gap receives the initial gap (may be NULL)
 *  @param mu receives the friction coefficient (may be NULL)
 *  @param is_pair receives 1 for a pair contact, 0 for a rigid one (may be NULL)
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_UNSUPPORTED (a frame asked of a contact
 *      given by rows)
 *  @since 0.1 */
FCD_API fcd_status fcd_contact_set_get(const fcd_contact_set *cs, fcd_index id,
                                       fcd_real *frame, fcd_real *gap, fcd_real *mu,
                                       int *is_pair);

/** Local relative displacements (or velocities) of every contact from a global vector
 *  @p x (ndofs): y = H x, dim entries per contact, [N, T(, B)] each.
 *  @param cs the contact set
 *  @param x global vector, ndofs entries
 *  @param y receives H x, dim entries per contact
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_NOMEM
 *  @since 0.1 */
FCD_API fcd_status fcd_contact_set_local(const fcd_contact_set *cs, const fcd_real *x,
                                         fcd_real *y);

/** Global forces from local reactions: f = H^T r (ndofs entries; r has dim per contact).
 *  @param cs the contact set
 *  @param r local reactions, dim per contact
 *  @param f receives H^T r, ndofs entries
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_NOMEM
 *  @since 0.1 */
FCD_API fcd_status fcd_contact_set_global(const fcd_contact_set *cs, const fcd_real *r,
                                          fcd_real *f);

/* ---- projections: pure functions on local vectors ------------------------------ */

/** y_i = min(x_i, 0) for i < n (the projection onto R-^n). x and y may alias.
 *  @param n number of entries
 *  @param x input, n entries
 *  @param y receives min(x, 0) entrywise (may alias x)
 *  @since 0.1 */
FCD_API void fcd_proj_nonpositive(fcd_index n, const fcd_real *x, fcd_real *y);

/** Exact Euclidean projection of x (dim = 2 or 3 entries, [N, T(, B)]) onto the Coulomb
 *  cone K_mu. x and y may alias. With dim not 2 or 3, mu < 0 or mu/x not finite, y is
 *  set to NaN (dim entries when dim is 2 or 3, nothing otherwise).
 *  @param dim local dimension: 2 (normal, tangent) or 3 (normal and two tangents)
 *  @param mu friction coefficient, >= 0
 *  @param x local vector (N first), dim entries
 *  @param y receives the projection (may alias x)
 *  @since 0.1 */
FCD_API void fcd_proj_coulomb_cone(int dim, fcd_real mu, const fcd_real *x, fcd_real *y);

/** The projection of seed 003 (Sinou et al. 2019, eqs. 3-4): the normal part is projected
 *  onto R- and the tangential part is clipped radially to the disc of radius mu |y_N|,
 *  the normal being held fixed. Not the Euclidean projection onto K_mu; it has the same
 *  fixed points in the contact laws. Bad input as for fcd_proj_coulomb_cone.
 *  @param dim local dimension: 2 (normal, tangent) or 3 (normal and two tangents)
 *  @param mu friction coefficient, >= 0
 *  @param x local vector (N first), dim entries
 *  @param y receives the projection of the tangential part onto the disc of radius mu |x_N|
 *      (may alias x)
 *  @since 0.1 */
FCD_API void fcd_proj_coulomb_disc(int dim, fcd_real mu, const fcd_real *x, fcd_real *y);

/** De Saxce's modified relative velocity in fcd's convention:
 *  ut = (u_N - mu ||u_T||, u_T). With it, the Signorini-Coulomb law is the cone
 *  complementarity K_mu containing r, polar-side -ut, <r, ut> = 0.
 *  @param dim local dimension: 2 (normal, tangent) or 3 (normal and two tangents)
 *  @param mu friction coefficient, >= 0
 *  @param u local velocity, dim entries
 *  @param ut receives De Saxce's modified velocity (above)
 *  @since 0.1 */
FCD_API void fcd_desaxce_velocity(int dim, fcd_real mu, const fcd_real *u, fcd_real *ut);

/** Natural-map residual of one contact, F = r - proj_{K_mu}(r - ut(u)), dim entries; it
 *  is zero exactly when (r, u) satisfy Signorini and Coulomb. Its norm equals that of
 *  Siconos' fc3d residual on the sign-flipped fclib data.
 *  @param dim local dimension: 2 (normal, tangent) or 3 (normal and two tangents)
 *  @param mu friction coefficient, >= 0
 *  @param r local reaction, dim entries
 *  @param u local velocity, dim entries
 *  @param f receives the natural map, zero exactly at a solution of the law
 *  @since 0.1 */
FCD_API void fcd_natural_map(int dim, fcd_real mu, const fcd_real *r, const fcd_real *u,
                             fcd_real *f);

FCD_END_DECLS

#endif /* FCD_CONTACT_H */
