// The element of DType::String (tensors.md, "Strings" in docs/architecture.md): a handle to UTF-8 bytes that
// live elsewhere. The text of a Tensor made by Tensor::from_strings and of a model constant follows the
// handles in the same storage block; text a kernel produces lives in the run's arena
// (OpRun::OutputAllocator::allocate_text). A zero handle is the empty string, so zero-filled storage holds
// empty strings, and kernels that only move elements move strings unchanged.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

namespace onemodel {

struct StringElem {
  const char* data = nullptr;
  uint64_t size = 0;
  std::string_view view() const { return {data, static_cast<size_t>(size)}; }
};
static_assert(sizeof(StringElem) == 16, "String elements have one size on every target");

// One zero-padded, 64-byte-aligned block: the handles of `values`, then their text, the handles pointing into
// the block.
std::shared_ptr<std::byte> string_block(std::span<const std::string_view> values);

}  // namespace onemodel
