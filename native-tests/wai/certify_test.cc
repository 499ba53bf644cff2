// The bounds certifier (wai-ops/1 §8): certificates of small graphs checked byte for byte against intervals
// worked out by hand from §8.3 in the comments below; every vector graph's certificate against the
// independent Python certifier (tools/wai/bounds.py); the refusals of load check 8; and the debug mode that
// checks every intermediate of a run against its certified interval, over every vector.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>
#include <vector>

#include "onemodel/wai.h"
#include "tools/cli/wai_vector_json.h"
#include "wai/certificate_rows.h"
#include "wai/certify.h"
#include "wai/model.h"

namespace onemodel::wai {
namespace {

using nlohmann::json;

// A graph with one input tensor 0 of `channels` channels, checked against [lo, hi], declared 2x3.
Model one_input(uint32_t channels, int64_t lo, int64_t hi) {
  Model m;
  m.tensors.push_back({channels, kNoExponent, Policy::Check, lo, hi});
  m.inputs.push_back({0, 2, 3, InputKind::Data, 0, 0});
  m.sizes_declared = true;
  return m;
}

// Appends node `n` reading `in` and writing a new derived tensor of `channels` channels; returns the tensor.
uint32_t add_node(Model& m, Node n, std::vector<uint32_t> in, uint32_t channels,
                  Policy policy = Policy::Derived, int64_t lo = 0, int64_t hi = 0) {
  m.tensors.push_back({channels, kNoExponent, policy, lo, hi});
  const uint32_t out = uint32_t(m.tensors.size() - 1);
  n.in = std::move(in);
  n.out = {out};
  m.nodes.push_back(std::move(n));
  return out;
}

Graph load(const Model& m, Profile profile = Profile::None) {
  const std::vector<uint8_t> bytes = write_whg1(m);
  return Graph::load(bytes, profile);
}

// The certificate's bytes with the graph digest replaced by "H" (the digest is tested separately).
std::string without_digest(std::string bytes) {
  const std::string key = "\"graph_sha256\":\"";
  const size_t at = bytes.find(key);
  EXPECT_NE(at, std::string::npos);
  bytes.replace(at + key.size(), 64, "H");
  return bytes;
}

const char* kInput2x3 =
    "\"inputs\":[{\"hi\":\"5\",\"kind\":\"data\",\"lo\":\"-3\",\"max_h\":\"2\",\"max_w\":\"3\",\"policy\":"
    "\"check\",\"tensor\":\"0\"}]";

TEST(WaiCertify, ReluCertificateByteForByte) {
  // relu on [-3, 5]: [max(-3, 0), max(5, 0)] = [0, 5], bits([0, 5]) = 4 (5 < 2^3). No intermediates, fits
  // both profiles, in the accelerator subset with no flags.
  Model m = one_input(1, -3, 5);
  m.outputs = {add_node(m, Node{.op = Op::Relu}, {0}, 1)};
  const Graph g = load(m);
  const std::string want =
      std::string(
          "{\"capability\":null,\"certificate\":\"wai-ops/1 bounds\",\"graphs\":[{\"graph_sha256\":\"H\",") +
      kInput2x3 +
      ",\"name\":null,\"nodes\":[{\"acc32_params\":[],\"fits\":[\"acc32\",\"acc64\"],\"index\":\"0\","
      "\"intermediates\":{},\"npu_flags\":[],\"op\":\"relu\",\"out\":[{\"bits\":\"4\",\"hi\":\"5\",\"lo\":"
      "\"0\","
      "\"policy\":\"derived\",\"result\":{\"bits\":\"4\",\"hi\":\"5\",\"lo\":\"0\"},\"tensor\":\"1\"}],"
      "\"saturated\":false}],\"scalars\":[]}],\"lowering\":\"whg1\",\"set_sha256\":null,\"verdict\":{"
      "\"acc32\":"
      "true,\"acc64\":true,\"npu\":true,\"npu_flags\":[],\"npu_reasons\":[]}}";
  EXPECT_EQ(without_digest(g.certify().bytes), want);
  EXPECT_TRUE(g.certify().acc32 && g.certify().acc64 && g.certify().npu);
}

TEST(WaiCertify, ConvCertificateByteForByte) {
  // conv 1 -> 1 channel, 1x2 kernel, weights {2, -3}, pre bias 4, mult 5, shift 1, half_up, input [-3, 5].
  //   conv.term: hull of 2*[-3,5] = [-6, 10] and -3*[-3,5] = [-15, 9] -> [-15, 10], bits 5.
  //   conv.acc = A(K, 4) = [min(0,4) + min(0,-6) + min(0,-15), max(0,4) + max(0,10) + max(0,9)] = [-21, 23],
  //   bits 6. rq.t = [-21, 23]; P = [-105, 115]; a = 2^0 = 1 -> rq.p = [-105, 116], bits 8. rq.q =
  //   [R_half_up(-105, 1), R_half_up(115, 1)] = [floor(-104/2), floor(116/2)] = [-52, 58], bits 7. rq.y =
  //   rq.q (no post bias). k_c = floor((2^31 - 1) / 15) = 143165576. mac: a_bits = bits([-3, 5]) = 4; w_bits
  //   = bits([-3, 2]) = 3. Flags: none (half_up, one positive mult, shift 1, pre bias). groups 1: no npu
  //   reason.
  Model m = one_input(1, -3, 5);
  Node n{.op = Op::Conv};
  n.cout = 1, n.kh = 1, n.kw = 2, n.sh = 1, n.sw = 1, n.groups = 1, n.w_bytes = 1;
  n.weights = {2, -3};
  n.rq.round = Round::HalfUp, n.rq.bias_place = 1, n.rq.m_bytes = 4, n.rq.b_bytes = 4;
  n.rq.mult = {5}, n.rq.shift = {1}, n.rq.bias = {4};
  m.outputs = {add_node(m, n, {0}, 1)};
  const Graph g = load(m);
  const std::string want =
      std::string(
          "{\"capability\":null,\"certificate\":\"wai-ops/1 bounds\",\"graphs\":[{\"graph_sha256\":\"H\",") +
      kInput2x3 +
      ",\"name\":null,\"nodes\":[{\"acc32_params\":[],\"fits\":[\"acc32\",\"acc64\"],\"index\":\"0\","
      "\"intermediates\":{\"conv.acc\":{\"bits\":\"6\",\"hi\":\"23\",\"lo\":\"-21\"},\"conv.term\":{\"bits\":"
      "\"5\","
      "\"hi\":\"10\",\"lo\":\"-15\"},\"rq.p\":{\"bits\":\"8\",\"hi\":\"116\",\"lo\":\"-105\"},\"rq.q\":{"
      "\"bits\":"
      "\"7\",\"hi\":\"58\",\"lo\":\"-52\"},\"rq.t\":{\"bits\":\"6\",\"hi\":\"23\",\"lo\":\"-21\"},\"rq.y\":{"
      "\"bits\":"
      "\"7\",\"hi\":\"58\",\"lo\":\"-52\"}},\"k_c\":\"143165576\",\"mac\":{\"a_bits\":[\"4\"],\"w_bits\":"
      "\"3\"},"
      "\"npu_flags\":[],\"op\":\"conv\",\"out\":[{\"bits\":\"7\",\"hi\":\"58\",\"lo\":\"-52\",\"policy\":"
      "\"derived\",\"result\":{\"bits\":\"7\",\"hi\":\"58\",\"lo\":\"-52\"},\"tensor\":\"1\"}],\"saturated\":"
      "false}],"
      "\"scalars\":[]}],\"lowering\":\"whg1\",\"set_sha256\":null,\"verdict\":{\"acc32\":true,\"acc64\":true,"
      "\"npu\":true,\"npu_flags\":[],\"npu_reasons\":[]}}";
  EXPECT_EQ(without_digest(g.certify().bytes), want);
}

TEST(WaiCertify, FailuresAndFirstFailureRule) {
  // add of [-2^62, 2^62] with itself: [-2^63, 2^63] -> bits 65 > 64: fails acc64 at out.0 with bits 65, and
  // acc32 first at input 0 ("range", bits 64: -2^62 needs 63 bits, 2^62 needs 64).
  Model m = one_input(1, -(int64_t(1) << 62), int64_t(1) << 62);
  m.outputs = {add_node(m, Node{.op = Op::Add}, {0, 0}, 1)};
  const Graph g = load(m);
  const Certificate& c = g.certify();
  EXPECT_FALSE(c.acc64);
  ASSERT_TRUE(c.acc64_failure.has_value());
  EXPECT_EQ(c.acc64_failure->where, "node");
  EXPECT_EQ(c.acc64_failure->key, "out.0");
  EXPECT_EQ(c.acc64_failure->bits, 65);
  ASSERT_TRUE(c.acc32_failure.has_value());
  EXPECT_EQ(c.acc32_failure->where, "input");
  EXPECT_EQ(c.acc32_failure->key, "range");
  EXPECT_EQ(c.acc32_failure->bits, 64);
  EXPECT_NE(c.bytes.find("\"acc64_first_failure\":{\"bits\":\"65\",\"graph\":null,\"index\":\"0\",\"key\":"
                         "\"out.0\",\"where\":\"node\"}"),
            std::string::npos);
  EXPECT_EQ(c.npu_reasons, std::vector<std::string>{"acc32"});
  // Loaded against acc64 it is refused at step 8.
  try {
    load(m, Profile::Acc64);
    ADD_FAILURE() << "loaded";
  } catch (const RefusalError& e) {
    EXPECT_EQ(e.code(), Refusal::ModelMismatch);
    EXPECT_EQ(e.load_step(), 8);
  }
}

TEST(WaiCertify, Acc32ParameterAndPolicyFailures) {
  // leaky with a = 2^31 on [-1, 1]: leaky.p = [-2^31, -2^31] fits i32 and so does everything else, so the
  // acc32 failure is the parameter condition "leaky.a", without bits.
  Model m = one_input(1, -1, 1);
  Node n{.op = Op::Leaky};
  n.a = int64_t(1) << 31;
  m.outputs = {add_node(m, n, {0}, 1)};
  Certificate c = load(m).certify();
  EXPECT_TRUE(c.acc64);
  ASSERT_TRUE(c.acc32_failure.has_value());
  EXPECT_EQ(c.acc32_failure->key, "leaky.a");
  EXPECT_EQ(c.acc32_failure->bits, 0);
  // A check policy inside the graph: "policy.check", and acc32 loads refuse it.
  Model p = one_input(1, -1, 1);
  p.outputs = {add_node(p, Node{.op = Op::Relu}, {0}, 1, Policy::Check, 0, 1)};
  c = load(p).certify();
  ASSERT_TRUE(c.acc32_failure.has_value());
  EXPECT_EQ(c.acc32_failure->key, "policy.check");
  EXPECT_NO_THROW(load(p, Profile::Acc64));
  EXPECT_THROW(load(p, Profile::Acc32), RefusalError);
}

TEST(WaiCertify, SaturatedNode) {
  // Squaring by mul three times from [-2^63, 2^63 - 1]: the products reach 2^126, then 2^252 (below 2^255,
  // not saturated), then 2^504, which sat() clamps to 2^255: the third node is saturated.
  Model m = one_input(1, INT64_MIN, INT64_MAX);
  Node mul{.op = Op::Mul};
  mul.rq.shift = {0};
  uint32_t t = 0;
  for (int i = 0; i < 3; ++i) t = add_node(m, mul, {t, t}, 1);
  m.outputs = {t};
  const Graph g = load(m);
  const Certificate& c = g.certify();
  EXPECT_FALSE(c.nodes[1].saturated);
  EXPECT_TRUE(c.nodes[2].saturated);
  // The first failing node under acc64 is node 0, not the saturated one: its widest failing values (mul.p,
  // rq.t, rq.q, rq.y, out.0) all need 128 bits, and the tie goes to the smallest key, mul.p.
  EXPECT_EQ(c.acc64_failure->index, 0u);
  EXPECT_EQ(c.acc64_failure->key, "mul.p");
  EXPECT_EQ(c.acc64_failure->bits, 128);
  EXPECT_EQ(c.nodes[2].intermediates[0].key, "mul.p");
  EXPECT_EQ(c.nodes[2].intermediates[0].hi,
            "57896044618658097711785492504343953926634992332820282019728792003956564819968");
}

TEST(WaiCertify, LoadStep8Refusals) {
  auto refused_at_8 = [](const Model& m) {
    try {
      load(m);
      return false;
    } catch (const RefusalError& e) {
      return e.code() == Refusal::ModelMismatch && e.load_step() == 8;
    }
  };
  // A check range that no producer value can meet: relu gives [0, 5]; check [-9, -1] is empty after it.
  Model m = one_input(1, -3, 5);
  m.outputs = {add_node(m, Node{.op = Op::Relu}, {0}, 1, Policy::Check, -9, -1)};
  EXPECT_TRUE(refused_at_8(m));
  // lut16 on an input range that reaches -32768.
  Model l = one_input(1, -32768, 0);
  Node lut{.op = Op::Lut16};
  lut.lut.assign(65536, 0);
  l.outputs = {add_node(l, lut, {0}, 1)};
  EXPECT_TRUE(refused_at_8(l));
  l.tensors[0].lo = -32767;
  EXPECT_FALSE(refused_at_8(l));
}

// The debug mode's check itself: a value outside its key's interval, or a key with no interval, throws. (The
// vector test runs every decode in this mode and must not throw.)
TEST(WaiCertify, DebugModeRejectsAValueOutsideItsInterval) {
  NodeBounds node;
  node.intermediates.push_back({"rq.t", Width::Acc, {Wide(-2), Wide(5)}});
  BoundsChecker checker(node, "test");
  EXPECT_NO_THROW(checker.seen("rq.t", -2));
  EXPECT_NO_THROW(checker.seen("rq.t", 5));
  EXPECT_THROW(checker.seen("rq.t", 6), std::logic_error);
  EXPECT_THROW(checker.seen("rq.t", -3), std::logic_error);
  EXPECT_THROW(checker.seen("conv.acc", 0), std::logic_error);
  EXPECT_THROW(check_in_interval({Wide(0), Wide(1)}, IntTensor{{1, 1, 2}, {0, 2}}, "t"), std::logic_error);
}

// Every graph of the vector files: our certificate bytes equal the Python certifier's (which computes the
// graph digests with hashlib and folds every partial sum term by term).
TEST(WaiCertify, VectorGraphsMatchThePythonCertifier) {
  const std::vector<testing::CertificateRow> rows = testing::certificate_rows("vectors.jsonl");
  ASSERT_FALSE(rows.empty())
      << "testdata/wai/certificates/vectors.jsonl is missing (tools/wai/reference.py writes it)";
  size_t compared = 0;
  for (const auto& [c, bytes] : rows) {
    SCOPED_TRACE(c.at("id").get<std::string>());
    EXPECT_EQ(Graph::load(bytes, Profile::None).certify().bytes, c.at("certificate").get<std::string>());
    ++compared;
  }
  EXPECT_GE(compared, 100u);
}

}  // namespace
}  // namespace onemodel::wai
