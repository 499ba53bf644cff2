// The operator contract (graph-runtime.md §2, ARCHITECTURE.md §4). One OpKernel per node, immutable after the
// factory built it, shared by every plan and concurrent run.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/arena.h"
#include "core/shape.h"
#include "ir/ir.h"
#include "kernels/kernel_table.h"
#include "onemodel/error.h"
#include "onemodel/tensor.h"
#include "threading/parallel_for.h"

namespace onemodel {

// A constant tensor owned by a plan or kernel (constant outputs, prepared weights).
struct ConstTensor {
  TensorRef ref;
  std::shared_ptr<std::byte> storage;
  static ConstTensor allocate(DType dtype, const Shape& shape);  // zero-filled, 64-byte aligned
};

class CompiledGraph;

// Compiles a node's subgraph (the bodies of If, Loop, Scan, SequenceMap) as a nested graph of the session's
// mode, without graph passes (graph-runtime.md §8). Values the body reads from enclosing graphs become extra
// inputs after its declared ones, in the order of ir::Graph::captures.
class SubgraphCompiler {
 public:
  virtual ~SubgraphCompiler() = default;
  virtual std::shared_ptr<const CompiledGraph> compile(const ir::Graph& body) const = 0;
};

// What a factory sees of its node: attributes with defaults, and errors that name the node.
class NodeInfo {
 public:
  NodeInfo(const ir::Node& node, const ir::Graph& graph, const SubgraphCompiler* subgraphs = nullptr)
      : node_(node), graph_(graph), subgraphs_(subgraphs) {}
  const ir::Node& node() const { return node_; }
  const ir::Graph& graph() const { return graph_; }
  // Compiles a graph attribute of this node; throws InvalidModel when the node has no compiler (outside a
  // session).
  std::shared_ptr<const CompiledGraph> compile_subgraph(const ir::Graph& body) const;
  int64_t opset() const { return node_.opset; }
  size_t num_inputs() const { return node_.inputs.size(); }
  size_t num_outputs() const { return node_.outputs.size(); }
  bool has_input(size_t i) const { return i < node_.inputs.size() && node_.inputs[i] >= 0; }
  // Display name for errors: the node name, or "OpType #index" when unnamed.
  std::string display_name() const;

  const ir::Attribute* find(std::string_view name) const { return node_.find(name); }
  int64_t get_int(std::string_view name, int64_t fallback) const;
  float get_float(std::string_view name, float fallback) const;
  std::string get_string(std::string_view name, std::string_view fallback) const;
  std::vector<int64_t> get_ints(std::string_view name, std::vector<int64_t> fallback = {}) const;
  std::vector<float> get_floats(std::string_view name, std::vector<float> fallback = {}) const;
  // Throws SessionError(InvalidModel) naming the node.
  [[noreturn]] void fail(const std::string& message) const;
  // Throws SessionError(Unsupported) naming the node: a valid model using a case we do not serve.
  [[noreturn]] void unsupported(const std::string& message) const;

 private:
  const ir::Attribute* typed(std::string_view name, ir::AttrType type) const;
  const ir::Node& node_;
  const ir::Graph& graph_;
  const SubgraphCompiler* subgraphs_;
};

// Plan-time view of a node's inputs: types, shapes and constant values where known.
class InferContext {
 public:
  virtual ~InferContext() = default;
  virtual size_t num_inputs() const = 0;
  virtual size_t num_outputs() const = 0;
  virtual bool has_input(size_t i) const = 0;  // false for an omitted optional input
  virtual DType input_dtype(size_t i) const = 0;
  virtual const Shape& input_shape(size_t i) const = 0;
  // The input's value when known (constant at plan time, or the real value when a dynamic node is re-shaped
  // in a run); nullptr otherwise.
  virtual const TensorRef* input_value(size_t i) const = 0;
  virtual void set_output(size_t i, DType dtype, const Shape& shape) = 0;
  // The output is this constant for these shapes; all outputs of a node are constant or none are.
  virtual void set_constant_output(size_t i, ConstTensor value) = 0;
  // The node needs an input value that is unknown now: it is re-shaped with real values in every run.
  virtual void require_run_time_values() = 0;
  virtual bool exact() const = 0;
  virtual const NodeInfo& node() const = 0;
  // Throws SessionError(InvalidInput or InvalidModel) naming the node.
  [[noreturn]] void fail(const std::string& message) const;
  // For a node that plans a body while it is shaped (If): the session's kernels and threads; nullptr where no
  // plan is being made (graph passes).
  virtual const KernelTable* kernels() const { return nullptr; }
  virtual ThreadContext threads() const { return ThreadContext{1}; }
  // The outputs are known only once the node has run: it runs as data-dependent this time.
  virtual void outputs_known_after_run() { require_run_time_values(); }
  // For a node that holds bodies: input i as a constant of the enclosing plan with the owner of its bytes, so
  // a body can plan it as a constant; nullptr when it is not one.
  virtual const ConstTensor* input_constant(size_t) const { return nullptr; }
};

// Plan-time preparation of per-plan state from constant inputs (packed weights).
class PrepareContext {
 public:
  virtual ~PrepareContext() = default;
  virtual const TensorRef* input_value(size_t i) const = 0;  // constant inputs, else nullptr
  virtual DType input_dtype(size_t i) const = 0;
  virtual const Shape& input_shape(size_t i) const = 0;
  virtual const Shape& output_shape(size_t i) const = 0;
  virtual bool exact() const = 0;
  virtual const KernelTable& kernels() const = 0;
};

// Everything one run of one node sees.
struct OpRun {
  std::span<const TensorRef> inputs;  // an omitted optional input has data == nullptr and rank 0
  std::span<TensorRef> outputs;       // preallocated (except for data-dependent kernels)
  // What prepare() returned. prepare() runs only for nodes shaped at plan time; a node shaped during the run
  // (dynamic) gets nullptr here, so run() must also work without its prepared state.
  const void* state = nullptr;
  bool exact = false;
  const KernelTable* kernels = nullptr;
  Arena* scratch = nullptr;  // reset at the start of every run and after each planned step
  ThreadContext threads;
  // Data-dependent kernels only: allocate output i from the run's arena.
  class OutputAllocator {
   public:
    virtual ~OutputAllocator() = default;
    virtual TensorRef& allocate(size_t i, DType dtype, const Shape& shape) = 0;
    // Bytes that live as long as the run's outputs: the text of String elements the kernel makes.
    virtual char* allocate_text(size_t bytes) = 0;
  }* allocator = nullptr;
  const NodeInfo* node = nullptr;
  // Nodes that hold bodies: per input, the enclosing plan's constant behind it
  // (InferContext::input_constant), or nullptr; empty for other nodes.
  std::span<const ConstTensor* const> constants;
  bool has_input(size_t i) const { return i < inputs.size() && inputs[i].data != nullptr; }
};

// Copies `src` into output i of a run: allocated now for a data-dependent run, else the preallocated output,
// which must have src's type and shape (SessionError InvalidModel otherwise).
void copy_to_output(const OpRun& run, size_t i, const TensorRef& src);

class OpKernel {
 public:
  virtual ~OpKernel() = default;
  virtual void infer(InferContext& ctx) const = 0;
  virtual std::shared_ptr<const void> prepare(PrepareContext&) const { return nullptr; }
  virtual void run(const OpRun& run) const = 0;

  bool supports_exact = false;
  int in_place_input = -1;  // output 0 may reuse this input's storage
  bool view_of_input =
      false;  // output 0 is input 0 reinterpreted with the inferred shape; run() is never called
  bool outputs_data_dependent = false;
};

using OpFactory = std::unique_ptr<OpKernel> (*)(const NodeInfo&);

struct OpDef {
  std::string_view op_type;
  int min_opset;
  int max_opset;
  OpFactory factory;
  std::string_view domain = "";
};

// The static table (src/graph/op_table.cc). Returns nullptr when no definition serves (domain, type, opset).
const OpDef* find_op(std::string_view domain, std::string_view op_type, int64_t opset);
std::span<const OpDef> all_ops();

}  // namespace onemodel
