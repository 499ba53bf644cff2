// The depthwise convolution family on every kernel path this CPU runs: exact bits against a naive
// transcription of the pseudo-code of kernels-depthwise.md / exact-mode.md "Convolution" (one input channel),
// at 1 and 2 threads, for random shapes with strides, dilations, padding, channel multipliers and bias, with
// infinite, NaN and signed-zero weights meeting the padding; fast results within the sequential-summation
// error bound.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/bits.h"
#include "kernels/kernel_table.h"
#include "threading/parallel_for.h"

namespace onemodel {
namespace {

constexpr uint32_t kSentinel = 0xDEADBEEFu;
constexpr uint32_t kCanonicalNaN = 0x7FC00000u;

std::vector<const KernelTable*> available_tables() {
  std::vector<const KernelTable*> tables;
  for (KernelPath path : {KernelPath::Scalar, KernelPath::V128, KernelPath::Avx2, KernelPath::Avx512}) {
    if (const KernelTable* t = kernel_table(path)) tables.push_back(t);
  }
  return tables;
}

struct Case {
  DepthwiseArgs args;             // pointers filled per run
  std::vector<float> x, w, bias;  // bias empty: none
  bool specials = false;
  std::string str() const {
    const DepthwiseArgs& a = args;
    return "planes " + std::to_string(a.planes) + " mult " + std::to_string(a.multiplier) + " in " +
           std::to_string(a.in_h) + "x" + std::to_string(a.in_w) + " out " + std::to_string(a.out_h) + "x" +
           std::to_string(a.out_w) + " k " + std::to_string(a.kernel_h) + "x" + std::to_string(a.kernel_w) +
           " s " + std::to_string(a.stride_h) + "," + std::to_string(a.stride_w) + " d " +
           std::to_string(a.dilation_h) + "," + std::to_string(a.dilation_w) + " pad " +
           std::to_string(a.pad_top) + "," + std::to_string(a.pad_left) + (bias.empty() ? "" : " bias");
  }
};

// Input value at padded position (r, c) of input plane `plane`: +0 in the padding.
float input_at(const Case& c, int64_t plane, int64_t r, int64_t col) {
  const DepthwiseArgs& a = c.args;
  const int64_t iy = r - a.pad_top, ix = col - a.pad_left;
  if (iy < 0 || iy >= a.in_h || ix < 0 || ix >= a.in_w) return 0.0f;
  return c.x[static_cast<size_t>((plane * a.in_h + iy) * a.in_w + ix)];
}

// The exact definition, and the double-precision value and magnitude sums for the fast bound.
void reference(const Case& c, std::vector<float>& exact, std::vector<double>& value,
               std::vector<double>& mag) {
  const DepthwiseArgs& a = c.args;
  const int64_t out = a.out_h * a.out_w;
  exact.assign(static_cast<size_t>(a.planes * out), 0.0f);
  value.assign(exact.size(), 0.0);
  mag.assign(exact.size(), 0.0);
  for (int64_t q = 0; q < a.planes; ++q) {
    const float* w = c.w.data() + q % a.channels_out * a.kernel_h * a.kernel_w;
    for (int64_t oy = 0; oy < a.out_h; ++oy) {
      for (int64_t ox = 0; ox < a.out_w; ++ox) {
        float acc = 0.0f;
        double v = 0.0, m = 0.0;
        for (int64_t ky = 0; ky < a.kernel_h; ++ky) {
          for (int64_t kx = 0; kx < a.kernel_w; ++kx) {
            const float xv = input_at(c, q / a.multiplier, oy * a.stride_h + ky * a.dilation_h,
                                      ox * a.stride_w + kx * a.dilation_w);
            const float product = w[ky * a.kernel_w + kx] * xv;
            acc = acc + product;
            v += static_cast<double>(w[ky * a.kernel_w + kx]) * xv;
            m += std::fabs(static_cast<double>(w[ky * a.kernel_w + kx]) * xv);
          }
        }
        if (!c.bias.empty()) {
          const float b = c.bias[static_cast<size_t>(q % a.channels_out)];
          acc = acc + b;
          v += b;
          m += std::fabs(b);
        }
        const size_t i = static_cast<size_t>(q * out + oy * a.out_w + ox);
        exact[i] = std::isnan(acc) ? from_bits(kCanonicalNaN) : acc;
        value[i] = v;
        mag[i] = m;
      }
    }
  }
}

// Planes up to max_side square, kernel sides in [min_kernel, max_kernel].
Case random_case(std::mt19937& rng, bool specials, int64_t max_side = 20, int64_t min_kernel = 1,
                 int64_t max_kernel = 5) {
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  Case c;
  DepthwiseArgs& a = c.args;
  const int64_t channels = pick(1, 4), batch = pick(1, 2);
  a.multiplier = pick(1, 3);
  a.channels_out = channels * a.multiplier;
  a.planes = batch * a.channels_out;
  a.in_h = pick(1, max_side);
  a.in_w = pick(1, max_side);
  a.kernel_h = pick(min_kernel, max_kernel);
  a.kernel_w = pick(min_kernel, max_kernel);
  a.stride_h = pick(1, 3);
  a.stride_w = pick(0, 6) == 0 ? pick(4, 8) : pick(1, 3);
  a.dilation_h = pick(1, 3);
  a.dilation_w = pick(1, 3);
  a.pad_top = pick(0, 3);
  a.pad_left = pick(0, 3);
  const int64_t pad_bottom = pick(0, 3), pad_right = pick(0, 3);
  const int64_t eh = a.dilation_h * (a.kernel_h - 1) + 1, ew = a.dilation_w * (a.kernel_w - 1) + 1;
  const int64_t span_h = a.in_h + a.pad_top + pad_bottom, span_w = a.in_w + a.pad_left + pad_right;
  if (span_h < eh || span_w < ew) return random_case(rng, specials, max_side, min_kernel, max_kernel);
  a.out_h = (span_h - eh) / a.stride_h + 1;
  a.out_w = (span_w - ew) / a.stride_w + 1;
  std::normal_distribution<float> normal(0.0f, 1.0f);
  c.x.resize(static_cast<size_t>(batch * channels * a.in_h * a.in_w));
  c.w.resize(static_cast<size_t>(a.channels_out * a.kernel_h * a.kernel_w));
  for (float& v : c.x) v = normal(rng);
  for (float& v : c.w) v = normal(rng);
  if (pick(0, 1) == 1) {
    c.bias.resize(static_cast<size_t>(a.channels_out));
    for (float& v : c.bias) v = normal(rng);
  }
  c.specials = specials;
  if (specials) {
    const float odd[] = {std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                         std::numeric_limits<float>::quiet_NaN(), -0.0f, 1e-41f};
    for (float v : odd) c.w[static_cast<size_t>(pick(0, static_cast<int64_t>(c.w.size()) - 1))] = v;
    if (pick(0, 1) == 0) c.x[static_cast<size_t>(pick(0, static_cast<int64_t>(c.x.size()) - 1))] = -0.0f;
  }
  return c;
}

// Runs the kernel with sentinels after the output and after the scratch block.
std::vector<float> run(const KernelTable& t, const Case& c, bool exact, int threads) {
  DepthwiseArgs a = c.args;
  const ThreadContext ctx{threads};
  const size_t out = static_cast<size_t>(a.planes * a.out_h * a.out_w);
  std::vector<float> y(out + 8, from_bits(kSentinel));
  const size_t scratch_floats = t.depthwise_scratch_floats(a, ctx);
  std::vector<float> scratch(scratch_floats + 8, from_bits(kSentinel));
  a.x = c.x.data();
  a.w = c.w.data();
  a.bias = c.bias.empty() ? nullptr : c.bias.data();
  a.y = y.data();
  a.exact = exact;
  t.depthwise(a, scratch.data(), ctx);
  for (size_t i = out; i < y.size(); ++i) EXPECT_EQ(bits_of(y[i]), kSentinel) << "output overrun " << c.str();
  for (size_t i = scratch_floats; i < scratch.size(); ++i)
    EXPECT_EQ(bits_of(scratch[i]), kSentinel) << "scratch overrun " << c.str();
  y.resize(out);
  return y;
}

TEST(Depthwise, ExactMatchesDefinitionOnEveryPathAndThreadCount) {
  std::mt19937 rng(20261130);
  for (int iteration = 0; iteration < 300; ++iteration) {
    const Case c = random_case(rng, iteration % 3 == 0);
    std::vector<float> exact;
    std::vector<double> value, mag;
    reference(c, exact, value, mag);
    for (const KernelTable* t : available_tables()) {
      for (int threads : {1, 2}) {
        const std::vector<float> got = run(*t, c, true, threads);
        for (size_t i = 0; i < got.size(); ++i) {
          ASSERT_EQ(bits_of(got[i]), bits_of(exact[i]))
              << t->name << " threads " << threads << " element " << i << " of " << c.str();
        }
      }
    }
  }
}

// Rows of several vectors on the widest path, ragged ends, row groups of one to four, and kernels past the
// 64 taps the vector form takes.
TEST(Depthwise, WidePlanesAndLargeKernelsMatchDefinition) {
  std::mt19937 rng(141);
  for (int iteration = 0; iteration < 40; ++iteration) {
    const Case c =
        random_case(rng, iteration % 4 == 0, 90, iteration % 5 == 0 ? 9 : 1, iteration % 5 == 0 ? 10 : 5);
    std::vector<float> exact;
    std::vector<double> value, mag;
    reference(c, exact, value, mag);
    const double taps = static_cast<double>(c.args.kernel_h * c.args.kernel_w + 1);
    for (const KernelTable* t : available_tables()) {
      const std::vector<float> got = run(*t, c, true, 2);
      for (size_t i = 0; i < got.size(); ++i)
        ASSERT_EQ(bits_of(got[i]), bits_of(exact[i])) << t->name << " element " << i << " of " << c.str();
      if (c.specials) continue;
      const std::vector<float> fast = run(*t, c, false, 1);
      for (size_t i = 0; i < fast.size(); ++i) {
        ASSERT_LE(std::fabs(fast[i] - value[i]), taps * std::ldexp(1.0, -24) * mag[i] + 1e-30)
            << t->name << " element " << i << " of " << c.str();
      }
    }
  }
}

TEST(Depthwise, FastWithinSummationBound) {
  std::mt19937 rng(7);
  for (int iteration = 0; iteration < 150; ++iteration) {
    const Case c = random_case(rng, false);
    std::vector<float> exact;
    std::vector<double> value, mag;
    reference(c, exact, value, mag);
    const double taps = static_cast<double>(c.args.kernel_h * c.args.kernel_w + 1);
    for (const KernelTable* t : available_tables()) {
      const std::vector<float> one = run(*t, c, false, 1);
      const std::vector<float> two = run(*t, c, false, 2);
      for (size_t i = 0; i < one.size(); ++i) {
        ASSERT_LE(std::fabs(one[i] - value[i]), taps * std::ldexp(1.0, -24) * mag[i] + 1e-30)
            << t->name << " element " << i << " of " << c.str();
        ASSERT_EQ(bits_of(one[i]), bits_of(two[i])) << t->name << " thread count changed element " << i;
      }
    }
  }
}

TEST(Depthwise, InfiniteWeightMeetingPaddingIsNaN) {
  // One 3x3 plane padded by 1, weight +inf at the corner tap: the corner output multiplies inf by a padding
  // zero.
  Case c;
  DepthwiseArgs& a = c.args;
  a.planes = 1;
  a.in_h = a.in_w = 3;
  a.out_h = a.out_w = 3;
  a.kernel_h = a.kernel_w = 3;
  a.pad_top = a.pad_left = 1;
  c.x.assign(9, 1.0f);
  c.w.assign(9, 0.0f);
  c.w[0] = std::numeric_limits<float>::infinity();
  for (const KernelTable* t : available_tables()) {
    const std::vector<float> got = run(*t, c, true, 1);
    EXPECT_EQ(bits_of(got[0]), kCanonicalNaN) << t->name;  // tap (0,0) of output (0,0) is padding
    EXPECT_EQ(got[4], std::numeric_limits<float>::infinity()) << t->name;
  }
}

}  // namespace
}  // namespace onemodel
