#include "onemodel/session.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "format/file_bytes.h"
#include "graph/compiled_graph.h"
#include "graph/plan.h"
#include "graph/string_values.h"
#include "onnx/onnx_reader.h"

namespace onemodel {
namespace {

using Kind = SessionError::Kind;

const KernelTable& choose_kernels(const SessionOptions& options) {
  std::string name = options.kernels;
  if (name.empty()) {
    if (const char* env = std::getenv("ONEMODEL_KERNELS")) name = env;
  }
  KernelPath path = best_kernel_path();
  if (!name.empty() && !parse_kernel_path(name, path)) {
    throw SessionError(Kind::InvalidInput,
                       "unknown kernel path '" + name + "' (use scalar, v128, avx2 or avx512)");
  }
  const KernelTable* table = kernel_table(path);
  if (!table) {
    throw SessionError(Kind::Unsupported, "kernel path '" + std::string(kernel_path_name(path)) +
                                              "' is not available on this machine");
  }
  return *table;
}

ThreadContext choose_threads(const SessionOptions& options) {
  if (options.intra_op_threads < 0) throw SessionError(Kind::InvalidInput, "intra_op_threads must be >= 0");
  int n = options.intra_op_threads == 0 ? hardware_threads() : options.intra_op_threads;
  return ThreadContext{std::clamp(n, 1, 256)};
}

}  // namespace

class SessionImpl {
 public:
  SessionImpl(std::shared_ptr<const ir::Model> model, const SessionOptions& options)
      : options_(options), kernels_(choose_kernels(options)), threads_(choose_threads(options)) {
    if (options.max_cached_plans < 1) throw SessionError(Kind::InvalidInput, "max_cached_plans must be >= 1");
    graph_ = std::make_shared<const CompiledGraph>(std::move(model), options);
  }

  std::shared_ptr<const CompiledGraph> graph() const {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!graph_) throw SessionError(Kind::Disposed, "the session was disposed");
    return graph_;
  }

  void dispose() {
    std::lock_guard<std::mutex> lock(mutex_);
    graph_.reset();
    plans_.clear();
  }

  // Validates inputs against the declarations (before anything runs) and returns the plan for their shapes.
  std::shared_ptr<ExecutionPlan> plan_for(const std::shared_ptr<const CompiledGraph>& graph,
                                          std::span<const TensorRef> inputs) {
    const auto& infos = graph->inputs();
    for (size_t i = 0; i < infos.size(); ++i) check_input(infos[i], inputs[i]);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (const auto& p : plans_) {
        if (p->matches(inputs)) return p;
      }
    }
    std::lock_guard<std::mutex> build(build_mutex_);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (const auto& p : plans_) {
        if (p->matches(inputs)) return p;
      }
    }
    auto plan = std::make_shared<ExecutionPlan>(graph, inputs, kernels_,
                                                options_.mode == ExecutionMode::Exact, threads_);
    std::lock_guard<std::mutex> lock(mutex_);
    if (!graph_) throw SessionError(Kind::Disposed, "the session was disposed");
    if (static_cast<int>(plans_.size()) >= options_.max_cached_plans) plans_.erase(plans_.begin());
    plans_.push_back(plan);
    return plan;
  }

  const SessionOptions& options() const { return options_; }
  const KernelTable& kernels() const { return kernels_; }

  // Name lookups and the ordered input list reuse per-thread storage: a warm run allocates nothing here.
  std::span<TensorRef> ordered_inputs(const CompiledGraph& graph, const std::vector<NamedTensor>& named) {
    thread_local std::vector<TensorRef> refs;
    thread_local std::vector<bool> seen;
    const auto& infos = graph.inputs();
    refs.assign(infos.size(), TensorRef{});
    seen.assign(infos.size(), false);
    for (const NamedTensor& nt : named) {
      size_t i = 0;
      while (i < infos.size() && infos[i].name != nt.name) ++i;
      if (i == infos.size())
        throw SessionError(Kind::InvalidInput, "the model has no input named '" + nt.name + "'");
      if (seen[i]) throw SessionError(Kind::InvalidInput, "input '" + nt.name + "' is given twice");
      if (nt.tensor.empty())
        throw SessionError(Kind::InvalidInput, "input '" + nt.name + "' is an empty handle");
      seen[i] = true;
      refs[i].dtype = nt.tensor.dtype();
      refs[i].shape = Shape::of(nt.tensor.shape());
      refs[i].data = static_cast<std::byte*>(const_cast<void*>(nt.tensor.raw()));
    }
    for (size_t i = 0; i < infos.size(); ++i) {
      if (!seen[i]) throw SessionError(Kind::InvalidInput, "input '" + infos[i].name + "' is missing");
    }
    return refs;
  }

 private:
  static void check_input(const TensorInfo& info, const TensorRef& r) {
    if (info.dtype != r.dtype) {
      throw SessionError(Kind::InvalidInput, "input '" + info.name + "' must be " +
                                                 std::string(dtype_name(info.dtype)) + ", got " +
                                                 std::string(dtype_name(r.dtype)));
    }
    if (!info.has_shape) return;
    if (info.dims.size() != static_cast<size_t>(r.shape.rank)) {
      throw SessionError(Kind::InvalidInput, "input '" + info.name + "' must have rank " +
                                                 std::to_string(info.dims.size()) + ", got shape " +
                                                 r.shape.str());
    }
    for (size_t d = 0; d < info.dims.size(); ++d) {
      if (info.dims[d].fixed() && info.dims[d].value != r.shape[static_cast<int>(d)]) {
        throw SessionError(Kind::InvalidInput, "input '" + info.name + "' dimension " + std::to_string(d) +
                                                   " must be " + std::to_string(info.dims[d].value) +
                                                   ", got shape " + r.shape.str());
      }
    }
  }

  SessionOptions options_;
  const KernelTable& kernels_;
  ThreadContext threads_;
  mutable std::mutex mutex_;
  std::mutex build_mutex_;
  std::shared_ptr<const CompiledGraph> graph_;
  std::vector<std::shared_ptr<ExecutionPlan>> plans_;  // oldest first
};

namespace {

// Runs a plan and hands the state back to its pool however the caller leaves.
class RunGuard {
 public:
  RunGuard(std::shared_ptr<ExecutionPlan> plan, std::span<const TensorRef> inputs)
      : plan_(std::move(plan)), state_(plan_->run(inputs)) {}
  ~RunGuard() { plan_->release(state_); }
  const TensorRef& output(size_t i) const { return plan_->output(*state_, i); }

 private:
  std::shared_ptr<ExecutionPlan> plan_;
  RunState* state_;
};

size_t output_index(const CompiledGraph& graph, const std::string& name) {
  const auto& outs = graph.outputs();
  for (size_t i = 0; i < outs.size(); ++i) {
    if (outs[i].name == name) return i;
  }
  throw SessionError(Kind::InvalidInput, "the model has no output named '" + name + "'");
}

void copy_out(const TensorRef& r, Tensor& dst) {
  if (r.dtype == DType::String) {
    // The text lives in the run or the plan: the caller's tensor gets its own copy, in a new block.
    dst = Tensor::from_strings(string_views(r), r.shape.vec());
    return;
  }
  bool reusable = !dst.empty() && dst.dtype() == r.dtype &&
                  dst.shape().size() == static_cast<size_t>(r.shape.rank) &&
                  std::equal(dst.shape().begin(), dst.shape().end(), r.shape.dims.begin());
  if (!reusable) dst = Tensor(r.dtype, r.shape.vec());
  if (r.bytes()) std::memcpy(dst.raw(), r.data, r.bytes());
}

}  // namespace

Session::Session(std::shared_ptr<SessionImpl> impl) : impl_(std::move(impl)) {}
Session::Session(Session&&) noexcept = default;
Session& Session::operator=(Session&&) noexcept = default;
Session::~Session() = default;

Session Session::load(const std::filesystem::path& path, const SessionOptions& options) {
  auto model = std::make_shared<const ir::Model>(onnx::import_model_file(path));
  return Session(std::make_shared<SessionImpl>(std::move(model), options));
}

Session Session::load(std::span<const std::byte> bytes, const SessionOptions& options) {
  // Kernels may keep views of attribute tensors, so the model owns a copy of the bytes, aligned as a file
  // read would be so that a .onemodel file's weights are used in place.
  std::shared_ptr<std::byte> copy = format::aligned_buffer(bytes.size());
  if (!bytes.empty()) std::memcpy(copy.get(), bytes.data(), bytes.size());
  const std::span<const std::byte> view(copy.get(), bytes.size());
  return load_shared(view, std::move(copy), options);
}

Session Session::load(std::shared_ptr<const std::vector<std::byte>> bytes, const SessionOptions& options) {
  if (!bytes) throw SessionError(Kind::InvalidInput, "no model bytes (null buffer)");
  const std::span<const std::byte> view(*bytes);
  return load_shared(view, std::move(bytes), options);
}

Session Session::load_shared(std::span<const std::byte> bytes, std::shared_ptr<const void> owner,
                             const SessionOptions& options) {
  if (!owner) throw SessionError(Kind::InvalidInput, "no owner for the shared model bytes (null pointer)");
  auto model = std::make_shared<const ir::Model>(onnx::import_model(bytes, std::move(owner)));
  return Session(std::make_shared<SessionImpl>(std::move(model), options));
}

const std::vector<TensorInfo>& Session::inputs() const {
  return impl_->graph()->inputs();
}
const std::vector<TensorInfo>& Session::outputs() const {
  return impl_->graph()->outputs();
}
std::string_view Session::kernel_path() const {
  return impl_->kernels().name;
}
ExecutionMode Session::mode() const {
  return impl_->options().mode;
}
size_t Session::weight_bytes() const {
  return impl_->graph()->weight_bytes();
}
void Session::dispose() {
  impl_->dispose();
}

std::vector<Tensor> Session::run(const std::vector<NamedTensor>& inputs,
                                 const std::vector<std::string>& output_names) {
  std::vector<Tensor> outputs;
  run(inputs, output_names, outputs);
  return outputs;
}

void Session::run(const std::vector<NamedTensor>& inputs, const std::vector<std::string>& output_names,
                  std::vector<Tensor>& outputs) {
  auto graph = impl_->graph();
  std::span<TensorRef> refs = impl_->ordered_inputs(*graph, inputs);
  const size_t wanted = output_names.empty() ? graph->outputs().size() : output_names.size();
  for (const std::string& name : output_names)
    output_index(*graph, name);  // unknown names fail before running
  RunGuard run(impl_->plan_for(graph, refs), refs);
  outputs.resize(wanted);
  for (size_t i = 0; i < wanted; ++i) {
    size_t index = output_names.empty() ? i : output_index(*graph, output_names[i]);
    copy_out(run.output(index), outputs[i]);
  }
}

size_t Session::run_span(DType in_type, const void* in, size_t in_count, std::span<const int64_t> in_shape,
                         DType out_type, void* out, size_t out_capacity, std::span<int64_t, 8> out_shape) {
  auto graph = impl_->graph();
  if (graph->inputs().size() != 1 || graph->outputs().size() != 1) {
    throw SessionError(Kind::InvalidInput, "the span form needs a model with one input and one output");
  }
  TensorRef input{in_type, Shape::of(in_shape), static_cast<std::byte*>(const_cast<void*>(in))};
  if (input.count() != static_cast<int64_t>(in_count)) {
    throw SessionError(Kind::InvalidInput,
                       std::to_string(in_count) + " input values do not match shape " + input.shape.str());
  }
  std::span<const TensorRef> refs(&input, 1);
  RunGuard run(impl_->plan_for(graph, refs), refs);
  const TensorRef& r = run.output(0);
  if (r.dtype != out_type) {
    throw SessionError(Kind::InvalidInput, "output '" + graph->outputs()[0].name + "' is " +
                                               std::string(dtype_name(r.dtype)) + ", not " +
                                               std::string(dtype_name(out_type)));
  }
  if (static_cast<size_t>(r.count()) > out_capacity) {
    throw SessionError(Kind::InvalidInput, "the output buffer holds " + std::to_string(out_capacity) +
                                               " values, the output has " + std::to_string(r.count()));
  }
  if (r.bytes()) std::memcpy(out, r.data, r.bytes());
  std::copy(r.shape.dims.begin(), r.shape.dims.begin() + r.shape.rank, out_shape.begin());
  return static_cast<size_t>(r.shape.rank);
}

}  // namespace onemodel
