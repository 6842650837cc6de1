/* What a system holds (a data header of the kernels layer, lib/layers.txt): its
 * definition, read by every layer from the distribution up; its functions are system.h's
 * and its public API's. */
#ifndef FCD_LIB_SYSTEM_DATA_H
#define FCD_LIB_SYSTEM_DATA_H

#include "sparse.h"

/* what fcd_system_create allocates and fills per dof (is_fixed, fixed_value, free_of,
 * dof_of, fixed_list, scratch, contact_uses) */
#define FCD__BYTES_PER_DOF (1 + 6 * 8)

/* The free-dof operator pattern: the union of the patterns of M, C and K restricted to
 * the free dofs, in full (both triangles) storage. Every combination a M + b C + c K
 * lives on it, so one symbolic factorization serves them all. map[k][p] is where entry
 * p of matrix k lands (-1: it touches a prescribed dof); mapt[k][p] is where its mirror
 * lands for symmetric storage (-1 on the diagonal or for full storage). */
typedef struct {
  uint64_t version; /* the system pattern_version it was built for; 0: never built */
  fcd_index n;
  fcd_index nnz;
  fcd_index *rowptr;
  fcd_index *col;
  fcd_index *map[3];
  fcd_index *mapt[3];
} fcd__free_pattern;

typedef struct fcd__dist fcd__dist;

struct fcd_system {
  fcd__head h; /* first: core reads it through a system pointer (core.h) */
  fcd__dist *dist; /* NULL: serial; else the partition of the rows (distribution/distributed.c) */
  fcd_index n;
  fcd__csr mat[3]; /* indexed by fcd_matrix_kind */
  fcd_real ray_alpha, ray_beta;
  /* prescribed dofs: is_fixed[i], their values, and the free numbering */
  unsigned char *is_fixed;
  fcd_real *fixed_value;
  fcd_index nfixed;
  fcd_index *free_of; /* global dof -> free index, or -1 */
  fcd_index *dof_of;  /* free index -> global dof */
  fcd_index *fixed_list; /* the prescribed dofs, increasing (nfixed entries) */
  fcd_real *scratch;     /* ndofs work entries for calls that need no allocation */
  /* how many live contacts use each dof: a prescribed dof cannot carry a contact, and
   * a dof that carries one cannot be prescribed later */
  fcd_index *contact_uses;
  fcd_index nfree;
  fcd_real *load; /* NULL: no constant load */
  fcd_load_fn load_fn;
  void *load_ud;
  fcd_prescribed_fn presc_fn;
  void *presc_ud;
  /* Bumped whenever the free-dof pattern may change (a matrix replaced, the prescribed
   * set changed); factorizations re-analyse only when it moves. */
  uint64_t pattern_version;
  /* Bumped whenever any operator value changes (matrices, Rayleigh coefficients). */
  uint64_t value_version;
  /* the matrices' relative asymmetries, measured at value_version asym_at - 1 (0:
   * never): every Cholesky factorization of a M + b C + c K checks them */
  fcd_real asym[3];
  uint64_t asym_at;
  fcd__free_pattern fp;
  /* Objects created from this system hold it: destroying the system while they live
   * only marks it (zombie); the last of them frees it. */
  fcd_index children;
  int zombie;
  /* the (node label, dof) of each dof, sorted (dofmap.c, fcd_system_set_dofmap), so that
   * the readers of fixed dofs, vectors and contacts take `node LABEL DOF`; NULL: none */
  int64_t *map_label;
  signed char *map_dof;
  /* a reduced model's band (reduction.c, fcd__system_set_band): below it the model's
   * eigenvalues are the full model's (Hz; INFINITY for any other system); the damping
   * the reduction gave its dynamics above the band, in the stored damping's pattern,
   * which eigen-analyses leave out (NULL: none; dropped when the damping is replaced),
   * and whether the stored damping is that alone */
  fcd_real band_hz;
  fcd_real *cband;
  int cband_only;
};

#endif
