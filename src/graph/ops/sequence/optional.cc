// The optional operators. Optional wraps its input (a tensor or a sequence) or, without one, makes an empty
// optional. OptionalHasElement tells whether an optional holds something; OptionalGetElement returns what it
// holds and fails on an empty one. From opset 18 both also take a plain tensor or sequence, which counts as
// present and is returned as it is; before 18 their input must be an optional.

#include "graph/ops/sequence/factories.h"
#include "graph/ops/sequence/sequence_common.h"
#include "graph/ops/shape/op_inputs.h"

namespace onemodel::ops {
namespace {

// The declared kind of input 0, with the `type` attribute of Optional as a second source.
Declared input_kind(const NodeInfo& node) {
  Declared d = declared_kind(node, 0);
  if (d != Declared::Unknown) return d;
  const ir::Attribute* type = node.find("type");
  if (type == nullptr || type->type != ir::AttrType::TypeProto || !type->tp) return Declared::Unknown;
  if (type->tp->kind == ir::Type::Kind::Sequence) return Declared::Sequence;
  if (type->tp->kind == ir::Type::Kind::Tensor) return Declared::Tensor;
  return Declared::Unknown;
}

class Optional final : public PackedKernel {
 public:
  explicit Optional(Declared input) : input_(input) {}

  void run(const OpRun& run) const override {
    if (!run.has_input(0)) {
      allocate_packed(run, 0, packed::kHeaderBytes).header(packed::Kind::OptionalNone);
      return;
    }
    if (!is_packed_input(run, 0, input_)) {
      const TensorRef& t = run.inputs[0];
      packed::Writer w = allocate_packed(run, 0, packed::kHeaderBytes + packed::record_size(t));
      w.header(packed::Kind::OptionalTensor);
      w.record(t);
      return;
    }
    const packed::Value v = read_packed(run, 0);
    if (v.kind != packed::Kind::Sequence) run_fail(run, "an optional cannot hold an optional");
    packed::Writer w = allocate_packed(run, 0, packed::kHeaderBytes + v.sequence.encoding().size());
    w.header(packed::Kind::OptionalSequence);
    w.raw(v.sequence.encoding());
  }

 private:
  Declared input_;
};

class OptionalHasElement final : public PackedKernel {
 public:
  explicit OptionalHasElement(Declared input) : input_(input) {}

  void run(const OpRun& run) const override {
    bool present = run.has_input(0);
    if (present && is_packed_input(run, 0, input_))
      present = read_packed(run, 0).kind != packed::Kind::OptionalNone;
    *run.allocator->allocate(0, DType::Bool, Shape{}).as<uint8_t>() = present ? 1 : 0;
  }

 private:
  Declared input_;
};

class OptionalGetElement final : public PackedKernel {
 public:
  explicit OptionalGetElement(Declared input) : input_(input) {}

  void run(const OpRun& run) const override {
    const TensorRef& in = run.inputs[0];
    if (!is_packed_input(run, 0, input_)) return copy_to_output(run, 0, in);
    const packed::Value v = read_packed(run, 0);
    switch (v.kind) {
      case packed::Kind::Sequence:  // a plain sequence (opset 18) is returned as it is
        return copy_to_output(run, 0, in);
      case packed::Kind::OptionalNone:
        run_fail(run, "the optional is empty");
      case packed::Kind::OptionalTensor:
        return copy_to_output(run, 0, v.tensor.tensor);
      case packed::Kind::OptionalSequence:
        allocate_packed(run, 0, v.sequence.encoding().size()).raw(v.sequence.encoding());
        return;
    }
  }

 private:
  Declared input_;
};

// Before opset 18 the input must be an optional.
Declared optional_input(const NodeInfo& node) {
  const Declared d = declared_kind(node, 0);
  if (node.opset() < 18 && (d == Declared::Tensor || d == Declared::Sequence)) {
    node.fail("takes an optional before opset 18, not a " +
              std::string(d == Declared::Tensor ? "tensor" : "sequence"));
  }
  return d;
}

}  // namespace

std::unique_ptr<OpKernel> make_optional(const NodeInfo& node) {
  require_inputs(node, 0, 1);
  if (declared_kind(node, 0) == Declared::Optional) node.fail("an optional cannot hold an optional");
  return std::make_unique<Optional>(input_kind(node));
}

std::unique_ptr<OpKernel> make_optional_has_element(const NodeInfo& node) {
  require_inputs(node, node.opset() >= 18 ? 0 : 1, 1);
  return std::make_unique<OptionalHasElement>(optional_input(node));
}

std::unique_ptr<OpKernel> make_optional_get_element(const NodeInfo& node) {
  require_inputs(node, 1, 1);
  return std::make_unique<OptionalGetElement>(optional_input(node));
}

}  // namespace onemodel::ops
