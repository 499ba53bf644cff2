// Matrix-product plumbing shared by MatMul and Gemm: float32 through the session's GEMM kernels (with B
// packed once per plan when it is a constant), and plain loops for the other element types.
#pragma once

#include <cstdint>
#include <memory>
#include <type_traits>

#include "graph/op.h"
#include "graph/ops/linalg/canonical_nan.h"

namespace onemodel::ops {

// A constant B operand in the kernel table's packed layout; owned by the plan through prepare()'s state.
struct PackedWeight {
  ConstTensor storage;
  PackedB packed;
};

// Packs the k x n operand whose element (p, j) is b[p*b_row + j*b_col] for the plan's kernel table.
std::shared_ptr<const PackedWeight> pack_weight(const PrepareContext& ctx, const float* b, int64_t b_row,
                                                int64_t b_col, int64_t k, int64_t n);
// The same for a given kernel table.
std::shared_ptr<const PackedWeight> pack_weight(const KernelTable& kernels, const float* b, int64_t b_row,
                                                int64_t b_col, int64_t k, int64_t n);

// Scratch for run_gemm calls of the shape of `args` (m, n, k) with the same `packed`, from the run's arena.
float* gemm_scratch(const OpRun& run, const GemmArgs& args, const PackedWeight* packed);

// C = A * B on the session's kernels (args.exact is set from the run). Uses `packed` instead of args.b when
// not null. `scratch` comes from gemm_scratch for the same m, n, k and `packed`.
void run_gemm(const OpRun& run, GemmArgs args, const PackedWeight* packed, float* scratch);

// C = A * B for element types without a GEMM kernel. Each output sums its products in increasing p from +0,
// every multiply and add rounded on its own, so it is exact by construction; integers wrap around. In exact
// mode a NaN result (floating types) becomes the canonical NaN. C is row-major with row stride n.
template <class T>
void product_loop(const T* a, int64_t a_row, int64_t a_col, const T* b, int64_t b_row, int64_t b_col, T* c,
                  int64_t m, int64_t n, int64_t k, bool exact) {
  // Unsigned arithmetic makes integer overflow wrap instead of being undefined.
  using Acc =
      typename std::conditional_t<std::is_integral_v<T>, std::make_unsigned<T>, std::type_identity<T>>::type;
  for (int64_t i = 0; i < m; ++i) {
    T* row = c + i * n;
    for (int64_t j = 0; j < n; ++j) row[j] = T(0);
    for (int64_t p = 0; p < k; ++p) {
      const Acc av = static_cast<Acc>(a[i * a_row + p * a_col]);
      const T* brow = b + p * b_row;
      for (int64_t j = 0; j < n; ++j) {
        row[j] = static_cast<T>(static_cast<Acc>(row[j]) + av * static_cast<Acc>(brow[j * b_col]));
      }
    }
    if constexpr (std::is_floating_point_v<T>) {
      if (exact) {
        for (int64_t j = 0; j < n; ++j) row[j] = canonicalize(row[j]);
      }
    }
  }
}

}  // namespace onemodel::ops
