/* METIS' nested dissection of a pattern's parts, shared over the ranks of a
 * communicator (fcd__nd_parts, petsc_backend.h): rank 0 sends each part to a rank, each
 * orders its own with METIS (cholmod.c), and rank 0 gathers the orders into MUMPS' pivot
 * order. */
#include "petsc_backend.h"

#include <mpi.h>
#include <string.h>

/* Rank 0's side of fcd__nd_parts: sends every other rank its parts, orders its own, then
 * gathers the others' orders. Each message is announced and acknowledged, so that no rank
 * waits for one that never comes and none is received without room for it. */
enum { ND_TAG_SIZE = 7301, ND_TAG_PATTERN, ND_TAG_ORDER };

/* one part's order into pos from place *k on (1-based); -1 when it is not a permutation */
static int nd_place(const fcd__part_pattern *pp, const fcd_index *perm, int *pos,
                    fcd_index *k) {
  for (fcd_index j = 0; j < pp->n; j++) {
    if (perm[j] < 0 || perm[j] >= pp->n || pos[pp->back[perm[j]]] != 0) return -1;
    pos[pp->back[perm[j]]] = (int)++*k;
  }
  return 0;
}

/* rank 0: part p's pattern to its rank, with room made for its order */
static fcd_status nd_send_part(const fcd_system *sys, MPI_Comm comm, int dest, int p,
                               fcd_index n, size_t nnz, const int *irn, const int *jcn,
                               const int *parts, fcd__part_pattern *pp, fcd_index **perm) {
  fcd_status st = fcd__metis_part_pattern(sys, n, nnz, irn, jcn, parts, p, pp);
  if (st == FCD_OK && !(*perm = fcd__malloc_array((size_t)pp->n + 1, sizeof **perm)))
    st = fcd__err(sys, FCD_E_NOMEM, "out of memory for subdomain %d's order", p);
  long long head[2] = {st == FCD_OK ? (long long)pp->n : -1, (long long)pp->nnz}, ready = 0;
  if (MPI_Send(head, 2, MPI_LONG_LONG, dest, ND_TAG_SIZE, comm) != MPI_SUCCESS)
    return fcd__err(sys, FCD_E_BACKEND, "sending subdomain %d's size failed", p);
  if (head[0] <= 0) return st;
  if (MPI_Recv(&ready, 1, MPI_LONG_LONG, dest, ND_TAG_SIZE, comm, MPI_STATUS_IGNORE) !=
      MPI_SUCCESS)
    return fcd__err(sys, FCD_E_BACKEND, "receiving rank %d's answer failed", dest);
  if (!ready) { /* no order will come */
    fcd__free(*perm);
    *perm = NULL;
    return fcd__err(sys, FCD_E_NOMEM, "rank %d ran out of memory for subdomain %d", dest, p);
  }
  if (MPI_Send(pp->colptr, (int)pp->n + 1, MPI_INT64_T, dest, ND_TAG_PATTERN, comm) !=
          MPI_SUCCESS ||
      MPI_Send(pp->row, (int)pp->nnz, MPI_INT64_T, dest, ND_TAG_PATTERN, comm) != MPI_SUCCESS)
    return fcd__err(sys, FCD_E_BACKEND, "sending subdomain %d's pattern failed", p);
  return FCD_OK;
}

static fcd_status nd_parts_root(const fcd_system *sys, MPI_Comm comm, int size, int nparts,
                                fcd_index n, size_t nnz, const int *irn, const int *jcn,
                                const int *parts, fcd__part_pattern *pp, fcd_index **perm,
                                int *good) {
  fcd_status st = FCD_OK;
  for (int p = 0; p < nparts; p++) { /* the others' first: they order while rank 0 does */
    if (p % size == 0) continue;
    fcd_status ps = nd_send_part(sys, comm, p % size, p, n, nnz, irn, jcn, parts, &pp[p],
                                 &perm[p]);
    if (ps != FCD_OK) st = ps;
  }
  for (int p = 0; p < nparts; p++) {
    if (p % size != 0) continue;
    fcd_status ps = fcd__metis_part_pattern(sys, n, nnz, irn, jcn, parts, p, &pp[p]);
    perm[p] = ps == FCD_OK ? fcd__malloc_array((size_t)pp[p].n + 1, sizeof *perm[p]) : NULL;
    if (ps == FCD_OK && !perm[p])
      ps = fcd__err(sys, FCD_E_NOMEM, "out of memory for subdomain %d's order", p);
    if (ps == FCD_OK) ps = fcd__metis_part_order(sys, &pp[p], perm[p], &good[p]);
    if (ps == FCD_OK && pp[p].n == 0) good[p] = 1;
    if (ps != FCD_OK) st = ps;
  }
  for (int p = 0; p < nparts; p++) {
    if (p % size == 0 || !perm[p] || pp[p].n == 0) {
      if (p % size != 0 && perm[p]) good[p] = 1; /* an empty part */
      continue;
    }
    long long ok = 0;
    if (MPI_Recv(&ok, 1, MPI_LONG_LONG, p % size, ND_TAG_SIZE, comm, MPI_STATUS_IGNORE) !=
            MPI_SUCCESS ||
        (ok > 0 && MPI_Recv(perm[p], (int)pp[p].n, MPI_INT64_T, p % size, ND_TAG_ORDER, comm,
                            MPI_STATUS_IGNORE) != MPI_SUCCESS)) {
      st = fcd__err(sys, FCD_E_BACKEND, "receiving subdomain %d's order failed", p);
      continue;
    }
    if (ok < 0 && st == FCD_OK)
      st = fcd__err(sys, FCD_E_NOMEM, "rank %d ran out of memory ordering subdomain %d",
                    p % size, p);
    good[p] = ok > 0;
  }
  return st;
}

/* a rank other than 0: orders the parts it is sent and sends their orders back */
static fcd_status nd_parts_other(const fcd_system *sys, MPI_Comm comm, int rank, int size,
                                 int nparts) {
  fcd_status st = FCD_OK;
  for (int p = 0; p < nparts; p++) {
    if (p % size != rank) continue;
    long long head[2] = {-1, 0};
    if (MPI_Recv(head, 2, MPI_LONG_LONG, 0, ND_TAG_SIZE, comm, MPI_STATUS_IGNORE) !=
        MPI_SUCCESS) {
      st = fcd__err(sys, FCD_E_BACKEND, "receiving subdomain %d's size failed", p);
      continue;
    }
    if (head[0] <= 0) continue; /* nothing to order, or rank 0 failed: it says why */
    fcd__part_pattern pp;
    memset(&pp, 0, sizeof pp);
    pp.n = (fcd_index)head[0];
    pp.nnz = (fcd_index)head[1];
    pp.colptr = fcd__malloc_array((size_t)pp.n + 1, sizeof *pp.colptr);
    pp.row = fcd__malloc_array((size_t)pp.nnz + 1, sizeof *pp.row);
    fcd_index *perm = fcd__malloc_array((size_t)pp.n + 1, sizeof *perm);
    long long ready = pp.colptr && pp.row && perm, ok = -1;
    int ordered = 0;
    fcd_status ps = ready ? FCD_OK
                          : fcd__err(sys, FCD_E_NOMEM, "out of memory for subdomain %d", p);
    if (MPI_Send(&ready, 1, MPI_LONG_LONG, 0, ND_TAG_SIZE, comm) != MPI_SUCCESS ||
        (ready &&
         (MPI_Recv(pp.colptr, (int)pp.n + 1, MPI_INT64_T, 0, ND_TAG_PATTERN, comm,
                   MPI_STATUS_IGNORE) != MPI_SUCCESS ||
          MPI_Recv(pp.row, (int)pp.nnz, MPI_INT64_T, 0, ND_TAG_PATTERN, comm,
                   MPI_STATUS_IGNORE) != MPI_SUCCESS)))
      ps = fcd__err(sys, FCD_E_BACKEND, "receiving subdomain %d failed", p);
    else if (ready)
      ps = fcd__metis_part_order(sys, &pp, perm, &ordered);
    if (ready) { /* rank 0 waits for the order once it has sent the pattern */
      ok = ps != FCD_OK ? -1 : ordered;
      if (MPI_Send(&ok, 1, MPI_LONG_LONG, 0, ND_TAG_SIZE, comm) != MPI_SUCCESS ||
          (ok > 0 &&
           MPI_Send(perm, (int)pp.n, MPI_INT64_T, 0, ND_TAG_ORDER, comm) != MPI_SUCCESS))
        ps = fcd__err(sys, FCD_E_BACKEND, "sending subdomain %d's order failed", p);
    }
    if (ps != FCD_OK) st = ps;
    fcd__free(perm);
    fcd__free(pp.colptr);
    fcd__free(pp.row);
  }
  return st;
}

/* rank 0: places the parts' orders in pos when every part has one (*ordered = 1) */
static fcd_status nd_parts_place(const fcd_system *sys, MPI_Comm comm, int size, int nparts,
                                 fcd_index n, size_t nnz, const int *irn, const int *jcn,
                                 const int *parts, fcd_index s, const int *last, int *pos,
                                 int *ordered) {
  fcd__part_pattern *pp = fcd__calloc((size_t)nparts, sizeof *pp);
  fcd_index **perm = fcd__calloc((size_t)nparts, sizeof *perm);
  int *good = fcd__calloc((size_t)nparts, sizeof *good);
  fcd_status st = FCD_OK;
  if (irn && pp && perm && good) {
    st = nd_parts_root(sys, comm, size, nparts, n, nnz, irn, jcn, parts, pp, perm, good);
  } else { /* the others still wait for their parts: none comes */
    if (irn) st = fcd__err(sys, FCD_E_NOMEM, "out of memory ordering the subdomains");
    for (int p = 0; p < nparts; p++) {
      long long head[2] = {-1, 0};
      if (p % size != 0) (void)MPI_Send(head, 2, MPI_LONG_LONG, p % size, ND_TAG_SIZE, comm);
    }
  }
  int all = st == FCD_OK && irn && pp && perm && good;
  fcd_index k = 0;
  if (all) memset(pos, 0, (size_t)n * sizeof *pos);
  for (int p = 0; all && p < nparts; p++)
    all = good[p] && nd_place(&pp[p], perm[p], pos, &k) == 0;
  /* every dof placed once: the parts and the last set cover the n dofs exactly */
  if (all && k + s == n) {
    for (fcd_index a = 0; a < s; a++) pos[last[a] - 1] = (int)(k + a + 1);
    *ordered = 1;
  }
  for (int p = 0; pp && perm && p < nparts; p++) {
    fcd__part_pattern_free(&pp[p]);
    fcd__free(perm[p]);
  }
  fcd__free(pp);
  fcd__free(perm);
  fcd__free(good);
  return st;
}

fcd_status fcd__nd_parts(const fcd_system *sys, MPI_Comm comm, int nparts, fcd_index n,
                         size_t nnz, const int *irn, const int *jcn, const int *parts,
                         fcd_index s, const int *last, int *pos, int *ordered) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  *ordered = 0;
  if (rank != 0) {
    fcd_status st = nd_parts_other(sys, comm, rank, size, nparts);
    long long res[2] = {0, 0};
    if (MPI_Bcast(res, 2, MPI_LONG_LONG, 0, comm) != MPI_SUCCESS)
      return fcd__err(sys, FCD_E_BACKEND, "broadcasting the subdomains' order failed");
    if (res[0] != FCD_OK)
      return st != FCD_OK ? st : fcd__err(sys, (fcd_status)res[0], "the pivot order "
                                          "failed on rank 0");
    *ordered = (int)res[1];
    return FCD_OK;
  }
  fcd_status st = FCD_OK;
  if (nparts > 0)
    st = nd_parts_place(sys, comm, size, nparts, n, nnz, irn, jcn, parts, s, last, pos,
                        ordered);
  /* no parts, or one without an order: METIS' order of the whole pattern, here */
  if (st == FCD_OK && irn && !*ordered)
    st = fcd__metis_order_last(sys, n, nnz, irn, jcn, s, last, pos, ordered);
  if (st != FCD_OK) *ordered = 0;
  long long res[2] = {(long long)st, *ordered};
  if (MPI_Bcast(res, 2, MPI_LONG_LONG, 0, comm) != MPI_SUCCESS)
    return fcd__err(sys, FCD_E_BACKEND, "broadcasting the subdomains' order failed");
  return st;
}

/* m->slist becomes the ranks' separators then the s contact dofs, m->ns long, when
 * several ranks factor a Cholesky and rank 0 holds the whole pattern (g_irn).
 *
 * Why: MUMPS shares the fronts of the top separators over the ranks by rows (a master
 * factors the pivots, the others update their rows from panels it sends), which on this
 * machine kept two ranks at 23 Gflop/s each against 35 on one
 * (docs/distributed-measurements.md). Put into the Schur set instead, the separators
 * leave MUMPS 2^levels subtrees that no entry joins, each factored by one rank alone,
 * and ScaLAPACK's Cholesky of the whole dense S does the separators' elimination; its
 * trailing block is then the Cholesky factor of C, the contact dofs' own Schur
 * complement, since the separators come first and are padded to whole column blocks of
 * every rank (its local columns stay where they are). An LU keeps MUMPS' own fronts:
 * its row interchanges would mix the two sets. */
