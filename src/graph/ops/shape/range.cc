// Range: start, start + delta, ... below limit. The count is taken in double precision from the element-type
// values (ONNX Runtime's reading); element i is start + i * delta computed in the element type (float32 for
// the 16-bit floats, rounded to nearest even on store).
#include <cmath>
#include <string>

#include "graph/ops/elementwise/element_types.h"
#include "graph/ops/shape/factories.h"
#include "graph/ops/shape/op_inputs.h"

namespace onemodel::ops {
namespace {

bool is_range_type(DType t) {
  return t == DType::F32 || t == DType::F64 || t == DType::I16 || t == DType::I32 || t == DType::I64 ||
         t == DType::F16 || t == DType::BF16;
}

template <class E>
typename E::Value load_scalar(const TensorRef& t) {
  return E::load(*t.as<const typename E::Stored>());
}

// start + i * delta in the computing type; integers wrap (computed unsigned) rather than overflow.
template <class E>
void fill_range(const OpRun& run) {
  using V = typename E::Value;
  const V start = load_scalar<E>(run.inputs[0]), delta = load_scalar<E>(run.inputs[2]);
  const TensorRef& out = run.outputs[0];
  auto* y = out.as<typename E::Stored>();
  for (int64_t i = 0; i < out.count(); ++i) {
    if constexpr (std::is_integral_v<V>) {
      using W = Wrap<V>;
      y[i] = E::store(static_cast<V>(static_cast<W>(start) + static_cast<W>(i) * static_cast<W>(delta)));
    } else {
      y[i] = E::store(start + static_cast<V>(i) * delta);
    }
  }
}

class Range final : public OpKernel {
 public:
  Range() { supports_exact = true; }

  void infer(InferContext& ctx) const override {
    const DType dtype = ctx.input_dtype(0);
    for (size_t i = 0; i < 3; ++i) {
      if (ctx.input_dtype(i) != dtype) ctx.fail("start, limit and delta must have one element type");
      if (ctx.input_shape(i).count() != 1 || ctx.input_shape(i).rank > 1) ctx.fail("inputs must be scalars");
    }
    const TensorRef* start = ctx.input_value(0);
    const TensorRef* limit = ctx.input_value(1);
    const TensorRef* delta = ctx.input_value(2);
    if (!is_range_type(dtype)) {
      ctx.node().unsupported("Range: element type " + std::string(dtype_name(dtype)) + " is not supported");
    }
    if (start == nullptr || limit == nullptr || delta == nullptr) {
      ctx.require_run_time_values();
      return;
    }
    const double count = visit_dtype(dtype, [&](auto elem) {
      using E = decltype(elem);
      auto value = [](const TensorRef& t) { return static_cast<double>(load_scalar<E>(t)); };
      const double d = value(*delta);
      if (d == 0) ctx.fail("delta is 0");
      return std::ceil((value(*limit) - value(*start)) / d);
    });
    if (!std::isfinite(count)) ctx.fail("the element count is not finite");
    if (count > static_cast<double>(kMaxElements)) ctx.fail("the element count is too large");
    const int64_t n = count > 0 ? static_cast<int64_t>(count) : 0;
    check_dims(ctx, std::span<const int64_t>(&n, 1), dtype_size(dtype), "Range output");
    ctx.set_output(0, dtype, Shape{n});
  }

  void run(const OpRun& run) const override {
    visit_dtype(run.inputs[0].dtype, [&](auto elem) {
      using E = decltype(elem);
      if constexpr (E::dtype != DType::Bool) fill_range<E>(run);
    });
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_range(const NodeInfo& node) {
  require_inputs(node, 3, 3);
  return std::make_unique<Range>();
}

}  // namespace onemodel::ops
