// The models recorded in the cache by tools/oracle/real-models.mjs (docs/models.md): reading a model's cases
// (inputs and ONNX Runtime's outputs), running them through a session, and the scaled error of oracles.md.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/npy.h"
#include "onemodel/onemodel.h"
#include "ops/op_test_util.h"

namespace onemodel::test {

inline std::filesystem::path cache_root() {
  if (const char* env = std::getenv("ONEMODEL_CACHE"); env != nullptr && *env != '\0') return env;
  const char* home = std::getenv("HOME");
  return std::filesystem::path(home != nullptr ? home : "/") / ".cache" / "onemodel";
}

// One recorded case: the inputs and ONNX Runtime's outputs (docs/models.md, manifest.tsv).
struct Recorded {
  std::string name;  // empty for a model recorded on one case
  std::vector<NamedTensor> inputs;
  std::vector<std::string> sources;  // per input: "<case>:<output>" it was taken from, or empty
  std::vector<std::string> output_names;
  std::vector<Tensor> outputs;  // ONNX Runtime's
};

// The recorded cases of a model, in recording order; false with `why` set when the cache lacks them.
inline bool load_recorded(const std::string& model, std::vector<Recorded>& out, std::string& why) {
  const std::filesystem::path dir = cache_root() / "oracle" / model;
  std::ifstream manifest(dir / "manifest.tsv");
  if (!std::filesystem::exists(cache_root() / "models" / (model + ".onnx")) || !manifest) {
    why = "real model '" + model + "' is not in the cache " + cache_root().string() +
          ": run tools/fetch-models.sh && node tools/oracle/real-models.mjs (tools/test.sh does)";
    return false;
  }
  std::string line;
  while (std::getline(manifest, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f;
    std::istringstream fields(line);
    for (std::string field; std::getline(fields, field, '\t');) f.push_back(field);
    if (f.size() != 5 && f.size() != 7)
      throw std::runtime_error("bad manifest row in " + model + ": " + line);
    const std::string case_name = f.size() == 7 ? f[5] : "";
    if (out.empty() || out.back().name != case_name) out.push_back({case_name, {}, {}, {}, {}});
    Recorded& rec = out.back();
    Tensor t = npy::read_file(dir / case_name / (f[0] + "-" + f[1] + ".npy"));
    if (f[0] == "input") {
      rec.inputs.push_back({f[2], std::move(t)});
      rec.sources.push_back(f.size() == 7 && f[6] != "-" ? f[6] : "");
    } else {
      rec.output_names.push_back(f[2]);
      rec.outputs.push_back(std::move(t));
    }
  }
  return true;
}

// max |got - want| / max |want| over float32 tensors of one shape (oracles.md); infinity on a shape mismatch.
inline double scaled_error(const Tensor& got, const Tensor& want) {
  if (got.dtype() != DType::F32 || want.dtype() != DType::F32 || got.shape() != want.shape()) return INFINITY;
  const auto g = got.data<float>();
  const auto w = want.data<float>();
  double diff = 0, scale = 0;
  for (size_t i = 0; i < w.size(); ++i) {
    if (std::isnan(g[i]) != std::isnan(w[i])) return INFINITY;
    diff = std::max(diff, std::fabs(static_cast<double>(g[i]) - w[i]));
    scale = std::max(scale, std::fabs(static_cast<double>(w[i])));
  }
  return scale == 0 ? diff : diff / scale;
}

// Our outputs of every case, from one session; an input with a source takes our output of that earlier case.
inline std::vector<std::vector<Tensor>> run_model(const std::string& model,
                                                  const std::vector<Recorded>& cases, ExecutionMode mode,
                                                  const std::string& kernels, int threads) {
  Session s = Session::load(cache_root() / "models" / (model + ".onnx"), options(mode, kernels, threads));
  std::vector<std::vector<Tensor>> ours;
  for (const Recorded& rec : cases) {
    std::vector<NamedTensor> inputs = rec.inputs;
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (rec.sources[i].empty()) continue;
      const size_t colon = rec.sources[i].find(':');
      const std::string from_case = rec.sources[i].substr(0, colon),
                        from_output = rec.sources[i].substr(colon + 1);
      bool found = false;
      for (size_t c = 0; c < ours.size() && !found; ++c) {
        if (cases[c].name != from_case) continue;
        for (size_t o = 0; o < cases[c].output_names.size() && !found; ++o) {
          if (cases[c].output_names[o] != from_output) continue;
          inputs[i].tensor = ours[c][o];
          found = true;
        }
      }
      if (!found) throw std::runtime_error(model + ": no earlier output " + rec.sources[i]);
    }
    ours.push_back(s.run(inputs, rec.output_names));
  }
  return ours;
}

}  // namespace onemodel::test
