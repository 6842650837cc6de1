/* What fcd knows of MUMPS' controls and failures, shared by the two places that run it
 * (the distributed factor, distribution/mumps_factor.c, and PETSc's Schur complement, petsc.c). */
#include "backends.h"

#include <dmumps_c.h>
#include <stdio.h>

/* KEEP(9), the front size from which MUMPS may share a front over the ranks by rows (a
 * "type 2" node: a master factors the pivots, slaves update their rows from the panels
 * sent to them; 400 for a symmetric matrix, 700 otherwise). Such fronts ran at 23-27
 * Gflop/s a rank here against 45 for one rank's own: with the separators in the Schur
 * set (schur_separators) the subtrees need no sharing, and without them the largest
 * fronts are still cheaper on one rank. At 102,675 dofs on two ranks MUMPS' numeric
 * factorization took 3.97 s with no type 2 node against 5.62 s with MUMPS' two, and
 * 4.82 against 5.69 s for a factor without separators. KEEP is MUMPS' internal array:
 * MUMPS' statistics (ICNTL(4) = 2) confirmed "Number of level 2 nodes = 0" with 5.5.1. */
_Static_assert(sizeof(MUMPS_INT) == sizeof(int), "MUMPS' KEEP holds ints here");
void fcd__mumps_no_type2(int *keep, int nranks) {
  if (nranks <= FCD__SEP_MAX_RANKS) keep[8] = 1 << 30;
}

static int short_workspace(int infog1) {
  return infog1 == -8 || infog1 == -9 || infog1 == -17 || infog1 == -20;
}

int fcd__mumps_relax(int *icntl14, int infog1) {
  int next = 2 * (*icntl14 > 20 ? *icntl14 : 20);
  if (!short_workspace(infog1) || next > FCD__MUMPS_RELAX_MAX) return 0;
  *icntl14 = next;
  return 1;
}

fcd_status fcd__mumps_failure(int infog1, int icntl14, char *why, size_t len) {
  if (len) why[0] = '\0';
  if (short_workspace(infog1))
    snprintf(why, len, ": its workspace was too small with the estimate relaxed by "
             "ICNTL(14) = %d %%", icntl14);
  return infog1 == -9 || infog1 == -13 ? FCD_E_NOMEM : FCD_E_BACKEND;
}
