// Resize and Upsample through Session: hand-worked 1-D cases for every nearest mode and coordinate mode, and
// a multi-dimensional (not separable) reference in double written from ops-conv.md "Resize" and
// ops-coverage.md (antialias) for linear, cubic, exclude_outside, cubic_coeff_a, tf_crop_and_resize with
// extrapolation, axes, keep_aspect_ratio_policy and sizes or scales, constant or computed. Results are equal
// bits on every kernel path, at 1 and 2 threads, in fast and exact mode. Plus the ONNX backend node cases.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <numeric>
#include <optional>
#include <random>

#include "ops/op_test_util.h"

namespace onemodel::test {
namespace {

constexpr uint32_t kCanonicalNaN = 0x7FC00000u;

struct ResizeCase {
  std::vector<int64_t> dims;
  std::vector<float> scales;   // empty: sizes
  std::vector<int64_t> sizes;  // empty: scales
  std::string mode = "nearest";
  std::string coordinates = "half_pixel";
  std::string nearest = "round_prefer_floor";
  float cubic_a = -0.75f;
  int exclude_outside = 0;
  float extrapolation = 0.0f;
  std::vector<int64_t> axes{};
  std::string policy = "stretch";
  std::vector<float> roi{};
  int antialias = 0;
  int64_t opset = 19;
  bool computed = false;  // scales / sizes are graph inputs, not initializers
};

ResizeCase with_scales(std::vector<int64_t> dims, std::vector<float> scales) {
  ResizeCase c;
  c.dims = std::move(dims);
  c.scales = std::move(scales);
  return c;
}

ResizeCase with_sizes(std::vector<int64_t> dims, std::vector<int64_t> sizes) {
  ResizeCase c;
  c.dims = std::move(dims);
  c.sizes = std::move(sizes);
  return c;
}

std::vector<Tensor> run_resize(const ResizeCase& c, const std::vector<float>& x,
                               const SessionOptions& o = {}) {
  ModelBuilder m(c.opset);
  m.input("x", DType::F32, c.dims).output("y", DType::F32);
  const Tensor scales = Tensor::from<float>(c.scales, {static_cast<int64_t>(c.scales.size())});
  const Tensor sizes = Tensor::from<int64_t>(c.sizes, {static_cast<int64_t>(c.sizes.size())});
  std::vector<NamedTensor> feeds = {{"x", Tensor::from<float>(x, c.dims)}};
  const std::string_view param = c.scales.empty() ? "sizes" : "scales";
  const Tensor& value = c.scales.empty() ? sizes : scales;
  if (c.computed) {
    m.input(param, value.dtype(), value.shape());
    feeds.push_back({std::string(param), value});
  } else {
    m.initializer(param, value);
  }
  if (!c.roi.empty()) m.initializer("roi", Tensor::from<float>(c.roi, {static_cast<int64_t>(c.roi.size())}));
  std::vector<Attr> attrs = {Attr::s("mode", c.mode),
                             Attr::s("coordinate_transformation_mode", c.coordinates),
                             Attr::s("nearest_mode", c.nearest),
                             Attr::f("cubic_coeff_a", c.cubic_a),
                             Attr::i("exclude_outside", c.exclude_outside),
                             Attr::f("extrapolation_value", c.extrapolation)};
  if (c.opset >= 18) {
    attrs.push_back(Attr::s("keep_aspect_ratio_policy", c.policy));
    attrs.push_back(Attr::i("antialias", c.antialias));
    if (!c.axes.empty()) attrs.push_back(Attr::ints("axes", c.axes));
  }
  const std::string_view roi = c.roi.empty() ? "" : "roi";
  if (c.scales.empty())
    m.node("Resize", {"x", roi, "", "sizes"}, {"y"}, attrs);
  else
    m.node("Resize", {"x", roi, "scales"}, {"y"}, attrs);
  return m.run(feeds, o);
}

// --- Reference, in double

double keys(double d, double a) {
  d = std::fabs(d);
  if (d <= 1) return ((a + 2) * d - (a + 3)) * d * d + 1;
  if (d < 2) return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a;
  return 0;
}

struct Taps {
  std::vector<int64_t> index;
  std::vector<double> weight;
  bool outside = false;  // tf_crop_and_resize: the extrapolation value
};

struct RefAxis {
  int64_t in, out;
  float scale, roi_start = 0, roi_end = 1;
};

// Source coordinate of output j, in float32 as ops-conv.md states (the spec's operation order).
float ref_coordinate(const ResizeCase& c, const RefAxis& a, int64_t j) {
  const float in = static_cast<float>(a.in), out = static_cast<float>(a.out), s = a.scale;
  const float jj = static_cast<float>(j);
  if (c.coordinates == "half_pixel") return (jj + 0.5f) / s - 0.5f;
  if (c.coordinates == "pytorch_half_pixel") return a.out > 1 ? (jj + 0.5f) / s - 0.5f : 0.0f;
  if (c.coordinates == "align_corners") return a.out > 1 ? jj * (in - 1) / (out - 1) : 0.0f;
  if (c.coordinates == "asymmetric") return jj / s;
  if (c.coordinates == "tf_half_pixel_for_nn") return (jj + 0.5f) / s;
  if (c.coordinates == "half_pixel_symmetric") return in / 2 * (1 - out / (s * in)) + (jj + 0.5f) / s - 0.5f;
  // tf_crop_and_resize
  if (a.out > 1) return a.roi_start * (in - 1) + jj * (a.roi_end - a.roi_start) * (in - 1) / (out - 1);
  return 0.5f * (a.roi_start + a.roi_end) * (in - 1);
}

Taps ref_taps(const ResizeCase& c, const RefAxis& a, int64_t j) {
  const double in = static_cast<double>(a.in), s = a.scale;
  const double x = ref_coordinate(c, a, j);
  Taps t;
  if (c.coordinates == "tf_crop_and_resize" && (x < 0 || x > in - 1)) {
    t.outside = true;
    return t;
  }
  auto clamp_index = [&](int64_t i) { return std::clamp<int64_t>(i, 0, a.in - 1); };
  if (c.mode == "nearest") {
    const double f = std::floor(x);
    double r = f;
    if (c.nearest == "round_prefer_floor") r = x - f > 0.5 ? f + 1 : f;
    if (c.nearest == "round_prefer_ceil") r = x - f >= 0.5 ? f + 1 : f;
    if (c.nearest == "ceil") r = std::ceil(x);
    t.index = {clamp_index(static_cast<int64_t>(r))};
    t.weight = {1};
    return t;
  }
  if (c.antialias && s < 1) {
    const double reach = (c.mode == "cubic" ? 2.0 : 1.0) / s;
    double sum = 0;
    for (int64_t i = static_cast<int64_t>(std::ceil(x - reach));
         i <= static_cast<int64_t>(std::floor(x + reach)); ++i) {
      const double d = (static_cast<double>(i) - x) * s;
      const double w = c.mode == "cubic" ? keys(d, c.cubic_a) : std::max(0.0, 1 - std::fabs(d));
      if (c.exclude_outside && (i < 0 || i >= a.in)) continue;
      t.index.push_back(clamp_index(i));
      t.weight.push_back(w);
      sum += w;
    }
    for (double& w : t.weight) w /= sum;
    return t;
  }
  if (c.mode == "linear") {
    const double cx = std::clamp(x, 0.0, in - 1);
    const int64_t i0 = static_cast<int64_t>(std::floor(cx));
    t.index = {i0, clamp_index(i0 + 1)};
    t.weight = {1 - (cx - std::floor(cx)), cx - std::floor(cx)};
    return t;
  }
  const double f = std::floor(x);
  double sum = 0;
  for (int k = -1; k <= 2; ++k) {
    const int64_t i = static_cast<int64_t>(f) + k;
    if (c.exclude_outside && (i < 0 || i >= a.in)) continue;
    t.index.push_back(clamp_index(i));
    t.weight.push_back(keys(x - f - k, c.cubic_a));
    sum += t.weight.back();
  }
  if (c.exclude_outside) {
    for (double& w : t.weight) w /= sum;
  }
  return t;
}

std::vector<RefAxis> ref_axes(const ResizeCase& c) {
  const size_t rank = c.dims.size();
  std::vector<RefAxis> axes;
  for (int64_t d : c.dims) axes.push_back({d, d, 1.0f});
  std::vector<size_t> listed;
  if (c.axes.empty()) {
    for (size_t d = 0; d < rank; ++d) listed.push_back(d);
  } else {
    for (int64_t a : c.axes)
      listed.push_back(static_cast<size_t>(a < 0 ? a + static_cast<int64_t>(rank) : a));
  }
  if (!c.scales.empty()) {
    for (size_t k = 0; k < listed.size(); ++k) {
      RefAxis& a = axes[listed[k]];
      a.scale = c.scales[k];
      a.out = static_cast<int64_t>(std::floor(static_cast<float>(a.in) * c.scales[k]));
    }
  } else if (c.policy == "stretch") {
    for (size_t k = 0; k < listed.size(); ++k) {
      RefAxis& a = axes[listed[k]];
      a.out = c.sizes[k];
      a.scale = static_cast<float>(c.sizes[k]) / static_cast<float>(a.in);
    }
  } else {
    float s = c.policy == "not_larger" ? 1e30f : 0.0f;
    for (size_t k = 0; k < listed.size(); ++k) {
      const float r = static_cast<float>(c.sizes[k]) / static_cast<float>(axes[listed[k]].in);
      s = c.policy == "not_larger" ? std::min(s, r) : std::max(s, r);
    }
    for (size_t k = 0; k < listed.size(); ++k) {
      RefAxis& a = axes[listed[k]];
      a.scale = s;
      a.out = static_cast<int64_t>(std::floor(static_cast<float>(a.in) * s + 0.5f));
    }
  }
  if (!c.roi.empty()) {
    const size_t per = c.roi.size() / 2;
    for (size_t k = 0; k < listed.size(); ++k) {
      const size_t at = per == listed.size() ? k : listed[k];
      axes[listed[k]].roi_start = c.roi[at];
      axes[listed[k]].roi_end = c.roi[at + per];
    }
  }
  return axes;
}

struct RefResult {
  std::vector<int64_t> dims;
  std::vector<double> values;
};

RefResult ref_resize(const ResizeCase& c, const std::vector<float>& x) {
  const std::vector<RefAxis> axes = ref_axes(c);
  const size_t rank = axes.size();
  RefResult r;
  std::vector<std::vector<Taps>> taps(rank);
  for (size_t d = 0; d < rank; ++d) {
    r.dims.push_back(axes[d].out);
    for (int64_t j = 0; j < axes[d].out; ++j) taps[d].push_back(ref_taps(c, axes[d], j));
  }
  std::vector<int64_t> idx(rank, 0);
  const int64_t total = std::accumulate(r.dims.begin(), r.dims.end(), int64_t{1}, std::multiplies<>());
  for (int64_t o = 0; o < total; ++o) {
    int64_t rem = o;
    for (size_t d = rank; d-- > 0;) {
      idx[d] = rem % axes[d].out;
      rem /= axes[d].out;
    }
    bool outside = false;
    for (size_t d = 0; d < rank; ++d) outside = outside || taps[d][static_cast<size_t>(idx[d])].outside;
    if (outside) {
      r.values.push_back(c.extrapolation);
      continue;
    }
    // Sum over every combination of the axes' taps.
    double sum = 0;
    std::function<void(size_t, int64_t, double)> walk = [&](size_t d, int64_t offset, double w) {
      if (d == rank) {
        sum += w * x[static_cast<size_t>(offset)];
        return;
      }
      const Taps& t = taps[d][static_cast<size_t>(idx[d])];
      for (size_t k = 0; k < t.index.size(); ++k)
        walk(d + 1, offset * axes[d].in + t.index[k], w * t.weight[k]);
    };
    walk(0, 0, 1.0);
    r.values.push_back(sum);
  }
  return r;
}

std::vector<float> ramp(size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> d(-2.0f, 2.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

// Checks one case against the reference (nearest: exact values; others within 1e-4 scaled) and that every
// path, thread count and mode gives the same bits.
void check_case(const ResizeCase& c, const std::string& what) {
  std::mt19937 rng(31);
  const int64_t count = std::accumulate(c.dims.begin(), c.dims.end(), int64_t{1}, std::multiplies<>());
  const std::vector<float> x = ramp(static_cast<size_t>(count), rng);
  const RefResult want = ref_resize(c, x);
  const Tensor first = run_resize(c, x)[0];
  ASSERT_EQ(first.shape(), want.dims) << what;
  const auto got = first.to_vector<float>();
  for (size_t i = 0; i < got.size(); ++i) {
    if (c.mode == "nearest")
      ASSERT_EQ(got[i], static_cast<float>(want.values[i])) << what << " " << i;
    else
      ASSERT_NEAR(got[i], want.values[i], 1e-4 * (1 + std::fabs(want.values[i]))) << what << " " << i;
  }
  for (const std::string& path : kernel_paths()) {
    for (int threads : {1, 2}) {
      for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
        ASSERT_TRUE(same_bytes(run_resize(c, x, options(mode, path, threads))[0], first))
            << what << " " << path;
      }
    }
  }
}

TEST(ResizeOp, NearestModesByHand) {
  // [10, 20, 30, 40] doubled: the source coordinates are j / 2 (asymmetric), (j + 0.5) / 2 - 0.5
  // (half_pixel), (j + 0.5) / 2 (tf_half_pixel_for_nn) and j * 3 / 7 (align_corners).
  struct Hand {
    std::string coordinates, nearest;
    std::vector<float> want;
  };
  const std::vector<Hand> hands = {
      {"asymmetric", "floor", {10, 10, 20, 20, 30, 30, 40, 40}},
      {"asymmetric", "ceil", {10, 20, 20, 30, 30, 40, 40, 40}},
      {"asymmetric", "round_prefer_floor", {10, 10, 20, 20, 30, 30, 40, 40}},
      {"asymmetric", "round_prefer_ceil", {10, 20, 20, 30, 30, 40, 40, 40}},
      {"half_pixel", "round_prefer_floor", {10, 10, 20, 20, 30, 30, 40, 40}},
      {"half_pixel", "floor", {10, 10, 10, 20, 20, 30, 30, 40}},
      {"half_pixel", "ceil", {10, 20, 20, 30, 30, 40, 40, 40}},
      {"align_corners", "round_prefer_floor", {10, 10, 20, 20, 30, 30, 40, 40}},
      {"tf_half_pixel_for_nn", "floor", {10, 10, 20, 20, 30, 30, 40, 40}},
      {"tf_half_pixel_for_nn", "round_prefer_floor", {10, 20, 20, 30, 30, 40, 40, 40}},
  };
  for (const Hand& h : hands) {
    ResizeCase c = with_scales({4}, {2.0f});
    c.coordinates = h.coordinates;
    c.nearest = h.nearest;
    c.opset = h.coordinates == "tf_half_pixel_for_nn" ? 11 : 19;
    EXPECT_EQ(run_resize(c, {10, 20, 30, 40})[0].to_vector<float>(), h.want)
        << h.coordinates << " " << h.nearest;
  }
  // 8 to 3 with half_pixel: coordinates 0.833, 3.5 (a tie) and 6.167.
  ResizeCase d = with_sizes({8}, {3});
  const std::vector<float> x = {0, 1, 2, 3, 4, 5, 6, 7};
  EXPECT_EQ(run_resize(d, x)[0].to_vector<float>(), (std::vector<float>{1, 3, 6}));
  d.nearest = "round_prefer_ceil";
  EXPECT_EQ(run_resize(d, x)[0].to_vector<float>(), (std::vector<float>{1, 4, 6}));
  // Nearest copies NaN and -0 through (NaN canonical).
  ResizeCase n = with_scales({2}, {2.0f});
  const auto y =
      run_resize(n, {__builtin_bit_cast(float, 0xFFC00001u), -0.0f}, options(ExecutionMode::Fast))[0]
          .to_vector<float>();
  EXPECT_EQ(bits_of(y[0]), kCanonicalNaN);
  EXPECT_EQ(bits_of(y[3]), 0x80000000u);
}

TEST(ResizeOp, LinearByHand) {
  ResizeCase c = with_scales({4}, {2.0f});
  c.mode = "linear";
  EXPECT_EQ(run_resize(c, {10, 20, 30, 40})[0].to_vector<float>(),
            (std::vector<float>{10, 12.5f, 17.5f, 22.5f, 27.5f, 32.5f, 37.5f, 40}));
  // An exactly hit sample next to an infinity stays finite (the zero-weight tap is left out).
  ResizeCase e = with_sizes({3}, {3});
  e.mode = "linear";
  e.coordinates = "align_corners";
  const auto y = run_resize(e, {1, std::numeric_limits<float>::infinity(), 3})[0].to_vector<float>();
  EXPECT_EQ(y[0], 1.0f);
  EXPECT_EQ(y[2], 3.0f);
}

TEST(ResizeOp, MatchesReferenceInEveryMode) {
  const std::vector<std::string> coordinates = {"half_pixel", "pytorch_half_pixel", "align_corners",
                                                "asymmetric", "half_pixel_symmetric"};
  for (const std::string mode : {"nearest", "linear", "cubic"}) {
    for (const std::string& coord : coordinates) {
      ResizeCase c = with_scales({1, 2, 5, 7}, {1.0f, 1.0f, 1.5f, 0.6f});
      c.mode = mode;
      c.coordinates = coord;
      check_case(c, mode + " " + coord + " scales");
      ResizeCase s = with_sizes({2, 1, 6, 4}, {2, 1, 3, 9});
      s.mode = mode;
      s.coordinates = coord;
      s.nearest = "round_prefer_ceil";
      check_case(s, mode + " " + coord + " sizes");
    }
  }
  for (int exclude : {0, 1}) {
    ResizeCase c = with_scales({1, 1, 6, 5}, {1.0f, 1.0f, 0.5f, 2.0f});
    c.mode = "cubic";
    c.cubic_a = -0.5f;
    c.exclude_outside = exclude;
    check_case(c, "cubic exclude_outside " + std::to_string(exclude));
  }
  for (const std::string mode : {"nearest", "linear", "cubic"}) {
    ResizeCase c = with_sizes({1, 1, 5, 6}, {1, 1, 7, 4});
    c.mode = mode;
    c.coordinates = "tf_crop_and_resize";
    c.roi = {0, 0, 0.2f, -0.3f, 1, 1, 1.1f, 0.8f};
    c.extrapolation = 9.5f;
    check_case(c, mode + " tf_crop_and_resize");
  }
}

TEST(ResizeOp, AxesPolicyAndComputedScales) {
  ResizeCase c = with_sizes({1, 3, 4, 6}, {5, 5});
  c.axes = {2, -1};
  c.mode = "linear";
  for (const auto& [policy, h, w] : std::vector<std::tuple<std::string, int64_t, int64_t>>{
           {"stretch", 5, 5}, {"not_larger", 3, 5}, {"not_smaller", 5, 8}}) {
    c.policy = policy;
    EXPECT_EQ(run_resize(c, std::vector<float>(72, 1.0f))[0].shape(), (std::vector<int64_t>{1, 3, h, w}))
        << policy;
    check_case(c, "policy " + policy);
  }
  ResizeCase roi = with_sizes({1, 1, 5, 6}, {4, 3});
  roi.axes = {3, 2};
  roi.mode = "linear";
  roi.coordinates = "tf_crop_and_resize";
  roi.roi = {0.1f, 0.0f, 0.9f, 1.2f};
  check_case(roi, "roi over axes");
  ResizeCase computed = with_scales({1, 2, 3, 4}, {1.0f, 1.0f, 2.0f, 0.5f});
  computed.mode = "cubic";
  computed.computed = true;
  check_case(computed, "computed scales");
  ResizeCase computed_sizes = with_sizes({1, 2, 3, 4}, {1, 2, 7, 3});
  computed_sizes.computed = true;
  check_case(computed_sizes, "computed sizes");
  // scales and sizes are both missing, or an axis is listed twice.
  ResizeCase twice = with_scales({2, 3}, {2.0f, 2.0f});
  twice.axes = {1, -1};
  EXPECT_EQ(error_kind([&] { run_resize(twice, std::vector<float>(6)); }), SessionError::Kind::InvalidInput);
}

TEST(ResizeOp, Antialias) {
  for (const std::string mode : {"linear", "cubic"}) {
    for (int exclude : {0, 1}) {
      ResizeCase c = with_scales({1, 1, 9, 11}, {1.0f, 1.0f, 0.4f, 0.75f});
      c.mode = mode;
      c.antialias = 1;
      c.exclude_outside = exclude;
      check_case(c, mode + " antialias " + std::to_string(exclude));
      ResizeCase g =
          with_sizes({1, 1, 9, 5}, {1, 1, 3, 8});  // one axis shrinks, one grows (unchanged by antialias)
      g.mode = mode;
      g.antialias = 1;
      g.coordinates = "align_corners";
      g.exclude_outside = exclude;
      check_case(g, mode + " antialias sizes " + std::to_string(exclude));
    }
  }
}

TEST(ResizeOp, UpsampleAndOpset10) {
  const std::vector<float> x = {1, 2, 3, 4};
  const std::vector<float> nearest = {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4};
  // Upsample 7: scales attribute.
  ModelBuilder u7(7);
  u7.input("x", DType::F32, {1, 1, 2, 2}).output("y", DType::F32);
  u7.node("Upsample", {"x"}, {"y"}, {Attr::floats("scales", {1, 1, 2, 2})});
  EXPECT_EQ(u7.run({{"x", Tensor::from<float>(x, {1, 1, 2, 2})}})[0].to_vector<float>(), nearest);
  for (int64_t opset : {9, 10}) {
    for (const std::string op : {"Upsample", "Resize"}) {
      if (op == "Resize" && opset == 9) continue;  // Resize starts at opset 10
      ModelBuilder m(opset);
      m.input("x", DType::F32, {1, 1, 2, 2}).output("y", DType::F32).output("z", DType::F32);
      m.initializer("s", Tensor::from<float>({1, 1, 2, 2}, {4}));
      m.node(op, {"x", "s"}, {"y"}).node(op, {"x", "s"}, {"z"}, {Attr::s("mode", "linear")});
      const auto y = m.run({{"x", Tensor::from<float>(x, {1, 1, 2, 2})}});
      EXPECT_EQ(y[0].to_vector<float>(), nearest) << op << opset;
      // Asymmetric linear: source j / 2, clamped at the last sample.
      const std::vector<float> row0 = {1, 1.5f, 2, 2};
      const auto z = y[1].to_vector<float>();
      for (size_t j = 0; j < 4; ++j) EXPECT_EQ(z[j], row0[j]) << op << opset;
      EXPECT_EQ(z[4], 2.0f);  // row 1 sits halfway between rows 0 and 1: (1 + 3) / 2
    }
  }
}

TEST(ResizeOp, BackendNodeCases) {
  // ops-conv.md: the two align_corners downsampling cases expect the unrounded output size as divisor.
  EXPECT_GT(check_backend_cases({"test_resize", "test_upsample"},
                                {"test_resize_downsample_scales_cubic_align_corners",
                                 "test_resize_downsample_scales_linear_align_corners"}),
            0);
}

}  // namespace
}  // namespace onemodel::test
