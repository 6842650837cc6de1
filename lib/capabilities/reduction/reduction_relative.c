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

/* P' A P of one stored matrix into a, as coordinate entries (an upper-stored one's
 * upper triangle: each pair k <= l of a diagonal entry's once, an off-diagonal entry's
 * every product, twice on the diagonal since it stands for (r, c) and (c, r)) */
static fcd_status rel_matrix(fcd_system *sys, const fcd_index *partner, fcd_matrix_kind which,
                             fcd_system *ysys) {
  const fcd__csr *a = &sys->mat[which];
  size_t cap = 4 * (size_t)a->rowptr[a->n] + 1, ne = 0;
  fcd_index *ri = fcd__malloc_array(cap, sizeof *ri), *ci = fcd__malloc_array(cap, sizeof *ci);
  fcd_real *v = fcd__malloc_array(cap, sizeof *v);
  fcd_status st = ri && ci && v ? FCD_OK
                                : fcd__err(sys, FCD_E_NOMEM, "out of memory for the %s matrix "
                                           "in relative coordinates", fcd__matrix_name(which));
  for (fcd_index r = 0; r < a->n && st == FCD_OK; r++)
    for (fcd_index p = a->rowptr[r]; p < a->rowptr[r + 1]; p++) {
      fcd_index c = a->col[p], rr[2] = {r, partner[r]}, cc[2] = {c, partner[c]};
      for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
          fcd_index x = rr[i], y = cc[j];
          if (x < 0 || y < 0) continue;
          if (a->upper) {
            if (r == c && x > y) continue;
            ri[ne] = x < y ? x : y;
            ci[ne] = x < y ? y : x;
            v[ne++] = r != c && x == y ? 2 * a->val[p] : a->val[p];
          } else {
            ri[ne] = x;
            ci[ne] = y;
            v[ne++] = a->val[p];
          }
        }
    }
  if (st == FCD_OK)
    st = fcd_system_set_matrix_coo(ysys, which, (fcd_index)ne, ri, ci, v,
                                   a->upper ? FCD_COO_UPPER : FCD_COO_FULL);
  fcd__free(ri);
  fcd__free(ci);
  fcd__free(v);
  return st;
}

/* the full system in y: its matrices, Rayleigh terms, prescribed dofs and constant load
 * (P' f); the prescribed dofs are no converted A dof, so they and their values stay */
static fcd_status rel_system(fcd_system *sys, const fcd_index *partner, fcd_system **out) {
  fcd_system *y;
  if (fcd_system_create(sys->n, &y) != FCD_OK)
    return fcd__err(sys, FCD_E_NOMEM, "out of memory for the system in relative coordinates");
  fcd_status st = FCD_OK;
  const fcd_matrix_kind kinds[] = {FCD_MASS, FCD_STIFFNESS, FCD_DAMPING};
  for (int k = 0; k < 3 && st == FCD_OK; k++)
    if (sys->mat[kinds[k]].set) st = rel_matrix(sys, partner, kinds[k], y);
  if (st == FCD_OK) st = fcd_system_set_rayleigh(y, sys->ray_alpha, sys->ray_beta);
  fcd_real *w = fcd__malloc_array((size_t)sys->n + 1, sizeof *w);
  if (st == FCD_OK && !w) st = FCD_E_NOMEM;
  if (st == FCD_OK && sys->nfixed > 0) {
    for (fcd_index k = 0; k < sys->nfixed; k++) w[k] = sys->fixed_value[sys->fixed_list[k]];
    st = fcd_system_fix_dofs(y, sys->nfixed, sys->fixed_list, w);
    if (st == FCD_OK && sys->presc_fn)
      st = fcd_system_set_prescribed_fn(y, sys->presc_fn, sys->presc_ud);
  }
  if (st == FCD_OK && sys->load) {
    memcpy(w, sys->load, (size_t)sys->n * sizeof *w);
    fcd__rel_transpose(partner, sys->n, w);
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
                                  const unsigned char *as_rigid, fcd_contact_set *out) {
  int d = cs->dim;
  fcd_status st = FCD_OK;
  for (fcd_index c = 0; c < cs->n && st == FCD_OK; c++) {
    const fcd__contact *k = &cs->c[c];
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
      st = k->pair && !(as_rigid && as_rigid[c])
               ? fcd_contact_set_add_pair(out, a, b, k->frame[0], k->frame[1], k->gap, k->mu,
                                          NULL)
               : fcd_contact_set_add_rigid(out, a, k->frame[0], k->frame[1], k->gap, k->mu,
                                           NULL);
    }
    if (st == FCD_OK) out->c[c].mortar = k->mortar; /* its reactions stay pressures */
    if (st == FCD_OK && (k->vg[0] != 0 || k->vg[1] != 0))
      st = fcd_contact_set_set_sliding_velocity(out, c, k->vg);
  }
  if (st == FCD_OK) st = fcd_contact_set_set_restitution(out, cs->restitution);
  return st;
}

fcd_status fcd__rel_build(fcd_reduction *r, fcd_contact_set *cs) {
  fcd_system *sys = r->full;
  fcd_index n = sys->n, npairs = 0;
  r->partner = fcd__malloc_array((size_t)n + 1, sizeof *r->partner);
  unsigned char *conv = fcd__calloc((size_t)cs->n + 1, 1);
  fcd_status st = r->partner && conv ? rel_partners(sys, cs, conv, r->partner, &npairs)
                                     : fcd__err(sys, FCD_E_NOMEM, "out of memory for the "
                                                "relative interface");
  if (st == FCD_OK && npairs == 0) { /* nothing to convert: the physical coordinates */
    fcd__free(r->partner);
    r->partner = NULL;
  }
  if (st == FCD_OK && r->partner) st = rel_system(sys, r->partner, &r->ysys);
  if (st == FCD_OK && r->partner) {
    /* a converted pair becomes its A node against B's moving frame, the rest as it is */
    st = fcd_contact_set_create(r->ysys, cs->dim, &r->ycs);
    if (st == FCD_OK) st = fcd__red_copy_contacts(cs, NULL, conv, r->ycs);
    if (st == FCD_E_NOMEM) fcd__err(sys, st, "out of memory for the relative interface");
    else if (st != FCD_OK)
      fcd__err(sys, st, "the contacts in relative coordinates: %s",
               fcd_system_last_error(r->ysys));
  }
  fcd__free(conv);
  return st;
}

void fcd__rel_to_u(const fcd_index *partner, fcd_index n, fcd_real *x) {
  for (fcd_index i = 0; i < n; i++)
    if (partner[i] >= 0) x[i] += x[partner[i]];
}

void fcd__rel_to_y(const fcd_index *partner, fcd_index n, fcd_real *x) {
  for (fcd_index i = 0; i < n; i++)
    if (partner[i] >= 0) x[i] -= x[partner[i]];
}

void fcd__rel_transpose(const fcd_index *partner, fcd_index n, fcd_real *f) {
  for (fcd_index i = 0; i < n; i++)
    if (partner[i] >= 0) f[partner[i]] += f[i];
}
