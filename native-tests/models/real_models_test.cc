// The real models of tools/real-models.tsv against ONNX Runtime's outputs recorded by
// tools/oracle/real-models.mjs (both live in the cache, never in the repository): scaled error at most 1e-4
// (oracles.md) in fast mode, fast-mode bits independent of the thread count, exact mode within the same bound
// and bit-identical on every kernel path at 1 and 2 threads. Skipped, loudly, only when the cache has not
// been filled.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
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

struct Recorded {
  std::vector<NamedTensor> inputs;
  std::vector<std::string> output_names;
  std::vector<Tensor> outputs;  // ONNX Runtime's
};

// The recorded case of a model; false with `why` set when the cache lacks it.
bool load_recorded(const std::string& model, Recorded& out, std::string& why) {
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
    std::istringstream fields(line);
    std::string kind, index, name;
    std::getline(fields, kind, '\t');
    std::getline(fields, index, '\t');
    std::getline(fields, name, '\t');
    Tensor t = npy::read_file(dir / (kind + "-" + index + ".npy"));
    if (kind == "input") {
      out.inputs.push_back({name, std::move(t)});
    } else {
      out.output_names.push_back(name);
      out.outputs.push_back(std::move(t));
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

std::vector<Tensor> run_model(const std::string& model, const Recorded& rec, ExecutionMode mode,
                              const std::string& kernels, int threads) {
  Session s = Session::load(cache_root() / "models" / (model + ".onnx"), options(mode, kernels, threads));
  return s.run(rec.inputs, rec.output_names);
}

class RealModel : public ::testing::TestWithParam<const char*> {};

TEST_P(RealModel, MatchesOnnxRuntimeAndIsReproducible) {
  const std::string model = GetParam();
  Recorded rec;
  std::string why;
  if (!load_recorded(model, rec, why)) GTEST_SKIP() << "SKIPPED: " << why;
  ASSERT_FALSE(rec.outputs.empty());

  const std::vector<Tensor> fast1 = run_model(model, rec, ExecutionMode::Fast, "", 1);
  ASSERT_EQ(fast1.size(), rec.outputs.size());
  for (size_t i = 0; i < fast1.size(); ++i) {
    const double err = scaled_error(fast1[i], rec.outputs[i]);
    EXPECT_LE(err, 1e-4) << model << " output " << rec.output_names[i] << " (fast)";
    std::printf("[ real model ] %s %s fast: scaled error %.3g\n", model.c_str(), rec.output_names[i].c_str(),
                err);
  }
  const std::vector<Tensor> fast2 = run_model(model, rec, ExecutionMode::Fast, "", 2);
  for (size_t i = 0; i < fast1.size(); ++i) {
    EXPECT_EQ(output_hash(fast1[i]), output_hash(fast2[i])) << model << ": fast mode differs at 2 threads";
  }

  // Exact mode: every path at 1 and 2 threads gives the bits of the first. Sanitizer builds, which run an
  // order of magnitude slower, check the scalar path and the best one.
  std::vector<std::string> paths = kernel_paths();
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  paths = {paths.front(), paths.back()};
#endif
  std::vector<Tensor> reference;
  for (const std::string& path : paths) {
    for (int threads : {1, 2}) {
      std::vector<Tensor> exact = run_model(model, rec, ExecutionMode::Exact, path, threads);
      ASSERT_EQ(exact.size(), rec.outputs.size());
      if (reference.empty()) {
        reference = std::move(exact);
        for (size_t i = 0; i < reference.size(); ++i) {
          const double err = scaled_error(reference[i], rec.outputs[i]);
          EXPECT_LE(err, 1e-4) << model << " output " << rec.output_names[i] << " (exact)";
          std::printf("[ real model ] %s %s exact: scaled error %.3g, sha256 %s\n", model.c_str(),
                      rec.output_names[i].c_str(), err, output_hash(reference[i]).c_str());
        }
        continue;
      }
      for (size_t i = 0; i < exact.size(); ++i) {
        EXPECT_TRUE(same_bytes(exact[i], reference[i]))
            << model << " output " << rec.output_names[i] << ": exact bits differ on " << path << " at "
            << threads << " threads";
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Issue4, RealModel,
                         ::testing::Values("cls", "det", "melspectrogram", "wake-embedding"),
                         [](const auto& info) {
                           std::string n = info.param;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

}  // namespace
}  // namespace onemodel::test
