#include "fuzz/targets.h"

#include <memory>
#include <vector>

#include "onemodel/onemodel.h"
#include "onnx/onnx_reader.h"
#include "onnx/wire.h"

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
  static constexpr Target kTargets[] = {
      {"wire", wire}, {"onnx_model", onnx_model}, {"tensor", tensor}, {"session", session}};
  return kTargets;
}

}  // namespace onemodel::fuzz
