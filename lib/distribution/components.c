/* The components' seam (dist.h, fcd__comp_*): a distributed system's rows as components,
 * each rank's its own, for a reduction by components (capabilities/reduction/
 * reduction_parts.c): every matrix entry handed to the one rank whose component takes it,
 * and the sums and agreements of the reduced space. */
#include "dist_private.h"

#include <string.h>

/* the matrix's name in messages (the system layer's names, above this one) */
static const char *kind_name(fcd_matrix_kind which) {
  return which == FCD_MASS ? "mass" : which == FCD_STIFFNESS ? "stiffness" : "damping";
}


typedef struct {
  fcd_index n, cap;
  int *dest;
  fcd_index *i, *j;
  fcd_real *v;
} entry_list;

static void entries_free(entry_list *e) {
  fcd__free(e->dest);
  fcd__free(e->i);
  fcd__free(e->j);
  fcd__free(e->v);
  memset(e, 0, sizeof *e);
}

static int entries_add(entry_list *e, int dest, fcd_index i, fcd_index j, fcd_real v) {
  if (e->n == e->cap) {
    fcd_index nc = e->cap < 1024 ? 1024 : 2 * e->cap;
    int *d = fcd__grow_array(e->dest, (size_t)e->n, (size_t)nc, sizeof *d);
    if (!d) return 0;
    e->dest = d;
    fcd_index *a = fcd__grow_array(e->i, (size_t)e->n, (size_t)nc, sizeof *a);
    if (!a) return 0;
    e->i = a;
    fcd_index *b = fcd__grow_array(e->j, (size_t)e->n, (size_t)nc, sizeof *b);
    if (!b) return 0;
    e->j = b;
    fcd_real *c = fcd__grow_array(e->v, (size_t)e->n, (size_t)nc, sizeof *c);
    if (!c) return 0;
    e->v = c;
    e->cap = nc;
  }
  e->dest[e->n] = dest;
  e->i[e->n] = i;
  e->j[e->n] = j;
  e->v[e->n++] = v;
  return 1;
}

fcd_status fcd__comp_sort(fcd_system *sys, fcd_matrix_kind which, const unsigned char *role,
                          fcd_index *n, fcd_index **rows, fcd_index **cols, fcd_real **vals) {
  int rank = sys->dist ? sys->dist->rank : 0;
  entry_list mine_ = {0}, *mine = &mine_;
  *n = 0;
  *rows = *cols = NULL;
  *vals = NULL;
  const fcd__csr *a = &sys->mat[which];
  entry_list away = {0};
  fcd_index rb, re;
  fcd__rows_range(sys, &rb, &re);
  fcd_status st = FCD_OK;
  int ok = 1;
  for (fcd_index p = rb; a->set && p < re && ok && st == FCD_OK; p++)
    for (fcd_index e = a->rowptr[p]; e < a->rowptr[p + 1] && ok && st == FCD_OK; e++) {
      fcd_index q = a->col[e];
      for (int mirror = 0; mirror < 1 + (a->upper && p != q) && ok; mirror++) {
        fcd_index x = mirror ? q : p, y = mirror ? p : q;
        if (role[x] == FCD__COMP_HELD || role[y] == FCD__COMP_HELD || a->val[e] == 0) continue;
        int ox = fcd__dist_owner(sys, x), oy = fcd__dist_owner(sys, y), dest;
        if (role[x] == FCD__COMP_INTERIOR && role[y] == FCD__COMP_INTERIOR && ox != oy) {
          st = fcd__err(sys, FCD_E_UNSUPPORTED, "reduction on a distributed system: the %s "
                        "matrix's entry (%lld, %lld) couples the interior of rank %d's rows "
                        "with rank %d's; each rank's rows are a component, and components "
                        "may meet at kept dofs only (contact dofs, moving prescribed dofs): "
                        "give each rank whole bodies", kind_name(which), (long long)x,
                        (long long)y, ox, oy);
          break;
        }
        /* two kept dofs: the owner of the lower one's row, so that an entry and its
         * mirror meet on one rank (a component's matrices stay symmetric) */
        dest = role[x] == FCD__COMP_INTERIOR ? ox : role[y] == FCD__COMP_INTERIOR ? oy
                                                 : x < y ? ox : oy;
        ok = entries_add(dest == rank ? mine : &away, dest, x, y, a->val[e]);
      }
    }
  if (!ok) st = fcd__err(sys, FCD_E_NOMEM, "out of memory sorting the %s matrix's entries "
                         "by component", kind_name(which));
  /* the exchange is collective: a rank that failed above sends nothing, and learns of
   * the others' verdicts with them */
  fcd_status agreed = fcd__dist_agree(sys, st, 0, "reduction by components");
  if (agreed != FCD_OK) {
    entries_free(&away);
    entries_free(mine);
    return agreed;
  }
  fcd_index nin = 0, *ri = NULL, *ci = NULL;
  fcd_real *vi = NULL;
  st = fcd__dist_send_entries(sys, away.n, away.dest, away.i, away.j, away.v, &nin, &ri, &ci,
                              &vi);
  entries_free(&away);
  for (fcd_index k = 0; k < nin && st == FCD_OK; k++)
    if (!entries_add(mine, rank, ri[k], ci[k], vi[k]))
      st = fcd__err(sys, FCD_E_NOMEM, "out of memory gathering a component's entries");
  fcd__free(ri);
  fcd__free(ci);
  fcd__free(vi);
  if (st != FCD_OK) {
    entries_free(mine);
    return st;
  }
  fcd__free(mine->dest);
  *n = mine->n;
  *rows = mine->i;
  *cols = mine->j;
  *vals = mine->v;
  return FCD_OK;
}


fcd_status fcd__comp_sum(const fcd_system *sys, fcd_real *y, fcd_index n) {
  return fcd__dist_sum(sys, y, n);
}

int fcd__comp_any(const fcd_system *sys, int flag) {
  return fcd__dist_any(sys, flag);
}

fcd_status fcd__comp_agree(const fcd_system *sys, fcd_status st, const char *what) {
  return fcd__dist_agree(sys, st, 0, what);
}

fcd_status fcd__comp_bcast(const fcd_system *sys, void *buf, size_t bytes) {
  if (!sys->dist || sys->dist->size == 1) return FCD_OK;
  return fcd__comm_bcast(sys, (int64_t)MPI_Comm_c2f(sys->dist->comm), buf, bytes, 0);
}

int fcd__comp_rank(const fcd_system *sys) {
  return sys->dist ? sys->dist->rank : 0;
}

int fcd__comp_on(const fcd_system *sys) {
  return sys->dist != NULL;
}
