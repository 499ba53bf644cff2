#include "graph/ops/elementwise/broadcast.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include "graph/ops/elementwise/common.h"

namespace onemodel::ops {
namespace {

// When `out` overlaps `in` in memory but is not exactly the same elements (an in-place output over a smaller,
// broadcast input), returns a scratch copy of `in`'s data so that writing `out` cannot clobber values still
// to be read; otherwise returns in.data.
// `scratch` may be null when the caller guarantees its operands never partly overlap the output (the fused
// element-wise chain); a partial overlap then is a programming error, caught here rather than by a crash.
const std::byte* unaliased(const TensorRef& in, const TensorRef& out, Arena* scratch) {
  const size_t in_bytes = in.bytes(), out_bytes = out.bytes();
  const auto in_at = reinterpret_cast<uintptr_t>(in.data), out_at = reinterpret_cast<uintptr_t>(out.data);
  const bool overlap = in_at < out_at + out_bytes && out_at < in_at + in_bytes;
  if (!overlap || (in_at == out_at && in_bytes == out_bytes)) return in.data;
  if (scratch == nullptr)
    throw std::logic_error("element-wise operand partly overlaps its output without scratch");
  void* copy = scratch->allocate(in_bytes);
  std::memcpy(copy, in.data, in_bytes);
  return static_cast<const std::byte*>(copy);
}

}  // namespace

BroadcastLoop::BroadcastLoop(const Shape& out, std::span<const Shape* const> operands)
    : operands_(static_cast<int>(operands.size())), count_(out.count()) {
  // Per kept dimension, bit k is set when operand k repeats along it. Output extents of 1 carry nothing to
  // iterate.
  std::array<unsigned, kMaxRank> repeats{};
  for (int d = 0; d < out.rank; ++d) {
    if (out[d] == 1) continue;
    unsigned mask = 0;
    for (size_t k = 0; k < operands.size(); ++k) {
      const Shape& s = *operands[k];
      const int sd = d - (out.rank - s.rank);
      if (sd < 0 || s[sd] == 1) mask |= 1u << k;
    }
    if (rank_ > 0 && repeats[static_cast<size_t>(rank_ - 1)] == mask) {
      dims_[static_cast<size_t>(rank_ - 1)] *= out[d];
    } else {
      dims_[static_cast<size_t>(rank_)] = out[d];
      repeats[static_cast<size_t>(rank_)] = mask;
      ++rank_;
    }
  }
  if (rank_ == 0) {  // a single element: one block of one, every operand "advancing"
    rank_ = 1;
    dims_[0] = 1;
  }
  for (size_t k = 0; k < operands.size(); ++k) {
    int64_t stride = 1;
    for (size_t d = static_cast<size_t>(rank_); d-- > 0;) {
      if (repeats[d] & (1u << k)) {
        strides_[k][d] = 0;
      } else {
        strides_[k][d] = stride;
        stride *= dims_[d];
      }
    }
  }
}

void BroadcastLoop::for_range(int64_t begin, int64_t end, BlockFn block) const {
  const size_t inner = static_cast<size_t>(rank_ - 1);
  const size_t operands = static_cast<size_t>(operands_);
  std::array<int64_t, kMaxRank> index{};
  std::array<int64_t, kMaxBroadcastOperands> offset{};
  int64_t rest = begin;
  for (size_t d = inner + 1; d-- > 0;) {
    index[d] = rest % dims_[d];
    rest /= dims_[d];
    for (size_t k = 0; k < operands; ++k) offset[k] += index[d] * strides_[k][d];
  }
  for (int64_t pos = begin; pos < end;) {
    const int64_t n = std::min(dims_[inner] - index[inner], end - pos);
    block(offset.data(), pos, n);
    pos += n;
    index[inner] += n;
    for (size_t k = 0; k < operands; ++k) offset[k] += n * strides_[k][inner];
    // Carry into the outer dimensions: rewind the finished dimension, advance the next one out.
    for (size_t d = inner; d > 0 && index[d] == dims_[d]; --d) {
      index[d] = 0;
      ++index[d - 1];
      for (size_t k = 0; k < operands; ++k) offset[k] += strides_[k][d - 1] - dims_[d] * strides_[k][d];
    }
  }
}

Shape broadcast_output_shape(InferContext& ctx, size_t count, DType output_type) {
  Shape out = ctx.input_shape(0);
  for (size_t i = 1; i < count; ++i) {
    Shape next;
    if (!broadcast_shapes(out, ctx.input_shape(i), next)) {
      ctx.fail("input shapes " + out.str() + " and " + ctx.input_shape(i).str() + " do not broadcast");
    }
    out = next;
  }
  const std::string problem = shape_problem(out.span(), dtype_size(output_type));
  if (!problem.empty()) ctx.fail("broadcast output shape " + out.str() + ": " + problem);
  return out;
}

namespace {

// The walk shared by both kernel kinds: choose(step_a, step_b) gives the block callable, called as
// block(a, step_a, b, step_b, y, n) over raw element pointers.
template <class Choose>
void walk_binary(const OpRun& run, double ns_per_element, const Choose& choose) {
  const TensorRef& ta = run.inputs[0];
  const TensorRef& tb = run.inputs[1];
  const TensorRef& ty = run.outputs[0];
  const Shape* shapes[] = {&ta.shape, &tb.shape};
  const BroadcastLoop loop(ty.shape, shapes);
  if (loop.count() == 0) return;
  const std::byte* a = unaliased(ta, ty, run.scratch);
  const std::byte* b = unaliased(tb, ty, run.scratch);
  const int64_t size_a = static_cast<int64_t>(dtype_size(ta.dtype));
  const int64_t size_b = static_cast<int64_t>(dtype_size(tb.dtype));
  const int64_t size_y = static_cast<int64_t>(dtype_size(ty.dtype));
  const int64_t step_a = loop.inner_step(0), step_b = loop.inner_step(1);
  const auto block = choose(step_a, step_b);
  for_each_chunk(run.threads, loop.count(), ns_per_element, [&](int64_t begin, int64_t end) {
    loop.for_range(begin, end, [&](const int64_t* off, int64_t out, int64_t n) {
      block(a + off[0] * size_a, step_a, b + off[1] * size_b, step_b, ty.data + out * size_y, n);
    });
  });
}

}  // namespace

void run_binary_broadcast(const OpRun& run, const BinaryBlocks& blocks, double ns_per_element) {
  walk_binary(run, ns_per_element, [&](int64_t step_a, int64_t step_b) {
    return step_a && step_b ? blocks.both_advance : step_a ? blocks.b_repeats : blocks.a_repeats;
  });
}

void run_binary_broadcast(const OpRun& run, BinaryFn fn, double ns_per_element) {
  const auto binary = run.kernels->binary;
  const bool exact = run.exact;
  walk_binary(run, ns_per_element, [=](int64_t, int64_t) {
    return
        [=](const std::byte* a, int64_t step_a, const std::byte* b, int64_t step_b, std::byte* y, int64_t n) {
          binary(fn, exact, reinterpret_cast<const float*>(a), step_a, reinterpret_cast<const float*>(b),
                 step_b, reinterpret_cast<float*>(y), static_cast<size_t>(n));
        };
  });
}

}  // namespace onemodel::ops
