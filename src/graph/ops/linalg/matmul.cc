// MatMul with numpy semantics: a 1-D operand gains a unit axis that the output drops again, leading (batch)
// axes broadcast. float32 runs on the session's GEMM kernels; a constant B with no batch axes is packed once
// per plan.
#include <string>

#include "graph/ops/linalg/factories.h"
#include "graph/ops/linalg/matmul_geometry.h"
#include "graph/ops/linalg/product.h"
#include "graph/ops/shape/op_inputs.h"

namespace onemodel::ops {
namespace {

class MatMul final : public OpKernel {
 public:
  MatMul() { supports_exact = true; }

  void infer(InferContext& ctx) const override {
    const DType t = ctx.input_dtype(0);
    if (ctx.input_dtype(1) != t) ctx.fail("operands have different element types");
    if (t != DType::F32 && t != DType::F64 && t != DType::I32 && t != DType::I64 && t != DType::U32 &&
        t != DType::U64) {
      ctx.node().unsupported("MatMul: element type " + std::string(dtype_name(t)) + " is not supported");
    }
    const Shape& a = ctx.input_shape(0);
    const Shape& b = ctx.input_shape(1);
    MatMulGeometry g;
    if (!matmul_geometry(a, b, g)) ctx.fail("operands " + a.str() + " and " + b.str() + " do not multiply");
    Shape out = g.batch;
    if (a.rank > 1) out.dims[static_cast<size_t>(out.rank++)] = g.m;
    if (b.rank > 1) out.dims[static_cast<size_t>(out.rank++)] = g.n;
    const std::string problem = shape_problem(out.span(), dtype_size(t));
    if (!problem.empty()) ctx.fail("output: " + problem);
    ctx.set_output(0, t, out);
  }

  std::shared_ptr<const void> prepare(PrepareContext& ctx) const override {
    const TensorRef* b = ctx.input_value(1);
    if (b == nullptr || b->dtype != DType::F32) return nullptr;
    const Shape& bs = b->shape;
    if (bs.count(0, std::max(bs.rank - 2, 0)) != 1) return nullptr;  // batched weights are not packed
    const int64_t k = bs.rank == 1 ? bs[0] : bs[bs.rank - 2];
    const int64_t n = bs.rank == 1 ? 1 : bs[bs.rank - 1];
    return pack_weight(ctx, b->as<const float>(), n, 1, k, n);
  }

  void run(const OpRun& run) const override {
    switch (run.inputs[0].dtype) {
      case DType::F32:
        return multiply<float>(run);
      case DType::F64:
        return multiply<double>(run);
      case DType::I32:
        return multiply<int32_t>(run);
      case DType::I64:
        return multiply<int64_t>(run);
      case DType::U32:
        return multiply<uint32_t>(run);
      default:
        return multiply<uint64_t>(run);  // U64, the last type infer accepts
    }
  }

 private:
  template <class T>
  static void multiply(const OpRun& run) {
    const TensorRef& a = run.inputs[0];
    const TensorRef& b = run.inputs[1];
    MatMulGeometry g;
    matmul_geometry(a.shape, b.shape, g);
    const int64_t batches = g.batch.count();
    if (batches == 0 || g.m == 0 || g.n == 0) return;
    GemmArgs args;
    args.m = g.m;
    args.n = g.n;
    args.k = g.k;
    args.a_row = g.k;
    args.b_row = g.n;
    args.ldc = g.n;
    if (g.batches_are_rows()) {
      args.m *= batches;
      batches_call<T>(run, args, a.as<const T>(), b.as<const T>(), run.outputs[0].as<T>(), OffsetWalker());
      return;
    }
    const OffsetWalker walk = g.batch_walker();
    batches_call<T>(run, args, a.as<const T>(), b.as<const T>(), run.outputs[0].as<T>(), walk, g.m * g.n);
  }

  // One product per tuple of `walk` (A and B offsets), C batches consecutive.
  template <class T>
  static void batches_call(const OpRun& run, GemmArgs args, const T* a, const T* b, T* c, OffsetWalker walk,
                           int64_t c_size = 0) {
    if constexpr (std::is_same_v<T, float>) {
      const auto* packed = static_cast<const PackedWeight*>(run.state);
      float* scratch = gemm_scratch(run, args, packed);
      do {
        args.a = a + walk.a();
        args.b = b + walk.b();
        args.c = c;
        run_gemm(run, args, packed, scratch);
        c += c_size;
      } while (walk.next());
    } else {
      do {
        product_loop(a + walk.a(), args.a_row, args.a_col, b + walk.b(), args.b_row, args.b_col, c, args.m,
                     args.n, args.k, run.exact);
        c += c_size;
      } while (walk.next());
    }
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_matmul(const NodeInfo& node) {
  require_inputs(node, 2, 2);
  return std::make_unique<MatMul>();
}

}  // namespace onemodel::ops
