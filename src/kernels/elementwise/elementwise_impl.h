// Float32 element-wise kernels (ops-elementwise.md arithmetic, Clip, BatchNormalization's per-channel
// affine), templates over a lanes type instantiated once per kernel path by paths/instantiate.inc. Every
// result is one or two IEEE operations or selects on one element, so each lane computes exactly what a scalar
// loop would and every path gives the same bits. Full vectors first, then the path's one-lane `L::Tail`
// running the same code.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/elementwise/chain_kernels.h"
#include "kernels/kernel_table.h"
#include "kernels/simd.h"

namespace onemodel::inline ONEMODEL_KERNEL_NAMESPACE {

namespace elementwise_detail {

// The element operations, on any lanes type.
template <class L, BinaryFn kOp>
inline typename L::F binary_value(typename L::F a, typename L::F b) {
  if constexpr (kOp == BinaryFn::Add)
    return a + b;
  else if constexpr (kOp == BinaryFn::Sub)
    return a - b;
  else if constexpr (kOp == BinaryFn::Mul)
    return a * b;
  else
    return a / b;
}

// Clip's order: raise to lo, then lower to hi (hi wins when lo > hi); NaN fails both compares and passes.
template <class L>
inline typename L::F clamp_value(typename L::F v, typename L::F lo, typename L::F hi) {
  v = L::select(v < lo, lo, v);
  return L::select(v > hi, hi, v);
}

template <class L, bool kExact>
inline void store_result(float* p, typename L::F v) {
  if constexpr (kExact) v = simd::canonicalize_nan<L>(v);
  L::store(p, v);
}

// One operand of a binary loop: advancing (loaded per element) or repeating (read once, before any store, so
// the loop keeps it in a register).
template <class L, bool kAdvances>
struct Operand {
  const float* p;
  typename L::F repeated;
  explicit Operand(const float* at) : p(at), repeated(kAdvances ? L::splat(0.0f) : L::splat(*at)) {}
  typename L::F at(size_t i) const {
    if constexpr (kAdvances)
      return L::load(p + i);
    else
      return repeated;
  }
};

template <class L, BinaryFn kOp, bool kExact, bool kA, bool kB>
void binary_loop(const float* a, const float* b, float* y, size_t n) {
  using T = typename L::Tail;
  if (n == 0) return;  // a repeating operand is read before the loop
  const Operand<L, kA> va(a);
  const Operand<L, kB> vb(b);
  const Operand<T, kA> ta(a);
  const Operand<T, kB> tb(b);
  size_t i = 0;
  for (; i + L::width <= n; i += L::width)
    store_result<L, kExact>(y + i, binary_value<L, kOp>(va.at(i), vb.at(i)));
  for (; i < n; ++i) store_result<T, kExact>(y + i, binary_value<T, kOp>(ta.at(i), tb.at(i)));
}

template <class L, BinaryFn kOp, bool kExact>
void binary_steps(const float* a, int64_t step_a, const float* b, int64_t step_b, float* y, size_t n) {
  if (step_a && step_b)
    binary_loop<L, kOp, kExact, true, true>(a, b, y, n);
  else if (step_a)
    binary_loop<L, kOp, kExact, true, false>(a, b, y, n);
  else if (step_b)
    binary_loop<L, kOp, kExact, false, true>(a, b, y, n);
  else
    binary_loop<L, kOp, kExact, false, false>(a, b, y, n);
}

template <class L, BinaryFn kOp>
void binary_flavour(bool exact, const float* a, int64_t step_a, const float* b, int64_t step_b, float* y,
                    size_t n) {
  if (exact)
    binary_steps<L, kOp, true>(a, step_a, b, step_b, y, n);
  else
    binary_steps<L, kOp, false>(a, step_a, b, step_b, y, n);
}

template <class L, bool kExact>
void clamp_loop(const float* x, float lo, float hi, float* y, size_t n) {
  using T = typename L::Tail;
  size_t i = 0;
  for (; i + L::width <= n; i += L::width)
    store_result<L, kExact>(y + i, clamp_value<L>(L::load(x + i), L::splat(lo), L::splat(hi)));
  for (; i < n; ++i)
    store_result<T, kExact>(y + i, clamp_value<T>(T::load(x + i), T::splat(lo), T::splat(hi)));
}

template <class L, bool kExact>
void affine_loop(const float* x, float scale, float shift, float* y, size_t n) {
  using T = typename L::Tail;
  size_t i = 0;
  for (; i + L::width <= n; i += L::width)
    store_result<L, kExact>(y + i, L::load(x + i) * L::splat(scale) + L::splat(shift));
  for (; i < n; ++i) store_result<T, kExact>(y + i, T::load(x + i) * T::splat(scale) + T::splat(shift));
}

// The written-out hard-swish of ChainKernels on one vector: the Add, Clip, Mul and Div of the operators, each
// rounded, the Div last or before the Mul.
template <class L, bool kDivLast>
inline typename L::F hard_swish_value(typename L::F x, typename L::F c, typename L::F lo, typename L::F hi,
                                      typename L::F d) {
  const typename L::F t = clamp_value<L>(x + c, lo, hi);
  if constexpr (kDivLast)
    return x * t / d;
  else
    return x * (t / d);
}

template <class L, bool kExact, bool kDivLast>
void hard_swish_loop(const float* x, float c, float lo, float hi, float d, float* y, size_t n) {
  using T = typename L::Tail;
  size_t i = 0;
  for (; i + L::width <= n; i += L::width) {
    store_result<L, kExact>(y + i, hard_swish_value<L, kDivLast>(L::load(x + i), L::splat(c), L::splat(lo),
                                                                 L::splat(hi), L::splat(d)));
  }
  for (; i < n; ++i) {
    store_result<T, kExact>(y + i, hard_swish_value<T, kDivLast>(T::load(x + i), T::splat(c), T::splat(lo),
                                                                 T::splat(hi), T::splat(d)));
  }
}

}  // namespace elementwise_detail

template <class L>
void binary_kernel(BinaryFn fn, bool exact, const float* a, int64_t step_a, const float* b, int64_t step_b,
                   float* y, size_t n) {
  using namespace elementwise_detail;
  switch (fn) {
    case BinaryFn::Add:
      return binary_flavour<L, BinaryFn::Add>(exact, a, step_a, b, step_b, y, n);
    case BinaryFn::Sub:
      return binary_flavour<L, BinaryFn::Sub>(exact, a, step_a, b, step_b, y, n);
    case BinaryFn::Mul:
      return binary_flavour<L, BinaryFn::Mul>(exact, a, step_a, b, step_b, y, n);
    case BinaryFn::Div:
      return binary_flavour<L, BinaryFn::Div>(exact, a, step_a, b, step_b, y, n);
  }
}

template <class L>
void clamp_kernel(bool exact, const float* x, float lo, float hi, float* y, size_t n) {
  if (exact)
    elementwise_detail::clamp_loop<L, true>(x, lo, hi, y, n);
  else
    elementwise_detail::clamp_loop<L, false>(x, lo, hi, y, n);
}

template <class L>
void affine_kernel(bool exact, const float* x, float scale, float shift, float* y, size_t n) {
  if (exact)
    elementwise_detail::affine_loop<L, true>(x, scale, shift, y, n);
  else
    elementwise_detail::affine_loop<L, false>(x, scale, shift, y, n);
}

template <class L>
void hard_swish_kernel(bool div_last, bool exact, const float* x, float c, float lo, float hi, float d,
                       float* y, size_t n) {
  using namespace elementwise_detail;
  if (exact)
    (div_last ? hard_swish_loop<L, true, true> : hard_swish_loop<L, true, false>)(x, c, lo, hi, d, y, n);
  else
    (div_last ? hard_swish_loop<L, false, true> : hard_swish_loop<L, false, false>)(x, c, lo, hi, d, y, n);
}

}  // namespace onemodel::inline ONEMODEL_KERNEL_NAMESPACE
