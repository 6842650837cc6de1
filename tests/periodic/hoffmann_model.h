/* Hoffmann's minimal model of mode coupling with a unilateral contact (tests/periodic/
 * test_hoffmann.c explains it and its threshold), and two larger relatives built from
 * it: a chain of such oscillators coupled by springs between neighbouring masses, and
 * one oscillator carrying a damped elastic tail (a string of small masses), which adds
 * many linear dofs to one contact, as a reduced model does. Shared by the periodic and
 * dynamics suites. */
#ifndef FCD_TESTS_HOFFMANN_MODEL_H
#define FCD_TESTS_HOFFMANN_MODEL_H

#include <fcd/fcd.h>

#include <math.h>
#include <stdlib.h>

static const double HM_M0 = 1.0, HM_MC = 0.1, HM_K1 = 1.0, HM_K2 = 0.5, HM_K3 = 1.0;
static const double HM_BETA = 0.02, HM_VB = 1.0, HM_P = 1.0;
static const double HM_PI = 3.14159265358979323846;

/* the springs' stiffness on (x, y), k22 with the contact spring (alpha 30 and 150 deg) */
static inline void hm_springs(double *k11, double *k12, double *k22) {
  double a1 = HM_PI / 6, a2 = 5 * HM_PI / 6;
  *k11 = HM_K1 * cos(a1) * cos(a1) + HM_K2 * cos(a2) * cos(a2);
  *k12 = HM_K1 * cos(a1) * sin(a1) + HM_K2 * cos(a2) * sin(a2);
  *k22 = HM_K1 * sin(a1) * sin(a1) + HM_K2 * sin(a2) * sin(a2) + HM_K3;
}

typedef struct {
  fcd_index n, cap;
  fcd_index *r, *c;
  double *v;
} hm_coo;

static inline void hm_add(hm_coo *a, fcd_index i, fcd_index j, double v) {
  if (a->n >= a->cap) return;
  if (i > j) {
    fcd_index t = i;
    i = j;
    j = t;
  }
  a->r[a->n] = i;
  a->c[a->n] = j;
  a->v[a->n++] = v;
}

/* a spring k between dofs i and j (j < 0: to the ground) */
static inline void hm_spring(hm_coo *a, fcd_index i, fcd_index j, double k) {
  hm_add(a, i, i, k);
  if (j >= 0) {
    hm_add(a, j, j, k);
    hm_add(a, i, j, -k);
  }
}

/* nosc oscillators (dofs x, y, y_c each; neighbours' masses coupled by springs kc in x
 * and y), the first carrying a tail of ntail masses mb in x and y, linked by springs kb,
 * its far end held by one; every contact at mu on a belt at HM_VB; damping HM_BETA K */
static inline fcd_status hm_build(int nosc, double kc, int ntail, double mb, double kb,
                                  double mu, fcd_system **sys, fcd_contact_set **cs) {
  double k11, k12, k22;
  hm_springs(&k11, &k12, &k22);
  fcd_index n = 3 * nosc + 2 * ntail, cap = 16 * n + 16;
  hm_coo K = {0, cap, malloc(sizeof(fcd_index) * cap), malloc(sizeof(fcd_index) * cap),
              malloc(sizeof(double) * cap)};
  hm_coo M = {0, cap, malloc(sizeof(fcd_index) * cap), malloc(sizeof(fcd_index) * cap),
              malloc(sizeof(double) * cap)};
  double *f = calloc((size_t)n, sizeof *f);
  fcd_status st = K.r && K.c && K.v && M.r && M.c && M.v && f ? FCD_OK : FCD_E_NOMEM;
  for (int o = 0; o < nosc && st == FCD_OK; o++) {
    fcd_index x = 3 * o, y = x + 1, yc = x + 2;
    hm_add(&K, x, x, k11);
    hm_add(&K, x, y, k12);
    hm_add(&K, y, y, k22);
    hm_add(&K, y, yc, -HM_K3);
    hm_add(&K, yc, yc, HM_K3);
    hm_add(&M, x, x, HM_M0 + HM_MC);
    hm_add(&M, y, y, HM_M0);
    hm_add(&M, yc, yc, HM_MC);
    f[y] = HM_P;
    if (o + 1 < nosc) {
      hm_spring(&K, x, x + 3, kc);
      hm_spring(&K, y, y + 3, kc);
    }
  }
  for (int t = 0; t < ntail && st == FCD_OK; t++) {
    fcd_index a = 3 * nosc + 2 * t, prev_x = t ? a - 2 : 0, prev_y = t ? a - 1 : 1;
    hm_add(&M, a, a, mb);
    hm_add(&M, a + 1, a + 1, mb);
    hm_spring(&K, a, prev_x, kb);
    hm_spring(&K, a + 1, prev_y, kb);
    if (t == ntail - 1) {
      hm_spring(&K, a, -1, kb);
      hm_spring(&K, a + 1, -1, kb);
    }
  }
  *cs = NULL;
  *sys = NULL;
  if (st == FCD_OK) st = fcd_system_create(n, sys);
  if (st == FCD_OK) st = fcd_system_set_matrix_coo(*sys, FCD_STIFFNESS, K.n, K.r, K.c, K.v, FCD_COO_UPPER);
  if (st == FCD_OK) st = fcd_system_set_matrix_coo(*sys, FCD_MASS, M.n, M.r, M.c, M.v, FCD_COO_UPPER);
  if (st == FCD_OK) st = fcd_system_set_rayleigh(*sys, 0.0, HM_BETA);
  if (st == FCD_OK) st = fcd_system_set_load(*sys, f);
  if (st == FCD_OK) st = fcd_contact_set_create(*sys, 2, cs);
  for (int o = 0; o < nosc && st == FCD_OK; o++) {
    const fcd_index dofs[2] = {3 * o, 3 * o + 2};
    const double nrm[2] = {0, 1}, tan[2] = {1, 0}, vg = HM_VB;
    st = fcd_contact_set_add_rigid(*cs, dofs, nrm, tan, 0.0, mu, NULL);
    if (st == FCD_OK) st = fcd_contact_set_set_sliding_velocity(*cs, o, &vg);
  }
  free(K.r); free(K.c); free(K.v); free(M.r); free(M.c); free(M.v); free(f);
  return st;
}

#endif
