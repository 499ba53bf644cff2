// The integer functions of wai-ops/1 §2 on 128-bit values: floor shifts up to 127, the three roundings,
// isqrt, exp_neg_q16 and rsqrt_q16. Everything is integer arithmetic (§6 forbids floating point).
//
// The interpreter forms every value exactly. A value that does not fit the width it is formed in raises
// WidthOverflow: a graph that passes the bounds pass (§8) never forms one, so for such graphs this is dead
// code, and for the others it turns undefined behaviour into a refusal (docs/wai-ops.md).
#pragma once

#include <cstdint>

#include "wai/model.h"

namespace onemodel::wai {

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

struct WidthOverflow {};

// Sees every named intermediate (§5, the keys of Table 8.5-A) as the interpreter forms it: IntSession's debug
// mode checks each against its certified interval (§8).
class IntermediateObserver {
 public:
  virtual ~IntermediateObserver();
  virtual void seen(const char* key, i128 value) = 0;
};
inline void note(IntermediateObserver* observer, const char* key, i128 value) {
  if (observer) observer->seen(key, value);
}

inline i128 add(i128 a, i128 b) {
  i128 r;
  if (__builtin_add_overflow(a, b, &r)) throw WidthOverflow{};
  return r;
}
inline i128 sub(i128 a, i128 b) {
  i128 r;
  if (__builtin_sub_overflow(a, b, &r)) throw WidthOverflow{};
  return r;
}
inline i128 mul(i128 a, i128 b) {
  i128 r;
  if (__builtin_mul_overflow(a, b, &r)) throw WidthOverflow{};
  return r;
}
// A tensor element: fits i64 under acc64 (§7.1).
inline int64_t to_tensor(i128 v) {
  if (v < INT64_MIN || v > INT64_MAX) throw WidthOverflow{};
  return int64_t(v);
}

// floor(p / 2^s) for 0 <= s <= 127: an arithmetic shift, which C++20 defines as flooring.
inline i128 floor_shift(i128 p, int s) {
  return p >> s;
}

// R_round(p, s) of §2, without forming p + 2^(s-1) (so no width is needed beyond p's own).
inline i128 round_shift(i128 p, int s, Round round) {
  if (s == 0) return p;
  const i128 q = p >> s;
  const u128 r = u128(p) & ((u128(1) << s) - 1);  // p - q * 2^s, in [0, 2^s)
  const u128 h = u128(1) << (s - 1);
  switch (round) {
    case Round::Floor:
      return q;
    case Round::HalfUp:
      return q + (r >= h ? 1 : 0);
    case Round::HalfEven:
      return q + ((r > h || (r == h && (q & 1) != 0)) ? 1 : 0);
  }
  return q;
}

// Floor division for a positive divisor.
inline i128 floor_div(i128 a, i128 b) {
  i128 q = a / b;
  if ((a % b) != 0 && a < 0) --q;
  return q;
}

// The number of significant bits of n (0 for 0).
inline int bit_length(u128 n) {
  const uint64_t hi = uint64_t(n >> 64), lo = uint64_t(n);
  return hi ? 128 - __builtin_clzll(hi) : lo ? 64 - __builtin_clzll(lo) : 0;
}

// isqrt(n): the largest r with r*r <= n, by Newton's iteration from a start above the root.
inline u128 isqrt(u128 n) {
  if (n < 2) return n;
  u128 x = u128(1) << ((bit_length(n) + 1) / 2);
  while (true) {
    const u128 y = (x + n / x) / 2;
    if (y >= x) return x;
    x = y;
  }
}

// exp_neg_q16(x) for x <= 0 (§2). The observer sees exp.negx, exp.nl, exp.t2 and exp.c, formed whatever n is.
inline int64_t exp_neg_q16(i128 x, IntermediateObserver* observer = nullptr) {
  const i128 u = -x;
  const i128 n = u / 45426;
  note(observer, "exp.negx", u);
  note(observer, "exp.nl", 45426 * n);
  const i128 r = x + 45426 * n;
  const i128 t = r + 88670;
  note(observer, "exp.t2", t * t);
  const i128 q = (t * t) >> 16;
  note(observer, "exp.c", 23495 * q);
  if (n >= 63) return 0;
  const i128 y = ((23495 * q) >> 16) + 22544;
  return int64_t(y >> int(n));
}

// rsqrt_q16(v) for v >= 0 (§2).
inline int64_t rsqrt_q16(u128 v) {
  const u128 r = isqrt(v);
  return r == 0 ? 0 : int64_t((u128(1) << 32) / r);
}

}  // namespace onemodel::wai
