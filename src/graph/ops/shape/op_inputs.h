// Input checks and integer lists (target shapes, axes) shared by the shape, linalg, reduce and norm
// operators.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "graph/op.h"

namespace onemodel::ops {

// Factories: the node has between `min` and `max` inputs and the first `min` are present. Fails naming the
// node.
void require_inputs(const NodeInfo& node, size_t min, size_t max);

// The elements of an int32 or int64 tensor of rank 0 or 1, widened to int64. Fails naming the node otherwise.
std::vector<int64_t> int_list(const InferContext& ctx, const TensorRef& value, std::string_view what);

// A read-only list of integers from an int32/int64 tensor or an attribute, without copying (usable in
// run(), which allocates nothing).
class IntSeq {
 public:
  IntSeq() = default;
  IntSeq(std::span<const int64_t> values) : i64_(values.data()), size_(values.size()) {}
  IntSeq(const std::vector<int64_t>& values) : IntSeq(std::span<const int64_t>(values)) {}
  // `value` is an int32 or int64 tensor already checked by int_seq().
  static IntSeq of(const TensorRef& value) {
    IntSeq s;
    s.size_ = static_cast<size_t>(value.count());
    if (value.dtype == DType::I32)
      s.i32_ = value.as<const int32_t>();
    else
      s.i64_ = value.as<const int64_t>();
    return s;
  }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  int64_t operator[](size_t i) const { return i32_ != nullptr ? i32_[i] : i64_[i]; }

 private:
  const int64_t* i64_ = nullptr;
  const int32_t* i32_ = nullptr;
  size_t size_ = 0;
};

// IntSeq::of(value) after checking that `value` is an int32 or int64 tensor of rank 0 or 1.
IntSeq int_seq(const InferContext& ctx, const TensorRef& value, std::string_view what);

// The list held by optional input `i`: empty when the input is omitted, std::nullopt when it is present but
// its value is not known yet (the node has then asked to be shaped again with run-time values).
std::optional<std::vector<int64_t>> int_list_input(InferContext& ctx, size_t i, std::string_view what);

// int_list_input() without the copy: the returned list points into the input's value.
std::optional<IntSeq> int_seq_input(InferContext& ctx, size_t i, std::string_view what);

// Bit a is set for every listed axis a (negative values count from the end). Fails on an axis outside [-rank,
// rank) or one listed twice. rank <= kMaxRank, so 32 bits always suffice.
uint32_t axes_mask(const InferContext& ctx, std::span<const int64_t> axes, int rank);

inline bool has_axis(uint32_t mask, int axis) {
  return (mask >> axis) & 1u;
}

// Run time: throws SessionError(InvalidInput) naming the node when `index` lies outside [-extent, extent),
// else returns it counted from the front.
int64_t checked_index(const OpRun& run, int64_t index, int64_t extent);

// Fails naming the node when `dims` is not a valid shape for elements of `element_size` bytes (rank, extents,
// size).
void check_dims(const InferContext& ctx, std::span<const int64_t> dims, size_t element_size,
                std::string_view what);

}  // namespace onemodel::ops
