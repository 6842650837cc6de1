/* Forced periodic responses with exact Coulomb friction (issue 88; docs/periodic.md,
 * "Forced responses").
 *
 * 1. Den Hartog's oscillator (J. P. Den Hartog, Forced vibrations with combined Coulomb
 *    and viscous friction, Trans. ASME 53, 1931): m x'' + k x + F sgn(x') = P cos(omega t),
 *    here a mass on a rigid flat pressed by a constant normal load N (F = mu N), forced
 *    along the flat. Its steady motion without stops in closed form, derived below; the
 *    shooting solver's forced orbit of the modified theta scheme (theta = 1/2) must give
 *    its amplitude and its state at the forcing's phase 0 to 1e-6 over a sweep of the
 *    frequency ratio and of F / P.
 *
 *    The closed form. The steady motion without stops is antisymmetric over half a period
 *    tau = pi / omega: x(t + tau) = -x(t). Take t_s an instant where x = -X, v = 0, the
 *    mass then moving forward (friction -F) until t_s + tau, where x = X, v = 0. On that
 *    half, with omega_n^2 = k / m, G = P / (k - m omega^2),
 *        x(t) = -F / k + A cos(omega_n (t - t_s)) + B sin(omega_n (t - t_s)) + G cos(omega t).
 *    Its four end conditions give (s = omega_n tau, c = cos(omega t_s), d = sin(omega t_s)):
 *        v(t_s) = 0:           B omega_n = G omega d,
 *        v(t_s + tau) = 0:     A omega_n sin s = B omega_n cos s + G omega d
 *                              = B omega_n (1 + cos s), so A = B (1 + cos s) / sin s,
 *        x(t_s) + x(t_s + tau) = 0:  -2 F / k + A (1 + cos s) + B sin s = 0,
 *                              so B = (F / k) sin s / (1 + cos s) and A = F / k,
 *        x(t_s) = -X:          X = -G c.
 *    Hence d = B omega_n / (G omega) and X = |G| sqrt(1 - d^2): Den Hartog's
 *    X / (P / k) = sqrt(V^2 - (F / P)^2 U^2), V = 1 / (1 - beta^2),
 *    U = sin(pi / beta) / (beta (1 + cos(pi / beta))), beta = omega / omega_n. The form
 *    holds where the velocity keeps its sign over each half (checked on 2,000 points for
 *    every case used).
 *
 * 2. The linear limits of a friction-damped structure: a damped chain of three masses
 *    whose last one rubs on a flat, forced harmonically on the first. With mu = 0 the
 *    damper is free; on a flat sliding faster than the chain ever moves it always slips,
 *    a constant friction force; with a large mu it always sticks and holds the last mass
 *    where it stuck. Each forced orbit equals the linear system's harmonic response
 *    (x = a cos omega t + b sin omega t from the 2n x 2n real system [K - omega^2 M,
 *    omega C; -omega C, K - omega^2 M] (a, b) = (f_c, f_s), solved here by elimination;
 *    plus the static offset of the constant friction force; with the last mass held, its
 *    position the orbit's own) to 1e-8 of the amplitude. The stuck orbits form a family
 *    (stuck anywhere): the solver's least-norm Newton correction converges on one.
 *
 * 3. Bad input: a period that is not a multiple of the forcing's, a load on a prescribed
 *    dof, non-finite amplitudes, a frequency <= 0, continuation of a forced orbit in mu.
 *
 * 4. Frequency response curves by continuation, with the dense Jacobian and by
 *    Newton-Krylov (the same closed forms and bounds), and the stick-slip chain's curve
 *    by Newton-Krylov against dense solves at its points.
 *
 * 5. The stability verdict from Arnoldi's Ritz values (below). */
#include <fcd/fcd.h>

#include "../fcdtest.h"

#define PI 3.14159265358979323846

/* ---- 1. Den Hartog ---- */

typedef struct {
  double X, x0, v0; /* amplitude, state at t = 0 */
  int nonstop;      /* the velocity keeps its sign over each half period */
} den_hartog;

/* m = k = P = 1 (omega_n = 1), friction force F, forcing frequency w */
static den_hartog den_hartog_solution(double w, double F) {
  den_hartog r = {0, 0, 0, 0};
  double G = 1 / (1 - w * w), tau = PI / w, s = tau;
  double B = F * sin(s) / (1 + cos(s)), A = F, d = B / (G * w);
  if (!(fabs(d) < 1)) return r;
  r.X = fabs(G) * sqrt(1 - d * d);
  double c = -r.X / G, ts = atan2(d, c) / w;
  /* x and v on the forward half [ts, ts + tau] at absolute time t */
#define DH_X(t) (-F + A * cos((t) - ts) + B * sin((t) - ts) + G * cos(w * (t)))
#define DH_V(t) (-A * sin((t) - ts) + B * cos((t) - ts) - G * w * sin(w * (t)))
  r.nonstop = 1;
  for (int i = 1; i < 2000; i++)
    if (!(DH_V(ts + tau * i / 2000.0) > 0)) r.nonstop = 0;
  double del = fmod(0 - ts, 2 * tau);
  if (del < 0) del += 2 * tau;
  if (del < tau) {
    r.x0 = DH_X(ts + del);
    r.v0 = DH_V(ts + del);
  } else {
    r.x0 = -DH_X(ts + del - tau);
    r.v0 = -DH_V(ts + del - tau);
  }
#undef DH_X
#undef DH_V
  return r;
}

/* the mass (dof 0 along the flat, dof 1 normal to it) pressed by N = 1 */
static fcd_status slider(double mu, fcd_system **sys, fcd_contact_set **cs) {
  const fcd_index r[2] = {0, 1};
  const double one[2] = {1, 1}, f[2] = {0, 1}, n[2] = {0, 1}, t[2] = {1, 0};
  const fcd_index dofs[2] = {0, 1};
  fcd_status st = fcd_system_create(2, sys);
  if (st == FCD_OK) st = fcd_system_set_matrix_coo(*sys, FCD_STIFFNESS, 2, r, r, one, FCD_COO_UPPER);
  if (st == FCD_OK) st = fcd_system_set_matrix_coo(*sys, FCD_MASS, 2, r, r, one, FCD_COO_UPPER);
  if (st == FCD_OK) st = fcd_system_set_load(*sys, f);
  if (st == FCD_OK) st = fcd_contact_set_create(*sys, 2, cs);
  if (st == FCD_OK) st = fcd_contact_set_add_rigid(*cs, dofs, n, t, 0.0, mu, NULL);
  return st;
}

/* the forced orbit of the slider at w, F with N steps a period (modified theta, theta =
 * 1/2): its info, orbit and multipliers; 0 on success */
static int forced_orbit(double w, double F, long N, double *u, double *v, fcd_periodic_info *info,
                        double *mult_angle) {
  fcd_system *sys = NULL;
  fcd_contact_set *cs = NULL;
  fcd_periodic *p = NULL;
  const fcd_index d0 = 0;
  const double one = 1, T = 2 * PI / w;
  double Tp = 0;
  fcd_status st = slider(F, &sys, &cs);
  if (st == FCD_OK) st = fcd_periodic_create(sys, cs, FCD_SCHEME_MODIFIED_THETA, &p);
  if (st == FCD_OK) st = fcd_periodic_set_param(p, FCD_PARAM_STEP, T / (double)N);
  if (st == FCD_OK) st = fcd_periodic_set_param(p, FCD_PERIODIC_PARAM_TOL, 1e-11);
  if (st == FCD_OK) st = fcd_periodic_set_harmonic_forcing(p, w, 1, &d0, &one, NULL);
  /* the guess: the frictionless response at phase 0 */
  double u0[2] = {1 / (1 - w * w), 0}, v0[2] = {0, 0};
  if (st == FCD_OK) st = fcd_periodic_solve(p, u0, v0, T);
  if (st == FCD_OK) st = fcd_periodic_get_info(p, info);
  if (st == FCD_OK) st = fcd_periodic_get_orbit(p, &Tp, u, v);
  if (st == FCD_OK && mult_angle) {
    double re[4], im[4];
    fcd_index cnt = 0;
    st = fcd_periodic_get_multipliers(p, 4, re, im, &cnt);
    *mult_angle = cnt > 0 ? fabs(atan2(im[0], re[0])) : NAN;
  }
  if (st != FCD_OK) fprintf(stderr, "slider w=%g F=%g N=%ld: %s\n", w, F, N, fcd_system_last_error(sys));
  else CHECK_CLOSE(Tp, T, 1e-14);
  fcd_periodic_destroy(p);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
  return st != FCD_OK;
}

/* Den Hartog's motion without stops against the scheme's forced orbit. The scheme is of
 * order one at a reversal of the slip: the friction force of the step where the
 * velocity changes sign takes the new sign for the whole step, an impulse error of at
 * most 2 F h (a velocity error 2 F h / m). Two reversals a period, carried by the
 * period's linear map. That map is, for the scheme, the rotation by 2 pi omega_n / omega
 * in the energy norm |(omega_n x, v)|, multipliers on the unit circle (the differences
 * see no saltation: the reversal's step keeps its place and the friction its new sign),
 * unless a reversal's step sticks, which damps the velocity's part (a contraction): the
 * orbit's error e = (I - Phi)^-1 (kicks) is then at most 4 F h / (m |1 - e^{i 2 pi
 * omega_n / omega}|) = 2 F h / (m |sin(pi omega_n / omega)|) in that norm. The trapezoidal
 * rule's own error, (omega h)^2 / 12 relatively, is far below. Checked at 2,000 and
 * 16,000 steps a period: the error is within the bound and falls with it (to 1e-6 at
 * 256,000 steps, docs/periodic.md). */
static void check_den_hartog(double w, double F) {
  den_hartog ref = den_hartog_solution(w, F);
  CHECK(ref.nonstop);
  if (!ref.nonstop) return;
  const long Ns[2] = {2000, 16000};
  for (int k = 0; k < 2; k++) {
    double u[2], v[2], angle = NAN, h = 2 * PI / w / (double)Ns[k];
    fcd_periodic_info info;
    if (forced_orbit(w, F, Ns[k], u, v, &info, &angle)) {
      CHECK(0);
      continue;
    }
    double bound = 2 * F * h / fabs(sin(PI / w));
    double err = hypot(u[0] - ref.x0, v[0] - ref.v0);
    printf("den hartog w=%.2f F/P=%.2f N=%ld: X %.10f (exact %.10f), state error %.2e, "
           "bound %.2e, %lld iterations, multiplier angle %.5f, modulus %.6f\n", w, F, Ns[k], info.amplitude_u, ref.X, err, bound,
           (long long)info.iterations, angle, info.max_multiplier);
    CHECK(err <= bound);
    CHECK(fabs(info.amplitude_u - ref.X) <= bound);
    CHECK(fabs(u[1]) <= 1e-12 && fabs(v[1]) <= 1e-12); /* pressed all along */
    /* the scheme's multipliers: the rotation's by 2 pi / w on the unit circle, or fewer
     * and smaller where a reversal's step sticks (the step's end velocity held at 0);
     * never above 1 */
    double rot = fmod(2 * PI / w, 2 * PI);
    if (rot > PI) rot = 2 * PI - rot;
    CHECK(info.max_multiplier <= 1 + 1e-4);
    CHECK(info.max_multiplier < 1 - 1e-3 || fabs(angle - rot) <= 1e-3);
    CHECK(info.converged == 1);
  }
}

/* Den Hartog's motion with stops (low frequency, strong friction): the stops make the
 * orbit attracting; a long transient of the same scheme and step from rest settles on
 * it, and the shooting solver's orbit is its state at phase 0 to 1e-8 */
static int slider_load(void *ud, double t, fcd_index n, double *f) {
  (void)n;
  f[0] += cos(*(const double *)ud * t);
  return 0;
}

static void check_stops(double w, double F) {
  den_hartog ref = den_hartog_solution(w, F);
  CHECK(!ref.nonstop); /* the closed form does not hold here: there are stops */
  const long N = 4000;
  const double T = 2 * PI / w;
  double u[2], v[2];
  fcd_periodic_info info;
  if (forced_orbit(w, F, N, u, v, &info, NULL)) {
    CHECK(0);
    return;
  }
  fcd_system *sys = NULL;
  fcd_contact_set *cs = NULL;
  fcd_integrator *it = NULL;
  double wt = w, ut[2] = {0, 0}, vt[2] = {0, 0};
  fcd_status st = slider(F, &sys, &cs);
  if (st == FCD_OK) st = fcd_system_set_load_fn(sys, slider_load, &wt);
  if (st == FCD_OK) st = fcd_integrator_create(sys, cs, FCD_SCHEME_MODIFIED_THETA, &it);
  if (st == FCD_OK) st = fcd_integrator_set_param(it, FCD_PARAM_STEP, T / (double)N);
  if (st == FCD_OK) st = fcd_integrator_set_state(it, 0, ut, vt);
  double dmax = 0;
  for (int per = 0; per < 40 && st == FCD_OK; per++) {
    for (long k = 0; k < N && st == FCD_OK; k++) st = fcd_integrator_step(it);
    if (st == FCD_OK) st = fcd_integrator_get_state(it, NULL, ut, vt);
    if (per == 39) dmax = fmax(fabs(ut[0] - u[0]) / info.amplitude_u,
                               fabs(vt[0] - v[0]) / info.amplitude_v);
  }
  CHECK_ST(st, FCD_OK);
  printf("den hartog with stops w=%.2f F/P=%.2f: amplitude %.8f, transient's state at "
         "phase 0 after 40 periods within %.2e, max multiplier %.3e\n", w, F, info.amplitude_u,
         dmax, info.max_multiplier);
  CHECK(dmax <= 1e-8);
  CHECK(info.stable == 1 && info.max_multiplier < 0.5);
  fcd_integrator_destroy(it);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
}

/* ---- 2. the linear limits ---- */

/* The chain: x1, x2, x3 along the flat (springs 2 to the ground, 1 between x1 and x2, 1.5
 * between x2 and x3), y3 normal to it (spring 1, pressed by N = 1); masses 1, 1, 0.5,
 * 0.5; Rayleigh damping 0.01 M + 0.02 K; the last mass on the flat, sliding at vb */
enum { CN = 4 };
static const double CK[CN][CN] = {{3, -1, 0, 0}, {-1, 2.5, -1.5, 0}, {0, -1.5, 1.5, 0}, {0, 0, 0, 1}};
static const double CM[CN] = {1, 1, 0.5, 0.5}, CA = 0.01, CB = 0.02;

static fcd_status chain(double mu, double vb, fcd_system **sys, fcd_contact_set **cs) {
  fcd_index r[10], c[10], nk = 0, mr[CN];
  double kv[10], f[CN] = {0, 0, 0, 1};
  for (fcd_index i = 0; i < CN; i++) {
    mr[i] = i;
    for (fcd_index j = i; j < CN; j++)
      if (CK[i][j] != 0) {
        r[nk] = i;
        c[nk] = j;
        kv[nk++] = CK[i][j];
      }
  }
  const fcd_index dofs[2] = {2, 3};
  const double n[2] = {0, 1}, t[2] = {1, 0};
  fcd_status st = fcd_system_create(CN, sys);
  if (st == FCD_OK) st = fcd_system_set_matrix_coo(*sys, FCD_STIFFNESS, nk, r, c, kv, FCD_COO_UPPER);
  if (st == FCD_OK) st = fcd_system_set_matrix_coo(*sys, FCD_MASS, CN, mr, mr, CM, FCD_COO_UPPER);
  if (st == FCD_OK) st = fcd_system_set_rayleigh(*sys, CA, CB);
  if (st == FCD_OK) st = fcd_system_set_load(*sys, f);
  if (st == FCD_OK) st = fcd_contact_set_create(*sys, 2, cs);
  if (st == FCD_OK) st = fcd_contact_set_add_rigid(*cs, dofs, n, t, 0.0, mu, NULL);
  if (st == FCD_OK && vb != 0) st = fcd_contact_set_set_sliding_velocity(*cs, 0, &vb);
  return st;
}

/* x (n unknowns) from A x = b by Gaussian elimination with partial pivoting (A n x n,
 * row-major, destroyed) */
static void gauss(int n, double *A, double *b) {
  for (int k = 0; k < n; k++) {
    int pv = k;
    for (int i = k + 1; i < n; i++)
      if (fabs(A[i * n + k]) > fabs(A[pv * n + k])) pv = i;
    for (int j = 0; j < n; j++) {
      double t = A[k * n + j];
      A[k * n + j] = A[pv * n + j];
      A[pv * n + j] = t;
    }
    double t = b[k];
    b[k] = b[pv];
    b[pv] = t;
    for (int i = k + 1; i < n; i++) {
      double l = A[i * n + k] / A[k * n + k];
      for (int j = k; j < n; j++) A[i * n + j] -= l * A[k * n + k + j - k];
      b[i] -= l * b[k];
    }
  }
  for (int i = n - 1; i >= 0; i--) {
    for (int j = i + 1; j < n; j++) b[i] -= A[i * n + j] * b[j];
    b[i] /= A[i * n + i];
  }
}

/* The harmonic response x = a cos(w t) + b sin(w t) + x_s of the chain's first nm
 * tangential dofs (the others held at hold[]) to cos(w t) on x1 and the constant fs on
 * the dofs (the held dofs' springs included): the 2 nm real system, then K x_s = fs - K_h
 * hold */
static void chain_linear(int nm, double w, const double *hold, const double *fs, double *a,
                         double *b, double *xs) {
  double A[36], r[6], S[9];
  for (int i = 0; i < nm; i++)
    for (int j = 0; j < nm; j++) {
      double m = i == j ? CM[i] : 0, k = CK[i][j], c = CA * m + CB * k, kd = k - w * w * m;
      A[i * 2 * nm + j] = kd;
      A[i * 2 * nm + nm + j] = w * c;
      A[(nm + i) * 2 * nm + j] = -w * c;
      A[(nm + i) * 2 * nm + nm + j] = kd;
      S[i * nm + j] = k;
    }
  for (int i = 0; i < 2 * nm; i++) r[i] = i == 0 ? 1 : 0;
  gauss(2 * nm, A, r);
  for (int i = 0; i < nm; i++) {
    a[i] = r[i];
    b[i] = r[nm + i];
    xs[i] = fs[i];
    for (int j = nm; j < 3; j++) xs[i] -= CK[i][j] * hold[j];
  }
  gauss(nm, S, xs);
}

/* the forced orbit of the chain at w (N steps a period, modified theta) against the
 * linear response: mode 0 free (mu = 0), 1 always slipping (a flat at 100, mu = 0.3), 2
 * always stuck (mu = 50) */
static void check_linear_limit(int mode, double w) {
  const double mu = mode == 0 ? 0 : mode == 1 ? 0.3 : 50, vb = mode == 1 ? 100 : 0;
  const long N = 65536;
  const double T = 2 * PI / w, one = 1;
  const fcd_index d0 = 0;
  fcd_system *sys = NULL;
  fcd_contact_set *cs = NULL;
  fcd_periodic *p = NULL;
  double u[CN] = {0}, v[CN] = {0}, Tp;
  fcd_status st = chain(mu, vb, &sys, &cs);
  if (st == FCD_OK) st = fcd_periodic_create(sys, cs, FCD_SCHEME_MODIFIED_THETA, &p);
  if (st == FCD_OK) st = fcd_periodic_set_param(p, FCD_PARAM_STEP, T / (double)N);
  if (st == FCD_OK) st = fcd_periodic_set_param(p, FCD_PERIODIC_PARAM_TOL, 1e-12);
  if (st == FCD_OK) st = fcd_periodic_set_harmonic_forcing(p, w, 1, &d0, &one, NULL);
  if (st == FCD_OK) st = fcd_periodic_solve(p, u, v, T);
  if (st != FCD_OK) fprintf(stderr, "chain %d: %s\n", mode, fcd_system_last_error(sys));
  CHECK_ST(st, FCD_OK);
  fcd_periodic_info info;
  double umin[CN], umax[CN];
  if (st == FCD_OK) st = fcd_periodic_get_info(p, &info);
  if (st == FCD_OK) st = fcd_periodic_get_orbit(p, &Tp, u, v);
  if (st == FCD_OK) st = fcd_periodic_get_range(p, umin, umax);
  if (st == FCD_OK) {
    /* mode 2: x3 held where it stuck, the orbit's own place */
    int nm = mode == 2 ? 2 : 3;
    double hold[3] = {0, 0, u[2]}, fs[3] = {0, 0, mode == 1 ? mu : 0}, a[3], b[3], xs[3];
    chain_linear(nm, w, hold, fs, a, b, xs);
    double amp = 0, err = 0;
    for (int i = 0; i < nm; i++) {
      amp = fmax(amp, hypot(a[i], b[i]));
      err = fmax(err, fabs(u[i] - (a[i] + xs[i])));
      err = fmax(err, fabs(v[i] - w * b[i]) / w);
      err = fmax(err, fabs(0.5 * (umax[i] - umin[i]) - hypot(a[i], b[i])));
    }
    printf("linear limit %s w=%.2f: %lld iterations, error %.2e of the amplitude %.4f "
           "(x3 %s %.3e), largest multiplier %.6f\n", mode == 0 ? "free" : mode == 1 ?
           "slipping" : "stuck", w, (long long)info.iterations, err / amp, amp,
           mode == 2 ? "range" : "offset", mode == 2 ? umax[2] - umin[2] : xs[2],
           info.max_multiplier);
    CHECK(err <= 1e-8 * amp);
    CHECK(fabs(umax[3]) <= 1e-14 && fabs(umin[3]) <= 1e-14); /* the contact stays closed */
    if (mode == 2) CHECK(umax[2] - umin[2] <= 1e-12 * amp); /* held */
    CHECK(info.stable == 1);
  }
  fcd_periodic_destroy(p);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
}

/* The forced orbit by Newton-Krylov (GMRES on Phi - I with the monodromy by directional
 * differences; FCD_PERIODIC_JACOBIAN_KRYLOV) against the dense Jacobian's, on the chain
 * with its damper in stick-slip (mu = 0.3 at rest: it sticks and slips within a period):
 * the same fixed point of the same period map, both to the residual bound 1e-12, so the
 * orbits agree to the bound times the map's conditioning. */
static void check_krylov(double w) {
  const long N = 4096;
  const double T = 2 * PI / w, one = 1;
  const fcd_index d0 = 0;
  double u[2][CN] = {{0}}, v[2][CN] = {{0}}, lo[2][CN], hi[2][CN];
  fcd_periodic_info info[2];
  for (int k = 0; k < 2; k++) {
    fcd_system *sys = NULL;
    fcd_contact_set *cs = NULL;
    fcd_periodic *p = NULL;
    double Tp;
    fcd_status st = chain(0.3, 0, &sys, &cs);
    if (st == FCD_OK) st = fcd_periodic_create(sys, cs, FCD_SCHEME_MODIFIED_THETA, &p);
    if (st == FCD_OK) st = fcd_periodic_set_param(p, FCD_PARAM_STEP, T / (double)N);
    if (st == FCD_OK) st = fcd_periodic_set_param(p, FCD_PERIODIC_PARAM_TOL, 1e-12);
    if (st == FCD_OK)
      st = fcd_periodic_set_param(p, FCD_PERIODIC_PARAM_JACOBIAN,
                                  k ? FCD_PERIODIC_JACOBIAN_KRYLOV : FCD_PERIODIC_JACOBIAN_DENSE);
    if (st == FCD_OK) st = fcd_periodic_set_harmonic_forcing(p, w, 1, &d0, &one, NULL);
    if (st == FCD_OK) st = fcd_periodic_solve(p, u[k], v[k], T);
    if (st == FCD_OK) st = fcd_periodic_get_info(p, &info[k]);
    if (st == FCD_OK) st = fcd_periodic_get_orbit(p, &Tp, u[k], v[k]);
    if (st == FCD_OK) st = fcd_periodic_get_range(p, lo[k], hi[k]);
    if (st != FCD_OK) fprintf(stderr, "chain, %s: %s\n", k ? "Krylov" : "dense", fcd_system_last_error(sys));
    CHECK_ST(st, FCD_OK);
    fcd_periodic_destroy(p);
    fcd_contact_set_destroy(cs);
    fcd_system_destroy(sys);
  }
  double amp = 0, err = 0;
  for (int i = 0; i < CN; i++) {
    amp = fmax(amp, 0.5 * (hi[0][i] - lo[0][i]));
    err = fmax(err, fmax(fabs(u[1][i] - u[0][i]), fabs(v[1][i] - v[0][i]) / w));
    err = fmax(err, fmax(fabs(hi[1][i] - hi[0][i]), fabs(lo[1][i] - lo[0][i])));
  }
  printf("stick-slip chain w=%.2f: dense %lld iterations, %lld periods; Krylov %lld, %lld; "
         "orbits apart by %.2e of the amplitude %.4f (x3 range %.4f)\n", w,
         (long long)info[0].iterations, (long long)info[0].evaluations,
         (long long)info[1].iterations, (long long)info[1].evaluations, err / amp, amp,
         hi[0][2] - lo[0][2]);
  CHECK(hi[0][2] - lo[0][2] > 1e-3 * amp); /* the damper slips */
  CHECK(err <= 1e-9 * amp);
}

/* The chain's frequency response curve by the Newton-Krylov continuation
 * (FCD_PERIODIC_JACOBIAN_KRYLOV: GMRES on the bordered corrector, the multipliers by
 * Arnoldi) through its first resonance, against the dense shooting solver at six of its
 * points' omega, each started from the point before (another omega, another orbit):
 * mu = 0.3, the damper slips over part of the cycle and sticks over the rest; mu = 50,
 * it sticks throughout (the first resonance then that of the first two masses with the
 * third held: K = [3, -1; -1, 2.5], M = I, omega = 1.311), its orbits a family (stuck anywhere, a multiplier at +1), a
 * linear system's response whose omega must only grow along the curve (the Krylov
 * continuation without the family's border wandered back and forth over the family). */
enum { KC_CAP = 200 };
typedef struct {
  int n;
  double w[KC_CAP], au[KC_CAP], u[KC_CAP][CN], v[KC_CAP][CN];
  fcd_periodic *p;
} kcurve;

static int on_kpoint(void *ud, double lam, const fcd_periodic_info *info, const double *re,
                     const double *im, int event) {
  (void)re;
  (void)im;
  (void)event;
  kcurve *c = ud;
  if (c->n >= KC_CAP) return 1;
  c->w[c->n] = lam;
  c->au[c->n] = info->amplitude_u;
  if (fcd_periodic_get_orbit(c->p, NULL, c->u[c->n], c->v[c->n]) != FCD_OK) return 1;
  c->n++;
  return 0;
}

static void check_krylov_curve(double mu, double w1) {
  const long N = 2048;
  const double one = 1, w0 = 0.5;
  const fcd_index d0 = 0;
  fcd_system *sys = NULL;
  fcd_contact_set *cs = NULL;
  static kcurve c;
  double u[CN] = {0}, v[CN] = {0}, T = 2 * PI / w0;
  memset(&c, 0, sizeof c);
  CHECK_ST(chain(mu, 0, &sys, &cs), FCD_OK);
  CHECK_ST(fcd_periodic_create(sys, cs, FCD_SCHEME_MODIFIED_THETA, &c.p), FCD_OK);
  CHECK_ST(fcd_periodic_set_param(c.p, FCD_PARAM_STEP, T / (double)N), FCD_OK);
  CHECK_ST(fcd_periodic_set_param(c.p, FCD_PERIODIC_PARAM_TOL, 1e-11), FCD_OK);
  CHECK_ST(fcd_periodic_set_param(c.p, FCD_PERIODIC_PARAM_JACOBIAN, FCD_PERIODIC_JACOBIAN_KRYLOV),
           FCD_OK);
  CHECK_ST(fcd_periodic_set_harmonic_forcing(c.p, w0, 1, &d0, &one, NULL), FCD_OK);
  CHECK_ST(fcd_periodic_solve(c.p, u, v, T), FCD_OK);
  {
    fcd_periodic_info in0;
    CHECK_ST(fcd_periodic_get_info(c.p, &in0), FCD_OK);
    on_kpoint(&c, w0, &in0, NULL, NULL, 0); /* the start, point 0 */
  }
  fcd_status st = fcd_periodic_continue_forcing(c.p, FCD_PERIODIC_CONTINUE_OMEGA, w1, 0.05,
                                                KC_CAP, on_kpoint, &c);
  if (st != FCD_OK) fprintf(stderr, "Krylov forced continuation: %s\n", fcd_system_last_error(sys));
  CHECK_ST(st, FCD_OK);
  fcd_periodic_info in;
  CHECK_ST(fcd_periodic_get_info(c.p, &in), FCD_OK);
  double peak = 0, wpeak = 0;
  int back = 0;
  for (int i = 0; i < c.n; i++) {
    if (c.au[i] > peak) peak = c.au[i], wpeak = c.w[i];
    if (i > 0 && c.w[i] <= c.w[i - 1]) back++;
  }
  printf("%s chain by Newton-Krylov continuation: %d points over %.3f..%.3f in %lld "
         "periods, peak amplitude %.5f at omega %.4f, %d steps back in omega\n",
         mu > 1 ? "stuck" : "stick-slip", c.n, c.w[0], c.w[c.n - 1],
         (long long)in.evaluations, peak, wpeak, back);
  CHECK(c.n >= 8 && c.w[c.n - 1] >= w1);
  if (mu > 1) CHECK(back == 0);
  fcd_periodic_destroy(c.p);
  double worst = 0;
  for (int q = 1; q <= 6 && c.n >= 8; q++) {
    int i = 1 + (q * (c.n - 2)) / 6;
    fcd_periodic *p = NULL;
    double Ti = 2 * PI / c.w[i];
    fcd_periodic_info di = {0};
    CHECK_ST(fcd_periodic_create(sys, cs, FCD_SCHEME_MODIFIED_THETA, &p), FCD_OK);
    CHECK_ST(fcd_periodic_set_param(p, FCD_PARAM_STEP, Ti / (double)N), FCD_OK);
    CHECK_ST(fcd_periodic_set_param(p, FCD_PERIODIC_PARAM_TOL, 1e-11), FCD_OK);
    CHECK_ST(fcd_periodic_set_param(p, FCD_PERIODIC_PARAM_JACOBIAN, FCD_PERIODIC_JACOBIAN_DENSE),
             FCD_OK);
    CHECK_ST(fcd_periodic_set_harmonic_forcing(p, c.w[i], 1, &d0, &one, NULL), FCD_OK);
    st = fcd_periodic_solve(p, c.u[i - 1], c.v[i - 1], Ti);
    if (st == FCD_OK) st = fcd_periodic_get_info(p, &di);
    if (st != FCD_OK) fprintf(stderr, "dense solve at omega %.6f: %s\n", c.w[i], fcd_system_last_error(sys));
    CHECK_ST(st, FCD_OK);
    printf("  omega %.6f: Krylov amplitude %.9f, dense solve from omega %.6f: %.9f\n", c.w[i],
           c.au[i], c.w[i - 1], di.amplitude_u);
    worst = fmax(worst, fabs(di.amplitude_u - c.au[i]) / c.au[i]);
    fcd_periodic_destroy(p);
  }
  printf("  worst relative amplitude difference %.2e\n", worst);
  CHECK(worst <= 1e-8);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
}

/* ---- 3. the host's forcing, a multiple period, bad input ---- */

static int cos_forcing(void *ud, double theta, fcd_index n, double *f) {
  (void)ud;
  (void)n;
  f[0] = cos(theta);
  return 0;
}

static int failing_forcing(void *ud, double theta, fcd_index n, double *f) {
  (void)ud;
  (void)n;
  f[0] = theta;
  return theta > 1 ? 7 : 0;
}

static void check_api(void) {
  fcd_system *sys = NULL;
  fcd_contact_set *cs = NULL;
  fcd_periodic *p = NULL;
  const double w = 0.5, T = 2 * PI / w, one = 1, nan = NAN;
  const fcd_index d0 = 0, d1 = 1, d9 = 9;
  CHECK_ST(slider(0.7, &sys, &cs), FCD_OK);
  CHECK_ST(fcd_periodic_create(sys, cs, FCD_SCHEME_MODIFIED_THETA, &p), FCD_OK);
  CHECK_ST(fcd_periodic_set_param(p, FCD_PARAM_STEP, T / 1000), FCD_OK);
  CHECK_ST(fcd_periodic_set_param(p, FCD_PERIODIC_PARAM_FORCING_OMEGA, 1.0), FCD_E_STATE);
  CHECK_ST(fcd_periodic_set_harmonic_forcing(p, 0.0, 1, &d0, &one, NULL), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "circular frequency");
  CHECK_ST(fcd_periodic_set_harmonic_forcing(p, w, 1, &d9, &one, NULL), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "outside");
  CHECK_ST(fcd_periodic_set_harmonic_forcing(p, w, 1, &d0, &nan, NULL), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "non-finite amplitude");
  CHECK_ST(fcd_periodic_set_harmonic_forcing(p, w, -1, &d0, &one, NULL), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_periodic_set_forcing(p, INFINITY, cos_forcing, NULL), FCD_E_INVALID_ARG);
  /* the host's cos(theta) on dof 0 is the harmonic load of amplitude 1: the same orbit */
  double u[2] = {0, 0}, v[2] = {0, 0}, uh[2], vh[2], uc[2], vc[2], u2[2], v2[2], Tp;
  CHECK_ST(fcd_periodic_set_harmonic_forcing(p, w, 1, &d0, &one, NULL), FCD_OK);
  CHECK_ST(fcd_periodic_solve(p, u, v, 1.5 * T), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "whole multiple");
  CHECK_ST(fcd_periodic_solve(p, u, v, T), FCD_OK);
  CHECK_ST(fcd_periodic_get_orbit(p, &Tp, uh, vh), FCD_OK);
  CHECK_ST(fcd_periodic_continue(p, 0.5, 0.01, 3, NULL, NULL), FCD_E_UNSUPPORTED);
  CHECK_MSG(sys, "forced");
  CHECK_ST(fcd_periodic_set_forcing(p, w, cos_forcing, NULL), FCD_OK);
  CHECK_ST(fcd_periodic_solve(p, u, v, T), FCD_OK);
  CHECK_ST(fcd_periodic_get_orbit(p, &Tp, uc, vc), FCD_OK);
  CHECK(fabs(uc[0] - uh[0]) <= 1e-12 && fabs(vc[0] - vh[0]) <= 1e-12);
  /* twice the period: the same orbit (it has stops and attracts), 2 T reported */
  CHECK_ST(fcd_periodic_solve(p, u, v, 2 * T * (1 + 1e-9)), FCD_OK);
  CHECK_ST(fcd_periodic_get_orbit(p, &Tp, u2, v2), FCD_OK);
  CHECK_CLOSE(Tp, 2 * T, 1e-14);
  CHECK(fabs(u2[0] - uh[0]) <= 1e-9 && fabs(v2[0] - vh[0]) <= 1e-9);
  /* the scale: half the load, and the frequency parameter */
  CHECK_ST(fcd_periodic_set_param(p, FCD_PERIODIC_PARAM_FORCING_SCALE, NAN), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_periodic_set_param(p, FCD_PERIODIC_PARAM_FORCING_OMEGA, -1), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_periodic_set_param(p, FCD_PERIODIC_PARAM_FORCING_OMEGA, w), FCD_OK);
  /* a failing callback stops the solve, which names it; the handle stays usable */
  CHECK_ST(fcd_periodic_set_forcing(p, w, failing_forcing, NULL), FCD_OK);
  CHECK_ST(fcd_periodic_solve(p, u, v, T), FCD_E_CALLBACK);
  CHECK_MSG(sys, "forcing");
  CHECK_ST(fcd_periodic_set_forcing(p, w, NULL, NULL), FCD_OK); /* autonomous again */
  CHECK_ST(fcd_periodic_set_param(p, FCD_PERIODIC_PARAM_FORCING_OMEGA, w), FCD_E_STATE);
  fcd_periodic_destroy(p);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
  /* a load on a prescribed dof moves nothing */
  CHECK_ST(chain(0.3, 0, &sys, &cs), FCD_OK);
  CHECK_ST(fcd_system_fix_dofs(sys, 1, &d0, NULL), FCD_OK);
  CHECK_ST(fcd_periodic_create(sys, cs, FCD_SCHEME_MODIFIED_THETA, &p), FCD_OK);
  CHECK_ST(fcd_periodic_set_harmonic_forcing(p, w, 1, &d0, &one, NULL), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "prescribed");
  CHECK_ST(fcd_periodic_set_harmonic_forcing(p, w, 1, &d1, &one, NULL), FCD_OK);
  fcd_periodic_destroy(p);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
}

/* ---- 4. frequency response curves by continuation ---- */

typedef struct {
  int count, bad_events;
  double w, F, worst, worst_bound, lo, hi;
  int mode; /* 0: Den Hartog in omega, 1: Den Hartog in the scale, 2: the free chain */
  long N;
} curve;

static int on_point(void *ud, double lam, const fcd_periodic_info *info, const double *re,
                    const double *im, int event) {
  (void)re;
  (void)im;
  curve *c = ud;
  c->count++;
  if (getenv("FORCED_DEBUG")) printf("  point %.6f amplitude %.6f\n", lam, info->amplitude_u);
  c->lo = fmin(c->lo, lam);
  c->hi = fmax(c->hi, lam);
  if (event != FCD_PERIODIC_EVENT_NONE) c->bad_events++;
  if (c->mode <= 1) {
    /* Den Hartog at (w, F / P): P = scale, so the closed form at F / P in units of P / k */
    double w = c->mode == 0 ? lam : c->w, P = c->mode == 0 ? 1 : lam;
    den_hartog ref = den_hartog_solution(w, c->F / P);
    double h = 2 * PI / w / (double)c->N, bound = 2 * c->F * h / fabs(sin(PI / w));
    if (!ref.nonstop) return 0; /* not this closed form's regime */
    double err = fabs(info->amplitude_u - P * ref.X);
    c->worst = fmax(c->worst, err / bound);
  } else {
    double hold[3] = {0, 0, 0}, fs[3] = {0, 0, 0}, a[3], b[3], xs[3];
    chain_linear(3, lam, hold, fs, a, b, xs);
    double amp = 0;
    for (int i = 0; i < 3; i++) amp = fmax(amp, hypot(a[i], b[i]));
    /* the amplitude is the largest half range over every free dof: the chain's */
    c->worst = fmax(c->worst, fabs(info->amplitude_u - amp) / amp);
  }
  return 0;
}

static void check_curves(int jac) {
  fcd_system *sys = NULL;
  fcd_contact_set *cs = NULL;
  fcd_periodic *p = NULL;
  const fcd_index d0 = 0;
  const double one = 1;
  /* Den Hartog's curve above resonance, in omega from 1.3 to 2.2, F / P = 0.1 */
  curve c = {0, 0, 0, 0.1, 0, 0, INFINITY, -INFINITY, 0, 4000};
  double w = 1.3, T = 2 * PI / w, u[2] = {0, 0}, v[2] = {0, 0};
  CHECK_ST(slider(0.1, &sys, &cs), FCD_OK);
  CHECK_ST(fcd_periodic_create(sys, cs, FCD_SCHEME_MODIFIED_THETA, &p), FCD_OK);
  CHECK_ST(fcd_periodic_set_param(p, FCD_PARAM_STEP, T / (double)c.N), FCD_OK);
  CHECK_ST(fcd_periodic_set_param(p, FCD_PERIODIC_PARAM_TOL, 1e-11), FCD_OK);
  CHECK_ST(fcd_periodic_set_param(p, FCD_PERIODIC_PARAM_JACOBIAN, jac), FCD_OK);
  CHECK_ST(fcd_periodic_set_harmonic_forcing(p, w, 1, &d0, &one, NULL), FCD_OK);
  CHECK_ST(fcd_periodic_continue_forcing(p, FCD_PERIODIC_CONTINUE_OMEGA, 2.2, 0.05, 40, on_point, &c),
           FCD_E_STATE);
  u[0] = 1 / (1 - w * w);
  CHECK_ST(fcd_periodic_solve(p, u, v, T), FCD_OK);
  fcd_status st = fcd_periodic_continue_forcing(p, FCD_PERIODIC_CONTINUE_OMEGA, 2.2, 0.05, 60,
                                                on_point, &c);
  CHECK_ST(st, FCD_OK);
  if (st != FCD_OK) fprintf(stderr, "%s\n", fcd_system_last_error(sys));
  printf("den hartog curve in omega: %d points over %.3f..%.3f, worst amplitude error %.2f of "
         "the bound, %d events\n", c.count, c.lo, c.hi, c.worst, c.bad_events);
  CHECK(c.count >= 5 && c.hi >= 2.2 && c.lo >= 1.3);
  CHECK(c.worst <= 1);
  CHECK(c.bad_events == 0);
  /* the frequency restored, the solver on the last point */
  fcd_periodic_info info;
  CHECK_ST(fcd_periodic_get_info(p, &info), FCD_OK);
  CHECK(fabs(info.period - 2 * PI / c.hi) <= 1e-12 * info.period);
  /* the same orbit in the forcing's scale from P = 1 to 3 (F / P from 0.1 to 1/30) */
  curve s = {0, 0, 1.3, 0.1, 0, 0, INFINITY, -INFINITY, 1, 4000};
  CHECK_ST(fcd_periodic_solve(p, u, v, T), FCD_OK);
  st = fcd_periodic_continue_forcing(p, FCD_PERIODIC_CONTINUE_SCALE, 3.0, 0.1, 60, on_point, &s);
  CHECK_ST(st, FCD_OK);
  printf("den hartog curve in the scale: %d points over %.3f..%.3f, worst amplitude error "
         "%.2f of the bound\n", s.count, s.lo, s.hi, s.worst);
  CHECK(s.count >= 5 && s.hi >= 3.0);
  CHECK(s.worst <= 1);
  CHECK_ST(fcd_periodic_continue_forcing(p, 7, 3.0, 0.1, 60, NULL, NULL), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_periodic_continue_forcing(p, FCD_PERIODIC_CONTINUE_OMEGA, -1, 0.1, 60, NULL, NULL),
           FCD_E_INVALID_ARG);
  CHECK_ST(fcd_periodic_continue_forcing(p, FCD_PERIODIC_CONTINUE_OMEGA, 2, 2, 60, NULL, NULL),
           FCD_E_INVALID_ARG);
  fcd_periodic_destroy(p);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
  /* the free chain's curve through its first resonance (0.626), 0.4 to 0.9 */
  curve f = {0, 0, 0, 0, 0, 0, INFINITY, -INFINITY, 2, 8192};
  w = 0.4;
  T = 2 * PI / w;
  double uc[CN] = {0}, vc[CN] = {0};
  CHECK_ST(chain(0, 0, &sys, &cs), FCD_OK);
  CHECK_ST(fcd_periodic_create(sys, cs, FCD_SCHEME_MODIFIED_THETA, &p), FCD_OK);
  CHECK_ST(fcd_periodic_set_param(p, FCD_PARAM_STEP, T / (double)f.N), FCD_OK);
  CHECK_ST(fcd_periodic_set_param(p, FCD_PERIODIC_PARAM_TOL, 1e-11), FCD_OK);
  CHECK_ST(fcd_periodic_set_param(p, FCD_PERIODIC_PARAM_JACOBIAN, jac), FCD_OK);
  CHECK_ST(fcd_periodic_set_harmonic_forcing(p, w, 1, &d0, &one, NULL), FCD_OK);
  CHECK_ST(fcd_periodic_solve(p, uc, vc, T), FCD_OK);
  st = fcd_periodic_continue_forcing(p, FCD_PERIODIC_CONTINUE_OMEGA, 0.9, 0.05, 120, on_point, &f);
  CHECK_ST(st, FCD_OK);
  /* The trapezoidal rule's relative error, (omega h)^2 / 12 = (2 pi / N)^2 / 12 (a
   * frequency error of that size), times the resonance's amplification of a frequency
   * error, about 1 / (2 zeta) at the peak: zeta = alpha / (2 omega_1) + beta omega_1 / 2
   * at the first mode, omega_1 = 0.6257 (the chain's K, M; checked with scipy) */
  double w1 = 0.6257, zeta = CA / (2 * w1) + CB * w1 / 2;
  double tol = 2 * pow(2 * PI / (double)f.N, 2) / 12 / (2 * zeta);
  printf("free chain's curve: %d points over %.3f..%.3f, worst amplitude error %.2e (bound "
         "%.2e)\n", f.count, f.lo, f.hi, f.worst, tol);
  CHECK(f.count >= 8 && f.hi >= 0.9);
  CHECK(f.worst <= tol);
  fcd_periodic_destroy(p);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
}

/* 5. The verdict from Arnoldi's Ritz values. A fixed-fixed chain of RN unit masses and
 * springs with mass-proportional damping C = alpha M, no contact, forced on its first
 * mass: every mode decays at alpha / 2, so all 2 RN multipliers crowd one circle (just
 * inside the unit one). Four Arnoldi steps cannot resolve them: the largest Ritz value
 * is no multiplier, and the solver must not give a verdict from it (before it said
 * "stable" with the largest multiplier under the true one, as on the reduced brake).
 * With 2 RN steps the Krylov space is the whole state space: the verdict and the largest
 * multiplier are the dense Jacobian's (LAPACK's eigenvalues of the monodromy). */
enum { RN = 30 };

static void check_ritz_verdict(void) {
  const double w = 0.7, T = 2 * PI / w, one = 1, alpha = 0.02;
  const fcd_index d0 = 0;
  const int nmult[3] = {0, 4, 2 * RN};
  fcd_periodic_info info[3];
  for (int k = 0; k < 3; k++) {
    fcd_index r[2 * RN], c[2 * RN], nk = 0, mr[RN];
    double kv[2 * RN], mv[RN], u[RN] = {0}, v[RN] = {0};
    for (fcd_index i = 0; i < RN; i++) {
      mr[i] = i;
      mv[i] = 1;
      r[nk] = c[nk] = i;
      kv[nk++] = 2;
      if (i + 1 < RN) {
        r[nk] = i;
        c[nk] = i + 1;
        kv[nk++] = -1;
      }
    }
    fcd_system *sys = NULL;
    fcd_periodic *p = NULL;
    fcd_status st = fcd_system_create(RN, &sys);
    if (st == FCD_OK) st = fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, nk, r, c, kv, FCD_COO_UPPER);
    if (st == FCD_OK) st = fcd_system_set_matrix_coo(sys, FCD_MASS, RN, mr, mr, mv, FCD_COO_UPPER);
    if (st == FCD_OK) st = fcd_system_set_rayleigh(sys, alpha, 0);
    if (st == FCD_OK) st = fcd_periodic_create(sys, NULL, FCD_SCHEME_MODIFIED_THETA, &p);
    if (st == FCD_OK) st = fcd_periodic_set_param(p, FCD_PARAM_STEP, T / 64);
    if (st == FCD_OK)
      st = fcd_periodic_set_param(p, FCD_PERIODIC_PARAM_JACOBIAN,
                                  k ? FCD_PERIODIC_JACOBIAN_KRYLOV : FCD_PERIODIC_JACOBIAN_DENSE);
    if (st == FCD_OK && k) st = fcd_periodic_set_param(p, FCD_PERIODIC_PARAM_MULTIPLIERS, nmult[k]);
    if (st == FCD_OK) st = fcd_periodic_set_harmonic_forcing(p, w, 1, &d0, &one, NULL);
    if (st == FCD_OK) st = fcd_periodic_solve(p, u, v, T);
    if (st == FCD_OK) st = fcd_periodic_get_info(p, &info[k]);
    if (st != FCD_OK) fprintf(stderr, "damped chain: %s\n", fcd_system_last_error(sys));
    CHECK_ST(st, FCD_OK);
    fcd_periodic_destroy(p);
    fcd_system_destroy(sys);
  }
  printf("damped chain (%d masses): dense largest multiplier %.8f (exp(-alpha T / 2) = "
         "%.8f), verdict %d; Krylov, 4 Arnoldi steps: largest Ritz value %.6f, verdict %d; "
         "%d steps: %.8f, verdict %d\n", RN, info[0].max_multiplier, exp(-alpha * T / 2),
         info[0].stable, info[1].max_multiplier, info[1].stable, 2 * RN,
         info[2].max_multiplier, info[2].stable);
  CHECK(info[0].stable == 1 && info[0].max_multiplier < 1);
  CHECK(info[1].stable == -1);
  CHECK(info[2].stable == 1);
  CHECK_CLOSE(info[2].max_multiplier, info[0].max_multiplier, 1e-6);
}

int main(void) {
  check_ritz_verdict();
  check_api();
  check_curves(FCD_PERIODIC_JACOBIAN_DENSE);
  check_curves(FCD_PERIODIC_JACOBIAN_KRYLOV);
  const double ws[] = {0.6, 0.8, 1.3, 2.0}, Fs[] = {0.1, 0.3};
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 2; j++) check_den_hartog(ws[i], Fs[j]);
  check_stops(0.3, 0.5);
  check_stops(0.5, 0.7);
  check_krylov(0.6);
  check_krylov(1.1);
  check_krylov_curve(0.3, 1.0);
  check_krylov_curve(50, 1.6); /* through the stuck chain's resonance, 1.31 */
  const double wl[] = {0.5, 1.1};
  for (int mode = 0; mode < 3; mode++)
    for (int i = 0; i < 2; i++) check_linear_limit(mode, wl[i]);
  return fcdt_finish("periodic/forced");
}
