// Float32 reduction kernels for the two layouts of ops-norms.md "Reductions", templates over a lanes type
// instantiated once per kernel path by paths/instantiate.inc. Lanes never mix terms of different partials:
// - columns: each lane is one output and folds its rows in the order given, exactly as a scalar loop would;
// - Sum16: vector k holds partials k*width .. k*width+width-1 of the canonical sum, so any width agrees.
// Full vectors first, then the path's one-lane `L::Tail` running the same code for the rest.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/kernel_table.h"
#include "kernels/simd.h"

namespace onemodel::inline ONEMODEL_KERNEL_NAMESPACE {

namespace reduce_detail {

template <class L, ReduceOp kOp>
inline typename L::F term(const float* p) {
  const typename L::F v = L::load(p);
  if constexpr (kOp == ReduceOp::SumSquare)
    return v * v;
  else
    return v;
}

// acc folded with the next term t: Max and Min keep acc unless t is strictly better (so NaN never replaces).
template <class L, ReduceOp kOp>
inline typename L::F fold(typename L::F acc, typename L::F t) {
  if constexpr (kOp == ReduceOp::Max)
    return L::select(t > acc, t, acc);
  else if constexpr (kOp == ReduceOp::Min)
    return L::select(t < acc, t, acc);
  else
    return acc + t;
}

// Outputs j .. j + kVectors*L::width - 1 of reduce_columns, kept in registers across the rows.
template <class L, ReduceOp kOp, int kVectors>
inline void column_block(const float* base, const int64_t* offsets, size_t rows, float* out, size_t j,
                         bool first) {
  constexpr bool kStartsWithFirst = kOp == ReduceOp::Max || kOp == ReduceOp::Min;
  typename L::F acc[kVectors];
  size_t r = 0;
  for (int k = 0; k < kVectors; ++k) {
    const size_t at = j + static_cast<size_t>(k * L::width);
    if (!first)
      acc[k] = L::load(out + at);
    else if constexpr (kStartsWithFirst)
      acc[k] = term<L, kOp>(base + offsets[0] + at);
    else
      acc[k] = L::splat(0.0f);
  }
  if (first && kStartsWithFirst) r = 1;
  for (; r < rows; ++r) {
    const float* row = base + offsets[r] + j;
    for (int k = 0; k < kVectors; ++k) acc[k] = fold<L, kOp>(acc[k], term<L, kOp>(row + k * L::width));
  }
  for (int k = 0; k < kVectors; ++k) L::store(out + j + static_cast<size_t>(k * L::width), acc[k]);
}

// Accumulator registers per block: a whole 256-output tile on 16 lanes; 8 elsewhere, which leaves SSE and
// AVX2 half of their 16 registers for loads.
template <class L>
constexpr int column_vectors() {
  return L::width >= 16 ? 16 : 8;
}

template <class L, ReduceOp kOp>
void columns(const float* base, const int64_t* offsets, size_t rows, float* out, size_t width, bool first) {
  using T = typename L::Tail;
  constexpr int kVectors = column_vectors<L>();
  constexpr size_t kBlock = static_cast<size_t>(kVectors * L::width);
  size_t j = 0;
  for (; j + kBlock <= width; j += kBlock) column_block<L, kOp, kVectors>(base, offsets, rows, out, j, first);
  for (; j + L::width <= width; j += L::width) column_block<L, kOp, 1>(base, offsets, rows, out, j, first);
  for (; j < width; ++j) column_block<T, kOp, 1>(base, offsets, rows, out, j, first);
}

// Adds the terms of x[0 .. n) to the 16 partials, the first going to partial `phase`.
template <class L, ReduceOp kOp>
void sum16_run(const float* x, size_t n, size_t phase, float* partials) {
  static_assert(16 % L::width == 0, "the lanes must tile the 16 partials");
  using T = typename L::Tail;
  constexpr int kVectors = 16 / L::width;
  size_t i = 0;
  for (; i < n && phase != 0; ++i, phase = (phase + 1) % 16) {
    partials[phase] = partials[phase] + term<T, kOp>(x + i);
  }
  if (n - i >= 16) {
    typename L::F acc[kVectors];
    for (int k = 0; k < kVectors; ++k) acc[k] = L::load(partials + k * L::width);
    for (; i + 16 <= n; i += 16) {
      for (int k = 0; k < kVectors; ++k) acc[k] = acc[k] + term<L, kOp>(x + i + k * L::width);
    }
    for (int k = 0; k < kVectors; ++k) L::store(partials + k * L::width, acc[k]);
  }
  for (; i < n; ++i, ++phase) partials[phase] = partials[phase] + term<T, kOp>(x + i);
}

template <class L, ReduceOp kOp>
float rows_sum16(const float* base, const int64_t* offsets, size_t runs, size_t run, size_t phase,
                 float* partials) {
  for (size_t r = 0; r < runs; ++r, phase = (phase + run) % 16) {
    sum16_run<L, kOp>(base + offsets[r], run, phase, partials);
  }
  alignas(64) float p[16];
  for (int t = 0; t < 16; ++t) p[t] = partials[t];
  for (int half = 8; half >= 1; half /= 2) {
    for (int t = 0; t < half; ++t) p[t] = p[t] + p[t + half];
  }
  return p[0];
}

}  // namespace reduce_detail

template <class L>
void reduce_columns_kernel(ReduceOp op, const float* base, const int64_t* offsets, size_t rows, float* out,
                           size_t width, bool first) {
  using namespace reduce_detail;
  switch (op) {
    case ReduceOp::Sum:
      return columns<L, ReduceOp::Sum>(base, offsets, rows, out, width, first);
    case ReduceOp::SumSquare:
      return columns<L, ReduceOp::SumSquare>(base, offsets, rows, out, width, first);
    case ReduceOp::Max:
      return columns<L, ReduceOp::Max>(base, offsets, rows, out, width, first);
    case ReduceOp::Min:
      return columns<L, ReduceOp::Min>(base, offsets, rows, out, width, first);
  }
}

template <class L>
float reduce_rows_sum16_kernel(ReduceOp op, const float* base, const int64_t* offsets, size_t runs,
                               size_t run, size_t phase, float* partials) {
  using namespace reduce_detail;
  if (op == ReduceOp::SumSquare)
    return rows_sum16<L, ReduceOp::SumSquare>(base, offsets, runs, run, phase, partials);
  return rows_sum16<L, ReduceOp::Sum>(base, offsets, runs, run, phase, partials);
}

}  // namespace onemodel::inline ONEMODEL_KERNEL_NAMESPACE
