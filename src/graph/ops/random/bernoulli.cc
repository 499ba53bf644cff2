// Bernoulli: element i is 1 when u_i < p_i, else 0, with u_i uniform in [0, 1) from 53 bits of the node's
// counter stream (counter_random.h) and p_i the input (any float type) widened to double. A
// probability of NaN gives 0; one outside [0, 1] gives the nearer certainty. The output type is `dtype`, else
// the input's. Only comparisons: exact.
#include <optional>

#include "graph/ops/dtype_attribute.h"
#include "graph/ops/elementwise/common.h"
#include "graph/ops/elementwise/element_types.h"
#include "graph/ops/random/counter_random.h"
#include "graph/ops/random/factories.h"

namespace onemodel::ops {
namespace {

class Bernoulli final : public OpKernel {
 public:
  Bernoulli(std::optional<DType> dtype, uint64_t key) : dtype_(dtype), random_(key) { supports_exact = true; }

  void infer(InferContext& ctx) const override {
    const DType in = ctx.input_dtype(0);
    if (!is_float_dtype(in)) unsupported_type(ctx, in);
    ctx.set_output(0, dtype_.value_or(in), ctx.input_shape(0));
  }

  void run(const OpRun& run) const override {
    visit_dtype(run.inputs[0].dtype, [&](auto in) {
      using EI = decltype(in);
      if constexpr (EI::is_float) {
        visit_dtype(run.outputs[0].dtype, [&](auto out) { draw<EI, decltype(out)>(run); });
      }
    });
  }

 private:
  template <class EI, class EO>
  void draw(const OpRun& run) const {
    const auto* p = run.inputs[0].as<const typename EI::Stored>();
    auto* y = run.outputs[0].as<typename EO::Stored>();
    const auto one = EO::store(typename EO::Value(1)), zero = EO::store(typename EO::Value(0));
    for_each_chunk(run.threads, run.outputs[0].count(), 2.0, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        const double u = CounterRandom::unit_double(random_.bits(static_cast<uint64_t>(i)));
        y[i] = u < static_cast<double>(EI::load(p[i])) ? one : zero;
      }
    });
  }

  std::optional<DType> dtype_;
  CounterRandom random_;
};

}  // namespace

std::unique_ptr<OpKernel> make_bernoulli(const NodeInfo& node) {
  require_inputs(node, 1);
  return std::make_unique<Bernoulli>(dtype_attribute(node, "dtype"), random_stream_key(node));
}

}  // namespace onemodel::ops
