// Helpers declared in src/ir/ir.h. Kept under src/onnx/ because the build globs this directory; the ONNX
// reader is the first producer of the IR.
#include "ir/ir.h"

namespace onemodel::ir {

int64_t TensorData::count() const {
  // The importer has checked the dims: non-negative, and at most 2^60 elements unless one of them is 0, in
  // which case the others may be anything (so look for the 0 before multiplying).
  for (int64_t d : dims) {
    if (d == 0) return 0;
  }
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

const Attribute* Node::find(std::string_view attr) const {
  for (const Attribute& a : attributes) {
    if (a.name == attr) return &a;
  }
  return nullptr;
}

int32_t Graph::find_value(std::string_view name) const {
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i].name == name) return static_cast<int32_t>(i);
  }
  return -1;
}

}  // namespace onemodel::ir
