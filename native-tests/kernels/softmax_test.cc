// Softmax.Rows (kernels-attention.md "Softmax") on every kernel path: the exact flavour equals, bit for bit,
// a naive scalar transcription of the definition below; the fast flavour stays close to it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "kernels/kernel_table.h"
#include "kernels/math/transcendental.h"
#include "kernels/simd.h"

namespace onemodel {
namespace {

using simd::bits_to_float;
using simd::float_to_bits;
constexpr float kInf = std::numeric_limits<float>::infinity();

// The definition, one element at a time: max ignoring NaN, e = expNonPositive(x - m), sixteen partial sums by
// j mod 16 from +0 folded pairwise, y = e / l, canonical NaN.
std::vector<float> naive_softmax_row(const float* x, size_t n) {
  float m = -kInf;
  for (size_t j = 0; j < n; ++j) {
    if (x[j] > m) m = x[j];
  }
  std::vector<float> e(n);
  float partial[16] = {};
  for (size_t j = 0; j < n; ++j) {
    e[j] = math::exp_non_positive<simd::ScalarLanes<false>>(x[j] - m);
    partial[j % 16] += e[j];
  }
  float a[8], b[4], c[2];
  for (int t = 0; t < 8; ++t) a[t] = partial[t] + partial[t + 8];
  for (int t = 0; t < 4; ++t) b[t] = a[t] + a[t + 4];
  for (int t = 0; t < 2; ++t) c[t] = b[t] + b[t + 2];
  const float l = c[0] + c[1];
  std::vector<float> y(n);
  for (size_t j = 0; j < n; ++j) {
    y[j] = e[j] / l;
    if (std::isnan(y[j])) y[j] = bits_to_float(simd::kCanonicalNaN);
  }
  return y;
}

std::vector<const KernelTable*> available_tables() {
  std::vector<const KernelTable*> out;
  for (KernelPath path : {KernelPath::Scalar, KernelPath::V128, KernelPath::Avx2, KernelPath::Avx512}) {
    if (const KernelTable* table = kernel_table(path)) out.push_back(table);
  }
  return out;
}

// Rows of random logits with a spread wide enough that some weights underflow to zero.
std::vector<float> random_rows(size_t rows, size_t n, float spread, std::mt19937& rng) {
  std::normal_distribution<float> normal(0.0f, spread);
  std::vector<float> x(rows * n);
  for (float& v : x) v = normal(rng);
  return x;
}

void expect_exact_rows_match_naive(const KernelTable& table, const std::vector<float>& x, size_t rows,
                                   size_t n) {
  std::vector<float> y(rows * n, -1.0f);
  table.softmax_rows(true, x.data(), y.data(), rows, n);
  for (size_t r = 0; r < rows; ++r) {
    const std::vector<float> expected = naive_softmax_row(x.data() + r * n, n);
    for (size_t j = 0; j < n; ++j) {
      ASSERT_EQ(float_to_bits(y[r * n + j]), float_to_bits(expected[j]))
          << table.name << " n " << n << " row " << r << " j " << j;
    }
  }
}

TEST(SoftmaxRows, ExactMatchesTheDefinitionOnEveryPath) {
  std::mt19937 rng(2024);
  std::vector<size_t> lengths;
  for (size_t n = 0; n <= 70; ++n) lengths.push_back(n);
  for (size_t n : {127, 128, 129, 255, 1000, 1500, 4099}) lengths.push_back(n);
  for (const KernelTable* table : available_tables()) {
    for (size_t n : lengths) {
      for (float spread : {1.0f, 30.0f}) {
        const std::vector<float> x = random_rows(3, n, spread, rng);
        expect_exact_rows_match_naive(*table, x, 3, n);
      }
    }
  }
}

TEST(SoftmaxRows, SpecialRows) {
  const float nan = bits_to_float(0xFFC12345u);
  const float tiny = bits_to_float(0x00000003u);
  const std::vector<std::vector<float>> rows = {
      {-kInf, -kInf, -kInf},                // fully masked: all NaN
      {1.0f, kInf, 2.0f},                   // +inf: all NaN
      {1.0f, nan, 2.0f},                    // NaN: all NaN
      {nan, nan},                           // no maximum at all: all NaN
      {-kInf, 0.5f, -kInf, 3.0f, -kInf},    // masked entries are exactly +0
      {0.0f, -0.0f, 0.0f, -0.0f},           // signed zeros are equal
      {tiny, -tiny, 1e30f, -1e30f, 88.0f},  // huge spread
      {-3e38f, 3e38f, 0.0f},                // x - m overflows to -inf: weight +0
  };
  for (const KernelTable* table : available_tables()) {
    for (const std::vector<float>& row : rows) {
      // Pad to lengths that put the special entries in both the vector body and the tail.
      for (size_t copies : {1, 7, 21}) {
        std::vector<float> x;
        for (size_t c = 0; c < copies; ++c) x.insert(x.end(), row.begin(), row.end());
        expect_exact_rows_match_naive(*table, x, 1, x.size());
      }
    }
    // The documented outcomes, checked directly.
    std::vector<float> y(3);
    const std::vector<float> masked = {-kInf, -kInf, -kInf};
    for (bool exact : {true, false}) {
      table->softmax_rows(exact, masked.data(), y.data(), 1, 3);
      for (float v : y) EXPECT_EQ(float_to_bits(v), simd::kCanonicalNaN) << table->name;
      const std::vector<float> with_nan = {1.0f, nan, 2.0f};
      table->softmax_rows(exact, with_nan.data(), y.data(), 1, 3);
      for (float v : y) EXPECT_EQ(float_to_bits(v), simd::kCanonicalNaN) << table->name;
    }
    const std::vector<float> partly_masked = {-kInf, 0.0f, -kInf};
    table->softmax_rows(true, partly_masked.data(), y.data(), 1, 3);
    EXPECT_EQ(float_to_bits(y[0]), 0u);
    EXPECT_EQ(y[1], 1.0f);
    EXPECT_EQ(float_to_bits(y[2]), 0u);
  }
}

TEST(SoftmaxRows, InPlaceGivesTheSameBits) {
  std::mt19937 rng(5);
  for (const KernelTable* table : available_tables()) {
    for (bool exact : {true, false}) {
      std::vector<float> x = random_rows(4, 37, 5.0f, rng);
      std::vector<float> y(x.size());
      table->softmax_rows(exact, x.data(), y.data(), 4, 37);
      table->softmax_rows(exact, x.data(), x.data(), 4, 37);
      EXPECT_EQ(0, std::memcmp(x.data(), y.data(), x.size() * sizeof(float))) << table->name;
    }
  }
}

TEST(SoftmaxRows, FastIsCloseToExact) {
  std::mt19937 rng(99);
  for (const KernelTable* table : available_tables()) {
    for (size_t n : {1, 5, 16, 17, 63, 64, 65, 300, 2048}) {
      const std::vector<float> x = random_rows(2, n, 8.0f, rng);
      std::vector<float> exact(x.size()), fast(x.size());
      table->softmax_rows(true, x.data(), exact.data(), 2, n);
      table->softmax_rows(false, x.data(), fast.data(), 2, n);
      for (size_t r = 0; r < 2; ++r) {
        double sum = 0;
        for (size_t j = 0; j < n; ++j) {
          const float e = exact[r * n + j], f = fast[r * n + j];
          // A few ulp of the fast exponential and the reciprocal; the fast exponential flushes a little
          // earlier.
          EXPECT_NEAR(f, e, 2e-6 * e + 1e-37) << table->name << " n " << n << " j " << j;
          sum += f;
        }
        EXPECT_NEAR(sum, 1.0, 1e-5) << table->name << " n " << n;
      }
    }
  }
}

}  // namespace
}  // namespace onemodel
