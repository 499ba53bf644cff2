// The copy at the heart of Transpose, also used by operators that move an axis to the end through scratch
// (Softmax).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace onemodel::ops {

// Writes the transpose of the row-major tensor `src` (extents `dims`, elements of 1, 2, 4 or 8 bytes) into
// `dst`: output axis i is input axis perm[i]. `perm` is a permutation of 0..dims.size()-1 with at most 8
// entries, and src and dst do not overlap.
void transpose_copy(const std::byte* src, std::byte* dst, size_t element_size, std::span<const int64_t> dims,
                    std::span<const int> perm);

}  // namespace onemodel::ops
