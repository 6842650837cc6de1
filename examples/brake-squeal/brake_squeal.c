/* Seed 003 (Sinou, Chiello and Charroyer 2019), section 4: a simplified TGV brake, a
 * disc with its bell (hub) and twelve small cylindrical pins, six on each side, pressed
 * by an imposed displacement while the disc turns. The stability of the sliding
 * equilibrium is swept over the friction coefficient (the paper's Figs. 5-7).
 *
 * The paper gives no geometry, mesh or boundary conditions (its Fig. 4 is a picture):
 * this program builds its own and says so (docs/examples/brake-squeal.md). Materials,
 * damping and the imposed displacement are Table 1's:
 *   disc and hub: E = 210 GPa, nu = 0.28, rho = 7850, Rayleigh alpha = 7.5 s^-1,
 *                 beta = 1e-7 s;
 *   pins:         E = 2 GPa, nu = 0.3, rho = 5000, alpha = 135 s^-1, beta = 1.8e-6 s;
 *   the pins' outer faces pushed 1.6e-6 m towards the disc.
 * Geometry (ours): a solid annulus r in [0.20, 0.32] m, 45 mm thick; a bell, a tube
 * r in [0.200, 0.215] m and 0.1 m long under the disc's inner edge, clamped at its far
 * end; pins 20 mm high on 30 x 26 mm sector footprints, in two rows (r = 0.23-0.26 and
 * 0.275-0.305 m) of three (at -22.5, 0, 22.5 degrees), on both faces. Trilinear
 * hexahedra; the pins' contact faces match the disc's surface nodes (node-to-node
 * pairs). The disc turns at 100 rad/s (27 m/s at mid radius; not given in the paper).
 *
 * Per part Rayleigh damping makes C an explicit matrix, so the damped eigenvalues near
 * the squeal band come from fcd's modal projection (fcd_stability.h). */
#include <fcd/fcd.h>

#include "example.h"

#include <time.h>

static const double RI = 0.20, RO = 0.32, TD = 0.045, HUB = 0.10, HPIN = 0.02;
static const double UPIN = 1.6e-6, OMEGA = 100.0;

typedef struct {
  int nr, nt, nz, nh, np; /* disc radial, circumferential, axial elements; hub axial; pin axial */
  fcd_index nn;
  double *x;              /* 3 per node */
  int ne, cap;
  fcd_index *conn;        /* 8 per element */
  unsigned char *part;    /* 0 disc and hub, 1 pins */
  fcd_index *disc;        /* disc node (i, j, k) */
  fcd_index *hub;         /* hub node (i in 0..1, j, k in 0..nh-1) */
  fcd_index *pin;         /* pin p node (a 0..2, b 0..3, c 0..np) */
  int npin;
} mesh;

#define DISC(m, i, j, k) ((m)->disc[((size_t)(k) * ((m)->nr + 1) + (i)) * (m)->nt + (size_t)(((j) + (m)->nt) % (m)->nt)])

static fcd_index node(mesh *m, double r, double th, double z) {
  m->x[3 * m->nn] = r * cos(th);
  m->x[3 * m->nn + 1] = r * sin(th);
  m->x[3 * m->nn + 2] = z;
  return m->nn++;
}

static void hex(mesh *m, const fcd_index c[8], int part) {
  memcpy(m->conn + 8 * m->ne, c, 8 * sizeof *c);
  m->part[m->ne++] = (unsigned char)part;
}

static int build_mesh(mesh *m, int nr, int nt, int nz) {
  m->nr = nr;
  m->nt = nt;
  m->nz = nz;
  m->nh = 5;
  m->np = 4;
  m->npin = 12;
  size_t nmax = (size_t)(nr + 1) * nt * (nz + 1) + 2 * (size_t)nt * m->nh + 12 * 3 * 4 * 5;
  m->x = malloc(3 * nmax * sizeof *m->x);
  m->cap = nr * nt * nz + nt * m->nh + 12 * 2 * 3 * 4;
  m->conn = malloc(8 * (size_t)m->cap * sizeof *m->conn);
  m->part = malloc((size_t)m->cap);
  m->disc = malloc((size_t)(nr + 1) * nt * (nz + 1) * sizeof *m->disc);
  m->hub = malloc(2 * (size_t)nt * m->nh * sizeof *m->hub);
  m->pin = malloc(12 * 60 * sizeof *m->pin);
  if (!m->x || !m->conn || !m->part || !m->disc || !m->hub || !m->pin) return 1;
  m->nn = 0;
  m->ne = 0;
  double dr = (RO - RI) / nr, dth = 2 * 3.14159265358979 / nt;
  for (int k = 0; k <= nz; k++)
    for (int i = 0; i <= nr; i++)
      for (int j = 0; j < nt; j++) DISC(m, i, j, k) = node(m, RI + i * dr, j * dth, k * TD / nz);
  for (int k = 0; k < m->nh; k++)
    for (int i = 0; i < 2; i++)
      for (int j = 0; j < nt; j++)
        m->hub[((size_t)k * 2 + i) * nt + j] = node(m, RI + i * dr, j * dth, -HUB + k * HUB / m->nh);
  for (int k = 0; k < nz; k++)
    for (int i = 0; i < nr; i++)
      for (int j = 0; j < nt; j++) {
        fcd_index c[8] = {DISC(m, i, j, k), DISC(m, i + 1, j, k), DISC(m, i + 1, j + 1, k),
                          DISC(m, i, j + 1, k), DISC(m, i, j, k + 1), DISC(m, i + 1, j, k + 1),
                          DISC(m, i + 1, j + 1, k + 1), DISC(m, i, j + 1, k + 1)};
        hex(m, c, 0);
      }
#define HUBN(i, j, k) ((k) == m->nh ? DISC(m, i, j, 0) : m->hub[((size_t)(k) * 2 + (i)) * nt + (size_t)(((j) + nt) % nt)])
  for (int k = 0; k < m->nh; k++)
    for (int j = 0; j < nt; j++) {
      fcd_index c[8] = {HUBN(0, j, k), HUBN(1, j, k), HUBN(1, j + 1, k), HUBN(0, j + 1, k),
                        HUBN(0, j, k + 1), HUBN(1, j, k + 1), HUBN(1, j + 1, k + 1),
                        HUBN(0, j + 1, k + 1)};
      hex(m, c, 0);
    }
  /* pins: two rows of three per face; a pin covers 2 radial and 3 circumferential disc
   * elements, its contact face on the disc's surface nodes (separate nodes) */
  int row_i0[2] = {(int)lround((0.23 - RI) / dr), (int)lround((0.275 - RI) / dr)};
  int per22 = (int)lround(nt / 16.0); /* 22.5 degrees in elements */
  int p = 0;
  for (int side = 0; side < 2; side++)
    for (int row = 0; row < 2; row++)
      for (int col = -1; col <= 1; col++, p++) {
        int i0 = row_i0[row], j0 = col * per22 - 1;
        double z0 = side ? TD : 0.0, sz = side ? 1.0 : -1.0;
        for (int c = 0; c <= m->np; c++)
          for (int a = 0; a < 3; a++)
            for (int b = 0; b < 4; b++)
              m->pin[(size_t)p * 60 + (size_t)(c * 12 + a * 4 + b)] =
                  node(m, RI + (i0 + a) * dr, (j0 + b) * dth, z0 + sz * c * HPIN / m->np);
#define PIN(a, b, c) (m->pin[(size_t)p * 60 + (size_t)((c) * 12 + (a) * 4 + (b))])
        for (int c = 0; c < m->np; c++)
          for (int a = 0; a < 2; a++)
            for (int b = 0; b < 3; b++) {
              /* keep a right-handed ordering: bottom pins grow towards -z */
              int c0 = side ? c : c + 1, c1 = side ? c + 1 : c;
              fcd_index e[8] = {PIN(a, b, c0), PIN(a + 1, b, c0), PIN(a + 1, b + 1, c0),
                                PIN(a, b + 1, c0), PIN(a, b, c1), PIN(a + 1, b, c1),
                                PIN(a + 1, b + 1, c1), PIN(a, b + 1, c1)};
              hex(m, e, 1);
            }
      }
  return 0;
}

/* trilinear hexahedron: stiffness and consistent mass (2 x 2 x 2 Gauss) */
static int hex_matrices(const double *xe, double E, double nu, double rho, double *ke, double *me) {
  double lam = E * nu / ((1 + nu) * (1 - 2 * nu)), mu = E / (2 * (1 + nu));
  static const double s[8][3] = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
                                 {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},  {-1, 1, 1}};
  memset(ke, 0, 24 * 24 * sizeof *ke);
  memset(me, 0, 24 * 24 * sizeof *me);
  const double g = 1 / sqrt(3.0);
  for (int q = 0; q < 8; q++) {
    double xi[3] = {s[q][0] * g, s[q][1] * g, s[q][2] * g}, N[8], dN[8][3], J[3][3] = {{0}};
    for (int a = 0; a < 8; a++) {
      double f[3];
      for (int d = 0; d < 3; d++) f[d] = 1 + s[a][d] * xi[d];
      N[a] = f[0] * f[1] * f[2] / 8;
      dN[a][0] = s[a][0] * f[1] * f[2] / 8;
      dN[a][1] = f[0] * s[a][1] * f[2] / 8;
      dN[a][2] = f[0] * f[1] * s[a][2] / 8;
      for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) J[r][c] += dN[a][r] * xe[3 * a + c];
    }
    double det = J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) -
                 J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
                 J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
    if (!(det > 0)) return 1;
    double Ji[3][3] = {{(J[1][1] * J[2][2] - J[1][2] * J[2][1]) / det, (J[0][2] * J[2][1] - J[0][1] * J[2][2]) / det, (J[0][1] * J[1][2] - J[0][2] * J[1][1]) / det},
                       {(J[1][2] * J[2][0] - J[1][0] * J[2][2]) / det, (J[0][0] * J[2][2] - J[0][2] * J[2][0]) / det, (J[0][2] * J[1][0] - J[0][0] * J[1][2]) / det},
                       {(J[1][0] * J[2][1] - J[1][1] * J[2][0]) / det, (J[0][1] * J[2][0] - J[0][0] * J[2][1]) / det, (J[0][0] * J[1][1] - J[0][1] * J[1][0]) / det}};
    double B[6][24] = {{0}};
    for (int a = 0; a < 8; a++) {
      double dx[3];
      for (int c = 0; c < 3; c++) dx[c] = Ji[c][0] * dN[a][0] + Ji[c][1] * dN[a][1] + Ji[c][2] * dN[a][2];
      B[0][3 * a] = dx[0];
      B[1][3 * a + 1] = dx[1];
      B[2][3 * a + 2] = dx[2];
      B[3][3 * a] = dx[1];
      B[3][3 * a + 1] = dx[0];
      B[4][3 * a + 1] = dx[2];
      B[4][3 * a + 2] = dx[1];
      B[5][3 * a] = dx[2];
      B[5][3 * a + 2] = dx[0];
    }
    double D[6] = {lam + 2 * mu, lam, mu}; /* diagonal blocks used below */
    for (int r = 0; r < 24; r++)
      for (int c = r; c < 24; c++) {
        double v = 0;
        for (int i = 0; i < 3; i++)
          for (int j = 0; j < 3; j++) v += B[i][r] * (i == j ? D[0] : D[1]) * B[j][c];
        for (int i = 3; i < 6; i++) v += B[i][r] * D[2] * B[i][c];
        ke[r * 24 + c] += v * det;
      }
    for (int a = 0; a < 8; a++)
      for (int b = 0; b < 8; b++)
        for (int d = 0; d < 3; d++) me[(3 * a + d) * 24 + 3 * b + d] += rho * N[a] * N[b] * det;
  }
  for (int r = 0; r < 24; r++)
    for (int c = 0; c < r; c++) ke[r * 24 + c] = ke[c * 24 + r];
  return 0;
}

typedef struct {
  mesh m;
  fcd_system *sys;
  fcd_contact_set *cs;
  fcd_index ncont;
  double *vg; /* sliding speed per contact */
} brake;

static fcd_status brake_build(brake *b, int nr, int nt, int nz, double mu) {
  mesh *m = &b->m;
  if (build_mesh(m, nr, nt, nz)) return FCD_E_NOMEM;
  fcd_index n = 3 * m->nn;
  size_t cap = (size_t)m->ne * 300;
  fcd_index *ri = malloc(cap * sizeof *ri), *ci = malloc(cap * sizeof *ci);
  double *kv = malloc(cap * sizeof *kv), *mv = malloc(cap * sizeof *mv), *cv = malloc(cap * sizeof *cv);
  if (!ri || !ci || !kv || !mv || !cv) return FCD_E_NOMEM;
  size_t ne = 0;
  double ke[576], me[576], xe[24];
  for (int e = 0; e < m->ne; e++) {
    const fcd_index *c = m->conn + 8 * e;
    for (int a = 0; a < 8; a++)
      for (int d = 0; d < 3; d++) xe[3 * a + d] = m->x[3 * c[a] + d];
    int pin = m->part[e];
    double E = pin ? 2e9 : 210e9, nu = pin ? 0.3 : 0.28, rho = pin ? 5000 : 7850;
    double al = pin ? 135 : 7.5, be = pin ? 1.8e-6 : 1e-7;
    if (hex_matrices(xe, E, nu, rho, ke, me)) {
      fprintf(stderr, "brake-squeal: element %d is inverted\n", e);
      return FCD_E_INVALID_ARG;
    }
    for (int r = 0; r < 24; r++)
      for (int q = 0; q < 24; q++) {
        fcd_index gr = 3 * c[r / 3] + r % 3, gc = 3 * c[q / 3] + q % 3;
        if (gr > gc) continue;
        ri[ne] = gr;
        ci[ne] = gc;
        kv[ne] = ke[r * 24 + q];
        mv[ne] = me[r * 24 + q];
        cv[ne] = al * me[r * 24 + q] + be * ke[r * 24 + q];
        ne++;
      }
  }
  fcd_status st = fcd_system_create(n, &b->sys);
  if (st == FCD_OK) st = fcd_system_set_matrix_coo(b->sys, FCD_STIFFNESS, (fcd_index)ne, ri, ci, kv, FCD_COO_UPPER);
  if (st == FCD_OK) st = fcd_system_set_matrix_coo(b->sys, FCD_MASS, (fcd_index)ne, ri, ci, mv, FCD_COO_UPPER);
  if (st == FCD_OK) st = fcd_system_set_matrix_coo(b->sys, FCD_DAMPING, (fcd_index)ne, ri, ci, cv, FCD_COO_UPPER);
  free(ri); free(ci); free(kv); free(mv); free(cv);
  /* the bell's far end clamped; the pins' outer faces pushed towards the disc */
  size_t nf = 0, fcap = 6 * (size_t)m->nt + 12 * 12 * 3;
  fcd_index *fd = malloc(fcap * sizeof *fd);
  double *fv = malloc(fcap * sizeof *fv);
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < m->nt; j++)
      for (int d = 0; d < 3; d++) {
        fd[nf] = 3 * m->hub[(size_t)i * m->nt + j] + d;
        fv[nf++] = 0;
      }
  for (int p = 0; p < m->npin; p++)
    for (int k = 0; k < 12; k++)
      for (int d = 0; d < 3; d++) {
        fd[nf] = 3 * m->pin[(size_t)p * 60 + (size_t)(m->np * 12 + k)] + d;
        fv[nf++] = d == 2 ? (p < 6 ? UPIN : -UPIN) : 0.0;
      }
  if (st == FCD_OK) st = fcd_system_fix_dofs(b->sys, (fcd_index)nf, fd, fv);
  free(fd);
  free(fv);
  /* node-to-node pairs: pin face (A) against the disc surface (B); normal from the pin
   * into the disc, tangent along the disc's motion, the disc surface moving at Omega r */
  if (st == FCD_OK) st = fcd_contact_set_create(b->sys, 3, &b->cs);
  b->ncont = 0;
  b->vg = malloc(12 * 12 * sizeof *b->vg);
  double dr = (RO - RI) / m->nr;
  int row_i0[2] = {(int)lround((0.23 - RI) / dr), (int)lround((0.275 - RI) / dr)};
  int per22 = (int)lround(m->nt / 16.0);
  for (int p = 0; p < m->npin && st == FCD_OK; p++) {
    int side = p / 6, row = (p % 6) / 3, col = p % 3 - 1;
    for (int a = 0; a < 3 && st == FCD_OK; a++)
      for (int bb = 0; bb < 4 && st == FCD_OK; bb++) {
        fcd_index pa = m->pin[(size_t)p * 60 + (size_t)(a * 4 + bb)];
        fcd_index pb = DISC(m, row_i0[row] + a, col * per22 - 1 + bb, side ? m->nz : 0);
        double x = m->x[3 * pb], y = m->x[3 * pb + 1], r = hypot(x, y);
        const fcd_index da[3] = {3 * pa, 3 * pa + 1, 3 * pa + 2}, db[3] = {3 * pb, 3 * pb + 1, 3 * pb + 2};
        const double nv[3] = {0, 0, side ? -1.0 : 1.0}, tv[3] = {-y / r, x / r, 0};
        st = fcd_contact_set_add_pair(b->cs, da, db, nv, tv, 0.0, mu, NULL);
        const double vg[2] = {OMEGA * r, 0};
        if (st == FCD_OK) st = fcd_contact_set_set_sliding_velocity(b->cs, b->ncont, vg);
        b->vg[b->ncont++] = OMEGA * r;
      }
  }
  if (st != FCD_OK) fprintf(stderr, "brake-squeal: %s\n", fcd_system_last_error(b->sys));
  return st;
}

static void brake_free(brake *b) {
  fcd_contact_set_destroy(b->cs);
  fcd_system_destroy(b->sys);
  free(b->vg);
  free(b->m.x); free(b->m.conn); free(b->m.part); free(b->m.disc); free(b->m.hub); free(b->m.pin);
}

/* the sweep's rows, and per track the first friction coefficient where Re > 0 */
typedef struct {
  FILE *csv;
  int ntr;
  long track[256];
  double prev_mu[256], prev_re[256], crit[256], crit_hz[256];
  int stable_at_zero;
  int first_row;
} chart;

static int chart_row(void *ud, double mu, fcd_index n, const double *re, const double *im,
                     const fcd_index *track) {
  chart *c = ud;
  int all_stable = 1;
  for (fcd_index i = 0; i < n; i++) {
    if (im[i] < 0) continue;
    double hz = im[i] / (2 * 3.14159265358979);
    fprintf(c->csv, "%.4f,%lld,%.6e,%.3f\n", mu, (long long)track[i], re[i], hz);
    all_stable &= re[i] <= 0;
    int t = -1;
    for (int k = 0; k < c->ntr; k++)
      if (c->track[k] == track[i]) t = k;
    if (t < 0 && c->ntr < 256) {
      t = c->ntr++;
      c->track[t] = track[i];
      c->crit[t] = NAN;
      c->prev_mu[t] = NAN;
    }
    if (t < 0) continue;
    if (isnan(c->crit[t]) && re[i] > 0) {
      /* linear interpolation of the crossing between the previous and this coefficient */
      c->crit[t] = isnan(c->prev_mu[t]) ? mu
                   : c->prev_mu[t] + (mu - c->prev_mu[t]) * (-c->prev_re[t]) / (re[i] - c->prev_re[t]);
      c->crit_hz[t] = hz;
    }
    c->prev_mu[t] = mu;
    c->prev_re[t] = re[i];
  }
  if (c->first_row) c->stable_at_zero = all_stable;
  c->first_row = 0;
  return 0;
}

/* the largest real part at one friction coefficient with a given projection basis */
static fcd_status largest(fcd_stability *sa, double mu, double modes, double *re, double *hz) {
  fcd_status st = fcd_stability_set_param(sa, FCD_STAB_MU, mu);
  if (st == FCD_OK) st = fcd_stability_set_param(sa, FCD_STAB_PROJECTION_MODES, modes);
  if (st == FCD_OK) st = fcd_stability_solve(sa, NULL);
  double im = 0;
  if (st == FCD_OK) st = fcd_stability_get_eigenvalue(sa, 0, re, &im);
  *hz = fabs(im) / (2 * 3.14159265358979);
  fcd_stability_set_param(sa, FCD_STAB_MU, -1);
  return st;
}

/* ---- the transient (seed 003 section 4.3): modified theta scheme from the sliding
 * equilibrium plus a small multiple of the most unstable mode ---- */
typedef struct {
  FILE *csv;
  fcd_index mon;      /* monitored dof: the normal displacement of a pin face node */
  double *sig;        /* its history, one entry per step */
  long nsig, cap;
  double h;
  fcd_integrator *it;
  long k;
  int max_open;
  double *en;         /* mechanical energy every 10 steps */
  long nen;
} tr_watch;

static int tr_obs(void *ud, double t, fcd_index n, const double *u, const double *v,
                  fcd_index nl, const double *r, const fcd_contact_counts *cc) {
  (void)n; (void)v;
  tr_watch *w = ud;
  double ft = 0;
  for (fcd_index c = 0; c + 2 < nl; c += 3) ft += r[c + 1];
  if (w->nsig < w->cap) w->sig[w->nsig++] = u[w->mon];
  if ((int)cc->open > w->max_open) w->max_open = (int)cc->open;
  if (w->k++ % 10 == 0) {
    fcd_energy e;
    fcd_integrator_get_energy(w->it, &e);
    fprintf(w->csv, "%.7f,%.6e,%.6e,%.4f,%d,%d,%d\n", t, u[w->mon], e.kinetic + e.potential, ft,
            (int)cc->open, (int)cc->stick, (int)cc->slip);
    if (w->nen < w->cap / 10 + 1) w->en[w->nen++] = e.kinetic + e.potential;
  }
  return 0;
}

/* the frequency of the largest peak of |DFT| of x (n samples, step h) between f0 and f1 */
static double peak_hz(const double *x, long n, double h, double f0, double f1) {
  double mean = 0, best = 0, fbest = NAN;
  for (long i = 0; i < n; i++) mean += x[i] / n;
  double df = 1.0 / (n * h) / 4; /* zero-padded resolution */
  for (double f = f0; f <= f1; f += df) {
    double re = 0, im = 0;
    for (long i = 0; i < n; i++) {
      double w = 2 * 3.14159265358979 * f * i * h, hann = 0.5 - 0.5 * cos(2 * 3.14159265358979 * i / (n - 1));
      re += hann * (x[i] - mean) * cos(w);
      im += hann * (x[i] - mean) * sin(w);
    }
    double a = re * re + im * im;
    if (a > best) {
      best = a;
      fbest = f;
    }
  }
  return fbest;
}

int main(int argc, char **argv) {
  ex_run ex;
  int rc = ex_init(&ex, "brake-squeal", argc, argv);
  if (rc) return rc;
  int nr = ex.quick ? 8 : 8, nt = ex.quick ? 64 : 192, nz = ex.quick ? 2 : 3;
  brake b;
  double mu = 0.2;
  if (brake_build(&b, nr, nt, nz, mu) != FCD_OK) return 1;
  fcd_index ndofs = fcd_system_ndofs(b.sys), nfix = fcd_system_num_fixed(b.sys);
  printf("model: %lld nodes, %d hexahedra, %lld dofs (%lld prescribed), %lld contact pairs "
         "(%lld contact dofs per side)\n", (long long)b.m.nn, b.m.ne, (long long)ndofs,
         (long long)nfix, (long long)b.ncont, (long long)(3 * b.ncont));
  /* the sliding equilibrium at mu = 0.2 */
  fcd_equilibrium *eq = NULL;
  fcd_status st = fcd_equilibrium_create(b.sys, b.cs, &eq);
  if (st == FCD_OK) st = fcd_equilibrium_solve(eq, FCD_EQ_STEADY_SLIDING, 0.0);
  int *status = malloc(sizeof *status * (size_t)b.ncont);
  double *slip = malloc(sizeof *slip * 2 * (size_t)b.ncont), *r = malloc(sizeof *r * 3 * (size_t)b.ncont);
  double *rn = malloc(sizeof *rn * (size_t)b.ncont);
  if (st == FCD_OK) st = fcd_equilibrium_get_contact_state(eq, status, slip);
  if (st == FCD_OK) st = fcd_equilibrium_get_reactions(eq, r);
  if (st != FCD_OK) {
    ex_check(&ex, 0, "sliding equilibrium: %s", fcd_system_last_error(b.sys));
    return ex_finish(&ex);
  }
  double fn = 0, ft = 0;
  int nslip = 0;
  for (fcd_index c = 0; c < b.ncont; c++) {
    rn[c] = r[3 * c];
    fn += r[3 * c];
    ft += r[3 * c + 1];
    nslip += status[c] == FCD_CONTACT_SLIP;
  }
  printf("sliding equilibrium at mu = 0.2: %d of %lld pairs slip, normal force %.1f N, "
         "braking force %.1f N\n", nslip, (long long)b.ncont, -fn, ft);
  ex_check(&ex, nslip == b.ncont, "every pin node slides (the paper: no sticking at this speed)");
  ex_close(&ex, "braking force = mu x normal force", fabs(ft), 0.2 * fabs(fn), 1e-9);
  /* stability chart over mu */
  fcd_stability *sa = NULL;
  if (st == FCD_OK) st = fcd_stability_create(b.sys, b.cs, &sa);
  if (st == FCD_OK) st = fcd_stability_set_contact_state(sa, status, slip);
  if (st == FCD_OK) st = fcd_stability_set_sliding_data(sa, rn, b.vg);
  if (st == FCD_OK) st = fcd_stability_set_param(sa, FCD_STAB_TARGET_HZ, 3000);
  if (st == FCD_OK) st = fcd_stability_set_param(sa, FCD_STAB_NEV, ex.quick ? 10 : 20);
  if (st == FCD_OK) st = fcd_stability_set_param(sa, FCD_STAB_DENSE_MAX, 0);
  static chart ch;
  ch.csv = ex_open(&ex, "chart.csv");
  ch.first_row = 1;
  if (!ch.csv) return 1;
  fprintf(ch.csv, "mu,track,re,freq_hz\n");
  if (st == FCD_OK) st = fcd_stability_sweep(sa, 0.0, 0.5, ex.quick ? 6 : 26, chart_row, &ch);
  fclose(ch.csv);
  if (st != FCD_OK) ex_check(&ex, 0, "stability sweep: %s", fcd_system_last_error(b.sys));
  else {
    ex_check(&ex, ch.stable_at_zero, "without friction every mode near the band is stable "
             "(damped)");
    /* the unstable tracks in order of their critical coefficient */
    int order[256], nu = 0;
    for (int k = 0; k < ch.ntr; k++)
      if (!isnan(ch.crit[k])) order[nu++] = k;
    for (int a = 0; a < nu; a++)
      for (int q = a + 1; q < nu; q++)
        if (ch.crit[order[q]] < ch.crit[order[a]]) {
          int tmp = order[a];
          order[a] = order[q];
          order[q] = tmp;
        }
    const double paper_mu[2] = {0.16, 0.26}, paper_hz[2] = {3380, 2294};
    for (int a = 0; a < nu && a < 4; a++) {
      printf("  unstable mode %d: from mu = %.3f at %.0f Hz", a + 1, ch.crit[order[a]],
             ch.crit_hz[order[a]]);
      if (a < 2) printf(" (paper: mu = %.2f, %.0f Hz)", paper_mu[a], paper_hz[a]);
      printf("\n");
    }
    ex_check(&ex, nu >= (ex.quick ? 0 : 2), "%d modes become unstable for mu in [0, 0.5] (the "
             "paper: 2, by mode coupling)", nu);
    /* the projection's truncation: the most unstable eigenvalue at mu = 0.45 with the
     * default basis and with three times as many modes */
    if (!ex.quick) {
      double r1, f1, r3, f3;
      if (largest(sa, 0.45, 0, &r1, &f1) == FCD_OK && largest(sa, 0.45, 120, &r3, &f3) == FCD_OK) {
        ex_close(&ex, "mu = 0.45: frequency of the most unstable mode, 40 against 120 projection modes",
                 f1, f3, 1e-4);
        ex_close(&ex, "mu = 0.45: its growth rate (s^-1), 40 against 120 modes", r1, r3, 0.02);
      }
    }
    ex_plot(&ex, "stability-chart.png",
            "set terminal pngcairo size 1200,500 font ',11'\nset output '%s/stability-chart.png'\n"
            "set multiplot layout 1,2 title 'Brake (disc, bell, 12 pins; %lld dofs): stability of "
            "the sliding equilibrium'\n"
            "set datafile separator ','\nset grid\nunset key\nset xlabel 'friction coefficient mu'\n"
            "set ylabel 'Re(lambda) (s^{-1})'\nset yrange [-60:*]\n"
            "plot '%s/chart.csv' u 1:3:2 every ::1 w p pt 7 ps 0.6 lc variable, 0 w l lc rgb 'black'\n"
            "set ylabel 'frequency (Hz) (red: unstable)'\nset yrange [*:*]\n"
            "plot '%s/chart.csv' u 1:($3 > 0 ? 1/0 : $4) every ::1 w p pt 7 ps 0.6 lc rgb '#1f77b4',"
            " '' u 1:($3 > 0 ? $4 : 1/0) every ::1 w p pt 7 ps 0.9 lc rgb '#d62728'\n"
            "unset multiplot\n", ex.out, (long long)ndofs, ex.out, ex.out);
  }
  /* ---- the transient ---- */
  /* quick (the test): a coarser step, enough for the growth to open contacts */
  double mu_tr = 0.45, tend = 0.03, h = ex.quick ? 2e-5 : 1e-5;
  if (!ex.quick) tend = 0.3;
  if (getenv("BRAKE_TEND")) tend = atof(getenv("BRAKE_TEND"));
  if (st == FCD_OK) {
    double re0 = 0, im0 = 0, fmode;
    st = fcd_stability_set_param(sa, FCD_STAB_MU, mu_tr);
    if (st == FCD_OK) st = fcd_stability_set_param(sa, FCD_STAB_PROJECTION_MODES, 0);
    if (st == FCD_OK) st = fcd_stability_solve(sa, NULL);
    if (st == FCD_OK) st = fcd_stability_get_eigenvalue(sa, 0, &re0, &im0);
    fmode = fabs(im0) / (2 * 3.14159265358979);
    double *ue = malloc(sizeof *ue * (size_t)ndofs), *mr = malloc(sizeof *mr * (size_t)ndofs);
    double *v0 = calloc((size_t)ndofs, sizeof *v0);
    brake b2;
    memset(&b2, 0, sizeof b2);
    fcd_equilibrium *eq2 = NULL;
    fcd_integrator *it = NULL;
    if (st == FCD_OK) st = fcd_stability_get_mode(sa, 0, mr, NULL);
    if (st == FCD_OK) st = brake_build(&b2, nr, nt, nz, mu_tr);
    if (st == FCD_OK) st = fcd_equilibrium_create(b2.sys, b2.cs, &eq2);
    if (st == FCD_OK) st = fcd_equilibrium_solve(eq2, FCD_EQ_STEADY_SLIDING, 0.0);
    if (st == FCD_OK) st = fcd_equilibrium_get_state(eq2, ue);
    printf("transient at mu = %.2f: most unstable mode %.1f Hz, growth %.2f s^-1\n", mu_tr, fmode, re0);
    /* the mode (unit largest component) scaled to a tenth of the pins' compression */
    for (fcd_index i = 0; i < ndofs && st == FCD_OK; i++)
      if (!isnan(mr[i])) ue[i] += 0.1 * UPIN * mr[i];
    if (st == FCD_OK) st = fcd_integrator_create(b2.sys, b2.cs, FCD_SCHEME_MODIFIED_THETA, &it);
    if (st == FCD_OK) st = fcd_integrator_set_param(it, FCD_PARAM_STEP, h);
    /* NSGS with the exact per-contact solve: twice as fast here as the seed's fixed point */
    if (st == FCD_OK) st = fcd_integrator_set_param(it, FCD_PARAM_CONTACT_SOLVER, FCD_FC_AUTO);
    if (st == FCD_OK) st = fcd_integrator_set_state(it, 0.0, ue, v0);
    tr_watch w = {ex_open(&ex, "transient.csv"), 0, NULL, 0, 0, h, it, 0, 0, NULL, 0};
    w.cap = (long)(tend / h) + 10;
    w.sig = malloc(sizeof *w.sig * (size_t)w.cap);
    w.en = malloc(sizeof *w.en * (size_t)(w.cap / 10 + 2));
    /* the monitored node: the centre of the first top pin's face, its normal dof */
    w.mon = 3 * b2.m.pin[(size_t)6 * 60 + 5] + 2;
    if (w.csv) fprintf(w.csv, "t,u_monitor,energy,braking_force,open,stick,slip\n");
    if (st == FCD_OK) st = fcd_integrator_set_observer(it, tr_obs, &w);
    clock_t c0 = clock();
    if (st == FCD_OK) st = fcd_integrator_advance(it, tend);
    double secs = (double)(clock() - c0) / CLOCKS_PER_SEC;
    if (w.csv) fclose(w.csv);
    if (st != FCD_OK) {
      ex_check(&ex, 0, "transient: %s", fcd_system_last_error(b2.sys));
    } else {
      printf("  %ld steps in %.1f s (%.1f ms per step); at most %d pairs open at once\n", w.nsig,
             secs, 1e3 * secs / fmax(1, w.nsig), w.max_open);
      ex_check(&ex, w.max_open > 0, "the growing vibration opens contacts (at most %d of %lld "
               "pairs at once; the paper: up to about 60)", w.max_open, (long long)b2.ncont);
      ex_plot(&ex, "transient.png",
              "set terminal pngcairo size 1500,450 font ',11'\nset output '%s/transient.png'\n"
              "set multiplot layout 1,3 title 'Brake transient at mu = %.2f (modified theta, h = %g s)'\n"
              "set datafile separator ','\nset grid\nunset key\nset xlabel 't (s)'\n"
              "set title 'mechanical energy (J)'\nplot '%s/transient.csv' u 1:3 every ::1 w l lw 2\n"
              "set title 'braking force (N)'\nplot '' u 1:4 every ::1 w l lw 1\n"
              "set title 'pairs open (of %lld)'\nplot '' u 1:5 every ::1 w l lw 1\n"
              "unset multiplot\n", ex.out, mu_tr, h, ex.out, (long long)b2.ncont);
      if (tend >= 0.1 && w.nen > 40) {
        /* the limit cycle: the energy's growth rate over the last twentieth (the paper's
         * tau_E criterion) against the linear rate 2 Re(lambda) */
        long q = w.nen / 20;
        double e_prev = 0, e_last = 0;
        for (long i = w.nen - 2 * q; i < w.nen - q; i++) e_prev += w.en[i] / q;
        for (long i = w.nen - q; i < w.nen; i++) e_last += w.en[i] / q;
        double rate = log(e_last / e_prev) / (q * 10 * h), e0 = w.en[0];
        ex_check(&ex, rate < 0.1 * 2 * re0 && e_last > 3 * e0,
                 "a limit cycle: the energy grew %.0f-fold and its growth rate fell to %.2f s^-1 "
                 "(linear: 2 Re lambda = %.1f s^-1)", e_last / e0, rate, 2 * re0);
      }
      /* the monitored pin node's normal motion over the last 10 ms (paper Fig. 10) and
       * the spectrum of the last quarter (paper Fig. 11: fundamental and harmonics) */
      FILE *mf = ex_open(&ex, "monitor.csv"), *sf = ex_open(&ex, "spectrum.csv");
      long n10 = (long)(0.01 / h) < w.nsig - 2 ? (long)(0.01 / h) : w.nsig - 2;
      if (mf) {
        fprintf(mf, "t,u_n,v_n\n");
        for (long i = w.nsig - 1 - n10; i < w.nsig - 1; i++)
          fprintf(mf, "%.7f,%.6e,%.6e\n", (i + 1) * h, w.sig[i], (w.sig[i + 1] - w.sig[i - 1]) / (2 * h));
        fclose(mf);
      }
      if (sf) {
        long nw = w.nsig / 4;
        const double *x = w.sig + w.nsig - nw;
        double mean = 0;
        for (long i = 0; i < nw; i++) mean += x[i] / nw;
        fprintf(sf, "f_hz,amplitude_db\n");
        for (double f = 0.2 * fmode; f <= 3.5 * fmode; f += 1.0 / (nw * h)) {
          double re = 0, im = 0;
          for (long i = 0; i < nw; i++) {
            double ph = 2 * 3.14159265358979 * f * i * h, hann = 0.5 - 0.5 * cos(2 * 3.14159265358979 * i / (nw - 1));
            re += hann * (x[i] - mean) * cos(ph);
            im += hann * (x[i] - mean) * sin(ph);
          }
          fprintf(sf, "%.2f,%.4f\n", f, 10 * log10(re * re + im * im + 1e-300));
        }
        fclose(sf);
      }
      ex_plot(&ex, "limit-cycle.png",
              "set terminal pngcairo size 1500,450 font ',11'\nset output '%s/limit-cycle.png'\n"
              "set multiplot layout 1,3 title 'A pin face node, normal direction, last 10 ms "
              "(paper Figs. 10e-f, 11)'\n"
              "set datafile separator ','\nset grid\nunset key\n"
              "set xlabel 't (s)'\nset ylabel 'u_n (m)'\nplot '%s/monitor.csv' u 1:2 every ::1 w l\n"
              "set xlabel 'u_n (m)'\nset ylabel 'du_n/dt (m/s)'\nset format x '%%.0e'\n"
              "set xtics rotate by -30\nplot '' u 2:3 every ::1 w l\n"
              "set format x '%%g'\nset xtics norotate\nset xtics 2000\n"
              "set xlabel 'frequency (Hz)'\nset ylabel 'dB'\n"
              "set arrow from %.1f, graph 0 to %.1f, graph 1 nohead dt 2 lc rgb 'gray'\n"
              "plot '%s/spectrum.csv' u 1:2 every ::1 w l\nunset multiplot\n",
              ex.out, ex.out, fmode, fmode, ex.out);
      if (!ex.quick) {
        long nw = w.nsig / 4;
        double fpk = peak_hz(w.sig + w.nsig - nw, nw, h, 0.5 * fmode, 1.5 * fmode);
        ex_close(&ex, "the squeal frequency (spectrum peak of a pin's normal displacement, last "
                 "quarter) against the unstable mode's (Hz)", fpk, fmode, 0.05);
      }
    }
    fcd_integrator_destroy(it);
    fcd_equilibrium_destroy(eq2);
    brake_free(&b2);
    free(ue); free(mr); free(v0); free(w.sig); free(w.en);
  }
  fcd_stability_destroy(sa);
  fcd_equilibrium_destroy(eq);
  free(status); free(slip); free(r); free(rn);
  brake_free(&b);
  fcd_finalize();
  return ex_finish(&ex);
}
