// The embind boundary of the wai-ops/1 integer graphs (docs/wai-ops.md), wrapped by `wai` in
// web/onemodel.mjs.
//
// Like bindings.cc, every entry point returns `{value}` or `{error}` and never lets an exception reach
// JavaScript. Tensors cross as {shape: [C, H, W], bytes: Uint8Array} holding little-endian int64 elements
// (the bytes of a BigInt64Array), copied in and out, so no view into wasm memory outlives a call.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstdint>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "guarded.h"
#include "onemodel/wai.h"

namespace {

using emscripten::val;
namespace wai = onemodel::wai;
using onemodel::web::guarded;

std::vector<uint8_t> copy_bytes(const val& array) {
  std::vector<uint8_t> out(array["byteLength"].as<size_t>());
  if (!out.empty()) val(emscripten::typed_memory_view(out.size(), out.data())).call<void>("set", array);
  return out;
}

// Little-endian int64 elements from a Uint8Array (the JS side passes whole BigInt64Array buffers).
std::vector<int64_t> int64s(const val& array) {
  const std::vector<uint8_t> bytes = copy_bytes(array);
  if (bytes.size() % 8 != 0) throw std::invalid_argument("int64 data is not a whole number of elements");
  std::vector<int64_t> out(bytes.size() / 8);
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

wai::IntTensor tensor_in(const val& t) {
  wai::IntTensor out;
  for (size_t i = 0; i < 3; ++i) out.shape[i] = static_cast<int64_t>(t["shape"][i].as<double>());
  out.data = int64s(t["bytes"]);
  return out;
}

val tensor_out(const wai::IntTensor& t) {
  val out = val::object();
  val shape = val::array();
  for (size_t i = 0; i < 3; ++i) shape.set(i, static_cast<double>(t.shape[i]));
  out.set("shape", shape);
  const auto* bytes = reinterpret_cast<const uint8_t*>(t.data.data());
  out.set("bytes", val(emscripten::typed_memory_view(t.data.size() * 8, bytes)).call<val>("slice"));
  return out;
}

std::vector<wai::IntTensor> tensors_in(const val& array) {
  std::vector<wai::IntTensor> out;
  const size_t n = array["length"].as<size_t>();
  for (size_t i = 0; i < n; ++i) out.push_back(tensor_in(array[i]));
  return out;
}

val tensors_out(const std::vector<wai::IntTensor>& tensors) {
  val out = val::array();
  for (size_t i = 0; i < tensors.size(); ++i) out.set(i, tensor_out(tensors[i]));
  return out;
}

class WaiGraph {
 public:
  explicit WaiGraph(wai::Graph graph) : graph_(std::move(graph)) {}

  val info() {
    return guarded([&] {
      val out = val::object();
      out.set("dataInputs", static_cast<double>(graph_.data_input_count()));
      out.set("stateInputs", static_cast<double>(graph_.state_input_count()));
      out.set("scalars", static_cast<double>(graph_.scalar_count()));
      out.set("outputs", static_cast<double>(graph_.output_count()));
      return out;
    });
  }

  // The bounds certificate computed at load (§8.5): its canonical JSON and the profile verdicts.
  val certificate() {
    return guarded([&] {
      const wai::Certificate& c = graph_.certify();
      val out = val::object();
      out.set("json", c.bytes);
      out.set("acc64", c.acc64);
      out.set("acc32", c.acc32);
      out.set("npu", c.npu);
      return out;
    });
  }

  // inputs: [{shape, bytes}] (data inputs); scalars: Uint8Array of int64s; state: {started, tensors}.
  // Returns {refusal, message, outputs, state}: refusal is "ok" when the decode completes.
  val run(val inputs, val scalars, val state) {
    return guarded([&] {
      wai::State carried{state["started"].as<bool>(), tensors_in(state["tensors"])};
      const wai::RunResult r = wai::IntSession(graph_).run(tensors_in(inputs), int64s(scalars), carried);
      val out = val::object();
      out.set("refusal", std::string(wai::to_string(r.refusal)));
      out.set("message", r.message);
      out.set("outputs", tensors_out(r.outputs));
      out.set("state", tensors_out(carried.tensors));
      return out;
    });
  }

 private:
  wai::Graph graph_;
};

// profile: "acc64", "acc32" or "none" (the profile the graph is loaded against, §8.6).
val wai_load(val bytes, std::string profile) {
  return guarded([&] {
    const std::vector<uint8_t> buffer = copy_bytes(bytes);
    const wai::Profile p = profile == "acc32"  ? wai::Profile::Acc32
                           : profile == "none" ? wai::Profile::None
                                               : wai::Profile::Acc64;
    return val(WaiGraph(wai::Graph::load(buffer, p)));
  });
}

}  // namespace

EMSCRIPTEN_BINDINGS(onemodel_wai) {
  emscripten::class_<WaiGraph>("WaiGraph")
      .function("info", &WaiGraph::info)
      .function("certificate", &WaiGraph::certificate)
      .function("run", &WaiGraph::run);
  emscripten::function("waiLoad", &wai_load);
}
