/* The model layer (lib/layers.txt): contact sets and their operator H, meshes. */
#ifndef FCD_LIB_MODEL_H
#define FCD_LIB_MODEL_H

#include "algebra.h"

#include <stdint.h>
#include <stdio.h>

/* ---- contact sets (contact_set.c) ---- */
#define FCD_CONTACT_SET_MAGIC 0x66636373u /* "fccs" */
typedef struct {
  int pair;
  /* a contact given by rows (fcd_contact_set_add_rows): its dim rows are entries
   * rptr[row0 + k] .. rptr[row0 + k + 1] of the set's rdof and rw; no dofs_a, no frame */
  int rows;
  int mortar; /* a dual mortar row contact: its reaction is a pressure (series.c) */
  int surf;   /* made by a surface pair: its normal row's first node is the slave node */
  fcd_index row0;
  fcd_index dofs_a[3], dofs_b[3];
  fcd_real frame[3][3]; /* rows N, T(, B), orthonormal */
  fcd_real gap, mu;
  fcd_real vg[2];
} fcd__contact;

struct fcd_contact_set {
  uint32_t magic;
  fcd_system *sys;
  int dim;
  fcd_index n, cap;
  fcd__contact *c;
  fcd_real restitution;
  uint64_t version; /* bumped when contacts are added (the H pattern changes) */
  fcd__csr H;       /* cached contact operator, built for version H_version */
  /* the rows of row contacts: nrow rows (dim per such contact), entries in rdof, rw */
  fcd_index *rptr, *rdof;
  fcd_real *rw;
  fcd_index nrow, rcap, ecap;
  uint64_t H_version;
  /* when every row of H holds the same H_dlen > 0 consecutive dofs from H_d0 (contacts
   * by rows over a reduced model's modal coordinates): its values are a dense row-major
   * block, which products give to BLAS; H_dlen 0 otherwise */
  fcd_index H_d0, H_dlen;
  /* integrators hold the set: destroying it while they live only marks it */
  fcd_index children;
  int zombie;
  /* the node coordinates of the first surface pair's mesh (mechanism.h), or NULL */
  struct fcd__geometry *geo;
  /* contacts by the pattern of their normal row (contact_set.c: a contact whose normal
   * row repeats another's is refused): hkey/hnext per contact, htab heads (index + 1),
   * hcount contacts indexed (more than n after a truncation: rebuilt) */
  uint64_t *hkey;
  fcd_index *hnext, *htab, hcap, hcount;
};
void fcd__contact_set_release(fcd_contact_set *cs);
/* a mesh's geometry (vtk.c), read by the surface pairing (surface.c); 0 for an invalid
 * mesh */
int fcd__mesh_geometry(const fcd_mesh *m, const fcd_system **sys, int *dim, fcd_index *nnodes,
                       const fcd_real **coords, const fcd_index **node_dofs);
/* its cells: the nodes of cell c are conn[offset[c] .. offset[c + 1]); 0 for an invalid
 * mesh */
int fcd__mesh_cells(const fcd_mesh *m, fcd_index *ncells, const fcd_index **offset,
                    const fcd_index **conn);
/* a series' contact set (NULL: none) in *cs; 0 for an invalid series (series.c) */
int fcd__series_contact_set(const fcd_series *s, const fcd_contact_set **cs);
/* ---- the writers of a series' frames (series.c; one file each: series_vtk.c) ----
 * The series makes a frame's arrays and hands them to its format's writer, which lays
 * them out in its own order and syntax; the series keeps what every format shares (the
 * checks, the temporary name and the rename, the collection grown in place, the old
 * frames removed). */
enum { FCD__AT_REAL, FCD__AT_INT32, FCD__AT_INT64, FCD__AT_UINT8 }; /* an array's values */
enum { FCD__AW_POINT_DATA, FCD__AW_POINTS, FCD__AW_CONNECTIVITY, FCD__AW_OFFSETS,
       FCD__AW_TYPES };                                         /* what an array is */
typedef struct {
  const char *name; /* point data's name; NULL for the points */
  int type;         /* FCD__AT_* */
  int what;         /* FCD__AW_* */
  int ncomp;        /* components (the points: 3) */
  uint64_t count;   /* values: nnodes * ncomp, the connectivity's length, or ncells */
} fcd__frame_array;
/* A frame as its writer sees it: its time, field data and arrays; data(f, k) gives
 * array k's values (offsets are each cell's end in the connectivity), valid until the
 * next call but for the connectivity and the offsets, which stay valid together (a
 * function of the frame, not a symbol of series.c: the writers depend on no file). */
typedef struct fcd__frame {
  fcd_real t;
  int nfd;                     /* field data beside the time */
  const char (*fd_name)[64];
  const fcd_real *fd_val;
  fcd_index nnodes, ncells;
  int na;
  const fcd__frame_array *a;
  const void *(*data)(const struct fcd__frame *f, int k);
  struct fcd_series *series;   /* the series' own, for data */
  const fcd_real *u, *v, *r;
  const int *status;
} fcd__frame;
/* A format of a series (the registry's FCD_FAMILY_OUTPUT_FORMAT): its frames'
 * extension, the whole frame written to fp (0 on a write error), and its collection:
 * the text of the empty one (head, then foot) and of the entry of frame k, which the
 * series writes over the foot with the foot after it, so that the file is whole at every
 * moment. */
typedef struct {
  fcd__named id;
  const char *ext, *collection_ext;
  int (*frame)(const fcd__frame *f, FILE *fp);
  const char *(*head)(void);
  const char *foot;
  int (*entry)(char *buf, size_t cap, fcd_index k, fcd_real t, const char *file);
} fcd__series_writer;
/* entry k of the registry's FCD_FAMILY_OUTPUT_FORMAT (registry.c) */
int fcd__output_format_registry(int k, fcd__named *out);

/* 1 when s is 1 to maxlen letters, digits, '_' or characters of extra (vtk.c: VTK array
 * names, series' file stems and field names) */
int fcd__vtk_name_ok(const char *s, size_t maxlen, const char *extra);
/* 1 on a little-endian host (the byte order VTK files declare or convert from) */
int fcd__little_endian(void);
/* the VTK type of each cell; NULL for an invalid mesh */
const int *fcd__mesh_types(const fcd_mesh *m);
/* 3D surface pairs (surface3d.c): facets of four node ids, -1 fourth for a triangle;
 * the caller validated the set and the mesh and truncates the set on failure */
fcd_status fcd__surface_pair_3d(fcd_contact_set *cs, fcd_index nnodes, const fcd_real *x,
                                const fcd_index *dof, fcd_index nslave, const fcd_index *slave,
                                fcd_index nmaster, const fcd_index *master, int method,
                                fcd_real mu, fcd_index *first, fcd_index *inactive);
/* takes back the contacts from index n0 on (a batch that failed part way) */
void fcd__contact_set_truncate(fcd_contact_set *cs, fcd_index n0);
/* y1 = H x1 and y2 = H x2 (fcd_contact_set_local twice) in one pass over H; y1 and y2
 * alias neither x */
fcd_status fcd__contact_set_local2(const fcd_contact_set *cs, const fcd_real *x1,
                                   const fcd_real *x2, fcd_real *y1, fcd_real *y2);
/* 1 when some contact of the set is given by rows (fcd_contact_set_add_rows) */
int fcd__contact_set_has_rows(const fcd_contact_set *cs);
/* a field read, inline: the mesh writer checks a set without calling up into it */
static inline int fcd__contact_set_valid(const fcd_contact_set *cs) {
  return cs != NULL && cs->magic == FCD_CONTACT_SET_MAGIC;
}
/* H (dim*n x ndofs) in CSR: row c*dim + k holds frame row k on the dofs of contact c
 * (minus on body B). The only place that builds the contact operator. */
fcd_status fcd__contact_set_H(const fcd_contact_set *cs, fcd__csr *h);
/* The cached H of the current contacts (rebuilt when contacts were added). */
fcd_status fcd__contact_set_operator(fcd_contact_set *cs, const fcd__csr **h);
/* a hash of a contact set's contacts (frames, gaps, mu, vg, rows), folded into h */
uint64_t fcd__contact_set_hash(const fcd_contact_set *cs, uint64_t h);
/* the same as a replica item's hash (fcd__REPLICA_BY): cs a contact set or NULL (none) */
uint64_t fcd__contact_set_replica(const void *cs, uint64_t h);

#endif
