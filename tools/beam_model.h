/* Cantilever Euler-Bernoulli beam with Hermite elements and consistent mass: the
 * embedded model of `fcd demo` (and a reference case of the tests). */
#ifndef FCD_TOOLS_BEAM_MODEL_H
#define FCD_TOOLS_BEAM_MODEL_H

#include <fcd/fcd.h>

typedef struct {
  fcd_index ndofs; /* 2 (nel + 1): deflection w and rotation theta per node */
  fcd_index nnz;   /* upper-triangle triplets (duplicates between elements remain) */
  fcd_index *rows, *cols;
  fcd_real *k, *m;
} beam_coo;

/* Returns 0, or -1 when out of memory / nel < 1. Dofs 0 and 1 are the clamped end. */
int beam_cantilever(int nel, double length, double ei, double rho_a, beam_coo *out);
void beam_free(beam_coo *b);

#endif
