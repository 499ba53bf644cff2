// The real models of tools/real-models.tsv against ONNX Runtime's outputs recorded by
// tools/oracle/real-models.mjs (both live in the cache, never in the repository): scaled error at most 1e-4
// (oracles.md) in fast mode, fast-mode bits independent of the thread count, exact mode within the same bound
// and bit-identical on every kernel path at 1 and 2 threads. A model recorded on several cases (the
// voice-activity detectors) runs them in order in one session; an input recorded as an earlier case's output
// (a recurrent state) is fed our own output of that case, so a chain of chunks carries our state, and each
// chunk is compared with ONNX Runtime's. Skipped, loudly, only when the cache has not been filled.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "models/recorded_models.h"
#include "ops/op_test_util.h"

namespace onemodel::test {
namespace {

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

// IS-Net medium, stored in float16 (docs/models.md), against ONNX Runtime's output on the same file: the fp16
// gate of fp16.md, scaled error at most 4e-3 on every output in fast and exact mode, and the exact bits
// independent of the thread count. The gate's second clause (our error against the float32 twin at most 1.5
// times ONNX Runtime's) is asserted in fast mode, which keeps binary32 between nodes as ONNX Runtime's CPU
// run evidently does (docs/architecture.md, "Half precision in fast mode"); exact mode rounds every node
// output to float16 as fp16.md prescribes, which puts it about 4x further from the twin than ONNX Runtime
// (docs/models.md), so there the clause is printed only.
// Native stage only: one run of this 1024x1024 model takes about 15 s natively and several minutes (and
// gigabytes more) under AddressSanitizer or qemu, and the half-precision path it checks is the same code
// there.
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__) && !defined(__aarch64__)
TEST(Fp16Model, IsNetMediumMeetsTheGate) {
  std::vector<Recorded> half, twin;
  std::string why;
  if (!load_recorded("isnet-medium", half, why) || !load_recorded("isnet-medium-fp32", twin, why))
    GTEST_SKIP() << "SKIPPED: " << why;
  ASSERT_EQ(half.size(), 1u);
  ASSERT_EQ(twin.size(), 1u);
  ASSERT_EQ(half[0].output_names, twin[0].output_names);

  auto check = [&](const std::vector<std::vector<Tensor>>& got, ExecutionMode execution) {
    const char* mode = execution == ExecutionMode::Fast ? "fast" : "exact";
    ASSERT_EQ(got.size(), 1u);
    ASSERT_EQ(got[0].size(), half[0].outputs.size());
    for (size_t i = 0; i < got[0].size(); ++i) {
      const double vs_ort = scaled_error(got[0][i], half[0].outputs[i]);
      const double ours_vs_twin = scaled_error(got[0][i], twin[0].outputs[i]);
      const double ort_vs_twin = scaled_error(half[0].outputs[i], twin[0].outputs[i]);
      EXPECT_LE(vs_ort, 4e-3) << "isnet-medium output " << half[0].output_names[i] << " (" << mode << ")";
      if (execution == ExecutionMode::Fast) {
        EXPECT_LE(ours_vs_twin, 1.5 * ort_vs_twin) << "isnet-medium output " << half[0].output_names[i]
                                                   << ": further from the float32 twin than 1.5x ORT";
      }
      std::printf("[ fp16 gate ] isnet-medium %s %s: vs ORT fp16 %.3g; vs fp32 twin: ours %.3g, ORT %.3g\n",
                  half[0].output_names[i].c_str(), mode, vs_ort, ours_vs_twin, ort_vs_twin);
    }
  };
  check(run_model("isnet-medium", half, ExecutionMode::Fast, "", 1), ExecutionMode::Fast);
  const auto exact1 = run_model("isnet-medium", half, ExecutionMode::Exact, "", 1);
  check(exact1, ExecutionMode::Exact);
  const auto exact2 = run_model("isnet-medium", half, ExecutionMode::Exact, "", 2);
  for (size_t i = 0; i < exact1[0].size(); ++i) {
    EXPECT_TRUE(same_bytes(exact1[0][i], exact2[0][i]))
        << "isnet-medium output " << half[0].output_names[i] << ": exact bits differ at 2 threads";
  }
}
#endif

}  // namespace
}  // namespace onemodel::test
