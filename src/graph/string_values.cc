#include "graph/string_values.h"

#include <cstring>

namespace onemodel {

ConstTensor string_constant(std::span<const std::string_view> values, const Shape& shape) {
  ConstTensor c;
  c.storage = string_block(values);
  c.ref = TensorRef{DType::String, shape, c.storage.get()};
  return c;
}

std::vector<std::string_view> string_views(const TensorRef& t) {
  const auto* elems = t.as<const StringElem>();
  std::vector<std::string_view> views(static_cast<size_t>(t.count()));
  for (size_t i = 0; i < views.size(); ++i) views[i] = elems[i].view();
  return views;
}

StringElem make_string(OpRun::OutputAllocator& allocator, std::string_view text) {
  if (text.empty()) return StringElem{};
  char* out = allocator.allocate_text(text.size());
  std::memcpy(out, text.data(), text.size());
  return StringElem{out, text.size()};
}

void copy_strings(OpRun::OutputAllocator& allocator, const StringElem* src, StringElem* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = make_string(allocator, src[i].view());
}

}  // namespace onemodel
