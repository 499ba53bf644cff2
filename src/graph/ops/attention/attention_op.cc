// The fused attention node: softmax(scale * Q K^T + mask) V in one kernel call (kernels-attention.md),
// reading Q, K, V and the mask through strides so the absorbed head-split transposes cost nothing, and
// writing the result straight into the head-merged layout.
//
// The kernel needs an even head dimension and V as wide as Q; an odd head dimension, a different width, or no
// keys at all take a plain path instead: per (batch, head) the scores come from the GEMM kernel, the scale
// and mask are applied, Softmax.Rows normalises them and a second GEMM forms the product with V, the same
// steps the unfused nodes take.
#include "graph/ops/attention/attention_op.h"

#include <algorithm>
#include <string>

#include "core/shape.h"

namespace onemodel::ops {
namespace {

// The node's inputs.
enum Input { kQ = 0, kK = 1, kV = 2, kMask = 3 };

// An operand as the kernel reads it: its extents after the absorbed transpose and the element strides of
// those axes in the stored tensor.
struct View {
  Shape dims;
  int64_t strides[kMaxRank] = {};
};

bool valid_perm(const std::vector<int64_t>& perm, int rank) {
  if (perm.empty()) return true;
  if (static_cast<int>(perm.size()) != rank) return false;
  bool seen[kMaxRank] = {};
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[p]) return false;
    seen[p] = true;
  }
  return true;
}

// Row-major strides of a dense tensor.
void dense_strides(const Shape& s, int64_t* strides) {
  int64_t stride = 1;
  for (int i = s.rank - 1; i >= 0; --i) {
    strides[i] = stride;
    stride *= s[i];
  }
}

// transpose(stored, perm) as a strided view of the stored tensor (perm already validated).
View permuted(const Shape& stored, const std::vector<int64_t>& perm) {
  int64_t dense[kMaxRank];
  dense_strides(stored, dense);
  View v;
  v.dims.rank = stored.rank;
  for (int i = 0; i < stored.rank; ++i) {
    const int from = perm.empty() ? i : static_cast<int>(perm[static_cast<size_t>(i)]);
    v.dims[i] = stored[from];
    v.strides[i] = dense[from];
  }
  return v;
}

// Stride of the kernel's axis `slot` (0 batch, 1 head, 2 row, 3 column) in a view whose axes are
// right-aligned with them; an axis the view lacks or holds once broadcasts (stride 0).
int64_t slot_stride(const View& v, int slot) {
  const int axis = v.dims.rank - 4 + slot;
  return axis < 0 || v.dims[axis] == 1 ? 0 : v.strides[axis];
}

AttentionStrides kernel_strides(const View& v) {
  return {slot_stride(v, 0), slot_stride(v, 1), slot_stride(v, 2), slot_stride(v, 3)};
}

Shape leading(const Shape& s, int drop) {
  Shape out;
  out.rank = s.rank - drop;
  for (int i = 0; i < out.rank; ++i) out[i] = s[i];
  return out;
}

// Everything a run needs, derived from the input shapes.
struct Geometry {
  int64_t batch = 1, heads = 1, q_len = 0, k_len = 0, d = 0, dv = 0;
  AttentionStrides q, k, v, mask, out;
  Shape out_shape;
};

// Empty when the shapes fit the chain; otherwise the reason, with `unsupported` set for a valid chain this
// node does not serve (more than two leading axes, a mask that widens the scores, operands below rank 2).
std::string geometry(const AttentionConfig& c, std::span<const Shape* const> shapes, Geometry& g,
                     bool& unsupported) {
  unsupported = false;
  if (!valid_perm(c.q_perm, shapes[kQ]->rank) || !valid_perm(c.kt_perm, shapes[kK]->rank) ||
      !valid_perm(c.v_perm, shapes[kV]->rank)) {
    return "a transpose permutation does not match its input's rank";
  }
  const View q = permuted(*shapes[kQ], c.q_perm), kt = permuted(*shapes[kK], c.kt_perm),
             v = permuted(*shapes[kV], c.v_perm);
  if (q.dims.rank < 2 || kt.dims.rank < 2 || v.dims.rank < 2) {
    unsupported = true;
    return "fused attention needs operands of rank 2 or more";
  }
  g.q_len = q.dims[q.dims.rank - 2];
  g.d = q.dims[q.dims.rank - 1];
  g.k_len = kt.dims[kt.dims.rank - 1];
  g.dv = v.dims[v.dims.rank - 1];
  if (kt.dims[kt.dims.rank - 2] != g.d)
    return "Q " + q.dims.str() + " and K^T " + kt.dims.str() + " do not multiply";
  if (v.dims[v.dims.rank - 2] != g.k_len) return "the scores and V " + v.dims.str() + " do not multiply";

  Shape batch;
  if (!broadcast_shapes(leading(q.dims, 2), leading(kt.dims, 2), batch))
    return "Q and K^T batches do not broadcast";
  View mask;
  if (c.has_mask) {
    mask = permuted(*shapes[kMask], {});
    Shape scores = batch, widened;
    scores.rank += 2;
    scores[scores.rank - 2] = g.q_len;
    scores[scores.rank - 1] = g.k_len;
    if (!broadcast_shapes(scores, mask.dims, widened))
      return "the mask " + mask.dims.str() + " does not broadcast";
    if (widened[widened.rank - 2] != g.q_len || widened[widened.rank - 1] != g.k_len) {
      unsupported = true;
      return "fused attention: the mask " + mask.dims.str() + " widens the scores";
    }
    batch = leading(widened, 2);
  }
  Shape out_batch;
  if (!broadcast_shapes(batch, leading(v.dims, 2), out_batch))
    return "the scores and V batches do not broadcast";
  if (out_batch.rank > 2) {
    unsupported = true;
    return "fused attention serves at most two leading axes";
  }
  g.batch = out_batch.rank == 2 ? out_batch[0] : 1;
  g.heads = out_batch.rank >= 1 ? out_batch[out_batch.rank - 1] : 1;

  Shape result = out_batch;
  result.rank += 2;
  result[result.rank - 2] = g.q_len;
  result[result.rank - 1] = g.dv;
  if (!valid_perm(c.out_perm, result.rank)) return "the output transpose does not match the result's rank";
  // The node writes transpose(result, out_perm) densely; result axis out_perm[i] is that tensor's axis i.
  View out{result, {}};
  g.out_shape = result;
  int64_t dense[kMaxRank];
  for (int i = 0; i < result.rank; ++i) {
    g.out_shape[i] =
        c.out_perm.empty() ? result[i] : result[static_cast<int>(c.out_perm[static_cast<size_t>(i)])];
  }
  dense_strides(g.out_shape, dense);
  for (int i = 0; i < result.rank; ++i) {
    out.strides[c.out_perm.empty() ? i : c.out_perm[static_cast<size_t>(i)]] = dense[i];
  }

  g.q = kernel_strides(q);
  g.v = kernel_strides(v);
  g.out = kernel_strides(out);
  if (c.has_mask) g.mask = kernel_strides(mask);
  // Key j, column x is K^T's element (x, j).
  const AttentionStrides kts = kernel_strides(kt);
  g.k = {kts.batch, kts.head, kts.col, kts.row};
  return {};
}

class AttentionOp final : public OpKernel {
 public:
  explicit AttentionOp(AttentionConfig config) : config_(std::move(config)) { supports_exact = true; }

  void infer(InferContext& ctx) const override {
    const size_t inputs = config_.has_mask ? 4 : 3;
    const Shape* shapes[4] = {};
    for (size_t i = 0; i < inputs; ++i) {
      if (ctx.input_dtype(i) != DType::F32) {
        ctx.node().unsupported("fused attention: element type " +
                               std::string(dtype_name(ctx.input_dtype(i))) + " is not supported");
      }
      shapes[i] = &ctx.input_shape(i);
    }
    Geometry g;
    bool unsupported = false;
    const std::string problem =
        geometry(config_, std::span<const Shape* const>(shapes, inputs), g, unsupported);
    if (unsupported) ctx.node().unsupported(problem);
    if (!problem.empty()) ctx.fail(problem);
    const std::string size = shape_problem(g.out_shape.span(), 4);
    if (!size.empty()) ctx.fail("output: " + size);
    ctx.set_output(0, DType::F32, g.out_shape);
  }

  void run(const OpRun& run) const override {
    const Shape* shapes[4] = {};
    const size_t inputs = config_.has_mask ? 4 : 3;
    for (size_t i = 0; i < inputs; ++i) shapes[i] = &run.inputs[i].shape;
    Geometry g;
    bool unsupported = false;
    geometry(config_, std::span<const Shape* const>(shapes, inputs), g, unsupported);
    if (run.outputs[0].count() == 0) return;

    AttentionArgs a;
    a.batch = g.batch, a.heads = g.heads, a.q_len = g.q_len, a.k_len = g.k_len, a.d = g.d;
    a.q = run.inputs[kQ].as<const float>();
    a.k = run.inputs[kK].as<const float>();
    a.v = run.inputs[kV].as<const float>();
    a.mask = config_.has_mask ? run.inputs[kMask].as<const float>() : nullptr;
    a.out = run.outputs[0].as<float>();
    a.q_strides = g.q, a.k_strides = g.k, a.v_strides = g.v, a.mask_strides = g.mask, a.out_strides = g.out;
    a.scale = config_.scale;
    a.exact = run.exact;
    if (g.d % 2 == 0 && g.d == g.dv && g.k_len > 0) {
      float* scratch =
          run.scratch->allocate_array<float>(run.kernels->attention_scratch_floats(a, run.threads));
      run.kernels->attention(a, scratch, run.threads);
    } else {
      plain(run, a, g.dv);
    }
  }

 private:
  // The unfused steps, one (batch, head) at a time.
  static void plain(const OpRun& run, const AttentionArgs& a, int64_t dv) {
    const KernelTable& kt = *run.kernels;
    float* scores =
        run.scratch->allocate_array<float>(static_cast<size_t>(std::max<int64_t>(a.q_len * a.k_len, 1)));
    float* result =
        run.scratch->allocate_array<float>(static_cast<size_t>(std::max<int64_t>(a.q_len * dv, 1)));
    GemmArgs qk;
    qk.m = a.q_len, qk.n = a.k_len, qk.k = a.d;
    qk.a_row = a.q_strides.row, qk.a_col = a.q_strides.col;
    qk.b_row = a.k_strides.col, qk.b_col = a.k_strides.row;
    qk.c = scores, qk.ldc = a.k_len, qk.exact = a.exact;
    GemmArgs pv;
    pv.m = a.q_len, pv.n = dv, pv.k = a.k_len;
    pv.a = scores, pv.a_row = a.k_len, pv.a_col = 1;
    pv.b_row = a.v_strides.row, pv.b_col = a.v_strides.col;
    pv.c = result, pv.ldc = dv, pv.exact = a.exact;
    const size_t scratch_floats =
        std::max(kt.gemm_scratch_floats(qk, run.threads), kt.gemm_scratch_floats(pv, run.threads));
    float* gemm_scratch = run.scratch->allocate_array<float>(std::max<size_t>(scratch_floats, 1));

    for (int64_t b = 0; b < a.batch; ++b) {
      for (int64_t h = 0; h < a.heads; ++h) {
        qk.a = a.q + b * a.q_strides.batch + h * a.q_strides.head;
        qk.b = a.k + b * a.k_strides.batch + h * a.k_strides.head;
        kt.gemm(qk, gemm_scratch, run.threads);
        const float* mask = a.mask ? a.mask + b * a.mask_strides.batch + h * a.mask_strides.head : nullptr;
        for (int64_t i = 0; i < a.q_len; ++i) {
          float* row = scores + i * a.k_len;
          for (int64_t j = 0; j < a.k_len; ++j) {
            row[j] = row[j] * a.scale;
            if (mask) row[j] = row[j] + mask[i * a.mask_strides.row + j * a.mask_strides.col];
          }
        }
        kt.softmax_rows(a.exact, scores, scores, static_cast<size_t>(a.q_len), static_cast<size_t>(a.k_len));
        pv.b = a.v + b * a.v_strides.batch + h * a.v_strides.head;
        kt.gemm(pv, gemm_scratch, run.threads);
        float* out = a.out + b * a.out_strides.batch + h * a.out_strides.head;
        for (int64_t i = 0; i < a.q_len; ++i) {
          for (int64_t x = 0; x < dv; ++x)
            out[i * a.out_strides.row + x * a.out_strides.col] = result[i * dv + x];
        }
      }
    }
  }

  AttentionConfig config_;
};

}  // namespace

std::unique_ptr<OpKernel> make_attention(const AttentionConfig& config) {
  return std::make_unique<AttentionOp>(config);
}

}  // namespace onemodel::ops
