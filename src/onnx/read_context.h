// State shared by the readers of one input: the wire context (position, path, limits) and the owners of any
// buffer the import had to create (converted typed-field data). Tensor bytes point either into the input or
// into those.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <vector>

#include "onnx/wire.h"

namespace onemodel::onnx {

// Where external data files are looked up (onnx-import.md §5), and the files opened so far: one mapping or
// read per file, shared by every tensor that points into it.
struct ExternalFiles {
  std::filesystem::path dir;  // empty: the caller named no directory, so external data is refused
  std::map<std::filesystem::path, std::span<const std::byte>> opened;
};

struct ReadContext {
  WireContext wire;
  std::vector<std::shared_ptr<const void>>& storage;
  ExternalFiles* external = nullptr;
};

}  // namespace onemodel::onnx
