// Locating the ONNX backend test data (Debian package libonnx-testdata) for the sweep and dump tests.
#pragma once

#include <algorithm>
#include <filesystem>
#include <vector>

namespace onemodel::test {

inline const std::filesystem::path kOnnxTestdata = "/usr/share/libonnx-testdata/data";

// Every model.onnx below the test data root, sorted; empty when the package is absent.
inline std::vector<std::filesystem::path> onnx_testdata_models() {
  std::vector<std::filesystem::path> models;
  std::error_code ec;
  if (!std::filesystem::is_directory(kOnnxTestdata, ec)) return models;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(kOnnxTestdata)) {
    if (entry.is_regular_file() && entry.path().filename() == "model.onnx") models.push_back(entry.path());
  }
  std::sort(models.begin(), models.end());
  return models;
}

}  // namespace onemodel::test
