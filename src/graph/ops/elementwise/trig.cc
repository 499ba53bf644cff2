// The trigonometric and hyperbolic functions and their inverses on f32 through the platform's libm. The
// platform functions are not bit-reproducible across machines, so these operators have no exact kernel: exact
// mode refuses a model that uses them (ops-coverage.md "Exactness").
#include <cmath>

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

template <float (*kFn)(float)>
std::unique_ptr<OpKernel> make_fast_only(const NodeInfo& node) {
  auto kernel = make_unary_elementwise(node, PlatformF32Op<kFn>{});
  kernel->supports_exact = false;
  return kernel;
}

// Named wrappers: the std overload sets cannot be template arguments.
float sin_f32(float x) {
  return std::sin(x);
}
float cos_f32(float x) {
  return std::cos(x);
}
float tan_f32(float x) {
  return std::tan(x);
}
float asin_f32(float x) {
  return std::asin(x);
}
float acos_f32(float x) {
  return std::acos(x);
}
float atan_f32(float x) {
  return std::atan(x);
}
float sinh_f32(float x) {
  return std::sinh(x);
}
float cosh_f32(float x) {
  return std::cosh(x);
}
float asinh_f32(float x) {
  return std::asinh(x);
}
float acosh_f32(float x) {
  return std::acosh(x);
}
float atanh_f32(float x) {
  return std::atanh(x);
}

}  // namespace

std::unique_ptr<OpKernel> make_sin(const NodeInfo& node) {
  return make_fast_only<sin_f32>(node);
}
std::unique_ptr<OpKernel> make_cos(const NodeInfo& node) {
  return make_fast_only<cos_f32>(node);
}
std::unique_ptr<OpKernel> make_tan(const NodeInfo& node) {
  return make_fast_only<tan_f32>(node);
}
std::unique_ptr<OpKernel> make_asin(const NodeInfo& node) {
  return make_fast_only<asin_f32>(node);
}
std::unique_ptr<OpKernel> make_acos(const NodeInfo& node) {
  return make_fast_only<acos_f32>(node);
}
std::unique_ptr<OpKernel> make_atan(const NodeInfo& node) {
  return make_fast_only<atan_f32>(node);
}
std::unique_ptr<OpKernel> make_sinh(const NodeInfo& node) {
  return make_fast_only<sinh_f32>(node);
}
std::unique_ptr<OpKernel> make_cosh(const NodeInfo& node) {
  return make_fast_only<cosh_f32>(node);
}
std::unique_ptr<OpKernel> make_asinh(const NodeInfo& node) {
  return make_fast_only<asinh_f32>(node);
}
std::unique_ptr<OpKernel> make_acosh(const NodeInfo& node) {
  return make_fast_only<acosh_f32>(node);
}
std::unique_ptr<OpKernel> make_atanh(const NodeInfo& node) {
  return make_fast_only<atanh_f32>(node);
}

}  // namespace onemodel::ops
