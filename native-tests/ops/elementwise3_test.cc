// The third element-wise family through Session: the exp/log activations (Elu, Celu, Selu, Softplus) against
// double-precision references with expm1/log1p, including the near-zero inputs where `e^x - 1` would lose
// digits, their limits and NaN; Softsign, Shrink, ThresholdedRelu; IsNaN, IsInf, BitShift, EyeLike; the
// trigonometric operators' refusal in exact mode; exact bits independent of kernel path and thread count.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "core/bits.h"
#include "core/half.h"
#include "ops/op_test_util.h"

namespace onemodel::test {
namespace {

using Kind = SessionError::Kind;
constexpr ExecutionMode kModes[] = {ExecutionMode::Fast, ExecutionMode::Exact};
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

Tensor floats(const std::vector<int64_t>& dims, const std::vector<float>& v) {
  return tensor_of<float>(DType::F32, dims, v);
}

// One node `op` with input x (and y when given) producing z of `out`.
Tensor run_node(std::string_view op, int64_t opset, const std::vector<Tensor>& in, DType out,
                const std::vector<Attr>& attrs = {}, const SessionOptions& o = {}) {
  ModelBuilder m(opset);
  m.input("a", in[0].dtype(), in[0].shape());
  std::vector<NamedTensor> feeds{{"a", in[0]}};
  if (in.size() > 1) {
    m.input("b", in[1].dtype(), in[1].shape());
    feeds.push_back({"b", in[1]});
    m.node(op, {"a", "b"}, {"z"}, attrs);
  } else {
    m.node(op, {"a"}, {"z"}, attrs);
  }
  m.output("z", out);
  return m.run(feeds, o).at(0);
}

// Inputs around the interesting regions: tiny values near 0 (both signs), the exp range edges, big values.
std::vector<float> sweep() {
  std::vector<float> v = {0.0f, -0.0f, 1e-30f, -1e-30f, 3e-8f, -3e-8f, 1e-6f, -1e-6f, 1e-4f, -1e-4f};
  for (float x = -30.0f; x <= 30.0f; x += 0.37f) v.push_back(x);
  for (float x : {-87.0f, -88.0f, -100.0f, -104.0f, -200.0f, 80.0f, 88.0f, 89.0f, 1e30f, -1e30f})
    v.push_back(x);
  return v;
}

struct Reference {
  const char* op;
  int64_t opset;
  std::vector<Attr> attrs;
  double (*f)(double);
};

double elu2(double x) {
  return x < 0 ? 2.0 * std::expm1(x) : x;
}
double celu_half(double x) {  // alpha = 0.5
  return std::max(0.0, x) + std::min(0.0, 0.5 * std::expm1(x / 0.5));
}
double selu(double x) {
  const double alpha = 1.67326319217681884765625, gamma = 1.05070102214813232421875;
  return x <= 0 ? gamma * alpha * std::expm1(x) : gamma * x;
}
double softplus(double x) {
  return std::max(x, 0.0) + std::log1p(std::exp(-std::fabs(x)));
}

// Relative error within a few float ulps (absolute below the smallest normal), fast and exact.
TEST(Elementwise3, ExpActivationsMatchDoubleReferences) {
  const std::vector<Reference> refs = {
      {"Elu", 6, {Attr::f("alpha", 2.0f)}, elu2},
      {"Celu", 12, {Attr::f("alpha", 0.5f)}, celu_half},
      {"Selu", 6, {}, selu},
      {"Softplus", 1, {}, softplus},
  };
  const std::vector<float> x = sweep();
  const auto n = static_cast<int64_t>(x.size());
  for (const Reference& r : refs) {
    for (ExecutionMode mode : kModes) {
      const auto y =
          elements_of<float>(run_node(r.op, r.opset, {floats({n}, x)}, DType::F32, r.attrs, options(mode)));
      for (size_t i = 0; i < x.size(); ++i) {
        const double want = r.f(x[i]);
        const double tolerance = 8e-7 * std::fabs(want) + 1e-38;
        EXPECT_NEAR(y[i], want, tolerance) << r.op << "(" << x[i] << ") " << (mode == ExecutionMode::Exact);
      }
    }
  }
}

TEST(Elementwise3, ExpActivationsLimitsAndNaN) {
  const Tensor in = floats({4}, {kInf, -kInf, kNaN, -0.0f});
  for (ExecutionMode mode : kModes) {
    auto run = [&](const char* op, int64_t opset, std::vector<Attr> attrs = {}) {
      return elements_of<float>(run_node(op, opset, {in}, DType::F32, attrs, options(mode)));
    };
    const auto elu = run("Elu", 6);
    EXPECT_EQ(elu[0], kInf);
    EXPECT_EQ(elu[1], -1.0f);
    EXPECT_TRUE(std::isnan(elu[2]));
    const auto celu = run("Celu", 12, {Attr::f("alpha", 3.0f)});
    EXPECT_EQ(celu[0], kInf);
    EXPECT_EQ(celu[1], -3.0f);
    EXPECT_TRUE(std::isnan(celu[2]));
    const auto softplus = run("Softplus", 1);
    EXPECT_EQ(softplus[0], kInf);
    EXPECT_EQ(softplus[1], 0.0f);
    EXPECT_TRUE(std::isnan(softplus[2]));
    EXPECT_EQ(softplus[3], std::log(2.0f));
    const auto selu = run("Selu", 6, {Attr::f("alpha", 2.0f), Attr::f("gamma", 3.0f)});
    EXPECT_EQ(selu[0], kInf);
    EXPECT_EQ(selu[1], -6.0f);
    if (mode == ExecutionMode::Exact) {
      for (const auto& y : {elu, celu, softplus, selu}) EXPECT_EQ(bits_of(y[2]), 0x7FC00000u);
    }
  }
}

// Exact bits on every kernel path and at 1 and 2 threads, over more elements than one parallel chunk (2^15).
TEST(Elementwise3, ExactActivationsIndependentOfPathAndThreads) {
  std::vector<float> x(100003);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(static_cast<double>(i) * 7e-4 - 40.0);
  const Tensor in = floats({static_cast<int64_t>(x.size())}, x);
  const std::pair<const char*, int64_t> ops[] = {
      {"Elu", 6}, {"Celu", 12}, {"Selu", 6}, {"Softplus", 1}, {"Softsign", 1}};
  for (const auto& [op, opset] : ops) {
    const Tensor first =
        run_node(op, opset, {in}, DType::F32, {}, options(ExecutionMode::Exact, "scalar", 1));
    for (const std::string& path : kernel_paths()) {
      for (int threads : {1, 2}) {
        const Tensor y =
            run_node(op, opset, {in}, DType::F32, {}, options(ExecutionMode::Exact, path, threads));
        EXPECT_TRUE(same_bytes(y, first)) << op << " " << path << " threads " << threads;
      }
    }
  }
}

TEST(Elementwise3, CeluRefusesZeroAlpha) {
  EXPECT_EQ(
      error_kind([] { run_node("Celu", 12, {floats({1}, {1})}, DType::F32, {Attr::f("alpha", 0.0f)}); }),
      Kind::InvalidModel);
}

TEST(Elementwise3, SoftsignShrinkThresholdedRelu) {
  const Tensor in = floats({7}, {-3, -1, -0.25f, 0.5f, 2, kInf, kNaN});
  for (ExecutionMode mode : kModes) {
    const auto softsign = elements_of<float>(run_node("Softsign", 1, {in}, DType::F32, {}, options(mode)));
    EXPECT_EQ(softsign[0], -3.0f / 4.0f);
    EXPECT_EQ(softsign[2], -0.25f / 1.25f);
    EXPECT_EQ(softsign[5], 1.0f);
    EXPECT_TRUE(std::isnan(softsign[6]));
    auto shrink = elements_of<float>(run_node(
        "Shrink", 9, {in}, DType::F32, {Attr::f("lambd", 0.75f), Attr::f("bias", 0.5f)}, options(mode)));
    EXPECT_TRUE(std::isnan(shrink[6]));  // NaN passes through
    shrink.pop_back();
    EXPECT_EQ(shrink, (std::vector<float>{-2.5f, -0.5f, 0, 0, 1.5f, kInf}));
    auto relu = elements_of<float>(
        run_node("ThresholdedRelu", 10, {in}, DType::F32, {Attr::f("alpha", 0.5f)}, options(mode)));
    EXPECT_TRUE(std::isnan(relu[6]));
    relu.pop_back();
    EXPECT_EQ(relu, (std::vector<float>{0, 0, 0, 0, 2, kInf}));  // 0.5 is not above 0.5
  }
}

TEST(Elementwise3, IsNaNIsInf) {
  const Tensor in = floats({5}, {1, kNaN, kInf, -kInf, -0.0f});
  EXPECT_EQ(elements_of<uint8_t>(run_node("IsNaN", 13, {in}, DType::Bool)),
            (std::vector<uint8_t>{0, 1, 0, 0, 0}));
  EXPECT_EQ(elements_of<uint8_t>(run_node("IsInf", 10, {in}, DType::Bool)),
            (std::vector<uint8_t>{0, 0, 1, 1, 0}));
  EXPECT_EQ(elements_of<uint8_t>(run_node("IsInf", 10, {in}, DType::Bool, {Attr::i("detect_negative", 0)})),
            (std::vector<uint8_t>{0, 0, 1, 0, 0}));
  EXPECT_EQ(elements_of<uint8_t>(run_node("IsInf", 10, {in}, DType::Bool, {Attr::i("detect_positive", 0)})),
            (std::vector<uint8_t>{0, 0, 0, 1, 0}));
  // float16 keeps NaN and infinity when decoded.
  const Tensor half = tensor_of<uint16_t>(DType::F16, {3}, {0x7C00, 0x7E00, 0x3C00});
  EXPECT_EQ(elements_of<uint8_t>(run_node("IsNaN", 13, {half}, DType::Bool)),
            (std::vector<uint8_t>{0, 1, 0}));
  EXPECT_EQ(elements_of<uint8_t>(run_node("IsInf", 10, {half}, DType::Bool)),
            (std::vector<uint8_t>{1, 0, 0}));
  EXPECT_EQ(
      error_kind([] { run_node("IsNaN", 13, {tensor_of<int32_t>(DType::I32, {1}, {1})}, DType::Bool); }),
      Kind::Unsupported);
}

TEST(Elementwise3, BitShiftWidthsAndBroadcast) {
  const Tensor x = tensor_of<uint8_t>(DType::U8, {4}, {0x81, 0x81, 0x81, 0x81});
  const Tensor s = tensor_of<uint8_t>(DType::U8, {4}, {1, 7, 8, 200});
  EXPECT_EQ(elements_of<uint8_t>(run_node("BitShift", 11, {x, s}, DType::U8, {Attr::s("direction", "LEFT")})),
            (std::vector<uint8_t>{0x02, 0x80, 0, 0}));
  EXPECT_EQ(
      elements_of<uint8_t>(run_node("BitShift", 11, {x, s}, DType::U8, {Attr::s("direction", "RIGHT")})),
      (std::vector<uint8_t>{0x40, 0x01, 0, 0}));
  // A [2, 1] tensor against [3] amounts broadcasts to [2, 3].
  const Tensor x64 = tensor_of<uint64_t>(DType::U64, {2, 1}, {1, uint64_t{1} << 63});
  const Tensor s64 = tensor_of<uint64_t>(DType::U64, {3}, {0, 63, 64});
  EXPECT_EQ(
      elements_of<uint64_t>(run_node("BitShift", 11, {x64, s64}, DType::U64, {Attr::s("direction", "LEFT")})),
      (std::vector<uint64_t>{1, uint64_t{1} << 63, 0, uint64_t{1} << 63, 0, 0}));
  EXPECT_EQ(error_kind([&] {
              run_node("BitShift", 11, {x, s}, DType::U8, {Attr::s("direction", "UP")});
            }),
            Kind::InvalidModel);
  const Tensor signed_x = tensor_of<int32_t>(DType::I32, {1}, {1});
  EXPECT_EQ(error_kind([&] {
              run_node("BitShift", 11, {signed_x, signed_x}, DType::I32, {Attr::s("direction", "LEFT")});
            }),
            Kind::Unsupported);
}

TEST(Elementwise3, EyeLikeDiagonals) {
  const Tensor like = tensor_of<int32_t>(DType::I32, {3, 4}, std::vector<int32_t>(12, 7));
  EXPECT_EQ(elements_of<int32_t>(run_node("EyeLike", 9, {like}, DType::I32)),
            (std::vector<int32_t>{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0}));
  EXPECT_EQ(elements_of<double>(
                run_node("EyeLike", 9, {like}, DType::F64, {Attr::i("k", 2), Attr::i("dtype", 11)})),
            (std::vector<double>{0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0}));
  EXPECT_EQ(elements_of<uint8_t>(
                run_node("EyeLike", 9, {like}, DType::Bool, {Attr::i("k", -1), Attr::i("dtype", 9)})),
            (std::vector<uint8_t>{0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0}));
  for (int64_t k : {int64_t{4}, int64_t{-3}, INT64_MAX, INT64_MIN}) {
    EXPECT_EQ(elements_of<int32_t>(run_node("EyeLike", 9, {like}, DType::I32, {Attr::i("k", k)})),
              std::vector<int32_t>(12, 0))
        << k;
  }
  // A half-precision input does not turn an explicit float32 dtype into float16.
  const Tensor half = run_node("EyeLike", 9, {tensor_of<uint16_t>(DType::F16, {2, 2}, {0, 0, 0, 0})},
                               DType::F32, {Attr::i("dtype", 1)});
  ASSERT_EQ(half.dtype(), DType::F32);
  EXPECT_EQ(elements_of<float>(half), (std::vector<float>{1, 0, 0, 1}));
  EXPECT_EQ(error_kind([] {
              run_node("EyeLike", 9, {floats({2, 2, 2}, std::vector<float>(8))}, DType::F32);
            }),
            Kind::InvalidInput);
  EXPECT_EQ(error_kind([&] { run_node("EyeLike", 9, {like}, DType::F32, {Attr::i("dtype", 1000)}); }),
            Kind::Unsupported);
}

TEST(Elementwise3, EmptyTensors) {
  const Tensor empty = floats({0, 3}, {});
  for (ExecutionMode mode : kModes) {
    for (const char* op : {"Elu", "Selu", "Softsign", "Shrink"}) {
      EXPECT_EQ(run_node(op, 9, {empty}, DType::F32, {}, options(mode)).shape(),
                (std::vector<int64_t>{0, 3}));
    }
    EXPECT_EQ(run_node("IsNaN", 13, {empty}, DType::Bool, {}, options(mode)).shape(),
              (std::vector<int64_t>{0, 3}));
    EXPECT_EQ(run_node("EyeLike", 9, {empty}, DType::F32, {Attr::i("k", -2)}, options(mode)).shape(),
              (std::vector<int64_t>{0, 3}));
  }
}

// The trigonometric family has no exact kernel: exact mode refuses each, naming it; fast mode is libm's.
TEST(Elementwise3, TrigonometricFastOnly) {
  const Tensor in = floats({3}, {-0.5f, 0.25f, 0.75f});
  struct Fn {
    const char* op;
    int64_t opset;
    float (*f)(float);
  };
  const Fn fns[] = {{"Tan", 7, [](float x) { return std::tan(x); }},
                    {"Asin", 7, [](float x) { return std::asin(x); }},
                    {"Acos", 7, [](float x) { return std::acos(x); }},
                    {"Atan", 7, [](float x) { return std::atan(x); }},
                    {"Sinh", 9, [](float x) { return std::sinh(x); }},
                    {"Cosh", 9, [](float x) { return std::cosh(x); }},
                    {"Asinh", 9, [](float x) { return std::asinh(x); }},
                    {"Acosh", 9, [](float x) { return std::acosh(x + 2.0f); }},
                    {"Atanh", 9, [](float x) { return std::atanh(x); }}};
  for (const Fn& fn : fns) {
    const bool shifted = std::string(fn.op) == "Acosh";  // its domain starts at 1
    const Tensor x = shifted ? floats({3}, {1.5f, 2.25f, 2.75f}) : in;
    const auto y = elements_of<float>(run_node(fn.op, fn.opset, {x}, DType::F32));
    const auto xs = elements_of<float>(in);
    for (size_t i = 0; i < 3; ++i) EXPECT_EQ(y[i], fn.f(xs[i])) << fn.op;
    std::string message;
    EXPECT_EQ(
        error_kind([&] { run_node(fn.op, fn.opset, {x}, DType::F32, {}, options(ExecutionMode::Exact)); },
                   &message),
        Kind::ExactModeUnavailable);
    EXPECT_NE(message.find(fn.op), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace onemodel::test
