/* Every public function against every class of bad input that applies to it (issue 9,
 * ARCHITECTURE.md "Quality bars"), generated from a table rather than written case by
 * case.
 *
 * Each row of the table describes one public call: an adapter that makes the call from
 * an argument vector, and for each argument its kind (which says what bad values it has
 * and which status each must give) and its valid value. The generator then builds one
 * case per (row, argument, bad value): a fresh fixture (a small 2D model with contacts,
 * an integrator, an equilibrium and a stability analysis, a lattice and a local
 * frictional contact problem, every one solved once), the call with that one argument
 * spoiled and all others valid, and three checks:
 *  1. the status is the specific one the argument kind calls for;
 *  2. where the call has a handle to carry it, a message naming the problem was left
 *     (NULL pointers must say "NULL", non-finite reals must say so, unknown keys must
 *     name the key, out-of-range indices must name the index);
 *  3. the handles still work: a probe (a matrix product, integrator steps from a fixed
 *     state, an equilibrium solve, a stability solve, lattice steps, a contact solve)
 *     gives bitwise the results of the same probe on an untouched fixture.
 * Rows that no argument mutation can express (calls in the wrong order, non-SPD mass,
 * contacts on prescribed dofs, malformed and truncated files, wrong sizes) are listed
 * as whole cases with their expected status, and go through the same checks 2 and 3.
 * The count is printed. Under ASan (CI) a leak in any failing path fails the test. */
#include <fcd/fcd.h>

#include "../fcdtest.h"

enum { N = 8, NC = 2, DIM = 2, M = DIM * NC, MAXA = 12 };

/* ---- the fixture -------------------------------------------------------------- */
typedef struct {
  fcd_system *sys;
  fcd_contact_set *cs;
  fcd_integrator *it;
  fcd_equilibrium *eq;
  fcd_stability *st;
  fcd_lattice *lat;
  fcd_fc_problem *fc;
  fcd_index nconv, lat_nodes, lat_springs, lat_constraints;
  /* valid argument buffers */
  double xn[N], yn[N], xm[M], ym[M], xc[NC], yc[NC], slip[NC], speed[NC], rn[NC];
  double xnode[DIM], out1, out2, out3, out4, lat_m[256], lat_m2[256], lat_q[64];
  fcd_index dofs_free[DIM], dofs_b[DIM], idx1, idx2, idx3, idxn[N];
  double normal[DIM], tangent[DIM], vg[DIM - 1];
  int status[NC], int_nc[NC], int1, int2, int3;
  fcd_energy energy;
  fcd_certificate cert;
  void *hout; /* a handle a create call returns */
  char errbuf[256];
} fx;

static char tmpdir[512];
static char path_mm[600], path_contacts[600], path_fixed[600], path_vec[600],
    path_out[600], path_missing[600], path_baddir[600], path_pbin[600], path_state[600];

/* A PETSc binary AIJ matrix file (big-endian int32 header, row lengths, columns, then
 * float64 values), spoilt on request: what == "vector" writes a vector's class id,
 * "truncated" stops before the values, "rowsum" makes the row lengths disagree with
 * the header, "column" puts a column out of range, "small" writes a 3 x 3 matrix. The
 * good file is 8 x 8 with 0.5 on the diagonal at dofs 2 and 3. */
static void be32(FILE *fp, long v) {
  unsigned char b[4] = {(unsigned char)(v >> 24), (unsigned char)(v >> 16),
                        (unsigned char)(v >> 8), (unsigned char)v};
  fwrite(b, 1, 4, fp);
}
static void write_pbin(const char *path, const char *what) {
  FILE *fp = fopen(path, "wb");
  if (!fp) return;
  long n = !strcmp(what, "small") ? 3 : 8;
  be32(fp, !strcmp(what, "vector") ? 1211214 : 1211216);
  be32(fp, n);
  be32(fp, n);
  be32(fp, 2);
  for (long i = 0; i < n; i++) be32(fp, (i == 1 || i == 2) ? (!strcmp(what, "rowsum") && i == 2 ? 2 : 1) : 0);
  be32(fp, 1);
  be32(fp, !strcmp(what, "column") ? 11 : 2);
  if (strcmp(what, "truncated") != 0) {
    const unsigned char half[8] = {0x3f, 0xe0, 0, 0, 0, 0, 0, 0}; /* 0.5 */
    fwrite(half, 1, 8, fp);
    fwrite(half, 1, 8, fp);
  }
  fclose(fp);
}

static const double W_VAL[] = {2, 0.5, 0.5, 1.5, 2.5, 0.2, 0.2, 1.0};
static const fcd_index W_ROW[] = {0, 2, 4, 6, 8}, W_COL[] = {0, 1, 0, 1, 2, 3, 2, 3};
static const double W_Q[M] = {-1, 0.3, -0.5, -0.4}, W_MU[NC] = {0.3, 0.5};
/* one contact's friction coefficient (the batch adds, with a count of 1) */
static const double MU1[1] = {0.3};
/* a contact given by rows on the free dofs 6 and 7 (fcd_contact_set_add_rows) */
static const fcd_index RPTR[3] = {0, 1, 2}, RDOF[2] = {7, 6};
static const double RW[2] = {-1.0, 1.0};

/* Four nodes on a line, node 0 clamped, springs between neighbours in x and y, nodes 1
 * and 2 on a rough floor (normal -y) that slides, node 3 free; a load pressing down and
 * pulling along x. */
static int fixture_build(fx *f, int solved) {
  memset(f, 0, sizeof *f);
  const fcd_index kr[] = {0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 7},
                  kc[] = {0, 2, 1, 3, 2, 4, 3, 5, 4, 6, 5, 7, 6, 7};
  const double kv[] = {100, -100, 100, -100, 200, -100, 200, -100, 200, -100, 200, -100, 100, 100};
  const fcd_index mi[N] = {0, 1, 2, 3, 4, 5, 6, 7}, fixed[2] = {0, 1};
  const double mv[N] = {1, 1, 1, 1, 1, 1, 0.5, 0.5}, load[N] = {0, 0, 1, -5, 2, -5, 0, -1};
  if (fcd_system_create(N, &f->sys) || fcd_system_set_matrix_coo(f->sys, FCD_STIFFNESS, 14, kr, kc, kv, FCD_COO_UPPER) ||
      fcd_system_set_matrix_coo(f->sys, FCD_MASS, N, mi, mi, mv, FCD_COO_UPPER) ||
      fcd_system_fix_dofs(f->sys, 2, fixed, NULL) || fcd_system_set_load(f->sys, load) ||
      fcd_contact_set_create(f->sys, DIM, &f->cs))
    return 0;
  const double n[DIM] = {0, -1}, t[DIM] = {1, 0}, vg[1] = {1.0};
  for (int c = 0; c < NC; c++) {
    const fcd_index d[DIM] = {2 + 2 * c, 3 + 2 * c};
    if (fcd_contact_set_add_rigid(f->cs, d, n, t, 0.01, 0.4, NULL) ||
        fcd_contact_set_set_sliding_velocity(f->cs, c, vg))
      return 0;
  }
  if (fcd_integrator_create(f->sys, f->cs, FCD_SCHEME_MOREAU_JEAN, &f->it) ||
      fcd_integrator_set_param(f->it, FCD_PARAM_STEP, 1e-3) ||
      fcd_equilibrium_create(f->sys, f->cs, &f->eq) ||
      fcd_stability_create(f->sys, f->cs, &f->st) ||
      fcd_lattice_create_rect(3, 3, 1.0, 1.0, 0.01, 0.1, 0.5, 0.01, &f->lat) ||
      fcd_fc_problem_create_local(DIM, NC, W_ROW, W_COL, W_VAL, W_Q, W_MU, &f->fc, NULL, 0))
    return 0;
  fcd_lattice_sizes(f->lat, &f->lat_nodes, &f->lat_springs, &f->lat_constraints);
  if (f->lat_springs > 256 || f->lat_constraints > 64) return 0;
  for (int i = 0; i < N; i++) {
    f->xn[i] = 0.01 * (i + 1);
    f->idxn[i] = i;
  }
  for (int i = 0; i < M; i++) f->xm[i] = i % 2 ? 0.1 : -1.0;
  for (int c = 0; c < NC; c++) {
    f->xc[c] = 0.5;
    f->rn[c] = -1.0;
    f->speed[c] = 1.0;
    f->slip[c] = 1.0;
    f->status[c] = FCD_CONTACT_SLIP;
  }
  f->dofs_free[0] = 2;
  f->dofs_free[1] = 3;
  f->dofs_b[0] = 6;
  f->dofs_b[1] = 7;
  f->normal[1] = -1;
  f->tangent[0] = 1;
  f->vg[0] = 0.5;
  f->xnode[0] = 0.25;
  f->xnode[1] = 0.5;
  if (!solved) return 1;
  double u0[N] = {0}, v0[N] = {0}, r[M] = {0};
  if (fcd_integrator_set_state(f->it, 0, u0, v0) || fcd_integrator_step(f->it) ||
      fcd_equilibrium_solve(f->eq, FCD_EQ_STATIC, 0) ||
      fcd_stability_set_contact_state(f->st, f->status, f->slip) ||
      fcd_stability_solve(f->st, &f->nconv) || fcd_lattice_step(f->lat, 0.5, NULL) ||
      fcd_fc_problem_solve(f->fc, r, NULL, NULL))
    return 0;
  return 1;
}

static void fixture_free(fx *f) {
  fcd_integrator_destroy(f->it);
  fcd_equilibrium_destroy(f->eq);
  fcd_stability_destroy(f->st);
  fcd_contact_set_destroy(f->cs);
  fcd_system_destroy(f->sys);
  fcd_lattice_destroy(f->lat);
  fcd_fc_problem_destroy(f->fc);
}

/* The probe: everything every handle can do, from fixed inputs, into one vector. */
enum { PROBE_MAX = N + M + N + M + N + M + 4 + 256 + M + 8 };
static int probe(fx *f, double *out, int *len) {
  int k = 0, bad = 0;
  double x[N], u0[N] = {0}, v0[N] = {0}, r[M] = {0};
  for (int i = 0; i < N; i++) x[i] = 0.1 * (i + 1);
  bad |= fcd_system_apply(f->sys, FCD_STIFFNESS, x, out + k) != FCD_OK;
  k += N;
  if (fcd_contact_set_size(f->cs) != NC) return 0;
  bad |= fcd_contact_set_local(f->cs, x, out + k) != FCD_OK;
  k += M;
  bad |= fcd_integrator_set_state(f->it, 0, u0, v0) != FCD_OK;
  for (int s = 0; s < 3; s++) bad |= fcd_integrator_step(f->it) != FCD_OK;
  bad |= fcd_integrator_get_state(f->it, NULL, out + k, NULL) != FCD_OK;
  k += N;
  double big[64];
  bad |= fcd_contact_set_size(f->cs) != NC;
  if (bad) return 0; /* a wrongly accepted case changed the model: stop before buffers */
  bad |= fcd_integrator_get_reactions(f->it, big) != FCD_OK;
  memcpy(out + k, big, M * sizeof(double));
  k += M;
  bad |= fcd_equilibrium_solve(f->eq, FCD_EQ_STATIC, 0) != FCD_OK;
  bad |= fcd_equilibrium_get_state(f->eq, out + k) != FCD_OK;
  k += N;
  bad |= fcd_equilibrium_get_reactions(f->eq, out + k) != FCD_OK;
  k += M;
  const int status[NC] = {FCD_CONTACT_SLIP, FCD_CONTACT_SLIP};
  const double slip[NC] = {1, 1};
  fcd_index nconv = 0;
  bad |= fcd_stability_set_contact_state(f->st, status, slip) != FCD_OK;
  bad |= fcd_stability_solve(f->st, &nconv) != FCD_OK;
  bad |= nconv < 2;
  for (int i = 0; i < 2 && i < nconv; i++)
    bad |= fcd_stability_get_eigenvalue(f->st, i, out + k + 2 * i, out + k + 2 * i + 1) != FCD_OK;
  k += 4;
  bad |= fcd_lattice_set_state(f->lat, 0, NULL, NULL) != FCD_OK;
  bad |= fcd_lattice_step(f->lat, 0.5, NULL) != FCD_OK;
  bad |= fcd_lattice_step(f->lat, 1.0, NULL) != FCD_OK;
  bad |= fcd_lattice_get_state(f->lat, NULL, out + k, NULL, NULL) != FCD_OK;
  k += (int)f->lat_springs;
  bad |= fcd_fc_problem_solve(f->fc, r, NULL, NULL) != FCD_OK;
  memcpy(out + k, r, sizeof r);
  k += M;
  *len = k;
  return !bad;
}

/* ---- argument kinds and the bad values each has ---------------------------------- */
typedef enum {
  K_NONE,     /* no argument (the rest of a row) */
  K_HANDLE,   /* NULL -> INVALID_ARG, no handle to carry a message */
  K_IN,       /* required input reals checked for finiteness: NULL, NaN, Inf */
  K_INRAW,    /* required input that may hold anything: NULL */
  K_OUT,      /* required output or input of another type: NULL */
  K_OPT,      /* may be NULL: no bad value */
  K_MKIND,    /* fcd_matrix_kind: 7, -1 */
  K_KEY,      /* parameter key: 9999 -> UNSUPPORTED */
  K_IDX,      /* index with an upper bound (see bound): -1, bound */
  K_COUNT,    /* count >= 0: -1 */
  K_FIN,      /* finite real: NaN, Inf */
  K_NONNEG,   /* real >= 0: -1, NaN */
  K_POS,      /* real > 0: 0, -1, NaN, Inf */
  K_UNIT,     /* real in (0, 1]: 0, 1.5, NaN */
  K_ENUM,     /* small enumeration: 99, -1 */
  K_ENUMR,    /* the same, passed as a real (parameter values) */
  K_DIM,      /* 2 or 3: 1, 4 */
  K_AXIS,     /* 0 .. dim-1: -1, dim */
  K_PATH_IN,  /* NULL -> INVALID_ARG, missing file -> IO */
  K_PATH_OUT, /* NULL -> INVALID_ARG, missing directory -> IO */
  K_PINT      /* integer >= 1 given as int: 0, -1 */
} kind;

typedef enum {
  B_NONE, B_NDOFS, B_NC, B_NCONV, B_NODES, B_SPRINGS, B_CONSTR
} bound;

/* where the valid value comes from */
typedef enum {
  S_LIT, S_SYS, S_CS, S_IT, S_EQ, S_ST, S_LAT, S_FC,
  S_XN, S_YN, S_XM, S_YM, S_XC, S_YC, S_SLIP, S_SPEED, S_RN, S_STATUS, S_INTNC,
  S_NORMAL, S_TANGENT, S_VG, S_DOFS, S_DOFSB, S_IDXN, S_XNODE,
  S_OUT1, S_OUT2, S_OUT3, S_OUT4, S_IDX1, S_IDX2, S_IDX3, S_INT1, S_INT2, S_INT3,
  S_LATM, S_LATM2, S_LATQ, S_ENERGY, S_CERT, S_ERRBUF, S_HOUT,
  S_PMM, S_PCONTACTS, S_PFIXED, S_PVEC, S_POUT, S_PPBIN, S_PSTATE,
  S_WROW, S_WCOL, S_WVAL, S_WQ, S_WMU, S_CROW, S_MU1, S_RPTR, S_RDOF, S_RW
} source;

typedef struct {
  kind k;
  source s;
  double lit; /* S_LIT value (integers are stored exactly) */
  bound b;
} argspec;

typedef union {
  void *p;
  long long i;
  double r;
} arg;

typedef enum { MS_NONE, MS_SYS, MS_LAT, MS_FC, MS_ERRBUF } msgsrc;

typedef fcd_status (*adapter)(arg *a);

typedef struct {
  const char *name;
  adapter call;
  msgsrc msg;
  argspec a[MAXA];
} row;

#define P(k_) (a[k_].p)
#define I(k_) (a[k_].i)
#define R(k_) (a[k_].r)

/* ---- adapters: one line per public function -------------------------------------- */
static fcd_status a_sys_create(arg *a) { return fcd_system_create(I(0), P(1)); }
static fcd_status a_sys_coo(arg *a) {
  return fcd_system_set_matrix_coo(P(0), (fcd_matrix_kind)I(1), I(2), P(3), P(4), P(5), (unsigned)I(6));
}
static fcd_status a_sys_csr(arg *a) {
  return fcd_system_set_matrix_csr(P(0), (fcd_matrix_kind)I(1), P(2), P(3), P(4), (unsigned)I(5), (fcd_ownership)I(6));
}
static fcd_status a_sys_changed(arg *a) { return fcd_system_matrix_values_changed(P(0), (fcd_matrix_kind)I(1)); }
static fcd_status a_sys_read_mm(arg *a) { return fcd_system_read_matrix_market(P(0), (fcd_matrix_kind)I(1), P(2)); }
static fcd_status a_mm_size(arg *a) { return fcd_matrix_market_size(P(0), P(1), P(2), P(3), P(4), 256); }
static fcd_status a_sys_write_mm(arg *a) { return fcd_system_write_matrix_market(P(0), (fcd_matrix_kind)I(1), P(2)); }
static fcd_status a_sys_read_pb(arg *a) { return fcd_system_read_petsc_binary(P(0), (fcd_matrix_kind)I(1), P(2)); }
static fcd_status a_pb_size(arg *a) { return fcd_petsc_binary_size(P(0), P(1), P(2), P(3), P(4), 256); }
static fcd_status a_sys_write_pb(arg *a) { return fcd_system_write_petsc_binary(P(0), (fcd_matrix_kind)I(1), P(2)); }
static fcd_status a_sys_nnz(arg *a) { return fcd_system_matrix_nnz(P(0), (fcd_matrix_kind)I(1), P(2), P(3)); }
static fcd_status a_sys_asym(arg *a) { return fcd_system_matrix_asymmetry(P(0), (fcd_matrix_kind)I(1), P(2)); }
static fcd_status a_sys_apply(arg *a) { return fcd_system_apply(P(0), (fcd_matrix_kind)I(1), P(2), P(3)); }
static fcd_status a_sys_set_dist(arg *a) { return fcd_system_set_distribution(P(0), I(1), I(2), I(3)); }
static fcd_status a_sys_get_dist(arg *a) { return fcd_system_get_distribution(P(0), P(1), P(2), P(3), P(4)); }
static fcd_status a_sys_rayleigh(arg *a) { return fcd_system_set_rayleigh(P(0), R(1), R(2)); }
static fcd_status a_sys_fix(arg *a) { return fcd_system_fix_dofs(P(0), I(1), P(2), P(3)); }
static fcd_status a_sys_clear_fixed(arg *a) { return fcd_system_clear_fixed(P(0)); }
static fcd_status a_sys_read_fixed(arg *a) { return fcd_system_read_fixed(P(0), P(1)); }
static fcd_status a_sys_get_fixed(arg *a) { return fcd_system_get_fixed(P(0), P(1), P(2)); }
static fcd_status a_sys_set_load(arg *a) { return fcd_system_set_load(P(0), P(1)); }
static fcd_status a_sys_load_fn(arg *a) { return fcd_system_set_load_fn(P(0), NULL, P(1)); }
static fcd_status a_sys_presc_fn(arg *a) { return fcd_system_set_prescribed_fn(P(0), NULL, P(1)); }
static fcd_status a_sys_eval_load(arg *a) { return fcd_system_eval_load(P(0), R(1), P(2)); }
static fcd_status a_sys_eval_presc(arg *a) { return fcd_system_eval_prescribed(P(0), R(1), P(2), P(3)); }
static fcd_status a_sys_spd(arg *a) { return fcd_system_check_spd(P(0), (fcd_matrix_kind)I(1)); }
static fcd_status a_sys_modes(arg *a) { return fcd_system_natural_modes(P(0), I(1), P(2), P(3), P(4)); }
static fcd_status a_sys_read_vec(arg *a) { return fcd_system_read_vector(P(0), P(1), I(2), P(3)); }
/* getters with sentinel returns: the documented sentinel for a NULL handle counts as
 * the rejection (they have no status to return) */
static fcd_status a_sys_ndofs(arg *a) { return fcd_system_ndofs(P(0)) == 0 ? FCD_E_INVALID_ARG : FCD_OK; }
static fcd_status a_sys_numfixed(arg *a) { return fcd_system_num_fixed(P(0)) == -1 ? FCD_E_INVALID_ARG : FCD_OK; }
static fcd_status a_sys_has(arg *a) {
  return fcd_system_has_matrix(P(0), (fcd_matrix_kind)I(1)) == 0 ? FCD_E_INVALID_ARG : FCD_OK;
}
static fcd_status a_cs_create(arg *a) { return fcd_contact_set_create(P(0), (int)I(1), P(2)); }
static fcd_status a_cs_rows(arg *a) { return fcd_contact_set_add_rows(P(0), P(1), P(2), P(3), R(4), R(5), P(6)); }
static fcd_status a_cs_rigid(arg *a) { return fcd_contact_set_add_rigid(P(0), P(1), P(2), P(3), R(4), R(5), P(6)); }
static fcd_status a_cs_rigid_n(arg *a) {
  return fcd_contact_set_add_rigid_n(P(0), I(1), P(2), P(3), P(4), P(5), P(6), P(7), P(8));
}
static fcd_status a_cs_pair_n(arg *a) {
  return fcd_contact_set_add_pair_n(P(0), I(1), P(2), P(3), P(4), P(5), P(6), P(7), P(8), P(9));
}
static fcd_status a_sys_support(arg *a) {
  return fcd_system_support_reactions(P(0), R(1), P(2), P(3), P(4), P(5));
}
static fcd_status a_cs_read_state(arg *a) {
  return fcd_contact_set_read_state(P(0), P(1), P(2), P(3));
}
static fcd_status a_cs_pair(arg *a) {
  return fcd_contact_set_add_pair(P(0), P(1), P(2), P(3), P(4), R(5), R(6), P(7));
}
static fcd_status a_cs_restitution(arg *a) { return fcd_contact_set_set_restitution(P(0), R(1)); }
static fcd_status a_cs_friction(arg *a) { return fcd_contact_set_set_friction(P(0), I(1), R(2)); }
static fcd_status a_cs_vg(arg *a) { return fcd_contact_set_set_sliding_velocity(P(0), I(1), P(2)); }
static fcd_status a_cs_read(arg *a) { return fcd_contact_set_read(P(0), P(1), P(2)); }
static fcd_status a_cs_read_mesh(arg *a) {
  return fcd_contact_set_read_mesh(P(0), P(1), NULL, P(2), NULL);
}
static fcd_status a_cs_get(arg *a) { return fcd_contact_set_get(P(0), I(1), P(2), P(3), P(4), P(5)); }
static fcd_status a_cs_local(arg *a) { return fcd_contact_set_local(P(0), P(1), P(2)); }
static fcd_status a_cs_global(arg *a) { return fcd_contact_set_global(P(0), P(1), P(2)); }
static fcd_status a_cs_size(arg *a) { return fcd_contact_set_size(P(0)) == -1 ? FCD_E_INVALID_ARG : FCD_OK; }
static fcd_status a_cs_dim(arg *a) { return fcd_contact_set_dim(P(0)) == 0 ? FCD_E_INVALID_ARG : FCD_OK; }
static fcd_status a_it_create(arg *a) { return fcd_integrator_create(P(0), P(1), (fcd_scheme)I(2), P(3)); }
static fcd_status a_it_param(arg *a) { return fcd_integrator_set_param(P(0), (int)I(1), R(2)); }
static fcd_status a_it_set_state(arg *a) { return fcd_integrator_set_state(P(0), R(1), P(2), P(3)); }
static fcd_status a_it_step(arg *a) { return fcd_integrator_step(P(0)); }
static fcd_status a_it_advance(arg *a) { return fcd_integrator_advance(P(0), R(1)); }
static fcd_status a_it_get_state(arg *a) { return fcd_integrator_get_state(P(0), P(1), P(2), P(3)); }
static fcd_status a_it_reactions(arg *a) { return fcd_integrator_get_reactions(P(0), P(1)); }
static fcd_status a_it_energy(arg *a) { return fcd_integrator_get_energy(P(0), P(1)); }
static fcd_status a_it_cert(arg *a) { return fcd_integrator_get_certificate(P(0), P(1)); }
static fcd_status a_eq_cert(arg *a) { return fcd_equilibrium_get_certificate(P(0), P(1)); }
static fcd_status a_fc_cert(arg *a) { return fcd_fc_problem_get_certificate(P(0), P(1)); }
static fcd_status a_st_ninf(arg *a) { return fcd_stability_get_infinite_count(P(0), P(1)); }
static fcd_status a_st_cert(arg *a) { return fcd_stability_get_certificate(P(0), P(1)); }
static fcd_status a_st_estimate(arg *a) {
  /* the fixture's dense solve has no estimate: FCD_E_STATE with its reason, whatever the
   * outputs; the handle argument is what can be spoilt */
  fcd_status st = fcd_stability_get_estimate(P(0), NULL, NULL, NULL, NULL);
  return st == FCD_E_STATE ? FCD_OK : st;
}
static fcd_status a_it_observer(arg *a) { return fcd_integrator_set_observer(P(0), NULL, P(1)); }
static fcd_status a_it_status(arg *a) { return fcd_integrator_get_contact_status(P(0), P(1)); }
static fcd_status a_eq_create(arg *a) { return fcd_equilibrium_create(P(0), P(1), P(2)); }
static fcd_status a_eq_param(arg *a) { return fcd_equilibrium_set_param(P(0), (int)I(1), R(2)); }
static fcd_status a_eq_ref(arg *a) { return fcd_equilibrium_set_reference(P(0), P(1)); }
static fcd_status a_eq_solve(arg *a) { return fcd_equilibrium_solve(P(0), (fcd_equilibrium_kind)I(1), R(2)); }
static fcd_status a_eq_state(arg *a) { return fcd_equilibrium_get_state(P(0), P(1)); }
static fcd_status a_eq_reactions(arg *a) { return fcd_equilibrium_get_reactions(P(0), P(1)); }
static fcd_status a_eq_sets(arg *a) { return fcd_equilibrium_get_contact_sets(P(0), P(1)); }
static fcd_status a_eq_cstate(arg *a) { return fcd_equilibrium_get_contact_state(P(0), P(1), P(2)); }
static fcd_status a_eq_residual(arg *a) { return fcd_equilibrium_get_residual(P(0), P(1), P(2)); }
static fcd_status a_st_create(arg *a) { return fcd_stability_create(P(0), P(1), P(2)); }
static fcd_status a_st_cstate(arg *a) { return fcd_stability_set_contact_state(P(0), P(1), P(2)); }
static fcd_status a_st_sliding(arg *a) { return fcd_stability_set_sliding_data(P(0), P(1), P(2)); }
static fcd_status a_st_param(arg *a) { return fcd_stability_set_param(P(0), (int)I(1), R(2)); }
static fcd_status a_st_solve(arg *a) { return fcd_stability_solve(P(0), P(1)); }
static fcd_status a_st_eig(arg *a) { return fcd_stability_get_eigenvalue(P(0), I(1), P(2), P(3)); }
static fcd_status a_st_info(arg *a) { return fcd_stability_get_mode_info(P(0), I(1), P(2), P(3), P(4)); }
static fcd_status a_st_mode(arg *a) { return fcd_stability_get_mode(P(0), I(1), P(2), P(3)); }
static fcd_status a_st_summary(arg *a) { return fcd_stability_get_summary(P(0), P(1), P(2), P(3), P(4)); }
static int sweep_cb(void *ud, fcd_real mu, fcd_index n, const fcd_real *re, const fcd_real *im,
                    const fcd_index *track) {
  (void)ud, (void)mu, (void)n, (void)re, (void)im, (void)track;
  return 0;
}
static fcd_status a_st_sweep(arg *a) { return fcd_stability_sweep(P(0), R(1), R(2), I(3), sweep_cb, P(4)); }
static fcd_status a_st_reduced(arg *a) {
  return fcd_stability_reduced_size(P(0)) == -1 ? FCD_E_INVALID_ARG : FCD_OK;
}
static fcd_status a_lat_create(arg *a) { return fcd_lattice_create((int)I(0), P(1)); }
static fcd_status a_lat_node(arg *a) { return fcd_lattice_add_node(P(0), P(1), P(2)); }
static fcd_status a_lat_move(arg *a) { return fcd_lattice_move_node(P(0), I(1), P(2)); }
static fcd_status a_lat_spring(arg *a) {
  return fcd_lattice_add_spring(P(0), I(1), I(2), R(3), R(4), R(5), R(6), P(7));
}
static fcd_status a_lat_constrain(arg *a) { return fcd_lattice_constrain(P(0), I(1), (int)I(2), R(3), R(4)); }
static fcd_status a_lat_load(arg *a) { return fcd_lattice_load(P(0), I(1), (int)I(2), R(3), R(4)); }
static fcd_status a_lat_rect(arg *a) {
  return fcd_lattice_create_rect((int)I(0), (int)I(1), R(2), R(3), R(4), R(5), R(6), R(7), P(8));
}
static fcd_status a_lat_tri(arg *a) {
  return fcd_lattice_create_tri((int)I(0), (int)I(1), R(2), R(3), R(4), R(5), R(6), R(7), P(8));
}
static fcd_status a_lat_sizes(arg *a) { return fcd_lattice_sizes(P(0), P(1), P(2), P(3)); }
static fcd_status a_lat_selfstress(arg *a) { return fcd_lattice_selfstress_dim(P(0), P(1)); }
static fcd_status a_lat_param(arg *a) { return fcd_lattice_set_param(P(0), (int)I(1), R(2)); }
static fcd_status a_lat_history(arg *a) { return fcd_lattice_set_history(P(0), NULL, P(1)); }
static fcd_status a_lat_guess(arg *a) { return fcd_lattice_set_guess(P(0), NULL, P(1)); }
static fcd_status a_lat_set_state(arg *a) { return fcd_lattice_set_state(P(0), R(1), P(2), P(3)); }
static fcd_status a_lat_step(arg *a) { return fcd_lattice_step(P(0), R(1), P(2)); }
static fcd_status a_lat_get_state(arg *a) { return fcd_lattice_get_state(P(0), P(1), P(2), P(3), P(4)); }
static fcd_status a_lat_reactions(arg *a) { return fcd_lattice_get_reactions(P(0), P(1)); }
static fcd_status a_lat_kkt(arg *a) { return fcd_lattice_get_kkt_residual(P(0), P(1)); }
static fcd_status a_lat_jac(arg *a) { return fcd_lattice_jacobian_eigenvalues(P(0), P(1), P(2)); }
static fcd_status a_lat_get_constraint(arg *a) {
  return fcd_lattice_get_constraint(P(0), I(1), P(2), P(3), P(4), P(5));
}
static fcd_status a_lat_get_node(arg *a) { return fcd_lattice_get_node(P(0), I(1), P(2)); }
static fcd_status a_lat_get_spring(arg *a) {
  return fcd_lattice_get_spring(P(0), I(1), P(2), P(3), P(4), P(5), P(6), P(7));
}
static fcd_status a_fc_local(arg *a) {
  return fcd_fc_problem_create_local((int)I(0), I(1), P(2), P(3), P(4), P(5), P(6), P(7), P(8), 256);
}
static fcd_status a_fc_read(arg *a) { return fcd_fc_problem_read_fclib(P(0), P(1), P(2), 256); }
static fcd_status a_fc_write(arg *a) { return fcd_fc_problem_write_fclib(P(0), P(1), P(2)); }
static fcd_status a_fc_param(arg *a) { return fcd_fc_problem_set_param(P(0), (int)I(1), R(2)); }
static fcd_status a_fc_solve(arg *a) { return fcd_fc_problem_solve(P(0), P(1), P(2), P(3)); }
static fcd_status a_fc_result(arg *a) { return fcd_fc_problem_get_result(P(0), P(1), P(2), P(3)); }
static fcd_status a_fc_iterate(arg *a) { return fcd_fc_problem_get_iterate(P(0), P(1)); }
static fcd_status a_fc_residual(arg *a) { return fcd_fc_problem_residual(P(0), P(1), P(2)); }
static fcd_status a_fc_nnz(arg *a) { return fcd_fc_problem_local_nnz(P(0), P(1)); }
static fcd_status a_fc_get_local(arg *a) { return fcd_fc_problem_get_local(P(0), P(1), P(2), P(3), P(4), P(5)); }
static fcd_status a_fc_solution(arg *a) { return fcd_fc_problem_get_solution(P(0), P(1)); }
static fcd_status a_fc_dim(arg *a) { return fcd_fc_problem_dim(P(0)) == 0 ? FCD_E_INVALID_ARG : FCD_OK; }
static fcd_status a_fc_size(arg *a) { return fcd_fc_problem_size(P(0)) < 0 ? FCD_E_INVALID_ARG : FCD_OK; }

/* shorthands for the table */
#define H(src) {K_HANDLE, src, 0, B_NONE}
#define IN(src) {K_IN, src, 0, B_NONE}
#define INRAW(src) {K_INRAW, src, 0, B_NONE}
#define OUT(src) {K_OUT, src, 0, B_NONE}
#define OPT(src) {K_OPT, src, 0, B_NONE}
#define LIT(v) {K_OPT, S_LIT, v, B_NONE}
#define MK(v) {K_MKIND, S_LIT, v, B_NONE}
#define KEY(v) {K_KEY, S_LIT, v, B_NONE}
#define IDX(v, b) {K_IDX, S_LIT, v, b}
#define CNT(v) {K_COUNT, S_LIT, v, B_NONE}
#define FIN(v) {K_FIN, S_LIT, v, B_NONE}
#define NONNEG(v) {K_NONNEG, S_LIT, v, B_NONE}
#define POS(v) {K_POS, S_LIT, v, B_NONE}
#define UNIT(v) {K_UNIT, S_LIT, v, B_NONE}
#define ENUMV(v) {K_ENUM, S_LIT, v, B_NONE}
#define ENUMR(v) {K_ENUMR, S_LIT, v, B_NONE}
#define DIMV(v) {K_DIM, S_LIT, v, B_NONE}
#define AXIS(v) {K_AXIS, S_LIT, v, B_NONE}
#define PIN(src) {K_PATH_IN, src, 0, B_NONE}
#define POUT(src) {K_PATH_OUT, src, 0, B_NONE}
#define PINT(v) {K_PINT, S_LIT, v, B_NONE}
#define END {K_NONE, S_LIT, 0, B_NONE}

/* The public functions with a status or a sentinel to give. fcd_*_destroy (NULL-safe,
 * checked in the foundation suite), fcd_*_last_error (never NULL) and the pure
 * projections (NaN in, NaN out, documented) have no bad input to report. */
static const row rows[] = {
  {"fcd_system_create", a_sys_create, MS_NONE, {CNT(4), OUT(S_HOUT), END}},
  {"fcd_system_ndofs", a_sys_ndofs, MS_NONE, {H(S_SYS), END}},
  {"fcd_system_num_fixed", a_sys_numfixed, MS_NONE, {H(S_SYS), END}},
  {"fcd_system_has_matrix", a_sys_has, MS_NONE, {H(S_SYS), LIT(FCD_MASS), END}},
  {"fcd_system_set_matrix_coo", a_sys_coo, MS_SYS,
   {H(S_SYS), MK(FCD_DAMPING), CNT(N), INRAW(S_IDXN), INRAW(S_IDXN), IN(S_XN), LIT(FCD_COO_UPPER), END}},
  {"fcd_system_set_matrix_csr", a_sys_csr, MS_SYS,
   {H(S_SYS), MK(FCD_DAMPING), INRAW(S_CROW), INRAW(S_IDXN), IN(S_XN), LIT(0), LIT(FCD_COPY), END}},
  {"fcd_system_matrix_values_changed", a_sys_changed, MS_SYS, {H(S_SYS), MK(FCD_STIFFNESS), END}},
  {"fcd_system_read_matrix_market", a_sys_read_mm, MS_SYS, {H(S_SYS), MK(FCD_DAMPING), PIN(S_PMM), END}},
  {"fcd_matrix_market_size", a_mm_size, MS_ERRBUF,
   {PIN(S_PMM), OPT(S_IDX1), OPT(S_IDX2), OPT(S_IDX3), OPT(S_ERRBUF), END}},
  {"fcd_system_write_matrix_market", a_sys_write_mm, MS_SYS, {H(S_SYS), MK(FCD_MASS), POUT(S_POUT), END}},
  {"fcd_system_read_petsc_binary", a_sys_read_pb, MS_SYS, {H(S_SYS), MK(FCD_DAMPING), PIN(S_PPBIN), END}},
  {"fcd_petsc_binary_size", a_pb_size, MS_ERRBUF,
   {PIN(S_PPBIN), OPT(S_IDX1), OPT(S_IDX2), OPT(S_IDX3), OPT(S_ERRBUF), END}},
  {"fcd_system_write_petsc_binary", a_sys_write_pb, MS_SYS, {H(S_SYS), MK(FCD_MASS), POUT(S_POUT), END}},
  {"fcd_system_matrix_nnz", a_sys_nnz, MS_SYS, {H(S_SYS), MK(FCD_MASS), OPT(S_IDX1), OPT(S_IDX2), END}},
  {"fcd_system_matrix_asymmetry", a_sys_asym, MS_SYS, {H(S_SYS), MK(FCD_MASS), OUT(S_OUT1), END}},
  {"fcd_system_apply", a_sys_apply, MS_SYS, {H(S_SYS), MK(FCD_STIFFNESS), INRAW(S_XN), OUT(S_YN), END}},
  /* serial (this process has no MPI): only the handle can be bad; the partition checks
   * run under mpiexec in the distributed suite */
  {"fcd_system_set_distribution", a_sys_set_dist, MS_SYS,
   {H(S_SYS), LIT(FCD_COMM_SERIAL), LIT(0), LIT(N), END}},
  {"fcd_system_get_distribution", a_sys_get_dist, MS_SYS,
   {H(S_SYS), OPT(S_INT1), OPT(S_INT2), OPT(S_IDX1), OPT(S_IDX2), END}},
  {"fcd_system_set_rayleigh", a_sys_rayleigh, MS_SYS, {H(S_SYS), NONNEG(0.1), NONNEG(0.001), END}},
  {"fcd_system_fix_dofs", a_sys_fix, MS_SYS, {H(S_SYS), CNT(2), INRAW(S_DOFS), OPT(S_XC), END}},
  {"fcd_system_clear_fixed", a_sys_clear_fixed, MS_SYS, {H(S_SYS), END}},
  {"fcd_system_read_fixed", a_sys_read_fixed, MS_SYS, {H(S_SYS), PIN(S_PFIXED), END}},
  {"fcd_system_get_fixed", a_sys_get_fixed, MS_SYS, {H(S_SYS), OPT(S_IDXN), OPT(S_YN), END}},
  {"fcd_system_set_load", a_sys_set_load, MS_SYS, {H(S_SYS), END}},
  {"fcd_system_set_load_fn", a_sys_load_fn, MS_SYS, {H(S_SYS), OPT(S_OUT1), END}},
  {"fcd_system_set_prescribed_fn", a_sys_presc_fn, MS_SYS, {H(S_SYS), OPT(S_OUT1), END}},
  {"fcd_system_eval_load", a_sys_eval_load, MS_SYS, {H(S_SYS), FIN(0.5), OUT(S_YN), END}},
  {"fcd_system_eval_prescribed", a_sys_eval_presc, MS_SYS, {H(S_SYS), FIN(0.5), OUT(S_YC), OPT(S_XC), END}},
  {"fcd_system_support_reactions", a_sys_support, MS_SYS,
   {H(S_SYS), FIN(0.5), IN(S_XN), OPT(S_XN), OPT(S_XN), OUT(S_YC), END}},
  {"fcd_system_check_spd", a_sys_spd, MS_SYS, {H(S_SYS), MK(FCD_MASS), END}},
  {"fcd_system_natural_modes", a_sys_modes, MS_SYS,
   {H(S_SYS), CNT(1), OUT(S_OUT1), OPT(S_YN), OPT(S_IDX1), END}},
  {"fcd_system_read_vector", a_sys_read_vec, MS_SYS, {H(S_SYS), PIN(S_PVEC), CNT(N), OUT(S_YN), END}},
  {"fcd_contact_set_create", a_cs_create, MS_SYS, {H(S_SYS), DIMV(2), OUT(S_HOUT), END}},
  {"fcd_contact_set_size", a_cs_size, MS_NONE, {H(S_CS), END}},
  {"fcd_contact_set_dim", a_cs_dim, MS_NONE, {H(S_CS), END}},
  {"fcd_contact_set_add_rows", a_cs_rows, MS_SYS,
   {H(S_CS), INRAW(S_RPTR), INRAW(S_RDOF), IN(S_RW), NONNEG(0.0), NONNEG(0.3), OPT(S_IDX1), END}},
  {"fcd_contact_set_add_rigid", a_cs_rigid, MS_SYS,
   {H(S_CS), INRAW(S_DOFSB), IN(S_NORMAL), IN(S_TANGENT), NONNEG(0.0), NONNEG(0.3), OPT(S_IDX1), END}},
  {"fcd_contact_set_add_pair", a_cs_pair, MS_SYS,
   {H(S_CS), INRAW(S_DOFS), INRAW(S_DOFSB), IN(S_NORMAL), IN(S_TANGENT), NONNEG(0.0), NONNEG(0.3), OPT(S_IDX1), END}},
  {"fcd_contact_set_add_rigid_n", a_cs_rigid_n, MS_SYS,
   {H(S_CS), CNT(1), INRAW(S_DOFSB), IN(S_NORMAL), IN(S_TANGENT), OPT(S_SPEED), IN(S_MU1),
    OPT(S_VG), OPT(S_IDX1), END}},
  {"fcd_contact_set_add_pair_n", a_cs_pair_n, MS_SYS,
   {H(S_CS), CNT(1), INRAW(S_DOFS), INRAW(S_DOFSB), IN(S_NORMAL), IN(S_TANGENT), OPT(S_SPEED),
    IN(S_MU1), OPT(S_VG), OPT(S_IDX1), END}},
  {"fcd_contact_set_set_restitution", a_cs_restitution, MS_SYS, {H(S_CS), NONNEG(0.5), END}},
  {"fcd_contact_set_set_friction", a_cs_friction, MS_SYS, {H(S_CS), IDX(1, B_NC), NONNEG(0.4), END}},
  {"fcd_contact_set_set_sliding_velocity", a_cs_vg, MS_SYS, {H(S_CS), IDX(1, B_NC), IN(S_VG), END}},
  {"fcd_contact_set_read", a_cs_read, MS_SYS, {H(S_SYS), PIN(S_PCONTACTS), OUT(S_HOUT), END}},
  {"fcd_contact_set_read_mesh", a_cs_read_mesh, MS_SYS,
   {H(S_SYS), PIN(S_PCONTACTS), OUT(S_HOUT), END}},
  {"fcd_contact_set_read_state", a_cs_read_state, MS_SYS,
   {H(S_CS), PIN(S_PSTATE), OUT(S_INTNC), OUT(S_YC), END}},
  {"fcd_contact_set_get", a_cs_get, MS_SYS,
   {H(S_CS), IDX(1, B_NC), OPT(S_YM), OPT(S_OUT1), OPT(S_OUT2), OPT(S_INT1), END}},
  {"fcd_contact_set_local", a_cs_local, MS_SYS, {H(S_CS), INRAW(S_XN), OUT(S_YM), END}},
  {"fcd_contact_set_global", a_cs_global, MS_SYS, {H(S_CS), INRAW(S_XM), OUT(S_YN), END}},
  {"fcd_integrator_create", a_it_create, MS_SYS, {H(S_SYS), OPT(S_CS), ENUMV(FCD_SCHEME_FREMOND), OUT(S_HOUT), END}},
  {"fcd_integrator_set_param(STEP)", a_it_param, MS_SYS, {H(S_IT), KEY(FCD_PARAM_STEP), POS(2e-3), END}},
  {"fcd_integrator_set_param(THETA)", a_it_param, MS_SYS, {H(S_IT), KEY(FCD_PARAM_THETA), UNIT(0.6), END}},
  {"fcd_integrator_set_param(TOLERANCE)", a_it_param, MS_SYS, {H(S_IT), KEY(FCD_PARAM_TOLERANCE), POS(1e-9), END}},
  {"fcd_integrator_set_param(MAX_ITER)", a_it_param, MS_SYS, {H(S_IT), KEY(FCD_PARAM_MAX_ITER), POS(500), END}},
  {"fcd_integrator_set_param(CONTACT_SOLVER)", a_it_param, MS_SYS,
   {H(S_IT), KEY(FCD_PARAM_CONTACT_SOLVER), ENUMR(FCD_FC_NSGS), END}},
  {"fcd_integrator_set_state", a_it_set_state, MS_SYS, {H(S_IT), FIN(0.0), IN(S_XN), IN(S_XN), END}},
  {"fcd_integrator_step", a_it_step, MS_SYS, {H(S_IT), END}},
  {"fcd_integrator_advance", a_it_advance, MS_SYS, {H(S_IT), FIN(0.0025), END}},
  {"fcd_integrator_get_state", a_it_get_state, MS_SYS, {H(S_IT), OPT(S_OUT1), OPT(S_YN), OPT(S_YN), END}},
  {"fcd_integrator_get_reactions", a_it_reactions, MS_SYS, {H(S_IT), OUT(S_YM), END}},
  {"fcd_integrator_get_energy", a_it_energy, MS_SYS, {H(S_IT), OUT(S_ENERGY), END}},
  {"fcd_integrator_get_certificate", a_it_cert, MS_SYS, {H(S_IT), OUT(S_CERT), END}},
  {"fcd_integrator_set_observer", a_it_observer, MS_SYS, {H(S_IT), OPT(S_OUT1), END}},
  {"fcd_integrator_get_contact_status", a_it_status, MS_SYS, {H(S_IT), OUT(S_INTNC), END}},
  {"fcd_equilibrium_create", a_eq_create, MS_SYS, {H(S_SYS), OPT(S_CS), OUT(S_HOUT), END}},
  {"fcd_equilibrium_set_param", a_eq_param, MS_SYS, {H(S_EQ), KEY(FCD_EQ_PARAM_CLASSIFY_TOL), POS(1e-8), END}},
  {"fcd_equilibrium_set_reference", a_eq_ref, MS_SYS, {H(S_EQ), OPT(S_XN), END}},
  {"fcd_equilibrium_solve", a_eq_solve, MS_SYS, {H(S_EQ), ENUMV(FCD_EQ_STATIC), FIN(0.0), END}},
  {"fcd_equilibrium_get_state", a_eq_state, MS_SYS, {H(S_EQ), OUT(S_YN), END}},
  {"fcd_equilibrium_get_reactions", a_eq_reactions, MS_SYS, {H(S_EQ), OUT(S_YM), END}},
  {"fcd_equilibrium_get_contact_sets", a_eq_sets, MS_SYS, {H(S_EQ), OUT(S_INTNC), END}},
  {"fcd_equilibrium_get_contact_state", a_eq_cstate, MS_SYS, {H(S_EQ), OPT(S_INTNC), OPT(S_YC), END}},
  {"fcd_equilibrium_get_certificate", a_eq_cert, MS_SYS, {H(S_EQ), OUT(S_CERT), END}},
  {"fcd_equilibrium_get_residual", a_eq_residual, MS_SYS, {H(S_EQ), OPT(S_OUT1), OPT(S_OUT2), END}},
  {"fcd_stability_create", a_st_create, MS_SYS, {H(S_SYS), OPT(S_CS), OUT(S_HOUT), END}},
  {"fcd_stability_set_contact_state", a_st_cstate, MS_SYS, {H(S_ST), OUT(S_STATUS), IN(S_SLIP), END}},
  {"fcd_stability_set_sliding_data", a_st_sliding, MS_SYS, {H(S_ST), IN(S_RN), IN(S_SPEED), END}},
  {"fcd_stability_set_param(NEV)", a_st_param, MS_SYS, {H(S_ST), KEY(FCD_STAB_NEV), POS(4), END}},
  {"fcd_stability_set_param(TARGET_HZ)", a_st_param, MS_SYS, {H(S_ST), KEY(FCD_STAB_TARGET_HZ), NONNEG(10), END}},
  {"fcd_stability_set_param(MU)", a_st_param, MS_SYS, {H(S_ST), KEY(FCD_STAB_MU), FIN(0.2), END}},
  {"fcd_stability_set_param(TOLERANCE)", a_st_param, MS_SYS, {H(S_ST), KEY(FCD_STAB_TOLERANCE), POS(1e-9), END}},
  {"fcd_stability_set_param(DENSE_MAX)", a_st_param, MS_SYS, {H(S_ST), KEY(FCD_STAB_DENSE_MAX), NONNEG(300), END}},
  {"fcd_stability_set_param(PROJECTION_MODES)", a_st_param, MS_SYS,
   {H(S_ST), KEY(FCD_STAB_PROJECTION_MODES), NONNEG(20), END}},
  {"fcd_stability_set_param(MAX_ITER)", a_st_param, MS_SYS, {H(S_ST), KEY(FCD_STAB_MAX_ITER), POS(200), END}},
  {"fcd_stability_solve", a_st_solve, MS_SYS, {H(S_ST), OPT(S_IDX1), END}},
  {"fcd_stability_get_eigenvalue", a_st_eig, MS_SYS, {H(S_ST), IDX(0, B_NCONV), OPT(S_OUT1), OPT(S_OUT2), END}},
  {"fcd_stability_get_mode_info", a_st_info, MS_SYS,
   {H(S_ST), IDX(0, B_NCONV), OPT(S_OUT1), OPT(S_OUT2), OPT(S_INT1), END}},
  {"fcd_stability_get_mode", a_st_mode, MS_SYS, {H(S_ST), IDX(0, B_NCONV), OPT(S_YN), OPT(S_YN), END}},
  {"fcd_stability_get_summary", a_st_summary, MS_SYS,
   {H(S_ST), OPT(S_INT1), OPT(S_INT2), OPT(S_INT3), OPT(S_OUT1), END}},
  {"fcd_stability_sweep", a_st_sweep, MS_SYS, {H(S_ST), NONNEG(0.1), NONNEG(0.3), PINT(3), OPT(S_OUT1), END}},
  {"fcd_stability_reduced_size", a_st_reduced, MS_NONE, {H(S_ST), END}},
  {"fcd_stability_get_infinite_count", a_st_ninf, MS_SYS, {H(S_ST), OUT(S_IDX1), END}},
  {"fcd_stability_get_certificate", a_st_cert, MS_SYS, {H(S_ST), OUT(S_CERT), END}},
  {"fcd_stability_get_estimate", a_st_estimate, MS_SYS, {H(S_ST), END}},
  {"fcd_lattice_create", a_lat_create, MS_NONE, {DIMV(2), OUT(S_HOUT), END}},
  {"fcd_lattice_create_rect", a_lat_rect, MS_NONE,
   {PINT(2), PINT(2), POS(1), POS(1), POS(0.01), NONNEG(0.1), FIN(0.5), FIN(0.01), OUT(S_HOUT), END}},
  {"fcd_lattice_create_tri", a_lat_tri, MS_NONE,
   {PINT(2), PINT(2), POS(1), POS(1), POS(0.01), NONNEG(0.1), FIN(0.5), FIN(0.01), OUT(S_HOUT), END}},
  {"fcd_lattice_add_node", a_lat_node, MS_LAT, {H(S_LAT), IN(S_XNODE), OPT(S_IDX1), END}},
  {"fcd_lattice_move_node", a_lat_move, MS_LAT, {H(S_LAT), IDX(4, B_NODES), IN(S_XNODE), END}},
  {"fcd_lattice_add_spring", a_lat_spring, MS_LAT,
   {H(S_LAT), IDX(0, B_NODES), IDX(4, B_NODES), POS(1), POS(0.01), NONNEG(0.1), FIN(0.5), OPT(S_IDX1), END}},
  {"fcd_lattice_constrain", a_lat_constrain, MS_LAT, {H(S_LAT), IDX(4, B_NODES), AXIS(0), FIN(0), FIN(0), END}},
  {"fcd_lattice_load", a_lat_load, MS_LAT, {H(S_LAT), IDX(4, B_NODES), AXIS(0), FIN(0.01), FIN(0), END}},
  {"fcd_lattice_sizes", a_lat_sizes, MS_LAT, {H(S_LAT), OPT(S_IDX1), OPT(S_IDX2), OPT(S_IDX3), END}},
  {"fcd_lattice_selfstress_dim", a_lat_selfstress, MS_LAT, {H(S_LAT), OUT(S_IDX1), END}},
  {"fcd_lattice_set_param(TOLERANCE)", a_lat_param, MS_LAT, {H(S_LAT), KEY(FCD_LAT_TOLERANCE), POS(1e-11), END}},
  {"fcd_lattice_set_param(MAX_ITER)", a_lat_param, MS_LAT, {H(S_LAT), KEY(FCD_LAT_MAX_ITER), POS(400), END}},
  {"fcd_lattice_set_param(BOUND)", a_lat_param, MS_LAT, {H(S_LAT), KEY(FCD_LAT_BOUND), POS(1e10), END}},
  {"fcd_lattice_set_param(METHOD)", a_lat_param, MS_LAT, {H(S_LAT), KEY(FCD_LAT_METHOD), ENUMR(FCD_LAT_FULL_SPARSE), END}},
  {"fcd_lattice_set_history", a_lat_history, MS_LAT, {H(S_LAT), OPT(S_OUT1), END}},
  {"fcd_lattice_set_guess", a_lat_guess, MS_LAT, {H(S_LAT), OPT(S_OUT1), END}},
  {"fcd_lattice_set_state", a_lat_set_state, MS_LAT, {H(S_LAT), FIN(0.0), OPT(S_LATM), OPT(S_LATM2), END}},
  {"fcd_lattice_step", a_lat_step, MS_LAT, {H(S_LAT), FIN(0.75), OPT(S_IDX1), END}},
  {"fcd_lattice_get_state", a_lat_get_state, MS_LAT,
   {H(S_LAT), OPT(S_OUT1), OPT(S_LATM), OPT(S_LATM2), OPT(S_LATM), END}},
  {"fcd_lattice_get_reactions", a_lat_reactions, MS_LAT, {H(S_LAT), OUT(S_LATQ), END}},
  {"fcd_lattice_get_kkt_residual", a_lat_kkt, MS_LAT, {H(S_LAT), OUT(S_OUT1), END}},
  {"fcd_lattice_jacobian_eigenvalues", a_lat_jac, MS_LAT, {H(S_LAT), OUT(S_LATM), OUT(S_LATM2), END}},
  {"fcd_lattice_get_constraint", a_lat_get_constraint, MS_LAT,
   {H(S_LAT), IDX(0, B_CONSTR), OPT(S_IDX1), OPT(S_INT1), OPT(S_OUT1), OPT(S_OUT2), END}},
  {"fcd_lattice_get_node", a_lat_get_node, MS_LAT, {H(S_LAT), IDX(0, B_NODES), OPT(S_XNODE), END}},
  {"fcd_lattice_get_spring", a_lat_get_spring, MS_LAT,
   {H(S_LAT), IDX(0, B_SPRINGS), OPT(S_IDX1), OPT(S_IDX2), OPT(S_OUT1), OPT(S_OUT2), OPT(S_OUT3), OPT(S_OUT4), END}},
  {"fcd_fc_problem_create_local", a_fc_local, MS_ERRBUF,
   {DIMV(2), CNT(NC), INRAW(S_WROW), INRAW(S_WCOL), IN(S_WVAL), IN(S_WQ), IN(S_WMU), OUT(S_HOUT), OPT(S_ERRBUF), END}},
  {"fcd_fc_problem_read_fclib", a_fc_read, MS_ERRBUF, {PIN(S_PMM), OUT(S_HOUT), OPT(S_ERRBUF), END}},
  {"fcd_fc_problem_write_fclib", a_fc_write, MS_FC, {H(S_FC), POUT(S_POUT), OPT(S_XM), END}},
  {"fcd_fc_problem_dim", a_fc_dim, MS_NONE, {H(S_FC), END}},
  {"fcd_fc_problem_size", a_fc_size, MS_NONE, {H(S_FC), END}},
  {"fcd_fc_problem_set_param(SOLVER)", a_fc_param, MS_FC, {H(S_FC), KEY(FCD_FC_PARAM_SOLVER), ENUMR(FCD_FC_NEWTON), END}},
  {"fcd_fc_problem_set_param(TOLERANCE)", a_fc_param, MS_FC, {H(S_FC), KEY(FCD_FC_PARAM_TOLERANCE), POS(1e-9), END}},
  {"fcd_fc_problem_set_param(MAX_ITER)", a_fc_param, MS_FC, {H(S_FC), KEY(FCD_FC_PARAM_MAX_ITER), POS(300), END}},
  {"fcd_fc_problem_set_param(RELAXATION)", a_fc_param, MS_FC, {H(S_FC), KEY(FCD_FC_PARAM_RELAXATION), POS(1.0), END}},
  {"fcd_fc_problem_solve", a_fc_solve, MS_FC, {H(S_FC), IN(S_XM), OPT(S_YM), LIT(0) /* v: global problems only */, END}},
  {"fcd_fc_problem_get_certificate", a_fc_cert, MS_FC, {H(S_FC), OUT(S_CERT), END}},
  {"fcd_fc_problem_get_result", a_fc_result, MS_FC, {H(S_FC), OPT(S_IDX1), OPT(S_OUT1), OPT(S_OUT2), END}},
  {"fcd_fc_problem_get_iterate", a_fc_iterate, MS_FC, {H(S_FC), OUT(S_YM), END}},
  {"fcd_fc_problem_residual", a_fc_residual, MS_FC, {H(S_FC), IN(S_XM), OUT(S_OUT1), END}},
  {"fcd_fc_problem_local_nnz", a_fc_nnz, MS_FC, {H(S_FC), OUT(S_IDX1), END}},
  {"fcd_fc_problem_get_local", a_fc_get_local, MS_FC,
   {H(S_FC), OPT(S_IDXN), OPT(S_LATQ), OPT(S_LATM), OPT(S_YM), OPT(S_YC), END}},
  {"fcd_fc_problem_get_solution", a_fc_solution, MS_FC, {H(S_FC), OUT(S_YM), END}},
};
enum { NROWS = sizeof rows / sizeof rows[0] };

/* ---- the generator ---------------------------------------------------------------- */
typedef struct {
  const char *what; /* label */
  double lit;       /* the literal bad value, or */
  int null, nan, inf, missing; /* a pointer mutation */
  fcd_status expect;
  const char *says; /* what the message must contain (NULL: anything non-empty) */
} badval;

/* The bad values of a kind; returns how many. */
static int badvals(kind k, long long bnd, badval *out) {
  int n = 0;
#define BV(...) out[n++] = (badval){__VA_ARGS__}
  switch (k) {
  case K_HANDLE: BV("NULL handle", 0, 1, 0, 0, 0, FCD_E_INVALID_ARG, NULL); break;
  case K_IN:
    BV("NULL", 0, 1, 0, 0, 0, FCD_E_INVALID_ARG, "NULL");
    BV("NaN entry", 0, 0, 1, 0, 0, FCD_E_INVALID_ARG, "finite");
    BV("Inf entry", 0, 0, 0, 1, 0, FCD_E_INVALID_ARG, "finite");
    break;
  case K_INRAW:
  case K_OUT: BV("NULL", 0, 1, 0, 0, 0, FCD_E_INVALID_ARG, "NULL"); break;
  case K_OPT:
  case K_NONE: break;
  case K_MKIND:
    BV("kind 7", 7, 0, 0, 0, 0, FCD_E_INVALID_ARG, "7");
    BV("kind -1", -1, 0, 0, 0, 0, FCD_E_INVALID_ARG, "-1");
    break;
  case K_KEY: BV("key 9999", 9999, 0, 0, 0, 0, FCD_E_UNSUPPORTED, "9999"); break;
  case K_IDX:
    BV("index -1", -1, 0, 0, 0, 0, FCD_E_INVALID_ARG, "-1");
    BV("index = size", (double)bnd, 0, 0, 0, 0, FCD_E_INVALID_ARG, NULL);
    break;
  case K_COUNT: BV("count -1", -1, 0, 0, 0, 0, FCD_E_INVALID_ARG, "-1"); break;
  case K_FIN:
    BV("NaN", NAN, 0, 0, 0, 0, FCD_E_INVALID_ARG, NULL);
    BV("Inf", INFINITY, 0, 0, 0, 0, FCD_E_INVALID_ARG, NULL);
    break;
  case K_NONNEG:
    BV("-1", -1, 0, 0, 0, 0, FCD_E_INVALID_ARG, "-1");
    BV("NaN", NAN, 0, 0, 0, 0, FCD_E_INVALID_ARG, NULL);
    break;
  case K_POS:
    BV("0", 0, 0, 0, 0, 0, FCD_E_INVALID_ARG, NULL);
    BV("-1", -1, 0, 0, 0, 0, FCD_E_INVALID_ARG, "-1");
    BV("NaN", NAN, 0, 0, 0, 0, FCD_E_INVALID_ARG, NULL);
    BV("Inf", INFINITY, 0, 0, 0, 0, FCD_E_INVALID_ARG, NULL);
    break;
  case K_UNIT:
    BV("0", 0, 0, 0, 0, 0, FCD_E_INVALID_ARG, NULL);
    BV("1.5", 1.5, 0, 0, 0, 0, FCD_E_INVALID_ARG, "1.5");
    BV("NaN", NAN, 0, 0, 0, 0, FCD_E_INVALID_ARG, NULL);
    break;
  case K_ENUM:
  case K_ENUMR:
    BV("99", 99, 0, 0, 0, 0, FCD_E_INVALID_ARG, "99");
    BV("-1", -1, 0, 0, 0, 0, FCD_E_INVALID_ARG, "-1");
    break;
  case K_DIM:
    BV("dim 1", 1, 0, 0, 0, 0, FCD_E_INVALID_ARG, NULL);
    BV("dim 4", 4, 0, 0, 0, 0, FCD_E_INVALID_ARG, NULL);
    break;
  case K_AXIS:
    BV("axis -1", -1, 0, 0, 0, 0, FCD_E_INVALID_ARG, "-1");
    BV("axis = dim", 2, 0, 0, 0, 0, FCD_E_INVALID_ARG, NULL);
    break;
  case K_PATH_IN:
    BV("NULL path", 0, 1, 0, 0, 0, FCD_E_INVALID_ARG, "NULL");
    BV("missing file", 0, 0, 0, 0, 1, FCD_E_IO, "/no-such-file");
    break;
  case K_PATH_OUT:
    BV("NULL path", 0, 1, 0, 0, 0, FCD_E_INVALID_ARG, "NULL");
    BV("missing directory", 0, 0, 0, 0, 1, FCD_E_IO, "/no-such-dir");
    break;
  case K_PINT:
    BV("0", 0, 0, 0, 0, 0, FCD_E_INVALID_ARG, NULL);
    BV("-1", -1, 0, 0, 0, 0, FCD_E_INVALID_ARG, "-1");
    break;
  }
#undef BV
  return n;
}

static long long bound_of(const fx *f, bound b) {
  switch (b) {
  case B_NDOFS: return N;
  case B_NC: return NC;
  case B_NCONV: return f->nconv;
  case B_NODES: return f->lat_nodes;
  case B_SPRINGS: return f->lat_springs;
  case B_CONSTR: return f->lat_constraints;
  default: return 0;
  }
}

/* Valid value of an argument, in the fixture. Inputs are copied into per-case buffers
 * so that a poisoned entry never reaches the fixture itself. */
static double inbuf[MAXA][256];
static fcd_index ibuf[MAXA][256];
static void *valid_ptr(fx *f, source s, int slot, size_t *nreal) {
  *nreal = 0;
#define COPY(arr)                                                                      \
  do {                                                                                 \
    size_t n_ = sizeof(arr) / sizeof((arr)[0]);                                        \
    memcpy(inbuf[slot], (arr), sizeof(arr));                                           \
    *nreal = n_;                                                                       \
    return inbuf[slot];                                                                \
  } while (0)
  switch (s) {
  case S_SYS: return f->sys;
  case S_CS: return f->cs;
  case S_IT: return f->it;
  case S_EQ: return f->eq;
  case S_ST: return f->st;
  case S_LAT: return f->lat;
  case S_FC: return f->fc;
  case S_XN: COPY(f->xn);
  case S_XM: COPY(f->xm);
  case S_XC: COPY(f->xc);
  case S_SLIP: COPY(f->slip);
  case S_SPEED: COPY(f->speed);
  case S_RN: COPY(f->rn);
  case S_NORMAL: COPY(f->normal);
  case S_TANGENT: COPY(f->tangent);
  case S_VG: COPY(f->vg);
  case S_XNODE: COPY(f->xnode);
  case S_WVAL: COPY(W_VAL);
  case S_WQ: COPY(W_Q);
  case S_WMU: COPY(W_MU);
  case S_MU1: COPY(MU1);
  case S_RW: COPY(RW);
  case S_YN: return f->yn;
  case S_YM: return f->ym;
  case S_YC: return f->yc;
  case S_STATUS: return f->status;
  case S_INTNC: return f->int_nc;
  case S_DOFS: memcpy(ibuf[slot], f->dofs_free, sizeof f->dofs_free); return ibuf[slot];
  case S_DOFSB: memcpy(ibuf[slot], f->dofs_b, sizeof f->dofs_b); return ibuf[slot];
  case S_IDXN: memcpy(ibuf[slot], f->idxn, sizeof f->idxn); return ibuf[slot];
  case S_WROW: memcpy(ibuf[slot], W_ROW, sizeof W_ROW); return ibuf[slot];
  case S_RPTR: memcpy(ibuf[slot], RPTR, sizeof RPTR); return ibuf[slot];
  case S_RDOF: memcpy(ibuf[slot], RDOF, sizeof RDOF); return ibuf[slot];
  case S_WCOL: memcpy(ibuf[slot], W_COL, sizeof W_COL); return ibuf[slot];
  case S_CROW: /* a diagonal N x N matrix in CSR */
    for (int i = 0; i <= N; i++) ibuf[slot][i] = i;
    return ibuf[slot];
  case S_OUT1: return &f->out1;
  case S_OUT2: return &f->out2;
  case S_OUT3: return &f->out3;
  case S_OUT4: return &f->out4;
  case S_IDX1: return &f->idx1;
  case S_IDX2: return &f->idx2;
  case S_IDX3: return &f->idx3;
  case S_INT1: return &f->int1;
  case S_INT2: return &f->int2;
  case S_INT3: return &f->int3;
  case S_LATM: return f->lat_m;
  case S_LATM2: return f->lat_m2;
  case S_LATQ: return f->lat_q;
  case S_ENERGY: return &f->energy;
  case S_CERT: return &f->cert;
  case S_ERRBUF: return f->errbuf;
  case S_HOUT: return &f->hout;
  case S_PMM: return path_mm;
  case S_PCONTACTS: return path_contacts;
  case S_PSTATE: return path_state;
  case S_PFIXED: return path_fixed;
  case S_PVEC: return path_vec;
  case S_POUT: return path_out;
  case S_PPBIN: return path_pbin;
  default: return NULL;
  }
#undef COPY
}

/* integer-typed literal kinds */
static int is_int_kind(kind k) {
  return k == K_MKIND || k == K_KEY || k == K_IDX || k == K_COUNT || k == K_ENUM ||
         k == K_DIM || k == K_AXIS || k == K_PINT;
}

static const char *message_of(const fx *f, msgsrc m) {
  switch (m) {
  case MS_SYS: return fcd_system_last_error(f->sys);
  case MS_LAT: return fcd_lattice_last_error(f->lat);
  case MS_FC: return fcd_fc_problem_last_error(f->fc);
  case MS_ERRBUF: return f->errbuf;
  default: return NULL;
  }
}

static double ref_solved[PROBE_MAX], ref_fresh[PROBE_MAX];
static int ref_len;
static int ncases, nfail_status, nfail_msg, nfail_probe;
static int verbose;

/* Any handle a call created by mistake is freed so that a wrongly accepted case does
 * not leak on top of failing. */
static void free_created(const row *r, fx *f) {
  void *h = f->hout;
  f->hout = NULL;
  if (!h) return;
  if (strstr(r->name, "fcd_system_create")) fcd_system_destroy(h);
  else if (strstr(r->name, "fcd_contact_set_")) fcd_contact_set_destroy(h);
  else if (strstr(r->name, "fcd_integrator_")) fcd_integrator_destroy(h);
  else if (strstr(r->name, "fcd_equilibrium_")) fcd_equilibrium_destroy(h);
  else if (strstr(r->name, "fcd_stability_")) fcd_stability_destroy(h);
  else if (strstr(r->name, "fcd_lattice_")) fcd_lattice_destroy(h);
  else if (strstr(r->name, "fcd_fc_problem_")) fcd_fc_problem_destroy(h);
}

/* Checks 2 and 3 after a call that must have failed. */
static void judge(const char *label, fx *f, fcd_status got, fcd_status expect, msgsrc ms,
                  const char *says, const char *before, int solved) {
  ncases++;
  if (got != expect) {
    nfail_status++;
    fprintf(stderr, "FAIL %s: status %d (%s), expected %d (%s)\n", label, got,
            fcd_status_str(got), expect, fcd_status_str(expect));
  }
  const char *m = message_of(f, ms);
  if (m) {
    int changed = strcmp(m, before) != 0 && m[0] != '\0';
    int names = !says || strstr(m, says) != NULL ||
                (says && !strcmp(says, "finite") && (strstr(m, "NaN") || strstr(m, "nan") ||
                                                       strstr(m, "inf") || strstr(m, "Inf")));
    if (!changed || !names) {
      nfail_msg++;
      fprintf(stderr, "FAIL %s: message '%s' %s\n", label, m,
              !changed ? "was not set by the call" : "does not name the problem");
    } else if (verbose) {
      printf("  %-60s -> %s\n", label, m);
    }
  }
  double out[PROBE_MAX];
  int len = 0;
  if (!probe(f, out, &len) || len != ref_len ||
      memcmp(out, solved ? ref_solved : ref_fresh, (size_t)len * sizeof(double)) != 0) {
    nfail_probe++;
    fprintf(stderr, "FAIL %s: the handles no longer give the same results\n", label);
  }
}

static void run_row(const row *r, int solved) {
  for (int j = 0; j < MAXA; j++) {
    fx probe_fx;
    long long bnd = 0;
    if (!fixture_build(&probe_fx, solved)) {
      fprintf(stderr, "fixture failed\n");
      exit(2);
    }
    bnd = bound_of(&probe_fx, r->a[j].b);
    fixture_free(&probe_fx);
    badval bv[8];
    int nb = badvals(r->a[j].k, bnd, bv);
    for (int v = 0; v < nb; v++) {
      fx f;
      if (!fixture_build(&f, solved)) {
        fprintf(stderr, "fixture failed\n");
        exit(2);
      }
      arg a[MAXA];
      size_t nreal[MAXA];
      for (int i = 0; i < MAXA; i++) {
        nreal[i] = 0;
        if (r->a[i].s != S_LIT) a[i].p = valid_ptr(&f, r->a[i].s, i, &nreal[i]);
        else if (is_int_kind(r->a[i].k)) a[i].i = (long long)r->a[i].lit;
        else if (r->a[i].k == K_OPT) a[i].i = (long long)r->a[i].lit; /* LIT: integer */
        else a[i].r = r->a[i].lit;
      }
      /* spoil argument j */
      if (bv[v].null) a[j].p = NULL;
      else if (bv[v].nan || bv[v].inf) {
        if (nreal[j] == 0) { /* not a real array: nothing to poison */
          fixture_free(&f);
          continue;
        }
        ((double *)a[j].p)[nreal[j] - 1] = bv[v].nan ? NAN : INFINITY;
      } else if (bv[v].missing) a[j].p = r->a[j].k == K_PATH_IN ? path_missing : path_baddir;
      else if (is_int_kind(r->a[j].k)) a[j].i = (long long)bv[v].lit;
      else a[j].r = bv[v].lit;
      char before[512];
      const char *m0 = message_of(&f, r->msg);
      snprintf(before, sizeof before, "%s", m0 ? m0 : "");
      fcd_status st = r->call(a);
      free_created(r, &f);
      char label[256];
      snprintf(label, sizeof label, "%s arg %d: %s", r->name, j, bv[v].what);
      /* a NULL handle cannot carry a message */
      msgsrc ms = r->a[j].k == K_HANDLE ? MS_NONE : r->msg;
      judge(label, &f, st, bv[v].expect, ms, bv[v].says, before, solved);
      fixture_free(&f);
    }
  }
}

/* ---- whole cases: order, semantics, files ----------------------------------------- */
typedef struct {
  const char *name;
  int solved;      /* fixture state */
  fcd_status expect;
  msgsrc msg;
  const char *says;
  fcd_status (*call)(fx *f);
} wcase;

static fcd_status w_eq_state_early(fx *f) { return fcd_equilibrium_get_state(f->eq, f->yn); }
static fcd_status w_eq_react_early(fx *f) { return fcd_equilibrium_get_reactions(f->eq, f->ym); }
static fcd_status w_eq_sets_early(fx *f) { return fcd_equilibrium_get_contact_sets(f->eq, f->int_nc); }
static fcd_status w_eq_resid_early(fx *f) { return fcd_equilibrium_get_residual(f->eq, &f->out1, &f->out2); }
static fcd_status w_st_eig_early(fx *f) { return fcd_stability_get_eigenvalue(f->st, 0, &f->out1, &f->out2); }
static fcd_status w_st_mode_early(fx *f) { return fcd_stability_get_mode(f->st, 0, f->yn, NULL); }
static fcd_status w_st_summary_early(fx *f) { return fcd_stability_get_summary(f->st, &f->int1, NULL, NULL, NULL); }
static fcd_status w_it_step_nostate(fx *f) {
  /* a new integrator with no step size set */
  fcd_integrator *it = NULL;
  const double z[N] = {0};
  fcd_status st = fcd_integrator_create(f->sys, f->cs, FCD_SCHEME_MOREAU_JEAN, &it);
  if (st == FCD_OK) st = fcd_integrator_set_state(it, 0, z, z);
  if (st == FCD_OK) st = fcd_integrator_step(it);
  fcd_integrator_destroy(it);
  return st;
}
static fcd_status w_it_advance_back(fx *f) { return fcd_integrator_advance(f->it, -1.0); }
static fcd_status w_lat_kkt_early(fx *f) { return fcd_lattice_get_kkt_residual(f->lat, &f->out1); }
static fcd_status w_lat_jac_early(fx *f) { return fcd_lattice_jacobian_eigenvalues(f->lat, f->lat_m, f->lat_m2); }
static fcd_status w_lat_step_back(fx *f) { return fcd_lattice_step(f->lat, -0.5, NULL); }
static fcd_status w_fc_solution_early(fx *f) { return fcd_fc_problem_get_solution(f->fc, f->ym); }
static fcd_status w_fc_result_early(fx *f) { return fcd_fc_problem_get_result(f->fc, &f->idx1, NULL, NULL); }
static fcd_status w_contact_on_fixed(fx *f) {
  const fcd_index d[DIM] = {0, 1};
  return fcd_contact_set_add_rigid(f->cs, d, f->normal, f->tangent, 0, 0.3, NULL);
}
static fcd_status w_contact_dof_range(fx *f) {
  const fcd_index d[DIM] = {4, N};
  return fcd_contact_set_add_rigid(f->cs, d, f->normal, f->tangent, 0, 0.3, NULL);
}
static fcd_status w_contact_zero_normal(fx *f) {
  const double n0[DIM] = {0, 0};
  return fcd_contact_set_add_rigid(f->cs, f->dofs_b, n0, f->tangent, 0, 0.3, NULL);
}
static fcd_status w_contact_parallel_frame(fx *f) {
  return fcd_contact_set_add_rigid(f->cs, f->dofs_b, f->normal, f->normal, 0, 0.3, NULL);
}
static fcd_status w_pair_same_dofs(fx *f) {
  return fcd_contact_set_add_pair(f->cs, f->dofs_b, f->dofs_b, f->normal, f->tangent, 0, 0.3, NULL);
}
static fcd_status w_fix_out_of_range(fx *f) {
  const fcd_index d[1] = {N};
  return fcd_system_fix_dofs(f->sys, 1, d, NULL);
}
static fcd_status w_fix_contact_dof(fx *f) {
  const fcd_index d[1] = {3}; /* node 1's y, in contact with the floor */
  return fcd_system_fix_dofs(f->sys, 1, d, NULL);
}
static fcd_status w_mass_not_spd(fx *f) {
  /* a system with a negative mass entry: the integrator must refuse it */
  fcd_system *s = NULL;
  const fcd_index i[2] = {0, 1};
  const double m[2] = {1, -1};
  fcd_status st = fcd_system_create(2, &s);
  if (!st) st = fcd_system_set_matrix_coo(s, FCD_MASS, 2, i, i, m, FCD_COO_UPPER);
  if (!st) st = fcd_system_check_spd(s, FCD_MASS);
  snprintf(f->errbuf, sizeof f->errbuf, "%s", fcd_system_last_error(s));
  fcd_system_destroy(s);
  return st;
}
/* one Moreau-Jean step of a 2-dof system, K = 0, with the nm mass entries given */
static fcd_status step_with_mass(fx *f, fcd_index nm, const fcd_index *i, const double *m) {
  fcd_system *s = NULL;
  fcd_integrator *it = NULL;
  const double z[2] = {0, 0};
  fcd_status st = fcd_system_create(2, &s);
  if (!st) st = fcd_system_set_matrix_coo(s, FCD_MASS, nm, i, i, m, FCD_COO_UPPER);
  if (!st) st = fcd_integrator_create(s, NULL, FCD_SCHEME_MOREAU_JEAN, &it);
  if (!st) st = fcd_integrator_set_param(it, FCD_PARAM_STEP, 1e-3);
  if (!st) st = fcd_integrator_set_state(it, 0, z, z);
  if (!st) st = fcd_integrator_step(it);
  snprintf(f->errbuf, sizeof f->errbuf, "%s", fcd_system_last_error(s));
  fcd_integrator_destroy(it);
  fcd_system_destroy(s);
  return st;
}
static fcd_status w_mass_singular_integrator(fx *f) {
  const fcd_index i[2] = {0, 1};
  const double m[2] = {1, -1};
  return step_with_mass(f, 2, i, m);
}
/* A model given a stiffness with no entry (a host whose elements missed every dof):
 * CHOLMOD saw the operator as invalid ("status -4"), naming nothing; every dof is now a
 * rigid mode, and the message names the one the load pushes along */
static fcd_status w_no_stiffness(fx *f) {
  fcd_system *s = NULL;
  fcd_equilibrium *eq = NULL;
  const double load[2] = {1, 0};
  const fcd_index none[1] = {0};
  const double zero[1] = {0};
  fcd_status st = fcd_system_create(2, &s);
  if (!st) st = fcd_system_set_matrix_coo(s, FCD_STIFFNESS, 0, none, none, zero, FCD_COO_UPPER);
  if (!st) st = fcd_system_set_load(s, load);
  if (!st) st = fcd_equilibrium_create(s, NULL, &eq);
  if (!st) st = fcd_equilibrium_solve(eq, FCD_EQ_STATIC, 0);
  snprintf(f->errbuf, sizeof f->errbuf, "%s", fcd_system_last_error(s));
  fcd_equilibrium_destroy(eq);
  fcd_system_destroy(s);
  return st;
}
/* the mass of dof 1 forgotten: M + h^2 theta^2 K (K = 0) has a zero diagonal there */
static fcd_status w_mass_forgotten(fx *f) {
  const fcd_index i[1] = {0};
  const double m[1] = {1};
  return step_with_mass(f, 1, i, m);
}
static fcd_status w_coo_wrong_size(fx *f) {
  const fcd_index r[1] = {N}, c[1] = {0};
  const double v[1] = {1};
  return fcd_system_set_matrix_coo(f->sys, FCD_DAMPING, 1, r, c, v, 0);
}
static fcd_status w_csr_bad_rowptr(fx *f) {
  const fcd_index rp[N + 1] = {0, 1, 0, 1, 1, 1, 1, 1, 1}, c[1] = {0};
  const double v[1] = {1};
  return fcd_system_set_matrix_csr(f->sys, FCD_DAMPING, rp, c, v, 0, FCD_COPY);
}
static fcd_status w_status_value(fx *f) {
  const int s[NC] = {FCD_CONTACT_SLIP, 7};
  return fcd_stability_set_contact_state(f->st, s, f->slip);
}
static fcd_status w_sliding_positive_rn(fx *f) {
  const double rn[NC] = {-1, 1};
  return fcd_stability_set_sliding_data(f->st, rn, f->speed);
}
static fcd_status w_read_vector_short(fx *f) { return fcd_system_read_vector(f->sys, path_vec, N + 3, f->yn); }
static fcd_status w_mm_wrong_dim(fx *f) {
  /* a 3 x 3 matrix into an 8-dof system */
  char p[700];
  snprintf(p, sizeof p, "%s/small.mtx", tmpdir);
  return fcd_system_read_matrix_market(f->sys, FCD_DAMPING, p);
}
static fcd_status w_fc_inconsistent(fx *f) {
  const fcd_index rp[M + 1] = {0, 2, 1, 6, 8}; /* decreasing: detectable, unlike a lie about the length */
  return fcd_fc_problem_create_local(DIM, NC, rp, W_COL, W_VAL, W_Q, W_MU, (fcd_fc_problem **)&f->hout, f->errbuf, sizeof f->errbuf);
}
static fcd_status w_fc_negative_mu(fx *f) {
  const double mu[NC] = {0.3, -0.1};
  fcd_fc_problem *p = NULL;
  fcd_status st = fcd_fc_problem_create_local(DIM, NC, W_ROW, W_COL, W_VAL, W_Q, mu, &p, f->errbuf, sizeof f->errbuf);
  fcd_fc_problem_destroy(p);
  return st;
}
/* issue 64: a sweep whose friction coefficients overflow a row of the pencil (the pairing
 * of LAPACK's answer on such a pencil read past the eigenvectors) */
static fcd_status w_st_sweep_overflow(fx *f) {
  return fcd_stability_sweep(f->st, 0.0, 1e308, 3, sweep_cb, NULL);
}
static fcd_status w_lat_spring_self(fx *f) {
  return fcd_lattice_add_spring(f->lat, 2, 2, 1, 0.01, 0.1, 0.5, NULL);
}
static fcd_status w_lat_constrain_twice(fx *f) {
  fcd_index node = 0;
  int axis = 0;
  fcd_lattice_get_constraint(f->lat, 0, &node, &axis, NULL, NULL);
  return fcd_lattice_constrain(f->lat, node, axis, 0, 0);
}

/* files: each reader against malformed and truncated contents */
typedef struct {
  const char *name;
  const char *text;
  int reader; /* 0 MM, 1 contacts, 2 fixed, 3 vector, 4 fclib, 5 PETSc binary (text: what
              * write_pbin spoils) */
  fcd_status expect;
  const char *says;
} fcase;

static const fcase files[] = {
  {"MM empty file", "", 0, FCD_E_FORMAT, NULL},
  {"MM no banner", "6 6 1\n1 1 1.0\n", 0, FCD_E_FORMAT, "MatrixMarket"},
  {"MM array format", "%%MatrixMarket matrix array real general\n8 8\n1\n", 0, FCD_E_UNSUPPORTED, "array"},
  {"MM complex field", "%%MatrixMarket matrix coordinate complex general\n8 8 1\n1 1 1 0\n", 0, FCD_E_UNSUPPORTED, "complex"},
  {"MM truncated entries", "%%MatrixMarket matrix coordinate real general\n8 8 3\n1 1 1.0\n2 2 1.0\n", 0, FCD_E_FORMAT, NULL},
  {"MM truncated line", "%%MatrixMarket matrix coordinate real general\n8 8 1\n1 1\n", 0, FCD_E_FORMAT, NULL},
  {"MM index 0", "%%MatrixMarket matrix coordinate real general\n8 8 1\n0 1 1.0\n", 0, FCD_E_FORMAT, NULL},
  {"MM index beyond size", "%%MatrixMarket matrix coordinate real general\n8 8 1\n9 1 1.0\n", 0, FCD_E_FORMAT, NULL},
  {"MM NaN value", "%%MatrixMarket matrix coordinate real general\n8 8 1\n1 1 nan\n", 0, FCD_E_FORMAT, NULL},
  {"MM negative size", "%%MatrixMarket matrix coordinate real general\n-8 8 1\n1 1 1\n", 0, FCD_E_FORMAT, NULL},
  {"MM huge nnz", "%%MatrixMarket matrix coordinate real general\n8 8 99999999999999\n1 1 1\n", 0, FCD_E_FORMAT, NULL},
  {"MM garbage value", "%%MatrixMarket matrix coordinate real general\n8 8 1\n1 1 x1\n", 0, FCD_E_FORMAT, NULL},
  {"MM not square", "%%MatrixMarket matrix coordinate real general\n8 5 1\n1 1 1\n", 0, FCD_E_INVALID_ARG, NULL},
  {"contacts empty", "", 1, FCD_E_FORMAT, NULL},
  {"contacts bad dim", "fcd-contacts 1\ndim 5\n", 1, FCD_E_FORMAT, NULL},
  {"contacts truncated", "fcd-contacts 1\ndim 2\nrigid 2 3 0 -1 1 0\n", 1, FCD_E_FORMAT, NULL},
  {"contacts unknown word", "fcd-contacts 1\ndim 2\nbanana 2 3 0 -1 1 0 0 0.3\n", 1, FCD_E_FORMAT, "banana"},
  {"contacts dof out of range", "fcd-contacts 1\ndim 2\nrigid 2 99 0 -1 1 0 0 0.3\n", 1, FCD_E_INVALID_ARG, "99"},
  {"contacts negative mu", "fcd-contacts 1\ndim 2\nrigid 2 3 0 -1 1 0 0 -0.3\n", 1, FCD_E_INVALID_ARG, "-0.3"},
  {"contacts NaN gap", "fcd-contacts 1\ndim 2\nrigid 2 3 0 -1 1 0 nan 0.3\n", 1, FCD_E_FORMAT, NULL},
  {"fixed garbage", "two\n", 2, FCD_E_FORMAT, NULL},
  {"fixed out of range", "8\n", 2, FCD_E_INVALID_ARG, "8"},
  {"fixed negative", "-1\n", 2, FCD_E_INVALID_ARG, "-1"},
  {"fixed NaN value", "2 nan\n", 2, FCD_E_FORMAT, NULL},
  {"vector short", "1 2 3\n", 3, FCD_E_FORMAT, NULL},
  {"vector garbage", "1 2 3 x 5 6 7 8\n", 3, FCD_E_FORMAT, NULL},
  {"vector too long", "1 2 3 4 5 6 7 8 9\n", 3, FCD_E_FORMAT, NULL},
  {"vector Inf", "1 2 3 inf 5 6 7 8\n", 3, FCD_E_FORMAT, NULL},
  {"fclib not HDF5", "this is text\n", 4, FCD_E_FORMAT, NULL},
  {"fclib truncated HDF5 signature", "\x89HDF\r\n\x1a\n\0\0", 4, FCD_E_FORMAT, NULL},
  {"PETSc binary of a vector", "vector", 5, FCD_E_FORMAT, "vector"},
  {"PETSc binary truncated", "truncated", 5, FCD_E_FORMAT, "truncated"},
  {"PETSc binary row lengths", "rowsum", 5, FCD_E_FORMAT, "row lengths"},
  {"PETSc binary column out of range", "column", 5, FCD_E_FORMAT, "column 11"},
  {"PETSc binary wrong size", "small", 5, FCD_E_INVALID_ARG, "3 x 3"},
  {"PETSc binary as text", "", 5, FCD_E_FORMAT, NULL},
};
enum { NFILES = sizeof files / sizeof files[0] };

static fcd_status run_file_case(fx *f, const fcase *c) {
  char p[700];
  snprintf(p, sizeof p, "%s/case.txt", tmpdir);
  if (c->reader == 5 && c->text[0]) {
    write_pbin(p, c->text);
  } else {
    FILE *fp = fopen(p, "wb");
    if (!fp) return FCD_E_INTERNAL;
    size_t len = strlen(c->text);
    if (c->reader == 4 && c->text[0] == '\x89') len = 10;
    if (c->reader == 5) fputs("%%MatrixMarket matrix coordinate real general\n8 8 0\n", fp);
    fwrite(c->text, 1, len, fp);
    fclose(fp);
  }
  fcd_contact_set *cs = NULL;
  fcd_fc_problem *p2 = NULL;
  fcd_status st;
  switch (c->reader) {
  case 0: st = fcd_system_read_matrix_market(f->sys, FCD_DAMPING, p); break;
  case 1: st = fcd_contact_set_read(f->sys, p, &cs); break;
  case 2: st = fcd_system_read_fixed(f->sys, p); break;
  case 3: st = fcd_system_read_vector(f->sys, p, N, f->yn); break;
  case 5: st = fcd_system_read_petsc_binary(f->sys, FCD_DAMPING, p); break;
  default: st = fcd_fc_problem_read_fclib(p, &p2, f->errbuf, sizeof f->errbuf); break;
  }
  fcd_contact_set_destroy(cs);
  fcd_fc_problem_destroy(p2);
  return st;
}

static const wcase whole[] = {
  {"equilibrium_get_state before a solve", 0, FCD_E_STATE, MS_SYS, "solve", w_eq_state_early},
  {"equilibrium_get_reactions before a solve", 0, FCD_E_STATE, MS_SYS, "solve", w_eq_react_early},
  {"equilibrium_get_contact_sets before a solve", 0, FCD_E_STATE, MS_SYS, "solve", w_eq_sets_early},
  {"equilibrium_get_residual before a solve", 0, FCD_E_STATE, MS_SYS, "solve", w_eq_resid_early},
  {"stability_get_eigenvalue before a solve", 0, FCD_E_STATE, MS_SYS, "solve", w_st_eig_early},
  {"stability_get_mode before a solve", 0, FCD_E_STATE, MS_SYS, "solve", w_st_mode_early},
  {"stability_get_summary before a solve", 0, FCD_E_STATE, MS_SYS, "solve", w_st_summary_early},
  {"integrator_step without a step size", 0, FCD_E_STATE, MS_SYS, "FCD_PARAM_STEP", w_it_step_nostate},
  {"integrator_advance backwards", 1, FCD_E_INVALID_ARG, MS_SYS, NULL, w_it_advance_back},
  {"lattice_get_kkt_residual before a step", 0, FCD_E_STATE, MS_LAT, "step", w_lat_kkt_early},
  {"lattice_jacobian_eigenvalues before a step", 0, FCD_E_STATE, MS_LAT, "step", w_lat_jac_early},
  {"lattice_step backwards", 1, FCD_E_INVALID_ARG, MS_LAT, NULL, w_lat_step_back},
  {"fc_problem_get_solution without one", 0, FCD_E_STATE, MS_FC, NULL, w_fc_solution_early},
  {"fc_problem_get_result before a solve", 0, FCD_E_STATE, MS_FC, "solve", w_fc_result_early},
  {"contact on a prescribed dof", 1, FCD_E_INVALID_ARG, MS_SYS, "prescribed", w_contact_on_fixed},
  {"contact dof out of range", 1, FCD_E_INVALID_ARG, MS_SYS, "8", w_contact_dof_range},
  {"contact with a zero normal", 1, FCD_E_INVALID_ARG, MS_SYS, "normal", w_contact_zero_normal},
  {"contact frame not independent", 1, FCD_E_INVALID_ARG, MS_SYS, NULL, w_contact_parallel_frame},
  {"pair of a node with itself", 1, FCD_E_INVALID_ARG, MS_SYS, NULL, w_pair_same_dofs},
  {"fix a dof out of range", 1, FCD_E_INVALID_ARG, MS_SYS, "8", w_fix_out_of_range},
  {"prescribe a dof that carries a contact", 1, FCD_E_INVALID_ARG, MS_SYS, "prescribed", w_fix_contact_dof},
  {"non-SPD mass (check)", 1, FCD_E_NOT_SPD, MS_ERRBUF, NULL, w_mass_not_spd},
  {"non-SPD mass (integrator)", 1, FCD_E_NOT_SPD, MS_ERRBUF, NULL, w_mass_singular_integrator},
  {"no stiffness at all (equilibrium)", 1, FCD_E_SINGULAR, MS_ERRBUF, "moves dof 0 most", w_no_stiffness},
  {"a dof without mass (integrator)", 1, FCD_E_NOT_SPD, MS_ERRBUF, "diagonal entry at dof 1 is 0", w_mass_forgotten},
  {"COO entry outside the system", 1, FCD_E_INVALID_ARG, MS_SYS, "8", w_coo_wrong_size},
  {"CSR row pointer decreasing", 1, FCD_E_INVALID_ARG, MS_SYS, NULL, w_csr_bad_rowptr},
  {"unknown contact status", 1, FCD_E_INVALID_ARG, MS_SYS, "7", w_status_value},
  {"positive normal reaction", 1, FCD_E_INVALID_ARG, MS_SYS, NULL, w_sliding_positive_rn},
  {"vector file of the wrong size", 1, FCD_E_FORMAT, MS_SYS, NULL, w_read_vector_short},
  {"Matrix Market of the wrong size", 1, FCD_E_INVALID_ARG, MS_SYS, "3", w_mm_wrong_dim},
  {"local problem with inconsistent CSR", 1, FCD_E_INVALID_ARG, MS_ERRBUF, NULL, w_fc_inconsistent},
  {"local problem with negative mu", 1, FCD_E_INVALID_ARG, MS_ERRBUF, "mu", w_fc_negative_mu},
  {"friction sweep to mu = 1e308", 1, FCD_E_INVALID_ARG, MS_SYS, "not finite", w_st_sweep_overflow},
  {"spring from a node to itself", 1, FCD_E_INVALID_ARG, MS_LAT, NULL, w_lat_spring_self},
  {"coordinate constrained twice", 1, FCD_E_INVALID_ARG, MS_LAT, NULL, w_lat_constrain_twice},
};
enum { NWHOLE = sizeof whole / sizeof whole[0] };

static void write_text(const char *path, const char *text) {
  FILE *fp = fopen(path, "w");
  if (fp) {
    fputs(text, fp);
    fclose(fp);
  }
}

int main(int argc, char **argv) {
  verbose = argc > 1 && !strcmp(argv[1], "-v");
  snprintf(tmpdir, sizeof tmpdir, "%s", fcdt_tmpdir());
  snprintf(path_mm, sizeof path_mm, "%s/badinput-c.mtx", tmpdir);
  snprintf(path_contacts, sizeof path_contacts, "%s/badinput-contacts.txt", tmpdir);
  snprintf(path_state, sizeof path_state, "%s/badinput-state.csv", tmpdir);
  snprintf(path_fixed, sizeof path_fixed, "%s/badinput-fixed.txt", tmpdir);
  snprintf(path_vec, sizeof path_vec, "%s/badinput-vec.txt", tmpdir);
  snprintf(path_out, sizeof path_out, "%s/badinput-out.dat", tmpdir);
  snprintf(path_missing, sizeof path_missing, "%s/no-such-file", tmpdir);
  snprintf(path_baddir, sizeof path_baddir, "%s/no-such-dir/out.dat", tmpdir);
  snprintf(path_pbin, sizeof path_pbin, "%s/badinput-c.petsc", tmpdir);
  write_pbin(path_pbin, "good");
  write_text(path_mm, "%%MatrixMarket matrix coordinate real symmetric\n6 6 2\n3 3 0.5\n4 4 0.5\n");
  write_text(path_contacts, "fcd-contacts 1\ndim 2\nrigid 4 5 0 -1 1 0 0 0.3\n");
  write_text(path_state, "contact,status,slip_t,slip_b\n0,slip,1,0\n1,stick,0,0\n");
  write_text(path_fixed, "0\n1 0.0\n");
  write_text(path_vec, "1 2 3 4 5 6 7 8\n");
  char p[700];
  snprintf(p, sizeof p, "%s/small.mtx", tmpdir);
  write_text(p, "%%MatrixMarket matrix coordinate real symmetric\n3 3 1\n1 1 1.0\n");

  /* references: the probe on untouched fixtures, twice to be sure it is repeatable */
  for (int solved = 0; solved < 2; solved++) {
    fx f;
    double *ref = solved ? ref_solved : ref_fresh, again[PROBE_MAX];
    int len2 = 0;
    if (!fixture_build(&f, solved) || !probe(&f, ref, &ref_len)) {
      fprintf(stderr, "the fixture or its probe fails: %s / %s\n",
              fcd_system_last_error(f.sys), fcd_lattice_last_error(f.lat));
      return 1;
    }
    fixture_free(&f);
    fixture_build(&f, solved);
    probe(&f, again, &len2);
    fixture_free(&f);
    CHECK(len2 == ref_len && !memcmp(again, ref, (size_t)ref_len * sizeof(double)));
  }

  int generated = 0;
  for (int i = 0; i < NROWS; i++) {
    int before = ncases;
    run_row(&rows[i], 1);
    generated += ncases - before;
  }
  int nwhole = 0;
  for (int i = 0; i < NWHOLE; i++) {
    fx f;
    fixture_build(&f, whole[i].solved);
    char before[512];
    const char *m0 = message_of(&f, whole[i].msg);
    snprintf(before, sizeof before, "%s", m0 ? m0 : "");
    fcd_status st = whole[i].call(&f);
    fcd_fc_problem_destroy(f.hout); /* only a wrongly accepted create leaves one */
    f.hout = NULL;
    judge(whole[i].name, &f, st, whole[i].expect, whole[i].msg, whole[i].says, before, whole[i].solved);
    fixture_free(&f);
    nwhole++;
  }
  int nfile = 0;
  for (int i = 0; i < NFILES; i++) {
    fx f;
    fixture_build(&f, 1);
    char before[512];
    msgsrc ms = files[i].reader == 4 ? MS_ERRBUF : MS_SYS;
    snprintf(before, sizeof before, "%s", message_of(&f, ms));
    fcd_status st = run_file_case(&f, &files[i]);
    /* a build without fclib refuses every fclib file the same way */
    int nofclib = files[i].reader == 4 && !fcd_has_feature("fclib");
    judge(files[i].name, &f, st, nofclib ? FCD_E_UNSUPPORTED : files[i].expect, ms,
          nofclib ? "fclib" : files[i].says, before, 1);
    fixture_free(&f);
    nfile++;
  }
  printf("bad-input table: %d public calls, %d generated cases, %d whole cases, %d file cases: "
         "%d cases; %d wrong status, %d missing or vague messages, %d broken handles\n",
         NROWS, generated, nwhole, nfile, ncases, nfail_status, nfail_msg, nfail_probe);
  CHECK(nfail_status == 0);
  CHECK(nfail_msg == 0);
  CHECK(nfail_probe == 0);
  return fcdt_finish("badinput_table");
}
