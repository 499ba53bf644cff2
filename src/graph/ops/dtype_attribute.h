// The element type an integer attribute of a node names (`dtype` of EyeLike, Bernoulli, the Random* family,
// SequenceEmpty), for the factories.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "graph/op.h"

namespace onemodel::ops {

// std::nullopt when the node does not have the attribute. A code that names no element type the tensors store
// is an Unsupported error naming the node and the type; so is string, which none of these operators makes
// (and a sequence cannot pack).
inline std::optional<DType> dtype_attribute(const NodeInfo& node, std::string_view name) {
  if (node.find(name) == nullptr) return std::nullopt;
  const int64_t code = node.get_int(name, 0);
  const bool in_range = code >= 0 && code <= INT32_MAX;
  if (!in_range || !is_stored_dtype(static_cast<int32_t>(code)) ||
      code == static_cast<int64_t>(DType::String)) {
    const std::string type =
        in_range ? std::string(onnx_type_name(static_cast<int32_t>(code))) : std::to_string(code);
    node.unsupported(node.node().op_type + ": element type " + type + " is not supported");
  }
  return static_cast<DType>(code);
}

}  // namespace onemodel::ops
