/* A scheme added as docs/architecture.md says (tests/dynamics/recipe_schemes.c: one row of
 * lib/capabilities/dynamics/schemes.c's table) is a scheme everywhere at once: the registry lists it, the
 * integrator takes it, and its step is the step its row describes (Moreau-Jean's
 * operations here, so the pin on a flat follows Moreau-Jean's states to the last bit). */
#include "../fcdtest.h"
#include "../periodic/pin_model.h"

#include <fcd/fcd.h>
#include <string.h>

static int run(fcd_scheme scheme, double *u) {
  fcd_system *sys = NULL;
  fcd_contact_set *cs = NULL;
  fcd_integrator *it = NULL;
  double u0[4] = {0, 1e-3, 0, 0}, v0[4] = {0, 0, 0, 0};
  fcd_status st = pin(2.2, &sys, &cs);
  if (st == FCD_OK) st = fcd_integrator_create(sys, cs, scheme, &it);
  if (st == FCD_OK) st = fcd_integrator_set_param(it, FCD_PARAM_STEP, 1e-3);
  if (st == FCD_OK) st = fcd_integrator_set_state(it, 0.0, u0, v0);
  for (int k = 0; k < 2000 && st == FCD_OK; k++) st = fcd_integrator_step(it);
  if (st == FCD_OK) st = fcd_integrator_get_state(it, NULL, u, NULL);
  fcd_integrator_destroy(it);
  fcd_contact_set_destroy(cs);
  fcd_system_destroy(sys);
  return st == FCD_OK;
}

int main(void) {
  int n = fcd_registry_count(FCD_FAMILY_SCHEME), v = -1;
  CHECK(n == 5);
  CHECK_ST(fcd_registry_lookup(FCD_FAMILY_SCHEME, "moreau-jean-again", &v), FCD_OK);
  CHECK(v == 4);
  const char *name = NULL;
  CHECK_ST(fcd_registry_entry(FCD_FAMILY_SCHEME, n - 1, &name, NULL, NULL), FCD_OK);
  CHECK(name && !strcmp(name, "moreau-jean-again"));
  double a[4], b[4];
  CHECK(run(FCD_SCHEME_MOREAU_JEAN, a));
  CHECK(run((fcd_scheme)v, b));
  CHECK(memcmp(a, b, sizeof a) == 0);
  CHECK(a[1] != 1e-3); /* the pin moved: the steps ran */
  return fcdt_finish("test_recipe");
}
