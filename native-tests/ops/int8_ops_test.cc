// MatMulInteger, QLinearMatMul, ConvInteger, QLinearConv and the MatMulInteger -> Cast -> Mul -> Add chain
// (which the matmul-integer-fusion pass turns into MatMulIntegerToFloat) against naive 64-bit references
// written here, on every kernel path at 1 and 3 threads in both modes, plus the ONNX backend node cases.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "ops/op_test_util.h"

namespace onemodel::test {
namespace {

std::vector<uint8_t> random_bytes(std::mt19937& rng, int64_t count) {
  std::vector<uint8_t> v(static_cast<size_t>(count));
  for (auto& x : v) x = static_cast<uint8_t>(rng() & 0xFF);
  return v;
}
int64_t count_of(const std::vector<int64_t>& dims) {
  int64_t c = 1;
  for (int64_t d : dims) c *= d;
  return c;
}
std::string dims_str(const std::vector<int64_t>& dims) {
  std::string s;
  for (int64_t d : dims) s += std::to_string(d) + " ";
  return s;
}
int64_t at(const std::vector<uint8_t>& v, DType t, int64_t i) {
  return t == DType::I8 ? static_cast<int64_t>(static_cast<int8_t>(v[static_cast<size_t>(i)]))
                        : static_cast<int64_t>(v[static_cast<size_t>(i)]);
}
// int8.md's requantization: clamp(round_half_even(float(acc) * mult) + zp), rounding in double (exact for
// a float32 value).
int64_t requantize(int64_t acc, float mult, int64_t zp, DType y) {
  const float v = static_cast<float>(acc) * mult;
  double r = std::nearbyint(static_cast<double>(v)) + static_cast<double>(zp);
  const double lo = y == DType::I8 ? -128 : 0, hi = y == DType::I8 ? 127 : 255;
  return static_cast<int64_t>(r < lo ? lo : (r > hi ? hi : r));
}

// Runs `b` on every path at 1 and 3 threads in both modes; every run must give `want` exactly.
void expect_everywhere(const ModelBuilder& b, const std::vector<NamedTensor>& feeds, const Tensor& want) {
  for (const std::string& path : kernel_paths()) {
    for (int threads : {1, 3}) {
      for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
        const Tensor got = b.run(feeds, options(mode, path, threads))[0];
        ASSERT_TRUE(same_bytes(got, want)) << "path " << path << " threads " << threads;
      }
    }
  }
}

TEST(Int8Ops, BackendNodeCases) {
  EXPECT_EQ(check_backend_cases({"test_matmulinteger", "test_qlinearmatmul", "test_convinteger",
                                 "test_basic_convinteger", "test_qlinearconv"}),
            14);
}

TEST(Int8Ops, MatMulIntegerBroadcastAndZeroPoints) {
  std::mt19937 rng(5);
  struct Case {
    std::vector<int64_t> a, b;
    DType ta, tb;
    bool per_axis;
  };
  const Case cases[] = {{{2, 3, 5, 7}, {7, 9}, DType::U8, DType::I8, false},
                        {{3, 1, 4, 70}, {2, 70, 5}, DType::I8, DType::U8, false},
                        {{6, 600}, {600, 66}, DType::U8, DType::U8, true},
                        {{5}, {5, 3}, DType::I8, DType::I8, false},
                        {{4, 5}, {5}, DType::U8, DType::I8, true},
                        {{2, 50, 3}, {3, 65}, DType::I8, DType::U8, true}};
  for (const Case& c : cases) {
    const int64_t k = c.a.back(), m = c.a.size() > 1 ? c.a[c.a.size() - 2] : 1;
    const int64_t n = c.b.size() > 1 ? c.b.back() : 1;
    const int64_t a_count = count_of(c.a), b_count = count_of(c.b);
    const std::vector<uint8_t> a = random_bytes(rng, a_count), b = random_bytes(rng, b_count);
    const std::vector<uint8_t> za = random_bytes(rng, c.per_axis ? m : 1),
                               zb = random_bytes(rng, c.per_axis ? n : 1);
    // Reference: numpy broadcasting of the batch axes, written out for these cases.
    const int64_t a_batches = a_count / (m * k), b_batches = b_count / (k * n);
    const int64_t batches = std::max(a_batches, b_batches) * (c.a.size() == 4 && c.b.size() == 3 ? 2 : 1);
    std::vector<int32_t> want;
    for (int64_t bi = 0; bi < batches; ++bi) {
      // For {3,1,4,70} x {2,70,5}: batch (i, j) reads A batch i and B batch j.
      const int64_t ab = c.b.size() == 3 && c.a.size() == 4 ? bi / 2 : bi % a_batches;
      const int64_t bb = c.b.size() == 3 && c.a.size() == 4 ? bi % 2 : bi % b_batches;
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          int64_t s = 0;
          for (int64_t p = 0; p < k; ++p) {
            s += (at(a, c.ta, ab * m * k + i * k + p) - at(za, c.ta, c.per_axis ? i : 0)) *
                 (at(b, c.tb, bb * k * n + p * n + j) - at(zb, c.tb, c.per_axis ? j : 0));
          }
          want.push_back(static_cast<int32_t>(s));
        }
      }
    }
    for (bool constant_b : {false, true}) {
      ModelBuilder mb(13);
      mb.input("a", c.ta, c.a).output("y", DType::I32);
      const Tensor bt = tensor_of<uint8_t>(c.tb, c.b, b);
      if (constant_b)
        mb.initializer("b", bt);
      else
        mb.input("b", c.tb, c.b);
      mb.initializer(
          "za", tensor_of<uint8_t>(c.ta, c.per_axis ? std::vector<int64_t>{m} : std::vector<int64_t>{}, za));
      mb.initializer(
          "zb", tensor_of<uint8_t>(c.tb, c.per_axis ? std::vector<int64_t>{n} : std::vector<int64_t>{}, zb));
      mb.node("MatMulInteger", {"a", "b", "za", "zb"}, {"y"});
      std::vector<NamedTensor> feeds = {{"a", tensor_of<uint8_t>(c.ta, c.a, a)}};
      if (!constant_b) feeds.push_back({"b", bt});
      const Tensor got = mb.run(feeds)[0];
      ASSERT_EQ(elements_of<int32_t>(got), want) << "case " << dims_str(c.a) << "x " << dims_str(c.b);
      expect_everywhere(mb, feeds, got);
    }
  }
}

TEST(Int8Ops, QLinearMatMulPerColumnAndBias) {
  std::mt19937 rng(8);
  const int64_t m = 37, k = 129, n = 70;
  for (int variant = 0; variant < 4; ++variant) {
    const DType ta = variant & 1 ? DType::I8 : DType::U8, tb = variant & 2 ? DType::I8 : DType::U8;
    const DType ty = variant == 1 ? DType::I8 : DType::U8;
    const std::vector<uint8_t> a = random_bytes(rng, m * k), b = random_bytes(rng, k * n);
    const std::vector<uint8_t> za = random_bytes(rng, 1), zb = random_bytes(rng, n),
                               zy = random_bytes(rng, 1);
    std::vector<float> sb(static_cast<size_t>(n));
    std::vector<int32_t> bias(static_cast<size_t>(n));
    for (int64_t j = 0; j < n; ++j) {
      sb[j] = 0.001f + 0.0001f * static_cast<float>(j);
      bias[j] = static_cast<int32_t>(rng() % 20001) - 10000;
    }
    const float sa = 0.02f, sy = 0.37f;
    std::vector<uint8_t> want;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        int64_t s = bias[j];
        for (int64_t p = 0; p < k; ++p)
          s += (at(a, ta, i * k + p) - at(za, ta, 0)) * (at(b, tb, p * n + j) - at(zb, tb, j));
        want.push_back(static_cast<uint8_t>(requantize(s, (sa * sb[j]) / sy, at(zy, ty, 0), ty)));
      }
    }
    ModelBuilder mb(21);
    mb.input("a", ta, {m, k}).output("y", ty);
    mb.initializer("sa", Tensor::from(std::vector<float>{sa}, {}));
    mb.initializer("za", tensor_of<uint8_t>(ta, {}, za));
    mb.initializer("b", tensor_of<uint8_t>(tb, {k, n}, b));
    mb.initializer("sb", Tensor::from(sb, {n}));
    mb.initializer("zb", tensor_of<uint8_t>(tb, {n}, zb));
    mb.initializer("sy", Tensor::from(std::vector<float>{sy}, {}));
    mb.initializer("zy", tensor_of<uint8_t>(ty, {}, zy));
    mb.initializer("bias", Tensor::from(bias, {n}));
    mb.node("QLinearMatMul", {"a", "sa", "za", "b", "sb", "zb", "sy", "zy", "bias"}, {"y"});
    const std::vector<NamedTensor> feeds = {{"a", tensor_of<uint8_t>(ta, {m, k}, a)}};
    const Tensor got = mb.run(feeds)[0];
    ASSERT_EQ(elements_of<uint8_t>(got), want) << "variant " << variant;
    expect_everywhere(mb, feeds, got);
  }
}

TEST(Int8Ops, MatMulIntegerCastMulAdd) {
  std::mt19937 rng(11);
  const int64_t m = 9, k = 33, n = 20;
  const std::vector<uint8_t> a = random_bytes(rng, m * k), b = random_bytes(rng, k * n);
  const std::vector<uint8_t> za = random_bytes(rng, 1), zb = random_bytes(rng, 1);
  std::vector<float> scale(static_cast<size_t>(n)), bias(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) {
    scale[j] = 1e-4f * static_cast<float>(j + 1) / 3.0f;
    bias[j] = static_cast<float>(j) / 7.0f - 1.0f;
  }
  std::vector<float> want;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      int64_t s = 0;
      for (int64_t p = 0; p < k; ++p)
        s += (at(a, DType::U8, i * k + p) - za[0]) * (at(b, DType::I8, p * n + j) - at(zb, DType::I8, 0));
      want.push_back(static_cast<float>(s) * scale[j] + bias[j]);  // two float32 roundings: no contraction
    }
  }
  ModelBuilder mb(13);
  mb.input("a", DType::U8, {m, k}).output("y", DType::F32);
  mb.initializer("b", tensor_of<uint8_t>(DType::I8, {k, n}, b));
  mb.initializer("za", tensor_of<uint8_t>(DType::U8, {}, za));
  mb.initializer("zb", tensor_of<uint8_t>(DType::I8, {}, zb));
  mb.initializer("scale", Tensor::from(scale, {n}));
  mb.initializer("bias", Tensor::from(bias, {n}));
  mb.node("MatMulInteger", {"a", "b", "za", "zb"}, {"acc"});
  mb.node("Cast", {"acc"}, {"f"}, {Attr::i("to", 1)});
  mb.node("Mul", {"f", "scale"}, {"scaled"});
  mb.node("Add", {"scaled", "bias"}, {"y"});
  const std::vector<NamedTensor> feeds = {{"a", tensor_of<uint8_t>(DType::U8, {m, k}, a)}};
  const Tensor got = mb.run(feeds, options(ExecutionMode::Exact))[0];
  ASSERT_EQ(elements_of<float>(got), want);
  expect_everywhere(mb, feeds, got);
}

// QLinearConv (and ConvInteger with the same operands) against a naive convolution.
struct ConvCase {
  int64_t batch, channels, out_channels, group, h, w, kh, kw;
  std::vector<int64_t> strides, dilations, pads;
  std::string auto_pad;
  DType tx, tw;
  bool per_channel;
};

TEST(Int8Ops, ConvolutionsAgainstNaiveReference) {
  std::mt19937 rng(21);
  const ConvCase cases[] = {
      {2, 3, 5, 1, 9, 8, 3, 3, {1, 1}, {1, 1}, {1, 1, 1, 1}, "", DType::U8, DType::I8, true},
      {1, 4, 6, 2, 7, 9, 3, 2, {2, 1}, {1, 2}, {0, 1, 1, 0}, "", DType::I8, DType::U8, true},
      {1, 6, 6, 6, 10, 10, 3, 3, {1, 1}, {1, 1}, {}, "SAME_UPPER", DType::U8, DType::U8, true},
      {1, 8, 16, 8, 6, 6, 3, 3, {2, 2}, {1, 1}, {}, "SAME_LOWER", DType::I8, DType::I8, false},
      {1, 70, 3, 1, 5, 5, 1, 1, {1, 1}, {1, 1}, {}, "VALID", DType::U8, DType::I8, false},
      {2, 2, 4, 1, 1, 30, 1, 5, {1, 3}, {1, 2}, {0, 2, 0, 1}, "", DType::U8, DType::I8, true},
      // Depthwise (the direct kernel): wide and odd rows, strides, dilations, 1-D.
      {1, 24, 24, 24, 13, 37, 3, 3, {2, 2}, {1, 1}, {1, 1, 1, 1}, "", DType::I8, DType::I8, true},
      {2, 5, 5, 5, 9, 70, 5, 5, {1, 3}, {2, 1}, {2, 0, 1, 3}, "", DType::U8, DType::U8, false},
      {1, 3, 3, 3, 1, 40, 1, 7, {1, 2}, {1, 1}, {0, 3, 0, 3}, "", DType::U8, DType::I8, true},
  };
  int index = 0;
  for (const ConvCase& c : cases) {
    const int64_t cin = c.channels / c.group, cout = c.out_channels / c.group, taps = c.kh * c.kw;
    // Output geometry and padding (ops-conv.md).
    int64_t out[2], pad_before[2];
    const int64_t in[2] = {c.h, c.w}, kernel[2] = {c.kh, c.kw};
    for (int a = 0; a < 2; ++a) {
      const int64_t s = c.strides[a], d = c.dilations[a], e = d * (kernel[a] - 1) + 1;
      if (c.auto_pad == "SAME_UPPER" || c.auto_pad == "SAME_LOWER") {
        out[a] = (in[a] + s - 1) / s;
        const int64_t total = std::max<int64_t>(0, (out[a] - 1) * s + e - in[a]);
        pad_before[a] = c.auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      } else {
        const int64_t pb = c.pads.empty() ? 0 : c.pads[a], pa = c.pads.empty() ? 0 : c.pads[2 + a];
        out[a] = (in[a] + pb + pa - e) / s + 1;
        pad_before[a] = pb;
      }
    }
    const std::vector<uint8_t> x = random_bytes(rng, c.batch * c.channels * c.h * c.w);
    const std::vector<uint8_t> w = random_bytes(rng, c.out_channels * cin * taps);
    const std::vector<uint8_t> zx = random_bytes(rng, 1),
                               zw = random_bytes(rng, c.per_channel ? c.out_channels : 1);
    const std::vector<uint8_t> zy = random_bytes(rng, 1);
    std::vector<float> sw(static_cast<size_t>(c.per_channel ? c.out_channels : 1));
    for (size_t j = 0; j < sw.size(); ++j) sw[j] = 0.003f + 0.0007f * static_cast<float>(j);
    std::vector<int32_t> bias(static_cast<size_t>(c.out_channels));
    for (auto& v : bias) v = static_cast<int32_t>(rng() % 4001) - 2000;
    const float sx = 0.05f, sy = 0.11f;
    std::vector<int32_t> want_int;  // ConvInteger with the first weight zero point
    std::vector<uint8_t> want_q;
    for (int64_t n = 0; n < c.batch; ++n) {
      for (int64_t co = 0; co < c.out_channels; ++co) {
        const int64_t g = co / cout;
        for (int64_t oy = 0; oy < out[0]; ++oy) {
          for (int64_t ox = 0; ox < out[1]; ++ox) {
            int64_t s_int = 0, s_q = 0;
            for (int64_t ci = 0; ci < cin; ++ci) {
              for (int64_t ky = 0; ky < c.kh; ++ky) {
                for (int64_t kx = 0; kx < c.kw; ++kx) {
                  const int64_t iy = oy * c.strides[0] - pad_before[0] + ky * c.dilations[0];
                  const int64_t ix = ox * c.strides[1] - pad_before[1] + kx * c.dilations[1];
                  if (iy < 0 || iy >= c.h || ix < 0 || ix >= c.w) continue;
                  const int64_t xv =
                      at(x, c.tx, ((n * c.channels + g * cin + ci) * c.h + iy) * c.w + ix) - at(zx, c.tx, 0);
                  const int64_t wv = at(w, c.tw, ((co * cin + ci) * c.kh + ky) * c.kw + kx);
                  s_int += xv * (wv - at(zw, c.tw, 0));
                  s_q += xv * (wv - at(zw, c.tw, c.per_channel ? co : 0));
                }
              }
            }
            want_int.push_back(static_cast<int32_t>(s_int));
            const float mult = (sx * sw[c.per_channel ? static_cast<size_t>(co) : 0]) / sy;
            want_q.push_back(static_cast<uint8_t>(
                requantize(s_q + bias[static_cast<size_t>(co)], mult, at(zy, DType::U8, 0), DType::U8)));
          }
        }
      }
    }
    std::vector<Attr> attrs = {Attr::i("group", c.group), Attr::ints("strides", c.strides),
                               Attr::ints("dilations", c.dilations)};
    if (!c.pads.empty()) attrs.push_back(Attr::ints("pads", c.pads));
    if (!c.auto_pad.empty()) attrs.push_back(Attr::s("auto_pad", c.auto_pad));
    const std::vector<int64_t> x_dims = {c.batch, c.channels, c.h, c.w},
                               w_dims = {c.out_channels, cin, c.kh, c.kw};
    const std::vector<int64_t> zw_dims =
        c.per_channel ? std::vector<int64_t>{c.out_channels} : std::vector<int64_t>{};
    const std::vector<NamedTensor> feeds = {{"x", tensor_of<uint8_t>(c.tx, x_dims, x)}};
    ModelBuilder ci(10);
    ci.input("x", c.tx, x_dims).output("y", DType::I32);
    ci.initializer("w", tensor_of<uint8_t>(c.tw, w_dims, w));
    ci.initializer("zx", tensor_of<uint8_t>(c.tx, {}, zx));
    ci.initializer("zw", tensor_of<uint8_t>(c.tw, {}, {zw[0]}));
    ci.node("ConvInteger", {"x", "w", "zx", "zw"}, {"y"}, attrs);
    const Tensor got_int = ci.run(feeds)[0];
    ASSERT_EQ(elements_of<int32_t>(got_int), want_int) << "ConvInteger case " << index;
    expect_everywhere(ci, feeds, got_int);
    ModelBuilder q(10);
    q.input("x", c.tx, x_dims).input("w", c.tw, w_dims).output("y", DType::U8);
    q.initializer("sx", Tensor::from(std::vector<float>{sx}, {}));
    q.initializer("zx", tensor_of<uint8_t>(c.tx, {}, zx));
    q.initializer("sw", Tensor::from(sw, {static_cast<int64_t>(sw.size())}));
    q.initializer("zw", tensor_of<uint8_t>(c.tw, zw_dims, zw));
    q.initializer("sy", Tensor::from(std::vector<float>{sy}, {}));
    q.initializer("zy", tensor_of<uint8_t>(DType::U8, {}, zy));
    q.initializer("bias", Tensor::from(bias, {c.out_channels}));
    q.node("QLinearConv", {"x", "sx", "zx", "w", "sw", "zw", "sy", "zy", "bias"}, {"y"}, attrs);
    const std::vector<NamedTensor> q_feeds = {feeds[0], {"w", tensor_of<uint8_t>(c.tw, w_dims, w)}};
    const Tensor got_q = q.run(q_feeds)[0];
    ASSERT_EQ(elements_of<uint8_t>(got_q), want_q) << "QLinearConv case " << index;
    expect_everywhere(q, q_feeds, got_q);
    ++index;
  }
}

}  // namespace
}  // namespace onemodel::test
