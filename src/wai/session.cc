// Graph::load and IntSession::run: the load checks, and the four run-time refusal steps of wai-ops/1 §4 in
// order, with state carried across the decodes of a sequence (§10.3).
#include <algorithm>
#include <stdexcept>

#include "wai/acc32.h"
#include "wai/arith.h"
#include "wai/certify.h"
#include "wai/eval.h"
#include "wai/model.h"
#include "wai/plan.h"

namespace onemodel::wai {

std::string_view to_string(Refusal code) {
  switch (code) {
    case Refusal::None:
      return "ok";
    case Refusal::ModelMismatch:
      return "model_mismatch";
    case Refusal::TooLarge:
      return "too_large";
    case Refusal::FieldRange:
      return "field_range";
    case Refusal::GeometryMismatch:
      return "geometry_mismatch";
    case Refusal::StreamExhausted:
      return "stream_exhausted";
    case Refusal::StreamNoncanonical:
      return "stream_noncanonical";
  }
  return "?";
}

RefusalError::RefusalError(Refusal code, int load_step, std::string message)
    : Error("load check " + std::to_string(load_step) + ": " + message), code_(code), load_step_(load_step) {}

std::string_view RefusalError::kind_name() const {
  return to_string(code_);
}

Graph Graph::load(std::span<const uint8_t> bytes, Profile profile) {
  try {
    auto model = std::make_shared<Model>(parse_whg1(bytes));
    plan_at_load(*model);
    auto certified = std::make_shared<detail::Certified>(certify_model(*model, bytes));
    const Certificate& c = certified->certificate;
    if ((profile == Profile::Acc64 && !c.acc64) || (profile == Profile::Acc32 && !c.acc32)) {
      const CertificateFailure& f = profile == Profile::Acc64 ? *c.acc64_failure : *c.acc32_failure;
      throw LoadFailure{Refusal::ModelMismatch, 8,
                        std::string("the certificate does not meet ") +
                            (profile == Profile::Acc64 ? "acc64" : "acc32") + ": " + f.where + " " +
                            std::to_string(f.index) + " fails at " + f.key};
    }
    return Graph(std::move(model), std::move(certified));
  } catch (const LoadFailure& f) {
    throw RefusalError(f.code, f.step, f.message);
  }
}

const Certificate& Graph::certify() const {
  return certified_->certificate;
}

std::optional<AdmissibleRange> Graph::admissible_range(uint32_t tensor, Profile profile) const {
  if (tensor >= model_->tensors.size()) throw std::out_of_range("admissible_range: no such tensor");
  if (profile == Profile::None) throw std::out_of_range("admissible_range: Profile::None has no widths");
  return wai::admissible_range(*model_, certified_->bounds, tensor,
                               profile == Profile::Acc64 ? kAcc64 : kAcc32);
}

size_t Graph::tensor_count() const {
  return model_->tensors.size();
}

Certificate certify_set(std::span<const SetMember> members, const SetInfo& info) {
  std::vector<CertifiedGraph> graphs;
  for (const SetMember& s : members) {
    if (!s.graph) throw std::invalid_argument("certify_set: a member has no graph");
    const detail::Certified& c = s.graph->certified();
    graphs.push_back({&s.graph->model(), &c.bounds, c.graph_sha256, s.role});
  }
  return set_certificate(graphs, info);
}

size_t Graph::data_input_count() const {
  return size_t(std::count_if(model_->inputs.begin(), model_->inputs.end(),
                              [](const Input& in) { return in.kind == InputKind::Data; }));
}
size_t Graph::state_input_count() const {
  return model_->inputs.size() - data_input_count();
}
size_t Graph::scalar_count() const {
  return model_->scalars.size();
}
size_t Graph::output_count() const {
  return model_->outputs.size();
}

namespace {

struct Refused {
  Refusal code;
  std::string message;
};

Shape shape_of(const IntTensor& t) {
  return {t.shape[0], t.shape[1], t.shape[2]};
}

// A tensor's policy after it is produced (§3): clamp it, or refuse an element outside a check range.
void apply_policy(const TensorRecord& r, IntTensor& t, const std::string& what) {
  if (r.policy == Policy::Clamp) {
    for (int64_t& v : t.data) v = std::clamp(v, r.lo, r.hi);
  } else if (r.policy == Policy::Check) {
    for (int64_t v : t.data)
      if (v < r.lo || v > r.hi)
        throw Refused{Refusal::FieldRange, what + " has an element outside its check range"};
  }
}

// The kernel table of the acc32 fast path: the named path, or the best this CPU has.
const KernelTable* fast_path_kernels(const std::string& name) {
  KernelPath path = best_kernel_path();
  if (!name.empty() && !parse_kernel_path(name, path))
    throw std::invalid_argument("wai: unknown kernel path " + name);
  const KernelTable* table = kernel_table(path);
  if (!table) throw std::invalid_argument("wai: this build or CPU has no kernel path " + name);
  return table;
}

}  // namespace

RunResult IntSession::run(std::span<const IntTensor> inputs, std::span<const int64_t> scalars,
                          State& state) const {
  const Model& m = *graph_.model_;
  RunResult result;
  try {
    if (inputs.size() != graph_.data_input_count() || scalars.size() != m.scalars.size())
      throw Refused{Refusal::ModelMismatch, "the decode does not supply the graph's data inputs and scalars"};
    for (const IntTensor& t : inputs)
      if (t.shape[0] < 0 || t.shape[1] < 0 || t.shape[2] < 0 ||
          elements({t.shape[0], t.shape[1], t.shape[2]}) != t.data.size())
        throw Refused{Refusal::ModelMismatch, "an input's data does not match its shape"};
    if (state.started && state.tensors.size() != graph_.state_input_count())
      throw Refused{Refusal::ModelMismatch, "the state does not belong to this graph"};

    // Step 1: each input's channels and sizes, state inputs included, before any value is read.
    std::vector<Shape> shapes(m.tensors.size());
    size_t next_data = 0, next_state = 0;
    for (size_t i = 0; i < m.inputs.size(); ++i) {
      const Input& in = m.inputs[i];
      Shape s;
      if (in.kind == InputKind::Data) {
        s = shape_of(inputs[next_data++]);
      } else if (state.started) {
        s = shape_of(state.tensors[next_state++]);
      } else {
        s = {m.tensors[in.tensor].channels, shapes[m.inputs[0].tensor].h, shapes[m.inputs[0].tensor].w};
      }
      const std::string what = "input " + std::to_string(i);
      if (s.c != m.tensors[in.tensor].channels || s.h < 1 || s.w < 1)
        throw Refused{Refusal::ModelMismatch, what + " has the wrong channel count or an empty side"};
      if (m.sizes_declared && (s.h > in.max_h || s.w > in.max_w))
        throw Refused{Refusal::TooLarge, what + " is larger than its declared size"};
      if (elements(s) > m.max_elems) throw Refused{Refusal::TooLarge, what + " passes max_elems"};
      shapes[in.tensor] = s;
    }
    // Step 2: scalars against their ranges.
    for (size_t i = 0; i < scalars.size(); ++i)
      if (scalars[i] < m.scalars[i].lo || scalars[i] > m.scalars[i].hi)
        throw Refused{Refusal::FieldRange, "scalar " + std::to_string(i) + " is outside its range"};
    // Step 3: the run-time plan.
    std::vector<Shape> in_shapes, out_shapes;
    for (size_t k = 0; k < m.nodes.size(); ++k) {
      const Node& n = m.nodes[k];
      const std::string where = std::string(op_name(n.op)) + " #" + std::to_string(k) + ": ";
      in_shapes.clear();
      for (uint32_t t : n.in) in_shapes.push_back(shapes[t]);
      const PlanOutcome o = plan_node(m, n, in_shapes, scalars, false, out_shapes);
      if (o.code != Refusal::None) throw Refused{o.code, where + o.message};
      for (size_t i = 0; i < n.out.size(); ++i) {
        if (elements(out_shapes[i]) > m.max_elems)
          throw Refused{Refusal::TooLarge, where + "output passes max_elems"};
        shapes[n.out[i]] = out_shapes[i];
      }
    }
    // Step 4: evaluation, starting with the inputs' policies.
    const Bounds& bounds = graph_.certified().bounds;
    std::vector<IntTensor> values(m.tensors.size());
    next_data = next_state = 0;
    for (size_t i = 0; i < m.inputs.size(); ++i) {
      const Input& in = m.inputs[i];
      IntTensor& t = values[in.tensor];
      if (in.kind == InputKind::Data) {
        t = inputs[next_data++];
      } else if (state.started) {
        t = state.tensors[next_state++];
      } else {
        const Shape& s = shapes[in.tensor];
        t.shape = {s.c, s.h, s.w};
        t.data.assign(elements(s), in.init);
      }
      apply_policy(m.tensors[in.tensor], t, "input " + std::to_string(i));
      if (options_.check_bounds)
        check_in_interval(bounds.tensors[in.tensor], t, "input " + std::to_string(i));
    }
    const KernelTable* kernels = nullptr;
    if (options_.acc32_fast_path && !options_.check_bounds) kernels = fast_path_kernels(options_.kernel_path);
    const ThreadContext threads{options_.threads};
    std::vector<const IntTensor*> ins;
    std::vector<IntTensor*> outs;
    for (size_t k = 0; k < m.nodes.size(); ++k) {
      const Node& n = m.nodes[k];
      ins.clear(), outs.clear();
      for (uint32_t t : n.in) ins.push_back(&values[t]);
      for (uint32_t t : n.out) {
        const Shape& s = shapes[t];
        values[t].shape = {s.c, s.h, s.w};
        values[t].data.assign(elements(s), 0);
        outs.push_back(&values[t]);
      }
      const std::string where = std::string(op_name(n.op)) + " #" + std::to_string(k);
      BoundsChecker checker(bounds.nodes[k], where);
      try {
        if (kernels && acc32_eligible(n, bounds.nodes[k], bounds.tensors[n.in[0]]))
          conv_acc32(*kernels, threads, n, *ins[0], *outs[0]);
        else
          eval_node(n, ins, outs, scalars, options_.check_bounds ? &checker : nullptr);
      } catch (const WidthOverflow&) {
        throw Refused{Refusal::ModelMismatch,
                      std::string(op_name(n.op)) + " #" + std::to_string(k) +
                          ": a value passes its acc64 width (the bounds pass would refuse "
                          "this graph)"};
      }
      for (size_t i = 0; i < n.out.size(); ++i) {
        const uint32_t t = n.out[i];
        if (options_.check_bounds)
          check_in_interval(bounds.nodes[k].results[i], values[t], where + " result");
        apply_policy(m.tensors[t], values[t], "tensor " + std::to_string(t));
        if (options_.check_bounds)
          check_in_interval(bounds.tensors[t], values[t], "tensor " + std::to_string(t));
      }
    }
    for (uint32_t t : m.outputs) result.outputs.push_back(values[t]);
    State next{true, {}};
    for (const Input& in : m.inputs)
      if (in.kind == InputKind::State) next.tensors.push_back(values[m.outputs[in.src]]);
    state = std::move(next);
  } catch (const Refused& r) {
    result.refusal = r.code;
    result.message = r.message;
    result.outputs.clear();
  }
  return result;
}

}  // namespace onemodel::wai
