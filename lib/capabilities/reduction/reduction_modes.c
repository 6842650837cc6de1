/* The lowest fixed-interface modes of a reduction by block shift-and-invert Lanczos on
 * the interior: A = K_ii^-1 M_ii, M-self-adjoint, whose largest eigenvalues nu = 1 /
 * omega^2 are the lowest modes. Blocks of b vectors: one factor solve with b right-hand
 * sides (CHOLMOD's supernodal solve reads the factor once for all of them), one pass
 * over M for the block, and the orthogonalization by dense products, where SLEPc's
 * Krylov-Schur makes one single-vector solve (a pass over the factor) per vector, for
 * twice as many vectors. Full reorthogonalization (classical Gram-Schmidt twice in the M
 * inner product, the second pass where the first cancelled: BL_REORTH_KEEP; Cholesky QR
 * twice within a block), then Rayleigh-Ritz on V' M A V;
 * each Ritz pair's residual ||A x - nu x||_M comes from the block that would follow.
 *
 * The space holds a fixed number of columns (about two nev): full, short of the
 * tolerance, it restarts thick, keeping its best Ritz vectors and the residual block
 * (Krylov-Schur's restart, A Y = Y Theta + Q R Z_last, exact for a Krylov space). Its
 * memory is then ni (2 nev + 7 b) + 2 n b numbers whatever the convergence asks, where a space
 * grown to convergence needed 3.2 nev columns on the brake, twice with M V beside it:
 * at a million interior dofs and 300 modes that was 15 GB, it is now 6, and its first
 * columns live in the caller's array for the modes (n x nev numbers, 2.4 GB there), where
 * the modes end: 3.6 GB of the solver's own. M V is not kept: the Gram-Schmidt products
 * take M W, one more pass over M a block (its rows are few against the dense
 * products'). Short of the tolerance within a budget of blocks the caller takes SLEPc's
 * way. A caller short of memory asks for a smaller space, down to nev and three blocks
 * (fcd__cb_block_space_fit): the same modes after more restarts. */
#include "capabilities.h"
#include "lapack.h"

#include <math.h>
#include <string.h>

/* A block of 16 vectors: the solve's bytes are shared by 16 while the Krylov degree, which
 * sets the convergence of the last wanted modes, stays high. On the brake (27,648
 * interior dofs, 200 modes) blocks of 16 converged at 3.2 times as many vectors as modes,
 * of 64 not within 4.5 times. The rotation of a restart goes by BL_ROWS rows. */
enum { BL_BLOCK = 16, BL_ROWS = 256 };
/* ||A x - nu x||_M / nu for a converged pair: the eigenvector's error over its gap, the
 * eigenvalue's that squared */
#define BL_TOL 1e-8
/* Rutishauser's factor for a second Gram-Schmidt pass: a column the first pass kept
 * above a tenth of its M-norm is orthogonal to V within ten times that pass' rounding,
 * which a second pass would not improve; one shrunk more (the cancellation of a vector
 * nearly in V's span, the converging Ritz vectors' neighbours) has its rounding along V
 * magnified as much, and takes the second pass */
#define BL_REORTH_KEEP 0.1

typedef struct {
  fcd_system *ci;
  fcd__factor *f;
  fcd_index ni, b; /* interior size, block size */
  fcd_index k, cap; /* columns built, the space's size */
  /* the M-orthonormal basis, ni x cap column-major in two parts: columns below c1 in
   * VA (the caller's array for the modes), the others in VB */
  fcd_real *VA, *VB;
  fcd_index c1;
  fcd_real *ML;     /* ni x b: M times V's last block, the next solve's right-hand sides */
  fcd_real *T;      /* cap x cap, column-major: V' M A V, filled column block by block */
  fcd_real *W, *MW, *R, *C, *Csum, *G; /* a block's work */
  fcd_real *xr, *yr; /* n x b, row-major: a block at full length for M's rows (xr's
                      * rows off the interior stay zero from the start: only its own
                      * rows are written), or parts of n x 8 (parts > 0) */
  int parts;          /* chosen once: the layout of xr's zero rows holds for the run */
  fcd_real *S, *ev, *Z, *rows; /* Rayleigh-Ritz (cap x cap, cap, cap x cap), a restart's rows */
  fcd__bl_stats stats;
} bl_ws;

/* Y = M X for a block (b columns, column-major): the rows of M once for the block, read
 * from the system's own storage (one triangle for the host's usual upper M) with the block
 * scattered to full length: the interior's M in the free pattern's full storage took
 * 2 nnz numbers, its pattern and maps 4 nnz more (about 4 GB at a million dofs). Where
 * the cores pay, xr and yr hold parts of 8 columns (fcd__csr_rows_parts), a core each. */
typedef struct {
  bl_ws *w;
  const fcd_real *X;
  fcd_real *Y;
  fcd_index width; /* the columns a part's rows hold: b on one core, 8 in parts */
} mass_part;

static void mass_part_run(void *ctx, int q) {
  const mass_part *m = ctx;
  const fcd_system *ci = m->w->ci;
  fcd_index ni = m->w->ni, wd = m->width, n = ci->n;
  fcd_real *xr = m->w->xr + (size_t)q * (size_t)n * (size_t)wd;
  fcd_real *yr = m->w->yr + (size_t)q * (size_t)n * (size_t)wd;
  const fcd_real *X = m->X + (size_t)q * (size_t)wd * (size_t)ni;
  fcd_real *Y = m->Y + (size_t)q * (size_t)wd * (size_t)ni;
  memset(yr, 0, (size_t)n * (size_t)wd * sizeof *yr);
  for (fcd_index k = 0; k < ni; k++) {
    fcd_real *x = xr + ci->dof_of[k] * wd;
    for (fcd_index j = 0; j < wd; j++) x[j] = X[j * ni + k];
  }
  fcd__csr_gaxpy_rows(&ci->mat[FCD_MASS], wd, xr, yr);
  for (fcd_index k = 0; k < ni; k++) {
    const fcd_real *y = yr + ci->dof_of[k] * wd;
    for (fcd_index j = 0; j < wd; j++) Y[j * ni + k] = y[j];
  }
}

static void block_mass(bl_ws *w, const fcd_real *X, fcd_real *Y) {
  mass_part m = {w, X, Y, w->parts > 0 ? FCD__ROWS_PART : w->b};
  if (w->parts > 0) fcd__par_run(w->parts, mass_part_run, &m);
  else mass_part_run(&m, 0);
}

static fcd_real *vcol(const bl_ws *w, fcd_index j) {
  return j < w->c1 ? w->VA + j * w->ni : w->VB + (j - w->c1) * w->ni;
}

/* C (k x nc, ld k) = V' Y for Y ni x nc, and Y += alpha V C: by V's two parts */
static void v_tn(const bl_ws *w, fcd_index k, fcd_index nc, const fcd_real *Y, fcd_real *C) {
  fcd_index k1 = k < w->c1 ? k : w->c1;
  fcd__la_gemm_ld(1, k1, nc, w->ni, 1.0, w->VA, w->ni, Y, w->ni, 0.0, C, k);
  if (k > k1) fcd__la_gemm_ld(1, k - k1, nc, w->ni, 1.0, w->VB, w->ni, Y, w->ni, 0.0, C + k1, k);
}
static void v_nn(const bl_ws *w, fcd_index k, fcd_index nc, fcd_real alpha, const fcd_real *C,
                 fcd_real *Y) {
  fcd_index k1 = k < w->c1 ? k : w->c1;
  fcd__la_gemm_ld(0, w->ni, nc, k1, alpha, w->VA, w->ni, C, k, 1.0, Y, w->ni);
  if (k > k1) fcd__la_gemm_ld(0, w->ni, nc, k - k1, alpha, w->VB, w->ni, C + k1, k, 1.0, Y, w->ni);
}

/* the M-norms squared of W's columns, from MW = M W */
static void block_norms(const bl_ws *w, fcd_real *nrm) {
  for (fcd_index j = 0; j < w->b; j++) {
    const fcd_real *x = w->W + j * w->ni, *y = w->MW + j * w->ni;
    fcd_real s = 0;
    for (fcd_index i = 0; i < w->ni; i++) s += x[i] * y[i];
    nrm[j] = s;
  }
}

/* W -= V C with C = V' M W (k columns of V; C into Csum, k x b), and a second pass when a
 * column's M-norm fell below BL_REORTH_KEEP of its own in the first (Daniel, Gragg,
 * Kaufman and Stewart's test, Rutishauser's factor), its C added to Csum. Leaves MW = M W
 * for the block's orthonormalization. */
static void reorthogonalize(bl_ws *w) {
  fcd_index b = w->b, k = w->k;
  fcd_real before[BL_BLOCK], after[BL_BLOCK];
  block_mass(w, w->W, w->MW);
  block_norms(w, before);
  v_tn(w, k, b, w->MW, w->Csum);
  v_nn(w, k, b, -1.0, w->Csum, w->W);
  block_mass(w, w->W, w->MW);
  block_norms(w, after);
  int again = 0;
  for (fcd_index j = 0; j < b; j++) /* NaN and a column lost to zero take it too */
    if (!(after[j] >= BL_REORTH_KEEP * BL_REORTH_KEEP * before[j]) || !(after[j] > 0)) again = 1;
  w->stats.blocks++;
  if (!again) return;
  w->stats.second_passes++;
  v_tn(w, k, b, w->MW, w->C);
  v_nn(w, k, b, -1.0, w->C, w->W);
  for (fcd_index e = 0; e < k * b; e++) w->Csum[e] += w->C[e];
  block_mass(w, w->W, w->MW);
}

/* the b columns of X (ni x b) into V's columns j .. j + b - 1 */
static void v_put(bl_ws *w, fcd_index j, const fcd_real *X) {
  for (fcd_index q = 0; q < w->b; q++)
    memcpy(vcol(w, j + q), X + q * w->ni, (size_t)w->ni * sizeof *X);
}

/* W = Q R with Q M-orthonormal (Cholesky QR twice), MW = M W on entry: Q into W, M Q
 * into MW, R (b x b, upper) into w->R; 1 when W has lost rank */
static int block_orthonormalize(bl_ws *w) {
  fcd_index ni = w->ni, b = w->b;
  fcd_real *Rt = w->G + b * b;
  for (fcd_index e = 0; e < b * b; e++) w->R[e] = (e % (b + 1)) == 0 ? 1.0 : 0.0;
  for (int pass = 0; pass < 2; pass++) {
    fcd__la_gemm_tn(b, b, ni, w->W, w->MW, w->G);
    for (fcd_index j = 0; j < b; j++) /* exactly symmetric for dpotrf's upper triangle */
      for (fcd_index i = 0; i < j; i++) w->G[j * b + i] = 0.5 * (w->G[j * b + i] + w->G[i * b + j]);
    if (fcd__la_potrf_upper_cm(b, w->G) != 0) return 1;
    for (fcd_index j = 0; j < b; j++)
      for (fcd_index i = j + 1; i < b; i++) w->G[j * b + i] = 0;
    fcd__la_right_upper_solve_cm(ni, b, w->G, w->W);
    fcd__la_right_upper_solve_cm(ni, b, w->G, w->MW);
    /* R = G R: the two passes' factors */
    memset(Rt, 0, (size_t)(b * b) * sizeof *Rt);
    for (fcd_index j = 0; j < b; j++)
      for (fcd_index l = 0; l <= j; l++)
        for (fcd_index i = 0; i <= l; i++) Rt[j * b + i] += w->G[l * b + i] * w->R[j * b + l];
    memcpy(w->R, Rt, (size_t)(b * b) * sizeof *Rt);
  }
  for (fcd_index i = 0; i < b; i++)
    if (!(fabs(w->R[i * b + i]) > 0)) return 1;
  return 0;
}

/* Q (in W, M Q in MW) appended to V as its last block, R its coefficients in the block
 * column of the columns whose product it completes */
static void bl_append(bl_ws *w) {
  fcd_index ni = w->ni, b = w->b, k = w->k;
  fcd_real *tc = w->T + (k - b) * w->cap;
  for (fcd_index j = 0; j < b; j++)
    for (fcd_index i = 0; i < b; i++) tc[j * w->cap + k + i] = w->R[j * b + i];
  v_put(w, k, w->W);
  memcpy(w->ML, w->MW, (size_t)(ni * b) * sizeof *w->ML);
  w->k += b;
}

/* the next block: W = A V_last, its coefficients on V into T's last block column, the
 * part of it outside V orthonormalized and appended (or, when final, kept in W and MW
 * with its M-Gram matrix in G for the residuals). 0, 1 on rank loss, or a status. */
static fcd_status bl_extend(bl_ws *w, int final, int *lost) {
  fcd_index ni = w->ni, b = w->b, k = w->k;
  *lost = 0;
  FCD_TRY(fcd__factor_solve(w->f, b, w->ML, w->W));
  reorthogonalize(w);
  fcd_real *tc = w->T + (k - b) * w->cap;
  for (fcd_index j = 0; j < b; j++)
    for (fcd_index i = 0; i < k; i++) tc[j * w->cap + i] = w->Csum[j * k + i];
  if (final) { /* MW = M W from the Gram-Schmidt passes, for the restart too */
    fcd__la_gemm_tn(b, b, ni, w->W, w->MW, w->G);
    return FCD_OK;
  }
  if (block_orthonormalize(w)) {
    *lost = 1;
    return FCD_OK;
  }
  bl_append(w);
  return FCD_OK;
}

/* Rayleigh-Ritz on the k columns: the p largest nu of (T + T') / 2 into ev (descending)
 * and their vectors Z (k x p); 1 when each of the nev first's residual is within BL_TOL,
 * -1 when LAPACK fails */
static int bl_ritz(bl_ws *w, fcd_index nev, fcd_index p) {
  fcd_index k = w->k, b = w->b;
  fcd_real *S = w->S, *Z = w->Z, *ev = w->ev;
  for (fcd_index j = 0; j < k; j++)
    for (fcd_index i = 0; i <= j; i++)
      S[j * k + i] = 0.5 * (w->T[j * w->cap + i] + w->T[i * w->cap + j]);
  /* ascending: the largest last; reversed into descending order in place */
  if (fcd__la_syev_top_cm(k, p, S, ev, Z) != 0) return -1;
  for (fcd_index q = 0; q < p / 2; q++) {
    fcd_real t = ev[q];
    ev[q] = ev[p - 1 - q];
    ev[p - 1 - q] = t;
    for (fcd_index i = 0; i < k; i++) {
      t = Z[q * k + i];
      Z[q * k + i] = Z[(p - 1 - q) * k + i];
      Z[(p - 1 - q) * k + i] = t;
    }
  }
  int ok = 1;
  for (fcd_index q = 0; q < nev; q++) {
    /* ||W_res z_last||_M^2 = z_last' G z_last */
    const fcd_real *zl = Z + q * k + (k - b);
    fcd_real r2 = 0;
    for (fcd_index j = 0; j < b; j++)
      for (fcd_index i = 0; i < b; i++) r2 += zl[i] * w->G[j * b + i] * zl[j];
    if (!(ev[q] > 0) || !(sqrt(fmax(r2, 0)) <= BL_TOL * ev[q])) ok = 0;
  }
  return ok;
}

/* V's first p columns = V Z (the Ritz vectors), in place by blocks of rows */
static void bl_rotate(bl_ws *w, fcd_index p) {
  fcd_index ni = w->ni, k = w->k, k1 = k < w->c1 ? k : w->c1;
  for (fcd_index r0 = 0; r0 < ni; r0 += BL_ROWS) {
    fcd_index nr = ni - r0 < BL_ROWS ? ni - r0 : BL_ROWS;
    fcd__la_gemm_ld(0, nr, p, k1, 1.0, w->VA + r0, ni, w->Z, k, 0.0, w->rows, nr);
    if (k > k1)
      fcd__la_gemm_ld(0, nr, p, k - k1, 1.0, w->VB + r0, ni, w->Z + k1, k, 1.0, w->rows, nr);
    for (fcd_index q = 0; q < p; q++)
      memcpy(vcol(w, q) + r0, w->rows + q * nr, (size_t)nr * sizeof *w->rows);
  }
}

/* The thick restart on the p Ritz pairs of bl_ritz: V = [Y Q] with Y = V Z and W = Q R
 * the residual block, T = [Theta, .; R Z_last, .] (the Y rows of Q's column block come
 * from its own product). 1 when the residual has lost rank. */
static int bl_restart(bl_ws *w, fcd_index p) {
  fcd_index k = w->k, b = w->b, cap = w->cap;
  if (block_orthonormalize(w)) return 1;
  bl_rotate(w, p);
  memset(w->T, 0, (size_t)(cap * cap) * sizeof *w->T);
  for (fcd_index q = 0; q < p; q++) {
    const fcd_real *zl = w->Z + q * k + (k - b);
    w->T[q * cap + q] = w->ev[q];
    for (fcd_index i = 0; i < b; i++) {
      fcd_real s = 0;
      for (fcd_index j = i; j < b; j++) s += w->R[j * b + i] * zl[j];
      w->T[q * cap + p + i] = s;
    }
  }
  v_put(w, p, w->W);
  memcpy(w->ML, w->MW, (size_t)(w->ni * b) * sizeof *w->ML);
  w->k = p + b;
  return 0;
}

static void bl_free(bl_ws *w) {
  fcd_real *a[] = {w->VB, w->ML, w->T, w->W, w->MW, w->R, w->C, w->Csum,
                   w->G, w->xr, w->yr, w->S, w->ev, w->Z, w->rows};
  for (size_t i = 0; i < sizeof a / sizeof *a; i++) fcd__free(a[i]);
}

/* a deterministic start block (a linear congruential sequence), M-orthonormalized */
static int bl_start(bl_ws *w) {
  uint64_t s = 0x9e3779b97f4a7c15u;
  for (fcd_index e = 0; e < w->ni * w->b; e++) {
    s = s * 6364136223846793005u + 1442695040888963407u;
    w->W[e] = (fcd_real)(s >> 11) / 9007199254740992.0 - 0.5;
  }
  block_mass(w, w->W, w->MW);
  if (block_orthonormalize(w)) return 1;
  v_put(w, 0, w->W);
  memcpy(w->ML, w->MW, (size_t)(w->ni * w->b) * sizeof *w->ML);
  w->k = w->b;
  return 0;
}

/* the block size: 16, a fifth of fewer modes, at least 4 */
static fcd_index bl_block(fcd_index nev) {
  return nev >= 5 * BL_BLOCK ? BL_BLOCK : (nev / 5 < 4 ? 4 : nev / 5);
}

/* the space's columns: twice nev and four blocks, in whole blocks, or as asked (at least
 * nev and three blocks: room for the kept pairs, the residual and a block to grow by) */
static fcd_index bl_space(fcd_index nev, fcd_index space) {
  fcd_index b = bl_block(nev);
  if (space <= 0) space = 2 * nev + 4 * b;
  if (space < nev + 3 * b) space = nev + 3 * b;
  return (space + b - 1) / b * b;
}

/* the space's columns in the caller's n x nev array */
static fcd_index bl_in_caller(fcd_index n, fcd_index ni, fcd_index nev, fcd_index cap) {
  fcd_index c1 = (fcd_index)((double)n * (double)nev / (double)ni);
  while (c1 > 0 && c1 * ni > n * nev) c1--; /* the double's rounding */
  return c1 < cap ? c1 : cap;
}

double fcd__cb_block_modes_numbers(fcd_index n, fcd_index ni, fcd_index nev, fcd_index space) {
  fcd_index bi = bl_block(nev), ci = bl_space(nev, space);
  double b = (double)bi, cap = (double)ci, c1 = (double)bl_in_caller(n, ni, nev, ci);
  return (double)ni * (cap - c1 + 3 * b) + 2 * (double)n * b + 3 * cap * cap + BL_ROWS * cap +
         2 * cap * b;
}

fcd_index fcd__cb_block_space_fit(fcd_index n, fcd_index ni, fcd_index nev, double avail) {
  fcd_index b = bl_block(nev), least = bl_space(nev, 1), cap = bl_space(nev, 0);
  if (fcd__cb_block_modes_numbers(n, ni, nev, cap) <= avail) return 0;
  for (cap -= b; cap > least; cap -= b)
    if (fcd__cb_block_modes_numbers(n, ni, nev, cap) <= avail) return cap;
  return least;
}

static fcd_status bl_setup(bl_ws *w, fcd_system *ci, fcd__factor *f, fcd_index nev,
                           fcd_index space, fcd_real *Phi) {
  memset(w, 0, sizeof *w);
  w->ci = ci;
  w->f = f;
  w->ni = ci->nfree;
  w->b = bl_block(nev);
  w->cap = bl_space(nev, space);
  w->parts = fcd__csr_rows_parts(&ci->mat[FCD_MASS], w->b);
  size_t ni = (size_t)w->ni, b = (size_t)w->b, cap = (size_t)w->cap;
  w->VA = Phi;
  w->c1 = bl_in_caller(ci->n, w->ni, nev, w->cap);
  w->VB = fcd__malloc_array(ni * (cap - (size_t)w->c1) + 1, sizeof *w->VB);
  w->ML = fcd__malloc_array(ni * b, sizeof *w->ML);
  w->T = fcd__calloc(cap * cap, sizeof *w->T);
  w->W = fcd__malloc_array(ni * b, sizeof *w->W);
  w->MW = fcd__malloc_array(ni * b, sizeof *w->MW);
  w->xr = fcd__calloc((size_t)ci->n * b, sizeof *w->xr);
  w->yr = fcd__malloc_array((size_t)ci->n * b, sizeof *w->yr);
  w->R = fcd__malloc_array(b * b, sizeof *w->R);
  w->G = fcd__malloc_array(2 * b * b, sizeof *w->G);
  w->C = fcd__malloc_array(cap * b, sizeof *w->C);
  w->Csum = fcd__malloc_array(cap * b, sizeof *w->Csum);
  w->S = fcd__malloc_array(cap * cap, sizeof *w->S);
  w->ev = fcd__malloc_array(cap, sizeof *w->ev);
  w->Z = fcd__malloc_array(cap * cap, sizeof *w->Z);
  w->rows = fcd__malloc_array((size_t)BL_ROWS * cap, sizeof *w->rows);
  if (!w->VB || !w->ML || !w->T || !w->W || !w->MW || !w->xr || !w->yr || !w->R ||
      !w->G || !w->C || !w->Csum || !w->S || !w->ev || !w->Z || !w->rows)
    return FCD_E_NOMEM;
  return FCD_OK;
}

fcd_status fcd__cb_block_modes(fcd_system *ci, fcd__factor *f, fcd_index nev, fcd_index space,
                               fcd_real *omega2, fcd_real *Phi, int *done,
                               fcd__bl_stats *stats) {
  *done = 0;
  if (stats) memset(stats, 0, sizeof *stats);
  fcd_index ni = ci->nfree, n = ci->n, b = bl_block(nev), cap = bl_space(nev, space);
  /* an interior this small against the space: SLEPc's way (or the dense one) */
  if (nev <= 0 || cap + b > ni / 2) return FCD_OK;
  bl_ws w;
  fcd_status st = bl_setup(&w, ci, f, nev, space, Phi);
  if (st == FCD_OK && bl_start(&w)) st = FCD_E_NOMEM;
  /* as many blocks as a space grown to sixteen nev would have made: the tests' clustered
   * 2D block converges within six to eight nev, the brake's 200 to 400 modes within four */
  fcd_index budget = (16 * nev + 4 * b) / b + 1, made = 1;
  int conv = 0, lost = 0;
  while (st == FCD_OK && !conv && !lost) {
    while (st == FCD_OK && !lost && w.k + b < cap) {
      st = bl_extend(&w, 0, &lost);
      made++;
    }
    if (st != FCD_OK || lost) break;
    st = bl_extend(&w, 1, &lost);
    made++;
    if (st != FCD_OK) break;
    /* keep the nev wanted pairs and half of the others: the Krylov-Schur restart's
     * default */
    fcd_index p = nev + (w.k - nev - b) / 2;
    conv = bl_ritz(&w, nev, p);
    if (conv < 0) {
      conv = 0;
      break;
    }
    if (conv || made >= budget) break;
    if (bl_restart(&w, p)) break;
  }
  if (st == FCD_OK && conv) {
    /* the Ritz vectors V Z into V's first nev columns (Phi's memory: c1 >= nev, n >=
     * ni), spread to full length from the last (its place beyond every column still to
     * spread; each through W), ascending omega^2 */
    bl_rotate(&w, nev);
    for (fcd_index q = nev - 1; q >= 0; q--) {
      memcpy(w.W, Phi + q * ni, (size_t)ni * sizeof *Phi);
      memset(Phi + q * n, 0, (size_t)n * sizeof *Phi);
      fcd__free_to_full(ci, w.W, Phi + q * n);
      omega2[q] = 1.0 / w.ev[q];
    }
    *done = 1;
  }
  if (stats) *stats = w.stats;
  bl_free(&w);
  return st == FCD_E_NOMEM ? FCD_OK : st; /* short of memory: SLEPc's way */
}
