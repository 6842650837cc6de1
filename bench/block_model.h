/* The benchmarks' 3D elastic block: hexahedral cells of a box, each cut into six linear
 * tetrahedra around its main diagonal (Kuhn's conforming split), isotropic elasticity,
 * consistent mass, appended as upper-triangle COO entries. */
#ifndef FCD_BENCH_BLOCK_MODEL_H
#define FCD_BENCH_BLOCK_MODEL_H

#include <fcd/fcd.h>

#include <stddef.h>

/* row_end > row_begin keeps only the entries with a row or a column in
 * [row_begin, row_end): a host that assembles in parallel holds its own rows, not the
 * whole model (zero-initialised: no filter) */
typedef struct {
  size_t ne, cap;
  fcd_index *ri, *ci;
  double *kv, *mv;
  fcd_index row_begin, row_end;
} bench_coo;

/* Appends the block of nx x ny x nz cells of lx x ly x lz from (0, 0, z0) whose node
 * (i, j, k) is node0 + k (nx+1)(ny+1) + j (nx+1) + i, dofs 3 node + c; writes the
 * node coordinates into xyz (3 per node, from node0) when not NULL. 0 on success, -1
 * out of memory. */
int bench_tet_block(bench_coo *a, int nx, int ny, int nz, double lx, double ly, double lz,
                    double z0, fcd_index node0, double E, double nu, double rho, double *xyz);
void bench_coo_free(bench_coo *a);

#endif
