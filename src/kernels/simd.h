// Lane layer shared by every kernel family. A kernel is a template over `L` (a Lanes<> instantiation) and is
// written once; src/kernels/<family>/paths/<path>.cc instantiates it with that path's lanes, and every kernel
// also instantiates it with ScalarLanes for tails, so an element's result never depends on its position.
//
// Plain operators (+ - * /) on L::F are single IEEE operations: every target builds with -ffp-contract=off,
// so `a * b + c` is two roundings. Only L::fma fuses, and exact kernels never call it.
#pragma once

// Each kernel path compiles these headers with its own ISA flags. Everything they define lives in an inline
// namespace named after the path (CMake sets it for src/kernels/paths/<path>.cc), so every inline function
// and template instance gets a path-specific symbol: the linker can never hand the avx2 path a copy compiled
// for AVX-512.
#ifndef ONEMODEL_KERNEL_NAMESPACE
#define ONEMODEL_KERNEL_NAMESPACE generic
#endif

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#if defined(ONEMODEL_SIMD_ARCH)
#include <xsimd/xsimd.hpp>

#if defined(__aarch64__)
// xsimd 8.1 divides float lanes on NEON by a reciprocal estimate refined with Newton steps, which is not the
// correctly rounded quotient exact mode needs. AArch64 has a true vector divide; every `a / b` on these lanes
// goes through it.
namespace xsimd {
template <>
inline batch<float, neon64>& batch<float, neon64>::operator/=(const batch<float, neon64>& other) noexcept {
  *this = vdivq_f32(*this, other);
  return *this;
}
}  // namespace xsimd
#endif
#endif

namespace onemodel::inline ONEMODEL_KERNEL_NAMESPACE::simd {

// Kept here rather than taken from core/bits.h: inside the per-path namespace these are path-private copies,
// so no inline function is shared between objects compiled with different ISA flags.
inline float bits_to_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline uint32_t float_to_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline constexpr uint32_t kCanonicalNaN = 0x7FC00000u;

// One lane: the scalar path (kFma = false), and the tail of every vector kernel (kFma as the vector lanes, so
// a fast kernel fuses in the tail exactly where it fuses in the body; std::fma compiles to one instruction in
// FMA paths).
template <bool kFma = false>
struct ScalarLanes {
  using F = float;
  using I = int32_t;
  using M = bool;
  static constexpr int width = 1;
  static constexpr bool has_fma = kFma;

  static F load(const float* p) { return *p; }
  static void store(float* p, F v) { *p = v; }
  static F splat(float x) { return x; }
  static I splat_i(int32_t x) { return x; }
  // Fast mode's a*b+c: fused where the path has FMA.
  static F fma(F a, F b, F c) {
    if constexpr (kFma)
      return std::fma(a, b, c);
    else
      return a * b + c;
  }
  static F select(M m, F a, F b) { return m ? a : b; }
  static I select_i(M m, I a, I b) { return m ? a : b; }
  // select(x < floor, floor, x), select(x > ceiling, ceiling, x) and select(m, +0, x), bit for bit (a NaN x
  // fails the comparison and stays); the vector lanes have cheaper instructions for them.
  static F raise_to(F x, F floor) { return x < floor ? floor : x; }
  static F lower_to(F x, F ceiling) { return x > ceiling ? ceiling : x; }
  static F zero_where(M m, F x) { return m ? 0.0f : x; }
  static I as_int(F v) { return static_cast<int32_t>(float_to_bits(v)); }
  static F as_float(I v) { return bits_to_float(static_cast<uint32_t>(v)); }
  static F to_float(I v) { return static_cast<float>(v); }
  static I shl(I v, int s) { return static_cast<int32_t>(static_cast<uint32_t>(v) << s); }
  static I sra(I v, int s) { return v >> s; }
  static I add_i(I a, I b) {
    return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
  }
  static I sub_i(I a, I b) {
    return static_cast<int32_t>(static_cast<uint32_t>(a) - static_cast<uint32_t>(b));
  }
  static I and_i(I a, I b) { return a & b; }
  static I or_i(I a, I b) { return a | b; }
  static M is_nan(F v) { return v != v; }
  static M mask_and(M a, M b) { return a && b; }
  static M mask_or(M a, M b) { return a || b; }
  static bool any(M m) { return m; }
  using Tail = ScalarLanes<kFma>;
};

#if defined(ONEMODEL_SIMD_ARCH)
// Lanes of one xsimd architecture (sse4_1 also serves wasm SIMD128 through Emscripten's SSE headers).
template <class Arch, bool kFma>
struct XsimdLanes {
  using F = xsimd::batch<float, Arch>;
  using I = xsimd::batch<int32_t, Arch>;
  using M = xsimd::batch_bool<float, Arch>;
  static constexpr int width = static_cast<int>(F::size);
  static constexpr bool has_fma = kFma;

  static F load(const float* p) { return F::load_unaligned(p); }
  static void store(float* p, F v) { v.store_unaligned(p); }
  static F splat(float x) { return F(x); }
  static I splat_i(int32_t x) { return I(x); }
  static F fma(F a, F b, F c) {
    if constexpr (!kFma) return a * b + c;
#if defined(__AVX512F__)
    // xsimd 8.1 has no AVX-512 fma kernel: its generic fallback is a*b+c, which -ffp-contract=off keeps
    // unfused.
    else if constexpr (std::is_base_of_v<xsimd::avx512f, Arch>)
      return _mm512_fmadd_ps(a, b, c);
#endif
    else
      return xsimd::fma(a, b, c);
  }
  static F select(M m, F a, F b) {
    return xsimd::select(m, a, b);
  }
  static I select_i(M m, I a, I b) {
    return xsimd::select(xsimd::bool_cast(m), a, b);
  }
  // As ScalarLanes. x86's maxps(a, b) is a > b ? a : b and minps(a, b) a < b ? a : b (the second operand when
  // either is NaN), wasm's f32x4.pmax(a, b) is a < b ? b : a and pmin(a, b) b < a ? b : a: each is exactly
  // one of these selects. Emscripten maps the SSE selects and _mm_max_ps to compares and bit blends, three
  // instructions each in V8, hence wasm's own intrinsics.
#if defined(__wasm_simd128__)
  template <class V>
  static v128_t wasm_bits(const V& v) {
    return static_cast<v128_t>(static_cast<__m128>(v));
  }
#endif
  static F raise_to(F x, F floor) {
    return bounded<true>(x, floor);
  }
  static F lower_to(F x, F ceiling) {
    return bounded<false>(x, ceiling);
  }
  // raise_to (kRaise) or lower_to: the bound's max or min with x, in that operand order on x86.
  template <bool kRaise>
  static F bounded(F x, F bound) {
#if defined(__wasm_simd128__)
    const v128_t a = wasm_bits(x), b = wasm_bits(bound);
    return F(static_cast<__m128>(kRaise ? wasm_f32x4_pmax(a, b) : wasm_f32x4_pmin(a, b)));
#elif defined(__AVX512F__)
    if constexpr (std::is_base_of_v<xsimd::avx512f, Arch>)
      return F(kRaise ? _mm512_max_ps(bound, x) : _mm512_min_ps(bound, x));
#elif defined(__SSE2__)
    if constexpr (std::is_base_of_v<xsimd::avx, Arch>)
      return F(kRaise ? _mm256_max_ps(bound, x) : _mm256_min_ps(bound, x));
    else if constexpr (std::is_base_of_v<xsimd::sse2, Arch>)
      return F(kRaise ? _mm_max_ps(bound, x) : _mm_min_ps(bound, x));
#endif
#if !defined(__wasm_simd128__)
    return kRaise ? select(x < bound, bound, x) : select(x > bound, bound, x);
#endif
  }
  static F zero_where(M m, F x) {
#if defined(__wasm_simd128__)
    return F(static_cast<__m128>(wasm_v128_andnot(wasm_bits(x), wasm_bits(m))));
#else
    return select(m, F(0.0f), x);
#endif
  }
  static I as_int(F v) {
    return xsimd::bitwise_cast<I>(v);
  }
  static F as_float(I v) {
    return xsimd::bitwise_cast<F>(v);
  }
  static F to_float(I v) {
    return xsimd::batch_cast<float>(v);
  }
  static I shl(I v, int s) {
    return v << s;
  }
  static I sra(I v, int s) {
    return v >> s;
  }
  static I add_i(I a, I b) {
    return a + b;
  }
  static I sub_i(I a, I b) {
    return a - b;
  }
  static I and_i(I a, I b) {
    return a & b;
  }
  static I or_i(I a, I b) {
    return a | b;
  }
  // Not `v != v`: xsimd 8.1's AVX and AVX-512 `!=` is the ordered compare, false for NaN.
  static M is_nan(F v) {
    return xsimd::isnan(v);
  }
  static M mask_and(M a, M b) {
    return a && b;
  }
  static M mask_or(M a, M b) {
    return a || b;
  }
  static bool any(M m) {
    return xsimd::any(m);
  }
  using Tail = ScalarLanes<kFma>;
};
#endif

// Shared helpers written once over any lanes type.
template <class L>
inline typename L::F canonicalize_nan(typename L::F v) {
  return L::select(L::is_nan(v), L::as_float(L::splat_i(static_cast<int32_t>(kCanonicalNaN))), v);
}

}  // namespace onemodel::inline ONEMODEL_KERNEL_NAMESPACE::simd
