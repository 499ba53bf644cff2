#include "cli/wai.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>

#include "cli/wai_vector_json.h"
#include "onemodel/hash.h"
#include "onemodel/wai.h"
#include "wai/model.h"

namespace onemodel::cli {
namespace {

using nlohmann::json;
using wai::from_hex;
using wai::IntTensor;
using wai::tensor_of;

constexpr const char* kUsage =
    "usage: onemodel wai run VECTORS.jsonl [--hash]\n"
    "       onemodel wai run GRAPH.whg1 [--input C,H,W=v,v,...]... [--scalar V]...\n"
    "       onemodel wai certify GRAPH.whg1 [GRAPH.whg1]...\n"
    "       onemodel wai admissible GRAPH.whg1\n"
    "       onemodel wai bench GRAPH.whg1 [--runs N] [--threads T]\n";

// One decode of a vector, with state carried in `state`.
wai::RunResult run_decode(const wai::IntSession& session, const json& d, wai::State& state) {
  std::vector<IntTensor> inputs;
  for (const json& t : d.at("inputs")) inputs.push_back(tensor_of(t));
  std::vector<int64_t> scalars;
  for (const json& s : d.at("scalars")) scalars.push_back(std::stoll(s.get<std::string>()));
  return session.run(inputs, scalars, state);
}

// SHA-256 of an output as the golden rows record it: the shape, then the elements, each a little-endian i64.
std::string int_tensor_hash(const IntTensor& t) {
  std::vector<std::byte> bytes;
  auto put = [&](int64_t v) {
    for (int i = 0; i < 8; ++i) bytes.push_back(std::byte(uint64_t(v) >> (8 * i)));
  };
  for (int64_t d : t.shape) put(d);
  for (int64_t v : t.data) put(v);
  return sha256_hex(bytes);
}

// The golden lines of one vector (tools/golden.sh): "wai/<id>/<decode>/<output> <sha256>" for each output, or
// "wai/<id>[/<decode>] refused <code>". The outputs are printed as computed, not compared with the file.
void print_hashes(const json& v) {
  const std::string id = "wai/" + v.at("id").get<std::string>();
  std::optional<wai::IntSession> session;
  try {
    session.emplace(wai::Graph::load(from_hex(v.at("graph"))));
  } catch (const wai::RefusalError& e) {
    std::printf("%s refused %s\n", id.c_str(), std::string(to_string(e.code())).c_str());
    return;
  }
  wai::State state;
  size_t k = 0;
  for (const json& d : v.at("decodes")) {
    const std::string where = id + "/" + std::to_string(k++);
    const wai::RunResult r = run_decode(*session, d, state);
    if (!r.ok()) std::printf("%s refused %s\n", where.c_str(), std::string(to_string(r.refusal)).c_str());
    for (size_t i = 0; i < r.outputs.size(); ++i)
      std::printf("%s/%zu %s\n", where.c_str(), i, int_tensor_hash(r.outputs[i]).c_str());
  }
}

// One vector of §14.1; returns an empty string when it is reproduced, else what differs.
std::string check_vector(const json& v) {
  const std::string load = v.at("load");
  std::optional<wai::IntSession> session;
  try {
    session.emplace(wai::Graph::load(from_hex(v.at("graph"))));
  } catch (const wai::RefusalError& e) {
    return to_string(e.code()) == load ? "" : "load refused with " + std::string(to_string(e.code()));
  }
  if (load != "ok") return "loaded, expected " + load;
  wai::State state;
  size_t k = 0;
  for (const json& d : v.at("decodes")) {
    const wai::RunResult r = run_decode(*session, d, state);
    const json& expect = d.at("expect");
    const std::string where = "decode " + std::to_string(k++) + ": ";
    if (expect.contains("refuse")) {
      if (to_string(r.refusal) != expect.at("refuse").get<std::string>())
        return where + "got " + std::string(to_string(r.refusal)) + ", expected " +
               expect.at("refuse").dump();
      continue;
    }
    if (!r.ok()) return where + "refused: " + std::string(to_string(r.refusal)) + ": " + r.message;
    const json& outs = expect.at("outputs");
    if (outs.size() != r.outputs.size()) return where + "wrong output count";
    for (size_t i = 0; i < outs.size(); ++i) {
      const IntTensor want = tensor_of(outs[i]);
      if (want.shape != r.outputs[i].shape || want.data != r.outputs[i].data)
        return where + "output " + std::to_string(i) + " differs";
    }
  }
  return "";
}

int run_vectors(const std::string& path, bool hash) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  size_t vectors = 0, failures = 0;
  std::string line;
  while (std::getline(in, line)) {
    const json v = json::parse(line);
    if (v.contains("header")) continue;
    if (hash) {
      print_hashes(v);
      continue;
    }
    const std::string why = check_vector(v);
    std::printf("%s %s\n", v.at("id").get<std::string>().c_str(),
                why.empty() ? "ok" : ("FAIL: " + why).c_str());
    ++vectors, failures += !why.empty();
  }
  if (hash) return 0;
  std::printf("%zu vectors, %zu failed\n", vectors, failures);
  return failures == 0 ? 0 : 1;
}

// "C,H,W=v,v,..."
IntTensor parse_input(const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos) throw std::runtime_error("--input needs C,H,W=values");
  IntTensor t;
  size_t at = 0;
  for (size_t i = 0; i < 3; ++i) {
    size_t used = 0;
    t.shape[i] = std::stoll(text.substr(at), &used);
    at += used + 1;
  }
  for (size_t p = eq + 1; p < text.size();) {
    size_t used = 0;
    t.data.push_back(std::stoll(text.substr(p), &used));
    p += used + 1;
  }
  return t;
}

int run_graph(const std::vector<std::string>& args) {
  std::ifstream in(args[0], std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + args[0]);
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const wai::IntSession session(wai::Graph::load(bytes));
  std::vector<IntTensor> inputs;
  std::vector<int64_t> scalars;
  for (size_t i = 1; i < args.size(); i += 2) {
    if (i + 1 >= args.size()) throw std::runtime_error(args[i] + " needs a value");
    if (args[i] == "--input") {
      inputs.push_back(parse_input(args[i + 1]));
    } else if (args[i] == "--scalar") {
      scalars.push_back(std::stoll(args[i + 1]));
    } else {
      throw std::runtime_error("unknown option " + args[i]);
    }
  }
  wai::State state;
  const wai::RunResult r = session.run(inputs, scalars, state);
  if (!r.ok()) {
    std::printf("refused: %s: %s\n", std::string(to_string(r.refusal)).c_str(), r.message.c_str());
    return 1;
  }
  for (size_t k = 0; k < r.outputs.size(); ++k) {
    const IntTensor& t = r.outputs[k];
    std::printf("output %zu [%lld,%lld,%lld]:", k, (long long)t.shape[0], (long long)t.shape[1],
                (long long)t.shape[2]);
    for (int64_t v : t.data) std::printf(" %lld", (long long)v);
    std::printf("\n");
  }
  return 0;
}

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Prints the certificate's exact bytes on stdout (no newline is added: they are what §8.5 hashes) and the
// verdict on stderr. Several files make one "whg1" set in file order, with no roles and no set digest (its
// listing format is not in the text). A graph refused at load, step 8 included, propagates as RefusalError.
int certify_graphs(const std::vector<std::string>& paths) {
  std::vector<wai::Graph> graphs;
  for (const std::string& path : paths)
    graphs.push_back(wai::Graph::load(read_file(path), wai::Profile::None));
  std::vector<wai::SetMember> members;
  for (const wai::Graph& g : graphs) members.push_back({&g, std::nullopt});
  const wai::Certificate c = graphs.size() == 1 ? graphs[0].certify() : wai::certify_set(members);
  std::fwrite(c.bytes.data(), 1, c.bytes.size(), stdout);
  std::fflush(stdout);
  std::fprintf(stderr, "\nacc64 %s, acc32 %s, npu %s\n", c.acc64 ? "true" : "false",
               c.acc32 ? "true" : "false", c.npu ? "true" : "false");
  return 0;
}

// One line per tensor: its admissible ranges for acc64 and acc32 (§8.4), or "none".
int admissible_ranges(const std::string& path) {
  const wai::Graph g = wai::Graph::load(read_file(path), wai::Profile::None);
  for (uint32_t t = 0; t < g.tensor_count(); ++t) {
    std::printf("tensor %u:", t);
    for (const auto& [name, profile] :
         {std::pair{"acc64", wai::Profile::Acc64}, std::pair{"acc32", wai::Profile::Acc32}}) {
      const std::optional<wai::AdmissibleRange> r = g.admissible_range(t, profile);
      if (r)
        std::printf(" %s [%lld, %lld]", name, (long long)r->lo, (long long)r->hi);
      else
        std::printf(" %s none", name);
    }
    std::printf("\n");
  }
  return 0;
}

// Times decodes of a graph whose data inputs declare their sizes, on inputs spread over each input's range:
// the acc64 interpreter, then the acc32 fast path on each kernel path this build and CPU have. Every path's
// outputs must equal the interpreter's. Prints a Markdown table (median of the runs).
int bench_graph(const std::vector<std::string>& args) {
  int runs = 5, threads = 1;
  for (size_t i = 1; i + 1 < args.size(); i += 2) {
    if (args[i] == "--runs") {
      runs = std::max(1, std::stoi(args[i + 1]));
    } else if (args[i] == "--threads") {
      threads = std::max(1, std::stoi(args[i + 1]));
    } else {
      throw std::runtime_error("unknown option " + args[i]);
    }
  }
  const wai::Graph g = wai::Graph::load(read_file(args[0]));
  const wai::detail::Model& m = g.model();
  std::vector<IntTensor> inputs;
  uint64_t seed = 8;
  for (size_t i = 0; i < g.data_input_count(); ++i) {
    const wai::Input& in = m.inputs[i];
    const wai::TensorRecord& r = m.tensors[in.tensor];
    if (in.max_h == 0) throw std::runtime_error("bench: the graph's inputs must declare their sizes");
    IntTensor t{{int64_t(r.channels), int64_t(in.max_h), int64_t(in.max_w)}, {}};
    const uint64_t span =
        uint64_t(std::min<int64_t>(r.hi, INT32_MAX) - std::max<int64_t>(r.lo, INT32_MIN)) + 1;
    for (int64_t k = 0; k < t.shape[0] * t.shape[1] * t.shape[2]; ++k) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      t.data.push_back(std::max<int64_t>(r.lo, INT32_MIN) + int64_t((seed >> 16) % span));
    }
    inputs.push_back(std::move(t));
  }
  auto time = [&](const wai::SessionOptions& options, std::vector<IntTensor>& outputs) {
    const wai::IntSession session(g, options);
    std::vector<double> ms;
    for (int r = 0; r < runs; ++r) {
      wai::State state;
      const auto start = std::chrono::steady_clock::now();
      wai::RunResult result = session.run(inputs, {}, state);
      ms.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
      if (!result.ok()) throw std::runtime_error("bench: the decode was refused: " + result.message);
      outputs = std::move(result.outputs);
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
  };
  std::vector<IntTensor> reference, outputs;
  wai::SessionOptions options;
  options.threads = threads;
  options.acc32_fast_path = false;
  const double base = time(options, reference);
  options.acc32_fast_path = true;
  std::printf("| profile | kernel path | ms (median of %d) | speed-up |\n|---|---|---|---|\n", runs);
  std::printf("| acc64 | interpreter | %.1f | 1.00x |\n", base);
  for (const char* path : {"scalar", "v128", "avx2", "avx512"}) {
    double ms = 0;
    options.kernel_path = path;
    try {
      ms = time(options, outputs);
    } catch (const std::invalid_argument&) {
      continue;  // this build or CPU lacks the path
    }
    bool same = outputs.size() == reference.size();
    for (size_t k = 0; same && k < outputs.size(); ++k) same = outputs[k].data == reference[k].data;
    if (!same) throw std::runtime_error(std::string("bench: the acc32 outputs differ on ") + path);
    std::printf("| acc32 | %s | %.1f | %.2fx |\n", path, ms, base / ms);
  }
  return 0;
}

}  // namespace

int wai_main(const std::vector<std::string>& args) {
  if (args.size() >= 2 && args[0] == "certify") return certify_graphs({args.begin() + 1, args.end()});
  if (args.size() == 2 && args[0] == "admissible") return admissible_ranges(args[1]);
  if (args.size() >= 2 && args[0] == "bench") return bench_graph({args.begin() + 1, args.end()});
  if (args.size() < 2 || args[0] != "run") {
    std::fputs(kUsage, stderr);
    return 2;
  }
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  const std::string& file = rest[0];
  if (file.size() >= 6 && file.compare(file.size() - 6, 6, ".jsonl") == 0) {
    const bool hash = rest.size() == 2 && rest[1] == "--hash";
    if (rest.size() != 1 && !hash) {
      std::fputs(kUsage, stderr);
      return 2;
    }
    return run_vectors(file, hash);
  }
  return run_graph(rest);
}

}  // namespace onemodel::cli
