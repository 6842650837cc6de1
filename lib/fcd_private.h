/* Every private header of lib/ at once, for the unit tests of internal code. A file of
 * lib/ includes its own layer's header instead (core.h, sparse.h, backends/backends.h,
 * distribution/dist.h, system.h, algebra.h, model.h, fc_private.h, capabilities.h; the layers
 * are lib/layers.txt's), which includes the ones below it and none above. */
#ifndef FCD_PRIVATE_H
#define FCD_PRIVATE_H

#include "lapack.h"
#include "capabilities.h"
#include "equilibrium_private.h"
#include "mechanism.h"
#include "schemes.h"

#endif /* FCD_PRIVATE_H */
