// What the int8 product operators share (int8.md "Operators"): checks of 8-bit operands, zero points and
// scales, per-column parameter arrays, and running the session's int8 product kernel with arena scratch and
// an optional pre-packed B.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "graph/op.h"

namespace onemodel::ops::int8 {

bool is_8bit(DType t);

// Infer: input `i`, when present, is an 8-bit tensor of `type` with 1 element, or `count` elements when
// `count` > 1 (per row or column). `what` names it in errors.
void check_zero_point(const InferContext& ctx, size_t i, DType type, int64_t count, std::string_view what);
// Infer: input `i` is a float32 (or, when `half_ok`, float16/bfloat16) tensor of 1 element, or `count`
// elements when `count` > 1.
void check_scale(const InferContext& ctx, size_t i, int64_t count, bool half_ok, std::string_view what);
// Infer: input `i`, when present, is an int32 vector of `count` elements.
void check_int32_bias(const InferContext& ctx, size_t i, int64_t count, std::string_view what);

// Element j of a scale tensor of 1 or many elements (float32, float16 or bfloat16), as float32.
float scale_value(const TensorRef& scale, int64_t j);

// QLinear's requantization multipliers, mult[j] = (sx * sw[j]) / sy in float32, in `out` (n floats, or 1
// when w_scale has one element); returns whether they are per column.
bool requantize_multipliers(const TensorRef& x_scale, const TensorRef& w_scale, const TensorRef& y_scale,
                            int64_t n, float* out);

// A constant B (or one per convolution group) in the kernel table's packed layout, owned by a plan.
struct PackedInt8Weight {
  ConstTensor storage;
  std::vector<Int8PackedB> groups;
};
// Packs `groups` operands of k x n; group g's element (p, j) is at b + g*group_stride + p*b_row + j*b_col
// (in elements).
std::shared_ptr<const PackedInt8Weight> pack_int8_weight(const KernelTable& kernels, const TensorRef& b,
                                                         int64_t groups, int64_t group_stride, int64_t b_row,
                                                         int64_t b_col, int64_t k, int64_t n);

// Runs one product on the session's kernels; scratch from the run's arena (reused across calls of the same
// shape by the caller passing the same pointer: see scratch_for).
void* int8_scratch(const OpRun& run, const Int8GemmArgs& args, bool b_packed);
void run_int8_gemm(const OpRun& run, const Int8GemmArgs& args, const Int8PackedB* packed, void* scratch);

}  // namespace onemodel::ops::int8
