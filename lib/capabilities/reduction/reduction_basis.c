/* The Craig-Bampton basis as an operator: T = [T_b, Q], T_b the constraint modes (e_j on
 * the kept dof j, Psi = -K_ii^-1 K_ib on the interior), Q the modal columns. T_b is either
 * stored (n x nb) or applied through the interior's factor, which a reduction then keeps:
 * T_b V = [V; -K_ii^-1 K_ib V] and T_b' Y = Y_b - K_bi K_ii^-1 Y_i, one solve a column.
 * The factored form holds the factor and the coupling K_ib (its entries only) instead of
 * n x nb numbers, which at thousands of kept dofs are more than the machine has; the
 * projections of the mass need one more solve a column then, but no product with n x nb
 * arrays (n nb^2 flops stored).
 * With A = K_ii = P' L L' P, T_b's interior is Psi = -A^-1 K_ib = P' L^-T W for
 * W = L^-1 P (-K_ib): sparse (a column fills only the factor's columns on its rows' paths
 * to the elimination tree's root, a few per cent of them on a nested-dissection order).
 * While a reduction is built, W is kept when small (fcd__cb_psi_forward): then T_b V is
 * one backward half solve, and T_b' Y = Y_b + W' L^-1 P Y_i one forward half and a sparse
 * product, where each took a whole solve. */
#include "reduction_private.h"
#include "lapack.h"

#include <stdint.h>
#include <string.h>

struct fcd__cb_psi {
  fcd_system *ci;       /* the clamped system, whose free dofs are the interior */
  fcd__factor *f;       /* K_ii's factor */
  fcd_index ni, nb;
  /* K_ib: rows the interior (ci's free numbering), columns the kept dofs' places */
  fcd_index *rowptr, *col;
  fcd_real *val;
  /* W = L^-1 P (-K_ib), n_i x nb in CSC over the factor's (permuted) rows, while kept */
  fcd_index *wp, *wi;
  fcd_real *wx;
  /* rows of T_b at interior dofs already asked for (fcd__cb_row) */
  fcd_index nrow, caprow, *rowdof;
  fcd_real *rows;
};

void fcd__cb_psi_destroy(fcd__cb_psi *p) {
  if (!p) return;
  fcd__factor_destroy(p->f);
  fcd_system_destroy(p->ci);
  fcd__free(p->rowptr);
  fcd__free(p->col);
  fcd__free(p->val);
  fcd__free(p->rowdof);
  fcd__free(p->rows);
  fcd__cb_psi_forget(p);
  fcd__free(p);
}

void fcd__cb_psi_forget(fcd__cb_psi *p) {
  if (!p) return;
  fcd__free(p->wp);
  fcd__free(p->wi);
  fcd__free(p->wx);
  p->wp = p->wi = NULL;
  p->wx = NULL;
}

fcd_status fcd__cb_psi_create(const fcd_system *sys, const fcd__cb *cb, fcd_system *ci,
                              fcd__factor *f, fcd__cb_psi **out) {
  *out = NULL;
  const fcd__csr *K = &sys->mat[FCD_STIFFNESS];
  fcd_index n = sys->n, ni = ci->nfree;
  fcd__cb_psi *p = fcd__calloc(1, sizeof *p);
  fcd_index *place = fcd__malloc_array((size_t)n + 1, sizeof *place);
  if (p) p->rowptr = fcd__calloc((size_t)ni + 1, sizeof *p->rowptr);
  if (!p || !place || !p->rowptr) {
    fcd__free(place);
    fcd__cb_psi_destroy(p);
    return FCD_E_NOMEM;
  }
  p->ni = ni;
  p->nb = cb->nb;
  for (fcd_index i = 0; i < n; i++) place[i] = -1;
  for (fcd_index j = 0; j < cb->nb; j++) place[cb->bdofs[j]] = j;
  /* two passes over K's stored entries (an upper-stored (r, c) stands for (c, r) too):
   * the counts a row, then the entries */
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 1) {
      for (fcd_index i = 0; i < ni; i++) p->rowptr[i + 1] += p->rowptr[i];
      fcd_index nnz = p->rowptr[ni];
      p->col = fcd__malloc_array((size_t)nnz + 1, sizeof *p->col);
      p->val = fcd__malloc_array((size_t)nnz + 1, sizeof *p->val);
      if (!p->col || !p->val) {
        fcd__free(place);
        fcd__cb_psi_destroy(p);
        return FCD_E_NOMEM;
      }
    }
    for (fcd_index r = 0; r < K->n; r++)
      for (fcd_index e = K->rowptr[r]; e < K->rowptr[r + 1]; e++) {
        fcd_index c = K->col[e];
        for (int mirror = 0; mirror < 1 + (K->upper && r != c); mirror++) {
          fcd_index row = mirror ? c : r, cl = mirror ? r : c;
          fcd_index fr = ci->free_of[row];
          if (fr < 0 || place[cl] < 0) continue;
          if (pass == 0) {
            p->rowptr[fr + 1]++;
          } else {
            /* rowptr[fr] runs as the row's cursor, shifted back below */
            p->col[p->rowptr[fr]] = place[cl];
            p->val[p->rowptr[fr]++] = K->val[e];
          }
        }
      }
  }
  for (fcd_index i = ni; i > 0; i--) p->rowptr[i] = p->rowptr[i - 1];
  p->rowptr[0] = 0;
  fcd__free(place);
  p->ci = ci;
  p->f = f;
  *out = p;
  return FCD_OK;
}

double fcd__cb_psi_bytes(const fcd__cb_psi *p) {
  if (!p) return 0;
  return 16.0 * (double)p->rowptr[p->ni] + 8.0 * (double)p->ni +
         8.0 * (double)p->caprow * (double)(p->nb + 1) +
         (p->wp ? 16.0 * (double)p->wp[p->nb] + 8.0 * (double)(p->nb + 1) : 0);
}

/* K_ii^-1 in place on nj columns, with the factor's own status (out of memory for its
 * work, mostly: the factor solved before) */
static fcd_status psi_solve(const fcd__cb_psi *p, fcd_index nj, fcd_real *w) {
  return p->ni == 0 ? FCD_OK : fcd__factor_solve(p->f, nj, w, w);
}

/* work (ni x nj) = -K_ib V for V (nb x nj), or for the unit columns j0 .. j0 + nj - 1 when
 * V is NULL */
static void coupling(const fcd__cb_psi *p, fcd_index j0, fcd_index nj, const fcd_real *V,
                     fcd_real *work) {
  fcd_index ni = p->ni;
  memset(work, 0, (size_t)ni * (size_t)nj * sizeof *work);
  for (fcd_index i = 0; i < ni; i++)
    for (fcd_index e = p->rowptr[i]; e < p->rowptr[i + 1]; e++) {
      fcd_index c = p->col[e];
      if (!V) {
        if (c >= j0 && c < j0 + nj) work[(c - j0) * ni + i] -= p->val[e];
      } else {
        for (fcd_index j = 0; j < nj; j++) work[j * ni + i] -= p->val[e] * V[j * p->nb + c];
      }
    }
}

/* W's columns in blocks of this many: the forward halves' width (BLAS 3 in CHOLMOD) */
enum { W_BLOCK = 64, W_CHUNK = 16 };

/* The bytes W would take (an upper bound: the columns its forward solves reach), and, when
 * that is at most max_bytes, W itself. Not kept (*bytes -1) without a Cholesky factor. */
fcd_status fcd__cb_psi_forward(fcd__cb_psi *p, double max_bytes, double *bytes) {
  fcd_index ni = p->ni, nb = p->nb, nnz = p->rowptr[ni];
  *bytes = 0;
  fcd__cb_psi_forget(p);
  if (ni == 0 || nb == 0) return FCD_OK;
  /* K_ib's pattern by columns */
  fcd_index *cp = fcd__calloc((size_t)nb + 1, sizeof *cp);
  fcd_index *ri = fcd__malloc_array((size_t)nnz + 1, sizeof *ri);
  if (!cp || !ri) {
    fcd__free(cp);
    fcd__free(ri);
    return FCD_E_NOMEM;
  }
  for (fcd_index e = 0; e < nnz; e++) cp[p->col[e] + 1]++;
  for (fcd_index j = 0; j < nb; j++) cp[j + 1] += cp[j];
  for (fcd_index i = 0; i < ni; i++)
    for (fcd_index e = p->rowptr[i]; e < p->rowptr[i + 1]; e++) ri[cp[p->col[e]]++] = i;
  for (fcd_index j = nb; j > 0; j--) cp[j] = cp[j - 1];
  cp[0] = 0;
  double bound = fcd__factor_reach(p->f, nb, cp, ri);
  *bytes = bound < 0 ? -1 : 16.0 * bound + 8.0 * (double)(nb + 1);
  if (bound < 0 || *bytes > max_bytes) {
    fcd__free(cp);
    fcd__free(ri);
    return FCD_OK;
  }
  p->wp = fcd__calloc((size_t)nb + 1, sizeof *p->wp);
  p->wi = fcd__malloc_array((size_t)bound + 1, sizeof *p->wi);
  p->wx = fcd__malloc_array((size_t)bound + 1, sizeof *p->wx);
  fcd_index nj0 = nb < W_BLOCK ? nb : W_BLOCK;
  fcd_real *w = fcd__malloc_array((size_t)ni * (size_t)nj0, sizeof *w);
  fcd_status st = p->wp && p->wi && p->wx && w ? FCD_OK : FCD_E_NOMEM;
  fcd_index k = 0;
  int over = 0;
  for (fcd_index j0 = 0; j0 < nb && st == FCD_OK && !over; j0 += W_BLOCK) {
    fcd_index nj = nb - j0 < W_BLOCK ? nb - j0 : W_BLOCK;
    coupling(p, j0, nj, NULL, w);
    /* the block's right-hand sides live on K_ib's rows of its columns alone */
    st = fcd__factor_forward_reach(p->f, nj, cp[j0 + nj] - cp[j0], ri + cp[j0], w, w);
    /* the zeros off a column's reach are exact (nothing reaches them), and the bound
     * holds every entry that is not */
    for (fcd_index j = 0; j < nj && st == FCD_OK && !over; j++) {
      const fcd_real *z = w + j * ni;
      for (fcd_index i = 0; i < ni; i++)
        if (z[i] != 0) {
          if (k == (fcd_index)bound) {
            over = 1;
            break;
          }
          p->wi[k] = i;
          p->wx[k++] = z[i];
        }
      p->wp[j0 + j + 1] = k;
    }
  }
  fcd__free(w);
  fcd__free(cp);
  fcd__free(ri);
  if (st != FCD_OK || over) { /* past the bound (never, by the reach): whole solves then */
    fcd__cb_psi_forget(p);
    if (over) *bytes = -1;
    return st;
  }
  /* down to the entries found (the bound counts the structure: an entry may cancel) */
  fcd_index *wi = fcd__grow_array(p->wi, (size_t)bound + 1, (size_t)k + 1, sizeof *wi);
  if (wi) p->wi = wi;
  fcd_real *wx = fcd__grow_array(p->wx, (size_t)bound + 1, (size_t)k + 1, sizeof *wx);
  if (wx) p->wx = wx;
  *bytes = 16.0 * (double)k + 8.0 * (double)(nb + 1);
  return FCD_OK;
}

/* X (n x nj) = T_b V through the factor (V NULL: the unit columns from j0), in work (ni x
 * nj numbers, or NULL: its own) */
static fcd_status psi_apply(const fcd__cb *cb, fcd_index j0, fcd_index nj, const fcd_real *V,
                            fcd_real *X, fcd_real *work) {
  const fcd__cb_psi *p = cb->psi;
  fcd_index n = cb->n, ni = p->ni;
  fcd_real *w = work ? work : fcd__malloc_array((size_t)ni * (size_t)nj + 1, sizeof *w);
  if (!w) return FCD_E_NOMEM;
  fcd_status st;
  if (p->wp && ni > 0) { /* Psi V = P' L^-T (W V) */
    memset(w, 0, (size_t)ni * (size_t)nj * sizeof *w);
    for (fcd_index j = 0; j < nj; j++)
      for (fcd_index c = V ? 0 : j0 + j; c < (V ? p->nb : j0 + j + 1); c++) {
        fcd_real a = V ? V[j * p->nb + c] : 1;
        if (a == 0) continue;
        for (fcd_index e = p->wp[c]; e < p->wp[c + 1]; e++) w[j * ni + p->wi[e]] += a * p->wx[e];
      }
    st = fcd__factor_half_n(p->f, 1, nj, w, w);
  } else {
    coupling(p, j0, nj, V, w);
    st = psi_solve(p, nj, w);
  }
  for (fcd_index j = 0; j < nj && st == FCD_OK; j++) {
    fcd_real *x = X + j * n;
    memset(x, 0, (size_t)n * sizeof *x);
    for (fcd_index i = 0; i < cb->nb; i++) x[cb->bdofs[i]] = V ? V[j * cb->nb + i] : 0;
    if (!V) x[cb->bdofs[j0 + j]] = 1;
    fcd__free_to_full(p->ci, w + j * ni, x);
  }
  if (!work) fcd__free(w);
  return st;
}

fcd_status fcd__cb_tb_unit(const fcd__cb *cb, fcd_index j0, fcd_index nj, fcd_real *X,
                           fcd_real *work) {
  if (cb->tstored) {
    memcpy(X, cb->T + j0 * cb->n, (size_t)cb->n * (size_t)nj * sizeof *X);
    return FCD_OK;
  }
  return psi_apply(cb, j0, nj, NULL, X, work);
}

fcd_status fcd__cb_tb(const fcd__cb *cb, fcd_index nj, const fcd_real *V, fcd_real *X) {
  if (cb->nb == 0) {
    memset(X, 0, (size_t)cb->n * (size_t)nj * sizeof *X);
    return FCD_OK;
  }
  if (cb->tstored)
    return fcd__la_gemm_nn(cb->n, nj, cb->nb, 1.0, cb->T, V, 0.0, X) == 0 ? FCD_OK
                                                                          : FCD_E_UNSUPPORTED;
  return psi_apply(cb, 0, nj, V, X, NULL);
}

/* Y's interior rows gathered to the free numbering in Y's own memory (column j at j ni):
 * the free numbering increases with the dofs, so each number moves down (to j ni + k from
 * j n + dof_of[k] >= it) after every number read from below it */
static void gather_in_place(const fcd_system *ci, fcd_index n, fcd_index nj, fcd_real *Y) {
  fcd_index ni = ci->nfree;
  for (fcd_index j = 0; j < nj; j++) {
    fcd_real *dst = Y + j * ni;
    const fcd_real *src = Y + j * n;
    for (fcd_index k = 0; k < ni; k++) dst[k] = src[ci->dof_of[k]];
  }
}

/* the work of T_b' Y's solves: Y itself gathered (consume), or a new array */
static fcd_real *tbt_work(const fcd__cb *cb, fcd_index nj, fcd_real *Y, int consume) {
  const fcd__cb_psi *p = cb->psi;
  fcd_index n = cb->n, ni = p->ni;
  if (consume) {
    gather_in_place(p->ci, n, nj, Y);
    return Y;
  }
  fcd_real *w = fcd__malloc_array((size_t)ni * (size_t)nj + 1, sizeof *w);
  for (fcd_index j = 0; j < nj && w; j++) fcd__full_to_free(p->ci, Y + j * n, w + j * ni);
  return w;
}

/* T_b' Y's rows from i0 = Y_b + W' (L^-1 P Y_i): the forward half on the block (in Y's
 * memory when consume), then W's columns against its rows W_CHUNK columns at a time,
 * copied row by row so that each entry of W meets W_CHUNK contiguous numbers */
static fcd_status tbt_forward(const fcd__cb *cb, fcd_index i0, fcd_index nj, fcd_real *Y,
                              fcd_real *out, int consume) {
  const fcd__cb_psi *p = cb->psi;
  fcd_index n = cb->n, nb = cb->nb, no = nb - i0, ni = p->ni;
  for (fcd_index j = 0; j < nj; j++) /* Y_b, before a gather overwrites it */
    for (fcd_index c = i0; c < nb; c++) out[j * no + c - i0] = Y[j * n + cb->bdofs[c]];
  fcd_real *r = fcd__malloc_array((size_t)ni * W_CHUNK + 1, sizeof *r);
  fcd_real *w = r ? tbt_work(cb, nj, Y, consume) : NULL;
  if (!w || !r) {
    if (w != Y) fcd__free(w);
    fcd__free(r);
    return FCD_E_NOMEM;
  }
  fcd_status st = fcd__factor_half_n(p->f, 0, nj, w, w);
  for (fcd_index j0 = 0; j0 < nj && st == FCD_OK; j0 += W_CHUNK) {
    fcd_index nc = nj - j0 < W_CHUNK ? nj - j0 : W_CHUNK;
    for (fcd_index i = 0; i < ni; i++)
      for (fcd_index j = 0; j < nc; j++) r[i * W_CHUNK + j] = w[(j0 + j) * ni + i];
    for (fcd_index c = i0; c < nb; c++) {
      fcd_real acc[W_CHUNK] = {0};
      for (fcd_index e = p->wp[c]; e < p->wp[c + 1]; e++) {
        const fcd_real a = p->wx[e], *ri = r + p->wi[e] * W_CHUNK;
        for (fcd_index j = 0; j < W_CHUNK; j++) acc[j] += a * ri[j];
      }
      for (fcd_index j = 0; j < nc; j++) out[(j0 + j) * no + c - i0] += acc[j];
    }
  }
  if (w != Y) fcd__free(w);
  fcd__free(r);
  return st;
}

/* fcd__cb_tbt, Y overwritten when consume (its memory the solves' work) */
static fcd_status tbt(const fcd__cb *cb, fcd_index i0, fcd_index nj, fcd_real *Y,
                      fcd_real *out, int consume) {
  fcd_index n = cb->n, nb = cb->nb, no = nb - i0;
  if (no <= 0) return FCD_OK;
  if (cb->tstored)
    return fcd__la_gemm_tn(no, nj, n, cb->T + i0 * n, Y, out) == 0 ? FCD_OK
                                                                   : FCD_E_UNSUPPORTED;
  const fcd__cb_psi *p = cb->psi;
  fcd_index ni = p->ni;
  if (p->wp && ni > 0) return tbt_forward(cb, i0, nj, Y, out, consume);
  for (fcd_index j = 0; j < nj; j++) /* Y_b, before a gather overwrites it */
    for (fcd_index i = i0; i < nb; i++) out[j * no + i - i0] = Y[j * n + cb->bdofs[i]];
  fcd_real *w = tbt_work(cb, nj, Y, consume);
  if (!w) return FCD_E_NOMEM;
  fcd_status st = psi_solve(p, nj, w);
  for (fcd_index j = 0; j < nj && st == FCD_OK; j++) {
    fcd_real *o = out + j * no;
    const fcd_real *z = w + j * ni;
    for (fcd_index i = 0; i < ni; i++)
      for (fcd_index e = p->rowptr[i]; e < p->rowptr[i + 1]; e++)
        if (p->col[e] >= i0) o[p->col[e] - i0] -= p->val[e] * z[i];
  }
  if (w != Y) fcd__free(w);
  return st;
}

fcd_status fcd__cb_tbt(const fcd__cb *cb, fcd_index i0, fcd_index nj, const fcd_real *Y,
                       fcd_real *out) {
  /* not consumed: Y is only read */
  return tbt(cb, i0, nj, (fcd_real *)(uintptr_t)Y, out, 0);
}

fcd_status fcd__cb_tbt_consume(const fcd__cb *cb, fcd_index i0, fcd_index nj, fcd_real *Y,
                               fcd_real *out) {
  return tbt(cb, i0, nj, Y, out, 1);
}

fcd_status fcd__cb_row(const fcd__cb *cb, fcd_index d, const fcd_real **row) {
  fcd__cb_psi *p = cb->psi;
  fcd_index nb = cb->nb;
  for (fcd_index k = 0; k < p->nrow; k++)
    if (p->rowdof[k] == d) {
      *row = p->rows + k * nb;
      return FCD_OK;
    }
  if (p->nrow == p->caprow) {
    fcd_index cap = p->caprow ? 2 * p->caprow : 8;
    fcd_index *rd = fcd__grow_array(p->rowdof, (size_t)p->caprow, (size_t)cap, sizeof *rd);
    if (!rd) return FCD_E_NOMEM;
    p->rowdof = rd;
    fcd_real *rs = fcd__grow_array(p->rows, (size_t)p->caprow * (size_t)nb + 1,
                                   (size_t)cap * (size_t)nb + 1, sizeof *rs);
    if (!rs) return FCD_E_NOMEM;
    p->rows = rs;
    p->caprow = cap;
  }
  /* row d of T_b is T_b' e_d */
  fcd_real *e = fcd__calloc((size_t)cb->n, sizeof *e);
  if (!e) return FCD_E_NOMEM;
  e[d] = 1;
  fcd_status st = fcd__cb_tbt(cb, 0, 1, e, p->rows + p->nrow * nb);
  fcd__free(e);
  if (st != FCD_OK) return st;
  p->rowdof[p->nrow] = d;
  *row = p->rows + p->nrow++ * nb;
  return FCD_OK;
}

fcd_status fcd__cb_apply(const fcd__cb *cb, const fcd_real *xr, fcd_real *x) {
  FCD_TRY(fcd__cb_tb(cb, 1, xr, x));
  if (cb->m > 0 && fcd__la_gemm_nn(cb->n, 1, cb->m, 1.0, cb->Q, xr + cb->nb, 1.0, x) != 0)
    return FCD_E_UNSUPPORTED;
  /* the kept dofs exactly: T is the identity there */
  for (fcd_index j = 0; j < cb->nb; j++) x[cb->bdofs[j]] = xr[j];
  return FCD_OK;
}

fcd_status fcd__cb_project_vec(const fcd__cb *cb, const fcd_real *f, fcd_real *g) {
  FCD_TRY(fcd__cb_tbt(cb, 0, 1, f, g));
  if (cb->m > 0 && fcd__la_gemm_tn(cb->m, 1, cb->n, cb->Q, f, g + cb->nb) != 0)
    return FCD_E_UNSUPPORTED;
  return FCD_OK;
}
