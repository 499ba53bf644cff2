// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss through Session: the ONNX backend node cases, values
// worked out here from nll.h's definition, bad targets and attributes, and NLL's exactness (fast and exact,
// one and two threads, every kernel path give the same bits).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include "ops/op_test_util.h"

namespace onemodel::test {
namespace {

using Kind = SessionError::Kind;

Tensor floats(const std::vector<int64_t>& dims, const std::vector<float>& v) {
  return Tensor::from<float>(v, dims);
}
Tensor i64s(const std::vector<int64_t>& dims, const std::vector<int64_t>& v) {
  return Tensor::from<int64_t>(v, dims);
}

// One loss node over x [dims], target and (when `weighted`) weights, with the given attributes and (when
// `log_prob`) SoftmaxCrossEntropyLoss's second output.
ModelBuilder loss_model(std::string_view op, const std::vector<int64_t>& x_dims, bool weighted,
                        const std::vector<Attr>& attrs, DType dtype = DType::F32, bool log_prob = false) {
  ModelBuilder m(13);
  std::vector<int64_t> t_dims = {x_dims[0]};
  t_dims.insert(t_dims.end(), x_dims.begin() + 2, x_dims.end());
  m.input("x", dtype, x_dims).input("t", DType::I64, t_dims).output("loss", dtype);
  if (weighted) m.input("w", dtype, {x_dims[1]});
  if (log_prob) m.output("log_prob", dtype);
  // An empty name leaves the optional weights out.
  const std::string_view w = weighted ? "w" : "";
  if (log_prob) {
    m.node(op, {"x", "t", w}, {"loss", "log_prob"}, attrs, "loss_node");
  } else {
    m.node(op, {"x", "t", w}, {"loss"}, attrs, "loss_node");
  }
  return m;
}

TEST(LossOps, BackendNllCasesPassInBothModes) {
  EXPECT_EQ(check_backend_cases({"test_nllloss"}), 72);
}

// The fused SoftmaxCrossEntropyLoss runs in fast mode only; its `_expanded` forms run in both.
TEST(LossOps, BackendSoftmaxCrossEntropyCases) {
  ASSERT_TRUE(std::filesystem::is_directory(backend_node_dir()))
      << "no ONNX backend data: tools/setup.sh installs libonnx-testdata";
  int passed = 0;
  for (const auto& entry : std::filesystem::directory_iterator(backend_node_dir())) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("test_sce_", 0) != 0) continue;
    const bool expanded = name.find("_expanded") != std::string::npos;
    for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
      if (mode == ExecutionMode::Exact && !expanded) {
        EXPECT_EQ(error_kind([&] { run_backend_case(entry.path(), mode); }), Kind::ExactModeUnavailable)
            << name;
        continue;
      }
      const std::string problem = run_backend_case(entry.path(), mode);
      EXPECT_EQ(problem, "") << name << (mode == ExecutionMode::Exact ? " (exact)" : " (fast)");
      passed += problem.empty() ? 1 : 0;
    }
  }
  EXPECT_EQ(passed, 68 + 34);
}

// x [2, 3], targets {2, 0}: losses -x[0][2] = -3 and -x[1][0] = -4.
TEST(LossOps, NllReductionsWeightsAndIgnoreIndex) {
  const Tensor x = floats({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor t = i64s({2}, {2, 0});
  const Tensor w = floats({3}, {0.5f, 1, 2});
  auto run = [&](bool weighted, const std::vector<Attr>& attrs, const Tensor& target) {
    std::vector<NamedTensor> feeds = {{"x", x}, {"t", target}};
    if (weighted) feeds.push_back({"w", w});
    return loss_model("NegativeLogLikelihoodLoss", {2, 3}, weighted, attrs)
        .run(feeds)
        .at(0)
        .to_vector<float>();
  };
  using V = std::vector<float>;
  EXPECT_EQ(run(false, {Attr::s("reduction", "none")}, t), (V{-3, -4}));
  EXPECT_EQ(run(false, {Attr::s("reduction", "sum")}, t), (V{-7}));
  EXPECT_EQ(run(false, {}, t), (V{-3.5f}));  // mean is the default
  // Weighted: -3 * 2 and -4 * 0.5; the mean divides by the weights' sum 2.5.
  EXPECT_EQ(run(true, {Attr::s("reduction", "none")}, t), (V{-6, -2}));
  EXPECT_EQ(run(true, {}, t), (V{-8 / 2.5f}));
  // An ignored position gives +0 and drops out of the mean's denominator; its class is not range-checked.
  const Tensor ignored = i64s({2}, {-1, 0});
  const V none = run(true, {Attr::s("reduction", "none"), Attr::i("ignore_index", -1)}, ignored);
  EXPECT_EQ(bits_of(none[0]), 0u);
  EXPECT_EQ(none[1], -2);
  EXPECT_EQ(run(true, {Attr::i("ignore_index", -1)}, ignored), (V{-4}));
  EXPECT_EQ(run(false, {Attr::i("ignore_index", -1)}, ignored), (V{-4}));
  // Every position ignored: 0 / 0, the canonical NaN.
  const V all = run(false, {Attr::i("ignore_index", 7)}, i64s({2}, {7, 7}));
  EXPECT_EQ(bits_of(all.at(0)), 0x7FC00000u);
}

TEST(LossOps, NllDoubleAndNdInputs) {
  // x [1, 2, 2]: targets {1, 0} pick x[0][1][0] = 3 and x[0][0][1] = 2.
  ModelBuilder m =
      loss_model("NegativeLogLikelihoodLoss", {1, 2, 2}, false, {Attr::s("reduction", "none")}, DType::F64);
  const auto y = m.run({{"x", Tensor::from<double>({1, 2, 3, 4}, {1, 2, 2})}, {"t", i64s({1, 2}, {1, 0})}});
  EXPECT_EQ(y.at(0).shape(), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(y.at(0).to_vector<double>(), (std::vector<double>{-3, -2}));
}

TEST(LossOps, NllRejectsBadTargetsAndAttributes) {
  ModelBuilder m = loss_model("NegativeLogLikelihoodLoss", {2, 3}, false, {Attr::i("ignore_index", -1)});
  const Tensor x = floats({2, 3}, {1, 2, 3, 4, 5, 6});
  std::string message, node;
  for (int64_t bad : {3, -2}) {
    EXPECT_EQ(error_kind(
                  [&] {
                    m.run({{"x", x}, {"t", i64s({2}, {0, bad})}});
                  },
                  &message, &node),
              Kind::InvalidInput);
    EXPECT_EQ(node, "loss_node");
    EXPECT_NE(message.find("target class " + std::to_string(bad)), std::string::npos) << message;
  }
  EXPECT_EQ(error_kind([] {
              loss_model("NegativeLogLikelihoodLoss", {2, 3}, false, {Attr::s("reduction", "avg")}).session();
            }),
            Kind::InvalidModel);
  // NegativeLogLikelihoodLoss has no second output.
  EXPECT_EQ(error_kind([] {
              loss_model("NegativeLogLikelihoodLoss", {2, 3}, false, {}, DType::F32, true).session();
            }),
            Kind::InvalidModel);
  // Shapes are checked when the plan is made (the first run): weights of the wrong length, a target of the
  // wrong shape, a rank-1 input.
  ModelBuilder weights(13);
  weights.input("x", DType::F32, {2, 3}).input("t", DType::I64, {2}).input("w", DType::F32, {2});
  weights.output("loss", DType::F32).node("NegativeLogLikelihoodLoss", {"x", "t", "w"}, {"loss"});
  EXPECT_EQ(error_kind([&] {
              weights.run({{"x", x}, {"t", i64s({2}, {0, 0})}, {"w", floats({2}, {1, 1})}});
            }),
            Kind::InvalidInput);
  ModelBuilder target(13);
  target.input("x", DType::F32, {2, 3, 4}).input("t", DType::I64, {2, 3}).output("loss", DType::F32);
  target.node("NegativeLogLikelihoodLoss", {"x", "t"}, {"loss"});
  EXPECT_EQ(error_kind([&] {
              target.run({{"x", floats({2, 3, 4}, std::vector<float>(24))},
                          {"t", i64s({2, 3}, std::vector<int64_t>(6))}});
            }),
            Kind::InvalidInput);
  ModelBuilder rank1(13);
  rank1.input("x", DType::F32, {3}).input("t", DType::I64, {}).output("loss", DType::F32);
  rank1.node("NegativeLogLikelihoodLoss", {"x", "t"}, {"loss"});
  EXPECT_EQ(error_kind([&] {
              rank1.run({{"x", floats({3}, {1, 2, 3})}, {"t", i64s({}, {0})}});
            }),
            Kind::InvalidInput);
}

// Random inputs large enough for the canonical sum's 16 partials: every mode, thread count and kernel path
// gives the same bits, for every reduction.
TEST(LossOps, NllIsBitIdenticalAcrossModesThreadsAndPaths) {
  const std::vector<int64_t> dims = {4, 7, 9, 11};
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  std::vector<float> x(4 * 7 * 9 * 11), w(7);
  for (float& v : x) v = normal(rng);
  for (float& v : w) v = std::fabs(normal(rng));
  std::vector<int64_t> t(4 * 9 * 11);
  for (int64_t& v : t) v = static_cast<int64_t>(rng() % 8) - 1;  // -1 is ignored
  const std::vector<NamedTensor> feeds = {
      {"x", floats(dims, x)}, {"t", i64s({4, 9, 11}, t)}, {"w", floats({7}, w)}};
  for (const char* reduction : {"none", "sum", "mean"}) {
    ModelBuilder m = loss_model("NegativeLogLikelihoodLoss", dims, true,
                                {Attr::s("reduction", reduction), Attr::i("ignore_index", -1)});
    const Tensor want = m.run(feeds, options(ExecutionMode::Fast, {}, 1)).at(0);
    for (const std::string& path : kernel_paths()) {
      for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
        for (int threads : {1, 2}) {
          EXPECT_TRUE(same_bytes(m.run(feeds, options(mode, path, threads)).at(0), want))
              << reduction << " " << path << " threads " << threads;
        }
      }
    }
  }
}

// SoftmaxCrossEntropyLoss = LogSoftmax over axis 1, then NLL: its outputs equal that two-node graph's in fast
// mode, with a class axis that is not last.
TEST(LossOps, SoftmaxCrossEntropyIsLogSoftmaxThenNll) {
  const std::vector<int64_t> dims = {2, 5, 3};
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> uniform(-4.0f, 4.0f);
  std::vector<float> x(30), w(5);
  for (float& v : x) v = uniform(rng);
  for (float& v : w) v = uniform(rng) + 5.0f;
  const std::vector<NamedTensor> feeds = {
      {"x", floats(dims, x)}, {"t", i64s({2, 3}, {0, 4, 2, 1, 3, 2})}, {"w", floats({5}, w)}};
  const std::vector<Attr> attrs = {Attr::s("reduction", "sum"), Attr::i("ignore_index", 3)};
  const auto fused = loss_model("SoftmaxCrossEntropyLoss", dims, true, attrs, DType::F32, true).run(feeds);
  ModelBuilder pair(13);
  pair.input("x", DType::F32, dims).input("t", DType::I64, {2, 3}).input("w", DType::F32, {5});
  pair.output("loss", DType::F32).output("log_prob", DType::F32);
  pair.node("LogSoftmax", {"x"}, {"log_prob"}, {Attr::i("axis", 1)});
  pair.node("NegativeLogLikelihoodLoss", {"log_prob", "t", "w"}, {"loss"}, attrs);
  const auto want = pair.run(feeds);
  EXPECT_TRUE(same_bytes(fused.at(0), want.at(0)));
  EXPECT_TRUE(same_bytes(fused.at(1), want.at(1)));
}

TEST(LossOps, SoftmaxCrossEntropyRefusesExactModeNamingTheOperator) {
  std::string message;
  EXPECT_EQ(
      error_kind(
          [] {
            loss_model("SoftmaxCrossEntropyLoss", {2, 3}, false, {}).session(options(ExecutionMode::Exact));
          },
          &message),
      Kind::ExactModeUnavailable);
  EXPECT_NE(message.find("SoftmaxCrossEntropyLoss"), std::string::npos) << message;
}

}  // namespace
}  // namespace onemodel::test
