// Equal, Less, Greater, LessOrEqual, GreaterOrEqual: numpy broadcasting, a bool output. The comparisons are
// IEEE's, so NaN compares false with everything (itself included) and -0 equals +0; 16-bit floats compare
// their decoded values.
#include <functional>

#include "graph/ops/elementwise/binary_kernel.h"
#include "graph/ops/elementwise/factories.h"

namespace onemodel::ops {
namespace {

template <class Compare, bool kTakesBool>
struct CompareOp {
  static constexpr bool kBoolOutput = true;
  template <class E>
  static constexpr bool serves = is_numeric_elem<E> || (kTakesBool && E::dtype == DType::Bool);
  template <class V>
  static bool apply(V a, V b) {
    return Compare{}(a, b);
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_equal(const NodeInfo& node) {
  return make_same_type_binary<CompareOp<std::equal_to<>, true>>(node);
}
std::unique_ptr<OpKernel> make_less(const NodeInfo& node) {
  return make_same_type_binary<CompareOp<std::less<>, false>>(node);
}
std::unique_ptr<OpKernel> make_greater(const NodeInfo& node) {
  return make_same_type_binary<CompareOp<std::greater<>, false>>(node);
}
std::unique_ptr<OpKernel> make_less_or_equal(const NodeInfo& node) {
  return make_same_type_binary<CompareOp<std::less_equal<>, false>>(node);
}
std::unique_ptr<OpKernel> make_greater_or_equal(const NodeInfo& node) {
  return make_same_type_binary<CompareOp<std::greater_equal<>, false>>(node);
}

}  // namespace onemodel::ops
