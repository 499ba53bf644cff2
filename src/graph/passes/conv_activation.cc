// conv-activation (preserves bits): a Conv whose only reader is an activation (Relu, Clip with constant
// bounds, HardSigmoid, HardSwish, LeakyRelu, Sigmoid, Tanh) becomes one Conv node whose epilogue runs the
// activation's own kernel on each finished block of output rows. The bias is the same one rounded addition
// per element, and the activation kernels compute each element on its own, so cutting the output into rows
// changes no bit in either mode.
#include <array>

#include "graph/ops/conv/conv_attrs.h"
#include "graph/ops/conv/factories.h"
#include "graph/passes/graph_pass.h"

namespace onemodel::passes {
namespace {

constexpr std::string_view kActivations[] = {"Relu",      "Clip",    "HardSigmoid", "HardSwish",
                                             "LeakyRelu", "Sigmoid", "Tanh"};
constexpr size_t kConvInputs = 3;  // X, W, B: the activation's extra inputs follow them in the fused node

bool plain_domain(const CompiledNode& n) {
  return n.ir->domain.empty() || n.ir->domain == "ai.onnx";
}

// Runs the activation node on a block of the convolution's output, in place, with its bounds (Clip) read from
// the fused node's inputs after X, W and B.
class ActivationEpilogue final : public ops::ConvEpilogue {
 public:
  ActivationEpilogue(std::unique_ptr<OpKernel> kernel, std::unique_ptr<NodeInfo> info, size_t extra_inputs)
      : kernel_(std::move(kernel)), info_(std::move(info)), extra_inputs_(extra_inputs) {}

  void apply(const OpRun& conv, float* y, int64_t count, ThreadContext threads) const override {
    std::array<TensorRef, 3> inputs{};
    std::array<TensorRef, 1> outputs{};
    outputs[0] = TensorRef{DType::F32, Shape{count}, reinterpret_cast<std::byte*>(y)};
    inputs[0] = outputs[0];
    for (size_t i = 0; i < extra_inputs_; ++i) inputs[1 + i] = conv.inputs[kConvInputs + i];
    OpRun run;
    run.inputs = std::span<const TensorRef>(inputs.data(), 1 + extra_inputs_);
    run.outputs = outputs;
    run.exact = conv.exact;
    run.kernels = conv.kernels;
    run.scratch = nullptr;  // called from the product's worker threads; these kernels take no scratch
    run.threads = threads;
    run.node = info_.get();
    kernel_->run(run);
  }

 private:
  std::unique_ptr<OpKernel> kernel_;
  std::unique_ptr<NodeInfo> info_;  // the activation node's, for its error messages
  size_t extra_inputs_;
};

// Clip's bounds must be absent or single float32 constants: the fused node never re-checks them.
bool bounds_are_constant(const PassGraph& g, const CompiledNode& clip) {
  for (size_t i = 1; i < clip.inputs.size(); ++i) {
    if (clip.inputs[i] < 0) continue;
    const TensorRef* t = g.constant(clip.inputs[i]);
    if (!t || t->dtype != DType::F32 || t->count() != 1) return false;
  }
  return clip.inputs.size() <= 3;
}

bool is_activation(const PassGraph& g, const CompiledNode& n) {
  if (!plain_domain(n) || n.inputs.empty() || n.outputs.size() != 1) return false;
  for (std::string_view a : kActivations) {
    if (n.ir->op_type != a) continue;
    return a == "Clip" ? bounds_are_constant(g, n) : n.inputs.size() == 1;
  }
  return false;
}

}  // namespace

void conv_activation(PassGraph& g) {
  for (size_t n = 0; n < g.nodes().size(); ++n) {
    CompiledNode& conv = g.nodes()[n];
    if (conv.ir->op_type != "Conv" || !plain_domain(conv) || conv.outputs.size() != 1) continue;
    if (conv.inputs.size() < 2 || conv.inputs.size() > kConvInputs) continue;
    const int32_t reader = g.only_reader(conv.outputs[0]);
    if (reader < 0) continue;
    CompiledNode& act = g.nodes()[static_cast<size_t>(reader)];
    if (act.inputs[0] != conv.outputs[0] || !is_activation(g, act)) continue;

    const size_t extra = act.inputs.size() - 1;
    auto epilogue = std::make_unique<ActivationEpilogue>(std::move(act.kernel), std::move(act.info), extra);
    conv.kernel = ops::make_conv_with_epilogue(*conv.info, std::move(epilogue));
    conv.inputs.resize(kConvInputs, -1);
    conv.inputs.insert(conv.inputs.end(), act.inputs.begin() + 1, act.inputs.end());
    conv.outputs = act.outputs;
    g.nodes().erase(g.nodes().begin() + reader);
  }
}

}  // namespace onemodel::passes
