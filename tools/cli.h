/* The fcd program's commands and what they share. Every option is declared once, in
 * CLI_OPTIONS below; each command lists the options it takes by id with their argument
 * and help (`cli_opt`), and the parser, `fcd help`, `fcd CMD --help` and the manual page
 * are all generated from those lists. */
#ifndef FCD_TOOLS_CLI_H
#define FCD_TOOLS_CLI_H

#include <fcd/fcd.h>

#include <stdio.h>

static const double PI = 3.14159265358979323846;
/* fcd stability: reduced pencils up to this size are solved whole (LAPACK), larger
 * ones for the --nev pairs nearest --target-hz (SLEPc) */
enum { CLI_DENSE_MAX = 400 };

/* Every option of the program, declared here once: X(ID, name, kind, role, field).
 * The list generates the `options` struct, the parser's table (cli.c), the ids that each
 * command's list names (a misspelt option does not compile) and, through the commands'
 * lists, `fcd help`, `fcd CMD --help` and the manual page (`fcd help --roff`, run at build
 * time). kind: FLAG (int), TEXT (const char *), REAL (double), POS_REAL (double > 0),
 * POS_INT (long >= 1), NONNEG_INT (long >= 0). role: a path the command reads (IN),
 * writes (OUT), writes into (OUT_DIR), or no path (NONE): outputs over inputs are refused. */
#define CLI_OPTIONS(X)                                                                      \
  X(MASS, "--mass", TEXT, IN, mass)                                                         \
  X(STIFFNESS, "--stiffness", TEXT, IN, stiffness)                                          \
  X(DAMPING, "--damping", TEXT, IN, damping)                                                \
  X(RAYLEIGH, "--rayleigh", TEXT, NONE, rayleigh)                                           \
  X(FIXED, "--fixed", TEXT, IN, fixed)                                                      \
  X(LOAD, "--load", TEXT, IN, load)                                                         \
  X(CONTACTS, "--contacts", TEXT, IN, contacts)                                             \
  X(MESH, "--mesh", TEXT, IN, mesh)                                                         \
  X(VTK, "--vtk", TEXT, OUT_DIR, vtk)                                                       \
  X(SERIES, "--series", TEXT, OUT_DIR, series)                                              \
  X(VTK_BINARY, "--vtk-binary", FLAG, NONE, vtk_binary)                                     \
  X(EVERY, "--every", POS_INT, NONE, every)                                                 \
  X(OUT, "--out", TEXT, OUT, out)                                                           \
  X(SOLVER, "--solver", TEXT, NONE, solver)                                                 \
  X(WRITE, "--write", TEXT, OUT, write)                                                     \
  X(SCHEME, "--scheme", TEXT, NONE, scheme)                                                 \
  X(U0, "--u0", TEXT, IN, u0)                                                               \
  X(V0, "--v0", TEXT, IN, v0)                                                               \
  X(KIND, "--kind", TEXT, NONE, kind)                                                       \
  X(REFERENCE, "--reference", TEXT, IN, reference)                                          \
  X(DISPLACEMENTS, "--displacements", TEXT, OUT, displacements)                             \
  X(STATE, "--state", TEXT, IN, state)                                                      \
  X(STEADY_SLIDING, "--steady-sliding", FLAG, NONE, steady)                                 \
  X(MU, "--mu", TEXT, NONE, mu_text)                                                        \
  X(MU_SWEEP, "--mu-sweep", TEXT, NONE, mu_sweep)                                           \
  X(PLOT, "--plot", TEXT, OUT, plot)                                                        \
  X(TARGET_HZ, "--target-hz", REAL, NONE, target_hz)                                        \
  X(NEV, "--nev", POS_INT, NONE, nev)                                                       \
  X(UNDAMPED, "--undamped", FLAG, NONE, undamped)                                           \
  X(ESTIMATE_MODES, "--estimate-modes", NONNEG_INT, NONE, estimate_modes)                   \
  X(REDUCE, "--reduce", NONNEG_INT, NONE, reduce)                                           \
  X(MODAL, "--modal", FLAG, NONE, modal)                                                     \
  X(INERTIA, "--inertia", NONNEG_INT, NONE, inertia)                                        \
  X(DT, "--dt", REAL, NONE, dt)                                                             \
  X(T_END, "--t-end", REAL, NONE, t_end)                                                    \
  X(PERIOD, "--period", POS_REAL, NONE, period)                                             \
  X(FOLLOW, "--follow", TEXT, NONE, follow)                                                 \
  X(BRANCH, "--branch", TEXT, OUT, branch)                                                  \
  X(HARMONIC, "--harmonic", TEXT, IN, harmonic)                                             \
  X(OMEGA, "--omega", POS_REAL, NONE, omega)                                                \
  X(SWEEP, "--sweep", TEXT, NONE, sweep)                                                    \
  X(THETA, "--theta", REAL, NONE, theta)                                                    \
  X(RESTITUTION, "--restitution", REAL, NONE, restitution)                                  \
  X(TOL, "--tol", POS_REAL, NONE, tol)                                                      \
  X(MAX_ITER, "--max-iter", POS_INT, NONE, max_iter)                                        \
  X(MONITOR, "--monitor", TEXT, NONE, monitor)                                              \
  X(PERTURB_MODE, "--perturb-mode", TEXT, NONE, perturb_text)                               \
  X(AMPLITUDE, "--amplitude", REAL, NONE, amplitude)                                        \
  X(RECT, "--rect", TEXT, NONE, rect)                                                       \
  X(TRI, "--tri", TEXT, NONE, tri)                                                          \
  X(DEFECT, "--defect", TEXT, NONE, defect)                                                 \
  X(METHOD, "--method", TEXT, NONE, method)                                                 \
  X(ITERATION, "--iteration", TEXT, NONE, iteration)                                        \
  X(COUNT_ONLY, "--count-only", FLAG, NONE, count_only)                                     \
  X(K, "--k", REAL, NONE, k)                                                                \
  X(C0, "--c0", REAL, NONE, c0)                                                             \
  X(S, "--s", REAL, NONE, s)                                                                \
  X(H, "--h", REAL, NONE, h)                                                                \
  X(RATE, "--rate", REAL, NONE, rate)                                                       \
  X(SPACING, "--spacing", REAL, NONE, spacing)                                              \
  X(CUT, "--cut", REAL, NONE, cut)                                                          \
  X(BAND_DAMPING, "--band-damping", REAL, NONE, band_damping)                              \
  X(WRITE_DOFS, "--write-dofs", TEXT, OUT, write_dofs)                                    \
  X(FORMAT, "--format", TEXT, NONE, format)                                                \
  X(SERIES_FORMAT, "--series-format", TEXT, NONE, series_format)                           \
  X(EIGEN_PATH, "--eigen-path", TEXT, NONE, eigen_path)                                  \
  X(INTERFACE, "--interface", TEXT, NONE, interface)                                       \
  X(BASIS, "--basis", TEXT, NONE, basis)                                                   \
  X(PRESCRIBED_SHAPE, "--prescribed-shape", FLAG, NONE, prescribed_shape)                  \
  X(MEMORY_LIMIT, "--memory-limit", POS_REAL, NONE, memory_limit)

#define CLI_CTYPE_FLAG int
#define CLI_CTYPE_TEXT const char *
#define CLI_CTYPE_REAL double
#define CLI_CTYPE_POS_REAL double
#define CLI_CTYPE_POS_INT long
#define CLI_CTYPE_NONNEG_INT long

/* The parsed options of any command; a command sets its defaults before parsing. */
#define CLI_FIELD_(id, name, kind, role, field) CLI_CTYPE_##kind field;
typedef struct {
  CLI_OPTIONS(CLI_FIELD_)
} options;
#undef CLI_FIELD_

#define CLI_ID_(id, name, kind, role, field) CLI_##id,
typedef enum { CLI_OPTIONS(CLI_ID_) CLI_NOPTIONS, CLI_END = -1 } cli_option_id;
#undef CLI_ID_

/* the name of an option, "--mass" for CLI_MASS */
const char *cli_option_name(cli_option_id id);

/* An option as a command takes it: its id, the argument shown in the usage ("" for a
 * flag), 1 when the command needs it, and what it means there. */
typedef struct {
  cli_option_id id;
  const char *arg;
  int required;
  const char *help;
} cli_opt;

/* An option's argument as the usage shows it: "@scheme", "@solver", "@format",
 * "@mesh-format", "@eigen-path" and "@output-format" stand for the names of that family of the library's registry
 * (fcd/fcd_registry.h), joined by '|'; any other argument as it is. */
const char *cli_opt_arg(const cli_opt *o);
/* The value of name in a family of the registry; -1 after a message naming what it is
 * and listing the family's names. */
int cli_family_value(fcd_family family, const char *what, const char *name);
/* The reduction that --reduce MODES, --inertia P and --interface physical|relative ask
 * for, in modal coordinates or not, with the band's cut and damping ratio
 * (fcd_reduction_create_opts' status) */
fcd_status cli_reduction(fcd_system *sys, fcd_contact_set *cs, const options *o, int modal,
                         double cut, double damping, fcd_reduction **red);
/* --interface's name checked: 0, or 1 after a message naming it */
int cli_interface_check(const options *o);
/* a series in dir named name, in the format --series-format names (NULL: the default);
 * NULL after a message */
fcd_series *cli_series_create(fcd_system *sys, const fcd_mesh *m, const fcd_contact_set *cs,
                              const char *dir, const char *name, const char *format);

/* How a command runs under mpiexec: not at all (the others would compute the same thing
 * on every rank), each rank with its share of the rows, or the whole model on every rank
 * with the work shared. */
typedef enum { CLI_MPI_NO = 0, CLI_MPI_ROWS, CLI_MPI_REPLICATED } cli_mpi;

/* A command: its name, operands before the options ("" for none), the options it takes
 * (ending with CLI_END), what it does in a few lines (`fcd help`), and what `fcd CMD
 * --help` and the manual add (its outputs, its messages; NULL for nothing; both texts'
 * lines end with '\n'); how it runs under MPI. */
typedef struct {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *operands;
  const cli_opt *opts;
  const char *about;
  const char *details;
  cli_mpi mpi;
} cli_command;

/* the options several commands take, with one meaning everywhere */
#define CLI_OPT_MODEL(mass_required)                                                        \
  {CLI_MASS, "M.mtx", mass_required,                                                        \
   "mass matrix: Matrix Market, PETSc binary, Harwell-Boeing (ANSYS HBMAT), Abaqus matrix "  \
   "output, Nastran DMIG or OP4; told from the content (FILE:NAME picks one of several)"},  \
      {CLI_STIFFNESS, "K.mtx", 1, "stiffness matrix"},                                      \
      {CLI_WRITE_DOFS, "FILE", 0,                                                           \
       "write the map of the matrices' (node label, dof) pairs to fcd's dof indices"},      \
      {CLI_FORMAT, "NAME", 0,                                                               \
       "read the matrices as this format instead of telling it from their content "        \
       "(matrix-market, harwell-boeing, abaqus-matrix, abaqus-coordinate, nastran-dmig, "  \
       "nastran-op4)"}
#define CLI_OPT_DAMPING                                                                     \
  {CLI_DAMPING, "C.mtx", 0, "damping matrix"},                                              \
      {CLI_RAYLEIGH, "A,B", 0, "Rayleigh damping C = A M + B K (instead of --damping)"}
#define CLI_OPT_FIXED                                                                       \
  {CLI_FIXED, "FILE", 0, "prescribed dofs: one 0-based dof per line, optionally its value"}
#define CLI_OPT_LOAD {CLI_LOAD, "f.txt", 0, "constant load, one value per dof"}
#define CLI_OPT_CONTACTS {CLI_CONTACTS, "FILE", 1, "contact file (docs/file-formats.md)"}
#define CLI_OPT_MESH                                                                        \
  {CLI_MESH, "mesh.vtk", 0,                                                                \
   "the model's mesh: legacy VTK, VTK XML, Gmsh, Abaqus .inp or Nastran bulk data, told "  \
   "from the content; its named surfaces pair in the contact file (docs/import.md)"}
#define CLI_OPT_END {CLI_END, NULL, 0, NULL}

extern const cli_command cli_info, cli_solve, cli_simulate, cli_equilibrium, cli_stability,
    cli_lattice, cli_demo, cli_periodic;

/* parses argv (the command's arguments after its operands) into o, accepting the
 * options of cmd; 0, or -1 with the reason on stderr */
int parse_options(int argc, char **argv, options *o, const cli_command *cmd);
/* 0, or -1 (the reason on stderr) when an output path names the same file as an input
 * (operand: an input the command took before its options, or NULL) or as another output;
 * parse_options calls it on the options */
int cli_check_paths(const options *o, const cli_command *cmd, const char *operand_name,
                    const char *operand);
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
/* the matrix files and the dof map a model's loading kept */
void cli_release_matrices(void);
/* the dof map of the run's labelled matrices, or NULL */
const fcd_dofmap *cli_dofmap(void);
/* --monitor DOF,DOF,...: distinct dofs of [0, n), each an index or LABEL:DOF through the
 * dof map; 0, or -1 with the reason on stderr (*out malloc'ed) */
int cli_parse_monitor(const char *text, fcd_index n, fcd_index **out, fcd_index *count);
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
/* mode NAME animated over one period, DIR/NAME.pvd and its frames; 0 or 1 */
int series_mode_write(fcd_system *sys, const fcd_mesh *m, const char *dir, const char *name,
                      const char *format, const double *re, const double *im, double lre,
                      double lim);
int vtk_write(fcd_system *sys, const fcd_mesh *m, const char *dir, const char *name,
              fcd_index nfields, const char *const *names, const double *const *fields,
              const fcd_contact_set *cs, const int *status);

/* the manual's COMMANDS section and MPI list, in roff (manpage.c) */
void cli_print_roff(FILE *to, const cli_command *const *cmds, int n);

int cmd_info(int argc, char **argv);
int cmd_solve(int argc, char **argv);
int cmd_simulate(int argc, char **argv);
int cmd_equilibrium(int argc, char **argv);
int cmd_stability(int argc, char **argv);
int cmd_lattice(int argc, char **argv);
int cmd_demo(int argc, char **argv);

#endif
