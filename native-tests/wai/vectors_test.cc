// Every line of every vector file under testdata/wai/ (written by tools/wai/reference.py, an independent
// big-integer Python reference): the graph loads or is refused with the recorded code under both profiles,
// its verdict gives the recorded profiles, and each decode of the sequence gives the recorded outputs or
// refusal, with state carried only across completed decodes and every intermediate inside its certified
// interval; and the same decodes on the acc32 fast path of every kernel path.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "kernels/kernel_table.h"
#include "onemodel/wai.h"
#include "tools/cli/wai_vector_json.h"

namespace onemodel::wai {
namespace {

using nlohmann::json;
const std::filesystem::path kDir = std::filesystem::path(ONEMODEL_SOURCE_DIR) / "testdata" / "wai";

std::vector<std::filesystem::path> vector_files() {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(kDir))
    if (e.path().extension() == ".jsonl") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

// Runs one vector; returns the number of decodes checked.
size_t check_vector(const json& v) {
  const std::string id = v.at("id");
  SCOPED_TRACE(id);
  const std::vector<uint8_t> bytes = from_hex(v.at("graph"));
  const std::string load = v.at("load");
  if (load != "ok") {
    for (Profile profile : {Profile::Acc64, Profile::Acc32}) {
      try {
        Graph::load(bytes, profile);
        ADD_FAILURE() << "loaded, expected " << load;
      } catch (const RefusalError& e) {
        EXPECT_EQ(to_string(e.code()), load) << e.what();
      }
    }
    EXPECT_TRUE(v.at("decodes").empty());
    return 0;
  }
  // "profiles" lists exactly the profiles the graph's verdict meets (§14.1); the decodes run in the debug
  // mode that checks every intermediate against its certified interval (§8).
  const Graph graph = Graph::load(bytes);
  std::vector<std::string> profiles;
  if (graph.certify().acc32) profiles.push_back("acc32");
  profiles.push_back("acc64");
  EXPECT_EQ(v.at("profiles").get<std::vector<std::string>>(), profiles);
  // Then again on the acc32 fast path of every kernel path, which must give the same integers.
  std::vector<SessionOptions> runs(1);
  runs[0].check_bounds = true;
  for (const KernelTable* t : available_kernel_tables()) {
    runs.emplace_back().kernel_path = std::string(t->name);
    runs.back().threads = 2;
  }
  size_t k = 0;
  for (const SessionOptions& options : runs) {
    SCOPED_TRACE(options.check_bounds ? "debug mode" : "acc32 fast path on " + options.kernel_path);
    const IntSession session(graph, options);
    State state;
    k = 0;
    for (const json& d : v.at("decodes")) {
      SCOPED_TRACE("decode " + std::to_string(k++));
      std::vector<IntTensor> inputs;
      for (const json& t : d.at("inputs")) inputs.push_back(tensor_of(t));
      std::vector<int64_t> scalars;
      for (const json& s : d.at("scalars")) scalars.push_back(std::stoll(s.get<std::string>()));
      const RunResult r = session.run(inputs, scalars, state);
      const json& expect = d.at("expect");
      if (expect.contains("refuse")) {
        EXPECT_EQ(to_string(r.refusal), expect.at("refuse").get<std::string>()) << r.message;
        continue;
      }
      const json& outs = expect.at("outputs");
      if (!r.ok() || r.outputs.size() != outs.size()) {
        ADD_FAILURE() << "refused or wrong output count: " << to_string(r.refusal) << ": " << r.message;
        continue;
      }
      for (size_t i = 0; i < outs.size(); ++i) {
        const IntTensor want = tensor_of(outs[i]);
        EXPECT_EQ(r.outputs[i].shape, want.shape) << "output " << i;
        EXPECT_EQ(r.outputs[i].data, want.data) << "output " << i;
      }
    }
  }
  return k;
}

TEST(WaiVectors, EveryLineOfEveryFile) {
  const auto files = vector_files();
  ASSERT_GE(files.size(), 25u) << "testdata/wai is missing (tools/wai/reference.py writes it)";
  size_t vectors = 0, decodes = 0;
  for (const auto& path : files) {
    SCOPED_TRACE(path.filename().string());
    std::ifstream in(path);
    std::string line;
    ASSERT_TRUE(std::getline(in, line));
    EXPECT_TRUE(json::parse(line).contains("header")) << "the first line says how the file was made";
    while (std::getline(in, line)) {
      decodes += check_vector(json::parse(line));
      ++vectors;
    }
  }
  EXPECT_GE(vectors, 100u);
  EXPECT_GE(decodes, 150u);
}

}  // namespace
}  // namespace onemodel::wai
