/* `fcd demo`: a fast tour of the three questions fcd answers, on embedded models (the
 * full programs and their comparison with the papers are in examples/):
 *   - stability: a pin on a flat (seed 000 ex. 4.6), its steady sliding state and the
 *     friction coefficient where flutter starts, against the closed form;
 *   - motion: the same pin started near that state, growing to a stick-slip-flight
 *     limit cycle;
 *   - energy: Moreau-Jean against the Fremond scheme on a block on a spring (seed 004);
 *   - a lattice of elastoplastic springs with softening localizing into a shear band
 *     (seed 001).
 * Each part writes its CSV and a PNG (gnuplot). */
#include "beam_model.h"
#include "cli.h"
#include "demo.h"
#include "outfile.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* OUT/PNG from SCRIPT, which reads its data as 'data.csv' (OUT/DATA linked there: no
 * path enters the script, tools/outfile.h) */
static int plot(const char *out, const char *png, const char *data, const char *script) {
  char path[4096], in[4096], full[8192 + 256], err[512];
  snprintf(path, sizeof path, "%s/%s", out, png);
  snprintf(in, sizeof in, "%s/%s", out, data);
  snprintf(full, sizeof full, "set terminal pngcairo size 900,650 font ',11'\n"
           "set output 'plot.png'\nset datafile separator ','\nset grid\n%s", script);
  const char *inputs[1] = {in}, *names[1] = {"data.csv"};
  if (plot_run(path, full, 1, inputs, names, err, sizeof err) != 0) {
    fprintf(stderr, "fcd demo: no plot %s: %s\n", path, err);
    return -1;
  }
  printf("  plot: %s\n", path);
  return 0;
}

static FILE *open_in(const char *out, const char *file) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", out, file);
  FILE *f = fopen(path, "w");
  if (!f) fprintf(stderr, "fcd demo: cannot write '%s': %s\n", path, strerror(errno));
  return f;
}

/* ---- the pin on a flat: dimensionless, dofs (u_D, u_theta, u_T, u_N), D held, the
 * flat sliding under the pin at 0.015 (seed 000 Fig. 9 data) ---- */
static const double HB = 0.1, RHO = 0.07, HM = 0.05, RM = 0.15, WEIGHT = 0.01, VG = 0.015;

static fcd_status pin(double mu, fcd_system **sys, fcd_contact_set **cs) {
  const fcd_index r[8] = {0, 0, 0, 1, 1, 1, 2, 3}, c[8] = {0, 1, 2, 1, 2, 3, 2, 3};
  const double kv[8] = {1, HB, -1, 4 * RHO * RHO + HB * HB, -HB, 6 * RHO * RHO, 1, 12 * RHO * RHO};
  const fcd_index mr[5] = {0, 1, 1, 2, 3}, mc[5] = {0, 1, 2, 2, 3};
  const double mv[5] = {3, HM * HM + RM * RM, -HM, 1, 1}, f[4] = {0, 0, 0, WEIGHT};
  const fcd_index fixed = 0, dofs[2] = {2, 3};
  const double n[2] = {0, 1}, t[2] = {1, 0}, vg = VG;
  *cs = NULL;
  fcd_status st = fcd_system_create(4, sys);
  if (st == FCD_OK) st = fcd_system_set_matrix_coo(*sys, FCD_STIFFNESS, 8, r, c, kv, FCD_COO_UPPER);
  if (st == FCD_OK) st = fcd_system_set_matrix_coo(*sys, FCD_MASS, 5, mr, mc, mv, FCD_COO_UPPER);
  if (st == FCD_OK) st = fcd_system_set_load(*sys, f);
  if (st == FCD_OK) st = fcd_system_fix_dofs(*sys, 1, &fixed, NULL);
  if (st == FCD_OK) st = fcd_contact_set_create(*sys, 2, cs);
  if (st == FCD_OK) st = fcd_contact_set_add_rigid(*cs, dofs, n, t, 0.0, mu, NULL);
  if (st == FCD_OK) st = fcd_contact_set_set_sliding_velocity(*cs, 0, &vg);
  return st;
}

static int pin_chart_row(void *ud, double mu, fcd_index n, const double *re, const double *im,
                         const fcd_index *track) {
  (void)im;
  (void)track;
  fprintf((FILE *)ud, "%.6g,%.10g\n", mu, n > 0 ? re[0] : NAN);
  return 0;
}

static int demo_pin_stability(const char *out, int *npng) {
  printf("fcd demo: pin on a flat (seed 000 ex. 4.6), stability of steady sliding\n");
  fcd_system *sys;
  fcd_contact_set *cs;
  fcd_stability *st = NULL;
  fcd_status s = pin(2.2, &sys, &cs);
  const int slip = FCD_CONTACT_SLIP;
  const double dir = -1; /* the pin slides towards -T over the flat */
  if (s == FCD_OK) s = fcd_stability_create(sys, cs, &st);
  if (s == FCD_OK) s = fcd_stability_set_contact_state(st, &slip, &dir);
  FILE *csv = open_in(out, "pin-stability.csv");
  if (!csv) s = FCD_E_IO;
  else fprintf(csv, "mu,max_re_lambda\n");
  if (s == FCD_OK) s = fcd_stability_sweep(st, 0.0, 4.0, 401, pin_chart_row, csv);
  if (csv) fclose(csv);
  /* the onset by bisection on the classification, against the closed form */
  double lo = 0.5, hi = 2.2;
  for (int k = 0; k < 40 && s == FCD_OK; k++) {
    double mid = 0.5 * (lo + hi);
    int flutter = 0;
    s = fcd_stability_set_param(st, FCD_STAB_MU, mid);
    if (s == FCD_OK) s = fcd_stability_solve(st, NULL);
    if (s == FCD_OK) s = fcd_stability_get_summary(st, &flutter, NULL, NULL, NULL);
    if (flutter) hi = mid;
    else lo = mid;
  }
  /* det(K~ - Lambda M~) = RM^2 Lambda^2 - B Lambda + C with B, C linear in mu (pulled):
   * flutter where the discriminant B^2 - 4 RM^2 C, a quadratic in mu, is negative */
  double b0 = HM * HM + RM * RM + 4 * RHO * RHO + HB * HB - 2 * HM * HB, b1 = -6 * HM * RHO * RHO;
  double c0 = 4 * RHO * RHO, c1 = 6 * RHO * RHO * HB;
  double qa = b1 * b1, qb = -2 * b0 * b1 - 4 * RM * RM * c1, qc = b0 * b0 - 4 * RM * RM * c0;
  double closed = (-qb - sqrt(qb * qb - 4 * qa * qc)) / (2 * qa), re = NAN, im = NAN;
  if (s == FCD_OK) s = fcd_stability_set_param(st, FCD_STAB_MU, 2.2);
  if (s == FCD_OK) s = fcd_stability_solve(st, NULL);
  if (s == FCD_OK) s = fcd_stability_get_eigenvalue(st, 0, &re, &im);
  if (s == FCD_OK)
    printf("  flutter from mu = %.6f (closed form %.6f); at mu = 2.2, lambda = %.6f %+.6f i\n",
           0.5 * (lo + hi), closed, re, im);
  else
    fprintf(stderr, "fcd demo: %s\n", fcd_system_last_error(sys));
  fcd_stability_destroy(st);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
  if (s != FCD_OK) return 1;
  char script[8192];
  snprintf(script, sizeof script,
           "unset key\nset xlabel 'friction coefficient mu'\nset ylabel 'largest Re(lambda)'\n"
           "set title 'Pin on a flat: flutter of steady sliding from mu = %.4f'\n"
           "plot 'data.csv' u 1:2 every ::1 w l lw 2\n", closed);
  if (plot(out, "pin-stability.png", "pin-stability.csv", script)) return 1;
  (*npng)++;
  return 0;
}

typedef struct {
  FILE *csv;
  long k;
} obs;

static int pin_obs(void *ud, double t, fcd_index n, const double *u, const double *v,
                   fcd_index nl, const double *r, const fcd_contact_counts *cc) {
  (void)n; (void)nl; (void)r; (void)cc;
  obs *o = ud;
  if (o->k++ % 5 == 0) fprintf(o->csv, "%.5f,%.10g,%.10g,%.10g,%.10g\n", t, u[2], v[2], u[3], v[3]);
  return 0;
}

static int demo_pin_motion(const char *out, int *npng) {
  printf("fcd demo: the pin's motion from its steady state (Moreau-Jean, plastic impacts)\n");
  fcd_system *sys;
  fcd_contact_set *cs;
  fcd_equilibrium *eq = NULL;
  fcd_integrator *it = NULL;
  double u0[4], v0[4] = {0, 0, 0, 0};
  fcd_status s = pin(2.2, &sys, &cs);
  if (s == FCD_OK) s = fcd_equilibrium_create(sys, cs, &eq);
  if (s == FCD_OK) s = fcd_equilibrium_solve(eq, FCD_EQ_STEADY_SLIDING, 0.0);
  if (s == FCD_OK) s = fcd_equilibrium_get_state(eq, u0);
  double uT0 = u0[2];
  u0[1] += 1e-6;
  if (s == FCD_OK) s = fcd_integrator_create(sys, cs, FCD_SCHEME_MOREAU_JEAN, &it);
  if (s == FCD_OK) s = fcd_integrator_set_param(it, FCD_PARAM_STEP, 0.002);
  if (s == FCD_OK) s = fcd_integrator_set_state(it, 0.0, u0, v0);
  obs o = {open_in(out, "pin-motion.csv"), 0};
  if (!o.csv) s = FCD_E_IO;
  else fprintf(o.csv, "t,u_T,v_T,u_N,v_N\n");
  if (s == FCD_OK) s = fcd_integrator_set_observer(it, pin_obs, &o);
  if (s == FCD_OK) s = fcd_integrator_advance(it, 300.0);
  if (o.csv) fclose(o.csv);
  fcd_energy e;
  if (s == FCD_OK) s = fcd_integrator_get_energy(it, &e);
  if (s == FCD_OK)
    printf("  300 time units: friction dissipated %.4f, impacts %.4f (dimensionless)\n",
           e.friction_dissipation, e.impact_dissipation);
  else
    fprintf(stderr, "fcd demo: %s\n", fcd_system_last_error(sys));
  fcd_integrator_destroy(it);
  fcd_equilibrium_destroy(eq);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
  if (s != FCD_OK) return 1;
  char script[8192];
  snprintf(script, sizeof script,
           "unset key\nset offsets 0, 0, graph 0.05, graph 0.05\n"
           "set xlabel 'u_T - u_T^0'\nset ylabel \"u_T' relative to the dragged end\"\n"
           "set title 'Pin on a flat, mu = 2.2: flutter grows into a stick-slip limit cycle'\n"
           "plot 'data.csv' u ($2-%.10g):3 every ::1 w l lw 1\n", uT0);
  if (plot(out, "pin-limit-cycle.png", "pin-motion.csv", script)) return 1;
  (*npng)++;
  return 0;
}

/* ---- a block on a spring sliding on a rough floor, h = 0.05 (seed 004 digest T4) ---- */
static int demo_energy(const char *out, int *npng) {
  printf("fcd demo: energy of Moreau-Jean and Fremond on a block on a spring (seed 004)\n");
  FILE *csv = open_in(out, "energy.csv");
  if (!csv) return 1;
  fprintf(csv, "t,budget_moreau_jean,budget_fremond\n");
  double budget[2][161], gain[2] = {0, 0};
  fcd_status s = FCD_OK;
  for (int sc = 0; sc < 2 && s == FCD_OK; sc++) {
    const fcd_index i2[2] = {0, 1}, dofs[2] = {0, 1};
    const double one[2] = {1, 1}, kv[2] = {100, 0}, f[2] = {0, -9.81}, n[2] = {0, -1}, t[2] = {1, 0};
    const double u0[2] = {1, 0}, v0[2] = {0, 0};
    fcd_system *sys = NULL;
    fcd_contact_set *cs = NULL;
    fcd_integrator *it = NULL;
    s = fcd_system_create(2, &sys);
    if (s == FCD_OK) s = fcd_system_set_matrix_coo(sys, FCD_MASS, 2, i2, i2, one, FCD_COO_UPPER);
    if (s == FCD_OK) s = fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, 2, i2, i2, kv, FCD_COO_UPPER);
    if (s == FCD_OK) s = fcd_system_set_load(sys, f);
    if (s == FCD_OK) s = fcd_contact_set_create(sys, 2, &cs);
    if (s == FCD_OK) s = fcd_contact_set_add_rigid(cs, dofs, n, t, 0.0, 0.3, NULL);
    if (s == FCD_OK)
      s = fcd_integrator_create(sys, cs, sc ? FCD_SCHEME_FREMOND : FCD_SCHEME_MOREAU_JEAN, &it);
    if (s == FCD_OK) s = fcd_integrator_set_param(it, FCD_PARAM_STEP, 0.05);
    if (s == FCD_OK) s = fcd_integrator_set_state(it, 0.0, u0, v0);
    budget[sc][0] = 50;
    for (int k = 1; k <= 160 && s == FCD_OK; k++) {
      fcd_energy e;
      s = fcd_integrator_step(it);
      if (s == FCD_OK) s = fcd_integrator_get_energy(it, &e);
      budget[sc][k] = e.kinetic + e.potential - e.external_work;
      gain[sc] = fmax(gain[sc], budget[sc][k] - budget[sc][k - 1]);
    }
    if (s != FCD_OK) fprintf(stderr, "fcd demo: %s\n", fcd_system_last_error(sys));
    fcd_integrator_destroy(it);
    fcd_contact_set_destroy(cs);
    fcd_system_destroy(sys);
  }
  for (int k = 0; k <= 160; k++) fprintf(csv, "%.3f,%.10g,%.10g\n", 0.05 * k, budget[0][k], budget[1][k]);
  fclose(csv);
  if (s != FCD_OK) return 1;
  printf("  largest energy created in one step: Moreau-Jean %.4f J, Fremond %.1e J (of 50 J)\n",
         gain[0], gain[1]);
  char script[8192];
  snprintf(script, sizeof script,
           "set key top right\nset xlabel 't (s)'\nset ylabel 'E - W_{ext} (J)'\n"
           "set title 'Block on a spring, h = 0.05: Moreau-Jean creates energy, Fremond does not'\n"
           "plot 'data.csv' u 1:2 every ::1 w lp lw 2 pt 7 ps 0.5 t 'Moreau-Jean', "
           "'' u 1:3 every ::1 w lp lw 2 pt 6 ps 0.5 t 'Fremond'\n");
  if (plot(out, "energy-schemes.png", "energy.csv", script)) return 1;
  (*npng)++;
  return 0;
}

static int demo_lattice(const char *out, int *npng) {
  printf("fcd demo: 10 x 15 spring lattice with softening (seed 001), to t = 3.2\n");
  char dir[2048];
  if (snprintf(dir, sizeof dir, "%s/lattice", out) >= (int)sizeof dir) return 1;
  fcd_lattice *lat;
  if (fcd_lattice_create_rect(10, 15, 1.0, 1.0, 0.01, 0.3, 1.1, 0.1, &lat) != FCD_OK) return 1;
  int rc = lattice_run(lat, dir, 0.01, 3.2);
  fcd_lattice_destroy(lat);
  if (rc) return rc;
  char path[4096];
  struct stat sb;
  snprintf(path, sizeof path, "%s/damage.png", dir);

  if (stat(path, &sb) != 0) return 1;
  (*npng)++;
  char script[8192];
  snprintf(script, sizeof script,
           "unset key\nset xlabel 'top displacement'\nset ylabel 'pull force'\n"
           "set title 'Lattice with softening: the force peaks when a shear band forms'\n"
           "plot 'data.csv' u 6:7 every ::1 w l lw 2\n");
  if (plot(dir, "force-displacement.png", "history.csv", script)) return 1;
  (*npng)++;
  return 0;
}

int demo_examples(const char *out, int *npng) {
  int rc = 0;
  rc |= demo_pin_stability(out, npng);
  rc |= demo_pin_motion(out, npng);
  rc |= demo_energy(out, npng);
  rc |= demo_lattice(out, npng);
  return rc;
}

static const cli_opt demo_opts[] = {
    {CLI_OUT, "DIR", 0, "where to write (default fcd-demo)"},
    CLI_OPT_END,
};
const cli_command cli_demo = {
    "demo", cmd_demo, "", demo_opts,
    "a tour on embedded models: the modes of a clamped steel beam against theory; a\n"
    "pin on a flat: its flutter threshold and stick-slip limit cycle; Moreau-Jean\n"
    "against Fremond energies; a softening lattice's shear band; CSV and PNG plots\n",
    NULL,
    CLI_MPI_NO};

/* The embedded default model: a clamped steel beam (1 m, 20 x 20 mm) whose analytic
 * frequencies are known, run through the same path as `fcd info`. */
int cmd_demo(int argc, char **argv) {
  options o = {.out = "fcd-demo"};
  if (parse_options(argc, argv, &o, &cli_demo)) return 2;
  if (out_mkdir(o.out)) return 1;
  const double length = 1.0, e = 210e9, rho = 7850.0, b = 0.02;
  const double ei = e * b * b * b * b / 12.0, rho_a = rho * b * b;
  const int nel = 40;
  beam_coo beam;
  if (beam_cantilever(nel, length, ei, rho_a, &beam) != 0) return fail(NULL, FCD_E_NOMEM, "demo");
  fcd_system *sys = NULL;
  fcd_status st = fcd_system_create(beam.ndofs, &sys);
  const fcd_index clamp[2] = {0, 1};
  if (st == FCD_OK)
    st = fcd_system_set_matrix_coo(sys, FCD_MASS, beam.nnz, beam.rows, beam.cols, beam.m,
                                   FCD_COO_UPPER);
  if (st == FCD_OK)
    st = fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, beam.nnz, beam.rows, beam.cols,
                                   beam.k, FCD_COO_UPPER);
  if (st == FCD_OK) st = fcd_system_fix_dofs(sys, 2, clamp, NULL);
  beam_free(&beam);
  char pm[4096], pk[4096], pf[4096], pr[4096];
  snprintf(pm, sizeof pm, "%s/M.mtx", o.out);
  snprintf(pk, sizeof pk, "%s/K.mtx", o.out);
  snprintf(pf, sizeof pf, "%s/fixed.txt", o.out);
  snprintf(pr, sizeof pr, "%s/frequencies.csv", o.out);
  if (st == FCD_OK) st = fcd_system_write_matrix_market(sys, FCD_MASS, pm);
  if (st == FCD_OK) st = fcd_system_write_matrix_market(sys, FCD_STIFFNESS, pk);
  if (st != FCD_OK) {
    fail(sys, st, "demo model");
    fcd_system_destroy(sys);
    return 1;
  }
  if (write_text(pf, "# clamped end of the demo beam: deflection and rotation\n0\n1\n")) {
    fprintf(stderr, "fcd: cannot write '%s'\n", pf);
    fcd_system_destroy(sys);
    return 1;
  }
  printf("fcd demo: clamped steel beam, L = %g m, %d Hermite elements, %lld dofs\n", length,
         nel, (long long)fcd_system_ndofs(sys));
  double freq[4];
  long nf = 0;
  int rc = report(sys, 4, freq, &nf);
  fcd_system_destroy(sys);
  if (rc) return rc;
  /* Euler-Bernoulli cantilever: omega_n = (beta_n L)^2 sqrt(EI / (rho A L^4)) */
  static const double beta_l[4] = {1.8751040687, 4.6940911330, 7.8547574382, 10.9955407349};
  FILE *csv = fopen(pr, "w");
  if (!csv) {
    fprintf(stderr, "fcd: cannot write '%s'\n", pr);
    return 1;
  }
  fprintf(csv, "mode,fcd_hz,analytic_hz,relative_error\n");
  printf("mode  fcd (Hz)        analytic (Hz)   relative error\n");
  for (long k = 0; k < nf; k++) {
    double fa = beta_l[k] * beta_l[k] * sqrt(ei / (rho_a * pow(length, 4))) / (2 * PI);
    printf("%-5ld %-15.6f %-15.6f %.2e\n", k + 1, freq[k], fa, fabs(freq[k] - fa) / fa);
    fprintf(csv, "%ld,%.12g,%.12g,%.6e\n", k + 1, freq[k], fa, fabs(freq[k] - fa) / fa);
  }
  fclose(csv);
  printf("fcd demo: wrote %s, %s, %s and %s\n", pm, pk, pf, pr);
  int npng = 0;
  rc = demo_examples(o.out, &npng);
  printf("fcd demo: %s; %d plots under %s/ (the full examples: examples/, docs/examples/)\n",
         rc ? "some parts FAILED" : "done", npng, o.out);
  return rc ? 1 : 0;
}

