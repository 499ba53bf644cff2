// The view operators: output 0 is input 0's bytes under a new shape, so only infer() does work; the session
// builds the view and run() is never called.
#include <algorithm>
#include <string>
#include <vector>

#include "graph/ops/shape/factories.h"
#include "graph/ops/shape/op_inputs.h"

namespace onemodel::ops {
namespace {

class ViewKernel : public OpKernel {
 public:
  ViewKernel() {
    view_of_input = true;
    supports_exact = true;  // no byte changes
  }
  void run(const OpRun&) const final {}  // never called for views

 protected:
  // States output 0 as input 0 under `dims`, which must hold the same number of elements.
  static void set_view(InferContext& ctx, std::span<const int64_t> dims) {
    check_dims(ctx, dims, dtype_size(ctx.input_dtype(0)), "output shape");
    ctx.set_output(0, ctx.input_dtype(0), Shape::of(dims));
  }
};

class Identity final : public ViewKernel {
 public:
  void infer(InferContext& ctx) const override { ctx.set_output(0, ctx.input_dtype(0), ctx.input_shape(0)); }
};

class Reshape final : public ViewKernel {
 public:
  explicit Reshape(bool allow_zero) : allow_zero_(allow_zero) {}

  void infer(InferContext& ctx) const override {
    const auto requested = int_list_input(ctx, 1, "shape input");
    if (!requested) return;
    const Shape& in = ctx.input_shape(0);
    std::vector<int64_t> dims = *requested;
    int inferred = -1;
    bool has_zero = false;
    int64_t known = 1;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] == -1) {
        if (inferred >= 0) ctx.fail("shape has more than one -1");
        inferred = static_cast<int>(i);
        continue;
      }
      if (dims[i] < -1) ctx.fail("shape has the negative extent " + std::to_string(dims[i]));
      if (dims[i] == 0 && !allow_zero_) {
        if (i >= static_cast<size_t>(in.rank)) {
          ctx.fail("shape copies extent " + std::to_string(i) + " of an input of rank " +
                   std::to_string(in.rank));
        }
        dims[i] = in[static_cast<int>(i)];
      }
      has_zero = has_zero || dims[i] == 0;
      if (dims[i] > kMaxElements) ctx.fail("shape has the extent " + std::to_string(dims[i]));
      // Both factors are at most 2^31, so the product fits in int64; clamped, it still matches no input.
      known = std::min(known * dims[i], kMaxElements + 1);
    }
    const int64_t count = in.count();
    if (inferred >= 0) {
      if (has_zero) ctx.fail("shape combines -1 with an extent of 0");
      if (count % known != 0) {
        ctx.fail("cannot infer the -1 extent: " + std::to_string(count) + " elements do not divide by " +
                 std::to_string(known));
      }
      dims[static_cast<size_t>(inferred)] = count / known;
      known = count;
    }
    if (known != count) {
      ctx.fail("from " + in.str() + " (" + std::to_string(count) + " elements) to a shape of " +
               std::to_string(known) + " elements");
    }
    set_view(ctx, dims);
  }

 private:
  bool allow_zero_;
};

class Flatten final : public ViewKernel {
 public:
  explicit Flatten(int64_t axis) : axis_(axis) {}

  void infer(InferContext& ctx) const override {
    const Shape& in = ctx.input_shape(0);
    if (axis_ < -in.rank || axis_ > in.rank) {
      ctx.fail("axis " + std::to_string(axis_) + " is outside [-" + std::to_string(in.rank) + ", " +
               std::to_string(in.rank) + "]");
    }
    const int axis = static_cast<int>(axis_ < 0 ? axis_ + in.rank : axis_);
    const int64_t dims[] = {in.count(0, axis), in.count(axis, in.rank)};
    set_view(ctx, dims);
  }

 private:
  int64_t axis_;
};

// Squeeze and Unsqueeze take `axes` from an attribute before opset 13 and from input 1 since.
class AxesView : public ViewKernel {
 public:
  explicit AxesView(const NodeInfo& node)
      : axes_from_input_(node.opset() >= 13), attribute_(node.get_ints("axes")) {}

 protected:
  // The listed axes, or std::nullopt when they come from an input not known yet.
  std::optional<std::vector<int64_t>> axes(InferContext& ctx) const {
    if (axes_from_input_) return int_list_input(ctx, 1, "axes input");
    return attribute_;
  }

 private:
  bool axes_from_input_;
  std::vector<int64_t> attribute_;
};

class Squeeze final : public AxesView {
 public:
  using AxesView::AxesView;

  void infer(InferContext& ctx) const override {
    const auto listed = axes(ctx);
    if (!listed) return;
    const Shape& in = ctx.input_shape(0);
    uint32_t mask = axes_mask(ctx, *listed, in.rank);
    if (listed->empty()) {
      for (int a = 0; a < in.rank; ++a) mask |= in[a] == 1 ? 1u << a : 0u;
    }
    std::vector<int64_t> dims;
    for (int a = 0; a < in.rank; ++a) {
      if (!has_axis(mask, a)) {
        dims.push_back(in[a]);
      } else if (in[a] != 1) {
        ctx.fail("axis " + std::to_string(a) + " has extent " + std::to_string(in[a]) + ", not 1");
      }
    }
    set_view(ctx, dims);
  }
};

class Unsqueeze final : public AxesView {
 public:
  using AxesView::AxesView;

  void infer(InferContext& ctx) const override {
    const auto listed = axes(ctx);
    if (!listed) return;
    const Shape& in = ctx.input_shape(0);
    const size_t out_rank = static_cast<size_t>(in.rank) + listed->size();
    if (listed->empty()) ctx.fail("needs at least one axis");
    if (out_rank > static_cast<size_t>(kMaxRank)) {
      ctx.fail("output rank " + std::to_string(out_rank) + " is above the limit of " +
               std::to_string(kMaxRank));
    }
    const uint32_t mask = axes_mask(ctx, *listed, static_cast<int>(out_rank));
    std::vector<int64_t> dims;
    int next = 0;
    for (int a = 0; a < static_cast<int>(out_rank); ++a) dims.push_back(has_axis(mask, a) ? 1 : in[next++]);
    set_view(ctx, dims);
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_identity(const NodeInfo& node) {
  require_inputs(node, 1, 1);
  return std::make_unique<Identity>();
}

std::unique_ptr<OpKernel> make_reshape(const NodeInfo& node) {
  require_inputs(node, 2, 2);
  const int64_t allow_zero = node.opset() >= 14 ? node.get_int("allowzero", 0) : 0;
  if (allow_zero != 0 && allow_zero != 1) node.fail("allowzero must be 0 or 1");
  return std::make_unique<Reshape>(allow_zero == 1);
}

std::unique_ptr<OpKernel> make_flatten(const NodeInfo& node) {
  require_inputs(node, 1, 1);
  return std::make_unique<Flatten>(node.get_int("axis", 1));
}

std::unique_ptr<OpKernel> make_squeeze(const NodeInfo& node) {
  require_inputs(node, 1, node.opset() >= 13 ? 2 : 1);
  return std::make_unique<Squeeze>(node);
}

std::unique_ptr<OpKernel> make_unsqueeze(const NodeInfo& node) {
  const bool axes_input = node.opset() >= 13;
  require_inputs(node, axes_input ? 2 : 1, axes_input ? 2 : 1);
  if (!axes_input && node.find("axes") == nullptr) node.fail("needs the axes attribute");
  return std::make_unique<Unsqueeze>(node);
}

}  // namespace onemodel::ops
