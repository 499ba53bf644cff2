// One table of kernel entry points per kernel path (ARCHITECTURE.md §5). A session picks its table once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "threading/parallel_for.h"

namespace onemodel {

enum class KernelPath { Scalar, V128, Avx2, Avx512 };

// Work on one finished mc x nc tile of C (graph-passes.md "Tile epilogue"): rows [row0, row0 + rows) and
// columns [col0, col0 + cols) of C, at `tile` with row stride ldc. Called once per tile, after the
// exact-mode NaN rewrite, from the thread that computed the tile; it may write only the tile. Tiles come
// from the path's blocking and the shape, never from the thread count.
class GemmTileEpilogue {
 public:
  virtual void apply(float* tile, int64_t ldc, int64_t row0, int64_t col0, int64_t rows,
                     int64_t cols) const = 0;

 protected:
  // Defined out of line: the key function makes kernel_table.cc the one object holding the class's vtable and
  // type info, which would otherwise be weak symbols in every kernel path (tools/check-path-symbols.sh).
  virtual ~GemmTileEpilogue();
};

// C = A * B, all float32. Element (i, p) of A is at a[i*a_row + p*a_col]; likewise B; C is row-major with row
// stride ldc. Transposed operands are expressed through the strides. `exact` selects exact-mode.md's
// definition.
struct GemmArgs {
  int64_t m = 0, n = 0, k = 0;
  const float* a = nullptr;
  int64_t a_row = 0, a_col = 1;
  const float* b = nullptr;
  int64_t b_row = 0, b_col = 1;
  float* c = nullptr;
  int64_t ldc = 0;
  bool exact = false;
  const GemmTileEpilogue* epilogue = nullptr;  // optional: run on each finished tile (gemm and gemm_packed)
};

// B packed once (kernels-gemm.md step 1) and reused by every call with the same B, e.g. a constant weight.
struct PackedB {
  const float* data = nullptr;  // packed_b_floats(k, n) floats, 64-byte aligned
  int64_t k = 0, n = 0;
};

// One depthwise convolution (kernels-depthwise.md) over `planes` output planes of out_h x out_w: output plane
// q reads input plane q / multiplier (in_h x in_w) with the weights w + (q % channels_out) * kernel_h *
// kernel_w. stride_w must be at most 8. Scratch of depthwise_scratch_floats(args, threads) floats (any float
// alignment). With `bias`, plane q's outputs are acc + bias[q % channels_out], one more rounded addition (the
// bias pass).
struct DepthwiseArgs {
  int64_t planes = 0, multiplier = 1, channels_out = 1;
  int64_t in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  int64_t kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  int64_t pad_top = 0, pad_left = 0;
  const float* x = nullptr;
  const float* w = nullptr;
  const float* bias = nullptr;
  float* y = nullptr;
  bool exact = false;
};

// Fused attention (kernels-attention.md): for every batch b and head h, out = softmax(scale * Q K^T + mask)
// V. Element (b, h, i, x) of Q is at q[b*batch + h*head + i*row + x*col] with q_strides; key or value row j
// of K and V, output row i and mask element (b, h, i, j) likewise with their strides (a stride of 0
// broadcasts; mask == nullptr adds +0). Q, K and V have d columns; the spec asks for an even d.
struct AttentionStrides {
  int64_t batch = 0, head = 0, row = 0, col = 1;
};
struct AttentionArgs {
  int64_t batch = 1, heads = 1, q_len = 0, k_len = 0, d = 0;
  const float* q = nullptr;
  const float* k = nullptr;
  const float* v = nullptr;
  const float* mask = nullptr;
  float* out = nullptr;
  AttentionStrides q_strides, k_strides, v_strides, mask_strides, out_strides;
  float scale = 1.0f;
  bool exact = false;
};

enum class UnaryFn { Exp, Log, Tanh, Erf, Sigmoid, GeluErf, GeluTanh };

// The float32 reductions with a vector kernel (ops-norms.md "Reductions"): the sum of x or of x*x, and the
// maximum or minimum of x.
enum class ReduceOp { Sum, SumSquare, Max, Min };

// The float32 arithmetic with a vector kernel (Add, Sub, Mul, Div: one IEEE operation per element).
enum class BinaryFn { Add, Sub, Mul, Div };

struct KernelTable {
  KernelPath path;
  std::string_view name;  // "scalar", "v128", "avx2", "avx512"

  // Scratch for packing is taken from the heap per call only when `scratch` is null; callers on the run path
  // pass an arena block of gemm_scratch_floats(args, threads) floats (any float alignment), sized with the
  // same ThreadContext they then pass to gemm: every thread that may join gets its own packing buffer.
  size_t (*gemm_scratch_floats)(const GemmArgs& args, const ThreadContext& threads);
  void (*gemm)(const GemmArgs& args, float* scratch, const ThreadContext& threads);
  size_t (*packed_b_floats)(int64_t k, int64_t n);
  void (*pack_b)(const float* b, int64_t b_row, int64_t b_col, int64_t k, int64_t n, float* packed);
  // Scratch for gemm_packed: smaller than gemm's, as B is already packed.
  size_t (*gemm_packed_scratch_floats)(const GemmArgs& args, const ThreadContext& threads);
  // gemm with a pre-packed B (args.b ignored; b.k and b.n must equal args.k and args.n); scratch of
  // gemm_packed_scratch_floats(args, threads) floats. Same bits as gemm.
  void (*gemm_packed)(const GemmArgs& args, const PackedB& b, float* scratch, const ThreadContext& threads);

  // y[i] = f(x[i]); x and y may be the same buffer. Exact: exact-transcendentals.md; fast: fused polynomials.
  void (*unary)(UnaryFn fn, bool exact, const float* x, float* y, size_t n);
  // Softmax.Rows of kernels-attention.md over `rows` contiguous rows of length n (x and y may alias).
  void (*softmax_rows)(bool exact, const float* x, float* y, size_t rows, size_t n);
  // Depthwise convolution (kernels-depthwise.md); scratch is taken from the heap only when null.
  size_t (*depthwise_scratch_floats)(const DepthwiseArgs& args, const ThreadContext& threads);
  void (*depthwise)(const DepthwiseArgs& args, float* scratch, const ThreadContext& threads);
  // Column layout of a reduction: out[j] for j < width folds the terms of base[offsets[r] + j], r = 0 ..
  // rows-1 in order, into out[j]; with `first` it starts from +0 (Max, Min: from the first row) instead of
  // out[j].
  void (*reduce_columns)(ReduceOp op, const float* base, const int64_t* offsets, size_t rows, float* out,
                         size_t width, bool first);
  // Row layout of a canonical sum (op Sum or SumSquare): adds the terms of the `runs` contiguous runs of
  // `run` elements at base + offsets[r], in order, to partials[16], the first term going to partial `phase`;
  // returns the pairwise-folded total of the partials so far (partials themselves stay unfolded).
  float (*reduce_rows_sum16)(ReduceOp op, const float* base, const int64_t* offsets, size_t runs, size_t run,
                             size_t phase, float* partials);
  // Element-wise float32 kernels; `exact` rewrites NaN results to the canonical NaN, and y may be the same
  // buffer as any operand that advances. binary: y[i] = a[i * step_a] op b[i * step_b], steps 0 (repeat) or 1
  // (advance).
  void (*binary)(BinaryFn fn, bool exact, const float* a, int64_t step_a, const float* b, int64_t step_b,
                 float* y, size_t n);
  // Clip's y[i] = min(max(x[i], lo), hi), the upper bound winning when lo > hi; NaN passes through.
  void (*clamp)(bool exact, const float* x, float lo, float hi, float* y, size_t n);
  // y[i] = x[i] * scale + shift, two roundings (never fused).
  void (*affine)(bool exact, const float* x, float scale, float shift, float* y, size_t n);
  // Fused attention; scratch of attention_scratch_floats(args, threads) floats (any float alignment), taken
  // from the heap only when null. Work items of 32 query rows, so the bits never depend on the thread count.
  size_t (*attention_scratch_floats)(const AttentionArgs& args, const ThreadContext& threads);
  void (*attention)(const AttentionArgs& args, float* scratch, const ThreadContext& threads);
};

// The table for a path, or nullptr when this build or CPU lacks it.
const KernelTable* kernel_table(KernelPath path);
// The best path this CPU supports (our own cpuid/xgetbv check; NEON on arm64, v128 on wasm with SIMD128).
KernelPath best_kernel_path();
// Parses "scalar" | "v128" | "avx2" | "avx512"; false on anything else.
bool parse_kernel_path(std::string_view name, KernelPath& out);
std::string_view kernel_path_name(KernelPath path);

}  // namespace onemodel
