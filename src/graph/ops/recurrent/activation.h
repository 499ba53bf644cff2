// The activation functions of RNN, GRU and LSTM (ops-recurrent.md "Activations"): parsed once per node from
// the `activations`, `activation_alpha` and `activation_beta` attributes, applied in place to gate rows.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <vector>

#include "graph/op.h"

namespace onemodel::ops {

struct Activation {
  enum class Kind {
    Sigmoid,
    Tanh,
    Relu,
    Affine,
    LeakyRelu,
    ThresholdedRelu,
    ScaledTanh,
    HardSigmoid,
    Elu,
    Softsign,
    Softplus
  };
  Kind kind = Kind::Tanh;
  float alpha = 0.0f, beta = 0.0f;

  // x[i] = f(x[i]) for i < n. `temp` holds n floats of scratch (Elu and Softplus keep x beside exp(x)).
  void apply(const KernelTable& kernels, bool exact, float* x, float* temp, size_t n) const;
};

// The activations of every direction, `per_direction` entries each (LSTM 3, GRU 2, RNN 1): the attribute's
// list when given (one set shared by both directions of a bidirectional layer, or one set per direction),
// else `defaults`. Fails naming the node on an unknown name or a list of the wrong length.
std::vector<Activation> parse_activations(const NodeInfo& node, size_t per_direction, size_t directions,
                                          std::initializer_list<Activation::Kind> defaults);

}  // namespace onemodel::ops
