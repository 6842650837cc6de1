/* Two independent analyses run concurrently from two threads give the same results as
 * one after the other (issue 9). Each thread owns its system: a chain of masses on
 * springs thrown onto a rough floor (CHOLMOD factor, Delassus cache, contact solver,
 * Moreau-Jean) and then the stability of a sliding state of the same chain on the
 * sparse path (PETSc/SLEPc shift-and-invert, which fcd serializes behind one
 * process-wide lock). Results are compared to 1e-12: the only shared resources are
 * PETSc (locked) and the BLAS. */
#include <fcd/fcd.h>

#include <pthread.h>

#include "../fcdtest.h"

enum { NM = 30, ND = 2 * NM };

typedef struct {
  int id;
  double u[ND], lre[8], lim[8];
  int status; /* fcd_status of the first failure, 0 if none */
} job;

static fcd_system *chain(int id, fcd_contact_set **cs, double mu) {
  /* masses at x = i, y = 0.1 above the floor, springs between neighbours in x and y */
  fcd_index r[4 * ND], c[4 * ND];
  double kv[4 * ND], mv[ND], f[ND];
  fcd_index mi[ND];
  int nz = 0;
  double k = 50.0 + 10.0 * id;
  for (int i = 0; i < ND; i++) {
    r[nz] = i;
    c[nz] = i;
    kv[nz++] = (i < 2 || i >= ND - 2 ? 1 : 2) * k + 1.0;
    if (i + 2 < ND) {
      r[nz] = i;
      c[nz] = i + 2;
      kv[nz++] = -k;
    }
    mi[i] = i;
    mv[i] = 1.0 + 0.01 * (i % 7);
    f[i] = i % 2 ? -9.81 * mv[i] : 0.0;
  }
  fcd_system *sys = NULL;
  fcd_system_create(ND, &sys);
  fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, nz, r, c, kv, FCD_COO_UPPER);
  fcd_system_set_matrix_coo(sys, FCD_MASS, ND, mi, mi, mv, FCD_COO_UPPER);
  fcd_system_set_load(sys, f);
  fcd_contact_set_create(sys, 2, cs);
  const double n[2] = {0, -1}, t[2] = {1, 0}, vg = 1.0;
  for (int i = 0; i < NM; i++) {
    const fcd_index d[2] = {2 * i, 2 * i + 1};
    fcd_contact_set_add_rigid(*cs, d, n, t, 0.1, mu, NULL);
    fcd_contact_set_set_sliding_velocity(*cs, i, &vg);
  }
  return sys;
}

static void *work(void *arg) {
  job *jb = arg;
  fcd_contact_set *cs;
  fcd_system *sys = chain(jb->id, &cs, 0.3);
  fcd_integrator *it = NULL;
  fcd_status st = fcd_integrator_create(sys, cs, FCD_SCHEME_MOREAU_JEAN, &it);
  if (st == FCD_OK) st = fcd_integrator_set_param(it, FCD_PARAM_STEP, 1e-3);
  if (st == FCD_OK) st = fcd_contact_set_set_restitution(cs, 0.5);
  double u0[ND] = {0}, v0[ND];
  for (int i = 0; i < ND; i++) v0[i] = i % 2 ? -1.0 : 0.5 + 0.1 * jb->id;
  if (st == FCD_OK) st = fcd_integrator_set_state(it, 0.0, u0, v0);
  if (st == FCD_OK) st = fcd_integrator_advance(it, 1.0);
  if (st == FCD_OK) st = fcd_integrator_get_state(it, NULL, jb->u, NULL);
  fcd_integrator_destroy(it);
  /* the stability of every mass sliding along -x, on the sparse (SLEPc) path */
  fcd_stability *sa = NULL;
  int status[NM];
  double slip[NM];
  for (int i = 0; i < NM; i++) {
    status[i] = FCD_CONTACT_SLIP;
    slip[i] = -1;
  }
  if (st == FCD_OK) st = fcd_stability_create(sys, cs, &sa);
  if (st == FCD_OK) st = fcd_stability_set_contact_state(sa, status, slip);
  if (st == FCD_OK) st = fcd_stability_set_param(sa, FCD_STAB_DENSE_MAX, 0);
  if (st == FCD_OK) st = fcd_stability_set_param(sa, FCD_STAB_NEV, 4);
  if (st == FCD_OK) st = fcd_stability_set_param(sa, FCD_STAB_TARGET_HZ, 1.0);
  if (st == FCD_OK) st = fcd_stability_set_param(sa, FCD_STAB_TOLERANCE, 1e-13);
  if (st == FCD_OK) st = fcd_stability_solve(sa, NULL);
  for (int i = 0; i < 8 && st == FCD_OK; i++) st = fcd_stability_get_eigenvalue(sa, i, &jb->lre[i], &jb->lim[i]);
  fcd_stability_destroy(sa);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
  jb->status = st;
  return NULL;
}

int main(void) {
  job seq[2] = {{.id = 0}, {.id = 1}}, par[2] = {{.id = 0}, {.id = 1}};
  work(&seq[0]);
  work(&seq[1]);
  CHECK_ST(seq[0].status, FCD_OK);
  CHECK_ST(seq[1].status, FCD_OK);
  pthread_t th[2];
  for (int k = 0; k < 2; k++) CHECK(pthread_create(&th[k], NULL, work, &par[k]) == 0);
  for (int k = 0; k < 2; k++) CHECK(pthread_join(th[k], NULL) == 0);
  double worst = 0, scale = 0;
  for (int k = 0; k < 2; k++) {
    CHECK_ST(par[k].status, FCD_OK);
    for (int i = 0; i < ND; i++) {
      worst = fmax(worst, fabs(par[k].u[i] - seq[k].u[i]));
      scale = fmax(scale, fabs(seq[k].u[i]));
    }
    for (int i = 0; i < 8; i++) {
      double m = fmax(1.0, hypot(seq[k].lre[i], seq[k].lim[i]));
      worst = fmax(worst, hypot(par[k].lre[i] - seq[k].lre[i], par[k].lim[i] - seq[k].lim[i]) / m * scale);
    }
  }
  /* the two jobs differ (their stiffness and throw), so equality is not trivial */
  double diff = 0;
  for (int i = 0; i < ND; i++) diff = fmax(diff, fabs(seq[0].u[i] - seq[1].u[i]));
  fprintf(stderr, "two threads: worst difference from the sequential runs %.1e (scale %.2e); "
          "the two jobs differ by %.2e\n", worst, scale, diff);
  CHECK(worst <= 1e-12 * scale);
  CHECK(diff > 1e-3 * scale);
  fcd_finalize();
  return fcdt_finish("test_threads");
}
