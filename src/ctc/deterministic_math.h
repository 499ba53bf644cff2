// The double-precision exp, ln and log-add of the CTC beam search (docs/ctc.md). Built from + - * /,
// comparisons, floor and exponent-field bit work only, each expression in the written order (the build keeps
// -ffp-contract=off), so every IEEE binary64 machine, JavaScript included (web/ctc.mjs), gets the same bits.
// Relative error stays below about 1e-15 where the search uses them.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace onemodel::ctc::detail {

inline constexpr double kNegInf = -__builtin_inf();

// 2^k for a k whose power is a normal double, written straight into the exponent field.
inline double pow2(int64_t k) {
  const uint64_t bits = static_cast<uint64_t>(k + 1023) << 52;
  double v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

// e^x: round x / ln2 to the nearest integer k, reduce with a two-part ln2, a degree-13 Taylor polynomial of
// the remainder, then scale by 2^k. Arguments at or below -700 (and NaN) give 0; above 700 they are clamped.
inline double exp(double x) {
  if (!(x > -700.0)) return 0.0;
  if (x > 700.0) x = 700.0;
  const double k = std::floor(x * 1.4426950408889634 + 0.5);
  const double r = (x - k * 6.93147180369123816490e-01) - k * 1.90821492927058770002e-10;
  // 1/n! for n = 13 down to 0; each quotient is correctly rounded at compile time.
  static constexpr double kCoefficients[] = {1.0 / 6227020800.0,
                                             1.0 / 479001600.0,
                                             1.0 / 39916800.0,
                                             1.0 / 3628800.0,
                                             1.0 / 362880.0,
                                             1.0 / 40320.0,
                                             1.0 / 5040.0,
                                             1.0 / 720.0,
                                             1.0 / 120.0,
                                             1.0 / 24.0,
                                             1.0 / 6.0,
                                             1.0 / 2.0,
                                             1.0,
                                             1.0};
  double p = kCoefficients[0];
  for (int n = 1; n < 14; ++n) p = p * r + kCoefficients[n];
  return p * pow2(static_cast<int64_t>(k));
}

// Natural log: x = m * 2^e with m in [sqrt(1/2), sqrt 2], then the atanh series in s = (m - 1) / (m + 1) up
// to s^19. ln 0 = -inf, ln(+inf) = +inf; negative arguments and NaN give NaN.
inline double ln(double x) {
  if (std::isnan(x) || x < 0.0) return __builtin_nan("");
  if (x == 0.0) return kNegInf;
  if (x == __builtin_inf()) return x;
  int64_t bias = 0;
  if (x < 2.2250738585072014e-308) {  // subnormal: make it normal first
    x = x * 18014398509481984.0;      // 2^54
    bias = -54;
  }
  uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  int64_t e = static_cast<int64_t>(bits >> 52) - 1023 + bias;
  const uint64_t mantissa_bits = (bits & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull;
  double m;
  std::memcpy(&m, &mantissa_bits, sizeof m);
  if (m > 1.4142135623730951) {
    m = m * 0.5;
    e = e + 1;
  }
  const double s = (m - 1.0) / (m + 1.0);
  const double z = s * s;
  // 1/(2j+1) for j = 9 down to 0.
  static constexpr double kCoefficients[] = {1.0 / 19.0, 1.0 / 17.0, 1.0 / 15.0, 1.0 / 13.0, 1.0 / 11.0,
                                             1.0 / 9.0,  1.0 / 7.0,  1.0 / 5.0,  1.0 / 3.0,  1.0};
  double q = kCoefficients[0];
  for (int j = 1; j < 10; ++j) q = q * z + kCoefficients[j];
  return static_cast<double>(e) * 0.6931471805599453 + 2.0 * s * q;
}

// ln(e^a + e^b) from the larger argument; a term more than 40 below the other is dropped.
inline double log_add(double a, double b) {
  if (a < b) {
    const double t = a;
    a = b;
    b = t;
  }
  if (b == kNegInf || b - a < -40.0) return a;
  return a + ln(1.0 + exp(b - a));
}

}  // namespace onemodel::ctc::detail
