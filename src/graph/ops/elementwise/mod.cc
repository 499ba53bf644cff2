// Mod with numpy broadcasting. fmod = 1: the remainder takes the dividend's sign (C fmod for floats, which is
// exact; truncating % for integers). fmod = 0 (the default): the divisor's sign (floor modulus), integers
// only. For integers x % 0 is 0 and MIN % -1 is 0 rather than a trap.
#include <cmath>
#include <type_traits>

#include "graph/ops/elementwise/binary_kernel.h"
#include "graph/ops/elementwise/factories.h"

namespace onemodel::ops {
namespace {

// Truncating integer remainder without the traps.
template <class V>
V remainder_toward_zero(V a, V b) {
  if (b == 0) return 0;
  if constexpr (std::is_signed_v<V>) {
    if (b == -1) return 0;
  }
  return static_cast<V>(a % b);
}

struct FmodOp {
  static constexpr bool kBoolOutput = false;
  template <class E>
  static constexpr bool serves = is_numeric_elem<E>;
  template <class V>
  static V apply(V a, V b) {
    if constexpr (std::is_floating_point_v<V>)
      return std::fmod(a, b);
    else
      return remainder_toward_zero(a, b);
  }
};

struct FloorModOp {
  static constexpr bool kBoolOutput = false;
  template <class E>
  static constexpr bool serves = is_integer_elem<E>;
  template <class V>
  static V apply(V a, V b) {
    const V r = remainder_toward_zero(a, b);
    if constexpr (std::is_signed_v<V>) {
      // A non-zero remainder whose sign differs from the divisor's moves one divisor toward it; |r| < |b|, so
      // the sum cannot overflow.
      if (r != 0 && (r < 0) != (b < 0)) return static_cast<V>(r + b);
    }
    return r;
  }
};

// fmod = 0 on a float type is a model error (the ONNX specification demands fmod = 1 there), not a gap.
class FloorMod final : public SameTypeBinary<FloorModOp> {
 public:
  void infer(InferContext& ctx) const override {
    if (visit_dtype(ctx.input_dtype(0), [](auto e) { return decltype(e)::is_float; })) {
      ctx.fail("fmod must be 1 for the float type " + std::string(dtype_name(ctx.input_dtype(0))));
    }
    SameTypeBinary<FloorModOp>::infer(ctx);
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_mod(const NodeInfo& node) {
  const int64_t fmod = node.get_int("fmod", 0);
  if (fmod == 1) return make_same_type_binary<FmodOp>(node);
  if (fmod != 0) node.fail("attribute 'fmod' must be 0 or 1, got " + std::to_string(fmod));
  require_inputs(node, 2);
  return std::make_unique<FloorMod>();
}

}  // namespace onemodel::ops
