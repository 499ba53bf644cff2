// The opset 1-6 operator forms: Add/Sub/Mul/Div/Pow with the broadcast and axis attributes, PRelu's channel
// slope, Gemm's broadcast attribute, BatchNormalization's is_test, MatMul from opset 1. Results against
// hand-computed values, refused layouts, fast and exact bit-identical, 1 and 2 threads identical, and the
// graph passes leaving the legacy layout alone.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "ops/op_test_util.h"

namespace onemodel::test {
namespace {

std::vector<float> iota_floats(size_t n, float start = 1.0f) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = start + static_cast<float>(i);
  return v;
}

// One legacy binary node over inputs a and b; attributes as given.
std::vector<float> legacy_binary(std::string_view op, const Tensor& a, const Tensor& b,
                                 std::vector<Attr> attrs, const SessionOptions& o = {}, int64_t opset = 6) {
  ModelBuilder m(opset);
  m.input("a", a.dtype(), a.shape()).input("b", b.dtype(), b.shape()).output("y", a.dtype());
  m.node(op, {"a", "b"}, {"y"}, attrs);
  const std::vector<Tensor> out = m.run({{"a", a}, {"b", b}}, o);
  EXPECT_EQ(out[0].shape(), a.shape());
  return out[0].to_vector<float>();
}

TEST(LegacyBroadcast, SecondOperandStartsAtAxis) {
  const Tensor a = Tensor::from<float>(iota_floats(24), {2, 3, 4});
  // [3] at axis 1 pairs with the middle extent, where numpy would have paired it with the last (and failed).
  const auto y = legacy_binary("Add", a, Tensor::from<float>({100, 200, 300}, {3}),
                               {Attr::i("broadcast", 1), Attr::i("axis", 1)});
  for (size_t i = 0; i < 24; ++i)
    EXPECT_EQ(y[i], static_cast<float>(i + 1) + 100.0f * ((i / 4) % 3 + 1)) << i;
  // Without axis the operand matches the trailing extents.
  const auto tail =
      legacy_binary("Sub", a, Tensor::from<float>({1, 2, 3, 4}, {4}), {Attr::i("broadcast", 1)});
  for (size_t i = 0; i < 24; ++i)
    EXPECT_EQ(tail[i], static_cast<float>(i + 1) - static_cast<float>(i % 4 + 1));
  // Extent 1 inside the operand repeats (the PyTorch exporter's size-1 broadcast), at axis 0.
  const auto col =
      legacy_binary("Mul", Tensor::from<float>(iota_floats(6), {2, 3}), Tensor::from<float>({10, 20}, {2, 1}),
                    {Attr::i("broadcast", 1), Attr::i("axis", 0)});
  EXPECT_EQ(col, (std::vector<float>{10, 20, 30, 80, 100, 120}));
  // A single element of any rank up to the first's is a scalar.
  const auto one =
      legacy_binary("Div", Tensor::from<float>(iota_floats(6), {2, 3}), Tensor::from<float>({2}, {1, 1}),
                    {Attr::i("broadcast", 1), Attr::i("axis", 1)});
  EXPECT_EQ(one, (std::vector<float>{0.5f, 1, 1.5f, 2, 2.5f, 3}));
  // Pow (opset 1 form) and an opset below 6, where consumed_inputs is ignored.
  const auto sq =
      legacy_binary("Pow", Tensor::from<float>(iota_floats(6), {2, 3}), Tensor::from<float>({2, 1}, {2}),
                    {Attr::i("broadcast", 1), Attr::i("axis", 0)}, {}, 1);
  EXPECT_EQ(sq, (std::vector<float>{1, 4, 9, 4, 5, 6}));
  // Comparisons and logic take the same layout (their outputs are bool).
  ModelBuilder cmp(6);
  cmp.input("a", DType::F32, {2, 3}).input("b", DType::F32, {2}).output("y", DType::Bool);
  cmp.node("Greater", {"a", "b"}, {"y"}, {Attr::i("broadcast", 1), Attr::i("axis", 0)});
  const auto gt =
      cmp.run({{"a", Tensor::from<float>(iota_floats(6), {2, 3})}, {"b", Tensor::from<float>({2, 4}, {2})}});
  EXPECT_EQ(std::vector<uint8_t>(static_cast<const uint8_t*>(gt[0].raw()),
                                 static_cast<const uint8_t*>(gt[0].raw()) + 6),
            (std::vector<uint8_t>{0, 0, 1, 0, 1, 1}));
  const auto old = legacy_binary("Add", Tensor::from<float>({1, 2}, {2}), Tensor::from<float>({3, 4}, {2}),
                                 {Attr::ints("consumed_inputs", {0, 0})}, {}, 5);
  EXPECT_EQ(old, (std::vector<float>{4, 6}));
}

TEST(LegacyBroadcast, RefusesLayoutsTheOpsetDoesNotAllow) {
  const Tensor a = Tensor::from<float>(iota_floats(6), {2, 3});
  const auto refused = [&](const Tensor& b, std::vector<Attr> attrs, const char* what) {
    std::string message;
    EXPECT_NE(error_kind([&] { legacy_binary("Add", a, b, attrs); }, &message),
              SessionError::Kind::Unsupported)
        << what;
    return message;
  };
  // Numpy would broadcast [3] against [2, 3]; opset 6 without broadcast = 1 requires equal shapes.
  EXPECT_NE(refused(Tensor::from<float>({1, 2, 3}, {3}), {}, "no broadcast").find("broadcast = 1"),
            std::string::npos);
  refused(Tensor::from<float>({1, 2}, {2}), {Attr::i("broadcast", 1)}, "suffix mismatch");
  refused(Tensor::from<float>({1, 2, 3}, {3}), {Attr::i("broadcast", 1), Attr::i("axis", 0)}, "wrong axis");
  refused(Tensor::from<float>({1, 2, 3}, {3}), {Attr::i("broadcast", 1), Attr::i("axis", 2)}, "axis too far");
  refused(Tensor::from<float>({1, 2, 3}, {3}), {Attr::i("broadcast", 1), Attr::i("axis", -1)}, "negative");
  refused(Tensor::from<float>(iota_floats(12), {2, 2, 3}), {Attr::i("broadcast", 1)}, "higher rank");
}

TEST(LegacyBroadcast, ExactAndThreadsGiveTheSameBits) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> d(-3.0f, 3.0f);
  std::vector<float> big(64 * 1024 * 3), col(64);
  for (auto& v : big) v = d(rng);
  for (auto& v : col) v = d(rng);
  const Tensor a = Tensor::from<float>(big, {64, 1024, 3});
  const Tensor b = Tensor::from<float>(col, {64, 1});
  const std::vector<Attr> attrs = {Attr::i("broadcast", 1), Attr::i("axis", 0)};
  const auto fast1 = legacy_binary("Div", a, b, attrs, options(ExecutionMode::Fast, {}, 1));
  EXPECT_EQ(fast1, legacy_binary("Div", a, b, attrs, options(ExecutionMode::Fast, {}, 2)));
  EXPECT_EQ(fast1, legacy_binary("Div", a, b, attrs, options(ExecutionMode::Exact, {}, 1)));
  EXPECT_EQ(fast1, legacy_binary("Div", a, b, attrs, options(ExecutionMode::Exact, {}, 2)));
  for (size_t i = 0; i < big.size(); i += 997) EXPECT_EQ(fast1[i], big[i] / col[i / 3072]);
}

// MatMul then a legacy Add of a constant vector at axis 0: the linear fusion pass must not take the vector as
// the usual per-column bias.
TEST(LegacyBroadcast, PassesLeaveTheLegacyLayoutAlone) {
  ModelBuilder m(6);
  m.input("x", DType::F32, {3, 3}).output("y", DType::F32);
  m.initializer("w", Tensor::from<float>({1, 0, 0, 0, 1, 0, 0, 0, 1}, {3, 3}));
  m.initializer("bias", Tensor::from<float>({10, 20, 30}, {3}));
  m.node("MatMul", {"x", "w"}, {"p"});
  m.node("Add", {"p", "bias"}, {"y"}, {Attr::i("broadcast", 1), Attr::i("axis", 0)});
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    const auto y =
        m.run({{"x", Tensor::from<float>(iota_floats(9), {3, 3})}}, options(mode))[0].to_vector<float>();
    EXPECT_EQ(y, (std::vector<float>{11, 12, 13, 24, 25, 26, 37, 38, 39}));
  }
}

TEST(LegacyPRelu, SlopeFollowsTheChannelAxis) {
  ModelBuilder m(6);
  m.input("x", DType::F32, {2, 3, 2}).input("s", DType::F32, {3}).output("y", DType::F32);
  m.node("PRelu", {"x", "s"}, {"y"});
  std::vector<float> x(12);
  for (size_t i = 0; i < 12; ++i) x[i] = -static_cast<float>(i + 1);
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    const auto y =
        m.run({{"x", Tensor::from<float>(x, {2, 3, 2})}, {"s", Tensor::from<float>({1, 2, 3}, {3})}},
              options(mode))[0]
            .to_vector<float>();
    for (size_t i = 0; i < 12; ++i) EXPECT_EQ(y[i], x[i] * static_cast<float>((i / 2) % 3 + 1)) << i;
  }
  // A one-element slope is shared, whatever X's rank.
  ModelBuilder shared(6);
  shared.input("x", DType::F32, {4}).input("s", DType::F32, {1}).output("y", DType::F32);
  shared.node("PRelu", {"x", "s"}, {"y"});
  EXPECT_EQ(
      shared
          .run({{"x", Tensor::from<float>({-1, 2, -3, 4}, {4})}, {"s", Tensor::from<float>({0.5f}, {1})}})[0]
          .to_vector<float>(),
      (std::vector<float>{-0.5f, 2, -1.5f, 4}));
}

std::vector<float> legacy_gemm(const Tensor& c, std::vector<Attr> attrs) {
  ModelBuilder m(6);
  m.input("a", DType::F32, {2, 2}).input("b", DType::F32, {2, 2}).input("c", DType::F32, c.shape());
  m.output("y", DType::F32);
  m.node("Gemm", {"a", "b", "c"}, {"y"}, attrs);
  return m
      .run({{"a", Tensor::from<float>({1, 2, 3, 4}, {2, 2})},
            {"b", Tensor::from<float>({1, 0, 0, 1}, {2, 2})},
            {"c", c}})[0]
      .to_vector<float>();
}

TEST(LegacyGemm, BroadcastAttributeGovernsC) {
  EXPECT_EQ(legacy_gemm(Tensor::from<float>({10, 20}, {2}), {Attr::i("broadcast", 1)}),
            (std::vector<float>{11, 22, 13, 24}));
  EXPECT_EQ(legacy_gemm(Tensor::from<float>({10, 20, 30, 40}, {2, 2}), {}),
            (std::vector<float>{11, 22, 33, 44}));
  std::string message;
  EXPECT_NE(error_kind(
                [&] {
                  legacy_gemm(Tensor::from<float>({10, 20}, {2}), {});
                },
                &message),
            SessionError::Kind::Unsupported);
  EXPECT_NE(message.find("broadcast = 1"), std::string::npos) << message;
}

TEST(LegacyBatchNorm, InferenceFormOnly) {
  const auto run = [](int64_t is_test) {
    ModelBuilder m(6);
    m.input("x", DType::F32, {1, 2, 1}).output("y", DType::F32);
    const char* names[] = {"scale", "bias", "mean", "var"};
    const float values[][2] = {{2, 3}, {1, 1}, {0, 1}, {1, 1}};
    for (size_t i = 0; i < 4; ++i)
      m.initializer(names[i], Tensor::from<float>({values[i][0], values[i][1]}, {2}));
    m.node("BatchNormalization", {"x", "scale", "bias", "mean", "var"}, {"y"},
           {Attr::i("is_test", is_test), Attr::f("epsilon", 0.0f)});
    return m.run({{"x", Tensor::from<float>({1, 2}, {1, 2, 1})}})[0].to_vector<float>();
  };
  EXPECT_EQ(run(1), (std::vector<float>{3, 4}));
  EXPECT_EQ(error_kind([&] { run(0); }), SessionError::Kind::Unsupported);
}

TEST(LegacyUnary, ConsumedInputsIsIgnored) {
  ModelBuilder m(1);
  m.input("x", DType::F32, {3}).output("y", DType::F32);
  m.node("Relu", {"x"}, {"r"}, {Attr::ints("consumed_inputs", {1})});
  m.node("Neg", {"r"}, {"y"}, {Attr::ints("consumed_inputs", {0})});
  EXPECT_EQ(m.run({{"x", Tensor::from<float>({-1, 0.5f, 2}, {3})}})[0].to_vector<float>(),
            (std::vector<float>{-0.0f, -0.5f, -2}));
}

TEST(LegacyMatMul, ServedFromOpsetOne) {
  ModelBuilder m(1);
  m.input("a", DType::F32, {1, 2}).input("b", DType::F32, {2, 1}).output("y", DType::F32);
  m.node("MatMul", {"a", "b"}, {"y"});
  EXPECT_EQ(m.run({{"a", Tensor::from<float>({1, 2}, {1, 2})}, {"b", Tensor::from<float>({3, 4}, {2, 1})}})[0]
                .to_vector<float>(),
            (std::vector<float>{11}));
}

}  // namespace
}  // namespace onemodel::test
