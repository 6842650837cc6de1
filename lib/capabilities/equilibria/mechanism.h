/* Bodies held by their contacts (mechanism.c): whether any admissible reactions can
 * balance the load along the rigid modes at all, an existence test on the rigid
 * resultant, and the mechanism that moves when none can, named by its kind and, where
 * the node coordinates are known, geometrically (a translation along a direction, a
 * rotation about a point or an axis). */
#ifndef FCD_MECHANISM_H
#define FCD_MECHANISM_H

#include "fcd/fcd_equilibrium.h"
#include "capabilities.h"
#include "geometry.h"

/* Non-negative least squares (Lawson and Hanson): x >= 0 minimizing |A x - b| for A
 * k x p stored by columns (column j at A + j k). On return res = b - A x, whose
 * optimality conditions A^T res <= 0 and res . A x = 0 make res, when not zero, a Farkas
 * certificate: res . b = |res|^2 > 0 while res . A y <= 0 for every y >= 0. Returns the
 * iterations, or -1 out of memory. */
fcd_index fcd__nnls(fcd_index k, fcd_index p, const fcd_real *A, const fcd_real *b,
                    fcd_real *x, fcd_real *res);

/* The rigid resultant of a body held by its contacts: k rigid modes R (nf x k,
 * orthonormal columns, column l at R + l nf), their contact motions G = R^T H^T (k x m,
 * row-major), the load's share e = -R^T b0 that the reactions must balance (G r = e),
 * and each contact's admissible reactions: the Coulomb cone of mu (static; 3D: the
 * pyramid of 16 faces around it, so that a refusal holds for the true cone), or the one
 * ray r = -t (1, mu s) of steady sliding. */
typedef struct {
  int d;
  fcd_index nc, k, nf;
  const fcd_real *G, *e, *R, *mu;
  const fcd_real *slip; /* (d - 1) per contact for steady sliding; NULL: static */
  fcd_real scale;       /* |b0|_2, the load the figures are relative to */
  fcd_real tol;         /* refusal when |unbalance| > tol scale */
} fcd__rigid_problem;

/* The existence test. 1: some admissible reactions balance e within tol scale. 0: none
 * can; mech is filled (kind, unbalance, force scale, contact and pivot, dof in free
 * numbering) and motion (nf) receives the mechanism, a rigid motion along which the load
 * does positive work while every contact it moves opens or slides at its friction limit.
 * -1: out of memory. */
int fcd__rigid_existence(const fcd__rigid_problem *p, fcd_mechanism *mech, fcd_real *motion);

/* The geometric name of a motion over all n dofs: the body that moves most (by geo's
 * cells) fitted by a rigid motion, or, without geometry, the motion of the nodes of the
 * set's frame contacts; fills mech's geometry, direction and point. */
void fcd__mechanism_describe(fcd_mechanism *mech, const fcd_real *motion, fcd_index n,
                             const fcd__geometry *geo, const fcd_contact_set *cs);

/* "the body tips about ...: ..." for the message of FCD_E_NO_SOLUTION; frictionless: the
 * sliding contact has mu = 0; steady: a steady-sliding solve */
void fcd__mechanism_format(const fcd_mechanism *mech, int d, int frictionless, int steady,
                           char *buf, size_t cap);

#endif
