/* fcd solve: an fclib frictional contact problem. */
#include <fcd/fcd.h>

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "outfile.h"

static const cli_opt solve_opts[] = {
    {CLI_SOLVER, "@solver", 0, "contact solver (default auto)"},
    {CLI_TOL, "X", 0, "tolerance on Siconos' residual (default 1e-8)"},
    {CLI_MAX_ITER, "N", 0, "iteration cap (default 10000)"},
    {CLI_WRITE, "OUT.hdf5", 0, "write the problem and its solution (fclib)"},
    CLI_OPT_END,
};
const cli_command cli_solve = {
    "solve", cmd_solve, "FILE.hdf5", solve_opts,
    "solves an fclib frictional contact problem (local or global); the last\n"
    "line is 'solved: contacts=N iterations=K residual=R seconds=T', or\n"
    "'not solved: ...' with the residual reached (exit status 3)\n",
    NULL,
    CLI_MPI_NO};

int cmd_solve(int argc, char **argv) {
  if (argc < 1 || argv[0][0] == '-') {
    fprintf(stderr, "fcd: solve needs an fclib file (see 'fcd help')\n");
    return 2;
  }
  const char *path = argv[0];
  options o = {.solver = "auto", .tol = 1e-8, .max_iter = 10000};
  if (parse_options(argc - 1, argv + 1, &o, &cli_solve) ||
      cli_check_paths(&o, &cli_solve, "the problem file", path))
    return 2;
  int solver = cli_family_value(FCD_FAMILY_CONTACT_SOLVER, "solver", o.solver);
  if (solver < 0) return 2;
  char msg[1024];
  fcd_fc_problem *p;
  fcd_status st = fcd_fc_problem_read_fclib(path, &p, msg, sizeof msg);
  if (st != FCD_OK) {
    fprintf(stderr, "fcd: %s (%s)\n", msg, fcd_status_str(st));
    return 1;
  }
  fcd_index nc = fcd_fc_problem_size(p), m = nc * fcd_fc_problem_dim(p);
  fcd_index ndofs = fcd_fc_problem_ndofs(p);
  printf("problem: %s: %s %dD, %lld contacts", path, ndofs ? "global" : "local",
         fcd_fc_problem_dim(p), (long long)nc);
  if (ndofs) printf(", %lld dofs", (long long)ndofs);
  printf("\nsolver: %s, tolerance %g, at most %ld iterations\n", fcd_registry_name(FCD_FAMILY_CONTACT_SOLVER, solver), o.tol,
         o.max_iter);
  const int keys[3] = {FCD_FC_PARAM_SOLVER, FCD_FC_PARAM_TOLERANCE, FCD_FC_PARAM_MAX_ITER};
  const double vals[3] = {solver, o.tol, (double)o.max_iter};
  for (int k = 0; k < 3; k++)
    if ((st = fcd_fc_problem_set_param(p, keys[k], vals[k])) != FCD_OK) {
      fprintf(stderr, "fcd: %s\n", fcd_fc_problem_last_error(p));
      fcd_fc_problem_destroy(p);
      return 1;
    }
  double *r = calloc((size_t)(m ? m : 1), sizeof *r);
  double *ref = calloc((size_t)(m ? m : 1), sizeof *ref);
  if (!r || !ref) {
    free(r);
    free(ref);
    fcd_fc_problem_destroy(p);
    return fail(NULL, FCD_E_NOMEM, "out of memory");
  }
  st = fcd_fc_problem_solve(p, r, NULL, NULL);
  int rc = 0;
  if (st == FCD_E_NOT_CONVERGED) {
    fprintf(stderr, "fcd: %s\n", fcd_fc_problem_last_error(p));
    fcd_fc_problem_get_iterate(p, r);
    rc = 3;
  } else if (st != FCD_OK) {
    fprintf(stderr, "fcd: %s (%s)\n", fcd_fc_problem_last_error(p), fcd_status_str(st));
    free(r);
    free(ref);
    fcd_fc_problem_destroy(p);
    return 1;
  }
  fcd_index iters;
  double res, secs;
  fcd_fc_problem_get_result(p, &iters, &res, &secs);
  if (fcd_fc_problem_has_solution(p) && fcd_fc_problem_get_solution(p, ref) == FCD_OK) {
    double d2 = 0, n2 = 0, rref = 0;
    for (fcd_index i = 0; i < m; i++) {
      d2 += (r[i] - ref[i]) * (r[i] - ref[i]);
      n2 += ref[i] * ref[i];
    }
    fcd_fc_problem_residual(p, ref, &rref);
    printf("reference solution: distance=%.6e relative=%.6e (its residual %.3e)\n", sqrt(d2),
           n2 > 0 ? sqrt(d2 / n2) : sqrt(d2), rref);
  }
  if (o.write && rc == 0) {
    out_file wf;
    if (out_reserve(&wf, o.write)) rc = 1;
    else if ((st = fcd_fc_problem_write_fclib(p, wf.tmp, r)) != FCD_OK) {
      fprintf(stderr, "fcd: %s\n", fcd_fc_problem_last_error(p));
      out_discard(&wf);
      rc = 1;
    } else if (out_commit(&wf)) {
      rc = 1;
    }
  }
  fcd_certificate cert;
  if (rc == 0 && fcd_fc_problem_get_certificate(p, &cert) == FCD_OK)
    print_certificate("certificate", &cert);
  /* a run that did not converge must not read as solved to a script grepping the line */
  printf("%ssolved: contacts=%lld iterations=%lld residual=%.6e seconds=%.6f\n",
         rc == 3 ? "not " : "", (long long)nc, (long long)iters, res, secs);
  free(r);
  free(ref);
  fcd_fc_problem_destroy(p);
  return rc;
}


