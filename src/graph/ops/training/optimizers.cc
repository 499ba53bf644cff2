// The training-domain optimizers (ai.onnx.preview.training): Adagrad, Momentum (standard and Nesterov) and
// Adam. Inputs are the learning rate R, the step count T, then n tensors each of parameters X, gradients G
// and the optimizer's states (Adagrad: H; Momentum: V; Adam: V, H); outputs are the n updated X, then the n
// updated tensors of each state. Every element follows the formulas of the ONNX operator text, written out
// below in their evaluation order, one rounding per operation and square root the only function, so fast
// and exact share one loop and give the same bits; a NaN result is canonical. Powers beta^T and alpha^T
// (Adam) are computed by squaring in a fixed order: bits of T from the lowest, result *= base for a set bit,
// then base *= base.
#include <cmath>
#include <string>

#include "graph/ops/linalg/canonical_nan.h"
#include "graph/ops/shape/op_inputs.h"
#include "graph/ops/training/factories.h"

namespace onemodel::ops {
namespace {

template <class T>
T power(T base, int64_t exponent) {
  T result = T(1);
  for (; exponent > 0; exponent >>= 1) {
    if (exponent & 1) result = result * base;
    base = base * base;
  }
  return result;
}

struct Adagrad {
  static constexpr int kStates = 1;  // H
  double decay, epsilon, norm;
  template <class T>
  struct Step {
    T r, epsilon, norm;
    // x_new = x - ((r' * g') / (sqrt(h') + epsilon)), g' = norm * x + g, h' = h + g' * g'
    T operator()(T x, T g, T* s) const {
      const T gr = norm * x + g;
      s[0] = s[0] + gr * gr;
      return x - r * gr / (std::sqrt(s[0]) + epsilon);
    }
  };
  // r' = R / (1 + T * decay_factor)
  template <class T>
  Step<T> step(T r, int64_t t) const {
    return {r / (T(1) + static_cast<T>(t) * static_cast<T>(decay)), static_cast<T>(epsilon),
            static_cast<T>(norm)};
  }
};

struct Momentum {
  static constexpr int kStates = 1;  // V
  double alpha, beta, norm;
  bool nesterov;
  template <class T>
  struct Step {
    T r, alpha, beta, norm;
    bool nesterov;
    // v' = alpha * v + beta' * g'; standard: x - r * v'; Nesterov: x - r * (g' + alpha * v')
    T operator()(T x, T g, T* s) const {
      const T gr = norm * x + g;
      s[0] = alpha * s[0] + beta * gr;
      return nesterov ? x - r * (gr + alpha * s[0]) : x - r * s[0];
    }
  };
  // beta' is 1 on the first step (T = 0).
  template <class T>
  Step<T> step(T r, int64_t t) const {
    return {r, static_cast<T>(alpha), t > 0 ? static_cast<T>(beta) : T(1), static_cast<T>(norm), nesterov};
  }
};

struct Adam {
  static constexpr int kStates = 2;  // V, H
  double alpha, beta, epsilon, norm, norm_post;
  template <class T>
  struct Step {
    T r, alpha, beta, epsilon, norm, norm_post;
    // v' = alpha * v + (1 - alpha) * g'; h' = beta * h + (1 - beta) * (g' * g');
    // x_new = (1 - norm_post) * (x - r' * (v' / (sqrt(h') + epsilon)))
    T operator()(T x, T g, T* s) const {
      const T gr = norm * x + g;
      s[0] = alpha * s[0] + (T(1) - alpha) * gr;
      s[1] = beta * s[1] + (T(1) - beta) * (gr * gr);
      return (T(1) - norm_post) * (x - r * (s[0] / (std::sqrt(s[1]) + epsilon)));
    }
  };
  // r' = R * sqrt(1 - beta^T) / (1 - alpha^T) after the first step, else R.
  template <class T>
  Step<T> step(T r, int64_t t) const {
    const T a = static_cast<T>(alpha), b = static_cast<T>(beta);
    const T adjusted = t > 0 ? r * std::sqrt(T(1) - power(b, t)) / (T(1) - power(a, t)) : r;
    return {adjusted, a, b, static_cast<T>(epsilon), static_cast<T>(norm), static_cast<T>(norm_post)};
  }
};

template <class Rule>
class Optimizer final : public OpKernel {
 public:
  Optimizer(Rule rule, size_t tensors) : rule_(rule), n_(tensors) { supports_exact = true; }

  void infer(InferContext& ctx) const override {
    const DType t = ctx.input_dtype(0);
    if (t != DType::F32 && t != DType::F64) ctx.fail("R must be float32 or float64");
    if (ctx.input_shape(0).count() != 1) ctx.fail("R must hold one value");
    if (ctx.input_dtype(1) != DType::I64 || ctx.input_shape(1).count() != 1) ctx.fail("T must be one int64");
    for (size_t i = 0; i < n_; ++i) {
      const Shape& x = ctx.input_shape(2 + i);
      for (size_t k = 0; k < kGroups; ++k) {
        const size_t at = 2 + k * n_ + i;
        if (ctx.input_dtype(at) != t || ctx.input_shape(at) != x)
          ctx.fail("input " + std::to_string(at) + " must match R's type and X" + std::to_string(i + 1) +
                   "'s shape " + x.str());
      }
      for (size_t k = 0; k < kGroups - 1; ++k) ctx.set_output(k * n_ + i, t, x);
    }
  }

  void run(const OpRun& run) const override {
    if (run.inputs[0].dtype == DType::F32) {
      update<float>(run);
    } else {
      update<double>(run);
    }
  }

 private:
  static constexpr size_t kGroups = 2 + Rule::kStates;  // X, G, states

  template <class T>
  void update(const OpRun& run) const {
    const auto step =
        rule_.template step<T>(run.inputs[0].as<const T>()[0], run.inputs[1].as<const int64_t>()[0]);
    for (size_t i = 0; i < n_; ++i) {
      const T* x = run.inputs[2 + i].as<const T>();
      const T* g = run.inputs[2 + n_ + i].as<const T>();
      const int64_t count = run.inputs[2 + i].count();
      for (int64_t e = 0; e < count; ++e) {
        T s[Rule::kStates];
        for (int k = 0; k < Rule::kStates; ++k)
          s[k] = run.inputs[2 + (2 + k) * n_ + i].template as<const T>()[e];
        const T x_new = step(x[e], g[e], s);
        run.outputs[i].as<T>()[e] = canonicalize(x_new);
        for (int k = 0; k < Rule::kStates; ++k)
          run.outputs[(1 + k) * n_ + i].template as<T>()[e] = canonicalize(s[k]);
      }
    }
  }

  Rule rule_;
  size_t n_;
};

// The number of optimized tensors, after checking the node's input and output counts.
size_t tensor_count(const NodeInfo& node, int states) {
  const size_t groups = 2 + static_cast<size_t>(states);
  const size_t in = node.num_inputs();
  if (in < 2 + groups || (in - 2) % groups != 0)
    node.fail("needs R, T and " + std::to_string(groups) + " inputs per optimized tensor");
  const size_t n = (in - 2) / groups;
  if (node.num_outputs() != n * (groups - 1))
    node.fail("needs " + std::to_string(n * (groups - 1)) + " outputs for " + std::to_string(n) + " tensors");
  for (size_t i = 0; i < in; ++i) {
    if (!node.has_input(i)) node.fail("input " + std::to_string(i) + " is missing");
  }
  return n;
}

}  // namespace

std::unique_ptr<OpKernel> make_adagrad(const NodeInfo& node) {
  const Adagrad rule{node.get_float("decay_factor", 0.0f), node.get_float("epsilon", 0.0f),
                     node.get_float("norm_coefficient", 0.0f)};
  return std::make_unique<Optimizer<Adagrad>>(rule, tensor_count(node, Adagrad::kStates));
}

std::unique_ptr<OpKernel> make_momentum(const NodeInfo& node) {
  const std::string mode = node.get_string("mode", "");
  if (mode != "standard" && mode != "nesterov") node.fail("mode '" + mode + "' is not standard or nesterov");
  if (node.find("alpha") == nullptr || node.find("beta") == nullptr ||
      node.find("norm_coefficient") == nullptr)
    node.fail("alpha, beta and norm_coefficient are required");
  const Momentum rule{node.get_float("alpha", 0.0f), node.get_float("beta", 0.0f),
                      node.get_float("norm_coefficient", 0.0f), mode == "nesterov"};
  return std::make_unique<Optimizer<Momentum>>(rule, tensor_count(node, Momentum::kStates));
}

std::unique_ptr<OpKernel> make_adam(const NodeInfo& node) {
  const Adam rule{node.get_float("alpha", 0.9f), node.get_float("beta", 0.999f),
                  node.get_float("epsilon", 0.0f), node.get_float("norm_coefficient", 0.0f),
                  node.get_float("norm_coefficient_post", 0.0f)};
  return std::make_unique<Optimizer<Adam>>(rule, tensor_count(node, Adam::kStates));
}

}  // namespace onemodel::ops
