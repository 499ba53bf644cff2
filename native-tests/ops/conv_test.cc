// Conv and ConvTranspose through Session. Exact mode must equal, bit for bit on every kernel path at 1 and 2
// threads, the definitions computed here one output at a time: exact-mode.md "Convolution" for Conv (taps in
// (c, kd, ky, kx) order from +0, padding taps real products with +0) and ops-conv.md for ConvTranspose (the
// product's per-input-channel sum, then the landing taps in increasing order from +0), bias added last. Fast
// mode must stay within the sequential-summation bound. Plus shape rules, errors and the ONNX backend cases.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "ops/op_test_util.h"
#include "support/allocation_counter.h"

namespace onemodel::test {
namespace {

using Kind = SessionError::Kind;
constexpr uint32_t kCanonicalNaN = 0x7FC00000u;

float canonical(float v) {
  return std::isnan(v) ? from_bits(kCanonicalNaN) : v;
}

struct Spec {
  bool transpose = false;
  int spatial = 2;
  int64_t batch = 1, in_channels = 1, out_channels = 1, group = 1;
  std::vector<int64_t> in, kernel, stride, dilation, pad_before, pad_after, output_padding;
  bool bias = false, constant_w = false, specials = false;

  int64_t group_in() const { return in_channels / group; }
  int64_t group_out() const { return out_channels / group; }
  int64_t extent(int i) const { return dilation[i] * (kernel[i] - 1) + 1; }
  int64_t out(int i) const {
    if (transpose)
      return stride[i] * (in[i] - 1) + output_padding[i] + extent(i) - pad_before[i] - pad_after[i];
    return (in[i] + pad_before[i] + pad_after[i] - extent(i)) / stride[i] + 1;
  }
  std::vector<int64_t> x_dims() const {
    std::vector<int64_t> d = {batch, in_channels};
    d.insert(d.end(), in.begin(), in.end());
    return d;
  }
  std::vector<int64_t> w_dims() const {
    std::vector<int64_t> d = transpose ? std::vector<int64_t>{in_channels, group_out()}
                                       : std::vector<int64_t>{out_channels, group_in()};
    d.insert(d.end(), kernel.begin(), kernel.end());
    return d;
  }
  std::vector<int64_t> y_dims() const {
    std::vector<int64_t> d = {batch, out_channels};
    for (int i = 0; i < spatial; ++i) d.push_back(out(i));
    return d;
  }
  std::string str() const {
    std::string s = std::string(transpose ? "ConvTranspose" : "Conv") + " x" +
                    ::testing::PrintToString(x_dims()) + " w" + ::testing::PrintToString(w_dims()) +
                    " group " + std::to_string(group) + " stride" + ::testing::PrintToString(stride) +
                    " dilation" + ::testing::PrintToString(dilation) + " pads" +
                    ::testing::PrintToString(pad_before) + ::testing::PrintToString(pad_after);
    if (transpose) s += " output_padding" + ::testing::PrintToString(output_padding);
    return s + (bias ? " bias" : "") + (constant_w ? " constant W" : "");
  }
};

int64_t count_of(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// Spatial index vector <-> flat offset, row-major.
std::vector<int64_t> unflatten(int64_t flat, const std::vector<int64_t>& extents) {
  std::vector<int64_t> idx(extents.size());
  for (size_t i = extents.size(); i-- > 0;) {
    idx[i] = flat % extents[i];
    flat /= extents[i];
  }
  return idx;
}
int64_t flatten(const std::vector<int64_t>& idx, const std::vector<int64_t>& extents) {
  int64_t flat = 0;
  for (size_t i = 0; i < extents.size(); ++i) flat = flat * extents[i] + idx[i];
  return flat;
}

struct Reference {
  std::vector<float> exact;
  std::vector<double> value, magnitude;
};

Reference reference(const Spec& s, const std::vector<float>& x, const std::vector<float>& w,
                    const std::vector<float>& b) {
  std::vector<int64_t> out_ext;
  for (int i = 0; i < s.spatial; ++i) out_ext.push_back(s.out(i));
  const int64_t in_size = count_of(s.in), out_size = count_of(out_ext), taps = count_of(s.kernel);
  Reference r;
  for (int64_t n = 0; n < s.batch; ++n) {
    for (int64_t oc = 0; oc < s.out_channels; ++oc) {
      const int64_t g = oc / s.group_out(), local = oc % s.group_out();
      for (int64_t o = 0; o < out_size; ++o) {
        const std::vector<int64_t> opos = unflatten(o, out_ext);
        float acc = 0.0f;
        double value = 0.0, mag = 0.0;
        if (!s.transpose) {
          for (int64_t c = 0; c < s.group_in(); ++c) {
            for (int64_t t = 0; t < taps; ++t) {
              const std::vector<int64_t> tap = unflatten(t, s.kernel);
              std::vector<int64_t> ipos(static_cast<size_t>(s.spatial));
              bool inside = true;
              for (int i = 0; i < s.spatial; ++i) {
                ipos[i] = opos[i] * s.stride[i] - s.pad_before[i] + tap[i] * s.dilation[i];
                inside = inside && ipos[i] >= 0 && ipos[i] < s.in[i];
              }
              const float v =
                  inside ? x[static_cast<size_t>((n * s.in_channels + g * s.group_in() + c) * in_size +
                                                 flatten(ipos, s.in))]
                         : 0.0f;
              const float wv = w[static_cast<size_t>((oc * s.group_in() + c) * taps + t)];
              acc = acc + wv * v;
              value += static_cast<double>(wv) * v;
              mag += std::fabs(static_cast<double>(wv) * v);
            }
          }
        } else {
          for (int64_t t = 0; t < taps; ++t) {
            const std::vector<int64_t> tap = unflatten(t, s.kernel);
            std::vector<int64_t> ipos(static_cast<size_t>(s.spatial));
            bool lands = true;
            for (int i = 0; i < s.spatial && lands; ++i) {
              const int64_t shifted = opos[i] + s.pad_before[i] - tap[i] * s.dilation[i];
              lands = shifted >= 0 && shifted % s.stride[i] == 0 && shifted / s.stride[i] < s.in[i];
              ipos[i] = lands ? shifted / s.stride[i] : 0;
            }
            if (!lands) continue;
            float col = 0.0f;  // the product's element: sum over the group's input channels
            for (int64_t p = 0; p < s.group_in(); ++p) {
              const int64_t ic = g * s.group_in() + p;
              const float xv =
                  x[static_cast<size_t>((n * s.in_channels + ic) * in_size + flatten(ipos, s.in))];
              const float wv = w[static_cast<size_t>((ic * s.group_out() + local) * taps + t)];
              col = col + wv * xv;
              value += static_cast<double>(wv) * xv;
              mag += std::fabs(static_cast<double>(wv) * xv);
            }
            acc = acc + canonical(col);
          }
        }
        if (s.bias) {
          acc = acc + b[static_cast<size_t>(oc)];
          value += b[static_cast<size_t>(oc)];
          mag += std::fabs(b[static_cast<size_t>(oc)]);
        }
        r.exact.push_back(canonical(acc));
        r.value.push_back(value);
        r.magnitude.push_back(mag);
      }
    }
  }
  return r;
}

std::vector<Attr> attrs(const Spec& s) {
  std::vector<int64_t> pads = s.pad_before;
  pads.insert(pads.end(), s.pad_after.begin(), s.pad_after.end());
  std::vector<Attr> a = {Attr::ints("strides", s.stride), Attr::ints("dilations", s.dilation),
                         Attr::ints("pads", pads), Attr::i("group", s.group),
                         Attr::ints("kernel_shape", s.kernel)};
  if (s.transpose) a.push_back(Attr::ints("output_padding", s.output_padding));
  return a;
}

ModelBuilder model(const Spec& s, const Tensor& w, const Tensor& b) {
  ModelBuilder m(17);
  m.input("x", DType::F32, s.x_dims()).output("y", DType::F32);
  if (s.constant_w) {
    m.initializer("w", w);
  } else {
    m.input("w", DType::F32, s.w_dims());
  }
  if (s.bias) {
    m.initializer("b", b);
    m.node(s.transpose ? "ConvTranspose" : "Conv", {"x", "w", "b"}, {"y"}, attrs(s));
  } else {
    m.node(s.transpose ? "ConvTranspose" : "Conv", {"x", "w"}, {"y"}, attrs(s));
  }
  return m;
}

Spec random_spec(std::mt19937& rng, bool transpose) {
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  for (;;) {
    Spec s;
    s.transpose = transpose;
    s.spatial = static_cast<int>(pick(0, 5) == 0 ? 3 : pick(1, 2));
    s.batch = pick(1, 2);
    const int64_t kind = pick(0, 3);  // 0: depthwise, 1: grouped, 2-3: plain
    s.group = kind == 0 ? pick(1, 6) : kind == 1 ? pick(2, 3) : 1;
    const int64_t per_in = kind == 0 ? 1 : pick(1, 4), per_out = pick(1, 4);
    s.in_channels = s.group * per_in;
    s.out_channels = s.group * per_out;
    const int64_t max_in = s.spatial == 3 ? 7 : 20;
    for (int i = 0; i < s.spatial; ++i) {
      s.in.push_back(pick(1, max_in));
      s.kernel.push_back(pick(1, s.spatial == 3 ? 3 : 5));
      s.stride.push_back(pick(1, 3));
      s.dilation.push_back(pick(1, 3));
      s.pad_before.push_back(pick(0, 3));
      s.pad_after.push_back(pick(0, 3));
      s.output_padding.push_back(pick(0, 2) == 0 ? pick(0, s.stride.back() - 1) : 0);
    }
    s.bias = pick(0, 1) == 1;
    s.constant_w = pick(0, 1) == 1;
    bool ok = true;
    for (int i = 0; i < s.spatial; ++i) {
      ok = ok && s.out(i) >= 1 && (transpose || s.in[i] + s.pad_before[i] + s.pad_after[i] >= s.extent(i));
    }
    if (ok) return s;
  }
}

struct Operands {
  Tensor x, w, b;
};

Operands operands(const Spec& s, std::mt19937& rng, bool specials) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> x(static_cast<size_t>(count_of(s.x_dims()))),
      w(static_cast<size_t>(count_of(s.w_dims())));
  std::vector<float> b(static_cast<size_t>(s.out_channels));
  for (auto* v : {&x, &w, &b}) {
    for (float& e : *v) e = normal(rng);
  }
  if (specials && !w.empty()) {
    const float odd[] = {std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                         std::numeric_limits<float>::quiet_NaN(), -0.0f, 1e-41f};
    std::uniform_int_distribution<size_t> where(0, w.size() - 1);
    for (float v : odd) w[where(rng)] = v;
    x[std::uniform_int_distribution<size_t>(0, x.size() - 1)(rng)] = -0.0f;
  }
  return {Tensor::from<float>(x, s.x_dims()), Tensor::from<float>(w, s.w_dims()),
          Tensor::from<float>(b, {s.out_channels})};
}

std::vector<NamedTensor> feeds(const Spec& s, const Operands& o) {
  std::vector<NamedTensor> f = {{"x", o.x}};
  if (!s.constant_w) f.push_back({"w", o.w});
  return f;
}

void check_exact(bool transpose, int cases, uint32_t seed) {
  std::mt19937 rng(seed);
  for (int c = 0; c < cases; ++c) {
    const Spec s = random_spec(rng, transpose);
    const Operands o = operands(s, rng, c % 3 == 0);
    const Reference ref =
        reference(s, o.x.to_vector<float>(), o.w.to_vector<float>(), o.b.to_vector<float>());
    const ModelBuilder m = model(s, o.w, o.b);
    for (const std::string& path : kernel_paths()) {
      for (int threads : {1, 2}) {
        const Tensor y = m.run(feeds(s, o), options(ExecutionMode::Exact, path, threads))[0];
        ASSERT_EQ(y.shape(), s.y_dims()) << s.str();
        const auto got = y.to_vector<float>();
        for (size_t i = 0; i < got.size(); ++i) {
          ASSERT_EQ(bits_of(got[i]), bits_of(ref.exact[i]))
              << path << " threads " << threads << " element " << i << ": " << s.str();
        }
      }
    }
  }
}

void check_fast(bool transpose, int cases, uint32_t seed) {
  std::mt19937 rng(seed);
  for (int c = 0; c < cases; ++c) {
    const Spec s = random_spec(rng, transpose);
    const Operands o = operands(s, rng, false);
    const Reference ref =
        reference(s, o.x.to_vector<float>(), o.w.to_vector<float>(), o.b.to_vector<float>());
    const ModelBuilder m = model(s, o.w, o.b);
    // Every output is a sequential sum of at most `terms` rounded steps.
    const double terms = static_cast<double>(s.group_in() * count_of(s.kernel) + 2);
    for (const std::string& path : kernel_paths()) {
      const auto got = m.run(feeds(s, o), options(ExecutionMode::Fast, path, 1))[0].to_vector<float>();
      ASSERT_EQ(got.size(), ref.value.size()) << s.str();
      for (size_t i = 0; i < got.size(); ++i) {
        const double bound = terms * 0x1p-24 * ref.magnitude[i] + 1e-30;
        ASSERT_LE(std::fabs(got[i] - ref.value[i]), bound) << path << " element " << i << ": " << s.str();
      }
    }
  }
}

TEST(ConvOps, ConvExactIsTheDefinitionOnEveryPathAndThreadCount) {
  check_exact(false, 120, 401);
}

TEST(ConvOps, ConvFastIsWithinTheSummationBound) {
  check_fast(false, 60, 402);
}

TEST(ConvOps, ConvTransposeExactIsTheDefinitionOnEveryPathAndThreadCount) {
  check_exact(true, 80, 403);
}

TEST(ConvOps, ConvTransposeFastIsWithinTheSummationBound) {
  check_fast(true, 40, 404);
}

// One channel, 1x1 kernel, stride 1, no padding: the input is the product's B operand directly.
TEST(ConvOps, PointwiseConvMatchesDefinition) {
  std::mt19937 rng(405);
  Spec s;
  s.in_channels = 5;
  s.out_channels = 7;
  s.batch = 2;
  s.in = {9, 11};
  s.kernel = {1, 1};
  s.stride = s.dilation = {1, 1};
  s.pad_before = s.pad_after = {0, 0};
  s.output_padding = {0, 0};
  const Operands o = operands(s, rng, true);
  const Reference ref = reference(s, o.x.to_vector<float>(), o.w.to_vector<float>(), o.b.to_vector<float>());
  for (const std::string& path : kernel_paths()) {
    const auto got = model(s, o.w, o.b).run(feeds(s, o), options(ExecutionMode::Exact, path, 2))[0];
    const auto values = got.to_vector<float>();
    for (size_t i = 0; i < values.size(); ++i) ASSERT_EQ(bits_of(values[i]), bits_of(ref.exact[i])) << path;
  }
}

// A convolution with at most eight output positions per image (squeeze-and-excitation on a 1x1 input,
// silero's STFT and encoder) runs as im2col^T * W^T: still the definition's bits, and within the summation
// bound in fast mode. Batches, groups, 1-D to 3-D, padding and strides, the input read in place (1x1) or
// through im2col, one to eight positions, channels past one register tile, weights constant (packed at plan
// time) or given at run time.
TEST(ConvOps, NarrowConvMatchesDefinition) {
  std::mt19937 rng(407);
  struct Case {
    int spatial;
    int64_t batch, in_channels, out_channels, group, in, kernel, stride, pad;
  };
  const Case cases[] = {
      {2, 1, 50, 200, 1, 1, 1, 1, 0},       // squeeze-and-excitation
      {2, 3, 22, 88, 1, 1, 1, 1, 0},        // three images
      {1, 2, 6, 10, 2, 1, 1, 1, 0},         // groups
      {3, 1, 9, 3, 3, 1, 1, 1, 0},          // 3-D
      {1, 1, 1, 130, 1, 512, 256, 128, 0},  // an STFT: three positions
      {1, 1, 65, 128, 1, 4, 3, 1, 1},       // padded, four positions
      {1, 2, 16, 24, 2, 8, 3, 2, 1},        // strided and grouped, four positions
      {2, 1, 5, 7, 1, 2, 1, 1, 0},          // 1x1 read in place, four positions
      {2, 1, 4, 6, 1, 5, 3, 2, 1},          // nine positions: the general path, for comparison
  };
  for (const Case& c : cases) {
    Spec s;
    s.spatial = c.spatial;
    s.batch = c.batch;
    s.in_channels = c.in_channels;
    s.out_channels = c.out_channels;
    s.group = c.group;
    const auto axes = static_cast<size_t>(c.spatial);
    s.in = std::vector<int64_t>(axes, c.in);
    s.kernel = std::vector<int64_t>(axes, c.kernel);
    s.stride = std::vector<int64_t>(axes, c.stride);
    s.dilation = std::vector<int64_t>(axes, 1);
    s.pad_before = s.pad_after = std::vector<int64_t>(axes, c.pad);
    s.output_padding = std::vector<int64_t>(axes, 0);
    s.bias = c.batch != 2;
    s.constant_w = c.batch != 3;  // constant weights are packed once per plan
    const Operands o = operands(s, rng, true);
    const Reference ref =
        reference(s, o.x.to_vector<float>(), o.w.to_vector<float>(), o.b.to_vector<float>());
    const ModelBuilder m = model(s, o.w, o.b);
    for (const std::string& path : kernel_paths()) {
      for (int threads : {1, 2}) {
        const auto got =
            m.run(feeds(s, o), options(ExecutionMode::Exact, path, threads))[0].to_vector<float>();
        ASSERT_EQ(got.size(), ref.exact.size()) << s.str();
        for (size_t i = 0; i < got.size(); ++i)
          ASSERT_EQ(bits_of(got[i]), bits_of(ref.exact[i]))
              << path << " threads " << threads << ": " << s.str();
      }
    }
    const Operands finite = operands(s, rng, false);
    const Reference bound_ref =
        reference(s, finite.x.to_vector<float>(), finite.w.to_vector<float>(), finite.b.to_vector<float>());
    const double terms = static_cast<double>(s.group_in() * count_of(s.kernel) + 2);
    for (const std::string& path : kernel_paths()) {
      const auto got = model(s, finite.w, finite.b)
                           .run(feeds(s, finite), options(ExecutionMode::Fast, path, 1))[0]
                           .to_vector<float>();
      for (size_t i = 0; i < got.size(); ++i) {
        const double bound = terms * 0x1p-24 * bound_ref.magnitude[i] + 1e-30;
        ASSERT_LE(std::fabs(got[i] - bound_ref.value[i]), bound)
            << path << " element " << i << ": " << s.str();
      }
    }
  }
}

// A product deep enough (k = 1175: several 256-row blocks, a ragged last group of im2col rows) that the
// output columns are split over several chunks.
TEST(ConvOps, ColumnChunksMatchDefinition) {
  std::mt19937 rng(406);
  Spec s;
  s.in_channels = 47;
  s.out_channels = 5;
  s.in = {21, 17};
  s.kernel = {5, 5};
  s.stride = s.dilation = {1, 1};
  s.pad_before = {2, 1};
  s.pad_after = {2, 3};
  s.output_padding = {0, 0};
  s.bias = true;
  const Operands o = operands(s, rng, true);
  const Reference ref = reference(s, o.x.to_vector<float>(), o.w.to_vector<float>(), o.b.to_vector<float>());
  for (const std::string& path : kernel_paths()) {
    for (int threads : {1, 2}) {
      const auto got = model(s, o.w, o.b).run(feeds(s, o), options(ExecutionMode::Exact, path, threads))[0];
      const auto values = got.to_vector<float>();
      ASSERT_EQ(values.size(), ref.exact.size());
      for (size_t i = 0; i < values.size(); ++i) ASSERT_EQ(bits_of(values[i]), bits_of(ref.exact[i])) << path;
    }
  }
}

// Output rows wide enough that im2col writes several whole strips of a row at once on every path (strips of
// 8 to 32 columns, those at the padding included), with dilation, a 256-row block boundary inside a group's
// rows (k = 270 and 324), column chunks that start mid-row, and in 3D a depth axis whose taps leave the
// input.
TEST(ConvOps, WideRowsMatchDefinition) {
  std::mt19937 rng(408);
  Spec wide;
  wide.in_channels = 30;
  wide.out_channels = 5;
  wide.in = {7, 150};
  wide.kernel = {3, 3};
  wide.stride = {1, 1};
  wide.dilation = {1, 2};
  wide.pad_before = wide.pad_after = {1, 2};
  wide.output_padding = {0, 0};
  wide.bias = true;
  Spec deep = wide;
  deep.spatial = 3;
  deep.in_channels = 12;
  deep.in = {3, 3, 140};
  deep.kernel = {3, 3, 3};
  deep.stride = {1, 1, 1};
  deep.dilation = {1, 1, 1};
  deep.pad_before = deep.pad_after = {1, 0, 1};
  deep.output_padding = {0, 0, 0};
  for (const Spec& s : {wide, deep}) {
    const Operands o = operands(s, rng, true);
    const Reference ref =
        reference(s, o.x.to_vector<float>(), o.w.to_vector<float>(), o.b.to_vector<float>());
    for (const std::string& path : kernel_paths()) {
      for (int threads : {1, 2}) {
        const auto got = model(s, o.w, o.b).run(feeds(s, o), options(ExecutionMode::Exact, path, threads))[0];
        const auto values = got.to_vector<float>();
        ASSERT_EQ(values.size(), ref.exact.size()) << s.str();
        for (size_t i = 0; i < values.size(); ++i)
          ASSERT_EQ(bits_of(values[i]), bits_of(ref.exact[i])) << path << " element " << i << ": " << s.str();
      }
    }
  }
}

// A warm run (same shapes) takes all its scratch from the run's arena: im2col + GEMM, depthwise,
// ConvTranspose.
TEST(ConvOps, WarmRunAllocatesNothing) {
  std::mt19937 rng(407);
  for (int kind = 0; kind < 3; ++kind) {
    Spec s;
    s.transpose = kind == 2;
    s.in_channels = kind == 1 ? 6 : 4;
    s.out_channels = 6;
    s.group = kind == 1 ? 6 : 2;
    s.in = {24, 30};
    s.kernel = {3, 3};
    s.stride = {1, 2};
    s.dilation = {1, 1};
    s.pad_before = s.pad_after = {1, 1};
    s.output_padding = {0, 1};
    s.bias = true;
    s.constant_w = true;
    const Operands o = operands(s, rng, false);
    for (int threads : {1, 2}) {
      Session session = model(s, o.w, o.b).session(options(ExecutionMode::Exact, {}, threads));
      const std::vector<NamedTensor> in = feeds(s, o);
      const std::vector<std::string> names = {"y"};
      std::vector<Tensor> out;
      session.run(in, names, out);
      session.run(in, names, out);
      const int64_t before = allocation_count();
      session.run(in, names, out);
      EXPECT_EQ(allocation_count() - before, 0) << s.str() << " threads " << threads;
    }
  }
}

// Padding and dilation far beyond the input: only a few taps reach it. Depthwise and grouped.
TEST(ConvOps, HugePadsAndDilationsMatchDefinition) {
  std::mt19937 rng(408);
  for (int64_t per_group : {1, 2}) {
    Spec s;
    s.group = 2;
    s.in_channels = 2 * per_group;
    s.out_channels = 4;
    s.in = {3, 4};
    s.kernel = {3, 3};
    s.stride = {2147483647, 2147483647};  // one output per axis
    s.dilation = {1 << 29, 1 << 29};
    s.pad_before = s.pad_after = {1 << 30, 1 << 30};
    s.output_padding = {0, 0};
    const Operands o = operands(s, rng, false);
    const Reference ref =
        reference(s, o.x.to_vector<float>(), o.w.to_vector<float>(), o.b.to_vector<float>());
    const Tensor y = model(s, o.w, o.b).run(feeds(s, o), options(ExecutionMode::Exact, {}, 2))[0];
    ASSERT_EQ(y.shape(), s.y_dims());
    const auto got = y.to_vector<float>();
    for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(bits_of(got[i]), bits_of(ref.exact[i])) << s.str();
  }
}

// auto_pad SAME_UPPER / SAME_LOWER: output ceil(n / s), the odd padding element after / before the input.
TEST(ConvOps, AutoPadSamePlacesTheOddPaddingElement) {
  // 1-D input [1, 2, 3, 4], kernel [1, 10] (taps 0, 1), stride 1: total padding 1.
  for (const char* mode : {"SAME_UPPER", "SAME_LOWER"}) {
    ModelBuilder m(17);
    m.input("x", DType::F32, {1, 1, 4}).output("y", DType::F32);
    m.initializer("w", Tensor::from<float>(std::vector<float>{1.0f, 10.0f}, {1, 1, 2}));
    m.node("Conv", {"x", "w"}, {"y"}, {Attr::s("auto_pad", mode)});
    const auto y =
        m.run({{"x", Tensor::from<float>(std::vector<float>{1, 2, 3, 4}, {1, 1, 4})}})[0].to_vector<float>();
    const std::vector<float> upper = {21, 32, 43, 4}, lower = {10, 21, 32, 43};
    EXPECT_EQ(y, std::string(mode) == "SAME_UPPER" ? upper : lower) << mode;
  }
}

TEST(ConvOps, ConvTransposeOutputShapeLargerThanReachIsZeroFilled) {
  // Input [1, 2], kernel 2 taps of 1: natural size 3; output_shape 4 leaves one zero element at the end.
  ModelBuilder m(17);
  m.input("x", DType::F32, {1, 1, 2}).output("y", DType::F32);
  m.initializer("w", Tensor::from<float>(std::vector<float>{1.0f, 1.0f}, {1, 1, 2}));
  m.node("ConvTranspose", {"x", "w"}, {"y"}, {Attr::ints("output_shape", {4})});
  const Tensor y = m.run({{"x", Tensor::from<float>(std::vector<float>{1, 2}, {1, 1, 2})}})[0];
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{1, 1, 4}));
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{1, 3, 2, 0}));
}

TEST(ConvOps, BadShapesAndTypesAreRejected) {
  // Builds a one-Conv model and runs it on zero-filled inputs of the declared shapes.
  const auto conv = [](std::vector<int64_t> x, std::vector<int64_t> w, std::vector<Attr> a,
                       DType t = DType::F32) {
    ModelBuilder m(17);
    m.input("x", t, x).input("w", t, w).output("y", t);
    m.node("Conv", {"x", "w"}, {"y"}, a);
    Session s = m.session();
    s.run({{"x", Tensor(t, x)}, {"w", Tensor(t, w)}});
  };
  const auto invalid = [](Kind k) { return k == Kind::InvalidInput || k == Kind::InvalidModel; };
  // Channels that do not match the weights and the group.
  EXPECT_TRUE(invalid(error_kind([&] { conv({1, 3, 5, 5}, {2, 2, 3, 3}, {}); })));
  EXPECT_TRUE(invalid(error_kind([&] { conv({1, 4, 5, 5}, {3, 2, 3, 3}, {Attr::i("group", 2)}); })));
  // Kernel larger than the padded input; kernel_shape that contradicts the weights.
  EXPECT_TRUE(invalid(error_kind([&] { conv({1, 1, 2, 2}, {1, 1, 3, 3}, {}); })));
  EXPECT_TRUE(invalid(error_kind([&] {
    conv({1, 1, 5, 5}, {1, 1, 3, 3}, {Attr::ints("kernel_shape", {2, 2})});
  })));
  // Attribute lengths that do not match the spatial rank, and invalid values.
  EXPECT_TRUE(invalid(error_kind([&] { conv({1, 1, 5, 5}, {1, 1, 3, 3}, {Attr::ints("strides", {1})}); })));
  EXPECT_EQ(error_kind([&] {
              conv({1, 1, 5, 5}, {1, 1, 3, 3}, {Attr::ints("strides", {0, 1})});
            }),
            Kind::InvalidModel);
  EXPECT_EQ(error_kind([&] {
              conv({1, 1, 5, 5}, {1, 1, 3, 3}, {Attr::ints("pads", {0, 0, -1, 0})});
            }),
            Kind::InvalidModel);
  EXPECT_EQ(error_kind([&] {
              conv({1, 1, 5, 5}, {1, 1, 3, 3}, {Attr::s("auto_pad", "BOTH")});
            }),
            Kind::InvalidModel);
  EXPECT_EQ(error_kind([&] { conv({1, 1, 5, 5}, {1, 1, 3, 3}, {Attr::i("group", 0)}); }), Kind::InvalidModel);
  // A transposed convolution whose output would not fit in a tensor.
  const auto transposed = [](std::vector<Attr> a) {
    ModelBuilder m(17);
    m.input("x", DType::F32, {1, 1, 3, 3}).input("w", DType::F32, {1, 1, 2, 2}).output("y", DType::F32);
    m.node("ConvTranspose", {"x", "w"}, {"y"}, a);
    Session s = m.session();
    s.run({{"x", Tensor(DType::F32, {1, 1, 3, 3})}, {"w", Tensor(DType::F32, {1, 1, 2, 2})}});
  };
  EXPECT_TRUE(invalid(error_kind([&] { transposed({Attr::ints("strides", {2147483647, 1})}); })));
  EXPECT_TRUE(invalid(error_kind([&] { transposed({Attr::ints("dilations", {2147483647, 2147483647})}); })));
  EXPECT_TRUE(invalid(error_kind([&] {
    transposed({Attr::ints("output_shape", {2147483647, 2147483647})});
  })));
  // Four spatial axes and non-float types are not served.
  EXPECT_EQ(error_kind([&] { conv({1, 1, 2, 2, 2, 2}, {1, 1, 1, 1, 1, 1}, {}); }), Kind::Unsupported);
  EXPECT_EQ(error_kind([&] { conv({1, 1, 5, 5}, {1, 1, 3, 3}, {}, DType::F64); }), Kind::Unsupported);
}

TEST(ConvOps, BackendNodeCases) {
  const int passed = check_backend_cases({"test_conv_", "test_convtranspose", "test_basic_conv_"});
  if (std::filesystem::is_directory(backend_node_dir())) {
    EXPECT_EQ(passed, 2 * 16);
  }
}

}  // namespace
}  // namespace onemodel::test
