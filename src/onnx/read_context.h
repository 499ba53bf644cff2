// State shared by the readers of one input: the wire context (position, path, limits) and the owners of any
// buffer the import had to create (converted typed-field data). Tensor bytes point either into the input or
// into those.
#pragma once

#include <memory>
#include <vector>

#include "onnx/wire.h"

namespace onemodel::onnx {

struct ReadContext {
  WireContext wire;
  std::vector<std::shared_ptr<const void>>& storage;
};

}  // namespace onemodel::onnx
