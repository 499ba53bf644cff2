// The signal operators beyond the ONNX backend cases: DFT against a naive transform in double (real and
// complex input, dft_length padding and cutting, inverse, one-sided, opset 20's axis input), STFT frames,
// the window functions' formulas and output_datatype, a window size known only at run time, MelWeightMatrix's
// triangles, and the refusal of exact mode naming the operator.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <numbers>
#include <random>

#include "ops/op_test_util.h"

namespace onemodel::test {
namespace {

using Kind = SessionError::Kind;

// Naive transform of n points (input cut or zero-padded to n), `bins` outputs, in double.
std::vector<std::complex<double>> naive_dft(const std::vector<std::complex<double>>& x, int64_t n,
                                            int64_t bins, bool inverse) {
  std::vector<std::complex<double>> y(static_cast<size_t>(bins));
  for (int64_t k = 0; k < bins; ++k) {
    for (int64_t t = 0; t < n && t < static_cast<int64_t>(x.size()); ++t) {
      const double angle =
          (inverse ? 2.0 : -2.0) * std::numbers::pi * static_cast<double>(k * t) / static_cast<double>(n);
      y[static_cast<size_t>(k)] += x[static_cast<size_t>(t)] * std::polar(1.0, angle);
    }
    if (inverse) y[static_cast<size_t>(k)] /= static_cast<double>(n);
  }
  return y;
}

void expect_close(const std::vector<float>& got, const std::vector<std::complex<double>>& want, size_t at,
                  size_t stride) {
  for (size_t k = 0; k < want.size(); ++k) {
    EXPECT_NEAR(got[at + k * stride], want[k].real(), 1e-4 * (1.0 + std::abs(want[k]))) << k;
    EXPECT_NEAR(got[at + k * stride + 1], want[k].imag(), 1e-4 * (1.0 + std::abs(want[k]))) << k;
  }
}

TEST(DftOp, MatchesANaiveTransform) {
  std::mt19937 rng(2);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  const int64_t batch = 2, length = 9;
  for (int64_t components : {1, 2}) {
    std::vector<float> x(static_cast<size_t>(batch * length * components));
    for (float& v : x) v = d(rng);
    for (int64_t n : {int64_t{9}, int64_t{6}, int64_t{13}}) {
      for (bool inverse : {false, true}) {
        for (bool onesided : {false, true}) {
          if (inverse && onesided) continue;
          ModelBuilder m(17);
          m.input("x", DType::F32, {batch, length, components})
              .initializer("n", Tensor::from<int64_t>(std::vector<int64_t>{n}, {}))
              .output("y", DType::F32)
              .node("DFT", {"x", "n"}, {"y"},
                    {Attr::i("axis", 1), Attr::i("inverse", inverse), Attr::i("onesided", onesided)});
          const Tensor y = m.run({{"x", Tensor::from<float>(x, {batch, length, components})}})[0];
          const int64_t bins = onesided ? n / 2 + 1 : n;
          ASSERT_EQ(y.shape(), (std::vector<int64_t>{batch, bins, 2}));
          const auto got = y.to_vector<float>();
          for (int64_t b = 0; b < batch; ++b) {
            std::vector<std::complex<double>> signal;
            for (int64_t t = 0; t < length; ++t) {
              const size_t at = static_cast<size_t>((b * length + t) * components);
              signal.emplace_back(x[at], components == 2 ? x[at + 1] : 0.0f);
            }
            expect_close(got, naive_dft(signal, n, bins, inverse), static_cast<size_t>(b * bins * 2), 2);
          }
        }
      }
    }
  }
}

TEST(DftOp, Opset20TakesTheAxisAsAnInput) {
  std::vector<float> x(12);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  ModelBuilder m(20);
  m.input("x", DType::F32, {3, 4, 1})
      .initializer("axis", Tensor::from<int64_t>(std::vector<int64_t>{0}, {}))
      .output("y", DType::F32)
      .node("DFT", {"x", "", "axis"}, {"y"});
  const auto y = m.run({{"x", Tensor::from<float>(x, {3, 4, 1})}})[0].to_vector<float>();
  // Along axis 0, column c is (c, c + 4, c + 8): bin 0 is their sum.
  for (int c = 0; c < 4; ++c)
    EXPECT_NEAR(y[static_cast<size_t>(c * 2)], 3.0f * static_cast<float>(c) + 12.0f, 1e-4);
  // An empty transform axis.
  ModelBuilder empty(17);
  empty.input("x", DType::F32, {2, 0, 1})
      .output("y", DType::F32)
      .node("DFT", {"x"}, {"y"}, {Attr::i("onesided", 1)});
  EXPECT_EQ(error_kind([&] { empty.run({{"x", Tensor(DType::F32, {2, 0, 1})}}); }), Kind::InvalidInput);
  // The last axis holds the components, not samples.
  ModelBuilder bad(17);
  bad.input("x", DType::F32, {3, 4, 1})
      .output("y", DType::F32)
      .node("DFT", {"x"}, {"y"}, {Attr::i("axis", 2)});
  EXPECT_EQ(error_kind([&] { bad.run({{"x", Tensor::from<float>(x, {3, 4, 1})}}); }), Kind::InvalidInput);
}

TEST(StftOp, FramesTimesWindow) {
  std::vector<float> signal(20), window(6);
  for (size_t i = 0; i < signal.size(); ++i) signal[i] = std::sin(0.3f * static_cast<float>(i));
  for (size_t i = 0; i < window.size(); ++i) window[i] = 0.5f + 0.1f * static_cast<float>(i);
  ModelBuilder m(17);
  m.input("x", DType::F32, {1, 20, 1})
      .initializer("step", Tensor::from<int64_t>(std::vector<int64_t>{4}, {}))
      .initializer("w", Tensor::from<float>(window, {6}))
      .output("y", DType::F32)
      .node("STFT", {"x", "step", "w"}, {"y"}, {Attr::i("onesided", 0)});
  const Tensor y = m.run({{"x", Tensor::from<float>(signal, {1, 20, 1})}})[0];
  ASSERT_EQ(y.shape(), (std::vector<int64_t>{1, 4, 6, 2}));  // (20 - 6) / 4 + 1 frames
  const auto got = y.to_vector<float>();
  for (int64_t f = 0; f < 4; ++f) {
    std::vector<std::complex<double>> frame;
    for (int64_t t = 0; t < 6; ++t)
      frame.emplace_back(signal[static_cast<size_t>(f * 4 + t)] * window[static_cast<size_t>(t)], 0.0);
    expect_close(got, naive_dft(frame, 6, 6, false), static_cast<size_t>(f * 12), 2);
  }
}

TEST(WindowOps, FormulasDatatypesAndRunTimeSizes) {
  struct Case {
    const char* op;
    double a0, a1, a2;
  } cases[] = {{"HannWindow", 0.5, 0.5, 0.0},
               {"HammingWindow", 25.0 / 46.0, 21.0 / 46.0, 0.0},
               {"BlackmanWindow", 0.42, 0.5, 0.08}};
  for (const Case& c : cases) {
    for (int64_t periodic : {0, 1}) {
      ModelBuilder m(17);
      m.input("size", DType::I64, {}).output("w", DType::F64);
      m.node(c.op, {"size"}, {"w"}, {Attr::i("periodic", periodic), Attr::i("output_datatype", 11)},
             "window");
      const Tensor w = m.run({{"size", Tensor::from<int64_t>(std::vector<int64_t>{7}, {})}})[0];
      ASSERT_EQ(w.dtype(), DType::F64);
      const auto got = w.to_vector<double>();
      ASSERT_EQ(got.size(), 7u);
      const double period = periodic ? 7.0 : 6.0;
      for (size_t n = 0; n < got.size(); ++n) {
        const double angle = 2.0 * std::numbers::pi * static_cast<double>(n) / period;
        EXPECT_NEAR(got[n], c.a0 - c.a1 * std::cos(angle) + c.a2 * std::cos(2.0 * angle), 1e-12) << c.op << n;
      }
      std::string message;
      EXPECT_EQ(error_kind([&] { m.session(options(ExecutionMode::Exact)); }, &message),
                Kind::ExactModeUnavailable);
      EXPECT_NE(message.find(c.op), std::string::npos) << message;
    }
  }
  // A symmetric window of one sample divides by N = 0, as the formula does.
  ModelBuilder one(17);
  one.input("size", DType::I64, {}).output("w", DType::F32);
  one.node("HannWindow", {"size"}, {"w"}, {Attr::i("periodic", 0)});
  EXPECT_TRUE(std::isnan(
      one.run({{"size", Tensor::from<int64_t>(std::vector<int64_t>{1}, {})}})[0].to_vector<float>()[0]));
  ModelBuilder bad(17);
  bad.input("size", DType::I64, {}).output("w", DType::F32);
  bad.node("HannWindow", {"size"}, {"w"}, {Attr::i("output_datatype", 7)});
  EXPECT_EQ(error_kind([&] { bad.session(); }), Kind::Unsupported);
}

TEST(MelWeightMatrixOp, TrianglesPeakAtOne) {
  ModelBuilder m(17);
  m.initializer("bins", Tensor::from<int32_t>(std::vector<int32_t>{4}, {}))
      .initializer("dft", Tensor::from<int32_t>(std::vector<int32_t>{64}, {}))
      .initializer("rate", Tensor::from<int32_t>(std::vector<int32_t>{16000}, {}))
      .initializer("lo", Tensor::from<float>(std::vector<float>{20.0f}, {}))
      .initializer("hi", Tensor::from<float>(std::vector<float>{8000.0f}, {}))
      .output("y", DType::F32)
      .node("MelWeightMatrix", {"bins", "dft", "rate", "lo", "hi"}, {"y"});
  const Tensor y = m.run({})[0];
  ASSERT_EQ(y.shape(), (std::vector<int64_t>{33, 4}));
  const auto w = y.to_vector<float>();
  // Edges: 6 points from mel(20) stepping (mel(8000) - mel(20)) / 6, as rows floor(65 f / 16000).
  auto mel = [](double f) { return 2595.0 * std::log10(1.0 + f / 700.0); };
  const double step = (mel(8000.0) - mel(20.0)) / 6.0;
  std::vector<int64_t> edge;
  for (int i = 0; i < 6; ++i) {
    const double f = 700.0 * (std::pow(10.0, (mel(20.0) + i * step) / 2595.0) - 1.0);
    edge.push_back(static_cast<int64_t>(std::floor(65.0 * f / 16000.0)));
  }
  for (int64_t i = 0; i < 4; ++i) {
    for (int64_t r = 0; r < 33; ++r) {
      double want = 0.0;
      if (r >= edge[i] && r <= edge[i + 1]) want = double(r - edge[i]) / double(edge[i + 1] - edge[i]);
      if (r >= edge[i + 1] && r < edge[i + 2])
        want = double(edge[i + 2] - r) / double(edge[i + 2] - edge[i + 1]);
      EXPECT_NEAR(w[static_cast<size_t>(r * 4 + i)], want, 1e-6) << r << " " << i;
    }
  }
}

}  // namespace
}  // namespace onemodel::test
