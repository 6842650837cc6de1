/* fcd info: sizes, symmetry and natural frequencies of a model. */
#include <fcd/fcd.h>

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static const cli_opt info_opts[] = {
    CLI_OPT_MODEL(1),
    CLI_OPT_FIXED,
    {CLI_NEV, "N", 0, "number of natural frequencies (default 6)"},
    CLI_OPT_END,
};
const cli_command cli_info = {
    "info", cmd_info, "", info_opts,
    "sizes, nonzeros, symmetry, whether M is SPD on the free dofs, and the\n"
    "lowest natural frequencies (Hz) of K phi = omega^2 M phi\n",
    NULL,
    CLI_MPI_NO};

int cmd_info(int argc, char **argv) {
  options o = {.nev = 6};
  if (parse_options(argc, argv, &o, &cli_info)) return 2;
  fcd_system *sys;
  int rc = load_system(&o, &sys);
  if (rc) return rc;
  rc = report(sys, o.nev, NULL, NULL);
  fcd_system_destroy(sys);
  return rc;
}


