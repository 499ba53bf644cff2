#include "graph/ops/int8/int8_common.h"

#include <string>

#include "graph/ops/quant/quant_common.h"

namespace onemodel::ops::int8 {

bool is_8bit(DType t) {
  return t == DType::U8 || t == DType::I8;
}

namespace {

std::string count_problem(const Shape& s, int64_t count) {
  const int64_t have = s.count();
  if (have == 1 || (count > 1 && have == count)) return {};
  return "has " + std::to_string(have) + " elements, expected 1" +
         (count > 1 ? " or " + std::to_string(count) : std::string());
}

}  // namespace

void check_zero_point(const InferContext& ctx, size_t i, DType type, int64_t count, std::string_view what) {
  if (!ctx.has_input(i)) return;
  if (ctx.input_dtype(i) != type) {
    ctx.fail(std::string(what) + " has type " + std::string(dtype_name(ctx.input_dtype(i))) + ", expected " +
             std::string(dtype_name(type)));
  }
  const std::string problem = count_problem(ctx.input_shape(i), count);
  if (!problem.empty()) ctx.fail(std::string(what) + " " + problem);
}

void check_scale(const InferContext& ctx, size_t i, int64_t count, bool half_ok, std::string_view what) {
  const DType t = ctx.input_dtype(i);
  if (t != DType::F32 && !(half_ok && (t == DType::F16 || t == DType::BF16))) {
    ctx.node().unsupported(std::string(what) + ": element type " + std::string(dtype_name(t)) +
                           " is not supported");
  }
  const std::string problem = count_problem(ctx.input_shape(i), count);
  if (!problem.empty()) ctx.fail(std::string(what) + " " + problem);
}

void check_int32_bias(const InferContext& ctx, size_t i, int64_t count, std::string_view what) {
  if (!ctx.has_input(i)) return;
  if (ctx.input_dtype(i) != DType::I32) ctx.fail(std::string(what) + " must be int32");
  const Shape& s = ctx.input_shape(i);
  if (s.rank != 1 || s[0] != count) {
    ctx.fail(std::string(what) + " has shape " + s.str() + ", expected [" + std::to_string(count) + "]");
  }
}

float scale_value(const TensorRef& scale, int64_t j) {
  return quant::scale_at(scale, scale.shape.count() == 1 ? 0 : j);
}

bool requantize_multipliers(const TensorRef& x_scale, const TensorRef& w_scale, const TensorRef& y_scale,
                            int64_t n, float* out) {
  const bool per_column = w_scale.shape.count() > 1;
  const float sx = scale_value(x_scale, 0), sy = scale_value(y_scale, 0);
  for (int64_t j = 0; j < (per_column ? n : 1); ++j) out[j] = (sx * scale_value(w_scale, j)) / sy;
  return per_column;
}

std::shared_ptr<const PackedInt8Weight> pack_int8_weight(const KernelTable& kernels, const TensorRef& b,
                                                         int64_t groups, int64_t group_stride, int64_t b_row,
                                                         int64_t b_col, int64_t k, int64_t n) {
  auto weight = std::make_shared<PackedInt8Weight>();
  const auto bytes = static_cast<int64_t>(kernels.int8_packed_b_bytes(k, n));
  const int64_t per_group = (bytes + 63) / 64 * 64;
  weight->storage = ConstTensor::allocate(DType::U8, Shape{std::max<int64_t>(per_group * groups, 1)});
  const bool b_signed = b.dtype == DType::I8;
  for (int64_t g = 0; g < groups; ++g) {
    std::byte* packed = weight->storage.ref.as<std::byte>() + g * per_group;
    const auto* src = b.as<const uint8_t>() + g * group_stride;
    kernels.int8_pack_b(src, b_signed, b_row, b_col, k, n, packed);
    weight->groups.push_back({packed, k, n});
  }
  return weight;
}

void* int8_scratch(const OpRun& run, const Int8GemmArgs& args, bool b_packed) {
  const size_t bytes = run.kernels->int8_scratch_bytes(args, b_packed, run.threads);
  return bytes == 0 ? nullptr : run.scratch->allocate(bytes);
}

void run_int8_gemm(const OpRun& run, const Int8GemmArgs& args, const Int8PackedB* packed, void* scratch) {
  run.kernels->int8_gemm(args, packed, scratch, run.threads);
}

}  // namespace onemodel::ops::int8
