// The widening adapter of fp16.md. It is an OpKernel around the node's own kernel, so plans, constant
// evaluation and dynamic re-shaping treat it like any kernel: the inner kernel is shaped, prepared and run on
// binary32 views of the half-precision inputs, and the adapter rounds its binary32 outputs to the storage
// type.
//
// Add, Sub, Mul and Div with binary16 operands go through the same path and are still correctly rounded
// binary16 operations: binary32 has p' = 24 significand bits and binary16 p = 11, and p' >= 2p + 2 is the
// known condition under which rounding the exact result first to p' bits and then to p bits gives the same
// value as rounding it once to p bits, for +, -, * and / (binary32's exponent range covers every binary16
// operand, product and quotient without underflow of the intermediate, and binary16 overflow shows up as a
// binary32 value of at least 65520, which the narrowing makes infinity). bfloat16 (p = 8) satisfies it too.
#include "graph/half_adapter.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <new>
#include <optional>

#include "core/half.h"
#include "graph/forwarding_infer_context.h"

namespace onemodel {
namespace {

bool is_half(DType t) {
  return t == DType::F16 || t == DType::BF16;
}
bool is_half_code(int64_t code) {
  return code == static_cast<int64_t>(DType::F16) || code == static_cast<int64_t>(DType::BF16);
}

bool graph_uses_half(const ir::Graph& g);

bool attribute_uses_half(const ir::Attribute& a) {
  if (a.type == ir::AttrType::Int && (a.name == "to" || a.name == "dtype" || a.name == "output_dtype"))
    return is_half_code(a.i);
  if (a.t && is_half_code(a.t->elem_type)) return true;
  for (const ir::TensorData& t : a.tensors) {
    if (is_half_code(t.elem_type)) return true;
  }
  if (a.g && graph_uses_half(*a.g)) return true;
  for (const auto& g : a.graphs) {
    if (g && graph_uses_half(*g)) return true;
  }
  return false;
}

bool type_uses_half(const ir::Type& t) {
  return is_half_code(t.elem_type) || (t.inner && type_uses_half(*t.inner));
}

bool graph_uses_half(const ir::Graph& g) {
  for (const ir::Value& v : g.values) {
    if (type_uses_half(v.type)) return true;
  }
  for (const ir::TensorData& t : g.initializers) {
    if (is_half_code(t.elem_type)) return true;
  }
  for (const ir::Node& n : g.nodes) {
    for (const ir::Attribute& a : n.attributes) {
      if (attribute_uses_half(a)) return true;
    }
  }
  return false;
}

// Conversions on a kernel path, in fixed chunks over the session's threads (the bits never depend on them).
constexpr int64_t kConvertChunk = 1 << 15;

void widen(const KernelTable& k, DType from, const void* src, float* dst, int64_t n, ThreadContext threads) {
  auto fn = from == DType::F16 ? k.f16_to_f32 : k.bf16_to_f32;
  const auto* s = static_cast<const uint16_t*>(src);
  const int64_t chunks = (n + kConvertChunk - 1) / kConvertChunk;
  auto body = [&](int64_t c) {
    const int64_t begin = c * kConvertChunk, end = std::min(n, begin + kConvertChunk);
    fn(s + begin, dst + begin, static_cast<size_t>(end - begin));
  };
  parallel_for(threads, chunks, body, 0.3 * static_cast<double>(n));
}

void narrow(const KernelTable& k, DType to, const float* src, void* dst, int64_t n, ThreadContext threads) {
  auto fn = to == DType::F16 ? k.f32_to_f16 : k.f32_to_bf16;
  auto* d = static_cast<uint16_t*>(dst);
  const int64_t chunks = (n + kConvertChunk - 1) / kConvertChunk;
  auto body = [&](int64_t c) {
    const int64_t begin = c * kConvertChunk, end = std::min(n, begin + kConvertChunk);
    fn(src + begin, d + begin, static_cast<size_t>(end - begin));
  };
  parallel_for(threads, chunks, body, 0.5 * static_cast<double>(n));
}

// Plan-time and pass-time conversions of whole constants (the scalar code: no kernel table is needed, and
// its bits are the vector paths' bits).
ConstTensor widened_copy(const TensorRef& t) {
  ConstTensor c = ConstTensor::allocate(DType::F32, t.shape);
  const auto n = static_cast<size_t>(t.count());
  if (t.dtype == DType::F16)
    f16_to_f32(t.as<const uint16_t>(), c.ref.as<float>(), n);
  else
    bf16_to_f32(t.as<const uint16_t>(), c.ref.as<float>(), n);
  return c;
}

ConstTensor narrowed_copy(const TensorRef& t, DType to) {
  ConstTensor c = ConstTensor::allocate(to, t.shape);
  const auto n = static_cast<size_t>(t.count());
  if (to == DType::F16)
    f32_to_f16(t.as<const float>(), c.ref.as<uint16_t>(), n);
  else
    f32_to_bf16(t.as<const float>(), c.ref.as<uint16_t>(), n);
  return c;
}

// The storage type of a node's binary32 outputs: its first half input that is not a compact weight; F32
// when there is none (nothing is rounded).
template <class HasInput, class DTypeOf>
DType storage_type(size_t n, const std::vector<bool>& compact, HasInput has_input, DTypeOf dtype_of) {
  for (size_t i = 0; i < n; ++i) {
    if (has_input(i) && !(i < compact.size() && compact[i]) && is_half(dtype_of(i))) return dtype_of(i);
  }
  return DType::F32;
}

// The type a wrapped node's binary32 output is stored as: none for the storage type of its inputs (fp16.md),
// binary32 where fast mode keeps it, or the half type the graph declares for a value whose type is
// observable.
using OutputType = std::optional<DType>;

// What the inner kernel sees at plan time: binary32 for half inputs (values widened when it asks for them),
// compact weights without their value (so nothing packs a binary32 copy of them); binary32 outputs it
// states go out as the storage type.
class HalfInferContext final : public ForwardingInferContext {
 public:
  HalfInferContext(InferContext& base, const std::vector<bool>& compact,
                   const std::vector<OutputType>& out_types)
      : ForwardingInferContext(base), compact_(compact), out_types_(out_types), widened_(base.num_inputs()) {
    storage_ = storage_type(
        base.num_inputs(), compact, [&](size_t i) { return base.has_input(i); },
        [&](size_t i) { return base.input_dtype(i); });
  }
  DType input_dtype(size_t i) const override {
    const DType t = base_.input_dtype(i);
    return is_half(t) ? DType::F32 : t;
  }
  const TensorRef* input_value(size_t i) const override {
    if (i < compact_.size() && compact_[i]) return nullptr;
    const TensorRef* v = base_.input_value(i);
    if (v == nullptr || !is_half(v->dtype)) return v;
    if (!widened_[i].storage) widened_[i] = widened_copy(*v);
    return &widened_[i].ref;
  }
  // Only inputs the kernel sees unchanged keep their plan constant.
  const ConstTensor* input_constant(size_t i) const override {
    if (!base_.has_input(i) || (i < compact_.size() && compact_[i]) || is_half(base_.input_dtype(i)))
      return nullptr;
    return base_.input_constant(i);
  }
  void set_output(size_t i, DType dtype, const Shape& shape) override {
    base_.set_output(i, dtype == DType::F32 ? stored_as(i) : dtype, shape);
  }
  void set_constant_output(size_t i, ConstTensor value) override {
    const DType to = stored_as(i);
    if (value.ref.dtype == DType::F32 && to != DType::F32) value = narrowed_copy(value.ref, to);
    base_.set_constant_output(i, std::move(value));
  }

 private:
  DType stored_as(size_t output) const {
    return output < out_types_.size() && out_types_[output] ? *out_types_[output] : storage_;
  }

  const std::vector<bool>& compact_;
  const std::vector<OutputType>& out_types_;
  DType storage_ = DType::F32;
  mutable std::vector<ConstTensor> widened_;
};

// Per-plan state: the constant half inputs widened once, and the inner kernel's own state.
struct AdapterState {
  std::vector<ConstTensor> widened;  // by input; empty storage where not a widened constant
  std::shared_ptr<const void> inner;
};

class HalfPrepareContext final : public PrepareContext {
 public:
  HalfPrepareContext(PrepareContext& base, const std::vector<bool>& compact, const AdapterState& state)
      : base_(base), compact_(compact), state_(state) {}
  const TensorRef* input_value(size_t i) const override {
    if (i < compact_.size() && compact_[i]) return nullptr;
    if (i < state_.widened.size() && state_.widened[i].storage) return &state_.widened[i].ref;
    return base_.input_value(i);
  }
  DType input_dtype(size_t i) const override {
    const DType t = base_.input_dtype(i);
    return is_half(t) ? DType::F32 : t;
  }
  const Shape& input_shape(size_t i) const override { return base_.input_shape(i); }
  const Shape& output_shape(size_t i) const override { return base_.output_shape(i); }
  bool exact() const override { return base_.exact(); }
  const KernelTable& kernels() const override { return base_.kernels(); }

 private:
  PrepareContext& base_;
  const std::vector<bool>& compact_;
  const AdapterState& state_;
};

class HalfAdapter final : public OpKernel {
 public:
  // `f16_native`: the kernel serves binary16 itself and must see it (Clip, whose omitted bounds are the
  // element type's finite extremes); a node with binary16 and no bfloat16 inputs then passes through
  // untouched.
  HalfAdapter(std::unique_ptr<OpKernel> inner, std::vector<bool> compact, std::vector<OutputType> out_types,
              bool f16_native)
      : inner_(std::move(inner)),
        compact_(std::move(compact)),
        out_types_(std::move(out_types)),
        f16_native_(f16_native) {
    supports_exact = inner_->supports_exact;
    in_place_input = inner_->in_place_input;  // safe: half inputs are widened before any output is written
  }

  void infer(InferContext& ctx) const override {
    if (native(ctx.num_inputs(),
               [&](size_t i) { return ctx.has_input(i) ? ctx.input_dtype(i) : DType::F32; }))
      return inner_->infer(ctx);
    HalfInferContext half(ctx, compact_, out_types_);
    inner_->infer(half);
  }

  std::shared_ptr<const void> prepare(PrepareContext& ctx) const override {
    auto state = std::make_shared<AdapterState>();
    if (native(compact_.size(), [&](size_t i) { return ctx.input_dtype(i); })) {
      state->inner = inner_->prepare(ctx);
      return state;
    }
    for (size_t i = 0; i < compact_.size(); ++i) {
      const TensorRef* v = compact_[i] ? nullptr : ctx.input_value(i);
      if (v == nullptr || !is_half(v->dtype)) continue;
      if (state->widened.empty()) state->widened.resize(compact_.size());
      ConstTensor c = ConstTensor::allocate(DType::F32, v->shape);
      widen(ctx.kernels(), v->dtype, v->data, c.ref.as<float>(), v->count(), ThreadContext{1});
      state->widened[i] = std::move(c);
    }
    HalfPrepareContext half(ctx, compact_, *state);
    state->inner = inner_->prepare(half);
    return state;
  }

  void run(const OpRun& run) const override {
    const auto* state = static_cast<const AdapterState*>(run.state);
    OpRun sub = run;
    sub.state = state ? state->inner.get() : nullptr;
    const bool any_half = std::any_of(run.inputs.begin(), run.inputs.end(),
                                      [](const TensorRef& t) { return is_half(t.dtype); }) ||
                          std::any_of(run.outputs.begin(), run.outputs.end(),
                                      [](const TensorRef& t) { return is_half(t.dtype); });
    if (!any_half || native(run.inputs.size(), [&](size_t i) { return run.inputs[i].dtype; })) {
      inner_->run(sub);
      return;
    }
    if (run.allocator != nullptr) {
      throw SessionError(SessionError::Kind::Unsupported,
                         "half-precision adapter: a kernel whose outputs are known only after it ran",
                         run.node ? run.node->display_name() : "");
    }
    const KernelTable& k = *run.kernels;
    auto* in = static_cast<TensorRef*>(run.scratch->allocate(sizeof(TensorRef) * (run.inputs.size() + 1)));
    auto* out = static_cast<TensorRef*>(run.scratch->allocate(sizeof(TensorRef) * (run.outputs.size() + 1)));
    for (size_t i = 0; i < run.inputs.size(); ++i) {
      const TensorRef& t = run.inputs[i];
      new (&in[i]) TensorRef(t);
      if (t.data == nullptr || !is_half(t.dtype)) continue;
      if (state && i < state->widened.size() && state->widened[i].storage) {
        in[i] = state->widened[i].ref;
        continue;
      }
      float* wide = run.scratch->allocate_array<float>(static_cast<size_t>(t.count()) + 1);
      widen(k, t.dtype, t.data, wide, t.count(), run.threads);
      in[i] = TensorRef{DType::F32, t.shape, reinterpret_cast<std::byte*>(wide)};
    }
    for (size_t o = 0; o < run.outputs.size(); ++o) {
      const TensorRef& t = run.outputs[o];
      new (&out[o]) TensorRef(t);
      if (!is_half(t.dtype)) continue;
      float* wide = run.scratch->allocate_array<float>(static_cast<size_t>(t.count()) + 1);
      out[o] = TensorRef{DType::F32, t.shape, reinterpret_cast<std::byte*>(wide)};
    }
    sub.inputs = std::span<const TensorRef>(in, run.inputs.size());
    sub.outputs = std::span<TensorRef>(out, run.outputs.size());
    inner_->run(sub);
    for (size_t o = 0; o < run.outputs.size(); ++o) {
      const TensorRef& t = run.outputs[o];
      if (is_half(t.dtype)) narrow(k, t.dtype, out[o].as<const float>(), t.data, t.count(), run.threads);
    }
  }

 private:
  template <class DTypeOf>
  bool native(size_t n, DTypeOf dtype_of) const {
    if (!f16_native_) return false;
    for (size_t i = 0; i < n; ++i) {
      if (dtype_of(i) == DType::BF16 || (i < compact_.size() && compact_[i])) return false;
    }
    return true;
  }

  std::unique_ptr<OpKernel> inner_;
  std::vector<bool> compact_;          // by input
  std::vector<OutputType> out_types_;  // by output
  bool f16_native_;
};

// Fast mode's Cast to half of a value whose type nobody observes: a float input stays binary32 (copied, or
// widened when it is half already), like the activations the wrapped nodes keep. Any other input type goes
// through the real Cast; its consumers widen the result.
class KeepBinary32Cast final : public OpKernel {
 public:
  explicit KeepBinary32Cast(std::unique_ptr<OpKernel> cast) : cast_(std::move(cast)) {
    supports_exact = cast_->supports_exact;
    in_place_input = 0;  // the plan shares storage only between values of one type
  }

  void infer(InferContext& ctx) const override {
    const DType from = ctx.input_dtype(0);
    if (from != DType::F32 && !is_half(from)) return cast_->infer(ctx);
    ctx.set_output(0, DType::F32, ctx.input_shape(0));
  }

  void run(const OpRun& run) const override {
    const TensorRef& in = run.inputs[0];
    const TensorRef& out = run.outputs[0];
    if (out.dtype != DType::F32) return cast_->run(run);
    if (is_half(in.dtype))
      widen(*run.kernels, in.dtype, in.data, out.as<float>(), in.count(), run.threads);
    else if (in.data != out.data)
      std::memcpy(out.data, in.data, in.bytes());
  }

 private:
  std::unique_ptr<OpKernel> cast_;
};

bool plain_domain(const ir::Node& n) {
  return n.domain.empty() || n.domain == "ai.onnx";
}

bool never_wrapped(const CompiledNode& node) {
  // Their output type comes from an attribute (or is not a float), and they serve the 16-bit floats
  // themselves.
  static constexpr std::string_view kTypeNodes[] = {
      "Cast", "CastLike", "Constant",          "ConstantOfShape",  "Shape",
      "Size", "EyeLike",  "RandomUniformLike", "RandomNormalLike", "Bernoulli"};
  const ir::Node& n = *node.ir;
  if (plain_domain(n) &&
      std::find(std::begin(kTypeNodes), std::end(kTypeNodes), n.op_type) != std::end(kTypeNodes))
    return true;
  if (node.kernel->view_of_input || node.kernel->outputs_data_dependent) return true;
  // Control flow hands values to its bodies untouched; the bodies' nodes are wrapped themselves.
  return std::any_of(n.attributes.begin(), n.attributes.end(),
                     [](const ir::Attribute& a) { return a.g != nullptr || !a.graphs.empty(); });
}

bool is_op(const ir::Node& n, std::string_view type) {
  return plain_domain(n) && n.op_type == type;
}

// How fast mode may store each value (docs/architecture.md, "Half precision in fast mode").
struct ValueUses {
  // Its element type can be seen, so it is stored as the graph declares: graph outputs, and the inputs of
  // never-wrapped nodes that take element types as they are (CastLike's target, the `*Like` generators,
  // data-dependent kernels, control flow and what its bodies capture), followed back through views. A Cast,
  // Shape or Size only sees more precision.
  std::vector<bool> observable;
  // Some never-wrapped node reads it (a Cast among them): a Cast to half feeding one is meant to round.
  std::vector<bool> read_unwrapped;
};

ValueUses value_uses(const std::vector<CompiledNode>& nodes, const std::vector<CompiledValue>& values) {
  ValueUses uses{std::vector<bool>(values.size(), false), std::vector<bool>(values.size(), false)};
  for (size_t v = 0; v < values.size(); ++v) uses.observable[v] = values[v].is_output;
  auto mark = [](std::vector<bool>& flags, int32_t v) {
    if (v >= 0) flags[static_cast<size_t>(v)] = true;
  };
  for (auto node = nodes.rbegin(); node != nodes.rend(); ++node) {  // consumers before producers
    if (!never_wrapped(*node)) continue;
    for (int32_t v : node->inputs) mark(uses.read_unwrapped, v);
    const ir::Node& n = *node->ir;
    if (node->kernel->view_of_input) {
      if (!node->inputs.empty() && !node->outputs.empty() && node->outputs[0] >= 0 &&
          uses.observable[static_cast<size_t>(node->outputs[0])])
        mark(uses.observable, node->inputs[0]);
      continue;
    }
    if (is_op(n, "Cast") || is_op(n, "Shape") || is_op(n, "Size")) continue;
    for (size_t i = is_op(n, "CastLike") ? 1 : 0; i < node->inputs.size(); ++i)
      mark(uses.observable, node->inputs[i]);
  }
  return uses;
}

// A Cast to half whose result only wrapped nodes read, which widen it anyway: a storage conversion, which
// fast mode skips by keeping binary32.
bool keeps_binary32(const CompiledNode& node, const ValueUses& uses) {
  if (!is_op(*node.ir, "Cast") || node.outputs.empty() || node.outputs[0] < 0) return false;
  const ir::Attribute* to = node.ir->find("to");
  const auto out = static_cast<size_t>(node.outputs[0]);
  return to != nullptr && is_half_code(to->i) && !uses.observable[out] && !uses.read_unwrapped[out];
}

}  // namespace

bool model_uses_half(const ir::Model& model) {
  return model.graph && graph_uses_half(*model.graph);
}

void wrap_half_nodes(std::vector<CompiledNode>& nodes, const std::vector<CompiledValue>& values,
                     bool half_model, bool keep_binary32) {
  std::optional<ValueUses> uses;
  if (half_model && keep_binary32) uses = value_uses(nodes, values);
  for (CompiledNode& node : nodes) {
    std::vector<bool> compact(node.inputs.size(), false);
    bool any_compact = false;
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      const int32_t v = node.inputs[i];
      compact[i] = v >= 0 && values[static_cast<size_t>(v)].compact_weight;
      any_compact = any_compact || compact[i];
    }
    if (uses && keeps_binary32(node, *uses)) {
      node.kernel = std::make_unique<KeepBinary32Cast>(std::move(node.kernel));
      continue;
    }
    if ((!half_model && !any_compact) || never_wrapped(node)) continue;
    std::vector<OutputType> out_types(node.outputs.size());
    for (size_t o = 0; o < node.outputs.size() && uses; ++o) {
      const int32_t v = node.outputs[o];
      if (v < 0) continue;
      const auto declared = static_cast<int64_t>(values[static_cast<size_t>(v)].elem_type);
      if (!uses->observable[static_cast<size_t>(v)])
        out_types[o] = DType::F32;
      else if (is_half_code(declared))
        out_types[o] = static_cast<DType>(declared);
    }
    const bool f16_native = is_op(*node.ir, "Clip");
    node.kernel = std::make_unique<HalfAdapter>(std::move(node.kernel), std::move(compact),
                                                std::move(out_types), f16_native);
  }
}

void compact_weights(const std::vector<CompiledNode>& nodes, std::vector<CompiledValue>& values,
                     WeightStorage storage) {
  if (storage == WeightStorage::Float32) return;
  constexpr int64_t kMinValues = 1024;
  std::vector<int32_t> reads(values.size(), 0);
  for (const CompiledNode& node : nodes) {
    for (int32_t v : node.inputs) {
      if (v >= 0) ++reads[static_cast<size_t>(v)];
    }
  }
  const DType to = storage == WeightStorage::Binary16 ? DType::F16 : DType::BF16;
  for (const CompiledNode& node : nodes) {
    const ir::Node& n = *node.ir;
    if (!plain_domain(n) || (n.op_type != "MatMul" && n.op_type != "Gemm" && n.op_type != "Conv")) continue;
    if (node.inputs.size() < 2 || node.inputs[1] < 0) continue;
    CompiledValue& w = values[static_cast<size_t>(node.inputs[1])];
    if (!w.constant || w.compact_weight || w.is_output || w.constant->ref.dtype != DType::F32) continue;
    if (reads[static_cast<size_t>(node.inputs[1])] != 1 || w.constant->ref.count() < kMinValues) continue;
    const float* data = w.constant->ref.as<const float>();
    const int64_t count = w.constant->ref.count();
    if (to == DType::F16 &&
        !std::all_of(data, data + count, [](float x) { return std::fabs(x) <= 65504.0f; }))  // NaN fails too
      continue;
    w.constant = narrowed_copy(w.constant->ref, to);
    w.compact_weight = true;
  }
}

}  // namespace onemodel
