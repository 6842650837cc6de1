/* The lowest fixed-interface modes of a reduction by block shift-and-invert Lanczos on
 * the interior: A = K_ii^-1 M_ii, M-self-adjoint, whose largest eigenvalues nu = 1 /
 * omega^2 are the lowest modes. Blocks of b vectors: one factor solve with b right-hand
 * sides (CHOLMOD's supernodal solve reads the factor once for all of them), one pass
 * over M for the block, and the orthogonalization by dense products, where SLEPc's
 * Krylov-Schur makes one single-vector solve (a pass over the factor) per vector, for
 * twice as many vectors. Full reorthogonalization (classical Gram-Schmidt twice in the M
 * inner product, Cholesky QR twice within a block), then Rayleigh-Ritz on V' M A V;
 * each Ritz pair's residual ||A x - nu x||_M comes from the block that would follow. The
 * space grows until the nev lowest pairs reach the tolerance or a cap; short of it the
 * caller takes SLEPc's way. */
#include "capabilities.h"
#include "lapack.h"

#include <math.h>
#include <string.h>

/* A block of 16 vectors: the solve's bytes are shared by 16 while the Krylov degree, which
 * sets the convergence of the last wanted modes, stays high. On the brake (27,648
 * interior dofs, 200 modes) blocks of 16 converged at 3.2 times as many vectors as modes,
 * of 64 not within 4.5 times. */
enum { BL_BLOCK = 16 };
/* ||A x - nu x||_M / nu for a converged pair: the eigenvector's error over its gap, the
 * eigenvalue's that squared */
#define BL_TOL 1e-8

typedef struct {
  fcd_system *ci;
  fcd__factor *f;
  const fcd__free_pattern *fp;
  fcd_real *mval;  /* M on ci's free dofs */
  fcd_index ni, b; /* interior size, block size */
  fcd_index k, cap; /* columns built, allocated */
  fcd_real *V, *MV; /* ni x cap, column-major: the M-orthonormal basis and M V */
  fcd_real *T;      /* cap x cap, column-major: V' M A V, filled column block by block */
  fcd_real *W, *MW, *R, *C, *G, *xr, *yr; /* a block's work */
} bl_ws;

/* Y = M X for a block (b columns, column-major): the rows of M once for the block, the
 * block read row by row through xr/yr (row-major copies) */
static void block_mass(bl_ws *w, const fcd_real *X, fcd_real *Y) {
  fcd_index ni = w->ni, b = w->b;
  const fcd__free_pattern *fp = w->fp;
  for (fcd_index j = 0; j < b; j++)
    for (fcd_index i = 0; i < ni; i++) w->xr[i * b + j] = X[j * ni + i];
  for (fcd_index i = 0; i < ni; i++) {
    fcd_real *y = w->yr + i * b;
    memset(y, 0, (size_t)b * sizeof *y);
    for (fcd_index p = fp->rowptr[i]; p < fp->rowptr[i + 1]; p++) {
      const fcd_real a = w->mval[p], *x = w->xr + fp->col[p] * b;
      for (fcd_index j = 0; j < b; j++) y[j] += a * x[j];
    }
  }
  for (fcd_index j = 0; j < b; j++)
    for (fcd_index i = 0; i < ni; i++) Y[j * ni + i] = w->yr[i * b + j];
}

/* W -= V C with C = V' M W, twice (its sum into Csum, k x b); k columns of V */
static void reorthogonalize(bl_ws *w, fcd_real *Csum) {
  fcd_index ni = w->ni, b = w->b, k = w->k;
  memset(Csum, 0, (size_t)(k * b) * sizeof *Csum);
  if (k == 0) return;
  for (int pass = 0; pass < 2; pass++) {
    fcd__la_gemm_tn(k, b, ni, w->MV, w->W, w->C);
    fcd__la_gemm_nn(ni, b, k, -1.0, w->V, w->C, 1.0, w->W);
    for (fcd_index e = 0; e < k * b; e++) Csum[e] += w->C[e];
  }
}

/* W = Q R with Q M-orthonormal (Cholesky QR twice): Q into W, M Q into MW, R (b x b,
 * upper) into w->R; 1 when W has lost rank */
static int block_orthonormalize(bl_ws *w) {
  fcd_index ni = w->ni, b = w->b;
  fcd_real *Rt = w->G + b * b;
  for (fcd_index e = 0; e < b * b; e++) w->R[e] = (e % (b + 1)) == 0 ? 1.0 : 0.0;
  block_mass(w, w->W, w->MW);
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

/* room for `want` columns of V and MV and a (want x want) T; 1 when out of memory */
static int bl_grow(bl_ws *w, fcd_index want) {
  if (want <= w->cap) return 0;
  size_t ni = (size_t)w->ni;
  fcd_real *V = fcd__grow_array(w->V, ni * (size_t)w->cap, ni * (size_t)want, sizeof *V);
  if (V) w->V = V;
  fcd_real *MV = V ? fcd__grow_array(w->MV, ni * (size_t)w->cap, ni * (size_t)want, sizeof *MV)
                   : NULL;
  if (MV) w->MV = MV;
  fcd_real *T = MV ? fcd__calloc((size_t)want * (size_t)want, sizeof *T) : NULL;
  if (!T) return 1;
  for (fcd_index j = 0; j < w->k; j++)
    memcpy(T + j * want, w->T + j * w->cap, (size_t)w->k * sizeof *T);
  fcd__free(w->T);
  w->T = T;
  w->cap = want;
  return 0;
}

/* the next block: W = A V_last, its coefficients on V into T's last block column, the
 * part of it outside V orthonormalized and appended (or, when final, kept in W and MW
 * with its M-Gram matrix in G for the residuals). 0, 1 on rank loss, or a status. */
static fcd_status bl_extend(bl_ws *w, int final, fcd_real *Csum, int *lost) {
  fcd_index ni = w->ni, b = w->b, k = w->k;
  *lost = 0;
  FCD_TRY(fcd__factor_solve(w->f, b, w->MV + (k - b) * ni, w->W));
  reorthogonalize(w, Csum);
  fcd_real *tc = w->T + (k - b) * w->cap;
  for (fcd_index j = 0; j < b; j++)
    for (fcd_index i = 0; i < k; i++) tc[j * w->cap + i] = Csum[j * k + i];
  if (final) {
    block_mass(w, w->W, w->MW);
    fcd__la_gemm_tn(b, b, ni, w->W, w->MW, w->G);
    return FCD_OK;
  }
  if (block_orthonormalize(w)) {
    *lost = 1;
    return FCD_OK;
  }
  for (fcd_index j = 0; j < b; j++)
    for (fcd_index i = 0; i < b; i++) tc[j * w->cap + k + i] = w->R[j * b + i];
  memcpy(w->V + k * ni, w->W, (size_t)(ni * b) * sizeof *w->V);
  memcpy(w->MV + k * ni, w->MW, (size_t)(ni * b) * sizeof *w->MV);
  w->k += b;
  return FCD_OK;
}

/* Rayleigh-Ritz on the k columns: the nev largest nu of (T + T') / 2 into nu (descending)
 * and their vectors Z (k x nev); 1 when every one's residual is within BL_TOL */
static int bl_ritz(bl_ws *w, fcd_index nev, fcd_real *S, fcd_real *ev, fcd_real *nu,
                   fcd_real *Z) {
  fcd_index k = w->k, b = w->b;
  for (fcd_index j = 0; j < k; j++)
    for (fcd_index i = 0; i <= j; i++)
      S[j * k + i] = 0.5 * (w->T[j * w->cap + i] + w->T[i * w->cap + j]);
  /* ascending: the largest last; Z's columns reversed into descending order in place */
  if (fcd__la_syev_top_cm(k, nev, S, ev, Z) != 0) return 0;
  for (fcd_index q = 0; q < nev / 2; q++)
    for (fcd_index i = 0; i < k; i++) {
      fcd_real t = Z[q * k + i];
      Z[q * k + i] = Z[(nev - 1 - q) * k + i];
      Z[(nev - 1 - q) * k + i] = t;
    }
  int ok = 1;
  for (fcd_index q = 0; q < nev; q++) {
    nu[q] = ev[nev - 1 - q];
    /* ||W_res z_last||_M^2 = z_last' G z_last */
    const fcd_real *zl = Z + q * k + (k - b);
    fcd_real r2 = 0;
    for (fcd_index j = 0; j < b; j++)
      for (fcd_index i = 0; i < b; i++) r2 += zl[i] * w->G[j * b + i] * zl[j];
    if (!(nu[q] > 0) || !(sqrt(fmax(r2, 0)) <= BL_TOL * nu[q])) ok = 0;
  }
  return ok;
}

static void bl_free(bl_ws *w) {
  fcd__free(w->mval);
  fcd__free(w->V);
  fcd__free(w->MV);
  fcd__free(w->T);
  fcd__free(w->W);
  fcd__free(w->MW);
  fcd__free(w->R);
  fcd__free(w->C);
  fcd__free(w->G);
  fcd__free(w->xr);
  fcd__free(w->yr);
}

/* a deterministic start block (a linear congruential sequence), M-orthonormalized */
static int bl_start(bl_ws *w) {
  uint64_t s = 0x9e3779b97f4a7c15u;
  for (fcd_index e = 0; e < w->ni * w->b; e++) {
    s = s * 6364136223846793005u + 1442695040888963407u;
    w->W[e] = (fcd_real)(s >> 11) / 9007199254740992.0 - 0.5;
  }
  if (block_orthonormalize(w)) return 1;
  memcpy(w->V, w->W, (size_t)(w->ni * w->b) * sizeof *w->V);
  memcpy(w->MV, w->MW, (size_t)(w->ni * w->b) * sizeof *w->MV);
  w->k = w->b;
  return 0;
}

static fcd_status bl_setup(bl_ws *w, fcd_system *ci, fcd__factor *f, fcd_index nev) {
  memset(w, 0, sizeof *w);
  w->ci = ci;
  w->f = f;
  w->ni = ci->nfree;
  /* fewer modes: a fifth of them, at least 4 */
  w->b = nev >= 5 * BL_BLOCK ? BL_BLOCK : (nev / 5 < 4 ? 4 : nev / 5);
  FCD_TRY(fcd__system_free_pattern(ci, &w->fp));
  fcd_index ni = w->ni, b = w->b;
  w->mval = fcd__malloc_array((size_t)w->fp->nnz + 1, sizeof *w->mval);
  w->W = fcd__malloc_array((size_t)(ni * b), sizeof *w->W);
  w->MW = fcd__malloc_array((size_t)(ni * b), sizeof *w->MW);
  w->xr = fcd__malloc_array((size_t)(ni * b), sizeof *w->xr);
  w->yr = fcd__malloc_array((size_t)(ni * b), sizeof *w->yr);
  w->R = fcd__malloc_array((size_t)(b * b), sizeof *w->R);
  w->G = fcd__malloc_array(2 * (size_t)(b * b), sizeof *w->G);
  if (!w->mval || !w->W || !w->MW || !w->xr || !w->yr || !w->R || !w->G) return FCD_E_NOMEM;
  return fcd__system_combination(ci, 1.0, 0.0, 0.0, w->mval);
}

fcd_status fcd__cb_block_modes(fcd_system *ci, fcd__factor *f, fcd_index nev,
                               fcd_real *omega2, fcd_real *X, int *done) {
  *done = 0;
  fcd_index ni = ci->nfree;
  bl_ws w;
  fcd_status st = bl_setup(&w, ci, f, nev);
  fcd_index b = w.b;
  /* two and a half nev and two blocks to start, a quarter more each time short of the
   * tolerance, up to eight nev (SLEPc's way beyond): the brake's 200 and 400 modes
   * converge at 3.2 nev, the tests' clustered 2D block at 6 to 7.6 */
  fcd_index want = ((5 * nev / 2 + 2 * b) + b - 1) / b * b, cap = 8 * nev + 4 * b;
  if (st == FCD_OK && (cap + b > ni / 2 || bl_grow(&w, want))) st = FCD_E_NOMEM;
  if (st == FCD_OK && bl_start(&w)) st = FCD_E_NOMEM;
  fcd_real *Csum = NULL, *S = NULL, *ev = NULL, *nu = NULL, *Z = NULL;
  int conv = 0, lost = 0;
  while (st == FCD_OK && !conv && !lost) {
    fcd__free(Csum);
    Csum = fcd__malloc_array((size_t)(want * b), sizeof *Csum);
    fcd__free(w.C);
    w.C = fcd__malloc_array((size_t)(want * b), sizeof *w.C);
    if (!Csum || !w.C) {
      st = FCD_E_NOMEM;
      break;
    }
    while (st == FCD_OK && !lost && w.k + b < want) st = bl_extend(&w, 0, Csum, &lost);
    if (st != FCD_OK || lost) break;
    st = bl_extend(&w, 1, Csum, &lost);
    fcd_index k = w.k;
    fcd__free(S);
    fcd__free(ev);
    fcd__free(Z);
    S = fcd__malloc_array((size_t)(k * k), sizeof *S);
    ev = fcd__malloc_array((size_t)nev, sizeof *ev);
    Z = fcd__malloc_array((size_t)(k * nev), sizeof *Z);
    if (!nu) nu = fcd__malloc_array((size_t)nev, sizeof *nu);
    if (st == FCD_OK && (!S || !ev || !Z || !nu)) st = FCD_E_NOMEM;
    if (st == FCD_OK) conv = bl_ritz(&w, nev, S, ev, nu, Z);
    if (st != FCD_OK || conv) break;
    /* not there: the residual block is the next one; grow by a quarter */
    if (block_orthonormalize(&w)) break;
    want = (want + want / 4 + b - 1) / b * b;
    if (want > cap || bl_grow(&w, want)) break;
    fcd_real *tc = w.T + (w.k - b) * w.cap;
    for (fcd_index j = 0; j < b; j++)
      for (fcd_index i = 0; i < b; i++) tc[j * w.cap + w.k + i] = w.R[j * b + i];
    memcpy(w.V + w.k * ni, w.W, (size_t)(ni * b) * sizeof *w.V);
    memcpy(w.MV + w.k * ni, w.MW, (size_t)(ni * b) * sizeof *w.MV);
    w.k += b;
  }
  if (st == FCD_OK && conv) {
    /* the Ritz vectors X = V Z on the interior (ni x nev), ascending omega^2 */
    fcd__la_gemm_nn(ni, nev, w.k, 1.0, w.V, Z, 0.0, X);
    for (fcd_index q = 0; q < nev; q++) omega2[q] = 1.0 / nu[q];
    *done = 1;
  }

  fcd__free(Csum);
  fcd__free(S);
  fcd__free(ev);
  fcd__free(nu);
  fcd__free(Z);
  bl_free(&w);
  return st == FCD_E_NOMEM ? FCD_OK : st; /* short of memory: SLEPc's way */
}
