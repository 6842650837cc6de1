/* The time-stepping schemes' own terms of one step, as a table of operations: what each
 * scheme changes in the shared step of integrator.c (predict, local problem, solve,
 * correct, ledger, commit). The step itself (seed 004, section 3.3) is the same for all:
 *   Mh v1 = M v0 - h K (u0 + h theta v0) - h C v0 + h F_theta + H^T p,
 *   Mh = M + h theta C + h^2 theta^2 K,   u1 = u0 + h ((1 - theta) v0 + theta v1),
 * with the impulses p of the active contacts solving the local problem
 *   y = w_scale W p + q,   K* contains y + [mu |y_T|; 0] and is orthogonal to p in K,
 * whose q, w_scale and active set the scheme gives. Vectors are local, (N, T[, B]) per
 * contact, in fcd's sign convention (seed papers use the opposite one; the relations
 * below are linear, so they hold unchanged). */
#ifndef FCD_SCHEMES_H
#define FCD_SCHEMES_H

#include "core.h"
#include "fcd/fcd_integrator.h"

/* What a scheme reads for one contact. */
typedef struct {
  fcd_real theta, h, e; /* theta, the step, the restitution coefficient */
  const fcd_real *uf;   /* free velocity H v_free, d entries */
  const fcd_real *u0;   /* velocity at the start of the step, H v0 */
  fcd_real gap;         /* u_N - g: of u0 + h v0 (predicted), or of u0 (uses_displacement) */
} fcd__scheme_contact;

typedef struct {
  fcd_scheme id;
  const char *name;    /* the registry's (registry.c): the CLI's, the bindings' */
  const char *summary;
  /* 1 when a contact enters the local problem; gq is its gap (above) and tol the
   * closure tolerance at the model's length scale */
  int (*activate)(fcd_real gq, fcd_real tol);
  /* 1 when the right-hand side reads the gap of the displacement at the start of the
   * step rather than of the predicted one */
  int uses_displacement;
  /* the local right-hand side q of one contact (d entries), before the obstacle's
   * sliding velocity is taken off its tangential part (every scheme does that) */
  void (*local_rhs)(const fcd__scheme_contact *c, int d, fcd_real *q);
  /* the factor on W in the local problem */
  fcd_real (*w_scale)(fcd_real theta);
  /* 1 when Coulomb acts on u_theta (the contact status is judged on it), 0 on u1 */
  int friction_on_theta;
} fcd__scheme_ops;

/* The operations of a dynamic scheme; NULL for FCD_SCHEME_QUASISTATIC (a sequence of
 * static problems, fcd_equilibrium, a row without operations) or an unknown value. */
const fcd__scheme_ops *fcd__scheme_ops_of(fcd_scheme scheme);
/* 1 for a scheme of the table, dynamic or not */
int fcd__scheme_known(fcd_scheme scheme);
/* the schemes' registry (FCD_FAMILY_SCHEME): row k of the table */
int fcd__scheme_registry(int k, fcd__named *out);

#endif
