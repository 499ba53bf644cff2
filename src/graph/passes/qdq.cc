// qdq (does not preserve bits; skipped in exact mode; int8.md "Graph rewrites"): the quantize-dequantize form
// of a quantized Conv, Gemm or MatMul,
//
//   DequantizeLinear(x_q, sx, zx), DequantizeLinear(w_q, sw, zw)[, DequantizeLinear(b_q, sb)]
//     -> Conv, Gemm or MatMul -> QuantizeLinear(., sy, zy)
//
// becomes QLinearConv(x_q, sx, zx, w_q, sw, zw, sy, zy[, b_q]) or QLinearMatMul with the same inputs (B as
// k x n, the bias as the ninth, int32 input), so the product runs on the integers. Conditions: x_q and w_q
// 8-bit; w_q, every scale and every zero point constant; float32 scales; sx, zx, sy and zy single values; sw
// per tensor or per output channel (axis 0 of the Conv weight, the column axis of the Gemm weight) with one
// weight zero point for all channels; the bias int32 with a zero zero point and the scale sx * sw (float32
// product, compared bit for bit) of each channel; the product read only by the QuantizeLinear. Gemm also
// needs alpha 1, beta 1 and no transA (a transB weight is transposed once here); Conv 1-D or 2-D. MatMul (our
// addition to int8.md's table) is a Gemm without bias: a 2-D constant weight whose columns are the channels,
// any activation rank (QLinearMatMul batches A as MatMul does). The fused node takes the QuantizeLinear's
// place. Anything else is left as written.
#include <cstring>

#include "graph/passes/graph_pass.h"
#include "graph/passes/table_kernel.h"

namespace onemodel::passes {
namespace {

bool is_op(const CompiledNode& n, std::string_view type, size_t min_inputs, size_t max_inputs) {
  return is_onnx_op(n, type) && n.inputs.size() >= min_inputs && n.inputs.size() <= max_inputs &&
         !n.outputs.empty() && n.outputs[0] >= 0;
}

enum class Product { Conv, Gemm, MatMul };

bool is_8bit(DType t) {
  return t == DType::U8 || t == DType::I8;
}

// A DequantizeLinear's operands: the quantized value, the scale, the zero point (-1 when omitted).
struct Dequantized {
  int32_t q = -1, scale = -1, zero_point = -1;
  const CompiledNode* node = nullptr;
};

class Rewriter {
 public:
  explicit Rewriter(PassGraph& g) : g_(g), producer_(g.producers()) {}

  void rewrite(size_t quantize_index) {
    const CompiledNode& quantize = g_.nodes()[quantize_index];
    if (!is_op(quantize, "QuantizeLinear", 2, 3) || quantize.info->find("output_dtype") != nullptr) return;
    const int32_t product_index = producer(quantize.inputs[0]);
    if (product_index < 0 || g_.only_reader(quantize.inputs[0]) != static_cast<int32_t>(quantize_index))
      return;
    const CompiledNode& product = g_.nodes()[static_cast<size_t>(product_index)];
    Product kind;
    if (is_op(product, "Conv", 2, 3))
      kind = Product::Conv;
    else if (is_op(product, "Gemm", 2, 3) && plain_gemm(product))
      kind = Product::Gemm;
    else if (is_op(product, "MatMul", 2, 2))
      kind = Product::MatMul;
    else
      return;
    const bool conv = kind == Product::Conv;

    // Output: scalar float32 scale and 8-bit zero point (uint8 when omitted).
    const int32_t sy = quantize.inputs[1];
    const int32_t zy = quantize.inputs.size() > 2 ? quantize.inputs[2] : -1;
    if (!is_scalar_scale(sy) || (zy >= 0 && !is_scalar_zero_point(zy))) return;

    // Activation: per tensor, its type told by the zero point or the declared element type.
    const Dequantized x = dequantized(product.inputs[0]);
    if (x.node == nullptr || !is_scalar_scale(x.scale) ||
        (x.zero_point >= 0 && !is_scalar_zero_point(x.zero_point)))
      return;
    const DType x_type = x.zero_point >= 0
                             ? g_.constant(x.zero_point)->dtype
                             : static_cast<DType>(g_.values()[static_cast<size_t>(x.q)].elem_type);
    if (!is_8bit(x_type)) return;

    // Weight: constant 8-bit, per tensor or per output channel, one zero point.
    const Dequantized w = dequantized(product.inputs[1]);
    if (w.node == nullptr) return;
    const TensorRef* wq = g_.constant(w.q);
    const TensorRef* sw = g_.constant(w.scale);
    if (wq == nullptr || sw == nullptr || !is_8bit(wq->dtype) || sw->dtype != DType::F32 ||
        sw->shape.rank > 1)
      return;
    const bool trans_b = kind == Product::Gemm && product.info->get_int("transB", 0) != 0;
    if (conv ? (wq->shape.rank != 3 && wq->shape.rank != 4) : wq->shape.rank != 2) return;
    const int channel_axis = conv || trans_b ? 0 : 1;
    const int64_t channels = wq->shape[channel_axis];
    if (sw->count() != 1) {
      const int axis = normalize_axis(w.node->info->get_int("axis", 1), wq->shape.rank);
      if (axis != channel_axis || sw->count() != channels) return;
    }
    if (w.zero_point >= 0 && !is_uniform_zero_point(w.zero_point, wq->dtype, sw->count())) return;

    // Bias: int32 per channel, zero point zero, scale sx * sw.
    int32_t bias = -1;
    if (product.inputs.size() > 2 && product.inputs[2] >= 0) {
      bias = bias_values(product.inputs[2], x.scale, *sw, channels);
      if (bias < 0) return;
    }

    // New constants may move the value table, so nothing read through g_.constant() is used past here.
    const DType w_type = wq->dtype;
    const int32_t w_operand = trans_b ? transposed(w.q) : w.q;
    std::vector<int32_t> inputs = {x.q,
                                   x.scale,
                                   x.zero_point >= 0 ? x.zero_point : zero_scalar(x_type),
                                   w_operand,
                                   w.scale,
                                   w.zero_point >= 0 ? w.zero_point : zero_scalar(w_type),
                                   sy,
                                   zy >= 0 ? zy : zero_scalar(DType::U8)};
    if (bias >= 0) inputs.push_back(bias);
    TableNode described{conv ? "QLinearConv" : "QLinearMatMul", "", quantize.ir->opset, {}, {}};
    described.present.assign(inputs.size(), true);
    if (conv) described.attributes = product.ir->attributes;
    CompiledNode& site = g_.nodes()[quantize_index];
    auto kernel = make_table_kernel(*site.info, std::move(described));
    if (kernel == nullptr) return;  // the operator is not registered in this build
    site.kernel = std::move(kernel);
    site.inputs = std::move(inputs);
  }

 private:
  // Constants added by earlier rewrites come after the table and have no producer.
  int32_t producer(int32_t v) const {
    return v >= 0 && static_cast<size_t>(v) < producer_.size() ? producer_[static_cast<size_t>(v)] : -1;
  }

  // Gemm computing A * B (+ C): alpha 1, beta 1, A not transposed.
  static bool plain_gemm(const CompiledNode& gemm) {
    return gemm.info->get_float("alpha", 1.0f) == 1.0f && gemm.info->get_float("beta", 1.0f) == 1.0f &&
           gemm.info->get_int("transA", 0) == 0;
  }

  // The DequantizeLinear producing v (per-tensor or per-axis, not blocked), with constant scale and zero
  // point; node null otherwise.
  Dequantized dequantized(int32_t v) const {
    Dequantized d;
    const int32_t p = producer(v);
    if (p < 0) return d;
    const CompiledNode& n = g_.nodes()[static_cast<size_t>(p)];
    if (!is_op(n, "DequantizeLinear", 2, 3) || n.info->get_int("block_size", 0) != 0) return d;
    d.q = n.inputs[0];
    d.scale = n.inputs[1];
    d.zero_point = n.inputs.size() > 2 ? n.inputs[2] : -1;
    if (d.q < 0 || g_.constant(d.scale) == nullptr ||
        (d.zero_point >= 0 && g_.constant(d.zero_point) == nullptr))
      return d;
    d.node = &n;
    return d;
  }

  bool is_scalar_scale(int32_t v) const {
    const TensorRef* t = g_.constant(v);
    return t != nullptr && t->dtype == DType::F32 && t->count() == 1 && t->shape.rank <= 1;
  }

  bool is_scalar_zero_point(int32_t v) const {
    const TensorRef* t = g_.constant(v);
    return t != nullptr && is_8bit(t->dtype) && t->count() == 1 && t->shape.rank <= 1;
  }

  // A constant zero point of the weight's type, one value or one per channel, all equal.
  bool is_uniform_zero_point(int32_t v, DType type, int64_t count) const {
    const TensorRef* t = g_.constant(v);
    if (t == nullptr || t->dtype != type || t->count() != count || t->shape.rank > 1) return false;
    for (int64_t i = 1; i < count; ++i) {
      if (t->as<const uint8_t>()[i] != t->as<const uint8_t>()[0]) return false;
    }
    return true;
  }

  // The int32 bias values behind a DequantizeLinear whose scale is sx * sw per channel and zero point zero;
  // -1 when the bias is anything else.
  int32_t bias_values(int32_t v, int32_t sx, const TensorRef& sw, int64_t channels) const {
    const Dequantized b = dequantized(v);
    if (b.node == nullptr) return -1;
    const TensorRef* bq = g_.constant(b.q);
    const TensorRef* sb = g_.constant(b.scale);
    if (bq == nullptr || bq->dtype != DType::I32 || bq->shape.rank != 1 || bq->count() != channels ||
        sb->dtype != DType::F32 || sb->shape.rank > 1 || (sb->count() != 1 && sb->count() != channels))
      return -1;
    if (sb->count() != 1 && normalize_axis(b.node->info->get_int("axis", 1), 1) != 0) return -1;
    if (b.zero_point >= 0) {
      const TensorRef* zb = g_.constant(b.zero_point);
      for (int64_t i = 0; i < zb->count(); ++i) {
        if (zb->dtype != DType::I32 || zb->as<const int32_t>()[i] != 0) return -1;
      }
    }
    const float x_scale = g_.constant(sx)->as<const float>()[0];
    for (int64_t c = 0; c < channels; ++c) {
      const float w_scale = sw.as<const float>()[sw.count() == 1 ? 0 : c];
      const float b_scale = sb->as<const float>()[sb->count() == 1 ? 0 : c];
      const float want = x_scale * w_scale;
      if (__builtin_bit_cast(uint32_t, b_scale) != __builtin_bit_cast(uint32_t, want)) return -1;
    }
    return b.q;
  }

  // A rank-0 zero of the type, as a new constant.
  int32_t zero_scalar(DType type) {
    return g_.add_constant("qdq_zero_point", ConstTensor::allocate(type, Shape{}));
  }

  // The n x k weight w as a new k x n constant.
  int32_t transposed(int32_t w) {
    const TensorRef& t = *g_.constant(w);
    const int64_t n = t.shape[0], k = t.shape[1];
    ConstTensor out = ConstTensor::allocate(t.dtype, Shape{k, n});
    const auto* src = t.as<const uint8_t>();
    auto* dst = out.ref.as<uint8_t>();
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < k; ++j) dst[j * n + i] = src[i * k + j];
    }
    return g_.add_constant(g_.values()[static_cast<size_t>(w)].name + "_transposed", std::move(out));
  }

  PassGraph& g_;
  std::vector<int32_t> producer_;
};

}  // namespace

void qdq(PassGraph& g) {
  Rewriter rewriter(g);
  // A rewrite changes only the QuantizeLinear's node and adds constants (values, never nodes), so node
  // indices and the producers found up front stay valid.
  for (size_t n = 0; n < g.nodes().size(); ++n) rewriter.rewrite(n);
}

}  // namespace onemodel::passes
