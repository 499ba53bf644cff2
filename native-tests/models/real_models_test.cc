// The real models of tools/real-models.tsv against ONNX Runtime's outputs recorded by
// tools/oracle/real-models.mjs (both live in the cache, never in the repository): scaled error at most 1e-4
// (oracles.md) in fast mode, fast-mode bits independent of the thread count, exact mode within the same bound
// and bit-identical on every kernel path at 1 and 2 threads. A model recorded on several cases (the
// voice-activity detectors) runs them in order in one session; an input recorded as an earlier case's output
// (a recurrent state) is fed our own output of that case, so a chain of chunks carries our state, and each
// chunk is compared with ONNX Runtime's. Skipped, loudly, only when the cache has not been filled.
#include <gtest/gtest.h>

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
namespace {

namespace fs = std::filesystem;

fs::path cache_root() {
  if (const char* env = std::getenv("ONEMODEL_CACHE"); env != nullptr && *env != '\0') return env;
  const char* home = std::getenv("HOME");
  return fs::path(home != nullptr ? home : "/") / ".cache" / "onemodel";
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
bool load_recorded(const std::string& model, std::vector<Recorded>& out, std::string& why) {
  const fs::path dir = cache_root() / "oracle" / model;
  std::ifstream manifest(dir / "manifest.tsv");
  if (!fs::exists(cache_root() / "models" / (model + ".onnx")) || !manifest) {
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
double scaled_error(const Tensor& got, const Tensor& want) {
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
std::vector<std::vector<Tensor>> run_model(const std::string& model, const std::vector<Recorded>& cases,
                                           ExecutionMode mode, const std::string& kernels, int threads) {
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

// "model" or "model/case" for messages.
std::string label(const std::string& model, const Recorded& rec) {
  return rec.name.empty() ? model : model + "/" + rec.name;
}

class RealModel : public ::testing::TestWithParam<const char*> {};

TEST_P(RealModel, MatchesOnnxRuntimeAndIsReproducible) {
  const std::string model = GetParam();
  std::vector<Recorded> cases;
  std::string why;
  if (!load_recorded(model, cases, why)) GTEST_SKIP() << "SKIPPED: " << why;
  ASSERT_FALSE(cases.empty());

  // Each case of `got` within the bound of ONNX Runtime's outputs.
  auto check_error = [&](const std::vector<std::vector<Tensor>>& got, const char* mode, bool with_hash) {
    ASSERT_EQ(got.size(), cases.size());
    for (size_t c = 0; c < cases.size(); ++c) {
      const Recorded& rec = cases[c];
      ASSERT_FALSE(rec.outputs.empty()) << label(model, rec);
      ASSERT_EQ(got[c].size(), rec.outputs.size()) << label(model, rec);
      for (size_t i = 0; i < rec.outputs.size(); ++i) {
        const double err = scaled_error(got[c][i], rec.outputs[i]);
        EXPECT_LE(err, 1e-4) << label(model, rec) << " output " << rec.output_names[i] << " (" << mode << ")";
        std::printf("[ real model ] %s %s %s: scaled error %.3g%s%s\n", label(model, rec).c_str(),
                    rec.output_names[i].c_str(), mode, err, with_hash ? ", sha256 " : "",
                    with_hash ? output_hash(got[c][i]).c_str() : "");
      }
    }
  };

  const auto fast1 = run_model(model, cases, ExecutionMode::Fast, "", 1);
  check_error(fast1, "fast", false);
  if (HasFatalFailure()) return;
  const auto fast2 = run_model(model, cases, ExecutionMode::Fast, "", 2);
  for (size_t c = 0; c < cases.size(); ++c) {
    for (size_t i = 0; i < fast1[c].size(); ++i) {
      EXPECT_EQ(output_hash(fast1[c][i]), output_hash(fast2[c][i]))
          << label(model, cases[c]) << " output " << cases[c].output_names[i]
          << ": fast mode differs at 2 threads";
    }
  }

  // Exact mode: every path at 1 and 2 threads gives the bits of the first. Sanitizer builds, which run an
  // order of magnitude slower, check the scalar path and the best one.
  std::vector<std::string> paths = kernel_paths();
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  paths = {paths.front(), paths.back()};
#endif
  std::vector<std::vector<Tensor>> reference;
  for (const std::string& path : paths) {
    for (int threads : {1, 2}) {
      auto exact = run_model(model, cases, ExecutionMode::Exact, path, threads);
      if (reference.empty()) {
        check_error(exact, "exact", true);
        if (HasFatalFailure()) return;
        reference = std::move(exact);
        continue;
      }
      for (size_t c = 0; c < cases.size(); ++c) {
        for (size_t i = 0; i < exact[c].size(); ++i) {
          EXPECT_TRUE(same_bytes(exact[c][i], reference[c][i]))
              << label(model, cases[c]) << " output " << cases[c].output_names[i] << ": exact bits differ on "
              << path << " at " << threads << " threads";
        }
      }
    }
  }
}

std::string test_name(const ::testing::TestParamInfo<const char*>& info) {
  std::string n = info.param;
  std::replace(n.begin(), n.end(), '-', '_');
  return n;
}

INSTANTIATE_TEST_SUITE_P(Issue4, RealModel,
                         ::testing::Values("cls", "det", "melspectrogram", "wake-embedding"), test_name);
INSTANTIATE_TEST_SUITE_P(Issue5, RealModel, ::testing::Values("silero-vad-legacy", "silero-vad-v5"),
                         test_name);

}  // namespace
}  // namespace onemodel::test
