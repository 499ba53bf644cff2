// The direct depthwise int8 kernel on every kernel path this CPU runs, against a 64-bit naive convolution
// written here: odd and wide planes (past four vectors of the widest path, narrower than one vector), every
// stride, dilation and padding kind, odd and large tap counts, every signedness, zero-point kind (none, per
// tensor, per channel for the weights) and epilogue, extreme values, and identical bits at 1, 2 and 3
// threads.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/kernel_table.h"
#include "threading/parallel_for.h"

namespace onemodel {
namespace {

int64_t value(const std::vector<uint8_t>& bytes, bool is_signed, int64_t i) {
  return is_signed ? static_cast<int64_t>(static_cast<int8_t>(bytes[static_cast<size_t>(i)]))
                   : static_cast<int64_t>(bytes[static_cast<size_t>(i)]);
}

std::vector<uint8_t> random_bytes(std::mt19937& rng, int64_t count) {
  std::vector<uint8_t> v(static_cast<size_t>(count));
  for (auto& x : v) x = static_cast<uint8_t>(rng() & 0xFF);
  return v;
}

struct Geometry {
  int64_t batch, channels, in_h, in_w, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr;
};

struct Problem {
  Geometry g{};
  int64_t out_h = 0, out_w = 0;
  bool x_signed = false, w_signed = false;
  std::vector<uint8_t> x, w, x_zero, w_zero;  // zero points: empty (none), 1 value, or one per channel (w)
  Int8Epilogue epilogue = Int8Epilogue::Int32;
  std::vector<int32_t> bias_i32;
  std::vector<float> mult, scale, bias_f32;  // 1 value or one per channel
  int32_t y_zero = 0;
  bool y_signed = false;

  int64_t planes() const { return g.batch * g.channels; }
  int64_t outputs() const { return planes() * out_h * out_w; }
  int64_t zx() const { return x_zero.empty() ? 0 : value(x_zero, x_signed, 0); }
  int64_t zw(int64_t c) const {
    return w_zero.empty() ? 0 : value(w_zero, w_signed, w_zero.size() > 1 ? c : 0);
  }

  // The exact 64-bit sum of output (q, oy, ox).
  int64_t sum(int64_t q, int64_t oy, int64_t ox) const {
    const int64_t c = q % g.channels;
    int64_t s = 0;
    for (int64_t ky = 0; ky < g.kh; ++ky) {
      for (int64_t kx = 0; kx < g.kw; ++kx) {
        const int64_t iy = oy * g.sh - g.pt + ky * g.dh, ix = ox * g.sw - g.pl + kx * g.dw;
        if (iy < 0 || iy >= g.in_h || ix < 0 || ix >= g.in_w) continue;
        s += (value(x, x_signed, (q * g.in_h + iy) * g.in_w + ix) - zx()) *
             (value(w, w_signed, (c * g.kh + ky) * g.kw + kx) - zw(c));
      }
    }
    return s;
  }

  Int8DepthwiseArgs args(void* y) const {
    Int8DepthwiseArgs a;
    a.planes = planes(), a.channels = g.channels, a.out_h = out_h;
    Int8ConvA& c = a.geometry;
    c.in_h = g.in_h, c.in_w = g.in_w, c.out_w = out_w, c.kernel_h = g.kh, c.kernel_w = g.kw;
    c.stride_h = g.sh, c.stride_w = g.sw, c.dilation_h = g.dh, c.dilation_w = g.dw, c.pad_top = g.pt,
    c.pad_left = g.pl;
    a.x = x.data(), a.x_signed = x_signed, a.x_zero = x_zero.empty() ? nullptr : x_zero.data();
    a.w = w.data(), a.w_signed = w_signed, a.w_zero = w_zero.empty() ? nullptr : w_zero.data();
    a.w_zero_per_channel = w_zero.size() > 1;
    a.epilogue = epilogue;
    a.y = y;
    a.bias_i32 = bias_i32.empty() ? nullptr : bias_i32.data();
    a.mult = mult.data(), a.mult_per_channel = mult.size() > 1;
    a.y_zero = y_zero, a.y_signed = y_signed;
    a.scale = scale.data(), a.scale_per_channel = scale.size() > 1;
    a.bias_f32 = bias_f32.empty() ? nullptr : bias_f32.data();
    a.exact = true;
    return a;
  }
};

Problem make_problem(const Geometry& g) {
  Problem pr;
  pr.g = g;
  pr.out_h = (g.in_h + g.pt + g.pb - ((g.kh - 1) * g.dh + 1)) / g.sh + 1;
  pr.out_w = (g.in_w + g.pl + g.pr - ((g.kw - 1) * g.dw + 1)) / g.sw + 1;
  return pr;
}

// Output (q, oy, ox) as a 32-bit pattern: the int32, the 8-bit value, or the float's bits, by int8.md's
// formulas in 64-bit integers and float32 steps (rounding of the requantized product in double, exact for a
// float32 value; the default rounding mode is ties to even).
uint32_t reference(const Problem& pr, int64_t q, int64_t oy, int64_t ox) {
  const int64_t c = q % pr.g.channels;
  int64_t acc = pr.sum(q, oy, ox);
  if (pr.epilogue != Int8Epilogue::Float && !pr.bias_i32.empty()) acc += pr.bias_i32[static_cast<size_t>(c)];
  switch (pr.epilogue) {
    case Int8Epilogue::Int32:
      return static_cast<uint32_t>(static_cast<int32_t>(acc));
    case Int8Epilogue::Requantize: {
      const float v = static_cast<float>(acc) * pr.mult[pr.mult.size() > 1 ? static_cast<size_t>(c) : 0];
      double r = std::nearbyint(static_cast<double>(v)) + pr.y_zero;
      const double lo = pr.y_signed ? -128 : 0, hi = pr.y_signed ? 127 : 255;
      r = r < lo ? lo : (r > hi ? hi : r);
      return static_cast<uint32_t>(static_cast<int32_t>(r)) & 0xFFu;
    }
    case Int8Epilogue::Float: {
      float v = static_cast<float>(acc) * pr.scale[pr.scale.size() > 1 ? static_cast<size_t>(c) : 0];
      if (!pr.bias_f32.empty()) v = v + pr.bias_f32[static_cast<size_t>(c)];
      uint32_t u;
      std::memcpy(&u, &v, 4);
      return u;
    }
  }
  return 0;
}

std::vector<uint32_t> run(const KernelTable& t, const Problem& pr, int threads) {
  const size_t elem = pr.epilogue == Int8Epilogue::Requantize ? 1 : 4;
  const size_t bytes = static_cast<size_t>(pr.outputs()) * elem;
  std::vector<uint8_t> y(bytes + 64, 0xCD);
  const Int8DepthwiseArgs args = pr.args(y.data());
  const ThreadContext ctx{threads};
  std::vector<uint8_t> scratch(t.int8_depthwise_scratch_bytes(args, ctx));
  t.int8_depthwise(args, scratch.empty() ? nullptr : scratch.data(), ctx);
  for (size_t i = bytes; i < y.size(); ++i) EXPECT_EQ(y[i], 0xCD) << "stray write past the output";
  std::vector<uint32_t> out(static_cast<size_t>(pr.outputs()));
  for (size_t i = 0; i < out.size(); ++i) {
    uint32_t u = 0;
    std::memcpy(&u, y.data() + i * elem, elem);
    out[i] = u;
  }
  return out;
}

void check(const Problem& pr, const std::string& label) {
  std::vector<uint32_t> expected;
  for (int64_t q = 0; q < pr.planes(); ++q) {
    for (int64_t oy = 0; oy < pr.out_h; ++oy) {
      for (int64_t ox = 0; ox < pr.out_w; ++ox) expected.push_back(reference(pr, q, oy, ox));
    }
  }
  for (const KernelTable* t : available_kernel_tables()) {
    for (int threads : {1, 2, 3}) {
      const std::vector<uint32_t> got = run(*t, pr, threads);
      size_t bad = 0;
      for (size_t i = 0; i < got.size(); ++i) {
        if (got[i] != expected[i] && bad++ < 3) {
          ADD_FAILURE() << label << " path " << t->name << " threads " << threads << " output " << i
                        << ": got " << got[i] << " expected " << expected[i];
        }
      }
      if (bad > 0) return;
    }
  }
}

// Operands, zero points and epilogue parameters chosen by the bits of `variant`.
Problem random_problem(std::mt19937& rng, const Geometry& g, int variant) {
  Problem pr = make_problem(g);
  pr.x_signed = variant & 1;
  pr.w_signed = (variant >> 1) & 1;
  pr.x = random_bytes(rng, pr.planes() * g.in_h * g.in_w);
  pr.w = random_bytes(rng, g.channels * g.kh * g.kw);
  const int zero_kind = (variant >> 2) % 3;  // none, per tensor, per-channel weights
  if (zero_kind > 0) {
    pr.x_zero = random_bytes(rng, 1);
    pr.w_zero = random_bytes(rng, zero_kind == 2 ? g.channels : 1);
  }
  pr.epilogue = static_cast<Int8Epilogue>(variant % 3);
  const bool per_channel = (variant >> 3) & 1;
  std::uniform_real_distribution<float> unit(1e-5f, 2e-3f);
  pr.mult.resize(per_channel ? static_cast<size_t>(g.channels) : 1);
  for (float& m : pr.mult) m = unit(rng);
  pr.scale = pr.mult;
  if ((variant >> 4) & 1) {
    std::uniform_int_distribution<int32_t> bias(-50000, 50000);
    for (int64_t c = 0; c < g.channels; ++c) {
      pr.bias_i32.push_back(bias(rng));
      pr.bias_f32.push_back(static_cast<float>(bias(rng)) * 0.01f);
    }
  }
  pr.y_signed = (variant >> 5) & 1;
  pr.y_zero = pr.y_signed ? static_cast<int32_t>(rng() % 256) - 128 : static_cast<int32_t>(rng() % 256);
  return pr;
}

std::string describe(const Geometry& g) {
  return std::to_string(g.channels) + "x" + std::to_string(g.in_h) + "x" + std::to_string(g.in_w) + " k" +
         std::to_string(g.kh) + "x" + std::to_string(g.kw) + " s" + std::to_string(g.sh) + "," +
         std::to_string(g.sw) + " d" + std::to_string(g.dh) + "," + std::to_string(g.dw);
}

TEST(Int8Depthwise, GeometriesEveryPathAndEpilogue) {
  std::mt19937 rng(606);
  const Geometry geometries[] = {
      // batch, channels, in_h, in_w, kh, kw, sh, sw, dh, dw, pads top, left, bottom, right
      {1, 3, 9, 11, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},   {2, 5, 13, 17, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},
      {1, 4, 7, 150, 3, 3, 1, 1, 1, 1, 0, 1, 2, 1},  {1, 3, 6, 141, 5, 5, 2, 2, 1, 1, 2, 2, 2, 2},
      {1, 2, 20, 35, 5, 3, 3, 3, 2, 2, 0, 4, 3, 0},  {1, 7, 5, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0},
      {1, 2, 1, 77, 1, 7, 1, 2, 1, 1, 0, 3, 0, 3},   {1, 3, 12, 40, 2, 3, 1, 1, 3, 2, 1, 0, 0, 2},
      {1, 2, 11, 23, 9, 9, 1, 1, 1, 1, 4, 4, 4, 4},  {3, 1, 4, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
      {1, 40, 8, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},   {1, 2, 30, 65, 3, 3, 2, 4, 1, 1, 1, 1, 1, 1},
      {1, 2, 10, 33, 3, 3, 1, 1, 1, 1, 3, 5, 3, 6},  {1, 3, 16, 48, 3, 2, 1, 1, 1, 1, 0, 0, 0, 0},
      {1, 2, 4, 100, 1, 16, 1, 1, 1, 1, 0, 0, 0, 0}, {2, 3, 29, 31, 4, 4, 2, 2, 1, 1, 1, 2, 2, 1},
  };
  int variant = 0;
  for (const Geometry& g : geometries) {
    for (int rep = 0; rep < 3; ++rep, variant += 11) {
      check(random_problem(rng, g, variant % 64), describe(g) + " variant " + std::to_string(variant % 64));
      if (HasFailure()) return;
    }
  }
}

TEST(Int8Depthwise, EveryVariantOnOneOddShape) {
  std::mt19937 rng(17);
  const Geometry g{1, 5, 11, 45, 3, 3, 2, 1, 1, 2, 1, 2, 0, 1};
  for (int variant = 0; variant < 64; ++variant) {
    check(random_problem(rng, g, variant), "variant " + std::to_string(variant));
    if (HasFailure()) return;
  }
}

TEST(Int8Depthwise, ExtremeValuesManyTaps) {
  // Every product at its largest magnitude (255 * 255), 121 taps per output and padding around: the pair
  // products and the sums are at their ends.
  for (int variant = 0; variant < 8; ++variant) {
    Problem pr = make_problem({1, 3, 15, 70, 11, 11, 1, 1, 1, 1, 5, 5, 5, 5});
    pr.x_signed = variant & 1, pr.w_signed = (variant >> 1) & 1;
    pr.x.assign(static_cast<size_t>(pr.planes() * 15 * 70), pr.x_signed ? 0x80 : 0xFF);
    pr.w.assign(static_cast<size_t>(3 * 121), pr.w_signed ? 0x80 : 0x00);
    pr.x_zero = {static_cast<uint8_t>(pr.x_signed ? 0x7F : 0x00)};
    pr.w_zero = {static_cast<uint8_t>(pr.w_signed ? 0x7F : 0xFF)};
    pr.epilogue = variant & 4 ? Int8Epilogue::Requantize : Int8Epilogue::Int32;
    pr.mult = {1.0f / 4096.0f};  // exact: many outputs are ties
    pr.y_zero = 7;
    check(pr, "extreme variant " + std::to_string(variant));
  }
}

}  // namespace
}  // namespace onemodel
