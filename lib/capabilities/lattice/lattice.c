/* Lattice spring models (fcd/fcd_lattice.h): the model, the generators of seed 001 and
 * the static checks. The stiffness used for the determinacy check is the truss
 * stiffness on the unconstrained coordinates, sum_i k_i d_i d_i^T with d_i the unit
 * direction of spring i on its two nodes (seed 001's B K B^T, eq. 46): positive
 * definite exactly when Ker(D) and Ker(R) meet only at 0. */
#include "lattice_private.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <float.h>
#include <string.h>

fcd_status fcd__lat_err(const fcd_lattice *lat, fcd_status st, const char *fmt, ...) {
  if (lat && lat->magic == FCD_LATTICE_MAGIC) {
    va_list ap;
    va_start(ap, fmt);
    fcd__verr_to(NULL, ((fcd_lattice *)(uintptr_t)lat)->err, FCD_ERRMSG_CAP, st, fmt, ap);
    va_end(ap);
  }
  return st;
}

fcd_status fcd_lattice_create(int dim, fcd_lattice **out) {
  if (!out) return FCD_E_INVALID_ARG;
  *out = NULL;
  if (dim != 2 && dim != 3) return FCD_E_INVALID_ARG;
  fcd_lattice *lat = fcd__calloc(1, sizeof *lat);
  if (!lat) return FCD_E_NOMEM;
  lat->dim = dim;
  lat->tol = 1e-12;
  lat->bound = 1e12;
  lat->max_iter = 5000;
  lat->magic = FCD_LATTICE_MAGIC;
  *out = lat;
  return FCD_OK;
}

static void drop_active_cache(fcd_lattice *lat) {
  for (int c = 0; c < 2; c++) {
    struct fcd__lat_cache *k = &lat->cache[c];
    fcd__factor_destroy(k->f);
    fcd__free(k->rows);
    fcd__free(k->g);
    k->f = NULL;
    k->rows = NULL;
    k->g = NULL;
    k->na = k->cap = 0;
    k->valid = 0;
  }
}

void fcd__lat_drop_solver(fcd_lattice *lat) {
  drop_active_cache(lat);
  fcd__factor_destroy(lat->kff);
  fcd_system_destroy(lat->sys);
  fcd_real **r[] = {&lat->kffval, &lat->dir, &lat->el0, &lat->el1, &lat->sig, &lat->a,
                    &lat->p, &lat->last_spr, &lat->last_aprev, &lat->vb,
                    &lat->uc, &lat->last_ff};
  for (size_t k = 0; k < sizeof r / sizeof *r; k++) {
    fcd__free(*r[k]);
    *r[k] = NULL;
  }
  fcd__free(lat->act);
  lat->act = NULL;
  lat->kff = NULL;
  lat->sys = NULL;
  lat->fp = NULL;
  lat->ready = 0;
  lat->have_state = 0;
  lat->have_step = 0;
}

void fcd_lattice_destroy(fcd_lattice *lat) {
  if (!fcd__lat_valid(lat)) return;
  fcd__lat_drop_solver(lat);
  fcd__free(lat->x);
  fcd__free(lat->sp);
  fcd__free(lat->q);
  fcd__free(lat->ld);
  lat->magic = 0;
  fcd__free(lat);
}

const char *fcd_lattice_last_error(const fcd_lattice *lat) {
  return fcd__lat_valid(lat) ? lat->err : "invalid lattice handle";
}

static int grow(void **p, fcd_index *cap, fcd_index need, size_t size) {
  if (need <= *cap) return 1;
  fcd_index nc = *cap ? 2 * *cap : 64;
  while (nc < need) nc *= 2;
  void *q = fcd__grow_array(*p, (size_t)*cap, (size_t)nc, size);
  if (!q) return 0;
  *p = q;
  *cap = nc;
  return 1;
}

fcd_status fcd_lattice_add_node(fcd_lattice *lat, const fcd_real *x, fcd_index *id) {
  CHECK_LAT(lat);
  if (!x) return fcd__lat_err(lat, FCD_E_INVALID_ARG, "add_node: x is NULL");
  for (int k = 0; k < lat->dim; k++)
    if (!isfinite(x[k]))
      return fcd__lat_err(lat, FCD_E_INVALID_ARG, "add_node: coordinate %d is not finite", k);
  fcd_index cap = lat->ncap;
  if (!grow((void **)&lat->x, &cap, (lat->nn + 1) * lat->dim, sizeof *lat->x))
    return fcd__lat_err(lat, FCD_E_NOMEM, "out of memory adding a node");
  lat->ncap = cap;
  fcd__lat_drop_solver(lat);
  memcpy(lat->x + lat->nn * lat->dim, x, (size_t)lat->dim * sizeof *x);
  if (id) *id = lat->nn;
  lat->nn++;
  return FCD_OK;
}

fcd_status fcd_lattice_move_node(fcd_lattice *lat, fcd_index node, const fcd_real *dx) {
  CHECK_LAT(lat);
  if (node < 0 || node >= lat->nn)
    return fcd__lat_err(lat, FCD_E_INVALID_ARG, "move_node: node %lld outside [0, %lld)",
                (long long)node, (long long)lat->nn);
  if (!dx) return fcd__lat_err(lat, FCD_E_INVALID_ARG, "move_node: dx is NULL");
  for (int k = 0; k < lat->dim; k++)
    if (!isfinite(dx[k]))
      return fcd__lat_err(lat, FCD_E_INVALID_ARG, "move_node: dx[%d] is not finite", k);
  /* no spring may collapse */
  for (fcd_index i = 0; i < lat->ns; i++) {
    const spring *p = &lat->sp[i];
    if (p->a != node && p->b != node) continue;
    fcd_real l2 = 0;
    for (int k = 0; k < lat->dim; k++) {
      fcd_real xa = lat->x[p->a * lat->dim + k] + (p->a == node ? dx[k] : 0);
      fcd_real xb = lat->x[p->b * lat->dim + k] + (p->b == node ? dx[k] : 0);
      l2 += (xa - xb) * (xa - xb);
    }
    if (!(l2 > 0))
      return fcd__lat_err(lat, FCD_E_INVALID_ARG, "move_node: spring %lld would join coincident "
                  "nodes", (long long)i);
  }
  fcd__lat_drop_solver(lat);
  for (int k = 0; k < lat->dim; k++) lat->x[node * lat->dim + k] += dx[k];
  return FCD_OK;
}

fcd_status fcd_lattice_add_spring(fcd_lattice *lat, fcd_index a, fcd_index b, fcd_real k,
                                  fcd_real c0, fcd_real s, fcd_real h, fcd_index *id) {
  CHECK_LAT(lat);
  if (a < 0 || a >= lat->nn || b < 0 || b >= lat->nn)
    return fcd__lat_err(lat, FCD_E_INVALID_ARG, "add_spring: nodes %lld, %lld outside [0, %lld)",
                (long long)a, (long long)b, (long long)lat->nn);
  if (a == b) return fcd__lat_err(lat, FCD_E_INVALID_ARG, "add_spring: both ends are node %lld", (long long)a);
  if (!isfinite(k) || k <= 0)
    return fcd__lat_err(lat, FCD_E_INVALID_ARG, "add_spring: stiffness k = %g must be > 0", k);
  if (!isfinite(c0) || c0 <= 0)
    return fcd__lat_err(lat, FCD_E_INVALID_ARG, "add_spring: yield c0 = %g must be > 0", c0);
  if (!isfinite(s) || s < 0)
    return fcd__lat_err(lat, FCD_E_INVALID_ARG, "add_spring: slope s = %g must be >= 0", s);
  if (!isfinite(h)) return fcd__lat_err(lat, FCD_E_INVALID_ARG, "add_spring: h is not finite");
  fcd_real l2 = 0;
  for (int q = 0; q < lat->dim; q++) {
    fcd_real d = lat->x[a * lat->dim + q] - lat->x[b * lat->dim + q];
    l2 += d * d;
  }
  if (!(l2 > 0))
    return fcd__lat_err(lat, FCD_E_INVALID_ARG, "add_spring: nodes %lld and %lld coincide",
                (long long)a, (long long)b);
  if (!grow((void **)&lat->sp, &lat->scap, lat->ns + 1, sizeof *lat->sp))
    return fcd__lat_err(lat, FCD_E_NOMEM, "out of memory adding a spring");
  fcd__lat_drop_solver(lat);
  spring *p = &lat->sp[lat->ns];
  p->a = a;
  p->b = b;
  p->k = k;
  p->c0 = c0;
  p->s = s;
  p->h = h;
  if (id) *id = lat->ns;
  lat->ns++;
  return FCD_OK;
}

fcd_status fcd_lattice_constrain(fcd_lattice *lat, fcd_index node, int axis, fcd_real value,
                                 fcd_real rate) {
  CHECK_LAT(lat);
  if (node < 0 || node >= lat->nn)
    return fcd__lat_err(lat, FCD_E_INVALID_ARG, "constrain: node %lld outside [0, %lld)",
                (long long)node, (long long)lat->nn);
  if (axis < 0 || axis >= lat->dim)
    return fcd__lat_err(lat, FCD_E_INVALID_ARG, "constrain: axis %d outside [0, %d)", axis, lat->dim);
  if (!isfinite(value) || !isfinite(rate))
    return fcd__lat_err(lat, FCD_E_INVALID_ARG, "constrain: value or rate is not finite");
  fcd_index dof = node * lat->dim + axis;
  for (fcd_index i = 0; i < lat->nq; i++)
    if (lat->q[i].dof == dof)
      return fcd__lat_err(lat, FCD_E_INVALID_ARG, "constrain: axis %d of node %lld is already "
                  "constrained", axis, (long long)node);
  for (fcd_index i = 0; i < lat->nl; i++)
    if (lat->ld[i].dof == dof)
      return fcd__lat_err(lat, FCD_E_INVALID_ARG, "constrain: axis %d of node %lld carries a force; "
                  "a coordinate is either loaded or constrained", axis, (long long)node);
  if (!grow((void **)&lat->q, &lat->qcap, lat->nq + 1, sizeof *lat->q))
    return fcd__lat_err(lat, FCD_E_NOMEM, "out of memory adding a constraint");
  fcd__lat_drop_solver(lat);
  lat->q[lat->nq].dof = dof;
  lat->q[lat->nq].value = value;
  lat->q[lat->nq].rate = rate;
  lat->nq++;
  return FCD_OK;
}

fcd_status fcd_lattice_load(fcd_lattice *lat, fcd_index node, int axis, fcd_real value,
                            fcd_real rate) {
  CHECK_LAT(lat);
  if (node < 0 || node >= lat->nn)
    return fcd__lat_err(lat, FCD_E_INVALID_ARG, "load: node %lld outside [0, %lld)", (long long)node,
                (long long)lat->nn);
  if (axis < 0 || axis >= lat->dim)
    return fcd__lat_err(lat, FCD_E_INVALID_ARG, "load: axis %d outside [0, %d)", axis, lat->dim);
  if (!isfinite(value) || !isfinite(rate))
    return fcd__lat_err(lat, FCD_E_INVALID_ARG, "load: value or rate is not finite");
  fcd_index dof = node * lat->dim + axis;
  for (fcd_index i = 0; i < lat->nq; i++)
    if (lat->q[i].dof == dof)
      return fcd__lat_err(lat, FCD_E_INVALID_ARG, "load: axis %d of node %lld is constrained; its "
                  "force would be a reaction", axis, (long long)node);
  if (!grow((void **)&lat->ld, &lat->lcap, lat->nl + 1, sizeof *lat->ld))
    return fcd__lat_err(lat, FCD_E_NOMEM, "out of memory adding a load");
  fcd__lat_drop_solver(lat);
  lat->ld[lat->nl].dof = dof;
  lat->ld[lat->nl].value = value;
  lat->ld[lat->nl].rate = rate;
  lat->nl++;
  return FCD_OK;
}

static fcd_status gen_check(int nx, int ny, fcd_real spacing, fcd_lattice **out) {
  if (!out) return FCD_E_INVALID_ARG;
  *out = NULL;
  if (nx < 2 || ny < 2 || nx > 100000 || ny > 100000 || !isfinite(spacing) || spacing <= 0)
    return FCD_E_INVALID_ARG;
  return FCD_OK;
}

fcd_status fcd_lattice_create_rect(int nx, int ny, fcd_real spacing, fcd_real k, fcd_real c0,
                                   fcd_real s, fcd_real h, fcd_real rate, fcd_lattice **out) {
  FCD_TRY(gen_check(nx, ny, spacing, out));
  fcd_lattice *lat;
  FCD_TRY(fcd_lattice_create(2, &lat));
  fcd_status st = FCD_OK;
  /* node id = ny i + j (column i, row j), at ((i - (nx-1)/2) spacing, j spacing) */
  for (int i = 0; i < nx && st == FCD_OK; i++)
    for (int j = 0; j < ny && st == FCD_OK; j++) {
      fcd_real x[2] = {(i - 0.5 * (nx - 1)) * spacing, j * spacing};
      st = fcd_lattice_add_node(lat, x, NULL);
    }
#define RID(i, j) ((fcd_index)(i) * ny + (j))
  for (int i = 0; i < nx && st == FCD_OK; i++)
    for (int j = 0; j < ny && st == FCD_OK; j++) {
      if (i + 1 < nx) st = fcd_lattice_add_spring(lat, RID(i, j), RID(i + 1, j), k, c0, s, h, NULL);
      if (st == FCD_OK && j + 1 < ny)
        st = fcd_lattice_add_spring(lat, RID(i, j), RID(i, j + 1), k, c0, s, h, NULL);
      if (st == FCD_OK && i + 1 < nx && j + 1 < ny)
        st = fcd_lattice_add_spring(lat, RID(i, j), RID(i + 1, j + 1), k, c0, s, h, NULL);
      if (st == FCD_OK && i > 0 && j + 1 < ny)
        st = fcd_lattice_add_spring(lat, RID(i, j), RID(i - 1, j + 1), k, c0, s, h, NULL);
    }
  for (int i = 0; i < nx && st == FCD_OK; i++) {
    st = fcd_lattice_constrain(lat, RID(i, 0), 1, 0.0, 0.0);
    if (st == FCD_OK) st = fcd_lattice_constrain(lat, RID(i, ny - 1), 1, 0.0, rate);
  }
  if (st == FCD_OK) st = fcd_lattice_constrain(lat, RID((nx + 1) / 2 - 1, 0), 0, 0.0, 0.0);
#undef RID
  if (st != FCD_OK) {
    fcd_lattice_destroy(lat);
    return st;
  }
  *out = lat;
  return FCD_OK;
}

fcd_status fcd_lattice_create_tri(int nx, int ny, fcd_real spacing, fcd_real k, fcd_real c0,
                                  fcd_real s, fcd_real h, fcd_real rate, fcd_lattice **out) {
  FCD_TRY(gen_check(nx, ny, spacing, out));
  fcd_lattice *lat;
  FCD_TRY(fcd_lattice_create(2, &lat));
  fcd_status st = FCD_OK;
  /* logical (i, j), j the row: the node exists iff i >= floor(j/2) and 2 i - j < 2 nx,
   * at ((i - j/2 - (nx-1)/2) spacing, j sqrt(3)/2 spacing) (the author's generator) */
  fcd_index *id = fcd__malloc_array((size_t)(nx + ny + 2) * (size_t)ny, sizeof *id);
  fcd_index W = nx + ny + 2;
  if (!id) {
    fcd_lattice_destroy(lat);
    return FCD_E_NOMEM;
  }
  for (fcd_index p = 0; p < W * ny; p++) id[p] = -1;
  for (int j = 0; j < ny && st == FCD_OK; j++)
    for (int i = j / 2; 2 * i - j < 2 * nx && st == FCD_OK; i++) {
      fcd_real x[2] = {(i - 0.5 * j - 0.5 * (nx - 1)) * spacing, j * sqrt(3.0) / 2 * spacing};
      st = fcd_lattice_add_node(lat, x, &id[(fcd_index)j * W + i]);
    }
#define TID(i, j) ((j) >= 0 && (j) < ny && (i) >= 0 && (i) < W ? id[(fcd_index)(j) * W + (i)] : -1)
  for (int j = 0; j < ny && st == FCD_OK; j++)
    for (int i = 0; i < W && st == FCD_OK; i++) {
      fcd_index a = TID(i, j);
      if (a < 0) continue;
      fcd_index r = TID(i + 1, j), u = TID(i, j + 1), ur = TID(i + 1, j + 1);
      if (r >= 0 && j > 0 && j < ny - 1) st = fcd_lattice_add_spring(lat, a, r, k, c0, s, h, NULL);
      if (st == FCD_OK && u >= 0) st = fcd_lattice_add_spring(lat, a, u, k, c0, s, h, NULL);
      if (st == FCD_OK && ur >= 0) st = fcd_lattice_add_spring(lat, a, ur, k, c0, s, h, NULL);
    }
  fcd_index first = -1;
  for (int i = 0; i < W && st == FCD_OK; i++) {
    fcd_index b = TID(i, 0), t = TID(i, ny - 1);
    if (b >= 0) {
      if (first < 0) first = b;
      st = fcd_lattice_constrain(lat, b, 1, 0.0, 0.0);
    }
    if (st == FCD_OK && t >= 0) st = fcd_lattice_constrain(lat, t, 1, 0.0, rate);
  }
  if (st == FCD_OK) st = fcd_lattice_constrain(lat, first, 0, 0.0, 0.0);
#undef TID
  fcd__free(id);
  if (st != FCD_OK) {
    fcd_lattice_destroy(lat);
    return st;
  }
  *out = lat;
  return FCD_OK;
}

/* Row j of the triangular lattice holds the logical columns [lo, hi] (its generator's
 * rule: i >= floor(j / 2) and 2 i - j < 2 nx). */
static void tri_row(int nx, fcd_index j, fcd_index *lo, fcd_index *hi) {
  *lo = j / 2;
  *hi = (2 * (fcd_index)nx + j - 1) / 2;
}

/* |[a, b] and [c, d]| for integer intervals */
static fcd_index overlap(fcd_index a, fcd_index b, fcd_index c, fcd_index d) {
  fcd_index lo = a > c ? a : c, hi = b < d ? b : d;
  return hi >= lo ? hi - lo + 1 : 0;
}

fcd_status fcd_lattice_generated_sizes(int kind, int nx, int ny, fcd_index *nodes,
                                       fcd_index *springs, fcd_index *constraints) {
  if ((kind != FCD_LAT_RECT && kind != FCD_LAT_TRI) || nx < 2 || ny < 2 || nx > 100000 ||
      ny > 100000)
    return FCD_E_INVALID_ARG;
  fcd_index n = 0, m = 0, q = 0, X = nx, Y = ny;
  if (kind == FCD_LAT_RECT) {
    /* create_rect: right, up and both upper diagonals; bottom and top rows in y, one x */
    n = X * Y;
    m = (X - 1) * Y + X * (Y - 1) + 2 * (X - 1) * (Y - 1);
    q = 2 * X + 1;
  } else {
    /* create_tri, row by row: right neighbours on the inner rows, then the neighbours
     * (i, j + 1) and (i + 1, j + 1) of the row above */
    for (fcd_index j = 0; j < Y; j++) {
      fcd_index lo, hi, lu, hu;
      tri_row(nx, j, &lo, &hi);
      n += hi - lo + 1;
      if (j > 0 && j < Y - 1) m += hi - lo;
      if (j + 1 < Y) {
        tri_row(nx, j + 1, &lu, &hu);
        m += overlap(lo, hi, lu, hu) + overlap(lo, hi, lu - 1, hu - 1);
      }
    }
    fcd_index l0, h0, l1, h1;
    tri_row(nx, 0, &l0, &h0);
    tri_row(nx, Y - 1, &l1, &h1);
    q = (h0 - l0 + 1) + (h1 - l1 + 1) + 1;
  }
  if (nodes) *nodes = n;
  if (springs) *springs = m;
  if (constraints) *constraints = q;
  return FCD_OK;
}

fcd_status fcd_lattice_sizes(const fcd_lattice *lat, fcd_index *nodes, fcd_index *springs,
                             fcd_index *constraints) {
  CHECK_LAT(lat);
  if (nodes) *nodes = lat->nn;
  if (springs) *springs = lat->ns;
  if (constraints) *constraints = lat->nq;
  return FCD_OK;
}

fcd_status fcd_lattice_get_node(const fcd_lattice *lat, fcd_index node, fcd_real *x) {
  CHECK_LAT(lat);
  if (node < 0 || node >= lat->nn)
    return fcd__lat_err(lat, FCD_E_INVALID_ARG, "get_node: node %lld outside [0, %lld)",
                (long long)node, (long long)lat->nn);
  if (x) memcpy(x, lat->x + node * lat->dim, (size_t)lat->dim * sizeof *x);
  return FCD_OK;
}

fcd_status fcd_lattice_get_constraint(const fcd_lattice *lat, fcd_index c, fcd_index *node,
                                     int *axis, fcd_real *value, fcd_real *rate) {
  CHECK_LAT(lat);
  if (c < 0 || c >= lat->nq)
    return fcd__lat_err(lat, FCD_E_INVALID_ARG, "get_constraint: %lld outside [0, %lld)", (long long)c,
                (long long)lat->nq);
  if (node) *node = lat->q[c].dof / lat->dim;
  if (axis) *axis = (int)(lat->q[c].dof % lat->dim);
  if (value) *value = lat->q[c].value;
  if (rate) *rate = lat->q[c].rate;
  return FCD_OK;
}

fcd_status fcd_lattice_get_spring(const fcd_lattice *lat, fcd_index i, fcd_index *a,
                                  fcd_index *b, fcd_real *k, fcd_real *c0, fcd_real *s,
                                  fcd_real *h) {
  CHECK_LAT(lat);
  if (i < 0 || i >= lat->ns)
    return fcd__lat_err(lat, FCD_E_INVALID_ARG, "get_spring: spring %lld outside [0, %lld)",
                (long long)i, (long long)lat->ns);
  const spring *p = &lat->sp[i];
  if (a) *a = p->a;
  if (b) *b = p->b;
  if (k) *k = p->k;
  if (c0) *c0 = p->c0;
  if (s) *s = p->s;
  if (h) *h = p->h;
  return FCD_OK;
}

/* the upper triangle of the springs' stiffness as triplets (the count returned), and
 * each spring's unit direction into dir when not NULL */
static size_t truss_triplets(const fcd_lattice *lat, fcd_index *ri, fcd_index *ci, fcd_real *v,
                             fcd_real *dir) {
  int d = lat->dim;
  size_t n = 0;
  for (fcd_index i = 0; i < lat->ns; i++) {
    const spring *p = &lat->sp[i];
    fcd_real dr[3], l = 0;
    for (int k = 0; k < d; k++) {
      dr[k] = lat->x[p->a * d + k] - lat->x[p->b * d + k];
      l += dr[k] * dr[k];
    }
    l = sqrt(l);
    for (int k = 0; k < d; k++) dr[k] /= l;
    if (dir) memcpy(dir + i * d, dr, (size_t)d * sizeof *dr);
    fcd_index nodes[2] = {p->a, p->b};
    for (int ea = 0; ea < 2; ea++)
      for (int eb = 0; eb < 2; eb++)
        for (int ka = 0; ka < d; ka++)
          for (int kb = 0; kb < d; kb++) {
            fcd_index r = nodes[ea] * d + ka, c = nodes[eb] * d + kb;
            if (r > c) continue;
            ri[n] = r;
            ci[n] = c;
            v[n++] = (ea == eb ? 1 : -1) * p->k * dr[ka] * dr[kb];
          }
  }
  return n;
}

/* the free dof a near-mechanism moves most: two steps of inverse iteration from a smooth
 * start (0 when memory is short) */
static fcd_index mechanism_free_dof(fcd__factor *f) {
  fcd_index nf = fcd__factor_size(f), worst = 0;
  fcd_real *xv = fcd__malloc_array((size_t)nf + 1, sizeof *xv);
  if (xv) {
    for (fcd_index i = 0; i < nf; i++) xv[i] = 1.0 + 0.1 * sin((double)i);
    for (int it = 0; it < 2; it++) {
      if (fcd__factor_solve(f, 1, xv, xv) != FCD_OK) break;
      fcd_real mx = 0;
      for (fcd_index i = 0; i < nf; i++) mx = fmax(mx, fabs(xv[i]));
      for (fcd_index i = 0; i < nf; i++) xv[i] /= mx > 0 ? mx : 1;
    }
    for (fcd_index i = 1; i < nf; i++)
      if (fabs(xv[i]) > fabs(xv[worst])) worst = i;
    fcd__free(xv);
  }
  return worst;
}

/* The truss stiffness of the springs with the constrained coordinates prescribed, in a
 * system of nd dofs, its free-dof factor (NULL when nothing is free) and, if dir is not
 * NULL, the unit direction of every spring (node a minus node b). Checks kinematic
 * determinacy: a mechanism is FCD_E_SINGULAR naming a coordinate it moves. */
fcd_status fcd__lat_truss(fcd_lattice *lat, fcd_system **sys_out, fcd__factor **f_out,
                          fcd_real *dir) {
  int d = lat->dim;
  fcd_index nd = lat->nn * d, m = lat->ns, q = lat->nq;
  *sys_out = NULL;
  *f_out = NULL;
  if (nd == 0) return fcd__lat_err(lat, FCD_E_STATE, "the lattice has no nodes");
  fcd_system *sys = NULL;
  fcd_status st = fcd_system_create(nd, &sys);
  if (st != FCD_OK) return fcd__lat_err(lat, st, "cannot create the stiffness system");
  size_t ne = (size_t)m * (size_t)(4 * d * d) + 1;
  fcd_index *ri = fcd__malloc_array(ne, sizeof *ri), *ci = fcd__malloc_array(ne, sizeof *ci);
  fcd_real *v = fcd__malloc_array(ne, sizeof *v);
  fcd_index *fx = fcd__malloc_array((size_t)q + 1, sizeof *fx);
  fcd__factor *f = NULL;
  if (!ri || !ci || !v || !fx) {
    st = fcd__lat_err(lat, FCD_E_NOMEM, "out of memory forming the lattice stiffness");
    goto done;
  }
  size_t n = truss_triplets(lat, ri, ci, v, dir);
  for (fcd_index i = 0; i < q; i++) fx[i] = lat->q[i].dof;
  if ((st = fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, (fcd_index)n, ri, ci, v,
                                      FCD_COO_UPPER)) != FCD_OK ||
      (st = fcd_system_fix_dofs(sys, q, fx, NULL)) != FCD_OK) {
    st = fcd__lat_err(lat, st, "%s", fcd_system_last_error(sys));
    goto done;
  }
  if (q == nd) goto done; /* every coordinate prescribed: nothing can move */
  if ((st = fcd__factor_create(sys, FCD__FACTOR_SPD, &f)) != FCD_OK) {
    st = fcd__lat_err(lat, st, "%s", fcd_system_last_error(sys));
    goto done;
  }
  st = fcd__factor_combination(f, 0, 0, 1);
  if (st == FCD_E_NOT_SPD) {
    fcd_index bad = fcd__factor_bad_column(f);
    st = fcd__lat_err(lat, FCD_E_SINGULAR,
              "the lattice is kinematically indeterminate: a mechanism moves axis %lld of node "
              "%lld without stretching any spring; constrain it or add springs",
              bad >= 0 ? (long long)(bad % d) : -1LL, bad >= 0 ? (long long)(bad / d) : -1LL);
    goto done;
  }
  if (st != FCD_OK) {
    st = fcd__lat_err(lat, st, "%s", fcd_system_last_error(sys));
    goto done;
  }
  /* A mechanism usually factors with tiny positive pivots (round-off), not a failure:
   * judge by the condition estimate, and name the coordinate a mechanism moves most
   * through two steps of inverse iteration. CHOLMOD's estimate is (min/max pivot)^2:
   * the 10 x 15 lattices of seed 001 give 0.03 to 0.09, a three-node mechanism 1.1e-16
   * (a pivot at round-off). */
  if (fcd__factor_rcond(f) < 1e3 * DBL_EPSILON) {
    fcd_index bad = sys->dof_of[mechanism_free_dof(f)];
    st = fcd__lat_err(lat, FCD_E_SINGULAR,
              "the lattice is kinematically indeterminate: a mechanism moves axis %lld of node "
              "%lld without stretching any spring; constrain it or add springs",
              (long long)(bad % d), (long long)(bad / d));
    goto done;
  }
done:
  fcd__free(ri);
  fcd__free(ci);
  fcd__free(v);
  fcd__free(fx);
  if (st != FCD_OK) {
    fcd__factor_destroy(f);
    fcd_system_destroy(sys);
    return st;
  }
  *sys_out = sys;
  *f_out = f;
  return FCD_OK;
}

fcd_status fcd_lattice_selfstress_dim(fcd_lattice *lat, fcd_index *dim) {
  CHECK_LAT(lat);
  if (!dim) return fcd__lat_err(lat, FCD_E_INVALID_ARG, "selfstress_dim: dim is NULL");
  fcd_system *sys;
  fcd__factor *f;
  FCD_TRY(fcd__lat_truss(lat, &sys, &f, NULL));
  fcd__factor_destroy(f);
  fcd_system_destroy(sys);
  fcd_index dv = lat->ns - (lat->nn * lat->dim - lat->nq);
  *dim = dv < 0 ? 0 : dv;
  return FCD_OK;
}
