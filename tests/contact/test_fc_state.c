/* The state stage's kept factorization (lib/contact/fc_state.c). A warm start's states
 * give a linear system A x = b whose columns carry the slip directions; from one solve to
 * the next (and one step to the next) the stage refines from the last system's LU instead
 * of factoring again. Every answer here is checked against the same system assembled in
 * this file from the equations (u_N = 0 at a slipping contact, u = 0 at a sticking one,
 * r_T = mu r_N s) and solved by LAPACK's dgesv, and the factorizations are counted:
 *   - directions turned by 1e-3 rad: no new factorization, the answer dgesv's to 1e-12;
 *   - directions drawn anew (at the coefficients drawn, then at mu = 3): the refinement
 *     gives up and the system is factored;
 *   - one contact opened (another size): factored;
 *   - the state of a contact changed from slip to stick but the size kept (the kept LU is
 *     another system's): the answer dgesv's all the same.
 * 3D, 90 contacts (more unknowns than the small in-place elimination takes). */
#include <lapacke.h>

#include "../fcdtest.h"
#include "fc_private.h"
#include "sparse.h"

enum { NC = 90, D = 3, M = NC * D };

typedef struct {
  double W[M * M], q[M], mu[NC];
  fcd_index rowptr[M + 1], col[M * M];
  fcd__csr csr;
  fcd__fc_ws ws;
  fcd__fc_local p;
} problem;

/* W = B B^T / M + I + each contact's coupling block (symmetric positive definite,
 * dense), q drawn */
static void make(problem *P) {
  static double B[M * M];
  for (int i = 0; i < M * M; i++) B[i] = fcdt_rand() - 0.5;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < M; j++) {
      double s = i == j ? 1.0 : 0.0;
      for (int l = 0; l < M; l++) s += B[i * M + l] * B[j * M + l] / M;
      P->W[i * M + j] = s;
    }
  /* each contact's own block couples its normal and tangential directions, as a node's
   * compliance does where the surface is not a plane of symmetry (SPD: det 0.406) */
  const double G[3][3] = {{1, 0.6, 0.6}, {0.6, 1, 0.3}, {0.6, 0.3, 1}};
  for (int c = 0; c < NC; c++)
    for (int a = 0; a < D; a++)
      for (int b = 0; b < D; b++) P->W[(c * D + a) * M + c * D + b] += G[a][b];
  for (int i = 0; i <= M; i++) P->rowptr[i] = (fcd_index)i * M;
  for (int i = 0; i < M * M; i++) P->col[i] = i % M;
  for (int i = 0; i < M; i++) P->q[i] = fcdt_rand() - 0.5;
  for (int c = 0; c < NC; c++) P->mu[c] = 0.3 + 0.4 * fcdt_rand();
  P->csr = (fcd__csr){.n = M, .rowptr = P->rowptr, .col = P->col, .val = P->W, .set = 1};
  fcd__csr_mark_dense(&P->csr);
  memset(&P->ws, 0, sizeof P->ws);
  P->p = (fcd__fc_local){.dim = D, .nc = NC, .m = M, .W = &P->csr, .q = P->q, .mu = P->mu,
                         .ws = &P->ws};
}

/* a guess: every contact slipping (r_N = -1, r_T on the cone along -s, s at angle th[c])
 * but contact `stick` sticking inside its cone and contact `open` open (-1: none) */
static void guess(const problem *P, const double *th, int stick, int open, double *r) {
  for (int c = 0; c < NC; c++) {
    double rn = -1.0, f = c == stick ? 0.5 : 1.0;
    r[c * D] = c == open ? 0.0 : rn;
    r[c * D + 1] = c == open ? 0.0 : P->mu[c] * rn * f * cos(th[c]);
    r[c * D + 2] = c == open ? 0.0 : P->mu[c] * rn * f * sin(th[c]);
  }
}

/* The answer the states of r0 give, built here: unknowns r_N of each slipping contact
 * (r_T = mu r_N s, s = -r_T0 / |r_T0|), r of each sticking one, equations u_N = 0 or
 * u = 0 on their rows of u = W r + q; dgesv. Returns the reactions in rr. */
static void reference(const problem *P, const double *r0, double *rr) {
  int st[NC], col[NC], k = 0;
  double s[NC][2];
  for (int c = 0; c < NC; c++) {
    const double *rc = r0 + c * D;
    double t = hypot(rc[1], rc[2]);
    st[c] = !(rc[0] < 0) ? 0 : t >= -P->mu[c] * rc[0] * (1 - 1e-6) ? 2 : 1;
    s[c][0] = t > 0 ? -rc[1] / t : 1;
    s[c][1] = t > 0 ? -rc[2] / t : 0;
    col[c] = k;
    k += st[c] == 1 ? D : st[c] == 2 ? 1 : 0;
  }
  double *A = calloc((size_t)k * k, sizeof *A), *x = malloc(sizeof *x * (size_t)k);
  lapack_int *ipiv = malloc(sizeof *ipiv * (size_t)k);
  for (int ci = 0; ci < NC; ci++) {
    int rows = st[ci] == 1 ? D : st[ci] == 2 ? 1 : 0;
    for (int a = 0; a < rows; a++) {
      int i = ci * D + a, e = col[ci] + a;
      x[e] = -P->q[i];
      for (int cj = 0; cj < NC; cj++) {
        const double *w = P->W + (size_t)i * M + cj * D;
        if (st[cj] == 1)
          for (int b = 0; b < D; b++) A[(size_t)e * k + col[cj] + b] += w[b];
        else if (st[cj] == 2)
          A[(size_t)e * k + col[cj]] += w[0] + P->mu[cj] * (s[cj][0] * w[1] + s[cj][1] * w[2]);
      }
    }
  }
  CHECK(LAPACKE_dgesv(LAPACK_ROW_MAJOR, k, 1, A, k, ipiv, x, 1) == 0);
  for (int c = 0; c < NC; c++) {
    double *rc = rr + c * D;
    rc[0] = rc[1] = rc[2] = 0;
    if (st[c] == 1)
      for (int b = 0; b < D; b++) rc[b] = x[col[c] + b];
    else if (st[c] == 2) {
      rc[0] = x[col[c]];
      rc[1] = P->mu[c] * rc[0] * s[c][0];
      rc[2] = P->mu[c] * rc[0] * s[c][1];
    }
  }
  free(A);
  free(x);
  free(ipiv);
}

/* one solve of the stage from r0; the factorizations it made; its answer against the
 * reference's, relative to the largest reaction */
static long solve(problem *P, const double *r0, double *err) {
  fcd__fc_state *st = NULL;
  CHECK_ST(fcd__fc_state_acquire(NULL, &P->p, r0, &st), FCD_OK);
  long f0 = fcd__fc_state_factorizations(st);
  double r[M], ref[M];
  CHECK(fcd__fc_state_step(&P->p, st, r) == 0);
  long made = fcd__fc_state_factorizations(st) - f0;
  fcd__fc_state_release(&P->p, st);
  reference(P, r0, ref);
  double d = 0, sc = 0;
  for (int i = 0; i < M; i++) {
    d = fmax(d, fabs(r[i] - ref[i]));
    sc = fmax(sc, fabs(ref[i]));
  }
  *err = d / sc;
  return made;
}

/* A slipping contact whose solved velocity turns against its friction (u_T . s < 0)
 * sticks at the next solve. One contact in 3D, W = I, q = (1, 0.1, 0), mu = 0.5: the
 * answer sticks, r = -q (|r_T| = 0.1 inside the cone of 0.5). A guess slipping along
 * s = (1, 0) gives r = (-1, -0.5, 0) and u_T = r_T + q_T = (-0.4, 0), against s. Taking
 * the velocity's direction instead flips s to (-1, 0), where u_T = (0.6, 0) is against
 * it again: the states cycle between the two slips and never reach the answer. */
static void test_slip_against_friction(void) {
  double w[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, q[3] = {1, 0.1, 0}, mu = 0.5;
  fcd_index rp[4] = {0, 3, 6, 9}, ci[9] = {0, 1, 2, 0, 1, 2, 0, 1, 2};
  fcd__csr W = {.n = 3, .rowptr = rp, .col = ci, .val = w, .set = 1};
  fcd__csr_mark_dense(&W);
  fcd__fc_local p = {.dim = 3, .nc = 1, .m = 3, .W = &W, .q = q, .mu = &mu, .ws = NULL};
  double r0[3] = {-1, -0.5, 0}, r[3], u[3];
  fcd__fc_state *st = NULL;
  CHECK_ST(fcd__fc_state_acquire(NULL, &p, r0, &st), FCD_OK);
  CHECK(fcd__fc_state_step(&p, st, r) == 0); /* slipping along (1, 0) */
  CHECK(fabs(r[0] + 1) <= 1e-15 && fabs(r[1] + 0.5) <= 1e-15 && r[2] == 0);
  for (int i = 0; i < 3; i++) u[i] = r[i] + q[i];
  fcd__fc_state_correct(&p, st, r, u);
  CHECK(fcd__fc_state_step(&p, st, r) == 0); /* sticking: u = 0 */
  for (int i = 0; i < 3; i++) CHECK(fabs(r[i] + q[i]) <= 1e-15);
  printf("slip against its friction: sticks at the second solve, r = (%.2f, %.2f, %.2f)\n",
         r[0], r[1], r[2]);
  fcd__fc_state_release(&p, st);
  fcd__csr_clear(&W);
}

int main(void) {
  test_slip_against_friction();
  static problem P;
  make(&P);
  double th[NC], r0[M], err;
  for (int c = 0; c < NC; c++) th[c] = 6.283185307179586 * fcdt_rand();
  guess(&P, th, -1, -1, r0);
  CHECK(solve(&P, r0, &err) == 1); /* the first system: factored */
  CHECK(err <= 1e-12);
  printf("first system: factored, %.1e from dgesv\n", err);
  /* slip directions turned a little, as from one step to the next */
  for (int rep = 0; rep < 3; rep++) {
    for (int c = 0; c < NC; c++) th[c] += 1e-3 * (fcdt_rand() - 0.5);
    guess(&P, th, -1, -1, r0);
    long made = solve(&P, r0, &err);
    CHECK(made == 0);
    CHECK(err <= 1e-12);
    printf("directions turned by 1e-3: %ld factorizations, %.1e from dgesv\n", made, err);
  }
  /* directions drawn anew: the slip columns' mu s . W_T (the contacts' own coupling
   * blocks) change too much for the kept LU, the refinement gives up and the system is
   * factored */
  for (int c = 0; c < NC; c++) th[c] = 6.283185307179586 * fcdt_rand();
  guess(&P, th, -1, -1, r0);
  long made = solve(&P, r0, &err);
  CHECK(made == 1);
  CHECK(err <= 1e-12);
  printf("directions drawn anew: %ld factorization, %.1e from dgesv\n", made, err);
  /* and again at mu = 3 */
  for (int c = 0; c < NC; c++) {
    P.mu[c] = 3.0;
    th[c] = 6.283185307179586 * fcdt_rand();
  }
  guess(&P, th, -1, -1, r0);
  made = solve(&P, r0, &err);
  CHECK(made == 1);
  CHECK(err <= 1e-12);
  printf("mu = 3, directions drawn anew: %ld factorization, %.1e from dgesv\n", made, err);
  /* one contact open: one unknown fewer */
  guess(&P, th, -1, 7, r0);
  made = solve(&P, r0, &err);
  CHECK(made == 1);
  CHECK(err <= 1e-12);
  printf("a contact opened: %ld factorization, %.1e from dgesv\n", made, err);
  /* contact 3 sticks (three unknowns) and contact 7 stays open while contacts 11 and 12
   * open too: the same size as the all-slipping system with one open, not its system */
  guess(&P, th, 3, 7, r0);
  for (int c = 11; c <= 12; c++) r0[c * D] = r0[c * D + 1] = r0[c * D + 2] = 0;
  made = solve(&P, r0, &err);
  CHECK(err <= 1e-12);
  printf("states changed at the same size: %ld factorization(s), %.1e from dgesv\n", made,
         err);
  fcd__fc_ws_clear(&P.ws);
  return fcdt_finish("fc_state");
}
