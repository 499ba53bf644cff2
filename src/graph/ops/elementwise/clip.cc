// Clip: min(max(x, lo), hi) with the upper bound winning when lo > hi, over every numeric type. An omitted
// bound is the type's finite extreme (so Clip(+inf) without bounds is the largest finite value); NaN passes
// through, since neither comparison holds for it. Before opset 11 the bounds are the float attributes `min`
// and `max`; from 11 they are optional scalar inputs of the element type.
#include <optional>
#include <string>
#include <type_traits>

#include "graph/ops/elementwise/f32_block.h"
#include "graph/ops/elementwise/factories.h"
#include "graph/ops/elementwise/unary_kernel.h"

namespace onemodel::ops {
namespace {

class Clip final : public OpKernel, public F32BlockKernel {
 public:
  // Attribute bounds (opsets before 11), empty when absent; from 11 both are empty and the inputs are read.
  Clip(std::optional<float> min, std::optional<float> max) : min_(min), max_(max) {
    supports_exact = true;
    in_place_input = 0;
  }

  void infer(InferContext& ctx) const override {
    const DType type = ctx.input_dtype(0);
    if (!visit_dtype(type, [](auto e) { return is_numeric_elem<decltype(e)>; })) unsupported_type(ctx, type);
    // The attribute bounds are floats; the opsets that have them define Clip on float types only.
    if (ctx.node().opset() < 11 && !visit_dtype(type, [](auto e) { return decltype(e)::is_float; })) {
      unsupported_type(ctx, type);
    }
    for (size_t i = 1; i < ctx.num_inputs(); ++i) {
      if (!ctx.has_input(i)) continue;
      if (ctx.input_dtype(i) != type) {
        ctx.fail("bound " + std::to_string(i) + " has element type " +
                 std::string(dtype_name(ctx.input_dtype(i))) + ", the input " +
                 std::string(dtype_name(type)));
      }
      if (ctx.input_shape(i).count() != 1) {
        ctx.fail("bound " + std::to_string(i) + " must be a single element, got shape " +
                 ctx.input_shape(i).str());
      }
    }
    ctx.set_output(0, type, ctx.input_shape(0));
  }

  void run(const OpRun& run) const override {
    visit_dtype(run.inputs[0].dtype, [&](auto e) {
      using E = decltype(e);
      if constexpr (is_numeric_elem<E>) {
        using V = typename E::Value;
        const V lo = bound<E>(input_bound<E>(run, 1), min_, finite_lowest<E>());
        const V hi = bound<E>(input_bound<E>(run, 2), max_, finite_max<E>());
        if constexpr (std::is_same_v<E, F32Elem>) {  // the kernel table's vector loop, same selects
          const auto clamp = run.kernels->clamp;
          const float* x = run.inputs[0].as<const float>();
          float* y = run.outputs[0].as<float>();
          for_each_chunk(run.threads, run.outputs[0].count(), 0.5, [&](int64_t begin, int64_t end) {
            clamp(run.exact, x + begin, lo, hi, y + begin, static_cast<size_t>(end - begin));
          });
        } else {
          map_elements<E>(run, 0.5, [lo, hi](V v) {
            v = select_value(v < lo, lo, v);
            return select_value(v > hi, hi, v);
          });
        }
      }
    });
  }

  void run_f32_block(const KernelTable& kernels, bool exact, std::span<const F32BlockOperand> operands,
                     float* y, size_t n) const override {
    float lo, hi;
    clamp_bounds(operands, lo, hi);
    kernels.clamp(exact, operands[0].data, lo, hi, y, n);
  }

  bool clamp_bounds(std::span<const F32BlockOperand> operands, float& lo, float& hi) const override {
    const auto given = [&](size_t i) { return i < operands.size() ? operands[i].data : nullptr; };
    lo = bound<F32Elem>(given(1), min_, finite_lowest<F32Elem>());
    hi = bound<F32Elem>(given(2), max_, finite_max<F32Elem>());
    return true;
  }

 private:
  template <class E>
  static const typename E::Stored* input_bound(const OpRun& run, size_t input) {
    return run.has_input(input) ? run.inputs[input].as<const typename E::Stored>() : nullptr;
  }

  // An input bound (null when omitted), else the attribute (float types, opsets before 11), else `extreme`.
  template <class E>
  static typename E::Value bound(const typename E::Stored* input, std::optional<float> attribute,
                                 typename E::Value extreme) {
    if (input) return E::load(*input);
    if constexpr (E::is_float) {
      if (attribute) return static_cast<typename E::Value>(*attribute);
    }
    return extreme;
  }

  std::optional<float> min_, max_;
};

}  // namespace

std::unique_ptr<OpKernel> make_clip(const NodeInfo& node) {
  if (node.num_inputs() < 1 || node.num_inputs() > 3 || !node.has_input(0))
    node.fail("expects 1 to 3 inputs");
  std::optional<float> min, max;
  if (node.opset() < 11) {
    if (node.num_inputs() != 1) node.fail("takes its bounds as attributes before opset 11");
    if (node.find("min")) min = node.get_float("min", 0.0f);
    if (node.find("max")) max = node.get_float("max", 0.0f);
  }
  return std::make_unique<Clip>(min, max);
}

}  // namespace onemodel::ops
