// binary16 / bfloat16 conversions (tensors.md §10) against an independent reference: every pattern of the
// narrow format is decoded from the format's definition into double, and a float is narrowed by picking the
// nearest of those values (ties to the even pattern), with the first value past the largest finite one
// standing for infinity.
#include "core/half.h"
#include "core/bits.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace onemodel {
namespace {

// A 16-bit format with `mantissa_bits` fraction bits and `exponent_bits` exponent bits, IEEE style.
struct Format {
  int exponent_bits;
  int mantissa_bits;

  int bias() const { return (1 << (exponent_bits - 1)) - 1; }
  uint16_t inf_pattern() const { return static_cast<uint16_t>(((1 << exponent_bits) - 1) << mantissa_bits); }

  // Value of a non-NaN pattern with the sign bit clear (infinity for the infinity pattern).
  double decode_magnitude(uint16_t pattern) const {
    const int e = pattern >> mantissa_bits;
    const int m = pattern & ((1 << mantissa_bits) - 1);
    if (pattern == inf_pattern()) return std::numeric_limits<double>::infinity();
    if (e == 0) return std::ldexp(m, 1 - bias() - mantissa_bits);
    return std::ldexp(1.0 + std::ldexp(m, -mantissa_bits), e - bias());
  }
};

constexpr Format kHalf{5, 10};
constexpr Format kBf16{8, 7};

class NearestReference {
 public:
  explicit NearestReference(Format format) : format_(format) {
    for (uint32_t p = 0; p < format.inf_pattern(); ++p) values_.push_back(format.decode_magnitude(p));
    // One more step of the top binade: a value at least half way to it overflows to infinity.
    const int top_exponent = ((1 << format.exponent_bits) - 1) - format.bias();
    values_.push_back(std::ldexp(1.0, top_exponent));
  }

  // Nearest pattern to a non-NaN float, ties to the even pattern.
  uint16_t narrow(float f) const {
    const uint16_t sign = std::signbit(f) ? 0x8000 : 0;
    const double a = std::fabs(static_cast<double>(f));
    if (a >= values_.back()) return sign | format_.inf_pattern();
    const size_t hi = std::lower_bound(values_.begin(), values_.end(), a) - values_.begin();
    if (values_[hi] == a || hi == 0) return static_cast<uint16_t>(sign | hi);
    const size_t lo = hi - 1;
    const double below = a - values_[lo], above = values_[hi] - a;
    const size_t pick = below < above ? lo : above < below ? hi : (lo % 2 == 0 ? lo : hi);
    return static_cast<uint16_t>(sign | pick);
  }

  const std::vector<double>& values() const { return values_; }

 private:
  Format format_;
  std::vector<double> values_;  // index = pattern; the last entry stands for infinity
};

bool is_nan_pattern(uint16_t p, Format format) {
  return (p & 0x7FFF) > format.inf_pattern();
}

// Floats that exercise narrowing: random bit patterns, random values inside the narrow format's range, and
// every midpoint between neighbouring narrow values together with the floats just either side of it.
std::vector<float> narrowing_inputs(const NearestReference& ref, uint32_t seed) {
  std::vector<float> out;
  std::mt19937 rng(seed);
  for (int i = 0; i < 1000000; ++i) out.push_back(from_bits(rng()));
  std::uniform_int_distribution<int> exponent(-30, 18);
  std::uniform_int_distribution<uint32_t> mantissa(0, (1u << 23) - 1);
  for (int i = 0; i < 1000000; ++i) {
    const float v = std::ldexp(1.0f + std::ldexp(static_cast<float>(mantissa(rng)), -23), exponent(rng));
    out.push_back(rng() & 1 ? -v : v);
  }
  const std::vector<double>& v = ref.values();
  for (size_t i = 0; i + 1 < v.size(); ++i) {
    const float mid =
        static_cast<float>((v[i] + v[i + 1]) / 2);  // exact: one more bit than the narrow format
    EXPECT_EQ(static_cast<double>(mid), (v[i] + v[i + 1]) / 2);
    for (float f :
         {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, std::numeric_limits<float>::infinity())}) {
      out.push_back(f);
      out.push_back(-f);
    }
  }
  return out;
}

TEST(Half, EveryBinary16PatternWidensExactlyAndNarrowsBack) {
  for (uint32_t p = 0; p < 0x10000; ++p) {
    const uint16_t h = static_cast<uint16_t>(p);
    const float f = half_to_float(h);
    if (is_nan_pattern(h, kHalf)) {
      ASSERT_TRUE(std::isnan(f)) << std::hex << p;
      ASSERT_EQ(bits_of(f) >> 31, p >> 15u) << std::hex << p;
      ASSERT_EQ((bits_of(f) >> 13) & 0x3FF, (p & 0x3FF) | 0x200)
          << "payload kept, quiet bit set: " << std::hex << p;
      ASSERT_EQ(float_to_half(f), h | 0x200) << std::hex << p;
      continue;
    }
    const double magnitude = kHalf.decode_magnitude(h & 0x7FFF);
    ASSERT_EQ(static_cast<double>(f), (p & 0x8000) ? -magnitude : magnitude) << std::hex << p;
    ASSERT_EQ(std::signbit(f), (p & 0x8000) != 0) << std::hex << p;
    ASSERT_EQ(float_to_half(f), h) << std::hex << p;
  }
}

TEST(Half, EveryBfloat16PatternWidensExactlyAndNarrowsBack) {
  for (uint32_t p = 0; p < 0x10000; ++p) {
    const uint16_t b = static_cast<uint16_t>(p);
    const float f = bfloat16_to_float(b);
    if (is_nan_pattern(b, kBf16)) {
      ASSERT_TRUE(std::isnan(f)) << std::hex << p;
      ASSERT_EQ(bits_of(f) >> 16, p | 0x40) << "payload kept, quiet bit set: " << std::hex << p;
      ASSERT_EQ(float_to_bfloat16(f), b | 0x40) << std::hex << p;
      continue;
    }
    const double magnitude = kBf16.decode_magnitude(b & 0x7FFF);
    ASSERT_EQ(static_cast<double>(f), (p & 0x8000) ? -magnitude : magnitude) << std::hex << p;
    ASSERT_EQ(std::signbit(f), (p & 0x8000) != 0) << std::hex << p;
    ASSERT_EQ(float_to_bfloat16(f), b) << std::hex << p;
  }
}

void expect_nearest(const NearestReference& ref, uint16_t (*narrow)(float), uint32_t seed) {
  const std::vector<float> inputs = narrowing_inputs(ref, seed);
  ASSERT_GE(inputs.size(), 2000000u);
  size_t failures = 0;
  for (float f : inputs) {
    if (std::isnan(f)) continue;
    const uint16_t expected = ref.narrow(f), got = narrow(f);
    if (got != expected && failures++ < 10) {
      ADD_FAILURE() << "float bits " << std::hex << bits_of(f) << ": got " << got << " expected " << expected;
    }
  }
  EXPECT_EQ(failures, 0u);
}

TEST(Half, FloatToBinary16RoundsToNearestEven) {
  expect_nearest(NearestReference(kHalf), &float_to_half, 11);
}

TEST(Half, FloatToBfloat16RoundsToNearestEven) {
  expect_nearest(NearestReference(kBf16), &float_to_bfloat16, 12);
}

TEST(Half, NaNStaysAQuietNaNWithItsSign) {
  for (uint32_t bits : {0x7FC00000u, 0xFFC00000u, 0x7F800001u, 0xFF800001u, 0x7FFFFFFFu, 0x7FA5A5A5u}) {
    const float f = from_bits(bits);
    const uint16_t h = float_to_half(f), b = float_to_bfloat16(f);
    EXPECT_TRUE(is_nan_pattern(h, kHalf) && (h & 0x200)) << std::hex << bits;
    EXPECT_EQ(h >> 15, bits >> 31);
    EXPECT_EQ(h & 0x1FF, (bits >> 13) & 0x1FF) << "top payload bits";
    EXPECT_TRUE(is_nan_pattern(b, kBf16) && (b & 0x40)) << std::hex << bits;
    EXPECT_EQ(b >> 15, bits >> 31);
  }
}

TEST(Half, BulkConversionsMatchTheScalarOnes) {
  std::mt19937 rng(3);
  std::vector<float> f(4099);
  for (float& v : f) v = from_bits(rng());
  std::vector<uint16_t> h(f.size()), b(f.size());
  f32_to_f16(f.data(), h.data(), f.size());
  f32_to_bf16(f.data(), b.data(), f.size());
  std::vector<float> wide_h(f.size()), wide_b(f.size());
  f16_to_f32(h.data(), wide_h.data(), h.size());
  bf16_to_f32(b.data(), wide_b.data(), b.size());
  for (size_t i = 0; i < f.size(); ++i) {
    ASSERT_EQ(h[i], float_to_half(f[i]));
    ASSERT_EQ(b[i], float_to_bfloat16(f[i]));
    ASSERT_EQ(bits_of(wide_h[i]), bits_of(half_to_float(h[i])));
    ASSERT_EQ(bits_of(wide_b[i]), bits_of(bfloat16_to_float(b[i])));
  }
}

}  // namespace
}  // namespace onemodel
