/* PETSc binary matrices against PETSc itself (issue 11): a matrix fcd writes is loaded
 * by PETSc's MatLoad, and one PETSc's MatView writes is read by fcd; in both directions
 * the two products A x (PETSc's MatMult, fcd's fcd_system_apply) agree to round-off on
 * random x. A vector file, a truncated file and a size mismatch are refused with their
 * own status, and the system keeps its previous matrix. */
#include <fcd/fcd.h>
#include <petscmat.h>

#include "../fcdtest.h"

enum { N = 40 };

/* y = A x with PETSc */
static void petsc_apply(Mat A, const double *x, double *y) {
  Vec vx, vy;
  MatCreateVecs(A, &vx, &vy);
  for (PetscInt i = 0; i < N; i++) VecSetValue(vx, i, x[i], INSERT_VALUES);
  VecAssemblyBegin(vx);
  VecAssemblyEnd(vx);
  MatMult(A, vx, vy);
  const PetscScalar *a;
  VecGetArrayRead(vy, &a);
  for (PetscInt i = 0; i < N; i++) y[i] = a[i];
  VecRestoreArrayRead(vy, &a);
  VecDestroy(&vx);
  VecDestroy(&vy);
}

/* PETSc's own reader: a sequential AIJ matrix from a binary file, or NULL */
static Mat petsc_load(const char *path) {
  Mat A = NULL;
  PetscViewer vw;
  if (PetscViewerBinaryOpen(PETSC_COMM_SELF, path, FILE_MODE_READ, &vw)) return NULL;
  MatCreate(PETSC_COMM_SELF, &A);
  MatSetType(A, MATSEQAIJ);
  PetscErrorCode e = MatLoad(A, vw);
  PetscViewerDestroy(&vw);
  if (e) MatDestroy(&A);
  return A;
}

static double max_rel_diff(const double *a, const double *b) {
  double d = 0, s = 0;
  for (int i = 0; i < N; i++) {
    d = fmax(d, fabs(a[i] - b[i]));
    s = fmax(s, fabs(b[i]));
  }
  return d / fmax(s, 1e-300);
}

int main(int argc, char **argv) {
  CHECK(PetscInitialize(&argc, &argv, NULL, NULL) == 0);
  char path[600], path2[600], pvec[600], ptrunc[600];
  fcdt_tmpfile(path, sizeof path, "pbin-fcd.petsc");
  fcdt_tmpfile(path2, sizeof path2, "pbin-petsc.petsc");
  fcdt_tmpfile(pvec, sizeof pvec, "pbin-vec.petsc");
  fcdt_tmpfile(ptrunc, sizeof ptrunc, "pbin-trunc.petsc");

  /* fcd -> PETSc: a random symmetric band matrix given by its upper triangle */
  fcd_system *sys = NULL;
  CHECK_ST(fcd_system_create(N, &sys), FCD_OK);
  fcd_index r[4 * N], c[4 * N];
  double v[4 * N], x[N], y1[N], y2[N];
  fcd_index nz = 0;
  for (int i = 0; i < N; i++)
    for (int j = i; j < N && j <= i + 3; j++) {
      r[nz] = i;
      c[nz] = j;
      v[nz++] = i == j ? 10 + fcdt_rand() : fcdt_rand() - 0.5;
    }
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, nz, r, c, v, FCD_COO_UPPER), FCD_OK);
  CHECK_ST(fcd_system_write_petsc_binary(sys, FCD_STIFFNESS, path), FCD_OK);
  for (int i = 0; i < N; i++) x[i] = fcdt_rand() - 0.5;
  PetscViewer vw;
  Mat A = petsc_load(path);
  CHECK(A != NULL);
  if (!A) return fcdt_finish("petsc_binary");
  PetscInt m = 0, n = 0;
  MatGetSize(A, &m, &n);
  CHECK(m == N && n == N);
  MatInfo info;
  MatGetInfo(A, MAT_LOCAL, &info);
  CHECK((fcd_index)info.nz_used == 2 * nz - N); /* both triangles */
  petsc_apply(A, x, y1);
  CHECK_ST(fcd_system_apply(sys, FCD_STIFFNESS, x, y2), FCD_OK);
  CHECK(max_rel_diff(y1, y2) < 1e-14);
  /* the entries back out (fcd_system_get_matrix_coo): PETSc's, both triangles */
  {
    fcd_index stored = 0, full = 0;
    CHECK_ST(fcd_system_matrix_nnz(sys, FCD_STIFFNESS, &stored, &full), FCD_OK);
    CHECK(full == 2 * nz - N && stored == nz);
    fcd_index *gr = malloc((size_t)full * sizeof *gr), *gc = malloc((size_t)full * sizeof *gc);
    double *gv = malloc((size_t)full * sizeof *gv);
    CHECK_ST(fcd_system_get_matrix_coo(sys, FCD_STIFFNESS, gr, gc, gv), FCD_OK);
    int same = 1, ordered = 1;
    for (fcd_index k = 0; k < full; k++) {
      PetscScalar pv = 0;
      PetscInt pi = (PetscInt)gr[k], pj = (PetscInt)gc[k];
      MatGetValues(A, 1, &pi, 1, &pj, &pv);
      same &= pv == gv[k];
      if (k > 0) ordered &= gr[k] > gr[k - 1] || (gr[k] == gr[k - 1] && gc[k] > gc[k - 1]);
    }
    CHECK(same && ordered);
    CHECK_ST(fcd_system_get_matrix_coo(sys, FCD_STIFFNESS, NULL, gc, gv), FCD_E_INVALID_ARG);
    CHECK_ST(fcd_system_get_matrix_coo(sys, FCD_MASS, gr, gc, gv), FCD_E_STATE);
    free(gr);
    free(gc);
    free(gv);
  }
  MatDestroy(&A);

  /* PETSc -> fcd: a non-symmetric damping-like matrix written by MatView */
  MatCreateSeqAIJ(PETSC_COMM_SELF, N, N, 3, NULL, &A);
  for (PetscInt i = 0; i < N; i++) {
    MatSetValue(A, i, i, 2 + fcdt_rand(), INSERT_VALUES);
    if (i + 1 < N) MatSetValue(A, i, i + 1, fcdt_rand(), INSERT_VALUES);
    if (i > 1) MatSetValue(A, i, i - 2, -fcdt_rand(), INSERT_VALUES);
  }
  MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY);
  MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY);
  CHECK(PetscViewerBinaryOpen(PETSC_COMM_SELF, path2, FILE_MODE_WRITE, &vw) == 0);
  CHECK(MatView(A, vw) == 0);
  PetscViewerDestroy(&vw);
  CHECK_ST(fcd_system_read_petsc_binary(sys, FCD_DAMPING, path2), FCD_OK);
  petsc_apply(A, x, y1);
  /* fcd_system_apply(FCD_DAMPING) adds Rayleigh terms, zero here */
  CHECK_ST(fcd_system_apply(sys, FCD_DAMPING, x, y2), FCD_OK);
  CHECK(max_rel_diff(y1, y2) < 1e-14);
  /* and back: fcd writes what it read, PETSc loads it, the same product */
  CHECK_ST(fcd_system_write_petsc_binary(sys, FCD_DAMPING, path), FCD_OK);
  Mat B = petsc_load(path);
  CHECK(B != NULL);
  PetscBool eq = PETSC_FALSE;
  if (B) MatEqual(A, B, &eq);
  CHECK(eq == PETSC_TRUE);
  MatDestroy(&B);
  MatDestroy(&A);

  /* refusals: a vector, a truncated matrix, the wrong size; the damping stays */
  Vec w;
  VecCreateSeq(PETSC_COMM_SELF, N, &w);
  VecSet(w, 1.0);
  CHECK(PetscViewerBinaryOpen(PETSC_COMM_SELF, pvec, FILE_MODE_WRITE, &vw) == 0);
  VecView(w, vw);
  PetscViewerDestroy(&vw);
  VecDestroy(&w);
  double before[N], after[N];
  fcd_system_apply(sys, FCD_DAMPING, x, before);
  CHECK_ST(fcd_system_read_petsc_binary(sys, FCD_DAMPING, pvec), FCD_E_FORMAT);
  CHECK_MSG(sys, "vector");
  FILE *in = fopen(path2, "rb"), *out = fopen(ptrunc, "wb");
  CHECK(in && out);
  if (in && out) {
    unsigned char buf[256];
    size_t k = fread(buf, 1, sizeof buf, in);
    fwrite(buf, 1, k > 100 ? 100 : k, out);
  }
  if (in) fclose(in);
  if (out) fclose(out);
  CHECK_ST(fcd_system_read_petsc_binary(sys, FCD_DAMPING, ptrunc), FCD_E_FORMAT);
  CHECK_MSG(sys, "truncated");
  fcd_system *small = NULL;
  CHECK_ST(fcd_system_create(N - 1, &small), FCD_OK);
  CHECK_ST(fcd_system_read_petsc_binary(small, FCD_DAMPING, path2), FCD_E_INVALID_ARG);
  CHECK_MSG(small, "40 x 40");
  fcd_system_destroy(small);
  CHECK_ST(fcd_system_read_petsc_binary(sys, FCD_DAMPING, "/nonexistent/x.petsc"), FCD_E_IO);
  /* the size from the header alone: PETSc's own file (40 x 40, 3N - 3 entries: the
   * diagonal, N - 1 above, N - 2 below), and the same refusals with their message */
  fcd_index nr = 0, nc = 0, nnz = 0;
  char eb[256];
  CHECK_ST(fcd_petsc_binary_size(path2, &nr, &nc, &nnz, eb, sizeof eb), FCD_OK);
  CHECK(nr == N && nc == N && nnz == 3 * N - 3);
  CHECK_ST(fcd_petsc_binary_size(path2, NULL, NULL, NULL, NULL, 0), FCD_OK);
  CHECK_ST(fcd_petsc_binary_size(pvec, &nr, &nc, &nnz, eb, sizeof eb), FCD_E_FORMAT);
  CHECK(strstr(eb, "vector") != NULL);
  CHECK_ST(fcd_petsc_binary_size(ptrunc, &nr, &nc, &nnz, eb, sizeof eb), FCD_E_FORMAT);
  CHECK(strstr(eb, "truncated") != NULL);
  CHECK_ST(fcd_petsc_binary_size("/nonexistent/x.petsc", &nr, &nc, &nnz, eb, sizeof eb),
           FCD_E_IO);
  CHECK(strstr(eb, "/nonexistent/x.petsc") != NULL);
  CHECK_ST(fcd_petsc_binary_size(NULL, &nr, &nc, &nnz, eb, sizeof eb), FCD_E_INVALID_ARG);
  fcd_system_apply(sys, FCD_DAMPING, x, after);
  CHECK(memcmp(before, after, sizeof before) == 0);
  CHECK_ST(fcd_system_write_petsc_binary(sys, FCD_MASS, path), FCD_E_STATE); /* never set */

  fcd_system_destroy(sys);
  int rc = fcdt_finish("petsc_binary");
  PetscFinalize();
  return rc;
}
