/* The `fcd` command-line program: a thin user of the public API. This file dispatches to
 * the commands (one file each, cmd_*.c and demo.c) and prints their usage, which comes
 * from each command's declared options (cli.h). */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include <fcd/fcd.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#endif

#include "cli.h"

/* OpenBLAS' kernels for this CPU as its own detection would pick them, or NULL. Debian
 * 12's OpenBLAS (0.3.21) does not know the newest x86 models (Intel family 6 model 207,
 * Emerald Rapids) and falls back to its Prescott kernels, SSE3 only: a 1,500 x 1,500
 * dgemm at 11 Gflop/s on one core against 61.5 with its SkylakeX kernels, and every
 * factorization, eigensolver and projection of fcd slowed alike. The variable that
 * corrects it (OPENBLAS_CORETYPE) is read when the library loads, so the program sets
 * it and starts itself again. The kernels are chosen from what the CPU and the operating
 * system both enable (AVX-512 state in XCR0), as OpenBLAS chooses them. */
static const char *blas_kernels_wanted(void) {
#if defined(__x86_64__) && defined(__GNUC__)
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE) || !(c & bit_FMA)) return NULL;
  unsigned lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  (void)hi;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return NULL;
  if ((b & bit_AVX512F) && (lo & 0xe6) == 0xe6) return "SkylakeX";
  if ((b & bit_AVX2) && (lo & 0x6) == 0x6) return "Haswell";
#endif
  return NULL;
}

/* the BLAS' own name for the kernels it runs (OpenBLAS), or NULL for another BLAS */
static const char *blas_kernels(void) {
  char *(*corename)(void) = (char *(*)(void))dlsym(RTLD_DEFAULT, "openblas_get_corename");
  return corename ? corename() : NULL;
}

/* Restarts the program with OPENBLAS_CORETYPE set when OpenBLAS fell back to its
 * Prescott kernels on a CPU with AVX2 or AVX-512; a user's own setting is left alone */
static void blas_kernels_fix(char **argv) {
  const char *now = blas_kernels(), *want = blas_kernels_wanted();
  if (getenv("OPENBLAS_CORETYPE") || !now || !want || strcasecmp(now, "Prescott") != 0) return;
  /* the program's own file, as a tool that runs it (valgrind) reports it */
  char self[4096];
  ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  if (len <= 0 || (size_t)len >= sizeof self - 1) return;
  self[len] = 0;
  if (setenv("OPENBLAS_CORETYPE", want, 1) != 0) return;
  execv(self, argv); /* returns only on failure: go on as we are */
}

static const cli_command *const commands[] = {&cli_info,      &cli_solve,     &cli_simulate,
                                              &cli_equilibrium, &cli_stability, &cli_periodic,
                                              &cli_lattice, &cli_demo};
enum { NCOMMANDS = sizeof commands / sizeof commands[0] };

/* prints TEXT with every line indented by IND spaces */
static void indented(FILE *to, const char *text, int ind) {
  while (*text) {
    const char *nl = strchr(text, '\n');
    int len = nl ? (int)(nl - text) : (int)strlen(text);
    fprintf(to, "%*s%.*s\n", ind, "", len, text);
    text += len + (nl ? 1 : 0);
  }
}

/* "fcd NAME OPERANDS --req ARG [--opt ARG] ...", wrapped at 88 columns */
static void synopsis(FILE *to, const cli_command *c, const char *lead) {
  int col = fprintf(to, "%sfcd %s%s%s", lead, c->name, *c->operands ? " " : "", c->operands);
  for (const cli_opt *o = c->opts; o->id != CLI_END; o++) {
    char item[160];
    snprintf(item, sizeof item, "%s%s%s%s%s", o->required ? "" : "[", cli_option_name(o->id),
             *o->arg ? " " : "", cli_opt_arg(o), o->required ? "" : "]");
    if (col + 1 + (int)strlen(item) > 88) {
      fprintf(to, "\n       ");
      col = 7;
    }
    col += fprintf(to, " %s", item);
  }
  fputc('\n', to);
}

static void usage(FILE *to) {
  fprintf(to, "usage: fcd <command> [options]   (fcd <command> --help: its options)\n\ncommands:\n");
  for (int k = 0; k < NCOMMANDS; k++) {
    synopsis(to, commands[k], "  ");
    indented(to, commands[k]->about, 8);
  }
  fprintf(to, "  fcd help [command]   this text, or a command's\n"
              "  fcd --version        the library version and features\n"
              "\n"
              "An option's value follows it after a space or an '='. Matrix files are\n"
              "Matrix Market 'coordinate real|integer general|symmetric'. A --fixed FILE holds\n"
              "one 0-based dof per line, optionally followed by its prescribed value.\n");
}

static const cli_command *find_command(const char *name) {
  for (int k = 0; k < NCOMMANDS; k++)
    if (strcmp(commands[k]->name, name) == 0) return commands[k];
  return NULL;
}

/* `fcd CMD --help`: the synopsis, what the command does and each option's meaning */
static int usage_for(const char *name) {
  const cli_command *c = find_command(name);
  if (!c) return 0;
  synopsis(stdout, c, "usage: ");
  printf("\n");
  indented(stdout, c->about, 0);
  if (c->details) {
    printf("\n");
    indented(stdout, c->details, 0);
  }
  printf("\noptions:\n");
  for (const cli_opt *o = c->opts; o->id != CLI_END; o++) {
    char head[96];
    snprintf(head, sizeof head, "%s%s%s", cli_option_name(o->id), *o->arg ? " " : "", cli_opt_arg(o));
    printf("  %-26s %s%s\n", head, o->help, o->required ? " (required)" : "");
  }
  printf("\n(every command: 'fcd help'; the manual: 'man fcd')\n");
  return 1;
}

int main(int argc, char **argv) {
  blas_kernels_fix(argv);
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  const char *cmd = argv[1];
  /* `fcd CMD --help` prints CMD's usage; `--opt=value` is `--opt value` (GNU form) */
  for (int i = 2; i < argc; i++)
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      if (usage_for(cmd)) return 0;
      break;
    }
  char **av = malloc(2 * (size_t)argc * sizeof *av + sizeof *av);
  if (!av) {
    fprintf(stderr, "fcd: out of memory\n");
    return 1;
  }
  int ac = 0;
  for (int i = 0; i < argc; i++) {
    char *eq = i >= 2 && strncmp(argv[i], "--", 2) == 0 ? strchr(argv[i], '=') : NULL;
    if (eq) {
      *eq = 0; /* argv's strings are the program's to modify */
      av[ac++] = argv[i];
      av[ac++] = eq + 1;
    } else {
      av[ac++] = argv[i];
    }
  }
  av[ac] = NULL;
  int rc;
  const cli_command *c = find_command(cmd);
  cli_mpi_start(&argc, &argv);
  if (cli_nranks > 1 && c && c->mpi == CLI_MPI_NO) {
    /* the other commands would compute the same thing on every rank */
    if (cli_rank == 0) {
      fprintf(stderr, "fcd: %s does not run on several MPI ranks (", cmd);
      for (int k = 0, m = 0; k < NCOMMANDS; k++)
        if (commands[k]->mpi != CLI_MPI_NO)
          fprintf(stderr, "%s%s", m++ ? ", " : "", commands[k]->name);
      fprintf(stderr, " do); run it without mpiexec\n");
    }
    rc = 2;
  } else if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
    const char *k = blas_kernels();
    printf("fcd %s\nfeatures: %s\n", fcd_version_string(), fcd_features());
    if (k) printf("blas: OpenBLAS, %s kernels\n", k);
    rc = 0;
  } else if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
    if (ac >= 3 && strcmp(av[2], "--roff") == 0) cli_print_roff(stdout, commands, NCOMMANDS);
    else if (!(ac >= 3 && usage_for(av[2]))) usage(stdout);
    rc = 0;
  } else if (c) {
    rc = c->run(ac - 2, av + 2);
    cli_release_matrices();
  } else {
    fprintf(stderr, "fcd: unknown command '%s'\n\n", cmd);
    usage(stderr);
    rc = 2;
  }
  fcd_finalize();
  cli_mpi_stop();
  free(av);
  return rc;
}
