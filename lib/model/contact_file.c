/* The contact file and plain vector files of the `fcd` program. */
#include "model.h"
#include "import_private.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* splits a line (comment removed) into tokens, storing at most cap; returns how many
 * there are (more than cap: the caller names the count) */
static int tokens(char *line, char **tok, int cap) {
  char *hash = strchr(line, '#');
  if (hash) *hash = 0;
  int n = 0;
  char *save = NULL; /* strtok_r: readers may run in several threads */
  for (char *p = strtok_r(line, " \t\r\n", &save); p; p = strtok_r(NULL, " \t\r\n", &save)) {
    if (n < cap) tok[n] = p;
    if (n < INT32_MAX) n++;
  }
  return n;
}

static int to_index(const char *s, fcd_index *v) {
  char *end;
  errno = 0;
  long long x = strtoll(s, &end, 10);
  if (*end || end == s || errno) return 0;
  *v = x;
  return 1;
}

static int to_real(const char *s, fcd_real *v) {
  char *end;
  errno = 0;
  double x = strtod(s, &end);
  if (*end || end == s || !isfinite(x)) return 0;
  *v = x;
  return 1;
}

/* A line 'rows nN nT [nB]  dof w ... (nN + nT [+ nB] pairs)  gap mu [vg]' of a version 2
 * file: the contact's rows, N first (fcd_contact_set_add_rows). */
enum { ROWS_MAX_ENTRIES = 1000, ROWS_MAX_TOKENS = 2 * ROWS_MAX_ENTRIES + 10 };
static fcd_status read_rows(fcd_contact_set *cs, char **tok, int nt, const char *path,
                            long lineno) {
  fcd_system *sys = cs->sys;
  int dim = cs->dim;
  fcd_index rp[4] = {0, 0, 0, 0};
  if (nt < 1 + dim)
    return fcd__err(sys, FCD_E_FORMAT, "%s:%ld: 'rows' needs %d entry counts first", path,
                    lineno, dim);
  for (int k = 0; k < dim; k++) {
    fcd_index n;
    if (!to_index(tok[1 + k], &n) || n < 1 || n > ROWS_MAX_ENTRIES)
      return fcd__err(sys, FCD_E_FORMAT, "%s:%ld: row %d's entry count '%.20s' is not in "
                      "[1, %d]", path, lineno, k, tok[1 + k], ROWS_MAX_ENTRIES);
    rp[k + 1] = rp[k] + n;
  }
  fcd_index ne = rp[dim];
  long base = 1 + dim + 2 * (long)ne + 2; /* fields up to mu, with the kind */
  if (ne > ROWS_MAX_ENTRIES || (nt != base && nt != base + dim - 1))
    return fcd__err(sys, FCD_E_FORMAT, "%s:%ld: a %dD 'rows' contact with %lld entries has "
                    "%ld or %ld fields after its kind, not %d", path, lineno, dim,
                    (long long)ne, base - 1, base + dim - 2, nt - 1);
  fcd_index *dofs = fcd__malloc_array((size_t)ne, sizeof *dofs);
  fcd_real *w = fcd__malloc_array((size_t)ne, sizeof *w);
  fcd_status st = FCD_OK;
  if (!dofs || !w) st = fcd__err(sys, FCD_E_NOMEM, "%s:%ld: out of memory", path, lineno);
  int ok = st == FCD_OK;
  for (fcd_index q = 0; q < ne && ok; q++)
    ok = to_index(tok[1 + dim + 2 * q], &dofs[q]) && to_real(tok[2 + dim + 2 * q], &w[q]);
  fcd_real gap = 0, mu = 0, vg[2] = {0, 0};
  if (ok) ok = to_real(tok[base - 2], &gap) && to_real(tok[base - 1], &mu);
  for (int k = 0; ok && nt > base && k < dim - 1; k++) ok = to_real(tok[base + k], &vg[k]);
  if (st == FCD_OK && !ok)
    st = fcd__err(sys, FCD_E_FORMAT, "%s:%ld: a field is not a number (or not finite)", path,
                  lineno);
  fcd_index id;
  if (st == FCD_OK) st = fcd_contact_set_add_rows(cs, rp, dofs, w, gap, mu, &id);
  if (st == FCD_OK && nt > base) st = fcd_contact_set_set_sliding_velocity(cs, id, vg);
  if (st != FCD_OK && st != FCD_E_NOMEM && ok) {
    char msg[FCD_ERRMSG_CAP];
    snprintf(msg, sizeof msg, "%s", sys->h.err);
    st = fcd__err(sys, st, "%s:%ld: %s", path, lineno, msg);
  }
  fcd__free(dofs);
  fcd__free(w);
  return st;
}

/* 'surface-pair METHOD MU slave NAME master NAME': two surfaces the mesh names */
static fcd_status surface_pair_named(fcd_contact_set *cs, char **tok, const char *path,
                                     long lineno, const char *mesh_path, fcd_mesh **mesh,
                                     fcd_surface_method method) {
  fcd_system *sys = cs->sys;
  fcd_real mu;
  if (!to_real(tok[2], &mu))
    return fcd__err(sys, FCD_E_FORMAT, "%s:%ld: the friction coefficient '%.40s' is not a "
                    "number", path, lineno, tok[2]);
  fcd_status st = FCD_OK;
  if (!*mesh) st = fcd_mesh_read(sys, cs->dim, mesh_path, mesh);
  fcd_index ns = 0, nm = 0;
  const fcd_index *fs = NULL, *fm = NULL;
  if (st == FCD_OK) st = fcd_mesh_get_surface(*mesh, tok[4], &ns, &fs);
  if (st == FCD_OK) st = fcd_mesh_get_surface(*mesh, tok[6], &nm, &fm);
  fcd_index inactive = 0;
  if (st == FCD_OK)
    st = fcd_contact_set_add_surface_pair(cs, *mesh, ns, fs, nm, fm, method, mu, NULL,
                                          &inactive);
  if (st != FCD_OK && st != FCD_E_NOMEM) {
    char msg[FCD_ERRMSG_CAP];
    snprintf(msg, sizeof msg, "%s", sys->h.err);
    st = fcd__err(sys, st, "%s:%ld: %s", path, lineno, msg);
  }
  return st;
}

/* A line 'surface-pair METHOD MU slave A B ... master C D ...' of a version 2 file: the
 * node ids of the two surfaces' segments (2D) or facets (3D) in the mesh (read from mesh_path on the first
 * such line) and fcd_contact_set_add_surface_pair. */
static fcd_status read_surface_pair(fcd_contact_set *cs, char **tok, int nt, const char *path,
                                    long lineno, const char *mesh_path, fcd_mesh **mesh) {
  fcd_system *sys = cs->sys;
  if (!mesh_path)
    return fcd__err(sys, FCD_E_FORMAT, "%s:%ld: a 'surface-pair' needs the mesh its node ids "
                    "refer to (fcd_contact_set_read_mesh; the program's --mesh)", path, lineno);
  fcd_surface_method method;
  if (nt > 1 && strcmp(tok[1], "dual-mortar") == 0) method = FCD_SURFACE_DUAL_MORTAR;
  else if (nt > 1 && strcmp(tok[1], "node-to-segment") == 0) method = FCD_SURFACE_NODE_TO_SEGMENT;
  else
    return fcd__err(sys, FCD_E_FORMAT, "%s:%ld: 'surface-pair' needs a method, dual-mortar or "
                    "node-to-segment", path, lineno);
  fcd_real mu;
  int ms = 4;
  while (ms < nt && strcmp(tok[ms], "master") != 0) ms++;
  fcd_index probe;
  if (nt == 7 && ms == 5 && strcmp(tok[3], "slave") == 0 && !to_index(tok[4], &probe))
    return surface_pair_named(cs, tok, path, lineno, mesh_path, mesh, method);
  /* 2D: two node ids per segment; 3D: four per facet, -1 fourth for a triangle */
  fcd_index ns = ms - 4, nm = nt - ms - 1, per = cs->dim == 3 ? 4 : 2;
  if (nt < 4 || !to_real(tok[2], &mu) || strcmp(tok[3], "slave") != 0 || ms == nt ||
      ns < per || ns % per || nm < per || nm % per)
    return fcd__err(sys, FCD_E_FORMAT, "%s:%ld: expected 'surface-pair METHOD MU slave %s "
                    "[...] master %s [...]', %s", path, lineno,
                    per == 2 ? "A B" : "A B C D", per == 2 ? "E F" : "E F G H",
                    per == 2 ? "two node ids per segment"
                             : "four node ids per facet (-1 fourth for a triangle)");
  fcd_index *ids = fcd__malloc_array((size_t)(ns + nm), sizeof *ids);
  if (!ids) return fcd__err(sys, FCD_E_NOMEM, "%s:%ld: out of memory", path, lineno);
  int ok = 1;
  for (fcd_index k = 0; k < ns && ok; k++) ok = to_index(tok[4 + k], &ids[k]);
  for (fcd_index k = 0; k < nm && ok; k++) ok = to_index(tok[ms + 1 + k], &ids[ns + k]);
  fcd_status st = ok ? FCD_OK
                     : fcd__err(sys, FCD_E_FORMAT, "%s:%ld: a node id is not an integer", path,
                                lineno);
  if (st == FCD_OK && !*mesh) st = fcd_mesh_read(sys, cs->dim, mesh_path, mesh);
  fcd_index inactive = 0;
  if (st == FCD_OK)
    st = fcd_contact_set_add_surface_pair(cs, *mesh, ns / per, ids, nm / per, ids + ns, method,
                                          mu, NULL, &inactive);
  if (st != FCD_OK && st != FCD_E_FORMAT && st != FCD_E_NOMEM) {
    char msg[FCD_ERRMSG_CAP];
    snprintf(msg, sizeof msg, "%s", sys->h.err);
    st = fcd__err(sys, st, "%s:%ld: %s", path, lineno, msg);
  }
  fcd__free(ids);
  return st;
}

/* a 'rigid' or 'pair' line: dofs, normal, tangent, gap, mu and an optional sliding
 * velocity */
/* 'node LABEL' in a contact line's dofs: the node's dim dofs (LABEL, 1..dim) through the
 * system's dof map, written into buf and put in place of the two tokens of tok (nt of
 * them, room for 6 more); the new count, or -1 with the error set */
static int expand_nodes(fcd_system *sys, char **tok, int nt, int dim, int pair,
                        char (*buf)[24], const char *path, long lineno, fcd_status *st) {
  int at = 1, nb = 0;
  for (int body = 0; body < (pair ? 2 : 1) && at < nt; body++) {
    if (strcmp(tok[at], "node") != 0) {
      at += dim;
      continue;
    }
    char *e;
    errno = 0;
    long long label = at + 1 < nt ? strtoll(tok[at + 1], &e, 10) : 0;
    if (at + 1 >= nt || *e || errno || e == tok[at + 1]) {
      *st = fcd__err(sys, FCD_E_FORMAT, "%s:%ld: 'node' needs a node label", path, lineno);
      return -1;
    }
    char *idx[3];
    for (int d = 0; d < dim; d++) {
      fcd_index i;
      int got = fcd__system_dof_of(sys, label, d + 1, &i);
      if (got) {
        *st = fcd__err(sys, FCD_E_INVALID_ARG, "%s:%ld: node %lld dof %d %s", path, lineno,
                       label, d + 1, got == 1 ? "named, but the system has no dof map (the "
                       "program makes one from matrices by node label)"
                                              : "is not a dof of the model's matrices");
        return -1;
      }
      snprintf(buf[nb], sizeof buf[nb], "%lld", (long long)i);
      idx[d] = buf[nb++];
    }
    /* dim tokens where there were two */
    memmove(tok + at + dim, tok + at + 2, (size_t)(nt - at - 2) * sizeof *tok);
    for (int d = 0; d < dim; d++) tok[at + d] = idx[d];
    nt += dim - 2;
    at += dim;
  }
  return nt;
}

static fcd_status read_point_contact(fcd_contact_set *cs, char **tok, int nt, const char *path,
                                     long lineno, int dim, int version) {
  fcd_system *sys = cs->sys;
  int pair = strcmp(tok[0], "pair") == 0;
  char nodebuf[6][24];
  fcd_status xst = FCD_OK;
  if ((pair || strcmp(tok[0], "rigid") == 0) &&
      (nt = expand_nodes(sys, tok, nt, dim, pair, nodebuf, path, lineno, &xst)) < 0)
    return xst;
  if (!pair && strcmp(tok[0], "rigid") != 0)
    return fcd__err(sys, FCD_E_FORMAT, "%s:%ld: unknown contact kind '%.20s' (rigid%s)",
                    path, lineno, tok[0],
                    version >= 2 ? ", pair, rows or surface-pair" : " or pair");
  int nd = (pair ? 2 : 1) * dim, base = nd + 2 * dim + 2;
  if (nt != 1 + base && nt != 1 + base + dim - 1)
    return fcd__err(sys, FCD_E_FORMAT,
                    "%s:%ld: a %dD %s contact has %d or %d fields after its kind, not %d",
                    path, lineno, dim, tok[0], base, base + dim - 1, nt - 1);
  fcd_index dofs[6];
  fcd_real nrm[3], tan[3], gap, mu, vg[2] = {0, 0};
  int ok = 1;
  for (int k = 0; k < nd && ok; k++) ok = to_index(tok[1 + k], &dofs[k]);
  for (int k = 0; k < dim && ok; k++) ok = to_real(tok[1 + nd + k], &nrm[k]);
  for (int k = 0; k < dim && ok; k++) ok = to_real(tok[1 + nd + dim + k], &tan[k]);
  if (ok) ok = to_real(tok[1 + nd + 2 * dim], &gap) && to_real(tok[2 + nd + 2 * dim], &mu);
  for (int k = 0; ok && nt > 1 + base && k < dim - 1; k++) ok = to_real(tok[1 + base + k], &vg[k]);
  if (!ok)
    return fcd__err(sys, FCD_E_FORMAT, "%s:%ld: a field is not a number (or not finite)",
                    path, lineno);
  fcd_index id;
  fcd_status st = pair ? fcd_contact_set_add_pair(cs, dofs, dofs + dim, nrm, tan, gap, mu, &id)
                        : fcd_contact_set_add_rigid(cs, dofs, nrm, tan, gap, mu, &id);
  if (st == FCD_OK && nt > 1 + base) st = fcd_contact_set_set_sliding_velocity(cs, id, vg);
  if (st != FCD_OK) {
    char msg[FCD_ERRMSG_CAP];
    snprintf(msg, sizeof msg, "%s", sys->h.err);
    if (nt > 1 + base)
      /* one field too many is read as a sliding velocity, and the columns shift: say
       * how the line was read */
      st = fcd__err(sys, st, "%s:%ld: %s (the line has %d fields after '%s', read as %d "
                    "dofs, normal, tangent, gap, mu and a sliding velocity of %d; without "
                    "it a %dD %s contact has %d)", path, lineno, msg, nt - 1, tok[0], nd,
                    dim - 1, dim, tok[0], base);
    else
      st = fcd__err(sys, st, "%s:%ld: %s", path, lineno, msg);
  }
  return st;
}

fcd_status fcd_contact_set_read(fcd_system *sys, const char *path, fcd_contact_set **out) {
  return fcd_contact_set_read_mesh(sys, path, NULL, out, NULL);
}

fcd_status fcd_contact_set_read_mesh(fcd_system *sys, const char *path, const char *mesh_path,
                                     fcd_contact_set **out, fcd_mesh **mesh_out) {
  if (mesh_out) *mesh_out = NULL;
  if (!out) return fcd__err(sys, FCD_E_INVALID_ARG, "contact_set_read: out is NULL");
  *out = NULL;
  fcd_mesh *mesh = NULL;
  FCD_CHECK_SYS(sys);
  if (!path) return fcd__err(sys, FCD_E_INVALID_ARG, "contact_set_read: path is NULL");
  FILE *fp;
  FCD_TRY(fcd__open_input(sys, path, &fp, NULL, 0));
  fcd__lines L;
  fcd__lines_init(&L, fp, path);
  long lineno = 0;
  int stage = 0, dim = 0, version = 0, got;
  fcd_contact_set *cs = NULL;
  fcd_status st = FCD_OK;
  while (st == FCD_OK && (got = fcd__lines_next(&L, sys, NULL, 0, &st)) > 0) {
    lineno = L.lineno;
    char *tok[ROWS_MAX_TOKENS + 8]; /* room for 'node LABEL' growing to dim dofs */
    int nt = tokens(L.line, tok, ROWS_MAX_TOKENS + 1);
    if (nt == 0) continue;
    if (stage == 0) {
      if (nt != 2 || strcmp(tok[0], "fcd-contacts") != 0 ||
          (strcmp(tok[1], "1") != 0 && strcmp(tok[1], "2") != 0)) {
        st = fcd__err(sys, FCD_E_FORMAT, "%s:%ld: expected the header 'fcd-contacts 1' (or 2, "
                      "which adds contacts given by rows)", path, lineno);
        break;
      }
      version = tok[1][0] - '0';
      stage = 1;
      continue;
    }
    if (stage == 1) {
      if (nt != 2 || strcmp(tok[0], "dim") != 0 || (strcmp(tok[1], "2") && strcmp(tok[1], "3"))) {
        st = fcd__err(sys, FCD_E_FORMAT, "%s:%ld: expected 'dim 2' or 'dim 3'", path, lineno);
        break;
      }
      dim = tok[1][0] - '0';
      if ((st = fcd_contact_set_create(sys, dim, &cs)) != FCD_OK) break;
      stage = 2;
      continue;
    }
    if (strcmp(tok[0], "rows") == 0) {
      if (version < 2) {
        st = fcd__err(sys, FCD_E_FORMAT, "%s:%ld: a 'rows' contact needs the header "
                      "'fcd-contacts 2'", path, lineno);
        break;
      }
      if ((st = read_rows(cs, tok, nt, path, lineno)) != FCD_OK) break;
      continue;
    }
    if (strcmp(tok[0], "surface-pair") == 0) {
      st = version < 2 ? fcd__err(sys, FCD_E_FORMAT, "%s:%ld: a 'surface-pair' needs the header "
                                  "'fcd-contacts 2'", path, lineno)
                       : read_surface_pair(cs, tok, nt, path, lineno, mesh_path, &mesh);
      if (st != FCD_OK) break;
      continue;
    }
    st = read_point_contact(cs, tok, nt, path, lineno, dim, version);
  }
  if (st == FCD_OK && stage < 2)
    st = fcd__err(sys, FCD_E_FORMAT, "%s: ends before its '%s' line", path,
                  stage == 0 ? "fcd-contacts 1" : "dim");
  fcd__lines_free(&L);
  fclose(fp);
  if (st != FCD_OK) {
    fcd_contact_set_destroy(cs);
    fcd_mesh_destroy(mesh);
    return st;
  }
  *out = cs;
  if (mesh_out) *mesh_out = mesh;
  else fcd_mesh_destroy(mesh);
  return FCD_OK;
}

fcd_status fcd_system_read_vector(fcd_system *sys, const char *path, fcd_index n, fcd_real *x) {
  FCD_CHECK_SYS(sys);
  if (!path) return fcd__err(sys, FCD_E_INVALID_ARG, "read_vector: path is NULL");
  if (!x) return fcd__err(sys, FCD_E_INVALID_ARG, "read_vector: output x is NULL");
  if (n < 0)
    return fcd__err(sys, FCD_E_INVALID_ARG, "read_vector: count %lld is negative", (long long)n);
  FILE *fp;
  FCD_TRY(fcd__open_input(sys, path, &fp, NULL, 0));
  fcd__lines L;
  fcd__lines_init(&L, fp, path);
  fcd_index k = 0;
  fcd_status st = FCD_OK;
  fcd_real *tmp = fcd__malloc_array((size_t)n + 1, sizeof *tmp);
  if (!tmp) st = fcd__err(sys, FCD_E_NOMEM, "out of memory");
  /* any number of values per line, up to the line bound; or, by node label, lines `node
   * LABEL DOF VALUE` with the other entries zero (never both in one file) */
  int by_node = 0;
  while (st == FCD_OK && fcd__lines_next(&L, sys, NULL, 0, &st) > 0) {
    char *hash = strchr(L.line, '#');
    if (hash) *hash = 0;
    const char *ln = L.line;
    char why[200];
    fcd_index d = -1;
    int ref = fcd__node_ref(sys, &ln, &d, why, sizeof why);
    if (ref < 0) {
      st = fcd__err(sys, FCD_E_INVALID_ARG, "%s:%ld: %s", path, L.lineno, why);
      break;
    }
    if (ref > 0 || by_node) {
      char *e;
      double v = ref > 0 ? strtod(ln, &e) : 0;
      if (ref > 0) while (*e == ' ' || *e == '\t' || *e == '\r') e++;
      if (ref == 0 && ln[strspn(ln, " \t\r")] == 0) continue;
      if (ref == 0 || (by_node == 0 && k > 0) || e == ln || *e || !isfinite(v)) {
        st = fcd__err(sys, FCD_E_FORMAT, "%s:%ld: %s", path, L.lineno,
                      ref == 0 || (by_node == 0 && k > 0)
                          ? "a vector gives its values either all in order or all by 'node "
                            "LABEL DOF VALUE', not both"
                          : "expected 'node LABEL DOF VALUE' with a finite value");
        break;
      }
      if (!by_node) memset(tmp, 0, (size_t)n * sizeof *tmp);
      by_node = 1;
      tmp[d] += v;
      continue;
    }
    char *save = NULL;
    for (char *t = strtok_r(L.line, " \t\r", &save); t; t = strtok_r(NULL, " \t\r", &save)) {
      if (k == n) {
        st = fcd__err(sys, FCD_E_FORMAT, "%s:%ld: more than the %lld values expected", path,
                      L.lineno, (long long)n);
        break;
      }
      if (!to_real(t, &tmp[k++])) {
        st = fcd__err(sys, FCD_E_FORMAT, "%s:%ld: '%.20s' is not a finite number", path,
                      L.lineno, t);
        break;
      }
    }
  }
  if (st == FCD_OK && !by_node && k != n)
    st = fcd__err(sys, FCD_E_FORMAT, "%s: %lld values, expected %lld", path, (long long)k,
                  (long long)n);
  if (st == FCD_OK && n) memcpy(x, tmp, (size_t)n * sizeof *x);
  fcd__free(tmp);
  fcd__lines_free(&L);
  fclose(fp);
  return st;
}

fcd_status fcd_contact_set_read_state(const fcd_contact_set *cs, const char *path, int *status,
                                      fcd_real *slip) {
  if (!fcd__contact_set_valid(cs)) return FCD_E_INVALID_ARG;
  const fcd_system *sys = cs->sys;
  if (!path) return fcd__err(sys, FCD_E_INVALID_ARG, "read_state: path is NULL");
  if (!status) return fcd__err(sys, FCD_E_INVALID_ARG, "read_state: status is NULL");
  fcd_index nc = cs->n;
  int d = cs->dim;
  if (nc > 0 && !slip) return fcd__err(sys, FCD_E_INVALID_ARG, "read_state: slip is NULL");
  FILE *fp;
  FCD_TRY(fcd__open_input(sys, path, &fp, NULL, 0));
  fcd__lines L;
  fcd__lines_init(&L, fp, path);
  int *st_tmp = fcd__malloc_array((size_t)nc + 1, sizeof *st_tmp);
  fcd_real *sl_tmp = fcd__malloc_array((size_t)(nc * (d - 1)) + 1, sizeof *sl_tmp);
  fcd_status st = FCD_OK;
  fcd_index rows = 0;
  if (!st_tmp || !sl_tmp) st = fcd__err(sys, FCD_E_NOMEM, "%s: out of memory", path);
  while (st == FCD_OK && fcd__lines_next(&L, sys, NULL, 0, &st) > 0) {
    const char *line = L.line;
    if (L.lineno == 1) {
      if (strncmp(line, "contact,status,slip_t,slip_b", 28) != 0)
        st = fcd__err(sys, FCD_E_FORMAT, "%s:1: the header must start with "
                      "contact,status,slip_t,slip_b", path);
      continue;
    }
    if (line[0] == 0 || line[0] == '#') continue;
    /* contact,status,slip_t,slip_b[,anything]: the columns fcd equilibrium writes */
    char *end;
    errno = 0;
    long long c = strtoll(line, &end, 10);
    const char *q = end;
    char name[8] = "";
    int nl = 0;
    if (end == line || errno || *q != ',') goto syntax;
    q++;
    while (*q >= 'a' && *q <= 'z' && nl < 7) name[nl++] = *q++;
    name[nl] = 0;
    if (*q != ',') goto syntax;
    fcd_real s2[2];
    for (int k = 0; k < 2; k++) {
      q++;
      errno = 0;
      s2[k] = strtod(q, &end);
      if (end == q || !isfinite(s2[k])) goto syntax;
      q = end;
      if (k == 0 && *q != ',') goto syntax;
    }
    while (*q == ' ' || *q == '\t' || *q == '\r') q++;
    if (*q != 0 && *q != ',') goto syntax;
    if (c != rows || c >= nc) {
      st = fcd__err(sys, FCD_E_FORMAT, "%s:%ld: contact %lld out of order or beyond the %lld "
                    "contacts", path, L.lineno, c, (long long)nc);
      break;
    }
    int code = !strcmp(name, "open") ? FCD_CONTACT_OPEN : !strcmp(name, "stick")
               ? FCD_CONTACT_STICK : !strcmp(name, "slip") ? FCD_CONTACT_SLIP : -1;
    if (code < 0) {
      st = fcd__err(sys, FCD_E_FORMAT, "%s:%ld: unknown status '%s' (open, stick, slip)", path,
                    L.lineno, name);
      break;
    }
    st_tmp[c] = code;
    for (int k = 0; k < d - 1; k++) sl_tmp[c * (d - 1) + k] = s2[k];
    rows++;
    continue;
  syntax:
    st = fcd__err(sys, FCD_E_FORMAT, "%s:%ld: expected contact,status,slip_t,slip_b", path,
                  L.lineno);
  }
  if (st == FCD_OK && L.lineno == 0)
    st = fcd__err(sys, FCD_E_FORMAT, "%s: empty file, expected the header "
                  "contact,status,slip_t,slip_b", path);
  if (st == FCD_OK && rows != nc)
    st = fcd__err(sys, FCD_E_FORMAT, "%s: %lld contact rows for %lld contacts", path,
                  (long long)rows, (long long)nc);
  if (st == FCD_OK) {
    if (nc) memcpy(status, st_tmp, (size_t)nc * sizeof *status);
    if (nc && d > 1) memcpy(slip, sl_tmp, (size_t)(nc * (d - 1)) * sizeof *slip);
  }
  fcd__free(st_tmp);
  fcd__free(sl_tmp);
  fcd__lines_free(&L);
  fclose(fp);
  return st;
}
