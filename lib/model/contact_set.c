/* Contact sets: candidate contacts, their frames, and the contact operator H. */
#include "model.h"
#include "geometry.h"
#include "lapack.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A frame within this distance of orthonormal is taken as meant to be one. */
#define FRAME_TOL 1e-6

#define CHECK_CS(cs)                                                                   \
  do {                                                                                 \
    if (!fcd__contact_set_valid(cs)) return FCD_E_INVALID_ARG;                         \
  } while (0)

fcd_status fcd_contact_set_create(fcd_system *sys, int dim, fcd_contact_set **out) {
  if (!out) return fcd__err(sys, FCD_E_INVALID_ARG, "contact_set_create: out is NULL");
  *out = NULL;
  FCD_CHECK_SYS(sys);
  if (dim != 2 && dim != 3)
    return fcd__err(sys, FCD_E_INVALID_ARG, "contact set dimension %d is not 2 or 3", dim);
  if (sys->n < dim)
    return fcd__err(sys, FCD_E_INVALID_ARG, "a %dD contact needs at least %d dofs, the "
                    "system has %lld", dim, dim, (long long)sys->n);
  fcd_contact_set *cs = fcd__calloc(1, sizeof *cs);
  if (!cs) return fcd__err(sys, FCD_E_NOMEM, "out of memory creating a contact set");
  cs->magic = FCD_CONTACT_SET_MAGIC;
  cs->sys = sys;
  cs->dim = dim;
  cs->version = 1;
  fcd__system_retain(sys);
  *out = cs;
  return FCD_OK;
}

/* counts contact c's dofs in the system's contact_uses (delta +1 or -1): a dof used by a
 * contact cannot be prescribed afterwards */
static void count_uses(fcd_contact_set *cs, const fcd__contact *c, int delta) {
  fcd_index *uses = cs->sys->contact_uses;
  if (c->rows) {
    for (fcd_index q = cs->rptr[c->row0]; q < cs->rptr[c->row0 + cs->dim]; q++)
      uses[cs->rdof[q]] += delta;
    return;
  }
  for (int k = 0; k < cs->dim; k++) {
    uses[c->dofs_a[k]] += delta;
    if (c->pair) uses[c->dofs_b[k]] += delta;
  }
}

static void contact_set_free(fcd_contact_set *cs) {
  fcd_system *sys = cs->sys;
  for (fcd_index i = 0; i < cs->n; i++) count_uses(cs, &cs->c[i], -1);
  fcd__free(cs->rptr);
  fcd__free(cs->rdof);
  fcd__free(cs->rw);
  fcd__free(cs->c);
  fcd__geometry_free(cs->geo);
  fcd__free(cs->hkey);
  fcd__free(cs->hnext);
  fcd__free(cs->htab);
  fcd__csr_clear(&cs->H);
  cs->magic = 0;
  fcd__free(cs);
  fcd__system_release(sys);
}

void fcd_contact_set_destroy(fcd_contact_set *cs) {
  if (!fcd__contact_set_valid(cs) || cs->zombie) return;
  if (cs->children > 0) {
    cs->zombie = 1;
    return;
  }
  contact_set_free(cs);
}

void fcd__contact_set_release(fcd_contact_set *cs) {
  if (--cs->children == 0 && cs->zombie) contact_set_free(cs);
}

fcd_index fcd_contact_set_size(const fcd_contact_set *cs) {
  return fcd__contact_set_valid(cs) ? cs->n : -1;
}

int fcd_contact_set_dim(const fcd_contact_set *cs) {
  return fcd__contact_set_valid(cs) ? cs->dim : 0;
}

/* Validates and orthonormalizes (n, t); fills frame rows N, T(, B). */
static fcd_status make_frame(const fcd_contact_set *cs, const fcd_real *normal,
                             const fcd_real *tangent, fcd_real frame[3][3]) {
  const fcd_system *sys = cs->sys;
  int d = cs->dim;
  if (!normal || !tangent)
    return fcd__err(sys, FCD_E_INVALID_ARG, "contact %lld: %s is NULL", (long long)cs->n,
                    !normal ? "normal" : "tangent");
  fcd_real nn = 0, tt = 0, nt = 0;
  for (int k = 0; k < d; k++) {
    if (!isfinite(normal[k]) || !isfinite(tangent[k]))
      return fcd__err(sys, FCD_E_INVALID_ARG, "contact %lld: frame is not finite",
                      (long long)cs->n);
    nn += normal[k] * normal[k];
    tt += tangent[k] * tangent[k];
    nt += normal[k] * tangent[k];
  }
  if (nn == 0.0)
    return fcd__err(sys, FCD_E_INVALID_ARG, "contact %lld: the normal is zero",
                    (long long)cs->n);
  if (fabs(sqrt(nn) - 1.0) > FRAME_TOL)
    return fcd__err(sys, FCD_E_INVALID_ARG,
                    "contact %lld: the normal has norm %.9g, expected 1 (within %g)",
                    (long long)cs->n, sqrt(nn), FRAME_TOL);
  if (fabs(sqrt(tt) - 1.0) > FRAME_TOL)
    return fcd__err(sys, FCD_E_INVALID_ARG,
                    "contact %lld: the tangent has norm %.9g, expected 1 (within %g)",
                    (long long)cs->n, sqrt(tt), FRAME_TOL);
  if (fabs(nt) > FRAME_TOL)
    return fcd__err(sys, FCD_E_INVALID_ARG,
                    "contact %lld: normal and tangent are not orthogonal (n.t = %.3g)",
                    (long long)cs->n, nt);
  /* Gram-Schmidt: exact unit n, t orthogonal to it, b = n x t */
  fcd_real in = 1.0 / sqrt(nn);
  memset(frame, 0, 9 * sizeof(fcd_real));
  for (int k = 0; k < d; k++) frame[0][k] = normal[k] * in;
  fcd_real proj = 0;
  for (int k = 0; k < d; k++) proj += tangent[k] * frame[0][k];
  fcd_real tn = 0;
  for (int k = 0; k < d; k++) {
    frame[1][k] = tangent[k] - proj * frame[0][k];
    tn += frame[1][k] * frame[1][k];
  }
  tn = 1.0 / sqrt(tn);
  for (int k = 0; k < d; k++) frame[1][k] *= tn;
  if (d == 3) {
    frame[2][0] = frame[0][1] * frame[1][2] - frame[0][2] * frame[1][1];
    frame[2][1] = frame[0][2] * frame[1][0] - frame[0][0] * frame[1][2];
    frame[2][2] = frame[0][0] * frame[1][1] - frame[0][1] * frame[1][0];
  }
  return FCD_OK;
}

static fcd_status check_dofs(const fcd_contact_set *cs, const fcd_index *dofs,
                             const char *which, fcd_index *seen, int nseen) {
  const fcd_system *sys = cs->sys;
  if (!dofs)
    return fcd__err(sys, FCD_E_INVALID_ARG, "contact %lld: %s%sdofs are NULL",
                    (long long)cs->n, which, *which ? " " : "");
  for (int k = 0; k < cs->dim; k++) {
    fcd_index d = dofs[k];
    if (d < 0 || d >= sys->n)
      return fcd__err(sys, FCD_E_INVALID_ARG, "contact %lld: %s%sdof %lld outside [0, %lld)",
                      (long long)cs->n, which, *which ? " " : "", (long long)d,
                      (long long)sys->n);
    if (sys->is_fixed[d])
      return fcd__err(sys, FCD_E_INVALID_ARG,
                      "contact %lld: %s%sdof %lld is prescribed; a contact needs free dofs",
                      (long long)cs->n, which, *which ? " " : "", (long long)d);
    for (int j = 0; j < nseen + k; j++)
      if (seen[j] == d)
        return fcd__err(sys, FCD_E_INVALID_ARG, "contact %lld: dof %lld appears twice",
                        (long long)cs->n, (long long)d);
    seen[nseen + k] = d;
  }
  return FCD_OK;
}

/* room for one more contact (and its entries in the normal-row index) */
static fcd_status reserve_contact(fcd_contact_set *cs) {
  if (cs->n < cs->cap) return FCD_OK;
  fcd_index nc = cs->cap ? 2 * cs->cap : 16;
  fcd__contact *p = fcd__grow_array(cs->c, (size_t)cs->n, (size_t)nc, sizeof *p);
  if (!p) return fcd__err(cs->sys, FCD_E_NOMEM, "out of memory adding a contact");
  cs->c = p;
  uint64_t *hk = fcd__grow_array(cs->hkey, (size_t)cs->n, (size_t)nc, sizeof *hk);
  if (!hk) return fcd__err(cs->sys, FCD_E_NOMEM, "out of memory adding a contact");
  cs->hkey = hk;
  fcd_index *hn = fcd__grow_array(cs->hnext, (size_t)cs->n, (size_t)nc, sizeof *hn);
  if (!hn) return fcd__err(cs->sys, FCD_E_NOMEM, "out of memory adding a contact");
  cs->hnext = hn;
  cs->cap = nc;
  return FCD_OK;
}

/* ---- the normal-row index: one contact per constraint ----------------------------
 * Two contacts whose normal rows are the same up to a positive factor (a surface pair
 * given twice, identical rows, a rigid contact and rows on one node along one normal)
 * are one constraint twice: their reactions split arbitrarily, and the answer's
 * reactions were not unique. A contact is refused when its normal row repeats one of
 * the set's; rows in opposite directions (a node between two walls) are two
 * constraints and are kept. Contacts are indexed by the hash of their normal row's dofs
 * (sorted), and candidates compared by their normalized weights to 1e-9. */
typedef struct {
  fcd_index dof;
  fcd_real w;
} nrow_entry;

static int cmp_nrow(const void *a, const void *b) {
  fcd_index x = ((const nrow_entry *)a)->dof, y = ((const nrow_entry *)b)->dof;
  return (x > y) - (x < y);
}

/* the normal row of a contact given by frame (dofs_a, dofs_b or NULL, normal n) or by
 * its entries (dofs, w, len): nonzero entries sorted by dof, weights over their norm;
 * returns the count (out holds len, or 2 d for a frame) */
static fcd_index nrow_of(int d, const fcd_index *dofs_a, const fcd_index *dofs_b,
                         const fcd_real *n, const fcd_index *dofs, const fcd_real *w,
                         fcd_index len, nrow_entry *out) {
  fcd_index k = 0;
  if (dofs_a) {
    for (int a = 0; a < d; a++) {
      if (n[a] != 0) out[k++] = (nrow_entry){dofs_a[a], n[a]};
      if (dofs_b && n[a] != 0) out[k++] = (nrow_entry){dofs_b[a], -n[a]};
    }
  } else {
    for (fcd_index q = 0; q < len; q++)
      if (w[q] != 0) out[k++] = (nrow_entry){dofs[q], w[q]};
  }
  qsort(out, (size_t)k, sizeof *out, cmp_nrow);
  fcd_real big = 0, nn = 0;
  for (fcd_index q = 0; q < k; q++) big = fmax(big, fabs(out[q].w));
  for (fcd_index q = 0; q < k; q++) nn += (out[q].w / big) * (out[q].w / big);
  for (fcd_index q = 0; q < k; q++) out[q].w = out[q].w / big / sqrt(nn);
  return k;
}

static uint64_t nrow_key(const nrow_entry *e, fcd_index k) {
  uint64_t h = 1469598103934665603ull;
  for (fcd_index q = 0; q < k; q++) {
    h ^= (uint64_t)e[q].dof;
    h *= 1099511628211ull;
  }
  return h;
}

/* contact c's normal row into out (room for its row's length, or 6) */
static fcd_index nrow_of_contact(const fcd_contact_set *cs, fcd_index c, nrow_entry *out) {
  const fcd__contact *k = &cs->c[c];
  if (k->rows) {
    fcd_index q0 = cs->rptr[k->row0];
    return nrow_of(cs->dim, NULL, NULL, NULL, cs->rdof + q0, cs->rw + q0,
                   cs->rptr[k->row0 + 1] - q0, out);
  }
  return nrow_of(cs->dim, k->dofs_a, k->pair ? k->dofs_b : NULL, k->frame[0], NULL, NULL, 0,
                 out);
}

static fcd_index nrow_len(const fcd_contact_set *cs, fcd_index c) {
  const fcd__contact *k = &cs->c[c];
  return k->rows ? cs->rptr[k->row0 + 1] - cs->rptr[k->row0] : 2 * cs->dim;
}

static void index_insert(fcd_contact_set *cs, fcd_index c, uint64_t key) {
  fcd_index slot = (fcd_index)(key & (uint64_t)(cs->hcap - 1));
  cs->hkey[c] = key;
  cs->hnext[c] = cs->htab[slot] - 1;
  cs->htab[slot] = c + 1;
}

/* the table for the set's contacts plus one: rebuilt after a truncation or when it
 * fills past half */
static fcd_status index_ready(fcd_contact_set *cs) {
  if (cs->htab && cs->hcount == cs->n && 2 * (cs->n + 1) <= cs->hcap) return FCD_OK;
  fcd_index cap = 64;
  while (cap < 4 * (cs->n + 1)) cap *= 2;
  fcd_index *t = fcd__calloc((size_t)cap, sizeof *t);
  if (!t) return fcd__err(cs->sys, FCD_E_NOMEM, "out of memory indexing contacts");
  fcd__free(cs->htab);
  cs->htab = t;
  cs->hcap = cap;
  /* keys of indexed contacts are kept; contacts never indexed (none: every add indexes)
   * would be recomputed here */
  for (fcd_index c = 0; c < cs->n; c++) index_insert(cs, c, cs->hkey[c]);
  cs->hcount = cs->n;
  return FCD_OK;
}

/* FCD_OK and *key when the candidate's normal row e (k entries) repeats no contact's */
static fcd_status index_check(fcd_contact_set *cs, const nrow_entry *e, fcd_index k,
                              uint64_t *key) {
  FCD_TRY(index_ready(cs));
  *key = nrow_key(e, k);
  for (fcd_index c = cs->htab[*key & (uint64_t)(cs->hcap - 1)] - 1; c >= 0; c = cs->hnext[c]) {
    if (cs->hkey[c] != *key || nrow_len(cs, c) < k) continue;
    nrow_entry buf[64], *o = buf;
    fcd_index len = nrow_len(cs, c);
    if (len > 64 && !(o = fcd__malloc_array((size_t)len, sizeof *o)))
      return fcd__err(cs->sys, FCD_E_NOMEM, "out of memory comparing contacts");
    fcd_index ko = nrow_of_contact(cs, c, o);
    int same = ko == k;
    for (fcd_index q = 0; same && q < k; q++)
      same = o[q].dof == e[q].dof && fabs(o[q].w - e[q].w) <= 1e-9;
    if (o != buf) fcd__free(o);
    if (same)
      return fcd__err(cs->sys, FCD_E_INVALID_ARG, "contact %lld repeats contact %lld: the same "
                      "normal row (dofs and weights up to a positive factor) is one constraint "
                      "twice, whose reaction the two would share arbitrarily; give it once (a "
                      "surface pair, a segment or a node listed twice?)", (long long)cs->n,
                      (long long)c);
  }
  return FCD_OK;
}

static fcd_status check_gap_mu(const fcd_contact_set *cs, fcd_real gap, fcd_real mu) {
  if (!isfinite(gap) || gap < 0)
    return fcd__err(cs->sys, FCD_E_INVALID_ARG, "contact %lld: gap %g must be finite and >= 0",
                    (long long)cs->n, gap);
  if (!isfinite(mu) || mu < 0)
    return fcd__err(cs->sys, FCD_E_INVALID_ARG,
                    "contact %lld: friction coefficient mu = %g must be finite and >= 0",
                    (long long)cs->n, mu);
  return FCD_OK;
}

static fcd_status add_contact(fcd_contact_set *cs, const fcd_index *dofs_a,
                              const fcd_index *dofs_b, const fcd_real *normal,
                              const fcd_real *tangent, fcd_real gap, fcd_real mu,
                              fcd_index *id) {
  fcd__contact c;
  memset(&c, 0, sizeof c);
  fcd_index seen[6];
  FCD_TRY(check_dofs(cs, dofs_a, dofs_b ? "body A" : "", seen, 0));
  if (dofs_b) FCD_TRY(check_dofs(cs, dofs_b, "body B", seen, cs->dim));
  FCD_TRY(check_gap_mu(cs, gap, mu));
  FCD_TRY(make_frame(cs, normal, tangent, c.frame));
  FCD_TRY(reserve_contact(cs));
  nrow_entry e[6];
  uint64_t key;
  FCD_TRY(index_check(cs, e, nrow_of(cs->dim, dofs_a, dofs_b, c.frame[0], NULL, NULL, 0, e),
                      &key));
  c.pair = dofs_b != NULL;
  for (int k = 0; k < cs->dim; k++) {
    c.dofs_a[k] = dofs_a[k];
    c.dofs_b[k] = dofs_b ? dofs_b[k] : -1;
  }
  c.gap = gap;
  c.mu = mu;
  cs->c[cs->n] = c;
  count_uses(cs, &c, 1);
  index_insert(cs, cs->n, key);
  cs->hcount++;
  if (id) *id = cs->n;
  cs->n++;
  cs->version++;
  return FCD_OK;
}

/* the checks of a contact given by rows; on success *nnz is its number of entries */
static fcd_status check_rows(const fcd_contact_set *cs, const fcd_index *row_ptr,
                             const fcd_index *dofs, const fcd_real *weights, fcd_index *nnz) {
  const fcd_system *sys = cs->sys;
  long long id = (long long)cs->n;
  if (!row_ptr || !dofs || !weights)
    return fcd__err(sys, FCD_E_INVALID_ARG, "contact %lld: %s is NULL", id,
                    !row_ptr ? "row_ptr" : !dofs ? "dofs" : "weights");
  if (row_ptr[0] != 0)
    return fcd__err(sys, FCD_E_INVALID_ARG, "contact %lld: row_ptr[0] = %lld, not 0", id,
                    (long long)row_ptr[0]);
  for (int k = 0; k < cs->dim; k++) {
    if (row_ptr[k + 1] <= row_ptr[k] || row_ptr[k + 1] - row_ptr[k] > sys->n)
      return fcd__err(sys, FCD_E_INVALID_ARG, "contact %lld: row %d is empty or row_ptr "
                      "is not increasing (%lld, %lld)", id, k, (long long)row_ptr[k],
                      (long long)row_ptr[k + 1]);
    fcd_real big = 0;
    for (fcd_index q = row_ptr[k]; q < row_ptr[k + 1]; q++) {
      fcd_index d = dofs[q];
      if (d < 0 || d >= sys->n)
        return fcd__err(sys, FCD_E_INVALID_ARG, "contact %lld: row %d: dof %lld outside "
                        "[0, %lld)", id, k, (long long)d, (long long)sys->n);
      if (sys->is_fixed[d])
        return fcd__err(sys, FCD_E_INVALID_ARG, "contact %lld: row %d: dof %lld is "
                        "prescribed; a contact needs free dofs", id, k, (long long)d);
      if (!isfinite(weights[q]))
        return fcd__err(sys, FCD_E_INVALID_ARG, "contact %lld: row %d: weight of dof %lld "
                        "is not finite", id, k, (long long)d);
      for (fcd_index p = row_ptr[k]; p < q; p++)
        if (dofs[p] == d)
          return fcd__err(sys, FCD_E_INVALID_ARG, "contact %lld: row %d: dof %lld appears "
                          "twice", id, k, (long long)d);
      big = fmax(big, fabs(weights[q]));
    }
    if (!(big > 0))
      return fcd__err(sys, FCD_E_INVALID_ARG, "contact %lld: row %d has only zero weights",
                      id, k);
    /* W = H K^-1 H^T goes with the square of the weights: 1e-300 underflowed (and was
     * called "only zero weights"), 1e200 overflowed and the solve failed to converge */
    if (big < 1e-100 || big > 1e100)
      return fcd__err(sys, FCD_E_INVALID_ARG, "contact %lld: row %d's largest weight is %g, "
                      "outside [1e-100, 1e100] where the contact's operator (the weights "
                      "squared) keeps its range; scale the rows and the gap alike", id, k,
                      big);
  }
  /* the rows must be independent: N and T parallel made friction act along the normal */
  fcd_real G[3][3] = {{0}};
  for (int a = 0; a < cs->dim; a++)
    for (int b = 0; b <= a; b++) {
      fcd_real dotp = 0;
      for (fcd_index p = row_ptr[a]; p < row_ptr[a + 1]; p++)
        for (fcd_index q = row_ptr[b]; q < row_ptr[b + 1]; q++)
          if (dofs[p] == dofs[q]) dotp += weights[p] * weights[q];
      G[a][b] = G[b][a] = dotp;
    }
  for (int a = 0; a < cs->dim; a++)
    for (int b = 0; b < cs->dim; b++)
      if (a != b) G[a][b] /= sqrt(G[a][a] * G[b][b]);
  for (int a = 0; a < cs->dim; a++) G[a][a] = 1;
  static const char *const rname[3] = {"N", "T", "B"};
  for (int a = 0; a < cs->dim; a++)
    for (int b = 0; b < a; b++)
      if (fabs(G[a][b]) > 1 - 1e-9)
        return fcd__err(sys, FCD_E_INVALID_ARG, "contact %lld: rows %s and %s are parallel "
                        "(cosine %.12g): %s would act along %s", id, rname[b], rname[a],
                        G[a][b], a == 1 || b == 1 ? "friction" : "the second tangent",
                        b == 0 ? "the normal" : "the first tangent");
  if (cs->dim == 3) {
    fcd_real det = G[0][0] * (G[1][1] * G[2][2] - G[1][2] * G[2][1]) -
                   G[0][1] * (G[1][0] * G[2][2] - G[1][2] * G[2][0]) +
                   G[0][2] * (G[1][0] * G[2][1] - G[1][1] * G[2][0]);
    if (!(det > 1e-12))
      return fcd__err(sys, FCD_E_INVALID_ARG, "contact %lld: rows N, T and B are linearly "
                      "dependent (Gram determinant %.3g of the normalized rows): friction "
                      "needs two tangents independent of the normal", id, det);
  }
  *nnz = row_ptr[cs->dim];
  return FCD_OK;
}

fcd_status fcd_contact_set_add_rows(fcd_contact_set *cs, const fcd_index *row_ptr,
                                    const fcd_index *dofs, const fcd_real *weights,
                                    fcd_real gap, fcd_real mu, fcd_index *id) {
  CHECK_CS(cs);
  fcd_system *sys = cs->sys;
  int d = cs->dim;
  fcd_index nnz = 0;
  FCD_TRY(check_rows(cs, row_ptr, dofs, weights, &nnz));
  FCD_TRY(check_gap_mu(cs, gap, mu));
  FCD_TRY(reserve_contact(cs));
  uint64_t key;
  {
    nrow_entry buf[64], *e = buf;
    if (row_ptr[1] > 64 && !(e = fcd__malloc_array((size_t)row_ptr[1], sizeof *e)))
      return fcd__err(sys, FCD_E_NOMEM, "out of memory adding a contact");
    fcd_status st = index_check(cs, e, nrow_of(d, NULL, NULL, NULL, dofs, weights,
                                               row_ptr[1], e), &key);
    if (e != buf) fcd__free(e);
    if (st != FCD_OK) return st;
  }
  fcd_index e0 = cs->nrow ? cs->rptr[cs->nrow] : 0;
  if (cs->nrow + d + 1 > cs->rcap) {
    fcd_index nc = 2 * (cs->nrow + d + 1);
    fcd_index *p = fcd__grow_array(cs->rptr, (size_t)(cs->nrow ? cs->nrow + 1 : 0),
                                   (size_t)nc, sizeof *p);
    if (!p) return fcd__err(sys, FCD_E_NOMEM, "out of memory adding a contact");
    cs->rptr = p;
    cs->rcap = nc;
  }
  if (e0 + nnz > cs->ecap) {
    /* ecap stays at most both arrays' capacity whichever growth fails */
    fcd_index nc = 2 * (e0 + nnz);
    fcd_index *pd = fcd__grow_array(cs->rdof, (size_t)e0, (size_t)nc, sizeof *pd);
    if (!pd) return fcd__err(sys, FCD_E_NOMEM, "out of memory adding a contact");
    cs->rdof = pd;
    fcd_real *pw = fcd__grow_array(cs->rw, (size_t)e0, (size_t)nc, sizeof *pw);
    if (!pw) return fcd__err(sys, FCD_E_NOMEM, "out of memory adding a contact");
    cs->rw = pw;
    cs->ecap = nc;
  }
  if (cs->nrow == 0) cs->rptr[0] = 0;
  for (int k = 0; k < d; k++) cs->rptr[cs->nrow + k + 1] = e0 + row_ptr[k + 1];
  memcpy(cs->rdof + e0, dofs, (size_t)nnz * sizeof *dofs);
  memcpy(cs->rw + e0, weights, (size_t)nnz * sizeof *weights);
  fcd__contact c;
  memset(&c, 0, sizeof c);
  c.rows = 1;
  c.row0 = cs->nrow;
  for (int k = 0; k < 3; k++) c.dofs_a[k] = c.dofs_b[k] = -1;
  c.gap = gap;
  c.mu = mu;
  cs->nrow += d;
  cs->c[cs->n] = c;
  count_uses(cs, &c, 1);
  index_insert(cs, cs->n, key);
  cs->hcount++;
  if (id) *id = cs->n;
  cs->n++;
  cs->version++;
  return FCD_OK;
}

int fcd__contact_set_has_rows(const fcd_contact_set *cs) {
  for (fcd_index c = 0; c < cs->n; c++)
    if (cs->c[c].rows) return 1;
  return 0;
}

fcd_status fcd_contact_set_add_rigid(fcd_contact_set *cs, const fcd_index *dofs,
                                     const fcd_real *normal, const fcd_real *tangent,
                                     fcd_real gap, fcd_real mu, fcd_index *id) {
  CHECK_CS(cs);
  return add_contact(cs, dofs, NULL, normal, tangent, gap, mu, id);
}

fcd_status fcd_contact_set_add_pair(fcd_contact_set *cs, const fcd_index *dofs_a,
                                    const fcd_index *dofs_b, const fcd_real *normal,
                                    const fcd_real *tangent, fcd_real gap, fcd_real mu,
                                    fcd_index *id) {
  CHECK_CS(cs);
  if (!dofs_b)
    return fcd__err(cs->sys, FCD_E_INVALID_ARG, "contact %lld: body B dofs are NULL",
                    (long long)cs->n);
  return add_contact(cs, dofs_a, dofs_b, normal, tangent, gap, mu, id);
}

/* contacts from index n0 on are taken back (a batch that failed part way) */
void fcd__contact_set_truncate(fcd_contact_set *cs, fcd_index n0) {
  for (fcd_index i = n0; i < cs->n; i++) {
    count_uses(cs, &cs->c[i], -1);
    /* rows are appended in contact order: the first removed row contact's rows and all
     * after them go */
    if (cs->c[i].rows && cs->c[i].row0 < cs->nrow) cs->nrow = cs->c[i].row0;
  }
  if (cs->n > n0) {
    cs->n = n0;
    cs->version++;
  }
}

static fcd_status add_batch(fcd_contact_set *cs, fcd_index n, const fcd_index *dofs_a,
                            const fcd_index *dofs_b, const fcd_real *normals,
                            const fcd_real *tangents, const fcd_real *gaps,
                            const fcd_real *mus, const fcd_real *vg, fcd_index *first_id,
                            const char *what) {
  const fcd_system *sys = cs->sys;
  int d = cs->dim;
  if (n < 0)
    return fcd__err(sys, FCD_E_INVALID_ARG, "%s: count %lld is negative", what, (long long)n);
  if (n > 0 && (!dofs_a || !normals || !tangents || !mus))
    return fcd__err(sys, FCD_E_INVALID_ARG, "%s: %s is NULL", what,
                    !dofs_a ? (dofs_b ? "dofs_a" : "dofs") : !normals ? "normals"
                    : !tangents ? "tangents" : "mus");
  if ((uint64_t)n > (uint64_t)(INT64_MAX / 6))
    return fcd__err(sys, FCD_E_INVALID_ARG, "%s: count %lld is too large", what, (long long)n);
  fcd_index n0 = cs->n;
  for (fcd_index i = 0; i < n; i++) {
    fcd_status st = add_contact(cs, dofs_a + i * d, dofs_b ? dofs_b + i * d : NULL,
                                normals + i * d, tangents + i * d, gaps ? gaps[i] : 0.0,
                                mus[i], NULL);
    if (st == FCD_OK && vg)
      for (int k = 0; k < d - 1; k++) {
        if (!isfinite(vg[i * (d - 1) + k])) {
          st = fcd__err(sys, FCD_E_INVALID_ARG, "contact %lld: sliding velocity is not finite",
                        (long long)(cs->n - 1));
          break;
        }
        cs->c[cs->n - 1].vg[k] = vg[i * (d - 1) + k];
      }
    if (st != FCD_OK) {
      char msg[FCD_ERRMSG_CAP];
      snprintf(msg, sizeof msg, "%s", sys->h.err);
      fcd__contact_set_truncate(cs, n0);
      return fcd__err(sys, st, "%s: entry %lld of %lld: %s; none of the batch was added", what,
                      (long long)i, (long long)n, msg);
    }
  }
  if (first_id) *first_id = n0;
  return FCD_OK;
}

fcd_status fcd_contact_set_add_rigid_n(fcd_contact_set *cs, fcd_index n, const fcd_index *dofs,
                                       const fcd_real *normals, const fcd_real *tangents,
                                       const fcd_real *gaps, const fcd_real *mus,
                                       const fcd_real *vg, fcd_index *first_id) {
  CHECK_CS(cs);
  return add_batch(cs, n, dofs, NULL, normals, tangents, gaps, mus, vg, first_id,
                   "add_rigid_n");
}

fcd_status fcd_contact_set_add_pair_n(fcd_contact_set *cs, fcd_index n,
                                      const fcd_index *dofs_a, const fcd_index *dofs_b,
                                      const fcd_real *normals, const fcd_real *tangents,
                                      const fcd_real *gaps, const fcd_real *mus,
                                      const fcd_real *vg, fcd_index *first_id) {
  CHECK_CS(cs);
  if (n > 0 && !dofs_b)
    return fcd__err(cs->sys, FCD_E_INVALID_ARG, "add_pair_n: dofs_b is NULL");
  return add_batch(cs, n, dofs_a, dofs_b, normals, tangents, gaps, mus, vg, first_id,
                   "add_pair_n");
}

fcd_status fcd_contact_set_set_restitution(fcd_contact_set *cs, fcd_real e) {
  CHECK_CS(cs);
  if (!isfinite(e) || e < 0 || e > 1)
    return fcd__err(cs->sys, FCD_E_INVALID_ARG, "restitution e = %g must lie in [0, 1]", e);
  cs->restitution = e;
  return FCD_OK;
}

fcd_status fcd_contact_set_set_sliding_velocity(fcd_contact_set *cs, fcd_index id,
                                                const fcd_real *vg) {
  CHECK_CS(cs);
  if (id < 0 || id >= cs->n)
    return fcd__err(cs->sys, FCD_E_INVALID_ARG, "sliding velocity: contact %lld outside "
                    "[0, %lld)", (long long)id, (long long)cs->n);
  if (!vg) return fcd__err(cs->sys, FCD_E_INVALID_ARG, "sliding velocity: vg is NULL");
  for (int k = 0; k < cs->dim - 1; k++)
    if (!isfinite(vg[k]))
      return fcd__err(cs->sys, FCD_E_INVALID_ARG, "sliding velocity of contact %lld is not "
                      "finite", (long long)id);
  for (int k = 0; k < cs->dim - 1; k++) cs->c[id].vg[k] = vg[k];
  return FCD_OK;
}

fcd_status fcd_contact_set_set_friction(fcd_contact_set *cs, fcd_index id, fcd_real mu) {
  CHECK_CS(cs);
  if (id < 0 || id >= cs->n)
    return fcd__err(cs->sys, FCD_E_INVALID_ARG, "friction: contact %lld outside [0, %lld)",
                    (long long)id, (long long)cs->n);
  if (!isfinite(mu) || mu < 0)
    return fcd__err(cs->sys, FCD_E_INVALID_ARG, "friction coefficient %g of contact %lld "
                    "must be finite and >= 0", mu, (long long)id);
  /* every solve reads mu when it starts: nothing derived from it is cached */
  cs->c[id].mu = mu;
  return FCD_OK;
}

fcd_status fcd_contact_set_get(const fcd_contact_set *cs, fcd_index id, fcd_real *frame,
                               fcd_real *gap, fcd_real *mu, int *is_pair) {
  CHECK_CS(cs);
  if (id < 0 || id >= cs->n)
    return fcd__err(cs->sys, FCD_E_INVALID_ARG, "contact %lld outside [0, %lld)",
                    (long long)id, (long long)cs->n);
  const fcd__contact *c = &cs->c[id];
  if (frame && c->rows)
    return fcd__err(cs->sys, FCD_E_UNSUPPORTED, "contact %lld is given by rows: it has no "
                    "frame", (long long)id);
  if (frame)
    for (int i = 0; i < cs->dim; i++)
      for (int j = 0; j < cs->dim; j++) frame[i * cs->dim + j] = c->frame[i][j];
  if (gap) *gap = c->gap;
  if (mu) *mu = c->mu;
  if (is_pair) *is_pair = c->pair;
  return FCD_OK;
}

fcd_status fcd__contact_set_H(const fcd_contact_set *cs, fcd__csr *h) {
  int d = cs->dim;
  fcd_index rows = d * cs->n;
  fcd_index nnz = 0;
  for (fcd_index c = 0; c < cs->n; c++)
    nnz += cs->c[c].rows ? cs->rptr[cs->c[c].row0 + d] - cs->rptr[cs->c[c].row0]
                         : (cs->c[c].pair ? 2 : 1) * d * d;
  fcd_index *ri = fcd__malloc_array((size_t)nnz, sizeof *ri);
  fcd_index *ci = fcd__malloc_array((size_t)nnz, sizeof *ci);
  fcd_real *v = fcd__malloc_array((size_t)nnz, sizeof *v);
  fcd_status st = FCD_E_NOMEM;
  memset(h, 0, sizeof *h);
  if (!ri || !ci || !v) goto done;
  fcd_index t = 0;
  for (fcd_index c = 0; c < cs->n; c++) {
    const fcd__contact *k = &cs->c[c];
    if (k->rows) {
      for (int a = 0; a < d; a++)
        for (fcd_index q = cs->rptr[k->row0 + a]; q < cs->rptr[k->row0 + a + 1]; q++) {
          ri[t] = c * d + a;
          ci[t] = cs->rdof[q];
          v[t++] = cs->rw[q];
        }
      continue;
    }
    for (int a = 0; a < d; a++)
      for (int j = 0; j < d; j++) {
        ri[t] = c * d + a;
        ci[t] = k->dofs_a[j];
        v[t++] = k->frame[a][j];
        if (k->pair) {
          ri[t] = c * d + a;
          ci[t] = k->dofs_b[j];
          v[t++] = -k->frame[a][j];
        }
      }
  }
  /* The contact operator is rectangular (rows x ndofs): assemble on the larger square
   * index space and keep the rows. */
  fcd_index big = rows > cs->sys->n ? rows : cs->sys->n;
  fcd_index *rp = NULL, *col = NULL;
  fcd_real *val = NULL;
  if (fcd__coo_to_csr(big, t, ri, ci, v, &rp, &col, &val, NULL) != FCD_OK) goto done;
  h->n = rows; /* rows; the columns are the system's dofs */
  h->rowptr = rp;
  h->col = col;
  h->val = val;
  h->owned = 1;
  h->set = 1;
  st = FCD_OK;
done:
  fcd__free(ri);
  fcd__free(ci);
  fcd__free(v);
  if (st != FCD_OK) return fcd__err(cs->sys, st, "out of memory building the contact operator");
  return FCD_OK;
}

/* Rows this long or longer, all over the same consecutive dofs, go to BLAS (its call
 * costs more than a short row's loop) */
enum { H_DENSE_MIN = 64 };

static void operator_dense(fcd_contact_set *cs) {
  const fcd__csr *H = &cs->H;
  cs->H_d0 = cs->H_dlen = 0;
  if (H->n == 0) return;
  fcd_index len = H->rowptr[1] - H->rowptr[0], d0 = len > 0 ? H->col[0] : 0;
  if (len < H_DENSE_MIN) return;
  for (fcd_index i = 0; i < H->n; i++) {
    if (H->rowptr[i + 1] - H->rowptr[i] != len) return;
    for (fcd_index k = 0; k < len; k++)
      if (H->col[H->rowptr[i] + k] != d0 + k) return;
  }
  cs->H_d0 = d0;
  cs->H_dlen = len;
}

fcd_status fcd__contact_set_operator(fcd_contact_set *cs, const fcd__csr **h) {
  if (cs->H_version != cs->version) {
    fcd__csr fresh;
    FCD_TRY(fcd__contact_set_H(cs, &fresh));
    fcd__csr_clear(&cs->H);
    cs->H = fresh;
    cs->H_version = cs->version;
    operator_dense(cs);
  }
  *h = &cs->H;
  return FCD_OK;
}

fcd_status fcd_contact_set_local(const fcd_contact_set *cs, const fcd_real *x, fcd_real *y) {
  CHECK_CS(cs);
  if (!x || !y)
    return fcd__err(cs->sys, FCD_E_INVALID_ARG, "contact_set_local: %s is NULL",
                    !x ? "x" : "y");
  /* The cached operator is the set's derived state, not its value: a const set may
   * build it. */
  const fcd__csr *h;
  FCD_TRY(fcd__contact_set_operator((fcd_contact_set *)(uintptr_t)cs, &h));
  if (cs->H_dlen > 0) {
    fcd__la_gemv_rm(0, h->n, cs->H_dlen, 1.0, h->val, x + cs->H_d0, 0.0, y);
    return FCD_OK;
  }
  for (fcd_index i = 0; i < h->n; i++) {
    fcd_real s = 0;
    for (fcd_index k = h->rowptr[i]; k < h->rowptr[i + 1]; k++) s += h->val[k] * x[h->col[k]];
    y[i] = s;
  }
  return FCD_OK;
}

fcd_status fcd__contact_set_local2(const fcd_contact_set *cs, const fcd_real *x1,
                                   const fcd_real *x2, fcd_real *y1, fcd_real *y2) {
  const fcd__csr *h;
  FCD_TRY(fcd__contact_set_operator((fcd_contact_set *)(uintptr_t)cs, &h));
  fcd_index len = cs->H_dlen, m = h->n;
  if (len == 0) {
    /* sparse rows: both products in one pass, each sum in fcd_contact_set_local's order
     * (two calls were a tenth of a step of a model of a few dofs) */
    for (fcd_index i = 0; i < m; i++) {
      fcd_real s1 = 0, s2 = 0;
      for (fcd_index k = h->rowptr[i]; k < h->rowptr[i + 1]; k++) {
        s1 += h->val[k] * x1[h->col[k]];
        s2 += h->val[k] * x2[h->col[k]];
      }
      y1[i] = s1;
      y2[i] = s2;
    }
    return FCD_OK;
  }
  fcd_real *xy = fcd__malloc_array(2 * (size_t)(len + m), sizeof *xy);
  if (!xy) {
    FCD_TRY(fcd_contact_set_local(cs, x1, y1));
    return fcd_contact_set_local(cs, x2, y2);
  }
  /* H [x1 x2] as one product: H row-major is H' column-major */
  memcpy(xy, x1 + cs->H_d0, (size_t)len * sizeof *xy);
  memcpy(xy + len, x2 + cs->H_d0, (size_t)len * sizeof *xy);
  fcd_real *yy = xy + 2 * len;
  int info = fcd__la_gemm_tn(m, 2, len, h->val, xy, yy);
  if (info == 0) {
    memcpy(y1, yy, (size_t)m * sizeof *y1);
    memcpy(y2, yy + m, (size_t)m * sizeof *y2);
  }
  fcd__free(xy);
  if (info != 0) {
    FCD_TRY(fcd_contact_set_local(cs, x1, y1));
    return fcd_contact_set_local(cs, x2, y2);
  }
  return FCD_OK;
}

fcd_status fcd_contact_set_global(const fcd_contact_set *cs, const fcd_real *r, fcd_real *f) {
  CHECK_CS(cs);
  if (!r || !f)
    return fcd__err(cs->sys, FCD_E_INVALID_ARG, "contact_set_global: %s is NULL",
                    !r ? "r" : "f");
  const fcd__csr *h;
  FCD_TRY(fcd__contact_set_operator((fcd_contact_set *)(uintptr_t)cs, &h));
  memset(f, 0, (size_t)cs->sys->n * sizeof *f);
  if (cs->H_dlen > 0) {
    fcd__la_gemv_rm(1, h->n, cs->H_dlen, 1.0, h->val, r, 0.0, f + cs->H_d0);
    return FCD_OK;
  }
  for (fcd_index i = 0; i < h->n; i++)
    for (fcd_index k = h->rowptr[i]; k < h->rowptr[i + 1]; k++) f[h->col[k]] += h->val[k] * r[i];
  return FCD_OK;
}

/* Field by field (a struct's padding is not data): what two ranks must hold alike. */
uint64_t fcd__contact_set_hash(const fcd_contact_set *cs, uint64_t h) {
  h = fcd__hash(h, &cs->n, sizeof cs->n);
  h = fcd__hash(h, &cs->dim, sizeof cs->dim);
  for (fcd_index c = 0; c < cs->n; c++) {
    const fcd__contact *k = &cs->c[c];
    h = fcd__hash(h, k->dofs_a, sizeof k->dofs_a);
    h = fcd__hash(h, k->dofs_b, sizeof k->dofs_b);
    h = fcd__hash(h, k->frame, sizeof k->frame);
    h = fcd__hash(h, &k->gap, sizeof k->gap);
    h = fcd__hash(h, &k->mu, sizeof k->mu);
    h = fcd__hash(h, k->vg, sizeof k->vg);
  }
  if (cs->nrow > 0) {
    h = fcd__hash(h, cs->rptr, (size_t)(cs->nrow + 1) * sizeof *cs->rptr);
    h = fcd__hash(h, cs->rdof, (size_t)cs->rptr[cs->nrow] * sizeof *cs->rdof);
    h = fcd__hash(h, cs->rw, (size_t)cs->rptr[cs->nrow] * sizeof *cs->rw);
  }
  return h;
}

uint64_t fcd__contact_set_replica(const void *cs, uint64_t h) {
  return cs ? fcd__contact_set_hash(cs, h) : h;
}
