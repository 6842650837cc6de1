/* Component mode synthesis with the contact dofs kept physical (Craig and Bampton 1968;
 * ../shared/notes/reduction.md): u = T [u_b; q], T = [[I, 0], [Psi, Phi]], b the dofs the
 * contact rows weigh and the prescribed ones, Psi = -K_ii^-1 K_ib the constraint modes (the
 * static response of the interior to each kept dof), Phi the lowest fixed-interface modes
 * (K_ii phi = omega^2 M_ii phi, the kept dofs clamped, M-normalized). The contact rows act
 * on b only, so the laws, projections and certificates keep acting on physical dofs;
 * only the elastic interior is approximated. The reduced operators T' A T are dense. */
#include "reduction_private.h"
#include "lapack.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

/* Up to this many interior dofs the fixed-interface modes come from one dense
 * generalized eigen-solve (LAPACK), beyond it from SLEPc on the clamped system */
#define FCD__CB_DENSE_MAX 1500
/* columns of T handled at once in the projections (n of them in memory) */
enum { CB_BLOCK = 64 };
/* the columns of a sparse product that read the matrix once (fcd__csr_gaxpy_block):
 * its row-major copies are 2 n CB_SPMM numbers */
enum { CB_SPMM = 16 };

void fcd__cb_clear(fcd__cb *cb) {
  fcd__free(cb->bdofs);
  fcd__free(cb->omega2);
  if (!cb->T) fcd__free(cb->Q); /* stored: Q is part of T */
  fcd__free(cb->T);
  fcd__cb_psi_destroy(cb->psi);
  fcd__free(cb->K);
  fcd__free(cb->M);
  fcd__free(cb->C);
  fcd__free(cb->fpos);
  fcd__free(cb->Cband);
  fcd__free(cb->Phi);
  fcd__free(cb->phiw2);
  memset(cb, 0, sizeof *cb);
}

/* The kept dofs: the prescribed ones and every dof a contact row weighs (node contacts,
 * rigid ones and rows given whole alike), ascending */
fcd_status fcd__cb_kept_dofs(fcd_system *sys, fcd_contact_set *cs, fcd__cb *cb) {
  fcd_index n = sys->n;
  unsigned char *keep = fcd__calloc((size_t)n + 1, 1);
  if (!keep) return fcd__err(sys, FCD_E_NOMEM, "out of memory marking the kept dofs");
  /* a prescribed dof held at zero for good (no prescribed function) never moves: its
   * constraint mode would always be multiplied by zero, so it is left out of the basis
   * (clamped, like the kept dofs, for the interior's modes) */
  for (fcd_index k = 0; k < sys->nfixed; k++) {
    fcd_index d = sys->fixed_list[k];
    if (sys->presc_fn || sys->fixed_value[d] != 0) keep[d] = 1;
  }
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
  if (st == FCD_OK && sys->nfixed > 0) st = fcd_system_fix_dofs(ci, sys->nfixed, sys->fixed_list, NULL);
  if (st != FCD_OK) {
    fcd__err(sys, st, "the clamped system of a reduction: %s", fcd_system_last_error(ci));
    fcd_system_destroy(ci);
    return st;
  }
  *out = ci;
  return FCD_OK;
}

/* The constraint modes into T's first nb columns (stored basis), by blocks of solves
 * on the interior's factor */
static fcd_status constraint_modes(fcd_system *sys, fcd__cb *cb) {
  fcd_status st = FCD_OK;
  for (fcd_index j0 = 0; j0 < cb->nb && st == FCD_OK; j0 += CB_BLOCK) {
    fcd_index nj = cb->nb - j0 < CB_BLOCK ? cb->nb - j0 : CB_BLOCK;
    st = fcd__cb_tb_unit(cb, j0, nj, cb->T + j0 * cb->n, NULL);
  }
  if (st != FCD_OK)
    return fcd__err(sys, st, "the constraint modes of %lld kept dofs: %s", (long long)cb->nb,
                    st == FCD_E_NOMEM ? "out of memory" : "a solve failed");
  cb->tstored = 1;
  return FCD_OK;
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
 * their omega^2: one dense eigen-solve for a small interior, block Lanczos on the
 * interior's factor f for a large one (reduction_modes.c), SLEPc's shift-and-invert on
 * the clamped system where that declines */
static fcd_status interface_modes(fcd_system *sys, fcd_system *ci, fcd__factor *f,
                                  fcd_index dense_max, fcd__cb *cb) {
  fcd_index n = sys->n, ni = ci->nfree, m = cb->m - cb->ncorr - cb->ndyn;
  fcd_real *Phi = cb->Q;
  if (m == 0) return FCD_OK;
  int slepc_only = dense_max < 0;
  if (slepc_only) dense_max = -dense_max;
  if (ni > dense_max && !slepc_only) {
    /* the block solver's modes straight into T's columns */
    int done = 0;
    fcd_status st = fcd__cb_block_modes(ci, f, m, cb->space, cb->omega2, Phi, &done, NULL);
    if (st != FCD_OK)
      return fcd__err(sys, st, "the fixed-interface modes of a reduction: %s",
                      fcd_system_last_error(ci));
    if (done) return FCD_OK;
  }
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

/* Whether the constant load has a nonzero entry on the interior (neither kept nor
 * prescribed): the constraint modes do not carry its static response, the modes only
 * approximate it */
static int interior_loaded(const fcd_system *sys, const fcd__cb *cb) {
  if (!sys->load) return 0;
  fcd_index j = 0;
  for (fcd_index i = 0; i < sys->n; i++) {
    while (j < cb->nb && cb->bdofs[j] < i) j++;
    if (sys->load[i] != 0 && !sys->is_fixed[i] && !(j < cb->nb && cb->bdofs[j] == i)) return 1;
  }
  return 0;
}

/* The static correction (modal truncation augmentation): the interior's static response
 * to the constant load with the kept dofs held, x = K_ii^-1 f_i, less its part in the
 * modes (M-orthogonal Gram-Schmidt, twice), M-normalized, as the last modal column. It is
 * K-orthogonal to the modes too (phi' K x = omega^2 phi' M x), and with it the reduced
 * model's static answer to that load is the full one whatever the modes kept. When the
 * modes already span it (every mode kept), the column is dropped. */
static fcd_status static_correction(fcd_system *sys, fcd_system *ci, fcd__factor *f,
                                    fcd__cb *cb) {
  fcd_index n = sys->n, ni = ci->nfree, k0 = cb->m - 1;
  fcd_real *x = cb->Q + k0 * n, *Phi = cb->Q;
  fcd_real *fi = fcd__malloc_array((size_t)ni + 1, sizeof *fi);
  fcd_real *y = fcd__malloc_array((size_t)n, sizeof *y);
  fcd_status st = fi && y ? FCD_OK
                          : fcd__err(sys, FCD_E_NOMEM, "out of memory for the static "
                                     "correction of a reduction");
  if (st == FCD_OK) {
    fcd__full_to_free(ci, sys->load, fi);
    st = fcd__factor_solve(f, 1, fi, fi);
  }
  fcd_real nrm0 = 0, nrm = 0;
  if (st == FCD_OK) {
    memset(x, 0, (size_t)n * sizeof *x);
    fcd__free_to_full(ci, fi, x);
  }
  for (int pass = 0; pass < 3 && st == FCD_OK; pass++) {
    memset(y, 0, (size_t)n * sizeof *y);
    fcd__csr_gaxpy(&sys->mat[FCD_MASS], 1.0, x, y);
    fcd_real xmx = 0;
    for (fcd_index i = 0; i < n; i++) xmx += x[i] * y[i];
    if (pass == 0) nrm0 = sqrt(fmax(xmx, 0));
    nrm = sqrt(fmax(xmx, 0));
    if (pass == 2) break;
    for (fcd_index k = 0; k < k0; k++) {
      const fcd_real *ph = Phi + k * n;
      fcd_real c = 0;
      for (fcd_index i = 0; i < n; i++) c += ph[i] * y[i];
      for (fcd_index i = 0; i < n; i++) x[i] -= c * ph[i];
    }
  }
  if (st == FCD_OK && nrm > 1e-8 * nrm0 && nrm > 0) {
    for (fcd_index i = 0; i < n; i++) x[i] /= nrm;
    memset(y, 0, (size_t)n * sizeof *y);
    fcd__csr_gaxpy(&sys->mat[FCD_STIFFNESS], 1.0, x, y);
    fcd_real xkx = 0;
    for (fcd_index i = 0; i < n; i++) xkx += x[i] * y[i];
    cb->omega2[k0] = xkx;
  } else if (st == FCD_OK) {
    cb->ncorr = 0;
    cb->m--;
    cb->nr--;
  }
  fcd__free(fi);
  fcd__free(y);
  return st;
}

/* The inertia correction (an enriched Craig-Bampton basis; docs/reduction.md). The
 * constraint modes' inertia forces G = M T_b load the interior, and what the kept modes
 * miss of its response is R = F_rs G_i, F_rs = K_ii^-1 - Phi Lambda^-1 Phi' the residual
 * flexibility: the reduced dynamic stiffness of the kept dofs lacks omega^4 G' R +
 * O(omega^6), the first term truncation loses at low frequency (the coupling of a
 * friction instability reaches far above its own band). G' R = R' K R, so the dominant
 * eigenvectors V of that nb x nb matrix are the kept-dof patterns whose missing
 * flexibility stores the most strain energy; R V for the p largest (fewer when the rest
 * vanish against the largest: every mode kept, or fewer independent patterns) become
 * modal columns, M-orthonormal and M-orthogonal to the modes. Their T' K T_b is zero
 * like the modes' (they vanish on the kept dofs), so the projections stand.
 * The modes' part is not removed from all nb columns: with A = Phi' G, G' R = G' K_ii^-1 G
 * - A' Lambda^-1 A and R V = K_ii^-1 G V - Phi Lambda^-1 A V, and only the p columns kept
 * are made M-orthogonal to the modes explicitly (the identities hold to the modes'
 * residuals). Neither G nor R0 = K_ii^-1 G_i (n x nb each) is held: G' R0 = T_b' M R0
 * and A are made by blocks of columns, and R0 V = K_ii^-1 (M T_b V)_i for the p kept. */
typedef struct {
  fcd_index n, nb, mfi, p;
  fcd_real *A, *S, *w, *V, *B;
} inertia_ws;

static void inertia_free(inertia_ws *w) {
  fcd__free(w->A);
  fcd__free(w->S);
  fcd__free(w->w);
  fcd__free(w->V);
  fcd__free(w->B);
}

/* X (n x nj, full length) = K_ii^-1 (M X)_i, zero off the interior (Y, rhs: work) */
static fcd_status inertia_response(fcd_system *sys, fcd_system *ci, fcd__factor *f,
                                   fcd_index nj, fcd_real *X, fcd_real *Y, fcd_real *rhs) {
  fcd_index n = sys->n, ni = ci->nfree;
  for (fcd_index j = 0; j < nj; j++) {
    memset(Y + j * n, 0, (size_t)n * sizeof *Y);
    fcd__csr_gaxpy(&sys->mat[FCD_MASS], 1.0, X + j * n, Y + j * n);
    fcd__full_to_free(ci, Y + j * n, rhs + j * ni);
  }
  fcd_status st = ni > 0 ? fcd__factor_solve(f, nj, rhs, rhs) : FCD_OK;
  for (fcd_index j = 0; j < nj && st == FCD_OK; j++) {
    memset(X + j * n, 0, (size_t)n * sizeof *X);
    fcd__free_to_full(ci, rhs + j * ni, X + j * n);
  }
  return st;
}

/* S = G' R0 = T_b' M R0 and A = Phi' G, by blocks of the constraint modes */
static fcd_status inertia_gram(fcd_system *sys, fcd_system *ci, fcd__factor *f,
                               const fcd__cb *cb, inertia_ws *w) {
  fcd_index n = w->n, ni = ci->nfree, m = w->mfi;
  fcd_real *X = fcd__malloc_array((size_t)n * CB_BLOCK, sizeof *X);
  fcd_real *Y = fcd__malloc_array((size_t)n * CB_BLOCK, sizeof *Y);
  fcd_real *rhs = fcd__malloc_array((size_t)ni * CB_BLOCK + 1, sizeof *rhs);
  fcd_status st = X && Y && rhs ? FCD_OK : FCD_E_NOMEM;
  for (fcd_index j0 = 0; j0 < w->nb && st == FCD_OK; j0 += CB_BLOCK) {
    fcd_index nj = w->nb - j0 < CB_BLOCK ? w->nb - j0 : CB_BLOCK;
    st = fcd__cb_tb_unit(cb, j0, nj, X, Y);
    if (st == FCD_OK && m > 0) {
      /* A's columns: Phi' M T_blk (Phi vanishes off the interior) */
      for (fcd_index j = 0; j < nj; j++) {
        memset(Y + j * n, 0, (size_t)n * sizeof *Y);
        fcd__csr_gaxpy(&sys->mat[FCD_MASS], 1.0, X + j * n, Y + j * n);
      }
      if (fcd__la_gemm_tn(m, nj, n, cb->Q, Y, w->A + j0 * m) != 0) st = FCD_E_UNSUPPORTED;
    }
    if (st == FCD_OK) st = inertia_response(sys, ci, f, nj, X, Y, rhs);
    for (fcd_index j = 0; j < nj && st == FCD_OK; j++) {
      memset(Y + j * n, 0, (size_t)n * sizeof *Y);
      fcd__csr_gaxpy(&sys->mat[FCD_MASS], 1.0, X + j * n, Y + j * n);
    }
    if (st == FCD_OK) st = fcd__cb_tbt_consume(cb, 0, nj, Y, w->S + j0 * w->nb);
  }
  fcd__free(X);
  fcd__free(Y);
  fcd__free(rhs);
  return st;
}

/* Each of the k columns of U (rows r) with its largest entry positive: an eigenvector's
 * sign is LAPACK's choice, which round-off flips where a reflector meets a zero (the same
 * basis by another sequence of solves would differ in the sign of a column) */
static void fix_signs(fcd_index r, fcd_index k, fcd_real *U) {
  for (fcd_index j = 0; j < k; j++) {
    fcd_real *u = U + j * r, big = 0;
    for (fcd_index i = 0; i < r; i++)
      if (fabs(u[i]) > fabs(big) * (1 + 1e-9)) big = u[i];
    if (big < 0)
      for (fcd_index i = 0; i < r; i++) u[i] = -u[i];
  }
}

/* S -= A' Lambda^-1 A, then S's p dominant eigenvectors (w->V, ascending eigenvalues in
 * w->w); B = Lambda^-1 A kept for the columns */
static int inertia_directions(const fcd__cb *cb, inertia_ws *w) {
  fcd_index nb = w->nb, m = w->mfi;
  int info = 0;
  if (m > 0) {
    for (fcd_index j = 0; j < nb; j++)
      for (fcd_index k = 0; k < m; k++) w->B[j * m + k] = w->A[j * m + k] / cb->omega2[k];
    info = fcd__la_gemm_tn_acc(nb, nb, m, -1.0, w->A, w->B, w->S);
  }
  /* symmetric in exact arithmetic; its upper triangle is read */
  if (info == 0) info = fcd__la_syev_top_cm(nb, w->p, w->S, w->w, w->V);
  if (info == 0) fix_signs(nb, w->p, w->V);
  return info;
}

/* X (n x k) M-orthonormal in place: X U diag(s)^-1/2 for X' M X = U diag(s) U', the
 * directions with s below 1e-13 of the largest dropped (*kept of them stay).
 * work: n x k; S, U: k x k; w: k. */
static int m_orthonormalize(const fcd__csr *M, fcd_index n, fcd_index k, fcd_real *X,
                            fcd_real *work, fcd_real *S, fcd_real *U, fcd_real *w,
                            fcd_index *kept) {
  *kept = 0;
  if (k == 0) return 0;
  for (fcd_index j = 0; j < k; j++) {
    memset(work + j * n, 0, (size_t)n * sizeof *work);
    fcd__csr_gaxpy(M, 1.0, X + j * n, work + j * n);
  }
  int info = fcd__la_gemm_tn(k, k, n, X, work, S);
  if (info == 0) info = fcd__la_syev_top_cm(k, k, S, w, U);
  if (info != 0) return info;
  fix_signs(k, k, U);
  /* ascending: the largest last; the columns of U from the largest down */
  fcd_index nk = 0;
  for (fcd_index j = k - 1; j >= 0 && w[j] > 1e-13 * w[k - 1] && w[j] > 0; j--) {
    fcd_real sc = 1 / sqrt(w[j]);
    for (fcd_index i = 0; i < k; i++) S[nk * k + i] = U[j * k + i] * sc;
    nk++;
  }
  memcpy(work, X, (size_t)n * (size_t)k * sizeof *work);
  if (nk > 0) info = fcd__la_gemm_nn(n, nk, k, 1.0, work, S, 0.0, X);
  *kept = nk;
  return info;
}

/* X = R V for the p kept directions (V's last p columns): K_ii^-1 (M T_b V)_i, less the
 * modes' part Phi Lambda^-1 A V, which is then removed once more explicitly
 * (M-orthogonal Gram-Schmidt against Phi). work: n x p; rhs: ni x p. */
static fcd_status inertia_columns(fcd_system *sys, fcd_system *ci, fcd__factor *f,
                                  const fcd__cb *cb, inertia_ws *w, fcd_index p, fcd_real *X,
                                  fcd_real *work, fcd_real *rhs) {
  fcd_index n = w->n, nb = w->nb, m = w->mfi;
  const fcd_real *Phi = cb->Q, *V = w->V + (w->p - p) * nb;
  fcd_status st = fcd__cb_tb(cb, p, V, X);
  if (st == FCD_OK) st = inertia_response(sys, ci, f, p, X, work, rhs);
  if (st != FCD_OK || m == 0) return st;
  /* C = Lambda^-1 A V (m x p), X -= Phi C */
  int info = fcd__la_gemm_nn(m, p, nb, 1.0, w->B, V, 0.0, w->S);
  if (info == 0) info = fcd__la_gemm_nn(n, p, m, -1.0, Phi, w->S, 1.0, X);
  for (fcd_index j = 0; j < p && info == 0; j++) {
    memset(work + j * n, 0, (size_t)n * sizeof *work);
    fcd__csr_gaxpy(&sys->mat[FCD_MASS], 1.0, X + j * n, work + j * n);
  }
  if (info == 0) info = fcd__la_gemm_tn(m, p, n, Phi, work, w->S);
  if (info == 0) info = fcd__la_gemm_nn(n, p, m, -1.0, Phi, w->S, 1.0, X);
  return info == 0 ? FCD_OK : FCD_E_UNSUPPORTED;
}

static fcd_status inertia_correction(fcd_system *sys, fcd_system *ci, fcd__factor *f,
                                     fcd__cb *cb) {
  inertia_ws w = {.n = sys->n, .nb = cb->nb, .mfi = cb->m - cb->ncorr - cb->ndyn,
                  .p = cb->ndyn};
  fcd_index n = w.n, nb = w.nb, m = w.mfi, smax = nb > m ? nb : m, ni = ci->nfree;
  w.A = fcd__malloc_array((size_t)m * (size_t)nb + 1, sizeof *w.A);
  w.B = fcd__malloc_array((size_t)m * (size_t)nb + 1, sizeof *w.B);
  w.S = fcd__malloc_array((size_t)smax * (size_t)nb, sizeof *w.S);
  w.w = fcd__malloc_array((size_t)nb, sizeof *w.w);
  w.V = fcd__malloc_array((size_t)nb * (size_t)w.p, sizeof *w.V);
  fcd_real *work = fcd__malloc_array((size_t)n * (size_t)w.p, sizeof *work);
  fcd_real *rhs = fcd__malloc_array((size_t)ni * (size_t)w.p + 1, sizeof *rhs);
  fcd_status st = FCD_OK;
  if (!w.A || !w.B || !w.S || !w.w || !w.V || !work || !rhs) st = FCD_E_NOMEM;
  if (st == FCD_OK) st = inertia_gram(sys, ci, f, cb, &w);
  int info = st == FCD_OK ? inertia_directions(cb, &w) : 0;
  /* ascending: the kept directions are the last p */
  fcd_index p = 0, kept = 0;
  fcd_real *X = cb->Q + m * n;
  if (st == FCD_OK && info == 0) {
    fcd_real top = w.w[w.p - 1];
    while (p < w.p && top > 0 && w.w[w.p - 1 - p] > 1e-12 * top) p++;
    if (p > 0) st = inertia_columns(sys, ci, f, cb, &w, p, X, work, rhs);
  }
  if (st == FCD_OK && info == 0)
    info = m_orthonormalize(&sys->mat[FCD_MASS], n, p, X, work, w.S, w.V, w.w, &kept);
  inertia_free(&w);
  fcd__free(work);
  fcd__free(rhs);
  if (st != FCD_OK)
    return fcd__err(sys, st, "%s for the inertia correction of %lld kept dofs",
                    st == FCD_E_NOMEM ? "out of memory"
                    : st == FCD_E_UNSUPPORTED ? "beyond BLAS' int indices" : "a solve failed",
                    (long long)nb);
  if (info != 0)
    return fcd__err(sys, info == FCD__LA_TOO_BIG ? FCD_E_UNSUPPORTED : FCD_E_BACKEND,
                    "the inertia correction of a reduction: %s %d",
                    info == FCD__LA_TOO_BIG ? "beyond BLAS' int indices," : "LAPACK returned",
                    info);
  /* the dropped directions leave the basis (the static correction comes next) */
  fcd_index lost = cb->ndyn - kept;
  cb->ndyn = kept;
  cb->m -= lost;
  cb->nr -= lost;
  return FCD_OK;
}

/* The columns j0 .. j0 + nj - 1 of T' A T (one side of nb: constraint modes or modal
 * columns) from Y = A T_blk (tmp: nb x nj), Y consumed; the stiffness' on the modal
 * columns alone (project_kept makes the others): T' K Phi is Phi' K Phi, its coupling with
 * the constraint modes zero. A symmetric matrix needs the rows from the block's first
 * column on (the rest is mirrored by the caller). The modal rows come first: T_b' Y's
 * solves take Y's memory. */
static fcd_status project_block(const fcd__cb *cb, fcd_matrix_kind which, int symmetric,
                                fcd_index j0, fcd_index nj, fcd_real *Y, fcd_real *tmp,
                                fcd_real *out) {
  fcd_index n = cb->n, nr = cb->nr, nb = cb->nb, m = cb->m;
  if (which == FCD_STIFFNESS) {
    for (fcd_index j = 0; j < nj; j++) memset(out + (j0 + j) * nr, 0, (size_t)nr * sizeof *out);
    if (m == 0) return FCD_OK;
    if (fcd__la_gemm_tn(m, nj, n, cb->Q, Y, tmp) != 0) return FCD_E_UNSUPPORTED;
    for (fcd_index j = 0; j < nj; j++)
      memcpy(out + (j0 + j) * nr + nb, tmp + j * m, (size_t)m * sizeof *out);
    return FCD_OK;
  }
  /* the modal rows: from j0 on (symmetric), all of them otherwise */
  fcd_index k0 = symmetric && j0 > nb ? j0 - nb : 0;
  if (m - k0 > 0) {
    if (fcd__la_gemm_tn(m - k0, nj, n, cb->Q + k0 * n, Y, tmp) != 0) return FCD_E_UNSUPPORTED;
    for (fcd_index j = 0; j < nj; j++)
      memcpy(out + (j0 + j) * nr + nb + k0, tmp + j * (m - k0), (size_t)(m - k0) * sizeof *out);
  }
  /* the kept rows: from j0 on too; none for a symmetric matrix's modal columns */
  fcd_index i0 = symmetric ? j0 : 0;
  if (i0 < nb) {
    FCD_TRY(fcd__cb_tbt_consume(cb, i0, nj, Y, tmp));
    for (fcd_index j = 0; j < nj; j++)
      memcpy(out + (j0 + j) * nr + i0, tmp + j * (nb - i0), (size_t)(nb - i0) * sizeof *out);
  }
  return FCD_OK;
}

/* The rows of A at the kept dofs, both triangles (an upper-stored entry stands for its
 * mirror), as CSR over the kept places: K T_b is needed on them alone */
typedef struct {
  fcd_index *rowptr, *col;
  fcd_real *val;
} kept_rows;

static void kept_rows_free(kept_rows *k) {
  fcd__free(k->rowptr);
  fcd__free(k->col);
  fcd__free(k->val);
}

static fcd_status kept_rows_make(const fcd__csr *a, const fcd__cb *cb, kept_rows *k) {
  fcd_index n = a->n, nb = cb->nb;
  memset(k, 0, sizeof *k);
  fcd_index *place = fcd__malloc_array((size_t)n + 1, sizeof *place);
  k->rowptr = fcd__calloc((size_t)nb + 2, sizeof *k->rowptr);
  if (!place || !k->rowptr) {
    fcd__free(place);
    return FCD_E_NOMEM;
  }
  for (fcd_index i = 0; i < n; i++) place[i] = -1;
  for (fcd_index j = 0; j < nb; j++) place[cb->bdofs[j]] = j;
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 1) {
      for (fcd_index i = 0; i < nb; i++) k->rowptr[i + 1] += k->rowptr[i];
      k->col = fcd__malloc_array((size_t)k->rowptr[nb] + 1, sizeof *k->col);
      k->val = fcd__malloc_array((size_t)k->rowptr[nb] + 1, sizeof *k->val);
      if (!k->col || !k->val) {
        fcd__free(place);
        return FCD_E_NOMEM;
      }
    }
    for (fcd_index r = 0; r < n; r++)
      for (fcd_index e = a->rowptr[r]; e < a->rowptr[r + 1]; e++) {
        fcd_index c = a->col[e];
        for (int mirror = 0; mirror < 1 + (a->upper && r != c); mirror++) {
          fcd_index row = place[mirror ? c : r], cl = mirror ? r : c;
          if (row < 0) continue;
          if (pass == 0) {
            k->rowptr[row + 1]++;
          } else { /* rowptr[row] runs as the row's cursor, shifted back below */
            k->col[k->rowptr[row]] = cl;
            k->val[k->rowptr[row]++] = a->val[e];
          }
        }
      }
  }
  for (fcd_index i = nb; i > 0; i--) k->rowptr[i] = k->rowptr[i - 1];
  k->rowptr[0] = 0;
  fcd__free(place);
  return FCD_OK;
}

/* columns j0 .. j0 + nj - 1 (constraint modes, X) of T' K T: the kept rows of K T_b (its
 * interior rows vanish: K_ii Psi = -K_ib, to the factor's accuracy; its coupling with the
 * modes too) */
static void project_kept(const fcd__cb *cb, const kept_rows *k, fcd_index j0, fcd_index nj,
                         const fcd_real *X, fcd_real *out) {
  fcd_index n = cb->n, nr = cb->nr, nb = cb->nb;
  for (fcd_index j = 0; j < nj; j++) {
    fcd_real *o = out + (j0 + j) * nr;
    const fcd_real *x = X + j * n;
    memset(o, 0, (size_t)nr * sizeof *o);
    for (fcd_index i = 0; i < nb; i++) {
      fcd_real s = 0;
      for (fcd_index e = k->rowptr[i]; e < k->rowptr[i + 1]; e++) s += k->val[e] * x[k->col[e]];
      o[i] = s;
    }
  }
}

/* K, M (and C) = T' A T for the matrices of sys (their Rayleigh terms left out; C NULL
 * without a damping matrix), by blocks of columns: each block of T made once (a factored
 * basis: one solve a column), then for each matrix Y = A T_blk, out_blk = T' Y */
static fcd_status project(fcd_system *sys, fcd__cb *cb) {
  fcd_index n = sys->n, nr = cb->nr, nb = cb->nb;
  const fcd_matrix_kind kinds[3] = {FCD_STIFFNESS, FCD_MASS, FCD_DAMPING};
  fcd_real *outs[3] = {cb->K, cb->M, cb->C};
  int nmat = cb->C ? 3 : 2, symmetric[3];
  for (int q = 0; q < nmat; q++)
    symmetric[q] = fcd__system_asymmetry(sys, kinds[q]) <= FCD__ASYM_TOL;
  fcd_index tmpr = nb > cb->m ? nb : cb->m;
  fcd_real *X = nb > 0 ? fcd__malloc_array((size_t)n * CB_BLOCK, sizeof *X) : NULL;
  fcd_real *Y = fcd__malloc_array((size_t)n * CB_BLOCK + 1, sizeof *Y);
  fcd_real *tmp = fcd__malloc_array((size_t)tmpr * CB_BLOCK + 1, sizeof *tmp);
  fcd_real *xr = fcd__malloc_array((size_t)n * CB_SPMM + 1, sizeof *xr);
  fcd_real *yr = fcd__malloc_array((size_t)n * CB_SPMM + 1, sizeof *yr);
  kept_rows kr = {0};
  fcd_status st = (X || nb == 0) && Y && tmp && xr && yr ? FCD_OK : FCD_E_NOMEM;
  if (st == FCD_OK) st = kept_rows_make(&sys->mat[FCD_STIFFNESS], cb, &kr);
  int q = 0;
  for (fcd_index j0 = 0; j0 < nr && st == FCD_OK;) {
    /* blocks end at nb: the constraint modes, then the modal columns */
    fcd_index end = j0 < nb ? nb : nr, nj = end - j0 < CB_BLOCK ? end - j0 : CB_BLOCK;
    const fcd_real *src = X;
    if (j0 < nb) st = fcd__cb_tb_unit(cb, j0, nj, X, Y);
    else src = cb->Q + (j0 - nb) * n;
    for (q = 0; q < nmat && st == FCD_OK; q++) {
      const fcd__csr *a = &sys->mat[kinds[q]];
      if (kinds[q] == FCD_STIFFNESS && j0 < nb) {
        project_kept(cb, &kr, j0, nj, src, outs[q]);
        continue;
      }
      memset(Y, 0, (size_t)n * (size_t)nj * sizeof *Y);
      for (fcd_index j = 0; j < nj; j += CB_SPMM)
        fcd__csr_gaxpy_block(a, 1.0, nj - j < CB_SPMM ? nj - j : CB_SPMM, src + j * n,
                             Y + j * n, xr, yr);
      st = project_block(cb, kinds[q], symmetric[q], j0, nj, Y, tmp, outs[q]);
    }
    j0 += nj;
  }
  for (int k = 1; k < nmat && st == FCD_OK; k++)
    if (symmetric[k])
      for (fcd_index j = 0; j < nr; j++)
        for (fcd_index i = 0; i < j; i++) outs[k][j * nr + i] = outs[k][i * nr + j];
  fcd__free(X);
  fcd__free(Y);
  fcd__free(tmp);
  fcd__free(xr);
  fcd__free(yr);
  kept_rows_free(&kr);
  if (st == FCD_E_UNSUPPORTED)
    return fcd__err(sys, st, "a reduced basis of %lld vectors of %lld dofs is beyond BLAS' "
                    "int indices", (long long)nr, (long long)n);
  if (st != FCD_OK)
    return fcd__err(sys, st, "projecting the %s matrix: %s",
                    fcd__matrix_name(kinds[q > 0 ? q - 1 : 0]),
                    st == FCD_E_NOMEM ? "out of memory" : "a solve failed");
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

/* The numbers of the build's phases after the modes: the blocks (X and Y, whose memory
 * a solve's right-hand sides take in turn, CHOLMOD's two arrays of a solve of as many,
 * kept by the factor from one solve to the next, the row-major copies, extra more ni-long
 * columns), the inertia correction's arrays with them and its own right-hand sides, the
 * band's and the reduced system's */
static void cb_phase_numbers(const fcd_system *sys, const fcd__cb *cb, double extra,
                             double *blocks, double *inertia, double *band, double *rows) {
  double n = (double)cb->n, nr2 = (double)cb->nr * (double)cb->nr, ni = (double)cb->ni;
  double m = (double)(cb->m - cb->ncorr - cb->ndyn), p = (double)cb->ndyn, nb = (double)cb->nb;
  int nmat = sys->mat[FCD_DAMPING].set ? 3 : 2;
  *blocks = (2 * n + 2 * ni + fmax(nb, (double)cb->m)) * CB_BLOCK + 2 * n * CB_SPMM + extra * ni;
  *inertia = p > 0 ? 2 * m * nb + nb * fmax(nb, m) + nb * p + (n + ni) * p + *blocks +
                         ni * CB_BLOCK
                   : 0;
  *band = 10 * nr2;
  *rows = 2 * nr2 + 2 * (nmat + 1) * nr2;
}

/* The dense arrays of a basis of nr vectors at their peak, in bytes: the basis (T, n x nr,
 * stored; the modal columns alone, n x m, factored) and the reduced K, M (and C)
 * throughout, with, in turn, the fixed-interface modes' work (LAPACK's two ni x ni arrays
 * for a small interior, the block solver's space and its blocks for a large one),
 * the blocks of the constraint modes and their products, or the inertia correction's
 * (its Gram matrix, A and B, the p columns and their solves); the band's work (eight
 * nr x nr arrays, its modes and its damping: reduction_band.c); and the reduced system's
 * matrices stored as rows (an 8-byte value and an 8-byte column an entry), one more in
 * the making. The interior's factorization comes on top. */
static double cb_dense_bytes(const fcd_system *sys, const fcd__cb *cb, fcd_index dense_max,
                             int factored, fcd_index space) {
  double n = (double)cb->n, nr = (double)cb->nr, ni = (double)cb->ni, nr2 = nr * nr;
  double m = (double)(cb->m - cb->ncorr - cb->ndyn);
  int nmat = sys->mat[FCD_DAMPING].set ? 3 : 2;
  double modes = m == 0                     ? 0
                 : ni <= (double)dense_max ? 2 * ni * ni
                                           : fcd__cb_block_modes_numbers(cb->n, cb->ni,
                                                                         (fcd_index)m, space);
  double base = (factored ? n * (double)cb->m : n * nr) + nmat * nr2;
  double blocks, inertia, band, rows;
  cb_phase_numbers(sys, cb, 0, &blocks, &inertia, &band, &rows);
  double build = fmax(ni * CB_BLOCK + modes, fmax(inertia, blocks));
  return 8 * (base + fmax(build, fmax(band, rows)));
}

/* The bytes the process may hold: the caller's limit, the machine's (or its cgroup's)
 * when lower or when none is given */
static double cb_limit(const fcd__cb *cb) {
  double lim = fcd__memory_limit();
  return cb->mem_limit > 0 && cb->mem_limit < lim ? cb->mem_limit : lim;
}

/* A reduction whose dense arrays exceed the memory left to the process (its limit less
 * what it holds: the caller's model and, once made, the interior's factor) is refused
 * before they are made: allocations past it are granted on Linux and the process killed
 * when they are filled. The modes' solver counts in its least space (it is fitted to
 * what is left once the factor is made, cb_space). */
static fcd_status cb_fits(fcd_system *sys, const fcd__cb *cb, fcd_index dense_max,
                          int factored, int factor_made) {
  double need = cb_dense_bytes(sys, cb, dense_max, factored, 1);
  double lim = cb_limit(cb), held = fcd__resident_bytes(), have = lim - held;
  if (need <= have) return FCD_OK;
  return fcd__err(sys, FCD_E_NOMEM, "reduction: its dense arrays need %.1f GiB (the basis of "
                  "%lld dofs x %lld vectors%s, %lld kept dofs and %lld modes, the reduced "
                  "operators and their band), more than the %.1f GiB this process has left "
                  "(%.1f GiB%s, %.1f held%s): fewer kept dofs (relative interface "
                  "coordinates keep one node a pair) or modes, or more memory",
                  need / 1073741824.0, (long long)cb->n, (long long)cb->nr,
                  factored ? ", its constraint modes factored" : "", (long long)cb->nb,
                  (long long)(cb->m - cb->ncorr - cb->ndyn), fmax(have, 0) / 1073741824.0,
                  lim / 1073741824.0, lim < fcd__memory_limit() ? " allowed" : "",
                  held / 1073741824.0, factor_made ? ", the interior's factor included" : "");
}

/* The block Lanczos' space (0: its default) within what is left once the factor is made:
 * the limit less what the process holds and the arrays beside the solver (the basis' and
 * the reduced operators', the other build terms of cb_dense_bytes) */
static fcd_index cb_space(const fcd_system *sys, const fcd__cb *cb, fcd_index dense_max,
                          int factored) {
  fcd_index m = cb->m - cb->ncorr - cb->ndyn;
  if (m == 0 || cb->ni <= dense_max) return 0;
  double left = cb_limit(cb) - fcd__resident_bytes();
  double others = cb_dense_bytes(sys, cb, dense_max, factored, 1) -
                  8 * fcd__cb_block_modes_numbers(cb->n, cb->ni, m, 1);
  return fcd__cb_block_space_fit(cb->n, cb->ni, m, (left - others) / 8);
}

/* Whether the constraint modes are factored: as asked, or (FCD_BASIS_AUTO) when storing
 * them (n x nb numbers) would take more than keeping the factor (f_bytes; the coupling
 * block K_ib beside it is a few dozen numbers a kept dof). The time is much the same either way (the brake at 25k and 154k dofs:
 * the stored basis' products with T, n nb^2 flops for M, against one more solve a column
 * on the factor), an expansion cheaper factored (a solve against an n x nr product). */
static int cb_factored(const fcd__cb *cb, int storage, double f_bytes) {
  if (storage != FCD_BASIS_AUTO) return storage == FCD_BASIS_FACTORED;
  double stored = 8.0 * (double)cb->n * (double)cb->nb;
  return stored > f_bytes;
}

/* W of the factored basis (reduction_basis.c), kept for the inertia correction and the
 * projections when it pays and fits: its entries (16 bytes each, an upper bound known
 * before they are made) at most a third of the factor's bytes, so that its sparse product
 * costs less than the forward half solve it saves, and what is left under the limit once
 * the modes are made holding it beside the phases still to come (the largest of the
 * inertia correction's arrays, the blocks of the projection and of W's products, the
 * band's, the reduced system's) */
static fcd_status cb_forward(fcd_system *sys, fcd__cb *cb) {
  cb->fwd_bytes = 0;
  if (!cb->psi || cb->nb == 0) return FCD_OK;
  /* W's products copy 16 columns of a block row by row (reduction_basis.c, W_CHUNK) */
  double blocks, inertia, band, rows;
  cb_phase_numbers(sys, cb, 16, &blocks, &inertia, &band, &rows);
  double later = 8 * fmax(fmax(inertia, blocks), fmax(band, rows));
  double room = cb_limit(cb) - fcd__resident_bytes() - later;
  double cap = cb->fwd_always ? INFINITY : fmin(cb->factor_bytes / 3, room), bytes = 0;
  fcd_status st = fcd__cb_psi_forward(cb->psi, cap, &bytes);
  if (st != FCD_OK)
    return fcd__err(sys, st, "%s for the constraint modes' forward halves (%lld kept dofs)",
                    st == FCD_E_NOMEM ? "out of memory" : "a half solve failed",
                    (long long)cb->nb);
  if (bytes > 0 && bytes <= cap) cb->fwd_bytes = bytes;
  return FCD_OK;
}

/* The interior's factor, the basis and the reduced operators, on the clamped system
 * (*ci, which the basis takes) */
static fcd_status cb_basis(fcd_system *sys, fcd_system **ci, fcd_index dense_max, int storage,
                           fcd__cb *cb) {
  fcd_index n = sys->n;
  fcd__factor *f = NULL;
  fcd_status st = FCD_OK;
  if ((*ci)->nfree > 0) {
    st = fcd__factor_create(*ci, FCD__FACTOR_SPD, &f);
    if (st == FCD_OK) st = fcd__factor_combination(f, 0, 0, 1);
    /* the factor made, the interior's K in full storage (its values, pattern and maps,
     * 5 nnz numbers) is not read again: the solves need L alone */
    fcd__factor_release_values(f);
    fcd__system_release_free_pattern(*ci);
    if (st != FCD_OK)
      st = fcd__err(sys, st, "reduction: the stiffness of the interior (the dofs neither "
                    "prescribed nor in a contact row) cannot be factored, a part free to "
                    "move without the kept dofs?: %s", fcd_system_last_error(*ci));
  }
  cb->factor_bytes = fcd__factor_bytes(f);
  int factored = cb_factored(cb, storage, cb->factor_bytes);
  /* again with the factor made: what the process holds now counts it */
  if (st == FCD_OK) st = cb_fits(sys, cb, dense_max, factored, f != NULL);
  if (st == FCD_OK) cb->space = cb_space(sys, cb, dense_max, factored);
  cb->peak_bytes = cb_dense_bytes(sys, cb, dense_max, factored, cb->space);
  fcd_system *c = *ci;
  if (st == FCD_OK) {
    st = fcd__cb_psi_create(sys, cb, c, f, &cb->psi);
    if (st == FCD_OK) *ci = NULL; /* the basis' now, with f */
    else st = fcd__err(sys, st, "out of memory for the coupling of %lld kept dofs",
                       (long long)cb->nb);
  }
  if (st != FCD_OK) {
    fcd__factor_destroy(f);
    return st;
  }
  int damped = sys->mat[FCD_DAMPING].set;
  cb->omega2 = fcd__malloc_array((size_t)cb->m + 1, sizeof *cb->omega2);
  if (factored) {
    cb->Q = fcd__malloc_array((size_t)n * (size_t)cb->m + 1, sizeof *cb->Q);
  } else {
    cb->T = fcd__malloc_array((size_t)n * (size_t)cb->nr + 1, sizeof *cb->T);
    cb->Q = cb->T ? cb->T + cb->nb * n : NULL;
  }
  cb->K = fcd__malloc_array((size_t)cb->nr * (size_t)cb->nr + 1, sizeof *cb->K);
  cb->M = fcd__malloc_array((size_t)cb->nr * (size_t)cb->nr + 1, sizeof *cb->M);
  if (damped) cb->C = fcd__malloc_array((size_t)cb->nr * (size_t)cb->nr + 1, sizeof *cb->C);
  if (!cb->omega2 || !cb->Q || !cb->K || !cb->M || (damped && !cb->C))
    st = fcd__err(sys, FCD_E_NOMEM, "out of memory for a reduced basis of %lld vectors of "
                  "%lld dofs", (long long)cb->nr, (long long)n);
  if (st == FCD_OK && !factored) st = constraint_modes(sys, cb);
  if (st == FCD_OK) st = interface_modes(sys, c, f, dense_max, cb);
  if (st == FCD_OK && factored) st = cb_forward(sys, cb);
  if (st == FCD_OK && cb->ndyn > 0) st = inertia_correction(sys, c, f, cb);
  if (st == FCD_OK && cb->ncorr > 0) st = static_correction(sys, c, f, cb);
  if (!factored) { /* T holds the constraint modes: the factor is done with */
    fcd__cb_psi_destroy(cb->psi);
    cb->psi = NULL;
  }
  if (st == FCD_OK) st = project(sys, cb);
  /* the model made, T_b's products are few (expansions, a row): whole solves will do */
  if (cb->psi) fcd__cb_psi_forget(cb->psi);
  /* the inertia columns' omega^2: their Rayleigh quotients, K_r's diagonal */
  for (fcd_index k = cb->m - cb->ncorr - cb->ndyn; st == FCD_OK && k < cb->m - cb->ncorr; k++)
    cb->omega2[k] = cb->K[(cb->nb + k) * cb->nr + cb->nb + k];
  return st;
}

/* fcd__cb_build with the kept dofs from cs, or (kept not NULL) given */
static fcd_status cb_build(fcd_system *sys, fcd_contact_set *cs, fcd_index nkept,
                           const fcd_index *kept, fcd_index m, fcd_index ninertia,
                           fcd_index dense_max, int storage, double mem_limit, fcd__cb *cb) {
  memset(cb, 0, sizeof *cb);
  cb->mem_limit = mem_limit;
  cb->fwd_always = (storage & FCD__BASIS_HALVES) != 0;
  storage &= ~FCD__BASIS_HALVES;
  FCD_TRY(cb_check(sys, m));
  if (cs && cs->sys != sys)
    return fcd__err(sys, FCD_E_INVALID_ARG, "reduction: the contact set belongs to another "
                    "system");
  cb->n = sys->n;
  fcd_status st = FCD_OK;
  if (kept) {
    cb->bdofs = fcd__malloc_array((size_t)nkept + 1, sizeof *cb->bdofs);
    if (!cb->bdofs) return fcd__err(sys, FCD_E_NOMEM, "out of memory listing the kept dofs");
    if (nkept > 0) memcpy(cb->bdofs, kept, (size_t)nkept * sizeof *kept);
    cb->nb = nkept;
  } else {
    st = fcd__cb_kept_dofs(sys, cs, cb);
  }
  fcd_system *ci = NULL;
  if (st == FCD_OK) st = clamped_system(sys, cb, &ci);
  /* the interior: ci's free dofs, neither kept nor prescribed (a dof held at zero is not
   * kept) */
  fcd_index ni = ci ? ci->nfree : 0;
  if (st == FCD_OK && m > ni)
    st = fcd__err(sys, FCD_E_INVALID_ARG, "reduction: %lld modes asked, the interior has "
                  "%lld dofs", (long long)m, (long long)ni);
  if (st == FCD_OK && (ninertia < 0 || ninertia > cb->nb || ninertia > ni - m))
    st = fcd__err(sys, FCD_E_INVALID_ARG, "reduction: %lld inertia correction vectors asked; "
                  "at most the kept dofs (%lld) and the interior's dofs less the modes (%lld)",
                  (long long)ninertia, (long long)cb->nb, (long long)(ni - m));
  if (st == FCD_OK) {
    /* the counts only once they are checked: m = INT64_MAX overflowed nb + m here */
    cb->ni = ni;
    cb->band_hz = cb->cut_hz = INFINITY;
    cb->ndyn = ninertia;
    /* a constant interior load adds its static correction, unless every mode is kept */
    cb->ncorr = m < ni && interior_loaded(sys, cb) ? 1 : 0;
    cb->m = m + cb->ncorr + cb->ndyn;
    cb->nr = cb->nb + cb->m;
    if (cb->nr == 0)
      st = ni == 0 ? fcd__err(sys, FCD_E_INVALID_ARG, "reduction: every dof of the system is "
                              "prescribed at zero: the reduced model would have no dof")
                   : fcd__err(sys, FCD_E_INVALID_ARG, "reduction: nothing is kept (no contact "
                              "row, no moving prescribed dof) and no mode is asked: the "
                              "reduced model would have no dof");
    else /* the factored basis, the smaller, unless the stored one is asked */
      st = cb_fits(sys, cb, dense_max != 0 ? dense_max : FCD__CB_DENSE_MAX,
                   storage != FCD_BASIS_STORED, 0);
    if (st == FCD_OK)
      st = cb_basis(sys, &ci, dense_max != 0 ? dense_max : FCD__CB_DENSE_MAX, storage, cb);
  }
  fcd_system_destroy(ci);
  if (st != FCD_OK) fcd__cb_clear(cb);
  return st;
}

fcd_status fcd__cb_build(fcd_system *sys, fcd_contact_set *cs, fcd_index m,
                         fcd_index ninertia, fcd_index dense_max, int storage,
                         double mem_limit, fcd__cb *cb) {
  return cb_build(sys, cs, 0, NULL, m, ninertia, dense_max, storage, mem_limit, cb);
}

fcd_status fcd__cb_build_kept(fcd_system *sys, fcd_index nkept, const fcd_index *kept,
                              fcd_index m, int storage, double mem_limit, fcd__cb *cb) {
  return cb_build(sys, NULL, nkept, kept, m, 0, 0, storage, mem_limit, cb);
}

/* ---- the public handle: a reduced system and its contacts ---- */

static int red_valid(const fcd_reduction *r) {
  return r && r->magic == FCD_REDUCTION_MAGIC;
}

/* the reduced system's dofs: nr, or the modal coordinates' nz */
static fcd_index red_size(const fcd_reduction *r) {
  return r->md ? r->md->nz : r->cb.nr;
}

/* the reduced load at t: the full load projected, T' f(t) */
static int red_load(void *ud, fcd_real t, fcd_index nr, fcd_real *fr) {
  fcd_reduction *r = ud;
  if (nr != red_size(r) || fcd_system_eval_load(r->full, t, r->fbuf) != FCD_OK) return 1;
  fcd__rel_transpose(r, r->fbuf);
  if (!r->md) return fcd__cb_project_vec(&r->cb, r->fbuf, fr) != FCD_OK;
  if (fcd__cb_project_vec(&r->cb, r->fbuf, r->md->g) != FCD_OK) return 1;
  return fcd__modal_load(r, r->md->g, fr);
}

/* the kept prescribed dofs at t: the full system's, which are the same dofs in the same
 * order (the kept dofs keep their order, and every prescribed dof is kept) */
static int red_prescribed(void *ud, fcd_real t, fcd_index nfixed, const fcd_index *dofs,
                          fcd_real *u, fcd_real *v) {
  fcd_reduction *r = ud;
  (void)dofs;
  if (nfixed != r->full->nfixed) return 1;
  return fcd_system_eval_prescribed(r->full, t, u, v) != FCD_OK;
}

/* A dense nr x nr matrix (column-major) as a full-storage CSR of the reduced system;
 * symmetric ones symmetrized exactly (T' A T by BLAS is symmetric to round-off only) */
static fcd_status red_matrix(fcd_reduction *r, fcd_matrix_kind which, const fcd_real *A,
                             int symmetric) {
  fcd_index nr = r->cb.nr;
  fcd_index *rp = fcd__malloc_array((size_t)nr + 1, sizeof *rp);
  fcd_index *ci = fcd__malloc_array((size_t)(nr * nr) + 1, sizeof *ci);
  fcd_real *v = fcd__malloc_array((size_t)(nr * nr) + 1, sizeof *v);
  fcd_status st = FCD_OK;
  if (!rp || !ci || !v) {
    st = fcd__err(r->full, FCD_E_NOMEM, "out of memory for a reduced matrix of %lld dofs",
                  (long long)nr);
  } else {
    for (fcd_index i = 0; i <= nr; i++) rp[i] = i * nr;
    for (fcd_index i = 0; i < nr; i++)
      for (fcd_index j = 0; j < nr; j++) {
        ci[i * nr + j] = j;
        v[i * nr + j] = symmetric ? 0.5 * (A[j * nr + i] + A[i * nr + j]) : A[j * nr + i];
      }
    st = fcd_system_set_matrix_csr(r->sys, which, rp, ci, v, FCD_COO_FULL, FCD_COPY);
    if (st != FCD_OK)
      fcd__err(r->full, st, "the reduced system: %s", fcd_system_last_error(r->sys));
  }
  fcd__free(rp);
  fcd__free(ci);
  fcd__free(v);
  return st;
}

/* the reduced system: matrices, Rayleigh coefficients, prescribed dofs, loads */
static fcd_status red_system(fcd_reduction *r) {
  fcd_system *full = r->full;
  const fcd__cb *cb = &r->cb;
  if (fcd_system_create(red_size(r), &r->sys) != FCD_OK)
    return fcd__err(full, FCD_E_NOMEM, "out of memory for the reduced system");
  fcd_status st = FCD_OK;
  if (r->md) {
    FCD_TRY(fcd__modal_system(r));
  } else {
    FCD_TRY(red_matrix(r, FCD_STIFFNESS, cb->K, 1));
    FCD_TRY(red_matrix(r, FCD_MASS, cb->M, 1));
    if (cb->C) FCD_TRY(red_matrix(r, FCD_DAMPING, cb->C, 0));
    st = fcd_system_set_rayleigh(r->sys, full->ray_alpha, full->ray_beta);
  }
  /* the band, which an eigen-analysis reports its eigenvalues against, and (Craig-Bampton
   * coordinates) the band's damping in red_matrix's layout, which it leaves out */
  if (st == FCD_OK) {
    fcd_index nr = cb->nr;
    fcd_real *cv = cb->Cband && !r->md ? fcd__malloc_array((size_t)nr * (size_t)nr + 1, sizeof *cv)
                                       : NULL;
    if (cb->Cband && !r->md && !cv)
      return fcd__err(full, FCD_E_NOMEM, "out of memory for the band's damping");
    for (fcd_index i = 0; cv && i < nr; i++)
      for (fcd_index j = 0; j < nr; j++) cv[i * nr + j] = cb->Cband[j * nr + i];
    st = fcd__system_set_band(r->sys, cb->band_hz, cv, cb->cband_only);
    fcd__free(cv);
  }
  if (st == FCD_OK && full->nfixed > 0 && !r->md) {
    fcd_index *kf = fcd__malloc_array((size_t)full->nfixed, sizeof *kf);
    fcd_real *kv = fcd__malloc_array((size_t)full->nfixed, sizeof *kv);
    if (!kf || !kv) {
      fcd__free(kf);
      fcd__free(kv);
      return fcd__err(full, FCD_E_NOMEM, "out of memory for the reduced system");
    }
    fcd_index k = 0;
    for (fcd_index j = 0; j < cb->nb; j++)
      if (full->is_fixed[cb->bdofs[j]]) {
        kv[k] = full->fixed_value[cb->bdofs[j]];
        kf[k++] = j;
      }
    st = fcd_system_fix_dofs(r->sys, k, kf, kv);
    fcd__free(kf);
    fcd__free(kv);
    if (st == FCD_OK && full->presc_fn)
      st = fcd_system_set_prescribed_fn(r->sys, red_prescribed, r);
  }
  if (st == FCD_OK && (full->load || full->load_fn)) {
    r->fbuf = fcd__malloc_array((size_t)full->n, sizeof *r->fbuf);
    if (!r->fbuf) return fcd__err(full, FCD_E_NOMEM, "out of memory for the reduced load");
    if (full->load_fn) {
      st = fcd_system_set_load_fn(r->sys, red_load, r);
    } else {
      /* a constant load stays constant: T' f once (the reduction is a snapshot), so that
       * the reduced system is as autonomous as the full one (shooting refused a load
       * function) */
      fcd_real *fr = fcd__malloc_array((size_t)red_size(r) + 1, sizeof *fr);
      if (!fr) return fcd__err(full, FCD_E_NOMEM, "out of memory for the reduced load");
      /* in relative coordinates P' f */
      memcpy(r->fbuf, full->load, (size_t)full->n * sizeof *r->fbuf);
      fcd__rel_transpose(r, r->fbuf);
      fcd_status pst = FCD_OK;
      if (r->parts) { /* only kept dofs are loaded (fcd__parts_build): T' f = [f_b; 0] */
        for (fcd_index k = 0; k < cb->nr; k++) fr[k] = k < cb->nb ? r->fbuf[cb->bdofs[k]] : 0;
      } else {
        pst = fcd__cb_project_vec(cb, r->fbuf, r->md ? r->md->g : fr);
      }
      int bad = pst == FCD_OK && r->md && fcd__modal_load(r, r->md->g, fr) != 0;
      st = pst == FCD_OK && !bad ? fcd_system_set_load(r->sys, fr)
           : fcd__err(full, pst == FCD_OK ? FCD_E_UNSUPPORTED : pst, "projecting the "
                      "constant load: %s", pst == FCD_E_NOMEM ? "out of memory"
                      : pst == FCD_OK || pst == FCD_E_UNSUPPORTED
                          ? "beyond BLAS' int indices" : "a solve failed");
      fcd__free(fr);
    }
  }
  if (st != FCD_OK && st != FCD_E_NOMEM)
    fcd__err(full, st, "the reduced system: %s", fcd_system_last_error(r->sys));
  return st;
}

/* The same contacts on the reduced system, the kept dof d becoming its place in bdofs */
static fcd_status red_contacts(fcd_reduction *r, fcd_contact_set *cs) {
  const fcd__cb *cb = &r->cb;
  fcd_index *place = fcd__malloc_array((size_t)cb->n, sizeof *place);
  if (!place) return fcd__err(r->full, FCD_E_NOMEM, "out of memory mapping the contacts");
  for (fcd_index i = 0; i < cb->n; i++) place[i] = -1;
  for (fcd_index j = 0; j < cb->nb; j++) place[cb->bdofs[j]] = j;
  fcd_status st = fcd_contact_set_create(r->sys, cs->dim, &r->cs);
  if (st == FCD_OK) st = fcd__red_copy_contacts(cs, place, NULL, r->cs);
  if (st == FCD_E_NOMEM) fcd__err(r->full, st, "out of memory mapping the contacts");
  else if (st != FCD_OK)
    fcd__err(r->full, st, "the reduced contact set: %s", fcd_system_last_error(r->sys));
  fcd__free(place);
  return st;
}

void fcd_reduction_destroy(fcd_reduction *r) {
  if (!red_valid(r)) return;
  r->magic = 0;
  fcd_contact_set_destroy(r->cs);
  fcd_system_destroy(r->sys);
  fcd__cb_clear(&r->cb);
  fcd__free(r->fbuf);
  fcd__modal_free(r->md);
  fcd_contact_set_destroy(r->ycs);
  fcd_system_destroy(r->ysys);
  fcd__free(r->partner);
  fcd__free(r->tdof);
  fcd__free(r->tptr);
  fcd__free(r->tsrc);
  fcd__free(r->tw);
  fcd__free(r->tie_of);
  if (r->parts) fcd__cb_clear(fcd__parts_local_cb(r->parts));
  fcd__parts_free(r->parts);
  fcd__system_release(r->full);
  fcd__free(r);
}

/* the basis and its band on the system and contacts in the reduction's coordinates
 * (relative ones: r->ysys, r->ycs), their messages on the full system */
static fcd_status red_basis(fcd_reduction *r, fcd_contact_set *cs, fcd_index nmodes,
                            fcd_index ninertia, fcd_real cut, fcd_real xi, int storage,
                            double mem_limit) {
  fcd_system *sys = r->ysys ? r->ysys : r->full;
  fcd_contact_set *bcs = r->ycs ? r->ycs : cs;
  fcd_status st = fcd__cb_build(sys, bcs, nmodes, ninertia, 0, storage, mem_limit, &r->cb);
  if (st == FCD_OK) st = fcd__cb_band_limit(sys, bcs, &r->cb, cut, xi);
  if (st != FCD_OK && sys != r->full) {
    int pairs = 0; /* ysys without pairs: the moving prescribed dofs joined alone */
    for (fcd_index d = 0; d < r->full->n && !pairs; d++) pairs = r->partner[d] >= 0;
    fcd__err(r->full, st, "%s (%s)", fcd_system_last_error(sys),
             pairs ? "in relative interface coordinates"
                   : "the moving prescribed dofs as one coordinate");
  }
  return st;
}

/* By components on a distributed system (reduction_parts.c), the kept dofs listed in
 * r->cb (status st): each rank's component reduced alone, then the model assembled */
static fcd_status red_parts(fcd_reduction *r, fcd_index nmodes, int storage, double mem_limit,
                            fcd_status st) {
  st = fcd__comp_agree(r->full, st, "reduction by components");
  fcd_system *loc = NULL;
  fcd_index nkl = 0, *kl = NULL, ml = 0;
  if (st == FCD_OK) st = fcd__parts_begin(r, nmodes, &loc, &nkl, &kl, &ml);
  if (st != FCD_OK) {
    fcd__free(kl);
    return st;
  }
  fcd_status bst = loc ? fcd__cb_build_kept(loc, nkl, kl, ml, storage, mem_limit,
                                            fcd__parts_local_cb(r->parts))
                       : FCD_OK;
  fcd__free(kl);
  return fcd__parts_finish(r, nmodes, bst);
}

static fcd_status red_create(fcd_system *sys, fcd_contact_set *cs, fcd_index nmodes,
                             fcd_index ninertia, int modal, int relative, fcd_real cut,
                             fcd_real xi, int storage, const fcd_reduction_options *opt,
                             double mem_limit, fcd_reduction **out) {
  FCD_CHECK_SYS(sys);
  if (!out) return fcd__err(sys, FCD_E_INVALID_ARG, "reduction_create: out is NULL");
  *out = NULL;
  if (cs && (!fcd__contact_set_valid(cs) || cs->sys != sys))
    return fcd__err(sys, FCD_E_INVALID_ARG, "reduction_create: the contact set is invalid "
                    "or belongs to another system");
  fcd_reduction *r = fcd__calloc(1, sizeof *r);
  if (!r) return fcd__err(sys, FCD_E_NOMEM, "out of memory creating a reduction");
  r->magic = FCD_REDUCTION_MAGIC;
  r->full = sys;
  fcd__system_retain(sys); /* the reduced loads and prescribed values read it */
  int shape = opt && opt->prescribed_shape;
  fcd_status st = FCD_OK;
  if (fcd__comp_on(sys)) {
    /* by components: the options that change the coordinates or the basis beyond modes
     * and constraint modes are the serial reduction's alone (the arguments are the same on
     * every rank, so every rank refuses alike) */
    const char *no = modal ? "modal coordinates" : relative && cs ? "the relative interface"
                     : shape ? "prescribed_shape" : opt && opt->ntied ? "interface ties"
                     : ninertia > 0 ? "inertia correction vectors" : NULL;
    st = no ? fcd__err(sys, FCD_E_UNSUPPORTED, "reduction on a distributed system (by "
                       "components, each rank's rows one): %s are not offered; the physical "
                       "interface, modes and either basis are", no)
            : fcd__cb_kept_dofs(sys, cs, &r->cb);
    if (!no) st = red_parts(r, nmodes, storage, mem_limit, st);
    if (st == FCD_OK) st = fcd__parts_band(r, cs, cut, xi);
  } else {
    st = (relative && cs) || shape ? fcd__rel_build(r, cs, opt, relative) : FCD_OK;
    if (st == FCD_OK) st = red_basis(r, cs, nmodes, ninertia, cut, xi, storage, mem_limit);
  }
  if (st == FCD_OK && modal) st = fcd__modal_prepare(r);
  if (st == FCD_OK) st = red_system(r);
  if (r->ycs) cs = r->ycs;
  if (st == FCD_OK && cs) st = modal ? fcd__modal_contacts(r, cs) : red_contacts(r, cs);
  /* by components, the reduced system is made on every rank: one rank's failure is all's */
  if (r->parts) st = fcd__comp_agree(sys, st, "reduction by components");
  if (st != FCD_OK) {
    fcd_reduction_destroy(r);
    return st;
  }
  *out = r;
  return FCD_OK;
}

fcd_status fcd_reduction_create(fcd_system *sys, fcd_contact_set *cs, fcd_index nmodes,
                                fcd_reduction **out) {
  return red_create(sys, cs, nmodes, 0, 0, 0, FCD_REDUCTION_CUT_DEFAULT,
                    FCD_REDUCTION_BAND_DAMPING_DEFAULT, FCD_BASIS_AUTO, NULL, 0, out);
}

fcd_status fcd_reduction_create_modal(fcd_system *sys, fcd_contact_set *cs, fcd_index nmodes,
                                      fcd_reduction **out) {
  return red_create(sys, cs, nmodes, 0, 1, 0, FCD_REDUCTION_CUT_DEFAULT,
                    FCD_REDUCTION_BAND_DAMPING_DEFAULT, FCD_BASIS_AUTO, NULL, 0, out);
}

fcd_status fcd_reduction_create_enriched(fcd_system *sys, fcd_contact_set *cs, fcd_index nmodes,
                                         fcd_index ninertia, int modal, fcd_reduction **out) {
  return red_create(sys, cs, nmodes, ninertia, modal != 0, 0, FCD_REDUCTION_CUT_DEFAULT,
                    FCD_REDUCTION_BAND_DAMPING_DEFAULT, FCD_BASIS_AUTO, NULL, 0, out);
}

/* the band's cut and damping ratio, checked */
static fcd_status band_args(fcd_system *sys, const char *who, fcd_real cut, fcd_real damping) {
  if (!(cut >= 1 && isfinite(cut)))
    return fcd__err(sys, FCD_E_INVALID_ARG, "%s: cut = %g: a finite multiple >= 1 of the "
                    "highest kept mode's frequency", who, cut);
  if (!(damping >= 0 && damping <= 10))
    return fcd__err(sys, FCD_E_INVALID_ARG, "%s: damping = %g: a damping ratio in [0, 10] "
                    "(0: none, the Galerkin model's own dynamics)", who, damping);
  return FCD_OK;
}

fcd_status fcd_reduction_create_band(fcd_system *sys, fcd_contact_set *cs, fcd_index nmodes,
                                     fcd_index ninertia, int modal, fcd_real cut,
                                     fcd_real damping, fcd_reduction **out) {
  if (out) *out = NULL;
  FCD_CHECK_SYS(sys);
  FCD_TRY(band_args(sys, "reduction_create_band", cut, damping));
  return red_create(sys, cs, nmodes, ninertia, modal != 0, 0, cut, damping, FCD_BASIS_AUTO,
                    NULL, 0, out);
}

void fcd_reduction_options_init(fcd_reduction_options *opt) {
  if (!opt) return;
  const fcd_reduction_options d = FCD_REDUCTION_OPTIONS_INIT;
  *opt = d;
}

fcd_status fcd_reduction_create_opts(fcd_system *sys, fcd_contact_set *cs,
                                     const fcd_reduction_options *opt, fcd_reduction **out) {
  if (out) *out = NULL;
  FCD_CHECK_SYS(sys);
  if (!opt)
    return fcd__err(sys, FCD_E_INVALID_ARG, "reduction_create_opts: opt is NULL");
  /* a caller built against the first version ends at prescribed_shape */
  size_t first = offsetof(fcd_reduction_options, memory_limit);
  if (opt->struct_size < first || opt->struct_size > sizeof *opt)
    return fcd__err(sys, FCD_E_INVALID_ARG, "reduction_create_opts: struct_size %zu is no "
                    "size of fcd_reduction_options (%zu to %zu bytes): set it with "
                    "fcd_reduction_options_init", opt->struct_size, first, sizeof *opt);
  double mem_limit = opt->struct_size >= offsetof(fcd_reduction_options, memory_limit) +
                                             sizeof opt->memory_limit
                         ? opt->memory_limit
                         : 0;
  if (!(mem_limit >= 0) || isinf(mem_limit))
    return fcd__err(sys, FCD_E_INVALID_ARG, "reduction_create_opts: memory_limit = %g: bytes "
                    ">= 0 (0: the machine's memory)", mem_limit);
  if (opt->interface != FCD_INTERFACE_PHYSICAL && opt->interface != FCD_INTERFACE_RELATIVE)
    return fcd__err(sys, FCD_E_INVALID_ARG, "reduction_create_opts: interface = %d: "
                    "FCD_INTERFACE_PHYSICAL (0) or FCD_INTERFACE_RELATIVE (1)",
                    (int)opt->interface);
  if (opt->basis != FCD_BASIS_AUTO && opt->basis != FCD_BASIS_STORED &&
      opt->basis != FCD_BASIS_FACTORED)
    return fcd__err(sys, FCD_E_INVALID_ARG, "reduction_create_opts: basis = %d: "
                    "FCD_BASIS_AUTO (0), FCD_BASIS_STORED (1) or FCD_BASIS_FACTORED (2)",
                    (int)opt->basis);
  FCD_TRY(band_args(sys, "reduction_create_opts", opt->cut, opt->damping));
  if (opt->ntied != 0 && (opt->interface != FCD_INTERFACE_RELATIVE || !cs))
    return fcd__err(sys, FCD_E_INVALID_ARG, "reduction_create_opts: ntied = %lld %s",
                    (long long)opt->ntied, cs ? "needs FCD_INTERFACE_RELATIVE: a tie joins "
                    "converted pairs" : "without a contact set");
  return red_create(sys, cs, opt->nmodes, opt->ninertia, opt->modal != 0,
                    opt->interface == FCD_INTERFACE_RELATIVE, opt->cut, opt->damping,
                    opt->basis, opt, mem_limit, out);
}

fcd_status fcd_reduction_get_band(const fcd_reduction *r, fcd_real *band_hz, fcd_real *cut_hz,
                                  fcd_index *ndamped) {
  if (!red_valid(r)) return FCD_E_INVALID_ARG;
  if (band_hz) *band_hz = r->cb.band_hz;
  if (cut_hz) *cut_hz = r->cb.cut_hz;
  if (ndamped) *ndamped = r->cb.ndamp;
  return FCD_OK;
}

fcd_status fcd_reduction_get_memory(const fcd_reduction *r, fcd_basis_storage *basis,
                                    double *factor_bytes, double *basis_bytes,
                                    double *peak_bytes) {
  if (!red_valid(r)) return FCD_E_INVALID_ARG;
  /* by components: this rank's */
  const fcd__cb *cb = r->parts ? fcd__parts_local_cb(r->parts) : &r->cb;
  if (basis) *basis = cb->psi ? FCD_BASIS_FACTORED : FCD_BASIS_STORED;
  if (factor_bytes) *factor_bytes = cb->factor_bytes;
  if (basis_bytes)
    *basis_bytes = 8.0 * (double)cb->n * (double)(cb->psi ? cb->m : cb->nr) +
                   fcd__cb_psi_bytes(cb->psi);
  if (peak_bytes) *peak_bytes = cb->peak_bytes;
  return FCD_OK;
}

fcd_status fcd_reduction_get_inertia(const fcd_reduction *r, fcd_index *ninertia) {
  if (!red_valid(r)) return FCD_E_INVALID_ARG;
  if (!ninertia) return fcd__err(r->full, FCD_E_INVALID_ARG, "reduction_get_inertia: ninertia "
                                 "is NULL");
  *ninertia = r->cb.ndyn;
  return FCD_OK;
}

fcd_system *fcd_reduction_system(const fcd_reduction *r) {
  return red_valid(r) ? r->sys : NULL;
}

fcd_contact_set *fcd_reduction_contact_set(const fcd_reduction *r) {
  return red_valid(r) ? r->cs : NULL;
}

/* modal coordinates z to the Craig-Bampton ones, in a new *y (nr entries and the
 * conversion's nf of work) */
static fcd_status cb_coordinates(const fcd_reduction *r, const fcd_real *z, fcd_real **y,
                                 const char *who) {
  fcd_index nr = r->cb.nr;
  if (!(*y = fcd__malloc_array((size_t)nr + (size_t)r->md->nf + 1, sizeof **y)))
    return fcd__err(r->full, FCD_E_NOMEM, "out of memory in %s", who);
  fcd__modal_to_cb(r, z, *y, *y + nr);
  return FCD_OK;
}

/* every entry of the reduced vector xr finite, as restrict and residual require */
static fcd_status finite_reduced(const fcd_reduction *r, const fcd_real *xr, const char *who) {
  for (fcd_index k = 0; k < red_size(r); k++)
    if (!isfinite(xr[k]))
      return fcd__err(r->full, FCD_E_INVALID_ARG, "%s: xr[%lld] is not finite", who,
                      (long long)k);
  return FCD_OK;
}

fcd_status fcd_reduction_expand(const fcd_reduction *r, const fcd_real *xr, fcd_real *x) {
  if (!red_valid(r)) return FCD_E_INVALID_ARG;
  if (!xr || !x)
    return fcd__err(r->full, FCD_E_INVALID_ARG, "reduction_expand: %s is NULL",
                    !xr ? "xr" : "x");
  FCD_TRY(finite_reduced(r, xr, "reduction_expand"));
  const fcd__cb *cb = &r->cb;
  fcd_real *y = NULL;
  if (r->md) { /* the Craig-Bampton coordinates first */
    FCD_TRY(cb_coordinates(r, xr, &y, "reduction_expand"));
    xr = y;
  }
  fcd_status st = r->parts ? fcd__parts_expand(r, xr, x) : fcd__cb_apply(cb, xr, x);
  if (st == FCD_OK) fcd__rel_to_u(r, x);
  fcd__free(y);
  if (st != FCD_OK)
    return fcd__err(r->full, st, "reduction_expand: %s", st == FCD_E_NOMEM ? "out of memory"
                    : st == FCD_E_UNSUPPORTED ? "beyond BLAS' int indices"
                                              : "the interior's solve failed");
  return FCD_OK;
}

/* the position of full dof d among the kept dofs (ascending), or -1 */
static fcd_index kept_place(const fcd__cb *cb, fcd_index d) {
  fcd_index lo = 0, hi = cb->nb;
  while (lo < hi) {
    fcd_index mid = lo + (hi - lo) / 2;
    if (cb->bdofs[mid] < d) lo = mid + 1;
    else hi = mid;
  }
  return lo < cb->nb && cb->bdofs[lo] == d ? lo : -1;
}

/* an interior dof's entry: T's row times the Craig-Bampton coordinates, made from modal
 * ones once (*y, nr + nf, allocated on first use) */
static fcd_status interior_entry(const fcd_reduction *r, const fcd_real *xr, fcd_index d,
                                 fcd_real **y, fcd_real *x) {
  const fcd__cb *cb = &r->cb;
  const fcd_real *u = xr;
  if (r->md) {
    if (!*y) FCD_TRY(cb_coordinates(r, xr, y, "reduction_expand_dofs"));
    u = *y;
  }
  fcd_real s = 0;
  if (cb->tstored) {
    for (fcd_index j = 0; j < cb->nb; j++) s += cb->T[j * cb->n + d] * u[j];
  } else if (cb->nb > 0) {
    const fcd_real *row;
    fcd_status st = fcd__cb_row(cb, d, &row);
    if (st != FCD_OK)
      return fcd__err(r->full, st, "reduction_expand_dofs: %s", st == FCD_E_NOMEM
                      ? "out of memory" : "the interior's solve failed");
    for (fcd_index j = 0; j < cb->nb; j++) s += row[j] * u[j];
  }
  for (fcd_index k = 0; k < cb->m; k++) s += cb->Q[k * cb->n + d] * u[cb->nb + k];
  *x = s;
  return FCD_OK;
}

/* entry d of y = T xr: a kept dof's coordinate or an interior dof's row of T */
static fcd_status y_entry(const fcd_reduction *r, const fcd_real *xr, fcd_index d, fcd_real **y,
                          fcd_real *x) {
  fcd_index p = kept_place(&r->cb, d);
  if (p < 0) return interior_entry(r, xr, d, y, x);
  *x = r->md ? fcd__modal_entry(r, p, xr) : xr[p];
  return FCD_OK;
}

fcd_status fcd_reduction_expand_dofs(const fcd_reduction *r, const fcd_real *xr,
                                     fcd_index ndofs, const fcd_index *dofs, fcd_real *x) {
  if (!red_valid(r)) return FCD_E_INVALID_ARG;
  if (ndofs < 0 || (ndofs > 0 && (!xr || !dofs || !x)))
    return fcd__err(r->full, FCD_E_INVALID_ARG, "reduction_expand_dofs: %s",
                    ndofs < 0 ? "ndofs is negative" : !xr ? "xr is NULL"
                                                      : !dofs ? "dofs is NULL" : "x is NULL");
  const fcd__cb *cb = &r->cb;
  if (ndofs > 0) FCD_TRY(finite_reduced(r, xr, "reduction_expand_dofs"));
  for (fcd_index k = 0; k < ndofs; k++)
    if (dofs[k] < 0 || dofs[k] >= cb->n)
      return fcd__err(r->full, FCD_E_INVALID_ARG, "reduction_expand_dofs: dofs[%lld] = %lld "
                      "is not a dof of the full system (0 to %lld)", (long long)k,
                      (long long)dofs[k], (long long)cb->n - 1);
  if (r->parts) { /* the whole expansion (collective), then the entries asked */
    fcd_real *u = fcd__malloc_array((size_t)cb->n, sizeof *u);
    if (fcd__comp_any(r->full, !u)) {
      fcd__free(u);
      return fcd__err(r->full, FCD_E_NOMEM, "out of memory in reduction_expand_dofs");
    }
    fcd_status st = fcd_reduction_expand(r, xr, u);
    for (fcd_index k = 0; st == FCD_OK && k < ndofs; k++) x[k] = u[dofs[k]];
    fcd__free(u);
    return st;
  }
  fcd_real *y = NULL;
  fcd_status st = FCD_OK;
  for (fcd_index k = 0; k < ndofs && st == FCD_OK; k++) {
    /* u_d = y_d, plus y of its pair's B dof in relative coordinates, a tied y_d being
     * its sources' sum */
    fcd_index d = dofs[k], b = r->partner ? r->partner[d] : -1;
    fcd_index t = r->tie_of ? r->tie_of[d] : -1;
    if (t < 0) st = y_entry(r, xr, d, &y, x + k);
    x[k] = t < 0 ? x[k] : 0;
    for (fcd_index e = t < 0 ? 0 : r->tptr[t]; t >= 0 && e < r->tptr[t + 1] && st == FCD_OK;
         e++) {
      fcd_real ys = 0;
      st = y_entry(r, xr, r->tsrc[e], &y, &ys);
      x[k] += r->tw[e] * ys;
    }
    fcd_real xb = 0;
    if (st == FCD_OK && b >= 0) st = y_entry(r, xr, b, &y, &xb);
    x[k] += xb;
  }
  fcd__free(y);
  return st;
}

fcd_status fcd_reduction_band_energy(const fcd_reduction *r, const fcd_real *v,
                                     fcd_real *fraction) {
  if (!red_valid(r)) return FCD_E_INVALID_ARG;
  if (!v || !fraction)
    return fcd__err(r->full, FCD_E_INVALID_ARG, "reduction_band_energy: %s is NULL",
                    !v ? "v" : "fraction");
  FCD_TRY(finite_reduced(r, v, "reduction_band_energy"));
  const fcd__cb *cb = &r->cb;
  *fraction = 0;
  if (cb->band_hz == INFINITY) return FCD_OK; /* the full model: nothing is outside */
  fcd_real *y = NULL;
  if (r->md) { /* the Craig-Bampton coordinates first */
    FCD_TRY(cb_coordinates(r, v, &y, "reduction_band_energy"));
    v = y;
  }
  fcd_index nf = cb->nfree, nr = cb->nr;
  fcd_real wb = 2 * 3.14159265358979323846 * cb->band_hz, tot = 0, out = 0;
  fcd_real *t = fcd__malloc_array((size_t)(nf > 0 ? nf : 1), sizeof *t);
  if (!t) {
    fcd__free(y);
    return fcd__err(r->full, FCD_E_NOMEM, "out of memory in reduction_band_energy");
  }
  if (cb->Phi) {
    /* t = M_FF v_F; the modes' shares e_k = phi_k' t, sum e_k^2 = v_F' M_FF v_F */
    for (fcd_index i = 0; i < nf; i++) {
      fcd_real s = 0;
      for (fcd_index l = 0; l < nf; l++) s += cb->M[cb->fpos[l] * nr + cb->fpos[i]] * v[cb->fpos[l]];
      t[i] = s;
      tot += s * v[cb->fpos[i]];
    }
    for (fcd_index k = 0; k < nf; k++) {
      if (!(cb->phiw2[k] > wb * wb)) continue;
      fcd_real e = 0;
      for (fcd_index i = 0; i < nf; i++) e += cb->Phi[k * nf + i] * t[i];
      out += e * e;
    }
  } else {
    /* band 0 (no mode): the whole kinetic energy is outside */
    for (fcd_index i = 0; i < nr; i++)
      for (fcd_index j = 0; j < nr; j++) tot += v[i] * cb->M[j * nr + i] * v[j];
    out = tot;
  }
  *fraction = tot > 0 ? fmin(1.0, fmax(0.0, out / tot)) : 0;
  fcd__free(t);
  fcd__free(y);
  return FCD_OK;
}

fcd_status fcd_reduction_get_info(const fcd_reduction *r, fcd_index *nkept, fcd_index *nmodes,
                                  fcd_real *max_freq_hz, fcd_index *kept) {
  if (!red_valid(r)) return FCD_E_INVALID_ARG;
  const fcd__cb *cb = &r->cb;
  if (nkept) *nkept = cb->nb;
  if (nmodes) *nmodes = cb->m;
  fcd_index nfi = cb->m - cb->ncorr - cb->ndyn; /* the highest mode, not a correction */
  if (max_freq_hz)
    *max_freq_hz = nfi > 0 ? sqrt(fmax(cb->omega2[nfi - 1], 0)) / (2 * 3.14159265358979323846) : 0;
  if (kept) memcpy(kept, cb->bdofs, (size_t)cb->nb * sizeof *kept);
  return FCD_OK;
}

/* q = Phi' M (x - T_b x_b): the M-orthogonal projection of the interior's departure from
 * the constraint modes' static shape onto the (M-normalized) modes. Phi is zero on the
 * kept dofs, so only M's interior rows count, and restrict(expand(xr)) = xr. */
static fcd_status cb_restrict(const fcd_reduction *r, const fcd_real *x, fcd_real *xr) {
  const fcd__cb *cb = &r->cb;
  const fcd_system *ysys = r->ysys ? r->ysys : r->full;
  fcd_index n = cb->n;
  fcd_real *y = fcd__malloc_array((size_t)n, sizeof *y);
  fcd_real *z = fcd__calloc((size_t)n, sizeof *z);
  if (!y || !z) {
    fcd__free(y);
    fcd__free(z);
    return fcd__err(r->full, FCD_E_NOMEM, "out of memory in reduction_restrict");
  }
  /* y = P^-1 x in relative coordinates */
  memcpy(y, x, (size_t)n * sizeof *y);
  fcd__rel_to_y(r, y);
  for (fcd_index j = 0; j < cb->nb; j++) xr[j] = y[cb->bdofs[j]];
  if (cb->m == 0) {
    fcd__free(y);
    fcd__free(z);
    return FCD_OK;
  }
  /* z = T_b x_b first, z's storage free again after */
  fcd_status st = fcd__cb_tb(cb, 1, xr, z);
  if (st != FCD_OK) {
    fcd__free(y);
    fcd__free(z);
    return fcd__err(r->full, st, "reduction_restrict: %s", st == FCD_E_NOMEM
                    ? "out of memory" : st == FCD_E_UNSUPPORTED ? "beyond BLAS' int indices"
                                                                : "the interior's solve failed");
  }
  for (fcd_index i = 0; i < n; i++) y[i] -= z[i];
  memset(z, 0, (size_t)n * sizeof *z);
  for (fcd_index j = 0; j < cb->nb; j++) y[cb->bdofs[j]] = 0;
  for (fcd_index k = 0; k < ysys->nfixed; k++) y[ysys->fixed_list[k]] = 0;
  fcd__csr_gaxpy(&ysys->mat[FCD_MASS], 1.0, y, z);
  int info = fcd__la_gemm_tn(cb->m, 1, n, cb->Q, z, xr + cb->nb);
  fcd__free(y);
  fcd__free(z);
  return info == 0 ? FCD_OK
                   : fcd__err(r->full, FCD_E_UNSUPPORTED, "reduction_restrict: %lld dofs are "
                              "beyond BLAS' int indices", (long long)n);
}

fcd_status fcd_reduction_restrict(const fcd_reduction *r, const fcd_real *x, fcd_real *xr) {
  if (!red_valid(r)) return FCD_E_INVALID_ARG;
  if (!x || !xr)
    return fcd__err(r->full, FCD_E_INVALID_ARG, "reduction_restrict: %s is NULL",
                    !x ? "x" : "xr");
  for (fcd_index i = 0; i < r->cb.n; i++)
    if (!isfinite(x[i]))
      return fcd__err(r->full, FCD_E_INVALID_ARG, "reduction_restrict: x[%lld] is not "
                      "finite", (long long)i);
  if (r->parts) {
    fcd_status st = fcd__parts_restrict(r, x, xr);
    return st == FCD_E_NOMEM ? fcd__err(r->full, st, "out of memory in reduction_restrict") : st;
  }
  if (!r->md) return cb_restrict(r, x, xr);
  fcd_real *y = fcd__malloc_array((size_t)r->cb.nr + 1, sizeof *y);
  fcd_status st = y ? cb_restrict(r, x, y)
                    : fcd__err(r->full, FCD_E_NOMEM, "out of memory in reduction_restrict");
  if (st == FCD_OK) st = fcd__modal_from_cb(r, y, xr);
  fcd__free(y);
  return st;
}

/* The interior rows of M a + C v + K u - f(t) (C with its Rayleigh terms) at the expanded
 * state: no contact acts there, so they vanish for the full model's own solution, and
 * what is left is what the kept modes could not represent. Measured against the terms'
 * magnitudes before they cancel, |f| + |K| |u| + |C + alpha M + beta K| |v| + |M| |a|
 * (a static state balances large K u terms to round-off). */
typedef struct {
  fcd_real *x[3]; /* expanded u, v, a (NULL when not given) */
  fcd_real *y, *res, *scl;
  unsigned char *skip; /* kept and prescribed dofs */
} red_resid;

static fcd_status resid_terms(const fcd_reduction *r, red_resid *w) {
  fcd_system *full = r->full;
  fcd_index n = r->cb.n;
  const fcd_matrix_kind kinds[3] = {FCD_STIFFNESS, FCD_DAMPING, FCD_MASS};
  for (int q = 0; q < 3; q++) {
    if (!w->x[q]) continue;
    FCD_TRY(fcd_system_apply(full, kinds[q], w->x[q], w->y));
    for (fcd_index i = 0; i < n; i++) {
      w->res[i] += w->y[i];
      w->y[i] = fabs(w->x[q][i]);
    }
    /* |A| |x| for the operator of x: K; C, alpha M, beta K; M */
    if (q == 0 || q == 2) {
      fcd__csr_abs_apply(&full->mat[kinds[q]], w->y, w->scl);
    } else {
      fcd__csr_abs_apply(&full->mat[FCD_DAMPING], w->y, w->scl);
      for (fcd_index i = 0; i < n; i++) w->y[i] *= full->ray_alpha;
      fcd__csr_abs_apply(&full->mat[FCD_MASS], w->y, w->scl);
      for (fcd_index i = 0; i < n; i++) w->y[i] = full->ray_beta * fabs(w->x[q][i]);
      fcd__csr_abs_apply(&full->mat[FCD_STIFFNESS], w->y, w->scl);
    }
  }
  return FCD_OK;
}

fcd_status fcd_reduction_residual(const fcd_reduction *r, fcd_real t, const fcd_real *ur,
                                  const fcd_real *vr, const fcd_real *ar, fcd_real *rel) {
  if (!red_valid(r)) return FCD_E_INVALID_ARG;
  fcd_system *full = r->full;
  if (!ur || !rel)
    return fcd__err(full, FCD_E_INVALID_ARG, "reduction_residual: %s is NULL",
                    !ur ? "ur" : "rel");
  const fcd__cb *cb = &r->cb;
  fcd_index n = cb->n;
  const fcd_real *xr[3] = {ur, vr, ar};
  static const char *const xname[3] = {"ur", "vr", "ar"};
  for (int q = 0; q < 3; q++)
    for (fcd_index k = 0; xr[q] && k < red_size(r); k++)
      if (!isfinite(xr[q][k]))
        return fcd__err(full, FCD_E_INVALID_ARG, "reduction_residual: %s[%lld] is not finite",
                        xname[q], (long long)k);
  red_resid w = {{NULL, NULL, NULL}, NULL, NULL, NULL, NULL};
  int ok = 1;
  for (int q = 0; q < 3; q++)
    if (xr[q]) ok &= (w.x[q] = fcd__malloc_array((size_t)n, sizeof *w.x[q])) != NULL;
  w.y = fcd__malloc_array((size_t)n, sizeof *w.y);
  w.res = fcd__malloc_array((size_t)n, sizeof *w.res);
  w.scl = fcd__calloc((size_t)n, sizeof *w.scl);
  w.skip = fcd__calloc((size_t)n, 1);
  int bad = !(ok && w.y && w.res && w.scl && w.skip);
  /* by components the expansions and products below are collective: all ranks or none */
  if (r->parts) bad = fcd__comp_any(full, bad);
  fcd_status st = !bad ? fcd_system_eval_load(full, t, w.res)
                      : fcd__err(full, FCD_E_NOMEM, "out of memory in reduction_residual");
  for (int q = 0; q < 3 && st == FCD_OK; q++)
    if (xr[q]) st = fcd_reduction_expand(r, xr[q], w.x[q]);
  if (st == FCD_OK) {
    for (fcd_index i = 0; i < n; i++) {
      w.scl[i] = fabs(w.res[i]);
      w.res[i] = -w.res[i];
    }
    st = resid_terms(r, &w);
  }
  if (st == FCD_OK && r->partner) {
    /* the rows of y's equations, P' (.): a converted pair's forces cancel on B's rows */
    fcd__rel_transpose(r, w.res);
    fcd__rel_transpose(r, w.scl);
  }
  if (st == FCD_OK) {
    for (fcd_index j = 0; j < cb->nb; j++) w.skip[cb->bdofs[j]] = 1;
    for (fcd_index k = 0; k < full->nfixed; k++) w.skip[full->fixed_list[k]] = 1;
    fcd_real scale = 0, worst = 0;
    for (fcd_index i = 0; i < n; i++)
      if (!w.skip[i]) {
        worst = fmax(worst, fabs(w.res[i]));
        scale = fmax(scale, w.scl[i]);
      }
    *rel = scale > 0 ? worst / scale : 0;
  }
  for (int q = 0; q < 3; q++) fcd__free(w.x[q]);
  fcd__free(w.y);
  fcd__free(w.res);
  fcd__free(w.scl);
  fcd__free(w.skip);
  return st;
}
