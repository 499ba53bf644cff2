// The LayerNormalization row kernel of every available path against the scalar row step of
// graph/ops/norm/norm_rows.h, bit for bit: row lengths around the 16-term blocks of the canonical sum and the
// vector widths, with and without bias, RMS, in place, and rows holding NaN and infinities.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "graph/ops/norm/norm_rows.h"
#include "kernels/kernel_table.h"
#include "kernels/norm/norm_kernels.h"

namespace onemodel {
namespace {

constexpr KernelPath kPaths[] = {KernelPath::Scalar, KernelPath::V128, KernelPath::Avx2, KernelPath::Avx512};

uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

std::vector<float> sample(size_t n, uint32_t seed, float offset) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(offset, 3.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

struct Case {
  int64_t rows, cols;
  bool rms, with_bias, in_place;
};

void check(KernelPath path, const Case& c, std::vector<float> x) {
  const int64_t n = c.cols;
  const std::vector<float> scale = sample(static_cast<size_t>(n), 7u, 1.0f);
  const std::vector<float> bias = sample(static_cast<size_t>(n), 8u, 0.0f);
  const float epsilon = 1e-5f;

  std::vector<float> want(x.size()), want_mean(static_cast<size_t>(c.rows)), want_inv(want_mean.size());
  for (int64_t r = 0; r < c.rows; ++r) {
    const ops::RowStats s = ops::row_stats(x.data() + r * n, n, epsilon, c.rms);
    ops::normalize_row(x.data() + r * n, want.data() + r * n, s, scale.data(),
                       c.with_bias ? bias.data() : nullptr, n, 1);
    want_mean[static_cast<size_t>(r)] = ops::canonicalize(s.mean);
    want_inv[static_cast<size_t>(r)] = ops::canonicalize(s.inv);
  }

  std::vector<float> y(x.size(), 7.0f), mean(want_mean.size(), 7.0f), inv(want_inv.size(), 7.0f);
  LayerNormRowsArgs args;
  args.x = x.data();
  args.y = c.in_place ? x.data() : y.data();
  args.rows = c.rows;
  args.cols = n;
  args.epsilon = epsilon;
  args.rms = c.rms;
  args.scale = scale.data();
  args.bias = c.with_bias ? bias.data() : nullptr;
  args.mean = mean.data();
  args.inv_std_dev = inv.data();
  norm_kernels(path)->layer_norm_rows(args);
  const std::vector<float>& got = c.in_place ? x : y;

  const std::string where = std::string(kernel_table(path)->name) + " cols " + std::to_string(n) +
                            (c.rms ? " rms" : "") + (c.with_bias ? " bias" : "") +
                            (c.in_place ? " in place" : "");
  for (size_t i = 0; i < want.size(); ++i)
    ASSERT_EQ(bits(got[i]), bits(want[i])) << where << " element " << i;
  for (size_t r = 0; r < want_mean.size(); ++r) {
    ASSERT_EQ(bits(mean[r]), bits(want_mean[r])) << where << " mean of row " << r;
    ASSERT_EQ(bits(inv[r]), bits(want_inv[r])) << where << " inv of row " << r;
  }
}

TEST(NormKernels, LayerNormRowsMatchTheScalarRowStepBitForBit) {
  for (KernelPath path : kPaths) {
    if (kernel_table(path) == nullptr) continue;
    ASSERT_NE(norm_kernels(path), nullptr);
    for (int64_t cols = 1; cols <= 70; ++cols) {
      for (bool rms : {false, true}) {
        for (bool with_bias : {false, true}) {
          for (bool in_place : {false, true}) {
            const Case c{3, cols, rms, with_bias, in_place};
            check(path, c, sample(static_cast<size_t>(3 * cols), static_cast<uint32_t>(cols), 5.0f));
          }
        }
      }
    }
    for (int64_t cols : {128, 200, 768}) {
      check(path, Case{5, cols, false, true, false}, sample(static_cast<size_t>(5 * cols), 99u, -2.0f));
    }
  }
}

TEST(NormKernels, LayerNormRowsCanonicaliseNaNAndKeepInfinitiesAsTheRowStepDoes) {
  const float inf = std::numeric_limits<float>::infinity();
  const float payload_nan = std::bit_cast<float>(0x7FC01234u),
              negative_nan = std::bit_cast<float>(0xFFC00000u);
  for (KernelPath path : kPaths) {
    if (kernel_table(path) == nullptr) continue;
    for (int64_t cols : {5, 16, 37}) {
      std::vector<float> x = sample(static_cast<size_t>(4 * cols), 3u, 0.0f);
      x[1] = payload_nan;                               // row 0: a NaN
      x[static_cast<size_t>(cols) + 2] = inf;           // row 1: +inf
      x[static_cast<size_t>(2 * cols)] = negative_nan;  // row 2: a negative NaN
      x[static_cast<size_t>(3 * cols) + 1] = 3.0e38f;   // row 3: the square overflows
      for (bool rms : {false, true}) check(path, Case{4, cols, rms, true, false}, x);
    }
  }
}

}  // namespace
}  // namespace onemodel
