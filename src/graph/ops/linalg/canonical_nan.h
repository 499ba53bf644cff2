// Exact mode's canonical quiet NaN for float (0x7FC00000) and double (0x7FF8000000000000), for operator code
// that computes outside the kernel table.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

namespace onemodel::ops {

template <class T>
T canonical_nan() {
  if constexpr (std::is_same_v<T, float>) {
    return __builtin_bit_cast(float, uint32_t{0x7FC00000u});
  } else {
    return __builtin_bit_cast(double, uint64_t{0x7FF8000000000000ull});
  }
}

// v, or the canonical NaN when v is a NaN; integers pass through.
template <class T>
T canonicalize(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(v)) return canonical_nan<T>();
  }
  return v;
}

}  // namespace onemodel::ops
