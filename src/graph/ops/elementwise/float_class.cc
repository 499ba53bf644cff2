// IsNaN and IsInf: a bool per element of a float tensor (16-bit floats are decoded first, which keeps NaN and
// infinity). IsInf's detect_negative and detect_positive choose which infinities count. Exact by nature.
#include <cstdint>
#include <string>

#include "graph/ops/elementwise/common.h"
#include "graph/ops/elementwise/element_types.h"
#include "graph/ops/elementwise/factories.h"

namespace onemodel::ops {
namespace {

struct NanTest {
  template <class V>
  bool operator()(V v) const {
    return v != v;
  }
};

struct InfTest {
  bool negative, positive;
  template <class V>
  bool operator()(V v) const {
    const V inf = static_cast<V>(__builtin_inf());
    return (positive && v == inf) || (negative && v == -inf);
  }
};

template <class Test>
class FloatClass final : public OpKernel {
 public:
  explicit FloatClass(Test test) : test_(test) { supports_exact = true; }

  void infer(InferContext& ctx) const override {
    const DType type = ctx.input_dtype(0);
    if (!is_float_dtype(type)) unsupported_type(ctx, type);
    ctx.set_output(0, DType::Bool, ctx.input_shape(0));
  }

  void run(const OpRun& run) const override {
    visit_dtype(run.inputs[0].dtype, [&](auto e) {
      using E = decltype(e);
      if constexpr (E::is_float) {
        const auto* x = run.inputs[0].as<const typename E::Stored>();
        auto* y = run.outputs[0].as<uint8_t>();
        for_each_chunk(run.threads, run.outputs[0].count(), 0.5, [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) y[i] = test_(E::load(x[i])) ? 1 : 0;
        });
      }
    });
  }

 private:
  Test test_;
};

}  // namespace

std::unique_ptr<OpKernel> make_is_nan(const NodeInfo& node) {
  require_inputs(node, 1);
  return std::make_unique<FloatClass<NanTest>>(NanTest{});
}

std::unique_ptr<OpKernel> make_is_inf(const NodeInfo& node) {
  require_inputs(node, 1);
  return std::make_unique<FloatClass<InfTest>>(
      InfTest{node.get_int("detect_negative", 1) != 0, node.get_int("detect_positive", 1) != 0});
}

}  // namespace onemodel::ops
