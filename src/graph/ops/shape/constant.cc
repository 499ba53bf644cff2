// Constant: a plan constant built once from whichever value attribute the node carries.
#include <cstring>
#include <string>

#include "graph/ops/shape/factories.h"
#include "graph/ops/shape/op_inputs.h"
#include "graph/string_values.h"

namespace onemodel::ops {
namespace {

class Constant final : public OpKernel {
 public:
  explicit Constant(ConstTensor value) : value_(std::move(value)) { supports_exact = true; }

  void infer(InferContext& ctx) const override { ctx.set_constant_output(0, value_); }

  void run(const OpRun&) const override {}  // never called: the output is a plan constant

 private:
  ConstTensor value_;
};

ConstTensor from_tensor_data(const NodeInfo& node, const ir::TensorData& t) {
  if (!is_stored_dtype(t.elem_type)) {
    node.unsupported("Constant: element type " + std::string(onnx_type_name(t.elem_type)) +
                     " is not supported");
  }
  const auto dtype = static_cast<DType>(t.elem_type);
  if (t.dims.size() > static_cast<size_t>(kMaxRank))
    node.unsupported("Constant: rank above 8 is not supported");
  const std::string problem = shape_problem(t.dims, dtype_size(dtype));
  if (!problem.empty()) node.fail("value: " + problem);
  if (dtype == DType::String) {
    if (static_cast<int64_t>(t.strings.size()) != Shape::of(t.dims).count())
      node.fail("value holds " + std::to_string(t.strings.size()) +
                " strings, its shape needs more or fewer");
    const std::vector<std::string_view> views(t.strings.begin(), t.strings.end());
    return string_constant(views, Shape::of(t.dims));
  }
  ConstTensor value = ConstTensor::allocate(dtype, Shape::of(t.dims));
  if (t.bytes.size() != value.ref.bytes()) {
    node.fail("value holds " + std::to_string(t.bytes.size()) + " bytes, its shape needs " +
              std::to_string(value.ref.bytes()));
  }
  if (!t.bytes.empty()) std::memcpy(value.ref.data, t.bytes.data(), t.bytes.size());
  return value;
}

template <class T, class V>
ConstTensor from_values(const NodeInfo& node, const std::vector<V>& values, bool scalar) {
  if (values.size() > static_cast<size_t>(kMaxElements)) node.fail("value is too large");
  const Shape shape = scalar ? Shape{} : Shape{static_cast<int64_t>(values.size())};
  ConstTensor value = ConstTensor::allocate(dtype_of<T>(), shape);
  for (size_t i = 0; i < values.size(); ++i) value.ref.as<T>()[i] = static_cast<T>(values[i]);
  return value;
}

}  // namespace

std::unique_ptr<OpKernel> make_constant(const NodeInfo& node) {
  require_inputs(node, 0, 0);
  const ir::Attribute* found = nullptr;
  for (const ir::Attribute& a : node.node().attributes) {
    if (a.name != "value" && a.name.rfind("value_", 0) != 0 && a.name != "sparse_value") continue;
    if (found != nullptr) node.fail("has both '" + found->name + "' and '" + a.name + "'");
    found = &a;
  }
  if (found == nullptr) node.fail("has no value attribute");
  const ir::Attribute& a = *found;
  using ir::AttrType;
  if (a.name == "value" && a.type == AttrType::Tensor && a.t) {
    return std::make_unique<Constant>(from_tensor_data(node, *a.t));
  }
  if (a.name == "value_float" && a.type == AttrType::Float) {
    return std::make_unique<Constant>(from_values<float>(node, std::vector<float>{a.f}, true));
  }
  if (a.name == "value_floats" && a.type == AttrType::Floats) {
    return std::make_unique<Constant>(from_values<float>(node, a.floats, false));
  }
  if (a.name == "value_int" && a.type == AttrType::Int) {
    return std::make_unique<Constant>(from_values<int64_t>(node, std::vector<int64_t>{a.i}, true));
  }
  if (a.name == "value_ints" && a.type == AttrType::Ints) {
    return std::make_unique<Constant>(from_values<int64_t>(node, a.ints, false));
  }
  if (a.name == "value_string" && a.type == AttrType::String) {
    const std::string_view text = a.s;
    return std::make_unique<Constant>(string_constant({&text, 1}, Shape{}));
  }
  if (a.name == "value_strings" && a.type == AttrType::Strings) {
    if (a.strings.size() > static_cast<size_t>(kMaxElements)) node.fail("value is too large");
    const std::vector<std::string_view> views(a.strings.begin(), a.strings.end());
    return std::make_unique<Constant>(string_constant(views, Shape{static_cast<int64_t>(views.size())}));
  }
  if (a.name == "sparse_value") node.unsupported("Constant: 'sparse_value' is not supported");
  node.fail("attribute '" + a.name + "' is unknown or has the wrong type");
}

}  // namespace onemodel::ops
