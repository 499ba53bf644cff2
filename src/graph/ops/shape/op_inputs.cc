#include "graph/ops/shape/op_inputs.h"

#include <string>

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

std::vector<int64_t> int_list(const InferContext& ctx, const TensorRef& value, std::string_view what) {
  if (value.shape.rank > 1) ctx.fail(std::string(what) + " must be a scalar or a 1-D tensor");
  const auto n = static_cast<size_t>(value.count());
  std::vector<int64_t> out(n);
  if (value.dtype == DType::I64) {
    for (size_t i = 0; i < n; ++i) out[i] = value.as<const int64_t>()[i];
  } else if (value.dtype == DType::I32) {
    for (size_t i = 0; i < n; ++i) out[i] = value.as<const int32_t>()[i];
  } else {
    ctx.fail(std::string(what) + " must be int64 or int32, not " + std::string(dtype_name(value.dtype)));
  }
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
