// Neg, Abs, Sign, Sqrt, Reciprocal, Floor, Ceil and Round: one exact IEEE operation or select per element
// (16-bit floats computed in f32 and rounded back, which is exact for these). Integers wrap: Neg and Abs of
// the minimum give the minimum.
#include <cmath>
#include <limits>
#include <type_traits>

#include "graph/ops/elementwise/factories.h"
#include "graph/ops/elementwise/unary_kernel.h"

namespace onemodel::ops {
namespace {

template <class E>
inline constexpr bool kIsSigned = is_numeric_elem<E>&& std::is_signed_v<typename E::Value>;
template <class E>
inline constexpr bool kIsFloat = is_numeric_elem<E>&& E::is_float;

template <class V>
V wrapping_negate(V v) {
  if constexpr (std::is_integral_v<V>)
    return static_cast<V>(Wrap<V>(0) - Wrap<V>(v));
  else
    return -v;
}

struct NegOp {
  template <class E>
  static constexpr bool serves = kIsSigned<E>;
  template <class V>
  V operator()(V v) const {
    return wrapping_negate(v);
  }
};

struct AbsOp {
  template <class E>
  static constexpr bool serves = is_numeric_elem<E>;
  template <class V>
  V operator()(V v) const {
    if constexpr (std::is_floating_point_v<V>)
      return std::fabs(v);  // clears the sign of -0 and of NaN too
    else if constexpr (std::is_signed_v<V>)
      return v < 0 ? wrapping_negate(v) : v;
    else
      return v;
  }
};

// -1, 0 or +1; both zeros give +0 and NaN stays NaN (neither comparison holds and v == 0 is false).
struct SignOp {
  template <class E>
  static constexpr bool serves = is_numeric_elem<E>;
  template <class V>
  V operator()(V v) const {
    if constexpr (std::is_floating_point_v<V>)
      return v > 0 ? V(1) : v < 0 ? V(-1) : v == 0 ? V(0) : v;
    else if constexpr (std::is_signed_v<V>)
      return v > 0 ? V(1) : v < 0 ? V(-1) : V(0);
    else
      return v > 0 ? V(1) : V(0);
  }
};

struct SqrtOp {
  template <class E>
  static constexpr bool serves = kIsFloat<E>;
  template <class V>
  V operator()(V v) const {
    return std::sqrt(v);
  }
};

struct ReciprocalOp {
  template <class E>
  static constexpr bool serves = kIsFloat<E>;
  template <class V>
  V operator()(V v) const {
    return V(1) / v;
  }
};

// Rounding to an integral value with IEEE additions only, so the loops vectorise on every path (the library
// functions need SSE4.1 on x86). Below 2^(p-1), p the significand width, adding and removing 2^(p-1) rounds
// |x| to the nearest integer with ties to even (the default rounding mode); above it every float is integral,
// and infinities and NaN pass unchanged. Every result carries the sign of x, which keeps -0 (Round(-0.4) is
// -0, Ceil(-0.5) is -0).
template <class V>
V round_half_even(V x) {
  constexpr V kIntegral = V(uint64_t{1} << (std::numeric_limits<V>::digits - 1));
  const V a = std::fabs(x);
  const V r = (a + kIntegral) - kIntegral;
  return a < kIntegral ? std::copysign(r, x) : x;
}

template <int kDirection>  // -1 floor, +1 ceil, 0 nearest with ties to even
struct RoundingOp {
  template <class E>
  static constexpr bool serves = kIsFloat<E>;
  template <class V>
  V operator()(V x) const {
    const V r = round_half_even(x);
    if constexpr (kDirection < 0)
      return std::copysign(r > x ? r - V(1) : r, x);
    else if constexpr (kDirection > 0)
      return std::copysign(r < x ? r + V(1) : r, x);
    else
      return r;
  }
};
using FloorOp = RoundingOp<-1>;
using CeilOp = RoundingOp<1>;
using RoundOp = RoundingOp<0>;

}  // namespace

std::unique_ptr<OpKernel> make_neg(const NodeInfo& node) {
  return make_unary_elementwise<NegOp>(node);
}
std::unique_ptr<OpKernel> make_abs(const NodeInfo& node) {
  return make_unary_elementwise<AbsOp>(node);
}
std::unique_ptr<OpKernel> make_sign(const NodeInfo& node) {
  return make_unary_elementwise<SignOp>(node);
}
std::unique_ptr<OpKernel> make_sqrt(const NodeInfo& node) {
  return make_unary_elementwise<SqrtOp>(node);
}
std::unique_ptr<OpKernel> make_reciprocal(const NodeInfo& node) {
  return make_unary_elementwise<ReciprocalOp>(node);
}
std::unique_ptr<OpKernel> make_floor(const NodeInfo& node) {
  return make_unary_elementwise<FloorOp>(node);
}
std::unique_ptr<OpKernel> make_ceil(const NodeInfo& node) {
  return make_unary_elementwise<CeilOp>(node);
}
std::unique_ptr<OpKernel> make_round(const NodeInfo& node) {
  return make_unary_elementwise<RoundOp>(node);
}

}  // namespace onemodel::ops
