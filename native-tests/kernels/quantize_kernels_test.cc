// The quantization loops of every kernel path this CPU runs (kernels/int8/quantize_kernels.h) against the
// scalar formula of the operators (ops::quant::quantize_value): ties at every scale, the clamping edges, NaN,
// infinities, signed zeros and random values over many magnitudes, at lengths that leave every tail size;
// DynamicQuantizeLinear's range against a plain loop; and DequantizeLinear's loops against the formula.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "graph/ops/quant/quant_common.h"
#include "kernels/int8/quantize_kernels.h"

namespace onemodel {
namespace {

std::vector<float> inputs(float scale) {
  std::vector<float> x = {0.0f,
                          -0.0f,
                          std::numeric_limits<float>::quiet_NaN(),
                          -std::numeric_limits<float>::quiet_NaN(),
                          std::numeric_limits<float>::infinity(),
                          -std::numeric_limits<float>::infinity(),
                          std::numeric_limits<float>::max(),
                          -std::numeric_limits<float>::max(),
                          std::numeric_limits<float>::denorm_min(),
                          1e30f,
                          -1e30f};
  for (int k = -300; k <= 300; ++k) {  // ties (k + 1/2) * scale and their neighbours
    const float tie = (static_cast<float>(k) + 0.5f) * scale;
    x.push_back(tie);
    x.push_back(std::nextafter(tie, 1e30f));
    x.push_back(std::nextafter(tie, -1e30f));
  }
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> exponent(-30.0f, 30.0f);
  for (int i = 0; i < 4000; ++i) {
    const float v = std::exp2(exponent(rng));
    x.push_back(rng() % 2 != 0 ? v : -v);
  }
  return x;
}

template <class Q>
void expect_quantize(const KernelTable& table, void (*fn)(const float*, float, float, Q*, size_t)) {
  for (const float scale : {1.0f, 0.0137f, 3.0e-5f, 250.0f}) {
    for (const float zero_point : {0.0f, static_cast<float>(std::numeric_limits<Q>::max()),
                                   static_cast<float>(std::numeric_limits<Q>::min()), 37.0f}) {
      const std::vector<float> x = inputs(scale);
      for (const size_t n : {x.size(), size_t{1}, size_t{15}, size_t{17}, size_t{33}}) {
        std::vector<Q> y(n, Q{42});
        fn(x.data(), scale, zero_point, y.data(), n);
        for (size_t i = 0; i < n; ++i) {
          ASSERT_EQ(y[i], ops::quant::quantize_value<Q>(x[i], scale, zero_point))
              << table.name << " x " << x[i] << " scale " << scale << " zero point " << zero_point;
        }
      }
    }
  }
}

TEST(QuantizeKernels, EqualTheScalarFormulaOnEveryPath) {
  for (const KernelTable* table : available_kernel_tables()) {
    const QuantizeKernels* q = quantize_kernels(table->path);
    ASSERT_NE(q, nullptr) << table->name;
    expect_quantize<uint8_t>(*table, q->to_u8);
    expect_quantize<int8_t>(*table, q->to_i8);
  }
}

TEST(QuantizeKernels, RangeIncludesZeroAndSkipsNaN) {
  std::vector<float> x = inputs(0.5f);
  x.erase(x.begin() + 4, x.begin() + 8);  // no infinities or extremes: the random values decide the range
  for (const KernelTable* table : available_kernel_tables()) {
    const QuantizeKernels* q = quantize_kernels(table->path);
    // Starts past the large values at the front let the random values decide, whichever vector (of the
    // several the loop keeps apart) and lane they fall in; 85 and 130 leave single vectors and tails.
    const size_t runs[][2] = {{0, x.size()}, {0, 0}, {0, 3}, {0, 17}, {20, 85}, {37, 130}, {50, 130}};
    for (const auto& [start, n] : runs) {
      const float* v = x.data() + start;
      float want_lo = 0.0f, want_hi = 0.0f;
      for (size_t i = 0; i < n; ++i) {
        if (v[i] < want_lo) want_lo = v[i];
        if (v[i] > want_hi) want_hi = v[i];
      }
      float lo = 1.0f, hi = -1.0f;
      q->range(v, n, &lo, &hi);
      EXPECT_EQ(lo, want_lo) << table->name << " start " << start << " n " << n;
      EXPECT_EQ(hi, want_hi) << table->name << " start " << start << " n " << n;
      EXPECT_FALSE(std::signbit(lo) && lo == 0.0f) << table->name;
    }
    const float positive[] = {-0.0f, 2.0f, std::numeric_limits<float>::quiet_NaN(), 5.0f};
    float lo = 1.0f, hi = -1.0f;
    q->range(positive, 4, &lo, &hi);
    EXPECT_EQ(lo, 0.0f);
    EXPECT_FALSE(std::signbit(lo)) << table->name << ": the range starts at +0";
    EXPECT_EQ(hi, 5.0f);
  }
}

TEST(QuantizeKernels, DequantizeEveryByteOnEveryPath) {
  std::vector<uint8_t> u(300);
  for (size_t i = 0; i < u.size(); ++i) u[i] = static_cast<uint8_t>(i * 7);
  std::vector<int8_t> s(u.size());
  for (size_t i = 0; i < u.size(); ++i) s[i] = static_cast<int8_t>(u[i]);
  for (const KernelTable* table : available_kernel_tables()) {
    const QuantizeKernels* q = quantize_kernels(table->path);
    for (const float scale : {1.0f, 0.0137f, -3.0e-5f, 1.0e38f}) {
      for (const int32_t zero_point : {0, 128, -128, 255, 37}) {
        std::vector<float> y(u.size());
        q->from_u8(u.data(), zero_point, scale, y.data(), u.size());
        for (size_t i = 0; i < u.size(); ++i) {
          ASSERT_EQ(y[i], static_cast<float>(static_cast<int32_t>(u[i]) - zero_point) * scale) << table->name;
        }
        q->from_i8(s.data(), zero_point, scale, y.data(), s.size() - 3);
        for (size_t i = 0; i + 3 < s.size(); ++i) {
          ASSERT_EQ(y[i], static_cast<float>(static_cast<int32_t>(s[i]) - zero_point) * scale) << table->name;
        }
      }
    }
  }
}

TEST(QuantizeKernels, LookupEveryByteOnEveryPath) {
  std::vector<uint8_t> table(256), x(1000);
  std::mt19937 rng(3);
  for (uint8_t& t : table) t = static_cast<uint8_t>(rng());
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<uint8_t>(i < 256 ? i : rng());
  for (const KernelTable* kernels : available_kernel_tables()) {
    const QuantizeKernels* q = quantize_kernels(kernels->path);
    for (const size_t n : {size_t{0}, size_t{1}, size_t{63}, size_t{64}, size_t{300}, x.size()}) {
      std::vector<uint8_t> y(n + 1, 0xA5);  // the byte past n must stay untouched
      q->lookup(x.data(), table.data(), y.data(), n);
      for (size_t i = 0; i < n; ++i)
        ASSERT_EQ(y[i], table[x[i]]) << kernels->name << " n " << n << " i " << i;
      ASSERT_EQ(y[n], 0xA5) << kernels->name << " n " << n;
    }
  }
}

}  // namespace
}  // namespace onemodel
