// The opset 1-6 forms of the two-input arithmetic, comparison and logic operators (Add, Sub, Mul, Div, Pow,
// Equal, Less, Greater, And, Or, Xor) and of PRelu. Before
// opset 7 the second operand was not broadcast by numpy's rules: it was either required to have the first's
// shape (broadcast = 0) or laid over the first starting at dimension `axis` (broadcast = 1). The adapter
// here restates that layout as numpy broadcasting, by giving the second operand trailing extent-1
// dimensions, and runs the operator's modern kernel on that view: no kernel is duplicated, and the legacy
// form is exact wherever the modern one is.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "graph/op.h"

namespace onemodel::ops {

// How the second operand of a legacy node lies over the first.
struct LegacyLayout {
  bool broadcast = false;
  std::optional<int64_t> axis;  // unset: the operand's extents match the first's last ones
};

// The second operand's shape under numpy rules that gives the legacy result, or an error message when the
// shapes do not fit the layout. A single-element operand of rank at most the first's is a scalar; otherwise
// extent i of the operand pairs with extent axis + i of the first and must equal it or be 1 (the 1-dim
// expansion the PyTorch exporter relies on), and the output has the first operand's shape.
struct LegacyOperandShape {
  Shape shape;
  std::string error;  // empty when valid
};
LegacyOperandShape legacy_operand_shape(const Shape& first, const Shape& second, const LegacyLayout& layout);

// The layout a legacy node's `broadcast` and `axis` attributes state.
LegacyLayout legacy_layout(const NodeInfo& node);

// Wraps the modern kernel of a two-input operator so that input 1 is seen with legacy_operand_shape().
std::unique_ptr<OpKernel> wrap_legacy_operand(std::unique_ptr<OpKernel> inner, LegacyLayout layout);

// The factory of an operator's opset 1-6 form: its modern factory's kernel, wrapped with the node's layout.
template <std::unique_ptr<OpKernel> (*kModern)(const NodeInfo&)>
std::unique_ptr<OpKernel> make_legacy(const NodeInfo& node) {
  return wrap_legacy_operand(kModern(node), legacy_layout(node));
}

}  // namespace onemodel::ops
