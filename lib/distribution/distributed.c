/* Distributed systems: the partition of the rows over the host's communicator, the
 * reductions that keep the replicated vectors of every rank equal, and the agreement that
 * turns one rank's failure into every rank's. The rows' products are rows.c's, the
 * factor over the ranks mumps_factor.c's, the readers' routing route.c's.
 *
 * Layout (docs/distributed.md): matrices are distributed (each rank stores the rows it
 * owns), so is the factor (MUMPS); vectors of ndofs entries (loads, displacements, the
 * prescribed values) and the contact set are replicated, so the small contact problem
 * is solved redundantly on every rank from identical data, and no result needs a
 * broadcast. */
#include "petsc_backend.h"
#include "dist_private.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>


int fcd__dist_on(const fcd_system *sys) { return sys->dist != NULL; }

void fcd__dist_free(fcd__dist *d) {
  if (!d) return;
  int down = 0;
  MPI_Finalized(&down);
  if (!down && d->comm != MPI_COMM_NULL) MPI_Comm_free(&d->comm);
  fcd__free(d->starts);
  fcd__free(d);
}

/* The gathered table (per rank: ndofs, begin, end, holds a matrix) describes one
 * layout: the same size everywhere, ranges inside it, consecutive blocks in rank order
 * (PETSc's layout: rank r begins where rank r - 1 ends), no matrix yet. */
static fcd_status layout_check(fcd_system *sys, const long long *all, int size) {
  fcd_status st = FCD_OK;
  for (int r = 0; r < size; r++)
    if (all[4 * r] != all[0]) {
      st = fcd__err(sys, FCD_E_INVALID_ARG, "set_distribution: inconsistent global sizes: "
                    "rank 0 has %lld dofs, rank %d has %lld", all[0], r, all[4 * r]);
      return st;
    }
  for (int r = 0; r < size; r++) {
    long long b = all[4 * r + 1], en = all[4 * r + 2];
    if (b < 0 || en < b || en > all[0]) {
      st = fcd__err(sys, FCD_E_INVALID_ARG, "set_distribution: rank %d gives rows [%lld, "
                    "%lld), not a range inside [0, %lld)", r, b, en, all[0]);
      return st;
    }
  }
  for (int r = 0; r <= size; r++) {
    long long expect = r == 0 ? 0 : all[4 * (r - 1) + 2];
    long long got = r == size ? all[0] : all[4 * r + 1];
    if (got == expect) continue;
    if (got > expect)
      st = fcd__err(sys, FCD_E_INVALID_ARG, "set_distribution: rows [%lld, %lld) are owned "
                    "by no rank (%s)", expect, got,
                    r == size ? "the last rank ends early" : "a gap before this rank's block");
    else
      st = fcd__err(sys, FCD_E_INVALID_ARG, "set_distribution: ranks %d and %d overlap: "
                    "rows [%lld, %lld) and [%lld, %lld)", r - 1, r, all[4 * (r - 1) + 1],
                    all[4 * (r - 1) + 2], all[4 * r + 1], all[4 * r + 2]);
    return st;
  }
  for (int r = 0; r < size; r++)
    if (all[4 * r + 3]) {
      st = fcd__err(sys, FCD_E_STATE, "set_distribution: rank %d already holds a matrix; "
                    "the distribution is chosen before the first matrix", r);
      return st;
    }
  return FCD_OK;
}

/* The checks run on every rank from the same gathered table, so every rank reaches the
 * same verdict without a second collective; a rank whose own arguments are bad still
 * takes part (its row says so) and no rank is left waiting. */
fcd_status fcd_system_set_distribution(fcd_system *sys, int64_t mpi_comm_f,
                                       fcd_index row_begin, fcd_index row_end) {
  FCD_CHECK_SYS(sys);
  if (mpi_comm_f == FCD_COMM_SERIAL) {
    if (!sys->dist) return FCD_OK;
    if (sys->mat[0].set || sys->mat[1].set || sys->mat[2].set)
      return fcd__err(sys, FCD_E_STATE, "set_distribution: matrices are set; the "
                      "distribution is chosen before the first matrix");
    fcd__dist_free(sys->dist);
    sys->dist = NULL;
    return FCD_OK;
  }
  if (mpi_comm_f < 0 || mpi_comm_f > INT32_MAX)
    return fcd__err(sys, FCD_E_INVALID_ARG, "set_distribution: %lld is not a Fortran "
                    "communicator handle", (long long)mpi_comm_f);
  int up = 0, down = 0;
  MPI_Initialized(&up);
  MPI_Finalized(&down);
  if (!up || down)
    return fcd__err(sys, FCD_E_STATE, "set_distribution: MPI is %s; a distributed system "
                    "runs on the host's MPI", down ? "finalized" : "not initialized");
  MPI_Comm comm = MPI_Comm_f2c((MPI_Fint)mpi_comm_f);
  if (comm == MPI_COMM_NULL)
    return fcd__err(sys, FCD_E_INVALID_ARG, "set_distribution: the communicator is "
                    "MPI_COMM_NULL");
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  /* per rank: ndofs, begin, end, 1 when this rank already holds a matrix */
  long long mine[4] = {(long long)sys->n, (long long)row_begin, (long long)row_end,
                       sys->mat[0].set || sys->mat[1].set || sys->mat[2].set};
  long long *all = fcd__malloc_array((size_t)size * 4, sizeof *all);
  fcd__dist *d = fcd__calloc(1, sizeof *d);
  if (d) d->comm = MPI_COMM_NULL;
  fcd_index *starts = fcd__malloc_array((size_t)size + 1, sizeof *starts);
  /* a rank out of memory still answers: its row says -1, and all fail with it */
  long long sentinel[4] = {-1, -1, -1, -1};
  int ok_mem = all && d && starts;
  long long dummy[4];
  int e = MPI_Allgather(ok_mem ? mine : sentinel, 4, MPI_LONG_LONG, ok_mem ? all : dummy,
                        4, MPI_LONG_LONG, comm);
  int any_mem = ok_mem;
  if (!e) e = MPI_Allreduce(MPI_IN_PLACE, &any_mem, 1, MPI_INT, MPI_MIN, comm);
  fcd_status st = FCD_OK;
  if (e) {
    st = fcd__err(sys, FCD_E_BACKEND, "set_distribution: MPI error %d gathering the row "
                  "ranges", e);
    goto fail;
  }
  if (!any_mem) {
    st = fcd__err(sys, FCD_E_NOMEM, "set_distribution: out of memory on %s",
                  ok_mem ? "another rank" : "this rank");
    goto fail;
  }
  if ((st = layout_check(sys, all, size)) != FCD_OK) goto fail;
  /* fcd talks on a duplicate of the host's communicator (every rank is here, the verdict
   * being the same on all): a message the host has in flight can then never match one
   * of fcd's receives, nor one of fcd's the host's */
  if (MPI_Comm_dup(comm, &d->comm) != MPI_SUCCESS) {
    st = fcd__err(sys, FCD_E_BACKEND, "set_distribution: duplicating the communicator failed");
    goto fail;
  }
  for (int r = 0; r < size; r++) starts[r] = (fcd_index)all[4 * r + 1];
  starts[size] = sys->n;
  d->rank = rank;
  d->size = size;
  d->rbegin = row_begin;
  d->rend = row_end;
  d->starts = starts;
  fcd__dist_free(sys->dist);
  sys->dist = d;
  fcd__free(all);
  return FCD_OK;
fail:
  fcd__free(all);
  fcd__free(d);
  fcd__free(starts);
  return st;
}

fcd_status fcd_system_get_distribution(const fcd_system *sys, int *rank, int *nranks,
                                       fcd_index *row_begin, fcd_index *row_end) {
  FCD_CHECK_SYS(sys);
  const fcd__dist *d = sys->dist;
  if (rank) *rank = d ? d->rank : 0;
  if (nranks) *nranks = d ? d->size : 1;
  if (row_begin) *row_begin = d ? d->rbegin : 0;
  if (row_end) *row_end = d ? d->rend : sys->n;
  return FCD_OK;
}

fcd_status fcd__dist_sum(const fcd_system *sys, fcd_real *y, fcd_index n) {
  if (!sys->dist || sys->dist->size == 1 || n == 0) return FCD_OK;
  /* in chunks of 8 MB: MPI's reduction allocates a scratch buffer as long as its message,
   * and a fresh one of the 135 MB a Delassus operator of 4,107 directions sums was
   * first touched page by page (0.2 s on this VM); a chunk's is reused */
  enum { CHUNK = 1 << 20 };
  for (fcd_index k = 0; k < n; k += CHUNK) {
    int cnt = (int)(n - k < CHUNK ? n - k : CHUNK);
    int e = MPI_Allreduce(MPI_IN_PLACE, y + k, cnt, MPI_DOUBLE, MPI_SUM, sys->dist->comm);
    if (e) return fcd__err(sys, FCD_E_BACKEND, "MPI error %d summing a vector over ranks", e);
  }
  return FCD_OK;
}

fcd_real fcd__dist_max(const fcd_system *sys, fcd_real v) {
  if (!sys->dist || sys->dist->size == 1) return v;
  /* a NaN must win the reduction as fcd__maxn makes it win locally */
  double x[2] = {v, v != v ? 1.0 : 0.0};
  double r[2];
  if (MPI_Allreduce(x, r, 2, MPI_DOUBLE, MPI_MAX, sys->dist->comm)) return NAN;
  return r[1] > 0 ? NAN : r[0];
}

int fcd__dist_any(const fcd_system *sys, int flag) {
  if (!sys->dist || sys->dist->size == 1) return flag;
  return fcd__comm_any(sys->dist->comm, flag);
}

fcd_status fcd__dist_agree(const fcd_system *sys, fcd_status st, uint64_t hash,
                           const char *what) {
  if (!sys->dist || sys->dist->size == 1) return st;
  const fcd__dist *d = sys->dist;
  /* the first failing rank and its status; then whether the hashes agree */
  int mine[2] = {st == FCD_OK ? d->size : d->rank, (int)st};
  int first[2] = {d->size, 0};
  int e = MPI_Allreduce(mine, first, 1, MPI_2INT, MPI_MINLOC, d->comm);
  uint64_t lo = hash, hi = hash;
  if (!e) e = MPI_Allreduce(&hash, &lo, 1, MPI_UINT64_T, MPI_MIN, d->comm);
  if (!e) e = MPI_Allreduce(&hash, &hi, 1, MPI_UINT64_T, MPI_MAX, d->comm);
  if (e) return fcd__err(sys, FCD_E_BACKEND, "%s: MPI error %d agreeing across ranks", what, e);
  if (st != FCD_OK) return st; /* this rank's own message stands */
  if (first[0] < d->size)
    return fcd__err(sys, (fcd_status)first[1], "%s: rank %d failed (status %d); every rank "
                    "stops with it (its message is on that rank)", what, first[0], first[1]);
  if (lo != hi)
    return fcd__err(sys, FCD_E_INVALID_ARG, "%s: the ranks hold different replicated data "
                    "(load, prescribed dofs, contacts or parameters); every rank must give "
                    "the same", what);
  return FCD_OK;
}

fcd_status fcd__dist_agree_replicas(const fcd_system *sys, fcd_status st, const char *what,
                                    const fcd__replica *items, int n) {
  if (!sys->dist || sys->dist->size == 1) return st;
  uint64_t h = 0;
  for (int k = 0; st == FCD_OK && k < n; k++)
    h = items[k].hash ? items[k].hash(items[k].p, h) : fcd__hash(h, items[k].p, items[k].bytes);
  return fcd__dist_agree(sys, st, h, what);
}


/* ---- entries sent to the ranks that need them ---- */

static int owner_of(const fcd__dist *d, fcd_index row) {
  int lo = 0, hi = d->size - 1;
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    if (d->starts[mid] <= row) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

int fcd__dist_owner(const fcd_system *sys, fcd_index row) {
  return sys->dist ? owner_of(sys->dist, row) : 0;
}

typedef struct {
  int64_t row, col;
  double val;
} sent_entry;

fcd_status fcd__dist_send_entries(const fcd_system *sys, fcd_index n, const int *dest,
                                  const fcd_index *rows, const fcd_index *cols,
                                  const fcd_real *vals, fcd_index *nin, fcd_index **irows,
                                  fcd_index **icols, fcd_real **ivals) {
  *nin = 0;
  *irows = *icols = NULL;
  *ivals = NULL;
  const fcd__dist *d = sys->dist;
  if (!d || d->size == 1) return FCD_OK;
  int P = d->size;
  int *cnt = fcd__calloc(4 * (size_t)P + 1, sizeof *cnt);
  /* every rank takes part in every exchange below, even one that failed before it (it
   * sends and receives nothing); the verdicts are agreed at the end */
  if (fcd__comm_any(d->comm, !cnt)) {
    fcd__free(cnt);
    return fcd__err(sys, FCD_E_NOMEM, "out of memory sending matrix entries between ranks");
  }
  int *rcnt = cnt + P, *sdsp = cnt + 2 * P, *rdsp = cnt + 3 * P;
  long long ns = 0, nr = 0;
  for (fcd_index k = 0; k < n; k++) cnt[dest[k]] += (int)sizeof(sent_entry);
  int bad = MPI_Alltoall(cnt, 1, MPI_INT, rcnt, 1, MPI_INT, d->comm) != MPI_SUCCESS;
  for (int r = 0; r < P && !bad; r++) {
    sdsp[r] = (int)ns;
    rdsp[r] = (int)nr;
    ns += cnt[r];
    nr += rcnt[r];
  }
  bad |= ns > INT32_MAX || nr > INT32_MAX;
  sent_entry *out = bad ? NULL : fcd__malloc_array((size_t)ns / sizeof *out + 1, sizeof *out);
  sent_entry *in = bad ? NULL : fcd__malloc_array((size_t)nr / sizeof *in + 1, sizeof *in);
  int *fill = bad ? NULL : fcd__calloc((size_t)P, sizeof *fill);
  bad |= !out || !in || !fill;
  for (fcd_index k = 0; k < n && !bad; k++) {
    sent_entry *e = (sent_entry *)((char *)out + sdsp[dest[k]] + fill[dest[k]]);
    *e = (sent_entry){rows[k], cols[k], vals[k]};
    fill[dest[k]] += (int)sizeof(sent_entry);
  }
  fcd__free(fill);
  /* a rank that failed sends nothing; the others then wait for nothing from it, which
   * they learn only from its counts: all ranks agree first */
  bad = fcd__comm_any(d->comm, bad);
  if (!bad)
    bad = MPI_Alltoallv(out, cnt, sdsp, MPI_BYTE, in, rcnt, rdsp, MPI_BYTE, d->comm) !=
          MPI_SUCCESS;
  fcd__free(out);
  fcd__free(cnt);
  long long nin_all = bad ? 0 : nr / (long long)sizeof(sent_entry);
  fcd_index *ri = bad ? NULL : fcd__malloc_array((size_t)nin_all + 1, sizeof *ri);
  fcd_index *ci = bad ? NULL : fcd__malloc_array((size_t)nin_all + 1, sizeof *ci);
  fcd_real *vi = bad ? NULL : fcd__malloc_array((size_t)nin_all + 1, sizeof *vi);
  bad |= !ri || !ci || !vi;
  for (long long k = 0; k < nin_all && !bad; k++) {
    ri[k] = in[k].row;
    ci[k] = in[k].col;
    vi[k] = in[k].val;
  }
  fcd__free(in);
  if (fcd__comm_any(d->comm, bad)) {
    fcd__free(ri);
    fcd__free(ci);
    fcd__free(vi);
    return fcd__err(sys, FCD_E_NOMEM, "out of memory (or an MPI error) sending %lld matrix "
                    "entries between ranks", (long long)n);
  }
  *nin = (fcd_index)nin_all;
  *irows = ri;
  *icols = ci;
  *ivals = vi;
  return FCD_OK;
}

/* ---- symmetry of a distributed matrix ---- */

/* Each entry (i, j) whose row j another rank owns travels there as (j, i, value); the
 * owner compares it with its own (j, i). Entries whose mirror is local are compared
 * here; local entries that no mirror reached are compared with zero. */
typedef struct {
  int64_t row, col;
  double val;
} asym_entry;

static int asym_exchange(const fcd__dist *d, const fcd__csr *a, int empty, asym_entry **recv,
                         int *nrecv) {
  int *cnt = fcd__calloc(4 * (size_t)d->size, sizeof *cnt);
  if (!cnt) return 1;
  int *rcnt = cnt + d->size, *sdsp = cnt + 2 * d->size, *rdsp = cnt + 3 * d->size;
  for (fcd_index i = d->rbegin; i < d->rend && !empty; i++)
    for (fcd_index p = a->rowptr[i]; p < a->rowptr[i + 1]; p++) {
      int r = owner_of(d, a->col[p]);
      if (r != d->rank) cnt[r] += (int)sizeof(asym_entry);
    }
  int bad = MPI_Alltoall(cnt, 1, MPI_INT, rcnt, 1, MPI_INT, d->comm) != MPI_SUCCESS;
  long long ns = 0, nr = 0;
  for (int r = 0; r < d->size && !bad; r++) {
    sdsp[r] = (int)ns;
    rdsp[r] = (int)nr;
    ns += cnt[r];
    nr += rcnt[r];
  }
  bad |= ns > INT32_MAX || nr > INT32_MAX;
  asym_entry *out = bad ? NULL : fcd__malloc_array((size_t)ns / sizeof *out + 1, sizeof *out);
  asym_entry *in = bad ? NULL : fcd__malloc_array((size_t)nr / sizeof *in + 1, sizeof *in);
  bad |= !out || !in;
  if (!bad) {
    int *fill = fcd__calloc((size_t)d->size, sizeof *fill);
    bad = !fill;
    for (fcd_index i = d->rbegin; i < d->rend && !bad && !empty; i++)
      for (fcd_index p = a->rowptr[i]; p < a->rowptr[i + 1]; p++) {
        int r = owner_of(d, a->col[p]);
        if (r == d->rank) continue;
        asym_entry *e = (asym_entry *)((char *)out + sdsp[r] + fill[r]);
        *e = (asym_entry){a->col[p], i, a->val[p]};
        fill[r] += (int)sizeof(asym_entry);
      }
    fcd__free(fill);
  }
  /* every rank takes part in the exchange, even one that failed above (empty) */
  if (bad) memset(cnt, 0, (size_t)d->size * sizeof *cnt);
  bad |= MPI_Alltoallv(out, cnt, sdsp, MPI_BYTE, in, rcnt, rdsp, MPI_BYTE, d->comm) !=
         MPI_SUCCESS;
  fcd__free(out);
  fcd__free(cnt);
  *recv = in;
  *nrecv = bad ? 0 : (int)(nr / (long long)sizeof(asym_entry));
  return bad;
}

fcd_real fcd__dist_csr_asymmetry(const fcd_system *sys, const fcd__csr *a) {
  const fcd__dist *d = sys->dist;
  /* no early return: every rank takes part in the collectives whatever it holds */
  int empty = !a->set || a->upper;
  asym_entry *in = NULL;
  int nin = 0;
  int bad = asym_exchange(d, a, empty, &in, &nin);
  fcd_index nloc = empty ? 0 : a->rowptr[d->rend] - a->rowptr[d->rbegin];
  unsigned char *seen = bad ? NULL : fcd__calloc((size_t)nloc + 1, 1);
  bad |= !seen;
  fcd_real amax = 0.0, dmax = 0.0;
  if (!bad && !empty) {
    fcd_index base = a->rowptr[d->rbegin];
    for (int k = 0; k < nin; k++) {
      fcd_index q = fcd__csr_find(a, in[k].row, in[k].col);
      fcd_real mine = q >= 0 ? a->val[q] : 0.0;
      if (q >= 0) seen[q - base] = 1;
      dmax = fmax(dmax, fabs(mine - in[k].val));
    }
    for (fcd_index i = d->rbegin; i < d->rend; i++)
      for (fcd_index p = a->rowptr[i]; p < a->rowptr[i + 1]; p++) {
        fcd_index j = a->col[p];
        amax = fmax(amax, fabs(a->val[p]));
        if (j == i) continue;
        if (j >= d->rbegin && j < d->rend) {
          fcd_index q = fcd__csr_find(a, j, i);
          dmax = fmax(dmax, fabs(a->val[p] - (q >= 0 ? a->val[q] : 0.0)));
        } else if (!seen[p - base]) {
          dmax = fmax(dmax, fabs(a->val[p])); /* its mirror is not stored: zero */
        }
      }
  }
  fcd__free(in);
  fcd__free(seen);
  if (bad) dmax = NAN;
  amax = fcd__dist_max(sys, amax);
  dmax = fcd__dist_max(sys, dmax);
  return amax > 0.0 ? dmax / amax : (dmax != dmax ? NAN : 0.0);
}
