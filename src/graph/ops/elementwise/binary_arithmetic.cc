// Add, Sub, Mul, Div over f16, f32, f64 and the integer types, with numpy broadcasting (ops-elementwise.md).
//
// Floats: one IEEE operation per element (f16 computed in f32 and rounded once), so fast and exact differ
// only in exact mode's NaN rewrite; f32 runs on the kernel table's vector loop, which computes the same.
// Integers wrap around, Div truncates, x / 0 is 0 and MIN / -1 is MIN.
#include <functional>
#include <type_traits>

#include "graph/ops/elementwise/binary_kernel.h"
#include "graph/ops/elementwise/factories.h"

namespace onemodel::ops {
namespace {

// The element types every arithmetic operator takes.
struct NumericOp {
  static constexpr bool kBoolOutput = false;
  template <class E>
  static constexpr bool serves = is_numeric_elem<E>;
};

// Add, Sub and Mul: the same expression for floats and, in the wrapping type, for integers.
template <class Fn, BinaryFn kFn>
struct RingOp : NumericOp {
  static constexpr BinaryFn kVectorFn = kFn;
  template <class V>
  static V apply(V a, V b) {
    if constexpr (std::is_integral_v<V>) {
      return static_cast<V>(Fn{}(Wrap<V>(a), Wrap<V>(b)));
    } else {
      return Fn{}(a, b);
    }
  }
};
using AddOp = RingOp<std::plus<>, BinaryFn::Add>;
using SubOp = RingOp<std::minus<>, BinaryFn::Sub>;
using MulOp = RingOp<std::multiplies<>, BinaryFn::Mul>;

struct DivOp : NumericOp {
  static constexpr BinaryFn kVectorFn = BinaryFn::Div;
  template <class V>
  static V apply(V a, V b) {
    if constexpr (std::is_integral_v<V>) {
      if (b == 0) return 0;
      // x / -1 is a wrapping negation, which also gives MIN / -1 = MIN without the trap.
      if constexpr (std::is_signed_v<V>) {
        if (b == -1) return static_cast<V>(Wrap<V>(0) - Wrap<V>(a));
      }
      return static_cast<V>(a / b);
    } else {
      return a / b;
    }
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_add(const NodeInfo& node) {
  return make_same_type_binary<AddOp>(node);
}
std::unique_ptr<OpKernel> make_sub(const NodeInfo& node) {
  return make_same_type_binary<SubOp>(node);
}
std::unique_ptr<OpKernel> make_mul(const NodeInfo& node) {
  return make_same_type_binary<MulOp>(node);
}
std::unique_ptr<OpKernel> make_div(const NodeInfo& node) {
  return make_same_type_binary<DivOp>(node);
}

}  // namespace onemodel::ops
