// Pow(base, exponent) with numpy broadcasting; the output has the base's type. A float base uses single-
// precision pow with the exponent converted to float, a double base double pow, an integer base computes in
// double and converts back the way Cast does (truncating, saturating). An exponent of 2 is x * x. Not exact:
// the platform's pow is not bit-reproducible across machines, so exact mode refuses a model that uses Pow --
// unless the exponent is a graph constant 2 (how exporters write a square), when every element is one
// correctly rounded product and the node is exact.
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "graph/ops/elementwise/binary_kernel.h"
#include "graph/ops/elementwise/factories.h"

namespace onemodel::ops {
namespace {

template <class E>
inline constexpr bool kServesBase =
    E::dtype == DType::F32 || E::dtype == DType::F64 || E::dtype == DType::I32 || E::dtype == DType::I64;
template <class E>
inline constexpr bool kServesExponent = kServesBase<E> || E::dtype == DType::U32 || E::dtype == DType::U64;

template <class V>
V saturating_from_double(double d) {
  constexpr double lowest = static_cast<double>(std::numeric_limits<V>::min());
  constexpr double past_highest = -lowest;  // 2^31 or 2^63, exact
  if (d != d) return 0;
  if (d <= lowest) return std::numeric_limits<V>::min();
  if (d >= past_highest) return std::numeric_limits<V>::max();
  return static_cast<V>(d);
}

struct PowOp {
  template <class B, class X>
  static B apply(B base, X exponent) {
    if constexpr (std::is_same_v<B, float>) {
      const float e = static_cast<float>(exponent);
      return e == 2.0f ? base * base : std::pow(base, e);
    } else if constexpr (std::is_same_v<B, double>) {
      const double e = static_cast<double>(exponent);
      return e == 2.0 ? base * base : std::pow(base, e);
    } else {
      return saturating_from_double<B>(PowOp::apply(static_cast<double>(base), exponent));
    }
  }
};

// The constant tensor behind a value: an initializer no caller can override, or a Constant node's `value`.
const ir::TensorData* graph_constant(const ir::Graph& graph, int32_t value_id) {
  const ir::Value& v = graph.values[static_cast<size_t>(value_id)];
  if (v.source == ir::Value::Source::Initializer && v.initializer >= 0)
    return &graph.initializers[static_cast<size_t>(v.initializer)];
  if (v.source == ir::Value::Source::NodeOutput && v.producer >= 0) {
    const ir::Node& producer = graph.nodes[static_cast<size_t>(v.producer)];
    if (producer.op_type == "Constant" && (producer.domain.empty() || producer.domain == "ai.onnx")) {
      const ir::Attribute* a = producer.find("value");
      if (a != nullptr && a->t) return &*a->t;
    }
  }
  return nullptr;
}

template <class T>
bool single_element_equals_two(const ir::TensorData& t) {
  if (t.count() != 1 || t.bytes.size() != sizeof(T)) return false;
  T v;
  std::memcpy(&v, t.bytes.data(), sizeof(T));
  return v == T(2);
}

bool exponent_is_constant_two(const NodeInfo& node) {
  const ir::TensorData* t = graph_constant(node.graph(), node.node().inputs[1]);
  if (t == nullptr) return false;
  switch (static_cast<DType>(t->elem_type)) {
    case DType::F32:
      return single_element_equals_two<float>(*t);
    case DType::F64:
      return single_element_equals_two<double>(*t);
    case DType::I32:
      return single_element_equals_two<int32_t>(*t);
    case DType::I64:
      return single_element_equals_two<int64_t>(*t);
    default:
      return false;
  }
}

class Pow final : public OpKernel {
 public:
  // The output may have another shape than the base: never in place.
  explicit Pow(bool squares) { supports_exact = squares; }

  void infer(InferContext& ctx) const override {
    const DType base = ctx.input_dtype(0), exponent = ctx.input_dtype(1);
    if (!visit_dtype(base, [](auto e) { return kServesBase<decltype(e)>; })) unsupported_type(ctx, base);
    if (!visit_dtype(exponent, [](auto e) { return kServesExponent<decltype(e)>; }))
      unsupported_type(ctx, exponent);
    ctx.set_output(0, base, broadcast_output_shape(ctx, 2, base));
  }

  void run(const OpRun& run) const override {
    visit_dtype(run.inputs[0].dtype, [&](auto base) {
      using B = decltype(base);
      if constexpr (kServesBase<B>) {
        visit_dtype(run.inputs[1].dtype, [&](auto exponent) {
          using X = decltype(exponent);
          if constexpr (kServesExponent<X>) {
            if (run.exact) return run_binary_broadcast(run, binary_blocks<PowOp, B, X, B, true>(), 5.0);
            run_binary_broadcast(run, binary_blocks<PowOp, B, X, B, false>(), 5.0);
          }
        });
      }
    });
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_pow(const NodeInfo& node) {
  require_inputs(node, 2);
  return std::make_unique<Pow>(node.has_input(1) && exponent_is_constant_two(node));
}

}  // namespace onemodel::ops
