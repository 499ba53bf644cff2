#include "graph/plan.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace onemodel {
namespace {

constexpr size_t kSlabAlign = 64;
constexpr int64_t kMaxSlabBytes = int64_t{1} << 31;
constexpr size_t kConstantGrowthLimit = 64 * 1024;
constexpr size_t kMaxIdleStates = 8;

size_t aligned_size(size_t bytes) {
  return std::max(kSlabAlign, (bytes + kSlabAlign - 1) & ~(kSlabAlign - 1));
}

// Storage for zero-sized values: present values always have non-null data.
alignas(64) std::byte g_empty_storage[64];

std::byte* data_or_empty(std::byte* p) {
  return p ? p : g_empty_storage;
}

[[noreturn]] void unstored_type(const CompiledValue& v, int32_t code) {
  throw SessionError(SessionError::Kind::Unsupported,
                     "value '" + v.name + "' has element type " + std::string(onnx_type_name(code)));
}

// Infer context shared by plan time and run time; `values` supplies what is known of each input.
class NodeInferContext final : public InferContext {
 public:
  NodeInferContext(const CompiledNode& node, std::span<const TensorRef> inputs, const bool* known, bool exact,
                   const KernelTable& kernels, ThreadContext threads,
                   std::span<const ConstTensor* const> constants = {})
      : node_(node),
        inputs_(inputs),
        known_(known),
        exact_(exact),
        kernels_(kernels),
        threads_(threads),
        constants_of_inputs_(constants) {
    dtypes_.resize(node.outputs.size());
    shapes_.resize(node.outputs.size());
    set_.assign(node.outputs.size(), false);
  }
  size_t num_inputs() const override { return node_.inputs.size(); }
  size_t num_outputs() const override { return node_.outputs.size(); }
  bool has_input(size_t i) const override { return i < inputs_.size() && inputs_[i].data != nullptr; }
  DType input_dtype(size_t i) const override { return i < inputs_.size() ? inputs_[i].dtype : DType::F32; }
  const Shape& input_shape(size_t i) const override { return i < inputs_.size() ? inputs_[i].shape : empty_; }
  const TensorRef* input_value(size_t i) const override {
    return has_input(i) && known_[i] ? &inputs_[i] : nullptr;
  }
  void set_output(size_t i, DType dtype, const Shape& shape) override {
    check_index(i);
    std::string problem = shape_problem(shape.span(), dtype_size(dtype));
    if (!problem.empty()) fail("output " + std::to_string(i) + " " + shape.str() + ": " + problem);
    dtypes_[i] = dtype;
    shapes_[i] = shape;
    set_[i] = true;
  }
  void set_constant_output(size_t i, ConstTensor value) override {
    check_index(i);
    if (constants_.empty()) constants_.resize(node_.outputs.size());
    dtypes_[i] = value.ref.dtype;
    shapes_[i] = value.ref.shape;
    set_[i] = true;
    constants_[i] = std::move(value);
  }
  void require_run_time_values() override { needs_values_ = true; }
  bool exact() const override { return exact_; }
  const NodeInfo& node() const override { return *node_.info; }
  const KernelTable* kernels() const override { return &kernels_; }
  ThreadContext threads() const override { return threads_; }
  void outputs_known_after_run() override { after_run_ = true; }
  const ConstTensor* input_constant(size_t i) const override {
    return i < constants_of_inputs_.size() ? constants_of_inputs_[i] : nullptr;
  }

  bool complete() const {
    return std::all_of(set_.begin(), set_.end(), [](bool b) { return b; });
  }
  std::vector<DType> dtypes_;
  std::vector<Shape> shapes_;
  std::vector<ConstTensor> constants_;
  bool needs_values_ = false;
  bool after_run_ = false;

 private:
  void check_index(size_t i) const {
    if (i >= node_.outputs.size())
      fail("kernel stated output " + std::to_string(i) + " the node does not have");
  }
  const CompiledNode& node_;
  std::span<const TensorRef> inputs_;
  const bool* known_;
  bool exact_;
  const KernelTable& kernels_;
  ThreadContext threads_;
  std::span<const ConstTensor* const> constants_of_inputs_;
  Shape empty_;
  std::vector<bool> set_;
};

}  // namespace

// Per-run mutable state, pooled per plan.
class RunState final : public OpRun::OutputAllocator {
 public:
  std::unique_ptr<std::byte[]> slab_memory;
  std::byte* slab = nullptr;
  Arena arena;  // values of dynamic steps and their scratch: valid for the whole run
  // Scratch of one planned step (and its omitted outputs), reset once it has run: temporaries such as the
  // half adapter's binary32 copies then need the largest step's bytes, not the sum over the graph.
  Arena step_scratch;
  std::vector<TensorRef> table;
  std::vector<TensorRef> in_refs, out_refs;
  std::unique_ptr<bool[]> known;           // all true: every value is known during a run
  std::vector<ConstTensor> run_constants;  // constants stated by dynamic nodes during this run
  const std::vector<int32_t>* current_outputs = nullptr;

  TensorRef& allocate(size_t i, DType dtype, const Shape& shape) override {
    std::string problem = shape_problem(shape.span(), dtype_size(dtype));
    if (!problem.empty())
      throw SessionError(SessionError::Kind::InvalidInput, "output " + shape.str() + ": " + problem);
    TensorRef& r = out_refs.at(i);
    r.dtype = dtype;
    r.shape = shape;
    r.data = static_cast<std::byte*>(arena.allocate(r.bytes()));
    int32_t v = (*current_outputs)[i];
    if (v >= 0) table[static_cast<size_t>(v)] = r;
    return r;
  }
  char* allocate_text(size_t bytes) override { return static_cast<char*>(arena.allocate(bytes)); }
};

ExecutionPlan::ExecutionPlan(std::shared_ptr<const CompiledGraph> graph, std::span<const TensorRef> inputs,
                             const KernelTable& kernels, bool exact, ThreadContext threads,
                             std::span<const ConstTensor* const> bound)
    : graph_(std::move(graph)), kernels_(kernels), exact_(exact), threads_(threads) {
  for (const TensorRef& r : inputs) key_.emplace_back(r.dtype, r.shape);
  if (!bound.empty()) {
    for (const ConstTensor* c : bound) bound_key_.push_back(c ? c->ref.data : nullptr);
  }
  plan_nodes(inputs, bound);
  place_in_slab();
}

ExecutionPlan::~ExecutionPlan() = default;

bool ExecutionPlan::matches(std::span<const TensorRef> inputs,
                            std::span<const ConstTensor* const> bound) const {
  if (inputs.size() != key_.size()) return false;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].dtype != key_[i].first || inputs[i].shape != key_[i].second) return false;
    const std::byte* want = bound_key_.empty() ? nullptr : bound_key_[i];
    const std::byte* got = bound.empty() || !bound[i] ? nullptr : bound[i]->ref.data;
    if (want != got) return false;
  }
  return true;
}

void ExecutionPlan::plan_nodes(std::span<const TensorRef> inputs, std::span<const ConstTensor* const> bound) {
  const auto& gvalues = graph_->values();
  values_.resize(gvalues.size());
  for (size_t v = 0; v < gvalues.size(); ++v) {
    if (gvalues[v].constant) {
      values_[v].kind = PlanValue::Kind::Constant;
      values_[v].constant = gvalues[v].constant->ref;
      values_[v].owner = &*gvalues[v].constant;
      values_[v].dtype = values_[v].constant.dtype;
      values_[v].shape = values_[v].constant.shape;
    }
  }
  const auto& input_ids = graph_->input_ids();
  for (size_t i = 0; i < input_ids.size(); ++i) {
    PlanValue& pv = values_[static_cast<size_t>(input_ids[i])];
    pv.kind = PlanValue::Kind::Input;
    pv.input_index = static_cast<int32_t>(i);
    pv.dtype = inputs[i].dtype;
    pv.shape = inputs[i].shape;
    if (!bound.empty() && bound[i]) {
      owned_.push_back(*bound[i]);
      pv.kind = PlanValue::Kind::Constant;
      pv.constant = owned_.back().ref;
      pv.owner = &owned_.back();
    }
  }

  std::vector<TensorRef> refs;
  std::unique_ptr<bool[]> known_storage;
  const auto& nodes = graph_->nodes();
  for (size_t n = 0; n < nodes.size(); ++n) {
    const CompiledNode& node = nodes[n];
    const OpKernel& kernel = *node.kernel;
    max_arity_ = std::max({max_arity_, node.inputs.size(), node.outputs.size()});
    refs.assign(node.inputs.size(), TensorRef{});
    known_storage.reset(new bool[node.inputs.size() + 1]());
    bool any_dynamic = false, all_constant = true;
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      int32_t v = node.inputs[i];
      if (v < 0) continue;
      const PlanValue& pv = values_[static_cast<size_t>(v)];
      if (gvalues[static_cast<size_t>(v)].unstored_type != 0) {
        unstored_type(gvalues[static_cast<size_t>(v)], gvalues[static_cast<size_t>(v)].unstored_type);
      }
      if (pv.kind == PlanValue::Kind::Absent) {
        throw SessionError(
            SessionError::Kind::InvalidModel,
            "value '" + gvalues[static_cast<size_t>(v)].name + "' is read before it is computed",
            node.info->display_name());
      }
      refs[i] = TensorRef{pv.dtype, pv.shape, g_empty_storage};
      if (pv.kind == PlanValue::Kind::Constant) {
        refs[i] = pv.constant;
        known_storage[i] = true;
      } else {
        all_constant = false;
      }
      if (pv.kind == PlanValue::Kind::Dynamic) any_dynamic = true;
    }

    PlanStep step;
    step.node = static_cast<int32_t>(n);
    if (node.captures) {
      step.constants.resize(node.inputs.size());
      for (size_t i = 0; i < node.inputs.size(); ++i) {
        const int32_t v = node.inputs[i];
        if (v >= 0 && values_[static_cast<size_t>(v)].kind == PlanValue::Kind::Constant)
          step.constants[i] = values_[static_cast<size_t>(v)].owner;
      }
    }
    auto mark_dynamic = [&] {
      step.kind = PlanStep::Kind::Dynamic;
      for (int32_t o : node.outputs) {
        if (o >= 0) values_[static_cast<size_t>(o)].kind = PlanValue::Kind::Dynamic;
      }
      steps_.push_back(step);
    };
    if (any_dynamic || kernel.outputs_data_dependent) {
      mark_dynamic();
      continue;
    }
    NodeInferContext ctx(node, refs, known_storage.get(), exact_, kernels_, threads_, step.constants);
    kernel.infer(ctx);
    if (ctx.needs_values_ || ctx.after_run_) {
      mark_dynamic();
      continue;
    }
    if (!ctx.complete()) {
      throw SessionError(SessionError::Kind::InvalidModel, "kernel did not state every output",
                         node.info->display_name());
    }
    if (!ctx.constants_.empty()) {
      for (size_t o = 0; o < node.outputs.size(); ++o) {
        if (node.outputs[o] < 0) continue;
        if (!ctx.constants_[o].storage) {
          throw SessionError(SessionError::Kind::InvalidModel, "kernel stated only some outputs as constants",
                             node.info->display_name());
        }
        PlanValue& pv = values_[static_cast<size_t>(node.outputs[o])];
        pv.kind = PlanValue::Kind::Constant;
        pv.constant = ctx.constants_[o].ref;
        pv.dtype = pv.constant.dtype;
        pv.shape = pv.constant.shape;
        owned_.push_back(std::move(ctx.constants_[o]));
        pv.owner = &owned_.back();
      }
      continue;
    }
    std::vector<PlanValue> outs(node.outputs.size());
    for (size_t o = 0; o < node.outputs.size(); ++o) {
      outs[o].kind = PlanValue::Kind::Static;
      outs[o].dtype = ctx.dtypes_[o];
      outs[o].shape = ctx.shapes_[o];
    }
    if (kernel.view_of_input) {
      const PlanValue& src = values_[static_cast<size_t>(node.inputs.at(0))];
      if (dtype_size(outs[0].dtype) * static_cast<size_t>(outs[0].shape.count()) !=
          dtype_size(src.dtype) * static_cast<size_t>(src.shape.count())) {
        throw SessionError(SessionError::Kind::InvalidModel, "a view must keep the byte size of its input",
                           node.info->display_name());
      }
      if (src.kind == PlanValue::Kind::Constant) {
        outs[0].kind = PlanValue::Kind::Constant;
        outs[0].constant = TensorRef{outs[0].dtype, outs[0].shape, src.constant.data};
        if (src.owner) {
          owned_.push_back(ConstTensor{outs[0].constant, src.owner->storage});
          outs[0].owner = &owned_.back();
        }
      } else {
        step.kind = PlanStep::Kind::View;
        steps_.push_back(step);
      }
      values_[static_cast<size_t>(node.outputs[0])] = outs[0];
      continue;
    }
    if (all_constant) {
      // Bounded by the inputs together, so Concat(Slice(W), Slice(W)) of a weight still folds.
      size_t out_bytes = 0, input_bytes = 0;
      for (const PlanValue& o : outs) out_bytes += dtype_size(o.dtype) * static_cast<size_t>(o.shape.count());
      for (const TensorRef& r : refs) input_bytes += r.bytes();
      if (out_bytes <= std::max(input_bytes, kConstantGrowthLimit)) {
        evaluate_constant(n, outs);
        for (size_t o = 0; o < node.outputs.size(); ++o) {
          if (node.outputs[o] >= 0) values_[static_cast<size_t>(node.outputs[o])] = outs[o];
        }
        continue;
      }
    }
    step.omitted_outputs.resize(node.outputs.size());
    for (size_t o = 0; o < node.outputs.size(); ++o) {
      if (node.outputs[o] >= 0)
        values_[static_cast<size_t>(node.outputs[o])] = outs[o];
      else
        step.omitted_outputs[o] = {outs[o].dtype, outs[o].shape};
    }
    steps_.push_back(step);
  }

  for (int32_t o : graph_->output_ids()) {
    if (values_[static_cast<size_t>(o)].kind == PlanValue::Kind::Absent) {
      throw SessionError(SessionError::Kind::InvalidModel,
                         "graph output '" + gvalues[static_cast<size_t>(o)].name + "' is never computed");
    }
  }
}

namespace {

class ConstantPrepareContext final : public PrepareContext {
 public:
  ConstantPrepareContext(std::span<const TensorRef> inputs, const bool* known,
                         std::span<const TensorRef> outputs, bool exact, const KernelTable& kernels)
      : inputs_(inputs), known_(known), outputs_(outputs), exact_(exact), kernels_(kernels) {}
  const TensorRef* input_value(size_t i) const override {
    return i < inputs_.size() && inputs_[i].data && known_[i] ? &inputs_[i] : nullptr;
  }
  DType input_dtype(size_t i) const override { return inputs_[i].dtype; }
  const Shape& input_shape(size_t i) const override { return inputs_[i].shape; }
  const Shape& output_shape(size_t i) const override { return outputs_[i].shape; }
  bool exact() const override { return exact_; }
  const KernelTable& kernels() const override { return kernels_; }

 private:
  std::span<const TensorRef> inputs_;
  const bool* known_;
  std::span<const TensorRef> outputs_;
  bool exact_;
  const KernelTable& kernels_;
};

}  // namespace

void ExecutionPlan::evaluate_constant(size_t node_index, std::vector<PlanValue>& outs) {
  const CompiledNode& node = graph_->nodes()[node_index];
  std::vector<TensorRef> in(node.inputs.size()), out(outs.size());
  std::unique_ptr<bool[]> known(new bool[node.inputs.size() + 1]());
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    if (node.inputs[i] < 0) continue;
    in[i] = values_[static_cast<size_t>(node.inputs[i])].constant;
    known[i] = true;
  }
  std::vector<ConstTensor> results;
  for (size_t o = 0; o < outs.size(); ++o) {
    results.push_back(ConstTensor::allocate(outs[o].dtype, outs[o].shape));
    out[o] = results.back().ref;
  }
  ConstantPrepareContext prep(in, known.get(), out, exact_, kernels_);
  auto state = node.kernel->prepare(prep);
  Arena scratch;
  OpRun run;
  run.inputs = in;
  run.outputs = out;
  run.state = state.get();
  run.exact = exact_;
  run.kernels = &kernels_;
  run.scratch = &scratch;
  run.threads = threads_;
  run.node = node.info.get();
  node.kernel->run(run);
  for (size_t o = 0; o < outs.size(); ++o) {
    outs[o].kind = PlanValue::Kind::Constant;
    outs[o].constant = results[o].ref;
    owned_.push_back(std::move(results[o]));
    outs[o].owner = &owned_.back();
  }
}

namespace {

// Best-fit placement over one growing slab with coalescing free blocks (graph-runtime.md §5).
class SlabAllocator {
 public:
  int64_t allocate(size_t size) {
    size_t best = free_.size();
    for (size_t i = 0; i < free_.size(); ++i) {
      if (free_[i].second >= size && (best == free_.size() || free_[i].second < free_[best].second)) best = i;
    }
    if (best == free_.size()) {
      int64_t offset = static_cast<int64_t>(end_);
      end_ += size;
      return offset;
    }
    auto [offset, block] = free_[best];
    if (block == size)
      free_.erase(free_.begin() + static_cast<std::ptrdiff_t>(best));
    else
      free_[best] = {offset + static_cast<int64_t>(size), block - size};
    return offset;
  }
  void release(int64_t offset, size_t size) {
    auto it = std::lower_bound(free_.begin(), free_.end(), std::make_pair(offset, size_t{0}));
    it = free_.insert(it, {offset, size});
    if (it + 1 != free_.end() && it->first + static_cast<int64_t>(it->second) == (it + 1)->first) {
      it->second += (it + 1)->second;
      free_.erase(it + 1);
    }
    if (it != free_.begin() && (it - 1)->first + static_cast<int64_t>((it - 1)->second) == it->first) {
      (it - 1)->second += it->second;
      free_.erase(it);
    }
  }
  size_t end() const { return end_; }

 private:
  std::vector<std::pair<int64_t, size_t>> free_;  // sorted by offset
  size_t end_ = 0;
};

}  // namespace

void ExecutionPlan::place_in_slab() {
  const auto& nodes = graph_->nodes();
  const size_t n_values = values_.size();
  constexpr int64_t kForever = std::numeric_limits<int64_t>::max();
  std::vector<int32_t> root(n_values);
  for (size_t v = 0; v < n_values; ++v) root[v] = static_cast<int32_t>(v);
  std::vector<int64_t> last_use(n_values, -1);
  for (size_t s = 0; s < steps_.size(); ++s) {
    const CompiledNode& node = nodes[static_cast<size_t>(steps_[s].node)];
    for (int32_t v : node.inputs) {
      if (v >= 0) last_use[static_cast<size_t>(root[static_cast<size_t>(v)])] = static_cast<int64_t>(s);
    }
    // A view, planned or dynamic, keeps its source's storage alive as long as itself.
    if (node.kernel->view_of_input && node.outputs[0] >= 0 && node.inputs[0] >= 0) {
      root[static_cast<size_t>(node.outputs[0])] = root[static_cast<size_t>(node.inputs[0])];
    }
  }
  for (int32_t o : graph_->output_ids())
    last_use[static_cast<size_t>(root[static_cast<size_t>(o)])] = kForever;

  SlabAllocator slab;
  std::vector<size_t> block(n_values, 0);
  std::vector<bool> released(n_values, false);
  auto is_slab_value = [&](int32_t v) {
    return v >= 0 && root[static_cast<size_t>(v)] == v &&
           values_[static_cast<size_t>(v)].kind == PlanValue::Kind::Static;
  };
  auto release = [&](int32_t r, int64_t s) {
    auto ru = static_cast<size_t>(r);
    if (is_slab_value(r) && !released[ru] && last_use[ru] <= s && values_[ru].offset >= 0) {
      slab.release(values_[ru].offset, block[ru]);
      released[ru] = true;
    }
  };
  for (size_t s = 0; s < steps_.size(); ++s) {
    const PlanStep& step = steps_[s];
    const CompiledNode& node = nodes[static_cast<size_t>(step.node)];
    if (step.kind == PlanStep::Kind::Run) {
      for (size_t o = 0; o < node.outputs.size(); ++o) {
        int32_t out = node.outputs[o];
        if (!is_slab_value(out)) continue;
        PlanValue& pv = values_[static_cast<size_t>(out)];
        size_t size = aligned_size(dtype_size(pv.dtype) * static_cast<size_t>(pv.shape.count()));
        int in_place = node.kernel->in_place_input;
        if (o == 0 && in_place >= 0 && static_cast<size_t>(in_place) < node.inputs.size()) {
          int32_t src = node.inputs[static_cast<size_t>(in_place)];
          if (src >= 0) {
            auto r = static_cast<size_t>(root[static_cast<size_t>(src)]);
            PlanValue& rv = values_[r];
            if (static_cast<int32_t>(r) == src && is_slab_value(src) && !released[r] &&
                last_use[r] == static_cast<int64_t>(s) && rv.dtype == pv.dtype &&
                rv.shape.count() == pv.shape.count()) {
              pv.offset = rv.offset;
              block[static_cast<size_t>(out)] = block[r];
              released[r] = true;  // the block now belongs to the output
              continue;
            }
          }
        }
        pv.offset = slab.allocate(size);
        block[static_cast<size_t>(out)] = size;
      }
    }
    for (int32_t v : node.inputs) {
      if (v >= 0) release(root[static_cast<size_t>(v)], static_cast<int64_t>(s));
    }
    for (int32_t out : node.outputs) {
      if (out >= 0 && last_use[static_cast<size_t>(out)] < 0) release(out, static_cast<int64_t>(s));
    }
  }
  if (slab.end() >= static_cast<size_t>(kMaxSlabBytes)) {
    throw SessionError(SessionError::Kind::Unsupported, "the plan needs " + std::to_string(slab.end()) +
                                                            " bytes of intermediate values (limit 2 GiB)");
  }
  slab_bytes_ = slab.end();

  // Per-plan state from constant inputs (packed weights), for the steps that run.
  for (PlanStep& step : steps_) {
    if (step.kind != PlanStep::Kind::Run) continue;
    const CompiledNode& node = nodes[static_cast<size_t>(step.node)];
    std::vector<TensorRef> in(node.inputs.size()), out(node.outputs.size());
    std::unique_ptr<bool[]> known(new bool[node.inputs.size() + 1]());
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      if (node.inputs[i] < 0) continue;
      const PlanValue& pv = values_[static_cast<size_t>(node.inputs[i])];
      known[i] = pv.kind == PlanValue::Kind::Constant;
      in[i] = known[i] ? pv.constant : TensorRef{pv.dtype, pv.shape, g_empty_storage};
    }
    for (size_t o = 0; o < node.outputs.size(); ++o) {
      if (node.outputs[o] >= 0) {
        const PlanValue& pv = values_[static_cast<size_t>(node.outputs[o])];
        out[o] = TensorRef{pv.dtype, pv.shape, nullptr};
      } else {
        out[o] = TensorRef{step.omitted_outputs[o].first, step.omitted_outputs[o].second, nullptr};
      }
    }
    ConstantPrepareContext prep(in, known.get(), out, exact_, kernels_);
    step.state = node.kernel->prepare(prep);
  }
}

std::unique_ptr<RunState> ExecutionPlan::make_state() const {
  auto state = std::make_unique<RunState>();
  state->slab_memory.reset(new std::byte[slab_bytes_ + kSlabAlign]);
  auto addr = reinterpret_cast<uintptr_t>(state->slab_memory.get());
  state->slab = state->slab_memory.get() + ((kSlabAlign - addr % kSlabAlign) % kSlabAlign);
  state->table.resize(values_.size());
  for (size_t v = 0; v < values_.size(); ++v) {
    const PlanValue& pv = values_[v];
    if (pv.kind == PlanValue::Kind::Constant)
      state->table[v] = pv.constant;
    else if (pv.kind == PlanValue::Kind::Static && pv.offset >= 0)
      state->table[v] = TensorRef{pv.dtype, pv.shape, state->slab + pv.offset};
  }
  state->in_refs.resize(max_arity_);
  state->out_refs.resize(max_arity_);
  state->known.reset(new bool[max_arity_ + 1]);
  std::fill(state->known.get(), state->known.get() + max_arity_ + 1, true);
  return state;
}

RunState* ExecutionPlan::run(std::span<const TensorRef> inputs) {
  std::unique_ptr<RunState> owned;
  {
    std::lock_guard<std::mutex> lock(pool_mutex_);
    if (!idle_.empty()) {
      owned = std::move(idle_.back());
      idle_.pop_back();
    }
  }
  if (!owned) owned = make_state();
  RunState* state = owned.release();
  try {
    state->arena.reset();
    state->run_constants.clear();
    const auto& input_ids = graph_->input_ids();
    for (size_t i = 0; i < input_ids.size(); ++i) {
      TensorRef r = inputs[i];
      r.data = data_or_empty(r.data);
      state->table[static_cast<size_t>(input_ids[i])] = r;
    }
    const auto& nodes = graph_->nodes();
    for (const PlanStep& step : steps_) {
      const CompiledNode& node = nodes[static_cast<size_t>(step.node)];
      const size_t n_in = node.inputs.size(), n_out = node.outputs.size();
      for (size_t i = 0; i < n_in; ++i) {
        int32_t v = node.inputs[i];
        state->in_refs[i] = v >= 0 ? state->table[static_cast<size_t>(v)] : TensorRef{};
      }
      std::span<const TensorRef> in(state->in_refs.data(), n_in);
      std::span<TensorRef> out(state->out_refs.data(), n_out);
      OpRun run;
      run.inputs = in;
      run.outputs = out;
      run.state = step.state.get();
      run.exact = exact_;
      run.kernels = &kernels_;
      run.scratch = &state->arena;
      run.threads = threads_;
      run.node = node.info.get();
      run.constants = step.constants;
      if (step.kind == PlanStep::Kind::View) {
        const PlanValue& pv = values_[static_cast<size_t>(node.outputs[0])];
        state->table[static_cast<size_t>(node.outputs[0])] = TensorRef{pv.dtype, pv.shape, in[0].data};
        continue;
      }
      if (step.kind == PlanStep::Kind::Run) {
        run.scratch = &state->step_scratch;
        for (size_t o = 0; o < n_out; ++o) {
          int32_t v = node.outputs[o];
          if (v >= 0) {
            out[o] = state->table[static_cast<size_t>(v)];
          } else {
            const auto& [dtype, shape] = step.omitted_outputs[o];
            out[o] = TensorRef{dtype, shape, nullptr};
            out[o].data = data_or_empty(static_cast<std::byte*>(run.scratch->allocate(out[o].bytes())));
          }
        }
        node.kernel->run(run);
        state->step_scratch.reset();
        continue;
      }
      // Dynamic: shaped again from the real tensors, outputs from the arena; data-dependent ones as they
      // finish.
      auto run_data_dependent = [&] {
        for (size_t o = 0; o < n_out; ++o) out[o] = TensorRef{};
        state->current_outputs = &node.outputs;
        run.allocator = state;
        node.kernel->run(run);
      };
      if (node.kernel->outputs_data_dependent) {
        run_data_dependent();
        continue;
      }
      NodeInferContext ctx(node, in, state->known.get(), exact_, kernels_, threads_, step.constants);
      node.kernel->infer(ctx);
      if (ctx.after_run_) {
        run_data_dependent();
        continue;
      }
      if (!ctx.complete()) {
        throw SessionError(SessionError::Kind::InvalidModel, "kernel did not state every output",
                           node.info->display_name());
      }
      if (!ctx.constants_.empty()) {
        for (size_t o = 0; o < n_out; ++o) {
          if (node.outputs[o] >= 0)
            state->table[static_cast<size_t>(node.outputs[o])] = ctx.constants_[o].ref;
          state->run_constants.push_back(std::move(ctx.constants_[o]));
        }
        continue;
      }
      if (node.kernel->view_of_input) {
        if (node.outputs[0] >= 0) {
          state->table[static_cast<size_t>(node.outputs[0])] =
              TensorRef{ctx.dtypes_[0], ctx.shapes_[0], in[0].data};
        }
        continue;
      }
      for (size_t o = 0; o < n_out; ++o) {
        out[o] = TensorRef{ctx.dtypes_[o], ctx.shapes_[o], nullptr};
        out[o].data = data_or_empty(static_cast<std::byte*>(state->arena.allocate(out[o].bytes())));
        if (node.outputs[o] >= 0) state->table[static_cast<size_t>(node.outputs[o])] = out[o];
      }
      node.kernel->run(run);
    }
  } catch (...) {
    delete state;
    throw;
  }
  return state;
}

void ExecutionPlan::release(RunState* state) {
  std::unique_ptr<RunState> owned(state);
  std::lock_guard<std::mutex> lock(pool_mutex_);
  if (idle_.size() < kMaxIdleStates) idle_.push_back(std::move(owned));
}

bool ExecutionPlan::fixed_output(size_t i, DType& dtype, Shape& shape) const {
  const PlanValue& pv = values_[static_cast<size_t>(graph_->output_ids()[i])];
  if (pv.kind == PlanValue::Kind::Dynamic || pv.kind == PlanValue::Kind::Absent) return false;
  dtype = pv.dtype;
  shape = pv.shape;
  return true;
}

const TensorRef& ExecutionPlan::output(const RunState& state, size_t i) const {
  return state.table[static_cast<size_t>(graph_->output_ids()[i])];
}

}  // namespace onemodel
