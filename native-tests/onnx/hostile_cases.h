// Hostile ONNX inputs generated from code (onnx-import.md §8): each must be refused with the stated kind.
// Shared by the import tests and by fuzz or regression drivers that want a seed corpus.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "onemodel/error.h"

namespace onemodel::test {

struct HostileCase {
  std::string name;  // "<Kind>-<case>", Kind as ImportError::kind_name()
  std::vector<std::byte> bytes;
  ImportError::Kind kind;
  std::optional<int64_t> offset;  // expected ImportError::offset(), when the case pins it
  std::string field_path;         // expected ImportError::field_path(), when non-empty
};

// Every case is a whole model for onnx::import_model with default options.
std::vector<HostileCase> hostile_cases();

}  // namespace onemodel::test
