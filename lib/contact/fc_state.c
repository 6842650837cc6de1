/* The contact states of a warm start taken as the answer's (an active-set step). An
 * integrator's step starts its contact solve from the previous step's impulses, and in a
 * steady regime (a brake's pins sliding on the disc, a body resting) every contact keeps
 * its state from one step to the next: open, sticking, or slipping in a direction that
 * turns by the ratio of the vibration's velocity to the sliding speed. With the states
 * known the law is linear, and one dense solve of the contacts' Delassus rows answers
 * where NSGS took 137 sweeps (the brake: 144 sliding contacts, 432 directions). The
 * states are corrected from what the solve violates (a negative normal reaction opens
 * the contact, a penetrating open one closes, a sticking one beyond the cone slips, a
 * slipping one takes the direction of its new velocity, or sticks when that velocity
 * turns against its friction) for a few solves; the stage
 * gives up when they do not settle, and auto goes on from the warm start as before. */
#include "fc_private.h"
#include "lapack.h"

#include <float.h>
#include <math.h>
#include <string.h>

enum { ST_OPEN = 0, ST_STICK = 1, ST_SLIP = 2 };
/* the stage runs when its dense solve costs at most this many products with W:
 * k^3 / 3 multiply-adds for k unknowns against m^2 per sweep */
#define STATE_SWEEPS 60.0

struct fcd__fc_state {
  int d;
  fcd_index nc, m, k;
  unsigned char *state;
  fcd_real *s;      /* slip directions of u_T (d - 1 per contact) */
  fcd_index *col;   /* first unknown of each contact, -1 when open */
  fcd_real *A, *x;  /* k x k by rows (a row is a constraint, written as one stretch), k */
  fcd_index nc_cap, m_cap; /* what the arrays hold (a kept workspace grows) */
  /* the last factored system's LU (lu_k x lu_k: A's rows are the columns of A^T, which
   * is factored; pivots piv), kept across solves and steps as the next systems'
   * preconditioner; b and res: k each */
  fcd_real *LU, *b, *res;
  int *piv;
  fcd_index lu_k, lu_cap; /* lu_k 0: none kept */
  long nfactor; /* factorizations made (the tests' view of the kept LU) */
  fcd_real anorm; /* max row sum of |A|, taken as the rows are made */
};
typedef fcd__fc_state state_ws; /* the stage's workspace is the handle */

/* the state of contact c of r in fcd's convention (fcd/fcd_contact.h: r_N <= 0, a
 * slipping contact has r_T = mu r_N s, s the direction of u_T): open without normal
 * reaction, slipping on the cone's boundary (to the solver's tolerance), sticking inside
 * it; *t receives |r_T| */
static unsigned char state_of(const fcd__fc_local *p, const fcd_real *r, fcd_index c,
                              fcd_real *t) {
  int d = p->dim;
  const fcd_real *rc = r + c * d;
  fcd_real tt = 0, mu = p->mu[c];
  for (int k = 1; k < d; k++) tt += rc[k] * rc[k];
  *t = sqrt(tt);
  if (!(rc[0] < 0)) return ST_OPEN;
  return mu == 0 || *t >= -mu * rc[0] * (1 - 1e-6) ? ST_SLIP : ST_STICK;
}

/* the states of r, and the slip directions its tangential reactions give */
static void states_from_r(const fcd__fc_local *p, const fcd_real *r, state_ws *w) {
  int d = w->d;
  for (fcd_index c = 0; c < w->nc; c++) {
    fcd_real t;
    w->state[c] = state_of(p, r, c, &t);
    fcd_real *s = w->s + c * (d - 1);
    for (int k = 1; k < d; k++) s[k - 1] = t > 0 ? -r[c * d + k] / t : (k == 1);
  }
}

/* numbers the unknowns: d per sticking contact, the normal reaction of a slipping one */
static fcd_index number_unknowns(state_ws *w) {
  fcd_index k = 0;
  for (fcd_index c = 0; c < w->nc; c++) {
    w->col[c] = w->state[c] == ST_OPEN ? -1 : k;
    k += w->state[c] == ST_STICK ? w->d : w->state[c] == ST_SLIP ? 1 : 0;
  }
  return k;
}

/* the reaction of contact c from the unknowns x */
static void reaction_of(const fcd__fc_local *p, const state_ws *w, fcd_index c,
                        const fcd_real *x, fcd_real *rc) {
  int d = w->d;
  memset(rc, 0, (size_t)d * sizeof *rc);
  if (w->state[c] == ST_STICK) {
    for (int k = 0; k < d; k++) rc[k] = x[w->col[c] + k];
  } else if (w->state[c] == ST_SLIP) {
    rc[0] = x[w->col[c]];
    for (int k = 1; k < d; k++) rc[k] = p->mu[c] * rc[0] * w->s[c * (d - 1) + k - 1];
  }
}

/* Up to this many unknowns the state's system is solved here: LAPACK's dgesv through
 * OpenBLAS costs about a microsecond at any size below it (its threading checks and an
 * allocation), the whole solve of a problem of a few contacts. */
enum { SMALL_LU = 64 };

/* A x = b in place (A k x k by rows, destroyed; x holds b), Gaussian elimination with
 * partial pivoting as dgesv does; 1 when a pivot is exactly zero (dgesv's info > 0) */
static int small_lu_solve(fcd_index k, fcd_real *A, fcd_real *x) {
  for (fcd_index j = 0; j < k; j++) {
    fcd_index piv = j;
    for (fcd_index i = j + 1; i < k; i++)
      if (fabs(A[i * k + j]) > fabs(A[piv * k + j])) piv = i;
    if (!(A[piv * k + j] != 0)) return 1; /* zero (or NaN) pivot */
    if (piv != j) {
      for (fcd_index c = 0; c < k; c++) {
        fcd_real t = A[j * k + c];
        A[j * k + c] = A[piv * k + c];
        A[piv * k + c] = t;
      }
      fcd_real t = x[j];
      x[j] = x[piv];
      x[piv] = t;
    }
    fcd_real inv = 1 / A[j * k + j];
    const fcd_real *aj = A + j * k;
    for (fcd_index i = j + 1; i < k; i++) {
      fcd_real *ai = A + i * k, f = ai[j] * inv;
      if (f == 0) continue;
      for (fcd_index c = j + 1; c < k; c++) ai[c] -= f * aj[c];
      x[i] -= f * x[j];
    }
  }
  for (fcd_index i = k - 1; i >= 0; i--) {
    const fcd_real *ai = A + i * k;
    fcd_real t = x[i];
    for (fcd_index c = i + 1; c < k; c++) t -= ai[c] * x[c];
    x[i] = t / ai[i];
  }
  return 0;
}

/* Iterative refinement with a kept factorization. From one solve to the next, and from
 * one step to the next in a steady regime, the states hold and only the slip directions
 * turn (by the vibration's velocity over the sliding speed), so the last factored
 * system's LU is a close preconditioner of the new one: x += LU^-1 (b - A x) costs two
 * passes over k x k numbers where a factorization costs k / 3 of them (the brake's 396
 * slipping contacts: 41 Mflop a factorization, the step's largest cost). The answer is
 * taken only when its residual is at the round-off a direct solve leaves; a step that
 * does not cut the residual by REFINE_RATE gives up, and the system is factored. */
#define REFINE_TOL (64 * DBL_EPSILON)
#define REFINE_RATE 0.25
enum { REFINE_MAX = 30 };

/* the kept LU's sizes grown to k; 0 on success */
static int lu_size(state_ws *w, fcd_index k) {
  if (k <= w->lu_cap) return 0;
  fcd_real *LU = fcd__malloc_array((size_t)k * (size_t)k, sizeof *LU);
  fcd_real *b = fcd__malloc_array((size_t)k, sizeof *b);
  fcd_real *res = fcd__malloc_array((size_t)k, sizeof *res);
  int *piv = fcd__malloc_array((size_t)k, sizeof *piv);
  if (!LU || !b || !res || !piv) {
    fcd__free(LU);
    fcd__free(b);
    fcd__free(res);
    fcd__free(piv);
    return 1;
  }
  fcd__free(w->LU);
  fcd__free(w->b);
  fcd__free(w->res);
  fcd__free(w->piv);
  w->LU = LU;
  w->b = b;
  w->res = res;
  w->piv = piv;
  w->lu_cap = k;
  w->lu_k = 0;
  return 0;
}

/* max |x_i| (NaN propagates) */
static fcd_real max_abs(fcd_index k, const fcd_real *x) {
  fcd_real v = 0;
  for (fcd_index i = 0; i < k; i++) v = fabs(x[i]) > v || isnan(x[i]) ? fabs(x[i]) : v;
  return v;
}

/* res = b - A x for the k x k A by rows; returns max |res| */
static fcd_real residual(fcd_index k, const fcd_real *A, const fcd_real *x, const fcd_real *b,
                         fcd_real *res) {
  for (fcd_index i = 0; i < k; i++) {
    res[i] = b[i] - fcd__dot4(A + (size_t)i * (size_t)k, x, k);
  }
  return max_abs(k, res);
}

/* A x = b (x holds b) by refinement from the kept LU; 1 with x's b intact when the kept
 * LU is of another size, or the refinement does not converge */
static int solve_kept(state_ws *w) {
  fcd_index k = w->k;
  if (w->lu_k != k) return 1;
  memcpy(w->b, w->x, (size_t)k * sizeof *w->b);
  fcd_real anorm = w->anorm, bn = max_abs(k, w->b), prev = INFINITY;
  fcd__la_lu_solve_t_cm(k, w->LU, w->piv, w->x);
  for (int it = 0; it < REFINE_MAX; it++) {
    fcd_real rn = residual(k, w->A, w->x, w->b, w->res);
    if (rn <= REFINE_TOL * (anorm * max_abs(k, w->x) + bn)) return 0;
    if (!(rn <= REFINE_RATE * prev)) break;
    prev = rn;
    fcd__la_lu_solve_t_cm(k, w->LU, w->piv, w->res);
    for (fcd_index i = 0; i < k; i++) w->x[i] += w->res[i];
  }
  memcpy(w->x, w->b, (size_t)k * sizeof *w->x);
  return 1;
}

/* A x = b (x holds b) by a factorization of A, kept for the next systems; 1 when A is
 * singular. A's rows are the columns of A^T: A^T is factored, and solved transposed. */
static int solve_factor(state_ws *w) {
  fcd_index k = w->k;
  if (lu_size(w, k)) { /* no room to keep it: A itself, turned to columns, by dgesv */
    for (fcd_index i = 0; i < k; i++)
      for (fcd_index c = i + 1; c < k; c++) {
        fcd_real t = w->A[i * k + c];
        w->A[i * k + c] = w->A[c * k + i];
        w->A[c * k + i] = t;
      }
    return fcd__la_gesv_cm(k, w->A, w->x) != 0;
  }
  memcpy(w->LU, w->A, (size_t)k * (size_t)k * sizeof *w->LU);
  w->nfactor++;
  w->lu_k = fcd__la_lu_cm(k, w->LU, w->piv) == 0 ? k : 0;
  if (w->lu_k == 0) return 1;
  fcd__la_lu_solve_t_cm(k, w->LU, w->piv, w->x);
  return 0;
}

/* row ei of A from the dense row wr of W (m entries), each entry written once, in
 * column order (a column-major A took a store k numbers apart per entry, the stage's
 * largest cost on the brake's 393 sliding contacts); returns the row's sum of |A| */
static fcd_real dense_row(const fcd__fc_local *p, state_ws *w, const fcd_real *wr,
                          fcd_index ei) {
  int d = w->d;
  fcd_real *ar = w->A + ei * w->k, sum = 0;
  for (fcd_index cj = 0; cj < w->nc; cj++) {
    const fcd_real *wc = wr + cj * d;
    if (w->state[cj] == ST_STICK) {
      for (int b = 0; b < d; b++) {
        ar[w->col[cj] + b] = wc[b];
        sum += fabs(wc[b]);
      }
    } else if (w->state[cj] == ST_SLIP) {
      fcd_real acc = wc[0];
      const fcd_real *s = w->s + cj * (d - 1);
      for (int b = 1; b < d; b++) acc += p->mu[cj] * s[b - 1] * wc[b];
      ar[w->col[cj]] = acc;
      sum += fabs(acc);
    }
  }
  return sum;
}

/* A x = b: the rows u_N = 0 (slipping) or u = 0 (sticking) of u = W r + q with r in
 * terms of the unknowns; x receives b = -q on those rows. 1 when A is singular. */
static int solve_states(const fcd__fc_local *p, state_ws *w) {
  int d = w->d;
  fcd_index k = w->k;
  const fcd__csr *W = p->W;
  /* a dense W's rows write every entry of A's (every column is a closed contact's) */
  if (!W->dense) memset(w->A, 0, (size_t)k * (size_t)k * sizeof *w->A);
  w->anorm = 0;
  for (fcd_index c = 0; c < w->nc; c++) {
    if (w->state[c] == ST_OPEN) continue;
    int rows = w->state[c] == ST_STICK ? d : 1;
    for (int a = 0; a < rows; a++) {
      fcd_index i = c * d + a, ei = w->col[c] + a;
      w->x[ei] = -p->q[i];
      fcd_real sum = 0;
      if (W->dense) { /* the same sums, contact by contact, without the indices */
        sum = dense_row(p, w, W->val + i * p->m, ei);
      } else {
        fcd_real *ar = w->A + ei * k;
        for (fcd_index e = W->rowptr[i]; e < W->rowptr[i + 1]; e++) {
          fcd_index j = W->col[e], cj = j / d;
          int b = (int)(j - cj * d);
          if (w->state[cj] == ST_STICK) {
            ar[w->col[cj] + b] += W->val[e];
          } else if (w->state[cj] == ST_SLIP) {
            fcd_real f = b == 0 ? 1 : p->mu[cj] * w->s[cj * (d - 1) + b - 1];
            ar[w->col[cj]] += f * W->val[e];
          }
        }
        for (fcd_index q = 0; q < k; q++) sum += fabs(ar[q]);
      }
      w->anorm = sum > w->anorm || isnan(sum) ? sum : w->anorm;
    }
  }
  if (k <= SMALL_LU) return small_lu_solve(k, w->A, w->x);
  return solve_kept(w) == 0 ? 0 : solve_factor(w);
}

/* corrects the states from the answer (r, u); returns the number of contacts changed */
static fcd_index correct_states(const fcd__fc_local *p, const fcd_real *r, const fcd_real *u,
                                state_ws *w) {
  int d = w->d;
  fcd_index changed = 0;
  for (fcd_index c = 0; c < w->nc; c++) {
    const fcd_real *rc = r + c * d, *uc = u + c * d;
    fcd_real ut = 0, rt = 0, mu = p->mu[c];
    for (int k = 1; k < d; k++) {
      ut += uc[k] * uc[k];
      rt += rc[k] * rc[k];
    }
    ut = sqrt(ut);
    rt = sqrt(rt);
    unsigned char was = w->state[c], now = was;
    fcd_real *s = w->s + c * (d - 1), us = 0;
    for (int k = 1; k < d; k++) us += uc[k] * s[k - 1];
    if (was != ST_OPEN && rc[0] > 0) now = ST_OPEN;          /* pulls */
    else if (was == ST_OPEN && uc[0] > 0) now = ut > 0 ? ST_SLIP : ST_STICK; /* penetrates */
    else if (was == ST_STICK && rt > -mu * rc[0]) now = ST_SLIP; /* beyond the cone */
    else if (was == ST_SLIP && us < 0) now = ST_STICK; /* slides against its friction */
    /* a sticking contact's velocity is the solve's round-off: its reaction, beyond the
     * cone, says where it slips */
    if (now == ST_SLIP && was == ST_STICK && rt > 0)
      for (int k = 1; k < d; k++) s[k - 1] = -rc[k] / rt;
    else if (now == ST_SLIP && ut > 0)
      for (int k = 1; k < d; k++) s[k - 1] = uc[k] / ut; /* the new velocity's direction */
    w->state[c] = now;
    changed += now != was;
  }
  return changed;
}

void fcd__fc_state_free(fcd__fc_state *st) {
  if (!st) return;
  fcd__free(st->state);
  fcd__free(st->s);
  fcd__free(st->col);
  fcd__free(st->A);
  fcd__free(st->x);
  fcd__free(st->LU);
  fcd__free(st->b);
  fcd__free(st->res);
  fcd__free(st->piv);
  fcd__free(st);
}

int fcd__fc_state_worth(const fcd__fc_local *p, const fcd_real *r0) {
  if (!r0 || !p->W || p->dim < 2) return 0;
  /* the size of the guess' system: d unknowns per sticking contact, 1 per slipping one
   * (the states' changes during the stage seldom change it much) */
  fcd_index k = 0;
  for (fcd_index c = 0; c < p->nc; c++) {
    fcd_real t;
    unsigned char st = state_of(p, r0, c, &t);
    k += st == ST_STICK ? p->dim : st == ST_SLIP ? 1 : 0;
  }
  fcd_real kk = (fcd_real)k, m = (fcd_real)p->m;
  return k > 0 && kk * kk * kk / 3 <= STATE_SWEEPS * m * m;
}

/* (re)sizes the arrays of w for p; 0 on success (w unchanged on failure) */
static int state_size(state_ws *w, const fcd__fc_local *p) {
  if (p->nc <= w->nc_cap && p->m <= w->m_cap && w->state) return 0;
  fcd_index nc = p->nc > w->nc_cap ? p->nc : w->nc_cap, m = p->m > w->m_cap ? p->m : w->m_cap;
  unsigned char *state = fcd__malloc_array((size_t)nc + 1, 1);
  fcd_real *sd = fcd__malloc_array((size_t)nc * 2 + 1, sizeof *sd);
  fcd_index *col = fcd__malloc_array((size_t)nc + 1, sizeof *col);
  fcd_real *x = fcd__malloc_array((size_t)m + 1, sizeof *x);
  fcd_real *A = fcd__malloc_array(((size_t)m + 1) * ((size_t)m + 1), sizeof *A);
  if (!state || !sd || !col || !x || !A) {
    fcd__free(state);
    fcd__free(sd);
    fcd__free(col);
    fcd__free(x);
    fcd__free(A);
    return 1;
  }
  fcd__free(w->state);
  fcd__free(w->s);
  fcd__free(w->col);
  fcd__free(w->x);
  fcd__free(w->A);
  w->state = state;
  w->s = sd;
  w->col = col;
  w->x = x;
  w->A = A;
  w->nc_cap = nc;
  w->m_cap = m;
  return 0;
}

fcd_status fcd__fc_state_acquire(fcd_system *sink, const fcd__fc_local *p, const fcd_real *r0,
                                 fcd__fc_state **out) {
  fcd__fc_state *st = p->ws ? p->ws->state : NULL;
  int fresh = !st;
  if (fresh) st = fcd__calloc(1, sizeof *st);
  if (!st || state_size(st, p)) {
    if (fresh) fcd__fc_state_free(st);
    *out = NULL;
    return fcd__err(sink, FCD_E_NOMEM, "out of memory in the contact solver");
  }
  if (fresh && p->ws) p->ws->state = st;
  st->d = p->dim;
  st->nc = p->nc;
  st->m = p->m;
  states_from_r(p, r0, st);
  *out = st;
  return FCD_OK;
}

void fcd__fc_state_release(const fcd__fc_local *p, fcd__fc_state *st) {
  if (!p->ws || p->ws->state != st) fcd__fc_state_free(st);
}

int fcd__fc_state_step(const fcd__fc_local *p, fcd__fc_state *st, fcd_real *r) {
  state_ws *w = st;
  w->k = number_unknowns(w);
  if (w->k > 0 && solve_states(p, w)) return 1;
  for (fcd_index c = 0; c < p->nc; c++) reaction_of(p, w, c, w->x, r + c * w->d);
  return 0;
}

long fcd__fc_state_factorizations(const fcd__fc_state *st) { return st ? st->nfactor : 0; }

void fcd__fc_state_correct(const fcd__fc_local *p, fcd__fc_state *st, const fcd_real *r,
                           const fcd_real *u) {
  correct_states(p, r, u, st);
}
