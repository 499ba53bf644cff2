// Bits: the product is gemm_packed, which gives gemm's bits; the bias is the stand-alone Add's one rounded
// addition per element (operands in the Add's order, exact mode's NaN rewrite by the same binary kernel); the
// activation is the activation node's own kernel on the same values. None of these depends on where a tile
// cuts a row, so the node gives the unfused graph's bits in both modes on every path and thread count.
#include "graph/ops/linalg/linear_op.h"

#include <atomic>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>

#include "graph/ops/linalg/product.h"

namespace onemodel::ops {
namespace {

// Adds the bias to each row of a finished tile, then runs the activation on it when the tile spans whole rows
// of C (one call per tile). Narrower tiles leave the activation to one pass over C after the product: a call
// per tile row costs more than the cache misses it saves (MatMul [128, 512] x [512, 512] + bias + Relu took 6
// % longer that way than with a separate pass). Either way every element gets the same operations.
class TileFinish final : public GemmTileEpilogue {
 public:
  TileFinish(const OpRun& run, const float* bias, bool bias_first, const FusedEpilogue* activation)
      : run_(run), bias_(bias), bias_first_(bias_first), activation_(activation) {}

  void apply(float* tile, int64_t ldc, int64_t, int64_t col0, int64_t rows, int64_t cols) const override {
    if (bias_ != nullptr) {
      const float* bias = bias_ + col0;
      const auto n = static_cast<size_t>(cols);
      for (int64_t r = 0; r < rows; ++r) {
        float* row = tile + r * ldc;
        if (bias_first_)
          run_.kernels->binary(BinaryFn::Add, run_.exact, bias, 1, row, 1, row, n);
        else
          run_.kernels->binary(BinaryFn::Add, run_.exact, row, 1, bias, 1, row, n);
      }
    }
    if (activation_ == nullptr) return;
    if (cols != ldc) {
      deferred_.store(true, std::memory_order_relaxed);  // the same for every tile: all are narrower than C
      return;
    }
    activation_->apply(run_, tile, rows * cols, ThreadContext{1});  // the tile is on one thread already
  }

  // Whether the activation is still to run over the whole of C.
  bool deferred() const { return deferred_.load(std::memory_order_relaxed); }

 private:
  const OpRun& run_;
  const float* bias_;
  bool bias_first_;
  const FusedEpilogue* activation_;
  mutable std::atomic<bool> deferred_{false};
};

class Linear final : public OpKernel {
 public:
  Linear(const LinearForm& form, ConstTensor b, std::unique_ptr<const FusedEpilogue> epilogue)
      : form_(form),
        b_shape_(b.ref.shape),
        k_(form.trans_b ? b_shape_[1] : b_shape_[0]),
        n_(form.trans_b ? b_shape_[0] : b_shape_[1]),
        epilogue_(std::move(epilogue)),
        b_(std::move(b)) {
    supports_exact = true;
  }

  void infer(InferContext& ctx) const override {
    if (ctx.input_dtype(0) != DType::F32) ctx.fail("operands have different element types");
    const Shape& a = ctx.input_shape(0);
    if (form_.gemm && a.rank != 2)
      ctx.fail("operands must be matrices, not " + a.str() + " and " + b_shape_.str());
    if (a.rank == 0 || a[a.rank - 1] != k_)
      ctx.fail("operands " + a.str() + " and " + b_shape_.str() + " do not multiply");
    Shape out = a;
    out[out.rank - 1] = n_;
    // The pass admitted a bias of n elements along the last axis; a higher rank adds leading unit axes.
    if (ctx.has_input(2)) broadcast_shapes(out, ctx.input_shape(2), out);
    const std::string problem = shape_problem(out.span(), sizeof(float));
    if (!problem.empty()) ctx.fail("output: " + problem);
    ctx.set_output(0, DType::F32, out);
  }

  std::shared_ptr<const void> prepare(PrepareContext& ctx) const override { return packed(ctx.kernels()); }

  void run(const OpRun& run) const override {
    const TensorRef& y = run.outputs[0];
    if (y.count() == 0) return;
    // A node shaped during the run has no prepared state; it finds the packed weight itself.
    std::shared_ptr<const PackedWeight> owned;
    const auto* weight = static_cast<const PackedWeight*>(run.state);
    if (weight == nullptr) {
      owned = packed(*run.kernels);
      weight = owned.get();
    }
    GemmArgs args;
    args.m = y.count() / n_;
    args.n = n_;
    args.k = k_;
    args.a = run.inputs[0].as<const float>();
    args.a_row = k_;
    args.c = y.as<float>();
    args.ldc = n_;
    const float* bias = run.has_input(2) ? run.inputs[2].as<const float>() : nullptr;
    const TileFinish finish(run, bias, form_.bias_first, epilogue_.get());
    if (bias != nullptr || epilogue_ != nullptr) args.epilogue = &finish;
    run_gemm(run, args, weight, gemm_scratch(run, args, weight));
    if (finish.deferred()) epilogue_->apply(run, y.as<float>(), y.count(), run.threads);
  }

 private:
  // B packed for the session's kernel table, the first time a plan (or a dynamic run) asks; the unpacked B is
  // released then, as a session never changes its table.
  std::shared_ptr<const PackedWeight> packed(const KernelTable& kernels) const {
    std::lock_guard<std::mutex> lock(mutex_);
    if (packed_ != nullptr) {
      if (packed_for_ != &kernels) throw std::logic_error("LinearOp: B was packed for another kernel path");
      return packed_;
    }
    packed_ = pack_weight(kernels, b_.ref.as<const float>(), form_.trans_b ? 1 : n_, form_.trans_b ? k_ : 1,
                          k_, n_);
    packed_for_ = &kernels;
    b_ = ConstTensor{};
    return packed_;
  }

  LinearForm form_;
  Shape b_shape_;
  int64_t k_, n_;
  std::unique_ptr<const FusedEpilogue> epilogue_;
  mutable std::mutex mutex_;
  mutable ConstTensor b_;  // until packed
  mutable std::shared_ptr<const PackedWeight> packed_;
  mutable const KernelTable* packed_for_ = nullptr;
};

}  // namespace

std::unique_ptr<OpKernel> make_linear(const LinearForm& form, ConstTensor b,
                                      std::unique_ptr<const FusedEpilogue> epilogue) {
  return std::make_unique<Linear>(form, std::move(b), std::move(epilogue));
}

}  // namespace onemodel::ops
