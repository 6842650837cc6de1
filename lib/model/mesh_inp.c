/* Abaqus input files (.inp) as pre-processors and Abaqus/CAE (without parts) write them:
 * *NODE, *ELEMENT, *NSET, *ELSET, *SURFACE; every other keyword and its data is passed
 * over. Keywords and names are case-insensitive (Abaqus folds them to upper case). */
#include "mesh_private.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <string.h>

#define MAXF 64

typedef struct {
  fcd__meshsrc *ms;
  long lineno;
} rd;

static fcd_status bad(const rd *r, const char *fmt, ...) FCD__PRINTF(2, 3);
static fcd_status bad(const rd *r, const char *fmt, ...) {
  char what[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  return fcd__err(r->ms->sys, FCD_E_FORMAT, "%s:%ld: %s", r->ms->path, r->lineno, what);
}

static fcd_status nomem(const rd *r) {
  return fcd__err(r->ms->sys, FCD_E_NOMEM, "%s: out of memory", r->ms->path);
}

/* splits a line (modified) at commas into trimmed fields; a trailing comma gives no
 * empty last field but sets *more (the data go on on the next line) */
static int fields(char *s, char **f, int cap, int *more) {
  int n = 0;
  *more = 0;
  for (;;) {
    while (*s == ' ' || *s == '\t') s++;
    char *start = s;
    while (*s && *s != ',') s++;
    char *e = s;
    while (e > start && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r')) e--;
    int last = *s == 0;
    *e = 0;
    if (last && e == start && n > 0) {
      *more = 1;
      break;
    }
    if (n == cap) return -1; /* more than a line may hold: never dropped in silence */
    f[n++] = start;
    if (last) break;
    s++;
  }
  return n;
}

static void upper(char *s) {
  for (; *s; s++) *s = (char)toupper((unsigned char)*s);
}

/* a keyword's option NAME=value (folded), or NULL; flag options give "" */
static const char *option(char **f, int n, const char *name) {
  size_t k = strlen(name);
  for (int i = 1; i < n; i++)
    if (strncasecmp(f[i], name, k) == 0) {
      const char *p = f[i] + k;
      while (*p == ' ') p++;
      if (*p == 0) return "";
      if (*p == '=') {
        p++;
        while (*p == ' ') p++;
        return p;
      }
    }
  return NULL;
}

static int to_i64(const char *s, int64_t *v) {
  char *e;
  errno = 0;
  long long x = strtoll(s, &e, 10);
  while (*e == ' ') e++;
  if (e == s || *e || errno) return 0;
  *v = x;
  return 1;
}

static int to_real(const char *s, double *v) {
  char *e;
  *v = strtod(s, &e);
  while (*e == ' ') e++;
  return e != s && *e == 0 && isfinite(*v);
}

/* Abaqus element type -> VTK type; 0 skipped (point and connector elements), -1 unknown */
static int abaqus_type(const char *t) {
  static const struct {
    const char *prefix;
    int vtk;
  } map[] = {
      {"C3D10", FCD_VTK_QUADRATIC_TETRA}, {"C3D4", FCD_VTK_TETRA},
      {"C3D20", FCD_VTK_QUADRATIC_HEXAHEDRON}, {"C3D8", FCD_VTK_HEXAHEDRON},
      {"C3D15", FCD_VTK_QUADRATIC_WEDGE}, {"C3D6", FCD_VTK_WEDGE}, {"C3D5", FCD_VTK_PYRAMID},
      {"CPS3", FCD_VTK_TRIANGLE}, {"CPE3", FCD_VTK_TRIANGLE}, {"CAX3", FCD_VTK_TRIANGLE},
      {"CPS4", FCD_VTK_QUAD}, {"CPE4", FCD_VTK_QUAD}, {"CAX4", FCD_VTK_QUAD},
      {"CPS6", FCD_VTK_QUADRATIC_TRIANGLE}, {"CPE6", FCD_VTK_QUADRATIC_TRIANGLE},
      {"CAX6", FCD_VTK_QUADRATIC_TRIANGLE}, {"CPS8", FCD_VTK_QUADRATIC_QUAD},
      {"CPE8", FCD_VTK_QUADRATIC_QUAD}, {"CAX8", FCD_VTK_QUADRATIC_QUAD},
      {"STRI65", FCD_VTK_QUADRATIC_TRIANGLE}, {"STRI3", FCD_VTK_TRIANGLE},
      {"S3", FCD_VTK_TRIANGLE}, {"S4", FCD_VTK_QUAD}, {"S6", FCD_VTK_QUADRATIC_TRIANGLE},
      {"S8", FCD_VTK_QUADRATIC_QUAD}, {"M3D3", FCD_VTK_TRIANGLE}, {"M3D4", FCD_VTK_QUAD},
      {"SFM3D3", FCD_VTK_TRIANGLE}, {"SFM3D4", FCD_VTK_QUAD}, {"R3D3", FCD_VTK_TRIANGLE},
      {"R3D4", FCD_VTK_QUAD}, {"T2D2", FCD_VTK_LINE}, {"T3D2", FCD_VTK_LINE},
      {"T3D3", FCD_VTK_QUADRATIC_EDGE}, {"B21", FCD_VTK_LINE}, {"B22", FCD_VTK_QUADRATIC_EDGE},
      {"B31", FCD_VTK_LINE}, {"B32", FCD_VTK_QUADRATIC_EDGE}, {"B33", FCD_VTK_LINE},
      {"R2D2", FCD_VTK_LINE}, {"RB2D2", FCD_VTK_LINE}, {"RB3D2", FCD_VTK_LINE},
      {"MASS", 0}, {"ROTARYI", 0}, {"SPRING", 0}, {"DASHPOT", 0}, {"CONN", 0},
      {"JOINTC", 0}, {"DCOUP", 0}, {"GAP", 0}, {"ITSUNI", 0}};
  for (size_t k = 0; k < sizeof map / sizeof *map; k++)
    if (strncmp(t, map[k].prefix, strlen(map[k].prefix)) == 0) return map[k].vtk;
  return -1;
}

enum { NONE, NODE, ELEMENT, NSET, ELSET, SURFACE };

typedef struct {
  int kw;
  int vtk, nn, skip; /* *ELEMENT: the type, its nodes, a skipped type */
  int generate;
  int node_surface;    /* *SURFACE, TYPE=NODE */
  fcd__mgroup *set;    /* the set being filled (or the NSET= or ELSET= of *NODE and *ELEMENT) */
  int64_t pend[32];    /* an element's fields over continuation lines */
  int npend;
} state;

static fcd_status add_set_members(rd *r, state *S, char **f, int n) {
  fcd__meshsrc *ms = r->ms;
  int kind = S->kw == NSET ? FCD__G_NODES : FCD__G_ELEMENTS;
  if (S->generate) {
    int64_t a, b, step = 1;
    if (n < 2 || n > 3 || !to_i64(f[0], &a) || !to_i64(f[1], &b) ||
        (n == 3 && !to_i64(f[2], &step)) || step < 1 || b < a || (b - a) / step > 100000000)
      return bad(r, "GENERATE needs 'first, last[, increment]'");
    for (int64_t v = a; v <= b; v += step)
      if (!fcd__ms_group_add(S->set, v, 0, NULL)) return nomem(r);
    return FCD_OK;
  }
  for (int i = 0; i < n; i++) {
    int64_t v;
    if (!*f[i]) continue;
    if (to_i64(f[i], &v)) {
      if (!fcd__ms_group_add(S->set, v, 0, NULL)) return nomem(r);
      continue;
    }
    /* a set named in a set: its members, as defined so far */
    char name[128];
    snprintf(name, sizeof name, "%s", f[i]);
    upper(name);
    fcd__mgroup *o = NULL;
    for (int k = 0; k < ms->ng; k++)
      if (ms->g[k].kind == kind && strcmp(ms->g[k].name, name) == 0) o = &ms->g[k];
    if (!o || o == S->set) return bad(r, "'%s' is neither a label nor a set defined above", f[i]);
    for (fcd_index k = 0; k < o->n; k++)
      if (!fcd__ms_group_add(S->set, o->item[k], 0, NULL)) return nomem(r);
  }
  return FCD_OK;
}

/* a *SURFACE data line: 'element or element set[, face]' or, TYPE=NODE, 'node or set' */
static fcd_status add_surface_line(rd *r, state *S, char **f, int n) {
  fcd__meshsrc *ms = r->ms;
  if (n < 1 || !*f[0]) return FCD_OK;
  if (S->node_surface) {
    state node = {.kw = NSET, .set = S->set};
    return add_set_members(r, &node, f, 1);
  }
  int face = -2; /* the element itself: a surface or shell element */
  if (n >= 2 && *f[1]) {
    char fc[16];
    snprintf(fc, sizeof fc, "%s", f[1]);
    upper(fc);
    if (fc[0] == 'S' && fc[1] >= '1' && fc[1] <= '6' && fc[2] == 0) face = fc[1] - '1';
    else if (!strcmp(fc, "SPOS") || !strcmp(fc, "SNEG")) face = -2;
    else return bad(r, "face '%s' is not S1 to S6, SPOS or SNEG", f[1]);
  }
  int64_t v;
  if (to_i64(f[0], &v)) {
    if (!fcd__ms_group_add(S->set, v, face, NULL)) return nomem(r);
    return FCD_OK;
  }
  char name[128];
  snprintf(name, sizeof name, "%s", f[0]);
  upper(name);
  fcd__mgroup *o = NULL;
  for (int k = 0; k < ms->ng; k++)
    if (ms->g[k].kind == FCD__G_ELEMENTS && strcmp(ms->g[k].name, name) == 0) o = &ms->g[k];
  if (!o) return bad(r, "'%s' is neither an element label nor an element set defined above", f[0]);
  for (fcd_index k = 0; k < o->n; k++)
    if (!fcd__ms_group_add(S->set, o->item[k], face, NULL)) return nomem(r);
  return FCD_OK;
}

static fcd_status keyword(rd *r, state *S, char **f, int n) {
  fcd__meshsrc *ms = r->ms;
  char kw[64];
  snprintf(kw, sizeof kw, "%s", f[0] + 1);
  upper(kw);
  memset(S, 0, sizeof *S);
  if (!strcmp(kw, "INSTANCE") || !strcmp(kw, "PART"))
    return fcd__err(ms->sys, FCD_E_UNSUPPORTED, "%s:%ld: *%s: parts and instances are not "
                    "read; write the input file without them (Abaqus/CAE: Model > Edit "
                    "Attributes > 'Do not use parts and assemblies in input files')",
                    ms->path, r->lineno, kw);
  if (!strcmp(kw, "INCLUDE"))
    return fcd__err(ms->sys, FCD_E_UNSUPPORTED, "%s:%ld: *INCLUDE is not followed; give the "
                    "file that holds the mesh", ms->path, r->lineno);
  const char *name = NULL;
  int kind = -1;
  if (!strcmp(kw, "NODE")) {
    S->kw = NODE;
    name = option(f, n, "NSET");
    kind = FCD__G_NODES;
  } else if (!strcmp(kw, "ELEMENT")) {
    S->kw = ELEMENT;
    const char *t = option(f, n, "TYPE");
    if (!t || !*t) return bad(r, "*ELEMENT needs TYPE=");
    char ty[32];
    snprintf(ty, sizeof ty, "%s", t);
    upper(ty);
    S->vtk = abaqus_type(ty);
    if (S->vtk < 0)
      return fcd__err(ms->sys, FCD_E_UNSUPPORTED, "%s:%ld: element type %s is not read "
                      "(solids C3D4, C3D6, C3D8, C3D10, C3D15, C3D20, plane and axisymmetric CPS, CPE, CAX 3, 4, 6, 8, "
                      "shells and membranes S3, S4, S6, S8, M3D, SFM3D, R3D, trusses and beams)",
                      ms->path, r->lineno, ty);
    S->skip = S->vtk == 0;
    S->nn = S->skip ? 0 : fcd__vtk_nodes_of(S->vtk);
    name = option(f, n, "ELSET");
    kind = FCD__G_ELEMENTS;
  } else if (!strcmp(kw, "NSET") || !strcmp(kw, "ELSET")) {
    S->kw = kw[0] == 'N' ? NSET : ELSET;
    name = option(f, n, kw);
    if (!name || !*name) return bad(r, "*%s needs its name", kw);
    kind = S->kw == NSET ? FCD__G_NODES : FCD__G_ELEMENTS;
    S->generate = option(f, n, "GENERATE") != NULL;
  } else if (!strcmp(kw, "SURFACE")) {
    S->kw = SURFACE;
    name = option(f, n, "NAME");
    if (!name || !*name) return bad(r, "*SURFACE needs NAME=");
    const char *t = option(f, n, "TYPE");
    S->node_surface = t && strncasecmp(t, "NODE", 4) == 0;
    if (t && !S->node_surface && strncasecmp(t, "ELEMENT", 7) != 0)
      return fcd__err(ms->sys, FCD_E_UNSUPPORTED, "%s:%ld: *SURFACE, TYPE=%s is not read "
                      "(ELEMENT and NODE are)", ms->path, r->lineno, t);
    kind = S->node_surface ? FCD__G_NODES : FCD__G_FACES;
  }
  if (name && *name) {
    char nm[128];
    snprintf(nm, sizeof nm, "%s", name);
    upper(nm);
    if (!(S->set = fcd__ms_group(ms, nm, kind))) return nomem(r);
  }
  return FCD_OK;
}

static fcd_status data(rd *r, state *S, char **f, int n, int more) {
  fcd__meshsrc *ms = r->ms;
  switch (S->kw) {
  case NODE: {
    int64_t id;
    double x[3] = {0, 0, 0};
    if (n < 2 || n > 4 || !to_i64(f[0], &id))
      return bad(r, "a node line is 'label, x, y[, z]'");
    for (int a = 1; a < n; a++)
      if (!to_real(f[a], &x[a - 1])) return bad(r, "coordinate '%s' is not a finite number", f[a]);
    if (!fcd__ms_node(ms, id, x[0], x[1], x[2])) return nomem(r);
    if (S->set && !fcd__ms_group_add(S->set, id, 0, NULL)) return nomem(r);
    return FCD_OK;
  }
  case ELEMENT: {
    for (int i = 0; i < n; i++) {
      if (!*f[i]) continue;
      if (S->npend >= 32 || !to_i64(f[i], &S->pend[S->npend]))
        return bad(r, "element field '%s' is not a label", f[i]);
      S->npend++;
    }
    if (S->skip) {
      ms->skipped = 1;
      if (!more) S->npend = 0;
      return FCD_OK;
    }
    if (S->npend < 1 + S->nn && more) return FCD_OK;
    if (S->npend != 1 + S->nn) {
      char got[32];
      snprintf(got, sizeof got, "%d", S->npend - 1);
      S->npend = 0;
      return bad(r, "an element of this type has a different node count than %s", got);
    }
    S->npend = 0;
    if (!fcd__ms_elem(ms, S->pend[0], S->vtk, S->pend + 1)) return nomem(r);
    if (S->set && !fcd__ms_group_add(S->set, S->pend[0], 0, NULL)) return nomem(r);
    return FCD_OK;
  }
  case NSET:
  case ELSET: return add_set_members(r, S, f, n);
  case SURFACE: return add_surface_line(r, S, f, n);
  default: return FCD_OK;
  }
}

fcd_status fcd__read_inp(fcd__meshsrc *ms, const char *text, size_t len) {
  rd r = {ms, 0};
  state S;
  memset(&S, 0, sizeof S);
  char *line = NULL;
  size_t cap = 0;
  fcd_status st = FCD_OK;
  for (const char *p = text, *end = text + len; p < end && st == FCD_OK;) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t n = (size_t)((nl ? nl : end) - p);
    r.lineno++;
    if (n + 1 > cap) {
      char *t = fcd__grow_array(line, 0, n + 1, 1);
      if (!t) {
        st = nomem(&r);
        break;
      }
      line = t;
      cap = n + 1;
    }
    memcpy(line, p, n);
    line[n] = 0;
    p = nl ? nl + 1 : end;
    if (memchr(line, 0, n)) {
      st = bad(&r, "a NUL byte: not a text file");
      break;
    }
    char *s = line;
    while (*s == ' ' || *s == '\t') s++;
    if (!*s || *s == '\r' || (s[0] == '*' && s[1] == '*')) continue;
    char *f[MAXF];
    int more, nf = fields(s, f, MAXF, &more);
    if (nf < 0) {
      st = bad(&r, "more than %d fields on a line", MAXF);
      break;
    }
    if (s[0] == '*') {
      if (S.kw == ELEMENT && S.npend)
        st = bad(&r, "the element above ends early");
      else st = keyword(&r, &S, f, nf);
    } else
      st = data(&r, &S, f, nf, more);
  }
  if (st == FCD_OK && S.kw == ELEMENT && S.npend) st = bad(&r, "the last element ends early");
  fcd__free(line);
  return st;
}
