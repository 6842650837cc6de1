/* Matrices written by finite-element codes (import.c, the readers import_*.c) and the dof
 * map between (node label, dof) pairs and indices (dofmap.c). */
#ifndef FCD_LIB_IMPORT_PRIVATE_H
#define FCD_LIB_IMPORT_PRIVATE_H

#include "core.h"

#include <fcd/fcd_import.h>

#include <stdio.h>

#define FCD_MATRIX_FILE_MAGIC 0x66636d66u /* "fcmf" */
#define FCD_DOFMAP_MAGIC 0x6663646du      /* "fcdm" */

struct fcd_matrix_file {
  uint32_t magic;
  fcd_matrix_format format;
  int labelled, symmetric;
  fcd_index nrows, ncols; /* indexed: the stated order; labelled: distinct pairs */
  char name[32];
  /* the entries: 0-based indices, or labels with their dofs in rd, cd (labelled) */
  fcd_index n, cap;
  fcd_index reserve; /* the first capacity: the most entries the file's size allows, so
                      * that the arrays never move (pages not written are not resident) */
  int64_t *ri, *ci;
  signed char *rd, *cd;
  double *v;
  /* what a reader already knows of its entries, so that the checks after it skip a pass:
   * the first finite_upto are finite; with sides_known, above and below count the
   * entries on each side of the diagonal (indexed files) */
  fcd_index finite_upto, above, below;
  int sides_known;
};

/* a reader's state: the file, its path for messages, the message buffer */
typedef struct {
  const char *path;
  char *errbuf;
  size_t errcap;
  FILE *fp;
  fcd__lines L;
  fcd_status st; /* of the failed line read */
} fcd__mreader;

/* one entry appended (grown by doubling); 0 when out of memory */
/* the matrix formats' registry (FCD_FAMILY_MATRIX_FORMAT): row k of import.c's table */
int fcd__matrix_format_registry(int k, fcd__named *out);
int fcd__mfile_push(fcd_matrix_file *m, int64_t r, int rd, int64_t c, int cd, double v);
/* room for more entries after the n there (grown by doubling); 0 when out of memory */
int fcd__mfile_room(fcd_matrix_file *m, fcd_index more);
/* every entry checked finite; FCD_E_FORMAT naming the first that is not */
fcd_status fcd__mfile_finite(const fcd_matrix_file *m, const char *path, char *errbuf,
                             size_t errcap);
/* distinct (label, dof) pairs of the rows and of the columns of a labelled matrix */
fcd_status fcd__mfile_count_pairs(fcd_matrix_file *m, char *errbuf, size_t errcap);

/* 1 in *tri when no off-diagonal entry has its mirror among the entries (one stored
 * triangle of a symmetric matrix) */
fcd_status fcd__mfile_one_triangle(const fcd_matrix_file *m, int *tri, const char *path,
                                   char *errbuf, size_t errcap);

/* the readers: each fills m (format, entries, sizes) from r's open file */
fcd_status fcd__read_harwell_boeing(fcd__mreader *r, fcd_matrix_file *m);
fcd_status fcd__read_abaqus(fcd__mreader *r, fcd_matrix_file *m, fcd_matrix_format format);
/* want: the matrix's name, or "" for the file's only one */
fcd_status fcd__read_dmig(fcd__mreader *r, fcd_matrix_file *m, const char *want);
fcd_status fcd__read_op4(fcd__mreader *r, fcd_matrix_file *m, const char *want);

/* Matrix Market through the same entries (mmio.c) */
fcd_status fcd__mm_read_mfile(const char *path, fcd_matrix_file *m, char *errbuf,
                              size_t errcap);
/* the index of a pair; FCD_E_INVALID_ARG when the map lacks it, FCD_E_NOMEM */
fcd_status fcd__dofmap_lookup(const fcd_dofmap *map, int64_t label, int dof, fcd_index *index);

/* the dof of (label, dof) through the system's map: 0, 1 (no map), 2 (not in it) */
int fcd__system_dof_of(const fcd_system *sys, int64_t label, int dof, fcd_index *index);
/* `node LABEL DOF` at *s: 1 (index set, *s past it), 0 (not such a reference), -1 (one that
 * fails: the reason in why) */
int fcd__node_ref(const fcd_system *sys, const char **s, fcd_index *index, char *why,
                  size_t cap);

/* A Fortran edit descriptor list such as (16I5), (4E20.12), (1P,4E20.12), 1P,3E23.16:
 * fields per card and their width; 1 when it is one */
typedef struct {
  int per, width;
  char kind; /* 'I' or 'E' (E, D, F, G) */
} fcd__ffmt;
int fcd__parse_ffmt(const char *s, fcd__ffmt *f);

/* a Fortran real ("1.5D+03", "-1.556+2", "  .5E-1") in s[0..len): 1 and *out, or 0;
 * s[len] must be readable (the next field, or the line's NUL) */
int fcd__fortran_real(const char *s, size_t len, double *out);

#endif
