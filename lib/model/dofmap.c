/* The dof map: the sorted union of (node label, dof) pairs, each pair one index. Pairs are
 * added unsorted and the table is sorted and made unique on the first lookup after an
 * addition; lookups bisect it. */
#include "import_private.h"
#include "system.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct fcd_dofmap {
  uint32_t magic;
  fcd_index n, cap;
  int64_t *lab;
  signed char *dof;
  int sorted;
};

#define CHECK_MAP(m) ((m) && (m)->magic == FCD_DOFMAP_MAGIC)

fcd_status fcd_dofmap_create(fcd_dofmap **out) {
  if (!out) return FCD_E_INVALID_ARG;
  *out = NULL;
  fcd_dofmap *m = fcd__calloc(1, sizeof *m);
  if (!m) return FCD_E_NOMEM;
  m->magic = FCD_DOFMAP_MAGIC;
  m->sorted = 1;
  *out = m;
  return FCD_OK;
}

void fcd_dofmap_destroy(fcd_dofmap *m) {
  if (!CHECK_MAP(m)) return;
  fcd__free(m->lab);
  fcd__free(m->dof);
  m->magic = 0;
  fcd__free(m);
}

static int push(fcd_dofmap *m, int64_t label, int dof) {
  if (m->n == m->cap) {
    size_t oc = (size_t)m->cap, nc = oc ? 2 * oc : 256;
    int64_t *l = fcd__grow_array(m->lab, oc, nc, sizeof *l);
    if (!l) return 0;
    m->lab = l;
    signed char *d = fcd__grow_array(m->dof, oc, nc, 1);
    if (!d) return 0;
    m->dof = d;
    m->cap = (fcd_index)nc;
  }
  m->lab[m->n] = label;
  m->dof[m->n] = (signed char)dof;
  m->n++;
  m->sorted = 0;
  return 1;
}

fcd_status fcd_dofmap_add(fcd_dofmap *m, int64_t label, int dof) {
  if (!CHECK_MAP(m) || dof < 0 || dof > 6) return FCD_E_INVALID_ARG;
  return push(m, label, dof) ? FCD_OK : FCD_E_NOMEM;
}

fcd_status fcd_dofmap_add_matrix(fcd_dofmap *m, const fcd_matrix_file *f) {
  if (!CHECK_MAP(m) || !f || f->magic != FCD_MATRIX_FILE_MAGIC || !f->labelled)
    return FCD_E_INVALID_ARG;
  for (fcd_index k = 0; k < f->n; k++)
    if (!push(m, f->ri[k], f->rd[k]) || !push(m, f->ci[k], f->cd[k])) return FCD_E_NOMEM;
  return FCD_OK;
}

typedef struct {
  int64_t lab;
  int dof;
} pair;

static int cmp(const void *a, const void *b) {
  const pair *x = a, *y = b;
  if (x->lab != y->lab) return x->lab < y->lab ? -1 : 1;
  return (x->dof > y->dof) - (x->dof < y->dof);
}

/* sorts and makes unique in place; 0 when out of memory (the map unchanged) */
static int settle(fcd_dofmap *m) {
  if (m->sorted) return 1;
  pair *p = fcd__malloc_array((size_t)m->n + 1, sizeof *p);
  if (!p) return 0;
  for (fcd_index k = 0; k < m->n; k++) p[k] = (pair){m->lab[k], m->dof[k]};
  qsort(p, (size_t)m->n, sizeof *p, cmp);
  fcd_index u = 0;
  for (fcd_index k = 0; k < m->n; k++)
    if (u == 0 || cmp(&p[k], &p[u - 1]) != 0) p[u++] = p[k];
  for (fcd_index k = 0; k < u; k++) {
    m->lab[k] = p[k].lab;
    m->dof[k] = (signed char)p[k].dof;
  }
  m->n = u;
  m->sorted = 1;
  fcd__free(p);
  return 1;
}

fcd_index fcd_dofmap_size(const fcd_dofmap *m) {
  if (!CHECK_MAP(m)) return 0;
  /* the count is the unique pairs': settling is the map's own business */
  if (!settle((fcd_dofmap *)m)) return 0;
  return m->n;
}

fcd_status fcd__dofmap_lookup(const fcd_dofmap *cm, int64_t label, int dof, fcd_index *index) {
  fcd_dofmap *m = (fcd_dofmap *)cm;
  *index = -1;
  if (!settle(m)) return FCD_E_NOMEM;
  fcd_index lo = 0, hi = m->n;
  pair key = {label, dof};
  while (lo < hi) {
    fcd_index mid = lo + (hi - lo) / 2;
    pair at = {m->lab[mid], m->dof[mid]};
    int c = cmp(&at, &key);
    if (c == 0) {
      *index = mid;
      return FCD_OK;
    }
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return FCD_E_INVALID_ARG;
}

fcd_status fcd_dofmap_index(const fcd_dofmap *m, int64_t label, int dof, fcd_index *index) {
  if (!CHECK_MAP(m) || !index) return FCD_E_INVALID_ARG;
  return fcd__dofmap_lookup(m, label, dof, index);
}

fcd_status fcd_dofmap_pair(const fcd_dofmap *cm, fcd_index index, int64_t *label, int *dof) {
  fcd_dofmap *m = (fcd_dofmap *)cm;
  if (!CHECK_MAP(m)) return FCD_E_INVALID_ARG;
  if (!settle(m)) return FCD_E_NOMEM;
  if (index < 0 || index >= m->n) return FCD_E_INVALID_ARG;
  if (label) *label = m->lab[index];
  if (dof) *dof = m->dof[index];
  return FCD_OK;
}

fcd_status fcd_dofmap_write(const fcd_dofmap *cm, const char *path, char *errbuf,
                            size_t errcap) {
  fcd_dofmap *m = (fcd_dofmap *)cm;
  if (!CHECK_MAP(m) || !path)
    return fcd__err_to(NULL, errbuf, errcap, FCD_E_INVALID_ARG, "dofmap_write: %s",
                       path ? "not a dof map" : "path is NULL");
  if (!settle(m)) return fcd__err_to(NULL, errbuf, errcap, FCD_E_NOMEM, "out of memory");
  size_t pl = strlen(path);
  char *tmp = fcd__malloc(pl + 8);
  if (!tmp) return fcd__err_to(NULL, errbuf, errcap, FCD_E_NOMEM, "out of memory");
  snprintf(tmp, pl + 8, "%s.part", path);
  FILE *fp = fopen(tmp, "w");
  if (!fp) {
    fcd_status st = fcd__err_to(NULL, errbuf, errcap, FCD_E_IO, "cannot create '%s': %s",
                                tmp, strerror(errno));
    fcd__free(tmp);
    return st;
  }
  fprintf(fp, "# fcd dof map: index (0-based) node-label dof\n");
  for (fcd_index k = 0; k < m->n; k++)
    fprintf(fp, "%lld %lld %d\n", (long long)k, (long long)m->lab[k], m->dof[k]);
  int bad = ferror(fp);
  bad |= fclose(fp) != 0;
  fcd_status st = FCD_OK;
  if (bad || rename(tmp, path) != 0) {
    remove(tmp);
    st = fcd__err_to(NULL, errbuf, errcap, FCD_E_IO, "write error on '%s'", path);
  }
  fcd__free(tmp);
  return st;
}

fcd_status fcd_system_set_dofmap(fcd_system *sys, const fcd_dofmap *cm) {
  FCD_CHECK_SYS(sys);
  fcd_dofmap *m = (fcd_dofmap *)cm;
  if (m && !CHECK_MAP(m))
    return fcd__err(sys, FCD_E_INVALID_ARG, "set_dofmap: not a dof map");
  if (m && !settle(m)) return fcd__err(sys, FCD_E_NOMEM, "set_dofmap: out of memory");
  if (m && m->n != sys->n)
    return fcd__err(sys, FCD_E_INVALID_ARG, "set_dofmap: the map has %lld dofs, the system "
                    "%lld", (long long)m->n, (long long)sys->n);
  int64_t *lab = NULL;
  signed char *dof = NULL;
  if (m) {
    lab = fcd__malloc_array((size_t)m->n, sizeof *lab);
    dof = fcd__malloc_array((size_t)m->n, 1);
    if (!lab || !dof) {
      fcd__free(lab);
      fcd__free(dof);
      return fcd__err(sys, FCD_E_NOMEM, "set_dofmap: out of memory");
    }
    memcpy(lab, m->lab, (size_t)m->n * sizeof *lab);
    memcpy(dof, m->dof, (size_t)m->n);
  }
  fcd__free(sys->map_label);
  fcd__free(sys->map_dof);
  sys->map_label = lab;
  sys->map_dof = dof;
  return FCD_OK;
}

int fcd__system_dof_of(const fcd_system *sys, int64_t label, int dof, fcd_index *index) {
  *index = -1;
  if (!sys->map_label) return 1;
  fcd_index lo = 0, hi = sys->n;
  while (lo < hi) {
    fcd_index mid = lo + (hi - lo) / 2;
    int64_t l = sys->map_label[mid];
    int d = sys->map_dof[mid];
    if (l == label && d == dof) {
      *index = mid;
      return 0;
    }
    if (l < label || (l == label && d < dof)) lo = mid + 1;
    else hi = mid;
  }
  return 2;
}

int fcd__node_ref(const fcd_system *sys, const char **s, fcd_index *index, char *why,
                  size_t cap) {
  const char *p = *s;
  while (*p == ' ' || *p == '\t') p++;
  if (strncasecmp(p, "node", 4) || (p[4] != ' ' && p[4] != '\t')) return 0;
  p += 4;
  char *e;
  errno = 0;
  long long label = strtoll(p, &e, 10);
  if (e == p || errno == ERANGE) {
    snprintf(why, cap, "'node' needs a label and a dof");
    return -1;
  }
  p = e;
  long dof = strtol(p, &e, 10);
  if (e == p || dof < 0 || dof > 6) {
    snprintf(why, cap, "'node %lld' needs a dof 0..6 after it", label);
    return -1;
  }
  int got = fcd__system_dof_of(sys, label, (int)dof, index);
  if (got == 1) {
    snprintf(why, cap, "names node %lld dof %ld, but the system has no dof map "
             "(fcd_system_set_dofmap; the program makes one from labelled matrices)",
             label, dof);
    return -1;
  }
  if (got) {
    snprintf(why, cap, "node %lld dof %ld is not a dof of the model's matrices", label, dof);
    return -1;
  }
  *s = e;
  return 1;
}
