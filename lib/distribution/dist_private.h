/* What the files of the distribution layer share (lib/distribution/): the row partition. MPI's
 * types stay here and in the layer's sources, never in dist.h. */
#ifndef FCD_LIB_DIST_PRIVATE_H
#define FCD_LIB_DIST_PRIVATE_H

#include "dist.h"

#include <mpi.h>

struct fcd__dist {
  MPI_Comm comm;
  int rank, size;
  fcd_index rbegin, rend;
  fcd_index *starts; /* size + 1: rank r owns rows [starts[r], starts[r + 1]) */
};

#endif
