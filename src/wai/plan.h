// Shape planning (wai-ops/1 §4, §5): channel counts at load, and every shape on declared or actual sizes.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "wai/model.h"

namespace onemodel::wai {

struct Shape {
  int64_t c = 1, h = 1, w = 1;
  bool operator==(const Shape&) const = default;
};

struct PlanOutcome {
  Refusal code = Refusal::None;  // TooLarge (a size formed before the shape rule) or GeometryMismatch
  std::string message;
};

// Plans one operator on its input shapes (§4 run step 3, first two checks). `scalars` holds this decode's
// scalar values, or is empty at load, where a crop with scalar operands is planned on the smallest start and
// the largest length (§5.10). The caller checks each output against max_elems.
PlanOutcome plan_node(const Model& m, const Node& n, std::span<const Shape> in,
                      std::span<const int64_t> scalars, bool at_load, std::vector<Shape>& out);

// Every tensor's shape planned on the inputs' declared max_h and max_w (the shape half of §10.5 step 7), for
// a graph whose inputs declare their sizes. Throws LoadFailure.
std::vector<Shape> plan_declared_shapes(const Model& m);

// Elements of a shape, saturating.
uint64_t elements(const Shape& s);

}  // namespace onemodel::wai
