// Relu: a compare and a select (graph-runtime.md §7). `x <= 0` is false for NaN, so NaN passes through
// (canonical in exact mode), and both zeros give +0. Served for the float types and the signed integers.
#include <type_traits>

#include "graph/ops/elementwise/factories.h"
#include "graph/ops/elementwise/unary_kernel.h"

namespace onemodel::ops {
namespace {

struct ReluOp {
  template <class E>
  static constexpr bool serves = E::is_float || (is_integer_elem<E> && std::is_signed_v<typename E::Value>);
  template <class V>
  V operator()(V v) const {
    return v <= V(0) ? V(0) : v;
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_relu(const NodeInfo& node) {
  return make_unary_elementwise<ReluOp>(node);
}

}  // namespace onemodel::ops
