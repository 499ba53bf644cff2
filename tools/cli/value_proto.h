// The backend test data's value files beyond TensorProto: SequenceProto and OptionalProto holding tensors,
// read into the packed form sessions take for sequence and optional inputs (onemodel/packed.h).
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "ir/ir.h"
#include "onemodel/tensor.h"

namespace onemodel::cli {

struct LoadedValue {
  std::string name;  // the name the message carries, may be empty
  Tensor value;      // a plain tensor, or a packed sequence or optional
};

// A TensorProto's data as a Tensor. Throws SessionError: Unsupported for an element type that is not stored,
// InvalidInput when the bytes do not match the dims.
Tensor tensor_from(const ir::TensorData& data);

// Reads one serialized TensorProto, SequenceProto or OptionalProto, as `declared` (the model's type of the
// value) says; an undeclared value is a TensorProto. An empty sequence takes its element type from `declared`
// (float when it says none). Throws ImportError on malformed bytes and SessionError(Unsupported) for contents
// sessions do not carry (sparse tensors, maps, nested sequences or optionals).
LoadedValue load_value(std::span<const std::byte> bytes, const ir::Type& declared,
                       const std::string& file_name);

}  // namespace onemodel::cli
