/* The step's linear algebra in the contacts' space, chosen once per configuration and
 * called through a table (fcd__cspace_ops), as SUNDIALS gives an integrator its linear
 * solver: the integrator's step drives it and never asks which way it is.
 *
 * A step with iteration matrix A (free dofs) needs the free velocity v_free = A^-1 b,
 * its values at the active contacts u_free = H_a v_free, W of the active set, and the
 * impulse's correction v1 = v_free + A^-1 H_a^T p. Three ways:
 *   plain:  two whole solves (free motion, correction); W gathered from the cache of
 *           every contact, or built for the step (X = A^-1 H_a^T) beyond the cache;
 *   halves: A = P' L L' P (a Cholesky factor) with the kept Y = L^-1 P H^T: z = L^-1 P b
 *           forward, u_free = Y' z, then v1 = P' L^-T (z + Y p) backward, one half solve
 *           each where the plain way makes two whole ones;
 *   schur:  a distributed factor with the contact dofs as its Schur set: v_free at those
 *           dofs by condensation, the correction by expansion (one forward and one
 *           backward sweep of the factor). */
#include "fc_private.h"
#include "lapack.h"

#include <string.h>

/* ---- plain ---- */

static fcd_status plain_free(fcd__cspace *s, const fcd_real *b, const fcd_real *z,
                             fcd_real *v1, int *v1_done) {
  fcd__full_to_free(s->sys, b, s->rf);
  FCD_TRY(fcd__factor_solve_free(s->fac, 1, s->rf, s->rf));
  /* v1 = v_free (prescribed entries included) */
  memcpy(v1, z, (size_t)s->sys->n * sizeof *v1);
  fcd__free_to_full(s->sys, s->rf, v1);
  *v1_done = 1;
  return FCD_OK;
}

static void plain_velocity(fcd__cspace *s, fcd_index na, const fcd_index *act,
                           const fcd_real *v1, fcd_real *locv) {
  (void)na, (void)act;
  fcd_contact_set_local(s->cs, v1, locv); /* u_free */
}

static fcd_status plain_correct(fcd__cspace *s, fcd_index na, const fcd_index *act,
                                const fcd_real *pl, const fcd_real *p, const fcd_real *z,
                                fcd_real *v1, int *v1_done) {
  (void)z, (void)v1_done;
  fcd_system *sys = s->sys;
  const fcd__csr *H = s->H;
  int d = s->cs->dim;
  fcd_index nf = sys->nfree, ma = na * d;
  fcd_status st = FCD_OK;
  if (s->cached && s->cs->H_dlen > 0) {
    /* dense rows: H^T p over every row at once by BLAS (p is zero off the active set),
     * which the certificate's balance reads too */
    FCD_TRY(fcd_contact_set_global(s->cs, p, s->htp));
    s->htp_ok = 1;
    fcd__full_to_free(sys, s->htp, s->xf);
    st = fcd__factor_solve_free(s->fac, 1, s->xf, s->xf);
    if (st == FCD_OK) fcd__free_add_full(sys, 1.0, s->xf, v1);
  } else if (s->cached) {
    memset(s->xf, 0, (size_t)nf * sizeof *s->xf);
    for (fcd_index a = 0; a < na; a++)
      for (int k = 0; k < d; k++) {
        fcd_index row = act[a] * d + k;
        for (fcd_index q = H->rowptr[row]; q < H->rowptr[row + 1]; q++)
          s->xf[sys->free_of[H->col[q]]] += H->val[q] * pl[a * d + k];
      }
    st = fcd__factor_solve_free(s->fac, 1, s->xf, s->xf);
    if (st == FCD_OK) fcd__free_add_full(sys, 1.0, s->xf, v1);
  } else {
    for (fcd_index j = 0; j < ma; j++)
      for (fcd_index k = 0; k < nf; k++) v1[sys->dof_of[k]] += s->X[j * nf + k] * pl[j];
  }
  return st;
}

static fcd_status plain_finish(fcd__cspace *s, const fcd_real *z, fcd_real *v1) {
  (void)s, (void)z, (void)v1; /* the free motion made v1 already */
  return FCD_OK;
}

static const fcd__cspace_ops plain_ops = {"plain", plain_free, plain_velocity, plain_correct,
                                          plain_finish};

/* ---- halves: a Cholesky factor's forward and backward halves around the contacts ---- */

static fcd_status halves_free(fcd__cspace *s, const fcd_real *b, const fcd_real *z,
                              fcd_real *v1, int *v1_done) {
  (void)z, (void)v1, (void)v1_done;
  fcd__full_to_free(s->sys, b, s->rf);
  return fcd__factor_half(s->fac, 0, s->rf, s->rf); /* z = L^-1 P b */
}

static void halves_velocity(fcd__cspace *s, fcd_index na, const fcd_index *act,
                            const fcd_real *v1, fcd_real *locv) {
  (void)v1;
  const fcd__wcache *c = s->wall;
  int d = s->cs->dim;
  fcd_index nf = s->sys->nfree;
  if (c->yd) {
    /* from the dense Y: all rows at once, or each active contact's d rows */
    if (na == s->cs->n)
      fcd__la_gemv_rm(0, na * d, nf, 1.0, c->yd, s->rf, 0.0, locv);
    else
      for (fcd_index a = 0; a < na; a++)
        fcd__la_gemv_rm(0, d, nf, 1.0, c->yd + act[a] * d * nf, s->rf, 0.0, locv + act[a] * d);
    return;
  }
  /* u_free = H v_free = Y' z, at the active contacts (the only ones read) */
  for (fcd_index a = 0; a < na; a++)
    for (int k = 0; k < d; k++) {
      fcd_index r = act[a] * d + k;
      if (c->ysx) {
        locv[r] = fcd__dot4(c->ysx + c->ysp[r], s->rf + c->ys0[r], c->ysp[r + 1] - c->ysp[r]);
        continue;
      }
      fcd_real acc = 0;
      for (fcd_index q = c->yp[r]; q < c->yp[r + 1]; q++) acc += c->yx[q] * s->rf[c->yi[q]];
      locv[r] = acc;
    }
}

/* v1 = P' L^-T g, g on the free dofs, the prescribed entries from z */
static fcd_status halves_back(fcd__cspace *s, fcd_real *g, const fcd_real *z, fcd_real *v1) {
  FCD_TRY(fcd__factor_half(s->fac, 1, g, g));
  memcpy(v1, z, (size_t)s->sys->n * sizeof *v1);
  fcd__free_to_full(s->sys, g, v1);
  return FCD_OK;
}

static fcd_status halves_correct(fcd__cspace *s, fcd_index na, const fcd_index *act,
                                 const fcd_real *pl, const fcd_real *p, const fcd_real *z,
                                 fcd_real *v1, int *v1_done) {
  (void)p;
  const fcd__wcache *c = s->wall;
  int d = s->cs->dim;
  fcd_index nf = s->sys->nfree, ma = na * d;
  /* v1 = P' L^-T (z + Y_a p) */
  memcpy(s->xf, s->rf, (size_t)nf * sizeof *s->xf);
  if (c->yd && na == s->cs->n) {
    fcd__la_gemv_rm(1, ma, nf, 1.0, c->yd, pl, 1.0, s->xf);
  } else if (c->yd) {
    for (fcd_index a = 0; a < na; a++)
      fcd__la_gemv_rm(1, d, nf, 1.0, c->yd + act[a] * d * nf, pl + a * d, 1.0, s->xf);
  } else {
    for (fcd_index a = 0; a < na; a++)
      for (int k = 0; k < d; k++) {
        fcd_index row = act[a] * d + k;
        fcd_real pk = pl[a * d + k];
        if (c->ysx) { /* a stretch: no indices */
          const fcd_real *restrict y = c->ysx + c->ysp[row];
          fcd_real *restrict x = s->xf + c->ys0[row];
          fcd_index len = c->ysp[row + 1] - c->ysp[row];
          for (fcd_index i = 0; i < len; i++) x[i] += y[i] * pk;
          continue;
        }
        for (fcd_index q = c->yp[row]; q < c->yp[row + 1]; q++) s->xf[c->yi[q]] += c->yx[q] * pk;
      }
  }
  FCD_TRY(halves_back(s, s->xf, z, v1));
  *v1_done = 1;
  return FCD_OK;
}

static fcd_status halves_finish(fcd__cspace *s, const fcd_real *z, fcd_real *v1) {
  return halves_back(s, s->rf, z, v1); /* v1 = P' L^-T z: no impulse */
}

static const fcd__cspace_ops halves_ops = {"halves", halves_free, halves_velocity,
                                           halves_correct, halves_finish};

/* ---- schur: a distributed factor's condensation and expansion ---- */

static fcd_status schur_free(fcd__cspace *s, const fcd_real *b, const fcd_real *z,
                             fcd_real *v1, int *v1_done) {
  (void)v1_done;
  fcd_system *sys = s->sys;
  fcd__full_to_free(sys, b, s->rf);
  /* v_free at the Schur set's dofs (the contacts read no other free dof) */
  FCD_TRY(fcd__factor_condense_free(s->fac, s->rf, s->xs));
  memcpy(v1, z, (size_t)sys->n * sizeof *v1);
  for (fcd_index a = 0; a < s->ns; a++) v1[sys->dof_of[s->sidx[a]]] = s->xs[a];
  return FCD_OK;
}

/* v1 = A^-1 (b + H_a^T p), the expansion of sg (H_a^T p on the Schur set's dofs) */
static fcd_status schur_expand(fcd__cspace *s, const fcd_real *z, fcd_real *v1) {
  FCD_TRY(fcd__factor_expand_free(s->fac, s->sg, s->xf));
  memcpy(v1, z, (size_t)s->sys->n * sizeof *v1);
  fcd__free_to_full(s->sys, s->xf, v1);
  return FCD_OK;
}

static fcd_status schur_correct(fcd__cspace *s, fcd_index na, const fcd_index *act,
                                const fcd_real *pl, const fcd_real *p, const fcd_real *z,
                                fcd_real *v1, int *v1_done) {
  (void)p;
  fcd_system *sys = s->sys;
  const fcd__csr *H = s->H;
  int d = s->cs->dim;
  memset(s->sg, 0, (size_t)s->ns * sizeof *s->sg);
  for (fcd_index a = 0; a < na; a++)
    for (int k = 0; k < d; k++) {
      fcd_index row = act[a] * d + k;
      for (fcd_index q = H->rowptr[row]; q < H->rowptr[row + 1]; q++) {
        fcd_index f = sys->free_of[H->col[q]];
        if (f >= 0) s->sg[s->spos[f]] += H->val[q] * pl[a * d + k];
      }
    }
  FCD_TRY(schur_expand(s, z, v1));
  *v1_done = 1;
  return FCD_OK;
}

static fcd_status schur_finish(fcd__cspace *s, const fcd_real *z, fcd_real *v1) {
  memset(s->sg, 0, (size_t)s->ns * sizeof *s->sg);
  return schur_expand(s, z, v1);
}

static const fcd__cspace_ops schur_ops = {"schur", schur_free, plain_velocity, schur_correct,
                                          schur_finish};

/* ---- the object ---- */

static fcd_status choose_way(fcd__cspace *s, const fcd__cspace_config *c);

void fcd__cspace_end_active_(fcd__cspace *s) {
  fcd__free(s->X);
  s->X = NULL;
}

void fcd__cspace_free(fcd__cspace *s) {
  fcd_real **r[] = {&s->rf, &s->xf, &s->xs, &s->sg, &s->X};
  for (size_t k = 0; k < sizeof r / sizeof *r; k++) {
    fcd__free(*r[k]);
    *r[k] = NULL;
  }
  fcd__free(s->sidx);
  fcd__free(s->spos);
  s->sidx = s->spos = NULL;
  s->nf = s->hz = 0;
  s->chosen = 0;
}

fcd_status fcd__cspace_reserve_(fcd__cspace *s, fcd_system *sys, fcd_index nz) {
  fcd_index nf = sys->nfree;
  s->chosen = 0; /* the Schur set is made again in arrays made again */
  if (!s->rf || s->nf != nf) {
    fcd__free(s->rf);
    fcd__free(s->xf);
    s->rf = fcd__malloc_array((size_t)nf + 1, sizeof *s->rf);
    s->xf = fcd__malloc_array((size_t)nf + 1, sizeof *s->xf);
    s->nf = s->rf && s->xf ? nf : 0;
    s->hz = 0; /* spos follows nf */
    if (!s->nf) return fcd__err(sys, FCD_E_NOMEM, "out of memory in an integrator step");
  }
  if (nz < 0 || (s->sidx && s->hz >= nz)) return FCD_OK;
  fcd__free(s->sidx);
  fcd__free(s->spos);
  fcd__free(s->xs);
  fcd__free(s->sg);
  s->hz = 0;
  s->sidx = fcd__malloc_array((size_t)nz + 1, sizeof *s->sidx);
  s->spos = fcd__malloc_array((size_t)nf + 1, sizeof *s->spos);
  s->xs = fcd__malloc_array((size_t)nz + 1, sizeof *s->xs);
  s->sg = fcd__malloc_array((size_t)nz + 1, sizeof *s->sg);
  if (!s->sidx || !s->spos || !s->xs || !s->sg) {
    fcd__free(s->sidx);
    fcd__free(s->spos);
    fcd__free(s->xs);
    fcd__free(s->sg);
    s->sidx = s->spos = NULL;
    s->xs = s->sg = NULL;
    return fcd__err(sys, FCD_E_NOMEM, "out of memory in an integrator step");
  }
  s->hz = nz;
  return FCD_OK;
}

fcd_status fcd__cspace_choose(fcd__cspace *s, const fcd__cspace_config *c) {
  fcd_system *sys = c->sys;
  fcd_index facts = fcd__factor_count(c->fac);
  uint64_t csver = c->cs ? c->cs->version : 0;
  s->htp = c->htp;
  s->htp_ok = 0;
  if (s->chosen && s->sys == sys && s->k_fac == c->fac && s->k_facts == facts &&
      s->k_csver == csver && s->k_pv == sys->pattern_version && s->k_H == c->H &&
      s->k_cached == c->cached && s->k_allow == c->allow_halves && s->k_diag == c->diagonal)
    return FCD_OK;
  s->chosen = 0;
  s->wall_ok = 0;
  FCD_TRY(choose_way(s, c));
  s->chosen = 1;
  s->k_fac = c->fac;
  s->k_facts = facts;
  s->k_csver = csver;
  s->k_pv = sys->pattern_version;
  s->k_H = c->H;
  s->k_cached = c->cached;
  s->k_allow = c->allow_halves;
  s->k_diag = c->diagonal;
  return FCD_OK;
}

static fcd_status choose_way(fcd__cspace *s, const fcd__cspace_config *c) {
  fcd_system *sys = c->sys;
  s->sys = sys;
  s->fac = c->fac;
  s->cs = c->cs;
  s->H = c->H;
  s->wall = c->wall;
  s->cached = c->cached;
  s->ops = &plain_ops;
  int spread = fcd__factor_spread(c->fac);
  /* a diagonal iteration matrix (a reduced model's modal coordinates) with dense contact
   * rows: its solves cost O(n), so the plain way (the free motion by one solve, its
   * contact velocities and the impulse's H^T p by one pass over H each) reads H where
   * the halves would read Y = L^-1 P H^T, as large, and H besides */
  if (!c->cached || !c->allow_halves) return FCD_OK;
  if (c->cs->H_dlen > 0 && c->diagonal && !spread) return FCD_OK;
  if (!spread && fcd__factor_get_kind(c->fac) == FCD__FACTOR_SPD) {
    s->ops = &halves_ops;
    return fcd__wcache_ensure_y(c->wall, sys, c->fac, c->cs, c->H);
  }
  /* every rank decides alike: the factor and the contacts are the same on all; the
   * Schur set is the one the factor was given (fcd__factor_schur_on_contacts derives it
   * the same way) */
  if (fcd__factor_halves_free(c->fac)) {
    fcd__contact_free_dofs(sys, c->H, s->sidx, s->spos, &s->ns);
    s->ops = &schur_ops;
  }
  return FCD_OK;
}

fcd_status fcd__cspace_begin_active_(fcd__cspace *s, fcd_system *sys, fcd_index ma) {
  fcd__cspace_end_active_(s);
  /* without the cache: X = A^-1 H_a^T (free rows) and W = H_a X for this step */
  s->X = fcd__calloc((size_t)sys->nfree * (size_t)ma, sizeof *s->X);
  if (!s->X)
    return fcd__err(sys, FCD_E_NOMEM, "out of memory for the %lld active contact directions "
                    "of an integrator step", (long long)ma);
  return FCD_OK;
}



fcd_status fcd__cspace_ensure_wall_(fcd__cspace *s) {
  FCD_TRY(fcd__wcache_ensure(s->wall, s->sys, s->fac, fcd__factor_solve_free, s->cs, s->H));
  s->wall_ok = 1; /* until the way is chosen again: the cache's keys are the choice's */
  return FCD_OK;
}

fcd_status fcd__cspace_delassus(fcd__cspace *s, fcd_index na, const fcd_index *act,
                                fcd_real *Wd) {
  int d = s->cs->dim;
  fcd_index m = s->cs->n * d, ma = na * d;
  if (!s->cached)
    return fcd__delassus_active(s->sys, s->fac, fcd__factor_solve_free, s->H, d, na, act, s->X,
                                Wd);
  for (fcd_index a = 0; a < na; a++)
    for (int k = 0; k < d; k++)
      for (fcd_index b = 0; b < na; b++)
        for (int l = 0; l < d; l++)
          Wd[(a * d + k) * ma + b * d + l] = s->wall->W[(act[a] * d + k) * m + act[b] * d + l];
  return FCD_OK;
}
