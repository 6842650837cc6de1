/* UMFPACK (SuiteSparse) sparse LU for non-symmetric operators. */
#include "backends.h"
#include "lapack.h"

#include <string.h>
#include <umfpack.h>

_Static_assert(sizeof(SuiteSparse_long) == sizeof(fcd_index),
               "UMFPACK's dl interface must match fcd_index");

struct fcd__lu {
  double control[UMFPACK_CONTROL];
  double info[UMFPACK_INFO];
  void *symbolic, *numeric;
  /* UMFPACK's iterative refinement needs the matrix at solve time: keep a copy so
   * callers need not keep theirs alive. */
  fcd_index n, nnz;
  fcd_index *rowptr, *col;
  fcd_real *val;
  /* dofs ordered last (the contact dofs): with diagonal pivots kept there, the trailing
   * block of L U is the LU of the Schur complement on them (fcd__lu_inverse_block) */
  fcd_index s;
  fcd_index *sidx;
};

static fcd_status lu_status(const fcd_system *sys, int status, const char *what) {
  switch (status) {
  case UMFPACK_OK: return FCD_OK;
  case UMFPACK_WARNING_singular_matrix:
    return fcd__err(sys, FCD_E_SINGULAR, "UMFPACK %s: the matrix is singular", what);
  case UMFPACK_ERROR_out_of_memory:
    return fcd__err(sys, FCD_E_NOMEM, "UMFPACK %s: out of memory", what);
  default:
    return fcd__err(sys, FCD_E_BACKEND, "UMFPACK %s failed (status %d)", what, status);
  }
}

fcd_status fcd__lu_create(const fcd_system *sys, fcd__lu **out) {
  fcd__lu *l = fcd__calloc(1, sizeof *l);
  if (!l) return fcd__err(sys, FCD_E_NOMEM, "out of memory creating an UMFPACK context");
  umfpack_dl_defaults(l->control);
  l->control[UMFPACK_PRL] = 0;
  *out = l;
  return FCD_OK;
}

void fcd__lu_set_refinement(fcd__lu *l, int steps) {
  l->control[UMFPACK_IRSTEP] = steps < 0 ? 0 : steps;
}

static void lu_free_factors(fcd__lu *l) {
  if (l->numeric) umfpack_dl_free_numeric(&l->numeric);
  if (l->symbolic) umfpack_dl_free_symbolic(&l->symbolic);
}

void fcd__lu_destroy(fcd__lu *l) {
  if (!l) return;
  lu_free_factors(l);
  fcd__free(l->rowptr);
  fcd__free(l->col);
  fcd__free(l->val);
  fcd__free(l->sidx);
  fcd__free(l);
}

fcd_status fcd__lu_set_schur(fcd__lu *l, const fcd_system *sys, fcd_index s,
                             const fcd_index *idx, int *changed) {
  if (fcd__index_set_assign(&l->sidx, &l->s, s, idx, changed))
    return fcd__err(sys, FCD_E_NOMEM, "out of memory for the LU's Schur set");
  if (*changed) lu_free_factors(l); /* the next analysis orders the new set last */
  return FCD_OK;
}

/* With a Schur set: the column pre-ordering puts it last (CAMD on the pattern), UMFPACK
 * keeps that order (no singleton pass, no post-ordering) and prefers diagonal pivots
 * (symmetric strategy), so that the last s pivots are the set's. Q is UMFPACK's Qinit. */
static fcd_status schur_control(fcd__lu *l, const fcd_system *sys, fcd_index n,
                                const fcd_index *rp, const fcd_index *ci, fcd_index **Q) {
  int on = l->s > 0 && l->s < n;
  l->control[UMFPACK_STRATEGY] = on ? UMFPACK_STRATEGY_SYMMETRIC : UMFPACK_DEFAULT_STRATEGY;
  l->control[UMFPACK_FIXQ] = on ? 1 : UMFPACK_DEFAULT_FIXQ;
  l->control[UMFPACK_SINGLETONS] = on ? 0 : 1; /* UMFPACK_DEFAULT_SINGLETONS */
  *Q = NULL;
  if (!on) return FCD_OK;
  int *last = fcd__calloc((size_t)n, sizeof *last);
  fcd_index *q = fcd__malloc_array((size_t)n, sizeof *q);
  fcd_status st = FCD_OK;
  if (!last || !q) {
    st = fcd__err(sys, FCD_E_NOMEM, "out of memory ordering the LU");
  } else {
    for (fcd_index a = 0; a < l->s; a++)
      if (l->sidx[a] >= 0 && l->sidx[a] < n) last[l->sidx[a]] = 1;
    int nd = 0;
    st = fcd__nd_order_last(sys, n, rp, ci, last, q, &nd);
    if (st == FCD_OK && !nd) st = fcd__camd_order_last(sys, n, rp, ci, last, q);
  }
  fcd__free(last);
  if (st != FCD_OK) {
    fcd__free(q);
    return st;
  }
  *Q = q;
  return FCD_OK;
}

fcd_status fcd__lu_analyze(fcd__lu *l, const fcd_system *sys, fcd_index n,
                           const fcd_index *rowptr, const fcd_index *col,
                           const fcd_real *val) {
  lu_free_factors(l);
  fcd_index nnz = rowptr[n];
  fcd_index *rp = fcd__malloc_array((size_t)n + 1, sizeof *rp);
  fcd_index *ci = fcd__malloc_array((size_t)nnz, sizeof *ci);
  fcd_real *v = fcd__malloc_array((size_t)nnz, sizeof *v);
  if (!rp || !ci || !v) {
    fcd__free(rp);
    fcd__free(ci);
    fcd__free(v);
    return fcd__err(sys, FCD_E_NOMEM, "out of memory in the LU analysis");
  }
  memcpy(rp, rowptr, ((size_t)n + 1) * sizeof *rp);
  memcpy(ci, col, (size_t)nnz * sizeof *ci);
  memcpy(v, val, (size_t)nnz * sizeof *v);
  fcd__free(l->rowptr);
  fcd__free(l->col);
  fcd__free(l->val);
  l->rowptr = rp;
  l->col = ci;
  l->val = v;
  l->n = n;
  l->nnz = nnz;
  fcd_index *Q = NULL;
  FCD_TRY(schur_control(l, sys, n, rp, ci, &Q));
  /* CSR of A is CSC of A^T: UMFPACK factors A^T and solves with UMFPACK_At. */
  int s = (int)umfpack_dl_qsymbolic(n, n, (const SuiteSparse_long *)rp,
                                    (const SuiteSparse_long *)ci, v, (const SuiteSparse_long *)Q,
                                    &l->symbolic, l->control, l->info);
  fcd__free(Q);
  return lu_status(sys, s, "analysis");
}

fcd_status fcd__lu_factor(fcd__lu *l, const fcd_system *sys, const fcd_real *val) {
  if (!l->symbolic) return fcd__err(sys, FCD_E_STATE, "UMFPACK factorization before analysis");
  if (l->numeric) umfpack_dl_free_numeric(&l->numeric);
  if (val != l->val) memcpy(l->val, val, (size_t)l->nnz * sizeof *val);
  int s = (int)umfpack_dl_numeric((const SuiteSparse_long *)l->rowptr,
                                  (const SuiteSparse_long *)l->col, l->val, l->symbolic,
                                  &l->numeric, l->control, l->info);
  if (s == UMFPACK_WARNING_singular_matrix) {
    umfpack_dl_free_numeric(&l->numeric);
    return lu_status(sys, s, "factorization");
  }
  return lu_status(sys, s, "factorization");
}

fcd_status fcd__lu_solve(fcd__lu *l, const fcd_system *sys, fcd_index nrhs,
                         const fcd_real *b, fcd_real *x) {
  fcd_real *tmp = NULL;
  if (b == x) {
    tmp = fcd__malloc_array((size_t)l->n, sizeof *tmp);
    if (!tmp) return fcd__err(sys, FCD_E_NOMEM, "out of memory in the LU solve");
  }
  fcd_status st = FCD_OK;
  for (fcd_index k = 0; k < nrhs && st == FCD_OK; k++) {
    const fcd_real *bk = b + k * l->n;
    fcd_real *xk = x + k * l->n;
    if (tmp) {
      memcpy(tmp, bk, (size_t)l->n * sizeof *tmp);
      bk = tmp;
    }
    int s = (int)umfpack_dl_solve(UMFPACK_At, (const SuiteSparse_long *)l->rowptr,
                                  (const SuiteSparse_long *)l->col, l->val, xk, bk,
                                  l->numeric, l->control, l->info);
    st = lu_status(sys, s, "solve");
  }
  fcd__free(tmp);
  return st;
}

/* The factor's arrays (umfpack_get_numeric), for the Schur complement's block */
typedef struct {
  SuiteSparse_long *Lp, *Lj, *Up, *Ui, *P, *Q, do_recip;
  double *Lx, *Ux, *Rs;
} lu_parts;

static void parts_free(lu_parts *p) {
  fcd__free(p->Lp);
  fcd__free(p->Lj);
  fcd__free(p->Lx);
  fcd__free(p->Up);
  fcd__free(p->Ui);
  fcd__free(p->Ux);
  fcd__free(p->P);
  fcd__free(p->Q);
  fcd__free(p->Rs);
}

static fcd_status parts_get(fcd__lu *l, const fcd_system *sys, lu_parts *p) {
  SuiteSparse_long lnz, unz, nr, nc, nzud;
  memset(p, 0, sizeof *p);
  int s = (int)umfpack_dl_get_lunz(&lnz, &unz, &nr, &nc, &nzud, l->numeric);
  if (s != UMFPACK_OK) return lu_status(sys, s, "factor's sizes");
  size_t n = (size_t)l->n + 1;
  p->Lp = fcd__malloc_array(n, sizeof *p->Lp);
  p->Lj = fcd__malloc_array((size_t)lnz + 1, sizeof *p->Lj);
  p->Lx = fcd__malloc_array((size_t)lnz + 1, sizeof *p->Lx);
  p->Up = fcd__malloc_array(n, sizeof *p->Up);
  p->Ui = fcd__malloc_array((size_t)unz + 1, sizeof *p->Ui);
  p->Ux = fcd__malloc_array((size_t)unz + 1, sizeof *p->Ux);
  p->P = fcd__malloc_array(n, sizeof *p->P);
  p->Q = fcd__malloc_array(n, sizeof *p->Q);
  p->Rs = fcd__malloc_array(n, sizeof *p->Rs);
  if (!p->Lp || !p->Lj || !p->Lx || !p->Up || !p->Ui || !p->Ux || !p->P || !p->Q || !p->Rs) {
    parts_free(p);
    return fcd__err(sys, FCD_E_NOMEM, "out of memory extracting the LU factors");
  }
  s = (int)umfpack_dl_get_numeric(p->Lp, p->Lj, p->Lx, p->Up, p->Ui, p->Ux, p->P, p->Q, NULL,
                                  &p->do_recip, p->Rs, l->numeric);
  if (s != UMFPACK_OK) parts_free(p);
  return lu_status(sys, s, "factor extraction");
}

/* out (s x s, column j contiguous) = the block of A^-1 on the Schur set idx. UMFPACK
 * factors B = A^T as P R B Q = L U (R the row scaling), so B^-1 = Q (L U)^-1 P R and
 * (A^-1)(P[k], Q[j]) = G(j, k) R(P[k]) with G = (L U)^-1, whose trailing block is the
 * inverse of the trailing blocks' product when the last s pivots are the set's. When
 * UMFPACK pivoted off that order, FCD_E_UNSUPPORTED: the caller solves instead. */
fcd_status fcd__lu_inverse_block(fcd__lu *l, const fcd_system *sys, fcd_index s,
                                 const fcd_index *idx, fcd_real *out) {
  fcd_index n = l->n, b = n - s;
  if (!l->numeric || s != l->s || s == 0 || s >= n ||
      memcmp(idx, l->sidx, (size_t)s * sizeof *idx) != 0)
    return fcd__err(sys, FCD_E_UNSUPPORTED, "the LU was not ordered with these dofs last");
  lu_parts p;
  FCD_TRY(parts_get(l, sys, &p));
  fcd_index *pos = fcd__malloc_array((size_t)n, sizeof *pos);
  fcd_real *T = fcd__calloc((size_t)s * (size_t)s, sizeof *T);
  fcd_status st = FCD_OK;
  if (!pos || !T) {
    st = fcd__err(sys, FCD_E_NOMEM, "out of memory for the Schur complement's LU");
    goto done;
  }
  for (fcd_index i = 0; i < n; i++) pos[i] = -1;
  for (fcd_index a = 0; a < s; a++) pos[idx[a]] = a;
  for (fcd_index k = b; k < n; k++)
    if (pos[p.P[k]] < 0 || pos[p.Q[k]] < 0) {
      st = fcd__err(sys, FCD_E_UNSUPPORTED, "UMFPACK pivoted outside the Schur set's order");
      goto done;
    }
  /* T = the trailing blocks of L (strictly lower, by rows) and U (by columns) */
  for (fcd_index i = b; i < n; i++)
    for (SuiteSparse_long e = p.Lp[i]; e < p.Lp[i + 1]; e++)
      if (p.Lj[e] >= b && p.Lj[e] < i) T[(i - b) * s + (p.Lj[e] - b)] = p.Lx[e];
  for (fcd_index j = b; j < n; j++)
    for (SuiteSparse_long e = p.Up[j]; e < p.Up[j + 1]; e++)
      if (p.Ui[e] >= b) T[(p.Ui[e] - b) * s + (j - b)] = p.Ux[e];
  int r = fcd__la_lu_inverse(s, T);
  if (r != 0) {
    st = r > 0 ? fcd__err(sys, FCD_E_SINGULAR, "the non-symmetric operator is singular: its "
                          "Schur complement on the contact dofs has a zero pivot")
               : fcd__err(sys, FCD_E_NOMEM, "out of memory inverting the Schur complement");
    goto done;
  }
  for (fcd_index k = 0; k < s; k++) {
    SuiteSparse_long row = p.P[b + k];
    fcd_real rs = p.do_recip ? p.Rs[row] : 1.0 / p.Rs[row];
    for (fcd_index j = 0; j < s; j++) out[pos[p.Q[b + j]] * s + pos[row]] = T[j * s + k] * rs;
  }
done:
  fcd__free(pos);
  fcd__free(T);
  parts_free(&p);
  return st;
}
