#include "graph/ops/shape/op_inputs.h"

#include <string>

#include "graph/ops/run_fail.h"

namespace onemodel::ops {

void require_inputs(const NodeInfo& node, size_t min, size_t max) {
  const size_t n = node.num_inputs();
  if (n < min || n > max) {
    node.fail("has " + std::to_string(n) + " inputs, expected " +
              (min == max ? std::to_string(min) : std::to_string(min) + " to " + std::to_string(max)));
  }
  for (size_t i = 0; i < min; ++i) {
    if (!node.has_input(i)) node.fail("input " + std::to_string(i) + " is missing");
  }
}

IntSeq int_seq(const InferContext& ctx, const TensorRef& value, std::string_view what) {
  if (value.shape.rank > 1) ctx.fail(std::string(what) + " must be a scalar or a 1-D tensor");
  if (value.dtype != DType::I64 && value.dtype != DType::I32) {
    ctx.fail(std::string(what) + " must be int64 or int32, not " + std::string(dtype_name(value.dtype)));
  }
  return IntSeq::of(value);
}

std::vector<int64_t> int_list(const InferContext& ctx, const TensorRef& value, std::string_view what) {
  const IntSeq seq = int_seq(ctx, value, what);
  std::vector<int64_t> out(seq.size());
  for (size_t i = 0; i < seq.size(); ++i) out[i] = seq[i];
  return out;
}

std::optional<std::vector<int64_t>> int_list_input(InferContext& ctx, size_t i, std::string_view what) {
  if (!ctx.has_input(i)) return std::vector<int64_t>{};
  const TensorRef* value = ctx.input_value(i);
  if (value == nullptr) {
    ctx.require_run_time_values();
    return std::nullopt;
  }
  return int_list(ctx, *value, what);
}

std::optional<IntSeq> int_seq_input(InferContext& ctx, size_t i, std::string_view what) {
  if (!ctx.has_input(i)) return IntSeq{};
  const TensorRef* value = ctx.input_value(i);
  if (value == nullptr) {
    ctx.require_run_time_values();
    return std::nullopt;
  }
  return int_seq(ctx, *value, what);
}

uint32_t axes_mask(const InferContext& ctx, std::span<const int64_t> axes, int rank) {
  uint32_t mask = 0;
  for (int64_t axis : axes) {
    const int a = normalize_axis(axis, rank);
    if (a < 0) {
      ctx.fail("axis " + std::to_string(axis) + " is outside [-" + std::to_string(rank) + ", " +
               std::to_string(rank) + ")");
    }
    if (has_axis(mask, a)) ctx.fail("axis " + std::to_string(axis) + " is listed twice");
    mask |= 1u << a;
  }
  return mask;
}

int64_t checked_index(const OpRun& run, int64_t index, int64_t extent) {
  if (index >= -extent && index < extent) return index < 0 ? index + extent : index;
  run_fail(run, "index " + std::to_string(index) + " is outside [-" + std::to_string(extent) + ", " +
                    std::to_string(extent) + ")");
}

void check_dims(const InferContext& ctx, std::span<const int64_t> dims, size_t element_size,
                std::string_view what) {
  if (dims.size() > static_cast<size_t>(kMaxRank)) {
    ctx.fail(std::string(what) + " would have rank " + std::to_string(dims.size()) + ", above the limit of " +
             std::to_string(kMaxRank));
  }
  const std::string problem = shape_problem(dims, element_size);
  if (!problem.empty()) ctx.fail(std::string(what) + ": " + problem);
}

}  // namespace onemodel::ops
