/* Distributed systems (run under mpiexec -n 1, 2 and 3): a plane-strain block on a
 * rigid flat, its rows split over the ranks at arbitrary places (not at node
 * boundaries), K given by each rank for its own rows only. Every equilibrium (static
 * with a clamped top, static held only by its contacts, steady sliding) must equal the
 * serial CHOLMOD solve of the whole model to 1e-10 relative on every rank; since each
 * rank count is compared with the same serial solve, the rank counts agree with each
 * other too. Then bad input: every rank must return the status, none may hang. Last, a
 * steady-sliding solve under a host's allocator: the same answer, every block returned. */
#include <fcd/fcd.h>

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/block2d.h"
#include "../fcdtest.h"

static int rank, size;
static int64_t comm_f;

/* a host's allocator that counts fcd's live blocks */
static long long host_live;
static void *host_alloc(void *ud, size_t bytes) {
  (void)ud;
  void *p = malloc(bytes);
  if (p) host_live++;
  return p;
}
static void host_free(void *ud, void *p) {
  (void)ud;
  if (p) host_live--;
  free(p);
}

/* rows [n r / size, n (r+1) / size), shifted by one row so that the cuts fall inside
 * nodes (the x and y dofs of a node on different ranks) */
static void my_range(fcd_index n, int r, fcd_index *b, fcd_index *e) {
  *b = r == 0 ? 0 : n * r / size + 1;
  *e = r == size - 1 ? n : n * (r + 1) / size + 1;
}

static int owner(fcd_index n, fcd_index row) {
  for (int r = 0; r < size; r++) {
    fcd_index b, e;
    my_range(n, r, &b, &e);
    if (row >= b && row < e) return r;
  }
  return -1;
}

/* When nonzero, build's full-storage K has one off-diagonal entry scaled by
 * 1 + asym_perturb (its mirror kept), on rows of two ranks when there are two; the
 * relative asymmetry that makes is left in asym_expected. */
static double asym_perturb, asym_expected;
/* When nonzero, build's equilibrium has no contact set (the factor without a Schur set) */
static int no_contacts;

/* The model: block nx x ny, contacts on the bottom row; case 0: top row clamped and
 * pushed down and sideways (prescribed displacement); case 1: nothing prescribed, a
 * downward load on the top row and a sideways one below the friction limit (the rigid
 * modes are held by the contacts only); case 2: case 1 and a node that no element
 * reaches (two dofs appended to the block, no stiffness entry), pressed on the flat by a
 * load of its own inside the friction cone; sliding: case 0 with a sliding velocity. */
typedef struct {
  fcd_system *sys;
  fcd_contact_set *cs;
  fcd_equilibrium *eq;
} model;

static fcd_status build(const tb_block *b, int distributed, int csr, int kase, double vg,
                        model *m) {
  memset(m, 0, sizeof *m);
  fcd_index n = b->ndofs + (kase == 2 ? 2 : 0);
  fcd_status st = fcd_system_create(n, &m->sys);
  if (st != FCD_OK) return st;
  fcd_index rb = 0, re = n;
  if (distributed) {
    my_range(n, rank, &rb, &re);
    st = fcd_system_set_distribution(m->sys, comm_f, rb, re);
    if (st != FCD_OK) return st;
  }
  if (!csr) {
    /* this rank's rows of the upper triangle */
    fcd_index *ri = malloc(sizeof *ri * (size_t)b->nk), *ci = malloc(sizeof *ci * (size_t)b->nk);
    double *v = malloc(sizeof *v * (size_t)b->nk);
    fcd_index k = 0;
    for (fcd_index p = 0; p < b->nk; p++)
      if (b->ki[p] >= rb && b->ki[p] < re) {
        ri[k] = b->ki[p];
        ci[k] = b->kj[p];
        v[k++] = b->kv[p];
      }
    st = fcd_system_set_matrix_coo(m->sys, FCD_STIFFNESS, k, ri, ci, v, FCD_COO_UPPER);
    free(ri);
    free(ci);
    free(v);
  } else {
    /* full rows (both triangles) of the owned rows in CSR, as a host's local matrix:
     * from the serial system's COO export */
    fcd_system *whole = NULL;
    tb_block_system(b, &whole);
    fcd_index nnz_full = 0;
    fcd_system_matrix_nnz(whole, FCD_STIFFNESS, NULL, &nnz_full);
    fcd_index *ri = malloc(sizeof *ri * (size_t)nnz_full), *ci = malloc(sizeof *ci * (size_t)nnz_full);
    double *v = malloc(sizeof *v * (size_t)nnz_full);
    fcd_system_get_matrix_coo(whole, FCD_STIFFNESS, ri, ci, v); /* row-major */
    if (asym_perturb != 0) {
      /* the same entry on every rank: the first off-diagonal one across ranks that is
       * not round-off (on 6 ranks the first across ranks was 1e-17 of the diagonal, and
       * the perturbation moved nothing) */
      fcd_index pick = -1;
      double amax = 0;
      for (fcd_index p = 0; p < nnz_full; p++) {
        if (ri[p] != ci[p] && fabs(v[p]) >= 0.1 * fabs(v[0]) &&
            (pick < 0 || (owner(n, ri[pick]) == owner(n, ci[pick]) &&
                          owner(n, ri[p]) != owner(n, ci[p]))))
          pick = p;
      }
      /* one rank: an entry mid-block (the first rows are the contact nodes', whose
       * coupling a stuck contact hides) */
      if (owner(n, ri[pick]) == owner(n, ci[pick]))
        for (pick = 0; ri[pick] < n / 2 || ri[pick] == ci[pick] || fabs(v[pick]) < 0.1 * fabs(v[0]);)
          pick++;
      v[pick] *= 1 + asym_perturb;
      for (fcd_index p = 0; p < nnz_full; p++) amax = fmax(amax, fabs(v[p]));
      asym_expected = fabs(v[pick] - v[pick] / (1 + asym_perturb)) / amax;
    }
    fcd_index nl = re - rb, *rp = calloc((size_t)nl + 1, sizeof *rp);
    fcd_index first = -1, cnt = 0;
    for (fcd_index p = 0; p < nnz_full; p++)
      if (ri[p] >= rb && ri[p] < re) {
        if (first < 0) first = p;
        rp[ri[p] - rb + 1]++;
        cnt++;
      }
    for (fcd_index i = 0; i < nl; i++) rp[i + 1] += rp[i];
    st = fcd_system_set_matrix_csr(m->sys, FCD_STIFFNESS, rp, cnt ? ci + first : ci,
                                   cnt ? v + first : v, FCD_COO_FULL, FCD_COPY);
    free(rp);
    free(ri);
    free(ci);
    free(v);
    fcd_system_destroy(whole);
  }
  if (st != FCD_OK) return st;
  double *f = calloc((size_t)n, sizeof *f);
  if (kase == 0) {
    fcd_index nt = b->nx + 1;
    fcd_index *dofs = malloc(sizeof *dofs * 2 * (size_t)nt);
    double *val = malloc(sizeof *val * 2 * (size_t)nt);
    for (int i = 0; i <= b->nx; i++) {
      dofs[2 * i] = 2 * tb_node(b, i, b->ny);
      dofs[2 * i + 1] = dofs[2 * i] + 1;
      val[2 * i] = 0.004 * b->h;
      val[2 * i + 1] = -0.01 * b->h;
    }
    st = fcd_system_fix_dofs(m->sys, 2 * nt, dofs, val);
    free(dofs);
    free(val);
  } else {
    for (int i = 0; i <= b->nx; i++) {
      f[2 * tb_node(b, i, b->ny) + 1] = -1e-3 * b->e * b->w / (b->nx + 1);
      f[2 * tb_node(b, i, b->ny / 2)] = 0.2e-3 * b->e * b->w / (b->nx + 1);
    }
    if (kase == 2) {
      f[n - 2] = 0.1e-3 * b->e * b->w;
      f[n - 1] = -1e-3 * b->e * b->w;
    }
  }
  if (st == FCD_OK) st = fcd_system_set_load(m->sys, f);
  free(f);
  if (st == FCD_OK) st = tb_block_contacts(b, m->sys, 0.4, vg, &m->cs);
  if (st == FCD_OK && kase == 2) {
    const fcd_index d2[2] = {n - 2, n - 1};
    const double nrm[2] = {0, -1}, tan[2] = {1, 0};
    st = fcd_contact_set_add_rigid(m->cs, d2, nrm, tan, 0.0, 0.4, NULL);
  }
  if (st == FCD_OK) st = fcd_equilibrium_create(m->sys, no_contacts ? NULL : m->cs, &m->eq);
  return st;
}

static void destroy(model *m) {
  fcd_equilibrium_destroy(m->eq);
  fcd_contact_set_destroy(m->cs);
  fcd_system_destroy(m->sys);
}

/* the largest difference of u and r against the serial solve, relative to their sizes */
static double compare(const model *a, const model *s, fcd_index n, fcd_index m) {
  double *ua = malloc(sizeof *ua * (size_t)n), *us = malloc(sizeof *us * (size_t)n);
  double *ra = malloc(sizeof *ra * (size_t)m), *rs = malloc(sizeof *rs * (size_t)m);
  fcd_equilibrium_get_state(a->eq, ua);
  fcd_equilibrium_get_state(s->eq, us);
  fcd_equilibrium_get_reactions(a->eq, ra);
  fcd_equilibrium_get_reactions(s->eq, rs);
  double d = fmax(fcdt_rel_diff(ua, us, n), fcdt_rel_diff(ra, rs, m));
  free(ua);
  free(us);
  free(ra);
  free(rs);
  return d;
}

static double all_max(double v) {
  double w;
  MPI_Allreduce(&v, &w, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return w;
}

/* `test_distributed --write DIR`: the block's files for the CLI test (fcd_mpi.sh),
 * without MPI: K.mtx, M.mtx (and K.petsc, M.petsc), fixed.txt (the top clamped and pushed as in case 0),
 * contacts.txt (the bottom row on the flat, sliding velocity 1), mesh.vtk (its nodes and
 * triangles) */
static int write_model(const char *dir) {
  tb_block b;
  if (tb_block_build(&b, 40, 10, 4.0, 1.0, 1000.0, 0.3, 1.0)) return 1;
  fcd_system *sys;
  if (tb_block_system(&b, &sys) != FCD_OK) return 1;
  char path[1024];
  snprintf(path, sizeof path, "%s/K.mtx", dir);
  int bad = fcd_system_write_matrix_market(sys, FCD_STIFFNESS, path) != FCD_OK;
  snprintf(path, sizeof path, "%s/M.mtx", dir);
  bad |= fcd_system_write_matrix_market(sys, FCD_MASS, path) != FCD_OK;
  /* the same matrices as PETSc binary files (the writer is checked against PETSc's
   * MatLoad in tests/foundation/test_petsc_binary.c) */
  snprintf(path, sizeof path, "%s/K.petsc", dir);
  bad |= fcd_system_write_petsc_binary(sys, FCD_STIFFNESS, path) != FCD_OK;
  snprintf(path, sizeof path, "%s/M.petsc", dir);
  bad |= fcd_system_write_petsc_binary(sys, FCD_MASS, path) != FCD_OK;
  snprintf(path, sizeof path, "%s/fixed.txt", dir);
  FILE *fx = fopen(path, "w");
  snprintf(path, sizeof path, "%s/contacts.txt", dir);
  FILE *fc = fopen(path, "w");
  if (!fx || !fc) return 1;
  fprintf(fc, "fcd-contacts 1\ndim 2\n");
  for (int i = 0; i <= b.nx; i++) {
    fcd_index t = 2 * tb_node(&b, i, b.ny), c = 2 * tb_node(&b, i, 0);
    fprintf(fx, "%lld %.17g\n%lld %.17g\n", (long long)t, 0.004 * b.h, (long long)t + 1,
            -0.01 * b.h);
    fprintf(fc, "rigid %lld %lld  0 -1  1 0  0 0.4  1\n", (long long)c, (long long)c + 1);
  }
  bad |= fclose(fx) != 0;
  bad |= fclose(fc) != 0;
  /* mesh.vtk: the block's nodes and triangles (block2d.h's diagonals), for --series */
  fcd_index nn = b.ndofs / 2;
  double *xy = malloc(sizeof *xy * 2 * (size_t)nn);
  fcd_index *tri = malloc(sizeof *tri * 6 * (size_t)b.nx * (size_t)b.ny), q = 0;
  for (fcd_index k = 0; xy && k < nn; k++) {
    xy[2 * k] = (double)(k % (b.nx + 1)) * b.w / b.nx;
    xy[2 * k + 1] = (double)(k / (b.nx + 1)) * b.h / b.ny;
  }
  for (int j = 0; tri && j < b.ny; j++)
    for (int i = 0; i < b.nx; i++) {
      fcd_index a = tb_node(&b, i, j), bb = a + 1, cc = a + b.nx + 1, dd = cc + 1;
      fcd_index t6[6] = {a, bb, dd, a, dd, cc}, alt[6] = {a, bb, cc, bb, dd, cc};
      for (int k = 0; k < 6; k++) tri[q++] = (i + j) % 2 ? alt[k] : t6[k];
    }
  fcd_mesh *m = NULL;
  snprintf(path, sizeof path, "%s/mesh.vtk", dir);
  bad |= !xy || !tri || fcd_mesh_create(sys, 2, nn, xy, NULL, &m) != FCD_OK ||
         fcd_mesh_add_cells(m, FCD_VTK_TRIANGLE, q / 3, tri) != FCD_OK ||
         fcd_mesh_write_vtk(m, path, 0, NULL, NULL, NULL, NULL) != FCD_OK;
  fcd_mesh_destroy(m);
  free(xy);
  free(tri);
  fcd_system_destroy(sys);
  tb_block_free(&b);
  return bad;
}

/* 100 steps of a scheme on the block with mass: falling on the flat with a sideways
 * velocity (impacts, then sliding), under gravity; the quasistatic scheme, hanging from
 * its top, under gravity and a sideways load growing in time. Results: u, v, reactions
 * and the energy ledger. */
typedef struct {
  double *u, *v, *r, e[7];
} traj;

/* When nonzero, run_scheme's K is given in full storage with K_ij = k (1 + traj_skew),
 * K_ji = k (1 - traj_skew) for every off-diagonal pair: a circulatory part that makes
 * the steps LU ones. */
static double traj_skew;
/* run_scheme's last message when it failed; quiet_fail: a failure expected, not printed */
static char run_err[512];
static int quiet_fail;

/* the quasistatic scheme's load: gravity and the sideways push, growing with t */
static int ramp_load(void *ud, fcd_real t, fcd_index n, fcd_real *f) {
  const double *f0 = ud;
  for (fcd_index i = 0; i < n; i++) f[i] = f0[i] * (1 + 20 * t);
  return 0;
}

static fcd_status run_scheme(const tb_block *b, int distributed, fcd_scheme scheme, traj *out) {
  fcd_index n = b->ndofs, m = 2 * (b->nx + 1);
  fcd_system *sys;
  fcd_status st = fcd_system_create(n, &sys);
  fcd_index rb = 0, re = n;
  if (st == FCD_OK && distributed) {
    my_range(n, rank, &rb, &re);
    st = fcd_system_set_distribution(sys, comm_f, rb, re);
  }
  for (int k = 0; k < 2 && st == FCD_OK; k++) {
    fcd_index nz = k ? b->nm : b->nk, cnt = 0;
    const fcd_index *bi = k ? b->mi : b->ki, *bj = k ? b->mj : b->kj;
    const double *bv = k ? b->mv : b->kv;
    fcd_index *ri = malloc(sizeof *ri * (size_t)nz), *ci = malloc(sizeof *ci * (size_t)nz);
    double *v = malloc(sizeof *v * (size_t)nz);
    int skew = k == 0 && traj_skew != 0;
    if (skew) { /* full storage: room for the mirrors */
      ri = realloc(ri, sizeof *ri * 2 * (size_t)nz);
      ci = realloc(ci, sizeof *ci * 2 * (size_t)nz);
      v = realloc(v, sizeof *v * 2 * (size_t)nz);
    }
    for (fcd_index p = 0; p < nz; p++) {
      double sk = skew && bi[p] != bj[p] ? traj_skew : 0;
      if (bi[p] >= rb && bi[p] < re) {
        ri[cnt] = bi[p];
        ci[cnt] = bj[p];
        v[cnt++] = bv[p] * (1 + sk);
      }
      if (sk != 0 && bj[p] >= rb && bj[p] < re) {
        ri[cnt] = bj[p];
        ci[cnt] = bi[p];
        v[cnt++] = bv[p] * (1 - sk);
      }
    }
    st = fcd_system_set_matrix_coo(sys, k ? FCD_MASS : FCD_STIFFNESS, cnt, ri, ci, v,
                                   skew ? FCD_COO_FULL : FCD_COO_UPPER);
    free(ri);
    free(ci);
    free(v);
  }
  double *f = calloc((size_t)n, sizeof *f), *u0 = calloc((size_t)n, sizeof *u0);
  double *v0 = calloc((size_t)n, sizeof *v0);
  for (fcd_index i = 0; i < n; i += 2) {
    f[i + 1] = -9.81 * b->rho * b->w * b->h / (double)(n / 2);
    if (scheme == FCD_SCHEME_QUASISTATIC) f[i] = 0.3 * -f[i + 1];
    v0[i] = 0.3;
    v0[i + 1] = -0.2;
  }
  if (st == FCD_OK)
    st = scheme == FCD_SCHEME_QUASISTATIC ? fcd_system_set_load_fn(sys, ramp_load, f)
                                          : fcd_system_set_load(sys, f);
  /* the quasistatic block hangs from its clamped top (no rigid mode: its chain of static
   * solves is as well conditioned as the model) */
  for (int i = 0; i <= b->nx && st == FCD_OK && scheme == FCD_SCHEME_QUASISTATIC; i++) {
    fcd_index top[2] = {2 * tb_node(b, i, b->ny), 2 * tb_node(b, i, b->ny) + 1};
    st = fcd_system_fix_dofs(sys, 2, top, NULL);
  }
  fcd_contact_set *cs = NULL;
  if (st == FCD_OK)
    st = tb_block_contacts(b, sys, 0.3, scheme == FCD_SCHEME_MODIFIED_THETA ? 0.5 : 0.0, &cs);
  fcd_integrator *it = NULL;
  if (st == FCD_OK) st = fcd_integrator_create(sys, cs, scheme, &it);
  if (st == FCD_OK) st = fcd_integrator_set_param(it, FCD_PARAM_STEP, 1e-3);
  if (st == FCD_OK) st = fcd_integrator_set_state(it, 0.0, u0, v0);
  for (int k = 0; k < 100 && st == FCD_OK; k++) st = fcd_integrator_step(it);
  snprintf(run_err, sizeof run_err, "%s", st != FCD_OK ? fcd_system_last_error(sys) : "");
  if (st != FCD_OK && !quiet_fail) fprintf(stderr, "rank %d: %s\n", rank, run_err);
  out->u = malloc(sizeof *out->u * (size_t)n);
  out->v = malloc(sizeof *out->v * (size_t)n);
  out->r = malloc(sizeof *out->r * (size_t)m);
  if (st == FCD_OK) {
    double t;
    fcd_energy e;
    fcd_integrator_get_state(it, &t, out->u, out->v);
    fcd_integrator_get_reactions(it, out->r);
    fcd_integrator_get_energy(it, &e);
    double ev[7] = {e.kinetic, e.potential, e.external_work, e.damping_dissipation,
                    e.friction_dissipation, e.impact_dissipation, e.numerical_dissipation};
    memcpy(out->e, ev, sizeof ev);
  }
  fcd_integrator_destroy(it);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
  free(f);
  free(u0);
  free(v0);
  return st;
}

static void traj_free(traj *t) {
  free(t->u);
  free(t->v);
  free(t->r);
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--write") == 0) return write_model(argv[2]);
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  comm_f = (int64_t)MPI_Comm_c2f(MPI_COMM_WORLD);
  tb_block b;
  CHECK(tb_block_build(&b, 40, 10, 4.0, 1.0, 1000.0, 0.3, 0.0) == 0);
  fcd_index n = b.ndofs, m = 2 * (b.nx + 1);

  /* ---- equal to the serial solve ---- */
  struct {
    int kase, csr;
    fcd_equilibrium_kind kind;
    double vg;
    const char *name;
  } cases[] = {{0, 0, FCD_EQ_STATIC, 0, "static, top clamped"},
               {0, 1, FCD_EQ_STATIC, 0, "static, top clamped, CSR input"},
               {1, 0, FCD_EQ_STATIC, 0, "static, held by its contacts"},
               {2, 0, FCD_EQ_STATIC, 0, "static, and a node only its contact holds"},
               {0, 0, FCD_EQ_STEADY_SLIDING, 1.0, "steady sliding"}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    model ser, dis;
    CHECK_ST(build(&b, 0, 0, cases[c].kase, cases[c].vg, &ser), FCD_OK);
    CHECK_ST(build(&b, 1, cases[c].csr, cases[c].kase, cases[c].vg, &dis), FCD_OK);
    CHECK_ST(fcd_equilibrium_solve(ser.eq, cases[c].kind, 0.0), FCD_OK);
    fcd_status st = fcd_equilibrium_solve(dis.eq, cases[c].kind, 0.0);
    CHECK_ST(st, FCD_OK);
    if (st != FCD_OK) fprintf(stderr, "rank %d: %s\n", rank, fcd_system_last_error(dis.sys));
    fcd_index nc = n, mc = m;
    if (cases[c].kase == 2) {
      /* closed form: the flat takes the appended node's whole load (normal (0, -1)) */
      double *r = malloc(sizeof *r * (size_t)(m + 2)), f0 = 1e-3 * b.e * b.w;
      fcd_equilibrium_get_reactions(dis.eq, r);
      CHECK_CLOSE(r[m], -f0, 1e-10);
      CHECK_CLOSE(r[m + 1], -0.1 * f0, 1e-10);
      free(r);
      nc += 2;
      mc += 2;
    }
    double diff = all_max(compare(&dis, &ser, nc, mc));
    CHECK(diff < 1e-10);
    /* the contacts did something: some closed, some reaction */
    int *set = malloc(sizeof *set * (size_t)(mc / 2)), closed = 0; /* 2D: mc / 2 contacts */
    fcd_equilibrium_get_contact_sets(dis.eq, set);
    for (fcd_index i = 0; i < mc / 2; i++) closed += set[i] != FCD_EQ_SEPARATED;
    CHECK(closed > 0);
    free(set);
    /* a second solve reuses the factor: same answer */
    CHECK_ST(fcd_equilibrium_solve(dis.eq, cases[c].kind, 0.0), FCD_OK);
    CHECK(all_max(compare(&dis, &ser, nc, mc)) < 1e-10);
    if (c == 0) {
      /* a wall at the right side, which the block pushed right reaches: another set of
       * contact dofs, so the distributed factor eliminates a new Schur set */
      fcd_index nd = tb_node(&b, b.nx, b.ny / 2), dofs[2] = {2 * nd, 2 * nd + 1};
      const double nrm[2] = {1, 0}, tan[2] = {0, 1};
      CHECK_ST(fcd_contact_set_add_rigid(ser.cs, dofs, nrm, tan, 1e-4 * b.h, 0.2, NULL), FCD_OK);
      CHECK_ST(fcd_contact_set_add_rigid(dis.cs, dofs, nrm, tan, 1e-4 * b.h, 0.2, NULL), FCD_OK);
      /* the last solution's per-contact results do not cover the added contact (they
       * once read past their arrays, and the next solve's warm start too) */
      double *old = malloc(sizeof *old * (size_t)(m + 2));
      CHECK_ST(fcd_equilibrium_get_reactions(ser.eq, old), FCD_E_STATE);
      CHECK_ST(fcd_equilibrium_get_reactions(dis.eq, old), FCD_E_STATE);
      free(old);
      CHECK_ST(fcd_equilibrium_solve(ser.eq, cases[c].kind, 0.0), FCD_OK);
      st = fcd_equilibrium_solve(dis.eq, cases[c].kind, 0.0);
      CHECK_ST(st, FCD_OK);
      if (st != FCD_OK) fprintf(stderr, "rank %d: %s\n", rank, fcd_system_last_error(dis.sys));
      double r[2];
      double *rs = malloc(sizeof *rs * (size_t)(m + 2));
      fcd_equilibrium_get_reactions(ser.eq, rs);
      r[0] = rs[m];
      r[1] = rs[m + 1];
      free(rs);
      CHECK(fabs(r[0]) > 0); /* the block reaches the wall */
      double dw = all_max(compare(&dis, &ser, n, m + 2));
      CHECK(dw < 1e-10);
      if (rank == 0)
        printf("%d rank(s), a wall added: largest relative difference to the serial solve "
               "%.1e (wall reaction %.3g)\n", size, dw, r[0]);
    }
    if (rank == 0)
      printf("%d rank(s), %s: %lld dofs, largest relative difference to the serial solve "
             "%.1e\n", size, cases[c].name, (long long)nc, diff);
    destroy(&ser);
    destroy(&dis);
  }

  /* ---- 100 steps of each scheme, equal to the serial trajectory ---- */
  {
    tb_block bm;
    CHECK(tb_block_build(&bm, 40, 10, 4.0, 1.0, 1000.0, 0.3, 1.0) == 0);
    const fcd_scheme schemes[] = {FCD_SCHEME_MOREAU_JEAN, FCD_SCHEME_FREMOND,
                                  FCD_SCHEME_MODIFIED_THETA, FCD_SCHEME_QUASISTATIC};
    const char *names[] = {"Moreau-Jean", "Fremond", "modified theta", "quasistatic"};
    /* every scheme, then Moreau-Jean and the quasistatic scheme with a non-symmetric K */
    const int runs[6][2] = {{0, 0}, {1, 0}, {2, 0}, {3, 0}, {0, 1}, {3, 1}};
    for (int q = 0; q < 6; q++) {
      traj ts, td;
      int k = runs[q][0];
      traj_skew = runs[q][1] ? 0.05 : 0;
      CHECK_ST(run_scheme(&bm, 0, schemes[k], &ts), FCD_OK);
      CHECK_ST(run_scheme(&bm, 1, schemes[k], &td), FCD_OK);
      fcd_index m2 = 2 * (bm.nx + 1);
      double du = fcdt_rel_diff(td.u, ts.u, n), dv = fcdt_rel_diff(td.v, ts.v, n);
      double dr = fcdt_rel_diff(td.r, ts.r, m2);
      double de = fcdt_rel_diff(td.e, ts.e, 7);
      double worst = all_max(fmax(fmax(du, dv), fmax(dr, de)));
      CHECK(worst < 1e-10);
      /* the trajectory did something: the contacts carry load, energy moved */
      double rmax = 0;
      for (fcd_index i = 0; i < m2; i++) rmax = fmax(rmax, fabs(ts.r[i]));
      CHECK(rmax > 0);
      if (rank == 0)
        printf("%d rank(s), %s%s, 100 steps: largest relative difference to the serial "
               "trajectory %.1e (u %.1e, v %.1e, r %.1e, energies %.1e)\n", size, names[k],
               traj_skew != 0 ? " (non-symmetric K)" : "", worst, du, dv, dr, de);
      traj_free(&ts);
      traj_free(&td);
    }
    traj_skew = 0;
    tb_block_free(&bm);
  }

  /* ---- bad input: a status on every rank ---- */
  fcd_system *sys;
  fcd_index rb, re;
  my_range(n, rank, &rb, &re);
  /* a gap: rows [0, 1) owned by nobody (one rank) or between ranks 0 and 1 */
  CHECK_ST(fcd_system_create(n, &sys), FCD_OK);
  CHECK_ST(fcd_system_set_distribution(sys, comm_f, rank == size - 1 ? rb + 1 : rb, re),
           FCD_E_INVALID_ARG);
  if (rank == 0) CHECK(strstr(fcd_system_last_error(sys), "owned by no rank") != NULL);
  int r0, nr;
  CHECK_ST(fcd_system_get_distribution(sys, &r0, &nr, NULL, NULL), FCD_OK);
  CHECK(r0 == 0 && nr == 1); /* the failed call left the system serial */
  if (size > 1) {
    /* overlap: every rank but the first starts one row early */
    CHECK_ST(fcd_system_set_distribution(sys, comm_f, rank ? rb - 1 : rb, re),
             FCD_E_INVALID_ARG);
    CHECK(strstr(fcd_system_last_error(sys), "overlap") != NULL);
  }
  /* the last rank ends early */
  CHECK_ST(fcd_system_set_distribution(sys, comm_f, rb, rank == size - 1 ? re - 1 : re),
           FCD_E_INVALID_ARG);
  CHECK(strstr(fcd_system_last_error(sys), "owned by no rank") != NULL);
  /* a range that is not one */
  CHECK_ST(fcd_system_set_distribution(sys, comm_f, rank == 0 ? 5 : rb, rank == 0 ? 2 : re),
           FCD_E_INVALID_ARG);
  CHECK_ST(fcd_system_set_distribution(sys, 1LL << 40, rb, re), FCD_E_INVALID_ARG);
  fcd_system_destroy(sys);
  /* different global sizes */
  CHECK_ST(fcd_system_create(rank == size - 1 ? n + 2 : n, &sys), FCD_OK);
  CHECK_ST(fcd_system_set_distribution(sys, comm_f, rb, rank == size - 1 ? n + 2 : re),
           size > 1 ? FCD_E_INVALID_ARG : FCD_OK);
  if (size > 1) CHECK(strstr(fcd_system_last_error(sys), "inconsistent global sizes") != NULL);
  fcd_system_destroy(sys);
  /* a matrix set before the distribution, on the last rank only */
  CHECK_ST(fcd_system_create(n, &sys), FCD_OK);
  if (rank == size - 1) {
    fcd_index i0 = 0;
    double one = 1;
    CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_MASS, 1, &i0, &i0, &one, FCD_COO_FULL), FCD_OK);
  }
  CHECK_ST(fcd_system_set_distribution(sys, comm_f, rb, re), FCD_E_STATE);
  CHECK(strstr(fcd_system_last_error(sys), "already holds a matrix") != NULL);
  fcd_system_destroy(sys);
  /* an entry on a row this rank does not own; FCD_BORROW */
  CHECK_ST(fcd_system_create(n, &sys), FCD_OK);
  CHECK_ST(fcd_system_set_distribution(sys, comm_f, rb, re), FCD_OK);
  {
    fcd_index i = re < n ? re : rb - 1, j = i;
    double one = 1;
    if (size > 1) {
      CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, 1, &i, &j, &one, FCD_COO_FULL),
               FCD_E_INVALID_ARG);
      CHECK(strstr(fcd_system_last_error(sys), "does not own") != NULL);
    }
    fcd_index *rp = calloc((size_t)(re - rb) + 1, sizeof *rp);
    CHECK_ST(fcd_system_set_matrix_csr(sys, FCD_STIFFNESS, rp, &j, &one, FCD_COO_FULL,
                                       FCD_BORROW), FCD_E_INVALID_ARG);
    free(rp);
  }
  /* what is not distributed yet says so */
  {
    fcd_stability *stab;
    CHECK_ST(fcd_stability_create(sys, NULL, &stab), FCD_E_UNSUPPORTED);
  }
  fcd_system_destroy(sys);

  /* replicated data that differ: rank 0's load is another; a bad argument on one rank;
   * an indefinite stiffness. Every rank returns the same status. */
  {
    model dm;
    CHECK_ST(build(&b, 1, 0, 1, 0, &dm), FCD_OK);
    if (rank == 0) {
      double *f = calloc((size_t)n, sizeof *f);
      f[2 * tb_node(&b, b.nx / 2, b.ny) + 1] = -1;
      fcd_system_set_load(dm.sys, f);
      free(f);
    }
    fcd_status st = fcd_equilibrium_solve(dm.eq, FCD_EQ_STATIC, 0.0);
    CHECK_ST(st, size > 1 ? FCD_E_INVALID_ARG : FCD_OK);
    if (size > 1) CHECK(strstr(fcd_system_last_error(dm.sys), "different replicated") != NULL);
    st = fcd_equilibrium_solve(dm.eq, rank == size - 1 ? (fcd_equilibrium_kind)7 : FCD_EQ_STATIC,
                               0.0);
    CHECK_ST(st, FCD_E_INVALID_ARG);
    if (rank != size - 1) CHECK(strstr(fcd_system_last_error(dm.sys), "failed") != NULL);
    destroy(&dm);
  }
  {
    tb_block neg = b;
    /* flip the sign of K: negative definite, which no equilibrium has */
    double *kv = malloc(sizeof *kv * (size_t)b.nk);
    for (fcd_index p = 0; p < b.nk; p++) kv[p] = -b.kv[p];
    neg.kv = kv;
    model dm;
    CHECK_ST(build(&neg, 1, 0, 0, 0, &dm), FCD_OK);
    fcd_status st = fcd_equilibrium_solve(dm.eq, FCD_EQ_STATIC, 0.0);
    CHECK_ST(st, FCD_E_SINGULAR);
    if (rank == 0) printf("negative definite K: %s\n", fcd_system_last_error(dm.sys));
    destroy(&dm);
    /* K positive definite away from the contacts, but the bottom row's (the contact
     * dofs') own diagonal entries cut to 1 %: every diagonal entry stays positive, so
     * the factor's check of the diagonal passes; MUMPS eliminates the rest without a
     * negative pivot, and the Schur complement on the contact dofs, factored by
     * ScaLAPACK over the ranks, is what is indefinite (its diagonal is 0.01 k_dd minus
     * the positive k_dr K_rr^-1 k_rd, which is most of k_dd at a boundary node). Every
     * rank must see it. */
    for (fcd_index p = 0; p < b.nk; p++)
      kv[p] = b.ki[p] == b.kj[p] && b.ki[p] < 2 * (b.nx + 1) ? 0.01 * b.kv[p] : b.kv[p];
    CHECK_ST(build(&neg, 1, 0, 0, 0, &dm), FCD_OK);
    st = fcd_equilibrium_solve(dm.eq, FCD_EQ_STATIC, 0.0);
    CHECK_ST(st, FCD_E_SINGULAR);
    CHECK(strstr(fcd_system_last_error(dm.sys), "indefinite") != NULL);
    CHECK(strstr(fcd_system_last_error(dm.sys), "diagonal") == NULL);
    if (rank == 0) printf("indefinite on the contact dofs: %s\n", fcd_system_last_error(dm.sys));
    destroy(&dm);
    /* a free dof no element reaches (its row and column of K stored as zeros, as a host
     * that assembles a node into no element gives them): the operator has no entry
     * there. MUMPS reported INFOG(1) = -2 or -8 for an operator with no entry at all,
     * naming no dof; every rank now returns the same status and names the dof, on the
     * distributed path as on the serial one. The dof is mid-block, on the last rank. */
    fcd_index zd = 2 * tb_node(&b, b.nx / 2, b.ny / 2) + 1;
    for (fcd_index p = 0; p < b.nk; p++) kv[p] = b.ki[p] == zd || b.kj[p] == zd ? 0 : b.kv[p];
    char want[64];
    snprintf(want, sizeof want, "the stiffness is zero at dof %lld", (long long)zd);
    for (int distributed = 0; distributed < 2; distributed++) {
      CHECK_ST(build(&neg, distributed, 0, 0, 0, &dm), FCD_OK);
      st = fcd_equilibrium_solve(dm.eq, FCD_EQ_STATIC, 0.0);
      CHECK_ST(st, FCD_E_SINGULAR);
      CHECK(strstr(fcd_system_last_error(dm.sys), want) != NULL);
      if (rank == 0 && distributed)
        printf("a dof without stiffness: %s\n", fcd_system_last_error(dm.sys));
      destroy(&dm);
    }
    /* the integrators: the same dof given neither stiffness nor mass. Moreau-Jean's
     * operator M + h^2 theta^2 K has a zero diagonal there: FCD_E_NOT_SPD on every rank,
     * naming the dof, before any backend factors it */
    double *mv = malloc(sizeof *mv * (size_t)b.nm);
    for (fcd_index p = 0; p < b.nm; p++) mv[p] = b.mi[p] == zd || b.mj[p] == zd ? 0 : b.mv[p];
    neg.mv = mv;
    snprintf(want, sizeof want, "diagonal entry at dof %lld is 0", (long long)zd);
    quiet_fail = 1;
    for (int distributed = 0; distributed < 2; distributed++) {
      traj tr;
      CHECK_ST(run_scheme(&neg, distributed, FCD_SCHEME_MOREAU_JEAN, &tr), FCD_E_NOT_SPD);
      CHECK(strstr(run_err, want) != NULL);
      if (rank == 0 && distributed) printf("a dof without stiffness or mass: %s\n", run_err);
      traj_free(&tr);
    }
    quiet_fail = 0;
    free(mv);
    free(kv);
  }
  {
    /* A non-symmetric K in full storage, its odd entry on one rank and its mirror on
     * another: MUMPS' LU (SYM = 0), with the contact dofs' Schur complement factored by
     * ScaLAPACK's LU over the ranks, or PETSc's MUMPS LU without contacts, must give the serial
     * UMFPACK solve of the same K to 1e-10. A 1e-3 asymmetry moves the solution by far
     * more than that (printed: the symmetric K's solve against the non-symmetric one), so
     * a transposed Schur complement or a factor of one triangle would show. */
    struct {
      double vg;
      int contacts;
      fcd_equilibrium_kind kind;
      const char *name;
    } ncases[] = {{0, 1, FCD_EQ_STATIC, "static"},
                  {1.0, 1, FCD_EQ_STEADY_SLIDING, "steady sliding"},
                  {0, 0, FCD_EQ_STATIC, "static, no contacts"}};
    for (size_t c = 0; c < sizeof ncases / sizeof ncases[0]; c++) {
      model ser, dis, sym;
      no_contacts = !ncases[c].contacts;
      CHECK_ST(build(&b, 0, 1, 0, ncases[c].vg, &sym), FCD_OK);
      asym_perturb = 1e-3;
      CHECK_ST(build(&b, 0, 1, 0, ncases[c].vg, &ser), FCD_OK);
      CHECK_ST(build(&b, 1, 1, 0, ncases[c].vg, &dis), FCD_OK);
      asym_perturb = 0;
      no_contacts = 0;
      CHECK_ST(fcd_equilibrium_solve(sym.eq, ncases[c].kind, 0.0), FCD_OK);
      CHECK_ST(fcd_equilibrium_solve(ser.eq, ncases[c].kind, 0.0), FCD_OK);
      fcd_status st = fcd_equilibrium_solve(dis.eq, ncases[c].kind, 0.0);
      CHECK_ST(st, FCD_OK);
      if (st != FCD_OK) fprintf(stderr, "rank %d: %s\n", rank, fcd_system_last_error(dis.sys));
      fcd_index mc = ncases[c].contacts ? m : 0;
      double d = all_max(st == FCD_OK ? compare(&dis, &ser, n, mc) : INFINITY);
      double moved = compare(&sym, &ser, n, mc);
      if (rank == 0)
        printf("non-symmetric K (asymmetry %.3g), %s, %d ranks: %.3e from the serial LU "
               "(the symmetric K's solution is %.3e away)\n", asym_expected, ncases[c].name,
               size, d, moved);
      CHECK(d <= 1e-10);
      CHECK(moved >= 1e-7);
      destroy(&sym);
      destroy(&ser);
      destroy(&dis);
    }
  }
  /* ---- a host's allocator (fcd_set_allocator) under the distributed factor: the
   * answer is the same as the serial one, and every block of fcd's goes back to the
   * host's allocator on every rank. Installing it checks that no block of the solves
   * above is left (fcd_set_allocator is FCD_E_STATE while one is). ---- */
  {
    const fcd_allocator a = {host_alloc, host_free, NULL};
    CHECK_ST(fcd_set_allocator(&a), FCD_OK);
    model ser, dis;
    CHECK_ST(build(&b, 0, 0, 0, 1.0, &ser), FCD_OK);
    CHECK_ST(fcd_equilibrium_solve(ser.eq, FCD_EQ_STEADY_SLIDING, 0.0), FCD_OK);
    CHECK_ST(build(&b, 1, 0, 0, 1.0, &dis), FCD_OK);
    CHECK_ST(fcd_equilibrium_solve(dis.eq, FCD_EQ_STEADY_SLIDING, 0.0), FCD_OK);
    CHECK(host_live > 0);
    CHECK(all_max(compare(&dis, &ser, n, m)) < 1e-10);
    destroy(&dis);
    destroy(&ser);
    CHECK(host_live == 0);
    CHECK_ST(fcd_set_allocator(NULL), FCD_OK);
  }

  tb_block_free(&b);
  int failures = fcdt_failures, any;
  MPI_Allreduce(&failures, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) printf("%d checks on rank 0, %d failed (worst rank: %d)\n", fcdt_checks,
                        fcdt_failures, any);
  fcd_finalize();
  MPI_Finalize();
  return any ? 1 : 0;
}
