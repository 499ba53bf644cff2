// Sequences and optionals at the API boundary (graph-runtime.md §8). A graph input or output whose
// TensorInfo::kind is Sequence or Optional carries one rank-1 uint8 tensor in the packed layout described in
// docs/api.md ("Sequences and optionals"); these helpers build and read such tensors.
#pragma once

#include <span>
#include <vector>

#include "onemodel/tensor.h"

namespace onemodel {

// True when `t` is a rank-1 uint8 tensor that starts with the packed-value tag and a known kind byte. Only
// the first bytes are looked at; the unpack functions validate the whole encoding.
bool is_packed_value(const Tensor& t);

// A sequence of tensors that all have the element type `element_type` (an empty sequence keeps it). Throws
// SessionError(InvalidInput) when an element has another type or is an empty handle.
Tensor pack_sequence(std::span<const Tensor> elements, DType element_type);
// The elements of a packed sequence, copied out. Throws SessionError(InvalidInput) naming the problem when
// `packed` is not a valid packed sequence.
std::vector<Tensor> unpack_sequence(const Tensor& packed);
// The declared element type of a packed sequence (also known when it is empty).
DType sequence_element_type(const Tensor& packed);

// Optionals: empty, holding a tensor, or holding a sequence.
Tensor pack_optional();
Tensor pack_optional(const Tensor& value);
Tensor pack_optional_sequence(std::span<const Tensor> elements, DType element_type);

enum class OptionalContent { None, Tensor, Sequence };

// The parts of a packed optional, copied out.
struct UnpackedOptional {
  OptionalContent content = OptionalContent::None;
  Tensor tensor;                             // content == Tensor
  std::vector<Tensor> sequence;              // content == Sequence
  DType sequence_element_type = DType::F32;  // content == Sequence
};
// Throws SessionError(InvalidInput) naming the problem when `packed` is not a valid packed optional.
UnpackedOptional unpack_optional(const Tensor& packed);

}  // namespace onemodel
