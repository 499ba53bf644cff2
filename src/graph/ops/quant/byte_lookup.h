// ByteLookup (graph-passes.md "qdq-lookup"): y[i] = table[x[i]] for an 8-bit x, the table holding one 8-bit
// result per possible input byte. Made only by the qdq-lookup pass, which fills the table by running the
// DequantizeLinear -> activation -> QuantizeLinear chain it replaces on all 256 inputs; never looked up in
// the op table. The node keeps the NodeInfo of the QuantizeLinear it replaces.
#pragma once

#include <array>
#include <cstdint>
#include <memory>

#include "graph/op.h"

namespace onemodel::ops {

// table[b] is the output byte for the input whose bit pattern is b (an int8 -1 is entry 255). `input` and
// `output` are U8 or I8.
std::unique_ptr<OpKernel> make_byte_lookup(DType input, DType output, const std::array<uint8_t, 256>& table);

}  // namespace onemodel::ops
