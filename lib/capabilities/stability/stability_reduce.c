/* Seed 000's reduction of a contact state (stability.c's header says how): the maps T_n
 * and T_mu from the free dofs to the reduced ones, K* = T_mu^T K T_n and the other
 * reduced operators, dense or sparse, and the sliding terms of 3D steady sliding. */
#include "stability_private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the reduction ---------------------------------------------------------------- */

void fcd__stab_tmap_free(tmap *t) {
  fcd__free(t->col_of);
  fcd__free(t->srow_ptr);
  fcd__free(t->sidx);
  fcd__free(t->sval);
  memset(t, 0, sizeof *t);
}

/* one constraint on the free dofs: entries (free index, coefficient), grown on demand
 * (a dual-mortar row spans its slave node and the master facets its dual function
 * overlaps) */
typedef struct {
  fcd_index n, cap;
  fcd_index *f;
  fcd_real *c;
} crow;

static void crow_free(crow *r) {
  fcd__free(r->f);
  fcd__free(r->c);
  memset(r, 0, sizeof *r);
}

/* adds v to the entry of free dof f; -1 out of memory */
static int crow_add(crow *r, fcd_index f, fcd_real v) {
  if (v == 0) return 0;
  for (fcd_index q = 0; q < r->n; q++)
    if (r->f[q] == f) {
      r->c[q] += v;
      return 0;
    }
  if (r->n == r->cap) {
    fcd_index cap = r->cap ? 2 * r->cap : 8;
    fcd_index *nf = fcd__grow_array(r->f, (size_t)r->n, (size_t)cap, sizeof *nf);
    if (!nf) return -1;
    r->f = nf;
    fcd_real *nc = fcd__grow_array(r->c, (size_t)r->n, (size_t)cap, sizeof *nc);
    if (!nc) return -1;
    r->c = nc;
    r->cap = cap;
  }
  r->f[r->n] = f;
  r->c[r->n++] = v;
  return 0;
}

fcd_real fcd__stab_mu(const fcd_stability *st, fcd_index c) {
  return st->mu_override >= 0 ? st->mu_override : st->cs->c[c].mu;
}

/* Row k of contact c over the full dofs. Frame contacts list body A's dofs before body
 * B's (the slave choice prefers A on ties). */
typedef struct {
  fcd_index n;
  fcd_index g[6];
  fcd_real w[6];
  const fcd_index *eg; /* rows contacts: the set's arrays */
  const fcd_real *ew;
} rowview;

static void contact_rowview(const fcd_contact_set *cs, fcd_index c, int k, rowview *v) {
  const fcd__contact *ct = &cs->c[c];
  int d = cs->dim;
  v->n = 0;
  v->eg = NULL;
  v->ew = NULL;
  if (ct->rows) {
    fcd_index e0 = cs->rptr[ct->row0 + k];
    v->n = cs->rptr[ct->row0 + k + 1] - e0;
    v->eg = cs->rdof + e0;
    v->ew = cs->rw + e0;
    return;
  }
  for (int side = 0; side < (ct->pair ? 2 : 1); side++)
    for (int j = 0; j < d; j++) {
      v->g[v->n] = side ? ct->dofs_b[j] : ct->dofs_a[j];
      v->w[v->n++] = (side ? -1 : 1) * ct->frame[k][j];
    }
  v->eg = v->g;
  v->ew = v->w;
}

/* Row k of contact c on the free dofs, scaled by a, added to r; -1 out of memory. The
 * dofs are free (checked by check_contact_dofs). */
static int add_contact_row(const fcd_stability *st, fcd_index c, int k, fcd_real a, crow *r) {
  rowview v;
  contact_rowview(st->cs, c, k, &v);
  for (fcd_index q = 0; q < v.n; q++)
    if (crow_add(r, st->sys->free_of[v.eg[q]], a * v.ew[q])) return -1;
  return 0;
}

/* every dof of every contact's rows must still be free; counts per free dof the active
 * (stick or slip) contacts whose rows touch it */
static fcd_status check_contact_dofs(fcd_stability *st, fcd_index *cnt) {
  fcd_system *sys = st->sys;
  fcd_index nc = fcd__stab_nct(st);
  int d = fcd__stab_cdim(st);
  for (fcd_index c = 0; c < nc; c++) {
    int active = st->status[c] == FCD_CONTACT_STICK || st->status[c] == FCD_CONTACT_SLIP;
    for (int k = 0; k < d; k++) {
      rowview v;
      contact_rowview(st->cs, c, k, &v);
      for (fcd_index q = 0; q < v.n; q++) {
        fcd_index f = sys->free_of[v.eg[q]];
        if (f < 0)
          return fcd__err(sys, FCD_E_STATE, "contact %lld: dof %lld has been prescribed "
                          "since the contact was added", (long long)c, (long long)v.eg[q]);
        /* counted once per contact: the stamp is the contact's index + 1 */
        if (active && v.ew[q] != 0 && cnt[2 * f + 1] != c + 1) {
          cnt[2 * f]++;
          cnt[2 * f + 1] = c + 1;
        }
      }
    }
  }
  return FCD_OK;
}

/* The d stick rows of contact c solved for d of its own dofs (those no other active
 * contact touches), Gauss-Jordan with the largest pivot of each row: u_S = -G_R u_R.
 * Fills the slaves' rows in rn and rm (equal: trial = test for stick). */
static fcd_status stick_slaves(fcd_stability *st, fcd_index c, const fcd_index *cnt,
                               unsigned char *slave_of, crow *rn, crow *rm) {
  fcd_system *sys = st->sys;
  int d = fcd__stab_cdim(st);
  crow all = {0, 0, NULL, NULL}, rows[3] = {{0, 0, NULL, NULL}, {0, 0, NULL, NULL}, {0, 0, NULL, NULL}};
  fcd_real *G = NULL;
  fcd_index piv[3] = {-1, -1, -1};
  fcd_status status = FCD_OK;
  for (int k = 0; k < d; k++)
    if (add_contact_row(st, c, k, 1.0, &rows[k]) || add_contact_row(st, c, k, 1.0, &all))
      goto nomem;
  fcd_index m = all.n;
  G = fcd__calloc((size_t)(d * m) + 1, sizeof *G);
  if (!G) goto nomem;
  fcd_real scale = 0;
  for (int k = 0; k < d; k++)
    for (fcd_index q = 0; q < rows[k].n; q++)
      for (fcd_index j = 0; j < m; j++)
        if (all.f[j] == rows[k].f[q]) {
          G[k * m + j] = rows[k].c[q];
          scale = fmax(scale, fabs(rows[k].c[q]));
        }
  for (int k = 0; k < d; k++) {
    fcd_index p = -1;
    fcd_real best = 0;
    for (fcd_index j = 0; j < m; j++) {
      int used = 0;
      for (int i = 0; i < k; i++) used |= piv[i] == j;
      if (used || cnt[2 * all.f[j]] != 1) continue;
      if (fabs(G[k * m + j]) > best) {
        best = fabs(G[k * m + j]);
        p = j;
      }
    }
    if (p < 0 || best <= 1e-12 * scale) {
      status = fcd__err(sys, FCD_E_UNSUPPORTED, "contact %lld sticks but its rows cannot be "
                        "solved for dofs that only it constrains (row %d); the reduced pencil "
                        "eliminates such dofs", (long long)c, k);
      goto done;
    }
    piv[k] = p;
    fcd_real g = G[k * m + p];
    for (fcd_index j = 0; j < m; j++) G[k * m + j] /= g;
    for (int i = 0; i < d; i++)
      if (i != k && G[i * m + p] != 0) {
        fcd_real a = G[i * m + p];
        for (fcd_index j = 0; j < m; j++) G[i * m + j] -= a * G[k * m + j];
      }
  }
  for (int k = 0; k < d; k++) {
    fcd_index s = all.f[piv[k]];
    slave_of[s] = 1;
    for (fcd_index j = 0; j < m; j++) {
      int is_piv = 0;
      for (int i = 0; i < d; i++) is_piv |= piv[i] == j;
      if (is_piv || G[k * m + j] == 0) continue;
      if (crow_add(&rn[s], all.f[j], -G[k * m + j]) || crow_add(&rm[s], all.f[j], -G[k * m + j]))
        goto nomem;
    }
  }
  goto done;
nomem:
  status = fcd__err(sys, FCD_E_NOMEM, "out of memory building the reduced pencil");
done:
  crow_free(&all);
  for (int k = 0; k < 3; k++) crow_free(&rows[k]);
  fcd__free(G);
  return status;
}

/* A slipping contact: trial row H_N, test row H_N + mu s . H_T, one slave dof that only
 * this contact constrains, with both coefficients as large as possible. */
static fcd_status slip_slave(fcd_stability *st, fcd_index c, const fcd_index *cnt,
                             unsigned char *slave_of, crow *rn, crow *rm) {
  fcd_system *sys = st->sys;
  int d = fcd__stab_cdim(st);
  crow cn = {0, 0, NULL, NULL}, cm = {0, 0, NULL, NULL};
  fcd_status status = FCD_OK;
  fcd_real mu = fcd__stab_mu(st, c);
  if (add_contact_row(st, c, 0, 1.0, &cn) || add_contact_row(st, c, 0, 1.0, &cm)) goto nomem;
  for (int k = 1; k < d; k++)
    if (add_contact_row(st, c, k, mu * st->slip[c * (d - 1) + k - 1], &cm)) goto nomem;
  /* both coefficients measured against the normal row's scale (a frame's is 1, a mortar
   * row's the slave node's share of the interface): mu s H_T may dwarf H_N at huge mu
   * and the condensation is still exact */
  fcd_real sn = 0;
  for (fcd_index q = 0; q < cn.n; q++) sn = fmax(sn, fabs(cn.c[q]));
  fcd_index s = -1;
  fcd_real bv = 0, as = 0, bs = 0;
  for (fcd_index q = 0; q < cn.n; q++) {
    fcd_index f = cn.f[q];
    if (cnt[2 * f] != 1) continue;
    fcd_real b = 0;
    for (fcd_index r = 0; r < cm.n; r++)
      if (cm.f[r] == f) b = cm.c[r];
    fcd_real v = fmin(fabs(cn.c[q]), fabs(b));
    if (v <= 1e-12 * sn) continue;
    if (v > bv) {
      bv = v;
      s = f;
      as = cn.c[q];
      bs = b;
    }
  }
  if (s < 0) {
    status = fcd__err(sys, FCD_E_SINGULAR, "contact %lld: no dof that only it constrains can "
                      "carry both the normal and the friction constraint (mu = %g)",
                      (long long)c, mu);
    goto done;
  }
  slave_of[s] = 1;
  for (fcd_index q = 0; q < cn.n; q++)
    if (cn.f[q] != s && crow_add(&rn[s], cn.f[q], -cn.c[q] / as)) goto nomem;
  for (fcd_index q = 0; q < cm.n; q++)
    if (cm.f[q] != s && crow_add(&rm[s], cm.f[q], -cm.c[q] / bs)) goto nomem;
  goto done;
nomem:
  status = fcd__err(sys, FCD_E_NOMEM, "out of memory building the reduced pencil");
done:
  crow_free(&cn);
  crow_free(&cm);
  return status;
}

/* T (free -> reduced) from the slaves' rows: masters keep their order */
static fcd_status fill_map(fcd_system *sys, fcd_index nf, const unsigned char *slave_of,
                           const crow *rows, tmap *t) {
  fcd_index nred = 0, tot = 0;
  for (fcd_index i = 0; i < nf; i++) {
    if (!slave_of[i]) nred++;
    else tot += rows[i].n;
  }
  t->nf = nf;
  t->nred = nred;
  t->col_of = fcd__malloc_array((size_t)nf + 1, sizeof *t->col_of);
  t->srow_ptr = fcd__calloc((size_t)nf + 1, sizeof *t->srow_ptr);
  t->sidx = fcd__malloc_array((size_t)tot + 1, sizeof *t->sidx);
  t->sval = fcd__malloc_array((size_t)tot + 1, sizeof *t->sval);
  if (!t->col_of || !t->srow_ptr || !t->sidx || !t->sval)
    return fcd__err(sys, FCD_E_NOMEM, "out of memory building the reduced pencil");
  fcd_index k = 0;
  for (fcd_index i = 0; i < nf; i++) t->col_of[i] = slave_of[i] ? -1 : k++;
  fcd_index p = 0;
  for (fcd_index i = 0; i < nf; i++) {
    t->srow_ptr[i] = p;
    if (!slave_of[i]) continue;
    for (fcd_index q = 0; q < rows[i].n; q++) {
      fcd_index f = rows[i].f[q];
      if (slave_of[f]) return fcd__err(sys, FCD_E_INTERNAL, "slave depends on a slave");
      t->sidx[p] = t->col_of[f];
      t->sval[p++] = rows[i].c[q];
    }
  }
  t->srow_ptr[nf] = p;
  return FCD_OK;
}

/* Builds T_n and T_mu. */
fcd_status fcd__stab_build_maps(fcd_stability *st, tmap *tn, tmap *tm) {
  fcd_system *sys = st->sys;
  fcd_index nf = sys->nfree, nc = fcd__stab_nct(st);
  fcd_status status = FCD_OK;
  fcd_index *cnt = fcd__calloc(2 * (size_t)nf + 2, sizeof *cnt);
  unsigned char *slave_of = fcd__calloc((size_t)nf + 1, sizeof *slave_of);
  /* per slave: its trial and test rows in terms of other free dofs */
  crow *rn = fcd__calloc((size_t)nf + 1, sizeof *rn), *rm = fcd__calloc((size_t)nf + 1, sizeof *rm);
  if (!cnt || !slave_of || !rn || !rm) {
    status = fcd__err(sys, FCD_E_NOMEM, "out of memory building the reduced pencil");
    goto done;
  }
  status = check_contact_dofs(st, cnt);
  for (fcd_index c = 0; c < nc && status == FCD_OK; c++) {
    if (st->status[c] == FCD_CONTACT_STICK) status = stick_slaves(st, c, cnt, slave_of, rn, rm);
    else if (st->status[c] == FCD_CONTACT_SLIP) status = slip_slave(st, c, cnt, slave_of, rn, rm);
  }
  if (status == FCD_OK) status = fill_map(sys, nf, slave_of, rn, tn);
  if (status == FCD_OK) status = fill_map(sys, nf, slave_of, rm, tm);
done:
  if (rn && rm)
    for (fcd_index i = 0; i < nf; i++) {
      crow_free(&rn[i]);
      crow_free(&rm[i]);
    }
  fcd__free(cnt);
  fcd__free(slave_of);
  fcd__free(rn);
  fcd__free(rm);
  return status;
}

/* A* = T_mu^T A T_n, dense (nred x nred, row-major), for A on the free pattern (full
 * storage, values val). */
void fcd__stab_reduce_dense(const fcd__free_pattern *fp, const fcd_real *val, const tmap *tn,
                            const tmap *tm, fcd_real *out) {
  fcd_index nr = tn->nred;
  memset(out, 0, (size_t)nr * (size_t)nr * sizeof *out);
  for (fcd_index i = 0; i < fp->n; i++) {
    /* the rows of T_mu^T this row of A feeds: test column(s) */
    fcd_index ti = tm->col_of[i];
    for (fcd_index p = fp->rowptr[i]; p < fp->rowptr[i + 1]; p++) {
      fcd_index j = fp->col[p];
      fcd_real a = val[p];
      if (a == 0) continue;
      /* A_ij contributes (T_mu)_{i,r} A_ij (T_n)_{j,c} */
      fcd_index rlo = ti >= 0 ? 0 : tm->srow_ptr[i], rhi = ti >= 0 ? 1 : tm->srow_ptr[i + 1];
      for (fcd_index rr = rlo; rr < rhi; rr++) {
        fcd_index r = ti >= 0 ? ti : tm->sidx[rr];
        fcd_real wr = ti >= 0 ? 1.0 : tm->sval[rr];
        fcd_index tj = tn->col_of[j];
        if (tj >= 0) {
          out[r * nr + tj] += wr * a;
        } else {
          for (fcd_index q = tn->srow_ptr[j]; q < tn->srow_ptr[j + 1]; q++)
            out[r * nr + tn->sidx[q]] += wr * a * tn->sval[q];
        }
      }
    }
  }
}

/* The test rows of T_mu^T: reduced row r collects the free rows i with (T_mu)_{i,r} != 0,
 * as tr_row[tr_ptr[r] .. tr_ptr[r + 1]) with weights tr_w (cnt: nr zeroed counters).
 * 0, or -1 out of memory (the caller frees what was allocated). */
static int test_rows(fcd_index nf, const tmap *tm, fcd_index nr, fcd_index *cnt,
                     fcd_index **ptr, fcd_index **row, fcd_real **w) {
  for (fcd_index i = 0; i < nf; i++) {
    if (tm->col_of[i] >= 0) cnt[tm->col_of[i]]++;
    else
      for (fcd_index q = tm->srow_ptr[i]; q < tm->srow_ptr[i + 1]; q++) cnt[tm->sidx[q]]++;
  }
  fcd_index *tr_ptr = *ptr = fcd__malloc_array((size_t)nr + 1, sizeof *tr_ptr);
  fcd_index tot = 0;
  for (fcd_index r = 0; r < nr; r++) tot += cnt[r];
  fcd_index *tr_row = *row = fcd__malloc_array((size_t)tot + 1, sizeof *tr_row);
  fcd_real *tr_w = *w = fcd__malloc_array((size_t)tot + 1, sizeof *tr_w);
  if (!tr_ptr || !tr_row || !tr_w) return -1;
  tr_ptr[0] = 0;
  for (fcd_index r = 0; r < nr; r++) tr_ptr[r + 1] = tr_ptr[r] + cnt[r];
  for (fcd_index r = 0; r < nr; r++) cnt[r] = tr_ptr[r];
  for (fcd_index i = 0; i < nf; i++) {
    if (tm->col_of[i] >= 0) {
      fcd_index r = tm->col_of[i];
      tr_row[cnt[r]] = i;
      tr_w[cnt[r]++] = 1.0;
    } else {
      for (fcd_index q = tm->srow_ptr[i]; q < tm->srow_ptr[i + 1]; q++) {
        fcd_index r = tm->sidx[q];
        tr_row[cnt[r]] = i;
        tr_w[cnt[r]++] = tm->sval[q];
      }
    }
  }
  return 0;
}

/* A* = T_mu^T A T_n in CSR (for the sparse path), same loops with a row accumulator */
fcd_status fcd__stab_reduce_csr(const fcd_system *sys, const fcd__free_pattern *fp,
                                const fcd_real *val, const tmap *tn, const tmap *tm,
                                fcd__csr *out) {
  fcd_index nr = tn->nred;
  fcd_index *cnt = fcd__calloc((size_t)nr + 1, sizeof *cnt);
  fcd_index *acc_col = fcd__malloc_array((size_t)nr + 1, sizeof *acc_col);
  fcd_real *acc = fcd__calloc((size_t)nr + 1, sizeof *acc);
  fcd_index *mark = fcd__malloc_array((size_t)nr + 1, sizeof *mark);
  /* test rows of T_mu^T: reduced row r collects free rows i with (T_mu)_{i,r} != 0 */
  fcd_index *tr_ptr = NULL, *tr_row = NULL;
  fcd_real *tr_w = NULL;
  fcd_status status = FCD_OK;
  memset(out, 0, sizeof *out);
  if (!cnt || !acc_col || !acc || !mark) goto nomem;
  if (test_rows(fp->n, tm, nr, cnt, &tr_ptr, &tr_row, &tr_w) != 0) goto nomem;
  /* two passes: count, then fill */
  for (int pass = 0; pass < 2; pass++) {
    fcd_index nnz = 0;
    for (fcd_index c = 0; c < nr; c++) mark[c] = -1;
    for (fcd_index r = 0; r < nr; r++) {
      fcd_index nrow = 0;
      for (fcd_index e = tr_ptr[r]; e < tr_ptr[r + 1]; e++) {
        fcd_index i = tr_row[e];
        fcd_real wr = tr_w[e];
        for (fcd_index p = fp->rowptr[i]; p < fp->rowptr[i + 1]; p++) {
          fcd_index j = fp->col[p], tj = tn->col_of[j];
          fcd_index qlo = tj >= 0 ? 0 : tn->srow_ptr[j], qhi = tj >= 0 ? 1 : tn->srow_ptr[j + 1];
          for (fcd_index q = qlo; q < qhi; q++) {
            fcd_index c = tj >= 0 ? tj : tn->sidx[q];
            fcd_real v = wr * val[p] * (tj >= 0 ? 1.0 : tn->sval[q]);
            if (mark[c] != r) {
              mark[c] = r;
              acc_col[nrow++] = c;
              acc[c] = 0;
            }
            acc[c] += v;
          }
        }
      }
      if (pass == 1) {
        /* sorted columns */
        for (fcd_index a = 1; a < nrow; a++) {
          fcd_index x = acc_col[a], b = a;
          while (b > 0 && acc_col[b - 1] > x) {
            acc_col[b] = acc_col[b - 1];
            b--;
          }
          acc_col[b] = x;
        }
        out->rowptr[r] = nnz;
        for (fcd_index a = 0; a < nrow; a++) {
          out->col[nnz + a] = acc_col[a];
          out->val[nnz + a] = acc[acc_col[a]];
        }
      }
      nnz += nrow;
    }
    if (pass == 0) {
      out->n = nr;
      out->rowptr = fcd__malloc_array((size_t)nr + 1, sizeof *out->rowptr);
      out->col = fcd__malloc_array((size_t)nnz + 1, sizeof *out->col);
      out->val = fcd__malloc_array((size_t)nnz + 1, sizeof *out->val);
      if (!out->rowptr || !out->col || !out->val) goto nomem;
      out->owned = 1;
      out->set = 1;
    } else {
      out->rowptr[nr] = nnz;
    }
  }
  goto done;
nomem:
  status = fcd__err(sys, FCD_E_NOMEM, "out of memory forming the reduced pencil");
  fcd__csr_clear(out);
done:
  fcd__free(cnt);
  fcd__free(acc_col);
  fcd__free(acc);
  fcd__free(mark);
  fcd__free(tr_ptr);
  fcd__free(tr_row);
  fcd__free(tr_w);
  return status;
}

/* 3D sliding damping on the free pattern: C += -mu r_n / v b b^T over the contact's
 * relative displacement, b the tangent direction normal to the slip. For contact c,
 * fills bl = T_mu^T b and br = T_n^T b (reduced, nr each, zeroed here) and returns the
 * coefficient, or 0 when the contact adds nothing. */
fcd_real fcd__stab_sliding_vectors(const fcd_stability *st, const tmap *tn, const tmap *tm,
                                   fcd_index c, fcd_real *bl, fcd_real *br, int *nomem) {
  fcd_index nr = tn->nred;
  if (fcd__stab_cdim(st) != 3 || !st->rn) return 0;
  if (st->status[c] != FCD_CONTACT_SLIP || !(st->speed[c] > 0) || st->rn[c] == 0) return 0;
  fcd_real coef = -fcd__stab_mu(st, c) * st->rn[c] / st->speed[c]; /* >= 0 */
  const fcd_real *s = st->slip + c * 2;
  crow b = {0, 0, NULL, NULL};
  memset(bl, 0, (size_t)nr * sizeof *bl);
  memset(br, 0, (size_t)nr * sizeof *br);
  /* b = -s_2 T + s_1 B: the tangent direction normal to the slip */
  if (add_contact_row(st, c, 1, -s[1], &b) || add_contact_row(st, c, 2, s[0], &b)) {
    crow_free(&b);
    *nomem = 1;
    return 0;
  }
  for (int q = 0; q < b.n; q++) {
    fcd_index f = b.f[q];
    if (tm->col_of[f] >= 0) bl[tm->col_of[f]] += b.c[q];
    else
      for (fcd_index e = tm->srow_ptr[f]; e < tm->srow_ptr[f + 1]; e++)
        bl[tm->sidx[e]] += b.c[q] * tm->sval[e];
    if (tn->col_of[f] >= 0) br[tn->col_of[f]] += b.c[q];
    else
      for (fcd_index e = tn->srow_ptr[f]; e < tn->srow_ptr[f + 1]; e++)
        br[tn->sidx[e]] += b.c[q] * tn->sval[e];
  }
  crow_free(&b);
  return coef;
}

/* The sliding damping as a dense addition to the reduced C* (few contacts, small
 * support): C* += coef (T_mu^T b)(b^T T_n). -1 when out of memory. */
int fcd__stab_add_sliding_damping(const fcd_stability *st, const tmap *tn, const tmap *tm,
                                  fcd_real *Cr) {
  fcd_index nc = fcd__stab_nct(st), nr = tn->nred;
  int nomem = 0;
  if (fcd__stab_cdim(st) != 3 || !st->rn) return 0;
  fcd_real *bl = fcd__calloc((size_t)nr + 1, sizeof *bl), *br = fcd__calloc((size_t)nr + 1, sizeof *br);
  nomem = !bl || !br;
  for (fcd_index c = 0; c < nc && !nomem; c++) {
    fcd_real coef = fcd__stab_sliding_vectors(st, tn, tm, c, bl, br, &nomem);
    if (coef == 0) continue;
    for (fcd_index i = 0; i < nr; i++)
      if (bl[i] != 0)
        for (fcd_index j = 0; j < nr; j++) Cr[i * nr + j] += coef * bl[i] * br[j];
  }
  fcd__free(bl);
  fcd__free(br);
  return nomem ? -1 : 0;
}
