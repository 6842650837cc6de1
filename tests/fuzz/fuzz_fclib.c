/* fclib reader, structure-aware. The fclib library ends the process on malformed
 * datasets, so fcd validates every dataset fclib will touch first; that validation is
 * what is fuzzed here. Each input starts from a valid local or global problem written
 * by fcd and rewrites its datasets: deleted, replaced by integer or real arrays of
 * fuzzed length and values, or added where fcd expects none. (HDF5's own parser of
 * damaged bytes is HDF5's to fuzz; fcd only checks the signature before handing a file
 * to it.) Properties: a failure leaves a message and no problem; an accepted problem
 * has sane sizes and is solved (capped iterations) without fault. */
#include "fuzz_common.h"

#include <hdf5.h>

enum { NT = 20 };
static const char *targets[2][NT] = {
    {"/fclib_local/spacedim", "/fclib_local/vectors/mu", "/fclib_local/vectors/q",
     "/fclib_local/W/m", "/fclib_local/W/n", "/fclib_local/W/nz", "/fclib_local/W/nzmax",
     "/fclib_local/W/p", "/fclib_local/W/i", "/fclib_local/W/x", "/solution/r",
     "/solution/u", "/fclib_local/V/m", "/fclib_global/spacedim", "/fclib_local/W",
     "/solution", "/fclib_local/info/title", "/fclib_local/info/description",
     "/fclib_local/info", "/solution/v"},
    {"/fclib_global/spacedim", "/fclib_global/vectors/mu", "/fclib_global/vectors/f",
     "/fclib_global/vectors/w", "/fclib_global/M/m", "/fclib_global/M/nz",
     "/fclib_global/M/nzmax", "/fclib_global/M/p", "/fclib_global/M/i", "/fclib_global/M/x",
     "/fclib_global/H/n", "/fclib_global/H/nz", "/fclib_global/H/p", "/fclib_global/H/i",
     "/fclib_global/H/x", "/solution/r", "/fclib_global/info/title",
     "/fclib_global/info/math_info", "/fclib_global/G/m", "/fclib_global/H/m"}};

static const double reals[16] = {0, 1, -1, 0.5, 2, 3, 1e300, -1e300, NAN, INFINITY, -0.0,
                                 1e-300, 7, 100, 0.25, -2};

static uint8_t *base[2];
static size_t base_len[2];

static void make_bases(void) {
  /* local: 2 contacts in 3D; global: 4 dofs, 1 contact in 2D */
  const fcd_index wr[7] = {0, 2, 3, 4, 6, 7, 8}, wc[8] = {0, 1, 1, 2, 3, 4, 4, 5};
  const double wv[8] = {2, 0.1, 1, 1, 2, 0.2, 1, 1}, q[6] = {-1, 0.1, 0, -0.5, 0, 0.2},
               mu[2] = {0.3, 0.5};
  const fcd_index mr[5] = {0, 1, 2, 3, 4}, mc[4] = {0, 1, 2, 3}, hr[5] = {0, 1, 2, 2, 2},
                  hc[2] = {0, 1};
  const double mv[4] = {1, 1, 2, 2}, hv[2] = {1, 1}, f[4] = {0, -1, 0, 0}, w[2] = {0.1, 0},
               mu1[1] = {0.4};
  fcd_fc_problem *p[2] = {NULL, NULL};
  fcd_fc_problem_create_local(3, 2, wr, wc, wv, q, mu, &p[0], NULL, 0);
  fcd_fc_problem_create_global(2, 4, 1, mr, mc, mv, FCD_COO_UPPER, hr, hc, hv, f, w, mu1,
                               &p[1], NULL, 0);
  for (int k = 0; k < 2; k++) {
    double r[6] = {0};
    fcd_fc_problem_solve(p[k], r, NULL, NULL);
    const char *path = fz_path("base.hdf5");
    if (fcd_fc_problem_write_fclib(p[k], path, r) != FCD_OK) abort();
    FILE *fp = fopen(path, "rb");
    fseek(fp, 0, SEEK_END);
    base_len[k] = (size_t)ftell(fp);
    fseek(fp, 0, SEEK_SET);
    base[k] = malloc(base_len[k]);
    if (fread(base[k], 1, base_len[k], fp) != base_len[k]) abort();
    fclose(fp);
    remove(path);
    fcd_fc_problem_destroy(p[k]);
  }
}

/* Replaces (or creates) dataset @p name: kind 0 deletes it, 1 writes ints, 2 reals. */
static void rewrite(hid_t file, const char *name, int kind, const uint8_t *v, size_t n) {
  if (H5Lexists(file, name, H5P_DEFAULT) > 0) H5Ldelete(file, name, H5P_DEFAULT);
  if (kind == 0) return;
  hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
  H5Pset_create_intermediate_group(lcpl, 1);
  hsize_t dims[1] = {n};
  hid_t space = H5Screate_simple(1, dims, NULL);
  hid_t type = kind == 1 ? H5T_NATIVE_INT : H5T_NATIVE_DOUBLE;
  hid_t ds = H5Dcreate2(file, name, type, space, lcpl, H5P_DEFAULT, H5P_DEFAULT);
  if (ds >= 0 && n > 0) {
    if (kind == 1) {
      int buf[32];
      for (size_t i = 0; i < n; i++) buf[i] = (int)(int8_t)v[i] % 16; /* -15 .. 15 */
      H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
    } else {
      double buf[32];
      for (size_t i = 0; i < n; i++) buf[i] = reals[v[i] % 16];
      H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
    }
  }
  if (ds >= 0) H5Dclose(ds);
  H5Sclose(space);
  H5Pclose(lcpl);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!base[0]) make_bases();
  if (size < 1) return 0;
  int which = data[0] & 1;
  const char *path = fz_write(base[which], base_len[which], "in.hdf5");
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  hid_t file = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
  if (file < 0) abort();
  /* ops: [target byte][kind (2 bits) and length (5 bits)][length value bytes] */
  size_t k = 1;
  for (int ops = 0; ops < 8 && k + 2 <= size; ops++) {
    int target = data[k] % NT, kind = (data[k + 1] >> 6) % 3;
    size_t n = data[k + 1] & 31;
    k += 2;
    if (k + n > size) n = size - k;
    rewrite(file, targets[which][target], kind, data + k, n);
    k += n;
  }
  H5Fclose(file);
  char err[512] = "";
  fcd_fc_problem *p = (fcd_fc_problem *)&file; /* poison: must be reset to NULL */
  fcd_status st = fcd_fc_problem_read_fclib(path, &p, err, sizeof err);
  if (st != FCD_OK) {
    fz_need_message(err, "fcd_fc_problem_read_fclib");
    if (p != NULL) fz_fail("a failed read returned a problem", NULL);
    return 0;
  }
  int dim = fcd_fc_problem_dim(p);
  fcd_index nc = fcd_fc_problem_size(p);
  if ((dim != 2 && dim != 3) || nc < 0 || nc > 1000) fz_fail("accepted bad sizes", NULL);
  fcd_fc_problem_set_param(p, FCD_FC_PARAM_MAX_ITER, 50);
  double *r = calloc((size_t)(dim * nc + 1), sizeof *r);
  fcd_status ss = fcd_fc_problem_solve(p, r, NULL, NULL);
  if (ss != FCD_OK) fz_need_message(fcd_fc_problem_last_error(p), "fcd_fc_problem_solve");
  if (fcd_fc_problem_has_solution(p)) fcd_fc_problem_get_solution(p, r);
  free(r);
  fcd_fc_problem_destroy(p);
  return 0;
}
