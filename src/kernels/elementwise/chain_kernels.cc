// The registry of the fused element-wise tables: one per path this build compiled (CMake defines
// ONEMODEL_HAS_PATH_<NAME>).
#include "kernels/elementwise/chain_kernels.h"

namespace onemodel {

namespace paths {
#if defined(ONEMODEL_HAS_PATH_SCALAR)
extern const ChainKernels scalar_chain_table;
#endif
#if defined(ONEMODEL_HAS_PATH_V128)
extern const ChainKernels v128_chain_table;
#endif
#if defined(ONEMODEL_HAS_PATH_AVX2)
extern const ChainKernels avx2_chain_table;
#endif
#if defined(ONEMODEL_HAS_PATH_AVX512)
extern const ChainKernels avx512_chain_table;
#endif
}  // namespace paths

const ChainKernels* chain_kernels(KernelPath path) {
  switch (path) {
#if defined(ONEMODEL_HAS_PATH_SCALAR)
    case KernelPath::Scalar:
      return &paths::scalar_chain_table;
#endif
#if defined(ONEMODEL_HAS_PATH_V128)
    case KernelPath::V128:
      return &paths::v128_chain_table;
#endif
#if defined(ONEMODEL_HAS_PATH_AVX2)
    case KernelPath::Avx2:
      return &paths::avx2_chain_table;
#endif
#if defined(ONEMODEL_HAS_PATH_AVX512)
    case KernelPath::Avx512:
      return &paths::avx512_chain_table;
#endif
    default:
      return nullptr;
  }
}

}  // namespace onemodel
