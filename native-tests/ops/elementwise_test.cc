// Element-wise operators through Session: Add, Sub, Mul, Div with numpy broadcasting (rank 0 to 4, empty and
// single-element tensors, odd lengths), special values (NaN, infinities, signed zeros, subnormals), the
// integer rules (wrap-around, x / 0 = 0, MIN / -1 = MIN), Relu, the transcendental operators, every Cast pair
// on boundary values, and the ONNX backend node cases of these operators in both modes.
//
// Expected values are computed here from the operator definitions: float results with one C++ operation on
// the same inputs, integers in 128-bit arithmetic reduced modulo 2^n, 16-bit floats by a nearest-value search
// over the decoded bit patterns, transcendentals in long double.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "ops/op_test_util.h"

namespace onemodel::test {
namespace {

using Kind = SessionError::Kind;
constexpr ExecutionMode kModes[] = {ExecutionMode::Fast, ExecutionMode::Exact};
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

const char* mode_name(ExecutionMode m) {
  return m == ExecutionMode::Exact ? "exact" : "fast";
}

int64_t product(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// One node "op" over inputs x0, x1, ... producing y.
Tensor run_node(std::string_view op, int64_t opset, const std::vector<Tensor>& inputs, DType out_type,
                ExecutionMode mode, std::initializer_list<Attr> attrs = {}, std::string kernels = {}) {
  ModelBuilder m(opset);
  std::vector<std::string> names;
  for (size_t i = 0; i < inputs.size(); ++i) names.push_back("x" + std::to_string(i));
  std::vector<NamedTensor> feeds;
  for (size_t i = 0; i < inputs.size(); ++i) {
    m.input(names[i], inputs[i].dtype(), inputs[i].shape());
    feeds.push_back({names[i], inputs[i]});
  }
  m.output("y", out_type);
  if (inputs.size() == 1)
    m.node(op, {names[0]}, {"y"}, attrs);
  else
    m.node(op, {names[0], names[1]}, {"y"}, attrs);
  return m.run(feeds, options(mode, std::move(kernels))).at(0);
}

// --- Independent references for 16-bit floats

// Value of a binary16 pattern, from the IEEE layout (1 sign, 5 exponent, 10 fraction bits).
long double half_value(uint16_t h) {
  const int e = (h >> 10) & 0x1F;
  const int m = h & 0x3FF;
  long double v = e == 0 ? std::ldexp(static_cast<long double>(m), -24)
                         : std::ldexp(static_cast<long double>(1024 + m), e - 25);
  if (e == 0x1F) v = m == 0 ? std::numeric_limits<long double>::infinity() : std::nanl("");
  return (h & 0x8000) ? -v : v;
}

// Value of a bfloat16 pattern: the top half of a binary32.
long double bf16_value(uint16_t b) {
  return static_cast<long double>(__builtin_bit_cast(float, static_cast<uint32_t>(b) << 16));
}

// Nearest pattern to x (not NaN) with ties to the even pattern. Positive patterns [0, max_finite] increase
// with their value; `overflow_value` is where the pattern after max_finite (infinity) would sit if the
// exponent range went on, so values from half-way between it and the largest finite value round to infinity.
uint16_t nearest_pattern(long double x, long double (*value)(uint16_t), uint16_t max_finite,
                         long double overflow_value) {
  const uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  const long double a = std::fabs(x);
  auto at = [&](uint32_t p) { return p > max_finite ? overflow_value : value(static_cast<uint16_t>(p)); };
  if (a >= overflow_value) return static_cast<uint16_t>(sign | (max_finite + 1));
  uint32_t lo = 0, hi = max_finite + 1u;  // value(lo) <= a < at(hi)
  while (hi - lo > 1) {
    const uint32_t mid = (lo + hi) / 2;
    if (at(mid) <= a)
      lo = mid;
    else
      hi = mid;
  }
  const long double below = a - at(lo), above = at(hi) - a;
  const uint32_t pick = below < above ? lo : above < below ? hi : (lo % 2 == 0 ? lo : hi);
  return static_cast<uint16_t>(sign | pick);
}

uint16_t nearest_half(long double x) {
  return nearest_pattern(x, half_value, 0x7BFF, 65536.0L);
}
uint16_t nearest_bf16(long double x) {
  return nearest_pattern(x, bf16_value, 0x7F7F, std::ldexp(1.0L, 128));
}

bool half_is_nan(uint16_t h) {
  return (h & 0x7FFF) > 0x7C00;
}
bool bf16_is_nan(uint16_t b) {
  return (b & 0x7FFF) > 0x7F80;
}

// --- Value pools

// Special f32 values, including NaNs with a payload and a negative sign.
std::vector<float> special_floats() {
  return {0.0f,
          -0.0f,
          1.0f,
          -1.0f,
          kInf,
          -kInf,
          kNaN,
          __builtin_bit_cast(float, 0xFFC00001u),  // negative NaN with payload
          __builtin_bit_cast(float, 0x7FA00000u),  // signalling NaN
          1e-40f,                                  // subnormal
          -1e-45f,                                 // smallest subnormal
          std::numeric_limits<float>::min(),
          std::numeric_limits<float>::max(),
          -std::numeric_limits<float>::max(),
          3.0f,
          0.1f};
}

std::vector<float> mixed_floats(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  const std::vector<float> specials = special_floats();
  std::uniform_real_distribution<float> uniform(-100.0f, 100.0f);
  std::vector<float> v(n);
  for (float& x : v) x = rng() % 4 == 0 ? specials[rng() % specials.size()] : uniform(rng);
  return v;
}

// --- Broadcasting reference: the input element read for an output position (numpy, right-aligned).

int64_t source_index(const std::vector<int64_t>& out, const std::vector<int64_t>& in, int64_t flat) {
  int64_t index = 0, stride = 1;
  for (size_t k = 0; k < out.size(); ++k) {
    const size_t d = out.size() - 1 - k;
    const int64_t coord = flat % out[d];
    flat /= out[d];
    if (k < in.size()) {
      const size_t id = in.size() - 1 - k;
      if (in[id] != 1) index += coord * stride;
      stride *= in[id];
    }
  }
  return index;
}

std::vector<int64_t> broadcast(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  std::vector<int64_t> out(std::max(a.size(), b.size()));
  for (size_t k = 0; k < out.size(); ++k) {
    const int64_t ea = k < a.size() ? a[a.size() - 1 - k] : 1;
    const int64_t eb = k < b.size() ? b[b.size() - 1 - k] : 1;
    out[out.size() - 1 - k] = ea == 1 ? eb : ea;
  }
  return out;
}

struct ShapePair {
  std::vector<int64_t> a, b;
};

// Ranks 0 to 4: scalars, size 0 and 1, odd lengths, row vectors, columns, and two-sided broadcasts.
const std::vector<ShapePair>& shape_pairs() {
  static const std::vector<ShapePair> pairs = {
      {{}, {}},
      {{}, {7}},
      {{15}, {}},
      {{1}, {17}},
      {{33}, {1}},
      {{1}, {1}},
      {{3}, {3}},
      {{7}, {7}},
      {{17}, {17}},
      {{0}, {1}},
      {{0}, {}},
      {{2, 0}, {1}},
      {{0, 3}, {3}},
      {{2, 3}, {3}},
      {{5, 15}, {15}},
      {{3, 1}, {1, 33}},
      {{7, 1}, {7, 17}},
      {{2, 3}, {2, 1}},
      {{1, 1}, {1}},
      {{4, 1, 5}, {1, 3, 1}},
      {{3, 7, 1}, {7, 15}},
      {{1, 3}, {2, 1, 1}},
      {{2, 3, 4, 5}, {3, 1, 5}},
      {{7, 1, 3, 1}, {1, 5, 1, 2}},
      {{1, 1, 1, 1}, {}},
      {{2, 1, 3, 17}, {2, 5, 3, 17}},
  };
  return pairs;
}

// --- Binary float arithmetic

using FloatOp = float (*)(float, float);
struct NamedOp {
  const char* name;
  FloatOp f32;
  double (*f64)(double, double);
};

const NamedOp kFloatOps[] = {
    {"Add", [](float a, float b) { return a + b; }, [](double a, double b) { return a + b; }},
    {"Sub", [](float a, float b) { return a - b; }, [](double a, double b) { return a - b; }},
    {"Mul", [](float a, float b) { return a * b; }, [](double a, double b) { return a * b; }},
    {"Div", [](float a, float b) { return a / b; }, [](double a, double b) { return a / b; }},
};

// got must equal want bit for bit, except that NaN only has to be NaN in fast mode and must be 0x7FC00000 in
// exact mode.
void expect_f32(float got, float want, ExecutionMode mode, const std::string& where) {
  if (std::isnan(want)) {
    EXPECT_TRUE(std::isnan(got)) << where << ": got " << got;
    if (mode == ExecutionMode::Exact) {
      EXPECT_EQ(bits_of(got), 0x7FC00000u) << where;
    }
  } else {
    EXPECT_EQ(bits_of(got), bits_of(want)) << where << ": got " << got << ", want " << want;
  }
}

TEST(ElementwiseOps, FloatArithmeticBroadcastsWithSpecialValues) {
  uint32_t seed = 1;
  for (const NamedOp& op : kFloatOps) {
    for (const ShapePair& shapes : shape_pairs()) {
      const std::vector<float> a = mixed_floats(static_cast<size_t>(product(shapes.a)), seed++);
      const std::vector<float> b = mixed_floats(static_cast<size_t>(product(shapes.b)), seed++);
      const std::vector<int64_t> out_dims = broadcast(shapes.a, shapes.b);
      for (ExecutionMode mode : kModes) {
        const Tensor y =
            run_node(op.name, 14, {Tensor::from(a, shapes.a), Tensor::from(b, shapes.b)}, DType::F32, mode);
        ASSERT_EQ(y.shape(), out_dims) << op.name;
        const std::vector<float> got = y.to_vector<float>();
        for (int64_t i = 0; i < product(out_dims); ++i) {
          const float want = op.f32(a[static_cast<size_t>(source_index(out_dims, shapes.a, i))],
                                    b[static_cast<size_t>(source_index(out_dims, shapes.b, i))]);
          expect_f32(got[static_cast<size_t>(i)], want, mode,
                     std::string(op.name) + " " + mode_name(mode) + " element " + std::to_string(i));
        }
      }
    }
  }
}

TEST(ElementwiseOps, SignedZerosFollowIeee) {
  // -0 + -0 = -0, -0 + +0 = +0, -0 * 5 = -0, 1 / -inf = -0, 1 / -0 = -inf.
  const Tensor a = Tensor::from<float>({-0.0f, -0.0f, -0.0f, 1.0f, 1.0f}, {5});
  const Tensor b = Tensor::from<float>({-0.0f, 0.0f, 5.0f, -kInf, -0.0f}, {5});
  for (ExecutionMode mode : kModes) {
    const auto add = run_node("Add", 14, {a, b}, DType::F32, mode).to_vector<float>();
    EXPECT_EQ(bits_of(add[0]), 0x80000000u);
    EXPECT_EQ(bits_of(add[1]), 0u);
    const auto mul = run_node("Mul", 14, {a, b}, DType::F32, mode).to_vector<float>();
    EXPECT_EQ(bits_of(mul[2]), 0x80000000u);
    const auto div = run_node("Div", 14, {a, b}, DType::F32, mode).to_vector<float>();
    EXPECT_EQ(bits_of(div[3]), 0x80000000u);
    EXPECT_EQ(div[4], -kInf);
  }
}

TEST(ElementwiseOps, DoubleArithmetic) {
  const std::vector<int64_t> da = {3, 1, 7}, db = {5, 1};
  std::vector<double> a(21), b(5);
  std::mt19937 rng(7);
  for (double& x : a) x = std::ldexp(static_cast<double>(rng()) - 2147483648.0, -20);
  for (double& x : b) x = std::ldexp(static_cast<double>(rng()), -30);
  a[0] = std::nan("");
  b[1] = 0.0;
  b[2] = -std::numeric_limits<double>::infinity();
  const std::vector<int64_t> out = broadcast(da, db);
  for (const NamedOp& op : kFloatOps) {
    for (ExecutionMode mode : kModes) {
      const auto got = run_node(op.name, 14, {Tensor::from(a, da), Tensor::from(b, db)}, DType::F64, mode)
                           .to_vector<double>();
      ASSERT_EQ(static_cast<int64_t>(got.size()), product(out));
      for (int64_t i = 0; i < product(out); ++i) {
        const double want = op.f64(a[static_cast<size_t>(source_index(out, da, i))],
                                   b[static_cast<size_t>(source_index(out, db, i))]);
        const double g = got[static_cast<size_t>(i)];
        if (std::isnan(want)) {
          EXPECT_TRUE(std::isnan(g));
          if (mode == ExecutionMode::Exact) {
            EXPECT_EQ(__builtin_bit_cast(uint64_t, g), 0x7FF8000000000000u);
          }
        } else {
          EXPECT_EQ(__builtin_bit_cast(uint64_t, g), __builtin_bit_cast(uint64_t, want))
              << op.name << " " << i;
        }
      }
    }
  }
}

TEST(ElementwiseOps, HalfArithmeticRoundsOnce) {
  // Every 97th half pattern against a few partners, including NaN, infinities, zeros and subnormals.
  std::vector<uint16_t> a;
  for (uint32_t p = 0; p < 0x10000; p += 97) a.push_back(static_cast<uint16_t>(p));
  const int64_t n = static_cast<int64_t>(a.size());
  const std::vector<uint16_t> partners = {0x3C00, 0xC000, 0x0001, 0x8000, 0x7C00, 0x7E00, 0x3555, 0x7BFF};
  for (const NamedOp& op : kFloatOps) {
    for (uint16_t partner : partners) {
      for (ExecutionMode mode : kModes) {
        const Tensor y = run_node(
            op.name, 14,
            {tensor_of<uint16_t>(DType::F16, {n}, a), tensor_of<uint16_t>(DType::F16, {1}, {partner})},
            DType::F16, mode);
        const auto got = elements_of<uint16_t>(y);
        for (size_t i = 0; i < a.size(); ++i) {
          const double want =
              op.f64(static_cast<double>(half_value(a[i])), static_cast<double>(half_value(partner)));
          if (std::isnan(want)) {
            EXPECT_TRUE(half_is_nan(got[i])) << op.name << " " << a[i];
            if (mode == ExecutionMode::Exact) {
              EXPECT_EQ(got[i], 0x7E00) << op.name;
            }
          } else {
            EXPECT_EQ(got[i], nearest_half(want)) << op.name << " " << std::hex << a[i] << " " << partner;
          }
        }
      }
    }
  }
}

// --- Integer arithmetic

// Reduce modulo 2^bits (two's complement), then reinterpret.
template <class T>
T wrap(unsigned __int128 v) {
  const unsigned __int128 mask = (static_cast<unsigned __int128>(1) << (8 * sizeof(T))) - 1;
  return static_cast<T>(static_cast<uint64_t>(v & mask));
}

template <class T>
T integer_reference(std::string_view op, T a, T b) {
  // 128-bit unsigned arithmetic is exact modulo 2^128, so its low bits are the wrapped result.
  const auto x = static_cast<unsigned __int128>(static_cast<__int128>(a));
  const auto y = static_cast<unsigned __int128>(static_cast<__int128>(b));
  if (op == "Add") return wrap<T>(x + y);
  if (op == "Sub") return wrap<T>(x - y);
  if (op == "Mul") return wrap<T>(x * y);
  if (b == 0) return 0;
  // Truncating division in 128 bits cannot overflow; MIN / -1 = 2^(n-1) then wraps to MIN.
  return wrap<T>(static_cast<unsigned __int128>(static_cast<__int128>(a) / static_cast<__int128>(b)));
}

template <class T>
void check_integer_type() {
  using L = std::numeric_limits<T>;
  std::vector<T> edge = {
      0, 1, 2, 3, 7, L::max(), static_cast<T>(L::max() - 1), L::min(), static_cast<T>(L::min() + 1)};
  if constexpr (std::is_signed_v<T>) {
    for (T v : {T(-1), T(-2), T(-3), T(-7)}) edge.push_back(v);
  }
  std::mt19937_64 rng(sizeof(T) * 10 + std::is_signed_v<T>);
  while (edge.size() < 15) edge.push_back(static_cast<T>(rng()));
  // a: every edge value against every edge value (a [15, 1] x b [15]).
  const int64_t n = static_cast<int64_t>(edge.size());
  const Tensor ta = Tensor::from<T>(edge, {n, 1});
  const Tensor tb = Tensor::from<T>(edge, {n});
  for (const char* op : {"Add", "Sub", "Mul", "Div"}) {
    for (ExecutionMode mode : kModes) {
      const auto got = run_node(op, 14, {ta, tb}, dtype_of<T>(), mode).template to_vector<T>();
      ASSERT_EQ(got.size(), edge.size() * edge.size());
      for (size_t i = 0; i < edge.size(); ++i) {
        for (size_t j = 0; j < edge.size(); ++j) {
          EXPECT_EQ(got[i * edge.size() + j], integer_reference<T>(op, edge[i], edge[j]))
              << op << " " << dtype_name(dtype_of<T>()) << " " << +edge[i] << ", " << +edge[j];
        }
      }
    }
  }
}

TEST(ElementwiseOps, IntegersWrapAndDivisionIsDefinedEverywhere) {
  check_integer_type<int8_t>();
  check_integer_type<int16_t>();
  check_integer_type<int32_t>();
  check_integer_type<int64_t>();
  check_integer_type<uint8_t>();
  check_integer_type<uint16_t>();
  check_integer_type<uint32_t>();
  check_integer_type<uint64_t>();
}

TEST(ElementwiseOps, IntegerEdgeCasesSpelledOut) {
  const auto div = run_node("Div", 14,
                            {Tensor::from<int32_t>({7, -7, 7, INT32_MIN, 5, INT32_MIN}, {6}),
                             Tensor::from<int32_t>({2, 2, 0, -1, -1, 1}, {6})},
                            DType::I32, ExecutionMode::Fast)
                       .to_vector<int32_t>();
  EXPECT_EQ(div, (std::vector<int32_t>{3, -3, 0, INT32_MIN, -5, INT32_MIN}));
  const auto add =
      run_node("Add", 14, {Tensor::from<uint8_t>({250, 3}, {2}), Tensor::from<uint8_t>({10}, {1})}, DType::U8,
               ExecutionMode::Fast)
          .to_vector<uint8_t>();
  EXPECT_EQ(add, (std::vector<uint8_t>{4, 13}));
}

// --- In-place and large tensors

TEST(ElementwiseOps, ChainsThatMayRunInPlaceGiveTheSameResult) {
  // r = Relu(x) dies at the Add, so the runtime may write the Add (and the Mul after it) over r's storage. In
  // the broadcast cases r is smaller than the Add's output but its slab block may still be large enough to
  // take it
  // ([1, 4] floats sit in a 64-byte block, exactly a [4, 4] output): r must not be overwritten while still
  // read.
  struct Case {
    std::vector<int64_t> x, b;
  };
  for (const Case& c :
       {Case{{4, 17}, {17}}, Case{{1, 17}, {4, 17}}, Case{{1, 4}, {4, 4}}, Case{{4}, {4, 1}}}) {
    const std::vector<float> x = mixed_floats(static_cast<size_t>(product(c.x)), 11);
    const std::vector<float> b = mixed_floats(static_cast<size_t>(product(c.b)), 12);
    ModelBuilder m(14);
    m.input("x", DType::F32, c.x).input("b", DType::F32, c.b).output("z", DType::F32);
    m.node("Relu", {"x"}, {"r"}).node("Add", {"r", "b"}, {"s"}).node("Mul", {"s", "b"}, {"z"});
    const std::vector<int64_t> out = broadcast(c.x, c.b);
    for (ExecutionMode mode : kModes) {
      const auto got = m.run({{"x", Tensor::from(x, c.x)}, {"b", Tensor::from(b, c.b)}}, options(mode))[0]
                           .to_vector<float>();
      ASSERT_EQ(static_cast<int64_t>(got.size()), product(out));
      for (int64_t i = 0; i < product(out); ++i) {
        const float xv = x[static_cast<size_t>(source_index(out, c.x, i))];
        const float bv = b[static_cast<size_t>(source_index(out, c.b, i))];
        const float r = std::isnan(xv) ? xv : (xv <= 0.0f ? 0.0f : xv);
        expect_f32(got[static_cast<size_t>(i)], (r + bv) * bv, mode, "element " + std::to_string(i));
      }
    }
  }
}

TEST(ElementwiseOps, LargeTensorsDoNotDependOnThreads) {
  // More elements than one parallel chunk, with a row broadcast; 1 and 2 threads give the same bits.
  const std::vector<int64_t> da = {301, 257}, db = {257};
  const std::vector<float> a = mixed_floats(301 * 257, 21), b = mixed_floats(257, 22);
  std::vector<Tensor> results;
  for (int threads : {1, 2}) {
    ModelBuilder m(14);
    m.input("a", DType::F32, da).input("b", DType::F32, db).output("y", DType::F32).output("e", DType::F32);
    m.output("c", DType::F16);
    m.node("Div", {"a", "b"}, {"y"})
        .node("Exp", {"y"}, {"e"})
        .node("Cast", {"y"}, {"c"}, {Attr::i("to", 10)});
    std::vector<Tensor> out = m.run({{"a", Tensor::from(a, da)}, {"b", Tensor::from(b, db)}},
                                    options(ExecutionMode::Exact, {}, threads));
    const auto y = out[0].to_vector<float>();
    for (int64_t i = 0; i < 301 * 257; i += 13) {
      expect_f32(y[static_cast<size_t>(i)], a[static_cast<size_t>(i)] / b[static_cast<size_t>(i % 257)],
                 ExecutionMode::Exact, "element " + std::to_string(i));
    }
    results.insert(results.end(), out.begin(), out.end());
  }
  for (size_t i = 0; i < 3; ++i) EXPECT_TRUE(same_bytes(results[i], results[i + 3])) << "output " << i;
}

// --- Relu

TEST(ElementwiseOps, ReluSelectsAndTurnsNegativeZeroPositive) {
  const std::vector<float> x = special_floats();
  for (ExecutionMode mode : kModes) {
    for (size_t n : {size_t{1}, size_t{3}, size_t{7}, size_t{15}, x.size(), size_t{33}}) {
      std::vector<float> in(n);
      for (size_t i = 0; i < n; ++i) in[i] = x[i % x.size()];
      const auto got = run_node("Relu", 14, {Tensor::from(in, {static_cast<int64_t>(n)})}, DType::F32, mode)
                           .to_vector<float>();
      for (size_t i = 0; i < n; ++i) {
        const float want = std::isnan(in[i]) ? in[i] : (in[i] > 0.0f ? in[i] : 0.0f);
        if (std::isnan(want) && mode == ExecutionMode::Fast) {
          EXPECT_EQ(bits_of(got[i]) | 0x00400000u, bits_of(in[i]) | 0x00400000u) << "NaN passes through";
        } else {
          expect_f32(got[i], want, mode, "Relu element " + std::to_string(i));
        }
      }
    }
  }
}

template <class T>
void check_relu_integers() {
  const std::vector<T> x = {0, 1, -1, std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), 5, -5};
  const auto got = run_node("Relu", 14, {Tensor::from<T>(x, {7})}, dtype_of<T>(), ExecutionMode::Exact)
                       .template to_vector<T>();
  for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(got[i], x[i] > 0 ? x[i] : T(0));
}

TEST(ElementwiseOps, ReluOtherTypes) {
  check_relu_integers<int8_t>();
  check_relu_integers<int16_t>();
  check_relu_integers<int32_t>();
  check_relu_integers<int64_t>();
  const auto d = run_node("Relu", 14, {Tensor::from<double>({-2.5, 0.0, -0.0, 3.5}, {4})}, DType::F64,
                          ExecutionMode::Exact)
                     .to_vector<double>();
  EXPECT_EQ(d, (std::vector<double>{0.0, 0.0, 0.0, 3.5}));
  EXPECT_FALSE(std::signbit(d[2]));
  // f16 and bf16: negative values, -0 and -inf give +0; others pass; NaN is canonical in exact mode.
  for (DType t : {DType::F16, DType::BF16}) {
    const bool half = t == DType::F16;
    const std::vector<uint16_t> x =
        half ? std::vector<uint16_t>{0xBC00, 0x8000, 0x3C00, 0xFC00, 0x7C00, 0x0001, 0x7E01}
             : std::vector<uint16_t>{0xBF80, 0x8000, 0x3F80, 0xFF80, 0x7F80, 0x0001, 0x7FC1};
    for (ExecutionMode mode : kModes) {
      const auto got = elements_of<uint16_t>(run_node("Relu", 14, {tensor_of<uint16_t>(t, {7}, x)}, t, mode));
      EXPECT_EQ(got[0], 0);
      EXPECT_EQ(got[1], 0);
      EXPECT_EQ(got[2], x[2]);
      EXPECT_EQ(got[3], 0);
      EXPECT_EQ(got[4], x[4]);
      EXPECT_EQ(got[5], x[5]);
      EXPECT_TRUE(half ? half_is_nan(got[6]) : bf16_is_nan(got[6]));
      if (mode == ExecutionMode::Exact) {
        EXPECT_EQ(got[6], half ? 0x7E00 : 0x7FC0);
      }
    }
  }
}

// --- Transcendentals

struct UnaryCase {
  const char* op;
  int64_t opset;
  const char* approximate;  // Gelu only
  long double (*reference)(long double);
};

long double gelu_erf_ref(long double x) {
  return 0.5L * x * (1.0L + std::erf(x / std::sqrt(2.0L)));
}
long double gelu_tanh_ref(long double x) {
  return 0.5L * x *
         (1.0L +
          std::tanh(std::sqrt(2.0L / 3.14159265358979323846264338327950288L) * (x + 0.044715L * x * x * x)));
}

const UnaryCase kUnaryCases[] = {
    {"Exp", 13, nullptr, [](long double x) { return std::exp(x); }},
    {"Log", 13, nullptr, [](long double x) { return std::log(x); }},
    {"Tanh", 13, nullptr, [](long double x) { return std::tanh(x); }},
    {"Sigmoid", 13, nullptr, [](long double x) { return 1.0L / (1.0L + std::exp(-x)); }},
    {"Erf", 13, nullptr, [](long double x) { return std::erf(x); }},
    {"Gelu", 20, "none", gelu_erf_ref},
    {"Gelu", 20, "tanh", gelu_tanh_ref},
};

Tensor run_unary(const UnaryCase& c, const std::vector<float>& x, ExecutionMode mode,
                 std::string kernels = {}) {
  const Tensor in = Tensor::from(x, {static_cast<int64_t>(x.size())});
  if (c.approximate != nullptr) {
    return run_node(c.op, c.opset, {in}, DType::F32, mode, {Attr::s("approximate", c.approximate)}, kernels);
  }
  return run_node(c.op, c.opset, {in}, DType::F32, mode, {}, kernels);
}

TEST(ElementwiseOps, TranscendentalsMatchLongDoubleReferences) {
  std::vector<float> x;
  for (int i = -2000; i <= 2000; ++i) x.push_back(static_cast<float>(i) * 0.0097f);  // [-19.4, 19.4]
  for (float v : {1e-30f, 1e-40f, 3e-39f, 88.0f, -87.0f, 50.0f, 1e20f}) x.push_back(v);
  for (const UnaryCase& c : kUnaryCases) {
    for (ExecutionMode mode : kModes) {
      const auto got = run_unary(c, x, mode).to_vector<float>();
      for (size_t i = 0; i < x.size(); ++i) {
        const long double want = c.reference(static_cast<long double>(x[i]));
        if (std::isnan(want)) {
          EXPECT_TRUE(std::isnan(got[i])) << c.op << "(" << x[i] << ")";
          continue;
        }
        if (std::isinf(static_cast<float>(want))) {
          EXPECT_EQ(got[i], static_cast<float>(want)) << c.op << "(" << x[i] << ")";
          continue;
        }
        // A few ulp in the spec's error table (GELU's negative tail more, relative to its tiny values).
        const long double tolerance = 3e-6L * std::fabs(want) + 1e-7L;
        EXPECT_LE(std::fabs(static_cast<long double>(got[i]) - want), tolerance)
            << c.op << (c.approximate ? c.approximate : "") << " " << mode_name(mode) << "(" << x[i]
            << ") = " << got[i] << ", want " << static_cast<double>(want);
      }
    }
  }
}

TEST(ElementwiseOps, TranscendentalSpecialValues) {
  const std::vector<float> x = {kNaN, kInf, -kInf, 0.0f, -0.0f, -1.0f};
  struct Want {
    const char* op;
    const char* approximate;
    std::vector<float> y;  // NaN means "NaN"
  };
  const std::vector<Want> wants = {
      {"Exp", nullptr, {kNaN, kInf, 0.0f, 1.0f, 1.0f, std::exp(-1.0f)}},
      {"Log", nullptr, {kNaN, kInf, kNaN, -kInf, -kInf, kNaN}},
      {"Tanh", nullptr, {kNaN, 1.0f, -1.0f, 0.0f, -0.0f, std::tanh(-1.0f)}},
      {"Sigmoid", nullptr, {kNaN, 1.0f, 0.0f, 0.5f, 0.5f, 1.0f / (1.0f + std::exp(1.0f))}},
      {"Erf", nullptr, {kNaN, 1.0f, -1.0f, 0.0f, -0.0f, std::erf(-1.0f)}},
      {"Gelu", "none", {kNaN, kInf, -0.0f, 0.0f, -0.0f, static_cast<float>(gelu_erf_ref(-1.0L))}},
      {"Gelu", "tanh", {kNaN, kInf, -0.0f, 0.0f, -0.0f, static_cast<float>(gelu_tanh_ref(-1.0L))}},
  };
  for (const Want& w : wants) {
    const UnaryCase c{w.op, w.approximate ? 20 : 13, w.approximate, nullptr};
    for (ExecutionMode mode : kModes) {
      const auto got = run_unary(c, x, mode).to_vector<float>();
      for (size_t i = 0; i < x.size(); ++i) {
        const std::string where = std::string(w.op) + (w.approximate ? w.approximate : "") + " " +
                                  mode_name(mode) + "(" + std::to_string(x[i]) + ")";
        if (std::isnan(w.y[i])) {
          EXPECT_TRUE(std::isnan(got[i])) << where;
          if (mode == ExecutionMode::Exact) {
            EXPECT_EQ(bits_of(got[i]), 0x7FC00000u) << where;
          }
        } else if (x[i] == -1.0f) {
          EXPECT_NEAR(got[i], w.y[i], 1e-6f) << where;
        } else {
          EXPECT_EQ(bits_of(got[i]), bits_of(w.y[i])) << where << " = " << got[i];  // signed zeros included
        }
      }
    }
  }
}

TEST(ElementwiseOps, ExactTranscendentalsAreIdenticalOnEveryPathAndLength) {
  const std::vector<std::string> paths = kernel_paths();
  ASSERT_FALSE(paths.empty());
  for (size_t n : {size_t{1}, size_t{3}, size_t{7}, size_t{15}, size_t{17}, size_t{33}, size_t{1000}}) {
    const std::vector<float> x = mixed_floats(n, static_cast<uint32_t>(n));
    for (const UnaryCase& c : kUnaryCases) {
      const Tensor reference = run_unary(c, x, ExecutionMode::Exact, paths[0]);
      for (size_t p = 1; p < paths.size(); ++p) {
        EXPECT_TRUE(same_bytes(run_unary(c, x, ExecutionMode::Exact, paths[p]), reference))
            << c.op << (c.approximate ? c.approximate : "") << " n=" << n << " on " << paths[p] << " vs "
            << paths[0];
      }
      // An element's result does not depend on its position: the first element alone gives the same bits.
      const Tensor single = run_unary(c, {x[0]}, ExecutionMode::Exact);
      EXPECT_EQ(bits_of(single.to_vector<float>()[0]), bits_of(reference.to_vector<float>()[0])) << c.op;
    }
  }
}

TEST(ElementwiseOps, UnaryMathServesFloat32Only) {
  EXPECT_EQ(error_kind([] {
              run_node("Exp", 13, {Tensor::from<double>({1.0}, {1})}, DType::F64, ExecutionMode::Fast);
            }),
            Kind::Unsupported);
  std::string message;
  EXPECT_EQ(error_kind(
                [] {
                  run_node("Gelu", 20, {Tensor::from<float>({1.0f}, {1})}, DType::F32, ExecutionMode::Fast,
                           {Attr::s("approximate", "fast")});
                },
                &message),
            Kind::InvalidModel);
  EXPECT_NE(message.find("approximate"), std::string::npos) << message;
}

TEST(ElementwiseOps, RejectsMismatchedAndUnservedTypes) {
  EXPECT_EQ(error_kind([] {
              run_node("Add", 14, {Tensor::from<float>({1.0f}, {1}), Tensor::from<double>({1.0}, {1})},
                       DType::F32, ExecutionMode::Fast);
            }),
            Kind::InvalidInput);
  // bfloat16 arithmetic runs through the half-precision adapter (fp16.md): 1.5 * 1.5 = 2.25 (0x4010).
  const Tensor product = run_node(
      "Mul", 14,
      {tensor_of<uint16_t>(DType::BF16, {1}, {0x3FC0}), tensor_of<uint16_t>(DType::BF16, {1}, {0x3FC0})},
      DType::BF16, ExecutionMode::Fast);
  EXPECT_EQ(static_cast<const uint16_t*>(product.raw())[0], 0x4010);
  EXPECT_EQ(error_kind([] {
              run_node("Sub", 14, {Tensor::from<float>({1, 2, 3}, {3}), Tensor::from<float>({1, 2}, {2})},
                       DType::F32, ExecutionMode::Fast);
            }),
            Kind::InvalidInput);
  EXPECT_EQ(error_kind([] {
              run_node("Relu", 14, {Tensor::from<uint8_t>({1}, {1})}, DType::U8, ExecutionMode::Fast);
            }),
            Kind::Unsupported);
}

// --- Cast

// A source element as an exact value: every stored type fits a long double exactly (64-bit significand).
struct Exact {
  bool nan = false;
  long double v = 0;
};

const DType kAllTypes[] = {DType::F32, DType::F64, DType::F16, DType::BF16, DType::I8,
                           DType::I16, DType::I32, DType::I64, DType::U8,   DType::U16,
                           DType::U32, DType::U64, DType::Bool};

bool is_float_type(DType t) {
  return t == DType::F32 || t == DType::F64 || t == DType::F16 || t == DType::BF16;
}

struct IntRange {
  long double lo, hi;
  int bits;
  bool is_signed;
};

IntRange int_range(DType t) {
  switch (t) {
    case DType::I8:
      return {-128.0L, 127.0L, 8, true};
    case DType::I16:
      return {-32768.0L, 32767.0L, 16, true};
    case DType::I32:
      return {-2147483648.0L, 2147483647.0L, 32, true};
    case DType::I64:
      return {-9223372036854775808.0L, 9223372036854775807.0L, 64, true};
    case DType::U8:
      return {0, 255.0L, 8, false};
    case DType::U16:
      return {0, 65535.0L, 16, false};
    case DType::U32:
      return {0, 4294967295.0L, 32, false};
    case DType::U64:
      return {0, 18446744073709551615.0L, 64, false};
    default:
      return {0, 1, 1, false};
  }
}

// Writes `values` (exactly representable in `t`, or NaN/inf for floats) as a tensor of type t. NaNs are
// written negative and with a payload, so exact mode's canonical NaN differs from what the hardware would
// carry over.
Tensor source_tensor(DType t, const std::vector<Exact>& values) {
  const int64_t n = static_cast<int64_t>(values.size());
  Tensor out(t, {n});
  auto* p = static_cast<std::byte*>(out.raw());
  for (size_t i = 0; i < values.size(); ++i) {
    const Exact& e = values[i];
    const long double v = e.nan ? std::nanl("") : e.v;
    switch (t) {
      case DType::F32: {
        const float f = e.nan ? __builtin_bit_cast(float, 0xFFC12345u) : static_cast<float>(v);
        std::memcpy(p + 4 * i, &f, 4);
        break;
      }
      case DType::F64: {
        const double d = e.nan ? __builtin_bit_cast(double, 0xFFF8123456789ABCull) : static_cast<double>(v);
        std::memcpy(p + 8 * i, &d, 8);
        break;
      }
      case DType::F16: {
        const uint16_t h = e.nan ? 0xFE21 : nearest_half(v);
        std::memcpy(p + 2 * i, &h, 2);
        break;
      }
      case DType::BF16: {
        const uint16_t b = e.nan ? 0xFFC5 : nearest_bf16(v);
        std::memcpy(p + 2 * i, &b, 2);
        break;
      }
      case DType::Bool: {
        const uint8_t b = v != 0;
        std::memcpy(p + i, &b, 1);
        break;
      }
      default: {
        const IntRange r = int_range(t);
        const uint64_t bits =
            r.is_signed ? static_cast<uint64_t>(static_cast<int64_t>(v)) : static_cast<uint64_t>(v);
        std::memcpy(p + static_cast<size_t>(r.bits / 8) * i, &bits,
                    static_cast<size_t>(r.bits / 8));  // little-endian
      }
    }
  }
  return out;
}

// Boundary values of each source type, all exactly representable in it.
std::vector<Exact> boundary_values(DType t) {
  std::vector<Exact> v;
  auto add = [&](long double x) { v.push_back({false, x}); };
  if (is_float_type(t)) {
    const long double two = 2.0L;
    for (long double x : {0.0L,
                          -0.0L,
                          0.5L,
                          -0.5L,
                          0.75L,
                          -0.99L,
                          1.0L,
                          1.5L,
                          -1.5L,
                          2.5L,
                          127.0L,
                          127.5L,
                          128.0L,
                          -128.0L,
                          -128.5L,
                          -129.0L,
                          255.0L,
                          255.75L,
                          256.0L,
                          300.0L,
                          -300.0L,
                          32767.0L,
                          32768.0L,
                          -32769.0L,
                          65504.0L,
                          65519.0L,
                          65520.0L,
                          65536.0L,
                          1e10L,
                          -1e10L,
                          std::pow(two, 31.0L),
                          -std::pow(two, 31.0L),
                          std::pow(two, 32.0L),
                          std::pow(two, 63.0L),
                          -std::pow(two, 63.0L),
                          std::pow(two, 64.0L),
                          1e30L,
                          -1e30L,
                          std::pow(two, -24.0L),
                          std::pow(two, -25.0L),
                          3.0L * std::pow(two, -26.0L),
                          std::pow(two, -130.0L),
                          1.0L / 3.0L,
                          16777217.0L,
                          std::numeric_limits<long double>::infinity(),
                          -std::numeric_limits<long double>::infinity()}) {
      // Keep what the source type holds exactly: its own rounding of x.
      long double held = x;
      if (t == DType::F32) held = static_cast<float>(x);
      if (t == DType::F64) held = static_cast<double>(x);
      if (t == DType::F16) held = half_value(nearest_half(x));
      if (t == DType::BF16) held = bf16_value(nearest_bf16(x));
      add(held);
    }
    if (t == DType::F64) {
      add(1e300L);
      add(1e-310L);
      add(1.0L + std::pow(two, -40.0L));                          // rounds in f32
      add(1.0L + std::pow(two, -11.0L) + std::pow(two, -40.0L));  // half tie once in f32: rounds twice to f16
      add(static_cast<double>(std::numeric_limits<float>::max()) * 1.5);
    }
    if (t == DType::F32) add(1e-40f);
    v.push_back({true, 0});
  } else if (t == DType::Bool) {
    add(0);
    add(1);
  } else {
    const IntRange r = int_range(t);
    for (long double x : {0.0L,
                          1.0L,
                          -1.0L,
                          2.0L,
                          44.0L,
                          127.0L,
                          128.0L,
                          -128.0L,
                          -129.0L,
                          255.0L,
                          256.0L,
                          300.0L,
                          -300.0L,
                          32767.0L,
                          32768.0L,
                          65535.0L,
                          65536.0L,
                          70000.0L,
                          2049.0L,
                          16777217.0L,
                          33554435.0L,
                          2147483647.0L,
                          2147483648.0L,
                          -2147483648.0L,
                          4294967295.0L,
                          4294967296.0L,
                          9007199254740993.0L,
                          9223372036854775807.0L,
                          -9223372036854775807.0L - 1.0L,
                          18446744073709551615.0L,
                          18446744073709551614.0L,
                          36028797018963971.0L,
                          -36028797018963971.0L}) {
      if (x >= r.lo && x <= r.hi) add(x);
    }
    add(r.lo);
    add(r.hi);
    // Integers at, just above and just below a bfloat16 (8-bit) rounding tie, with an even and an odd kept
    // part, at magnitudes below and above f32's 24 bits (where rounding through f32 first would round twice).
    for (int shift : {1, 10, 20, 40}) {
      for (long double kept : {254.0L, 255.0L}) {
        const long double tie = std::ldexp(kept, shift) + std::ldexp(1.0L, shift - 1);
        for (long double x : {tie, tie + 1.0L, tie - 1.0L}) {
          if (x >= r.lo && x <= r.hi) add(x);
          if (-x >= r.lo && -x <= r.hi) add(-x);
        }
      }
    }
  }
  return v;
}

// The spec's Cast rules, evaluated on exact values. Returns the expected element's bytes in `out`.
void cast_reference(const Exact& e, DType from, DType to, std::byte* out) {
  const bool from_float = is_float_type(from);
  switch (to) {
    case DType::Bool: {
      const uint8_t b = e.nan || e.v != 0;
      std::memcpy(out, &b, 1);
      return;
    }
    case DType::F64: {
      const double d = e.nan ? std::nan("") : static_cast<double>(e.v);  // integers: one rounding
      std::memcpy(out, &d, 8);
      return;
    }
    case DType::F32: {
      const float f = e.nan ? kNaN : static_cast<float>(e.v);  // one rounding from the exact value
      std::memcpy(out, &f, 4);
      return;
    }
    case DType::F16:
    case DType::BF16: {
      // Float sources go through f32 first (f64 rounds twice); integers round once.
      const long double x = from_float ? static_cast<long double>(static_cast<float>(e.v)) : e.v;
      const uint16_t h = e.nan              ? (to == DType::F16 ? 0x7E00 : 0x7FC0)
                         : to == DType::F16 ? nearest_half(x)
                                            : nearest_bf16(x);
      std::memcpy(out, &h, 2);
      return;
    }
    default: {
      const IntRange r = int_range(to);
      __int128 value;
      if (from_float) {
        // Truncate toward zero, saturate, NaN gives 0.
        const long double t = e.nan ? 0.0L : std::trunc(e.v);
        const long double clamped = std::min(std::max(t, r.lo), r.hi);
        value = clamped < 0 ? -static_cast<__int128>(static_cast<uint64_t>(-clamped))
                            : static_cast<__int128>(static_cast<uint64_t>(clamped));
      } else {
        value = e.v < 0 ? -static_cast<__int128>(static_cast<uint64_t>(-e.v))
                        : static_cast<__int128>(static_cast<uint64_t>(e.v));
      }
      // Integer targets wrap modulo 2^bits (saturated float values are already in range).
      const unsigned __int128 mask = (static_cast<unsigned __int128>(1) << r.bits) - 1;
      const uint64_t bits = static_cast<uint64_t>(static_cast<unsigned __int128>(value) & mask);
      std::memcpy(out, &bits, static_cast<size_t>(r.bits / 8));
    }
  }
}

bool is_nan_element(DType t, const std::byte* p) {
  switch (t) {
    case DType::F32: {
      float f;
      std::memcpy(&f, p, 4);
      return std::isnan(f);
    }
    case DType::F64: {
      double d;
      std::memcpy(&d, p, 8);
      return std::isnan(d);
    }
    case DType::F16: {
      uint16_t h;
      std::memcpy(&h, p, 2);
      return half_is_nan(h);
    }
    case DType::BF16: {
      uint16_t b;
      std::memcpy(&b, p, 2);
      return bf16_is_nan(b);
    }
    default:
      return false;
  }
}

TEST(ElementwiseOps, CastEveryPairOnBoundaryValues) {
  for (DType from : kAllTypes) {
    const std::vector<Exact> values = boundary_values(from);
    const Tensor source = source_tensor(from, values);
    for (DType to : kAllTypes) {
      for (ExecutionMode mode : kModes) {
        const Tensor y = run_node("Cast", 13, {source}, to, mode, {Attr::i("to", static_cast<int64_t>(to))});
        ASSERT_EQ(y.dtype(), to);
        ASSERT_EQ(y.size(), source.size());
        const size_t width = dtype_size(to);
        const auto* got = static_cast<const std::byte*>(y.raw());
        for (size_t i = 0; i < values.size(); ++i) {
          std::byte want[8];
          cast_reference(values[i], from, to, want);
          const std::string where =
              std::string(dtype_name(from)) + " -> " + std::string(dtype_name(to)) + " " + mode_name(mode) +
              " value " + std::to_string(static_cast<double>(values[i].v)) + (values[i].nan ? " (NaN)" : "");
          if (is_nan_element(to, want) && (mode == ExecutionMode::Fast || from == to)) {
            EXPECT_TRUE(is_nan_element(to, got + i * width)) << where;
          } else {
            // Exact-mode NaNs are canonical, which is what the reference writes.
            EXPECT_EQ(std::memcmp(got + i * width, want, width), 0) << where;
          }
        }
      }
    }
  }
}

TEST(ElementwiseOps, CastSpelledOutExamples) {
  // int32 300 -> uint8 44 and -1 -> 255 (ops-elementwise.md); float -> int truncates and saturates; NaN -> 0.
  const auto u8 = run_node("Cast", 13, {Tensor::from<int32_t>({300, -1}, {2})}, DType::U8,
                           ExecutionMode::Fast, {Attr::i("to", 2)})
                      .to_vector<uint8_t>();
  EXPECT_EQ(u8, (std::vector<uint8_t>{44, 255}));
  const auto i8 =
      run_node("Cast", 13, {Tensor::from<float>({-1.9f, 1.9f, 1000.0f, -1000.0f, kNaN, -kInf}, {6})},
               DType::I8, ExecutionMode::Fast, {Attr::i("to", 3)})
          .to_vector<int8_t>();
  EXPECT_EQ(i8, (std::vector<int8_t>{-1, 1, 127, -128, 0, -128}));
  const auto b = run_node("Cast", 13, {Tensor::from<float>({0.0f, -0.0f, kNaN, 1e-45f}, {4})}, DType::Bool,
                          ExecutionMode::Fast, {Attr::i("to", 9)})
                     .to_vector<bool>();
  EXPECT_EQ(b, (std::vector<bool>{false, false, true, true}));
  // Opset 19's `saturate` attribute is accepted (it only concerns float8).
  const auto f = run_node("Cast", 19, {Tensor::from<int64_t>({-3}, {1})}, DType::F32, ExecutionMode::Exact,
                          {Attr::i("to", 1), Attr::i("saturate", 0)})
                     .to_vector<float>();
  EXPECT_EQ(f, (std::vector<float>{-3.0f}));
  // Rank 0 and size 0.
  EXPECT_EQ(run_node("Cast", 13, {Tensor::from<double>({2.5}, {})}, DType::I32, ExecutionMode::Fast,
                     {Attr::i("to", 6)})
                .to_vector<int32_t>(),
            (std::vector<int32_t>{2}));
  EXPECT_EQ(
      run_node("Cast", 13, {Tensor(DType::F32, {0, 3})}, DType::F16, ExecutionMode::Fast, {Attr::i("to", 10)})
          .shape(),
      (std::vector<int64_t>{0, 3}));
}

TEST(ElementwiseOps, CastToTypesWeDoNotStore) {
  const Tensor x = Tensor::from<float>({1.0f}, {1});
  for (auto [code, name] :
       {std::pair<int, const char*>{17, "float8e4m3fn"}, {14, "complex64"}, {22, "int4"}}) {
    std::string message;
    EXPECT_EQ(
        error_kind([&] { run_node("Cast", 21, {x}, DType::F32, ExecutionMode::Fast, {Attr::i("to", code)}); },
                   &message),
        Kind::Unsupported)
        << name;
    EXPECT_NE(message.find(name), std::string::npos) << message;
  }
  EXPECT_EQ(error_kind([&] { run_node("Cast", 13, {x}, DType::F32, ExecutionMode::Fast); }),
            Kind::InvalidModel);
  EXPECT_EQ(
      error_kind([&] { run_node("Cast", 13, {x}, DType::F32, ExecutionMode::Fast, {Attr::i("to", 999)}); }),
      Kind::InvalidModel);
}

// --- ONNX backend node cases

TEST(ElementwiseOps, BackendNodeCases) {
  if (!std::filesystem::is_directory(backend_node_dir())) GTEST_SKIP() << "libonnx-testdata is not installed";
  // Excluded here and checked below: string casts, and the bfloat16 cases whose data ONNX 1.12 stored as
  // uint16.
  const int passed = check_backend_cases(
      {"test_add", "test_sub", "test_mul", "test_div", "test_relu", "test_exp", "test_log", "test_tanh",
       "test_sigmoid", "test_erf", "test_gelu", "test_cast", "test_castlike_"},
      {"test_logsoftmax", "test_expand", "test_cast_FLOAT_to_STRING", "test_cast_STRING_to_FLOAT",
       "test_castlike_FLOAT_to_STRING", "test_castlike_STRING_to_FLOAT", "test_cast_BFLOAT16",
       "test_cast_FLOAT_to_BFLOAT16", "test_castlike_BFLOAT16", "test_castlike_FLOAT_to_BFLOAT16"});
  // 25 arithmetic and transcendental cases, 6 Cast and 6 expanded CastLike (which is a Cast), in two modes.
  EXPECT_GE(passed, 2 * 37);
}

// ONNX 1.12 wrote bfloat16 test data as uint16 tensors of the same bits; read them back as bfloat16.
Tensor as_bf16(const Tensor& t) {
  if (t.dtype() != DType::U16) return t;
  Tensor out(DType::BF16, t.shape());
  if (t.byte_size() > 0) std::memcpy(out.raw(), t.raw(), t.byte_size());
  return out;
}

TEST(ElementwiseOps, BackendBfloat16Cases) {
  if (!std::filesystem::is_directory(backend_node_dir())) GTEST_SKIP() << "libonnx-testdata is not installed";
  // (The expanded CastLike variants are left out: their 'like' data has shape [1] where the model declares
  // [3, 4].)
  for (const char* name : {"test_cast_BFLOAT16_to_FLOAT", "test_cast_FLOAT_to_BFLOAT16"}) {
    const auto dir = backend_node_dir() / name / "test_data_set_0";
    for (ExecutionMode mode : kModes) {
      Session s = Session::load(backend_node_dir() / name / "model.onnx", options(mode));
      std::vector<NamedTensor> feeds;
      for (size_t i = 0; i < s.inputs().size(); ++i) {
        Tensor t = load_pb(dir / ("input_" + std::to_string(i) + ".pb"));
        if (s.inputs()[i].dtype == DType::BF16) t = as_bf16(t);
        feeds.push_back({s.inputs()[i].name, t});
      }
      const Tensor got = s.run(feeds).at(0);
      const Tensor want = as_bf16(load_pb(dir / "output_0.pb"));
      if (got.dtype() == DType::F32) {
        EXPECT_EQ(tolerance_difference(got, want), "") << name;
        continue;
      }
      // ONNX 1.12 truncated float to bfloat16; the library rounds to nearest even (tensors.md §10). Each
      // element is the rounded input, and the expected data is the truncated input.
      ASSERT_EQ(got.dtype(), DType::BF16);
      const auto x = load_pb(dir / "input_0.pb").to_vector<float>();
      const auto g = elements_of<uint16_t>(got), w = elements_of<uint16_t>(want);
      for (size_t i = 0; i < x.size(); ++i) {
        EXPECT_EQ(w[i], bits_of(x[i]) >> 16) << name << " expected data is truncated";
        if (std::isnan(x[i])) {
          EXPECT_TRUE(bf16_is_nan(g[i])) << name;
        } else {
          EXPECT_EQ(g[i], nearest_bf16(x[i])) << name << " element " << i;
        }
      }
    }
  }
}

TEST(ElementwiseOps, BackendStringCasts) {
  if (!std::filesystem::is_directory(backend_node_dir())) GTEST_SKIP() << "libonnx-testdata is not installed";
  for (const char* name : {"test_cast_FLOAT_to_STRING", "test_cast_STRING_to_FLOAT",
                           "test_castlike_FLOAT_to_STRING", "test_castlike_STRING_to_FLOAT_expanded"}) {
    for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact})
      EXPECT_EQ(run_backend_case(backend_node_dir() / name, mode), "") << name;
  }
}

}  // namespace
}  // namespace onemodel::test
