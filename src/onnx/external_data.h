// Tensors whose values live in a separate file (onnx-import.md §5). The tensor reader hands every such tensor
// to load_external_data; resolving locations, mapping files and sharing mappings belong here.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "onnx/read_context.h"

namespace onemodel::onnx {

struct ExternalDataRef {
  std::vector<std::pair<std::string, std::string>> entries;  // external_data key/value pairs as written
  int64_t expected_bytes = 0;                                // from the tensor's dims and element type
  int64_t offset = -1;                                       // position of the TensorProto, for errors
};

// Returns a view of the tensor's bytes, keeping whatever owns them alive through `rc.storage`.
std::span<const std::byte> load_external_data(ReadContext& rc, const ExternalDataRef& ref);

}  // namespace onemodel::onnx
