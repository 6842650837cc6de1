/** @file fcd/fcd_import.h
 *  @brief Matrices written by finite-element codes, told from their content, and the map
 *  between (node label, dof) pairs and fcd's dof indices.
 *
 *  A matrix file holds one matrix (or several, one of which is named): entries either by
 *  equation index (Matrix Market, PETSc binary, Harwell-Boeing and Rutherford-Boeing,
 *  Abaqus `FORMAT=COORDINATE`) or by (node label, dof) pair (Abaqus `FORMAT=MATRIX
 *  INPUT`, Nastran DMIG, Harwell-Boeing with ANSYS' `.mapping` file beside it). A
 *  labelled matrix needs a dof map: the union of the pairs of the run's matrices, sorted
 *  by label (as a signed integer), then dof, each pair one fcd dof. The map is the same
 *  for M, K and C even when one of them covers fewer pairs, and it can be written out
 *  for the host (fcd_dofmap_write). docs/import.md lists what each format holds and the
 *  keywords that make each code write it.
 *
 *  Threads: a matrix file and a dof map are used by one thread at a time; reading is
 *  reentrant. */
#ifndef FCD_IMPORT_H
#define FCD_IMPORT_H

#include <fcd/fcd_common.h>
#include <fcd/fcd_status.h>
#include <fcd/fcd_system.h>

FCD_BEGIN_DECLS

/** Opaque matrix read from a file. */
typedef struct fcd_matrix_file fcd_matrix_file;

/** Opaque map between (node label, dof) pairs and dof indices. */
typedef struct fcd_dofmap fcd_dofmap;

/** The formats a matrix file may have. */
typedef enum {
  FCD_MATRIX_FORMAT_AUTO = 0,              /**< told from the content */
  FCD_MATRIX_FORMAT_MATRIX_MARKET = 1,     /**< `%%MatrixMarket matrix coordinate ...` */
  FCD_MATRIX_FORMAT_PETSC_BINARY = 2,      /**< PETSc's MatView to a binary viewer */
  FCD_MATRIX_FORMAT_HARWELL_BOEING = 3,    /**< Harwell-Boeing or Rutherford-Boeing,
                                                assembled real (RSA, RUA); ANSYS' HBMAT */
  FCD_MATRIX_FORMAT_ABAQUS_MATRIX = 4,     /**< Abaqus `FORMAT=MATRIX INPUT`: `node, dof,
                                                node, dof, value` */
  FCD_MATRIX_FORMAT_ABAQUS_COORDINATE = 5, /**< Abaqus `FORMAT=COORDINATE`: `row, column,
                                                value`, 1-based equations */
  FCD_MATRIX_FORMAT_NASTRAN_DMIG = 6,      /**< Nastran DMIG bulk data (punch files) */
  FCD_MATRIX_FORMAT_NASTRAN_OP4 = 7        /**< Nastran OP4, ASCII or binary */
} fcd_matrix_format;

/** What a matrix file holds. */
typedef struct {
  size_t struct_size;         /**< sizeof(fcd_matrix_file_info), set by the caller */
  fcd_matrix_format format;   /**< the format read */
  int labelled;               /**< 1: entries by (node label, dof); 0: by index */
  int symmetric;              /**< 1: one triangle stored, the other implied */
  fcd_index nrows;            /**< indexed: the order stated or implied; labelled: the
                                   distinct (label, dof) pairs of the rows */
  fcd_index ncols;            /**< indexed: columns; labelled: distinct column pairs */
  fcd_index nnz;              /**< entries stored (a symmetric file's one triangle) */
  char name[32];              /**< the matrix's name in the file ("" when it has none) */
} fcd_matrix_file_info;

/** Reads one matrix from a file. @p spec is a path, or `PATH:NAME` to pick the matrix
 *  NAME out of a file holding several (a punch file's KAAX, an OP4 file's MAA); a file
 *  with several and no name is FCD_E_INVALID_ARG with the names it holds in the message.
 *  The format is told from the content unless @p format names it. Entries are kept as the
 *  file gives them (explicit zeros included); duplicates are summed when the matrix is
 *  set on a system, as in Matrix Market.
 *  @param spec the file, or FILE:NAME
 *  @param format FCD_MATRIX_FORMAT_AUTO, or the format to read it as
 *  @param out receives the matrix, owned by the caller (fcd_matrix_file_destroy); NULL on
 *      failure
 *  @param errbuf receives a message on failure naming the file, the line and the field
 *      (may be NULL)
 *  @param errcap capacity of errbuf in bytes
 *  @return FCD_OK, or FCD_E_IO, FCD_E_FORMAT (malformed; not one of the formats),
 *      FCD_E_UNSUPPORTED (a pattern, complex or dense-array matrix), FCD_E_INVALID_ARG,
 *      FCD_E_NOMEM
 *  @since 0.1 */
FCD_API fcd_status fcd_matrix_file_read(const char *spec, fcd_matrix_format format,
                                        fcd_matrix_file **out, char *errbuf, size_t errcap);

/** What the matrix holds.
 *  @param m the matrix
 *  @param info receives it; its struct_size must be set
 *  @return FCD_OK, or FCD_E_INVALID_ARG
 *  @since 0.1 */
FCD_API fcd_status fcd_matrix_file_get_info(const fcd_matrix_file *m,
                                            fcd_matrix_file_info *info);

/** Destroys the matrix. NULL-safe.
 *  @param m the matrix, or NULL
 *  @since 0.1 */
FCD_API void fcd_matrix_file_destroy(fcd_matrix_file *m);

/** The name of a format ("matrix-market", "petsc-binary", "harwell-boeing",
 *  "abaqus-matrix", "abaqus-coordinate", "nastran-dmig", "nastran-op4"; "auto"), a static
 *  string; "?" for a value out of range.
 *  @param format the format
 *  @return its name
 *  @since 0.1 */
FCD_API const char *fcd_matrix_format_name(fcd_matrix_format format);

/** The format of a name fcd_matrix_format_name gives.
 *  @param name the name
 *  @param format receives the format
 *  @return FCD_OK, or FCD_E_INVALID_ARG (no such name)
 *  @since 0.1 */
FCD_API fcd_status fcd_matrix_format_from_name(const char *name, fcd_matrix_format *format);

/** Creates an empty dof map.
 *  @param out receives it, owned by the caller (fcd_dofmap_destroy)
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_NOMEM
 *  @since 0.1 */
FCD_API fcd_status fcd_dofmap_create(fcd_dofmap **out);

/** Adds the (label, dof) pairs of a labelled matrix's rows and columns to the map. The
 *  indices are those of the sorted union of everything added; adding renumbers.
 *  @param map the map
 *  @param m a labelled matrix
 *  @return FCD_OK, or FCD_E_INVALID_ARG (an indexed matrix), FCD_E_NOMEM
 *  @since 0.1 */
FCD_API fcd_status fcd_dofmap_add_matrix(fcd_dofmap *map, const fcd_matrix_file *m);

/** Adds one pair.
 *  @param map the map
 *  @param label the node label (any integer)
 *  @param dof the dof, 0 to 6 (0: a scalar point)
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_NOMEM
 *  @since 0.1 */
FCD_API fcd_status fcd_dofmap_add(fcd_dofmap *map, int64_t label, int dof);

/** The number of dofs the map holds.
 *  @param map the map
 *  @return the count, 0 for NULL
 *  @since 0.1 */
FCD_API fcd_index fcd_dofmap_size(const fcd_dofmap *map);

/** The index of a pair.
 *  @param map the map
 *  @param label the node label
 *  @param dof the dof
 *  @param index receives the 0-based index (-1 when the pair is not in the map)
 *  @return FCD_OK, or FCD_E_INVALID_ARG (NULL arguments, or a pair not in the map),
 *      FCD_E_NOMEM (sorting the pairs added since the last lookup)
 *  @since 0.1 */
FCD_API fcd_status fcd_dofmap_index(const fcd_dofmap *map, int64_t label, int dof,
                                    fcd_index *index);

/** The pair of an index.
 *  @param map the map
 *  @param index 0-based, below fcd_dofmap_size
 *  @param label receives the node label (may be NULL)
 *  @param dof receives the dof (may be NULL)
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_NOMEM
 *  @since 0.1 */
FCD_API fcd_status fcd_dofmap_pair(const fcd_dofmap *map, fcd_index index, int64_t *label,
                                   int *dof);

/** Writes the map, one line `index label dof` per dof (0-based index), after a comment
 *  line saying so.
 *  @param map the map
 *  @param path the file (replaced only by a complete file)
 *  @param errbuf receives a message on failure (may be NULL)
 *  @param errcap capacity of errbuf
 *  @return FCD_OK, or FCD_E_IO, FCD_E_INVALID_ARG, FCD_E_NOMEM
 *  @since 0.1 */
FCD_API fcd_status fcd_dofmap_write(const fcd_dofmap *map, const char *path, char *errbuf,
                                    size_t errcap);

/** Destroys the map. NULL-safe.
 *  @param map the map, or NULL
 *  @since 0.1 */
FCD_API void fcd_dofmap_destroy(fcd_dofmap *map);

/** Sets matrix @p which of @p sys from a matrix file: an indexed one must be ndofs x
 *  ndofs; a labelled one goes through @p map (ndofs must be its size), and every pair it
 *  names must be in the map. Duplicate entries are summed; a symmetric file's triangle is
 *  mirrored. The system's values are checked as fcd_system_set_matrix_coo checks them.
 *  @param sys the system
 *  @param which FCD_MASS, FCD_STIFFNESS or FCD_DAMPING
 *  @param m the matrix
 *  @param map the dof map (NULL for an indexed matrix)
 *  @return FCD_OK, or FCD_E_INVALID_ARG (a size that differs, a labelled matrix without a
 *      map, a pair the map lacks, NaN), FCD_E_NOMEM
 *  @since 0.1 */
FCD_API fcd_status fcd_system_set_matrix_file(fcd_system *sys, fcd_matrix_kind which,
                                              const fcd_matrix_file *m,
                                              const fcd_dofmap *map);

/** Gives the system a copy of the dof map, so that its files may name dofs by node label:
 *  fcd_system_read_fixed takes lines `node LABEL DOF [VALUE]`, fcd_system_read_vector
 *  lines `node LABEL DOF VALUE` (the other entries zero; a file gives all its values in
 *  order or all by node, never both). Replaces an earlier map; NULL removes it.
 *  @param sys the system
 *  @param map the map (its size must be the system's dofs), or NULL
 *  @return FCD_OK, or FCD_E_INVALID_ARG (a size that differs), FCD_E_NOMEM
 *  @since 0.1 */
FCD_API fcd_status fcd_system_set_dofmap(fcd_system *sys, const fcd_dofmap *map);

FCD_END_DECLS

#endif
