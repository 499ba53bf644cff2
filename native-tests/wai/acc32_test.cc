// The acc32 fast path (docs/wai-ops.md): conv graphs certified for acc32, run on every kernel path this build
// and CPU have, give exactly the acc64 interpreter's integers (which tools/wai/reference.py's vectors check),
// including inputs at the ends of their ranges that drive the int32 sums to within a few units of 2^31.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "kernels/kernel_table.h"
#include "onemodel/wai.h"
#include "wai/acc32.h"
#include "wai/certify.h"
#include "wai/eval.h"
#include "wai/model.h"

namespace onemodel::wai {
namespace {

struct ConvCase {
  const char* name;
  uint32_t cin, cout, groups, kh, kw, sh, sw, ph, pw;
  int64_t H, W;
  int64_t lo, hi;  // the input's check range
  int64_t w_abs;   // weights in [-w_abs, w_abs]; channel 0 all +w_abs, channel 1 all -w_abs
  int64_t pre_bias;
  Round round;
  int64_t mult;
  uint8_t shift;
  int64_t post_bias;  // used when pre_bias is 0
};

Model conv_model(const ConvCase& c, uint64_t seed) {
  Model m;
  m.tensors.push_back({c.cin, kNoExponent, Policy::Check, c.lo, c.hi});
  m.inputs.push_back({0, uint32_t(c.H), uint32_t(c.W), InputKind::Data, 0, 0});
  m.sizes_declared = true;
  m.tensors.push_back({c.cout, kNoExponent, Policy::Derived, 0, 0});
  Node n{.op = Op::Conv};
  n.cout = c.cout, n.kh = c.kh, n.kw = c.kw, n.sh = c.sh, n.sw = c.sw, n.ph = c.ph, n.pw = c.pw;
  n.groups = c.groups, n.w_bytes = 4;
  const size_t taps = size_t(c.cin / c.groups) * c.kh * c.kw;
  std::mt19937_64 rng(seed);
  for (size_t o = 0; o < c.cout; ++o)
    for (size_t k = 0; k < taps; ++k)
      n.weights.push_back(o == 0   ? c.w_abs
                          : o == 1 ? -c.w_abs
                                   : int64_t(rng() % uint64_t(2 * c.w_abs + 1)) - c.w_abs);
  n.rq.round = c.round, n.rq.m_bytes = 4, n.rq.b_bytes = 4;
  n.rq.mult = {c.mult}, n.rq.shift = {c.shift};
  if (c.pre_bias != 0 || c.post_bias != 0) {
    n.rq.bias_place = c.pre_bias != 0 ? 1 : 2;
    for (size_t o = 0; o < c.cout; ++o) n.rq.bias.push_back(c.pre_bias != 0 ? c.pre_bias : c.post_bias);
  }
  n.in = {0}, n.out = {1};
  m.nodes.push_back(n);
  m.outputs = {1};
  return m;
}

SessionOptions on_path(const std::string& path) {
  SessionOptions o;
  o.kernel_path = path;
  o.threads = 2;
  return o;
}
SessionOptions interpreter_only() {
  SessionOptions o;
  o.acc32_fast_path = false;
  return o;
}

// Inputs at both ends, alternating ends, and uniform values in range.
std::vector<IntTensor> inputs_for(const ConvCase& c) {
  const size_t n = size_t(c.cin * c.H * c.W);
  std::vector<IntTensor> out(4, IntTensor{{c.cin, c.H, c.W}, std::vector<int64_t>(n)});
  std::mt19937_64 rng(7);
  for (size_t i = 0; i < n; ++i) {
    out[0].data[i] = c.hi;
    out[1].data[i] = c.lo;
    out[2].data[i] = (i / 3) % 2 ? c.hi : c.lo;
    out[3].data[i] = c.lo + int64_t(rng() % uint64_t(c.hi - c.lo + 1));
  }
  return out;
}

const ConvCase kCases[] = {
    // 288 taps of +-227 over [-32768, 32767] with a pre bias of 5e6: conv.acc reaches 2147240768 < 2^31 - 1.
    {"dense3x3",      32,   4,  1, 3, 3, 1, 1, 1, 1, 5, 37, -32768, 32767, 227, 5000000,
     Round::HalfEven, 1000, 10, 0},
    {"grouped_strided", 6, 4, 2, 2, 3, 2, 3, 1, 0, 9, 17, -1000, 1000, 30000, 0, Round::HalfUp, -3, 2, 77},
    {"depthwise5x5", 8, 8, 8, 5, 5, 1, 1, 2, 2, 7, 70, -128, 127, 600000, -9, Round::Floor, 1, 3, 0},
    {"pointwise_w1", 3, 5, 1, 1, 1, 1, 1, 0, 0, 4, 1, -7, 9, 100000, 0, Round::HalfUp, 1, 31, -5},
    {"wide_row", 2, 2, 1, 3, 1, 1, 1, 1, 0, 3, 131, -2147, 2147, 150000, 11, Round::HalfEven, 1, 1, 0},
};

TEST(WaiAcc32, EveryPathEqualsTheAcc64Interpreter) {
  const std::vector<const KernelTable*> tables = available_kernel_tables();
  ASSERT_FALSE(tables.empty());
  for (const ConvCase& c : kCases) {
    SCOPED_TRACE(c.name);
    const Model model = conv_model(c, 11);
    const std::vector<uint8_t> bytes = write_whg1(model);
    const Graph g = Graph::load(bytes, Profile::Acc32);  // the certificate meets acc32
    const Node& n = g.model().nodes[0];
    const Bounds& bounds = g.certified().bounds;
    ASSERT_TRUE(acc32_eligible(n, bounds.nodes[0], bounds.tensors[0]));
    const IntSession reference(g, interpreter_only());
    for (const IntTensor& x : inputs_for(c)) {
      State s0;
      const RunResult want = reference.run({&x, 1}, {}, s0);
      ASSERT_TRUE(want.ok()) << want.message;
      for (const KernelTable* t : tables) {
        SCOPED_TRACE(std::string(t->name));
        // The kernel directly, against the interpreter's node evaluation.
        IntTensor got = want.outputs[0];
        std::fill(got.data.begin(), got.data.end(), 0);
        conv_acc32(*t, ThreadContext{2}, n, x, got);
        EXPECT_EQ(got.data, want.outputs[0].data);
        // And through a session on that path.
        State s1;
        const RunResult fast = IntSession(g, on_path(std::string(t->name))).run({&x, 1}, {}, s1);
        ASSERT_TRUE(fast.ok()) << fast.message;
        EXPECT_EQ(fast.outputs[0].data, want.outputs[0].data);
      }
    }
  }
}

TEST(WaiAcc32, TheDenseCaseReachesTheEdgeOfInt32) {
  // Guards the test above: with every input at 32767 the first channel's sum is 5e6 + 288 * 227 * 32767 =
  // 2147175392, within 2^22 of 2^31 - 1; its product with the multiplier must be formed in 64 bits.
  const ConvCase& c = kCases[0];
  const int64_t sum = c.pre_bias + 288 * c.w_abs * c.hi;
  EXPECT_EQ(sum, 2147175392);
  EXPECT_GT(sum, INT32_MAX - (int64_t(1) << 22));
}

TEST(WaiAcc32, IneligibleNodesTakeTheInterpreter) {
  // The same conv with an input range past i32 fails acc32, so it is not eligible.
  ConvCase c = kCases[3];
  c.lo = -(int64_t(1) << 40), c.hi = int64_t(1) << 40;
  const Model model = conv_model(c, 3);
  const std::vector<uint8_t> bytes = write_whg1(model);
  const Graph g = Graph::load(bytes, Profile::Acc64);
  EXPECT_FALSE(g.certify().acc32);
  const Bounds& bounds = g.certified().bounds;
  EXPECT_FALSE(acc32_eligible(g.model().nodes[0], bounds.nodes[0], bounds.tensors[0]));
  IntTensor x{{3, 4, 1}, std::vector<int64_t>(12, c.hi)};
  State s0, s1;
  const RunResult a = IntSession(g).run({&x, 1}, {}, s0);
  const RunResult b = IntSession(g, interpreter_only()).run({&x, 1}, {}, s1);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a.outputs[0].data, b.outputs[0].data);
  EXPECT_THROW(IntSession(g, on_path("nope")).run({&x, 1}, {}, s0), std::invalid_argument);
}

}  // namespace
}  // namespace onemodel::wai
