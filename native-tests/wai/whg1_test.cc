// WHG1 reading and writing (wai-ops/1 §10): canonical round trips, one hostile input per load check of §10.5
// refused at that step with its code, the order of the checks, and truncated or mutated files refused
// cleanly.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <functional>

#include "onemodel/wai.h"
#include "wai/bytes.h"
#include "wai/model.h"

namespace onemodel::wai {
namespace {

// input 0 [1, H, W] check [-9, 9] -> relu -> tensor 1 (the output)
Model base_model() {
  Model m;
  m.max_elems = 1 << 26;
  m.inputs.push_back({.tensor = 0});
  m.outputs = {1};
  m.tensors.push_back({.channels = 1, .policy = Policy::Check, .lo = -9, .hi = 9});
  m.tensors.push_back({.channels = 1});
  Node relu;
  relu.op = Op::Relu;
  relu.in = {0};
  relu.out = {1};
  m.nodes.push_back(relu);
  return m;
}

// Byte offsets in base_model()'s file.
constexpr size_t kInputRecord = 32, kOutputs = 64, kTensor0 = 68, kTensor1 = 92, kOp = 116;

void expect_refused(const std::vector<uint8_t>& bytes, int step, Refusal code = Refusal::ModelMismatch) {
  try {
    Graph::load(bytes);
    ADD_FAILURE() << "loaded; expected a refusal at load check " << step;
  } catch (const RefusalError& e) {
    EXPECT_EQ(e.load_step(), step) << e.what();
    EXPECT_EQ(e.code(), code) << e.what();
  }
}

std::vector<uint8_t> mutated(std::function<void(std::vector<uint8_t>&)> f, Model m = base_model()) {
  std::vector<uint8_t> b = write_whg1(m);
  f(b);
  return b;
}

void put32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + i] = uint8_t(v >> (8 * i));
}

TEST(WaiWhg1, BaseGraphLoadsAndRoundTrips) {
  const std::vector<uint8_t> bytes = write_whg1(base_model());
  ASSERT_EQ(bytes.size(), kOp + 4 + 8 + 4);
  const Graph g = Graph::load(bytes);
  EXPECT_EQ(write_whg1(g.model()), bytes);
}

// Every graph of the vector files was written by the Python reference's own writer: reading it and writing it
// again gives the same bytes, so the two writers agree on the canonical form.
TEST(WaiWhg1, VectorGraphsRoundTripByteForByte) {
  size_t graphs = 0;
  for (const auto& e :
       std::filesystem::directory_iterator(std::filesystem::path(ONEMODEL_SOURCE_DIR) / "testdata" / "wai")) {
    std::ifstream in(e.path());
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
      const nlohmann::json v = nlohmann::json::parse(line);
      if (v.at("load") != "ok") continue;
      const std::string hex = v.at("graph");
      std::vector<uint8_t> bytes(hex.size() / 2);
      for (size_t i = 0; i < bytes.size(); ++i)
        bytes[i] = uint8_t(std::stoul(hex.substr(2 * i, 2), nullptr, 16));
      EXPECT_EQ(write_whg1(Graph::load(bytes).model()), bytes) << v.at("id");
      ++graphs;
    }
  }
  EXPECT_GE(graphs, 80u);
}

TEST(WaiWhg1, Step1MagicVersionOperatorSet) {
  expect_refused(mutated([](auto& b) { b[0] = 'X'; }), 1);
  expect_refused(mutated([](auto& b) { b[4] = 2; }), 1);
  expect_refused(mutated([](auto& b) { b[5] = 0; }), 1);
  expect_refused({'W', 'H', 'G'}, 1);
}

TEST(WaiWhg1, Step2ReservedHeaderFields) {
  expect_refused(mutated([](auto& b) { b[6] = 1; }), 2);
  expect_refused(mutated([](auto& b) { b[23] = 1; }), 2);
  expect_refused(mutated([](auto& b) { b[31] = 1; }), 2);
  expect_refused({'W', 'H', 'G', '1', 1, 1, 0, 0}, 2);  // too short to hold the header
}

TEST(WaiWhg1, Step3CountsAgainstLength) {
  expect_refused(mutated([](auto& b) { b.pop_back(); }), 3);
  expect_refused(mutated([](auto& b) { b.push_back(0); }), 3);
  expect_refused(mutated([](auto& b) { put32(b, 8, 0); }), 3);                  // no tensors
  expect_refused(mutated([](auto& b) { put32(b, 8, 1000000); }), 3);            // tables past the end
  expect_refused(mutated([](auto& b) { put32(b, 24, (1u << 26) + 1); }), 3);    // max_elems past 2^26
  expect_refused(mutated([](auto& b) { put32(b, kOp + 12, 0xFFFFFFFF); }), 3);  // plen past the end
}

TEST(WaiWhg1, Step4TableRecords) {
  expect_refused(mutated([](auto& b) { b[kTensor0 + 5] = 3; }), 4);            // policy 3
  expect_refused(mutated([](auto& b) { b[kTensor1 + 8] = 1; }), 4);            // derived with a range
  expect_refused(mutated([](auto& b) { put32(b, kTensor0, 0); }), 4);          // no channels
  expect_refused(mutated([](auto& b) { put32(b, kInputRecord + 4, 3); }), 4);  // max_h without max_w
  expect_refused(mutated([](auto& b) { b[kInputRecord + 12] = 2; }), 4);       // kind 2
  expect_refused(mutated([](auto& b) { b[kInputRecord + 20] = 1; }), 4);       // reserved
  expect_refused(mutated([](auto& b) { put32(b, kOutputs, 2); }), 4);          // no such tensor
  Model m = base_model();
  m.scalars.push_back({5, 4});  // lo above hi
  expect_refused(write_whg1(m), 4);
  m = base_model();
  m.tensors[0].lo = 10;  // lo above hi
  expect_refused(write_whg1(m), 4);
}

TEST(WaiWhg1, Step5OperatorRecords) {
  expect_refused(mutated([](auto& b) { b[kOp] = 0x1F; }), 5);         // unknown opcode
  expect_refused(mutated([](auto& b) { b[kOp + 3] = 1; }), 5);        // reserved
  expect_refused(mutated([](auto& b) { put32(b, kOp + 4, 7); }), 5);  // input tensor out of range
  Model m = base_model();
  m.nodes[0].op = Op::Add;  // add needs two inputs
  expect_refused(write_whg1(m), 5);
  // clamp needs 16 parameter bytes, and relu's record has none.
  expect_refused(mutated([](auto& b) { b[kOp] = uint8_t(Op::Clamp); }), 5);
  m = base_model();
  m.nodes[0].op = Op::Clamp;
  m.nodes[0].lo = 3, m.nodes[0].hi = 2;  // lo above hi
  expect_refused(write_whg1(m), 5);
  m.nodes[0].op = Op::Leaky;
  m.nodes[0].f = 64;
  expect_refused(write_whg1(m), 5);
}

TEST(WaiWhg1, Step6GraphRules) {
  Model m = base_model();
  m.tensors[0].policy = Policy::Derived,
  m.tensors[0].lo = m.tensors[0].hi = 0;  // an input must be check/clamp
  expect_refused(write_whg1(m), 6);
  m = base_model();
  m.nodes[0].in = {1};  // reads its own output
  expect_refused(write_whg1(m), 6);
  m = base_model();
  m.nodes.push_back(m.nodes[0]);  // tensor 1 written twice
  expect_refused(write_whg1(m), 6);
  m = base_model();
  m.tensors.push_back({.channels = 1});  // tensor 2 is neither an input nor an output
  expect_refused(write_whg1(m), 6);
  m = base_model();
  m.inputs.push_back({.tensor = 0});  // two records name one tensor
  expect_refused(write_whg1(m), 6);
  m = base_model();
  m.tensors.push_back({.channels = 1, .policy = Policy::Clamp, .lo = 0, .hi = 3});
  m.inputs.push_back({.tensor = 2, .kind = InputKind::State, .src = 1, .init = 0});  // src past the outputs
  expect_refused(write_whg1(m), 6);
  m.inputs.back().src = 0, m.inputs.back().init = 4;  // init outside the state's range
  expect_refused(write_whg1(m), 6);
  m.inputs.back().init = 3;
  EXPECT_NO_THROW(Graph::load(write_whg1(m)));
  std::swap(m.inputs[0], m.inputs[1]);  // input 0 is a state input
  expect_refused(write_whg1(m), 6);
  m = base_model();
  m.nodes[0].op = Op::Abs;
  m.tensors[1].exponent = 4;  // abs constrains no exponent
  EXPECT_NO_THROW(Graph::load(write_whg1(m)));
  m.nodes[0].op = Op::ChunkAdd;
  m.tensors[0].channels = 2;
  expect_refused(write_whg1(m), 6);  // chunk_add's exponents differ
}

TEST(WaiWhg1, Step7Plan) {
  Model m = base_model();
  m.tensors[1].channels = 2;  // relu keeps one channel
  expect_refused(write_whg1(m), 7);
  m = base_model();
  m.nodes[0].op = Op::Softmax;  // softmax needs declared sizes
  expect_refused(write_whg1(m), 7);
  m.inputs[0].max_h = 4, m.inputs[0].max_w = 4;
  EXPECT_NO_THROW(Graph::load(write_whg1(m)));
  m.max_elems = 15;  // the input at its declared size passes max_elems
  expect_refused(write_whg1(m), 7, Refusal::TooLarge);
  m = base_model();
  m.inputs[0].max_h = m.inputs[0].max_w = 1 << 13;
  m.nodes[0].op = Op::PixelShuffle;
  m.nodes[0].factor = 1 << 14;  // an output side past 2^26
  m.tensors[0].channels = 1u << 28;
  m.tensors[1].channels = 1;
  expect_refused(write_whg1(m), 7, Refusal::TooLarge);
}

TEST(WaiWhg1, EarlierChecksComeFirst) {
  // A file that breaks a table record (step 4) and a graph rule (step 6) is refused at step 4.
  Model m = base_model();
  m.nodes[0].in = {1};
  auto b = write_whg1(m);
  b[kTensor0 + 5] = 3;
  expect_refused(b, 4);
  // A header reserved byte (step 2) beats a bad count (step 3).
  b = write_whg1(base_model());
  b[6] = 1;
  b.push_back(0);
  expect_refused(b, 2);
}

TEST(WaiWhg1, EveryPrefixAndByteFlipIsRefusedCleanly) {
  Model m = base_model();
  m.nodes[0].op = Op::Clamp;
  m.nodes[0].lo = -3, m.nodes[0].hi = 3;
  const std::vector<uint8_t> good = write_whg1(m);
  for (size_t n = 0; n < good.size(); ++n)
    EXPECT_THROW(Graph::load(std::span<const uint8_t>(good.data(), n)), RefusalError) << n;
  for (size_t i = 0; i < good.size(); ++i)
    for (uint8_t bit = 1; bit != 0; bit = uint8_t(bit << 1)) {
      std::vector<uint8_t> b = good;
      b[i] ^= bit;
      try {
        const Graph g = Graph::load(b);
        EXPECT_EQ(write_whg1(g.model()), b);  // whatever loads is canonical
      } catch (const RefusalError&) {
      }
    }
}

}  // namespace
}  // namespace onemodel::wai
