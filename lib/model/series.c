/* Time series for ParaView: one file per frame and a collection that lists the frames
 * with their times, in one of the formats of the writers' table (below): by default VTK
 * XML unstructured grids (.vtu), their arrays appended as raw binary (no base64, no
 * compression: a frame costs one pass over its arrays and one write), and a .pvd
 * collection; or legacy VTK files (series_vtk.c) and a .vtk.series collection. ParaView
 * opens the collection as one animated dataset.
 *
 * Every file is complete at all times: a frame is written to a temporary name and
 * renamed, and the collection, made whole (empty) at creation, grows by one write
 * (pwrite) of the new frame's line and the closing tags over the old closing tags, so a
 * run that fails or is killed leaves a collection that lists the frames it finished.
 *
 * By default a frame is written by the series' own thread: fcd_series_write checks the
 * frame, copies what it needs (the caller's arrays, and the contact quantities, which
 * read the contact set the caller may change) and returns; the conversion to nodes, the
 * file and the collection's entry are made while the caller goes on. One frame at most
 * is in flight: the next call waits for it and reports its write error, as fflush
 * reports a buffered fwrite's. The writer never touches the system (its messages are
 * kept and given by the caller's thread). */
#include "model.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FCD_SERIES_MAGIC 0x66637372u /* "fcsr" */
#define FCD_SERIES_MAX_FIELDS 16

/* what a frame holds, fixed by the first frame */
enum { HAS_V = 1, HAS_R = 2, HAS_S = 4 };

struct fcd_series {
  uint32_t magic;
  const fcd__series_writer *w; /* the format (fcd_series_set_format) */
  int ids[16];      /* the A_* of the current frame's arrays */
  fcd_system *sys; /* retained: messages go there */
  fcd_contact_set *cs; /* held as an integrator holds it (fcd__contact_set_release) */
  char *dir, *name;
  int dim, cdim, layout; /* layout: HAS_* of the first frame, -1 before it */
  fcd_index nnodes, ncells, nframes, ndofs, ncont;
  /* the mesh's arrays, copied: the mesh may go before the series */
  fcd_real *coords;
  fcd_index *node_dofs, *offset, *conn;
  unsigned char *types;
  int32_t *c32, *o32; /* the cells as Int32 when they fit: a third less per frame */
  fcd_index *hptr, *hlist; /* contact c's nodes: hlist[hptr[c] .. hptr[c + 1]) */
  int kinds;        /* 1: a force contact exists, 2: a mortar contact exists */
  unsigned char *mortar; /* per contact */
  fcd_real *buf;    /* 3 per node (the writer's) */
  fcd_real *gap, *slip; /* cdim per contact: the frame's local gaps and slip velocities */
  fcd_real *glob;   /* ndofs: the frame's nodal contact forces H^T r */
  long long footer; /* the collection's closing tags' offset */
  fcd_real last_t;  /* the last frame's time, in flight included: each frame's is later */
  int nfd;          /* field data of every frame from now on (fcd_series_set_field) */
  char fd_name[FCD_SERIES_MAX_FIELDS][64];
  fcd_real fd_val[FCD_SERIES_MAX_FIELDS];
  uint64_t bytes;   /* written so far, frames and collection */
  /* the frame to write (in flight when async): its values are the caller's arrays
   * (synchronous) or the copies below */
  struct {
    fcd_real t;
    const fcd_real *u, *v, *r;
    const int *status;
    int layout, nfd;
    char fd_name[FCD_SERIES_MAX_FIELDS][64];
    fcd_real fd_val[FCD_SERIES_MAX_FIELDS];
  } job;
  fcd_real *cu, *cv, *cr; /* the copies: ndofs, ndofs, cdim per contact */
  int *cst;               /* one per contact */
  fcd_index done;         /* frames on disk and in the collection */
  fcd_real done_t;        /* the last of them's time */
  /* the writer thread (fcd_series_set_async) */
  int async, thread_on, sync_ok, busy, quit;
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t cv_job;
  fcd_status job_st; /* the frame in flight's outcome, until the caller's thread takes it */
  char job_msg[640];
};

static const fcd__series_writer writer_vtu; /* the default format, defined below */

static const char *byte_order(void) {
  return fcd__little_endian() ? "LittleEndian" : "BigEndian";
}

static int series_valid(const fcd_series *s) {
  return s && s->magic == FCD_SERIES_MAGIC && fcd__system_valid(s->sys);
}

static char *dup_str(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = fcd__malloc_array(n, 1);
  if (d) memcpy(d, s, n);
  return d;
}

/* the writer thread: one frame at a time, from s->job, until told to quit */
static fcd_status write_job(fcd_series *s, char *msg, size_t cap);

static void *writer_main(void *arg) {
  fcd_series *s = arg;
  pthread_mutex_lock(&s->mu);
  for (;;) {
    while (!s->busy && !s->quit) pthread_cond_wait(&s->cv_job, &s->mu);
    if (!s->busy) break;
    pthread_mutex_unlock(&s->mu);
    char msg[sizeof s->job_msg];
    fcd_status st = write_job(s, msg, sizeof msg);
    pthread_mutex_lock(&s->mu);
    if (st != FCD_OK) memcpy(s->job_msg, msg, sizeof msg);
    s->job_st = st;
    s->busy = 0;
    pthread_cond_broadcast(&s->cv_job);
  }
  pthread_mutex_unlock(&s->mu);
  return NULL;
}

/* waits for the frame in flight (none: returns at once) */
static void wait_idle(fcd_series *s) {
  if (!s->thread_on) return;
  pthread_mutex_lock(&s->mu);
  while (s->busy) pthread_cond_wait(&s->cv_job, &s->mu);
  pthread_mutex_unlock(&s->mu);
}

/* the frame in flight's outcome, given to the system's message in the caller's thread;
 * a frame that failed is no frame: the count and the last time go back to the ones on
 * disk */
static fcd_status take_outcome(fcd_series *s) {
  wait_idle(s);
  if (s->job_st == FCD_OK) return FCD_OK;
  s->job_st = FCD_OK;
  s->nframes = s->done;
  s->last_t = s->done_t;
  if (s->done == 0) s->layout = -1;
  /* write_job's only failure: a file that cannot be made, written or renamed */
  return fcd__err(s->sys, FCD_E_IO, "%s", s->job_msg);
}

static void stop_thread(fcd_series *s) {
  if (!s->thread_on) return;
  pthread_mutex_lock(&s->mu);
  s->quit = 1;
  pthread_cond_broadcast(&s->cv_job);
  pthread_mutex_unlock(&s->mu);
  pthread_join(s->thread, NULL);
  s->thread_on = 0;
  s->quit = 0;
}

/* the thread, with every signal blocked (the host's handlers run on the host's threads);
 * 0 when it cannot be made, and the series then writes in the caller's thread */
static int start_thread(fcd_series *s) {
  sigset_t all, old;
  sigfillset(&all);
  if (pthread_sigmask(SIG_SETMASK, &all, &old) != 0) return 0;
  int ok = pthread_create(&s->thread, NULL, writer_main, s) == 0;
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  s->thread_on = ok;
  return ok;
}

static void series_free(fcd_series *s) {
  stop_thread(s);
  if (s->sync_ok) {
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv_job);
  }
  fcd__free(s->cu);
  fcd__free(s->cv);
  fcd__free(s->cr);
  fcd__free(s->cst);
  if (s->cs) fcd__contact_set_release(s->cs);
  fcd__free(s->coords);
  fcd__free(s->node_dofs);
  fcd__free(s->offset);
  fcd__free(s->conn);
  fcd__free(s->c32);
  fcd__free(s->o32);
  fcd__free(s->types);
  fcd__free(s->dir);
  fcd__free(s->name);
  fcd__free(s->hptr);
  fcd__free(s->hlist);
  fcd__free(s->mortar);
  fcd__free(s->buf);
  fcd__free(s->gap);
  fcd__free(s->slip);
  fcd__free(s->glob);
  s->magic = 0;
  fcd_system *sys = s->sys;
  fcd__free(s);
  fcd__system_release(sys);
}

void fcd_series_destroy(fcd_series *s) {
  if (!s || s->magic != FCD_SERIES_MAGIC) return;
  series_free(s);
}

/* The nodes each contact's values are shown at: both nodes of a pair, the node of a
 * node contact, the first node of a row contact's normal row (a surface pair's slave
 * node: surface.c lists it first) */
static fcd_status contact_nodes(fcd_series *s) {
  const fcd_contact_set *cs = s->cs;
  fcd_system *sys = s->sys;
  fcd_index n = sys->n;
  fcd_index *dof_node = fcd__malloc_array((size_t)n + 1, sizeof *dof_node);
  s->hptr = fcd__malloc_array((size_t)cs->n + 1, sizeof *s->hptr);
  s->hlist = fcd__malloc_array(2 * (size_t)cs->n + 1, sizeof *s->hlist);
  s->mortar = fcd__calloc((size_t)cs->n + 1, 1);
  if (!dof_node || !s->hptr || !s->hlist || !s->mortar) {
    fcd__free(dof_node);
    return fcd__err(sys, FCD_E_NOMEM, "series: out of memory");
  }
  for (fcd_index i = 0; i < n; i++) dof_node[i] = -1;
  for (fcd_index k = 0; k < s->nnodes * s->dim; k++)
    if (s->node_dofs[k] >= 0) dof_node[s->node_dofs[k]] = k / s->dim;
  fcd_index q = 0;
  for (fcd_index c = 0; c < cs->n; c++) {
    const fcd__contact *k = &cs->c[c];
    s->hptr[c] = q;
    s->mortar[c] = (unsigned char)(k->mortar != 0);
    s->kinds |= k->mortar ? 2 : 1;
    if (k->rows) {
      fcd_index p = cs->rptr[k->row0];
      if (p < cs->rptr[k->row0 + 1] && dof_node[cs->rdof[p]] >= 0)
        s->hlist[q++] = dof_node[cs->rdof[p]];
      continue;
    }
    for (int side = 0; side < (k->pair ? 2 : 1); side++) {
      fcd_index d = (side ? k->dofs_b : k->dofs_a)[0];
      if (dof_node[d] >= 0) s->hlist[q++] = dof_node[d];
    }
  }
  s->hptr[cs->n] = q;
  fcd__free(dof_node);
  return FCD_OK;
}

/* the frames of an earlier series of this name and format in this directory
 * (NAME-000000.EXT and on, up to the first missing): the new collection replaces that
 * series, and frames of it beyond the new one's count would otherwise stay beside it,
 * looking like its own */
static fcd_status remove_old_frames(fcd_series *s) {
  char path[4300];
  for (long long k = 0;; k++) {
    snprintf(path, sizeof path, "%s/%s-%06lld.%s", s->dir, s->name, k, s->w->ext);
    if (remove(path) == 0) continue;
    if (errno == ENOENT) return FCD_OK;
    return fcd__err(s->sys, FCD_E_IO, "series: cannot remove '%s', a frame of an earlier "
                    "series of this name: %s", path, strerror(errno));
  }
}

static void collection_path(const fcd_series *s, char *path, size_t cap) {
  snprintf(path, cap, "%s/%s.%s", s->dir, s->name, s->w->collection_ext);
}

/* the empty collection, whole, replacing any earlier one */
static fcd_status collection_start(fcd_series *s) {
  char path[4200], tmp[4300];
  collection_path(s, path, sizeof path);
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *fp = fopen(tmp, "w");
  if (!fp) return fcd__err(s->sys, FCD_E_IO, "series: cannot create '%s': %s", tmp, strerror(errno));
  const char *head = s->w->head();
  fputs(head, fp);
  fputs(s->w->foot, fp);
  int bad = ferror(fp);
  if (fclose(fp) != 0 || bad || rename(tmp, path) != 0) {
    remove(tmp);
    return fcd__err(s->sys, FCD_E_IO, "series: write error on '%s'", path);
  }
  s->footer = (long long)strlen(head);
  s->bytes = (uint64_t)s->footer + strlen(s->w->foot);
  return FCD_OK;
}

fcd_status fcd_series_create(const fcd_mesh *m, const fcd_contact_set *cs, const char *dir,
                             const char *name, fcd_series **out) {
  if (out) *out = NULL;
  const fcd_system *csys = NULL;
  int dim = 0;
  fcd_index nnodes = 0;
  const fcd_real *coords = NULL;
  const fcd_index *node_dofs = NULL;
  if (!fcd__mesh_geometry(m, &csys, &dim, &nnodes, &coords, &node_dofs))
    return FCD_E_INVALID_ARG;
  fcd_system *sys = (fcd_system *)(uintptr_t)csys;
  if (!out) return fcd__err(sys, FCD_E_INVALID_ARG, "series_create: out is NULL");
  if (!dir || !*dir) return fcd__err(sys, FCD_E_INVALID_ARG, "series_create: dir is NULL or empty");
  if (strlen(dir) > 4000)
    return fcd__err(sys, FCD_E_INVALID_ARG, "series_create: dir is longer than 4000 characters");
  if (!fcd__vtk_name_ok(name, 200, "-."))
    return fcd__err(sys, FCD_E_INVALID_ARG, "series_create: the name must be 1 to 200 "
                    "letters, digits, '_', '-' or '.'");
  if (cs && (!fcd__contact_set_valid(cs) || cs->sys != sys))
    return fcd__err(sys, FCD_E_INVALID_ARG, "series_create: the contact set is invalid or "
                    "belongs to another system");
  if (cs && cs->dim != dim)
    return fcd__err(sys, FCD_E_INVALID_ARG, "series_create: the contact set is %dD, the mesh "
                    "%dD", cs->dim, dim);
  fcd_series *s = fcd__calloc(1, sizeof *s);
  if (!s) return fcd__err(sys, FCD_E_NOMEM, "series_create: out of memory");
  s->sys = sys;
  fcd__system_retain(sys);
  s->dim = dim;
  s->cdim = cs ? cs->dim : 0;
  s->layout = -1;
  s->nnodes = nnodes;
  s->ndofs = sys->n;
  s->magic = FCD_SERIES_MAGIC;
  if (cs) {
    s->cs = (fcd_contact_set *)(uintptr_t)cs;
    s->cs->children++;
    s->ncont = cs->n;
  }
  const fcd_index *offset = NULL, *conn = NULL;
  const int *types = fcd__mesh_types(m);
  fcd__mesh_cells(m, &s->ncells, &offset, &conn);
  size_t nd = (size_t)(nnodes * dim), nconn = (size_t)offset[s->ncells];
  s->coords = fcd__malloc_array(nd + 1, sizeof *s->coords);
  s->node_dofs = fcd__malloc_array(nd + 1, sizeof *s->node_dofs);
  s->offset = fcd__malloc_array((size_t)s->ncells + 1, sizeof *s->offset);
  s->conn = fcd__malloc_array(nconn + 1, sizeof *s->conn);
  s->types = fcd__malloc_array((size_t)s->ncells + 1, 1);
  if (s->coords && s->node_dofs && s->offset && s->conn && s->types) {
    memcpy(s->coords, coords, nd * sizeof *coords);
    memcpy(s->node_dofs, node_dofs, nd * sizeof *node_dofs);
    memcpy(s->offset, offset, ((size_t)s->ncells + 1) * sizeof *offset);
    memcpy(s->conn, conn, nconn * sizeof *conn);
    for (fcd_index c = 0; c < s->ncells; c++) s->types[c] = (unsigned char)types[c];
    if ((fcd_index)nconn < INT32_MAX && nnodes < INT32_MAX) {
      s->c32 = fcd__malloc_array(nconn + 1, sizeof *s->c32);
      s->o32 = fcd__malloc_array((size_t)s->ncells + 1, sizeof *s->o32);
      for (size_t q = 0; s->c32 && q < nconn; q++) s->c32[q] = (int32_t)conn[q];
      for (fcd_index c = 0; s->o32 && c < s->ncells; c++) s->o32[c] = (int32_t)offset[c + 1];
      if (!s->c32 || !s->o32) { /* Int64 then: larger, still right */
        fcd__free(s->c32);
        fcd__free(s->o32);
        s->c32 = s->o32 = NULL;
      }
    }
  }
  s->dir = dup_str(dir);
  s->name = dup_str(name);
  s->buf = fcd__malloc_array(3 * (size_t)nnodes + 1, sizeof *s->buf);
  size_t nl = cs ? (size_t)(cs->n * cs->dim) : 0, nc = cs ? (size_t)cs->n : 0;
  s->glob = fcd__malloc_array((size_t)sys->n + 1, sizeof *s->glob);
  s->gap = fcd__malloc_array(nl + 1, sizeof *s->gap);
  s->slip = fcd__malloc_array(nl + 1, sizeof *s->slip);
  s->cu = fcd__malloc_array((size_t)sys->n + 1, sizeof *s->cu);
  s->cv = fcd__malloc_array((size_t)sys->n + 1, sizeof *s->cv);
  s->cr = fcd__malloc_array(nl + 1, sizeof *s->cr);
  s->cst = fcd__malloc_array(nc + 1, sizeof *s->cst);
  s->sync_ok = pthread_mutex_init(&s->mu, NULL) == 0;
  if (s->sync_ok && pthread_cond_init(&s->cv_job, NULL) != 0) {
    pthread_mutex_destroy(&s->mu);
    s->sync_ok = 0;
  }
  s->async = s->sync_ok; /* in the background by default */
  fcd_status st = FCD_OK;
  if (!s->dir || !s->name || !s->buf || !s->glob || !s->gap || !s->slip || !s->cu ||
      !s->cv || !s->cr || !s->cst || !s->coords || !s->node_dofs || !s->offset || !s->conn ||
      !s->types)
    st = fcd__err(sys, FCD_E_NOMEM, "series_create: out of memory");
  if (st == FCD_OK && cs) st = contact_nodes(s);
  s->w = &writer_vtu;
  if (st == FCD_OK) st = collection_start(s);
  if (st == FCD_OK) st = remove_old_frames(s);
  if (st != FCD_OK) {
    series_free(s);
    return st;
  }
  *out = s;
  return FCD_OK;
}

/* ---- one frame ---- */

/* a frame's arrays, in the order they are made: point data, then the points and the
 * cells */
enum {
  A_DISP, A_VEL, A_CFORCE, A_STATUS, A_GAP, A_SLIP, A_RN_FORCE, A_RT_FORCE, A_PRESSURE,
  A_SHEAR, A_POINTS, A_CONN, A_OFFSETS, A_TYPES
};

static uint64_t esize(int type) {
  return type == FCD__AT_REAL || type == FCD__AT_INT64 ? 8 : type == FCD__AT_INT32 ? 4 : 1;
}

/* field x over the dofs as 3 components per node into buf */
static void per_node(const fcd_series *s, const fcd_real *x, fcd_real *buf) {
  for (fcd_index p = 0; p < s->nnodes; p++)
    for (int j = 0; j < 3; j++) {
      fcd_index d = j < s->dim ? s->node_dofs[p * s->dim + j] : -1;
      buf[3 * p + j] = d >= 0 ? x[d] : 0.0;
    }
}

/* a contact quantity (k components from the local vector x, dim per contact, starting at
 * component c0; or the status) at each contact's nodes, 0 elsewhere; only contacts of
 * the kind wanted (1 force, 2 mortar, 3 both); fill elsewhere */
static void contact_field(const fcd_series *s, const fcd_real *x, int c0, int k, int kind,
                          fcd_real fill, fcd_real *out) {
  for (fcd_index p = 0; p < s->nnodes * k; p++) out[p] = fill;
  for (fcd_index c = 0; c < s->ncont; c++) {
    if (!((s->mortar[c] ? 2 : 1) & kind)) continue;
    for (fcd_index q = s->hptr[c]; q < s->hptr[c + 1]; q++)
      for (int j = 0; j < k; j++) out[s->hlist[q] * k + j] = x[c * s->cdim + c0 + j];
  }
}

static fcd_status frame_check(fcd_series *s, const fcd_real *u, const fcd_real *v,
                              const fcd_real *r, const int *status, int *layout) {
  fcd_system *sys = s->sys;
  if (!u) return fcd__err(sys, FCD_E_INVALID_ARG, "series_write: u is NULL");
  if (sys->n != s->ndofs)
    return fcd__err(sys, FCD_E_STATE, "series_write: the system changed size since the "
                    "series was made");
  if (s->cs && (s->cs->zombie || s->cs->n != s->ncont))
    return fcd__err(sys, FCD_E_STATE, "series_write: the contact set changed (%lld contacts, "
                    "%lld when the series was made)", (long long)s->cs->n, (long long)s->ncont);
  if (!s->cs && (r || status))
    return fcd__err(sys, FCD_E_INVALID_ARG, "series_write: reactions or statuses given to a "
                    "series made without a contact set");
  *layout = (v ? HAS_V : 0) | (r ? HAS_R : 0) | (status ? HAS_S : 0);
  if (s->layout >= 0 && *layout != s->layout)
    return fcd__err(sys, FCD_E_INVALID_ARG, "series_write: frame %lld gives %s%s%s where the "
                    "first frame %s: every frame of a series has the same arrays",
                    (long long)s->nframes, (*layout & HAS_V) ? "v" : "no v",
                    (*layout & HAS_R) ? ", reactions" : ", no reactions",
                    (*layout & HAS_S) ? ", statuses" : ", no statuses",
                    s->layout == *layout ? "did" : "did not");
  /* a NaN reaches ParaView as a hole in the colour map and a point thrown to nowhere
   * by the warp filter: refused, with the first one named */
  const fcd_real *arr[3] = {u, v, r};
  const char *an[3] = {"u", "v", "reactions"};
  fcd_index len[3] = {s->ndofs, s->ndofs, s->cs ? s->ncont * s->cdim : 0};
  for (int a = 0; a < 3; a++)
    for (fcd_index i = 0; arr[a] && i < len[a]; i++)
      if (!isfinite(arr[a][i]))
        return fcd__err(sys, FCD_E_INVALID_ARG, "series_write: %s[%lld] is not finite (%g); "
                        "the series keeps its %lld frames", an[a], (long long)i, arr[a][i],
                        (long long)s->nframes);
  if (status)
    for (fcd_index c = 0; c < s->cs->n; c++)
      if (status[c] < FCD_CONTACT_OPEN || status[c] > FCD_CONTACT_SLIP)
        return fcd__err(sys, FCD_E_INVALID_ARG, "series_write: contact %lld has status %d "
                        "(0 open, 1 stick, 2 slip)", (long long)c, status[c]);
  return FCD_OK;
}

/* the frame's arrays; returns their count */
static int frame_arrays(fcd_series *s, int layout, fcd__frame_array *a) {
  int n = 0, t = s->cdim - 1, *id = s->ids;
  uint64_t np = (uint64_t)s->nnodes;
  const int R = FCD__AT_REAL, P = FCD__AW_POINT_DATA;
#define ADD(ID, NAME, TYPE, WHAT, NC)                                                   \
  (id[n] = (ID), a[n++] = (fcd__frame_array){NAME, TYPE, WHAT, NC, 0})
  ADD(A_DISP, "displacement", R, P, 3);
  if (layout & HAS_V) ADD(A_VEL, "velocity", R, P, 3);
  if (layout & HAS_R) ADD(A_CFORCE, "contact_force", R, P, 3);
  if (layout & HAS_S) ADD(A_STATUS, "contact_status", FCD__AT_INT32, P, 1);
  if (s->cs) ADD(A_GAP, "contact_gap", R, P, 1);
  if (s->cs && (layout & HAS_V)) ADD(A_SLIP, "contact_slip_velocity", R, P, t);
  if ((layout & HAS_R) && (s->kinds & 1)) {
    ADD(A_RN_FORCE, "contact_normal_force", R, P, 1);
    ADD(A_RT_FORCE, "contact_tangential_force", R, P, t);
  }
  if ((layout & HAS_R) && (s->kinds & 2)) {
    ADD(A_PRESSURE, "contact_pressure", R, P, 1);
    ADD(A_SHEAR, "contact_shear_stress", R, P, t);
  }
  ADD(A_POINTS, NULL, R, FCD__AW_POINTS, 3);
  int it = s->c32 ? FCD__AT_INT32 : FCD__AT_INT64;
  ADD(A_CONN, "connectivity", it, FCD__AW_CONNECTIVITY, 1);
  ADD(A_OFFSETS, "offsets", it, FCD__AW_OFFSETS, 1);
  ADD(A_TYPES, "types", FCD__AT_UINT8, FCD__AW_TYPES, 1);
#undef ADD
  for (int k = 0; k < n; k++)
    a[k].count = id[k] == A_CONN      ? (uint64_t)s->offset[s->ncells]
                 : id[k] >= A_OFFSETS ? (uint64_t)s->ncells
                                      : np * (uint64_t)a[k].ncomp;
  return n;
}

static const void *frame_data(const fcd__frame *f, int k) {
  fcd_series *s = f->series;
  int t = s->cdim - 1, id = s->ids[k];
  fcd_real *b = s->buf;
  switch (id) {
  case A_DISP:
  case A_VEL:
    per_node(s, id == A_DISP ? f->u : f->v, b);
    return b;
  case A_CFORCE: /* H^T r, made with the frame's copies (prepare) */
    per_node(s, s->glob, b);
    return b;
  case A_STATUS: {
    int32_t *is = (int32_t *)(void *)b;
    for (fcd_index p = 0; p < s->nnodes; p++) is[p] = -1;
    for (fcd_index c = 0; c < s->ncont; c++)
      for (fcd_index q = s->hptr[c]; q < s->hptr[c + 1]; q++) is[s->hlist[q]] = f->status[c];
    return b;
  }
  case A_GAP:
  case A_SLIP:
    /* NaN where no contact is: a gap or a slip there means nothing */
    contact_field(s, id == A_GAP ? s->gap : s->slip, id == A_GAP ? 0 : 1, id == A_GAP ? 1 : t,
                  3, NAN, b);
    return b;
  case A_RN_FORCE:
  case A_PRESSURE:
    contact_field(s, f->r, 0, 1, id == A_PRESSURE ? 2 : 1, 0.0, b);
    return b;
  case A_RT_FORCE:
  case A_SHEAR:
    contact_field(s, f->r, 1, t, id == A_SHEAR ? 2 : 1, 0.0, b);
    return b;
  case A_POINTS:
    for (fcd_index p = 0; p < s->nnodes; p++)
      for (int j = 0; j < 3; j++) b[3 * p + j] = j < s->dim ? s->coords[p * s->dim + j] : 0.0;
    return b;
  case A_CONN:
    return s->c32 ? (const void *)s->c32 : (const void *)s->conn;
  case A_OFFSETS:
    return s->o32 ? (const void *)s->o32 : (const void *)(s->offset + 1);
  default:
    return s->types;
  }
}

/* ---- the VTK XML writer (.vtu frames, .pvd collection) ---- */

static const char *vtu_type(int type) {
  return type == FCD__AT_REAL    ? "Float64"
         : type == FCD__AT_INT32 ? "Int32"
         : type == FCD__AT_INT64 ? "Int64"
                                 : "UInt8";
}

/* the XML element that holds an array: 0 point data, 1 points, 2 cells */
static int vtu_where(int what) {
  return what == FCD__AW_POINT_DATA ? 0 : what == FCD__AW_POINTS ? 1 : 2;
}

static void vtu_header(const fcd__frame *f, FILE *fp) {
  fprintf(fp, "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" "
          "byte_order=\"%s\" header_type=\"UInt64\">\n  <UnstructuredGrid>\n    <FieldData>\n"
          "      <DataArray type=\"Float64\" Name=\"TimeValue\" NumberOfTuples=\"1\" "
          "format=\"ascii\">%.17g</DataArray>\n", byte_order(), f->t);
  for (int k = 0; k < f->nfd; k++)
    fprintf(fp, "      <DataArray type=\"Float64\" Name=\"%s\" NumberOfTuples=\"1\" "
            "format=\"ascii\">%.17g</DataArray>\n", f->fd_name[k], f->fd_val[k]);
  fprintf(fp, "    </FieldData>\n    <Piece NumberOfPoints=\"%lld\" NumberOfCells=\"%lld\">\n"
          "      <PointData Vectors=\"displacement\">\n", (long long)f->nnodes,
          (long long)f->ncells);
  uint64_t off = 0;
  static const char *open[] = {NULL, "      <Points>\n", "      <Cells>\n"};
  const fcd__frame_array *a = f->a;
  for (int k = 0; k < f->na; k++) {
    int w = vtu_where(a[k].what), prev = k > 0 ? vtu_where(a[k - 1].what) : -1;
    if (prev == 0 && w != 0) fputs("      </PointData>\n", fp);
    if (open[w] && prev != w) fputs(open[w], fp);
    fprintf(fp, "        <DataArray type=\"%s\"", vtu_type(a[k].type));
    if (a[k].name) fprintf(fp, " Name=\"%s\"", a[k].name);
    if (a[k].ncomp > 1 || w == 1) fprintf(fp, " NumberOfComponents=\"%d\"", a[k].ncomp);
    fprintf(fp, " format=\"appended\" offset=\"%llu\"/>\n", (unsigned long long)off);
    off += 8 + a[k].count * esize(a[k].type);
    if (w == 1) fputs("      </Points>\n", fp);
  }
  fputs("      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n  <AppendedData "
        "encoding=\"raw\">\n   _", fp);
}

/* the appended data: each array its UInt64 byte count, then its bytes, in the order of
 * the header */
static int vtu_frame(const fcd__frame *f, FILE *fp) {
  vtu_header(f, fp);
  int ok = 1;
  for (int k = 0; k < f->na && ok; k++) {
    uint64_t bytes = f->a[k].count * esize(f->a[k].type);
    const void *data = f->data(f, k);
    ok = fwrite(&bytes, sizeof bytes, 1, fp) == 1 &&
         (bytes == 0 || fwrite(data, (size_t)bytes, 1, fp) == 1);
  }
  fputs("\n  </AppendedData>\n</VTKFile>\n", fp);
  return ok;
}

static const char *pvd_head(void) {
  return fcd__little_endian()
             ? "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\" "
               "byte_order=\"LittleEndian\">\n  <Collection>\n"
             : "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\" "
               "byte_order=\"BigEndian\">\n  <Collection>\n";
}

static int pvd_entry(char *buf, size_t cap, fcd_index k, fcd_real t, const char *file) {
  (void)k;
  return snprintf(buf, cap, "    <DataSet timestep=\"%.17g\" group=\"\" part=\"0\" "
                  "file=\"%s\"/>\n", t, file);
}

static const fcd__series_writer writer_vtu = {
    {FCD_OUTPUT_VTU, "vtu", "VTK XML unstructured grids, raw binary (.vtu), and a ParaView "
     "collection (.pvd); the default"},
    "vtu", "pvd", vtu_frame, pvd_head, "  </Collection>\n</VTKFile>\n", pvd_entry};

/* ---- the formats (the registry, FCD_FAMILY_OUTPUT_FORMAT), indexed by value: each
 * writer defined in its own file (series_<format>.c) and declared here, beside its row */
extern const fcd__series_writer fcd__writer_vtk;
static const fcd__series_writer *const writers[] = {&writer_vtu, &fcd__writer_vtk};
enum { NWRITERS = (int)(sizeof writers / sizeof writers[0]) };

int fcd__output_format_registry(int k, fcd__named *out) {
  if (k < 0 || k >= NWRITERS) return 0;
  *out = writers[k]->id;
  return 1;
}

fcd_status fcd_series_set_format(fcd_series *s, int format) {
  if (!series_valid(s)) return FCD_E_INVALID_ARG;
  if (format < 0 || format >= NWRITERS)
    return fcd__err(s->sys, FCD_E_INVALID_ARG, "series_set_format: %d is no output format "
                    "(0 to %d: fcd_registry_entry(FCD_FAMILY_OUTPUT_FORMAT))", format,
                    NWRITERS - 1);
  FCD_TRY(take_outcome(s));
  if (s->nframes > 0)
    return fcd__err(s->sys, FCD_E_STATE, "series_set_format: the series has %lld frames in "
                    "'%s' already", (long long)s->nframes, s->w->id.name);
  if (writers[format] == s->w) return FCD_OK;
  /* the empty collection made at creation goes: none of its format will follow */
  char path[4200];
  collection_path(s, path, sizeof path);
  if (remove(path) != 0 && errno != ENOENT)
    return fcd__err(s->sys, FCD_E_IO, "series_set_format: cannot remove '%s': %s", path,
                    strerror(errno));
  s->w = writers[format];
  fcd_status st = collection_start(s);
  if (st == FCD_OK) st = remove_old_frames(s);
  return st;
}

/* the collection grows by the frame's entry, written with the closing text over the old
 * closing text in one write: at every moment the file is whole (the writer's: its
 * message in msg) */
static fcd_status collection_add(fcd_series *s, fcd_real t, const char *file, char *msg,
                                 size_t cap) {
  char path[4300], line[700];
  collection_path(s, path, sizeof path);
  int len = s->w->entry(line, sizeof line - 64, s->done, t, file);
  size_t foot = strlen(s->w->foot);
  if (len < 0 || (size_t)len + foot >= sizeof line) {
    snprintf(msg, cap, "series: the entry of frame %s does not fit", file);
    return FCD_E_IO;
  }
  memcpy(line + len, s->w->foot, foot + 1);
  int fd = open(path, O_WRONLY);
  if (fd < 0) {
    snprintf(msg, cap, "series: cannot open '%.400s': %s", path, strerror(errno));
    return FCD_E_IO;
  }
  ssize_t w = pwrite(fd, line, (size_t)len + foot, (off_t)s->footer);
  int bad = w != (ssize_t)((size_t)len + foot);
  if (close(fd) != 0 || bad) {
    snprintf(msg, cap, "series: write error on '%.400s'", path);
    return FCD_E_IO;
  }
  s->footer += len;
  s->bytes += (uint64_t)len;
  return FCD_OK;
}

/* the frame of s->job, number s->done: its file under a temporary name, renamed, then
 * its entry in the collection. In the writer thread when async: it reads only the job,
 * the series' own copies of the mesh and its scratch, and writes only the files,
 * s->buf, bytes, footer and done. */
static fcd_status write_job(fcd_series *s, char *msg, size_t cap) {
  fcd__frame_array a[16];
  int na = frame_arrays(s, s->job.layout, a);
  fcd__frame f = {s->job.t, s->job.nfd, (const char (*)[64])s->job.fd_name, s->job.fd_val,
                  s->nnodes, s->ncells, na, a, frame_data, s, s->job.u, s->job.v, s->job.r,
                  s->job.status};
  char file[256], path[4300], tmp[4400];
  fcd_index k = s->done;
  snprintf(file, sizeof file, "%s-%06lld.%s", s->name, (long long)k, s->w->ext);
  snprintf(path, sizeof path, "%s/%s", s->dir, file);
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *fp = fopen(tmp, "wb");
  if (!fp) {
    snprintf(msg, cap, "series: cannot create '%.400s': %s; the series keeps its %lld frames "
             "before it", tmp, strerror(errno), (long long)k);
    return FCD_E_IO;
  }
  int ok = s->w->frame(&f, fp);
  long size = ftell(fp);
  ok = ok && !ferror(fp);
  if (fclose(fp) != 0 || !ok || rename(tmp, path) != 0) {
    remove(tmp);
    snprintf(msg, cap, "series: write error on '%.400s' (frame %lld); the series keeps its "
             "%lld frames before it", path, (long long)k, (long long)k);
    return FCD_E_IO;
  }
  fcd_status st = collection_add(s, s->job.t, file, msg, cap);
  if (st != FCD_OK) return st;
  s->bytes += size > 0 ? (uint64_t)size : 0;
  s->done_t = s->job.t;
  s->done = k + 1;
  return FCD_OK;
}

/* what a frame takes from the caller and the contact set, now: the arrays (copied when
 * the frame is written in the background) and the contact quantities (the contact set
 * may change once the caller goes on) */
static fcd_status prepare(fcd_series *s, fcd_real t, const fcd_real *u, const fcd_real *v,
                          const fcd_real *r, const int *status, int layout) {
  const fcd_contact_set *cs = s->cs;
  fcd_index n = s->ndofs, nc = s->ncont, nl = nc * s->cdim;
  int copy = s->thread_on;
  s->job.t = t;
  s->job.layout = layout;
  s->job.u = copy ? memcpy(s->cu, u, (size_t)n * sizeof *u) : u;
  s->job.v = v && copy ? memcpy(s->cv, v, (size_t)n * sizeof *v) : v;
  s->job.r = r && copy ? memcpy(s->cr, r, (size_t)nl * sizeof *r) : r;
  s->job.status = status && copy ? memcpy(s->cst, status, (size_t)nc * sizeof *status)
                                 : status;
  s->job.nfd = s->nfd;
  memcpy(s->job.fd_name, s->fd_name, sizeof s->fd_name);
  memcpy(s->job.fd_val, s->fd_val, sizeof s->fd_val);
  if (!cs) return FCD_OK;
  /* the operator H may be built here (FCD_E_NOMEM): the frame is then not taken */
  if (r) FCD_TRY(fcd_contact_set_global(cs, r, s->glob));
  FCD_TRY(fcd_contact_set_local(cs, u, s->gap));
  for (fcd_index c = 0; c < nc; c++) s->gap[c * s->cdim] = cs->c[c].gap - s->gap[c * s->cdim];
  if (!v) return FCD_OK;
  FCD_TRY(fcd_contact_set_local(cs, v, s->slip));
  for (fcd_index c = 0; c < nc; c++)
    for (int j = 1; j < s->cdim; j++) s->slip[c * s->cdim + j] -= cs->c[c].vg[j - 1];
  return FCD_OK;
}

fcd_status fcd_series_write(fcd_series *s, fcd_real t, const fcd_real *u, const fcd_real *v,
                            const fcd_real *r, const int *status) {
  if (!series_valid(s)) return FCD_E_INVALID_ARG;
  /* the frame before: written, or its failure told now (this frame is then not taken) */
  FCD_TRY(take_outcome(s));
  if (!isfinite(t)) return fcd__err(s->sys, FCD_E_INVALID_ARG, "series_write: t is not finite");
  /* ParaView orders a collection by time and shows one of two frames of the same time */
  if (s->nframes > 0 && !(t > s->last_t))
    return fcd__err(s->sys, FCD_E_INVALID_ARG, "series_write: t = %.17g is not after the "
                    "last frame's %.17g: a series' times increase", t, s->last_t);
  int layout = 0;
  FCD_TRY(frame_check(s, u, v, r, status, &layout));
  if (s->async && !s->thread_on) (void)start_thread(s);
  FCD_TRY(prepare(s, t, u, v, r, status, layout));
  s->layout = layout;
  s->last_t = t;
  s->nframes++;
  if (s->thread_on) {
    pthread_mutex_lock(&s->mu);
    s->busy = 1;
    pthread_cond_broadcast(&s->cv_job);
    pthread_mutex_unlock(&s->mu);
    return FCD_OK;
  }
  s->job_st = write_job(s, s->job_msg, sizeof s->job_msg);
  return take_outcome(s);
}

fcd_status fcd_series_flush(fcd_series *s) {
  if (!series_valid(s)) return FCD_E_INVALID_ARG;
  return take_outcome(s);
}

fcd_status fcd_series_set_async(fcd_series *s, int on) {
  if (!series_valid(s)) return FCD_E_INVALID_ARG;
  if (on != 0 && on != 1)
    return fcd__err(s->sys, FCD_E_INVALID_ARG, "series_set_async: %d is neither 0 nor 1", on);
  fcd_status st = take_outcome(s);
  if (!on) stop_thread(s);
  s->async = on && s->sync_ok;
  return st;
}

int fcd__series_contact_set(const fcd_series *s, const fcd_contact_set **cs) {
  if (!series_valid(s)) return 0;
  *cs = s->cs;
  return 1;
}

fcd_status fcd_series_get_info(const fcd_series *s, fcd_index *nframes, double *bytes) {
  if (!series_valid(s)) return FCD_E_INVALID_ARG;
  /* the counts of what is on disk: the frame in flight is waited for (the series is
   * the caller's, not const in memory; its failure stays for the next call to tell) */
  wait_idle((fcd_series *)(uintptr_t)s);
  if (nframes) *nframes = s->done;
  if (bytes) *bytes = (double)s->bytes;
  return FCD_OK;
}

fcd_status fcd_series_set_field(fcd_series *s, const char *name, fcd_real value) {
  if (!series_valid(s)) return FCD_E_INVALID_ARG;
  if (!fcd__vtk_name_ok(name, sizeof s->fd_name[0] - 1, "") || !strcmp(name, "TimeValue"))
    return fcd__err(s->sys, FCD_E_INVALID_ARG, "series_set_field: the name must be 1 to 63 "
                    "letters, digits or '_', and not TimeValue");
  if (!isfinite(value))
    return fcd__err(s->sys, FCD_E_INVALID_ARG, "series_set_field: '%s' is not finite", name);
  int k = 0;
  while (k < s->nfd && strcmp(s->fd_name[k], name) != 0) k++;
  if (k == FCD_SERIES_MAX_FIELDS)
    return fcd__err(s->sys, FCD_E_INVALID_ARG, "series_set_field: at most %d fields",
                    FCD_SERIES_MAX_FIELDS);
  if (k == s->nfd) snprintf(s->fd_name[s->nfd++], sizeof s->fd_name[0], "%s", name);
  s->fd_val[k] = value;
  return FCD_OK;
}

fcd_status fcd_series_write_mode(fcd_series *s, const fcd_real *re, const fcd_real *im,
                                 fcd_real lambda_re, fcd_real lambda_im, fcd_index nframes) {
  if (!series_valid(s)) return FCD_E_INVALID_ARG;
  fcd_system *sys = s->sys;
  if (!re) return fcd__err(sys, FCD_E_INVALID_ARG, "series_write_mode: re is NULL");
  if (!isfinite(lambda_re) || !isfinite(lambda_im))
    return fcd__err(sys, FCD_E_INVALID_ARG, "series_write_mode: the eigenvalue is not finite");
  if (nframes < 1 || nframes > 100000)
    return fcd__err(sys, FCD_E_INVALID_ARG, "series_write_mode: %lld frames (1 to 100000)",
                    (long long)nframes);
  for (fcd_index i = 0; i < sys->n; i++)
    if (!isfinite(re[i]) || (im && !isfinite(im[i])))
      return fcd__err(sys, FCD_E_INVALID_ARG, "series_write_mode: the mode is not finite at "
                      "dof %lld (%g%+gi); no frame written", (long long)i, re[i],
                      im ? im[i] : 0.0);
  FCD_TRY(take_outcome(s));
  if (s->nframes > 0)
    return fcd__err(sys, FCD_E_INVALID_ARG, "series_write_mode: the series has %lld frames "
                    "already; a mode's period starts a series of its own",
                    (long long)s->nframes);
  fcd_real w = fabs(lambda_im), mag = hypot(lambda_re, lambda_im);
  FCD_TRY(fcd_series_set_field(s, "eigenvalue_re", lambda_re));
  FCD_TRY(fcd_series_set_field(s, "eigenvalue_im", lambda_im));
  FCD_TRY(fcd_series_set_field(s, "frequency_hz", w / (2 * 3.14159265358979323846)));
  FCD_TRY(fcd_series_set_field(s, "growth_rate", lambda_re));
  FCD_TRY(fcd_series_set_field(s, "damping_ratio", w > 0 ? -lambda_re / w : 0.0));
  FCD_TRY(fcd_series_set_field(s, "modulus", mag));
  fcd_real *x = fcd__malloc_array((size_t)sys->n + 1, sizeof *x);
  if (!x) return fcd__err(sys, FCD_E_NOMEM, "series_write_mode: out of memory");
  fcd_status st = FCD_OK;
  for (fcd_index k = 0; k < nframes && st == FCD_OK; k++) {
    /* phase theta over one period: x = Re(phi e^(i theta)); the time of the frame is
     * theta / omega (a real eigenvalue has no period: the frames are its phase
     * fractions) */
    fcd_real th = 2 * 3.14159265358979323846 * (fcd_real)k / (fcd_real)nframes;
    fcd_real c = cos(th), sn = sin(th);
    for (fcd_index i = 0; i < sys->n; i++) x[i] = re[i] * c - (im ? im[i] : 0.0) * sn;
    st = fcd_series_write(s, w > 0 ? th / w : (fcd_real)k / (fcd_real)nframes, x, NULL, NULL,
                          NULL);
  }
  fcd__free(x);
  /* the period is whole on return, or its failure told */
  return st == FCD_OK ? take_outcome(s) : st;
}
