/** @file fcd_vtk.h
 *  VTK output for ParaView and other VTK readers: displacements, mode shapes and
 *  contact status on the host's mesh. fcd knows dofs, not geometry, so the host
 *  supplies node coordinates, the dofs of each node and the cells; fcd writes legacy
 *  VTK (version 3.0, ASCII or binary) unstructured grids with point data, and time series of
 *  VTK XML unstructured grids (binary) with a ParaView collection (fcd_series). */
#ifndef FCD_VTK_H
#define FCD_VTK_H

#include <fcd/fcd_common.h>
#include <fcd/fcd_contact.h>
#include <fcd/fcd_equilibrium.h>
#include <fcd/fcd_integrator.h>
#include <fcd/fcd_status.h>
#include <fcd/fcd_system.h>

FCD_BEGIN_DECLS

/** Opaque mesh: nodes with coordinates and dofs, and cells. */
typedef struct fcd_mesh fcd_mesh;

/** VTK cell types accepted by fcd_mesh_add_cells (VTK's own numbers). */
enum {
  FCD_VTK_VERTEX = 1,     /**< 1 node */
  FCD_VTK_LINE = 3,       /**< 2 nodes */
  FCD_VTK_TRIANGLE = 5,   /**< 3 nodes */
  FCD_VTK_QUAD = 9,       /**< 4 nodes */
  FCD_VTK_TETRA = 10,     /**< 4 nodes */
  FCD_VTK_HEXAHEDRON = 12, /**< 8 nodes */
  FCD_VTK_WEDGE = 13,     /**< 6 nodes */
  FCD_VTK_PYRAMID = 14,   /**< 5 nodes: the base's four, then the apex */
  FCD_VTK_QUADRATIC_EDGE = 21,       /**< 3 nodes: the ends, then the middle */
  FCD_VTK_QUADRATIC_TRIANGLE = 22,   /**< 6 nodes: corners, then edges 01 12 20 */
  FCD_VTK_QUADRATIC_QUAD = 23,       /**< 8 nodes: corners, then edges 01 12 23 30 */
  FCD_VTK_QUADRATIC_TETRA = 24,      /**< 10 nodes: corners, then edges 01 12 20 03 13 23 */
  FCD_VTK_QUADRATIC_HEXAHEDRON = 25, /**< 20 nodes: corners, then edges 01 12 23 30 45 56
                                          67 74 04 15 26 37 */
  FCD_VTK_QUADRATIC_WEDGE = 26,      /**< 15 nodes: corners, then edges 01 12 20 34 45 53
                                          03 14 25 */
  FCD_VTK_QUADRATIC_PYRAMID = 27     /**< 13 nodes: corners, then edges 01 12 23 30 04 14
                                          24 34 */
};

/** A mesh of @p nnodes nodes in dimension @p dim (2 or 3) over the dofs of @p sys:
 *  @p coords (dim per node, required: VTK output without coordinates is refused with
 *  FCD_E_INVALID_ARG) and @p node_dofs (dim per node: the dof carrying each
 *  displacement component, -1 for none). NULL node_dofs means node p owns dofs
 *  dim p .. dim p + dim - 1, which needs nnodes dim = ndofs. Arrays are copied.
 *  @param sys the system (borrowed; it must outlive every object made from it)
 *  @param dim spatial dimension, 2 or 3
 *  @param nnodes number of nodes
 *  @param coords node coordinates, dim per node (copied)
 *  @param node_dofs the dim dofs of each node in the system, or -1 for none (copied; NULL:
 *      node i has dofs dim i ...)
 *  @param out receives the new mesh, owned by the caller (fcd_mesh_destroy); NULL on
 *      failure
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_NOMEM
 *  @since 0.1 */
FCD_API fcd_status fcd_mesh_create(const fcd_system *sys, int dim, fcd_index nnodes,
                                   const fcd_real *coords, const fcd_index *node_dofs,
                                   fcd_mesh **out);

/** Reads a mesh from a legacy VTK file (ASCII or BINARY, DATASET UNSTRUCTURED_GRID:
 *  POINTS, CELLS, CELL_TYPES, the classic layout of versions up to 4.2; any point or cell
 *  data is ignored) for a system whose node p owns dofs dim p .. dim p + dim - 1. In 2D
 *  every z must be 0. FCD_E_FORMAT names the section at fault, FCD_E_UNSUPPORTED other
 *  datasets, other cell types and BINARY points of another type than double or float.
 *  @param sys the system (borrowed; it must outlive every object made from it)
 *  @param dim spatial dimension, 2 or 3
 *  @param path legacy VTK unstructured-grid file
 *  @param out receives the new mesh, owned by the caller; NULL on failure
 *  @return FCD_OK, or FCD_E_FORMAT, FCD_E_INVALID_ARG, FCD_E_IO, FCD_E_NOMEM,
 *      FCD_E_UNSUPPORTED
 *  @since 0.1 */
FCD_API fcd_status fcd_mesh_read_vtk(const fcd_system *sys, int dim, const char *path,
                                     fcd_mesh **out);

/** Formats of mesh files (fcd_mesh_read, fcd_mesh_get_format). */
enum {
  FCD_MESH_VTK_LEGACY = 1, /**< legacy VTK, versions up to 5.1, ASCII or BINARY */
  FCD_MESH_VTU = 2,        /**< VTK XML unstructured grid */
  FCD_MESH_GMSH = 3,       /**< Gmsh MSH 2.2 or 4.1, ASCII or binary */
  FCD_MESH_ABAQUS = 4,     /**< Abaqus input file (.inp) without parts */
  FCD_MESH_NASTRAN = 5     /**< Nastran bulk data (.bdf, .dat) */
};

/** Reads a mesh written by another program, its format told from its content: legacy VTK
 *  (as fcd_mesh_read_vtk, and the OFFSETS/CONNECTIVITY layout of version 5.1), Gmsh MSH
 *  2.2 and 4.1 (ASCII and binary) with their physical groups, Abaqus input files
 *  (*NODE, *ELEMENT, *NSET, *ELSET, *SURFACE) and Nastran bulk data (GRID, CTRIA3,
 *  CQUAD4, CTRIA6, CQUAD8, CTETRA, CPENTA, CHEXA, CROD/CBAR/CBEAM, SET1, BSURF, BSURFS).
 *  Linear and serendipity quadratic elements are read; their nodes are put in VTK's
 *  order. Nodes keep their labels: when the system has a dof map (matrices by node
 *  label, fcd_system_set_dofmap), node L's components are its dofs (L, 1..dim), -1 where
 *  the map lacks one; without a map node p of the file owns dofs dim p .. dim p + dim -
 *  1, as in fcd_mesh_read_vtk. Named groups become surfaces (fcd_mesh_get_surface): a
 *  Gmsh physical group ("physical:TAG" when unnamed), an Abaqus *SURFACE, *ELSET of
 *  surface elements or *NSET, a Nastran BSURF, BSURFS or SET1 ("BSURF:ID", ...) or the
 *  elements of a property ("PID:ID").
 *  @param sys the system (borrowed; it must outlive every object made from it)
 *  @param dim spatial dimension, 2 or 3
 *  @param path the file
 *  @param out receives the new mesh, owned by the caller; NULL on failure
 *  @return FCD_OK, or FCD_E_FORMAT (naming the file, line and field), FCD_E_INVALID_ARG,
 *      FCD_E_IO, FCD_E_NOMEM, FCD_E_UNSUPPORTED
 *  @since 0.1 */
FCD_API fcd_status fcd_mesh_read(const fcd_system *sys, int dim, const char *path,
                                 fcd_mesh **out);

/** The format a mesh was read from.
 *  @param m the mesh
 *  @return FCD_MESH_*, 0 for a mesh made by fcd_mesh_create, -1 for an invalid handle
 *  @since 0.1 */
FCD_API int fcd_mesh_get_format(const fcd_mesh *m);

/** The number of nodes of a mesh.
 *  @param m the mesh
 *  @return the count, -1 for an invalid handle
 *  @since 0.1 */
FCD_API fcd_index fcd_mesh_node_count(const fcd_mesh *m);

/** The label a mesh file gave node @p node (its index for meshes without labels).
 *  @param m the mesh
 *  @param node a node index
 *  @param label receives the label
 *  @return FCD_OK, or FCD_E_INVALID_ARG
 *  @since 0.1 */
FCD_API fcd_status fcd_mesh_get_node_label(const fcd_mesh *m, fcd_index node, int64_t *label);

/** A mesh's node coordinates: dim per node, the mesh's own array (valid while it lives).
 *  @param m the mesh
 *  @param coords receives the array
 *  @return FCD_OK, or FCD_E_INVALID_ARG
 *  @since 0.1 */
FCD_API fcd_status fcd_mesh_get_coords(const fcd_mesh *m, const fcd_real **coords);

/** A mesh's cells: cell c has VTK type types[c] and nodes nodes[offsets[c]] ..
 *  nodes[offsets[c + 1] - 1] (VTK's order); the mesh's own arrays.
 *  @param m the mesh
 *  @param ncells receives the number of cells
 *  @param offsets receives ncells + 1 offsets
 *  @param nodes receives the nodes of all cells
 *  @param types receives the VTK type of each cell
 *  @return FCD_OK, or FCD_E_INVALID_ARG
 *  @since 0.1 */
FCD_API fcd_status fcd_mesh_get_cells(const fcd_mesh *m, fcd_index *ncells,
                                      const fcd_index **offsets, const fcd_index **nodes,
                                      const int **types);

/** The number of named surfaces of a mesh read from a file.
 *  @param m the mesh
 *  @return the count, -1 for an invalid handle
 *  @since 0.1 */
FCD_API fcd_index fcd_mesh_surface_count(const fcd_mesh *m);

/** The name of surface @p k.
 *  @param m the mesh
 *  @param k the surface
 *  @return the mesh's own string, NULL outside [0, fcd_mesh_surface_count)
 *  @since 0.1 */
FCD_API const char *fcd_mesh_surface_name(const fcd_mesh *m, fcd_index k);

/** The facets of the surface named @p name (exact, else ignoring case) as
 *  fcd_contact_set_add_surface_pair takes them: two node indices per segment in 2D, four
 *  per facet in 3D (-1 fourth for a triangle), oriented outward from the element that
 *  owns each; a quadratic face is given as the linear facets of its nodes (a 6-node
 *  triangle as four triangles, an 8-node quadrilateral as four corner triangles and the
 *  quadrilateral of its mid-side nodes, a 3-node edge as two segments).
 *  @param m the mesh
 *  @param name the surface's name
 *  @param nfacets receives the number of facets
 *  @param facets receives the mesh's own array (valid while the mesh lives)
 *  @return FCD_OK, or FCD_E_INVALID_ARG (no such surface: the message lists those there
 *      are)
 *  @since 0.1 */
FCD_API fcd_status fcd_mesh_get_surface(const fcd_mesh *m, const char *name,
                                        fcd_index *nfacets, const fcd_index **facets);

/** Destroys a mesh (NULL-safe).
 *  @param m the mesh, or NULL
 *  @since 0.1 */
FCD_API void fcd_mesh_destroy(fcd_mesh *m);

/** Appends @p ncells cells of VTK type @p vtk_type (FCD_VTK_*), their nodes in
 *  @p nodes (as many per cell as the type has, in VTK's order). Other types:
 *  FCD_E_UNSUPPORTED; a node out of range: FCD_E_INVALID_ARG, and no cell is added.
 *  @param m the mesh
 *  @param vtk_type VTK cell type (3 line, 5 triangle, 9 quad, 10 tetra, 12 hexahedron,
 *      13 wedge, 14 pyramid, 21-27 the quadratic forms, checked by their corners)
 *  @param ncells number of cells
 *  @param nodes their nodes, the type's count per cell
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_NOMEM, FCD_E_UNSUPPORTED
 *  @since 0.1 */
FCD_API fcd_status fcd_mesh_add_cells(fcd_mesh *m, int vtk_type, fcd_index ncells,
                                      const fcd_index *nodes);

/** Formats of legacy VTK files (fcd_mesh_set_vtk_format). */
enum {
  FCD_VTK_ASCII = 0, /**< text (the default) */
  FCD_VTK_BINARY = 1 /**< the same sections with big-endian binary values (doubles and
                          32-bit integers): 8 bytes a value where text takes up to 24,
                          exact values */
};

/** Chooses the format in which fcd_mesh_write_vtk writes this mesh's files: FCD_VTK_ASCII
 *  (the default) or FCD_VTK_BINARY. fcd_mesh_read_vtk reads both.
 *  @param m the mesh
 *  @param format FCD_VTK_ASCII or FCD_VTK_BINARY
 *  @return FCD_OK, or FCD_E_INVALID_ARG
 *  @since 0.1 */
FCD_API fcd_status fcd_mesh_set_vtk_format(fcd_mesh *m, int format);

/** Writes the mesh to @p path with @p nfields point vectors: field k, named
 *  @p names[k] (letters, digits and '_' only), is a vector over the system's dofs
 *  (ndofs entries; a mode shape's real and imaginary parts are two fields), written per
 *  node as its displacement components (3 components, zero where a node has no dof).
 *  With @p cs and @p status (one fcd_contact_status per contact), a point scalar
 *  "contact_status" is added: -1 for nodes without a contact, else the status of the
 *  contact the node's dofs belong to (both nodes of a pair). Either may be NULL.
 *  @param m the mesh
 *  @param path file to write (replaced only by a complete file)
 *  @param nfields number of nodal fields
 *  @param names their names
 *  @param fields their values, ndofs entries each (shown per node)
 *  @param cs a contact set whose statuses to write, or NULL
 *  @param status one FCD_CONTACT_* value per contact of cs (ignored without cs)
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_IO, FCD_E_NOMEM, FCD_E_STATE
 *  @since 0.1 */
FCD_API fcd_status fcd_mesh_write_vtk(const fcd_mesh *m, const char *path,
                                      fcd_index nfields, const char *const *names,
                                      const fcd_real *const *fields,
                                      const fcd_contact_set *cs, const int *status);

/** How fcd_contact_set_add_surface_pair ties a slave surface to a master surface. */
typedef enum {
  FCD_SURFACE_NODE_TO_SEGMENT = 0, /**< each slave node against the closest master point */
  FCD_SURFACE_DUAL_MORTAR = 1      /**< weighted gaps with Wohlmuth's biorthogonal basis */
} fcd_surface_method;

/** Contacts between two surfaces of @p mesh that need not match (non-matching meshes),
 *  one per slave node, given by rows (fcd_contact_set_add_rows) computed here in the
 *  reference configuration (small sliding: the pairing stays as it is made). 2D: the
 *  surfaces are linear segments, each given by its two mesh nodes. 3D: linear triangles
 *  and bilinear quadrilaterals, each given by four mesh nodes in order around it (-1
 *  fourth for a triangle) such that the right-hand rule gives its body's outward
 *  normal (consistent over each surface: every shared edge run once each way). Normals
 *  point from the slave body into the master one (2D: each slave segment's normal is
 *  turned towards the master surface, (t_y, -t_x) when the surfaces touch; 3D: the
 *  slave facets' outward normals; a slave node takes the normalized sum of its
 *  facets'); 2D tangents are the normals turned by +90 degrees, 3D tangents t the
 *  coordinate axis least aligned with n made orthogonal to it, and b = n x t.
 *  Node-to-segment (node-to-facet in 3D): a slave node against the closest master point
 *  along its normal, the master's shape values as weights; it does not pass the contact
 *  patch test. Dual mortar: the weighted gaps of Wohlmuth's biorthogonal basis, one
 *  contact per slave node, which transmit a uniform pressure and the linear
 *  displacement field exactly (docs/contact.md); 3D master facets are clipped against
 *  each slave facet they face within the largest facet's size (node-to-facet: within
 *  that distance of the node). A slave node that faces no master segment or facet gets
 *  no contact and is counted in @p ninactive; when none faces one, the surfaces do not
 *  face each other and the call fails. The slave side: node-to-segment, the finer
 *  surface (its nodes are the ones kept out); dual mortar, a slave no finer than its
 *  master (the multipliers live on the slave nodes and oscillate when the master cannot
 *  resolve them: docs/contact.md, Hertz). The dofs of every node involved must be free.
 *  A slave node that an earlier surface pair of the set holds along the same normal is
 *  refused (FCD_E_INVALID_ARG): the same pair given twice, by either method, is one
 *  constraint twice whose reaction the two would share arbitrarily.
 *  All or nothing: on failure no contact is added.
 *  @param cs the contact set (2D or 3D, as the mesh)
 *  @param mesh a mesh of the same system and dimension whose surface nodes carry a dof
 *      per direction
 *  @param nslave number of slave segments (2D) or facets (3D)
 *  @param slave their nodes, two per segment or four per facet
 *  @param nmaster number of master segments or facets
 *  @param master their nodes, two per segment or four per facet
 *  @param method an fcd_surface_method
 *  @param mu friction coefficient of every new contact, >= 0
 *  @param first_id receives the id of the first new contact, -1 when none (may be NULL)
 *  @param ninactive receives the number of slave nodes that face no master segment or
 *      facet (may be NULL)
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_NOMEM, FCD_E_UNSUPPORTED (2D: a slave
 *      node facing more than 7 master nodes)
 *  @since 0.1 */
FCD_API fcd_status fcd_contact_set_add_surface_pair(fcd_contact_set *cs, const fcd_mesh *mesh,
                                                    fcd_index nslave, const fcd_index *slave,
                                                    fcd_index nmaster, const fcd_index *master,
                                                    fcd_surface_method method, fcd_real mu,
                                                    fcd_index *first_id, fcd_index *ninactive);

/** Node coordinates for naming what moves when an equilibrium does not exist: the
 *  mechanism of an FCD_E_NO_SOLUTION (fcd_equilibrium_get_mechanism and the message) is
 *  fitted on the body that moves most (the mesh's cells tell bodies apart) and named as a
 *  translation along a direction or a rotation about a point (an axis in 3D). The mesh's
 *  nodes and cells are copied; NULL forgets them. Without it the mesh of the contact
 *  set's surface pairs, if any, is used.
 *  @param eq the equilibrium solver
 *  @param mesh a mesh of the solver's system, or NULL
 *  @return FCD_OK, or FCD_E_INVALID_ARG (a mesh of another system or dimension than the
 *      contact set's), FCD_E_NOMEM
 *  @since 0.1 */
FCD_API fcd_status fcd_equilibrium_set_mesh(fcd_equilibrium *eq, const fcd_mesh *mesh);

/** fcd_contact_set_read for contact files whose version 2 lines include surface pairs,
 *  'surface-pair METHOD MU slave A B [...] master C D [...]' (METHOD dual-mortar or
 *  node-to-segment; two node ids of the mesh per segment in 2D, four per facet in 3D
 *  with -1 fourth for a triangle), which the mesh at
 *  @p mesh_path (legacy VTK, read with the contact set's dimension on the first such
 *  line) resolves through fcd_contact_set_add_surface_pair (docs/file-formats.md).
 *  All or nothing.
 *  @param sys the system (borrowed; it must outlive every object made from it)
 *  @param path contact file
 *  @param mesh_path the mesh the surface pairs refer to, or NULL (a surface pair is
 *      then FCD_E_FORMAT)
 *  @param out receives the new contact set, owned by the caller; NULL on failure
 *  @param mesh_out receives the mesh when one was read (NULL otherwise), owned by the
 *      caller (fcd_mesh_destroy); may be NULL
 *  @return FCD_OK, or FCD_E_FORMAT, FCD_E_INVALID_ARG, FCD_E_IO, FCD_E_NOMEM,
 *      FCD_E_UNSUPPORTED
 *  @since 0.1 */
FCD_API fcd_status fcd_contact_set_read_mesh(fcd_system *sys, const char *path,
                                             const char *mesh_path, fcd_contact_set **out,
                                             fcd_mesh **mesh_out);

/** Opaque time series: frames of a motion on a mesh, for ParaView. */
typedef struct fcd_series fcd_series;

/** A time series in directory @p dir (which must exist): frame k goes to
 *  DIR/NAME-00000k.vtu (VTK XML unstructured grid, version 1.0, its arrays appended as
 *  raw binary in the machine's byte order) and DIR/NAME.pvd, the collection ParaView
 *  opens as one animated dataset, lists the frames with their times. The collection is
 *  written empty here and grows with each frame. An earlier series of the same name in
 *  @p dir is replaced: its collection is overwritten and its frames (NAME-000000.vtu on,
 *  up to the first missing number) are removed here, so that none of them stays beside
 *  the new collection looking like its own; other files are not touched. Each
 *  file is whole at every moment, so a run that stops early leaves the frames it wrote
 *  readable. Point data of a frame: displacement and velocity (3 components per node);
 *  with @p cs, at the nodes of each contact (both nodes of a pair, the node of a node
 *  contact, the first node of a row contact's normal row, which is a surface pair's
 *  slave node): contact_status (-1 where no contact is), contact_gap (g - u_N, negative
 *  when penetrating; NaN where no contact is), contact_slip_velocity (the tangential
 *  velocity relative to the obstacle's sliding, dim - 1 components in the contact's
 *  frame), and the local reactions as contact_normal_force and
 *  contact_tangential_force for node contacts and node-to-segment rows, or
 *  contact_pressure and contact_shear_stress for dual mortar rows (the rows' multipliers
 *  are pressures), 0 elsewhere; and contact_force, the nodal forces H^T r the contacts
 *  apply, at every node (3 components). The mesh, the contact set and the system must
 *  outlive the series. Under MPI, give every frame from one rank only.
 *  @param m the mesh (borrowed)
 *  @param cs the contact set whose fields to write, or NULL
 *  @param dir an existing directory
 *  @param name the files' stem: 1 to 200 letters, digits, '_', '-' or '.'
 *  @param out receives the new series, owned by the caller (fcd_series_destroy); NULL on
 *      failure
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_IO, FCD_E_NOMEM
 *  @since 0.1 */
FCD_API fcd_status fcd_series_create(const fcd_mesh *m, const fcd_contact_set *cs,
                                     const char *dir, const char *name, fcd_series **out);

/** The formats of a series (fcd_series_set_format), named in the registry's family
 *  FCD_FAMILY_OUTPUT_FORMAT (fcd/fcd_registry.h), where every format the library has is
 *  listed; a value the registry gives is a format here. */
typedef enum {
  FCD_OUTPUT_VTU = 0, /**< "vtu": VTK XML unstructured grids, raw binary appended
                           (NAME-00000k.vtu), and a ParaView collection (NAME.pvd); the
                           default */
  FCD_OUTPUT_VTK = 1  /**< "vtk": legacy VTK 3.0 BINARY unstructured grids
                           (NAME-00000k.vtk), for readers of the legacy format only, and a
                           ParaView file series (NAME.vtk.series, JSON, ParaView 5.5 on) */
} fcd_output_format;

/** The format of the series' files, chosen before its first frame. The empty collection
 *  written at creation is removed and the format's own is written empty in its place,
 *  and frames of an earlier series of this name in that format are removed (as
 *  fcd_series_create does). Every format holds the same arrays and field data.
 *  @param s the series
 *  @param format an fcd_output_format, or a value of the registry's
 *      FCD_FAMILY_OUTPUT_FORMAT
 *  @return FCD_OK, or FCD_E_INVALID_ARG (no such format), FCD_E_STATE (the series has
 *      frames), FCD_E_IO
 *  @since 0.1 */
FCD_API fcd_status fcd_series_set_format(fcd_series *s, int format);

/** Destroys a series (NULL-safe); its files stay. A frame still being written is
 *  finished first; its write error, if any, is not reported (fcd_series_flush before
 *  reports it).
 *  @param s the series, or NULL
 *  @since 0.1 */
FCD_API void fcd_series_destroy(fcd_series *s);

/** Waits for the frame being written, if any, and reports its outcome: FCD_OK once every
 *  frame given is on disk and in the collection. A frame that could not be written is
 *  no frame: the series keeps the ones before it, and the next frame may be given
 *  again.
 *  @param s the series
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_IO (the frame, its file and the cause
 *      named)
 *  @since 0.1 */
FCD_API fcd_status fcd_series_flush(fcd_series *s);

/** Whether frames are written in the background (1, the default) or within
 *  fcd_series_write (0). In the background fcd_series_write checks the frame, copies
 *  what it needs and returns; the series' own thread (every signal blocked in it)
 *  writes the file and the collection's entry while the caller goes on, one frame at a
 *  time: the next call to fcd_series_write waits for the frame before and reports its
 *  write error, as fflush reports a buffered fwrite's (so do fcd_series_flush,
 *  fcd_series_set_format, fcd_series_write_mode and this function). Where no thread can
 *  be made the series writes within the call. 0 stops the thread once the frame in
 *  flight is written: for hosts that allow no thread of a library's.
 *  @param s the series
 *  @param on 1 in the background, 0 within the call
 *  @return FCD_OK, or FCD_E_INVALID_ARG, or the frame in flight's FCD_E_IO
 *  @since 0.1 */
FCD_API fcd_status fcd_series_set_async(fcd_series *s, int on);

/** Appends a frame at time @p t: @p u the displacements (ndofs, required), @p v the
 *  velocities (ndofs, or NULL), @p r the local reactions (dim per contact, or NULL) and
 *  @p status the contacts' statuses (FCD_CONTACT_*, or NULL); reactions and statuses
 *  need the series' contact set. Every frame gives the same of these as the first
 *  (FCD_E_INVALID_ARG names the difference). Every value must be finite and @p t later
 *  than the last frame's (ParaView orders frames by time and shows one of two at the same
 *  time): otherwise FCD_E_INVALID_ARG naming the entry. On failure the series keeps its
 *  earlier frames and the collection lists exactly them. The frame is written in the
 *  background (fcd_series_set_async): the arrays may be reused as soon as this returns,
 *  and a write error (FCD_E_IO) is reported by the next call, which then takes no
 *  frame; fcd_series_flush waits for the frame and reports it.
 *  @param s the series
 *  @param t the frame's time (finite, later than the last frame's)
 *  @param u displacements, ndofs entries
 *  @param v velocities, ndofs entries, or NULL
 *  @param r local reactions, dim per contact, or NULL
 *  @param status one FCD_CONTACT_* value per contact, or NULL
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_IO, FCD_E_NOMEM (the contact set's
 *      operator, built at its first use), FCD_E_STATE
 *  @since 0.1 */
FCD_API fcd_status fcd_series_write(fcd_series *s, fcd_real t, const fcd_real *u,
                                    const fcd_real *v, const fcd_real *r, const int *status);

/** Appends the integrator's current state as a frame: its time, displacements,
 *  velocities, the last step's reactions and the contacts' statuses (those two when the
 *  series has a contact set, which must be the integrator's).
 *  @param s the series
 *  @param it the integrator
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_IO, FCD_E_NOMEM, FCD_E_STATE
 *  @since 0.1 */
FCD_API fcd_status fcd_series_write_integrator(fcd_series *s, const fcd_integrator *it);

/** A scalar every later frame carries in its field data (VTK XML FieldData, shown by
 *  ParaView's Information panel and usable in its calculators): @p name (1 to 63
 *  letters, digits or '_'; not TimeValue, which every frame has) set to @p value, or
 *  changed when already set. At most 16 names.
 *  @param s the series
 *  @param name the field's name
 *  @param value its value (finite)
 *  @return FCD_OK, or FCD_E_INVALID_ARG
 *  @since 0.1 */
FCD_API fcd_status fcd_series_set_field(fcd_series *s, const char *name, fcd_real value);

/** A mode animated over one period: @p nframes frames of the displacement
 *  Re(phi e^(i theta)) = re cos(theta) - im sin(theta), theta = 2 pi k / nframes, at the
 *  times theta / |Im lambda| (for a real eigenvalue, which has no period, at k /
 *  nframes), with the eigenvalue in the field data: eigenvalue_re, eigenvalue_im,
 *  frequency_hz (|Im lambda| / 2 pi), growth_rate (Re lambda), damping_ratio
 *  (-Re lambda / |Im lambda|, 0 for a real one) and modulus (|lambda|). The growth is
 *  not applied: each frame has the mode's own amplitude. A series of modes writes no
 *  velocities, reactions or statuses (make it without a contact set, or with one for the
 *  gaps only). @p re and @p im as fcd_stability_get_mode gives them, finite. The mode
 *  starts the series: a series that has frames already is refused (FCD_E_INVALID_ARG;
 *  its frames' times would go back), as is a mode with a NaN or infinite entry.
 *  @param s the series
 *  @param re the mode's real parts, ndofs entries
 *  @param im its imaginary parts, ndofs entries (NULL: a real mode)
 *  @param lambda_re the eigenvalue's real part
 *  @param lambda_im its imaginary part
 *  @param nframes frames over the period, 1 to 100000 (24 animate smoothly)
 *  @return FCD_OK, or FCD_E_INVALID_ARG, FCD_E_IO, FCD_E_NOMEM, FCD_E_STATE
 *  @since 0.1 */
FCD_API fcd_status fcd_series_write_mode(fcd_series *s, const fcd_real *re, const fcd_real *im,
                                         fcd_real lambda_re, fcd_real lambda_im,
                                         fcd_index nframes);

/** What the series wrote: frames and bytes (frames and collection), once the frame in
 *  flight is written (a write error stays for the next call to report). Either may be
 *  NULL.
 *  @param s the series
 *  @param nframes receives the number of frames
 *  @param bytes receives the bytes written
 *  @return FCD_OK, or FCD_E_INVALID_ARG
 *  @since 0.1 */
FCD_API fcd_status fcd_series_get_info(const fcd_series *s, fcd_index *nframes,
                                       double *bytes);

FCD_END_DECLS

#endif
