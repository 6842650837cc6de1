/* A host that keeps its model in PETSc (run under mpiexec -n 1, 2, 3): it assembles the
 * block's stiffness as its own MPIAIJ matrix (each rank setting the element entries of
 * its rows, PETSc's default row split), hands fcd its local rows (MatGetRow, global
 * columns) with its ownership range, and solves the steady-sliding equilibrium; the same
 * matrix written by MatView to a PETSc binary file and read back by fcd on the same
 * ranks (each rank reading its row block only) gives the same equilibrium. Both must
 * equal the serial CHOLMOD solve of the whole model to 1e-10 relative. */
#include <fcd/fcd.h>

#include <math.h>
#include <petscmat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/block2d.h"
#include "../fcdtest.h"

static int rank;

static double *solve(fcd_system *sys, const tb_block *b, double **r_out) {
  fcd_index n = b->ndofs, nt = b->nx + 1;
  fcd_index *dofs = malloc(sizeof *dofs * 2 * (size_t)nt);
  double *val = malloc(sizeof *val * 2 * (size_t)nt);
  for (int i = 0; i <= b->nx; i++) {
    dofs[2 * i] = 2 * tb_node(b, i, b->ny);
    dofs[2 * i + 1] = dofs[2 * i] + 1;
    val[2 * i] = 0.004 * b->h;
    val[2 * i + 1] = -0.01 * b->h;
  }
  CHECK_ST(fcd_system_fix_dofs(sys, 2 * nt, dofs, val), FCD_OK);
  free(dofs);
  free(val);
  fcd_contact_set *cs = NULL;
  fcd_equilibrium *eq = NULL;
  CHECK_ST(tb_block_contacts(b, sys, 0.4, 1.0, &cs), FCD_OK);
  CHECK_ST(fcd_equilibrium_create(sys, cs, &eq), FCD_OK);
  fcd_status st = fcd_equilibrium_solve(eq, FCD_EQ_STEADY_SLIDING, 0.0);
  CHECK_ST(st, FCD_OK);
  if (st != FCD_OK) fprintf(stderr, "rank %d: %s\n", rank, fcd_system_last_error(sys));
  double *u = calloc((size_t)n, sizeof *u);
  *r_out = calloc(2 * (size_t)nt, sizeof **r_out);
  fcd_equilibrium_get_state(eq, u);
  fcd_equilibrium_get_reactions(eq, *r_out);
  fcd_equilibrium_destroy(eq);
  fcd_contact_set_destroy(cs);
  return u;
}

int main(int argc, char **argv) {
  if (PetscInitialize(&argc, &argv, NULL, NULL)) return 1;
  int size;
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  int64_t comm_f = (int64_t)MPI_Comm_c2f(PETSC_COMM_WORLD);
  tb_block b;
  CHECK(tb_block_build(&b, 40, 10, 4.0, 1.0, 1000.0, 0.3, 0.0) == 0);
  fcd_index n = b.ndofs, m = 2 * (b.nx + 1);

  /* the serial reference */
  fcd_system *ser = NULL;
  CHECK_ST(tb_block_system(&b, &ser), FCD_OK);
  double *rs, *us = solve(ser, &b, &rs);

  /* the host's own PETSc matrix: entries of the rows it owns, both triangles */
  Mat K;
  PetscInt rb, re;
  PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, (PetscInt)n,
                         (PetscInt)n, 30, NULL, 30, NULL, &K));
  PetscCall(MatGetOwnershipRange(K, &rb, &re));
  for (fcd_index p = 0; p < b.nk; p++) {
    PetscInt i = (PetscInt)b.ki[p], j = (PetscInt)b.kj[p];
    if (i >= rb && i < re) PetscCall(MatSetValue(K, i, j, b.kv[p], ADD_VALUES));
    if (i != j && j >= rb && j < re) PetscCall(MatSetValue(K, j, i, b.kv[p], ADD_VALUES));
  }
  PetscCall(MatAssemblyBegin(K, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(K, MAT_FINAL_ASSEMBLY));
  /* its local rows as CSR in global numbering, handed over with the ownership range */
  fcd_index nl = re - rb, *rp = calloc((size_t)nl + 1, sizeof *rp);
  fcd_index cap = 64 * (nl + 1), *cols = malloc(sizeof *cols * (size_t)cap);
  double *vals = malloc(sizeof *vals * (size_t)cap);
  for (PetscInt i = rb; i < re; i++) {
    PetscInt nc;
    const PetscInt *cj;
    const PetscScalar *cv;
    PetscCall(MatGetRow(K, i, &nc, &cj, &cv));
    fcd_index at = rp[i - rb];
    for (PetscInt q = 0; q < nc && at + q < cap; q++) {
      cols[at + q] = cj[q];
      vals[at + q] = cv[q];
    }
    rp[i - rb + 1] = at + nc;
    PetscCall(MatRestoreRow(K, i, &nc, &cj, &cv));
  }
  CHECK(rp[nl] <= cap);
  fcd_system *host;
  CHECK_ST(fcd_system_create(n, &host), FCD_OK);
  CHECK_ST(fcd_system_set_distribution(host, comm_f, rb, re), FCD_OK);
  CHECK_ST(fcd_system_set_matrix_csr(host, FCD_STIFFNESS, rp, cols, vals, FCD_COO_FULL,
                                     FCD_COPY), FCD_OK);
  double *rh, *uh = solve(host, &b, &rh);
  double dh = fmax(fcdt_rel_diff(uh, us, n), fcdt_rel_diff(rh, rs, m));
  CHECK(dh < 1e-10);

  /* the same matrix through a PETSc binary file, each rank reading its rows */
  char path[512];
  fcdt_tmpfile(path, sizeof path, "K.petsc");
  PetscViewer vw;
  PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, path, FILE_MODE_WRITE, &vw));
  PetscCall(MatView(K, vw));
  PetscCall(PetscViewerDestroy(&vw));
  fcd_system *file;
  CHECK_ST(fcd_system_create(n, &file), FCD_OK);
  CHECK_ST(fcd_system_set_distribution(file, comm_f, rb, re), FCD_OK);
  CHECK_ST(fcd_system_read_petsc_binary(file, FCD_STIFFNESS, path), FCD_OK);
  fcd_index stored = 0;
  fcd_system_matrix_nnz(file, FCD_STIFFNESS, &stored, NULL);
  CHECK(stored == rp[nl]); /* this rank holds its rows only */
  double *rf, *uf = solve(file, &b, &rf);
  double df = fmax(fcdt_rel_diff(uf, us, n), fcdt_rel_diff(rf, rs, m));
  CHECK(df < 1e-10);
  double w[2] = {dh, df}, wa[2];
  MPI_Allreduce(w, wa, 2, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD);
  if (rank == 0)
    printf("%d rank(s): host PETSc matrix %.1e, PETSc binary file %.1e (largest relative "
           "difference to the serial solve; rank 0 owns rows [%lld, %lld) of %lld)\n", size,
           wa[0], wa[1], (long long)rb, (long long)re, (long long)n);
  fcd_system_destroy(file);
  fcd_system_destroy(host);
  fcd_system_destroy(ser);
  PetscCall(MatDestroy(&K));
  free(rp);
  free(cols);
  free(vals);
  free(us);
  free(rs);
  free(uh);
  free(rh);
  free(uf);
  free(rf);
  tb_block_free(&b);
  int failures = fcdt_failures, any;
  MPI_Allreduce(&failures, &any, 1, MPI_INT, MPI_MAX, PETSC_COMM_WORLD);
  if (rank == 0) printf("%d checks on rank 0, worst rank %d failed\n", fcdt_checks, any);
  fcd_finalize();
  PetscFinalize();
  return any ? 1 : 0;
}
