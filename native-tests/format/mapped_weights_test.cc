// The weights of a memory-mapped .onemodel file are used where they lie (docs/format.md, "Where the bytes
// live"): creating a session reads none of a large weight, so the process's resident set grows by far less
// than the weight (copying it would add all of it, and touch the mapping besides), and the session computes
// what a session over copied bytes computes.
#include <gtest/gtest.h>
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

TEST(MappedWeights, SessionUsesTheWeightsOfAMappedFileInPlace) {
  constexpr int64_t kCount = int64_t{4} << 20;  // a 16 MiB weight
  Tensor w(DType::F32, {kCount});
  Tensor x(DType::F32, {kCount});
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
  const fs::path file =
      fs::temp_directory_path() / ("onemodel-mapped-" + std::to_string(::getpid()) + ".onemodel");
  write_bytes(file, ModelFormat::convert(b.bytes()));
  SessionOptions options;
  options.mode = ExecutionMode::Exact;
  options.intra_op_threads = 1;
  {
    const long before = resident_kib();
    Session mapped = Session::load(file, options);
    // Half the weight: a copy would add all 16 MiB; the session itself takes about 4 MiB under ASan.
    EXPECT_LT(resident_kib() - before, 8 * 1024) << "KiB gained while creating the session";

    const std::vector<std::byte> bytes = read_bytes(file);
    Session copied = Session::load(std::span<const std::byte>(bytes), options);
    const std::vector<Tensor> a = mapped.run({{"x", x}});
    const std::vector<Tensor> c = copied.run({{"x", x}});
    ASSERT_EQ(a.size(), 1u);
    ASSERT_EQ(c.size(), 1u);
    EXPECT_TRUE(same_bytes(a[0], c[0]));
    const auto* y = static_cast<const float*>(a[0].raw());
    int64_t wrong = 0;
    for (int64_t i = 0; i < kCount; ++i) wrong += y[i] != xv[i] + wv[i];  // one float addition each
    EXPECT_EQ(wrong, 0);
  }
  fs::remove(file);
}

}  // namespace
}  // namespace onemodel::test
