// The 128-bit integer functions of src/wai/arith.h against wai-ops/1 §2's definitions written out literally:
// R_half_up and R_half_even form p + 2^(s-1) (safe here because |p| < 2^126), isqrt is checked by its
// defining inequality r^2 <= n < (r+1)^2, over every shift 0..126 (and 127 by hand) and values at the edges
// of 128 bits.
#include <gtest/gtest.h>

#include <random>

#include "wai/arith.h"

namespace onemodel::wai {
namespace {

i128 literal_round(i128 p, int s, Round round) {
  if (s == 0) return p;
  const i128 two_s = i128(1) << s, h = i128(1) << (s - 1);
  // floor(a / 2^s) for a possibly negative a, by a division that truncates, then a correction.
  auto floor_div = [&](i128 a) { return a / two_s - ((a % two_s) < 0 ? 1 : 0); };
  if (round == Round::Floor) return floor_div(p);
  if (round == Round::HalfUp) return floor_div(p + h);
  const i128 q = floor_div(p), r = p - q * two_s;
  return (r > h || (r == h && q % 2 != 0)) ? q + 1 : q;
}

TEST(WaiArith, RoundShiftMatchesTheLiteralDefinitions) {
  std::mt19937_64 rng(8);
  const i128 limit = (i128(1) << 126) - 1;
  for (int s = 0; s <= 126; ++s) {  // 2^127 is not an i128; s = 127 is below
    std::vector<i128> ps = {0, 1, -1, limit, -limit};
    if (s >= 1 && s <= 124) {  // k * 2^s stays inside 128 bits
      const i128 h = i128(1) << (s - 1);
      for (i128 k : {-3, -2, -1, 0, 1, 2})
        for (i128 d : {-1, 0, 1}) {
          const i128 p = k * (h * 2) + h + d;  // around the ties, on both signs
          if (p <= limit && p >= -limit) ps.push_back(p);
        }
    }
    for (int i = 0; i < 50; ++i) {
      const i128 p = i128(u128(rng()) << 64 | rng()) >> 2;  // |p| < 2^126
      ps.push_back(p);
    }
    for (i128 p : ps)
      for (Round r : {Round::Floor, Round::HalfUp, Round::HalfEven})
        EXPECT_TRUE(round_shift(p, s, r) == literal_round(p, s, r)) << "s=" << s << " round=" << int(r);
  }
  // At s = 127 every |p| < 2^126 floors to 0 or -1, and rounds to 0 either way.
  for (i128 p : {-limit, i128(-1), i128(0), i128(1), limit}) {
    EXPECT_TRUE(round_shift(p, 127, Round::Floor) == (p < 0 ? -1 : 0));
    EXPECT_TRUE(round_shift(p, 127, Round::HalfUp) == 0);
    EXPECT_TRUE(round_shift(p, 127, Round::HalfEven) == 0);
  }
  // p = 2^126 is the tie of s = 127: half_up goes up, half_even stays at the even 0.
  EXPECT_TRUE(round_shift(i128(1) << 126, 127, Round::HalfUp) == 1);
  EXPECT_TRUE(round_shift(i128(1) << 126, 127, Round::HalfEven) == 0);
  EXPECT_TRUE(round_shift(-(i128(1) << 126), 127, Round::HalfUp) == 0);
  EXPECT_TRUE(round_shift(-(i128(1) << 126), 127, Round::HalfEven) == 0);
}

bool isqrt_ok(u128 n, u128 r) {
  if (r > u128(UINT64_MAX)) return false;
  if (r * r > n) return false;
  const u128 next = r + 1;
  return next > u128(UINT64_MAX) || next * next > n;  // (2^64)^2 passes every n
}

TEST(WaiArith, IsqrtSatisfiesItsDefinition) {
  std::mt19937_64 rng(9);
  const u128 top = ~u128(0);
  std::vector<u128> ns = {0,
                          1,
                          2,
                          3,
                          4,
                          5,
                          8,
                          9,
                          10,
                          top,
                          top - 1,
                          u128(1) << 127,
                          (u128(1) << 64) - 1,
                          u128(1) << 64,
                          u128(UINT64_MAX) * UINT64_MAX};
  for (u128 r : {u128(3), u128(1) << 20, u128(UINT32_MAX), u128(UINT64_MAX), u128(1) << 63})
    for (u128 d : {u128(0), u128(1)}) ns.push_back(r * r - d), ns.push_back(r * r + d);
  for (int i = 0; i < 2000; ++i) ns.push_back((u128(rng()) << 64 | rng()) >> (rng() % 128));
  for (u128 n : ns) EXPECT_TRUE(isqrt_ok(n, isqrt(n))) << uint64_t(n >> 64) << ":" << uint64_t(n);
}

TEST(WaiArith, ExpNegQ16AgreesWithItsStepsAndBounds) {
  // The defining steps of §2, written out with the range claims the text makes about them.
  for (int64_t x = 0; x >= -45426 * 64; x -= 97) {
    const int64_t u = -x, n = u / 45426, r = x + 45426 * n, t = r + 88670;
    ASSERT_TRUE(r > -45426 && r <= 0 && t >= 43245 && t <= 88670);
    const int64_t y = ((23495 * ((t * t) >> 16)) >> 16) + 22544;
    const int64_t want = n >= 63 ? 0 : (y >> n);
    EXPECT_EQ(exp_neg_q16(x), want) << x;
    EXPECT_GE(exp_neg_q16(x), 0);
    EXPECT_LE(exp_neg_q16(x), 65553);
  }
  EXPECT_EQ(exp_neg_q16(0), 65553);
  EXPECT_EQ(exp_neg_q16(-(i128(1) << 100)), 0);
  EXPECT_EQ(rsqrt_q16(0), 0);
  EXPECT_EQ(rsqrt_q16(1), int64_t(1) << 32);
  EXPECT_EQ(rsqrt_q16(3), int64_t(1) << 32);
  EXPECT_EQ(rsqrt_q16(4), int64_t(1) << 31);
}

TEST(WaiArith, CheckedArithmeticRefusesOverflow) {
  const i128 max = ~u128(0) >> 1;
  EXPECT_THROW(add(max, 1), WidthOverflow);
  EXPECT_THROW(sub(-max - 1, 1), WidthOverflow);
  EXPECT_THROW(mul(i128(1) << 64, i128(1) << 63), WidthOverflow);
  EXPECT_TRUE(mul(i128(INT64_MIN), i128(INT64_MIN)) == i128(1) << 126);
  EXPECT_THROW(to_tensor(i128(INT64_MAX) + 1), WidthOverflow);
  EXPECT_EQ(to_tensor(i128(INT64_MIN)), INT64_MIN);
}

}  // namespace
}  // namespace onemodel::wai
