#include "graph/ops/signal/signal_common.h"

#include <cmath>
#include <numbers>
#include <string>

namespace onemodel::ops {

std::optional<int64_t> int_scalar_input(InferContext& ctx, size_t i, std::string_view what) {
  if (ctx.input_dtype(i) != DType::I64 && ctx.input_dtype(i) != DType::I32)
    ctx.fail(std::string(what) + " must be int32 or int64");
  if (ctx.input_shape(i).count() != 1) ctx.fail(std::string(what) + " must hold one value");
  const TensorRef* value = ctx.input_value(i);
  if (value == nullptr) {
    ctx.require_run_time_values();
    return std::nullopt;
  }
  return value->dtype == DType::I64 ? value->as<const int64_t>()[0] : value->as<const int32_t>()[0];
}

DType output_datatype(const NodeInfo& node) {
  const int64_t t = node.get_int("output_datatype", static_cast<int64_t>(DType::F32));
  if (t != static_cast<int64_t>(DType::F32) && t != static_cast<int64_t>(DType::F64))
    node.unsupported("output_datatype " + std::to_string(t) + " is not float32 (1) or float64 (11)");
  return static_cast<DType>(t);
}

Dft::Dft(int64_t n, bool inverse, double* table) : n_(n), inverse_(inverse), table_(table) {
  for (int64_t j = 0; j < n; ++j) {
    const double angle = 2.0 * std::numbers::pi * static_cast<double>(j) / static_cast<double>(n);
    table[2 * j] = std::cos(angle);
    table[2 * j + 1] = std::sin(angle);
  }
}

void Dft::transform(const double* x, int64_t bins, double* out) const {
  const double sign = inverse_ ? 1.0 : -1.0;
  for (int64_t k = 0; k < bins; ++k) {
    double re = 0.0, im = 0.0;
    int64_t j = 0;  // k * t mod n, stepped without a product that could overflow
    const int64_t step = k % n_;
    for (int64_t t = 0; t < n_; ++t) {
      const double c = table_[2 * j], s = sign * table_[2 * j + 1];
      re += x[2 * t] * c - x[2 * t + 1] * s;
      im += x[2 * t] * s + x[2 * t + 1] * c;
      j += step;
      if (j >= n_) j -= n_;
    }
    if (inverse_) {
      re /= static_cast<double>(n_);
      im /= static_cast<double>(n_);
    }
    out[2 * k] = re;
    out[2 * k + 1] = im;
  }
}

}  // namespace onemodel::ops
