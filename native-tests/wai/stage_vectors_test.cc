// Every line of every stage-vector file under testdata/wai/stage/ (written by tools/wai/reference.py through
// its independent big-integer stage_reference.py): each vector's result, or its refusal code and index `at`.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "onemodel/wai_stage.h"
#include "tools/cli/wai_vector_json.h"

namespace onemodel::wai {
namespace {

using nlohmann::json;
const std::filesystem::path kDir = std::filesystem::path(ONEMODEL_SOURCE_DIR) / "testdata" / "wai" / "stage";

int64_t num(const json& v) {
  return std::stoll(v.get<std::string>());
}
std::vector<int64_t> nums(const json& v) {
  std::vector<int64_t> out;
  for (const json& x : v) out.push_back(num(x));
  return out;
}
std::vector<std::vector<int64_t>> rows(const json& v) {
  std::vector<std::vector<int64_t>> out;
  for (const json& r : v) out.push_back(nums(r));
  return out;
}
json strs(const std::vector<int64_t>& v) {
  json out = json::array();
  for (int64_t x : v) out.push_back(std::to_string(x));
  return out;
}
json tensor_json(const IntTensor& t) {
  return {{"data", strs(t.data)}, {"shape", strs({t.shape[0], t.shape[1], t.shape[2]})}};
}

// The `expect` member our implementation gives for a vector, in the file's encoding.
json evaluate(const std::string& op, const json& in, const json& modes) {
  try {
    check_stage_supported(op);
    if (op == "dequantize")
      return {{"value", std::to_string(dequantize(num(in["sym"]), num(in["f"]), num(in["base"])))}};
    if (op == "bucket") {
      const BucketRule rule = modes.at("bucket") == "ceil" ? BucketRule::Ceil : BucketRule::Floor;
      return {{"index", std::to_string(bucket(num(in["sigma"]), nums(in["edges"]), rule))}};
    }
    if (op == "coded") return {{"coded", coded(num(in["v"]), num(in["thr"]))}};
    if (op == "scale_index")
      return {{"index", std::to_string(scale_index(num(in["v"]), num(in["s"]), num(in["n"])))}};
    if (op == "block_stat") {
      IntTensor x;
      const std::vector<int64_t> shape = nums(in["x"]["shape"]);
      std::copy(shape.begin(), shape.end(), x.shape.begin());
      x.data = nums(in["x"]["data"]);
      return {{"out", tensor_json(block_stat(x, num(in["b"]), num(in["s"]), num(in["lo"]), num(in["hi"])))}};
    }
    if (op == "band_lookup")
      return {{"value", std::to_string(band_lookup(num(in["v"]), nums(in["edges"]), rows(in["table"]),
                                                   num(in["row"])))}};
    if (op == "residual_step")
      return {{"value", std::to_string(residual_step(num(in["pred"]), num(in["r"]), num(in["q"]),
                                                     num(in["lo"]), num(in["hi"])))}};
    if (op == "coding_order") {
      const std::vector<int64_t> s = nums(in["shape"]);
      return {
          {"indices", strs(coding_order({s[0], s[1], s[2]}, in["order"] == "checkerboard", in["anchor"]))}};
    }
    // mans_decode
    const std::vector<uint8_t> memory = from_hex(in["memory"]);
    std::vector<std::vector<int64_t>> symbols;
    if (in["mode"] == "sgm") {
      std::vector<MansSpan> spans;
      for (const json& s : in["spans"])
        spans.push_back({s["mask"].get<std::vector<bool>>(), nums(s["sigma"])});
      symbols = mans_decode_sgm(memory, rows(in["pmf"]), nums(in["bounds"]), spans);
    } else {
      symbols = mans_decode_fac(memory, rows(in["rows"]), nums(in["lengths"]));
    }
    json out = json::array();
    for (const auto& s : symbols) out.push_back(strs(s));
    return {{"symbols", out}};
  } catch (const StageError& e) {
    return {{"at", std::to_string(e.at())}, {"refuse", std::string(to_string(e.code()))}};
  }
}

TEST(WaiStageVectors, EveryLineOfEveryFile) {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(kDir))
    if (e.path().extension() == ".jsonl") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  ASSERT_EQ(files.size(), 9u)
      << "one file per implemented stage operator (tools/wai/reference.py writes them)";
  size_t vectors = 0, refusals = 0;
  for (const auto& path : files) {
    SCOPED_TRACE(path.filename().string());
    std::ifstream in(path);
    std::string line;
    ASSERT_TRUE(std::getline(in, line));
    EXPECT_TRUE(json::parse(line).contains("header"));
    while (std::getline(in, line)) {
      const json v = json::parse(line);
      SCOPED_TRACE(v.at("id").get<std::string>());
      EXPECT_EQ(path.stem().string(), v.at("op").get<std::string>());
      const json want = v.at("expect");
      EXPECT_EQ(evaluate(v.at("op"), v.at("in"), v.at("modes")), want);
      ++vectors, refusals += want.contains("refuse");
    }
  }
  EXPECT_GE(vectors, 180u);
  EXPECT_GE(refusals, 40u);
}

TEST(WaiStage, OperatorsDefinedElsewhereAreRefusedAsUnsupported) {
  for (const char* op : {"rans64_decode", "mc_predict", "up2_predict", "rate_predict", "no_such_op"}) {
    try {
      check_stage_supported(op);
      ADD_FAILURE() << op << " accepted";
    } catch (const StageError& e) {
      EXPECT_EQ(e.code(), Refusal::ModelMismatch);
      EXPECT_EQ(e.at(), -1);
      EXPECT_NE(std::string(e.what()).find(op), std::string::npos) << "the message names the operator";
    }
  }
  EXPECT_NO_THROW(check_stage_supported("mans_decode"));
}

// E9's 32-bit form (§5E) equals the step wherever its width conditions hold; checked exhaustively on a small
// range against a 128-bit loop written here.
TEST(WaiStage, ResidualStepMatchesItsThirtyTwoBitForm) {
  for (int64_t q : {1, 2, 7, 255, 256}) {
    const int64_t lo = 0, hi = 255, R = (hi - lo) / q + 1;
    for (int64_t pred = lo; pred <= hi; pred += 17)
      for (int64_t r = -R - 3; r <= R + 3; ++r) {
        const __int128 wide = std::clamp<__int128>(__int128(pred) + __int128(r) * q, lo, hi);
        const int32_t narrow = std::clamp<int32_t>(int32_t(pred + std::clamp<int64_t>(r, -R, R) * q), lo, hi);
        ASSERT_EQ(residual_step(pred, r, q, lo, hi), int64_t(wide));
        ASSERT_EQ(residual_step(pred, r, q, lo, hi), narrow);
      }
  }
}

}  // namespace
}  // namespace onemodel::wai
