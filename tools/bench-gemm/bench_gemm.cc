// bench-gemm: one-thread throughput of the GEMM kernels on every path this CPU runs, fast and exact, for
// square sizes, as a fraction of the path's nominal fused multiply-add peak (kernels-gemm.md "Measuring exact
// against fast"). Prints a Markdown table.
//
//   bench-gemm [--ghz X] [--fma-ports N] [--sizes 64,128,...] [--min-ms 80] [--reps 3] [--paths a,b] [--wall]
//
// --ghz and --fma-ports (512-bit FMA ports, used for the avx512 path) replace the measured values.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "kernels/kernel_table.h"
#include "threading/parallel_for.h"

namespace {

// Times are this thread's CPU time by default: the machines this runs on are shared, and a preempted stretch
// would otherwise count as kernel time. --wall switches to the steady wall clock.
bool g_wall_clock = false;

double now_seconds() {
  if (g_wall_clock) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  }
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

double seconds_since(double start) {
  return now_seconds() - start;
}

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  }
  return "unknown";
}

#if defined(__x86_64__)
// Clock rate from a chain of dependent one-cycle register-register adds (immediate adds are not used: recent
// cores fold chains of those in the renamer), best of several short runs so a preemption does not count.
double measure_ghz() {
  constexpr long kIterations = 5'000'000;
  double best = 0.0;
  for (int run = 0; run < 7; ++run) {
    long x = 0, step = 1;
    const double start = now_seconds();
    for (long i = 0; i < kIterations; ++i) {
      __asm__ volatile(
          "add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\t"
          "add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\t"
          "add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\t"
          "add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0"
          : "+r"(x)
          : "r"(step));
    }
    best = std::max(best, static_cast<double>(kIterations) * 16.0 / seconds_since(start) / 1e9);
  }
  return best;
}

// 512-bit FMAs per cycle: 16 independent accumulator chains hide the latency, so the rate is the number of
// 512-bit FMA ports (1 or 2 depending on the part).
__attribute__((target("avx512f"))) double measure_avx512_fmas_per_cycle(double ghz) {
  constexpr long kIterations = 2'000'000;
  double best = 0.0;
  for (int run = 0; run < 5; ++run) {
    const double start = now_seconds();
    __asm__ volatile(
        "vxorps %%zmm0, %%zmm0, %%zmm0\n\t"
        "vmovaps %%zmm0, %%zmm16\n\tvmovaps %%zmm0, %%zmm17\n\t"
        "mov %0, %%rcx\n"
        "1:\n\t"
        "vfmadd231ps %%zmm16, %%zmm17, %%zmm0\n\tvfmadd231ps %%zmm16, %%zmm17, %%zmm1\n\t"
        "vfmadd231ps %%zmm16, %%zmm17, %%zmm2\n\tvfmadd231ps %%zmm16, %%zmm17, %%zmm3\n\t"
        "vfmadd231ps %%zmm16, %%zmm17, %%zmm4\n\tvfmadd231ps %%zmm16, %%zmm17, %%zmm5\n\t"
        "vfmadd231ps %%zmm16, %%zmm17, %%zmm6\n\tvfmadd231ps %%zmm16, %%zmm17, %%zmm7\n\t"
        "vfmadd231ps %%zmm16, %%zmm17, %%zmm8\n\tvfmadd231ps %%zmm16, %%zmm17, %%zmm9\n\t"
        "vfmadd231ps %%zmm16, %%zmm17, %%zmm10\n\tvfmadd231ps %%zmm16, %%zmm17, %%zmm11\n\t"
        "vfmadd231ps %%zmm16, %%zmm17, %%zmm12\n\tvfmadd231ps %%zmm16, %%zmm17, %%zmm13\n\t"
        "vfmadd231ps %%zmm16, %%zmm17, %%zmm14\n\tvfmadd231ps %%zmm16, %%zmm17, %%zmm15\n\t"
        "dec %%rcx\n\tjnz 1b\n\t"
        "vzeroupper"
        :
        : "r"(kIterations)
        : "rcx", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10",
          "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "cc");
    best = std::max(best, static_cast<double>(kIterations) * 16.0 / seconds_since(start) / 1e9 / ghz);
  }
  return best;
}
#endif

struct Options {
  double ghz = 0.0;
  int avx512_ports = 0;
  std::vector<int> sizes = {64, 128, 256, 512, 1024};
  std::string paths;  // comma-separated names; empty = every path the CPU runs
  double min_seconds = 0.080;
  int reps = 3;
};

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const char* value = i + 1 < argc ? argv[i + 1] : nullptr;
    if (arg == "--wall") {
      g_wall_clock = true;
      continue;
    }
    if (value == nullptr) {
      std::fprintf(stderr, "bench-gemm: %s needs a value\n", arg.c_str());
      std::exit(2);
    }
    if (arg == "--ghz")
      o.ghz = std::atof(value);
    else if (arg == "--fma-ports")
      o.avx512_ports = std::atoi(value);
    else if (arg == "--min-ms")
      o.min_seconds = std::atof(value) / 1000.0;
    else if (arg == "--reps")
      o.reps = std::max(1, std::atoi(value));
    else if (arg == "--paths")
      o.paths = std::string(",") + value + ",";
    else if (arg == "--sizes") {
      o.sizes.clear();
      for (const char* p = value; *p != '\0';) {
        if (std::atoi(p) > 0) o.sizes.push_back(std::atoi(p));
        p = std::strchr(p, ',');
        if (p == nullptr) break;
        ++p;
      }
    } else {
      std::fprintf(stderr,
                   "usage: bench-gemm [--ghz X] [--fma-ports N] [--sizes a,b,...] [--min-ms T] [--reps R] "
                   "[--paths a,b] [--wall]\n");
      std::exit(2);
    }
    ++i;
  }
  return o;
}

// The scalar path counts 4 lanes: the compiler vectorises its 4 x 4 microkernel with the baseline 128-bit ISA
// (each lane a different output, so the results are those of one-lane code).
int lanes(onemodel::KernelPath path) {
  switch (path) {
    case onemodel::KernelPath::Scalar:
    case onemodel::KernelPath::V128:
      return 4;
    case onemodel::KernelPath::Avx2:
      return 8;
    case onemodel::KernelPath::Avx512:
      return 16;
  }
  return 1;
}

// Mean seconds per call over calls run for at least min_seconds; the median of `reps` such means.
double time_call(const onemodel::KernelTable& t, const onemodel::GemmArgs& args, float* scratch,
                 const Options& o) {
  const onemodel::ThreadContext one_thread{1};
  for (int i = 0; i < 2; ++i) t.gemm(args, scratch, one_thread);
  std::vector<double> means;
  for (int rep = 0; rep < o.reps; ++rep) {
    long calls = 0;
    const double start = now_seconds();
    double elapsed = 0.0;
    do {
      t.gemm(args, scratch, one_thread);
      ++calls;
      elapsed = seconds_since(start);
    } while (elapsed < o.min_seconds);
    means.push_back(elapsed / static_cast<double>(calls));
  }
  std::sort(means.begin(), means.end());
  return means[means.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  Options o = parse_options(argc, argv);
  const char* ghz_source = "--ghz";
  const char* ports_source = "--fma-ports";
#if defined(__x86_64__)
  if (o.ghz <= 0.0) {
    o.ghz = measure_ghz();
    ghz_source = "measured: dependent integer-add chain";
  }
  if (o.avx512_ports <= 0 && onemodel::kernel_table(onemodel::KernelPath::Avx512) != nullptr) {
    o.avx512_ports = measure_avx512_fmas_per_cycle(o.ghz) > 1.3 ? 2 : 1;  // the rate sits near 1 or 2
    ports_source = "measured: 512-bit FMA throughput";
  }
#endif
  if (o.ghz <= 0.0) {
    std::fprintf(stderr, "bench-gemm: cannot measure the clock here; pass --ghz\n");
    return 2;
  }
  if (o.avx512_ports <= 0) o.avx512_ports = 2;

  std::printf("machine: %s, %d hardware threads\n\n", cpu_model_name().c_str(), onemodel::hardware_threads());
  std::printf("clock: %.2f GHz (%s)\n", o.ghz, ghz_source);
  std::printf("AVX-512 FMA ports: %d (%s); other paths assume 2 ports\n", o.avx512_ports, ports_source);
  std::printf(
      "peak = GHz x ports x lanes x 2 flops (lanes: scalar 4 as the compiler vectorises it with SSE2, v128 "
      "4, "
      "avx2 8, avx512 16); a ceiling for orientation: exact and the paths without FMA (scalar, x86 v128) "
      "issue a "
      "multiply and an add per term\n");
  std::printf(
      "C = A*B, n x n x n fp32, 1 thread, packing included; median of %d means of calls run >= %.0f ms (%s) "
      "after 2 warm-up calls\n\n",
      o.reps, o.min_seconds * 1000.0, g_wall_clock ? "wall clock" : "thread CPU time");
  std::printf("| path | mode | n | ms/call | GFLOP/s | %% of peak |\n|---|---|---:|---:|---:|---:|\n");

  std::mt19937 rng(1);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  for (onemodel::KernelPath path : {onemodel::KernelPath::Scalar, onemodel::KernelPath::V128,
                                    onemodel::KernelPath::Avx2, onemodel::KernelPath::Avx512}) {
    const onemodel::KernelTable* t = onemodel::kernel_table(path);
    if (t == nullptr) continue;
    if (!o.paths.empty() && o.paths.find("," + std::string(t->name) + ",") == std::string::npos) continue;
    const int ports = path == onemodel::KernelPath::Avx512 ? o.avx512_ports : 2;
    const double peak_gflops = o.ghz * ports * lanes(path) * 2.0;
    for (bool exact : {false, true}) {
      for (int n : o.sizes) {
        std::vector<float> a(static_cast<size_t>(n) * n), b(a.size()), c(a.size());
        for (float& v : a) v = unit(rng);
        for (float& v : b) v = unit(rng);
        onemodel::GemmArgs args;
        args.m = args.n = args.k = n;
        args.a = a.data(), args.a_row = n, args.a_col = 1;
        args.b = b.data(), args.b_row = n, args.b_col = 1;
        args.c = c.data(), args.ldc = n, args.exact = exact;
        std::vector<float> scratch(t->gemm_scratch_floats(args, onemodel::ThreadContext{1}));
        const double seconds = time_call(*t, args, scratch.data(), o);
        const double gflops = 2.0 * n * static_cast<double>(n) * n / seconds / 1e9;
        std::printf("| %s | %s | %d | %.3f | %.1f | %.1f%% |\n", std::string(t->name).c_str(),
                    exact ? "exact" : "fast", n, seconds * 1e3, gflops, 100.0 * gflops / peak_gflops);
        std::fflush(stdout);
      }
    }
  }
  return 0;
}
