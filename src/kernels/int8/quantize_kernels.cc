// The registry of quantization tables: one per path this build compiled.
#include "kernels/int8/quantize_kernels.h"

#include "kernels/paths/path_registry.h"

namespace onemodel {

ONEMODEL_PATH_REGISTRY(QuantizeKernels, quantize_kernels, quantize_table)

}  // namespace onemodel
