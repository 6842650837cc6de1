/* Component mode synthesis with the contact dofs kept physical (Craig and Bampton 1968;
 * ../shared/notes/reduction.md): u = T [u_b; q], T = [[I, 0], [Psi, Phi]], b the dofs the
 * contact rows weigh and the prescribed ones, Psi = -K_ii^-1 K_ib the constraint modes (the
 * static response of the interior to each kept dof), Phi the lowest fixed-interface modes
 * (K_ii phi = omega^2 M_ii phi, the kept dofs clamped, M-normalized). The contact rows act
 * on b only, so the laws, projections and certificates keep acting on physical dofs;
 * only the elastic interior is approximated. The reduced operators T' A T are dense. */
#include "capabilities.h"
#include "backend/lapack.h"

#include <string.h>

/* Up to this many interior dofs the fixed-interface modes come from one dense
 * generalized eigen-solve (LAPACK), beyond it from SLEPc on the clamped system */
#define FCD__CB_DENSE_MAX 1500
/* columns of T handled at once in the projections (n of them in memory) */
enum { CB_BLOCK = 64 };

void fcd__cb_clear(fcd__cb *cb) {
  fcd__free(cb->bdofs);
  fcd__free(cb->omega2);
  fcd__free(cb->T);
  fcd__free(cb->K);
  fcd__free(cb->M);
  fcd__free(cb->C);
  memset(cb, 0, sizeof *cb);
}

/* The kept dofs: the prescribed ones and every dof a contact row weighs (node contacts,
 * rigid ones and rows given whole alike), ascending */
static fcd_status kept_dofs(fcd_system *sys, fcd_contact_set *cs, fcd__cb *cb) {
  fcd_index n = sys->n;
  unsigned char *keep = fcd__calloc((size_t)n + 1, 1);
  if (!keep) return fcd__err(sys, FCD_E_NOMEM, "out of memory marking the kept dofs");
  for (fcd_index k = 0; k < sys->nfixed; k++) keep[sys->fixed_list[k]] = 1;
  if (cs) {
    const fcd__csr *H;
    fcd_status st = fcd__contact_set_operator(cs, &H);
    if (st != FCD_OK) {
      fcd__free(keep);
      return st;
    }
    for (fcd_index e = 0; e < H->rowptr[H->n]; e++)
      if (H->val[e] != 0) keep[H->col[e]] = 1;
  }
  fcd_index nb = 0;
  for (fcd_index i = 0; i < n; i++) nb += keep[i];
  cb->bdofs = fcd__malloc_array((size_t)nb + 1, sizeof *cb->bdofs);
  if (!cb->bdofs) {
    fcd__free(keep);
    return fcd__err(sys, FCD_E_NOMEM, "out of memory listing the kept dofs");
  }
  cb->nb = 0;
  for (fcd_index i = 0; i < n; i++)
    if (keep[i]) cb->bdofs[cb->nb++] = i;
  fcd__free(keep);
  return FCD_OK;
}

/* The clamped system: sys's mass and stiffness (borrowed) with the kept dofs prescribed,
 * whose free dofs are the interior */
static fcd_status clamped_system(fcd_system *sys, const fcd__cb *cb, fcd_system **out) {
  *out = NULL;
  fcd_system *ci;
  if (fcd_system_create(sys->n, &ci) != FCD_OK)
    return fcd__err(sys, FCD_E_NOMEM, "out of memory for the clamped system of a reduction");
  fcd_status st = FCD_OK;
  const fcd_matrix_kind kinds[] = {FCD_MASS, FCD_STIFFNESS};
  for (int k = 0; k < 2 && st == FCD_OK; k++) {
    const fcd__csr *a = &sys->mat[kinds[k]];
    st = fcd_system_set_matrix_csr(ci, kinds[k], a->rowptr, a->col, a->val,
                                   a->upper ? FCD_COO_UPPER : FCD_COO_FULL, FCD_BORROW);
  }
  if (st == FCD_OK && cb->nb > 0) st = fcd_system_fix_dofs(ci, cb->nb, cb->bdofs, NULL);
  if (st != FCD_OK) {
    fcd__err(sys, st, "the clamped system of a reduction: %s", fcd_system_last_error(ci));
    fcd_system_destroy(ci);
    return st;
  }
  *out = ci;
  return FCD_OK;
}

/* The constraint modes, T's first nb columns: e_j on the kept dof j, -K_ii^-1 K_ij on the
 * interior, one factorization of K_ii (f, on ci's free dofs) and blocks of solves */
static fcd_status constraint_modes(fcd_system *sys, fcd_system *ci, fcd__factor *f,
                                   fcd__cb *cb) {
  fcd_index n = sys->n, ni = ci->nfree;
  fcd_real *y = fcd__malloc_array((size_t)n, sizeof *y);
  fcd_real *rhs = fcd__malloc_array((size_t)(ni * CB_BLOCK) + 1, sizeof *rhs);
  fcd_real *e = fcd__calloc((size_t)n, sizeof *e);
  fcd_status st = y && rhs && e ? FCD_OK
                                : fcd__err(sys, FCD_E_NOMEM, "out of memory for the constraint "
                                           "modes of %lld kept dofs", (long long)cb->nb);
  for (fcd_index j0 = 0; j0 < cb->nb && st == FCD_OK; j0 += CB_BLOCK) {
    fcd_index nj = cb->nb - j0 < CB_BLOCK ? cb->nb - j0 : CB_BLOCK;
    for (fcd_index j = 0; j < nj; j++) {
      fcd_index dof = cb->bdofs[j0 + j];
      e[dof] = 1;
      fcd__rows_apply_local(sys, FCD_STIFFNESS, e, y); /* column dof of K: K is symmetric */
      e[dof] = 0;
      for (fcd_index i = 0; i < n; i++) y[i] = -y[i];
      fcd__full_to_free(ci, y, rhs + j * ni);
    }
    if (ni > 0) st = fcd__factor_solve(f, nj, rhs, rhs);
    for (fcd_index j = 0; j < nj && st == FCD_OK; j++) {
      fcd_real *col = cb->T + (j0 + j) * n;
      memset(col, 0, (size_t)n * sizeof *col);
      col[cb->bdofs[j0 + j]] = 1;
      fcd__free_to_full(ci, rhs + j * ni, col);
    }
  }
  fcd__free(y);
  fcd__free(rhs);
  fcd__free(e);
  return st;
}

/* A matrix of sys (CSR) on ci's free dofs as a dense column-major block (ni x ni) */
static void interior_dense(const fcd_system *ci, const fcd__csr *a, fcd_real *D) {
  fcd_index ni = ci->nfree;
  memset(D, 0, (size_t)ni * (size_t)ni * sizeof *D);
  for (fcd_index r = 0; r < a->n; r++) {
    fcd_index fr = ci->free_of[r];
    if (fr < 0) continue;
    for (fcd_index p = a->rowptr[r]; p < a->rowptr[r + 1]; p++) {
      fcd_index fc = ci->free_of[a->col[p]];
      if (fc < 0) continue;
      D[fc * ni + fr] += a->val[p];
      if (a->upper && fc != fr) D[fr * ni + fc] += a->val[p];
    }
  }
}

/* The m lowest fixed-interface modes into T's last m columns (zero on the kept dofs) and
 * their omega^2: one dense eigen-solve for a small interior, SLEPc's shift-and-invert on
 * the clamped system for a large one */
static fcd_status interface_modes(fcd_system *sys, fcd_system *ci, fcd_index dense_max,
                                  fcd__cb *cb) {
  fcd_index n = sys->n, ni = ci->nfree, m = cb->m;
  fcd_real *Phi = cb->T + cb->nb * n;
  if (m == 0) return FCD_OK;
  if (ni > dense_max) {
    fcd_index nconv = 0;
    fcd_status st = fcd_system_natural_modes(ci, m, cb->omega2, Phi, &nconv);
    if (st != FCD_OK)
      return fcd__err(sys, st, "the fixed-interface modes of a reduction: %s",
                      fcd_system_last_error(ci));
    return FCD_OK;
  }
  fcd_real *A = fcd__malloc_array((size_t)ni * (size_t)ni, sizeof *A);
  fcd_real *B = fcd__malloc_array((size_t)ni * (size_t)ni, sizeof *B);
  fcd_real *w = fcd__malloc_array((size_t)ni, sizeof *w);
  fcd_status st = FCD_OK;
  if (!A || !B || !w) {
    st = fcd__err(sys, FCD_E_NOMEM, "out of memory for the fixed-interface modes of %lld "
                  "interior dofs", (long long)ni);
  } else {
    interior_dense(ci, &sys->mat[FCD_STIFFNESS], A);
    interior_dense(ci, &sys->mat[FCD_MASS], B);
    int info = fcd__la_sygv_cm(ni, A, B, w);
    if (info != 0)
      st = fcd__err(sys, info > ni ? FCD_E_NOT_SPD : FCD_E_BACKEND, "the fixed-interface "
                    "modes of a reduction: LAPACK's dsygvd returned %d%s", info,
                    info > ni ? " (the interior mass is not positive definite)" : "");
  }
  for (fcd_index k = 0; k < m && st == FCD_OK; k++) {
    cb->omega2[k] = w[k];
    memset(Phi + k * n, 0, (size_t)n * sizeof *Phi);
    fcd__free_to_full(ci, A + k * ni, Phi + k * n);
  }
  fcd__free(A);
  fcd__free(B);
  fcd__free(w);
  return st;
}

/* out (nr x nr, column-major) = T' A T for the matrix which of sys (its Rayleigh terms
 * left out), by blocks of columns: Y = A T_blk (n x CB_BLOCK), out_blk = T' Y */
static fcd_status project(fcd_system *sys, const fcd__cb *cb, fcd_matrix_kind which,
                          fcd_real *out) {
  fcd_index n = sys->n, nr = cb->nr;
  const fcd__csr *a = &sys->mat[which];
  fcd_real *Y = fcd__malloc_array((size_t)n * CB_BLOCK + 1, sizeof *Y);
  fcd_real *tmp = fcd__malloc_array((size_t)nr * CB_BLOCK + 1, sizeof *tmp);
  if (!Y || !tmp) {
    fcd__free(Y);
    fcd__free(tmp);
    return fcd__err(sys, FCD_E_NOMEM, "out of memory projecting the %s matrix",
                    fcd__matrix_name(which));
  }
  int info = 0;
  for (fcd_index j0 = 0; j0 < nr && info == 0; j0 += CB_BLOCK) {
    fcd_index nj = nr - j0 < CB_BLOCK ? nr - j0 : CB_BLOCK;
    memset(Y, 0, (size_t)n * (size_t)nj * sizeof *Y);
    for (fcd_index j = 0; j < nj; j++) fcd__csr_gaxpy(a, 1.0, cb->T + (j0 + j) * n, Y + j * n);
    info = fcd__la_gemm_tn(nr, nj, n, cb->T, Y, tmp);
    for (fcd_index j = 0; j < nj && info == 0; j++)
      memcpy(out + (j0 + j) * nr, tmp + j * nr, (size_t)nr * sizeof *out);
  }
  fcd__free(Y);
  fcd__free(tmp);
  if (info != 0)
    return fcd__err(sys, FCD_E_UNSUPPORTED, "a reduced basis of %lld vectors of %lld dofs is "
                    "beyond BLAS' int indices", (long long)nr, (long long)n);
  return FCD_OK;
}

static fcd_status cb_check(fcd_system *sys, fcd_index m) {
  if (fcd__dist_on(sys))
    return fcd__err(sys, FCD_E_UNSUPPORTED, "reduction: not offered on a distributed system");
  if (!sys->mat[FCD_MASS].set || !sys->mat[FCD_STIFFNESS].set)
    return fcd__err(sys, FCD_E_STATE, "reduction: the system needs a mass and a stiffness "
                    "matrix");
  if (m < 0) return fcd__err(sys, FCD_E_INVALID_ARG, "reduction: %lld modes", (long long)m);
  const fcd_matrix_kind kinds[] = {FCD_MASS, FCD_STIFFNESS};
  for (int k = 0; k < 2; k++) {
    fcd_real asym = fcd__system_asymmetry(sys, kinds[k]);
    if (!(asym <= FCD__ASYM_TOL))
      return fcd__err(sys, FCD_E_UNSUPPORTED, "reduction: the %s matrix is not symmetric "
                      "(relative asymmetry %.3g); the fixed-interface modes and the "
                      "constraint modes need a symmetric one", fcd__matrix_name(kinds[k]),
                      asym);
  }
  return FCD_OK;
}

/* The interior's factor, T and the reduced operators, on the clamped system ci */
static fcd_status cb_basis(fcd_system *sys, fcd_system *ci, fcd_index dense_max, fcd__cb *cb) {
  fcd_index n = sys->n;
  cb->omega2 = fcd__malloc_array((size_t)cb->m + 1, sizeof *cb->omega2);
  cb->T = fcd__malloc_array((size_t)n * (size_t)cb->nr + 1, sizeof *cb->T);
  cb->K = fcd__malloc_array((size_t)cb->nr * (size_t)cb->nr + 1, sizeof *cb->K);
  cb->M = fcd__malloc_array((size_t)cb->nr * (size_t)cb->nr + 1, sizeof *cb->M);
  int damped = sys->mat[FCD_DAMPING].set;
  if (damped) cb->C = fcd__malloc_array((size_t)cb->nr * (size_t)cb->nr + 1, sizeof *cb->C);
  if (!cb->omega2 || !cb->T || !cb->K || !cb->M || (damped && !cb->C))
    return fcd__err(sys, FCD_E_NOMEM, "out of memory for a reduced basis of %lld vectors of "
                    "%lld dofs", (long long)cb->nr, (long long)n);
  fcd__factor *f = NULL;
  fcd_status st = FCD_OK;
  if (ci->nfree > 0) {
    st = fcd__factor_create(ci, FCD__FACTOR_SPD, &f);
    if (st == FCD_OK) st = fcd__factor_combination(f, 0, 0, 1);
    if (st != FCD_OK)
      st = fcd__err(sys, st, "reduction: the stiffness of the interior (the dofs neither "
                    "prescribed nor in a contact row) cannot be factored, a part free to "
                    "move without the kept dofs?: %s", fcd_system_last_error(ci));
  }
  if (st == FCD_OK) st = constraint_modes(sys, ci, f, cb);
  fcd__factor_destroy(f);
  if (st == FCD_OK) st = interface_modes(sys, ci, dense_max, cb);
  if (st == FCD_OK) st = project(sys, cb, FCD_STIFFNESS, cb->K);
  if (st == FCD_OK) st = project(sys, cb, FCD_MASS, cb->M);
  if (st == FCD_OK && damped) st = project(sys, cb, FCD_DAMPING, cb->C);
  return st;
}

fcd_status fcd__cb_build(fcd_system *sys, fcd_contact_set *cs, fcd_index m,
                         fcd_index dense_max, fcd__cb *cb) {
  memset(cb, 0, sizeof *cb);
  FCD_TRY(cb_check(sys, m));
  if (cs && cs->sys != sys)
    return fcd__err(sys, FCD_E_INVALID_ARG, "reduction: the contact set belongs to another "
                    "system");
  cb->n = sys->n;
  fcd_status st = kept_dofs(sys, cs, cb);
  fcd_index ni = sys->n - cb->nb;
  if (st == FCD_OK && m > ni)
    st = fcd__err(sys, FCD_E_INVALID_ARG, "reduction: %lld modes asked, the interior has "
                  "%lld dofs", (long long)m, (long long)ni);
  cb->m = m;
  cb->nr = cb->nb + m;
  fcd_system *ci = NULL;
  if (st == FCD_OK) st = clamped_system(sys, cb, &ci);
  if (st == FCD_OK) st = cb_basis(sys, ci, dense_max > 0 ? dense_max : FCD__CB_DENSE_MAX, cb);
  fcd_system_destroy(ci);
  if (st != FCD_OK) fcd__cb_clear(cb);
  return st;
}
