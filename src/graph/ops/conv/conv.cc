// Conv (ops-conv.md, kernels-gemm.md "Convolution"): float32 with one to three spatial axes. A convolution
// with one input channel per group runs the depthwise kernel (one or two spatial axes), which also adds the
// bias. Any other is a matrix product per image and group with the weights as A ([Cout/G x Cin/G*taps], read
// in place: that is already the layout the product wants) and the im2col matrix as B, so every output sums
// its (c, kd, ky, kx) taps in order from +0 as exact-mode.md defines; the bias is a separate pass. The output
// columns are cut into fixed chunks whose im2col block is written straight into the GEMM's packed-B layout in
// arena scratch; a 1x1, stride-1, unpadded convolution reads the input itself as B. One with at most
// kNarrowColumns output positions per image runs the same products transposed (run_narrow). A Conv fused with
// its activation or element-wise chain (graph passes conv-activation, elementwise-chain) adds the bias and
// runs that epilogue on each chunk's rows as soon as the chunk's product is done, and after the depthwise
// kernel on each group of output planes.
#include <algorithm>

#include "graph/ops/conv/conv_attrs.h"
#include "graph/ops/conv/factories.h"
#include "graph/ops/linalg/product.h"
#include "graph/ops/shape/op_inputs.h"
#include "kernels/conv/conv_lowering.h"

namespace onemodel::ops {
namespace {

constexpr int64_t kMaxDepthwiseStride = 8;           // wider column strides go through im2col (DepthwiseArgs)
constexpr int64_t kEpilogueGroupFloats = 64 * 1024;  // depthwise outputs per epilogue call: 256 KiB, in L2
constexpr int64_t kNarrowColumns = 8;  // output positions per image up to which a Conv runs transposed

class Conv final : public OpKernel {
 public:
  Conv(ConvAttrs attrs, std::unique_ptr<const FusedEpilogue> epilogue)
      : attrs_(std::move(attrs)), epilogue_(std::move(epilogue)) {
    supports_exact = true;
  }

  void infer(InferContext& ctx) const override { infer_conv(ctx, attrs_, "Conv"); }

  bool has_epilogue() const { return epilogue_ != nullptr; }

  // A narrow convolution (below) with constant weights packs them as its product's B once per plan.
  std::shared_ptr<const void> prepare(PrepareContext& ctx) const override {
    const TensorRef* w = ctx.input_value(1);
    if (w == nullptr || w->dtype != DType::F32 || ctx.input_dtype(0) != DType::F32) return nullptr;
    ConvShapes s;
    if (!conv_shapes(attrs_, ctx.input_shape(0), w->shape, s).empty() || s.output.count() == 0 ||
        s.in_channels == 0 || depthwise(s) || !narrow(s))
      return nullptr;
    const int64_t group_out = s.out_channels / attrs_.group,
                  k = s.in_channels / attrs_.group * s.geometry.taps();
    auto packed = std::make_shared<NarrowWeights>();
    for (int64_t grp = 0; grp < attrs_.group; ++grp)
      packed->groups.push_back(
          pack_weight(ctx, w->as<const float>() + grp * group_out * k, 1, k, k, group_out));
    return packed;
  }

  void run(const OpRun& run) const override {
    ConvShapes s;
    conv_shapes(attrs_, run.inputs[0].shape, run.inputs[1].shape, s);
    if (s.output.count() == 0) return;
    if (depthwise(s)) {
      run_depthwise(run, s);  // adds the bias itself, and runs the epilogue
    } else if (narrow(s)) {
      run_narrow(run, s);  // likewise
    } else {
      run_im2col(run, s);
      if (run.has_input(2) && !epilogue_) add_bias(run, s);
    }
  }

 private:
  // The depthwise kernel also copies the padded region its taps reach into scratch; an absurdly padded or
  // dilated plane goes through im2col instead, which never materialises the padding.
  bool depthwise(const ConvShapes& s) const {
    const ConvGeometry& g = s.geometry;
    const int64_t padded_h = (g.out[1] - 1) * g.stride[1] + (g.kernel[1] - 1) * g.dilation[1] + 1;
    const int64_t padded_w = (g.out[2] - 1) * g.stride[2] + (g.kernel[2] - 1) * g.dilation[2] + 1;
    return s.spatial <= 2 && s.in_channels == attrs_.group && g.stride[2] <= kMaxDepthwiseStride &&
           padded_h <= kMaxElements && padded_w <= kMaxElements && padded_h * padded_w <= kMaxElements;
  }

  void run_depthwise(const OpRun& run, const ConvShapes& s) const {
    const ConvGeometry& g = s.geometry;
    DepthwiseArgs a;
    a.planes = s.batch * s.out_channels;
    a.multiplier = s.out_channels / attrs_.group;
    a.channels_out = s.out_channels;
    a.in_h = g.in[1];
    a.in_w = g.in[2];
    a.out_h = g.out[1];
    a.out_w = g.out[2];
    a.kernel_h = g.kernel[1];
    a.kernel_w = g.kernel[2];
    a.stride_h = g.stride[1];
    a.stride_w = g.stride[2];
    a.dilation_h = g.dilation[1];
    a.dilation_w = g.dilation[2];
    a.pad_top = g.pad[1];
    a.pad_left = g.pad[2];
    a.x = run.inputs[0].as<const float>();
    a.w = run.inputs[1].as<const float>();
    a.bias = run.has_input(2) ? run.inputs[2].as<const float>() : nullptr;
    a.y = run.outputs[0].as<float>();
    a.exact = run.exact;
    const size_t floats = run.kernels->depthwise_scratch_floats(a, run.threads);
    float* scratch = floats == 0 ? nullptr : run.scratch->allocate_array<float>(floats);
    if (!epilogue_) {
      run.kernels->depthwise(a, scratch, run.threads);
      return;
    }
    // With an epilogue: groups of output channels of one image, each followed by the epilogue while its
    // planes are still in cache. Every plane is computed on its own, so the grouping changes no bit. A group
    // spans whole sets of `multiplier` channels (one input plane each) and at least one plane per thread.
    const int64_t plane = a.out_h * a.out_w, in_plane = a.in_h * a.in_w, taps = a.kernel_h * a.kernel_w;
    int64_t group = std::max<int64_t>(kEpilogueGroupFloats / plane, run.threads.max_threads);
    group = std::min((group + a.multiplier - 1) / a.multiplier * a.multiplier, s.out_channels);
    for (int64_t n = 0; n < s.batch; ++n) {
      for (int64_t first = 0; first < s.out_channels; first += group) {
        const int64_t count = std::min(group, s.out_channels - first);
        DepthwiseArgs g = a;
        g.planes = count;
        g.channels_out = count;  // the weights and bias below start at channel `first`
        g.x = a.x + (n * s.in_channels + first / a.multiplier) * in_plane;
        g.w = a.w + first * taps;
        g.bias = a.bias ? a.bias + first : nullptr;
        g.y = a.y + (n * s.out_channels + first) * plane;
        run.kernels->depthwise(g, scratch, run.threads);
        epilogue_->apply(run, g.y, count * plane, run.threads);
      }
    }
  }

  // A convolution with at most kNarrowColumns output positions per image: squeeze-and-excitation layers
  // (a 1x1 input) and the short sequences of silero's encoder.
  static bool narrow(const ConvShapes& s) { return s.geometry.out_size() <= kNarrowColumns; }

  // Per image and group, W * im2col would be a product of at most kNarrowColumns columns, which fills one
  // nr-wide strip of the GEMM's register tile per mr channels and packs all of W on every call. As
  // im2col^T * W^T the positions are the few rows and the channels the columns: the same multiplications
  // (IEEE products commute to the bit), each output summing its taps in order from +0, so the bits are those
  // of the general path. W^T comes packed from prepare() when the weights are constant. The product lands in
  // scratch as positions x channels and is transposed into the output (in place for a single position); then
  // the bias, one rounded addition per output in the Add's operand order, and the epilogue.
  struct NarrowWeights {
    std::vector<std::shared_ptr<const PackedWeight>> groups;
  };

  void run_narrow(const OpRun& run, const ConvShapes& s) const {
    const ConvGeometry& g = s.geometry;
    const int64_t group_in = s.in_channels / attrs_.group, group_out = s.out_channels / attrs_.group;
    const int64_t k = group_in * g.taps(), in_size = g.in_size(), out_size = g.out_size();
    if (group_out == 0) return;
    const KernelTable& kernels = *run.kernels;
    const float* x = run.inputs[0].as<const float>();
    const float* w = run.inputs[1].as<const float>();
    const float* bias = run.has_input(2) ? run.inputs[2].as<const float>() : nullptr;
    float* y = run.outputs[0].as<float>();
    const bool direct = input_is_im2col(g);
    GemmArgs args;
    args.m = out_size;
    args.n = group_out;
    args.k = k;
    args.a_row = 1;
    args.a_col = direct ? in_size : out_size;  // the input itself, or the im2col matrix [k x out_size]
    args.b_row = 1;
    args.b_col = k;
    args.ldc = group_out;
    const auto* packed = static_cast<const NarrowWeights*>(run.state);
    float* scratch = gemm_scratch(run, args, packed != nullptr ? packed->groups[0].get() : nullptr);
    const bool lower = !direct && k > 0;  // the im2col matrix [k x out_size] is built per image and group
    float* cols = lower ? run.scratch->allocate_array<float>(static_cast<size_t>(k * out_size)) : nullptr;
    float* product = out_size == 1
                         ? nullptr
                         : run.scratch->allocate_array<float>(static_cast<size_t>(out_size * group_out));
    for (int64_t n = 0; n < s.batch; ++n) {
      for (int64_t grp = 0; grp < attrs_.group; ++grp) {
        const float* xg = x + (n * s.in_channels + grp * group_in) * in_size;
        float* yg = y + (n * s.out_channels + grp * group_out) * out_size;
        if (lower)
          im2col_packed(g, xg, group_in, 0, out_size, out_size, cols);  // strips of out_size: row-major
        args.a = direct ? xg : cols;
        args.b = w + grp * group_out * k;
        args.c = out_size == 1 ? yg : product;
        run_gemm(run, args, packed != nullptr ? packed->groups[static_cast<size_t>(grp)].get() : nullptr,
                 scratch);
        if (out_size > 1) {
          for (int64_t c = 0; c < group_out; ++c) {
            for (int64_t o = 0; o < out_size; ++o) yg[c * out_size + o] = product[o * group_out + c];
          }
        }
        if (bias != nullptr) {
          const float* b = bias + grp * group_out;
          if (out_size == 1)
            kernels.binary(BinaryFn::Add, run.exact, yg, 1, b, 1, yg, static_cast<size_t>(group_out));
          else
            for (int64_t c = 0; c < group_out; ++c)
              add_bias_row(kernels, yg + c * out_size, out_size, b[c], run.exact);
        }
        if (epilogue_) epilogue_->apply(run, yg, group_out * out_size, ThreadContext{1});
      }
    }
  }

  static bool input_is_im2col(const ConvGeometry& g) {
    for (int axis = 0; axis < kConvAxes; ++axis) {
      if (g.kernel[axis] != 1 || g.stride[axis] != 1 || g.pad[axis] != 0 || g.in[axis] != g.out[axis])
        return false;
    }
    return true;
  }

  // Floats of one packed im2col block (256 KiB): written by im2col and read back by the product while it is
  // still in the second-level cache, next to the weights and the chunk's outputs. At 1 MiB the block's lines
  // were evicted before im2col wrote them again, and its stores missed (a third of its time in IS-Net).
  static constexpr int64_t kBlockFloats = 64 * 1024;

  // Output columns per chunk: the packed im2col block (k x columns) fits kBlockFloats, in steps of 128
  // columns and at least 256 of them (fewer output rows per chunk would make im2col read the input rows a
  // deep convolution's taps share once per chunk again), or 128 on a map of fewer than 512 positions, which
  // would otherwise be one chunk that two threads cannot share. A constant of the shape, never of the thread
  // count.
  static int64_t columns_per_chunk(int64_t k, int64_t out_size) {
    constexpr int64_t kColumnStep = 128, kMinColumns = 256;
    const int64_t min_columns =
        std::clamp(out_size / 2 / kColumnStep * kColumnStep, kColumnStep, kMinColumns);
    const int64_t columns = std::max(kBlockFloats / (k > 0 ? k : 1) / kColumnStep * kColumnStep, min_columns);
    return columns < out_size ? columns : out_size;
  }

  // Input channels per part of a chunk. When the block for all of k would overflow kBlockFloats, the chunk
  // lowers and multiplies it a run of whole channels at a time, each part's product continuing the sums the
  // previous one stored in C (GemmArgs::accumulate). Each output still sums its taps in order from +0, so the
  // bits are those of one part.
  static int64_t channels_per_part(int64_t group_in, int64_t taps, int64_t columns) {
    return std::clamp<int64_t>(kBlockFloats / (taps * columns), 1, group_in);
  }

  // One chunk is a block of output columns of one image and group: im2col straight into the packed-B layout
  // in the running thread's slot (or, for a 1x1 convolution, the input itself as B), then the product of the
  // group's weights with it on that thread, part by part along k (channels_per_part). Every output belongs to
  // one chunk and sums all of k there, so the split never changes a result.
  void run_im2col(const OpRun& run, const ConvShapes& s) const {
    const ConvGeometry& g = s.geometry;
    const int64_t group_in = s.in_channels / attrs_.group, group_out = s.out_channels / attrs_.group;
    const int64_t k = group_in * g.taps(), in_size = g.in_size(), out_size = g.out_size();
    const float* x = run.inputs[0].as<const float>();
    const float* w = run.inputs[1].as<const float>();
    float* y = run.outputs[0].as<float>();
    if (group_out == 0) return;
    const KernelTable& kernels = *run.kernels;
    const bool direct = input_is_im2col(g) || k == 0;
    const int64_t columns = columns_per_chunk(k, out_size);
    const int64_t blocks = (out_size + columns - 1) / columns, chunks = s.batch * attrs_.group * blocks;
    const int64_t part_channels = direct ? group_in : channels_per_part(group_in, g.taps(), columns);
    const int64_t part_k = direct ? k : part_channels * g.taps();
    const ThreadContext one_thread{1};
    GemmArgs shape;
    shape.m = group_out;
    shape.n = columns;
    shape.k = part_k;
    // packed_b_floats of one row and one column is one strip: the GEMM's strip width.
    const auto nr = static_cast<int64_t>(kernels.packed_b_floats(1, 1));
    const auto round16 = [](int64_t floats) { return (floats + 15) / 16 * 16; };
    const int64_t packed_floats =
        direct ? 0 : round16(static_cast<int64_t>(kernels.packed_b_floats(part_k, columns)));
    const auto gemm_floats =
        static_cast<int64_t>(direct ? kernels.gemm_scratch_floats(shape, one_thread)
                                    : kernels.gemm_packed_scratch_floats(shape, one_thread));
    const int64_t slot_floats = round16(packed_floats + gemm_floats);  // slots stay 64-byte aligned
    float* slots =
        run.scratch->allocate_array<float>(static_cast<size_t>(thread_slots(run.threads) * slot_floats));
    const auto body = [&](int64_t chunk, int slot) {
      const int64_t block = chunk % blocks, grp = chunk / blocks % attrs_.group,
                    n = chunk / blocks / attrs_.group;
      const int64_t first = block * columns, width = out_size - first < columns ? out_size - first : columns;
      const float* xg = x + (n * s.in_channels + grp * group_in) * in_size;
      float* packed = slots + slot * slot_floats;
      float* gemm_scratch = packed + packed_floats;
      GemmArgs args;
      args.m = group_out;
      args.n = width;
      args.k = k;
      args.a = w + grp * group_out * k;
      args.a_row = k;
      args.c = y + (n * s.out_channels + grp * group_out) * out_size + first;
      args.ldc = out_size;
      args.exact = run.exact;
      if (direct) {
        args.b = xg + first;
        args.b_row = in_size;
        kernels.gemm(args, gemm_scratch, one_thread);
      } else {
        for (int64_t c0 = 0; c0 < group_in; c0 += part_channels) {
          const int64_t channels = std::min(part_channels, group_in - c0);
          im2col_packed(g, xg + c0 * in_size, channels, first, width, nr, packed);
          args.k = channels * g.taps();
          args.a = w + grp * group_out * k + c0 * g.taps();
          args.accumulate = c0 > 0;
          kernels.gemm_packed(args, PackedB{packed, args.k, width}, gemm_scratch, one_thread);
        }
      }
      if (epilogue_) finish_rows(run, args.c, grp * group_out, group_out, width, out_size);
    };
    const double mul_adds = static_cast<double>(s.batch * s.out_channels) * static_cast<double>(k * out_size);
    parallel_for_slots(run.threads, chunks, body, mul_adds / 40.0);
  }

  // A fused node's bias and epilogue on the rows of one finished chunk, while they are still in cache; one
  // epilogue call when the rows are contiguous (the chunk spans whole output planes).
  void finish_rows(const OpRun& run, float* c, int64_t first_channel, int64_t rows, int64_t width,
                   int64_t ldc) const {
    if (run.has_input(2)) {
      const float* bias = run.inputs[2].as<const float>() + first_channel;
      for (int64_t r = 0; r < rows; ++r) add_bias_row(*run.kernels, c + r * ldc, width, bias[r], run.exact);
    }
    if (width == ldc) {
      epilogue_->apply(run, c, rows * width, ThreadContext{1});
      return;
    }
    for (int64_t r = 0; r < rows; ++r) epilogue_->apply(run, c + r * ldc, width, ThreadContext{1});
  }

  ConvAttrs attrs_;
  std::unique_ptr<const FusedEpilogue> epilogue_;  // set by conv-activation or elementwise-chain, else null
};

}  // namespace

std::unique_ptr<OpKernel> make_conv(const NodeInfo& node) {
  require_inputs(node, 2, 3);
  return std::make_unique<Conv>(parse_conv_attrs(node, false), nullptr);
}

std::unique_ptr<OpKernel> make_conv_with_epilogue(const NodeInfo& node,
                                                  std::unique_ptr<const FusedEpilogue> epilogue) {
  return std::make_unique<Conv>(parse_conv_attrs(node, false), std::move(epilogue));
}

bool is_conv_without_epilogue(const OpKernel& kernel) {
  const auto* conv = dynamic_cast<const Conv*>(&kernel);
  return conv && !conv->has_epilogue();
}

}  // namespace onemodel::ops
