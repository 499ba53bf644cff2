// The per-path registries of kernel tables. Each path file (src/kernels/paths/<path>.cc) defines its tables;
// CMake defines ONEMODEL_HAS_PATH_<NAME> for the paths this build compiled, and a registry hands out the
// table of a compiled path or nullptr.
#pragma once

#include "kernels/kernel_table.h"

#if defined(ONEMODEL_HAS_PATH_SCALAR)
#define ONEMODEL_IF_PATH_SCALAR(...) __VA_ARGS__
#else
#define ONEMODEL_IF_PATH_SCALAR(...)
#endif
#if defined(ONEMODEL_HAS_PATH_V128)
#define ONEMODEL_IF_PATH_V128(...) __VA_ARGS__
#else
#define ONEMODEL_IF_PATH_V128(...)
#endif
#if defined(ONEMODEL_HAS_PATH_AVX2)
#define ONEMODEL_IF_PATH_AVX2(...) __VA_ARGS__
#else
#define ONEMODEL_IF_PATH_AVX2(...)
#endif
#if defined(ONEMODEL_HAS_PATH_AVX512)
#define ONEMODEL_IF_PATH_AVX512(...) __VA_ARGS__
#else
#define ONEMODEL_IF_PATH_AVX512(...)
#endif

// Defines `const Type* function(KernelPath)` over the tables paths::<path>_<suffix> (scalar_<suffix>, ...),
// declaring those this build compiled. Use it inside namespace onemodel.
#define ONEMODEL_PATH_REGISTRY(Type, function, suffix)                                   \
  namespace paths {                                                                      \
  ONEMODEL_IF_PATH_SCALAR(extern const Type scalar_##suffix;)                            \
  ONEMODEL_IF_PATH_V128(extern const Type v128_##suffix;)                                \
  ONEMODEL_IF_PATH_AVX2(extern const Type avx2_##suffix;)                                \
  ONEMODEL_IF_PATH_AVX512(extern const Type avx512_##suffix;)                            \
  }                                                                                      \
  const Type* function(KernelPath path) {                                                \
    switch (path) {                                                                      \
      ONEMODEL_IF_PATH_SCALAR(case KernelPath::Scalar : return &paths::scalar_##suffix;) \
      ONEMODEL_IF_PATH_V128(case KernelPath::V128 : return &paths::v128_##suffix;)       \
      ONEMODEL_IF_PATH_AVX2(case KernelPath::Avx2 : return &paths::avx2_##suffix;)       \
      ONEMODEL_IF_PATH_AVX512(case KernelPath::Avx512 : return &paths::avx512_##suffix;) \
      default:                                                                           \
        return nullptr;                                                                  \
    }                                                                                    \
  }
