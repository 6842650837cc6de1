/* MPI's collectives as fcd uses them, below everything that communicates: whether a
 * flag is set on any rank, and the collectives over a host's communicator outside a
 * distributed system (the stability sweep's ranks). */
#include "petsc_backend.h"

#include <mpi.h>

int fcd__comm_any(MPI_Comm comm, int flag) {
  int v = flag != 0;
  if (MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS) return 1;
  return v;
}

/* ---- a host communicator outside a distributed system (the stability sweep) ------- */

static MPI_Comm comm_of(int64_t comm_f) { return MPI_Comm_f2c((MPI_Fint)comm_f); }

fcd_status fcd__comm_rank_size(const fcd_system *sys, int64_t comm_f, int *rank, int *size) {
  *rank = 0;
  *size = 1;
  if (comm_f == FCD_COMM_SERIAL) return FCD_OK;
  int up = 0, down = 0;
  MPI_Initialized(&up);
  MPI_Finalized(&down);
  if (!up || down)
    return fcd__err(sys, FCD_E_STATE, "a communicator is set but MPI is %s",
                    down ? "finalized" : "not initialized");
  MPI_Comm comm = comm_of(comm_f);
  if (comm == MPI_COMM_NULL)
    return fcd__err(sys, FCD_E_INVALID_ARG, "the communicator is MPI_COMM_NULL");
  if (MPI_Comm_rank(comm, rank) || MPI_Comm_size(comm, size))
    return fcd__err(sys, FCD_E_BACKEND, "MPI error reading the communicator's size");
  return FCD_OK;
}

fcd_status fcd__comm_bcast(const fcd_system *sys, int64_t comm_f, void *buf, size_t bytes,
                           int root) {
  /* in chunks: MPI counts are int */
  for (size_t k = 0; k < bytes; k += (size_t)1 << 30) {
    size_t cnt = bytes - k < ((size_t)1 << 30) ? bytes - k : ((size_t)1 << 30);
    int e = MPI_Bcast((char *)buf + k, (int)cnt, MPI_BYTE, root, comm_of(comm_f));
    if (e) return fcd__err(sys, FCD_E_BACKEND, "MPI error %d in a broadcast", e);
  }
  return FCD_OK;
}

fcd_status fcd__comm_min(const fcd_system *sys, int64_t comm_f, long long *v, int n) {
  int e = MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_LONG_LONG, MPI_MIN, comm_of(comm_f));
  if (e) return fcd__err(sys, FCD_E_BACKEND, "MPI error %d in a reduction", e);
  return FCD_OK;
}

fcd_status fcd__comm_max_reals(const fcd_system *sys, int64_t comm_f, fcd_real *v, int n) {
  int e = MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_MAX, comm_of(comm_f));
  if (e) return fcd__err(sys, FCD_E_BACKEND, "MPI error %d in a reduction", e);
  return FCD_OK;
}

/* ---- the eigen-solves' seam ---- */

fcd_status fcd__eigseam_set(const fcd_system *sys, fcd__eigseam *s, int64_t comm_f) {
  if (comm_f < FCD_COMM_SERIAL || comm_f > INT32_MAX)
    return fcd__err(sys, FCD_E_INVALID_ARG, "%lld is not a Fortran communicator handle",
                    (long long)comm_f);
  s->shared = comm_f != FCD_COMM_SERIAL;
  s->comm_f = comm_f;
  return FCD_OK;
}

fcd_status fcd__eigseam_part(const fcd_system *sys, const fcd__eigseam *s, int *part,
                             int *parts) {
  return fcd__comm_rank_size(sys, s->shared ? s->comm_f : FCD_COMM_SERIAL, part, parts);
}

fcd_status fcd__eigseam_worst(const fcd_system *sys, const fcd__eigseam *s, fcd_real *v,
                              int n) {
  return s->shared ? fcd__comm_max_reals(sys, s->comm_f, v, n) : FCD_OK;
}
