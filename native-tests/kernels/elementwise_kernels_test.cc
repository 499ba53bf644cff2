// The float32 element-wise kernels of every available path against plain scalar IEEE arithmetic written here:
// every length up to a few vectors (so the tails run), each step pattern, in place, and special values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "kernels/kernel_table.h"

namespace onemodel {
namespace {

constexpr KernelPath kPaths[] = {KernelPath::Scalar, KernelPath::V128, KernelPath::Avx2, KernelPath::Avx512};
constexpr uint32_t kCanonicalNaN = 0x7FC00000u;

uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// Random values mixed with NaNs (payloads and signs), both zeros, infinities, subnormals and extremes.
std::vector<float> sample(size_t n, uint32_t seed) {
  const float specials[] = {from_bits(0x7FC00000u),
                            from_bits(0xFFC12345u),
                            from_bits(0x7FA00001u),
                            0.0f,
                            -0.0f,
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            1e-40f,
                            -3e-39f,
                            std::numeric_limits<float>::max(),
                            6.0f,
                            3.0f,
                            -1.0f};
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> value(-10.0f, 10.0f);
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = rng() % 4 == 0 ? specials[rng() % std::size(specials)] : value(rng);
  return v;
}

// y must equal want bit for bit, except that a NaN is canonical in exact mode and any NaN in fast mode.
void expect_same(const std::vector<float>& y, const std::vector<float>& want, bool exact, const char* what,
                 const KernelTable& t, size_t n) {
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(want[i])) {
      if (exact)
        EXPECT_EQ(bits(y[i]), kCanonicalNaN) << what << " " << t.name << " n=" << n << " i=" << i;
      else
        EXPECT_TRUE(std::isnan(y[i])) << what << " " << t.name << " n=" << n << " i=" << i;
    } else {
      EXPECT_EQ(bits(y[i]), bits(want[i])) << what << " " << t.name << " n=" << n << " i=" << i;
    }
  }
}

float reference(BinaryFn fn, float a, float b) {
  switch (fn) {
    case BinaryFn::Add:
      return a + b;
    case BinaryFn::Sub:
      return a - b;
    case BinaryFn::Mul:
      return a * b;
    case BinaryFn::Div:
      return a / b;
  }
  return 0.0f;
}

TEST(ElementwiseKernels, BinaryMatchesScalarIeeeForEveryStepPattern) {
  for (KernelPath path : kPaths) {
    const KernelTable* t = kernel_table(path);
    if (t == nullptr) continue;
    for (BinaryFn fn : {BinaryFn::Add, BinaryFn::Sub, BinaryFn::Mul, BinaryFn::Div}) {
      for (size_t n = 0; n <= 70; ++n) {
        const std::vector<float> a = sample(n + 1, static_cast<uint32_t>(n)), b = sample(n + 1, 1000u + n);
        for (int64_t step_a : {0, 1}) {
          for (int64_t step_b : {0, 1}) {
            std::vector<float> want(n);
            for (size_t i = 0; i < n; ++i)
              want[i] = reference(fn, a[static_cast<size_t>(step_a) * i], b[static_cast<size_t>(step_b) * i]);
            for (bool exact : {false, true}) {
              std::vector<float> y(n, 7.0f);
              t->binary(fn, exact, a.data(), step_a, b.data(), step_b, y.data(), n);
              expect_same(y, want, exact, "binary", *t, n);
            }
          }
        }
        // In place over the advancing first operand.
        std::vector<float> y(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(n)), want(n);
        for (size_t i = 0; i < n; ++i) want[i] = reference(fn, a[i], b[0]);
        t->binary(fn, true, y.data(), 1, b.data(), 0, y.data(), n);
        expect_same(y, want, true, "binary in place", *t, n);
      }
    }
  }
}

TEST(ElementwiseKernels, ClampRaisesThenLowersAndPassesNaN) {
  const float bounds[][2] = {{0.0f, 6.0f}, {-0.0f, 0.0f}, {2.0f, 1.0f}, {-1e30f, 1e30f}};
  for (KernelPath path : kPaths) {
    const KernelTable* t = kernel_table(path);
    if (t == nullptr) continue;
    for (const auto& [lo, hi] : bounds) {
      for (size_t n = 0; n <= 70; ++n) {
        const std::vector<float> x = sample(n, static_cast<uint32_t>(n) * 7u);
        std::vector<float> want(n);
        for (size_t i = 0; i < n; ++i) {
          float v = x[i] < lo ? lo : x[i];
          want[i] = v > hi ? hi : v;
        }
        for (bool exact : {false, true}) {
          std::vector<float> y = x;  // in place
          t->clamp(exact, y.data(), lo, hi, y.data(), n);
          expect_same(y, want, exact, "clamp", *t, n);
        }
      }
    }
  }
}

TEST(ElementwiseKernels, AffineRoundsTheProductAndTheSumSeparately) {
  for (KernelPath path : kPaths) {
    const KernelTable* t = kernel_table(path);
    if (t == nullptr) continue;
    for (size_t n = 0; n <= 70; ++n) {
      const std::vector<float> x = sample(n, static_cast<uint32_t>(n) * 13u);
      const float scale = 0.1f + static_cast<float>(n) * 1.37f, shift = -0.3f * static_cast<float>(n);
      std::vector<float> want(n);
      for (size_t i = 0; i < n; ++i) {
        volatile float product = x[i] * scale;  // rounded on its own, whatever the compiler's contraction
        want[i] = product + shift;
      }
      for (bool exact : {false, true}) {
        std::vector<float> y(n);
        t->affine(exact, x.data(), scale, shift, y.data(), n);
        expect_same(y, want, exact, "affine", *t, n);
      }
    }
  }
}

}  // namespace
}  // namespace onemodel
