// Vector binary16 / bfloat16 <-> binary32 conversions (fp16.md, tensors.md §10). Lane for lane the integer
// arithmetic of core/half.cc, so every path gives the scalar code's bits; one exception in form only: the
// binary16 subnormal rounding adds 0.5f instead of a per-lane variable shift (SSE4.1 and SIMD128 have none).
// Adding 0.5 to |x| < 2^-14 lands in [0.5, 1), whose ulp 2^-24 is the binary16 subnormal unit, and 0.5 is an
// even multiple of that unit, so the one round-to-nearest-even of the addition is the rounding of |x| to
// subnormal units, ties to even: the same result as the shift-and-round of the scalar code.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "kernels/simd.h"

namespace onemodel::inline ONEMODEL_KERNEL_NAMESPACE {
namespace half_detail {

inline int32_t pick(bool m, int32_t a, int32_t b) {
  return m ? a : b;
}
#if defined(ONEMODEL_SIMD_ARCH)
template <class A>
xsimd::batch<int32_t, A> pick(const xsimd::batch_bool<int32_t, A>& m, const xsimd::batch<int32_t, A>& a,
                              const xsimd::batch<int32_t, A>& b) {
  return xsimd::select(m, a, b);
}
#endif

// Integer lanes through a staging block of int32 (the compiler widens / narrows the 16-bit halves there).
template <class L>
struct HalfLanes {
  using I = typename L::I;
  static constexpr int w = L::width;
  static I load_u16(const uint16_t* p) {
    alignas(64) int32_t t[w];
    for (int j = 0; j < w; ++j) t[j] = p[j];
    if constexpr (w == 1)
      return t[0];
    else
      return I::load_aligned(t);
  }
  static void store_u16(uint16_t* p, I v) {
    alignas(64) int32_t t[w];
    if constexpr (w == 1)
      t[0] = v;
    else
      v.store_aligned(t);
    for (int j = 0; j < w; ++j) p[j] = static_cast<uint16_t>(t[j]);
  }
  static I k(int64_t x) { return L::splat_i(static_cast<int32_t>(static_cast<uint32_t>(x))); }
  // Logical right shift of the 32-bit pattern.
  static I srl(I v, int s) { return L::and_i(L::sra(v, s), k((uint32_t{1} << (32 - s)) - 1u)); }

  static I widen_f16(I h) {
    const I sign = L::shl(L::and_i(h, k(0x8000)), 16);
    const I exponent = L::and_i(L::sra(h, 10), k(0x1F));
    const I mantissa = L::and_i(h, k(0x3FF));
    const I normal = L::add_i(L::shl(L::and_i(h, k(0x7FFF)), 13), k(112u << 23));
    const I quiet = pick(mantissa != k(0), k(0x00400000), k(0));
    const I special = L::or_i(L::or_i(k(0x7F800000), L::shl(mantissa, 13)), quiet);
    // Zero or subnormal: mantissa * 2^-24, exact in binary32.
    const I tiny = L::as_int(L::to_float(mantissa) * L::as_float(k(0x33800000)));
    const I magnitude = pick(exponent == k(0), tiny, pick(exponent == k(0x1F), special, normal));
    return L::or_i(sign, magnitude);
  }

  static I narrow_f16(typename L::F f) {
    const I bits = L::as_int(f);
    const I sign = L::and_i(srl(bits, 16), k(0x8000));
    const I a = L::and_i(bits, k(0x7FFFFFFF));
    const I nan = L::or_i(k(0x7E00), L::and_i(L::sra(a, 13), k(0x1FF)));
    const I m = L::sub_i(a, k(112u << 23));
    const I normal = L::sra(L::add_i(L::add_i(m, k(0xFFF)), L::and_i(L::sra(m, 13), k(1))), 13);
    const I sub = L::sub_i(L::as_int(L::as_float(a) + L::as_float(k(0x3F000000))), k(0x3F000000));
    I r = pick(a <= k(0x33000000), k(0), sub);
    r = pick(a >= k(0x38800000), normal, r);
    r = pick(a >= k(0x477FF000), k(0x7C00), r);
    r = pick(a > k(0x7F800000), nan, r);
    return L::or_i(sign, r);
  }

  static I widen_bf16(I b) {
    const I bits = L::shl(b, 16);
    const auto nan = L::and_i(bits, k(0x7FFFFFFF)) > k(0x7F800000);
    return pick(nan, L::or_i(bits, k(0x00400000)), bits);
  }

  static I narrow_bf16(typename L::F f) {
    const I bits = L::as_int(f);
    const I nan = L::or_i(srl(bits, 16), k(0x40));
    const I rounded = srl(L::add_i(L::add_i(bits, k(0x7FFF)), L::and_i(srl(bits, 16), k(1))), 16);
    return pick(L::and_i(bits, k(0x7FFFFFFF)) > k(0x7F800000), nan, rounded);
  }
};

}  // namespace half_detail

// The four bulk conversions; the tail runs the same code on one lane.
template <class L>
void f16_to_f32_kernel(const uint16_t* src, float* dst, size_t n) {
  using H = half_detail::HalfLanes<L>;
  using T = half_detail::HalfLanes<typename L::Tail>;
  size_t i = 0;
  for (; i + L::width <= n; i += L::width) L::store(dst + i, L::as_float(H::widen_f16(H::load_u16(src + i))));
  for (; i < n; ++i) L::Tail::store(dst + i, L::Tail::as_float(T::widen_f16(T::load_u16(src + i))));
}

template <class L>
void f32_to_f16_kernel(const float* src, uint16_t* dst, size_t n) {
  using H = half_detail::HalfLanes<L>;
  using T = half_detail::HalfLanes<typename L::Tail>;
  size_t i = 0;
  for (; i + L::width <= n; i += L::width) H::store_u16(dst + i, H::narrow_f16(L::load(src + i)));
  for (; i < n; ++i) T::store_u16(dst + i, T::narrow_f16(L::Tail::load(src + i)));
}

template <class L>
void bf16_to_f32_kernel(const uint16_t* src, float* dst, size_t n) {
  using H = half_detail::HalfLanes<L>;
  using T = half_detail::HalfLanes<typename L::Tail>;
  size_t i = 0;
  for (; i + L::width <= n; i += L::width)
    L::store(dst + i, L::as_float(H::widen_bf16(H::load_u16(src + i))));
  for (; i < n; ++i) L::Tail::store(dst + i, L::Tail::as_float(T::widen_bf16(T::load_u16(src + i))));
}

template <class L>
void f32_to_bf16_kernel(const float* src, uint16_t* dst, size_t n) {
  using H = half_detail::HalfLanes<L>;
  using T = half_detail::HalfLanes<typename L::Tail>;
  size_t i = 0;
  for (; i + L::width <= n; i += L::width) H::store_u16(dst + i, H::narrow_bf16(L::load(src + i)));
  for (; i < n; ++i) T::store_u16(dst + i, T::narrow_bf16(L::Tail::load(src + i)));
}

}  // namespace onemodel::inline ONEMODEL_KERNEL_NAMESPACE
