/* What the two files of the lattices share (lattice.c: the model, its generators and
 * static checks; lattice_sweep.c: the state-dependent sweeping process). */
#ifndef FCD_LATTICE_PRIVATE_H
#define FCD_LATTICE_PRIVATE_H

#include "lapack.h"
#include "capabilities.h"
#include "fcd/fcd_lattice.h"

#define FCD_LATTICE_MAGIC 0x66636c74u /* "fclt" */

typedef struct {
  fcd_index a, b;
  fcd_real k, c0, s, h;
} spring;

typedef struct {
  fcd_index dof;
  fcd_real value, rate;
} constraint;

struct fcd_lattice {
  uint32_t magic;
  int dim;
  fcd_index nn, ncap;
  fcd_real *x; /* dim per node */
  fcd_index ns, scap;
  spring *sp;
  fcd_index nq, qcap;
  constraint *q;
  fcd_index nl, lcap;
  constraint *ld; /* nodal forces on unconstrained coordinates: value + rate t */
  int method;     /* FCD_LAT_FULL_SPARSE or FCD_LAT_REDUCED_DENSE */
  fcd_lattice_history_fn hist; /* NULL: value + rate t */
  void *hist_ud;
  char err[FCD_ERRMSG_CAP];
  /* the sweeping process: built on first use, dropped when the model changes */
  int ready;
  fcd_system *sys;   /* truss stiffness on nd dofs with the constrained ones fixed */
  fcd__factor *kff;  /* its free-dof factor (B K B^T) */
  const fcd__free_pattern *fp;
  fcd_real *kffval;  /* B K B^T values on fp */
  fcd_real *dir;     /* unit direction per spring (dim each), node a minus node b */
  fcd_real *el0, *el1; /* elastic stress of the constraints: el0 + t el1 */
  /* state */
  int have_state;
  fcd_real t;
  fcd_real *sig, *a, *p; /* m each */
  fcd_real *uc;          /* the constrained displacements of the state (nq) */
  fcd_real tol, bound;
  fcd_index max_iter;
  fcd_lattice_guess_fn guess;
  void *guess_ud;
  /* the last step, for the Jacobian and the KKT residual */
  fcd_real *last_spr, *last_aprev; /* the projection's data: trial stress, a_{j-1} */
  fcd_real *last_ff;               /* and the force on the free coordinates */
  fcd_real last_t, last_kkt;
  int have_step;
  unsigned char *act; /* per constraint (2 per spring: upper, lower): active */
  /* Algorithm 1's last active-set system, factored: its matrix depends only on the active
   * set (rows and faces), so successive projections warm-started from the same set reuse
   * it, and a set with the same rows reuses its symbolic analysis. Two: the projection's
   * [0] and its fixed point's [1] (lattice_sweep.c, piece_fixed_point), which alternate
   * within a step on one active set. */
  struct fcd__lat_cache {
    fcd__factor *f;
    fcd_index na, cap;
    fcd_index *rows;
    int *g;
    int valid;   /* f holds the factor of (na, rows, g) */
    uint64_t id; /* pattern id of f's analysis (never 0 once used) */
  } cache[2];
  int fixed; /* the system being solved is the fixed point's (a~ = a) */
  int solve; /* FCD_LAT_PIECES or FCD_LAT_PICARD */
  /* Algorithm 2 only: a K^-1-orthonormal basis of the self-stresses, m x dimV, row-major */
  fcd_real *vb;
  fcd_index dimv;
};

/* the lattice's messages through the one channel, into its own buffer: the lattice is a
 * model of its own, not a system (its internal truss system is made on demand) */
fcd_status fcd__lat_err(const fcd_lattice *lat, fcd_status st, const char *fmt, ...)
    FCD__PRINTF(3, 4);
static inline int fcd__lat_valid(const fcd_lattice *lat) {
  return lat && lat->magic == FCD_LATTICE_MAGIC;
}
#define CHECK_LAT(lat)                                                                 \
  do {                                                                                 \
    if (!fcd__lat_valid(lat)) return FCD_E_INVALID_ARG;                                \
  } while (0)

/* drops the sweeping process's solver and state built from the model (the model changed) */
void fcd__lat_drop_solver(fcd_lattice *lat);

/* The truss stiffness of the springs with the constrained coordinates prescribed, in a
 * system of nd dofs, its free-dof factor (NULL when nothing is free) and, if dir is not
 * NULL, the unit direction of every spring (node a minus node b). Checks kinematic
 * determinacy: a mechanism is FCD_E_SINGULAR naming a coordinate it moves. */
fcd_status fcd__lat_truss(fcd_lattice *lat, fcd_system **sys_out, fcd__factor **f_out,
                          fcd_real *dir);

#endif
