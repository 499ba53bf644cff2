// HannWindow, HammingWindow, BlackmanWindow: w[n] = a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N) for
// n < size, with N = size when periodic (the default) and size - 1 when symmetric. Computed in double, then
// rounded to output_datatype. A symmetric window of one sample divides 0 by N = 0 and is NaN, as the formula
// (and ONNX Runtime) gives.
#include <cmath>
#include <numbers>
#include <string>

#include "graph/ops/shape/op_inputs.h"
#include "graph/ops/signal/factories.h"
#include "graph/ops/signal/signal_common.h"

namespace onemodel::ops {
namespace {

struct CosineSum {
  double a0, a1, a2;
};

class Window final : public OpKernel {
 public:
  Window(CosineSum terms, bool periodic, DType dtype) : terms_(terms), periodic_(periodic), dtype_(dtype) {
    supports_exact = false;
  }

  void infer(InferContext& ctx) const override {
    const std::optional<int64_t> size = int_scalar_input(ctx, 0, "size");
    if (!size) return;
    if (*size < 0 || *size > kMaxElements) ctx.fail("size " + std::to_string(*size) + " is out of range");
    ctx.set_output(0, dtype_, Shape{*size});
  }

  void run(const OpRun& run) const override {
    const TensorRef& out = run.outputs[0];
    const int64_t size = out.shape[0];
    const double period = static_cast<double>(periodic_ ? size : size - 1);
    for (int64_t n = 0; n < size; ++n) {
      const double angle = 2.0 * std::numbers::pi * static_cast<double>(n) / period;
      const double w = terms_.a0 - terms_.a1 * std::cos(angle) + terms_.a2 * std::cos(2.0 * angle);
      if (dtype_ == DType::F32) {
        out.as<float>()[n] = static_cast<float>(w);
      } else {
        out.as<double>()[n] = w;
      }
    }
  }

 private:
  CosineSum terms_;
  bool periodic_;
  DType dtype_;
};

std::unique_ptr<OpKernel> make_window(const NodeInfo& node, CosineSum terms) {
  require_inputs(node, 1, 1);
  const int64_t periodic = node.get_int("periodic", 1);
  if (periodic != 0 && periodic != 1) node.fail("periodic must be 0 or 1");
  return std::make_unique<Window>(terms, periodic == 1, output_datatype(node));
}

}  // namespace

std::unique_ptr<OpKernel> make_hann_window(const NodeInfo& node) {
  return make_window(node, {0.5, 0.5, 0.0});
}
std::unique_ptr<OpKernel> make_hamming_window(const NodeInfo& node) {
  return make_window(node, {25.0 / 46.0, 21.0 / 46.0, 0.0});
}
std::unique_ptr<OpKernel> make_blackman_window(const NodeInfo& node) {
  return make_window(node, {0.42, 0.5, 0.08});
}

}  // namespace onemodel::ops
