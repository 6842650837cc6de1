/* fcd equilibrium: static and steady-sliding equilibria. */
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

static const cli_opt equilibrium_opts[] = {
    CLI_OPT_MODEL(0),
    CLI_OPT_FIXED,
    CLI_OPT_LOAD,
    CLI_OPT_CONTACTS,
    {CLI_MESH, "mesh.vtk", 0, "the mesh the contact file's surface pairs refer to; also names "
                              "the motion when no equilibrium exists"},
    {CLI_KIND, "static|steady-sliding", 0, "static (default), or steady sliding along -vg of every contact"},
    {CLI_REFERENCE, "u.txt", 0, "displacements friction is measured from (default zero)"},
    {CLI_TOL, "X", 0, "tolerance of the contact solve"},
    {CLI_MAX_ITER, "N", 0, "iteration cap of the contact solve"},
    {CLI_OUT, "state.csv", 1, "one row per contact: contact,status,slip_t,slip_b,set,r_n,r_t,r_b,u_n"},
    {CLI_DISPLACEMENTS, "u.txt", 0, "the equilibrium displacements, one per line"},
    CLI_OPT_END,
};
const cli_command cli_equilibrium = {
    "equilibrium", cmd_equilibrium, "", equilibrium_opts,
    "a static or steady-sliding equilibrium with unilateral contact and Coulomb\n"
    "friction; its state file feeds 'fcd stability --state'\n",
    "Static equilibrium (friction measured from the reference displacements, zero by\n"
    "default) or steady sliding along -vg of every contact. When no equilibrium exists (a\n"
    "body its contacts cannot hold) the message names the mechanism: separation, tipping\n"
    "about an edge or gross slip, with the motion as a translation or rotation when the\n"
    "mesh gives the node coordinates.\n",
    CLI_MPI_ROWS};

/* The solved state: state.csv (and the displacements) on rank 0, which holds the whole
 * result as every rank does, then the certificate and summary lines. 0 or 1. */
static int write_state(fcd_system *sys, fcd_equilibrium *eq, const fcd_contact_set *cs,
                       const options *o, double *u) {
  fcd_index n = fcd_system_ndofs(sys), nc = fcd_contact_set_size(cs);
  int d = fcd_contact_set_dim(cs), rc = 0;
  double *r = calloc((size_t)(nc * d) + 1, sizeof *r);
  double *sd = calloc((size_t)(nc * (d - 1)) + 1, sizeof *sd);
  int *set = calloc((size_t)nc + 1, sizeof *set);
  int *status = calloc((size_t)nc + 1, sizeof *status);
  double *loc = calloc((size_t)(nc * d) + 1, sizeof *loc);
  if (!r || !sd || !set || !status || !loc) {
    rc = fail(sys, FCD_E_NOMEM, "writing the state");
    goto out;
  }
  fcd_equilibrium_get_state(eq, u);
  fcd_equilibrium_get_reactions(eq, r);
  fcd_equilibrium_get_contact_sets(eq, set);
  fcd_equilibrium_get_contact_state(eq, status, sd);
  fcd_contact_set_local(cs, u, loc);
  if (cli_rank > 0) goto out;
  out_file eqf;
  FILE *csv = out_open(&eqf, o->out);
  if (!csv) {
    rc = 1;
    goto out;
  }
  static const char *const st_name[] = {"open", "stick", "slip"};
  static const char *const set_name[] = {"separated", "grazing", "stick", "slip"};
  fprintf(csv, "contact,status,slip_t,slip_b,set,r_n,r_t,r_b,u_n\n");
  int cnt[3] = {0, 0, 0};
  for (fcd_index c = 0; c < nc; c++) {
    cnt[status[c]]++;
    fprintf(csv, "%lld,%s,%.17g,%.17g,%s,%.17g,%.17g,%.17g,%.17g\n", (long long)c,
            st_name[status[c]], sd[c * (d - 1)], d == 3 ? sd[c * 2 + 1] : 0.0,
            set_name[set[c]], r[c * d], r[c * d + 1], d == 3 ? r[c * d + 2] : 0.0,
            loc[c * d]);
  }
  int bad = 0;
  if (o->displacements) {
    out_file uff;
    FILE *uf = out_open(&uff, o->displacements);
    if (!uf) bad = 1;
    else {
      for (fcd_index i = 0; i < n; i++) fprintf(uf, "%.17g\n", u[i]);
      bad = out_commit(&uff) != 0;
    }
  }
  if (bad) out_discard(&eqf);
  else bad = out_commit(&eqf) != 0;
  if (bad) {
    rc = 1;
    goto out;
  }
  double req, rcomp;
  fcd_equilibrium_get_residual(eq, &req, &rcomp);
  fcd_certificate cert;
  fcd_equilibrium_get_certificate(eq, &cert);
  print_certificate("certificate", &cert);
  printf("equilibrium: kind=%s dofs=%lld contacts=%lld open=%d stick=%d slip=%d "
         "residual=%.3e complementarity=%.3e state=%s\n", o->kind, (long long)n,
         (long long)nc, cnt[0], cnt[1], cnt[2], req, rcomp, o->out);
out:
  free(r);
  free(sd);
  free(set);
  free(status);
  free(loc);
  return rc;
}

/* Static or steady-sliding equilibrium: the state per contact in the form
 * `fcd stability --state` reads (contact,status,slip_t,slip_b, then our columns). */
int cmd_equilibrium(int argc, char **argv) {
  options o = {.kind = "static"};
  if (parse_options(argc, argv, &o, &cli_equilibrium)) return 2;
  if (!o.contacts || !o.out) {
    fprintf(stderr, "fcd: equilibrium needs --contacts and --out\n");
    return 2;
  }
  fcd_equilibrium_kind kind;
  if (strcmp(o.kind, "static") == 0) kind = FCD_EQ_STATIC;
  else if (strcmp(o.kind, "steady-sliding") == 0) kind = FCD_EQ_STEADY_SLIDING;
  else {
    fprintf(stderr, "fcd: unknown --kind '%s' (static, steady-sliding)\n", o.kind);
    return 2;
  }
  fcd_system *sys;
  int rc = cli_agree(load_system_opt(&o, 0, 1, &sys));
  if (rc) {
    fcd_system_destroy(sys);
    return rc;
  }
  fcd_index n = fcd_system_ndofs(sys);
  fcd_contact_set *cs = NULL;
  fcd_equilibrium *eq = NULL;
  double *u = calloc((size_t)n, sizeof *u), *f = calloc((size_t)n, sizeof *f);
  fcd_status st = (u && f) ? FCD_OK : FCD_E_NOMEM;
  const char *what = "reading input";
  if (st == FCD_OK && o.load && (st = fcd_system_read_vector(sys, o.load, n, f)) == FCD_OK)
    st = fcd_system_set_load(sys, f);
  fcd_mesh *mesh = NULL; /* the mesh of the contact file's surface pairs, if any */
  if (st == FCD_OK) st = fcd_contact_set_read_mesh(sys, o.contacts, o.mesh, &cs, &mesh);
  /* a mesh the surface pairs did not need is read all the same: a missing or malformed
   * --mesh is an error, not a silent no-op, and its coordinates name a mechanism */
  if (st == FCD_OK && o.mesh && !mesh)
    st = fcd_mesh_read(sys, fcd_contact_set_dim(cs), o.mesh, &mesh);
  if (st == FCD_OK) {
    what = "setting up the equilibrium";
    st = fcd_equilibrium_create(sys, cs, &eq);
  }
  if (st == FCD_OK && mesh) st = fcd_equilibrium_set_mesh(eq, mesh);
  fcd_mesh_destroy(mesh);
  if (st == FCD_OK && o.reference && (st = fcd_system_read_vector(sys, o.reference, n, u)) == FCD_OK)
    st = fcd_equilibrium_set_reference(eq, u);
  if (st == FCD_OK && o.tol > 0) st = fcd_equilibrium_set_param(eq, FCD_PARAM_TOLERANCE, o.tol);
  if (st == FCD_OK && o.max_iter > 0)
    st = fcd_equilibrium_set_param(eq, FCD_PARAM_MAX_ITER, (double)o.max_iter);
  if (st != FCD_OK) rc = fail(sys, st, what);
  /* the solve is collective: every rank enters it, or none */
  if ((rc = cli_agree(rc)) != 0) goto out;
  what = kind == FCD_EQ_STATIC ? "static equilibrium" : "steady sliding";
  st = fcd_equilibrium_solve(eq, kind, 0.0);
  if (st != FCD_OK) {
    rc = fail(sys, st, what);
    goto out;
  }
  rc = write_state(sys, eq, cs, &o, u);
out:
  fcd_equilibrium_destroy(eq);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
  free(u);
  free(f);
  return rc;
}


