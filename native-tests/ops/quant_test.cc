// QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear (int8.md "Operators") against naive references
// written here in double precision (a float32 quotient or product is the double result rounded once to float,
// which is the correctly rounded float32 operation), plus the ONNX backend node cases in both modes, the same
// bytes on every kernel path and at 1 and 2 threads, and the errors of malformed nodes.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "core/half.h"
#include "core/shape.h"
#include "ops/op_test_util.h"

namespace onemodel::test {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// int8.md's rule: clamp(round_half_even(x / scale) + zero_point), NaN giving the type's minimum.
int64_t reference_quantize(double x, double scale, int64_t zero_point, int64_t lo, int64_t hi) {
  const double q = static_cast<float>(x / scale);  // the float32 quotient
  if (std::isnan(q)) return lo;
  double r = std::floor(q);
  const double fraction = q - r;
  if (fraction > 0.5 || (fraction == 0.5 && std::fmod(r, 2.0) != 0.0)) r += 1;
  const double v = r + static_cast<double>(zero_point);
  return v < static_cast<double>(lo) ? lo : v > static_cast<double>(hi) ? hi : static_cast<int64_t>(v);
}

template <class Q>
std::vector<int64_t> as_int64(const Tensor& t) {
  std::vector<int64_t> out;
  for (Q v : elements_of<Q>(t)) out.push_back(v);
  return out;
}

std::vector<int64_t> output_values(const Tensor& t) {
  switch (t.dtype()) {
    case DType::U8:
      return as_int64<uint8_t>(t);
    case DType::I8:
      return as_int64<int8_t>(t);
    case DType::U16:
      return as_int64<uint16_t>(t);
    default:
      return as_int64<int16_t>(t);
  }
}

void range_of(DType t, int64_t& lo, int64_t& hi) {
  switch (t) {
    case DType::U8:
      lo = 0, hi = 255;
      break;
    case DType::I8:
      lo = -128, hi = 127;
      break;
    case DType::U16:
      lo = 0, hi = 65535;
      break;
    default:
      lo = -32768, hi = 32767;
      break;
  }
}

// A zero point tensor of type `t` holding `values`.
Tensor zero_point_tensor(DType t, const std::vector<int64_t>& dims, const std::vector<int64_t>& values) {
  Tensor z(t, dims);
  for (size_t i = 0; i < values.size(); ++i) {
    switch (t) {
      case DType::U8:
        z.data<uint8_t>()[i] = static_cast<uint8_t>(values[i]);
        break;
      case DType::I8:
        z.data<int8_t>()[i] = static_cast<int8_t>(values[i]);
        break;
      case DType::U16:
        z.data<uint16_t>()[i] = static_cast<uint16_t>(values[i]);
        break;
      case DType::I16:
        z.data<int16_t>()[i] = static_cast<int16_t>(values[i]);
        break;
      default:
        z.data<int32_t>()[i] = static_cast<int32_t>(values[i]);
        break;
    }
  }
  return z;
}

// Inputs around the output range, exact ties (k + 1/2) * scale for a power-of-two scale, and specials.
std::vector<float> quantize_inputs(size_t n, float scale, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-400.0f, 400.0f);
  std::uniform_int_distribution<int> k(-300, 300);
  const float specials[] = {kNaN,  kInf,   -kInf,  0.0f,         -0.0f,
                            3e38f, -3e38f, 1e-45f, 0.5f * scale, -0.5f * scale};
  std::vector<float> x(n);
  for (size_t i = 0; i < n; ++i) {
    if (i % 7 == 3) {
      x[i] = specials[(i / 7) % std::size(specials)];
    } else if (i % 3 == 0) {
      x[i] = (static_cast<float>(k(rng)) + 0.5f) * scale;
    } else {
      x[i] = u(rng) * scale;
    }
  }
  return x;
}

struct QuantizeCase {
  DType out;
  std::vector<int64_t> dims;
  int64_t axis;  // used when per_axis
  bool per_axis;
};

// Runs QuantizeLinear on float32 input and compares with the reference; returns the output for the caller.
void check_quantize(const QuantizeCase& c, int64_t opset, ExecutionMode mode) {
  const int64_t n = Shape::of(c.dims).count();
  const int rank = static_cast<int>(c.dims.size());
  const int axis = c.per_axis ? normalize_axis(c.axis, rank) : 0;
  const int64_t channels = c.per_axis ? c.dims[static_cast<size_t>(axis)] : 1;
  int64_t lo, hi;
  range_of(c.out, lo, hi);
  std::vector<float> scales;
  std::vector<int64_t> zps;
  std::mt19937 rng(17);
  for (int64_t i = 0; i < channels; ++i) {
    scales.push_back(i % 2 == 0 ? std::ldexp(1.0f, static_cast<int>(i % 5) - 3)
                                : 0.0123f * static_cast<float>(i + 1));
    zps.push_back(lo + static_cast<int64_t>(rng() % static_cast<uint32_t>(hi - lo + 1)));
  }
  const std::vector<int64_t> sdims = c.per_axis ? std::vector<int64_t>{channels} : std::vector<int64_t>{};
  const std::vector<float> x = quantize_inputs(static_cast<size_t>(n), scales[0], 5);
  ModelBuilder b(opset);
  b.input("x", DType::F32, c.dims)
      .initializer("s", Tensor::from(scales, sdims))
      .initializer("z", zero_point_tensor(c.out, sdims, zps))
      .node("QuantizeLinear", {"x", "s", "z"}, {"y"}, {Attr::i("axis", c.axis)})
      .output("y", c.out);
  const std::vector<Tensor> got = b.run({{"x", Tensor::from(x, c.dims)}}, options(mode));
  ASSERT_EQ(got.size(), 1u);
  ASSERT_EQ(got[0].dtype(), c.out);
  const std::vector<int64_t> y = output_values(got[0]);
  const int64_t inner = c.per_axis ? Shape::of(c.dims).count(axis + 1, rank) : n;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t ch = c.per_axis ? (i / inner) % channels : 0;
    const int64_t want = reference_quantize(x[static_cast<size_t>(i)], scales[static_cast<size_t>(ch)],
                                            zps[static_cast<size_t>(ch)], lo, hi);
    ASSERT_EQ(y[static_cast<size_t>(i)], want) << "element " << i << " x " << x[static_cast<size_t>(i)]
                                               << " type " << dtype_name(c.out) << " opset " << opset;
  }
}

TEST(QuantizeLinear, PerTensorEveryTypeMatchesTheRule) {
  for (DType out : {DType::U8, DType::I8, DType::U16, DType::I16}) {
    for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
      check_quantize({out, {3, 71}, 1, false}, 21, mode);
      check_quantize({out, {}, 1, false}, 21, mode);
    }
  }
  check_quantize({DType::U8, {5, 9}, 1, false}, 10, ExecutionMode::Fast);
  check_quantize({DType::I8, {5, 9}, 1, false}, 13, ExecutionMode::Exact);
}

TEST(QuantizeLinear, PerAxisMatchesTheRule) {
  for (DType out : {DType::U8, DType::I8, DType::I16}) {
    check_quantize({out, {2, 3, 4, 5}, 1, true}, 13, ExecutionMode::Fast);
    check_quantize({out, {2, 3, 4, 5}, -1, true}, 19, ExecutionMode::Exact);
    check_quantize({out, {6, 7}, 0, true}, 21, ExecutionMode::Exact);
    check_quantize({out, {9}, 0, true}, 21, ExecutionMode::Fast);
  }
}

TEST(QuantizeLinear, Float16AndInt32InputsAndDefaults) {
  // float16 x and scale: widened exactly, then the float32 rule.
  const std::vector<float> values = {0.0f, 1.5f, -2.5f, 100.0f, -1000.0f, 65504.0f, kInf, -kInf, kNaN, 0.25f};
  std::vector<uint16_t> x16;
  for (float v : values) x16.push_back(float_to_half(v));
  ModelBuilder h(19);
  h.input("x", DType::F16, {10})
      .initializer("s", tensor_of<uint16_t>(DType::F16, {}, {float_to_half(0.5f)}))
      .initializer("z", zero_point_tensor(DType::I8, {}, {3}))
      .node("QuantizeLinear", {"x", "s", "z"}, {"y"})
      .output("y", DType::I8);
  const std::vector<int64_t> y16 =
      output_values(h.run({{"x", tensor_of<uint16_t>(DType::F16, {10}, x16)}})[0]);
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(y16[i], reference_quantize(half_to_float(x16[i]), 0.5, 3, -128, 127)) << values[i];
  }
  // int32 x (opset 10), no zero point: uint8 output.
  ModelBuilder n(10);
  n.input("x", DType::I32, {5})
      .initializer("s", Tensor::from(std::vector<float>{3.0f}, {}))
      .node("QuantizeLinear", {"x", "s"}, {"y"})
      .output("y", DType::U8);
  const std::vector<int32_t> xi = {-7, 4, 7, 500, 2000000000};
  const std::vector<int64_t> yi = output_values(n.run({{"x", Tensor::from(xi, {5})}})[0]);
  for (size_t i = 0; i < xi.size(); ++i)
    EXPECT_EQ(yi[i], reference_quantize(static_cast<float>(xi[i]), 3.0, 0, 0, 255));
  // output_dtype (opset 21) without a zero point.
  ModelBuilder o(21);
  o.input("x", DType::F32, {4})
      .initializer("s", Tensor::from(std::vector<float>{1.0f}, {1}))
      .node("QuantizeLinear", {"x", "s"}, {"y"}, {Attr::i("output_dtype", 5)})
      .output("y", DType::I16);
  const std::vector<float> xo = {-40000.5f, 2.5f, 3.5f, 40000.0f};
  const std::vector<Tensor> yo = o.run({{"x", Tensor::from(xo, {4})}});
  ASSERT_EQ(yo[0].dtype(), DType::I16);
  EXPECT_EQ(output_values(yo[0]), (std::vector<int64_t>{-32768, 2, 4, 32767}));
}

// float(x - zero_point) * scale as the double product of exact operands, rounded once to float.
template <class X>
void check_dequantize(DType type, int64_t opset, bool per_axis, DType scale_type) {
  const std::vector<int64_t> dims = {3, 4, 5};
  const int64_t channels = per_axis ? 4 : 1;
  std::mt19937 rng(23);
  std::vector<X> x(60);
  const int64_t lo = std::numeric_limits<X>::min(), hi = std::numeric_limits<X>::max();
  for (X& v : x) {
    const uint64_t r = (static_cast<uint64_t>(rng()) << 32) | rng();
    v = static_cast<X>(static_cast<int64_t>(r % static_cast<uint64_t>(hi - lo)) + lo);
  }
  x[0] = static_cast<X>(lo);
  x[1] = static_cast<X>(hi);
  std::vector<float> scales;
  std::vector<int64_t> zps;
  for (int64_t c = 0; c < channels; ++c) {
    scales.push_back(0.037f * static_cast<float>(c + 1));
    zps.push_back(type == DType::I32 ? 0 : static_cast<int64_t>(x[static_cast<size_t>(10 + c)]));
  }
  const std::vector<int64_t> sdims = per_axis ? std::vector<int64_t>{channels} : std::vector<int64_t>{};
  Tensor scale_tensor = Tensor::from(scales, sdims);
  if (scale_type == DType::F16) {
    std::vector<uint16_t> bits;
    for (float& s : scales) {
      bits.push_back(float_to_half(s));
      s = half_to_float(bits.back());
    }
    scale_tensor = tensor_of<uint16_t>(DType::F16, sdims, bits);
  }
  ModelBuilder b(opset);
  b.input("x", type, dims)
      .initializer("s", scale_tensor)
      .initializer("z", zero_point_tensor(type, sdims, zps))
      .node("DequantizeLinear", {"x", "s", "z"}, {"y"}, {Attr::i("axis", 1)})
      .output("y", scale_type);
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    const Tensor y = b.run({{"x", tensor_of<X>(type, dims, x)}}, options(mode))[0];
    ASSERT_EQ(y.dtype(), scale_type);
    for (size_t i = 0; i < x.size(); ++i) {
      const size_t c = per_axis ? (i / 5) % 4 : 0;
      const auto diff = static_cast<float>(static_cast<int64_t>(x[i]) - zps[c]);
      const auto want = static_cast<float>(static_cast<double>(diff) * static_cast<double>(scales[c]));
      if (scale_type == DType::F16) {
        EXPECT_EQ(elements_of<uint16_t>(y)[i], float_to_half(want)) << i;
      } else {
        EXPECT_EQ(elements_of<float>(y)[i], want) << i << " " << dtype_name(type);
      }
    }
  }
}

TEST(DequantizeLinear, EveryTypePerTensorAndPerAxis) {
  for (bool per_axis : {false, true}) {
    check_dequantize<uint8_t>(DType::U8, per_axis ? 13 : 10, per_axis, DType::F32);
    check_dequantize<int8_t>(DType::I8, 13, per_axis, DType::F32);
    check_dequantize<uint16_t>(DType::U16, 21, per_axis, DType::F32);
    check_dequantize<int16_t>(DType::I16, 21, per_axis, DType::F32);
    check_dequantize<int32_t>(DType::I32, 13, per_axis, DType::F32);
    check_dequantize<int8_t>(DType::I8, 19, per_axis, DType::F16);
  }
}

TEST(DequantizeLinear, ExactModeCanonicalisesNaN) {
  ModelBuilder b(13);
  b.input("x", DType::U8, {3})
      .initializer("s", Tensor::from(std::vector<float>{kInf}, {}))
      .initializer("z", zero_point_tensor(DType::U8, {}, {7}))
      .node("DequantizeLinear", {"x", "s", "z"}, {"y"})
      .output("y", DType::F32);
  const Tensor y =
      b.run({{"x", tensor_of<uint8_t>(DType::U8, {3}, {7, 8, 6})}}, options(ExecutionMode::Exact))[0];
  const std::vector<uint32_t> bits = elements_of<uint32_t>(y);
  EXPECT_EQ(bits[0], 0x7FC00000u);  // 0 * inf
  EXPECT_EQ(elements_of<float>(y)[1], kInf);
  EXPECT_EQ(elements_of<float>(y)[2], -kInf);
}

// int8.md's DynamicQuantizeLinear written out in double, with float32 roundings where the rule has them.
void check_dynamic(const std::vector<float>& x, ExecutionMode mode) {
  ModelBuilder b(11);
  b.input("x", DType::F32, {static_cast<int64_t>(x.size())})
      .node("DynamicQuantizeLinear", {"x"}, {"y", "s", "z"})
      .output("y", DType::U8)
      .output("s", DType::F32)
      .output("z", DType::U8);
  const std::vector<Tensor> got =
      b.run({{"x", Tensor::from(x, {static_cast<int64_t>(x.size())})}}, options(mode));
  double lo = 0, hi = 0;
  for (float v : x) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  double scale = lo == hi ? 1.0 : static_cast<float>(static_cast<float>(hi - lo) / 255.0);
  const double shift = static_cast<float>(0.0 - static_cast<float>(lo / scale));
  const int64_t zp = std::isnan(shift) ? 255 : reference_quantize(shift, 1.0, 0, 0, 255);
  EXPECT_EQ(elements_of<float>(got[1])[0], static_cast<float>(scale));
  EXPECT_EQ(elements_of<uint8_t>(got[2])[0], zp);
  const std::vector<uint8_t> y = elements_of<uint8_t>(got[0]);
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(y[i], reference_quantize(x[i], scale, zp, 0, 255)) << "element " << i << " x " << x[i];
  }
}

TEST(DynamicQuantizeLinear, MatchesTheRule) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-3.0f, 5.0f);
  std::vector<float> mixed(1000);
  for (float& v : mixed) v = u(rng);
  // A range of exactly 255 * 2^-3 puts every element at a half step: ties to even.
  std::vector<float> ties = {-127.5f / 8, 127.5f / 8};
  for (int k = -127; k < 127; ++k) ties.push_back((static_cast<float>(k) + 0.5f) / 8);
  // Special values inside the 16 side-by-side lanes of the range search and in its tail.
  std::vector<float> long_nan(41, 0.5f);
  long_nan[3] = kNaN, long_nan[17] = -2.0f, long_nan[38] = kNaN, long_nan[40] = 7.0f;
  std::vector<float> long_zero(35, 0.0f);
  for (size_t i = 0; i < long_zero.size(); i += 3) long_zero[i] = -0.0f;
  std::vector<float> long_inf(50, 1.0f);
  long_inf[20] = -kInf;
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    check_dynamic(long_nan, mode);
    check_dynamic(long_zero, mode);
    check_dynamic(long_inf, mode);
    check_dynamic(mixed, mode);
    check_dynamic(ties, mode);
    check_dynamic({1.0f, 2.0f, 3.0f}, mode);         // all positive: zero point 0
    check_dynamic({-1.0f, -2.0f, -3.0f}, mode);      // all negative: zero point 255
    check_dynamic({0.0f, -0.0f, 0.0f}, mode);        // all zero: scale 1, zero point 0
    check_dynamic({1e-45f, -1e-45f, 0.0f}, mode);    // a range whose scale underflows to 0
    check_dynamic({kNaN, 2.0f, -1.0f, kNaN}, mode);  // NaN takes no part in the range
    check_dynamic({-kInf, 3.0f, 1e30f}, mode);       // infinite scale
  }
}

TEST(QuantOps, SameBytesOnEveryPathAndThreadCount) {
  // More elements than one parallel chunk, per axis, so the work is split between threads.
  const std::vector<int64_t> dims = {3, 40000};
  const std::vector<float> x = quantize_inputs(120000, 0.25f, 9);
  ModelBuilder b(13);
  b.input("x", DType::F32, dims)
      .initializer("s", Tensor::from(std::vector<float>{0.25f, 0.01f, 3.0f}, {3}))
      .initializer("z", zero_point_tensor(DType::I8, {3}, {-3, 0, 100}))
      .node("QuantizeLinear", {"x", "s", "z"}, {"q"}, {Attr::i("axis", 0)})
      .node("DequantizeLinear", {"q", "s", "z"}, {"y"}, {Attr::i("axis", 0)})
      .node("DynamicQuantizeLinear", {"x"}, {"d", "ds", "dz"})
      .output("q", DType::I8)
      .output("y", DType::F32)
      .output("d", DType::U8);
  std::vector<Tensor> first;
  for (const std::string& path : kernel_paths()) {
    for (int threads : {1, 2}) {
      const std::vector<Tensor> got =
          b.run({{"x", Tensor::from(x, dims)}}, options(ExecutionMode::Exact, path, threads));
      if (first.empty()) first = got;
      for (size_t i = 0; i < got.size(); ++i)
        EXPECT_TRUE(same_bytes(got[i], first[i])) << path << " " << threads;
    }
  }
}

TEST(QuantOps, MalformedNodesAreRefused) {
  // A per-axis scale whose length is not the axis extent.
  ModelBuilder b(13);
  b.input("x", DType::F32, {2, 3})
      .initializer("s", Tensor::from(std::vector<float>{1, 2}, {2}))
      .node("QuantizeLinear", {"x", "s"}, {"y"}, {Attr::i("axis", 1)})
      .output("y", DType::U8);
  const auto invalid = [](SessionError::Kind k) {
    return k == SessionError::Kind::InvalidInput || k == SessionError::Kind::InvalidModel;
  };
  EXPECT_TRUE(invalid(error_kind([&] { b.run({{"x", Tensor(DType::F32, {2, 3})}}); })));
  // Blocked quantization is not served.
  ModelBuilder blocked(21);
  blocked.input("x", DType::F32, {2, 4})
      .initializer("s", Tensor::from(std::vector<float>{1, 2, 3, 4}, {2, 2}))
      .node("QuantizeLinear", {"x", "s"}, {"y"}, {Attr::i("axis", 1), Attr::i("block_size", 2)})
      .output("y", DType::U8);
  EXPECT_EQ(error_kind([&] { blocked.session(); }), SessionError::Kind::Unsupported);
  // A zero point whose type differs from x's.
  ModelBuilder mixed(13);
  mixed.input("x", DType::U8, {2})
      .initializer("s", Tensor::from(std::vector<float>{1}, {}))
      .initializer("z", zero_point_tensor(DType::I8, {}, {0}))
      .node("DequantizeLinear", {"x", "s", "z"}, {"y"})
      .output("y", DType::F32);
  EXPECT_TRUE(invalid(error_kind([&] { mixed.run({{"x", Tensor(DType::U8, {2})}}); })));
}

TEST(QuantOps, BackendNodeCases) {
  const int passed =
      check_backend_cases({"test_quantizelinear", "test_dequantizelinear", "test_dynamicquantizelinear"});
  // 2 + 2 + 6 cases (the _expanded ones as function bodies of ordinary operators), both modes.
  EXPECT_GE(passed, 20);
}

}  // namespace
}  // namespace onemodel::test
