// What QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear share (int8.md "Operators"): the layout of
// a per-tensor or per-axis scale, reading scales and zero points of any served type, and the quantization of
// one float.
#pragma once

#include <cstdint>
#include <limits>

#include "graph/op.h"
#include "graph/ops/elementwise/common.h"
#include "graph/ops/elementwise/element_types.h"

namespace onemodel::ops::quant {

// The elements of x seen as [outer, channels, inner], channel c using scale[c] and zero_point[c]. A
// per-tensor scale is one channel covering everything.
struct ChannelLayout {
  int64_t outer = 1, channels = 1, inner = 1;
};

// Infer: checks the scale (input 1) and the optional zero point (input 2) of a node whose data is input 0,
// for the `axis` attribute. A scale of one element (rank 0 or 1) is per-tensor; a 1-D scale of x's extent
// along the axis is per-axis (only from opset 13). The zero point, when present, has the scale's shape.
void check_scale_and_zero_point(const InferContext& ctx, int64_t axis);

// The run-time layout for x's shape and a scale of `scale_count` elements (checked at infer).
ChannelLayout channel_layout(const Shape& x, int64_t axis, int64_t scale_count);

// Element i of a float32, float16 or bfloat16 scale, as a float (the 16-bit types widen exactly).
float scale_at(const TensorRef& scale, int64_t i);
// Element i of an integer zero point (8, 16 or 32 bits); 0 when the zero point is omitted.
int32_t zero_point_at(const OpRun& run, size_t input, int64_t i);

// Calls fn(begin, end, channel) over runs of consecutive elements sharing a channel, in parallel chunks of
// whole runs where the tensor is large. Results never depend on how the elements are split.
template <class F>
void for_each_channel_run(const OpRun& run, const ChannelLayout& layout, double ns_per_element, const F& fn) {
  const int64_t runs = layout.outer * layout.channels;
  if (runs == 1) {
    for_each_chunk(run.threads, layout.inner, ns_per_element,
                   [&](int64_t begin, int64_t end) { fn(begin, end, int64_t{0}); });
    return;
  }
  const int64_t runs_per_chunk = std::max<int64_t>(1, kElementChunk / std::max<int64_t>(1, layout.inner));
  const int64_t chunks = (runs + runs_per_chunk - 1) / runs_per_chunk;
  for_each_chunk(run.threads, chunks, ns_per_element * static_cast<double>(runs_per_chunk * layout.inner),
                 [&](int64_t first_chunk, int64_t end_chunk) {
                   const int64_t last = std::min(runs, end_chunk * runs_per_chunk);
                   for (int64_t r = first_chunk * runs_per_chunk; r < last; ++r) {
                     fn(r * layout.inner, (r + 1) * layout.inner, r % layout.channels);
                   }
                 });
}

// clamp(round_half_even(x / scale) + zero_point) into Q's range, NaN giving Q's minimum. The division is
// the one float32 division of int8.md. The quotient is bounded to +-2^20 first, far outside every served
// range, so (v + 1.5 * 2^23) - 1.5 * 2^23 rounds it to the nearest integer, ties to even: the sum lands in
// [2^23, 2^24) where the spacing is 1, and the subtraction is exact. All steps are correctly rounded and
// branch-free, so the loop vectorises without changing a result.
template <class Q>
inline Q quantize_value(float x, float scale, float zero_point) {
  constexpr float kLowest = static_cast<float>(std::numeric_limits<Q>::min());
  constexpr float kHighest = static_cast<float>(std::numeric_limits<Q>::max());
  constexpr float kBound = 1048576.0f;     // 2^20
  constexpr float kRounder = 12582912.0f;  // 1.5 * 2^23
  const float q = x / scale;
  const bool is_nan = q != q;
  // Selects as bit blends (select_value), so GCC has no branch to keep and vectorises the loop.
  float v = select_value(q < -kBound, -kBound, q);
  v = select_value(v > kBound, kBound, v);
  v = select_value(is_nan, 0.0f, v);
  v = (v + kRounder) - kRounder;
  v = v + zero_point;  // exact: both are integers below 2^21
  v = select_value(v < kLowest, kLowest, v);
  v = select_value(v > kHighest, kHighest, v);
  v = select_value(is_nan, kLowest, v);
  return static_cast<Q>(static_cast<int32_t>(v));
}

}  // namespace onemodel::ops::quant
