// The second element-wise family through Session: Where, the comparisons, the logical operators, the simple
// unary operators, Max/Min/Sum/Mean, Clip, LeakyRelu/HardSigmoid/HardSwish, Pow, Mod, CastLike and Cast
// between float32 and float16 on every kernel path. The cases are the rules ops-elementwise.md settles: NaN
// and signed zeros, Max/Min taking the second operand on equality, Clip's omitted bounds and crossed bounds,
// Mod's two sign rules and division by zero, Round half to even, integer wrap-around, broadcasting of up to
// three operands and empty tensors, exact-mode NaN canonicalisation and bits independent of kernel path and
// thread count; plus the ONNX backend node cases.
//
// Expected values are written out by hand or computed here from the operator definitions with plain C++
// operations on the same inputs (the build never contracts them to FMA).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "core/half.h"
#include "ops/op_test_util.h"

namespace onemodel::test {
namespace {

using Kind = SessionError::Kind;
constexpr ExecutionMode kModes[] = {ExecutionMode::Fast, ExecutionMode::Exact};
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kMaxF = std::numeric_limits<float>::max();

// A NaN with a payload and the sign bit set: exact mode must not let it through.
const float kOddNaN = __builtin_bit_cast(float, uint32_t{0xFFC12345u});

Tensor bools(const std::vector<int64_t>& dims, const std::vector<uint8_t>& values) {
  return tensor_of<uint8_t>(DType::Bool, dims, values);
}

struct RunOptions {
  ExecutionMode mode = ExecutionMode::Fast;
  std::string kernels;
  int threads = 0;
};

// One node `op` over the given inputs (an input without data, Tensor(), is left out as an empty name),
// producing y of `out_type`.
Tensor run_op(std::string_view op, int64_t opset, const std::vector<Tensor>& inputs, DType out_type,
              const RunOptions& o = {}, const std::vector<Attr>& attrs = {}) {
  ModelBuilder m(opset);
  std::vector<std::string> names;
  std::vector<NamedTensor> feeds;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].empty() && inputs[i].shape().empty()) {  // Tensor(): an omitted optional input
      names.emplace_back();
      continue;
    }
    names.push_back("x" + std::to_string(i));
    m.input(names.back(), inputs[i].dtype(), inputs[i].shape());
    feeds.push_back({names.back(), inputs[i]});
  }
  m.output("y", out_type);
  switch (names.size()) {
    case 1:
      m.node(op, {names[0]}, {"y"}, attrs);
      break;
    case 2:
      m.node(op, {names[0], names[1]}, {"y"}, attrs);
      break;
    case 3:
      m.node(op, {names[0], names[1], names[2]}, {"y"}, attrs);
      break;
    default:
      m.node(op, {names[0], names[1], names[2], names[3]}, {"y"}, attrs);
      break;
  }
  return m.run(feeds, options(o.mode, o.kernels, o.threads)).at(0);
}

Tensor run_op(std::string_view op, int64_t opset, const std::vector<Tensor>& inputs, DType out_type,
              ExecutionMode mode, const std::vector<Attr>& attrs = {}) {
  return run_op(op, opset, inputs, out_type, RunOptions{mode}, attrs);
}

// Bitwise comparison of float results, NaN patterns included, with the index of the first difference.
void expect_float_bits(const Tensor& got, const std::vector<float>& want, const std::string& what) {
  ASSERT_EQ(got.dtype(), DType::F32) << what;
  const auto g = elements_of<float>(got);
  ASSERT_EQ(g.size(), want.size()) << what;
  for (size_t i = 0; i < g.size(); ++i) {
    EXPECT_EQ(bits_of(g[i]), bits_of(want[i]))
        << what << " element " << i << ": got " << g[i] << ", want " << want[i];
  }
}

// `want` with exact mode's rule applied: every NaN becomes 0x7FC00000.
std::vector<float> canonical(std::vector<float> want) {
  for (float& v : want) v = std::isnan(v) ? __builtin_bit_cast(float, uint32_t{0x7FC00000u}) : v;
  return want;
}

// Float results in both modes: fast may keep any NaN, exact must give the canonical one; other values exact.
void expect_float_results(const Tensor& got, const std::vector<float>& want, ExecutionMode mode,
                          const std::string& what) {
  if (mode == ExecutionMode::Exact) return expect_float_bits(got, canonical(want), what + " (exact)");
  const auto g = elements_of<float>(got);
  ASSERT_EQ(g.size(), want.size()) << what;
  for (size_t i = 0; i < g.size(); ++i) {
    if (std::isnan(want[i]))
      EXPECT_TRUE(std::isnan(g[i])) << what << " element " << i;
    else
      EXPECT_EQ(bits_of(g[i]), bits_of(want[i])) << what << " element " << i << ": got " << g[i];
  }
}

Tensor floats(const std::vector<int64_t>& dims, const std::vector<float>& v) {
  return tensor_of<float>(DType::F32, dims, v);
}

// --- Comparisons and logic

TEST(Elementwise2, ComparisonsAreFalseOnNaNAndEqualOnSignedZeros) {
  const std::vector<float> a = {1, 2, kNaN, kNaN, 0.0f, -0.0f, -kInf, kInf, 3};
  const std::vector<float> b = {2, 2, kNaN, 1, -0.0f, 0.0f, -kInf, 1, 3};
  struct Case {
    const char* op;
    int64_t opset;
    bool (*fn)(float, float);
  };
  const Case cases[] = {{"Equal", 13, [](float x, float y) { return x == y; }},
                        {"Less", 13, [](float x, float y) { return x < y; }},
                        {"Greater", 13, [](float x, float y) { return x > y; }},
                        {"LessOrEqual", 16, [](float x, float y) { return x <= y; }},
                        {"GreaterOrEqual", 16, [](float x, float y) { return x >= y; }}};
  for (const Case& c : cases) {
    for (ExecutionMode mode : kModes) {
      const Tensor y = run_op(c.op, c.opset, {floats({9}, a), floats({9}, b)}, DType::Bool, mode);
      const auto g = elements_of<uint8_t>(y);
      ASSERT_EQ(g.size(), a.size());
      for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(g[i], c.fn(a[i], b[i]) ? 1 : 0) << c.op << " " << i;
    }
  }
  // Spelled out: NaN is not equal to itself, and -0 equals +0.
  const auto eq = elements_of<uint8_t>(run_op("Equal", 13, {floats({9}, a), floats({9}, b)}, DType::Bool));
  EXPECT_EQ(eq, (std::vector<uint8_t>{0, 1, 0, 0, 1, 1, 1, 0, 1}));
}

TEST(Elementwise2, ComparisonsBroadcastOverEveryNumericType) {
  // [2, 1] against [3]: row r compares a[r] with every b[c].
  const auto check = [](DType type, auto zero) {
    using T = decltype(zero);
    const std::vector<T> a = {T(1), std::numeric_limits<T>::max()};
    const std::vector<T> b = {std::numeric_limits<T>::lowest(), T(1), std::numeric_limits<T>::max()};
    const auto less = elements_of<uint8_t>(
        run_op("Less", 13, {tensor_of<T>(type, {2, 1}, a), tensor_of<T>(type, {3}, b)}, DType::Bool));
    const auto equal = elements_of<uint8_t>(
        run_op("Equal", 13, {tensor_of<T>(type, {2, 1}, a), tensor_of<T>(type, {3}, b)}, DType::Bool));
    ASSERT_EQ(less.size(), 6u);
    for (size_t r = 0; r < 2; ++r) {
      for (size_t c = 0; c < 3; ++c) {
        EXPECT_EQ(less[r * 3 + c], a[r] < b[c] ? 1 : 0) << dtype_name(type);
        EXPECT_EQ(equal[r * 3 + c], a[r] == b[c] ? 1 : 0) << dtype_name(type);
      }
    }
  };
  check(DType::I8, int8_t{});
  check(DType::I16, int16_t{});
  check(DType::I32, int32_t{});
  check(DType::I64, int64_t{});
  check(DType::U8, uint8_t{});
  check(DType::U16, uint16_t{});
  check(DType::U32, uint32_t{});
  check(DType::U64, uint64_t{});
  check(DType::F64, double{});
  // Half: 1.0 (0x3C00) and -0 against +0, NaN, 2.0.
  const Tensor h1 = tensor_of<uint16_t>(DType::F16, {3}, {0x3C00, 0x8000, 0x7E00});
  const Tensor h2 = tensor_of<uint16_t>(DType::F16, {3}, {0x4000, 0x0000, 0x7E00});
  EXPECT_EQ(elements_of<uint8_t>(run_op("Less", 13, {h1, h2}, DType::Bool)), (std::vector<uint8_t>{1, 0, 0}));
  EXPECT_EQ(elements_of<uint8_t>(run_op("Equal", 13, {h1, h2}, DType::Bool)),
            (std::vector<uint8_t>{0, 1, 0}));
  // Equal also takes bool; any non-zero byte is true.
  EXPECT_EQ(
      elements_of<uint8_t>(run_op("Equal", 13, {bools({3}, {2, 0, 1}), bools({3}, {1, 1, 0})}, DType::Bool)),
      (std::vector<uint8_t>{1, 0, 0}));
  EXPECT_EQ(error_kind([&] {
              run_op("Less", 13, {bools({1}, {1}), bools({1}, {0})}, DType::Bool);
            }),
            Kind::Unsupported);
  EXPECT_EQ(error_kind([&] {
              run_op("Greater", 13, {floats({1}, {1}), tensor_of<double>(DType::F64, {1}, {1})}, DType::Bool);
            }),
            Kind::InvalidInput);
}

TEST(Elementwise2, LogicalOperatorsReadAnyNonZeroByteAsTrue) {
  const Tensor a = bools({2, 3}, {0, 1, 7, 0, 1, 255});
  const Tensor b = bools({3}, {0, 1, 1});  // broadcast over rows
  EXPECT_EQ(elements_of<uint8_t>(run_op("And", 7, {a, b}, DType::Bool)),
            (std::vector<uint8_t>{0, 1, 1, 0, 1, 1}));
  EXPECT_EQ(elements_of<uint8_t>(run_op("Or", 7, {a, b}, DType::Bool)),
            (std::vector<uint8_t>{0, 1, 1, 0, 1, 1}));
  EXPECT_EQ(elements_of<uint8_t>(run_op("Xor", 7, {a, b}, DType::Bool)),
            (std::vector<uint8_t>{0, 0, 0, 0, 0, 0}));
  const Tensor c = bools({2, 3}, {1, 0, 3, 0, 0, 1});
  EXPECT_EQ(elements_of<uint8_t>(run_op("Xor", 7, {a, c}, DType::Bool)),
            (std::vector<uint8_t>{1, 1, 0, 0, 1, 0}));
  EXPECT_EQ(elements_of<uint8_t>(run_op("Not", 1, {a}, DType::Bool)),
            (std::vector<uint8_t>{1, 0, 0, 1, 0, 0}));
  EXPECT_EQ(error_kind([] { run_op("Not", 1, {floats({1}, {1})}, DType::F32); }), Kind::Unsupported);
  EXPECT_EQ(error_kind([] {
              run_op("And", 7,
                     {tensor_of<int32_t>(DType::I32, {1}, {1}), tensor_of<int32_t>(DType::I32, {1}, {1})},
                     DType::I32);
            }),
            Kind::Unsupported);
}

// --- Where

TEST(Elementwise2, WhereBroadcastsThreeOperands) {
  // condition [2, 1, 3], x [4, 1], y [] (a scalar): output [2, 4, 3].
  const std::vector<uint8_t> cond = {1, 0, 1, 0, 0, 5};
  const std::vector<float> x = {10, 20, 30, 40};
  const float yv = -1;
  for (ExecutionMode mode : kModes) {
    const Tensor out =
        run_op("Where", 16, {bools({2, 1, 3}, cond), floats({4, 1}, x), floats({}, {yv})}, DType::F32, mode);
    ASSERT_EQ(out.shape(), (std::vector<int64_t>{2, 4, 3}));
    std::vector<float> want;
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 4; ++j)
        for (int k = 0; k < 3; ++k)
          want.push_back(cond[static_cast<size_t>(i * 3 + k)] ? x[static_cast<size_t>(j)] : yv);
    expect_float_bits(out, want, "Where");
  }
}

TEST(Elementwise2, WhereTakesEveryStoredType) {
  const Tensor cond = bools({3}, {1, 0, 1});
  EXPECT_EQ(elements_of<int64_t>(run_op("Where", 16,
                                        {cond, tensor_of<int64_t>(DType::I64, {3}, {1, INT64_MIN, 3}),
                                         tensor_of<int64_t>(DType::I64, {1}, {INT64_MAX})},
                                        DType::I64)),
            (std::vector<int64_t>{1, INT64_MAX, 3}));
  // A scalar x, and every operand advancing.
  EXPECT_EQ(elements_of<int32_t>(run_op("Where", 16,
                                        {cond, tensor_of<int32_t>(DType::I32, {}, {7}),
                                         tensor_of<int32_t>(DType::I32, {3}, {1, 2, 3})},
                                        DType::I32)),
            (std::vector<int32_t>{7, 2, 7}));
  EXPECT_EQ(elements_of<uint8_t>(run_op("Where", 16,
                                        {cond, tensor_of<uint8_t>(DType::U8, {3}, {1, 2, 3}),
                                         tensor_of<uint8_t>(DType::U8, {3}, {4, 5, 6})},
                                        DType::U8)),
            (std::vector<uint8_t>{1, 5, 3}));
  EXPECT_EQ(
      elements_of<uint16_t>(run_op("Where", 16,
                                   {cond, tensor_of<uint16_t>(DType::F16, {3}, {0x3C00, 0x3C00, 0x8000}),
                                    tensor_of<uint16_t>(DType::F16, {3}, {0x4000, 0x4200, 0x4400})},
                                   DType::F16)),
      (std::vector<uint16_t>{0x3C00, 0x4200, 0x8000}));
  EXPECT_EQ(elements_of<uint16_t>(run_op("Where", 16,
                                         {cond, tensor_of<uint16_t>(DType::BF16, {3}, {0x3F80, 1, 2}),
                                          tensor_of<uint16_t>(DType::BF16, {3}, {5, 0x4000, 7})},
                                         DType::BF16)),
            (std::vector<uint16_t>{0x3F80, 0x4000, 2}));
  EXPECT_EQ(elements_of<uint8_t>(
                run_op("Where", 16, {cond, bools({3}, {0, 0, 0}), bools({3}, {1, 1, 1})}, DType::Bool)),
            (std::vector<uint8_t>{0, 1, 0}));
  EXPECT_EQ(elements_of<double>(run_op(
                "Where", 16,
                {cond, tensor_of<double>(DType::F64, {1}, {-0.0}), tensor_of<double>(DType::F64, {1}, {0.5})},
                DType::F64)),
            (std::vector<double>{-0.0, 0.5, -0.0}));
  EXPECT_TRUE(std::signbit(elements_of<double>(
      run_op("Where", 16,
             {cond, tensor_of<double>(DType::F64, {1}, {-0.0}), tensor_of<double>(DType::F64, {1}, {0.5})},
             DType::F64))[0]));
  EXPECT_EQ(error_kind([&] {
              run_op("Where", 16, {floats({3}, {1, 0, 1}), floats({3}, {1, 2, 3}), floats({3}, {1, 2, 3})},
                     DType::F32);
            }),
            Kind::InvalidInput);
  EXPECT_EQ(error_kind([&] {
              run_op("Where", 16,
                     {cond, floats({3}, {1, 2, 3}), tensor_of<double>(DType::F64, {3}, {1, 2, 3})},
                     DType::F32);
            }),
            Kind::InvalidInput);
}

TEST(Elementwise2, WhereExactModeCanonicalisesSelectedNaN) {
  const Tensor cond = bools({2}, {1, 0});
  const Tensor x = floats({2}, {kOddNaN, 1});
  const Tensor y = floats({2}, {2, kOddNaN});
  expect_float_bits(run_op("Where", 16, {cond, x, y}, DType::F32, ExecutionMode::Exact),
                    canonical({kNaN, kNaN}), "Where exact");
  // Fast mode moves the bits it selected.
  expect_float_bits(run_op("Where", 16, {cond, x, y}, DType::F32, ExecutionMode::Fast), {kOddNaN, kOddNaN},
                    "Where fast");
  const Tensor h = run_op("Where", 16,
                          {cond, tensor_of<uint16_t>(DType::F16, {2}, {0xFE01, 0}),
                           tensor_of<uint16_t>(DType::F16, {2}, {0, 0x7C01})},
                          DType::F16, ExecutionMode::Exact);
  EXPECT_EQ(elements_of<uint16_t>(h), (std::vector<uint16_t>{0x7E00, 0x7E00}));
}

TEST(Elementwise2, EmptyTensorsBroadcastToEmptyOutputs) {
  const Tensor empty = floats({2, 0}, {});
  EXPECT_EQ(run_op("Where", 16, {bools({1}, {1}), empty, floats({1}, {1})}, DType::F32).shape(),
            (std::vector<int64_t>{2, 0}));
  EXPECT_EQ(run_op("Max", 13, {floats({1}, {1}), empty, floats({2, 1}, {1, 2})}, DType::F32).shape(),
            (std::vector<int64_t>{2, 0}));
  EXPECT_EQ(run_op("Equal", 13, {empty, floats({}, {1})}, DType::Bool).shape(), (std::vector<int64_t>{2, 0}));
  EXPECT_EQ(run_op("Abs", 13, {empty}, DType::F32).shape(), (std::vector<int64_t>{2, 0}));
  EXPECT_EQ(run_op("Clip", 13, {floats({0}, {}), floats({}, {0}), floats({}, {1})}, DType::F32).shape(),
            (std::vector<int64_t>{0}));
  EXPECT_EQ(
      run_op("Mod", 13,
             {tensor_of<int32_t>(DType::I32, {0, 3}, {}), tensor_of<int32_t>(DType::I32, {3}, {1, 2, 3})},
             DType::I32)
          .shape(),
      (std::vector<int64_t>{0, 3}));
}

// --- Unary operators

// Round half to even keeping the sign of zero, spelled out rather than taken from a library function.
float round_half_even(float v) {
  if (std::isnan(v) || std::isinf(v)) return v;
  const float f = std::floor(v), diff = v - f;
  const float r = diff < 0.5f ? f : diff > 0.5f ? f + 1 : (std::fmod(f, 2.0f) == 0 ? f : f + 1);
  return r == 0 ? std::copysign(0.0f, v) : r;
}

TEST(Elementwise2, UnaryFloatRules) {
  const std::vector<float> x = {-2.5f, -1.5f,      -0.5f, -0.4f, -0.0f, 0.0f,    0.5f,   1.5f, 2.5f,
                                2.6f,  8388609.0f, -kInf, kInf,  kNaN,  kOddNaN, 1e-45f, -3};
  struct Case {
    const char* op;
    int64_t opset;
    float (*fn)(float);
  };
  const Case cases[] = {{"Neg", 13, [](float v) { return -v; }},
                        {"Abs", 13, [](float v) { return std::fabs(v); }},
                        {"Sqrt", 13, [](float v) { return std::sqrt(v); }},
                        {"Reciprocal", 13, [](float v) { return 1.0f / v; }},
                        {"Floor", 13, [](float v) { return std::floor(v); }},
                        {"Ceil", 13, [](float v) { return std::ceil(v); }},
                        {"Round", 11, round_half_even},
                        {"Sign", 13, [](float v) {
                           return v > 0 ? 1.0f : v < 0 ? -1.0f : v == 0 ? 0.0f : v;
                         }}};
  for (const Case& c : cases) {
    std::vector<float> want;
    for (float v : x) want.push_back(c.fn(v));
    for (ExecutionMode mode : kModes) {
      expect_float_results(
          run_op(c.op, c.opset, {floats({static_cast<int64_t>(x.size())}, x)}, DType::F32, mode), want, mode,
          c.op);
    }
  }
  // Spelled out: Round keeps -0 and rounds ties to even; Sign gives +0 for both zeros; Abs(-0) is +0.
  expect_float_bits(run_op("Round", 11, {floats({5}, {-0.4f, -2.5f, 0.5f, 1.5f, -0.0f})}, DType::F32),
                    {-0.0f, -2.0f, 0.0f, 2.0f, -0.0f}, "Round");
  expect_float_bits(run_op("Sign", 13, {floats({3}, {-0.0f, 0.0f, -7})}, DType::F32), {0.0f, 0.0f, -1.0f},
                    "Sign");
  expect_float_bits(run_op("Abs", 13, {floats({1}, {-0.0f})}, DType::F32), {0.0f}, "Abs");
  expect_float_bits(run_op("Reciprocal", 13, {floats({2}, {-0.0f, 0.0f})}, DType::F32), {-kInf, kInf},
                    "Reciprocal");
  expect_float_bits(run_op("Sqrt", 13, {floats({2}, {-0.0f, -1.0f})}, DType::F32, ExecutionMode::Exact),
                    canonical({-0.0f, kNaN}), "Sqrt");
}

TEST(Elementwise2, UnaryIntegerRulesWrap) {
  const std::vector<int8_t> x = {-128, -1, 0, 1, 127};
  EXPECT_EQ(elements_of<int8_t>(run_op("Neg", 13, {tensor_of<int8_t>(DType::I8, {5}, x)}, DType::I8)),
            (std::vector<int8_t>{-128, 1, 0, -1, -127}));
  EXPECT_EQ(elements_of<int8_t>(run_op("Abs", 13, {tensor_of<int8_t>(DType::I8, {5}, x)}, DType::I8)),
            (std::vector<int8_t>{-128, 1, 0, 1, 127}));
  EXPECT_EQ(elements_of<int8_t>(run_op("Sign", 13, {tensor_of<int8_t>(DType::I8, {5}, x)}, DType::I8)),
            (std::vector<int8_t>{-1, -1, 0, 1, 1}));
  EXPECT_EQ(elements_of<int64_t>(
                run_op("Neg", 13, {tensor_of<int64_t>(DType::I64, {2}, {INT64_MIN, 5})}, DType::I64)),
            (std::vector<int64_t>{INT64_MIN, -5}));
  EXPECT_EQ(elements_of<uint32_t>(
                run_op("Sign", 13, {tensor_of<uint32_t>(DType::U32, {2}, {0, 4000000000u})}, DType::U32)),
            (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(
      elements_of<uint16_t>(run_op("Abs", 13, {tensor_of<uint16_t>(DType::U16, {1}, {65535})}, DType::U16)),
      (std::vector<uint16_t>{65535}));
  // Neg takes signed types only; Sqrt, Floor, Round take floats only.
  EXPECT_EQ(error_kind([] { run_op("Neg", 13, {tensor_of<uint8_t>(DType::U8, {1}, {1})}, DType::U8); }),
            Kind::Unsupported);
  for (const char* op : {"Sqrt", "Floor", "Ceil", "Reciprocal"}) {
    EXPECT_EQ(error_kind([&] { run_op(op, 13, {tensor_of<int32_t>(DType::I32, {1}, {4})}, DType::I32); }),
              Kind::Unsupported)
        << op;
  }
}

TEST(Elementwise2, UnaryHalfAndDouble) {
  // f16: -2.5 (0xC100) rounds to -2 (0xC000); Neg flips 1.0; Abs clears -0; Floor of 1.5 (0x3E00) is 1.
  const Tensor h = tensor_of<uint16_t>(DType::F16, {3}, {0xC100, 0x3C00, 0x8000});
  EXPECT_EQ(elements_of<uint16_t>(run_op("Round", 11, {h}, DType::F16)),
            (std::vector<uint16_t>{0xC000, 0x3C00, 0x8000}));
  EXPECT_EQ(elements_of<uint16_t>(run_op("Neg", 13, {h}, DType::F16)),
            (std::vector<uint16_t>{0x4100, 0xBC00, 0x0000}));
  EXPECT_EQ(elements_of<uint16_t>(run_op("Abs", 13, {h}, DType::F16)),
            (std::vector<uint16_t>{0x4100, 0x3C00, 0x0000}));
  EXPECT_EQ(elements_of<uint16_t>(
                run_op("Floor", 13, {tensor_of<uint16_t>(DType::F16, {1}, {0x3E00})}, DType::F16)),
            (std::vector<uint16_t>{0x3C00}));
  const std::vector<double> d = {2.5, -0.5, 2.0, 1e300};
  EXPECT_EQ(elements_of<double>(run_op("Round", 11, {tensor_of<double>(DType::F64, {4}, d)}, DType::F64)),
            (std::vector<double>{2.0, -0.0, 2.0, 1e300}));
  EXPECT_EQ(elements_of<double>(run_op("Sqrt", 13, {tensor_of<double>(DType::F64, {4}, d)}, DType::F64))[2],
            std::sqrt(2.0));
}

// --- Max, Min, Sum, Mean

TEST(Elementwise2, MaxMinTakeTheSecondOperandOnEqualityAndPropagateNaN) {
  const float nan2 = __builtin_bit_cast(float, uint32_t{0x7FC00002u});
  const std::vector<float> a = {-0.0f, 0.0f, kNaN, 1, nan2, 3, -kInf};
  const std::vector<float> b = {0.0f, -0.0f, 1, kNaN, kNaN, 2, 5};
  const Tensor ta = floats({7}, a), tb = floats({7}, b);
  expect_float_bits(run_op("Max", 13, {ta, tb}, DType::F32), {0.0f, -0.0f, kNaN, kNaN, nan2, 3, 5},
                    "Max fast");
  expect_float_bits(run_op("Min", 13, {ta, tb}, DType::F32), {0.0f, -0.0f, kNaN, kNaN, nan2, 2, -kInf},
                    "Min fast");
  expect_float_bits(run_op("Max", 13, {ta, tb}, DType::F32, ExecutionMode::Exact),
                    canonical({0.0f, -0.0f, kNaN, kNaN, kNaN, 3, 5}), "Max exact");
  // Integers: plain order.
  EXPECT_EQ(elements_of<uint64_t>(run_op("Max", 13,
                                         {tensor_of<uint64_t>(DType::U64, {2}, {UINT64_MAX, 1}),
                                          tensor_of<uint64_t>(DType::U64, {2}, {0, 2})},
                                         DType::U64)),
            (std::vector<uint64_t>{UINT64_MAX, 2}));
  EXPECT_EQ(elements_of<int16_t>(run_op("Min", 13,
                                        {tensor_of<int16_t>(DType::I16, {2}, {-32768, 1}),
                                         tensor_of<int16_t>(DType::I16, {2}, {0, 2})},
                                        DType::I16)),
            (std::vector<int16_t>{-32768, 1}));
}

TEST(Elementwise2, VariadicOperatorsFoldLeftToRightWithBroadcasting) {
  // Shapes [3], [2, 1] and [1, 3] to [2, 3]. Sum's values make the order visible: (1e8 + -1e8) + 1 is 1,
  // while 1e8 + (-1e8 + 1) is 0 in binary32.
  const std::vector<float> a = {1e8f, 2, kInf};
  const std::vector<float> b = {-1e8f, 0.25f};
  const std::vector<float> c = {1, 3, -kInf};
  const Tensor ta = floats({3}, a), tb = floats({2, 1}, b), tc = floats({1, 3}, c);
  struct Case {
    const char* op;
    float (*fn)(float, float);
  };
  const Case cases[] = {{"Sum", [](float x, float y) { return x + y; }},
                        {"Max", [](float x, float y) { return x != x || (x > y && y == y) ? x : y; }},
                        {"Min", [](float x, float y) { return x != x || (x < y && y == y) ? x : y; }}};
  for (const Case& k : cases) {
    std::vector<float> want;
    for (size_t r = 0; r < 2; ++r)
      for (size_t col = 0; col < 3; ++col) want.push_back(k.fn(k.fn(a[col], b[r]), c[col]));
    for (ExecutionMode mode : kModes) {
      const Tensor y = run_op(k.op, 13, {ta, tb, tc}, DType::F32, mode);
      EXPECT_EQ(y.shape(), (std::vector<int64_t>{2, 3}));
      expect_float_results(y, want, mode, k.op);
    }
  }
  EXPECT_EQ(elements_of<float>(run_op("Sum", 13, {ta, tb, tc}, DType::F32))[0], 1.0f);
  // Mean multiplies the folded sum by the rounded reciprocal of the count.
  std::vector<float> mean;
  for (size_t r = 0; r < 2; ++r)
    for (size_t col = 0; col < 3; ++col) mean.push_back(((a[col] + b[r]) + c[col]) * (1.0f / 3.0f));
  for (ExecutionMode mode : kModes)
    expect_float_results(run_op("Mean", 13, {ta, tb, tc}, DType::F32, mode), mean, mode, "Mean");
  // One input: a copy (canonical NaN in exact mode); four inputs.
  expect_float_bits(run_op("Max", 13, {floats({2}, {kOddNaN, -0.0f})}, DType::F32, ExecutionMode::Exact),
                    canonical({kNaN, -0.0f}), "Max of one");
  expect_float_bits(run_op("Mean", 13, {floats({2}, {3, -0.0f})}, DType::F32), {3, -0.0f}, "Mean of one");
  expect_float_bits(
      run_op("Sum", 13, {floats({1}, {1}), floats({1}, {2}), floats({1}, {4}), floats({1}, {8})}, DType::F32),
      {15}, "Sum of four");
  // Sum and Mean take floats only; Max and Min every numeric type.
  EXPECT_EQ(error_kind([] {
              run_op("Sum", 13,
                     {tensor_of<int32_t>(DType::I32, {1}, {1}), tensor_of<int32_t>(DType::I32, {1}, {1})},
                     DType::I32);
            }),
            Kind::Unsupported);
  EXPECT_EQ(error_kind([] {
              run_op("Max", 13, {floats({2}, {1, 2}), floats({3}, {1, 2, 3})}, DType::F32);
            }),
            Kind::InvalidInput);
  const Tensor d = run_op(
      "Mean", 13, {tensor_of<double>(DType::F64, {2}, {1, 0.1}), tensor_of<double>(DType::F64, {1}, {2})},
      DType::F64);
  EXPECT_EQ(elements_of<double>(d), (std::vector<double>{1.5, (0.1 + 2.0) / 2.0}));
  // f16: 1 + 2 = 3 (0x4200), mean 1.5 (0x3E00).
  EXPECT_EQ(elements_of<uint16_t>(run_op("Mean", 13,
                                         {tensor_of<uint16_t>(DType::F16, {1}, {0x3C00}),
                                          tensor_of<uint16_t>(DType::F16, {1}, {0x4000})},
                                         DType::F16)),
            (std::vector<uint16_t>{0x3E00}));
}

// Oracle cases Mean/f32-33-33-33/0 and Sum/float16-3x1-1x4-4/0 (testdata/oracle/elementwise.json.gz): ONNX
// Runtime scales Mean's sum by 1/n rounded to float (not a division), and folds half-precision inputs in
// single precision with one rounding at the end.
TEST(Elementwise2, VariadicRoundingMatchesOnnxRuntime) {
  const float x0 = 1, x1 = 1.6244269609451294f, x2 = 3.56626558303833f;
  const float sum = (x0 + x1) + x2;
  ASSERT_NE(sum * (1.0f / 3.0f), sum / 3.0f);  // the values tell the two orders apart
  for (ExecutionMode mode : kModes) {
    const Tensor m =
        run_op("Mean", 13, {floats({1}, {x0}), floats({1}, {x1}), floats({1}, {x2})}, DType::F32, mode);
    expect_float_bits(m, {sum * (1.0f / 3.0f)}, "Mean of three");
  }
  // 1 + 2^-11 + 2^-11: a half-precision rounding after each step gives 1 (a tie to even, twice); one rounding
  // of the single-precision sum gives 1 + 2^-10.
  const auto halves = [](uint16_t bits) { return tensor_of<uint16_t>(DType::F16, {1}, {bits}); };
  const std::vector<Tensor> in = {halves(0x3C00), halves(0x1000), halves(0x1000)};
  for (ExecutionMode mode : kModes) {
    EXPECT_EQ(elements_of<uint16_t>(run_op("Sum", 13, in, DType::F16, mode)),
              (std::vector<uint16_t>{0x3C01}));
    EXPECT_EQ(elements_of<uint16_t>(run_op("Mean", 13, in, DType::F16, mode)),
              (std::vector<uint16_t>{float_to_half((1.0f + 0x1p-10f) * (1.0f / 3.0f))}));
  }
}

// --- Clip

TEST(Elementwise2, ClipBounds) {
  const std::vector<float> x = {-kInf, -5, -0.0f, 0.5f, 5, kInf, kNaN};
  const Tensor tx = floats({7}, x);
  for (ExecutionMode mode : kModes) {
    // No bounds: the finite extremes of f32, not infinity.
    expect_float_results(run_op("Clip", 13, {tx}, DType::F32, mode),
                         {-kMaxF, -5, -0.0f, 0.5f, 5, kMaxF, kNaN}, mode, "Clip no bounds");
    expect_float_results(run_op("Clip", 13, {tx, floats({}, {-1}), floats({}, {1})}, DType::F32, mode),
                         {-1, -1, -0.0f, 0.5f, 1, 1, kNaN}, mode, "Clip [-1, 1]");
    // Only the upper bound (the lower one omitted by an empty name).
    expect_float_results(run_op("Clip", 13, {tx, Tensor(), floats({}, {0})}, DType::F32, mode),
                         {-kMaxF, -5, -0.0f, 0, 0, 0, kNaN}, mode, "Clip max only");
    // Crossed bounds: the upper one wins everywhere.
    expect_float_results(run_op("Clip", 13, {tx, floats({}, {2}), floats({}, {1})}, DType::F32, mode),
                         {1, 1, 1, 1, 1, 1, kNaN}, mode, "Clip crossed");
    // Opset 6: attributes.
    expect_float_results(run_op("Clip", 6, {tx}, DType::F32, mode, {Attr::f("min", -2), Attr::f("max", 3)}),
                         {-2, -2, -0.0f, 0.5f, 3, 3, kNaN}, mode, "Clip opset 6");
    expect_float_results(run_op("Clip", 6, {tx}, DType::F32, mode, {Attr::f("max", 3)}),
                         {-kMaxF, -5, -0.0f, 0.5f, 3, 3, kNaN}, mode, "Clip opset 6 max only");
  }
  EXPECT_EQ(elements_of<int8_t>(run_op("Clip", 13,
                                       {tensor_of<int8_t>(DType::I8, {4}, {-128, -3, 3, 127}),
                                        tensor_of<int8_t>(DType::I8, {}, {-2})},
                                       DType::I8)),
            (std::vector<int8_t>{-2, -2, 3, 127}));
  EXPECT_EQ(elements_of<uint64_t>(
                run_op("Clip", 13, {tensor_of<uint64_t>(DType::U64, {2}, {0, UINT64_MAX})}, DType::U64)),
            (std::vector<uint64_t>{0, UINT64_MAX}));
  // f16 without bounds: infinity becomes the largest finite half, 65504 (0x7BFF).
  EXPECT_EQ(elements_of<uint16_t>(run_op(
                "Clip", 13, {tensor_of<uint16_t>(DType::F16, {3}, {0x7C00, 0xFC00, 0x3C00})}, DType::F16)),
            (std::vector<uint16_t>{0x7BFF, 0xFBFF, 0x3C00}));
  EXPECT_EQ(error_kind([&] {
              run_op("Clip", 13, {tx, floats({2}, {0, 1})}, DType::F32);
            }),
            Kind::InvalidInput);
  EXPECT_EQ(error_kind([&] {
              run_op("Clip", 13, {tx, tensor_of<double>(DType::F64, {}, {0})}, DType::F32);
            }),
            Kind::InvalidInput);
}

// --- LeakyRelu, HardSigmoid, HardSwish

TEST(Elementwise2, ActivationsFollowTheirDefinitions) {
  std::vector<float> x = {-kInf, -4, -3, -1.5f, -0.0f, 0.0f, 0.1f, 2.9f, 3, 7, kInf, kNaN, 1e-40f, -1e-40f};
  for (int i = 0; i < 37; ++i) x.push_back(static_cast<float>(i) * 0.37f - 6.0f);  // an odd length
  const int64_t n = static_cast<int64_t>(x.size());
  const auto clamp01 = [](float v) { return v < 0 ? 0.0f : v > 1 ? 1.0f : v; };
  std::vector<float> leaky, leaky_default, hard_sigmoid, hard_sigmoid_default, hard_swish;
  for (float v : x) {
    leaky.push_back(v < 0 ? 0.5f * v : v);
    leaky_default.push_back(v < 0 ? 0.01f * v : v);
    const float p = 0.3f * v;
    hard_sigmoid.push_back(clamp01(p + 0.25f));
    const float q = 0.2f * v;
    hard_sigmoid_default.push_back(clamp01(q + 0.5f));
    const float r = v * 0.16666667f;
    hard_swish.push_back(v * clamp01(r + 0.5f));
  }
  for (ExecutionMode mode : kModes) {
    expect_float_results(
        run_op("LeakyRelu", 16, {floats({n}, x)}, DType::F32, mode, {Attr::f("alpha", 0.5f)}), leaky, mode,
        "LeakyRelu");
    expect_float_results(run_op("LeakyRelu", 6, {floats({n}, x)}, DType::F32, mode), leaky_default, mode,
                         "LeakyRelu default");
    expect_float_results(run_op("HardSigmoid", 6, {floats({n}, x)}, DType::F32, mode,
                                {Attr::f("alpha", 0.3f), Attr::f("beta", 0.25f)}),
                         hard_sigmoid, mode, "HardSigmoid");
    expect_float_results(run_op("HardSigmoid", 6, {floats({n}, x)}, DType::F32, mode), hard_sigmoid_default,
                         mode, "HardSigmoid default");
    expect_float_results(run_op("HardSwish", 14, {floats({n}, x)}, DType::F32, mode), hard_swish, mode,
                         "HardSwish");
  }
  EXPECT_EQ(
      error_kind([] { run_op("LeakyRelu", 16, {tensor_of<double>(DType::F64, {1}, {1})}, DType::F64); }),
      Kind::Unsupported);
}

// --- Pow

TEST(Elementwise2, PowRules) {
  const std::vector<float> base = {2, -3, 0.5f, kNaN, 10, -0.0f, 1.7f};
  const std::vector<float> exponent = {2, 2, 3.5f, 0, 0.3f, 2, 2};
  const auto y =
      elements_of<float>(run_op("Pow", 15, {floats({7}, base), floats({7}, exponent)}, DType::F32));
  ASSERT_EQ(y.size(), 7u);
  EXPECT_EQ(y[0], 4.0f);
  EXPECT_EQ(y[1], 9.0f);
  EXPECT_NEAR(y[2], std::pow(0.5, 3.5), 1e-7);
  EXPECT_EQ(y[3], 1.0f);  // Pow(NaN, 0) is 1
  EXPECT_NEAR(y[4], std::pow(10.0, 0.3), 1e-5);
  EXPECT_EQ(bits_of(y[5]), bits_of(0.0f));
  EXPECT_EQ(y[6], 1.7f * 1.7f);  // x^2 is x * x
  // Integer bases compute in double and saturate back; negative exponents truncate toward zero.
  EXPECT_EQ(elements_of<int32_t>(run_op("Pow", 15,
                                        {tensor_of<int32_t>(DType::I32, {5}, {-2, 10, -10, 2, 7}),
                                         tensor_of<int64_t>(DType::I64, {5}, {3, 20, 21, -1, 0})},
                                        DType::I32)),
            (std::vector<int32_t>{-8, INT32_MAX, INT32_MIN, 0, 1}));
  EXPECT_EQ(
      elements_of<int64_t>(run_op(
          "Pow", 15, {tensor_of<int64_t>(DType::I64, {2}, {3, 2}), floats({2}, {2, 0.5f})}, DType::I64)),
      (std::vector<int64_t>{9, 1}));
  // A broadcast exponent of a wider type; a double base uses double pow.
  EXPECT_EQ(elements_of<double>(run_op("Pow", 15,
                                       {tensor_of<double>(DType::F64, {2, 2}, {1.5, 2, 3, 4}),
                                        tensor_of<uint64_t>(DType::U64, {2}, {2, 3})},
                                       DType::F64)),
            (std::vector<double>{2.25, 8, 9, 64}));
  // Not exact: exact mode refuses it; types outside the spec are unsupported.
  EXPECT_EQ(error_kind([] {
              run_op("Pow", 15, {floats({1}, {2}), floats({1}, {2})}, DType::F32, ExecutionMode::Exact);
            }),
            Kind::ExactModeUnavailable);
  EXPECT_EQ(error_kind([] {
              run_op("Pow", 15, {tensor_of<int8_t>(DType::I8, {1}, {2}), floats({1}, {2})}, DType::I8);
            }),
            Kind::Unsupported);
}

// A graph-constant exponent 2 (an initializer or a Constant node) makes Pow a square, exact on every path.
TEST(Elementwise2, PowByConstantTwoIsExact) {
  const std::vector<float> base = {1.7f, -3, kNaN, -0.0f, 3e38f, 1e-30f, -kInf};
  for (bool as_constant_node : {false, true}) {
    ModelBuilder m(15);
    m.input("x", DType::F32, {7}).output("y", DType::F32);
    const Tensor two = floats({}, {2});
    if (as_constant_node) {
      m.node("Constant", {}, {"two"}, {Attr::tensor("value", two)});
    } else {
      m.initializer("two", two);
    }
    m.node("Pow", {"x", "two"}, {"y"});
    for (const std::string& path : kernel_paths()) {
      const auto y =
          elements_of<float>(m.run({{"x", floats({7}, base)}}, options(ExecutionMode::Exact, path)).at(0));
      ASSERT_EQ(y.size(), base.size());
      for (size_t i = 0; i < base.size(); ++i) {
        const float want = base[i] * base[i];
        if (want != want) {
          EXPECT_EQ(bits_of(y[i]), 0x7FC00000u) << path;  // canonical NaN
        } else {
          EXPECT_EQ(bits_of(y[i]), bits_of(want)) << path << " element " << i;
        }
      }
    }
  }
  // Any other constant exponent, or one fed at run time, keeps Pow out of exact mode.
  ModelBuilder three(15);
  three.input("x", DType::F32, {1}).initializer("e", floats({}, {3})).output("y", DType::F32);
  three.node("Pow", {"x", "e"}, {"y"});
  EXPECT_EQ(error_kind([&] { three.session(options(ExecutionMode::Exact)); }), Kind::ExactModeUnavailable);
}

// --- Mod

TEST(Elementwise2, ModSignRulesAndDivisionByZero) {
  const std::vector<int32_t> a = {7, -7, 7, -7, 6, 5, INT32_MIN, INT32_MIN, 0};
  const std::vector<int32_t> b = {3, 3, -3, -3, 3, 0, -1, 3, -5};
  // Floor modulus: the divisor's sign.
  EXPECT_EQ(elements_of<int32_t>(run_op(
                "Mod", 13, {tensor_of<int32_t>(DType::I32, {9}, a), tensor_of<int32_t>(DType::I32, {9}, b)},
                DType::I32)),
            (std::vector<int32_t>{1, 2, -2, -1, 0, 0, 0, 1, 0}));
  // fmod = 1: the dividend's sign.
  EXPECT_EQ(elements_of<int32_t>(run_op(
                "Mod", 13, {tensor_of<int32_t>(DType::I32, {9}, a), tensor_of<int32_t>(DType::I32, {9}, b)},
                DType::I32, ExecutionMode::Fast, {Attr::i("fmod", 1)})),
            (std::vector<int32_t>{1, -1, 1, -1, 0, 0, 0, -2, 0}));
  EXPECT_EQ(elements_of<uint8_t>(run_op(
                "Mod", 13,
                {tensor_of<uint8_t>(DType::U8, {3}, {250, 7, 9}), tensor_of<uint8_t>(DType::U8, {1}, {0})},
                DType::U8)),
            (std::vector<uint8_t>{0, 0, 0}));
  EXPECT_EQ(elements_of<int8_t>(run_op("Mod", 13,
                                       {tensor_of<int8_t>(DType::I8, {2}, {-128, 127}),
                                        tensor_of<int8_t>(DType::I8, {2}, {127, -128})},
                                       DType::I8)),
            (std::vector<int8_t>{126, -1}));
  const std::vector<float> fa = {7.5f, -7.5f, -0.0f, 1, kInf, 3};
  const std::vector<float> fb = {2, 2, 3, 0, 2, kInf};
  std::vector<float> want;
  for (size_t i = 0; i < fa.size(); ++i) want.push_back(std::fmod(fa[i], fb[i]));
  for (ExecutionMode mode : kModes) {
    const Tensor y = run_op("Mod", 13, {floats({6}, fa), floats({6}, fb)}, DType::F32, RunOptions{mode},
                            {Attr::i("fmod", 1)});
    expect_float_results(y, want, mode, "Mod fmod=1");
  }
  expect_float_bits(run_op("Mod", 13, {floats({3}, {7.5f, -7.5f, -0.0f}), floats({1}, {2})}, DType::F32,
                           ExecutionMode::Fast, {Attr::i("fmod", 1)}),
                    {1.5f, -1.5f, -0.0f}, "Mod spelled out");
  std::string message;
  EXPECT_EQ(error_kind(
                [] {
                  run_op("Mod", 13, {floats({1}, {1}), floats({1}, {1})}, DType::F32);
                },
                &message),
            Kind::InvalidInput);
  EXPECT_NE(message.find("fmod"), std::string::npos) << message;
  EXPECT_EQ(error_kind([] {
              run_op("Mod", 13, {floats({1}, {1}), floats({1}, {1})}, DType::F32, ExecutionMode::Fast,
                     {Attr::i("fmod", 2)});
            }),
            Kind::InvalidModel);
}

// --- CastLike

TEST(Elementwise2, CastLikeTakesTheTypeOfItsSecondInputOnly) {
  // The 'like' input is empty: its values are never read.
  const Tensor y =
      run_op("CastLike", 15, {floats({3}, {1.9f, -2.9f, kNaN}), tensor_of<int32_t>(DType::I32, {0}, {})},
             DType::I32);
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{3}));
  EXPECT_EQ(elements_of<int32_t>(y), (std::vector<int32_t>{1, -2, 0}));
  const Tensor h =
      run_op("CastLike", 15,
             {tensor_of<double>(DType::F64, {2}, {1.0, 65520.0}), tensor_of<uint16_t>(DType::F16, {1}, {0})},
             DType::F16);
  EXPECT_EQ(elements_of<uint16_t>(h), (std::vector<uint16_t>{0x3C00, 0x7C00}));
  const Tensor e = run_op("CastLike", 15, {floats({1}, {kOddNaN}), tensor_of<double>(DType::F64, {1}, {0})},
                          DType::F64, ExecutionMode::Exact);
  EXPECT_EQ(__builtin_bit_cast(uint64_t, elements_of<double>(e)[0]), 0x7FF8000000000000u);
}

// --- Exact bits everywhere

TEST(Elementwise2, ExactBitsDoNotDependOnKernelPathOrThreads) {
  // Long enough for several chunks (more than 2^15 elements) and of an odd length.
  const int64_t n = 3 * 32768 + 77;
  std::vector<float> a(static_cast<size_t>(n)), b(static_cast<size_t>(n));
  uint32_t state = 12345;
  for (int64_t i = 0; i < n; ++i) {
    state = state * 1664525u + 1013904223u;
    a[static_cast<size_t>(i)] = static_cast<float>(static_cast<int32_t>(state)) * 1e-8f;
    b[static_cast<size_t>(i)] = i % 97 == 0 ? kOddNaN : static_cast<float>(i % 13) - 6.0f;
  }
  const Tensor ta = floats({n}, a), tb = floats({n}, b);
  struct Case {
    const char* op;
    int64_t opset;
    std::vector<Tensor> inputs;
    DType out;
  };
  const std::vector<Case> cases = {
      {"Max", 13, {ta, tb, floats({1}, {0.5f})}, DType::F32},
      {"Clip", 13, {ta, floats({}, {-3}), floats({}, {4})}, DType::F32},
      {"HardSwish", 14, {ta}, DType::F32},
      {"Round", 11, {ta}, DType::F32},
      {"Less", 13, {ta, tb}, DType::Bool},
      {"Where", 16, {run_op("Less", 13, {ta, tb}, DType::Bool), ta, tb}, DType::F32}};
  for (const Case& c : cases) {
    const Tensor reference =
        run_op(c.op, c.opset, c.inputs, c.out, RunOptions{ExecutionMode::Exact, "scalar", 1});
    for (const std::string& path : kernel_paths()) {
      for (int threads : {1, 2}) {
        const Tensor got =
            run_op(c.op, c.opset, c.inputs, c.out, RunOptions{ExecutionMode::Exact, path, threads});
        EXPECT_TRUE(same_bytes(got, reference))
            << c.op << " on " << path << " with " << threads << " threads";
      }
    }
  }
}

// --- ONNX backend node cases

TEST(Elementwise2, BackendNodeCases) {
  if (!std::filesystem::is_directory(backend_node_dir())) GTEST_SKIP() << "libonnx-testdata is not installed";
  const int passed = check_backend_cases(
      {"test_where", "test_equal",      "test_less",        "test_greater",   "test_not_",
       "test_and",   "test_or",         "test_xor",         "test_neg",       "test_abs",
       "test_sqrt",  "test_reciprocal", "test_floor",       "test_ceil",      "test_round",
       "test_sign",  "test_max_",       "test_min_",        "test_sum_",      "test_mean_",
       "test_clip",  "test_leakyrelu",  "test_hardsigmoid", "test_hardswish", "test_mod_"});
  EXPECT_GE(passed, 2 * 122);  // every case of these operators, in both modes
}

// Pow has no exact kernel: its cases pass in fast mode and are refused in exact mode.
TEST(Elementwise2, BackendPowCases) {
  if (!std::filesystem::is_directory(backend_node_dir())) GTEST_SKIP() << "libonnx-testdata is not installed";
  int cases = 0;
  for (const auto& entry : std::filesystem::directory_iterator(backend_node_dir())) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("test_pow", 0) != 0) continue;
    ++cases;
    EXPECT_EQ(run_backend_case(entry.path(), ExecutionMode::Fast), "") << name;
    EXPECT_EQ(error_kind([&] { run_backend_case(entry.path(), ExecutionMode::Exact); }),
              Kind::ExactModeUnavailable)
        << name;
  }
  EXPECT_EQ(cases, 14);
}

}  // namespace
}  // namespace onemodel::test

namespace onemodel::test {
namespace {

// Cast between float32 and float16 runs on the kernel path's vector conversions: on every path, both modes
// and one or two threads it gives the scalar conversions of core/half.h for every binary16 pattern (and the
// float32 values they widen to, plus values between them), with exact mode's canonical NaN.
TEST(Elementwise2, CastBetweenFloatAndHalfOnEveryPathMatchesTheScalarConversions) {
  constexpr int64_t kPatterns = 65536;
  Tensor halves(DType::F16, {kPatterns});
  std::vector<float> floats;
  auto* h = static_cast<uint16_t*>(halves.raw());
  for (int64_t i = 0; i < kPatterns; ++i) {
    h[i] = static_cast<uint16_t>(i);
    const float f = half_to_float(h[i]);
    floats.push_back(f);
    floats.push_back(std::nextafter(f, 0.0f));  // between binary16 values: the rounding decides
  }
  const auto count = static_cast<int64_t>(floats.size());
  const Tensor wide = Tensor::from(floats, {count});
  ModelBuilder widen(17), narrow(17);
  widen.input("x", DType::F16, {kPatterns}).node("Cast", {"x"}, {"y"}, {Attr::i("to", 1)});
  widen.output("y", DType::F32);
  narrow.input("x", DType::F32, {count}).node("Cast", {"x"}, {"y"}, {Attr::i("to", 10)});
  narrow.output("y", DType::F16);
  for (auto mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    const bool exact = mode == ExecutionMode::Exact;
    for (const std::string& path : kernel_paths()) {
      for (int threads : {1, 2}) {
        const std::string label = path + " threads " + std::to_string(threads) + (exact ? " exact" : " fast");
        const Tensor w = widen.run({{"x", halves}}, options(mode, path, threads))[0];
        for (int64_t i = 0; i < kPatterns; ++i) {
          const float want = floats[static_cast<size_t>(2 * i)];
          const uint32_t want_bits = exact && std::isnan(want) ? 0x7FC00000u : std::bit_cast<uint32_t>(want);
          ASSERT_EQ(std::bit_cast<uint32_t>(w.data<float>()[i]), want_bits) << label << " pattern " << i;
        }
        const Tensor n = narrow.run({{"x", wide}}, options(mode, path, threads))[0];
        const auto* got = static_cast<const uint16_t*>(n.raw());
        for (int64_t i = 0; i < count; ++i) {
          const float x = floats[static_cast<size_t>(i)];
          const uint16_t want = exact && std::isnan(x) ? uint16_t{0x7E00} : float_to_half(x);
          ASSERT_EQ(got[i], want) << label << " value " << i;
        }
      }
    }
  }
}

}  // namespace
}  // namespace onemodel::test
