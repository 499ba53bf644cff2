// Dropout at inference: the output is the input and the mask, when asked for, is all true (before opset 10
// the mask has the input's float type, so "true" is 1.0). Without a mask output the node is a view; with one
// it copies, since a view states only output 0.
#include <algorithm>
#include <cstring>
#include <string>

#include "core/half.h"
#include "graph/ops/shape/factories.h"
#include "graph/ops/shape/op_inputs.h"

namespace onemodel::ops {
namespace {

class Dropout final : public OpKernel {
 public:
  Dropout(bool with_mask, bool typed_mask) : typed_mask_(typed_mask) {
    supports_exact = true;
    view_of_input = !with_mask;
    in_place_input = with_mask ? 0 : -1;
  }

  void infer(InferContext& ctx) const override {
    // training_mode (input 2, opset 12+) is read whenever its value is known, at run time if need be.
    if (ctx.has_input(2)) {
      const TensorRef* training = ctx.input_value(2);
      if (training == nullptr) {
        ctx.require_run_time_values();
        return;
      }
      if (training->dtype != DType::Bool || training->count() != 1)
        ctx.fail("training_mode must be one bool");
      if (*training->as<const uint8_t>() != 0)
        ctx.node().unsupported("Dropout: training_mode is not supported");
    }
    ctx.set_output(0, ctx.input_dtype(0), ctx.input_shape(0));
    if (ctx.num_outputs() > 1) {
      const DType mask = typed_mask_ ? ctx.input_dtype(0) : DType::Bool;
      if (mask != DType::Bool && mask != DType::F32 && mask != DType::F64 && mask != DType::F16)
        ctx.node().unsupported("Dropout: element type " + std::string(dtype_name(mask)) +
                               " is not supported");
      ctx.set_output(1, mask, ctx.input_shape(0));
    }
  }

  void run(const OpRun& run) const override {
    // Without a mask the session builds the view and never calls this.
    const TensorRef& x = run.inputs[0];
    if (run.outputs[0].data != x.data && x.bytes() > 0) std::memcpy(run.outputs[0].data, x.data, x.bytes());
    if (run.outputs.size() > 1) fill_ones(run.outputs[1]);
  }

 private:
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
      default:  // bool
        std::fill_n(mask.as<uint8_t>(), n, uint8_t{1});
    }
  }

  bool typed_mask_;
};

}  // namespace

std::unique_ptr<OpKernel> make_dropout(const NodeInfo& node) {
  require_inputs(node, 1, node.opset() >= 12 ? 3 : 1);
  const bool with_mask = node.num_outputs() > 1 && node.node().outputs[1] >= 0;
  return std::make_unique<Dropout>(with_mask, node.opset() < 10);
}

}  // namespace onemodel::ops
