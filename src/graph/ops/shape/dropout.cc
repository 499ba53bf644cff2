// Dropout. At inference (the default) the output is the input and the mask, when asked for, is all true
// (before opset 10 the mask has the input's float type, so "true" is 1.0); `ratio` is ignored. Without a mask
// output or a training_mode input the node is a view; otherwise it copies, since a view states only output 0.
//
// With training_mode true (opset 12+, read at run time when it is not a constant) element i is kept when
// u_i >= ratio, u_i uniform in [0, 1) from 53 bits of the node's counter stream (random/counter_random.h,
// keyed by the `seed` attribute), and a kept element is scaled: y = x * (1 / (1 - ratio)) in the element's
// computing type, a dropped one is 0. Ratio 0 therefore keeps everything unchanged; ratio 1 drops everything.
// The draws are this library's own, so training with a ratio above 0 matches no other engine.
#include <algorithm>
#include <cstring>
#include <string>

#include "core/half.h"
#include "graph/ops/elementwise/common.h"
#include "graph/ops/elementwise/element_types.h"
#include "graph/ops/random/counter_random.h"
#include "graph/ops/shape/factories.h"
#include "graph/ops/shape/op_inputs.h"

namespace onemodel::ops {
namespace {

// The value of a one-element float tensor (ratio), widened to double.
double scalar_value(const TensorRef& t) {
  return visit_dtype(t.dtype, [&](auto e) -> double {
    using E = decltype(e);
    if constexpr (E::is_float)
      return static_cast<double>(E::load(*t.as<const typename E::Stored>()));
    else
      return 0.0;  // refused by infer
  });
}

class Dropout final : public OpKernel {
 public:
  Dropout(bool view, bool typed_mask, uint64_t key) : typed_mask_(typed_mask), random_(key) {
    supports_exact = true;
    view_of_input = view;
    in_place_input = view ? -1 : 0;
  }

  void infer(InferContext& ctx) const override {
    // training_mode (input 2, opset 12+) and then ratio (input 1) are read whenever their values are known,
    // at run time if need be.
    if (ctx.has_input(2)) {
      const TensorRef* training = ctx.input_value(2);
      if (training == nullptr) {
        ctx.require_run_time_values();
        return;
      }
      if (training->dtype != DType::Bool || training->count() != 1)
        ctx.fail("training_mode must be one bool");
      if (*training->as<const uint8_t>() != 0 && ctx.has_input(1)) {
        const TensorRef* ratio = ctx.input_value(1);
        if (ratio == nullptr) {
          ctx.require_run_time_values();
          return;
        }
        if (!is_float_dtype(ratio->dtype) || ratio->count() != 1) ctx.fail("ratio must be one float value");
        const double r = scalar_value(*ratio);
        if (!(r >= 0.0 && r <= 1.0)) ctx.fail("ratio " + std::to_string(r) + " is outside [0, 1]");
      }
    }
    const DType type = ctx.input_dtype(0);
    ctx.set_output(0, type, ctx.input_shape(0));
    if (ctx.has_input(2) && !is_float_dtype(type))
      ctx.node().unsupported("Dropout: element type " + std::string(dtype_name(type)) + " is not supported");
    if (ctx.num_outputs() > 1) {
      const DType mask = typed_mask_ ? type : DType::Bool;
      if (mask != DType::Bool && !is_float_dtype(mask))
        ctx.node().unsupported("Dropout: element type " + std::string(dtype_name(mask)) +
                               " is not supported");
      ctx.set_output(1, mask, ctx.input_shape(0));
    }
  }

  void run(const OpRun& run) const override {
    // A view never gets here.
    const bool training = run.has_input(2) && *run.inputs[2].as<const uint8_t>() != 0;
    const double ratio = training ? (run.has_input(1) ? scalar_value(run.inputs[1]) : 0.5) : 0.0;
    if (ratio == 0.0) {
      const TensorRef& x = run.inputs[0];
      if (run.outputs[0].data != x.data && x.bytes() > 0) std::memcpy(run.outputs[0].data, x.data, x.bytes());
      if (run.outputs.size() > 1) fill_ones(run.outputs[1]);
      return;
    }
    visit_dtype(run.inputs[0].dtype, [&](auto e) {
      using E = decltype(e);
      if constexpr (E::is_float) drop<E>(run, ratio);
    });
  }

 private:
  template <class E>
  void drop(const OpRun& run, double ratio) const {
    using V = typename E::Value;
    const auto* x = run.inputs[0].as<const typename E::Stored>();
    auto* y = run.outputs[0].as<typename E::Stored>();
    uint8_t* mask = run.outputs.size() > 1 ? run.outputs[1].as<uint8_t>() : nullptr;  // bool from opset 12
    const V scale = V(1) / (V(1) - static_cast<V>(ratio));
    for_each_chunk(run.threads, run.outputs[0].count(), 2.0, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        const bool keep = CounterRandom::unit_double(random_.bits(static_cast<uint64_t>(i))) >= ratio;
        V v = keep ? E::load(x[i]) * scale : V(0);
        if (run.exact) v = canonicalize(v);
        y[i] = E::store(v);
        if (mask != nullptr) mask[i] = keep ? 1 : 0;
      }
    });
  }

  static void fill_ones(const TensorRef& mask) {
    const size_t n = static_cast<size_t>(mask.count());
    switch (mask.dtype) {
      case DType::F32:
        std::fill_n(mask.as<float>(), n, 1.0f);
        break;
      case DType::F64:
        std::fill_n(mask.as<double>(), n, 1.0);
        break;
      case DType::F16:
        std::fill_n(mask.as<uint16_t>(), n, float_to_half(1.0f));
        break;
      case DType::BF16:
        std::fill_n(mask.as<uint16_t>(), n, float_to_bfloat16(1.0f));
        break;
      default:  // bool
        std::fill_n(mask.as<uint8_t>(), n, uint8_t{1});
    }
  }

  bool typed_mask_;
  CounterRandom random_;
};

}  // namespace

std::unique_ptr<OpKernel> make_dropout(const NodeInfo& node) {
  require_inputs(node, 1, node.opset() >= 12 ? 3 : 1);
  const bool with_mask = node.num_outputs() > 1 && node.node().outputs[1] >= 0;
  const bool view = !with_mask && !node.has_input(2);
  return std::make_unique<Dropout>(view, node.opset() < 10, random_stream_key(node));
}

}  // namespace onemodel::ops
