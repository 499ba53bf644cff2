// Elu, Celu, Selu and Softplus on f32, built from the session's exp and log (exact-transcendentals.md in
// exact mode, the fast flavours otherwise) and single IEEE operations in the order written here, so exact
// mode gives the same bits on every path and thread count.
//
// Each operator is three steps over blocks of elements: t = exp(arg(x)), then l = log(log_arg(t)), then
// y = finish(x, t, l). exp and log run through the kernel table's vector loops; the steps around them are
// flat loops of selects that the compiler vectorises. The log step gives exp's companions their accuracy near
// 0: expm1 and log1p are recovered from exp and log with Kahan's correction instead of losing digits to `e^x
// - 1` and `log(1 + t)`.
#include <algorithm>
#include <cmath>

#include "graph/ops/elementwise/common.h"
#include "graph/ops/elementwise/element_types.h"
#include "graph/ops/elementwise/factories.h"

namespace onemodel::ops {
namespace {

// Elements per exp/log call: two stack buffers of this many floats.
constexpr int64_t kBlock = 256;

// e^a - 1 from u = exp(a) and log(u): (u - 1) * (a / log u) cancels most of the rounding error of u. u == 1
// means |a| is below half an ulp of 1, where e^a - 1 is a itself; u - 1 == -1 means e^a vanished next to 1.
inline float expm1_from(float a, float u, float log_u) {
  const float u_minus_1 = u - 1.0f;
  const float corrected = u_minus_1 * (a / log_u);
  return select_value(u == 1.0f, a, select_value(u_minus_1 == -1.0f, -1.0f, corrected));
}

// log(1 + t) from v = 1 + t and log(v), the same correction: log(v) * (t / (v - 1)).
inline float log1p_from(float t, float v, float log_v) {
  return select_value(v == 1.0f, t, log_v * (t / (v - 1.0f)));
}

// x < 0 ? alpha * (e^x - 1) : x. The exponent is clamped to 0 for the other branch, so it never overflows.
struct EluOp {
  float alpha;
  float exp_arg(float x) const { return select_value(x < 0.0f, x, 0.0f); }
  float log_arg(float t) const { return t; }
  float finish(float x, float t, float l) const {
    return select_value(x < 0.0f, alpha * expm1_from(exp_arg(x), t, l), x);
  }
};

// max(0, x) + min(0, alpha * (e^(x/alpha) - 1)), the ONNX definition as written (any non-zero alpha). Where
// e^(x/alpha) overflows the second term is NaN and min(0, .) takes 0; a NaN x passes through.
struct CeluOp {
  float alpha;
  float exp_arg(float x) const { return x / alpha; }
  float log_arg(float t) const { return t; }
  float finish(float x, float t, float l) const {
    const float negative = alpha * expm1_from(exp_arg(x), t, l);
    const float y = select_value(x > 0.0f, x, 0.0f) + select_value(negative < 0.0f, negative, 0.0f);
    return select_value(x != x, x, y);
  }
};

// x <= 0 ? gamma * (alpha * (e^x - 1)) : gamma * x.
struct SeluOp {
  float alpha, gamma;
  float exp_arg(float x) const { return select_value(x <= 0.0f, x, 0.0f); }
  float log_arg(float t) const { return t; }
  float finish(float x, float t, float l) const {
    return select_value(x <= 0.0f, gamma * (alpha * expm1_from(exp_arg(x), t, l)), gamma * x);
  }
};

// log(1 + e^x) = max(x, 0) + log(1 + e^-|x|): nothing overflows, and the small tail keeps its digits. A NaN x
// makes t and the sum NaN.
struct SoftplusOp {
  float exp_arg(float x) const { return -std::fabs(x); }
  float log_arg(float t) const { return 1.0f + t; }
  float finish(float x, float t, float l) const {
    return select_value(x > 0.0f, x, 0.0f) + log1p_from(t, 1.0f + t, l);
  }
};

template <class Op>
class ExpLogActivation final : public OpKernel {
 public:
  explicit ExpLogActivation(Op op) : op_(op) {
    supports_exact = true;
    in_place_input = 0;
  }

  void infer(InferContext& ctx) const override { infer_f32_like_input(ctx); }

  void run(const OpRun& run) const override {
    const float* x = run.inputs[0].as<const float>();
    float* y = run.outputs[0].as<float>();
    for_each_chunk(run.threads, run.outputs[0].count(), 6.0, [&](int64_t begin, int64_t end) {
      if (run.exact)
        apply<true>(*run.kernels, x + begin, y + begin, end - begin);
      else
        apply<false>(*run.kernels, x + begin, y + begin, end - begin);
    });
  }

 private:
  // y may be x: element i of x is read before element i of y is written.
  template <bool kExact>
  void apply(const KernelTable& kernels, const float* x, float* y, int64_t n) const {
    alignas(64) float t[kBlock];
    alignas(64) float l[kBlock];
    for (int64_t start = 0; start < n; start += kBlock) {
      const int64_t m = std::min(kBlock, n - start);
      const float* xb = x + start;
      float* yb = y + start;
      for (int64_t i = 0; i < m; ++i) t[i] = op_.exp_arg(xb[i]);
      kernels.unary(UnaryFn::Exp, kExact, t, t, static_cast<size_t>(m));
      for (int64_t i = 0; i < m; ++i) l[i] = op_.log_arg(t[i]);
      kernels.unary(UnaryFn::Log, kExact, l, l, static_cast<size_t>(m));
      for (int64_t i = 0; i < m; ++i) {
        const float v = op_.finish(xb[i], t[i], l[i]);
        yb[i] = kExact ? canonicalize(v) : v;
      }
    }
  }

  Op op_;
};

template <class Op>
std::unique_ptr<OpKernel> make_exp_log_activation(const NodeInfo& node, Op op) {
  require_inputs(node, 1);
  return std::make_unique<ExpLogActivation<Op>>(op);
}

}  // namespace

std::unique_ptr<OpKernel> make_elu(const NodeInfo& node) {
  return make_exp_log_activation(node, EluOp{node.get_float("alpha", 1.0f)});
}

std::unique_ptr<OpKernel> make_celu(const NodeInfo& node) {
  const float alpha = node.get_float("alpha", 1.0f);
  if (alpha == 0.0f || alpha != alpha) node.fail("attribute 'alpha' must be a non-zero number");
  return make_exp_log_activation(node, CeluOp{alpha});
}

// The defaults are the float32 values ONNX lists (the SELU paper's constants).
std::unique_ptr<OpKernel> make_selu(const NodeInfo& node) {
  return make_exp_log_activation(node, SeluOp{node.get_float("alpha", 1.67326319217681884765625f),
                                              node.get_float("gamma", 1.05070102214813232421875f)});
}

std::unique_ptr<OpKernel> make_softplus(const NodeInfo& node) {
  return make_exp_log_activation(node, SoftplusOp{});
}

}  // namespace onemodel::ops
