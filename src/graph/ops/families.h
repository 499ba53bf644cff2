// Each operator family lists its OpDef rows; src/graph/op_table.cc joins them into the one static table.
// Adding an operator is one row in its family's list, and a smaller build can leave a family out.
#pragma once

#include <span>

#include "graph/op.h"

namespace onemodel::ops {

inline constexpr int kLatestOpset = 1000;  // open upper end of an opset range

std::span<const OpDef> elementwise_defs();  // src/graph/ops/elementwise/
std::span<const OpDef> shape_defs();        // src/graph/ops/shape/
std::span<const OpDef> linalg_defs();       // src/graph/ops/linalg/  (MatMul, Gemm)
std::span<const OpDef> reduce_defs();       // src/graph/ops/reduce/  (ReduceMax, ...)
std::span<const OpDef> norm_defs();         // src/graph/ops/norm/    (Softmax, ...)
std::span<const OpDef> conv_defs();         // src/graph/ops/conv/    (Conv, ConvTranspose)
std::span<const OpDef> pool_defs();         // src/graph/ops/pool/    (MaxPool, AveragePool, Global*)
std::span<const OpDef> vision_defs();       // src/graph/ops/vision/  (BatchNormalization, Resize, PRelu, ...)
std::span<const OpDef> recurrent_defs();    // src/graph/ops/recurrent/ (RNN, GRU, LSTM)
std::span<const OpDef> control_defs();      // src/graph/ops/control/ (If, Loop, Scan, SequenceMap)
std::span<const OpDef> sequence_defs();     // src/graph/ops/sequence/ (Sequence*, Optional*)
std::span<const OpDef> quant_defs();        // src/graph/ops/quant/ (QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear)
std::span<const OpDef> int8_defs();         // src/graph/ops/int8/ (MatMulInteger, ConvInteger, QLinearMatMul, QLinearConv, ...)
std::span<const OpDef> random_defs();       // src/graph/ops/random/ (Bernoulli, RandomUniform, RandomNormal, ...)

}  // namespace onemodel::ops
