// MatMul with numpy semantics: a 1-D operand gains a unit axis that the output drops again, leading (batch)
// axes broadcast. float32 runs on the session's GEMM kernels; a constant B with no batch axes is packed once
// per plan.
#include <string>

#include "graph/ops/linalg/factories.h"
#include "graph/ops/linalg/product.h"
#include "graph/ops/shape/offset_walker.h"
#include "graph/ops/shape/op_inputs.h"

namespace onemodel::ops {
namespace {

// The operands as batches of matrices: batch shapes padded to the output's batch rank, matrices m x k and k x
// n.
struct Geometry {
  Shape a_batch, b_batch, batch;
  int64_t m = 0, k = 0, n = 0;
};

// False when the shapes do not multiply.
bool geometry(const Shape& a, const Shape& b, Geometry& g) {
  if (a.rank == 0 || b.rank == 0) return false;
  g.m = a.rank == 1 ? 1 : a[a.rank - 2];
  g.k = a[a.rank - 1];
  const int64_t kb = b.rank == 1 ? b[0] : b[b.rank - 2];
  g.n = b.rank == 1 ? 1 : b[b.rank - 1];
  if (kb != g.k) return false;
  g.a_batch.rank = a.rank > 2 ? a.rank - 2 : 0;
  g.b_batch.rank = b.rank > 2 ? b.rank - 2 : 0;
  for (int i = 0; i < g.a_batch.rank; ++i) g.a_batch[i] = a[i];
  for (int i = 0; i < g.b_batch.rank; ++i) g.b_batch[i] = b[i];
  if (!broadcast_shapes(g.a_batch, g.b_batch, g.batch)) return false;
  // Right-align the operand batch shapes with the output's.
  for (Shape* s : {&g.a_batch, &g.b_batch}) {
    Shape padded;
    padded.rank = g.batch.rank;
    const int offset = g.batch.rank - s->rank;
    for (int i = 0; i < padded.rank; ++i) padded[i] = i < offset ? 1 : (*s)[i - offset];
    *s = padded;
  }
  return true;
}

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
    Geometry g;
    if (!geometry(a, b, g)) ctx.fail("operands " + a.str() + " and " + b.str() + " do not multiply");
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
    Geometry g;
    geometry(a.shape, b.shape, g);
    const int64_t batches = g.batch.count();
    if (batches == 0 || g.m == 0 || g.n == 0) return;
    const int64_t a_size = g.m * g.k, b_size = g.k * g.n, c_size = g.m * g.n;
    GemmArgs args;
    args.m = g.m;
    args.n = g.n;
    args.k = g.k;
    args.a_row = g.k;
    args.b_row = g.n;
    args.ldc = g.n;
    // One shared B and unbroadcast A batches: the batches are just more rows of A.
    if (g.b_batch.count() == 1 && g.a_batch.count() == batches) {
      args.m *= batches;
      batches_call<T>(run, args, a.as<const T>(), b.as<const T>(), run.outputs[0].as<T>(), OffsetWalker());
      return;
    }
    // Batch strides in elements; 0 where an operand broadcasts.
    OffsetWalker walk;
    int64_t a_stride = a_size, b_stride = b_size;
    int64_t a_strides[kMaxRank], b_strides[kMaxRank];
    for (int i = g.batch.rank - 1; i >= 0; --i) {
      a_strides[i] = g.a_batch[i] == 1 ? 0 : a_stride;
      b_strides[i] = g.b_batch[i] == 1 ? 0 : b_stride;
      a_stride *= g.a_batch[i];
      b_stride *= g.b_batch[i];
    }
    for (int i = 0; i < g.batch.rank; ++i) walk.add_axis(g.batch[i], a_strides[i], b_strides[i]);
    batches_call<T>(run, args, a.as<const T>(), b.as<const T>(), run.outputs[0].as<T>(), walk, c_size);
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
