// Tensors whose values live in a separate file (onnx-import.md §5). The tensor reader hands every such tensor
// to load_external_data, which checks the location, confines it to the external-data directory (symbolic
// links resolved), checks the range in 64 bits and returns a view into the file's mapping (or its bytes read
// into memory), shared by every tensor of that file.
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

// Returns a view of the tensor's bytes, keeping whatever owns them alive through `rc.storage`. Throws
// ImportError(ExternalData) for a bad location, a file outside the directory or a range outside the file,
// ImportError(Io) when the file exists but cannot be read.
std::span<const std::byte> load_external_data(ReadContext& rc, const ExternalDataRef& ref);

}  // namespace onemodel::onnx
