/* Bodies held by their contacts (issue: certified answers, case 1) and friction as its
 * limit (case 2). Every result is judged by figures computed here from what fcd returns,
 * independently of fcd's certificate: the balance K u = f + H^T r on the free dofs, the
 * contact law, and, for the plane-strain block, an independent dense solve (LAPACK) of
 * the same problem with the contact set fcd found imposed as equalities. */
#include <lapacke.h>

#include "../common/block2d.h"
#include "fcd/fcd.h"
#include "fcd/fcd_vtk.h"
#include "../fcdtest.h"

/* The figures of (u, r) recomputed here: balance residual over the largest force term,
 * penetration and tension over their scales, cone excess. */
typedef struct {
  double eq, pen, tension, cone;
} figures;

static figures recompute(fcd_system *sys, fcd_contact_set *cs, const double *f,
                         const double *u, const double *r, double mu) {
  fcd_index n = fcd_system_ndofs(sys), nc = fcd_contact_set_size(cs);
  int d = fcd_contact_set_dim(cs);
  double *ku = calloc((size_t)n, sizeof *ku), *hr = calloc((size_t)n, sizeof *hr);
  double *loc = calloc((size_t)(nc * d), sizeof *loc);
  unsigned char *fixed = calloc((size_t)n, 1);
  fcd_index nfix = fcd_system_num_fixed(sys);
  fcd_index *fl = malloc((size_t)(nfix + 1) * sizeof *fl);
  fcd_system_get_fixed(sys, fl, NULL);
  for (fcd_index k = 0; k < nfix; k++) fixed[fl[k]] = 1;
  fcd_system_apply(sys, FCD_STIFFNESS, u, ku);
  fcd_contact_set_global(cs, r, hr);
  fcd_contact_set_local(cs, u, loc);
  figures g = {0, 0, 0, 0};
  double F = 0, L = 0, R = 0;
  for (fcd_index i = 0; i < n; i++) {
    L = fmax(L, fabs(u[i]));
    if (fixed[i]) continue;
    F = fmax(F, fmax(fabs(f[i]), fabs(hr[i])));
    g.eq = fmax(g.eq, fabs(ku[i] - f[i] - hr[i]));
  }
  for (fcd_index c = 0; c < nc * d; c++) R = fmax(R, fabs(r[c]));
  g.eq /= F;
  for (fcd_index c = 0; c < nc; c++) {
    double gap;
    fcd_contact_set_get(cs, c, NULL, &gap, NULL, NULL);
    double gr = loc[c * d] - gap, rt = 0;
    for (int k = 1; k < d; k++) rt += r[c * d + k] * r[c * d + k];
    rt = sqrt(rt);
    g.pen = fmax(g.pen, gr / L);
    g.tension = fmax(g.tension, r[c * d] / R);
    /* an open contact (gap residual beyond round-off) carries nothing */
    if (gr < -1e-9 * L) g.tension = fmax(g.tension, fabs(r[c * d]) / R);
    g.cone = fmax(g.cone, (rt - mu * fabs(r[c * d])) / R);
  }
  free(ku); free(hr); free(loc); free(fixed); free(fl);
  return g;
}

/* ---- case 1: the user's 40 x 10 plane-strain block, 40 mm x 10 mm, pressed by 50 N on
 * its top, only the top's x displacements prescribed: the vertical rigid motion is held
 * by the 41 bottom contacts alone (mu = 0.3, no tangential history). ---- */
static void test_user_block(void) {
  tb_block b;
  CHECK(tb_block_build(&b, 40, 10, 40.0, 10.0, 1e4, 0.3, 0) == 0);
  fcd_system *sys = NULL;
  CHECK_ST(tb_block_system(&b, &sys), FCD_OK);
  double *f = calloc((size_t)b.ndofs, sizeof *f);
  fcd_index top[41];
  for (int i = 0; i <= 40; i++) {
    fcd_index nd = tb_node(&b, i, 10);
    f[2 * nd + 1] = -50.0 / 40 * (i == 0 || i == 40 ? 0.5 : 1);
    top[i] = 2 * nd;
  }
  CHECK_ST(fcd_system_fix_dofs(sys, 41, top, NULL), FCD_OK);
  CHECK_ST(fcd_system_set_load(sys, f), FCD_OK);
  fcd_contact_set *cs;
  CHECK_ST(tb_block_contacts(&b, sys, 0.3, 0, &cs), FCD_OK);
  fcd_equilibrium *eq;
  CHECK_ST(fcd_equilibrium_create(sys, cs, &eq), FCD_OK);
  CHECK_ST(fcd_equilibrium_solve(eq, FCD_EQ_STATIC, 0.0), FCD_OK);
  double *u = calloc((size_t)b.ndofs, sizeof *u), r[82];
  int set[41];
  fcd_equilibrium_get_state(eq, u);
  fcd_equilibrium_get_reactions(eq, r);
  fcd_equilibrium_get_contact_sets(eq, set);
  fcd_certificate cert;
  CHECK_ST(fcd_equilibrium_get_certificate(eq, &cert), FCD_OK);
  CHECK(cert.worst < 1e-10); /* the bar */
  CHECK(cert.worst <= cert.tolerance);
  figures g = recompute(sys, cs, f, u, r, 0.3);
  CHECK(g.eq < 1e-10 && g.pen < 1e-10 && g.tension < 1e-10 && g.cone < 1e-10);
  /* statics of the whole block: the contacts carry the 50 N and its moment (the load is
   * symmetric: the resultant acts at x = 20) */
  double sn = 0, mom = 0, st = 0;
  for (int c = 0; c <= 40; c++) {
    sn += r[2 * c];
    mom += r[2 * c] * (double)c;
    st += r[2 * c + 1];
  }
  CHECK_CLOSE(sn, -50.0, 1e-10);
  CHECK_CLOSE(mom / sn, 20.0, 1e-9);
  /* an independent dense solve: the free dofs with the contact set imposed (closed:
   * u_N = 0; stick: u_T = 0; slip: r_T = mu r_N s), K from the same triplets */
  fcd_index n = b.ndofs, nf = 0, *fre = malloc((size_t)n * sizeof *fre);
  unsigned char *isfix = calloc((size_t)n, 1);
  for (int i = 0; i <= 40; i++) isfix[top[i]] = 1;
  for (fcd_index i = 0; i < n; i++) fre[i] = isfix[i] ? -1 : nf++;
  int ncl = 0, nst = 0;
  for (int c = 0; c <= 40; c++) {
    if (set[c] != FCD_EQ_SEPARATED) ncl++;
    if (set[c] == FCD_EQ_STICK) nst++;
  }
  fcd_index N = nf + ncl + nst;
  double *A = calloc((size_t)(N * N), sizeof *A), *x = calloc((size_t)N, sizeof *x);
  for (fcd_index e = 0; e < b.nk; e++) {
    fcd_index i = fre[b.ki[e]], j = fre[b.kj[e]];
    if (i < 0 || j < 0) continue;
    A[i * N + j] += b.kv[e];
    if (i != j) A[j * N + i] += b.kv[e];
  }
  for (fcd_index i = 0; i < n; i++)
    if (fre[i] >= 0) x[fre[i]] = f[i];
  fcd_index row = nf;
  /* contact c: normal (0, -1) on dof y, tangent (1, 0) on dof x; closed unknowns r_N,
   * then stick unknowns r_T */
  int k = 0;
  for (int c = 0; c <= 40; c++) {
    if (set[c] == FCD_EQ_SEPARATED) continue;
    fcd_index dx = fre[2 * tb_node(&b, c, 0)], dy = fre[2 * tb_node(&b, c, 0) + 1];
    fcd_index col = nf + k++;
    A[dy * N + col] = 1.0; /* K u - H_N^T r_N: H_N = -e_y, so + r_N on row y */
    if (set[c] == FCD_EQ_SLIP) {
      double s = r[2 * c + 1] > 0 ? -1.0 : 1.0; /* friction opposes the slip */
      A[dx * N + col] = -0.3 * s;                /* - H_T^T mu s r_N */
    }
    A[row * N + dy] = -1.0; /* u_N = -u_y = 0 */
    row++;
  }
  for (int c = 0; c <= 40; c++) {
    if (set[c] != FCD_EQ_STICK) continue;
    fcd_index dx = fre[2 * tb_node(&b, c, 0)];
    fcd_index col = nf + k++;
    A[dx * N + col] = -1.0;
    A[row * N + dx] = 1.0;
    row++;
  }
  lapack_int *piv = malloc((size_t)N * sizeof *piv);
  CHECK(LAPACKE_dgesv(LAPACK_ROW_MAJOR, (lapack_int)N, 1, A, (lapack_int)N, piv, x, 1) == 0);
  double du = 0, umax = 0;
  for (fcd_index i = 0; i < n; i++)
    if (fre[i] >= 0) {
      du = fmax(du, fabs(x[fre[i]] - u[i]));
      umax = fmax(umax, fabs(u[i]));
    }
  CHECK(du <= 1e-8 * umax);
  k = 0;
  double dr = 0;
  for (int c = 0; c <= 40; c++)
    if (set[c] != FCD_EQ_SEPARATED) dr = fmax(dr, fabs(x[nf + k++] - r[2 * c]));
  CHECK(dr <= 1e-8 * 50);
  printf("user's block held by its contacts: certificate %.2e, sum r_N = %.12g, "
         "dense KKT agrees to %.1e (u) and %.1e (r_N)\n", cert.worst, sn, du / umax, dr / 50);
  free(A); free(x); free(piv); free(fre); free(isfix);

  /* case 2: mu = 1e15 and 1e20 are perfect stick: every closed contact keeps u_T = 0 and
   * the answer equals the bottom held in x (the dense solve above with every closed
   * contact stuck); checked by the recomputed figures with the true mu */
  for (int e = 0; e < 2; e++) {
    double muh = e ? 1e20 : 1e15;
    fcd_contact_set *ch = NULL;
    CHECK_ST(tb_block_contacts(&b, sys, muh, 0, &ch), FCD_OK);
    fcd_equilibrium *eh;
    CHECK_ST(fcd_equilibrium_create(sys, ch, &eh), FCD_OK);
    CHECK_ST(fcd_equilibrium_solve(eh, FCD_EQ_STATIC, 0.0), FCD_OK);
    double *uh = calloc((size_t)b.ndofs, sizeof *uh), rh[82];
    int sh[41];
    fcd_equilibrium_get_state(eh, uh);
    fcd_equilibrium_get_reactions(eh, rh);
    fcd_equilibrium_get_contact_sets(eh, sh);
    figures gh = recompute(sys, ch, f, uh, rh, muh);
    CHECK(gh.eq < 1e-10 && gh.pen < 1e-10 && gh.tension < 1e-10 && gh.cone <= 0);
    double slipmax = 0, sum = 0;
    int nslip = 0;
    for (int c = 0; c <= 40; c++) {
      slipmax = fmax(slipmax, fabs(uh[2 * tb_node(&b, c, 0)]));
      sum += rh[2 * c];
      nslip += sh[c] == FCD_EQ_SLIP;
    }
    CHECK(nslip == 0);
    CHECK(slipmax <= 1e-12 * 1e-2); /* stuck: no tangential motion at the contacts */
    CHECK_CLOSE(sum, -50.0, 1e-10);
    free(uh);
    fcd_equilibrium_destroy(eh);
    fcd_contact_set_destroy(ch);
  }

  /* steady sliding with the top held in x: the vertical rigid motion is still held by
   * the contacts; every closed contact slides with r_T = mu r_N s, s = -vg / |vg| */
  fcd_contact_set *cv;
  CHECK_ST(tb_block_contacts(&b, sys, 0.3, 1.0, &cv), FCD_OK);
  fcd_equilibrium *ev;
  CHECK_ST(fcd_equilibrium_create(sys, cv, &ev), FCD_OK);
  CHECK_ST(fcd_equilibrium_solve(ev, FCD_EQ_STEADY_SLIDING, 0.0), FCD_OK);
  fcd_equilibrium_get_state(ev, u);
  fcd_equilibrium_get_reactions(ev, r);
  g = recompute(sys, cv, f, u, r, 0.3);
  CHECK(g.eq < 1e-10 && g.pen < 1e-10 && g.tension < 1e-10 && g.cone < 1e-10);
  sn = 0;
  for (int c = 0; c <= 40; c++) {
    sn += r[2 * c];
    CHECK(fabs(r[2 * c + 1] - 0.3 * r[2 * c] * -1.0) <= 1e-12 * 50);
  }
  CHECK_CLOSE(sn, -50.0, 1e-10);
  fcd_equilibrium_destroy(ev);
  fcd_contact_set_destroy(cv);

  /* nothing prescribed, steady sliding: friction drags the block along with nothing to
   * balance it; the tangential rigid motion is the mechanism named */
  CHECK_ST(fcd_system_clear_fixed(sys), FCD_OK);
  CHECK_ST(tb_block_contacts(&b, sys, 0.3, 1.0, &cv), FCD_OK);
  CHECK_ST(fcd_equilibrium_create(sys, cv, &ev), FCD_OK);
  CHECK_ST(fcd_equilibrium_solve(ev, FCD_EQ_STEADY_SLIDING, 0.0), FCD_E_NO_SOLUTION);
  CHECK_MSG(sys, "the friction of steady sliding drags the body along");
  CHECK_MSG(sys, "rigid mode");
  {
    /* the mechanism: the block slides along x (vg = 1 drags it to -x... either way, a
     * translation along the axis) */
    fcd_mechanism mk;
    CHECK_ST(fcd_equilibrium_get_mechanism(ev, &mk, NULL), FCD_OK);
    CHECK(mk.kind == FCD_MECH_GROSS_SLIP);
    CHECK(mk.motion == FCD_MOTION_TRANSLATION);
    CHECK(fabs(fabs(mk.direction[0]) - 1) <= 1e-9 && fabs(mk.direction[1]) <= 1e-9);
    if (!(fabs(fabs(mk.direction[0]) - 1) <= 1e-9))
      printf("  steady sliding's mechanism: %s\n", fcd_system_last_error(sys));
  }
  /* the same block resting with nothing prescribed under the top load, statically:
   * held (three rigid modes, all held by Signorini and sticking friction) */
  CHECK_ST(fcd_equilibrium_solve(eq, FCD_EQ_STATIC, 0.0), FCD_OK);
  fcd_equilibrium_get_state(eq, u);
  fcd_equilibrium_get_reactions(eq, r);
  g = recompute(sys, cs, f, u, r, 0.3);
  CHECK(g.eq < 1e-10 && g.pen < 1e-10 && g.tension < 1e-10 && g.cone < 1e-10);
  sn = st = mom = 0;
  for (int c = 0; c <= 40; c++) {
    sn += r[2 * c];
    st += r[2 * c + 1];
    mom += r[2 * c] * (double)c;
  }
  CHECK_CLOSE(sn, -50.0, 1e-10);
  CHECK(fabs(st) <= 1e-10 * 50);
  CHECK_CLOSE(mom / sn, 20.0, 1e-9);
  fcd_equilibrium_destroy(ev);
  fcd_contact_set_destroy(cv);
  fcd_equilibrium_destroy(eq);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
  free(f);
  free(u);
  tb_block_free(&b);
}

/* ---- a rigid body on springs, closed form (2D and 3D) ----
 * Nodes A and B (dofs dim each) joined by a spring of stiffness k in every direction
 * (K = k [[I, -I], [-I, I]]): the free dofs have dim rigid translations. Both rest on a
 * flat below (gap 0) under downward loads FA, FB; A is pulled along x by P.
 * - P <= mu FA: both stick, u = 0, r_TA = -P, r_TB = 0;
 * - mu FA < P <= mu (FA + FB): A slips (r_TA = -mu FA), the spring carries P - mu FA to
 *   B, which sticks: u_xA = (P - mu FA) / k, u_B = 0;
 * - P > mu (FA + FB): nothing balances P: FCD_E_NO_SOLUTION, gross slip;
 * - a load pulling A and B up: nothing holds them: FCD_E_NO_SOLUTION, separation. */
static void test_spring_body(int dim) {
  const double k = 1e3, FA = 10, FB = 30, mu = 0.5;
  fcd_index n = 2 * dim;
  fcd_system *sys;
  CHECK_ST(fcd_system_create(n, &sys), FCD_OK);
  fcd_index ri[9], ci[9];
  double kv[9];
  int ne = 0;
  for (int c = 0; c < dim; c++) {
    ri[ne] = c; ci[ne] = c; kv[ne++] = k;
    ri[ne] = dim + c; ci[ne] = dim + c; kv[ne++] = k;
    ri[ne] = c; ci[ne] = dim + c; kv[ne++] = -k;
  }
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, ne, ri, ci, kv, FCD_COO_UPPER), FCD_OK);
  fcd_contact_set *cs;
  CHECK_ST(fcd_contact_set_create(sys, dim, &cs), FCD_OK);
  double nrm[3] = {0}, tan[3] = {0};
  nrm[dim - 1] = -1; /* the vertical is the last axis */
  tan[0] = 1;
  for (int p = 0; p < 2; p++) {
    fcd_index dofs[3];
    for (int c = 0; c < dim; c++) dofs[c] = p * dim + c;
    CHECK_ST(fcd_contact_set_add_rigid(cs, dofs, nrm, tan, 0.0, mu, NULL), FCD_OK);
  }
  fcd_equilibrium *eq;
  CHECK_ST(fcd_equilibrium_create(sys, cs, &eq), FCD_OK);
  const double Ps[3] = {0.5 * mu * FA, mu * FA + 0.5 * mu * FB, 1.2 * mu * (FA + FB)};
  for (int t = 0; t < 3; t++) {
    double f[6] = {0};
    f[dim - 1] = -FA;
    f[2 * dim - 1] = -FB;
    f[0] = Ps[t];
    CHECK_ST(fcd_system_set_load(sys, f), FCD_OK);
    if (t == 2) {
      /* no equilibrium: friction's capacity mu (FA + FB) is below P; the mechanism is the
       * pair sliding along x, named without coordinates from its nodes' motions */
      CHECK_ST(fcd_equilibrium_solve(eq, FCD_EQ_STATIC, 0.0), FCD_E_NO_SOLUTION);
      CHECK_MSG(sys, "friction cannot balance the tangential load");
      CHECK_MSG(sys, "a translation along (1, 0");
      fcd_mechanism mk;
      double mo[6];
      CHECK_ST(fcd_equilibrium_get_mechanism(eq, &mk, mo), FCD_OK);
      CHECK(mk.kind == FCD_MECH_GROSS_SLIP && mk.motion == FCD_MOTION_TRANSLATION);
      CHECK(mk.direction[0] == 1.0 && mk.direction[1] == 0 && mk.direction[2] == 0);
      CHECK(mk.nmodes == dim && mk.pivot == -1);
      /* the unbalance: the smallest change of the load's rigid part that the cone could
       * balance, the distance from the resultant (P, FA + FB) to the cone's edge
       * |t| = mu' n: (P - mu' (FA + FB)) / sqrt(1 + mu'^2), over sqrt 2 in the unit
       * modes' coordinates (R's column (1, 0, 1, 0) / sqrt 2). 3D: the pyramid of 16
       * faces around the cone has an edge along x at mu' = mu / cos(pi / 16) */
      double mup = dim == 2 ? mu : mu / cos(3.14159265358979323846 / 16);
      CHECK_CLOSE(mk.unbalance,
                  (Ps[t] - mup * (FA + FB)) / sqrt(1 + mup * mup) / sqrt(2.0), 1e-10);
      CHECK(fabs(mo[0] - mo[dim]) <= 1e-12 && fabs(fabs(mo[0]) - 1) <= 1e-12);
      continue;
    }
    CHECK_ST(fcd_equilibrium_solve(eq, FCD_EQ_STATIC, 0.0), FCD_OK);
    double u[6], r[6];
    fcd_equilibrium_get_state(eq, u);
    fcd_equilibrium_get_reactions(eq, r);
    CHECK_CLOSE(r[0], -FA, 1e-12);
    CHECK_CLOSE(r[dim], -FB, 1e-12);
    double rta = t == 0 ? -Ps[t] : -mu * FA, rtb = t == 0 ? 0.0 : -(Ps[t] - mu * FA);
    CHECK_CLOSE(r[1], rta, 1e-12);
    CHECK_CLOSE(r[dim + 1], rtb, 1e-12);
    if (dim == 3) CHECK(fabs(r[2]) + fabs(r[5]) <= 1e-12);
    double uxa = t == 0 ? 0.0 : (Ps[t] - mu * FA) / k;
    CHECK(fabs(u[0] - uxa) <= 1e-12 * fmax(uxa, 1e-3));
    CHECK(fabs(u[dim]) <= 1e-15);
    CHECK(fabs(u[dim - 1]) + fabs(u[2 * dim - 1]) <= 1e-15);
    fcd_certificate cert;
    CHECK_ST(fcd_equilibrium_get_certificate(eq, &cert), FCD_OK);
    CHECK(cert.worst <= 1e-12);
  }
  /* pulled up: the contacts open and nothing holds the body */
  double up[6] = {0};
  up[dim - 1] = 1.0;
  CHECK_ST(fcd_system_set_load(sys, up), FCD_OK);
  CHECK_ST(fcd_equilibrium_solve(eq, FCD_EQ_STATIC, 0.0), FCD_E_NO_SOLUTION);
  CHECK_MSG(sys, "the load pulls the body away: it separates from its support");
  {
    fcd_mechanism mk;
    CHECK_ST(fcd_equilibrium_get_mechanism(eq, &mk, NULL), FCD_OK);
    CHECK(mk.kind == FCD_MECH_SEPARATION && mk.motion == FCD_MOTION_TRANSLATION);
    CHECK(mk.direction[dim - 1] == 1.0); /* up, away from the flat below */
  }
  /* the last good solution is kept */
  double r[6];
  CHECK_ST(fcd_equilibrium_get_reactions(eq, r), FCD_OK);
  CHECK_CLOSE(r[1], -mu * FA, 1e-12);
  /* the certificate's tolerance: validated, and taken by every scheme */
  CHECK_ST(fcd_equilibrium_set_param(eq, FCD_PARAM_CERT_TOL, 0.0), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_equilibrium_set_param(eq, FCD_PARAM_CERT_TOL, 1e-6), FCD_OK);
  fcd_integrator *it;
  CHECK_ST(fcd_integrator_create(sys, cs, FCD_SCHEME_QUASISTATIC, &it), FCD_OK);
  CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_CERT_TOL, 2.0), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_CERT_TOL, 1e-6), FCD_OK);
  fcd_integrator_destroy(it);
  const fcd_index all[6] = {0, 1, 2, 3, 4, 5};
  const double ones[6] = {1, 1, 1, 1, 1, 1};
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_MASS, n, all, all, ones, FCD_COO_FULL), FCD_OK);
  CHECK_ST(fcd_integrator_create(sys, cs, FCD_SCHEME_MOREAU_JEAN, &it), FCD_OK);
  CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_CERT_TOL, 1.0), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "must lie in (0, 1)");
  CHECK_ST(fcd_integrator_set_param(it, FCD_PARAM_CERT_TOL, 1e-6), FCD_OK);
  fcd_integrator_destroy(it);
  fcd_equilibrium_destroy(eq);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
}

/* A model whose K is all stored zeros (a host that assembled nothing into the values):
 * every free dof is a rigid mode. The rigid-mode search doubled its block up to the free
 * dofs' count (at 20,000 dofs a 3.2 GB block and about 1e13 flops); it now stops at 512
 * modes, FCD_E_SINGULAR, naming a dof with a zero diagonal. 1,200 dofs: above the cap,
 * small enough that the old search finished here too (it then named the load, "cannot
 * hold the load"). */
static void test_no_stiffness_values(void) {
  enum { N = 1200 };
  fcd_system *sys;
  CHECK_ST(fcd_system_create(N, &sys), FCD_OK);
  fcd_index *ij = malloc(N * sizeof *ij);
  double *v = calloc(N, sizeof *v), *f = calloc(N, sizeof *f);
  for (int i = 0; i < N; i++) ij[i] = i;
  f[7] = 1;
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, N, ij, ij, v, FCD_COO_UPPER), FCD_OK);
  CHECK_ST(fcd_system_set_load(sys, f), FCD_OK);
  fcd_equilibrium *eq;
  CHECK_ST(fcd_equilibrium_create(sys, NULL, &eq), FCD_OK);
  CHECK_ST(fcd_equilibrium_solve(eq, FCD_EQ_STATIC, 0.0), FCD_E_SINGULAR);
  CHECK_MSG(sys, "at least 512 rigid modes");
  CHECK_MSG(sys, "dof 0, for one, has a zero diagonal");
  fcd_equilibrium_destroy(eq);
  fcd_system_destroy(sys);
  free(ij);
  free(v);
  free(f);
}

/* A node only a contact holds (dofs 2, 3: no element reaches it) resting on a rigid flat
 * beside a sprung node (dofs 0, 1). Whether the host stores zeros on that node's diagonal
 * or nothing at all is the same model. Before the free pattern held every diagonal, the
 * stored zeros went on and the absent ones were refused ("the stiffness is zero at dof
 * 2"): K + eps D could not add to an entry the pattern lacked. Then both were refused
 * ("cannot hold the load") once the load was not near 1: W+ on this contact is round-off
 * (1e-35), and it set the scale of the rigid modes' multiplier. Closed form: the flat
 * takes the node's whole load (r_n = f_y, r_t = -f_x, inside the cone mu = 0.3), the
 * node's normal displacement is 0, and the sprung node moves by f / k. */
static void test_contact_held_node(void) {
  const double k = 100, mu = 0.3;
  const double loads[3][4] = {{1, 2, 0.1, -1}, {5, 0, -10, -100}, {-3e6, 1e5, 1e-3, -1e-2}};
  for (int c = 0; c < 3; c++) {
    const double *f = loads[c];
    double u[2][4], r[2][2];
    for (int stored = 0; stored < 2; stored++) {
      fcd_system *sys;
      CHECK_ST(fcd_system_create(4, &sys), FCD_OK);
      const fcd_index ij[4] = {0, 1, 2, 3};
      const double kv[4] = {k, k, 0, 0};
      CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, stored ? 4 : 2, ij, ij, kv,
                                         FCD_COO_UPPER), FCD_OK);
      CHECK_ST(fcd_system_set_load(sys, f), FCD_OK);
      fcd_contact_set *cs;
      CHECK_ST(fcd_contact_set_create(sys, 2, &cs), FCD_OK);
      const fcd_index dofs[2] = {2, 3};
      const double nrm[2] = {0, -1}, tan[2] = {1, 0};
      CHECK_ST(fcd_contact_set_add_rigid(cs, dofs, nrm, tan, 0.0, mu, NULL), FCD_OK);
      fcd_equilibrium *eq;
      CHECK_ST(fcd_equilibrium_create(sys, cs, &eq), FCD_OK);
      CHECK_ST(fcd_equilibrium_solve(eq, FCD_EQ_STATIC, 0.0), FCD_OK);
      CHECK_ST(fcd_equilibrium_get_state(eq, u[stored]), FCD_OK);
      CHECK_ST(fcd_equilibrium_get_reactions(eq, r[stored]), FCD_OK);
      /* scale-aware: the largest force F and the displacement it gives the spring, L */
      double F = fmax(fmax(fabs(f[0]), fabs(f[1])), fmax(fabs(f[2]), fabs(f[3]))), L = F / k;
      CHECK_CLOSE(r[stored][0], f[3], 1e-12 * F);
      CHECK_CLOSE(r[stored][1], -f[2], 1e-12 * F);
      CHECK_CLOSE(u[stored][0], f[0] / k, 1e-12 * L);
      CHECK_CLOSE(u[stored][1], f[1] / k, 1e-12 * L);
      CHECK(fabs(u[stored][3]) <= 1e-12 * L);
      figures g = recompute(sys, cs, f, u[stored], r[stored], mu);
      CHECK(g.eq <= 1e-12 && g.pen <= 1e-12 && g.tension <= 1e-12 && g.cone <= 1e-12);
      if (!(g.eq <= 1e-12 && g.pen <= 1e-12 && g.tension <= 1e-12 && g.cone <= 1e-12))
        printf("  load %d: balance %.1e, penetration %.1e, tension %.1e, cone %.1e\n", c,
               g.eq, g.pen, g.tension, g.cone);
      fcd_equilibrium_destroy(eq);
      fcd_contact_set_destroy(cs);
      fcd_system_destroy(sys);
    }
    /* the node's tangential position: a rigid mode friction holds, the same both ways */
    CHECK_CLOSE(u[0][2], u[1][2], 1e-12 * fmax(fabs(f[0]), fabs(f[1])) / k);
  }
}

/* A unit cube of 8 nodes joined by a spring between every pair (a rigid truss: its K
 * has the six rigid modes), its 4 bottom corners on a flat (normal -z into it), mu = 10,
 * each top node loaded by (3, 0, -1): the horizontal 12 at height 1 overturns it about
 * the edge x = 1 (moment 12 - 4 x 0.5 = 10 about that edge), and friction could hold the
 * slide (12 < 10 x 4). No equilibrium: tipping, named with the mesh's coordinates as a
 * rotation about the axis y through (1, y, 0) (with infinite friction as much: tipping
 * whatever mu). Pushed by 0.3 on mu = 0.1, the moment 1.2 - 2 keeps it down and friction
 * cannot hold 1.2 > 0.4: gross slip, a translation along x. Pushed by 0.1 on mu = 10, it
 * rests: the reactions carry the load, and every figure is the closed form's. */
static void test_cube_tips(void) {
  const double x[24] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1};
  fcd_index ri[8 * 8 * 9], ci[8 * 8 * 9];
  double kv[8 * 8 * 9], K[24][24] = {{0}};
  for (int i = 0; i < 8; i++)
    for (int j = i + 1; j < 8; j++) {
      double e[3], l = 0;
      for (int a = 0; a < 3; a++) {
        e[a] = x[3 * j + a] - x[3 * i + a];
        l += e[a] * e[a];
      }
      for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
          double v = 1e3 * e[a] * e[b] / l;
          K[3 * i + a][3 * i + b] += v;
          K[3 * j + a][3 * j + b] += v;
          K[3 * i + a][3 * j + b] -= v;
          K[3 * j + a][3 * i + b] -= v;
        }
    }
  fcd_index nz = 0;
  for (int i = 0; i < 24; i++)
    for (int j = i; j < 24; j++)
      if (K[i][j] != 0) {
        ri[nz] = i;
        ci[nz] = j;
        kv[nz++] = K[i][j];
      }
  const double mus[3] = {10, 0.1, 10}, push[3] = {3, 0.3, 0.1};
  for (int c = 0; c < 3; c++) {
    fcd_system *sys;
    CHECK_ST(fcd_system_create(24, &sys), FCD_OK);
    CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, nz, ri, ci, kv, FCD_COO_UPPER), FCD_OK);
    double f[24] = {0};
    for (int t = 4; t < 8; t++) {
      f[3 * t] = push[c];
      f[3 * t + 2] = -1;
    }
    CHECK_ST(fcd_system_set_load(sys, f), FCD_OK);
    fcd_contact_set *cs;
    CHECK_ST(fcd_contact_set_create(sys, 3, &cs), FCD_OK);
    const double nrm[3] = {0, 0, -1}, tan[3] = {1, 0, 0};
    for (int b = 0; b < 4; b++) {
      const fcd_index d3[3] = {3 * b, 3 * b + 1, 3 * b + 2};
      CHECK_ST(fcd_contact_set_add_rigid(cs, d3, nrm, tan, 0.0, mus[c], NULL), FCD_OK);
    }
    fcd_mesh *m;
    CHECK_ST(fcd_mesh_create(sys, 3, 8, x, NULL, &m), FCD_OK);
    fcd_equilibrium *eq;
    CHECK_ST(fcd_equilibrium_create(sys, cs, &eq), FCD_OK);
    CHECK_ST(fcd_equilibrium_set_mesh(eq, m), FCD_OK);
    fcd_status st = fcd_equilibrium_solve(eq, FCD_EQ_STATIC, 0.0);
    fcd_mechanism mk;
    CHECK_ST(fcd_equilibrium_get_mechanism(eq, &mk, NULL), FCD_OK);
    if (c == 0) {
      CHECK_ST(st, FCD_E_NO_SOLUTION);
      CHECK_MSG(sys, "tips about an edge");
      CHECK(mk.kind == FCD_MECH_TIPPING && mk.motion == FCD_MOTION_ROTATION);
      CHECK(fabs(mk.direction[0]) < 1e-9 && fabs(fabs(mk.direction[1]) - 1) < 1e-9 &&
            fabs(mk.direction[2]) < 1e-9);
      CHECK(fabs(mk.point[0] - 1) < 1e-9 && fabs(mk.point[2]) < 1e-9);
      CHECK(mk.pivot == 1 || mk.pivot == 2); /* a corner on the edge x = 1 */
    } else if (c == 1) {
      CHECK_ST(st, FCD_E_NO_SOLUTION);
      CHECK_MSG(sys, "friction cannot balance the tangential load");
      CHECK(mk.kind == FCD_MECH_GROSS_SLIP && mk.motion == FCD_MOTION_TRANSLATION);
      CHECK(fabs(mk.direction[0] - 1) < 1e-9);
      if (mk.motion != FCD_MOTION_TRANSLATION) printf("  cube slide: %s\n", fcd_system_last_error(sys));
    } else {
      CHECK_ST(st, FCD_OK);
      CHECK(mk.kind == FCD_MECH_NONE);
      double r[12], sn = 0, sum_t = 0, my = 0;
      CHECK_ST(fcd_equilibrium_get_reactions(eq, r), FCD_OK);
      /* the flat's resultant: -4 down (r_N = -(-f_z)), -0.4 along x, and the moment about
       * the y axis through the origin balancing the push at height 1 */
      for (int b = 0; b < 4; b++) {
        sn += r[3 * b];
        sum_t += r[3 * b + 1];
        my += -r[3 * b] * x[3 * b]; /* f_z of the flat on the body is -r_N */
      }
      CHECK_CLOSE(sn, -4.0, 1e-10);
      CHECK_CLOSE(sum_t, -0.4, 1e-10);
      /* M_y = z f_x - x f_z about the origin: the loads give 4 x 0.1 x 1 + (0 + 1 + 1 +
       * 0) x 1 = 2.4, the flat (f_z = -r_N at z = 0) sum x r_N, which must be -2.4 */
      CHECK_CLOSE(my, 2.4, 1e-10);
    }
    fcd_equilibrium_destroy(eq);
    fcd_mesh_destroy(m);
    fcd_contact_set_destroy(cs);
    fcd_system_destroy(sys);
  }
}

int main(void) {
  test_cube_tips();
  test_contact_held_node();
  test_no_stiffness_values();
  test_user_block();
  test_spring_body(2);
  test_spring_body(3);
  return fcdt_finish("test_rigid");
}
