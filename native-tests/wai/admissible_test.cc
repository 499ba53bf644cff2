// Admissible ranges (wai-ops/1 §8.4) and certificates over sets of graphs (§8.5): small graphs whose ranges
// are worked out by hand in the comments, and every vector graph and vector set against the independent
// Python certifier (tools/wai/bounds.py, through testdata/wai/certificates/{admissible,sets}.jsonl).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "onemodel/wai.h"
#include "tools/cli/wai_vector_json.h"
#include "wai/certificate_rows.h"
#include "wai/model.h"

namespace onemodel::wai {
namespace {

using nlohmann::json;
constexpr int64_t kI32Max = INT32_MAX;
constexpr int64_t kI64Max = INT64_MAX;

// One input tensor 0 (1 channel, check [-3, 5], declared 2x3) read by `n`, whose output is tensor 1.
Graph single(Node n) {
  Model m;
  m.tensors.push_back({1, kNoExponent, Policy::Check, -3, 5});
  m.inputs.push_back({0, 2, 3, InputKind::Data, 0, 0});
  m.sizes_declared = true;
  m.tensors.push_back({1, kNoExponent, Policy::Derived, 0, 0});
  n.in = {0};
  n.out = {1};
  m.nodes.push_back(std::move(n));
  m.outputs = {1};
  const std::vector<uint8_t> bytes = write_whg1(m);
  return Graph::load(bytes, Profile::None);
}

void expect_range(const std::optional<AdmissibleRange>& r, int64_t lo, int64_t hi) {
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->lo, lo);
  EXPECT_EQ(r->hi, hi);
}

TEST(WaiAdmissible, ReluAndAnUnreadTensor) {
  // relu reads [-X, X] and gives [0, X]: class tensor, so X <= 2^31 - 1 under acc32 and X <= 2^63 - 1 under
  // acc64. Tensor 1 has no consumer, so C(2^63) holds: [-2^63, 2^63 - 1].
  const Graph g = single(Node{.op = Op::Relu});
  expect_range(g.admissible_range(0, Profile::Acc32), -kI32Max, kI32Max);
  expect_range(g.admissible_range(0, Profile::Acc64), -kI64Max, kI64Max);
  expect_range(g.admissible_range(1, Profile::Acc32), INT64_MIN, kI64Max);
  expect_range(g.admissible_range(1, Profile::Acc64), INT64_MIN, kI64Max);
  EXPECT_THROW(g.admissible_range(2, Profile::Acc64), std::out_of_range);
  EXPECT_THROW(g.admissible_range(0, Profile::None), std::out_of_range);
}

TEST(WaiAdmissible, ConvWithOneWeight) {
  // A 1x1 conv with the weight 3, no multiplier, shift 0, floor, no bias: conv.term = conv.acc = rq.t = rq.p
  // = rq.q = rq.y = [-3X, 3X]. acc32: 3X <= 2^31 - 1, X* = 715827882. acc64: 3X <= 2^63 - 1,
  // X* = 3074457345618258602.
  Node n{.op = Op::Conv};
  n.cout = 1, n.kh = 1, n.kw = 1, n.sh = 1, n.sw = 1, n.groups = 1, n.w_bytes = 1;
  n.weights = {3};
  n.rq.shift = {0};
  const Graph g = single(n);
  expect_range(g.admissible_range(0, Profile::Acc32), -715827882, 715827882);
  expect_range(g.admissible_range(0, Profile::Acc64), -3074457345618258602, 3074457345618258602);
}

TEST(WaiAdmissible, SoftmaxLut16AndFill) {
  // softmax's exp.t2 is fixed above i32: no admissible range for acc32. Under acc64 its widest
  // input-dependent value is exp.negx = [0, 2X] (class acc), so 2X <= 2^63 - 1: X* = 2^62 - 1.
  const Graph sm = single(Node{.op = Op::Softmax});
  EXPECT_FALSE(sm.admissible_range(0, Profile::Acc32).has_value());
  expect_range(sm.admissible_range(0, Profile::Acc64), -((int64_t(1) << 62) - 1), (int64_t(1) << 62) - 1);
  // lut16 reads i16 inputs only (§5.6): X* = 32767 under both profiles.
  Node lut{.op = Op::Lut16};
  lut.lut.assign(65536, 7);
  lut.lut[0] = 0;  // the entry of -32768, which §10.4 fixes at 0
  const Graph l = single(lut);
  expect_range(l.admissible_range(0, Profile::Acc32), -32767, 32767);
  expect_range(l.admissible_range(0, Profile::Acc64), -32767, 32767);
  // fill reads only its input's shape, so it never limits X*.
  Node fill{.op = Op::Fill};
  fill.fill = {false, 7};
  const Graph f = single(fill);
  expect_range(f.admissible_range(0, Profile::Acc32), INT64_MIN, kI64Max);
}

// Every tensor of every vector graph, under both profiles, against the Python certifier's ranges.
TEST(WaiAdmissible, VectorGraphsMatchThePythonCertifier) {
  const std::vector<testing::CertificateRow> rows = testing::certificate_rows("admissible.jsonl");
  ASSERT_FALSE(rows.empty())
      << "testdata/wai/certificates/admissible.jsonl is missing (tools/wai/reference.py writes it)";
  size_t compared = 0;
  for (const auto& [want, bytes] : rows) {
    SCOPED_TRACE(want.at("id").get<std::string>());
    const Graph g = Graph::load(bytes, Profile::None);
    json got = json::array();
    for (uint32_t t = 0; t < g.tensor_count(); ++t) {
      json row = {{"tensor", std::to_string(t)}};
      for (const auto& [name, profile] :
           {std::pair{"acc32", Profile::Acc32}, std::pair{"acc64", Profile::Acc64}}) {
        const std::optional<AdmissibleRange> r = g.admissible_range(t, profile);
        row[name] = r ? json{{"hi", std::to_string(r->hi)}, {"lo", std::to_string(r->lo)}} : json(nullptr);
      }
      got.push_back(row);
    }
    EXPECT_EQ(got, want.at("ranges"));
    ++compared;
  }
  EXPECT_GE(compared, 100u);
}

TEST(WaiCertifySet, OneGraphIsItsOwnCertificate) {
  const Graph g = single(Node{.op = Op::Relu});
  const SetMember member{&g, std::nullopt};
  EXPECT_EQ(certify_set({&member, 1}).bytes, g.certify().bytes);
}

TEST(WaiCertifySet, TheSetVerdictAndItsFirstFailure) {
  // Graph "a" (relu) meets both profiles; graph "b" (softmax) fails acc32 at node 0 on exp.t2 (bits 34:
  // 88670^2 < 2^33 needs 34 signed bits) and meets acc64. The set fails acc32 at graph 1, role "b".
  const Graph a = single(Node{.op = Op::Relu}), b = single(Node{.op = Op::Softmax});
  const SetMember members[] = {{&a, "a"}, {&b, "b"}};
  const Certificate c = certify_set(
      members, SetInfo{.capability = "wai.test", .lowering = "whg1", .set_sha256 = std::string(64, 'e')});
  EXPECT_TRUE(c.acc64);
  EXPECT_FALSE(c.acc32);
  ASSERT_TRUE(c.acc32_failure.has_value());
  EXPECT_EQ(c.acc32_failure->graph, 1u);
  EXPECT_EQ(c.acc32_failure->role, "b");
  EXPECT_EQ(c.acc32_failure->key, "exp.t2");
  EXPECT_EQ(c.acc32_failure->bits, 34);
  EXPECT_NE(c.bytes.find("\"acc32_first_failure\":{\"bits\":\"34\",\"graph\":\"b\",\"index\":\"0\","
                         "\"key\":\"exp.t2\",\"where\":\"node\"}"),
            std::string::npos);
  EXPECT_NE(c.bytes.find("\"capability\":\"wai.test\""), std::string::npos);
  EXPECT_NE(c.bytes.find("\"set_sha256\":\"" + std::string(64, 'e') + "\""), std::string::npos);
  EXPECT_EQ(c.npu_reasons, (std::vector<std::string>{"acc32", "op:softmax"}));
  // Names outside printable ASCII and malformed digests cannot be certified.
  const SetMember bad_role[] = {{&a, std::string("a\n")}};
  EXPECT_THROW(certify_set(bad_role), std::invalid_argument);
  EXPECT_THROW(certify_set(members, SetInfo{.set_sha256 = std::string(64, 'E')}), std::invalid_argument);
}

// The sets of testdata/wai/certificates/sets.jsonl, byte for byte against the Python certifier.
TEST(WaiCertifySet, VectorSetsMatchThePythonCertifier) {
  std::ifstream in(testing::kVectorDir / "certificates" / "sets.jsonl");
  ASSERT_TRUE(in) << "testdata/wai/certificates/sets.jsonl is missing (tools/wai/reference.py writes it)";
  size_t compared = 0;
  std::string line;
  while (std::getline(in, line)) {
    const json s = json::parse(line);
    SCOPED_TRACE(s.at("id").get<std::string>());
    std::vector<Graph> graphs;
    for (const json& hex : s.at("graphs")) graphs.push_back(Graph::load(from_hex(hex), Profile::None));
    std::vector<SetMember> members;
    for (size_t k = 0; k < graphs.size(); ++k) {
      const json& role = s.at("roles").at(k);
      members.push_back({&graphs[k], role.is_null() ? std::nullopt : std::optional<std::string>(role)});
    }
    SetInfo info;
    if (!s.at("capability").is_null()) info.capability = s.at("capability").get<std::string>();
    info.lowering = s.at("lowering").get<std::string>();
    if (!s.at("set_sha256").is_null()) info.set_sha256 = s.at("set_sha256").get<std::string>();
    EXPECT_EQ(certify_set(members, info).bytes, s.at("certificate").get<std::string>());
    ++compared;
  }
  EXPECT_GE(compared, 4u);
}

}  // namespace
}  // namespace onemodel::wai
