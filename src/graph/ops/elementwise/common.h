// Helpers shared by the element-wise operators: node validation, type errors and fixed-chunk parallel loops.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "graph/op.h"
#include "threading/parallel_for.h"

namespace onemodel::ops {

// Elements per parallel chunk. Element-wise results never depend on chunking; the constant only bounds how
// finely a large tensor is shared between threads.
inline constexpr int64_t kElementChunk = int64_t{1} << 15;

// Runs fn(begin, end) over [0, count) in fixed chunks, on the pool when the tensor is large enough.
// `ns_per_element` is the single-thread cost estimate the pool uses to decide how many helpers to wake.
template <class F>
void for_each_chunk(const ThreadContext& threads, int64_t count, double ns_per_element, const F& fn) {
  if (count <= 0) return;
  const int64_t chunks = (count + kElementChunk - 1) / kElementChunk;
  if (chunks == 1 || threads.max_threads <= 1) {
    fn(int64_t{0}, count);
    return;
  }
  auto chunk = [&](int64_t c) { fn(c * kElementChunk, std::min(count, (c + 1) * kElementChunk)); };
  parallel_for(threads, chunks, chunk, static_cast<double>(count) * ns_per_element);
}

// Factories: the node must have exactly `count` present inputs.
inline void require_inputs(const NodeInfo& node, size_t count) {
  if (node.num_inputs() != count) {
    node.fail("expects " + std::to_string(count) + " inputs, got " + std::to_string(node.num_inputs()));
  }
  for (size_t i = 0; i < count; ++i) {
    if (!node.has_input(i)) node.fail("input " + std::to_string(i) + " is missing");
  }
}

// Infer: the operator does not serve this element type (a valid model we cannot run).
[[noreturn]] inline void unsupported_type(const InferContext& ctx, DType type) {
  ctx.node().unsupported(ctx.node().node().op_type + ": element type " + std::string(dtype_name(type)) +
                         " is not supported");
}

// Infer of a float32-only one-input operator: the output has the input's type and shape.
inline void infer_f32_like_input(InferContext& ctx) {
  const DType type = ctx.input_dtype(0);
  if (type != DType::F32) unsupported_type(ctx, type);
  ctx.set_output(0, type, ctx.input_shape(0));
}

}  // namespace onemodel::ops
