// conv-activation (preserves bits): a Conv whose only reader is an activation (activation_epilogue.h)
// becomes one Conv node whose epilogue runs the activation's own kernel on each finished block of output
// rows. The bias is the same one rounded addition per element, and the activation kernels compute each
// element on its own, so cutting the output into rows changes no bit in either mode.
#include "graph/ops/conv/factories.h"
#include "graph/passes/activation_epilogue.h"
#include "graph/passes/graph_pass.h"

namespace onemodel::passes {
namespace {

constexpr size_t kConvInputs = 3;  // X, W, B: the activation's extra inputs follow them in the fused node

}  // namespace

void conv_activation(PassGraph& g) {
  for (size_t n = 0; n < g.nodes().size(); ++n) {
    CompiledNode& conv = g.nodes()[n];
    if (!is_onnx_op(conv, "Conv") || conv.outputs.size() != 1) continue;
    if (conv.inputs.size() < 2 || conv.inputs.size() > kConvInputs) continue;
    const int32_t reader = g.only_reader(conv.outputs[0]);
    if (reader < 0) continue;
    CompiledNode& act = g.nodes()[static_cast<size_t>(reader)];
    if (act.inputs[0] != conv.outputs[0] || !is_epilogue_activation(g, act)) continue;

    conv.kernel = ops::make_conv_with_epilogue(*conv.info, take_activation(act, kConvInputs));
    conv.inputs.resize(kConvInputs, -1);
    conv.inputs.insert(conv.inputs.end(), act.inputs.begin() + 1, act.inputs.end());
    conv.outputs = act.outputs;
    g.nodes().erase(g.nodes().begin() + reader);
  }
}

}  // namespace onemodel::passes
