// The vector half-precision conversions of every kernel path this CPU runs against the scalar code of
// core/half.cc: every binary16 and bfloat16 pattern widened, and several million binary32 patterns narrowed
// (every rounding boundary of both formats, NaN payloads, random patterns). The scalar code itself is checked
// against a double-precision model of round-to-nearest-even.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "core/bits.h"
#include "core/half.h"
#include "kernels/kernel_table.h"

namespace onemodel {
namespace {

std::vector<uint16_t> all_16bit_patterns() {
  std::vector<uint16_t> v(65536);
  for (uint32_t i = 0; i < 65536; ++i) v[i] = static_cast<uint16_t>(i);
  return v;
}

// Rounding boundaries of both formats (the dropped bits just below, at and above one half, and the ends),
// across every exponent and sign; the binary16 subnormal midpoints (k + 1/2) * 2^-24 and their neighbours;
// NaNs with assorted payloads; random patterns.
std::vector<float> narrowing_patterns() {
  std::vector<uint32_t> bits;
  for (uint32_t high = 0; high < (1u << 19); ++high) {
    for (uint32_t low : {0x0000u, 0x0FFFu, 0x1000u, 0x1001u, 0x1FFFu}) bits.push_back((high << 13) | low);
  }
  for (uint32_t high = 0; high < 65536; ++high) {
    for (uint32_t low : {0x7FFFu, 0x8000u, 0x8001u, 0xFFFFu}) bits.push_back((high << 16) | low);
  }
  for (uint32_t k = 0; k <= 1024; ++k) {
    const uint32_t mid = bits_of((static_cast<float>(k) + 0.5f) * 0x1p-24f);
    for (uint32_t sign : {0u, 0x80000000u}) {
      for (uint32_t b : {mid - 1, mid, mid + 1}) bits.push_back(sign | b);
    }
  }
  std::mt19937 rng(1234);
  for (int i = 0; i < 100000; ++i) bits.push_back((0x7F800001u + rng() % 0x7FFFFFu) | (rng() & 0x80000000u));
  for (int i = 0; i < 2000000; ++i) bits.push_back(static_cast<uint32_t>(rng()));
  std::vector<float> out(bits.size());
  for (size_t i = 0; i < bits.size(); ++i) out[i] = from_bits(bits[i]);
  return out;
}

// Round-to-nearest-even of a finite double to `mant_bits` of significand with minimum normal exponent
// `emin` and largest finite `max`; returns the double value (infinity on overflow).
double round_model(double x, int mant_bits, int emin, double max) {
  const double a = std::fabs(x);
  if (a == 0 || std::isinf(a)) return x;
  int e = std::ilogb(a);
  if (e < emin) e = emin;
  const double unit = std::ldexp(1.0, e - mant_bits);
  const double q = std::nearbyint(a / unit) * unit;  // default rounding: to nearest, ties to even
  const double r = q > max ? INFINITY : q;
  return std::signbit(x) ? -r : r;
}

TEST(HalfConvert, ScalarNarrowingMatchesRoundToNearestEven) {
  for (float f : narrowing_patterns()) {
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(half_to_float(float_to_half(f))));
      EXPECT_TRUE(std::isnan(bfloat16_to_float(float_to_bfloat16(f))));
      continue;
    }
    const double h = round_model(f, 10, -14, 65504.0);
    const double b = round_model(f, 7, -126, 0x1.FEp127);
    ASSERT_EQ(static_cast<double>(half_to_float(float_to_half(f))), h) << std::hex << bits_of(f);
    ASSERT_EQ(static_cast<double>(bfloat16_to_float(float_to_bfloat16(f))), b) << std::hex << bits_of(f);
    ASSERT_EQ(std::signbit(half_to_float(float_to_half(f))), std::signbit(f));
  }
}

// Lengths and offsets that exercise the tails of every lane width.
template <class Src, class Dst, class Kernel, class Scalar>
void check_all(const std::vector<Src>& src, Kernel kernel, Scalar scalar, const char* what,
               const char* path) {
  std::vector<Dst> expected(src.size()), got(src.size());
  for (size_t i = 0; i < src.size(); ++i) expected[i] = scalar(src[i]);
  for (size_t offset : {size_t{0}, size_t{3}}) {
    std::fill(got.begin(), got.end(), Dst{});
    kernel(src.data() + offset, got.data() + offset, src.size() - offset);
    for (size_t i = offset; i < src.size(); ++i) {
      uint32_t g = 0, e = 0;
      std::memcpy(&g, &got[i], sizeof(Dst));
      std::memcpy(&e, &expected[i], sizeof(Dst));
      ASSERT_EQ(g, e) << what << " on " << path << " at " << i;
    }
  }
}

TEST(HalfConvert, EveryPathWidensEvery16BitPatternLikeTheScalarCode) {
  const std::vector<uint16_t> src = all_16bit_patterns();
  for (const KernelTable* t : available_kernel_tables()) {
    check_all<uint16_t, float>(src, t->f16_to_f32, half_to_float, "f16_to_f32", t->name.data());
    check_all<uint16_t, float>(src, t->bf16_to_f32, bfloat16_to_float, "bf16_to_f32", t->name.data());
  }
}

TEST(HalfConvert, EveryPathNarrowsLikeTheScalarCode) {
  const std::vector<float> src = narrowing_patterns();
  ASSERT_GT(src.size(), size_t{4000000});
  for (const KernelTable* t : available_kernel_tables()) {
    check_all<float, uint16_t>(src, t->f32_to_f16, float_to_half, "f32_to_f16", t->name.data());
    check_all<float, uint16_t>(src, t->f32_to_bf16, float_to_bfloat16, "f32_to_bf16", t->name.data());
  }
}

TEST(HalfConvert, RoundTripOfEvery16BitPatternIsTheIdentityOrAQuietNaN) {
  const std::vector<uint16_t> src = all_16bit_patterns();
  for (const KernelTable* t : available_kernel_tables()) {
    std::vector<float> wide(src.size());
    std::vector<uint16_t> back(src.size());
    t->f16_to_f32(src.data(), wide.data(), src.size());
    t->f32_to_f16(wide.data(), back.data(), src.size());
    for (uint32_t i = 0; i < 65536; ++i) {
      const bool nan = (i & 0x7C00u) == 0x7C00u && (i & 0x3FFu) != 0;
      ASSERT_EQ(back[i], nan ? (i | 0x200u) : i) << t->name << " f16 " << i;
    }
    t->bf16_to_f32(src.data(), wide.data(), src.size());
    t->f32_to_bf16(wide.data(), back.data(), src.size());
    for (uint32_t i = 0; i < 65536; ++i) {
      const bool nan = (i & 0x7F80u) == 0x7F80u && (i & 0x7Fu) != 0;
      ASSERT_EQ(back[i], nan ? (i | 0x40u) : i) << t->name << " bf16 " << i;
    }
  }
}

}  // namespace
}  // namespace onemodel
