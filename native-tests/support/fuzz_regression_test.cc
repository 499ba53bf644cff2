// The fuzz targets of fuzz/targets.h on their committed regression inputs (fuzz/regressions/<target>/, one
// file per input that once crashed or misbehaved) and on seeded mutations of the sample models, so every test
// build replays what the fuzzers found. A target only returns or throws the library's own errors (which it
// swallows); anything escaping fails the test, and the sanitizer build turns memory errors into failures.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <random>
#include <vector>

#include "fuzz/targets.h"

namespace onemodel::fuzz {
namespace {

const std::filesystem::path kSource = ONEMODEL_SOURCE_DIR;

std::vector<uint8_t> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Model files and one TensorProto file (from the ONNX backend data tools/setup.sh installs) to mutate.
std::vector<std::filesystem::path> seed_files() {
  std::vector<std::filesystem::path> models;
  for (const auto& entry : std::filesystem::directory_iterator(kSource / "examples" / "models")) {
    if (entry.path().extension() == ".onnx") models.push_back(entry.path());
  }
  std::sort(models.begin(), models.end());
  models.push_back("/usr/share/libonnx-testdata/data/node/test_add/test_data_set_0/input_0.pb");
  return models;
}

TEST(FuzzRegressions, CommittedInputsRunCleanly) {
  int inputs = 0;
  for (const Target& target : targets()) {
    const auto dir = kSource / "fuzz" / "regressions" / std::string(target.name);
    if (!std::filesystem::is_directory(dir)) continue;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      const std::vector<uint8_t> bytes = read_file(entry.path());
      EXPECT_NO_THROW(target.run(bytes.data(), bytes.size())) << entry.path();
      ++inputs;
    }
  }
  std::cout << inputs << " regression inputs replayed\n";
}

TEST(FuzzRegressions, MutatedSeedsRunCleanly) {
  const auto models = seed_files();
  ASSERT_FALSE(models.empty());
  std::mt19937 rng(20261130);
  for (const auto& path : models) {
    const std::vector<uint8_t> original = read_file(path);
    ASSERT_FALSE(original.empty()) << path;
    for (int trial = 0; trial < 48; ++trial) {
      std::vector<uint8_t> bytes = original;
      const int edits = 1 + trial % 4;
      for (int e = 0; e < edits; ++e) {
        bytes[rng() % bytes.size()] = static_cast<uint8_t>(rng());
      }
      if (trial % 8 == 7) bytes.resize(rng() % bytes.size());  // truncations too
      for (const Target& target : targets()) {
        EXPECT_NO_THROW(target.run(bytes.data(), bytes.size())) << path << " trial " << trial << " " << target.name;
      }
    }
  }
}

}  // namespace
}  // namespace onemodel::fuzz
