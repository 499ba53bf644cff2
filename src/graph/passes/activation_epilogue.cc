#include "graph/passes/activation_epilogue.h"

#include <array>

#include "graph/ops/elementwise/factories.h"

namespace onemodel::passes {
namespace {

constexpr std::string_view kOneInput[] = {"Relu", "HardSigmoid", "HardSwish", "LeakyRelu", "Sigmoid", "Tanh"};
constexpr size_t kMaxInputs = 3;  // Clip: x, min, max

// Runs the activation on a block of the fused node's output, in place, with its bounds (Clip) read from the
// fused node's inputs from `first_extra` on.
class ActivationEpilogue final : public ops::FusedEpilogue {
 public:
  ActivationEpilogue(std::unique_ptr<OpKernel> kernel, std::unique_ptr<NodeInfo> info, size_t first_extra,
                     size_t extra_inputs)
      : kernel_(std::move(kernel)),
        info_(std::move(info)),
        first_extra_(first_extra),
        extra_inputs_(extra_inputs) {}

  void apply(const OpRun& fused, float* y, int64_t count, ThreadContext threads) const override {
    std::array<TensorRef, kMaxInputs> inputs{};
    std::array<TensorRef, 1> outputs{};
    outputs[0] = TensorRef{DType::F32, Shape{count}, reinterpret_cast<std::byte*>(y)};
    inputs[0] = outputs[0];
    for (size_t i = 0; i < extra_inputs_; ++i) inputs[1 + i] = fused.inputs[first_extra_ + i];
    OpRun run;
    run.inputs = std::span<const TensorRef>(inputs.data(), 1 + extra_inputs_);
    run.outputs = outputs;
    run.exact = fused.exact;
    run.kernels = fused.kernels;
    run.scratch = nullptr;  // called from the product's worker threads; these kernels take no scratch
    run.threads = threads;
    run.node = info_.get();
    kernel_->run(run);
  }

 private:
  std::unique_ptr<OpKernel> kernel_;
  std::unique_ptr<NodeInfo> info_;  // the activation node's, for its error messages
  size_t first_extra_, extra_inputs_;
};

// Clip's bounds must be absent or single float32 constants: the fused node never re-checks them.
bool bounds_are_constant(const PassGraph& g, const CompiledNode& clip) {
  for (size_t i = 1; i < clip.inputs.size(); ++i) {
    if (clip.inputs[i] < 0) continue;
    const TensorRef* t = g.constant(clip.inputs[i]);
    if (!t || t->dtype != DType::F32 || t->count() != 1) return false;
  }
  return clip.inputs.size() <= kMaxInputs;
}

}  // namespace

bool is_epilogue_activation(const PassGraph& g, const CompiledNode& n) {
  if (!(n.ir->domain.empty() || n.ir->domain == "ai.onnx") || n.inputs.empty() || n.outputs.size() != 1)
    return false;
  if (n.ir->op_type == "Clip") return bounds_are_constant(g, n);
  if (n.inputs.size() != 1) return false;
  if (ops::is_gelu_kernel(*n.kernel)) return true;  // also a Gelu the gelu pass made from a Mul chain
  for (std::string_view a : kOneInput) {
    if (n.ir->op_type == a) return true;
  }
  return false;
}

std::unique_ptr<const ops::FusedEpilogue> take_activation(CompiledNode& activation, size_t first_extra) {
  return std::make_unique<ActivationEpilogue>(std::move(activation.kernel), std::move(activation.info),
                                              first_extra, activation.inputs.size() - 1);
}

}  // namespace onemodel::passes
