// Models stored in half precision (fp16.md): binary16 Add, Sub, Mul and Div are correctly rounded binary16
// operations (checked against double arithmetic rounded by a model of round-to-nearest-even); in exact mode
// other nodes widen, compute in binary32 and round, which equals the same graph in float32 with a Cast to the
// storage type and back around every node; fast mode keeps binary32 between nodes and equals the float32
// graph; outputs keep the declared half types; exact mode gives the same bits at any thread count.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <random>
#include <string>

#include "../ops/op_test_util.h"
#include "core/half.h"

namespace onemodel::test {
namespace {

// Round-to-nearest-even of a double to a format with `mant` significand bits after the point, minimum normal
// exponent `emin` and largest finite `max`.
double round_to(double x, int mant, int emin, double max) {
  const double a = std::fabs(x);
  if (a == 0 || std::isinf(a)) return x;
  const int e = std::max(std::ilogb(a), emin);
  const double unit = std::ldexp(1.0, e - mant);
  double q = std::nearbyint(a / unit) * unit;
  if (q > max) q = INFINITY;
  return std::signbit(x) ? -q : q;
}

// binary16 patterns: every sign, a spread of exponents, subnormals, zeros, infinities, a NaN.
std::vector<uint16_t> operands(size_t n, uint32_t seed) {
  std::vector<uint16_t> v = {0x0000, 0x8000, 0x0001, 0x03FF, 0x0400, 0x7BFF,
                             0xFBFF, 0x3C00, 0x7C00, 0xFC00, 0x7E00};
  std::mt19937 rng(seed);
  while (v.size() < n) v.push_back(static_cast<uint16_t>(rng()));
  return v;
}

Tensor half_tensor(DType dtype, const std::vector<uint16_t>& bits) {
  Tensor t(dtype, {static_cast<int64_t>(bits.size())});
  std::memcpy(t.raw(), bits.data(), bits.size() * 2);
  return t;
}

TEST(HalfModel, BinaryArithmeticIsCorrectlyRounded) {
  constexpr size_t kN = 20000;
  const std::vector<uint16_t> a = operands(kN, 1), b = operands(kN, 2);
  const char* ops[] = {"Add", "Sub", "Mul", "Div"};
  for (DType dtype : {DType::F16, DType::BF16}) {
    for (int op = 0; op < 4; ++op) {
      ModelBuilder m(17);
      m.input("a", dtype, {static_cast<int64_t>(kN)}).input("b", dtype, {static_cast<int64_t>(kN)});
      m.node(ops[op], {"a", "b"}, {"y"}).output("y", dtype);
      for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
        Session s = m.session(options(mode));
        ASSERT_EQ(s.outputs()[0].dtype, dtype);
        const Tensor y = s.run({{"a", half_tensor(dtype, a)}, {"b", half_tensor(dtype, b)}})[0];
        ASSERT_EQ(y.dtype(), dtype);
        const auto* got = static_cast<const uint16_t*>(y.raw());
        for (size_t i = 0; i < kN; ++i) {
          const bool f16 = dtype == DType::F16;
          const double x = f16 ? half_to_float(a[i]) : bfloat16_to_float(a[i]);
          const double z = f16 ? half_to_float(b[i]) : bfloat16_to_float(b[i]);
          const double exact = op == 0 ? x + z : op == 1 ? x - z : op == 2 ? x * z : x / z;
          const float g = f16 ? half_to_float(got[i]) : bfloat16_to_float(got[i]);
          if (std::isnan(exact)) {
            ASSERT_TRUE(std::isnan(g)) << ops[op] << " " << i;
            continue;
          }
          const double want = f16 ? round_to(exact, 10, -14, 65504.0) : round_to(exact, 7, -126, 0x1.FEp127);
          ASSERT_EQ(static_cast<double>(g), want) << ops[op] << " " << x << " " << z;
          ASSERT_EQ(std::signbit(g), std::signbit(want)) << ops[op] << " " << x << " " << z;
        }
      }
    }
  }
}

Tensor random_half(DType dtype, std::vector<int64_t> shape, uint32_t seed) {
  Tensor t(dtype, shape);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  auto* p = static_cast<uint16_t*>(t.raw());
  for (int64_t i = 0; i < t.size(); ++i)
    p[i] = dtype == DType::F16 ? float_to_half(u(rng)) : float_to_bfloat16(u(rng));
  return t;
}

Tensor widened(const Tensor& t) {
  Tensor r(DType::F32, t.shape());
  const auto* p = static_cast<const uint16_t*>(t.raw());
  for (int64_t i = 0; i < t.size(); ++i)
    r.data<float>()[static_cast<size_t>(i)] =
        t.dtype() == DType::F16 ? half_to_float(p[i]) : bfloat16_to_float(p[i]);
  return r;
}

Tensor narrowed(const Tensor& t, DType dtype) {
  Tensor r(dtype, t.shape());
  auto* p = static_cast<uint16_t*>(r.raw());
  for (int64_t i = 0; i < t.size(); ++i) {
    const float v = t.data<float>()[static_cast<size_t>(i)];
    p[i] = dtype == DType::F16 ? float_to_half(v) : float_to_bfloat16(v);
  }
  return r;
}

// A conv network stored in `dtype` (weights included). Exact mode: the same network in float32 whose every
// node is followed by a Cast to `dtype` and back (the adapter's meaning), fed through a Cast of its input.
// Fast mode: the float32 network on the widened input, its output rounded once.
TEST(HalfModel, ExactRoundsBetweenNodesFastKeepsBinary32) {
  for (DType dtype : {DType::F16, DType::BF16}) {
    const Tensor w = random_half(dtype, {6, 3, 3, 3}, 1), bias = random_half(dtype, {6}, 2);
    const Tensor m2 = random_half(dtype, {5, 7}, 3), scale = random_half(dtype, {1}, 4);
    ModelBuilder half(17);
    half.input("x", dtype, {2, 3, 7, 7}).initializer("w", w).initializer("bias", bias);
    half.initializer("m2", m2).initializer("scale", scale);
    half.node("Conv", {"x", "w", "bias"}, {"c"}, {Attr::ints("pads", {0, 0, 0, 0})});
    half.node("Sigmoid", {"c"}, {"s"}).node("Mul", {"s", "scale"}, {"t"});
    half.node("MatMul", {"t", "m2"}, {"mm"}).node("Softmax", {"mm"}, {"y"}, {Attr::i("axis", -1)});
    half.output("y", dtype);

    ModelBuilder rounded(17);
    const int64_t code = static_cast<int64_t>(dtype);
    rounded.input("x", dtype, {2, 3, 7, 7}).initializer("w", widened(w)).initializer("bias", widened(bias));
    rounded.initializer("m2", widened(m2)).initializer("scale", widened(scale));
    rounded.node("Cast", {"x"}, {"x32"}, {Attr::i("to", 1)});
    auto step = [&](const char* op, std::initializer_list<std::string_view> in, std::string out,
                    std::vector<Attr> attrs) {
      rounded.node(op, in, {out + "_f"}, attrs);
      rounded.node("Cast", {out + "_f"}, {out + "_h"}, {Attr::i("to", code)});
      rounded.node("Cast", {out + "_h"}, {out}, {Attr::i("to", 1)});
    };
    step("Conv", {"x32", "w", "bias"}, "c", {Attr::ints("pads", {0, 0, 0, 0})});
    step("Sigmoid", {"c"}, "s", {});
    step("Mul", {"s", "scale"}, "t", {});
    step("MatMul", {"t", "m2"}, "mm", {});
    rounded.node("Softmax", {"mm"}, {"y32"}, {Attr::i("axis", -1)});
    rounded.node("Cast", {"y32"}, {"y"}, {Attr::i("to", code)});
    rounded.output("y", dtype);

    ModelBuilder wide(17);
    wide.input("x", DType::F32, {2, 3, 7, 7}).initializer("w", widened(w)).initializer("bias", widened(bias));
    wide.initializer("m2", widened(m2)).initializer("scale", widened(scale));
    wide.node("Conv", {"x", "w", "bias"}, {"c"}, {Attr::ints("pads", {0, 0, 0, 0})});
    wide.node("Sigmoid", {"c"}, {"s"}).node("Mul", {"s", "scale"}, {"t"});
    wide.node("MatMul", {"t", "m2"}, {"mm"}).node("Softmax", {"mm"}, {"y"}, {Attr::i("axis", -1)});
    wide.output("y", DType::F32);

    const Tensor x = random_half(dtype, {2, 3, 7, 7}, 5);
    const Tensor want_exact = rounded.run({{"x", x}}, options(ExecutionMode::Exact, {}, 1))[0];
    const Tensor want_fast =
        narrowed(wide.run({{"x", widened(x)}}, options(ExecutionMode::Fast, {}, 1))[0], dtype);
    EXPECT_FALSE(same_bytes(want_exact, want_fast)) << "the two meanings should differ on this network";
    for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
      for (int threads : {1, 2}) {
        Session s = half.session(options(mode, {}, threads));
        EXPECT_EQ(s.outputs()[0].dtype, dtype);
        const Tensor got = s.run({{"x", x}})[0];
        EXPECT_TRUE(same_bytes(got, mode == ExecutionMode::Exact ? want_exact : want_fast))
            << "dtype " << code << " mode " << static_cast<int>(mode) << " threads " << threads;
      }
    }
  }
}

// Fast mode still stores a value as the graph declares it where its type can be seen: a graph output reached
// through a view, and the target of a CastLike; and a Cast to binary16 read by another Cast still rounds.
// Values nobody sees, and a Cast to binary16 that only wrapped nodes read, stay binary32: x * 1/3 is not
// representable, so the rounding shows.
TEST(HalfModel, FastModeRoundsWhereTheTypeIsObservable) {
  ModelBuilder m(17);
  m.input("x", DType::F32, {2, 3}).initializer("third", Tensor::from(std::vector<float>{1.0f / 3.0f}, {1}));
  m.initializer("shape", Tensor::from(std::vector<int64_t>{6}, {1}));
  m.node("Cast", {"x"}, {"xh"}, {Attr::i("to", 10)});  // binary16, nobody sees it
  m.node("Mul", {"xh", "third"}, {"p"});               // kept binary32
  m.node("Cast", {"p"}, {"ph"}, {Attr::i("to", 10)});  // kept binary32
  m.node("Relu", {"ph"}, {"r"});                       // read through a view by an output
  m.node("Reshape", {"r", "shape"}, {"flat"});
  m.node("CastLike", {"x", "ph"}, {"like"});  // its target is observable
  m.node("Cast", {"p"}, {"p32"}, {Attr::i("to", 1)});
  m.node("Cast", {"p"}, {"q16"}, {Attr::i("to", 10)}).node("Cast", {"q16"}, {"q32"}, {Attr::i("to", 1)});
  m.output("flat", DType::F16).output("like", DType::F16).output("p32", DType::F32).output("q32", DType::F32);
  const Tensor x = Tensor::from(std::vector<float>{1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 7.0f}, {2, 3});
  const std::vector<Tensor> got = m.run({{"x", x}}, options(ExecutionMode::Fast, {}, 1));
  ASSERT_EQ(got[0].dtype(), DType::F16);
  ASSERT_EQ(got[1].dtype(), DType::F16);
  ASSERT_EQ(got[2].dtype(), DType::F32);
  for (size_t i = 0; i < 6; ++i) {
    const float xi = x.data<float>()[i];
    const float product = xi * (1.0f / 3.0f);  // xi is exact in binary16
    EXPECT_EQ(got[2].data<float>()[i], product) << i;
    EXPECT_EQ(got[3].data<float>()[i], half_to_float(float_to_half(product))) << i;
    EXPECT_EQ(static_cast<const uint16_t*>(got[0].raw())[i], float_to_half(product)) << i;
    EXPECT_EQ(static_cast<const uint16_t*>(got[1].raw())[i], float_to_half(xi)) << i;
  }
  const std::vector<Tensor> exact = m.run({{"x", x}}, options(ExecutionMode::Exact, {}, 1));
  EXPECT_EQ(exact[2].data<float>()[0], half_to_float(float_to_half(1.0f / 3.0f)));
}

// Exact mode: the same bits on every kernel path.
TEST(HalfModel, ExactModeIsTheSameOnEveryPath) {
  const Tensor w = random_half(DType::F16, {64, 40}, 7);
  ModelBuilder m(17);
  m.input("x", DType::F16, {33, 64}).initializer("w", w);
  m.node("MatMul", {"x", "w"}, {"p"}).node("Tanh", {"p"}, {"q"}).node("Add", {"q", "p"}, {"y"});
  m.output("y", DType::F16);
  const Tensor x = random_half(DType::F16, {33, 64}, 8);
  const Tensor first = m.run({{"x", x}}, options(ExecutionMode::Exact, "scalar", 1))[0];
  for (const std::string& path : kernel_paths()) {
    for (int threads : {1, 2}) {
      const Tensor got = m.run({{"x", x}}, options(ExecutionMode::Exact, path, threads))[0];
      EXPECT_TRUE(same_bytes(got, first)) << path << " threads " << threads;
    }
  }
}

// The binary32 copies the adapter makes for one node (in exact mode) are step scratch: a long chain of half
// nodes needs one node's copies, not the sum over the chain (48 Relu nodes on 2^20 binary16 values would hold
// 384 MiB of them). The result is checked against Relu on the binary16 values themselves.
TEST(HalfModel, AdapterCopiesAreFreedAfterEachNode) {
  constexpr int64_t kCount = int64_t{1} << 20;
  constexpr int kNodes = 48;
  auto name = [](int i) { return std::string("v").append(std::to_string(i)); };
  ModelBuilder m(17);
  m.input(name(0), DType::F16, {kCount});
  for (int i = 0; i < kNodes; ++i) m.node("Relu", {name(i)}, {name(i + 1)});
  m.output(name(kNodes), DType::F16);
  Tensor x(DType::F16, {kCount});
  auto* xv = static_cast<uint16_t*>(x.raw());
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  for (int64_t i = 0; i < kCount; ++i) xv[i] = float_to_half(dist(rng));
  auto resident_kib = [] {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);) {
      if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
    }
    ADD_FAILURE() << "no VmRSS in /proc/self/status";
    return 0L;
  };
  Session s = m.session(options(ExecutionMode::Exact, "", 1));  // fast mode makes no copies between Relus
  const long before = resident_kib();
  const Tensor y = s.run({{name(0), x}})[0];
  // The run state (slab and scratch) stays pooled in the session, so its memory is still resident here.
  EXPECT_LT(resident_kib() - before, 64L * 1024) << "KiB gained by one run";
  ASSERT_EQ(y.dtype(), DType::F16);
  const auto* yv = static_cast<const uint16_t*>(y.raw());
  for (int64_t i = 0; i < kCount; ++i) {
    const uint16_t want = half_to_float(xv[i]) > 0.0f ? xv[i] : uint16_t{0};
    ASSERT_EQ(yv[i], want) << "element " << i;
  }
}

}  // namespace
}  // namespace onemodel::test
