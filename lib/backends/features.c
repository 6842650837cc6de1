/* Which optional parts this build has (fcd_has_feature, fcd_features): told by the build
 * and by PETSc's own configuration, read here without calling into any backend. */
#include "backends.h"

#include <petscconf.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* fclib is optional (meson -Dfclib); MPI, UMFPACK and SLEPc are required by the build
 * today; MUMPS comes with PETSc's own configuration. The names are the stable part: a
 * host that asks keeps working when more parts become optional. */
static int have_fclib(void) { return FCD_HAVE_FCLIB; }
static int have_mumps(void) {
#if defined(PETSC_HAVE_MUMPS)
  return 1;
#else
  return 0;
#endif
}
static const struct {
  const char *name;
  int (*have)(void);
} features[] = {{"fclib", have_fclib}, {"mpi", NULL}, {"umfpack", NULL}, {"slepc", NULL},
                {"mumps", have_mumps}};

int fcd_has_feature(const char *name) {
  if (!name) return 0;
  for (size_t k = 0; k < sizeof features / sizeof *features; k++)
    if (strcmp(name, features[k].name) == 0) return features[k].have ? features[k].have() : 1;
  return 0;
}

static char feature_list[64];
static pthread_once_t feature_once = PTHREAD_ONCE_INIT;

static void list_features(void) {
  size_t len = 0;
  for (size_t k = 0; k < sizeof features / sizeof *features; k++)
    if (fcd_has_feature(features[k].name))
      len += (size_t)snprintf(feature_list + len, sizeof feature_list - len, "%s%s",
                              len ? " " : "", features[k].name);
}

const char *fcd_features(void) {
  pthread_once(&feature_once, list_features);
  return feature_list;
}
