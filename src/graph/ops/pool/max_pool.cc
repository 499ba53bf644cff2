// MaxPool (float32, float64, int8, uint8; the Indices output in either storage order) and GlobalMaxPool
// (float32), per ops-conv.md "Pooling". Taps run in depth, height, width order. MaxPool's maximum is IEEE
// maxNum: the first tap inside the input that is not NaN starts it and a later tap replaces it only when
// strictly greater, so the first of equal taps wins (and gives the index); only a window of NaNs gives NaN.
// Values are only compared and copied, so fast and exact mode give the same bits; stored NaNs are canonical
// in both.
#include <limits>
#include <string>
#include <type_traits>

#include "graph/ops/elementwise/common.h"
#include "graph/ops/elementwise/element_types.h"
#include "graph/ops/pool/factories.h"
#include "graph/ops/pool/pool_geometry.h"
#include "graph/ops/shape/op_inputs.h"

namespace onemodel::ops {
namespace {

// Whether tap value v replaces the maximum so far (the full rule, with the index): strictly greater, or a
// number after a NaN.
template <class T>
bool replaces(T v, T best) {
  if constexpr (std::is_floating_point_v<T>)
    return v > best || (best != best && v == v);
  else
    return v > best;
}

// The row form's starting value: below every number, so the first tap that is not NaN replaces it (or
// equals it: -inf).
template <class T>
constexpr T row_floor() {
  if constexpr (std::is_floating_point_v<T>)
    return -std::numeric_limits<T>::infinity();
  else
    return std::numeric_limits<T>::lowest();
}

// One tap of the row form: strictly greater replaces, NaN never does. This is the instruction-level maximum
// (maxps and its kin), so the loops below vectorise. A window whose maximum stays -inf may be all NaN, which
// the row form cannot tell; MaxWindows::row recomputes those.
template <class T>
T take_greater(T best, T v) {
  return v > best ? v : best;
}

// n outputs of one row whose windows lie inside the input; window i's first tap is first[i * stride]. The
// fixed shapes keep each maximum in a register over unrolled taps; any other shape walks the taps in the
// outer loop and the outputs in the inner one. Both visit an output's taps in the same order.
template <class T, int kKh, int kKw, int kStride>
void max_row(const T* first, int64_t row_pitch, T* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const T* p = first + i * kStride;
    T best = row_floor<T>();
    for (int a = 0; a < kKh; ++a) {
      for (int b = 0; b < kKw; ++b) best = take_greater(best, p[a * row_pitch + b]);
    }
    out[i] = best;
  }
}

// kStride 0: the stride is a run-time value.
template <class T, int kStride>
void max_row_any(const T* first, int64_t row_pitch, int64_t kh, int64_t kw, int64_t stride, T* out,
                 int64_t n) {
  const int64_t step = kStride != 0 ? kStride : stride;
  for (int64_t i = 0; i < n; ++i) out[i] = row_floor<T>();
  for (int64_t a = 0; a < kh; ++a) {
    for (int64_t b = 0; b < kw; ++b) {
      const T* tap = first + a * row_pitch + b;
      for (int64_t i = 0; i < n; ++i) out[i] = take_greater(out[i], tap[i * step]);
    }
  }
}

// One plane of MaxPool.
template <class T>
struct MaxWindows {
  const PoolGeometry& g;
  const T* in;
  T* out;
  int64_t* indices;    // nullptr without the Indices output
  int64_t index_base;  // flat index of the plane's first element
  bool column_major;   // storage_order 1

  void at(int64_t od, int64_t oh, int64_t ow) const {
    const PoolAxis &d = g.axes[0], &h = g.axes[1], &x = g.axes[2];
    const TapRange rd = d.inside(od), rh = h.inside(oh), rw = x.inside(ow);
    T best = std::numeric_limits<T>::lowest();
    int64_t where = -1;
    for (int64_t kd = rd.lo; kd < rd.hi; ++kd) {
      const int64_t id = d.start(od) + kd * d.dilation;
      for (int64_t kh = rh.lo; kh < rh.hi; ++kh) {
        const int64_t ih = h.start(oh) + kh * h.dilation;
        for (int64_t kw = rw.lo; kw < rw.hi; ++kw) {
          const int64_t at = (id * h.in + ih) * x.in + x.start(ow) + kw * x.dilation;
          if (where < 0 || replaces(in[at], best)) {
            best = in[at];
            where = at;
          }
        }
      }
    }
    const int64_t o = (od * h.out + oh) * x.out + ow;
    out[o] = canonicalize(best);
    if (indices != nullptr) indices[o] = where < 0 ? -1 : index_base + flat_index(where);
  }

  void row(int64_t od, int64_t oh, int64_t begin, int64_t end) const {
    const PoolAxis &d = g.axes[0], &h = g.axes[1], &x = g.axes[2];
    const T* first = in + (d.start(od) * h.in + h.start(oh)) * x.in + x.start(begin);
    T* dst = out + (od * h.out + oh) * x.out + begin;
    const int64_t n = end - begin;
    if (h.kernel == 2 && x.kernel == 2 && x.stride == 2)
      max_row<T, 2, 2, 2>(first, x.in, dst, n);
    else if (h.kernel == 3 && x.kernel == 3 && x.stride == 1)
      max_row<T, 3, 3, 1>(first, x.in, dst, n);
    else if (h.kernel == 3 && x.kernel == 3 && x.stride == 2)
      max_row<T, 3, 3, 2>(first, x.in, dst, n);
    else if (x.stride == 1)
      max_row_any<T, 1>(first, x.in, h.kernel, x.kernel, 1, dst, n);
    else if (x.stride == 2)
      max_row_any<T, 2>(first, x.in, h.kernel, x.kernel, 2, dst, n);
    else
      max_row_any<T, 0>(first, x.in, h.kernel, x.kernel, x.stride, dst, n);
    if constexpr (std::is_floating_point_v<T>) {
      for (int64_t i = 0; i < n; ++i) {
        if (dst[i] == row_floor<T>()) at(od, oh, begin + i);
      }
    }
  }

  // The Indices value of in-plane offset `at`: row-major, or with the first spatial axis fastest.
  int64_t flat_index(int64_t at) const {
    if (!column_major) return at;
    const PoolAxis &d = g.axes[0], &h = g.axes[1], &x = g.axes[2];
    const int64_t iw = at % x.in, ih = at / x.in % h.in, id = at / x.in / h.in;
    return id + d.in * (ih + h.in * iw);
  }
};

class MaxPool final : public OpKernel {
 public:
  MaxPool(const NodeInfo& node, bool indices)
      : attributes_(node, node.opset() >= 10),
        indices_(indices),
        column_major_(node.get_int("storage_order", 0)) {
    if (column_major_ != 0 && column_major_ != 1) node.fail("storage_order must be 0 or 1");
    supports_exact = true;
  }

  void infer(InferContext& ctx) const override {
    const DType type = ctx.input_dtype(0);
    if (type != DType::F32 && type != DType::F64 && type != DType::I8 && type != DType::U8)
      unsupported_type(ctx, type);
    const Shape out = attributes_.output_shape(ctx, ctx.input_shape(0));
    ctx.set_output(0, type, out);
    if (ctx.num_outputs() > 1) ctx.set_output(1, DType::I64, out);
  }

  void run(const OpRun& run) const override {
    switch (run.inputs[0].dtype) {
      case DType::F64:
        return run_typed<double>(run);
      case DType::I8:
        return run_typed<int8_t>(run);
      case DType::U8:
        return run_typed<uint8_t>(run);
      default:
        return run_typed<float>(run);
    }
  }

 private:
  template <class T>
  void run_typed(const OpRun& run) const {
    const PoolGeometry g = attributes_.geometry(run.inputs[0].shape);
    const T* in = run.inputs[0].as<const T>();
    T* out = run.outputs[0].as<T>();
    int64_t* indices = indices_ && run.outputs.size() > 1 ? run.outputs[1].as<int64_t>() : nullptr;
    const int64_t in_plane = g.in_plane(), out_plane = g.out_plane();
    if (out_plane == 0) return;
    for_each_plane(run.threads, g, 0.5, [&](int64_t p) {
      const MaxWindows<T> w{g,
                            in + p * in_plane,
                            out + p * out_plane,
                            indices != nullptr ? indices + p * out_plane : nullptr,
                            p * in_plane,
                            column_major_ == 1};
      walk_plane(g, w, indices == nullptr);  // the row form does not track indices
    });
  }

  PoolAttributes attributes_;
  bool indices_;
  int64_t column_major_;
};

// GlobalMaxPool: the maximum from the lowest float, replaced only by strictly greater values, so NaNs are
// ignored and a plane without numbers above the lowest float gives the lowest float.
class GlobalMaxPool final : public OpKernel {
 public:
  GlobalMaxPool() { supports_exact = true; }
  void infer(InferContext& ctx) const override { infer_global_pool(ctx); }
  void run(const OpRun& run) const override {
    fold_planes(
        run, std::numeric_limits<float>::lowest(), [](float best, float v) { return v > best ? v : best; },
        [](float best) { return best; });
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_max_pool(const NodeInfo& node) {
  require_inputs(node, 1, 1);
  if (node.num_outputs() < 1 || node.num_outputs() > 2) node.fail("expects one or two outputs");
  const bool indices = node.num_outputs() == 2 && node.node().outputs[1] >= 0;
  return std::make_unique<MaxPool>(node, indices);
}

std::unique_ptr<OpKernel> make_global_max_pool(const NodeInfo& node) {
  require_inputs(node, 1, 1);
  return std::make_unique<GlobalMaxPool>();
}

}  // namespace onemodel::ops
