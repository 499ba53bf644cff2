// The seven fp32 transcendental functions of exact-transcendentals.md, written once over a lanes type `L`
// (kernels/simd.h) and instantiated for every kernel path and for the one-lane tails.
//
// kFast = false is the exact flavour: each expression runs in the order the spec writes it, one IEEE rounding
// per operator (the build uses -ffp-contract=off, and nothing here calls L::fma), Horner from the highest
// coefficient, special inputs chosen by comparisons at the very end, every NaN canonical. That makes the bits
// independent of the lane width, the CPU and the compiler.
//
// kFast = true is the fast flavour, as the spec measures it: the Horner steps `c + acc*x` fuse through L::fma
// (unfused on paths without FMA), and exp() itself becomes the spec's fast exponential (shorter polynomial,
// fused reduction). The exponentials inside sigmoid, tanh and erf stay exact, so fast sigmoid and fast
// tanh-form GELU equal the exact ones, and fast tanh, erf and erf-form GELU differ only through their
// polynomials. With FMA this reproduces every fast row of the spec's error table. Fast results are
// deterministic per path only.
#pragma once

#include <cstdint>

#include "kernels/simd.h"

namespace onemodel::inline ONEMODEL_KERNEL_NAMESPACE::math {

namespace detail {

// Round-to-integer shifter 1.5 * 2^23 and its bit pattern.
inline constexpr float kShifter = 12582912.0f;
inline constexpr int32_t kShifterBits = 0x4B400000;
inline constexpr float kLog2E = 1.44269502f;
// ln 2 split so that n * kLn2Hi is exact for |n| < 256.
inline constexpr float kLn2Hi = 0.693145751953125f;
inline constexpr float kLn2Lo = 1.4286068e-6f;
inline constexpr int32_t kSignBit = static_cast<int32_t>(0x80000000u);
inline constexpr float kInf = __builtin_inff();

// Horner's rule from the highest coefficient: ((c[0]*x + c[1])*x + c[2]) ... + c[N-1]. Each `c + acc*x` step
// is two roundings in the exact flavour and one fused operation in the fast flavour.
template <class L, bool kFast, int N>
inline typename L::F horner(typename L::F x, const float (&c)[N]) {
  typename L::F acc = L::splat(c[0]);
  for (int i = 1; i < N; ++i) {
    if constexpr (kFast)
      acc = L::fma(acc, x, L::splat(c[i]));
    else
      acc = acc * x + c[i];
  }
  return acc;
}

template <class L>
inline typename L::F abs_bits(typename L::F x) {
  return L::as_float(L::and_i(L::as_int(x), L::splat_i(0x7FFFFFFF)));
}

// v with the sign bit of `signed_src` OR-ed in.
template <class L>
inline typename L::F or_sign(typename L::F v, typename L::F signed_src) {
  return L::as_float(L::or_i(L::as_int(v), L::and_i(L::as_int(signed_src), L::splat_i(kSignBit))));
}

// 2^k for k in [-126, 127], built in the exponent field.
template <class L>
inline typename L::F pow2(typename L::I k) {
  return L::as_float(L::shl(L::add_i(k, L::splat_i(127)), 23));
}

// The canonical NaN wherever the input or the result is NaN, else the result.
template <class L>
inline typename L::F nan_guard(typename L::F x, typename L::F result) {
  const typename L::M any_nan = L::mask_or(L::is_nan(x), L::is_nan(result));
  return L::select(any_nan, L::as_float(L::splat_i(static_cast<int32_t>(simd::kCanonicalNaN))), result);
}

// exp(x) = p * 2^n before the final scaling; n is exact, |r| <= ln2/2.
template <class L>
struct Reduced {
  typename L::F p;
  typename L::I n;
};

template <class L, bool kFast>
inline Reduced<L> exp_reduce(typename L::F x) {
  using F = typename L::F;
  if constexpr (!kFast) {
    const F t = x * kLog2E + kShifter;
    const F n = t - kShifter;
    const F r = (x - n * kLn2Hi) - n * kLn2Lo;
    static constexpr float kQ[] = {0.0013814613f, 0.00836871f, 0.04166839f, 0.16666521f, 0.49999994f};
    const F q = horner<L, false>(r, kQ);
    const F p = 1.0f + (r + (r * r) * q);
    return {p, L::sub_i(L::as_int(t), L::splat_i(kShifterBits))};
  } else {
    // The spec's fast exponential: fused reduction and a degree-3 polynomial.
    const F t = L::fma(x, L::splat(kLog2E), L::splat(kShifter));
    const F n = t - kShifter;
    const F r = L::fma(n, L::splat(-kLn2Lo), L::fma(n, L::splat(-kLn2Hi), x));
    static constexpr float kQ[] = {0.008312525f, 0.041890115f, 0.16667114f, 0.4999923f};
    const F q = horner<L, true>(r, kQ);
    const F p = 1.0f + L::fma(r * r, q, r);
    return {p, L::sub_i(L::as_int(t), L::splat_i(kShifterBits))};
  }
}

}  // namespace detail

// e^x over the whole fp32 range (subnormal results round once, thanks to the split 2^a * 2^b scaling). The
// fast flavour swaps in the fast exponential's reduction and polynomial but keeps this range handling, so
// exp(88.5) is still finite and exp(89) still +inf. kCanonicalNaN = false leaves a NaN's payload as it comes,
// for a caller that makes its own result's NaN canonical (only the payload differs, so the caller's bits do
// not). kAtMostZero = true is for a caller whose x is never above 0 (or NaN): the overflow test can never
// pass there, so it is left out.
template <class L, bool kFast = false, bool kCanonicalNaN = true, bool kAtMostZero = false>
inline typename L::F exp(typename L::F x) {
  using F = typename L::F;
  const detail::Reduced<L> red = detail::exp_reduce<L, kFast>(x);
  const typename L::I a = L::sra(red.n, 1);
  const typename L::I b = L::sub_i(red.n, a);
  F result = (red.p * detail::pow2<L>(a)) * detail::pow2<L>(b);
  if constexpr (!kAtMostZero) result = L::select(x > 88.72283172607422f, L::splat(detail::kInf), result);
  result = L::zero_where(x < -103.97207641601562f, result);
  if constexpr (kCanonicalNaN)
    return detail::nan_guard<L>(x, result);
  else
    return result;
}

// e^x for x <= 0 (or NaN), as softmax and attention use it: one scaling, and +0 instead of subnormal results.
// Exact: equal to exp() bit for bit on [-87.33654, 0]. Fast: the spec's fast exponential, clamp included.
template <class L, bool kFast = false>
inline typename L::F exp_non_positive(typename L::F x) {
  using F = typename L::F;
  if constexpr (!kFast) {
    const detail::Reduced<L> red = detail::exp_reduce<L, false>(x);
    F result = red.p * detail::pow2<L>(red.n);
    result = L::zero_where(x < -87.33654f, result);
    return detail::nan_guard<L>(x, result);
  } else {
    const F clamped = L::lower_to(L::raise_to(x, L::splat(-87.3f)), L::splat(88.3f));
    const detail::Reduced<L> red = detail::exp_reduce<L, true>(clamped);
    F result = red.p * detail::pow2<L>(red.n);
    result = L::zero_where(x < -87.3f, result);
    return detail::nan_guard<L>(x, result);
  }
}

// Natural logarithm, subnormal inputs included.
template <class L, bool kFast = false>
inline typename L::F log(typename L::F x) {
  using F = typename L::F;
  using I = typename L::I;
  const typename L::M subnormal = x < 1.17549435e-38f;
  const F xs = L::select(subnormal, x * 16777216.0f, x);
  // Split xs = 2^e * m with m in [sqrt(1/2), sqrt(2)).
  const I ix = L::sub_i(L::as_int(xs), L::splat_i(0x3F3504F3));
  const I e = L::sra(ix, 23);
  const F m = L::as_float(L::add_i(L::and_i(ix, L::splat_i(0x007FFFFF)), L::splat_i(0x3F3504F3)));
  const F e_float = L::as_float(L::add_i(e, L::splat_i(detail::kShifterBits))) - detail::kShifter;
  const F ef = e_float - L::select(subnormal, L::splat(24.0f), L::splat(0.0f));

  const F f = m - 1.0f;
  const F s = f / (2.0f + f);
  const F z = s * s;
  static constexpr float kW[] = {0.0909090936f, 0.111111112f, 0.142857149f, 0.200000003f, 0.333333343f};
  const F w = detail::horner<L, kFast>(z, kW);
  const F s2 = s + s;
  const F log_m = s2 + s2 * (z * w);
  F result = ef * detail::kLn2Hi + (log_m + ef * detail::kLn2Lo);

  result = L::select(x > 3.40282347e38f, L::splat(detail::kInf), result);
  result = L::select(x < 0.0f, L::as_float(L::splat_i(static_cast<int32_t>(simd::kCanonicalNaN))), result);
  result = L::select(x == 0.0f, L::splat(-detail::kInf), result);
  return detail::nan_guard<L>(x, result);
}

// 1 / (1 + e^-x), through e^-|x| so that nothing overflows. It has no polynomial of its own: both flavours
// are the same.
template <class L, bool kFast = false>
inline typename L::F sigmoid(typename L::F x) {
  using F = typename L::F;
  const F s = onemodel::math::exp<L>(0.0f - detail::abs_bits<L>(x));
  const F num = L::select(x >= 0.0f, L::splat(1.0f), s);
  return detail::nan_guard<L>(x, num / (1.0f + s));
}

template <class L, bool kFast = false>
inline typename L::F tanh(typename L::F x) {
  using F = typename L::F;
  const F ax = detail::abs_bits<L>(x);
  const F z = ax * ax;
  static constexpr float kP[] = {-0.0058951583f, 0.020795971f, -0.05378383f, 0.13331924f, -0.333333f};
  const F p = detail::horner<L, kFast>(z, kP);
  const F small = ax + ax * (z * p);
  const F e = onemodel::math::exp<L>(ax + ax);
  const F large = 1.0f - 2.0f / (e + 1.0f);
  const F result = detail::or_sign<L>(L::select(ax < 0.6f, small, large), x);
  return detail::nan_guard<L>(x, result);
}

// Which of erf's two formulas a lane takes: |x| < 0.5 the odd polynomial, otherwise the erfc form.
enum class ErfBranch {
  Both,   // each lane picks its own (the general case)
  Small,  // every lane has |x| < 0.5
  Large,  // no lane has |x| < 0.5 (NaN included)
};

namespace detail {

// Shared by erf and its `1 + erf` variant; kOnePlus picks which one is returned. kCanonicalNaN as for exp.
// kBranch other than Both computes only that formula, for lanes a caller has already sorted by it: each lane
// gets the value the selection below would have given it.
template <class L, bool kFast, bool kOnePlus, bool kCanonicalNaN = true, ErfBranch kBranch = ErfBranch::Both>
inline typename L::F erf_impl(typename L::F x) {
  using F = typename L::F;
  const F ax = abs_bits<L>(x);
  const F z = ax * ax;

  // |x| < 0.5: odd polynomial.
  F erf_small = L::splat(0.0f);
  if constexpr (kBranch != ErfBranch::Large) {
    static constexpr float kP[] = {-0.0007692853f, 0.0052003083f, -0.02686312f,
                                   0.11283774f,    -0.37612638f,  1.1283792f};
    erf_small = ax * horner<L, kFast>(z, kP);
  }
  // The result of either formula, its NaN made canonical if asked (or_sign is bitwise, so applying it to each
  // formula before the selection gives the bits of applying it after).
  const auto finish = [&x](F result) {
    if constexpr (kCanonicalNaN)
      return nan_guard<L>(x, result);
    else
      return result;
  };
  const auto small_result = [&] {
    const F signed_erf = or_sign<L>(erf_small, x);
    if constexpr (kOnePlus)
      return F(1.0f + signed_erf);
    else
      return signed_erf;
  };
  if constexpr (kBranch == ErfBranch::Small) return finish(small_result());

  // |x| >= 0.5: erfc = e^(-x^2) * (1/|x|) * G(1/|x| - 1), with x^2 carried as z + z_lo so e^(-x^2) keeps its
  // accuracy.
  const F t = 1.0f / ax;
  const F s = t - 1.0f;
  static constexpr float kG[] = {
      -0.00057763467f, 0.0017893383f,  -0.00010074016f, -0.004373198f, 0.0034639547f,  0.0015023724f,
      -0.0009413088f,  -0.0018891813f, -0.0002586738f,  0.0052144383f, -0.0103428485f, 0.015788378f,
      -0.018338649f,   0.008167262f,   0.035529688f,    -0.1543716f,   0.42758358f};
  const F g = horner<L, kFast>(s, kG);
  F z_lo;
  if constexpr (kFast && L::has_fma) {
    // One fused multiply-add gives the same z_lo as the split below: for 0.5 <= ax < 64, where z_lo is used,
    // both are the exact error x*x - z (checked for every float there), so the bits do not change.
    z_lo = L::fma(ax, ax, 0.0f - z);
  } else {
    const F split = ax * 4097.0f;
    const F hi = split - (split - ax);
    const F lo = ax - hi;
    z_lo = ((hi * hi - z) + 2.0f * (hi * lo)) + lo * lo;
  }
  z_lo = L::zero_where(ax >= 64.0f, z_lo);
  const F exp_neg_z = onemodel::math::exp<L, false, kCanonicalNaN, true>(0.0f - z) * (1.0f - z_lo);
  const F erfc = exp_neg_z * (t * g);

  F large;
  if constexpr (kOnePlus)
    large = L::select(x < 0.0f, erfc, 2.0f - erfc);
  else
    large = or_sign<L>(1.0f - erfc, x);
  if constexpr (kBranch == ErfBranch::Large)
    return finish(large);
  else
    return finish(L::select(ax < 0.5f, small_result(), large));
}

// GELU limits shared by both forms: gelu(-inf) = -0, gelu(+inf) = +inf, NaN canonical.
template <class L>
inline typename L::F gelu_specials(typename L::F x, typename L::F result) {
  result = L::select(x == -kInf, L::as_float(L::splat_i(kSignBit)), result);
  result = L::select(x == kInf, L::splat(kInf), result);
  return nan_guard<L>(x, result);
}

}  // namespace detail

template <class L, bool kFast = false>
inline typename L::F erf(typename L::F x) {
  return detail::erf_impl<L, kFast, false>(x);
}

// 1 + erf(x) without cancellation for negative x (it is erfc(-x) there). kCanonicalNaN as for exp, kBranch as
// for detail::erf_impl.
template <class L, bool kFast = false, bool kCanonicalNaN = true, ErfBranch kBranch = ErfBranch::Both>
inline typename L::F one_plus_erf(typename L::F x) {
  return detail::erf_impl<L, kFast, true, kCanonicalNaN, kBranch>(x);
}

// Whether gelu_erf's erf takes its small-argument formula for x (the lanes of ErfBranch::Small).
template <class L>
inline typename L::M gelu_erf_small_branch(typename L::F x) {
  return detail::abs_bits<L>(x * 0.70710677f) < 0.5f;
}

// x * Phi(x) = 0.5x * (1 + erf(x / sqrt 2)). Only the last step makes NaN canonical: the mask work of guards
// in exp and erf too was a large share of the time, and a NaN they would have rewritten reaches the result as
// a NaN or not at all (a select drops it), so the bits are the same. kBranch as for detail::erf_impl (see
// gelu_erf_small_branch).
template <class L, bool kFast = false, ErfBranch kBranch = ErfBranch::Both>
inline typename L::F gelu_erf(typename L::F x) {
  using F = typename L::F;
  const F y = x * 0.70710677f;
  const F result = (0.5f * x) * one_plus_erf<L, kFast, false, kBranch>(y);
  return detail::gelu_specials<L>(x, result);
}

// 0.5x * (1 + tanh u) with u = sqrt(2/pi) (x + 0.044715 x^3), evaluated as x * sigmoid(2u).
template <class L, bool kFast = false>
inline typename L::F gelu_tanh(typename L::F x) {
  using F = typename L::F;
  const F cube = (x * x) * x;
  const F u = 0.79788456f * (x + 0.044715f * cube);
  const F result = x * sigmoid<L, kFast>(u + u);
  return detail::gelu_specials<L>(x, result);
}

}  // namespace onemodel::inline ONEMODEL_KERNEL_NAMESPACE::math
