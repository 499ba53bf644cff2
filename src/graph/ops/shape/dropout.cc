// Dropout at inference: the output is the input and the mask, when asked for, is all true. Without a mask
// output the node is a view; with one it copies, since a view states only output 0.
#include <cstring>
#include <string>

#include "graph/ops/shape/factories.h"
#include "graph/ops/shape/op_inputs.h"

namespace onemodel::ops {
namespace {

class Dropout final : public OpKernel {
 public:
  explicit Dropout(bool with_mask) {
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
    if (ctx.num_outputs() > 1) ctx.set_output(1, DType::Bool, ctx.input_shape(0));
  }

  void run(const OpRun& run) const override {
    // Without a mask the session builds the view and never calls this.
    const TensorRef& x = run.inputs[0];
    if (run.outputs[0].data != x.data && x.bytes() > 0) std::memcpy(run.outputs[0].data, x.data, x.bytes());
    if (run.outputs.size() > 1 && run.outputs[1].bytes() > 0)
      std::memset(run.outputs[1].data, 1, run.outputs[1].bytes());
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_dropout(const NodeInfo& node) {
  require_inputs(node, 1, node.opset() >= 12 ? 3 : 1);
  // Before opset 10 the mask has the data's type; we serve the boolean mask only.
  const bool with_mask = node.num_outputs() > 1 && node.node().outputs[1] >= 0;
  if (with_mask && node.opset() < 10)
    node.unsupported("Dropout: a mask output before opset 10 is not supported");
  return std::make_unique<Dropout>(with_mask);
}

}  // namespace onemodel::ops
