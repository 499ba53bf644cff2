// Evaluation of one graph operator (wai-ops/1 §5) in the acc64 profile.
#pragma once

#include <span>

#include "wai/arith.h"
#include "wai/model.h"

namespace onemodel::wai {

// Computes node `n`'s outputs, whose shapes are planned and whose data is sized. The output tensors' policies
// are the caller's. Throws WidthOverflow (arith.h) when a value passes its acc64 width. An observer, when
// given, sees every named intermediate as it is formed.
void eval_node(const Node& n, std::span<const IntTensor* const> in, std::span<IntTensor* const> out,
               std::span<const int64_t> scalars, IntermediateObserver* observer = nullptr);

}  // namespace onemodel::wai
