/* fcd: the names of each family of choices, in one registry per family.
 *
 * A caller that offers a choice by name (a command-line option, a binding's keyword, a
 * configuration file) reads the names here rather than keeping its own list: the
 * library's tables of schemes, contact solvers and file formats are the registry, so a
 * new entry there is a new name everywhere at once.
 *
 * SPDX-License-Identifier: BSD-3-Clause */
#ifndef FCD_REGISTRY_H
#define FCD_REGISTRY_H

#include <fcd/fcd_common.h>
#include <fcd/fcd_status.h>

FCD_BEGIN_DECLS

/** The families of named choices. */
typedef enum {
  FCD_FAMILY_SCHEME = 0,         /**< fcd_scheme values (fcd_integrator_create) */
  FCD_FAMILY_CONTACT_SOLVER = 1, /**< fcd_fc_solver values (FCD_PARAM_CONTACT_SOLVER) */
  FCD_FAMILY_MATRIX_FORMAT = 2,  /**< fcd_matrix_format values (fcd_matrix_file_read) */
  FCD_FAMILY_MESH_FORMAT = 3,    /**< fcd_mesh_format values (fcd_mesh_read) */
  FCD_FAMILY_EIGEN_PATH = 4,     /**< fcd_eigen_path values (FCD_STAB_EIGEN_PATH) */
  FCD_FAMILY_OUTPUT_FORMAT = 5   /**< fcd_output_format values (fcd_series_set_format) */
} fcd_family;

/** The number of entries of a family.
 *  @param family the family
 *  @return its entries, 0 for a value that is no family
 *  @since 0.1 */
FCD_API int fcd_registry_count(fcd_family family);

/** Entry k of a family, in the order the library documents them (its default first
 *  where it has one).
 *  @param family the family
 *  @param k the entry, 0 to fcd_registry_count(family) - 1
 *  @param name receives its name, a static string (NULL: not wanted)
 *  @param value receives its value, the enumerator of the family's type (NULL: not wanted)
 *  @param summary receives one line saying what it is, a static string (NULL: not wanted)
 *  @return FCD_OK, or FCD_E_INVALID_ARG (no such family or entry)
 *  @since 0.1 */
FCD_API fcd_status fcd_registry_entry(fcd_family family, int k, const char **name,
                                      int *value, const char **summary);

/** The value of a name of a family.
 *  @param family the family
 *  @param name the name, as fcd_registry_entry gives it
 *  @param value receives the value
 *  @return FCD_OK, or FCD_E_INVALID_ARG (no such family or name)
 *  @since 0.1 */
FCD_API fcd_status fcd_registry_lookup(fcd_family family, const char *name, int *value);

/** The name of a value of a family.
 *  @param family the family
 *  @param value the value
 *  @return its name, a static string; NULL when the family has no such value
 *  @since 0.1 */
FCD_API const char *fcd_registry_name(fcd_family family, int value);

FCD_END_DECLS

#endif
