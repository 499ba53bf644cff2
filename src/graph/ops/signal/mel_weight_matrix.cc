// MelWeightMatrix: [dft_length / 2 + 1, num_mel_bins] triangular filters, as ops-coverage.md "Settled
// semantics" states. The num_mel_bins + 2 edge points step by (mel(upper) - mel(lower)) / (num_mel_bins + 2)
// from mel(lower), the step the ONNX test data uses, so the last edge falls short of upper_edge_hertz. Edge
// bins outside the matrix are left out (the filter's rows there are dropped).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "graph/ops/shape/op_inputs.h"
#include "graph/ops/signal/factories.h"
#include "graph/ops/signal/signal_common.h"

namespace onemodel::ops {
namespace {

double hertz_to_mel(double f) {
  return 2595.0 * std::log10(1.0 + f / 700.0);
}
double mel_to_hertz(double m) {
  return 700.0 * (std::pow(10.0, m / 2595.0) - 1.0);
}

class MelWeightMatrix final : public OpKernel {
 public:
  explicit MelWeightMatrix(DType dtype) : dtype_(dtype) { supports_exact = false; }

  void infer(InferContext& ctx) const override {
    const std::optional<int64_t> mel_bins = int_scalar_input(ctx, 0, "num_mel_bins");
    const std::optional<int64_t> dft_length = int_scalar_input(ctx, 1, "dft_length");
    const std::optional<int64_t> sample_rate = int_scalar_input(ctx, 2, "sample_rate");
    if (!mel_bins || !dft_length || !sample_rate) return;
    for (size_t i : {size_t{3}, size_t{4}}) {
      if ((ctx.input_dtype(i) != DType::F32 && ctx.input_dtype(i) != DType::F64) ||
          ctx.input_shape(i).count() != 1)
        ctx.fail("the edge frequencies must be one float32 or float64 value each");
    }
    if (*mel_bins < 1 || *dft_length < 1 || *sample_rate < 1)
      ctx.fail("num_mel_bins, dft_length and sample_rate must be positive");
    const std::vector<int64_t> dims{*dft_length / 2 + 1, *mel_bins};
    check_dims(ctx, dims, dtype_size(dtype_), "output");
    ctx.set_output(0, dtype_, Shape::of(dims));
  }

  void run(const OpRun& run) const override {
    const TensorRef& out = run.outputs[0];
    const int64_t rows = out.shape[0], mel_bins = out.shape[1];
    const int64_t dft_length = scalar(run.inputs[1]), sample_rate = scalar(run.inputs[2]);
    const double lower = edge(run.inputs[3]), upper = edge(run.inputs[4]);
    const double low_mel = hertz_to_mel(lower);
    const double step = (hertz_to_mel(upper) - low_mel) / static_cast<double>(mel_bins + 2);
    // Edge i as a spectrogram row.
    auto bin = [&](int64_t i) {
      const double f = mel_to_hertz(static_cast<double>(i) * step + low_mel);
      const double row =
          std::floor(static_cast<double>(dft_length + 1) * f / static_cast<double>(sample_rate));
      return row > -1e18 && row < 1e18 ? static_cast<int64_t>(row) : int64_t{-1};
    };
    std::fill(out.data, out.data + out.bytes(), std::byte{0});
    auto set = [&](int64_t row, int64_t column, double w) {
      if (row < 0 || row >= rows) return;
      if (dtype_ == DType::F32) {
        out.as<float>()[row * mel_bins + column] = static_cast<float>(w);
      } else {
        out.as<double>()[row * mel_bins + column] = w;
      }
    };
    for (int64_t i = 0; i < mel_bins; ++i) {
      const int64_t left = bin(i), center = bin(i + 1), right = bin(i + 2);
      if (center == left) {
        set(center, i, 1.0);
      } else {
        for (int64_t j = std::max<int64_t>(left, 0); j <= std::min(center, rows - 1); ++j)
          set(j, i, static_cast<double>(j - left) / static_cast<double>(center - left));
      }
      for (int64_t j = std::max<int64_t>(center, 0); j < std::min(right, rows); ++j)
        set(j, i, static_cast<double>(right - j) / static_cast<double>(right - center));
    }
  }

 private:
  static int64_t scalar(const TensorRef& v) {
    return v.dtype == DType::I64 ? v.as<const int64_t>()[0] : v.as<const int32_t>()[0];
  }
  static double edge(const TensorRef& v) {
    return v.dtype == DType::F32 ? v.as<const float>()[0] : v.as<const double>()[0];
  }

  DType dtype_;
};

}  // namespace

std::unique_ptr<OpKernel> make_mel_weight_matrix(const NodeInfo& node) {
  require_inputs(node, 5, 5);
  return std::make_unique<MelWeightMatrix>(output_datatype(node));
}

}  // namespace onemodel::ops
