#include "graph/ops/recurrent/activation.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

namespace onemodel::ops {
namespace {

using Kind = Activation::Kind;

struct Known {
  const char* name;
  Kind kind;
  bool takes_alpha, takes_beta;
  float alpha, beta;  // defaults
};

constexpr Known kKnown[] = {
    {"sigmoid", Kind::Sigmoid, false, false, 0.0f, 0.0f},
    {"tanh", Kind::Tanh, false, false, 0.0f, 0.0f},
    {"relu", Kind::Relu, false, false, 0.0f, 0.0f},
    {"affine", Kind::Affine, true, true, 1.0f, 0.0f},
    {"leakyrelu", Kind::LeakyRelu, true, false, 0.01f, 0.0f},
    {"thresholdedrelu", Kind::ThresholdedRelu, true, false, 1.0f, 0.0f},
    {"scaledtanh", Kind::ScaledTanh, true, true, 1.0f, 0.0f},
    {"hardsigmoid", Kind::HardSigmoid, true, true, 0.2f, 0.5f},
    {"elu", Kind::Elu, true, false, 1.0f, 0.0f},
    {"softsign", Kind::Softsign, false, false, 0.0f, 0.0f},
    {"softplus", Kind::Softplus, false, false, 0.0f, 0.0f},
};

const Known* find_known(std::string name) {
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const Known& k : kKnown) {
    if (name == k.name) return &k;
  }
  return nullptr;
}

}  // namespace

void Activation::apply(const KernelTable& kernels, bool exact, float* x, float* temp, size_t n) const {
  switch (kind) {
    case Kind::Sigmoid:
      return kernels.unary(UnaryFn::Sigmoid, exact, x, x, n);
    case Kind::Tanh:
      return kernels.unary(UnaryFn::Tanh, exact, x, x, n);
    case Kind::Relu:
      for (size_t i = 0; i < n; ++i) x[i] = x[i] < 0.0f ? 0.0f : x[i];  // a NaN passes
      return;
    case Kind::Affine:
      for (size_t i = 0; i < n; ++i) x[i] = alpha * x[i] + beta;
      return;
    case Kind::LeakyRelu:
      for (size_t i = 0; i < n; ++i) x[i] = x[i] < 0.0f ? alpha * x[i] : x[i];
      return;
    case Kind::ThresholdedRelu:
      for (size_t i = 0; i < n; ++i) x[i] = x[i] > alpha ? x[i] : 0.0f;
      return;
    case Kind::ScaledTanh:
      for (size_t i = 0; i < n; ++i) x[i] = beta * x[i];
      kernels.unary(UnaryFn::Tanh, exact, x, x, n);
      for (size_t i = 0; i < n; ++i) x[i] = alpha * x[i];
      return;
    case Kind::HardSigmoid:
      for (size_t i = 0; i < n; ++i) {
        const float v = alpha * x[i] + beta;
        x[i] = v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v);
      }
      return;
    case Kind::Elu:
      kernels.unary(UnaryFn::Exp, exact, x, temp, n);
      for (size_t i = 0; i < n; ++i) x[i] = x[i] >= 0.0f ? x[i] : alpha * (temp[i] - 1.0f);
      return;
    case Kind::Softsign:
      for (size_t i = 0; i < n; ++i) x[i] = x[i] / (1.0f + std::abs(x[i]));
      return;
    case Kind::Softplus:
      kernels.unary(UnaryFn::Exp, exact, x, temp, n);
      for (size_t i = 0; i < n; ++i) temp[i] = 1.0f + temp[i];
      kernels.unary(UnaryFn::Log, exact, temp, temp, n);
      for (size_t i = 0; i < n; ++i) x[i] = x[i] > 20.0f ? x[i] : temp[i];
      return;
  }
}

std::vector<Activation> parse_activations(const NodeInfo& node, size_t per_direction, size_t directions,
                                          std::initializer_list<Activation::Kind> defaults) {
  const std::vector<float> alphas = node.get_floats("activation_alpha");
  const std::vector<float> betas = node.get_floats("activation_beta");
  std::vector<std::string> names;
  if (const ir::Attribute* a = node.find("activations")) names = a->strings;
  std::vector<Activation> out;
  if (names.empty()) {
    for (size_t d = 0; d < directions; ++d) {
      for (Kind k : defaults) out.push_back({k, 0.0f, 0.0f});
    }
    return out;
  }
  if (names.size() != per_direction && names.size() != per_direction * directions) {
    node.fail("activations lists " + std::to_string(names.size()) + " functions, expected " +
              std::to_string(per_direction * directions));
  }
  // Alpha and beta values are taken in list order by the functions that use them, each with its own cursor.
  size_t next_alpha = 0, next_beta = 0;
  for (const std::string& name : names) {
    const Known* k = find_known(name);
    if (k == nullptr) node.unsupported("activation '" + name + "' is not supported");
    Activation act{k->kind, k->alpha, k->beta};
    if (k->takes_alpha && next_alpha < alphas.size()) act.alpha = alphas[next_alpha++];
    if (k->takes_beta && next_beta < betas.size()) act.beta = betas[next_beta++];
    out.push_back(act);
  }
  // One set serves both directions.
  if (out.size() < per_direction * directions) {
    const std::vector<Activation> shared = out;
    out.insert(out.end(), shared.begin(), shared.end());
  }
  return out;
}

}  // namespace onemodel::ops
