/* The recipe "how to add a scheme" (docs/architecture.md) followed in a test build: a row
 * of lib/capabilities/dynamics/schemes.c's table, here Moreau-Jean's operations under a new name and value (the
 * recipe's first step, the enumerator, is the value 4 that test_recipe.c uses). This
 * object takes the place of the library's schemes.c in test_recipe's link. */
#define FCD__SCHEMES_EXTRA                                                              \
  {(fcd_scheme)4, "moreau-jean-again", "Moreau-Jean's row under another name (a test)", \
   activate_predicted, 0, mj_rhs, w_unit, 0},
#include "../../lib/capabilities/dynamics/schemes.c"
