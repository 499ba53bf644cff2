// Exact signed integers of magnitude below 2^512 for the bounds pass (wai-ops/1 §8.1), and the saturating
// arithmetic that pass performs on them. Every operand the pass forms lies in [-2^255, 2^255], so a product
// fits 511 bits and a sum 257 bits: 512 bits hold every exact result before it is saturated.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "wai/arith.h"

namespace onemodel::wai {

class Wide {
 public:
  Wide() = default;
  Wide(int64_t v);  // NOLINT: integers convert implicitly, as in the text's formulas
  static Wide from_u64(uint64_t v);
  static Wide from_i128(i128 v);
  static Wide pow2(int k);  // 0 <= k <= 510

  bool negative() const { return neg_; }
  bool is_zero() const;
  // The number of significant bits of |v| (0 for 0).
  int magnitude_bits() const;
  // bits([v, v]) of §2: the smallest N >= 1 such that v fits iN.
  int bits() const;
  // v clamped into the i128 range (exact when v fits i128).
  i128 clamp_i128() const;
  std::string to_decimal() const;

  friend int compare(const Wide& a, const Wide& b);
  friend bool operator<(const Wide& a, const Wide& b) { return compare(a, b) < 0; }
  friend bool operator<=(const Wide& a, const Wide& b) { return compare(a, b) <= 0; }
  friend bool operator>(const Wide& a, const Wide& b) { return compare(a, b) > 0; }
  friend bool operator>=(const Wide& a, const Wide& b) { return compare(a, b) >= 0; }
  friend bool operator==(const Wide& a, const Wide& b) { return compare(a, b) == 0; }

  // Exact operations. The caller keeps results below 2^511 in magnitude (operands within 2^255 do).
  friend Wide operator-(const Wide& a);
  friend Wide operator+(const Wide& a, const Wide& b);
  friend Wide operator-(const Wide& a, const Wide& b) { return a + (-b); }
  friend Wide operator*(const Wide& a, const Wide& b);
  // floor(a / d) for d >= 1.
  friend Wide floor_div(const Wide& a, uint64_t d);
  // floor(a / 2^s) for s >= 0.
  friend Wide floor_shift(const Wide& a, int s);
  // isqrt(a) for a >= 0.
  friend Wide isqrt(const Wide& a);

 private:
  using Mag = std::array<uint64_t, 8>;
  bool neg_ = false;  // never set for zero
  Mag mag_{};
  void normalise();
};

int compare(const Wide& a, const Wide& b);
Wide floor_div(const Wide& a, uint64_t d);
Wide floor_shift(const Wide& a, int s);
Wide isqrt(const Wide& a);

// The bounds pass's arithmetic: each primitive result goes through sat(v) = clamp(v, -2^255, 2^255), and
// `saturated` records whether any result was changed by it (§8.1).
class SatArith {
 public:
  bool saturated = false;

  Wide sat(const Wide& v);
  Wide add(const Wide& a, const Wide& b) { return sat(a + b); }
  Wide sub(const Wide& a, const Wide& b) { return sat(a - b); }
  Wide mul(const Wide& a, const Wide& b) { return sat(a * b); }
  Wide neg(const Wide& a) { return sat(-a); }
  Wide div(const Wide& a, uint64_t d) { return sat(floor_div(a, d)); }
  Wide shr(const Wide& a, int s) { return sat(floor_shift(a, s)); }
  Wide isqrt(const Wide& a) { return sat(wai::isqrt(a)); }
  Wide isqrt_ceil(const Wide& a);
  Wide min(const Wide& a, const Wide& b) { return sat(b < a ? b : a); }
  Wide max(const Wide& a, const Wide& b) { return sat(a < b ? b : a); }
  Wide abs(const Wide& a) { return sat(a.negative() ? -a : a); }
  // R_round(p, s) of §2, evaluated as the text writes each rounding.
  Wide round(const Wide& p, int s, Round r);
};

}  // namespace onemodel::wai
