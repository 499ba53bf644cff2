// Graph passes (graph-passes.md): which passes each level and mode selects, that the bit-preserving passes
// give the unfused graph's bits in both modes on every kernel path and thread count, and that
// conv-batchnorm-fold and conv-affine-fold stay within the sequential-summation bound of kernels-gemm.md of
// the unfused graph (and never run in exact mode). Every case also checks that the pass really rewrote the
// graph.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "graph/passes/graph_pass.h"
#include "pass_test_util.h"

namespace onemodel::test {
namespace {

std::vector<float> random_values(size_t n, uint32_t seed, bool specials) {
  return uniform_values(n, seed, -2.0f, 2.0f, specials);
}

struct ConvCase {
  const char* name;
  int64_t channels, out_channels, group, size, kernel, stride, pad;
  bool bias;
  int64_t group_in() const { return channels / group; }
  int64_t out_size() const { return (size + 2 * pad - kernel) / stride + 1; }
};

// im2col with two column chunks, a 1x1 convolution reading the input as B, depthwise with stride 2, and two
// narrow convolutions run as the transposed product: a 1x1 input (one product row) and four output positions.
const ConvCase kConvs[] = {
    {"im2col", 5, 6, 1, 60, 3, 1, 1, true},    {"pointwise", 8, 8, 1, 17, 1, 1, 0, false},
    {"depthwise", 6, 6, 6, 19, 3, 2, 1, true}, {"single-pixel", 40, 50, 1, 1, 1, 1, 0, true},
    {"narrow", 7, 9, 1, 4, 3, 2, 1, true},
};

std::vector<float> conv_weights(const ConvCase& c) {
  return random_values(static_cast<size_t>(c.out_channels * c.group_in() * c.kernel * c.kernel), 7, false);
}
std::vector<float> conv_bias(const ConvCase& c) {
  return random_values(static_cast<size_t>(c.out_channels), 8, false);
}

// x -> Conv -> y0 ...; the conv reads "x", "W" and, with a bias, "B".
ModelBuilder conv_model(const ConvCase& c, int64_t opset) {
  ModelBuilder b(opset);
  b.input("x", DType::F32, {1, c.channels, c.size, c.size});
  b.initializer("W", Tensor::from(conv_weights(c), {c.out_channels, c.group_in(), c.kernel, c.kernel}));
  const std::vector<Attr> attrs = {Attr::i("group", c.group), Attr::ints("strides", {c.stride, c.stride}),
                                   Attr::ints("pads", {c.pad, c.pad, c.pad, c.pad})};
  if (c.bias) {
    b.initializer("B", Tensor::from(conv_bias(c), {c.out_channels}));
    b.node("Conv", {"x", "W", "B"}, {"y0"}, attrs);
  } else {
    b.node("Conv", {"x", "W"}, {"y0"}, attrs);
  }
  return b;
}

Tensor conv_input(const ConvCase& c, bool specials) {
  const auto n = static_cast<size_t>(c.channels * c.size * c.size);
  return Tensor::from(random_values(n, 11, specials), {1, c.channels, c.size, c.size});
}

TEST(GraphPasses, LevelsAndModeSelectThePasses) {
  for (auto mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    SessionOptions o;
    o.mode = mode;
    EXPECT_TRUE(passes::selected_passes(at_level(o, OptimizationLevel::None)).empty());
    for (auto level : {OptimizationLevel::Basic, OptimizationLevel::All}) {
      std::vector<const passes::GraphPass*> want;
      for (const passes::GraphPass& p : passes::all_passes()) {
        if (static_cast<int>(p.min_level) > static_cast<int>(level)) continue;
        if (mode == ExecutionMode::Exact && !p.preserves_bits) continue;
        want.push_back(&p);
      }
      EXPECT_EQ(passes::selected_passes(at_level(o, level)), want);
    }
  }
  // The table of graph-passes.md: the QDQ rewrite, the batch-norm fold, the Gelu and the attention fusions
  // change bits, the rest do not.
  for (const passes::GraphPass& p : passes::all_passes()) {
    const bool changes_bits = p.name == "qdq" || p.name == "conv-batchnorm-fold" ||
                              p.name == "conv-affine-fold" || p.name == "gelu" || p.name == "attention";
    EXPECT_EQ(p.preserves_bits, !changes_bits) << p.name;
    const auto level = p.name == "constant-fold" ? OptimizationLevel::Basic : OptimizationLevel::All;
    EXPECT_EQ(p.min_level, level) << p.name;
  }
}

TEST(GraphPasses, ConvActivationKeepsTheBitsOnEveryPathAndThreadCount) {
  for (const ConvCase& c : kConvs) {
    for (const Activation& a : epilogue_activations()) {
      ModelBuilder b = conv_model(c, 14);
      add_activation(b, a, "y0", "z");
      b.output("z", DType::F32);
      const std::string label = std::string(c.name) + " " + a.op;
      const Tensor x = conv_input(c, true);
      for (auto mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
        EXPECT_EQ(nodes_after_passes(b, options(mode)), 1u) << label;
        EXPECT_EQ(nodes_after_passes(b, at_level(options(mode), OptimizationLevel::None)), 2u) << label;
        for (const std::string& path : kernel_paths()) {
          for (int threads : {1, 2}) {
            SessionOptions o = options(mode, path, threads);
            Tensor fused = b.run({{"x", x}}, o)[0];
            Tensor plain = b.run({{"x", x}}, at_level(o, OptimizationLevel::None))[0];
            EXPECT_TRUE(same_bytes(fused, plain)) << label << " " << path << " threads " << threads
                                                  << (mode == ExecutionMode::Exact ? " exact" : " fast");
          }
        }
      }
    }
  }
}

TEST(GraphPasses, ConvActivationLeavesSharedOrOutputConvolutionsAlone) {
  const ConvCase& c = kConvs[0];
  ModelBuilder shared = conv_model(c, 14);
  shared.node("Relu", {"y0"}, {"z"})
      .node("Sigmoid", {"y0"}, {"s"})
      .output("z", DType::F32)
      .output("s", DType::F32);
  EXPECT_EQ(nodes_after_passes(shared, {}), 3u);
  ModelBuilder output = conv_model(c, 14);
  output.node("Relu", {"y0"}, {"z"}).output("z", DType::F32).output("y0", DType::F32);
  EXPECT_EQ(nodes_after_passes(output, {}), 2u);
  // Clip with a bound computed at run time is not a constant-bound activation.
  ModelBuilder bound = conv_model(c, 14);
  bound.input("lo", DType::F32, {}).node("Clip", {"y0", "lo"}, {"z"}).output("z", DType::F32);
  EXPECT_EQ(nodes_after_passes(bound, {}), 2u);
}

// Statistics whose scale varies in sign and size.
struct BatchNormParams {
  std::vector<float> scale, beta, mean, var;
  explicit BatchNormParams(const ConvCase& c) {
    const auto m = static_cast<size_t>(c.out_channels);
    scale = random_values(m, 22, false);
    beta = random_values(m, 23, false);
    mean = random_values(m, 24, false);
    var = random_values(m, 21, false);
    for (float& v : var) v = v * v + 0.01f;
  }
};

// in -> BatchNormalization -> out, with the statistics above.
void add_batchnorm(ModelBuilder& b, const ConvCase& c, std::string_view in, std::string_view out,
                   float epsilon) {
  const BatchNormParams p(c);
  b.initializer("scale", Tensor::from(p.scale, {c.out_channels}))
      .initializer("beta", Tensor::from(p.beta, {c.out_channels}))
      .initializer("mean", Tensor::from(p.mean, {c.out_channels}))
      .initializer("var", Tensor::from(p.var, {c.out_channels}))
      .node("BatchNormalization", {in, "scale", "beta", "mean", "var"}, {out}, {Attr::f("epsilon", epsilon)});
}

// Conv -> BatchNormalization.
ModelBuilder conv_batchnorm_model(const ConvCase& c, float epsilon) {
  ModelBuilder b = conv_model(c, 15);
  add_batchnorm(b, c, "y0", "z", epsilon);
  b.output("z", DType::F32);
  return b;
}

// Both modes, every kernel path, one and two threads: the same bytes with and without the passes.
void expect_same_bits_as_unfused(const ModelBuilder& b, const Tensor& x, const std::string& label) {
  for (auto mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    for (const std::string& path : kernel_paths()) {
      for (int threads : {1, 2}) {
        SessionOptions o = options(mode, path, threads);
        EXPECT_TRUE(
            same_bytes(b.run({{"x", x}}, o)[0], b.run({{"x", x}}, at_level(o, OptimizationLevel::None))[0]))
            << label << " " << path << " threads " << threads
            << (mode == ExecutionMode::Exact ? " exact" : " fast");
      }
    }
  }
}

TEST(GraphPasses, ElementwiseChainKeepsTheBits) {
  for (const ConvCase& c : {kConvs[0], kConvs[2]}) {
    // PaddleOCR's hard-swish: Add(x, 3) -> Clip(0, 6) -> Div(6) -> Mul(x, .), x read twice.
    ModelBuilder swish = conv_model(c, 13);
    swish.initializer("three", Tensor::from(std::vector<float>{3.0f}, {}))
        .initializer("zero", Tensor::from(std::vector<float>{0.0f}, {}))
        .initializer("six", Tensor::from(std::vector<float>{6.0f}, {1, 1, 1, 1}))
        .node("Add", {"y0", "three"}, {"a"})
        .node("Clip", {"a", "zero", "six"}, {"b"})
        .node("Div", {"b", "six"}, {"d"})
        .node("Mul", {"y0", "d"}, {"z"})
        .output("z", DType::F32);
    // The fused chain then becomes the convolution's epilogue.
    for (auto mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
      EXPECT_EQ(nodes_after_passes(swish, options(mode)), 1u) << c.name;
      EXPECT_EQ(nodes_after_passes(swish, at_level(options(mode), OptimizationLevel::None)), 5u) << c.name;
    }
    expect_same_bits_as_unfused(swish, conv_input(c, true), std::string(c.name) + " hard-swish");

    // PaddleOCR's learnable affine blocks around it: Mul(a) -> Add(b) -> hard-swish -> Mul(a2) -> Add(b2).
    // The affine step's output is read twice, so it ends one chain; the second chain joins the first as a
    // segment and both become the epilogue. (Fast mode folds the first Mul and Add into the weights first.)
    ModelBuilder affine = conv_model(c, 13);
    affine.initializer("a", Tensor::from(std::vector<float>{0.75f}, {1}))
        .initializer("b", Tensor::from(std::vector<float>{-0.25f}, {1}))
        .initializer("three", Tensor::from(std::vector<float>{3.0f}, {}))
        .initializer("zero", Tensor::from(std::vector<float>{0.0f}, {}))
        .initializer("six", Tensor::from(std::vector<float>{6.0f}, {}))
        .node("Mul", {"a", "y0"}, {"m"})
        .node("Add", {"m", "b"}, {"t"})
        .node("Add", {"t", "three"}, {"a3"})
        .node("Clip", {"a3", "zero", "six"}, {"c6"})
        .node("Mul", {"t", "c6"}, {"p"})
        .node("Div", {"p", "six"}, {"h"})
        .node("Mul", {"a", "h"}, {"m2"})
        .node("Add", {"m2", "b"}, {"z"})
        .output("z", DType::F32);
    EXPECT_EQ(nodes_after_passes(affine, options(ExecutionMode::Exact)), 1u) << c.name;
    EXPECT_EQ(nodes_after_passes(affine, at_level(options(ExecutionMode::Exact), OptimizationLevel::None)),
              9u);
    const Tensor x = conv_input(c, true);
    for (const std::string& path : kernel_paths()) {
      for (int threads : {1, 2}) {
        const SessionOptions o = options(ExecutionMode::Exact, path, threads);
        EXPECT_TRUE(same_bytes(affine.run({{"x", x}}, o)[0],
                               affine.run({{"x", x}}, at_level(o, OptimizationLevel::None))[0]))
            << c.name << " affine chains " << path << " threads " << threads;
      }
    }

    // After a BatchNormalization, with the previous value as either operand. The convolution's output is also
    // a graph output, so the batch-norm fold leaves it alone in fast mode too.
    ModelBuilder mixed = conv_model(c, 13);
    add_batchnorm(mixed, c, "y0", "n", 1e-5f);
    mixed.initializer("half", Tensor::from(std::vector<float>{0.5f}, {1}))
        .node("Sub", {"half", "n"}, {"s"})
        .node("Tanh", {"s"}, {"t"})
        .node("Div", {"t", "n"}, {"q"})
        .node("LeakyRelu", {"q"}, {"z"}, {Attr::f("alpha", 0.25f)})
        .output("z", DType::F32)
        .output("y0", DType::F32);
    for (auto mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
      EXPECT_EQ(nodes_after_passes(mixed, options(mode)), 3u) << c.name;
      EXPECT_EQ(nodes_after_passes(mixed, at_level(options(mode), OptimizationLevel::None)), 6u) << c.name;
    }
    expect_same_bits_as_unfused(mixed, conv_input(c, true), std::string(c.name) + " chain after BN");
  }
}

// The one-input operators of the plain element-wise loop (Relu, Neg, Abs, LeakyRelu, HardSigmoid) run on raw
// blocks in a chain too: -0, NaN and infinities of the input keep the stand-alone operators' bits.
TEST(GraphPasses, ElementwiseChainRunsUnaryOperatorsOnBlocks) {
  for (const ConvCase& c : {kConvs[0], kConvs[2]}) {
    ModelBuilder unary = conv_model(c, 13);
    unary.initializer("half", Tensor::from(std::vector<float>{0.5f}, {1}))
        .node("Sub", {"half", "y0"}, {"s"})
        .node("Relu", {"s"}, {"r"})
        .node("Neg", {"r"}, {"n"})
        .node("Abs", {"n"}, {"a"})
        .node("HardSigmoid", {"a"}, {"h"}, {Attr::f("alpha", 0.3f), Attr::f("beta", 0.4f)})
        .node("Neg", {"h"}, {"z"})  // last: a negated NaN is not canonical, so exact mode must rewrite it
        .output("z", DType::F32);
    EXPECT_EQ(nodes_after_passes(unary, options(ExecutionMode::Exact)), 1u) << c.name;
    expect_same_bits_as_unfused(unary, conv_input(c, true), std::string(c.name) + " unary chain");
  }
}

// The chain calls arithmetic and Clip on raw blocks; Clip's bounds come from its attributes before opset 11
// (cls's hard-swish is opset 9), default to the finite extremes when absent, and from 11 may be given in
// part.
TEST(GraphPasses, ElementwiseChainTakesClipBoundsOfEveryForm) {
  const ConvCase& c = kConvs[0];
  struct ClipForm {
    const char* name;
    int64_t opset;  // from 11: the lower bound as an input, no upper bound
    std::vector<Attr> attrs;
  };
  const ClipForm forms[] = {
      {"attributes", 9, {Attr::f("min", 0.0f), Attr::f("max", 6.0f)}},
      {"max attribute", 9, {Attr::f("max", 0.5f)}},
      {"no bounds", 9, {}},
      {"min input", 13, {}},
  };
  for (const ClipForm& form : forms) {
    ModelBuilder b = conv_model(c, form.opset);
    b.initializer("three", Tensor::from(std::vector<float>{3.0f}, {}))
        .initializer("zero", Tensor::from(std::vector<float>{0.0f}, {}))
        .initializer("six", Tensor::from(std::vector<float>{6.0f}, {}))
        .node("Add", {"y0", "three"}, {"a"});
    if (form.opset < 11)
      b.node("Clip", {"a"}, {"b"}, form.attrs);
    else
      b.node("Clip", {"a", "zero"}, {"b"});
    b.node("Div", {"six", "b"}, {"d"}).node("Mul", {"d", "y0"}, {"z"}).output("z", DType::F32);
    for (auto mode : {ExecutionMode::Fast, ExecutionMode::Exact})
      EXPECT_EQ(nodes_after_passes(b, options(mode)), 1u) << form.name;
    expect_same_bits_as_unfused(b, conv_input(c, true), form.name);
  }
}

// Clip takes single values as bounds: one that is the chain's x (a whole tensor) is an error of the Clip node
// with or without the passes, never a chain that reads one element of it.
TEST(GraphPasses, ElementwiseChainLeavesAClipWhoseBoundIsNotAValue) {
  const ConvCase& c = kConvs[0];
  ModelBuilder b = conv_model(c, 13);
  b.initializer("three", Tensor::from(std::vector<float>{3.0f}, {}))
      .node("Add", {"y0", "three"}, {"a"})
      .node("Clip", {"a", "y0"}, {"z"})
      .output("z", DType::F32);
  const Tensor x = conv_input(c, false);
  for (auto mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    EXPECT_THROW(b.run({{"x", x}}, options(mode)), Error);
    EXPECT_THROW(b.run({{"x", x}}, at_level(options(mode), OptimizationLevel::None)), Error);
  }
}

// A chain segment that is exactly a written-out hard-swish (Add, Clip, then Mul by x and Div in either order,
// Add and Mul operands in either order) runs as one fused loop: the unfused graph's bits in every form, with
// Clip's bounds as inputs or attributes.
TEST(GraphPasses, ElementwiseChainRunsEveryHardSwishFormAsOneLoop) {
  for (int form = 0; form < 8; ++form) {
    const bool add_x_first = form & 1, mul_x_first = form & 2, div_last = form & 4;
    for (float addend : {3.0f, -0.5f}) {
      const ConvCase& c = form == 0 ? kConvs[0] : kConvs[2];
      const int64_t opset = form == 7 ? 9 : 13;
      ModelBuilder b = conv_model(c, opset);
      b.initializer("c", Tensor::from(std::vector<float>{addend}, {}))
          .initializer("zero", Tensor::from(std::vector<float>{0.0f}, {}))
          .initializer("six", Tensor::from(std::vector<float>{6.0f}, {1}));
      if (add_x_first)
        b.node("Add", {"y0", "c"}, {"a"});
      else
        b.node("Add", {"c", "y0"}, {"a"});
      if (opset < 11)
        b.node("Clip", {"a"}, {"t"}, {Attr::f("min", 0.0f), Attr::f("max", 6.0f)});
      else
        b.node("Clip", {"a", "zero", "six"}, {"t"});
      const std::string_view mul_in = div_last ? "t" : "q";
      const std::string_view mul_out = div_last ? "p" : "z";
      if (!div_last) b.node("Div", {"t", "six"}, {"q"});
      if (mul_x_first)
        b.node("Mul", {"y0", mul_in}, {mul_out});
      else
        b.node("Mul", {mul_in, "y0"}, {mul_out});
      if (div_last) b.node("Div", {"p", "six"}, {"z"});
      b.output("z", DType::F32);
      const std::string label =
          "hard-swish form " + std::to_string(form) + (addend == 3.0f ? "" : " NaN addend");
      for (auto mode : {ExecutionMode::Fast, ExecutionMode::Exact})
        EXPECT_EQ(nodes_after_passes(b, options(mode)), 1u) << label;
      expect_same_bits_as_unfused(b, conv_input(c, true), label);
    }
  }
}

TEST(GraphPasses, DepthwiseEpilogueRunsOnGroupsOfPlanesWithTheSameBits) {
  // Planes of 260 x 260 outputs are each above the 64 Ki floats of a group, and the channel multiplier is 2:
  // three groups of two planes, each followed by its epilogue.
  const ConvCase c = {"depthwise-multiplier", 3, 6, 3, 260, 3, 1, 1, true};
  const Tensor x = conv_input(c, true);
  ModelBuilder relu = conv_model(c, 13);
  relu.node("Relu", {"y0"}, {"z"}).output("z", DType::F32);
  EXPECT_EQ(nodes_after_passes(relu, options(ExecutionMode::Exact)), 1u);
  expect_same_bits_as_unfused(relu, x, "depthwise relu");
  ModelBuilder chain = conv_model(c, 13);
  chain.initializer("k", Tensor::from(std::vector<float>{0.5f}, {}))
      .node("Sub", {"y0", "k"}, {"s"})
      .node("Tanh", {"s"}, {"z"})
      .output("z", DType::F32);
  EXPECT_EQ(nodes_after_passes(chain, options(ExecutionMode::Exact)), 1u);
  expect_same_bits_as_unfused(chain, x, "depthwise chain");
}

TEST(GraphPasses, ElementwiseChainNeedsScalarOperandsOfNoHigherRank) {
  const ConvCase& c = kConvs[1];
  // A per-channel operand and a scalar of rank 5 (which would widen the output) both stop the chain.
  ModelBuilder b = conv_model(c, 13);
  b.initializer("per_channel", Tensor::from(std::vector<float>(static_cast<size_t>(c.out_channels), 2.0f),
                                            {c.out_channels, 1, 1}))
      .initializer("wide", Tensor::from(std::vector<float>{2.0f}, {1, 1, 1, 1, 1}))
      .node("Mul", {"y0", "per_channel"}, {"m"})
      .node("Add", {"m", "wide"}, {"z"})
      .output("z", DType::F32);
  // Fast mode folds the per-channel Mul into the convolution (conv-affine-fold), not the rank-5 Add.
  EXPECT_EQ(nodes_after_passes(b, options(ExecutionMode::Exact)), 3u);
  EXPECT_EQ(nodes_after_passes(b, options(ExecutionMode::Fast)), 2u);
  const Tensor x = conv_input(c, false);
  for (const std::string& path : kernel_paths()) {
    const SessionOptions o = options(ExecutionMode::Exact, path);
    EXPECT_TRUE(
        same_bytes(b.run({{"x", x}}, o)[0], b.run({{"x", x}}, at_level(o, OptimizationLevel::None))[0]))
        << path;
  }
}

// Per output of a convolution followed by per-channel arithmetic y = s * (conv + inner) + outer: the sum of
// the magnitudes of every term (each scaled product, the scaled inner and the outer terms) and the number of
// terms, for the accuracy bound.
struct Magnitudes {
  std::vector<double> sum;
  int64_t terms = 0;
};

// `scale`, `inner` and `outer` hold per output channel |s|, the sum of the magnitudes of the inner terms
// (the bias included) and that of the outer ones.
Magnitudes magnitudes(const ConvCase& c, const Tensor& x, const std::vector<double>& scale,
                      const std::vector<double>& inner, const std::vector<double>& outer) {
  const std::vector<float> xs = x.to_vector<float>(), w = conv_weights(c);
  const int64_t out = c.out_size(), group_out = c.out_channels / c.group;
  Magnitudes r;
  r.terms = c.group_in() * c.kernel * c.kernel + 3;
  for (int64_t m = 0; m < c.out_channels; ++m) {
    const int64_t grp = m / group_out;
    for (int64_t oy = 0; oy < out; ++oy) {
      for (int64_t ox = 0; ox < out; ++ox) {
        double sum = 0;
        for (int64_t ci = 0; ci < c.group_in(); ++ci) {
          for (int64_t ky = 0; ky < c.kernel; ++ky) {
            for (int64_t kx = 0; kx < c.kernel; ++kx) {
              const int64_t iy = oy * c.stride - c.pad + ky, ix = ox * c.stride - c.pad + kx;
              if (iy < 0 || ix < 0 || iy >= c.size || ix >= c.size) continue;
              const double xv =
                  xs[static_cast<size_t>(((grp * c.group_in() + ci) * c.size + iy) * c.size + ix)];
              const double wv =
                  w[static_cast<size_t>(((m * c.group_in() + ci) * c.kernel + ky) * c.kernel + kx)];
              sum += std::fabs(xv * wv);
            }
          }
        }
        const auto at = static_cast<size_t>(m);
        r.sum.push_back(scale[at] * (sum + inner[at]) + outer[at]);
      }
    }
  }
  return r;
}

Magnitudes batchnorm_magnitudes(const ConvCase& c, const Tensor& x, float epsilon) {
  const std::vector<float> bias = conv_bias(c);
  const BatchNormParams p(c);
  std::vector<double> scale, inner, outer;
  for (size_t m = 0; m < static_cast<size_t>(c.out_channels); ++m) {
    scale.push_back(std::fabs(p.scale[m] / std::sqrt(static_cast<double>(p.var[m]) + epsilon)));
    inner.push_back((c.bias ? std::fabs(bias[m]) : 0.0) + std::fabs(p.mean[m]));
    outer.push_back(std::fabs(p.beta[m]));
  }
  return magnitudes(c, x, scale, inner, outer);
}

// Fast mode on every path and thread count: the folded graph within the bound of the unfused one (each side
// within (terms + 2) * u * magnitude of the exact value); exact mode: the unfused graph's bits.
void expect_fold_within_bound(const ModelBuilder& b, const ConvCase& c, const Tensor& x,
                              const Magnitudes& mag) {
  constexpr double kUnitRoundoff = 1.0 / 16777216.0;
  for (const std::string& path : kernel_paths()) {
    for (int threads : {1, 2}) {
      const SessionOptions fast = options(ExecutionMode::Fast, path, threads);
      const std::vector<float> folded = b.run({{"x", x}}, fast)[0].to_vector<float>();
      const std::vector<float> plain =
          b.run({{"x", x}}, at_level(fast, OptimizationLevel::None))[0].to_vector<float>();
      ASSERT_EQ(folded.size(), mag.sum.size());
      ASSERT_EQ(plain.size(), mag.sum.size());
      for (size_t i = 0; i < folded.size(); ++i) {
        const double bound = 2.0 * static_cast<double>(mag.terms + 2) * kUnitRoundoff * mag.sum[i] + 1e-30;
        ASSERT_LE(std::fabs(static_cast<double>(folded[i]) - plain[i]), bound)
            << c.name << " " << path << " threads " << threads << " output " << i;
      }
      const SessionOptions exact = options(ExecutionMode::Exact, path, threads);
      EXPECT_TRUE(same_bytes(b.run({{"x", x}}, exact)[0],
                             b.run({{"x", x}}, at_level(exact, OptimizationLevel::None))[0]))
          << c.name << " " << path;
    }
  }
}

TEST(GraphPasses, ConvBatchNormFoldStaysWithinTheSummationBoundAndSkipsExactMode) {
  constexpr float kEpsilon = 1e-3f;
  for (const ConvCase& c : kConvs) {
    ModelBuilder b = conv_batchnorm_model(c, kEpsilon);
    EXPECT_EQ(nodes_after_passes(b, options(ExecutionMode::Fast)), 1u) << c.name;
    EXPECT_EQ(nodes_after_passes(b, options(ExecutionMode::Exact)), 2u) << c.name;
    EXPECT_EQ(nodes_after_passes(b, at_level(options(ExecutionMode::Fast), OptimizationLevel::Basic)), 2u);
    const Tensor x = conv_input(c, false);
    expect_fold_within_bound(b, c, x, batchnorm_magnitudes(c, x, kEpsilon));
  }
}

TEST(GraphPasses, ConvAffineFoldStaysWithinTheSummationBoundAndSkipsExactMode) {
  for (const ConvCase& c : kConvs) {
    // y = (conv * a + t[m]) * a2: a rank-0 scalar before the convolution's output, a per-channel [C, 1, 1]
    // shift, then a [1, 1, 1, 1] scalar.
    const float a = -1.75f, a2 = 0.625f;
    const std::vector<float> t = random_values(static_cast<size_t>(c.out_channels), 31, false);
    ModelBuilder b = conv_model(c, 13);
    b.initializer("a", Tensor::from(std::vector<float>{a}, {}))
        .initializer("t", Tensor::from(t, {c.out_channels, 1, 1}))
        .initializer("a2", Tensor::from(std::vector<float>{a2}, {1, 1, 1, 1}))
        .node("Mul", {"a", "y0"}, {"m"})
        .node("Add", {"m", "t"}, {"s"})
        .node("Mul", {"s", "a2"}, {"z"})
        .output("z", DType::F32);
    EXPECT_EQ(nodes_after_passes(b, options(ExecutionMode::Fast)), 1u) << c.name;
    EXPECT_EQ(nodes_after_passes(b, options(ExecutionMode::Exact)), 4u) << c.name;  // t is no chain operand
    const Tensor x = conv_input(c, false);
    const std::vector<float> bias = conv_bias(c);
    std::vector<double> scale, inner, outer;
    for (size_t m = 0; m < static_cast<size_t>(c.out_channels); ++m) {
      scale.push_back(std::fabs(static_cast<double>(a) * a2));
      inner.push_back(c.bias ? std::fabs(bias[m]) : 0.0);
      outer.push_back(std::fabs(static_cast<double>(t[m]) * a2));
    }
    expect_fold_within_bound(b, c, x, magnitudes(c, x, scale, inner, outer));
  }
}

TEST(GraphPasses, ConvAffineFoldLeavesOtherOperandsAlone) {
  const ConvCase& c = kConvs[0];
  const auto fast_nodes = [](const ModelBuilder& b) {
    return nodes_after_passes(b, options(ExecutionMode::Fast));
  };
  // A rank-1 constant of C values lines up with the width axis, not the channels (here as wide as C).
  const ConvCase square = {"square", 3, 5, 1, 5, 1, 1, 0, true};
  ModelBuilder width = conv_model(square, 13);
  width.initializer("k", Tensor::from(std::vector<float>(5, 2.0f), {5}))
      .node("Mul", {"y0", "k"}, {"z"})
      .output("z", DType::F32);
  EXPECT_EQ(fast_nodes(width), 2u);
  // A value computed at run time, a constant of higher rank than the output, an infinite factor.
  ModelBuilder input = conv_model(c, 13);
  input.input("k", DType::F32, {}).node("Mul", {"y0", "k"}, {"z"}).output("z", DType::F32);
  EXPECT_EQ(fast_nodes(input), 2u);
  ModelBuilder wide = conv_model(c, 13);
  wide.initializer("k", Tensor::from(std::vector<float>{2.0f}, {1, 1, 1, 1, 1}))
      .node("Add", {"y0", "k"}, {"z"})
      .output("z", DType::F32);
  EXPECT_EQ(fast_nodes(wide), 2u);
  ModelBuilder infinite = conv_model(c, 13);
  infinite.initializer("k", Tensor::from(std::vector<float>{std::numeric_limits<float>::infinity()}, {}))
      .node("Mul", {"y0", "k"}, {"z"})
      .output("z", DType::F32);
  EXPECT_EQ(fast_nodes(infinite), 2u);
  // The convolution's output is also a graph output.
  ModelBuilder shared = conv_model(c, 13);
  shared.initializer("k", Tensor::from(std::vector<float>{2.0f}, {}))
      .node("Mul", {"y0", "k"}, {"z"})
      .output("z", DType::F32)
      .output("y0", DType::F32);
  EXPECT_EQ(fast_nodes(shared), 2u);
}

}  // namespace
}  // namespace onemodel::test
