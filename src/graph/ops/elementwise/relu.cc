// Relu: a compare and a select (graph-runtime.md §7). `x <= 0` is false for NaN, so NaN passes through
// (canonical in exact mode), and both zeros give +0. Served for the float types and the signed integers.
#include "graph/ops/elementwise/common.h"
#include "graph/ops/elementwise/element_types.h"
#include "graph/ops/elementwise/factories.h"

namespace onemodel::ops {
namespace {

template <class E>
inline constexpr bool kReluServes = E::is_float ||
                                    (is_integer_elem<E> && std::is_signed_v<typename E::Value>);

template <class E, bool kExact>
void relu_range(const typename E::Stored* x, typename E::Stored* y, int64_t n) {
  using V = typename E::Value;
  for (int64_t i = 0; i < n; ++i) {
    V v = E::load(x[i]);
    v = v <= V(0) ? V(0) : v;
    if constexpr (kExact) v = canonicalize(v);
    y[i] = E::store(v);
  }
}

class Relu final : public OpKernel {
 public:
  Relu() {
    supports_exact = true;
    in_place_input = 0;
  }

  void infer(InferContext& ctx) const override {
    const DType type = ctx.input_dtype(0);
    if (!visit_dtype(type, [](auto e) { return kReluServes<decltype(e)>; })) unsupported_type(ctx, type);
    ctx.set_output(0, type, ctx.input_shape(0));
  }

  void run(const OpRun& run) const override {
    visit_dtype(run.inputs[0].dtype, [&](auto e) {
      using E = decltype(e);
      if constexpr (kReluServes<E>) {
        const bool exact = E::is_float && run.exact;
        const auto* x = run.inputs[0].as<const typename E::Stored>();
        auto* y = run.outputs[0].as<typename E::Stored>();
        for_each_chunk(run.threads, run.outputs[0].count(), 0.4, [&](int64_t begin, int64_t end) {
          if (exact)
            relu_range<E, true>(x + begin, y + begin, end - begin);
          else
            relu_range<E, false>(x + begin, y + begin, end - begin);
        });
      }
    });
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_relu(const NodeInfo& node) {
  require_inputs(node, 1);
  return std::make_unique<Relu>();
}

}  // namespace onemodel::ops
