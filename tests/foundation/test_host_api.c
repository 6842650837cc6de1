/* Issue 20, defect 8: what a host with many contacts and supports needs.
 * - fcd_contact_set_add_rigid_n / _add_pair_n give the same set as one call per contact
 *   (frames, gaps, mu, sliding velocity), and a batch with one bad entry adds nothing
 *   (the set's size and its dofs' bookkeeping unchanged, the message names the entry).
 * - fcd_system_support_reactions against closed forms: two springs k in series, held
 *   at dof 0 and pulled by F at dof 2, are in equilibrium at u = (0, F/k, 2F/k), and
 *   the support pulls back with R_0 = -F. With inertia and damping, R = M a + C v +
 *   K u - f at the held dof, written out term by term. */
#include <fcd/fcd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../fcdtest.h"

/* the process' resident bytes (Linux), -1 elsewhere */
static double resident(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  unsigned long long size = 0, res = 0;
  int ok = f && fscanf(f, "%llu %llu", &size, &res) == 2;
  if (f) fclose(f);
  return ok ? (double)res * (double)sysconf(_SC_PAGESIZE) : -1;
}

/* A host linking fcd keeps the C library's way with memory: SuperLU_DIST, loaded with
 * PETSc, turns off mapped allocations and heap trimming for the whole process from its
 * constructor, and a freed 256 MiB array then stayed resident (the brake at a million
 * dofs held 19 GiB after its factorization, most of it freed long before). fcd's
 * constructor puts glibc's behaviour back: the array's pages go back when it is freed. */
static void test_freed_memory_returns(void) {
  double r0 = resident();
  if (r0 < 0) return; /* not Linux */
  size_t n = (size_t)256 << 20;
  char *volatile p = malloc(n);
  CHECK(p != NULL);
  if (!p) return;
  memset(p, 1, n);
  double r1 = resident();
  free(p);
  double r2 = resident();
  printf("freed memory: resident %.0f MiB, %.0f with 256 MiB touched, %.0f once freed\n",
         r0 / 1048576.0, r1 / 1048576.0, r2 / 1048576.0);
  CHECK(r1 - r0 > 200.0 * 1048576.0);
  CHECK(r2 - r0 < 32.0 * 1048576.0);
}

static void test_batch(void) {
  fcd_system *sys;
  CHECK_ST(fcd_system_create(12, &sys), FCD_OK);
  fcd_contact_set *one, *many;
  CHECK_ST(fcd_contact_set_create(sys, 3, &one), FCD_OK);
  CHECK_ST(fcd_contact_set_create(sys, 3, &many), FCD_OK);
  enum { NB = 4 };
  fcd_index dofs[NB * 3];
  double nrm[NB * 3], tan[NB * 3], gaps[NB], mus[NB], vg[NB * 2];
  for (int i = 0; i < NB; i++) {
    double a = 0.3 * i;
    for (int k = 0; k < 3; k++) dofs[3 * i + k] = 3 * i + k;
    nrm[3 * i] = 0, nrm[3 * i + 1] = sin(a), nrm[3 * i + 2] = -cos(a);
    tan[3 * i] = 1, tan[3 * i + 1] = 0, tan[3 * i + 2] = 0;
    gaps[i] = 0.01 * i;
    mus[i] = 0.1 + 0.2 * i;
    vg[2 * i] = 1.5 * i, vg[2 * i + 1] = -0.5;
    CHECK_ST(fcd_contact_set_add_rigid(one, dofs + 3 * i, nrm + 3 * i, tan + 3 * i, gaps[i],
                                       mus[i], NULL), FCD_OK);
    CHECK_ST(fcd_contact_set_set_sliding_velocity(one, i, vg + 2 * i), FCD_OK);
  }
  fcd_index first = -1;
  CHECK_ST(fcd_contact_set_add_rigid_n(many, NB, dofs, nrm, tan, gaps, mus, vg, &first), FCD_OK);
  CHECK(first == 0 && fcd_contact_set_size(many) == NB);
  for (int i = 0; i < NB; i++) {
    double f1[9], f2[9], g1, g2, m1, m2;
    int p1, p2;
    CHECK_ST(fcd_contact_set_get(one, i, f1, &g1, &m1, &p1), FCD_OK);
    CHECK_ST(fcd_contact_set_get(many, i, f2, &g2, &m2, &p2), FCD_OK);
    CHECK(memcmp(f1, f2, sizeof f1) == 0 && g1 == g2 && m1 == m2 && p1 == p2);
  }
  fcd_contact_set_destroy(one);
  /* a batch whose entry 2 has a normal of norm 2: nothing added */
  double bad[NB * 3];
  memcpy(bad, nrm, sizeof bad);
  bad[3 * 2 + 2] *= 2;
  fcd_index d2[NB * 3];
  fcd_contact_set *c2;
  CHECK_ST(fcd_contact_set_create(sys, 3, &c2), FCD_OK);
  for (int i = 0; i < NB * 3; i++) d2[i] = dofs[i];
  CHECK_ST(fcd_contact_set_add_rigid_n(c2, NB, d2, bad, tan, NULL, mus, NULL, NULL),
           FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "entry 2 of 4");
  CHECK_MSG(sys, "none of the batch was added");
  CHECK(fcd_contact_set_size(c2) == 0);
  /* the bookkeeping was rolled back: with `many` gone, every dof can be prescribed */
  fcd_contact_set_destroy(many);
  const fcd_index all[3] = {0, 1, 2};
  CHECK_ST(fcd_system_fix_dofs(sys, 3, all, NULL), FCD_OK);
  CHECK_ST(fcd_system_clear_fixed(sys), FCD_OK);
  /* pairs: body A's dofs 0-2 against body B's 3-5 */
  const fcd_index da[3] = {0, 1, 2}, db[3] = {3, 4, 5};
  const double n1[3] = {0, 0, 1}, t1[3] = {1, 0, 0}, mu1 = 0.4;
  CHECK_ST(fcd_contact_set_add_pair_n(c2, 1, da, db, n1, t1, NULL, &mu1, NULL, &first), FCD_OK);
  int pair = 0;
  CHECK_ST(fcd_contact_set_get(c2, first, NULL, NULL, NULL, &pair), FCD_OK);
  CHECK(pair == 1);
  CHECK_ST(fcd_contact_set_add_pair_n(c2, 1, da, NULL, n1, t1, NULL, &mu1, NULL, NULL),
           FCD_E_INVALID_ARG);
  CHECK_ST(fcd_contact_set_add_rigid_n(c2, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL), FCD_OK);
  fcd_contact_set_destroy(c2);
  fcd_system_destroy(sys);
}

static void test_support_reactions(void) {
  /* three dofs on a line, springs k between 0-1 and 1-2, dof 0 held at 0, load F at 2 */
  const double k = 250, F = 3;
  fcd_system *sys;
  CHECK_ST(fcd_system_create(3, &sys), FCD_OK);
  const fcd_index r[5] = {0, 0, 1, 1, 2}, c[5] = {0, 1, 1, 2, 2};
  const double kv[5] = {k, -k, 2 * k, -k, k};
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, 5, r, c, kv, FCD_COO_UPPER), FCD_OK);
  const fcd_index held = 0;
  CHECK_ST(fcd_system_fix_dofs(sys, 1, &held, NULL), FCD_OK);
  const double f[3] = {0, 0, F};
  CHECK_ST(fcd_system_set_load(sys, f), FCD_OK);
  /* the static equilibrium: each spring carries F, so u1 = F/k, u2 = 2F/k */
  const double u[3] = {0, F / k, 2 * F / k};
  double R = 0;
  CHECK_ST(fcd_system_support_reactions(sys, 0, u, NULL, NULL, &R), FCD_OK);
  CHECK_CLOSE(R, -F, 1e-13);
  /* with inertia and damping: M = diag(m0, m1, m2), C = beta K; R = m0 a0 + beta (K v)_0
   * + (K u)_0 - f_0 = m0 a0 + beta k (v0 - v1) + k (u0 - u1) */
  const fcd_index mi[3] = {0, 1, 2};
  const double mv[3] = {2, 3, 5};
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_MASS, 3, mi, mi, mv, FCD_COO_UPPER), FCD_OK);
  const double beta = 0.01;
  CHECK_ST(fcd_system_set_rayleigh(sys, 0, beta), FCD_OK);
  const double v[3] = {0.5, -1, 2}, a[3] = {4, 1, -3};
  CHECK_ST(fcd_system_support_reactions(sys, 0, u, v, a, &R), FCD_OK);
  CHECK_CLOSE(R, 2 * 4 + beta * k * (0.5 - -1) + k * (0 - F / k), 1e-12);
  /* bad input */
  CHECK_ST(fcd_system_support_reactions(sys, 0, NULL, NULL, NULL, &R), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_system_support_reactions(sys, NAN, u, NULL, NULL, &R), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_system_support_reactions(sys, 0, u, NULL, NULL, NULL), FCD_E_INVALID_ARG);
  /* issue 64: NaN in, an overflow out, and a NULL output were FCD_OK */
  const double vnan[3] = {0, NAN, 0}, uhuge[3] = {0, 1e308, 0};
  R = 42;
  CHECK_ST(fcd_system_support_reactions(sys, 0, u, vnan, NULL, &R), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "v[1] is not finite");
  CHECK_ST(fcd_system_support_reactions(sys, 0, uhuge, NULL, NULL, &R), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "reaction at dof 0 overflows");
  CHECK(R == 42); /* nothing written */
  CHECK_ST(fcd_system_clear_fixed(sys), FCD_OK);
  CHECK_ST(fcd_system_support_reactions(sys, 0, u, NULL, NULL, NULL), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "r is NULL");
  fcd_system_destroy(sys);
}

/* the state file of `fcd equilibrium`, read by the library (it was parsed only by the
 * program): rows in order, 3D slip in both columns, and every defect a FORMAT error
 * naming its line with the buffers untouched */
static void test_read_state(void) {
  fcd_system *sys;
  CHECK_ST(fcd_system_create(6, &sys), FCD_OK);
  fcd_contact_set *cs;
  CHECK_ST(fcd_contact_set_create(sys, 3, &cs), FCD_OK);
  const fcd_index dofs[6] = {0, 1, 2, 3, 4, 5};
  const double n[6] = {0, 0, 1, 0, 0, 1}, t[6] = {1, 0, 0, 1, 0, 0}, mu[2] = {0.3, 0.3};
  CHECK_ST(fcd_contact_set_add_rigid_n(cs, 2, dofs, n, t, NULL, mu, NULL, NULL), FCD_OK);
  static const struct {
    const char *text;
    fcd_status want;
    const char *says;
  } cases[] = {
      {"contact,status,slip_t,slip_b,set,r_n\n0,slip,0.6,-0.8,slip,-1\n1,open,0,0,separated,0\n",
       FCD_OK, ""},
      {"contact,status\n0,slip,1,0\n1,open,0,0\n", FCD_E_FORMAT, ":1: the header"},
      {"contact,status,slip_t,slip_b\n1,slip,1,0\n0,open,0,0\n", FCD_E_FORMAT, ":2: contact 1 out of order"},
      {"contact,status,slip_t,slip_b\n0,slide,1,0\n1,open,0,0\n", FCD_E_FORMAT, ":2: unknown status 'slide'"},
      {"contact,status,slip_t,slip_b\n0,slip,1,0\n", FCD_E_FORMAT, "1 contact rows for 2 contacts"},
      {"contact,status,slip_t,slip_b\n0,slip,1\n1,open,0,0\n", FCD_E_FORMAT, ":2: expected"},
      {"contact,status,slip_t,slip_b\n0,slip,1,0junk\n1,open,0,0\n", FCD_E_FORMAT, ":2: expected"},
      {"", FCD_E_FORMAT, "empty file"},
  };
  char path[600];
  fcdt_tmpfile(path, sizeof path, "host_api_state.csv");
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) continue;
    fputs(cases[k].text, f);
    fclose(f);
    int status[2] = {-7, -7};
    double slip[4] = {9, 9, 9, 9};
    CHECK_ST(fcd_contact_set_read_state(cs, path, status, slip), cases[k].want);
    if (cases[k].want == FCD_OK) {
      CHECK(status[0] == FCD_CONTACT_SLIP && status[1] == FCD_CONTACT_OPEN);
      CHECK(slip[0] == 0.6 && slip[1] == -0.8 && slip[2] == 0 && slip[3] == 0);
    } else {
      CHECK_MSG(sys, cases[k].says);
      CHECK(status[0] == -7 && status[1] == -7 && slip[0] == 9 && slip[3] == 9);
    }
  }
  remove(path);
  CHECK_ST(fcd_contact_set_read_state(cs, "/", (int[2]){0, 0}, (double[4]){0}), FCD_E_IO);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
}

int main(void) {
  test_freed_memory_returns();
  test_read_state();
  test_batch();
  test_support_reactions();
  return fcdt_finish("host_api");
}
