// The broadcasting engine of the element-wise operators (numpy rules, rank 0 to 8).
//
// The output is walked in row-major order as a sequence of blocks: a block is a stretch of the innermost run
// in which every operand either advances one element per output element (step 1) or repeats one element (step
// 0). Extent-1 dimensions are dropped and neighbouring dimensions in which every operand behaves alike are
// merged first, so same-shape operands become one flat block, a scalar operand is a step-0 operand of one
// block, and a row-vector broadcast ([N, C] with [C]) is N blocks of C contiguous elements. Kernels
// instantiate their inner loop once per step pattern (BinaryBlocks), which leaves a flat loop the compiler
// vectorises; the walk itself is compiled once, here.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "core/shape.h"
#include "graph/op.h"

namespace onemodel::ops {

inline constexpr int kMaxBroadcastOperands = 3;

class BroadcastLoop {
 public:
  // Every operand shape must broadcast to `out` (infer checked it).
  BroadcastLoop(const Shape& out, std::span<const Shape* const> operands);

  int64_t count() const { return count_; }
  // 1 when operand k advances along the innermost run, 0 when it repeats one element there.
  int64_t inner_step(int k) const { return strides_[static_cast<size_t>(k)][static_cast<size_t>(rank_ - 1)]; }

  // Non-owning reference to a callable `void(const int64_t* offsets, int64_t out_offset, int64_t n)`.
  class BlockFn {
   public:
    template <class F>
    BlockFn(const F& f)
        : obj_(&f), call_([](const void* o, const int64_t* offsets, int64_t out, int64_t n) {
            (*static_cast<const F*>(o))(offsets, out, n);
          }) {}
    void operator()(const int64_t* offsets, int64_t out, int64_t n) const { call_(obj_, offsets, out, n); }

   private:
    const void* obj_;
    void (*call_)(const void*, const int64_t*, int64_t, int64_t);
  };

  // Calls block(offsets, out_offset, n) for consecutive blocks covering the output elements [begin, end):
  // offsets[k] is operand k's element offset of the block's first element, out_offset the output's, n its
  // length.
  void for_range(int64_t begin, int64_t end, BlockFn block) const;

 private:
  int rank_ = 0;  // after merging; at least 1
  int operands_ = 0;
  int64_t count_ = 0;
  std::array<int64_t, kMaxRank> dims_{};
  std::array<std::array<int64_t, kMaxRank>, kMaxBroadcastOperands> strides_{};
};

// Infer of an operator whose inputs [0, count) broadcast together: the output shape, or ctx.fail when the
// shapes do not broadcast or the result exceeds the tensor size limit.
Shape broadcast_output_shape(InferContext& ctx, size_t count, DType output_type);

// One block of a two-input element-wise kernel, over raw element pointers: element i reads a[i * step_a] and
// b[i * step_b] (steps in elements, 0 or 1) and writes y[i].
using BinaryBlockFn = void (*)(const std::byte* a, int64_t step_a, const std::byte* b, int64_t step_b,
                               std::byte* y, int64_t n);

// A kernel's block function for each step pattern (two operands never both repeat along the innermost run,
// since its extent comes from one of them). A kernel may give the same function, reading the steps at run
// time, for all.
struct BinaryBlocks {
  BinaryBlockFn both_advance;
  BinaryBlockFn a_repeats;
  BinaryBlockFn b_repeats;
};

// Runs a two-input element-wise kernel: inputs 0 and 1 broadcast to output 0, in fixed chunks on the thread
// pool. `ns_per_element` is the single-thread cost estimate that decides how many threads join.
void run_binary_broadcast(const OpRun& run, const BinaryBlocks& blocks, double ns_per_element);

// The same for the float32 arithmetic of the kernel table: each block is one call of `run.kernels->binary`,
// vectorised on the session's kernel path.
void run_binary_broadcast(const OpRun& run, BinaryFn fn, double ns_per_element);

}  // namespace onemodel::ops
