/* PETSc and SLEPc: lifecycle under one process-wide lock, and the eigen-solves. PETSc
 * is not thread-safe, so every fcd call into it holds fcd__petsc_lock. */
#include "petsc_backend.h"
#include <dmumps_c.h>
#include <limits.h>

#include <pthread.h>
#include <slepceps.h>
#include <slepcpep.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t petsc_lock = PTHREAD_MUTEX_INITIALIZER;
static int fcd_started_petsc; /* fcd called PetscInitialize (through SlepcInitialize) */
static int fcd_started_slepc;
static int fcd_finalized;     /* fcd finalized PETSc: it cannot come back */

fcd_status fcd__petsc_fail(const fcd_system *sys, PetscErrorCode e, const char *what) {
  const char *text = NULL;
  char *specific = NULL;
  PetscErrorMessage(e, &text, &specific);
  fcd_status st = e == PETSC_ERR_MEM ? FCD_E_NOMEM : FCD_E_BACKEND;
  return fcd__err(sys, st, "PETSc/SLEPc error %d in %s: %s%s%s", (int)e, what,
                  text ? text : "unknown", specific ? ": " : "", specific ? specific : "");
}

fcd_status fcd__petsc_acquire(const fcd_system *sys) {
  pthread_mutex_lock(&petsc_lock);
  if (fcd_finalized) {
    pthread_mutex_unlock(&petsc_lock);
    return fcd__err(sys, FCD_E_STATE,
                    "PETSc was finalized by fcd_finalize(): it cannot be used again in "
                    "this process");
  }
  PetscBool petsc_up = PETSC_FALSE, slepc_up = PETSC_FALSE;
  PetscInitialized(&petsc_up);
  SlepcInitialized(&slepc_up);
  if (!slepc_up) {
    /* PETSc must not install signal handlers in the host's process; options come from
     * this argument vector only for what fcd itself starts. */
    static char arg0[] = "libfcd", arg1[] = "-no_signal_handler";
    static char *argv_store[] = {arg0, arg1, NULL};
    int argc = 2;
    char **argv = argv_store;
    int mpi_up = 0;
    MPI_Initialized(&mpi_up);
    /* fcd is the one starting MPI: a singleton. Open MPI 4 would fork a daemon through
     * ssh/rsh, and without either on PATH MPI_Init aborts the host's process (no error
     * handler can catch it). An isolated singleton needs no daemon; fcd never spawns
     * processes. A host that set the variable keeps its value (docs/hardening.md). */
    if (!mpi_up) setenv("OMPI_MCA_ess_singleton_isolated", "1", 0);
    PetscErrorCode e = SlepcInitialize(&argc, &argv, NULL, NULL);
    if (e) {
      pthread_mutex_unlock(&petsc_lock);
      return fcd__err(sys, FCD_E_BACKEND, "SlepcInitialize failed with PETSc error %d",
                      (int)e);
    }
    fcd_started_slepc = 1;
    if (!petsc_up) fcd_started_petsc = 1;
    /* fcd_finalize ends what fcd started; a full table leaves it to the process's end */
    (void)fcd__on_finalize(fcd__petsc_finalize);
  }
  /* Errors come back as codes; PETSc never prints on fcd's behalf. */
  PetscPushErrorHandler(PetscReturnErrorHandler, NULL);
  return FCD_OK;
}

void fcd__petsc_release(void) {
  PetscPopErrorHandler();
  pthread_mutex_unlock(&petsc_lock);
}

void fcd__petsc_finalize(void) {
  pthread_mutex_lock(&petsc_lock);
  if (fcd_started_slepc) {
    PetscBool up = PETSC_FALSE;
    SlepcInitialized(&up);
    if (up) SlepcFinalize();
    fcd_started_slepc = 0;
  }
  if (fcd_started_petsc) {
    PetscBool up = PETSC_FALSE, done = PETSC_FALSE;
    PetscInitialized(&up);
    PetscFinalized(&done);
    if (up && !done) PetscFinalize();
    fcd_started_petsc = 0;
    fcd_finalized = 1;
  }
  pthread_mutex_unlock(&petsc_lock);
}

/* Sequential AIJ copy of a CSR matrix (PetscInt may be 32-bit: every index is checked). */
static fcd_status make_seqaij(const fcd_system *sys, fcd_index n, const fcd_index *rowptr,
                              const fcd_index *col, const fcd_real *val, Mat *out) {
  fcd_index nnz = rowptr[n];
  if (n > PETSC_MAX_INT || nnz > PETSC_MAX_INT)
    return fcd__err(sys, FCD_E_UNSUPPORTED,
                    "matrix with %lld rows and %lld entries exceeds PETSc's %d-bit indices",
                    (long long)n, (long long)nnz, (int)(8 * sizeof(PetscInt)));
  PetscInt *pi = fcd__malloc_array((size_t)n + 1, sizeof *pi);
  PetscInt *pj = fcd__malloc_array((size_t)nnz, sizeof *pj);
  if (!pi || !pj) {
    fcd__free(pi);
    fcd__free(pj);
    return fcd__err(sys, FCD_E_NOMEM, "out of memory converting a matrix for PETSc");
  }
  for (fcd_index i = 0; i <= n; i++) pi[i] = (PetscInt)rowptr[i];
  for (fcd_index p = 0; p < nnz; p++) pj[p] = (PetscInt)col[p];
  Mat A = NULL;
  PetscErrorCode e = MatCreate(PETSC_COMM_SELF, &A);
  if (!e) e = MatSetSizes(A, (PetscInt)n, (PetscInt)n, (PetscInt)n, (PetscInt)n);
  if (!e) e = MatSetType(A, MATSEQAIJ);
  if (!e) e = MatSeqAIJSetPreallocationCSR(A, pi, pj, val);
  fcd__free(pi);
  fcd__free(pj);
  if (e) {
    MatDestroy(&A);
    return fcd__petsc_fail(sys, e, "matrix assembly");
  }
  *out = A;
  return FCD_OK;
}

/* Rows [rstart, rend) of a replicated CSR matrix as an MPIAIJ matrix on comm. */
static fcd_status make_mpiaij(const fcd_system *sys, MPI_Comm comm, fcd_index n,
                              const fcd_index *rowptr, const fcd_index *col,
                              const fcd_real *val, Mat *out) {
  if (n > PETSC_MAX_INT || rowptr[n] > PETSC_MAX_INT)
    return fcd__err(sys, FCD_E_UNSUPPORTED, "matrix too large for PETSc's indices");
  PetscInt nloc = PETSC_DECIDE, N = (PetscInt)n, rstart = 0;
  PetscErrorCode e = PetscSplitOwnership(comm, &nloc, &N);
  if (!e) e = MPI_Scan(&nloc, &rstart, 1, MPIU_INT, MPI_SUM, comm) ? PETSC_ERR_MPI : 0;
  if (e) return fcd__petsc_fail(sys, e, "row ownership");
  rstart -= nloc;
  fcd_index base = rowptr[rstart], lnnz = rowptr[rstart + nloc] - base;
  PetscInt *pi = fcd__malloc_array((size_t)nloc + 1, sizeof *pi);
  PetscInt *pj = fcd__malloc_array((size_t)lnnz + 1, sizeof *pj);
  if (!pi || !pj) {
    fcd__free(pi);
    fcd__free(pj);
    return fcd__err(sys, FCD_E_NOMEM, "out of memory converting a matrix for PETSc");
  }
  for (PetscInt i = 0; i <= nloc; i++) pi[i] = (PetscInt)(rowptr[rstart + i] - base);
  for (fcd_index p = 0; p < lnnz; p++) pj[p] = (PetscInt)col[base + p];
  Mat A = NULL;
  e = MatCreate(comm, &A);
  if (!e) e = MatSetSizes(A, nloc, nloc, N, N);
  if (!e) e = MatSetType(A, MATMPIAIJ);
  if (!e) e = MatMPIAIJSetPreallocationCSR(A, pi, pj, val + base);
  fcd__free(pi);
  fcd__free(pj);
  if (e) {
    MatDestroy(&A);
    return fcd__petsc_fail(sys, e, "parallel matrix assembly");
  }
  *out = A;
  return FCD_OK;
}

fcd_status fcd__slepc_gen_sym_lowest(const fcd_system *sys, fcd_index n,
                                     const fcd_index *rowptr, const fcd_index *col,
                                     const fcd_real *kval, const fcd_real *mval,
                                     fcd_index nev, fcd_real *w2, fcd_real *vecs,
                                     fcd_index *nconv) {
  *nconv = 0;
  /* Any negative shift orders the (non-negative) spectrum by distance from it; a small
   * one keeps K - sigma M well conditioned and factorable even with rigid-body modes. */
  fcd_real ksum = 0.0, msum = 0.0;
  for (fcd_index i = 0; i < n; i++)
    for (fcd_index p = rowptr[i]; p < rowptr[i + 1]; p++)
      if (col[p] == i) {
        ksum += kval[p] < 0 ? -kval[p] : kval[p];
        msum += mval[p] < 0 ? -mval[p] : mval[p];
      }
  fcd_real sigma = (msum > 0 && ksum > 0) ? -1e-8 * ksum / msum : -1e-8;

  FCD_TRY(fcd__petsc_acquire(sys));
  fcd_status st = FCD_OK;
  Mat K = NULL, M = NULL;
  EPS eps = NULL;
  Vec xr = NULL;
  PetscErrorCode e = 0;
  const char *what = "";
  st = make_seqaij(sys, n, rowptr, col, kval, &K);
  if (st == FCD_OK) st = make_seqaij(sys, n, rowptr, col, mval, &M);
  if (st != FCD_OK) goto cleanup;
  {
    ST stx;
    KSP ksp;
    PC pc;
    P(EPSCreate(PETSC_COMM_SELF, &eps));
    P(EPSSetOperators(eps, K, M));
    P(EPSSetProblemType(eps, EPS_GHEP));
    P(EPSSetType(eps, EPSKRYLOVSCHUR));
    P(EPSSetDimensions(eps, (PetscInt)nev, PETSC_DEFAULT, PETSC_DEFAULT));
    P(EPSSetTarget(eps, sigma));
    P(EPSSetWhichEigenpairs(eps, EPS_TARGET_MAGNITUDE));
    P(EPSSetTolerances(eps, 1e-10, 1000));
    P(EPSGetST(eps, &stx));
    P(STSetType(stx, STSINVERT));
    P(STGetKSP(stx, &ksp));
    P(KSPSetType(ksp, KSPPREONLY));
    P(KSPGetPC(ksp, &pc));
    /* K - sigma M is symmetric positive definite (sigma < 0): CHOLMOD's supernodal
     * Cholesky through PETSc, where PETSc's own LU was half of a 100k-dof reduction */
    P(MatSetOption(K, MAT_SYMMETRIC, PETSC_TRUE));
    P(MatSetOption(M, MAT_SYMMETRIC, PETSC_TRUE));
    P(PCSetType(pc, PCCHOLESKY));
    P(PCFactorSetMatSolverType(pc, MATSOLVERCHOLMOD));
    P(EPSSolve(eps));
    PetscInt nc = 0;
    P(EPSGetConverged(eps, &nc));
    P(MatCreateVecs(K, &xr, NULL));
    fcd_index take = nc < nev ? nc : nev;
    for (fcd_index k = 0; k < take; k++) {
      PetscScalar kr, ki;
      P(EPSGetEigenpair(eps, (PetscInt)k, &kr, &ki, xr, NULL));
      w2[k] = (fcd_real)kr;
      if (vecs) {
        const PetscScalar *a;
        P(VecGetArrayRead(xr, &a));
        memcpy(vecs + k * n, a, (size_t)n * sizeof *vecs);
        P(VecRestoreArrayRead(xr, &a));
      }
    }
    *nconv = take;
  }
  goto cleanup;
petsc_error:
  st = fcd__petsc_fail(sys, e, what);
cleanup:
  VecDestroy(&xr);
  EPSDestroy(&eps);
  MatDestroy(&K);
  MatDestroy(&M);
  fcd__petsc_release();
  return st;
}

/* The shift-and-invert's solve, on one rank or several: fcd's own MUMPS instance, not
 * PETSc's PCLU. PETSc 3.18 hands MUMPS the matrix in the ranks' pieces (ICNTL(18) = 3),
 * and Debian's MUMPS (no SCOTCH, no METIS) then orders by PORD: at 303k dofs the LU took
 * 76 s on two ranks against 41.5 s on one. K* and M* (and C*) are replicated on every rank
 * here, so rank 0 gives MUMPS the whole shifted operator (ICNTL(18) = 0) and METIS'
 * nested-dissection order (ICNTL(7) = 1); right-hand sides and solutions travel through
 * rank 0. On one rank it is the same instance, so the factorization's retry with a larger
 * workspace (fcd__mumps_relax) serves every rank count: PETSc's PCLU gave MUMPS' workspace
 * failure to SLEPc as a failed solve, with no retry. MUMPS factors the 32k-dof block in
 * 2.7 s and 550 MB against UMFPACK's 4.1 s and 870 MB, and PETSc's UMFPACK interface
 * (32-bit indices) runs out of memory at 100k dofs. */
typedef struct {
  DMUMPS_STRUC_C id;
  MPI_Comm comm; /* a duplicate: MUMPS keeps the communicator it is given */
  int started;
  VecScatter to0;
  Vec whole; /* rank 0: the whole vector; elsewhere empty */
  /* The ranks' separators (ns dofs, slist on rank 0) as MUMPS' Schur set, as in
   * distribution/mumps_factor.c's schur_separators: MUMPS factors one subtree per rank and leaves the
   * separators' Schur complement S over the ranks, which ScaLAPACK's LU factors; a solve
   * is MUMPS' condensation onto them (red, on rank 0), S's solve and the expansion. */
  fcd_index ns;
  MUMPS_INT *slist;
  fcd_real *red;
  fcd__grid S; /* open when ns > 0 and the analysis is done */
  const fcd_system *sys;
  fcd_status solve_st; /* S's solve failed in a solve: its message stands */
  const char *op;      /* the shifted operator's name, for messages */
} dist_lu;

static void dist_lu_end(dist_lu *d) {
  if (d->started) {
    d->id.job = -2;
    dmumps_c(&d->id);
  }
  if (d->S.a) fcd__grid_close(&d->S); /* its BLACS grid before the communicator */
  if (d->started) MPI_Comm_free(&d->comm);
  fcd__free(d->slist);
  fcd__free(d->red);
  d->slist = NULL;
  d->red = NULL;
  VecScatterDestroy(&d->to0);
  VecDestroy(&d->whole);
  d->started = 0;
}

static fcd_status dist_lu_status(const fcd_system *sys, const dist_lu *d, const char *phase) {
  int info = d->id.infog[0];
  if (info >= 0) return FCD_OK;
  char why[96];
  fcd_status code = fcd__mumps_failure(info, d->id.icntl[13], why, sizeof why);
  return fcd__err(sys, code, "MUMPS' %s of the shifted operator %s failed: "
                  "INFOG(1) = %d, INFOG(2) = %d%s%s", phase, d->op, info, (int)d->id.infog[1], why,
                  info == -10 ? " (numerically singular: sigma is an eigenvalue)" : "");
}

/* The shifted operator, sum over k < nx of coef[k] X[k]: K - sigma M for the pencil,
 * K + sigma C + sigma^2 M for the quadratic problem. A term whose coefficient is 0 (the
 * PEP's shift at 0 is K alone) gives MUMPS no triples. */
typedef struct {
  int nx;
  const fcd__csr *X[3];
  fcd_real coef[3];
} shifted_op;

static size_t shifted_nnz(const shifted_op *op, fcd_index n) {
  size_t nz = 0;
  for (int k = 0; k < op->nx; k++)
    if (op->coef[k] != 0) nz += (size_t)op->X[k]->rowptr[n];
  return nz;
}

/* Rank 0's triples of the shifted operator (1-based, duplicates summed by MUMPS) and the
 * separators of `levels` bisections (d->slist, d->ns), with the parts they leave */
static fcd_status dist_lu_triples(const fcd_system *sys, fcd_index n, const shifted_op *op,
                                  int levels, dist_lu *d, MUMPS_INT **irn, MUMPS_INT **jcn,
                                  double **a, MUMPS_INT **pos, int **parts) {
  size_t nz = shifted_nnz(op, n);
  *irn = fcd__malloc_array(nz + 1, sizeof **irn);
  *jcn = fcd__malloc_array(nz + 1, sizeof **jcn);
  *a = fcd__malloc_array(nz + 1, sizeof **a);
  *pos = fcd__malloc_array((size_t)n + 1, sizeof **pos);
  if (!*irn || !*jcn || !*a || !*pos)
    return fcd__err(sys, FCD_E_NOMEM, "out of memory for the shifted operator's triples");
  size_t o = 0;
  for (int k = 0; k < op->nx; k++) {
    const fcd__csr *X = op->X[k];
    if (op->coef[k] == 0) continue;
    for (fcd_index i = 0; i < n; i++)
      for (fcd_index p = X->rowptr[i]; p < X->rowptr[i + 1]; p++, o++) {
        (*irn)[o] = (MUMPS_INT)(i + 1);
        (*jcn)[o] = (MUMPS_INT)(X->col[p] + 1);
        (*a)[o] = op->coef[k] * X->val[p];
      }
  }
  fcd_index ns = 0;
  if (levels > 0) {
    d->slist = fcd__malloc_array((size_t)n + 1, sizeof *d->slist);
    *parts = fcd__malloc_array((size_t)n + 1, sizeof **parts);
    if (!d->slist || !*parts)
      return fcd__err(sys, FCD_E_NOMEM, "out of memory for the ranks' separators");
    FCD_TRY(fcd__metis_separators(sys, n, nz, *irn, *jcn, 0, NULL, levels, 1, d->slist, &ns,
                                  *parts));
  }
  d->ns = ns;
  return FCD_OK;
}

/* rank 0's *pos: the parts ordered each on its rank when there are separators, else (or
 * when a part has no order) METIS' order on rank 0, separators last. Collective. */
static fcd_status dist_lu_order(const fcd_system *sys, MPI_Comm comm, int levels, fcd_index n,
                                size_t nz, const MUMPS_INT *irn, const MUMPS_INT *jcn,
                                const int *parts, dist_lu *d, MUMPS_INT *pos, int *nd) {
  long long ns = (long long)d->ns;
  *nd = 0;
  if (fcd__comm_any(comm, MPI_Bcast(&ns, 1, MPI_LONG_LONG, 0, comm) != MPI_SUCCESS))
    return fcd__err(sys, FCD_E_BACKEND, "broadcasting the separators' size failed");
  fcd_status st = fcd__nd_parts(sys, comm, ns > 0 ? 1 << levels : 0, n, nz, irn, jcn, parts,
                                d->ns, d->slist, pos, nd);
  d->ns = (fcd_index)ns; /* from here every rank knows the Schur set's size */
  return st;
}

/* MUMPS' Schur set on the separators (before the analysis), or none (ns = 0); d->ns is
 * every rank's since dist_lu_order */
static fcd_status dist_lu_schur_set(const fcd_system *sys, MPI_Comm comm, int rank,
                                    int csize, dist_lu *d) {
  fcd_index ns = d->ns;
  if (ns == 0) return FCD_OK;
  d->id.icntl[18] = 3; /* S over the ranks in ScaLAPACK's layout */
  d->id.size_schur = (MUMPS_INT)ns;
  if (rank == 0) d->id.listvar_schur = d->slist;
  d->id.nprow = 1;
  d->id.npcol = (MUMPS_INT)csize;
  d->id.mblock = d->id.nblock = FCD__GRID_NB;
  d->red = rank == 0 ? fcd__malloc_array((size_t)ns + 1, sizeof *d->red) : NULL;
  if (fcd__comm_any(comm, rank == 0 && !d->red))
    return fcd__err(sys, FCD_E_NOMEM, "out of memory for the separators' right-hand side");
  return FCD_OK;
}

/* S's storage, where MUMPS' factorization leaves it (after the analysis) */
static fcd_status dist_lu_schur_open(const fcd_system *sys, dist_lu *d) {
  if (d->ns == 0) return FCD_OK;
  FCD_TRY(fcd__grid_open(sys, d->comm, d->ns, 1, &d->S));
  if (fcd__comm_any(d->comm, d->id.schur_mloc != (MUMPS_INT)d->ns ||
                                 d->id.schur_nloc != (MUMPS_INT)d->S.nloc))
    return fcd__err(sys, FCD_E_BACKEND, "MUMPS laid the separators' Schur complement out "
                    "otherwise than ScaLAPACK's 1 x %d grid", d->S.size);
  d->id.schur = d->S.a;
  d->id.schur_lld = (MUMPS_INT)(d->ns > 1 ? d->ns : 1);
  return FCD_OK;
}

/* Analysis and factorization of the shifted operator on comm (collective); the order and
 * the values live on rank 0 only until the factorization is done. */
static fcd_status dist_lu_factor(const fcd_system *sys, MPI_Comm comm, fcd_index n,
                                 const shifted_op *op, Mat tmpl, dist_lu *d,
                                 fcd_index *order) {
  int rank = 0, nd = 0, csize = 1, levels = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &csize);
  while (csize <= FCD__SEP_MAX_RANKS && (1 << levels) < csize) levels++;
  d->sys = sys;
  MUMPS_INT *irn = NULL, *jcn = NULL, *pos = NULL;
  int *parts = NULL;
  double *a = NULL;
  fcd_status st = FCD_OK;
  size_t nz = shifted_nnz(op, n);
  if (n >= INT_MAX)
    st = fcd__err(sys, FCD_E_UNSUPPORTED, "%lld dofs exceed MUMPS' 32-bit indices",
                  (long long)n);
  else if (rank == 0)
    st = dist_lu_triples(sys, n, op, levels, d, &irn, &jcn, &a, &pos, &parts);
  PetscErrorCode e = 0;
  if (fcd__comm_any(comm, st != FCD_OK)) {
    if (st == FCD_OK) st = fcd__err(sys, FCD_E_NOMEM, "rank 0 could not prepare the "
                                    "shifted operator for MUMPS");
    goto done;
  }
  st = dist_lu_order(sys, comm, levels, n, nz, irn, jcn, parts, d, pos, &nd);
  fcd__free(parts);
  parts = NULL;
  if (st != FCD_OK) goto done;
  if (order && rank == 0 && nd)
    for (fcd_index i = 0; i < n; i++) order[pos[i] - 1] = i;
  Vec v = NULL;
  e = MatCreateVecs(tmpl, &v, NULL);
  if (!e) e = VecScatterCreateToZero(v, &d->to0, &d->whole);
  VecDestroy(&v);
  if (fcd__comm_any(comm, e != 0)) {
    st = fcd__petsc_fail(sys, e ? e : PETSC_ERR_LIB, "the shift-and-invert's vectors");
    goto done;
  }
  if (fcd__comm_any(comm, MPI_Comm_dup(comm, &d->comm) != MPI_SUCCESS)) {
    st = fcd__err(sys, FCD_E_BACKEND, "duplicating the communicator for MUMPS failed");
    goto done;
  }
  memset(&d->id, 0, sizeof d->id);
  d->id.comm_fortran = (MUMPS_INT)MPI_Comm_c2f(d->comm);
  d->id.par = 1;
  d->id.sym = 0;
  d->id.job = -1;
  dmumps_c(&d->id);
  d->started = 1;
  if ((st = dist_lu_status(sys, d, "start")) != FCD_OK) goto done;
  d->id.icntl[0] = d->id.icntl[1] = d->id.icntl[2] = -1;
  d->id.icntl[3] = 0;
  fcd__mumps_no_type2(d->id.keep, csize); /* one rank per front (distribution/mumps_factor.c) */
  d->id.icntl[17] = 0; /* the matrix centralized on rank 0 */
  d->id.icntl[27] = 1; /* sequential analysis */
  d->id.icntl[6] = nd ? 1 : 7;
  if ((st = dist_lu_schur_set(sys, d->comm, rank, csize, d)) != FCD_OK) goto done;
  if (rank == 0) {
    d->id.n = (MUMPS_INT)n;
    d->id.nnz = (MUMPS_INT8)nz;
    d->id.irn = irn;
    d->id.jcn = jcn;
    d->id.a = a;
    d->id.perm_in = nd ? pos : NULL;
  }
  d->id.job = 1;
  dmumps_c(&d->id);
  if ((st = dist_lu_status(sys, d, "analysis")) != FCD_OK) goto done;
  if ((st = dist_lu_schur_open(sys, d)) != FCD_OK) goto done;
  do {
    d->id.job = 2;
    dmumps_c(&d->id);
  } while (fcd__mumps_relax(&d->id.icntl[13], d->id.infog[0]));
  st = dist_lu_status(sys, d, "factorization");
  if (st == FCD_OK && d->ns > 0 && (st = fcd__grid_factor(sys, d->comm, &d->S)) != FCD_OK)
    st = fcd__err(sys, st, "the shifted operator %s is singular: its Schur complement "
                  "on the ranks' separators has no LU factor (sigma is an eigenvalue)",
                  d->op);
done:
  d->id.irn = d->id.jcn = d->id.perm_in = NULL;
  d->id.a = NULL;
  fcd__free(irn);
  fcd__free(jcn);
  fcd__free(a);
  fcd__free(pos);
  fcd__free(parts);
  return st;
}

/* y = A^-1 x, A the shifted operator, through rank 0 (the PC of the shift-and-invert's
 * KSP) */
static PetscErrorCode dist_lu_apply(PC pc, Vec x, Vec y) {
  void *ctx = NULL;
  PetscErrorCode e = PCShellGetContext(pc, &ctx);
  dist_lu *d = ctx;
  if (!e) e = VecScatterBegin(d->to0, x, d->whole, INSERT_VALUES, SCATTER_FORWARD);
  if (!e) e = VecScatterEnd(d->to0, x, d->whole, INSERT_VALUES, SCATTER_FORWARD);
  PetscScalar *w = NULL;
  if (!e) e = VecGetArray(d->whole, &w);
  if (e) return e;
  d->id.icntl[19] = 0; /* dense right-hand side on the host, solution there too */
  d->id.icntl[20] = 0;
  d->id.nrhs = 1;
  d->id.lrhs = d->id.n;
  d->id.rhs = w;
  d->id.job = 3;
  if (d->ns > 0) { /* condensation, S's solve, expansion */
    d->id.redrhs = d->red;
    d->id.lredrhs = (MUMPS_INT)d->ns;
    d->id.icntl[25] = 1;
    dmumps_c(&d->id);
    if (d->id.infog[0] >= 0) {
      d->solve_st = fcd__grid_solve(d->sys, d->comm, &d->S, 1, d->red);
      d->id.icntl[25] = 2;
      if (d->solve_st == FCD_OK) dmumps_c(&d->id);
    }
    d->id.icntl[25] = 0;
  } else {
    dmumps_c(&d->id);
  }
  d->id.rhs = NULL;
  e = VecRestoreArray(d->whole, &w);
  if (d->solve_st != FCD_OK) return PETSC_ERR_LIB; /* S's message stands */
  if (d->id.infog[0] < 0) return PETSC_ERR_LIB; /* INFOG stays for the message */
  if (!e) e = VecScatterBegin(d->to0, d->whole, y, INSERT_VALUES, SCATTER_REVERSE);
  if (!e) e = VecScatterEnd(d->to0, d->whole, y, INSERT_VALUES, SCATTER_REVERSE);
  return e;
}

static PetscErrorCode sinvert_shell(ST stx, dist_lu *d) {
  KSP ksp;
  PC pc;
  PetscErrorCode e = STSetType(stx, STSINVERT);
  if (!e) e = STSetMatMode(stx, ST_MATMODE_SHELL); /* the shifted operator is never formed */
  if (!e) e = STGetKSP(stx, &ksp);
  if (!e) e = KSPSetType(ksp, KSPPREONLY);
  if (!e) e = KSPGetPC(ksp, &pc);
  if (!e) e = PCSetType(pc, PCSHELL);
  if (!e) e = PCShellSetContext(pc, d);
  if (!e) e = PCShellSetApply(pc, dist_lu_apply);
  return e;
}

/* A PETSc error in a solve that went through the shell: S's or MUMPS' own message when
 * the shell's solve failed, else PETSc's */
static fcd_status sinvert_fail(const fcd_system *sys, const dist_lu *d, PetscErrorCode e,
                               const char *what) {
  if (d->solve_st != FCD_OK) return d->solve_st;
  if (d->started && d->id.infog[0] < 0) return dist_lu_status(sys, d, "solve");
  return fcd__petsc_fail(sys, e, what);
}

/* n entries of v into dst; with a gather scatter, every rank receives the whole vector */
static PetscErrorCode copy_vec(Vec v, VecScatter gather, Vec all, fcd_index n, fcd_real *dst) {
  Vec src = v;
  PetscErrorCode e = 0;
  if (gather) {
    e = VecScatterBegin(gather, v, all, INSERT_VALUES, SCATTER_FORWARD);
    if (!e) e = VecScatterEnd(gather, v, all, INSERT_VALUES, SCATTER_FORWARD);
    src = all;
  }
  const PetscScalar *a;
  if (!e) e = VecGetArrayRead(src, &a);
  if (e) return e;
  memcpy(dst, a, (size_t)n * sizeof *dst);
  return VecRestoreArrayRead(src, &a);
}

/* The converged pairs of an EPS or a PEP (the other NULL), at most nev, into lre, lim
 * and the vectors xr, xi (n entries each, gathered to every rank when parallel). */
static PetscErrorCode collect_pairs(EPS eps, PEP pep, Mat A0, int parallel, fcd_index n,
                                    fcd_index nev, fcd_real *lre, fcd_real *lim, fcd_real *xr,
                                    fcd_real *xi, fcd_index *nconv) {
  VecScatter gather = NULL;
  Vec all = NULL, vr = NULL, vi = NULL;
  PetscErrorCode e = 0;
  PetscInt nc = 0;
  e = eps ? EPSGetConverged(eps, &nc) : PEPGetConverged(pep, &nc);
  if (!e) e = MatCreateVecs(A0, &vr, NULL);
  if (!e) e = MatCreateVecs(A0, &vi, NULL);
  if (!e && parallel) e = VecScatterCreateToAll(vr, &gather, &all);
  fcd_index take = nc < nev ? nc : nev;
  for (fcd_index k = 0; !e && k < take; k++) {
    PetscScalar kr, ki;
    e = eps ? EPSGetEigenpair(eps, (PetscInt)k, &kr, &ki, vr, vi)
            : PEPGetEigenpair(pep, (PetscInt)k, &kr, &ki, vr, vi);
    if (e) break;
    lre[k] = (fcd_real)kr;
    lim[k] = (fcd_real)ki;
    if (!e) e = copy_vec(vr, gather, all, n, xr + k * n);
    if (!e) e = copy_vec(vi, gather, all, n, xi + k * n);
  }
  if (!e) *nconv = take;
  VecScatterDestroy(&gather);
  VecDestroy(&all);
  VecDestroy(&vr);
  VecDestroy(&vi);
  return e;
}

/* The error estimate of the first pair not yet converged, at the solver's last
 * iteration: what a capped or too-strict solve reached (the residual of its report). */
static PetscErrorCode track_error(PetscInt nconv, const PetscReal *errest, PetscInt nest,
                                  void *ctx) {
  fcd_real *reached = ctx;
  *reached = nconv < nest ? (fcd_real)errest[nconv] : 0.0;
  return 0;
}
static PetscErrorCode eps_track(EPS eps, PetscInt its, PetscInt nconv, PetscScalar *er,
                                PetscScalar *ei, PetscReal *errest, PetscInt nest, void *ctx) {
  (void)eps, (void)its, (void)er, (void)ei;
  return track_error(nconv, errest, nest, ctx);
}
static PetscErrorCode pep_track(PEP pep, PetscInt its, PetscInt nconv, PetscScalar *er,
                                PetscScalar *ei, PetscReal *errest, PetscInt nest, void *ctx) {
  (void)pep, (void)its, (void)er, (void)ei;
  return track_error(nconv, errest, nest, ctx);
}

/* K x = Lambda M x, non-symmetric (the reduced pencil of a contact state): Krylov-Schur
 * with shift-and-invert at the real target sigma, the nev eigenvalues nearest it, K -
 * sigma M factored by MUMPS (dist_lu). Real and imaginary parts of each eigenvector go to
 * xr, xi (n per pair); conjugate pairs come as two. */
fcd_status fcd__slepc_gen_nonsym(const fcd_system *sys, const fcd__eigseam *seam, fcd_index n,
                                 const fcd__csr *K, const fcd__csr *M, fcd_real sigma,
                                 fcd_index nev, fcd_real tol, fcd_index max_it,
                                 fcd_real *lre, fcd_real *lim, fcd_real *xr, fcd_real *xi,
                                 fcd_index *nconv, fcd_real *reached, fcd_index *order) {
  *nconv = 0;
  *reached = 0.0;
  FCD_TRY(fcd__petsc_acquire(sys));
  /* the host's communicator (a Fortran handle: no MPI type crosses the public API) */
  MPI_Comm comm = seam->shared ? MPI_Comm_f2c((MPI_Fint)seam->comm_f) : PETSC_COMM_SELF;
  int csize = 1;
  MPI_Comm_size(comm, &csize);
  fcd_status st = FCD_OK;
  Mat A = NULL, B = NULL;
  EPS eps = NULL;
  dist_lu dlu;
  memset(&dlu, 0, sizeof dlu);
  PetscErrorCode e = 0;
  const char *what = "";
  if (csize == 1) {
    st = make_seqaij(sys, n, K->rowptr, K->col, K->val, &A);
    if (st == FCD_OK) st = make_seqaij(sys, n, M->rowptr, M->col, M->val, &B);
  } else {
    st = make_mpiaij(sys, comm, n, K->rowptr, K->col, K->val, &A);
    if (st == FCD_OK) st = make_mpiaij(sys, comm, n, M->rowptr, M->col, M->val, &B);
  }
  dlu.op = "K* - sigma M*";
  shifted_op op = {2, {K, M, NULL}, {1.0, -sigma, 0.0}};
  if (st == FCD_OK) st = dist_lu_factor(sys, comm, n, &op, A, &dlu, order);
  if (st != FCD_OK) goto cleanup;
  {
    ST stx;
    P(EPSCreate(comm, &eps));
    P(EPSSetOperators(eps, A, B));
    P(EPSSetProblemType(eps, EPS_GNHEP));
    P(EPSSetType(eps, EPSKRYLOVSCHUR));
    P(EPSSetDimensions(eps, (PetscInt)nev, PETSC_DEFAULT, PETSC_DEFAULT));
    P(EPSSetTarget(eps, sigma));
    P(EPSSetWhichEigenpairs(eps, EPS_TARGET_MAGNITUDE));
    P(EPSSetTolerances(eps, tol, (PetscInt)max_it));
    P(EPSMonitorSet(eps, eps_track, reached, NULL));
    P(EPSGetST(eps, &stx));
    P(sinvert_shell(stx, &dlu));
    P(EPSSolve(eps));
    P(collect_pairs(eps, NULL, A, csize > 1, n, nev, lre, lim, xr, xi, nconv));
  }
  goto cleanup;
petsc_error:
  st = sinvert_fail(sys, &dlu, e, what);
cleanup:
  EPSDestroy(&eps);
  dist_lu_end(&dlu);
  MatDestroy(&A);
  MatDestroy(&B);
  fcd__petsc_release();
  return st;
}

/* (K + lambda C + lambda^2 M) x = 0: TOAR with shift-and-invert at the real target
 * sigma (MUMPS), the nev eigenvalues nearest it. Same conventions as gen_nonsym. */
fcd_status fcd__slepc_pep(const fcd_system *sys, const fcd__eigseam *seam, fcd_index n,
                          const fcd__csr *K, const fcd__csr *C, const fcd__csr *M,
                          fcd_real sigma, fcd_index nev, fcd_real tol, fcd_index max_it,
                          fcd_real *lre, fcd_real *lim, fcd_real *xr, fcd_real *xi,
                          fcd_index *nconv, fcd_real *reached) {
  *nconv = 0;
  *reached = 0.0;
  FCD_TRY(fcd__petsc_acquire(sys));
  MPI_Comm comm = seam->shared ? MPI_Comm_f2c((MPI_Fint)seam->comm_f) : PETSC_COMM_SELF;
  int csize = 1;
  MPI_Comm_size(comm, &csize);
  Mat A[3] = {NULL, NULL, NULL};
  PEP pep = NULL;
  dist_lu dlu;
  memset(&dlu, 0, sizeof dlu);
  dlu.op = "K* + sigma C* + sigma^2 M*";
  fcd_status st = FCD_OK;
  PetscErrorCode e = 0;
  const char *what = "";
  const fcd__csr *src[3] = {K, C, M};
  for (int k = 0; k < 3 && st == FCD_OK; k++)
    st = csize == 1 ? make_seqaij(sys, n, src[k]->rowptr, src[k]->col, src[k]->val, &A[k])
                    : make_mpiaij(sys, comm, n, src[k]->rowptr, src[k]->col, src[k]->val, &A[k]);
  shifted_op op = {3, {K, C, M}, {1.0, sigma, sigma * sigma}};
  if (st == FCD_OK) st = dist_lu_factor(sys, comm, n, &op, A[0], &dlu, NULL);
  if (st != FCD_OK) goto cleanup;
  {
    ST stx;
    P(PEPCreate(comm, &pep));
    P(PEPSetOperators(pep, 3, A));
    P(PEPSetProblemType(pep, PEP_GENERAL));
    P(PEPSetType(pep, PEPTOAR));
    P(PEPSetDimensions(pep, (PetscInt)nev, PETSC_DEFAULT, PETSC_DEFAULT));
    P(PEPSetTarget(pep, sigma));
    P(PEPSetWhichEigenpairs(pep, PEP_TARGET_MAGNITUDE));
    P(PEPSetTolerances(pep, tol, (PetscInt)max_it));
    P(PEPMonitorSet(pep, pep_track, reached, NULL));
    P(PEPGetST(pep, &stx));
    P(sinvert_shell(stx, &dlu));
    P(PEPSolve(pep));
    P(collect_pairs(NULL, pep, A[0], csize > 1, n, nev, lre, lim, xr, xi, nconv));
  }
  goto cleanup;
petsc_error:
  st = sinvert_fail(sys, &dlu, e, what);
cleanup:
  PEPDestroy(&pep);
  dist_lu_end(&dlu);
  for (int k = 0; k < 3; k++) MatDestroy(&A[k]);
  fcd__petsc_release();
  return st;
}
