/* The readers' routing: a matrix file read by rank 0, its entries sent to the ranks that own
 * their rows (dist.h, fcd__route_begin). */
#include "dist_private.h"

#include <stdio.h>
#include <string.h>

/* ---- a matrix file read by rank 0, its entries sent to the ranks that own their rows ----
 * The file need only be readable on rank 0, and no rank holds more than its own rows
 * and, on rank 0, one batch per rank: a Matrix Market file of a model that outgrows one
 * rank's memory is still read. On a serial system the entries simply collect. */
enum { ROUTE_BATCH = 8192, ROUTE_TAG_DATA = 7301, ROUTE_TAG_END = 7302 };
typedef struct {
  fcd_index i, j;
  fcd_real v;
} route_entry;

struct fcd__route {
  const fcd_system *sys;
  route_entry *batch; /* rank 0: ROUTE_BATCH per rank; elsewhere: one receive buffer */
  int *fill;
  fcd_index *ri, *ci;
  fcd_real *vv;
  fcd_index k, cap;
  int nomem; /* this rank could not keep all of its entries */
  const char *what; /* the caller's name for what is read (rank 0: the file), messages */
};

static int route_keep(fcd__route *r, fcd_index i, fcd_index j, fcd_real v) {
  if (r->k == r->cap) {
    fcd_index nc = r->cap < 4096 ? 4096 : 2 * r->cap;
    fcd_index *a = fcd__grow_array(r->ri, (size_t)r->k, (size_t)nc, sizeof *a);
    if (a) r->ri = a;
    fcd_index *b = a ? fcd__grow_array(r->ci, (size_t)r->k, (size_t)nc, sizeof *b) : NULL;
    if (b) r->ci = b;
    fcd_real *c = b ? fcd__grow_array(r->vv, (size_t)r->k, (size_t)nc, sizeof *c) : NULL;
    if (!c) return 0;
    r->vv = c;
    r->cap = nc;
  }
  r->ri[r->k] = i;
  r->ci[r->k] = j;
  r->vv[r->k++] = v;
  return 1;
}

void fcd__route_free(fcd__route *r) {
  if (!r) return;
  fcd__free(r->batch);
  fcd__free(r->fill);
  fcd__free(r->ri);
  fcd__free(r->ci);
  fcd__free(r->vv);
  fcd__free(r);
}

fcd_status fcd__route_begin(const fcd_system *sys, int kind, fcd_status arg, const char *what,
                            fcd__route **out) {
  *out = NULL;
  const fcd__dist *d = sys->dist;
  int P = d ? d->size : 1;
  fcd__route *r = arg == FCD_OK ? fcd__calloc(1, sizeof *r) : NULL;
  if (r && P > 1) {
    size_t nb = d->rank == 0 ? (size_t)P * ROUTE_BATCH : ROUTE_BATCH;
    r->batch = fcd__malloc_array(nb, sizeof *r->batch);
    r->fill = fcd__calloc((size_t)P, sizeof *r->fill);
    if (!r->batch || !r->fill) {
      fcd__route_free(r);
      r = NULL;
    }
  }
  int mine = arg != FCD_OK ? 2 : !r ? 1 : 0;
  if (P > 1) {
    /* every rank's verdict before the first message: a rank that leaves here would
     * leave rank 0 sending to it */
    int v[3] = {mine, kind, -kind};
    if (MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_INT, MPI_MAX, d->comm) != MPI_SUCCESS) {
      fcd__route_free(r);
      return fcd__err(sys, FCD_E_BACKEND, "%s: MPI error agreeing across ranks", what);
    }
    if (mine == 0 && v[0] == 2)
      mine = 3;
    else if (mine == 0 && v[0] == 1)
      mine = 4;
    else if (mine == 0 && v[1] != -v[2])
      mine = 5;
    if (mine == 3)
      arg = fcd__err(sys, FCD_E_INVALID_ARG, "%s: another rank's arguments were refused "
                     "(its message names them); every rank stops with it", what);
    if (mine == 4) arg = fcd__err(sys, FCD_E_NOMEM, "%s: out of memory on another rank", what);
    if (mine == 5)
      arg = fcd__err(sys, FCD_E_INVALID_ARG, "%s: the ranks ask for different matrices "
                     "(kinds %d to %d); every rank reads the same one", what, -v[2], v[1]);
  }
  if (mine == 1) arg = fcd__err(sys, FCD_E_NOMEM, "%s: out of memory", what);
  if (mine) {
    fcd__route_free(r);
    return arg;
  }
  r->sys = sys;
  r->what = what;
  *out = r;
  return FCD_OK;
}

int fcd__route_reader(const fcd__route *r) { return !r->sys->dist || r->sys->dist->rank == 0; }

static int route_send(fcd__route *r, int to) {
  const fcd__dist *d = r->sys->dist;
  int e = MPI_Send(r->batch + (size_t)to * ROUTE_BATCH,
                   (int)(r->fill[to] * (int)sizeof(route_entry)), MPI_BYTE, to, ROUTE_TAG_DATA,
                   d->comm);
  r->fill[to] = 0;
  return e == MPI_SUCCESS;
}

fcd_status fcd__route_put(fcd__route *r, fcd_index i, fcd_index j, fcd_real v) {
  const fcd__dist *d = r->sys->dist;
  if (!d || (i >= d->rbegin && i < d->rend)) {
    if (route_keep(r, i, j, v)) return FCD_OK;
    return fcd__err(r->sys, FCD_E_NOMEM, "%s: out of memory for %lld entries", r->what,
                    (long long)r->k + 1);
  }
  /* the owner: the last rank whose block starts at or before row i (empty blocks skipped) */
  int lo = 0, hi = d->size - 1;
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    if (d->starts[mid] <= i) lo = mid;
    else hi = mid - 1;
  }
  route_entry *b = r->batch + (size_t)lo * ROUTE_BATCH;
  b[r->fill[lo]++] = (route_entry){i, j, v};
  if (r->fill[lo] == ROUTE_BATCH && !route_send(r, lo))
    return fcd__err(r->sys, FCD_E_BACKEND, "MPI error sending entries to rank %d", lo);
  return FCD_OK;
}

/* rank 0: the last batches (when the read succeeded) and every rank's end message: rank
 * 0's status, the reader's flag and its message */
enum { ROUTE_END_BYTES = 2 * sizeof(int) + FCD_ERRMSG_CAP };
static fcd_status route_finish(fcd__route *r, fcd_status st, int flag) {
  const fcd__dist *d = r->sys->dist;
  char end[ROUTE_END_BYTES];
  int bad = 0;
  for (int to = 1; to < d->size; to++)
    if (st == FCD_OK && r->fill[to] > 0 && !route_send(r, to)) bad = 1;
  if (bad && st == FCD_OK)
    st = fcd__err(r->sys, FCD_E_BACKEND, "MPI error sending the last entries");
  int head[2] = {(int)st, flag};
  memcpy(end, head, sizeof head);
  snprintf(end + sizeof head, FCD_ERRMSG_CAP, "%s", st == FCD_OK ? "" : r->sys->h.err);
  for (int to = 1; to < d->size; to++)
    if (MPI_Send(end, (int)sizeof end, MPI_BYTE, to, ROUTE_TAG_END, d->comm) != MPI_SUCCESS)
      bad = 1;
  if (bad && st == FCD_OK)
    st = fcd__err(r->sys, FCD_E_BACKEND, "MPI error ending the entries' distribution");
  return st;
}

/* every other rank: its entries, until rank 0's end message */
static fcd_status route_collect(fcd__route *r, int *flag) {
  const fcd__dist *d = r->sys->dist;
  for (;;) {
    MPI_Status ms;
    int bytes = 0;
    if (MPI_Probe(0, MPI_ANY_TAG, d->comm, &ms) != MPI_SUCCESS ||
        MPI_Get_count(&ms, MPI_BYTE, &bytes) != MPI_SUCCESS)
      return fcd__err(r->sys, FCD_E_BACKEND, "MPI error receiving entries from rank 0");
    if (ms.MPI_TAG == ROUTE_TAG_END) {
      char end[ROUTE_END_BYTES];
      int head[2];
      if (bytes != (int)sizeof end ||
          MPI_Recv(end, bytes, MPI_BYTE, 0, ROUTE_TAG_END, d->comm, MPI_STATUS_IGNORE))
        return fcd__err(r->sys, FCD_E_BACKEND, "MPI error receiving rank 0's end message");
      memcpy(head, end, sizeof head);
      end[sizeof end - 1] = '\0';
      *flag = head[1];
      if (head[0] != (int)FCD_OK)
        return fcd__err(r->sys, (fcd_status)head[0], "%s (read on rank 0)", end + sizeof head);
      if (r->nomem)
        return fcd__err(r->sys, FCD_E_NOMEM, "%s: out of memory for this rank's %lld "
                        "entries", r->what, (long long)r->k + 1);
      return FCD_OK;
    }
    int cnt = bytes / (int)sizeof(route_entry);
    if (ms.MPI_TAG != ROUTE_TAG_DATA || cnt > ROUTE_BATCH ||
        MPI_Recv(r->batch, bytes, MPI_BYTE, 0, ROUTE_TAG_DATA, d->comm, MPI_STATUS_IGNORE))
      return fcd__err(r->sys, FCD_E_BACKEND, "MPI error receiving entries from rank 0");
    /* out of memory, the rank still drains what rank 0 sends it */
    for (int p = 0; p < cnt && !r->nomem; p++)
      r->nomem = !route_keep(r, r->batch[p].i, r->batch[p].j, r->batch[p].v);
  }
}

fcd_status fcd__route_end(fcd__route *r, fcd_status st, int *flag, fcd_index *nnz,
                          fcd_index **rows, fcd_index **cols, fcd_real **vals) {
  const fcd__dist *d = r->sys->dist;
  if (d && d->size > 1) st = d->rank == 0 ? route_finish(r, st, *flag) : route_collect(r, flag);
  *nnz = r->k;
  *rows = r->ri;
  *cols = r->ci;
  *vals = r->vv;
  r->ri = r->ci = NULL;
  r->vv = NULL;
  r->k = r->cap = 0;
  return st;
}
