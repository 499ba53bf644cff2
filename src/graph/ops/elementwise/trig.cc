// Sin and Cos on f32 through the platform's sinf/cosf. The platform functions are not bit-reproducible across
// machines, so these operators have no exact kernel: exact mode refuses a model that uses them (ops-coverage.md).
#include <cmath>

#include "graph/ops/elementwise/common.h"
#include "graph/ops/elementwise/factories.h"

namespace onemodel::ops {
namespace {

template <float (*kFn)(float)>
class Trig final : public OpKernel {
 public:
  Trig() { in_place_input = 0; }

  void infer(InferContext& ctx) const override {
    const DType type = ctx.input_dtype(0);
    if (type != DType::F32) unsupported_type(ctx, type);
    ctx.set_output(0, type, ctx.input_shape(0));
  }

  void run(const OpRun& run) const override {
    const float* x = run.inputs[0].as<const float>();
    float* y = run.outputs[0].as<float>();
    for_each_chunk(run.threads, run.outputs[0].count(), 5.0, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) y[i] = kFn(x[i]);
    });
  }
};

float sin_f32(float x) { return std::sin(x); }
float cos_f32(float x) { return std::cos(x); }

}  // namespace

std::unique_ptr<OpKernel> make_sin(const NodeInfo& node) {
  require_inputs(node, 1);
  return std::make_unique<Trig<sin_f32>>();
}

std::unique_ptr<OpKernel> make_cos(const NodeInfo& node) {
  require_inputs(node, 1);
  return std::make_unique<Trig<cos_f32>>();
}

}  // namespace onemodel::ops
