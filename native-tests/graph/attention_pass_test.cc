// The `attention` graph pass (graph-passes.md): which chains it fuses (the Softmax disappears from the
// compiled graph) and which it leaves alone, that the fused node stays within a rounding-error bound of a
// double-precision reference (as the unfused graph does), that it never runs in exact mode, and the project's
// transformer encoder (tools/models/make_transformer_encoder.py) at OptimizationLevel::All against None.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

#include "graph/compiled_graph.h"
#include "ops/op_test_util.h"

namespace onemodel::test {
namespace {

constexpr double kU = 0x1p-24;  // unit roundoff of binary32

SessionOptions fast(OptimizationLevel level, int threads = 1) {
  SessionOptions o = options(ExecutionMode::Fast, {}, threads);
  o.optimization_level = level;
  return o;
}

// Softmax nodes left in the compiled graph: the pass replaces each chain's Softmax by the fused node.
int softmax_nodes(const std::vector<std::byte>& bytes, const SessionOptions& options) {
  auto storage = std::make_shared<std::vector<std::byte>>(bytes);
  auto model = std::make_shared<const ir::Model>(onnx::import_model(*storage, storage));
  const CompiledGraph graph(model, options);
  int count = 0;
  for (const CompiledNode& n : graph.nodes()) count += n.ir->op_type == "Softmax";
  return count;
}

// One attention chain. Logical operands Q [b,h,sq,d], K [b,h,sk,d], V [b,h,sk,dv] and the mask broadcast to
// [b,h,sq,sk]; how they are stored and which nodes lead to the chain is chosen by the fields.
struct Chain {
  int64_t b = 2, h = 3, sq = 37, sk = 70, d = 16, dv = 16;
  bool split_q = true;  // q stored [b,sq,h,d] + Transpose(0,2,1,3)
  enum class K { Perm0231, Perm0132, Chain, Direct } k_mode = K::Perm0231;
  bool split_v = true;  // v stored [b,sk,h,dv] + Transpose(0,2,1,3)
  bool merge = true;    // output Transpose(0,2,1,3) to [b,sq,h,dv]
  enum class Scale { None, MulRight, MulLeft, Div } scale = Scale::Div;
  enum class Mask { None, PerKey, Full, KeyVector } mask = Mask::PerKey;
  bool mask_first = false;  // Add(mask, scores) instead of Add(scores, mask)
  int64_t opset = 17;
  bool rank3 = false;  // no batch axis: Q [h,sq,d], K^T [h,d,sk], V [h,sk,dv], no transposes
  float c = 4.0f;      // the scale constant (Div divides by it)

  std::vector<float> q, k, v, mask_values;

  float scale_factor() const { return scale == Scale::None ? 1.0f : scale == Scale::Div ? 1.0f / c : c; }
  std::vector<int64_t> mask_shape() const {
    switch (mask) {
      case Mask::PerKey:
        return rank3 ? std::vector<int64_t>{1, 1, sk} : std::vector<int64_t>{b, 1, 1, sk};
      case Mask::Full:
        return rank3 ? std::vector<int64_t>{h, sq, sk} : std::vector<int64_t>{b, h, sq, sk};
      case Mask::KeyVector:
        return {sk};
      default:
        return {};
    }
  }
  float mask_at(int64_t bi, int64_t hi, int64_t i, int64_t j) const {
    switch (mask) {
      case Mask::PerKey:
        return mask_values[static_cast<size_t>(bi * sk + j)];
      case Mask::Full:
        return mask_values[static_cast<size_t>(((bi * h + hi) * sq + i) * sk + j)];
      case Mask::KeyVector:
        return mask_values[static_cast<size_t>(j)];
      default:
        return 0.0f;
    }
  }
  // Logical element accessors; the stored buffers hold them in [b,s,h,x] order when split, else [b,h,s,x].
  static size_t at(bool split, int64_t h, int64_t s, int64_t x, int64_t bi, int64_t hi, int64_t i,
                   int64_t xi) {
    return static_cast<size_t>(split ? ((bi * s + i) * h + hi) * x + xi : ((bi * h + hi) * s + i) * x + xi);
  }
  bool k_split() const { return k_mode == K::Perm0231 || k_mode == K::Chain; }
  float q_at(int64_t bi, int64_t hi, int64_t i, int64_t x) const {
    return q[at(split_q, h, sq, d, bi, hi, i, x)];
  }
  float k_at(int64_t bi, int64_t hi, int64_t j, int64_t x) const {
    if (k_mode == K::Direct)
      return k[static_cast<size_t>(((bi * h + hi) * d + x) * sk + j)];  // stored as K^T
    return k[at(k_split(), h, sk, d, bi, hi, j, x)];
  }
  float v_at(int64_t bi, int64_t hi, int64_t j, int64_t x) const {
    return v[at(split_v, h, sk, dv, bi, hi, j, x)];
  }

  std::vector<int64_t> dims(bool split, int64_t s, int64_t x) const {
    if (rank3) return {h, s, x};
    return split ? std::vector<int64_t>{b, s, h, x} : std::vector<int64_t>{b, h, s, x};
  }
  std::vector<int64_t> k_dims() const {
    if (k_mode == K::Direct)
      return rank3 ? std::vector<int64_t>{h, d, sk} : std::vector<int64_t>{b, h, d, sk};
    return dims(k_split(), sk, d);
  }

  void fill(uint32_t seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> qk(0.0f, 1.5f), vals(0.0f, 1.0f), m(0.0f, 1.0f);
    q.resize(static_cast<size_t>(b * h * sq * d));
    k.resize(static_cast<size_t>(b * h * sk * d));
    v.resize(static_cast<size_t>(b * h * sk * dv));
    for (float& x : q) x = qk(rng);
    for (float& x : k) x = qk(rng);
    for (float& x : v) x = vals(rng);
    int64_t n = 1;
    for (int64_t e : mask_shape()) n *= e;
    mask_values.assign(mask == Mask::None ? 0 : static_cast<size_t>(n), 0.0f);
    for (float& x : mask_values) x = m(rng);
    // Padding positions of the usual export: the last keys of batch 0 get -10000.
    if (mask == Mask::PerKey) {
      for (int64_t j = sk - 5; j < sk; ++j) mask_values[static_cast<size_t>(j)] = -10000.0f;
    }
  }

  ModelBuilder model() const {
    ModelBuilder mb(opset);
    mb.input("q", DType::F32, dims(split_q, sq, d))
        .input("k", DType::F32, k_dims())
        .input("v", DType::F32, dims(split_v, sk, dv));
    if (mask != Mask::None) mb.input("mask", DType::F32, mask_shape());
    mb.initializer("c", Tensor::from(std::vector<float>{c}, {}));
    const Attr head_split = Attr::ints("perm", {0, 2, 1, 3});
    std::string qv = "q", kv = "k", vv = "v";
    if (split_q) {
      mb.node("Transpose", {"q"}, {"qt"}, {head_split});
      qv = "qt";
    }
    if (k_mode == K::Chain) mb.node("Transpose", {"k"}, {"k1"}, {head_split});
    if (k_mode != K::Direct) {
      const std::vector<int64_t> perm =
          k_mode == K::Perm0231 ? std::vector<int64_t>{0, 2, 3, 1} : std::vector<int64_t>{0, 1, 3, 2};
      mb.node("Transpose", {k_mode == K::Chain ? "k1" : "k"}, {"kt"}, {Attr::ints("perm", perm)});
      kv = "kt";
    }
    if (split_v) {
      mb.node("Transpose", {"v"}, {"vt"}, {head_split});
      vv = "vt";
    }
    const std::string scores_in = scale == Scale::None ? "scaled" : "scores";
    mb.node("MatMul", {qv, kv}, {scores_in});
    if (scale == Scale::MulRight) mb.node("Mul", {"scores", "c"}, {"scaled"});
    if (scale == Scale::MulLeft) mb.node("Mul", {"c", "scores"}, {"scaled"});
    if (scale == Scale::Div) mb.node("Div", {"scores", "c"}, {"scaled"});
    std::string logits = "scaled";
    if (mask != Mask::None) {
      if (mask_first)
        mb.node("Add", {"mask", "scaled"}, {"masked"});
      else
        mb.node("Add", {"scaled", "mask"}, {"masked"});
      logits = "masked";
    }
    std::vector<Attr> softmax_attrs;
    if (opset < 13)
      softmax_attrs.push_back(Attr::i("axis", rank3 ? 2 : 3));
    else
      softmax_attrs.push_back(Attr::i("axis", -1));
    mb.node("Softmax", {logits}, {"p"}, softmax_attrs);
    mb.node("MatMul", {"p", vv}, {merge ? "ctx" : "y"});
    if (merge) mb.node("Transpose", {"ctx"}, {"y"}, {head_split});
    mb.output("y", DType::F32);
    return mb;
  }

  std::vector<NamedTensor> feeds() const {
    std::vector<NamedTensor> f = {{"q", Tensor::from(q, dims(split_q, sq, d))},
                                  {"k", Tensor::from(k, k_dims())},
                                  {"v", Tensor::from(v, dims(split_v, sk, dv))}};
    if (mask != Mask::None) f.push_back({"mask", Tensor::from(mask_values, mask_shape())});
    return f;
  }

  size_t out_index(int64_t bi, int64_t hi, int64_t i, int64_t x) const {
    return at(merge, h, sq, dv, bi, hi, i, x);
  }

  // Checks `got` element by element against softmax(scale * q k^T + mask) v in double. The bound per element
  // follows kernels-gemm.md's sequential-summation bound (Higham §3.1, |error| <= n u sum |a b|) through the
  // chain: score j is off by at most delta_j = d u |scale| sum_x |q_x k_jx| + u (|scale dot_j| + |s_j|) (the
  // dot product, then the rounded scale and mask); weight j = exp(s_j - m) / l is then off relatively by
  // rel_j = delta_j + delta_m + u |s_j - m| + 5u (both scores, the subtraction, the exponential's few ulps;
  // capped at 1 as a computed weight stays non-negative), the denominator by the weighted mean of rel_j plus
  // its own sk u, and the final sum of sk products by sk u sum_j w_j |v_jx| (Higham again).
  void expect_near_reference(const Tensor& got, const std::string& what) const {
    const auto y = got.data<float>();
    ASSERT_EQ(y.size(), static_cast<size_t>(b * h * sq * dv)) << what;
    const double scale = scale_factor();
    for (int64_t bi = 0; bi < b; ++bi) {
      for (int64_t hi = 0; hi < h; ++hi) {
        for (int64_t i = 0; i < sq; ++i) {
          std::vector<double> s(static_cast<size_t>(sk)), delta(s.size());
          double m = -HUGE_VAL, delta_m = 0;
          for (int64_t j = 0; j < sk; ++j) {
            double dot = 0, abs_dot = 0;
            for (int64_t x = 0; x < d; ++x) {
              dot += double(q_at(bi, hi, i, x)) * k_at(bi, hi, j, x);
              abs_dot += std::fabs(double(q_at(bi, hi, i, x)) * k_at(bi, hi, j, x));
            }
            s[j] = dot * scale + mask_at(bi, hi, i, j);
            delta[j] = d * kU * std::fabs(scale) * abs_dot + kU * (std::fabs(scale * dot) + std::fabs(s[j]));
            if (s[j] > m) m = s[j], delta_m = delta[j];
          }
          std::vector<double> w(s.size()), rel(s.size());
          double l = 0, rel_l = 0;
          for (int64_t j = 0; j < sk; ++j) l += (w[j] = std::exp(s[j] - m));
          for (int64_t j = 0; j < sk; ++j) {
            w[j] /= l;
            rel[j] = std::min(1.0, delta[j] + delta_m + kU * std::fabs(s[j] - m) + 5 * kU);
            rel_l += w[j] * rel[j];
          }
          rel_l += sk * kU;
          for (int64_t x = 0; x < dv; ++x) {
            double want = 0, bound = 1e-30;
            for (int64_t j = 0; j < sk; ++j) {
              const double term = w[j] * v_at(bi, hi, j, x);
              want += term;
              bound += std::fabs(term) * (rel[j] + rel_l + (sk + 2) * kU);
            }
            const double err = std::fabs(y[out_index(bi, hi, i, x)] - want);
            ASSERT_LE(err, bound) << what << " at b" << bi << " h" << hi << " i" << i << " x" << x;
          }
        }
      }
    }
  }
};

// Runs the chain unfused and fused (1 and 2 threads) and checks both against the reference; `fused` says
// whether the pass must have replaced the chain.
void check_chain(const Chain& c, bool fused, const std::string& what) {
  const ModelBuilder mb = c.model();
  const std::vector<std::byte> bytes = mb.bytes();
  EXPECT_EQ(softmax_nodes(bytes, fast(OptimizationLevel::None)), 1) << what;
  EXPECT_EQ(softmax_nodes(bytes, fast(OptimizationLevel::All)), fused ? 0 : 1) << what;
  c.expect_near_reference(mb.run(c.feeds(), fast(OptimizationLevel::None))[0], what + " unfused");
  for (int threads : {1, 2}) {
    c.expect_near_reference(mb.run(c.feeds(), fast(OptimizationLevel::All, threads))[0],
                            what + " fused, threads " + std::to_string(threads));
  }
}

TEST(AttentionPass, FusesTheExportedChainWithItsTransposes) {
  Chain c;
  c.fill(1);
  check_chain(c, true, "head split and merge, Div, padding mask");
}

TEST(AttentionPass, FusesEverySpellingOfScaleMaskAndKeyTranspose) {
  uint32_t seed = 10;
  for (auto k : {Chain::K::Perm0231, Chain::K::Perm0132, Chain::K::Chain, Chain::K::Direct}) {
    for (auto scale :
         {Chain::Scale::None, Chain::Scale::MulRight, Chain::Scale::MulLeft, Chain::Scale::Div}) {
      for (auto mask : {Chain::Mask::None, Chain::Mask::PerKey, Chain::Mask::Full, Chain::Mask::KeyVector}) {
        Chain c;
        c.b = 1, c.h = 2, c.sq = 33, c.sk = 65, c.d = 8, c.dv = 8;
        c.k_mode = k, c.scale = scale, c.mask = mask;
        c.mask_first = mask == Chain::Mask::Full;
        c.split_q = c.split_v = c.merge = seed % 2 == 0;
        c.fill(seed++);
        check_chain(c, true,
                    "k " + std::to_string(int(k)) + " scale " + std::to_string(int(scale)) + " mask " +
                        std::to_string(int(mask)));
      }
    }
  }
}

// Shapes the kernel does not take run the fused node's plain path: an odd head size, V narrower than Q, and
// rank-3 operands without transposes.
TEST(AttentionPass, FusedNodeServesOddHeadSizesAndRankThree) {
  Chain odd;
  odd.d = odd.dv = 5;
  odd.fill(2);
  check_chain(odd, true, "odd head size");
  Chain narrow;
  narrow.dv = 6;
  narrow.fill(3);
  check_chain(narrow, true, "dv != d");
  Chain r3;
  r3.rank3 = true, r3.b = 1, r3.split_q = r3.split_v = r3.merge = false, r3.k_mode = Chain::K::Direct;
  r3.mask = Chain::Mask::Full;
  r3.fill(4);
  check_chain(r3, true, "rank 3");
}

TEST(AttentionPass, LeavesOtherChainsAlone) {
  Chain old_softmax;  // opset 11: Softmax coerces to 2-D, not matched
  old_softmax.opset = 11;
  old_softmax.fill(5);
  check_chain(old_softmax, false, "Softmax-11");

  // The probabilities are also a graph output: the chain must stay.
  Chain shared;
  shared.fill(6);
  ModelBuilder mb = shared.model();
  mb.output("p", DType::F32);
  EXPECT_EQ(softmax_nodes(mb.bytes(), fast(OptimizationLevel::All)), 1);
}

TEST(AttentionPass, NeverRunsInExactMode) {
  Chain c;
  c.fill(7);
  const ModelBuilder mb = c.model();
  for (auto level : {OptimizationLevel::None, OptimizationLevel::All}) {
    SessionOptions o = options(ExecutionMode::Exact);
    o.optimization_level = level;
    EXPECT_EQ(softmax_nodes(mb.bytes(), o), 1);
  }
  SessionOptions all = options(ExecutionMode::Exact), none = all;
  none.optimization_level = OptimizationLevel::None;
  EXPECT_TRUE(same_bytes(mb.run(c.feeds(), all)[0], mb.run(c.feeds(), none)[0]));
}

// --- The transformer encoder of tools/models/make_transformer_encoder.py

// Written once per test process into the temporary directory and removed at exit; empty when the script
// could not run.
std::filesystem::path encoder_model() {
  struct File {
    std::filesystem::path path;
    File() {
      const auto file =
          std::filesystem::temp_directory_path() / ("onemodel-encoder-" + std::to_string(getpid()) + ".onnx");
      const std::string command = "/usr/bin/python3 " ONEMODEL_SOURCE_DIR
                                  "/tools/models/make_transformer_encoder.py " +
                                  file.string() + " >/dev/null";
      if (std::system(command.c_str()) == 0) path = file;
    }
    ~File() {
      std::error_code ignored;
      if (!path.empty()) std::filesystem::remove(path, ignored);
    }
  };
  static const File file;
  return file.path;
}

std::vector<NamedTensor> encoder_feeds(int64_t batch, int64_t seq, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int64_t> token(0, 511);
  std::vector<int64_t> ids(static_cast<size_t>(batch * seq)), mask(ids.size(), 1);
  for (int64_t& t : ids) t = token(rng);
  // Row r is padded after seq - 3r tokens (at least one token is kept).
  for (int64_t r = 0; r < batch; ++r) {
    for (int64_t j = std::max<int64_t>(1, seq - 3 * r); j < seq; ++j)
      mask[static_cast<size_t>(r * seq + j)] = 0;
  }
  return {{"input_ids", Tensor::from(ids, {batch, seq})},
          {"attention_mask", Tensor::from(mask, {batch, seq})}};
}

double scaled_error(const Tensor& got, const Tensor& want) {
  const auto a = got.data<float>(), b = want.data<float>();
  double err = 0, scale = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    err = std::max(err, std::fabs(double(a[i]) - b[i]));
    scale = std::max(scale, std::fabs(double(b[i])));
  }
  return err / scale;
}

// Both attention chains and every GELU fuse. All against None in fast mode: every product on the longest path
// contributes at most n u sum |a b| (kernels-gemm.md, Higham §3.1) with n its reduction length — per layer
// 128 (QKV), 32 (scores), up to 128 keys (P V), 128 (output), 128 (FFN in), 512 (FFN out), 1056 in all, 2112
// for two layers; LayerNormalization keeps every layer's values of order one, so each graph is within
// 2112 u = 1.3e-4 of the exact result relative to the output scale, and the two graphs within twice that.
TEST(AttentionPass, TransformerEncoderAllAgainstNone) {
  const std::filesystem::path model = encoder_model();
  if (model.empty())
    FAIL()
        << "/usr/bin/python3 with onnx and numpy (tools/setup.sh installs them) could not write the encoder";
  const auto bytes_of = [&] {
    std::ifstream in(model, std::ios::binary);
    std::vector<char> c((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<std::byte> b(c.size());
    std::memcpy(b.data(), c.data(), c.size());
    return b;
  };
  const std::vector<std::byte> bytes = bytes_of();
  EXPECT_EQ(softmax_nodes(bytes, fast(OptimizationLevel::None)), 2);
  EXPECT_EQ(softmax_nodes(bytes, fast(OptimizationLevel::All)), 0);
  const double bound = 2 * 2112 * kU;
  for (auto [batch, seq] : {std::pair<int64_t, int64_t>{1, 128}, {3, 45}, {2, 7}}) {
    const auto feeds = encoder_feeds(batch, seq, static_cast<uint32_t>(batch * 1000 + seq));
    Session none = Session::load(model, fast(OptimizationLevel::None));
    const Tensor want = none.run(feeds)[0];
    for (int threads : {1, 2}) {
      Session all = Session::load(model, fast(OptimizationLevel::All, threads));
      const Tensor got = all.run(feeds)[0];
      ASSERT_EQ(got.shape(), want.shape());
      const double err = scaled_error(got, want);
      EXPECT_LE(err, bound) << "batch " << batch << " seq " << seq << " threads " << threads;
    }
  }
}

// In exact mode the attention and gelu passes do not run: All gives None's bits.
TEST(AttentionPass, TransformerEncoderExactIsUnchangedByThePasses) {
  const std::filesystem::path model = encoder_model();
  if (model.empty())
    FAIL()
        << "/usr/bin/python3 with onnx and numpy (tools/setup.sh installs them) could not write the encoder";
  const auto feeds = encoder_feeds(2, 40, 9);
  SessionOptions all = options(ExecutionMode::Exact), none = all;
  none.optimization_level = OptimizationLevel::None;
  const Tensor a = Session::load(model, all).run(feeds)[0];
  const Tensor b = Session::load(model, none).run(feeds)[0];
  EXPECT_TRUE(same_bytes(a, b));
}

}  // namespace
}  // namespace onemodel::test
