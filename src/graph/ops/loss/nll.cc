#include "graph/ops/loss/nll.h"

#include <string>

#include "graph/ops/linalg/canonical_nan.h"
#include "graph/ops/reduce/canonical_sum.h"
#include "graph/ops/run_fail.h"
#include "graph/ops/shape/op_inputs.h"

namespace onemodel::ops {
namespace {

template <class T>
struct Add {
  T operator()(T a, T b) const { return a + b; }
};

// The class of target position p, or -1 for an ignored position; a class outside [0, classes) is an error.
int64_t target_class(const OpRun& run, const NllOptions& options, int64_t target, int64_t classes) {
  if (options.ignore_index && target == *options.ignore_index) return -1;
  if (target < 0 || target >= classes) {
    run_fail(run,
             "target class " + std::to_string(target) + " is outside [0, " + std::to_string(classes) + ")");
  }
  return target;
}

template <class T, class I>
void nll(const OpRun& run, const NllOptions& options, const TensorRef& input, const I* target) {
  const T* x = input.as<const T>();
  const T* weight = run.has_input(2) ? run.inputs[2].as<const T>() : nullptr;
  const int64_t batches = input.shape[0], classes = input.shape[1];
  const int64_t positions = input.shape.count(2, input.shape.rank);  // per batch entry
  const int64_t count = batches * positions;
  const bool reduce = options.reduction != LossReduction::None;
  // The per-position losses go straight to the output, or to scratch when they are summed.
  T* loss = reduce ? run.scratch->allocate_array<T>(static_cast<size_t>(count)) : run.outputs[0].as<T>();
  T* w = reduce && weight != nullptr ? run.scratch->allocate_array<T>(static_cast<size_t>(count)) : nullptr;
  int64_t counted = 0;
  for (int64_t n = 0; n < batches; ++n) {
    for (int64_t d = 0; d < positions; ++d) {
      const int64_t p = n * positions + d;
      const int64_t t = target_class(run, options, static_cast<int64_t>(target[p]), classes);
      if (t < 0) {
        loss[p] = T(0);
        if (w != nullptr) w[p] = T(0);
        continue;
      }
      const T negated = -x[(n * classes + t) * positions + d];
      loss[p] = canonicalize(weight != nullptr ? weight[t] * negated : negated);
      if (w != nullptr) w[p] = weight[t];
      ++counted;
    }
  }
  if (!reduce) return;
  CanonicalSum<T, Add<T>> loss_sum({});
  loss_sum.add(count, [&](int64_t p) { return loss[p]; });
  T total = loss_sum.total();
  if (options.reduction == LossReduction::Mean) {
    T denominator = static_cast<T>(counted);
    if (w != nullptr) {
      CanonicalSum<T, Add<T>> weight_sum({});
      weight_sum.add(count, [&](int64_t p) { return w[p]; });
      denominator = weight_sum.total();
    }
    total = total / denominator;
  }
  run.outputs[0].as<T>()[0] = canonicalize(total);
}

template <class T>
void nll_typed(const OpRun& run, const NllOptions& options, const TensorRef& input) {
  const TensorRef& target = run.inputs[1];
  if (target.dtype == DType::I64)
    nll<T>(run, options, input, target.as<const int64_t>());
  else
    nll<T>(run, options, input, target.as<const int32_t>());
}

}  // namespace

NllOptions nll_options(const NodeInfo& node) {
  NllOptions options;
  const std::string reduction = node.get_string("reduction", "mean");
  if (reduction == "none")
    options.reduction = LossReduction::None;
  else if (reduction == "sum")
    options.reduction = LossReduction::Sum;
  else if (reduction == "mean")
    options.reduction = LossReduction::Mean;
  else
    node.fail("unknown reduction '" + reduction + "'");
  if (node.find("ignore_index") != nullptr) options.ignore_index = node.get_int("ignore_index", 0);
  return options;
}

void infer_nll(InferContext& ctx, const NllOptions& options, DType dtype) {
  const Shape& input = ctx.input_shape(0);
  const Shape& target = ctx.input_shape(1);
  if (input.rank < 2) ctx.fail("the input " + input.str() + " needs rank 2 or more ([N, C, ...])");
  if (ctx.input_dtype(1) != DType::I64 && ctx.input_dtype(1) != DType::I32)
    ctx.fail("the target must be int64 or int32");
  bool target_fits = target.rank == input.rank - 1 && target[0] == input[0];
  for (int a = 1; target_fits && a < target.rank; ++a) target_fits = target[a] == input[a + 1];
  if (!target_fits) ctx.fail("the target " + target.str() + " does not match the input " + input.str());
  if (ctx.has_input(2)) {
    if (ctx.input_dtype(2) != dtype) ctx.fail("the weights and the input have different element types");
    if (ctx.input_shape(2) != Shape{input[1]})
      ctx.fail("the weights " + ctx.input_shape(2).str() + " must hold one value per class (" +
               std::to_string(input[1]) + ")");
  }
  ctx.set_output(0, dtype, options.reduction == LossReduction::None ? target : Shape{});
}

void run_nll(const OpRun& run, const NllOptions& options, const TensorRef& input) {
  if (input.dtype == DType::F64)
    nll_typed<double>(run, options, input);
  else
    nll_typed<float>(run, options, input);
}

}  // namespace onemodel::ops
