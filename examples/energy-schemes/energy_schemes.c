/* Seed 004 (Acary et al.): the energy of the standard Moreau-Jean scheme against the
 * energy-consistent scheme "inspired by Fremond" (Coulomb friction on the theta-average
 * velocity u_{k+theta}, eqs. 63-64). The paper has no numerical example (its digest,
 * section 4.1); the cases here are the digest's constructed tests plus an elastic body:
 *
 * 1. T3: a block on a tangential spring (m = 1, k = 100, mu = 0.3, g = 9.81) released at
 *    x = 1: the classical closed form (the turning points lose 2 mu g / omega^2 each
 *    half period; rest at t = 17 pi / 10 at x = 0.00062) for both schemes at theta = 1/2.
 * 2. T2: a frictionless ball bouncing with e = 1: E + m g z is conserved to round-off.
 * 3. T4: the block of T3 with a coarse step (h = 0.05): the standard scheme gains energy in
 *    single steps where the slip reverses (eq. 62: the term (1 - theta) u_{T,k} p_{T,k+1}
 *    has no sign); the Fremond scheme never does (Proposition 1).
 * 4. An elastic plate (a truss of 8 x 3 nodes with diagonals, lumped masses) thrown
 *    obliquely with spin onto a rough floor (e = 0.5, mu = 0.4): both energy ledgers
 *    plotted; per-step gains of E - W_ext for each scheme. */
#include <fcd/fcd.h>

#include "example.h"

#define G 9.81

/* ---- the block on a spring and the ball: one 2D point (x, z) over the floor z >= 0 ---- */
static fcd_status point(double k, double mu, double e, fcd_system **sys, fcd_contact_set **cs) {
  const fcd_index i2[2] = {0, 1};
  const double one[2] = {1, 1}, kv[2] = {k, 0}, f[2] = {0, -G};
  const fcd_index dofs[2] = {0, 1};
  const double n[2] = {0, -1}, t[2] = {1, 0};
  fcd_status st = fcd_system_create(2, sys);
  if (st == FCD_OK) st = fcd_system_set_matrix_coo(*sys, FCD_MASS, 2, i2, i2, one, FCD_COO_UPPER);
  if (st == FCD_OK && k > 0)
    st = fcd_system_set_matrix_coo(*sys, FCD_STIFFNESS, 2, i2, i2, kv, FCD_COO_UPPER);
  if (st == FCD_OK) st = fcd_system_set_load(*sys, f);
  if (st == FCD_OK) st = fcd_contact_set_create(*sys, 2, cs);
  if (st == FCD_OK) st = fcd_contact_set_add_rigid(*cs, dofs, n, t, 0.0, mu, NULL);
  if (st == FCD_OK) st = fcd_contact_set_set_restitution(*cs, e);
  return st;
}

typedef struct {
  double max_gain, e_prev; /* largest single-step gain of E - W_ext + damping */
  int first;
} gain_watch;

/* E - W_ext + D_damping after the current step (what the Fremond scheme keeps from
 * growing, Proposition 1) */
static double budget(fcd_integrator *it) {
  fcd_energy e;
  fcd_integrator_get_energy(it, &e);
  return e.kinetic + e.potential - e.external_work + e.damping_dissipation;
}

static const char *scheme_name(int s) { return s == FCD_SCHEME_FREMOND ? "Fremond" : "Moreau-Jean"; }

static int part_block(ex_run *ex) {
  printf("1. block on a spring (T3), theta = 1/2, h = 5e-4\n");
  const double k = 100, mu = 0.3, w2 = k, band = mu * G / w2;
  /* the closed form: turning points |x_n| = 1 - n drop, alternating, until |x_n| <= band */
  double xn = 1;
  int nhalf = 0;
  while (fabs(xn) > band) {
    double c = xn > 0 ? band : -band; /* the centre of the half period */
    xn = 2 * c - xn;
    nhalf++;
  }
  double t_rest = nhalf * 3.14159265358979323846 / sqrt(w2);
  for (int s = 0; s < 2; s++) {
    int scheme = s ? FCD_SCHEME_FREMOND : FCD_SCHEME_MOREAU_JEAN;
    fcd_system *sys = NULL;
    fcd_contact_set *cs = NULL;
    fcd_integrator *it = NULL;
    fcd_status st = point(k, mu, 0.0, &sys, &cs);
    if (st == FCD_OK) st = fcd_integrator_create(sys, cs, (fcd_scheme)scheme, &it);
    if (st == FCD_OK) st = fcd_integrator_set_param(it, FCD_PARAM_STEP, 5e-4);
    if (st == FCD_OK) st = fcd_integrator_set_param(it, FCD_PARAM_TOLERANCE, 1e-14);
    const double u0[2] = {1, 0}, v0[2] = {0, 0};
    if (st == FCD_OK) st = fcd_integrator_set_state(it, 0, u0, v0);
    /* the time it comes to rest: the last step after which x moves by more than 1e-9 */
    double t, u[2], xprev = 1, t_stop = 0;
    while (st == FCD_OK) {
      st = fcd_integrator_step(it);
      fcd_integrator_get_state(it, &t, u, NULL);
      if (fabs(u[0] - xprev) > 1e-9) t_stop = t;
      xprev = u[0];
      if (t >= 8.0 - 1e-12) break;
    }
    if (st != FCD_OK) {
      ex_check(ex, 0, "%s: %s", scheme_name(scheme), fcd_system_last_error(sys));
    } else {
      fcd_energy e;
      fcd_integrator_get_energy(it, &e);
      printf("  %s:\n", scheme_name(scheme));
      ex_check(ex, fabs(u[0] - xn) < 5e-5, "rest position x = %.5f against %.5f (O(h))", u[0], xn);
      ex_check(ex, fabs(t_stop - t_rest) < 0.01, "comes to rest at t = %.4f against 17 pi / 10 = %.4f",
               t_stop, t_rest);
      ex_close(ex, "friction dissipation (all but the spring's last energy)",
               e.friction_dissipation, 0.5 * k * 1.0 - 0.5 * k * xn * xn, 2e-3);
    }
    fcd_integrator_destroy(it);
    fcd_contact_set_destroy(cs);
    fcd_system_destroy(sys);
  }
  return 0;
}

static int part_ball(ex_run *ex) {
  printf("2. frictionless ball, e = 1 (T2), theta = 1/2, h = 0.01, 10 s\n");
  for (int s = 0; s < 2; s++) {
    int scheme = s ? FCD_SCHEME_FREMOND : FCD_SCHEME_MOREAU_JEAN;
    fcd_system *sys = NULL;
    fcd_contact_set *cs = NULL;
    fcd_integrator *it = NULL;
    fcd_status st = point(0, 0.0, 1.0, &sys, &cs);
    if (st == FCD_OK) st = fcd_integrator_create(sys, cs, (fcd_scheme)scheme, &it);
    if (st == FCD_OK) st = fcd_integrator_set_param(it, FCD_PARAM_STEP, 0.01);
    const double u0[2] = {0, 1}, v0[2] = {0, 0};
    if (st == FCD_OK) st = fcd_integrator_set_state(it, 0, u0, v0);
    double worst = 0, zmax_late = 0;
    while (st == FCD_OK) {
      double t, u[2], v[2];
      st = fcd_integrator_step(it);
      fcd_integrator_get_state(it, &t, u, v);
      worst = fmax(worst, fabs(0.5 * (v[0] * v[0] + v[1] * v[1]) + G * u[1] - G));
      if (t > 8) zmax_late = fmax(zmax_late, u[1]);
      if (t >= 10 - 1e-9) break;
    }
    ex_check(ex, st == FCD_OK && worst < 1e-10 * G,
             "%s: E + m g z stays 9.81 to %.1e; bounce height after 8 s %.5f", scheme_name(scheme),
             worst, zmax_late);
    fcd_integrator_destroy(it);
    fcd_contact_set_destroy(cs);
    fcd_system_destroy(sys);
  }
  return 0;
}

static int part_coarse(ex_run *ex) {
  printf("3. block on a spring, coarse step h = 0.05 (T4): single-step energy gains\n");
  double gains[2];
  for (int s = 0; s < 2; s++) {
    int scheme = s ? FCD_SCHEME_FREMOND : FCD_SCHEME_MOREAU_JEAN;
    fcd_system *sys = NULL;
    fcd_contact_set *cs = NULL;
    fcd_integrator *it = NULL;
    fcd_status st = point(100, 0.3, 0.0, &sys, &cs);
    if (st == FCD_OK) st = fcd_integrator_create(sys, cs, (fcd_scheme)scheme, &it);
    if (st == FCD_OK) st = fcd_integrator_set_param(it, FCD_PARAM_STEP, 0.05);
    if (st == FCD_OK) st = fcd_integrator_set_param(it, FCD_PARAM_TOLERANCE, 1e-14);
    const double u0[2] = {1, 0}, v0[2] = {0, 0};
    if (st == FCD_OK) st = fcd_integrator_set_state(it, 0, u0, v0);
    double prev = 50, g = -INFINITY;
    for (int k = 0; k < 200 && st == FCD_OK; k++) {
      st = fcd_integrator_step(it);
      double b = budget(it);
      g = fmax(g, b - prev);
      prev = b;
    }
    gains[s] = g;
    fcd_integrator_destroy(it);
    fcd_contact_set_destroy(cs);
    fcd_system_destroy(sys);
  }
  ex_check(ex, gains[0] > 1e-3, "Moreau-Jean gains up to %.4f in one step (digest prototype: 0.243; "
           "E0 = 50)", gains[0]);
  ex_check(ex, gains[1] <= 1e-12 * 50, "Fremond never gains: largest step change %.2e", gains[1]);
  return 0;
}

/* ---- the elastic plate ---- */
enum { NX = 8, NY = 3 };

typedef struct {
  FILE *csv;
  fcd_integrator *it;
  double prev, max_gain, sum_gain;
  long steps, slip_steps;
} plate_watch;

static int plate_obs(void *ud, double t, fcd_index n, const double *u, const double *v,
                     fcd_index nl, const double *r, const fcd_contact_counts *cc) {
  (void)n; (void)nl; (void)r; (void)u; (void)v;
  plate_watch *w = ud;
  fcd_energy e;
  fcd_integrator_get_energy(w->it, &e);
  double b = e.kinetic + e.potential - e.external_work + e.damping_dissipation;
  double g = b - w->prev;
  w->max_gain = fmax(w->max_gain, g);
  if (g > 0) w->sum_gain += g;
  w->prev = b;
  w->slip_steps += cc->slip > 0;
  w->steps++;
  fprintf(w->csv, "%.5f,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%d,%d\n", t, e.kinetic,
            e.potential, e.external_work, e.friction_dissipation, e.impact_dissipation,
            e.numerical_dissipation, g, (int)cc->stick, (int)cc->slip);
  return 0;
}

static int part_plate(ex_run *ex) {
  printf("4. elastic plate thrown onto a rough floor (e = 0.5, mu = 0.4), theta = 1/2\n");
  const double a = 0.05, ea = 1e4, mass = 0.05, h0 = 0.02, tend = ex->quick ? 0.6 : 1.5;
  const double vx = 1.5, vy = -1.0, spin = 4.0, step = 5e-4;
  double res[2][3];
  for (int s = 0; s < 2; s++) {
    int scheme = s ? FCD_SCHEME_FREMOND : FCD_SCHEME_MOREAU_JEAN;
    int nn = NX * NY, nd = 2 * nn;
    fcd_index ri[2000], ci[2000];
    double kv[2000], mv[200], f[200], x[200];
    fcd_index mi[200];
    int ne = 0;
    for (int j = 0; j < NY; j++)
      for (int i = 0; i < NX; i++) {
        x[2 * (j * NX + i)] = i * a;
        x[2 * (j * NX + i) + 1] = h0 + j * a;
      }
    /* truss members: right, up, both diagonals */
    for (int j = 0; j < NY; j++)
      for (int i = 0; i < NX; i++) {
        int p = j * NX + i, nb[4][2] = {{i + 1, j}, {i, j + 1}, {i + 1, j + 1}, {i - 1, j + 1}};
        for (int q = 0; q < 4; q++) {
          int ii = nb[q][0], jj = nb[q][1];
          if (ii < 0 || ii >= NX || jj >= NY) continue;
          int o = jj * NX + ii;
          double dx = x[2 * o] - x[2 * p], dy = x[2 * o + 1] - x[2 * p + 1], l = hypot(dx, dy);
          double d[4] = {-dx / l, -dy / l, dx / l, dy / l};
          fcd_index dof[4] = {2 * p, 2 * p + 1, 2 * o, 2 * o + 1};
          for (int r1 = 0; r1 < 4; r1++)
            for (int r2 = 0; r2 < 4; r2++)
              if (dof[r1] <= dof[r2]) {
                ri[ne] = dof[r1];
                ci[ne] = dof[r2];
                kv[ne++] = ea / l * d[r1] * d[r2];
              }
        }
      }
    for (int k = 0; k < nd; k++) {
      mi[k] = k;
      mv[k] = mass;
      f[k] = k % 2 ? -mass * G : 0;
    }
    fcd_system *sys = NULL;
    fcd_contact_set *cs = NULL;
    fcd_integrator *it = NULL;
    fcd_status st = fcd_system_create(nd, &sys);
    if (st == FCD_OK) st = fcd_system_set_matrix_coo(sys, FCD_MASS, nd, mi, mi, mv, FCD_COO_UPPER);
    if (st == FCD_OK) st = fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, ne, ri, ci, kv, FCD_COO_UPPER);
    if (st == FCD_OK) st = fcd_system_set_load(sys, f);
    if (st == FCD_OK) st = fcd_contact_set_create(sys, 2, &cs);
    const double n[2] = {0, -1}, t[2] = {1, 0};
    for (int p = 0; p < nn && st == FCD_OK; p++) {
      const fcd_index dofs[2] = {2 * p, 2 * p + 1};
      st = fcd_contact_set_add_rigid(cs, dofs, n, t, x[2 * p + 1], 0.4, NULL);
    }
    if (st == FCD_OK) st = fcd_contact_set_set_restitution(cs, 0.5);
    if (st == FCD_OK) st = fcd_integrator_create(sys, cs, (fcd_scheme)scheme, &it);
    if (st == FCD_OK) st = fcd_integrator_set_param(it, FCD_PARAM_STEP, step);
    if (st == FCD_OK) st = fcd_integrator_set_param(it, FCD_PARAM_TOLERANCE, 1e-12);
    double u0[200] = {0}, v0[200];
    double xc = 0.5 * (NX - 1) * a, yc = h0 + 0.5 * (NY - 1) * a;
    for (int p = 0; p < nn; p++) {
      v0[2 * p] = vx - spin * (x[2 * p + 1] - yc);
      v0[2 * p + 1] = vy + spin * (x[2 * p] - xc);
    }
    if (st == FCD_OK) st = fcd_integrator_set_state(it, 0, u0, v0);
    char file[64];
    snprintf(file, sizeof file, "plate-%s.csv", s ? "fremond" : "moreau-jean");
    plate_watch w = {ex_open(ex, file), it, 0, -INFINITY, 0, 0, 0};
    if (!w.csv) st = FCD_E_IO;
    else fprintf(w.csv, "t,kinetic,potential,external_work,friction,impact,numerical,step_gain,stick,slip\n");
    if (st == FCD_OK) {
      fcd_energy e;
      fcd_integrator_get_energy(it, &e);
      w.prev = e.kinetic + e.potential - e.external_work + e.damping_dissipation;
      st = fcd_integrator_set_observer(it, plate_obs, &w);
    }
    if (st == FCD_OK) st = fcd_integrator_advance(it, tend);
    if (w.csv) fclose(w.csv);
    if (st != FCD_OK) {
      ex_check(ex, 0, "plate, %s: %s", scheme_name(scheme), fcd_system_last_error(sys));
      res[s][0] = res[s][1] = res[s][2] = NAN;
    } else {
      fcd_energy e;
      fcd_integrator_get_energy(it, &e);
      res[s][0] = w.max_gain;
      res[s][1] = w.sum_gain;
      res[s][2] = e.kinetic + e.potential - e.external_work;
      printf("  %s: %ld steps (%ld with slip), friction %.5f J, impacts %.5f J, largest step gain "
             "%.3e J, gains summed %.3e J\n", scheme_name(scheme), w.steps, w.slip_steps,
             e.friction_dissipation, e.impact_dissipation, w.max_gain, w.sum_gain);
    }
    fcd_integrator_destroy(it);
    fcd_contact_set_destroy(cs);
    fcd_system_destroy(sys);
  }
  ex_check(ex, res[1][0] <= 1e-9 * fabs(res[1][2]) + 1e-12,
           "Fremond: no step gains energy (largest %.2e J)", res[1][0]);
  ex_check(ex, res[0][0] > 1e3 * fmax(res[1][0], 1e-15),
           "Moreau-Jean: steps gain energy (largest %.3e J, %.3e J summed)", res[0][0], res[0][1]);
  ex_plot(ex, "plate-energy.png",
          "set datafile separator ','\nset grid\nset key top right\n"
          "set xlabel 't (s)'\nset ylabel 'E - W_{ext} (J)'\n"
          "set title 'Elastic plate on a rough floor: energy budget E - W_{ext} (never grows for Fremond)'\n"
          "plot '%s/plate-moreau-jean.csv' u 1:($2+$3-$4) every ::1 w l lw 2 t 'Moreau-Jean, theta = 1/2',"
          " '%s/plate-fremond.csv' u 1:($2+$3-$4) every ::1 w l lw 2 dt 2 t 'Fremond, theta = 1/2'\n",
          ex->out, ex->out);
  ex_plot(ex, "plate-step-gain.png",
          "set datafile separator ','\nset grid\nset key top right\n"
          "set xlabel 't (s)'\nset ylabel 'change of E - W_{ext} in one step (J)'\n"
          "set title 'Single-step energy change: positive = energy created by the scheme'\n"
          "plot '%s/plate-moreau-jean.csv' u 1:8 every ::1 w p pt 7 ps 0.4 t 'Moreau-Jean',"
          " '%s/plate-fremond.csv' u 1:8 every ::1 w p pt 7 ps 0.4 t 'Fremond', 0 w l lc rgb 'black' notitle\n",
          ex->out, ex->out);
  ex_plot(ex, "plate-ledger.png",
          "set datafile separator ','\nset grid\nset key top left\n"
          "set xlabel 't (s)'\nset ylabel 'J'\n"
          "set title 'Energy ledgers (cumulative): friction and impact dissipation'\n"
          "plot '%s/plate-moreau-jean.csv' u 1:5 every ::1 w l lw 2 t 'friction, Moreau-Jean',"
          " '%s/plate-fremond.csv' u 1:5 every ::1 w l lw 2 dt 2 t 'friction, Fremond',"
          " '%s/plate-moreau-jean.csv' u 1:6 every ::1 w l lw 2 t 'impacts, Moreau-Jean',"
          " '%s/plate-fremond.csv' u 1:6 every ::1 w l lw 2 dt 2 t 'impacts, Fremond'\n",
          ex->out, ex->out, ex->out, ex->out);
  return 0;
}

int main(int argc, char **argv) {
  ex_run ex;
  int rc = ex_init(&ex, "energy-schemes", argc, argv);
  if (rc) return rc;
  part_block(&ex);
  part_ball(&ex);
  part_coarse(&ex);
  part_plate(&ex);
  fcd_finalize();
  return ex_finish(&ex);
}
