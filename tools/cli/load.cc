#include "cli/load.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>

#include "onemodel/onemodel.h"

#if defined(__unix__) || defined(__APPLE__)
#include <sys/resource.h>
#endif

namespace onemodel::cli {

namespace {

// A "Name:   123 kB" line of /proc/self/status in KiB, or -1.
long status_kib(const char* name) {
  std::ifstream status("/proc/self/status");
  const std::string prefix = std::string(name) + ":";
  for (std::string line; std::getline(status, line);) {
    if (line.compare(0, prefix.size(), prefix) == 0) return std::stol(line.substr(prefix.size()));
  }
  return -1;
}

// User plus system CPU time of the whole process in milliseconds, or -1 where it cannot be read.
double cpu_ms() {
#if defined(__unix__) || defined(__APPLE__)
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return -1;
  return (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e3 +
         (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e3;
#else
  return -1;
#endif
}

// Writing 5 to clear_refs sets the peak resident set back to the current one (Linux 4.0 and later).
bool reset_peak_rss() {
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";
  clear.flush();
  return static_cast<bool>(clear);
}

}  // namespace

int load_main(const std::vector<std::string>& args) {
  std::string model, warmup;
  SessionOptions options;
  options.intra_op_threads = 1;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--threads" && i + 1 < args.size()) {
      options.intra_op_threads = std::stoi(args[++i]);
    } else if (a == "--warmup" && i + 1 < args.size()) {
      warmup = args[++i];
    } else if (a == "--mode" && i + 1 < args.size() && (args[i + 1] == "fast" || args[i + 1] == "exact")) {
      options.mode = args[++i] == "exact" ? ExecutionMode::Exact : ExecutionMode::Fast;
    } else if (model.empty() && !a.empty() && a[0] != '-') {
      model = a;
    } else {
      std::fprintf(
          stderr, "onemodel: load takes MODEL [--mode fast|exact] [--threads N] [--warmup MODEL], got '%s'\n",
          a.c_str());
      return 2;
    }
  }
  if (model.empty()) {
    std::fprintf(stderr, "onemodel: load takes MODEL [--mode fast|exact] [--threads N] [--warmup MODEL]\n");
    return 2;
  }
  // A first, small session pages in the code and sets up the allocator and threads, as a long-lived process
  // would have done already, so the figures below are the model's own.
  if (!warmup.empty()) Session::load(warmup, options);
  const long baseline = status_kib("VmRSS");
  const bool reset = reset_peak_rss();
  const double cpu0 = cpu_ms();
  const auto t0 = std::chrono::steady_clock::now();
  Session session = Session::load(model, options);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const double cpu = cpu_ms() - cpu0;
  std::printf("load_ms %.3f cpu_ms %.3f baseline_rss_kib %ld peak_rss_kib %ld peak_reset %d\n", ms, cpu,
              baseline, status_kib("VmHWM"), reset ? 1 : 0);
  return 0;
}

}  // namespace onemodel::cli
