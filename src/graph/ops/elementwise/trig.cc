// Sin and Cos on f32 through the platform's sinf/cosf. The platform functions are not bit-reproducible across
// machines, so these operators have no exact kernel: exact mode refuses a model that uses them
// (ops-coverage.md).
#include <cmath>
#include <type_traits>

#include "graph/ops/elementwise/factories.h"
#include "graph/ops/elementwise/unary_kernel.h"

namespace onemodel::ops {
namespace {

template <float (*kFn)(float)>
struct PlatformF32Op {
  template <class E>
  static constexpr bool serves = E::dtype == DType::F32;
  float operator()(float x) const { return kFn(x); }
};

float sin_f32(float x) {
  return std::sin(x);
}
float cos_f32(float x) {
  return std::cos(x);
}

template <float (*kFn)(float)>
std::unique_ptr<OpKernel> make_fast_only(const NodeInfo& node) {
  auto kernel = make_unary_elementwise(node, PlatformF32Op<kFn>{});
  kernel->supports_exact = false;
  return kernel;
}

}  // namespace

std::unique_ptr<OpKernel> make_sin(const NodeInfo& node) {
  return make_fast_only<sin_f32>(node);
}
std::unique_ptr<OpKernel> make_cos(const NodeInfo& node) {
  return make_fast_only<cos_f32>(node);
}

}  // namespace onemodel::ops
