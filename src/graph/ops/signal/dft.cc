// DFT and STFT, by the direct transform of signal_common.h (O(n^2) per line, in double, then rounded to the
// signal's type). The last input axis holds one (real) or two (real, imaginary) components; the output's
// last axis always holds two. onesided keeps bins 0 .. n/2.
//
// DFT: along `axis` (an attribute before opset 20, input 2 from opset 20; never the component axis), with
// the signal cut or zero-padded to dft_length. STFT: frames of frame_length samples every frame_step samples
// of a [batch, length, components] signal, each multiplied by the window when there is one.
#include <algorithm>
#include <string>

#include "graph/ops/shape/op_inputs.h"
#include "graph/ops/signal/factories.h"
#include "graph/ops/signal/signal_common.h"

namespace onemodel::ops {
namespace {

bool float_type(DType t) {
  return t == DType::F32 || t == DType::F64;
}

template <class T>
double read(const TensorRef& t, int64_t i) {
  return static_cast<double>(t.as<const T>()[i]);
}

double read_any(const TensorRef& t, int64_t i) {
  return t.dtype == DType::F32 ? read<float>(t, i) : read<double>(t, i);
}

void write_any(const TensorRef& t, int64_t i, double v) {
  if (t.dtype == DType::F32) {
    t.as<float>()[i] = static_cast<float>(v);
  } else {
    t.as<double>()[i] = v;
  }
}

// A frame of `n` complex values in the run's scratch, with the transform table and the output bins.
struct Work {
  double* x;
  double* y;
  Dft dft;
  Work(const OpRun& run, int64_t n, int64_t bins, bool inverse)
      : x(run.scratch->allocate_array<double>(static_cast<size_t>(2 * std::max<int64_t>(n, 1)))),
        y(run.scratch->allocate_array<double>(static_cast<size_t>(2 * std::max<int64_t>(bins, 1)))),
        dft(n, inverse,
            run.scratch->allocate_array<double>(static_cast<size_t>(2 * std::max<int64_t>(n, 1)))) {}
};

class DftOp final : public OpKernel {
 public:
  DftOp(int64_t axis, bool axis_input, bool inverse, bool onesided)
      : axis_(axis), axis_input_(axis_input), inverse_(inverse), onesided_(onesided) {
    supports_exact = false;
  }

  void infer(InferContext& ctx) const override {
    const Shape& x = ctx.input_shape(0);
    if (!float_type(ctx.input_dtype(0))) ctx.fail("input must be float32 or float64");
    if (x.rank < 2 || (x[x.rank - 1] != 1 && x[x.rank - 1] != 2))
      ctx.fail("input " + x.str() + " must end in an axis of 1 (real) or 2 (complex) components");
    int64_t axis = axis_;
    if (axis_input_ && ctx.has_input(2)) {
      const std::optional<int64_t> value = int_scalar_input(ctx, 2, "axis");
      if (!value) return;
      axis = *value;
    }
    const int a = normalize_axis(axis, x.rank);
    if (a < 0 || a == x.rank - 1)
      ctx.fail("axis " + std::to_string(axis) + " must name a signal axis of " + x.str());
    int64_t n = x[a];
    if (ctx.has_input(1)) {
      const std::optional<int64_t> length = int_scalar_input(ctx, 1, "dft_length");
      if (!length) return;
      if (*length < 1 || *length > kMaxElements) ctx.fail("dft_length must lie in [1, 2^31 - 1]");
      n = *length;
    }
    if (n < 1) ctx.fail("the transform needs at least one sample along axis " + std::to_string(a));
    Shape out = x;
    out[a] = onesided_ ? n / 2 + 1 : n;
    out[x.rank - 1] = 2;
    ctx.set_output(0, ctx.input_dtype(0), out);
  }

  void run(const OpRun& run) const override {
    const TensorRef& x = run.inputs[0];
    const TensorRef& y = run.outputs[0];
    const int rank = x.shape.rank;
    const int a = normalized_axis(run);
    const int64_t components = x.shape[rank - 1];
    const int64_t outer = x.shape.count(0, a), inner = x.shape.count(a + 1, rank - 1);
    const int64_t length = x.shape[a], bins = y.shape[a];
    const int64_t n = run.has_input(1) ? scalar(run.inputs[1]) : length;
    Work w(run, n, bins, inverse_);
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        for (int64_t t = 0; t < n; ++t) {
          const int64_t at = ((o * length + t) * inner + i) * components;
          w.x[2 * t] = t < length ? read_any(x, at) : 0.0;
          w.x[2 * t + 1] = t < length && components == 2 ? read_any(x, at + 1) : 0.0;
        }
        w.dft.transform(w.x, bins, w.y);
        for (int64_t k = 0; k < bins; ++k) {
          const int64_t at = ((o * bins + k) * inner + i) * 2;
          write_any(y, at, w.y[2 * k]);
          write_any(y, at + 1, w.y[2 * k + 1]);
        }
      }
    }
  }

 private:
  int normalized_axis(const OpRun& run) const {
    const int64_t axis = axis_input_ && run.has_input(2) ? scalar(run.inputs[2]) : axis_;
    return normalize_axis(axis, run.inputs[0].shape.rank);
  }
  static int64_t scalar(const TensorRef& v) {
    return v.dtype == DType::I64 ? v.as<const int64_t>()[0] : v.as<const int32_t>()[0];
  }

  int64_t axis_;
  bool axis_input_, inverse_, onesided_;
};

class Stft final : public OpKernel {
 public:
  explicit Stft(bool onesided) : onesided_(onesided) { supports_exact = false; }

  void infer(InferContext& ctx) const override {
    const Shape& x = ctx.input_shape(0);
    if (!float_type(ctx.input_dtype(0))) ctx.fail("signal must be float32 or float64");
    if (x.rank != 3 || (x[2] != 1 && x[2] != 2))
      ctx.fail("signal " + x.str() + " must be [batch, length, 1 or 2]");
    const std::optional<int64_t> step = int_scalar_input(ctx, 1, "frame_step");
    if (!step) return;
    if (*step < 1) ctx.fail("frame_step must be positive");
    int64_t frame = -1;
    if (ctx.has_input(2)) {
      const Shape& window = ctx.input_shape(2);
      if (window.rank != 1) ctx.fail("window must be 1-D");
      if (ctx.input_dtype(2) != ctx.input_dtype(0)) ctx.fail("window must have the signal's element type");
      frame = window[0];
    }
    if (ctx.has_input(3)) {
      const std::optional<int64_t> length = int_scalar_input(ctx, 3, "frame_length");
      if (!length) return;
      if (frame >= 0 && *length != frame) ctx.fail("frame_length differs from the window's length");
      frame = *length;
    }
    if (frame < 0) ctx.fail("needs a window or a frame_length");
    if (frame < 1 || frame > x[1])
      ctx.fail("frame length " + std::to_string(frame) + " must lie in [1, signal length]");
    const Shape out{x[0], (x[1] - frame) / *step + 1, onesided_ ? frame / 2 + 1 : frame, 2};
    ctx.set_output(0, ctx.input_dtype(0), out);
  }

  void run(const OpRun& run) const override {
    const TensorRef& x = run.inputs[0];
    const TensorRef& y = run.outputs[0];
    const int64_t batch = x.shape[0], length = x.shape[1], components = x.shape[2];
    const int64_t step = run.inputs[1].dtype == DType::I64 ? run.inputs[1].as<const int64_t>()[0]
                                                           : run.inputs[1].as<const int32_t>()[0];
    const int64_t frames = y.shape[1], bins = y.shape[2];
    const bool windowed = run.has_input(2);
    const int64_t n = windowed ? run.inputs[2].shape[0]
                               : (run.inputs[3].dtype == DType::I64 ? run.inputs[3].as<const int64_t>()[0]
                                                                    : run.inputs[3].as<const int32_t>()[0]);
    Work w(run, n, bins, false);
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t f = 0; f < frames; ++f) {
        for (int64_t t = 0; t < n; ++t) {
          const int64_t at = (b * length + f * step + t) * components;
          const double scale = windowed ? read_any(run.inputs[2], t) : 1.0;
          w.x[2 * t] = read_any(x, at) * scale;
          w.x[2 * t + 1] = components == 2 ? read_any(x, at + 1) * scale : 0.0;
        }
        w.dft.transform(w.x, bins, w.y);
        for (int64_t k = 0; k < bins; ++k) {
          const int64_t at = ((b * frames + f) * bins + k) * 2;
          write_any(y, at, w.y[2 * k]);
          write_any(y, at + 1, w.y[2 * k + 1]);
        }
      }
    }
  }

 private:
  bool onesided_;
};

bool flag(const NodeInfo& node, const char* name, int64_t fallback) {
  const int64_t v = node.get_int(name, fallback);
  if (v != 0 && v != 1) node.fail(std::string(name) + " must be 0 or 1");
  return v == 1;
}

}  // namespace

std::unique_ptr<OpKernel> make_dft(const NodeInfo& node) {
  require_inputs(node, 1, node.opset() >= 20 ? 3 : 2);
  const bool inverse = flag(node, "inverse", 0), onesided = flag(node, "onesided", 0);
  if (inverse && onesided) node.unsupported("an inverse one-sided transform is not served");
  const bool axis_input = node.opset() >= 20;
  return std::make_unique<DftOp>(axis_input ? -2 : node.get_int("axis", 1), axis_input, inverse, onesided);
}

std::unique_ptr<OpKernel> make_stft(const NodeInfo& node) {
  require_inputs(node, 2, 4);
  return std::make_unique<Stft>(flag(node, "onesided", 1));
}

}  // namespace onemodel::ops
