// ConstantOfShape: a tensor of the shape input's extents, every element the one-element `value` attribute
// (float32 0 by default).
#include <cstring>
#include <string>

#include "graph/ops/shape/factories.h"
#include "graph/ops/shape/op_inputs.h"

namespace onemodel::ops {
namespace {

class ConstantOfShape final : public OpKernel {
 public:
  ConstantOfShape(DType dtype, const std::byte* value) : dtype_(dtype) {
    supports_exact = true;
    std::memcpy(value_, value, dtype_size(dtype));
  }

  void infer(InferContext& ctx) const override {
    const auto dims = int_seq_input(ctx, 0, "shape");
    if (!dims) return;
    if (ctx.input_dtype(0) != DType::I64) ctx.fail("shape must be int64");
    if (ctx.input_shape(0).rank != 1) ctx.fail("shape must be a 1-D tensor");
    std::vector<int64_t> extents(dims->size());
    for (size_t i = 0; i < extents.size(); ++i) extents[i] = (*dims)[i];
    check_dims(ctx, extents, dtype_size(dtype_), "ConstantOfShape output");
    ctx.set_output(0, dtype_, Shape::of(extents));
  }

  void run(const OpRun& run) const override {
    const TensorRef& out = run.outputs[0];
    const size_t width = dtype_size(dtype_);
    const auto n = static_cast<size_t>(out.count());
    for (size_t i = 0; i < n; ++i) std::memcpy(out.data + i * width, value_, width);
  }

 private:
  DType dtype_;
  alignas(8) std::byte value_[8] = {};
};

}  // namespace

std::unique_ptr<OpKernel> make_constant_of_shape(const NodeInfo& node) {
  require_inputs(node, 1, 1);
  const ir::Attribute* value = node.find("value");
  if (value == nullptr) {
    const std::byte zero[4] = {};
    return std::make_unique<ConstantOfShape>(DType::F32, zero);
  }
  if (value->type != ir::AttrType::Tensor || !value->t) node.fail("value must be a tensor");
  const ir::TensorData& t = *value->t;
  if (!is_stored_dtype(t.elem_type)) {
    node.unsupported("ConstantOfShape: element type " + std::string(onnx_type_name(t.elem_type)) +
                     " is not supported");
  }
  const auto dtype = static_cast<DType>(t.elem_type);
  if (t.bytes.size() != dtype_size(dtype)) node.fail("value must hold exactly one element");
  return std::make_unique<ConstantOfShape>(dtype, t.bytes.data());
}

}  // namespace onemodel::ops
