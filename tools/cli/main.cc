// The `onemodel` command: run, info, conformance, golden, bench and ctc (ARCHITECTURE.md §8). The same
// source builds the native tool and `npx onemodel` (wasm), so both print the same bytes for the same work.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "cli/conformance.h"
#include "cli/ctc.h"
#include "cli/input_generator.h"
#include "cli/load.h"
#include "cli/wai.h"
#include "core/npy.h"
#include "core/sha256.h"
#include "golden/golden_kernels.h"
#include "onemodel/onemodel.h"
#include "onnx/onnx_reader.h"

namespace {

using onemodel::DType;
using onemodel::Tensor;

constexpr const char* kUsage =
    "usage:\n"
    "  onemodel run MODEL [--input NAME=FILE.npy]... [--mode fast|exact] [--threads N] [--kernels PATH]\n"
    "                     [--optimization none|basic|all] [--weight-storage float32|binary16|bfloat16]\n"
    "                     [--out DIR] [--hash] [--stats]\n"
    "  onemodel info MODEL\n"
    "  onemodel convert IN.onnx OUT.onemodel\n"
    "  onemodel conformance DATA_DIR [--mode fast|exact] [--json FILE] [--filter SUBSTR]\n"
    "  onemodel conformance-report FAST.json EXACT.json\n"
    "  onemodel golden-kernels [--kernels PATH] [--threads N]\n"
    "  onemodel bench MODEL [--input NAME=FILE.npy]... [--mode fast|exact] [--threads N] [--kernels PATH]\n"
    "                       [--optimization none|basic|all] [--weight-storage float32|binary16|bfloat16]\n"
    "                       [--seconds S]\n"
    "  onemodel load MODEL [--mode fast|exact] [--threads N] [--warmup MODEL]\n"
    "  onemodel ctc CASES.json\n"
    "  onemodel wai run VECTORS.jsonl [--hash] | GRAPH.whg1 [--input C,H,W=v,v,...]... [--scalar V]...\n"
    "  onemodel wai certify GRAPH.whg1 [GRAPH.whg1]...\n"
    "  onemodel wai admissible GRAPH.whg1\n"
    "  onemodel wai bench GRAPH.whg1 [--runs N] [--threads T]\n"
    "Without --input, each input gets the deterministic values of docs/cli.md (symbolic dimensions = 1).\n";

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct RunArgs {
  std::string model;
  std::vector<std::pair<std::string, std::string>> inputs;  // name, .npy path
  onemodel::SessionOptions options;
  std::string out_dir;
  bool hash = false;
  bool stats = false;
  double seconds = 3.0;
};

RunArgs parse_run_args(const std::vector<std::string>& args, bool bench) {
  RunArgs r;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw UsageError(a + " needs a value");
      return args[++i];
    };
    if (a == "--input") {
      const std::string& v = value();
      size_t eq = v.find('=');
      if (eq == std::string::npos || eq == 0)
        throw UsageError("--input takes NAME=FILE.npy, got '" + v + "'");
      r.inputs.emplace_back(v.substr(0, eq), v.substr(eq + 1));
    } else if (a == "--mode") {
      const std::string& v = value();
      if (v == "fast")
        r.options.mode = onemodel::ExecutionMode::Fast;
      else if (v == "exact")
        r.options.mode = onemodel::ExecutionMode::Exact;
      else
        throw UsageError("--mode takes fast or exact, got '" + v + "'");
    } else if (a == "--threads") {
      r.options.intra_op_threads = std::stoi(value());
    } else if (a == "--kernels") {
      r.options.kernels = value();
    } else if (a == "--optimization") {
      const std::string& v = value();
      if (v == "none")
        r.options.optimization_level = onemodel::OptimizationLevel::None;
      else if (v == "basic")
        r.options.optimization_level = onemodel::OptimizationLevel::Basic;
      else if (v == "all")
        r.options.optimization_level = onemodel::OptimizationLevel::All;
      else
        throw UsageError("--optimization takes none, basic or all, got '" + v + "'");
    } else if (a == "--weight-storage") {
      const std::string& v = value();
      if (v == "float32")
        r.options.weight_storage = onemodel::WeightStorage::Float32;
      else if (v == "binary16")
        r.options.weight_storage = onemodel::WeightStorage::Binary16;
      else if (v == "bfloat16")
        r.options.weight_storage = onemodel::WeightStorage::BFloat16;
      else
        throw UsageError("--weight-storage takes float32, binary16 or bfloat16, got '" + v + "'");
    } else if (a == "--out" && !bench) {
      r.out_dir = value();
    } else if (a == "--hash" && !bench) {
      r.hash = true;
    } else if (a == "--stats" && !bench) {
      r.stats = true;
    } else if (a == "--seconds" && bench) {
      r.seconds = std::stod(value());
    } else if (!a.empty() && a[0] == '-') {
      throw UsageError("unknown option " + a);
    } else if (r.model.empty()) {
      r.model = a;
    } else {
      throw UsageError("unexpected argument '" + a + "'");
    }
  }
  if (r.model.empty()) throw UsageError("MODEL is missing");
  return r;
}

std::vector<onemodel::NamedTensor> bind_inputs(const onemodel::Session& session, const RunArgs& args) {
  std::vector<onemodel::NamedTensor> feeds;
  for (const auto& [name, path] : args.inputs) feeds.push_back({name, onemodel::npy::read_file(path)});
  for (const auto& info : session.inputs()) {
    bool given = false;
    for (const auto& f : feeds) given = given || f.name == info.name;
    if (!given) feeds.push_back({info.name, onemodel::cli::generated_input(info)});
  }
  return feeds;
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

// "F32 [1, 3, ?]", or "sequence (packed U8)" / "optional (packed U8)" for values that travel packed.
std::string type_text(const onemodel::TensorInfo& info) {
  if (info.kind == onemodel::ValueKind::Sequence) return "sequence (packed U8)";
  if (info.kind == onemodel::ValueKind::Optional) return "optional (packed U8)";
  std::string s = std::string(onemodel::dtype_name(info.dtype)) + " ";
  if (!info.has_shape) return s + "[?]";
  s += "[";
  for (size_t i = 0; i < info.dims.size(); ++i) {
    const auto& d = info.dims[i];
    s += (i ? ", " : "") + (d.fixed() ? std::to_string(d.value) : d.param.empty() ? "?" : d.param);
  }
  return s + "]";
}

// A field of /proc/self/status in kB ("RssAnon", "VmHWM"); -1 where there is none (wasm, not Linux).
long long proc_status_kb(const std::string& field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.compare(0, field.size() + 1, field + ":") == 0)
      return std::atoll(line.c_str() + field.size() + 1);
  }
  return -1;
}

int run_command(const std::vector<std::string>& argv) {
  RunArgs args = parse_run_args(argv, false);
  auto session = onemodel::Session::load(args.model, args.options);
  // Resident memory once the session holds its weights: anonymous (copies, compact weights) and file-backed
  // (pages of a mapped model file that were read).
  const long long anon_loaded_kb = args.stats ? proc_status_kb("RssAnon") : -1;
  const long long file_loaded_kb = args.stats ? proc_status_kb("RssFile") : -1;
  auto outputs = session.run(bind_inputs(session, args));
  if (args.stats) {
    std::printf(
        "stats weight_bytes %zu rss_anon_after_load_kb %lld rss_file_after_load_kb %lld peak_rss_kb %lld\n",
        session.weight_bytes(), anon_loaded_kb, file_loaded_kb, proc_status_kb("VmHWM"));
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    const std::string& name = session.outputs()[i].name;
    const Tensor& t = outputs[i];
    if (args.hash) {
      std::printf("%s %s\n", name.c_str(), onemodel::output_hash(t).c_str());
    } else {
      std::printf("%s %s %s: %s\n", name.c_str(), std::string(onemodel::dtype_name(t.dtype())).c_str(),
                  shape_text(t.shape()).c_str(), onemodel::cli::preview_values(t, 8).c_str());
    }
    if (!args.out_dir.empty()) {
      std::filesystem::create_directories(args.out_dir);
      onemodel::npy::write_file(std::filesystem::path(args.out_dir) / (name + ".npy"), t);
    }
  }
  return 0;
}

int info_command(const std::vector<std::string>& argv) {
  if (argv.size() != 1) throw UsageError("info takes one MODEL");
  onemodel::ir::Model model = onemodel::onnx::import_model_file(argv[0]);
  std::printf("model: %s\n", std::filesystem::path(argv[0]).filename().string().c_str());
  std::printf("ir_version: %lld\n", static_cast<long long>(model.ir_version));
  std::printf("producer: %s %s\n", model.producer_name.c_str(), model.producer_version.c_str());
  std::string opsets;
  for (const auto& [domain, version] : model.opsets) {
    opsets += (opsets.empty() ? "" : ", ") + (domain.empty() ? std::string("ai.onnx") : domain) + " " +
              std::to_string(version);
  }
  std::printf("opsets: %s\n", opsets.c_str());
  std::map<std::string, int> op_counts;
  for (const auto& node : model.graph->nodes) ++op_counts[node.op_type];
  std::printf("nodes: %zu\n", model.graph->nodes.size());
  for (const auto& [op, count] : op_counts) std::printf("  %s x%d\n", op.c_str(), count);
  auto session = onemodel::Session::load(argv[0]);
  std::printf("inputs:\n");
  for (const auto& i : session.inputs()) {
    std::printf("  %s: %s\n", i.name.c_str(), type_text(i).c_str());
  }
  std::printf("outputs:\n");
  for (const auto& o : session.outputs()) {
    std::printf("  %s: %s\n", o.name.c_str(), type_text(o).c_str());
  }
  return 0;
}

// Writes the .onemodel form of a model (docs/format.md) and prints one summary line.
int convert_command(const std::vector<std::string>& argv) {
  if (argv.size() != 2) throw UsageError("convert takes IN.onnx OUT.onemodel");
  const auto t0 = std::chrono::steady_clock::now();
  std::printf("converting %s -> %s\n", argv[0].c_str(), argv[1].c_str());
  std::fflush(stdout);
  onemodel::ModelFormat::convert(argv[0], argv[1]);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::printf("wrote %s: %llu bytes (input %llu bytes) in %.1f ms\n", argv[1].c_str(),
              static_cast<unsigned long long>(std::filesystem::file_size(argv[1])),
              static_cast<unsigned long long>(std::filesystem::file_size(argv[0])), ms);
  return 0;
}

int golden_command(const std::vector<std::string>& argv) {
  onemodel::SessionOptions options;
  for (size_t i = 0; i < argv.size(); ++i) {
    if (argv[i] == "--kernels" && i + 1 < argv.size())
      options.kernels = argv[++i];
    else if (argv[i] == "--threads" && i + 1 < argv.size())
      options.intra_op_threads = std::stoi(argv[++i]);
    else
      throw UsageError("golden-kernels takes --kernels PATH and --threads N");
  }
  for (const std::string& line : onemodel::golden::kernel_lines(options.kernels, options.intra_op_threads)) {
    std::printf("%s\n", line.c_str());
  }
  return 0;
}

// bench-method.md: load, one cold call, warm-up, then repetitions of back-to-back calls.
int bench_command(const std::vector<std::string>& argv) {
  using clock = std::chrono::steady_clock;
  auto ms = [](clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); };
  RunArgs args = parse_run_args(argv, true);
  auto t0 = clock::now();
  auto session = onemodel::Session::load(args.model, args.options);
  double load_ms = ms(clock::now() - t0);
  auto feeds = bind_inputs(session, args);
  std::vector<Tensor> outputs;
  t0 = clock::now();
  session.run(feeds, {}, outputs);
  double first_ms = ms(clock::now() - t0);
  // In wasm, V8 runs a module first from its baseline compiler and swaps in optimised code in the background,
  // which took about a second of calls on the encoders; native code is ready at once.
#if defined(__EMSCRIPTEN__)
  constexpr auto kWarmUp = std::chrono::milliseconds(2000);
#else
  constexpr auto kWarmUp = std::chrono::milliseconds(200);
#endif
  auto warm_end = clock::now() + kWarmUp;
  while (clock::now() < warm_end) session.run(feeds, {}, outputs);
  std::vector<double> times;
  auto end =
      clock::now() + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(args.seconds));
  // The process's CPU time per call: unlike wall time, it leaves out the waits for a CPU on a busy machine.
  const std::clock_t cpu0 = std::clock();
  while (clock::now() < end || times.size() < 5) {
    t0 = clock::now();
    session.run(feeds, {}, outputs);
    times.push_back(ms(clock::now() - t0));
  }
  const double cpu_ms = 1000.0 * static_cast<double>(std::clock() - cpu0) / CLOCKS_PER_SEC;
  double total_ms = 0;
  for (double t : times) total_ms += t;
  std::sort(times.begin(), times.end());
  std::printf("kernels %s threads %d runs %zu\n", std::string(session.kernel_path()).c_str(),
              args.options.intra_op_threads, times.size());
  // bench-method.md's value of a repetition is the mean per call; the median and extremes show the spread.
  std::printf(
      "load_ms %.3f first_run_ms %.3f median_ms %.4f min_ms %.4f max_ms %.4f mean_ms %.4f cpu_ms_per_call "
      "%.4f\n",
      load_ms, first_ms, times[times.size() / 2], times.front(), times.back(),
      total_ms / double(times.size()), cpu_ms / double(times.size()));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::fputs(kUsage, args.empty() ? stderr : stdout);
    return args.empty() ? 2 : 0;
  }
  std::string command = args[0];
  args.erase(args.begin());
  try {
    if (command == "run") return run_command(args);
    if (command == "info") return info_command(args);
    if (command == "convert") return convert_command(args);
    if (command == "conformance") return onemodel::cli::conformance_main(args);
    if (command == "conformance-report") return onemodel::cli::conformance_report_main(args);
    if (command == "golden-kernels") return golden_command(args);
    if (command == "bench") return bench_command(args);
    if (command == "load") return onemodel::cli::load_main(args);
    if (command == "ctc") return onemodel::cli::ctc_main(args);
    if (command == "wai") return onemodel::cli::wai_main(args);
    throw UsageError("unknown command '" + command + "'");
  } catch (const UsageError& e) {
    std::fprintf(stderr, "onemodel: %s\n%s", e.what(), kUsage);
    return 2;
  } catch (const onemodel::Error& e) {
    std::fprintf(stderr, "onemodel: %s: %s\n", std::string(e.kind_name()).c_str(), e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "onemodel: %s\n", e.what());
    return 1;
  }
}
