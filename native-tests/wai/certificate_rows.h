// What the certifier suites read from testdata/wai: the rows the independent Python certifier
// (tools/wai/reference.py) wrote to testdata/wai/certificates/, each with the vector graph it describes.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "tools/cli/wai_vector_json.h"

namespace onemodel::wai::testing {

inline const std::filesystem::path kVectorDir =
    std::filesystem::path(ONEMODEL_SOURCE_DIR) / "testdata" / "wai";

// A row of a certificate file and the WHG1 bytes of the vector graph it names.
struct CertificateRow {
  nlohmann::json row;
  std::vector<uint8_t> graph;
};

// The rows of certificates/<file> (none when the file is missing: the caller asserts on that), each with its
// graph from the per-operator and graph vector files.
inline std::vector<CertificateRow> certificate_rows(const std::string& file) {
  std::map<std::string, std::string> graphs;
  for (const auto& e : std::filesystem::directory_iterator(kVectorDir)) {
    if (e.path().extension() != ".jsonl") continue;
    std::ifstream in(e.path());
    std::string line;
    while (std::getline(in, line)) {
      const nlohmann::json v = nlohmann::json::parse(line);
      if (!v.contains("header")) graphs[v.at("id")] = v.at("graph");
    }
  }
  std::vector<CertificateRow> rows;
  std::ifstream in(kVectorDir / "certificates" / file);
  std::string line;
  while (std::getline(in, line)) {
    nlohmann::json row = nlohmann::json::parse(line);
    const auto graph = graphs.find(row.at("id"));
    if (graph == graphs.end()) throw std::runtime_error(file + ": no vector graph " + row.at("id").dump());
    rows.push_back({std::move(row), from_hex(graph->second)});
  }
  return rows;
}

}  // namespace onemodel::wai::testing
