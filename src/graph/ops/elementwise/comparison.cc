// Equal, Less, Greater, LessOrEqual, GreaterOrEqual: numpy broadcasting, a bool output. The comparisons are
// IEEE's, so NaN compares false with everything (itself included) and -0 equals +0; 16-bit floats compare
// their decoded values. Equal also compares strings (opset 19 allows them), byte for byte.
#include <functional>

#include "core/string_elem.h"
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

using NumericEqual = SameTypeBinary<CompareOp<std::equal_to<>, true>>;

// Element i: a[i * step_a] == b[i * step_b] over String elements (the steps are 0 or 1).
void equal_strings(const std::byte* a, int64_t step_a, const std::byte* b, int64_t step_b, std::byte* y,
                   int64_t n) {
  const auto* sa = reinterpret_cast<const StringElem*>(a);
  const auto* sb = reinterpret_cast<const StringElem*>(b);
  auto* out = reinterpret_cast<bool*>(y);
  for (int64_t i = 0; i < n; ++i) out[i] = sa[i * step_a].view() == sb[i * step_b].view();
}

class Equal final : public NumericEqual {
 public:
  void infer(InferContext& ctx) const override {
    if (common_input_type(ctx, 2) != DType::String) return NumericEqual::infer(ctx);
    ctx.set_output(0, DType::Bool, broadcast_output_shape(ctx, 2, DType::Bool));
  }

  void run(const OpRun& run) const override {
    if (run.inputs[0].dtype != DType::String) return NumericEqual::run(run);
    run_binary_broadcast(run, BinaryBlocks{equal_strings, equal_strings, equal_strings}, 4.0);
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_equal(const NodeInfo& node) {
  require_inputs(node, 2);
  return std::make_unique<Equal>();
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
