/* The free operator's factor over the ranks: MUMPS (through PETSc, or its own instance
 * with a Schur set) assembled from each rank's own rows. */
#include "petsc_backend.h"
#include "dist_private.h"

#include <dmumps_c.h>

#include <petscmat.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- MUMPS Cholesky of the free operator ----
 * Each rank holds the entries of the rows it owns; of them the upper triangle (col >=
 * row), whose union over the ranks is the whole upper triangle once (a mirrored entry of
 * upper storage lies below the diagonal), goes to an MPISBAIJ matrix. */
struct fcd__mumps {
  Mat A, F;
  Vec b, x, all;
  VecScatter gather;
  fcd_index n, fbegin, fend;
  fcd_index nsel;
  fcd_index *sel;  /* positions in the caller's value array, in matrix order */
  fcd_index nav;   /* entries of the owned rows (ai, aj, av) */
  /* An LU needs whole rows, and a rank's free pattern holds the mirrors of its upper-
   * stored entries, some in rows other ranks own: each factorization sends those values
   * to their rows' owners (the positions are fixed by the analysis). NULL apos: av[k] =
   * val[sel[k]]. */
  fcd_index *apos;           /* nsel: where the selected entries land in av */
  fcd_index nsend, *send;    /* positions in the caller's values sent, by rank */
  fcd_index nrecv, *rpos;    /* where each received value lands in av */
  int *scnt;                 /* 4 x ranks: send counts and offsets, receive counts and offsets */
  fcd_real *sbuf, *rbuf;
  PetscInt *ai, *aj;
  PetscScalar *av;
  int *fcnt, *fdsp; /* every rank's free row count and first free row (block solves) */
  /* The factor with a Schur complement (mumps_set_schur): MUMPS' own instance
   * factors A with the contact dofs sidx eliminated last and serves every solve by
   * condensation and expansion through C, the Schur complement, which MUMPS leaves over
   * the ranks and ScaLAPACK factors there (scalapack.c). PETSc's factor is then made only
   * when a solve needs it without that instance (petsc_stale: values newer than PETSc's
   * factor). */
  DMUMPS_STRUC_C *sid;
  MPI_Comm scomm;
  MUMPS_INT *sirn, *sjcn, *slist;
  fcd_index s, *sidx;
  /* On several ranks MUMPS' Schur set is the ranks' separators (ns - s dofs, a multiple of
   * the grid's P blocks) then the contact dofs: C holds that whole S, factored, and C's
   * own Schur complement is the trailing block of the factor (schur_separators). */
  fcd_index ns;
  int nosep; /* mumps_set_separators(m, 0): the contact dofs alone */
  fcd__grid C; /* open while sid is */
  int analysed;     /* the owned rows are selected (mumps_analyze) */
  int sfactored;    /* sid holds the factor of the current values */
  /* a solve in halves (mumps_condense): rank 0's right-hand side, which MUMPS'
   * expansion fills, and its reduced one; MUMPS keeps the forward elimination between */
  fcd_real *crhs, *cred;
  int condensed;
  int petsc_stale;
  /* ICNTL(14) of PETSc's factor once a factorization has needed more than MUMPS' default
   * (fcd__mumps_relax); 0 until then */
  int relax;
  /* LU instead of Cholesky (mumps_set_unsymmetric): all entries of the owned rows
   * go to MUMPS, an MPIAIJ matrix for PETSc's factor, SYM = 0 for the Schur instance */
  int unsym;
};

static void mumps_set_unsymmetric(fcd__mumps *m, int unsym) { m->unsym = unsym; }

static void mumps_set_separators(fcd__mumps *m, int on) { m->nosep = !on; }

/* the host-side arrays of an analysis (no PETSc call) */
static void arrays_free(fcd__mumps *m) {
  fcd__free(m->apos);
  fcd__free(m->send);
  fcd__free(m->rpos);
  fcd__free(m->scnt);
  fcd__free(m->sbuf);
  fcd__free(m->rbuf);
  m->apos = m->send = m->rpos = NULL;
  m->scnt = NULL;
  m->sbuf = m->rbuf = NULL;
  m->nsend = m->nrecv = 0;
  fcd__free(m->sel);
  fcd__free(m->ai);
  fcd__free(m->aj);
  fcd__free(m->av);
  fcd__free(m->fcnt);
  fcd__free(m->fdsp);
  m->sel = NULL;
  m->ai = m->aj = NULL;
  m->av = NULL;
  m->fcnt = m->fdsp = NULL;
}

/* Ends the Schur instance (collective: MUMPS' job -2); the set sidx stays. */
static void schur_end(fcd__mumps *m) {
  if (m->sid) {
    m->sid->job = -2;
    dmumps_c(m->sid);
    fcd__free(m->sid);
    m->sid = NULL;
    fcd__grid_close(&m->C);
    MPI_Comm_free(&m->scomm);
  }
  fcd__free(m->sirn);
  fcd__free(m->sjcn);
  fcd__free(m->slist);
  m->sirn = m->sjcn = m->slist = NULL;
  m->sfactored = 0;
  fcd__free(m->crhs);
  fcd__free(m->cred);
  m->crhs = m->cred = NULL;
  m->ns = 0;
  m->condensed = 0;
}

static void petsc_clear(fcd__mumps *m) {
  MatDestroy(&m->F);
  MatDestroy(&m->A);
  VecDestroy(&m->b);
  VecDestroy(&m->x);
  VecDestroy(&m->all);
  VecScatterDestroy(&m->gather);
}

static void mumps_clear(fcd__mumps *m) {
  petsc_clear(m);
  arrays_free(m);
}

static fcd_status mumps_create(const fcd_system *sys, fcd__mumps **out) {
  *out = fcd__calloc(1, sizeof **out);
  return *out ? FCD_OK : fcd__err(sys, FCD_E_NOMEM, "out of memory creating a factor");
}

static void mumps_destroy(const fcd_system *sys, fcd__mumps *m) {
  if (!m) return;
  if (m->A || m->F) {
    /* destruction of PETSc objects needs PETSc (and is collective on the matrix' ranks,
     * which destroy their factors together as they made them) */
    if (fcd__petsc_acquire(sys) == FCD_OK) {
      mumps_clear(m);
      fcd__petsc_release();
    }
  }
  schur_end(m);
  fcd__free(m->sidx);
  arrays_free(m);
  fcd__free(m);
}

/* Local preparation (no collective): the upper entries of the owned rows (all of them
 * for an LU). */
static fcd_status select_entries(fcd__mumps *m, const fcd_system *sys, fcd_index n,
                                 const fcd_index *rowptr, const fcd_index *col) {
  if (n != sys->nfree)
    return fcd__err(sys, FCD_E_INTERNAL, "a distributed factor of %lld rows is not one of "
                    "the free operator (%lld free dofs)", (long long)n, (long long)sys->nfree);
  if (n > PETSC_MAX_INT || rowptr[n] > PETSC_MAX_INT)
    return fcd__err(sys, FCD_E_UNSUPPORTED, "%lld rows or %lld entries exceed PETSc's %d-bit "
                    "indices", (long long)n, (long long)rowptr[n], (int)(8 * sizeof(PetscInt)));
  fcd__rows_free_range(sys, &m->fbegin, &m->fend);
  fcd_index nl = m->fend - m->fbegin, cnt = 0;
  for (fcd_index i = m->fbegin; i < m->fend; i++)
    for (fcd_index p = rowptr[i]; p < rowptr[i + 1]; p++) cnt += m->unsym || col[p] >= i;
  m->sel = fcd__malloc_array((size_t)cnt + 1, sizeof *m->sel);
  m->ai = fcd__malloc_array((size_t)nl + 1, sizeof *m->ai);
  m->aj = fcd__malloc_array((size_t)cnt + 1, sizeof *m->aj);
  m->av = fcd__malloc_array((size_t)cnt + 1, sizeof *m->av);
  if (!m->sel || !m->ai || !m->aj || !m->av)
    return fcd__err(sys, FCD_E_NOMEM, "out of memory preparing a distributed factor");
  cnt = 0;
  m->ai[0] = 0;
  for (fcd_index i = m->fbegin; i < m->fend; i++) {
    for (fcd_index p = rowptr[i]; p < rowptr[i + 1]; p++)
      if (m->unsym || col[p] >= i) {
        m->sel[cnt] = p;
        m->aj[cnt++] = (PetscInt)col[p];
      }
    m->ai[i - m->fbegin + 1] = (PetscInt)cnt;
  }
  m->nsel = m->nav = cnt;
  m->n = n;
  return FCD_OK;
}

/* the rank owning free row `row` (the ranks' free rows are consecutive blocks) */
static int free_owner(const fcd__mumps *m, int size, fcd_index row) {
  int lo = 0, hi = size - 1;
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    if (m->fdsp[mid] <= row) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/* the owned rows' CSR from the selected entries and the received (row, col) pairs, and
 * where each of them lands */
static fcd_status merge_rows(fcd__mumps *m, const int64_t *rpair) {
  fcd_index nl = m->fend - m->fbegin, nt = m->nsel + m->nrecv, t = 0, *rp = NULL, *cl = NULL;
  fcd_index *ri = fcd__malloc_array((size_t)nt + 1, sizeof *ri);
  fcd_index *ci = fcd__malloc_array((size_t)nt + 1, sizeof *ci);
  fcd_index *pos = fcd__malloc_array((size_t)nt + 1, sizeof *pos);
  fcd_status st = ri && ci && pos ? FCD_OK : FCD_E_NOMEM;
  for (fcd_index i = 0; st == FCD_OK && i < nl; i++)
    for (PetscInt p = m->ai[i]; p < m->ai[i + 1]; p++) {
      ri[t] = i;
      ci[t++] = m->aj[p];
    }
  for (fcd_index k = 0; st == FCD_OK && k < m->nrecv; k++) {
    ri[t] = (fcd_index)rpair[2 * k] - m->fbegin;
    ci[t++] = (fcd_index)rpair[2 * k + 1];
  }
  /* square in the global columns: the rows past nl stay empty */
  if (st == FCD_OK) st = fcd__coo_to_csr(m->n, nt, ri, ci, NULL, &rp, &cl, NULL, pos);
  PetscInt *ai = NULL, *aj = NULL;
  PetscScalar *av = NULL;
  if (st == FCD_OK) {
    ai = fcd__malloc_array((size_t)nl + 1, sizeof *ai);
    aj = fcd__malloc_array((size_t)rp[nl] + 1, sizeof *aj);
    av = fcd__malloc_array((size_t)rp[nl] + 1, sizeof *av);
    m->apos = fcd__malloc_array((size_t)m->nsel + 1, sizeof *m->apos);
    m->rpos = fcd__malloc_array((size_t)m->nrecv + 1, sizeof *m->rpos);
    if (!ai || !aj || !av || !m->apos || !m->rpos) st = FCD_E_NOMEM;
  }
  if (st == FCD_OK) {
    for (fcd_index i = 0; i <= nl; i++) ai[i] = (PetscInt)rp[i];
    for (fcd_index p = 0; p < rp[nl]; p++) aj[p] = (PetscInt)cl[p];
    memcpy(m->apos, pos, (size_t)m->nsel * sizeof *pos);
    memcpy(m->rpos, pos + m->nsel, (size_t)m->nrecv * sizeof *pos);
    fcd__free(m->ai);
    fcd__free(m->aj);
    fcd__free(m->av);
    m->ai = ai;
    m->aj = aj;
    m->av = av;
    m->nav = rp[nl];
    ai = aj = NULL;
    av = NULL;
  }
  fcd__free(ai);
  fcd__free(aj);
  fcd__free(av);
  fcd__free(ri);
  fcd__free(ci);
  fcd__free(pos);
  fcd__free(rp);
  fcd__free(cl);
  return st;
}

/* For an LU: the entries of this rank's free pattern in rows other ranks own (mirrors
 * of its upper-stored entries) go to those owners, once as (row, col) pairs; the owned
 * rows are rebuilt with what every rank sent, duplicates summed. Collective. */
static fcd_status mirror_setup(fcd__mumps *m, const fcd_system *sys, const fcd_index *rowptr,
                               const fcd_index *col) {
  int size = sys->dist->size;
  MPI_Comm comm = sys->dist->comm;
  fcd_index n = m->n;
  m->scnt = fcd__calloc(4 * (size_t)size, sizeof *m->scnt);
  int bad = !m->scnt;
  if (fcd__dist_any(sys, bad))
    return fcd__err(sys, FCD_E_NOMEM, "out of memory gathering the rows of a distributed LU");
  int *sdsp = m->scnt + size, *rcnt = sdsp + size, *rdsp = rcnt + size;
  for (fcd_index i = 0; i < n; i++)
    if (i < m->fbegin || i >= m->fend)
      m->scnt[free_owner(m, size, i)] += (int)(rowptr[i + 1] - rowptr[i]);
  if (fcd__dist_any(sys, MPI_Alltoall(m->scnt, 1, MPI_INT, rcnt, 1, MPI_INT, comm) != MPI_SUCCESS))
    return fcd__err(sys, FCD_E_BACKEND, "exchanging the mirrored entries' counts failed");
  m->nsend = m->nrecv = 0;
  for (int r = 0; r < size; r++) {
    sdsp[r] = (int)m->nsend;
    rdsp[r] = (int)m->nrecv;
    m->nsend += m->scnt[r];
    m->nrecv += rcnt[r];
  }
  m->send = fcd__malloc_array((size_t)m->nsend + 1, sizeof *m->send);
  m->sbuf = fcd__malloc_array((size_t)m->nsend + 1, sizeof *m->sbuf);
  m->rbuf = fcd__malloc_array((size_t)m->nrecv + 1, sizeof *m->rbuf);
  int64_t *spair = fcd__malloc_array(2 * (size_t)m->nsend + 1, sizeof *spair);
  int64_t *rpair = fcd__malloc_array(2 * (size_t)m->nrecv + 1, sizeof *rpair);
  int *c2 = fcd__malloc_array(4 * (size_t)size, sizeof *c2);
  fcd_status st = FCD_OK;
  bad = !m->send || !m->sbuf || !m->rbuf || !spair || !rpair || !c2;
  if (!bad) {
    /* grouped by destination: the rows ascend, and so do their owners */
    fcd_index j = 0;
    for (fcd_index i = 0; i < n; i++)
      if (i < m->fbegin || i >= m->fend)
        for (fcd_index p = rowptr[i]; p < rowptr[i + 1]; p++, j++) {
          m->send[j] = p;
          spair[2 * j] = i;
          spair[2 * j + 1] = col[p];
        }
    for (int r = 0; r < 4 * size; r++) c2[r] = 2 * m->scnt[r];
  }
  if (fcd__dist_any(sys, bad))
    st = fcd__err(sys, FCD_E_NOMEM, "out of memory gathering the rows of a distributed LU");
  else if (fcd__dist_any(sys, MPI_Alltoallv(spair, c2, c2 + size, MPI_INT64_T, rpair,
                                            c2 + 2 * size, c2 + 3 * size, MPI_INT64_T,
                                            comm) != MPI_SUCCESS))
    st = fcd__err(sys, FCD_E_BACKEND, "exchanging the mirrored entries failed");
  else if (fcd__dist_any(sys, merge_rows(m, rpair) != FCD_OK))
    st = fcd__err(sys, FCD_E_NOMEM, "out of memory gathering the rows of a distributed LU");
  fcd__free(spair);
  fcd__free(rpair);
  fcd__free(c2);
  return st;
}

/* The owned rows' values from the caller's (collective for an LU). */
static fcd_status gather_values(fcd__mumps *m, const fcd_system *sys, const fcd_real *val) {
  if (!m->apos) {
    for (fcd_index k = 0; k < m->nsel; k++) m->av[k] = val[m->sel[k]];
    return FCD_OK;
  }
  int size = sys->dist->size;
  memset(m->av, 0, (size_t)m->nav * sizeof *m->av);
  for (fcd_index k = 0; k < m->nsel; k++) m->av[m->apos[k]] += val[m->sel[k]];
  for (fcd_index j = 0; j < m->nsend; j++) m->sbuf[j] = val[m->send[j]];
  if (fcd__dist_any(sys, MPI_Alltoallv(m->sbuf, m->scnt, m->scnt + size, MPI_DOUBLE, m->rbuf,
                                       m->scnt + 2 * size, m->scnt + 3 * size, MPI_DOUBLE,
                                       sys->dist->comm) != MPI_SUCCESS))
    return fcd__err(sys, FCD_E_BACKEND, "sending the mirrored entries' values failed");
  for (fcd_index j = 0; j < m->nrecv; j++) m->av[m->rpos[j]] += m->rbuf[j];
  return FCD_OK;
}

static fcd_status mumps_analyze(fcd__mumps *m, const fcd_system *sys, fcd_index n,
                              const fcd_index *rowptr, const fcd_index *col,
                              const fcd_real *val) {
  (void)val;
  schur_end(m);
  m->analysed = 0;
  if (m->A || m->F) {
    FCD_TRY(fcd__petsc_acquire(sys));
    mumps_clear(m);
    fcd__petsc_release();
  }
  arrays_free(m);
  fcd_status st = select_entries(m, sys, n, rowptr, col);
  if (st == FCD_OK) {
    m->fcnt = fcd__malloc_array((size_t)sys->dist->size, sizeof *m->fcnt);
    m->fdsp = fcd__malloc_array((size_t)sys->dist->size, sizeof *m->fdsp);
    if (!m->fcnt || !m->fdsp)
      st = fcd__err(sys, FCD_E_NOMEM, "out of memory preparing a distributed factor");
  }
  st = fcd__dist_agree(sys, st, 0, "distributed factor analysis");
  if (st != FCD_OK) return st;
  int pair[2] = {(int)(m->fend - m->fbegin), (int)m->fbegin}, *all = NULL;
  all = fcd__malloc_array(2 * (size_t)sys->dist->size, sizeof *all);
  int bad = !all || MPI_Allgather(pair, 2, MPI_INT, all ? all : pair, 2, MPI_INT,
                                  sys->dist->comm) != MPI_SUCCESS;
  for (int r = 0; !bad && r < sys->dist->size; r++) {
    m->fcnt[r] = all[2 * r];
    m->fdsp[r] = all[2 * r + 1];
  }
  fcd__free(all);
  if (fcd__dist_any(sys, bad))
    return fcd__err(sys, FCD_E_BACKEND, "gathering the free row blocks of the ranks failed");
  if (m->unsym) FCD_TRY(mirror_setup(m, sys, rowptr, col));
  m->analysed = 1;
  return FCD_OK;
}

/* PETSc's matrix and MUMPS factor of the owned rows, with its symbolic analysis: made by
 * the first factorization that needs them (none while the Schur instance serves every
 * solve, which saved 1.3 s of 32 at 102,675 dofs on one rank). Collective. */
static fcd_status petsc_setup(fcd__mumps *m, const fcd_system *sys) {
  FCD_TRY(fcd__petsc_acquire(sys));
  fcd_status st;
  PetscErrorCode e = 0;
  const char *what = "";
  MPI_Comm comm = sys->dist->comm;
  PetscInt nl = (PetscInt)(m->fend - m->fbegin), N = (PetscInt)m->n;
  P(MatCreate(comm, &m->A));
  P(MatSetSizes(m->A, nl, nl, N, N));
  if (m->unsym) {
    P(MatSetType(m->A, MATMPIAIJ));
    P(MatMPIAIJSetPreallocationCSR(m->A, m->ai, m->aj, m->av));
  } else {
    P(MatSetType(m->A, MATMPISBAIJ));
    P(MatMPISBAIJSetPreallocationCSR(m->A, 1, m->ai, m->aj, m->av));
  }
  P(MatSetOption(m->A, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE));
  P(MatGetFactor(m->A, MATSOLVERMUMPS, m->unsym ? MAT_FACTOR_LU : MAT_FACTOR_CHOLESKY, &m->F));
  /* Sequential analysis with SCOTCH's nested dissection (the ordering Debian's MUMPS
   * offers for 3D meshes; no METIS): the same ordering at every rank count, so the
   * results of 1, 2 or 3 ranks differ by round-off only. The root node is not given to
   * ScaLAPACK (ICNTL(13) = 1) so that INFOG(12), the count of negative pivots, covers
   * it: that count is how a distributed Cholesky detects an operator that is not
   * positive definite. MUMPS prints nothing (ICNTL(1..4)). */
  P(MatMumpsSetIcntl(m->F, 1, -1));
  P(MatMumpsSetIcntl(m->F, 2, -1));
  P(MatMumpsSetIcntl(m->F, 3, -1));
  P(MatMumpsSetIcntl(m->F, 4, 0));
  P(MatMumpsSetIcntl(m->F, 28, 1));
  P(MatMumpsSetIcntl(m->F, 7, 3));
  P(MatMumpsSetIcntl(m->F, 13, 1));
  if (m->relax > 0) P(MatMumpsSetIcntl(m->F, 14, m->relax));
  {
    MatFactorInfo info;
    P(MatFactorInfoInitialize(&info));
    if (m->unsym)
      P(MatLUFactorSymbolic(m->F, m->A, NULL, NULL, &info));
    else
      P(MatCholeskyFactorSymbolic(m->F, m->A, NULL, &info));
  }
  P(MatCreateVecs(m->A, &m->x, &m->b));
  P(VecScatterCreateToAll(m->x, &m->gather, &m->all));
  fcd__petsc_release();
  return FCD_OK;
petsc_error:
  st = fcd__petsc_fail(sys, e, what);
  petsc_clear(m); /* the selection stays: a later factorization tries again */
  fcd__petsc_release();
  return st;
}

static fcd_status schur_factor(fcd__mumps *m, const fcd_system *sys);
static fcd_status petsc_factor(fcd__mumps *m, const fcd_system *sys);

static fcd_status mumps_factor(fcd__mumps *m, const fcd_system *sys, const fcd_real *val) {
  if (!m->analysed)
    return fcd__err(sys, FCD_E_STATE, "distributed factor used before its analysis");
  FCD_TRY(gather_values(m, sys, val));
  m->sfactored = 0;
  m->petsc_stale = 1;
  if (m->s > 0) return schur_factor(m, sys);
  return petsc_factor(m, sys);
}

static fcd_status petsc_numeric(fcd__mumps *m, const fcd_system *sys, int *again);

/* PETSc's numeric factorization of the values in m->av. PETSc's MUMPS factor refuses
 * every later factorization once one has failed (it takes the failure for the analysis'),
 * so a failed factor is destroyed and the next one starts from the analysis: at once with
 * a larger ICNTL(14) when the workspace was short, else at the caller's next values. */
static fcd_status petsc_factor(fcd__mumps *m, const fcd_system *sys) {
  int again;
  do {
    if (!m->A) FCD_TRY(petsc_setup(m, sys));
    FCD_TRY(petsc_numeric(m, sys, &again));
  } while (again);
  return FCD_OK;
}

static fcd_status petsc_numeric(fcd__mumps *m, const fcd_system *sys, int *again) {
  *again = 0;
  FCD_TRY(fcd__petsc_acquire(sys));
  int failed = 0;
  PetscErrorCode e = 0;
  const char *what = "";
  fcd_status st = FCD_OK;
  {
    PetscInt nl = (PetscInt)(m->fend - m->fbegin);
    for (PetscInt i = 0; i < nl; i++) {
      PetscInt row = (PetscInt)m->fbegin + i, cnt = m->ai[i + 1] - m->ai[i];
      if (cnt)
        P(MatSetValues(m->A, 1, &row, cnt, m->aj + m->ai[i], m->av + m->ai[i],
                       INSERT_VALUES));
    }
    P(MatAssemblyBegin(m->A, MAT_FINAL_ASSEMBLY));
    P(MatAssemblyEnd(m->A, MAT_FINAL_ASSEMBLY));
    MatFactorInfo info;
    P(MatFactorInfoInitialize(&info));
    if (m->unsym)
      P(MatLUFactorNumeric(m->F, m->A, &info));
    else
      P(MatCholeskyFactorNumeric(m->F, m->A, &info));
    MatFactorError ferr;
    P(MatFactorGetError(m->F, &ferr));
    PetscInt info1 = 0, nneg = 0;
    P(MatMumpsGetInfog(m->F, 1, &info1));
    P(MatMumpsGetInfog(m->F, 12, &nneg));
    /* INFOG is global: every rank takes the same branch */
    PetscInt relax = 0;
    failed = ferr != MAT_FACTOR_NOERROR || info1 < 0; /* not a count of negative pivots */
    if (info1 < 0) P(MatMumpsGetIcntl(m->F, 14, &relax));
    int r14 = (int)relax;
    char why[96];
    if (info1 < 0 && fcd__mumps_relax(&r14, (int)info1)) {
      m->relax = r14;
      *again = 1;
    } else if (failed)
      st = (info1 == -10 || ferr == MAT_FACTOR_NUMERIC_ZEROPIVOT) && m->unsym
               ? fcd__err(sys, FCD_E_SINGULAR, "MUMPS' LU finds the non-symmetric operator "
                          "numerically singular (INFOG(1) = %d)", (int)info1)
           : info1 == -10 || ferr == MAT_FACTOR_NUMERIC_ZEROPIVOT
               ? fcd__err(sys, FCD_E_NOT_SPD, "not positive definite on the free dofs: "
                          "MUMPS finds the operator numerically singular (INFOG(1) = %d)",
                          (int)info1)
               : fcd__err(sys, fcd__mumps_failure((int)info1, r14, why, sizeof why),
                          "MUMPS %s failed: INFOG(1) = %d%s", m->unsym ? "LU" : "Cholesky",
                          (int)info1, why);
    /* INFOG(12) counts negative pivots of a symmetric factorization only */
    else if (nneg > 0 && !m->unsym)
      st = fcd__err(sys, FCD_E_NOT_SPD, "not positive definite on the free dofs: %d "
                    "negative pivots in the distributed Cholesky (MUMPS INFOG(12))",
                    (int)nneg);
  }
  if (st == FCD_OK && !*again) m->petsc_stale = 0;
  if (failed) petsc_clear(m);
  fcd__petsc_release();
  return st;
petsc_error:
  st = fcd__petsc_fail(sys, e, what);
  fcd__petsc_release();
  return st;
}

/* nrhs > 1: one MatMatSolve of dense blocks (MUMPS solves them together, far faster
 * than one by one), then every rank receives the whole solution in one gather of the
 * rows each rank owns, row-major so that each rank's part is contiguous. */
static PetscErrorCode solve_block(fcd__mumps *m, MPI_Comm comm, int size, fcd_index nrhs,
                                  const fcd_real *b, fcd_real *x, fcd_real *t, fcd_real *g) {
  fcd_index n = m->n, nl = m->fend - m->fbegin;
  Mat B = NULL, X = NULL;
  PetscScalar *a;
  const PetscScalar *r;
  PetscInt lda;
  PetscErrorCode e = MatCreateDense(comm, (PetscInt)nl, PETSC_DECIDE, (PetscInt)n,
                                    (PetscInt)nrhs, NULL, &B);
  if (!e) e = MatDenseGetLDA(B, &lda);
  if (!e) e = MatDenseGetArrayWrite(B, &a);
  if (e) goto out;
  for (fcd_index k = 0; k < nrhs; k++)
    memcpy(a + k * lda, b + k * n + m->fbegin, (size_t)nl * sizeof *a);
  if ((e = MatDenseRestoreArrayWrite(B, &a))) goto out;
  if (!e) e = MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY);
  if (!e) e = MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY);
  if (!e) e = MatDuplicate(B, MAT_DO_NOT_COPY_VALUES, &X);
  if (!e) e = MatMatSolve(m->F, B, X);
  if (!e) e = MatDenseGetLDA(X, &lda);
  if (!e) e = MatDenseGetArrayRead(X, &r);
  if (e) goto out;
  for (fcd_index i = 0; i < nl; i++)
    for (fcd_index k = 0; k < nrhs; k++) t[i * nrhs + k] = r[k * lda + i];
  if ((e = MatDenseRestoreArrayRead(X, &r))) goto out;
  {
    int *cnt = fcd__malloc_array((size_t)size, sizeof *cnt);
    int *dsp = fcd__malloc_array((size_t)size, sizeof *dsp);
    if (!cnt || !dsp) e = PETSC_ERR_MEM;
    for (int q = 0; !e && q < size; q++) {
      cnt[q] = m->fcnt[q] * (int)nrhs;
      dsp[q] = m->fdsp[q] * (int)nrhs;
    }
    if (!e && MPI_Allgatherv(t, (int)(nl * nrhs), MPI_DOUBLE, g, cnt, dsp, MPI_DOUBLE, comm))
      e = PETSC_ERR_MPI;
    fcd__free(cnt);
    fcd__free(dsp);
  }
  if (!e)
    for (fcd_index i = 0; i < n; i++)
      for (fcd_index k = 0; k < nrhs; k++) x[k * n + i] = g[i * nrhs + k];
out:
  MatDestroy(&B);
  MatDestroy(&X);
  return e;
}

static fcd_status schur_solve(fcd__mumps *m, const fcd_system *sys, fcd_index nrhs,
                              const fcd_real *b, fcd_real *x);

static fcd_status mumps_solve(fcd__mumps *m, const fcd_system *sys, fcd_index nrhs,
                            const fcd_real *b, fcd_real *x) {
  if (m->sfactored) return schur_solve(m, sys, nrhs, b, x);
  /* the values were factored by the Schur instance only, which has ended since */
  if (m->petsc_stale) FCD_TRY(petsc_factor(m, sys));
  if (nrhs > 1) {
    fcd_index n = m->n, nl = m->fend - m->fbegin;
    /* At most 64 columns at a time: a block's buffers (PETSc's dense B
     * and X, the transposed local rows, the gathered rows) cost 4 n columns each, and
     * an integrator's active set can ask for thousands of columns at once (4,107 at
     * 100k dofs: 17 GB in one block, out of memory on two ranks). 64 columns already
     * make MUMPS' solve a matrix-matrix one. */
    fcd_index blk = 64;
    /* MPI counts are int: a gathered block holds at most 2^31 - 1 entries */
    if ((double)n * (double)blk > 2e9) blk = (fcd_index)(2e9 / (double)n) + 1;
    if (nrhs > blk) {
      for (fcd_index j = 0; j < nrhs; j += blk) {
        fcd_index nb = nrhs - j < blk ? nrhs - j : blk;
        FCD_TRY(mumps_solve(m, sys, nb, b + j * n, x + j * n));
      }
      return FCD_OK;
    }
    fcd_real *t = fcd__malloc_array((size_t)(nl * nrhs) + 1, sizeof *t);
    fcd_real *g = fcd__malloc_array((size_t)(n * nrhs) + 1, sizeof *g);
    int bad = !t || !g;
    fcd_status st = FCD_OK;
    if (fcd__dist_any(sys, bad)) {
      st = fcd__err(sys, FCD_E_NOMEM, "out of memory for a block of %lld right-hand sides",
                    (long long)nrhs);
    } else if ((st = fcd__petsc_acquire(sys)) == FCD_OK) {
      PetscErrorCode e = solve_block(m, sys->dist->comm, sys->dist->size, nrhs, b, x, t, g);
      if (e) st = fcd__petsc_fail(sys, e, "a block solve (MatMatSolve)");
      fcd__petsc_release();
    }
    fcd__free(t);
    fcd__free(g);
    return st;
  }
  FCD_TRY(fcd__petsc_acquire(sys));
  PetscErrorCode e = 0;
  const char *what = "";
  fcd_index n = m->n, nl = m->fend - m->fbegin;
  for (fcd_index k = 0; k < nrhs; k++) {
    PetscScalar *a;
    const PetscScalar *r;
    P(VecGetArray(m->b, &a));
    memcpy(a, b + k * n + m->fbegin, (size_t)nl * sizeof *a);
    P(VecRestoreArray(m->b, &a));
    P(MatSolve(m->F, m->b, m->x));
    P(VecScatterBegin(m->gather, m->x, m->all, INSERT_VALUES, SCATTER_FORWARD));
    P(VecScatterEnd(m->gather, m->x, m->all, INSERT_VALUES, SCATTER_FORWARD));
    P(VecGetArrayRead(m->all, &r));
    memcpy(x + k * n, r, (size_t)n * sizeof *x);
    P(VecRestoreArrayRead(m->all, &r));
  }
  fcd__petsc_release();
  return FCD_OK;
petsc_error:;
  fcd_status st = fcd__petsc_fail(sys, e, what);
  fcd__petsc_release();
  return st;
}

/* ---- Schur complements on the contact dofs ----
 * (A^-1)[idx, idx] is the inverse of C = A_ss - A_si A_ii^-1 A_is, the Schur complement of
 * A on idx. A MUMPS instance of its own factors A with idx eliminated last and leaves C
 * over the ranks (ICNTL(19) = 3), where ScaLAPACK factors it and each rank solves for its
 * own columns of C^-1 (scalapack.c), which stay there (delassus.c sums the Delassus
 * operator's shares). Measured on a 32k-dof block with 1,875 contact dofs (C then
 * centralized on rank 0): the factorization takes 1.9 s on one rank and 1.4 s on two (3x
 * the flops of A's own: the contact dofs eliminated last widen the fronts), where 1,875
 * solves through the whole factor took 7 s on either (dense columns, MatMatSolve) and
 * selected entries of the inverse (MUMPS ICNTL(30)) 3.1 s on either. PETSc 3.18 refuses
 * Schur complements on several ranks, hence MUMPS' own interface. The same instance solves
 * by condensation and expansion (ICNTL(26)) through the factor of C, so a factor with a
 * Schur set (mumps_set_schur) needs no PETSc factor. */

/* rank 0's total values of x to every rank, in pieces (MPI counts are int) */
static fcd_status bcast_root(const fcd_system *sys, fcd_real *x, size_t total) {
  size_t piece = (size_t)1 << 28;
  int bad = 0;
  for (size_t o = 0; o < total && !bad; o += piece) {
    size_t c = total - o < piece ? total - o : piece;
    bad = MPI_Bcast(x + o, (int)c, MPI_DOUBLE, 0, sys->dist->comm) != MPI_SUCCESS;
  }
  if (fcd__dist_any(sys, bad))
    return fcd__err(sys, FCD_E_BACKEND, "broadcasting from rank 0 failed");
  return FCD_OK;
}

/* MUMPS' status after a call on every rank (INFOG is global) */
static fcd_status schur_status(const fcd_system *sys, const DMUMPS_STRUC_C *id, fcd_index s,
                               const char *phase) {
  int info = id->infog[0];
  if (info == -10 && id->sym == 0)
    return fcd__err(sys, FCD_E_SINGULAR, "MUMPS' LU finds the non-symmetric operator "
                    "numerically singular (INFOG(1) = -10)");
  if (info == -10)
    return fcd__err(sys, FCD_E_NOT_SPD, "not positive definite on the free dofs: MUMPS "
                    "finds the operator numerically singular (INFOG(1) = -10)");
  if (info < 0) {
    char why[96];
    return fcd__err(sys, fcd__mumps_failure(info, id->icntl[13], why, sizeof why),
                    "MUMPS' %s with the Schur complement of %lld contact dofs failed: "
                    "INFOG(1) = %d, INFOG(2) = %d%s", phase, (long long)s, info,
                    (int)id->infog[1], why);
  }
  if (id->infog[11] > 0 && id->sym != 0)
    return fcd__err(sys, FCD_E_NOT_SPD, "not positive definite on the free dofs: %d "
                    "negative pivots in the distributed Cholesky (MUMPS INFOG(12))",
                    (int)id->infog[11]);
  return FCD_OK;
}

/* The whole pattern of the ranks' nl triples (irn, jcn) on rank 0, for MUMPS' analysis
 * (ICNTL(18) = 2); *g_irn stays NULL (and the caller keeps the pattern distributed,
 * ICNTL(18) = 3) when the entries overflow MPI's int counts. Collective. */
static fcd_status gather_pattern(const fcd_system *sys, const MUMPS_INT *irn,
                                 const MUMPS_INT *jcn, fcd_index nl, MUMPS_INT **g_irn,
                                 MUMPS_INT **g_jcn, MUMPS_INT8 *g_nnz) {
  int size = sys->dist->size, root = sys->dist->rank == 0;
  long long mine = (long long)nl, *cnt = NULL;
  int *icnt = NULL, *disp = NULL, bad = 0;
  *g_irn = *g_jcn = NULL;
  *g_nnz = 0;
  if (root) {
    cnt = fcd__malloc_array((size_t)size, sizeof *cnt);
    icnt = fcd__malloc_array((size_t)size, sizeof *icnt);
    disp = fcd__malloc_array((size_t)size, sizeof *disp);
    bad = !cnt || !icnt || !disp;
  }
  fcd_status st = FCD_OK;
  if (fcd__dist_any(sys, bad)) {
    st = fcd__err(sys, FCD_E_NOMEM, "out of memory gathering the pattern for MUMPS");
    goto done;
  }
  bad = MPI_Gather(&mine, 1, MPI_LONG_LONG, cnt, 1, MPI_LONG_LONG, 0, sys->dist->comm) !=
        MPI_SUCCESS;
  long long total = 0;
  for (int r = 0; root && r < size; r++) total += cnt[r];
  int fits = total <= INT_MAX;
  if (fcd__dist_any(sys, bad)) {
    st = fcd__err(sys, FCD_E_BACKEND, "gathering the pattern's sizes for MUMPS failed");
    goto done;
  }
  if (MPI_Bcast(&fits, 1, MPI_INT, 0, sys->dist->comm) != MPI_SUCCESS || !fits) goto done;
  if (root) {
    for (int r = 0, o = 0; r < size; o += (int)cnt[r], r++) {
      icnt[r] = (int)cnt[r];
      disp[r] = o;
    }
    *g_irn = fcd__malloc_array((size_t)total + 1, sizeof **g_irn);
    *g_jcn = fcd__malloc_array((size_t)total + 1, sizeof **g_jcn);
    bad = !*g_irn || !*g_jcn;
  }
  if (fcd__dist_any(sys, bad)) {
    st = fcd__err(sys, FCD_E_NOMEM, "out of memory gathering the %lld-entry pattern for "
                  "MUMPS on rank 0", total);
    goto done;
  }
  bad = MPI_Gatherv(irn, (int)nl, MPI_INT, *g_irn, icnt, disp, MPI_INT, 0,
                    sys->dist->comm) != MPI_SUCCESS ||
        MPI_Gatherv(jcn, (int)nl, MPI_INT, *g_jcn, icnt, disp, MPI_INT, 0,
                    sys->dist->comm) != MPI_SUCCESS;
  if (fcd__dist_any(sys, bad))
    st = fcd__err(sys, FCD_E_BACKEND, "gathering the pattern for MUMPS failed");
  *g_nnz = (MUMPS_INT8)total;
done:
  if (st != FCD_OK) {
    fcd__free(*g_irn);
    fcd__free(*g_jcn);
    *g_irn = *g_jcn = NULL;
  }
  fcd__free(cnt);
  fcd__free(icnt);
  fcd__free(disp);
  return st;
}

/* On rank 0, when it holds the whole pattern: *pos, the pivot order for MUMPS (ICNTL(7) =
 * 1), METIS' nested dissection of the dofs outside the Schur set, the set last (each
 * subdomain ordered on its rank when there are nparts > 0: rank 0 took 0.34 s for the
 * whole at 100k dofs). MUMPS' own choice here (its SCOTCH, or AMD where it has none, as
 * Debian's 5.5) is a minimum degree order on this 3D block: 8.0e11 flops at 100k dofs.
 * *pos stays NULL (MUMPS orders) when METIS gives no order. Collective. */
static fcd_status nd_order(const fcd_system *sys, fcd_index n, const MUMPS_INT *irn,
                           const MUMPS_INT *jcn, MUMPS_INT8 nnz, fcd_index s,
                           const MUMPS_INT *last, const int *parts, int nparts,
                           MUMPS_INT **pos) {
  *pos = irn ? fcd__malloc_array((size_t)n + 1, sizeof **pos) : NULL;
  if (fcd__dist_any(sys, irn && !*pos))
    return fcd__err(sys, FCD_E_NOMEM, "out of memory for MUMPS' pivot order");
  int nd = 0;
  fcd_status st = fcd__nd_parts(sys, sys->dist->comm, nparts, n, (size_t)nnz, irn, jcn,
                                parts, s, last, *pos, &nd);
  if (st != FCD_OK || !nd) {
    fcd__free(*pos);
    *pos = NULL;
  }
  return st;
}

static fcd_status schur_separators(fcd__mumps *m, const fcd_system *sys, const MUMPS_INT *g_irn,
                                   const MUMPS_INT *g_jcn, MUMPS_INT8 g_nnz, int **parts,
                                   int *nparts) {
  int P = sys->dist->size, levels = 0;
  long long ns = (long long)m->s;
  m->ns = m->s;
  *parts = NULL;
  *nparts = 0;
  if (P < 2 || P > FCD__SEP_MAX_RANKS || m->unsym || m->nosep) return FCD_OK;
  while ((1 << levels) < P) levels++;
  int *sep = NULL, bad = 0;
  if (g_irn) {
    fcd_index nsep = 0, n = m->n, s = m->s;
    sep = fcd__malloc_array((size_t)n + 1, sizeof *sep);
    *parts = fcd__malloc_array((size_t)n + 1, sizeof **parts);
    fcd_status st = sep && *parts
                        ? fcd__metis_separators(sys, n, (size_t)g_nnz, g_irn, g_jcn, s,
                                                m->slist, levels, (fcd_index)P * FCD__GRID_NB,
                                                sep, &nsep, *parts)
                        : FCD_E_NOMEM;
    MUMPS_INT *list = st == FCD_OK && nsep > 0
                          ? fcd__malloc_array((size_t)(nsep + s) + 1, sizeof *list)
                          : NULL;
    bad = st != FCD_OK || (nsep > 0 && !list);
    if (list) {
      memcpy(list, sep, (size_t)nsep * sizeof *list);
      memcpy(list + nsep, m->slist, (size_t)s * sizeof *list);
      fcd__free(m->slist);
      m->slist = list;
      ns = (long long)(nsep + s);
    }
  }
  fcd__free(sep);
  if (fcd__dist_any(sys, bad)) {
    fcd__free(*parts);
    *parts = NULL;
    return fcd__err(sys, FCD_E_NOMEM, "out of memory separating the ranks' subdomains");
  }
  if (fcd__dist_any(sys, MPI_Bcast(&ns, 1, MPI_LONG_LONG, 0, sys->dist->comm) != MPI_SUCCESS))
    return fcd__err(sys, FCD_E_BACKEND, "broadcasting the Schur set's size failed");
  m->ns = (fcd_index)ns;
  if (m->ns > m->s) *nparts = 1 << levels;
  return FCD_OK;
}

/* Starts id on m->scomm, a duplicate of the communicator, and analyses A (the owned upper
 * rows of m) with the s dofs m->slist (1-based, rank 0) eliminated last. */
static fcd_status schur_start(fcd__mumps *m, const fcd_system *sys, DMUMPS_STRUC_C *id,
                              fcd_index s) {
  fcd_index nl = m->fend - m->fbegin;
  MUMPS_INT *irn = m->sirn, *jcn = m->sjcn;
  MPI_Comm *comm = &m->scomm;
  for (fcd_index i = 0; i < nl; i++)
    for (PetscInt p = m->ai[i]; p < m->ai[i + 1]; p++) {
      irn[p] = (MUMPS_INT)(m->fbegin + i + 1);
      jcn[p] = (MUMPS_INT)(m->aj[p] + 1);
    }
  /* MUMPS does not duplicate the communicator it is given */
  if (fcd__dist_any(sys, MPI_Comm_dup(sys->dist->comm, comm) != MPI_SUCCESS))
    return fcd__err(sys, FCD_E_BACKEND, "duplicating the communicator for MUMPS failed");
  memset(id, 0, sizeof *id);
  id->comm_fortran = (MUMPS_INT)MPI_Comm_c2f(*comm);
  id->par = 1;
  id->sym = m->unsym ? 0 : 1;
  id->job = -1;
  dmumps_c(id);
  if (id->infog[0] < 0) {
    MPI_Comm_free(comm);
    return schur_status(sys, id, s, "start");
  }
  /* The pattern for the analysis, on the host: given only in the ranks' pieces
   * (ICNTL(18) = 3), a standalone MUMPS Cholesky of the 100k pencil ordered by PORD cost
   * 11 % more flops and scaled 1.22x on two ranks, against 1.48x with the whole pattern
   * (ICNTL(18) = 2; the values stay distributed). */
  MUMPS_INT *g_irn = NULL, *g_jcn = NULL;
  MUMPS_INT8 g_nnz = 0;
  MUMPS_INT *pos = NULL;
  int *parts = NULL, nparts = 0;
  fcd_status st = gather_pattern(sys, irn, jcn, m->nav, &g_irn, &g_jcn, &g_nnz);
  if (st == FCD_OK) st = schur_separators(m, sys, g_irn, g_jcn, g_nnz, &parts, &nparts);
  s = m->ns;
  if (st == FCD_OK)
    st = nd_order(sys, m->n, g_irn, g_jcn, g_nnz, s, m->slist, parts, nparts, &pos);
  fcd__free(parts);
  if (st != FCD_OK) {
    fcd__free(g_irn);
    fcd__free(g_jcn);
    id->job = -2;
    dmumps_c(id);
    MPI_Comm_free(comm);
    return st;
  }
  /* silent; METIS' order from rank 0, else MUMPS' SCOTCH (AMD in a MUMPS without it); the
   * root kept from ScaLAPACK so that INFOG(12) counts every negative pivot; the whole Schur
   * complement left over the ranks in ScaLAPACK's layout (scalapack.c): assembled by its
   * owners, where a centralized one is assembled on the host alone (at 100k dofs MUMPS
   * took 8.0 s against 8.8 s on two ranks) */
  id->icntl[0] = id->icntl[1] = id->icntl[2] = -1;
  id->icntl[3] = 0;
  fcd__mumps_no_type2(id->keep, sys->dist->size);
  id->icntl[17] = fcd__dist_any(sys, sys->dist->rank == 0 && !g_irn) ? 3 : 2;
  id->nnz = g_nnz;
  id->irn = g_irn;
  id->jcn = g_jcn;
  id->icntl[27] = 1;
  id->icntl[6] = pos ? 1 : 3;
  id->perm_in = pos;
  id->icntl[12] = 1;
  id->icntl[18] = 3;
  id->nprow = 1;
  id->npcol = (MUMPS_INT)sys->dist->size;
  id->mblock = id->nblock = FCD__GRID_NB;
  id->n = (MUMPS_INT)m->n;
  id->nnz_loc = (MUMPS_INT8)m->nav;
  id->irn_loc = irn;
  id->jcn_loc = jcn;
  id->size_schur = (MUMPS_INT)s;
  if (sys->dist->rank == 0) id->listvar_schur = m->slist;
  id->job = 1;
  dmumps_c(id);
  fcd__free(g_irn);
  fcd__free(g_jcn);
  fcd__free(pos);
  id->irn = id->jcn = NULL;
  id->perm_in = NULL;
  st = schur_status(sys, id, s, "analysis");
  if (st == FCD_OK) st = fcd__grid_open(sys, *comm, s, m->unsym, &m->C);
  if (st == FCD_OK &&
      fcd__dist_any(sys, id->schur_mloc != (MUMPS_INT)s || id->schur_nloc != m->C.nloc)) {
    fcd__grid_close(&m->C);
    st = fcd__err(sys, FCD_E_BACKEND, "MUMPS laid the Schur complement out otherwise than "
                  "ScaLAPACK's 1 x %d grid", sys->dist->size);
  }
  if (st == FCD_OK) {
    id->schur = m->C.a;
    id->schur_lld = (MUMPS_INT)(s > 1 ? s : 1);
  }
  if (st != FCD_OK) { /* the caller ends only a started instance */
    id->job = -2;
    dmumps_c(id);
    MPI_Comm_free(comm);
  }
  return st;
}

/* Factors the values of m->av; MUMPS leaves the Schur complement in m->C, over the
 * ranks, where ScaLAPACK factors it. */
static fcd_status schur_numeric(const fcd_system *sys, DMUMPS_STRUC_C *id, fcd__mumps *m,
                                fcd_index s) {
  m->condensed = 0;
  id->a_loc = m->av;
  do {
    id->job = 2;
    dmumps_c(id);
  } while (fcd__mumps_relax(&id->icntl[13], id->infog[0]));
  FCD_TRY(schur_status(sys, id, s, "factorization"));
  return fcd__grid_factor(sys, m->scomm, &m->C);
}

static fcd_status schur_factor(fcd__mumps *m, const fcd_system *sys) {
  fcd_index s = m->s;
  if (!m->sid) {
    int bad = 0;
    m->sirn = fcd__malloc_array((size_t)m->nav + 1, sizeof *m->sirn);
    m->sjcn = fcd__malloc_array((size_t)m->nav + 1, sizeof *m->sjcn);
    m->slist = fcd__malloc_array((size_t)s + 1, sizeof *m->slist);
    DMUMPS_STRUC_C *id = fcd__calloc(1, sizeof *id);
    bad = !m->sirn || !m->sjcn || !m->slist || !id;
    if (fcd__dist_any(sys, bad)) {
      fcd__free(id);
      schur_end(m);
      return fcd__err(sys, FCD_E_NOMEM, "out of memory preparing the Schur complement of "
                      "%lld contact dofs", (long long)s);
    }
    for (fcd_index a = 0; a < s; a++) m->slist[a] = (MUMPS_INT)(m->sidx[a] + 1);
    fcd_status st = schur_start(m, sys, id, s);
    if (st != FCD_OK) {
      fcd__free(id);
      schur_end(m);
      return st;
    }
    m->sid = id;
  }
  FCD_TRY(schur_numeric(sys, m->sid, m, s));
  m->sfactored = 1;
  return FCD_OK;
}

/* x = A^-1 b through the Schur instance: condensation (the reduced right-hand sides on
 * rank 0), C y = reduced by C's factor over the ranks, expansion; rank 0 holds the
 * solution (centralized) and broadcasts it. */
static fcd_status schur_solve(fcd__mumps *m, const fcd_system *sys, fcd_index nrhs,
                              const fcd_real *b, fcd_real *x) {
  DMUMPS_STRUC_C *id = m->sid;
  fcd_index n = m->n, s = m->ns;
  int root = sys->dist->rank == 0;
  m->condensed = 0; /* MUMPS' forward elimination is this solve's now */
  fcd_real *red = root ? fcd__malloc_array((size_t)s * (size_t)nrhs + 1, sizeof *red) : NULL;
  if (fcd__dist_any(sys, root && !red))
    return fcd__err(sys, FCD_E_NOMEM, "out of memory for %lld reduced right-hand sides",
                    (long long)nrhs);
  if (root && x != b) memmove(x, b, (size_t)n * (size_t)nrhs * sizeof *x);
  id->icntl[19] = 0; /* dense right-hand sides on the host */
  id->icntl[20] = 0; /* the solution there too */
  id->nrhs = (MUMPS_INT)nrhs;
  id->lrhs = (MUMPS_INT)n;
  id->rhs = root ? x : NULL;
  id->redrhs = red;
  id->lredrhs = (MUMPS_INT)s;
  id->icntl[25] = 1;
  id->job = 3;
  dmumps_c(id);
  fcd_status st = schur_status(sys, id, s, "condensation");
  if (st == FCD_OK) st = fcd__grid_solve(sys, m->scomm, &m->C, nrhs, red);
  if (st == FCD_OK) {
    id->icntl[25] = 2;
    dmumps_c(id);
    st = schur_status(sys, id, s, "expansion");
  }
  id->icntl[25] = 0;
  fcd__free(red);
  return st == FCD_OK ? bcast_root(sys, x, (size_t)n * (size_t)nrhs) : st;
}

/* MUMPS' condensation of rank 0's crhs into cred (job 3, ICNTL(26) = 1) or expansion of
 * cred's reduced solution into crhs (ICNTL(26) = 2), one right-hand side */
static fcd_status schur_half(fcd__mumps *m, const fcd_system *sys, int expand) {
  DMUMPS_STRUC_C *id = m->sid;
  int root = sys->dist->rank == 0;
  id->icntl[19] = 0;
  id->icntl[20] = 0;
  id->nrhs = 1;
  id->lrhs = (MUMPS_INT)m->n;
  id->rhs = root ? m->crhs : NULL;
  id->redrhs = root ? m->cred : NULL;
  id->lredrhs = (MUMPS_INT)m->ns;
  id->icntl[25] = expand ? 2 : 1;
  id->job = 3;
  dmumps_c(id);
  id->icntl[25] = 0;
  return schur_status(sys, id, m->s, expand ? "expansion" : "condensation");
}

/* not with separators in the Schur set (the integrators, the halves' only callers, keep
 * the contact dofs alone: mumps_set_separators) */
static int mumps_halves(const fcd__mumps *m) { return m->sfactored && m->s > 0 && m->ns == m->s; }

static fcd_status mumps_condense(fcd__mumps *m, const fcd_system *sys, const fcd_real *b,
                               fcd_real *xs) {
  fcd_index n = m->n, s = m->s;
  int root = sys->dist->rank == 0;
  m->condensed = 0;
  if (!mumps_halves(m))
    return fcd__err(sys, FCD_E_INTERNAL, "a solve in halves needs the factor's Schur set, "
                    "the contact dofs alone");
  if (root && !m->crhs) {
    m->crhs = fcd__malloc_array((size_t)n + 1, sizeof *m->crhs);
    m->cred = fcd__malloc_array((size_t)s + 1, sizeof *m->cred);
  }
  if (fcd__dist_any(sys, root && (!m->crhs || !m->cred)))
    return fcd__err(sys, FCD_E_NOMEM, "out of memory for a solve in halves");
  if (root) memcpy(m->crhs, b, (size_t)n * sizeof *b);
  FCD_TRY(schur_half(m, sys, 0));
  /* x_S = C^-1 r, r the reduced right-hand side, kept for the expansion */
  if (root) memcpy(xs, m->cred, (size_t)s * sizeof *xs);
  FCD_TRY(fcd__grid_solve(sys, m->scomm, &m->C, 1, xs));
  FCD_TRY(bcast_root(sys, xs, (size_t)s));
  m->condensed = 1;
  return FCD_OK;
}

static fcd_status mumps_expand(fcd__mumps *m, const fcd_system *sys, const fcd_real *g,
                             fcd_real *x) {
  fcd_index n = m->n, s = m->s;
  int root = sys->dist->rank == 0;
  if (!m->condensed)
    return fcd__err(sys, FCD_E_INTERNAL, "an expansion without its condensation");
  m->condensed = 0;
  /* the reduced solution C^-1 (r + g), g added on the contact dofs after the forward
   * elimination, which it does not reach: they are eliminated last */
  if (root)
    for (fcd_index a = 0; a < s; a++) m->cred[a] += g[a];
  FCD_TRY(fcd__grid_solve(sys, m->scomm, &m->C, 1, m->cred));
  FCD_TRY(schur_half(m, sys, 1));
  if (root) memcpy(x, m->crhs, (size_t)n * sizeof *x);
  return bcast_root(sys, x, (size_t)n);
}

static fcd_status mumps_set_schur(fcd__mumps *m, const fcd_system *sys, fcd_index s,
                                const fcd_index *idx, int *changed) {
  *changed = 0;
  if (fcd__dist_any(sys, !idx))
    return fcd__err(sys, FCD_E_NOMEM, "out of memory listing the contact dofs%s",
                    idx ? " (on another rank)" : "");
  *changed = !(s == m->s && (s == 0 || memcmp(idx, m->sidx, (size_t)s * sizeof *idx) == 0));
  if (!*changed) return FCD_OK;
  fcd_index *copy = fcd__malloc_array((size_t)s + 1, sizeof *copy);
  if (fcd__dist_any(sys, !copy)) {
    fcd__free(copy);
    return fcd__err(sys, FCD_E_NOMEM, "out of memory for the Schur complement's dofs");
  }
  if (s > 0) memcpy(copy, idx, (size_t)s * sizeof *copy);
  schur_end(m);
  fcd__free(m->sidx);
  m->sidx = copy;
  m->s = s;
  return FCD_OK;
}

static fcd_status mumps_inverse_cols(fcd__mumps *m, const fcd_system *sys, fcd_index s,
                                   const fcd_index *idx, fcd__inverse_cols *out) {
  /* the factor's own Schur set: the callers set it before factoring (delassus.c) */
  if (!m->sfactored || s != m->s || memcmp(idx, m->sidx, (size_t)s * sizeof *idx) != 0)
    return fcd__err(sys, FCD_E_INTERNAL, "the Delassus operator of a distributed factor needs "
                    "the contact dofs as the factor's Schur set");
  /* C's factor: the trailing s x s block of S's (schur_separators pads its start) */
  fcd__grid c = fcd__grid_trailing(&m->C, m->ns - m->s);
  return fcd__grid_inverse(sys, m->scomm, &c, out);
}

/* ---- the Delassus operator from the inverse's columns ---- */

/* W = H_S B H_S^T with B = (A^-1)_SS, the block of A^-1 on the free dofs S that H
 * touches: the distributed factor gives B as the inverse of A's Schur complement on S, a
 * fraction of the cost of m solves through the whole factor. Each rank holds some of B's
 * columns q (scalapack.c) and adds their share, W_ij += (H_S B)_iq (H_S)_jq; the shares
 * are summed over the ranks. Nobody holds B whole: at 8,427 contact directions that was
 * 568 MB on every rank, and the products were each rank's, all of them. A Cholesky's B
 * comes as its lower triangle L (diagonal included): with L' = L less half its diagonal,
 * B = L' + L'^T and W = V + V^T for V = H_S L' H_S^T. */
enum { DELASSUS_KB = 64 };
static void delassus_share(const fcd__csr *H, const fcd_index *hp, const fcd_index *cptr,
                           const fcd_index *crow, const fcd_real *cval,
                           const fcd__inverse_cols *B, fcd_index s, fcd_real *V, fcd_real *W) {
  fcd_index m = H->n;
  memset(W, 0, (size_t)m * (size_t)m * sizeof *W);
  /* by blocks of DELASSUS_KB columns of B, whose V stays in cache: a whole V (m x ncols)
   * was 67 MB a rank at 4,107 directions, each page first touched once (0.1 s) */
  for (fcd_index k0 = 0; k0 < B->ncols; k0 += DELASSUS_KB) {
    fcd_index kb = B->ncols - k0 < DELASSUS_KB ? B->ncols - k0 : DELASSUS_KB;
    /* V = H_S B[:, k0 .. k0 + kb) (column k contiguous): B's column read once, in cache */
    for (fcd_index k = 0; k < kb; k++) {
      const fcd_real *b = B->a + (k0 + k) * s;
      fcd_index q = B->col[k0 + k];
      for (fcd_index i = 0; i < m; i++) {
        fcd_real t = 0;
        for (fcd_index e = H->rowptr[i]; e < H->rowptr[i + 1]; e++) {
          fcd_index p = hp[e];
          if (!B->lower || p > q) t += H->val[e] * b[p];
          else if (p == q) t += 0.5 * H->val[e] * b[p];
        }
        V[k * m + i] = t;
      }
    }
    /* column j of the share (W_ij at W[j m + i]) gathers V's column of each dof of row
     * j: dof q's rows j and values are its column of H_S (cptr, crow, cval) */
    for (fcd_index k = 0; k < kb; k++) {
      fcd_index q = B->col[k0 + k];
      const fcd_real *v = V + k * m;
      for (fcd_index c = cptr[q]; c < cptr[q + 1]; c++) {
        fcd_real *w = W + crow[c] * m, h = cval[c];
        for (fcd_index i = 0; i < m; i++) w[i] += h * v[i];
      }
    }
  }
}

/* W (m x m) from its column-major sum: W + W^T for a Cholesky's (then symmetric),
 * transposed to rows for an LU's; by tiles, which stay in cache */
static void delassus_finish(fcd_real *W, fcd_index m, int lower) {
  enum { T = 64 };
  for (fcd_index i0 = 0; i0 < m; i0 += T)
    for (fcd_index j0 = i0; j0 < m; j0 += T)
      for (fcd_index i = i0; i < i0 + T && i < m; i++)
        for (fcd_index j = j0 > i ? j0 : i; j < j0 + T && j < m; j++) {
          fcd_real a = W[i * m + j], b = W[j * m + i];
          W[i * m + j] = lower ? a + b : b;
          W[j * m + i] = lower ? a + b : a;
        }
}

static fcd_status mumps_delassus(fcd__mumps *m, const fcd_system *sys, const fcd__csr *H,
                                 fcd_index s, const fcd_index *idx, const fcd_index *pos,
                                 fcd_real *W) {
  fcd_index nrow = H->n, nz = H->rowptr[nrow];
  fcd_index *hp = NULL, *cptr = NULL, *crow = NULL;
  fcd_real *V = NULL, *cval = NULL;
  fcd__inverse_cols B = {NULL, NULL, 0, 0};
  fcd_status st = FCD_OK;
  /* every rank leaves together, before the collective inversion */
  if (fcd__dist_any(sys, !idx || !pos)) goto nomem;
  if ((st = mumps_inverse_cols(m, sys, s, idx, &B)) != FCD_OK) goto done;
  hp = fcd__malloc_array((size_t)nz + 1, sizeof *hp);
  cptr = fcd__calloc((size_t)s + 2, sizeof *cptr);
  crow = fcd__malloc_array((size_t)nz + 1, sizeof *crow);
  cval = fcd__malloc_array((size_t)nz + 1, sizeof *cval);
  V = fcd__malloc_array((size_t)nrow * DELASSUS_KB + 1, sizeof *V);
  if (fcd__dist_any(sys, !hp || !cptr || !crow || !cval || !V)) goto nomem;
  for (fcd_index e = 0; e < nz; e++) hp[e] = pos[sys->free_of[H->col[e]]];
  /* H_S by columns (cptr[p + 1] counts, then fills, dof p's entries) */
  for (fcd_index e = 0; e < nz; e++) cptr[hp[e] + 2]++;
  for (fcd_index p = 0; p < s; p++) cptr[p + 2] += cptr[p + 1];
  for (fcd_index i = 0; i < nrow; i++)
    for (fcd_index e = H->rowptr[i]; e < H->rowptr[i + 1]; e++) {
      fcd_index c = cptr[hp[e] + 1]++;
      crow[c] = i;
      cval[c] = H->val[e];
    }
  delassus_share(H, hp, cptr, crow, cval, &B, s, V, W);
  if ((st = fcd__dist_sum(sys, W, nrow * nrow)) == FCD_OK) delassus_finish(W, nrow, B.lower);
  goto done;
nomem:
  st = fcd__err(sys, FCD_E_NOMEM, "out of memory forming the Delassus operator of %lld "
                "contact directions", (long long)nrow);
done:
  fcd__free(hp);
  fcd__free(cptr);
  fcd__free(crow);
  fcd__free(cval);
  fcd__free(V);
  fcd__inverse_cols_clear(&B);
  return st;
}

/* ---- the table factor.c calls through (dist.h, fcd__free_solver) ---- */

static fcd_status mumps_factor_rows(fcd__mumps *m, const fcd_system *sys, fcd_index n,
                                    const fcd_index *rowptr, const fcd_index *col,
                                    const fcd_real *val, int spd, int reanalyse,
                                    int *analysed, fcd_index *bad, fcd_real *bad_diag) {
  *analysed = 0;
  *bad = -1;
  *bad_diag = 0;
  if (spd) {
    fcd_index lo, hi;
    fcd__rows_free_range(sys, &lo, &hi);
    fcd_real d = 0;
    fcd_index b = fcd__csr_void_row(rowptr, col, val, lo, hi, 1, &d);
    /* the smallest offending row: the largest n - row (0: none on any rank) */
    fcd_real first = fcd__dist_max(sys, b >= 0 ? (fcd_real)(n - b) : 0);
    if (first != first)
      return fcd__err(sys, FCD_E_BACKEND, "MPI error agreeing on the operator's rows");
    b = first > 0 ? n - (fcd_index)first : -1;
    d = fcd__dist_max(sys, b >= lo && b < hi ? d : -HUGE_VAL);
    if (b >= 0) {
      *bad = b;
      *bad_diag = d;
      return FCD_OK;
    }
  }
  if (fcd__dist_any(sys, reanalyse)) {
    *analysed = -1;
    FCD_TRY(mumps_analyze(m, sys, n, rowptr, col, val));
    *analysed = 1;
  }
  return mumps_factor(m, sys, val);
}

static int mumps_stale(const fcd_system *sys, int stale) { return fcd__dist_any(sys, stale); }

static const fcd__free_solver mumps_table = {
    .create = mumps_create,
    .destroy = mumps_destroy,
    .factor = mumps_factor_rows,
    .stale = mumps_stale,
    .set_unsymmetric = mumps_set_unsymmetric,
    .set_separators = mumps_set_separators,
    .solve = mumps_solve,
    .set_schur = mumps_set_schur,
    .halves = mumps_halves,
    .condense = mumps_condense,
    .expand = mumps_expand,
    .inverse_cols = mumps_inverse_cols,
    .delassus = mumps_delassus,
};

const fcd__free_solver *fcd__dist_free_solver(const fcd_system *sys) {
  return fcd__dist_on(sys) ? &mumps_table : NULL;
}
