/* Modal coordinates of a Craig-Bampton model (fcd_reduction_create_modal). The reduced
 * pencil's own modes make the mass the identity and the stiffness diagonal, so that a
 * step's products and solves cost O(n) and the dense work left is the contacts' (their
 * rows over the modes). Kept dofs prescribed at constant nonzero values (pads pushed by a
 * set displacement) become one coordinate s, their values its shape, prescribed to 1: the
 * matrices are then diagonal but for s's row and column. A damping matrix that the modes
 * diagonalize (Rayleigh's, assembled element by element) is stored diagonal; any other
 * keeps its dense block. */
#include "reduction_private.h"
#include "lapack.h"

#include <math.h>
#include <string.h>

/* Psi' C_FF Psi is taken as diagonal when its largest off-diagonal entry is below this
 * fraction of its largest diagonal one: the projections leave C_r = alpha M_r + beta K_r
 * exact only to the interior factor's accuracy, some 1e-12 of it */
#define FCD__MODAL_DIAG_TOL 1e-9

void fcd__modal_free(fcd__red_modal *md) {
  if (!md) return;
  fcd__free(md->fpos);
  fcd__free(md->ppos);
  fcd__free(md->fof);
  fcd__free(md->up);
  fcd__free(md->Psi);
  fcd__free(md->g);
  fcd__free(md);
}

/* P: the kept dofs that are prescribed (with no prescribed function, those whose value is
 * nonzero: the others were left out of the basis); F: every other coordinate */
fcd_status fcd__modal_prepare(fcd_reduction *r) {
  const fcd__cb *cb = &r->cb;
  fcd_system *full = r->full;
  if (full->presc_fn)
    return fcd__err(full, FCD_E_UNSUPPORTED, "reduction_create_modal: the system has a "
                    "prescribed function; modal coordinates hold the moving prescribed dofs "
                    "at constant values (one coordinate with their values as its shape): "
                    "fcd_reduction_create keeps them physical");
  fcd__red_modal *md = fcd__calloc(1, sizeof *md);
  if (!md) return fcd__err(full, FCD_E_NOMEM, "out of memory for modal coordinates");
  r->md = md;
  fcd_index nr = cb->nr;
  for (fcd_index j = 0; j < cb->nb; j++) md->np += full->is_fixed[cb->bdofs[j]] ? 1 : 0;
  md->nf = nr - md->np;
  md->shape = md->np > 0;
  md->nz = md->shape + md->nf;
  md->fpos = fcd__malloc_array((size_t)md->nf + 1, sizeof *md->fpos);
  md->ppos = fcd__malloc_array((size_t)md->np + 1, sizeof *md->ppos);
  md->fof = fcd__malloc_array((size_t)nr + 1, sizeof *md->fof);
  md->up = fcd__malloc_array((size_t)md->np + 1, sizeof *md->up);
  md->Psi = fcd__malloc_array((size_t)md->nf * (size_t)md->nf + 1, sizeof *md->Psi);
  md->g = fcd__malloc_array(2 * (size_t)nr + 1, sizeof *md->g);
  if (!md->fpos || !md->ppos || !md->fof || !md->up || !md->Psi || !md->g)
    return fcd__err(full, FCD_E_NOMEM, "out of memory for the modal coordinates of %lld "
                    "reduced dofs", (long long)nr);
  fcd_index nf = 0, np = 0;
  for (fcd_index p = 0; p < nr; p++) {
    if (p < cb->nb && full->is_fixed[cb->bdofs[p]]) {
      md->up[np] = full->fixed_value[cb->bdofs[p]];
      md->fof[p] = -2 - np; /* P's k-th: -2 - k */
      md->ppos[np++] = p;
    } else {
      md->fof[p] = nf;
      md->fpos[nf++] = p;
    }
  }
  return FCD_OK;
}

/* A's F x F block (A nr x nr column-major) into D (nf x nf, column-major) */
static void gather_ff(const fcd_reduction *r, const fcd_real *A, fcd_real *D) {
  const fcd__red_modal *md = r->md;
  fcd_index nr = r->cb.nr, nf = md->nf;
  for (fcd_index j = 0; j < nf; j++)
    for (fcd_index i = 0; i < nf; i++) D[j * nf + i] = A[md->fpos[j] * nr + md->fpos[i]];
}

/* s's row (r0 = up' A_PF Psi), column (c0 = Psi' A_FP up) and corner (a00 = up' A_PP up)
 * of S' A S; w: nf scratch */
static void shape_terms(const fcd_reduction *r, const fcd_real *A, fcd_real *a00,
                        fcd_real *r0, fcd_real *c0, fcd_real *w) {
  const fcd__red_modal *md = r->md;
  fcd_index nr = r->cb.nr, nf = md->nf, np = md->np;
  *a00 = 0;
  for (fcd_index l = 0; l < np; l++)
    for (fcd_index k = 0; k < np; k++)
      *a00 += md->up[k] * A[md->ppos[l] * nr + md->ppos[k]] * md->up[l];
  for (int side = 0; side < 2; side++) {
    for (fcd_index i = 0; i < nf; i++) {
      fcd_real s = 0;
      for (fcd_index k = 0; k < np; k++) {
        fcd_index pk = md->ppos[k], fi = md->fpos[i];
        s += md->up[k] * (side == 0 ? A[fi * nr + pk] : A[pk * nr + fi]);
      }
      w[i] = s;
    }
    fcd__la_gemm_tn(nf, 1, nf, md->Psi, w, side == 0 ? r0 : c0);
  }
}

/* The reduced matrix which: s's row and column (when there is an s), then the core, its
 * diagonal d or (d NULL) the dense D (nf x nf, column-major) */
typedef struct {
  fcd_real a00;
  const fcd_real *r0, *c0, *d, *D;
} modal_arrow;

static fcd_status arrow_install(fcd_reduction *r, fcd_matrix_kind which, const modal_arrow *a) {
  const fcd__red_modal *md = r->md;
  fcd_index nf = md->nf, sh = md->shape, nz = md->nz;
  fcd_index per = a->d ? 1 : nf, ne = sh * nz + nf * (sh + per);
  fcd_index *rp = fcd__malloc_array((size_t)nz + 1, sizeof *rp);
  fcd_index *ci = fcd__malloc_array((size_t)ne + 1, sizeof *ci);
  fcd_real *v = fcd__malloc_array((size_t)ne + 1, sizeof *v);
  if (!rp || !ci || !v) {
    fcd__free(rp);
    fcd__free(ci);
    fcd__free(v);
    return fcd__err(r->full, FCD_E_NOMEM, "out of memory for a modal matrix of %lld dofs",
                    (long long)nz);
  }
  fcd_index e = 0, row = 0;
  if (sh) {
    rp[row++] = e;
    ci[e] = 0;
    v[e++] = a->a00;
    for (fcd_index j = 0; j < nf; j++, e++) {
      ci[e] = 1 + j;
      v[e] = a->r0[j];
    }
  }
  for (fcd_index i = 0; i < nf; i++) {
    rp[row++] = e;
    if (sh) {
      ci[e] = 0;
      v[e++] = a->c0[i];
    }
    for (fcd_index j = a->d ? i : 0; j < (a->d ? i + 1 : nf); j++, e++) {
      ci[e] = sh + j;
      v[e] = a->d ? a->d[i] : a->D[j * nf + i];
    }
  }
  rp[row] = e;
  fcd_status st = fcd_system_set_matrix_csr(r->sys, which, rp, ci, v, FCD_COO_FULL, FCD_COPY);
  if (st != FCD_OK)
    fcd__err(r->full, st, "the modal system: %s", fcd_system_last_error(r->sys));
  fcd__free(rp);
  fcd__free(ci);
  fcd__free(v);
  return st;
}

/* D = Psi' C_FF Psi (work: nf x nf); 1 when its off-diagonal part is round-off, its
 * diagonal then in d */
static int damping_core(const fcd_reduction *r, fcd_real *D, fcd_real *work, fcd_real *d) {
  const fcd__red_modal *md = r->md;
  fcd_index nf = md->nf;
  gather_ff(r, r->cb.C, work);
  /* C_FF Psi = (C_FF')' Psi: transpose into D first */
  for (fcd_index j = 0; j < nf; j++)
    for (fcd_index i = 0; i < nf; i++) D[j * nf + i] = work[i * nf + j];
  fcd__la_gemm_tn(nf, nf, nf, D, md->Psi, work);
  fcd__la_gemm_tn(nf, nf, nf, md->Psi, work, D);
  fcd_real dmax = 0, omax = 0;
  for (fcd_index j = 0; j < nf; j++)
    for (fcd_index i = 0; i < nf; i++) {
      fcd_real x = fabs(D[j * nf + i]);
      if (i == j) dmax = fmax(dmax, x);
      else omax = fmax(omax, x);
    }
  for (fcd_index i = 0; i < nf; i++) d[i] = D[i * nf + i];
  return omax <= FCD__MODAL_DIAG_TOL * dmax;
}

/* the three matrices; lam, the modes' eigenvalues (K's diagonal) */
static fcd_status modal_matrices(fcd_reduction *r, const fcd_real *lam, fcd_real *work) {
  const fcd__red_modal *md = r->md;
  const fcd__cb *cb = &r->cb;
  fcd_index nf = md->nf;
  fcd_real *ones = work, *r0 = work + nf, *c0 = work + 2 * nf, *w = work + 3 * nf;
  fcd_real *d = work + 4 * nf, *D = work + 5 * nf, *W2 = D + (size_t)nf * (size_t)nf;
  for (fcd_index i = 0; i < nf; i++) ones[i] = 1;
  const fcd_matrix_kind kinds[3] = {FCD_MASS, FCD_STIFFNESS, FCD_DAMPING};
  const fcd_real *A[3] = {cb->M, cb->K, cb->C};
  fcd_status st = FCD_OK;
  for (int k = 0; k < 3 && st == FCD_OK; k++) {
    if (!A[k]) continue;
    modal_arrow a = {0, r0, c0, k == 0 ? ones : lam, NULL};
    if (md->shape) shape_terms(r, A[k], &a.a00, r0, c0, w);
    if (md->shape && k < 2) /* mass and stiffness stay exactly symmetric */
      for (fcd_index i = 0; i < nf; i++) r0[i] = c0[i] = 0.5 * (r0[i] + c0[i]);
    if (k == 2 && !damping_core(r, D, W2, d)) {
      a.d = NULL;
      a.D = D;
    } else if (k == 2) {
      a.d = d;
    }
    st = arrow_install(r, kinds[k], &a);
  }
  return st;
}

/* The modes of (K_FF, M_FF) by one dense eigen-solve, then the matrices, the Rayleigh
 * coefficients and s held at 1 */
fcd_status fcd__modal_system(fcd_reduction *r) {
  fcd__red_modal *md = r->md;
  fcd_index nf = md->nf;
  size_t nn = (size_t)nf * (size_t)nf;
  fcd_real *B = fcd__malloc_array(nn + 1, sizeof *B);
  fcd_real *lam = fcd__malloc_array((size_t)nf + 1, sizeof *lam);
  fcd_real *work = fcd__malloc_array(5 * (size_t)nf + (r->cb.C ? 2 * nn : 0) + 1, sizeof *work);
  fcd_status st = FCD_OK;
  if (!B || !lam || !work) {
    st = fcd__err(r->full, FCD_E_NOMEM, "out of memory for the modal coordinates of %lld "
                  "reduced dofs", (long long)nf);
  } else {
    gather_ff(r, r->cb.K, md->Psi);
    gather_ff(r, r->cb.M, B);
    int info = fcd__la_sygv_cm(nf, md->Psi, B, lam);
    if (info != 0)
      st = fcd__err(r->full, info > nf ? FCD_E_NOT_SPD : FCD_E_BACKEND, "the modal "
                    "coordinates of a reduction: LAPACK's dsygvd returned %d%s", info,
                    info > nf ? " (the reduced mass is not positive definite)" : "");
  }
  if (st == FCD_OK) st = modal_matrices(r, lam, work);
  if (st == FCD_OK) st = fcd_system_set_rayleigh(r->sys, r->full->ray_alpha, r->full->ray_beta);
  if (st == FCD_OK && md->shape) {
    fcd_index s = 0;
    fcd_real one = 1;
    st = fcd_system_fix_dofs(r->sys, 1, &s, &one);
  }
  if (st != FCD_OK && st != FCD_E_NOMEM)
    fcd__err(r->full, st, "the modal system: %s", fcd_system_last_error(r->sys));
  fcd__free(B);
  fcd__free(lam);
  fcd__free(work);
  return st;
}

int fcd__modal_load(const fcd_reduction *r, const fcd_real *g, fcd_real *fz) {
  const fcd__red_modal *md = r->md;
  fcd_real *gf = md->g + r->cb.nr;
  if (md->shape) {
    fz[0] = 0;
    for (fcd_index k = 0; k < md->np; k++) fz[0] += md->up[k] * g[md->ppos[k]];
  }
  for (fcd_index i = 0; i < md->nf; i++) gf[i] = g[md->fpos[i]];
  return fcd__la_gemm_tn(md->nf, 1, md->nf, md->Psi, gf, fz + md->shape) != 0;
}

/* Each contact row of the full set (rigid, pair and row contacts alike; its dofs are kept,
 * and none is prescribed) on the Craig-Bampton coordinates, times Psi: a dense row over q,
 * given by rows. It gives the same local velocities and gaps (H S z = H y), so the laws
 * and their certificates are the Craig-Bampton model's. */
fcd_status fcd__modal_contacts(fcd_reduction *r, fcd_contact_set *pc) {
  const fcd__red_modal *md = r->md;
  const fcd__cb *cb = &r->cb;
  fcd_contact_set *mc = NULL;
  const fcd__csr *H;
  FCD_TRY(fcd__contact_set_operator(pc, &H));
  fcd_index nf = md->nf;
  int d = pc->dim;
  fcd_index *dofs = fcd__malloc_array((size_t)(d * nf) + 1, sizeof *dofs);
  fcd_real *w = fcd__malloc_array((size_t)(d * nf) + 1, sizeof *w);
  fcd_index *fof = fcd__malloc_array((size_t)cb->n + 1, sizeof *fof); /* full dof -> F */
  fcd_status st = dofs && w && fof ? fcd_contact_set_create(r->sys, d, &mc)
                            : fcd__err(r->full, FCD_E_NOMEM, "out of memory for the modal "
                                       "contact rows");
  fcd_index rp[4];
  for (int q = 0; q <= d; q++) rp[q] = q * nf;
  for (fcd_index i = 0; i < cb->n && st == FCD_OK; i++) fof[i] = -1;
  for (fcd_index j = 0; j < cb->nb && st == FCD_OK; j++) fof[cb->bdofs[j]] = md->fof[j];
  for (fcd_index e = 0; e < d * nf && st == FCD_OK; e++) dofs[e] = md->shape + e % nf;
  for (fcd_index c = 0; c < pc->n && st == FCD_OK; c++) {
    const fcd__contact *k = &pc->c[c];
    memset(w, 0, (size_t)(d * nf) * sizeof *w);
    for (int q = 0; q < d; q++)
      for (fcd_index e = H->rowptr[c * d + q]; e < H->rowptr[c * d + q + 1]; e++) {
        fcd_index i = fof[H->col[e]];
        if (i < 0) continue; /* a prescribed dof: contacts refuse them */
        for (fcd_index j = 0; j < nf; j++) w[q * nf + j] += H->val[e] * md->Psi[j * nf + i];
      }
    st = fcd_contact_set_add_rows(mc, rp, dofs, w, k->gap, k->mu, NULL);
    if (st == FCD_OK) mc->c[c].mortar = k->mortar; /* its reactions stay pressures */
    if (st == FCD_OK && (k->vg[0] != 0 || k->vg[1] != 0))
      st = fcd_contact_set_set_sliding_velocity(mc, c, k->vg);
  }
  if (st == FCD_OK) st = fcd_contact_set_set_restitution(mc, pc->restitution);
  if (st != FCD_OK && st != FCD_E_NOMEM)
    fcd__err(r->full, st, "the modal contact set: %s", fcd_system_last_error(r->sys));
  fcd__free(dofs);
  fcd__free(w);
  fcd__free(fof);
  if (st != FCD_OK) {
    fcd_contact_set_destroy(mc);
    return st;
  }
  r->cs = mc;
  return FCD_OK;
}

/* y = S z: y_P = up s, y_F = Psi q (BLAS reads the column-major Psi as Psi' row-major);
 * work: nf */
void fcd__modal_to_cb(const fcd_reduction *r, const fcd_real *z, fcd_real *y, fcd_real *work) {
  const fcd__red_modal *md = r->md;
  for (fcd_index k = 0; k < md->np; k++) y[md->ppos[k]] = md->up[k] * z[0];
  fcd__la_gemv_rm(1, md->nf, md->nf, 1.0, md->Psi, z + md->shape, 0.0, work);
  for (fcd_index i = 0; i < md->nf; i++) y[md->fpos[i]] = work[i];
}

/* z from y: s by least squares on P (up' y_P / up' up), q = Psi' M_FF y_F, so that z =
 * from_cb(to_cb(z)) (the modes are M_FF-orthonormal) */
fcd_status fcd__modal_from_cb(const fcd_reduction *r, const fcd_real *y, fcd_real *z) {
  const fcd__red_modal *md = r->md;
  fcd_index nf = md->nf, nr = r->cb.nr;
  fcd_real *t = fcd__malloc_array((size_t)nf + 1, sizeof *t);
  if (!t) return fcd__err(r->full, FCD_E_NOMEM, "out of memory in reduction_restrict");
  if (md->shape) {
    fcd_real a = 0, b = 0;
    for (fcd_index k = 0; k < md->np; k++) {
      a += md->up[k] * y[md->ppos[k]];
      b += md->up[k] * md->up[k];
    }
    z[0] = a / b;
  }
  for (fcd_index i = 0; i < nf; i++) {
    fcd_real s = 0;
    for (fcd_index l = 0; l < nf; l++)
      s += r->cb.M[md->fpos[l] * nr + md->fpos[i]] * y[md->fpos[l]];
    t[i] = s;
  }
  int info = fcd__la_gemm_tn(nf, 1, nf, md->Psi, t, z + md->shape);
  fcd__free(t);
  return info == 0 ? FCD_OK
                   : fcd__err(r->full, FCD_E_UNSUPPORTED, "reduction_restrict: %lld modal "
                              "coordinates are beyond BLAS' int indices", (long long)nf);
}

fcd_real fcd__modal_entry(const fcd_reduction *r, fcd_index p, const fcd_real *z) {
  const fcd__red_modal *md = r->md;
  fcd_index i = md->fof[p];
  if (i < 0) return md->up[-2 - i] * z[0];
  fcd_real s = 0;
  for (fcd_index j = 0; j < md->nf; j++) s += md->Psi[j * md->nf + i] * z[md->shape + j];
  return s;
}
