// One table of kernel entry points per kernel path (ARCHITECTURE.md §5). A session picks its table once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>
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
  // C already holds every output's sum over the k terms before this call's (a product split along k): the
  // sums continue from it instead of from +0. k = 0 then leaves C as it is.
  bool accumulate = false;
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

// int8 product (int8.md "Product kernel"): C = sum_k (A - zA)(B - zB) on raw 8-bit integers, exact in int32
// (wrapping past 2^31, which needs k beyond about 65,000), then one of three epilogues.
enum class Int8Epilogue {
  Int32,       // C int32 = acc (+ bias_i32[j])
  Requantize,  // C uint8/int8 = clamp(round_half_even(float(acc (+ bias_i32[j])) * mult) + y_zero); NaN: lowest
  Float,       // C float = float(acc) * scale (+ bias_f32[j]); exact: a NaN result is 0x7FC00000
};

// A as the im2col matrix of one image and one group of a convolution (NCHW; 1-D is in_h = kernel_h = 1):
// row i is output pixel (i / out_w, i % out_w), column p is (channel, kernel row, kernel column) with the
// kernel column fastest; taps outside the input read A's zero point, so they add nothing. `x` (Int8GemmArgs::a)
// points at the group's first channel, channels are in_h * in_w apart.
struct Int8ConvA {
  int64_t in_h = 1, in_w = 1, out_w = 1;
  int64_t kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  int64_t pad_top = 0, pad_left = 0;
};

// Element (i, p) of A at a[i*a_row + p*a_col] (or im2col through conv), element (p, j) of B at
// b[p*b_row + j*b_col]; 8-bit, signed when *_signed. Zero points have their operand's type: one value, or one
// per row of A / column of B; nullptr means 0. Output (i, j) at c[i*c_row + j*c_col]. Per-column arrays
// (bias_i32, mult, scale, bias_f32) hold n values; mult and scale hold one value unless *_per_col.
struct Int8GemmArgs {
  int64_t m = 0, n = 0, k = 0;
  const void* a = nullptr;
  int64_t a_row = 0, a_col = 1;
  bool a_signed = false;
  const void* a_zero = nullptr;
  bool a_zero_per_row = false;
  const Int8ConvA* conv = nullptr;
  const void* b = nullptr;
  int64_t b_row = 0, b_col = 1;
  bool b_signed = false;
  const void* b_zero = nullptr;
  bool b_zero_per_col = false;
  Int8Epilogue epilogue = Int8Epilogue::Int32;
  void* c = nullptr;
  int64_t c_row = 0, c_col = 1;
  const int32_t* bias_i32 = nullptr;
  const float* mult = nullptr;
  bool mult_per_col = false;
  int32_t y_zero = 0;
  bool y_signed = false;
  const float* scale = nullptr;
  bool scale_per_col = false;
  const float* bias_f32 = nullptr;
  bool exact = false;
};

// B packed once (int8_pack_b), e.g. a constant weight; b_signed of the product must be the one it was packed
// with.
struct Int8PackedB {
  const void* data = nullptr;  // int8_packed_b_bytes(k, n) bytes, 64-byte aligned
  int64_t k = 0, n = 0;
};

// Depthwise int8 convolution (int8.md "Convolution"): output plane q (planes are image-major, channel-minor)
// is input plane q (in_h x in_w, NCHW) convolved with the weights of channel q % channels (kernel_h *
// kernel_w values, row-major): sum (x - x_zero)(w - w_zero), taps outside the input adding nothing. The
// per-channel values (w_zero, bias_i32, mult, scale, bias_f32) are indexed by channel when their flag says
// so; the epilogue is the product kernel's with channels as its columns. y is planes x out_h x out_w.
struct Int8DepthwiseArgs {
  int64_t planes = 0, channels = 1, out_h = 1;
  Int8ConvA geometry;
  const void* x = nullptr;
  bool x_signed = false;
  const void* x_zero = nullptr;  // one value, or nullptr for 0
  const void* w = nullptr;
  bool w_signed = false;
  const void* w_zero = nullptr;
  bool w_zero_per_channel = false;
  Int8Epilogue epilogue = Int8Epilogue::Int32;
  void* y = nullptr;
  const int32_t* bias_i32 = nullptr;
  const float* mult = nullptr;
  bool mult_per_channel = false;
  int32_t y_zero = 0;
  bool y_signed = false;
  const float* scale = nullptr;
  bool scale_per_channel = false;
  const float* bias_f32 = nullptr;
  bool exact = false;
};

// wai-ops/1 acc32 convolution sums (src/wai/conv_acc32_impl.h): acc[o][y][x] = bias[o] (0 when bias is null)
// + the sum over ci < cin/groups, i < kh, j < kw of w[o][ci][i][j] * x[g*cin/groups + ci][y*sh + i][x*sw +
// j], g = o / (cout/groups), over an input already zero-padded to cin planes of in_h x in_w. The caller
// guarantees from the bounds certificate that every product and partial sum fits int32.
struct WaiConvAcc32Args {
  int64_t cin = 0, in_h = 0, in_w = 0, cout = 0, groups = 1, kh = 1, kw = 1, sh = 1, sw = 1, out_h = 0,
          out_w = 0;
  const int32_t* x = nullptr;
  const int32_t* w = nullptr;
  const int32_t* bias = nullptr;
  int32_t* acc = nullptr;
};

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
  // int8 product (Int8GemmArgs); scratch of int8_scratch_bytes(args, b_packed, threads) bytes (any
  // alignment), taken from the heap only when null. packed_b, when not null, replaces args.b. Results never
  // depend on the path or the thread count.
  size_t (*int8_scratch_bytes)(const Int8GemmArgs& args, bool b_packed, const ThreadContext& threads);
  void (*int8_gemm)(const Int8GemmArgs& args, const Int8PackedB* packed_b, void* scratch,
                    const ThreadContext& threads);
  size_t (*int8_packed_b_bytes)(int64_t k, int64_t n);
  // Packs the k x n operand b (element (p, j) at b[p*b_row + j*b_col]) into `packed` (64-byte aligned).
  void (*int8_pack_b)(const void* b, bool b_signed, int64_t b_row, int64_t b_col, int64_t k, int64_t n,
                      void* packed);
  // binary16 / bfloat16 <-> binary32 over n values (tensors.md §10), the bits of core/half.h's scalar
  // functions on every path; source and destination must not overlap.
  void (*f16_to_f32)(const uint16_t* src, float* dst, size_t n);
  void (*f32_to_f16)(const float* src, uint16_t* dst, size_t n);
  void (*bf16_to_f32)(const uint16_t* src, float* dst, size_t n);
  void (*f32_to_bf16)(const float* src, uint16_t* dst, size_t n);
  // Depthwise int8 convolution (Int8DepthwiseArgs); scratch of int8_depthwise_scratch_bytes(args, threads)
  // bytes (any alignment), taken from the heap only when null. Results never depend on the path or the thread
  // count.
  size_t (*int8_depthwise_scratch_bytes)(const Int8DepthwiseArgs& args, const ThreadContext& threads);
  void (*int8_depthwise)(const Int8DepthwiseArgs& args, void* scratch, const ThreadContext& threads);
  // wai-ops/1 acc32 convolution sums (WaiConvAcc32Args); the same int32 values on every path.
  void (*wai_conv_acc32)(const WaiConvAcc32Args& args, const ThreadContext& threads);
};

// The table for a path, or nullptr when this build or CPU lacks it.
const KernelTable* kernel_table(KernelPath path);
// The tables of every path this build and CPU have, scalar first (tests compare the paths with each other).
std::vector<const KernelTable*> available_kernel_tables();
// The best path this CPU supports (our own cpuid/xgetbv check; NEON on arm64, v128 on wasm with SIMD128).
KernelPath best_kernel_path();
// Parses "scalar" | "v128" | "avx2" | "avx512"; false on anything else.
bool parse_kernel_path(std::string_view name, KernelPath& out);
std::string_view kernel_path_name(KernelPath path);

}  // namespace onemodel
