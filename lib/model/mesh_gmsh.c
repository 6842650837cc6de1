/* Gmsh's mesh files, MSH 2.2 and 4.1, ASCII and binary: nodes, elements and physical
 * groups (named by $PhysicalNames, else "physical:TAG"). */
#include "mesh_private.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  fcd__meshsrc *ms;
  const char *s, *end, *text;
  int binary, swap, sizet; /* binary: swap the byte order; the size of a size_t */
  const char *section;
} cur;

static long line_of(const cur *c) {
  long n = 1;
  for (const char *p = c->text; p < c->s && p < c->end; p++) n += *p == '\n';
  return n;
}

static fcd_status bad(const cur *c, const char *what) {
  return fcd__err(c->ms->sys, FCD_E_FORMAT, "%s:%ld: %s%s%s", c->ms->path, line_of(c),
                  c->section ? c->section : "", c->section ? ": " : "", what);
}

static void skip_ws(cur *c) {
  while (c->s < c->end && (*c->s == ' ' || *c->s == '\t' || *c->s == '\n' || *c->s == '\r'))
    c->s++;
}

static int tok(cur *c, char *out, size_t cap) {
  skip_ws(c);
  size_t n = 0;
  while (c->s < c->end && !(*c->s == ' ' || *c->s == '\t' || *c->s == '\n' || *c->s == '\r')) {
    if (n + 1 < cap) out[n++] = *c->s;
    c->s++;
  }
  out[n] = 0;
  return n > 0 && n + 1 < cap;
}

static int get_i64(cur *c, int64_t *v) {
  char t[48], *e;
  if (!tok(c, t, sizeof t)) return 0;
  errno = 0;
  long long x = strtoll(t, &e, 10);
  if (*e || errno) return 0;
  *v = x;
  return 1;
}

static int get_real(cur *c, double *v) {
  char t[64], *e;
  if (!tok(c, t, sizeof t)) return 0;
  *v = strtod(t, &e);
  return *e == 0 && isfinite(*v);
}

static int raw(cur *c, void *out, int size) {
  if (c->end - c->s < size) return 0;
  unsigned char *o = out;
  for (int k = 0; k < size; k++) o[k] = (unsigned char)c->s[c->swap ? size - 1 - k : k];
  c->s += size;
  return 1;
}

/* an integer of the binary file: int (4 bytes) or size_t (c->sizet bytes) */
static int bin_int(cur *c, int sizet, int64_t *v) {
  if (!sizet) {
    int32_t x;
    if (!raw(c, &x, 4)) return 0;
    *v = x;
  } else if (c->sizet == 8) {
    uint64_t x;
    if (!raw(c, &x, 8) || x > (uint64_t)INT64_MAX) return 0;
    *v = (int64_t)x;
  } else {
    uint32_t x;
    if (!raw(c, &x, 4)) return 0;
    *v = x;
  }
  return 1;
}

/* an integer in either encoding: ASCII text, or binary int / size_t */
static int num(cur *c, int sizet, int64_t *v) { return c->binary ? bin_int(c, sizet, v) : get_i64(c, v); }
static int real(cur *c, double *v) {
  if (!c->binary) return get_real(c, v);
  return raw(c, v, 8) && isfinite(*v);
}

/* past the line holding "$EndNAME" */
static int end_section(cur *c, const char *name) {
  char want[64];
  snprintf(want, sizeof want, "$End%s", name);
  size_t n = strlen(want);
  for (const char *p = c->s; p + n <= c->end; p++) {
    if (memcmp(p, want, n) == 0 && (p == c->text || p[-1] == '\n' || p[-1] == '\r' ||
                                    c->binary)) {
      c->s = p + n;
      while (c->s < c->end && *c->s != '\n') c->s++;
      return 1;
    }
  }
  return 0;
}

/* Gmsh's element types: the VTK type and, for quadratic ones, Gmsh's edges */
static int gmsh_type(int64_t t, int *vtk, int *nn, const signed char (**edges)[2]) {
  static const signed char tet10[6][2] = {{0, 1}, {1, 2}, {2, 0}, {3, 0}, {3, 2}, {3, 1}};
  static const signed char hex20[12][2] = {{0, 1}, {0, 3}, {0, 4}, {1, 2}, {1, 5}, {2, 3},
                                           {2, 6}, {3, 7}, {4, 5}, {4, 7}, {5, 6}, {6, 7}};
  static const signed char prism15[9][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 4},
                                            {2, 5}, {3, 4}, {3, 5}, {4, 5}};
  static const signed char line3[1][2] = {{0, 1}};
  static const signed char tri6[3][2] = {{0, 1}, {1, 2}, {2, 0}};
  static const signed char quad8[4][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}};
  *edges = NULL;
  switch (t) {
  case 15: *vtk = FCD_VTK_VERTEX; *nn = 1; return 1;
  case 1: *vtk = FCD_VTK_LINE; *nn = 2; return 1;
  case 2: *vtk = FCD_VTK_TRIANGLE; *nn = 3; return 1;
  case 3: *vtk = FCD_VTK_QUAD; *nn = 4; return 1;
  case 4: *vtk = FCD_VTK_TETRA; *nn = 4; return 1;
  case 5: *vtk = FCD_VTK_HEXAHEDRON; *nn = 8; return 1;
  case 6: *vtk = FCD_VTK_WEDGE; *nn = 6; return 1;
  case 7: *vtk = FCD_VTK_PYRAMID; *nn = 5; return 1;
  case 8: *vtk = FCD_VTK_QUADRATIC_EDGE; *nn = 3; *edges = line3; return 1;
  case 9: *vtk = FCD_VTK_QUADRATIC_TRIANGLE; *nn = 6; *edges = tri6; return 1;
  case 11: *vtk = FCD_VTK_QUADRATIC_TETRA; *nn = 10; *edges = tet10; return 1;
  case 16: *vtk = FCD_VTK_QUADRATIC_QUAD; *nn = 8; *edges = quad8; return 1;
  case 17: *vtk = FCD_VTK_QUADRATIC_HEXAHEDRON; *nn = 20; *edges = hex20; return 1;
  case 18: *vtk = FCD_VTK_QUADRATIC_WEDGE; *nn = 15; *edges = prism15; return 1;
  default: return 0;
  }
}

static fcd_status unsupported_type(const cur *c, int64_t t) {
  return fcd__err(c->ms->sys, FCD_E_UNSUPPORTED, "%s:%ld: Gmsh element type %lld is not read "
                  "(points, lines, triangles, quadrangles, tetrahedra, hexahedra, prisms, pyramids and "
                  "their serendipity second-order forms 8, 9, 11, 16, 17, 18: a complete "
                  "second-order mesh, 9-node quadrangles or 27-node hexahedra, is written "
                  "serendipity with Mesh.SecondOrderIncomplete = 1)", c->ms->path, line_of(c),
                  (long long)t);
}

/* physical groups: tag -> name (dims kept apart) */
typedef struct {
  int dim;
  int64_t tag;
  char name[128];
} physname;

typedef struct {
  physname *p;
  int n, cap;
  /* 4.1: the physical tags of each entity (dim, tag) */
  int64_t *ent; /* dim, tag, first, count per entity */
  int64_t *ptags;
  fcd_index nent, ptn;
} groups;

static const char *group_name(const groups *G, int dim, int64_t tag, char *buf, size_t cap) {
  for (int k = 0; k < G->n; k++)
    if (G->p[k].tag == tag && (G->p[k].dim == dim || dim < 0)) return G->p[k].name;
  snprintf(buf, cap, "physical:%lld", (long long)tag);
  return buf;
}

static fcd_status add_to_group(cur *c, const groups *G, int dim, int64_t tag, int64_t elem) {
  char buf[64];
  fcd__mgroup *g = fcd__ms_group(c->ms, group_name(G, dim, tag, buf, sizeof buf), FCD__G_ELEMENTS);
  if (!g || !fcd__ms_group_add(g, elem, 0, NULL))
    return fcd__err(c->ms->sys, FCD_E_NOMEM, "%s: out of memory", c->ms->path);
  return FCD_OK;
}

static fcd_status read_names(cur *c, groups *G) {
  int64_t n;
  if (G->p) return bad(c, "a second $PhysicalNames section");
  if (!get_i64(c, &n) || n < 0 || n > c->end - c->s) return bad(c, "bad count");
  G->p = fcd__calloc((size_t)n + 1, sizeof *G->p);
  if (!G->p) return fcd__err(c->ms->sys, FCD_E_NOMEM, "out of memory");
  for (int64_t k = 0; k < n; k++) {
    int64_t d, t;
    if (!get_i64(c, &d) || !get_i64(c, &t)) return bad(c, "expected 'dim tag \"name\"'");
    skip_ws(c);
    if (c->s >= c->end || *c->s != '"') return bad(c, "a physical name must be quoted");
    const char *q = memchr(c->s + 1, '"', (size_t)(c->end - c->s - 1));
    const char *nl = memchr(c->s, '\n', (size_t)(c->end - c->s));
    if (!q || (nl && nl < q) || q - c->s - 1 >= (long)sizeof G->p[0].name)
      return bad(c, "a physical name without its closing quote, or longer than 127");
    G->p[G->n].dim = (int)d;
    G->p[G->n].tag = t;
    memcpy(G->p[G->n].name, c->s + 1, (size_t)(q - c->s - 1));
    for (char *ch = G->p[G->n].name; *ch; ch++)
      if (*ch == ' ' || *ch == '\t') *ch = '_'; /* a contact file's names are one word */
    G->n++;
    c->s = q + 1;
  }
  return FCD_OK;
}

/* ---- MSH 2.2 ---- */

static fcd_status nodes22(cur *c) {
  int64_t n;
  if (!get_i64(c, &n) || n < 0 || n > c->end - c->s) return bad(c, "bad node count");
  if (c->binary) {
    const char *nl = memchr(c->s, '\n', (size_t)(c->end - c->s));
    c->s = nl ? nl + 1 : c->end;
  }
  for (int64_t k = 0; k < n; k++) {
    int64_t id;
    double x[3];
    if (!num(c, 0, &id) || !real(c, &x[0]) || !real(c, &x[1]) || !real(c, &x[2]))
      return bad(c, "a node needs a tag and three finite coordinates");
    if (!fcd__ms_node(c->ms, id, x[0], x[1], x[2]))
      return fcd__err(c->ms->sys, FCD_E_NOMEM, "%s: out of memory", c->ms->path);
  }
  return FCD_OK;
}

static fcd_status one_element(cur *c, int64_t id, int64_t type, const int64_t *nodes) {
  int vtk, nn;
  const signed char(*edges)[2];
  if (!gmsh_type(type, &vtk, &nn, &edges)) return unsupported_type(c, type);
  int64_t v[20];
  if (edges) fcd__ms_reorder(vtk, edges, nodes, v);
  if (!fcd__ms_elem(c->ms, id, vtk, edges ? v : nodes))
    return fcd__err(c->ms->sys, FCD_E_NOMEM, "%s: out of memory", c->ms->path);
  return FCD_OK;
}

static fcd_status elements22(cur *c, const groups *G) {
  int64_t n;
  if (!get_i64(c, &n) || n < 0 || n > c->end - c->s) return bad(c, "bad element count");
  if (c->binary) {
    const char *nl = memchr(c->s, '\n', (size_t)(c->end - c->s));
    c->s = nl ? nl + 1 : c->end;
  }
  for (int64_t k = 0; k < n;) {
    int64_t type, count = 1, ntags, id = 0;
    if (c->binary) {
      if (!bin_int(c, 0, &type) || !bin_int(c, 0, &count) || !bin_int(c, 0, &ntags) ||
          count < 1 || count > n - k || ntags < 0 || ntags > 64)
        return bad(c, "bad binary element block header");
    } else if (!get_i64(c, &id) || !get_i64(c, &type) || !get_i64(c, &ntags) || ntags < 0 ||
               ntags > 64)
      return bad(c, "an element needs a tag, a type and a tag count");
    int vtk, nn;
    const signed char(*edges)[2];
    if (!gmsh_type(type, &vtk, &nn, &edges)) return unsupported_type(c, type);
    for (int64_t q = 0; q < count; q++, k++) {
      int64_t tags[64], nodes[20];
      if (c->binary && !bin_int(c, 0, &id)) return bad(c, "the file ends inside an element");
      for (int64_t t = 0; t < ntags; t++)
        if (!num(c, 0, &tags[t])) return bad(c, "an element's tags end early");
      for (int a = 0; a < nn; a++)
        if (!num(c, 0, &nodes[a])) return bad(c, "an element has fewer nodes than its type");
      FCD_TRY(one_element(c, id, type, nodes));
      /* the first tag is the physical group (0: none) */
      if (ntags > 0 && tags[0] != 0) {
        int d = vtk == FCD_VTK_VERTEX ? 0 : (vtk == FCD_VTK_LINE || vtk == FCD_VTK_QUADRATIC_EDGE) ? 1
                : (vtk == FCD_VTK_TRIANGLE || vtk == FCD_VTK_QUAD ||
                   vtk == FCD_VTK_QUADRATIC_TRIANGLE || vtk == FCD_VTK_QUADRATIC_QUAD) ? 2 : 3;
        FCD_TRY(add_to_group(c, G, d, tags[0], id));
      }
    }
  }
  return FCD_OK;
}

/* ---- MSH 4.1 ---- */

static fcd_status entities41(cur *c, groups *G) {
  int64_t cnt[4];
  if (G->ent) return bad(c, "a second $Entities section");
  for (int d = 0; d < 4; d++)
    if (!num(c, 1, &cnt[d]) || cnt[d] < 0 || cnt[d] > c->end - c->s)
      return bad(c, "bad entity counts");
  int64_t total = cnt[0] + cnt[1] + cnt[2] + cnt[3];
  G->ent = fcd__malloc_array((size_t)total * 4 + 1, sizeof *G->ent);
  if (!G->ent) return fcd__err(c->ms->sys, FCD_E_NOMEM, "out of memory");
  for (int d = 0; d < 4; d++)
    for (int64_t k = 0; k < cnt[d]; k++) {
      int64_t tag, np, nb;
      double x;
      if (!num(c, 0, &tag)) return bad(c, "an entity needs a tag");
      for (int a = 0; a < (d == 0 ? 3 : 6); a++)
        if (!real(c, &x)) return bad(c, "an entity's coordinates or box end early");
      if (!num(c, 1, &np) || np < 0 || np > c->end - c->s) return bad(c, "bad physical tag count");
      int64_t *t = fcd__grow_array(G->ptags, (size_t)G->ptn, (size_t)(G->ptn + np + 1), sizeof *t);
      if (!t) return fcd__err(c->ms->sys, FCD_E_NOMEM, "out of memory");
      G->ptags = t;
      int64_t *e = &G->ent[4 * G->nent++];
      e[0] = d;
      e[1] = tag;
      e[2] = G->ptn;
      e[3] = np;
      for (int64_t q = 0; q < np; q++)
        if (!num(c, 0, &G->ptags[G->ptn++])) return bad(c, "physical tags end early");
      if (d > 0) {
        if (!num(c, 1, &nb) || nb < 0 || nb > c->end - c->s) return bad(c, "bad bounding count");
        for (int64_t q = 0; q < nb; q++)
          if (!num(c, 0, &tag)) return bad(c, "bounding entities end early");
      }
    }
  return FCD_OK;
}

static fcd_status nodes41(cur *c) {
  int64_t nb, nn, lo, hi;
  if (!num(c, 1, &nb) || !num(c, 1, &nn) || !num(c, 1, &lo) || !num(c, 1, &hi) || nb < 0 ||
      nn < 0 || nn > c->end - c->s)
    return bad(c, "bad header");
  int64_t got = 0;
  int64_t *tags = NULL;
  fcd_status st = FCD_OK;
  for (int64_t b = 0; b < nb && st == FCD_OK; b++) {
    int64_t d, t, par, n;
    if (!num(c, 0, &d) || !num(c, 0, &t) || !num(c, 0, &par) || !num(c, 1, &n) || n < 0 ||
        n > nn - got) {
      st = bad(c, "bad block header (or more nodes than the header says)");
      break;
    }
    int64_t *tt = fcd__grow_array(tags, 0, (size_t)n + 1, sizeof *tt);
    if (!tt) {
      st = fcd__err(c->ms->sys, FCD_E_NOMEM, "out of memory");
      break;
    }
    tags = tt;
    for (int64_t k = 0; k < n && st == FCD_OK; k++)
      if (!num(c, 1, &tags[k])) st = bad(c, "node tags end early");
    int extra = par ? (int)(d < 3 ? d : 3) : 0;
    for (int64_t k = 0; k < n && st == FCD_OK; k++) {
      double x[3], u;
      if (!real(c, &x[0]) || !real(c, &x[1]) || !real(c, &x[2]))
        st = bad(c, "a node needs three finite coordinates");
      for (int a = 0; a < extra && st == FCD_OK; a++)
        if (!real(c, &u)) st = bad(c, "a node's parametric coordinates end early");
      if (st == FCD_OK && !fcd__ms_node(c->ms, tags[k], x[0], x[1], x[2]))
        st = fcd__err(c->ms->sys, FCD_E_NOMEM, "out of memory");
    }
    got += n;
  }
  fcd__free(tags);
  if (st == FCD_OK && got != nn) st = bad(c, "the blocks hold fewer nodes than the header says");
  return st;
}

static fcd_status elements41(cur *c, const groups *G) {
  int64_t nb, ne, lo, hi;
  if (!num(c, 1, &nb) || !num(c, 1, &ne) || !num(c, 1, &lo) || !num(c, 1, &hi) || nb < 0 ||
      ne < 0 || ne > c->end - c->s)
    return bad(c, "bad header");
  int64_t got = 0;
  for (int64_t b = 0; b < nb; b++) {
    int64_t d, t, type, n;
    if (!num(c, 0, &d) || !num(c, 0, &t) || !num(c, 0, &type) || !num(c, 1, &n) || n < 0 ||
        n > ne - got)
      return bad(c, "bad block header (or more elements than the header says)");
    int vtk, nn;
    const signed char(*edges)[2];
    if (!gmsh_type(type, &vtk, &nn, &edges)) return unsupported_type(c, type);
    /* the entity's physical groups */
    const int64_t *ph = NULL;
    int64_t nph = 0;
    for (fcd_index k = 0; k < G->nent; k++)
      if (G->ent[4 * k] == d && G->ent[4 * k + 1] == t) {
        ph = G->ptags + G->ent[4 * k + 2];
        nph = G->ent[4 * k + 3];
      }
    for (int64_t k = 0; k < n; k++) {
      int64_t id, nodes[20];
      if (!num(c, 1, &id)) return bad(c, "the file ends inside an element");
      for (int a = 0; a < nn; a++)
        if (!num(c, 1, &nodes[a])) return bad(c, "an element has fewer nodes than its type");
      FCD_TRY(one_element(c, id, type, nodes));
      for (int64_t q = 0; q < nph; q++) FCD_TRY(add_to_group(c, G, (int)d, ph[q], id));
    }
    got += n;
  }
  if (got != ne) return bad(c, "the blocks hold fewer elements than the header says");
  return FCD_OK;
}

fcd_status fcd__read_gmsh(fcd__meshsrc *ms, const char *text, size_t len) {
  cur c = {ms, text, text + len, text, 0, 0, 8, NULL};
  groups G;
  memset(&G, 0, sizeof G);
  fcd_status st = FCD_OK;
  char t[64];
  double version = 0;
  int64_t ft = 0, ds = 0;
  if (!tok(&c, t, sizeof t) || strcmp(t, "$MeshFormat") != 0) return bad(&c, "not a Gmsh file");
  c.section = "$MeshFormat";
  if (!get_real(&c, &version) || !get_i64(&c, &ft) || !get_i64(&c, &ds) || (ft != 0 && ft != 1) ||
      (ds != 4 && ds != 8))
    return bad(&c, "expected 'VERSION FILE-TYPE DATA-SIZE'");
  if (!(version == 2.2 || version == 4.1))
    return fcd__err(ms->sys, FCD_E_UNSUPPORTED, "%s: MSH version %g (2.2 and 4.1 are read; "
                    "Gmsh writes either with -format msh22 or msh41)", ms->path, version);
  c.sizet = (int)ds;
  if (ft == 1) { /* the binary integer 1 after the header: its bytes tell the order */
    const char *nl = memchr(c.s, '\n', (size_t)(c.end - c.s));
    if (!nl || c.end - nl < 5) return bad(&c, "the binary marker is missing");
    c.s = nl + 1;
    unsigned char b[4];
    memcpy(b, c.s, 4);
    if (b[0] == 1 && !b[1] && !b[2] && !b[3]) c.swap = 0;
    else if (b[3] == 1 && !b[0] && !b[1] && !b[2]) c.swap = 1;
    else return bad(&c, "the binary marker is not the integer 1 in either byte order");
    /* the layout above assumes this machine little-endian; otherwise swap is reversed */
    {
      uint32_t one = 1;
      unsigned char ob[4];
      memcpy(ob, &one, 4);
      if (ob[0] != 1) c.swap = !c.swap;
    }
    c.s += 4;
  }
  if (!end_section(&c, "MeshFormat")) return bad(&c, "no $EndMeshFormat");
  int v4 = version > 3;
  while (st == FCD_OK && tok(&c, t, sizeof t)) {
    if (t[0] != '$') {
      st = bad(&c, "expected a section ($Nodes, $Elements, ...)");
      break;
    }
    const char *name = t + 1;
    c.section = t;
    /* a section's own line ends before its data in both encodings */
    while (c.s < c.end && *c.s != '\n') c.s++;
    if (!strcmp(name, "PhysicalNames")) st = read_names(&c, &G);
    else if (!strcmp(name, "Entities") && v4) {
      c.binary = (int)ft;
      if (c.binary) c.s++;
      st = entities41(&c, &G);
      c.binary = 0;
    } else if (!strcmp(name, "Nodes")) {
      c.binary = (int)ft;
      if (c.binary && v4) c.s++;
      st = v4 ? nodes41(&c) : nodes22(&c);
      c.binary = 0;
    } else if (!strcmp(name, "Elements")) {
      c.binary = (int)ft;
      if (c.binary && v4) c.s++;
      st = v4 ? elements41(&c, &G) : elements22(&c, &G);
      c.binary = 0;
    }
    if (st != FCD_OK) break;
    char sec[64];
    snprintf(sec, sizeof sec, "%s", name);
    c.binary = (int)ft;
    if (!end_section(&c, sec)) st = bad(&c, "the section has no end");
    c.binary = 0;
    c.section = NULL;
  }
  fcd__free(G.p);
  fcd__free(G.ent);
  fcd__free(G.ptags);
  return st;
}
