// Reading the JSON Lines vector files of wai-ops/1 (§14.1; testdata/wai/, written by tools/wai/reference.py):
// shared by `onemodel wai run` and the native vector tests. Integers are decimal strings, graphs hex.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "onemodel/wai.h"

namespace onemodel::wai {

inline std::vector<uint8_t> from_hex(const std::string& hex) {
  if (hex.size() % 2 != 0) throw std::runtime_error("odd-length hex");
  std::vector<uint8_t> out(hex.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) out[i] = uint8_t(std::stoul(hex.substr(2 * i, 2), nullptr, 16));
  return out;
}

// A tensor {"shape": [C, H, W], "data": [...]} of a vector line.
inline IntTensor tensor_of(const nlohmann::json& t) {
  IntTensor out;
  for (size_t i = 0; i < 3; ++i) out.shape[i] = std::stoll(t.at("shape").at(i).get<std::string>());
  for (const nlohmann::json& v : t.at("data")) out.data.push_back(std::stoll(v.get<std::string>()));
  return out;
}

}  // namespace onemodel::wai
