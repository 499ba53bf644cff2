// The registry of the normalisation row kernels: one table per path this build compiled.
#include "kernels/norm/norm_kernels.h"

#include "kernels/paths/path_registry.h"

namespace onemodel {

ONEMODEL_PATH_REGISTRY(NormKernels, norm_kernels, norm_table)

}  // namespace onemodel
