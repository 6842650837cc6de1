/* Every private header of lib/ at once, for the unit tests of internal code. A file of
 * lib/ includes its own layer's header instead (core.h, sparse.h, backend/backends.h,
 * dist/dist.h, system.h, algebra.h, model.h, fc_private.h, capabilities.h; the layers
 * are lib/layers.txt's), which includes the ones below it and none above. */
#ifndef FCD_PRIVATE_H
#define FCD_PRIVATE_H

#include "backend/lapack.h"
#include "capabilities.h"
#include "equilibrium_private.h"
#include "mechanism.h"
#include "schemes.h"

#endif /* FCD_PRIVATE_H */
