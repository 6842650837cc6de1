/* The contact states of a warm start taken as the answer's (an active-set step). An
 * integrator's step starts its contact solve from the previous step's impulses, and in a
 * steady regime (a brake's pins sliding on the disc, a body resting) every contact keeps
 * its state from one step to the next: open, sticking, or slipping in a direction that
 * turns by the ratio of the vibration's velocity to the sliding speed. With the states
 * known the law is linear, and one dense solve of the contacts' Delassus rows answers
 * where NSGS took 137 sweeps (the brake: 144 sliding contacts, 432 directions). The
 * states are corrected from what the solve violates (a negative normal reaction opens
 * the contact, a penetrating open one closes, a sticking one beyond the cone slips, a
 * slipping one takes the direction of its new velocity) for a few solves; the stage
 * gives up when they do not settle, and auto goes on from the warm start as before. */
#include "fc_private.h"
#include "lapack.h"

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
  fcd_real *A, *x;  /* k x k column-major, k */
  fcd_index nc_cap, m_cap; /* what the arrays hold (a kept workspace grows) */
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

/* A x = b in place (A k x k column-major, destroyed; x holds b), Gaussian elimination
 * with partial pivoting as dgesv does; 1 when a pivot is exactly zero (dgesv's info > 0) */
static int small_lu_solve(fcd_index k, fcd_real *A, fcd_real *x) {
  for (fcd_index j = 0; j < k; j++) {
    fcd_index piv = j;
    for (fcd_index i = j + 1; i < k; i++)
      if (fabs(A[j * k + i]) > fabs(A[j * k + piv])) piv = i;
    if (!(A[j * k + piv] != 0)) return 1; /* zero (or NaN) pivot */
    if (piv != j) {
      for (fcd_index c = 0; c < k; c++) {
        fcd_real t = A[c * k + j];
        A[c * k + j] = A[c * k + piv];
        A[c * k + piv] = t;
      }
      fcd_real t = x[j];
      x[j] = x[piv];
      x[piv] = t;
    }
    fcd_real inv = 1 / A[j * k + j];
    for (fcd_index i = j + 1; i < k; i++) {
      fcd_real f = A[j * k + i] * inv;
      if (f == 0) continue;
      for (fcd_index c = j + 1; c < k; c++) A[c * k + i] -= f * A[c * k + j];
      x[i] -= f * x[j];
    }
  }
  for (fcd_index i = k - 1; i >= 0; i--) {
    fcd_real t = x[i];
    for (fcd_index c = i + 1; c < k; c++) t -= A[c * k + i] * x[c];
    x[i] = t / A[i * k + i];
  }
  return 0;
}

/* row ei of A from the dense row wr of W (m entries) */
static void dense_row(const fcd__fc_local *p, state_ws *w, const fcd_real *wr, fcd_index ei) {
  int d = w->d;
  fcd_index k = w->k;
  for (fcd_index cj = 0; cj < w->nc; cj++) {
    const fcd_real *wc = wr + cj * d;
    if (w->state[cj] == ST_STICK) {
      for (int b = 0; b < d; b++) w->A[(w->col[cj] + b) * k + ei] += wc[b];
    } else if (w->state[cj] == ST_SLIP) {
      fcd_real acc = wc[0];
      const fcd_real *s = w->s + cj * (d - 1);
      for (int b = 1; b < d; b++) acc += p->mu[cj] * s[b - 1] * wc[b];
      w->A[w->col[cj] * k + ei] += acc;
    }
  }
}

/* A x = b: the rows u_N = 0 (slipping) or u = 0 (sticking) of u = W r + q with r in
 * terms of the unknowns; x receives b = -q on those rows. 1 when A is singular. */
static int solve_states(const fcd__fc_local *p, state_ws *w) {
  int d = w->d;
  fcd_index k = w->k;
  const fcd__csr *W = p->W;
  memset(w->A, 0, (size_t)k * (size_t)k * sizeof *w->A);
  for (fcd_index c = 0; c < w->nc; c++) {
    if (w->state[c] == ST_OPEN) continue;
    int rows = w->state[c] == ST_STICK ? d : 1;
    for (int a = 0; a < rows; a++) {
      fcd_index i = c * d + a, ei = w->col[c] + a;
      w->x[ei] = -p->q[i];
      if (W->dense) { /* the same sums, contact by contact, without the indices */
        dense_row(p, w, W->val + i * p->m, ei);
        continue;
      }
      for (fcd_index e = W->rowptr[i]; e < W->rowptr[i + 1]; e++) {
        fcd_index j = W->col[e], cj = j / d;
        int b = (int)(j - cj * d);
        if (w->state[cj] == ST_STICK) {
          w->A[(w->col[cj] + b) * k + ei] += W->val[e];
        } else if (w->state[cj] == ST_SLIP) {
          fcd_real f = b == 0 ? 1 : p->mu[cj] * w->s[cj * (d - 1) + b - 1];
          w->A[w->col[cj] * k + ei] += f * W->val[e];
        }
      }
    }
  }
  return k <= SMALL_LU ? small_lu_solve(k, w->A, w->x) : fcd__la_gesv_cm(k, w->A, w->x) != 0;
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
    if (was != ST_OPEN && rc[0] > 0) now = ST_OPEN;          /* pulls */
    else if (was == ST_OPEN && uc[0] > 0) now = ut > 0 ? ST_SLIP : ST_STICK; /* penetrates */
    else if (was == ST_STICK && rt > -mu * rc[0]) now = ST_SLIP; /* beyond the cone */
    fcd_real *s = w->s + c * (d - 1);
    if (now == ST_SLIP && ut > 0)
      for (int k = 1; k < d; k++) s[k - 1] = uc[k] / ut; /* the new velocity's direction */
    else if (now == ST_SLIP && was == ST_STICK && rt > 0)
      for (int k = 1; k < d; k++) s[k - 1] = -rc[k] / rt;
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

void fcd__fc_state_correct(const fcd__fc_local *p, fcd__fc_state *st, const fcd_real *r,
                           const fcd_real *u) {
  correct_states(p, r, u, st);
}
