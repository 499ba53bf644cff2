// SoftmaxCrossEntropyLoss (opset 12+), float32 (float16 and bfloat16 through the widening adapter): the
// log-softmax of the scores [N, C, d1, ...] over the class axis 1 (log_softmax_row.h), then the loss of nll.h
// on it; the optional second output is that log-softmax. Fast mode only: ops-coverage.md lists the operator
// as not exact, so exact mode refuses it (the `_expanded` forms run through exact LogSoftmax and
// NegativeLogLikelihoodLoss nodes instead).
#include <string>

#include "graph/ops/loss/factories.h"
#include "graph/ops/loss/nll.h"
#include "graph/ops/norm/log_softmax_row.h"
#include "graph/ops/shape/op_inputs.h"
#include "graph/ops/shape/transpose.h"

namespace onemodel::ops {
namespace {

class SoftmaxCrossEntropyLoss final : public OpKernel {
 public:
  explicit SoftmaxCrossEntropyLoss(NllOptions options) : options_(options) {}

  void infer(InferContext& ctx) const override {
    const DType dtype = ctx.input_dtype(0);
    if (dtype != DType::F32) {
      ctx.node().unsupported("SoftmaxCrossEntropyLoss: element type " + std::string(dtype_name(dtype)) +
                             " is not supported");
    }
    infer_nll(ctx, options_, dtype);
    if (ctx.num_outputs() > 1) ctx.set_output(1, dtype, ctx.input_shape(0));
  }

  void run(const OpRun& run) const override {
    const TensorRef& scores = run.inputs[0];
    const size_t count = static_cast<size_t>(scores.count());
    TensorRef log_prob = scores;
    log_prob.data = run.outputs.size() > 1 && run.outputs[1].data != nullptr
                        ? run.outputs[1].data
                        : reinterpret_cast<std::byte*>(run.scratch->allocate_array<float>(count));
    if (count > 0) log_softmax(run, scores, log_prob.as<float>());
    run_nll(run, options_, log_prob);
  }

 private:
  // log_prob = the log-softmax of scores over axis 1. Rows are contiguous when nothing follows the class
  // axis; otherwise [N, C, D] moves to [N, D, C] in scratch and back.
  static void log_softmax(const OpRun& run, const TensorRef& scores, float* y) {
    const float* x = scores.as<const float>();
    const int64_t batches = scores.shape[0], classes = scores.shape[1];
    const int64_t positions = scores.shape.count(2, scores.shape.rank), rows = batches * positions;
    if (positions == 1) {
      for (int64_t r = 0; r < rows; ++r) log_softmax_row(run, x + r * classes, y + r * classes, classes);
      return;
    }
    float* moved = run.scratch->allocate_array<float>(static_cast<size_t>(rows * classes));
    const int64_t to_rows[] = {batches, classes, positions}, from_rows[] = {batches, positions, classes};
    const int swap[] = {0, 2, 1};
    transpose_copy(reinterpret_cast<const std::byte*>(x), reinterpret_cast<std::byte*>(moved), sizeof(float),
                   to_rows, swap);
    for (int64_t r = 0; r < rows; ++r)
      log_softmax_row(run, moved + r * classes, moved + r * classes, classes);
    transpose_copy(reinterpret_cast<const std::byte*>(moved), reinterpret_cast<std::byte*>(y), sizeof(float),
                   from_rows, swap);
  }

  NllOptions options_;
};

}  // namespace

std::unique_ptr<OpKernel> make_softmax_cross_entropy_loss(const NodeInfo& node) {
  require_inputs(node, 2, 3);
  if (node.num_outputs() < 1 || node.num_outputs() > 2) node.fail("needs one or two outputs");
  return std::make_unique<SoftmaxCrossEntropyLoss>(nll_options(node));
}

}  // namespace onemodel::ops
