// The registry of the fused element-wise tables: one per path this build compiled.
#include "kernels/elementwise/chain_kernels.h"

#include "kernels/paths/path_registry.h"

namespace onemodel {

ONEMODEL_PATH_REGISTRY(ChainKernels, chain_kernels, chain_table)

}  // namespace onemodel
