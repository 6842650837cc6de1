/* The system object: matrices, Rayleigh damping, prescribed dofs, loads. */
#include "system.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

static const char *const matrix_names[3] = {"mass", "stiffness", "damping"};

const char *fcd__matrix_name(fcd_matrix_kind which) {
  return ((int)which >= 0 && (int)which < 3) ? matrix_names[which] : "unknown matrix";
}

/* A macro, not a function, so the compiler sees the bound before every mat[which]. */
#define CHECK_KIND(sys, which)                                                         \
  do {                                                                                 \
    if ((unsigned)(which) > 2u)                                                        \
      return fcd__err(sys, FCD_E_INVALID_ARG,                                          \
                      "matrix kind %d is not FCD_MASS, FCD_STIFFNESS or FCD_DAMPING",  \
                      (int)(which));                                                   \
  } while (0)

/* Rebuilds the free numbering from is_fixed. */
static void rebuild_free(fcd_system *sys) {
  fcd_index k = 0, f = 0;
  for (fcd_index i = 0; i < sys->n; i++) {
    if (sys->is_fixed[i]) {
      sys->free_of[i] = -1;
      sys->fixed_list[f++] = i;
    } else {
      sys->free_of[i] = k;
      sys->dof_of[k++] = i;
    }
  }
  sys->nfree = k;
  sys->nfixed = sys->n - k;
}

void fcd__free_pattern_clear(fcd__free_pattern *fp) {
  fcd__free(fp->rowptr);
  fcd__free(fp->col);
  for (int k = 0; k < 3; k++) {
    fcd__free(fp->map[k]);
    fcd__free(fp->mapt[k]);
  }
  memset(fp, 0, sizeof *fp);
}

void fcd__system_release_free_pattern(fcd_system *sys) { fcd__free_pattern_clear(&sys->fp); }

/* also for a system whose creation failed half way (zeroed fields are skipped) */
static void system_free(fcd_system *sys) {
  for (int k = 0; k < 3; k++) fcd__csr_clear(&sys->mat[k]);
  fcd__free_pattern_clear(&sys->fp);
  fcd__free(sys->is_fixed);
  fcd__free(sys->fixed_value);
  fcd__free(sys->free_of);
  fcd__free(sys->dof_of);
  fcd__free(sys->fixed_list);
  fcd__free(sys->scratch);
  fcd__free(sys->contact_uses);
  fcd__free(sys->load);
  fcd__free(sys->cband);
  fcd__free(sys->map_label);
  fcd__free(sys->map_dof);
  fcd__dist_free(sys->dist);
  sys->h.magic = 0;
  fcd__free(sys);
}

fcd_status fcd_system_create(fcd_index ndofs, fcd_system **out) {
  if (!out) return FCD_E_INVALID_ARG;
  *out = NULL;
  if (ndofs <= 0) return FCD_E_INVALID_ARG;
  if ((uint64_t)ndofs > SIZE_MAX / (2 * sizeof(fcd_index))) return FCD_E_NOMEM;
  /* The dof tables below are filled at once (FCD__BYTES_PER_DOF per dof): a size whose
   * tables alone exceed the memory is refused here, as out of memory, before anything is
   * allocated (a 74-byte header asking for 2^31 dofs did that). */
  if ((double)ndofs * FCD__BYTES_PER_DOF > fcd__memory_limit()) return FCD_E_NOMEM;
  fcd_system *sys = fcd__calloc(1, sizeof *sys);
  if (!sys) return FCD_E_NOMEM;
  sys->n = ndofs;
  sys->is_fixed = fcd__calloc((size_t)ndofs, 1);
  sys->fixed_value = fcd__calloc((size_t)ndofs, sizeof(fcd_real));
  sys->free_of = fcd__malloc_array((size_t)ndofs, sizeof(fcd_index));
  sys->dof_of = fcd__malloc_array((size_t)ndofs, sizeof(fcd_index));
  sys->fixed_list = fcd__malloc_array((size_t)ndofs, sizeof(fcd_index));
  sys->scratch = fcd__malloc_array((size_t)ndofs, sizeof(fcd_real));
  sys->contact_uses = fcd__calloc((size_t)ndofs, sizeof(fcd_index));
  if (!sys->is_fixed || !sys->fixed_value || !sys->free_of || !sys->dof_of ||
      !sys->fixed_list || !sys->scratch || !sys->contact_uses) {
    system_free(sys);
    return FCD_E_NOMEM;
  }
  sys->h.magic = FCD_SYSTEM_MAGIC;
  sys->band_hz = INFINITY;
  rebuild_free(sys);
  sys->pattern_version = 1;
  sys->value_version = 1;
  *out = sys;
  return FCD_OK;
}


void fcd_system_destroy(fcd_system *sys) {
  if (!fcd__system_valid(sys) || sys->zombie) return;
  if (sys->children > 0) {
    sys->zombie = 1;
    return;
  }
  system_free(sys);
}

void fcd__system_retain(fcd_system *sys) { sys->children++; }

fcd_status fcd__system_set_band(fcd_system *sys, fcd_real band_hz, const fcd_real *cband,
                                int cband_only) {
  fcd_real *copy = NULL;
  if (cband) {
    fcd_index nnz = sys->mat[FCD_DAMPING].set ? fcd__csr_nnz(&sys->mat[FCD_DAMPING]) : 0;
    copy = fcd__malloc_array((size_t)nnz + 1, sizeof *copy);
    if (!copy) return fcd__err(sys, FCD_E_NOMEM, "out of memory for the band's damping");
    memcpy(copy, cband, (size_t)nnz * sizeof *copy);
  }
  fcd__free(sys->cband);
  sys->cband = copy;
  sys->cband_only = copy ? cband_only : 0;
  sys->band_hz = band_hz;
  return FCD_OK;
}

void fcd__system_release(fcd_system *sys) {
  if (--sys->children == 0 && sys->zombie) system_free(sys);
}

const char *fcd_system_last_error(const fcd_system *sys) {
  if (!sys) return "no system (NULL handle)";
  if (sys->h.magic != FCD_SYSTEM_MAGIC) return "invalid system handle";
  return sys->h.err;
}

fcd_index fcd_system_ndofs(const fcd_system *sys) {
  return fcd__system_valid(sys) ? sys->n : 0;
}

/* Installs a fully built matrix; on success the old one is released. */
static void install_matrix(fcd_system *sys, fcd_matrix_kind which, fcd__csr *a) {
  fcd__csr_clear(&sys->mat[which]);
  if (which == FCD_DAMPING) { /* the band's part of another matrix means nothing now */
    fcd__free(sys->cband);
    sys->cband = NULL;
    sys->cband_only = 0;
  }
  fcd__csr_mark_dense(a);
  sys->mat[which] = *a;
  sys->pattern_version++;
  sys->value_version++;
}

fcd_status fcd_system_set_matrix_coo(fcd_system *sys, fcd_matrix_kind which,
                                     fcd_index nnz, const fcd_index *rows,
                                     const fcd_index *cols, const fcd_real *vals,
                                     unsigned flags) {
  FCD_CHECK_SYS(sys);
  CHECK_KIND(sys, which);
  const char *name = fcd__matrix_name(which);
  if (flags != FCD_COO_FULL && flags != FCD_COO_UPPER)
    return fcd__err(sys, FCD_E_INVALID_ARG, "%s: unknown storage flags 0x%x", name, flags);
  if (nnz < 0)
    return fcd__err(sys, FCD_E_INVALID_ARG, "%s: negative number of entries %lld", name,
                    (long long)nnz);
  if (nnz > 0 && (!rows || !cols || !vals))
    return fcd__err(sys, FCD_E_INVALID_ARG, "%s: %s array is NULL", name,
                    !rows ? "row" : (!cols ? "column" : "value"));
  for (fcd_index p = 0; p < nnz; p++) {
    fcd_index i = rows[p], j = cols[p];
    if (i < 0 || i >= sys->n || j < 0 || j >= sys->n)
      return fcd__err(sys, FCD_E_INVALID_ARG,
                      "%s: entry %lld has index (%lld, %lld) outside [0, %lld)", name,
                      (long long)p, (long long)i, (long long)j, (long long)sys->n);
    if (!isfinite(vals[p]))
      return fcd__err(sys, FCD_E_INVALID_ARG, "%s: entry %lld at (%lld, %lld) is not finite",
                      name, (long long)p, (long long)i, (long long)j);
    if (flags == FCD_COO_UPPER && i > j)
      return fcd__err(sys, FCD_E_INVALID_ARG,
                      "%s: entry %lld at (%lld, %lld) lies below the diagonal but the data "
                      "is declared FCD_COO_UPPER", name, (long long)p, (long long)i,
                      (long long)j);
  }
  FCD_TRY(fcd__rows_check_owned(sys, name, nnz, rows, cols));
  fcd__csr a = {0};
  a.n = sys->n;
  a.upper = flags == FCD_COO_UPPER;
  a.owned = 1;
  a.set = 1;
  if (fcd__coo_to_csr(sys->n, nnz, rows, cols, vals, &a.rowptr, &a.col, &a.val, NULL) !=
      FCD_OK)
    return fcd__err(sys, FCD_E_NOMEM, "%s: out of memory assembling %lld entries", name,
                    (long long)nnz);
  install_matrix(sys, which, &a);
  return FCD_OK;
}

/* A distributed system's CSR input: the rows this rank owns (row_end - row_begin + 1
 * row pointers), global columns. Stored as an ndofs-row CSR whose other rows are empty,
 * so that every kernel of the serial path applies to this rank's share unchanged. */
static fcd_status set_owned_csr(fcd_system *sys, fcd_matrix_kind which,
                                const fcd_index *row_ptr, const fcd_index *col_idx,
                                const fcd_real *vals, unsigned flags, fcd_ownership own) {
  const char *name = fcd__matrix_name(which);
  if (own != FCD_COPY)
    return fcd__err(sys, FCD_E_INVALID_ARG, "%s: a distributed system copies its matrices: "
                    "FCD_BORROW is for serial systems", name);
  fcd_index nnz, *rows;
  FCD_TRY(fcd__rows_owned_csr(sys, name, row_ptr, col_idx, vals, &nnz, &rows));
  fcd_status st = fcd_system_set_matrix_coo(sys, which, nnz, rows, col_idx, vals, flags);
  fcd__free(rows);
  return st;
}

fcd_status fcd_system_set_matrix_csr(fcd_system *sys, fcd_matrix_kind which,
                                     const fcd_index *row_ptr, const fcd_index *col_idx,
                                     const fcd_real *vals, unsigned flags,
                                     fcd_ownership own) {
  FCD_CHECK_SYS(sys);
  CHECK_KIND(sys, which);
  const char *name = fcd__matrix_name(which);
  if (flags != FCD_COO_FULL && flags != FCD_COO_UPPER)
    return fcd__err(sys, FCD_E_INVALID_ARG, "%s: unknown storage flags 0x%x", name, flags);
  if (own != FCD_COPY && own != FCD_BORROW)
    return fcd__err(sys, FCD_E_INVALID_ARG, "%s: ownership %d is neither FCD_COPY nor "
                    "FCD_BORROW", name, (int)own);
  if (sys->dist) return set_owned_csr(sys, which, row_ptr, col_idx, vals, flags, own);
  FCD_TRY(fcd__csr_validate(sys, name, sys->n, row_ptr, col_idx, vals,
                            flags == FCD_COO_UPPER));
  fcd_index nnz = row_ptr[sys->n];
  fcd__csr a = {0};
  a.n = sys->n;
  a.upper = flags == FCD_COO_UPPER;
  a.set = 1;
  if (own == FCD_BORROW) {
    a.rowptr = (fcd_index *)(uintptr_t)row_ptr;
    a.col = (fcd_index *)(uintptr_t)col_idx;
    a.val = (fcd_real *)(uintptr_t)vals;
    a.owned = 0;
  } else {
    a.owned = 1;
    a.rowptr = fcd__malloc_array((size_t)sys->n + 1, sizeof(fcd_index));
    a.col = fcd__malloc_array((size_t)nnz, sizeof(fcd_index));
    a.val = fcd__malloc_array((size_t)nnz, sizeof(fcd_real));
    if (!a.rowptr || !a.col || !a.val) {
      fcd__csr_clear(&a);
      return fcd__err(sys, FCD_E_NOMEM, "%s: out of memory copying %lld entries", name,
                      (long long)nnz);
    }
    memcpy(a.rowptr, row_ptr, ((size_t)sys->n + 1) * sizeof(fcd_index));
    if (nnz) {
      memcpy(a.col, col_idx, (size_t)nnz * sizeof(fcd_index));
      memcpy(a.val, vals, (size_t)nnz * sizeof(fcd_real));
    }
  }
  install_matrix(sys, which, &a);
  return FCD_OK;
}

fcd_status fcd_system_matrix_values_changed(fcd_system *sys, fcd_matrix_kind which) {
  FCD_CHECK_SYS(sys);
  CHECK_KIND(sys, which);
  fcd__csr *a = &sys->mat[which];
  if (!a->set)
    return fcd__err(sys, FCD_E_STATE, "%s matrix was never set", fcd__matrix_name(which));
  for (fcd_index p = 0; p < a->rowptr[a->n]; p++)
    if (!isfinite(a->val[p]))
      return fcd__err(sys, FCD_E_INVALID_ARG, "%s: stored value %lld is not finite",
                      fcd__matrix_name(which), (long long)p);
  fcd__csr_mark_dense(a); /* symmetry and |A| are the values' */
  sys->value_version++;
  return FCD_OK;
}

int fcd_system_has_matrix(const fcd_system *sys, fcd_matrix_kind which) {
  if (!fcd__system_valid(sys) || (int)which < 0 || (int)which > 2) return 0;
  return sys->mat[which].set;
}

fcd_status fcd_system_get_matrix_coo(const fcd_system *sys, fcd_matrix_kind which,
                                     fcd_index *rows, fcd_index *cols, fcd_real *vals) {
  FCD_CHECK_SYS(sys);
  CHECK_KIND(sys, which);
  if (!rows || !cols || !vals)
    return fcd__err(sys, FCD_E_INVALID_ARG, "get_matrix_coo: %s is NULL",
                    !rows ? "rows" : !cols ? "cols" : "vals");
  const fcd__csr *a = &sys->mat[which];
  if (!a->set)
    return fcd__err(sys, FCD_E_STATE, "%s matrix was never set", fcd__matrix_name(which));
  /* row i of a symmetric matrix stored by its upper triangle: the mirrored entries of
   * the rows above (columns < i, met in increasing order), then its own */
  fcd_index *next = NULL;
  if (a->upper) {
    next = fcd__calloc((size_t)a->n + 1, sizeof *next);
    if (!next) return fcd__err(sys, FCD_E_NOMEM, "get_matrix_coo: out of memory");
    for (fcd_index i = 0; i < a->n; i++)
      for (fcd_index p = a->rowptr[i]; p < a->rowptr[i + 1]; p++) {
        next[i + 1]++;
        if (a->col[p] != i) next[a->col[p] + 1]++;
      }
    for (fcd_index i = 0; i < a->n; i++) next[i + 1] += next[i];
  }
  fcd_index k = 0;
  for (fcd_index i = 0; i < a->n; i++)
    for (fcd_index p = a->rowptr[i]; p < a->rowptr[i + 1]; p++) {
      fcd_index c = a->col[p], at = a->upper ? next[i]++ : k;
      rows[at] = i;
      cols[at] = c;
      vals[at] = a->val[p];
      k++;
      if (a->upper && c != i) {
        fcd_index m = next[c]++;
        rows[m] = c;
        cols[m] = i;
        vals[m] = a->val[p];
      }
    }
  fcd__free(next);
  return FCD_OK;
}

fcd_status fcd_system_matrix_nnz(const fcd_system *sys, fcd_matrix_kind which,
                                 fcd_index *stored, fcd_index *full) {
  FCD_CHECK_SYS(sys);
  CHECK_KIND(sys, which);
  const fcd__csr *a = &sys->mat[which];
  fcd_index s = fcd__csr_nnz(a), f = s;
  if (a->set && a->upper) {
    fcd_index diag = 0;
    for (fcd_index i = 0; i < a->n; i++)
      if (a->rowptr[i + 1] > a->rowptr[i] && a->col[a->rowptr[i]] == i) diag++;
    f = 2 * s - diag;
  }
  if (stored) *stored = s;
  if (full) *full = f;
  return FCD_OK;
}

fcd_real fcd__system_asymmetry(fcd_system *sys, fcd_matrix_kind which) {
  if (sys->dist) return 0.0;
  fcd__rows_asymmetry_refresh(sys);
  return sys->asym[which];
}

/* The coefficient each stored matrix gets in a M + b (C + alpha M + beta K) + c K. */
static void combination_coefs(const fcd_system *sys, fcd_real a, fcd_real b, fcd_real c,
                              fcd_real coef[3]) {
  coef[FCD_MASS] = a + b * sys->ray_alpha;
  coef[FCD_DAMPING] = b;
  coef[FCD_STIFFNESS] = c + b * sys->ray_beta;
}

fcd_status fcd__system_require_symmetric(fcd_system *sys, fcd_real a, fcd_real b, fcd_real c) {
  fcd_real coef[3];
  combination_coefs(sys, a, b, c, coef);
  fcd__rows_asymmetry_refresh(sys);
  for (int k = 0; k < 3; k++) {
    if (coef[k] == 0 || !sys->mat[k].set) continue;
    fcd_real asym = sys->asym[k];
    if (!(asym <= FCD__ASYM_TOL))
      return fcd__err(sys, FCD_E_INVALID_ARG,
                      "%s matrix is not symmetric (relative asymmetry %.3g): this analysis "
                      "factors a symmetric operator by Cholesky, which reads one triangle",
                      fcd__matrix_name((fcd_matrix_kind)k), asym);
  }
  return FCD_OK;
}

int fcd__system_circulatory(fcd_system *sys) {
  if (!sys->mat[FCD_STIFFNESS].set) return 0;
  fcd__rows_asymmetry_refresh(sys);
  return !(sys->asym[FCD_STIFFNESS] <= FCD__ASYM_TOL);
}

fcd_status fcd__system_combination_symmetry(fcd_system *sys, fcd_real a, fcd_real b,
                                            fcd_real c, int *nonsym) {
  fcd_real coef[3];
  combination_coefs(sys, a, b, c, coef);
  fcd__rows_asymmetry_refresh(sys);
  *nonsym = 0;
  for (int k = 0; k < 3; k++) {
    if (coef[k] == 0 || !sys->mat[k].set || sys->asym[k] <= FCD__ASYM_TOL) continue;
    /* kinetic energy is v' M v: only a symmetric mass has a meaning (and the global
     * contact problems factor M alone by Cholesky) */
    if (sys->asym[k] != sys->asym[k])
      return fcd__err(sys, FCD_E_INVALID_ARG, "the asymmetry of the %s matrix is not a "
                      "number (a non-finite entry, or a failed exchange between ranks)",
                      fcd__matrix_name((fcd_matrix_kind)k));
    if (k == FCD_MASS)
      return fcd__err(sys, FCD_E_INVALID_ARG, "%s matrix is not symmetric (relative "
                      "asymmetry %.3g): a mass matrix must be", fcd__matrix_name(FCD_MASS),
                      sys->asym[k]);
    *nonsym = 1;
  }
  return FCD_OK;
}

fcd_status fcd_system_matrix_asymmetry(const fcd_system *sys, fcd_matrix_kind which,
                                       fcd_real *asym) {
  FCD_CHECK_SYS(sys);
  CHECK_KIND(sys, which);
  if (!asym) return fcd__err(sys, FCD_E_INVALID_ARG, "asymmetry: output pointer is NULL");
  if (!sys->mat[which].set)
    return fcd__err(sys, FCD_E_STATE, "%s matrix was never set", fcd__matrix_name(which));
  *asym = fcd__csr_asymmetry(&sys->mat[which]);
  return FCD_OK;
}

fcd_status fcd_system_apply(const fcd_system *sys, fcd_matrix_kind which,
                            const fcd_real *x, fcd_real *y) {
  FCD_CHECK_SYS(sys);
  CHECK_KIND(sys, which);
  if (!x || !y) return fcd__err(sys, FCD_E_INVALID_ARG, "apply: %s is NULL", !x ? "x" : "y");
  if (x == y) return fcd__err(sys, FCD_E_INVALID_ARG, "apply: x and y must not alias");
  /* each rank's rows (and their mirrors) make its share; the sum is A x on every rank */
  return fcd__rows_apply(sys, which, x, y);
}

fcd_status fcd_system_set_rayleigh(fcd_system *sys, fcd_real alpha, fcd_real beta) {
  FCD_CHECK_SYS(sys);
  if (!isfinite(alpha) || !isfinite(beta) || alpha < 0 || beta < 0)
    return fcd__err(sys, FCD_E_INVALID_ARG,
                    "Rayleigh coefficients must be finite and >= 0 (alpha=%g, beta=%g)",
                    alpha, beta);
  sys->ray_alpha = alpha;
  sys->ray_beta = beta;
  sys->value_version++;
  return FCD_OK;
}

fcd_status fcd_system_fix_dofs(fcd_system *sys, fcd_index n, const fcd_index *dofs,
                               const fcd_real *values) {
  FCD_CHECK_SYS(sys);
  if (n < 0)
    return fcd__err(sys, FCD_E_INVALID_ARG, "fix_dofs: negative count %lld", (long long)n);
  if (n > 0 && !dofs) return fcd__err(sys, FCD_E_INVALID_ARG, "fix_dofs: dofs is NULL");
  for (fcd_index k = 0; k < n; k++) {
    if (dofs[k] < 0 || dofs[k] >= sys->n)
      return fcd__err(sys, FCD_E_INVALID_ARG,
                      "fix_dofs: dof %lld (entry %lld) outside [0, %lld)",
                      (long long)dofs[k], (long long)k, (long long)sys->n);
    if (sys->contact_uses[dofs[k]] > 0 && !sys->is_fixed[dofs[k]])
      return fcd__err(sys, FCD_E_INVALID_ARG,
                      "fix_dofs: dof %lld carries a contact; a prescribed dof cannot be in "
                      "contact", (long long)dofs[k]);
    if (values && !isfinite(values[k]))
      return fcd__err(sys, FCD_E_INVALID_ARG, "fix_dofs: value of dof %lld is not finite",
                      (long long)dofs[k]);
  }
  int changed = 0;
  for (fcd_index k = 0; k < n; k++) {
    if (!sys->is_fixed[dofs[k]]) changed = 1;
    sys->is_fixed[dofs[k]] = 1;
    sys->fixed_value[dofs[k]] = values ? values[k] : 0.0;
  }
  if (changed) {
    rebuild_free(sys);
    sys->pattern_version++;
  }
  return FCD_OK;
}

fcd_status fcd_system_clear_fixed(fcd_system *sys) {
  FCD_CHECK_SYS(sys);
  if (sys->nfixed == 0) return FCD_OK;
  memset(sys->is_fixed, 0, (size_t)sys->n);
  memset(sys->fixed_value, 0, (size_t)sys->n * sizeof(fcd_real));
  rebuild_free(sys);
  sys->pattern_version++;
  return FCD_OK;
}

fcd_index fcd_system_num_fixed(const fcd_system *sys) {
  return fcd__system_valid(sys) ? sys->nfixed : -1;
}

fcd_status fcd_system_get_fixed(const fcd_system *sys, fcd_index *dofs, fcd_real *values) {
  FCD_CHECK_SYS(sys);
  for (fcd_index k = 0; k < sys->nfixed; k++) {
    if (dofs) dofs[k] = sys->fixed_list[k];
    if (values) values[k] = sys->fixed_value[sys->fixed_list[k]];
  }
  return FCD_OK;
}

fcd_status fcd_system_set_load(fcd_system *sys, const fcd_real *f) {
  FCD_CHECK_SYS(sys);
  if (!f) {
    fcd__free(sys->load);
    sys->load = NULL;
    return FCD_OK;
  }
  for (fcd_index i = 0; i < sys->n; i++)
    if (!isfinite(f[i]))
      return fcd__err(sys, FCD_E_INVALID_ARG, "set_load: entry %lld is not finite",
                      (long long)i);
  if (!sys->load) {
    sys->load = fcd__malloc_array((size_t)sys->n, sizeof(fcd_real));
    if (!sys->load) return fcd__err(sys, FCD_E_NOMEM, "set_load: out of memory");
  }
  memcpy(sys->load, f, (size_t)sys->n * sizeof(fcd_real));
  return FCD_OK;
}

fcd_status fcd_system_set_load_fn(fcd_system *sys, fcd_load_fn fn, void *user_data) {
  FCD_CHECK_SYS(sys);
  sys->load_fn = fn;
  sys->load_ud = fn ? user_data : NULL;
  return FCD_OK;
}

fcd_status fcd_system_set_prescribed_fn(fcd_system *sys, fcd_prescribed_fn fn,
                                        void *user_data) {
  FCD_CHECK_SYS(sys);
  sys->presc_fn = fn;
  sys->presc_ud = fn ? user_data : NULL;
  return FCD_OK;
}

fcd_status fcd_system_eval_load(fcd_system *sys, fcd_real t, fcd_real *f) {
  FCD_CHECK_SYS(sys);
  if (!f) return fcd__err(sys, FCD_E_INVALID_ARG, "eval_load: f is NULL");
  if (!isfinite(t)) return fcd__err(sys, FCD_E_INVALID_ARG, "eval_load: time is not finite");
  if (sys->load) memcpy(f, sys->load, (size_t)sys->n * sizeof *f);
  else memset(f, 0, (size_t)sys->n * sizeof *f);
  if (sys->load_fn) {
    int rc = sys->load_fn(sys->load_ud, t, sys->n, f);
    if (rc != 0)
      return fcd__err(sys, FCD_E_CALLBACK, "load callback returned %d at t=%g", rc, t);
    for (fcd_index i = 0; i < sys->n; i++)
      if (!isfinite(f[i]))
        return fcd__err(sys, FCD_E_CALLBACK,
                        "load callback produced a non-finite value at dof %lld, t=%g",
                        (long long)i, t);
  }
  return FCD_OK;
}

fcd_status fcd_system_support_reactions(fcd_system *sys, fcd_real t, const fcd_real *u,
                                        const fcd_real *v, const fcd_real *a, fcd_real *r) {
  FCD_CHECK_SYS(sys);
  if (!u) return fcd__err(sys, FCD_E_INVALID_ARG, "support_reactions: u is NULL");
  if (!r) return fcd__err(sys, FCD_E_INVALID_ARG, "support_reactions: r is NULL");
  if (!isfinite(t))
    return fcd__err(sys, FCD_E_INVALID_ARG, "support_reactions: time is not finite");
  fcd_index n = sys->n;
  static const char *const xname[3] = {"u", "v", "a"};
  const fcd_real *xin[3] = {u, v, a};
  for (int q = 0; q < 3; q++)
    for (fcd_index i = 0; xin[q] && i < n; i++)
      if (!isfinite(xin[q][i]))
        return fcd__err(sys, FCD_E_INVALID_ARG, "support_reactions: %s[%lld] is not finite",
                        xname[q], (long long)i);
  fcd_real *f = fcd__malloc_array((size_t)n, sizeof *f);
  fcd_real *y = fcd__malloc_array((size_t)n, sizeof *y);
  fcd_status st = FCD_OK;
  if (!f || !y) {
    st = fcd__err(sys, FCD_E_NOMEM, "out of memory in support_reactions");
    goto done;
  }
  /* R = M a + C v + K u - f(t): what the supports add to the load for the balance to
   * hold (no contact acts on a prescribed dof) */
  if ((st = fcd_system_eval_load(sys, t, f)) != FCD_OK) goto done;
  for (fcd_index i = 0; i < n; i++) f[i] = -f[i];
  const fcd_real *x[3] = {u, v, a};
  const fcd_matrix_kind k[3] = {FCD_STIFFNESS, FCD_DAMPING, FCD_MASS};
  for (int q = 0; q < 3; q++) {
    if (!x[q]) continue;
    if ((st = fcd_system_apply(sys, k[q], x[q], y)) != FCD_OK) goto done;
    for (fcd_index i = 0; i < n; i++) f[i] += y[i];
  }
  /* finite inputs can still overflow (u = 1e308 times K): nothing is written then */
  for (fcd_index j = 0; j < sys->nfixed; j++)
    if (!isfinite(f[sys->fixed_list[j]])) {
      st = fcd__err(sys, FCD_E_INVALID_ARG, "support_reactions: the reaction at dof %lld "
                    "overflows (the products M a + C v + K u - f exceed the range of a "
                    "double); r is unchanged", (long long)sys->fixed_list[j]);
      goto done;
    }
  for (fcd_index j = 0; j < sys->nfixed; j++) r[j] = f[sys->fixed_list[j]];
done:
  fcd__free(f);
  fcd__free(y);
  return st;
}

fcd_status fcd_system_eval_prescribed(fcd_system *sys, fcd_real t, fcd_real *u,
                                      fcd_real *v) {
  FCD_CHECK_SYS(sys);
  if (!u) return fcd__err(sys, FCD_E_INVALID_ARG, "eval_prescribed: u is NULL");
  if (!isfinite(t))
    return fcd__err(sys, FCD_E_INVALID_ARG, "eval_prescribed: time is not finite");
  /* no allocation: integrators call this every step */
  fcd_index nf = sys->nfixed;
  fcd_real *vbuf = v ? v : sys->scratch;
  fcd_system_get_fixed(sys, NULL, u);
  memset(vbuf, 0, (size_t)nf * sizeof *vbuf);
  if (sys->presc_fn && nf > 0) {
    int rc = sys->presc_fn(sys->presc_ud, t, nf, sys->fixed_list, u, vbuf);
    if (rc != 0)
      return fcd__err(sys, FCD_E_CALLBACK, "prescribed-displacement callback returned %d at "
                      "t=%g", rc, t);
    for (fcd_index k = 0; k < nf; k++)
      if (!isfinite(u[k]) || !isfinite(vbuf[k]))
        return fcd__err(sys, FCD_E_CALLBACK, "prescribed-displacement callback produced a "
                        "non-finite value at dof %lld, t=%g", (long long)sys->fixed_list[k], t);
  }
  return FCD_OK;
}
