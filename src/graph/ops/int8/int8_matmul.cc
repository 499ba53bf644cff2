#include "graph/ops/int8/int8_matmul.h"

#include <string>

#include "graph/ops/int8/int8_common.h"
#include "graph/ops/linalg/matmul_geometry.h"
#include "graph/ops/shape/op_inputs.h"

namespace onemodel::ops::int8 {
namespace {

// Where a kind's inputs are (-1: the kind has no such input).
struct Inputs {
  int a, b, a_zero, b_zero, scale, bias;
  int a_scale = -1, b_scale = -1, y_scale = -1, y_zero = -1;
};
Inputs inputs_of(MatMulKind kind) {
  switch (kind) {
    case MatMulKind::Integer:
      return {0, 1, 2, 3, -1, -1};
    case MatMulKind::QLinear:
      return {0, 3, 2, 5, -1, 8, 1, 4, 6, 7};
    default:
      return {0, 1, 3, 4, 2, 5};
  }
}

class Int8MatMul final : public OpKernel {
 public:
  explicit Int8MatMul(MatMulKind kind) : kind_(kind), in_(inputs_of(kind)) { supports_exact = true; }

  void infer(InferContext& ctx) const override {
    const char* name = kind_ == MatMulKind::Integer   ? "MatMulInteger"
                       : kind_ == MatMulKind::QLinear ? "QLinearMatMul"
                                                      : "MatMulIntegerToFloat";
    const DType ta = ctx.input_dtype(in_.a), tb = ctx.input_dtype(in_.b);
    if (!is_8bit(ta) || !is_8bit(tb)) {
      ctx.node().unsupported(std::string(name) + ": element types " + std::string(dtype_name(ta)) + " x " +
                             std::string(dtype_name(tb)) + " are not supported");
    }
    const Shape& a = ctx.input_shape(in_.a);
    const Shape& b = ctx.input_shape(in_.b);
    MatMulGeometry g;
    if (!matmul_geometry(a, b, g)) ctx.fail("operands " + a.str() + " and " + b.str() + " do not multiply");
    Shape out = g.batch;
    if (a.rank > 1) out.dims[static_cast<size_t>(out.rank++)] = g.m;
    if (b.rank > 1) out.dims[static_cast<size_t>(out.rank++)] = g.n;
    check_zero_point(ctx, static_cast<size_t>(in_.a_zero), ta, g.m, "a_zero_point");
    check_zero_point(ctx, static_cast<size_t>(in_.b_zero), tb, g.n, "b_zero_point");
    DType y = DType::I32;
    if (kind_ == MatMulKind::QLinear) {
      const bool half_ok = ctx.node().opset() >= 21;
      check_scale(ctx, static_cast<size_t>(in_.a_scale), 1, half_ok, "a_scale");
      check_scale(ctx, static_cast<size_t>(in_.b_scale), g.n, half_ok, "b_scale");
      check_scale(ctx, static_cast<size_t>(in_.y_scale), 1, half_ok, "y_scale");
      y = ctx.input_dtype(static_cast<size_t>(in_.y_zero));
      if (!is_8bit(y)) ctx.node().unsupported("QLinearMatMul: output type " + std::string(dtype_name(y)));
      check_zero_point(ctx, static_cast<size_t>(in_.y_zero), y, 1, "y_zero_point");
      check_int32_bias(ctx, static_cast<size_t>(in_.bias), g.n, "bias");
    } else if (kind_ == MatMulKind::ToFloat) {
      y = DType::F32;
      check_scale(ctx, static_cast<size_t>(in_.scale), g.n, false, "scale");
      if (ctx.has_input(static_cast<size_t>(in_.bias)))
        check_scale(ctx, static_cast<size_t>(in_.bias), g.n, false, "bias");
      // The fused Mul and Add must not have broadcast the product to a larger shape.
      for (int i : {in_.scale, in_.bias}) {
        if (ctx.has_input(static_cast<size_t>(i)) && ctx.input_shape(static_cast<size_t>(i)).rank > out.rank)
          ctx.fail("scale and bias may not have more axes than the product");
      }
    }
    const std::string problem = shape_problem(out.span(), dtype_size(y));
    if (!problem.empty()) ctx.fail("output: " + problem);
    ctx.set_output(0, y, out);
  }

  std::shared_ptr<const void> prepare(PrepareContext& ctx) const override {
    const TensorRef* b = ctx.input_value(static_cast<size_t>(in_.b));
    if (b == nullptr) return nullptr;
    const Shape& bs = b->shape;
    if (bs.count(0, std::max(bs.rank - 2, 0)) != 1) return nullptr;  // batched weights are not packed
    const int64_t k = bs.rank == 1 ? bs[0] : bs[bs.rank - 2];
    const int64_t n = bs.rank == 1 ? 1 : bs[bs.rank - 1];
    return pack_int8_weight(ctx.kernels(), *b, 1, 0, n, 1, k, n);
  }

  void run(const OpRun& run) const override {
    const TensorRef& a = run.inputs[static_cast<size_t>(in_.a)];
    const TensorRef& b = run.inputs[static_cast<size_t>(in_.b)];
    MatMulGeometry g;
    matmul_geometry(a.shape, b.shape, g);
    const int64_t batches = g.batch.count();
    if (batches == 0 || g.m == 0 || g.n == 0) return;
    Int8GemmArgs args = epilogue_args(run, g.n);
    args.m = g.m, args.n = g.n, args.k = g.k;
    args.a_row = g.k, args.b_row = g.n;
    args.a_signed = a.dtype == DType::I8, args.b_signed = b.dtype == DType::I8;
    if (run.has_input(static_cast<size_t>(in_.a_zero))) {
      args.a_zero = run.inputs[static_cast<size_t>(in_.a_zero)].data;
      args.a_zero_per_row = run.inputs[static_cast<size_t>(in_.a_zero)].shape.count() > 1;
    }
    if (run.has_input(static_cast<size_t>(in_.b_zero))) {
      args.b_zero = run.inputs[static_cast<size_t>(in_.b_zero)].data;
      args.b_zero_per_col = run.inputs[static_cast<size_t>(in_.b_zero)].shape.count() > 1;
    }
    args.c_row = g.n;
    const auto* packed = static_cast<const PackedInt8Weight*>(run.state);
    const Int8PackedB* packed_b = packed != nullptr ? &packed->groups[0] : nullptr;
    const auto* a_data = a.as<const uint8_t>();
    const auto* b_data = b.as<const uint8_t>();
    auto* c = run.outputs[0].as<std::byte>();
    const int64_t c_bytes = g.m * g.n * static_cast<int64_t>(dtype_size(run.outputs[0].dtype));
    // One shared B, unbroadcast A batches and no per-row zero point: the batches are more rows of A.
    if (g.batches_are_rows() && !args.a_zero_per_row) {
      args.m *= batches;
      args.a = a_data, args.b = b_data, args.c = c;
      run_int8_gemm(run, args, packed_b, int8_scratch(run, args, packed_b != nullptr));
      return;
    }
    OffsetWalker walk = g.batch_walker();
    void* scratch = int8_scratch(run, args, packed_b != nullptr);
    do {
      args.a = a_data + walk.a(), args.b = b_data + walk.b(), args.c = c;
      run_int8_gemm(run, args, packed_b, scratch);
      c += c_bytes;
    } while (walk.next());
  }

 private:
  // The epilogue fields of the kind; per-column arrays from the run's arena.
  Int8GemmArgs epilogue_args(const OpRun& run, int64_t n) const {
    Int8GemmArgs args;
    args.exact = run.exact;
    if (kind_ == MatMulKind::QLinear) {
      args.epilogue = Int8Epilogue::Requantize;
      float* mult = run.scratch->allocate_array<float>(static_cast<size_t>(n));
      args.mult_per_col = requantize_multipliers(run.inputs[static_cast<size_t>(in_.a_scale)],
                                                 run.inputs[static_cast<size_t>(in_.b_scale)],
                                                 run.inputs[static_cast<size_t>(in_.y_scale)], n, mult);
      args.mult = mult;
      const TensorRef& y_zero = run.inputs[static_cast<size_t>(in_.y_zero)];
      args.y_signed = y_zero.dtype == DType::I8;
      args.y_zero = args.y_signed ? *y_zero.as<const int8_t>() : *y_zero.as<const uint8_t>();
      if (run.has_input(static_cast<size_t>(in_.bias)))
        args.bias_i32 = run.inputs[static_cast<size_t>(in_.bias)].as<const int32_t>();
    } else if (kind_ == MatMulKind::ToFloat) {
      args.epilogue = Int8Epilogue::Float;
      const TensorRef& scale = run.inputs[static_cast<size_t>(in_.scale)];
      args.scale = scale.as<const float>();
      args.scale_per_col = scale.shape.count() > 1;
      if (run.has_input(static_cast<size_t>(in_.bias))) {
        const TensorRef& bias = run.inputs[static_cast<size_t>(in_.bias)];
        float* per_col = run.scratch->allocate_array<float>(static_cast<size_t>(n));
        for (int64_t j = 0; j < n; ++j) per_col[j] = bias.as<const float>()[bias.shape.count() > 1 ? j : 0];
        args.bias_f32 = per_col;
      }
    }
    return args;
  }

  MatMulKind kind_;
  Inputs in_;
};

}  // namespace

std::unique_ptr<OpKernel> make_int8_matmul(const NodeInfo& node, MatMulKind kind) {
  switch (kind) {
    case MatMulKind::Integer:
      require_inputs(node, 2, 4);
      break;
    case MatMulKind::QLinear:
      require_inputs(node, 8, 9);
      break;
    case MatMulKind::ToFloat:
      require_inputs(node, 3, 6);
      break;
  }
  return std::make_unique<Int8MatMul>(kind);
}

}  // namespace onemodel::ops::int8
