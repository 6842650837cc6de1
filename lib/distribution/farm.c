/* Work shared out over a host's communicator (dist.h, fcd__farm): the stability sweep's
 * coefficients in contiguous blocks, each rank solving its own, then every result handed
 * to every rank in order. The collectives and their failure rules live here, so that the
 * analysis that shares its work out states only what an item is. */
#include "dist_private.h"

#include <stdio.h>
#include <string.h>

/* the rank that computes item k of n over size ranks: rank r takes the contiguous block
 * [n r / size, n (r + 1) / size) */
static int farm_owner(fcd_index k, fcd_index n, int size) {
  int r = 0;
  while (r + 1 < size && k >= n * (r + 1) / size) r++;
  return r;
}

/* Item k's bytes from its owner to every rank, and every rank's visit of them; the
 * visits' verdicts (status, callback) agreed. */
static fcd_status farm_deliver(const fcd_system *sys, int64_t comm, const fcd__farm *f,
                               fcd_index k, int owner, int rank) {
  void *buf = NULL;
  size_t bytes = 0;
  fcd_status st = FCD_OK;
  if (rank == owner) st = f->pack(f->ctx, k, &buf, &bytes);
  long long hdr[2] = {st == FCD_OK, (long long)bytes};
  FCD_TRY(fcd__comm_bcast(sys, comm, hdr, sizeof hdr, owner));
  if (!hdr[0]) {
    fcd__free(buf);
    return rank == owner ? st : fcd__err(sys, FCD_E_NOMEM, "out of memory sending a %s's "
                                         "results on rank %d", f->what, owner);
  }
  bytes = (size_t)hdr[1];
  if (rank != owner) buf = fcd__malloc(bytes + 1);
  long long ok = buf != NULL;
  st = fcd__comm_min(sys, comm, &ok, 1);
  if (st == FCD_OK && !ok)
    st = fcd__err(sys, FCD_E_NOMEM, "out of memory receiving a %s's results %s", f->what,
                  buf ? "on another rank" : "");
  if (st == FCD_OK) st = fcd__comm_bcast(sys, comm, buf, bytes, owner);
  int rc = 0;
  if (st == FCD_OK) {
    st = f->visit(f->ctx, k, buf, bytes, &rc);
    long long v[2] = {st == FCD_OK, rc == 0};
    fcd_status s = fcd__comm_min(sys, comm, v, 2);
    if (s != FCD_OK) st = s;
    else if (st == FCD_OK && !v[0])
      st = fcd__err(sys, FCD_E_NOMEM, "out of memory in a %s on another rank", f->what);
    else if (st == FCD_OK && !v[1])
      st = rc ? fcd__err(sys, FCD_E_CALLBACK, "%s callback returned %d at %s = %g", f->what,
                         rc, f->label, f->value(f->ctx, k))
              : fcd__err(sys, FCD_E_CALLBACK, "%s callback returned nonzero at %s = %g on "
                         "another rank", f->what, f->label, f->value(f->ctx, k));
  }
  fcd__free(buf);
  return st;
}

/* The status and message of the rank that failed item k, on every rank */
static fcd_status farm_failure(const fcd_system *sys, int64_t comm, const fcd__farm *f,
                               fcd_index k, fcd_status mine, const char *why, int owner,
                               int rank) {
  char msg[FCD_ERRMSG_CAP];
  long long s = mine;
  snprintf(msg, sizeof msg, "%s", rank == owner ? why : "");
  FCD_TRY(fcd__comm_bcast(sys, comm, &s, sizeof s, owner));
  FCD_TRY(fcd__comm_bcast(sys, comm, msg, sizeof msg, owner));
  if (rank == owner) return fcd__err(sys, mine, "%s", msg);
  return fcd__err(sys, (fcd_status)s, "%s (%s = %g, solved on rank %d)", msg, f->label,
                  f->value(f->ctx, k), owner);
}

static fcd_status farm_share(const fcd_system *sys, int64_t comm, fcd_index n,
                             const fcd__farm *f, int rank, int size) {
  fcd_index lo = n * rank / size, hi = n * (rank + 1) / size;
  long long first = n; /* the first item that failed here */
  fcd_status local = FCD_OK;
  char why[FCD_ERRMSG_CAP] = "";
  for (fcd_index k = lo; k < hi && first == n; k++)
    if ((local = f->solve(f->ctx, k)) != FCD_OK) {
      first = k;
      snprintf(why, sizeof why, "%s", sys->h.err);
    }
  fcd_status status = fcd__comm_min(sys, comm, &first, 1);
  for (fcd_index k = 0; k < first && status == FCD_OK; k++)
    status = farm_deliver(sys, comm, f, k, farm_owner(k, n, size), rank);
  if (status == FCD_OK && first < n)
    status = farm_failure(sys, comm, f, (fcd_index)first, local, why,
                          farm_owner((fcd_index)first, n, size), rank);
  return status;
}

fcd_status fcd__farm_run(const fcd_system *sys, const fcd__eigseam *seam, fcd_status args,
                         fcd_index n, int share, const fcd__farm *f, int *ran) {
  int64_t comm = seam->shared ? seam->comm_f : FCD_COMM_SERIAL;
  *ran = 0;
  int rank = 0, size = 1;
  FCD_TRY(fcd__comm_rank_size(sys, comm, &rank, &size));
  if (size > 1) {
    /* every rank learns of a bad argument on any: none is left in a collective */
    long long ok[3] = {args == FCD_OK, n, -(long long)n};
    FCD_TRY(fcd__comm_min(sys, comm, ok, 3));
    if (args == FCD_OK && !ok[0])
      args = fcd__err(sys, FCD_E_INVALID_ARG, "%s: a bad argument on another rank", f->what);
    if (args == FCD_OK && (ok[1] != n || -ok[2] != n))
      args = fcd__err(sys, FCD_E_INVALID_ARG, "%s: the ranks ask for different numbers of "
                      "steps", f->what);
  }
  if (args != FCD_OK || size < 2 || n < 2 || !share) return args;
  *ran = 1;
  return farm_share(sys, comm, n, f, rank, size);
}
