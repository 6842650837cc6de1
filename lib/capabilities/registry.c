/* The registries (fcd/fcd_registry.h): each family's names are the rows of the table its
 * own file keeps (schemes.c, fc_solvers.c, import.c, mesh_read.c, stability_eigs.c, series.c), read here through one
 * function a family, in the spirit of SLEPc's EPSRegister list: the library checks a
 * value against the same rows, and the CLI, the Python binding and the generated manual
 * read their lists here. */
#include "capabilities.h"
#include "fc_private.h"
#include "import_private.h"
#include "mesh_private.h"
#include "schemes.h"
#include "stability_private.h"
#include "fcd/fcd_registry.h"

#include <string.h>

static fcd__registry_fn family_fn(fcd_family family) {
  switch (family) {
  case FCD_FAMILY_SCHEME: return fcd__scheme_registry;
  case FCD_FAMILY_CONTACT_SOLVER: return fcd__fc_solver_registry;
  case FCD_FAMILY_MATRIX_FORMAT: return fcd__matrix_format_registry;
  case FCD_FAMILY_MESH_FORMAT: return fcd__mesh_format_registry;
  case FCD_FAMILY_EIGEN_PATH: return fcd__eigen_path_registry;
  case FCD_FAMILY_OUTPUT_FORMAT: return fcd__output_format_registry;
  }
  return NULL;
}

int fcd_registry_count(fcd_family family) {
  fcd__registry_fn fn = family_fn(family);
  fcd__named e;
  int n = 0;
  while (fn && fn(n, &e)) n++;
  return n;
}

fcd_status fcd_registry_entry(fcd_family family, int k, const char **name, int *value,
                              const char **summary) {
  fcd__registry_fn fn = family_fn(family);
  fcd__named e;
  if (!fn || !fn(k, &e)) return FCD_E_INVALID_ARG;
  if (name) *name = e.name;
  if (value) *value = e.value;
  if (summary) *summary = e.summary;
  return FCD_OK;
}

fcd_status fcd_registry_lookup(fcd_family family, const char *name, int *value) {
  fcd__registry_fn fn = family_fn(family);
  fcd__named e;
  if (!fn || !name || !value) return FCD_E_INVALID_ARG;
  for (int k = 0; fn(k, &e); k++)
    if (!strcmp(e.name, name)) {
      *value = e.value;
      return FCD_OK;
    }
  return FCD_E_INVALID_ARG;
}

const char *fcd_registry_name(fcd_family family, int value) {
  fcd__registry_fn fn = family_fn(family);
  fcd__named e;
  for (int k = 0; fn && fn(k, &e); k++)
    if (e.value == value) return e.name;
  return NULL;
}
