/* A stability analysis is the same analysis in any consistent units, and its infinite
 * eigenvalues are exactly the pencil's mass-less directions.
 *
 * A steel block in SI units (E = 210 GPa, rho = 7800 kg/m^3, 1 mm cells) whose bottom
 * row slides on a rigid flat: its reduced pencil's highest eigenvalues reach |lambda| of
 * about 1e7 rad/s, |K*| / |M*| about 1e14 s^-2. A test of infinity absolute in alpha and
 * beta (|beta| <= 1e3 eps |alpha|: every Lambda = -lambda^2 above 4.5e12) dropped them in
 * seconds and kept them in milliseconds. A change of time unit, t = s t' (M -> M / s^2,
 * C -> C / s, lambda -> s lambda) or of force unit (K, M, C all scaled) must return the
 * same spectrum, eigenvalue by eigenvalue, whatever the path: the undamped pencil, the
 * Rayleigh-damped one (its roots from each Lambda) and the companion form of an explicit
 * damping matrix.
 *
 * Mass-less directions: springs in series, two to a dof, with the middle node without
 * mass. Their K has no mass behind it, M v = 0 for the middle dofs, so each is two
 * infinite eigenvalues of the undamped pencil (its Lambda is infinite), and with
 * stiffness-proportional Rayleigh damping one infinite and one finite root, lambda =
 * -1/beta: (lambda^2 M + lambda (a M + b K) + K) v = (1 + b lambda) K v for M v = 0. The
 * finite ones are those of the model with the middle nodes condensed out (series springs
 * k1 k2 / (k1 + k2) on the block's dofs): a closed form of the same model, solved by
 * fcd on the condensed system. */
#include <fcd/fcd.h>

#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/block2d.h"
#include "../fcdtest.h"

enum { NX = 10, NY = 4, NEXTRA = 3 };

typedef struct {
  double kscale, mscale; /* K and M multiplied by these */
  double ray_beta;       /* Rayleigh stiffness factor, 0: none */
  double cdamp;          /* an explicit C = cdamp K, 0: none */
  int extra;             /* NEXTRA mass-less middle nodes (springs in series) */
  int condensed;         /* the series springs condensed onto the block instead */
  double tol;            /* FCD_STAB_TOLERANCE, 0: the default */
} variant;

static const double K1 = 3e8, K2 = 5e8; /* the series springs, N/m */
static const fcd_index EXTRA_AT[NEXTRA] = {2 * 14 + 1, 2 * 27, 2 * 40 + 1};

/* the block of 1 mm cells, its top row held, every bottom node sliding on the flat with
 * slip direction -1 (the flat moves in +x); n receives the eigenvalues, lam (2 ndofs) */
static int solve(const variant *v, double complex *lam, fcd_index *ninf, double *berr) {
  tb_block b;
  if (tb_block_build(&b, NX, NY, 0.010, 0.004, 210e9, 0.3, 7800.0)) return -1;
  fcd_index nb = b.ndofs, n = nb + (v->extra ? NEXTRA : 0);
  fcd_index cap = b.nk + 3 * NEXTRA + 1;
  fcd_index *ki = malloc(sizeof *ki * (size_t)cap), *kj = malloc(sizeof *kj * (size_t)cap);
  double *kv = malloc(sizeof *kv * (size_t)cap), *mv = malloc(sizeof *mv * (size_t)b.nm);
  fcd_index nk = b.nk;
  for (fcd_index e = 0; e < b.nk; e++) {
    ki[e] = b.ki[e];
    kj[e] = b.kj[e];
    kv[e] = b.kv[e] * v->kscale;
  }
  for (fcd_index e = 0; e < b.nm; e++) mv[e] = b.mv[e] * v->mscale;
  for (int q = 0; q < NEXTRA; q++) {
    fcd_index d = EXTRA_AT[q];
    if (v->extra) {
      /* block dof d -- K1 -- middle node (no mass) -- K2 -- ground */
      fcd_index m = nb + q;
      ki[nk] = d, kj[nk] = d, kv[nk++] = K1 * v->kscale;
      ki[nk] = d, kj[nk] = m, kv[nk++] = -K1 * v->kscale;
      ki[nk] = m, kj[nk] = m, kv[nk++] = (K1 + K2) * v->kscale;
    } else if (v->condensed) {
      ki[nk] = d, kj[nk] = d, kv[nk++] = K1 * K2 / (K1 + K2) * v->kscale;
    }
  }
  fcd_system *sys = NULL;
  fcd_contact_set *cs = NULL;
  fcd_stability *st = NULL;
  int rc = -1;
  if (fcd_system_create(n, &sys) != FCD_OK) goto out;
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, nk, ki, kj, kv, FCD_COO_UPPER), FCD_OK);
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_MASS, b.nm, b.mi, b.mj, mv, FCD_COO_UPPER), FCD_OK);
  if (v->cdamp > 0) {
    for (fcd_index e = 0; e < nk; e++) kv[e] *= v->cdamp;
    CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_DAMPING, nk, ki, kj, kv, FCD_COO_UPPER), FCD_OK);
  }
  if (v->ray_beta > 0) CHECK_ST(fcd_system_set_rayleigh(sys, 0.0, v->ray_beta), FCD_OK);
  fcd_index top[2 * (NX + 1)];
  for (int i = 0; i <= NX; i++) {
    top[2 * i] = 2 * tb_node(&b, i, NY);
    top[2 * i + 1] = top[2 * i] + 1;
  }
  CHECK_ST(fcd_system_fix_dofs(sys, 2 * (NX + 1), top, NULL), FCD_OK);
  CHECK_ST(tb_block_contacts(&b, sys, 0.3, 0.0, &cs), FCD_OK);
  CHECK_ST(fcd_stability_create(sys, cs, &st), FCD_OK);
  int status[NX + 1];
  double slip[NX + 1];
  for (int i = 0; i <= NX; i++) {
    status[i] = FCD_CONTACT_SLIP;
    slip[i] = -1;
  }
  CHECK_ST(fcd_stability_set_contact_state(st, status, slip), FCD_OK);
  CHECK_ST(fcd_stability_set_param(st, FCD_STAB_NEV, 10000), FCD_OK);
  if (v->tol > 0) CHECK_ST(fcd_stability_set_param(st, FCD_STAB_TOLERANCE, v->tol), FCD_OK);
  fcd_index nconv = 0;
  fcd_status s = fcd_stability_solve(st, &nconv);
  CHECK_ST(s, FCD_OK);
  if (s != FCD_OK) {
    fprintf(stderr, "%s\n", fcd_system_last_error(sys));
    goto out;
  }
  for (fcd_index i = 0; i < nconv; i++) {
    double re, im;
    fcd_stability_get_eigenvalue(st, i, &re, &im);
    lam[i] = re + I * im;
  }
  CHECK_ST(fcd_stability_get_infinite_count(st, ninf), FCD_OK);
  fcd_certificate cert;
  CHECK_ST(fcd_stability_get_certificate(st, &cert), FCD_OK);
  *berr = cert.worst;
  /* the bound, dense as sparse: max(1e-8, 100 x FCD_STAB_TOLERANCE) */
  CHECK(cert.tolerance == (v->tol > 1e-10 ? 100 * v->tol : 1e-8));
  CHECK(cert.worst <= cert.tolerance);
  rc = (int)nconv;
out:
  fcd_stability_destroy(st);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
  free(ki);
  free(kj);
  free(kv);
  free(mv);
  tb_block_free(&b);
  return rc;
}

/* the largest distance from an eigenvalue of a (times scale) to its nearest in b,
 * relative to the eigenvalue's modulus; each of b used once */
static double spectrum_distance(int n, const double complex *a, double scale,
                                const double complex *b) {
  char *used = calloc((size_t)n, 1);
  double worst = 0;
  for (int i = 0; i < n; i++) {
    double complex x = a[i] * scale;
    int best = -1;
    double bd = INFINITY;
    for (int j = 0; j < n; j++)
      if (!used[j] && cabs(b[j] - x) < bd) {
        bd = cabs(b[j] - x);
        best = j;
      }
    used[best] = 1;
    worst = fmax(worst, bd / cabs(x));
  }
  free(used);
  return worst;
}

static void test_units(void) {
  /* free dofs: 2 (11 x 5) - 22 held = 88; reduced: 88 - 11 normal = 77 */
  enum { NRED = 77, CAP = 4 * 2 * (NX + 1) * (NY + 1) };
  static double complex si[CAP], other[CAP];
  const char *what[3] = {"undamped", "Rayleigh", "explicit C"};
  for (int path = 0; path < 3; path++) {
    double beta = 1e-8; /* s */
    variant v = {.kscale = 1, .mscale = 1, .ray_beta = path == 1 ? beta : 0,
                 .cdamp = path == 2 ? beta : 0};
    fcd_index ninf = -1;
    double berr = 0;
    int n = solve(&v, si, &ninf, &berr);
    CHECK(n == 2 * NRED && ninf == 0);
    double lmax = 0;
    for (int i = 0; i < n; i++) lmax = fmax(lmax, cabs(si[i]));
    /* the regime an absolute test of infinity lost: Lambda above 4.5e12 s^-2 */
    CHECK(lmax > 2.2e6);
    /* milliseconds: M (kg = N s^2 / m) times 1e6, C times 1e3, lambda (1/ms) / 1e3 */
    variant ms = {.kscale = 1, .mscale = 1e6, .ray_beta = path == 1 ? beta * 1e3 : 0,
                  .cdamp = path == 2 ? beta * 1e3 : 0};
    fcd_index ninf_ms = -1;
    int nms = solve(&ms, other, &ninf_ms, &berr);
    CHECK(nms == n && ninf_ms == 0);
    double dms = nms == n ? spectrum_distance(n, si, 1e-3, other) : INFINITY;
    CHECK(dms <= 1e-8);
    /* kilonewtons: K, M and C divided by 1e3, the same eigenvalues */
    variant kn = {.kscale = 1e-3, .mscale = 1e-3, .ray_beta = v.ray_beta, .cdamp = v.cdamp,
                  .tol = path == 0 ? 1e-9 : 0};
    fcd_index ninf_kn = -1;
    int nkn = solve(&kn, other, &ninf_kn, &berr);
    CHECK(nkn == n && ninf_kn == 0);
    double dkn = nkn == n ? spectrum_distance(n, si, 1.0, other) : INFINITY;
    CHECK(dkn <= 1e-8);
    printf("%s: %d eigenvalues in s, ms and kN, none infinite, |lambda| up to %.3e rad/s; "
           "ms against s %.1e, kN against N %.1e\n", what[path], n, lmax, dms, dkn);
  }
}

static void test_massless(void) {
  enum { CAP = 4 * (2 * (NX + 1) * (NY + 1) + NEXTRA) };
  static double complex lam[CAP], ref[CAP];
  double beta = 1e-8;
  for (int damped = 0; damped < 2; damped++) {
    variant v = {.kscale = 1, .mscale = 1, .ray_beta = damped ? beta : 0, .extra = 1};
    variant c = {.kscale = 1, .mscale = 1, .ray_beta = damped ? beta : 0, .condensed = 1};
    fcd_index ninf = -1, ninf_c = -1;
    double berr = 0;
    int n = solve(&v, lam, &ninf, &berr);
    int nc = solve(&c, ref, &ninf_c, &berr);
    /* two infinite roots a mass-less direction undamped, one with Rayleigh damping */
    CHECK(ninf == (damped ? NEXTRA : 2 * NEXTRA) && ninf_c == 0);
    CHECK(n == nc + (damped ? NEXTRA : 0));
    /* with damping, NEXTRA roots at -1/beta beside the condensed model's */
    int at = 0;
    for (int i = 0; damped && i < n; i++)
      if (cabs(lam[i] + 1 / beta) <= 1e-9 / beta) at++;
    CHECK(at == (damped ? NEXTRA : 0));
    /* the finite ones are the condensed model's */
    double worst = 0;
    for (int i = 0; i < nc; i++) {
      double bd = INFINITY;
      for (int j = 0; j < n; j++) bd = fmin(bd, cabs(lam[j] - ref[i]));
      worst = fmax(worst, bd / cabs(ref[i]));
    }
    CHECK(worst <= 1e-8);
    printf("mass-less middle nodes, %s: %d finite (%d at -1/beta), %lld infinite; the "
           "condensed model's %d eigenvalues to %.1e\n", damped ? "Rayleigh" : "undamped", n,
           at, (long long)ninf, nc, worst);
  }
}

int main(void) {
  test_units();
  test_massless();
  return fcdt_finish("test_units");
}
