#include "fuzz/targets.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "format/format.h"
#include "onemodel/onemodel.h"
#include "onemodel/wai.h"
#include "onnx/onnx_reader.h"
#include "onnx/wire.h"
#include "wai/model.h"
#include "wai/plan.h"

namespace onemodel::fuzz {
namespace {

std::span<const std::byte> as_bytes(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const std::byte*>(data), size};
}

void walk_message(onnx::WireContext& ctx, std::span<const std::byte> message, int depth) {
  onnx::MessageReader reader(ctx, message);
  onnx::Field field;
  while (reader.next(field)) {
    if (field.wire != onnx::Wire::Len || depth >= onnx::kMinNesting) continue;
    // Most payloads are strings or packed numbers, not messages: a payload that fails to parse is skipped.
    try {
      onnx::Nested nested(ctx, "field", -1, field.offset);
      walk_message(ctx, field.bytes, depth + 1);
    } catch (const ImportError&) {
    }
  }
}

// Inputs above this many elements are not run: the target looks for crashes, not for slow big runs.
constexpr int64_t kMaxRunElements = 1 << 16;

std::vector<NamedTensor> zero_inputs(const Session& session) {
  std::vector<NamedTensor> inputs;
  for (const TensorInfo& info : session.inputs()) {
    if (info.kind != ValueKind::Tensor || !info.has_shape) return {};
    std::vector<int64_t> shape;
    int64_t elements = 1;
    for (const Dim& d : info.dims) {
      shape.push_back(d.fixed() ? d.value : 1);
      if (shape.back() > kMaxRunElements) return {};
      elements *= shape.back();
      if (elements > kMaxRunElements) return {};
    }
    inputs.push_back({info.name, Tensor(info.dtype, std::move(shape))});
  }
  return inputs;
}

// The work of one run, roughly in multiply-adds: every planned element, plus each conv's taps and each
// channel-by-channel product. Zero when the plan refuses (the run stops at the same step, cheaply).
uint64_t planned_work(const wai::Model& m, std::span<const wai::IntTensor> inputs,
                      std::span<const int64_t> scalars) {
  std::vector<wai::Shape> shapes(m.tensors.size());
  size_t next_data = 0;
  for (const wai::Input& in : m.inputs) {
    if (in.kind == wai::InputKind::Data) {
      const auto& shape = inputs[next_data++].shape;
      shapes[in.tensor] = {shape[0], shape[1], shape[2]};
    } else {
      const wai::Shape& first = shapes[m.inputs[0].tensor];
      shapes[in.tensor] = {m.tensors[in.tensor].channels, first.h, first.w};
    }
  }
  uint64_t work = 0;
  std::vector<wai::Shape> in_shapes, out_shapes;
  for (const wai::Node& n : m.nodes) {
    in_shapes.clear();
    for (uint32_t t : n.in) in_shapes.push_back(shapes[t]);
    if (wai::plan_node(m, n, in_shapes, scalars, false, out_shapes).code != wai::Refusal::None) return work;
    for (size_t i = 0; i < n.out.size(); ++i) {
      if (wai::elements(out_shapes[i]) > m.max_elems) return work;
      shapes[n.out[i]] = out_shapes[i];
      work += wai::elements(out_shapes[i]);
    }
    const wai::Shape& in = in_shapes.empty() ? wai::Shape{} : in_shapes[0];
    const wai::Shape& out = out_shapes.empty() ? wai::Shape{} : out_shapes[0];
    if (n.op == wai::Op::Conv) work += uint64_t(out.h * out.w) * n.weights.size();
    if (n.op == wai::Op::ConvTranspose) work += uint64_t(in.h * in.w) * n.weights.size();
    if (n.op == wai::Op::Gram || n.op == wai::Op::Apply || n.op == wai::Op::Igdn)
      work += wai::elements(in) * uint64_t(in.c);
  }
  return work;
}

// Zero data inputs at each input's declared size (1x1 when undeclared), scalars at their lower bounds; empty
// when the inputs would be large.
bool zero_wai_inputs(const wai::Model& model, std::vector<wai::IntTensor>& inputs,
                     std::vector<int64_t>& scalars) {
  int64_t elements = 0;
  for (const wai::Input& input : model.inputs) {
    if (input.kind != wai::InputKind::Data) continue;
    const int64_t channels = model.tensors[input.tensor].channels;
    const int64_t h = std::max<int64_t>(input.max_h, 1), w = std::max<int64_t>(input.max_w, 1);
    if (channels > kMaxRunElements || h * w > kMaxRunElements) return false;
    elements += channels * h * w;
    if (elements > kMaxRunElements) return false;
    inputs.push_back({{channels, h, w}, std::vector<int64_t>(channels * h * w)});
  }
  for (const wai::Scalar& scalar : model.scalars) scalars.push_back(scalar.lo);
  // Skip the run of a graph that plans more than about 2^22 elements and multiply-adds. Such graphs are valid
  // (the cap is 2^26 elements per tensor), but one run takes minutes under the sanitizers, which libFuzzer
  // reports as a timeout rather than a finding.
  return planned_work(model, inputs, scalars) <= (uint64_t(1) << 22);
}

}  // namespace

int wire(const uint8_t* data, size_t size) {
  onnx::WireContext ctx(as_bytes(data, size), "<fuzz>", "Message", onnx::kMinNesting);
  try {
    walk_message(ctx, as_bytes(data, size), 0);
  } catch (const ImportError&) {
  }
  return 0;
}

int onnx_model(const uint8_t* data, size_t size) {
  try {
    onnx::import_model(as_bytes(data, size), nullptr);
  } catch (const ImportError&) {
  }
  return 0;
}

int tensor(const uint8_t* data, size_t size) {
  std::vector<std::shared_ptr<const void>> storage;
  try {
    onnx::import_tensor(as_bytes(data, size), storage);
  } catch (const ImportError&) {
  }
  return 0;
}

int onemodel_file(const uint8_t* data, size_t size) {
  try {
    format::read_model(as_bytes(data, size), nullptr);
  } catch (const ImportError&) {
  }
  return 0;
}

int whg1(const uint8_t* data, size_t size) {
  try {
    // The certifier runs at load whatever the profile; its admissible-range search and set certificates too.
    const wai::Graph graph = wai::Graph::load({data, size}, wai::Profile::None);
    for (uint32_t t = 0; t < graph.tensor_count() && t < 2; ++t)
      for (wai::Profile p : {wai::Profile::Acc64, wai::Profile::Acc32}) graph.admissible_range(t, p);
    const wai::SetMember pair[] = {{&graph, "a"}, {&graph, std::nullopt}};
    wai::certify_set(pair);
    std::vector<wai::IntTensor> inputs;
    std::vector<int64_t> scalars;
    if (graph.certify().acc64 && zero_wai_inputs(graph.model(), inputs, scalars)) {
      wai::State state;
      wai::IntSession(graph).run(inputs, scalars, state);
    }
  } catch (const wai::RefusalError&) {
  }
  return 0;
}

int session(const uint8_t* data, size_t size) {
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    try {
      Session s = Session::load(as_bytes(data, size), {.mode = mode, .intra_op_threads = 1});
      std::vector<NamedTensor> inputs = zero_inputs(s);
      if (!inputs.empty() || s.inputs().empty()) s.run(inputs);
    } catch (const Error&) {
    }
  }
  return 0;
}

std::span<const Target> targets() {
  static constexpr Target kTargets[] = {{"wire", wire},     {"onnx_model", onnx_model},
                                        {"tensor", tensor}, {"onemodel_file", onemodel_file},
                                        {"whg1", whg1},     {"session", session}};
  return kTargets;
}

}  // namespace onemodel::fuzz
