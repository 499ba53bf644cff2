// The registry of quantization tables: one per path this build compiled (CMake defines
// ONEMODEL_HAS_PATH_<NAME>).
#include "kernels/int8/quantize_kernels.h"

namespace onemodel {

namespace paths {
#if defined(ONEMODEL_HAS_PATH_SCALAR)
extern const QuantizeKernels scalar_quantize_table;
#endif
#if defined(ONEMODEL_HAS_PATH_V128)
extern const QuantizeKernels v128_quantize_table;
#endif
#if defined(ONEMODEL_HAS_PATH_AVX2)
extern const QuantizeKernels avx2_quantize_table;
#endif
#if defined(ONEMODEL_HAS_PATH_AVX512)
extern const QuantizeKernels avx512_quantize_table;
#endif
}  // namespace paths

const QuantizeKernels* quantize_kernels(KernelPath path) {
  switch (path) {
#if defined(ONEMODEL_HAS_PATH_SCALAR)
    case KernelPath::Scalar:
      return &paths::scalar_quantize_table;
#endif
#if defined(ONEMODEL_HAS_PATH_V128)
    case KernelPath::V128:
      return &paths::v128_quantize_table;
#endif
#if defined(ONEMODEL_HAS_PATH_AVX2)
    case KernelPath::Avx2:
      return &paths::avx2_quantize_table;
#endif
#if defined(ONEMODEL_HAS_PATH_AVX512)
    case KernelPath::Avx512:
      return &paths::avx512_quantize_table;
#endif
    default:
      return nullptr;
  }
}

}  // namespace onemodel
