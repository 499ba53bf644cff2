// Each operator family lists its OpDef rows; src/graph/op_table.cc joins them into the one static table.
// Adding an operator is one row in its family's list, and a smaller build can leave a family out.
#pragma once

#include <span>

#include "graph/op.h"

namespace onemodel::ops {

inline constexpr int kLatestOpset = 1000;  // open upper end of an opset range

std::span<const OpDef> elementwise_defs();  // src/graph/ops/elementwise/
std::span<const OpDef> shape_defs();        // src/graph/ops/shape/
std::span<const OpDef> linalg_defs();       // src/graph/ops/linalg/  (MatMul, Gemm, Det, Einsum)
std::span<const OpDef> reduce_defs();       // src/graph/ops/reduce/  (ReduceMax, ...)
std::span<const OpDef> norm_defs();         // src/graph/ops/norm/    (Softmax, ...)
std::span<const OpDef> conv_defs();         // src/graph/ops/conv/    (Conv, ConvTranspose)
std::span<const OpDef> pool_defs();         // src/graph/ops/pool/    (MaxPool, AveragePool, Global*)
std::span<const OpDef> vision_defs();       // src/graph/ops/vision/  (BatchNormalization, Resize, PRelu, ...)
std::span<const OpDef> recurrent_defs();    // src/graph/ops/recurrent/ (RNN, GRU, LSTM)
std::span<const OpDef> control_defs();      // src/graph/ops/control/ (If, Loop, Scan, SequenceMap)
std::span<const OpDef> sequence_defs();     // src/graph/ops/sequence/ (Sequence*, Optional*)
std::span<const OpDef> quant_defs();        // src/graph/ops/quant/ (QuantizeLinear, DequantizeLinear, ...)
std::span<const OpDef> int8_defs();         // src/graph/ops/int8/ (MatMulInteger, ConvInteger, QLinear*, ...)
std::span<const OpDef> loss_defs();         // src/graph/ops/loss/ (NegativeLogLikelihoodLoss, SoftmaxCE)
std::span<const OpDef> signal_defs();       // src/graph/ops/signal/ (DFT, STFT, windows, MelWeightMatrix)
std::span<const OpDef> text_defs();         // src/graph/ops/text/ (TfIdfVectorizer, StringNormalizer)
std::span<const OpDef> training_defs();     // src/graph/ops/training/ (Adagrad, Momentum, Adam)
std::span<const OpDef> random_defs();       // src/graph/ops/random/ (Bernoulli, RandomUniform, ...)

}  // namespace onemodel::ops
