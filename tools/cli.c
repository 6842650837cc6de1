#define _XOPEN_SOURCE 700 /* realpath */
/* What the program's commands share: the option table and its parser, loading a model
 * from the common options, reporting failures and certificates, VTK output. */
#include <fcd/fcd.h>

#include <mpi.h>

#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "outfile.h"

int parse_real(const char *opt, const char *v, double *x) {
  char *end;
  *x = strtod(v, &end);
  if (*end || end == v || !isfinite(*x)) {
    fprintf(stderr, "fcd: %s needs a number, got '%s'\n", opt, v);
    return -1;
  }
  return 0;
}

/* The parser's view of CLI_OPTIONS (cli.h), indexed by cli_option_id. The parser takes
 * `--opt value` and (main) `--opt=value`. */
typedef enum { OPT_FLAG, OPT_TEXT, OPT_REAL, OPT_POS_REAL, OPT_POS_INT, OPT_NONNEG_INT } opt_kind;
/* a path the command reads, writes, or writes into (a directory) */
typedef enum { ROLE_NONE, ROLE_IN, ROLE_OUT, ROLE_OUT_DIR } opt_role;
typedef struct {
  const char *name;
  opt_kind kind;
  size_t off;
  opt_role role;
} opt_def;
#define OPT_DEF_(id, name, kind, role, field)                                               \
  [CLI_##id] = {name, OPT_##kind, offsetof(options, field), ROLE_##role},
static const opt_def opt_table[CLI_NOPTIONS] = {CLI_OPTIONS(OPT_DEF_)};
#undef OPT_DEF_

const char *cli_option_name(cli_option_id id) {
  return id >= 0 && id < CLI_NOPTIONS ? opt_table[id].name : "";
}

/* Whether paths a and b name one file: the same inode when both exist, else the same
 * canonical directory and name (an output not written yet). */
static int same_file(const char *a, const char *b) {
  struct stat sa, sb;
  if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  char ca[PATH_MAX + 256], cb[PATH_MAX + 256];
  const char *p[2] = {a, b};
  char *c[2] = {ca, cb};
  for (int k = 0; k < 2; k++) {
    const char *slash = strrchr(p[k], '/');
    char dir[PATH_MAX], real[PATH_MAX];
    size_t dl = slash ? (size_t)(slash - p[k]) : 0;
    if (dl >= sizeof dir) return strcmp(a, b) == 0;
    memcpy(dir, p[k], dl);
    dir[dl] = 0;
    if (!realpath(slash ? (dl ? dir : "/") : ".", real)) return strcmp(a, b) == 0;
    snprintf(c[k], PATH_MAX + 256, "%s/%s", real, slash ? slash + 1 : p[k]);
  }
  return strcmp(ca, cb) == 0;
}

/* Whether path p names a file directly inside directory dir whose name matches one of
 * the space-separated shell patterns of pats: the file a run writing pats into dir would
 * overwrite. The directory may not exist yet (nothing then is inside it but outputs). */
static int written_into(const char *p, const char *dir, const char *pats) {
  const char *slash = strrchr(p, '/');
  const char *base = slash ? slash + 1 : p;
  char parent[PATH_MAX];
  size_t dl = slash ? (size_t)(slash - p) : 0;
  if (dl >= sizeof parent) return 0;
  memcpy(parent, p, dl);
  parent[dl] = 0;
  char d[PATH_MAX];
  size_t n = strlen(dir);
  while (n > 1 && dir[n - 1] == '/') n--; /* "a/" is "a", which may not exist yet */
  if (n >= sizeof d) return 0;
  memcpy(d, dir, n);
  d[n] = 0;
  if (!same_file(slash ? (dl ? parent : "/") : ".", d)) return 0;
  char pat[128];
  for (const char *q = pats; *q;) {
    size_t len = strcspn(q, " ");
    if (len > 0 && len < sizeof pat) {
      memcpy(pat, q, len);
      pat[len] = 0;
      if (fnmatch(pat, base, 0) == 0) return 1;
    }
    q += len;
    while (*q == ' ') q++;
  }
  return 0;
}

/* The names each command writes into its directories (shell patterns, space-separated,
 * their temporary names included), so that an input or output inside such a directory
 * under such a name is refused before the run. */
static const struct {
  const char *cmd;
  cli_option_id id;
  const char *writes;
} dir_writes[] = {
    {"simulate", CLI_VTK, "final.vtk final.vtk.tmp-*"},
    /* a series' names whatever its format (--series-format): its collection NAME.* and
     * its frames NAME-K.*, their temporary names included */
    {"simulate", CLI_SERIES, "series.* series-[0-9]*"},
    {"stability", CLI_VTK, "mode-[0-9]*.vtk mode-[0-9]*.vtk.tmp-*"},
    {"stability", CLI_SERIES, "mode-[0-9]*"},
};

int cli_check_paths(const options *o, const cli_command *cmd, const char *operand_name,
                    const char *operand) {
  /* the options' paths with their roles, and the command's input operand */
  const char *path[sizeof opt_table / sizeof opt_table[0] + 1];
  const char *name[sizeof opt_table / sizeof opt_table[0] + 1];
  opt_role role[sizeof opt_table / sizeof opt_table[0] + 1];
  size_t n = 0;
  for (size_t k = 0; k < sizeof opt_table / sizeof opt_table[0]; k++) {
    if (opt_table[k].role == ROLE_NONE) continue;
    const char *v = *(const char *const *)(const void *)((const char *)o + opt_table[k].off);
    if (!v) continue;
    path[n] = v;
    name[n] = opt_table[k].name;
    role[n++] = opt_table[k].role;
  }
  if (operand) {
    path[n] = operand;
    name[n] = operand_name;
    role[n++] = ROLE_IN;
  }
  /* an output over an input destroys what the run reads (simulate --out M.mtx removed
   * the mass matrix it read); two outputs over each other lose one of them */
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++) {
      if (i == j || role[i] == ROLE_IN || (role[j] != ROLE_IN && j < i)) continue;
      if (!same_file(path[i], path[j])) continue;
      fprintf(stderr, "fcd: %s '%s' is the same file as %s '%s': the run would %s; give "
              "another path\n", name[i], path[i], name[j], path[j],
              role[j] == ROLE_IN ? "overwrite what it reads" : "write both into one file");
      return -1;
    }
  /* the files written into a directory (--series, --vtk) are outputs too, known by
   * their names before the first is written: an input or another output among them
   * would be overwritten (simulate --out a/series.pvd --series a wrote the history and
   * then the collection over it) */
  for (size_t k = 0; cmd && k < sizeof dir_writes / sizeof dir_writes[0]; k++) {
    cli_option_id id = dir_writes[k].id;
    if (strcmp(dir_writes[k].cmd, cmd->name) != 0) continue;
    const char *dir = *(const char *const *)(const void *)((const char *)o + opt_table[id].off);
    if (!dir) continue;
    for (size_t j = 0; j < n; j++) {
      if (role[j] == ROLE_OUT_DIR || !written_into(path[j], dir, dir_writes[k].writes)) continue;
      fprintf(stderr, "fcd: %s '%s' is inside %s '%s' under a name the run writes there "
              "(%s): the run would %s; give another path\n", name[j], path[j],
              opt_table[id].name, dir, dir_writes[k].writes,
              role[j] == ROLE_IN ? "overwrite what it reads" : "write both into one file");
      return -1;
    }
  }
  return 0;
}

int parse_options(int argc, char **argv, options *o, const cli_command *cmd) {
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    const opt_def *def = NULL;
    for (const cli_opt *k = cmd->opts; k->id != CLI_END; k++)
      if (strcmp(a, opt_table[k->id].name) == 0) def = &opt_table[k->id];
    if (!def) {
      fprintf(stderr, "fcd: %s takes no option '%s' (see 'fcd %s --help')\n", cmd->name, a,
              cmd->name);
      return -1;
    }
    char *field = (char *)o + def->off;
    if (def->kind == OPT_FLAG) {
      *(int *)(void *)field = 1;
      continue;
    }
    if (i + 1 >= argc) {
      fprintf(stderr, "fcd: option '%s' needs a value\n", a);
      return -1;
    }
    const char *v = argv[++i];
    char *end;
    errno = 0;
    switch (def->kind) {
    case OPT_TEXT: *(const char **)(void *)field = v; break;
    case OPT_REAL:
      if (parse_real(a, v, (double *)(void *)field)) return -1;
      break;
    case OPT_POS_REAL: {
      double x = strtod(v, &end);
      if (*end || end == v || !(x > 0) || !isfinite(x)) {
        fprintf(stderr, "fcd: %s needs a positive number, got '%s'\n", a, v);
        return -1;
      }
      *(double *)(void *)field = x;
      break;
    }
    case OPT_POS_INT:
    case OPT_NONNEG_INT: {
      long x = strtol(v, &end, 10), lo = def->kind == OPT_POS_INT ? 1 : 0;
      if (*end || end == v || errno || x < lo) {
        fprintf(stderr, "fcd: %s needs a %s integer, got '%s'\n", a,
                lo ? "positive" : "non-negative", v);
        return -1;
      }
      *(long *)(void *)field = x;
      break;
    }
    case OPT_FLAG: break;
    }
  }
  return cli_check_paths(o, cmd, NULL, NULL);
}

int fail(fcd_system *sys, fcd_status st, const char *what) {
  fprintf(stderr, "fcd: %s: %s (%s)\n", what, sys ? fcd_system_last_error(sys) : "",
          fcd_status_str(st));
  return 1;
}

void print_matrix(fcd_system *sys, fcd_matrix_kind k, const char *name) {
  fcd_index stored = 0, full = 0;
  fcd_real asym = 0;
  fcd_system_matrix_nnz(sys, k, &stored, &full);
  fcd_system_matrix_asymmetry(sys, k, &asym);
  printf("%s: %lld x %lld, stored nonzeros %lld, nonzeros %lld, %s (relative asymmetry "
         "%.3g)\n",
         name, (long long)fcd_system_ndofs(sys), (long long)fcd_system_ndofs(sys),
         (long long)stored, (long long)full, asym <= 1e-12 ? "symmetric" : "non-symmetric",
         asym);
}

/* The body of `fcd info` on an already loaded system; frequencies go to freq_hz. */
int report(fcd_system *sys, long nev, double *freq_hz, long *nfound) {
  fcd_index n = fcd_system_ndofs(sys), nfix = fcd_system_num_fixed(sys);
  printf("dofs: %lld (prescribed %lld, free %lld)\n", (long long)n, (long long)nfix,
         (long long)(n - nfix));
  print_matrix(sys, FCD_MASS, "mass");
  print_matrix(sys, FCD_STIFFNESS, "stiffness");
  fcd_status st = fcd_system_check_spd(sys, FCD_MASS);
  if (st == FCD_E_NOT_SPD) {
    printf("mass SPD on free dofs: no (%s)\n", fcd_system_last_error(sys));
    return 1;
  }
  if (st != FCD_OK) return fail(sys, st, "checking the mass matrix");
  printf("mass SPD on free dofs: yes\n");
  if (nev > n - nfix) nev = (long)(n - nfix);
  double *w2 = malloc((size_t)nev * sizeof *w2);
  if (!w2) return fail(NULL, FCD_E_NOMEM, "out of memory");
  fcd_index nc = 0;
  st = fcd_system_natural_modes(sys, nev, w2, NULL, &nc);
  if (st != FCD_OK && st != FCD_E_NOT_CONVERGED) {
    free(w2);
    return fail(sys, st, "computing natural frequencies");
  }
  printf("lowest natural frequencies (%lld of %ld requested):\n", (long long)nc, nev);
  for (fcd_index k = 0; k < nc; k++) {
    double f = sqrt(w2[k] > 0 ? w2[k] : 0) / (2 * PI);
    if (freq_hz) freq_hz[k] = f;
    printf("frequency %lld: %.9g Hz\n", (long long)k + 1, f);
  }
  if (nfound) *nfound = (long)nc;
  free(w2);
  if (st == FCD_E_NOT_CONVERGED) {
    fprintf(stderr, "fcd: %s\n", fcd_system_last_error(sys));
    return 1;
  }
  return 0;
}

/* PETSc's binary matrix begins with its class id, 1211216, big-endian; a Matrix Market
 * file with its banner */
static int petsc_binary(const char *path) {
  unsigned char b[4] = {0, 0, 0, 0};
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  size_t got = fread(b, 1, sizeof b, f);
  fclose(f);
  return got == sizeof b && b[0] == 0x00 && b[1] == 0x12 && b[2] == 0x7b && b[3] == 0x50;
}

static int distributed(const fcd_system *sys) {
  int nranks = 1;
  fcd_system_get_distribution(sys, NULL, &nranks, NULL, NULL);
  return nranks > 1;
}

/* Matrices of the other formats (fcd_matrix_file_read), read once when the model is
 * sized and kept for the reads that follow; the dof map of labelled ones (the union of
 * M's, K's and C's pairs) */
static struct {
  const char *path;
  fcd_matrix_file *m;
} mcache[3];
static fcd_dofmap *cli_map;
/* --format: every matrix file read as this format (AUTO: each told from its content) */
static fcd_matrix_format cli_format = FCD_MATRIX_FORMAT_AUTO;

const fcd_dofmap *cli_dofmap(void) { return cli_map; }

static int matrix_market(const char *path) {
  /* --format: a Matrix Market file by fcd's own reader, any other by fcd_matrix_file_read */
  if (cli_format != FCD_MATRIX_FORMAT_AUTO) return cli_format == FCD_MATRIX_FORMAT_MATRIX_MARKET;
  char b[16] = "";
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  size_t got = fread(b, 1, 14, f);
  fclose(f);
  return got == 14 && !strncasecmp(b, "%%MatrixMarket", 14);
}

/* the matrix file of path (read now, or kept from the sizing); NULL with the reason
 * printed */
static fcd_matrix_file *cached_matrix(const char *path) {
  for (int k = 0; k < 3; k++)
    if (mcache[k].path && !strcmp(mcache[k].path, path)) return mcache[k].m;
  fcd_matrix_file *m = NULL;
  char err[1024];
  fcd_status st = fcd_matrix_file_read(path, cli_format, &m, err, sizeof err);
  if (st != FCD_OK) {
    fprintf(stderr, "fcd: %s (%s)\n", err, fcd_status_str(st));
    return NULL;
  }
  for (int k = 0; k < 3; k++)
    if (!mcache[k].path) {
      mcache[k].path = path;
      mcache[k].m = m;
      return m;
    }
  fcd_matrix_file_destroy(m); /* more than three: not kept */
  fprintf(stderr, "fcd: %s: too many matrix files\n", path);
  return NULL;
}

void cli_release_matrices(void) {
  for (int k = 0; k < 3; k++) {
    fcd_matrix_file_destroy(mcache[k].m);
    mcache[k].m = NULL;
    mcache[k].path = NULL;
  }
  fcd_dofmap_destroy(cli_map);
  cli_map = NULL;
}

static int labelled(const fcd_matrix_file *m) {
  fcd_matrix_file_info in = {.struct_size = sizeof in};
  return fcd_matrix_file_get_info(m, &in) == FCD_OK && in.labelled;
}

/* *own: the failure is this rank's to report (its message in the system): not another
 * rank's, and of a distributed Matrix Market read, which gives every rank rank 0's
 * message, rank 0's alone */
static fcd_status read_any(fcd_system *sys, fcd_matrix_kind which, const char *path, int *own) {
  long long pb = petsc_binary(path);
  *own = 1;
  if (!pb && !matrix_market(path)) {
    if (distributed(sys)) {
      fprintf(stderr, "fcd: %s: under mpiexec the matrices are read as Matrix Market or "
              "PETSc binary files (fcd info converts)\n", path);
      *own = 0;
      return FCD_E_UNSUPPORTED;
    }
    fcd_matrix_file *m = cached_matrix(path);
    if (!m) {
      *own = 0;
      return FCD_E_FORMAT;
    }
    if (labelled(m) && !cli_map) {
      fprintf(stderr, "fcd: %s names its dofs by node label, the model's matrices by index\n",
              path);
      *own = 0;
      return FCD_E_INVALID_ARG;
    }
    return fcd_system_set_matrix_file(sys, which, m, labelled(m) ? cli_map : NULL);
  }
  if (!distributed(sys))
    return pb ? fcd_system_read_petsc_binary(sys, which, path)
              : fcd_system_read_matrix_market(sys, which, path);
  /* Matrix Market: collective, rank 0 reads and every rank gets its status and message;
   * PETSc binary: each rank its own rows, then the ranks agree before anything collective
   * follows */
  cli_bcast(&pb, 1);
  if (!pb) {
    *own = cli_rank == 0;
    return fcd_system_read_matrix_market(sys, which, path);
  }
  fcd_status st = fcd_system_read_petsc_binary(sys, which, path);
  long long worst = st;
  if (MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD))
    worst = FCD_E_BACKEND;
  if (st != FCD_OK) return st;
  *own = 0;
  if (worst != FCD_OK)
    fprintf(stderr, "fcd: rank %d stops: another rank failed reading %s (its message above)\n",
            cli_rank, path);
  return (fcd_status)worst;
}

fcd_status cli_read_matrix_status(fcd_system *sys, fcd_matrix_kind which, const char *path) {
  int own;
  return read_any(sys, which, path, &own);
}

int cli_read_matrix(fcd_system *sys, fcd_matrix_kind which, const char *path) {
  static const char *const name[] = {"mass", "stiffness", "damping"};
  int own;
  fcd_status st = read_any(sys, which, path, &own);
  if (st == FCD_OK) return 0;
  if (own) {
    char what[64];
    snprintf(what, sizeof what, "reading the %s matrix", name[which]);
    fail(sys, st, what);
  }
  return 1;
}

/* the dof map of labelled matrices: the union of the model's M, K and C; 0, or 1 with
 * the reason printed */
static int model_map(const options *o, fcd_index *n) {
  const char *paths[3] = {o->mass, o->stiffness, o->damping};
  int nlab = 0, nidx = 0;
  for (int k = 0; k < 3; k++) {
    if (!paths[k]) continue;
    if (petsc_binary(paths[k]) || matrix_market(paths[k])) {
      nidx++;
      continue;
    }
    fcd_matrix_file *m = cached_matrix(paths[k]);
    if (!m) return 1;
    if (labelled(m)) nlab++;
    else nidx++;
  }
  if (!nlab) return 0;
  if (nidx) {
    fprintf(stderr, "fcd: the model's matrices name their dofs partly by node label and "
            "partly by index: give them all in one kind\n");
    return 1;
  }
  if (fcd_dofmap_create(&cli_map) != FCD_OK) return 1;
  for (int k = 0; k < 3; k++)
    if (paths[k] && fcd_dofmap_add_matrix(cli_map, cached_matrix(paths[k])) != FCD_OK) {
      fprintf(stderr, "fcd: out of memory for the dof map\n");
      return 1;
    }
  *n = fcd_dofmap_size(cli_map);
  return 0;
}

/* the size of the model from its mass or stiffness file: 0, or 1 with the reason printed */
static int model_size(const char *path, const char *name, fcd_index *n) {
  fcd_index nr = 0, nc = 0, nnz;
  char msg[512];
  if (!petsc_binary(path) && !matrix_market(path)) {
    fcd_matrix_file *m = cached_matrix(path);
    if (!m) return 1;
    fcd_matrix_file_info in = {.struct_size = sizeof in};
    fcd_matrix_file_get_info(m, &in);
    nr = in.nrows;
    nc = in.ncols;
    if (nr != nc) {
      fprintf(stderr, "fcd: %s: the %s matrix is %lld x %lld, not square\n", path, name,
              (long long)nr, (long long)nc);
      return 1;
    }
    *n = nr;
    return 0;
  }
  fcd_status st = petsc_binary(path)
                      ? fcd_petsc_binary_size(path, &nr, &nc, &nnz, msg, sizeof msg)
                      : fcd_matrix_market_size(path, &nr, &nc, &nnz, msg, sizeof msg);
  if (st != FCD_OK) {
    fprintf(stderr, "fcd: %s (%s)\n", msg, fcd_status_str(st));
    return 1;
  }
  if (nr != nc) {
    fprintf(stderr, "fcd: %s: the %s matrix is %lld x %lld, not square\n", path, name,
            (long long)nr, (long long)nc);
    return 1;
  }
  *n = nr;
  return 0;
}

int load_system_opt(const options *o, int need_mass, int distribute, fcd_system **out) {
  *out = NULL;
  if (o->format && fcd_matrix_format_from_name(o->format, &cli_format) != FCD_OK) {
    fprintf(stderr, "fcd: --format %s: not a matrix format (matrix-market, harwell-boeing, "
            "abaqus-matrix, abaqus-coordinate, nastran-dmig, nastran-op4)\n", o->format);
    return 2;
  }
  if ((need_mass && !o->mass) || !o->stiffness) {
    fprintf(stderr, need_mass ? "fcd: --mass and --stiffness are required\n"
                              : "fcd: --stiffness is required\n");
    return 2;
  }
  const char *sizer = o->mass ? o->mass : o->stiffness;
  distribute = distribute && cli_nranks > 1;
  /* distributed, rank 0 sizes the model: a Matrix Market file need only be there */
  long long v[2] = {0, 0};
  fcd_index nr = 0;
  if (!distribute || cli_rank == 0) {
    v[0] = model_map(o, &nr);
    if (!v[0] && !cli_map) v[0] = model_size(sizer, o->mass ? "mass" : "stiffness", &nr);
  }
  if (o->write_dofs && !v[0]) {
    char err[512];
    fcd_status ws = cli_map ? fcd_dofmap_write(cli_map, o->write_dofs, err, sizeof err)
                            : FCD_E_INVALID_ARG;
    if (ws != FCD_OK) {
      if (cli_map) fprintf(stderr, "fcd: %s (%s)\n", err, fcd_status_str(ws));
      else fprintf(stderr, "fcd: --write-dofs: the matrices name their dofs by index (no "
                   "node labels to map)\n");
      v[0] = 1;
    }
  }
  v[1] = (long long)nr;
  if (distribute) cli_bcast(v, 2);
  nr = (fcd_index)v[1];
  fcd_system *sys = NULL;
  int rc = (int)v[0];
  fcd_status st;
  if (!rc && (st = fcd_system_create(nr, &sys)) != FCD_OK) {
    fprintf(stderr, "fcd: %s: cannot create a system of %lld dofs, the size in its header "
            "(%s: its tables alone need %.3g GB)\n", sizer, (long long)nr, fcd_status_str(st),
            49.0 * (double)nr / 1e9);
    rc = 1;
  }
  if (distribute) rc = cli_agree(rc); /* every rank reaches the collective below, or none */
  if (rc) {
    fcd_system_destroy(sys);
    return rc;
  }
  if (cli_map && (st = fcd_system_set_dofmap(sys, cli_map)) != FCD_OK) {
    fail(sys, st, "the dof map");
    fcd_system_destroy(sys);
    return 1;
  }
  if (distribute) {
    long long b, e;
    cli_rows(nr, &b, &e);
    if ((st = fcd_system_set_distribution(sys, cli_comm_f, b, e)) != FCD_OK) {
      fail(sys, st, "distributing the system");
      fcd_system_destroy(sys);
      return 1;
    }
  }
  if ((o->mass && cli_read_matrix(sys, FCD_MASS, o->mass)) ||
      cli_read_matrix(sys, FCD_STIFFNESS, o->stiffness) ||
      (o->fixed && (st = fcd_system_read_fixed(sys, o->fixed)) != FCD_OK &&
       fail(sys, st, "reading input"))) {
    fcd_system_destroy(sys);
    return 1;
  }
  *out = sys;
  return 0;
}

int load_system(const options *o, fcd_system **out) { return load_system_opt(o, 1, 0, out); }


int write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fputs(text, f);
  return fclose(f);
}

/* the line every solving command prints before its last one */
void print_certificate(const char *what, const fcd_certificate *c) {
  printf("%s: equilibrium=%.3e penetration=%.3e complementarity=%.3e cone=%.3e "
         "tolerance=%.1e force_scale=%.3e length_scale=%.3e\n", what, c->equilibrium,
         c->penetration, c->complementarity, c->cone, c->tolerance, c->force_scale,
         c->length_scale);
}


/* --damping or --rayleigh, then --load (into f, ndofs n): the inputs simulate and
 * stability share. *usage is set when --rayleigh is malformed (exit status 2). */
fcd_status read_damping_load(const options *o, fcd_system *sys, fcd_index n, double *f,
                                    int *usage) {
  *usage = 0;
  fcd_status st = FCD_OK;
  if (o->damping) st = cli_read_matrix_status(sys, FCD_DAMPING, o->damping);
  if (st == FCD_OK && o->rayleigh) {
    double a, b;
    char tail;
    if (sscanf(o->rayleigh, "%lf,%lf%c", &a, &b, &tail) != 2 || !isfinite(a) || !isfinite(b)) {
      fprintf(stderr, "fcd: --rayleigh needs 'alpha,beta', got '%s'\n", o->rayleigh);
      *usage = 1;
      return FCD_E_INVALID_ARG;
    }
    st = fcd_system_set_rayleigh(sys, a, b);
  }
  if (st == FCD_OK && o->load && (st = fcd_system_read_vector(sys, o->load, n, f)) == FCD_OK)
    st = fcd_system_set_load(sys, f);
  return st;
}

/* --vtk DIR needs --mesh FILE (the geometry fcd does not otherwise know); --mesh alone
 * serves the contact file's surface pairs. 0, or 2 for a usage error. DIR is created
 * when the first file is written, after the run succeeded: a failed run leaves no
 * directory behind. */
int vtk_prepare(const options *o) {
  if (o->vtk_binary && !o->vtk) {
    fprintf(stderr, "fcd: --vtk-binary goes with --vtk\n");
    return 2;
  }
  if (o->vtk && !o->mesh) {
    fprintf(stderr, "fcd: --vtk DIR needs --mesh FILE (VTK output needs the mesh's node "
                    "coordinates)\n");
    return 2;
  }
  return 0;
}

/* writes DIR/NAME.vtk through a temporary file (an existing one is replaced only by a
 * complete one); 0 or 1 (message printed) */
int vtk_write(fcd_system *sys, const fcd_mesh *m, const char *dir, const char *name,
                     fcd_index nfields, const char *const *names, const double *const *fields,
                     const fcd_contact_set *cs, const int *status) {
  if (out_mkdir(dir)) return 1;
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.vtk", dir, name);
  out_file of;
  if (out_reserve(&of, path)) return 1;
  fcd_status st = fcd_mesh_write_vtk(m, of.tmp, nfields, names, fields, cs, status);
  if (st != FCD_OK) {
    out_discard(&of);
    return fail(sys, st, "writing VTK");
  }
  if (out_commit(&of)) return 1;
  printf("vtk: %s\n", path);
  return 0;
}


/* mode NAME animated over one period as a series, DIR/NAME.pvd (or the collection of
 * --series-format's format; 24 frames, the eigenvalue lre + i lim in their field data);
 * 0 or 1 (message printed) */
int series_mode_write(fcd_system *sys, const fcd_mesh *m, const char *dir, const char *name,
                      const char *format, const double *re, const double *im, double lre,
                      double lim) {
  if (out_mkdir(dir)) return 1;
  fcd_series *s = cli_series_create(sys, m, NULL, dir, name, format);
  if (!s) return 1;
  fcd_status st = fcd_series_write_mode(s, re, im, lre, lim, 24);
  fcd_series_destroy(s);
  if (st != FCD_OK) return fail(sys, st, "writing the mode's series");
  if (format) printf("series: %s/%s, %s\n", dir, name, format);
  else printf("series: %s/%s.pvd\n", dir, name);
  return 0;
}

/* --monitor DOF,DOF,...: distinct dofs of [0, n), each an index or LABEL:DOF through the
 * dof map of labelled matrices; 0, or -1 with the reason on stderr */
int cli_parse_monitor(const char *text, fcd_index n, fcd_index **out, fcd_index *count) {
  *out = NULL;
  *count = 0;
  if (!text) return 0;
  size_t len = strlen(text);
  fcd_index *d = malloc((len / 2 + 2) * sizeof *d);
  if (!d) return -1;
  const char *p = text;
  fcd_index k = 0;
  for (;;) {
    char *end;
    errno = 0;
    long long v = strtoll(p, &end, 10);
    if (end != p && !errno && *end == ':') { /* node label and dof */
      char *e2;
      long dof = strtol(end + 1, &e2, 10);
      fcd_index idx = -1;
      const fcd_dofmap *map = cli_dofmap();
      if (!map || e2 == end + 1 || (*e2 && *e2 != ',') ||
          fcd_dofmap_index(map, v, (int)dof, &idx) != FCD_OK) {
        fprintf(stderr, "fcd: --monitor %.*s: %s\n", (int)(e2 - p), p,
                map ? "not a (node label, dof) of the model's matrices"
                    : "LABEL:DOF needs matrices by node label");
        free(d);
        return -1;
      }
      v = idx;
      end = e2;
    }
    if (end == p || errno || v < 0 || v >= n || (*end && *end != ',')) {
      fprintf(stderr, "fcd: --monitor needs dofs of [0, %lld) (or LABEL:DOF) separated by "
              "commas, got '%s'\n",
              (long long)n, text);
      free(d);
      return -1;
    }
    for (fcd_index j = 0; j < k; j++)
      if (d[j] == v) {
        fprintf(stderr, "fcd: --monitor lists dof %lld twice\n", v);
        free(d);
        return -1;
      }
    d[k++] = (fcd_index)v;
    if (!*end) break;
    p = end + 1;
  }
  *out = d;
  *count = k;
  return 0;
}

/* ---- names from the library's registries ---- */

static const struct {
  const char *tag;
  fcd_family family;
} families[] = {{"@scheme", FCD_FAMILY_SCHEME},
                {"@solver", FCD_FAMILY_CONTACT_SOLVER},
                {"@format", FCD_FAMILY_MATRIX_FORMAT},
                {"@mesh-format", FCD_FAMILY_MESH_FORMAT},
                {"@eigen-path", FCD_FAMILY_EIGEN_PATH},
                {"@output-format", FCD_FAMILY_OUTPUT_FORMAT}};

/* the names of a family joined by sep into buf */
static const char *family_names(fcd_family family, const char *sep, char *buf, size_t cap) {
  size_t len = 0;
  buf[0] = 0;
  for (int k = 0; k < fcd_registry_count(family); k++) {
    const char *name = NULL;
    fcd_registry_entry(family, k, &name, NULL, NULL);
    int w = snprintf(buf + len, cap - len, "%s%s", k ? sep : "", name);
    if (w < 0 || (size_t)w >= cap - len) break;
    len += (size_t)w;
  }
  return buf;
}

const char *cli_opt_arg(const cli_opt *o) {
  static char bufs[sizeof families / sizeof families[0]][320];
  const char *at = strchr(o->arg, '@'); /* a tag ends the argument, after a prefix */
  for (size_t k = 0; at && k < sizeof families / sizeof families[0]; k++)
    if (!strcmp(at, families[k].tag)) {
      char names[256];
      snprintf(bufs[k], sizeof bufs[k], "%.*s%s", (int)(at - o->arg), o->arg,
               family_names(families[k].family, "|", names, sizeof names));
      return bufs[k];
    }
  return o->arg;
}

int cli_family_value(fcd_family family, const char *what, const char *name) {
  int v;
  if (fcd_registry_lookup(family, name, &v) == FCD_OK) return v;
  char buf[256];
  fprintf(stderr, "fcd: unknown %s '%s' (%s)\n", what, name,
          family_names(family, ", ", buf, sizeof buf));
  return -1;
}

int cli_interface_check(const options *o) {
  if (o->interface && strcmp(o->interface, "physical") && strcmp(o->interface, "relative")) {
    fprintf(stderr, "fcd: unknown --interface '%s' (physical, relative)\n", o->interface);
    return 1;
  }
  if (o->basis && strcmp(o->basis, "auto") && strcmp(o->basis, "stored") &&
      strcmp(o->basis, "factored")) {
    fprintf(stderr, "fcd: unknown --basis '%s' (auto, stored, factored)\n", o->basis);
    return 1;
  }
  return 0;
}

fcd_status cli_reduction(fcd_system *sys, fcd_contact_set *cs, const options *o, int modal,
                         double cut, double damping, fcd_reduction **red) {
  fcd_reduction_options ro;
  fcd_reduction_options_init(&ro);
  ro.nmodes = o->reduce;
  ro.ninertia = o->inertia;
  ro.modal = modal;
  ro.cut = cut;
  ro.damping = damping;
  /* the name was checked with the other options (cli_interface_check) */
  if (o->interface && !strcmp(o->interface, "relative")) ro.interface = FCD_INTERFACE_RELATIVE;
  if (o->basis)
    ro.basis = !strcmp(o->basis, "stored")     ? FCD_BASIS_STORED
               : !strcmp(o->basis, "factored") ? FCD_BASIS_FACTORED
                                               : FCD_BASIS_AUTO;
  ro.prescribed_shape = o->prescribed_shape != 0;
  ro.memory_limit = o->memory_limit > 0 ? o->memory_limit * 1073741824.0 : 0.0; /* GiB */
  return fcd_reduction_create_opts(sys, cs, &ro, red);
}

fcd_series *cli_series_create(fcd_system *sys, const fcd_mesh *m, const fcd_contact_set *cs,
                              const char *dir, const char *name, const char *format) {
  int fmt = format ? cli_family_value(FCD_FAMILY_OUTPUT_FORMAT, "--series-format", format)
                   : FCD_OUTPUT_VTU;
  if (fmt < 0) return NULL;
  fcd_series *s = NULL;
  fcd_status st = fcd_series_create(m, cs, dir, name, &s);
  if (st == FCD_OK && fmt != FCD_OUTPUT_VTU) st = fcd_series_set_format(s, fmt);
  if (st != FCD_OK) {
    fprintf(stderr, "fcd: --series %s: %s\n", dir, fcd_system_last_error(sys));
    fcd_series_destroy(s);
    return NULL;
  }
  return s;
}
