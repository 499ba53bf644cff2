// Exp, Log, Tanh, Sigmoid, Erf and Gelu on f32: the functions of the session's kernel table
// (exact-transcendentals.md in exact mode, the fused variants in fast mode). Each element is independent and
// its result does not depend on its position, so the tensor is shared between threads in fixed chunks.
#include <string>

#include "graph/ops/elementwise/common.h"
#include "graph/ops/elementwise/factories.h"

namespace onemodel::ops {
namespace {

class UnaryMath final : public OpKernel {
 public:
  explicit UnaryMath(UnaryFn fn) : fn_(fn) {
    supports_exact = true;
    in_place_input = 0;
  }

  void infer(InferContext& ctx) const override { infer_f32_like_input(ctx); }

  UnaryFn fn() const { return fn_; }

  void run(const OpRun& run) const override {
    const float* x = run.inputs[0].as<const float>();
    float* y = run.outputs[0].as<float>();
    for_each_chunk(run.threads, run.outputs[0].count(), 3.0, [&](int64_t begin, int64_t end) {
      run.kernels->unary(fn_, run.exact, x + begin, y + begin, static_cast<size_t>(end - begin));
    });
  }

 private:
  UnaryFn fn_;
};

template <UnaryFn kFn>
std::unique_ptr<OpKernel> make_unary(const NodeInfo& node) {
  require_inputs(node, 1);
  return std::make_unique<UnaryMath>(kFn);
}

}  // namespace

std::unique_ptr<OpKernel> make_exp(const NodeInfo& node) {
  return make_unary<UnaryFn::Exp>(node);
}
std::unique_ptr<OpKernel> make_log(const NodeInfo& node) {
  return make_unary<UnaryFn::Log>(node);
}
std::unique_ptr<OpKernel> make_tanh(const NodeInfo& node) {
  return make_unary<UnaryFn::Tanh>(node);
}
std::unique_ptr<OpKernel> make_sigmoid(const NodeInfo& node) {
  return make_unary<UnaryFn::Sigmoid>(node);
}
std::unique_ptr<OpKernel> make_erf(const NodeInfo& node) {
  return make_unary<UnaryFn::Erf>(node);
}

std::unique_ptr<OpKernel> make_gelu(const NodeInfo& node) {
  const std::string approximate = node.get_string("approximate", "none");
  if (approximate == "none") return make_unary<UnaryFn::GeluErf>(node);
  if (approximate == "tanh") return make_unary<UnaryFn::GeluTanh>(node);
  node.fail("attribute 'approximate' must be \"none\" or \"tanh\", got \"" + approximate + "\"");
}

std::unique_ptr<OpKernel> make_fused_gelu(bool tanh_form) {
  return std::make_unique<UnaryMath>(tanh_form ? UnaryFn::GeluTanh : UnaryFn::GeluErf);
}

bool is_gelu_kernel(const OpKernel& kernel) {
  const auto* unary = dynamic_cast<const UnaryMath*>(&kernel);
  return unary != nullptr && (unary->fn() == UnaryFn::GeluErf || unary->fn() == UnaryFn::GeluTanh);
}

}  // namespace onemodel::ops
