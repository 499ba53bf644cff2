// Add, Sub, Mul, Div over f16, f32, f64 and the integer types, with numpy broadcasting (ops-elementwise.md).
//
// Floats: one IEEE operation per element (f16 computed in f32 and rounded once), so fast and exact differ
// only in exact mode's NaN rewrite. Integers wrap around, Div truncates, x / 0 is 0 and MIN / -1 is MIN.
#include <functional>
#include <type_traits>

#include "graph/ops/elementwise/broadcast.h"
#include "graph/ops/elementwise/common.h"
#include "graph/ops/elementwise/element_types.h"
#include "graph/ops/elementwise/factories.h"

namespace onemodel::ops {
namespace {

// Integer arithmetic in an unsigned type at least as wide as int: nothing is promoted to a signed int that
// could overflow, and narrowing back is modulo 2^n.
template <class V>
using Wrap = std::conditional_t<(sizeof(V) < sizeof(unsigned)), unsigned, std::make_unsigned_t<V>>;

// Add, Sub and Mul: the same expression for floats and, in the wrapping type, for integers.
template <class Fn>
struct RingOp {
  template <class V>
  static V apply(V a, V b) {
    if constexpr (std::is_integral_v<V>) {
      return static_cast<V>(Fn{}(Wrap<V>(a), Wrap<V>(b)));
    } else {
      return Fn{}(a, b);
    }
  }
};
using AddOp = RingOp<std::plus<>>;
using SubOp = RingOp<std::minus<>>;
using MulOp = RingOp<std::multiplies<>>;

struct DivOp {
  template <class V>
  static V apply(V a, V b) {
    if constexpr (std::is_integral_v<V>) {
      if (b == 0) return 0;
      // x / -1 is a wrapping negation, which also gives MIN / -1 = MIN without the trap.
      if constexpr (std::is_signed_v<V>) {
        if (b == -1) return static_cast<V>(Wrap<V>(0) - Wrap<V>(a));
      }
      return static_cast<V>(a / b);
    } else {
      return a / b;
    }
  }
};

// Step used when the block's steps are run-time values rather than template arguments.
constexpr int kRunTimeStep = -1;

// One block of the broadcast (BinaryBlockFn). With the steps as template arguments the loop is flat and the
// compiler vectorises it.
template <class Op, class E, bool kExact, int kStepA, int kStepB>
void binary_block(const std::byte* a_bytes, int64_t step_a, const std::byte* b_bytes, int64_t step_b,
                  std::byte* y_bytes, int64_t n) {
  using S = typename E::Stored;
  const S* a = reinterpret_cast<const S*>(a_bytes);
  const S* b = reinterpret_cast<const S*>(b_bytes);
  S* y = reinterpret_cast<S*>(y_bytes);
  const int64_t sa = kStepA == kRunTimeStep ? step_a : kStepA;
  const int64_t sb = kStepB == kRunTimeStep ? step_b : kStepB;
  for (int64_t i = 0; i < n; ++i) {
    auto v = Op::apply(E::load(a[i * sa]), E::load(b[i * sb]));
    if constexpr (kExact) v = canonicalize(v);
    y[i] = E::store(v);
  }
}

// f32, the type whose speed matters, gets one loop per step pattern; the other types share one loop that
// reads the steps at run time, which keeps the code small.
template <class Op, class E, bool kExact>
BinaryBlocks blocks_for() {
  if constexpr (std::is_same_v<E, F32Elem>) {
    return {&binary_block<Op, E, kExact, 1, 1>, &binary_block<Op, E, kExact, 0, 1>,
            &binary_block<Op, E, kExact, 1, 0>};
  } else {
    const BinaryBlockFn any = &binary_block<Op, E, kExact, kRunTimeStep, kRunTimeStep>;
    return {any, any, any};
  }
}

template <class Op>
class BinaryArithmetic final : public OpKernel {
 public:
  BinaryArithmetic() {
    supports_exact = true;
    in_place_input = 0;
  }

  void infer(InferContext& ctx) const override {
    const DType type = ctx.input_dtype(0);
    if (ctx.input_dtype(1) != type) {
      ctx.fail("input element types " + std::string(dtype_name(type)) + " and " +
               std::string(dtype_name(ctx.input_dtype(1))) + " differ");
    }
    if (!visit_dtype(type, [](auto e) { return is_numeric_elem<decltype(e)>; })) unsupported_type(ctx, type);
    ctx.set_output(0, type, broadcast_output_shape(ctx, 2, type));
  }

  void run(const OpRun& run) const override {
    visit_dtype(run.inputs[0].dtype, [&](auto e) {
      using E = decltype(e);
      if constexpr (is_numeric_elem<E>) {
        if constexpr (E::is_float) {
          if (run.exact) return run_binary_broadcast(run, blocks_for<Op, E, true>(), 0.5);
        }
        run_binary_broadcast(run, blocks_for<Op, E, false>(), 0.5);
      }
    });
  }
};

template <class Op>
std::unique_ptr<OpKernel> make_binary(const NodeInfo& node) {
  require_inputs(node, 2);
  return std::make_unique<BinaryArithmetic<Op>>();
}

}  // namespace

std::unique_ptr<OpKernel> make_add(const NodeInfo& node) {
  return make_binary<AddOp>(node);
}
std::unique_ptr<OpKernel> make_sub(const NodeInfo& node) {
  return make_binary<SubOp>(node);
}
std::unique_ptr<OpKernel> make_mul(const NodeInfo& node) {
  return make_binary<MulOp>(node);
}
std::unique_ptr<OpKernel> make_div(const NodeInfo& node) {
  return make_binary<DivOp>(node);
}

}  // namespace onemodel::ops
