/* A reduction on a distributed system, by components (superelements): each rank's rows
 * are one component, reduced on that rank alone, and the reduced operators are assembled
 * at the kept dofs (docs/reduction.md, "Components on ranks").
 *
 * Why it is exact. With the interior's dofs of different ranks never coupled (checked),
 * K_ii, M_ii and C_ii are block diagonal by rank: the constraint modes of a kept dof are
 * each component's own static response -K_rr^-1 K_rb, and the fixed-interface modes of the
 * whole are the union of the components' (the lowest nmodes of the union are chosen, as
 * the serial reduction chooses them). Every entry (a, b) of a matrix goes to one rank's
 * local system: the rank whose interior holds a, else the one whose interior holds b, else
 * (both kept) the rank that stored it. Then T' A T is the sum over ranks of T_r' A_r T_r,
 * each in its component's basis, and the sum is made once, in the reduced coordinates.
 * A rank holds its component's factor and basis only; the reduced model, a few thousand
 * dofs, is replicated. */
#include "reduction_private.h"
#include "lapack.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct fcd__red_parts {
  fcd_system *loc; /* this rank's component: its interior and the kept dofs it meets */
  fcd__cb cb;      /* its basis (nl dofs) */
  fcd_index nl;
  fcd_index *gdof;   /* local dof -> global dof (nl) */
  fcd_index *kplace; /* the local basis' kept dof j -> its place among the global kept */
  fcd_index *mplace; /* the local mode k -> the global mode, or -1 (not among the chosen) */
};

void fcd__parts_free(fcd__red_parts *p) {
  if (!p) return;
  fcd_system_destroy(p->loc);
  fcd__free(p->gdof);
  fcd__free(p->kplace);
  fcd__free(p->mplace);
  fcd__free(p);
}

fcd__cb *fcd__parts_local_cb(fcd__red_parts *p) {
  return &p->cb;
}

/* A matrix's share of this rank's component (fcd__comp_sort): entries in full storage */
typedef struct {
  fcd_index n, *i, *j;
  fcd_real *v;
} share;

static void share_free(share *e) {
  fcd__free(e->i);
  fcd__free(e->j);
  fcd__free(e->v);
  memset(e, 0, sizeof *e);
}

/* This rank's component as a serial system: its interior rows and the kept dofs its
 * entries meet, in the global order (gdof), its share of each matrix in full storage;
 * *lof_out (n: the global dof -> its local one, or -1) */
static fcd_status local_system(fcd_system *sys, const unsigned char *role, share e[3],
                               int nmat, fcd__red_parts *p, fcd_index **lof_out) {
  fcd_index n = sys->n, rb, re;
  fcd__rows_range(sys, &rb, &re);
  fcd_index *lof = fcd__malloc_array((size_t)n + 1, sizeof *lof);
  if (!lof) return fcd__err(sys, FCD_E_NOMEM, "out of memory numbering a component's dofs");
  *lof_out = lof;
  for (fcd_index d = 0; d < n; d++) lof[d] = -1;
  for (fcd_index d = rb; d < re; d++)
    if (role[d] == FCD__COMP_INTERIOR) lof[d] = 0;
  for (int q = 0; q < nmat; q++)
    for (fcd_index k = 0; k < e[q].n; k++) {
      lof[e[q].i[k]] = 0;
      lof[e[q].j[k]] = 0;
    }
  p->nl = 0;
  for (fcd_index d = 0; d < n; d++)
    if (lof[d] == 0) lof[d] = p->nl++;
  p->gdof = fcd__malloc_array((size_t)p->nl + 1, sizeof *p->gdof);
  if (!p->gdof) return fcd__err(sys, FCD_E_NOMEM, "out of memory numbering a component's dofs");
  for (fcd_index d = 0; d < n; d++)
    if (lof[d] >= 0) p->gdof[lof[d]] = d;
  if (p->nl == 0) return FCD_OK;
  if (fcd_system_create(p->nl, &p->loc) != FCD_OK)
    return fcd__err(sys, FCD_E_NOMEM, "out of memory for a component's system");
  const fcd_matrix_kind kinds[3] = {FCD_STIFFNESS, FCD_MASS, FCD_DAMPING};
  for (int q = 0; q < nmat; q++) {
    for (fcd_index k = 0; k < e[q].n; k++) {
      e[q].i[k] = lof[e[q].i[k]];
      e[q].j[k] = lof[e[q].j[k]];
    }
    /* a component that meets none of the damping leaves it unset: zero */
    if (e[q].n == 0 && kinds[q] == FCD_DAMPING) continue;
    fcd_status st = fcd_system_set_matrix_coo(p->loc, kinds[q], e[q].n, e[q].i, e[q].j,
                                              e[q].v, FCD_COO_FULL);
    if (st != FCD_OK)
      return fcd__err(sys, st, "a component's %s matrix: %s", fcd__matrix_name(kinds[q]),
                      fcd_system_last_error(p->loc));
  }
  return FCD_OK;
}

typedef struct {
  fcd_real w2;
  int rank;
  fcd_index k;
} mode_key;

static int mode_cmp(const void *a, const void *b) {
  const mode_key *x = a, *y = b;
  if (x->w2 != y->w2) return x->w2 < y->w2 ? -1 : 1;
  if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
  return (x->k > y->k) - (x->k < y->k);
}

/* The lowest nmodes of the components' modes, each rank's computed omega^2 gathered
 * (m_r of rank r): p->mplace and the global omega2 (ascending) in cb */
static fcd_status choose_modes(fcd_system *sys, fcd_index nmodes, int rank, int size,
                               fcd__red_parts *p, fcd__cb *cb) {
  fcd_index ml = p->loc ? p->cb.m : 0;
  fcd_real *cnt = fcd__calloc((size_t)size + 1, sizeof *cnt);
  if (fcd__comp_any(sys, !cnt)) {
    fcd__free(cnt);
    return fcd__err(sys, FCD_E_NOMEM, "out of memory choosing a component reduction's modes");
  }
  cnt[rank] = (fcd_real)ml;
  fcd_status st = fcd__comp_sum(sys, cnt, size);
  fcd_index total = 0, off = 0;
  for (int r = 0; r < size; r++) {
    if (r < rank) off += (fcd_index)cnt[r];
    total += (fcd_index)cnt[r];
  }
  fcd_real *w2 = st == FCD_OK ? fcd__calloc((size_t)total + 1, sizeof *w2) : NULL;
  mode_key *key = w2 ? fcd__malloc_array((size_t)total + 1, sizeof *key) : NULL;
  p->mplace = key ? fcd__malloc_array((size_t)ml + 1, sizeof *p->mplace) : NULL;
  cb->omega2 = p->mplace ? fcd__malloc_array((size_t)nmodes + 1, sizeof *cb->omega2) : NULL;
  if (st == FCD_OK && fcd__comp_any(sys, !cb->omega2))
    st = fcd__err(sys, FCD_E_NOMEM, "out of memory choosing a component reduction's modes");
  if (st == FCD_OK) {
    for (fcd_index k = 0; k < ml; k++) w2[off + k] = p->cb.omega2[k];
    st = fcd__comp_sum(sys, w2, total);
  }
  if (st == FCD_OK) {
    fcd_index at = 0;
    for (int r = 0; r < size; r++)
      for (fcd_index k = 0; k < (fcd_index)cnt[r]; k++, at++)
        key[at] = (mode_key){w2[at], r, k};
    qsort(key, (size_t)total, sizeof *key, mode_cmp);
    for (fcd_index k = 0; k < ml; k++) p->mplace[k] = -1;
    for (fcd_index g = 0; g < nmodes; g++) {
      cb->omega2[g] = key[g].w2;
      if (key[g].rank == rank) p->mplace[key[g].k] = g;
    }
  }
  fcd__free(cnt);
  fcd__free(w2);
  fcd__free(key);
  return st;
}

/* cb's K, M (and C): this rank's T_r' A_r T_r placed in the global reduced coordinates,
 * summed over ranks */
static fcd_status assemble(fcd_system *sys, int nmat, const fcd__red_parts *p, fcd__cb *cb) {
  fcd_index nr = cb->nr, nb = cb->nb;
  fcd_real **outs[3] = {&cb->K, &cb->M, &cb->C};
  int bad = 0;
  for (int q = 0; q < nmat; q++) {
    *outs[q] = fcd__calloc((size_t)nr * (size_t)nr + 1, sizeof **outs[q]);
    bad |= !*outs[q];
  }
  if (fcd__comp_any(sys, bad))
    return fcd__err(sys, FCD_E_NOMEM, "out of memory for the reduced operators of %lld dofs",
                    (long long)nr);
  const fcd__cb *lc = &p->cb;
  /* a local reduced coordinate's global place, or -1 (a mode not chosen) */
  fcd_index lr = p->loc ? lc->nr : 0;
  fcd_index *gp = fcd__malloc_array((size_t)lr + 1, sizeof *gp);
  if (fcd__comp_any(sys, !gp)) {
    fcd__free(gp);
    return fcd__err(sys, FCD_E_NOMEM, "out of memory assembling the reduced operators");
  }
  for (fcd_index j = 0; j < lr; j++)
    gp[j] = j < lc->nb ? p->kplace[j] : p->mplace[j - lc->nb] < 0 ? -1
                                                                 : nb + p->mplace[j - lc->nb];
  const fcd_real *ins[3] = {lc->K, lc->M, lc->C};
  fcd_status st = FCD_OK;
  for (int q = 0; q < nmat && st == FCD_OK; q++) {
    fcd_real *A = *outs[q];
    for (fcd_index j = 0; j < lr && ins[q]; j++) {
      if (gp[j] < 0) continue;
      for (fcd_index i = 0; i < lr; i++)
        if (gp[i] >= 0) A[gp[j] * nr + gp[i]] += ins[q][j * lr + i];
    }
    st = fcd__comp_sum(sys, A, nr * nr);
  }
  fcd__free(gp);
  return st;
}

fcd_status fcd__parts_begin(fcd_reduction *r, fcd_index nmodes, fcd_system **loc,
                            fcd_index *nkl, fcd_index **kl, fcd_index *ml) {
  fcd_system *sys = r->full;
  fcd__cb *cb = &r->cb;
  fcd_index n = sys->n;
  *loc = NULL;
  *nkl = *ml = 0;
  *kl = NULL;
  fcd__red_parts *p = fcd__calloc(1, sizeof *p);
  unsigned char *role = fcd__calloc((size_t)n + 1, 1);
  fcd_status st = p && role ? FCD_OK
                            : fcd__err(sys, FCD_E_NOMEM, "out of memory for a component "
                                       "reduction");
  r->parts = p;
  for (fcd_index d = 0; role && d < n; d++)
    role[d] = sys->is_fixed[d] ? FCD__COMP_HELD : FCD__COMP_INTERIOR;
  for (fcd_index j = 0; role && j < cb->nb; j++) role[cb->bdofs[j]] = FCD__COMP_KEPT;
  if (st == FCD_OK && (!sys->mat[FCD_MASS].set || !sys->mat[FCD_STIFFNESS].set))
    st = fcd__err(sys, FCD_E_STATE, "reduction: the system needs a mass and a stiffness "
                  "matrix");
  if (st == FCD_OK && nmodes < 0)
    st = fcd__err(sys, FCD_E_INVALID_ARG, "reduction: %lld modes", (long long)nmodes);
  /* a constant load on the interior would add a static correction (serially one column
   * for the whole); a load function would make the reduced load a collective call in
   * every step of the replicated reduced system: neither is offered here */
  if (st == FCD_OK && sys->load_fn)
    st = fcd__err(sys, FCD_E_UNSUPPORTED, "reduction on a distributed system: a load "
                  "function is not offered (a constant load on kept dofs is)");
  for (fcd_index d = 0; st == FCD_OK && sys->load && d < n; d++)
    if (sys->load[d] != 0 && role[d] == FCD__COMP_INTERIOR)
      st = fcd__err(sys, FCD_E_UNSUPPORTED, "reduction on a distributed system: the load on "
                    "interior dof %lld would need a static correction, which a component "
                    "reduction does not make: load kept dofs only (contact or prescribed)",
                    (long long)d);
  st = fcd__comp_agree(sys, st, "reduction by components");
  int nmat = sys->mat[FCD_DAMPING].set ? 3 : 2;
  share e[3] = {{0}, {0}, {0}};
  const fcd_matrix_kind kinds[3] = {FCD_STIFFNESS, FCD_MASS, FCD_DAMPING};
  for (int q = 0; q < nmat && st == FCD_OK; q++)
    st = fcd__comp_sort(sys, kinds[q], role, &e[q].n, &e[q].i, &e[q].j, &e[q].v);
  fcd_index *lof = NULL;
  if (st == FCD_OK) st = local_system(sys, role, e, nmat, p, &lof);
  for (int q = 0; q < 3; q++) share_free(&e[q]);
  fcd__free(lof);
  /* this component's kept dofs and interior */
  fcd_index nil = 0;
  if (st == FCD_OK) {
    *kl = fcd__malloc_array((size_t)p->nl + 1, sizeof **kl);
    if (!*kl) st = fcd__err(sys, FCD_E_NOMEM, "out of memory listing a component's kept dofs");
    for (fcd_index l = 0; *kl && l < p->nl; l++) {
      if (role[p->gdof[l]] == FCD__COMP_KEPT) (*kl)[(*nkl)++] = l;
      else nil++;
    }
  }
  fcd__free(role);
  st = fcd__comp_agree(sys, st, "reduction by components");
  /* the interior's size over all ranks, against the modes asked */
  fcd_real ni_all = (fcd_real)nil;
  if (st == FCD_OK) st = fcd__comp_sum(sys, &ni_all, 1);
  if (st == FCD_OK && (fcd_real)nmodes > ni_all)
    st = fcd__err(sys, FCD_E_INVALID_ARG, "reduction: %lld modes asked, the interior has "
                  "%lld dofs", (long long)nmodes, (long long)ni_all);
  cb->ni = (fcd_index)ni_all;
  /* the component's basis: the lowest min(nmodes, its interior) modes, of which the
   * lowest nmodes of all are chosen in fcd__parts_finish */
  *ml = nmodes < nil ? nmodes : nil;
  *loc = st == FCD_OK ? p->loc : NULL;
  return st;
}

fcd_status fcd__parts_finish(fcd_reduction *r, fcd_index nmodes, fcd_status st) {
  fcd_system *sys = r->full;
  fcd__cb *cb = &r->cb;
  fcd__red_parts *p = r->parts;
  int rank = 0, size = 1;
  fcd_system_get_distribution(sys, &rank, &size, NULL, NULL);
  if (st != FCD_OK && p->loc)
    fcd__err(sys, st, "reduction by components, rank %d's (%lld dofs, %lld kept): %s", rank,
             (long long)p->nl, (long long)p->cb.nb, fcd_system_last_error(p->loc));
  if (st == FCD_OK && p->loc) {
    /* the local kept dofs' places among the global ones (both ascending) */
    p->kplace = fcd__malloc_array((size_t)p->cb.nb + 1, sizeof *p->kplace);
    if (!p->kplace) st = fcd__err(sys, FCD_E_NOMEM, "out of memory for a component's places");
    fcd_index g = 0;
    for (fcd_index j = 0; p->kplace && j < p->cb.nb; j++) {
      fcd_index d = p->gdof[p->cb.bdofs[j]];
      while (g < cb->nb && cb->bdofs[g] < d) g++;
      p->kplace[j] = g;
    }
  }
  st = fcd__comp_agree(sys, st, "reduction by components");
  if (st == FCD_OK) st = choose_modes(sys, nmodes, rank, size, p, cb);
  if (st == FCD_OK) {
    cb->n = sys->n;
    cb->m = nmodes;
    cb->nr = cb->nb + nmodes;
    cb->band_hz = cb->cut_hz = INFINITY;
    if (cb->nr == 0)
      st = fcd__err(sys, FCD_E_INVALID_ARG, "reduction: nothing is kept (no contact row, no "
                    "moving prescribed dof) and no mode is asked: the reduced model would "
                    "have no dof");
  }
  int nmat = sys->mat[FCD_DAMPING].set ? 3 : 2;
  if (st == FCD_OK) st = assemble(sys, nmat, p, cb);
  if (st == FCD_OK) {
    cb->factor_bytes = p->cb.factor_bytes;
    cb->peak_bytes = p->cb.peak_bytes;
  }
  return st;
}

/* x = T xr (Craig-Bampton coordinates): each rank its interior's rows, summed; the kept
 * dofs xr's own */
fcd_status fcd__parts_expand(const fcd_reduction *r, const fcd_real *xr, fcd_real *x) {
  const fcd__red_parts *p = r->parts;
  const fcd__cb *cb = &r->cb, *lc = &p->cb;
  fcd_system *sys = r->full;
  memset(x, 0, (size_t)cb->n * sizeof *x);
  fcd_real *xl = p->loc ? fcd__malloc_array((size_t)(p->nl + lc->nr) + 1, sizeof *xl) : NULL;
  fcd_status st = FCD_OK;
  if (fcd__comp_any(sys, p->loc && !xl)) {
    fcd__free(xl);
    return FCD_E_NOMEM;
  }
  if (p->loc) {
    fcd_real *yl = xl + p->nl;
    for (fcd_index j = 0; j < lc->nb; j++) yl[j] = xr[p->kplace[j]];
    for (fcd_index k = 0; k < lc->m; k++)
      yl[lc->nb + k] = p->mplace[k] < 0 ? 0 : xr[cb->nb + p->mplace[k]];
    st = fcd__cb_apply(lc, yl, xl);
    /* the kept dofs are set once below, not summed over the ranks that meet them */
    for (fcd_index j = 0; j < lc->nb; j++) xl[lc->bdofs[j]] = 0;
    for (fcd_index l = 0; st == FCD_OK && l < p->nl; l++) x[p->gdof[l]] = xl[l];
  }
  fcd__free(xl);
  fcd_status agreed = fcd__comp_agree(sys, st, "reduction_expand");
  if (agreed == FCD_OK) agreed = fcd__comp_sum(sys, x, cb->n);
  for (fcd_index j = 0; agreed == FCD_OK && j < cb->nb; j++) x[cb->bdofs[j]] = xr[j];
  return agreed;
}

/* xr from x: the kept dofs' values, and each chosen mode's M-projection of the interior's
 * departure from the constraint modes' static shape (cb_restrict's, component by
 * component), summed over ranks */
fcd_status fcd__parts_restrict(const fcd_reduction *r, const fcd_real *x, fcd_real *xr) {
  const fcd__red_parts *p = r->parts;
  const fcd__cb *cb = &r->cb, *lc = &p->cb;
  fcd_system *sys = r->full;
  memset(xr + cb->nb, 0, (size_t)cb->m * sizeof *xr);
  fcd_index nl = p->nl;
  fcd_real *w = p->loc ? fcd__malloc_array(3 * (size_t)nl + (size_t)lc->nr + 1, sizeof *w)
                       : NULL;
  if (fcd__comp_any(sys, p->loc && !w)) {
    fcd__free(w);
    return FCD_E_NOMEM;
  }
  fcd_status st = FCD_OK;
  if (p->loc && lc->m > 0) {
    fcd_real *y = w, *z = w + nl, *mz = w + 2 * nl, *q = w + 3 * nl;
    for (fcd_index l = 0; l < nl; l++) y[l] = x[p->gdof[l]];
    for (fcd_index j = 0; j < lc->nb; j++) q[j] = y[lc->bdofs[j]];
    st = fcd__cb_tb(lc, 1, q, z);
    for (fcd_index l = 0; l < nl; l++) y[l] -= z[l];
    for (fcd_index j = 0; j < lc->nb; j++) y[lc->bdofs[j]] = 0;
    memset(mz, 0, (size_t)nl * sizeof *mz);
    if (st == FCD_OK) fcd__csr_gaxpy(&p->loc->mat[FCD_MASS], 1.0, y, mz);
    if (st == FCD_OK && fcd__la_gemm_tn(lc->m, 1, nl, lc->Q, mz, q) != 0) st = FCD_E_UNSUPPORTED;
    for (fcd_index k = 0; st == FCD_OK && k < lc->m; k++)
      if (p->mplace[k] >= 0) xr[cb->nb + p->mplace[k]] = q[k];
  }
  fcd__free(w);
  fcd_status agreed = fcd__comp_agree(sys, st, "reduction_restrict");
  if (agreed == FCD_OK) agreed = fcd__comp_sum(sys, xr + cb->nb, cb->m);
  for (fcd_index j = 0; agreed == FCD_OK && j < cb->nb; j++) xr[j] = x[cb->bdofs[j]];
  return agreed;
}

/* The band (fcd__cb_band_limit) made on rank 0 alone and given to every rank: it reads the
 * reduced operators only, which every rank holds alike, and its eigenproblems and eight
 * nr x nr arrays would otherwise be made on every rank at once (three ranks on two cores
 * took 1.36 the serial time, each rank's peak 1.2 GiB of it at 3,072 reduced dofs) */
fcd_status fcd__parts_band(fcd_reduction *r, const fcd_contact_set *cs, fcd_real cut,
                           fcd_real xi) {
  fcd_system *sys = r->full;
  fcd__cb *cb = &r->cb;
  fcd_status st = fcd__comp_rank(sys) == 0 ? fcd__cb_band_limit(sys, cs, cb, cut, xi) : FCD_OK;
  st = fcd__comp_agree(sys, st, "the band of a reduction by components");
  if (st != FCD_OK) return st;
  /* what the band set: its figures, then its arrays where rank 0 has them */
  fcd_real hdr[8] = {cb->band_hz, cb->cut_hz, (fcd_real)cb->ndamp, (fcd_real)cb->nfree,
                     (fcd_real)cb->cband_only, cb->C != NULL, cb->Cband != NULL,
                     cb->Phi != NULL};
  FCD_TRY(fcd__comp_bcast(sys, hdr, sizeof hdr));
  size_t nr2 = (size_t)cb->nr * (size_t)cb->nr, nf = (size_t)hdr[3];
  int root = fcd__comp_rank(sys) == 0, bad = 0;
  if (!root) {
    cb->band_hz = hdr[0];
    cb->cut_hz = hdr[1];
    cb->ndamp = (fcd_index)hdr[2];
    cb->nfree = (fcd_index)hdr[3];
    cb->cband_only = (int)hdr[4];
    if (hdr[5] != 0 && !cb->C) bad |= !(cb->C = fcd__calloc(nr2 + 1, sizeof *cb->C));
    if (hdr[6] != 0) bad |= !(cb->Cband = fcd__malloc_array(nr2 + 1, sizeof *cb->Cband));
    if (hdr[7] != 0) {
      bad |= !(cb->fpos = fcd__malloc_array(nf + 1, sizeof *cb->fpos));
      bad |= !(cb->Phi = fcd__malloc_array(nf * nf + 1, sizeof *cb->Phi));
      bad |= !(cb->phiw2 = fcd__malloc_array(nf + 1, sizeof *cb->phiw2));
    }
  }
  if (fcd__comp_any(sys, bad))
    return fcd__err(sys, FCD_E_NOMEM, "out of memory receiving the band of a reduction by "
                    "components (%lld reduced dofs)", (long long)cb->nr);
  /* C carries the band's damping added (its own part is alike on every rank) */
  if (hdr[5] != 0) FCD_TRY(fcd__comp_bcast(sys, cb->C, nr2 * sizeof *cb->C));
  if (hdr[6] != 0) FCD_TRY(fcd__comp_bcast(sys, cb->Cband, nr2 * sizeof *cb->Cband));
  if (hdr[7] != 0) {
    FCD_TRY(fcd__comp_bcast(sys, cb->fpos, nf * sizeof *cb->fpos));
    FCD_TRY(fcd__comp_bcast(sys, cb->Phi, nf * nf * sizeof *cb->Phi));
    FCD_TRY(fcd__comp_bcast(sys, cb->phiw2, nf * sizeof *cb->phiw2));
  }
  return FCD_OK;
}
