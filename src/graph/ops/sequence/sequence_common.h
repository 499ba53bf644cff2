// What the sequence and optional operators share: how an input is known to be packed, reading packed inputs
// with errors that name the node, allocating packed outputs, and positions. Every one of these kernels
// copies bytes (exact everywhere) and allocates its outputs as it runs, since their sizes depend on values.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "graph/op.h"
#include "graph/ops/run_fail.h"
#include "graph/packed_value.h"

namespace onemodel::ops {

// What the model declares an input to be. Undeclared inputs are told apart at run time by the tag.
enum class Declared { Unknown, Tensor, Sequence, Optional };
Declared declared_kind(const NodeInfo& node, size_t input);

class PackedKernel : public OpKernel {
 public:
  PackedKernel() {
    supports_exact = true;  // byte copies only
    outputs_data_dependent = true;
  }
  // Never called: a data-dependent node is shaped by run().
  void infer(InferContext& ctx) const override { ctx.require_run_time_values(); }
};

// Input i as a packed value; anything else, or a corrupt encoding, fails naming the node.
packed::Value read_packed(const OpRun& run, size_t i);
// Input i as a packed sequence.
packed::SequenceView read_sequence(const OpRun& run, size_t i);
// Whether input i is packed: by the declaration, else by the tag.
bool is_packed_input(const OpRun& run, size_t i, Declared declared);

// Output i as a packed value of exactly `bytes` bytes.
packed::Writer allocate_packed(const OpRun& run, size_t i, size_t bytes);

// The position held by input i (a one-element int32 or int64 tensor), counted from the front and checked to
// lie in [-size, size) — or [-size, size] when `end_allowed` (an insertion may append).
size_t position_input(const OpRun& run, size_t i, size_t size, bool end_allowed);

}  // namespace onemodel::ops
