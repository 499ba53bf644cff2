// TfIdfVectorizer and the training-domain optimizers beyond the ONNX backend cases: IDF and TFIDF weighting,
// skips, refusal of string pools and malformed n-gram tables; Adagrad, Momentum and Adam against the
// operator formulas in double for T > 0 and several tensors, the same bits in both modes, and the
// test_adam_multiple data reproduced with the epsilon its generator used.
#include <gtest/gtest.h>

#include <cmath>

#include "ops/op_test_util.h"

namespace onemodel::test {
namespace {

using Kind = SessionError::Kind;

ModelBuilder tfidf(std::vector<Attr> attrs) {
  ModelBuilder m(9);
  m.input("x", DType::I64, {2, 5})
      .output("y", DType::F32)
      .node("TfIdfVectorizer", {"x"}, {"y"}, std::move(attrs), "tfidf");
  return m;
}

std::vector<Attr> tfidf_attrs(const char* mode, int64_t skip) {
  // Unigrams 7, 8; bigrams (7, 8), (8, 9). Outputs in reverse pool order.
  return {Attr::i("min_gram_length", 1),
          Attr::i("max_gram_length", 2),
          Attr::i("max_skip_count", skip),
          Attr::s("mode", mode),
          Attr::ints("ngram_counts", {0, 2}),
          Attr::ints("ngram_indexes", {3, 2, 1, 0}),
          Attr::ints("pool_int64s", {7, 8, 7, 8, 8, 9}),
          Attr::floats("weights", {0.5f, 2.0f, 3.0f, 0.25f})};
}

TEST(TfIdfVectorizerOp, CountsWeightsAndSkips) {
  const Tensor x = Tensor::from<int64_t>(std::vector<int64_t>{7, 8, 7, 1, 8, 9, 9, 9, 9, 9}, {2, 5});
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    // Row 0: 7 twice, 8 twice, (7, 8) once; with skip 1 also (7, 8) at distance 2 (positions 0, 2 give (7,
    // 7): no; 2, 4 give (7, 8): yes) and (8, 1), (7, 8) at distance 3 (0, 3: (7, 1) no; 1, 4: (8, 8) no).
    EXPECT_EQ(tfidf(tfidf_attrs("TF", 0)).run({{"x", x}}, options(mode))[0].to_vector<float>(),
              (std::vector<float>{0, 1, 2, 2, 0, 0, 0, 0}));
    EXPECT_EQ(tfidf(tfidf_attrs("TF", 1)).run({{"x", x}}, options(mode))[0].to_vector<float>(),
              (std::vector<float>{0, 2, 2, 2, 0, 0, 0, 0}));
    EXPECT_EQ(tfidf(tfidf_attrs("IDF", 1)).run({{"x", x}}, options(mode))[0].to_vector<float>(),
              (std::vector<float>{0, 3, 2, 0.5f, 0, 0, 0, 0}));
    EXPECT_EQ(tfidf(tfidf_attrs("TFIDF", 1)).run({{"x", x}}, options(mode))[0].to_vector<float>(),
              (std::vector<float>{0, 6, 4, 1, 0, 0, 0, 0}));
  }
}

TEST(TfIdfVectorizerOp, RefusesStringPoolsAndMalformedTables) {
  std::string message, node;
  EXPECT_EQ(error_kind(
                [&] {
                  tfidf({Attr::i("min_gram_length", 1), Attr::i("max_gram_length", 1), Attr::s("mode", "TF"),
                         Attr::ints("ngram_counts", {0}), Attr::ints("ngram_indexes", {0}),
                         Attr::strings("pool_strings", {"a"})})
                      .session();
                },
                &message, &node),
            Kind::Unsupported);
  EXPECT_NE(message.find("string"), std::string::npos) << message;
  EXPECT_EQ(node, "tfidf");
  auto with = [](std::vector<Attr> attrs, size_t at, Attr replacement) {
    attrs[at] = std::move(replacement);
    return attrs;
  };
  for (const std::vector<Attr>& attrs : {
           with(tfidf_attrs("TF", 0), 3, Attr::s("mode", "BM25")),
           with(tfidf_attrs("TF", 0), 4,
                Attr::ints("ngram_counts", {0, 3})),  // 3 tokens are not whole bigrams
           with(tfidf_attrs("TF", 0), 5, Attr::ints("ngram_indexes", {0, 1, 2})),  // one index short
           with(tfidf_attrs("TF", 0), 5, Attr::ints("ngram_indexes", {0, 1, 2, -1})),
           with(tfidf_attrs("TF", 0), 7, Attr::floats("weights", {1.0f})),
           with(tfidf_attrs("TF", 0), 1, Attr::i("max_gram_length", 0)),
       }) {
    EXPECT_EQ(error_kind([&] { tfidf(attrs).session(); }), Kind::InvalidModel);
  }
}

constexpr std::string_view kTraining = "ai.onnx.preview.training";

// One optimizer node of the training domain over float32 inputs of the given shapes.
Session optimizer(std::string_view op,
                  const std::vector<std::pair<std::string, std::vector<int64_t>>>& inputs,
                  const std::vector<std::string>& outputs, const std::vector<Attr>& attrs,
                  ExecutionMode mode) {
  ModelBuilder m(17);
  for (const auto& [name, dims] : inputs) m.input(name, name == "T" ? DType::I64 : DType::F32, dims);
  for (const std::string& name : outputs) m.output(name, DType::F32);
  Proto n;
  for (const auto& in : inputs) n.bytes(1, in.first);
  for (const std::string& out : outputs) n.bytes(2, out);
  n.bytes(4, op).bytes(7, kTraining);
  for (const Attr& a : attrs) n.msg(5, a.proto());
  const Proto model = onnxb::model(m.graph().msg(1, n), 8, 17).msg(8, onnxb::opset(kTraining, 1));
  return Session::load(std::span<const std::byte>(model.data()), options(mode));
}

TEST(OptimizerOps, AdamMatchesTheFormulaAfterTheFirstStep) {
  const float r = 0.1f, alpha = 0.9f, beta = 0.95f, eps = 1e-3f, norm = 0.01f, post = 0.05f;
  const int64_t t = 3;
  const std::vector<float> x = {1.0f, -2.0f, 0.5f}, g = {0.3f, -0.1f, 2.0f}, v = {0.1f, 0.2f, -0.3f},
                           h = {0.4f, 0.01f, 1.0f};
  std::vector<Tensor> first;
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    Session s = optimizer("Adam", {{"R", {}}, {"T", {}}, {"X", {3}}, {"G", {3}}, {"V", {3}}, {"H", {3}}},
                          {"X_new", "V_new", "H_new"},
                          {Attr::f("alpha", alpha), Attr::f("beta", beta), Attr::f("epsilon", eps),
                           Attr::f("norm_coefficient", norm), Attr::f("norm_coefficient_post", post)},
                          mode);
    const auto out = s.run({{"R", Tensor::from<float>(std::vector<float>{r}, {})},
                            {"T", Tensor::from<int64_t>(std::vector<int64_t>{t}, {})},
                            {"X", Tensor::from<float>(x, {3})},
                            {"G", Tensor::from<float>(g, {3})},
                            {"V", Tensor::from<float>(v, {3})},
                            {"H", Tensor::from<float>(h, {3})}});
    for (size_t i = 0; i < 3; ++i) {
      const double gr = double(norm) * x[i] + g[i];
      const double v_new = double(alpha) * v[i] + (1 - double(alpha)) * gr;
      const double h_new = double(beta) * h[i] + (1 - double(beta)) * gr * gr;
      const double ra = r * std::sqrt(1 - std::pow(double(beta), t)) / (1 - std::pow(double(alpha), t));
      const double x_new = (1 - double(post)) * (x[i] - ra * v_new / (std::sqrt(h_new) + eps));
      EXPECT_NEAR(out[0].to_vector<float>()[i], x_new, 1e-5);
      EXPECT_NEAR(out[1].to_vector<float>()[i], v_new, 1e-6);
      EXPECT_NEAR(out[2].to_vector<float>()[i], h_new, 1e-6);
    }
    if (first.empty()) {
      first = out;
    } else {
      for (size_t o = 0; o < 3; ++o) EXPECT_TRUE(same_bytes(out[o], first[o]));
    }
  }
}

TEST(OptimizerOps, AdagradAndMomentumMatchTheFormulas) {
  const std::vector<float> x = {1.0f, -2.0f}, g = {0.3f, -0.1f}, s = {0.4f, 0.2f};
  const float r = 0.2f;
  const int64_t t = 4;
  auto feeds = [&] {
    return std::vector<NamedTensor>{{"R", Tensor::from<float>(std::vector<float>{r}, {})},
                                    {"T", Tensor::from<int64_t>(std::vector<int64_t>{t}, {})},
                                    {"X", Tensor::from<float>(x, {2})},
                                    {"G", Tensor::from<float>(g, {2})},
                                    {"S", Tensor::from<float>(s, {2})}};
  };
  const std::vector<std::pair<std::string, std::vector<int64_t>>> in = {
      {"R", {}}, {"T", {}}, {"X", {2}}, {"G", {2}}, {"S", {2}}};
  Session adagrad =
      optimizer("Adagrad", in, {"X_new", "S_new"},
                {Attr::f("decay_factor", 0.5f), Attr::f("epsilon", 1e-4f), Attr::f("norm_coefficient", 0.1f)},
                ExecutionMode::Exact);
  const auto a = adagrad.run(feeds());
  for (size_t i = 0; i < 2; ++i) {
    const double gr = 0.1 * x[i] + g[i], h = s[i] + gr * gr;
    EXPECT_NEAR(a[0].to_vector<float>()[i], x[i] - (r / (1 + t * 0.5)) * gr / (std::sqrt(h) + 1e-4), 1e-5);
    EXPECT_NEAR(a[1].to_vector<float>()[i], h, 1e-6);
  }
  for (const char* mode : {"standard", "nesterov"}) {
    Session momentum = optimizer("Momentum", in, {"X_new", "S_new"},
                                 {Attr::f("alpha", 0.9f), Attr::f("beta", 0.5f),
                                  Attr::f("norm_coefficient", 0.1f), Attr::s("mode", mode)},
                                 ExecutionMode::Exact);
    const auto m = momentum.run(feeds());
    for (size_t i = 0; i < 2; ++i) {
      const double gr = 0.1 * x[i] + g[i], v = 0.9 * s[i] + 0.5 * gr;
      const double want = std::string(mode) == "nesterov" ? x[i] - r * (gr + 0.9 * v) : x[i] - r * v;
      EXPECT_NEAR(m[0].to_vector<float>()[i], want, 1e-5) << mode;
      EXPECT_NEAR(m[1].to_vector<float>()[i], v, 1e-6) << mode;
    }
  }
  EXPECT_EQ(error_kind([&] {
              optimizer("Momentum", in, {"X_new", "S_new"},
                        {Attr::f("alpha", 0.9f), Attr::f("beta", 0.5f), Attr::f("norm_coefficient", 0.1f),
                         Attr::s("mode", "heavy")},
                        ExecutionMode::Fast);
            }),
            Kind::InvalidModel);
  // Five inputs cannot be split into R, T and groups of four for Adam.
  EXPECT_EQ(error_kind([&] {
              optimizer("Adam", in, {"X_new", "S_new"}, {}, ExecutionMode::Fast);
            }),
            Kind::InvalidModel);
}

// test_adam_multiple's expected data was generated with epsilon = 0.01, which its node does not set; with
// that epsilon set, the data set matches (conformance lists the case as a known difference).
TEST(OptimizerOps, AdamMultipleDataMatchesWithTheGeneratorsEpsilon) {
  const auto dir = backend_node_dir() / "test_adam_multiple";
  ASSERT_TRUE(std::filesystem::is_directory(dir))
      << "no ONNX backend data: tools/setup.sh installs libonnx-testdata";
  std::vector<std::pair<std::string, std::vector<int64_t>>> in = {
      {"R", {}},   {"T", {}},   {"X1", {1}}, {"X2", {2}}, {"G1", {1}},
      {"G2", {2}}, {"V1", {1}}, {"V2", {2}}, {"H1", {1}}, {"H2", {2}}};
  Session s = optimizer("Adam", in, {"X1_new", "X2_new", "V1_new", "V2_new", "H1_new", "H2_new"},
                        {Attr::f("alpha", 0.95f), Attr::f("beta", 0.85f), Attr::f("norm_coefficient", 0.001f),
                         Attr::f("epsilon", 0.01f)},
                        ExecutionMode::Exact);
  std::vector<NamedTensor> feeds;
  for (size_t i = 0; i < in.size(); ++i) {
    feeds.push_back({in[i].first, load_pb(dir / "test_data_set_0" / ("input_" + std::to_string(i) + ".pb"))});
  }
  const auto got = s.run(feeds);
  for (size_t o = 0; o < got.size(); ++o) {
    EXPECT_EQ(tolerance_difference(
                  got[o], load_pb(dir / "test_data_set_0" / ("output_" + std::to_string(o) + ".pb"))),
              "")
        << o;
  }
}

}  // namespace
}  // namespace onemodel::test
