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
 *  This release provides the model, the paper's generators (with defects as moved
 *  nodes) and the static checks: kinematic determinacy (the constraints must leave no
 *  mechanism) and the dimension of the self-stress space m - (n d - q). The
 *  state-dependent sweeping process and its implicit catch-up solver are not in this
 *  release. */
#ifndef FCD_LATTICE_H
#define FCD_LATTICE_H

#include <fcd/fcd_common.h>
#include <fcd/fcd_status.h>

FCD_BEGIN_DECLS

/** Opaque lattice spring model. */
typedef struct fcd_lattice fcd_lattice;

/** Creates an empty lattice in dimension @p dim (2 or 3). */
FCD_API fcd_status fcd_lattice_create(int dim, fcd_lattice **out);

/** Destroys the lattice. NULL-safe. */
FCD_API void fcd_lattice_destroy(fcd_lattice *lat);

/** Message of the last failure on @p lat ("" if none). Never NULL. */
FCD_API const char *fcd_lattice_last_error(const fcd_lattice *lat);

/** Adds a node at @p x (dim coordinates); @p id (may be NULL) receives its index. */
FCD_API fcd_status fcd_lattice_add_node(fcd_lattice *lat, const fcd_real *x, fcd_index *id);

/** Moves node @p node by @p dx (dim entries): the geometric defects of seed 001. Springs
 *  follow (their directions and lengths are taken from the current positions). */
FCD_API fcd_status fcd_lattice_move_node(fcd_lattice *lat, fcd_index node,
                                         const fcd_real *dx);

/** Adds a spring from node @p a to node @p b. k > 0, c0 > 0, s >= 0, h finite; the nodes
 *  must differ and not coincide. @p id (may be NULL) receives its index. */
FCD_API fcd_status fcd_lattice_add_spring(fcd_lattice *lat, fcd_index a, fcd_index b,
                                          fcd_real k, fcd_real c0, fcd_real s, fcd_real h,
                                          fcd_index *id);

/** Constrains coordinate @p axis (0 x, 1 y, 2 z) of node @p node to the displacement
 *  value + rate t. A coordinate is constrained once. */
FCD_API fcd_status fcd_lattice_constrain(fcd_lattice *lat, fcd_index node, int axis,
                                         fcd_real value, fcd_real rate);

/** The rectangular lattice of seed 001 section 6.1: nx columns by ny rows of nodes at
 *  @p spacing, each node linked to its right, upper and both upper-diagonal neighbours,
 *  every spring with (k, c0, s, h); the bottom row fixed in y, the top row pulled in y
 *  at @p rate, the bottom node of column ceil(nx/2) - 1 fixed in x. 10 x 15 gives 150
 *  nodes, 527 springs, 21 constraints. */
FCD_API fcd_status fcd_lattice_create_rect(int nx, int ny, fcd_real spacing, fcd_real k,
                                           fcd_real c0, fcd_real s, fcd_real h,
                                           fcd_real rate, fcd_lattice **out);

/** The triangular lattice of seed 001 section 6.2: ny rows of equilateral triangles of
 *  side @p spacing, nx nodes on even rows and nx + 1 on odd rows, horizontal springs on
 *  the inner rows only; bottom row fixed in y, top row pulled in y at @p rate, the first
 *  bottom node fixed in x. 10 x 15 gives 157 nodes, 404 springs, 21 constraints. Node
 *  ids are row by row from the bottom, left to right. */
FCD_API fcd_status fcd_lattice_create_tri(int nx, int ny, fcd_real spacing, fcd_real k,
                                          fcd_real c0, fcd_real s, fcd_real h,
                                          fcd_real rate, fcd_lattice **out);

/** Sizes: nodes, springs, constraints (any may be NULL). */
FCD_API fcd_status fcd_lattice_sizes(const fcd_lattice *lat, fcd_index *nodes,
                                     fcd_index *springs, fcd_index *constraints);

/** Checks kinematic determinacy (the stiffness of the springs on the unconstrained
 *  coordinates is positive definite) and returns the dimension of the self-stress space,
 *  m - (n d - q). A mechanism is FCD_E_SINGULAR with a message naming a node and axis it
 *  moves. */
FCD_API fcd_status fcd_lattice_selfstress_dim(fcd_lattice *lat, fcd_index *dim);

/** Node position (dim entries) and spring data (any output may be NULL). */
FCD_API fcd_status fcd_lattice_get_node(const fcd_lattice *lat, fcd_index node, fcd_real *x);
FCD_API fcd_status fcd_lattice_get_spring(const fcd_lattice *lat, fcd_index spring,
                                          fcd_index *a, fcd_index *b, fcd_real *k,
                                          fcd_real *c0, fcd_real *s, fcd_real *h);

FCD_END_DECLS

#endif
