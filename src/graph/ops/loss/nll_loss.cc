// NegativeLogLikelihoodLoss (opset 12+), float and double (float16 and bfloat16 through the widening
// adapter): the loss of nll.h on the input as given. Exact in both modes.
#include <string>

#include "graph/ops/loss/factories.h"
#include "graph/ops/loss/nll.h"
#include "graph/ops/shape/op_inputs.h"

namespace onemodel::ops {
namespace {

class NllLoss final : public OpKernel {
 public:
  explicit NllLoss(NllOptions options) : options_(options) { supports_exact = true; }

  void infer(InferContext& ctx) const override {
    const DType dtype = ctx.input_dtype(0);
    if (dtype != DType::F32 && dtype != DType::F64) {
      ctx.node().unsupported("NegativeLogLikelihoodLoss: element type " + std::string(dtype_name(dtype)) +
                             " is not supported");
    }
    infer_nll(ctx, options_, dtype);
  }

  void run(const OpRun& run) const override { run_nll(run, options_, run.inputs[0]); }

 private:
  NllOptions options_;
};

}  // namespace

std::unique_ptr<OpKernel> make_nll_loss(const NodeInfo& node) {
  require_inputs(node, 2, 3);
  if (node.num_outputs() != 1) node.fail("needs one output");
  return std::make_unique<NllLoss>(nll_options(node));
}

}  // namespace onemodel::ops
