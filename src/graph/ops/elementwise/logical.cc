// Not, And, Or, Xor on bool tensors (any non-zero byte reads as true; outputs are 0 or 1), the binary ones
// with numpy broadcasting.
#include "graph/ops/elementwise/binary_kernel.h"
#include "graph/ops/elementwise/factories.h"
#include "graph/ops/elementwise/unary_kernel.h"

namespace onemodel::ops {
namespace {

template <class E>
inline constexpr bool kIsBool = E::dtype == DType::Bool;

struct NotOp {
  template <class E>
  static constexpr bool serves = kIsBool<E>;
  uint8_t operator()(uint8_t v) const { return v ^ 1u; }
};

struct LogicalOp {
  static constexpr bool kBoolOutput = true;
  template <class E>
  static constexpr bool serves = kIsBool<E>;
};
struct AndOp : LogicalOp {
  static uint8_t apply(uint8_t a, uint8_t b) { return a & b; }
};
struct OrOp : LogicalOp {
  static uint8_t apply(uint8_t a, uint8_t b) { return a | b; }
};
struct XorOp : LogicalOp {
  static uint8_t apply(uint8_t a, uint8_t b) { return a ^ b; }
};

}  // namespace

std::unique_ptr<OpKernel> make_not(const NodeInfo& node) {
  return make_unary_elementwise<NotOp>(node);
}
std::unique_ptr<OpKernel> make_and(const NodeInfo& node) {
  return make_same_type_binary<AndOp>(node);
}
std::unique_ptr<OpKernel> make_or(const NodeInfo& node) {
  return make_same_type_binary<OrOp>(node);
}
std::unique_ptr<OpKernel> make_xor(const NodeInfo& node) {
  return make_same_type_binary<XorOp>(node);
}

}  // namespace onemodel::ops
