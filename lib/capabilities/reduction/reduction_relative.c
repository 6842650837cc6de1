/* The relative interface (FCD_INTERFACE_RELATIVE): a node-to-node pair's A node carries
 * its displacement relative to B's node, u = P y with y_A = u_A - u_B and every other y
 * the u of its dof. The pair's law acts on y_A alone, so a reduction keeps three dofs a
 * pair where the physical coordinates keep six; B's node joins the interior. The
 * reduction is built on P' K P, P' M P, P' C P (sparse: P adds B's column to A's) and the
 * pairs turned into nodes against B's moving frame, and every vector crossing the
 * handle's boundary is mapped by P, P^-1 or P'. A converted A dof is never a B dof of a
 * converted pair, so the three maps work in place. The copy of a contact set onto
 * another system (the reduced one's too) is here, as the change of coordinates needs it. */
#include "reduction_private.h"

#include <math.h>
#include <string.h>

/* the dofs a contact weighs (its dofs or its rows' entries), each once: stamp[d] == c
 * marks d as seen for contact c */
static void count_uses(const fcd_contact_set *cs, fcd_index c, fcd_index *stamp,
                       fcd_index *uses) {
  const fcd__contact *k = &cs->c[c];
  fcd_index dofs[6], nd = 0;
  const fcd_index *list = dofs;
  if (k->rows) {
    fcd_index e0 = cs->rptr[k->row0];
    list = cs->rdof + e0;
    nd = cs->rptr[k->row0 + cs->dim] - e0;
  } else {
    for (int q = 0; q < cs->dim; q++) {
      dofs[nd++] = k->dofs_a[q];
      if (k->pair) dofs[nd++] = k->dofs_b[q];
    }
  }
  for (fcd_index e = 0; e < nd; e++)
    if (stamp[list[e]] != c) {
      stamp[list[e]] = c;
      uses[list[e]]++;
    }
}

/* conv[c] = 1 for the pairs converted: no other contact weighs an A dof, no B dof is a
 * candidate's A dof; partner[A dof] = its B dof, -1 elsewhere. *npairs converted. */
static fcd_status rel_partners(fcd_system *sys, const fcd_contact_set *cs, unsigned char *conv,
                               fcd_index *partner, fcd_index *npairs) {
  fcd_index n = sys->n;
  fcd_index *stamp = fcd__malloc_array((size_t)n, sizeof *stamp);
  fcd_index *uses = fcd__calloc((size_t)n, sizeof *uses);
  unsigned char *cand = fcd__calloc((size_t)n, 1);
  if (!stamp || !uses || !cand) {
    fcd__free(stamp);
    fcd__free(uses);
    fcd__free(cand);
    return fcd__err(sys, FCD_E_NOMEM, "out of memory choosing the relative interface's pairs");
  }
  for (fcd_index i = 0; i < n; i++) {
    stamp[i] = -1;
    partner[i] = -1;
  }
  for (fcd_index c = 0; c < cs->n; c++) {
    count_uses(cs, c, stamp, uses);
    const fcd__contact *k = &cs->c[c];
    for (int q = 0; q < cs->dim && k->pair && !k->rows; q++) cand[k->dofs_a[q]] = 1;
  }
  *npairs = 0;
  for (fcd_index c = 0; c < cs->n; c++) {
    const fcd__contact *k = &cs->c[c];
    int ok = k->pair && !k->rows;
    for (int q = 0; q < cs->dim && ok; q++)
      ok = uses[k->dofs_a[q]] == 1 && !cand[k->dofs_b[q]] && !sys->is_fixed[k->dofs_a[q]];
    conv[c] = (unsigned char)ok;
    for (int q = 0; q < cs->dim && ok; q++) partner[k->dofs_a[q]] = k->dofs_b[q];
    *npairs += ok;
  }
  fcd__free(stamp);
  fcd__free(uses);
  fcd__free(cand);
  return FCD_OK;
}

/* row d of the map u = P Q x: u_d = sum_k w[k] x_(idx[k]), the count returned (at most
 * the most sources of a tie + 1). Row d of P is y_d, plus y of its pair's B dof for a
 * converted A dof; Q gives a tied y its sources' weights. */
static fcd_index map_row(const fcd_reduction *r, fcd_index d, fcd_index *idx, fcd_real *w) {
  fcd_index k = 0, t = r->tie_of ? r->tie_of[d] : -1;
  if (t < 0) {
    idx[k] = d;
    w[k++] = 1;
  } else {
    for (fcd_index e = r->tptr[t]; e < r->tptr[t + 1]; e++) {
      idx[k] = r->tsrc[e];
      w[k++] = r->tw[e];
    }
  }
  if (r->partner[d] >= 0) {
    idx[k] = r->partner[d];
    w[k++] = 1;
  }
  return k;
}

/* (P Q)' A (P Q) of one stored matrix into ysys, as coordinate entries (an upper-stored
 * one's upper triangle: each pair k <= l of a diagonal entry's once, an off-diagonal
 * entry's every product, twice on the diagonal since it stands for (r, c) and (c, r)) */
static fcd_status rel_matrix(const fcd_reduction *r, fcd_matrix_kind which, fcd_index wmax,
                             fcd_system *ysys) {
  const fcd__csr *a = &r->full->mat[which];
  fcd_index *ir = fcd__malloc_array(2 * (size_t)wmax, sizeof *ir), *ic = ir + wmax;
  fcd_real *wr = fcd__malloc_array(2 * (size_t)wmax, sizeof *wr), *wc = wr + wmax;
  size_t cap = 0, ne = 0;
  for (fcd_index i = 0; ir && wr && i < a->n; i++) {
    size_t lr = (size_t)map_row(r, i, ir, wr);
    for (fcd_index p = a->rowptr[i]; p < a->rowptr[i + 1]; p++)
      cap += lr * (size_t)map_row(r, a->col[p], ic, wc);
  }
  fcd_index *ri = fcd__malloc_array(cap + 1, sizeof *ri), *ci = fcd__malloc_array(cap + 1, sizeof *ci);
  fcd_real *v = fcd__malloc_array(cap + 1, sizeof *v);
  fcd_status st = ir && wr && ri && ci && v
                      ? FCD_OK
                      : fcd__err(r->full, FCD_E_NOMEM, "out of memory for the %s matrix in "
                                 "relative coordinates", fcd__matrix_name(which));
  for (fcd_index i = 0; i < a->n && st == FCD_OK; i++) {
    fcd_index lr = map_row(r, i, ir, wr);
    for (fcd_index p = a->rowptr[i]; p < a->rowptr[i + 1]; p++) {
      fcd_index c = a->col[p], lc = map_row(r, c, ic, wc);
      for (fcd_index k = 0; k < lr; k++)
        for (fcd_index l = 0; l < lc; l++) {
          fcd_index x = ir[k], y = ic[l];
          fcd_real val = a->val[p] * wr[k] * wc[l];
          if (a->upper) {
            if (i == c && x > y) continue;
            ri[ne] = x < y ? x : y;
            ci[ne] = x < y ? y : x;
            v[ne++] = i != c && x == y ? 2 * val : val;
          } else {
            ri[ne] = x;
            ci[ne] = y;
            v[ne++] = val;
          }
        }
    }
  }
  if (st == FCD_OK)
    st = fcd_system_set_matrix_coo(ysys, which, (fcd_index)ne, ri, ci, v,
                                   a->upper ? FCD_COO_UPPER : FCD_COO_FULL);
  fcd__free(ir);
  fcd__free(wr);
  fcd__free(ri);
  fcd__free(ci);
  fcd__free(v);
  return st;
}

/* the prescribed dofs in x: the full system's (no converted A dof, so the same dofs and
 * values; those that follow another, at zero) and the tied contacts' dofs, held at zero */
static fcd_status rel_fixed(const fcd_reduction *r, fcd_system *y, fcd_real *w) {
  const fcd_system *sys = r->full;
  fcd_index nf = sys->nfixed + r->ntd;
  if (nf == 0) return FCD_OK;
  fcd_index *list = fcd__malloc_array((size_t)nf, sizeof *list);
  if (!list) return FCD_E_NOMEM;
  fcd_index k = 0;
  for (fcd_index j = 0; j < sys->nfixed; j++, k++) {
    fcd_index d = sys->fixed_list[j];
    list[k] = d;
    w[k] = r->tie_of && r->tie_of[d] >= 0 ? 0 : sys->fixed_value[d];
  }
  for (fcd_index t = 0; t < r->ntd; t++)
    if (!sys->is_fixed[r->tdof[t]]) {
      list[k] = r->tdof[t];
      w[k++] = 0;
    }
  fcd_status st = fcd_system_fix_dofs(y, k, list, w);
  fcd__free(list);
  if (st == FCD_OK && sys->presc_fn)
    st = fcd_system_set_prescribed_fn(y, sys->presc_fn, sys->presc_ud);
  return st;
}

/* the full system in x: its matrices, Rayleigh terms, prescribed dofs and constant load
 * (Q' P' f) */
static fcd_status rel_system(fcd_reduction *r, fcd_system **out) {
  fcd_system *sys = r->full, *y;
  fcd_index wmax = 2;
  for (fcd_index k = 0; k < r->ntd; k++)
    if (r->tptr[k + 1] - r->tptr[k] + 1 > wmax) wmax = r->tptr[k + 1] - r->tptr[k] + 1;
  if (fcd_system_create(sys->n, &y) != FCD_OK)
    return fcd__err(sys, FCD_E_NOMEM, "out of memory for the system in relative coordinates");
  fcd_status st = FCD_OK;
  const fcd_matrix_kind kinds[] = {FCD_MASS, FCD_STIFFNESS, FCD_DAMPING};
  for (int k = 0; k < 3 && st == FCD_OK; k++)
    if (sys->mat[kinds[k]].set) st = rel_matrix(r, kinds[k], wmax, y);
  if (st == FCD_OK) st = fcd_system_set_rayleigh(y, sys->ray_alpha, sys->ray_beta);
  fcd_real *w = fcd__malloc_array((size_t)sys->n + 1, sizeof *w);
  if (st == FCD_OK && !w) st = FCD_E_NOMEM;
  if (st == FCD_OK) st = rel_fixed(r, y, w);
  if (st == FCD_OK && sys->load) {
    memcpy(w, sys->load, (size_t)sys->n * sizeof *w);
    fcd__rel_transpose(r, w);
    st = fcd_system_set_load(y, w);
  }
  fcd__free(w);
  if (st != FCD_OK) {
    fcd__err(sys, st, "the system in relative coordinates: %s", fcd_system_last_error(y));
    fcd_system_destroy(y);
    return st;
  }
  *out = y;
  return FCD_OK;
}

fcd_status fcd__red_copy_contacts(const fcd_contact_set *cs, const fcd_index *place,
                                  const unsigned char *how, fcd_contact_set *out) {
  int d = cs->dim;
  fcd_status st = FCD_OK;
  for (fcd_index c = 0, to = 0; c < cs->n && st == FCD_OK; c++) {
    const fcd__contact *k = &cs->c[c];
    if (how && how[c] == FCD__RED_LEFT_OUT) continue;
    fcd_index a[3], b[3];
    if (k->rows) {
      fcd_index rp[4], e0 = cs->rptr[k->row0], ne = cs->rptr[k->row0 + d] - e0;
      fcd_index *dofs = place ? fcd__malloc_array((size_t)ne + 1, sizeof *dofs) : NULL;
      if (place && !dofs) return FCD_E_NOMEM;
      for (int q = 0; q <= d; q++) rp[q] = cs->rptr[k->row0 + q] - e0;
      for (fcd_index e = 0; place && e < ne; e++) dofs[e] = place[cs->rdof[e0 + e]];
      st = fcd_contact_set_add_rows(out, rp, place ? dofs : cs->rdof + e0, cs->rw + e0, k->gap,
                                    k->mu, NULL);
      fcd__free(dofs);
    } else {
      for (int q = 0; q < d; q++) {
        a[q] = place ? place[k->dofs_a[q]] : k->dofs_a[q];
        b[q] = !k->pair ? -1 : place ? place[k->dofs_b[q]] : k->dofs_b[q];
      }
      st = k->pair && !(how && how[c] == FCD__RED_AS_NODE)
               ? fcd_contact_set_add_pair(out, a, b, k->frame[0], k->frame[1], k->gap, k->mu,
                                          NULL)
               : fcd_contact_set_add_rigid(out, a, k->frame[0], k->frame[1], k->gap, k->mu,
                                           NULL);
    }
    if (st == FCD_OK) out->c[to].mortar = k->mortar; /* its reactions stay pressures */
    if (st == FCD_OK && (k->vg[0] != 0 || k->vg[1] != 0))
      st = fcd_contact_set_set_sliding_velocity(out, to, k->vg);
    to++;
  }
  if (st == FCD_OK) st = fcd_contact_set_set_restitution(out, cs->restitution);
  return st;
}

/* one tied contact's sources, checked: contacts of the set, converted pairs, tied to
 * none, with finite weights */
static fcd_status tie_sources(fcd_system *sys, const fcd_contact_set *cs,
                              const fcd_reduction_options *o, fcd_index k,
                              const unsigned char *how) {
  fcd_index c = o->tied[k];
  if (!(o->tie_ptr[k + 1] > o->tie_ptr[k]))
    return fcd__err(sys, FCD_E_INVALID_ARG, "reduction: tied contact %lld (tied[%lld]) has no "
                    "source (tie_ptr[%lld] = %lld, tie_ptr[%lld] = %lld: increasing)",
                    (long long)c, (long long)k, (long long)k, (long long)o->tie_ptr[k],
                    (long long)k + 1, (long long)o->tie_ptr[k + 1]);
  for (fcd_index e = o->tie_ptr[k]; e < o->tie_ptr[k + 1]; e++) {
    fcd_index s = o->tie_src[e];
    if (s < 0 || s >= cs->n)
      return fcd__err(sys, FCD_E_INVALID_ARG, "reduction: tie_src[%lld] = %lld is not a "
                      "contact of the set (0 to %lld)", (long long)e, (long long)s,
                      (long long)cs->n - 1);
    if (how[s] != FCD__RED_AS_NODE)
      return fcd__err(sys, how[s] == FCD__RED_LEFT_OUT ? FCD_E_INVALID_ARG : FCD_E_UNSUPPORTED,
                      "reduction: contact %lld, a source of tied contact %lld, %s", (long long)s,
                      (long long)c, how[s] == FCD__RED_LEFT_OUT
                      ? "is tied itself: a source is kept" : "is no converted node-to-node "
                      "pair of the relative interface: only those are tied and tie");
    if (!isfinite(o->tie_w[e]))
      return fcd__err(sys, FCD_E_INVALID_ARG, "reduction: tie_w[%lld] = %g is not finite",
                      (long long)e, o->tie_w[e]);
  }
  return FCD_OK;
}

/* opt's ties checked and marked LEFT_OUT in how (converted pairs marked AS_NODE) */
static fcd_status tie_check(fcd_system *sys, const fcd_contact_set *cs,
                            const fcd_reduction_options *o, unsigned char *how) {
  if (o->ntied < 0 || o->ntied > cs->n || !o->tied || !o->tie_ptr || !o->tie_src || !o->tie_w)
    return fcd__err(sys, FCD_E_INVALID_ARG, "reduction: ntied = %lld %s", (long long)o->ntied,
                    o->ntied < 0 || o->ntied > cs->n ? "is not a count of the set's contacts"
                                                     : "with a NULL tie array");
  if (o->tie_ptr[0] < 0)
    return fcd__err(sys, FCD_E_INVALID_ARG, "reduction: tie_ptr[0] = %lld is negative",
                    (long long)o->tie_ptr[0]);
  for (fcd_index k = 0; k < o->ntied; k++) {
    fcd_index c = o->tied[k];
    if (c < 0 || c >= cs->n)
      return fcd__err(sys, FCD_E_INVALID_ARG, "reduction: tied[%lld] = %lld is not a contact "
                      "of the set (0 to %lld)", (long long)k, (long long)c,
                      (long long)cs->n - 1);
    if (how[c] != FCD__RED_AS_NODE)
      return fcd__err(sys, how[c] ? FCD_E_INVALID_ARG : FCD_E_UNSUPPORTED, "reduction: "
                      "contact %lld (tied[%lld]) %s", (long long)c, (long long)k, how[c]
                      ? "is tied twice" : "is no converted node-to-node pair of the relative "
                      "interface: only those are tied");
    how[c] = FCD__RED_LEFT_OUT;
  }
  for (fcd_index k = 0; k < o->ntied; k++) FCD_TRY(tie_sources(sys, cs, o, k, how));
  return FCD_OK;
}

/* the moving prescribed dofs (nonzero values) into list, in the system's order; their count */
static fcd_index moving_prescribed(const fcd_system *sys, fcd_index *list) {
  fcd_index k = 0;
  for (fcd_index j = 0; j < sys->nfixed; j++)
    if (sys->fixed_value[sys->fixed_list[j]] != 0) {
      if (list) list[k] = sys->fixed_list[j];
      k++;
    }
  return k;
}

/* the ties dof by dof (r->tdof, tptr, tsrc, tw, tie_of) from checked options (o NULL: no
 * contact ties), then the moving prescribed dofs after the first, following it in
 * proportion to their values (nshape of them, 0: none) */
static fcd_status tie_dofs(fcd_reduction *r, const fcd_contact_set *cs,
                           const fcd_reduction_options *o, fcd_index nshape) {
  const fcd_system *sys = r->full;
  int d = cs ? cs->dim : 0;
  fcd_index n = sys->n, nt = o ? o->ntied : 0, ne = o ? o->tie_ptr[nt] - o->tie_ptr[0] : 0;
  fcd_index ns = nshape > 0 ? nshape - 1 : 0;
  r->ntd = nt * d + ns;
  r->tdof = fcd__malloc_array((size_t)r->ntd + 1, sizeof *r->tdof);
  r->tptr = fcd__malloc_array((size_t)r->ntd + 2, sizeof *r->tptr);
  r->tsrc = fcd__malloc_array((size_t)(ne * d + ns) + 1, sizeof *r->tsrc);
  r->tw = fcd__malloc_array((size_t)(ne * d + ns) + 1, sizeof *r->tw);
  r->tie_of = fcd__malloc_array((size_t)n + 1, sizeof *r->tie_of);
  fcd_index *mv = fcd__malloc_array((size_t)nshape + 1, sizeof *mv);
  if (!r->tdof || !r->tptr || !r->tsrc || !r->tw || !r->tie_of || !mv) {
    fcd__free(mv);
    return fcd__err(r->full, FCD_E_NOMEM, "out of memory for the interface's ties");
  }
  for (fcd_index i = 0; i < n; i++) r->tie_of[i] = -1;
  fcd_index t = 0, e = 0;
  r->tptr[0] = 0;
  for (fcd_index k = 0; k < nt; k++)
    for (int q = 0; q < d; q++, t++) {
      r->tdof[t] = cs->c[o->tied[k]].dofs_a[q];
      r->tie_of[r->tdof[t]] = t;
      for (fcd_index j = o->tie_ptr[k]; j < o->tie_ptr[k + 1]; j++, e++) {
        r->tsrc[e] = cs->c[o->tie_src[j]].dofs_a[q];
        r->tw[e] = o->tie_w[j];
      }
      r->tptr[t + 1] = e;
    }
  if (nshape > 0) moving_prescribed(sys, mv);
  for (fcd_index k = 1; k < nshape; k++, t++, e++) {
    r->tdof[t] = mv[k];
    r->tie_of[mv[k]] = t;
    r->tsrc[e] = mv[0];
    r->tw[e] = sys->fixed_value[mv[k]] / sys->fixed_value[mv[0]];
    r->tptr[t + 1] = e + 1;
  }
  fcd__free(mv);
  return FCD_OK;
}

fcd_status fcd__rel_build(fcd_reduction *r, fcd_contact_set *cs,
                          const fcd_reduction_options *opt, int relative) {
  fcd_system *sys = r->full;
  fcd_index n = sys->n, npairs = 0, nc = cs ? cs->n : 0;
  int tied = opt && opt->ntied != 0, shape = opt && opt->prescribed_shape;
  if ((tied || shape) && sys->presc_fn)
    return fcd__err(sys, FCD_E_UNSUPPORTED, "reduction: %s with a prescribed function: "
                    "the %s dofs would join its prescribed dofs",
                    tied ? "ties" : "prescribed_shape", tied ? "tied" : "following");
  fcd_index nshape = shape ? moving_prescribed(sys, NULL) : 0;
  if (nshape < 2) nshape = 0; /* nothing to join */
  r->partner = fcd__malloc_array((size_t)n + 1, sizeof *r->partner);
  unsigned char *how = fcd__calloc((size_t)nc + 1, 1);
  fcd_status st = r->partner && how ? FCD_OK : fcd__err(sys, FCD_E_NOMEM, "out of memory for "
                                                        "the relative interface");
  for (fcd_index i = 0; i < n && st == FCD_OK; i++) r->partner[i] = -1;
  if (st == FCD_OK && relative && cs) st = rel_partners(sys, cs, how, r->partner, &npairs);
  if (st == FCD_OK && tied) st = tie_check(sys, cs, opt, how);
  if (st == FCD_OK && (tied || nshape > 0)) st = tie_dofs(r, cs, tied ? opt : NULL, nshape);
  if (st == FCD_OK && npairs == 0 && r->ntd == 0) { /* the physical coordinates */
    fcd__free(r->partner);
    r->partner = NULL;
  }
  if (st == FCD_OK && r->partner) st = rel_system(r, &r->ysys);
  if (st == FCD_OK && r->partner && cs) {
    /* a converted pair becomes its A node against B's moving frame, a tied one leaves,
     * the rest as it is */
    st = fcd_contact_set_create(r->ysys, cs->dim, &r->ycs);
    if (st == FCD_OK) st = fcd__red_copy_contacts(cs, NULL, how, r->ycs);
    if (st == FCD_E_NOMEM) fcd__err(sys, st, "out of memory for the relative interface");
    else if (st != FCD_OK)
      fcd__err(sys, st, "the contacts in relative coordinates: %s",
               fcd_system_last_error(r->ysys));
  }
  fcd__free(how);
  return st;
}

void fcd__rel_to_u(const fcd_reduction *r, fcd_real *x) {
  if (!r->partner) return;
  for (fcd_index k = 0; k < r->ntd; k++) {
    fcd_real s = 0;
    for (fcd_index e = r->tptr[k]; e < r->tptr[k + 1]; e++) s += r->tw[e] * x[r->tsrc[e]];
    x[r->tdof[k]] = s;
  }
  for (fcd_index i = 0; i < r->full->n; i++)
    if (r->partner[i] >= 0) x[i] += x[r->partner[i]];
}

void fcd__rel_to_y(const fcd_reduction *r, fcd_real *x) {
  if (!r->partner) return;
  for (fcd_index i = 0; i < r->full->n; i++)
    if (r->partner[i] >= 0) x[i] -= x[r->partner[i]];
  for (fcd_index k = 0; k < r->ntd; k++) x[r->tdof[k]] = 0;
}

void fcd__rel_transpose(const fcd_reduction *r, fcd_real *f) {
  if (!r->partner) return;
  for (fcd_index i = 0; i < r->full->n; i++)
    if (r->partner[i] >= 0) f[r->partner[i]] += f[i];
  for (fcd_index k = 0; k < r->ntd; k++) {
    for (fcd_index e = r->tptr[k]; e < r->tptr[k + 1]; e++) f[r->tsrc[e]] += r->tw[e] * f[r->tdof[k]];
    f[r->tdof[k]] = 0;
  }
}
