// Gemm: Y = alpha * op(A) * op(B) + beta * C with op = optional transpose and C broadcast to (M, N). The
// product is the plain GEMM; the epilogue is separate multiplies and an add, (alpha * prod) + (beta * C), in
// both modes, so the modes differ only where the product does. A multiply by exactly 1 is skipped (it cannot
// change a non-NaN value). Before opset 7, C is broadcast only when the node sets broadcast = 1, and must
// otherwise be (M, N).
#include <string>

#include "graph/ops/linalg/factories.h"
#include "graph/ops/linalg/product.h"
#include "graph/ops/shape/op_inputs.h"

namespace onemodel::ops {
namespace {

class Gemm final : public OpKernel {
 public:
  Gemm(bool trans_a, bool trans_b, float alpha, float beta, bool c_full)
      : trans_a_(trans_a), trans_b_(trans_b), c_full_(c_full), alpha_(alpha), beta_(beta) {
    supports_exact = true;
  }

  void infer(InferContext& ctx) const override {
    const DType t = ctx.input_dtype(0);
    if (ctx.input_dtype(1) != t || (ctx.has_input(2) && ctx.input_dtype(2) != t)) {
      ctx.fail("operands have different element types");
    }
    if (t != DType::F32 && t != DType::F64) {
      ctx.node().unsupported("Gemm: element type " + std::string(dtype_name(t)) + " is not supported");
    }
    const Shape& a = ctx.input_shape(0);
    const Shape& b = ctx.input_shape(1);
    if (a.rank != 2 || b.rank != 2) ctx.fail("operands must be matrices, not " + a.str() + " and " + b.str());
    const Dims d = dims(a, b);
    if ((trans_b_ ? b[1] : b[0]) != d.k)
      ctx.fail("operands " + a.str() + " and " + b.str() + " do not multiply");
    if (ctx.has_input(2)) {
      const Shape& c = ctx.input_shape(2);
      const int64_t want[2] = {d.m, d.n};
      if (c_full_ && c != Shape{d.m, d.n})
        ctx.fail("C of shape " + c.str() + " is not [" + std::to_string(d.m) + "," + std::to_string(d.n) +
                 "] and the node does not set broadcast = 1");
      bool ok = c.rank <= 2;
      for (int i = 0; ok && i < c.rank; ++i) {
        const int64_t extent = c[i], target = want[2 - c.rank + i];
        ok = extent == 1 || extent == target;
      }
      if (!ok)
        ctx.fail("C of shape " + c.str() + " does not broadcast to [" + std::to_string(d.m) + "," +
                 std::to_string(d.n) + "]");
    }
    ctx.set_output(0, t, Shape{d.m, d.n});
  }

  std::shared_ptr<const void> prepare(PrepareContext& ctx) const override {
    const TensorRef* b = ctx.input_value(1);
    if (b == nullptr || b->dtype != DType::F32) return nullptr;
    const Dims d = dims(ctx.input_shape(0), b->shape);
    const Strides s = strides(d);
    return pack_weight(ctx, b->as<const float>(), s.b_row, s.b_col, d.k, d.n);
  }

  void run(const OpRun& run) const override {
    if (run.inputs[0].dtype == DType::F32) {
      compute<float>(run);
    } else {
      compute<double>(run);
    }
  }

 private:
  struct Dims {
    int64_t m, k, n;
  };
  struct Strides {
    int64_t a_row, a_col, b_row, b_col;
  };

  Dims dims(const Shape& a, const Shape& b) const {
    return {trans_a_ ? a[1] : a[0], trans_a_ ? a[0] : a[1], trans_b_ ? b[0] : b[1]};
  }
  // Element (i, p) of op(A) is at a[i*a_row + p*a_col], element (p, j) of op(B) at b[p*b_row + j*b_col].
  Strides strides(const Dims& d) const {
    return {trans_a_ ? 1 : d.k, trans_a_ ? d.m : 1, trans_b_ ? 1 : d.n, trans_b_ ? d.k : 1};
  }

  template <class T>
  void compute(const OpRun& run) const {
    const TensorRef& a = run.inputs[0];
    const TensorRef& b = run.inputs[1];
    T* y = run.outputs[0].as<T>();
    const Dims d = dims(a.shape, b.shape);
    if (d.m == 0 || d.n == 0) return;
    const Strides s = strides(d);
    if constexpr (std::is_same_v<T, float>) {
      GemmArgs args;
      args.m = d.m;
      args.n = d.n;
      args.k = d.k;
      args.a = a.as<const float>();
      args.a_row = s.a_row;
      args.a_col = s.a_col;
      args.b = b.as<const float>();
      args.b_row = s.b_row;
      args.b_col = s.b_col;
      args.c = y;
      args.ldc = d.n;
      const auto* packed = static_cast<const PackedWeight*>(run.state);
      run_gemm(run, args, packed, gemm_scratch(run, args, packed));
    } else {
      product_loop(a.as<const T>(), s.a_row, s.a_col, b.as<const T>(), s.b_row, s.b_col, y, d.m, d.n, d.k,
                   run.exact);
    }
    if (alpha_ != 1.0f || run.has_input(2)) epilogue(run, y, d);
  }

  template <class T>
  void epilogue(const OpRun& run, T* y, const Dims& d) const {
    const T alpha = static_cast<T>(alpha_), beta = static_cast<T>(beta_);
    const bool scale = alpha_ != 1.0f;
    const T* c = run.has_input(2) ? run.inputs[2].as<const T>() : nullptr;
    // C's strides over the output's rows and columns: 0 along a broadcast axis.
    int64_t c_row = 0, c_col = 0;
    if (c != nullptr) {
      const Shape& cs = run.inputs[2].shape;
      const int64_t rows = cs.rank == 2 ? cs[0] : 1, cols = cs.rank >= 1 ? cs[cs.rank - 1] : 1;
      c_row = rows == 1 ? 0 : cols;
      c_col = cols == 1 ? 0 : 1;
    }
    for (int64_t i = 0; i < d.m; ++i) {
      T* row = y + i * d.n;
      for (int64_t j = 0; j < d.n; ++j) {
        T v = scale ? alpha * row[j] : row[j];
        if (c != nullptr) {
          const T bias = c[i * c_row + j * c_col];
          v = v + (beta_ != 1.0f ? beta * bias : bias);
        }
        row[j] = run.exact ? canonicalize(v) : v;
      }
    }
  }

  bool trans_a_, trans_b_, c_full_;
  float alpha_, beta_;
};

}  // namespace

std::unique_ptr<OpKernel> make_gemm(const NodeInfo& node) {
  require_inputs(node, 2, 3);
  const bool c_full = node.opset() < 7 && node.get_int("broadcast", 0) == 0;
  return std::make_unique<Gemm>(node.get_int("transA", 0) != 0, node.get_int("transB", 0) != 0,
                                node.get_float("alpha", 1.0f), node.get_float("beta", 1.0f), c_full);
}

}  // namespace onemodel::ops
