// String values inside plans (DType::String, src/core/string_elem.h): constants whose text shares their
// storage block, and text a kernel writes, which lives in the run's arena like the outputs that point to it.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "core/string_elem.h"
#include "graph/op.h"

namespace onemodel {

// A String constant of these values and shape (the caller checked that they match).
ConstTensor string_constant(std::span<const std::string_view> values, const Shape& shape);

// Views of the elements of a String tensor.
std::vector<std::string_view> string_views(const TensorRef& t);

// A String element whose text is a run-lifetime copy of `text`.
StringElem make_string(OpRun::OutputAllocator& allocator, std::string_view text);

// Copies n String elements, text included, into run-lifetime storage: for values taken from a body run or
// any other storage that ends before the run does.
void copy_strings(OpRun::OutputAllocator& allocator, const StringElem* src, StringElem* dst, int64_t n);

}  // namespace onemodel
