// Where(condition, x, y): numpy broadcasting of three operands; an element is x's where the condition byte is
// non-zero, else y's. x and y may be any stored type: the select moves elements by their width, so it is
// exact for every type. Exact mode still rewrites a selected float NaN to the canonical NaN.
#include <cstring>

#include "graph/ops/elementwise/binary_kernel.h"
#include "graph/ops/elementwise/factories.h"

namespace onemodel::ops {
namespace {

// One block: the condition and the two sources each advance one element per output element (step 1) or
// repeat one (step 0). Elements are moved as unsigned integers of their width. With the steps as template
// arguments the loop vectorises; kRunTimeStep reads them from the arguments.
template <class U, int kStepC, int kStepX, int kStepY>
void select_block(const uint8_t* c, int64_t step_c, const U* x, int64_t step_x, const U* y, int64_t step_y,
                  U* out, int64_t n) {
  const int64_t sc = kStepC == kRunTimeStep ? step_c : kStepC;
  const int64_t sx = kStepX == kRunTimeStep ? step_x : kStepX;
  const int64_t sy = kStepY == kRunTimeStep ? step_y : kStepY;
  for (int64_t i = 0; i < n; ++i) {
    // Both sources are read for every element: a load on one side of a branch would keep the loop scalar.
    const U from_x = x[i * sx], from_y = y[i * sy];
    out[i] = c[i * sc] != 0 ? from_x : from_y;
  }
}

template <class U>
using SelectBlockFn = void (*)(const uint8_t*, int64_t, const U*, int64_t, const U*, int64_t, U*, int64_t);

// The block loop for the innermost steps: the common patterns (all operands advancing, or one source
// repeating a scalar) get their own loop, the rest share one that reads the steps.
template <class U>
SelectBlockFn<U> select_block_for(int64_t sc, int64_t sx, int64_t sy) {
  if (sc && sx && sy) return &select_block<U, 1, 1, 1>;
  if (sc && sx) return &select_block<U, 1, 1, 0>;
  if (sc && sy) return &select_block<U, 1, 0, 1>;
  return &select_block<U, kRunTimeStep, kRunTimeStep, kRunTimeStep>;
}

template <class U>
void run_select(const OpRun& run, const BroadcastLoop& loop, bool canonical_floats) {
  const auto* c = run.inputs[0].as<const uint8_t>();
  const auto* x = reinterpret_cast<const U*>(run.inputs[1].data);
  const auto* y = reinterpret_cast<const U*>(run.inputs[2].data);
  auto* out = reinterpret_cast<U*>(run.outputs[0].data);
  const int64_t sc = loop.inner_step(0), sx = loop.inner_step(1), sy = loop.inner_step(2);
  const SelectBlockFn<U> block = select_block_for<U>(sc, sx, sy);
  const DType type = run.outputs[0].dtype;
  for_each_chunk(run.threads, loop.count(), 0.5, [&](int64_t begin, int64_t end) {
    loop.for_range(begin, end, [&](const int64_t* off, int64_t at, int64_t n) {
      block(c + off[0], sc, x + off[1], sx, y + off[2], sy, out + at, n);
    });
    if (!canonical_floats) return;
    visit_dtype(type, [&](auto e) {
      using E = decltype(e);
      if constexpr (E::is_float)
        canonicalize_stored<E>(reinterpret_cast<typename E::Stored*>(out) + begin, end - begin);
    });
  });
}

class Where final : public OpKernel {
 public:
  Where() { supports_exact = true; }

  void infer(InferContext& ctx) const override {
    if (ctx.input_dtype(0) != DType::Bool) {
      ctx.fail("condition must be bool, got " + std::string(dtype_name(ctx.input_dtype(0))));
    }
    const DType type = ctx.input_dtype(1);
    if (ctx.input_dtype(2) != type) {
      ctx.fail("input element types " + std::string(dtype_name(type)) + " and " +
               std::string(dtype_name(ctx.input_dtype(2))) + " differ");
    }
    ctx.set_output(0, type, broadcast_output_shape(ctx, 3, type));
  }

  void run(const OpRun& run) const override {
    const Shape* shapes[] = {&run.inputs[0].shape, &run.inputs[1].shape, &run.inputs[2].shape};
    const BroadcastLoop loop(run.outputs[0].shape, shapes);
    if (loop.count() == 0) return;
    const DType type = run.outputs[0].dtype;
    const bool canonical = run.exact && visit_dtype(type, [](auto e) { return decltype(e)::is_float; });
    switch (dtype_size(type)) {
      case 1:
        return run_select<uint8_t>(run, loop, canonical);
      case 2:
        return run_select<uint16_t>(run, loop, canonical);
      case 4:
        return run_select<uint32_t>(run, loop, canonical);
      default:
        return run_select<uint64_t>(run, loop, canonical);
    }
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_where(const NodeInfo& node) {
  require_inputs(node, 3);
  return std::make_unique<Where>();
}

}  // namespace onemodel::ops
