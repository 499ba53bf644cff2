// The weights of a memory-mapped .onemodel file are used where they lie (docs/format.md, "Where the bytes
// live"): creating a session reads none of a large weight, so the process's resident set grows by far less
// than the weight (copying it would add all of it, and touch the mapping besides). A session over borrowed
// bytes copies them once, aligned, and uses that copy the same way.
#include <gtest/gtest.h>
#include <malloc.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "format_test_util.h"
#include "onemodel/onemodel.h"
#include "ops/op_test_util.h"

namespace onemodel::test {
namespace {

namespace fs = std::filesystem;

long resident_kib() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  ADD_FAILURE() << "no VmRSS in /proc/self/status";
  return 0;
}

// A 16 MiB weight added to the input: y = x + w, one float addition each.
struct AddWeightModel {
  static constexpr int64_t kCount = int64_t{4} << 20;
  Tensor w{DType::F32, {kCount}};
  Tensor x{DType::F32, {kCount}};
  std::vector<std::byte> onemodel_bytes;

  AddWeightModel() {
    auto* wv = static_cast<float*>(w.raw());
    auto* xv = static_cast<float*>(x.raw());
    for (int64_t i = 0; i < kCount; ++i) {
      wv[i] = static_cast<float>(i % 1000) / 1000.0f;
      xv[i] = static_cast<float>(i % 7) - 3.0f;
    }
    ModelBuilder b(17);
    b.input("x", DType::F32, {kCount})
        .initializer("w", w)
        .node("Add", {"x", "w"}, {"y"})
        .output("y", DType::F32);
    onemodel_bytes = ModelFormat::convert(b.bytes());
  }

  void expect_sum(Session& session) const {
    const std::vector<Tensor> out = session.run({{"x", x}});
    ASSERT_EQ(out.size(), 1u);
    const auto* y = static_cast<const float*>(out[0].raw());
    const auto* wv = static_cast<const float*>(w.raw());
    const auto* xv = static_cast<const float*>(x.raw());
    int64_t wrong = 0;
    for (int64_t i = 0; i < kCount; ++i) wrong += y[i] != xv[i] + wv[i];
    EXPECT_EQ(wrong, 0);
  }
};

SessionOptions exact_one_thread() {
  SessionOptions options;
  options.mode = ExecutionMode::Exact;
  options.intra_op_threads = 1;
  return options;
}

TEST(MappedWeights, SessionUsesTheWeightsOfAMappedFileInPlace) {
  const AddWeightModel model;
  const fs::path file =
      fs::temp_directory_path() / ("onemodel-mapped-" + std::to_string(::getpid()) + ".onemodel");
  write_bytes(file, model.onemodel_bytes);
  {
    const long before = resident_kib();
    Session mapped = Session::load(file, exact_one_thread());
    // Half the weight: a copy would add all 16 MiB; the session itself takes about 4 MiB under ASan.
    EXPECT_LT(resident_kib() - before, 8 * 1024) << "KiB gained while creating the session";
    model.expect_sum(mapped);
  }
  fs::remove(file);
}

// Session::load(span) copies the bytes once, into a 64-byte aligned buffer like a file read, and then uses
// that copy's weights in place: a second copy of the weight into the session would add another 16 MiB.
TEST(MappedWeights, SessionOverABorrowedSpanCopiesTheWeightOnce) {
  const AddWeightModel model;
  // Give back the free pages the model's construction left in the heap, so that the copies below take new
  // pages and show in the resident set.
  malloc_trim(0);
  const long before = resident_kib();
  Session copied = Session::load(std::span<const std::byte>(model.onemodel_bytes), exact_one_thread());
  EXPECT_LT(resident_kib() - before, 16 * 1024 + 8 * 1024) << "KiB gained while creating the session";
  model.expect_sum(copied);
}

}  // namespace
}  // namespace onemodel::test
