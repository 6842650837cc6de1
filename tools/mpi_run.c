/* The CLI under mpiexec: MPI is started only when a launcher started this process (so a
 * plain `fcd ...` never starts MPI, which could abort without a launcher's daemon), the
 * ranks agree on every step that can fail locally before a collective one, and rank 0
 * alone writes files and prints. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

int cli_rank = 0, cli_nranks = 1;
long long cli_comm_f = -1;
static int started;

void cli_mpi_start(int *argc, char ***argv) {
  /* Open MPI, MPICH (Hydra) and PMIx launchers each set one of these */
  if (!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMI_SIZE") && !getenv("PMIX_RANK")) return;
  int up = 0;
  MPI_Initialized(&up);
  if (!up && MPI_Init(argc, argv) != MPI_SUCCESS) return;
  started = !up;
  MPI_Comm_rank(MPI_COMM_WORLD, &cli_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &cli_nranks);
  cli_comm_f = (long long)MPI_Comm_c2f(MPI_COMM_WORLD);
  /* one voice: the ranks compute the same results; their output would repeat rank 0's
   * (should /dev/null not open, the repetition is all that is lost) */
  if (cli_rank > 0 && !freopen("/dev/null", "w", stdout)) {
  }
}

void cli_mpi_stop(void) {
  if (started) MPI_Finalize();
}

int cli_agree(int rc) {
  if (cli_nranks == 1) return rc;
  int worst = rc;
  MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (worst && !rc)
    fprintf(stderr, "fcd: rank %d stops: another rank failed (its message above)\n", cli_rank);
  return worst;
}

void cli_bcast(long long *v, int n) {
  if (cli_nranks > 1) MPI_Bcast(v, n, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
}

void cli_rows(long long n, long long *begin, long long *end) {
  *begin = n * cli_rank / cli_nranks;
  *end = n * (cli_rank + 1) / cli_nranks;
}
