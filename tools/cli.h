/* The fcd program's commands and what they share. Every option is declared once in the
 * option table of cli.c (its name, the kind of its value, its field in `options`); each
 * command lists the options it takes with their argument and help (`cli_opt`), and the
 * parser, `fcd help` and `fcd CMD --help` are all driven by those lists. */
#ifndef FCD_TOOLS_CLI_H
#define FCD_TOOLS_CLI_H

#include <fcd/fcd.h>

#include <stdio.h>

static const double PI = 3.14159265358979323846;
/* fcd stability: reduced pencils up to this size are solved whole (LAPACK), larger
 * ones for the --nev pairs nearest --target-hz (SLEPc) */
enum { CLI_DENSE_MAX = 400 };

/* The parsed options of any command; a command sets its defaults before parsing. */
typedef struct {
  const char *mass, *stiffness, *fixed, *out, *solver, *write;
  const char *damping, *rayleigh, *load, *contacts, *scheme, *u0, *v0;
  const char *kind, *reference, *displacements;
  const char *state, *mu_sweep, *plot, *mu_text;
  const char *mesh, *vtk; /* a legacy VTK mesh and the directory of VTK output */
  const char *rect, *tri, *defect, *method; /* fcd lattice */
  const char *monitor;                      /* fcd simulate: DOF,DOF,... */
  const char *perturb_text;                 /* fcd simulate: a mode index */
  long estimate_modes;                      /* fcd stability: -1 default */
  double amplitude;
  int steady, undamped, count_only;
  double target_hz;
  long nev, max_iter;
  double tol, dt, t_end, theta, restitution;
  double k, c0, s, h, rate, spacing; /* fcd lattice's springs and loading */
} options;

/* An option as a command takes it: its name (from the option table), the argument shown
 * in the usage ("" for a flag), 1 when the command needs it, and what it means there. */
typedef struct {
  const char *name, *arg;
  int required;
  const char *help;
} cli_opt;

/* A command: its name, operands before the options ("" for none), the options it takes
 * (ending with a NULL name), what it does (usage text; lines end with '\n'). */
typedef struct {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *operands;
  const cli_opt *opts;
  const char *about;
} cli_command;

/* the options several commands take, with one meaning everywhere */
#define CLI_OPT_MODEL(mass_required)                                                        \
  {"--mass", "M.mtx", mass_required, "mass matrix (Matrix Market or PETSc binary)"},        \
      {"--stiffness", "K.mtx", 1, "stiffness matrix"}
#define CLI_OPT_DAMPING                                                                     \
  {"--damping", "C.mtx", 0, "damping matrix"},                                              \
      {"--rayleigh", "A,B", 0, "Rayleigh damping C = A M + B K (instead of --damping)"}
#define CLI_OPT_FIXED                                                                       \
  {"--fixed", "FILE", 0, "prescribed dofs: one 0-based dof per line, optionally its value"}
#define CLI_OPT_LOAD {"--load", "f.txt", 0, "constant load, one value per dof"}
#define CLI_OPT_CONTACTS {"--contacts", "FILE", 1, "contact file (docs/file-formats.md)"}
#define CLI_OPT_MESH                                                                        \
  {"--mesh", "mesh.vtk", 0, "a legacy VTK mesh of the model (node p owns dofs dim p ..)"}

extern const cli_command cli_info, cli_solve, cli_simulate, cli_equilibrium, cli_stability,
    cli_lattice, cli_demo;

/* parses argv (the command's arguments after its operands) into o, accepting the
 * options of cmd; 0, or -1 with the reason on stderr */
int parse_options(int argc, char **argv, options *o, const cli_command *cmd);
/* 0, or -1 (the reason on stderr) when an output path names the same file as an input
 * (operand: an input the command took before its options, or NULL) or as another output;
 * parse_options calls it on the options */
int cli_check_paths(const options *o, const char *operand_name, const char *operand);
int parse_real(const char *opt, const char *v, double *x);

/* prints "fcd: WHAT: <the system's message> (<status>)"; returns 1 */
int fail(fcd_system *sys, fcd_status st, const char *what);
void print_matrix(fcd_system *sys, fcd_matrix_kind k, const char *name);
int report(fcd_system *sys, long nev, double *freq_hz, long *nfound);
/* distribute: on several MPI ranks, split the rows evenly (fcd_system_set_distribution);
 * rank 0 then reads a Matrix Market file and sends each rank its rows, and every rank
 * reads its own rows of a PETSc binary file */
int load_system_opt(const options *o, int need_mass, int distribute, fcd_system **out);
/* Matrix `which` from a PETSc binary file (told by its first bytes) or Matrix Market: 0,
 * or 1 with the reason on stderr. On a distributed system every rank returns the same,
 * rank 0's file deciding the format. (cli_: libfclib exports a read_matrix of its own,
 * which a global of that name in this program would replace inside fclib.) */
int cli_read_matrix(fcd_system *sys, fcd_matrix_kind which, const char *path);
/* the same, silent, as a status: another rank's failure of a distributed read is this
 * rank's too */
fcd_status cli_read_matrix_status(fcd_system *sys, fcd_matrix_kind which, const char *path);

/* ---- MPI (mpi_run.c): rank 0 of 1 unless the process was started by mpiexec ---- */
extern int cli_rank, cli_nranks;
extern long long cli_comm_f; /* MPI_COMM_WORLD's Fortran handle; -1 without MPI */
void cli_mpi_start(int *argc, char ***argv);
void cli_mpi_stop(void);
/* The largest exit status of all ranks (each rank passes its own): after any step that
 * can fail on one rank only, so that none goes on into a collective call alone. */
int cli_agree(int rc);
/* rank 0's n values on every rank (nothing on one rank) */
void cli_bcast(long long *v, int n);
/* this rank's even share [begin, end) of n rows */
void cli_rows(long long n, long long *begin, long long *end);
int load_system(const options *o, fcd_system **out);
int write_text(const char *path, const char *text);
void print_certificate(const char *what, const fcd_certificate *c);
fcd_status read_damping_load(const options *o, fcd_system *sys, fcd_index n, double *f,
                             int *usage_error);
int vtk_prepare(const options *o);
int vtk_write(fcd_system *sys, const fcd_mesh *m, const char *dir, const char *name,
              fcd_index nfields, const char *const *names, const double *const *fields,
              const fcd_contact_set *cs, const int *status);

int cmd_info(int argc, char **argv);
int cmd_solve(int argc, char **argv);
int cmd_simulate(int argc, char **argv);
int cmd_equilibrium(int argc, char **argv);
int cmd_stability(int argc, char **argv);
int cmd_lattice(int argc, char **argv);
int cmd_demo(int argc, char **argv);

#endif
