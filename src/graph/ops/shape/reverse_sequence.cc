// ReverseSequence (opset 10+): for every batch entry b (along `batch_axis`), the first sequence_lens[b]
// elements along `time_axis` are reversed and the rest copied. The two axes are 0 and 1 in either order;
// every length must lie in [0, time extent] (an error naming the node otherwise).
#include <cstring>
#include <string>

#include "graph/ops/run_fail.h"
#include "graph/ops/shape/factories.h"
#include "graph/ops/shape/op_inputs.h"

namespace onemodel::ops {
namespace {

class ReverseSequence final : public OpKernel {
 public:
  explicit ReverseSequence(bool batch_first) : batch_first_(batch_first) { supports_exact = true; }

  void infer(InferContext& ctx) const override {
    const Shape& in = ctx.input_shape(0);
    if (in.rank < 2) ctx.fail("the input " + in.str() + " needs rank 2 or more");
    const int64_t batch = in[batch_first_ ? 0 : 1];
    if (ctx.input_dtype(1) != DType::I64 || ctx.input_shape(1) != Shape{batch})
      ctx.fail("sequence_lens must be an int64 vector of the batch extent " + std::to_string(batch));
    ctx.set_output(0, ctx.input_dtype(0), in);
  }

  void run(const OpRun& run) const override {
    const TensorRef& in = run.inputs[0];
    const TensorRef& out = run.outputs[0];
    const int64_t* lengths = run.inputs[1].as<const int64_t>();
    const int64_t batch = in.shape[batch_first_ ? 0 : 1], time = in.shape[batch_first_ ? 1 : 0];
    const size_t width = dtype_size(in.dtype);
    const size_t slice = static_cast<size_t>(in.shape.count(2, in.shape.rank)) * width;
    // Byte offsets of one step along each axis.
    const size_t batch_step = batch_first_ ? static_cast<size_t>(time) * slice : slice;
    const size_t time_step = batch_first_ ? slice : static_cast<size_t>(batch) * slice;
    for (int64_t b = 0; b < batch; ++b) {
      const int64_t length = lengths[b];
      if (length < 0 || length > time) {
        run_fail(run, "sequence length " + std::to_string(length) + " is outside [0, " +
                          std::to_string(time) + "]");
      }
      for (int64_t t = 0; t < time; ++t) {
        const int64_t from = t < length ? length - 1 - t : t;
        if (slice > 0) {
          std::memcpy(out.data + static_cast<size_t>(b) * batch_step + static_cast<size_t>(t) * time_step,
                      in.data + static_cast<size_t>(b) * batch_step + static_cast<size_t>(from) * time_step,
                      slice);
        }
      }
    }
  }

 private:
  bool batch_first_;
};

}  // namespace

std::unique_ptr<OpKernel> make_reverse_sequence(const NodeInfo& node) {
  require_inputs(node, 2, 2);
  const int64_t batch_axis = node.get_int("batch_axis", 1), time_axis = node.get_int("time_axis", 0);
  if (!((batch_axis == 0 && time_axis == 1) || (batch_axis == 1 && time_axis == 0)))
    node.fail("batch_axis and time_axis must be 0 and 1 in either order");
  return std::make_unique<ReverseSequence>(batch_axis == 0);
}

}  // namespace onemodel::ops
