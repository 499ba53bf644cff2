// The normalisation row kernels of kernels/norm/norm_kernels.h over one path's lanes, instantiated per path
// by src/kernels/paths/instantiate.inc.
#pragma once

#include <cstdint>

#include "kernels/math/sum16.h"
#include "kernels/norm/norm_kernels.h"
#include "kernels/simd.h"

namespace onemodel::inline ONEMODEL_KERNEL_NAMESPACE {

namespace norm_detail {

// The canonical sum (term q to partial q mod 16, pairwise fold) of term(x[j]) for j in [0, n): whole blocks
// of 16 as vectors, the rest one by one. `term` takes a vector or a float.
template <class L, class Term>
float canonical_row_sum(const float* x, int64_t n, Term term) {
  using T = typename L::Tail;
  constexpr int kVectors = 16 / L::width;
  math::Sum16<L> sum;
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) {
    typename L::F terms[kVectors];
    for (int k = 0; k < kVectors; ++k) terms[k] = term(L::load(x + j + k * L::width));
    sum.add_block(terms);
  }
  float last[16] = {};  // zeroed: GCC cannot tell that finish() reads only the first `rest`
  const int64_t rest = n - j;
  for (int64_t t = 0; t < rest; ++t) last[t] = term(T::load(x + j + t));
  return sum.finish(last, static_cast<size_t>(rest));
}

// y = (((x - mean) * inv) * scale) [+ bias], NaN canonical, over one row.
template <class L, bool kBias>
void normalize(const float* x, float* y, int64_t n, float mean, float inv, const float* scale,
               const float* bias) {
  const auto step = [&]<class V>(int64_t j) {
    auto v = ((V::load(x + j) - V::splat(mean)) * V::splat(inv)) * V::load(scale + j);
    if constexpr (kBias) v = v + V::load(bias + j);
    V::store(y + j, simd::canonicalize_nan<V>(v));
  };
  int64_t j = 0;
  for (; j + L::width <= n; j += L::width) step.template operator()<L>(j);
  for (; j < n; ++j) step.template operator()<typename L::Tail>(j);
}

}  // namespace norm_detail

template <class L>
void layer_norm_rows_kernel(const LayerNormRowsArgs& args) {
  using T = typename L::Tail;
  const int64_t n = args.cols;
  const float count = static_cast<float>(n);
  for (int64_t r = 0; r < args.rows; ++r) {
    const float* x = args.x + r * n;
    float* y = args.y + r * n;
    float mean = 0.0f;
    if (!args.rms) mean = norm_detail::canonical_row_sum<L>(x, n, [](auto v) { return v; }) / count;
    const float variance = norm_detail::canonical_row_sum<L>(x, n,
                                                             [&](auto v) {
                                                               const auto d = v - decltype(v)(mean);
                                                               return d * d;
                                                             }) /
                           count;
    // The builtin, not std::sqrt: an out-of-line copy of a library inline would be shared by every path.
    const float inv = 1.0f / __builtin_sqrtf(variance + args.epsilon);
    if (args.bias != nullptr)
      norm_detail::normalize<L, true>(x, y, n, mean, inv, args.scale, args.bias);
    else
      norm_detail::normalize<L, false>(x, y, n, mean, inv, args.scale, nullptr);
    if (args.mean != nullptr) args.mean[r] = simd::canonicalize_nan<T>(mean);
    if (args.inv_std_dev != nullptr) args.inv_std_dev[r] = simd::canonicalize_nan<T>(inv);
  }
}

}  // namespace onemodel::inline ONEMODEL_KERNEL_NAMESPACE
