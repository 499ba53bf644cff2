// qdq-lookup (preserves bits; graph-passes.md): the chain a QDQ network leaves between two quantized
// products,
//
//   DequantizeLinear(x_q, sx, zx) -> Relu or Clip -> QuantizeLinear(., sy, zy),
//
// maps one 8-bit value to one 8-bit value, so it becomes a ByteLookup of x_q through a 256-entry table. The
// table is made by running the three nodes' own kernels on every possible byte, so the lookup returns the
// chain's bits by construction. Conditions: x_q 8-bit (its type told by zx or the declared element type);
// every scale and zero point a constant single value, the scales float32; no blocked (de)quantization and no
// output_dtype; Clip's bounds absent or single float32 constants; each intermediate read only by the next
// node of the chain. Only Relu and Clip qualify because their kernels round nothing, so the table made on the
// scalar kernel path at session creation equals the chain on any path the session runs; the quantization
// steps give the same bits on every path (int8.md).
#include <array>
#include <vector>

#include "graph/ops/quant/byte_lookup.h"
#include "graph/passes/activation_epilogue.h"
#include "graph/passes/graph_pass.h"

namespace onemodel::passes {
namespace {

bool is_8bit(DType t) {
  return t == DType::U8 || t == DType::I8;
}

// The scale (input 1) and optional zero point (input 2) of a (de)quantization node: single constant values,
// the scale float32, the zero point 8-bit; per-tensor, not blocked.
bool per_tensor_constants(const PassGraph& g, const CompiledNode& n) {
  if (n.inputs.size() < 2 || n.inputs.size() > 3 || n.inputs[0] < 0 || n.outputs.size() != 1 ||
      n.outputs[0] < 0 || n.info->get_int("block_size", 0) != 0)
    return false;
  const TensorRef* scale = g.constant(n.inputs[1]);
  if (scale == nullptr || scale->dtype != DType::F32 || scale->count() != 1) return false;
  if (n.inputs.size() < 3 || n.inputs[2] < 0) return true;
  const TensorRef* zero_point = g.constant(n.inputs[2]);
  return zero_point != nullptr && is_8bit(zero_point->dtype) && zero_point->count() == 1;
}

// The type of a DequantizeLinear's input: its zero point's, else the declared one (false when neither is
// known to be 8-bit).
bool dequantized_type(const PassGraph& g, const CompiledNode& dequantize, DType& type) {
  if (dequantize.inputs.size() > 2 && dequantize.inputs[2] >= 0) {
    type = g.constant(dequantize.inputs[2])->dtype;
    return true;
  }
  type = static_cast<DType>(g.values()[static_cast<size_t>(dequantize.inputs[0])].elem_type);
  return is_8bit(type);
}

// Runs n's own kernel on `first` (its input 0), the node's constant inputs after it, into `output`.
void run_kernel(const PassGraph& g, const CompiledNode& n, const TensorRef& first, const TensorRef& output) {
  std::vector<TensorRef> inputs(n.inputs.size());
  inputs[0] = first;
  for (size_t i = 1; i < n.inputs.size(); ++i) {
    if (const TensorRef* c = g.constant(n.inputs[i])) inputs[i] = *c;
  }
  TensorRef out = output;
  OpRun run;
  run.inputs = inputs;
  run.outputs = std::span<TensorRef>(&out, 1);
  run.exact = g.exact;
  run.kernels = kernel_table(KernelPath::Scalar);
  run.node = n.info.get();
  n.kernel->run(run);
}

class Rewriter {
 public:
  explicit Rewriter(PassGraph& g) : g_(g), producer_(g.producers()) {}

  void rewrite(size_t quantize_index) {
    CompiledNode& quantize = g_.nodes()[quantize_index];
    if (!is_onnx_op(quantize, "QuantizeLinear") || quantize.info->find("output_dtype") != nullptr ||
        !per_tensor_constants(g_, quantize))
      return;
    const CompiledNode* activation = only_producer(quantize.inputs[0], quantize_index);
    if (activation == nullptr || !(is_onnx_op(*activation, "Relu") || is_onnx_op(*activation, "Clip")) ||
        !is_epilogue_activation(g_, *activation))
      return;
    const CompiledNode* dequantize = only_producer(activation->inputs[0], index_of(activation));
    if (dequantize == nullptr || !is_onnx_op(*dequantize, "DequantizeLinear") ||
        !per_tensor_constants(g_, *dequantize))
      return;
    DType x_type;
    if (!dequantized_type(g_, *dequantize, x_type)) return;
    // QuantizeLinear's output type: its zero point's, uint8 when that is omitted.
    const bool y_zero_point = quantize.inputs.size() > 2 && quantize.inputs[2] >= 0;
    const DType y_type = y_zero_point ? g_.constant(quantize.inputs[2])->dtype : DType::U8;

    // Every byte through the chain: the bit patterns 0..255 read as x's type.
    std::array<uint8_t, 256> bytes{}, table{};
    for (size_t b = 0; b < bytes.size(); ++b) bytes[b] = static_cast<uint8_t>(b);
    std::array<float, 256> dequantized{}, activated{};
    const Shape shape{static_cast<int64_t>(bytes.size())};
    const auto ref = [&](DType type, void* data) {
      return TensorRef{type, shape, static_cast<std::byte*>(data)};
    };
    run_kernel(g_, *dequantize, ref(x_type, bytes.data()), ref(DType::F32, dequantized.data()));
    run_kernel(g_, *activation, ref(DType::F32, dequantized.data()), ref(DType::F32, activated.data()));
    run_kernel(g_, quantize, ref(DType::F32, activated.data()), ref(y_type, table.data()));

    quantize.kernel = ops::make_byte_lookup(x_type, y_type, table);
    quantize.inputs = {dequantize->inputs[0]};
  }

 private:
  // The node computing v when its only reader is node `reader`; null otherwise.
  const CompiledNode* only_producer(int32_t v, size_t reader) const {
    if (v < 0 || static_cast<size_t>(v) >= producer_.size() || producer_[static_cast<size_t>(v)] < 0 ||
        g_.only_reader(v) != static_cast<int32_t>(reader))
      return nullptr;
    return &g_.nodes()[static_cast<size_t>(producer_[static_cast<size_t>(v)])];
  }

  size_t index_of(const CompiledNode* n) const { return static_cast<size_t>(n - g_.nodes().data()); }

  PassGraph& g_;
  std::vector<int32_t> producer_;
};

}  // namespace

void qdq_lookup(PassGraph& g) {
  Rewriter rewriter(g);
  // A rewrite changes only the QuantizeLinear's kernel and inputs, so node indices and producers stay valid.
  for (size_t n = 0; n < g.nodes().size(); ++n) rewriter.rewrite(n);
}

}  // namespace onemodel::passes
