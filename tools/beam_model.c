#include "beam_model.h"

#include <stdlib.h>

int beam_cantilever(int nel, double length, double ei, double rho_a, beam_coo *out) {
  if (nel < 1) return -1;
  double h = length / nel;
  /* element matrices in (w1, th1, w2, th2) */
  const double ke[4][4] = {{12, 6 * h, -12, 6 * h},
                           {6 * h, 4 * h * h, -6 * h, 2 * h * h},
                           {-12, -6 * h, 12, -6 * h},
                           {6 * h, 2 * h * h, -6 * h, 4 * h * h}};
  const double me[4][4] = {{156, 22 * h, 54, -13 * h},
                           {22 * h, 4 * h * h, 13 * h, -3 * h * h},
                           {54, 13 * h, 156, -22 * h},
                           {-13 * h, -3 * h * h, -22 * h, 4 * h * h}};
  const double ks = ei / (h * h * h), ms = rho_a * h / 420.0;
  size_t cap = (size_t)nel * 10;
  out->ndofs = 2 * (fcd_index)(nel + 1);
  out->rows = malloc(cap * sizeof *out->rows);
  out->cols = malloc(cap * sizeof *out->cols);
  out->k = malloc(cap * sizeof *out->k);
  out->m = malloc(cap * sizeof *out->m);
  if (!out->rows || !out->cols || !out->k || !out->m) {
    beam_free(out);
    return -1;
  }
  fcd_index t = 0;
  for (int e = 0; e < nel; e++)
    for (int a = 0; a < 4; a++)
      for (int b = a; b < 4; b++) {
        out->rows[t] = 2 * e + a;
        out->cols[t] = 2 * e + b;
        out->k[t] = ks * ke[a][b];
        out->m[t] = ms * me[a][b];
        t++;
      }
  out->nnz = t;
  return 0;
}

void beam_free(beam_coo *b) {
  free(b->rows);
  free(b->cols);
  free(b->k);
  free(b->m);
  b->rows = b->cols = NULL;
  b->k = b->m = NULL;
}
