/* fcd lattice: the spring lattices of seed 001. */
#include <fcd/fcd.h>

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "demo.h"
#include "outfile.h"

/* x: the nodes; ea, eb: each spring's ends; wy: its weight in the total stress,
 * (e_y)^2 L over the area of the nodes' bounding box */
static void virial_weights(fcd_lattice *lat, fcd_index n, fcd_index m, double *x,
                           fcd_index *ea, fcd_index *eb, double *wy) {
  double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
  for (fcd_index i = 0; i < n; i++) {
    fcd_lattice_get_node(lat, i, x + 2 * i);
    xmin = fmin(xmin, x[2 * i]);
    xmax = fmax(xmax, x[2 * i]);
    ymin = fmin(ymin, x[2 * i + 1]);
    ymax = fmax(ymax, x[2 * i + 1]);
  }
  double area = (xmax - xmin) * (ymax - ymin);
  for (fcd_index i = 0; i < m; i++) {
    fcd_lattice_get_spring(lat, i, &ea[i], &eb[i], NULL, NULL, NULL, NULL);
    double dx = x[2 * ea[i]] - x[2 * eb[i]], dy = x[2 * ea[i] + 1] - x[2 * eb[i] + 1];
    double L = hypot(dx, dy);
    wy[i] = (dy / L) * (dy / L) * L / area;
  }
}

/* DIR/damage.png: the lattice coloured by damage a at the last state reached (best
 * effort: not an output the user asked for by name) */
static void damage_plot(const char *dir, fcd_index m, const double *x, const fcd_index *ea,
                        const fcd_index *eb, const double *a, double amax_all) {
  char path[4096];
  snprintf(path, sizeof path, "%s/springs.dat", dir);
  FILE *sd = fopen(path, "w");
  if (sd) {
    for (fcd_index i = 0; i < m; i++)
      fprintf(sd, "%.6g %.6g %.6g %.6g %.6g\n", x[2 * eb[i]], x[2 * eb[i] + 1],
              x[2 * ea[i]] - x[2 * eb[i]], x[2 * ea[i] + 1] - x[2 * eb[i] + 1], a[i]);
    fclose(sd);
    char script[1024], png[4096], err[512];
    snprintf(script, sizeof script,
             "set terminal pngcairo size 700,900\nset output 'plot.png'\n"
             "set size ratio -1\nunset key\nset title 'damage a at the last step'\n"
             "set palette defined (0 '#2ca02c', 0.5 '#ffdd00', 1 '#d62728')\n"
             "set cbrange [0:%g]\n"
             "plot 'springs.dat' using 1:2:3:4:5 with vectors nohead lw 2 lc palette\n",
             amax_all > 0 ? amax_all : 1);
    snprintf(png, sizeof png, "%s/damage.png", dir);
    const char *inputs[1] = {path}, *names[1] = {"springs.dat"};
    if (!plot_available()) fprintf(stderr, "fcd: gnuplot not on PATH: no %s\n", png);
    else if (plot_run(png, script, 1, inputs, names, err, sizeof err) != 0)
      fprintf(stderr, "fcd: no %s: %s\n", png, err);
    else printf("plot: %s\n", png);
  }
}

/* one row of history.csv for the state at t (it: the step's iterations; sg, a, react:
 * scratch of m, m and nq entries); returns the largest damage */
static double history_row(fcd_lattice *lat, FILE *csv, double t, fcd_index it, double pull_rate,
                          const double *wy, double *sg, double *a, double *react) {
  fcd_index m, nq;
  fcd_lattice_sizes(lat, NULL, &m, &nq);
  fcd_lattice_get_state(lat, NULL, sg, a, NULL);
  double syy = 0, am = 0;
  long np = 0;
  for (fcd_index i = 0; i < m; i++) {
    syy += sg[i] * wy[i];
    am = fmax(am, a[i]);
    np += a[i] > 0;
  }
  double pull = 0;
  fcd_lattice_get_reactions(lat, react);
  for (fcd_index c = 0; c < nq; c++) {
    double r;
    fcd_lattice_get_constraint(lat, c, NULL, NULL, NULL, &r);
    if (r != 0) pull += react[c];
  }
  fprintf(csv, "%.10g,%.12g,%lld,%.10g,%ld,%.10g,%.12g\n", t, syy, (long long)it, am, np,
          pull_rate * t, pull);
  return am;
}

/* The run of `fcd lattice --out DIR`: history.csv (t, total_stress_yy, iterations,
 * max_damage, plastic_springs, pull_displacement, pull_force) and, when gnuplot is
 * present, damage.png. The total stress is seed 001's virial (eq. 112): sum_i sigma_i
 * (e_i,y)^2 L_i over the area of the bounding box of the reference positions. The
 * force-displacement pair is the imposed displacement of the pulled constraints (rate
 * t) and the sum of their reactions. */
int lattice_run(fcd_lattice *lat, const char *dir, double dt, double t_end) {
  if (!(dt > 0) || !(t_end > 0)) {
    fprintf(stderr, "fcd: --dt and --t-end must be > 0\n");
    return 2;
  }
  /* the step count in double first: t_end / dt past a long is undefined as a conversion */
  double nsteps = ceil(t_end / dt - 1e-9);
  if (!(nsteps <= 1e9)) {
    fprintf(stderr, "fcd: --t-end %g / --dt %g makes %.3g steps, more than 1e9: refused\n",
            t_end, dt, nsteps);
    return 2;
  }
  if (out_mkdir(dir)) return 1;
  fcd_index n, m;
  fcd_lattice_sizes(lat, &n, &m, NULL);
  double *x = malloc(2 * (size_t)n * sizeof *x), *sg = malloc((size_t)m * sizeof *sg);
  double *a = malloc((size_t)m * sizeof *a), *wy = malloc((size_t)m * sizeof *wy);
  fcd_index *ea = malloc((size_t)m * sizeof *ea), *eb = malloc((size_t)m * sizeof *eb);
  if (!x || !sg || !a || !wy || !ea || !eb) {
    fprintf(stderr, "fcd: out of memory\n");
    free(x); free(sg); free(a); free(wy); free(ea); free(eb);
    return 1;
  }
  virial_weights(lat, n, m, x, ea, eb, wy);
  char path[4096];
  snprintf(path, sizeof path, "%s/history.csv", dir);
  out_file hist;
  FILE *csv = out_open(&hist, path);
  if (!csv) {
    free(x); free(sg); free(a); free(wy); free(ea); free(eb);
    return 1;
  }
  fprintf(csv, "t,total_stress_yy,iterations,max_damage,plastic_springs,pull_displacement,"
               "pull_force\n");
  fcd_index nq;
  fcd_lattice_sizes(lat, NULL, NULL, &nq);
  double *react = malloc(((size_t)nq + 1) * sizeof *react), pull_rate = 0;
  if (!react) {
    fprintf(stderr, "fcd: out of memory\n");
    out_discard(&hist);
    free(x); free(sg); free(a); free(wy); free(ea); free(eb);
    return 1;
  }
  for (fcd_index c = 0; c < nq; c++) {
    double r;
    fcd_lattice_get_constraint(lat, c, NULL, NULL, NULL, &r);
    if (r != 0) pull_rate = r;
  }
  long steps = (long)nsteps; /* at most 1e9: checked with the options */
  int rc = 0, tty = isatty(2);
  double amax_all = 0;
  long done = 0;
  int broke = 0;
  for (long j = 1; j <= steps; j++) {
    fcd_index it;
    double t = j == steps ? t_end : j * dt;
    fcd_status st = fcd_lattice_step(lat, t, &it);
    if (st == FCD_E_NO_SOLUTION) {
      /* complete failure ends the sweep (seed 001, Remark 3.1): the history up to it is
       * the answer, written as a whole */
      fprintf(stderr, "%sfcd: step %ld: %s\nfcd: the sweep ends at complete failure; the "
              "history holds the %ld steps before it\n", tty ? "\n" : "", j,
              fcd_lattice_last_error(lat), j - 1);
      broke = 1;
      break;
    }
    if (st != FCD_OK) {
      fprintf(stderr, "%sfcd: step %ld: %s (%s)\n", tty ? "\n" : "", j,
              fcd_lattice_last_error(lat), fcd_status_str(st));
      rc = 1;
      break;
    }
    done = j;
    amax_all = fmax(amax_all, history_row(lat, csv, t, it, pull_rate, wy, sg, a, react));
    if (tty && steps > 100 && j % 10 == 0) fprintf(stderr, "\rfcd: t = %.3g (%ld/%ld)", t, j, steps);
  }
  if (tty && steps > 100) fprintf(stderr, "\n");
  if (rc) {
    out_discard(&hist);
    fprintf(stderr, "fcd: no history written; '%s' is unchanged\n", path);
  } else if (out_commit(&hist)) {
    rc = 1;
  }
  if (!rc) damage_plot(dir, m, x, ea, eb, a, amax_all);
  printf("lattice: nodes=%lld springs=%lld steps=%ld%s history=%s/history.csv\n", (long long)n,
         (long long)m, rc ? steps : done, broke ? " (then complete failure)" : "", dir);
  free(react);
  free(x); free(sg); free(a); free(wy); free(ea); free(eb);
  return rc;
}

/* ---- fcd lattice ---- */
static int parse_dims(const char *v, int *nx, int *ny) {
  char tail;
  long a, b;
  if (sscanf(v, "%ldx%ld%c", &a, &b, &tail) != 2 || a < 2 || b < 2 || a > 100000 ||
      b > 100000)
    return -1;
  *nx = (int)a;
  *ny = (int)b;
  return 0;
}

/* Bytes the solver of a lattice of n nodes and m springs needs, mostly the Cholesky
 * factor of its 2n-dof stiffness (nested dissection on a planar graph: about
 * 400 log2(n) bytes per node, measured at 1e4 to 9e4 nodes), and the memory the system
 * says is available (/proc/meminfo's MemAvailable, else the free physical pages). A
 * 1000 x 1000 lattice grew past 5 GB and a 70000 x 70000 one past 11 GB in 30 s before
 * anything checked. */
static double solver_bytes(fcd_index n, fcd_index m) {
  double dn = (double)n;
  return 4e7 + dn * 400.0 * log2(dn > 2 ? dn : 2) + (double)m * 96.0;
}

static double available_bytes(void) {
  FILE *fp = fopen("/proc/meminfo", "r");
  if (fp) {
    char line[256];
    long long kb;
    while (fgets(line, sizeof line, fp))
      if (sscanf(line, "MemAvailable: %lld kB", &kb) == 1) {
        fclose(fp);
        return (double)kb * 1024.0;
      }
    fclose(fp);
  }
  long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
  return pages > 0 && size > 0 ? (double)pages * (double)size : INFINITY;
}

static const cli_opt lattice_opts[] = {
    {CLI_RECT, "NXxNY", 0, "the rectangular lattice of seed 001 (section 6.1), or:"},
    {CLI_TRI, "NXxNY", 0, "the triangular lattice (section 6.2)"},
    {CLI_DEFECT, "NODE:DX,DY", 0, "move a node before the run"},
    {CLI_K, "X", 0, "spring stiffness (default 1)"},
    {CLI_C0, "X", 0, "initial yield force (default 0.01)"},
    {CLI_S, "X", 0, "geometric slope (default 0.3)"},
    {CLI_H, "X", 0, "state feedback: < 1 hardening, > 1 softening (default 1.1)"},
    {CLI_RATE, "X", 0, "pulling speed of the top row (default 0.1)"},
    {CLI_SPACING, "X", 0, "node spacing (default 1)"},
    {CLI_DT, "H", 0, "time step (default 0.01)"},
    {CLI_T_END, "T", 0, "end time (default 10)"},
    {CLI_METHOD, "full|reduced", 0, "Algorithm 1 (sparse, default) or 2 (dense)"},
    {CLI_ITERATION, "pieces|picard", 0, "a piece's fixed point solved once its active set "
     "holds (default), or Picard alone"},
    {CLI_OUT, "DIR", 0, "DIR/history.csv and, with gnuplot, DIR/damage.png"},
    {CLI_COUNT_ONLY, "", 0, "print 'nodes=N springs=M constraints=Q selfstress_dim=D' instead"},
    CLI_OPT_END,
};
const cli_command cli_lattice = {
    "lattice", cmd_lattice, "", lattice_opts,
    "the spring lattices of seed 001 under the paper's loading, stepped by implicit\n"
    "catch-up; history.csv: t,total_stress_yy,iterations,max_damage,\n"
    "plastic_springs,pull_displacement,pull_force\n",
    NULL,
    CLI_MPI_NO};

/* A rectangular lattice needs no check: every cell is a rectangle with both diagonals
 * (infinitesimally rigid), cells sharing an edge form one rigid body, and the bottom
 * row's y at two or more abscissae and one node's x hold its three rigid motions. So it
 * is kinematically determinate and its self-stress space has dimension m - (2 n - q)
 * exactly (the suite checks this against the factorization for every shape up to
 * 9 x 9). A 1000 x 1000 lattice was factored (100 s, 5.8 GB) only to print this line. */
static int count_rect(fcd_index gn, fcd_index gm, fcd_index gq) {
  printf("nodes=%lld springs=%lld constraints=%lld selfstress_dim=%lld\n", (long long)gn,
         (long long)gm, (long long)gq, (long long)(gm - (2 * gn - gq)));
  return 0;
}

/* a lattice whose solver would need more memory than there is: refused, or counted
 * without its self-stress dimension */
static int too_large(int nx, int ny, fcd_index gn, fcd_index gm, fcd_index gq, int count_only,
                     double need, double have) {
  if (count_only) {
    /* the counts are exact; the self-stress dimension needs the factorization */
    printf("nodes=%lld springs=%lld constraints=%lld selfstress_dim=unknown\n",
           (long long)gn, (long long)gm, (long long)gq);
    fprintf(stderr, "fcd: the self-stress dimension of a %dx%d lattice needs the "
            "factorization of its stiffness, about %.1f GB, and %.1f GB are available; "
            "the counts are exact\n", nx, ny, need / 1e9, have / 1e9);
    return 0;
  }
  fprintf(stderr, "fcd: a %dx%d lattice (%lld nodes, %lld springs) needs about %.1f GB "
          "for its solver and %.1f GB are available: choose a smaller lattice "
          "(--count-only counts it without building it)\n", nx, ny, (long long)gn,
          (long long)gm, need / 1e9, have / 1e9);
  return 1;
}

/* --defect NODE:DX,DY: 0, or the exit status with the reason printed */
static int apply_defect(fcd_lattice *lat, const char *defect) {
  long node;
  double dx, dy;
  char tail;
  if (sscanf(defect, "%ld:%lf,%lf%c", &node, &dx, &dy, &tail) != 3) {
    fprintf(stderr, "fcd: --defect needs NODE:DX,DY, got '%s'\n", defect);
    return 2;
  }
  const double d[2] = {dx, dy};
  if (fcd_lattice_move_node(lat, node, d) != FCD_OK) {
    fprintf(stderr, "fcd: --defect: %s\n", fcd_lattice_last_error(lat));
    return 1;
  }
  return 0;
}

int cmd_lattice(int argc, char **argv) {
  options o = {.method = "full", .iteration = "pieces", .k = 1, .c0 = 0.01, .s = 0.3, .h = 1.1, .rate = 0.1,
               .spacing = 1.0, .dt = 0.01, .t_end = 10};
  if (parse_options(argc, argv, &o, &cli_lattice)) return 2;
  const char *rect = o.rect, *tri = o.tri, *defect = o.defect, *out = o.out, *method = o.method;
  double k = o.k, c0 = o.c0, s = o.s, h = o.h, rate = o.rate, spacing = o.spacing;
  double dt = o.dt, t_end = o.t_end;
  int count_only = o.count_only;
  if (strcmp(method, "full") != 0 && strcmp(method, "reduced") != 0) {
    fprintf(stderr, "fcd: --method is 'full' (Algorithm 1, sparse) or 'reduced' (Algorithm 2, "
            "dense), got '%s'\n", method);
    return 2;
  }
  if (strcmp(o.iteration, "pieces") != 0 && strcmp(o.iteration, "picard") != 0) {
    fprintf(stderr, "fcd: --iteration is 'pieces' or 'picard', got '%s'\n", o.iteration);
    return 2;
  }
  int nx, ny;
  if (!rect == !tri || parse_dims(rect ? rect : tri, &nx, &ny)) {
    fprintf(stderr, "fcd: lattice needs one of --rect NXxNY or --tri NXxNY, from 2x2 to "
            "100000x100000\n");
    return 2;
  }
  /* the sizes in closed form: counted without building, and checked against the memory
   * the solver will need before anything is built */
  fcd_index gn, gm, gq;
  fcd_lattice_generated_sizes(rect ? FCD_LAT_RECT : FCD_LAT_TRI, nx, ny, &gn, &gm, &gq);
  double need = solver_bytes(gn, gm), have = available_bytes();
  /* the springs' parameters, checked by the library on the smallest lattice of the kind */
  {
    fcd_lattice *probe = NULL;
    fcd_status pst = rect ? fcd_lattice_create_rect(2, 2, spacing, k, c0, s, h, rate, &probe)
                          : fcd_lattice_create_tri(2, 2, spacing, k, c0, s, h, rate, &probe);
    fcd_lattice_destroy(probe);
    if (pst != FCD_OK) {
      fprintf(stderr, "fcd: cannot build the lattice: %s (k > 0, c0 > 0, s >= 0, spacing > "
              "0)\n", fcd_status_str(pst));
      return 1;
    }
  }
  if (count_only && rect && !defect) return count_rect(gn, gm, gq);
  if (need > have) return too_large(nx, ny, gn, gm, gq, count_only, need, have);
  fcd_lattice *lat = NULL;
  fcd_status st = rect ? fcd_lattice_create_rect(nx, ny, spacing, k, c0, s, h, rate, &lat)
                       : fcd_lattice_create_tri(nx, ny, spacing, k, c0, s, h, rate, &lat);
  if (st == FCD_E_NOMEM) {
    fprintf(stderr, "fcd: cannot build a %dx%d lattice: out of memory\n", nx, ny);
    return 1;
  }
  if (st != FCD_OK) {
    /* the sizes were checked above: what is left is the springs' data */
    fprintf(stderr, "fcd: cannot build the lattice: %s (k > 0, c0 > 0, s >= 0, spacing > 0)\n",
            fcd_status_str(st));
    return 1;
  }
  int rc = 0;
  if (defect && (rc = apply_defect(lat, defect)) != 0) {
    fcd_lattice_destroy(lat);
    return rc;
  }
  fcd_lattice_set_param(lat, FCD_LAT_METHOD,
                        strcmp(method, "reduced") == 0 ? FCD_LAT_REDUCED_DENSE : FCD_LAT_FULL_SPARSE);
  fcd_lattice_set_param(lat, FCD_LAT_ITERATION,
                        strcmp(o.iteration, "picard") == 0 ? FCD_LAT_PICARD : FCD_LAT_PIECES);
  fcd_index n, m, q, dv;
  fcd_lattice_sizes(lat, &n, &m, &q);
  st = fcd_lattice_selfstress_dim(lat, &dv);
  if (st == FCD_E_SINGULAR && count_only) {
    /* a mechanism: the counts are exact all the same, and the self-stress space is at
     * least what the count of unknowns leaves (rank(B) <= 2 n - q); the --tri NXx3
     * lattices end in such hinges and printed nothing */
    printf("nodes=%lld springs=%lld constraints=%lld selfstress_dim=unknown\n", (long long)n,
           (long long)m, (long long)q);
    fprintf(stderr, "fcd: %s: the self-stress dimension is m - rank, at least %lld, and the "
            "factorization that gives it fails on the mechanism; the counts are exact\n",
            fcd_lattice_last_error(lat), (long long)(m - (2 * n - q)));
  } else if (st != FCD_OK) {
    fprintf(stderr, "fcd: %s (%s)\n", fcd_lattice_last_error(lat), fcd_status_str(st));
    rc = 1;
  } else if (count_only) {
    printf("nodes=%lld springs=%lld constraints=%lld selfstress_dim=%lld\n", (long long)n,
           (long long)m, (long long)q, (long long)dv);
  } else if (!out) {
    fprintf(stderr, "fcd: lattice needs --out DIR (or --count-only)\n");
    rc = 2;
  } else {
    rc = lattice_run(lat, out, dt, t_end);
  }
  fcd_lattice_destroy(lat);
  return rc;
}


