// The kernel table registry and our own CPU check, the latter compared with the feature flags Linux reports.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "kernels/cpu.h"
#include "kernels/kernel_table.h"

namespace onemodel {
namespace {

constexpr KernelPath kPaths[] = {KernelPath::Scalar, KernelPath::V128, KernelPath::Avx2, KernelPath::Avx512};

TEST(KernelTable, NamesRoundTrip) {
  for (KernelPath path : kPaths) {
    KernelPath parsed = KernelPath::Scalar;
    ASSERT_TRUE(parse_kernel_path(kernel_path_name(path), parsed)) << kernel_path_name(path);
    EXPECT_EQ(parsed, path);
  }
  EXPECT_EQ(kernel_path_name(KernelPath::Avx512), "avx512");
  KernelPath untouched = KernelPath::V128;
  for (const char* bad : {"", "AVX2", "sse", "avx512 ", "neon"}) {
    EXPECT_FALSE(parse_kernel_path(bad, untouched)) << bad;
    EXPECT_EQ(untouched, KernelPath::V128);
  }
}

TEST(KernelTable, TablesDescribeTheirPath) {
  ASSERT_NE(kernel_table(KernelPath::Scalar), nullptr);
  for (KernelPath path : kPaths) {
    const KernelTable* t = kernel_table(path);
    if (t == nullptr) {
      EXPECT_NE(path, best_kernel_path());
      continue;
    }
    EXPECT_TRUE(cpu_supports(path));
    EXPECT_EQ(t->path, path);
    EXPECT_EQ(t->name, kernel_path_name(path));
  }
  EXPECT_NE(kernel_table(best_kernel_path()), nullptr);
}

TEST(KernelTable, BestPathIsTheMostCapableAvailable) {
  const KernelPath best = best_kernel_path();
  for (KernelPath path : kPaths) {
    if (static_cast<int>(path) > static_cast<int>(best)) EXPECT_EQ(kernel_table(path), nullptr);
  }
}

#if defined(__linux__) && defined(__x86_64__)
std::set<std::string> linux_cpu_flags() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  std::set<std::string> flags;
  while (std::getline(in, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    std::istringstream words(line.substr(line.find(':') + 1));
    for (std::string w; words >> w;) flags.insert(w);
    break;
  }
  return flags;
}

// Linux lists avx, avx2 and avx512* only when it also saves their register state, like our xgetbv check.
TEST(CpuCheck, AgreesWithLinuxFeatureFlags) {
  const std::set<std::string> f = linux_cpu_flags();
  if (f.empty()) GTEST_SKIP() << "no /proc/cpuinfo flags";
  const auto has = [&](const char* name) { return f.count(name) > 0; };
  EXPECT_TRUE(cpu_supports(KernelPath::Scalar));
  EXPECT_EQ(cpu_supports(KernelPath::V128), has("sse4_1"));
  const bool avx2 = has("avx2") && has("fma");
  EXPECT_EQ(cpu_supports(KernelPath::Avx2), avx2);
  EXPECT_EQ(cpu_supports(KernelPath::Avx512),
            avx2 && has("avx512f") && has("avx512dq") && has("avx512bw") && has("avx512vl"));
}
#endif

}  // namespace
}  // namespace onemodel
