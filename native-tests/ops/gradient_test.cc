// The training-domain Gradient beyond the two scalar backend cases: broadcast operands (with declared and
// undeclared shapes, so both the static shortcut and the run-time reduction are used), Div, an input read
// twice, nodes off the path, zs, a derivative taken at values other than the forward inputs, the unary rules,
// a y that no x reaches, the same bits in both modes and thread counts, and refusals.
#include <gtest/gtest.h>

#include <cmath>

#include "ops/op_test_util.h"

namespace onemodel::test {
namespace {

using Kind = SessionError::Kind;

constexpr std::string_view kTraining = "ai.onnx.preview.training";

Proto names(std::string_view attr, std::initializer_list<std::string_view> values) {
  return Attr::strings(attr, values).proto();
}

// `forward` plus a Gradient node named "grad" reading `inputs`, writing `outputs`.
Session with_gradient(const ModelBuilder& forward, std::initializer_list<std::string_view> inputs,
                      std::initializer_list<std::string_view> outputs,
                      std::initializer_list<std::string_view> xs, std::initializer_list<std::string_view> zs,
                      std::string_view y, const SessionOptions& session_options = {}) {
  Proto n = onnxb::node("Gradient", inputs, outputs, "grad");
  n.bytes(7, kTraining).msg(5, names("xs", xs)).msg(5, Attr::s("y", y).proto());
  if (zs.size() > 0) n.msg(5, names("zs", zs));
  const Proto model = onnxb::model(forward.graph().msg(1, n), 8, 17).msg(8, onnxb::opset(kTraining, 1));
  return Session::load(std::span<const std::byte>(model.data()), session_options);
}

Tensor floats(const std::vector<float>& v, std::vector<int64_t> shape) {
  return Tensor::from<float>(v, std::move(shape));
}

void expect_near(const Tensor& got, const std::vector<double>& want, const std::vector<int64_t>& shape) {
  EXPECT_EQ(got.shape(), shape);
  const std::vector<float> v = got.to_vector<float>();
  ASSERT_EQ(v.size(), want.size());
  for (size_t i = 0; i < v.size(); ++i) EXPECT_NEAR(v[i], want[i], 1e-5 * (1 + std::fabs(want[i]))) << i;
}

// y = (a * a / b - c) * e - d, with b [3], c [1] and e [2, 1] broadcast against a [2, 3]; z = Exp(a) is a
// second output off the path, d is in zs.
ModelBuilder broadcast_forward(bool declare_shapes) {
  auto dims = [&](std::vector<int64_t> d) {
    if (!declare_shapes) std::fill(d.begin(), d.end(), -1);
    return d;
  };
  ModelBuilder m(17);
  m.input("a", DType::F32, dims({2, 3}))
      .input("b", DType::F32, dims({3}))
      .input("c", DType::F32, dims({1}))
      .input("e", DType::F32, dims({2, 1}))
      .input("d", DType::F32, dims({2, 3}))
      .output("y", DType::F32)
      .output("z", DType::F32)
      .output("da", DType::F32)
      .output("db", DType::F32)
      .output("dc", DType::F32)
      .output("de", DType::F32)
      .node("Mul", {"a", "a"}, {"sq"})
      .node("Div", {"sq", "b"}, {"q"})
      .node("Sub", {"q", "c"}, {"s"})
      .node("Mul", {"s", "e"}, {"t"})
      .node("Sub", {"t", "d"}, {"y"})
      .node("Exp", {"a"}, {"z"});
  return m;
}

TEST(GradientOp, BroadcastDivAndTwiceReadInputMatchTheDerivatives) {
  const std::vector<float> a = {1.0f, -2.0f, 0.5f, 3.0f, 0.25f, -1.5f}, b = {2.0f, -0.5f, 4.0f}, c = {0.75f},
                           e = {1.5f, -2.0f}, d = {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f};
  std::vector<double> da(6), db(3, 0.0), de(2, 0.0);
  double dc = 0;
  for (size_t r = 0; r < 2; ++r) {
    for (size_t k = 0; k < 3; ++k) {
      const double x = a[r * 3 + k], bk = b[k], er = e[r];
      da[r * 3 + k] = 2 * x * er / bk;
      db[k] += -x * x * er / (bk * bk);
      dc += -er;
      de[r] += x * x / bk - c[0];
    }
  }
  const std::vector<NamedTensor> feeds = {{"a", floats(a, {2, 3})},
                                          {"b", floats(b, {3})},
                                          {"c", floats(c, {1})},
                                          {"e", floats(e, {2, 1})},
                                          {"d", floats(d, {2, 3})}};
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    std::vector<Tensor> first;  // per mode: the fast kernels may round differently from the exact ones
    for (bool declared : {true, false}) {
      for (int threads : {1, 2}) {
        Session s =
            with_gradient(broadcast_forward(declared), {"a", "b", "c", "e", "d"}, {"da", "db", "dc", "de"},
                          {"a", "b", "c", "e"}, {"d"}, "y", options(mode, {}, threads));
        const std::vector<Tensor> out = s.run(feeds);
        ASSERT_EQ(out.size(), 6u);
        expect_near(out[2], da, {2, 3});
        expect_near(out[3], db, {3});
        expect_near(out[4], {dc}, {1});
        expect_near(out[5], de, {2, 1});
        if (first.empty()) first = out;
        for (size_t o = 0; o < out.size(); ++o) EXPECT_TRUE(same_bytes(out[o], first[o])) << o;
      }
    }
  }
}

TEST(GradientOp, TakesTheDerivativeAtTheGradientsInputs) {
  // y = a * a + k with k off the differentiated inputs; the derivative is asked at a = p, not at the fed a.
  ModelBuilder m(17);
  m.input("a", DType::F32, {3})
      .input("k", DType::F32, {3})
      .input("p", DType::F32, {3})
      .output("y", DType::F32)
      .output("dy", DType::F32)
      .node("Mul", {"a", "a"}, {"sq"})
      .node("Add", {"sq", "k"}, {"y"});
  Session s = with_gradient(m, {"p"}, {"dy"}, {"a"}, {}, "y");
  const auto out = s.run(
      {{"a", floats({1, 2, 3}, {3})}, {"k", floats({5, 5, 5}, {3})}, {"p", floats({-1, 0.5f, 10}, {3})}});
  expect_near(out[0], {6, 9, 14}, {3});
  expect_near(out[1], {-2, 1, 20}, {3});
}

TEST(GradientOp, UnaryRules) {
  // y = Exp(Relu(a)) + Sigmoid(a) - Tanh(Identity(Neg(a))).
  const std::vector<float> a = {-1.0f, 0.0f, 0.5f, 2.0f};
  ModelBuilder m(17);
  m.input("a", DType::F32, {4})
      .output("dy", DType::F32)
      .node("Relu", {"a"}, {"r"})
      .node("Exp", {"r"}, {"er"})
      .node("Sigmoid", {"a"}, {"sg"})
      .node("Neg", {"a"}, {"n"})
      .node("Identity", {"n"}, {"i"})
      .node("Tanh", {"i"}, {"th"})
      .node("Add", {"er", "sg"}, {"u"})
      .node("Sub", {"u", "th"}, {"y"});
  std::vector<double> want;
  for (float x : a) {
    const double s = 1 / (1 + std::exp(-double(x))), t = std::tanh(-double(x));
    want.push_back((x > 0 ? std::exp(double(x)) : 0.0) + s * (1 - s) + (1 - t * t));
  }
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    Session s = with_gradient(m, {"a"}, {"dy"}, {"a"}, {}, "y", options(mode));
    expect_near(s.run({{"a", floats(a, {4})}})[0], want, {4});
  }
}

TEST(GradientOp, AnXThatDoesNotReachYGetsZeros) {
  ModelBuilder m(17);
  m.input("a", DType::F32, {2})
      .input("b", DType::F32, {2, 2})
      .output("da", DType::F32)
      .output("db", DType::F32)
      .node("Neg", {"a"}, {"y"});
  Session s = with_gradient(m, {"a", "b"}, {"da", "db"}, {"a", "b"}, {}, "y");
  const auto out = s.run({{"a", floats({1, 2}, {2})}, {"b", floats({1, 2, 3, 4}, {2, 2})}});
  expect_near(out[0], {-1, -1}, {2});
  expect_near(out[1], {0, 0, 0, 0}, {2, 2});
}

TEST(GradientOp, RefusesUnsupportedOperatorsAndMalformedNodes) {
  ModelBuilder m(17);
  m.input("a", DType::F32, {2})
      .output("da", DType::F32)
      .node("Sin", {"a"}, {"s"}, {}, "sine")
      .node("Add", {"s", "a"}, {"y"});
  std::string message, node;
  EXPECT_EQ(error_kind([&] { with_gradient(m, {"a"}, {"da"}, {"a"}, {}, "y"); }, &message, &node),
            Kind::Unsupported);
  EXPECT_NE(message.find("Sin node 'sine'"), std::string::npos) << message;
  EXPECT_EQ(node, "grad");
  // The same graph differentiated only through Add (Sin is then constant) is fine.
  EXPECT_NO_THROW(with_gradient(m, {"s"}, {"da"}, {"s"}, {}, "y"));

  EXPECT_EQ(error_kind([&] { with_gradient(m, {"a"}, {"da"}, {"missing"}, {}, "y"); }, &message),
            Kind::InvalidModel);
  EXPECT_NE(message.find("'missing'"), std::string::npos) << message;
  EXPECT_EQ(error_kind([&] { with_gradient(m, {"a"}, {"da"}, {"a"}, {}, "nowhere"); }), Kind::InvalidModel);
  EXPECT_EQ(error_kind([&] { with_gradient(m, {"a", "a"}, {"da"}, {"a"}, {}, "y"); }), Kind::InvalidModel);
  EXPECT_EQ(error_kind([&] { with_gradient(m, {"a"}, {"da", "db"}, {"a"}, {}, "y"); }), Kind::InvalidModel);
  // y differentiated at p reads, as a constant factor, the Gradient's own output: no order can compute it.
  ModelBuilder cycle(17);
  cycle.input("a", DType::F32, {2})
      .input("p", DType::F32, {2})
      .output("y", DType::F32)
      .node("Neg", {"da"}, {"k"})
      .node("Mul", {"a", "k"}, {"y"});
  EXPECT_EQ(error_kind([&] { with_gradient(cycle, {"p"}, {"da"}, {"a"}, {}, "y"); }, &message, &node),
            Kind::InvalidModel);
  EXPECT_NE(message.find("own outputs"), std::string::npos) << message;
  EXPECT_EQ(node, "grad");
}

}  // namespace
}  // namespace onemodel::test
