#include "graph/ops/sequence/sequence_common.h"

#include <cstring>

namespace onemodel::ops {

Declared declared_kind(const NodeInfo& node, size_t input) {
  if (!node.has_input(input)) return Declared::Unknown;
  const ir::Value& v = node.graph().values.at(static_cast<size_t>(node.node().inputs[input]));
  switch (v.type.kind) {
    case ir::Type::Kind::Tensor:
      return Declared::Tensor;
    case ir::Type::Kind::Sequence:
      return Declared::Sequence;
    case ir::Type::Kind::Optional:
      return Declared::Optional;
    default:
      return Declared::Unknown;
  }
}

packed::Value read_packed(const OpRun& run, size_t i) {
  const TensorRef& r = run.inputs[i];
  if (!run.has_input(i) || r.dtype != DType::U8 || r.shape.rank != 1) {
    run_fail(run,
             "input " + std::to_string(i) + " is not a packed sequence or optional (a rank-1 U8 tensor)");
  }
  try {
    return packed::parse(r);
  } catch (const SessionError& e) {
    run_fail(run, "input " + std::to_string(i) + ": " + e.what());
  }
}

packed::SequenceView read_sequence(const OpRun& run, size_t i) {
  packed::Value v = read_packed(run, i);
  if (v.kind != packed::Kind::Sequence)
    run_fail(run, "input " + std::to_string(i) + " is an optional, not a sequence");
  return v.sequence;
}

bool is_packed_input(const OpRun& run, size_t i, Declared declared) {
  if (declared == Declared::Sequence || declared == Declared::Optional) return true;
  if (declared == Declared::Tensor) return false;
  return packed::has_tag(run.inputs[i]);
}

packed::Writer allocate_packed(const OpRun& run, size_t i, size_t bytes) {
  TensorRef& out = run.allocator->allocate(i, DType::U8, Shape{static_cast<int64_t>(bytes)});
  return packed::Writer(std::span<std::byte>(out.data, bytes));
}

size_t position_input(const OpRun& run, size_t i, size_t size, bool end_allowed) {
  const TensorRef& p = run.inputs[i];
  if ((p.dtype != DType::I32 && p.dtype != DType::I64) || p.shape.rank > 1 || p.count() != 1) {
    run_fail(run, "the position must be one int32 or int64 value, got " + std::string(dtype_name(p.dtype)) +
                      " " + p.shape.str());
  }
  const int64_t position = p.dtype == DType::I32 ? *p.as<const int32_t>() : *p.as<const int64_t>();
  const auto n = static_cast<int64_t>(size);
  const int64_t last = end_allowed ? n : n - 1;
  if (position < -n || position > last) {
    run_fail(run, "position " + std::to_string(position) + " is outside [" + std::to_string(-n) + ", " +
                      std::to_string(last) + "] for a sequence of " + std::to_string(n));
  }
  return static_cast<size_t>(position < 0 ? position + n : position);
}

}  // namespace onemodel::ops
