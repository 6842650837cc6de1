/* A reduced model's band, and its dynamics damped above the cut.
 *
 * A Craig-Bampton model is the full model's below its highest kept fixed-interface mode
 * f_m, with the usual margin: its band is f_m / 1.5. Above f_m its modes are the
 * interface's own, the kept dofs moving against the constraint modes' static shapes: a
 * coarse picture in which the contact dofs carry far more of each mode than they do in
 * the full structure. With friction these contact-heavy modes couple into flutter the
 * full model does not have (a steel block's 50-mode reduction: unstable pairs up to 1.9
 * MHz growing at up to 4.1e5 1/s, where the full model's largest growth anywhere is
 * 4.8e4 1/s, at 128 kHz), and a transient grows from round-off along them.
 *
 * The remedy (docs/reduction.md has the options measured): the part of the model that is
 * neither below the cut in the reduced pencil (contacts free: open contacts, flight) nor
 * below the cut in the pencil with every contact's normal held (u_N = 0: the trial
 * space of sliding and sticking contacts) is damped. With L the span of both sets of
 * modes below the cut, W its M-orthogonal complement and (Omega_k^2, q_k) the modes of
 * the pencil restricted to W (M-orthonormal),
 *   C_band = sum_k 2 xi Omega_k (M q_k)(M q_k)'.
 * C_band x = 0 for every x in L: the modes below the cut of both pencils keep their
 * frequencies, shapes and damping exactly, and the in-band eigenvalues of the friction-
 * linearized pencil move by less than 1e-4 of their modulus (measured), while xi = 0.1
 * on W is enough to keep every contact-heavy mode above the band from outgrowing the
 * full model. Mass and stiffness are untouched: statics, the natural modes and every
 * eigen-analysis of the undamped model are the Galerkin model's. Measured and set aside:
 * the same cut made mass-less in either pencil alone (contact-heavy modes just below the
 * cut still grew at 1.75e5 1/s in one; the free modes moved by 2 to 7 % in the other)
 * or in both (growth 1.3e6 1/s), and damping the reduced pencil's own modes above the
 * band (the in-band eigenvalues moved by 1.7e-3 of their modulus). */
#include "capabilities.h"

#include "lapack.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* Every contact's normal row on the free reduced dofs: A (nf x nf, row-major) gets them
 * as its first nc columns, the layout fcd__la_qr_full_q takes. fof: reduced dof -> free
 * position. */
static void normal_rows(const fcd_contact_set *cs, const fcd__cb *cb, const fcd_index *fof,
                        fcd_index nf, fcd_real *A) {
  int d = cs->dim;
  for (fcd_index c = 0; c < cs->n; c++) {
    const fcd__contact *k = &cs->c[c];
    if (k->rows) {
      for (fcd_index q = cs->rptr[k->row0]; q < cs->rptr[k->row0 + 1]; q++) {
        fcd_index p = kept_place(cb, cs->rdof[q]);
        if (p >= 0 && fof[p] >= 0) A[fof[p] * nf + c] += cs->rw[q];
      }
      continue;
    }
    for (int side = 0; side < (k->pair ? 2 : 1); side++)
      for (int a = 0; a < d; a++) {
        fcd_index p = kept_place(cb, (side ? k->dofs_b : k->dofs_a)[a]);
        if (p >= 0 && fof[p] >= 0) A[fof[p] * nf + c] += (side ? -1 : 1) * k->frame[0][a];
      }
  }
}

/* the free block of the column-major nr x nr A into the column-major nf x nf D */
static void free_block(const fcd__cb *cb, const fcd_index *fpos, fcd_index nf,
                       const fcd_real *A, fcd_real *D) {
  for (fcd_index j = 0; j < nf; j++)
    for (fcd_index i = 0; i < nf; i++) D[j * nf + i] = A[fpos[j] * cb->nr + fpos[i]];
}

/* the work of one band: nf x nf arrays but for the small ones */
typedef struct {
  fcd_index nf;
  fcd_index *fpos, *fof;
  fcd_real *KF, *MF, *Q, *B, *U, *X, *Y, *w, *tau;
} band_work;

static void band_work_free(band_work *b) {
  fcd__free(b->fpos);
  fcd__free(b->fof);
  fcd__free(b->KF);
  fcd__free(b->MF);
  fcd__free(b->Q);
  fcd__free(b->B);
  fcd__free(b->U);
  fcd__free(b->X);
  fcd__free(b->Y);
  fcd__free(b->w);
  fcd__free(b->tau);
}

static int band_work_alloc(band_work *b, fcd_index nr) {
  size_t ff = (size_t)b->nf * (size_t)b->nf + 1, f = (size_t)b->nf + 1;
  b->KF = fcd__malloc_array(ff, sizeof *b->KF);
  b->MF = fcd__malloc_array(ff, sizeof *b->MF);
  b->Q = fcd__malloc_array(ff, sizeof *b->Q);
  b->B = fcd__malloc_array(ff, sizeof *b->B);
  b->U = fcd__malloc_array(2 * ff, sizeof *b->U);
  b->X = fcd__malloc_array(ff, sizeof *b->X);
  b->Y = fcd__malloc_array(ff, sizeof *b->Y);
  b->w = fcd__malloc_array(2 * f, sizeof *b->w);
  b->tau = fcd__malloc_array(f + (size_t)nr, sizeof *b->tau);
  return b->KF && b->MF && b->Q && b->B && b->U && b->X && b->Y && b->w && b->tau;
}

/* Z: an orthonormal basis (nf x nz, column-major, into Z) of the subspace orthogonal to
 * the nc columns of A0 (nf x nc, row-major with leading dimension nf, in Q: overwritten),
 * by the full Q of a QR factorization. 0, or a LAPACK failure. */
static int complement(fcd_index nf, fcd_index nc, fcd_real *Q, fcd_real *tau, fcd_real *Z) {
  int info = nc > 0 ? fcd__la_qr_full_q(nf, nc, Q, tau) : 0;
  if (info != 0) return info;
  fcd_index nz = nf - nc;
  for (fcd_index j = 0; j < nz; j++)
    for (fcd_index i = 0; i < nf; i++)
      Z[j * nf + i] = nc > 0 ? Q[i * nf + nc + j] : (fcd_real)(i == j);
  return 0;
}

/* The modes of the pencil (KF, MF) restricted to the span of Z (nf x nz): their omega^2
 * ascending into w, their vectors Z Y (nf x nz, M-orthonormal) into V. B, X: nf x nf work
 * (X receives Z' K Z, then Y). 0, or a LAPACK failure (> nz: Z' M Z not definite). */
static int restricted_modes(const band_work *b, fcd_index nz, const fcd_real *Z, fcd_real *X,
                            fcd_real *Bz, fcd_real *w, fcd_real *V) {
  fcd_index nf = b->nf;
  int info = fcd__la_gemm_nn(nf, nz, nf, 1.0, b->KF, Z, 0.0, V);
  if (info == 0) info = fcd__la_gemm_tn(nz, nz, nf, Z, V, X);
  if (info == 0) info = fcd__la_gemm_nn(nf, nz, nf, 1.0, b->MF, Z, 0.0, V);
  if (info == 0) info = fcd__la_gemm_tn(nz, nz, nf, Z, V, Bz);
  if (info == 0) info = fcd__la_sygv_cm(nz, X, Bz, w);
  if (info == 0) info = fcd__la_gemm_nn(nf, nz, nz, 1.0, Z, X, 0.0, V);
  return info;
}

/* the band and the cut from the modes kept: 0 when the band is 0 or infinite (nothing
 * to do), 1 when it is finite, 2 when there is also something to damp */
static int band_of(fcd__cb *cb, fcd_real cut, fcd_real xi) {
  fcd_index mfi = cb->m - cb->ncorr - cb->ndyn;
  cb->band_hz = cb->cut_hz = INFINITY;
  cb->ndamp = 0;
  /* every interior mode kept: the model is the full one in other coordinates */
  if (mfi >= cb->ni) return 0;
  /* no mode (Guyan): no frequency at which the model is the full one's */
  if (mfi == 0) {
    cb->band_hz = 0;
    return 0;
  }
  fcd_real fm = sqrt(fmax(cb->omega2[mfi - 1], 0)) / (2 * 3.14159265358979323846);
  cb->band_hz = fm / 1.5;
  if (!(cut > 0) || !(xi > 0)) return 1;
  cb->cut_hz = cut * fm;
  return 2;
}

/* U's first columns: the modes below the cut (omega_c^2) of the held pencil (normals of
 * cs held) and of the free one, as many as *nu */
static int low_modes(const fcd_contact_set *cs, const fcd__cb *cb, band_work *b,
                     fcd_real wc2, fcd_index *nu) {
  fcd_index nf = b->nf, nc = cs ? cs->n : 0;
  *nu = 0;
  if (nc > 0 && nc < nf) { /* the held pencil's (without contacts the free one says all) */
    memset(b->Q, 0, (size_t)nf * (size_t)nf * sizeof *b->Q);
    normal_rows(cs, cb, b->fof, nf, b->Q);
    int info = complement(nf, nc, b->Q, b->tau, b->Y);
    if (info == 0) info = restricted_modes(b, nf - nc, b->Y, b->X, b->B, b->w, b->Q);
    if (info != 0) return info;
    while (*nu < nf - nc && b->w[*nu] <= wc2) (*nu)++;
    memcpy(b->U, b->Q, (size_t)*nu * (size_t)nf * sizeof *b->U);
  }
  fcd_index nl = 0; /* the free pencil's, kept in cb */
  while (nl < nf && cb->phiw2[nl] <= wc2) nl++;
  memcpy(b->U + *nu * nf, cb->Phi, (size_t)nl * (size_t)nf * sizeof *b->U);
  *nu += nl;
  return 0;
}

/* cb's free reduced dofs and the reduced pencil's modes on them (contacts free) */
static int free_modes(fcd__cb *cb, band_work *b) {
  fcd_index nf = b->nf;
  cb->nfree = nf;
  cb->fpos = fcd__malloc_array((size_t)nf + 1, sizeof *cb->fpos);
  cb->Phi = fcd__malloc_array((size_t)nf * (size_t)nf + 1, sizeof *cb->Phi);
  cb->phiw2 = fcd__malloc_array((size_t)nf + 1, sizeof *cb->phiw2);
  if (!cb->fpos || !cb->Phi || !cb->phiw2) return FCD__LA_NOMEM;
  memcpy(cb->fpos, b->fpos, (size_t)nf * sizeof *cb->fpos);
  memcpy(cb->Phi, b->KF, (size_t)nf * (size_t)nf * sizeof *cb->Phi);
  memcpy(b->B, b->MF, (size_t)nf * (size_t)nf * sizeof *b->B);
  return fcd__la_sygv_cm(nf, cb->Phi, b->B, cb->phiw2);
}

/* An orthonormal basis of the range of X (nf x nu, column-major): into Q's first
 * columns (row-major, leading dimension nf, complement's layout); returns its rank, or
 * -1 with *info (LAPACK's, or FCD__LA_NOMEM). Where the two pencils' low modes share
 * directions (a mode whose contacts' normals do not move is a mode of both), MU's
 * columns are dependent and the complement of its range is larger than nf - nu: an
 * unpivoted QR of MU would leave out nu - rank directions of it chosen by round-off
 * (the same model reduced with a stored and a factored basis, equal to 3e-17, damped 5 %
 * apart). The range is taken from X' X = V diag(s^2) V', its directions with s above
 * 1e-6 of the largest (shared directions, computed twice, differ by round-off). */
static fcd_index range_basis(fcd_index nf, fcd_index nu, const fcd_real *X, fcd_real *Q,
                             int *info) {
  fcd_real *G = fcd__malloc_array((size_t)nu * (size_t)nu + 1, sizeof *G);
  fcd_real *V = fcd__malloc_array((size_t)nu * (size_t)nu + 1, sizeof *V);
  fcd_real *s2 = fcd__malloc_array((size_t)nu + 1, sizeof *s2);
  fcd_real *Y = fcd__malloc_array((size_t)nf * (size_t)nu + 1, sizeof *Y);
  fcd_index rank = -1;
  *info = !G || !V || !s2 || !Y ? FCD__LA_NOMEM : fcd__la_gemm_tn(nu, nu, nf, X, X, G);
  if (*info == 0) *info = fcd__la_syev(1, nu, G, s2);
  if (*info == 0) {
    /* G: the eigenvectors as its columns, row-major; V the same, column-major */
    for (fcd_index k = 0; k < nu; k++)
      for (fcd_index i = 0; i < nu; i++) V[k * nu + i] = G[i * nu + k];
    fcd_real top = nu > 0 ? s2[nu - 1] : 0;
    fcd_index k0 = 0;
    while (k0 < nu && !(s2[k0] > 1e-12 * top)) k0++;
    rank = nu - k0;
    /* Y = X V_r diag(1 / s): orthonormal columns spanning X's range */
    *info = rank > 0 ? fcd__la_gemm_nn(nf, rank, nu, 1.0, X, V + k0 * nu, 0.0, Y) : 0;
    for (fcd_index j = 0; *info == 0 && j < rank; j++) {
      fcd_real sc = 1 / sqrt(s2[k0 + j]);
      for (fcd_index i = 0; i < nf; i++) Q[i * nf + j] = Y[j * nf + i] * sc;
    }
    if (*info != 0) rank = -1;
  }
  fcd__free(G);
  fcd__free(V);
  fcd__free(s2);
  fcd__free(Y);
  return rank;
}

/* C (nr x nr, column-major, the reduced damping) += the band's damping; U holds the low
 * modes (nu columns). Returns the count of damped directions, or -1 on a LAPACK failure
 * (*info). */
static fcd_index add_band_damping(fcd__cb *cb, band_work *b, fcd_index nu, fcd_real xi,
                                  int *info) {
  fcd_index nf = b->nf;
  /* MU = M U, whose columns' orthogonal complement is W (M-orthogonal to the low modes) */
  *info = fcd__la_gemm_nn(nf, nu, nf, 1.0, b->MF, b->U, 0.0, b->X);
  if (*info != 0) return -1;
  fcd_index rank = range_basis(nf, nu, b->X, b->Q, info);
  if (rank < 0) return -1;
  *info = complement(nf, rank, b->Q, b->tau, b->Y);
  if (*info != 0) return -1;
  fcd_index nw = nf - rank;
  *info = restricted_modes(b, nw, b->Y, b->X, b->B, b->w, b->U);
  if (*info != 0) return -1;
  /* C_band = (M V) diag(2 xi Omega) (M V)' on the free block; X = M V, Y = X diag */
  *info = fcd__la_gemm_nn(nf, nw, nf, 1.0, b->MF, b->U, 0.0, b->X);
  if (*info != 0) return -1;
  for (fcd_index k = 0; k < nw; k++) {
    fcd_real c = 2 * xi * sqrt(fmax(b->w[k], 0));
    for (fcd_index i = 0; i < nf; i++) b->Y[i * nw + k] = b->X[k * nf + i] * c;
  }
  /* B = X Y' (nf x nf): B' = Y X' as gemm_tn of the transposes' layouts */
  for (fcd_index k = 0; k < nw; k++)
    for (fcd_index i = 0; i < nf; i++) b->Q[i * nw + k] = b->X[k * nf + i];
  *info = fcd__la_gemm_tn(nf, nf, nw, b->Y, b->Q, b->B);
  if (*info != 0) return -1;
  for (fcd_index j = 0; j < nf; j++)
    for (fcd_index i = 0; i < nf; i++) {
      fcd_real v = 0.5 * (b->B[j * nf + i] + b->B[i * nf + j]);
      cb->C[b->fpos[j] * cb->nr + b->fpos[i]] += v;
      cb->Cband[b->fpos[j] * cb->nr + b->fpos[i]] = v;
    }
  return nw;
}

fcd_status fcd__cb_band_limit(fcd_system *sys, const fcd_contact_set *cs, fcd__cb *cb,
                              fcd_real cut, fcd_real xi) {
  int todo = band_of(cb, cut, xi);
  if (!todo) return FCD_OK;
  fcd_index nr = cb->nr;
  band_work b;
  memset(&b, 0, sizeof b);
  b.fpos = fcd__malloc_array((size_t)nr + 1, sizeof *b.fpos);
  b.fof = fcd__malloc_array((size_t)nr + 1, sizeof *b.fof);
  if (!b.fpos || !b.fof) goto nomem;
  for (fcd_index p = 0; p < nr; p++) {
    int fixed = p < cb->nb && sys->is_fixed[cb->bdofs[p]];
    b.fof[p] = fixed ? -1 : b.nf;
    if (!fixed) b.fpos[b.nf++] = p;
  }
  if (!band_work_alloc(&b, nr)) goto nomem;
  if (todo == 2) {
    cb->cband_only = cb->C == NULL;
    if (!cb->C && !(cb->C = fcd__calloc((size_t)nr * (size_t)nr + 1, sizeof *cb->C))) goto nomem;
    if (!(cb->Cband = fcd__calloc((size_t)nr * (size_t)nr + 1, sizeof *cb->Cband))) goto nomem;
  }
  free_block(cb, b.fpos, b.nf, cb->K, b.KF);
  free_block(cb, b.fpos, b.nf, cb->M, b.MF);
  int info = free_modes(cb, &b);
  if (info == FCD__LA_NOMEM) goto nomem;
  fcd_real wc = 2 * 3.14159265358979323846 * cb->cut_hz;
  fcd_index nu = 0, nw = 0;
  if (info == 0 && todo == 2) info = low_modes(cs, cb, &b, wc * wc, &nu);
  if (info == 0 && todo == 2 && nu < b.nf) nw = add_band_damping(cb, &b, nu, xi, &info);
  band_work_free(&b);
  if (info != 0)
    return fcd__err(sys, info == FCD__LA_TOO_BIG ? FCD_E_UNSUPPORTED : FCD_E_BACKEND,
                    "reduction: the band's modes (the reduced pencil's, free and with the "
                    "contacts' normals held): LAPACK returned %d", info);
  cb->ndamp = nw;
  return FCD_OK;
nomem:
  band_work_free(&b);
  return fcd__err(sys, FCD_E_NOMEM, "out of memory damping the reduced model above its band "
                  "(%lld reduced dofs)", (long long)nr);
}
